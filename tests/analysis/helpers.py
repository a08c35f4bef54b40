"""Shared helpers: a deterministic 'scrambled' policy and engine simulation with a 99% CI."""

from __future__ import annotations

import zlib
from collections.abc import Callable

import numpy as np

from blackjack_env.analysis import DecisionState, table_state
from blackjack_env.engine import Action, Rules, Table

Z99 = 2.5758293035489004  # two-sided 99% normal quantile


def scrambled_policy(state: DecisionState) -> Action:
    """A legal action chosen by a hash of the visible state: deterministic, arbitrary,
    and it exercises every action the rules allow (doubles, splits, hitting 21...)."""
    key = (
        state.total, state.soft, state.cards, state.pair, state.dealer, state.natural,
        state.split, state.split_aces, state.hands, state.pre_peek,
    )
    legal = state.legal
    return legal[zlib.crc32(repr(key).encode()) % len(legal)]


def simulate(
    rules: Rules, policy: Callable[[DecisionState], Action], rounds: int, seed: int
) -> tuple[float, float]:
    """Play ``rounds`` rounds of one seat through the engine; (mean net per unit bet, std error).

    The bet is 2 chips so that ``split_bet='halve'`` can split; results are divided by 2.
    """
    table = Table(rules, seed=seed)
    nets = np.empty(rounds)
    for i in range(rounds):
        table.bet(0, 2)
        table.deal()
        while table.to_act is not None:
            table.act(policy(table_state(table)))
        nets[i] = float(table.seats[0].net) / 2.0
        table.new_round()
    return float(nets.mean()), float(nets.std(ddof=1) / np.sqrt(rounds))


def assert_in_ci(mean: float, se: float, exact: float, what: str) -> None:
    """The simulated mean lies within the 99% confidence interval around the exact value."""
    assert abs(mean - exact) <= Z99 * se, (
        f"{what}: simulated {mean:+.5f} ± {Z99 * se:.5f} (99% CI) does not contain the "
        f"exact value {exact:+.5f}"
    )
