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


def random_gradable_rules(rng: np.random.Generator) -> Rules:
    """A random infinite-deck rule set the exact analysis serves: every rule of play drawn
    (payouts with denominators up to 6, value splits, custom card values now and then),
    one seat, dealer settlement, no bet raising."""
    from blackjack_env.analysis.model import check_supported
    from blackjack_env.engine.rules import (
        STANDARD_VALUES,
        DoubleRule,
        HoleCard,
        SplitBet,
        SplitBy,
        Surrender,
        TieRule,
    )

    while True:
        split_bet = SplitBet(rng.choice([m.value for m in SplitBet]))
        hole = HoleCard(rng.choice([m.value for m in HoleCard]))
        ends = bool(rng.random() < 0.8)
        values = STANDARD_VALUES
        if rng.random() < 0.15:
            values = (1, *(int(v) for v in rng.integers(2, 11, 12)))
        try:
            rules = Rules(
                decks=None,
                dealer_hits_soft_17=bool(rng.random() < 0.5),
                hole_card=hole,
                blackjack_payout=f"{int(rng.integers(1, 13))}:{int(rng.integers(1, 7))}",
                natural_beats_21=bool(rng.random() < 0.7),
                dealer_natural_beats_21=bool(rng.random() < 0.7),
                natural_ends_hand=ends,
                natural_paid_at_deal=ends and bool(rng.random() < 0.3),
                blackjack_after_split=bool(rng.random() < 0.4),
                ties=TieRule(rng.choice([m.value for m in TieRule])),
                double=DoubleRule(rng.choice([m.value for m in DoubleRule])),
                double_after_split=bool(rng.random() < 0.6),
                max_split_hands=int(rng.integers(1, 3 if split_bet is SplitBet.HALVE else 5)),
                resplit_aces=bool(rng.random() < 0.4),
                hit_split_aces=bool(rng.random() < 0.3),
                split_by=SplitBy(rng.choice([m.value for m in SplitBy])),
                split_bet=split_bet,
                surrender=Surrender(rng.choice([m.value for m in Surrender])),
                insurance=hole is HoleCard.PEEK and bool(rng.random() < 0.7),
                auto_stand_21=bool(rng.random() < 0.7),
                card_values=values,
            )  # fmt: skip
            check_supported(rules)
            return rules
        except ValueError:
            continue
