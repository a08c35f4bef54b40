"""The batched env's learner view: the decision, the action mask and the observation of
every sub-env, built from the tables' arrays (a mixin of
:class:`~blackjack_env.envs.vector.BlackjackVectorEnv`).

The fields and their encoders are :mod:`blackjack_env.envs.view.fields`, the same functions
the single env's :class:`~blackjack_env.envs.view.layout.Layout` calls, so the batched
and single observations are equal for the same table state (the parity tests compare
them). :meth:`ObserveMixin._refresh` reads the decision (``envs.step``'s
``DECISION_BY_BATCH_PHASE``) and the mask row of every table;
:meth:`ObserveMixin._observation` encodes the observation in the env's mode, with the
BET step's observation at the tables that await a bet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from blackjack_env.engine import play
from blackjack_env.engine.play import Action, array_hi_lo_true_count, array_soft
from blackjack_env.envs.batch import TableBatch
from blackjack_env.envs.step import DECISION_BY_BATCH_PHASE, Decision
from blackjack_env.envs.vector.bets import BetsMixin
from blackjack_env.envs.view import fields
from blackjack_env.envs.view.layout import ObsMode

__all__ = ["ObserveMixin"]

_STAND, _HIT, _DOUBLE, _SPLIT, _SURRENDER, _INSURE = (int(a) for a in Action if a < Action.DECLINE)
_DECISION = DECISION_BY_BATCH_PHASE
_PLAY, _INSURANCE, _SETTLED = int(Decision.PLAY), int(Decision.INSURANCE), int(Decision.SETTLED)
_BET = int(Decision.BET)

#: Hi-Lo true counts, batched (``engine.play.array_hi_lo_true_count``; the callers pass
#: minus the Hi-Lo sum of the unseen cards: a full shoe's sum is 0)
_true_counts = array_hi_lo_true_count


class ObserveMixin(BetsMixin):
    """The observation, phase and mask methods of
    :class:`~blackjack_env.envs.vector.BlackjackVectorEnv`."""

    def _refresh(self) -> None:
        """Recompute the observation phase and the action masks from the batch."""
        batch = self.batch
        assert batch is not None
        if self._mask_rows is None or self.bank is not None:  # a bank grows: read it again
            self._mask_rows = self._mask_table(batch)
        self._phase = _DECISION.take(batch.phase)
        self._mask = self._mask_rows.take(batch.legal_keys(), axis=0)
        if self._bets:
            self._refresh_bets()
        if self.seats > 1:  # a seat the table does not wait for: SETTLED, every action
            self._acting = batch.acting()
            waiting = ~self._acting
            self._phase[waiting] = _SETTLED
            self._mask[waiting] = 1

    def _mask_table(self, batch: TableBatch) -> np.ndarray:
        """``(K, n)`` int8: the action-mask row of a table by its batch key
        (:meth:`TableBatch.legal_keys`): the rule tables' ``mask_rows``
        (:func:`blackjack_env.envs.tables.mask_rows`, where the rows are defined; a batch
        under per-table rules: its bank's, by the keys ``legal_keys`` gives)."""
        return batch.mask_rows

    def _focus(self) -> tuple[np.ndarray, np.ndarray]:
        """The hand each sub-env's observation describes (``focus_index``: the hand to act
        in play, else the hand last acted on; the batch's ``last_hand`` is always a hand
        the round holds, so no clamp is needed) and where the learner is in play."""
        batch = self.batch
        assert batch is not None
        play = self._phase == _PLAY
        if batch.max_hands == 1:
            return np.zeros(self.num_envs, dtype=np.int64), play
        h = batch.last_hand.copy()
        p = play.nonzero()[0]  # by index: faster than np.where on a random mask
        h[p] = batch.cur.take(p)
        return h, play

    def _true_count(self) -> np.ndarray:
        batch = self.batch
        assert batch is not None
        if self._infinite:
            return np.zeros(self.num_envs, dtype=np.float64)
        unseen_hilo, remaining = batch.unseen_hilo()
        return _true_counts(-unseen_hilo, remaining)

    def _count_buckets(self) -> np.ndarray:
        """The multidiscrete count field of each table, looked up by (running count,
        unseen cards) in a table of :func:`fields.count_bucket` built once (its values,
        computed once per pair); an infinite deck's (5) without a table."""
        batch = self.batch
        assert batch is not None
        if self._infinite:
            return np.full(self.num_envs, fields.BUCKET_CLIP, dtype=np.int64)
        unseen_hilo, remaining = batch.unseen_hilo()
        if self._bucket_rows is None:  # rows by running count, columns by unseen cards
            width = batch.shoe_size + 1
            # |running| is at most the cards of one tag in the shoe
            tags = np.array(play.HI_LO_TAGS)
            assert self._full_ranks is not None
            top = self._full_ranks * max(np.count_nonzero(tags > 0), np.count_nonzero(tags < 0))
            running = np.arange(-top, top + 1)[:, None].repeat(width, axis=1)
            unseen = np.arange(width)[None, :].repeat(running.shape[0], axis=0)
            grid = fields.count_bucket(running.reshape(-1), unseen.reshape(-1))
            self._bucket_rows = grid.astype(np.int8)
            self._bucket_width = width
            self._bucket_top = int(top)
        # row top - unseen_hilo (the running count, minus the unseen cards' tags)
        key = unseen_hilo * -self._bucket_width
        key += remaining
        key += self._bucket_top * self._bucket_width
        return self._bucket_rows.take(key)

    def _observe(self) -> Any:
        """The observation of every sub-env in the env's mode (BET steps: see
        :meth:`_observation`). Hand ``h`` of table ``t`` is element ``h * N + t`` of the
        flat hand arrays; the pre-peek question (phase ``INSURANCE``) is asked only under
        ``_pre_peek_decisions``."""
        batch = self.batch
        assert batch is not None
        mode = self.obs_mode
        if batch.max_hands > 1 or mode is not ObsMode.TUPLE:
            h, play = self._focus()
        if batch.max_hands > 1:
            fi = h * self.num_envs + self._arange
            hard = batch.hard.reshape(-1)[fi]
            soft = array_soft(hard, batch.ace.reshape(-1)[fi])
        else:
            fi = self._arange
            hard = batch.hard[0]
            soft = array_soft(hard, batch.ace[0])
        total = hard + 10 * soft
        up = batch.dealer_up_value()
        if mode is ObsMode.TUPLE:
            facts = {"total": total, "upcard": up, "soft": soft.astype(np.int64)}
            return fields.encode(mode.value, facts, self.layout.hands)
        facts = fields.Facts(self._facts(h, fi, play), phase=self._phase, total=total,
                             soft=soft, upcard=up, hand_index=h)
        if mode is ObsMode.DICT:  # the dict holds its arrays: copies, int64
            facts["phase"] = self._phase.copy()
            facts["soft"] = soft.astype(np.int64)
            facts["hand_index"] = h.astype(np.int64)
            facts["num_hands"] = batch.nhands.copy()
            out = fields.encode(mode.value, facts, self.layout.hands)
            if self._observe_rules:
                out[fields.DICT_RULES_KEY] = self._rule_features()
            return out
        obs = fields.encode(mode.value, facts, self.layout.hands)
        if self._observe_rules and mode is not ObsMode.MULTIDISCRETE:
            obs = fields.append_rules(obs, self._rule_features())
        return obs

    def _facts(self, h: np.ndarray, fi: np.ndarray, play: np.ndarray
               ) -> dict[str, Callable[[], Any]]:
        """The facts (:data:`~blackjack_env.envs.view.fields.FACTS`) of every sub-env
        beside the phase, the total, the upcard and the hand, each computed when a field
        reads it: ``h`` the focus hand, ``fi`` its flat index, ``play`` the sub-envs in
        play."""
        batch = self.batch
        assert batch is not None
        mask = self._mask
        ins = self._phase == _INSURANCE if self._pre_peek_decisions else None
        flags = mask.view(np.bool_)  # the mask holds 0 / 1
        n_play = self._n_play

        def can(action: int, phases: np.ndarray) -> Any:
            return phases & flags[:, action] if n_play > 2 else np.zeros_like(play)

        def ncards() -> np.ndarray:
            return batch.ncards.reshape(-1)[fi]

        return {
            "can_double": lambda: can(_DOUBLE, play),
            "can_split": lambda: can(_SPLIT, play),
            "can_surrender": lambda: can(_SURRENDER, play if ins is None else play | ins),
            "can_insure": lambda: (ins & (mask[:, _INSURE] > 0)
                                   if n_play == 6 and ins is not None else 0),
            "num_hands": lambda: batch.nhands,
            "cards": ncards,
            "pair": lambda: (ncards() == 2) & (batch.r0.reshape(-1)[fi]
                                               == batch.r1.reshape(-1)[fi]),
            "true_count": self._true_count,
            "count_bucket": self._count_buckets,
            "shoe_left": lambda: (1.0 if self._infinite
                                  else batch.remaining() / batch.shoe_size),
            "hand_cards": lambda: batch.hand_ranks.reshape(-1, 13)[fi],
            "dealer_cards": self._dealer_cards,
            "seat_cards": self._seat_cards,
            "unseen_cards": self._unseen_cards,
            "stake": lambda: batch.stake.reshape(-1)[fi] / self.bet,
            "bankroll": lambda: self._bankroll_chips() / self.bet,
            "action_mask": lambda: self._mask.copy(),
        }

    def _rule_features(self, rows: np.ndarray | None = None) -> np.ndarray:
        """``(N, RULES_SIZE)`` (or the sub-envs ``rows``): each sub-env's rule features
        (its table's rules: ``fields.rule_features``, built with the rule tables); a new
        array."""
        batch = self.batch
        assert batch is not None
        rows_of = batch.feature_row if rows is None else batch.feature_row.take(rows)
        return batch.rule_features.take(rows_of, axis=0)

    def _dealer_cards(self) -> np.ndarray:
        """``(N, 13)``: the dealer's cards shown, by rank (the upcard; all once revealed)."""
        batch = self.batch
        assert batch is not None
        dealer_cards = np.zeros((self.num_envs, 13), dtype=np.int64)
        dealer_cards[self._arange, batch.rank_of_card[batch.up]] = 1
        shown = batch.hole_revealed
        dealer_cards[shown] = batch.dealer_ranks[shown]
        return dealer_cards

    def _seat_cards(self) -> np.ndarray:
        """``(N, 13 S)``: every seat's cards by rank, in seat order, seen from each seat."""
        batch = self.batch
        assert batch is not None
        exists = np.arange(batch.max_hands)[:, None] < batch.nhands[None, :]
        seat_cards = (batch.hand_ranks * exists[:, :, None]).sum(axis=0)  # one seat: (N, 13)
        if self.seats > 1:
            seat_cards = np.repeat(seat_cards.reshape(-1, 13 * self.seats), self.seats, axis=0)
        return seat_cards

    def _unseen_cards(self) -> np.ndarray:
        """``(N, 13)``: the cards not seen, by rank (an infinite deck: 4 of each)."""
        batch = self.batch
        assert batch is not None
        if self._infinite:
            return np.full((self.num_envs, 13), 4, dtype=np.int64)
        unseen = batch.counts.copy()
        hidden = (batch.hole >= 0) & ~batch.hole_revealed
        if np.count_nonzero(hidden):
            t = hidden.nonzero()[0]
            unseen[t, batch.rank_of_card[batch.hole[t]]] += 1
        return unseen

    def _observation(self) -> Any:
        """:meth:`_observe`, with the BET step's observation at tables awaiting a bet."""
        obs = self._observe()
        if self._bets:
            assert self.batch is not None
            rows = self.batch.opened.nonzero()[0]
            if rows.size:
                self._observe_bets(obs, rows)
        return obs

    def _observe_bets(self, obs: Any, rows: np.ndarray) -> None:
        """Write the BET step's observation of tables ``rows`` into ``obs``: no cards on
        the table (totals, upcard, hands 0), the count of the cards not dealt."""
        batch = self.batch
        assert batch is not None
        m = rows.size
        zero = np.zeros(m, dtype=np.int64)
        phase = np.full(m, _BET, dtype=np.int64)
        hilo, remaining = batch.shoe_count(rows)
        none = np.zeros((m, 13), dtype=np.int64)
        facts = fields.Facts(
            {"true_count": lambda: _true_counts(-hilo, remaining),
             "count_bucket": lambda: fields.count_bucket(-hilo, remaining),
             "unseen_cards": lambda: (np.full((m, 13), 4, dtype=np.int64) if self._infinite
                                      else batch.counts[rows]),
             "shoe_left": lambda: 1.0 if self._infinite else remaining / batch.shoe_size,
             "bankroll": lambda: self._bankroll_chips()[rows] / self.bet},
            phase=phase, total=zero, soft=zero, upcard=zero, can_double=zero, can_split=zero,
            can_surrender=zero, can_insure=zero, hand_index=zero, num_hands=zero, cards=zero,
            pair=zero, hand_cards=none, dealer_cards=none,
            seat_cards=np.zeros((m, 13 * self.rules.seats), dtype=np.int64),
            stake=np.zeros(m), action_mask=self._mask[rows],
        )  # fmt: skip
        mode = self.obs_mode
        part = fields.encode(mode.value, facts, self.layout.hands)
        if mode is ObsMode.DICT:
            for key, value in part.items():
                obs[key][rows] = value
            return
        if self._observe_rules and mode is not ObsMode.MULTIDISCRETE:
            part = fields.append_rules(part, self._rule_features(rows))
        obs[rows] = part
