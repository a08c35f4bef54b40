"""The analysis-state encoding equals the env's own observation at every decision."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import blackjack_env  # noqa: F401
from blackjack_env.agents.obs import decode, encode_state, state_mask, table_state
from blackjack_env.engine import Phase, preset
from blackjack_env.engine.rulespace import held_out

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
RULES["held-out-7"] = held_out("v1")[7]  # a rule set of the default space (no hole card)
CASES = [(name, mode, False) for name, modes in MODES.items() for mode in modes]
# the rules carried in the observation (observe_rules=True): the features appended
CASES += [("vegas-inf", "vector", True), ("early-surrender-inf", "features", True),
          ("held-out-7", "features", True)]


@pytest.mark.parametrize(("name", "mode", "carry"), CASES)
def test_encode_state_matches_env_observation(name, mode, carry):
    """Random legal play for 400 rounds; at each learner decision the encoding of the
    table's DecisionState equals the env's observation and mask (the hand index of a
    split hand excepted: the state does not carry it, see blackjack_env.agents.obs), with
    the rule features when the env is made with ``observe_rules=True``."""
    rules = RULES[name]
    extra = {"observe_rules": True} if carry else {}
    env = gym.make("blackjack_env/Blackjack-v0", rules=rules, obs_mode=mode, **extra)
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
                mine = encode_state(state, rules, mode, observe_rules=carry)
                np.testing.assert_array_equal(state_mask(state, rules), mask)
                a, b = np.asarray(mine, dtype=np.float64), np.asarray(obs, dtype=np.float64)
                assert a.shape == b.shape
                if state.split:
                    index = {"multidiscrete": 7, "vector": 11, "features": 11}.get(mode)
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
