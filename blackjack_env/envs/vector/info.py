"""The batched env's ``info`` dict (a mixin of
:class:`~blackjack_env.envs.vector.BlackjackVectorEnv`): every key batched, with its
``_key`` mask (all True), as Gymnasium's vector envs give it; the keys are listed in the
env's docstring (Info).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from blackjack_env.envs.vector.bets import BetsMixin

__all__ = ["InfoMixin"]


class InfoMixin(BetsMixin):
    """The info method of :class:`~blackjack_env.envs.vector.BlackjackVectorEnv`."""

    def _info(self, extra: dict[str, np.ndarray] | None = None) -> dict[str, Any]:
        """The info dict: the env's state as copies (writing to them changes nothing
        here), with ``extra`` (the step's keys) added, each key with its ``_key`` mask."""
        batch = self.batch
        assert batch is not None
        t = self._all_true
        info: dict[str, Any] = {
            "action_mask": self._mask.copy(),
            "_action_mask": t,
            "phase": self._phase.copy(),
            "_phase": t,
            "round": self._rounds.copy(),
            "_round": t,
            "bankroll": self._bankroll_chips(),
            "_bankroll": t,
            "shoe_remaining": batch.remaining(),
            "_shoe_remaining": t,
            "reshuffled": batch.reshuffled.copy(),
            "_reshuffled": t,
        }
        if self.rule_space is not None:  # each sub-env's rule set, by its index in the space
            info["rules_index"] = self._rules_index.copy()
            info["_rules_index"] = t
        if self.seats > 1:
            info["table"] = self._table
            info["_table"] = t
            info["seat"] = self._seat
            info["_seat"] = t
            info["active"] = self._acting & ~self._ended  # an ended episode: nobody
            info["_active"] = t
        if extra:
            for key, value in extra.items():
                info[key] = value
                info["_" + key] = t
        return info
