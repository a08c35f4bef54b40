"""The dealer's turn at the batched tables.

Methods of :class:`~blackjack_env.envs.batch.TableBatch` (a mixin): the turn at every
table whose hands are all done (:meth:`DealerMixin._flush_dealer`, once per call), the
no-hole-card second card and the drawing to the rules (:meth:`DealerMixin._dealer_draws`),
or, for an infinite deck with nothing stacked, the final hand sampled in one step from
the exact distribution (:meth:`DealerMixin._sample_dealer`); then settlement
(:mod:`.settlement`); and the upcard's value (:meth:`DealerMixin.dealer_up_value`).
With several seats the turn is played once per table
(:meth:`~.seats.SeatsMixin._dealer_turn_seats`).
"""

from __future__ import annotations

import numpy as np

from blackjack_env.analysis.dealer import final_distribution
from blackjack_env.engine import play
from blackjack_env.engine.rules import Rules
from blackjack_env.envs.batch import kernels
from blackjack_env.envs.batch.shoe import deal_swap
from blackjack_env.envs.batch.state import BatchState
from blackjack_env.envs.codes import PHASE_OVER

#: The dealer's final total (22: bust) by the category 0..5 of :meth:`TableBatch._dealer_cdf`
#: (17, 18, 19, 20, 21, bust), for any count 0..16 of thresholds passed.
_DEALER_FINAL = np.minimum(17 + np.arange(17), 22)


def dealer_cdf(rules: Rules) -> np.ndarray:
    """Infinite deck: ``cdf[2 * hard + ace, k]`` = P(the dealer ends on category <= k)
    from a hand of two or more cards (categories: 17, 18, 19, 20, 21, bust), from the
    exact analysis (:func:`~blackjack_env.analysis.dealer.final_distribution`); rows of 8
    (2.0 after the top: never <= u), by key ``2 * hard + ace``: ``(64, 8)``."""
    cdf = np.ones((32, 2, 6))
    for hard in range(2, 32):
        for ace in (False, True):
            cdf[hard, int(ace)] = np.cumsum(final_distribution(rules, hard, ace)[:6])
    cdf[..., -1] = 1.0  # exact top, whatever the rounding
    out = np.full((64, 8), 2.0)
    out[:, :6] = cdf.reshape(64, 6)
    return out


