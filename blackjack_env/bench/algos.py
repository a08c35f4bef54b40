"""The benchmark's algorithms: the reference policies and the learners of the shipped
table, each trained on a task's env for a budget of env steps and graded by the task.

References (no training, no budget): ``optimum`` (the analysis's best policy: regret 0 on
an infinite deck, a check of the whole pipeline), ``stand``, ``random`` (a uniformly
random legal action: it has no deterministic policy, so its regret is *simulated*, one
simulation of :data:`~blackjack_env.bench.grading.SIMULATED_ROUNDS` rounds per seed);
for bets, ``ceiling`` (the perfect counter's bets: 1 by definition, a check), ``hi-lo``
(the textbook Hi-Lo ramp 1-2-4-8 from true counts +2, +3, +4), ``flat`` (always the
smallest bet) and ``random-bets`` (a uniformly random size; its expected grade, which is
that of its mean bet); for a rule space, ``vegas-chart`` (the basic strategy of vegas-strip
played whatever the rules: the fixed agent ``basic`` of vegas-strip, one chart for every
table, as a policy blind to the rule features plays) beside ``optimum`` (each rule set's own),
``stand`` and ``random``.

Learners, each with the project's own settings (those of ``blackjack-train``), the
budget its only change:

* ``q-learning``: tabular one-step Q-learning (``QLearningAgent`` of
  ``blackjack_env.agents.tabular``, step size ``1/N(s,a)^0.8``, epsilon from 1 to 0.05
  over the first half of the budget's env steps), on the ``"tuple"`` observation where
  the rules allow only stand and hit, else ``"multidiscrete"`` (not on a rule space: the
  rule features are floats its table cannot index); it learns after every
  round, so its run ends with the round that reaches the budget (at most a round beyond);
* ``ppo``, ``a2c``, ``maskable-ppo``, ``dqn``: stable-baselines3 / sb3-contrib with
  ``DEFAULT_HYPERPARAMETERS`` of ``blackjack_env.agents.sb3``, one torch thread, on
  ``"multidiscrete"``; each update learns from as many env steps as ``blackjack-train``'s
  (4 envs: PPO 8,192 steps, A2C 128, DQN a gradient step per 16), here spread over
  :data:`SB3_ENVS` = 16 envs (PPO ``n_steps`` 512, A2C 8, DQN ``train_freq`` 1), so a
  run trains the largest number of whole rollouts within the budget; on a rule space
  they read ``"vector"`` with the rule features, their env drawing a rule set at each
  reset;
* ``jax-ppo``: masked PPO inside one jitted JAX program, every seed at once
  (``blackjack_env.agents.jax_ppo``, its defaults: 256 tables x 32 steps an update),
  on ``"vector"``; the whole updates within the budget. On ``spread-bet`` it learns the
  bets too (``bet_sizes``), and its bets are graded. On a rule space it trains one policy
  over the space (``JaxPPOConfig.rule_space``: each table plays a training rule set, drawn
  again every update), reading the rule features.

:data:`ALGOS` records for each learner the largest budget it is run at in the shipped
table (``reach``) and why not beyond, from speeds measured on the 2-core machine of the
table (see the results page).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gymnasium as gym
import numpy as np

from blackjack_env.agents.counting import BetSpread
from blackjack_env.agents.fixed import fixed_agent
from blackjack_env.agents.mlp import MLPAgent
from blackjack_env.agents.rule_sets import OptimalPlay
from blackjack_env.agents.sb3 import (
    DEFAULT_HYPERPARAMETERS,
    SB3Config,
    fit_rollout,
    train_sb3,
)
from blackjack_env.agents.tabular import QLearningAgent
from blackjack_env.bench.grading import (
    grade_agent,
    grade_bets,
    grade_policy,
    grade_random_play,
    grade_rule_space,
    grade_state_policy,
    optimum_policy,
    round_set,
)
from blackjack_env.bench.observe import HideShoeJax
from blackjack_env.bench.tasks import Task, format_budget
from blackjack_env.engine.rules import preset

__all__ = [
    "ALGOS",
    "Algo",
    "algo",
    "algo_settings",
    "grade_reference",
    "train_and_grade",
]

PLAY = ("regret", "shoe-regret")
BETS = ("ceiling-fraction",)
RULES = ("held-out-regret",)
#: What each kind of grade grades, for messages.
_GRADES_WHAT = {"regret": "play", "shoe-regret": "play", "ceiling-fraction": "bets",
                "held-out-regret": "play over a rule space"}
#: SB3's parallel training envs in the benchmark, blackjack-train's 4 (``SB3Config.n_envs``)
#: times 4, each rollout shortened to learn from as many env steps an update
#: (``_sb3_hyper``). A vec-env step and a policy forward pass cost about the same for
#: 16 envs as for 4, so the learners run about 1.2-1.9x faster for the same updates
#: (vegas-play, 1e5 steps, CPU-s at 4 -> 16 envs: PPO 25.9 -> 15.9, A2C 23.2 -> 12.0,
#: MaskablePPO 27 -> 16.2, DQN 26.7 -> 21.9; measured 2026-12-03).
SB3_ENVS = 16


@dataclass(frozen=True)
class Algo:
    """An algorithm of the benchmark.

    ``kind``: ``"reference"`` (graded once, no seeds, no budget), ``"seeded"`` (no
    training, a grade per seed: the simulated random policy) or ``"trained"`` (a grade per
    seed and budget). ``grades``: the task grades it applies to. ``reach``: the largest
    budget of the shipped table (trained), ``reach_note`` why it stops there.
    ``together``: every seed trains in one program (its unit of work is the budget)."""

    name: str
    title: str
    kind: str
    grades: tuple[str, ...]
    about: str
    reach: int = 0
    reach_note: str = ""
    together: bool = False

    @property
    def trained(self) -> bool:
        return self.kind == "trained"


#: Why a learner stops where it does in the table (its measured speed and what its next
#: budget would cost are on the results page, from its results files).
_NEXT = ("Five seeds of the learner on every task at that budget do not fit the table's 4 "
         "hours on 2 cores beside the others; its measured speed and what the budget would "
         "cost are in the algorithms table of the results page")

#: The algorithms, by name.
ALGOS: dict[str, Algo] = {a.name: a for a in (
    Algo("optimum", "exact optimum", "reference", PLAY + RULES,
         "the analysis's best policy: the optimal chart (infinite deck; regret 0, a check "
         "of the pipeline), the best total-dependent chart (shoe); on a rule space each "
         "rule set's own optimum"),
    Algo("vegas-chart", "fixed chart (vegas-strip basic strategy)", "reference", RULES,
         "the basic strategy of vegas-strip (infinite deck) played whatever the rules: "
         "one chart for every table, as a policy blind to the rule features plays"),
    Algo("stand", "always stand", "reference", PLAY + RULES, "stand on every hand"),
    Algo("random", "random legal", "seeded", PLAY + RULES,
         "a uniformly random legal action; simulated (no deterministic policy)"),
    Algo("ceiling", "perfect counter (ceiling)", "reference", BETS,
         "the largest bet where the round's exact edge is positive, the smallest "
         "otherwise: the ceiling itself (fraction 1, a check)"),
    Algo("hi-lo", "Hi-Lo ramp 1-2-4-8", "reference", BETS,
         "bets 1, 2, 4, 8 from Hi-Lo true counts below +2, +2, +3, +4 and up"),
    Algo("flat", "flat (smallest bet)", "reference", BETS, "always bets 1"),
    Algo("random-bets", "random bets", "reference", BETS,
         "a uniformly random size each round (its expected grade: that of its mean bet)"),
    Algo("q-learning", "tabular Q-learning", "trained", PLAY,
         "one-step Q-learning over legal actions, epsilon-greedy (blackjack-train's)",
         reach=10_000_000),
    Algo("ppo", "SB3 PPO", "trained", PLAY + RULES, "stable-baselines3 PPO, 16 envs",
         reach=1_000_000, reach_note=_NEXT),
    Algo("a2c", "SB3 A2C", "trained", PLAY + RULES, "stable-baselines3 A2C, 16 envs",
         reach=1_000_000, reach_note=_NEXT),
    Algo("maskable-ppo", "sb3-contrib MaskablePPO", "trained", PLAY + RULES,
         "sb3-contrib MaskablePPO (illegal actions masked), 16 envs",
         reach=1_000_000, reach_note=_NEXT),
    Algo("dqn", "SB3 DQN", "trained", PLAY + RULES, "stable-baselines3 DQN, 16 envs",
         reach=1_000_000, reach_note=_NEXT),
    Algo("jax-ppo", "JAX PPO", "trained", PLAY + BETS + RULES,
         "masked PPO in one jitted JAX program, the seeds vmapped (blackjack-train's)",
         reach=10_000_000, together=True),
)}


def algo(name: str, task: Task | None = None) -> Algo:
    """The algorithm ``name``; ValueError naming the choices (those of ``task``, given)."""
    found = ALGOS.get(name)
    names = [a.name for a in ALGOS.values() if task is None or task.grade in a.grades]
    if found is None:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(names)}")
    if task is not None and task.grade not in found.grades:
        raise ValueError(f"{name} does not apply to {task.name} (it grades "
                         f"{_GRADES_WHAT[task.grade]}); choose one of {', '.join(names)}")
    return found


def learner_obs_mode(task: Task, name: str) -> str:
    """The observation a learner reads on ``task``."""
    if name == "jax-ppo" or task.rule_space:  # (the rule features need "vector")
        return "vector"
    if name == "q-learning" and task.layout("tuple").n_play == 2 and "tuple" in task.obs_modes:
        return "tuple"
    return "multidiscrete"


def _sb3_hyper(name: str, budget: int) -> dict[str, Any]:
    """``blackjack-train``'s hyper-parameters for :data:`SB3_ENVS` envs: the env steps each
    update learns from kept (PPO and A2C: ``n_steps`` x envs; DQN: env steps per gradient
    step, ``train_freq`` x envs / ``gradient_steps``), then fitted to ``budget``."""
    hyper = dict(DEFAULT_HYPERPARAMETERS[name])
    base = SB3Config.n_envs
    if "n_steps" in hyper:
        assert hyper["n_steps"] * base % SB3_ENVS == 0
        hyper["n_steps"] = hyper["n_steps"] * base // SB3_ENVS
    elif "train_freq" in hyper:
        per_step = hyper["train_freq"] * base // hyper.get("gradient_steps", 1)
        if per_step >= SB3_ENVS:
            assert per_step % SB3_ENVS == 0
            hyper["train_freq"], hyper["gradient_steps"] = per_step // SB3_ENVS, 1
        else:
            assert SB3_ENVS % per_step == 0
            hyper["train_freq"], hyper["gradient_steps"] = 1, SB3_ENVS // per_step
    return fit_rollout(name, hyper, SB3_ENVS, budget)


def _sb3_rollout(name: str, hyper: dict[str, Any]) -> int:
    return int(hyper.get("n_steps") or hyper.get("train_freq") or 1) * SB3_ENVS


def _jax_config(task: Task, seeds: int, budget: int, overrides: dict[str, Any]) -> Any:
    # deferred: loads jax, flax, optax (the optional [jax] extra)
    from blackjack_env.agents.jax_ppo import JaxPPOConfig

    own = {k: v for k, v in overrides.items() if k != "explore_fraction"}
    if task.rule_space:  # one policy over the space (its rules, drawn per table)
        return JaxPPOConfig(rule_space=task.rule_space, seeds=seeds, seed=0,
                            total_timesteps=budget, curve_points=1, **own)
    return JaxPPOConfig(rules=task.rules, seeds=seeds, seed=0, total_timesteps=budget,
                        curve_points=1, bet_sizes=task.bet_sizes or None, **own)


def algo_settings(task: Task, name: str, budget: int | None, seeds: int = 1,
                  overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a run of ``name`` on ``task`` at ``budget`` trains with (its results file's
    ``algo.settings``); ``overrides`` change the learner's defaults (tests: tiny sizes)."""
    own = dict(overrides or {})
    found = algo(name, task)
    if not found.trained:
        return {}
    mode = learner_obs_mode(task, name)
    if name == "q-learning":
        return {"obs_mode": mode, "epsilon_start": 1.0, "epsilon_end": 0.05,
                "explore_fraction": own.get("explore_fraction", 0.5),
                "step_size": "1/N(s,a)^0.8"}
    if name == "jax-ppo":
        config = _jax_config(task, seeds, budget or 1, own).to_dict()
        config.pop("total_timesteps")
        config.pop("seeds")
        return {"obs_mode": mode, **config}
    hyper = _sb3_hyper(name, budget or 1)
    hyper.update(own)
    return {"obs_mode": mode, "n_envs": SB3_ENVS, "torch_threads": 1, "net_arch": [64, 64],
            **hyper}


