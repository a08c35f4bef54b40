"""engine/play: each rule decision checked on hand-worked values, and each lookup table
checked against the function it is built from."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings

from blackjack_env.engine import Rules, Table, parse_cards, play, preset
from blackjack_env.engine.hand import Hand
from blackjack_env.engine.play import Action as A
from blackjack_env.engine.play import Outcome as O
from tests.engine.helpers import scripted
from tests.engine.test_properties import rules_strategy

US = Rules()  # 6 decks, S17, peek, 3:2, DAS, split to 4, no surrender, insurance
NAT = play.NATURAL_CATEGORY
BUST = play.BUST_CATEGORY


# ------------------------------------------------------------------ totals
@pytest.mark.parametrize(
    ("hard", "ace", "expected"),
    [
        (11, True, (21, True)),  # A + 10
        (2, True, (12, True)),  # A + A: one ace counts 11
        (12, True, (12, False)),  # A + 5 + 6: the ace must count 1
        (16, False, (16, False)),
        (21, False, (21, False)),
        (7, True, (17, True)),  # A + 6: soft 17
    ],
)
def test_score(hard: int, ace: bool, expected: tuple[int, bool]) -> None:
    assert play.score(hard, ace) == expected


def test_array_forms_match_score() -> None:
    hard = np.repeat(np.arange(32), 2)
    ace = np.tile([False, True], 32)
    totals = play.array_total(hard, ace)
    softs = play.array_soft(hard, ace)
    for h, a, t, s in zip(hard, ace, totals, softs, strict=True):
        assert (int(t), bool(s)) == play.score(int(h), bool(a))
    cats = play.array_category(np.array([20, 21, 25, 21]), np.array([False, False, False, True]))
    assert cats.tolist() == [20, 21, BUST, NAT]


# ------------------------------------------------------------------ dealer
def test_dealer_peeks_with_ace_or_ten_under_peek_only() -> None:
    assert play.dealer_peeks(US, 1, True)
    assert play.dealer_peeks(US, 10, False)
    assert not play.dealer_peeks(US, 9, False)
    assert not play.dealer_peeks(Rules(hole_card="no-peek", insurance=False), 1, True)
    assert not play.dealer_peeks(Rules(hole_card="none", insurance=False), 10, False)
    # a jack worth 1 under custom values is not an ace: no peek
    custom = Rules(card_values={"J": 1})
    assert not play.dealer_peeks(custom, 1, False)
    assert play.peek_by_rank(custom).tolist() == [True] + [False] * 8 + [True, False, True, True]


def test_dealer_draws_s17_and_h17() -> None:
    h17 = Rules(dealer_hits_soft_17=True)
    assert play.dealer_draws(US, 16, False)
    assert not play.dealer_draws(US, 17, True)  # S17 stands on soft 17
    assert not play.dealer_draws(US, 17, False)
    assert play.dealer_draws(h17, 17, True)  # H17 hits it
    assert not play.dealer_draws(h17, 17, False)
    assert not play.dealer_draws(h17, 18, True)
    table = play.dealer_draw_table(h17)
    assert table[2 * 7 + 1]  # soft 17
    assert not table[2 * 17]  # hard 17
    assert table[2 * 16] and table[2 * 12 + 1]  # hard 16 draws; so does A-A-K (hard 12)
    assert not table[2 * 8 + 1]  # soft 18 stands


# ----------------------------------------------------------- legal actions
def test_double_rules() -> None:
    r911 = Rules(double="9-11", double_after_split=False)
    assert play.double_allowed(r911, 9, False, False)
    assert play.double_allowed(r911, 11, False, False)
    assert not play.double_allowed(r911, 8, False, False)
    assert not play.double_allowed(r911, 18, True, False)  # soft hands never under 9-11
    assert not play.double_allowed(r911, 10, False, True)  # no double after split
    assert play.double_allowed(US, 18, True, True)  # any two, DAS
    assert not play.double_allowed(Rules(double="never"), 11, False, False)


def test_split_rules() -> None:
    assert play.split_allowed(US, pair=True, hands=3, split_aces=False)
    assert not play.split_allowed(US, pair=True, hands=4, split_aces=False)  # split to 4
    assert not play.split_allowed(US, pair=False, hands=1, split_aces=False)
    assert not play.split_allowed(US, pair=True, hands=2, split_aces=True)  # no resplit aces
    assert play.split_allowed(Rules(resplit_aces=True), pair=True, hands=2, split_aces=True)
    halve = Rules(split_bet="halve", max_split_hands=2)
    assert not play.split_stake_ok(halve, 1, True) and play.split_stake_ok(halve, 2, False)
    assert play.split_stake_ok(US, 1, True) and not play.split_stake_ok(US, 5, False)
    table = play.split_allowed_table(US)
    assert table[1, 3, 0] and not table[1, 4, 0] and not table[0, 1, 0] and not table[1, 2, 1]


def _two(rules: Rules, total: int, *, up: int = 6, soft: bool = False, split: bool = False,
         hands: int = 1) -> tuple[A, ...]:
    return play.play_actions(rules, two_cards=True, total=total, soft=soft, can_split=split,
                             split_aces=False, from_split=hands > 1, hands=hands,
                             up_value=up, up_ace=up == 1)


def test_play_actions_two_card_hands() -> None:
    late = Rules(surrender="late")
    assert _two(late, 11) == (A.STAND, A.HIT, A.DOUBLE, A.SURRENDER)
    assert _two(late, 16, split=True) == (A.STAND, A.HIT, A.DOUBLE, A.SPLIT, A.SURRENDER)
    assert _two(late, 16, hands=2) == (A.STAND, A.HIT, A.DOUBLE)  # no surrender after a split
    early = Rules(surrender="early")
    # an early surrender against a ten or ace was asked before the peek: not in play
    assert _two(early, 16, up=10) == (A.STAND, A.HIT, A.DOUBLE)
    assert _two(early, 16, up=1) == (A.STAND, A.HIT, A.DOUBLE)
    assert _two(early, 16, up=9) == (A.STAND, A.HIT, A.DOUBLE, A.SURRENDER)
    no_peek = Rules(surrender="early", hole_card="no-peek", insurance=False)
    assert _two(no_peek, 16, up=10) == (A.STAND, A.HIT, A.DOUBLE, A.SURRENDER)
    assert play.play_actions(US, two_cards=True, total=18, soft=True, can_split=False,
                             split_aces=False, from_split=False, hands=1, up_value=6,
                             up_ace=False, afford_double=False) == (A.STAND, A.HIT)


def test_play_actions_later_cards_and_split_aces() -> None:
    three = play.play_actions(US, two_cards=False, total=15, soft=False, can_split=False,
                              split_aces=False, from_split=False, hands=1, up_value=6,
                              up_ace=False)
    assert three == (A.STAND, A.HIT)
    kwargs = dict(two_cards=True, total=12, soft=True, split_aces=True, from_split=True,
                  hands=2, up_value=6, up_ace=False)
    assert play.play_actions(US, can_split=False, **kwargs) == (A.STAND,)
    assert play.play_actions(US, can_split=True, **kwargs) == (A.STAND, A.SPLIT)
    assert not play.hit_allowed(US, True) and play.hit_allowed(US, False)
    assert play.hit_allowed(Rules(hit_split_aces=True), True)


def test_pre_peek_answers() -> None:
    early = Rules(surrender="early")
    assert play.pre_peek_actions(early, up_value=1, up_ace=True, natural=False,
                                 insurance=True) == (A.SURRENDER, A.INSURE, A.DECLINE)
    # a natural against an ace: even money (INSURE) or decline, no surrender
    assert play.pre_peek_actions(early, up_value=1, up_ace=True, natural=True,
                                 insurance=True) == (A.INSURE, A.DECLINE)
    assert play.pre_peek_actions(early, up_value=10, up_ace=False, natural=False,
                                 insurance=True) == (A.SURRENDER, A.DECLINE)
    assert play.pre_peek_actions(US, up_value=1, up_ace=True, natural=False,
                                 insurance=False) == (A.DECLINE,)
    assert play.pre_peek_actions(Rules(surrender="late"), up_value=10, up_ace=False,
                                 natural=False, insurance=True) == (A.DECLINE,)


def test_split_hand_done() -> None:
    done = play.split_hand_done
    assert done(US, split_aces=True, can_split=False, natural=False, total=17)
    assert not done(US, split_aces=True, can_split=True, natural=False, total=17)
    assert done(US, split_aces=False, can_split=False, natural=False, total=21)  # auto 21
    assert not done(US, split_aces=False, can_split=False, natural=False, total=20)
    bas = Rules(blackjack_after_split=True, auto_stand_21=False)
    assert done(bas, split_aces=False, can_split=False, natural=True, total=21)
    assert not done(bas, split_aces=False, can_split=False, natural=False, total=21)
    hit_aces = Rules(hit_split_aces=True)
    assert not done(hit_aces, split_aces=True, can_split=False, natural=False, total=17)
    table = play.split_done_table(US)
    assert table[8] and not table[8 + 4] and table[1] and not table[0]


def test_stand_hit_only() -> None:
    assert play.stand_hit_only(preset("sutton-barto"))
    assert not play.stand_hit_only(US)
    assert not play.stand_hit_only(preset("sutton-barto", surrender="late"))
    assert not play.stand_hit_only(preset("sutton-barto", max_split_hands=2))


# -------------------------------------------------------------- settlement
def test_categories() -> None:
    assert play.category(21, True) == NAT
    assert play.category(21, False) == 21
    assert play.category(26, False) == BUST


def test_outcome_standard_rules() -> None:
    out = play.outcome
    assert out(US, 20, 19) is O.WIN
    assert out(US, 19, 20) is O.LOSS
    assert out(US, 18, 18) is O.PUSH
    assert out(US, 15, BUST) is O.WIN
    assert out(US, BUST, BUST) is O.BUST  # the player busts first
    assert out(US, NAT, 21) is O.BLACKJACK  # a natural beats a three-card 21
    assert out(US, NAT, NAT) is O.PUSH
    assert out(US, 21, NAT) is O.LOSS  # a dealer natural beats a player's 21


def test_outcome_rule_variants() -> None:
    out = play.outcome
    dealer_wins = Rules(ties="dealer-wins")
    assert out(dealer_wins, 18, 18) is O.LOSS and out(dealer_wins, NAT, NAT) is O.LOSS
    player_loses = Rules(ties="player-loses")
    assert out(player_loses, 18, 18) is O.LOSS and out(player_loses, NAT, NAT) is O.PUSH
    tie21 = Rules(natural_beats_21=False, dealer_natural_beats_21=False)
    assert out(tie21, NAT, 21) is O.PUSH
    assert out(tie21, 21, NAT) is O.PUSH
    assert out(tie21, NAT, 20) is O.BLACKJACK


def test_outcome_table_is_outcome() -> None:
    for rules in (US, Rules(ties="player-loses", natural_beats_21=False)):
        table = play.outcome_table(rules).reshape(24, 24)
        codes = list(O)
        for p in range(24):
            for d in range(24):
                assert codes[table[p, d]] is play.outcome(rules, p, d)


def test_payout_and_surrender() -> None:
    six_five = Rules(blackjack_payout="6:5")
    assert play.payout(six_five, O.BLACKJACK) == Fraction(6, 5)
    assert play.payout(US, O.BLACKJACK) == Fraction(3, 2)
    assert [play.payout(US, o) for o in (O.WIN, O.PUSH, O.LOSS, O.BUST, O.EVEN_MONEY)] == [
        1, 0, -1, -1, 1]
    assert play.payout(US, O.SURRENDER) == Fraction(-1, 2)
    assert type(play.payout(US, O.WIN)) is int
    assert play.payout_factors(six_five).tolist() == [1.0, 1.2, 0.0, -1.0, -1.0, -0.5, 1.0]
    assert play.surrender_outcome(True) is O.LOSS
    assert play.surrender_outcome(False) is O.SURRENDER
    assert play.surrender_settles_at_once(Rules(surrender="late"))  # after the peek
    late_no_peek = Rules(surrender="late", hole_card="no-peek", insurance=False)
    assert not play.surrender_settles_at_once(late_no_peek)
    assert play.surrender_settles_at_once(late_no_peek.replace(surrender="early"))


# ---------------------------------------------------------- card counting
def test_hi_lo() -> None:
    assert [play.hi_lo_tag(r) for r in range(1, 14)] == [-1, 1, 1, 1, 1, 1, 0, 0, 0, -1, -1,
                                                         -1, -1]
    with pytest.raises(ValueError, match="rank 14"):
        play.hi_lo_tag(14)
    full = [4] * 13
    assert play.hi_lo_running_count(full) == 0
    # two fives and a king seen: +1 +1 -1
    seen = list(full)
    seen[4] -= 2
    seen[12] -= 1
    assert play.hi_lo_running_count(seen) == 1


def test_unseen_cards_and_hole_card() -> None:
    cards = parse_cards("TS 6H")
    assert play.hidden_hole_rank(cards, hole_revealed=False) == 6
    assert play.hidden_hole_rank(cards, hole_revealed=True) == 0
    assert play.hidden_hole_rank(cards[:1], hole_revealed=False) == 0
    assert play.unseen_by_rank([4] * 13, 6) == [4] * 5 + [5] + [4] * 7
    assert play.unseen_by_rank([4] * 13, 0) == [4] * 13


# ---------------------------------------------------- tables vs functions
def test_play_action_table_rows_are_play_actions() -> None:
    rules = Rules(surrender="early", double="9-11", resplit_aces=True)
    table = play.play_action_table(rules)
    rng = np.random.default_rng(0)
    for key in rng.integers(0, table.shape[0], 400):
        key = int(key)
        rank, low = divmod(key, play.KEY_UPCARD)
        from_split = bool(low & play.KEY_FROM_SPLIT)
        total, soft = play.score((low & 63) >> 1, bool(low & 1))
        legal = play.play_actions(
            rules, two_cards=bool(low & play.KEY_TWO_CARDS), total=total,
            soft=soft, can_split=bool(low & play.KEY_CAN_SPLIT),
            split_aces=bool(low & play.KEY_SPLIT_ACES), from_split=from_split,
            hands=2 if from_split else 1, up_value=rules.card_values[rank], up_ace=rank == 0)
        assert np.flatnonzero(table[key]).tolist() == [int(a) for a in legal]
    pre = play.pre_peek_action_table(rules, True)
    assert np.flatnonzero(pre[0]).tolist() == [A.SURRENDER, A.INSURE, A.DECLINE]


def _play_rows_are_play_actions(rules: Rules, afford_double: bool) -> None:
    """Every row of ``play_action_table(rules)`` is ``play_actions`` of its state."""
    table = play.play_action_table(rules, 7, afford_double)
    for key in range(table.shape[0]):
        rank, low = divmod(key, play.KEY_UPCARD)
        from_split = bool(low & play.KEY_FROM_SPLIT)
        total, soft = play.score((low & 63) >> 1, bool(low & 1))
        legal = play.play_actions(
            rules, two_cards=bool(low & play.KEY_TWO_CARDS), total=total,
            soft=soft, can_split=bool(low & play.KEY_CAN_SPLIT),
            split_aces=bool(low & play.KEY_SPLIT_ACES), from_split=from_split,
            hands=2 if from_split else 1, up_value=rules.card_values[rank], up_ace=rank == 0,
            afford_double=afford_double)
        assert np.flatnonzero(table[key]).tolist() == [int(a) for a in legal], key


def _other_tables_are_their_functions(rules: Rules) -> None:
    """The pre-peek, split and stand/hit-only tables of ``rules`` are their functions'."""
    for insurance in (False, True):
        pre = play.pre_peek_action_table(rules, insurance)
        for key in range(26):
            legal = play.pre_peek_actions(
                rules, up_value=rules.card_values[key >> 1], up_ace=key >> 1 == 0,
                natural=bool(key & 1), insurance=insurance)
            assert np.flatnonzero(pre[key]).tolist() == [int(a) for a in legal]
    split = play.split_allowed_table(rules)
    for pair, hands, aces in np.ndindex(split.shape):
        assert split[pair, hands, aces] == play.split_allowed(
            rules, pair=pair == 1, hands=hands, split_aces=aces == 1)
    table = play.play_action_table(rules)
    offered = {int(a) for row in table for a in np.flatnonzero(row)}
    assert play.stand_hit_only(rules) == (
        offered <= {int(A.STAND), int(A.HIT), int(A.SPLIT)} and not split[:, 1:].any())


