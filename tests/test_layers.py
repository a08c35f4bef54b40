"""The package's layers, and what two modules share.

What two modules share is public: no module of the package imports another module's
``_private`` name or reads another object's ``_private`` attribute.

A name that starts with one underscore is the business of the module (or object) that
defines it; code elsewhere goes through a public, documented name instead. Allowed: a
module's own names, ``self._x`` / ``cls._x``, and NamedTuple's public API, whose method
names start with an underscore (``_replace``, ``_fields``, ``_asdict``, ``_make``).

Dependencies point one way (design.md): engine <- strategies / analysis <- envs (and the
JAX table) <- agents <- web <- commands (``blackjack_env/commands``). No module imports a higher
layer, at its top or in a function. A function-local import is there only to defer an
optional heavy dependency (:data:`HEAVY`) that the module does not load at its top anyway,
and says so in a comment on its line or just above, naming what it defers; the few
deferred on purpose for another reason are listed in :data:`DEFERRED_ON_PURPOSE`, each
with its own. Each module imports in a fresh interpreter (so an import cycle cannot hide
behind the order the tests happen to import in), and loads no heavy package the static
reading of its imports does not expect; ``import blackjack_env`` loads none of them.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import cache
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


# --- layers ---------------------------------------------------------------------------

#: The optional heavy dependencies a function may defer (top-level package names).
HEAVY = frozenset({
    "torch", "jax", "jaxlib", "matplotlib", "starlette", "uvicorn", "stable_baselines3",
    "sb3_contrib", "pettingzoo", "pygame", "tqdm", "rich", "numba", "gymnax", "optax", "flax",
    "rliable", "jsonschema",
})
#: What ``import blackjack_env`` must not load.
NOT_WITH_THE_PACKAGE = ("jax", "torch", "matplotlib", "starlette", "uvicorn", "pygame", "numba")

#: Layer of each part of the package, lowest first; the longest matching prefix decides.
LAYER_OF = {
    "blackjack_env": 0,  # the package itself: the engine's names, env registration
    "blackjack_env._native": 0,
    "blackjack_env.cli": 0,  # the commands' option and file helpers: needs the engine only
    "blackjack_env.engine": 0,
    "blackjack_env.strategies": 1,
    "blackjack_env.analysis": 1,
    "blackjack_env.envs": 2,
    "blackjack_env.jax": 2,
    "blackjack_env.render": 2,
    "blackjack_env.simulate": 2,
    "blackjack_env.fingerprint": 2,
    "blackjack_env.agents": 3,
    "blackjack_env.web": 4,
    "blackjack_env.bench": 4,  # the benchmark: tasks, runs and grades over the agents
    "blackjack_env.commands": 5,
}

#: (module, imported module) pairs imported in a function for a reason other than a heavy
#: dependency; the comment at the import gives it.
DEFERRED_ON_PURPOSE = {
    # the strategy registry names "basic" and "composition" without loading the analysis
    # (tests/engine/test_strategies.py)
    ("blackjack_env.strategies", "blackjack_env.analysis.strategy"),
    ("blackjack_env.strategies", "blackjack_env.analysis.composition_strategy"),
}


def module_name(path: Path) -> str:
    """The dotted name ``path`` imports as (agents/ ships as blackjack_env.agents)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] == "agents":
        parts.insert(0, "blackjack_env")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in SOURCES}


def layer(module: str) -> int:
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in LAYER_OF:
            return LAYER_OF[".".join(parts[:i])]
    raise AssertionError(f"{module} has no layer in LAYER_OF")


def imported(node: ast.Import | ast.ImportFrom, here: str) -> list[str]:
    """Every module the import statement runs (its packages included)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = here.split(".")
            if MODULES[here].name != "__init__.py":
                parts.pop()
            parts = parts[: len(parts) - node.level + 1]
            base = ".".join([*parts, base] if base else parts)
        names = [base, *(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES)]
    out = []
    for name in names:
        parts = name.split(".")
        out += [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return out


@cache
def imports(module: str) -> list[tuple[ast.Import | ast.ImportFrom, str]]:
    """``(statement, where)`` for each import of ``module``; where is ``top``,
    ``typing`` (under ``if TYPE_CHECKING:``, never run) or ``local`` (in a function)."""
    found: list[tuple[ast.Import | ast.ImportFrom, str]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                inner = "local"
            elif (isinstance(child, ast.If) and where == "top"
                  and "TYPE_CHECKING" in ast.unparse(child.test)):
                for stmt in child.body:
                    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                        found.append((stmt, "typing"))
                    visit(stmt, "typing")
                for stmt in child.orelse:
                    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                        found.append((stmt, where))
                    visit(stmt, where)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append((child, inner))
            visit(child, inner)

    visit(ast.parse(MODULES[module].read_text()), "top")
    return found


@cache
def heavy(module: str) -> frozenset[str]:
    """The heavy packages importing ``module`` loads, read off the import statements that
    run at module level (its own, and those of the package modules they import)."""
    if module not in MODULES:
        return frozenset({module.split(".")[0]}) & HEAVY
    seen: set[str] = set()
    todo = [module]
    found: set[str] = set()
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        if m not in MODULES:
            found |= {m.split(".")[0]} & HEAVY
            continue
        parts = m.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]
        todo += [t for node, where in imports(m) if where == "top" for t in imported(node, m)]
    return frozenset(found)


def comment_at(lines: list[str], node: ast.stmt) -> str:
    """The comment on the import's first line, or the comment lines just above it."""
    text = []
    line = lines[node.lineno - 1]
    if "#" in line:
        text.append(line[line.index("#"):])
    i = node.lineno - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        text.append(lines[i].strip())
        i -= 1
    return " ".join(text).lower()


