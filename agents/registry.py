"""Loading saved agents, naming agents on the command line, and the table an agent plays at.

A spec is a fixed agent's name (``basic``, ``composition``, ``dealer``,
``never-bust``, ``random``, ``stand``, ``counter``) or a path: a tabular ``.npz``, an SB3
``.zip``, or a training run's folder (its newest model, see :func:`find_model`).

A saved model can only play a table whose actions and observations have the
shape it learned on: :func:`check_fits` says so in one line naming the rules it
was trained on, instead of failing inside the model with a shape error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from blackjack_env.agents.base import Agent
from blackjack_env.agents.fixed import FIXED_AGENTS, fixed_agent
from blackjack_env.agents.mlp import MLPAgent, is_mlp_model
from blackjack_env.agents.sb3 import SB3Agent
from blackjack_env.agents.tabular import TabularAgent
from blackjack_env.cli import preset_option, read_json_object
from blackjack_env.engine import Rules

__all__ = [
    "check_fits",
    "find_model",
    "load_agent",
    "make_agent",
    "parse_decks",
    "run_settings",
    "table_for",
]

#: Model files of a run folder, finished ones first.
MODEL_NAMES = ("model.npz", "model.zip", "checkpoint.npz", "interrupted.zip")


def find_model(path: str | Path) -> Path:
    """The model file for a path that is a model file or a run folder."""
    path = Path(path)
    if path.is_dir():
        for name in MODEL_NAMES:
            if (path / name).exists():
                return path / name
        raise ValueError(f"{path} holds no model.npz or model.zip (is it a training run folder?)")
    if not path.exists():
        raise ValueError(f"{path} does not exist: give a saved agent (.npz, .zip) or a run folder")
    if path.suffix not in (".npz", ".zip"):
        raise ValueError(f"{path}: a saved agent is a tabular .npz or an SB3 .zip")
    return path


def run_settings(path: str | Path) -> dict[str, Any]:
    """The ``settings.json`` of the run a model belongs to ({} when absent).

    A ``settings.json`` that is not a JSON object raises ``ValueError`` naming it.
    """
    model = find_model(path)
    for folder in (model.parent, model.parent.parent):
        settings = folder / "settings.json"
        if settings.exists():
            return read_json_object(settings)
    return {}


def load_agent(path: str | Path) -> Agent:
    """Reload a saved agent (tabular or MLP-policy ``.npz``, SB3 ``.zip``, or a run folder)."""
    model = find_model(path)
    if model.suffix == ".npz":
        if is_mlp_model(model):
            return MLPAgent.load(model)

        return TabularAgent.load(model)
    algo = run_settings(model).get("algo")
    return SB3Agent.load(model, algo=algo if isinstance(algo, str) else None)


def make_agent(spec: str, env: Any = None, seed: int | None = None) -> Agent:
    """An agent from a spec; fixed agents play ``env``'s learner seat."""
    if spec in FIXED_AGENTS:
        if env is None:
            raise ValueError(f"the fixed agent {spec!r} needs the env it plays in")
        return fixed_agent(spec, env, seed=seed)
    if not Path(spec).exists():
        raise ValueError(f"{spec} does not exist: give a saved agent (.npz, .zip), a run "
                         f"folder, or a fixed agent: {', '.join(FIXED_AGENTS)}")
    return load_agent(spec)


def parse_decks(text: str | int | None) -> dict[str, Any]:
    """``--decks`` text as a Rules override: '' or None none, 'inf' infinite, or 1..8."""
    if text is None:
        return {}
    text = str(text).strip().lower()
    if not text:
        return {}
    if text in ("inf", "infinite", "none"):
        return {"decks": None}
    try:
        decks = int(text)
    except ValueError:
        decks = 0
    if not 1 <= decks <= 8:
        raise ValueError(f"--decks {text}: use a whole number from 1 to 8, or inf for an "
                         f"infinite deck")
    return {"decks": decks}


def _run_rules(run: dict[str, Any]) -> Any:
    """The exact rules a run recorded (``rules_fields``), or None."""
    fields = run.get("rules_fields")
    if not isinstance(fields, dict):
        return None
    return Rules.from_dict(fields)