@given(a=rules_strategy(), b=rules_strategy())
# custom card values: a J, Q or K up is no longer a ten, so the peek (and a late
# surrender's moment) changes with them
@example(a=Rules(surrender="late"), b=Rules(card_values=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3)))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_rule_sets_of_one_legality_key_share_exact_tables(a: Rules, b: Rules) -> None:
    """The legal-action tables are cached by ``legality_key``: a rule set that agrees with
    another on ``LEGALITY_FIELDS`` alone (every other field drawn apart) is served the
    other's cached tables, and each row must still be what the functions say of it; a
    field the legal actions read but the key left out would fail here."""
    try:
        c = b.replace(**{name: getattr(a, name) for name in play.LEGALITY_FIELDS})
    except ValueError:  # a contradictory mix of the two (insurance without a peek, ...)
        assume(False)
    assert play.legality_key(c) == play.legality_key(a)
    for rules in (a, c):  # a fills the cache, c reads it
        for afford in (True, False):
            _play_rows_are_play_actions(rules, afford)
        _other_tables_are_their_functions(rules)


def test_table_reads_the_same_rules() -> None:
    """A scripted round: the table's legal actions and settlement are play's."""
    rules = Rules(surrender="early", seats=1)
    table = Table(rules, seed=0)
    table.shoe.stack(parse_cards("TS KH 6D QC 9H"))  # player T 6 v dealer K, hole Q
    table.bet(0, 10)
    table.deal()
    # K up under early surrender: the pre-peek question
    assert table.legal_actions() == play.pre_peek_actions(
        rules, up_value=10, up_ace=False, natural=False, insurance=True)
    table.act(A.DECLINE)
    assert table.legal_actions() == _two(rules, 16, up=10)
    table.act(A.HIT)  # 9: bust
    result = table.seats[0].results[0]
    assert result.outcome is O.BUST and result.net == -10


