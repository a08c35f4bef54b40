"""The driver of the JAX table's parity tests with several seats, bet steps, bankrolls,
several rounds per episode and every observation mode: ``n`` JAX tables and the numpy
vector env (SameStep autoreset; sub-env ``t * S + s`` is seat ``s`` of table ``t``) fed
the same stacked cards and the same actions, compared sub-env by sub-env at every step."""

from __future__ import annotations

from typing import Any

import numpy as np

jax = __import__("pytest").importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.envs.vector import BlackjackVectorEnv  # noqa: E402
from blackjack_env.jax import BlackjackJax  # noqa: E402
from tests.envs.vector_helpers import stacked_cards  # noqa: E402
from tests.jax.jax_helpers import OBS_ATOL, batched_step  # noqa: E402


def flat(x: Any, seats: int) -> Any:
    """A JAX output of tables of ``seats`` seats (leading axes tables, seats) as the numpy
    env's sub-envs (a dict or tuple: per field)."""
    if isinstance(x, dict):
        return {k: flat(v, seats) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(flat(v, seats) for v in x)
    a = np.asarray(x)
    return a if seats == 1 else a.reshape(-1, *a.shape[2:])


def assert_obs_equal(jx: Any, ref: Any, rows: np.ndarray, what: str = "") -> None:
    """Observations agree at ``rows`` (per field of a dict or tuple observation)."""
    if isinstance(ref, dict):
        assert set(jx) == set(ref), (what, sorted(jx), sorted(ref))
        for k in ref:
            assert_obs_equal(jx[k], ref[k], rows, f"{what} {k}")
        return
    if isinstance(ref, tuple):
        for i, (a, b) in enumerate(zip(jx, ref, strict=True)):
            assert_obs_equal(a, b, rows, f"{what} [{i}]")
        return
    np.testing.assert_allclose(
        np.asarray(jx)[rows], np.asarray(ref)[rows], rtol=1e-6, atol=OBS_ATOL, err_msg=what
    )


def run_table_parity(
    env: BlackjackJax,
    kwargs: dict[str, Any],
    n: int,
    seed: int,
    length: int = 90,
    max_steps: int = 80,
    wild: float = 0.15,
) -> dict[str, int]:
    """``n`` tables (``env.seats`` seats each) of the JAX table and of the numpy vector env,
    the same stacked cards and random actions (unmasked ones ``wild`` of the time); every
    sub-env's observation, mask, reward, termination, truncation and played action agree
    until its table's first episode ends (and ``final_obs`` on that step). Returns counts
    of what was compared."""
    s = env.seats
    if env.config.infinite:  # (the stacked-card buffer's size)
        length = min(length, env.config.shoe_size)
    rng = np.random.default_rng(seed)
    cards = [stacked_cards(env.rules, rng, length, s if s > 1 else None) for _ in range(n)]
    ref = BlackjackVectorEnv(n * s, autoreset_mode="SameStep", **kwargs)
    np_cards: list[str | None] = [None] * (n * s)
    for t in range(n):
        np_cards[t * s] = cards[t]
    obs_np, info_np = ref.reset(seed=seed, options={"cards": np_cards})
    params = env.default_params
    state = env.stack(env.new_state(n), cards)
    obs_jx, state = env.start_round(jax.random.PRNGKey(seed), state, params)
    mask_jx = flat(env.action_mask(state, params), s)
    active_jx = flat(env.active(state, params), s) if s > 1 else None
    step = batched_step(env)
    live = np.ones(n * s, dtype=bool)
    seen = {"steps": 0, "ended": 0, "illegal": 0, "split": 0, "nonzero": 0, "truncated": 0}
    key = jax.random.PRNGKey(seed + 1)
    for _ in range(max_steps):
        m_np = info_np["action_mask"].astype(bool)
        np.testing.assert_array_equal(m_np[live], mask_jx[live])
        assert_obs_equal(flat(obs_jx, s), obs_np, live, "obs")
        if s > 1:
            np.testing.assert_array_equal(info_np["active"][live], active_jx[live])
        if not live.any():
            break
        legal_pick = (rng.random(m_np.shape) * m_np).argmax(axis=1)
        a = np.where(rng.random(n * s) < wild, rng.integers(0, env.num_actions, n * s), legal_pick)
        obs_np, r_np, te_np, tr_np, info_np = ref.step(a)
        key, sub = jax.random.split(key)
        obs_new, state, r_jx, d_jx, info_jx = step(
            jax.random.split(sub, n),
            state,
            jnp.asarray(a.reshape(n, s) if s > 1 else a, jnp.int32),
            params,
        )
        d_jx, r_jx = flat(d_jx, s), flat(r_jx, s)
        te_jx, tr_jx = flat(info_jx["terminated"], s), flat(info_jx["truncated"], s)
        ended = live & d_jx
        np.testing.assert_array_equal(te_jx[live], te_np[live])
        np.testing.assert_array_equal(tr_jx[live], tr_np[live])
        np.testing.assert_allclose(r_jx[live], r_np[live], rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(
            flat(info_jx["action_played"], s)[live], info_np["action_played"][live]
        )
        np.testing.assert_array_equal(
            flat(info_jx["illegal_action"], s)[live], info_np["illegal_action"][live]
        )
        if ended.any():
            assert_obs_equal(
                flat(info_jx["final_observation"], s), info_np["final_obs"], ended, "final_obs"
            )
        seen["steps"] += int(live.sum())
        seen["ended"] += int(ended.sum())
        seen["truncated"] += int((ended & tr_np).sum())
        seen["illegal"] += int((live & info_np["illegal_action"]).sum())
        seen["split"] += int((live & (a == 3) & ~info_np["illegal_action"]).sum())
        seen["nonzero"] += int((live & (r_np != 0)).sum())
        live &= ~d_jx
        obs_jx = obs_new
        mask_jx = flat(info_jx["action_mask"], s)
        if s > 1:
            active_jx = flat(info_jx["active"], s)
    assert not live.any(), "some episode did not end within max_steps"
    return seen
