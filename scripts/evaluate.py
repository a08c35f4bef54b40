"""Evaluate an agent: simulated return with a 95% CI, outcome rates, and the exact grade.

Usage::

    python scripts/evaluate.py runs/mc-sutton-barto              # a training run (its rules)
    python scripts/evaluate.py basic --rules vegas-strip --hands 200000
    python scripts/evaluate.py runs/ppo/model.zip --rules vegas-strip --decks inf --json
    python scripts/evaluate.py counter --rules vegas-strip --bet-sizes 1,2,4,8 --session 100

AGENT is a saved model (``.npz`` / ``.zip``), a run folder, or a fixed agent:
basic, dealer, never-bust, random, stand, counter. Rules default to the run's
(or ``sutton-barto`` for a fixed agent). Reported: mean return per round with
its 95% confidence interval, the per-hand rates of win / blackjack / push /
loss / bust / surrender, and, for infinite-deck rules, the exact return of the
agent's greedy policy, the optimal return and the regret.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from blackjack_env.agents.cli import add_settings_arguments


@dataclass
class Settings:
    agent: str = "basic"
    rules: str = ""
    decks: str = ""
    seats: int = 0
    seat: int = -1
    others: str = ""
    hands: int = 100_000
    bet_sizes: str = ""
    session: int = 1
    seed: int = 12345
    workers: int = 0
    json: bool = False
    out: str = ""
    progress: bool = False


HELP = {
    "agent": "saved model (.npz/.zip), run folder, or basic|dealer|never-bust|random|stand|counter",
    "rules": "preset name ('' = the run's rules, or sutton-barto)",
    "decks": "override decks: 1..8 or 'inf' ('' = the run's / the preset's)",
    "seats": "seats at the table (0 = the run's / the preset's)",
    "seat": "the agent's seat (-1 = the run's, or 0)",
    "others": "strategy of the other seats ('' = the run's, or dealer)",
    "hands": "rounds to simulate",
    "bet_sizes": "bet multiples offered before each round, e.g. '1,2,4,8' (the counter "
                 "spreads its bet by the true count; others bet the smallest); '' = fixed bet",
    "session": "rounds per episode (a session at one shoe; use e.g. 100 with --bet-sizes)",
    "seed": "seed of the evaluation env (different from training seeds)",
    "workers": "N >= 1: simulate a fixed policy (basic, dealer, never-bust, stand, random) on "
               "the batched tables over N processes, the same figures for a seed whatever N; "
               "0 = play through the env in this process",
    "json": "print the results as JSON instead of the table",
    "out": "also write the JSON results to this file",
    "progress": "show a progress bar",
}


def resolve(settings: Settings) -> tuple[Any, Any, str, dict[str, Any]]:
    """(rules, env, obs_mode, table description) for the evaluation."""
    import gymnasium as gym

    import blackjack_env  # noqa: F401
    from blackjack_env.agents.registry import table_for

    t = table_for(settings.agent, settings.rules, settings.decks, settings.seats,
                  settings.seat, settings.others)
    rules = t["rules"]
    extra: dict[str, Any] = {}
    if settings.bet_sizes:
        try:
            extra["bet_sizes"] = tuple(int(x) for x in settings.bet_sizes.split(","))
        except ValueError:
            raise ValueError(f"--bet-sizes {settings.bet_sizes!r}: use e.g. '1,2,4,8'") from None
    if settings.session < 1:
        raise ValueError("--session must be at least 1 round")
    env = gym.make("blackjack_env/Blackjack-v0", rules=rules, seat=t["seat"],
                   others=t["others"], obs_mode=t["obs_mode"],
                   rounds_per_episode=settings.session, **extra)
    return rules, env, t["obs_mode"], {
        "rules": t["name"], "seat": t["seat"], "others": t["others"],
        "decks": "inf" if rules.decks is None else rules.shoe_decks,
    }


def evaluate(settings: Settings) -> dict[str, Any]:
    """Run the evaluation; return the results as a JSON-ready dict."""
    if settings.hands < 2:
        raise ValueError("--hands must be at least 2 (for a confidence interval)")
    from blackjack_env.agents.grading import analysis_reason, exact_grade, simulate
    from blackjack_env.agents.registry import make_agent

    rules, env, obs_mode, where = resolve(settings)
    agent = make_agent(settings.agent, env, seed=settings.seed)
    t0 = time.perf_counter()
    if settings.workers:
        sim = simulate_batched(settings, rules, where)
    else:
        sim = simulate(agent, env, settings.hands, seed=settings.seed, progress=settings.progress)
    seconds = time.perf_counter() - t0
    exact = exact_grade(agent, rules, obs_mode)
    reason = analysis_reason(rules)
    if exact is None and reason is None:
        reason = ("the agent reads the dict observation, which the analysis cannot encode"
                  if obs_mode == "dict" else
                  "the agent has no deterministic policy to grade (random)")
    return {
        "agent": settings.agent, "agent_name": getattr(agent, "name", "agent"),
        **where, "rules_summary": rules.summary(), "obs_mode": obs_mode,
        "seed": settings.seed, "simulation": sim, "simulation_seconds": round(seconds, 2),
        "exact": exact, "exact_unavailable": reason if exact is None else None,
    }


def simulate_batched(settings: Settings, rules: Any, where: dict[str, Any]) -> dict[str, Any]:
    """``--workers``: the fixed policy on the batched tables (blackjack_env.simulate),
    in the same shape as the in-process simulation; rates are per round result."""
    from blackjack_env.simulate import POLICIES
    from blackjack_env.simulate import simulate as batched

    if settings.workers < 1:
        raise ValueError(f"--workers {settings.workers} must be 0 (in process) or >= 1")
    if settings.agent not in POLICIES:
        raise ValueError(
            f"--workers simulates fixed policies only ({', '.join(sorted(POLICIES))}); "
            f"got {settings.agent!r}: use --workers 0 for saved agents and the counter"
        )
    if rules.seats != 1 or settings.bet_sizes or settings.session != 1:
        raise ValueError(
            "--workers plays one seat, a fixed bet and one-round episodes: drop --seats, "
            "--bet-sizes and --session, or use --workers 0"
        )
    res = batched(settings.agent, rules, settings.hands, seed=settings.seed,
                  workers=settings.workers)
    half = 1.959963984540054 * res.std / res.hands ** 0.5
    return {
        "rounds": res.hands,
        "hands": res.hands,
        "mean_return": res.mean,
        "sd": res.std,
        "ci95": [res.mean - half, res.mean + half],
        "ci95_half_width": half,
        "rates": {f"round {k}": v for k, v in res.outcomes.items()},
        "workers": settings.workers,
        "chunks": res.chunks,
    }


def print_table(result: dict[str, Any]) -> None:
    sim = result["simulation"]
    lo, hi = sim["ci95"]
    print(f"agent {result['agent']} ({result['agent_name']}) at seat {result['seat']}, "
          f"others: {result['others']}")
    print(f"rules {result['rules']}: {result['rules_summary']}")
    print(f"simulated {sim['rounds']:,} rounds ({sim['hands']:,} hands), seed {result['seed']}, "
          f"{result['simulation_seconds']} s")
    print(f"  mean return per round  {sim['mean_return']:+.4f}  "
          f"(95% CI {lo:+.4f} .. {hi:+.4f})")
    rates = sim["rates"]
    label = "per round" if "workers" in sim else "per hand"
    print(f"  {label}: " + "  ".join(f"{k} {v:.4f}" for k, v in rates.items()))
    exact = result["exact"]
    if exact:
        print(f"  exact return of the greedy policy {exact['exact_return']:+.5f}")
        print(f"  optimal return                    {exact['optimal_return']:+.5f}")
        print(f"  regret                            {exact['regret']:.5f}")
        spread = exact.get("regret_if_split_hands_play_as_index")
        if spread:
            print(f"  ({exact['split_states_depending_on_hand_index']} split-hand states depend "
                  f"on the hand index, which the analysis does not see: regret if every split "
                  f"hand played as hand k: "
                  + ", ".join(f"k={k} {v:.5f}" for k, v in spread.items()) + ")")
    else:
        print(f"  exact grade: n/a ({result['exact_unavailable']})")


def parse_args(argv: list[str] | None = None) -> Settings:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("agent", nargs="?", default=Settings.agent, help=HELP["agent"])
    add_settings_arguments(parser, Settings, HELP, skip=("agent",))
    return Settings(**vars(parser.parse_args(argv)))


def main(argv: list[str] | None = None) -> int:
    settings = parse_args(argv)
    try:
        result = evaluate(settings)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    result["settings"] = asdict(settings)
    if settings.out:
        Path(settings.out).parent.mkdir(parents=True, exist_ok=True)
        Path(settings.out).write_text(json.dumps(result, indent=2) + "\n")
    if settings.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
