"""No dead code ships: every function, method and class of the package is used by the
package, the scripts or the docs, or is documented for users.

A static reading of the whole repository (no import of the package): a definition is
*used* when its name occurs anywhere outside the tests (an identifier, an attribute, a
word in a string, such as ``getattr(obj, name)`` targets, entry points in
``pyproject.toml``, or a word on a docs page). A definition that only the tests use is
dead unless the docs document it: its name is on a page, or its class is autodoc'd with
every member (a bare ``:members:``), as ``HiLoCounter.observe_many`` is. Not counted as
definitions: dunder methods; a method that overrides one of a third-party base class
(``VecEnv.get_attr``, ``VectorEnv.close_extras``, SB3's callbacks' ``_on_step``: the
framework calls it), found by reading the base's own source; the pytree protocol of a
class registered with ``register_pytree_node_class``. What is left and still kept is in
:data:`KEPT`, each with its reason.

The same rule ruff applies to unused imports and variables, for functions: vulture's
idea, written here so that it reads the docs too.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections import Counter
from collections.abc import Iterable
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("blackjack_env", "agents")
#: Where a use counts: the package, its scripts, the docs' code, the build script.
CODE = ("blackjack_env", "agents", "scripts", "docs")
#: Text that names what the code offers: the docs' pages, the README, the entry points,
#: the browser table's files.
TEXT_GLOBS = ("docs/**/*.md", "README.md", "pyproject.toml", "blackjack_env/web/static/*")
#: Definitions kept although nothing above uses them, with the reason.
KEPT: dict[str, str] = {
    "blackjack_env/jax/env.py:get_obs": "gymnax's Environment API (get_obs(state, params)), "
    "which gymnax-style code calls on the table",
}
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: ``.. autoclass:: path.Name`` followed by a bare ``:members:`` (every member documented).
ALL_MEMBERS = re.compile(r"\.\. autoclass:: (?:[\w.]+\.)?(\w+)\n(?:[ \t]+:[^\n]*\n)*?"
                         r"[ \t]+:members:[ \t]*\n")


def _files(folders: Iterable[str], suffix: str = ".py") -> list[Path]:
    return sorted(p for d in folders for p in (ROOT / d).rglob(f"*{suffix}")
                  if "_build" not in p.parts)


def references(trees: dict[Path, ast.AST], texts: Iterable[str]) -> Counter[str]:
    """How often each name occurs in the code (identifiers, attributes, imported names,
    words in strings) and in the text."""
    refs: Counter[str] = Counter()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                refs[node.id] += 1
            elif isinstance(node, ast.Attribute):
                refs[node.attr] += 1
            elif isinstance(node, ast.alias):
                refs[node.name.split(".")[-1]] += 1
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                refs.update(WORD.findall(node.value))
    for text in texts:
        refs.update(WORD.findall(text))
    return refs


@cache
def _third_party_methods(module: str, name: str) -> frozenset[str] | None:
    """The method names class ``name`` of third-party ``module`` defines (and its bases
    defined in the same file), read from its source; None when it cannot be read."""
    origin = _source(module)
    if origin is None:
        return None
    tree = ast.parse(origin.read_text())
    classes = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    package = module if origin.name == "__init__.py" else module.rpartition(".")[0]
    imported = _imports(tree, package)
    if name not in classes:  # re-exported from another module
        return _third_party_methods(*imported[name]) if name in imported else None
    found: set[str] = set()
    todo, seen = [name], set()
    while todo:
        cls = classes.get(todo.pop())
        if cls is None or cls.name in seen:
            continue
        seen.add(cls.name)
        found |= {n.name for n in cls.body
                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for base in cls.bases:
            base_name = ast.unparse(base).split(".")[-1]
            if base_name in classes:
                todo.append(base_name)
            elif base_name in imported:
                more = _third_party_methods(*imported[base_name])
                found |= more or set()
    return frozenset(found)


def _source(module: str) -> Path | None:
    """The source file of ``module``, found without importing it (``find_spec`` of a
    submodule would import its packages: torch for stable-baselines3)."""
    top, _, rest = module.partition(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        origin = spec.origin if spec is not None and not rest else None
        return Path(origin) if origin and origin.endswith(".py") else None
    for location in spec.submodule_search_locations:
        base = Path(location).joinpath(*rest.split(".")) if rest else Path(location)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def _imports(tree: ast.AST, package: str = "") -> dict[str, tuple[str, str]]:
    """name -> (module, name) of each ``from module import name`` in ``tree`` (relative
    imports resolved against ``package``)."""
    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        module = node.module or ""
        if node.level:
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - node.level + 1])
            module = f"{base}.{module}" if module else base
        for a in node.names:
            out[a.asname or a.name] = (module, a.name)
    return out


def _hooks(cls: ast.ClassDef, imported: dict[str, tuple[str, str]]) -> frozenset[str] | None:
    """The method names ``cls`` inherits from third-party bases (None: every name, when a
    base cannot be read); the pytree protocol of a registered class."""
    names: set[str] = set()
    for deco in cls.decorator_list:
        if "register_pytree_node_class" in ast.unparse(deco):
            names |= {"tree_flatten", "tree_unflatten"}
    for base in cls.bases:
        root = ast.unparse(base).split(".")[0]
        if root not in imported or imported[root][0].startswith("blackjack_env"):
            continue
        module, name = imported[root]
        dotted = ast.unparse(base).split(".")
        if len(dotted) > 1:  # module.Class
            module, name = f"{module}.{name}", dotted[-1]
        methods = _third_party_methods(module, name)
        if methods is None:
            return None
        names |= methods
    return frozenset(names)


def unused(root: Path = ROOT) -> list[str]:
    """``path:name`` of every definition of the package that nothing uses."""
    trees = {p: ast.parse(p.read_text(), str(p)) for p in _files(CODE)}
    trees[root / "setup.py"] = ast.parse((root / "setup.py").read_text())
    texts = [p.read_text(errors="ignore") for g in TEXT_GLOBS for p in root.glob(g)
             if p.is_file()]
    refs = references(trees, texts)
    documented_classes = {m for t in texts for m in ALL_MEMBERS.findall(t)}
    found = []
    for path, tree in trees.items():
        rel = path.relative_to(root)
        if rel.parts[0] not in PACKAGES:
            continue
        imported = _imports(tree)
        hooks: dict[ast.AST, frozenset[str] | None] = {}
        owner: dict[ast.AST, ast.ClassDef] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                hooks[node] = _hooks(node, imported)
                for child in node.body:
                    owner[child] = node
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            name = node.name
            if name.startswith("__") and name.endswith("__"):
                continue
            cls = owner.get(node)
            if cls is not None:
                inherited = hooks[cls]
                if inherited is None or name in inherited:
                    continue
                if cls.name in documented_classes and not name.startswith("_"):
                    continue
            if refs[name] == 0 and f"{rel}:{name}" not in KEPT:
                found.append(f"{rel}:{node.lineno}: {name}")
    return sorted(found)


def test_the_check_sees_what_it_forbids(tmp_path: Path) -> None:
    pkg = tmp_path / "blackjack_env"
    pkg.mkdir()
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "api.md").write_text(
        ".. autoclass:: blackjack_env.m.Shown\n   :members:\n\nsee also `named_on_a_page`\n")
    (pkg / "m.py").write_text(
        "from gymnasium.vector import VectorEnv\n"
        "def used(): pass\n"
        "def dead(): pass\n"
        "def named_on_a_page(): pass\n"
        "class Shown:\n"
        "    def documented(self): pass\n"
        "class Env(VectorEnv):\n"
        "    def close_extras(self, **kw): pass\n"  # gymnasium's hook
        "    def helper(self): pass\n"
        "x = used(), Shown, Env\n"
    )
    global ROOT
    saved = ROOT
    ROOT = tmp_path
    try:
        assert unused(tmp_path) == ["blackjack_env/m.py:3: dead", "blackjack_env/m.py:9: helper"]
    finally:
        ROOT = saved


def test_no_dead_code() -> None:
    assert unused() == []


def test_every_kept_definition_exists() -> None:
    for key in KEPT:
        path, name = key.split(":")
        assert re.search(rf"\bdef {name}\b", (ROOT / path).read_text()), key
