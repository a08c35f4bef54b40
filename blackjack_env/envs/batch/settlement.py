"""Settlement at the batched tables: each hand's outcome and net, written in one place.

Methods of :class:`~blackjack_env.envs.batch.TableBatch` (a mixin): the unsettled hands
of some tables (:meth:`SettlementMixin._hand_grid`), their outcome against the dealer's
final hand read from one lookup table built from :mod:`blackjack_env.engine.play`
(:meth:`SettlementMixin._compare`), highest-hand settlement, and paying
(:meth:`SettlementMixin._pay`, :meth:`SettlementMixin._pay_outcomes`).
"""

from __future__ import annotations

import numpy as np

from blackjack_env.engine import play
from blackjack_env.engine.play import array_total
from blackjack_env.envs.batch.state import BatchState
from blackjack_env.envs.codes import OUTCOME_LOSS


class SettlementMixin(BatchState):
    """The settlement methods of :class:`~blackjack_env.envs.batch.TableBatch`."""

    def _hand_grid(
        self,
        idx: np.ndarray,
        nh: np.ndarray | None = None,
        any_open: np.ndarray | None = None,
        plays: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Flat index and table of every unsettled existing hand at tables ``idx``: hand 0
        of every table, then hands 1, 2, ... of the (few) split tables (the order of a
        row-major scan of the (hand, table) grid).

        ``nh``: ``nhands`` at ``idx``, when the caller has it. ``any_open``: whether each
        table's hand 0 is unsettled, when the caller has it; it then gains, in place, the
        tables with an unsettled later hand, and ``plays`` (if given) those with an
        unsettled later hand that was not surrendered (the dealer's turn)."""
        if any_open is None:
            any_open = ~self._settled.take(idx)
        t = idx.compress(any_open)
        if self.max_hands == 1:
            return t, t
        fs, ts = [t], [t]
        for k, (sel, fk) in enumerate(self._later_hands(idx, nh), 1):
            open_k = ~self._settled[fk]
            any_open[sel] |= open_k
            if plays is not None:
                plays[sel] |= open_k & ~self._surrendered[fk]
            fk = fk[open_k]
            fs.append(fk)
            ts.append(fk - k * self.num_tables)
        if len(fs) == 1:
            return t, t
        return np.concatenate(fs), np.concatenate(ts)

    def _settle_by_compare(self, idx: np.ndarray) -> None:
        f, t = self._hand_grid(idx)
        if f.size:
            self._pay_outcomes(f, self._compare(f, t))

    def _compare(self, f: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Outcome codes of standing hands against the dealer's final hand (as Table._compare).

        Looked up by the two hands (total, natural) in ``RuleTables.by_hands``."""
        by_hands = self._by_hands
        width = by_hands.shape[1] // 2
        two = self._ncards.take(f) == 2  # a natural: two cards, an ace and a hard 11
        if self._mixed and self.max_hands > 1:  # per table: split naturals count or not
            two &= (self.nhands.take(t) == 1) | self._flag_t["split_naturals"].take(t)
        elif self.max_hands > 1 and not self._split_naturals:
            two &= self.nhands.take(t) == 1
        key = self._hard.take(f)
        key *= 2
        key += self._ace.take(f)
        key += width * two
        key *= 2 * width
        key += self.d_hard.take(t) * 2
        key += self.d_ace.take(t)
        key += width * (self.d_n.take(t) == 2)
        if self._mixed:  # each table's outcome rows in the bank
            key += self._off["by_hands"].take(t)
        out = by_hands.reshape(-1).take(key)
        surr = self._surrendered.take(f)
        if np.count_nonzero(surr):
            out = np.where(surr, play.array_surrender_outcome(self._dealer_bj(t)), out)
        return out

    def _settle_highest(self, f: np.ndarray, t: np.ndarray) -> None:
        """``Settlement.HIGHEST_HAND`` for one seat's unsettled hands ``f`` (flat) at
        tables ``t`` (:meth:`_hand_grid`): only the best can win, as
        :func:`~blackjack_env.engine.play.highest_hand_outcomes` decides (surrendered
        hands as :meth:`_compare`; live hands judged where
        :func:`~blackjack_env.engine.play.array_highest_hand_judged`, else lost)."""
        if not f.size:
            return
        surr = self._surrendered[f]
        if np.count_nonzero(surr):
            self._pay_outcomes(f[surr], self._compare(f[surr], t[surr]))
            f, t = f[~surr], t[~surr]
        hard = self._hard[f]
        live = hard <= 21
        f, t, hard = f[live], t[live], hard[live]
        if not f.size:
            return
        total = array_total(hard, self._ace[f])
        top = np.full(self.num_tables, -1, dtype=np.int64)
        np.maximum.at(top, t, total)
        judged = play.array_highest_hand_judged(total, top[t], self.d_hard[t] > 21)
        out = np.full(f.size, OUTCOME_LOSS, dtype=np.int64)  # play.highest_hand_outcomes
        if np.count_nonzero(judged):
            out[judged] = self._compare(f[judged], t[judged])
        self._pay_outcomes(f, out)

    def _pay(self, f: np.ndarray, code: int) -> None:
        """Settle hands ``f`` with one outcome (as :meth:`_pay_outcomes`)."""
        self._outcome[f] = code
        if self._mixed:  # each table's payouts
            self._net[f] = self._stake[f] * self._factor.take(
                code + self._off["payouts"].take(f % self.num_tables))
        elif self._stake_fixed:
            self._net[f] = self._bet_factor[code]
        else:
            self._net[f] = self._stake[f] * self._factor[code]
        self._settled[f] = True
        self._done[f] = True

    def _pay_outcomes(self, f: np.ndarray, codes: np.ndarray) -> None:
        """Settle hands (flat indices): the one place a hand's result is written."""
        self._outcome[f] = codes
        if self._mixed:  # each table's payouts
            self._net[f] = self._stake[f] * self._factor.take(
                codes + self._off["payouts"].take(f % self.num_tables))
        elif self._stake_fixed:
            self._net[f] = self._bet_factor.take(codes)
        else:
            self._net[f] = self._stake[f] * self._factor.take(codes)
        self._settled[f] = True
        self._done[f] = True
