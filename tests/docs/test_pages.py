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
    return sorted(DOCS.glob("*.md"))


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
        for name in re.findall(r"```\{literalinclude\} (\S+)", page.read_text()):
            assert (DOCS / name).is_file(), f"{page.name} includes a missing file {name}"
            included.add(Path(name).name)
    examples = {p.name for p in (DOCS / "examples").glob("*.py")}
    assert examples - included == set(), "examples no page shows"


def test_toctree_lists_every_page() -> None:
    index = (DOCS / "index.md").read_text()
    listed = set(re.findall(r"^([a-z][a-z0-9-]*)$", index, re.M))
    pages = {p.stem for p in _pages()} - {"index"}
    assert pages - listed == set(), "pages missing from the index's toctree"


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
