"""info_cards=False: the info holds numbers only, the same keys at every step."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import blackjack_env  # noqa: F401  (registers the ids)

STEP_KEYS = {"action_mask", "phase", "round", "bankroll", "shoe_remaining", "reshuffled",
             "illegal_action", "action_played", "round_net", "settled"}


def _numeric(value: object) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biuf"
    return value is None or isinstance(value, (bool, int, float, np.integer, np.floating))


@pytest.mark.parametrize("kwargs", [
    {"rules": "vegas-strip"},
    {"rules": "atlantic-city", "obs_mode": "dict", "rounds_per_episode": 5,
     "insurance_decisions": True},
    {"rules": "sutton-barto", "obs_mode": "tuple"},
    {"rules": "vegas-strip", "obs_mode": "vector", "bet_sizes": (1, 2, 4), "bankroll": 50,
     "rounds_per_episode": 8},
], ids=["vegas", "dict-insurance", "sutton", "bets"])
def test_numeric_info_matches_the_card_info_step_by_step(kwargs: dict) -> None:
    """Two envs, same seed and actions: the numeric one has the same numbers, the same
    keys at every step, no card tuples, and round_net is the settlement's net."""
    cards = gym.make("blackjack_env/Blackjack-v0", **kwargs)
    plain = gym.make("blackjack_env/Blackjack-v0", info_cards=False, **kwargs)
    rng = np.random.default_rng(0)
    settled = 0
    for episode in range(30):
        _, ic = cards.reset(seed=episode)
        _, ip = plain.reset(seed=episode)
        assert "hands" not in ip and "dealer" not in ip and "hands" in ic
        assert all(_numeric(v) for v in ip.values())
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(ic["action_mask"])))
            oc, rc, tc, uc, ic = cards.step(action)
            op, rp, tp, up, ip = plain.step(action)
            assert rc == rp and tc == tp and uc == up
            np.testing.assert_equal(oc, op)
            assert set(ip) == STEP_KEYS, set(ip) ^ STEP_KEYS
            assert all(_numeric(v) for v in ip.values()), ip
            for key in STEP_KEYS - {"round_net", "settled"}:
                np.testing.assert_equal(ip[key], ic[key])
            assert ip["settled"] == ("settlement" in ic)
            if ip["settled"]:
                settled += 1
                assert ip["round_net"] == ic["settlement"]["net"]
            else:
                assert ip["round_net"] == 0.0
            done = tc or uc
    assert settled >= 30


def test_info_cards_must_be_a_bool() -> None:
    with pytest.raises(ValueError, match="info_cards"):
        gym.make("blackjack_env/Blackjack-v0", info_cards="no")


def test_the_batched_env_takes_the_switch() -> None:
    envs = gym.make_vec("blackjack_env/Blackjack-v0", num_envs=4, info_cards=False)
    _, info = envs.reset(seed=0)
    assert "hands" not in info
