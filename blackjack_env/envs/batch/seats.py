"""Several seats per batched table (``seats=S``: row ``r`` is seat ``r % S`` of table ``r // S``).

Methods of :class:`~blackjack_env.envs.batch.TableBatch` (a mixin): which seat each table
waits for (:meth:`SeatsMixin.acting`), the deal in casino order, the pre-peek questions
seat by seat, the seats' shoe counters copied from the row of seat 0, and the dealer's
turn played once per table and copied to every seat. See the package docstring.
"""

from __future__ import annotations

import numpy as np

from blackjack_env.envs.batch.state import BatchState
from blackjack_env.envs.codes import (
    PHASE_DECIDE,
    PHASE_DONE,
    PHASE_INSURE,
    PHASE_OVER,
    PHASE_PEEK_WAIT,
)


class SeatsMixin(BatchState):
    """The several-seats methods of :class:`~blackjack_env.envs.batch.TableBatch`."""

    def acting(self) -> np.ndarray:
        """``(N,)`` bool: the row (seat) each table waits for, the table's next decision.

        One seat: every row. Several seats, in casino order: the first seat still to
        answer the pre-peek question; once every answer is in (and the peek is done),
        the first seat with a hand to play; a table whose round is over (settled at
        the deal, its result not yet reported): seat 0."""
        if self.seats == 1:
            return np.ones(self.num_tables, dtype=bool)
        phase = self.phase.reshape(-1, self.seats)
        ins = phase == PHASE_INSURE
        dec = phase == PHASE_DECIDE
        first = np.where(ins.any(axis=1), ins.argmax(axis=1), dec.argmax(axis=1))
        out = np.zeros(phase.shape, dtype=bool)
        out[np.arange(phase.shape[0]), first] = True
        return out.reshape(-1)

    def _table_rows(self, rows: np.ndarray) -> np.ndarray:
        """``(T', S)``: every row of the tables of ``rows`` (each table once, ascending)."""
        s = self.seats
        tables = np.zeros(self.num_tables // s, dtype=bool)
        tables[rows // s] = True  # a mark per table: cheaper than np.unique
        return tables.nonzero()[0][:, None] * s + np.arange(s)

    def _sync_shoes(self) -> None:
        """Several seats: every row of a table reads its shoe's state (kept at the row
        of seat 0, the only row that draws)."""
        lead = self.lead_row
        for arr in (
            self.pos, self.stacked_end, self.round_start, self._dealt_minus_pos,
            self.undealt_hilo, self.shuffles, self.mid_round_reshuffles, self.reshuffled,
        ):  # fmt: skip
            arr[:] = arr[lead]
        if self.track_cards and not self.infinite:
            self.counts[:] = self.counts[lead]

    def _deal_seats(self, idx: np.ndarray, k: int) -> np.ndarray:
        """Several seats: deal the round at the tables of ``idx`` (whole tables, rows
        ascending) in casino order: a card to each seat, the dealer's upcard, a second
        card to each seat, the hole card (``k`` = 4; 3 without a hole card). Returns the
        card ids per row as :meth:`start_rounds` reads them, ``(k, len(idx))``: first
        card, upcard, second card (, hole card)."""
        s = self.seats
        if idx.size % s or not np.array_equal(
            idx.reshape(-1, s), idx[::s, None] + np.arange(s)
        ):
            raise ValueError(
                f"with {s} seats per table a round starts at whole tables (rows t * {s} .. "
                f"t * {s} + {s - 1})"
            )
        dealt = self._draw_many(idx[::s], 2 * s + k - 2).T  # shape (tables, cards)
        seat = np.arange(s)
        cols = [seat, np.full(s, s), s + 1 + seat]
        if k == 4:
            cols.append(np.full(s, 2 * s + 1))
        ids = dealt[:, np.stack(cols)]  # shape (tables, k, seats)
        return ids.transpose(1, 0, 2).reshape(k, -1).astype(np.intp)

    def _ask_seats(self, idx: np.ndarray, ask: np.ndarray) -> np.ndarray:
        """Several seats, at the deal: the seats of ``idx`` in ``ask`` get the pre-peek
        question; the other seats of those tables wait for the peek; tables where nobody
        is asked are peeked now. Returns the rows whose round goes on at those."""
        table_ask = ask.reshape(-1, self.seats).any(axis=1).repeat(self.seats)
        self.phase[idx[ask]] = PHASE_INSURE
        self.phase[idx[table_ask & ~ask]] = PHASE_PEEK_WAIT
        rest = idx[~table_ask]
        self._do_peek(rest)
        return rest[self.phase[rest] != PHASE_OVER]

    def _peek_seats(self, idx: np.ndarray) -> None:
        """Several seats: rows ``idx`` answered the pre-peek question; at the tables
        where every seat has answered, the dealer peeks and play starts at seat 0."""
        self.phase[idx] = PHASE_PEEK_WAIT
        rows = self._table_rows(idx)
        ready = ~(self.phase[rows] == PHASE_INSURE).any(axis=1)
        if not np.count_nonzero(ready):
            return
        rows = rows[ready].reshape(-1)
        self._do_peek(rows)
        rows = rows[self.phase[rows] != PHASE_OVER]
        self.phase[rows] = PHASE_DECIDE
        self.cur[rows] = -1
        self._advance(rows)

    def _seats_done(self, idx: np.ndarray) -> None:
        """Several seats: the hands of rows ``idx`` are all done; the dealer plays at the
        tables whose seats are all done."""
        self.phase[idx] = PHASE_DONE
        if self.max_hands > 1:  # the cursor stays on a hand the seat holds
            self.cur[idx] = self.nhands[idx] - 1
        rows = self._table_rows(idx)
        ready = (self.phase[rows] == PHASE_DONE).all(axis=1)
        if np.count_nonzero(ready):
            self._dealer_turn_seats(rows[ready].reshape(-1))

    def _dealer_turn_seats(self, rows: np.ndarray) -> None:
        """Several seats: the dealer's turn at the tables of ``rows`` (whole tables,
        ascending): drawn once per table (at the row of seat 0) if some seat has an
        unsettled hand that was not surrendered, then every seat's hands settled."""
        s = self.seats
        self.phase[rows] = PHASE_OVER
        nh = self.nhands[rows]
        if self.max_hands > 1:
            self.cur[rows] = nh - 1
        any_open = ~self._settled[rows]
        surrender = self._surrenders
        plays = any_open & ~self._surrendered[rows] if surrender else None
        # the unsettled hands, settled at the end (the rows of tables with none hold
        # none); the walk adds the split hands to any_open and plays
        f, t = self._hand_grid(rows, nh, any_open, plays)
        if plays is None:  # without surrender every open seat plays
            plays = any_open
        t_open = any_open.reshape(-1, s).any(axis=1)
        t_plays = plays.reshape(-1, s).any(axis=1)
        lead = rows[::s]
        if self._mixed:  # per table: its hole card shown, or (none dealt) none if all shut
            no_hole = self._flag_t["no_hole"].take(rows)
            self.hole_revealed[rows[~no_hole]] = True
            shut = (~t_open).repeat(s) & no_hole
            self.hole_revealed[rows[shut]] = False
        elif not self._no_hole:  # every table shows its hole card, played or not
            self.hole_revealed[rows] = True
        elif np.count_nonzero(t_open) != t_open.size:
            self.hole_revealed[rows.reshape(-1, s)[~t_open].reshape(-1)] = False
        lead, t_plays = lead[t_open], t_plays[t_open]
        if not lead.size:
            return
        self._dealer_draws(lead, lead[t_plays])
        # every seat of the table sees the dealer's hand
        open_rows = (lead[:, None] + np.arange(s)).reshape(-1)
        src = self.lead_row[open_rows]
        for arr in (self.d_hard, self.d_ace, self.d_n, self.hole, self.hole_revealed):
            arr[open_rows] = arr[src]
        if self.track_cards:
            self.dealer_ranks[open_rows] = self.dealer_ranks[src]
        self._settle_hands(f, t)
