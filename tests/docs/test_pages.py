"""The site's pages: their Python is executed, their generated references cover the code.

* No page holds a Python block of its own: code comes from ``docs/examples/`` (run by
  ``test_examples.py``), so a page whose example breaks fails the tests.
* Every example file is included by a page, and every included file exists.
* The generator fails loudly where the code outgrows the docs: an env argument without
  its docstring bullet stops the build.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
NOT_EXECUTED: set[str] = set()  # pages allowed inline Python (none at present)


def _pages() -> list[Path]:
    """Every page of the site (and the data files the pages include)."""
    return sorted(p for p in DOCS.rglob("*.md")
                  if "_build" not in p.parts and "_generated" not in p.parts)


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_no_unexecuted_python_on_a_page(page: Path) -> None:
    if page.name in NOT_EXECUTED:
        return
    text = page.read_text()
    blocks = re.findall(r"^```(?:python|py|pycon|\{code-block\} python)\s*$", text, re.M)
    assert not blocks, (
        f"{page.name} has {len(blocks)} inline Python block(s): put the code in "
        f"docs/examples/ and include it with literalinclude, so the tests run it")


def test_every_example_is_shown_and_every_include_exists() -> None:
    included: set[str] = set()
    for page in _pages():
        for name in re.findall(r"```\{(?:literal)?include\} (\S+)", page.read_text()):
            if "_generated" in name:
                continue
            assert (page.parent / name).is_file(), f"{page.name} includes a missing file {name}"
            included.add(Path(name).name)
    examples = {p.name for p in (DOCS / "examples").glob("*.py")}
    assert examples - included == set(), "examples no page shows"


def test_every_example_shows_its_output() -> None:
    """Each example a page shows is followed on that page by the output the test of the
    example produced (``examples/output/NAME.txt``), except the ones that print only a
    check line (listed here)."""
    quiet = {"supersuit_sb3", "tianshou_envs", "render_frame", "rules_custom", "engine",
             "observations", "composition", "seed_games", "grading"}
    for page in _pages():
        text = page.read_text()
        for name in re.findall(r"```\{literalinclude\} (?:\.\./)?examples/(\w+)\.py", text):
            if name in quiet:
                continue
            assert f"examples/output/{name}.txt" in text, (
                f"{page.name} shows examples/{name}.py without its output")


def test_install_lists_every_extra_and_dependency() -> None:
    """The extras table of install.md names every extra of pyproject.toml and every base
    dependency (it once left out ``charts``, ``test`` and ``mypy_extensions``)."""
    text = (DOCS.parent / "pyproject.toml").read_text()
    extras = text.split("[project.optional-dependencies]")[1].split("\n[")[0]
    names = set(re.findall(r"^([a-z][a-z0-9_-]*) = \[", extras, re.M))
    base = text.split("dependencies = [")[1].split("]")[0]
    packages = {re.split(r"[<>=\[]", p)[0] for p in re.findall(r'^\s*"([^"]+)"', base, re.M)}
    page = (DOCS / "install.md").read_text()
    table = page.split("| extra |")[1].split("\n\n")[0]
    listed = set(re.findall(r"^\| `([a-z0-9_-]+)` \|", table, re.M))
    assert names - listed == set(), f"extras missing from install.md: {names - listed}"
    first = table.split("| (none) |")[1].split("|")[0]
    assert all(p in first for p in packages), f"base dependencies: {packages} vs {first}"


def test_toctree_lists_every_page() -> None:
    """Every page is in a toctree: the index's, or one of a section's index page
    (``api/index.md``), whose entries are relative to that page's folder."""
    listed = set()
    for page in _pages():
        folder = page.parent.relative_to(DOCS)
        for block in re.findall(r"```\{toctree\}\n(.*?)```", page.read_text(), re.S):
            for entry in re.findall(r"^([a-z][a-z0-9/-]*)$", block, re.M):
                listed.add(str(folder / entry))
    pages = {str(p.relative_to(DOCS).with_suffix("")) for p in _pages()
             if "data" not in p.parts} - {"index"}
    assert pages - listed == set(), "pages missing from every toctree"


