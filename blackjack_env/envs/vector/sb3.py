"""stable-baselines3 ``VecEnv`` adapter for the batched blackjack env.

stable-baselines3 has its own vectorised-env API (``VecEnv``: ``step_async`` /
``step_wait``, a list of info dicts, auto-reset in the same step with the last
observation in ``info["terminal_observation"]``) and does not take Gymnasium's
``VectorEnv``. :class:`SB3VecEnv` presents a
:class:`~blackjack_env.envs.vector.BlackjackVectorEnv` (run in ``SameStep``
autoreset mode) through that API, so SB3 and sb3-contrib train on the batched
tables directly::

    from sb3_contrib import MaskablePPO
    from blackjack_env.envs.vector.sb3 import SB3VecEnv

    env = SB3VecEnv(num_envs=256, rules="vegas-strip", obs_mode="vector")
    model = MaskablePPO("MlpPolicy", env).learn(100_000)

``action_masks()`` (and ``env_method("action_masks")``, which sb3-contrib's
``get_action_masks`` calls) give the legal actions of every table, so
MaskablePPO samples only legal actions.

Info dicts: empty for a running table (building thousands of dicts a step is
the adapter's main cost, so only what SB3 reads is put in them); for a table
whose episode ended: ``terminal_observation``, ``TimeLimit.truncated`` (True
when the episode was truncated, not terminated), ``round_net``, and ``episode``:
``{"r": return, "l": length, "t": seconds since the adapter was built}``, the
entry that SB3's ``Monitor`` / ``VecMonitor`` write, so SB3's logger reports
``rollout/ep_rew_mean`` and ``ep_len_mean`` without a ``VecMonitor`` wrapper
(wrapping one anyway is harmless: it writes the same figures).
``obs_mode="tuple"`` is refused (SB3 has no ``Tuple`` observation support): use
``"multidiscrete"`` or ``"vector"``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv

from blackjack_env.envs.vector.env import BlackjackVectorEnv
from blackjack_env.envs.view.layout import ObsMode

__all__ = ["SB3VecEnv"]


def _row(obs: Any, t: int) -> Any:
    """Sub-env ``t``'s observation out of a batched one (an array or a dict of arrays)."""
    if isinstance(obs, dict):
        return {key: value[t] for key, value in obs.items()}
    return obs[t]


class SB3VecEnv(VecEnv):
    """N batched blackjack tables as a stable-baselines3 ``VecEnv``.

    Args:
        num_envs: number of tables.
        seed: seed of the first reset (``VecEnv.seed`` overrides it).
        **kwargs: the arguments of :class:`~blackjack_env.envs.vector.BlackjackVectorEnv`
            (those of ``BlackjackEnv``); ``autoreset_mode`` is fixed to ``SameStep``.
    """

    def __init__(self, num_envs: int = 1, seed: int | None = None, **kwargs: Any) -> None:
        if "autoreset_mode" in kwargs and kwargs["autoreset_mode"] not in (
            AutoresetMode.SAME_STEP,
            AutoresetMode.SAME_STEP.value,
        ):
            raise ValueError(
                f"autoreset_mode={kwargs['autoreset_mode']!r}: stable-baselines3 resets an ended "
                f"env in the same step; the adapter always uses 'SameStep' (leave the argument out)"
            )
        kwargs["autoreset_mode"] = AutoresetMode.SAME_STEP
        venv = BlackjackVectorEnv(num_envs, **kwargs)
        if venv.obs_mode is ObsMode.TUPLE:
            raise ValueError(
                "obs_mode='tuple' gives a Tuple observation space, which stable-baselines3 "
                "does not support; use obs_mode='multidiscrete' or 'vector'"
            )
        self.venv = venv
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._first_seed = seed
        self._actions: np.ndarray | None = None
        self._masks = np.ones((self.num_envs, venv.single_action_space.n), dtype=bool)
        #: the batched env's info of the last step (arrays: illegal_action, round_net, ...)
        self.last_info: dict[str, Any] = {}
        # each table's running episode return and length, for info["episode"]
        self._episode_return = np.zeros(self.num_envs, dtype=np.float64)
        self._episode_length = np.zeros(self.num_envs, dtype=np.int64)
        self._t0 = time.perf_counter()

    # ----------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds[0] is not None else self._first_seed
        self._first_seed = None
        options = self._options[0] or None
        obs, info = self.venv.reset(seed=seed, options=options)
        self._reset_seeds()
        self._reset_options()
        self._masks = info["action_mask"].astype(bool)
        self.reset_infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._episode_return[:] = 0.0
        self._episode_length[:] = 0
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise ValueError("step_async(actions) must be called before step_wait()")
        obs, reward, terminated, truncated, info = self.venv.step(self._actions)
        self._actions = None
        self.last_info = info
        self._masks = info["action_mask"].astype(bool)
        dones = terminated | truncated
        self._episode_return += reward
        self._episode_length += 1
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = info["final_obs"]
            net = info["round_net"]
            seconds = round(time.perf_counter() - self._t0, 6)
            for t in np.flatnonzero(dones).tolist():
                infos[t] = {
                    "terminal_observation": _row(final, t),
                    "TimeLimit.truncated": bool(truncated[t] and not terminated[t]),
                    "round_net": float(net[t]),
                    "episode": {
                        "r": float(self._episode_return[t]),
                        "l": int(self._episode_length[t]),
                        "t": seconds,
                    },
                }
            self._episode_return[dones] = 0.0
            self._episode_length[dones] = 0
        return obs, reward.astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n)`` bool: the legal actions of every table now."""
        return self._masks

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name) or hasattr(self.venv, attr_name)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        target = self if attr_name == "action_masks" else self.venv
        value = getattr(target, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(
            f"cannot set {attr_name!r}: the batched tables share one configuration; build a "
            f"new SB3VecEnv instead"
        )

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        ids = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self._masks
            return [masks[i] for i in ids]
        raise AttributeError(
            f"env_method({method_name!r}) is not available on the batched tables; only "
            f"'action_masks' is"
        )

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: Any) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices
