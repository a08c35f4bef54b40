"""Short stable-baselines3 / sb3-contrib runs on the env: they must train without error.

These check integration (spaces, masks, vectorised wrappers), not learning quality.
"""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.envs import BlackjackEnv

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")


@pytest.mark.parametrize("mode", ["multidiscrete", "vector", "dict"])
def test_ppo_trains_on_default_env(mode: str) -> None:
    from stable_baselines3 import PPO

    policy = "MultiInputPolicy" if mode == "dict" else "MlpPolicy"
    env = BlackjackEnv(obs_mode=mode)
    model = PPO(policy, env, n_steps=128, batch_size=64, n_epochs=2, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, deterministic=True)
    assert env.action_space.contains(int(action))


def test_maskable_ppo_trains_and_respects_masks() -> None:
    from sb3_contrib import MaskablePPO

    env = BlackjackEnv(insurance_decisions=True, bet_sizes=(1, 2, 4), bankroll=1000,
                       rounds_per_episode=20)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=2, seed=0,
                        device="cpu")
    model.learn(total_timesteps=256)
    obs, info = env.reset(seed=1)
    for _ in range(200):
        mask = env.action_masks()
        action, _ = model.predict(obs, action_masks=mask, deterministic=False)
        assert mask[int(action)]
        obs, _, terminated, truncated, info = env.step(int(action))
        assert not info["illegal_action"]
        if terminated or truncated:
            obs, info = env.reset()


def test_maskable_ppo_in_subproc_vec_env() -> None:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vec = make_vec_env(BlackjackEnv, n_envs=2, seed=0, vec_env_cls=SubprocVecEnv,
                       vec_env_kwargs={"start_method": "forkserver"})
    try:
        masks = np.stack(vec.env_method("action_masks"))
        assert masks.shape == (2, 5) and masks.dtype == bool
        model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0,
                            device="cpu")
        model.learn(total_timesteps=256)
    finally:
        vec.close()
