"""The dealer's final-hand probabilities for an upcard.

Outcomes are ``17, 18, 19, 20, 21`` (a 21 of three or more cards), ``bust``
and ``blackjack`` (a two-card 21), in the order of :data:`OUTCOMES`. The dealer
draws by the engine's rule (:func:`.dealer_draws`, which
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
from typing import cast

import numpy as np

from blackjack_env.analysis.model import BJ, BUST, OUTCOMES, CardModel
from blackjack_env.engine.cards import Card, Rank, parse_cards
from blackjack_env.engine.play import dealer_draws, dealer_peeks, is_natural, score
from blackjack_env.engine.rules import Rules

__all__ = [
    "OUTCOMES",
    "dealer_probabilities",
    "dealer_rows",
    "dealer_stop_table",
    "dealer_vector",
    "final_distribution",
    "hole_naturals",
    "natural_completer",
    "rank_counts",
    "upcard_rank",
]


def upcard_rank(rules: Rules, upcard: Rank | str | int) -> int:
    """A rank number 1..13 from a :class:`.Rank`, a rank letter ("A", "T", "K"), or a
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
        for card in cast("list[Card]", items):
            left[card.rank - 1] -= 1
    else:
        if len(items) != 13 or not all(isinstance(n, (int, np.integer)) for n in items):
            raise ValueError(
                "removed must be cards ('AS 5H' or Card objects) or 13 counts by rank, ace to king"
            )
        left = [a - int(cast("int", b)) for a, b in zip(left, items, strict=True)]
    if min(left) < 0:
        raise ValueError(
            f"removed takes more cards of some rank than {decks} deck(s) hold: left {left}"
        )
    return left


def _stands(hard: int, ace: bool, rules: Rules) -> int | None:
    """The one place the analysis decides where the dealer stops: the outcome index when
    a dealer hand of two or more cards adding to ``hard`` (aces as 1, ``ace`` when it
    holds one) stops, else None (it draws on, by the engine's ``engine.play.dealer_draws``)."""
    if hard > 21:
        return BUST
    total, soft = score(hard, ace)
    if dealer_draws(rules, total, soft):
        return None
    return total - 17


def _natural(up_hard: int, up_ace: bool, value: int, ace: bool) -> bool:
    """The upcard and the first card drawn (the hole card) make a dealer blackjack
    (``engine.play.is_natural`` of the two-card hand)."""
    return is_natural(2, up_hard + value, up_ace or ace)


@lru_cache(maxsize=64)
def _class_keys(rules: Rules) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """Value and ace flag of each card class, in ``CardModel(rules).classes`` order."""
    classes = CardModel(rules).classes
    return tuple(v for v, _, _ in classes), tuple(a for _, a, _ in classes)


def natural_completer(rules: Rules, up: int) -> int | None:
    """The card class (index in ``CardModel(rules).classes``) whose card as the hole card
    makes a dealer blackjack with an upcard of class ``up`` (the ten-value class under an
    ace, the ace under a ten), or None when no hole card can (:func:`_natural`)."""
    vals, aces = _class_keys(rules)
    return next(
        (j for j in range(len(vals)) if _natural(vals[up], aces[up], vals[j], aces[j])), None
    )


@lru_cache(maxsize=64)
def dealer_stop_table(rules: Rules, size: int = 32) -> np.ndarray:
    """``(size, 2)`` int64: where a dealer hand of two or more cards adding to ``hard``
    (aces as 1; column 1 when it holds an ace) stops, as the outcome index of
    :data:`OUTCOMES` (``hard > 21``: bust), or -1 where it draws on. The same decision
    as the finite-shoe recursion, as a table for compiled code (read-only)."""
    out = np.full((size, 2), -1, np.int64)
    for hard in range(2, size):
        for ace in (False, True):
            got = _stands(hard, ace, rules)
            out[hard, int(ace)] = -1 if got is None else got
    out.setflags(write=False)
    return out


def hole_naturals(rules: Rules, up: int) -> tuple[bool, ...]:
    """Per card class: that hole card makes a dealer natural with an upcard of class
    ``up`` (classes in ``CardModel(rules).classes`` order)."""
    vals, aces = _class_keys(rules)
    return tuple(_natural(vals[up], aces[up], v, a) for v, a in zip(vals, aces, strict=True))


