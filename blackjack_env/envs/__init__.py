"""Gymnasium environments on the blackjack engine.

* :class:`BlackjackEnv`: one learner seat at a table whose other seats are played
  by fixed strategies (registered as ``blackjack_env/Blackjack-v0``).
* :mod:`blackjack_env.envs.observations`: the pure encoding of the learner's view
  (spaces, masks, observations) shared by every env.
"""

from __future__ import annotations

from blackjack_env.envs.blackjack import BlackjackEnv, IllegalAction
from blackjack_env.envs.observations import Decision, Layout, ObsMode

__all__ = ["BlackjackEnv", "Decision", "IllegalAction", "Layout", "ObsMode"]
