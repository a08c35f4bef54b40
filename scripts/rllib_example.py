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
any :class:`~blackjack_env.envs.single.BlackjackEnv` argument can be set.
The default observation mode here is ``"vector"`` (a ``Box``, which RLlib's
default models take as is); the other modes (``multidiscrete``, ``tuple``, ``dict``)
go through RLlib's ``FlattenObservations`` env-to-module connector, which one-hot
encodes the discrete parts and joins everything into one vector. RLlib samples
actions without a mask; the env's default ``illegal_action="map"`` plays an illegal
action as a documented legal one (masking in RLlib needs a custom RLModule).
``--seats N`` trains on the multi-agent table instead: the parallel env
(:func:`blackjack_env.envs.multiagent.parallel_env`) wrapped in RLlib's
``ParallelPettingZooEnv``, every seat an agent sharing one policy (its observation
is the seat's view and its action mask, flattened by the same connector).

    python scripts/rllib_example.py --iterations 5
    python scripts/rllib_example.py --rules sutton-barto --obs-mode vector --env-runners 2
    python scripts/rllib_example.py --obs-mode dict            # any mode: flattened by RLlib
    python scripts/rllib_example.py --seats 3                  # the multi-agent table
    python scripts/rllib_example.py --help           # every option

Install: ``ray[rllib]`` pins another Gymnasium version than this project's, so
it goes in its own virtual environment (the README's Ray section)::

    python -m venv .venv-ray && . .venv-ray/bin/activate
    pip install torch==2.13.0 && pip install "ray[rllib]" -e ".[all]"

Without Ray the script ends with one line saying so, before any work.
"""

from __future__ import annotations

import sys

try:
    from collections.abc import Sequence
    from dataclasses import asdict, dataclass
    from typing import Annotated, Any

    from blackjack_env.cli import (
        UsageError,
        check_at_least,
        check_writable,
        option,
        preset_option,
        run_command,
        write_json,
    )
except ImportError as err:
    print(f"error: blackjack_env is not installed ({err}): run pip install -e . in the "
          f"repository", file=sys.stderr)
    sys.exit(2)
except KeyboardInterrupt:
    print("error: interrupted", file=sys.stderr)
    sys.exit(130)

#: how to get Ray, said when it is missing
RAY_INSTALL = (
    "Ray RLlib is not installed: it pins another Gymnasium, so give it its own virtual "
    "environment (see the README): python -m venv .venv-ray && . .venv-ray/bin/activate "
    "&& pip install torch==2.13.0 && pip install \"ray[rllib]\" -e \".[all]\""
)

ENV_NAME = "blackjack_env"
TABLE_NAME = "blackjack_env_table"
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
    """Train PPO with Ray RLlib on the blackjack env (a runnable example)."""

    iterations: int = 3
    """PPO training iterations"""
    rules: str = "vegas-strip"
    """preset name"""
    obs_mode: str = "vector"
    """observation mode of the env (all but vector are flattened by RLlib's connector)"""
    seats: int = 0
    """0: the single-seat env; 1-7: the multi-agent table with this many seats (one policy)"""
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
    json: Annotated[str | None, option("FILE", "not written")] = None
    """write the per-iteration results here"""


def make_table(env_config: dict[str, Any] | None = None) -> Any:
    """RLlib env creator of the multi-agent table: ``env_config`` -> the parallel env in
    RLlib's ``ParallelPettingZooEnv`` (runs in the worker process)."""
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

    from blackjack_env.envs.multiagent import parallel_env

    return ParallelPettingZooEnv(parallel_env(**dict(env_config or {})))


def train(s: Settings) -> list[dict[str, float]]:
    """Run PPO for ``s.iterations`` iterations on a local Ray instance; returns a
    summary per iteration (episode return mean, env steps sampled)."""
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.connectors.env_to_module import FlattenObservations
    from ray.tune.registry import register_env

    ray.init(
        num_cpus=max(1, s.env_runners + 1),
        include_dashboard=False,
        ignore_reinit_error=True,
        log_to_driver=False,
    )
    try:
        table = s.seats > 0
        flatten = table or s.obs_mode != "vector"
        if table:
            register_env(TABLE_NAME, make_table)
            env_config = {"rules": s.rules, "num_seats": s.seats, "obs_mode": s.obs_mode,
                          "rounds": 5}
        else:
            register_env(ENV_NAME, make_env)
            env_config = {"rules": s.rules, "obs_mode": s.obs_mode}
        config = (
            PPOConfig()
            .environment(TABLE_NAME if table else ENV_NAME, env_config=env_config)
            .env_runners(
                num_env_runners=s.env_runners,
                num_envs_per_env_runner=s.envs_per_runner,
                env_to_module_connector=(
                    (lambda env, spaces=None, device=None: FlattenObservations(multi_agent=table))
                    if flatten else None
                ),
            )
            .training(
                train_batch_size_per_learner=s.batch,
                minibatch_size=s.minibatch,
                num_epochs=s.epochs,
            )
            .debugging(seed=s.seed)
        )
        if table:  # every seat plays the one shared policy
            config = config.multi_agent(policies={"shared"},
                                        policy_mapping_fn=lambda agent_id, *args, **kw: "shared")
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


def check(s: Settings) -> None:
    """Refuse bad options and a missing Ray before any work (one ``error:`` line)."""
    import importlib.util

    from blackjack_env.envs.view.layout import ObsMode

    for name, low, what in (
        ("iterations", 1, "PPO training iterations"),
        ("env_runners", 0, "remote EnvRunners; 0 samples in the driver"),
        ("envs_per_runner", 1, "envs per EnvRunner"),
        ("batch", 1, "env steps per iteration"),
        ("minibatch", 1, "SGD minibatch size"),
        ("epochs", 1, "SGD epochs per iteration"),
    ):
        check_at_least(name, getattr(s, name), low, what)
    if s.minibatch > s.batch:
        raise UsageError(f"--minibatch {s.minibatch}: must not exceed --batch {s.batch}")
    preset_option(s.rules)
    modes = [m.value for m in ObsMode]
    if s.obs_mode not in modes:
        raise UsageError(f"--obs-mode {s.obs_mode!r}: use one of {', '.join(modes)}")
    if not 0 <= s.seats <= 7 or isinstance(s.seats, bool):
        raise UsageError(f"--seats {s.seats}: 0 (the single-seat env) or 1-7 (the table)")
    if s.seats and s.obs_mode == "tuple":
        raise UsageError("--obs-mode tuple: the multi-agent table shows multidiscrete, "
                         "vector or dict observations")
    check_writable("json", s.json)
    try:
        found = importlib.util.find_spec("ray") is not None and (
            importlib.util.find_spec("ray.rllib") is not None
        )
    except (ImportError, ValueError):
        found = False
    if not found:
        raise UsageError(RAY_INSTALL)


def run(s: Settings) -> list[dict[str, float]]:
    """Check the options, train, print a line per iteration, write the JSON asked for."""
    check(s)
    history = train(s)
    if s.json:
        write_json(s.json, {"settings": asdict(s), "history": history})
        print(f"wrote {s.json}")
    return history


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="rllib_example.py")


if __name__ == "__main__":
    sys.exit(main())
