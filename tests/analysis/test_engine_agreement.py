"""The analysis agrees with the engine: policies simulated through Table have mean returns
inside the 99% confidence interval of the exact values (the long runs are marked slow)."""

from __future__ import annotations

import collections
import zlib
from statistics import NormalDist

import numpy as np
import pytest

from blackjack_env.analysis import (
    basic_strategy_chart,
    evaluate_policy,
    finite_shoe_return,
    solve,
    table_state,
)
from blackjack_env.analysis.infinite import RoundModel
from blackjack_env.analysis.state import as_policy
from blackjack_env.engine import Rules, Table, preset
from blackjack_env.strategies import make_strategy
from tests.analysis.helpers import Z99, assert_in_ci, scrambled_policy, simulate

ODD_RULES = Rules(
    decks=None, hole_card="no-peek", insurance=False, surrender="late",
    dealer_hits_soft_17=True, dealer_natural_beats_21=False, ties="player-loses",
    resplit_aces=True, max_split_hands=3,
)


def test_quick_unusual_rules_scrambled_policy() -> None:
    exact = evaluate_policy(ODD_RULES, scrambled_policy)
    mean, se = simulate(ODD_RULES, scrambled_policy, 30_000, seed=11)
    assert_in_ci(mean, se, exact, "no-peek/late/H17/ties-lose, scrambled policy")


def test_quick_basic_seat_strategy_infinite_deck() -> None:
    rules = preset("vegas-strip", decks=None, seats_per_deck=None)
    strategy = make_strategy("basic", rules)
    table = Table(rules, seed=3)
    n = 30_000
    nets = np.empty(n)
    for i in range(n):
        table.bet(0, 1)
        table.deal()
        while table.to_act is not None:
            table.act(strategy(table))
        nets[i] = float(table.seats[0].net)
        table.new_round()
    assert_in_ci(nets.mean(), nets.std(ddof=1) / np.sqrt(n), solve(rules).expected_return,
                 "basic strategy, Strip rules, infinite deck")


def test_quick_single_deck_no_splits_is_exact() -> None:
    """Without splits the finite-shoe analysis has no approximation at all."""
    rules = Rules(decks=1, penetration=None, max_split_hands=1, surrender="late")
    exact = finite_shoe_return(rules, scrambled_policy).expected_return
    mean, se = simulate(rules, scrambled_policy, 30_000, seed=5)
    assert_in_ci(mean, se, exact, "1 deck, no splits, scrambled policy")


# ------------------------------------------------------------------------ slow
INFINITE_VARIANTS = {
    "sutton-barto": preset("sutton-barto"),
    "gymnasium": preset("gymnasium"),
    "gymnasium-natural": preset("gymnasium-natural"),
    "strip": preset("vegas-strip", decks=None, seats_per_deck=None),
    "odd": ODD_RULES,
    "early-peek": Rules(decks=None, surrender="early"),
    "early-no-hole": Rules(decks=None, hole_card="none", insurance=False, surrender="early"),
    "late-no-hole": Rules(decks=None, hole_card="none", insurance=False, surrender="late"),
    "paid-at-deal": preset("how-to-play", decks=None, penetration=None),
    "natural-playable": Rules(decks=None, natural_ends_hand=False, auto_stand_21=False),
    "natural-auto-stood": Rules(decks=None, natural_ends_hand=False, natural_beats_21=False),
    "rsa-hsa-bas": Rules(decks=None, resplit_aces=True, hit_split_aces=True, max_split_hands=3,
                         blackjack_after_split=True),
    "value-halve": Rules(decks=None, split_by="value", split_bet="halve", max_split_hands=2,
                         ties="dealer-wins"),
    "9-11-no-das-8": Rules(decks=None, double="9-11", double_after_split=False,
                           max_split_hands=8),
    "custom-values": Rules(decks=None, card_values={"J": 1, "Q": 2, "K": 3}),
    "custom-values-early": Rules(decks=None, card_values={"J": 1, "Q": 2, "K": 3},
                                 surrender="early"),
    "natural-ties-21-peek": Rules(decks=None, natural_beats_21=False),
}


