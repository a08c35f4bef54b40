"""``blackjack-train``: train an agent and save its model, settings, learning curve and summary.

The output folder holds ``model.npz`` (tabular) or ``model.zip`` (stable-baselines3),
``settings.json`` (the settings actually used, with the exact rules), ``curve.json`` and
``learning_curve.png`` (the training reward, and the exact return of the greedy policy
beside the optimum when the rules have an infinite deck) and ``summary.json``.

``--algo jax-ppo`` trains ``--seeds`` agents at once inside one jitted JAX program on the
JAX table (:mod:`blackjack_env.agents.jax_ppo`; the ``[jax]`` extra): ``model.npz`` is
the greedy policy of the seed with the median final regret (of an even number of seeds,
the better of the two middle ones; the printed and saved ``regret_median`` is then the
mean of those two, and the model's own regret is printed beside it; an
:class:`~blackjack_env.agents.mlp.MLPAgent`, played with numpy alone),
``seeds/seed-<k>.npz`` every seed's, and the curve and summary give the exact regret of
every seed (median, worst). Such a run is one program: Ctrl-C stops it with nothing
saved, and it cannot be resumed.

Every option is checked before any work, and nothing is written when one is wrong.
Ctrl-C saves the state reached (``checkpoint.npz`` / ``interrupted.zip``), prints the
summary and exits with status 130 (``error: interrupted``), as every command; ``--resume``
continues the newest saved state of the folder (by step count: Ctrl-C's state, the
finished model, or an SB3 periodic checkpoint), keeps the earlier learning curve, and
refuses options that contradict the saved run (other rules, algorithm, observation
mode, ...) before writing anything. Options left out on a resume are the run's own.
"""

from __future__ import annotations

import math
import shutil
import time
import warnings
from dataclasses import dataclass, fields
from dataclasses import fields as dc_fields
from pathlib import Path
from typing import Annotated, Any

import gymnasium as gym
import numpy as np
import tyro
from tyro.constructors import PrimitiveConstructorSpec

from blackjack_env.agents.grading import analysis_reason, exact_grade
from blackjack_env.agents.plots import learning_curve
from blackjack_env.agents.registry import parse_decks
from blackjack_env.agents.sb3 import (
    DEFAULT_HYPERPARAMETERS,
    SB3Agent,
    SB3Config,
    exact_curve_callback,
    fit_rollout,
    monitor_curve,
    saved_timesteps,
    train_sb3,
)
from blackjack_env.agents.tabular import MonteCarloAgent, QLearningAgent, TabularAgent
from blackjack_env.agents.training import TrainLog, train_tabular
from blackjack_env.cli import (
    check_output_dir,
    missing_package,
    preset_option,
    read_json_object,
    write_json,
)
from blackjack_env.commands import UsageError, bet_sizes_option, run_command
from blackjack_env.engine import Rules
from blackjack_env.engine.rules import Surrender
from blackjack_env.envs.view.layout import Layout, ObsMode

__all__ = ["DEFAULTS", "Settings", "main", "run"]

TABULAR = ("q-learning", "mc")
SB3 = ("ppo", "dqn", "a2c", "maskable-ppo")
JAX = ("jax-ppo",)
OBS_MODES = ("tuple", "multidiscrete", "vector", "dict")


#: ``--decks`` read as text, so that ``--decks None`` reaches parse_decks (an infinite
#: deck, as in the other commands) instead of tyro's None (option left out).
_DECKS_TEXT = PrimitiveConstructorSpec(
    nargs=1, metavar="N|inf", instance_from_str=lambda args: args[0],
    is_instance=lambda value: value is None or isinstance(value, str),
    str_from_instance=lambda value: [str(value)])


def _default(text: str, metavar: str) -> Any:
    return tyro.conf.arg(metavar=metavar,
                         help_behavior_hint=f"(default: {text}; with --resume: the run's)")