class DealerMixin(BatchState):
    """The dealer methods of :class:`~blackjack_env.envs.batch.TableBatch`."""

    def _flush_dealer(self) -> None:
        """The dealer's turn at every table whose hands were all finished in this call."""
        if self._to_dealer:
            queue, self._to_dealer = self._to_dealer, []
            idx = np.concatenate(queue) if len(queue) > 1 else queue[0]
            if self.seats > 1:
                self._seats_done(idx)
            else:
                self._dealer_turn(idx)

    def _round_over(self, idx: np.ndarray) -> np.ndarray | None:
        """One seat: the rounds at tables ``idx`` end (``OVER``, the cursor on the last
        hand, the hole card shown where the dealer has one: without a hole card the
        second card is dealt only if the dealer plays). Returns ``nhands`` at ``idx``
        (None with one hand)."""
        self.phase[idx] = PHASE_OVER
        nh = None
        if self.max_hands > 1:  # one hand: the cursor is always on hand 0
            nh = self.nhands.take(idx)
            self.cur[idx] = nh - 1
        if self._mixed:  # the tables dealt a hole card show it
            self.hole_revealed[idx[~self._flag_t["no_hole"].take(idx)]] = True
        elif not self._no_hole:  # every table shows its hole card, played or not
            self.hole_revealed[idx] = True
        return nh

    def _dealer_turn(self, idx: np.ndarray) -> None:
        nh = self._round_over(idx)
        # any_open: some hand is unsettled; plays: some unsettled hand was not surrendered
        any_open = ~self._settled.take(idx)
        surrender = self._surrenders
        plays = any_open & ~self._surrendered.take(idx) if surrender else any_open
        # the unsettled hands, settled at the end (the dealer's turn settles none); the
        # walk over them adds the split tables' later hands to any_open and plays
        f, t = self._hand_grid(idx, nh, any_open, plays if surrender else None)
        if np.count_nonzero(any_open) != any_open.size:
            if self._mixed:  # no hole card: a table with nothing open shows none
                shut = idx[~any_open]
                self.hole_revealed[shut[self._flag_t["no_hole"].take(shut)]] = False
            elif self._no_hole:
                self.hole_revealed[idx[~any_open]] = False
            keep = any_open.nonzero()[0]
            if not keep.size:
                return
            idx = idx.take(keep)
            if surrender:
                plays = plays.take(keep)
        # without surrender every open table plays
        self._dealer_draws(idx, idx.compress(plays) if surrender else idx)
        self._settle_hands(f, t)

    def _settle_hands(self, f: np.ndarray, t: np.ndarray) -> None:
        """Settle hands ``f`` (flat) of tables ``t`` once the dealer has played: by the
        highest hand or against the dealer (per table in a mixed batch)."""
        if self._mixed:
            top = self._flag_t["highest"].take(t)
            if np.count_nonzero(top):
                self._settle_highest(f[top], t[top])
                f, t = f[~top], t[~top]
            if f.size:
                self._pay_outcomes(f, self._compare(f, t))
        elif self._highest:
            self._settle_highest(f, t)
        elif f.size:
            self._pay_outcomes(f, self._compare(f, t))

    def _dealer_draws(self, open_: np.ndarray, drawing: np.ndarray) -> None:
        """The dealer's turn at tables ``open_`` (some hand still open): without a hole
        card its second card is dealt now; then it draws to the rules at the tables
        ``drawing`` (a subset of ``open_``: some hand is neither settled nor surrendered).
        An infinite deck with nothing stacked samples the final hand in one step."""
        second = None
        if self._mixed:  # the tables dealt no hole card
            second = open_[self._flag_t["no_hole"].take(open_)]
        elif self._no_hole:
            second = open_
        if second is not None and second.size:
            card = self._draw(second)
            self._dealer_add(second, card)
            self.hole[second] = card
            self.hole_revealed[second] = True
        if self.infinite and not self._stacked_any and not self.track_cards and drawing.size:
            self._sample_dealer(drawing)
            return
        if not (self.infinite or self._stacked_any or self.track_cards):
            drawing = self._dealer_draws_shoe(drawing)
        hits = self._dealer_hits
        while drawing.size:
            key = self.d_hard[drawing] * 2 + self.d_ace[drawing]
            need = hits.take(self._at("dealer_hits", key, drawing) if self._mixed else key)
            drawing = drawing[need]
            if drawing.size:
                self._dealer_add(drawing, self._draw(drawing))

    def _dealer_draws_shoe(self, t: np.ndarray) -> np.ndarray:
        """The dealer draws to the rules at tables ``t`` (rows holding the shoe) from
        finite shoes with no stacked card pending and cards not tracked by rank: the
        draws of :meth:`_draw` (the same uniforms, tables and cards, in the same order),
        with the hand kept as its key ``2 * hard + ace`` and moved on by
        :attr:`_dealer_next`, and the shoe's counters written once at the end. Returns
        the tables that must go on card by card because a shoe may run dry (usually
        none)."""
        if self._kernels is not None:  # the same draws, compiled (kernels.dealer_draws)
            return self._dealer_draws_compiled(t)
        key = self.d_hard.take(t)
        key *= 2
        key += self.d_ace.take(t)
        # a mixed batch: each table's rows of the drawing and next-key tables
        hit_off = next_off = None
        if self._mixed:
            hit_off = self._off["dealer_hits"].take(t)
        sel = self._dealer_hits.take(key if hit_off is None else key + hit_off).nonzero()[0]
        if not sel.size:
            return sel
        t, key = t.take(sel), key.take(sel)
        if hit_off is not None:
            hit_off = hit_off.take(sel)
            next_off = self._off["dealer_next"].take(t)
        size = self.shoe_size
        pos = self.pos[t]
        # draws every table can make from its undealt cards
        room = size - int(np.maximum.reduce(pos))
        first = t * size
        first += pos  # flat index of each table's first undealt card
        left = (size - pos).astype(np.float64)  # its undealt cards (exact as float64)
        acc = np.zeros(t.size, dtype=np.int64)  # sum of _draw_tag over the cards drawn
        act = self._dealer_draws_numpy(first, left, key, acc, np.arange(t.size), room,
                                       hit_off, next_off)
        n = (acc + 32) >> 6  # cards drawn at each table
        self.pos[t] = pos + n
        self.undealt_hilo[t] -= acc - (n << 6)
        self.d_hard[t] = key >> 1
        self.d_ace[t] = (key & 1).astype(bool)
        self.d_n[t] += n
        return t[act]

    def _dealer_draws_compiled(self, t: np.ndarray) -> np.ndarray:
        """:meth:`_dealer_draws_shoe` by :func:`.kernels.dealer_draws`, a new pool of
        uniforms drawn where :meth:`_uniforms` would draw it."""
        compiled = self._kernels
        assert compiled is not None
        if self._mixed:
            hit_off = self._off["dealer_hits"].take(t)
            next_off = self._off["dealer_next"].take(t)
        else:
            hit_off = next_off = np.zeros(t.size, dtype=np.int64)
        state = np.array([0, 0, self._pool_pos, 0, 0], dtype=np.int64)
        scratch = np.empty((4, t.size), dtype=np.int64)
        left = np.empty(t.size, dtype=np.float64)
        while compiled.dealer_draws(
            self._shoe_flat, self.shoe_size, t, self.pos, self.d_hard, self.d_ace, self.d_n,
            self.undealt_hilo, self._pool, state, self._dealer_next, self._dealer_hits,
            self._draw_tag, hit_off, next_off, scratch, left,
        ) == kernels.NEED_UNIFORMS:
            self._new_uniforms(int(state[0]))  # as _uniforms: the rest of the pool is skipped
            state[2] = 0
        self._pool_pos = int(state[2])
        return t.take(scratch[3, : state[0]])

    def _dealer_draws_numpy(
        self, first: np.ndarray, left: np.ndarray, key: np.ndarray, acc: np.ndarray,
        act: np.ndarray, room: int, hit_off: np.ndarray | None, next_off: np.ndarray | None,
    ) -> np.ndarray:
        """:meth:`_dealer_draws_shoe`'s loop in numpy, one round of cards at a time;
        returns the positions still drawing (out of room)."""
        flat, after = self._shoe_flat, self._dealer_next
        hits, tag = self._dealer_hits, self._draw_tag
        j = 0
        while act.size and j < room:
            # every table still drawing has drawn j cards: its next card is at first + j
            u = self._uniforms(act.size)
            fi = first.take(act)
            fi += j
            off = left.take(act)
            off -= j
            off *= u
            fj = off.astype(np.int64)
            fj += fi
            cards = deal_swap(flat, fi, fj).astype(np.intp)
            k = key.take(act)
            k *= 52
            k += cards
            if hit_off is not None and next_off is not None:
                k += next_off.take(act)
                k = after.take(k)
                key[act] = k
                acc[act] += tag.take(cards)
                act = act.compress(hits.take(k + hit_off.take(act)))
            else:
                k = after.take(k)
                key[act] = k
                acc[act] += tag.take(cards)
                act = act.compress(hits.take(k))
            j += 1
        return act

    def _dealer_cdf(self) -> np.ndarray:
        """Infinite deck: the dealer's final-hand CDF table of the batch's rules
        (:func:`dealer_cdf`)."""
        return dealer_cdf(self.rules)

    def _sample_dealer(self, idx: np.ndarray) -> None:
        """Infinite deck, no stacked cards: the dealer's drawing at tables ``idx`` in one
        step, sampled from the exact distribution of the final hand given the cards
        showing. ``d_hard`` then holds the final total (22: bust), ``d_ace`` False and
        ``d_n`` 3 (three or more cards: the drawn cards themselves are not kept)."""
        key = self.d_hard[idx] * 2
        key += self.d_ace[idx]
        if self._mixed:  # each table's rows of the bank's drawing and CDF tables
            cdf = self._cdf_stack
            sel = self._dealer_hits.take(self._at("dealer_hits", key, idx)).nonzero()[0]
            if not sel.size:
                return
            idx = idx[sel]
            key = key[sel] + self._cdf_off.take(idx)
        else:
            if self._cdf is None:
                self._cdf = self._dealer_cdf()
            cdf = self._cdf
            sel = self._dealer_hits.take(key).nonzero()[0]
            if not sel.size:
                return
            idx = idx[sel]
            key = key[sel]
        # row (hard, ace) of the CDF table, as one gather of whole rows; the category is
        # the number of thresholds <= u, the number of True bytes in the row of 8
        # comparisons read as one 8-byte word: each byte's weight, 256 ** j, is 1 modulo 17
        rows = cdf.take(key, axis=0)
        u = self._random_uniform(idx.size)
        words = (rows <= u[:, None]).view(np.uint64).reshape(-1)
        self.d_hard[idx] = _DEALER_FINAL.take(words % 17)
        self.d_ace[idx] = False
        self.d_n[idx] = 3

    def _random_uniform(self, m: int) -> np.ndarray:
        """``m`` uniforms in [0, 1) for the infinite deck (from the one generator)."""
        return self.rng.random(m)

    def _dealer_add(self, idx: np.ndarray, cards: np.ndarray) -> None:
        r = self._rank_of_id.take(cards)
        if self.track_cards:
            self.dealer_ranks[idx, r] += 1
        self.d_hard[idx] += self._values.take(self._at("card_values", r, idx) if self._mixed else r)
        self.d_ace[idx] |= r == 0
        self.d_n[idx] += 1

    def _dealer_bj(self, idx: np.ndarray) -> np.ndarray:
        return play.array_natural(self.d_n[idx], self.d_hard[idx], self.d_ace[idx])

    def dealer_up_value(self) -> np.ndarray:
        """Point value of each dealer upcard (ace = 1)."""
        if self._mixed:
            return self._value_of_id.take(self.up + self._off["value_of_card"])
        return self._value_of_id.take(self.up)
