"""Tianshou: DQN trains on the single env through Tianshou's own collectors and trainer.

Tianshou stacks the info dicts of its envs into one ``Batch``, which cannot hold the
variable-length card tuples of the default info: ``info_cards=False`` gives the numeric,
fixed-shape info it needs. Installs nothing: skipped without tianshou
(``pytest -m integration``).
"""

from __future__ import annotations

import math

import pytest

pytest.importorskip("tianshou")
pytest.importorskip("torch")
import gymnasium as gym
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import blackjack_env  # noqa: F401  (registers the ids)

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("env_id", ["blackjack_env/BlackjackVector-v0",
                                    "blackjack_env/Blackjack-v0"])
def test_dqn_trains_with_numeric_info(env_id: str) -> None:
    def make() -> gym.Env:
        return gym.make(env_id, info_cards=False)

    train_envs = DummyVectorEnv([make for _ in range(4)])
    test_envs = DummyVectorEnv([make for _ in range(2)])
    env = make()
    torch.manual_seed(0)
    net = Net(state_shape=env.observation_space.shape, action_shape=env.action_space.n,
              hidden_sizes=(32,))
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                     observation_space=env.observation_space,
                                     eps_training=0.2)
    algo = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), target_update_freq=50)
    train = Collector[CollectStats](algo, train_envs, VectorReplayBuffer(2000, 4),
                                    exploration_noise=True)
    test = Collector[CollectStats](algo, test_envs)
    result = algo.run_training(OffPolicyTrainerParams(
        training_collector=train, test_collector=test, max_epochs=1, epoch_num_steps=400,
        collection_step_num_env_steps=20, test_step_num_episodes=20, batch_size=32,
        update_step_num_gradient_steps_per_sample=0.1))
    assert math.isfinite(result.best_reward)
    assert train_envs.get_env_attr("settings")[0].info_cards is False
