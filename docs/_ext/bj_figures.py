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


def jax_mixed_table() -> str:
    """The JAX table's mixed batches beside their presets (``data/jax-mixed.json``, written
    by ``python scripts/bench_jax.py --tables 4096 --mixed --no-numpy --json
    docs/data/jax-mixed.json``): hands per second of each preset's batch, of the same
    tables each under its own rule set, their ratio (wall and per CPU-second), and the
    machine's load average while it ran."""
    data = _data("jax-mixed.json")
    lines = ["| rules | policy | tables | preset alone (hands/s) | mixed (hands/s) | "
             "rule sets | hands: mixed / alone (per CPU-s) | steps: mixed / alone "
             "(per CPU-s) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in data["rows"]:
        if not row.get("mixed"):
            continue
        alone = row["single_hands_per_s"]
        cpu = row["hands_per_cpu_s"] / row["single_hands_per_cpu_s"]
        steps = row["steps_per_cpu_s"] / row["single_steps_per_cpu_s"]
        lines.append(f"| {row['rules']} | {row['policy']} | {row['tables']:,} | {alone:,.0f} | "
                     f"{row['hands_per_s']:,.0f} | {row['rule_sets']:,} | "
                     f"{row['hands_per_s'] / alone:.2f}x ({cpu:.2f}x) | {steps:.2f}x |")
    load = ", ".join(f"{x:.1f}" for x in data["load"])
    return ("\n".join(lines) + f"\n\nMeasured on {data['backend']} (load average {load} when "
            "the run ended: other processes took the cores).\n")


def one_agent_output() -> str:
    """What the one-agent tutorial printed at its default size (``data/one-agent.json``,
    ``python docs/make_data.py one-agent``), with its time and the machine's load."""
    gen = _data("one-agent.json")["generalist"]
    load = ", ".join(f"{x:.1f}" for x in gen["load"])
    return ("```text\n" + gen["output"] + "```\n\n"
            f"It took {gen['seconds']:.0f} s ({gen['cpu_seconds']:.0f} CPU-s in the "
            f"process; the training itself {gen['train_seconds']:.0f} s, compilation "
            f"included) on two CPU cores, load average {load} as it ended.\n")


def one_agent_table() -> str:
    """The generalist beside the specialists, game by game (``data/one-agent.json``)."""
    data = _data("one-agent.json")
    gen = data["generalist"]
    lines = ["| game (infinite deck) | generalist regret | specialist regret (median of "
             "4 seeds) | specialist's seeds |", "| --- | --- | --- | --- |"]
    for row in data["specialists"]:
        seeds = " ".join(f"{r:.4f}" for r in row["regrets"])
        lines.append(f"| {row['game']} | {gen['games'][row['game']]:.4f} | "
                     f"{row['regret_median']:.4f} | {seeds} |")
    steps = data["specialists"][0]["timesteps_per_seed"]
    total = sum(row["seconds"] for row in data["specialists"])
    return ("\n".join(lines) + f"\n\nThe specialists trained {steps:,} steps per seed each "
            f"({total:.0f} s for the five), the generalist "
            f"{gen['timesteps_per_seed']:,} per seed, once for every game. Made by "
            f"`{data['command']}`.\n")


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


def _minutes(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60} s" if whole >= 60 else f"{whole} s"


def bench_figures() -> dict[str, str]:
    """The baseline table's smallest budget timed whole: the newest record of
    ``docs/data/bench/table-log.jsonl`` (``blackjack-bench table``'s log) that ran every
    task's 1e5 stage, five seeds, into an empty folder and finished."""
    from blackjack_env.bench.runner import table_log

    whole = [r for r in table_log(DATA / "bench") if r["status"] == "finished"
             and r["budgets"] == [100_000] and r["tasks"] is None and r["seeds"] == 5
             and r["runs_already_there"] == 0 and r["runs_done"] == r["runs"]]
    if not whole:
        raise ValueError("docs/data/bench/table-log.jsonl holds no finished table of "
                         "the 1e5 budget run whole")
    last = whole[-1]
    return {"bench_1e5_wall": _minutes(last["wall_seconds"]),
            "bench_1e5_cpu": f"{last['cpu_seconds']:,.0f}",
            "bench_1e5_runs": str(last["runs"]), "bench_1e5_jobs": str(last["jobs"]),
            "bench_1e5_cores": str(last["machine"]["cores"]),
            "bench_1e5_load": f"{last['machine']['load_average_start'][0]:.1f}",
            "bench_1e5_date": last["started"][:10]}


def figures() -> dict[str, str]:
    """Every substitution the pages may use: ``{{ name }}``."""
    out: dict[str, str] = {}
    for part in (analysis_figures, published_figures, web_figures, bench_figures):
        out.update(part())
    return out
