"""Env throughput: steps per second of ``Blackjack-v0`` against Gymnasium's ``Blackjack-v1``.

Every env is made with ``gym.make`` (default wrappers: order enforcing and the
passive checker) and played with the same fixed policy, hit below 17 and stand
otherwise, reading the player total from the observation; resets are part of the
timed loop, and a step is one ``env.step`` call. Ours is also measured unwrapped
(``env.unwrapped``: the cost of the gym.make wrappers is the difference). In the
same run it also measures the *engine ceiling*: the same policy played on the bare
engine table, counting the steps the env would take (learner decisions, plus one
step for a round settled at the deal), i.e. the speed of an env with zero overhead
on this engine.

Each figure is the best of ``--repeats`` timed blocks (the least disturbed by
other load); Gymnasium and ours are measured alternately. ``--profile`` adds a
cProfile breakdown of each case by layer (engine, env, gymnasium wrappers, other)
and the engine's most expensive functions. The run starts by printing which
modules run compiled (see ``blackjack_env.compiled_modules()``); compiled code
calling compiled code is invisible to cProfile, so with the extensions built the
env core's share includes the engine work it calls.

Usage::

    python scripts/bench_env.py
    python scripts/bench_env.py --steps 200000 --repeats 5 --profile --json bench_env.json
"""

from __future__ import annotations

import sys

from _launch import importing

with importing():  # a missing package or Ctrl-C here: one line, status 2 / 130
    import cProfile
    import os
    import pstats
    import re
    import time
    from collections.abc import Sequence
    from dataclasses import dataclass
    from typing import Annotated

    import gymnasium as gym

    import blackjack_env
    from blackjack_env.cli import (
        check_at_least,
        check_writable,
        finish_benchmark,
        option,
        run_command,
    )
    from blackjack_env.engine import Action, Phase, Table, preset

gym.register_envs(blackjack_env)


@dataclass
class Settings:
    """Env throughput: steps per second of Blackjack-v0 against Gymnasium's Blackjack-v1."""

    steps: int = 100_000
    """env steps per timed block"""
    repeats: int = 3
    """timed blocks per measurement; the best is reported"""
    seed: int = 0
    """seed of every env and table"""
    profile: bool = False
    """print a cProfile breakdown of each case by layer"""
    json: Annotated[str | None, option("FILE", "not written")] = None
    """write the figures as JSON to this path"""


@dataclass(frozen=True)
class Case:
    name: str
    rules: str
    obs_mode: str
    total_index: int  # where the player total is in the observation
    target: float  # the target ratio against Blackjack-v1


CASES = (
    Case("sutton-barto / tuple", "sutton-barto", "tuple", 0, 5.0),
    Case("vegas-strip / multidiscrete", "vegas-strip", "multidiscrete", 1, 3.0),
)


def env_steps_per_second(make_env, total_index: int, steps: int, seed: int) -> float:
    env = make_env()
    obs, _ = env.reset(seed=seed)
    step = env.step
    reset = env.reset
    start = time.perf_counter()
    for _ in range(steps):
        obs, _, terminated, truncated, _ = step(1 if obs[total_index] < 17 else 0)
        if terminated or truncated:
            obs, _ = reset()
    rate = steps / (time.perf_counter() - start)
    env.close()
    return rate


def engine_steps_per_second(rules_name: str, steps: int, seed: int) -> float:
    """The same policy on the bare table, counting the steps the env would count."""
    table = Table(preset(rules_name), seed=seed)
    hit, stand, decline = Action.HIT, Action.STAND, Action.DECLINE
    insurance, settled = Phase.INSURANCE, Phase.SETTLED
    done = 0
    start = time.perf_counter()
    while done < steps:
        table.bet(0, 1)
        table.deal()
        decided = False
        while table.phase is not settled:
            if table.phase is insurance:
                table.act(decline)  # the env declines insurance for the learner
                continue
            hand = table.current_hand
            table.act(hit if hand.total < 17 and hit in table.legal_actions() else stand)
            done += 1
            decided = True
        if not decided:
            done += 1  # the env's continue step for a round settled at the deal
        table.new_round()
    return done / (time.perf_counter() - start)


def best(fn, repeats: int, *args) -> float:
    return max(fn(*args) for _ in range(repeats))


#: Layers of the classes of compiled modules: cProfile names their methods
#: ``<method 'step' of 'EnvCore' objects>``, without a file or module.
_COMPILED_LAYERS = {
    "EnvCore": "env core (compiled, with its engine calls)",
    "LearnerView": "env core (compiled, with its engine calls)",
    "Table": "engine",
    "Seat": "engine",
    "Shoe": "engine",
    "Hand": "engine",
}


