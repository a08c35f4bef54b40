"""The command-line programs, as library code: one module per command.

Each module under this package defines a ``Settings`` dataclass (its fields, with
a docstring line each, are the command's options, parsed by `tyro`_), a
``run(settings)`` function that does the work and returns a JSON-able result, and
``main(argv=None) -> int``, which :func:`run_command` builds. The scripts under
``scripts/`` and the console commands (``[project.scripts]`` in ``pyproject.toml``)
are thin wrappers over ``main``; the tests call ``run`` and ``main`` in-process.

A user's mistake (a bad value, an unknown preset, a file that cannot be read or
written) ends the command with one line ``error: ...`` on stderr and exit status 2;
Ctrl-C ends it with ``error: interrupted`` and status 130. Set
``BLACKJACK_ENV_DEBUG=1`` to see the full traceback instead.

.. _tyro: https://brentyi.github.io/tyro/
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

__all__ = ["UsageError", "fail", "run_command"]

S = TypeVar("S")


class UsageError(ValueError):
    """A user's mistake: its message is printed as one ``error: ...`` line."""


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
    parse (an unknown flag, a word where a number belongs) in its own format, also
    with status 2.
    """
    debug = os.environ.get("BLACKJACK_ENV_DEBUG", "") not in ("", "0")
    try:
        import tyro

        settings = tyro.cli(
            settings_cls,
            args=None if argv is None else list(argv),
            prog=prog,
            description=description,
        )
        job(settings)
    except KeyboardInterrupt:
        if debug:
            raise
        print("error: interrupted", file=sys.stderr)
        return 130
    except USER_ERRORS as err:
        if debug:
            raise
        print(f"error: {_one_line(err)}", file=sys.stderr)
        return 2
    return 0


def _one_line(err: BaseException) -> str:
    if isinstance(err, OSError) and err.filename is not None:
        reason = err.strerror or str(err)
        return f"{err.filename}: {reason}"
    text = str(err) or type(err).__name__
    if isinstance(err, KeyError) and len(err.args) == 1:
        text = str(err.args[0])
    return " ".join(text.split())
