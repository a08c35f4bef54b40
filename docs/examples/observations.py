"""The same deal seen in each observation mode."""

import gymnasium as gym

import blackjack_env

gym.register_envs(blackjack_env)

for mode in ("tuple", "multidiscrete", "vector", "dict"):
    env = gym.make("blackjack_env/Blackjack-v0", obs_mode=mode)
    obs, info = env.reset(seed=1, options={"cards": "AS 6H 7D TC"})  # soft 18 v 6
    print(mode, env.observation_space)
    print("   ", obs)
    assert env.observation_space.contains(obs)
    env.close()
