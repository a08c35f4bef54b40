"""Which modules run compiled, and a fallback to the source when that is safer.

At install time ``setup.py`` compiles a few hot modules (the engine and the env's
step) with mypyc into C extensions beside their ``.py`` files and records, in
``_compiled.json``, the sha256 of the source each was built from. Python imports
an extension in preference to a ``.py`` file of the same name, so an extension
left over from before an edit of its source would silently run the old code.
This module, imported first by the package, prevents that: the modules run
compiled only when every extension exists and neither their sources nor the
modules of ``TYPES_FROM`` (plain Python whose types the compiled code uses:
``engine/rules.py``, ``engine/events.py``, ``engine/errors.py``)
changed since the build.
Otherwise they are all imported from their ``.py`` files, with a warning naming
the changed modules and how to rebuild them (``pip install -e .``).

``BLACKJACK_ENV_PURE=1`` in the environment imports every module from source
(the reference behaviour, and what the pure-Python test run uses).
:func:`compiled_modules` says what runs compiled in this process.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from pathlib import Path

__all__ = ["compiled_modules", "pure_requested"]

_PACKAGE_DIR = Path(__file__).parent
_ROOT = _PACKAGE_DIR.parent
_MANIFEST = _PACKAGE_DIR / "_compiled.json"
#: Modules that may be compiled; a build records them (and their sources) in the manifest.
#: The one list of them: setup.py reads it (and TYPES_FROM) from this file.
KNOWN = (
    "blackjack_env.engine.cards",
    "blackjack_env.engine.hand",
    "blackjack_env.engine.play",
    "blackjack_env.engine.seat",
    "blackjack_env.engine.shoe",
    "blackjack_env.engine.table",
    "blackjack_env.envs.single.core",
    "blackjack_env.envs.step",
    "blackjack_env.envs.view.per_step",
)


#: Modules not compiled whose types are compiled into those above (setup.py's
#: TYPES_FROM): editing one also makes the build stale.
TYPES_FROM = (
    "blackjack_env.engine.errors",
    "blackjack_env.engine.events",
    "blackjack_env.engine.rules",
)

#: The C library the compiled modules share (setup.py's mypyc group name + "__mypyc").
SHARED_LIBRARY = "blackjack_env__mypyc"


def pure_requested() -> bool:
    """True when ``BLACKJACK_ENV_PURE`` asks for pure Python."""
    return os.environ.get("BLACKJACK_ENV_PURE", "") not in ("", "0")


def _source(name: str) -> Path:
    return _ROOT.joinpath(*name.split(".")).with_suffix(".py")


def _extension(name: str) -> Path | None:
    source = _source(name)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = source.with_suffix(suffix)
        if candidate.exists():
            return candidate
    return None


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class _SourceFinder:
    """A meta-path finder that loads the named modules from their ``.py`` files."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        if fullname not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, _source(fullname))


def _decide(built: set[str]) -> tuple[bool, list[str]]:
    """(the compiled modules run, stale modules) for this process, given the modules
    whose extension exists.

    All or nothing: compiled modules share one C library and refer to each
    other's classes directly, so mixing a compiled module with the source of
    another would give two different ``Hand`` (say) classes.
    """
    if not built or pure_requested():
        return False, []  # nothing to check (and nothing to warn about)
    try:
        manifest = json.loads(_MANIFEST.read_text())
    except (OSError, ValueError):
        manifest = {}
    stale = [name for name in KNOWN if name not in built]
    stale += [
        name for name in KNOWN + TYPES_FROM if manifest.get(name) != _digest(_source(name))
    ]
    if not stale and importlib.util.find_spec(SHARED_LIBRARY) is None:
        # the modules' common C library (a top-level module) is not importable, e.g.
        # after a rebuild in place without reinstalling the editable package
        stale = [f"{SHARED_LIBRARY} (their shared library, not importable)"]
    return not stale, stale


_BUILT = {name for name in KNOWN if _extension(name) is not None}
_USE_COMPILED, _STALE = _decide(_BUILT)
if _BUILT and not _USE_COMPILED:
    sys.meta_path.insert(0, _SourceFinder(_BUILT))
if _STALE:
    warnings.warn(
        f"blackjack_env: the compiled modules do not match their source or cannot load "
        f"({', '.join(_STALE)}: changed since the build, or not built); running the source "
        f"instead (slower). Rebuild with `pip install -e .`, or set "
        f"BLACKJACK_ENV_PURE=1 to always run the source.",
        RuntimeWarning,
        stacklevel=2,
    )


def compiled_modules() -> dict[str, bool]:
    """Each compilable module and whether it runs compiled in this process."""
    return {name: _USE_COMPILED for name in KNOWN}
