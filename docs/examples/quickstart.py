"""Quick start: make the env, script a deal, step, read the legal actions, render."""

import gymnasium as gym

import blackjack_env

gym.register_envs(blackjack_env)  # importing registers the ids; this tells linters why

env = gym.make("blackjack_env/Blackjack-v0", rules="vegas-strip", render_mode="ansi")
# optional: script the deal (casino order: you, the dealer's upcard, you, the hole card)
obs, info = env.reset(seed=0, options={"cards": "8S 6H 8D TC"})
print(obs)                          # [phase, total, upcard, soft, double, ...]
print(info["action_mask"])          # 1 = legal: stand, hit, double, split, surrender
print(env.unwrapped.action_names)   # what each action index means
print(env.render())                 # the table as text

obs, reward, terminated, truncated, info = env.step(3)  # split the eights
print(obs, reward, terminated)

# play the round out with a random legal action (env.unwrapped.action_masks() for
# sb3-contrib's MaskablePPO gives the same mask as booleans)
env.action_space.seed(0)  # sample() draws from the space's own generator
while not (terminated or truncated):
    action = env.action_space.sample(mask=info["action_mask"])
    obs, reward, terminated, truncated, info = env.step(action)
print("round result in base bets:", reward, info["settlement"]["outcomes"])
env.close()