def test_naturals() -> None:
    # an ace and a ten-value card, two cards, where a natural counts
    assert play.is_natural(2, 11, True)
    assert not play.is_natural(2, 11, True, counts=False)  # a split hand without BJ-after-split
    assert not play.is_natural(3, 11, True)  # A + 5 + 5: 21, not a natural
    assert not play.is_natural(2, 11, False)  # custom values: J (1) + T is 11 hard, no ace
    assert not play.is_natural(2, 2, True)  # two aces
    assert play.natural_counts(Rules(), from_split=False)
    assert not play.natural_counts(Rules(), from_split=True)
    assert play.natural_counts(Rules(blackjack_after_split=True), from_split=True)
    n = np.array([2, 2, 3, 2])
    hard = np.array([11, 11, 11, 2])
    ace = np.array([True, False, True, True])
    cases = zip(n, hard, ace, strict=True)
    expected = [play.is_natural(int(c), int(h), bool(a)) for c, h, a in cases]
    assert play.array_natural(n, hard, ace).tolist() == expected == [True, False, False, False]


def test_auto_stand_and_insurance() -> None:
    assert play.auto_stands(Rules(), 21) and not play.auto_stands(Rules(), 20)
    assert not play.auto_stands(Rules(auto_stand_21=False), 21)
    assert play.AUTO_STAND_TOTAL == 21 and play.INSURANCE_PAYS == 2


