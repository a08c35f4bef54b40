"""stable-baselines3 training helpers: PPO, DQN, A2C and sb3-contrib's MaskablePPO.

:func:`train_sb3` builds the vectorised training envs with stable-baselines3's
``make_vec_env`` (each env wrapped in ``Monitor``, which logs every episode's
return to ``<out>/monitor/from<start step>/``, one folder per stretch of
training, read back by :func:`monitor_curve`), an
evaluation callback on a *separate* env with its own seed (results in
``<out>/eval/evaluations.npz``, best model in ``<out>/eval/best_model.zip``),
periodic checkpoints (``<out>/checkpoints/``), optional TensorBoard logs
(``<out>/tb/``), and trains; Ctrl-C stops training and saves
``<out>/interrupted.zip``, from which ``resume=`` continues (finishing deletes it).

Vectorisation: ``n_envs`` copies in a ``SubprocVecEnv`` (one process per
copy, for several cores) or a ``DummyVecEnv`` (same process; faster when the
env is cheaper than the inter-process traffic, as a blackjack round is).

Threads: training runs with ``config.torch_threads`` torch intra-op threads (default 1;
see :func:`torch_threads`). The networks here are small (two layers of 64), so a second
thread gains nothing, and on a shared machine torch's OpenMP threads spin while they
wait for a core. ``scripts/bench_train.py`` (8,192 MaskablePPO steps, 2 cores, load
average 9 from other work): one thread 6.7 s, beside 3 more busy processes 29 s; torch's
own count (2) 74 s and 143 s, 11x and 4.9x slower. Issue 20 measured 3.4 s quiet and
32-55 s busy with 2 threads, 8.0 s busy with one.

Progress: a ``tqdm`` bar (``progress=True``), updated once per rollout's worth of steps and
closed before :func:`train_sb3` returns, whatever ends the training; while it is shown,
the lines printed by callbacks go above it.

MaskablePPO reads the env's ``action_masks()`` (also through
``SubprocVecEnv``) when training and evaluating. The plain algorithms train
without masks: the env replaces an illegal action by its documented legal
substitute. :class:`SB3Agent` wraps a trained model in the project's policy
interface; its greedy ``act(obs, mask)`` takes the most probable (PPO, A2C)
or highest-valued (DQN) *legal* action.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from blackjack_env.agents.base import Agent, legal_argmax
from blackjack_env.cli import atomic_path, read_json_object, write_json

__all__ = [
    "SB3_ALGOS",
    "SB3Agent",
    "SB3Config",
    "algo_class",
    "exact_curve_callback",
    "fit_rollout",
    "make_blackjack_env",
    "make_vec_env",
    "monitor_curve",
    "rollout_steps",
    "saved_timesteps",
    "steps_for_budget",
    "torch_threads",
    "train_sb3",
    "training_env_kwargs",
]

#: Algorithms by their command-line name.
SB3_ALGOS: tuple[str, ...] = ("ppo", "dqn", "a2c", "maskable-ppo")


def algo_class(algo: str) -> Any:
    """The stable-baselines3 / sb3-contrib class for a command-line name."""
    if algo == "ppo":
        # deferred: loads stable_baselines3 (the optional [train] extra)
        from stable_baselines3 import PPO

        return PPO
    if algo == "dqn":
        # deferred: loads stable_baselines3 (the optional [train] extra)
        from stable_baselines3 import DQN

        return DQN
    if algo == "a2c":
        # deferred: loads stable_baselines3 (the optional [train] extra)
        from stable_baselines3 import A2C

        return A2C
    if algo == "maskable-ppo":
        # deferred: loads sb3_contrib (the optional [train] extra)
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
    #: torch intra-op threads while training; 0 leaves torch's own setting (by default one
    #: per core). See :func:`torch_threads`.
    torch_threads: int = 1
    #: write every training episode to ``<out>/monitor`` (what :func:`monitor_curve` reads);
    #: False keeps the ``Monitor`` wrapper's episode info without the files (one line written
    #: and flushed per round: measured 10-20% of a PPO run's CPU time on blackjack's short
    #: rounds, 16,384 steps of vegas-strip)
    monitor_files: bool = True

    def __post_init__(self) -> None:
        if self.algo not in SB3_ALGOS:
            raise ValueError(f"algo={self.algo!r}; choose one of {', '.join(SB3_ALGOS)}")
        threads = self.torch_threads
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
            raise ValueError(f"torch_threads={threads!r} must be an int >= 1, or 0 for torch's "
                             f"own setting")
        for name in ("timesteps", "n_envs", "eval_freq", "eval_episodes", "checkpoint_freq"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}={value!r} must be a positive int")


def make_blackjack_env(env_id: str = "blackjack_env/Blackjack-v0", **env_kwargs: Any) -> gym.Env:
    """One env for :func:`stable_baselines3.common.env_util.make_vec_env` (picklable, and it
    registers the project's env ids in a fresh subprocess)."""
    return gym.make(env_id, **env_kwargs)


def training_env_kwargs(env_id: str, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments :func:`train_sb3` makes its envs with: ``env_kwargs``, and for
    the project's ids (``blackjack_env/...``) ``info_cards=False`` unless given (stable-baselines3's
    ``DummyVecEnv`` deep-copies every info at every step, and nothing in training reads the
    cards: 26 us a step with them, 5 us without; 11% of an SB3 PPO run on vegas-play, the
    same trajectory)."""
    if env_id.startswith("blackjack_env/") and "info_cards" not in env_kwargs:
        return {**env_kwargs, "info_cards": False}
    return dict(env_kwargs)


def make_vec_env(
    env_id: str,
    env_kwargs: dict[str, Any],
    n_envs: int,
    seed: int,
    *,
    subproc: bool = False,
    monitor_dir: Path | None = None,
):
    """``n_envs`` seeded, ``Monitor``-wrapped copies in a ``SubprocVecEnv`` or ``DummyVecEnv``:
    stable-baselines3's own ``make_vec_env`` with the project's env (episode logs in
    ``monitor_dir/<rank>.monitor.csv``)."""
    # deferred: loads stable_baselines3 (the optional [train] extra)
    from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env

    # deferred: loads stable_baselines3 (the optional [train] extra)
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    return sb3_make_vec_env(
        make_blackjack_env,
        n_envs=n_envs,
        seed=seed,
        monitor_dir=None if monitor_dir is None else str(monitor_dir),
        env_kwargs={"env_id": env_id, **env_kwargs},
        vec_env_cls=SubprocVecEnv if subproc and n_envs > 1 else DummyVecEnv,
    )


def saved_timesteps(path: str | Path) -> int:
    """The ``num_timesteps`` recorded in a model saved by stable-baselines3 (read from the
    zip's ``data`` entry, without loading the network); ``ValueError`` for a damaged file."""
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
        return int(data["num_timesteps"])
    except (zipfile.BadZipFile, KeyError, ValueError, TypeError, EOFError) as err:
        raise ValueError(f"{path}: not a stable-baselines3 model ({err or type(err).__name__})"
                         ) from None


def rollout_steps(model: Any) -> int:
    """Timesteps ``learn`` takes between two looks at its budget: a whole rollout
    (``n_steps * n_envs``) for PPO / A2C, ``train_freq * n_envs`` for DQN."""
    n_envs = int(model.n_envs)
    if hasattr(model, "n_steps"):
        return int(model.n_steps) * n_envs
    freq = getattr(model, "train_freq", None)
    return int(getattr(freq, "frequency", 1) or 1) * n_envs


def steps_for_budget(start: int, budget: int, rollout: int) -> int:
    """The timesteps ``learn`` ends at when it starts at ``start`` with a budget of ``budget``:
    whole rollouts, so at most ``rollout - 1`` beyond the budget."""
    if budget <= start:
        return start
    return start + -(-(budget - start) // rollout) * rollout


def fit_rollout(algo: str, hyper: dict[str, Any], n_envs: int, budget: int) -> dict[str, Any]:
    """Hyper-parameters whose rollout is no larger than the budget: PPO / A2C ``n_steps``
    shrunk to ``ceil(budget / n_envs)`` when a whole default rollout would exceed it (and
    PPO's minibatch kept within one rollout)."""
    out = dict(hyper)
    if algo == "dqn" or "n_steps" not in out:
        return out
    if out["n_steps"] * n_envs > budget:
        out["n_steps"] = max(-(-budget // n_envs), 2)
    if "batch_size" in out:
        out["batch_size"] = max(2, min(out["batch_size"], out["n_steps"] * n_envs))
    return out


@contextlib.contextmanager
def torch_threads(threads: int) -> Iterator[int]:
    """Run a block with ``threads`` torch intra-op threads (``torch.set_num_threads``), then
    put back the number there was; yields the number in force. ``threads=0`` changes
    nothing (torch's own setting: by default one thread per core).

    The inter-op pool (``torch.set_num_interop_threads``) can be sized only once in a
    process, before torch first uses it: it is set to ``threads`` where torch still allows
    it and left as it is otherwise (eager training of these networks does not use it)."""
    # deferred: loads torch (the optional [train] extra)
    import torch

    before = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
        with contextlib.suppress(RuntimeError):  # already set, or already in use
            torch.set_num_interop_threads(threads)
    try:
        yield torch.get_num_threads()
    finally:
        torch.set_num_threads(before)


class _AboveBar(io.TextIOBase):
    """A text stream that writes whole lines above a tqdm bar (the bar is cleared, the
    lines written, the bar drawn again), so lines printed while it is shown do not run
    into it."""

    def __init__(self, bar: Any, stream: Any) -> None:
        super().__init__()
        self._bar = bar
        self._stream = stream
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        if lines:
            self._out("".join(f"{line}\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._out(self._pending + "\n")
            self._pending = ""
        self._stream.flush()

    def _out(self, text: str) -> None:
        self._bar.clear()
        self._stream.write(text)
        self._stream.flush()
        self._bar.refresh()


def _progress_callback(bar: Any) -> Any:
    """An SB3 callback that moves ``bar`` to the run's timestep count at the end of each
    rollout and every 256 env steps (DQN has no rollouts), so most steps cost one test."""
    # deferred: loads stable_baselines3 (the optional [train] extra)
    from stable_baselines3.common.callbacks import BaseCallback

    class Progress(BaseCallback):
        """The bar's position is ``num_timesteps``; redrawn at most every half second."""

        def _on_rollout_end(self) -> None:
            self._move()

        def _on_step(self) -> bool:
            if self.n_calls % 256 == 0:
                self._move()
            return True

        def _on_training_end(self) -> None:
            self._move()

        def _move(self) -> None:
            n = int(self.num_timesteps)
            if n > bar.n:
                bar.update(n - bar.n)

    return Progress()


def exact_curve_callback(
    grade: Callable[[Any], dict[str, Any]],
    every: int,
    grades: list[tuple[int, float]],
    say: Callable[[str], None] = print,
    on_grade: Callable[[], None] | None = None,
) -> Any:
    """An SB3 callback that appends ``(timesteps, exact return)`` to ``grades`` each time the
    run has passed a multiple of ``every`` timesteps (once per multiple, however many steps
    one rollout takes), and says the grade. It grades when a rollout starts, that is after
    the policy has learned from every step counted so far; the caller grades the end.
    ``on_grade()`` is called after each new grade (e.g. to save the curve so far, which
    then survives a crash)."""
    # deferred: loads stable_baselines3 (the optional [train] extra)
    from stable_baselines3.common.callbacks import BaseCallback

    class ExactCurve(BaseCallback):
        """Exact return of the greedy policy every ``every`` timesteps."""

        def _on_rollout_start(self) -> None:
            n = int(self.num_timesteps)
            last = grades[-1][0] if grades else 0
            if n // every > last // every:
                g = grade(self.model)
                grades.append((n, g["exact_return"]))
                say(f"  [{n:,} steps] exact return {g['exact_return']:+.5f} "
                    f"regret {g['regret']:.5f}")
                if on_grade is not None:
                    on_grade()

        def _on_step(self) -> bool:
            return True

    return ExactCurve()


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
        # deferred: loads torch (the optional [train] extra)
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

    def greedy_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The greedy legal action of each row of ``obs`` (``[N, ...]``, observations of
        the model's space; ``mask``: ``[N, n_actions]``, nonzero = legal) in one forward
        pass: what the exact grade across rule sets asks of a few thousand states at once
        (``blackjack_env.agents.rule_sets``) instead of one call per state."""
        # deferred: loads torch (the optional [train] extra)
        import torch

        policy = self.model.policy
        tensor, _ = policy.obs_to_tensor(np.asarray(obs))
        with torch.no_grad():
            if self.algo == "dqn":
                scores = policy.q_net(tensor)
            else:
                scores = policy.get_distribution(tensor).distribution.probs
        values = scores.cpu().numpy().reshape(len(obs), -1)
        legal = np.asarray(mask).reshape(values.shape) != 0
        if not legal.any(axis=1).all():
            raise ValueError("an action mask allows no action: at least one entry must be 1")
        return np.argmax(np.where(legal, values, -np.inf), axis=1)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)

        path = path.with_suffix(".zip")
        with atomic_path(path) as tmp:
            self.model.save(tmp)
        write_json(path.with_suffix(".json"), {"algo": self.algo, "obs_mode": self.obs_mode})
        return path

    @classmethod
    def load(cls, path: str | Path, algo: str | None = None, obs_mode: str | None = None
             ) -> SB3Agent:
        """Reload a model saved by :meth:`save` (algo and obs mode read from the JSON beside it)."""
        path = Path(path)
        meta_path = path.with_suffix(".json")
        meta = read_json_object(meta_path) if meta_path.exists() else {}
        algo = algo or meta.get("algo")
        if algo is None:
            raise ValueError(
                f"{path}: cannot tell which algorithm saved it; pass algo= one of "
                f"{', '.join(SB3_ALGOS)}"
            )
        klass = algo_class(algo)
        saved_timesteps(path)  # a clear error for a file that is not an SB3 model at all
        try:
            model = klass.load(path, device="cpu")
        except Exception as err:  # SB3 reports a damaged file in many ways
            raise ValueError(f"{path}: cannot load it as a {algo} model "
                             f"({type(err).__name__}: {err})") from None
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
    say: Callable[[str], None] = print,
) -> tuple[SB3Agent, bool]:
    """Train per ``config``, writing into ``out``; return the agent and whether it finished.

    ``resume``: a saved model (``.zip``) whose training continues up to
    ``config.timesteps`` in all. The episode logs of each stretch of training (unless
    ``config.monitor_files`` is False) go to their own folder
    ``<out>/monitor/from<start step>/`` (a resume never overwrites the earlier ones), and
    the evaluations recorded up to the resumed step are kept in
    ``<out>/eval/evaluations.npz``. ``learn`` trains whole rollouts, so the run may end
    up to one rollout beyond the budget; ``say`` is told when it does.

    A resumed stretch seeds its envs with ``seed + start`` (so it does not replay the
    cards of the first stretch). When training finishes the model is saved as
    ``<out>/model.zip`` and an
    ``interrupted.zip`` left by an earlier Ctrl-C is deleted; after Ctrl-C the model is
    saved as ``<out>/interrupted.zip`` and ``(agent, False)`` is returned.

    Torch runs with ``config.torch_threads`` intra-op threads from the model's creation to
    the end of training (:func:`torch_threads`; the number before is put back after), and
    the number in force is recorded as ``torch_threads_used`` in ``sb3_config.json``.
    ``progress``: a tqdm bar on stderr, closed before this function returns or raises.
    """
    with torch_threads(config.torch_threads) as used:
        return _train(config, out, used, resume=resume, progress=progress, callback=callback,
                      say=say)


def _train(config: SB3Config, out: Path, threads: int, *, resume: Path | None,
           progress: bool, callback: Any, say: Callable[[str], None]) -> tuple[SB3Agent, bool]:
    # deferred: loads stable_baselines3 (the optional [train] extra)
    from stable_baselines3.common.callbacks import CallbackList, CheckpointCallback, EvalCallback

    # deferred: loads stable_baselines3 (the optional [train] extra)
    from stable_baselines3.common.logger import Logger

    out.mkdir(parents=True, exist_ok=True)
    record = json.loads(json.dumps(asdict(config), default=_jsonable))
    write_json(out / "sb3_config.json", {**record, "torch_threads_used": threads})
    masked = config.algo == "maskable-ppo"
    klass = algo_class(config.algo)
    start = saved_timesteps(resume) if resume is not None else 0
    monitors = out / "monitor"
    if monitors.is_dir():  # stretches that began at or after this start were abandoned
        for folder in monitors.glob("from*"):
            if folder.is_dir() and _segment_start(folder) >= start:
                shutil.rmtree(folder)
    kwargs = training_env_kwargs(config.env_id, config.env_kwargs)
    venv = make_vec_env(
        config.env_id, kwargs, config.n_envs, config.seed + start,
        subproc=config.subproc,
        monitor_dir=monitors / f"from{start:012d}" if config.monitor_files else None,
    )
    eval_env = make_vec_env(config.env_id, kwargs, 1, config.seed + 10_000 + start)
    obs_mode = str(config.env_kwargs.get("obs_mode", "multidiscrete"))
    try:
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
    except BaseException:
        venv.close()
        eval_env.close()
        raise
    if not config.tensorboard:
        # SB3's own logger, with nothing to write, still makes an empty SB3-<time> folder
        # in the temp dir at each learn(): this one writes nothing and makes none
        model.set_logger(Logger(folder=None, output_formats=[]))
    rollout = rollout_steps(model)
    end = steps_for_budget(start, config.timesteps, rollout)
    if end != config.timesteps and end > start:
        say(f"note: {config.algo} learns from whole rollouts of {rollout:,} timesteps, so "
            f"the budget of {config.timesteps:,} ends at {end:,}")
    eval_kwargs: dict[str, Any] = dict(
        n_eval_episodes=config.eval_episodes,
        eval_freq=max(config.eval_freq // config.n_envs, 1),
        log_path=str(out / "eval"),
        best_model_save_path=str(out / "eval"),
        deterministic=True,
        verbose=0,
    )
    if masked:
        # deferred: loads sb3_contrib (the optional [train] extra)
        from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback

        evaluator = MaskableEvalCallback(eval_env, **eval_kwargs)
    else:
        evaluator = EvalCallback(eval_env, **eval_kwargs)
    if resume is not None:
        _keep_evaluations(evaluator, out / "eval" / "evaluations.npz", start)
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
    remaining = end - start  # whole rollouts: the progress bar's total is what will run
    finished = True
    agent = SB3Agent(model, config.algo, obs_mode)
    try:
        with contextlib.ExitStack() as shown:
            if progress and remaining > 0:
                # deferred: loads tqdm (the optional [main] extra)
                from tqdm.auto import tqdm

                bar = tqdm(total=end, initial=start, unit="step", desc=config.algo,
                           mininterval=0.5, smoothing=0.1)
                shown.callback(bar.close)  # closed last: after the lines above it are out
                callbacks.append(_progress_callback(bar))
                above = _AboveBar(bar, sys.stdout)
                shown.callback(above.flush)
                shown.enter_context(contextlib.redirect_stdout(above))
            if remaining > 0:
                model.learn(
                    total_timesteps=remaining,
                    callback=CallbackList(callbacks),
                    reset_num_timesteps=resume is None,
                    tb_log_name=config.algo,
                )
    except KeyboardInterrupt:
        finished = False
    finally:
        for vec in (venv, eval_env):
            # workers hit by the same Ctrl-C may already be gone
            with contextlib.suppress(EOFError, BrokenPipeError, ConnectionError):
                vec.close()
    if finished:
        agent.save(out / "model.zip")
        for name in ("interrupted.zip", "interrupted.json"):
            (out / name).unlink(missing_ok=True)
    else:
        agent.save(out / "interrupted.zip")
    return agent, finished


def _segment_start(folder: Path) -> int:
    try:
        return int(folder.name[len("from"):])
    except ValueError:
        return -1


def _keep_evaluations(evaluator: Any, path: Path, upto: int) -> None:
    """Give a new evaluation callback the evaluations an earlier stretch recorded up to
    ``upto`` timesteps, so the file it rewrites keeps them."""
    if not path.exists():
        return
    try:
        with np.load(path, allow_pickle=False) as data:
            steps, results, lengths = data["timesteps"], data["results"], data["ep_lengths"]
    except (OSError, ValueError, KeyError, EOFError) as err:
        raise ValueError(f"{path}: cannot read the earlier evaluations ({err})") from None
    keep = [i for i, t in enumerate(steps) if int(t) <= upto]
    if keep and results.shape[1] != evaluator.n_eval_episodes:
        raise ValueError(f"{path}: the earlier evaluations used {results.shape[1]} episodes; "
                         f"resume with --eval-episodes {results.shape[1]}")
    evaluator.evaluations_timesteps = [int(steps[i]) for i in keep]
    evaluator.evaluations_results = [list(results[i]) for i in keep]
    evaluator.evaluations_length = [list(lengths[i]) for i in keep]


def monitor_curve(folder: Path, points: int = 200) -> list[tuple[int, float]]:
    """Training episode returns from the ``Monitor`` logs of every stretch of training
    (``<folder>/from<start>/*.monitor.csv``), as about ``points`` pairs (timesteps, mean
    return of a block of episodes). Within a stretch the episodes of all envs are put in
    time order and their lengths summed from the stretch's start; episodes past the start
    of the next stretch (abandoned work) are left out."""
    stretches = sorted((f for f in folder.glob("from*") if f.is_dir()), key=_segment_start)
    steps: list[int] = []
    rewards: list[float] = []
    for k, stretch in enumerate(stretches):
        begin = _segment_start(stretch)
        stop = _segment_start(stretches[k + 1]) if k + 1 < len(stretches) else None
        rows: list[tuple[float, int, float]] = []
        for path in sorted(stretch.glob("*.monitor.csv")):
            for line in path.read_text().splitlines()[2:]:
                parts = line.split(",")
                if len(parts) >= 3:
                    rows.append((float(parts[2]), int(parts[1]), float(parts[0])))
        rows.sort(key=lambda row: row[0])
        done = begin
        for _, length, reward in rows:
            done += length
            if stop is not None and done > stop:
                break
            steps.append(done)
            rewards.append(reward)
    if not rewards:
        return []
    size = max(len(rewards) // points, 1)
    r = np.asarray(rewards)
    return [(steps[i + size - 1], float(r[i:i + size].mean()))
            for i in range(0, len(r) - size + 1, size)]
