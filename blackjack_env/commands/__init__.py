"""The command-line programs, as library code: one module per command.

Each module under this package defines a ``Settings`` dataclass (its fields, with a
docstring line each, are the command's options), a ``run(settings)`` function that
does the work and returns a JSON-able result, and ``main(argv=None) -> int``, built
with :func:`blackjack_env.cli.run_command` (one ``error: ...`` line for a user's
mistake). The scripts under ``scripts/`` and the console commands
(``[project.scripts]`` in ``pyproject.toml``) are thin wrappers over ``main``; the
tests call ``run`` and ``main`` in-process.

The options the commands share are read here: :func:`bet_sizes_option` (``--bet-sizes``).
"""

from __future__ import annotations

from blackjack_env.cli import UsageError, fail, run_command
from blackjack_env.envs.settings import check_bet_sizes

__all__ = ["UsageError", "bet_sizes_option", "fail", "run_command"]


def bet_sizes_option(text: str | None, flag: str = "--bet-sizes") -> tuple[int, ...]:
    """The ``--bet-sizes`` option's text (``"1,2,4,8"``) as bet sizes: ``()`` (a fixed bet)
    for None or ``""``; otherwise whole numbers separated by commas, checked by the envs'
    one rule (:func:`~blackjack_env.envs.settings.check_bet_sizes`: strictly increasing,
    each >= 1). Anything else raises ``UsageError`` naming ``flag``."""
    if text is None or not str(text).strip():
        return ()
    parts = [part.strip() for part in str(text).split(",")]
    try:
        sizes = tuple(int(part) for part in parts)
        return check_bet_sizes(sizes, flag)
    except ValueError:
        raise UsageError(
            f"{flag} {text!r}: give strictly increasing whole numbers >= 1 separated by "
            f"commas, e.g. 1,2,4,8"
        ) from None