def test_pairs_by_rank_and_by_value() -> None:
    by_rank = Rules()
    by_value = Rules(split_by="value")
    # ranks: 1 = ace .. 10 = ten, 11 = jack, 13 = king
    assert play.pair_class(by_rank, 13) == 13 and play.pair_class(by_value, 13) == 10
    assert play.is_pair(by_rank.card_values, 8, 8, False)
    assert not play.is_pair(by_rank.card_values, 10, 13, False)
    assert play.is_pair(by_value.card_values, 10, 13, True)
    assert not play.is_pair(by_value.card_values, 1, 10, True)
    for rules in (by_rank, by_value, Rules(split_by="value", card_values={"J": 1, "Q": 2})):
        table = play.pair_table(rules).reshape(13, 13)
        by = rules.split_by.value == "value"
        for i in range(13):
            for j in range(13):
                assert table[i, j] == play.is_pair(rules.card_values, i + 1, j + 1, by)
    # the hand asks the same function: a jack and a king pair only by value
    hand = Hand(by_value.card_values, parse_cards("JS KH"))
    assert hand.is_pair(by_value=True) and not hand.is_pair(by_value=False)


# ------------------------------------------------- decisions moved here from their users
def test_dealt_natural_effect() -> None:
    E = play.NaturalEffect
    assert play.dealt_natural_effect(Rules()) is E.END
    assert play.dealt_natural_effect(Rules(natural_paid_at_deal=True)) is E.PAY
    assert play.dealt_natural_effect(preset("gymnasium")) is E.PLAY
    assert [int(e) for e in E] == [0, 1, 2]  # the codes batched and JAX code read