# ------------------------------------------------------------------------ references
def grade_reference(task: Task, name: str, seed: int | None = None) -> dict[str, Any]:
    """The grade of a reference policy (``seed``: the simulation's, for ``random``)."""
    if task.rule_space and name in ("optimum", "vegas-chart", "stand"):
        return grade_rule_space(task, _rules_reference(name))
    if name == "optimum":
        return grade_state_policy(task, optimum_policy(task))
    if name == "stand":
        env = task.make_env(learner_obs_mode(task, "q-learning"))
        agent = fixed_agent("stand", env)
        env.close()
        return grade_agent(task, agent, agent.obs_mode)
    if name == "random":
        return grade_random_play(task, seed or 0)
    rounds = round_set(task).rounds
    sizes = task.bet_sizes
    lo, hi = min(sizes), max(sizes)
    if name == "ceiling":
        return grade_bets(task, [hi if (r.edge or 0.0) > 0 else lo for r in rounds])
    if name == "flat":
        return grade_bets(task, [lo] * len(rounds))
    if name == "random-bets":
        return grade_bets(task, [float(np.mean(sizes))] * len(rounds), sizes_only=False)
    if name == "hi-lo":
        ramp = BetSpread()
        return grade_bets(task, [ramp.size_for(r.true_count, sizes) for r in rounds])
    raise ValueError(f"{name} is not a reference policy")


