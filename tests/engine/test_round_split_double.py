"""Scripted rounds: splitting and doubling.

Deal order with one seat: player card 1, dealer upcard, player card 2, dealer hole card,
then every further card in draw order (a split hand gets its second card when play
reaches it). Default ``Rules()``: 6 decks, S17, peek, 3:2, ties push, double any two,
DAS, split to 4 hands, no resplit / hit of split aces, split by rank.
"""

from __future__ import annotations

import pytest

from blackjack_env.engine import Action, Outcome, Phase, Rules

from .helpers import outcomes, play, scripted

S, H, D, P, R = Action.STAND, Action.HIT, Action.DOUBLE, Action.SPLIT, Action.SURRENDER


# --------------------------------------------------------------------- split
def test_resplit_to_the_limit() -> None:
    # player 8S 8C vs dealer 6D + TD (16). Split three times to 4 hands; the 4th pair (8S 8S)
    # cannot be split again. Bankroll 1000, bet 10.
    cards = "8S 6D 8C TD 8H 8D 8S 2C 9C TC 5H 9H 7S"
    table = scripted(Rules(max_split_hands=4), cards, 10, bankroll=1000)
    seat = table.seats[0]
    assert P in table.legal_actions()
    table.act(P)  # hands [8S 8H] [8C]
    assert [str(c) for c in seat.hands[0].cards] == ["8S", "8H"]
    assert len(seat.hands[1].cards) == 1  # its second card waits for play to reach it
    assert P in table.legal_actions()
    table.act(P)  # hands [8S 8D] [8H] [8C]
    assert P in table.legal_actions()
    table.act(P)  # hands [8S 8S] [8D] [8H] [8C]: four hands, the limit
    assert len(seat.hands) == 4
    assert seat.hands[0].is_pair()
    assert table.legal_actions() == (S, H, D)  # no fourth split
    assert seat.bankroll == 1000 - 10 - 3 * 10  # bet + three split bets = 960
    table.act(S)  # hand 0: 8 + 8 = 16
    assert table.to_act == (0, 1)
    table.act(D)  # hand 1: 8 + 2 = 10, doubles, gets 9C -> 19, bet 20
    table.act(S)  # hand 2: 8 + TC = 18
    table.act(H)  # hand 3: 8 + 5 = 13, hits 9H -> 22, bust
    # dealer 16 draws 7S -> 23, bust
    assert table.phase is Phase.SETTLED
    assert [[str(c) for c in h.cards] for h in seat.hands] == [
        ["8S", "8S"],
        ["8D", "2C", "9C"],
        ["8H", "TC"],
        ["8C", "5H", "9H"],
    ]
    assert outcomes(table) == [
        (Outcome.WIN, 10),
        (Outcome.WIN, 20),
        (Outcome.WIN, 10),
        (Outcome.BUST, -10),
    ]
    # 10 + 20 + 10 - 10 = +30; bankroll 960 - 10 (double) + 20 + 40 + 20 + 0 = 1030
    assert seat.net == 30
    assert seat.bankroll == 1030
    assert table.house == -30


def test_split_limit_two_hands() -> None:
    # max_split_hands=2: after one split, 8S 8H is a pair that may not be split again
    table = scripted(Rules(max_split_hands=2), "8S 6D 8C TD 8H", 10)
    table.act(P)
    assert table.seats[0].hands[0].is_pair()
    assert P not in table.legal_actions()


def test_no_splitting_with_one_hand_max() -> None:
    table = scripted(Rules(max_split_hands=1), "8S 6D 8C TD", 10)
    assert table.legal_actions() == (S, H, D)


def test_split_aces_get_one_card_and_21_is_not_blackjack() -> None:
    # player AS AC vs dealer 7D + TD (17). Split: hand 0 gets KH (21), hand 1 gets AD (soft
    # 12; a pair, but aces may not be resplit). Both finish at once: no decision is asked.
    table = scripted(Rules(), "AS 7D AC TD KH AD", 10, bankroll=100)
    table.act(P)
    assert table.phase is Phase.SETTLED
    seat = table.seats[0]
    assert [len(h.cards) for h in seat.hands] == [2, 2]
    assert not seat.hands[0].is_blackjack and seat.hands[0].total == 21
    # 21 beats 17 at 1:1 (+10, not 3:2); soft 12 loses to 17 (-10)
    assert outcomes(table) == [(Outcome.WIN, 10), (Outcome.LOSS, -10)]
    assert seat.bankroll == 100