def test_split_stake_matched_or_halved() -> None:
    match = Rules()
    halve = Rules(split_bet="halve", max_split_hands=2)
    # matched: each hand stakes the bet, the seat puts up one more bet
    assert play.split_stake(match, 5) == 5 and 2 * 5 - 5 == 5
    # halved: each hand stakes half, rounded down; an odd chip goes back (2 * 2 - 5 = -1)
    assert play.split_stake(halve, 5) == 2 and play.split_stake(halve, 8) == 4
    assert play.split_stake_share(match) == 1 and play.split_stake_share(halve) == Fraction(1, 2)
    bets = np.array([1, 2, 5, 8, 9])
    for rules in (match, halve):
        assert play.array_split_stake(rules, bets).tolist() == [
            play.split_stake(rules, int(b)) for b in bets
        ]
    assert bets.tolist() == [1, 2, 5, 8, 9]  # not modified in place


def test_split_stakes_on_the_table() -> None:
    # a pair of 8s against a 6, split under a halved bet of 5: two hands of 2, the odd chip
    # goes back to the seat (the table reads play.split_stake)
    rules = Rules(split_bet="halve", max_split_hands=2)
    table = scripted(rules, "8S 6H 8D TC 3S 4D", bets=5, bankroll=100)
    assert A.SPLIT in table.legal_actions()
    table.act(A.SPLIT)
    assert [h.bet for h in table.seats[0].hands] == [2, 2]
    assert table.seats[0].bankroll == 100 - 5 + 1
    matched = scripted(Rules(), "8S 6H 8D TC 3S 4D", bets=5, bankroll=100)
    matched.act(A.SPLIT)
    assert [h.bet for h in matched.seats[0].hands] == [5, 5]
    assert matched.seats[0].bankroll == 100 - 10


