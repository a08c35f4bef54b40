"""Basic usage: the Gymnasium loop, with the legal actions as a mask."""

import gymnasium as gym

import blackjack_env

gym.register_envs(blackjack_env)  # importing registers the ids; this tells linters why

env = gym.make("blackjack_env/Blackjack-v0")  # Vegas Strip rules, one seat, 6 decks
print(env.action_space, env.unwrapped.action_names)

obs, info = env.reset(seed=42)
env.action_space.seed(42)  # the random actions below draw from the space's own seed
total = 0.0
for _ in range(1_000):
    mask = info["action_mask"]  # 1 = legal now (int8); an illegal action is mapped
    action = env.action_space.sample(mask=mask)  # your agent goes here
    obs, reward, terminated, truncated, info = env.step(action)
    total += reward
    if terminated or truncated:  # a round is an episode: start the next one
        obs, info = env.reset()
print(f"1,000 random legal steps: {total:+.1f} base bets")
env.close()
