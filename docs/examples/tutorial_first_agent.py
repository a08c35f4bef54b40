"""Train and grade a first agent: tabular Q-learning on BlackjackSuttonBarto-v0,
graded by its exact regret (no simulation noise)."""

import os
from collections import defaultdict

import gymnasium as gym
import numpy as np

import blackjack_env
from blackjack_env import preset
from blackjack_env.analysis import evaluate_policy, solve

gym.register_envs(blackjack_env)
HANDS = int(os.environ.get("BJ_TUTORIAL_HANDS", 200_000))  # tests: 20_000

# stand or hit; the observation is (total, dealer upcard, usable ace)
env = gym.make("blackjack_env/BlackjackSuttonBarto-v0")
q = defaultdict(lambda: np.zeros(2))
rng = np.random.default_rng(0)
obs, info = env.reset(seed=0)
for hand in range(HANDS):
    done = False
    while not done:
        epsilon = max(0.05, 1.0 - hand / (HANDS / 2))
        explore = rng.random() < epsilon
        action = int(rng.integers(2)) if explore else int(np.argmax(q[obs]))
        nxt, reward, terminated, truncated, info = env.step(action)
        target = reward if terminated else reward + np.max(q[nxt])
        q[obs][action] += 0.01 * (target - q[obs][action])
        obs, done = nxt, terminated or truncated
    obs, info = env.reset()

# a dict {observation: action} is a policy the exact analysis accepts
policy = {state: int(np.argmax(values)) for state, values in q.items()}
rules = preset("sutton-barto")  # the id's rules (an infinite deck)
optimum = solve(rules).expected_return
mine = evaluate_policy(rules, policy)
print(f"{HANDS:,} hands: exact return {mine:+.5f}, optimum {optimum:+.5f}, "
      f"regret {optimum - mine:.5f}")
