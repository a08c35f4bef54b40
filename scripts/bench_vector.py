"""Benchmark: hands per second of the batched vector env against Gymnasium's Blackjack-v1.

The baseline is ``gymnasium.vector.SyncVectorEnv`` of ``--baseline-envs`` (64)
``Blackjack-v1`` envs (``gymnasium.make_vec(..., vectorization_mode="sync")``,
its default next-step autoreset) played with uniformly random actions; ours is
``BlackjackVectorEnv`` with ``--tables`` (4096) tables played with uniformly
random *legal* actions (for ``vegas-strip``: the full action set, stand, hit,
double, split, surrender). Hands are counted, not steps: a hand is a finished
episode of Blackjack-v1, a settled round of ours. Everything runs in this one
process on one core, and the baseline is measured before and after our runs
(the mean is used), so the ratios printed compare measurements made under the
same machine load (printed too, from ``os.getloadavg``).

    python scripts/bench_vector.py                 # the issue's two targets
    python scripts/bench_vector.py --seconds 1 --json out.json
    python scripts/bench_vector.py --profile 25    # then where our step spends its time
    python scripts/bench_vector.py --id blackjack_env/BlackjackCounting-v0
                                                   # also: a registered id, natively
                                                   # against SyncVectorEnv of it
    python scripts/bench_vector.py --seats 3 7     # also: several learner seats per table
    python scripts/bench_vector.py --rule-space v1 # also: every table under its own rules

With ``--seats S``, ``vegas-strip`` tables of S learner seats are timed as
``BlackjackVectorEnv(S * (tables // S), seats_per_table=S)`` against a Python loop over
one ``BlackjackParallelEnv(num_seats=S)`` (episodes of 100 rounds), both with random
legal actions for every seat; a hand is one seat's settled round.

With ``--id``, each id is also timed as ``gym.make_vec(id, num_envs=tables)`` (the
native batched env) against ``gym.make_vec(id, num_envs=baseline_envs,
vectorization_mode="sync")`` (``SyncVectorEnv`` of the same single env), both with
random legal actions chosen in numpy and counted in settled rounds.

With ``--rule-space VERSION``, ``BlackjackVectorEnv(tables, rules=default_space(VERSION))``
(every table under its own rule set, redrawn at each of its resets) is timed against the
same env under the space's first rule set, after its rule tables are built for every rule
set the sampler draws (the time that takes is printed apart).

Targets (issue 5): >= 200x with ``sutton-barto``, >= 100x with ``vegas-strip``.

The first line printed says how the finite shoes deal: by loops compiled with numba
(``blackjack_env.envs.batch.kernels``, installed with the ``fast`` extra) or by numpy
(the same cards; ``compiled_draws`` in the JSON).
"""

from __future__ import annotations

import sys

from _launch import importing

with importing():  # a missing package or Ctrl-C here: one line, status 2 / 130
    import cProfile
    import os
    import pstats
    import time
    from collections.abc import Sequence
    from dataclasses import dataclass, field
    from typing import Annotated, Literal

    import gymnasium as gym
    import numpy as np

    from blackjack_env import ENV_IDS
    from blackjack_env.cli import (
        check_at_least,
        check_positive,
        check_writable,
        finish_benchmark,
        load_average,
        option,
        run_command,
    )
    from blackjack_env.engine.rulespace import default_space
    from blackjack_env.envs.batch import kernels
    from blackjack_env.envs.vector import BlackjackVectorEnv, random_legal_actions


@dataclass
class Settings:
    """Hands per second of the batched vector env against Gymnasium's Blackjack-v1."""

    tables: int = 4096
    """tables in our batched env"""
    baseline_envs: int = 64
    """Blackjack-v1 copies in the SyncVectorEnv baseline"""
    seconds: float = 3.0
    """wall-clock seconds per measurement"""
    seed: int = 0
    """seed of the envs and of the random actions"""
    autoreset: list[Literal["SameStep", "NextStep"]] = field(
        default_factory=lambda: ["SameStep", "NextStep"]
    )
    """autoreset modes of our env to measure"""
    json: Annotated[str | None, option("FILE", "not written")] = None
    """write the results here as JSON"""
    profile: int = 0
    """afterwards, print the top N functions of a cProfile run of each case (0: no profiling)"""
    id: Annotated[list[str], option("ID [ID ...]", "none")] = field(default_factory=list)
    """registered ids to time natively against SyncVectorEnv of the same single env"""
    seats: Annotated[list[int], option("S [S ...]", "none")] = field(default_factory=list)
    """seats per table (2..7) to time: --tables // S tables of S learner seats against a Python loop over the multi-agent table"""  # noqa: E501
    rule_space: Annotated[str | None, option("VERSION", "not timed")] = None
    """also time the default rule space of this version (e.g. v1): every table under its own rule set, redrawn at each reset, against one rule set for all"""  # noqa: E501