@dataclass
class Settings:
    """Train an agent on a blackjack table (tabular Q-learning / Monte Carlo,
    stable-baselines3 PPO, DQN, A2C, MaskablePPO, or masked PPO in JAX over many seeds)."""

    algo: Annotated[str | None, _default("q-learning", "NAME")] = None
    """learning algorithm: q-learning | mc | ppo | dqn | a2c | maskable-ppo | jax-ppo"""
    rules: Annotated[str | None, _default("sutton-barto", "PRESET")] = None
    """preset name of the table rules (blackjack_env.list_presets())"""
    decks: Annotated[str | None, _DECKS_TEXT, _default("the preset's", "N|inf")] = None
    """decks in the shoe: 1..8, or inf for an infinite deck"""
    seats: Annotated[int | None, _default("the preset's", "INT")] = None
    """seats at the table"""
    seat: Annotated[int | None, _default("0", "INT")] = None
    """the learner's seat index"""
    others: Annotated[str | None, _default("dealer", "NAME")] = None
    """strategy of the other seats: dealer, basic, never-bust, random, stand"""
    obs_mode: Annotated[str | None, _default(
        "tuple for a tabular agent when the rules allow it, else multidiscrete", "MODE")] = None
    """observation mode: tuple | multidiscrete | vector | dict"""
    hands: Annotated[int | None, _default("1,000,000", "INT")] = None
    """tabular: rounds to train for, in all"""
    timesteps: Annotated[int | None, _default("1,000,000; jax-ppo: 3,000,000", "INT")] = None
    """stable-baselines3: environment steps to train for, in all (whole rollouts); jax-ppo:
    per seed"""
    seeds: Annotated[int | None, _default("4", "INT")] = None
    """jax-ppo: independent agents trained at once (vmap over seeds)"""
    bet_sizes: Annotated[str | None, _default("a fixed bet", "SIZES")] = None
    """jax-ppo: bet sizes in base bets offered at a BET step before each round, e.g. 1,2,4,8
    (the agent learns the bet; rewards stay in base bets)"""
    rule_space: Annotated[str | None, _default("none: one rule set, --rules", "v1|FILE")] = None
    """jax-ppo: one policy for every rule set of a rule space (v1: the default space; or a
    RuleSpace JSON file): each table plays rules drawn from the space's training rule sets,
    the network reads the rule features, and the run is graded exactly on the space's
    held-out rule sets (never trained on)"""
    hidden: Annotated[str | None, _default("64,64", "WIDTHS")] = None
    """jax-ppo: hidden layer widths of the actor and critic, e.g. 128,128"""
    seed: Annotated[int | None, _default("1", "INT")] = None
    """seed of the run: env resets, the agent's exploration, network init"""
    out: Annotated[str, tyro.conf.arg(metavar="FOLDER",
                                      help_behavior_hint="(default: runs/<algo>-<rules>)")] = ""
    """output folder (created if missing, and named in the first line printed)"""
    resume: bool = False
    """continue the newest saved state in --out up to the budget"""
    epsilon_start: Annotated[float | None, _default("1.0", "FLOAT")] = None
    """tabular: exploration rate at the start"""
    epsilon_end: Annotated[float | None, _default("0.05", "FLOAT")] = None
    """tabular: exploration rate after the decay"""
    explore_fraction: Annotated[float | None, _default("0.5", "FLOAT")] = None
    """tabular: fraction of the hands over which epsilon decays linearly"""
    lr: Annotated[float | None, _default("1/N(s,a)^p, p=0.6 for mc, 0.8 for q-learning",
                                         "FLOAT")] = None
    """tabular: constant step size in (0, 1]; jax-ppo: Adam's step size (default 0.001)"""
    curve_points: Annotated[int | None, _default("10", "INT")] = None
    """exact grades of the greedy policy along the run (infinite deck)"""
    n_envs: Annotated[int | None, _default("4; jax-ppo: 256", "INT")] = None
    """stable-baselines3: parallel training envs; jax-ppo: tables per seed"""
    subproc: bool = False
    """stable-baselines3: run the training envs in subprocesses (SubprocVecEnv)"""
    eval_freq: Annotated[int | None, _default("50,000", "INT")] = None
    """stable-baselines3: timesteps between evaluations on a separate env"""
    eval_episodes: Annotated[int | None, _default("2,000", "INT")] = None
    """stable-baselines3: episodes per evaluation on the separate env"""
    n_steps: Annotated[int | None, _default("the algorithm's, within the budget", "INT")] = None
    """stable-baselines3 PPO / A2C, jax-ppo: rollout steps per env per update"""
    checkpoint_freq: Annotated[int | None, _default("200,000", "INT")] = None
    """stable-baselines3: timesteps between periodic checkpoints"""
    tensorboard: bool = False
    """stable-baselines3: write TensorBoard logs to <out>/tb"""
    torch_threads: Annotated[int | None, _default("1", "INT")] = None
    """stable-baselines3: torch threads for the network (0 = torch's own: one per core)"""
    progress: bool = True
    """show a progress bar"""


#: The value of each option left out (None) on a fresh run.
DEFAULTS: dict[str, Any] = {
    "algo": "q-learning", "rules": "sutton-barto", "decks": None, "seats": None, "seat": 0,
    "others": "dealer", "obs_mode": None, "hands": 1_000_000, "timesteps": 1_000_000,
    "seed": 1, "epsilon_start": 1.0, "epsilon_end": 0.05, "explore_fraction": 0.5,
    "lr": None, "curve_points": 10, "n_envs": 4, "eval_freq": 50_000,
    "eval_episodes": 2_000, "n_steps": None, "checkpoint_freq": 200_000, "seeds": 4,
    "torch_threads": 1, "bet_sizes": None, "rule_space": None, "hidden": None,
}

#: The JSON types a settings.json may hold for each option.
_TYPES: dict[str, tuple[type, ...]] = {
    name: (str,) if name in ("algo", "rules", "others", "obs_mode", "bet_sizes", "rule_space",
                             "hidden") else
    (str, int) if name == "decks" else
    (float, int) if name in ("epsilon_start", "epsilon_end", "explore_fraction", "lr") else
    (int,)
    for name in DEFAULTS
}

#: Options that change what is learned: on a resume they must equal the run's.
IDENTITY = ("algo", "obs_mode", "seat", "others", "epsilon_start", "epsilon_end",
            "explore_fraction", "lr", "n_envs", "n_steps", "eval_episodes")

#: Files and folders of a run, replaced when a fresh run starts in the same folder.
RUN_FILES = ("model.npz", "model-bets.npz", "model.zip", "model.json", "checkpoint.npz",
             "interrupted.zip", "interrupted.json", "curve.json", "summary.json",
             "learning_curve.png", "sb3_config.json", "settings.json")
RUN_FOLDERS = ("monitor", "eval", "checkpoints", "seeds")


@dataclass
class Plan:
    """Everything a run needs, checked before any file is written."""

    values: dict[str, Any]
    rules: Any
    obs_mode: str
    out: Path
    resume_from: Path | None
    done: int
    env_kwargs: dict[str, Any]
    hyper: dict[str, Any]


def out_dir(settings: Settings) -> Path:
    algo = settings.algo or DEFAULTS["algo"]
    rules = settings.rules or DEFAULTS["rules"]
    if settings.rule_space:  # (a space file: its name without the folders and suffix)
        rules = "space-" + Path(settings.rule_space).stem
    return Path(settings.out or f"runs/{algo}-{rules}")


def build_rules(name: str, decks: Any, seats: int | None) -> Any:
    """The Rules of a preset with the decks and seats overrides."""
    rules = preset_option(name).replace(**parse_decks(decks))
    if seats and seats != rules.seats:
        rules = rules.replace(seats=seats)
    return rules


def _saved_value(saved: dict[str, Any], name: str) -> Any:
    value = saved.get(name)
    # runs written before settings.json recorded actual values used "" and 0 for "default"
    if (name in ("decks", "obs_mode", "rules", "algo", "others") and value == "") or (
            name in ("seats", "n_steps") and value == 0) or (name == "lr" and value == 0.0):
        return None
    return value


