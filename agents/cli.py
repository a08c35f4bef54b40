"""Command-line helpers shared by the scripts."""

from __future__ import annotations

import argparse
import json
import os
import platform
from collections.abc import Iterable, Mapping
from dataclasses import asdict, fields
from typing import Any

__all__ = ["add_settings_arguments", "finish_benchmark"]


def add_settings_arguments(
    parser: argparse.ArgumentParser,
    settings_cls: Any,
    help: Mapping[str, str],
    skip: Iterable[str] = (),
) -> None:
    """One ``--option`` per field of the settings dataclass ``settings_cls``.

    The flag is the field name with ``_`` written ``-``; the default and the type
    come from the field; booleans get ``--name`` / ``--no-name``; the help line is
    ``help[name]``. Fields named in ``skip`` (e.g. a positional argument) are left
    to the caller.
    """
    skipped = set(skip)
    for f in fields(settings_cls):
        if f.name in skipped:
            continue
        flag = f"--{f.name.replace('_', '-')}"
        if isinstance(f.default, bool):
            parser.add_argument(flag, dest=f.name, default=f.default,
                                action=argparse.BooleanOptionalAction, help=help.get(f.name, ""))
        else:
            parser.add_argument(flag, dest=f.name, default=f.default, type=type(f.default),
                                help=help.get(f.name, ""))


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