CASES = (("sutton-barto", "tuple", 200.0), ("vegas-strip", "multidiscrete", 100.0))


def _load() -> str:
    load = load_average()
    if load is None:  # pragma: no cover - not on every platform
        return "n/a"
    return f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cpus)"


def bench_baseline(s: Settings) -> dict[str, float]:
    envs = gym.make_vec("Blackjack-v1", num_envs=s.baseline_envs, vectorization_mode="sync")
    envs.reset(seed=s.seed)
    rng = np.random.default_rng(s.seed)
    hands = steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < s.seconds:
        _, _, term, trunc, _ = envs.step(rng.integers(0, 2, size=s.baseline_envs))
        hands += int(np.count_nonzero(term | trunc))
        steps += 1
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    envs.close()
    return {"hands_per_s": hands / wall, "hands_per_cpu_s": hands / cpu, "steps": steps}


def bench_ours(s: Settings, rules: str, obs_mode: str, autoreset: str) -> dict[str, float]:
    env = BlackjackVectorEnv(s.tables, rules=rules, obs_mode=obs_mode, autoreset_mode=autoreset)
    _, info = env.reset(seed=s.seed)
    env.step(random_legal_actions(np.random.default_rng(s.seed), info["action_mask"]))  # warm-up
    return _time_batched(env, s)


def _time_batched(env: BlackjackVectorEnv, s: Settings) -> dict[str, float]:
    """Settled rounds per second of ``env`` (reset with ``s.seed``) for ``s.seconds``."""
    _, info = env.reset(seed=s.seed)
    rng = np.random.default_rng(s.seed)
    hands = steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < s.seconds:
        _, _, _, _, info = env.step(random_legal_actions(rng, info["action_mask"]))
        hands += int(np.count_nonzero(info["round_over"]))
        steps += 1
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"hands_per_s": hands / wall, "hands_per_cpu_s": hands / cpu, "steps": steps}


def bench_id(env_id: str, num_envs: int, s: Settings, **kwargs: str) -> dict[str, float]:
    """Settled rounds per second of ``gym.make_vec(env_id, ...)`` with random legal
    actions (``kwargs``: e.g. ``vectorization_mode="sync"``, ``autoreset_mode``)."""
    envs = gym.make_vec(env_id, num_envs=num_envs, **kwargs)
    rng = np.random.default_rng(s.seed)
    _, info = envs.reset(seed=s.seed)
    native = isinstance(envs.unwrapped, BlackjackVectorEnv)
    hands = steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < s.seconds:
        _, _, _, _, info = envs.step(random_legal_actions(rng, info["action_mask"]))
        # a settled round: round_over (native), a settlement in a sub-env's info (sync)
        settled = info["round_over"] if native else info.get("_settlement")
        if settled is None:
            settled = info.get("settled", ())
        hands += int(np.count_nonzero(settled))
        steps += 1
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    envs.close()
    return {"hands_per_s": hands / wall, "hands_per_cpu_s": hands / cpu, "steps": steps,
            "native": native}


def bench_seats_batched(s: Settings, seats: int, autoreset: str) -> dict[str, float]:
    """Seat-rounds settled per second of the batched env with ``seats`` seats per table."""
    tables = max(1, s.tables // seats)
    env = BlackjackVectorEnv(seats * tables, seats_per_table=seats, rules="vegas-strip",
                             autoreset_mode=autoreset)
    return _time_batched(env, s)


def bench_seats_parallel(s: Settings, seats: int) -> dict[str, float]:
    """Seat-rounds settled per second of a Python loop over the multi-agent table."""
    from blackjack_env.envs.multiagent import BlackjackParallelEnv

    env = BlackjackParallelEnv(rules="vegas-strip", num_seats=seats, rounds=100)
    rng = np.random.default_rng(s.seed)
    obs, _ = env.reset(seed=s.seed)
    hands = steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < s.seconds:
        if not env.agents:
            obs, _ = env.reset()
        actions = {a: int(random_legal_actions(rng, obs[a]["action_mask"][None, :])[0])
                   for a in env.agents}
        obs, _, _, _, infos = env.step(actions)
        hands += sum("round_net" in i for i in infos.values())
        steps += 1
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"hands_per_s": hands / wall, "hands_per_cpu_s": hands / cpu, "steps": steps}


