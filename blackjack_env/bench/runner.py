"""Running the benchmark: one algorithm on one task (:func:`run`), or the whole baseline
table (:func:`table`), resumable.

A run's work is cut into units: one seed at one budget (a learner that trains every seed
in one program, ``jax-ppo``: one budget). Each finished unit is recorded under
``OUT/.work/TASK-ID/ALGO/`` with the key that made it (the task's fingerprint, the
algorithm's settings, the budget and seeds); a run started again reads back every unit
whose key matches and does only the others, so Ctrl-C loses at most the unit in progress
(which starts afresh: a unit's result never depends on being interrupted). When every
unit is done the run's results file is written, whole: ``OUT/TASK-ID/ALGO[-BUDGETS].json``
(:mod:`.results`).

:func:`table` runs every baseline of every task (each task's ``baselines``) at every
budget it reaches (:data:`~blackjack_env.bench.algos.ALGOS`), the references first, then
the budgets from the smallest; a (task, algorithm, budget) whose results are already in
``OUT`` is skipped. ``jobs`` runs that many at once, each in its own process
(``blackjack-bench run``). Each ``table`` that had runs to do appends what it did and how
long it took to ``OUT/table-log.jsonl`` (:data:`TABLE_LOG`, :func:`table_log`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blackjack_env.bench.algos import Algo, algo, algo_settings, grade_reference, train_and_grade
from blackjack_env.bench.results import (
    SCHEMA,
    machine,
    now,
    results_in,
    software,
    write_results,
)
from blackjack_env.bench.tasks import TASKS, Task, format_budget, task
from blackjack_env.cli import check_output_dir, load_average, read_json_object, write_json

__all__ = ["DEFAULT_SEEDS", "TABLE_LOG", "Step", "default_budgets", "results_path", "run",
           "run_command", "table", "table_command", "table_log", "table_steps"]

#: Seeds of a learner's run unless told otherwise. With five, the interquartile mean
#: leaves out the best and the worst seed.
DEFAULT_SEEDS = 5


def default_budgets(found: Task, method: Algo) -> list[int]:
    """The budgets a run of ``method`` on ``found`` does when none are given: those of the
    task it reaches in the shipped table (none for a reference)."""
    if not method.trained:
        return []
    return [b for b in found.budgets if b <= method.reach]


def results_path(out: str | Path, found: Task, name: str, budgets: Sequence[int]) -> Path:
    """``OUT/TASK-ID/ALGO[-BUDGET...].json``."""
    tail = "".join(f"-{_token(b)}" for b in budgets)
    return Path(out) / found.id / f"{name}{tail}.json"


def _token(budget: int) -> str:
    """A budget in a file name: ``1e5``, or its digits."""
    return format_budget(budget).replace(",", "")


def run_command(task_name: str, name: str, seeds: int, budgets: Sequence[int],
                out: str | Path) -> str:
    """The ``blackjack-bench run`` command line of a run."""
    parts = ["blackjack-bench", "run", task_name, "--algo", name]
    method = algo(name)
    if method.kind != "reference":
        parts += ["--seeds", str(seeds)]
    if budgets:
        parts += ["--budgets", ",".join(format_budget(b) for b in budgets)]
    parts += ["--out", str(out)]
    return shlex.join(parts)


def _unit_key(found: Task, name: str, budget: int | None, seeds: Sequence[int],
              settings: dict[str, Any]) -> dict[str, Any]:
    return {"task": found.id, "fingerprint": found.fingerprint(), "algo": name,
            "budget": budget, "seeds": list(seeds), "settings": settings}


def _read_unit(folder: Path, key: dict[str, Any]) -> list[dict[str, Any]] | None:
    path = folder / "unit.json"
    if not path.is_file():
        return None
    try:
        saved = read_json_object(path)
    except ValueError:
        return None
    if json.loads(json.dumps(key)) != saved.get("key"):
        return None
    runs = saved.get("runs")
    return runs if isinstance(runs, list) else None


def _unit(folder: Path, key: dict[str, Any],
          work: Callable[[Path], list[dict[str, Any]]]) -> tuple[list[dict[str, Any]], bool]:
    """The records of one unit: read back when ``folder`` holds them under ``key``,
    else done afresh (the folder emptied first) and recorded. Returns (records, reused).
    While it works, the unit is locked (:func:`_locked`)."""
    done = _read_unit(folder, key)
    if done is not None:
        return done, True
    with _locked(folder):
        done = _read_unit(folder, key)  # (finished by the process that held the lock)
        if done is not None:
            return done, True
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        runs = work(folder)
        write_json(folder / "unit.json", {"key": key, "runs": runs})
    return runs, False


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """A lock file beside a unit's folder (``FOLDER.lock``, holding the process id), so
    that two commands on one results folder never work on the same unit: a unit another
    living process holds is refused (ValueError, one line); the lock of a process that is
    gone is taken over."""
    lock = folder.with_name(folder.name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    while True:
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            try:
                holder = int(lock.read_text().strip() or "0")
            except (OSError, ValueError):
                holder = 0
            if holder and _alive(holder):
                raise ValueError(f"{folder}: another command (process {holder}) is running "
                                 f"this unit; wait for it to finish, or run other tasks "
                                 f"meanwhile") from None
            lock.unlink(missing_ok=True)  # its process is gone
            continue
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        break
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive
        return True
    return True


def run(task_name: str, name: str, *, seeds: int = DEFAULT_SEEDS,
        budgets: Sequence[int] | None = None, out: str | Path = "bench-results",
        overrides: dict[str, Any] | None = None, say: Callable[[str], Any] = print,
        command: str | None = None) -> tuple[Path, dict[str, Any]]:
    """Run ``name`` on the task ``task_name`` (see the module docstring): every seed
    ``0..seeds-1`` at every budget (default: :func:`default_budgets`), graded; write the
    results file and return its path and content. Every argument is checked before any
    work; nothing is written for a refused one."""
    found = task(task_name)
    method = algo(name, found)
    if not isinstance(seeds, int) or isinstance(seeds, bool) or seeds < 1:
        raise ValueError(f"--seeds {seeds!r}: a whole number >= 1")
    if budgets is None:
        budgets = default_budgets(found, method)
    budgets = sorted(set(budgets))
    if not method.trained and budgets:
        raise ValueError(f"{name} is not trained: it has no budget (leave --budgets out)")
    for b in budgets:
        found.check_budget(b)
    if method.trained and not budgets:
        raise ValueError(f"{name} reaches no budget of {found.name} in the table; give "
                         f"--budgets")
    out = Path(out)
    check_output_dir(out, "--out")
    seed_list = list(range(seeds)) if method.kind != "reference" else []
    path = results_path(out, found, name, budgets)
    work_root = out / ".work" / found.id / name
    command = command or run_command(found.name, name, seeds, budgets, out)
    if method.trained:
        # the learner's libraries are there (checked now, before any work)
        algo_settings(found, name, budgets[0], len(seed_list), overrides)
        _check_libraries(name)
    say(f"{found.id}: {method.title}"
        + (f", seeds {seed_list[0]}..{seed_list[-1]}" if seed_list else "")
        + (f", budgets {', '.join(format_budget(b) for b in budgets)}" if budgets else "")
        + f" -> {path}")
    load0, started = load_average(), now()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    runs: list[dict[str, Any]] = []
    reused = 0
    if not method.trained:
        seeds_or_none: list[int | None] = list(seed_list) or [None]
        for seed in seeds_or_none:
            w, c = time.perf_counter(), time.process_time()
            grade = grade_reference(found, name, seed)
            runs.append({"seed": seed, "budget": None, "env_steps": None,
                         "wall_seconds": round(time.perf_counter() - w, 3),
                         "cpu_seconds": round(time.process_time() - c, 3), "grade": grade})
    else:
        for budget in budgets:
            settings = algo_settings(found, name, budget, len(seed_list), overrides)
            units = [seed_list] if method.together else [[s] for s in seed_list]
            for unit_seeds in units:
                key = _unit_key(found, name, budget, unit_seeds, settings)
                where = work_root / _token(budget) / (
                    f"seeds-0-{len(unit_seeds) - 1}" if method.together
                    else f"seed-{unit_seeds[0]}")

                def work(folder: Path, budget: int = budget,
                         unit_seeds: list[int] = unit_seeds) -> list[dict[str, Any]]:
                    return train_and_grade(found, name, budget, unit_seeds, folder,
                                           overrides=overrides, say=say)

                got, again = _unit(where, key, work)
                reused += again
                runs += got
    if reused:
        say(f"  ({reused} unit(s) read back from {work_root}, done before)")
    data = {
        "schema": SCHEMA,
        "task": {"name": found.name, "version": found.version, "id": found.id,
                 "fingerprint": found.fingerprint()},
        "algo": {"name": name, "title": method.title, "kind": method.kind,
                 "settings": algo_settings(found, name, budgets[-1] if budgets else None,
                                           len(seed_list), overrides),
                 "about": method.about},
        "command": command,
        "seeds": seed_list,
        "budgets": budgets,
        "runs": runs,
        "machine": machine(load0),
        "software": software(),
        "started": started,
        "finished": now(),
        "wall_seconds": round(sum(r["wall_seconds"] or 0.0 for r in runs), 3),
        "cpu_seconds": round(sum(r["cpu_seconds"] or 0.0 for r in runs), 3),
    }
    write_results(path, data)
    took = time.perf_counter() - wall0
    say(f"  wrote {path} ({took:.0f} s now, {time.process_time() - cpu0:.0f} s CPU)")
    return path, data


def _check_libraries(name: str) -> None:
    """ImportError (the extra to install) when a learner's library is missing."""
    if name == "jax-ppo":
        # each import is deferred: it loads an optional package of the [jax] extra
        import flax  # noqa: F401 - (loads flax)
        import jax  # noqa: F401 - (loads jax)
        import optax  # noqa: F401 - (loads optax)
    elif name in ("ppo", "a2c", "dqn", "maskable-ppo"):
        # each import is deferred: it loads an optional package of the [train] extra
        import sb3_contrib  # noqa: F401 - (loads sb3_contrib)
        import stable_baselines3  # noqa: F401 - (loads stable_baselines3)


