"""Train PPO with Ray RLlib on the blackjack env (a runnable example).

RLlib builds environments inside its own worker processes (EnvRunners), which
do not share Gymnasium's registry with the driver, so the env is registered
with RLlib by name through an **env creator** (``ray.tune.registry.register_env``)
that imports ``blackjack_env`` in the worker and builds the env from the
``env_config`` dict::

    register_env("blackjack_env", make_env)
    config = PPOConfig().environment("blackjack_env", env_config={"rules": "vegas-strip"})

Every key of ``env_config`` except ``env_id`` is passed to
``gymnasium.make(env_id, ...)`` (default id ``blackjack_env/Blackjack-v0``), so
any :class:`~blackjack_env.envs.blackjack.BlackjackEnv` argument can be set.
The default observation mode here is ``"vector"`` (a ``Box``, which RLlib's
default models take as is). RLlib samples actions without a mask; the env's
default ``illegal_action="map"`` plays an illegal action as a documented legal
one (masking in RLlib needs a custom RLModule). For the multi-agent table, wrap
:class:`~blackjack_env.envs.multiagent.BlackjackAECEnv` in RLlib's
``PettingZooEnv`` the same way.

    pip install "ray[rllib]"
    python scripts/rllib_example.py --iterations 5
    python scripts/rllib_example.py --rules sutton-barto --obs-mode vector --env-runners 2

Install note: ``ray[rllib]`` may pin another Gymnasium version than this
project's; install it in a separate virtual environment if it would replace
the one you use.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass
from typing import Any

ENV_NAME = "blackjack_env"
DEFAULT_ID = "blackjack_env/Blackjack-v0"


def make_env(env_config: dict[str, Any] | None = None) -> Any:
    """RLlib env creator: ``env_config`` -> a Gymnasium env (runs in the worker process)."""
    import gymnasium as gym

    import blackjack_env

    gym.register_envs(blackjack_env)  # the import registers the ids in this process
    kwargs = dict(env_config or {})  # RLlib passes an EnvContext (a dict subclass)
    env_id = kwargs.pop("env_id", DEFAULT_ID)
    return gym.make(env_id, **kwargs)


@dataclass
class Settings:
    iterations: int = 3
    """PPO training iterations"""
    rules: str = "vegas-strip"
    """preset name"""
    obs_mode: str = "vector"
    """observation mode of the env"""
    env_runners: int = 0
    """remote EnvRunner actors (0: sample in the driver process)"""
    envs_per_runner: int = 4
    """envs per EnvRunner"""
    batch: int = 512
    """train batch size per learner (env steps per iteration)"""
    minibatch: int = 128
    """SGD minibatch size"""
    epochs: int = 2
    """SGD epochs per iteration"""
    seed: int = 0
    """seed of RLlib (workers, envs, model)"""
    json: str | None = None
    """write the per-iteration results here"""


def train(s: Settings) -> list[dict[str, float]]:
    """Run PPO for ``s.iterations`` iterations on a local Ray instance; returns a
    summary per iteration (episode return mean, env steps sampled)."""
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.tune.registry import register_env

    ray.init(
        num_cpus=max(1, s.env_runners + 1),
        include_dashboard=False,
        ignore_reinit_error=True,
        log_to_driver=False,
    )
    try:
        register_env(ENV_NAME, make_env)
        config = (
            PPOConfig()
            .environment(ENV_NAME, env_config={"rules": s.rules, "obs_mode": s.obs_mode})
            .env_runners(num_env_runners=s.env_runners, num_envs_per_env_runner=s.envs_per_runner)
            .training(
                train_batch_size_per_learner=s.batch,
                minibatch_size=s.minibatch,
                num_epochs=s.epochs,
            )
            .debugging(seed=s.seed)
        )
        algo = config.build_algo()
        history = []
        for i in range(s.iterations):
            result = algo.train()
            runners = result.get("env_runners", {})
            steps = runners.get(
                "num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled", 0)
            )
            row = {
                "iteration": i + 1,
                "episode_return_mean": float(runners.get("episode_return_mean", float("nan"))),
                "num_env_steps_sampled": float(steps),
            }
            history.append(row)
            print(
                f"iteration {row['iteration']}: episode return mean "
                f"{row['episode_return_mean']:+.3f}, env steps {row['num_env_steps_sampled']:.0f}"
            )
        algo.stop()
        return history
    finally:
        ray.shutdown()


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    d = Settings()
    p = argparse.ArgumentParser(description="PPO with Ray RLlib on blackjack_env.")
    p.add_argument("--iterations", type=int, default=d.iterations, help="training iterations")
    p.add_argument("--rules", default=d.rules, help="preset name")
    p.add_argument("--obs-mode", default=d.obs_mode, help="observation mode")
    p.add_argument("--env-runners", type=int, default=d.env_runners, help="remote EnvRunners")
    p.add_argument("--envs-per-runner", type=int, default=d.envs_per_runner, help="envs per runner")
    p.add_argument("--batch", type=int, default=d.batch, help="train batch size per learner")
    p.add_argument("--minibatch", type=int, default=d.minibatch, help="SGD minibatch size")
    p.add_argument("--epochs", type=int, default=d.epochs, help="SGD epochs per iteration")
    p.add_argument("--seed", type=int, default=d.seed, help="seed")
    p.add_argument("--json", default=None, help="write the results here as JSON")
    a = p.parse_args(argv)
    s = Settings(
        a.iterations, a.rules, a.obs_mode, a.env_runners, a.envs_per_runner, a.batch,
        a.minibatch, a.epochs, a.seed, a.json,
    )
    history = train(s)
    if s.json:
        with open(s.json, "w") as fh:
            json.dump({"settings": asdict(s), "history": history}, fh, indent=2)
    return history


if __name__ == "__main__":
    main()
