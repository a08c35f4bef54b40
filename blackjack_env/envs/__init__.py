"""Gymnasium environments on the blackjack engine.

* :class:`BlackjackEnv`: one learner seat at a table whose other seats are played
  by fixed strategies (registered as ``blackjack_env/Blackjack-v0``).
* :class:`~blackjack_env.envs.vector.BlackjackVectorEnv` (``gymnasium.make_vec``) and
  the multi-agent :class:`~blackjack_env.envs.multiagent.BlackjackAECEnv`.
* :class:`EnvSettings` (:mod:`blackjack_env.envs.settings`): the settings every env is
  built from, validated once, from the arguments as given (:class:`EnvArgs` for the
  single and batched env, :class:`TableArgs` for the multi-agent table: the envs'
  signatures, each argument with its help line); :class:`IllegalAction`: what an
  illegal action does.
* :mod:`blackjack_env.envs.view`: the learner's view (fields and encoders, spaces,
  masks, observations), one module family shared by every env.

Example (sb3-contrib reads the legal actions through ``env.action_masks()``)::

    import gymnasium as gym
    import blackjack_env
    from sb3_contrib import MaskablePPO

    gym.register_envs(blackjack_env)
    env = gym.make("blackjack_env/Blackjack-v0", rules="vegas-strip", num_seats=3, seat=1)
    model = MaskablePPO("MlpPolicy", env).learn(50_000)

    env = gym.make("blackjack_env/Blackjack-v0", render_mode="ansi")
    obs, info = env.reset(seed=0, options={"cards": "8S 6H 8D TC"})  # a pair of 8s v 6
    print(env.render(), info["action_mask"])
"""

from __future__ import annotations

from blackjack_env.envs.settings import EnvArgs, EnvSettings, TableArgs
from blackjack_env.envs.single import BlackjackEnv
from blackjack_env.envs.step import Decision, IllegalAction
from blackjack_env.envs.view.layout import Layout, ObsMode

__all__ = [
    "BlackjackEnv",
    "Decision",
    "EnvArgs",
    "EnvSettings",
    "IllegalAction",
    "Layout",
    "ObsMode",
    "TableArgs",
]
