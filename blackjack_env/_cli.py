"""Helpers of the command-line programs that are not agents: option checks, output
files, and the benchmark epilogue.

The commands under :mod:`blackjack_env.agents.commands`, ``python -m
blackjack_env.simulate`` and the benchmark scripts (``scripts/bench_*.py``) check
every option with these before they start work, so that a bad value ends the
program with one line ``error: ...`` (a ``ValueError`` or ``OSError``, turned into
that line by :func:`blackjack_env.agents.commands.run_command`) and nothing is
written. Nothing here imports the agents package.
"""

from __future__ import annotations

import json
import math
import os
import platform
from dataclasses import asdict
from pathlib import Path
from typing import Any

__all__ = [
    "apply_rule_changes",
    "check_at_least",
    "check_positive",
    "check_writable",
    "finish_benchmark",
    "load_average",
    "preset_option",
    "rule_value",
    "set_options",
    "write_json",
]


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def check_at_least(name: str, value: int, low: int, what: str = "") -> None:
    """``--name value`` must be an int >= ``low``; ``what`` says what the option counts."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        tail = f" ({what})" if what else ""
        raise ValueError(f"{_flag(name)} {value!r}: must be a whole number >= {low}{tail}")


def check_positive(name: str, value: float, what: str = "") -> None:
    """``--name value`` must be a finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
        math.isfinite(value) and value > 0
    ):
        tail = f" ({what})" if what else ""
        raise ValueError(f"{_flag(name)} {value!r}: must be a number > 0{tail}")


def preset_option(name: str, flag: str = "rules") -> Any:
    """The rules of the preset ``--rules name``; an unknown name is refused naming the option."""
    from blackjack_env.engine.rules import preset

    try:
        return preset(name)
    except ValueError as err:
        raise ValueError(f"{_flag(flag)}: {err}") from None


def rule_value(text: str) -> Any:
    """A rule value typed on the command line: true/false, none/inf (None), a number,
    JSON (``{...}`` / ``[...]``), or else the text itself."""
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null", "inf", "infinite"):
        return None
    if low[:1] in ("{", "["):
        try:
            return json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"{text!r} is not valid JSON ({err.msg})") from None
    try:
        return int(low)
    except ValueError:
        pass
    try:
        return float(low)
    except ValueError:
        return text.strip()


def set_options(items: list[str], flag: str = "set") -> tuple[dict[str, Any], dict[str, str]]:
    """``--set FIELD=VALUE`` items as rule changes, and for each field the option text
    that asked for it (to name it in an error). Unknown fields are refused here."""
    from blackjack_env.engine.rules import FIELD_NAMES

    changes: dict[str, Any] = {}
    origin: dict[str, str] = {}
    fields = ", ".join(FIELD_NAMES)
    for item in items:
        name, eq, value = item.partition("=")
        name = name.strip()
        if not eq or not name:
            raise ValueError(f"{_flag(flag)} {item!r}: use FIELD=VALUE; fields are {fields}")
        if name not in FIELD_NAMES:
            raise ValueError(
                f"{_flag(flag)} {item!r}: unknown rule field {name!r}; fields are {fields}"
            )
        try:
            changes[name] = rule_value(value)
        except ValueError as err:
            raise ValueError(f"{_flag(flag)} {item!r}: {err}") from None
        origin[name] = f"{_flag(flag)} {item}"
    return changes, origin


def apply_rule_changes(base: Any, changes: dict[str, Any], origin: dict[str, str]) -> Any:
    """``base.replace(**changes)``; a refused change is reported naming the option that
    asked for it (``origin[field]``), a value of the wrong kind included."""
    if not changes:
        return base
    try:
        return base.replace(**changes)
    except (TypeError, ValueError) as err:
        for name, value in changes.items():  # name the option: try each change alone
            try:
                base.replace(**{name: value})
            except ValueError as alone:
                raise ValueError(f"{origin[name]}: {alone}") from None
            except TypeError as alone:  # a value of the wrong kind altogether
                raise ValueError(
                    f"{origin[name]}: {name} does not take {value!r} ({alone}); the Rules "
                    f"docstring says what each field takes (python -c 'import blackjack_env; "
                    f"help(blackjack_env.Rules)')"
                ) from None
        if isinstance(err, TypeError):
            raise ValueError(f"these rule options do not go together: {err}") from None
        raise


def check_writable(name: str, path: str | os.PathLike[str] | None) -> None:
    """Refuse an output path that cannot be written, before any work is done.

    The folder must exist and be writable, and the path must not be a folder. The
    file itself is neither created nor touched (a failed run leaves nothing behind).
    ``None`` or ``""`` (no output asked for) passes.
    """
    if path is None or str(path) == "":
        return
    p = Path(path)
    flag = _flag(name)
    if p.is_dir():
        raise ValueError(f"{flag} {str(path)!r}: is a folder; give a file name")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise ValueError(
            f"{flag} {str(path)!r}: the folder {str(folder)!r} does not exist; create it first"
        )
    if not os.access(folder, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ValueError(f"{flag} {str(path)!r}: cannot be written (permission denied)")


def write_json(path: str | os.PathLike[str], data: Any) -> None:
    """Write ``data`` as indented JSON (the whole text is built first, so a value that
    cannot be encoded leaves no half-written file)."""
    text = json.dumps(data, indent=2)
    Path(path).write_text(text + "\n")


def load_average() -> tuple[float, float, float] | None:
    """``os.getloadavg()``, or None where the platform has none."""
    try:
        return os.getloadavg()
    except (OSError, AttributeError):  # pragma: no cover - not on every platform
        return None


def finish_benchmark(results: dict[str, Any], settings: Any, path: str | None) -> None:
    """End a benchmark: record its ``settings`` (a dataclass) and the machine (Python,
    CPU, load average) in ``results``, print the load average, and write ``results``
    as JSON to ``path`` when one is given."""
    load = load_average()
    results["settings"] = asdict(settings)
    results["machine"] = {
        "python": platform.python_version(),
        "cpu": platform.processor(),
        "cpus": os.cpu_count(),
        "load_average": load,
    }
    if load is not None:
        print(f"load average at the end: {', '.join(f'{x:.2f}' for x in load)}")
    if path:
        write_json(path, results)
        print(f"wrote {path}")
