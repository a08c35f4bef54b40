"""Could one fixed-shape round, written once against the array namespace, serve numpy too?

Issue 22 asks whether a fixed-shape version of the round (every table computes every branch
each step, selected by ``where``: what ``jit`` and ``vmap`` need), run on numpy, would be
within 1.25x of today's numpy batched tables (which act only on the tables a branch concerns,
by index). Two measurements, in one run:

A. **The same kernel both ways, on numpy.** A minimal round (sutton-barto rules: infinite
   deck, hit/stand, dealer stands on 17, random hit/stand, one decision per table per step,
   a new round dealt where one ends) written once over a namespace ``xp`` in the fixed-shape
   style (:func:`step_fixed`; it runs on ``numpy`` and, jitted, on ``jax.numpy``), and the
   same round in the numpy batched env's style (:func:`step_indexed`: the dealer plays, and
   new cards are dealt, only for the tables that need it). Both draw their cards from the
   same uniform numbers; the returns agree. Also timed: today's ``BlackjackVectorEnv`` on
   sutton-barto with random legal actions (the whole env: observations, masks, infos).
B. **The casino round's size.** The JAX table's vegas-strip step (6 decks), ``vmap``-ed over
   4,096 tables, traced to a jaxpr: its primitive operations (loop bodies counted once: a
   lower bound of what a fixed-shape numpy step would execute), against the time numpy
   takes per array operation on 4,096 entries, measured here; against the numpy env's own
   step time on the same game.

    python scripts/bench_array_api.py            # prints both, with ratios (about 30 s)
"""

from __future__ import annotations

import sys

from _launch import importing

with importing():  # a missing package or Ctrl-C here: one line, status 2 / 130
    import os
    import time
    from collections.abc import Sequence
    from dataclasses import dataclass, field
    from typing import Annotated, Any

    import numpy as np

    from blackjack_env.cli import check_at_least, check_positive, option, run_command

VALUES = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10])
DEALER_CARDS = 12  # enough for any dealer hand to reach 17


def total(xp: Any, hard: Any, ace: Any) -> Any:
    return xp.where(ace & (hard <= 11), hard + 10, hard)


def step_fixed(xp: Any, state: tuple[Any, ...], u: Any) -> tuple[tuple[Any, ...], Any, Any]:
    """One decision at every table, fixed shape: every table's hit card, dealer hand and next
    deal are computed, then selected. ``u``: uniforms ``(3 + DEALER_CARDS + 3, N)``."""
    values = xp.asarray(VALUES)
    ps, pa, dup = state
    card = values[(u[1:] * 13).astype(xp.int32)]
    hit = u[0] < 0.5
    c = card[0]
    ps_hit, pa_hit = ps + c, pa | (c == 1)
    bust = hit & (ps_hit > 21)
    d = card[1 : 1 + DEALER_CARDS]
    hard = dup[None, :] + xp.cumsum(d, axis=0)
    ace = (dup[None, :] == 1) | (xp.cumsum(d == 1, axis=0) > 0)
    t = total(xp, hard, ace)
    stop = xp.argmax(t >= 17, axis=0)
    dt = xp.take_along_axis(t, stop[None, :], axis=0)[0]
    pt = total(xp, ps, pa)
    r_stand = xp.where((dt > 21) | (pt > dt), 1.0, xp.where(pt == dt, 0.0, -1.0))
    done = bust | ~hit
    r = xp.where(bust, -1.0, xp.where(hit, 0.0, r_stand))
    n1, n2, n3 = card[1 + DEALER_CARDS], card[2 + DEALER_CARDS], card[3 + DEALER_CARDS]
    ps = xp.where(done, n1 + n2, xp.where(hit, ps_hit, ps))
    pa = xp.where(done, (n1 == 1) | (n2 == 1), xp.where(hit, pa_hit, pa))
    dup = xp.where(done, n3, dup)
    return (ps, pa, dup), r, done