def _check_values(v: dict[str, Any]) -> None:
    if v["algo"] not in TABULAR + SB3 + JAX:
        raise UsageError(f"--algo {v['algo']!r}: choose one of "
                         f"{', '.join(TABULAR + SB3 + JAX)}")
    if v["bet_sizes"] is not None and v["algo"] not in JAX:
        raise UsageError(f"--bet-sizes {v['bet_sizes']}: only --algo jax-ppo learns a bet "
                         f"decision; leave it out for {v['algo']}")
    for name in ("rule_space", "hidden"):
        if v[name] is not None and v["algo"] not in JAX:
            raise UsageError(f"--{name.replace('_', '-')} {v[name]}: only --algo jax-ppo "
                             f"takes it; leave it out for {v['algo']}")
    if v["algo"] in JAX and v["obs_mode"] not in (None, "vector"):
        raise UsageError(f"--obs-mode {v['obs_mode']}: jax-ppo's network reads the vector "
                         f"observation; leave --obs-mode out")
    if v["obs_mode"] is not None and v["obs_mode"] not in OBS_MODES:
        raise UsageError(f"--obs-mode {v['obs_mode']!r}: choose one of {', '.join(OBS_MODES)}")
    if v["algo"] in SB3 and v["obs_mode"] == "tuple":
        raise UsageError("--obs-mode tuple: stable-baselines3 cannot read the tuple "
                         "observation; use multidiscrete, vector or dict")
    if v["algo"] in TABULAR and v["obs_mode"] in ("vector", "dict"):
        raise UsageError(f"--obs-mode {v['obs_mode']}: tabular agents need a discrete "
                         f"observation; use tuple or multidiscrete")
    for name in ("hands", "timesteps", "curve_points", "n_envs", "eval_freq", "eval_episodes",
                 "checkpoint_freq", "seeds"):
        if v[name] < 1:
            raise UsageError(f"--{name.replace('_', '-')} {v[name]}: must be at least 1")
    if v["n_steps"] is not None and v["n_steps"] < 2:
        raise UsageError(f"--n-steps {v['n_steps']}: must be at least 2")
    if v["seed"] < 0:
        raise UsageError(f"--seed {v['seed']}: must be 0 or more")
    if v["torch_threads"] < 0:
        raise UsageError(f"--torch-threads {v['torch_threads']}: must be 1 or more, or 0 for "
                         f"torch's own setting (one thread per core)")
    if v["seat"] < 0:
        raise UsageError(f"--seat {v['seat']}: must be 0 or more")
    if v["seats"] is not None and v["seats"] < 1:
        raise UsageError(f"--seats {v['seats']}: must be at least 1")
    for name in ("epsilon_start", "epsilon_end", "explore_fraction"):
        if not 0.0 <= v[name] <= 1.0:
            raise UsageError(f"--{name.replace('_', '-')} {v[name]}: must be between 0 and 1")
    _check_lr(v["algo"], v["lr"])


def _check_lr(algo: str, lr: float | None) -> None:
    """``--lr`` means a different thing to each kind of learner, and nothing to SB3's."""
    if lr is None:
        return
    if algo in SB3:
        raise UsageError(f"--lr {lr}: --algo {algo} (stable-baselines3) keeps its own "
                         f"learning rate (agents/sb3.py DEFAULT_HYPERPARAMETERS); --lr sets "
                         f"the step size of {', '.join(TABULAR)} and jax-ppo: leave it out")
    if 0.0 < lr <= 1.0:
        return
    if algo in JAX:
        from blackjack_env.agents.jax_ppo import JaxPPOConfig  # (jax: heavy)

        raise UsageError(f"--lr {lr}: jax-ppo's Adam step size must be in (0, 1]; leave it "
                         f"out for its default {JaxPPOConfig.lr}")
    raise UsageError(f"--lr {lr}: the tabular step size must be in (0, 1]; leave it out for "
                     f"1/N(s,a)^p")


def pick_obs_mode(algo: str, obs_mode: str | None, rules: Any) -> str:
    """The observation mode asked for, or the default one for the algorithm and rules."""
    if obs_mode:
        return obs_mode
    if algo in JAX:
        return "vector"
    if (algo in TABULAR and Layout(rules, ObsMode.TUPLE).n_play == 2
            and rules.surrender is not Surrender.EARLY):
        return "tuple"
    return "multidiscrete"


def _sb3_hyper(v: dict[str, Any], budget_left: int) -> dict[str, Any]:
    hyper = dict(DEFAULT_HYPERPARAMETERS[v["algo"]])
    if v["n_steps"] is not None and v["algo"] != "dqn":
        hyper["n_steps"] = v["n_steps"]
        if "batch_size" in hyper:
            hyper["batch_size"] = min(hyper["batch_size"], v["n_steps"] * v["n_envs"])
    return fit_rollout(v["algo"], hyper, v["n_envs"], budget_left)


