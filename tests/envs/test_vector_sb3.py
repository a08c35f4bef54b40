"""The stable-baselines3 adapter: SB3 and MaskablePPO train on the batched tables."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import VecMonitor

from blackjack_env.envs.codes import BatchPhase
from blackjack_env.envs.vector.sb3 import SB3VecEnv


def test_step_api_terminal_observation_and_masks() -> None:
    env = SB3VecEnv(num_envs=32, seed=3)
    obs = env.reset()
    assert obs.shape == (32, 9)
    assert env.observation_space.contains(obs[0])
    ended = 0
    rng = np.random.default_rng(0)
    for _ in range(30):
        masks = get_action_masks(env)
        assert masks.shape == (32, 5) and masks.dtype == bool
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = env.step(actions)
        assert rewards.dtype == np.float32 and dones.dtype == bool and len(infos) == 32
        assert not env.last_info["illegal_action"].any()
        for t in np.flatnonzero(dones):
            ended += 1
            assert env.observation_space.contains(infos[t]["terminal_observation"])
            assert infos[t]["terminal_observation"][0] == 3  # phase SETTLED
            assert infos[t]["TimeLimit.truncated"] is False
            assert rewards[t] == infos[t]["round_net"]
            # a fresh round (or one settled at the deal)
            assert obs[t][0] != 3 or env.venv.batch.phase[t] == BatchPhase.OVER
    assert ended > 30


def test_same_seed_same_rollout() -> None:
    def rollout() -> list[np.ndarray]:
        env = SB3VecEnv(num_envs=8, rules="european-no-hole-card")
        env.seed(123)
        out = [env.reset()]
        for k in range(20):
            out.append(env.step(np.full(8, k % 3))[0])
        return out

    assert all(np.array_equal(a, b) for a, b in zip(rollout(), rollout(), strict=True))


def test_tuple_obs_is_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="multidiscrete"):
        SB3VecEnv(num_envs=2, rules="sutton-barto", obs_mode="tuple")


def test_maskable_ppo_and_ppo_train() -> None:
    env = VecMonitor(SB3VecEnv(num_envs=64, seed=0, obs_mode="vector"))
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=256, n_epochs=2, seed=0)
    model.learn(total_timesteps=64 * 16 * 2)
    obs = env.reset()
    for _ in range(10):
        action, _ = model.predict(obs, action_masks=get_action_masks(env))
        obs, _, _, _ = env.step(action)
        assert not env.venv.last_info["illegal_action"].any()
    ppo = PPO("MlpPolicy", SB3VecEnv(num_envs=64, seed=1), n_steps=16, batch_size=256, n_epochs=1)
    ppo.learn(total_timesteps=64 * 16)


def test_maskable_ppo_on_dict_observations() -> None:
    env = SB3VecEnv(num_envs=32, seed=2, obs_mode="dict")
    model = MaskablePPO("MultiInputPolicy", env, n_steps=8, batch_size=128, n_epochs=1, seed=0)
    model.learn(total_timesteps=32 * 8 * 2)
    obs = env.reset()
    _, _, dones, infos = env.step(np.zeros(32, dtype=np.int64))
    for t in np.flatnonzero(dones):
        assert env.observation_space.contains(infos[t]["terminal_observation"])
    assert env.observation_space.contains({k: v[0] for k, v in obs.items()})


def test_episode_statistics_without_vec_monitor() -> None:
    """info["episode"] is what VecMonitor would write: the return and length of each
    ended episode, summed here from the rewards the adapter returned."""
    env = SB3VecEnv(num_envs=16, seed=5, rules="vegas-strip", rounds_per_episode=3)
    monitored = VecMonitor(SB3VecEnv(num_envs=16, seed=5, rules="vegas-strip",
                                     rounds_per_episode=3))
    env.reset()
    monitored.reset()
    returns = np.zeros(16)
    lengths = np.zeros(16, dtype=int)
    seen = 0
    for k in range(60):
        actions = np.full(16, k % 2)
        _, rewards, dones, infos = env.step(actions)
        _, _, _, monitor_infos = monitored.step(actions)
        returns += rewards
        lengths += 1
        for t in np.flatnonzero(dones):
            episode = infos[t]["episode"]
            assert episode["r"] == pytest.approx(returns[t])
            assert episode["l"] == lengths[t]
            assert episode["r"] == pytest.approx(monitor_infos[t]["episode"]["r"])
            assert episode["l"] == monitor_infos[t]["episode"]["l"]
            returns[t] = 0.0
            lengths[t] = 0
            seen += 1
        for t in np.flatnonzero(~dones):
            assert "episode" not in infos[t]
    assert seen > 16


def test_sb3_logger_reports_episode_reward_without_vec_monitor() -> None:
    model = PPO("MlpPolicy", SB3VecEnv(num_envs=32, seed=4, obs_mode="vector"), n_steps=16,
                batch_size=256, n_epochs=1, seed=0)
    model.learn(total_timesteps=32 * 16)
    assert len(model.ep_info_buffer) > 0
    assert all(set(info) >= {"r", "l", "t"} for info in model.ep_info_buffer)
