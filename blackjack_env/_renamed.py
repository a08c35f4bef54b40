"""Old names kept importable after a rename, with a ``DeprecationWarning``."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any


def renamed(module: str, namespace: Mapping[str, Any], old_to_new: Mapping[str, str]
            ) -> Callable[[str], object]:
    """A module ``__getattr__`` that answers each old name in ``old_to_new`` with the
    object now named ``old_to_new[old]`` in ``namespace`` (the module's ``globals()``),
    warning that the old name is deprecated::

        __getattr__ = renamed(__name__, globals(), {"random_legal": "RandomLegal"})
    """

    def __getattr__(name: str) -> object:
        new = old_to_new.get(name)
        if new is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(f"{module}.{name} is deprecated; use {new}", DeprecationWarning,
                      stacklevel=2)
        return namespace[new]

    return __getattr__
