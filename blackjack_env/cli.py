"""What the command-line programs share: one runner, option checks, output files.

:func:`run_command` runs every command (``blackjack_env.commands``, ``python -m
blackjack_env.simulate``, the benchmark scripts): it parses the options with `tyro`_
from a settings dataclass (its fields, with a docstring line each, are the options)
and turns a user's mistake into one line ``error: ...`` on stderr with exit status 2
(Ctrl-C: ``error: interrupted``, 130). Set ``BLACKJACK_ENV_DEBUG=1`` to see the full
traceback instead.

A command checks every option and every output path (:func:`check_output_dir`,
:func:`check_output_file`, :func:`check_writable`) *before* it starts work, and writes
each file through :func:`atomic_path` (a temporary file renamed over the target when
it is complete), so a refused or failed command leaves earlier files as they were.
Nothing here imports the agents package.

.. _tyro: https://brentyi.github.io/tyro/
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import platform
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from statistics import NormalDist
from typing import Any, TypeVar

import tyro

from blackjack_env.engine.rules import FIELD_NAMES, preset

__all__ = [
    "CI_LEVEL",
    "CI_NAME",
    "USER_ERRORS",
    "UsageError",
    "apply_rule_changes",
    "atomic_path",
    "check_at_least",
    "check_output_dir",
    "check_output_file",
    "check_positive",
    "check_writable",
    "fail",
    "finish_benchmark",
    "load_average",
    "missing_package",
    "note_new_folder",
    "option",
    "preset_option",
    "read_json_object",
    "rule_value",
    "run_command",
    "set_options",
    "write_json",
    "z_value",
]

S = TypeVar("S")


class UsageError(ValueError):
    """A user's mistake: its message is printed as one ``error: ...`` line."""


def option(metavar: str | None = None, default: str | None = None) -> Any:
    """How an option reads in ``--help``, for ``Annotated[type, option(...)]``: its
    ``metavar`` (``FILE``, ``N|inf``: rather than tyro's ``{None}|STR``) and its default in
    words (``default="not written"`` gives ``(default: not written)``; ``""`` shows none),
    for an option whose Python default (None, ``''``, 0) stands for something."""
    kwargs: dict[str, Any] = {}
    if metavar is not None:
        kwargs["metavar"] = metavar
    if default is not None:
        kwargs["help_behavior_hint"] = f"(default: {default})" if default else ""
    return tyro.conf.arg(**kwargs)


def fail(message: str) -> UsageError:
    """``raise fail("--hands 0: must be at least 1")``: a :class:`UsageError`."""
    return UsageError(message)


#: The exceptions that a user's input can cause and that end a command with one line.
#: ``ValueError`` covers the library's own validation (``Rules``, presets, the envs);
#: ``OSError`` a path that cannot be read or written.
USER_ERRORS: tuple[type[BaseException], ...] = (ValueError, OSError, LookupError)


def run_command(
    settings_cls: type[S],
    job: Callable[[S], Any],
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
    description: str | None = None,
) -> int:
    """Parse ``argv`` (default: ``sys.argv[1:]``) into ``settings_cls``, run ``job`` on it.

    Returns the exit status: 0 on success, 2 after a user error (one ``error:`` line
    on stderr, no traceback), 130 after Ctrl-C. ``tyro`` reports options that do not
    parse (an unknown flag, a word where a number belongs) in a box of several lines;
    that report is read and given as one ``error:`` line too, with status 2.
    """
    debug = os.environ.get("BLACKJACK_ENV_DEBUG", "") not in ("", "0")
    try:
        said = io.StringIO()  # tyro's own report of options that do not parse
        try:
            with contextlib.redirect_stderr(said):
                settings = tyro.cli(
                    settings_cls,
                    args=None if argv is None else list(argv),
                    prog=prog,
                    description=description,
                )
        except SystemExit as stop:
            if stop.code in (0, None) or debug:
                sys.stderr.write(said.getvalue())
                raise
            print(f"error: {_parse_error(said.getvalue())}", file=sys.stderr)
            return 2
        sys.stderr.write(said.getvalue())
        with warnings.catch_warnings():
            if not debug:
                warnings.showwarning = _show_note
            job(settings)
    except KeyboardInterrupt:
        if debug:
            raise
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of the output went away (``... | head``)
        return 0
    except USER_ERRORS as err:
        if debug:
            raise
        print(f"error: {_one_line(err)}", file=sys.stderr)
        return 2
    except ImportError as err:  # an optional package the command needs is not installed
        if debug or err.name is None or err.name.split(".")[0] not in EXTRA_OF:
            raise  # not an optional dependency: a real bug, shown in full
        print(f"error: {missing_package(err)}", file=sys.stderr)
        return 2
    return 0


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_SHOW_WARNING = warnings.showwarning


