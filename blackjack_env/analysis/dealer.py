"""The dealer's final-hand probabilities for an upcard.

Outcomes are ``17, 18, 19, 20, 21`` (a 21 of three or more cards), ``bust``
and ``blackjack`` (a two-card 21), in the order of :data:`OUTCOMES`. The dealer
draws by the engine's rule (:func:`~blackjack_env.engine.play.dealer_draws`, which
``Table`` plays by too): while the total is below 17, or is a soft 17 under H17.

Under ``hole_card='peek'`` with an ace or ten-value upcard, the probabilities
are by default *conditioned on no dealer blackjack* (the players act only after
the peek): the blackjack mass is removed and the rest renormalised, which is
exact for both an infinite deck and a finite shoe (a blackjack is decided by
the hole card alone).

Infinite deck: every rank has probability 1/13 on every draw. Finite shoe:
cards are drawn without replacement from ``rules.shoe_decks`` decks minus the
upcard and any ``removed`` cards (e.g. the player's cards).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

import numpy as np

from blackjack_env.analysis._model import BJ, BUST, OUTCOMES
from blackjack_env.engine.cards import Card, Rank, parse_cards
from blackjack_env.engine.play import dealer_draws, dealer_peeks, score
from blackjack_env.engine.rules import Rules

__all__ = [
    "OUTCOMES",
    "dealer_probabilities",
    "dealer_vector",
    "final_distribution",
    "rank_counts",
    "upcard_rank",
]


def upcard_rank(rules: Rules, upcard: Rank | str | int) -> int:
    """A rank number 1..13 from a :class:`Rank`, a rank letter ("A", "T", "K"), or a
    point value 1..10 (1 = the ace; otherwise the lowest rank with that value)."""
    if isinstance(upcard, Rank):
        return int(upcard)
    if isinstance(upcard, str):
        text = upcard.strip().upper()
        text = "T" if text == "10" else text
        letters = "A23456789TJQK"
        if len(text) == 1 and text in letters:
            return letters.index(text) + 1
        raise ValueError(f"upcard {upcard!r} is not a rank; use A 2 .. 9 T J Q K")
    if isinstance(upcard, (int, np.integer)) and not isinstance(upcard, bool):
        value = int(upcard)
        if value == 1:
            return 1
        for rank in range(2, 14):
            if rules.card_values[rank - 1] == value:
                return rank
    raise ValueError(
        f"upcard {upcard!r} is not a card value of these rules; use a Rank, a rank "
        f"letter, or a value among {sorted(set(rules.card_values))}"
    )


def rank_counts(rules: Rules, removed: Iterable[Card] | str | Sequence[int] | None) -> list[int]:
    """Cards left in a full shoe of ``rules.shoe_decks`` decks after ``removed``, by rank.

    ``removed`` is a card string ("AS 5H"), a list of cards, or 13 counts by rank
    (ace to king). Removing more cards than the shoe holds raises ``ValueError``.
    """
    decks = rules.shoe_decks
    if decks is None:
        raise ValueError("rank_counts needs a finite shoe (rules.decks is None)")
    left = [4 * decks] * 13
    if removed is None:
        return left
    if isinstance(removed, str):
        removed = parse_cards(removed)
    items = list(removed)
    if items and all(isinstance(c, Card) for c in items):
        for card in items:
            left[card.rank - 1] -= 1
    else:
        if len(items) != 13 or not all(isinstance(n, (int, np.integer)) for n in items):
            raise ValueError(
                "removed must be cards ('AS 5H' or Card objects) or 13 counts by rank, ace to king"
            )
        left = [a - int(b) for a, b in zip(left, items, strict=True)]
    if min(left) < 0:
        raise ValueError(
            f"removed takes more cards of some rank than {decks} deck(s) hold: left {left}"
        )
    return left


def _stands(hard: int, ace: bool, rules: Rules) -> int | None:
    """Outcome index when the dealer stops at (hard, ace) with >= 2 cards, else None
    (the engine's drawing rule, ``engine.play.dealer_draws``)."""
    if hard > 21:
        return BUST
    total, soft = score(hard, ace)
    if dealer_draws(rules, total, soft):
        return None
    return total - 17


@lru_cache(maxsize=256)
def _after(rules: Rules) -> Callable[[int, bool], np.ndarray]:
    """Infinite deck: ``after(hard, ace)``, the final-hand probabilities of a dealer
    holding two or more cards (not a two-card blackjack), memoised."""
    values = rules.card_values
    draws: dict[tuple[int, bool], float] = {}
    for rank in range(1, 14):
        key = (values[rank - 1], rank == 1)
        draws[key] = draws.get(key, 0.0) + 1.0 / 13.0
    memo: dict[tuple[int, bool], np.ndarray] = {}

    def after(hard: int, ace: bool) -> np.ndarray:
        got = memo.get((hard, ace))
        if got is not None:
            return got
        out = np.zeros(7)
        stop = _stands(hard, ace, rules)
        if stop is not None:
            out[stop] = 1.0
        else:
            for (v, a), p in draws.items():
                out += p * after(hard + v, ace or a)
        memo[(hard, ace)] = out
        return out

    return after


def final_distribution(rules: Rules, hard: int, ace: bool) -> np.ndarray:
    """Infinite deck: probabilities (order :data:`OUTCOMES`) of the dealer's final hand
    from a hand of two or more cards adding to ``hard`` (aces as 1), ``ace`` when it
    holds one, that is not a two-card blackjack (its ``blackjack`` slot is 0)."""
    return _after(rules)(hard, ace).copy()


@lru_cache(maxsize=4096)
def _infinite(rules: Rules, up_rank: int) -> tuple[float, ...]:
    """Unconditioned dealer outcome probabilities for an infinite deck."""
    values = rules.card_values
    after = _after(rules)
    draws: dict[tuple[int, bool], float] = {}
    for rank in range(1, 14):
        key = (values[rank - 1], rank == 1)
        draws[key] = draws.get(key, 0.0) + 1.0 / 13.0

    up_v, up_a = values[up_rank - 1], up_rank == 1
    total = np.zeros(7)
    for (v, a), p in draws.items():
        hard, ace = up_v + v, up_a or a
        if hard == 11 and ace and (up_a != a):  # exactly one ace and a ten-value card
            total[BJ] += p
        else:
            total += p * after(hard, ace)
    return tuple(float(x) for x in total)


def _finite(rules: Rules, up_rank: int, counts: tuple[int, ...]) -> np.ndarray:
    """Unconditioned dealer outcome probabilities, drawing without replacement."""
    values = rules.card_values
    left = list(counts)
    classes: dict[tuple[int, bool], list[int]] = {}
    for rank in range(1, 14):
        classes.setdefault((values[rank - 1], rank == 1), []).append(rank)
    keys = list(classes)
    cls_left = [sum(left[r - 1] for r in classes[k]) for k in keys]
    n_left = sum(cls_left)

    def after(hard: int, ace: bool, remaining: int) -> np.ndarray:
        out = np.zeros(7)
        stop = _stands(hard, ace, rules)
        if stop is not None:
            out[stop] = 1.0
            return out
        for i, (v, a) in enumerate(keys):
            c = cls_left[i]
            if c == 0:
                continue
            cls_left[i] -= 1
            out += (c / remaining) * after(hard + v, ace or a, remaining - 1)
            cls_left[i] += 1
        return out

    up_v, up_a = values[up_rank - 1], up_rank == 1
    out = np.zeros(7)
    for i, (v, a) in enumerate(keys):
        c = cls_left[i]
        if c == 0:
            continue
        hard, ace = up_v + v, up_a or a
        if hard == 11 and ace and (up_a != a):
            out[BJ] += c / n_left
            continue
        cls_left[i] -= 1
        out += (c / n_left) * after(hard, ace, n_left - 1)
        cls_left[i] += 1
    return out


def dealer_vector(
    rules: Rules,
    up_rank: int,
    counts: Sequence[int] | None = None,
    condition_on_no_blackjack: bool | None = None,
) -> np.ndarray:
    """Outcome probabilities as a length-7 array (order :data:`OUTCOMES`).

    ``counts``: cards left by rank, ace..king, *after* the upcard was removed
    (``None``: infinite deck). ``condition_on_no_blackjack``: default True
    when the rules peek and the upcard is an ace or ten-value card.
    """
    values = rules.card_values
    if counts is None:
        vec = np.array(_infinite(rules, up_rank))
    else:
        vec = _finite(rules, up_rank, tuple(int(c) for c in counts))
    if condition_on_no_blackjack is None:
        condition_on_no_blackjack = dealer_peeks(rules, values[up_rank - 1], up_rank == 1)
    if condition_on_no_blackjack and vec[BJ] > 0:
        vec = vec.copy()
        vec[BJ] = 0.0
        vec /= vec.sum()
    return vec


def dealer_probabilities(
    rules: Rules,
    upcard: Rank | str | int,
    removed: Iterable[Card] | str | Sequence[int] | None = None,
    *,
    finite: bool | None = None,
    condition_on_no_blackjack: bool | None = None,
) -> dict[str, float]:
    """Probabilities of the dealer's final hand for ``upcard``, as ``{outcome: p}``.

    Args:
        rules: the rule set (S17/H17, card values, hole card, decks).
        upcard: a :class:`Rank`, a rank letter, or a value (1 = ace).
        removed: for a finite shoe, cards known to be out besides the upcard
            (the player's cards...): a card string, Card list or 13 rank counts.
        finite: use the finite shoe of ``rules.shoe_decks`` decks (default:
            whenever ``rules.decks`` is not None). ``False`` forces an infinite deck.
        condition_on_no_blackjack: default True under a peek with an ace or
            ten-value upcard (the probabilities the players face after the peek).

    Example: ``dealer_probabilities(preset("vegas-strip", decks=None), "6")["bust"]``
    is about 0.4228.
    """
    up = upcard_rank(rules, upcard)
    use_finite = (rules.decks is not None) if finite is None else finite
    if use_finite:
        if rules.decks is None:
            raise ValueError("finite=True needs rules.decks set (got an infinite deck)")
        counts = rank_counts(rules, removed)
        if counts[up - 1] == 0:
            raise ValueError(f"no card of rank {up} left in the shoe for the upcard")
        counts[up - 1] -= 1
        vec = dealer_vector(rules, up, counts, condition_on_no_blackjack)
    else:
        if removed:
            raise ValueError("removed cards only make sense for a finite shoe (finite=True)")
        vec = dealer_vector(rules, up, None, condition_on_no_blackjack)
    return {name: float(p) for name, p in zip(OUTCOMES, vec, strict=True)}
