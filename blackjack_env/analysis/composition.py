"""Exact analysis off the cards that remain: composition-dependent (CDZ-) play.

Everything here is computed for a *given* pool of unseen cards (13 counts by
rank, ace to king, in :class:`.Rank` order): the
cards still in the shoe plus the dealer's hole card, i.e. every card the player
has not seen. Each decision may depend on the exact cards of the hand and on
that pool (*composition-dependent*); the rules are read from the engine
(:func:`.score`,
:func:`.play_actions`,
:func:`.split_allowed`, :class:`Rules`), with the
round's semantics those of :mod:`blackjack_env.analysis.infinite`.

Public functions:

* :func:`action_values` - the expected value of every legal action of a hand
  of two or more cards against an upcard, off a given pool, with optimal
  composition-dependent play afterwards.
* :func:`table_action_values` - the same for the hand a :class:`Table` is
  waiting on (the pool is read from the table).
* :func:`composition_return` - the composition-dependent return of a round
  dealt off a given pool (by default a full shoe of ``rules.shoe_decks``
  decks): the CDZ- optimum.
* :func:`effects_of_removal` - the change in that return when one card of each
  rank is removed from a full shoe (or from any pool).
* :func:`pre_peek_values` - early surrender against playing on, before the peek.
* :func:`pool_from`, :func:`table_pool` - the 13 counts from a :class:`.Shoe`, a
  card list, counts, or what a table's players have not seen.

Method. Cards are grouped into classes (value, is-ace) as the rules' card
values give them (ten, jack, queen and king form one class under standard
values); only a pair's rank looks below the class. For a pool ``R`` (the unseen
cards together with the player's hand) and an upcard, every composition ``y``
of player cards drawn from ``R`` is a *row*; the dealer's final-hand
probabilities are computed exactly for every row at once (numpy over rows, one
recursion over the dealer's drawn cards), the dealer drawing from ``R - y``.
Hit, stand, double and surrender values follow exactly, card by card, with the
best of stand/hit after each hit. Under a peek with an ace or ten up every
value is first computed *jointly* with the event "no dealer blackjack" (the hole
card is just one more unseen card: by exchangeability it may be drawn after the
player's cards), then divided by the chance of no blackjack; this is exact.

A context (rules, the class counts of ``R``, the upcard class) is kept in an
LRU cache (16 contexts), with its dealer rows and values: later decisions of the
same round (``R`` is unchanged when the player draws) are answered from it.

Query times (:func:`action_values`, CPU of one core, a new pool each time: a
shoe dealt 0 to 8 x decks cards deep, upcards 2, 6, T, A): one deck, hands of 2
cards 13 ms on average (40 ms at most), 3 to 5 cards 8-9 ms (20 ms at most);
six decks, 2 cards 18 ms (67 ms at most), 3 to 5 cards 9-12 ms (28 ms at most).
A query answered from the cache takes about 0.03 ms.

Splits (the only approximation). Splitting a pair of class ``c`` is valued by the
policy of Hugues Hoppe's notebook (github.com/hhoppe/blackjack, ``blackjack.py``:
``reward_for_split`` with ``Attention.HAND_AND_NUM_PRIOR_SPLITS``; read there, written
here in :meth:`_Context.split_value`): the split hands take their second cards in turn;
a card that pairs the split card may be split again (here the better of splitting and
not is taken; the reference always resplits, and finds no case where that loses); a
hand that is not split again is played out with its best composition-dependent play
off the pool less its own cards and less every pair card out so far (the pair, and one
card per resplit drawn before it), and the chance of each second card is that of the
pool less those pair cards. What the hand does not see, and the values do not remove,
are the other split hands' other cards. Double after split, hitting split aces and
resplits follow the rules. A split of aces that get one card each and cannot resplit is
exact (the other hand's card is a uniformly random unseen card, which leaves the
dealer's chances unchanged on average).

Against the composition-dependent house edges Hoppe publishes (H17, DAS, late
surrender, split to 4, no resplit of aces; the Wizard of Odds and bjstrat.net agree to
0.001) this is within 0.0005 points at 1, 2, 4, 6 and 8 decks
(``tests/analysis/test_composition_kernels.py``). An earlier version valued every split
hand off the pool less the pair only (resplits did not remove their pair cards): 0.0024
to 0.0006 points below those figures.

Its error, measured against the engine playing the same strategy (each split hand
decides off the pool of the split with the other split hands' non-pair cards put back;
100,000 rounds each, ``tests/analysis/test_composition_sim.py``; figures of the earlier
version), is within the simulation's 99% interval (+-0.012 to 0.023) in every case
tried: one deck 8-8 v T -0.4473 (engine -0.4439), A-A v 6 +0.7583 (+0.7588), 2-2 v 5
+0.2963 (+0.3104), 9-9 v 9 -0.0987 (-0.0988); six decks 8-8 v T -0.4751 (-0.4826), 3-3
v 4 +0.0487 (+0.0476); a 25-card pool 8-8 v T -0.5693 (-0.5712), 2-2 v 6 +0.1420
(+0.1603). So it errs by less than about 0.02 per split even in one deck.

A pool that runs dry in the middle of a round: paths that would need a card
from an empty pool are dropped (the engine would reshuffle its discard tray
there). Pools of a dozen or more mixed cards never reach that in practice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import cast

import numpy as np

from blackjack_env.analysis import kernels
from blackjack_env.analysis.dealer import (
    dealer_rows,
    dealer_stop_table,
    hole_naturals,
    natural_completer,
    upcard_rank,
)
from blackjack_env.analysis.model import (
    BJ,
    CardModel,
    check_supported,
    natural_stands,
    settle_values,
    split_hand_settled,
)
from blackjack_env.engine.cards import Card, Rank, parse_card, parse_cards
from blackjack_env.engine.hand import score
from blackjack_env.engine.play import (
    AUTO_STAND_TOTAL,
    NATURAL_CATEGORY,
    NaturalEffect,
    Outcome,
    auto_stands,
    dealt_natural_effect,
    is_natural,
    natural_counts,
    outcome,
    payout,
    split_stake_share,
)
from blackjack_env.engine.rules import HoleCard, Rules, SplitBy, Surrender
from blackjack_env.engine.shoe import Shoe
from blackjack_env.engine.table import Action, Phase, Table, play_actions, split_allowed

__all__ = [
    "METHOD",
    "CompositionResult",
    "action_values",
    "clear_cache",
    "composition_return",
    "effects_of_removal",
    "pool_from",
    "pre_peek_values",
    "table_action_values",
    "table_pool",
]

#: The version of the method behind :func:`composition_return`'s figures, raised when
#: they change (a store of priced rounds made by another version is not resumed).
#: 2: splits remove the pair cards resplits drew (the module docstring).
METHOD = 2

_A = Action
Comp = tuple[int, ...]
#: cards out of the pool beyond a hand's own: (class, count), or none
Extra = tuple[int, int] | None

# player categories of the stand table: 0 = total <= 16, 1..5 = 17..21, 6 = natural
_NATURAL = 6


# ---------------------------------------------------------------- pools and cards
def pool_from(rules: Rules, remaining: Shoe | Sequence[int] | Iterable[Card] | str) -> list[int]:
    """The unseen cards as 13 counts by rank (ace to king).

    ``remaining`` is a finite :class:`.Shoe` (its undealt cards,
    :meth:`Shoe.remaining_by_rank`; a dealt hole card is *not* in the shoe, use
    :func:`table_pool` for a table), 13 non-negative counts by rank, or the
    cards themselves (a card string such as ``"AS 5H"`` or :class:`.Card` objects).
    """
    if isinstance(remaining, Shoe):
        if remaining.decks is None:
            raise ValueError(
                "an infinite shoe has no composition; use solve(rules) for an infinite deck"
            )
        return list(remaining.remaining_by_rank())
    if isinstance(remaining, str):
        remaining = parse_cards(remaining)
    items = list(remaining)
    if items and all(isinstance(c, Card) for c in items):
        counts = [0] * 13
        for card in cast("list[Card]", items):
            counts[card.rank - 1] += 1
        return counts
    if len(items) != 13 or not all(
        isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 0 for n in items
    ):
        raise ValueError(
            f"remaining must be a Shoe, cards, or 13 non-negative int counts by rank "
            f"(ace to king), got {remaining!r}"
        )
    return [int(cast("int", n)) for n in items]


def table_pool(table: Table) -> list[int]:
    """Cards the players have not seen at ``table``: the shoe's undealt cards plus the
    dealer's hole card while it is face down (13 counts by rank)."""
    counts = pool_from(table.rules, table.shoe)
    if (
        table.rules.hole_card is not HoleCard.NONE
        and not table.hole_revealed
        and len(table.dealer.cards) >= 2
    ):
        counts[table.dealer.cards[1].rank - 1] += 1
    return counts


