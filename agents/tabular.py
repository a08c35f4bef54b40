"""Tabular learners: Q-learning and on-policy Monte Carlo control.

Both keep a table of action values ``Q[s, a]`` keyed by the discrete
observation (``obs_mode="tuple"`` or ``"multidiscrete"`` of the project's env,
or Gymnasium's ``Blackjack-v1``), explore epsilon-greedily among the *legal*
actions (the action mask from ``info["action_mask"]``; every action when the
env gives none) and act greedily, again among legal actions only.

Exploration: epsilon decays linearly from ``epsilon_start`` to ``epsilon_end``
over the first ``explore_fraction`` of the planned episodes, then stays at
``epsilon_end``.

Step sizes: ``lr=None`` (the default) uses ``1 / N(s, a) ** lr_power``, where
``N`` counts the updates of that pair; with ``lr_power=1`` Monte Carlo control
keeps the exact sample average of the returns (Sutton & Barto, section
5.3-5.4). That average never forgets the returns of the early, mostly random
policy, which biases it against hitting for a long time (measured: regret
0.019 after 1M rounds of sutton-barto), so the default for Monte Carlo is
``lr_power=0.6`` (regret 0.009 after 200k rounds) and for Q-learning 0.8. A
float ``lr`` is a constant step size.

* :class:`QLearningAgent`: off-policy one-step Q-learning; the bootstrap
  target maximises over the next state's legal actions.
* :class:`MonteCarloAgent`: on-policy epsilon-soft Monte Carlo control,
  **first-visit** (each state-action pair is updated once per episode with the
  return that followed its first occurrence). In blackjack a state never
  repeats within a round (the total or the softness changes with every card),
  so first-visit and every-visit give the same updates here.

File format (:meth:`TabularAgent.save`): one NumPy ``.npz`` archive, no
pickling, with the arrays ``keys`` (int64, ``[n_states, key_len]``: the
observation of each row), ``q`` (float64, ``[n_states, n_actions]``),
``visits`` (int64, ``[n_states, n_actions]``: updates per pair) and ``meta``
(a string holding JSON: the class, hyper-parameters, episodes done, the
exploration generator's state). Read it with ``numpy.load(path)`` anywhere.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from blackjack_env.agents.base import Agent, legal_actions, legal_argmax, obs_key
from blackjack_env.cli import atomic_path

__all__ = ["MonteCarloAgent", "QLearningAgent", "TabularAgent", "run_episode"]


class TabularAgent(Agent):
    """Common table, exploration and persistence of the tabular learners.

    Args:
        n_actions: size of the env's ``Discrete`` action space.
        obs_mode: observation mode of the env it learns on (recorded, for reloading).
        epsilon_start, epsilon_end, explore_fraction: the linear epsilon schedule.
        lr: constant step size, or None for ``1 / N(s, a) ** lr_power``.
        lr_power: exponent of the count-based step size (0.5 < p <= 1).
        gamma: discount (1.0: a round is short and undiscounted).
        seed: seed of the agent's own exploration generator.
    """

    algo: ClassVar[str] = "tabular"

    def __init__(
        self,
        n_actions: int,
        *,
        obs_mode: str = "tuple",
        epsilon_start: float = 1.0,
        epsilon_end: float = 0.05,
        explore_fraction: float = 0.5,
        lr: float | None = None,
        lr_power: float = 1.0,
        gamma: float = 1.0,
        seed: int | None = None,
    ) -> None:
        if not (isinstance(n_actions, (int, np.integer)) and n_actions >= 1):
            raise ValueError(f"n_actions={n_actions!r} must be a positive int")
        for label, value in (("epsilon_start", epsilon_start), ("epsilon_end", epsilon_end)):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{label}={value!r} must be in [0, 1]")
        if not 0.0 <= explore_fraction <= 1.0:
            raise ValueError(f"explore_fraction={explore_fraction!r} must be in [0, 1]")
        if lr is not None and not 0.0 < lr <= 1.0:
            raise ValueError(f"lr={lr!r} must be in (0, 1], or None for 1/N(s,a)**lr_power")
        if not 0.5 < lr_power <= 1.0:
            raise ValueError(f"lr_power={lr_power!r} must be in (0.5, 1]")
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"gamma={gamma!r} must be in [0, 1]")
        self.n_actions = int(n_actions)
        self.obs_mode = obs_mode
        self.epsilon_start = float(epsilon_start)
        self.epsilon_end = float(epsilon_end)
        self.explore_fraction = float(explore_fraction)
        self.lr = lr
        self.lr_power = float(lr_power)
        self.gamma = float(gamma)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.q: dict[tuple[int, ...], np.ndarray] = {}
        self.visits: dict[tuple[int, ...], np.ndarray] = {}
        self.episodes_done = 0
        self.name = self.algo

    # ----------------------------------------------------------------- acting
    def values(self, obs: Any) -> np.ndarray:
        """The action values of ``obs`` (zeros for a state never updated)."""
        row = self.q.get(obs_key(obs))
        return row.copy() if row is not None else np.zeros(self.n_actions)

    def act(self, obs: Any, mask: np.ndarray | None = None) -> int:
        """Greedy legal action; an unseen state gets the lowest legal action (stand)."""
        row = self.q.get(obs_key(obs))
        if row is None:
            return int(legal_actions(mask, self.n_actions)[0])
        return legal_argmax(row, mask)

    def epsilon(self, total_episodes: int) -> float:
        """Exploration rate for the next episode of a run planned for ``total_episodes``."""
        horizon = self.explore_fraction * max(total_episodes, 1)
        if horizon <= 0 or self.episodes_done >= horizon:
            return self.epsilon_end
        frac = self.episodes_done / horizon
        return self.epsilon_start + frac * (self.epsilon_end - self.epsilon_start)

    def _explore(self, key: tuple[int, ...], mask: np.ndarray | None, epsilon: float) -> int:
        legal = legal_actions(mask, self.n_actions)
        if self.rng.random() < epsilon:
            return int(legal[self.rng.integers(legal.size)])
        row = self.q.get(key)
        if row is None:
            return int(legal[self.rng.integers(legal.size)])
        best = row[legal].max()
        ties = legal[row[legal] == best]
        return int(ties[0] if ties.size == 1 else ties[self.rng.integers(ties.size)])

    def _row(self, key: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        row = self.q.get(key)
        if row is None:
            row = self.q[key] = np.zeros(self.n_actions)
            self.visits[key] = np.zeros(self.n_actions, dtype=np.int64)
        return row, self.visits[key]

    def _step_size(self, count: int) -> float:
        if self.lr is not None:
            return self.lr
        return 1.0 / count**self.lr_power

    # --------------------------------------------------------------- learning
    def train_episode(self, env: Any, epsilon: float, seed: int | None = None) -> float:
        """Play one episode (one round) with exploration, learn from it, return its reward."""
        raise NotImplementedError

    # ------------------------------------------------------------ persistence
    def hyperparameters(self) -> dict[str, Any]:
        return {
            "n_actions": self.n_actions,
            "obs_mode": self.obs_mode,
            "epsilon_start": self.epsilon_start,
            "epsilon_end": self.epsilon_end,
            "explore_fraction": self.explore_fraction,
            "lr": self.lr,
            "lr_power": self.lr_power,
            "gamma": self.gamma,
            "seed": self.seed,
        }

    def save(self, path: str | Path) -> Path:
        """Write the table to ``path`` (``.npz`` added if missing); see the module doc."""
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_suffix(".npz")
        path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.q)
        width = max((len(k) for k in keys), default=0)
        key_arr = np.array(keys, dtype=np.int64).reshape(len(keys), width)
        q = np.array([self.q[k] for k in keys], dtype=np.float64).reshape(len(keys), self.n_actions)
        visits = np.array([self.visits[k] for k in keys], dtype=np.int64).reshape(q.shape)
        meta = {
            "format": "blackjack_env.agents.tabular/1",
            "algo": self.algo,
            "hyperparameters": self.hyperparameters(),
            "episodes_done": self.episodes_done,
            "rng_state": self.rng.bit_generator.state,
        }

        with atomic_path(path) as tmp, open(tmp, "wb") as f:
            np.savez(f, keys=key_arr, q=q, visits=visits, meta=np.array(json.dumps(meta)))
        return path

    @classmethod
    def load(cls, path: str | Path) -> TabularAgent:
        """Read a table written by :meth:`save` (the subclass is taken from the file).

        A file that is not such a table (empty, truncated, another program's ``.npz``,
        random bytes) raises ``ValueError`` naming the file and what is wrong.
        """
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                missing = [k for k in ("meta", "keys", "q", "visits") if k not in data.files]
                if missing:
                    raise _NotAModel(f"it lacks the arrays {', '.join(missing)}")
                meta = json.loads(str(data["meta"]))
                keys, q, visits = data["keys"], data["q"], data["visits"]
        except _NotAModel as err:
            raise ValueError(f"{path}: not a tabular model saved by this project ({err})") from None
        except (EOFError, zipfile.BadZipFile, json.JSONDecodeError) as err:
            raise ValueError(f"{path}: not a tabular model saved by this project (a damaged or "
                             f"truncated .npz: {err or type(err).__name__})") from None
        except ValueError as err:
            reason = "it is not a NumPy .npz archive" if "pickled" in str(err) else str(err)
            # (np.load's "pickled" guess for arbitrary bytes)
            raise ValueError(
                f"{path}: not a tabular model saved by this project ({reason})"
            ) from None
        if not isinstance(meta, dict) or not str(meta.get("format", "")).startswith(
                "blackjack_env.agents.tabular/"):
            raise ValueError(f"{path}: not a tabular model saved by this project (its meta "
                             f"lacks the format 'blackjack_env.agents.tabular/1')")
        algo = meta.get("algo")
        klass = _ALGOS.get(algo) if isinstance(algo, str) else None
        if klass is None:
            raise ValueError(f"{path}: unknown tabular algo {algo!r}; known: {', '.join(_ALGOS)}")
        try:
            agent = klass(**meta["hyperparameters"])
            if keys.ndim != 2 or q.shape != (len(keys), agent.n_actions) or \
                    visits.shape != q.shape:
                raise ValueError(f"arrays of shapes keys {keys.shape}, q {q.shape}, "
                                 f"visits {visits.shape} do not fit {agent.n_actions} actions")
            for key, row, count in zip(keys, q, visits, strict=True):
                k = tuple(int(x) for x in key)
                agent.q[k] = row.astype(np.float64)
                agent.visits[k] = count.astype(np.int64)
            agent.episodes_done = int(meta["episodes_done"])
            agent.rng.bit_generator.state = meta["rng_state"]
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{path}: a damaged tabular model ({err})") from None
        return agent


class _NotAModel(Exception):
    """Raised inside :meth:`TabularAgent.load` for an archive of the wrong arrays."""


def _mask(info: dict[str, Any]) -> np.ndarray | None:
    mask = info.get("action_mask")
    return None if mask is None else np.asarray(mask)


class QLearningAgent(TabularAgent):
    """One-step Q-learning with epsilon-greedy exploration over legal actions.

    Default step size ``1 / N(s, a) ** 0.8``.
    """

    algo: ClassVar[str] = "q-learning"

    def __init__(self, n_actions: int, *, lr_power: float = 0.8, **kwargs: Any) -> None:
        super().__init__(n_actions, lr_power=lr_power, **kwargs)

    def train_episode(self, env: Any, epsilon: float, seed: int | None = None) -> float:
        obs, info = env.reset(seed=seed)
        key, mask = obs_key(obs), _mask(info)
        total = 0.0
        while True:
            action = self._explore(key, mask, epsilon)
            obs, reward, terminated, truncated, info = env.step(action)
            total += float(reward)
            row, count = self._row(key)
            count[action] += 1
            if terminated or truncated:
                target = float(reward)
            else:
                next_key, next_mask = obs_key(obs), _mask(info)
                next_row = self.q.get(next_key)
                best = 0.0 if next_row is None else float(
                    next_row[legal_actions(next_mask, self.n_actions)].max()
                )
                target = float(reward) + self.gamma * best
            row[action] += self._step_size(int(count[action])) * (target - row[action])
            if terminated or truncated:
                break
            key, mask = next_key, next_mask
        self.episodes_done += 1
        return total


class MonteCarloAgent(TabularAgent):
    """On-policy first-visit Monte Carlo control with an epsilon-soft policy.

    Default step size ``1 / N(s, a) ** 0.6`` (see the module doc; ``lr_power=1``
    gives the plain sample average).
    """

    algo: ClassVar[str] = "mc"

    def __init__(self, n_actions: int, *, lr_power: float = 0.6, **kwargs: Any) -> None:
        super().__init__(n_actions, lr_power=lr_power, **kwargs)

    def train_episode(self, env: Any, epsilon: float, seed: int | None = None) -> float:
        obs, info = env.reset(seed=seed)
        key, mask = obs_key(obs), _mask(info)
        trajectory: list[tuple[tuple[int, ...], int, float]] = []
        while True:
            action = self._explore(key, mask, epsilon)
            obs, reward, terminated, truncated, info = env.step(action)
            trajectory.append((key, action, float(reward)))
            if terminated or truncated:
                break
            key, mask = obs_key(obs), _mask(info)
        ret = 0.0
        first: dict[tuple[tuple[int, ...], int], float] = {}
        for key_t, action_t, reward_t in reversed(trajectory):
            ret = reward_t + self.gamma * ret
            first[(key_t, action_t)] = ret  # overwritten going backwards: keeps the first visit
        for (key_t, action_t), g in first.items():
            row, count = self._row(key_t)
            count[action_t] += 1
            row[action_t] += self._step_size(int(count[action_t])) * (g - row[action_t])
        self.episodes_done += 1
        return sum(r for _, _, r in trajectory)


_ALGOS: dict[str, type[TabularAgent]] = {
    QLearningAgent.algo: QLearningAgent,
    MonteCarloAgent.algo: MonteCarloAgent,
}


def run_episode(
    env: Any,
    policy: Callable[[Any, np.ndarray | None], int],
    seed: int | None = None,
) -> tuple[float, dict[str, Any]]:
    """Play one episode greedily with ``policy(obs, mask)``; return its reward and last info."""
    obs, info = env.reset(seed=seed)
    total = 0.0
    while True:
        obs, reward, terminated, truncated, info = env.step(policy(obs, _mask(info)))
        total += float(reward)
        if terminated or truncated:
            return total, info
