"""Results files: one JSON file per run, its schema versioned and validated.

The schema is ``results.schema.json`` beside this module (JSON Schema 2020-12, read with
``jsonschema``): the task (name, version, fingerprint), the algorithm (name, kind,
settings), the command that wrote the file, the seeds and budgets, one record per seed
and budget (env steps trained, wall and CPU seconds, the grade), the machine (CPU,
cores, load average at the start and the end) and the software (package version, git
revision, the versions of the learning libraries).

:func:`read_results` refuses, in one line naming the file, anything that is not such a
file: JSON that does not match the schema, another schema version, an unknown task, a
task of another version than this package defines, a task whose definition differs
(its fingerprint), or a budget the task does not define. Nothing is read from a refused
file.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import subprocess
from collections.abc import Iterable
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from blackjack_env.bench.tasks import TASKS, format_budget
from blackjack_env.cli import load_average, read_json_object, write_json

__all__ = [
    "SCHEMA",
    "SCHEMA_PATH",
    "ResultsError",
    "machine",
    "now",
    "read_results",
    "results_in",
    "schema",
    "software",
    "validate",
    "write_results",
]

#: The name and version of the results schema this package writes and reads.
SCHEMA = "blackjack_env.bench/results/1"
#: The schema as JSON Schema (2020-12), shipped with the package.
SCHEMA_PATH = Path(__file__).resolve().parent / "results.schema.json"
#: The libraries whose versions a results file records.
LIBRARIES = ("numpy", "gymnasium", "torch", "stable-baselines3", "sb3-contrib", "jax", "flax",
             "optax", "numba")


class ResultsError(ValueError):
    """A file that is not a results file of this package's tasks (one line)."""


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of a results file."""
    return json.loads(SCHEMA_PATH.read_text())


@cache
def _validator() -> Any:
    """A validator of :func:`schema`, the schema itself checked once (checking it took
    34 ms a file, nine tenths of reading one)."""
    # deferred: jsonschema comes with the [bench] extra, which reading results needs
    from jsonschema.validators import validator_for

    checker = validator_for(schema())
    checker.check_schema(schema())
    return checker(schema())


def validate(data: Any, where: str = "results") -> dict[str, Any]:
    """``data`` if it is a valid results file of this package's tasks; else
    :class:`ResultsError` with one line saying what is wrong (see the module docstring)."""
    # deferred: jsonschema, as in _validator
    from jsonschema.exceptions import best_match

    if isinstance(data, dict) and data.get("schema") not in (None, SCHEMA) and \
            str(data.get("schema", "")).startswith("blackjack_env.bench/results/"):
        raise ResultsError(f"{where}: written with the results schema {data['schema']}; "
                           f"this package reads {SCHEMA}")
    err = best_match(_validator().iter_errors(data))  # the error jsonschema.validate raises
    if err is not None:
        at = "/".join(str(p) for p in err.absolute_path) or "the top"
        raise ResultsError(f"{where}: not a results file of schema {SCHEMA} "
                           f"({err.message} at {at})")
    name, version_ = data["task"]["name"], data["task"]["version"]
    task = TASKS.get(name)
    if task is None:
        raise ResultsError(f"{where}: results of an unknown task {name!r} (the tasks are "
                           f"{', '.join(TASKS)})")
    if version_ != task.version:
        raise ResultsError(f"{where}: results of {name}-v{version_}; this package defines "
                           f"{task.id}, whose grades differ: run it again for {task.id}")
    if data["task"]["fingerprint"] != task.fingerprint():
        raise ResultsError(f"{where}: results of {task.id} as it was defined elsewhere "
                           f"(fingerprint {data['task']['fingerprint']}, here "
                           f"{task.fingerprint()}): run it again with this package")
    for run in data["runs"]:
        budget = run["budget"]
        if budget is not None and budget not in task.budgets:
            raise ResultsError(f"{where}: a run at {format_budget(budget)} env steps, a budget "
                               f"{task.name} does not define "
                               f"({', '.join(format_budget(b) for b in task.budgets)})")
        if budget is not None and budget not in data["budgets"]:
            raise ResultsError(f"{where}: a run at {format_budget(budget)} env steps, not "
                               f"among the file's budgets")
    return data


def read_results(path: str | Path) -> dict[str, Any]:
    """Read and :func:`validate` one results file."""
    try:
        data = read_json_object(path)
    except ValueError as err:
        raise ResultsError(str(err)) from None
    return validate(data, str(path))


def results_in(folder: str | Path) -> list[tuple[Path, dict[str, Any]]]:
    """Every results file under ``folder`` (``*.json``, sorted; the work folders
    ``.work`` left out), each validated: the first bad one is refused (ResultsError)."""
    root = Path(folder)
    if not root.is_dir():
        raise ResultsError(f"{folder}: not a folder of results files")
    paths = sorted(p for p in root.rglob("*.json")
                   if not any(part.startswith(".") for part in p.relative_to(root).parts))
    return [(p, read_results(p)) for p in paths]


def write_results(path: str | Path, data: dict[str, Any]) -> Path:
    """Validate ``data`` and write it to ``path`` (whole or not at all)."""
    validate(data, str(path))
    return write_json(path, data)


def now() -> str:
    """The time now, ISO 8601 with the UTC offset (the files' ``started``/``finished``)."""
    return dt.datetime.now(dt.timezone.utc).astimezone().isoformat(timespec="seconds")


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine(load_start: Iterable[float] | None) -> dict[str, Any]:
    """The machine a run ran on: platform, CPU, cores, load average at its start (given)
    and now."""
    try:
        usable: int | None = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = None
    end = load_average()
    return {"platform": platform.platform(), "cpu": _cpu_name(), "cores": os.cpu_count(),
            "cores_usable": usable,
            "load_average_start": None if load_start is None else
            [round(x, 2) for x in load_start],
            "load_average_end": None if end is None else [round(x, 2) for x in end]}


def _git(*args: str) -> subprocess.CompletedProcess[str] | None:
    here = Path(__file__).resolve().parent
    try:
        return subprocess.run(["git", *args], cwd=here, capture_output=True, text=True,
                              timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None


def software() -> dict[str, Any]:
    """Python, this package's version and git revision (when it runs from a checkout;
    ``git_dirty``: tracked files differ from that revision), and the libraries'
    versions (None when not installed)."""
    out: dict[str, Any] = {"python": platform.python_version()}
    try:
        out["blackjack_env"] = version("blackjack_env")
    except PackageNotFoundError:
        out["blackjack_env"] = "unknown"
    head = _git("rev-parse", "HEAD")
    revision = head.stdout.strip() if head is not None and head.returncode == 0 else None
    out["git_revision"] = revision or None
    dirty = _git("diff", "--quiet", "HEAD", "--") if revision else None
    out["git_dirty"] = None if dirty is None else dirty.returncode != 0
    for name in LIBRARIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out
