"""The leaderboard and its plots, made from a folder of results files and nothing else.

:func:`leaderboard` groups every run of the folder by task, algorithm and budget (two
files holding the same row are refused, in one line naming both) and gives each row its
interval estimates from ``rliable`` (the stratified bootstrap over seeds:
``rliable.library.get_interval_estimates``): the mean score with its 95% interval and,
where the seeds disagree, the interquartile mean (IQM) with its own. A learner's budget
with no results says why: beyond its reach in the table (the reason from
:data:`~blackjack_env.bench.algos.ALGOS`), or not run in this folder (the command that
would run it).

:func:`markdown` writes a task's table (what the results page shows, and what
``blackjack-bench report DIR`` prints); :func:`plots` draws the score against env steps
(log axes, a line per learner with its interval band), against wall seconds, and the
performance profiles of ``rliable`` (``create_performance_profile``).

The bootstrap draws from numpy's global generator (``rliable`` 1.2 resamples with
``np.random.choice``), so it is seeded here (:data:`BOOTSTRAP_SEED`) and the generator's
state put back after: the same files give the same intervals.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from blackjack_env.bench.algos import ALGOS
from blackjack_env.bench.results import ResultsError, results_in
from blackjack_env.bench.runner import run_command
from blackjack_env.bench.tasks import TASKS, Task, format_budget

__all__ = [
    "BOOTSTRAP_REPS",
    "BOOTSTRAP_SEED",
    "Row",
    "Speed",
    "interval_estimates",
    "iqm",
    "leaderboard",
    "markdown",
    "plots",
    "report",
    "speeds",
    "timing",
    "unique_runs",
]

#: Resamples of each bootstrap interval.
BOOTSTRAP_REPS = 2000
#: The seed numpy's global generator is given for each bootstrap (then put back).
BOOTSTRAP_SEED = 0


@dataclass(frozen=True)
class Row:
    """One row of a task's leaderboard. ``scores``: one per seed (a reference: one);
    ``mean_ci`` / ``iqm_ci``: 95% bootstrap intervals over seeds (None for one score);
    ``iqm`` None where every seed scored the same. ``status``: ``"ok"``, ``"not run"``
    (beyond the algorithm's reach in the table) or ``"missing"`` (not in the folder).
    ``split_states``: the most split-hand states at which one seed's policy depends on the
    hand index (graded playing every split hand as the second; see the task's limits).
    ``median`` / ``worst``: on a rule-space task, the median and the worst rule set's
    regret of each seed's policy over the held-out rule sets, averaged over seeds (None
    where the grade has none)."""

    task: str
    algo: str
    title: str
    kind: str
    budget: int | None
    scores: tuple[float, ...] = ()
    env_steps: int | None = None
    measured: str = "exact"
    mean: float | None = None
    mean_ci: tuple[float, float] | None = None
    iqm: float | None = None
    iqm_ci: tuple[float, float] | None = None
    within: tuple[float, float] | None = None
    wall_seconds: float | None = None
    command: str = ""
    source: str = ""
    status: str = "ok"
    note: str = ""
    split_states: int = 0
    median: float | None = None
    worst: float | None = None


@contextlib.contextmanager
def _seeded() -> Iterator[None]:
    """numpy's global generator seeded for rliable, and its ``absl`` log (a line per
    estimate) quiet; both put back after."""
    state = np.random.get_state()
    np.random.seed(BOOTSTRAP_SEED)
    log = logging.getLogger("absl")
    level = log.level
    log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        np.random.set_state(state)
        log.setLevel(level)


def iqm(scores: np.ndarray) -> float:
    """The interquartile mean, as ``rliable.metrics.aggregate_iqm`` defines it (scipy's
    ``trim_mean`` cutting 25% at each end of the flattened scores), in numpy: rliable's
    passes through scipy's argument handling, about 0.2 ms a call, and a bootstrap calls
    it once per resample (54,054 calls for the shipped leaderboard: 12 of its 17 s). A
    test holds the two equal."""
    x = np.sort(np.asarray(scores, float).ravel())
    cut = int(0.25 * x.size)
    return float(x[cut:x.size - cut].mean())


def interval_estimates(scores: Sequence[float]) -> tuple[float, tuple[float, float] | None,
                                                          float | None,
                                                          tuple[float, float] | None]:
    """``(mean, mean_ci, iqm, iqm_ci)`` of per-seed ``scores`` from rliable's stratified
    bootstrap (95%, :data:`BOOTSTRAP_REPS` resamples); one score: no intervals; every
    score equal: no IQM. The same scores give the same estimates (the bootstrap is seeded):
    they are computed once per process (the report, its plots and a test's leaderboard
    read the same rows)."""
    return _interval_estimates(tuple(float(s) for s in scores))


@functools.lru_cache(maxsize=4096)
def _interval_estimates(scores: tuple[float, ...]) -> tuple[float, tuple[float, float] | None,
                                                            float | None,
                                                            tuple[float, float] | None]:
    x = np.asarray(scores, float)
    if x.size == 1:
        return float(x[0]), None, None, None
    # deferred: rliable (and scipy, arch, pandas) come with the [bench] extra
    from rliable import library as rly
    from rliable import metrics  # (deferred: rliable)

    def aggregate(s: np.ndarray) -> np.ndarray:
        return np.array([metrics.aggregate_mean(s), iqm(s)])

    with _seeded():
        point, interval = rly.get_interval_estimates(
            {"x": x.reshape(-1, 1)}, aggregate, reps=BOOTSTRAP_REPS)
    lo, hi = interval["x"]
    mean_ci = (float(lo[0]), float(hi[0]))
    if np.all(x == x[0]):
        return float(point["x"][0]), mean_ci, None, None
    return float(point["x"][0]), mean_ci, float(point["x"][1]), (float(lo[1]), float(hi[1]))


_Key = tuple[str, str, "int | None"]
_Group = tuple[Path, dict[str, Any], list[dict[str, Any]]]


def _group(found: list[tuple[Path, dict[str, Any]]]) -> dict[_Key, _Group]:
    """The runs of the files by (task, algorithm, budget). Two files may hold the same
    runs (a run of several budgets that read back the units of a one-budget run: the same
    records), which count once; two files with other runs of one row are refused."""
    groups: dict[_Key, _Group] = {}
    for path, data in found:
        by_budget: dict[int | None, list[dict[str, Any]]] = {}
        for r in data["runs"]:
            by_budget.setdefault(r["budget"], []).append(r)
        for budget, runs in by_budget.items():
            key = (data["task"]["name"], data["algo"]["name"], budget)
            if key in groups and _same_runs(groups[key][2], runs):
                continue
            if key in groups:
                raise ResultsError(
                    f"{groups[key][0]} and {path} both hold {key[0]} {key[1]}"
                    + (f" at {format_budget(budget)}" if budget is not None else "")
                    + ": keep one")
            groups[key] = (path, data, runs)
    return groups


def _same_runs(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    def key(runs: list[dict[str, Any]]) -> list[Any]:
        return sorted(((r["seed"] if r["seed"] is not None else -1), r["env_steps"] or 0,
                       r["grade"]["score"], r["cpu_seconds"] or 0.0) for r in runs)

    return key(a) == key(b)


def unique_runs(folder: str | Path) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``(file data, run)`` of every run under ``folder``, a run held by two files
    counted once (see :func:`leaderboard`)."""
    return [(data, r) for _, data, runs in _group(results_in(folder)).values() for r in runs]


