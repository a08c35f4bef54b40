"""``blackjack-bench``: the benchmark's tasks, runs, grades and leaderboard.

Subcommands (``blackjack-bench SUBCOMMAND --help`` lists each one's options):

* ``list``: the tasks (id, budgets, metric, baselines), the planned ones, the algorithms;
* ``run TASK --algo ALGO --seeds N``: train ``ALGO`` on ``TASK`` for its budgets (default:
  those it reaches in the shipped table) over seeds ``0..N-1``, grade every policy, write
  one results file under ``--out`` (:mod:`blackjack_env.bench.runner`); resumable: run it
  again after Ctrl-C and the finished seeds are read back;
* ``grade TASK POLICY...``: grade policies without training (a callable ``FILE.py:NAME``
  or ``MODULE:NAME`` of ``obs -> action``, an SB3 ``.zip``, a saved MLP or tabular
  ``.npz``, a run folder); with ``--out DIR --name NAME --budget B`` the policies (one per
  seed) become a results file: a row of your own for the leaderboard;
* ``report DIR``: the leaderboard of a folder of results files (printed; ``--out``
  writes it with the plots);
* ``table --out DIR``: the whole shipped baseline table, resumable (a run whose results
  are in ``DIR`` is not run again); ``--budgets 1e5`` for its smallest budget; each
  table that ran appends its time and what it did to ``DIR/table-log.jsonl``.

Every option and file is checked before any work; a mistake is one ``error:`` line and
nothing is written.

Usage::

    blackjack-bench list
    blackjack-bench run vegas-play --algo jax-ppo --seeds 5
    blackjack-bench grade v1-play my_policy.py:policy
    blackjack-bench report docs/data/bench
    blackjack-bench table --out results
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Union

import tyro

from blackjack_env.analysis.counter import default_workers
from blackjack_env.bench import ALGOS, PLANNED, TASKS, load_policy, task
from blackjack_env.bench.grading import grade_policy
from blackjack_env.bench.report import leaderboard, markdown, plots
from blackjack_env.bench.results import SCHEMA, machine, now, software, write_results
from blackjack_env.bench.runner import DEFAULT_SEEDS, TABLE_RUN, results_path, run, table
from blackjack_env.bench.tasks import format_budget, parse_budget
from blackjack_env.cli import (
    atomic_path,
    check_output_dir,
    check_writable,
    option,
    write_json,
)
from blackjack_env.commands import UsageError, run_command

__all__ = ["Grade", "List", "Report", "Run", "Table", "main"]


@dataclass
class List:
    """The tasks, the planned tasks and the algorithms."""

    json: bool = False
    """print them as JSON"""


@dataclass
class Run:
    """Train an algorithm on a task over seeds, grade it, write one results file."""

    task: Annotated[str, tyro.conf.Positional, option("TASK")]
    """the task (blackjack-bench list)"""
    algo: Annotated[str, option("ALGO")]
    """the algorithm: a learner or a reference (blackjack-bench list)"""
    seeds: int = DEFAULT_SEEDS
    """seeds 0..N-1 (a reference ignores it)"""
    budgets: Annotated[str, option("B,B", "those the algorithm reaches in the table")] = ""
    """budgets in env steps, e.g. 1e5,1e6 (the task's)"""
    out: Annotated[str, option("FOLDER")] = "bench-results"
    """folder of the results (OUT/TASK-ID/ALGO-BUDGETS.json) and of the work (OUT/.work)"""


@dataclass
class Grade:
    """Grade policies on a task without training them."""

    task: Annotated[str, tyro.conf.Positional, option("TASK")]
    """the task (blackjack-bench list)"""
    policies: Annotated[tuple[str, ...], tyro.conf.Positional, option("POLICY...", "")]
    """one or more: FILE.py:NAME or MODULE:NAME (a callable obs -> action), a .zip, an
    .npz, a run folder (required)"""
    obs_mode: Annotated[str | None, option("MODE", "the task's first")] = None
    """the observation a callable reads"""
    sb3_algo: Annotated[str | None, option("ALGO", "from the .json beside it, or the zip")
                        ] = None
    """the algorithm that saved an SB3 zip: ppo, a2c, dqn, maskable-ppo"""
    json: Annotated[str | None, option("FILE", "not written")] = None
    """write the grades as JSON to this file"""
    out: Annotated[str | None, option("FOLDER", "not written")] = None
    """write a results file of the policies (one per seed) into this folder"""
    name: Annotated[str | None, option("NAME", "")] = None
    """with --out: the row's name in the leaderboard"""
    budget: Annotated[str | None, option("B", "")] = None
    """with --out: the env steps each policy was trained on (a budget of the task)"""


@dataclass
class Report:
    """The leaderboard of a folder of results files."""

    folder: Annotated[str, tyro.conf.Positional, option("DIR")]
    """the folder of results files"""
    out: Annotated[str | None, option("FOLDER", "not written")] = None
    """write leaderboard.md and the plots (PNG) into this folder"""


@dataclass
class Table:
    """Run the whole baseline table (every task's baselines at every budget they reach)."""

    out: Annotated[str, option("FOLDER")] = "bench-results"
    """the results folder (a run in it is not run again; table-log.jsonl logs each table)"""
    budgets: Annotated[str, option("B,B", "every budget")] = ""
    """only these budgets (the references always), e.g. 1e5"""
    tasks: Annotated[str, option("T,T", "every task")] = ""
    """only these tasks"""
    seeds: int = DEFAULT_SEEDS
    """seeds of each learner"""
    jobs: Annotated[int, option("N", "one per CPU core")] = 0
    """runs at once, each in its own process (0: one per CPU core)"""


Commands = Union[  # noqa: UP007 - (tyro reads the subcommands from a typing.Union)
    Annotated[List, tyro.conf.subcommand("list")],
    Annotated[Run, tyro.conf.subcommand("run")],
    Annotated[Grade, tyro.conf.subcommand("grade")],
    Annotated[Report, tyro.conf.subcommand("report")],
    Annotated[Table, tyro.conf.subcommand("table")],
]


def _budgets(text: str) -> list[int]:
    try:
        return [parse_budget(b) for b in text.split(",") if b.strip()]
    except ValueError as err:
        raise UsageError(f"--budgets {text}: {err}") from None


def _list(s: List) -> dict[str, Any]:
    out = {
        "tasks": [{"id": t.id, "title": t.title, "rules": t.rules_name, "grade": t.grade,
                   "metric": t.metric, "better": t.better, "obs_modes": list(t.obs_modes),
                   "actions": t.action_names,
                   "budgets": [format_budget(b) for b in t.budgets],
                   "baselines": list(t.baselines), "env_id": t.env_id}
                  for t in TASKS.values()],
        "planned": PLANNED,
        "algorithms": {a.name: {"title": a.title, "kind": a.kind, "about": a.about}
                       for a in ALGOS.values()},
    }
    if s.json:
        print(json.dumps(out, indent=2))
        return out
    for t in TASKS.values():
        print(f"{t.id}: {t.title}")
        print(f"  {t.metric}, {t.better} is better; budgets "
              f"{', '.join(format_budget(b) for b in t.budgets)} env steps")
        print(f"  actions {', '.join(t.action_names)}; observation {' | '.join(t.obs_modes)}; "
              f"gym.make('{t.env_id}')")
        print(f"  baselines {', '.join(t.baselines)}")
    for name, why in PLANNED.items():
        print(f"{name} (not yet available): {why}")
    print("algorithms: " + ", ".join(f"{a.name} ({a.title})" for a in ALGOS.values()))
    return out


def _run(s: Run) -> None:
    budgets = _budgets(s.budgets) if s.budgets else None
    run(s.task, s.algo, seeds=s.seeds, budgets=budgets, out=s.out)


def _grade(s: Grade) -> list[dict[str, Any]]:
    found = task(s.task)
    if not s.policies:
        raise UsageError("give one or more policies to grade")
    check_writable("json", s.json, suffixes=(".json",))
    submit = False
    budget = None
    if s.out is not None:
        if not s.name or s.budget is None:
            raise UsageError("--out writes a results file: give --name (the row) and "
                             "--budget (the env steps each policy was trained on)")
        if s.name in ALGOS:
            raise UsageError(f"--name {s.name}: a baseline's name; give your algorithm's")
        budget = found.check_budget(parse_budget(s.budget))
        check_output_dir(s.out, "--out")
        submit = True
    elif s.name is not None or s.budget is not None:
        raise UsageError("--name and --budget describe a results file: give --out too")
    loaded = [load_policy(p, found, s.obs_mode, s.sb3_algo) for p in s.policies]
    grades = []
    for policy in loaded:
        grade = grade_policy(found, policy.agent, policy.obs_mode)
        grades.append({"policy": policy.label, "obs_mode": policy.obs_mode, **grade})
        _say_grade(found, policy.label, policy.obs_mode, grade)
    if s.json:
        write_json(s.json, {"task": found.id, "grades": grades})
    if submit and s.out is not None and s.name is not None and budget is not None:
        start = machine(None)
        runs = [{"seed": k, "budget": budget, "env_steps": budget, "wall_seconds": None,
                 "cpu_seconds": None, "policy": g["policy"],
                 "grade": {k2: v for k2, v in g.items() if k2 not in ("policy", "obs_mode")}}
                for k, g in enumerate(grades)]
        data = {"schema": SCHEMA,
                "task": {"name": found.name, "version": found.version, "id": found.id,
                         "fingerprint": found.fingerprint()},
                "algo": {"name": s.name, "title": s.name, "kind": "submitted",
                         "settings": {"obs_mode": loaded[0].obs_mode}},
                "command": _grade_command(s),
                "seeds": list(range(len(runs))), "budgets": [budget], "runs": runs,
                "machine": start, "software": software(), "started": now(), "finished": now(),
                "wall_seconds": 0.0, "cpu_seconds": 0.0}
        path = results_path(s.out, found, s.name, [budget])
        write_results(path, data)
        print(f"wrote {path}")
    return grades


def _grade_command(s: Grade) -> str:
    """The ``blackjack-bench grade`` command line of these settings."""
    parts = ["blackjack-bench", "grade", s.task, *s.policies]
    for flag, value in (("--obs-mode", s.obs_mode), ("--sb3-algo", s.sb3_algo),
                        ("--out", s.out), ("--name", s.name), ("--budget", s.budget)):
        if value is not None:
            parts += [flag, str(value)]
    return shlex.join(parts)


def _say_grade(found: Any, label: str, mode: str, grade: dict[str, Any]) -> None:
    if found.grade == "ceiling-fraction":
        lo, hi = grade["score_ci95"]
        print(f"{found.id} {label}: {grade['score']:.4f} of the ceiling (95% interval over "
              f"shoes {lo:.4f} to {hi:.4f}); net {grade['net_per_round']:+.5f} per round, "
              f"mean bet {grade['mean_bet']:.2f}")
        return
    if found.grade == "held-out-regret":
        lo, hi = grade["score_ci95"]
        worst = grade["worst"]
        print(f"{found.id} {label} ({mode}): mean exact regret {grade['score']:.6f} per unit "
              f"bet over {grade['rule_sets']} held-out rule sets (95% interval over rule sets "
              f"{lo:.6f} to {hi:.6f}); median {grade['median_regret']:.6f}, worst "
              f"{worst['regret']:.6f} ({worst['summary']})")
    else:
        print(f"{found.id} {label} ({mode}): exact regret {grade['score']:.6f} per unit bet "
              f"(return {grade['return']:+.6f}, reference {grade['reference_return']:+.6f})")
    if grade.get("split_states_depending_on_hand_index"):
        print(f"  {grade['split_states_depending_on_hand_index']} split-hand states depend on "
              f"the hand index: graded as the second hand (regret by index "
              f"{grade.get('regret_if_split_hands_play_as_index')})")


def _report(s: Report) -> str:
    folder = Path(s.folder)
    if not folder.is_dir():
        raise UsageError(f"{s.folder}: not a folder of results files")
    if s.out is not None:
        check_output_dir(str(s.out), "--out")
    board = leaderboard(folder)
    text = "\n".join(f"## {TASKS[name].id}\n\n{markdown(TASKS[name], rows)}"
                     for name, rows in board.items())
    print(text)
    if s.out is not None:
        out = Path(s.out)
        write_json(out / "leaderboard.json", {name: [_row_json(r) for r in rows]
                                              for name, rows in board.items()})
        with atomic_path(out / "leaderboard.md") as tmp:
            tmp.write_text(text)
        for path in plots(folder, out):
            print(f"wrote {path}")
        print(f"wrote {out / 'leaderboard.md'}")
    return text


def _row_json(row: Any) -> dict[str, Any]:
    return {"algo": row.algo, "budget": row.budget, "status": row.status, "mean": row.mean,
            "mean_ci95": row.mean_ci, "iqm": row.iqm, "iqm_ci95": row.iqm_ci,
            "scores": list(row.scores), "env_steps": row.env_steps,
            "wall_seconds_per_seed": row.wall_seconds, "measured": row.measured,
            "command": row.command, "note": row.note}


def _table(s: Table) -> None:
    budgets = _budgets(s.budgets) if s.budgets else None
    tasks = [t.strip() for t in s.tasks.split(",") if t.strip()] or None
    for name in tasks or ():
        task(name)
    if s.seeds < 1 or s.jobs < 0:
        raise UsageError("--seeds: a whole number >= 1; --jobs: >= 0 (0: one per CPU core)")
    table(s.out, seeds=s.seeds, budgets=budgets, tasks=tasks,
          jobs=s.jobs or default_workers())


def _job(s: Any) -> None:
    if isinstance(s, List):
        _list(s)
    elif isinstance(s, Run):
        _run(s)
    elif isinstance(s, Grade):
        _grade(s)
    elif isinstance(s, Report):
        _report(s)
    else:
        _table(s)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``blackjack-bench`` command."""
    if os.environ.pop(TABLE_RUN, None):  # a run of `table --jobs`, started deaf to Ctrl-C
        signal.signal(signal.SIGINT, signal.default_int_handler)
    commands: Any = Commands
    return run_command(commands, _job, argv, prog="blackjack-bench")


if __name__ == "__main__":
    sys.exit(main())
