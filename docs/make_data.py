"""Writes the run files behind the site's slower pictures and figures (``docs/data/*.json``).

The docs build draws every picture itself, in seconds; what takes longer than a build
may (a training run, the effects of removal of a 6-deck shoe, the composition-dependent
returns checked against published figures) is computed here once and committed.
``tests/docs/test_data.py`` (slow) recomputes them and checks they are current.

    python docs/make_data.py                       # every file
    python docs/make_data.py learning              # or: removal, published, tutorials,
                                                   #     one-agent
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"

#: The learning run: the main job's algorithm and rules, a smaller budget.
LEARNING = {"algo": "q-learning", "rules": "sutton-barto", "hands": 200_000, "seed": 1}
#: The effects of removal: the Strip game with one deck and with its own six.
REMOVAL = {"vegas-strip, 1 deck": ("vegas-strip", 1), "vegas-strip, 6 decks": ("vegas-strip", 6)}
#: Published composition-dependent (CDZ-) returns of one round off a full shoe, in percent,
#: with their sources (cited; the analysis's own figures are computed by ``published``).
FARMER = {
    "source": "Eric Farmer's combinatorial analysis (bjstrat.net), CDZ-",
    "rules": {"decks": 6, "surrender": "none", "resplit_aces": False, "max_split_hands": 4},
    "words": "6 decks, S17, DAS, double any two, split to 4, no resplit of aces, "
             "no surrender, 3:2, peek",
    "published_return_percent": -0.4029,
}
HOPPE = {
    "source": "Hugues Hoppe's notebook (github.com/hhoppe/blackjack, blackjack.ipynb, "
              "section \"Composition-dep. strategy\"), house edge in percent",
    "rules": {"dealer_hits_soft_17": True, "surrender": "late"},
    "words": "H17, peek, late surrender, DAS, double any two, split to 4, no resplit of "
             "aces, 3:2",
    "published_edge_percent": {"1": -0.030, "2": 0.314, "4": 0.475, "6": 0.527, "8": 0.553},
}


def learning_run() -> dict[str, Any]:
    """Q-learning as ``blackjack-train`` runs it, with its curve and exact grades."""
    from blackjack_env.commands import train

    with tempfile.TemporaryDirectory() as out:
        summary = train.run(train.Settings(**LEARNING, out=out, progress=False))
        curve = json.loads((Path(out) / "curve.json").read_text())
    exact = summary["exact"]
    return {
        "settings": LEARNING,
        "command": (f"blackjack-train --algo {LEARNING['algo']} --rules {LEARNING['rules']} "
                    f"--hands {LEARNING['hands']} --seed {LEARNING['seed']}"),
        "title": (f"Q-learning on {LEARNING['rules']}, {LEARNING['hands']:,} hands: exact "
                  f"return of the greedy policy against the optimum"),
        "blocks": curve["blocks"],
        "grades": curve["grades"],
        "optimal": exact["optimal_return"],
        "final": {"exact_return": exact["exact_return"], "regret": exact["regret"]},
    }


def removal() -> dict[str, Any]:
    from blackjack_env.analysis import effects_of_removal
    from blackjack_env.engine import preset

    results = {}
    for label, (name, decks) in REMOVAL.items():
        results[label] = effects_of_removal(preset(name, decks=decks))
    return {"rules": {k: list(v) for k, v in REMOVAL.items()}, "results": results}


def published() -> dict[str, Any]:
    """The analysis's composition-dependent returns beside the published ones."""
    from blackjack_env.analysis import composition_return
    from blackjack_env.engine import Rules

    farmer = dict(FARMER)
    farmer["return_percent"] = 100 * composition_return(
        Rules(**FARMER["rules"])).expected_return
    hoppe = dict(HOPPE)
    hoppe["edge_percent"] = {
        decks: -100 * composition_return(
            Rules(decks=int(decks), **HOPPE["rules"])).expected_return
        for decks in HOPPE["published_edge_percent"]}
    return {"command": "python docs/make_data.py published", "farmer": farmer,
            "hoppe": hoppe}


#: Tutorials whose pages quote their output at the default size (the tests run them small).
TUTORIALS = ("tutorial_first_agent", "tutorial_counting")


