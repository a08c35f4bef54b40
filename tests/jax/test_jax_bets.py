"""Bet steps and several rounds per episode at the JAX table, against the numpy vector
env (``bet_sizes``, ``rounds_per_episode``; that env is tied to the single env by
``tests/envs/test_vector_bets.py``): the same stacked cards and actions give identical
observations (the BET step's included), masks, rewards, played actions (an illegal bet
is mapped as the numpy env maps it), terminations and truncations; the chips of a session
add up; ``rounds_per_episode=None`` never ends an episode."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.engine import Rules, preset  # noqa: E402
from blackjack_env.jax import round as table_round  # noqa: E402
from blackjack_env.jax.chips import chip_units  # noqa: E402
from blackjack_env.jax.round import end_round, first_round, next_round  # noqa: E402
from blackjack_env.jax.seats import masks  # noqa: E402
from blackjack_env.jax.state import new_state  # noqa: E402
from tests.jax.jax_helpers import (  # noqa: E402
    BANKROLL,
    PARITY_TABLES,
    invariants,
    run_parity,
    scan_tables,
    table,
    violations,
)

FAST: dict[str, dict[str, Any]] = {
    # a bankroll of 8 base bets over 5 rounds: chips run short often (the shared bankroll
    # table: the "dict" observation, bet sizes 1, 2, 4; two decks, three hands)
    "bankroll": {**BANKROLL, "rules": Rules(decks=2, max_split_hands=3)},
    # BlackjackCounting-v0's bets (episodes shortened to 4 rounds, so that the stacked
    # cards last); a 6:5 payout (exact chips)
    "counting-bets": {
        "rules": Rules(decks=2, blackjack_payout="6:5", max_bet=40, surrender="late"),
        "obs_mode": "vector", "bet": 5, "bet_sizes": (1, 2, 4, 8), "rounds_per_episode": 4,
        "insurance_decisions": True,
    },
}  # fmt: skip
SLOW: dict[str, dict[str, Any]] = {
    # a small bankroll: doubles, splits, insurance and bets refused when not covered, and
    # sessions that end broke
    "bankroll-bets": {
        "rules": Rules(decks=2, surrender="early"), "obs_mode": "dict", "bet": 2,
        "bet_sizes": (1, 2, 4), "rounds_per_episode": 6, "bankroll": 10,
        "insurance_decisions": True,
    },
    "bankroll-halved-splits": {
        "rules": Rules(decks=1, penetration=0.9, split_bet="halve", max_split_hands=2,
                       blackjack_payout="6:5"),
        "obs_mode": "vector", "bet": 3, "bet_sizes": (1, 2), "rounds_per_episode": 5,
        "bankroll": 12,
    },
    "bets-multidiscrete": {
        "rules": "vegas-strip", "obs_mode": "multidiscrete", "bet_sizes": (1, 3),
    },
    "bets-infinite-rounds": {
        "rules": preset("vegas-strip", decks=None), "obs_mode": "vector",
        "bet_sizes": (2, 4), "rounds_per_episode": 3,
    },
    "rounds-3-seats-3": {
        "rules": "atlantic-city", "obs_mode": "vector", "rounds_per_episode": 3,
        "seats_per_table": 3,
    },
    "rounds-no-bets-european": {
        "rules": "european-no-hole-card", "obs_mode": "multidiscrete", "rounds_per_episode": 5,
    },
}  # fmt: skip


def _check(name: str, kwargs: dict[str, Any], n: int, seed: int) -> dict[str, int]:
    env = table(**kwargs)
    seen = run_parity(env, kwargs, n=n, seed=seed, max_steps=120)
    assert seen["ended"] == n * env.seats
    if kwargs.get("rounds_per_episode", 1) > 1 and "bankroll" not in kwargs:
        assert seen["truncated"] == seen["ended"]
    return seen


@pytest.mark.parametrize(
    "name", [pytest.param(k, marks=[pytest.mark.slow] if k != "bankroll" else []) for k in FAST]
)
def test_bets_parity_fast(name: str) -> None:
    seen = _check(name, FAST[name], n=PARITY_TABLES, seed=3)
    assert seen["illegal"] > 0 and seen["nonzero"] > 0 and seen["split"] > 0
    if "bankroll" in FAST[name]:  # some sessions ended broke, some ran their rounds
        assert 0 < seen["truncated"] < seen["ended"]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SLOW))
def test_bets_and_rounds_parity(name: str) -> None:
    _check(name, SLOW[name], n=128, seed=17)


@pytest.mark.slow
def test_bet_step_and_session_chips() -> None:
    """A BET step opens every round: only bet actions allowed by the table limits are
    legal, the reward of a round is its stake times its outcome, and the session's
    chips (``session``, in units of 1 / chip_den) are the sum of its rounds' rewards."""
    env = table(**FAST["counting-bets"])
    p = env.default_params
    n = 256
    _, st = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.PRNGKey(1), n), p)
    mask = np.asarray(env.action_mask(st, p))
    # 6 playing actions (insurance decisions), then the 4 sizes (5 .. 40 chips), within
    # the table limits (the settings refuse sizes outside them)
    assert mask.shape == (n, 10)
    assert not mask[:, :6].any() and mask[:, 6:].all()
    step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
    total = np.zeros(n)
    key = jax.random.PRNGKey(2)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        key, sub = jax.random.split(key)
        a = (rng.random(mask.shape) * mask).argmax(axis=1)
        _obs, st, r, d, info = step(jax.random.split(sub, n), st, jnp.asarray(a, jnp.int32), p)
        r, d = np.asarray(r), np.asarray(d)
        total += r
        # the session's chips in units of 1 / chip_den (10 for 6:5 and insurance halves),
        # a bet of 5 chips per base bet; a new episode starts at 0
        assert int(env.default_params.chip_den) == 10
        np.testing.assert_array_equal(np.asarray(st.session), np.where(d, 0, np.rint(total * 50)))
        total[d] = 0
        ended += int(d.sum())
        mask = np.asarray(info["action_mask"])
    assert ended > n // 2


