"""A user's policy, read for grading: a Python callable, a stable-baselines3 ``.zip``, a
saved MLP (JAX PPO) or tabular ``.npz``, or a training run's folder.

:func:`load_policy` reads the spec and checks, before any grading, that the policy fits
the task: its number of actions, the observation it reads (one of the task's modes,
found from a saved model's observation space), and for a bets task that it decides the
task's bets. A policy that does not fit is refused with one line naming what differs.

A callable is named ``FILE.py:NAME`` or ``MODULE:NAME`` and called as ``NAME(obs)``
with one observation of the task's env (in ``obs_mode``, the task's first by default);
it returns an action number. At a bet step (a bets task) the observation is the
``"vector"`` one of the bet step and the actions are the bets (``n_play + k`` bets
``bet_sizes[k]``).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from blackjack_env.agents.base import Agent
from blackjack_env.agents.mlp import MLPAgent, is_mlp_model
from blackjack_env.agents.registry import find_model
from blackjack_env.agents.sb3 import SB3_ALGOS, SB3Agent
from blackjack_env.agents.tabular import TabularAgent
from blackjack_env.bench.tasks import Task

__all__ = ["CallableAgent", "LoadedPolicy", "load_callable", "load_policy", "sb3_algos_for"]


@dataclass(frozen=True)
class LoadedPolicy:
    """A policy ready to grade: ``agent.act(obs, mask) -> action``, the observation mode
    it reads, what it was read from (``kind``: callable, sb3, mlp, tabular) and its label."""

    agent: Any
    obs_mode: str
    kind: str
    label: str


class CallableAgent(Agent):
    """A user's ``policy(obs) -> action`` as an agent, checked: an answer that is not an
    action number of the task, or an action the mask forbids, is a ``ValueError`` naming
    the policy, the answer and what was allowed."""

    def __init__(self, policy: Callable[[Any], Any], name: str, action_names: list[str],
                 obs_mode: str) -> None:
        self.policy = policy
        self.name = name
        self.action_names = list(action_names)
        self.n_actions = len(action_names)
        self.obs_mode = obs_mode

    def act(self, obs: Any, mask: np.ndarray | None = None) -> int:
        answer = self.policy(obs)
        try:
            action = int(np.asarray(answer).item())
            if action != np.asarray(answer).item():
                raise ValueError
        except (TypeError, ValueError):
            raise ValueError(f"{self.name} returned {answer!r}: a policy returns one action "
                             f"number, 0..{self.n_actions - 1}") from None
        if not 0 <= action < self.n_actions:
            raise ValueError(f"{self.name} returned action {action}; the task's actions are "
                             f"0..{self.n_actions - 1} ({', '.join(self.action_names)})")
        if mask is not None and not np.asarray(mask)[action]:
            legal = [self.action_names[i] for i in np.flatnonzero(np.asarray(mask))]
            raise ValueError(f"{self.name} chose {self.action_names[action]} where it is not "
                             f"legal (legal: {', '.join(legal)}; observation {obs})")
        return action


def load_callable(spec: str) -> Callable[[Any], Any]:
    """The callable ``FILE.py:NAME`` or ``MODULE:NAME``; ValueError when it is not there."""
    where, _, name = spec.rpartition(":")
    if not where or not name.isidentifier():
        raise ValueError(f"{spec}: name a callable as FILE.py:NAME or MODULE:NAME")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise ValueError(f"{spec}: {path} is not a file")
        module_name = f"_bench_policy_{abs(hash(str(path.resolve())))}"
        spec_obj = importlib.util.spec_from_file_location(module_name, path)
        if spec_obj is None or spec_obj.loader is None:
            raise ValueError(f"{spec}: cannot import {path}")
        module = importlib.util.module_from_spec(spec_obj)
        sys.modules[module_name] = module
        spec_obj.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as err:
            raise ValueError(f"{spec}: cannot import the module {where} ({err})") from None
    found = getattr(module, name, None)
    if not callable(found):
        raise ValueError(f"{spec}: {where} has no callable {name}")
    return found


def sb3_algos_for(path: Path) -> list[str]:
    """The algorithms that may have saved an SB3 model, from the policy class recorded in
    its zip (PPO and A2C save the same actor-critic policy: either loads it)."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as err:
        raise ValueError(f"{path}: not a stable-baselines3 model ({err})") from None
    cls = data.get("policy_class", {})
    text = json.dumps(cls) if isinstance(cls, dict) else str(cls)
    if "maskable" in text.lower():
        return ["maskable-ppo"]
    if "dqn" in text.lower() or "QNetwork" in text:
        return ["dqn"]
    return ["ppo", "a2c"]