def _show_note(message: Warning | str, category: type[Warning], filename: str, lineno: int,
               file: Any = None, line: str | None = None) -> None:
    """A command shows the library's own ``UserWarning`` (a chart played for the nearest
    rules served, ...) as one ``note:`` line; other warnings as Python shows them."""
    ours = os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)
    if ours and issubclass(category, UserWarning):
        print(f"note: {' '.join(str(message).split())}", file=sys.stderr)
    else:
        _SHOW_WARNING(message, category, filename, lineno, file, line)


_BOX = "│╭╮╰╯"


def _parse_error(report: str) -> str:
    """tyro's boxed report of options that do not parse, as one line: the first
    paragraph inside the box (e.g. ``Unrecognized options: --foo``)."""
    words: list[str] = []
    for raw in report.splitlines():
        text = raw.strip()
        if text.startswith(("╭", "╰")):  # the box's top (its title) and bottom
            continue
        line = text.strip(_BOX).strip()
        if not line or set(line) <= {"─"}:  # a blank line or a rule ends the paragraph
            if words:
                break
            continue
        words.append(line)
    message = " ".join(words) or "the options could not be read"
    return f"{message} (--help lists the options)"


def _one_line(err: BaseException) -> str:
    if isinstance(err, OSError) and err.filename is not None:
        reason = err.strerror or str(err)
        return f"{err.filename}: {reason}"
    text = str(err) or type(err).__name__
    if isinstance(err, KeyError) and len(err.args) == 1:
        text = str(err.args[0])
    return " ".join(text.split())


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