def prepare(settings: Settings) -> Plan:
    """Check every option (and, on a resume, the saved run); write nothing."""
    out = check_output_dir(out_dir(settings), "--out")
    given = {f.name: getattr(settings, f.name) for f in fields(settings)}
    if given["algo"] in JAX:
        return _prepare_jax(settings, out, given)
    saved: dict[str, Any] = {}
    if settings.resume:
        if not (out / "settings.json").exists():
            raise UsageError(f"--resume: {out} holds no settings.json of a training run to "
                             f"continue (give the run's folder with --out)")
        saved = read_json_object(out / "settings.json")
    values: dict[str, Any] = {}
    for name, default in DEFAULTS.items():
        value = given[name]
        if value is None and settings.resume:
            value = _saved_value(saved, name)
            if value is not None and not isinstance(value, _TYPES[name]):
                raise UsageError(f"{out / 'settings.json'}: {name} is {value!r}, not a "
                                 f"{_TYPES[name][0].__name__}: the file is damaged")
        values[name] = default if value is None else value
    _check_values(values)
    values.update(subproc=settings.subproc, tensorboard=settings.tensorboard,
                  progress=settings.progress)
    rules = build_rules(values["rules"], values["decks"], values["seats"])
    if settings.resume:
        _check_matches_saved(given, values, saved, rules, out)
    obs_mode = pick_obs_mode(values["algo"], values["obs_mode"], rules)
    if settings.resume and saved.get("obs_mode") and saved["obs_mode"] != obs_mode:
        raise UsageError(f"--resume: the run in {out} uses --obs-mode {saved['obs_mode']}, "
                         f"not {obs_mode}")
    values["obs_mode"] = obs_mode
    env_kwargs = {"rules": rules, "seat": values["seat"], "others": values["others"],
                  "obs_mode": obs_mode}
    _check_env(env_kwargs)
    tabular = values["algo"] in TABULAR
    budget = values["hands"] if tabular else values["timesteps"]
    resume_from, done = (None, 0)
    if settings.resume:
        resume_from, done = newest_state(out, tabular)
        unit = "hands" if tabular else "timesteps"
        if budget <= done:
            raise UsageError(f"--resume: the run in {out} has already trained {done:,} {unit} "
                             f"(budget --{unit} {budget:,}); give a larger --{unit} to go on")
    hyper: dict[str, Any] = {}
    if not tabular:
        try:
            # checks now, before any work, that sb3_contrib and stable_baselines3 (the
            # [train] extra) are there
            import sb3_contrib  # noqa: F401
            import stable_baselines3  # noqa: F401  (stable_baselines3 too)
        except ImportError as err:
            raise UsageError(f"--algo {values['algo']} needs stable-baselines3: "
                             f'pip install -e ".[train]" ({err})') from None
        if settings.resume and isinstance(saved.get("hyperparameters"), dict):
            hyper = dict(saved["hyperparameters"])
        else:
            hyper = _sb3_hyper(values, budget)
        values["n_steps"] = hyper.get("n_steps")
    return Plan(values, rules, obs_mode, out, resume_from, done, env_kwargs, hyper)


def _check_matches_saved(given: dict[str, Any], values: dict[str, Any], saved: dict[str, Any],
                         rules: Any, out: Path) -> None:
    """Refuse options that contradict the run being resumed."""
    if isinstance(saved.get("rules_fields"), dict):
        try:
            before = Rules.from_dict(saved["rules_fields"])
        except (ValueError, TypeError) as err:
            raise UsageError(f"{out / 'settings.json'}: its rules_fields are damaged ({err})"
                             ) from None
        if before != rules:
            changed = [k for k, v in rules.to_dict().items() if before.to_dict().get(k) != v]
            raise UsageError(
                f"--resume: the run in {out} was trained on {saved.get('rules')} "
                f"({before.summary()}); these options ask for {values['rules']} "
                f"({rules.summary()}), which differs in {', '.join(changed)}; "
                f"leave out --rules/--decks/--seats to continue it, or train in a new --out")
    for name in IDENTITY:
        old = _saved_value(saved, name)
        if given[name] is not None and old is not None and given[name] != old:
            raise UsageError(f"--resume: the run in {out} was trained with "
                             f"--{name.replace('_', '-')} {old}, not {given[name]}; leave the "
                             f"option out to continue it, or train in a new --out")


def _check_env(env_kwargs: dict[str, Any]) -> None:
    """Build the env once, so a bad seat, seat strategy or mode is refused before work."""
    gym.make("blackjack_env/Blackjack-v0", **env_kwargs).close()


def newest_state(out: Path, tabular: bool) -> tuple[Path, int]:
    """The saved state of a run with the most training in it, and its step count:
    ``checkpoint.npz`` / ``model.npz`` by hands played, or ``interrupted.zip`` /
    ``model.zip`` / ``checkpoints/*.zip`` by timesteps (ties: the finished model)."""
    candidates: list[tuple[int, int, Path]] = []
    if tabular:
        for rank, name in enumerate(("model.npz", "checkpoint.npz")):
            path = out / name
            if path.exists():
                candidates.append((TabularAgent.load(path).episodes_done, -rank, path))
    else:
        paths = [out / "model.zip", out / "interrupted.zip",
                 *sorted((out / "checkpoints").glob("*.zip"))]
        for rank, path in enumerate(paths):
            if path.exists():
                candidates.append((saved_timesteps(path), -rank, path))
    if not candidates:
        names = "model.npz or checkpoint.npz" if tabular else \
            "model.zip, interrupted.zip or checkpoints/*.zip"
        raise UsageError(f"--resume: {out} holds no saved state ({names}) to continue")
    steps, _, path = max(candidates)
    return path, steps


def run(settings: Settings, say: Any = print, *, announce: bool = True) -> dict[str, Any]:
    """Train as the settings say; return the summary (also written to ``summary.json``).

    ``announce``: first say what is trained, for how long, with which seed and where (the
    main job, which says it in its own words, turns it off)."""
    plan = prepare(settings)
    out = plan.out
    if plan.resume_from is None and out.exists() and any((out / n).exists()
                                                         for n in RUN_FILES + RUN_FOLDERS):
        say(f"starting afresh: the earlier run's files in {out} are replaced "
            f"(--resume continues a run instead)")
        for name in RUN_FILES:
            (out / name).unlink(missing_ok=True)
        for name in RUN_FOLDERS:
            if (out / name).is_dir():
                shutil.rmtree(out / name)
    out.mkdir(parents=True, exist_ok=True)
    if announce:
        v = plan.values
        budget = (f"{v['hands']:,} hands" if v["algo"] in TABULAR
                  else f"{v['timesteps']:,} timesteps")
        say(f"training {v['algo']} on {v['rules']} for {budget}, seed {v['seed']}, into {out}")
    if plan.values["algo"] in JAX:
        return _train_jax(plan, say)
    if plan.values["algo"] in TABULAR:
        return _train_tabular(plan, say)
    return _train_sb3(plan, say)


#: Options that only one kind of learner reads (left out of the other's settings.json).
TABULAR_ONLY = ("hands", "epsilon_start", "epsilon_end", "explore_fraction", "lr")
SB3_ONLY = ("timesteps", "n_envs", "subproc", "eval_freq", "eval_episodes", "n_steps",
            "checkpoint_freq", "tensorboard", "torch_threads")
JAX_ONLY = ("seeds", "bet_sizes", "rule_space", "hidden")


