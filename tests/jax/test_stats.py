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
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from blackjack_env.analysis import evaluate_policy  # noqa: E402
from blackjack_env.analysis.strategy import basic_strategy_chart  # noqa: E402
from blackjack_env.engine import preset  # noqa: E402
from blackjack_env.envs.step import DECISION_BY_BATCH_PHASE  # noqa: E402
from blackjack_env.envs.vector import BlackjackVectorEnv  # noqa: E402
from blackjack_env.jax import BlackjackJax  # noqa: E402
from blackjack_env.jax.chart import chart_actions, chart_table  # noqa: E402
from tests.jax.jax_helpers import FEATURES, INFINITE, rollout, table  # noqa: E402

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


def jax_sample(env: BlackjackJax, hands: int, basic: bool, seed: int) -> tuple[Sample, int]:
    """About ``hands`` hands (calls of 2,048 tables x 64 steps of the shared
    :func:`~tests.jax.jax_helpers.rollout`, summed in float64 on the host); also the
    number of illegal actions played."""
    run = rollout(env, 2048, 64)
    count, total, squares, illegal = 0, 0.0, 0.0, 0
    key = jax.random.PRNGKey(seed)
    while count < hands:
        key, sub = jax.random.split(key)
        _, r, done, bad = run(sub, basic)
        r, done = np.asarray(r, np.float64), np.asarray(done)
        count += int(done.sum())
        total += float(r[done].sum())
        squares += float((r[done] ** 2).sum())
        illegal += int(np.asarray(bad).sum())
    return Sample(count, total, squares), illegal


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


VEGAS6 = FEATURES  # vegas-strip: 6 decks, finite shoe, cut card (the shared table)


@pytest.mark.parametrize("basic", [True, False], ids=["basic", "random"])
def test_vegas_strip_shoe_against_numpy(basic: bool) -> None:
    env = table(**VEGAS6)  # (one rollout program for both policies)
    jx, illegal = jax_sample(env, 500_000, basic, seed=1)
    ref = numpy_sample(VEGAS6, 100_000, basic, seed=2)
    if basic:
        assert illegal == 0
    assert_agree(jx, ref, f"vegas-strip 6 decks, {'basic' if basic else 'random'}")


def test_basic_strategy_against_exact() -> None:
    """On the shared infinite-deck table (the insurance question asked: the chart
    declines it, which is the game without it)."""
    rules = preset("vegas-strip", decks=None)
    env = table(**{**INFINITE, "rules": rules})
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
    env = table(**kwargs)
    jx, illegal = jax_sample(env, 4_000_000, basic, seed=11)
    ref = numpy_sample(kwargs, 1_000_000, basic, seed=12)
    assert illegal == 0 or not basic
    assert_agree(jx, ref, f"{rules}, {'basic' if basic else 'random'}")


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["sutton-barto", "vegas-strip", "atlantic-city"])
def test_large_basic_against_exact(rules: str) -> None:
    r = preset(rules, decks=None)
    env = table(rules=r, obs_mode="vector")
    exact = evaluate_policy(r, basic_strategy_chart(r).action)
    jx, illegal = jax_sample(env, 4_000_000, basic=True, seed=13)
    assert illegal == 0
    assert_agree(jx, exact, f"{rules} infinite deck, basic strategy vs exact")