def tutorials() -> dict[str, Any]:
    """Each tutorial of ``TUTORIALS`` run at its default size, as a user runs it: its
    printed output (``docs/examples/NAME.py`` in a temporary folder)."""
    import contextlib
    import io
    import os
    import runpy
    import time

    out: dict[str, Any] = {"command": "python docs/make_data.py tutorials", "runs": {}}
    here = os.getcwd()
    for name in TUTORIALS:
        buffer = io.StringIO()
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(buffer):
            os.chdir(folder)
            try:
                runpy.run_path(str(DATA.parent / "examples" / f"{name}.py"),
                               run_name="__main__")
            finally:
                os.chdir(here)
        out["runs"][name] = {"output": buffer.getvalue(),
                             "seconds": round(time.perf_counter() - start, 1)}
    return out


#: The named games the generalist of the one-agent tutorial is set beside specialists on
#: (an infinite deck, no insurance: the default space's base).
ONE_AGENT_GAMES = ("vegas-strip", "downtown-h17", "atlantic-city", "european-no-hole-card",
                   "single-deck-6to5")


def one_agent() -> dict[str, Any]:
    """The one-agent tutorial at its default size (its printed output, wall and CPU time,
    the machine's load), and beside it a specialist JAX PPO run (its defaults: 4 seeds)
    on each game of ``ONE_AGENT_GAMES``, graded on its own game: the median seed's regret,
    and the seconds it took."""
    import contextlib
    import io
    import os
    import runpy
    import time

    from blackjack_env.agents.jax_ppo import JaxPPOConfig, train_seeds
    from blackjack_env.engine import preset

    out: dict[str, Any] = {"command": "python docs/make_data.py one-agent"}
    buffer = io.StringIO()
    start, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(buffer):
        done = runpy.run_path(str(DATA.parent / "examples" / "tutorial_one_agent.py"),
                              run_name="__main__")
    print(buffer.getvalue(), file=sys.stderr, flush=True)  # the generalist, while the rest runs
    from blackjack_env.agents.grading import exact_grade

    run, model = done["run"], done["model"]
    out["generalist"] = {
        "output": buffer.getvalue(), "seconds": round(time.perf_counter() - start, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
        "train_seconds": run.train_seconds, "load": os.getloadavg(),
        "timesteps_per_seed": run.timesteps[-1],
        "held_out_mean_by_seed": [g.mean for g in run.held_out],
        "held_out_median_by_seed": [g.median for g in run.held_out],
        "games": {name: exact_grade(model, preset(name, decks=None, insurance=False),
                                    "vector")["regret"] for name in ONE_AGENT_GAMES},
    }
    specialists = []
    for name in ONE_AGENT_GAMES:
        start, cpu = time.perf_counter(), time.process_time()
        run = train_seeds(JaxPPOConfig(rules=preset(name, decks=None, insurance=False)))
        summary = run.summary()
        specialists.append({"game": name, "regret_median": summary["regret_median"],
                            "regrets": summary["regrets"],
                            "timesteps_per_seed": summary["timesteps_per_seed"],
                            "seconds": round(time.perf_counter() - start, 1),
                            "cpu_seconds": round(time.process_time() - cpu, 1)})
    out["specialists"] = specialists
    out["load_after"] = os.getloadavg()
    return out


PARTS = {"learning": ("learning-run.json", learning_run),
         "removal": ("effects-of-removal.json", removal),
         "published": ("published-checks.json", published),
         "tutorials": ("tutorials-full-size.json", tutorials),
         "one-agent": ("one-agent.json", one_agent)}


def write(name: str, data: dict[str, Any]) -> None:
    DATA.mkdir(exist_ok=True)
    path = DATA / name
    path.write_text(json.dumps(data, indent=1) + "\n")
    print("wrote", path)


def main(argv: list[str]) -> int:
    which = set(argv) or set(PARTS)
    unknown = which - set(PARTS)
    if unknown:
        print(f"error: unknown part(s) {', '.join(sorted(unknown))}; choose "
              f"{', '.join(PARTS)}")
        return 2
    for part in PARTS:
        if part in which:
            name, make = PARTS[part]
            write(name, make())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
