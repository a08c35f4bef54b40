"""The Gymnasium adapters of the JAX table: ``make_vec`` / ``make`` of its id, numpy
arrays out, ``check_env`` on the single-table form, and the same games as the numpy
batched env in distribution (the parity tests compare them card by card)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("jax")

from gymnasium.utils.env_checker import check_env

from blackjack_env.envs.vector import BlackjackVectorEnv

ID = "blackjack_env.jax:blackjack_env/BlackjackJax-v0"


def test_make_vec_gives_numpy_arrays_and_the_numpy_spaces() -> None:
    env = gym.make_vec(ID, num_envs=16, rules="vegas-strip")
    ref = BlackjackVectorEnv(16, rules="vegas-strip", obs_mode="vector")
    assert env.single_observation_space == ref.single_observation_space
    assert env.single_action_space == ref.single_action_space
    obs, info = env.reset(seed=3)
    assert isinstance(obs, np.ndarray) and obs.shape == (16, 17) and obs.dtype == np.float32
    assert info["action_mask"].dtype == np.int8
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(30):
        mask = info["action_mask"].astype(bool)
        a = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, r, te, _tr, info = env.step(a)
        assert isinstance(r, np.ndarray) and r.dtype == np.float64
        assert obs in env.observation_space
        ended += int(te.sum())
        assert np.array_equal(r[~te], np.zeros((~te).sum()))
        assert info["final_obs"][te].shape == (int(te.sum()), 17)
    assert ended > 16
    # the same seed, the same games
    o1, _ = env.reset(seed=5)
    s1 = env.step(np.ones(16, np.int64))
    o2, _ = env.reset(seed=5)
    s2 = env.step(np.ones(16, np.int64))
    np.testing.assert_array_equal(o1, o2)
    for x, y in zip(s1[:4], s2[:4], strict=True):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match="actions must"):
        env.step(np.full(16, 9))


@pytest.mark.parametrize(
    "obs_mode", ["vector", pytest.param("multidiscrete", marks=pytest.mark.slow)]
)
def test_single_table_passes_check_env(obs_mode: str) -> None:
    env = gym.make(ID, rules="vegas-strip", obs_mode=obs_mode, disable_env_checker=True)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=1)
    assert obs in env.observation_space
    total = 0
    for _ in range(50):
        obs, _r, te, _tr, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        total += te
        if te:
            obs, info = env.reset()
    assert total > 0
    with pytest.raises(ValueError, match="must be an int"):
        env.step(7)
