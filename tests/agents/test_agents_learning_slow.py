"""The learning targets, measured exactly (slow: run with ``pytest -m slow``)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import blackjack_env  # noqa: F401
from blackjack_env.agents import QLearningAgent
from blackjack_env.agents.grading import exact_grade
from blackjack_env.agents.sb3 import SB3Config, train_sb3
from blackjack_env.agents.training import train_tabular
from blackjack_env.engine import preset

pytestmark = pytest.mark.slow


def test_main_budget_q_learning_regret_at_most_one_cent():
    """scripts/main.py's default run (Q-learning, sutton-barto, 1M rounds, seed 1)."""
    rules = preset("sutton-barto")
    env = gym.make("blackjack_env/Blackjack-v0", rules=rules, obs_mode="tuple")
    agent = QLearningAgent(2, seed=1)
    train_tabular(agent, env, 1_000_000, seed=1, progress=False)
    assert exact_grade(agent, rules, "tuple")["regret"] <= 0.01


def test_maskable_ppo_on_infinite_vegas_strip(tmp_path):
    """300k timesteps with the default settings reach regret <= 0.02 (the issue asks for
    it within 2M; measured 0.011 at 300k and 0.0057 at 2M with seed 1)."""
    import torch

    torch.set_num_threads(1)
    rules = preset("vegas-strip", decks=None)
    config = SB3Config(algo="maskable-ppo", env_kwargs={"rules": rules}, timesteps=300_000,
                       seed=1, eval_freq=100_000, eval_episodes=200)
    agent, finished = train_sb3(config, tmp_path, progress=False)
    assert finished
    assert exact_grade(agent, rules)["regret"] <= 0.02
