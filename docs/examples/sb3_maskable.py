"""MaskablePPO (sb3-contrib) on 64 batched tables, then graded exactly."""
# requires: sb3_contrib
# marker: integration

from sb3_contrib import MaskablePPO

from blackjack_env import preset
from blackjack_env.agents.grading import exact_grade
from blackjack_env.agents.sb3 import SB3Agent
from blackjack_env.envs.sb3_vec import SB3VecEnv

rules = preset("vegas-strip", decks=None)  # infinite deck: the exact grade applies
venv = SB3VecEnv(num_envs=64, rules=rules, obs_mode="vector")  # has action_masks()
model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=256, seed=0, device="cpu")
model.learn(4_096)  # a real run: 1_000_000 or more (blackjack-train does this)

grade = exact_grade(SB3Agent(model, "maskable-ppo", obs_mode="vector"), rules)
print(f"exact return {grade['exact_return']:+.4f}, optimum {grade['optimal_return']:+.4f}, "
      f"regret {grade['regret']:.4f}")
