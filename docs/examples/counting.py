"""Card counting: a Hi-Lo counter that spreads its bets over 100-round sessions."""

import gymnasium as gym

import blackjack_env
from blackjack_env.agents.counting import BetSpread
from blackjack_env.agents.fixed import counting_agent

gym.register_envs(blackjack_env)

# a bet step before each round (actions 5..8 bet 1, 2, 4, 8 base bets),
# 100 rounds a session
env = gym.make("blackjack_env/BlackjackCounting-v0")
print(env.unwrapped.action_names)
agent = counting_agent(env, BetSpread(units=(1, 2, 4, 8), thresholds=(2.0, 3.0, 4.0)))

obs, info = env.reset(seed=7)
session, bets = 0.0, []
terminated = truncated = False
while not (terminated or truncated):
    action = agent.act(obs, info["action_mask"])
    if action >= 5:
        bets.append(env.unwrapped.action_names[action])
    obs, reward, terminated, truncated, info = env.step(action)
    session += reward
print(f"{info['round']} rounds, net {session:+.1f} base bets; bets placed: "
      f"{ {b: bets.count(b) for b in sorted(set(bets))} }")
env.close()
