"""``blackjack-chart``: an agent's policy as a strategy chart beside the optimal chart.

Each cell is a two-card hand at its first decision, with every option the rules
allow (hard totals, soft totals and pairs, by dealer upcard); the codes are those
of printed charts (H, S, D = double else hit, Ds = double else stand, P, Rh / Rs /
Rp = surrender else hit / stand / split). The optimal chart comes from the exact
analysis of the same rules with an infinite deck (for a finite shoe it is the
infinite-deck chart of those rules, and the agent is asked with a true count of 0).
Differing cells are outlined in red and listed.

The picture goes to ``--png`` if given, else into the folder ``--out``: ``chart.png``
for a saved model (default folder: the model's run folder), ``chart-<agent>-<rules>.png``
for a fixed agent (default folder: ``runs/charts``), never the working directory unasked.

Every option is checked before any work; the picture is written whole at the end.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import gymnasium as gym
import tyro

from blackjack_env.agents.fixed import FIXED_AGENTS
from blackjack_env.agents.grading import exact_grade
from blackjack_env.agents.obs import decision_policy
from blackjack_env.agents.plots import (
    agent_chart,
    card_label,
    chart_differences,
    draw_comparison,
    row_label,
)
from blackjack_env.agents.registry import check_fits, find_model, make_agent, table_for
from blackjack_env.analysis import solve
from blackjack_env.analysis.strategy import nearest_supported_rules
from blackjack_env.cli import (
    check_output_dir,
    check_output_file,
    missing_package,
    note_new_folder,
    option,
)
from blackjack_env.commands import UsageError, run_command

__all__ = ["Settings", "differences_text", "main", "run"]

#: Differing cells named in the printed line (the rest are counted).
LISTED = 40

#: Fixed agents with a policy over the analysis's states (the others act on a live table).
CHARTABLE = ("basic", "dealer", "stand")


@dataclass
class Settings:
    """Draw an agent's policy as a strategy chart beside the optimal chart, differing cells
    marked."""

    agent: Annotated[tyro.conf.Positional[str], tyro.conf.arg(metavar="AGENT")] = "basic"
    """a saved model (.npz / .zip), a run folder, or a fixed agent: basic, dealer, stand"""
    rules: Annotated[str, option("PRESET", "the run's rules, or sutton-barto")] = ""
    """preset name of the table rules (see blackjack_env.list_presets())"""
    decks: Annotated[str, option("N|inf", "the run's, or the preset's")] = ""
    """decks in the shoe: 1..8, or inf for an infinite deck"""
    png: Annotated[str, option("FILE", "chart.png in --out, or chart-<agent>-<rules>.png")] = ""
    """the picture's file (a PNG picture: its name ends in .png)"""
    out: Annotated[str, option("FOLDER", "the model's run folder, or runs/charts")] = ""
    """the folder the picture goes in"""
    json: bool = False
    """print both charts and the differing cells as JSON"""


#: The folder of a fixed agent's chart when no --out is given.
CHARTS_DIR = Path("runs") / "charts"


def _png_path(settings: Settings, rules_name: str) -> Path:
    """The picture's path, checked (nothing is created)."""
    if settings.png and settings.out:
        raise UsageError(f"--png {settings.png} and --out {settings.out}: give one of them "
                         f"(--png names the picture, --out the folder it goes in)")
    if settings.png:
        return check_output_file(settings.png, "--png", suffixes=(".png",))
    fixed = settings.agent in FIXED_AGENTS
    if settings.out:
        folder = Path(settings.out)
    else:
        folder = CHARTS_DIR if fixed else find_model(settings.agent).parent
    check_output_dir(folder, "--out")
    name = f"chart-{settings.agent}-{rules_name}.png" if fixed else "chart.png"
    return check_output_file(folder / name, "--out")


