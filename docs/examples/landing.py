import gymnasium as gym

import blackjack_env  # noqa: F401  (importing registers the ids)

env = gym.make("blackjack_env/Blackjack-v0", rules="vegas-strip")
obs, info = env.reset(seed=0)
obs, reward, terminated, truncated, info = env.step(0)  # 0 stand, 1 hit, 2 double ...
print(obs, reward, terminated, info["action_mask"])
