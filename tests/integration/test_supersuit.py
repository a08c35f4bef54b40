"""SuperSuit: the parallel table becomes a stable-baselines3 VecEnv, and PPO trains on it.

Installs nothing: skipped without supersuit or stable-baselines3 (``pytest -m integration``).
"""

from __future__ import annotations

import pytest

pytest.importorskip("supersuit")
pytest.importorskip("stable_baselines3")
import supersuit as ss
from stable_baselines3 import PPO

from blackjack_env.envs.multiagent import parallel_env

pytestmark = pytest.mark.integration


def test_supersuit_vec_env_trains_ppo() -> None:
    env = parallel_env(num_seats=3, rounds=5, obs_mode="vector")
    vec = ss.pettingzoo_env_to_vec_env_v1(env)
    vec = ss.concat_vec_envs_v1(vec, 4, num_cpus=0, base_class="stable_baselines3")
    assert vec.num_envs == 12  # 4 tables x 3 seats
    model = PPO("MultiInputPolicy", vec, n_steps=32, batch_size=64, n_epochs=1)
    # (no seed=: SuperSuit's ConcatVecEnv has no seed() for SB3 to call)
    model.learn(total_timesteps=2 * 12 * 32)
    obs = vec.reset()
    actions, _ = model.predict(obs)
    _, rewards, _, _ = vec.step(actions)
    assert rewards.shape == (12,)
