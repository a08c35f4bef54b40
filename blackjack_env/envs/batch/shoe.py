"""The tables' shoes: every card a batched table deals comes from here.

Methods of :class:`~blackjack_env.envs.batch.TableBatch` (a mixin; the state is the
shoe block of its ``__init__``, :meth:`ShoeMixin._init_shoe`): one row of card ids per
table whose cards from ``pos`` on are undealt, drawn by a lazy (incremental)
Fisher-Yates shuffle from pools of pre-drawn uniforms (:meth:`ShoeMixin._draw`,
:meth:`ShoeMixin._draw_many`), or, for an infinite deck, from a pool of pre-drawn card
ids; stacked cards (:meth:`ShoeMixin.stack`); reshuffles between rounds
(:meth:`ShoeMixin._new_shoes`) and mid-round refills from the discard tray
(:meth:`ShoeMixin._refill_mid_round`); and what a counter can know of the shoe
(Hi-Lo sums, undealt cards by rank). One draw loop lives elsewhere: the dealer's
drawing from finite shoes (:meth:`~.dealer.DealerMixin._dealer_draws_shoe`) takes the
same uniforms and cards as :meth:`ShoeMixin._draw` in one fused loop, so a change to how
a card is drawn here changes it there too, and in :mod:`.kernels`, where numba is
installed the same draws run as compiled loops (:meth:`ShoeMixin._deal_compiled`).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from blackjack_env.engine import play
from blackjack_env.engine.cards import ALL_CARDS, Card, parse_cards
from blackjack_env.envs.batch import kernels
from blackjack_env.envs.batch.state import BatchState

_HI_LO = np.array(play.HI_LO_TAGS, dtype=np.int64)

#: 0.0, 1.0, ...: the j-th of consecutive draws from one shoe has j cards fewer to pick from.
_STEPS = np.arange(16, dtype=np.float64)
_STEPS_INT = np.arange(16, dtype=np.int64)

#: Infinite-deck cards drawn per generator call.
_POOL = 1 << 20


def deal_swap(
    flat: np.ndarray, slot: np.ndarray, pick: np.ndarray, out: np.ndarray | None = None
) -> np.ndarray:
    """One step of the lazy Fisher-Yates shuffle on the flat shoes: the cards at flat
    indices ``pick`` (each a uniformly random undealt card of its row) are dealt and
    swapped with the cards at ``slot`` (each row's first undealt place); returns the dealt
    cards (into ``out`` when given)."""
    cards = flat.take(pick, out=out)
    flat[pick] = flat.take(slot)
    flat[slot] = cards
    return cards


class ShoeMixin(BatchState):
    """The shoe methods of :class:`~blackjack_env.envs.batch.TableBatch`."""

    def _init_shoe(self, n: int) -> None:
        """The shoe state of ``n`` tables (the shoe block of ``__init__``)."""
        rules = self.rules
        self.decks = rules.shoe_decks
        self.infinite = self.decks is None
        self._stacked_any = False  # infinite deck: some table has stacked cards to deal
        self._ever_stacked = False  # stack() was called
        # pre-drawn random numbers: card ids (infinite deck) or uniforms (finite shoes)
        self._pool: np.ndarray = np.zeros(0)
        self._pool_pos = 0
        decks = self.decks
        if decks is None:
            self.shoe_size = 416  # the stacked-card buffer
        else:
            self.shoe_size = 52 * decks
            self._cut = (
                None if rules.penetration is None else rules.penetration * self.shoe_size
            )
            self._full_counts = np.bincount(
                np.tile(self._rank_of_id, decks), minlength=13
            ).astype(np.int64)
        s = self.shoe_size
        self.shoe = np.zeros((n, s), dtype=np.int8)
        if decks is not None:
            self.shoe[:] = np.tile(np.arange(52, dtype=np.int8), decks)
        self.pos = np.zeros(n, dtype=np.int64)
        self.stacked_end = np.zeros(n, dtype=np.int64)  # stacked cards lie in [pos, stacked_end)
        self.round_start = np.zeros(n, dtype=np.int64)
        # cards dealt since the last shuffle minus pos (``dealt``): changes only when a
        # shoe runs dry mid-round, so a draw advances pos alone
        self._dealt_minus_pos = np.zeros(n, dtype=np.int64)
        self.undealt_hilo = np.zeros(n, dtype=np.int64)  # Hi-Lo sum of the undealt cards
        self._hilo_of_id = _HI_LO[self._rank_of_id]
        # 64 per card plus its Hi-Lo tag: summed over a table's draws, the count of cards
        # (sum + 32) >> 6 and the tags' sum together (at most 20 cards: |tags| < 32)
        self._draw_tag = 64 + self._hilo_of_id
        self.shuffles = np.zeros(n, dtype=np.int64)
        self.mid_round_reshuffles = np.zeros(n, dtype=np.int64)
        self.reshuffled = np.zeros(n, dtype=bool)

    def _new_shoes(self, idx: np.ndarray) -> None:
        """Shuffle: every card of tables ``idx`` back in the shoe (an infinite deck: drop
        stacked cards).

        The shuffle is lazy: a row always holds each card of the shoe once, the
        undealt ones at ``pos:``; each draw takes a uniformly random undealt card
        (an incremental Fisher-Yates shuffle), so gathering the cards back is all
        a reshuffle has to do. Stacked cards not dealt yet stay on top, in their order
        (as the engine's ``Shoe.shuffle``).
        """
        held: list[tuple[int, np.ndarray]] = []
        if self._ever_stacked and not self.infinite:
            for t in idx[self.stacked_end[idx] > self.pos[idx]].tolist():
                held.append((t, self.shoe[t, self.pos[t] : self.stacked_end[t]].copy()))
        self.pos[idx] = 0
        self.stacked_end[idx] = 0
        if self.infinite:
            return
        for t, cards in held:  # every card is undealt now: move the stacked ones to the top
            row = self.shoe[t]
            for j, cid in enumerate(cards.tolist()):
                src = j + int((row[j:] == cid).nonzero()[0][0])
                row[j], row[src] = row[src], row[j]
            self.stacked_end[t] = cards.size
        self.round_start[idx] = 0
        self._dealt_minus_pos[idx] = 0
        self.undealt_hilo[idx] = 0  # a full shoe is balanced
        if self.track_cards:
            self.counts[idx] = self._full_counts
        self.shuffles[idx] += 1

    def needs_shuffle(self, idx: np.ndarray) -> np.ndarray:
        """Per table in ``idx``: the cut card is out (between rounds only)."""
        if self.infinite:
            return np.zeros(idx.size, dtype=bool)
        dealt = self.pos[idx] + self._dealt_minus_pos[idx]
        if self._mixed:  # each table's own cut card
            return dealt >= self._cut_t[idx]
        if self._cut is None:
            return dealt > 0
        return dealt >= self._cut

    @property
    def dealt(self) -> np.ndarray:
        """Cards dealt per table since its last shuffle (0 for an infinite deck); a copy."""
        if self.infinite:
            return np.zeros(self.num_tables, dtype=np.int64)
        return self.pos + self._dealt_minus_pos

    def remaining(self) -> np.ndarray:
        """Undealt cards per table (-1 for an infinite deck)."""
        if self.infinite:
            return np.full(self.num_tables, -1, dtype=np.int64)
        return self.shoe_size - self.pos

    def _draw(self, idx: np.ndarray) -> np.ndarray:
        """Deal one card id to each table in ``idx`` (distinct tables; with several seats,
        rows of distinct tables: the card comes from the table's shoe)."""
        if self.seats > 1:
            idx = self.lead_row[idx]
        if self.infinite:
            cards = self._random_cards(idx.size)
            if self._stacked_any:
                pos = self.pos[idx]
                sel = pos < self.stacked_end[idx]
                if np.count_nonzero(sel):
                    ts, ps = idx[sel], pos[sel]
                    cards[sel] = self._shoe_flat[ts * self.shoe_size + ps]
                    self.pos[ts] = ps + 1
                else:
                    self._stacked_any = bool(np.count_nonzero(self.stacked_end > self.pos))
            return cards
        size = self.shoe_size
        pos = self.pos.take(idx)
        dry = pos >= size
        if np.count_nonzero(dry):
            self._refill_mid_round(idx[dry])
            pos = self.pos.take(idx)
        if self._kernels is not None and not self._stacked_any:
            return self._deal_compiled(idx, 1)[0]
        fi = idx * size
        fi += pos
        # a uniformly random undealt card (stacked cards are dealt in order first)
        offset = (self._uniforms(idx.size) * (size - pos)).astype(np.int64)
        if self._stacked_any:
            offset[pos < self.stacked_end[idx]] = 0
        fj = fi + offset
        # as intp once: the card tables are read with it several times
        cards = deal_swap(self._shoe_flat, fi, fj).astype(np.intp)
        pos += 1
        self.pos[idx] = pos
        self.undealt_hilo[idx] = self.undealt_hilo.take(idx) - self._hilo_of_id.take(cards)
        if self.track_cards:
            self.counts[idx, self._rank_of_id.take(cards)] -= 1
        return cards

    def _draw_many(self, idx: np.ndarray, k: int) -> np.ndarray:
        """Deal ``k`` consecutive cards to each table in ``idx``: shape ``(k, len(idx))``,
        card-major (row ``j``: every table's ``j``-th card)."""
        if self.infinite:
            if self._stacked_any:
                return np.stack([self._draw(idx) for _ in range(k)])
            return self._random_cards(idx.size * k).reshape(idx.size, k).T
        size = self.shoe_size
        pos = self.pos.take(idx)
        out = np.empty((k, idx.size), dtype=np.int8)
        if self._stacked_any or np.count_nonzero(pos > size - k):
            for j in range(k):
                out[j] = self._draw(idx)
            return out
        if self._kernels is not None:
            return self._deal_compiled(idx, k)
        # k steps of the incremental Fisher-Yates shuffle, bookkeeping done once
        flat = self._shoe_flat
        fi = idx * size
        fi += pos
        left = size - pos
        u = self._uniforms(idx.size * k).reshape(k, idx.size)
        # step j takes the card at fi + j + floor(u * (cards left before step j)), swapped
        # to fi + j (cards left as float64: exact, and the product of two floats is the
        # fast loop)
        slots = fi + _STEPS_INT[:k, None]  # (k, m): fi + j
        picks = (u * (left.astype(np.float64) - _STEPS[:k, None])).astype(np.int64)
        picks += slots
        for j in range(k):
            deal_swap(flat, slots[j], picks[j], out=out[j])
        out = out.astype(np.intp)  # once: the card tables are read with it several times
        if self.track_cards:
            for j in range(k):
                self.counts[idx, self._rank_of_id.take(out[j])] -= 1
        self.pos[idx] = pos + k
        tags = np.add.reduce(self._hilo_of_id.take(out), axis=0)
        self.undealt_hilo[idx] = self.undealt_hilo.take(idx) - tags
        return out

    @property
    def _kernels(self) -> SimpleNamespace | None:
        """The draw loops compiled by numba (:func:`.kernels.load`) for a finite shoe, or
        None: the numpy loops deal (an infinite deck draws from its pool of card ids)."""
        return None if self.infinite else kernels.load()

    @property
    def compiled_draws(self) -> bool:
        """Whether the shoes deal by the loops compiled with numba (:mod:`.kernels`, the
        ``fast`` extra) rather than by numpy: the same cards either way, faster."""
        return self._kernels is not None

    def _deal_compiled(self, idx: np.ndarray, k: int) -> np.ndarray:
        """:meth:`_draw_many`'s ``k`` cards to tables ``idx`` (room for ``k`` in each
        shoe, no stacked card pending) by the compiled loop (:func:`.kernels.deal`: the
        same uniforms, swaps and cards, and the counters moved on)."""
        compiled = self._kernels
        assert compiled is not None
        cards = np.empty((k, idx.size), dtype=np.intp)
        compiled.deal(self._shoe_flat, self.shoe_size, idx, self.pos,
                           self._uniforms(idx.size * k), cards, self._hilo_of_id,
                           self.undealt_hilo)
        if self.track_cards:
            for j in range(k):
                self.counts[idx, self._rank_of_id.take(cards[j])] -= 1
        return cards

    def _uniforms(self, m: int) -> np.ndarray:
        """``m`` uniform numbers in [0, 1): the next ones of a pre-drawn stream."""
        p = self._pool_pos
        if p + m > self._pool.size:
            self._new_uniforms(m)
            p = 0
        self._pool_pos = p + m
        return self._pool[p : p + m]

    def _new_uniforms(self, m: int) -> None:
        """A new pool of at least ``m`` uniforms, read from its start (what was left of
        the old one is never used)."""
        self._pool = self.rng.random(max(_POOL, m))
        self._pool_pos = 0

    def _random_cards(self, m: int) -> np.ndarray:
        """``m`` infinite-deck card ids: the next ones of a pre-drawn stream (one
        generator call per million cards)."""
        p = self._pool_pos
        if p + m > self._pool.size:
            self._pool = self.rng.integers(0, 52, size=max(_POOL, m), dtype=np.int16)
            p = 0
        self._pool_pos = p + m
        return self._pool[p : p + m]

    def _refill_mid_round(self, idx: np.ndarray) -> None:
        """A shoe ran dry mid-round: shuffle that table's discards back in (as a casino does)."""
        for t in idx.tolist():
            start = int(self.round_start[t])
            if start == 0:
                raise RuntimeError(
                    f"table {t}: the shoe and the discard tray are empty: every card is on "
                    f"the table"
                )
            row = self.shoe[t]
            on_table = row[start:].copy()
            discards = row[:start].copy()  # drawn at random from here on (lazy shuffle)
            row[: on_table.size] = on_table
            row[on_table.size :] = discards
            self.round_start[t] = 0
            self._dealt_minus_pos[t] += int(self.pos[t]) - on_table.size
            self.pos[t] = on_table.size
            self.undealt_hilo[t] = self._hilo_of_id.take(discards).sum()
            if self.track_cards:
                self.counts[t] = np.bincount(self._rank_of_id.take(discards), minlength=13)
            self.mid_round_reshuffles[t] += 1

    def stack(self, t: int, cards: str | list[Card]) -> None:
        """Deal these cards next at table ``t`` (as :meth:`Shoe.stack`).

        In a finite shoe each card is moved from the undealt cards (or from the
        discards) to the top, so the shoe still holds every card once.
        """
        wanted = parse_cards(cards) if isinstance(cards, str) else list(cards)
        ids = [c.index for c in wanted]
        if self.seats > 1:  # a row: its table's shoe, held by the row of seat 0
            t = int(self.lead_row[t])
        pos = int(self.pos[t])
        row = self.shoe[t]
        if self.infinite:
            if len(ids) > self.shoe_size:
                raise ValueError(
                    f"cannot stack {len(ids)} cards: at most {self.shoe_size} at a time"
                )
            # unread stacked cards stay in front of the new ones
            left = row[pos : int(self.stacked_end[t])].copy()
            both = np.concatenate([np.array(ids, dtype=np.int8), left])[: self.shoe_size]
            row[: both.size] = both
            self.pos[t] = 0
            self.stacked_end[t] = both.size
            self._stacked_any = self._ever_stacked = True
            return
        end = int(self.stacked_end[t])
        if end > pos:  # cards stacked earlier and not dealt yet follow the new ones
            ids = ids + [int(c) for c in row[pos:end]]
            self.stacked_end[t] = pos
        if pos + len(ids) > self.shoe_size:
            raise ValueError(
                f"cannot stack {len(ids)} cards: table {t} has {self.shoe_size - pos} left"
            )
        new = row.copy()
        for k, cid in enumerate(ids):
            j = pos + k
            where = (new[j:] == cid).nonzero()[0]
            if where.size:
                src = j + int(where[0])
            else:
                where = (new[: int(self.round_start[t])] == cid).nonzero()[0]
                if not where.size:
                    raise ValueError(
                        f"cannot stack {ALL_CARDS[cid]}: all {self.decks} cop"
                        f"{'y' if self.decks == 1 else 'ies'} of it are on the table or "
                        f"already stacked"
                    )
                src = int(where[0])
            new[j], new[src] = new[src], new[j]
        row[:] = new
        self.stacked_end[t] = pos + len(ids)
        self._stacked_any = self._ever_stacked = True
        self.undealt_hilo[t] = self._hilo_of_id[row[pos:]].sum()
        if self.track_cards:
            self.counts[t] = np.bincount(self._rank_of_id[row[pos:]], minlength=13)

    def clear_stacks(self, idx: np.ndarray) -> None:
        """Stacked cards not dealt yet at tables ``idx`` go back into the shoe at random
        places, as :meth:`Shoe.clear_stack`."""
        if not self._stacked_any:
            return  # nothing stacked is pending anywhere
        idx = np.asarray(idx, dtype=np.int64)
        if self.infinite:
            self.pos[idx] = 0
        # a finite shoe deals its undealt cards at random: forgetting the stack is enough
        self.stacked_end[idx] = 0

    # ------------------------------------------------ what a counter can know
    def shoe_count(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per table of ``idx``: Hi-Lo sum and number of the undealt cards (zeros for an
        infinite deck): what the player has not seen between rounds."""
        if self.infinite:
            zero = np.zeros(idx.size, dtype=np.int64)
            return zero, zero
        return self.undealt_hilo[idx], self.shoe_size - self.pos[idx]

    def undealt_counts(self) -> np.ndarray:
        """``(N, 13)`` undealt cards by rank (finite shoes; zeros for an infinite deck)."""
        out = np.zeros((self.num_tables, 13), dtype=np.int64)
        if self.infinite:
            return out
        shoe = self.shoe if self.seats == 1 else self.shoe[self.lead_row]
        ranks = self._rank_of_id.take(shoe)
        live = np.arange(self.shoe_size)[None, :] >= self.pos[:, None]
        np.add.at(out, (np.broadcast_to(self._arange[:, None], ranks.shape)[live], ranks[live]), 1)
        return out

    def unseen_hilo(self) -> tuple[np.ndarray, np.ndarray]:
        """Per table: Hi-Lo sum and number of the cards the player has not seen (the
        undealt shoe plus the dealer's face-down hole card); zeros for an infinite deck."""
        if self.infinite:
            zero = np.zeros(self.num_tables, dtype=np.int64)
            return zero, zero
        hilo = self.undealt_hilo
        left = self.shoe_size - self.pos
        hidden = (self.hole >= 0) & ~self.hole_revealed
        # hole -1, no hole card: take reads the last entry, times hidden False
        return hilo + self._hilo_of_id.take(self.hole) * hidden, left + hidden
