"""Composition-dependent analysis: published values, pools small enough to work out by
hand, the infinite-deck limit, Farmer's six-deck figure, effects of removal, errors."""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.analysis import (
    action_values,
    composition_return,
    effects_of_removal,
    finite_shoe_return,
    pool_from,
    pre_peek_values,
    solve,
    table_action_values,
    table_pool,
)
from blackjack_env.analysis.dealer import rank_counts
from blackjack_env.engine import Action, Rules, Shoe, Table, parse_cards, preset
from blackjack_env.engine.table import Phase

S, H, D, P, R = Action.STAND, Action.HIT, Action.DOUBLE, Action.SPLIT, Action.SURRENDER


def counts(**by_letter: int) -> list[int]:
    """13 counts by rank from letters, e.g. counts(T=2, _5=1) (digits need a leading _)."""
    out = [0] * 13
    for key, n in by_letter.items():
        out["A23456789TJQK".index(key.lstrip("_"))] = n
    return out


# Wizard of Odds, blackjack appendix 9 (combinatorial, composition-dependent EVs of the
# two-card hands against an ace, no dealer blackjack under a peek): stand, hit, double.
ONE_DECK_S17 = Rules(decks=1)
TWO_DECK_H17 = Rules(decks=2, dealer_hits_soft_17=True)
SIX_DECK_ENHC = Rules(decks=6, dealer_hits_soft_17=True, hole_card="none", insurance=False)
WIZARD_APPENDIX_9 = [
    (ONE_DECK_S17, "2S AH", (-0.661732, -0.067808, -0.593281)),
    (ONE_DECK_S17, "3S 2H", (-0.659375, -0.291565, -1.318751)),
    (ONE_DECK_S17, "6S 5H", (-0.634013, 0.172946, 0.240259)),
    (ONE_DECK_S17, "7S AH", (-0.101015, -0.108386, -0.357778)),
    (TWO_DECK_H17, "2S AH", (-0.594150, -0.103429, -0.571816)),
    (TWO_DECK_H17, "6S 4H", (-0.587412, 0.038312, -0.003909)),
    (SIX_DECK_ENHC, "2S AH", (-0.722356, -0.379910, -1.024099)),
    (SIX_DECK_ENHC, "6S 5H", (-0.720879, -0.235772, -0.535879)),
    (SIX_DECK_ENHC, "7S AH", (-0.466029, -0.421285, -0.909374)),
]


@pytest.mark.parametrize("rules, cards, want", WIZARD_APPENDIX_9)
def test_full_shoe_values_match_published_appendix(rules: Rules, cards: str, want) -> None:
    pool = rank_counts(rules, cards + " AC")
    got = action_values(rules, pool, cards, "A")
    for action, value in zip((S, H, D), want, strict=True):
        assert got[action] == pytest.approx(value, abs=1.5e-6), action.name


# ------------------------------------------------------------------ by hand
def test_tiny_pool_worked_by_hand() -> None:
    # T-6 against a 6, unseen: one 5 and two tens. Standing: the hole card is the 5
    # (1/3: 11, then a ten: 21) or a ten (2/3: 16, then the 5 -> 21 or the ten -> bust):
    # the dealer busts 1/3 -> EV 1/3 - 2/3. Hitting: the 5 (1/3) makes 21 and leaves two
    # tens (dealer 16, busts): +1; a ten (2/3) busts: EV -1/3. Doubling: twice that.
    got = action_values(Rules(decks=1), counts(_5=1, T=2), "TS 6H", "6")
    assert got == pytest.approx({S: -1 / 3, H: -1 / 3, D: -2 / 3})


def test_split_into_a_pool_of_tens() -> None:
    # 8-8 against a 7 with only tens left: each split hand makes 18, the dealer 17.
    got = action_values(Rules(decks=1), counts(T=12), "8S 8H", "7")
    assert got == pytest.approx({S: -1.0, H: -1.0, D: -2.0, P: 2.0})


def test_values_are_conditioned_on_no_dealer_blackjack_after_the_peek() -> None:
    # T-7 against an ace, unseen: three tens and an ace. No blackjack means the hole card
    # is the ace: soft 12, then ten, ten: the dealer busts. Stand wins; a hit busts.
    pool = counts(A=1, T=3)
    got = action_values(Rules(decks=1), pool, "TS 7H", "A")
    assert got == pytest.approx({S: 1.0, H: -1.0, D: -2.0})
    # without a peek the dealer's second card is a ten 3/4 of the time: blackjack
    enhc = Rules(decks=1, hole_card="none", insurance=False)
    assert action_values(enhc, pool, "TS 7H", "A")[S] == pytest.approx(-0.5)
    # before the peek (early surrender): play on = 3/4 * -1 + 1/4 * +1
    early = Rules(decks=1, surrender="early")
    pre = pre_peek_values(early, pool, "TS 7H", "A")
    assert pre == pytest.approx({Action.DECLINE: -0.5, R: -0.5})


