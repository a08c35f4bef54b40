"""Scripted rounds: surrender, insurance / even money, the peek, no-hole-card rules,
H17 vs S17, tie modes and blackjack payouts.

Deal order with one seat: player card 1, dealer upcard, player card 2, dealer hole card
(none under ``hole_card="none"``: the dealer's second card is drawn after the players act),
then every further card in draw order.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from blackjack_env.engine import Action, EventKind, Outcome, Phase, Rules

from .helpers import events_of, outcomes, play, scripted

S, H, D, P, R = Action.STAND, Action.HIT, Action.DOUBLE, Action.SPLIT, Action.SURRENDER
INSURE, DECLINE = Action.INSURE, Action.DECLINE

NO_PEEK = dict(hole_card="no-peek", insurance=False)
NO_HOLE = dict(hole_card="none", insurance=False)


# ----------------------------------------------------------------- surrender
def test_late_surrender_after_the_peek() -> None:
    # TS 6C (16) vs dealer TD + 7H: the peek finds no blackjack, then surrender: -10/2 = -5
    table = scripted(Rules(surrender="late"), "TS TD 6C 7H", 10, bankroll=100)
    assert table.phase is Phase.PLAYER_TURNS
    assert [e.kind for e in table.events].count(EventKind.PEEK) == 1
    assert R in table.legal_actions()
    table.act(R)
    assert table.phase is Phase.SETTLED
    assert outcomes(table) == [(Outcome.SURRENDER, -5)]
    assert table.seats[0].bankroll == 95
    assert events_of(table, EventKind.DEALER_DRAW) == []  # nothing left to play for


def test_late_surrender_never_offered_against_a_peeked_blackjack() -> None:
    # TS 6C vs dealer TD + AH: the peek ends the round, the player loses the bet (-10)
    table = scripted(Rules(surrender="late"), "TS TD 6C AH", 10)
    assert table.phase is Phase.SETTLED
    assert outcomes(table) == [(Outcome.LOSS, -10)]


def test_late_surrender_only_on_the_first_two_cards() -> None:
    table = scripted(Rules(surrender="late"), "4S 6D 3C TD 2H", 10)
    table.act(H)  # 4 + 3 + 2 = 9 on three cards
    assert R not in table.legal_actions()
    # and not after a split
    table = scripted(Rules(surrender="late"), "8S 6D 8C TD 3H", 10)
    table.act(P)
    assert R not in table.legal_actions()


@pytest.mark.parametrize(
    ("hole", "cards", "outcome", "net"),
    [
        # no peek: the hole card is dealt but only turned after the surrender
        ("no-peek", "TS TD 6C AH", Outcome.LOSS, -10),  # dealer blackjack takes it all
        ("no-peek", "TS TD 6C 7H", Outcome.SURRENDER, -5),
        # no hole card: the dealer's second card is drawn after the players
        ("none", "TS TD 6C AH", Outcome.LOSS, -10),
        ("none", "TS TD 6C 7H", Outcome.SURRENDER, -5),
    ],
)
def test_late_surrender_without_peek(
    hole: str, cards: str, outcome: Outcome, net: int
) -> None:
    table = scripted(Rules(surrender="late", hole_card=hole, insurance=False), cards, 10)
    assert table.phase is Phase.PLAYER_TURNS
    table.act(R)
    assert table.phase is Phase.SETTLED
    assert outcomes(table) == [(outcome, net)]


def test_early_surrender_against_an_ace_with_blackjack() -> None:
    # TS 6C vs dealer AD + KH (blackjack). Early surrender is decided before the peek:
    # half the bet back (-5) instead of losing 10.
    table = scripted(Rules(surrender="early"), "TS AD 6C KH", 10, bankroll=100)
    assert table.phase is Phase.INSURANCE
    assert table.legal_actions() == (R, INSURE, DECLINE)
    table.act(R)
    assert table.phase is Phase.SETTLED
    assert outcomes(table) == [(Outcome.SURRENDER, -5)]
    assert table.seats[0].bankroll == 95
    kinds = [e.kind for e in table.events]
    assert kinds.index(EventKind.SETTLE) < kinds.index(EventKind.PEEK)  # before the peek


def test_early_surrender_against_a_ten() -> None:
    # TS 6C vs dealer KD + AH: no insurance against a ten, but early surrender: -5
    table = scripted(Rules(surrender="early"), "TS KD 6C AH", 10)
    assert table.phase is Phase.INSURANCE
    assert table.legal_actions() == (R, DECLINE)
    table.act(R)
    assert outcomes(table) == [(Outcome.SURRENDER, -5)]


def test_early_surrender_declined_is_not_offered_again_after_the_peek() -> None:
    # TS 6C vs dealer KD + 7H: decline, no blackjack, play on without a surrender option
    table = scripted(Rules(surrender="early"), "TS KD 6C 7H", 10)
    table.act(DECLINE)
    assert table.phase is Phase.PLAYER_TURNS
    assert R not in table.legal_actions()


def test_early_surrender_against_a_small_card_is_a_playing_action() -> None:
    # upcard 6: no peek is possible, surrender is offered with the other actions: -5
    table = scripted(Rules(surrender="early"), "TS 6D 6C TH", 10)
    assert table.phase is Phase.PLAYER_TURNS
    assert R in table.legal_actions()
    table.act(R)
    assert outcomes(table) == [(Outcome.SURRENDER, -5)]


def test_surrender_odd_bet_is_an_exact_fraction() -> None:
    # bet 5 surrendered: -5/2
    table = scripted(Rules(surrender="late"), "TS 6D 6C TH", 5, bankroll=100)
    table.act(R)
    [(outcome, net)] = outcomes(table)
    assert outcome is Outcome.SURRENDER and net == Fraction(-5, 2)
    assert isinstance(net, Fraction)
    assert table.seats[0].bankroll == Fraction(195, 2)  # 100 - 5 + 5/2


def test_no_surrender_when_the_rules_have_none() -> None:
    table = scripted(Rules(), "TS 6D 6C TH", 10)
    assert R not in table.legal_actions()


# ----------------------------------------------------------------- insurance
def test_insurance_pays_two_to_one() -> None:
    # TS 9C (19) vs dealer AD + KH. Insurance stake 10/2 = 5 returns 5 + 2 x 5 = 15; the
    # 19 loses 10 to the blackjack. Net 0; bankroll 100 - 10 - 5 + 15 = 100.
    table = scripted(Rules(), "TS AD 9C KH", 10, bankroll=100)
    assert table.phase is Phase.INSURANCE
    assert table.legal_actions() == (INSURE, DECLINE)
    table.act(INSURE)
    assert table.phase is Phase.SETTLED
    seat = table.seats[0]
    assert seat.insurance == 5
    [settled] = events_of(table, EventKind.INSURANCE_SETTLED)
    assert settled.amount == 15
    assert outcomes(table) == [(Outcome.LOSS, -10)]
    assert seat.net == 0
    assert seat.bankroll == 100
    assert table.house == 0


def test_insurance_lost_without_blackjack() -> None:
    # TS 9C (19) vs dealer AD + 7H (18): insurance 5 is lost, the 19 wins 10. Net +5.
    table = scripted(Rules(), "TS AD 9C 7H", 10, bankroll=100)
    table.act(INSURE)
    assert table.phase is Phase.PLAYER_TURNS
    [settled] = events_of(table, EventKind.INSURANCE_SETTLED)
    assert settled.amount == 0
    table.act(S)
    assert outcomes(table) == [(Outcome.WIN, 10)]
    assert table.seats[0].net == 5
    assert table.seats[0].bankroll == 105
    assert table.house == -5


def test_insurance_on_an_odd_bet_is_exact() -> None:
    # bet 5: insurance 5/2 returns 3 x 5/2 = 15/2 (net +5); the 19 loses 5. Net 0.
    table = scripted(Rules(), "TS AD 9C KH", 5, bankroll=50)
    table.act(INSURE)
    seat = table.seats[0]
    assert seat.insurance == Fraction(5, 2)
    assert seat.net == 0 and seat.bankroll == 50


def test_no_insurance_against_a_ten_or_when_not_offered() -> None:
    # ten up: the peek happens at once, no insurance phase
    assert scripted(Rules(), "TS KD 9C 7H", 10).phase is Phase.PLAYER_TURNS
    # ace up but insurance=False (browser-game style)
    assert scripted(Rules(insurance=False), "TS AD 9C 7H", 10).phase is Phase.PLAYER_TURNS


def test_insurance_not_offered_without_bankroll() -> None:
    # bankroll 14, bet 10: 4 left < 5 needed, and nothing else to decide: no insurance phase
    assert scripted(Rules(), "TS AD 9C 7H", 10, bankroll=14).phase is Phase.PLAYER_TURNS
    assert scripted(Rules(), "TS AD 9C 7H", 10, bankroll=15).phase is Phase.INSURANCE


@pytest.mark.parametrize(
    ("hole", "decision", "outcome", "net"),
    [
        ("KH", INSURE, Outcome.EVEN_MONEY, 10),  # even money: +10 whatever the dealer has
        ("9H", INSURE, Outcome.EVEN_MONEY, 10),
        ("KH", DECLINE, Outcome.PUSH, 0),  # natural vs natural
        ("9H", DECLINE, Outcome.BLACKJACK, 15),  # 3:2 on 10
    ],
)
def test_even_money(hole: str, decision: Action, outcome: Outcome, net: int) -> None:
    table = scripted(Rules(), f"AS AD KC {hole}", 10, bankroll=100)
    assert table.phase is Phase.INSURANCE
    assert table.legal_actions() == (INSURE, DECLINE)
    table.act(decision)
    assert table.phase is Phase.SETTLED
    assert outcomes(table) == [(outcome, net)]
    assert table.seats[0].bankroll == 100 + net
    assert table.seats[0].insurance == 0  # even money stakes nothing


def test_even_money_offered_even_with_an_empty_bankroll() -> None:
    table = scripted(Rules(), "AS AD KC 9H", 10, bankroll=10)
    assert table.legal_actions() == (INSURE, DECLINE)


# ----------------------------------------------------------------------- peek
def test_peek_with_dealer_blackjack_takes_only_the_original_bet() -> None:
    # 6S 5C = 11 (a doubling hand) vs dealer TD + AH: the round ends at the peek, -10 only
    table = scripted(Rules(), "6S TD 5C AH", 10, bankroll=100)
    assert table.phase is Phase.SETTLED
    assert table.to_act is None
    assert outcomes(table) == [(Outcome.LOSS, -10)]
    assert table.seats[0].bankroll == 90
    assert not table.seats[0].hands[0].doubled
    kinds = [e.kind for e in table.events]
    assert EventKind.ACTION not in kinds
    assert kinds[-3:] == [EventKind.PEEK, EventKind.REVEAL, EventKind.SETTLE]


def test_peek_with_a_pair_and_dealer_blackjack() -> None:
    # 8S 8C vs dealer AD + KH after declining insurance: no split happens, -10
    table = scripted(Rules(), "8S AD 8C KH", 10)
    table.act(DECLINE)
    assert table.phase is Phase.SETTLED
    assert len(table.seats[0].hands) == 1
    assert outcomes(table) == [(Outcome.LOSS, -10)]


def test_peek_blackjack_against_blackjack_pushes() -> None:
    table = scripted(Rules(), "AS TD KC AH", 10)
    assert table.phase is Phase.SETTLED
    assert outcomes(table) == [(Outcome.PUSH, 0)]


def test_no_peek_under_a_small_upcard() -> None:
    table = scripted(Rules(), "TS 6D 9C TH", 10)
    assert EventKind.PEEK not in [e.kind for e in table.events]


# ----------------------------------------------------------------- no hole card
def test_no_hole_card_double_lost_in_full() -> None:
    # European: 6S 5C = 11 vs dealer TD; double gets 9C -> 20 (bet 20); the dealer's second
    # card AH makes blackjack: -20.
    table = scripted(Rules(**NO_HOLE), "6S TD 5C 9C AH", 10)
    assert len(table.dealer.cards) == 1
    assert EventKind.HOLE_CARD not in [e.kind for e in table.events]
    table.act(D)
    assert table.dealer.is_blackjack
    assert outcomes(table) == [(Outcome.LOSS, -20)]


def test_no_hole_card_splits_lost_in_full() -> None:
    # 8S 8C vs dealer AD. Split; hand 0 gets 3C (11), doubles, gets TC -> 21 (bet 20);
    # hand 1 gets 9D -> 17, stands. Dealer's second card KH: blackjack. -20 - 10 = -30.
    table = scripted(Rules(**NO_HOLE), "8S AD 8C 3C TC 9D KH", 10, bankroll=100)
    assert table.phase is Phase.PLAYER_TURNS  # no insurance, no peek
    play(table, P, D, S)
    assert outcomes(table) == [(Outcome.LOSS, -20), (Outcome.LOSS, -10)]
    assert table.seats[0].bankroll == 70


def test_no_peek_hole_card_double_lost_in_full() -> None:
    # no-peek: the hole card AH is dealt in the usual order but checked only at the end
    table = scripted(Rules(**NO_PEEK), "6S TD 5C AH 9C", 10)
    assert len(table.dealer.cards) == 2
    table.act(D)
    assert outcomes(table) == [(Outcome.LOSS, -20)]


def test_no_hole_card_natural_pushes_a_dealer_natural() -> None:
    # AS KC vs dealer AD, second card TH: natural against natural pushes
    table = scripted(Rules(**NO_HOLE), "AS AD KC TH", 10)
    assert table.phase is Phase.SETTLED
    assert outcomes(table) == [(Outcome.PUSH, 0)]


# ---------------------------------------------------------------- H17 vs S17
@pytest.mark.parametrize(
    ("h17", "outcome", "net", "dealer_total"),
    [
        (False, Outcome.WIN, 10, 17),  # S17: the dealer stands on soft 17; 19 beats it
        (True, Outcome.LOSS, -10, 20),  # H17: soft 17 hits 3S -> 20, beats 19
    ],
)
def test_soft_17(h17: bool, outcome: Outcome, net: int, dealer_total: int) -> None:
    # TS 9C (19) vs dealer 6D + AH (soft 17), next card 3S
    table = scripted(Rules(dealer_hits_soft_17=h17), "TS 6D 9C AH 3S", 10)
    table.act(S)
    assert table.dealer.total == dealer_total
    assert outcomes(table) == [(outcome, net)]


def test_h17_multi_card_soft_17_and_hard_17() -> None:
    # dealer 2D + 4H = 6, draws AS -> soft 17, H17 hits 2C -> soft 19
    table = scripted(Rules(dealer_hits_soft_17=True), "TS 2D 9C 4H AS 2C", 10)
    table.act(S)
    assert table.dealer.total == 19 and len(table.dealer.cards) == 4
    assert outcomes(table) == [(Outcome.PUSH, 0)]  # 19 vs 19
    # hard 17 (TD 7H) stands under H17: 19 beats it
    table = scripted(Rules(dealer_hits_soft_17=True), "TS TD 9C 7H 2C", 10)
    table.act(S)
    assert len(table.dealer.cards) == 2
    assert outcomes(table) == [(Outcome.WIN, 10)]


def test_dealer_soft_18_stands_under_h17() -> None:
    table = scripted(Rules(dealer_hits_soft_17=True), "TS 7D 9C AH 2C", 10)
    table.act(S)
    assert table.dealer.total == 18 and len(table.dealer.cards) == 2
    assert outcomes(table) == [(Outcome.WIN, 10)]


# ---------------------------------------------------------------------- ties
@pytest.mark.parametrize(
    ("ties", "net"),
    [("push", 0), ("dealer-wins", -10), ("player-loses", -10)],
)
def test_equal_totals(ties: str, net: int) -> None:
    # TS 8C (18) vs dealer 9D + 9H (18)
    table = scripted(Rules(ties=ties), "TS 9D 8C 9H", 10)
    table.act(S)
    assert outcomes(table)[0][1] == net


@pytest.mark.parametrize(
    ("ties", "outcome", "net"),
    [
        ("push", Outcome.PUSH, 0),
        ("dealer-wins", Outcome.LOSS, -10),  # the house wins every tie, naturals included
        ("player-loses", Outcome.PUSH, 0),  # equal totals lose, but natural vs natural pushes
    ],
)
@pytest.mark.parametrize("hole", ["peek", "no-peek"])
def test_natural_against_natural(ties: str, outcome: Outcome, net: int, hole: str) -> None:
    # AS KC vs dealer TD + AH
    rules = Rules(ties=ties, hole_card=hole, insurance=hole == "peek")
    table = scripted(rules, "AS TD KC AH", 10)
    assert table.phase is Phase.SETTLED
    assert outcomes(table) == [(outcome, net)]


def test_natural_beats_a_three_card_21() -> None:
    # AS KC vs dealer 6D + 5H = 11 drawing TC -> 21 on three cards. No peek, so the
    # natural is settled after the dealer has drawn: 3:2 on 10 = +15.
    table = scripted(Rules(**NO_PEEK), "AS 6D KC 5H TC", 10)
    assert table.phase is Phase.SETTLED
    assert table.dealer.total == 21 and len(table.dealer.cards) == 3
    assert outcomes(table) == [(Outcome.BLACKJACK, 15)]
    # with natural_beats_21=False the natural only ties a dealer 21
    table = scripted(Rules(natural_beats_21=False, **NO_PEEK), "AS 6D KC 5H TC", 10)
    assert outcomes(table) == [(Outcome.PUSH, 0)]


def test_dealer_natural_beats_a_three_card_21_unless_told_otherwise() -> None:
    # no-peek: 5S 6C, hits TC -> 21 on three cards; dealer TD + AH
    table = scripted(Rules(**NO_PEEK), "5S TD 6C AH TC", 10)
    table.act(H)
    assert outcomes(table) == [(Outcome.LOSS, -10)]
    table = scripted(Rules(dealer_natural_beats_21=False, **NO_PEEK), "5S TD 6C AH TC", 10)
    table.act(H)
    assert outcomes(table) == [(Outcome.PUSH, 0)]


# ---------------------------------------------------------- blackjack payouts
@pytest.mark.parametrize(
    ("payout", "bet", "net"),
    [
        ("3:2", 10, 15),  # 10 x 3/2
        ("3:2", 5, Fraction(15, 2)),  # 5 x 3/2 = 7.5
        ("3:2", 1, Fraction(3, 2)),
        ("6:5", 10, 12),  # 10 x 6/5
        ("6:5", 5, 6),  # 5 x 6/5
        ("6:5", 7, Fraction(42, 5)),  # 7 x 6/5 = 8.4
        ("1:1", 7, 7),
        ("2:1", 3, 6),
        (Fraction(7, 5), 3, Fraction(21, 5)),
    ],
)
def test_blackjack_payouts(payout: object, bet: int, net: Fraction | int) -> None:
    # AS KC vs dealer 9D + 7H: upcard 9, no peek needed; the natural is paid at once
    table = scripted(Rules(blackjack_payout=payout), "AS 9D KC 7H", bet, bankroll=100)
    assert table.phase is Phase.SETTLED
    [(outcome, got)] = outcomes(table)
    assert outcome is Outcome.BLACKJACK
    assert got == net
    assert type(got) is type(net)  # whole amounts stay int, others are exact Fractions
    assert table.seats[0].bankroll == 100 + net
    assert table.house == -net


def test_six_to_five_preset_on_an_odd_bet() -> None:
    # single-deck-6to5: bet 15 -> 15 x 6/5 = 18; bet 3 -> 18/5
    table = scripted("single-deck-6to5", "AS 9D KC 7H", 15)
    assert outcomes(table) == [(Outcome.BLACKJACK, 18)]
    table = scripted("single-deck-6to5", "AS 9D KC 7H", 3)
    assert outcomes(table) == [(Outcome.BLACKJACK, Fraction(18, 5))]


def test_peek_game_pays_a_natural_before_the_dealer_draws() -> None:
    # peek rules, upcard 6: no dealer blackjack is possible, so the natural is paid at the
    # deal (+15) and the dealer, with nothing left to play for, draws nothing
    table = scripted(Rules(), "AS 6D KC 5H TC", 10)
    assert table.phase is Phase.SETTLED
    assert outcomes(table) == [(Outcome.BLACKJACK, 15)]
    assert len(table.dealer.cards) == 2


def test_no_peek_for_a_one_valued_non_ace_upcard() -> None:
    # With J counting 1, a jack up cannot make a blackjack (that needs an ace and a
    # ten-value card): no peek, no pre-peek early-surrender phase; surrender is a playing
    # action. TS 6C (16) vs dealer JD + 7H (1 + 7 = 8).
    rules = Rules(card_values={"J": 1}, surrender="early")
    table = scripted(rules, "TS JD 6C 7H", 10)
    assert table.phase is Phase.PLAYER_TURNS
    assert EventKind.PEEK not in [e.kind for e in table.events]
    assert R in table.legal_actions()
    # the ace still is an ace: insurance / early surrender before the peek
    table = scripted(rules, "TS AD 6C 7H", 10)
    assert table.phase is Phase.INSURANCE


def test_early_surrender_without_a_hole_card_returns_half_even_against_blackjack() -> None:
    # no hole card: TS 6C vs dealer TD; surrender (early: half back whatever the dealer
    # holds) -5; the dealer's second card AH would have been blackjack
    table = scripted(Rules(surrender="early", **NO_HOLE), "TS TD 6C AH", 10)
    assert table.phase is Phase.PLAYER_TURNS
    table.act(R)
    assert outcomes(table) == [(Outcome.SURRENDER, -5)]


@pytest.mark.parametrize(
    ("draw", "outcome", "net"),
    [
        ("TC", Outcome.PUSH, 0),  # dealer 6 + 5 + 10 = 21 on three cards: a tie
        ("9C", Outcome.BLACKJACK, 15),  # dealer 20: the natural wins 3:2 on 10
    ],
)
def test_peek_game_natural_waits_for_the_dealer_when_it_only_ties_a_21(
    draw: str, outcome: Outcome, net: int
) -> None:
    # natural_beats_21=False under the peek: with a 6 up there is no dealer blackjack, but
    # the dealer may still make 21 with more cards, which the natural only ties
    table = scripted(Rules(natural_beats_21=False), f"AS 6D KC 5H {draw}", 10)
    assert table.phase is Phase.SETTLED
    assert len(table.dealer.cards) == 3
    assert outcomes(table) == [(outcome, net)]


def test_peek_game_natural_waits_under_a_tie_losing_rule_too() -> None:
    # natural_beats_21=False and ties lose: natural vs dealer 21 of three cards loses
    rules = Rules(natural_beats_21=False, ties="dealer-wins")
    table = scripted(rules, "AS 6D KC 5H TC", 10)
    assert outcomes(table) == [(Outcome.LOSS, -10)]
