"""The site's layout at 1280 px and 390 px (marker ``browser``): ``docs/overflow.py``
builds no site itself, so this builds one into a temporary folder, runs the script on
it, and checks its rules: nothing cut or scrolling at 1280 px, nothing cut and no code
scrolling at 390 px (wide tables may scroll inside their box there). On the same build,
the arguments tables are measured: a block per argument at 390 px, a table at 1280 px.

``WIDE_FOR_NOW`` (in ``test_pages.py``) names the pages still allowed wider code blocks.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _overflow_module():
    return _load(ROOT / "docs" / "overflow.py", "overflow")


def test_the_rules_of_the_count() -> None:
    broken = _overflow_module().broken
    ok_phone = {"width": 390, "page_scrolls": False, "cut": [], "tables_scroll": 2,
                "code_scrolls": 0}
    assert not broken(ok_phone)
    assert broken({**ok_phone, "width": 1280})
    assert broken({**ok_phone, "code_scrolls": 1})
    assert broken({**ok_phone, "cut": ["pre: x"]})
    assert broken({**ok_phone, "page_scrolls": True})


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for this module's tests, or the one built from this tree
    just before (``$BLACKJACK_ENV_DOCS_SITE``: its folder, as ``.ci/run`` gives it after
    its own build with the same options)."""
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("no Chromium at /usr/bin/chromium")
    pytest.importorskip("playwright.sync_api")
    built = os.environ.get("BLACKJACK_ENV_DOCS_SITE")
    if built:
        assert (Path(built) / "index.html").is_file(), f"BLACKJACK_ENV_DOCS_SITE={built}: no site"
        return Path(built)
    site = tmp_path_factory.mktemp("site") / "html"
    build = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q",
                            "-b", "html", "docs", str(site)], cwd=ROOT, capture_output=True,
                           text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    return site


def test_no_page_overflows(site: Path, tmp_path: Path) -> None:
    wide_for_now = _load(Path(__file__).with_name("test_pages.py"), "pages").WIDE_FOR_NOW

    out = tmp_path / "counts.json"
    subprocess.run([sys.executable, "docs/overflow.py", str(site), "--json", str(out)],
                   cwd=ROOT, capture_output=True, text=True, timeout=600)
    rows = json.loads(out.read_text())
    broken = _overflow_module().broken
    bad = [r for r in rows if broken(r) and f"{r['page']}.md" not in wide_for_now]
    assert not bad, f"pages that overflow: {bad}"
    assert {r["width"] for r in rows} == {1280, 390} and len(rows) > 40


#: The layout of the arguments table on a page: the boxes of its header and of each
#: row's cells, and of the parts (name, type, default) of each row's first cell.
ARGUMENTS = """
() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const line = (el) => { const r = el.getClientRects()[0];
    return (r.top + r.bottom) / 2; };
  const table = document.querySelector('section#arguments table.bj-args');
  if (!table) return null;
  const wrapper = table.parentElement;
  return {
    width: window.innerWidth,
    head: table.querySelector('thead').getBoundingClientRect().height,
    scrolls: table.scrollWidth > table.clientWidth + 1
             || wrapper.scrollWidth > wrapper.clientWidth + 1,
    table: box(table),
    rows: [...table.querySelectorAll('tbody > tr')].map((tr) => ({
      cells: [...tr.children].map(box),
      parts: [...tr.children[0].querySelectorAll('p')].map((p) => ({
        text: p.innerText.trim(), line: line(p)})),
    })),
    details: [...table.querySelectorAll('details')].map((d) => ({
      open: d.open, height: d.getBoundingClientRect().height})),
  };
}
"""


def _arguments_layout(site: Path, page: str, width: int, open_details: bool = False):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path="/usr/bin/chromium",
                                       args=["--no-sandbox"])
        view = browser.new_page(viewport={"width": width, "height": 900})
        view.goto((site / f"{page}.html").resolve().as_uri())
        closed = view.evaluate(ARGUMENTS)
        opened = None
        if open_details:
            for summary in view.locator("section#arguments table.bj-args summary").all():
                summary.click()
            opened = view.evaluate(ARGUMENTS)
        browser.close()
    assert closed is not None, f"{page} has no arguments table of class bj-args"
    return closed, opened


