"""Gymnasium adapters of the JAX table: numpy arrays out, for Gymnasium users.

``gymnasium.make_vec("blackjack_env.jax:blackjack_env/BlackjackJax-v0", num_envs=N,
rules="vegas-strip")`` builds :class:`BlackjackJaxVectorEnv` (the prefix imports this
package, which registers the id); ``gymnasium.make`` of the same id builds the single-table
:class:`BlackjackJaxEnv` (which ``gymnasium.utils.env_checker.check_env`` passes). Both take
:class:`~blackjack_env.jax.BlackjackJax`'s arguments and step the jitted JAX table; the
game, the spaces and the rewards are the numpy envs' (``BlackjackEnv`` /
``BlackjackVectorEnv`` with the same arguments and ``obs_mode="vector"``). Besides the
table's ``illegal_action`` policies (``"map"``, ``"penalize"``), the adapters take
``"raise"``: numpy actions are checked against the mask on the host before the step, and an
illegal one raises the numpy envs' ``ValueError`` with the state unchanged.

Gymnasium's own ``FunctionalJaxVectorEnv`` (``gymnasium.envs.functional_jax_env``) is not
used: it resets sub-envs with ``state.at[...]``, which needs the state to be one array,
not a pytree, and it returns ``jax`` arrays.
"""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from blackjack_env.envs.step import Decision, IllegalAction, illegal_message
from blackjack_env.jax.env import BlackjackJax

__all__ = ["ENV_ID", "BlackjackJaxEnv", "BlackjackJaxVectorEnv", "register"]

#: The Gymnasium id of the JAX table (registered when this package is imported).
ENV_ID = "blackjack_env/BlackjackJax-v0"


def _seed_key(seed: int | None, rng: np.random.Generator) -> Any:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise ValueError(f"seed={seed!r} must be an int or None")
    value = int(seed) if seed is not None else int(rng.integers(0, 2**31 - 1))
    return jax.random.PRNGKey(value)


def _table(kwargs: dict[str, Any]) -> tuple[BlackjackJax, bool]:
    """The JAX table of the adapters' arguments, and whether illegal actions raise:
    ``illegal_action="raise"`` is checked on the host (:func:`_check_legal`), the table
    underneath then mapping (it never sees an illegal action)."""
    strict = kwargs.get("illegal_action") in ("raise", IllegalAction.RAISE)
    if strict:
        kwargs = {**kwargs, "illegal_action": "map"}
    return BlackjackJax(**kwargs), strict


def _check_legal(table: BlackjackJax, state: Any, actions: np.ndarray, batched: bool) -> None:
    """``illegal_action="raise"``: ``ValueError`` (``envs.step.illegal_message``, the
    numpy envs' words) for the first action not legal now; nothing has changed."""
    mask = np.asarray(table.action_mask(state)).reshape(actions.size, -1)
    a = actions.reshape(-1)
    bad = ~mask[np.arange(a.size), a]
    if bad.any():
        t = int(bad.nonzero()[0][0])
        phase = np.asarray(table.default_params.decision_of_phase)[
            np.asarray(state.phase).reshape(-1)[t]
        ]
        raise ValueError(illegal_message(
            int(a[t]), table.action_names, Decision(int(phase)).name,
            mask[t].nonzero()[0].tolist(), f"sub-env {t}: " if batched else "",
        ))  # fmt: skip


def _to_numpy(obs: Any, space: gym.Space[Any]) -> Any:
    """A JAX observation as numpy arrays of the numpy env's dtypes (dict and tuple modes:
    field by field)."""
    if isinstance(space, gym.spaces.Dict):
        return {k: _to_numpy(obs[k], sub) for k, sub in space.spaces.items()}
    if isinstance(space, gym.spaces.Tuple):
        return tuple(_to_numpy(v, sub) for v, sub in zip(obs, space.spaces, strict=True))
    out = np.asarray(obs, dtype=space.dtype)
    return out[()] if isinstance(space, gym.spaces.Discrete) and out.ndim == 0 else out


def _one_seat(kwargs: dict[str, Any]) -> None:
    if kwargs.get("seats_per_table", 1) != 1:
        raise ValueError(
            f"seats_per_table={kwargs['seats_per_table']!r}: the Gymnasium adapters of the "
            f"JAX table seat one learner per table; use BlackjackJax (seat axis) or the numpy "
            f"BlackjackVectorEnv for several"
        )


