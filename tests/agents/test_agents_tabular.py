"""Tabular learners: masking, persistence, and learning on sutton-barto graded exactly."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import blackjack_env  # noqa: F401
from blackjack_env.agents import (
    MonteCarloAgent,
    QLearningAgent,
    TabularAgent,
    legal_argmax,
    obs_key,
)
from blackjack_env.agents.grading import exact_grade
from blackjack_env.agents.training import train_tabular
from blackjack_env.engine import preset

SB = preset("sutton-barto")


def sb_env():
    return gym.make("blackjack_env/Blackjack-v0", rules=SB, obs_mode="tuple")


def test_q_learning_reaches_small_regret_on_sutton_barto():
    """150k seeded rounds: the greedy policy's exact regret is at most 0.01.

    Reference points (exact): always stand has regret 0.140, hit below 12 0.059,
    dealer-style play (hit below 17) 0.033; a learner that is broken in any way
    that matters lands far above the 0.01 bound.
    """
    agent = QLearningAgent(2, seed=1)
    train_tabular(agent, sb_env(), 150_000, seed=1, progress=False)
    grade = exact_grade(agent, SB, "tuple")
    assert grade is not None
    assert grade["regret"] <= 0.01, grade


def test_monte_carlo_control_learns():
    """First-visit MC control ends well below dealer-style play's regret (0.033) in 100k rounds."""
    agent = MonteCarloAgent(2, seed=3)
    train_tabular(agent, sb_env(), 100_000, seed=3, progress=False)
    grade = exact_grade(agent, SB, "tuple")
    assert grade is not None and grade["regret"] < 0.025, grade


def test_greedy_and_exploring_actions_respect_the_mask():
    agent = QLearningAgent(5, seed=0, obs_mode="multidiscrete")
    key = (0, 16, 10, 0, 1, 0, 1, 0, 5)
    agent.q[key] = np.array([0.0, -0.1, 5.0, 9.0, -0.5])  # SPLIT (3) best but illegal
    agent.visits[key] = np.ones(5, dtype=np.int64)
    mask = np.array([1, 1, 1, 0, 1], dtype=np.int8)
    assert agent.act(np.array(key), mask) == 2
    seen = {agent._explore(key, mask, 1.0) for _ in range(300)}
    assert seen == {0, 1, 2, 4}
    assert {agent._explore(key, mask, 0.0) for _ in range(20)} == {2}
    # an unseen state plays the lowest legal action
    assert agent.act(np.array([0, 5, 2, 0, 0, 0, 0, 0, 5]), np.array([0, 1, 0, 0, 0])) == 1


def test_legal_argmax_and_mask_errors():
    assert legal_argmax(np.array([3.0, 1.0, 2.0]), np.array([0, 1, 1])) == 2
    assert legal_argmax(np.array([1.0, 1.0]), None) == 0
    with pytest.raises(ValueError, match="allows no action"):
        legal_argmax(np.array([1.0, 2.0]), np.array([0, 0]))
    with pytest.raises(ValueError, match="shape"):
        legal_argmax(np.array([1.0, 2.0]), np.array([1, 1, 1]))


def test_obs_key_accepts_discrete_and_refuses_dict_and_vector():
    assert obs_key((12, 10, 0)) == (12, 10, 0)
    assert obs_key(np.array([1, 2, 3])) == (1, 2, 3)
    assert obs_key(np.int64(4)) == (4,)
    with pytest.raises(ValueError, match="dict"):
        obs_key({"phase": 0})
    with pytest.raises(ValueError, match="vector"):
        obs_key(np.array([0.25, 0.5], dtype=np.float32))


@pytest.mark.parametrize("klass", [QLearningAgent, MonteCarloAgent])
def test_save_load_round_trip_keeps_table_counts_and_generator(tmp_path, klass):
    env = sb_env()
    agent = klass(2, seed=5, epsilon_end=0.1, explore_fraction=0.3)
    train_tabular(agent, env, 3_000, seed=5, progress=False)
    path = agent.save(tmp_path / "model")
    assert path.suffix == ".npz"
    with np.load(path, allow_pickle=False) as data:  # plain arrays, no pickle
        assert set(data.files) == {"keys", "q", "visits", "meta"}
    again = TabularAgent.load(path)
    assert type(again) is klass
    assert again.episodes_done == 3_000
    assert again.hyperparameters() == agent.hyperparameters()
    assert set(again.q) == set(agent.q)
    for key in agent.q:
        np.testing.assert_array_equal(again.q[key], agent.q[key])
        np.testing.assert_array_equal(again.visits[key], agent.visits[key])
    # the exploration generator continues where it stopped: same continuation
    env_a, env_b = sb_env(), sb_env()
    train_tabular(agent, env_a, 4_000, seed=9, progress=False)
    train_tabular(again, env_b, 4_000, seed=9, progress=False)
    for key in agent.q:
        np.testing.assert_array_equal(again.q[key], agent.q[key])


def test_same_seed_same_table():
    a, b = QLearningAgent(2, seed=2), QLearningAgent(2, seed=2)
    train_tabular(a, sb_env(), 2_000, seed=4, progress=False)
    train_tabular(b, sb_env(), 2_000, seed=4, progress=False)
    assert set(a.q) == set(b.q)
    assert all(np.array_equal(a.q[k], b.q[k]) for k in a.q)


def test_learns_on_the_full_action_space_with_masks():
    """On vegas-strip (5 actions, multidiscrete) training runs and never plays an illegal action."""
    env = gym.make("blackjack_env/Blackjack-v0", rules=preset("vegas-strip", decks=None),
                   illegal_action="raise")
    agent = MonteCarloAgent(5, seed=0, obs_mode="multidiscrete")
    train_tabular(agent, env, 3_000, seed=0, progress=False)  # "raise" would fail loudly
    assert agent.episodes_done == 3_000


def test_bad_hyperparameters_are_refused():
    with pytest.raises(ValueError, match="epsilon_start"):
        QLearningAgent(2, epsilon_start=1.5)
    with pytest.raises(ValueError, match="lr="):
        QLearningAgent(2, lr=0.0)
    with pytest.raises(ValueError, match="n_actions"):
        MonteCarloAgent(0)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "truncated"),
        (b"PK\x03\x04 not really a zip", "truncated"),
        (bytes(range(256)) * 8, "not a NumPy .npz archive"),
        ("foreign", "lacks the arrays meta"),
        ("no-format", "lacks the format"),
    ],
)
def test_load_refuses_a_file_that_is_not_a_model(tmp_path, content, words):
    path = tmp_path / "model.npz"
    if content == "foreign":
        np.savez(path, weights=np.arange(3))
    elif content == "no-format":
        np.savez(path, keys=np.zeros((0, 3)), q=np.zeros((0, 2)), visits=np.zeros((0, 2)),
                 meta=np.array('{"algo": "q-learning"}'))
    else:
        path.write_bytes(content)
    with pytest.raises(ValueError, match="not a tabular model") as info:
        TabularAgent.load(path)
    assert str(path) in str(info.value) and words in str(info.value)


def test_save_is_whole_or_not_at_all(tmp_path):
    agent = QLearningAgent(2, seed=1)
    train_tabular(agent, sb_env(), 300, seed=1, progress=False)
    path = agent.save(tmp_path / "model.npz")
    assert [p.name for p in tmp_path.iterdir()] == ["model.npz"]  # no temporary left behind
    again = TabularAgent.load(path)
    assert again.episodes_done == 300 and again.q.keys() == agent.q.keys()
