"""Writes the run files behind the site's slower pictures (``docs/data/*.json``).

The docs build draws every picture itself, in seconds; what takes longer than a build
may (a training run, the effects of removal of a 6-deck shoe) is computed here once and
committed. ``tests/docs/test_data.py`` (slow) recomputes them and checks they are current.

    python docs/make_data.py            # both files
    python docs/make_data.py learning   # or: removal
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


def learning_run() -> dict[str, Any]:
    """Q-learning as ``blackjack-train`` runs it, with its curve and exact grades."""
    from blackjack_env.agents.commands import train

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


def write(name: str, data: dict[str, Any]) -> None:
    DATA.mkdir(exist_ok=True)
    path = DATA / name
    path.write_text(json.dumps(data, indent=1) + "\n")
    print("wrote", path)


def main(argv: list[str]) -> int:
    which = set(argv) or {"learning", "removal"}
    unknown = which - {"learning", "removal"}
    if unknown:
        print(f"error: unknown part(s) {', '.join(sorted(unknown))}; choose learning, removal")
        return 2
    if "learning" in which:
        write("learning-run.json", learning_run())
    if "removal" in which:
        write("effects-of-removal.json", removal())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
