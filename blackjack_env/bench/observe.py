"""The observation of a task that hides the shoe (``shoe-play``).

On a finite shoe the env's ``"multidiscrete"`` and ``"vector"`` observations show the
true count of the cards seen since the shuffle and (``"vector"``) the fraction of the
shoe left; within a round these move with the cards of the hand, which is composition a
policy of the totals cannot be graded on. :func:`hide_shoe` writes them as a full shoe's
(a true count of 0, the whole shoe left): the values the exact analysis shows a policy
when it grades it (``blackjack_env.agents.obs.encode_state``), so a policy's grade
is its return in the env it trained in. Every other field is the env's own.

:class:`HideShoe` does it to a Gymnasium env, :class:`HideShoeJax` to the JAX table's
gymnax-style object (the same positions, ``envs.view``'s fields, on JAX arrays).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from blackjack_env.envs import view as V

__all__ = ["HideShoe", "HideShoeJax", "hide_shoe"]

#: The multidiscrete count field of a true count of 0.
_ZERO_BUCKET = int(V.count_bucket(0, 52))  # a running count of 0 off a full deck


def hide_shoe(obs: Any, obs_mode: str) -> Any:
    """``obs`` (one observation or a batch, numpy or JAX) with the true count shown as 0 and
    the shoe as full; a ``"tuple"`` observation shows neither and is returned as it is."""
    if obs_mode == "tuple":
        return obs
    if obs_mode == "multidiscrete":
        if isinstance(obs, np.ndarray):
            out = obs.copy()
            out[..., V.MD_COUNT] = _ZERO_BUCKET
            return out
        return obs.at[..., V.MD_COUNT].set(_ZERO_BUCKET)
    if obs_mode == "vector":
        if isinstance(obs, np.ndarray):
            out = obs.copy()
            out[..., V.VEC_TRUE_COUNT] = 0.0
            out[..., V.VEC_SHOE] = 1.0
            return out
        return obs.at[..., V.VEC_TRUE_COUNT].set(0.0).at[..., V.VEC_SHOE].set(1.0)
    raise ValueError(f"obs_mode={obs_mode!r}: the shoe can be hidden in the tuple, "
                     f"multidiscrete and vector observations")


class HideShoe(gym.ObservationWrapper):
    """A Gymnasium env whose observations hide the shoe (:func:`hide_shoe`)."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.obs_mode = str(getattr(env.unwrapped.obs_mode, "value", env.unwrapped.obs_mode))
        if self.obs_mode not in ("tuple", "multidiscrete", "vector"):
            raise ValueError(f"obs_mode={self.obs_mode!r}: the shoe can be hidden in the "
                             f"tuple, multidiscrete and vector observations")

    def observation(self, observation: Any) -> Any:
        """The env's observation with the shoe hidden."""
        return hide_shoe(observation, self.obs_mode)


class HideShoeJax:
    """The JAX table (``blackjack_env.jax.BlackjackJax``) with the shoe hidden in every
    observation ``reset`` and ``step`` return; everything else is the table's."""

    def __init__(self, env: Any, obs_mode: str = "vector") -> None:
        self.env = env
        self.obs_mode = obs_mode

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    def reset(self, key: Any, params: Any = None) -> Any:
        obs, state = self.env.reset(key, params)
        return hide_shoe(obs, self.obs_mode), state

    def step(self, key: Any, state: Any, action: Any, params: Any = None) -> Any:
        out = self.env.step(key, state, action, params)
        return (hide_shoe(out[0], self.obs_mode), *out[1:])
