"""Benchmark: hands per second of the JAX table (random legal actions or a chart, in one jit).

For each rule set and each table count N, ``N`` tables (``jax.vmap`` of
:class:`~blackjack_env.jax.BlackjackJax`'s ``step``, auto-reset inside) are stepped
``T`` times inside one ``jax.jit`` (``lax.scan``); each step every table plays a
uniformly random legal action chosen inside the loop from the mask of its state
(``--policy random``), or basic strategy's chart looked up from its state inside the loop
(``--policy chart``, :mod:`blackjack_env.jax.chart`; the numpy env plays the same lookup
in numpy). Hands
are settled rounds (episodes). The first call compiles and is not timed; the best of
``--repeats`` timed calls is printed. On CPU the numpy batched env
(:class:`~blackjack_env.envs.vector.BlackjackVectorEnv`, SameStep autoreset, random
legal actions chosen in numpy) is timed in the same run at the same N (``--numpy``), and
the ratio is printed, in wall time and (column ``(cpu-s)``) in hands per CPU second of
the process (steadier on a loaded machine, where other processes take the cores); the
machine's load average is printed too.

    python scripts/bench_jax.py                               # CPU: 4096 and 65536 tables
    python scripts/bench_jax.py --tables 4096 65536 1048576 4194304 --no-numpy  # a GPU
    python scripts/bench_jax.py --json out.json

Rule sets: ``sutton-barto`` (infinite deck, stand/hit) and ``vegas-strip`` (6 decks,
finite shoe with a cut card, every action), as issue 22 asks.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np


def _jax_run(env: Any, n: int, steps: int, policy: str = "random") -> Any:
    import jax
    import jax.numpy as jnp

    from blackjack_env.jax.chart import chart_policy

    params = env.default_params
    step_v = jax.vmap(env.step, in_axes=(0, 0, 0, None))
    reset_v = jax.vmap(env.reset, in_axes=(0, None))
    chart = jax.vmap(chart_policy(env), in_axes=(0, None)) if policy == "chart" else None

    def body(carry: Any, key: Any) -> Any:
        state, mask, hands, ret = carry
        k_a, k_s = jax.random.split(key)
        if chart is not None:  # basic strategy looked up from the state inside the loop
            action = chart(state, params)
        else:
            u = jax.random.uniform(k_a, mask.shape)
            action = jnp.argmax(jnp.where(mask, u, -1.0), axis=1)
        _, state, reward, done, info = step_v(jax.random.split(k_s, n), state, action, params)
        return (state, info["action_mask"], hands + done.sum(), ret + reward.sum()), None

    def run(key: Any) -> Any:
        k0, k1 = jax.random.split(key)
        _, state = reset_v(jax.random.split(k0, n), params)
        mask = jax.vmap(lambda s: env.action_mask(s, params))(state)
        carry = (state, mask, jnp.zeros((), jnp.int32), jnp.zeros((), jnp.float32))
        carry, _ = jax.lax.scan(body, carry, jax.random.split(k1, steps))
        return carry[2], carry[3]

    return jax.jit(run)


def bench_jax(
    rules: str, n: int, steps: int, repeats: int, policy: str = "random"
) -> dict[str, Any]:
    import jax

    from blackjack_env.jax import BlackjackJax

    env = BlackjackJax(rules=rules, obs_mode="vector")
    run = _jax_run(env, n, steps, policy)
    t0 = time.perf_counter()
    hands, ret = run(jax.random.PRNGKey(0))
    hands.block_until_ready()
    compile_s = time.perf_counter() - t0
    best = best_cpu = 0.0
    total_h, total_r = 0, 0.0
    for rep in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        hands, ret = run(jax.random.PRNGKey(rep + 1))
        hands.block_until_ready()
        dt, dc = time.perf_counter() - t, time.process_time() - c
        best = max(best, int(hands) / dt)
        best_cpu = max(best_cpu, int(hands) / max(dc, 1e-9))
        total_h += int(hands)
        total_r += float(ret)
    return {
        "impl": "jax", "rules": rules, "policy": policy, "tables": n, "steps": steps,
        "hands_per_s": best, "hands_per_cpu_s": best_cpu, "compile_s": compile_s,
        "mean_return": total_r / max(total_h, 1), "hands": total_h,
        "backend": jax.default_backend(),
    }  # fmt: skip


def bench_numpy(rules: str, n: int, seconds: float, policy: str = "random") -> dict[str, Any]:
    from blackjack_env.envs.vector import BlackjackVectorEnv, random_legal_actions
    from blackjack_env.simulate import chart_policy

    env = BlackjackVectorEnv(n, rules=rules, obs_mode="vector", autoreset_mode="SameStep")
    rng = np.random.default_rng(0)
    if policy == "chart":
        chart = chart_policy(env)
        choose = lambda mask: chart(mask)  # noqa: E731
    else:
        choose = lambda mask: random_legal_actions(rng, mask)  # noqa: E731
    _, info = env.reset(seed=0)
    for _ in range(5):  # warm up
        _, _, te, tr, info = env.step(choose(info["action_mask"]))
    hands, ret, t0, c0 = 0, 0.0, time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        _, r, te, tr, info = env.step(choose(info["action_mask"]))
        hands += int(np.count_nonzero(te | tr))
        ret += float(r.sum())
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    return {
        "impl": "numpy", "rules": rules, "policy": policy, "tables": n,
        "hands_per_s": hands / dt, "hands_per_cpu_s": hands / max(dc, 1e-9),
        "mean_return": ret / max(hands, 1), "hands": hands,
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--tables", type=int, nargs="+", default=[4096, 65536], help="table counts N to time"
    )
    ap.add_argument(
        "--rules",
        nargs="+",
        default=["sutton-barto", "vegas-strip"],
        help="rule presets (vegas-strip: 6 decks, finite shoe)",
    )
    ap.add_argument(
        "--policy",
        nargs="+",
        default=["random", "chart"],
        choices=["random", "chart"],
        help="random legal actions, and/or basic strategy's chart looked up in the loop",
    )
    ap.add_argument(
        "--steps", type=int, default=0, help="steps per timed call (0: about 2**22 / N, 20..400)"
    )
    ap.add_argument("--repeats", type=int, default=2, help="timed calls (best is printed)")
    ap.add_argument(
        "--numpy",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also time the numpy batched env (default: on a CPU backend)",
    )
    ap.add_argument(
        "--numpy-seconds", type=float, default=3.0, help="seconds of numpy play per measurement"
    )
    ap.add_argument("--json", default=None, help="write the results as JSON here")
    args = ap.parse_args(argv)
    if any(n < 1 for n in args.tables) or args.repeats < 1 or args.steps < 0:
        print("error: --tables and --repeats must be >= 1, --steps >= 0", file=sys.stderr)
        return 2
    from blackjack_env._cli import atomic_path, check_output_file
    from blackjack_env.engine.rules import PRESETS

    unknown = [r for r in args.rules if r not in PRESETS]
    if unknown:
        print(f"error: --rules {unknown[0]!r}: presets are {', '.join(PRESETS)}", file=sys.stderr)
        return 2
    if args.json:
        try:
            check_output_file(args.json, "--json")
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    import jax

    backend = jax.default_backend()
    with_numpy = backend == "cpu" if args.numpy is None else args.numpy
    print(f"backend: {backend} {jax.devices()[0]}; load average {os.getloadavg()}")
    head = f"{'rules':13s} {'policy':6s} {'N':>8s} {'jax hands/s':>14s} {'compile':>8s}"
    if with_numpy:
        head += f" {'numpy hands/s':>14s} {'jax/numpy':>9s} {'(cpu-s)':>8s}"
    print(head + "  mean return (jax / numpy)", flush=True)
    rows = []
    for n in args.tables:  # (each size for every rule set first: a run cut short has both)
        for rules in args.rules:
            for policy in args.policy:
                steps = args.steps or max(20, min(400, 2**22 // n))
                row = bench_jax(rules, n, steps, args.repeats, policy)
                rows.append(row)
                line = (
                    f"{rules:13s} {policy:6s} {n:>8d} {row['hands_per_s']:>14,.0f} "
                    f"{row['compile_s']:>7.1f}s"
                )
                means = f"{row['mean_return']:+.4f}"
                if with_numpy:
                    ref = bench_numpy(rules, n, args.numpy_seconds, policy)
                    rows.append(ref)
                    row["numpy_ratio"] = row["hands_per_s"] / ref["hands_per_s"]
                    row["numpy_cpu_ratio"] = row["hands_per_cpu_s"] / ref["hands_per_cpu_s"]
                    line += f" {ref['hands_per_s']:>14,.0f} {row['numpy_ratio']:>8.2f}x"
                    line += f" {row['numpy_cpu_ratio']:>7.2f}x"
                    means += f" / {ref['mean_return']:+.4f}"
                print(f"{line}  {means}", flush=True)
                if args.json:  # after every row: a run cut short keeps what it measured
                    with atomic_path(args.json) as tmp, open(tmp, "w") as fh:
                        json.dump(
                            {"backend": backend, "load": os.getloadavg(), "rows": rows},
                            fh,
                            indent=1,
                        )
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
