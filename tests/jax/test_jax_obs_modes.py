"""The ``"dict"`` and ``"tuple"`` observation modes of the JAX table (the fields of
:mod:`blackjack_env.envs.view`), against the numpy vector env's: the same stacked cards
and actions give identical observations field by field (the cards by rank of the focus
hand, the dealer and every seat, the unseen cards, the true count, the bet and the
session's chips), with bet steps, several rounds and several seats."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.engine import Rules, preset  # noqa: E402
from blackjack_env.envs import view  # noqa: E402
from tests.jax.jax_helpers import BANKROLL, run_parity, table  # noqa: E402

#: slow: the default run's dict parity is test_jax_bets.py's (bet steps, a bankroll,
#: several rounds, on the shared bankroll table), its tuple parity the random rule sets'
#: of test_adapter_parity.py
FAST: dict[str, dict[str, Any]] = {
    # BlackjackCounting-v0's game in the dict mode (episodes of 3 rounds: stacked cards)
    "dict-counting": {
        "rules": Rules(decks=2, surrender="early", resplit_aces=True),
        "obs_mode": "dict", "bet_sizes": (1, 2, 4, 8), "rounds_per_episode": 3,
        "insurance_decisions": True,
    },
    "tuple-vegas": {"rules": "vegas-strip", "obs_mode": "tuple"},
}  # fmt: skip
SLOW: dict[str, dict[str, Any]] = {
    "dict-3-seats": {
        "rules": Rules(decks=1, penetration=0.9), "obs_mode": "dict", "seats_per_table": 3,
        "rounds_per_episode": 2,
    },
    "dict-infinite-no-hole": {
        "rules": preset("european-no-hole-card", decks=None), "obs_mode": "dict",
    },
    "tuple-sutton-barto": {"rules": "sutton-barto", "obs_mode": "tuple"},
    "tuple-2-seats": {"rules": "atlantic-city", "obs_mode": "tuple", "seats_per_table": 2},
}  # fmt: skip


@pytest.mark.parametrize(
    "name",
    [pytest.param(k, marks=[pytest.mark.slow]) for k in FAST],
)
def test_obs_modes_parity_fast(name: str) -> None:
    env = table(**FAST[name])
    seen = run_parity(env, FAST[name], n=96, seed=21, max_steps=120)
    assert seen["ended"] == 96 and seen["nonzero"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SLOW))
def test_obs_modes_parity(name: str) -> None:
    env = table(**SLOW[name])
    seen = run_parity(env, SLOW[name], n=96, seed=23, max_steps=120)
    assert seen["ended"] == 96 * env.seats


def test_dict_fields_and_space() -> None:
    """The dict observation has the view's keys; a fresh one-deck shoe's unseen cards
    are the deck less the cards the learner sees (on the shared bankroll table: after
    the round's BET step, which deals it); every field lies in its space."""
    env = table(**{**BANKROLL, "rules": Rules(decks=1)})
    p = env.default_params
    obs, st = env.reset(jax.random.PRNGKey(4), p)
    assert int(np.asarray(obs["unseen_cards"]).sum()) == 52  # (nothing dealt before the bet)
    bet = env.config.n_play
    obs, _st, _, _, _ = env.step_full(jax.random.PRNGKey(5), st, jnp.int32(bet), p)
    assert int(np.asarray(obs["hand_cards"]).sum()) >= 2
    assert sorted(obs) == sorted(view.DICT_KEYS)  # (jit returns a dict sorted by key)
    seen = np.asarray(obs["hand_cards"]) + np.asarray(obs["dealer_cards"])
    assert int(np.asarray(obs["unseen_cards"]).sum()) == 52 - int(seen.sum())
    np.testing.assert_array_equal(np.asarray(obs["unseen_cards"]) + seen, np.full(13, 4))
    pytest.importorskip("gymnax")  # (loaded: the other spaces are gymnax's own)
    space = env.observation_space(env.default_params)
    assert bool(jax.jit(space.contains)(obs))  # (one program, not one per field's check)
    assert env.gymnasium_observation_space.contains(
        {k: np.asarray(v, dtype=env.gymnasium_observation_space[k].dtype) for k, v in obs.items()}
    )


@pytest.mark.slow
@pytest.mark.parametrize("obs_mode", ["dict", "tuple"])
def test_gymnasium_adapters_give_the_numpy_spaces(obs_mode: str) -> None:
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    env = gym.make("blackjack_env.jax:blackjack_env/BlackjackJax-v0", rules="vegas-strip",
                   obs_mode=obs_mode, disable_env_checker=True)  # fmt: skip
    check_env(env.unwrapped, skip_render_check=True)
    venv = gym.make_vec("blackjack_env.jax:blackjack_env/BlackjackJax-v0", num_envs=8,
                        rules="vegas-strip", obs_mode=obs_mode)  # fmt: skip
    obs, info = venv.reset(seed=0)
    assert obs in venv.observation_space
    for _ in range(10):
        a = np.argmax(info["action_mask"], axis=1)
        obs, _r, _te, _tr, info = venv.step(a)
        assert obs in venv.observation_space


def test_one_encoder_serves_numpy_and_jax() -> None:
    """``envs/view/fields.py``'s encoders with ``xp=jax.numpy`` (the JAX table's) lay the
    same values out at the same positions as with numpy (the numpy envs'): a batch of
    field values through both, compared position by position (float32 fields to the last
    bit's tolerance: numpy divides in float64, JAX in float32)."""
    import jax.numpy as jnp

    rng = np.random.default_rng(7)
    n = 64
    phase = rng.integers(0, view.N_PHASES, n)
    total = rng.integers(0, view.MAX_TOTAL + 1, n)
    up = rng.integers(0, view.UPCARD_HIGH + 1, n)
    soft, cd, cs, cu, ci, pair = (rng.integers(0, 2, n) for _ in range(6))
    h = rng.integers(0, 4, n)
    nh = h + 1
    cards = rng.integers(0, 15, n)
    tc = rng.normal(0.0, 12.0, n)
    shoe = rng.random(n)
    bucket = rng.integers(0, 2 * view.BUCKET_CLIP + 1, n)

    facts = {"phase": phase, "total": total, "soft": soft, "upcard": up, "can_double": cd,
             "can_split": cs, "can_surrender": cu, "can_insure": ci, "hand_index": h,
             "num_hands": nh, "cards": cards, "pair": pair, "true_count": tc,
             "shoe_left": shoe, "count_bucket": bucket}  # fmt: skip
    # (each encoder under jit: one program each, where op by op each operation compiles
    # one of its own)
    jfacts = jax.device_put(facts)
    ref = view.encode("vector", facts, 4)
    jx = jax.jit(jax.vmap(lambda f: view.encode("vector", f, 4, xp=jnp)))(jfacts)
    assert jx.dtype == jnp.float32 and jx.shape == ref.shape == (n, view.VECTOR_SIZE)
    np.testing.assert_allclose(np.asarray(jx), ref, rtol=0, atol=1e-6)
    assert (ref[np.arange(n), view.VEC_PHASE + phase] == 1).all()  # the one-hot phase

    ref_md = view.encode("multidiscrete", facts, 4)
    jx_md = jax.jit(lambda f: view.encode("multidiscrete", f, 4, xp=jnp))(jfacts)
    assert jx_md.dtype == jnp.int32 and ref_md.dtype == np.int64
    np.testing.assert_array_equal(np.asarray(jx_md), ref_md)
    assert (ref_md[:, view.MD_COUNT] == bucket).all() and (ref_md[:, view.MD_TOTAL] == total).all()

    counts = rng.integers(0, 300, (n, 13))
    chips = rng.normal(0.0, 3e9, n)
    dict_facts = {"phase": phase, "total": total, "soft": soft, "upcard": up,
                  "hand_index": h, "num_hands": nh, "hand_cards": counts,
                  "dealer_cards": counts, "seat_cards": counts, "unseen_cards": counts,
                  "true_count": tc * 3, "stake": chips, "bankroll": chips,
                  "action_mask": np.ones((n, 5), np.int8)}  # fmt: skip
    ref_d = view.encode("dict", dict_facts)
    # (eager: a jitted function returns its dict sorted by key, and the order is checked)
    jx_d = view.encode("dict", jax.device_put(dict_facts), xp=jnp)
    assert tuple(jx_d) == tuple(ref_d) == view.DICT_KEYS
    for key in view.DICT_KEYS:
        assert np.shape(jx_d[key]) == np.shape(ref_d[key]), key
        np.testing.assert_allclose(
            np.asarray(jx_d[key], np.float64), np.asarray(ref_d[key], np.float64), rtol=1e-6,
            err_msg=key,
        )  # fmt: skip
    assert int(ref_d["hand_cards"].max()) == view.COUNT_HIGH  # the bounds applied
    assert float(np.abs(ref_d["true_count"]).max()) == view.COUNT_CLIP
