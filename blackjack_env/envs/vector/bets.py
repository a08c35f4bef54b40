"""Bet steps and bankrolls of the batched env (a mixin of
:class:`~blackjack_env.envs.vector.BlackjackVectorEnv`).

With ``bet_sizes`` every round opens with a BET step: :meth:`BetsMixin._start_rounds`
opens it, :meth:`BetsMixin._refresh_bets` gives its mask (the sizes the table limits and
the learner's chips allow), :meth:`BetsMixin._bet_step` places the bets (an illegal bet is
mapped by ``envs.step.array_map_illegal_bet``) and deals. With a finite ``bankroll`` the
learner's chips are the batch's (:meth:`BetsMixin._bankroll_chips`) and a session ends
when they cannot cover the smallest bet (:meth:`BetsMixin._broke`).
"""

from __future__ import annotations

import numpy as np

from blackjack_env.engine import play
from blackjack_env.engine.cards import Card
from blackjack_env.envs.codes import BatchPhase
from blackjack_env.envs.step import Decision, array_map_illegal_bet
from blackjack_env.envs.vector.state import VectorState

__all__ = ["BetsMixin"]

_BET = int(Decision.BET)
_BATCH_OVER = int(BatchPhase.OVER)


class BetsMixin(VectorState):
    """The bet-step and bankroll methods of
    :class:`~blackjack_env.envs.vector.BlackjackVectorEnv`."""

    def _init_bets(self) -> None:
        """Constants of the bet step (``bet_sizes``) and of a finite ``bankroll``."""
        settings = self.settings
        #: a BET step opens every round (``bet_sizes``)
        self._bets = bool(settings.bet_sizes)
        self._bet_chips = self.tables.bet_chips
        # the bet sizes the table limits allow (the bankroll's cover is checked per step)
        self._bet_within = self.tables.bet_within
        # a payout such as 6:5 times a stake other than 1 (a bet of 3 chips, a double, a
        # bet step), or summed over split hands and rounds, is not exact in floats (3 *
        # 1.2 is 3.5999999999999996): rewards and chips are then taken from the exact
        # chips (the single env's float(Fraction); the JAX adapters' chips_to_float)
        # under a rule space: a unit every rule set's chips are multiples of
        bank = self.bank
        den = play.chip_denominator(self.rules) if bank is None else bank.chip_denominator()
        self._chip_den = den
        self._exact_chips = den & (den - 1) != 0

    def _exact_net(self, net: np.ndarray) -> np.ndarray:
        """Round results in base bets, from the exact chips (multiples of ``1 / den``)."""
        den = self._chip_den
        return np.rint(net * (self.bet * den)) / den / self.bet

    def _start_rounds(
        self,
        idx: np.ndarray,
        stacks: dict[int, list[Card]] | None = None,
        episode: bool = False,
    ) -> None:
        """Start the next round at tables ``idx``: dealt at once with a fixed bet, or
        opened for its BET step with ``bet_sizes`` (``stacks`` are then dealt after the
        bet). ``episode``: a new session, which starts with ``bankroll`` chips."""
        batch = self.batch
        assert batch is not None
        bankroll = self.settings.bankroll
        if episode and batch.bankroll is not None and bankroll is not None:
            batch.set_chips(idx, bankroll)
        if not self._bets:
            batch.start_rounds(idx, stacks)
            return
        batch.open_rounds(idx)
        if stacks:
            for t, cards in stacks.items():
                batch.stack(int(t), cards)

    def _active(self, resetting: np.ndarray) -> np.ndarray | None:
        """The tables that step: not reset on this step, not at a BET step."""
        skip = resetting
        if self._bets:
            assert self.batch is not None
            skip = resetting | self.batch.opened
        return ~skip if np.count_nonzero(skip) else None

    def _bet_step(
        self,
        a: np.ndarray,
        illegal: np.ndarray,
        played: np.ndarray,
        resetting: np.ndarray,
        over: np.ndarray,
        net: np.ndarray,
    ) -> np.ndarray:
        """The BET steps of this step: the tables at one place their bet (an illegal
        action bets what the single env's mapping chooses) and are dealt; a round settled
        at the deal ends on this step (``over`` and ``net`` are written). Returns
        ``played`` with the bet actions played."""
        batch = self.batch
        assert batch is not None
        rows = (batch.opened & ~resetting).nonzero()[0]
        played = played.copy()  # it may be the caller's array
        if not rows.size:
            return played
        n_play = self._n_play
        allowed = self._mask[rows, n_play:] > 0
        want = a[rows] - n_play
        k = want
        bad = illegal[rows]
        if np.count_nonzero(bad):
            k = np.where(bad, array_map_illegal_bet(want, allowed), want)
        played[rows] = n_play + k
        batch.start_rounds(rows, bets=self._bet_chips[k])
        settled = rows[batch.phase[rows] == _BATCH_OVER]
        if settled.size:
            over[settled] = True
            net[settled] = batch.round_net(settled)
        return played

    def _broke(self, more: np.ndarray) -> np.ndarray:
        """Tables among ``more`` whose learner cannot cover the smallest bet now."""
        batch = self.batch
        assert batch is not None and batch.bankroll is not None
        out = np.zeros(self.num_envs, dtype=bool)
        rows = more.nonzero()[0]
        if rows.size:
            out[rows] = ~play.array_can_cover(batch.chips(rows), self.settings.min_cost)
        return out

    def _bankroll_chips(self) -> np.ndarray:
        """``info["bankroll"]``: the learner's chips off the table (a finite bankroll), or
        the session's net chips (unlimited credit); a new array."""
        batch = self.batch
        assert batch is not None
        if batch.bankroll is None:
            return self._session_net.copy()
        return batch.chips(self._arange)

    def _refresh_bets(self) -> None:
        """:meth:`_refresh` for tables at a BET step: the phase, and only the bet sizes the
        table limits and the learner's chips allow."""
        batch = self.batch
        assert batch is not None
        rows = batch.opened.nonzero()[0]
        if not rows.size:
            return
        self._phase[rows] = _BET
        allowed = np.broadcast_to(self._bet_within, (rows.size, self._bet_within.size))
        if batch.bankroll is not None:
            allowed = allowed & play.array_can_cover(
                batch.chips(rows)[:, None], self._bet_chips[None, :]
            )
        mask = np.zeros((rows.size, self._n_actions), dtype=np.int8)
        mask[:, self._n_play :] = allowed
        self._mask[rows] = mask