def _row(found: Task, path: Path, data: dict[str, Any], runs: list[dict[str, Any]],
         root: Path) -> Row:
    runs = sorted(runs, key=lambda r: (r["seed"] is None, r["seed"]))
    scores = [float(r["grade"]["score"]) for r in runs]
    mean, mean_ci, iqm, iqm_ci = interval_estimates(scores)
    steps = [r["env_steps"] for r in runs if r["env_steps"] is not None]
    walls = [r["wall_seconds"] for r in runs if r["wall_seconds"] is not None]
    within = None
    if len(runs) == 1 and "score_ci95" in runs[0]["grade"]:
        lo, hi = runs[0]["grade"]["score_ci95"]
        within = (float(lo), float(hi))
    measured = "simulated" if any(r["grade"]["measured"] == "simulated" for r in runs) \
        else "exact"
    split = max(int(r["grade"].get("split_states_depending_on_hand_index", 0)) for r in runs)
    medians = [float(r["grade"]["median_regret"]) for r in runs if "median_regret" in r["grade"]]
    worsts = [float(r["grade"]["worst"]["regret"]) if "worst" in r["grade"]
              else float(max(r["grade"]["regrets"])) for r in runs if "regrets" in r["grade"]]
    return Row(found.name, data["algo"]["name"], data["algo"]["title"], data["algo"]["kind"],
               runs[0]["budget"], tuple(scores), int(np.median(steps)) if steps else None,
               measured, mean, mean_ci, iqm, iqm_ci, within,
               float(np.median(walls)) if walls else None, data["command"],
               str(path.relative_to(root)), split_states=split,
               median=float(np.mean(medians)) if len(medians) == len(runs) else None,
               worst=float(np.mean(worsts)) if len(worsts) == len(runs) else None)


