"""The command-line programs, as library code: one module per command.

Each module under this package defines a ``Settings`` dataclass (its fields, with a
docstring line each, are the command's options), a ``run(settings)`` function that
does the work and returns a JSON-able result, and ``main(argv=None) -> int``, built
with :func:`blackjack_env._cli.run_command` (one ``error: ...`` line for a user's
mistake). The scripts under ``scripts/`` and the console commands
(``[project.scripts]`` in ``pyproject.toml``) are thin wrappers over ``main``; the
tests call ``run`` and ``main`` in-process.
"""

from __future__ import annotations

from blackjack_env._cli import UsageError, fail, run_command

__all__ = ["UsageError", "fail", "run_command"]
