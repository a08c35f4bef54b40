"""An rgb_array frame (needs pygame: pip install -e ".[render]")."""

import os

import gymnasium as gym

import blackjack_env

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # no window needed for rgb_array
gym.register_envs(blackjack_env)

env = gym.make("blackjack_env/Blackjack-v0", render_mode="rgb_array", num_seats=3,
               seat=1, others="basic")
env.reset(seed=3, options={"cards": "TS 8S 9H 6D 8H 8D 5C TC"})
env.step(3)  # split the eights
frame = env.render()
print(frame.shape, frame.dtype)  # (height, width, 3) uint8
env.close()