def _cards_of(hand: str | Sequence[Card]) -> list[Card]:
    cards = parse_cards(hand) if isinstance(hand, str) else list(hand)
    if not all(isinstance(c, Card) for c in cards):
        raise ValueError(f"hand must be cards such as 'AS 7H' or Card objects, got {hand!r}")
    return cards


def _up_rank(rules: Rules, upcard: Card | Rank | str | int) -> int:
    """A rank 1..13 from a Card, a card text ("9D"), or what ``upcard_rank`` reads."""
    if isinstance(upcard, Card):
        return int(upcard.rank)
    if isinstance(upcard, str) and len(upcard.strip()) == 2 and upcard.strip() != "10":
        return int(parse_card(upcard).rank)
    return upcard_rank(rules, upcard)


# ---------------------------------------------------------------- card classes
@dataclass(frozen=True)
class _Classes:
    """Rule-derived card classes: value and ace flag per class, class of each rank."""

    values: tuple[int, ...]
    aces: tuple[bool, ...]
    ranks: tuple[tuple[int, ...], ...]
    of_rank: tuple[int, ...]  # index rank - 1
    ace: int

    @classmethod
    def of(cls, rules: Rules) -> _Classes:
        model = CardModel(rules)
        classes = model.classes
        return cls(
            values=tuple(v for v, _, _ in classes),
            aces=tuple(a for _, a, _ in classes),
            ranks=tuple(rs for _, _, rs in classes),
            of_rank=model.class_of_rank,
            ace=model.ace_class,
        )

    def comp(self, counts: Sequence[int]) -> Comp:
        """Class counts from 13 rank counts."""
        out = [0] * len(self.values)
        for r, n in enumerate(counts):
            out[self.of_rank[r]] += int(n)
        return tuple(out)


_CLASSES: dict[tuple[int, ...], _Classes] = {}


def _classes(rules: Rules) -> _Classes:
    got = _CLASSES.get(rules.card_values)
    if got is None:
        got = _CLASSES[rules.card_values] = _Classes.of(rules)
    return got


