"""Rule spaces in the envs: the settings' checks, observations that carry the rules, and
a rule set drawn at each reset (domain randomization) in the single and multi-agent envs."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import blackjack_env  # noqa: F401  (registers the ids)
from blackjack_env.engine import Grid, Rules, RuleSpace, default_space, preset
from blackjack_env.envs import BlackjackEnv, EnvSettings
from blackjack_env.envs.multiagent import BlackjackAECEnv
from blackjack_env.envs.parallel import BlackjackParallelEnv
from blackjack_env.envs.view import fields
from blackjack_env.envs.view.fields import RULES_SIZE, rule_features

BASE = Rules(decks=None, penetration=None, insurance=False)


def small_space() -> RuleSpace:
    return RuleSpace(BASE, {"dealer_hits_soft_17": (False, True),
                            "surrender": ("none", "late"), "max_split_hands": (2, 3)})


# ------------------------------------------------------------------ settings
@pytest.mark.parametrize("mode", ["tuple", "multidiscrete"])
def test_observe_rules_is_refused_where_it_cannot_be_carried(mode: str) -> None:
    message = (f"observe_rules=True cannot be carried by obs_mode='{mode}'; the modes that "
               f"carry the rule features are 'vector', 'features', 'dict'")
    for make in (lambda: EnvSettings.single(obs_mode=mode, observe_rules=True),
                 lambda: EnvSettings.batched(obs_mode=mode, observe_rules=True)):
        with pytest.raises(ValueError) as err:
            make()
        assert str(err.value) == message
    if mode == "multidiscrete":
        with pytest.raises(ValueError, match=r"^observe_rules=True cannot be carried"):
            BlackjackAECEnv(observe_rules=True)
    with pytest.raises(ValueError, match=r"^observe_rules='yes' must be True or False"):
        EnvSettings.single(obs_mode="vector", observe_rules="yes")


def test_a_rule_space_in_the_settings() -> None:
    space = small_space()
    settings = EnvSettings.single(rules=space, num_seats=2, obs_mode="vector")
    assert settings.rule_space is not None and settings.rule_space.base.seats == 2
    assert settings.rules == settings.rule_space.rules_at(0) and settings.rules.seats == 2
    assert settings.max_hands == 3
    # read from its to_dict, as a spec records it
    again = EnvSettings.single(rules=json.loads(json.dumps(space.to_dict())))
    assert again.rule_space == space
    # decks applies to every rule set; it cannot also be an axis
    assert EnvSettings.single(rules=space, decks=2).rule_space.base.decks == 2  # type: ignore[union-attr]
    varied = RuleSpace(Rules(decks=6), {"decks": (2, 6)})
    with pytest.raises(ValueError, match=r"^decks=4: decks is an axis of the rule space"):
        EnvSettings.single(rules=varied, decks=4)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(rules=RuleSpace(BASE, {"max_bet": (100, 500)})),
         r"^rules: the rule space 'custom' varies max_bet, which an env keeps fixed"),
        (dict(rules=RuleSpace(preset("vegas-strip"), {"surrender": ("none", "late")}),
              insurance_decisions=True, obs_mode="vector"),
         None),  # every rule set insures: accepted
        (dict(rules=RuleSpace(BASE, {"surrender": ("none", "late")}),
              insurance_decisions=True),
         r"^insurance_decisions=True needs rules that offer insurance, in every rule set"),
        (dict(rules=RuleSpace(BASE, {"surrender": ("none", "early")}), obs_mode="tuple"),
         r"^obs_mode='tuple' cannot show a bet step or a pre-peek decision"),
        (dict(rules={"base": BASE.to_dict(), "axes": {"surrender": ["never"]}}),
         r"^RuleSpace axis 'surrender': surrender='never' is not allowed"),
    ],
)
def test_what_the_settings_refuse_under_a_space(kwargs: dict, message: str | None) -> None:
    if message is None:
        EnvSettings.single(**kwargs)
        return
    with pytest.raises(ValueError, match=message) as err:
        EnvSettings.single(**kwargs)
    assert "\n" not in str(err.value)


def test_the_batched_settings_refuse_a_space_that_raises_bets() -> None:
    space = RuleSpace(BASE, {"bet_raising": (False, True)})
    EnvSettings.single(rules=space)  # the single env plays it (the learner never raises)
    with pytest.raises(ValueError, match=r"^rules with bet_raising=True are not supported"):
        EnvSettings.batched(rules=space)


# ------------------------------------------------------------------ observations
@pytest.mark.parametrize(("mode", "size"), [("vector", fields.VECTOR_SIZE),
                                            ("features", fields.FEATURES_SIZE)])
def test_flat_observations_end_with_the_rule_features(mode: str, size: int) -> None:
    env = gym.make("blackjack_env/Blackjack-v0", obs_mode=mode, observe_rules=True)
    plain = gym.make("blackjack_env/Blackjack-v0", obs_mode=mode)
    assert env.observation_space.shape == (size + RULES_SIZE,)
    features = rule_features(preset("vegas-strip"))
    obs, info = env.reset(seed=4)
    ref, _ = plain.reset(seed=4)
    for _ in range(30):
        assert env.observation_space.contains(obs)
        assert np.array_equal(obs[:size], ref) and np.array_equal(obs[size:], features)
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, _, term, trunc, info = env.step(action)
        ref, *_ = plain.step(action)
        if term or trunc:
            obs, info = env.reset()
            ref, _ = plain.reset()


def test_the_dict_observation_has_the_rules_key() -> None:
    env = gym.make("blackjack_env/Blackjack-v0", obs_mode="dict", observe_rules=True,
                   rules=small_space())
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert np.array_equal(obs["rules"], rule_features(env.unwrapped.rules))
    obs["rules"][:] = 0  # the observation's own copy
    assert rule_features(env.unwrapped.rules).any()


# ------------------------------------------------------------------ domain randomization
def test_each_reset_draws_a_rule_set_from_the_space() -> None:
    space = default_space()
    env = gym.make("blackjack_env/Blackjack-v0", rules=space, obs_mode="vector",
                   observe_rules=True)
    n = fields.VECTOR_SIZE
    seen = []
    obs, info = env.reset(seed=123)
    for _ in range(60):
        rules = env.unwrapped.rules
        assert space.contains(rules) and not space.is_held_out(rules)
        assert info["rules"] == rules.to_dict() and Rules.from_dict(info["rules"]) == rules
        assert space.rules_at(info["rules_index"]) == rules
        assert np.array_equal(obs[n:], rule_features(rules))
        seen.append(info["rules_index"])
        terminated = truncated = False
        while not (terminated or truncated):
            action = int(np.flatnonzero(info["action_mask"])[-1])
            obs, _, terminated, truncated, step_info = env.step(action)
            assert np.array_equal(obs[n:], rule_features(rules))  # the episode's rules
            info = step_info
        obs, info = env.reset()
    assert len(set(seen)) > 50  # 60 draws from 4,499 rule sets


def test_draws_are_deterministic_under_a_seed() -> None:
    def run(seed: int) -> list:
        env = gym.make("blackjack_env/Blackjack-v0", rules=default_space(), obs_mode="vector",
                       observe_rules=True)
        out = []
        obs, info = env.reset(seed=seed)
        for _ in range(40):
            action = int(np.flatnonzero(info["action_mask"])[-1])
            obs, reward, term, trunc, info = env.step(action)
            out.append((obs.tobytes(), reward, info.get("rules_index")))
            if term or trunc:
                obs, info = env.reset()
                out.append(("reset", info["rules_index"], obs.tobytes()))
        return out

    assert run(9) == run(9)
    assert run(9) != run(10)


def test_the_env_checker_passes_and_the_spec_rebuilds_the_env() -> None:
    env = gym.make("blackjack_env/Blackjack-v0", rules=default_space(), obs_mode="dict",
                   observe_rules=True)
    check_env(env.unwrapped)
    text = env.spec.to_json()
    assert json.loads(text)["kwargs"]["rules"]["name"] == "default-v1"
    again = gym.make(gym.envs.registration.EnvSpec.from_json(text))
    assert again.unwrapped.rule_space == default_space()
    a, _ = env.reset(seed=5)
    b, _ = again.reset(seed=5)
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_stacked_cards_under_a_space() -> None:
    space = RuleSpace(Rules(decks=2, insurance=False), {"penetration": Grid(0.5, 0.9, 0.2),
                                                        "decks": (1, 2)})
    env = BlackjackEnv(rules=space, obs_mode="vector")
    _obs, info = env.reset(seed=1, options={"cards": "TS 7D 9H KC"})
    assert [str(c) for c in info["hands"][0]] == ["TS", "9H"]
    assert env.rules.decks in (1, 2)
    # two aces of spades cannot come from the space's smallest shoe (one deck)
    with pytest.raises(ValueError, match="AS"):
        env.reset(options={"cards": "AS AS"})


def test_the_multi_agent_envs_draw_and_observe_rules() -> None:
    space = small_space()
    env = BlackjackAECEnv(rules=space, num_seats=2, obs_mode="vector", observe_rules=True)
    env.reset(seed=3)
    agent = env.agent_selection
    rules = env.rules
    assert space.replace_base(seats=2).contains(rules)
    assert env.infos[agent]["rules"] == rules.to_dict()
    obs = env.observe(agent)["observation"]
    assert obs.shape == (fields.VECTOR_SIZE + RULES_SIZE,)
    assert np.array_equal(obs[fields.VECTOR_SIZE :], rule_features(rules))
    par = BlackjackParallelEnv(rules=space, num_seats=2, obs_mode="dict", observe_rules=True)
    observations, infos = par.reset(seed=3)
    for agent, obs in observations.items():
        assert np.array_equal(obs["observation"]["rules"], rule_features(par.aec_env.rules))
        assert infos[agent]["rules"] == par.aec_env.rules.to_dict()
    drawn = set()
    for _ in range(20):
        env.reset()
        drawn.add(env.rules)
    assert len(drawn) > 3  # 8 rule sets
