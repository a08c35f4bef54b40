"""Adding an observation field is one edit in ``envs/view/fields.py`` (issue 41).

The fixture edits the source of ``fields.py`` alone, as a contributor would: one line, a
hypothetical field appended to the ``"vector"`` fields, ``ten_up`` (1 when the dealer's
upcard is worth ten), computed from the facts every backend already gives. It runs the
edited source in the module's place (so every constant, space and position is derived
again from the field lists) and puts the original back after the test. Nothing is
shipped: the field exists only inside the fixture. The single env, the batched env and
the JAX table then show it, at the end of the ``"vector"`` observation and before the
one-hot columns of ``"features"``, in their spaces too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import blackjack_env
from blackjack_env.envs import view
from blackjack_env.envs.view import fields

#: The line the fixture adds to ``VECTOR_FIELDS``, after its last field.
NEW_FIELD = '''    Field("ten_up", ("upcard",), lambda f, xp, h: f["upcard"] == 10,
          meaning="1 when the upcard is worth ten"),
'''
LAST = '''    _as_is("shoe_left", 1.0),
)'''


def _run(source: str) -> None:
    """Run ``source`` as ``fields.py`` in the module's own namespace (the functions that
    other modules hold read their globals from it), and re-export its names from
    ``envs.view`` as the package's ``import *`` does."""
    exec(compile(source, fields.__file__, "exec"), fields.__dict__)
    view.__dict__.update({name: getattr(fields, name) for name in fields.__all__})


@pytest.fixture
def ten_up() -> Iterator[int]:
    """``fields.py`` with the field ``ten_up``; yields its position in ``"vector"``."""
    original = Path(fields.__file__).read_text()
    assert original.count(LAST) == 1
    size = fields.VECTOR_SIZE
    _run(original.replace(LAST, LAST[:-1] + NEW_FIELD + ")"))
    try:
        assert size + 1 == fields.VECTOR_SIZE
        yield fields.positions(fields.VECTOR_FIELDS)["ten_up"]
    finally:
        _run(original)
        assert size == fields.VECTOR_SIZE and "ten_up" not in fields.positions(
            fields.VECTOR_FIELDS)


def _check(obs: np.ndarray, at: int, space: gym.Space) -> None:
    """Every row shows ``ten_up`` where it belongs: 1 exactly when the upcard field says
    ten, and the features keep the vector's fields first."""
    obs = np.atleast_2d(np.asarray(obs))
    assert obs.shape[-1] == space.shape[-1]
    up = np.rint(obs[:, fields.VEC_UPCARD] * fields.UPCARD_HIGH)
    np.testing.assert_array_equal(obs[:, at], (up == 10).astype(np.float32))
    assert space.contains(obs[0].astype(np.float32))


def _play(env: gym.Env | gym.vector.VectorEnv, steps: int, seed: int = 0) -> list[np.ndarray]:
    obs, info = env.reset(seed=seed)
    seen = [obs]
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        mask = np.atleast_2d(info["action_mask"])
        action = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        if not isinstance(env, gym.vector.VectorEnv):
            action = int(action[0])
        obs, _, term, trunc, info = env.step(action)
        seen.append(obs)
        if not isinstance(env, gym.vector.VectorEnv) and (term or trunc):
            obs, info = env.reset()
    return seen


@pytest.mark.parametrize("mode", ["vector", "features"])
def test_a_field_added_in_fields_py_shows_in_the_single_and_batched_envs(
        ten_up: int, mode: str) -> None:
    gym.register_envs(blackjack_env)
    single = gym.make("blackjack_env/Blackjack-v0", obs_mode=mode)
    assert single.observation_space.shape == (fields.width(fields.MODE_FIELDS[mode]),)
    upcards = set()
    for obs in _play(single, 300):
        _check(obs, ten_up, single.observation_space)
        upcards.add(int(np.rint(obs[fields.VEC_UPCARD] * 10)))
    assert 10 in upcards and len(upcards) > 3  # both values of the field were shown
    batched = gym.make_vec("blackjack_env/Blackjack-v0", num_envs=16, obs_mode=mode)
    for obs in _play(batched, 40):
        _check(obs, ten_up, batched.single_observation_space)
    if mode == "features":  # the one-hot columns follow the vector's fields, moved on
        assert fields.FEAT_TOTAL == fields.VECTOR_SIZE


def test_a_field_added_in_fields_py_shows_in_the_jax_table(ten_up: int) -> None:
    jax = pytest.importorskip("jax")
    from blackjack_env.jax import BlackjackJax

    jax.clear_caches()  # no program traced before the edit is reused
    try:
        env = BlackjackJax(rules="vegas-strip", obs_mode="vector")
        params = env.default_params
        assert env.observation_space(params).shape == (fields.VECTOR_SIZE,)
        keys = jax.random.split(jax.random.PRNGKey(0), 64)
        obs, _ = jax.vmap(env.reset, in_axes=(0, None))(keys, params)
        gym_space = gym.spaces.Box(env.gymnasium_observation_space.low,
                                   env.gymnasium_observation_space.high, dtype=np.float32)
        _check(np.asarray(obs), ten_up, gym_space)
        assert (np.asarray(obs)[:, ten_up] == 1).any() and (np.asarray(obs)[:, ten_up] == 0).any()
    finally:
        jax.clear_caches()