def leaderboard(folder: str | Path) -> dict[str, list[Row]]:
    """Every task's rows from the results files under ``folder`` (see the module
    docstring), in the table's order: references, then each budget's learners by score."""
    root = Path(folder)
    groups = _group(results_in(root))
    out: dict[str, list[Row]] = {}
    for found in TASKS.values():
        rows = [_row(found, *groups[k], root) for k in groups if k[0] == found.name]
        have = {(r.algo, r.budget) for r in rows}
        for name in found.baselines:
            method = ALGOS[name]
            if not method.trained:
                if (name, None) not in have:
                    rows.append(Row(found.name, name, method.title, method.kind, None,
                                    status="missing", command=run_command(
                                        found.name, name, 5, [], root)))
                continue
            for budget in found.budgets:
                if (name, budget) in have:
                    continue
                if budget > method.reach:
                    rows.append(Row(found.name, name, method.title, method.kind, budget,
                                    status="not run", note=method.reach_note))
                else:
                    rows.append(Row(found.name, name, method.title, method.kind, budget,
                                    status="missing",
                                    command=run_command(found.name, name, 5, [budget], root)))
        sign = -1.0 if found.higher_is_better else 1.0
        order = list(ALGOS)
        rows.sort(key=lambda r: (r.budget is not None, r.budget or 0, r.status != "ok",
                                 sign * (r.mean if r.mean is not None else 0.0)
                                 if r.budget is not None else order.index(r.algo)
                                 if r.algo in order else len(order)))
        out[found.name] = rows
    return out


def _num(task: Task, x: float) -> str:
    return f"{x:.3f}" if task.higher_is_better else f"{x:.5f}"