def _can_write_in(folder: Path) -> str | None:
    """None if a file can be made in ``folder`` (tried: a nameless temporary file, removed at
    once), else the reason. A real try, because permission bits do not tell: ``root`` passes
    ``os.access`` everywhere, and ``/proc`` or a read-only mount refuse every new file."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        return err.strerror or type(err).__name__
    return None


def check_output_dir(path: str | Path, option: str, *, of_file: str | Path | None = None) -> Path:
    """``path`` can be used as an output folder: it is a folder where a file can be made, or
    it can be created (its nearest existing parent is a folder where one can be made);
    otherwise a ``ValueError`` naming ``option`` and the path (and ``of_file``, the file
    that is to be written there, if given). Creates nothing that stays: the test is a
    nameless temporary file, removed at once. A missing folder is made when the first file
    is written into it (:func:`atomic_path`); a command says so (:func:`note_new_folder`)."""
    p = Path(path)
    what = f"{option} {path}" if of_file is None else f"{option} {of_file}: its folder {path}"
    if p.exists():
        if not p.is_dir():
            raise ValueError(f"{what}: exists and is not a folder")
        why = _can_write_in(p)
        if why is not None:
            raise ValueError(f"{what}: no file can be made in this folder ({why})")
        return p
    base = _nearest_existing(p)
    if not base.is_dir():
        raise ValueError(f"{what}: cannot create it, {base} is a file, not a folder")
    why = _can_write_in(base)
    if why is not None:
        raise ValueError(f"{what}: cannot create it, no folder can be made in {base} ({why})")
    return p


def check_output_file(path: str | Path, option: str, *, suffixes: tuple[str, ...] = ()) -> Path:
    """``path`` can be written as a file: its folder exists as a folder where a file can be
    made, or can be created (:func:`check_output_dir`), it is not a folder, and, when
    ``suffixes`` are given (``(".png",)``: the format the command writes), its name ends in
    one of them (any case); otherwise a ``ValueError`` naming ``option`` and the path.
    Creates nothing (:func:`atomic_path` creates the folder when the file is written)."""
    p = Path(path)
    if str(path).endswith(os.sep) or p.is_dir():
        raise ValueError(f"{option} {path}: is a folder; give a file name")
    if suffixes and p.suffix.lower() not in suffixes:
        kind = _FORMAT_OF.get(suffixes[0], suffixes[0][1:].upper())
        raise ValueError(f"{option} {path}: the file is written as {kind}, whatever its "
                         f"name; give a name ending in {' or '.join(suffixes)}")
    if p.exists() and not os.access(p, os.W_OK):
        raise ValueError(f"{option} {path}: the file is not writable")
    check_output_dir(p.parent, option, of_file=path)
    return p


#: What a command writes under each suffix, for :func:`check_output_file`'s message.
_FORMAT_OF = {".png": "a PNG picture", ".json": "JSON"}


def note_new_folder(path: str | Path, say: Callable[[str], Any] | None = None) -> Path | None:
    """Before a command writes the file ``path``: if its folder does not exist yet, create
    it and say so in one line, ``note: created the folder F for P`` (on stderr, as the
    commands' other notes, so that a JSON printed on stdout stays clean; or through
    ``say``), so that no folder appears unannounced. Returns the folder made, or None."""
    folder = Path(path).parent
    if folder.exists():
        return None
    folder.mkdir(parents=True, exist_ok=True)
    line = f"note: created the folder {folder} for {path}"
    if say is None:
        print(line, file=sys.stderr, flush=True)
    else:
        say(line)
    return folder


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
    except OSError as err:
        if err.filename is not None and Path(err.filename) == tmp:
            # the temporary file is ours, not the user's: name the path they gave
            raise OSError(err.errno, f"cannot write here ({err.strerror})", str(path)) from None
        raise
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def write_json(path: str | Path, data: Any) -> Path:
    """Write ``data`` as indented JSON to ``path``, whole or not at all; a folder it has to
    create is announced (:func:`note_new_folder`)."""
    note_new_folder(path)
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


#: The optional packages and the extra (``pyproject.toml``) that installs each.
EXTRA_OF = {
    "tqdm": "main",
    "matplotlib": "main",
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "rich": "train",
    "tensorboard": "train",
    "pygame": "render",
    "pettingzoo": "multiagent",
    "starlette": "web",
    "uvicorn": "web",
    "rliable": "bench",
    "jsonschema": "bench",
    "jax": "jax",
    "flax": "jax",
    "optax": "jax",
}


def missing_package(err: ImportError, extra: str | None = None) -> str:
    """One line for a package that is not installed, naming the extra that brings it
    (``extra``, or the one :data:`EXTRA_OF` names for the package)."""
    name = err.name or str(err)
    extra = extra or EXTRA_OF.get(name.split(".")[0], "all")
    return f'{name} is not installed: run pip install -e ".[{extra}]"'


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
                raise ValueError(f"{origin[name]}: {_command_spelling(alone)}") from None
            except TypeError as alone:  # a value of the wrong kind altogether
                raise ValueError(
                    f"{origin[name]}: {name} does not take {value!r} ({alone}); the Rules "
                    f"docstring says what each field takes (python -c 'import blackjack_env; "
                    f"help(blackjack_env.Rules)')"
                ) from None
        if isinstance(err, TypeError):
            raise ValueError(f"these rule options do not go together: {err}") from None
        raise


def _command_spelling(err: BaseException) -> str:
    """A library message in the spelling the command line takes: ``Rules`` says ``None``
    for an infinite deck, the options say ``inf`` (:func:`rule_value`)."""
    return str(err).replace("or None for an infinite deck", "or inf for an infinite deck")


def check_writable(name: str, path: str | os.PathLike[str] | None, *,
                   suffixes: tuple[str, ...] = ()) -> None:
    """:func:`check_output_file` for the option ``name`` (a settings field: ``"json"``
    checks ``--json``; ``suffixes`` as there); ``None`` or ``""`` (no output asked for)
    passes."""
    if path is None or str(path) == "":
        return
    check_output_file(os.fspath(path), _flag(name), suffixes=suffixes)


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
