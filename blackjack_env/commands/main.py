"""``blackjack-main``, the main job: train the default tabular agent, grade it exactly
against the optimum, simulate it beside basic strategy, and chart it.

Steps: train Q-learning on the ``sutton-barto`` preset (Gymnasium's Blackjack-v1
rules) with a progress bar; compute the exact expected return of its greedy policy,
the optimal return and the regret with the exact analysis; simulate it and basic
strategy for ``--eval-hands`` rounds each (95% CIs); print the comparison; save the
model, its settings, the learning curve, the chart beside the optimal chart, and
``main.json`` with every figure, in ``--out``.

It needs only the ``[main]`` extra (numpy, gymnasium, tqdm, matplotlib): no torch.
Every option is checked before training starts (a finite-shoe preset, which the
exact grade cannot serve, is refused at once), and nothing is written until then.
Ctrl-C during training saves the state reached (``blackjack-train --out <out> --resume``
continues it) and ends the job.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

from blackjack_env.agents.grading import analysis_reason
from blackjack_env.cli import CI_NAME, check_output_dir, missing_package, option, write_json
from blackjack_env.commands import UsageError, chart, evaluate, run_command, train
from blackjack_env.commands.chart import differences_text
from blackjack_env.commands.train import build_rules

__all__ = ["Settings", "main", "run"]

ALGOS = ("q-learning", "mc")


@dataclass
class Settings:
    """The main job: train a tabular agent, grade it exactly against the optimum, chart it."""

    algo: Annotated[str, option("q-learning|mc")] = "q-learning"
    """tabular algorithm: Q-learning or Monte Carlo"""
    rules: Annotated[str, option("PRESET")] = "sutton-barto"
    """an infinite-deck preset (sutton-barto, gymnasium, ...) or any preset with --decks inf"""
    decks: Annotated[str, option("inf", "the preset's own shoe")] = ""
    """inf: play the preset with an infinite deck"""
    hands: int = 1_000_000
    """training rounds (the default finishes in about 1-2 minutes on two cores)"""
    eval_hands: int = 100_000
    """rounds simulated for the agent and for basic strategy"""
    seed: int = 1
    """seed of training (evaluation uses seed + 1000)"""
    out: Annotated[str, option("FOLDER")] = "runs/main"
    """output folder (created if missing; the files are listed at the end)"""
    progress: bool = True
    """show progress bars"""


def check(settings: Settings) -> Any:
    """Every option, before any work: returns the rules; writes nothing."""
    if settings.algo not in ALGOS:
        raise UsageError(f"--algo {settings.algo!r}: the main job trains {' or '.join(ALGOS)} "
                         f"(blackjack-train trains the others)")
    if settings.hands < 1:
        raise UsageError(f"--hands {settings.hands}: must be at least 1")
    if settings.eval_hands < 2:
        raise UsageError(f"--eval-hands {settings.eval_hands}: must be at least 2 (for a "
                         f"confidence interval)")
    if settings.seed < 0:
        raise UsageError(f"--seed {settings.seed}: must be 0 or more")
    rules = build_rules(settings.rules, settings.decks or None, None)
    reason = analysis_reason(rules.replace(decks=None, seats_per_deck=None))
    if reason is not None:  # not served with any shoe: --decks inf would not help
        raise UsageError(f"--rules {settings.rules}: the main job grades exactly, and {reason}; "
                         f"use a preset it serves (sutton-barto, gymnasium, vegas-strip "
                         f"--decks inf, ...)")
    if analysis_reason(rules) is not None:
        raise UsageError(
            f"--rules {settings.rules}: the main job grades exactly, which needs an infinite "
            f"deck, and this preset deals from {rules.shoe_decks} deck(s); use an "
            f"infinite-deck preset (sutton-barto, gymnasium, gymnasium-natural) or add "
            f"--decks inf")
    check_output_dir(settings.out, "--out")
    return rules


def run(settings: Settings) -> dict[str, Any]:
    """Run the main job; return every figure (also written to ``<out>/main.json``)."""
    check(settings)
    t0 = time.perf_counter()
    out = Path(settings.out)
    print(f"1/3 training {settings.algo} on {settings.rules} for {settings.hands:,} hands "
          f"(seed {settings.seed})")
    summary = train.run(train.Settings(
        algo=settings.algo, rules=settings.rules, decks=settings.decks or None,
        hands=settings.hands, seed=settings.seed, out=str(out), progress=settings.progress),
        announce=False)  # the line above says what is trained, with its seed
    if not summary["finished"]:
        # Ctrl-C during training: the state is saved (train said where); stop here
        raise KeyboardInterrupt
    print(f"2/3 simulating the agent and basic strategy for {settings.eval_hands:,} rounds each")
    seed = settings.seed + 1000
    agent_eval = evaluate.run(evaluate.Settings(
        agent=str(out), hands=settings.eval_hands, seed=seed, progress=settings.progress))
    basic_eval = evaluate.run(evaluate.Settings(
        agent="basic", rules=settings.rules, decks=settings.decks, hands=settings.eval_hands,
        seed=seed, progress=settings.progress))
    print("3/3 drawing the charts")
    charts = chart.run(chart.Settings(agent=str(out), png=str(out / "chart.png")))
    files = {
        "model": summary["model"],
        "settings": str(out / "settings.json"),
        "summary": str(out / "summary.json"),
        "curve": str(out / "curve.json"),
        "learning_curve": str(out / "learning_curve.png"),
        "chart": charts["png"],
        "main": str(out / "main.json"),
    }
    result = {
        "settings": asdict(settings),
        "train": summary,
        "agent": {"exact": agent_eval["exact"], "simulation": agent_eval["simulation"]},
        "basic": {"exact": basic_eval["exact"], "simulation": basic_eval["simulation"]},
        "chart_differences": charts["differences"],
        "files": files,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_json(out / "main.json", result)
    return result


def report(result: dict[str, Any]) -> None:
    s = result["settings"]
    train = result["train"]
    a, b = result["agent"], result["basic"]
    print()
    print(f"{s['algo']} on {s['rules']} ({train['rules_summary']}): "
          f"{train['hands']:,} hands in {train['seconds']:.0f} s")
    print(f"{'':26}{'exact return':>14}{'regret':>10}{f'simulated ({CI_NAME})':>34}")
    for label, r in ((f"agent ({s['algo']})", a), ("basic strategy (optimal)", b)):
        sim = r["simulation"]
        lo, hi = sim["ci95"]
        exact = r["exact"]
        print(f"{label:26}{exact['exact_return']:>+14.5f}{exact['regret']:>10.5f}"
              f"{sim['mean_return']:>+12.4f} ({lo:+.4f} .. {hi:+.4f})")
    print(f"optimal return {a['exact']['optimal_return']:+.5f}; regret = optimal - agent "
          f"= {a['exact']['regret']:.5f} per unit bet")
    print("chart: " + differences_text(result["chart_differences"], listed=12))
    print("files:")
    for name, path in result["files"].items():
        print(f"  {name:15} {path}")
    print(f"total {result['seconds']:.0f} s")


def _job(settings: Settings) -> None:
    try:
        report(run(settings))
    except ImportError as err:
        raise UsageError(missing_package(err, "main")) from None


def main(argv: list[str] | None = None) -> int:
    """The ``blackjack-main`` command."""
    return run_command(Settings, _job, argv, prog="blackjack-main")
