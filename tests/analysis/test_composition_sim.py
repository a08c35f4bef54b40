"""Composition-dependent values against the engine: rounds dealt from a shoe that holds
exactly the given unseen cards (full, lightly and heavily depleted), played through
``Table`` by the ``composition`` seat strategy, within 99% confidence intervals."""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.analysis import CompositionStrategy, action_values, composition_return
from blackjack_env.analysis.dealer import rank_counts
from blackjack_env.engine import Action, Rules, Table, preset
from blackjack_env.strategies import make_strategy, play_until
from tests.analysis.composition_helpers import (
    assert_in_ci,
    play_rounds,
    pool_cards,
    shoe_holding,
    split_plan_policy,
)

S, H, D, P, R = Action.STAND, Action.HIT, Action.DOUBLE, Action.SPLIT, Action.SURRENDER

ONE = Rules(decks=1)
TWO_H17_LS = Rules(decks=2, dealer_hits_soft_17=True, surrender="late")
SIX_ENHC = Rules(
    decks=6, hole_card="none", insurance=False, dealer_hits_soft_17=True, surrender="late"
)
OOD = preset("ood-book")  # 1 deck, no peek, hit/stand only, a natural may be hit

#   rules, unseen cards by rank (A..K), hand, upcard, actions
CASES = [
    (ONE, rank_counts(ONE, "TS 6H 9D"), "TS 6H", "9D", (S, H, D)),
    (TWO_H17_LS, [5, 8, 8, 2, 1, 6, 8, 8, 8, 8, 8, 8, 7], "AS 7H", "TD", (S, H, D, R)),
    (SIX_ENHC, [24, 10, 12, 15, 24, 24, 24, 24, 24, 24, 24, 24, 23], "TS 2H 3C", "AD", (S, H)),
    (OOD, [1, 1, 1, 1, 1, 2, 1, 1, 2, 3, 2, 1, 1], "5S 4H 2D", "7C", (S, H)),
    (ONE, [2, 2, 1, 3, 2, 1, 1, 1, 2, 3, 3, 2, 2], "9S 2H", "6D", (S, H, D)),
]
IDS = ["1-deck", "2-deck-h17-late", "6-deck-enhc-3-cards", "ood-18-cards", "25-cards"]


@pytest.mark.parametrize("rules, pool, hand, up, actions", CASES, ids=IDS)
def test_hit_value_agrees_with_the_engine(rules, pool, hand, up, actions) -> None:
    """HIT plays on with the composition strategy at the table: the same decisions the
    exact value assumes (the pool is unchanged by the player's own draws)."""
    exact = action_values(rules, pool, hand, up)[H]
    mean, se, _ = play_rounds(rules, pool, hand, up, H, 1500, seed=11)
    assert_in_ci(mean, se, exact, f"{hand} v {up} HIT")


@pytest.mark.slow
@pytest.mark.parametrize("rules, pool, hand, up, actions", CASES, ids=IDS)
def test_every_exact_action_agrees_with_the_engine(rules, pool, hand, up, actions) -> None:
    values = action_values(rules, pool, hand, up)
    assert set(actions) <= set(values)
    for i, action in enumerate(actions):
        mean, se, _ = play_rounds(rules, pool, hand, up, action, 30000, seed=100 + i)
        assert_in_ci(mean, se, values[action], f"{hand} v {up} {action.name}")


# Split approximation: measured error against the engine playing the same strategy
# (100,000 rounds each, see the composition module docstring); the slack is the bound
# stated there.
SPLIT_SLACK = 0.01
SPLIT_CASES = [
    (ONE, rank_counts(ONE, "8S 8H TD"), "8S 8H", "TD"),
    (ONE, rank_counts(ONE, "2S 2H 5D"), "2S 2H", "5D"),
    (ONE, [2, 2, 1, 3, 2, 1, 1, 1, 2, 3, 3, 2, 2], "8S 8H", "TD"),
]


@pytest.mark.slow
@pytest.mark.parametrize("rules, pool, hand, up", SPLIT_CASES)
def test_split_approximation_against_the_engine(rules, pool, hand, up) -> None:
    approx = action_values(rules, pool, hand, up)[P]
    policy = split_plan_policy(rules, pool, hand, up)
    mean, se, _ = play_rounds(rules, pool, hand, up, P, 60000, seed=5, policy=policy)
    assert_in_ci(mean, se, approx, f"{hand} v {up} SPLIT", slack=SPLIT_SLACK)


def test_split_into_tens_is_exact_at_the_table() -> None:
    pool = [0] * 9 + [4, 4, 2, 2]
    approx = action_values(ONE, pool, "8S 8H", "7D")[P]
    mean, se, n = play_rounds(ONE, pool, "8S 8H", "7D", P, 50, seed=1)
    assert approx == mean == 2.0 and se == 0.0 and n == 50


# ------------------------------------------------------------------ the seat strategy
def test_composition_strategy_is_registered_and_plays_legal_actions() -> None:
    rules = Rules(decks=2, surrender="early")
    strategy = make_strategy("composition", rules)
    assert isinstance(strategy, CompositionStrategy)
    table = Table(rules, seed=4)
    for _ in range(40):
        table.bet(0, 2)
        table.deal()
        while table.to_act is not None:
            action = strategy(table)
            assert action in table.legal_actions()
            table.act(action)
        table.new_round()


def test_composition_strategy_on_an_infinite_deck_plays_basic() -> None:
    rules = Rules(decks=None, insurance=True)
    comp, basic = make_strategy("composition", rules), make_strategy("basic", rules)
    for seed in range(20):
        a, b = Table(rules, seed=seed), Table(rules, seed=seed)
        for table, strategy in ((a, comp), (b, basic)):
            table.bet(0, 2)
            table.deal()
            play_until(table, {0: strategy})
        assert a.seats[0].net == b.seats[0].net


def _fresh_deck_rounds(rules: Rules, rounds: int, seed: int) -> tuple[float, float]:
    table = Table(rules, seed=seed)
    strategy = CompositionStrategy(rules)
    nets = np.empty(rounds)
    for i in range(rounds):
        table.bet(0, 2)
        table.deal()
        play_until(table, {0: strategy})
        nets[i] = float(table.seats[0].net) / 2.0
        table.new_round()
    return float(nets.mean()), float(nets.std(ddof=1) / np.sqrt(rounds))


@pytest.mark.parametrize("rounds", [4000, pytest.param(60000, marks=pytest.mark.slow)])
def test_composition_strategy_reaches_the_composition_return(rounds: int) -> None:
    """A single deck shuffled before every round: the seat strategy's mean result is the
    CDZ- return of a full deck (insurance never taken)."""
    rules = Rules(decks=1, penetration=None, insurance=False)
    exact = composition_return(rules).expected_return
    mean, se = _fresh_deck_rounds(rules, rounds, seed=2)
    assert_in_ci(mean, se, exact, "composition strategy, fresh single deck")


def test_shoe_holding_holds_exactly_the_pool() -> None:
    pool = [1, 0, 3, 0, 0, 0, 0, 0, 0, 9, 0, 0, 2]
    shoe = shoe_holding(pool_cards(pool), np.random.default_rng(0))
    assert shoe.remaining_by_rank() == pool and shoe.remaining == sum(pool)