def step_indexed(state: tuple[Any, ...], u: np.ndarray) -> tuple[tuple[Any, ...], Any, Any]:
    """:func:`step_fixed` in the numpy batched env's style: each branch on the tables it
    concerns (``nonzero`` / index), the dealer's cards drawn one round at a time for the
    tables still drawing. Same cards from the same uniforms, same results."""
    ps, pa, dup = state
    n = ps.shape[0]
    r = np.zeros(n)
    hit = u[0] < 0.5
    h = hit.nonzero()[0]
    c = VALUES[(u[1, h] * 13).astype(np.int64)]
    ps[h] += c
    pa[h] |= c == 1
    bust = np.zeros(n, bool)
    bust[h] = ps[h] > 21
    r[bust] = -1.0
    s = (~hit).nonzero()[0]  # the dealer plays only for the tables that stood
    hard, ace = dup[s].copy(), dup[s] == 1
    live = np.arange(s.size)
    k = 0
    while live.size:
        cards = VALUES[(u[2 + k, s[live]] * 13).astype(np.int64)]
        hard[live] += cards
        ace[live] |= cards == 1
        live = live[total(np, hard[live], ace[live]) < 17]
        k += 1
    dt = total(np, hard, ace)
    pt = total(np, ps[s], pa[s])
    r[s] = np.where((dt > 21) | (pt > dt), 1.0, np.where(pt == dt, 0.0, -1.0))
    done = bust | ~hit
    e = done.nonzero()[0]  # new rounds only where one ended
    base = 2 + DEALER_CARDS
    n1 = VALUES[(u[base, e] * 13).astype(np.int64)]
    n2 = VALUES[(u[base + 1, e] * 13).astype(np.int64)]
    ps[e] = n1 + n2
    pa[e] = (n1 == 1) | (n2 == 1)
    dup[e] = VALUES[(u[base + 2, e] * 13).astype(np.int64)]
    return (ps, pa, dup), r, done


def _start(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    c = VALUES[rng.integers(0, 13, (3, n))]
    return (c[0] + c[1], (c[0] == 1) | (c[1] == 1), c[2].copy())


def time_numpy(fn: Any, n: int, seconds: float) -> tuple[float, float]:
    """hands/s and mean return of ``fn(state, u)`` on numpy (the uniforms' drawing timed)."""
    rng = np.random.default_rng(1)
    state = _start(n, 0)
    rows = 3 + DEALER_CARDS + 3
    hands, ret, t0 = 0, 0.0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        u = rng.random((rows, n))
        state, r, done = fn(state, u)
        hands += int(done.sum())
        ret += float(r.sum())
    return hands / (time.perf_counter() - t0), ret / hands


def time_jax(n: int, steps: int = 200) -> tuple[float, float]:
    import jax
    import jax.numpy as jnp

    rows = 3 + DEALER_CARDS + 3

    def body(carry: Any, key: Any) -> Any:
        state, hands, ret = carry
        u = jax.random.uniform(key, (rows, n))
        state, r, done = step_fixed(jnp, state, u)
        return (state, hands + done.sum(), ret + r.sum()), None

    @jax.jit
    def run(key: Any) -> Any:
        state = tuple(jnp.asarray(a) for a in _start(n, 0))
        carry = (state, jnp.zeros((), jnp.int32), jnp.zeros((), jnp.float32))
        (_, h, r), _ = jax.lax.scan(body, carry, jax.random.split(key, steps))
        return h, r

    run(jax.random.PRNGKey(0))[0].block_until_ready()
    best, mean = 0.0, 0.0
    for rep in range(3):
        t = time.perf_counter()
        h, r = run(jax.random.PRNGKey(rep + 1))
        h.block_until_ready()
        best = max(best, int(h) / (time.perf_counter() - t))
        mean = float(r) / int(h)
    return best, mean


def time_env(rules: str, n: int, seconds: float) -> tuple[float, float]:
    """The numpy batched env's hands/s (random legal actions) and its seconds per step."""
    from blackjack_env.envs.vector import BlackjackVectorEnv, random_legal_actions

    env = BlackjackVectorEnv(n, rules=rules, obs_mode="vector", autoreset_mode="SameStep")
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    hands, steps, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        _, _, te, tr, info = env.step(random_legal_actions(rng, info["action_mask"]))
        hands += int(np.count_nonzero(te | tr))
        steps += 1
    dt = time.perf_counter() - t0
    return hands / dt, dt / steps


def jaxpr_size(n: int) -> dict[str, int]:
    """Primitive operations of the JAX table's vegas-strip step vmapped over ``n`` tables
    (loop bodies once, nested jaxprs included)."""
    import jax
    import jax.numpy as jnp

    from blackjack_env.jax import BlackjackJax

    env = BlackjackJax(rules="vegas-strip", obs_mode="vector")  # (the figures recorded before)
    p = env.default_params
    _, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.PRNGKey(0), n), p)
    keys = jax.random.split(jax.random.PRNGKey(1), n)
    fn = jax.vmap(env.step, in_axes=(0, 0, 0, None))
    closed = jax.make_jaxpr(fn)(keys, state, jnp.zeros(n, jnp.int32), p)
    counts = {"ops": 0, "loops": 0}

    def walk(jaxpr: Any) -> None:
        for eqn in jaxpr.eqns:
            counts["ops"] += 1
            if eqn.primitive.name in ("while", "scan"):
                counts["loops"] += 1
            for v in eqn.params.values():
                for sub in v if isinstance(v, (list, tuple)) else (v,):
                    inner = getattr(sub, "jaxpr", None)
                    if inner is not None:
                        walk(getattr(inner, "jaxpr", inner))

    walk(closed.jaxpr)
    return counts


