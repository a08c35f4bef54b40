"""Scripted rounds: several seats, bankrolls and limits, errors that change nothing,
the event record, bet raising, halved split bets and highest-hand settlement.

Deal order: first card to each betting seat in seat order, dealer upcard, second card to
each betting seat, dealer hole card, then every further card in draw order.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from blackjack_env.engine import (
    Action,
    Event,
    EventKind,
    IllegalActionError,
    Outcome,
    Phase,
    PhaseError,
    Rules,
    Table,
    parse_card,
    preset,
)

from .helpers import outcomes, play, scripted, snapshot

S, H, D, P, R = Action.STAND, Action.HIT, Action.DOUBLE, Action.SPLIT, Action.SURRENDER
INSURE, DECLINE = Action.INSURE, Action.DECLINE


def c(text: str):
    return parse_card(text)


# ---------------------------------------------------------------- multi-seat
def test_three_seats_deal_and_play_in_seat_order() -> None:
    # seat 0: TS 6S = 16, seat 1: 5C 5D = 10, seat 2: 9H 8C = 17; dealer 6D + TH = 16.
    # seat 0 hits 2C -> 18, stands; seat 1 doubles, gets 9C -> 19; seat 2 stands;
    # dealer 16 draws 7S -> 23.
    rules = Rules(seats=3)
    table = scripted(rules, "TS 5C 9H 6D 6S 5D 8C TH 2C 9C 7S", {0: 10, 1: 20, 2: 30})
    deal_seats = [
        (e.kind, e.seat) for e in table.events if e.kind in (EventKind.DEAL, EventKind.UPCARD)
    ]
    assert deal_seats == [
        (EventKind.DEAL, 0),
        (EventKind.DEAL, 1),
        (EventKind.DEAL, 2),
        (EventKind.UPCARD, None),
        (EventKind.DEAL, 0),
        (EventKind.DEAL, 1),
        (EventKind.DEAL, 2),
    ]
    order = []
    for action in (H, S, D, S):
        order.append(table.to_act)
        table.act(action)
    assert order == [(0, 0), (0, 0), (1, 0), (2, 0)]
    assert table.phase is Phase.SETTLED
    # all win at 1:1 against the bust: +10, +40 (doubled 20), +30
    assert outcomes(table, 0) == [(Outcome.WIN, 10)]
    assert outcomes(table, 1) == [(Outcome.WIN, 40)]
    assert outcomes(table, 2) == [(Outcome.WIN, 30)]
    assert table.house == -80


def test_seat_without_a_bet_sits_out() -> None:
    # seats 0 and 2 bet: seat 0 TS 9S (19), seat 2 8H 8C (16); dealer 7D + TD (17)
    table = scripted(Rules(seats=3), "TS 8H 7D 9S 8C TD", {0: 10, 2: 10})
    assert table.seats[1].hands == []
    assert table.to_act == (0, 0)
    table.act(S)
    assert table.to_act == (2, 0)
    table.act(S)
    # 19 beats 17 (+10); 16 loses (-10)
    assert outcomes(table, 0) == [(Outcome.WIN, 10)]
    assert outcomes(table, 2) == [(Outcome.LOSS, -10)]
    assert table.seats[1].results == []


def test_split_hands_played_left_to_right_before_the_next_seat() -> None:
    # seat 0: 8S 8C, seat 1: TS 9S; dealer 6D + TD (16). Seat 0 splits: hand 0 gets 2C,
    # hand 1 gets 3C; then seat 1.
    table = scripted(Rules(seats=2), "8S TS 6D 8C 9S TD 2C 3C 5S", {0: 10, 1: 10})
    seen = []
    for action in (P, S, S, S):
        seen.append(table.to_act)
        table.act(action)
    assert seen == [(0, 0), (0, 0), (0, 1), (1, 0)]
    # dealer 16 draws 5S -> 21: 10, 11 and 19 all lose
    assert outcomes(table, 0) == [(Outcome.LOSS, -10), (Outcome.LOSS, -10)]
    assert outcomes(table, 1) == [(Outcome.LOSS, -10)]


def test_insurance_asked_seat_by_seat() -> None:
    # seat 0: TS 9C, seat 1: AS KC (natural); dealer AD + 7H. Seat 0 insures (5), seat 1
    # takes even money (+10). No dealer blackjack: insurance lost, seat 0 stands 19 vs 18.
    table = scripted(Rules(seats=2), "TS AS AD 9C KC 7H", {0: 10, 1: 10})
    assert table.to_act == (0, 0)
    table.act(INSURE)
    assert table.to_act == (1, 0)
    assert table.legal_actions() == (INSURE, DECLINE)
    table.act(INSURE)
    assert table.phase is Phase.PLAYER_TURNS and table.to_act == (0, 0)
    table.act(S)
    assert outcomes(table, 0) == [(Outcome.WIN, 10)]
    assert outcomes(table, 1) == [(Outcome.EVEN_MONEY, 10)]
    assert table.seats[0].net == 5  # +10 - 5 insurance
    assert table.house == -15


# ---------------------------------------------------------- bankroll / limits
def test_bet_above_bankroll_refused_and_nothing_changes() -> None:
    table = Table(Rules(), seed=0, bankroll=50)
    before = snapshot(table)
    with pytest.raises(IllegalActionError, match="cannot bet 60: its bankroll is 50"):
        table.bet(0, 60)
    assert snapshot(table) == before
    table.bet(0, 50)
    assert table.seats[0].bankroll == 0


@pytest.mark.parametrize("amount", [4, 101])
def test_bet_outside_limits(amount: int) -> None:
    table = Table(Rules(min_bet=5, max_bet=100), seed=0, bankroll=1000)
    before = snapshot(table)
    message = rf"bet of {amount} is outside the table limits 5\.\.100"
    with pytest.raises(IllegalActionError, match=message):
        table.bet(0, amount)
    assert snapshot(table) == before


@pytest.mark.parametrize("amount", [-5, 2.5, "10", True, None])
def test_bet_must_be_whole_chips(amount: object) -> None:
    table = Table(Rules(), seed=0, bankroll=100)
    before = snapshot(table)
    with pytest.raises(IllegalActionError, match=r"whole number of chips|outside the table"):
        table.bet(0, amount)  # type: ignore[arg-type]
    assert snapshot(table) == before


def test_bet_replaced_and_withdrawn() -> None:
    table = Table(Rules(), seed=0, bankroll=50)
    table.bet(0, 30)
    assert table.seats[0].bankroll == 20
    table.bet(0, 45)  # replacing: 30 comes back first, so 45 <= 50 is fine
    assert table.seats[0].bankroll == 5
    table.bet(0, 0)
    assert table.seats[0].bankroll == 50
    with pytest.raises(PhaseError, match="no seat has a bet"):
        table.deal()
    table.bet(0, np.int64(7))  # numpy integers are whole chips too
    assert table.seats[0].bankroll == 43


def test_bankroll_list_per_seat() -> None:
    table = Table(Rules(seats=2), seed=0, bankroll=[100, None])
    assert table.seats[0].bankroll == 100 and table.seats[1].bankroll is None
    with pytest.raises(ValueError, match="bankroll list has 3 entries; the table has 2 seats"):
        Table(Rules(seats=2), seed=0, bankroll=[1, 2, 3])


def test_unlimited_bankroll_can_always_double_and_split() -> None:
    table = scripted(Rules(), "8S 6D 8C TD", 10, bankroll=None)
    assert table.legal_actions() == (S, H, D, P)


def test_no_double_or_split_without_bankroll() -> None:
    # bankroll 15, bet 10: 5 left cannot cover another 10
    table = scripted(Rules(), "8S 6D 8C TD", 10, bankroll=15)
    assert table.legal_actions() == (S, H)
    before = snapshot(table)
    for action in (D, P):
        with pytest.raises(IllegalActionError, match=f"{action.name} is not allowed"):
            table.act(action)
        assert snapshot(table) == before


def test_second_split_needs_bankroll_too() -> None:
    # bankroll 25, bet 10: the first split costs 10 (5 left), so 8-8 again cannot be split
    table = scripted(Rules(), "8S 6D 8C TD 8H", 10, bankroll=25)
    table.act(P)
    assert table.seats[0].hands[0].is_pair()
    assert P not in table.legal_actions() and D not in table.legal_actions()


# --------------------------------------------- errors leave the table unchanged
def test_illegal_actions_change_nothing() -> None:
    table = scripted(Rules(), "TS 6D 9C TD", 10, bankroll=100)  # 19, no pair
    before = snapshot(table)
    for bad in (P, INSURE, DECLINE, R, 7, -1, "hit"):
        with pytest.raises(IllegalActionError):
            table.act(bad)  # type: ignore[arg-type]
        assert snapshot(table) == before
    with pytest.raises(IllegalActionError, match="legal now: STAND, HIT, DOUBLE"):
        table.act(P)


def test_out_of_phase_calls_change_nothing() -> None:
    table = Table(Rules(), seed=0, bankroll=100)
    before = snapshot(table)
    with pytest.raises(PhaseError, match="no decision is awaited in phase betting"):
        table.act(S)
    with pytest.raises(PhaseError, match="cannot raise a bet in phase betting"):
        table.raise_bet(5)
    assert snapshot(table) == before

    table.shoe.stack("TS 6D 9C TD 5C")
    table.bet(0, 10)
    table.deal()
    before = snapshot(table)
    with pytest.raises(PhaseError, match="cannot bet in phase player_turns"):
        table.bet(0, 20)
    with pytest.raises(PhaseError, match="cannot deal in phase player_turns"):
        table.deal()
    with pytest.raises(PhaseError, match="new_round"):
        table.new_round()
    with pytest.raises(IllegalActionError, match="bet_raising=False"):
        table.raise_bet(5)
    assert snapshot(table) == before

    table.act(S)  # dealer 16 draws 5C -> 21
    assert table.phase is Phase.SETTLED
    before = snapshot(table)
    with pytest.raises(PhaseError, match="call new_round"):
        table.act(H)
    with pytest.raises(PhaseError):
        table.bet(0, 10)
    with pytest.raises(PhaseError):
        table.deal()
    assert snapshot(table) == before


def test_errors_in_the_insurance_phase_change_nothing() -> None:
    table = scripted(Rules(), "TS AD 9C 7H", 10, bankroll=100)
    before = snapshot(table)
    for bad in (S, H, D, R):
        with pytest.raises(IllegalActionError):
            table.act(bad)
    with pytest.raises(PhaseError):
        table.raise_bet(1)
    assert snapshot(table) == before


def test_unknown_seat() -> None:
    table = Table(Rules(seats=2), seed=0)
    before = snapshot(table)
    for seat in (2, -1, "0", True):
        with pytest.raises(IllegalActionError, match=r"does not exist; seats are 0\.\.1"):
            table.bet(seat, 10)  # type: ignore[arg-type]
    assert snapshot(table) == before


def test_table_needs_rules() -> None:
    with pytest.raises(TypeError, match="rules must be a Rules"):
        Table("vegas-strip")  # type: ignore[arg-type]


# --------------------------------------------------------------------- events
def test_event_record_of_a_round() -> None:
    # TS 5C (15) vs dealer 6D + TD (16); player hits 4C -> 19, stands; dealer draws 2S -> 18
    table = scripted(Rules(), "TS 6D 5C TD 4C 2S", 10)
    play(table, H, S)
    assert table.events == [
        Event(EventKind.BET, 0, amount=10),
        Event(EventKind.DEAL, 0, 0, c("TS")),
        Event(EventKind.UPCARD, card=c("6D")),
        Event(EventKind.DEAL, 0, 0, c("5C")),
        Event(EventKind.HOLE_CARD, card=c("TD")),
        Event(EventKind.ACTION, 0, 0, action=H),
        Event(EventKind.DEAL, 0, 0, c("4C")),
        Event(EventKind.ACTION, 0, 0, action=S),
        Event(EventKind.REVEAL, card=c("TD")),
        Event(EventKind.DEALER_DRAW, card=c("2S")),
        Event(EventKind.SETTLE, 0, 0, amount=10, outcome=Outcome.WIN),  # 19 beats 18
    ]


def test_events_start_afresh_each_round_with_the_shuffle() -> None:
    table = Table(Rules(decks=1, penetration=None), seed=0)
    table.bet(0, 1)
    table.deal()
    while table.to_act is not None:
        table.act(DECLINE if table.phase is Phase.INSURANCE else S)
    assert table.new_round() is True
    assert table.events == [Event(EventKind.SHUFFLE)]
    assert table.round == 1
    table.bet(0, 2)
    assert table.events[-1] == Event(EventKind.BET, 0, amount=2)


# ---------------------------------------------------------------- bet raising
def test_bet_raising_after_each_card() -> None:
    # terminal-21, seat 0 alone: 9S 5C (14) vs dealer 7D + TD (17). Bet 4, raise 6 (-> 10),
    # hit 6H (20), raise 5 (-> 15), stand. The only live hand, 20 > 17: wins 15.
    # Bankroll 100 - 4 - 6 - 5 + 30 = 115.
    table = scripted("terminal-21", "9S 7D 5C TD 6H", 4, bankroll=100)
    table.raise_bet(6)
    assert table.seats[0].hands[0].bet == 10
    table.act(H)
    table.raise_bet(5)
    table.act(S)
    assert outcomes(table) == [(Outcome.WIN, 15)]
    assert table.seats[0].bankroll == 115
    raises = [(e.seat, e.hand, e.amount) for e in table.events if e.kind is EventKind.RAISE]
    assert raises == [(0, 0, 6), (0, 0, 5)]


def test_bet_raising_limits() -> None:
    table = scripted("terminal-21", "9S 7D 5C TD 6H", 4, bankroll=10, max_bet=20)
    before = snapshot(table)
    with pytest.raises(IllegalActionError, match="cannot raise by 7: its bankroll is 6"):
        table.raise_bet(7)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(IllegalActionError, match="whole number of chips >= 1"):
            table.raise_bet(bad)  # type: ignore[arg-type]
    assert snapshot(table) == before
    table2 = scripted("terminal-21", "9S 7D 5C TD 6H", 15, bankroll=100, max_bet=20)
    with pytest.raises(IllegalActionError, match="above the table maximum 20"):
        table2.raise_bet(6)  # 15 + 6 = 21 > 20
    table2.raise_bet(5)  # 15 + 5 = 20 is fine
    assert table2.seats[0].hands[0].bet == 20


# ----------------------------------------------------------- halved split bets
def test_split_halves_the_bet_and_returns_the_odd_chip() -> None:
    # terminal-21, seat 0: 8S 8C vs dealer 7D + TD (17). Bet 5 splits into 5 // 2 = 2 per
    # hand, 1 chip back. Hand 0 gets TC (18), stands; hand 1 gets 2H (10), hits 9H (19),
    # stands. Highest hand 19 > 17 wins 2; the 18 is not the highest: loses 2. Net 0.
    table = scripted("terminal-21", "8S 7D 8C TD TC 2H 9H", 5, bankroll=100)
    seat = table.seats[0]
    table.act(P)
    assert [h.bet for h in seat.hands] == [2, 2]
    assert seat.bankroll == 96  # 100 - 5 + 1
    play(table, S, H, S)
    assert outcomes(table) == [(Outcome.LOSS, -2), (Outcome.WIN, 2)]
    assert seat.net == 0
    assert seat.bankroll == 100  # 96 + 0 + 4
    assert table.house == 0


def test_halved_split_needs_two_chips() -> None:
    table = scripted("terminal-21", "8S 7D 8C TD", 1, bankroll=100)
    assert P not in table.legal_actions()
    table = scripted("terminal-21", "8S 7D 8C TD", 2, bankroll=2)  # costs nothing extra
    assert P in table.legal_actions()


def test_halved_split_only_once() -> None:
    table = scripted("terminal-21", "8S 7D 8C TD 8H", 8, bankroll=100)
    table.act(P)  # hand 0: 8S 8H, a pair, but split_bet='halve' allows one split
    assert table.seats[0].hands[0].is_pair()
    assert P not in table.legal_actions()


# ------------------------------------------------------------ highest hand
T21_3 = dict(seats=3)


@pytest.mark.parametrize(
    ("cards", "nets"),
    [
        # seat 0 TS 8C = 18, seat 1 TH 9D = 19, seat 2 9S 9H = 18; dealer 7D + TD = 17.
        # Only the highest hand (19) wins; 18s lose although they beat the dealer.
        ("TS TH 9S 7D 8C 9D 9H TD", [-10, 10, -10]),
        # seat 0 TS 9C = 19, seat 1 TH 9D = 19, seat 2 9S 8H = 17; dealer 17: both 19s win
        ("TS TH 9S 7D 9C 9D 8H TD", [10, 10, -10]),
        # top 19 ties the dealer's 7D + 2C + TD = 19: the dealer wins ties, everyone loses
        ("TS TH 9S 7D 9C 9D 8H 2C TD", [-10, -10, -10]),
        # dealer 7D + 5C = 12 draws TD = 22: every standing hand wins, 17 included
        ("TS TH 9S 7D 9C 8D 8H 5C TD", [10, 10, 10]),
    ],
)
def test_highest_hand_settlement(cards: str, nets: list[int]) -> None:
    table = scripted("terminal-21", cards, {0: 10, 1: 10, 2: 10}, **T21_3)
    play(table, S, S, S)
    assert table.phase is Phase.SETTLED
    assert [outcomes(table, i)[0][1] for i in range(3)] == nets
    assert table.house == -sum(nets)


def test_highest_hand_bust_player_loses_even_if_dealer_busts() -> None:
    # seat 0 TS 6C = 16 hits TH -> 26 bust; seat 1 TD 7D = 17 stands; seat 2 sits out.
    # dealer 7C + 5H = 12 draws TC -> 22: seat 1 wins, the bust seat 0 loses.
    table = scripted("terminal-21", "TS TD 7C 6C 7D 5H TH TC", {0: 10, 1: 10}, **T21_3)
    play(table, H, S)
    assert outcomes(table, 0) == [(Outcome.BUST, -10)]
    assert outcomes(table, 1) == [(Outcome.WIN, 10)]


def test_exact_fraction_results_everywhere() -> None:
    # 6:5 natural on bet 3 (+18/5), with a surrendered 5 (-5/2): house gets -18/5 + 5/2
    rules = Rules(seats=2, blackjack_payout="6:5", surrender="late")
    # seat 0: AS KC (natural), seat 1: TS 6H (16); dealer 9D + 7H = 16
    table = scripted(rules, "AS TS 9D KC 6H 7H", {0: 3, 1: 5}, bankroll=[10, 10])
    assert outcomes(table, 0) == [(Outcome.BLACKJACK, Fraction(18, 5))]
    table.act(R)
    assert outcomes(table, 1) == [(Outcome.SURRENDER, Fraction(-5, 2))]
    assert table.house == Fraction(-18, 5) + Fraction(5, 2)
    assert table.seats[0].bankroll == Fraction(68, 5)  # 10 + 18/5
    assert table.seats[1].bankroll == Fraction(15, 2)  # 10 - 5/2


def test_preset_helper_types() -> None:
    assert isinstance(preset("terminal-21"), Rules)


@pytest.mark.parametrize("hole", ["peek", "no-peek", "none"])
def test_highest_hand_natural_paid_the_same_whatever_the_hole_card_rule(hole: str) -> None:
    # highest-hand with a 3:2 payout. seat 0: AS KC (natural), seat 1: TS 9S (19);
    # dealer 9D + 9H (18). The natural is the table's highest hand and beats the dealer:
    # a winning natural pays 3:2 (+15) under every hole-card rule; the 19 is not the
    # highest hand: -10.
    rules = Rules(seats=2, settlement="highest-hand", hole_card=hole, insurance=False)
    table = scripted(rules, "AS TS 9D KC 9S 9H", {0: 10, 1: 10})
    if table.phase is not Phase.SETTLED:
        table.act(S)
    assert outcomes(table, 0) == [(Outcome.BLACKJACK, 15)]
    assert outcomes(table, 1) == [(Outcome.LOSS, -10)]


def test_highest_hand_top_hands_judged_like_the_dealer_game() -> None:
    # highest-hand, no peek, dealer natural beats a three-card 21 (the default): seat 0
    # 5S 6C hits TC -> 21 (the top hand) vs dealer TD + AH: the dealer's natural wins, -10.
    rules = Rules(seats=1, settlement="highest-hand", hole_card="no-peek", insurance=False)
    table = scripted(rules, "5S TD 6C AH TC", 10)
    table.act(H)
    assert outcomes(table) == [(Outcome.LOSS, -10)]
    # with dealer_natural_beats_21=False they tie, and ties push
    table = scripted(rules.replace(dealer_natural_beats_21=False), "5S TD 6C AH TC", 10)
    table.act(H)
    assert outcomes(table) == [(Outcome.PUSH, 0)]


def test_new_round_in_betting_keeps_the_bets() -> None:
    table = Table(Rules(), seed=0, bankroll=100)
    table.bet(0, 10)
    assert table.new_round() is False
    assert table.seats[0].bet == 10 and table.seats[0].bankroll == 90


def test_table_deals_from_a_given_shoe() -> None:
    from blackjack_env.engine import Shoe

    shoe = Shoe(2, np.random.default_rng(0))
    table = Table(Rules(decks=2), seed=0, shoe=shoe)
    assert table.shoe is shoe
    shoe.stack("TS 6D 9C TD")
    table.bet(0, 10)
    table.deal()
    assert [str(c) for c in table.seats[0].hands[0].cards] == ["TS", "9C"]


def test_no_hole_card_deal_order_with_two_seats() -> None:
    # seat 0 TS, seat 1 9S, upcard 6D, seat 0 7C, seat 1 8C; no hole card. Both stand;
    # then the dealer's second card TH (16) and a draw 5H -> 21: 17 and 17 lose (-10 each)
    rules = Rules(seats=2, hole_card="none", insurance=False)
    table = scripted(rules, "TS 9S 6D 7C 8C TH 5H", {0: 10, 1: 10})
    assert len(table.dealer.cards) == 1
    assert [str(c) for c in table.seats[1].hands[0].cards] == ["9S", "8C"]
    play(table, S, S)
    assert [str(c) for c in table.dealer.cards] == ["6D", "TH", "5H"]
    assert outcomes(table, 0) == [(Outcome.LOSS, -10)]
    assert outcomes(table, 1) == [(Outcome.LOSS, -10)]


@pytest.mark.parametrize(
    ("bankroll", "message"),
    [
        (-5, "bankroll=-5"),
        ("100", "bankroll='100'"),
        (True, "bankroll=True"),
        ([100, -1], "bankroll=-1"),
        (1.5, "bankroll=1.5"),
    ],
)
def test_bad_bankroll_is_a_clear_error(bankroll: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Table(Rules(seats=2), seed=0, bankroll=bankroll)  # type: ignore[arg-type]


def test_bankroll_tuple_per_seat_and_fraction() -> None:
    table = Table(Rules(seats=2), seed=0, bankroll=(100, Fraction(5, 2)))
    assert table.seats[0].bankroll == 100 and table.seats[1].bankroll == Fraction(5, 2)


def test_table_refuses_rng_and_seed_together():
    import numpy as np
    import pytest

    from blackjack_env.engine import Rules, Table

    with pytest.raises(ValueError, match="either rng"):
        Table(Rules(), rng=np.random.default_rng(1), seed=2)
