"""simulate(): fixed policies over chunks and processes, checked against exact values."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

from blackjack_env.analysis import evaluate_policy, solve
from blackjack_env.engine import Action, preset
from blackjack_env.simulate import SimulationResult, simulate

Z99 = NormalDist().inv_cdf(0.995)


def interval99(result: SimulationResult) -> tuple[float, float]:
    """A 99% interval for the tests' own checks (fewer false alarms than the 95% one
    that the results report)."""
    half = Z99 * result.std / result.hands**0.5
    return result.mean - half, result.mean + half


def test_same_result_whatever_the_worker_count() -> None:
    kwargs = dict(rules="european-no-hole-card", hands=3 * 64 * 16, seed=7, tables=64,
                  rounds_per_table=16)
    one = simulate("random", workers=1, **kwargs)
    two = simulate("random", workers=2, **kwargs)
    three = simulate("random", workers=3, **kwargs)
    assert one == two == three
    assert one.chunks == 3 and one.hands == 3 * 64 * 16
    other_seed = simulate("random", workers=1, **{**kwargs, "seed": 8})
    assert other_seed.mean != one.mean


def test_basic_strategy_matches_the_exact_return() -> None:
    rules = preset("vegas-strip", decks=None)
    exact = solve(rules).expected_return
    result = simulate("basic", rules, hands=300_000, seed=1, tables=1024, rounds_per_table=64)
    lo, hi = interval99(result)
    assert lo <= exact <= hi, (exact, result)
    assert abs(sum(result.outcomes.values()) - 1.0) < 1e-12


def test_dealer_policy_matches_the_exact_return_sutton_barto() -> None:
    rules = preset("sutton-barto")

    def dealer(state):  # hit below 17, as the batched "dealer" policy
        return Action.HIT if state.total < 17 else Action.STAND

    exact = evaluate_policy(rules, dealer)
    result = simulate("dealer", rules, hands=200_000, seed=2, tables=1024, rounds_per_table=64)
    lo, hi = interval99(result)
    assert lo <= exact <= hi, (exact, result)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown policy"):
        simulate("psychic", hands=10)
    with pytest.raises(ValueError, match="workers"):
        simulate("stand", hands=10, workers=0)
    with pytest.raises(ValueError, match="preset"):
        simulate("stand", rules="no-such-rules", hands=10)


def test_callable_policy() -> None:
    def always_hit_below_12(env, obs, mask, rng):
        return np.where((obs[:, 1] < 12) & (mask[:, 1] > 0), 1, 0)

    result = simulate(always_hit_below_12, "sutton-barto", hands=1024, tables=256,
                      rounds_per_table=4)
    assert result.hands == 1024 and result.policy == "always_hit_below_12"


def test_the_reported_interval_is_95_percent() -> None:
    result = simulate("dealer", "sutton-barto", hands=2048, tables=64, rounds_per_table=32)
    half = NormalDist().inv_cdf(0.975) * result.std / result.hands**0.5
    assert result.ci95 == pytest.approx((result.mean - half, result.mean + half))


def test_basic_policy_plays_stand_hit_only_rules() -> None:
    """sutton-barto has Discrete(2) actions: the batched basic policy read columns 3-4 of a
    two-column mask (an IndexError, so ``blackjack-evaluate basic --workers 2`` failed).
    Its return must match the exact optimum -0.04311 (``blackjack-evaluate basic --decks
    inf`` prints it) within 4 standard errors (about 1 in 16,000 to fail by chance)."""
    import math

    from blackjack_env.simulate import simulate

    result = simulate("basic", "sutton-barto", hands=16_384, tables=256, rounds_per_table=64)
    assert abs(result.mean - (-0.04311)) < 4 * result.std / math.sqrt(result.hands)


def test_workers_are_not_forked_from_a_process_that_loaded_jax(tmp_path) -> None:
    """Issue 33 (19): ``simulate(workers=2)`` forked the caller; with JAX loaded, JAX
    warned "os.fork() was called ... will likely lead to a deadlock". The workers start
    from a fresh interpreter (forkserver/spawn): the caller never forks, JAX says nothing,
    and the figures are those of one worker."""
    import os
    import subprocess
    import sys

    pytest.importorskip("jax")
    code = (
        "import os, sys\n"
        "forks = []\n"
        "os.register_at_fork(before=lambda: forks.append(1))\n"
        "import jax.numpy as jnp\n"
        "jnp.zeros(3).block_until_ready()  # JAX's backend and its threads are up\n"
        "from blackjack_env.simulate import simulate\n"
        "kw = dict(rules='sutton-barto', hands=2 * 64 * 8, seed=3, tables=64, "
        "rounds_per_table=8)\n"
        "two = simulate('random', workers=2, **kw)\n"
        "assert two == simulate('random', workers=1, **kw), 'figures differ'\n"
        "print('forks', len(forks))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path, env={**os.environ, "PYTHONWARNINGS": ""})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["forks", "0"], done.stdout
    assert "os.fork()" not in done.stderr, done.stderr


class _ChartPlayer:
    """simulate()'s callable policy over chart_policy (built once per chunk's env)."""

    def __init__(self) -> None:
        self.env = None
        self.act = None

    def __call__(self, env, obs, mask, rng):
        from blackjack_env.simulate import chart_policy

        if env is not self.env:
            self.env, self.act = env, chart_policy(env)
        return self.act(mask)


def test_chart_policy_plays_basic_strategy_to_its_exact_return() -> None:
    """chart_policy (the JAX table's chart lookup run on the numpy env; the benchmarks and
    the counting study play it) returns what the exact analysis gives basic strategy."""
    pytest.importorskip("jax")
    rules = preset("vegas-strip", decks=None)
    exact = solve(rules).expected_return
    result = simulate(_ChartPlayer(), rules, hands=200_000, seed=5, tables=1024,
                      rounds_per_table=64)
    lo, hi = interval99(result)
    assert lo <= exact <= hi, (exact, result)
    basic = simulate("basic", rules, hands=200_000, seed=5, tables=1024, rounds_per_table=64)
    assert abs(result.mean - basic.mean) < 0.01  # the same play, the same shoes: close