def numpy_op_seconds(n: int) -> float:
    """Seconds numpy takes for one typical elementwise op of the round on ``n`` entries
    (the median over where / add / compare / gather on int64)."""
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 30, n), rng.integers(0, 30, n)
    m = a > b
    idx = rng.integers(0, 52, n)
    table = rng.integers(0, 10, 52)
    ops = [lambda: np.where(m, a, b), lambda: a + b, lambda: a > b, lambda: table[idx],
           lambda: m & (a == 3)]  # fmt: skip
    out = []
    for op in ops:
        reps = 2000
        t = time.perf_counter()
        for _ in range(reps):
            op()
        out.append((time.perf_counter() - t) / reps)
    return float(np.median(out))


@dataclass
class Settings:
    """Could one fixed-shape round, written once against the array namespace, serve numpy
    too? (the minimal round both ways; the casino round's size)"""

    tables: Annotated[list[int], option("N ...")] = field(default_factory=lambda: [4096, 65536])
    """table counts N of part A"""
    seconds: float = 3.0
    """seconds per numpy timing"""


def run(args: Settings) -> None:
    """Check the options, measure, print."""
    for n in args.tables:
        check_at_least("tables", n, 1, "table counts")
    check_positive("seconds", args.seconds, "seconds per numpy timing")
    print(f"load average {os.getloadavg()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("A. the minimal round (sutton-barto, random hit/stand), hands/s")
    for n in args.tables:
        fixed, m1 = time_numpy(lambda s, u: step_fixed(np, s, u), n, args.seconds)
        indexed, m2 = time_numpy(step_indexed, n, args.seconds)
        env, _ = time_env("sutton-barto", n, args.seconds)
        jx, m3 = time_jax(n)
        print(
            f"  N={n:>6d}: fixed-shape on numpy {fixed:>12,.0f} ({m1:+.4f}); indexed on "
            f"numpy {indexed:>12,.0f} ({m2:+.4f}); fixed-shape on jax.jit {jx:>12,.0f} "
            f"({m3:+.4f}); numpy env {env:>12,.0f}"
        )
        print(
            f"           fixed/indexed on numpy {fixed / indexed:.2f}x; fixed numpy / "
            f"numpy env {fixed / env:.2f}x"
        )
    n = 4096
    size = jaxpr_size(n)
    op = numpy_op_seconds(n)
    env_hps, env_step = time_env("vegas-strip", n, args.seconds)
    bound = size["ops"] * op
    print(
        f"B. vegas-strip (6 decks), {n} tables: the JAX step is {size['ops']} primitive ops "
        f"({size['loops']} loops, bodies once); numpy {op * 1e6:.1f} us per op on {n} entries "
        f"-> a fixed-shape numpy step >= {bound * 1e3:.2f} ms; the numpy env's step "
        f"{env_step * 1e3:.2f} ms ({env_hps:,.0f} hands/s): bound / env = "
        f"{bound / env_step:.2f}x (1.25x allowed)"
    )
    print(f"load average after {os.getloadavg()}")


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="bench_array_api.py")


if __name__ == "__main__":
    sys.exit(main())