def test_surrender_outcome_array_form() -> None:
    dealer_natural = np.array([True, False])
    codes = play.array_surrender_outcome(dealer_natural)
    assert codes.tolist() == [
        play.outcome_code(play.surrender_outcome(bool(d))) for d in dealer_natural
    ]
    assert [play.outcome_code(o) for o in O] == list(range(len(O)))


def test_highest_hand_outcomes() -> None:
    rules = preset("terminal-21")
    # dealer 19: the table's best live total (20) is judged against the dealer; 18 loses
    # even though it beats nothing; the bust hand was settled when it busted (None); the
    # surrendered hand keeps half its bet
    got = play.highest_hand_outcomes(rules, [20, 18, BUST, 17], [False, False, False, True], 19)
    assert got == [O.WIN, O.LOSS, None, O.SURRENDER]
    # the dealer busts: every live hand is judged (and wins)
    got = play.highest_hand_outcomes(rules, [20, 18, BUST], [False, False, False], BUST)
    assert got == [O.WIN, O.WIN, None]
    # a natural counts 21 for the top: a 20 then loses
    got = play.highest_hand_outcomes(rules, [NAT, 20], [False, False], 18)
    assert got[1] is O.LOSS and got[0] is play.outcome(rules, NAT, 18)
    # the top hand that only ties the dealer is judged by the tie rule
    assert play.highest_hand_outcomes(rules, [19], [False], 19) == [play.outcome(rules, 19, 19)]
    total = np.array([20, 18, 18])
    top = np.array([20, 20, 20])
    bust = np.array([False, False, True])
    scalar = [
        play.highest_hand_judged(int(a), int(b), bool(c))
        for a, b, c in zip(total, top, bust, strict=True)
    ]
    assert play.array_highest_hand_judged(total, top, bust).tolist() == scalar
    assert scalar == [True, False, True]
    assert play.settles_by_highest_hand(rules) and not play.settles_by_highest_hand(Rules())
    assert not play.natural_paid_at_peek(rules) and play.natural_paid_at_peek(Rules())


def test_play_out_action() -> None:
    assert play.play_out_action(pre_peek=True) is A.DECLINE
    assert play.play_out_action(pre_peek=False) is A.STAND
    assert play.play_out_codes().tolist() == [int(A.STAND), int(A.DECLINE)]


def test_hi_lo_true_count_one_definition() -> None:
    # running count per unseen deck; nothing unseen: 0 (the env, the batched env and
    # agents.counting.HiLoCounter all read this)
    assert play.hi_lo_true_count(2, 104) == 1.0
    assert play.hi_lo_true_count(-3, 26) == -6.0
    assert play.hi_lo_true_count(5, 0) == 0.0
    running = np.array([2, -3, 5])
    unseen = np.array([104, 26, 0])
    assert play.array_hi_lo_true_count(running, unseen).tolist() == [1.0, -6.0, 0.0]
