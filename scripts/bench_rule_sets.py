"""Wall time of the exact grading across rule sets: the held-out set, policy by policy.

:func:`blackjack_env.agents.rule_sets.grade_rule_sets` grades each policy on the first
``--rule-sets`` rule sets of the default space's held-out set (``held-out:v1``, 256), in
each number of worker processes of ``--workers``, and prints the wall time of the whole
grading (the optimum of every rule set, the policy's answers, its exact evaluation, the
summary; the workers' start included), the time per rule set, and the load average
(the machine is shared: the figures are for the load it had). In this process (1
worker) the CPU time is shown too: the work the grading needs, which a quiet machine's
cores share out (wall time on ``k`` free cores: about CPU / ``k``, plus a second or so
for the workers to start). The policies:

* ``network``: an MLP policy of the generalist's shape (the ``"features"`` observation
  and the rule features in, ``--hidden`` tanh layers, the hand index ignored), weights
  drawn from ``--seed``: answered in one forward per rule set over all its states;
* ``basic``: basic strategy of vegas-strip (infinite deck), a policy over the analysis's
  states, the same on every rule set.

Each grading with workers runs in a fresh pool of processes, whose caches start empty;
one in this process (1 worker) finds the analysis's cache of the runs before it, which
keeps the last 64 solutions: a list longer than that, graded in order, finds none of
them. The figures are checked to be the same for every worker count.

Usage::

    python scripts/bench_rule_sets.py                        # 256 rule sets, 1 and 2 workers
    python scripts/bench_rule_sets.py --rule-sets 32 --workers 1 --json bench.json
"""

from __future__ import annotations

import sys

from _launch import importing

with importing():  # a missing package or Ctrl-C here: one line, status 2 / 130
    import itertools
    import time
    from collections.abc import Sequence
    from dataclasses import dataclass, field
    from typing import Annotated, Any

    import numpy as np

    from blackjack_env.agents.mlp import MLPAgent
    from blackjack_env.agents.rule_sets import grade_rule_sets, load_rule_sets
    from blackjack_env.analysis import solve
    from blackjack_env.cli import (
        check_at_least,
        check_writable,
        finish_benchmark,
        load_average,
        option,
        run_command,
    )
    from blackjack_env.engine import preset
    from blackjack_env.envs import view as V


@dataclass
class Settings:
    """Wall time of grade_rule_sets on the held-out set, per policy and worker count."""

    rule_sets: int = 256
    """grade the first N rule sets of held-out:v1 (at most 256)"""
    workers: list[int] = field(default_factory=lambda: [1, 2])
    """worker process counts to time (1: in this process)"""
    hidden: list[int] = field(default_factory=lambda: [64, 64])
    """the network's hidden layer widths (the JAX PPO's default: 64 64)"""
    seed: int = 0
    """seed of the network's weights"""
    json: Annotated[str | None, option("FILE", "not written")] = None
    """write the figures as JSON to this path"""


class VegasBasic:
    """Basic strategy of vegas-strip on every rule set (a policy over the analysis's
    states)."""

    name = "basic"

    def __init__(self) -> None:
        self.state_policy = solve(preset("vegas-strip", decks=None)).chart.action


def network(hidden: Sequence[int], seed: int) -> MLPAgent:
    """A tanh MLP reading 'features' and the rule features, weights ~ N(0, 1/fan_in)."""
    rng = np.random.default_rng(seed)
    dims = [V.FEATURES_SIZE + V.RULES_SIZE, *hidden, 5]
    layers = [(rng.normal(0.0, 1.0 / np.sqrt(a), (a, b)), np.zeros(b))
              for a, b in itertools.pairwise(dims)]
    return MLPAgent(layers, obs_mode="features", observe_rules=True,
                    ignored=(V.VEC_HAND_INDEX,))


def run(settings: Settings) -> dict[str, Any]:
    """Check the options, measure, print, write the JSON asked for."""
    check_at_least("rule-sets", settings.rule_sets, 1, "rule sets to grade")
    if settings.rule_sets > 256:
        raise ValueError(f"--rule-sets {settings.rule_sets}: the held-out set has 256")
    if not settings.workers:
        raise ValueError("--workers: give one worker count or more, e.g. 1 2")
    for w in settings.workers:
        check_at_least("workers", w, 1, "processes")
    for h in settings.hidden:
        check_at_least("hidden", h, 1, "layer widths")
    check_writable("json", settings.json)
    held = load_rule_sets("held-out:v1")
    rules = held.rules[:settings.rule_sets]
    policies = {"network": network(settings.hidden, settings.seed), "basic": VegasBasic()}
    hidden = "x".join(str(h) for h in settings.hidden)
    print(f"exact grading of {len(rules)} rule sets of {held.name} (wall time, workers' start "
          f"included)\nnetwork: features + rule features -> {hidden} tanh -> 5 actions")
    print(f"{'policy':>8} {'workers':>7} {'seconds':>8} {'CPU s':>7} {'ms/rule set':>11} "
          f"{'mean regret':>11}  load before")
    results: dict[str, Any] = {"rule_sets": len(rules), "rows": []}
    for name, agent in policies.items():
        figures = None
        for workers in settings.workers:
            load = load_average()
            t0, c0 = time.perf_counter(), time.process_time()
            graded = grade_rule_sets(agent, rules, workers=workers, axes=held.axes)
            seconds = time.perf_counter() - t0
            cpu = time.process_time() - c0 if graded.workers == 1 else None
            mine = [g.regret for g in graded.grades]
            if figures is not None and mine != figures:
                raise RuntimeError(f"{name}: the regrets differ between worker counts")
            figures = mine
            shown = "n/a" if load is None else ", ".join(f"{x:.2f}" for x in load)
            cpu_text = "-" if cpu is None else f"{cpu:.1f}"
            print(f"{name:>8} {graded.workers:7d} {seconds:8.1f} {cpu_text:>7} "
                  f"{1e3 * seconds / len(rules):11.0f} {graded.mean:11.5f}  {shown}")
            results["rows"].append({"policy": name, "workers": graded.workers,
                                    "seconds": seconds, "cpu_seconds": cpu,
                                    "mean_regret": graded.mean, "load_average_before": load})
    finish_benchmark(results, settings, settings.json)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="bench_rule_sets.py")


if __name__ == "__main__":
    sys.exit(main())