def dealer_rows(rules: Rules, pool: np.ndarray, up: int, rows: np.ndarray) -> np.ndarray:
    """Finite shoe: the dealer's unconditioned outcome probabilities (``m x 7``, order
    :data:`OUTCOMES`, the blackjack column included) for each of ``m`` removed
    compositions at once, the dealer drawing its hole card and hits without replacement
    from ``pool - row``.

    Columns of ``pool`` (length ``K``) and ``rows`` (``m x K``, float) are card-class
    counts in ``CardModel(rules).classes`` order; ``pool`` is the cards left with the
    upcard already out, ``up`` the upcard's class index. A path that would need a card
    no row has left is skipped (it has probability 0 in every row); one that only some
    rows lack gets probability 0 in those rows. Used by the finite-shoe evaluation, the
    composition-dependent analysis and :func:`dealer_vector` (one row of zeros).
    """
    vals, aces = _class_keys(rules)
    K = len(vals)
    avail = np.asarray(pool, float)[None, :] - rows
    left0 = avail.sum(axis=1)
    up_v, up_a = vals[up], aces[up]
    m = rows.shape[0]
    memo: dict[tuple[int, ...], np.ndarray] = {}
    stop_at: dict[tuple[int, bool], int | None] = {}  # _stands, read once per (hard, ace)

    def node(drawn: list[int], hard: int, ace: bool, n: int) -> np.ndarray:
        key = tuple(drawn)
        got = memo.get(key)
        if got is not None:
            return got
        out = np.zeros((m, 7))
        left = left0 - n
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = np.where(left > 0, 1.0 / left, 0.0)
        for j in range(K):
            cnt = avail[:, j] - drawn[j]
            if cnt.max() <= 0:
                continue  # no card of this class is left in any row
            p = np.clip(cnt, 0.0, None) * inv
            if n == 0 and _natural(up_v, up_a, vals[j], aces[j]):
                out[:, BJ] += p
                continue
            nh, na = hard + vals[j], ace or aces[j]
            if (nh, na) not in stop_at:
                stop_at[nh, na] = _stands(nh, na, rules)
            stop = stop_at[nh, na]
            if stop is not None:
                out[:, stop] += p
            else:
                drawn[j] += 1
                out += p[:, None] * node(drawn, nh, na, n + 1)
                drawn[j] -= 1
        memo[key] = out
        return out

    return node([0] * K, up_v, up_a, 0)


def _draws(rules: Rules) -> dict[tuple[int, bool], float]:
    """Infinite deck: the chance of each card class ``(value, is ace)`` on any draw."""
    values = rules.card_values
    draws: dict[tuple[int, bool], float] = {}
    for rank in range(1, 14):
        key = (values[rank - 1], rank == 1)
        draws[key] = draws.get(key, 0.0) + 1.0 / 13.0
    return draws


@lru_cache(maxsize=256)
def _after(rules: Rules) -> Callable[[int, bool], np.ndarray]:
    """Infinite deck: ``after(hard, ace)``, the final-hand probabilities of a dealer
    holding two or more cards (not a two-card blackjack), memoised."""
    draws = _draws(rules)
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
    draws = _draws(rules)
    up_v, up_a = values[up_rank - 1], up_rank == 1
    total = np.zeros(7)
    for (v, a), p in draws.items():
        if _natural(up_v, up_a, v, a):
            total[BJ] += p
        else:
            total += p * after(up_v + v, up_a or a)
    return tuple(float(x) for x in total)


def _finite(rules: Rules, up_rank: int, counts: tuple[int, ...]) -> np.ndarray:
    """Unconditioned dealer outcome probabilities, drawing without replacement from
    ``counts`` (by rank, the upcard already out): :func:`dealer_rows` of one empty row."""
    model = CardModel(rules)
    classes = model.classes
    pool = np.array([sum(counts[r - 1] for r in ranks) for _, _, ranks in classes], float)
    up = model.class_of_rank[up_rank - 1]
    return dealer_rows(rules, pool, up, np.zeros((1, len(classes))))[0]


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
        upcard: a :class:`.Rank`, a rank letter, or a value (1 = ace).
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
