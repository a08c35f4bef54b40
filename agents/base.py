"""The one policy interface every agent implements, and helpers shared by all agents.

An agent is anything with ``act(obs, mask=None) -> int``: given an observation
from the environment (in the observation mode it was built for) and, when the
environment provides one, the action mask (``info["action_mask"]``: one int8 or
bool entry per action, 1 = legal), it returns the action to play. ``act`` is the
agent's *greedy* (deterministic) decision: evaluation, charts and the ``play``
script all call it. Learners explore through their own training methods, never
through ``act``.

Every agent also names the observation mode it reads (:attr:`Agent.obs_mode`),
so the scripts build the matching environment, and can be saved with
:meth:`Agent.save` and reloaded with :func:`blackjack_env.agents.load_agent`.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = [
    "Agent",
    "Policy",
    "legal_actions",
    "legal_argmax",
    "obs_key",
    "read_meta",
    "write_meta",
]


@runtime_checkable
class Policy(Protocol):
    """What evaluation, charts and play need: a greedy action for an observation."""

    def act(self, obs: Any, mask: np.ndarray | None = None) -> int: ...


class Agent(ABC):
    """Base class of the project's agents.

    Attributes:
        name: a short label for tables and charts (e.g. ``"q-learning"``).
        obs_mode: the environment observation mode the agent reads
            (``"tuple"``, ``"multidiscrete"``, ``"vector"`` or ``"dict"``).
    """

    name: str = "agent"
    obs_mode: str = "multidiscrete"

    @abstractmethod
    def act(self, obs: Any, mask: np.ndarray | None = None) -> int:
        """The greedy action for ``obs``; never an action the mask forbids."""

    def save(self, path: str | Path) -> Path:  # pragma: no cover - fixed agents
        raise NotImplementedError(f"{type(self).__name__} has nothing to save")

    def __call__(self, obs: Any, mask: np.ndarray | None = None) -> int:
        return self.act(obs, mask)


def legal_actions(mask: np.ndarray | Sequence[int] | None, n_actions: int) -> np.ndarray:
    """Indices of the legal actions (every action when ``mask`` is None).

    Raises ``ValueError`` when the mask has the wrong length or allows nothing.
    """
    if mask is None:
        return np.arange(n_actions)
    m = np.asarray(mask)
    if m.shape != (n_actions,):
        raise ValueError(
            f"action mask has shape {m.shape}; expected ({n_actions},), one entry per action"
        )
    legal = np.flatnonzero(m)
    if legal.size == 0:
        raise ValueError("action mask allows no action: at least one entry must be 1")
    return legal


def legal_argmax(values: np.ndarray, mask: np.ndarray | Sequence[int] | None) -> int:
    """The legal action with the highest value; ties go to the lowest action index."""
    legal = legal_actions(mask, len(values))
    return int(legal[int(np.argmax(values[legal]))])


def obs_key(obs: Any) -> tuple[int, ...]:
    """A hashable integer key for a discrete observation.

    Accepts an int (``Discrete``), a tuple of ints (``Tuple`` of ``Discrete``,
    as Gymnasium's Blackjack) or an integer array (``MultiDiscrete``). A
    ``Dict`` or float observation raises ``ValueError``: tabular agents need
    the ``tuple`` or ``multidiscrete`` observation mode.
    """
    if isinstance(obs, (int, np.integer)) and not isinstance(obs, bool):
        return (int(obs),)
    if isinstance(obs, dict):
        raise ValueError(
            "tabular agents read discrete observations; use obs_mode='tuple' or "
            "'multidiscrete', not 'dict'"
        )
    arr = np.asarray(obs)
    if arr.dtype.kind not in "iub":
        if arr.dtype.kind == "f" and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise ValueError(
                f"tabular agents read discrete observations; got dtype {arr.dtype} "
                f"(use obs_mode='tuple' or 'multidiscrete', not 'vector')"
            )
    return tuple(int(x) for x in arr.reshape(-1))


def write_meta(path: Path, meta: dict[str, Any]) -> None:
    path.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")


def read_meta(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())
