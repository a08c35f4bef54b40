"""Work out the chart store: the total-dependent basic-strategy chart of every rule set a
preset is played under on a finite shoe (the preset's nearest rules that the exact
analysis serves), written to ``blackjack_env/analysis/data/finite_charts.json``, which
:func:`blackjack_env.analysis.finite.finite_chart` reads instead of working the chart out
again at a table's first decision.

Run it after a change to the finite-shoe analysis or to a preset (about 40 s on one
core); the file is replaced only once every chart is worked out. ``--check`` writes
nothing and exits 1 naming the presets whose stored chart differs from the one worked
out now (``tests/analysis/test_chart_store.py`` does the same: two presets by default,
all of them with ``-m slow``).

Usage::

    python scripts/make_chart_store.py
    python scripts/make_chart_store.py --check
"""

from __future__ import annotations

import sys

from _launch import importing

with importing():  # a missing package or Ctrl-C here: one line, status 2 / 130
    import json
    import time
    import warnings
    from collections.abc import Sequence
    from dataclasses import dataclass
    from pathlib import Path

    from blackjack_env.analysis.finite import CHART_STORE, finite_chart
    from blackjack_env.analysis.strategy import nearest_supported_rules
    from blackjack_env.cli import run_command
    from blackjack_env.engine import PRESETS, Rules, preset

OUT = Path(__file__).resolve().parents[1] / "blackjack_env" / "analysis" / "data" / CHART_STORE


@dataclass
class Settings:
    """Work out the presets' finite-shoe charts and store them (or check the store)."""

    check: bool = False
    """compare the stored charts with the charts worked out now; write nothing"""


def stored_rules() -> dict[str, Rules]:
    """The rule sets of the store by the first preset that plays each (finite shoes)."""
    out: dict[str, Rules] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the nearest-rules notice of presets it changes
        for name in PRESETS:
            rules = nearest_supported_rules(preset(name))[0]
            if rules.decks is not None and rules not in out.values():
                out[name] = rules
    return out


def run(settings: Settings) -> int:
    charts = []
    for name, rules in stored_rules().items():
        t = time.perf_counter()
        chart = finite_chart(rules, stored=False)
        charts.append({"preset": name, "rules": rules.to_dict(), "chart": chart.to_dict()})
        print(f"{name:24s} {time.perf_counter() - t:6.1f} s", flush=True)
    text = json.dumps({"version": 1, "charts": charts}, indent=1) + "\n"
    if settings.check:
        stored = json.loads(OUT.read_text())["charts"] if OUT.exists() else []
        by_name = {e["preset"]: e for e in stored}
        differ = [e["preset"] for e in charts if by_name.get(e["preset"]) != e]
        differ += [name for name in by_name if name not in {e["preset"] for e in charts}]
        if differ:
            print(f"the store differs for: {', '.join(differ)} (run without --check)")
            return 1
        print(f"{OUT} holds the {len(charts)} charts worked out now")
        return 0
    OUT.parent.mkdir(exist_ok=True)
    part = OUT.with_suffix(".part")
    part.write_text(text)
    part.replace(OUT)
    print(f"wrote {OUT} ({len(charts)} charts, {len(text):,} bytes)")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="make_chart_store.py")


if __name__ == "__main__":
    sys.exit(main())
