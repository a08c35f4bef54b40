"""Ray RLlib: the env creator, and a tiny PPO training on a local Ray instance.

Run: ``pip install "ray[rllib]"`` then ``python -m pytest -m ray tests/integration``.
Without Ray the training test is skipped; the env-creator test always runs.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _example():
    spec = importlib.util.spec_from_file_location("rllib_example", SCRIPTS / "rllib_example.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["rllib_example"] = module
    spec.loader.exec_module(module)
    return module


def test_env_creator_builds_from_a_plain_config_dict() -> None:
    example = _example()

    class EnvContext(dict):  # what RLlib passes: a dict subclass with worker info
        worker_index = 1

    env = example.make_env(EnvContext(rules="sutton-barto", obs_mode="vector"))
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.int8
    _, reward, terminated, truncated, _ = env.step(0)
    assert terminated or truncated or reward == 0.0
    other = example.make_env({"env_id": "blackjack_env/Blackjack-v0", "rules": "atlantic-city"})
    assert other.unwrapped.rules.decks == 8


@pytest.mark.ray
@pytest.mark.parametrize(
    ("obs_mode", "seats"),
    [("vector", 0), ("multidiscrete", 0), ("tuple", 0), ("dict", 0), ("multidiscrete", 3),
     ("dict", 2)],
    ids=["vector", "multidiscrete", "tuple", "dict", "table-3-seats", "table-dict"],
)
def test_tiny_ppo_training_on_local_ray(obs_mode: str, seats: int) -> None:
    """Every observation mode (all but vector through RLlib's FlattenObservations), and
    the multi-agent table through ParallelPettingZooEnv with one shared policy."""
    pytest.importorskip("ray")
    pytest.importorskip("ray.rllib")
    if seats:
        pytest.importorskip("pettingzoo")
    example = _example()
    history = example.run(
        example.Settings(iterations=1, batch=256, minibatch=64, epochs=1, envs_per_runner=2,
                         obs_mode=obs_mode, seats=seats)
    )
    assert len(history) == 1
    assert history[0]["num_env_steps_sampled"] >= 256
    assert math.isfinite(history[0]["episode_return_mean"])