def test_argument_without_docstring_bullet_stops_the_build(monkeypatch) -> None:
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import bj_reference
    finally:
        sys.path.pop(0)
    from blackjack_env.envs import BlackjackEnv

    bullets = bj_reference.argument_bullets(BlackjackEnv)
    assert {"rules", "seat", "obs_mode", "info_cards"} <= set(bullets)
    # what the validator allows comes from its own message
    from blackjack_env.envs import EnvSettings

    assert "'vector'" in bj_reference.allowed_by(EnvSettings.single, "obs_mode", "?")
    monkeypatch.setattr(bj_reference, "argument_bullets", lambda obj: {})
    monkeypatch.setattr(bj_reference, "write", lambda name, text: None)
    with pytest.raises(bj_reference.BuildError, match="without a bullet"):
        bj_reference.envs_reference()


def test_the_readme_example_runs(capsys) -> None:
    readme = (DOCS.parent / "README.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", readme, re.M | re.S)
    assert len(blocks) == 1, "the README has one short example"
    exec(compile(blocks[0], "README.md", "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out.strip()


#: Words that speak of how the project was made, not of what it is: issue numbers,
#: branches, machines lent, who ran what beside what.
MAKING = [
    r"\bissues?\s*#?\d+", r"\bPR\s*#?\d+", r"pull request", r"\bon (the|a|its|this) ?\w* branch\b",
    r"base and branch", r"\bbranch(es)? (was|were) merged", r"\bwas lent\b", r"\blent to\b",
    r"\bwere lent\b", r"this session", r"another process", r"(trained|ran|running) beside",
    r"\bintegrator\b",
]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_no_page_speaks_of_the_projects_making(page: Path) -> None:
    text = page.read_text()
    found = [m.group(0) for pattern in MAKING for m in re.finditer(pattern, text, re.I)]
    assert not found, f"{page.name} speaks of how the project was made: {found}"


def test_the_making_check_finds_what_it_looks_for() -> None:
    samples = ["Issue 22 asked", "base and branch alternated", "no GPU was lent",
               "another process of this session trained beside it"]
    for sample in samples:
        assert any(re.search(p, sample, re.I) for p in MAKING), sample


#: Pages whose code blocks are still wider than 88 columns, with the reason: empty it.
WIDE_FOR_NOW: dict[str, str] = {}


def test_code_lines_fit_88_columns() -> None:
    """Every line of an example and of a page's code block is at most 88 characters."""
    long = []
    for path in sorted((DOCS / "examples").glob("*.py")):
        long += [f"{path.name}:{i}" for i, line in enumerate(path.read_text().splitlines(), 1)
                 if len(line) > 88]
    for page in _pages():
        if page.name in WIDE_FOR_NOW:
            continue
        long += [f"{page.name}: {line[:40]}..." for line in _code_lines(page.read_text())
                 if len(line) > 88]
    assert not long, f"code lines over 88 characters: {long}"


def _code_lines(text: str) -> list[str]:
    """The lines inside a page's code blocks (not inside MyST directives such as
    ``{include}``, whose bodies are options)."""
    out, fence = [], None
    for line in text.splitlines():
        if fence is None and line.startswith("```"):
            fence = line[3:].strip()
        elif fence is not None and line.startswith("```"):
            fence = None
        elif fence is not None and not fence.startswith("{"):
            out.append(line)
    return out


def test_the_api_page_names_what_the_examples_import() -> None:
    """Every name an example imports from this package has an entry on an API page
    (an autodoc or ``py:`` directive ending in that name)."""
    api = "\n".join(p.read_text() for p in sorted((DOCS / "api").glob("*.md")))
    documented = set(re.findall(r"^\.\. (?:auto\w+|py:\w+):: (?:\S+\.)?(\w+)", api, re.M))
    missing = set()
    for path in sorted((DOCS / "examples").glob("*.py")):
        for module, names in re.findall(r"^from (blackjack_env\S*) import (.+)$",
                                        path.read_text(), re.M):
            for name in (n.split(" as ")[0].strip() for n in names.split(",")):
                if name and name[0] != "_" and name not in documented:
                    missing.add(f"{module}.{name} ({path.name})")
    assert not missing, f"names the examples import without an API entry: {sorted(missing)}"


def _bj_reference():
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import bj_reference
    finally:
        sys.path.pop(0)
    return bj_reference


def _rows(html: str) -> list[list[str]]:
    """The body rows of the one table in ``html``: each cell's inner HTML."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [re.findall(r"<td>(.*?)</td>", row, re.S) for row in body.split("</tr>")
            if "<td>" in row]


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).replace("&gt;", ">").replace(
        "&lt;", "<").replace("&quot;", '"').replace("&#x27;", "'").replace(
        "&amp;", "&").split())


def test_the_reference_arguments_read_as_one_block_per_argument(monkeypatch) -> None:
    """The reference's arguments are one generated table of class ``bj-args`` (which
    site.css turns into a block per argument on a phone; ``test_overflow.py`` checks
    that in Chromium): per argument one row whose first cell is the name, the type and
    the default, then the meaning, then what the validator allows, a long one folded
    into a closed ``<details>`` that holds the whole text."""
    import inspect

    from docutils.core import publish_string
    from docutils.writers.html5_polyglot import Writer
    from myst_parser.parsers.docutils_ import Parser

    from blackjack_env.envs import BlackjackEnv, EnvSettings

    bj_reference = _bj_reference()
    written: dict[str, str] = {}
    monkeypatch.setattr(bj_reference, "write", lambda name, text: written.update({name: text}))
    bj_reference.envs_reference()
    source = written["env-args.md"]
    assert source.count("```{list-table}") == 1
    html = publish_string(source, parser=Parser(), writer=Writer(),
                          settings_overrides={"output_encoding": "unicode",
                                              "halt_level": 2})
    assert html.count("<table") == 1 and '<table class="bj-args' in html
    params = [p for n, p in inspect.signature(BlackjackEnv.__init__).parameters.items()
              if n != "self" and p.kind is not p.VAR_KEYWORD]
    rows = _rows(html)
    assert len(rows) == len(params)
    folded = 0
    for row, param in zip(rows, params, strict=True):
        assert len(row) == 3, row
        first, meaning, allowed = row
        parts = [_text(p) for p in re.findall(r"<p>(.*?)</p>", first, re.S)]
        assert parts == [param.name, param.annotation, f"default {param.default!r}"]
        assert _text(meaning)
        words = bj_reference.allowed_by(EnvSettings.single, param.name, "?",
                                        bj_reference.PROBE_CONTEXT.get(param.name))
        if "<details>" in allowed:
            folded += 1
            assert "<details open" not in allowed and len(words) > bj_reference.FOLD
            summary = re.search(r"<summary>(.*?)</summary>", allowed, re.S).group(1)
            assert _text(summary).endswith("…") and len(_text(summary)) < 70
            # opened, the summary and the body read as the validator's whole message
            whole = _text(summary).removesuffix("…") + " " + _text(
                allowed.split("</summary>", 1)[1])
            assert " ".join(whole.split()) == " ".join(words.split())
        else:
            assert len(words) <= bj_reference.FOLD
            assert " ".join(words.split()) in _text(allowed)
    assert folded >= 1  # the rules' preset list


@pytest.mark.parametrize("text", [
    "must be a Rules or a preset name (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, "
    "s, t, u, v, w, x, y, z), or a dict",
    "x" * 40 + ", " + "y " * 50,
    "word " * 40,
])
def test_fold_keeps_every_word_in_order(text: str) -> None:
    bj_reference = _bj_reference()
    lines = bj_reference.fold(text)
    assert lines[0].startswith("<details><summary>") and lines[-1] == "</details>"
    summary = lines[0].removeprefix("<details><summary>").removesuffix(" …</summary>")
    assert 0 < len(summary) <= 60
    body = " ".join(line for line in lines[1:-1] if line)
    joined = summary + ("," if text[len(summary):].startswith(",") else "") + " " + body
    assert joined.split() == text.split()
    assert bj_reference.fold("short text") == ["short text"]


def test_the_api_reference_is_a_page_per_class_or_group() -> None:
    """The API reference is split by class or module group (issue 39, item 11): every
    page is in the index's toctree, the env classes document their methods, and the
    internals (``EnvArgs.bind``, ``mask_rows``, the rule tables) are on the contributors'
    page only."""
    pages = {p.stem: p.read_text() for p in (DOCS / "api").glob("*.md")}
    index = pages.pop("index")
    assert len(pages) >= 12
    for name in pages:
        assert f"\n{name}\n" in index, name
    for name, methods in (("single", ("reset", "step", "action_masks", "action_names",
                                      "render")),
                          ("vector", ("reset", "step", "action_masks", "action_names"))):
        for method in methods:
            assert re.search(rf"^   \.\. auto\w+:: {method}$", pages[name], re.M), (name, method)
    internals = ("EnvArgs.bind", "mask_rows", "build_tables", "RuleTables", "map_illegal")
    for name, text in pages.items():
        if name != "internals":
            for internal in internals:
                found = re.search(rf"^\.\. auto\w+:: \S*{internal}\b", text, re.M)
                assert not found, (name, internal)
    assert all(i in pages["internals"] for i in internals)
