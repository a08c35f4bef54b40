"""``random_legal_actions``: a uniformly random legal action per row of a batched mask."""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.envs.vector import BlackjackVectorEnv, random_legal_actions


def _by_running_count(u: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The specification, row by row: the floor(u * k)-th legal action (k legal ones)."""
    out = np.zeros(mask.shape[0], dtype=np.int64)
    for i, row in enumerate(mask):
        legal = np.flatnonzero(row)
        if legal.size:
            out[i] = legal[int(u[i] * legal.size)]
    return out


@pytest.mark.parametrize("width", [1, 2, 5, 7, 8, 9, 12])
@pytest.mark.parametrize("dtype", [np.int8, np.bool_, np.int64])
def test_the_action_is_the_specified_legal_one(width: int, dtype: type) -> None:
    rng = np.random.default_rng(width)
    mask = (rng.random((3000, width)) < 0.5).astype(dtype)
    u = np.random.default_rng(7).random(mask.shape[0])  # the uniforms the function draws
    got = random_legal_actions(np.random.default_rng(7), mask)
    np.testing.assert_array_equal(got, _by_running_count(u, mask))
    has_legal = mask.any(axis=1)
    assert mask[np.arange(mask.shape[0]), got][has_legal].all()


def test_every_legal_action_is_equally_likely() -> None:
    # one row with legal actions 0, 2, 3, 6: each has probability 1/4; over n draws
    # each count lies within 4 standard deviations of n / 4 (a miss: about 1 in 16,000)
    n = 40_000
    mask = np.zeros((n, 7), dtype=np.int8)
    mask[:, [0, 2, 3, 6]] = 1
    counts = np.bincount(random_legal_actions(np.random.default_rng(11), mask), minlength=7)
    assert counts[[1, 4, 5]].sum() == 0
    sd = np.sqrt(n * 0.25 * 0.75)
    assert np.all(np.abs(counts[[0, 2, 3, 6]] - n / 4) < 4 * sd), counts


def test_env_masks_give_legal_actions_and_a_seeded_stream() -> None:
    env = BlackjackVectorEnv(64, rules="vegas-strip", obs_mode="multidiscrete")
    _, info = env.reset(seed=1)
    rng_a, rng_b = np.random.default_rng(2), np.random.default_rng(2)
    for _ in range(30):
        a = random_legal_actions(rng_a, info["action_mask"])
        np.testing.assert_array_equal(a, random_legal_actions(rng_b, info["action_mask"]))
        assert info["action_mask"][np.arange(64), a].all()
        _, _, _, _, info = env.step(a)
        assert not info["illegal_action"].any()


def test_a_mask_that_is_not_two_dimensional_is_refused() -> None:
    with pytest.raises(ValueError, match="must be 2-D"):
        random_legal_actions(np.random.default_rng(0), np.ones(5, dtype=np.int8))