def _layer(filename: str, name: str) -> str:
    """The layer of a profiled function. What a compiled (mypyc) function calls in
    another compiled module is not seen by the profiler: it counts as the caller's."""
    path = filename.replace(os.sep, "/")
    if "/blackjack_env/engine/" in path:
        return "engine"
    if "/blackjack_env/" in path:
        return "env"
    if "/gymnasium/" in path:
        return "gymnasium wrappers"
    if "/numpy/" in path:
        return "numpy"
    native = re.search(r"of '(\w+)' objects", name)
    if native and native.group(1) in _COMPILED_LAYERS:
        return _COMPILED_LAYERS[native.group(1)]
    return "other (builtins, loop)"


def profile_case(case: Case, steps: int, seed: int) -> dict:
    def make():
        return gym.make("blackjack_env/Blackjack-v0", rules=case.rules, obs_mode=case.obs_mode)

    profiler = cProfile.Profile()
    profiler.enable()
    env_steps_per_second(make, case.total_index, steps, seed)
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # (file, line, name) -> (cc, nc, tt, ct, callers)
    layers: dict[str, float] = {}
    engine_funcs: list[tuple[float, str]] = []
    total = 0.0
    for (filename, line, name), (_, _, tottime, _, _) in stats.items():
        layer = _layer(filename, name)
        layers[layer] = layers.get(layer, 0.0) + tottime
        total += tottime
        if layer == "engine":
            engine_funcs.append((tottime, f"{os.path.basename(filename)}:{line} {name}"))
    shares = {k: v / total for k, v in sorted(layers.items(), key=lambda kv: -kv[1])}
    print(f"  profile of {case.name} (share of self time, cProfile inflates small calls):")
    for layer, share in shares.items():
        print(f"    {layer:<42} {share:6.1%}")
    top = sorted(engine_funcs, reverse=True)[:6]
    if top:
        print("    engine functions: " + "; ".join(f"{n} {t / total:.1%}" for t, n in top))
    return {"layers": shares, "engine_top": [(n, t / total) for t, n in top]}


def run(settings: Settings) -> dict:
    """Check the options, measure, print, write the JSON asked for."""
    check_at_least("steps", settings.steps, 1, "env steps per timed block")
    check_at_least("repeats", settings.repeats, 1, "timed blocks per measurement")
    check_writable("json", settings.json)
    results: dict = {"cases": []}
    compiled = blackjack_env.compiled_modules()
    print(
        "compiled modules: "
        + (", ".join(name for name, on in compiled.items() if on) or "none (pure Python)")
    )

    def make_gym():
        return gym.make("Blackjack-v1")

    gym_rates = []
    for case in CASES:

        def make_ours(case: Case = case):
            return gym.make("blackjack_env/Blackjack-v0", rules=case.rules, obs_mode=case.obs_mode)

        def make_unwrapped(case: Case = case):
            return make_ours(case).unwrapped

        gym_best = ours_best = bare_best = 0.0
        for _ in range(settings.repeats):  # alternate, so load hits all alike
            gym_best = max(
                gym_best, env_steps_per_second(make_gym, 0, settings.steps, settings.seed)
            )
            ours_best = max(
                ours_best,
                env_steps_per_second(make_ours, case.total_index, settings.steps, settings.seed),
            )
            bare_best = max(
                bare_best,
                env_steps_per_second(
                    make_unwrapped, case.total_index, settings.steps, settings.seed
                ),
            )
        ceiling = best(
            engine_steps_per_second, settings.repeats, case.rules, settings.steps, settings.seed
        )
        gym_rates.append(gym_best)
        ratio = ours_best / gym_best
        print(f"{case.name}:")
        print(f"  Blackjack-v1 (gym.make)          {gym_best:10,.0f} steps/s")
        print(
            f"  Blackjack-v0 (gym.make)          {ours_best:10,.0f} steps/s  = {ratio:5.2f}x "
            f"(target {case.target:g}x: {'met' if ratio >= case.target else 'NOT met'})"
        )
        print(
            f"  Blackjack-v0 (unwrapped)         {bare_best:10,.0f} steps/s  = "
            f"{bare_best / gym_best:5.2f}x (without gym.make's wrappers)"
        )
        print(
            f"  engine ceiling (bare table)      {ceiling:10,.0f} steps/s  = "
            f"{ceiling / gym_best:5.2f}x"
        )
        entry = {
            "case": case.name,
            "rules": case.rules,
            "obs_mode": case.obs_mode,
            "gymnasium_steps_per_s": gym_best,
            "env_steps_per_s": ours_best,
            "ratio_vs_gymnasium": ratio,
            "unwrapped_env_steps_per_s": bare_best,
            "target_ratio": case.target,
            "engine_ceiling_steps_per_s": ceiling,
            "engine_ceiling_ratio": ceiling / gym_best,
        }
        if settings.profile:
            entry["profile"] = profile_case(case, min(settings.steps, 50_000), settings.seed)
        results["cases"].append(entry)
    results["compiled_modules"] = compiled
    finish_benchmark(results, settings, settings.json)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="bench_env.py")


if __name__ == "__main__":
    sys.exit(main())
