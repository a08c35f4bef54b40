"""The multi-agent table through PettingZoo's parallel API."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from gymnasium.error import ResetNeeded
from pettingzoo.test import parallel_api_test, parallel_seed_test

from blackjack_env.envs.multiagent import parallel_env, raw_env

CONFIGS: list[dict[str, Any]] = [
    {},
    {"num_seats": 7, "rounds": 4},
    {"obs_mode": "vector", "insurance_decisions": True, "num_seats": 2, "rounds": 3},
    {"obs_mode": "dict", "num_seats": 4, "others": {1: "dealer", 2: "random"}, "rounds": 3},
    {"rules": "european-no-hole-card", "num_seats": 5, "rounds": 2},
]


@pytest.mark.parametrize("kwargs", CONFIGS, ids=lambda k: ",".join(map(str, k.items())) or "-")
def test_parallel_api_and_seed_tests(kwargs: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tests pass an unknown reset option
        parallel_api_test(parallel_env(**kwargs), num_cycles=200)
        parallel_seed_test(functools.partial(parallel_env, **kwargs))


def test_a_scripted_round_matches_the_aec_table() -> None:
    """The same stacked round through both APIs: the acting agent's actions are played,
    the others' ignored, and the rewards are the AEC rewards."""
    cards = "TS 9H 7C 6D 7S TH 5C 4D 8S"  # seat 0: T 6, seat 1: 9 7, dealer: 7 up, T hole
    par = parallel_env(rules="vegas-strip", num_seats=2)
    obs, infos = par.reset(seed=1, options={"cards": cards})
    assert infos["seat_0"]["active"] and not infos["seat_1"]["active"]
    # seat 0 hits (takes the 5: 21, its turn ends); seat 1's DOUBLE is ignored
    obs, rewards, terms, truncs, infos = par.step({"seat_0": 1, "seat_1": 2})
    assert rewards == {"seat_0": 0.0, "seat_1": 0.0}
    assert not any(terms.values()) and not any(truncs.values())
    assert infos["seat_1"]["active"] and not infos["seat_0"]["active"]
    assert obs["seat_0"]["action_mask"].tolist() == [1, 1, 1, 1, 1]  # not its turn
    # seat 1 hits (the 4), then stands; seat 0's actions are ignored
    par.step({"seat_0": 3, "seat_1": 1})
    obs, rewards, terms, _, infos = par.step({"seat_0": 1, "seat_1": 0})
    assert [str(c) for c in par.table.seats[1].hands[0].cards] == ["9H", "7S", "4D"]
    assert rewards == {"seat_0": 1.0, "seat_1": 1.0}  # 21 and 20 against 17
    assert all(terms.values()) and par.agents == []
    aec = raw_env(rules="vegas-strip", num_seats=2)
    aec.reset(seed=1, options={"cards": cards})
    for action in (1, 1, 0):
        aec.step(action)
    assert aec.rewards == rewards
    with pytest.raises(ResetNeeded):
        par.step({})


def test_a_refused_step_changes_nothing() -> None:
    par = parallel_env(num_seats=3, illegal_action="raise")
    par.reset(seed=4)
    before = par.state().copy()
    acting = next(a for a in par.agents if par.aec_env.agent_selection == a)
    for bad in ({}, {"seat_9": 0, **dict.fromkeys(par.agents, 0)}, [0, 0, 0],
                {**dict.fromkeys(par.agents, 0), acting: 7}):
        with pytest.raises(ValueError):
            par.step(bad)
        np.testing.assert_array_equal(par.state(), before)
        assert par.aec_env.agent_selection == acting


def test_state_is_every_seat_flattened_and_in_its_space() -> None:
    for mode in ("multidiscrete", "vector", "dict"):
        par = parallel_env(num_seats=3, rounds=3, obs_mode=mode)
        obs, _ = par.reset(seed=2)
        rng = np.random.default_rng(0)
        while par.agents:
            state = par.state()
            assert state.dtype == np.float32 and par.state_space.contains(state)
            actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"])))
                       for a in par.agents}
            obs, *_ = par.step(actions)


def test_human_render_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    par = parallel_env(num_seats=2, render_mode="human")
    par.reset(seed=0)
    assert "Blackjack - round 1" in capsys.readouterr().out
    with pytest.raises(ValueError, match="render_mode"):
        parallel_env(render_mode="rgb")