# ---------------------------------------------------------------- the context
class _Context:
    """One pool ``R`` (class counts, the upcard already out) and upcard class: dealer rows,
    stand values and the optimal hand values, all *joint* with no dealer blackjack under
    a peek (see the module docstring).

    A *row* is a composition of cards removed from ``R`` (a hand's cards, plus the other
    card of a split pair in the split approximation), kept as an integer code (mixed
    radix over the class counts) so that adding a card is one addition.
    """

    def __init__(self, rules: Rules, pool: Comp, up: int) -> None:
        self.rules = rules
        cl = _classes(rules)
        self.cl = cl
        self.K = len(cl.values)
        self.R = np.array(pool, float)
        self.pool = pool
        self.N = int(sum(pool))
        self.vals = cl.values
        self.aces = cl.aces
        self.up = up
        up_v, up_a = cl.values[up], cl.aces[up]
        self.up_value, self.up_ace = int(up_v), bool(up_a)
        self.peek = CardModel(rules).peek_possible(up_v, up_a)
        self.no_peek_rules = rules.hole_card is not HoleCard.PEEK
        self.completer = natural_completer(rules, up)  # hole card class of a dealer natural
        # a natural paid (at the deal or against no dealer natural), and a natural against
        # the dealer's natural: the engine's outcome and payout
        self.payout = float(payout(rules, Outcome.BLACKJACK))
        self.bjbj = float(payout(rules, outcome(rules, NATURAL_CATEGORY, NATURAL_CATEGORY)))
        self.bet_factor = float(split_stake_share(rules))
        self.auto21 = auto_stands(rules, AUTO_STAND_TOTAL)  # (the rule, read once)
        self.late_no_peek = rules.surrender is Surrender.LATE and self.no_peek_rules
        self._pay = self._payoffs()
        base, b = [], 1
        for n in pool:
            base.append(b)
            b *= n + 1
        self.base = base
        # per row (by index): cards left by class, cards left, stand values, has an ace
        self.index: dict[int, int] = {}
        self.avail: list[list[int]] = []
        self.left: list[int] = []
        self.stand_rows: list[list[float]] = []
        self.row_ace: list[bool] = []
        self._hs: dict[int, float] = {}
        self._memo: dict[tuple, float] = {}
        self._split_memo: dict[tuple, float] = {}
        self._covered: list[Comp] = []  # hands whose rows (all supersets) are known
        self._codes: dict[Comp, int] = {}
        self._hard_ace: dict[Comp, tuple[int, bool]] = {}
        # legal actions depend on the rules and the upcard only: one dict for every
        # context of them
        self._legal = _legal_memo(rules, self.up_value, self.up_ace)
        self._settled: dict[tuple, bool] = {}
        self._split_terms: dict[tuple, list[tuple[float, float, bool]]] = {}
        self._split_covered: set[int] = set()  # pair classes whose split rows are known

    # ------------------------------------------------------------ rows
    def _payoffs(self) -> np.ndarray:
        """Payoff of a standing hand (column: category 16-or-less, 17..21, natural)
        against each dealer outcome (row: 17..21, bust, blackjack), from the engine's
        ``outcome`` and ``payout`` (``analysis.model.settle_values``); a dealer
        blackjack row is zero under a peek (those rounds are excluded from the joint
        values)."""
        return _payoff_table(self.rules, self.peek)

    def code(self, y: Comp) -> int:
        got = self._codes.get(y)
        if got is None:
            got = self._codes[y] = sum(n * b for n, b in zip(y, self.base, strict=True))
        return got

    def ensure(self, rows: Iterable[Comp]) -> None:
        """Compute the dealer probabilities of the rows not yet known (one batch)."""
        new = [r for r in dict.fromkeys(rows) if self.code(r) not in self.index]
        if not new:
            return
        arr = np.array(new, float)
        d = dealer_rows(self.rules, self.R, self.up, arr)
        stand = (d @ self._pay).tolist()
        ace = self.cl.ace
        for r, st in zip(new, stand, strict=True):
            self.index[self.code(r)] = len(self.avail)
            self.avail.append([p - n for p, n in zip(self.pool, r, strict=True)])
            self.left.append(self.N - sum(r))
            self.stand_rows.append(st)
            self.row_ace.append(r[ace] > 0)

    def cover(self, y: Comp, split_classes: Iterable[int] = ()) -> None:
        """Make sure every row a decision of hand ``y`` can reach is known (and every
        row of a split of a pair of each of ``split_classes``), in one batch."""
        rows: list[Comp] = []
        if not any(all(a <= b for a, b in zip(base, y, strict=True)) for base in self._covered):
            rows += self.supersets(y, 21)
            self._covered.append(y)
        for c in split_classes:
            if c not in self._split_covered:
                rows += self.split_rows(c)
                self._split_covered.add(c)
        self.ensure(rows)

    def supersets(self, base: Comp, max_hard: int) -> list[Comp]:
        """Every composition ``y >= base`` within the pool whose hard total is at most
        ``max_hard``."""
        out: list[Comp] = []
        vals, K, R = self.vals, self.K, self.pool
        start_hard = sum(b * v for b, v in zip(base, vals, strict=True))
        cur = list(base)

        def gen(i: int, hard: int) -> None:
            if i == K:
                out.append(tuple(cur))
                return
            gen(i + 1, hard)
            b = cur[i]
            while cur[i] < R[i] and hard + vals[i] <= max_hard:
                cur[i] += 1
                hard += vals[i]
                gen(i + 1, hard)
            cur[i] = b

        if start_hard <= max_hard and all(b <= n for b, n in zip(base, R, strict=True)):
            gen(0, start_hard)
        return out

    def split_rows(self, c: int) -> list[Comp]:
        """The rows of every split hand of pair class ``c``: its own cards plus ``n`` more
        pair cards out of the pool (``n`` = 1 to ``max_split_hands - 1``: the other card
        of the pair and the pair cards resplits drew)."""
        out: list[Comp] = []
        for n in range(1, min(self.rules.max_split_hands, self.pool[c])):
            base = [0] * self.K
            base[c] = 1 + n
            out += self.supersets(tuple(base), 21 + n * self.vals[c])
        return out

    # ------------------------------------------------------------ basics
    def p_bj(self, y: Comp) -> float:
        """Chance of a dealer blackjack given the upcard and the removed cards ``y``."""
        if self.completer is None:
            return 0.0
        left = self.N - sum(y)
        if left <= 0:
            return 0.0
        return (self.pool[self.completer] - y[self.completer]) / left

    def no_bj(self, y: Comp) -> float:
        return 1.0 - self.p_bj(y) if self.peek else 1.0

    def stand(self, code: int, total: int, natural: bool) -> float:
        cat = _NATURAL if natural else (0 if total <= 16 else total - 16)
        return self.stand_rows[self.index[code]][cat]

    def hole_completes(self, code: int) -> float:
        """Chance that the hole card makes a dealer natural, given the row's cards out."""
        i = self.index[code]
        if self.completer is None or self.left[i] <= 0:
            return 0.0
        return self.avail[i][self.completer] / self.left[i]

    def surrender(self, code: int) -> float:
        p = self.hole_completes(code)
        if self.late_no_peek:
            return -p - 0.5 * (1.0 - p)
        return -0.5 * (1.0 - p) if self.peek else -0.5

    def draw(self, code: int, hard: int, ace: bool, double: bool) -> float:
        """Joint value of taking one card: then standing (``double``) or the best of
        standing and hitting on."""
        i = self.index[code]
        left = self.left[i]
        if left <= 0:
            return self.stand(code, score(hard, ace)[0], False)
        avail = self.avail[i]
        comp = self.completer if self.peek else None
        vals, aces, base, auto21 = self.vals, self.aces, self.base, self.auto21
        ev = 0.0
        for j in range(self.K):
            cnt = avail[j]
            if cnt <= 0:
                continue
            p = cnt / left
            nh = hard + vals[j]
            if nh > 21:
                if comp is None:
                    ev -= p
                elif left > 1:
                    ev -= p * (1.0 - (avail[comp] - (j == comp)) / (left - 1))
                else:
                    ev -= p
                continue
            na = ace or aces[j]
            total = nh + 10 if na and nh <= 11 else nh
            ncode = code + base[j]
            if double or (auto21 and total == AUTO_STAND_TOTAL):
                ev += p * self.stand(ncode, total, False)
            else:
                ev += p * self.hit_stand(ncode, nh, na)
        return ev

    def hit_stand(self, code: int, hard: int, ace: bool) -> float:
        """Best joint value of standing or hitting a hand past its first decision."""
        key = code * 64 + hard
        got = self._hs.get(key)
        if got is None:
            total = hard + 10 if ace and hard <= 11 else hard
            got = max(self.stand(code, total, False), self.draw(code, hard, ace, False))
            self._hs[key] = got
        return got

    def hard_ace(self, y: Comp) -> tuple[int, bool]:
        got = self._hard_ace.get(y)
        if got is None:
            hard = sum(c * v for c, v in zip(y, self.vals, strict=True))
            got = self._hard_ace[y] = (hard, y[self.cl.ace] > 0)
        return got

    @staticmethod
    def plus(y: Comp, j: int | None) -> Comp:
        if j is None:
            return y
        x = list(y)
        x[j] += 1
        return tuple(x)

    @staticmethod
    def out(y: Comp, extra: Extra) -> Comp:
        """The row of hand ``y`` with the ``extra`` cards (class, count) also out."""
        if extra is None:
            return y
        x = list(y)
        x[extra[0]] += extra[1]
        return tuple(x)

    # ------------------------------------------------------------ hands
    # A hand: y (its own cards by class), extra (class of a split partner card also out
    # of the pool, in the split approximation, else None), fs (from a split), sa (split
    # aces), h (hands the seat holds), pair, natural.
    def legal(self, y: Comp, fs: bool, sa: bool, h: int, pair: bool) -> tuple[Action, ...]:
        hard, ace = self.hard_ace(y)
        key = (hard, ace, sum(y) == 2, fs, sa, h, pair)
        got = self._legal.get(key)
        if got is None:
            got = self._legal[key] = _legal_actions(self.rules, self.up_value, self.up_ace, *key)
        return got

    def _legal_actions(
        self, y: Comp, fs: bool, sa: bool, h: int, pair: bool
    ) -> tuple[Action, ...]:
        hard, ace = self.hard_ace(y)
        return _legal_actions(
            self.rules, self.up_value, self.up_ace, hard, ace, sum(y) == 2, fs, sa, h, pair
        )

    def best(
        self, y: Comp, extra: Extra, fs: bool, sa: bool, h: int, pair: bool, natural: bool
    ) -> float:
        """Optimal joint value of a hand awaiting a decision; a split is not considered
        here (the caller values it: resplits are chosen in :meth:`split_value`)."""
        key = (y, extra, fs, sa, h, pair, natural)
        got = self._memo.get(key)
        if got is None:
            got = max(
                self.action_ev(y, extra, fs, sa, h, pair, natural, a)
                for a in self.legal(y, fs, sa, h, pair)
                if a is not _A.SPLIT
            )
            self._memo[key] = got
        return got

    def action_ev(
        self,
        y: Comp,
        extra: Extra,
        fs: bool,
        sa: bool,
        h: int,
        pair: bool,
        natural: bool,
        action: Action,
        same: int | None = None,
        waiting: int = 0,
    ) -> float:
        """Joint value (per unit of the hand's bet) of ``action``. Splits only: ``same``
        unseen cards pair the hand's cards; ``waiting`` split hands of this pair wait for
        their second card (a split changes their value through the hand limit, and the
        change is counted in the split's value)."""
        code = self.code(self.out(y, extra))
        hard, ace = self.hard_ace(y)
        if action is _A.STAND:
            return self.stand(code, score(hard, ace)[0], natural)
        if action is _A.SURRENDER:
            return self.surrender(code)
        if action is _A.HIT:
            return self.draw(code, hard, ace, False)
        if action is _A.DOUBLE:
            return 2.0 * self.draw(code, hard, ace, True)
        if action is _A.SPLIT:
            c = next(i for i, n in enumerate(y) if n)
            if same is None:
                raise ValueError("a split value needs the count of unseen pairing cards")
            gain = self.split_value(c, h + 1, waiting + 2, same, 2)
            if waiting:
                gain -= self.split_value(c, h, waiting, same, 2)
            return self.bet_factor * gain
        raise ValueError(f"{action!r} is not a playing action")

    # ------------------------------------------------------------ splits
    def second_cards(self, c: int, same: int, gone: int) -> list[tuple[float, Comp, bool]]:
        """(probability, hand, is_pair) of a split hand's first two cards, drawn from the
        pool less ``gone`` pair cards (the pair and the cards resplits drew); ``same`` of
        the pool less the pair pair the split card, ``gone - 2`` of them are gone."""
        avail = list(self.pool)
        avail[c] -= gone
        same -= gone - 2
        total = sum(avail)
        out: list[tuple[float, Comp, bool]] = []
        if total <= 0:
            return out
        one = self.plus(tuple([0] * self.K), c)
        for j in range(self.K):
            if avail[j] <= 0:
                continue
            y = self.plus(one, j)
            if j != c:
                out.append((avail[j] / total, y, False))
                continue
            if same > 0:
                out.append((same / total, y, True))
            if avail[j] - same > 0:
                out.append(((avail[j] - same) / total, y, False))
        return out

    def two_card_done(self, y: Comp, sa: bool, h: int, pair: bool, natural: bool) -> bool:
        """The split hand has no decision to make (:func:`split_hand_settled`)."""
        total = score(*self.hard_ace(y))[0]
        key = (total, sa, h, pair, natural)
        got = self._settled.get(key)
        if got is None:
            got = self._settled[key] = split_hand_settled(
                self.rules, split_aces=sa, pair=pair, hands=h, natural=natural, total=total
            )
        return got

    def split_value(self, c: int, h: int, k: int, same: int, gone: int) -> float:
        """Expected sum of the joint results (per split hand's bet) of ``k`` split hands
        of class ``c`` still waiting for their second card, ``h`` hands in all, ``gone``
        pair cards out of the pool (the pair split first, then one per resplit).

        The hands take their second cards in turn. A card that pairs the split card
        may be split again (the better of the two is taken): one more hand waits and
        one more pair card is gone, for every later hand. Otherwise the hand is played
        out, its best play computed off the pool less its own cards and the ``gone``
        pair cards (the non-pair cards of the other split hands are not removed)."""
        if k == 0:
            return 0.0
        mk = (c, h, k, same, gone)
        got = self._split_memo.get(mk)
        if got is not None:
            return got
        rest = self.split_value(c, h, k - 1, same, gone)
        ev = 0.0
        for p, value, resplit in self.split_terms(c, h, same, gone):
            no_split = value + rest
            if resplit:
                ev += p * max(no_split, self.split_value(c, h + 1, k + 1, same, gone + 1))
            else:
                ev += p * no_split
        self._split_memo[mk] = ev
        return ev

    def split_terms(self, c: int, h: int, same: int, gone: int) -> list[tuple[float, float, bool]]:
        """For each second card of a split hand of class ``c`` (``h`` hands in all,
        ``gone`` pair cards out): its probability, the hand's value without a resplit
        (standing if it has no decision, else its best play), and whether it may be
        split again. They do not depend on how many hands still wait, so
        :meth:`split_value` reads them once per ``(h, gone)``."""
        key = (c, h, same, gone)
        got = self._split_terms.get(key)
        if got is not None:
            return got
        sa = self.aces[c]
        bas = natural_counts(self.rules, from_split=True)
        extra = (c, gone - 1)
        got = []
        for p, y, pair in self.second_cards(c, same, gone):
            hard, ace = self.hard_ace(y)
            natural = is_natural(2, hard, ace, bas)
            if self.two_card_done(y, sa, h, pair, natural):
                code = self.code(self.out(y, extra))
                got.append((p, self.stand(code, score(hard, ace)[0], natural), False))
                continue
            value = self.best(y, extra, True, sa, h, pair, natural)
            got.append((p, value, split_allowed(self.rules, pair=pair, hands=h, split_aces=sa)))
        self._split_terms[key] = got
        return got


