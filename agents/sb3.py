"""stable-baselines3 training helpers: PPO, DQN, A2C and sb3-contrib's MaskablePPO.

:func:`train_sb3` builds the vectorised training envs (each wrapped in
``Monitor``, which logs every episode's return to ``<out>/monitor/``), an
evaluation callback on a *separate* env with its own seed (results in
``<out>/eval/evaluations.npz``, best model in ``<out>/eval/best_model.zip``),
periodic checkpoints (``<out>/checkpoints/``), optional TensorBoard logs
(``<out>/tb/``), and trains; Ctrl-C stops training and saves
``<out>/interrupted.zip``, from which ``resume=`` continues.

Vectorisation: ``n_envs`` copies in a ``SubprocVecEnv`` (one process per
copy, for several cores) or a ``DummyVecEnv`` (same process; faster when the
env is cheaper than the inter-process traffic, as a blackjack round is).

MaskablePPO reads the env's ``action_masks()`` (also through
``SubprocVecEnv``) when training and evaluating. The plain algorithms train
without masks: the env replaces an illegal action by its documented legal
substitute. :class:`SB3Agent` wraps a trained model in the project's policy
interface; its greedy ``act(obs, mask)`` takes the most probable (PPO, A2C)
or highest-valued (DQN) *legal* action.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from blackjack_env.agents.base import Agent, legal_argmax

__all__ = [
    "SB3_ALGOS",
    "SB3Agent",
    "SB3Config",
    "algo_class",
    "make_env_factory",
    "make_vec_env",
    "train_sb3",
]

#: Algorithms by their command-line name.
SB3_ALGOS: tuple[str, ...] = ("ppo", "dqn", "a2c", "maskable-ppo")


def algo_class(algo: str) -> type:
    """The stable-baselines3 / sb3-contrib class for a command-line name."""
    if algo == "ppo":
        from stable_baselines3 import PPO

        return PPO
    if algo == "dqn":
        from stable_baselines3 import DQN

        return DQN
    if algo == "a2c":
        from stable_baselines3 import A2C

        return A2C
    if algo == "maskable-ppo":
        from sb3_contrib import MaskablePPO

        return MaskablePPO
    raise ValueError(f"unknown algo {algo!r}; choose one of {', '.join(SB3_ALGOS)}")


#: Hyper-parameters used unless overridden (chosen for a short, noisy, undiscounted round).
DEFAULT_HYPERPARAMETERS: dict[str, dict[str, Any]] = {
    "ppo": dict(n_steps=2048, batch_size=512, n_epochs=10, gamma=1.0, gae_lambda=1.0,
                learning_rate=3e-4, ent_coef=0.0),
    "maskable-ppo": dict(n_steps=2048, batch_size=512, n_epochs=10, gamma=1.0, gae_lambda=1.0,
                         learning_rate=3e-4, ent_coef=0.0),
    "a2c": dict(n_steps=32, gamma=1.0, gae_lambda=1.0, learning_rate=7e-4, ent_coef=0.0),
    "dqn": dict(gamma=1.0, learning_rate=1e-4, buffer_size=200_000, learning_starts=10_000,
                batch_size=256, train_freq=4, target_update_interval=5_000,
                exploration_fraction=0.3, exploration_final_eps=0.02),
}


@dataclass
class SB3Config:
    """Settings of one stable-baselines3 run (saved as ``sb3_config.json``)."""

    algo: str = "maskable-ppo"
    env_id: str = "blackjack_env/Blackjack-v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    timesteps: int = 100_000
    seed: int = 0
    n_envs: int = 4
    subproc: bool = False
    eval_freq: int = 20_000
    eval_episodes: int = 2_000
    checkpoint_freq: int = 100_000
    tensorboard: bool = False
    hyperparameters: dict[str, Any] = field(default_factory=dict)
    net_arch: tuple[int, ...] = (64, 64)

    def __post_init__(self) -> None:
        if self.algo not in SB3_ALGOS:
            raise ValueError(f"algo={self.algo!r}; choose one of {', '.join(SB3_ALGOS)}")
        for name in ("timesteps", "n_envs", "eval_freq", "eval_episodes", "checkpoint_freq"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}={value!r} must be a positive int")


def _make_env(env_id: str, env_kwargs: dict[str, Any], seed: int, monitor_file: str | None):
    from stable_baselines3.common.monitor import Monitor

    import blackjack_env  # noqa: F401  (registers the ids in a fresh subprocess)

    env = gym.make(env_id, **env_kwargs)
    env = Monitor(env, filename=monitor_file)
    env.action_space.seed(seed)
    return env


def make_env_factory(
    env_id: str, env_kwargs: dict[str, Any], seed: int, monitor_file: str | None = None
) -> Callable[[], gym.Env]:
    """A picklable no-argument factory of one ``Monitor``-wrapped env (for vec envs)."""
    import functools

    return functools.partial(_make_env, env_id, dict(env_kwargs), seed, monitor_file)


def make_vec_env(
    env_id: str,
    env_kwargs: dict[str, Any],
    n_envs: int,
    seed: int,
    *,
    subproc: bool = False,
    monitor_dir: Path | None = None,
):
    """``n_envs`` seeded copies in a ``SubprocVecEnv`` or ``DummyVecEnv``."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if monitor_dir is not None:
        monitor_dir.mkdir(parents=True, exist_ok=True)
    factories = [
        make_env_factory(
            env_id, env_kwargs, seed + i,
            None if monitor_dir is None else str(monitor_dir / f"env{i}"),
        )
        for i in range(n_envs)
    ]
    vec = SubprocVecEnv(factories) if subproc and n_envs > 1 else DummyVecEnv(factories)
    vec.seed(seed)
    return vec


