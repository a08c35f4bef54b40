"""Train an agent on a blackjack table and save the model, settings, learning curve and summary.

Usage::

    python scripts/train.py                                   # Q-learning on sutton-barto
    python scripts/train.py --algo mc --hands 2000000         # Monte Carlo control
    python scripts/train.py --algo maskable-ppo --rules vegas-strip --decks inf --timesteps 2000000
    python scripts/train.py --algo ppo --rules vegas-strip --seats 3 --seat 1 --others basic
    python scripts/train.py --out runs/x --resume             # continue an interrupted run

The output folder holds ``model.npz`` (tabular) or ``model.zip`` (SB3),
``settings.json`` (these options), ``learning_curve.png``, ``curve.json`` and
``summary.json`` (wall time, and the exact return, optimal return and regret
of the greedy policy when the rules have an infinite deck). Ctrl-C saves a
checkpoint (``checkpoint.npz`` / ``interrupted.zip``); ``--resume`` continues it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from blackjack_env.agents.cli import add_settings_arguments

TABULAR = ("q-learning", "mc")
SB3 = ("ppo", "dqn", "a2c", "maskable-ppo")


@dataclass
class Settings:
    algo: str = "q-learning"
    rules: str = "sutton-barto"
    decks: str = ""
    seats: int = 0
    seat: int = 0
    others: str = "dealer"
    obs_mode: str = ""
    hands: int = 1_000_000
    timesteps: int = 1_000_000
    seed: int = 1
    out: str = ""
    resume: bool = False
    epsilon_start: float = 1.0
    epsilon_end: float = 0.05
    explore_fraction: float = 0.5
    lr: float = 0.0
    curve_points: int = 10
    n_envs: int = 4
    subproc: bool = False
    eval_freq: int = 50_000
    eval_episodes: int = 2_000
    n_steps: int = 0
    checkpoint_freq: int = 200_000
    tensorboard: bool = False
    progress: bool = True


HELP = {
    "algo": f"learning algorithm: {' | '.join(TABULAR + SB3)}",
    "rules": "preset name of the table rules (see blackjack_env.list_presets())",
    "decks": "override the preset's decks: 1..8, or 'inf' for an infinite deck ('' keeps it)",
    "seats": "seats at the table (0 keeps the preset's)",
    "seat": "the learner's seat index",
    "others": "strategy of the other seats (dealer, basic, never-bust, random, stand)",
    "obs_mode": "observation mode ('' = tuple for tabular agents when the rules allow it, "
                "else multidiscrete)",
    "hands": "rounds to train a tabular agent for",
    "timesteps": "environment steps to train an SB3 agent for",
    "seed": "the run's seed (env resets, the agent's exploration, network init)",
    "out": "output folder ('' = runs/<algo>-<rules>)",
    "resume": "continue the checkpoint in --out (after Ctrl-C) up to the same budget",
    "epsilon_start": "tabular: exploration rate at the start",
    "epsilon_end": "tabular: exploration rate after the decay",
    "explore_fraction": "tabular: fraction of the hands over which epsilon decays linearly",
    "lr": "tabular: constant step size (0 = 1/N(s,a)^p: p=0.6 for mc, 0.8 for q-learning)",
    "curve_points": "exact evaluations of the greedy policy along the run (infinite deck)",
    "n_envs": "SB3: parallel training envs",
    "subproc": "SB3: run the training envs in subprocesses (SubprocVecEnv)",
    "eval_freq": "SB3: timesteps between evaluations on a separate env",
    "eval_episodes": "SB3: episodes per evaluation on the separate env",
    "n_steps": "SB3 PPO/A2C: rollout steps per env per update (0 = the algorithm's default)",
    "checkpoint_freq": "SB3: timesteps between checkpoints",
    "tensorboard": "SB3: write TensorBoard logs to <out>/tb",
    "progress": "show a progress bar",
}


def build_rules(settings: Settings):
    """The Rules the settings describe (preset, decks and seats overrides)."""
    from blackjack_env.engine import preset

    changes: dict[str, Any] = {}
    if settings.decks:
        text = settings.decks.strip().lower()
        if text in ("inf", "infinite", "none"):
            changes["decks"] = None
        else:
            try:
                changes["decks"] = int(text)
            except ValueError:
                raise ValueError(f"--decks {settings.decks!r}: use 1..8 or 'inf'") from None
    rules = preset(settings.rules, **changes)
    if settings.seats and settings.seats != rules.seats:
        rules = rules.replace(seats=settings.seats)
    return rules


def pick_obs_mode(settings: Settings, rules: Any) -> str:
    if settings.obs_mode:
        return settings.obs_mode
    if settings.algo in TABULAR:
        from blackjack_env.engine.rules import Surrender
        from blackjack_env.envs.observations import Layout, ObsMode

        if Layout(rules, ObsMode.TUPLE).n_play == 2 and rules.surrender is not Surrender.EARLY:
            return "tuple"
    return "multidiscrete"


def env_kwargs(settings: Settings, rules: Any, obs_mode: str) -> dict[str, Any]:
    return {"rules": rules, "seat": settings.seat, "others": settings.others,
            "obs_mode": obs_mode}


def check(settings: Settings) -> None:
    if settings.algo not in TABULAR + SB3:
        raise ValueError(f"--algo {settings.algo!r}; choose one of {', '.join(TABULAR + SB3)}")
    if settings.algo in SB3 and settings.obs_mode == "tuple":
        raise ValueError("stable-baselines3 cannot read the 'tuple' observation; use "
                         "--obs-mode multidiscrete, vector or dict")
    if settings.algo in TABULAR and settings.obs_mode in ("vector", "dict"):
        raise ValueError(f"tabular agents need discrete observations; --obs-mode "
                         f"{settings.obs_mode} is not one (use tuple or multidiscrete)")
    for name in ("hands", "timesteps", "n_envs", "curve_points", "eval_freq", "checkpoint_freq",
                 "eval_episodes"):
        if getattr(settings, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1")


def out_dir(settings: Settings) -> Path:
    return Path(settings.out or f"runs/{settings.algo}-{settings.rules}")


def train(settings: Settings) -> dict[str, Any]:
    """Run the training the settings describe; return the summary (also written to disk)."""
    check(settings)
    import blackjack_env  # noqa: F401  (registers the env ids)

    rules = build_rules(settings)
    obs_mode = pick_obs_mode(settings, rules)
    out = out_dir(settings)
    out.mkdir(parents=True, exist_ok=True)
    record = asdict(settings) | {"obs_mode": obs_mode, "rules_fields": rules.to_dict()}
    (out / "settings.json").write_text(json.dumps(record, indent=2) + "\n")
    if settings.algo in TABULAR:
        summary = _train_tabular(settings, rules, obs_mode, out)
    else:
        summary = _train_sb3(settings, rules, obs_mode, out)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def _grade(agent: Any, rules: Any, obs_mode: str) -> dict[str, float] | None:
    from blackjack_env.agents.grading import exact_grade

    return exact_grade(agent, rules, obs_mode)


def _train_tabular(settings: Settings, rules: Any, obs_mode: str, out: Path) -> dict[str, Any]:
    import gymnasium as gym

    from blackjack_env.agents.grading import analysis_reason
    from blackjack_env.agents.plots import learning_curve
    from blackjack_env.agents.tabular import MonteCarloAgent, QLearningAgent, TabularAgent
    from blackjack_env.agents.training import TrainLog, train_tabular

    env = gym.make("blackjack_env/Blackjack-v0", **env_kwargs(settings, rules, obs_mode))
    checkpoint = out / "checkpoint.npz"
    log = TrainLog()
    if settings.resume:
        source = checkpoint if checkpoint.exists() else out / "model.npz"
        if not source.exists():
            raise ValueError(f"--resume: no checkpoint.npz or model.npz in {out}")
        agent = TabularAgent.load(source)
        curve = out / "curve.json"
        if curve.exists():
            data = json.loads(curve.read_text())
            log.blocks = [tuple(b) for b in data.get("blocks", [])]
            log.grades = [tuple(g) for g in data.get("grades", [])]
            log.seconds = data.get("seconds", 0.0)
        print(f"resuming {source} at {agent.episodes_done} hands")
    else:
        klass = QLearningAgent if settings.algo == "q-learning" else MonteCarloAgent
        agent = klass(int(env.action_space.n), obs_mode=obs_mode,
                      epsilon_start=settings.epsilon_start, epsilon_end=settings.epsilon_end,
                      explore_fraction=settings.explore_fraction,
                      lr=settings.lr or None, seed=settings.seed)
    exact = analysis_reason(rules) is None
    grade = (lambda a: _grade(a, rules, obs_mode)["exact_return"]) if exact else None
    block = max(1000, min(50_000, settings.hands // 200))
    log = train_tabular(agent, env, settings.hands, seed=settings.seed, block=block,
                        curve_points=settings.curve_points, grade=grade,
                        progress=settings.progress, log=log)
    (out / "curve.json").write_text(json.dumps(log.to_dict()) + "\n")
    if log.interrupted:
        agent.save(checkpoint)
        print(f"\ninterrupted at {agent.episodes_done} hands: checkpoint saved to {checkpoint}; "
              f"continue with --out {out} --resume")
    else:
        agent.save(out / "model.npz")
        if checkpoint.exists():
            checkpoint.unlink()
    result = _grade(agent, rules, obs_mode) if exact else None
    optimal = result["optimal_return"] if result else None
    learning_curve(out / "learning_curve.png",
                   f"{settings.algo} on {settings.rules} ({rules.summary()})",
                   log.blocks, log.grades, optimal)
    return {
        "algo": settings.algo, "rules": settings.rules, "rules_summary": rules.summary(),
        "obs_mode": obs_mode, "hands": agent.episodes_done, "budget_hands": settings.hands,
        "seconds": round(log.seconds, 2), "finished": not log.interrupted,
        "states": len(agent.q), "exact": result,
        "model": str(out / ("checkpoint.npz" if log.interrupted else "model.npz")),
    }


def _train_sb3(settings: Settings, rules: Any, obs_mode: str, out: Path) -> dict[str, Any]:
    import numpy as np

    from blackjack_env.agents.grading import analysis_reason
    from blackjack_env.agents.plots import learning_curve
    from blackjack_env.agents.sb3 import SB3Config, train_sb3

    warnings.filterwarnings("ignore", message="Training and eval env are not of the same type")
    config = SB3Config(
        algo=settings.algo, env_kwargs=env_kwargs(settings, rules, obs_mode),
        timesteps=settings.timesteps, seed=settings.seed, n_envs=settings.n_envs,
        subproc=settings.subproc, eval_freq=settings.eval_freq,
        eval_episodes=settings.eval_episodes,
        checkpoint_freq=settings.checkpoint_freq, tensorboard=settings.tensorboard,
        hyperparameters=_rollout(settings),
    )
    exact = analysis_reason(rules) is None and obs_mode != "dict"
    grades: list[tuple[int, float]] = []
    callback = None
    if exact:
        from stable_baselines3.common.callbacks import BaseCallback

        from blackjack_env.agents.sb3 import SB3Agent

        every = max(settings.timesteps // max(settings.curve_points, 1), 1)

        class ExactCurve(BaseCallback):
            """Exact return of the greedy policy every ``every`` timesteps."""

            def __init__(self) -> None:
                super().__init__()
                self.next = every

            def _on_step(self) -> bool:
                if self.num_timesteps >= self.next:
                    self.next += every
                    g = _grade(SB3Agent(self.model, settings.algo, obs_mode), rules, obs_mode)
                    grades.append((self.num_timesteps, g["exact_return"]))
                    print(f"  [{self.num_timesteps} steps] exact return {g['exact_return']:+.5f}"
                          f" regret {g['regret']:.5f}", flush=True)
                return True

        callback = ExactCurve()
    resume = None
    if settings.resume:
        for name in ("interrupted.zip", "model.zip"):
            if (out / name).exists():
                resume = out / name
                break
        else:
            checkpoints = sorted((out / "checkpoints").glob("*.zip"), key=os.path.getmtime)
            if not checkpoints:
                raise ValueError(f"--resume: no interrupted.zip, model.zip or checkpoint in {out}")
            resume = checkpoints[-1]
        print(f"resuming {resume}")
    t0 = time.perf_counter()
    agent, finished = train_sb3(config, out, resume=resume, progress=settings.progress,
                                callback=callback)
    seconds = time.perf_counter() - t0
    if finished:
        agent.save(out / "model.zip")
    else:
        print(f"\ninterrupted: model saved to {out / 'interrupted.zip'}; continue with "
              f"--out {out} --resume")
    result = _grade(agent, rules, obs_mode) if exact else None
    if result is not None and (not grades or grades[-1][0] != agent.model.num_timesteps):
        grades.append((int(agent.model.num_timesteps), result["exact_return"]))
    blocks = _monitor_blocks(out / "monitor")
    evals: list[list[float]] = []
    eval_file = out / "eval" / "evaluations.npz"
    if eval_file.exists():
        with np.load(eval_file) as data:
            evals = [[int(t), float(r.mean())] for t, r in zip(data["timesteps"], data["results"],
                                                                strict=True)]
    (out / "curve.json").write_text(json.dumps({"blocks": blocks, "grades": grades,
                                                "evaluations": evals}) + "\n")
    learning_curve(out / "learning_curve.png",
                   f"{settings.algo} on {settings.rules} ({rules.summary()})",
                   blocks, grades, result["optimal_return"] if result else None,
                   xlabel="timesteps", block_label="mean episode return (training, Monitor)")
    return {
        "algo": settings.algo, "rules": settings.rules, "rules_summary": rules.summary(),
        "obs_mode": obs_mode, "timesteps": int(agent.model.num_timesteps),
        "budget_timesteps": settings.timesteps, "seconds": round(seconds, 2),
        "finished": finished, "exact": result,
        "eval_mean_return": evals[-1][1] if evals else None,
        "model": str(out / ("model.zip" if finished else "interrupted.zip")),
    }


def _rollout(settings: Settings) -> dict[str, Any]:
    """``--n-steps`` as SB3 hyper-parameters (PPO's minibatch kept no larger than a rollout)."""
    if not settings.n_steps or settings.algo == "dqn":
        return {}
    hyper: dict[str, Any] = {"n_steps": settings.n_steps}
    if settings.algo in ("ppo", "maskable-ppo"):
        hyper["batch_size"] = min(512, settings.n_steps * settings.n_envs)
    return hyper


def _monitor_blocks(folder: Path, blocks: int = 200) -> list[tuple[int, float]]:
    """Training episode returns from the Monitor files, averaged into about ``blocks`` points."""
    import numpy as np

    rewards, steps = [], []
    for path in sorted(folder.glob("*.monitor.csv")):
        lines = path.read_text().splitlines()[2:]
        for line in lines:
            r, length, t = line.split(",")[:3]
            rewards.append(float(r))
            steps.append((float(t), int(length)))
    if not rewards:
        return []
    order = np.argsort([t for t, _ in steps], kind="stable")
    r = np.asarray(rewards)[order]
    lengths = np.cumsum(np.asarray([n for _, n in steps])[order])
    size = max(len(r) // blocks, 1)
    out = []
    for i in range(0, len(r) - size + 1, size):
        out.append((int(lengths[i + size - 1]), float(r[i:i + size].mean())))
    return out


def print_summary(summary: dict[str, Any]) -> None:
    budget = (f"{summary['hands']:,} hands" if "hands" in summary
              else f"{summary['timesteps']:,} timesteps")
    print(f"{summary['algo']} on {summary['rules']} ({summary['rules_summary']})")
    print(f"  trained {budget} in {summary['seconds']:.1f} s "
          f"({'finished' if summary['finished'] else 'interrupted'}); model: {summary['model']}")
    exact = summary.get("exact")
    if exact:
        print(f"  exact return of the greedy policy {exact['exact_return']:+.5f}, optimal "
              f"{exact['optimal_return']:+.5f}, regret {exact['regret']:.5f}")
    else:
        print("  exact grade: not available (a finite shoe, or the dict observation the analysis "
              "cannot encode); scripts/evaluate.py simulates it")


def parse_args(argv: list[str] | None = None) -> Settings:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_settings_arguments(parser, Settings, HELP)
    return Settings(**vars(parser.parse_args(argv)))


def main(argv: list[str] | None = None) -> int:
    settings = parse_args(argv)
    print(f"seed {settings.seed}")
    try:
        summary = train(settings)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print_summary(summary)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
