"""One PPO policy for every seat: the parallel table through SuperSuit into SB3."""

import supersuit as ss
from stable_baselines3 import PPO

from blackjack_env.envs.multiagent import parallel_env

table = parallel_env(num_seats=3, rounds=5, obs_mode="vector")
vec = ss.pettingzoo_env_to_vec_env_v1(table)
vec = ss.concat_vec_envs_v1(vec, 4, num_cpus=0, base_class="stable_baselines3")
model = PPO("MultiInputPolicy", vec, n_steps=32, batch_size=64, n_epochs=1)
# no seed=: SuperSuit's VecEnv has no seed(); a real run: 100_000+
model.learn(2 * 12 * 32)
print(vec.num_envs, "seats trained by one policy")
