"""Shared drivers of the JAX table tests: the numpy vector env and the JAX table fed the
same stacked cards and the same actions, step by step."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

jax = __import__("pytest").importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.engine.rules import Rules  # noqa: E402
from blackjack_env.envs.vector import BlackjackVectorEnv  # noqa: E402
from blackjack_env.jax import BlackjackJax  # noqa: E402
from tests.envs.vector_helpers import stacked_cards  # noqa: E402

#: observations agree to this (float32 fields computed in float32 by JAX and in float64
#: then rounded by numpy: the true count can differ in the last bit)
OBS_ATOL = 1e-6


@cache
def jax_env(key: str, **kwargs: Any) -> BlackjackJax:
    """One env per configuration name (its jitted functions compile once per test run)."""
    return BlackjackJax(**kwargs)


@cache
def batched_step(env: BlackjackJax) -> Any:
    return jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))


def run_parity(
    env: BlackjackJax,
    kwargs: dict[str, Any],
    n: int,
    seed: int,
    length: int = 40,
    max_steps: int = 30,
) -> dict[str, int]:
    """``n`` tables of the numpy vector env (SameStep) and of the JAX table, reset with the
    same stacked cards and fed the same random actions (unmasked ones too: the mapping of
    illegal actions is compared); every table's observation, mask, reward, termination and
    played action must agree until its first episode ends. Returns counts of what was
    compared (steps, ended episodes, splits seen, ...)."""
    rules: Rules = env.rules
    rng = np.random.default_rng(seed)
    cards = [stacked_cards(rules, rng, length) for _ in range(n)]
    ref = BlackjackVectorEnv(n, autoreset_mode="SameStep", **kwargs)
    obs_np, info_np = ref.reset(seed=seed, options={"cards": cards})
    params = env.default_params
    state = env.stack(env.new_state(n), cards)
    obs_jx, state = env.start_round(jax.random.PRNGKey(seed), state, params)
    mask_jx = np.asarray(env.action_mask(state, params))
    step = batched_step(env)
    live = np.ones(n, dtype=bool)
    seen = {"steps": 0, "ended": 0, "illegal": 0, "split": 0, "nonzero": 0}
    key = jax.random.PRNGKey(seed + 1)
    for _ in range(max_steps):
        m_np = info_np["action_mask"].astype(bool)
        np.testing.assert_array_equal(m_np[live], mask_jx[live])
        np.testing.assert_allclose(np.asarray(obs_jx)[live], obs_np[live], atol=OBS_ATOL)
        if not live.any():
            break
        legal_pick = (rng.random(m_np.shape) * m_np).argmax(axis=1)
        wild = rng.integers(0, env.num_actions, n)
        a = np.where(rng.random(n) < 0.15, wild, legal_pick)
        obs_np, r_np, te_np, tr_np, info_np = ref.step(a)
        key, sub = jax.random.split(key)
        obs_new, state, r_jx, d_jx, info_jx = step(
            jax.random.split(sub, n), state, jnp.asarray(a, jnp.int32), params
        )
        final = np.asarray(info_jx["final_observation"])
        ended = live & np.asarray(d_jx)
        np.testing.assert_array_equal(np.asarray(d_jx)[live], te_np[live])
        assert not tr_np[live].any()
        np.testing.assert_allclose(np.asarray(r_jx)[live], r_np[live], rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(
            np.asarray(info_jx["action_played"])[live], info_np["action_played"][live]
        )
        np.testing.assert_array_equal(
            np.asarray(info_jx["illegal_action"])[live], info_np["illegal_action"][live]
        )
        if ended.any():
            np.testing.assert_allclose(final[ended], info_np["final_obs"][ended], atol=OBS_ATOL)
        seen["steps"] += int(live.sum())
        seen["ended"] += int(ended.sum())
        seen["illegal"] += int((live & info_np["illegal_action"]).sum())
        seen["split"] += int((live & (a == 3) & ~info_np["illegal_action"]).sum())
        seen["nonzero"] += int((ended & (r_np != 0)).sum())
        live &= ~np.asarray(d_jx)
        obs_jx = obs_new
        mask_jx = np.asarray(info_jx["action_mask"])
    assert not live.any(), "some episode did not end within max_steps"
    return seen
