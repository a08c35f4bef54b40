"""Statistical agreement of the JAX table (issue 22 section 3): the mean return per hand of
random legal play and of basic-strategy play (the chart looked up inside the jitted loop,
:mod:`blackjack_env.jax.chart`) against the numpy batched env, and basic strategy's JAX
mean against the exact analysis's expected return (infinite deck).

Each comparison is a two-sided z test at alpha = 0.01 (|difference| <= 2.576 standard
errors; two samples: the standard error of the difference with unequal variances). The
seeds are fixed, so a run is deterministic: the test either always passes or always
fails; at the stated alpha a correct table fails a given seed's comparison with
probability 0.01. The default run plays about 0.5M JAX hands and 0.1M numpy hands per
comparison (a few seconds each); ``-m slow`` runs 4M / 1M (standard errors about 3x smaller).
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.analysis import evaluate_policy  # noqa: E402
from blackjack_env.analysis.strategy import basic_strategy_chart  # noqa: E402
from blackjack_env.engine import preset  # noqa: E402
from blackjack_env.envs.step import DECISION_BY_BATCH_PHASE  # noqa: E402
from blackjack_env.envs.vector import BlackjackVectorEnv  # noqa: E402
from blackjack_env.jax import BlackjackJax  # noqa: E402
from blackjack_env.jax.chart import chart_actions, chart_policy, chart_table  # noqa: E402
from tests.jax.jax_helpers import jax_env  # noqa: E402

Z99 = 2.5758293035489  # two-sided alpha = 0.01


class Sample:
    """Per-hand returns summarised: count, mean, variance (ddof 1)."""

    def __init__(self, n: float, total: float, squares: float) -> None:
        self.n = n
        self.mean = total / n
        self.var = (squares - n * self.mean**2) / (n - 1)

    @property
    def se(self) -> float:
        return math.sqrt(self.var / self.n)


def assert_agree(a: Sample, b: Sample | float, what: str) -> None:
    """Two-sided z test at alpha 0.01: two samples, or a sample against an exact mean."""
    if isinstance(b, Sample):
        diff, se = a.mean - b.mean, math.sqrt(a.se**2 + b.se**2)
    else:
        diff, se = a.mean - b, a.se
    assert abs(diff) <= Z99 * se, f"{what}: difference {diff:+.5f}, {Z99} x SE = {Z99 * se:.5f}"


@cache
def _jax_runner(env: BlackjackJax, n: int, steps: int, basic: bool) -> Any:
    """A jitted ``key -> (hands, sum, sum of squares, illegal actions)`` over ``n`` tables
    and ``steps`` steps: random legal actions, or basic strategy's chart."""
    params = env.default_params
    step_v = jax.vmap(env.step, in_axes=(0, 0, 0, None))
    policy = jax.vmap(chart_policy(env), in_axes=(0, None)) if basic else None

    def body(carry: Any, key: Any) -> Any:
        state, mask, acc = carry
        k_a, k_s = jax.random.split(key)
        if basic:
            action = policy(state, params)
        else:
            u = jax.random.uniform(k_a, mask.shape)
            action = jnp.argmax(jnp.where(mask, u, -1.0), axis=1)
        _, state, r, done, info = step_v(jax.random.split(k_s, n), state, action, params)
        r = r.astype(jnp.float32)
        acc = acc + jnp.stack([
            done.sum(), jnp.where(done, r, 0.0).sum(), jnp.where(done, r * r, 0.0).sum(),
            info["illegal_action"].sum(),
        ]).astype(jnp.float32)  # fmt: skip
        return (state, info["action_mask"], acc), None

    def run(key: Any) -> Any:
        k0, k1 = jax.random.split(key)
        _, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k0, n), params)
        mask = env.action_mask(state, params)
        carry = (state, mask, jnp.zeros(4, jnp.float32))
        (_, _, acc), _ = jax.lax.scan(body, carry, jax.random.split(k1, steps))
        return acc

    return jax.jit(run)