@dataclass(frozen=True)
class Step:
    """One run of the table: a task, an algorithm, a budget (None: a reference)."""

    task: Task
    algo: Algo
    budget: int | None

    def argv(self, seeds: int, out: Path) -> list[str]:
        parts = ["run", self.task.name, "--algo", self.algo.name, "--out", str(out)]
        if self.algo.kind != "reference":
            parts += ["--seeds", str(seeds)]
        if self.budget is not None:
            parts += ["--budgets", format_budget(self.budget)]
        return parts


def table_steps(budgets: Sequence[int] | None = None,
                tasks: Sequence[str] | None = None) -> list[Step]:
    """The runs of the baseline table, in order: every task's references, then for each
    budget from the smallest every task's learners that reach it."""
    chosen = [task(t) for t in tasks] if tasks else list(TASKS.values())
    wanted = sorted(set(budgets)) if budgets else sorted({b for t in chosen for b in t.budgets})
    steps = [Step(t, algo(n, t), None) for t in chosen for n in t.baselines
             if not algo(n, t).trained]
    for budget in wanted:
        steps += [Step(t, algo(n, t), budget) for t in chosen for n in t.baselines
                  if algo(n, t).trained and budget in t.budgets and budget <= algo(n, t).reach]
    return steps


def _done(out: Path, step: Step, seeds: int) -> bool:
    """Whether ``out`` holds the results of ``step`` (every seed, the budget)."""
    folder = out / step.task.id
    if not folder.is_dir():
        return False
    for _, data in results_in(folder):
        if data["algo"]["name"] != step.algo.name:
            continue
        have = {r["seed"] for r in data["runs"] if r["budget"] == step.budget}
        if step.algo.kind == "reference" and have:
            return True
        if set(range(seeds)) <= have:
            return True
    return False