class _RoundContext(_Context):
    """A :class:`_Context` for :func:`composition_return`: the rows of a round (every
    hand of two or more cards, and every split hand of each pair the pool holds, with
    each number of pair cards out), their stand values, and the value of every
    two-card decision (the best play of each two-card hand, each split) computed by the
    compiled kernels (``blackjack_env.analysis.kernels``): the same values as the
    recursion of :class:`_Context`. It answers a round's two-card decisions only
    (:meth:`best` of a hand of two cards, :meth:`action_ev` of a split, :meth:`stand`);
    a query about a later decision is refused."""

    def __init__(self, rules: Rules, pool: Comp, up: int) -> None:
        super().__init__(rules, pool, up)
        K = self.K
        H = rules.max_split_hands
        tables = _round_tables(rules, self.up_value, self.up_ace)
        # a split hand of class c with n more pair cards out (n - 1 of them drawn by
        # resplits; see _Context.split_value)
        split_extras = _split_extras(rules, self.aces, pool)
        self.extras: list[Extra] = [None, *split_extras]
        ext_index = np.full((K, H + 1), -1, np.int64)
        for b, (c, n) in enumerate(split_extras, start=1):
            ext_index[c, n] = b
        pool_a = np.array(pool, np.int64)
        vals = np.array(self.vals, np.int64)
        aces = np.array(self.aces, np.bool_)
        full = list(pool)
        full[up] += 1
        shared = _round_rows(rules, tuple(full))
        codes, rows, radix = shared.codes, shared.rows, shared.radix
        stand = kernels.dealer_stands(
            rows,
            pool_a,
            vals,
            aces,
            up,
            dealer_stop_table(rules),
            _hole_naturals(rules, up),
            self._pay,
        )
        comp = self.completer if (self.peek and self.completer is not None) else -1
        auto = AUTO_STAND_TOTAL if self.auto21 else -1
        two_row, two_hit, two_dbl = kernels.shared_two_card_tables(
            rows,
            *shared.structure,
            stand,
            pool_a,
            vals,
            aces,
            self.cl.ace,
            comp,
            auto,
            _totals_table(),
            shared.extras_array,
            np.array([shared.position[e] for e in self.extras], np.int64),
        )
        self.base = [int(r) for r in radix]
        self._codes_sorted = codes
        self._rows = rows
        self._stand = stand
        mode = 2 if self.late_no_peek else (1 if self.peek else 0)
        any_completer = -1 if self.completer is None else self.completer
        # the arguments every value kernel takes after its own
        self._args = (
            two_row, two_hit, two_dbl, stand, rows, pool_a, vals, aces, _totals_table(),
            tables.legal,
        )
        self._split_args = (
            tables.settled, tables.natural_split, tables.split_ok, any_completer, mode,
        )
        self._ext_index = ext_index
        # the best play (no split) of every two-card hand of the round, in one call
        hands = []
        for i in range(K):
            for j in range(i, K):
                if pool[i] - (i == j) < 1 or pool[j] < 1:
                    continue
                hard = self.vals[i] + self.vals[j]
                natural = tables.natural_two[hard, int(self.aces[i] or self.aces[j])]
                for pair in (False, True) if i == j else (False,):
                    hands.append((i, j, int(pair), int(natural)))
        got = kernels.two_card_values(
            np.array(hands, np.int64).reshape(-1, 4), *self._args, any_completer, mode
        )
        self._two_card = {h: float(v) for h, v in zip(hands, got.tolist(), strict=True)}
        self._split_evs: dict[tuple[int, int], float] = {}

    def _row(self, code: int) -> int:
        i = int(np.searchsorted(self._codes_sorted, code))
        if i >= len(self._codes_sorted) or int(self._codes_sorted[i]) != code:
            raise KeyError(code)
        return i

    def ensure(self, rows: Iterable[Comp]) -> None:
        """Every row of a round is known from the start."""

    def cover(self, y: Comp, split_classes: Iterable[int] = ()) -> None:
        """Every row of a round is known from the start."""

    def hole_completes(self, code: int) -> float:
        row = self._rows[self._row(code)]
        left = self.N - int(row.sum())
        if self.completer is None or left <= 0:
            return 0.0
        return (self.pool[self.completer] - int(row[self.completer])) / left

    def stand(self, code: int, total: int, natural: bool) -> float:
        cat = _NATURAL if natural else (0 if total <= 16 else total - 16)
        return float(self._stand[self._row(code), cat])

    def best(
        self, y: Comp, extra: Extra, fs: bool, sa: bool, h: int, pair: bool, natural: bool
    ) -> float:
        """:meth:`_Context.best` of a two-card hand before any split (same values)."""
        if extra is not None or fs or sa or h != 1 or sum(y) != 2:
            raise ValueError("a round context values the round's two-card hands only")
        i = next(c for c in range(self.K) if y[c])
        j = next(c for c in range(self.K - 1, -1, -1) if y[c])
        return self._two_card[(i, j, int(pair), int(natural))]

    def action_ev(
        self,
        y: Comp,
        extra: Extra,
        fs: bool,
        sa: bool,
        h: int,
        pair: bool,
        natural: bool,
        action: Action,
        same: int | None = None,
        waiting: int = 0,
    ) -> float:
        """The value of a split of the round's two-card pair (:meth:`_Context.action_ev`,
        same values); other actions are read through :meth:`best`."""
        if action is not _A.SPLIT or extra is not None or h != 1 or waiting or same is None:
            raise ValueError("a round context values the round's first split only")
        c = next(i for i, n in enumerate(y) if n)
        got = self._split_evs.get((c, same))
        if got is None:
            self.prepare_splits([(c, same)])
            got = self._split_evs[(c, same)]
        return self.bet_factor * got

    def prepare_splits(self, splits: Iterable[tuple[int, int]]) -> None:
        """Value the splits (pair class, unseen cards pairing it) in one kernel call."""
        todo = [key for key in dict.fromkeys(splits) if key not in self._split_evs]
        if not todo:
            return
        got = kernels.split_values(
            np.array(todo, np.int64),
            self.rules.max_split_hands,
            self._ext_index,
            *self._args,
            *self._split_args,
        )
        self._split_evs.update(zip(todo, got.tolist(), strict=True))

    def draw(self, code: int, hard: int, ace: bool, double: bool) -> float:
        raise ValueError("a round context values the round's two-card decisions only")

    def hit_stand(self, code: int, hard: int, ace: bool) -> float:
        raise ValueError("a round context values the round's two-card decisions only")