def jax_sample(env: BlackjackJax, hands: int, basic: bool, seed: int) -> tuple[Sample, int]:
    """About ``hands`` hands (calls of 2,048 tables x 64 steps, summed in float64 on the
    host); also the number of illegal actions played."""
    run = _jax_runner(env, 2048, 64, basic)
    acc = np.zeros(4)
    key = jax.random.PRNGKey(seed)
    while acc[0] < hands:
        key, sub = jax.random.split(key)
        acc += np.asarray(run(sub), np.float64)
    return Sample(acc[0], acc[1], acc[2]), int(acc[3])


def numpy_sample(kwargs: dict[str, Any], hands: int, basic: bool, seed: int) -> Sample:
    """About ``hands`` hands of the numpy batched env (1,024 tables, SameStep), random legal
    actions or the same chart lookup (:func:`chart_actions` on the batch's state arrays)."""
    env = BlackjackVectorEnv(1024, autoreset_mode="SameStep", **kwargs)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    table = chart_table(env.rules) if basic else None
    cols = np.arange(env.num_envs)
    count, total, squares = 0, 0.0, 0.0
    while count < hands:
        mask = info["action_mask"].astype(bool)
        if basic:
            b = env.batch
            h = np.clip(b.cur, 0, b.max_hands - 1)
            r0, r1 = b.r0[h, cols], b.r1[h, cols]
            pair = b._pair[13 * r0 + r1] & (b.ncards[h, cols] == 2)
            a = chart_actions(
                table, DECISION_BY_BATCH_PHASE[b.phase], b.hard[h, cols], b.ace[h, cols],
                pair, r0, b._rank_of_id[b.up], mask, np,
            )  # fmt: skip
        else:
            a = (rng.random(mask.shape) * mask).argmax(axis=1)
        _, r, te, tr, info = env.step(a)
        assert not info["illegal_action"].any() or not basic
        done = te | tr
        count += int(done.sum())
        total += float(r[done].sum())
        squares += float((r[done] ** 2).sum())
    return Sample(count, total, squares)


VEGAS6 = {"rules": "vegas-strip", "obs_mode": "vector"}  # 6 decks, finite shoe, cut card


@pytest.mark.parametrize("basic", [True, False], ids=["basic", "random"])
def test_vegas_strip_shoe_against_numpy(basic: bool) -> None:
    env = jax_env("vegas-strip", **VEGAS6)  # (the parity tests' env: compiled once)
    jx, illegal = jax_sample(env, 500_000, basic, seed=1)
    ref = numpy_sample(VEGAS6, 100_000, basic, seed=2)
    if basic:
        assert illegal == 0
    assert_agree(jx, ref, f"vegas-strip 6 decks, {'basic' if basic else 'random'}")


def test_basic_strategy_against_exact() -> None:
    rules = preset("vegas-strip", decks=None)
    env = jax_env("vegas-infinite", rules=rules, obs_mode="vector")
    exact = evaluate_policy(rules, basic_strategy_chart(rules).action)
    jx, illegal = jax_sample(env, 500_000, basic=True, seed=3)
    assert illegal == 0
    assert_agree(jx, exact, "vegas-strip infinite deck, basic strategy vs exact")
    # the test can fail: a policy a little worse than basic strategy is told apart
    assert jx.se < 0.002


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["sutton-barto", "vegas-strip"])
@pytest.mark.parametrize("basic", [True, False], ids=["basic", "random"])
def test_large_against_numpy(rules: str, basic: bool) -> None:
    kwargs = {"rules": rules, "obs_mode": "vector"}
    env = jax_env(rules, **kwargs)
    jx, illegal = jax_sample(env, 4_000_000, basic, seed=11)
    ref = numpy_sample(kwargs, 1_000_000, basic, seed=12)
    assert illegal == 0 or not basic
    assert_agree(jx, ref, f"{rules}, {'basic' if basic else 'random'}")


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["sutton-barto", "vegas-strip", "atlantic-city"])
def test_large_basic_against_exact(rules: str) -> None:
    r = preset(rules, decks=None)
    env = jax_env(rules + "-inf", rules=r, obs_mode="vector")
    exact = evaluate_policy(r, basic_strategy_chart(r).action)
    jx, illegal = jax_sample(env, 4_000_000, basic=True, seed=13)
    assert illegal == 0
    assert_agree(jx, exact, f"{rules} infinite deck, basic strategy vs exact")
