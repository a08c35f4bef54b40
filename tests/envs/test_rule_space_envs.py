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
from blackjack_env.envs.multiagent import BlackjackAECEnv, BlackjackParallelEnv
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


# ------------------------------------------------------------------ the batched env
def test_the_batched_env_draws_per_sub_env_at_every_reset() -> None:
    from blackjack_env.envs.vector import BlackjackVectorEnv
    from blackjack_env.envs.vector.random_legal import random_legal_actions

    space = RuleSpace(BASE, {"dealer_hits_soft_17": (False, True),
                             "surrender": ("none", "late", "early"),
                             "blackjack_payout": ("3:2", "6:5", "1:1"),
                             "double": ("any", "10-11"), "max_split_hands": (2, 3, 4)},
                      hold_out=5)
    for mode in ("NextStep", "SameStep"):
        env = BlackjackVectorEnv(64, rules=space, obs_mode="features", observe_rules=True,
                                 autoreset_mode=mode)
        n = fields.FEATURES_SIZE
        assert env.single_observation_space.shape == (n + RULES_SIZE,)
        obs, info = env.reset(seed=3)
        rng = np.random.default_rng(3)
        changed = 0
        resetting = np.zeros(64, dtype=bool)  # NextStep: sub-envs reset on this step
        for _ in range(30):
            index = info["rules_index"]
            assert info["_rules_index"].all()
            for k in range(64):
                rules = space.rules_at(int(index[k]))
                assert not space.is_held_out(rules)
                assert np.array_equal(obs[k, n:], rule_features(rules))
            assert env.observation_space.contains(obs)
            obs, _, term, trunc, info = env.step(random_legal_actions(rng, info["action_mask"]))
            done = term | trunc
            if mode == "SameStep":  # the new episode's rules at once; the others kept
                assert np.array_equal(info["rules_index"][~done], index[~done])
                final = info["final_obs"]
                for k in np.flatnonzero(done)[:5]:
                    ended = space.rules_at(int(index[k]))
                    assert np.array_equal(final[k, n:], rule_features(ended))
                changed += int(np.count_nonzero(info["rules_index"][done] != index[done]))
            else:  # the sub-envs that ended last step drew new rules on this one
                kept = ~resetting
                assert np.array_equal(info["rules_index"][kept], index[kept])
                changed += int(np.count_nonzero(info["rules_index"][resetting]
                                                != index[resetting]))
                resetting = done
        assert changed > 100  # fresh draws (of 108 rule sets, about 86 not held out)


def test_the_batched_env_is_deterministic_under_a_seed() -> None:
    from blackjack_env.envs.vector import BlackjackVectorEnv
    from blackjack_env.envs.vector.random_legal import random_legal_actions

    def run(seed: int) -> list:
        env = BlackjackVectorEnv(32, rules=small_space(), obs_mode="vector",
                                 observe_rules=True)
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = [obs.tobytes(), info["rules_index"].tobytes()]
        for _ in range(25):
            obs, reward, *_, info = env.step(random_legal_actions(rng, info["action_mask"]))
            out += [obs.tobytes(), reward.tobytes(), info["rules_index"].tobytes()]
        return out

    assert run(4) == run(4)
    assert run(4) != run(5)


def test_each_sub_env_plays_as_a_fixed_rules_env_of_its_rule_set() -> None:
    """Stacked cards: each sub-env's rewards and masks are those of a one-table batched
    env under its drawn rule set (fixed rules), dealt the same cards."""
    from blackjack_env.envs.vector import BlackjackVectorEnv
    from blackjack_env.envs.vector.random_legal import random_legal_actions
    from tests.envs.vector_helpers import CardIds

    space = default_space()
    n = 24
    env = BlackjackVectorEnv(n, rules=space, obs_mode="vector", observe_rules=True)
    rng = np.random.default_rng(8)
    for _ in range(3):
        cards = [CardIds(space.base, rng, 60).text() for _ in range(n)]
        _obs, info = env.reset(seed=int(rng.integers(1000)), options={"cards": cards})
        refs = [BlackjackVectorEnv(1, rules=space.rules_at(int(i)), obs_mode="vector")
                for i in info["rules_index"]]
        ref_info = [r.reset(seed=0, options={"cards": [c]})[1] for r, c in zip(refs, cards,
                                                                                 strict=True)]
        done = np.zeros(n, dtype=bool)
        while not done.all():
            mask = info["action_mask"]
            for k in np.flatnonzero(~done):
                assert np.array_equal(ref_info[k]["action_mask"][0], mask[k])
            actions = random_legal_actions(rng, mask)
            _obs, reward, term, trunc, info = env.step(np.where(done, 0, actions))
            for k in np.flatnonzero(~done):
                _, r_reward, r_term, _, ref_info[k] = refs[k].step(actions[k : k + 1])
                assert r_reward[0] == reward[k] and r_term[0] == term[k]
            done |= term | trunc


def test_the_batched_env_refuses_shoes_of_several_sizes() -> None:
    from blackjack_env.envs.vector import BlackjackVectorEnv

    space = RuleSpace(Rules(decks=2, insurance=False), {"decks": (2, 6)})
    BlackjackEnv(rules=space)  # the single env plays it
    with pytest.raises(ValueError, match=r"^rules: the numpy batched env plays one shoe size"):
        BlackjackVectorEnv(4, rules=space)
    same = RuleSpace(Rules(decks=2, insurance=False), {"penetration": Grid(0.5, 0.9, 0.2)})
    env = BlackjackVectorEnv(4, rules=same)
    env.reset(seed=0)


def test_make_vec_records_the_space_in_its_spec() -> None:
    envs = gym.make_vec("blackjack_env/Blackjack-v0", num_envs=4, rules=small_space(),
                        obs_mode="dict", observe_rules=True)
    obs, info = envs.reset(seed=0)
    assert obs["rules"].shape == (4, RULES_SIZE) and "rules_index" in info
    data = json.loads(envs.spec.to_json())
    assert RuleSpace.from_dict(data["kwargs"]["rules"]) == small_space()