def test_blackjack_after_split_when_the_rules_say_so() -> None:
    # same cards; with blackjack_after_split the A-K hand is a natural paid 3:2 (+15)
    table = scripted(Rules(blackjack_after_split=True), "AS 7D AC TD KH AD", 10)
    table.act(P)
    assert table.seats[0].hands[0].is_blackjack
    assert outcomes(table) == [(Outcome.BLACKJACK, 15), (Outcome.LOSS, -10)]


def test_split_tens_21_is_not_blackjack() -> None:
    # KS KH vs dealer 9D + 8H (17). Split: hand 0 gets AC (21 on a split hand: an ordinary
    # 21, which stands by itself), hand 1 gets 9C -> 19, stands.
    table = scripted(Rules(), "KS 9D KH 8H AC 9C", 10)
    table.act(P)
    assert table.to_act == (0, 1)  # hand 0 (21) needed no decision
    table.act(S)
    # 21 vs 17: +10 (not +15); 19 vs 17: +10
    assert outcomes(table) == [(Outcome.WIN, 10), (Outcome.WIN, 10)]


def test_hit_split_aces() -> None:
    # AS AC vs dealer 7D + TD (17), hit_split_aces: hand 0 gets 5C (soft 16), hits 2C (soft
    # 18), stands; hand 1 gets 9H (soft 20), stands.
    table = scripted(Rules(hit_split_aces=True), "AS 7D AC TD 5C 2C 9H", 10)
    table.act(P)
    assert H in table.legal_actions()
    play(table, H, S, S)
    # 18 vs 17 and 20 vs 17: +10 each
    assert outcomes(table) == [(Outcome.WIN, 10), (Outcome.WIN, 10)]


def test_split_aces_cannot_be_hit_by_default() -> None:
    # AS AC vs dealer 7D + TD; hand 0 gets 2C (soft 13) and is finished without a decision
    table = scripted(Rules(hit_split_aces=False), "AS 7D AC TD 2C 3C", 10)
    table.act(P)
    assert table.phase is Phase.SETTLED
    # soft 13 and soft 14 both lose to 17
    assert outcomes(table) == [(Outcome.LOSS, -10), (Outcome.LOSS, -10)]


def test_resplit_aces() -> None:
    # resplit_aces: AS AC split, hand 0 gets AH -> may only stand or split again
    table = scripted(Rules(resplit_aces=True), "AS 7D AC TD AH 9C TH 5S", 10)
    table.act(P)
    assert table.legal_actions() == (S, P)
    table.act(P)  # hands [AS 9C] [AH TH] [AC 5S], each finished with its one card
    assert table.phase is Phase.SETTLED
    # soft 20 and 21 beat 17 (+10 each), soft 16 loses (-10)
    assert outcomes(table) == [(Outcome.WIN, 10), (Outcome.WIN, 10), (Outcome.LOSS, -10)]


def test_split_by_value() -> None:
    # KS QH is a pair only by value; dealer 6D + TD (16) draws 6C -> 22
    cards = "KS 6D QH TD 9C TC 6C"
    assert P not in scripted(Rules(), cards, 10).legal_actions()
    table = scripted(Rules(split_by="value"), cards, 10)
    assert P in table.legal_actions()
    play(table, P, S, S)  # hands K+9 = 19, Q+T = 20
    assert outcomes(table) == [(Outcome.WIN, 10), (Outcome.WIN, 10)]


def test_split_needs_bankroll_for_the_second_bet() -> None:
    cards = "8S 6D 8C TD"
    assert P not in scripted(Rules(), cards, 10, bankroll=19).legal_actions()  # 9 left < 10
    assert P in scripted(Rules(), cards, 10, bankroll=20).legal_actions()  # 10 left


# -------------------------------------------------------------------- double
def test_double_doubles_the_bet_and_takes_one_card() -> None:
    # 6S 5C = 11 vs dealer 5D + TD (15); double gets 9H -> 20; dealer draws TS -> 25
    table = scripted(Rules(), "6S 5D 5C TD 9H TS", 10, bankroll=100)
    table.act(D)
    hand = table.seats[0].hands[0]
    assert hand.doubled and hand.bet == 20 and len(hand.cards) == 3
    assert table.phase is Phase.SETTLED  # one card only, no further decision
    # 20 x 1:1 = +20; bankroll 100 - 10 - 10 + 40 = 120
    assert outcomes(table) == [(Outcome.WIN, 20)]
    assert table.seats[0].bankroll == 120