def layer_findings(module: str) -> list[str]:
    """``line: what`` for each import of a higher layer and each function-local import
    that defers no heavy dependency or gives no reason."""
    lines = MODULES[module].read_text().splitlines()
    own = heavy(module)
    found = []
    for node, where in imports(module):
        targets = [t for t in imported(node, module) if t.startswith("blackjack_env")]
        higher = sorted({t for t in targets if layer(t) > layer(module)})
        if higher:
            found.append(f"{node.lineno}: imports the higher layer {', '.join(higher)}")
        if where != "local":
            continue
        deferred = set().union(*(heavy(t) for t in imported(node, module))) - own
        comment = comment_at(lines, node)
        if any((module, t) in DEFERRED_ON_PURPOSE for t in targets):
            if not comment:
                found.append(f"{node.lineno}: deferred on purpose, with no comment saying why")
        elif not deferred:
            found.append(f"{node.lineno}: {ast.unparse(node)} defers no heavy dependency: "
                         "import it at the top")
        elif not any(name in comment for name in deferred):
            found.append(f"{node.lineno}: {ast.unparse(node)} defers {', '.join(sorted(deferred))}"
                         " with no comment naming it")
    return found


def test_the_layer_check_sees_what_it_forbids(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    source = tmp_path / "blackjack_env" / "engine" / "fake.py"
    source.parent.mkdir(parents=True)
    source.write_text(
        "from blackjack_env.envs import vector\n"           # 1: a higher layer
        "def f():\n"
        "    import json\n"                                 # 3: light: belongs at the top
        "    import matplotlib\n"                           # 4: heavy, no reason given
        "    # deferred: loads jax (optional)\n"
        "    import jax\n"                                  # 6: fine
        "    from blackjack_env.engine import rules  # x\n"  # 7: light, comment or not
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setitem(MODULES, "blackjack_env.engine.fake", source)
    try:
        assert layer_findings("blackjack_env.engine.fake") == [
            "1: imports the higher layer blackjack_env.envs, blackjack_env.envs.vector",
            "3: import json defers no heavy dependency: import it at the top",
            "4: import matplotlib defers matplotlib with no comment naming it",
            "7: from blackjack_env.engine import rules defers no heavy dependency: "
            "import it at the top",
        ]
    finally:
        imports.cache_clear()
        heavy.cache_clear()


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_keep_to_the_layers(module: str) -> None:
    assert layer_findings(module) == []


#: Run in a fresh interpreter per module: the heavy packages it loaded, as JSON.
PROBE = ("import importlib, json, sys; importlib.import_module(sys.argv[1]); "
         "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[2:]))))")


def probe(module: str) -> tuple[str, list[str] | str]:
    run = subprocess.run([sys.executable, "-c", PROBE, module, *sorted(HEAVY)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    if run.returncode:
        return module, run.stderr.strip().splitlines()[-1]
    return module, json.loads(run.stdout)


@pytest.fixture(scope="module")
def fresh_imports() -> dict[str, list[str] | str]:
    """Each package module imported first, in its own interpreter (two at a time)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(probe, sorted(MODULES)))


# one interpreter per module (about two minutes of CPU): a slow test (`pytest -m slow`),
# in the compiled build as installed; the static layer check above runs in every pass
@pytest.mark.slow
@pytest.mark.build_neutral
def test_each_module_imports_first_in_a_fresh_interpreter(
        fresh_imports: dict[str, list[str] | str]) -> None:
    failed = {m: err for m, err in fresh_imports.items() if isinstance(err, str)}
    assert failed == {}


@pytest.mark.slow
@pytest.mark.build_neutral
def test_each_module_loads_only_the_heavy_packages_its_imports_name(
        fresh_imports: dict[str, list[str] | str]) -> None:
    # the static reading above is what decides a local import defers something: a module
    # it finds light must load no heavy package (one heavy package may bring others: jax
    # loads jaxlib, stable_baselines3 torch)
    surprises = {m: loaded for m, loaded in fresh_imports.items()
                 if not isinstance(loaded, str) and loaded and not heavy(m)}
    assert surprises == {}
    assert {m for m, loaded in fresh_imports.items() if loaded and not isinstance(loaded, str)
            } >= {"blackjack_env.jax", "blackjack_env.web.server"}  # the probe sees them


def test_import_blackjack_env_stays_light() -> None:
    _, loaded = probe("blackjack_env")
    assert loaded == []
    code = ("import sys, blackjack_env; "
            f"print(sorted(m for m in {NOT_WITH_THE_PACKAGE!r} if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert run.stdout.strip() == "[]"


def test_a_module_others_share_has_a_public_name() -> None:
    """A module whose name starts with an underscore is one module's business: no more
    than one other module of the package imports it (what many share is public)."""
    importers: dict[str, set[str]] = {}
    for module in MODULES:
        for node, _ in imports(module):
            for target in imported(node, module):
                if target in MODULES and target != module:
                    importers.setdefault(target, set()).add(module)
    private = {m: sorted(users) for m, users in importers.items()
               if any(_private(part) for part in m.split("."))
               and len(users - {m.rsplit(".", 1)[0]}) > 1}
    assert private == {}