# Family-wise error of the per-upcard checks over the whole slow suite: 1%, shared by
# every upcard comparison of every slow infinite-deck test (Bonferroni).
_UPCARD_COMPARISONS = 2 * 13 * 17  # policies x upcard ranks x variants (bound)


def _per_upcard_check(rules: Rules, policy, rounds: int, seed: int, exact_of) -> None:
    """The overall mean in its 99% CI; each upcard's mean within a Bonferroni-corrected
    bound (1% family-wise over all per-upcard comparisons of the slow suite)."""
    table = Table(rules, seed=seed)
    per: dict[int, list[float]] = collections.defaultdict(list)
    for _ in range(rounds):
        table.bet(0, 2)
        table.deal()
        up = table.upcard.rank
        while table.to_act is not None:
            table.act(policy(table_state(table)))
        per[int(up)].append(float(table.seats[0].net) / 2)
        table.new_round()
    allv = np.concatenate([np.array(v) for v in per.values()])
    assert abs(allv.mean() - exact_of(None)) <= Z99 * allv.std(ddof=1) / np.sqrt(len(allv))
    z = NormalDist().inv_cdf(1 - 0.01 / (2 * _UPCARD_COMPARISONS))
    for up, values in per.items():
        arr = np.array(values)
        se = arr.std(ddof=1) / np.sqrt(len(arr))
        exact = exact_of(up)
        assert abs(arr.mean() - exact) <= z * se, (up, arr.mean(), exact, se, z)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(INFINITE_VARIANTS))
@pytest.mark.parametrize("which", ["basic", "scrambled"])
def test_slow_infinite_variants(name: str, which: str) -> None:
    rules = INFINITE_VARIANTS[name]
    policy = basic_strategy_chart(rules).action if which == "basic" else scrambled_policy
    checked = as_policy(policy)
    total = evaluate_policy(rules, policy)

    def exact_of(up: int | None) -> float:
        return total if up is None else RoundModel(rules, up, policy=checked).round_return()

    _per_upcard_check(rules, policy, 200_000, zlib.crc32(name.encode()), exact_of)


FINITE_VARIANTS = {
    # (rules, policies): splits use the documented approximation, so the scrambled policy
    # (which splits and resplits at random) is checked only where no split is possible
    "1d-std": (Rules(decks=1, penetration=None), ("basic",)),
    "1d-rsa-hsa": (Rules(decks=1, penetration=None, resplit_aces=True, hit_split_aces=True),
                   ("basic",)),
    "1d-no-split": (Rules(decks=1, penetration=None, max_split_hands=1), ("basic", "scrambled")),
    "1d-h17-late-no-peek": (Rules(decks=1, penetration=None, dealer_hits_soft_17=True,
                                  surrender="late", hole_card="no-peek", insurance=False),
                            ("basic",)),
    "1d-h17-late-no-peek-no-split": (Rules(decks=1, penetration=None, dealer_hits_soft_17=True,
                                           surrender="late", hole_card="no-peek",
                                           insurance=False, max_split_hands=1),
                                     ("scrambled",)),
    "2d-early-no-split": (Rules(decks=2, penetration=None, surrender="early",
                                max_split_hands=1), ("basic", "scrambled")),
    "1d-gym-like": (Rules(decks=1, penetration=None, hole_card="no-peek", insurance=False,
                          natural_ends_hand=False, auto_stand_21=False,
                          dealer_natural_beats_21=False, blackjack_payout=1, double="never",
                          max_split_hands=1), ("basic", "scrambled")),
    "6d-strip": (preset("vegas-strip", penetration=None), ("basic",)),
}
FINITE_CASES = [
    (name, which) for name, (_, whiches) in FINITE_VARIANTS.items() for which in whiches
]


@pytest.mark.slow
@pytest.mark.parametrize("name, which", FINITE_CASES)
def test_slow_finite_variants(name: str, which: str) -> None:
    """Reshuffled before every round (penetration None), so every round is off the top."""
    rules = FINITE_VARIANTS[name][0]
    policy = basic_strategy_chart(rules).action if which == "basic" else scrambled_policy
    exact = finite_shoe_return(rules, policy).expected_return
    mean, se = simulate(rules, policy, 200_000, seed=zlib.crc32(name.encode()))
    assert_in_ci(mean, se, exact, f"{name}, {which}")