def run(settings: Settings) -> dict[str, Any]:
    """Both charts, the differing cells, the exact grade and the PNG path (written)."""
    if settings.agent in FIXED_AGENTS and settings.agent not in CHARTABLE:
        why = {"random": "a random agent has no fixed policy to draw",
               "counter": "the counter plays basic strategy (chart basic) and spreads its bets"
               }.get(settings.agent, "this fixed agent has no policy over the chart's hands")
        raise UsageError(f"{settings.agent}: {why}; chart {', '.join(CHARTABLE)} or a saved "
                         f"model")
    t = table_for(settings.agent, settings.rules, settings.decks)
    png = _png_path(settings, t["name"])
    rules = t["rules"]

    # the chart is drawn for an infinite deck; rules the analysis cannot serve (e.g.
    # terminal-21's highest-hand settlement) are charted as the nearest rules it serves
    infinite, changed = nearest_supported_rules(rules.replace(decks=None))
    loaded = None if settings.agent in FIXED_AGENTS else make_agent(settings.agent)
    obs_mode = getattr(loaded, "obs_mode", None) or t["obs_mode"] or "multidiscrete"
    trained_on = (f"{t['run'].get('rules')}, {t['run'].get('obs_mode')} observation"
                  if t["run"] else None)
    carry = {"observe_rules": True} if getattr(loaded, "observe_rules", False) else {}
    try:
        env = gym.make("blackjack_env/Blackjack-v0", rules=infinite, obs_mode=obs_mode, **carry)
    except ValueError as err:
        if loaded is None:
            raise
        raise UsageError(f"{settings.agent} reads the {obs_mode} observation, which these rules "
                         f"({infinite.summary()}) cannot give ({err}); it was trained on other "
                         f"rules{f' ({trained_on})' if trained_on else ''}") from None
    if loaded is not None:
        check_fits(loaded, env, settings.agent, trained_on)
    agent = loaded if loaded is not None else make_agent(settings.agent, env)
    policy = getattr(agent, "state_policy", None) or decision_policy(agent, infinite, obs_mode)
    optimal = solve(infinite).chart
    optimal = type(optimal)(optimal.upcards, optimal.hard, optimal.soft, optimal.pairs,
                            title="optimal (exact analysis)")
    label = getattr(agent, "name", settings.agent)
    mine = agent_chart(policy, infinite, optimal, title=f"agent: {label}")
    diffs = chart_differences(mine, optimal)
    grade = exact_grade(agent, infinite, obs_mode)
    note = f", regret {grade['regret']:.4f}" if grade else ""
    note_new_folder(png)
    draw_comparison(mine, optimal, png, title=f"{t['name']} ({infinite.summary()}){note}")
    return {"agent": settings.agent, "rules": t["name"], "rules_summary": infinite.summary(),
            "charted_as": changed, "png": str(png), "agent_chart": mine.to_dict(),
            "optimal_chart": optimal.to_dict(),
            "differences": [{"kind": k, "row": r, "upcard": u} for k, r, u in diffs],
            "exact": grade}


def differences_text(diffs: list[dict[str, Any]], listed: int = LISTED) -> str:
    """``"N cell(s) differ from the optimal chart: hard 16 v 10, ... and M more"``."""
    text = f"{len(diffs)} cell(s) differ from the optimal chart"
    if not diffs:
        return text
    names = [f"{d['kind']} {row_label(d['kind'], d['row'])} v {card_label(d['upcard'])}"
             for d in diffs[:listed]]
    more = len(diffs) - len(names)
    return text + ": " + ", ".join(names) + (f" and {more} more" if more else "")


def _job(settings: Settings) -> None:
    try:
        result = run(settings)
        if settings.json:
            print(json.dumps(result, indent=2))
            return
        print(f"chart of {result['agent']} on {result['rules']} ({result['rules_summary']})")
        if result["charted_as"]:
            print(f"  note: the exact analysis does not serve these rules; charted with "
                  f"{result['charted_as']}")
        print(f"  {differences_text(result['differences'])}")
        if result["exact"]:
            print(f"  exact regret of the greedy policy {result['exact']['regret']:.5f}")
        print(f"  picture: {result['png']}")
    except ImportError as err:
        raise UsageError(missing_package(err, "main")) from None


def main(argv: list[str] | None = None) -> int:
    """The ``blackjack-chart`` command."""
    return run_command(Settings, _job, argv, prog="blackjack-chart")
