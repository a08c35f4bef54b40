"""4096 tables stepped at once in numpy, with random legal actions."""

import gymnasium as gym
import numpy as np

import blackjack_env
from blackjack_env.envs.vector import random_legal_actions

gym.register_envs(blackjack_env)

envs = gym.make_vec("blackjack_env/Blackjack-v0", num_envs=4096, obs_mode="vector")
obs, info = envs.reset(seed=0)
rng = np.random.default_rng(0)
rounds, total = 0, 0.0
for _ in range(50):
    # one random legal action per table
    actions = random_legal_actions(rng, info["action_mask"])
    obs, rewards, terminated, truncated, info = envs.step(actions)
    rounds += int(terminated.sum())
    total += float(rewards.sum())
print(obs.shape, f"{rounds} rounds settled, mean reward {total / rounds:+.3f}")
envs.close()

# three learner seats at each of 2 tables: sub-env t * 3 + s is seat s of table t
envs = gym.make_vec("blackjack_env/Blackjack-v0", num_envs=6, seats_per_table=3)
obs, info = envs.reset(seed=0)
print("table", info["table"], "seat", info["seat"], "acts next", info["active"])
envs.close()
