"""Loading saved agents and naming agents on the command line.

A spec is a fixed agent's name (``basic``, ``dealer``, ``never-bust``,
``random``, ``stand``, ``counter``) or a path: a tabular ``.npz``, an SB3
``.zip``, or a training run's folder (its ``model.npz`` / ``model.zip``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from blackjack_env.agents.base import Agent

__all__ = ["find_model", "load_agent", "make_agent", "parse_decks", "run_settings", "table_for"]


def find_model(path: str | Path) -> Path:
    """The model file for a path that is a model file or a run folder."""
    path = Path(path)
    if path.is_dir():
        for name in ("model.npz", "model.zip", "checkpoint.npz", "interrupted.zip"):
            if (path / name).exists():
                return path / name
        raise ValueError(f"{path} holds no model.npz or model.zip (is it a training run folder?)")
    if not path.exists():
        raise ValueError(f"{path} does not exist: give a saved agent (.npz, .zip) or a run folder")
    if path.suffix not in (".npz", ".zip"):
        raise ValueError(f"{path}: a saved agent is a tabular .npz or an SB3 .zip")
    return path


def run_settings(path: str | Path) -> dict[str, Any]:
    """The ``settings.json`` of the run a model belongs to ({} when absent)."""
    import json

    model = find_model(path)
    for folder in (model.parent, model.parent.parent):
        settings = folder / "settings.json"
        if settings.exists():
            return json.loads(settings.read_text())
    return {}


def load_agent(path: str | Path) -> Agent:
    """Reload a saved agent (tabular ``.npz`` or SB3 ``.zip``, or a run folder)."""
    model = find_model(path)
    if model.suffix == ".npz":
        from blackjack_env.agents.tabular import TabularAgent

        return TabularAgent.load(model)
    from blackjack_env.agents.sb3 import SB3Agent

    algo = run_settings(model).get("algo")
    return SB3Agent.load(model, algo=algo)


def make_agent(spec: str, env: Any = None, seed: int | None = None) -> Agent:
    """An agent from a spec; fixed agents play ``env``'s learner seat."""
    from blackjack_env.agents.fixed import FIXED_AGENTS, fixed_agent

    if spec in FIXED_AGENTS:
        if env is None:
            raise ValueError(f"the fixed agent {spec!r} needs the env it plays in")
        return fixed_agent(spec, env, seed=seed)
    try:
        return load_agent(spec)
    except ValueError as err:
        raise ValueError(f"{err}; or use a fixed agent: {', '.join(FIXED_AGENTS)}") from None


def parse_decks(text: str) -> dict[str, Any]:
    """``--decks`` text as a Rules override: '' none, 'inf' infinite, or 1..8."""
    text = str(text).strip().lower()
    if not text:
        return {}
    if text in ("inf", "infinite", "none"):
        return {"decks": None}
    try:
        return {"decks": int(text)}
    except ValueError:
        raise ValueError(f"--decks {text!r}: use 1..8 or 'inf'") from None


def table_for(spec: str, rules: str = "", decks: str = "", seats: int = 0, seat: int = -1,
              others: str = "") -> dict[str, Any]:
    """The table an agent is evaluated at: options given win, then the training run's
    settings, then defaults (sutton-barto, seat 0, dealer-style others).

    Returns ``rules`` (a Rules), ``name`` (the preset), ``seat``, ``others``, ``obs_mode``.
    """
    from blackjack_env.agents.fixed import FIXED_AGENTS
    from blackjack_env.engine import preset

    run: dict[str, Any] = {} if spec in FIXED_AGENTS else run_settings(spec)
    name = rules or run.get("rules") or "sutton-barto"
    changes = parse_decks(decks or (run.get("decks", "") if not rules else ""))
    table_rules = preset(name, **changes)
    n = seats or run.get("seats") or 0
    if n and n != table_rules.seats:
        table_rules = table_rules.replace(seats=n)
    return {
        "rules": table_rules,
        "name": name,
        "seat": seat if seat >= 0 else int(run.get("seat", 0)),
        "others": others or run.get("others") or "dealer",
        "obs_mode": run.get("obs_mode") or "multidiscrete",
    }