def table(out: str | Path, *, seeds: int = DEFAULT_SEEDS, budgets: Sequence[int] | None = None,
          tasks: Sequence[str] | None = None, jobs: int = 1,
          say: Callable[[str], Any] = print) -> list[Step]:
    """Run every step of :func:`table_steps` that ``out`` does not hold yet; return the
    steps run. ``jobs`` > 1: that many ``blackjack-bench run`` processes at once."""
    out = Path(out)
    check_output_dir(out, "--out")
    defined = sorted({x for t in TASKS.values() for x in t.budgets})
    for b in budgets or ():
        if b not in defined:
            raise ValueError(f"--budgets {format_budget(b)}: the tasks define "
                             f"{', '.join(format_budget(x) for x in defined)}")
    steps = table_steps(budgets, tasks)
    todo = [s for s in steps if not _done(out, s, seeds)]
    say(f"the baseline table into {out}: {len(steps)} runs, {len(steps) - len(todo)} "
        f"already there, {len(todo)} to do" + (f", {jobs} at once" if jobs > 1 else ""))
    if not todo:
        return todo
    t0 = time.perf_counter()
    cpu0 = _cpu_seconds()
    load0 = load_average()
    started = now()
    status = "failed"
    try:
        if jobs <= 1:
            for step in todo:
                run(step.task.name, step.algo.name, seeds=seeds,
                    budgets=[step.budget] if step.budget is not None else None, out=out,
                    say=say)
        else:
            _in_processes(todo, seeds, out, jobs, say)
        status = "finished"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:
        wall = time.perf_counter() - t0
        _log_table(out, {
            "command": table_command(out, seeds, budgets, tasks, jobs), "status": status,
            "started": started, "finished": now(), "wall_seconds": round(wall, 1),
            "cpu_seconds": round(_cpu_seconds() - cpu0, 1), "jobs": jobs, "seeds": seeds,
            "budgets": None if budgets is None else sorted(set(budgets)),
            "tasks": None if tasks is None else list(tasks), "runs": len(steps),
            "runs_already_there": len(steps) - len(todo),
            "runs_done": sum(_done(out, s, seeds) for s in todo),
            "machine": machine(load0), "software": software()})
    load1 = load_average()
    loads = "" if load0 is None or load1 is None else \
        f"; load average {load0[0]:.1f} at the start, {load1[0]:.1f} at the end"
    say(f"table done in {time.perf_counter() - t0:.0f} s{loads}")
    return todo