def _ci(task: Task, ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f" [{_num(task, ci[0])}, {_num(task, ci[1])}]"


def markdown(task: Task, rows: Sequence[Row]) -> str:
    """A task's leaderboard as a Markdown table, then each row's command."""
    unit = {"ceiling-fraction": "shoes", "held-out-regret": "rule sets"}.get(task.grade, "")
    within = {"shoes": "; ± shoes: the 95% interval of one seed's figure over the shoes dealt",
              "rule sets": "; ± rule sets: the 95% interval of one policy's mean regret over "
                           "the held-out rule sets (bootstrap)"}.get(unit, "")
    lines = [
        f"**{task.id}**: {task.metric}; {task.better} is better. Score: the mean over "
        f"seeds [95% bootstrap interval]; IQM: the interquartile mean [its interval], "
        f"where the seeds disagree{within}.",
        "",
        "| algorithm | budget | steps trained | seeds | score | IQM | wall s per seed | "
        "graded |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        budget = "—" if r.budget is None else format_budget(r.budget)
        if r.status == "not run":
            lines.append(f"| {r.title} | {budget} | | | not run: beyond its reach in the "
                         f"table ‡ | | | |")
            continue
        if r.status != "ok":
            lines.append(f"| {r.title} | {budget} | | | missing: no results in this folder "
                         f"(its command is below) | | | |")
            continue
        assert r.mean is not None
        score = _num(task, r.mean) + _ci(task, r.mean_ci)
        if r.within is not None and r.mean_ci is None:
            score += f" ± {_num(task, (r.within[1] - r.within[0]) / 2)} {unit or 'rounds'}"
        iqm = "—" if r.iqm is None else _num(task, r.iqm) + _ci(task, r.iqm_ci)
        steps = "" if r.env_steps is None else f"{r.env_steps:,}"
        seeds = "" if r.kind == "reference" else str(len(r.scores))
        wall = "" if r.wall_seconds is None else f"{r.wall_seconds:,.1f}"
        graded = r.measured + (" †" if r.split_states else "")
        lines.append(f"| {r.title} | {budget} | {steps} | {seeds} | {score} | {iqm} | {wall} "
                     f"| {graded} |")
    spread = [r for r in rows if r.status == "ok" and r.median is not None]
    if spread:
        lines += ["", "Beside the mean, over the held-out rule sets (each seed's policy, "
                      "averaged over seeds): the median regret and the worst rule set's.", "",
                  "| algorithm | budget | median regret | worst rule set's regret |",
                  "|---|---|---|---|"]
        lines += [f"| {r.title} | {'—' if r.budget is None else format_budget(r.budget)} | "
                  f"{_num(task, r.median or 0.0)} | "
                  f"{'' if r.worst is None else _num(task, r.worst)} |" for r in spread]
    if any(r.split_states for r in rows):
        lines += ["", "† Its policy reads the split hand's index, which the analysis's state "
                      "does not carry: graded playing every split hand as the second (the "
                      "results file gives the regret for every other index)."]
    reasons = list(dict.fromkeys(r.note for r in rows if r.status == "not run"))
    if reasons:
        lines += ["", f"‡ {' '.join(reasons)}."]
    commands: dict[str, list[str]] = {}
    for r in rows:
        if r.command:
            label = r.title + ("" if r.budget is None else f" {format_budget(r.budget)}")
            commands.setdefault(r.command, []).append(label
                                                      + (" (missing)" if r.status == "missing"
                                                         else ""))
    if commands:
        lines += ["", "The command of each row:", ""]
        lines += [f"- {', '.join(labels)}: `{command}`" for command, labels in commands.items()]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Speed:
    """A learner's measured speed in a folder: env steps per CPU-second over its runs at
    its largest budget there (training and grading; a JAX program's compilation shared
    between its seeds)."""

    algo: str
    budget: int
    steps_per_cpu_second: float


def speeds(folder: str | Path) -> dict[str, Speed]:
    """Each learner's :class:`Speed` from the results under ``folder``."""
    best: dict[str, tuple[int, float, float]] = {}
    for data, r in unique_runs(folder):
        if r["budget"] is None or not r["cpu_seconds"] or not r["env_steps"]:
            continue
        name = data["algo"]["name"]
        budget, steps, cpu = best.get(name, (0, 0.0, 0.0))
        if r["budget"] > budget:
            best[name] = (r["budget"], float(r["env_steps"]), float(r["cpu_seconds"]))
        elif r["budget"] == budget:
            best[name] = (budget, steps + r["env_steps"], cpu + r["cpu_seconds"])
    return {name: Speed(name, b, steps / cpu) for name, (b, steps, cpu) in best.items()}


def timing(folder: str | Path, seeds: int = 5) -> list[dict[str, Any]]:
    """The table's cost by budget (None: the references): ``runs`` graded policies in the
    folder with their summed ``cpu_seconds`` and ``wall_seconds``, and the CPU-seconds
    ``missing_cpu_seconds`` of the table's runs not in the folder, estimated from each
    learner's :func:`speeds` (``seeds`` seeds; None where the learner has no speed yet)."""
    rows: dict[int | None, dict[str, Any]] = {}
    for _, r in unique_runs(folder):
        row = rows.setdefault(r["budget"], {"budget": r["budget"], "runs": 0,
                                            "cpu_seconds": 0.0, "wall_seconds": 0.0,
                                            "missing_runs": 0, "missing_cpu_seconds": 0.0})
        row["runs"] += 1
        row["cpu_seconds"] += r["cpu_seconds"] or 0.0
        row["wall_seconds"] += r["wall_seconds"] or 0.0
    measured = speeds(folder)
    for board in leaderboard(folder).values():
        for line in board:
            if line.status != "missing" or line.budget is None:
                continue
            row = rows.setdefault(line.budget, {"budget": line.budget, "runs": 0,
                                                "cpu_seconds": 0.0, "wall_seconds": 0.0,
                                                "missing_runs": 0, "missing_cpu_seconds": 0.0})
            row["missing_runs"] += seeds
            speed = measured.get(line.algo)
            if speed is None or row["missing_cpu_seconds"] is None:
                row["missing_cpu_seconds"] = None
            else:
                row["missing_cpu_seconds"] += seeds * line.budget / speed.steps_per_cpu_second
    return [rows[k] for k in sorted(rows, key=lambda b: (b is not None, b or 0))]


def report(folder: str | Path) -> str:
    """Every task's table (:func:`markdown`) from the results under ``folder``."""
    board = leaderboard(folder)
    parts = [f"## {TASKS[name].id}\n\n{markdown(TASKS[name], rows)}" for name, rows in
             board.items()]
    return "\n".join(parts)


def plots(folder: str | Path, out: str | Path, *, dpi: int = 100) -> list[Path]:
    """Draw each task's figures from the results under ``folder`` into ``out``:
    ``bench-TASK-steps.png`` (score against env steps, log axes; a line per learner,
    its band the mean's 95% interval; the references as horizontal lines),
    ``bench-TASK-wall.png`` (against wall seconds per seed) and
    ``bench-TASK-profile.png`` (rliable's performance profile of every learner's runs
    at each budget). Returns the files written."""
    # deferred: loads matplotlib (the optional [charts] extra)
    import matplotlib

    matplotlib.use("Agg")
    # deferred: loads matplotlib (the optional [charts] extra)
    import matplotlib.pyplot as plt

    board = leaderboard(folder)
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, rows in board.items():
        found = TASKS[name]
        learned = [r for r in rows if r.status == "ok" and r.budget is not None]
        refs = [r for r in rows if r.status == "ok" and r.budget is None]
        by_algo: dict[str, list[Row]] = {}
        for r in learned:
            by_algo.setdefault(r.algo, []).append(r)
        for kind in ("steps", "wall"):
            fig, ax = plt.subplots(figsize=(7.0, 4.0))
            for i, pts in enumerate(by_algo.values()):
                pts = sorted(pts, key=lambda r: r.budget or 0)
                xs = [float(r.env_steps or r.budget or 0) if kind == "steps"
                      else float(r.wall_seconds or 0) for r in pts]
                ys = [float(r.mean or 0) for r in pts]
                colour = f"C{i}"
                ax.plot(xs, ys, "o-", color=colour, label=pts[0].title)
                lo = [float(r.mean_ci[0] if r.mean_ci else r.mean or 0) for r in pts]
                hi = [float(r.mean_ci[1] if r.mean_ci else r.mean or 0) for r in pts]
                if not found.higher_is_better:
                    lo = [max(v, 1e-7) for v in lo]
                ax.fill_between(xs, lo, hi, color=colour, alpha=0.2)
                ax.errorbar(xs, ys, yerr=[[y - a for y, a in zip(ys, lo, strict=True)],
                                          [b - y for y, b in zip(ys, hi, strict=True)]],
                            fmt="none", ecolor=colour, capsize=3, lw=1)
            for j, r in enumerate(refs):
                if r.mean is None or (not found.higher_is_better and r.mean <= 0):
                    continue
                ax.axhline(r.mean, color="0.4", ls=[":", "--", "-."][j % 3], lw=1,
                           label=f"{r.title} ({_num(found, r.mean)})")
            if not learned:
                ax.text(0.5, 0.5, "no learner's results in the folder yet", ha="center",
                        transform=ax.transAxes)
            ax.set_xscale("log")
            if kind == "steps":
                ax.set_xlim(min(found.budgets) / 2, max(found.budgets) * 2)
            if not found.higher_is_better:
                ax.set_yscale("log")
            ax.set_xlabel("env steps trained (per seed)" if kind == "steps"
                          else "wall seconds per seed (training and grading)")
            ax.set_ylabel(found.metric if found.higher_is_better else "exact regret per unit bet")
            ax.set_title(f"{found.id}: {found.metric} (mean of seeds, 95% interval)",
                         fontsize=9)
            ax.grid(alpha=0.3, which="both")
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7, loc="best")
            fig.tight_layout()
            path = target / f"bench-{name}-{kind}.png"
            fig.savefig(path, dpi=dpi)
            plt.close(fig)
            written.append(path)
        written.append(_profile(found, learned, target / f"bench-{name}-profile.png", dpi))
    return written


def _profile(found: Task, rows: Sequence[Row], path: Path, dpi: int) -> Path:
    """rliable's performance profiles: for each budget, the fraction of each learner's
    runs whose score is better than tau, for every tau."""
    # deferred: loads matplotlib (the optional [charts] extra)
    import matplotlib.pyplot as plt

    # deferred: rliable comes with the [bench] extra
    from rliable import library as rly

    budgets = sorted({r.budget for r in rows if r.budget is not None})
    if not budgets:
        fig, ax = plt.subplots(figsize=(4.0, 3.0))
        ax.text(0.5, 0.5, "no learner's results in the folder yet", ha="center")
        ax.set_axis_off()
        fig.savefig(path, dpi=dpi)
        plt.close(fig)
        return path
    fig, axes = plt.subplots(1, len(budgets), figsize=(3.2 * len(budgets) + 1, 3.4),
                             squeeze=False, sharey=True)
    every = np.concatenate([np.asarray(r.scores) for r in rows])
    sign = 1.0 if found.higher_is_better else -1.0
    if found.higher_is_better:
        taus = np.linspace(every.min(), every.max(), 60)
    else:
        positive = every[every > 0]
        low = positive.min() if positive.size else 1e-6
        taus = np.geomspace(low / 2, every.max() * 1.2, 60)
    names = list(dict.fromkeys(r.algo for r in rows))
    for ax, budget in zip(axes[0], budgets, strict=True):
        here = {r.algo: np.asarray(r.scores).reshape(-1, 1) * sign for r in rows
                if r.budget == budget}
        with _seeded():
            profiles, cis = rly.create_performance_profile(here, taus * sign, reps=200)
        for algo_name, curve in profiles.items():
            colour = f"C{names.index(algo_name)}"
            title = next(r.title for r in rows if r.algo == algo_name)
            ax.plot(taus, curve, color=colour, label=title)
            ax.fill_between(taus, cis[algo_name][0], cis[algo_name][1], color=colour,
                            alpha=0.15)
        ax.set_title(f"{format_budget(budget)} env steps", fontsize=9)
        if not found.higher_is_better:
            ax.set_xscale("log")
        ax.set_xlabel("tau: " + ("fraction" if found.higher_is_better else "regret"))
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("fraction of runs " + ("above" if found.higher_is_better
                                                  else "below") + " tau")
    axes[0][-1].legend(fontsize=7, loc="best")
    fig.suptitle(f"{found.id}: performance profiles (rliable)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path