def _split_extras(rules: Rules, aces: Sequence[bool], pool: Comp) -> list[tuple[int, int]]:
    """The split hands a round off ``pool`` can hold, as (pair class, ``n`` pair cards
    out beyond the hand's own): ``n`` = 1 (the pair's other card) up to one per
    resplit allowed, as far as the pool holds the cards."""
    out: list[tuple[int, int]] = []
    for c, ace in enumerate(aces):
        resplit = split_allowed(rules, pair=True, hands=2, split_aces=ace)
        top = rules.max_split_hands - 1 if resplit else 1
        out += [(c, n) for n in range(1, min(top, pool[c] - 1) + 1)]
    return out


@dataclass(frozen=True)
class _SharedRows:
    """The rows every context of a round shares (:func:`_round_rows`): ``rows`` (sorted
    by their code in ``radix``, the mixed radix of the pool before the upcard),
    ``extras`` (the split hands, :func:`_split_extras`, after ``None``) and what
    :func:`kernels.round_structure` derives from them (``structure``)."""

    rows: np.ndarray
    radix: np.ndarray
    extras: tuple[Extra, ...]
    extras_array: np.ndarray
    position: dict[Extra, int]
    codes: np.ndarray
    structure: tuple[np.ndarray, ...]


@lru_cache(maxsize=4)
def _round_rows(rules: Rules, full: Comp) -> _SharedRows:
    """The rows of every context of a round dealt off ``full`` (class counts before the
    upcard): each two-card hand and its later cards, and each split hand with its pair
    cards out (:func:`_split_extras`), with their children and the rows of each extra
    (:func:`kernels.round_structure`): computed once for the ten upcards, not ten times.
    A context reads the rows within its pool. (A split hand that only stands needs its
    two cards: ``(1 + n) v + 10 <= 21 + n v``.)"""
    cl = _classes(rules)
    split_extras = _split_extras(rules, cl.aces, full)
    bases = np.zeros((1 + len(split_extras), len(full)), np.int64)
    max_hards = np.full(1 + len(split_extras), 21, np.int64)
    for b, (c, n) in enumerate(split_extras, start=1):
        bases[b, c] = 1 + n
        max_hards[b] = 21 + n * cl.values[c]
    pool = np.array(full, np.int64)
    vals = np.array(cl.values, np.int64)
    _codes, rows, radix = kernels.round_rows(pool, vals, bases, max_hards)
    extras = np.array([(-1, 0), *split_extras], np.int64)
    codes, *structure = kernels.round_structure(rows, radix, pool, vals, extras)
    return _SharedRows(
        rows=rows,
        radix=radix,
        extras=(None, *split_extras),
        extras_array=extras,
        position={extra: i for i, extra in enumerate((None, *split_extras))},
        codes=codes,
        structure=tuple(structure),
    )


@dataclass(frozen=True)
class _RoundTables:
    """The rule decisions the round kernels read, as tables (from the engine's
    functions; ``kernels`` decides no rule): ``legal[hard, ace, from_split, split_aces,
    hands, pair]`` the action bits of a two-card hand (``kernels.STAND_BIT`` ...),
    ``settled[total, split_aces, hands, pair, natural]`` a split hand with no decision,
    ``natural_two[hard, ace]`` / ``natural_split[hard, ace]`` a two-card hand (dealt, or
    from a split) that counts as a natural,
    ``split_ok[pair, hands, split_aces]`` a split allowed; ``resplit`` and
    ``resplit_aces`` whether a split hand (not of aces, of aces) may be split again, and
    ``split_hands_act[aces]`` whether a split hand may ever hit or double."""

    legal: np.ndarray
    settled: np.ndarray
    natural_two: np.ndarray
    natural_split: np.ndarray
    split_ok: np.ndarray
    resplit: bool
    resplit_aces: bool
    split_hands_act: tuple[bool, bool]


@lru_cache(maxsize=256)
def _round_tables(rules: Rules, up_value: int, up_ace: bool) -> _RoundTables:
    H = rules.max_split_hands
    bits = {
        _A.STAND: kernels.STAND_BIT,
        _A.HIT: kernels.HIT_BIT,
        _A.DOUBLE: kernels.DOUBLE_BIT,
        _A.SURRENDER: kernels.SURRENDER_BIT,
    }
    legal = np.zeros((32, 2, 2, 2, H + 2, 2), np.int64)
    acts_after_split = [False, False]
    for hard in range(2, 22):
        for ace in (0, 1):
            for fs in (0, 1):
                for sa in (0, 1) if fs else (0,):
                    for h in range(1, H + 1):
                        for pair in (0, 1):
                            acts = _legal_actions(
                                rules, up_value, up_ace, hard, bool(ace), True, bool(fs),
                                bool(sa), h, bool(pair),
                            )
                            legal[hard, ace, fs, sa, h, pair] = sum(
                                bits.get(a, 0) for a in acts
                            )
                            if fs and h >= 2 and (_A.HIT in acts or _A.DOUBLE in acts):
                                acts_after_split[sa] = True
    settled = np.zeros((32, 2, H + 2, 2, 2), np.bool_)
    for total in range(2, 22):
        for sa in (0, 1):
            for h in range(2, H + 1):
                for pair in (0, 1):
                    for nat in (0, 1):
                        settled[total, sa, h, pair, nat] = split_hand_settled(
                            rules, split_aces=bool(sa), pair=bool(pair), hands=h,
                            natural=bool(nat), total=total,
                        )
    bas = natural_counts(rules, from_split=True)
    natural_split = np.zeros((32, 2), np.bool_)
    natural_two = np.zeros((32, 2), np.bool_)
    for hard in range(2, 22):
        for ace in (0, 1):
            natural_split[hard, ace] = is_natural(2, hard, bool(ace), bas)
            natural_two[hard, ace] = is_natural(2, hard, bool(ace))
    split_ok = np.zeros((2, H + 2, 2), np.bool_)
    for pair in (0, 1):
        for h in range(1, H + 1):
            for sa in (0, 1):
                split_ok[pair, h, sa] = split_allowed(
                    rules, pair=bool(pair), hands=h, split_aces=bool(sa)
                )
    resplit = split_allowed(rules, pair=True, hands=2, split_aces=False)
    return _RoundTables(
        legal=legal,
        settled=settled,
        natural_two=natural_two,
        natural_split=natural_split,
        split_ok=split_ok,
        resplit=resplit,
        resplit_aces=split_allowed(rules, pair=True, hands=2, split_aces=True),
        split_hands_act=(acts_after_split[0], acts_after_split[1]),
    )


