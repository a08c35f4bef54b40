"""The figures the hand-written pages quote, each computed from its source.

A page never types a figure: it writes ``{{ name }}`` (a MyST substitution, ``conf.py``
sets ``myst_substitutions`` from :func:`figures`), or includes a table generated here or
a data file. Each figure comes from one of:

* the exact analysis, computed while the site is built (an optimum takes ~0.1 s);
* a run file under ``docs/data/`` that a command wrote (``docs/make_data.py``, a command's
  ``--out``), recomputed by the slow test ``tests/docs/test_data.py``;
* a constant of the code it describes (the web page's double-press guard).

``tests/docs/test_figures.py`` checks that no hand-written page holds a figure of its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent  # docs/
DATA = HERE / "data"


def _data(name: str) -> Any:
    return json.loads((DATA / name).read_text())


def analysis_figures() -> dict[str, str]:
    """Optimal returns and regrets of the exact analysis (infinite deck)."""
    from blackjack_env.analysis import evaluate_policy, solve
    from blackjack_env.engine import Action, preset

    out: dict[str, str] = {}
    for name in ("sutton-barto", "gymnasium", "gymnasium-natural"):
        key = "optimum_" + name.replace("-", "_")
        out[key] = f"{solve(preset(name)).expected_return:+.5f}"
    strip = preset("vegas-strip", decks=None)
    s17 = solve(strip).expected_return
    h17 = solve(strip.replace(dealer_hits_soft_17=True)).expected_return
    out["h17_cost_percent"] = f"{100 * (s17 - h17):.2f}"
    stand = evaluate_policy(strip, lambda state: Action.STAND)
    out["always_stand_regret"] = f"{s17 - stand:.3f}"
    return out


def published_figures() -> dict[str, str]:
    """The composition-dependent returns beside the published ones
    (``docs/data/published-checks.json``, ``python docs/make_data.py published``)."""
    data = _data("published-checks.json")
    farmer = data["farmer"]
    hoppe = data["hoppe"]
    gaps = [abs(hoppe["edge_percent"][d] - p)
            for d, p in hoppe["published_edge_percent"].items()]
    return {
        "farmer_published": f"{farmer['published_return_percent']:+.4f}%",
        "farmer_here": f"{farmer['return_percent']:+.5f}%",
        "farmer_gap": f"{abs(farmer['return_percent'] - farmer['published_return_percent']):.4f}",
        "hoppe_largest_gap": f"{max(gaps):.4f}",
    }


def published_table() -> str:
    """Hoppe's published CD house edges beside the analysis's, one row per deck count."""
    hoppe = _data("published-checks.json")["hoppe"]
    lines = ["| decks | published | here | difference (points) |",
             "| --- | --- | --- | --- |"]
    for decks, published in hoppe["published_edge_percent"].items():
        here = hoppe["edge_percent"][decks]
        lines.append(f"| {decks} | {published:.3f}% | {here:.4f}% | {here - published:+.4f} |")
    return "\n".join(lines) + "\n"


def counting_table() -> str:
    """The counting figures several pages quote: the 8M-round rows of
    ``data/counting-figures.json`` and the row its command wrote (``counter-1m.json``, a
    ``blackjack-evaluate --out`` file), with what each is."""
    data = _data("counting-figures.json")
    rounds = data["rounds"]
    head = (f"| policy ({data['rules']}, {data['decks']} decks, {data['session']}-round "
            "sessions) | rounds | per round | per unit wagered | mean bet |")
    lines = [head, "|---|---|---|---|---|"]
    for row in data["rows"]:
        (r, rh), (u, uh) = row["per_round"], row["per_unit"]
        lines.append(f"| {row['policy']} | {rounds / 1e6:g}M | {r:+.4f} ± {rh:.4f} | "
                     f"{u:+.4f} ± {uh:.4f} | {row['mean_bet']:.2f} |")
    spec = data["command_row"]
    run = _data(spec["file"])
    sim = run["simulation"]
    low, high = sim["ci95"]
    lines.append(f"| {spec['policy']} (command below) | {sim['rounds'] / 1e6:g}M | "
                 f"{sim['mean_return']:+.4f} ({low:+.4f} .. {high:+.4f}) | | |")
    ramp = data["rows"][1]["per_round"][0]
    inside = low <= ramp <= high
    text = "\n".join(lines) + "\n\n"
    text += (f"95% intervals. The {rounds / 1e6:g}M rows come from `{data['command']}` "
             "(which simulates both in the numpy batched env beside the learned policies). "
             f"The last row is one run of the command below ({sim['rounds']:,} rounds, "
             "its own shoes): its interval is wider, as it has fewer rounds, and it "
             + ("holds" if inside else "does not hold")
             + f" the {rounds / 1e6:g}M ramp's figure. The command prints the net per "
             "round only.\n\n")
    command = spec["command"].replace(" --bet-sizes", " \\\n    --bet-sizes")
    text += "```bash\n" + command + "\n```\n"
    text += "\nWithout `--bet-sizes` the counter has no bet to choose and bets flat.\n"
    return text


def full_size_outputs() -> dict[str, str]:
    """What each tutorial printed at its default size (``data/tutorials-full-size.json``,
    ``python docs/make_data.py tutorials``), by example name."""
    runs = _data("tutorials-full-size.json")["runs"]
    return {name: run["output"] for name, run in runs.items()}


def web_figures() -> dict[str, str]:
    """Constants of the web page the docs describe, read from its script."""
    import re

    import blackjack_env.web

    script = (Path(blackjack_env.web.__file__).parent / "static" / "app.js").read_text()
    match = re.search(r"^const DOUBLE_MS = (\d+);", script, re.M)
    if match is None:
        raise RuntimeError("app.js no longer defines DOUBLE_MS: update docs/_ext/bj_figures.py")
    return {"web_press_gap_ms": match.group(1)}


def figures() -> dict[str, str]:
    """Every substitution the pages may use: ``{{ name }}``."""
    out: dict[str, str] = {}
    for part in (analysis_figures, published_figures, web_figures):
        out.update(part())
    return out
