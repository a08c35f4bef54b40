"""The analysis-state encoding equals the env's own observation at every decision."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import blackjack_env  # noqa: F401
from blackjack_env.agents.obs import decode, encode_state, state_mask, table_state
from blackjack_env.engine import Phase, preset

RULES = {
    "sutton-barto": preset("sutton-barto"),
    "vegas-inf": preset("vegas-strip", decks=None),
    "european-inf": preset("european-no-hole-card", decks=None),
    "early-surrender-inf": preset("vegas-strip", decks=None, surrender="early", insurance=False),
}
MODES = {
    "sutton-barto": ("tuple", "multidiscrete", "vector"),
    "vegas-inf": ("multidiscrete", "vector"),
    "european-inf": ("multidiscrete", "vector"),
    "early-surrender-inf": ("multidiscrete", "vector"),
}
CASES = [(name, mode) for name, modes in MODES.items() for mode in modes]


@pytest.mark.parametrize(("name", "mode"), CASES)
def test_encode_state_matches_env_observation(name, mode):
    """Random legal play for 400 rounds; at each learner decision the encoding of the
    table's DecisionState equals the env's observation and mask (the hand index of a
    split hand excepted: the state does not carry it, see blackjack_env.agents.obs)."""
    rules = RULES[name]
    env = gym.make("blackjack_env/Blackjack-v0", rules=rules, obs_mode=mode)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=11)
    checked = 0
    split_checked = 0
    for _ in range(400):
        done = False
        while not done:
            table = env.unwrapped.table
            mask = info["action_mask"]
            if table.to_act is not None and table.phase in (Phase.PLAYER_TURNS, Phase.INSURANCE):
                state = table_state(table)
                mine = encode_state(state, rules, mode)
                np.testing.assert_array_equal(state_mask(state, rules), mask)
                a, b = np.asarray(mine, dtype=np.float64), np.asarray(obs, dtype=np.float64)
                if state.split:
                    index = {"multidiscrete": 7, "vector": 11}.get(mode)
                    if index is not None:
                        a[index] = b[index]
                    split_checked += 1
                np.testing.assert_allclose(a, b, atol=1e-6, err_msg=f"{state.describe()}")
                view = decode(obs, mode)
                assert (view.total, view.soft, view.dealer) == (state.total, state.soft,
                                                                 state.dealer)
                checked += 1
            legal = np.flatnonzero(mask)
            obs, _, term, trunc, info = env.step(int(rng.choice(legal)))
            done = term or trunc
        obs, info = env.reset()
    assert checked > 400
    if rules.max_split_hands > 1:
        assert split_checked > 0


def test_table_state_needs_a_decision():
    env = gym.make("blackjack_env/Blackjack-v0", rules=RULES["vegas-inf"])
    env.reset(seed=0, options={"cards": "TS 9H 7C 8D"})  # 19 v 7: stand ends the round
    env.step(0)
    with pytest.raises(ValueError, match="no decision"):
        table_state(env.unwrapped.table)


def test_dict_mode_cannot_be_graded():
    env = gym.make("blackjack_env/Blackjack-v0", rules=RULES["vegas-inf"])
    env.reset(seed=0, options={"cards": "TS 6H 7C 8D"})
    state = table_state(env.unwrapped.table)
    with pytest.raises(ValueError, match="dict"):
        encode_state(state, RULES["vegas-inf"], "dict")