def test_unlimited_rounds_never_end_an_episode() -> None:
    env = table(rules="sutton-barto", obs_mode="vector", rounds_per_episode=None)
    p = env.default_params
    _, st = env.reset(jax.random.PRNGKey(0), p)
    step = jax.jit(env.step)
    over = 0
    for k in range(40):
        _, st, _, done, info = step(jax.random.PRNGKey(k), st, jnp.int32(0), p)
        assert not bool(done)
        over += int(info["round_over"])
    assert over > 10 and int(st.episode_rounds) == over + 1


def test_bankroll_chips_and_cards_conserved() -> None:
    """Random legal play with a bankroll and bet steps (1,000s of rounds): cards conserved
    (every card once in the shoe's row, the round's cards behind ``pos``), the chips off
    the table never negative, and at every round's end the chips equal the session's
    starting bankroll plus its rewards times the bet."""
    env = table(**FAST["bankroll"])
    cfg = env.config

    def start(key: Any, p: Any) -> Any:
        st = first_round(key, new_state(cfg, p), p, cfg)
        return st, masks(st, p, cfg)

    def table_step(key: Any, st: Any, mask: Any, p: Any) -> Any:
        units = 8 * p.chip_den
        k_a, k_s, k_r = jax.random.split(key, 3)
        a = jnp.argmax(jnp.where(mask, jax.random.uniform(k_a, mask.shape), -1.0))
        st, reward, over, _, _ = table_round.step(k_s, st, a, p, cfg)
        bad = invariants(env, st, p)
        chips = chip_units(st, p, cfg)
        bad["negative"] = chips < 0
        st, term, trunc = end_round(st, reward, over, p, cfg)
        # the session's chips: the bankroll plus the rewards so far (exact units)
        bad["session"] = over & (chips != units + st.session)
        st = next_round(k_r, st, p, cfg, over, term | trunc)
        after = invariants(env, st, p)
        counts = {k: v + after.get(k, 0) for k, v in bad.items()}
        counts.update(_rounds=over, _broke=term)
        return st, masks(st, p, cfg), counts

    seen = scan_tables(start, table_step, env.stack_params([env.rules] * 128), steps=300, seed=7)
    assert seen["_rounds"] > 5_000 and seen["_broke"] > 50, seen
    assert not any(violations(seen).values()), seen


@pytest.mark.slow
def test_gymnasium_vector_adapter_reports_truncation() -> None:
    """``rounds_per_episode`` through ``gym.make_vec``: the episode ends truncated after
    its rounds (never terminated), and ``final_obs`` is given on that step."""
    import gymnasium as gym

    env = gym.make_vec("blackjack_env.jax:blackjack_env/BlackjackJax-v0", num_envs=8,
                       rules="sutton-barto", rounds_per_episode=2)  # fmt: skip
    env.reset(seed=1)
    truncated = 0
    for _ in range(12):
        _obs, _r, te, tr, info = env.step(np.zeros(8, np.int64))
        assert not te.any()
        truncated += int(tr.sum())
        assert np.array_equal(info.get("_final_obs", np.zeros(8, bool)), tr)
    assert truncated >= 8
