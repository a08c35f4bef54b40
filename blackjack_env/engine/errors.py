"""The table's errors: both are ``ValueError``, and a call that raises one changed nothing.

:class:`PhaseError`: a call made in a phase where it is not allowed (``act`` while
betting, ``deal`` twice). :class:`IllegalActionError`: an action, bet or seat that
the rules or the bankroll do not allow. Their messages name the value and what is
allowed now.

This module is plain Python (not compiled): an exception class defined in a
compiled module must be a non-native class anyway, so compiling it buys nothing.
"""

from __future__ import annotations

__all__ = ["IllegalActionError", "PhaseError", "TableError"]


class TableError(ValueError):
    """Base class of the table's errors."""


class PhaseError(TableError):
    """A call made in a phase where it is not allowed."""


class IllegalActionError(TableError):
    """An action or bet that the rules or the bankroll do not allow."""
