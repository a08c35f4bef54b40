"""envs/view.py: the one definition of the observation fields and their encoders."""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.envs import view as V
from blackjack_env.envs.single.core import LearnerView, hi_lo_true_count
from blackjack_env.envs.single.env import BlackjackEnv


def _positions(prefix: str) -> list[int]:
    skip = {"MD_SIZE", "VEC_CARDS_SCALE", "VEC_COUNT_SCALE"}
    return [v for k, v in vars(V).items() if k.startswith(prefix) and k not in skip]


def test_named_positions_cover_each_layout_once() -> None:
    md = _positions("MD_")
    assert sorted(md) == list(range(V.MD_SIZE))
    vec = _positions("VEC_")
    # VEC_PHASE names the first of N_PHASES one-hot entries
    cover = sorted(vec + list(range(V.VEC_PHASE + 1, V.VEC_PHASE + V.N_PHASES)))
    assert cover == list(range(V.VECTOR_SIZE))
    assert sorted(_positions("TUPLE_")) == [0, 1, 2]


@pytest.mark.parametrize("mode", ["tuple", "multidiscrete", "vector", "dict"])
def test_space_shapes_follow_the_field_definitions(mode: str) -> None:
    space = V.observation_space(mode, max_hands=4, seats=3, n_actions=7)
    if mode == "multidiscrete":
        assert space.shape == (V.MD_SIZE,)
        assert space.nvec[V.MD_HAND_INDEX] == 4
        assert space.nvec[V.MD_COUNT] == 2 * V.BUCKET_CLIP + 1
    elif mode == "vector":
        assert space.shape == (V.VECTOR_SIZE,)
        assert space.low[V.VEC_TRUE_COUNT] == -1.0
    elif mode == "dict":
        assert sorted(space.spaces) == sorted(V.DICT_KEYS)  # (Dict sorts its keys)
        assert space["seat_cards"].shape == (3 * 13,)


def _random_fields(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    return {
        "phase": rng.integers(0, 4, n),
        "total": rng.integers(0, 32, n),
        "soft": rng.integers(0, 2, n),
        "up": rng.integers(0, 11, n),
        "cd": rng.integers(0, 2, n).astype(bool),
        "cs": rng.integers(0, 2, n).astype(bool),
        "csurr": rng.integers(0, 2, n).astype(bool),
        "ins": rng.integers(0, 2, n).astype(bool),
        "h": rng.integers(0, 4, n),
        "nh": rng.integers(1, 5, n),
        "cards": rng.integers(0, 20, n),
        "pair": rng.integers(0, 2, n).astype(bool),
        # whole and half counts reach the rounding rule (halves to even) and the clips
        "tc": np.concatenate([rng.normal(0, 8, n - 6), [2.5, -2.5, 3.5, 0.5, 25.0, -25.0]]),
        "shoe": rng.random(n),
    }


def test_batched_encoders_equal_the_scalar_ones_row_by_row() -> None:
    rng = np.random.default_rng(5)
    n = 200
    f = _random_fields(rng, n)
    md = V.encode_multidiscrete(f["phase"], f["total"], f["up"], f["soft"], f["cd"], f["cs"],
                                f["csurr"], f["h"], f["tc"])
    vec = V.encode_vector(f["phase"], f["total"], f["soft"], f["up"], f["cd"], f["cs"],
                          f["csurr"], f["ins"], f["h"], 4, f["nh"], f["cards"], f["pair"],
                          f["tc"], f["shoe"])
    assert md.shape == (n, V.MD_SIZE) and vec.shape == (n, V.VECTOR_SIZE)
    md_space = V.observation_space("multidiscrete", 4, 1, 6)
    vec_space = V.observation_space("vector", 4, 1, 6)
    for i in range(n):
        row = {k: v[i].item() for k, v in f.items()}
        one = V.encode_multidiscrete(row["phase"], row["total"], row["up"], row["soft"],
                                     row["cd"], row["cs"], row["csurr"], row["h"], row["tc"])
        assert np.array_equal(one, md[i])
        assert one[V.MD_COUNT] == min(5, max(-5, round(row["tc"]))) + 5  # Python's round
        assert md_space.contains(one)
        one_v = V.encode_vector(row["phase"], row["total"], row["soft"], row["up"], row["cd"],
                                row["cs"], row["csurr"], row["ins"], row["h"], 4, row["nh"],
                                row["cards"], row["pair"], row["tc"], row["shoe"])
        assert one_v.tobytes() == vec[i].tobytes()
        assert vec_space.contains(one_v)
        assert one_v[V.VEC_PHASE + row["phase"]] == 1.0
        assert one_v[V.VEC_PHASE:V.VEC_PHASE + V.N_PHASES].sum() == 1.0


def test_dict_encoder_clips_to_the_bounds_for_one_table_and_a_batch() -> None:
    counts = np.array([300] + [1] * 12, dtype=np.int64)
    one = V.encode_dict(0, 20, 0, 10, 0, 1, counts, counts, counts, counts, 30.0, 2e9, -2e9,
                        np.ones(5, dtype=np.int8))
    assert one["hand_cards"][0] == V.COUNT_HIGH and one["unseen_cards"][0] == V.COUNT_HIGH
    assert one["true_count"].shape == (1,) and one["true_count"][0] == V.COUNT_CLIP
    assert one["bet"][0] == np.float32(V.CHIP_BOUND)
    assert one["bankroll"][0] == np.float32(-V.CHIP_BOUND)
    batch = V.encode_dict(np.zeros(2, np.int64), np.full(2, 20), np.zeros(2, np.int64),
                          np.full(2, 10), np.zeros(2, np.int64), np.ones(2, np.int64),
                          np.stack([counts] * 2), np.stack([counts] * 2), np.stack([counts] * 2),
                          np.stack([counts] * 2), np.array([30.0, -1.5]), np.array([2e9, 1.0]),
                          np.array([-2e9, 3.0]), np.ones((2, 5), dtype=np.int8))
    assert batch["true_count"].shape == (2, 1)
    for key in ("hand_cards", "unseen_cards", "true_count", "bet", "bankroll"):
        assert np.array_equal(batch[key][0], one[key]), key
    assert batch["true_count"][1, 0] == -1.5 and batch["bankroll"][1, 0] == 3.0


@pytest.mark.parametrize("rules", ["vegas-strip", "downtown-h17", "single-deck-6to5"])
def test_compiled_multidiscrete_encoder_lays_out_the_view_fields(rules: str) -> None:
    """LearnerView.observe (cached, compiled) gives view.encode_multidiscrete's array."""
    env = BlackjackEnv(rules=rules, obs_mode="multidiscrete", rounds_per_episode=None)
    layout = env.unwrapped.layout
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=3)
    for _ in range(400):
        table = env.unwrapped.table
        phase = int(obs[V.MD_PHASE])
        legal = tuple(int(a) for a in np.flatnonzero(info["action_mask"]))
        index, _, total, soft, up = LearnerView.summary(table, 0, int(obs[V.MD_HAND_INDEX]))
        cd, cs, csurr = LearnerView.can(legal, phase)
        expect = V.encode_multidiscrete(phase, total, up, soft, cd, cs, csurr, index,
                                        hi_lo_true_count(table))
        assert np.array_equal(obs, expect), (obs, expect)
        assert layout.observation_space().contains(obs)
        obs, _, term, trunc, info = env.step(int(rng.choice(legal)))
        if term or trunc:
            obs, info = env.reset()
