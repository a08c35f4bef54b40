"""The main job: train the default tabular agent, grade it exactly against the optimum, chart it.

Usage::

    python scripts/main.py                 # Q-learning, sutton-barto, 1,000,000 hands (~1-2 min)
    python scripts/main.py --hands 200000 --out runs/quick

Steps: train Q-learning on the ``sutton-barto`` preset (Gymnasium's
Blackjack-v1 rules) with a progress bar; compute the exact expected return of
its greedy policy, the optimal return and the regret with the exact analysis;
simulate it and basic strategy for ``--eval-hands`` rounds each (95% CIs);
print the comparison; save the model, the learning curve, the chart beside
the optimal chart, and ``main.json`` with every figure, in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import chart as chart_script
import evaluate as evaluate_script
import train as train_script

from blackjack_env.agents.cli import add_settings_arguments


@dataclass
class Settings:
    algo: str = "q-learning"
    rules: str = "sutton-barto"
    hands: int = 1_000_000
    eval_hands: int = 100_000
    seed: int = 1
    out: str = "runs/main"
    progress: bool = True


HELP = {
    "algo": "tabular algorithm: q-learning | mc",
    "rules": "preset (an infinite-deck one, so the grade is exact)",
    "hands": "training rounds (the default finishes in about 1-2 minutes on two cores)",
    "eval_hands": "rounds simulated for the agent and for basic strategy",
    "seed": "seed of training (evaluation uses seed + 1000)",
    "out": "output folder",
    "progress": "show progress bars",
}


def run(settings: Settings) -> dict:
    t0 = time.perf_counter()
    if settings.algo not in ("q-learning", "mc"):
        raise ValueError(f"--algo {settings.algo!r}: the main job trains q-learning or mc")
    out = Path(settings.out)
    train_settings = train_script.Settings(
        algo=settings.algo, rules=settings.rules, hands=settings.hands, seed=settings.seed,
        out=str(out), progress=settings.progress)
    print(f"1/3 training {settings.algo} on {settings.rules} for {settings.hands:,} hands "
          f"(seed {settings.seed})")
    summary = train_script.train(train_settings)
    if summary["exact"] is None:
        raise ValueError(f"--rules {settings.rules}: the main job needs an infinite-deck preset "
                         f"(sutton-barto, gymnasium, gymnasium-natural) for the exact grade")
    print(f"2/3 simulating the agent and basic strategy for {settings.eval_hands:,} rounds each")
    seed = settings.seed + 1000
    agent_eval = evaluate_script.evaluate(evaluate_script.Settings(
        agent=str(out), hands=settings.eval_hands, seed=seed, progress=settings.progress))
    basic_eval = evaluate_script.evaluate(evaluate_script.Settings(
        agent="basic", rules=settings.rules, hands=settings.eval_hands, seed=seed,
        progress=settings.progress))
    print("3/3 drawing the charts")
    charts = chart_script.make_charts(chart_script.Settings(agent=str(out),
                                                           png=str(out / "chart.png")))
    result = {
        "settings": asdict(settings),
        "train": summary,
        "agent": {"exact": agent_eval["exact"], "simulation": agent_eval["simulation"]},
        "basic": {"exact": basic_eval["exact"], "simulation": basic_eval["simulation"]},
        "chart_differences": charts["differences"],
        "files": {"model": summary["model"], "learning_curve": str(out / "learning_curve.png"),
                  "chart": charts["png"], "summary": str(out / "main.json")},
        "seconds": round(time.perf_counter() - t0, 1),
    }
    (out / "main.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def report(result: dict) -> None:
    s = result["settings"]
    train = result["train"]
    a, b = result["agent"], result["basic"]
    print()
    print(f"{s['algo']} on {s['rules']} ({train['rules_summary']}): "
          f"{train['hands']:,} hands in {train['seconds']:.0f} s")
    print(f"{'':26}{'exact return':>14}{'regret':>10}{'simulated (95% CI)':>34}")
    for label, r in ((f"agent ({s['algo']})", a), ("basic strategy (optimal)", b)):
        sim = r["simulation"]
        lo, hi = sim["ci95"]
        exact = r["exact"]
        print(f"{label:26}{exact['exact_return']:>+14.5f}{exact['regret']:>10.5f}"
              f"{sim['mean_return']:>+12.4f} ({lo:+.4f} .. {hi:+.4f})")
    print(f"optimal return {a['exact']['optimal_return']:+.5f}; regret = optimal - agent "
          f"= {a['exact']['regret']:.5f} per unit bet")
    diffs = result["chart_differences"]
    print(f"chart: {len(diffs)} cell(s) differ from the optimal chart"
          + (": " + ", ".join(f"{d['kind']} {d['row']} v {d['upcard']}" for d in diffs[:12])
             if diffs else ""))
    for name, path in result["files"].items():
        print(f"  {name:15} {path}")
    print(f"total {result['seconds']:.0f} s")


def parse_args(argv: list[str] | None = None) -> Settings:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_settings_arguments(parser, Settings, HELP)
    return Settings(**vars(parser.parse_args(argv)))


def main(argv: list[str] | None = None) -> int:
    settings = parse_args(argv)
    try:
        result = run(settings)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