@lru_cache(maxsize=256)
def _hole_naturals(rules: Rules, up: int) -> np.ndarray:
    """:func:`.hole_naturals` as a bool array (read-only: contexts share it)."""
    out = np.array(hole_naturals(rules, up), np.bool_)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=64)
def _payoff_table(rules: Rules, peek: bool) -> np.ndarray:
    """:meth:`_Context._payoffs` of a rule set (read-only: contexts share it)."""
    settle = settle_values(rules)  # rows: player category; columns: dealer slot
    pay = settle[[16, 17, 18, 19, 20, 21, NATURAL_CATEGORY], :].T.copy()
    if peek:
        pay[BJ, :] = 0.0
    pay.setflags(write=False)
    return pay


@lru_cache(maxsize=256)
def _legal_memo(rules: Rules, up_value: int, up_ace: bool) -> dict[tuple, tuple[Action, ...]]:
    """The dict :meth:`_Context.legal` fills, shared by the contexts of a rule set and
    upcard."""
    return {}


@lru_cache(maxsize=4096)
def _legal_actions(
    rules: Rules,
    up_value: int,
    up_ace: bool,
    hard: int,
    ace: bool,
    two_cards: bool,
    fs: bool,
    sa: bool,
    h: int,
    pair: bool,
) -> tuple[Action, ...]:
    """:func:`.play_actions` of a hand (by its hard total and ace) against an upcard."""
    total, soft = score(hard, ace)
    return play_actions(
        rules,
        two_cards=two_cards,
        total=total,
        soft=soft,
        can_split=split_allowed(rules, pair=pair, hands=h, split_aces=sa),
        split_aces=sa,
        from_split=fs,
        hands=h,
        up_value=up_value,
        up_ace=up_ace,
    )


@lru_cache(maxsize=64)
def _pair_classes(rules: Rules) -> tuple[int, ...]:
    """The pair key of each rank 1..13 (:meth:`CardModel.pair_class`)."""
    model = CardModel(rules)
    return tuple(model.pair_class(r) for r in range(1, 14))


@lru_cache(maxsize=1)
def _totals_table() -> np.ndarray:
    """``[hard, ace] -> total`` by the engine's :func:`.score` (hard totals to 40)."""
    out = np.zeros((41, 2), np.int64)
    for hard in range(41):
        for ace in (0, 1):
            out[hard, ace] = score(hard, bool(ace))[0]
    return out


def _context(rules: Rules, pool: Comp, up: int) -> _Context:
    """The cached context; rules differing only in what plays no part here (decks,
    penetration, seats, bets, insurance) share it."""
    return _cached_context(_play_rules(rules), pool, up)


@lru_cache(maxsize=16)
def _cached_context(rules: Rules, pool: Comp, up: int) -> _Context:
    return _Context(rules, pool, up)


def clear_cache() -> None:
    """Forget the cached contexts (the values of recent pools): the next query of any
    pool is computed afresh, as a cold call is (for timing)."""
    _cached_context.cache_clear()
    _round_rows.cache_clear()


@lru_cache(maxsize=64)
def _play_rules(rules: Rules) -> Rules:
    return rules.replace(
        decks=None,
        seats_per_deck=None,
        penetration=None,
        insurance=False,
        seats=1,
        max_seats=1,
        min_bet=1,
        max_bet=1,
    )


# ---------------------------------------------------------------- queries
def _hand_flags(rules: Rules, cards: list[Card], from_split: bool) -> tuple[bool, bool, bool]:
    """(pair, natural, split_aces) of a hand, as the table judges them."""
    model = CardModel(rules)
    pair = len(cards) == 2 and model.pair_class(cards[0].rank) == model.pair_class(cards[1].rank)
    hard = sum(rules.card_values[c.rank - 1] for c in cards)
    has_ace = any(c.rank == 1 for c in cards)
    natural = is_natural(len(cards), hard, has_ace, natural_counts(rules, from_split))
    split_aces = from_split and cards[0].rank == 1
    return pair, natural, split_aces


def _same_count(rules: Rules, unseen: Sequence[int], cards: list[Card]) -> int:
    """Unseen cards that would pair the hand's first card (by rank or by value)."""
    rank = cards[0].rank
    if rules.split_by is SplitBy.VALUE:
        value = rules.card_values[rank - 1]
        return sum(
            n
            for r, n in enumerate(unseen, start=1)
            if rules.card_values[r - 1] == value and (r == 1) == (rank == 1)
        )
    return int(unseen[rank - 1])


def action_values(
    rules: Rules,
    remaining: Shoe | Sequence[int] | Iterable[Card] | str,
    hand: str | Sequence[Card],
    upcard: Card | Rank | str | int,
    *,
    hands: int = 1,
    from_split: bool = False,
    waiting: int = 0,
) -> dict[Action, float]:
    """Expected value of every legal action of ``hand`` against ``upcard``, off the
    unseen cards ``remaining``, with optimal composition-dependent play afterwards.

    Args:
        rules: the table's rules (the analysis covers what ``check_supported``
            accepts; ``decks`` plays no part: the pool is given).
        remaining: the cards the player has not seen: 13 counts by rank (ace to
            king), a card string or :class:`.Card` list, or a :class:`.Shoe` (its
            undealt cards). Not the hand's cards, not the upcard; the dealer's hole
            card *is* unseen (see :func:`table_pool`, or use
            :func:`table_action_values` at a table).
        hand: the hand's cards, two or more (``"TS 6H"`` or :class:`.Card` objects).
        upcard: the dealer's upcard (a Card, Rank, rank letter, or value 1..10).
        hands: hands the seat holds (1 before any split).
        from_split: the hand came from a split (``hand[0]`` is the split card).
        waiting: how many of the seat's other hands still wait for their second card
            (split hands of the same pair; a resplit here uses up one of
            ``max_split_hands`` they could have used, and the ``SPLIT`` value counts
            that change).

    Returns:
        ``{action: EV}`` per unit of the hand's bet for each action
        :func:`.play_actions` allows (bankroll
        aside), conditioned on no dealer blackjack when the dealer has peeked (ace or
        ten up under ``hole_card='peek'``), as published tables are. ``STAND``,
        ``HIT``, ``DOUBLE`` and ``SURRENDER`` are exact (``HIT``: after each card the
        better of stand and hit on the depleted pool); ``SPLIT`` is the expected sum
        over the split hands by the approximation of the module docstring.
        Early surrender before the peek is not a play action here: see
        :func:`pre_peek_values`.

    Example: ``action_values(Rules(decks=1), rank_counts(Rules(decks=1), "6S 5H AC"),
    "6S 5H", "A")[Action.DOUBLE]`` is 0.240259 (Wizard of Odds' appendix 9).
    """
    check_supported(rules)
    cards = _cards_of(hand)
    if len(cards) < 2:
        raise ValueError(f"hand needs two or more cards, got {len(cards)}")
    if not (isinstance(hands, int) and 1 <= hands <= rules.max_split_hands):
        raise ValueError(
            f"hands={hands!r} must be an int from 1 to max_split_hands ({rules.max_split_hands})"
        )
    if from_split and hands < 2:
        raise ValueError("from_split=True needs hands >= 2 (a split makes two hands)")
    unseen = pool_from(rules, remaining)
    up = _up_rank(rules, upcard)
    hard = sum(rules.card_values[c.rank - 1] for c in cards)
    if hard > 21:
        raise ValueError(f"hand {' '.join(map(str, cards))} is bust (hard total {hard})")
    if sum(unseen) < 1:
        raise ValueError("remaining holds no card: nothing is left to draw")
    ctx, y = _query_context(rules, unseen, cards, up)
    pair, natural, sa = _hand_flags(rules, cards, from_split)
    same = _same_count(rules, unseen, cards)
    if not (isinstance(waiting, int) and 0 <= waiting < hands):
        raise ValueError(
            f"waiting={waiting!r} must be an int from 0 to hands - 1 ({hands - 1}): the "
            f"other hands of the seat still waiting for their second card"
        )
    ctx.cover(y, [next(i for i, n in enumerate(y) if n)] if pair else [])
    scale = ctx.no_bj(y)
    legal = ctx.legal(y, from_split, sa, hands, pair)
    out = {}
    for a in legal:
        ev = ctx.action_ev(
            y, None, from_split, sa, hands, pair, natural, a, same=same, waiting=waiting
        )
        out[a] = float(ev / scale) if scale > 0 else float("nan")
    return out