def run_seats(s: Settings) -> list[dict[str, object]]:
    """``--seats``: the batched env with several seats per table against the parallel env."""
    rows: list[dict[str, object]] = []
    for seats in s.seats:
        print(f"\nvegas-strip, {seats} learner seats per table:")
        ref = bench_seats_parallel(s, seats)
        print(f"  {'BlackjackParallelEnv loop':30s} {ref['hands_per_s']:>12,.0f} hands/s")
        for autoreset in s.autoreset:
            r = bench_seats_batched(s, seats, autoreset)
            ratio = r["hands_per_s"] / ref["hands_per_s"]
            name = f"batched {max(1, s.tables // seats)} tables {autoreset}"
            print(f"  {name:30s} {r['hands_per_s']:>12,.0f} hands/s  {ratio:7.1f}x")
            rows.append({"seats": seats, "autoreset": autoreset,
                         "tables": max(1, s.tables // seats), "hands_per_s": r["hands_per_s"],
                         "parallel_hands_per_s": ref["hands_per_s"], "ratio_wall": ratio})
    return rows


def run_ids(s: Settings) -> list[dict[str, object]]:
    """``--id``: each id natively (every autoreset mode asked) and as ``SyncVectorEnv``."""
    rows: list[dict[str, object]] = []
    for env_id in s.id:
        print(f"\n{env_id}:")
        sync = bench_id(env_id, s.baseline_envs, s, vectorization_mode="sync")
        name = f"SyncVectorEnv x{s.baseline_envs}"
        print(f"  {name:30s} {sync['hands_per_s']:>12,.0f} hands/s")
        for autoreset in s.autoreset:
            r = bench_id(env_id, s.tables, s, autoreset_mode=autoreset)
            kind = "native" if r["native"] else "NOT native"
            ratio = r["hands_per_s"] / sync["hands_per_s"]
            name = f"{kind} x{s.tables} {autoreset}"
            print(f"  {name:30s} {r['hands_per_s']:>12,.0f} hands/s  {ratio:7.1f}x")
            rows.append({"id": env_id, "autoreset": autoreset, "tables": s.tables,
                         "hands_per_s": r["hands_per_s"], "native": r["native"],
                         "sync_envs": s.baseline_envs, "sync_hands_per_s": sync["hands_per_s"],
                         "ratio_wall": ratio})
    return rows


def run_space(s: Settings) -> list[dict[str, object]]:
    """``--rule-space``: the batched env under the default rule space (its rule tables
    built first, timed apart) against the same env under the space's first rule set."""
    space = default_space(s.rule_space or "v1")
    first = space.rules_at(0)
    print(f"\nrule space {space.name} ({space.training_size:,} rule sets drawn), "
          f"multidiscrete, {s.tables} tables:")
    rows: list[dict[str, object]] = []
    for autoreset in s.autoreset:
        env = BlackjackVectorEnv(s.tables, rules=space, autoreset_mode=autoreset)
        bank = env.bank
        assert bank is not None
        start = time.perf_counter()
        bank.slots(np.array([i for i, r in enumerate(space) if not space.is_held_out(r)]))
        built = time.perf_counter() - start
        mixed = _time_batched(env, s)
        fixed = _time_batched(BlackjackVectorEnv(s.tables, rules=first,
                                                 autoreset_mode=autoreset), s)
        ratio = mixed["hands_per_s"] / fixed["hands_per_s"]
        print(f"  {autoreset:9s} one rule set {fixed['hands_per_s']:>12,.0f} hands/s; every "
              f"table its own {mixed['hands_per_s']:>12,.0f} hands/s ({ratio:.2f}x); "
              f"{bank.size:,} rule sets' tables built in {built:.1f} s")
        rows.append({"space": space.name, "autoreset": autoreset, "tables": s.tables,
                     "hands_per_s": mixed["hands_per_s"],
                     "one_rule_set_hands_per_s": fixed["hands_per_s"], "ratio": ratio,
                     "bank_build_s": built, "rule_sets": bank.size})
    return rows


def profile_ours(s: Settings, rules: str, obs_mode: str, autoreset: str) -> None:
    """cProfile the same loop as :func:`bench_ours` (not timed) and print the top functions."""
    env = BlackjackVectorEnv(s.tables, rules=rules, obs_mode=obs_mode, autoreset_mode=autoreset)
    _, info = env.reset(seed=s.seed)
    rng = np.random.default_rng(s.seed)
    profiler = cProfile.Profile()
    profiler.enable()
    start = time.perf_counter()
    while time.perf_counter() - start < s.seconds:
        _, _, _, _, info = env.step(random_legal_actions(rng, info["action_mask"]))
    profiler.disable()
    print(f"\nprofile: {rules} {obs_mode} {autoreset} (top {s.profile} by own time)")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(s.profile)


def run(s: Settings) -> dict[str, object]:
    """Check the options, measure, print, write the JSON asked for."""
    check_at_least("tables", s.tables, 1, "tables in our batched env")
    check_at_least("baseline_envs", s.baseline_envs, 1, "Blackjack-v1 copies in the baseline")
    check_positive("seconds", s.seconds, "wall-clock seconds per measurement")
    check_at_least("profile", s.profile, 0, "functions to list; 0: no profiling")
    if not s.autoreset:
        raise ValueError("--autoreset: give at least one of SameStep, NextStep")
    for seats in s.seats:
        if not 2 <= seats <= 7:
            raise ValueError(f"--seats {seats} is not allowed: seats per table from 2 to 7")
    for env_id in s.id:  # checked before any timing: a bad id would end a long run
        if env_id not in ENV_IDS:
            raise ValueError(
                f"--id {env_id}: not one of this package's registered ids; choose from "
                f"{', '.join(ENV_IDS)}"
            )
    if s.rule_space is not None:
        default_space(s.rule_space)  # ValueError names the versions there are
    check_writable("json", s.json)
    compiled_draws = kernels.load() is not None
    print("card draws: " + ("compiled by numba (the fast extra)" if compiled_draws else
                            "numpy loops (numba not installed, or BLACKJACK_ENV_PURE=1)"))
    print(f"load before: {_load()}")
    before = bench_baseline(s)
    name = f"SyncVectorEnv x{s.baseline_envs} Blackjack-v1"
    print(f"baseline {name}: {before['hands_per_s']:,.0f} hands/s")
    ours = {}
    for rules, obs_mode, target in CASES:
        for autoreset in s.autoreset:
            r = bench_ours(s, rules, obs_mode, autoreset)
            ours[(rules, autoreset)] = (r, target, obs_mode)
            print(f"  {rules:13s} {obs_mode:13s} {autoreset:9s} {r['hands_per_s']:>12,.0f} hands/s")
    after = bench_baseline(s)
    print(f"baseline again: {after['hands_per_s']:,.0f} hands/s")
    base_wall = (before["hands_per_s"] + after["hands_per_s"]) / 2
    base_cpu = (before["hands_per_cpu_s"] + after["hands_per_cpu_s"]) / 2
    print(f"load after: {_load()}")
    header = ("rules", "autoreset", "ratio (wall)", "ratio (cpu)", "target")
    print("\n{:13s} {:9s} {:>12s} {:>12s} {:>7s}".format(*header))
    rows = []
    for (rules, autoreset), (r, target, obs_mode) in ours.items():
        ratio = r["hands_per_s"] / base_wall
        ratio_cpu = r["hands_per_cpu_s"] / base_cpu
        ok = "met" if ratio >= target else "NOT met"
        print(f"{rules:13s} {autoreset:9s} {ratio:11.1f}x {ratio_cpu:11.1f}x {target:6.0f}x  {ok}")
        rows.append(
            {
                "rules": rules,
                "obs_mode": obs_mode,
                "autoreset": autoreset,
                "tables": s.tables,
                "hands_per_s": r["hands_per_s"],
                "ratio_wall": ratio,
                "ratio_cpu": ratio_cpu,
                "target": target,
            }
        )
    result: dict[str, object] = {
        "baseline_hands_per_s": base_wall,
        "baseline_hands_per_cpu_s": base_cpu,
        "compiled_draws": compiled_draws,
        "results": rows,
    }
    if s.id:
        result["ids"] = run_ids(s)
    if s.seats:
        result["seats"] = run_seats(s)
    if s.rule_space is not None:
        result["rule_space"] = run_space(s)
    finish_benchmark(result, s, s.json)
    if s.profile > 0:
        for rules, obs_mode, _ in CASES:
            for autoreset in s.autoreset:
                profile_ours(s, rules, obs_mode, autoreset)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="bench_vector.py")


if __name__ == "__main__":
    sys.exit(main())