def _record(plan: Plan, extra: dict[str, Any]) -> dict[str, Any]:
    """settings.json: the values used (the shoe's decks and the seats the rules have),
    without the options the algorithm does not read."""
    rules = plan.rules
    unread: tuple[str, ...] = SB3_ONLY if plan.values["algo"] in TABULAR else TABULAR_ONLY
    if plan.values["algo"] in JAX:
        unread = ("hands", "epsilon_start", "epsilon_end", "explore_fraction", "subproc",
                  "eval_freq", "eval_episodes", "checkpoint_freq", "tensorboard", "torch_threads")
    else:
        unread = (*unread, *JAX_ONLY)
    values = {k: v for k, v in plan.values.items() if k not in unread and k != "progress"}
    return {**values, "decks": "inf" if rules.decks is None else rules.shoe_decks,
            "seats": rules.seats, "out": str(plan.out), **extra,
            "rules_fields": rules.to_dict()}


def _previous_curve(out: Path, upto: int) -> dict[str, list[Any]]:
    """The curve of the stretches before a resume, up to the resumed step."""
    path = out / "curve.json"
    if not path.exists():
        return {"blocks": [], "grades": []}
    data = read_json_object(path)
    return {key: [list(p) for p in data.get(key, []) if p and p[0] <= upto]
            for key in ("blocks", "grades")}


def _title(plan: Plan) -> str:
    return f"{plan.values['algo']} on {plan.values['rules']} ({plan.rules.summary()})"


