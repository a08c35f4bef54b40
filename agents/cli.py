"""Helpers the commands share: output paths checked before work, files written whole,
JSON files read with a clear error, interval z-values, and the benchmark ending.

A command checks every output path with :func:`check_output_dir` /
:func:`check_output_file` *before* it starts working, and writes each file
through :func:`atomic_path` (a temporary file renamed over the target when it
is complete), so a refused or failed command leaves earlier files as they were.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from statistics import NormalDist
from typing import Any

__all__ = [
    "CI_LEVEL",
    "CI_NAME",
    "atomic_path",
    "check_output_dir",
    "check_output_file",
    "finish_benchmark",
    "missing_package",
    "read_json_object",
    "write_json",
    "z_value",
]

#: The one interval convention of the commands: a two-sided 95% normal interval.
CI_LEVEL = 0.95
CI_NAME = "95% CI"


def z_value(level: float = CI_LEVEL) -> float:
    """The two-sided normal quantile of a ``level`` interval (1.95996... for 0.95)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level {level!r} must be between 0 and 1")
    return NormalDist().inv_cdf(0.5 + level / 2.0)


def _nearest_existing(path: Path) -> Path:
    p = path.absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def check_output_dir(path: str | Path, option: str) -> Path:
    """``path`` can be used as an output folder (it exists as a writable folder, or can be
    created); otherwise a ``ValueError`` naming ``option`` and the path. Creates nothing."""
    p = Path(path)
    if p.exists():
        if not p.is_dir():
            raise ValueError(f"{option} {path}: exists and is not a folder")
        if not os.access(p, os.W_OK | os.X_OK):
            raise ValueError(f"{option} {path}: the folder is not writable")
        return p
    base = _nearest_existing(p)
    if not base.is_dir():
        raise ValueError(f"{option} {path}: cannot create it, {base} is a file, not a folder")
    if not os.access(base, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {path}: cannot create it, {base} is not writable")
    return p


def check_output_file(path: str | Path, option: str) -> Path:
    """``path`` can be written as a file (its folder exists or can be created, and it is not
    a folder); otherwise a ``ValueError`` naming ``option`` and the path. Creates nothing."""
    p = Path(path)
    if str(path).endswith(os.sep) or p.is_dir():
        raise ValueError(f"{option} {path}: is a folder; give a file name")
    if p.exists() and not os.access(p, os.W_OK):
        raise ValueError(f"{option} {path}: the file is not writable")
    check_output_dir(p.parent, option)
    return p


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` (same suffix) to write to; renamed over ``path``
    when the block ends without an error, removed otherwise."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.stem}.{os.getpid()}.tmp{target.suffix}")
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def write_json(path: str | Path, data: Any) -> Path:
    """Write ``data`` as indented JSON to ``path``, whole or not at all."""
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(data, indent=2) + "\n")
    return Path(path)


def read_json_object(path: str | Path) -> dict[str, Any]:
    """A JSON file that must hold an object; a ``ValueError`` naming the file otherwise."""
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except UnicodeDecodeError:
        raise ValueError(f"{p}: not a JSON file (not text)") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{p}: not valid JSON ({err.msg} at line {err.lineno})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{p}: expected a JSON object {{...}}, found a {type(data).__name__}")
    return data


def missing_package(err: ImportError, extra: str = "main") -> str:
    """One line for a package that is not installed, naming the extra that brings it."""
    name = err.name or str(err)
    return f'{name} is not installed: run pip install -e ".[{extra}]"'


def finish_benchmark(results: dict[str, Any], settings: Any, path: str | None) -> None:
    """End a benchmark script: record its ``settings`` (a dataclass) and the machine
    (Python, CPU, load average) in ``results``, print the load average, and write
    ``results`` as JSON to ``path`` when one is given."""
    load = os.getloadavg()
    results["settings"] = asdict(settings)
    results["machine"] = {
        "python": platform.python_version(),
        "cpu": platform.processor(),
        "load_average": load,
    }
    print(f"load average at the end: {', '.join(f'{x:.2f}' for x in load)}")
    if path:
        with open(path, "w") as f:
            json.dump(results, f, indent=2)
