"""Grade your own policies on the benchmark: a Python function, then an SB3 model."""

import torch
from stable_baselines3 import PPO

from blackjack_env.bench import grade, task

# 1. A function of the observation. v1-play is Gymnasium's Blackjack-v1 game; its
#    first observation mode is Blackjack-v1's (player total, dealer upcard, usable ace),
#    and its actions are 0 stand, 1 hit.


def hit_below_17(obs):
    total, _upcard, _usable_ace = obs
    return int(total < 17)


result = grade("v1-play", hit_below_17)
print(f"hit below 17: exact regret {result['score']:.5f} per unit bet "
      f"(its return {result['return']:+.5f}, "
      f"the optimum's {result['reference_return']:+.5f})")

# 2. A stable-baselines3 model, trained briefly on the task's own env and saved.
torch.set_num_threads(1)
env = task("v1-play").make_env("multidiscrete")
model = PPO("MlpPolicy", env, n_steps=512, batch_size=128, seed=0, device="cpu",
            verbose=0)
model.learn(total_timesteps=4096)
model.save("ppo-v1-play.zip")

result = grade("v1-play", "ppo-v1-play.zip")
print(f"PPO after 4,096 steps ({result['obs_mode']} observations): exact regret "
      f"{result['score']:.5f} per unit bet")