@pytest.mark.parametrize("page", ["reference", "envs/blackjack", "envs/make-vec"])
def test_the_arguments_read_as_blocks_on_a_phone(site: Path, page: str) -> None:
    """At 390 px each argument is a block as wide as the table: the name, the type and
    the default start on one line, the meaning below them, then what is allowed; no
    header, nothing scrolls sideways, a long allowed text is a closed <details> that
    opens in place."""
    got, opened = _arguments_layout(site, page, 390, open_details=True)
    assert got["head"] == 0 and not got["scrolls"]
    assert got["table"]["right"] <= got["width"]
    assert len(got["rows"]) >= 10
    span = got["table"]["right"] - got["table"]["left"]
    for row in got["rows"]:
        cells, parts = row["cells"], row["parts"]
        name = parts[0]["text"]
        assert len(cells) in (2, 3) and len(parts) >= 2, name
        for upper, lower in itertools.pairwise(cells):
            assert lower["top"] >= upper["bottom"] - 1, f"{page} {name}: cells side by side"
        for cell in cells:
            assert cell["right"] - cell["left"] >= 0.9 * span, f"{page} {name}: narrow cell"
            assert cell["right"] <= got["width"], f"{page} {name}: cell past the window"
        # the type (and the default) start on the name's line
        assert abs(parts[1]["line"] - parts[0]["line"]) < 8, f"{page} {name}: {parts}"
        if len(name) + len(parts[1]["text"]) + len(parts[-1]["text"]) < 30:
            assert abs(parts[-1]["line"] - parts[0]["line"]) < 8, f"{page} {name}: {parts}"
    if page == "reference":
        assert got["details"] and not any(d["open"] for d in got["details"])
        assert all(d["height"] < 60 for d in got["details"])  # one line, folded
        assert opened is not None and all(d["open"] for d in opened["details"])
        assert all(d["height"] > 60 for d in opened["details"])
        assert not opened["scrolls"] and opened["table"]["right"] <= got["width"]


@pytest.mark.parametrize("page", ["reference", "envs/blackjack"])
def test_the_arguments_are_a_table_on_a_desktop(site: Path, page: str) -> None:
    """At 1280 px the same table is a table: a header, each row's cells side by side on
    one top line, nothing scrolling."""
    got, _ = _arguments_layout(site, page, 1280)
    assert got["head"] > 0 and not got["scrolls"]
    for row in got["rows"]:
        cells = row["cells"]
        assert len({round(c["top"]) for c in cells}) == 1, row["parts"][0]["text"]
        for left, right in itertools.pairwise(cells):
            assert right["left"] >= left["right"] - 1
        # name, type and default one under the other in the first cell
        lines = [p["line"] for p in row["parts"]]
        assert lines == sorted(lines) and len(set(lines)) == len(lines)


#: Every wide table of a page in sight (not in a closed <details>), scrolled to its right
#: end inside its box: where each row's first cell is, and whether it is on top (not
#: under another cell).
KEY_COLUMN = """
() => [...document.querySelectorAll('article table.docutils:not(.bj-args)')]
  .filter((t) => t.checkVisibility() && t.scrollWidth > t.clientWidth + 1)
  .map((t) => {
    t.scrollLeft = t.scrollWidth;
    return {scrolled: t.scrollLeft, rows: [...t.querySelectorAll('tr')].map((tr) => {
      const cell = tr.children[0];
      // the row in the middle of the screen (vertically only: the table stays scrolled)
      window.scrollTo({top: cell.getBoundingClientRect().top + window.scrollY - 300,
                       behavior: 'instant'});
      const c = cell.getBoundingClientRect();
      const box = t.getBoundingClientRect();
      const x = c.left + Math.min(c.width / 2, 20);
      const top = document.elementFromPoint(x, c.top + Math.min(c.height / 2, 10));
      return {left: c.left, right: c.right, boxLeft: box.left,
              onTop: top !== null && cell.contains(top),
              text: cell.innerText.trim().slice(0, 30)};
    })};
  })
"""


@pytest.mark.parametrize("page", ["rules", "jax", "reference", "training", "observations"])
def test_a_wide_table_keeps_its_key_column_in_sight_on_a_phone(site: Path, page: str) -> None:
    """Issue 39, item 13: at 390 px a table wider than the screen scrolls inside its box;
    scrolled to its right end, each row's first cell (the field, argument, preset, agent
    it is about) is still at the box's left edge and on top."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path="/usr/bin/chromium",
                                       args=["--no-sandbox"])
        view = browser.new_page(viewport={"width": 390, "height": 844})
        view.goto((site / f"{page}.html").resolve().as_uri())
        tables = view.evaluate(KEY_COLUMN)
        browser.close()
    assert tables, f"{page} has no table wider than a phone"
    for table in tables:
        assert table["scrolled"] > 0
        for row in table["rows"]:
            assert abs(row["left"] - row["boxLeft"]) <= 1.5, (page, row)
            assert row["onTop"], (page, row)
