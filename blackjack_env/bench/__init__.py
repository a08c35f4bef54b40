"""The blackjack benchmark: named, versioned tasks with fixed budgets and exact grades, the
baselines run by one command, and a leaderboard made from results files.

The same as ``blackjack-bench list | run | grade | report | table`` in Python:

* :data:`~blackjack_env.bench.tasks.TASKS`, :func:`~blackjack_env.bench.tasks.task`: the
  tasks (:mod:`.tasks`), each with its rules,
  observation, actions, budgets, metric and grade; ``gym.make(task(name).env_id)``
  builds its env;
* :func:`grade`: grade a policy without training (a callable ``obs -> action``, an SB3
  ``.zip``, a saved MLP or tabular ``.npz``, or an agent object);
* :func:`~blackjack_env.bench.runner.run`: train an algorithm for the task's budgets over
  seeds, grade it, write one results file (:mod:`.results`, a versioned JSON schema);
  :func:`~blackjack_env.bench.runner.table`: every baseline of every task, resumable,
  each table's time logged in its folder (:func:`~blackjack_env.bench.runner.table_log`);
* :func:`~blackjack_env.bench.report.report`,
  :func:`~blackjack_env.bench.report.leaderboard`,
  :func:`~blackjack_env.bench.report.plots`: the tables and figures of a folder of results
  files, intervals from ``rliable`` (:mod:`.report`).

Example::

    from blackjack_env.bench import grade
    result = grade("v1-play", lambda obs: int(obs[0] < 17))   # hit below 17
    print(result["score"])   # its exact regret per unit bet

Reading results and reporting needs the ``bench`` extra (``rliable``, ``jsonschema``);
the learners need theirs (``train`` for stable-baselines3, ``jax`` for JAX PPO).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from blackjack_env.bench.algos import ALGOS, Algo
from blackjack_env.bench.grading import grade_policy, reference
from blackjack_env.bench.policies import CallableAgent, LoadedPolicy, load_policy
from blackjack_env.bench.report import leaderboard, markdown, plots, report
from blackjack_env.bench.results import read_results, validate
from blackjack_env.bench.rounds import load_round_set
from blackjack_env.bench.runner import run, table, table_log, table_steps
from blackjack_env.bench.tasks import BUDGETS, PLANNED, TASKS, Task, task

__all__ = [
    "ALGOS",
    "BUDGETS",
    "PLANNED",
    "TASKS",
    "Algo",
    "LoadedPolicy",
    "Task",
    "grade",
    "leaderboard",
    "load_policy",
    "load_round_set",
    "markdown",
    "plots",
    "read_results",
    "reference",
    "report",
    "run",
    "table",
    "table_log",
    "table_steps",
    "task",
    "validate",
]


def grade(task_name: str, policy: str | Callable[[Any], Any] | Any, *,
          obs_mode: str | None = None, sb3_algo: str | None = None) -> dict[str, Any]:
    """The grade of ``policy`` on the task ``task_name``, without training.

    ``policy``: a spec that :func:`~blackjack_env.bench.policies.load_policy` reads
    (``FILE.py:NAME``, ``MODULE:NAME``, a ``.zip``, an ``.npz``, a run folder), a callable
    ``obs -> action`` (it reads ``obs_mode``, the task's first by default; on a
    rule-space task the observation ends with the rule features of the table's rules), or
    an agent with ``act(obs, mask)`` and an ``obs_mode``. Returns the grade (``score`` and its
    figures, see :mod:`.grading`) with ``task`` (the id), ``policy`` and ``obs_mode``."""
    found = task(task_name)
    if isinstance(policy, str):
        loaded = load_policy(policy, found, obs_mode, sb3_algo)
        agent, mode, label = loaded.agent, loaded.obs_mode, loaded.label
    elif hasattr(policy, "act"):
        agent = policy
        mode = found.check_obs_mode(obs_mode or getattr(policy, "obs_mode", None))
        label = str(getattr(policy, "name", type(policy).__name__))
    elif callable(policy):
        mode = found.check_obs_mode(obs_mode)
        label = getattr(policy, "__name__", "policy")
        agent = CallableAgent(policy, label, found.layout(mode).action_names(), mode)
    else:
        raise ValueError(f"policy {policy!r}: give a callable obs -> action, an agent, or a "
                         f"file / FILE.py:NAME spec")
    result = grade_policy(found, agent, mode)
    return {"task": found.id, "policy": label, "obs_mode": mode, **result}