def table_for(spec: str, rules: str = "", decks: str = "", seats: int = 0, seat: int = -1,
              others: str = "") -> dict[str, Any]:
    """The table an agent is evaluated at: options given win, then the training run's
    settings, then defaults (sutton-barto, seat 0, dealer-style others).

    Returns ``rules`` (a Rules), ``name`` (the preset), ``seat``, ``others``,
    ``obs_mode`` (the run's, or None when unknown) and ``run`` (its settings, {} for a
    fixed agent).
    """
    run: dict[str, Any] = {} if spec in FIXED_AGENTS else run_settings(spec)
    trained = None if rules else _run_rules(run)
    name = rules or str(run.get("rules") or "sutton-barto")
    if trained is not None:
        table_rules = trained.replace(**parse_decks(decks)) if decks else trained
    else:
        run_decks = run.get("decks", "") if not rules else ""
        table_rules = preset_option(name).replace(**parse_decks(decks or run_decks))
    n = seats or (0 if rules else int(run.get("seats") or 0))
    if n and n != table_rules.seats:
        table_rules = table_rules.replace(seats=n)
    return {
        "rules": table_rules,
        "name": name,
        "seat": seat if seat >= 0 else int(run.get("seat", 0) or 0),
        "others": others or run.get("others") or "dealer",
        "obs_mode": run.get("obs_mode") or None,
        "run": run,
    }


def check_fits(agent: Any, env: Any, spec: str, trained_on: str | None = None,
               bet_sizes: Sequence[int] | None = None) -> None:
    """Raise ``ValueError`` when a saved model cannot play ``env``: it decides its bets
    (a ``bet_sizes`` entry in its info) and the command plays fixed bets (``bet_sizes``
    None) or offers other sizes, or its number of actions or its observation shape
    differs from the env's (it was trained on other rules). ``trained_on`` names those
    rules in the message when known."""
    sizes = (getattr(agent, "info", None) or {}).get("bet_sizes")
    if sizes and (bet_sizes is None or tuple(bet_sizes) != tuple(sizes)):
        listed = ", ".join(str(s) for s in sizes)
        if bet_sizes is None:  # a jax-ppo policy that decides its bets (model-bets.npz)
            raise ValueError(
                f"{spec} decides its bets too (bet sizes {listed}) and this command plays "
                f"fixed bets: use the play-alone model saved beside it (model.npz), or play "
                f"it in BlackjackVectorEnv(bet_sizes=...)")
        raise ValueError(
            f"{spec} decides its bets too (bet sizes {listed}): give --bet-sizes "
            f"{','.join(str(s) for s in sizes)} to let it bet, or play the play-alone model "
            f"saved beside it (model.npz) at a fixed bet")
    n_env = int(env.action_space.n)
    space = env.observation_space
    problem = None
    n_agent = getattr(agent, "n_actions", None)
    model = getattr(agent, "model", None)
    if model is not None:  # stable-baselines3
        n_agent = int(model.action_space.n)
        if model.observation_space != space:
            problem = f"observations {model.observation_space}, here {space}"
    elif getattr(agent, "obs_size", None) is not None:  # an MLP policy
        here = int(np.prod(space.shape)) if space.shape else 0
        if agent.obs_size != here:
            problem = f"observations of {agent.obs_size} numbers, here {here}"
    elif n_agent is not None and getattr(agent, "q", None):
        width = len(next(iter(agent.q)))
        if isinstance(space, gym.spaces.Tuple):
            here = len(space.spaces)
        elif isinstance(space, gym.spaces.Discrete):
            here = 1
        else:
            here = int(np.prod(space.shape)) if space.shape else 0
        if width != here:
            problem = f"observations of {width} numbers, here {here}"
    if n_agent is not None and int(n_agent) != n_env:
        problem = f"{n_agent} actions, here {n_env}" + (f"; {problem}" if problem else "")
    if problem:
        where = f" ({trained_on})" if trained_on else ""
        raise ValueError(f"{spec} was trained on other rules{where} than these: {problem}; "
                         f"evaluate it under the rules it was trained on (leave out --rules "
                         f"and --decks) or train a model for these rules")
