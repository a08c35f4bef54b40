"""Work out the chart store: the total-dependent basic-strategy chart of every rule set a
preset is played under on a finite shoe (the preset's nearest rules that the exact
analysis serves), written to ``blackjack_env/analysis/data/finite_charts.json``, which
:func:`blackjack_env.analysis.finite.finite_chart` reads instead of working the chart out
again at a table's first decision.

    python scripts/make_chart_store.py            # about 40 s on one core

Run it after a change to the finite-shoe analysis or to a preset;
``tests/analysis/test_chart_store.py`` works the stored charts out again and fails on a
difference (the quick test for two presets, ``-m slow`` for all of them).
"""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

from blackjack_env.analysis.finite import CHART_STORE, finite_chart
from blackjack_env.analysis.strategy import nearest_supported_rules
from blackjack_env.engine import PRESETS, Rules, preset

OUT = Path(__file__).resolve().parents[1] / "blackjack_env" / "analysis" / "data" / CHART_STORE


def stored_rules() -> dict[str, Rules]:
    """The rule sets of the store by the first preset that plays each (finite shoes)."""
    out: dict[str, Rules] = {}
    for name in PRESETS:
        rules = nearest_supported_rules(preset(name))[0]
        if rules.decks is not None and rules not in out.values():
            out[name] = rules
    return out


def main() -> None:
    charts = []
    for name, rules in stored_rules().items():
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            chart = finite_chart(rules, stored=False)
        charts.append({"preset": name, "rules": rules.to_dict(), "chart": chart.to_dict()})
        print(f"{name:24s} {time.perf_counter() - t:6.1f} s")
    OUT.parent.mkdir(exist_ok=True)
    text = json.dumps({"version": 1, "charts": charts}, indent=1) + "\n"
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(charts)} charts, {len(text):,} bytes)")


if __name__ == "__main__":
    main()