#: The table's log in its folder, one JSON object a line for each ``table`` that had runs
#: to do, appended when it ends (finished, interrupted or failed): its command, status,
#: start and end, ``wall_seconds``, ``cpu_seconds`` (its own and its runs' processes),
#: what it was asked (``jobs``, ``seeds``, ``budgets``, ``tasks``), the table's ``runs``,
#: those ``runs_already_there`` and those ``runs_done`` by it, and the machine and
#: software as in a results file. (Not ``*.json``: not a results file.)
TABLE_LOG = "table-log.jsonl"


def table_command(out: str | Path, seeds: int, budgets: Sequence[int] | None,
                  tasks: Sequence[str] | None, jobs: int) -> str:
    """The ``blackjack-bench table`` command line of a table run."""
    parts = ["blackjack-bench", "table", "--out", str(out)]
    if budgets:
        parts += ["--budgets", ",".join(format_budget(b) for b in sorted(set(budgets)))]
    if tasks:
        parts += ["--tasks", ",".join(tasks)]
    if seeds != DEFAULT_SEEDS:
        parts += ["--seeds", str(seeds)]
    return shlex.join([*parts, "--jobs", str(jobs)])


def table_log(out: str | Path) -> list[dict[str, Any]]:
    """The records of :data:`TABLE_LOG` in ``out``, oldest first (none: an empty list);
    a line that is not a JSON object is refused (ValueError naming the file and line)."""
    path = Path(out) / TABLE_LOG
    if not path.is_file():
        return []
    records = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            record = None
        if not isinstance(record, dict):
            raise ValueError(f"{path}, line {number}: not a JSON object")
        records.append(record)
    return records


def _log_table(out: Path, record: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (out / TABLE_LOG).open("a") as log:
        log.write(json.dumps(record) + "\n")


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


#: The environment variable that tells a ``blackjack-bench run`` it was started by
#: :func:`table` (it then takes Ctrl-C again once it has started: see :func:`_start`).
TABLE_RUN = "BLACKJACK_BENCH_TABLE_RUN"


def _start(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start a run with SIGINT ignored (kept through exec), so that a Ctrl-C while it
    imports does not show a traceback; the command takes SIGINT back as it starts
    (``blackjack-bench``'s ``main``, seeing :data:`TABLE_RUN`)."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        return subprocess.Popen(argv, env=env)
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


def _in_processes(todo: Sequence[Step], seeds: int, out: Path, jobs: int,
                  say: Callable[[str], Any]) -> None:
    """Run the steps as ``blackjack-bench run`` processes, ``jobs`` at once; Ctrl-C
    reaches them too (they keep their finished units), and the table stops."""
    pending = list(todo)
    running: list[tuple[Step, subprocess.Popen[bytes]]] = []
    failed: list[str] = []
    env = {**os.environ, "PYTHONUNBUFFERED": "1", TABLE_RUN: "1"}
    try:
        while pending or running:
            while pending and len(running) < jobs:
                step = pending.pop(0)
                argv = [sys.executable, "-m", "blackjack_env.commands.bench",
                        *step.argv(seeds, out)]
                running.append((step, _start(argv, env)))
            time.sleep(0.5)
            for item in list(running):
                code = item[1].poll()
                if code is not None:
                    running.remove(item)
                    if code:
                        failed.append(f"{item[0].task.name} {item[0].algo.name} "
                                      f"{item[0].budget} (status {code})")
    except KeyboardInterrupt:
        # Ctrl-C in a terminal reaches the runs too (one process group): a run past its
        # start-up stops by itself (its unit in progress is dropped, status 130); one still
        # importing ignores it (see _start), and it and any run the Ctrl-C missed (the table
        # alone was signalled) are ended after a few seconds: nothing of theirs is kept
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline and any(p.poll() is None for _, p in running):
            time.sleep(0.1)
        for _, proc in running:
            if proc.poll() is None:
                proc.terminate()
        for _, proc in running:
            proc.wait()
        raise
    if failed:
        raise RuntimeError(f"runs that failed: {'; '.join(failed)}")