def _query_context(
    rules: Rules, unseen: Sequence[int], cards: list[Card], up: int
) -> tuple[_Context, Comp]:
    """The context of pool ``unseen + hand`` and the hand's class composition."""
    cl = _classes(rules)
    full = list(unseen)
    for c in cards:
        full[c.rank - 1] += 1
    ctx = _context(rules, cl.comp(full), cl.of_rank[up - 1])
    return ctx, cl.comp([sum(1 for c in cards if c.rank == r) for r in range(1, 14)])


def pre_peek_values(
    rules: Rules,
    remaining: Shoe | Sequence[int] | Iterable[Card] | str,
    hand: str | Sequence[Card],
    upcard: Card | Rank | str | int,
) -> dict[Action, float]:
    """Before the peek (ace or ten up, ``hole_card='peek'``): the unconditioned value of
    ``SURRENDER`` (early surrender, -1/2) and of ``DECLINE`` (play on: a dealer
    blackjack costs the bet, otherwise the best of :func:`action_values`)."""
    cards = _cards_of(hand)
    unseen = pool_from(rules, remaining)
    up = _up_rank(rules, upcard)
    values = action_values(rules, unseen, cards, Rank(up))
    ctx, y = _query_context(rules, unseen, cards, up)
    p = ctx.p_bj(y) if ctx.peek else 0.0
    _pair, natural, _sa = _hand_flags(rules, cards, False)
    lose = ctx.bjbj if natural else -1.0
    out = {_A.DECLINE: p * lose + (1.0 - p) * max(values.values())}
    if rules.surrender is Surrender.EARLY and ctx.peek and not natural:
        out[_A.SURRENDER] = -0.5
    return out


def table_action_values(table: Table) -> dict[Action, float]:
    """:func:`action_values` for the hand ``table`` is waiting on, off the cards its
    players have not seen (:func:`table_pool`), restricted to ``table.legal_actions()``
    (so a bankroll that cannot cover a double or split removes it). In the pre-peek
    phase the values are those of :func:`pre_peek_values`."""
    if table.phase is Phase.INSURANCE:
        hand = table.current_hand
        assert hand is not None and table.upcard is not None
        values = pre_peek_values(table.rules, table_pool(table), hand.cards, table.upcard)
        return {a: v for a, v in values.items() if a in table.legal_actions()}
    if table.phase is not Phase.PLAYER_TURNS:
        raise ValueError(f"no playing decision is awaited in phase {table.phase.value}")
    seat_i, _ = table.to_act  # type: ignore[misc]
    hand = table.current_hand
    assert hand is not None and table.upcard is not None
    hands = table.seats[seat_i].hands
    values = action_values(
        table.rules,
        table_pool(table),
        hand.cards,
        table.upcard,
        hands=len(hands),
        from_split=hand.from_split,
        waiting=sum(1 for other in hands if len(other.cards) == 1),
    )
    legal = table.legal_actions()
    return {a: v for a, v in values.items() if a in legal}


# ---------------------------------------------------------------- the round
@dataclass(frozen=True)
class CompositionResult:
    """The composition-dependent (CDZ-) return of a round off a pool.

    ``expected_return``: per unit initial bet. ``upcard_returns``: given each
    upcard rank (letter -> return). ``pool``: the 13 counts the round was dealt from.
    """

    rules: Rules
    pool: tuple[int, ...]
    expected_return: float
    upcard_returns: dict[str, float]


def _round_given_upcard(
    rules: Rules,
    pool: Sequence[int],
    up_rank: int,
    compiled: bool = False,
    contexts: dict[tuple[Comp, int], _Context] | None = None,
) -> float:
    """Expected return of a round with this upcard, the player's two cards and
    everything else dealt from ``pool`` (which no longer holds the upcard);
    ``compiled``: the tables from the numba kernels (:class:`_RoundContext`), kept in
    ``contexts`` for the other upcards of the same class (a ten and a king up leave
    the same class counts)."""
    cl = _classes(rules)
    up = cl.of_rank[up_rank - 1]
    if compiled:
        key = (cl.comp(pool), up)
        got = None if contexts is None else contexts.get(key)
        if got is None:
            got = _RoundContext(_play_rules(rules), key[0], up)
            if contexts is not None:
                contexts[key] = got
        ctx: _Context = got
    else:
        ctx = _context(rules, cl.comp(pool), up)
    pairs = _pair_classes(rules)
    n = sum(pool)
    empty = tuple([0] * ctx.K)
    # every row the round needs: hands of two or more cards, and split hands
    ctx.cover(empty, [c for c in range(ctx.K) if ctx.pool[c] >= 2])
    pay_natural = dealt_natural_effect(rules) is NaturalEffect.PAY
    stands_natural = natural_stands(rules)
    can_split = split_allowed(rules, pair=True, hands=1, split_aces=False)
    by_rank = rules.split_by is SplitBy.RANK
    early = ctx.peek and rules.surrender is Surrender.EARLY
    if isinstance(ctx, _RoundContext) and can_split:
        ctx.prepare_splits(
            (cl.of_rank[r - 1], pool[r - 1] - 2 if by_rank else ctx.pool[cl.of_rank[r - 1]] - 2)
            for r in range(1, 14)
            if pool[r - 1] >= 2
        )
    # the return of a two-card hand depends on its classes, whether it is a pair and the
    # cards that pair it, not on its ranks: each computed once
    returns: dict[tuple[int, int, bool, int], float] = {}
    total = 0.0
    for r1 in range(1, 14):
        for r2 in range(r1, 14):
            c1 = pool[r1 - 1]
            c2 = pool[r2 - 1] - (r1 == r2)
            if c1 <= 0 or c2 <= 0:
                continue
            prob = c1 * c2 / (n * (n - 1)) * (1 if r1 == r2 else 2)
            i, j = cl.of_rank[r1 - 1], cl.of_rank[r2 - 1]
            pair = pairs[r1 - 1] == pairs[r2 - 1]
            same = -1
            if pair and can_split:
                same = pool[r1 - 1] - 2 if by_rank else ctx.pool[i] - 2
            hand_key = (i, j, pair, same)
            ret = returns.get(hand_key)
            if ret is None:
                y = ctx.plus(ctx.plus(empty, i), j)
                hard, ace = cl.values[i] + cl.values[j], cl.aces[i] or cl.aces[j]
                natural = is_natural(2, hard, ace)
                pbj = ctx.p_bj(y) if ctx.peek else 0.0
                if natural:
                    if pay_natural:
                        ret = ctx.payout
                    elif stands_natural:
                        ret = pbj * ctx.bjbj + ctx.stand(ctx.code(y), 21, True)
                    else:
                        ret = pbj * ctx.bjbj + ctx.best(y, None, False, False, 1, False, True)
                else:
                    best = ctx.best(y, None, False, False, 1, pair, False)
                    if same >= 0:
                        split = ctx.action_ev(
                            y, None, False, False, 1, True, False, _A.SPLIT, same=same
                        )
                        best = max(best, split)
                    ret = -pbj + best
                    if early:
                        ret = max(ret, -0.5)
                returns[hand_key] = ret
            total += prob * ret
    return total


