"""Deep RL with stable-baselines3: MaskablePPO on batched tables, one torch thread,
graded exactly against the optimal strategy."""

import os

import torch
from sb3_contrib import MaskablePPO

from blackjack_env import preset
from blackjack_env.agents.grading import exact_grade
from blackjack_env.agents.sb3 import SB3Agent
from blackjack_env.envs.vector.sb3 import SB3VecEnv

STEPS = int(os.environ.get("BJ_TUTORIAL_STEPS", 2_000_000))  # the tests run 4_096
torch.set_num_threads(1)  # small networks: more threads only spin (see the FAQ)

rules = preset("vegas-strip", decks=None)  # infinite deck: the exact grade applies
venv = SB3VecEnv(num_envs=64, rules=rules, obs_mode="vector", seed=0)
masks = venv.action_masks()  # MaskablePPO asks for these before every step
print(f"{venv.num_envs} tables, {masks.shape[1]} actions, legal now: {masks[0].sum()}")

model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=256, seed=0, device="cpu")
model.learn(STEPS)

grade = exact_grade(SB3Agent(model, "maskable-ppo", obs_mode="vector"), rules)
print(f"{STEPS:,} steps: exact return {grade['exact_return']:+.4f}, "
      f"optimum {grade['optimal_return']:+.4f}, regret {grade['regret']:.4f}")