def _sb3(path: Path, algo: str | None) -> SB3Agent:
    beside = path.with_suffix(".json")
    if algo is None and beside.is_file():
        try:
            algo = json.loads(beside.read_text()).get("algo")
        except (ValueError, AttributeError):
            algo = None
    candidates = [algo] if isinstance(algo, str) else sb3_algos_for(path)
    for name in candidates:
        if name not in SB3_ALGOS:
            raise ValueError(f"--sb3-algo {name}: one of {', '.join(SB3_ALGOS)}")
    last: Exception | None = None
    for name in candidates:
        try:
            return SB3Agent.load(path, algo=name)
        except ValueError as err:
            last = err
    raise ValueError(str(last))


def _mode_of_space(task: Task, space: Any, spec: str) -> str:
    """The task's observation mode whose space is ``space``."""
    for mode in task.obs_modes:
        if task.layout(mode).observation_space() == space:
            return mode
    shown = "; ".join(f"{m}: {task.layout(m).observation_space()}" for m in task.obs_modes)
    raise ValueError(f"{spec} reads observations {space}, which no mode of {task.name} "
                     f"shows ({shown})")


def _check_actions(task: Task, n: int, spec: str) -> None:
    if n != task.n_actions:
        raise ValueError(f"{spec} has {n} actions; {task.name}'s table has {task.n_actions} "
                         f"({', '.join(task.action_names)})")


def load_policy(spec: str, task: Task, obs_mode: str | None = None,
                sb3_algo: str | None = None) -> LoadedPolicy:
    """Read ``spec`` as a policy of ``task`` and check that it fits (see the module
    docstring); ``obs_mode`` is the observation a callable reads (a saved model reads its
    own), ``sb3_algo`` the algorithm of an SB3 zip when no ``.json`` beside it says."""
    path = Path(spec)
    if not path.exists() and ":" in spec:
        mode = task.check_obs_mode(obs_mode)
        names = task.layout(mode).action_names()
        return LoadedPolicy(CallableAgent(load_callable(spec), spec, names, mode), mode,
                            "callable", spec)
    if not path.exists():
        raise ValueError(f"{spec}: no such file or folder; give a saved policy (.zip, .npz), "
                         f"a training run's folder, or a callable FILE.py:NAME / MODULE:NAME")
    model = find_model(path)
    agent: Any
    if model.suffix == ".zip":
        agent = _sb3(model, sb3_algo)
        _check_actions(task, int(agent.model.action_space.n), spec)
        mode = _mode_of_space(task, agent.model.observation_space, spec)
        agent.obs_mode = mode
        kind = "sb3"
    elif is_mlp_model(model):
        agent = MLPAgent.load(model)
        if agent.obs_mode not in task.obs_modes:
            raise ValueError(f"{spec} reads {agent.obs_mode} observations; {task.name} shows "
                             f"{', '.join(task.obs_modes)}")
        mode = agent.obs_mode
        if agent.obs_size != int(np.prod(task.layout(mode).observation_space().shape)):
            raise ValueError(f"{spec} reads {agent.obs_size} numbers; {task.name}'s {mode} "
                             f"observation has "
                             f"{int(np.prod(task.layout(mode).observation_space().shape))}")
        own = tuple(agent.info.get("bet_sizes") or ())
        if own and own != task.bet_sizes:
            raise ValueError(f"{spec} bets {','.join(map(str, own))}; {task.name} offers "
                             f"{','.join(map(str, task.bet_sizes)) or 'no bets'}")
        _check_actions(task, agent.n_actions, spec)
        kind = "mlp"
    else:
        agent = TabularAgent.load(model)
        if agent.obs_mode not in task.obs_modes:
            raise ValueError(f"{spec} reads {agent.obs_mode} observations; {task.name} shows "
                             f"{', '.join(task.obs_modes)}")
        mode = agent.obs_mode
        _check_actions(task, agent.n_actions, spec)
        kind = "tabular"
    return LoadedPolicy(agent, mode, kind, str(spec))