class BlackjackJaxVectorEnv(VectorEnv):
    """``num_envs`` JAX tables as a Gymnasium ``VectorEnv`` (numpy arrays in and out).

    The game, spaces and rewards are :class:`~blackjack_env.envs.vector.BlackjackVectorEnv`'s
    with ``autoreset_mode="SameStep"`` (the JAX table resets inside its step): the step
    that ends a sub-env's episode returns the next episode's first observation, and the
    ended one's last observation in ``info["final_obs"]`` (valid where
    ``info["_final_obs"]``). ``info``: ``action_mask`` (int8), ``round_net``,
    ``illegal_action``, ``action_played``. Arguments: ``num_envs`` and
    :class:`~blackjack_env.jax.BlackjackJax`'s. The same seed gives the same games.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": [],
    }

    def __init__(self, num_envs: int = 1, **kwargs: Any) -> None:
        if (
            isinstance(num_envs, bool)
            or not isinstance(num_envs, (int, np.integer))
            or (num_envs < 1)
        ):
            raise ValueError(f"num_envs={num_envs!r} must be an int >= 1")
        _one_seat(kwargs)
        self.table, self._strict = _table(kwargs)
        self.num_envs = n = int(num_envs)
        self.single_observation_space = self.table.gymnasium_observation_space
        self.single_action_space = self.table.gymnasium_action_space
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.render_mode = None
        self._np_rng = np.random.default_rng()
        self._key: Any = None
        self._state: Any = None
        params = self.table.default_params
        table = self.table
        self._reset = jax.jit(
            lambda key: jax.vmap(table.reset, in_axes=(0, None))(jax.random.split(key, n), params)
        )
        self._step = jax.jit(
            lambda key, st, a: jax.vmap(table.step, in_axes=(0, 0, 0, None))(
                jax.random.split(key, n), st, a, params
            )
        )
        self._mask = jax.jit(lambda st: table.action_mask(st, params))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if options:
            raise ValueError(f"options {sorted(options)} are not supported by the JAX table")
        if seed is not None or self._key is None:
            self._key = _seed_key(seed, self._np_rng)
        self._key, sub = jax.random.split(self._key)
        obs, self._state = self._reset(sub)
        mask = np.asarray(self._mask(self._state)).astype(np.int8)
        ok = np.ones(self.num_envs, bool)
        return self._np_obs(obs), {"action_mask": mask, "_action_mask": ok}

    def _np_obs(self, obs: Any) -> Any:
        return _to_numpy(obs, self.single_observation_space)

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if self._state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(
                f"actions must be an int array of shape ({self.num_envs},), got {a.dtype} {a.shape}"
            )
        if ((a < 0) | (a >= self.table.num_actions)).any():
            raise ValueError(f"actions must lie in 0..{self.table.num_actions - 1}")
        if self._strict:
            _check_legal(self.table, self._state, a, batched=True)
        self._key, sub = jax.random.split(self._key)
        obs, self._state, reward, done, info = self._step(
            sub, self._state, jnp.asarray(a, jnp.int32)
        )
        done = np.asarray(done)
        all_ = np.ones(self.num_envs, bool)
        out = {
            "action_mask": np.asarray(info["action_mask"]).astype(np.int8),
            "round_net": np.asarray(info["round_net"], np.float64),
            "illegal_action": np.asarray(info["illegal_action"]),
            "action_played": np.asarray(info["action_played"], np.int64),
            "final_obs": self._np_obs(info["final_observation"]),
            "_final_obs": done,
        }
        for k in ("action_mask", "round_net", "illegal_action", "action_played"):
            out["_" + k] = all_
        return (
            self._np_obs(obs), np.asarray(reward, np.float64),
            np.asarray(info["terminated"]), np.asarray(info["truncated"]), out,
        )  # fmt: skip

    def action_masks(self) -> np.ndarray:
        """bool ``(num_envs, n)``: the legal actions now (sb3-contrib's convention)."""
        return np.asarray(self._mask(self._state))


class BlackjackJaxEnv(gym.Env[np.ndarray, np.int64]):
    """One JAX table as a Gymnasium ``Env`` (numpy out): an episode is one round, and
    ``reset()`` without a seed deals the next round from the same shoe (as
    ``BlackjackEnv``); ``reset(seed=...)`` starts a fresh shoe. Arguments:
    :class:`~blackjack_env.jax.BlackjackJax`'s."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(self, **kwargs: Any) -> None:
        _one_seat(kwargs)
        self.table, self._strict = _table(kwargs)
        self.observation_space = self.table.gymnasium_observation_space
        self.action_space = self.table.gymnasium_action_space
        self._key: Any = None
        self._state: Any = None
        self._done = False
        t = self.table
        self._step = jax.jit(partial(t.step, params=t.default_params))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if options:
            raise ValueError(f"options {sorted(options)} are not supported by the JAX table")
        if seed is not None or self._key is None:
            self._key = _seed_key(seed, self.np_random)
            self._key, sub = jax.random.split(self._key)
            obs, self._state = self.table.reset(sub, self.table.default_params)
            self._obs = obs
        elif not self._done:  # a round in play is played out standing first
            while not self._done:
                self.step(0)
        self._done = False
        return self._np_obs(self._obs), {"action_mask": self._mask()}

    def _np_obs(self, obs: Any) -> Any:
        return _to_numpy(obs, self.observation_space)

    def _mask(self) -> np.ndarray:
        return np.asarray(self.table.action_mask(self._state)).astype(np.int8)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if (
            isinstance(action, (bool, np.bool_))
            or not isinstance(action, (int, np.integer))
            or not self.action_space.contains(np.int64(action))
        ):
            raise ValueError(f"action {action!r} must be an int in 0..{self.table.num_actions - 1}")
        if self._strict:
            _check_legal(self.table, self._state, np.array([action]), batched=False)
        self._key, sub = jax.random.split(self._key)
        obs, self._state, reward, done, info = self._step(sub, self._state, jnp.int32(action))
        self._obs = obs  # (the next round's first observation: returned by reset())
        self._done = bool(done)
        shown = info["final_observation"] if self._done else obs
        return (
            self._np_obs(shown), float(reward), bool(info["terminated"]),
            bool(info["truncated"]),
            {"action_mask": self._mask(), "round_net": float(info["round_net"]),
             "illegal_action": bool(info["illegal_action"])},
        )  # fmt: skip


def register() -> None:
    """Register :data:`ENV_ID` with Gymnasium (idempotent)."""
    if ENV_ID in gym.registry:
        return
    gym.register(
        id=ENV_ID,
        entry_point="blackjack_env.jax.gym:BlackjackJaxEnv",
        vector_entry_point="blackjack_env.jax.gym:BlackjackJaxVectorEnv",
    )
