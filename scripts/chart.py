"""Draw an agent's policy as a strategy chart beside the optimal chart, differing cells marked.

Usage::

    python scripts/chart.py runs/mc-sutton-barto        # writes runs/mc-sutton-barto/chart.png
    python scripts/chart.py runs/ppo/model.zip --rules vegas-strip --decks inf --png ppo.png
    python scripts/chart.py basic --rules vegas-strip --json

Each cell is a two-card hand at its first decision, with every option the
rules allow (hard totals, soft totals and pairs, by dealer upcard); the codes
are those of printed charts (H, S, D = double else hit, Ds = double else
stand, P, Rh/Rs/Rp = surrender else hit/stand/split). The optimal chart comes
from the exact analysis of the same rules with an infinite deck (for a finite
shoe it is the infinite-deck chart of those rules, and the agent is asked with
a true count of 0).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blackjack_env.agents.cli import add_settings_arguments


@dataclass
class Settings:
    agent: str = "basic"
    rules: str = ""
    decks: str = ""
    png: str = ""
    json: bool = False


HELP = {
    "agent": "saved model (.npz/.zip), run folder, or a fixed agent (basic, dealer, stand)",
    "rules": "preset name ('' = the run's rules, or sutton-barto)",
    "decks": "override decks: 1..8 or 'inf' ('' = the run's / the preset's)",
    "png": "output picture ('' = <run folder>/chart.png, or chart-<agent>.png)",
    "json": "print both charts and the differing cells as JSON",
}


def make_charts(settings: Settings) -> dict[str, Any]:
    """Both charts, the differing cells and the PNG path."""
    import gymnasium as gym

    import blackjack_env  # noqa: F401
    from blackjack_env.agents.grading import exact_grade
    from blackjack_env.agents.obs import decision_policy
    from blackjack_env.agents.plots import agent_chart, chart_differences, draw_comparison
    from blackjack_env.agents.registry import find_model, make_agent, table_for
    from blackjack_env.analysis import solve

    t = table_for(settings.agent, settings.rules, settings.decks)
    rules = t["rules"]
    infinite = rules.replace(decks=None)
    env = gym.make("blackjack_env/Blackjack-v0", rules=infinite, obs_mode=t["obs_mode"])
    agent = make_agent(settings.agent, env)
    policy = getattr(agent, "state_policy", None) or decision_policy(agent, infinite,
                                                                      t["obs_mode"])
    optimal = solve(infinite).chart
    optimal = type(optimal)(optimal.upcards, optimal.hard, optimal.soft, optimal.pairs,
                            title="optimal (exact analysis)")
    label = getattr(agent, "name", settings.agent)
    mine = agent_chart(policy, infinite, optimal, title=f"agent: {label}")
    diffs = chart_differences(mine, optimal)
    if settings.png:
        png = Path(settings.png)
    else:
        try:
            model = find_model(settings.agent)
            png = model.parent / "chart.png"
        except ValueError:
            png = Path(f"chart-{settings.agent}.png")
    grade = exact_grade(agent, infinite, t["obs_mode"])
    note = f", regret {grade['regret']:.4f}" if grade else ""
    draw_comparison(mine, optimal, png,
                    title=f"{t['name']} ({infinite.summary()}){note}")
    return {"agent": settings.agent, "rules": t["name"], "rules_summary": infinite.summary(),
            "png": str(png), "agent_chart": mine.to_dict(), "optimal_chart": optimal.to_dict(),
            "differences": [{"kind": k, "row": r, "upcard": u} for k, r, u in diffs],
            "exact": grade}


def parse_args(argv: list[str] | None = None) -> Settings:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("agent", nargs="?", default=Settings.agent, help=HELP["agent"])
    add_settings_arguments(parser, Settings, HELP, skip=("agent",))
    return Settings(**vars(parser.parse_args(argv)))


def main(argv: list[str] | None = None) -> int:
    settings = parse_args(argv)
    try:
        result = make_charts(settings)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if settings.json:
        print(json.dumps(result, indent=2))
        return 0
    diffs = result["differences"]
    print(f"chart of {result['agent']} on {result['rules']} ({result['rules_summary']})")
    print(f"  {len(diffs)} cell(s) differ from the optimal chart"
          + (": " + ", ".join(f"{d['kind']} {d['row']} v {d['upcard']}" for d in diffs[:40])
             if diffs else ""))
    if result["exact"]:
        print(f"  exact regret of the greedy policy {result['exact']['regret']:.5f}")
    print(f"  picture: {result['png']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
