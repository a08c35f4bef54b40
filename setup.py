"""Build script: compile the hot modules with mypyc, or install pure Python.

The package is plain Python, and every module runs as it is. At install time the
modules in :data:`COMPILED` are also compiled to C extensions by mypyc (mypy's
compiler for type-annotated Python), which makes the engine and the env's step
several times faster. There is one source: the compiled modules are built from
the same ``.py`` files, and ``blackjack_env/_native.py`` falls back to the source
of any module whose extension is missing or older than its source.

Set ``BLACKJACK_ENV_PURE=1`` while installing to skip compilation. If mypyc or
the C compiler fails, the install goes on without the extensions and says so.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.machinery
import json
import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).parent



def _module_list(name: str) -> list[str]:
    """Source paths of the modules named in ``blackjack_env/_native.py``'s tuple ``name``
    (read from the file, not imported: the package is not importable while building)."""
    tree = ast.parse((ROOT / "blackjack_env" / "_native.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return [module.replace(".", "/") + ".py" for module in ast.literal_eval(node.value)]
    raise RuntimeError(f"blackjack_env/_native.py has no {name} tuple")


#: The modules compiled by mypyc (they must type-check under mypy): _native.KNOWN.
COMPILED = _module_list("KNOWN")

#: Not compiled, but their types are compiled into the modules above (the compiled
#: code reads ``Rules`` fields as the types declared there): an edit of one of them
#: also needs a rebuild, so the manifest records them too (_native.TYPES_FROM).
TYPES_FROM = _module_list("TYPES_FROM")

#: Written at build time: each compiled module's name and the sha256 of the source
#: it was compiled from (see blackjack_env/_native.py).
MANIFEST = ROOT / "blackjack_env" / "_compiled.json"


def _warn(message: str) -> None:
    print(f"blackjack_env: {message}; installing pure Python (slower)", file=sys.stderr)


class OptionalBuildExt(build_ext):
    """build_ext that installs pure Python when a C extension fails to build."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:
            _warn(f"building the compiled modules failed ({error})")
            MANIFEST.unlink(missing_ok=True)

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:
            _warn(f"compiling {ext.name} failed ({error})")
            MANIFEST.unlink(missing_ok=True)


#: setup.py commands that build code (others, such as the metadata step, skip mypyc).
BUILD_COMMANDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}
#: mypy options: pyproject.toml's [tool.mypy] (type errors are reported for the
#: compiled modules only; big third-party packages are not analysed).
MYPY_OPTIONS = ["--config-file", str(ROOT / "pyproject.toml")]


def _remove_built_extensions() -> None:
    """Delete extensions left in the tree by an earlier compiled (editable) build, so a
    pure install runs its source without the stale-build warning."""
    stems = [ROOT / path[: -len(".py")] for path in COMPILED] + [ROOT / "blackjack_env__mypyc"]
    for stem in stems:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            stem.with_name(stem.name + suffix).unlink(missing_ok=True)


def _extensions() -> list:
    if os.environ.get("BLACKJACK_ENV_PURE", "") not in ("", "0"):
        MANIFEST.unlink(missing_ok=True)
        _remove_built_extensions()
        return []
    if not BUILD_COMMANDS.intersection(sys.argv[1:]):
        return []
    try:
        from mypyc.build import mypycify

        # group_name: the modules share one C library, blackjack_env__mypyc (a
        # top-level module; _native.SHARED_LIBRARY)
        extensions = mypycify(
            [*MYPY_OPTIONS, *COMPILED], opt_level="3", group_name="blackjack_env", verbose=False
        )
    except (Exception, SystemExit) as error:  # mypy type errors exit
        _warn(f"mypyc could not compile {', '.join(COMPILED)} ({error})")
        MANIFEST.unlink(missing_ok=True)
        return []
    manifest = {
        path[: -len(".py")].replace("/", "."): hashlib.sha256(
            (ROOT / path).read_bytes()
        ).hexdigest()
        for path in COMPILED + TYPES_FROM
    }
    MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return extensions


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