def _rules_reference(name: str) -> Any:
    """A reference policy of a rule-space task, as the rule-space grade asks it: each rule
    set's optimum (``state_policy_for``), or a fixed agent's policy over the analysis's
    states, the same on every rule set (``stand``; ``vegas-chart``: the fixed agent
    ``basic`` of vegas-strip on an infinite deck)."""
    if name == "optimum":
        return OptimalPlay()
    env = gym.make("blackjack_env/Blackjack-v0", rules=preset("vegas-strip", decks=None))
    try:
        agent = fixed_agent("basic" if name == "vegas-chart" else name, env)
    finally:
        env.close()
    # its policy over states alone (what the grade asks, and what worker processes get)
    return SimpleNamespace(name=name, state_policy=agent.state_policy)


# ------------------------------------------------------------------------ learners
class _StepCount(gym.Wrapper):
    """Counts the env steps taken through it."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.steps = 0

    def step(self, action: Any) -> Any:
        self.steps += 1
        return self.env.step(action)


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _train_q(task: Task, seed: int, budget: int, work: Path, own: dict[str, Any],
             say: Callable[[str], Any]) -> tuple[Any, int]:
    mode = learner_obs_mode(task, "q-learning")
    env = _StepCount(task.make_env(mode))
    agent = QLearningAgent(int(env.action_space.n), obs_mode=mode, seed=seed)
    horizon = float(own.get("explore_fraction", 0.5)) * budget
    start, end = agent.epsilon_start, agent.epsilon_end
    first: int | None = seed
    try:
        while env.steps < budget:
            eps = end if env.steps >= horizon else start + (end - start) * env.steps / horizon
            agent.train_episode(env, eps, seed=first)
            first = None
    finally:
        env.close()
    agent.save(work / "model.npz")
    return agent, env.steps


def _train_sb3(task: Task, name: str, seed: int, budget: int, work: Path,
               own: dict[str, Any], say: Callable[[str], Any]) -> tuple[Any, int]:
    settings = algo_settings(task, name, budget, overrides=own)
    hyper = {k: v for k, v in settings.items()
             if k not in ("obs_mode", "n_envs", "torch_threads", "net_arch")}
    rollout = _sb3_rollout(name, hyper)
    steps = budget - budget % rollout
    config = SB3Config(algo=name, env_id=task.env_id, env_kwargs={"obs_mode": settings[
        "obs_mode"]}, timesteps=steps, seed=seed, n_envs=SB3_ENVS, eval_freq=10 * budget,
        eval_episodes=1, checkpoint_freq=10 * budget, hyperparameters=hyper, torch_threads=1,
        monitor_files=False)
    agent, finished = train_sb3(config, work, progress=False, say=say)
    if not finished:
        raise KeyboardInterrupt
    return agent, int(agent.model.num_timesteps)


def _grade_trained(task: Task, agent: Any, mode: str) -> dict[str, Any]:
    return grade_policy(task, agent, mode)


def train_and_grade(task: Task, name: str, budget: int, seeds: Sequence[int], work: Path, *,
                    overrides: dict[str, Any] | None = None,
                    say: Callable[[str], Any] = print) -> list[dict[str, Any]]:
    """Train ``name`` on ``task`` for ``budget`` env steps with each of ``seeds`` (the
    model saved in ``work``, in a folder per seed when there are several), grade each
    final policy, and return one record per seed: ``seed``, ``budget``, ``env_steps``,
    ``wall_seconds`` and ``cpu_seconds`` (training and grading; a program that trains
    every seed at once gives each seed an equal share), ``grade_seconds`` and ``grade``.
    Ctrl-C propagates (:class:`KeyboardInterrupt`), with nothing returned."""
    found = algo(name, task)
    own = dict(overrides or {})
    if found.together:
        return _jax_units(task, budget, seeds, work, own, say)
    out = []
    for seed in seeds:
        folder = work if len(seeds) == 1 else work / f"seed-{seed}"
        folder.mkdir(parents=True, exist_ok=True)
        wall0, cpu0 = _clock()
        if name == "q-learning":
            agent, steps = _train_q(task, seed, budget, folder, own, say)
        else:
            agent, steps = _train_sb3(task, name, seed, budget, folder, own, say)
        wall1 = time.perf_counter()
        mode = learner_obs_mode(task, name)
        grade = _grade_trained(task, agent, mode)
        wall2, cpu2 = _clock()
        out.append({"seed": seed, "budget": budget, "env_steps": steps,
                    "wall_seconds": round(wall2 - wall0, 3),
                    "cpu_seconds": round(cpu2 - cpu0, 3),
                    "grade_seconds": round(wall2 - wall1, 3), "grade": grade})
        say(f"  {task.name} {name} {format_budget(budget)} seed {seed}: "
            f"score {grade['score']:.5f} ({steps:,} steps, {wall2 - wall0:.0f} s)")
    return out


def _jax_units(task: Task, budget: int, seeds: Sequence[int], work: Path,
               own: dict[str, Any], say: Callable[[str], Any]) -> list[dict[str, Any]]:
    # deferred: loads jax, flax, optax (the optional [jax] extra)
    from blackjack_env.agents.jax_ppo import make_env, train_seeds

    if list(seeds) != list(range(len(seeds))):
        raise ValueError("jax-ppo trains seeds 0..N-1 together (keys split from one)")
    config = _jax_config(task, len(seeds), budget, own)
    wall0, cpu0 = _clock()
    env, params = make_env(config)
    if task.hide_shoe:
        env = HideShoeJax(env, "vector")
    result = train_seeds(config, env, params, rules=task.rules, grade=False)
    wall1, cpu1 = _clock()
    agents: list[MLPAgent] = [row[-1] for row in result.agents]
    plays = result.play_agents() if task.grade in PLAY + RULES else agents
    out = []
    for k, agent in enumerate(plays):
        agent.save(work / f"seed-{k}.npz")
        g0 = time.perf_counter()
        grade = _grade_trained(task, agent, "vector")
        out.append({"seed": k, "budget": budget, "env_steps": config.timesteps,
                    "wall_seconds": round((wall1 - wall0) / len(plays) + time.perf_counter()
                                          - g0, 3),
                    "cpu_seconds": round((cpu1 - cpu0) / len(plays), 3),
                    "grade_seconds": round(time.perf_counter() - g0, 3), "grade": grade})
    scores = ", ".join(f"{r['grade']['score']:.5f}" for r in out)
    say(f"  {task.name} jax-ppo {format_budget(budget)}: {len(plays)} seeds, scores {scores} "
        f"({config.timesteps:,} steps each, {wall1 - wall0:.0f} s)")
    return out