def test_late_surrender_and_three_card_hands() -> None:
    rules = Rules(decks=1, surrender="late")
    pool = rank_counts(rules, "TS 6H TD")
    two = action_values(rules, pool, "TS 6H", "T")
    assert two[R] == -0.5 and set(two) == {S, H, D, R}
    pool3 = rank_counts(rules, "TS 4H 2C TD")
    three = action_values(rules, pool3, "TS 4H 2C", "T")
    assert set(three) == {S, H}  # only stand and hit after the first decision
    # the stand value of a 16 does not care how it was made, only which cards are out
    alone = action_values(rules, pool3, "4H 2C TS", "T")
    assert alone[S] == pytest.approx(three[S])


# ------------------------------------------------------------------ limits and checks
def test_infinite_deck_limit_of_action_values() -> None:
    """Off 5000 decks the values are those of the infinite deck (``solve``)."""
    rules = Rules(decks=1)
    infinite = solve(rules.replace(decks=None))
    huge = [4 * 5000] * 13
    for cards, up, cell in (
        ("TS 6H", "T", ("hard", 16, "T")),
        ("AS 7H", "9", ("soft", 18, "9")),
        ("8S 8H", "T", ("pair", "8", "T")),
    ):
        pool = list(huge)
        for card in parse_cards(cards + " " + up + "C"):
            pool[card.rank - 1] -= 1
        got_cell = action_values(rules, pool, cards, up)
        want = infinite.action_evs[cell]
        for action, value in want.items():
            assert got_cell[action] == pytest.approx(value, abs=2e-4), (cards, up, action)


@pytest.mark.slow
def test_infinite_deck_limit_of_the_return() -> None:
    rules = Rules(decks=1, surrender="late")
    infinite = solve(rules.replace(decks=None)).expected_return
    got = composition_return(rules, [4 * 5000] * 13).expected_return
    assert got == pytest.approx(infinite, abs=2e-5)
    eight = composition_return(rules.replace(decks=8)).expected_return
    assert abs(got - infinite) < abs(eight - infinite) / 100


def test_one_deck_composition_return_beats_total_dependent() -> None:
    """The composition-dependent optimum is above the total-dependent basic strategy of
    the same shoe by a few hundredths of a percent at one deck (Farmer, Wizard of Odds)."""
    rules = Rules(decks=1)
    cdz = composition_return(rules)
    td = finite_shoe_return(rules).expected_return
    gain = 100 * (cdz.expected_return - td)
    assert 0.02 < gain < 0.08
    assert set(cdz.upcard_returns) == set("A23456789TJQK")
    # ten-valued upcards are one class with the same counts: the same return
    assert cdz.upcard_returns["T"] == cdz.upcard_returns["K"]


@pytest.mark.slow
def test_farmer_six_deck_cdz_figure() -> None:
    """Eric Farmer: -0.4029% for 6 decks, S17, DAS, double any two, split to 4, no
    resplit of aces, no surrender, 3:2, peek (CDZ-). Agreement within 0.005 points."""
    rules = Rules(decks=6, surrender="none", resplit_aces=False, max_split_hands=4)
    got = 100 * composition_return(rules).expected_return
    assert got == pytest.approx(-0.4029, abs=0.005)
    td = 100 * finite_shoe_return(rules).expected_return
    assert 0 < got - td < 0.01  # the composition-dependent gain at six decks


# Griffin, The Theory of Blackjack: effects of removing one card from a single deck on
# the basic strategy player's return (percent), as tabulated e.g. at
# http://www.averagejoeblackjack.com/cardeffect.html (S17, double any two, no DAS).
GRIFFIN_ONE_DECK = {
    "A": -0.61, "2": 0.38, "3": 0.44, "4": 0.55, "5": 0.69,
    "6": 0.46, "7": 0.28, "8": 0.00, "9": -0.18, "T": -0.51,
}  # fmt: skip


