"""Tianshou's vector env over the single env (numeric info for its Batch)."""

import gymnasium as gym
from tianshou.env import DummyVectorEnv

import blackjack_env  # noqa: F401  (registers the ids)

# Tianshou stacks the info dicts of all envs: info_cards=False keeps them numeric
envs = DummyVectorEnv(
    [lambda: gym.make("blackjack_env/BlackjackVector-v0", info_cards=False)
     for _ in range(8)])
obs, info = envs.reset(seed=0)
print(obs.shape, sorted(info[0])[:4])  # one info dict per env
# then Tianshou's DQN / Collector / OffPolicyTrainerParams as its documentation shows
# (tests/integration/test_tianshou.py trains DQN this way)
envs.close()
