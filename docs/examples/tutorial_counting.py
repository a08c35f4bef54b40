"""Counting and bet sizing: Hi-Lo bet spreads against flat-betting basic strategy,
per round and per unit wagered, with 95% intervals."""

import math
import os

import gymnasium as gym
import numpy as np

import blackjack_env
from blackjack_env.agents.counting import BetSpread
from blackjack_env.agents.fixed import counting_agent

gym.register_envs(blackjack_env)
ROUNDS = int(os.environ.get("BJ_TUTORIAL_ROUNDS", 1_000_000))  # the tests run 6_000

SPREADS = {
    "flat bet 1 (basic strategy)": BetSpread(units=(1,), thresholds=()),
    "Hi-Lo ramp 1-2-4-8 at +2/+3/+4": BetSpread(units=(1, 2, 4, 8),
                                                thresholds=(2, 3, 4)),
    "jump 1 -> 8 at +1": BetSpread(units=(1, 8), thresholds=(1,)),
}


def play(spread, rounds, seed=0):
    """Net and bet of each round: 6-deck vegas-strip, 100-round sessions."""
    env = gym.make("blackjack_env/BlackjackCounting-v0")  # bet 1, 2, 4 or 8 each round
    names = env.unwrapped.action_names  # STAND .. SURRENDER, BET_1 .. BET_8
    agent = counting_agent(env, spread)
    nets, bets = np.zeros(rounds), np.zeros(rounds)
    obs, info = env.reset(seed=seed)
    i, net = 0, 0.0
    while i < rounds:
        action = agent.act(obs, info["action_mask"])
        if names[action].startswith("BET_"):  # the bet step opens the round
            bets[i] = int(names[action][4:])
        obs, reward, terminated, truncated, info = env.step(action)
        net += reward
        if info.get("settlement") is not None:  # the round is settled
            nets[i], net, i = net, 0.0, i + 1
        if terminated or truncated:
            obs, info = env.reset()
    return nets, bets


print(f"{ROUNDS:,} rounds each; 95% intervals")
for name, spread in SPREADS.items():
    nets, bets = play(spread, ROUNDS)
    per_round = nets.mean()
    half = 1.96 * nets.std(ddof=1) / math.sqrt(ROUNDS)
    per_unit = nets.sum() / bets.sum()  # a ratio: its interval by the delta method
    resid = nets - per_unit * bets
    half_unit = 1.96 * resid.std(ddof=1) / math.sqrt(ROUNDS) / bets.mean()
    print(f"{name}\n    per round {per_round:+.4f} ± {half:.4f}   per unit wagered "
          f"{per_unit:+.4f} ± {half_unit:.4f}   mean bet {bets.mean():.2f}")