@pytest.mark.slow
def test_effects_of_removal_single_deck_against_griffin() -> None:
    rules = Rules(decks=1, double_after_split=False)
    eor = {k: 100 * v for k, v in effects_of_removal(rules).items()}
    assert eor["J"] == eor["Q"] == eor["K"] == eor["T"]
    for rank, published in GRIFFIN_ONE_DECK.items():
        assert eor[rank] == pytest.approx(published, abs=0.06), rank
    got = np.array([eor[k] for k in GRIFFIN_ONE_DECK])
    want = np.array(list(GRIFFIN_ONE_DECK.values()))
    assert np.corrcoef(got, want)[0, 1] > 0.99


# ------------------------------------------------------------------ pools and tables
def test_pool_from_shoe_cards_and_counts() -> None:
    rules = Rules(decks=2)
    shoe = Shoe(2, np.random.default_rng(0))
    drawn = [shoe.draw() for _ in range(5)]
    want = [8] * 13
    for card in drawn:
        want[card.rank - 1] -= 1
    assert pool_from(rules, shoe) == want
    assert pool_from(rules, "AS AH 5D") == counts(A=2, _5=1)
    assert pool_from(rules, tuple(want)) == want


def test_table_pool_counts_the_hole_card_as_unseen() -> None:
    rules = Rules(decks=1, insurance=False)
    table = Table(rules, seed=3)
    table.shoe.stack("TS 9H 6D 5C")
    table.bet(0, 1)
    table.deal()
    assert table.phase is Phase.PLAYER_TURNS
    pool = table_pool(table)
    assert sum(pool) == 52 - 3 and pool[4] == 4  # the hole card (a 5) is unseen
    values = table_action_values(table)
    assert values == pytest.approx(action_values(rules, pool, "TS 6D", "9H"))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(remaining=[4] * 12), "13 non-negative int counts"),
        (dict(remaining=[4] * 12 + [-1]), "13 non-negative int counts"),
        (dict(hand="TS"), "two or more cards"),
        (dict(hand="TS 9H 5D"), "bust"),
        (dict(hands=5), "hands=5"),
        (dict(from_split=True), "from_split=True needs hands >= 2"),
        (dict(hands=2, from_split=True, waiting=2), "waiting=2"),
        (dict(upcard="X"), "upcard"),
        (dict(remaining=Shoe(None, np.random.default_rng(0))), "infinite"),
    ],
)
def test_bad_input_raises_one_clear_error(kwargs, message) -> None:
    args = dict(remaining=[4] * 13, hand="TS 6H", upcard="T")
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        action_values(
            Rules(decks=1), args.pop("remaining"), args.pop("hand"), args.pop("upcard"), **args
        )


def test_unsupported_rules_and_infinite_decks_are_refused() -> None:
    with pytest.raises(ValueError, match="settlement"):
        action_values(preset("terminal-21"), [4] * 13, "TS 6H", "T")
    with pytest.raises(ValueError, match="finite shoe"):
        composition_return(Rules(decks=None))
    with pytest.raises(ValueError, match="finite shoe"):
        effects_of_removal(Rules(decks=None))


def _finite_presets() -> list[Rules]:
    out = []
    for name in (
        "vegas-strip",
        "downtown-h17",
        "single-deck-6to5",
        "european-no-hole-card",
        "gymnasium-natural",
        "ood-book",
        "browser-game",
        "how-to-play",
    ):
        rules = preset(name)
        out.append(rules.replace(decks=2, penetration=None) if rules.decks is None else rules)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("rules", _finite_presets(), ids=lambda r: r.summary()[:40])
def test_composition_return_is_at_least_the_total_dependent_return(rules: Rules) -> None:
    """Every supported preset: the composition-dependent optimum is never below the
    total-dependent basic strategy of the same shoe, and not far above it."""
    cdz = composition_return(rules).expected_return
    td = finite_shoe_return(rules).expected_return
    assert td - 1e-9 <= cdz <= td + 0.001


def test_effects_of_removal_from_a_small_pool() -> None:
    rules = Rules(decks=1)
    pool = [1, 2, 1, 1, 2, 2, 1, 1, 1, 2, 2, 0, 0]  # 16 cards, no queen or king
    eor = effects_of_removal(rules, pool)
    assert "K" not in eor and "Q" not in eor and len(eor) == 11
    base = composition_return(rules, pool).expected_return
    for rank in ("A", "5", "T", "J"):
        less = list(pool)
        less["A23456789TJQK".index(rank)] -= 1
        want = composition_return(rules, less).expected_return - base
        assert eor[rank] == pytest.approx(want, abs=1e-12)
    assert eor["T"] == eor["J"]  # same class, same count: interchangeable
    assert eor["5"] > 0 > eor["T"]  # fives help the dealer, tens the player
