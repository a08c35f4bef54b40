"""Bet steps and bankrolls (chips) at the batched tables.

Methods of :class:`~blackjack_env.envs.batch.TableBatch` (a mixin): the state of bet
sizes and finite bankrolls (:meth:`ChipsMixin._init_chips`, called by ``__init__``),
opening a round before its bet (:meth:`ChipsMixin.open_rounds`), the chips a player holds
(:meth:`ChipsMixin.chips`, :meth:`ChipsMixin.set_chips`, exact in units of
``1 / chip_den``), and what the bankroll affords (a double, insurance, a split's stake).
"""

from __future__ import annotations

import numpy as np

from blackjack_env.engine import play
from blackjack_env.envs.batch.state import BatchState


class ChipsMixin(BatchState):
    """The chips methods of :class:`~blackjack_env.envs.batch.TableBatch`."""

    def _init_chips(self, bet_sizes: tuple[int, ...], bankroll: int | None) -> None:
        """State for bet steps (:meth:`open_rounds`) and finite bankrolls (:meth:`chips`)."""
        rules = self.rules
        n = self.num_tables
        self.bet_sizes = tuple(bet_sizes)
        if self.bet_sizes:  # each round stakes the size bet on it: the stake is not fixed
            self._stake_fixed = False
        #: tables between rounds, opened by :meth:`open_rounds` (awaiting a bet)
        self.opened = np.zeros(n, dtype=bool)
        self._opened_any = False
        self._open_reshuffled = np.zeros(n, dtype=bool)
        #: chip amounts are kept as integers in units of 1 / chip_den chips (exact)
        self.chip_den = play.chip_denominator(rules)
        #: per table, the player's chips before the current round's bet, in units of
        #: 1 / chip_den (None: unlimited credit); read :meth:`chips`
        self.bankroll: np.ndarray | None = (
            None if bankroll is None else np.full(n, int(bankroll) * self.chip_den, np.int64)
        )

    def open_rounds(self, idx: np.ndarray) -> None:
        """Open the next round at tables ``idx`` before its bet, as ``Table.new_round``: the
        last round's cards go to the discard tray and the shoe is reshuffled where the cut
        card is out (``reshuffled`` tells). :meth:`start_rounds` then deals without a
        second check. Tables already opened are left as they are."""
        idx = np.asarray(idx, dtype=np.int64)
        idx = idx[~self.opened[idx]]
        if not idx.size:
            return
        self.opened[idx] = True
        self._opened_any = True
        if self.infinite:
            self.reshuffled[idx] = False
        else:
            self.round_start[idx] = self.pos[idx]
            shuffle = self.needs_shuffle(idx)
            self.reshuffled[idx] = shuffle
            if np.count_nonzero(shuffle):
                self._new_shoes(idx[shuffle])
        self._open_reshuffled[idx] = self.reshuffled[idx]

    def _close_openings(self, idx: np.ndarray) -> None:
        """:meth:`start_rounds` at tables ``idx``: an opened table keeps the reshuffle flag
        of its opening (the deal itself found nothing to reshuffle)."""
        was = idx[self.opened[idx]]
        if was.size:
            self.reshuffled[was] = self._open_reshuffled[was]
            self.opened[was] = False
            self._opened_any = bool(np.count_nonzero(self.opened))

    def _on_table_units(self, idx: np.ndarray) -> np.ndarray:
        """The current round at tables ``idx`` in units of ``1 / chip_den``: its net result
        so far minus the chips still staked on unsettled hands (the player's chips off the
        table differ from those before the round's bet by this)."""
        stakes = np.where(self._settled[idx], 0, self._stake[idx])
        if self.max_hands > 1:
            for sel, fk in self._later_hands(idx):
                stakes[sel] += np.where(self._settled[fk], 0, self._stake[fk])
        chips = self.round_net(idx) * self.bet - stakes
        return np.rint(chips * self.chip_den).astype(np.int64)

    def chips(self, idx: np.ndarray) -> np.ndarray:
        """The chips the player at each table of ``idx`` holds off the table now (finite
        bankrolls only): float64, each the exact amount correctly rounded."""
        assert self.bankroll is not None
        return (self.bankroll[idx] + self._on_table_units(idx)) / self.chip_den

    def set_chips(self, idx: np.ndarray, chips: int | np.ndarray) -> None:
        """Give the player at tables ``idx`` ``chips`` off the table now (a new session)."""
        assert self.bankroll is not None
        units = np.rint(np.asarray(chips, dtype=np.float64) * self.chip_den).astype(np.int64)
        self.bankroll[idx] = units - self._on_table_units(idx)

    def _short_of_double(self, decide: np.ndarray) -> np.ndarray:
        """Per table: the chips off the table do not cover the current hand's stake (a
        double); meaningful where ``decide``."""
        if self.max_hands == 1:
            f = self._arange
        else:
            f = np.where(decide, self.cur, 0) * self.num_tables + self._arange
        return ~play.array_can_cover(self.chips(self._arange), self._stake[f])

    def _covers_insurance(self, idx: np.ndarray) -> np.ndarray:
        """Per table of ``idx``: insurance (or even money, on a natural) is affordable."""
        stake = self._stake[idx] * float(play.insurance_stake(1))
        return self._is_bj(idx, idx) | play.array_can_cover(self.chips(idx), stake)

    def _split_stakes_ok(self, f: np.ndarray) -> np.ndarray:
        """:func:`~blackjack_env.engine.play.split_stake_ok` of hands ``f`` (flat), with
        the bankroll's cover of their stake."""
        stake = self._stake[f]
        if self.bankroll is None:
            covers = np.ones(f.size, dtype=bool)
        else:
            covers = play.array_can_cover(self.chips(f % self.num_tables), stake)
        if self._mixed:  # each table's rules
            bank = self.bank
            assert bank is not None
            rules_of = [bank.rules[k] for k in self.rule_slot.take(f % self.num_tables).tolist()]
            triples = zip(rules_of, stake.tolist(), covers.tolist(), strict=True)
            return np.array([play.split_stake_ok(r, s, c) for r, s, c in triples], dtype=bool)
        rules = self.rules
        pairs = zip(stake.tolist(), covers.tolist(), strict=True)
        return np.array([play.split_stake_ok(rules, s, c) for s, c in pairs], dtype=bool)
