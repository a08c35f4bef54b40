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
    python scripts/bench_jax.py --tables 4096 --mixed --no-numpy   # each table its own rules

Rule sets: ``sutton-barto`` (infinite deck, stand/hit) and ``vegas-strip`` (6 decks,
finite shoe with a cut card, every action), as issue 22 asks. With ``--mixed`` each row
is followed by the same ``N`` tables each under its own rule set (``MIXED_AXES``: up to
``N`` distinct rule sets around the preset, in one compiled program, rules as data), and
its ratio to those tables under the preset alone (the same program and shapes).
"""

from __future__ import annotations

import sys

from _launch import importing

with importing():  # a missing package or Ctrl-C here: one line, status 2 / 130
    import json
    import os
    import time
    from collections.abc import Sequence
    from dataclasses import dataclass, field
    from typing import Annotated, Any, Literal

    import numpy as np
    import tyro

    from blackjack_env.cli import (
        UsageError,
        atomic_path,
        check_at_least,
        check_writable,
        note_new_folder,
        option,
        run_command,
    )

_Flag = tyro.conf.FlagCreatePairsOff


def _jax_run(
    env: Any, n: int, steps: int, policy: str = "random", params: Any = None, chart_of: Any = None
) -> Any:
    """The timed program: ``n`` tables of ``env`` (``params``: one rule set for all, the
    default, or one row per table) stepped ``steps`` times in one jit; ``chart_of``: the
    rules whose chart the ``"chart"`` policy plays (default the env's)."""
    import jax
    import jax.numpy as jnp

    from blackjack_env.analysis.strategy import basic_strategy_chart, nearest_supported_rules
    from blackjack_env.jax import tables
    from blackjack_env.jax.chart import chart_policy

    params = env.default_params if params is None else params

    def per_table(fn: Any) -> Any:
        """``fn(*row, params)`` vmapped over tables (a bank: each table its rule set)."""
        if isinstance(params, tables.Banked):
            bank = params.bank
            return jax.vmap(lambda *a: fn(*a[:-1], bank.at(a[-1])))
        rows = 0 if tables.batched(params) else None
        return lambda *a: jax.vmap(fn, in_axes=(*(0,) * (len(a) - 1), rows))(*a)

    def rules_of(_: Any) -> Any:
        return params.index if isinstance(params, tables.Banked) else params

    step_v = per_table(env.step)
    reset_v = per_table(env.reset)
    chart = None
    if policy == "chart":
        table = None
        if chart_of is not None:
            table = basic_strategy_chart(nearest_supported_rules(chart_of)[0])
        chart = per_table(chart_policy(env, table))

    def body(carry: Any, key: Any) -> Any:
        state, mask, hands, ret = carry
        k_a, k_s = jax.random.split(key)
        if chart is not None:  # basic strategy looked up from the state inside the loop
            action = chart(state, rules_of(state))
        else:
            u = jax.random.uniform(k_a, mask.shape)
            action = jnp.argmax(jnp.where(mask, u, -1.0), axis=1)
        _, state, reward, done, info = step_v(
            jax.random.split(k_s, n), state, action, rules_of(state)
        )
        return (state, info["action_mask"], hands + done.sum(), ret + reward.sum()), None

    def run(key: Any) -> Any:
        k0, k1 = jax.random.split(key)
        _, state = reset_v(jax.random.split(k0, n), rules_of(None))
        mask = per_table(env.action_mask)(state, rules_of(state))
        carry = (state, mask, jnp.zeros((), jnp.int32), jnp.zeros((), jnp.float32))
        carry, _ = jax.lax.scan(body, carry, jax.random.split(k1, steps))
        return carry[2], carry[3]

    return jax.jit(run)


#: The rule spaces of ``--mixed``, by preset: every rule that changes no array's shape
#: varied around the preset (vegas-strip: finite shoes of 1 to 8 decks and five actions;
#: sutton-barto: an infinite deck, stand and hit only), the insurance off (a table without
#: a peek offers none).
MIXED_AXES: dict[str, tuple[tuple[str, tuple[Any, ...]], ...]] = {
    "vegas-strip": (
        ("decks", (1, 2, 4, 6, 8)),
        ("penetration", (0.6, 0.7, 0.75, 0.8, 0.9)),
        ("dealer_hits_soft_17", (False, True)),
        ("blackjack_payout", ("3:2", "6:5", "1:1", "7:5")),
        ("hole_card", ("peek", "no-peek", "none")),
        ("double", ("any", "9-11", "10-11")),
        ("double_after_split", (True, False)),
        ("max_split_hands", (2, 3, 4)),
        ("resplit_aces", (False, True)),
        ("hit_split_aces", (False, True)),
        ("surrender", ("none", "late", "early")),
        ("ties", ("push", "dealer-wins")),
    ),
    "sutton-barto": (
        ("dealer_hits_soft_17", (False, True)),
        ("blackjack_payout", ("1:1", "3:2", "6:5", "2:1")),
        ("hole_card", ("no-peek", "none", "peek")),
        ("ties", ("push", "dealer-wins", "player-loses")),
        ("natural_beats_21", (True, False)),
        ("dealer_natural_beats_21", (True, False)),
    ),
}


def mixed_tables(rules: str, n: int, seed: int = 0) -> tuple[Any, list[Any], Any]:
    """``(space, rule sets, base)``: ``n`` rule sets of ``MIXED_AXES[rules]`` (distinct
    while the space has that many, else every one of them in turn), drawn with ``seed``."""
    from blackjack_env.engine import preset
    from blackjack_env.engine.rulespace import RuleSpace

    base = preset(rules, insurance=False)
    space = RuleSpace(base, MIXED_AXES[rules], name=f"{rules}-mixed")
    rng = np.random.default_rng(seed)
    size = len(space)
    picks = rng.choice(size, n, replace=False) if n <= size else np.arange(n) % size
    return space, [space.rules_at(int(i)) for i in picks], base


def bench_jax(
    rules: str, n: int, steps: int, repeats: int, policy: str = "random", mixed: bool = False
) -> dict[str, Any]:
    """One row: ``n`` tables of ``rules`` (``mixed``: each under its own rule set of
    ``MIXED_AXES[rules]``, and the same table config under ``rules`` alone beside it,
    ``single_hands_per_s``)."""
    import jax

    from blackjack_env.jax import BlackjackJax, tables

    extra: dict[str, Any] = {}
    runs: dict[str, Any] = {}
    if mixed:
        space, drawn, base = mixed_tables(rules, n)
        env = BlackjackJax(rules=space, obs_mode="vector")
        t0 = time.perf_counter()
        bank = env.rule_bank(drawn)  # (one rule set per table: row t of the bank)
        params = tables.Banked(bank, jax.numpy.arange(n, dtype=jax.numpy.int32))
        extra = {"rule_sets": len({repr(r.to_dict()) for r in drawn}),
                 "params_build_s": time.perf_counter() - t0}  # fmt: skip
        runs["single"] = _jax_run(env, n, steps, policy, env.params_of(base), base)
        runs["row"] = _jax_run(env, n, steps, policy, params, base)
    else:
        env = BlackjackJax(rules=rules, obs_mode="vector")
        runs["row"] = _jax_run(env, n, steps, policy)
    timed = _timed(runs, repeats, n * steps)
    row = timed["row"]
    if mixed:
        for k, v in timed["single"].items():
            if k.endswith("_s") and k != "compile_s":
                extra["single_" + k] = v
    return {
        "impl": "jax", "rules": rules, "policy": policy, "tables": n, "steps": steps,
        "mixed": mixed, **row, "backend": jax.default_backend(), **extra,
    }  # fmt: skip


def _timed(runs: dict[str, Any], repeats: int, steps: int) -> dict[str, dict[str, Any]]:
    """Each program of ``runs`` compiled (its first call, timed apart), then called
    ``repeats`` times, the programs in turn (so that a loaded machine slows them alike):
    the best hands and env steps (``steps`` a call) per second and per CPU-second of the
    process, the compile time and the mean return per hand."""
    import jax

    out: dict[str, dict[str, Any]] = {}
    for name, run in runs.items():
        t0 = time.perf_counter()
        run(jax.random.PRNGKey(0))[0].block_until_ready()
        out[name] = {"compile_s": time.perf_counter() - t0, "hands_per_s": 0.0,
                     "hands_per_cpu_s": 0.0, "steps_per_s": 0.0, "steps_per_cpu_s": 0.0,
                     "hands": 0, "return": 0.0}  # fmt: skip
    for rep in range(repeats):
        for name, run in runs.items():
            t, c = time.perf_counter(), time.process_time()
            hands, ret = run(jax.random.PRNGKey(rep + 1))
            hands.block_until_ready()
            dt, dc = time.perf_counter() - t, max(time.process_time() - c, 1e-9)
            o = out[name]
            for key, amount, span in (("hands_per_s", int(hands), dt),
                                      ("hands_per_cpu_s", int(hands), dc),
                                      ("steps_per_s", steps, dt), ("steps_per_cpu_s", steps, dc)):
                o[key] = max(o[key], amount / span)
            o["hands"] += int(hands)
            o["return"] += float(ret)
    for o in out.values():
        o["mean_return"] = o.pop("return") / max(o["hands"], 1)
    return out


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


@dataclass
class Settings:
    """Hands per second of the JAX table (random legal actions or a chart, in one jit)."""

    tables: Annotated[list[int], option("N ...")] = field(default_factory=lambda: [4096, 65536])
    """table counts N to time"""
    rules: Annotated[list[str], option("PRESET ...")] = field(
        default_factory=lambda: ["sutton-barto", "vegas-strip"])
    """rule presets (vegas-strip: 6 decks, finite shoe)"""
    policy: Annotated[list[Literal["random", "chart"]], option("random|chart ...")] = field(
        default_factory=lambda: ["random", "chart"])
    """random legal actions, and/or basic strategy's chart looked up in the loop"""
    steps: Annotated[int, option("N", "about 2**22 / N, 20..400")] = 0
    """steps per timed call"""
    repeats: int = 2
    """timed calls (best is printed)"""
    numpy: Annotated[bool, _Flag, option(default="on a CPU backend")] = False
    """also time the numpy batched env"""
    no_numpy: Annotated[bool, _Flag, option(default="")] = False
    """do not time the numpy batched env (the default on a GPU)"""
    numpy_seconds: float = 3.0
    """seconds of numpy play per measurement"""
    json: Annotated[str | None, option("FILE", "not written")] = None
    """write the results as JSON here (after every row)"""
    mixed: Annotated[bool, _Flag, option(default="")] = False
    """also time every table under its own rule set (a rule space around each preset, one
    compiled program) beside the same tables under the preset alone"""


def run(args: Settings) -> dict[str, Any]:
    """Check every option (before jax starts), measure, print, write the JSON asked for."""
    from blackjack_env.engine.rules import PRESETS

    for n in args.tables:
        check_at_least("tables", n, 1, "table counts")
    check_at_least("repeats", args.repeats, 1, "timed calls")
    check_at_least("steps", args.steps, 0, "0: about 2**22 / N")
    unknown = [r for r in args.rules if r not in PRESETS]
    if unknown:
        raise UsageError(f"--rules {unknown[0]!r}: presets are {', '.join(PRESETS)}")
    if args.numpy and args.no_numpy:
        raise UsageError("--numpy and --no-numpy contradict each other: give one of them")
    check_writable("json", args.json)
    import jax

    backend = jax.default_backend()
    with_numpy = args.numpy or (backend == "cpu" and not args.no_numpy)
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
                if args.mixed:
                    mix = bench_jax(rules, n, steps, args.repeats, policy, mixed=True)
                    rows.append(mix)
                    ratio = mix["hands_per_s"] / mix["single_hands_per_s"]
                    cpu_ratio = mix["hands_per_cpu_s"] / mix["single_hands_per_cpu_s"]
                    step_ratio = mix["steps_per_cpu_s"] / mix["single_steps_per_cpu_s"]
                    print(
                        f"{'  mixed':13s} {policy:6s} {n:>8d} {mix['hands_per_s']:>14,.0f} "
                        f"{mix['compile_s']:>7.1f}s  {mix['rule_sets']:,} rule sets: hands "
                        f"{ratio:.2f}x ({cpu_ratio:.2f}x per CPU-s), steps {step_ratio:.2f}x "
                        f"per CPU-s, of the same tables under {rules} alone "
                        f"({mix['single_hands_per_s']:,.0f} hands/s); params built in "
                        f"{mix['params_build_s']:.1f}s",
                        flush=True,
                    )
                if args.json:  # after every row: a run cut short keeps what it measured
                    note_new_folder(args.json)
                    with atomic_path(args.json) as tmp, open(tmp, "w") as fh:
                        json.dump(
                            {"backend": backend, "load": os.getloadavg(), "rows": rows},
                            fh,
                            indent=1,
                        )
    print(f"load average after: {os.getloadavg()}")
    return {"backend": backend, "rows": rows}


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="bench_jax.py")


if __name__ == "__main__":
    sys.exit(main())
