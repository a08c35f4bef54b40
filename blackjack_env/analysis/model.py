"""Shared pieces of the analysis: which rules are supported, card classes, hand keys.

The analysis reads the same :class:`~blackjack_env.engine.rules.Rules` as the
engine and mirrors the engine's semantics (``blackjack_env/engine/table.py``)
exactly; this module keeps the few rule-derived facts every solver needs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from blackjack_env.engine.play import (
    BUST_CATEGORY,
    NATURAL_CATEGORY,
    NUM_CATEGORIES,
    dealer_peeks,
    natural_stands,
    outcome,
    pair_class,
    payout,
    split_allowed,
    split_hand_done,
)
from blackjack_env.engine.rules import Rules, Settlement, SplitBy

__all__ = [
    "OUTCOMES",
    "CardModel",
    "check_supported",
    "expected",
    "natural_stands",
    "settle_values",
    "split_hand_settled",
]

#: Names of the dealer outcome slots, in the order used by every probability vector.
OUTCOMES: tuple[str, ...] = ("17", "18", "19", "20", "21", "bust", "blackjack")
#: The same slots as hand categories of the rules of play (engine/play.py).
DEALER_CATEGORIES: tuple[int, ...] = (17, 18, 19, 20, 21, BUST_CATEGORY, NATURAL_CATEGORY)

BUST = 5
BJ = 6


def settle_values(rules: Rules) -> np.ndarray:
    """``(24, 7)``: the net result per unit staked of a standing hand of each category
    (``engine.play.category``) against each dealer slot, from the engine's
    ``outcome`` and ``payout``."""
    return np.array(
        [
            [float(payout(rules, outcome(rules, p, d))) for d in DEALER_CATEGORIES]
            for p in range(NUM_CATEGORIES)
        ]
    )


def split_hand_settled(
    rules: Rules, *, split_aces: bool, pair: bool, hands: int, natural: bool, total: int
) -> bool:
    """A split hand that just received its second card needs no decision: the engine's
    ``split_hand_done``, with whether it may split again from ``split_allowed``."""
    can_split = split_allowed(rules, pair=pair, hands=hands, split_aces=split_aces)
    return split_hand_done(
        rules, split_aces=split_aces, can_split=can_split, natural=natural, total=total
    )


def expected(values: np.ndarray, probs: np.ndarray) -> float:
    """Expected result of a row of :func:`settle_values` under dealer slot probabilities
    (the row's value itself when it does not depend on the dealer, e.g. a bust)."""
    first = values[0]
    if (values == first).all():
        return float(first)
    return float(np.dot(values, probs))


def check_supported(rules: Rules) -> None:
    """Raise ``ValueError`` for rules the exact analysis cannot express.

    * ``settlement='highest-hand'``: a hand's result depends on the other seats'
      hands, so there is no per-seat expected return.
    * ``bet_raising=True``: raising the bet mid-hand is an unbounded betting
      decision, not a playing decision.
    * ``split_by='value'`` with a non-ace card worth 1: an ace and such a card
      then make a pair whose split hands follow different rules (only the ace
      hand is a split-ace hand), which the analysis does not model.
    """
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a blackjack_env Rules, got {type(rules).__name__}")
    if rules.settlement is not Settlement.DEALER:
        raise ValueError(
            f"settlement={rules.settlement.value!r} is not supported by the exact analysis: "
            f"a hand's result depends on the other seats' hands; use settlement='dealer'"
        )
    if rules.bet_raising:
        raise ValueError(
            "bet_raising=True is not supported by the exact analysis (raising is a betting "
            "decision, not a playing one); use bet_raising=False"
        )
    if rules.split_by is SplitBy.VALUE and 1 in rules.card_values[1:]:
        raise ValueError(
            "split_by='value' with a non-ace card worth 1 is not supported by the exact "
            "analysis (an ace and that card would pair into hands with different rules); "
            "use split_by='rank'"
        )


@dataclass(frozen=True)
class CardModel:
    """Rule-derived card facts.

    ``values[r]`` is the point value of rank ``r`` (1..13, index 0 unused);
    ``classes`` lists the distinct ``(value, is_ace)`` card classes with the
    ranks in each (a class decides everything except rank pairs).
    """

    rules: Rules

    @property
    def values(self) -> tuple[int, ...]:
        return (0, *self.rules.card_values)

    @property
    def classes(self) -> tuple[tuple[int, bool, tuple[int, ...]], ...]:
        found: dict[tuple[int, bool], list[int]] = {}
        for rank in range(1, 14):
            found.setdefault((self.values[rank], rank == 1), []).append(rank)
        return tuple((v, a, tuple(rs)) for (v, a), rs in sorted(found.items()))

    @property
    def class_of_rank(self) -> tuple[int, ...]:
        """The index in :attr:`classes` of each rank's class (13 entries, ace to king)."""
        out = [0] * 13
        for j, (_, _, ranks) in enumerate(self.classes):
            for rank in ranks:
                out[rank - 1] = j
        return tuple(out)

    @property
    def ace_class(self) -> int:
        """The index in :attr:`classes` of the ace's class."""
        return next(j for j, (_, ace, _) in enumerate(self.classes) if ace)

    def pair_class(self, rank: int) -> int:
        """The key under which two cards make a pair: the rank, or the value
        (``engine.play.pair_class``)."""
        return pair_class(self.rules, rank)

    def peek_possible(self, up_value: int, up_ace: bool) -> bool:
        """``engine.play.dealer_peeks``: the dealer peeks with an ace or a ten-value card up."""
        return dealer_peeks(self.rules, up_value, up_ace)

