"""What two modules share is public: no module of the package imports another module's
``_private`` name or reads another object's ``_private`` attribute.

A name that starts with one underscore is the business of the module (or object) that
defines it; code elsewhere goes through a public, documented name instead. Allowed: a
module's own names, ``self._x`` / ``cls._x``, and NamedTuple's public API, whose method
names start with an underscore (``_replace``, ``_fields``, ``_asdict``, ``_make``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("blackjack_env", "agents")
#: NamedTuple's public methods and attributes (their names start with an underscore)
NAMEDTUPLE_API = {"_replace", "_fields", "_asdict", "_make", "_field_defaults"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def findings(path: Path) -> list[str]:
    """``line: what`` for each cross-module private import or private attribute read."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            found += [f"{node.lineno}: imports {node.module}.{a.name}"
                      for a in node.names if _private(a.name)]  # fmt: skip
        elif (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and node.attr not in NAMEDTUPLE_API
            and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
        ):
            found.append(f"{node.lineno}: reads {ast.unparse(node)}")
    return found


SOURCES = sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def test_the_check_sees_what_it_forbids(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from m import _x\nimport m\ny = m._z\nz = other._w\nq = self._ok\n"
                   "r = t._replace(a=1)\n")  # fmt: skip
    assert findings(bad) == ["1: imports m._x", "3: reads m._z", "4: reads other._w"]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_name_crosses_a_module(path: Path) -> None:
    assert findings(path) == []