def composition_return(
    rules: Rules,
    pool: Shoe | Sequence[int] | Iterable[Card] | str | None = None,
    *,
    compiled: bool | None = None,
) -> CompositionResult:
    """The composition-dependent (CDZ-) expected return of a round off ``pool``.

    Every decision (first two cards, every later hit or stand, splits as in the
    module docstring) is made on the exact cards of the hand and the pool: the
    best such strategy. ``pool``: the unseen cards before the deal (13 counts by
    rank, cards, or a Shoe); default: a full shoe of ``rules.shoe_decks`` decks.
    Insurance is never taken.

    Check against Eric Farmer's combinatorial analysis (bjstrat.net, CDZ-): 6 decks,
    S17, DAS, double any two, split to 4, no resplit of aces, no surrender, 3:2,
    peek: he publishes -0.4029%; this gives -0.40268%, 0.0002 points higher (the
    issue's tolerance is 0.005). Every non-split value is exact (stand, hit and
    double match Wizard of Odds' combinatorial tables to 1e-6), so the difference
    is in the splits (the module docstring: a split hand does not see the other split
    hands' non-pair cards).

    The same rules, 1 to 8 decks: +0.1836, -0.1781, -0.2916, -0.3472, -0.3805,
    -0.4027, -0.4186, -0.4304 (percent), each 0.003 to 0.04 points above the
    total-dependent :func:`.finite_shoe_return`.

    Against Hugues Hoppe's published CD house edges (H17, late surrender, otherwise the
    same; github.com/hhoppe/blackjack): 1, 2, 4, 6, 8 decks give -0.0305, 0.3137,
    0.4748, 0.5270, 0.5529% against his -0.030, 0.314, 0.475, 0.527, 0.553%: within
    0.0005 points, under the same split policy as his
    (``tests/analysis/test_composition_kernels.py``).

    ``compiled``: True runs the numba kernels (``analysis.kernels``, the ``fast`` extra),
    False the pure Python path, None (default) the kernels when numba is installed.
    Both give the same figures (within 1e-12 in the tests). Time, CPU of one core
    (``scripts/bench_composition.py``, two cores shared by other work, best of 5):
    pure Python 0.7 to 4 s for 1 to 8 decks; with the kernels 11 to 32 ms (six decks,
    a full shoe: 31 ms), 36 to 50 times less than the code before the kernels (a full
    or depleted pool; the first call in a process also loads the compiled code from
    numba's cache, or compiles it: 10 to 20 s once).
    """
    check_supported(rules)
    if pool is None:
        if rules.shoe_decks is None:
            raise ValueError(
                "composition_return needs a finite shoe (rules.decks is None); "
                "use solve(rules) for an infinite deck"
            )
        counts = [4 * rules.shoe_decks] * 13
    else:
        counts = pool_from(rules, pool)
    n = sum(counts)
    if n < 4:
        raise ValueError(f"a round needs at least 4 cards in the pool, got {n}")
    if compiled and not kernels.AVAILABLE:
        raise ValueError(
            "compiled=True needs numba (pip install 'blackjack_env[fast]'); "
            "compiled=None uses it when installed"
        )
    use_kernels = kernels.AVAILABLE if compiled is None else compiled
    by_rank: dict[str, float] = {}
    total = 0.0
    cache: dict[tuple, float] = {}
    contexts: dict[tuple[Comp, int], _Context] = {}
    for up in range(1, 14):
        if counts[up - 1] == 0:
            continue
        rest = list(counts)
        rest[up - 1] -= 1
        # ranks of one class with equal counts give the same round: compute once
        sym = _symmetric_key(rules, rest, up)
        got = cache.get(sym)
        if got is None:
            got = cache[sym] = _round_given_upcard(rules, rest, up, use_kernels, contexts)
        by_rank[Rank(up).letter] = got
        total += counts[up - 1] / n * got
    return CompositionResult(rules, tuple(counts), float(total), by_rank)


def _symmetric_key(rules: Rules, rest: list[int], up: int) -> tuple:
    """A key equal for two upcards whose rounds are the same: same class, and the same
    multiset of rank counts within every class (ranks of a class differ only as pairs)."""
    cl = _classes(rules)
    return (cl.of_rank[up - 1], _class_multisets(cl, rest))


def _class_multisets(cl: _Classes, counts: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """The multiset of rank counts within each class: two pools equal in it differ only by
    swapping ranks of one class, which gives the same returns."""
    return tuple(tuple(sorted(counts[r - 1] for r in ranks)) for ranks in cl.ranks)


def effects_of_removal(
    rules: Rules, pool: Shoe | Sequence[int] | Iterable[Card] | str | None = None
) -> dict[str, float]:
    """Change in the composition-dependent return (:func:`composition_return`) when one
    card of each rank is removed from a full shoe of ``rules.shoe_decks`` decks.

    Returns ``{rank letter: return(shoe less that card) - return(full shoe)}`` for
    the 13 ranks (ace to king), per unit bet; multiply by 100 for percentage points.
    ``pool`` (13 counts, cards or a Shoe): start from these unseen cards instead of a
    full shoe (ranks with no card left are omitted).
    The player re-optimises for the depleted shoe (this is the effect on the
    *optimal* return, which is what a counter playing perfectly gains).

    Published comparison: Peter Griffin, *The Theory of Blackjack* (single deck,
    S17, double any two, no double after split; the table reproduced e.g. at
    http://www.averagejoeblackjack.com/cardeffect.html) gives, in percent,
    A -0.61, 2 +0.38, 3 +0.44, 4 +0.55, 5 +0.69, 6 +0.46, 7 +0.28, 8 0.00,
    9 -0.18, T -0.51. For those rules this gives A -0.585, 2 +0.394, 3 +0.456,
    4 +0.582, 5 +0.744, 6 +0.453, 7 +0.308, 8 +0.026, 9 -0.149, T -0.476: every rank
    within 0.06 points, correlation above 0.99. The differences lean positive
    (by 0.03 points on average) because Griffin keeps the full-deck basic strategy
    while here the strategy adapts to the removed card, and adapting can only gain.

    Time: one :func:`composition_return` per value class plus one for the full
    shoe (10 + 1 with standard values): about 15 s of CPU for one deck.
    """
    check_supported(rules)
    if pool is None:
        if rules.shoe_decks is None:
            raise ValueError("effects of removal need a finite shoe (rules.decks is None)")
        start = [4 * rules.shoe_decks] * 13
    else:
        start = pool_from(rules, pool)
    base = composition_return(rules, start).expected_return
    cl = _classes(rules)
    out: dict[str, float] = {}
    done: dict[tuple, float] = {}
    for r in range(1, 14):
        if start[r - 1] == 0:
            continue
        less = list(start)
        less[r - 1] -= 1
        key = _class_multisets(cl, less)  # ranks of one class are interchangeable
        if key not in done:
            done[key] = composition_return(rules, less).expected_return - base
        out[Rank(r).letter] = done[key]
    return out