def _train_tabular(plan: Plan, say: Any) -> dict[str, Any]:
    v, out, rules, obs_mode = plan.values, plan.out, plan.rules, plan.obs_mode
    env = gym.make("blackjack_env/Blackjack-v0", **plan.env_kwargs)
    log = TrainLog()
    if plan.resume_from is not None:
        agent = TabularAgent.load(plan.resume_from)
        previous = _previous_curve(out, plan.done)
        log.blocks = [(int(n), float(r)) for n, r in previous["blocks"]]
        log.grades = [(int(n), float(g)) for n, g in previous["grades"]]
        say(f"resuming {plan.resume_from} at {plan.done:,} hands")
    else:
        klass = QLearningAgent if v["algo"] == "q-learning" else MonteCarloAgent
        agent = klass(int(env.action_space.n), obs_mode=obs_mode,
                      epsilon_start=v["epsilon_start"], epsilon_end=v["epsilon_end"],
                      explore_fraction=v["explore_fraction"], lr=v["lr"], seed=v["seed"])
    hyper = agent.hyperparameters()
    write_json(out / "settings.json", _record(plan, {
        "lr_power": hyper["lr_power"],
        "step_size": f"{hyper['lr']}" if hyper["lr"] else f"1/N(s,a)^{hyper['lr_power']}"}))
    unavailable = analysis_reason(rules)
    exact = unavailable is None

    def grade(a: Any) -> float:
        return exact_grade(a, rules, obs_mode)["exact_return"]

    hands = v["hands"]
    block = max(1000, min(50_000, hands // 200))
    seconds_before = _previous_seconds(out) if plan.resume_from is not None else 0.0
    log.seconds = seconds_before
    log = train_tabular(agent, env, hands, seed=v["seed"], block=block,
                        curve_points=v["curve_points"], grade=grade if exact else None,
                        progress=v["progress"], log=log)
    checkpoint = out / "checkpoint.npz"
    if log.interrupted:
        agent.save(checkpoint)
        say(f"\ninterrupted at {agent.episodes_done:,} hands: saved {checkpoint}; "
            f"continue with --out {out} --resume")
    else:
        agent.save(out / "model.npz")
        checkpoint.unlink(missing_ok=True)
    result = exact_grade(agent, rules, obs_mode) if exact else None
    if result is not None and (not log.grades or log.grades[-1][0] != agent.episodes_done):
        log.grades.append((agent.episodes_done, result["exact_return"]))
    write_json(out / "curve.json", log.to_dict())
    learning_curve(out / "learning_curve.png", _title(plan), log.blocks, log.grades,
                   result["optimal_return"] if result else None)
    summary = {
        "algo": v["algo"], "rules": v["rules"], "rules_summary": rules.summary(),
        "obs_mode": obs_mode, "hands": agent.episodes_done, "budget_hands": hands,
        "seconds": round(log.seconds, 2), "finished": not log.interrupted,
        "states": len(agent.q), "exact": result, "exact_unavailable": unavailable,
        "model": str(checkpoint if log.interrupted else out / "model.npz"),
    }
    write_json(out / "summary.json", summary)
    return summary


def _previous_seconds(out: Path) -> float:
    path = out / "curve.json"
    if not path.exists():
        return 0.0
    seconds = read_json_object(path).get("seconds", 0.0)
    return float(seconds) if isinstance(seconds, (int, float)) else 0.0


def _train_sb3(plan: Plan, say: Any) -> dict[str, Any]:
    v, out, rules, obs_mode = plan.values, plan.out, plan.rules, plan.obs_mode
    warnings.filterwarnings("ignore", message="Training and eval env are not of the same type")
    config = SB3Config(
        algo=v["algo"], env_kwargs=plan.env_kwargs, timesteps=v["timesteps"], seed=v["seed"],
        n_envs=v["n_envs"], subproc=v["subproc"], eval_freq=v["eval_freq"],
        eval_episodes=v["eval_episodes"], checkpoint_freq=v["checkpoint_freq"],
        tensorboard=v["tensorboard"], hyperparameters=plan.hyper,
        torch_threads=v["torch_threads"],
    )
    write_json(out / "settings.json", _record(plan, {"hyperparameters": plan.hyper}))
    unavailable = analysis_reason(rules) or (
        "the agent reads the dict observation, which the analysis cannot encode"
        if obs_mode == "dict" else None)
    exact = unavailable is None
    previous = _previous_curve(out, plan.done) if plan.resume_from is not None else \
        {"grades": []}
    grades: list[tuple[int, float]] = [(int(n), float(g)) for n, g in previous["grades"]]

    def grade(model: Any) -> dict[str, Any]:
        return exact_grade(SB3Agent(model, v["algo"], obs_mode), rules, obs_mode)

    callback = None
    if exact:
        rollout = (plan.hyper.get("n_steps") or plan.hyper.get("train_freq") or 1) * v["n_envs"]
        every = max(math.ceil(v["timesteps"] / v["curve_points"]), rollout)
        callback = exact_curve_callback(
            grade, every, grades, say,
            on_grade=lambda: write_json(out / "curve.json", {"grades": [list(g) for g in grades]}))
    if plan.resume_from is not None:
        say(f"resuming {plan.resume_from} at {plan.done:,} timesteps")
    t0 = time.perf_counter()
    agent, finished = train_sb3(config, out, resume=plan.resume_from, progress=v["progress"],
                                callback=callback, say=say)
    seconds = time.perf_counter() - t0
    threads = read_json_object(out / "sb3_config.json").get("torch_threads_used")
    steps = int(agent.model.num_timesteps)
    if not finished:
        say(f"\ninterrupted at {steps:,} timesteps: saved {out / 'interrupted.zip'}; "
            f"continue with --out {out} --resume")
    result = grade(agent.model) if exact else None
    if result is not None and (not grades or grades[-1][0] != steps):
        grades.append((steps, result["exact_return"]))
    blocks = monitor_curve(out / "monitor")
    evals: list[list[float]] = []
    eval_file = out / "eval" / "evaluations.npz"
    if eval_file.exists():
        with np.load(eval_file) as data:
            evals = [[int(t), float(r.mean())] for t, r in zip(data["timesteps"], data["results"],
                                                                strict=True)]
    write_json(out / "curve.json", {"blocks": [list(b) for b in blocks],
                                    "grades": [list(g) for g in grades], "evaluations": evals})
    learning_curve(out / "learning_curve.png", _title(plan), blocks, grades,
                   result["optimal_return"] if result else None, xlabel="timesteps",
                   block_label="mean episode return (training, Monitor)")
    summary = {
        "algo": v["algo"], "rules": v["rules"], "rules_summary": rules.summary(),
        "obs_mode": obs_mode, "timesteps": steps, "budget_timesteps": v["timesteps"],
        "seconds": round(seconds, 2), "finished": finished, "exact": result,
        "exact_unavailable": unavailable,
        "eval_mean_return": evals[-1][1] if evals else None, "torch_threads": threads,
        "model": str(out / ("model.zip" if finished else "interrupted.zip")),
    }
    write_json(out / "summary.json", summary)
    return summary


def _prepare_jax(settings: Settings, out: Path, given: dict[str, Any]) -> Plan:
    """``prepare`` for jax-ppo: its defaults, and the JAX table built once to check the
    rules it is asked for; write nothing."""
    if settings.resume:
        raise UsageError("--resume: a jax-ppo run is one jitted program and cannot be "
                         "resumed; train again with a larger --timesteps")

    try:
        # deferred: loads flax, jax, optax (the optional [jax] extra)
        from blackjack_env.agents.jax_ppo import JaxPPOConfig
    except ImportError as err:
        raise UsageError(f"--algo jax-ppo needs JAX, flax and optax: pip install -e "
                         f'".[jax]" ({err})') from None
    jax_defaults = {f.name: f.default for f in dc_fields(JaxPPOConfig)}
    own = {"timesteps": jax_defaults["total_timesteps"], "n_envs": jax_defaults["num_envs"],
           "n_steps": jax_defaults["num_steps"], "lr": jax_defaults["lr"],
           "curve_points": jax_defaults["curve_points"], "seeds": jax_defaults["seeds"]}
    values = {name: (given[name] if given[name] is not None else own.get(name, default))
              for name, default in DEFAULTS.items()}
    _check_values(values)
    if values["n_steps"] < 2:
        raise UsageError(f"--n-steps {values['n_steps']}: must be at least 2")
    values.update(subproc=settings.subproc, tensorboard=settings.tensorboard,
                  progress=settings.progress, obs_mode="vector")
    if values["rule_space"] is not None:
        return _prepare_jax_space(values, given, out)
    rules = build_rules(values["rules"], values["decks"], values["seats"])
    if rules.seats > 1:
        asked = (f"--seats {values['seats']}" if values["seats"] is not None else
                 f"--rules {values['rules']} ({rules.seats} seats)")
        raise UsageError(
            f"{asked}: --algo jax-ppo trains one learner alone at each JAX table. One policy "
            f"at all {rules.seats} seats of a JAX table: python -m "
            f"blackjack_env.agents.jax_seats --seats {rules.seats} --rules {values['rules']} "
            f"(it grades the policy exactly and saves no model); one learner at --seat among "
            f"{rules.seats} seats, --others playing the rest: --algo ppo, maskable-ppo or "
            f"q-learning")
    env_kwargs = {"rules": rules, "seat": values["seat"], "others": values["others"],
                  "obs_mode": "vector"}
    _check_env(env_kwargs)
    batch = values["n_envs"] * values["n_steps"]
    minibatches = next(m for m in (8, 4, 2, 1) if batch % m == 0)
    sizes = bet_sizes_option(values["bet_sizes"]) or None
    try:
        config = JaxPPOConfig(
            rules=rules, seeds=values["seeds"], seed=values["seed"],
            total_timesteps=values["timesteps"], num_envs=values["n_envs"],
            num_steps=values["n_steps"], num_minibatches=minibatches, lr=values["lr"],
            curve_points=values["curve_points"], bet_sizes=sizes,
            **_hidden(values["hidden"]))
    except ValueError as err:
        text = str(err).replace("JaxPPOConfig.total_timesteps", "--timesteps")
        raise UsageError(text) from None
    try:
        # deferred: loads flax, jax, optax (the optional [jax] extra)
        from blackjack_env.agents.jax_ppo import make_env

        make_env(config, seat=values["seat"], others=values["others"])
    except ImportError as err:
        raise UsageError(f"--algo jax-ppo needs the JAX table: pip install -e \".[jax]\" "
                         f"({err})") from None
    except (ValueError, TypeError, NotImplementedError) as err:
        bets = f" with --bet-sizes {values['bet_sizes']}" if sizes else ""
        raise UsageError(f"--algo jax-ppo: the JAX table cannot play these rules "
                         f"({rules.summary()}){bets}: {err}") from None
    return Plan(values, rules, "vector", out, None, 0, env_kwargs, {"config": config})


def _hidden(text: str | None) -> dict[str, Any]:
    """``--hidden`` text (``128,128``) as the config's ``hidden`` (nothing: its default)."""
    if text is None:
        return {}
    try:
        widths = tuple(int(x) for x in str(text).split(","))
    except ValueError:
        widths = ()
    if not widths or min(widths) < 1:
        raise UsageError(f"--hidden {text!r}: give one or more widths >= 1 separated by commas, "
                         f"e.g. 128,128")
    return {"hidden": widths}


def _prepare_jax_space(values: dict[str, Any], given: dict[str, Any], out: Path) -> Plan:
    """``prepare`` for jax-ppo over a rule space (``--rule-space``): the options that fix
    one rule set are refused; the space read and its table built once to check them;
    nothing is written."""
    for name in ("rules", "decks", "seats", "bet_sizes", "seat", "others"):
        if given.get(name) is not None:
            raise UsageError(f"--{name.replace('_', '-')} {given[name]}: --rule-space "
                             f"{values['rule_space']} draws every table's rules from the "
                             f"space (one learner seat, a fixed bet); leave it out")
    # deferred: loads flax, jax, optax (the optional [jax] extra)
    from blackjack_env.agents.jax_ppo import JaxPPOConfig, space_of

    batch = values["n_envs"] * values["n_steps"]
    minibatches = next(m for m in (8, 4, 2, 1) if batch % m == 0)
    try:
        config = JaxPPOConfig(
            rule_space=values["rule_space"], seeds=values["seeds"], seed=values["seed"],
            total_timesteps=values["timesteps"], num_envs=values["n_envs"],
            num_steps=values["n_steps"], num_minibatches=minibatches, lr=values["lr"],
            curve_points=values["curve_points"], **_hidden(values["hidden"]))
        space = space_of(config)
    except ValueError as err:
        text = str(err).replace("JaxPPOConfig.total_timesteps", "--timesteps")
        raise UsageError(text.replace("rule_space=", "--rule-space ")) from None
    if not space.infinite:
        raise UsageError(f"--rule-space {values['rule_space']}: the space's shoes are finite; "
                         f"a rule-space run is graded exactly, which needs an infinite deck")
    values["rules"] = space.name
    return Plan(values, space.base, "vector", out, None, 0,
                {"rules": space, "obs_mode": "vector"}, {"config": config, "space": space})


#: What a bet-deciding run's files are, said in its summary.
BET_MODELS = (
    "model.npz (and seeds/seed-<k>.npz) is the play of the policy alone, at a fixed bet: what "
    "the web table and blackjack-chart play; model-bets.npz (seeds/seed-<k>-bets.npz) is the "
    "whole policy, bets included: blackjack-evaluate plays it with the same --bet-sizes (and "
    "--ceiling grades its bets against the perfect counter), as do the numpy envs made with "
    "the same bet_sizes (MLPAgent.act / greedy_batch with the env's action mask)")


def _train_jax(plan: Plan, say: Any) -> dict[str, Any]:
    # deferred: loads flax, jax, optax (the optional [jax] extra)
    from blackjack_env.agents.jax_ppo import make_env, train_seeds

    v, out, rules = plan.values, plan.out, plan.rules
    config = plan.hyper["config"]
    space = plan.hyper.get("space")
    extra: dict[str, Any] = {"hyperparameters": config.to_dict()}
    if space is not None:
        extra["rule_space"] = space.to_dict()
    write_json(out / "settings.json", _record(plan, extra))
    if space is not None:
        say(f"building the rule bank of {space.name}: {space.training_size:,} training rule "
            f"sets ({len(space):,} in the space, {len(space) - space.training_size:,} held out)")
    env, env_params = make_env(config, seat=v["seat"], others=v["others"])
    what = (f"every rule set of {space.name}" if space is not None else
            f"{v['rules']} ({rules.summary()})")
    say(f"jax-ppo: {config.seeds} seeds x {config.timesteps:,} steps, {config.num_envs} tables "
        f"each, on {what}")
    result = train_seeds(config, env, env_params, rules=rules, say=say)
    summary_seeds = result.summary()
    finals = result.final_regrets()
    best_seed = int(summary_seeds.get("median_seed", 0))
    plays = result.play_agents()
    for k, row in enumerate(result.agents):
        plays[k].save(out / "seeds" / f"seed-{k}.npz")
        if config.bet_sizes:
            row[-1].save(out / "seeds" / f"seed-{k}-bets.npz")
    plays[best_seed].save(out / "model.npz")
    if config.bet_sizes:
        result.agents[best_seed][-1].save(out / "model-bets.npz")
    per_update = config.batch_size
    returns = np.median(result.metrics["episode_return"], axis=0)
    blocks = [[(i + 1) * per_update, float(r)] for i, r in enumerate(returns)]
    grades: list[list[float]] = []
    exact = None
    curve: dict[str, Any] = {"blocks": blocks, "timesteps": result.timesteps}
    if result.grades is not None and finals is not None:
        by_point = np.array([[g["exact_return"] for g in row] for row in result.grades])
        regrets = np.array([[g["regret"] for g in row] for row in result.grades])
        grades = [[t, float(np.median(by_point[:, p]))] for p, t in enumerate(result.timesteps)]
        curve.update(grades=grades, optimal_return=summary_seeds["optimal_return"],
                     regret_median=[float(x) for x in np.median(regrets, axis=0)],
                     regret_worst=[float(x) for x in regrets.max(axis=0)],
                     regret_by_seed=regrets.tolist())
        exact = dict(result.grades[best_seed][-1])
    else:
        curve["grades"] = []
    write_json(out / "curve.json", curve)
    learning_curve(out / "learning_curve.png",
                   _title(plan) + f", {config.seeds} seeds (median)", blocks, grades,
                   exact["optimal_return"] if exact else None, xlabel="timesteps per seed",
                   block_label="mean return per round (training, sampling; median of seeds)")
    summary = {
        "algo": v["algo"], "rules": v["rules"], "rules_summary": rules.summary(),
        "obs_mode": "vector", "timesteps": config.timesteps, "budget_timesteps": v["timesteps"],
        "seconds": summary_seeds["train_seconds"], "finished": True, "exact": exact,
        "model": str(out / "model.npz"), "model_seed": best_seed, **summary_seeds,
    }
    if result.held_out is not None:  # the model graded on every held-out rule set
        held = result.held_out[best_seed]
        write_json(out / "held-out.json", held.to_dict())
        summary["held_out_model"] = {
            "file": str(out / "held-out.json"), "mean_regret": held.mean,
            "mean_regret_ci95": list(held.ci95), "median_regret": held.median,
            "worst_regret": held.worst.regret, "worst_rules": held.worst.rules.summary(),
            "costliest_axes": [a.axis for a in held.axes[:3]],
        }
        summary["held_out_table"] = held.table(axes=4)
        summary["rules_summary"] = f"rule space {space.name if space else v['rules']}"
    elif result.grades is None:
        summary["exact_unavailable"] = analysis_reason(rules)
    if config.bet_sizes:
        summary["bets"]["models"] = BET_MODELS
        summary["model_bets"] = str(out / "model-bets.npz")
    write_json(out / "summary.json", summary)
    return summary


def summary_text(summary: dict[str, Any]) -> list[str]:
    """The summary as the lines a person reads (the same figures are in ``summary.json``)."""
    steps = (f"{summary['hands']:,} hands" if "hands" in summary
             else f"{summary['timesteps']:,} timesteps")
    state = "finished" if summary["finished"] else "interrupted"
    threads = summary.get("torch_threads")
    how = f", {threads} torch thread{'s' if threads != 1 else ''}" if threads else ""
    lines = [f"{summary['algo']} on {summary['rules']} ({summary['rules_summary']})",
             f"  trained {steps} in {summary['seconds']:.1f} s ({state}{how})"]
    if "states" in summary:
        lines.append(f"  states visited      {summary['states']:,}")
    exact = summary.get("exact")
    held = summary.get("held_out")
    if held is not None:  # a rule-space run: every seed graded on the held-out rule sets
        means = " ".join(f"{x:.5f}" for x in held["mean_regret_by_seed"])
        medians = " ".join(f"{x:.5f}" for x in held["median_regret_by_seed"])
        lines += [f"  {summary['seeds']} seeds, compiled in {summary['compile_seconds']:.1f} s "
                  f"of it; exact regret on the {held['rule_sets']} rule sets of "
                  f"{held['name']} (never trained on):",
                  f"  mean by seed   {means}", f"  median by seed {medians}",
                  f"  the model is seed {summary['model_seed']} (the median seed by mean "
                  f"regret); its grade:"]
        lines += ["    " + line for line in summary["held_out_table"].splitlines()]
        lines.append(f"  model {Path(summary['model'])}; held-out.json (every rule set's "
                     f"grade), summary.json, settings.json and learning_curve.png beside it")
        return lines
    if "regret_median" in summary:
        lines += [f"  {summary['seeds']} seeds, compiled in {summary['compile_seconds']:.1f} s "
                  f"of it; exact regret of their greedy policies:",
                  f"  median {summary['regret_median']:.5f}{_median_what(summary['seeds'])}, "
                  f"worst {summary['regret_worst']:.5f}, best {summary['regret_best']:.5f}",
                  f"  the model is seed {summary['model_seed']}, regret "
                  f"{summary['regrets'][summary['model_seed']]:.5f}: "
                  + ("the median seed" if summary["seeds"] % 2 else
                     "the better of the two middle seeds")]
    bets = summary.get("bets")
    if bets:
        sizes = ",".join(str(b) for b in bets["bet_sizes"])
        lines.append(f"  bets {sizes} (base bets) decided at a BET step; {bets['grade']}")
        if "greedy_bet" in bets:
            lines.append(f"  greedy bet by seed {bets['greedy_bet']}; exact regret per round "
                         f"(bet included) median {bets['regret_per_round_median']:.5f}")
        for k, row in enumerate(bets.get("by_count_half_shoe", [])):
            pairs = " ".join(f"{int(c):+d}:{b}" for c, b in zip(row["true_counts"],
                                                                row["greedy_bet"], strict=True))
            lines.append(f"  seed {k} greedy bet by true count (half shoe) {pairs}")
    if exact:
        lines += [f"  exact return of the greedy policy {exact['exact_return']:+.5f} per unit bet",
                  f"  optimal return                    {exact['optimal_return']:+.5f}",
                  f"  regret                            {exact['regret']:.5f}"]
    else:
        why = summary.get("exact_unavailable") or "the analysis cannot grade this run"
        lines.append(f"  exact grade: n/a ({why}); blackjack-evaluate simulates the agent")
    if summary.get("eval_mean_return") is not None:
        lines.append(f"  mean return of the last evaluation (separate env) "
                     f"{summary['eval_mean_return']:+.4f}")
    model = Path(summary["model"])
    lines.append(f"  model {model}; summary.json, settings.json and learning_curve.png "
                 f"beside it")
    if bets:
        lines.append(f"  {bets['models']}")
    return lines


def _median_what(seeds: int) -> str:
    """How the median of ``seeds`` regrets is taken, where it is not one seed's figure."""
    return " (the mean of the two middle seeds)" if seeds % 2 == 0 else ""


def print_summary(summary: dict[str, Any]) -> None:
    print("\n".join(summary_text(summary)))


def _job(settings: Settings) -> None:
    try:
        summary = run(settings)
        print_summary(summary)
        if not summary["finished"]:  # Ctrl-C: the state is saved; exit 130 as every command
            raise KeyboardInterrupt
    except ImportError as err:
        extra = "train" if (settings.algo or "") in SB3 else \
            "jax" if (settings.algo or "") in JAX else "main"
        raise UsageError(missing_package(err, extra)) from None


def main(argv: list[str] | None = None) -> int:
    """The ``blackjack-train`` command."""
    return run_command(Settings, _job, argv, prog="blackjack-train")