def test_double_lost_and_bust() -> None:
    # 6S 5C = 11 doubles, gets 2H -> 13; dealer 5D + TD = 15 draws 4S -> 19: loses 20
    table = scripted(Rules(), "6S 5D 5C TD 2H 4S", 10)
    table.act(D)
    assert outcomes(table) == [(Outcome.LOSS, -20)]
    # 6S 6C = 12 doubles, gets TH -> 22: bust, loses 20
    table = scripted(Rules(), "6S 5D 6C TD TH", 10)
    table.act(D)
    assert outcomes(table) == [(Outcome.BUST, -20)]


def test_double_needs_two_cards_and_bankroll() -> None:
    table = scripted(Rules(), "4S 5D 3C TD 4H", 10)
    table.act(H)  # 4 + 3 + 4 = 11 on three cards
    assert D not in table.legal_actions()
    assert D not in scripted(Rules(), "6S 5D 5C TD", 10, bankroll=19).legal_actions()
    assert D in scripted(Rules(), "6S 5D 5C TD", 10, bankroll=20).legal_actions()


@pytest.mark.parametrize("das", [True, False])
def test_double_after_split(das: bool) -> None:
    # 8S 8C vs dealer 6D + TD; split: hand 0 gets 3C -> 11
    table = scripted(Rules(double_after_split=das), "8S 6D 8C TD 3C", 10)
    table.act(P)
    assert (D in table.legal_actions()) is das


@pytest.mark.parametrize(
    ("cards", "rule", "allowed"),
    [
        ("5S 4D", "9-11", True),  # hard 9
        ("5S 4D", "10-11", False),
        ("6S 4D", "9-11", True),  # hard 10
        ("6S 4D", "10-11", True),
        ("6S 5D", "10-11", True),  # hard 11
        ("7S 5D", "9-11", False),  # hard 12
        ("4S 4D", "9-11", False),  # hard 8
        ("AS 8D", "9-11", False),  # soft 19 (its hard count is 9)
        ("AS 8D", "any", True),
        ("AS 9D", "10-11", False),  # soft 20 (hard count 10)
        ("AS AD", "10-11", False),  # soft 12 (hard count 2)
        ("TS 9D", "any", True),
        ("6S 5D", "never", False),
    ],
)
def test_double_restrictions(cards: str, rule: str, allowed: bool) -> None:
    first, second = cards.split()
    # dealer 6C up (no peek), 7H in the hole
    table = scripted(Rules(double=rule), f"{first} 6C {second} 7H", 10)
    assert (D in table.legal_actions()) is allowed


def test_double_after_split_respects_the_total_restriction() -> None:
    # 9-11 with DAS: split 8s, hand 0 gets AC -> soft 19 (hard 9): no double;
    # hand 1 gets 3C -> hard 11: double
    table = scripted(Rules(double="9-11"), "8S 6D 8C TD AC 3C", 10)
    table.act(P)
    assert D not in table.legal_actions()
    table.act(S)
    assert D in table.legal_actions()


# ----------------------------------------- split by value with custom card values
# J counts 1 here, the ace's value, so A-J is a pair by value. Only the hand that holds
# the ace is a split-ace hand (one card, no hit), whichever order the two cards came in.
J_IS_ONE = dict(split_by="value", card_values={"J": 1})


@pytest.mark.parametrize(("first", "second"), [("AS", "JD"), ("JS", "AD")])
def test_value_pair_of_ace_and_one_valued_card(first: str, second: str) -> None:
    # player first + second vs dealer 6D + TD (16); the split hands get 5C and 5H
    table = scripted(Rules(**J_IS_ONE), f"{first} 6D {second} TD 5C 5H 9C 4S", 10)
    assert P in table.legal_actions()
    table.act(P)
    seat = table.seats[0]
    ace_hand = 0 if first == "AS" else 1
    jack_hand = 1 - ace_hand
    assert seat.hands[ace_hand].split_aces
    assert not seat.hands[jack_hand].split_aces
    # the jack hand (1 + 5 = 6) is played; the ace hand (soft 16) got its one card
    assert table.to_act == (0, jack_hand)
    assert H in table.legal_actions()
    table.act(H)  # J + 5 + 9C = 1 + 5 + 9 = 15
    table.act(S)
    assert table.phase is Phase.SETTLED
    assert [len(h.cards) for h in seat.hands][ace_hand] == 2
