"""envs/view/fields.py: the one definition of the observation fields and their encoder."""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.envs import view as V
from blackjack_env.envs.single import BlackjackEnv
from blackjack_env.envs.view.per_step import count_facts


def _positions(prefix: str) -> list[int]:
    skip = {"MD_SIZE", "VEC_CARDS_SCALE", "VEC_COUNT_SCALE"}
    return [v for k, v in vars(V).items()
            if k.startswith(prefix) and k not in skip and type(v) is int]


def test_named_positions_cover_each_layout_once() -> None:
    md = _positions("MD_")
    assert sorted(md) == list(range(V.MD_SIZE))
    vec = _positions("VEC_")
    # VEC_PHASE names the first of N_PHASES one-hot entries
    cover = sorted(vec + list(range(V.VEC_PHASE + 1, V.VEC_PHASE + V.N_PHASES)))
    assert cover == list(range(V.VECTOR_SIZE))
    assert sorted(_positions("TUPLE_")) == [0, 1, 2]
    for mode, fields in V.MODE_FIELDS.items():  # the names' positions are the lists'
        at = V.positions(fields)
        assert list(at.values()) == sorted(at.values()), mode
        assert V.width(fields) == sum(f.size for f in fields)


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


def _random_facts(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """``n`` situations' facts (every one the flat modes read), by name."""
    return {
        "phase": rng.integers(0, 4, n),
        "total": rng.integers(0, 32, n),
        "soft": rng.integers(0, 2, n),
        "upcard": rng.integers(0, 11, n),
        "can_double": rng.integers(0, 2, n).astype(bool),
        "can_split": rng.integers(0, 2, n).astype(bool),
        "can_surrender": rng.integers(0, 2, n).astype(bool),
        "can_insure": rng.integers(0, 2, n).astype(bool),
        "hand_index": rng.integers(0, 4, n),
        "num_hands": rng.integers(1, 5, n),
        "cards": rng.integers(0, 20, n),
        "pair": rng.integers(0, 2, n).astype(bool),
        # whole and half counts reach the clips (count_bucket: tested below)
        "true_count": np.concatenate([rng.normal(0, 8, n - 6), [2.5, -2.5, 3.5, 0.5, 25, -25]]),
        "count_bucket": rng.integers(0, 11, n),
        "shoe_left": rng.random(n),
    }


@pytest.mark.parametrize("mode", ["multidiscrete", "vector", "features"])
def test_batched_encoding_equals_the_scalar_one_row_by_row(mode: str) -> None:
    rng = np.random.default_rng(5)
    n = 200
    f = _random_facts(rng, n)
    batch = V.encode(mode, f, 4)
    assert batch.shape == (n, V.width(V.MODE_FIELDS[mode]))
    space = V.observation_space(mode, 4, 1, 6)
    for i in range(n):
        row = {k: v[i].item() for k, v in f.items()}
        one = V.encode(mode, row, 4)
        assert one.tobytes() == batch[i].tobytes()
        assert space.contains(one)
        if mode != "multidiscrete":
            assert one[V.VEC_PHASE + row["phase"]] == 1.0
            assert one[V.VEC_PHASE:V.VEC_PHASE + V.N_PHASES].sum() == 1.0
            assert one[V.VEC_TRUE_COUNT] == np.float32(max(-1, min(1, row["true_count"] / 10)))
        else:
            assert one[V.MD_COUNT] == row["count_bucket"]


def test_count_bucket_is_the_rounded_true_count_exactly() -> None:
    """count_bucket(running, unseen), in integers, is Python's round (half to even) of the
    float true count running * 52 / unseen, clipped, plus 5, for every pair a shoe of up
    to 8 decks can show; for ints one by one and for arrays; 5 when nothing is unseen."""
    running = np.arange(-160, 161)[:, None].repeat(417, axis=1).reshape(-1)
    unseen = np.arange(417)[None, :].repeat(321, axis=0).reshape(-1)
    tc = np.where(unseen > 0, running * 52.0 / np.maximum(unseen, 1), 0.0)
    expect = np.array([min(5, max(-5, round(x))) + 5 for x in tc.tolist()])
    assert np.array_equal(V.count_bucket(running, unseen), expect)
    for r, u in [(1, 104), (3, 104), (-3, 104), (5, 52), (0, 0), (7, 0), (13, 208)]:
        x = r * 52.0 / u if u else 0.0
        assert V.count_bucket(r, u) == min(5, max(-5, round(x))) + 5, (r, u)
    assert (expect == 5).sum() < expect.size  # the grid reaches past the clips


def test_dict_encoding_clips_to_the_bounds_for_one_table_and_a_batch() -> None:
    counts = np.array([300] + [1] * 12, dtype=np.int64)

    def facts(k: int | None) -> dict:
        def lead(x):
            return x if k is None else np.stack([np.asarray(x)] * k)
        return {"phase": lead(0), "total": lead(20), "soft": lead(0), "upcard": lead(10),
                "hand_index": lead(0), "num_hands": lead(1), "hand_cards": lead(counts),
                "dealer_cards": lead(counts), "seat_cards": lead(counts),
                "unseen_cards": lead(counts), "true_count": lead(30.0), "stake": lead(2e9),
                "bankroll": lead(-2e9), "action_mask": lead(np.ones(5, dtype=np.int8))}

    one = V.encode("dict", facts(None))
    assert one["hand_cards"][0] == V.COUNT_HIGH and one["unseen_cards"][0] == V.COUNT_HIGH
    assert one["true_count"].shape == (1,) and one["true_count"][0] == V.COUNT_CLIP
    assert one["bet"][0] == np.float32(V.CHIP_BOUND)
    assert one["bankroll"][0] == np.float32(-V.CHIP_BOUND)
    assert tuple(one) == V.DICT_KEYS
    batch = facts(2)
    batch["true_count"] = np.array([30.0, -1.5])
    batch["bankroll"] = np.array([-2e9, 3.0])
    out = V.encode("dict", batch)
    assert out["true_count"].shape == (2, 1)
    for key in ("hand_cards", "unseen_cards", "true_count", "bet", "bankroll"):
        assert np.array_equal(out[key][0], one[key]), key
    assert out["true_count"][1, 0] == -1.5 and out["bankroll"][1, 0] == 3.0


def test_a_fact_not_given_is_named() -> None:
    with pytest.raises(KeyError, match="the fact 'true_count' is not given here"):
        V.Facts({})["true_count"]


@pytest.mark.parametrize("rules", ["vegas-strip", "downtown-h17", "single-deck-6to5"])
def test_compiled_multidiscrete_encoder_lays_out_the_view_fields(rules: str) -> None:
    """LearnerView.observe (cached, compiled) gives view.encode's array."""
    env = BlackjackEnv(rules=rules, obs_mode="multidiscrete", rounds_per_episode=None)
    layout = env.unwrapped.layout
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=3)
    for _ in range(400):
        table = env.unwrapped.table
        phase = int(obs[V.MD_PHASE])
        legal = tuple(int(a) for a in np.flatnonzero(info["action_mask"]))
        facts = layout.per_step.facts(table, 0, phase, int(obs[V.MD_HAND_INDEX]), legal)
        facts["count_bucket"] = V.count_bucket(*count_facts(table))
        expect = V.encode("multidiscrete", facts, layout.hands)
        assert np.array_equal(obs, expect), (obs, expect)
        assert layout.observation_space().contains(obs)
        obs, _, term, trunc, info = env.step(int(rng.choice(legal)))
        if term or trunc:
            obs, info = env.reset()