class SB3Agent(Agent):
    """A trained stable-baselines3 model behind the project's policy interface.

    ``act(obs, mask)`` is greedy among legal actions: PPO, A2C and MaskablePPO
    take the legal action of highest probability under the policy, DQN the
    legal action of highest Q-value. Without a mask every action counts as legal.
    """

    def __init__(self, model: Any, algo: str, obs_mode: str = "multidiscrete") -> None:
        self.model = model
        self.algo = algo
        self.name = algo
        self.obs_mode = obs_mode

    def action_scores(self, obs: Any) -> np.ndarray:
        """Per-action scores whose argmax is the greedy action (probabilities or Q-values)."""
        import torch

        policy = self.model.policy
        tensor, _ = policy.obs_to_tensor(obs)
        with torch.no_grad():
            if self.algo == "dqn":
                scores = policy.q_net(tensor)
            else:
                scores = policy.get_distribution(tensor).distribution.probs
        return scores.cpu().numpy().reshape(-1)

    def act(self, obs: Any, mask: np.ndarray | None = None) -> int:
        return legal_argmax(self.action_scores(obs), mask)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.model.save(path)
        meta = {"algo": self.algo, "obs_mode": self.obs_mode}
        path.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
        return path.with_suffix(".zip")

    @classmethod
    def load(cls, path: str | Path, algo: str | None = None, obs_mode: str | None = None
             ) -> SB3Agent:
        """Reload a model saved by :meth:`save` (algo and obs mode read from the JSON beside it)."""
        path = Path(path)
        meta_path = path.with_suffix(".json")
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        algo = algo or meta.get("algo")
        if algo is None:
            raise ValueError(
                f"{path}: cannot tell which algorithm saved it; pass algo= one of "
                f"{', '.join(SB3_ALGOS)}"
            )
        model = algo_class(algo).load(path, device="cpu")
        return cls(model, algo, obs_mode or meta.get("obs_mode", "multidiscrete"))


def _jsonable(value: Any) -> Any:
    """JSON form of the objects an env's keyword arguments may hold (Rules, enums)."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "value"):
        return value.value
    return repr(value)


def train_sb3(
    config: SB3Config,
    out: Path,
    *,
    resume: Path | None = None,
    progress: bool = True,
    callback: Any = None,
) -> tuple[SB3Agent, bool]:
    """Train per ``config``, writing into ``out``; return the agent and whether it finished.

    ``resume``: a saved model (``.zip``) whose training continues for the
    timesteps it still lacks. Returns ``(agent, False)`` after Ctrl-C (the
    model is then saved as ``<out>/interrupted.zip``).
    """
    from stable_baselines3.common.callbacks import CallbackList, CheckpointCallback, EvalCallback

    out.mkdir(parents=True, exist_ok=True)
    (out / "sb3_config.json").write_text(
        json.dumps(asdict(config), indent=2, default=_jsonable) + "\n")
    masked = config.algo == "maskable-ppo"
    klass = algo_class(config.algo)
    venv = make_vec_env(
        config.env_id, config.env_kwargs, config.n_envs, config.seed,
        subproc=config.subproc, monitor_dir=out / "monitor",
    )
    eval_env = make_vec_env(config.env_id, config.env_kwargs, 1, config.seed + 10_000)
    obs_mode = str(config.env_kwargs.get("obs_mode", "multidiscrete"))
    if resume is not None:
        model = klass.load(resume, env=venv, device="cpu")
    else:
        hyper = dict(DEFAULT_HYPERPARAMETERS[config.algo])
        hyper.update(config.hyperparameters)
        model = klass(
            "MultiInputPolicy" if obs_mode == "dict" else "MlpPolicy",
            venv,
            seed=config.seed,
            device="cpu",
            verbose=0,
            tensorboard_log=str(out / "tb") if config.tensorboard else None,
            policy_kwargs={"net_arch": list(config.net_arch)},
            **hyper,
        )
    eval_kwargs: dict[str, Any] = dict(
        n_eval_episodes=config.eval_episodes,
        eval_freq=max(config.eval_freq // config.n_envs, 1),
        log_path=str(out / "eval"),
        best_model_save_path=str(out / "eval"),
        deterministic=True,
        verbose=0,
    )
    if masked:
        from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback

        evaluator = MaskableEvalCallback(eval_env, **eval_kwargs)
    else:
        evaluator = EvalCallback(eval_env, **eval_kwargs)
    callbacks = [
        evaluator,
        CheckpointCallback(
            save_freq=max(config.checkpoint_freq // config.n_envs, 1),
            save_path=str(out / "checkpoints"),
            name_prefix=config.algo,
        ),
    ]
    if callback is not None:
        callbacks.append(callback)
    remaining = config.timesteps - (model.num_timesteps if resume is not None else 0)
    finished = True
    agent = SB3Agent(model, config.algo, obs_mode)
    try:
        if remaining > 0:
            model.learn(
                total_timesteps=remaining,
                callback=CallbackList(callbacks),
                progress_bar=progress,
                reset_num_timesteps=resume is None,
                tb_log_name=config.algo,
            )
    except KeyboardInterrupt:
        finished = False
        agent.save(out / "interrupted.zip")
    finally:
        for vec in (venv, eval_env):
            # workers hit by the same Ctrl-C may already be gone
            with contextlib.suppress(EOFError, BrokenPipeError, ConnectionError):
                vec.close()
    return agent, finished
