"""The site's layout at 1280 px and 390 px (marker ``browser``): ``docs/overflow.py``
builds no site itself, so this builds one into a temporary folder, runs the script on
it, and checks its rules: nothing cut or scrolling at 1280 px, nothing cut and no code
scrolling at 390 px (wide tables may scroll inside their box there).

``WIDE_FOR_NOW`` (in ``test_pages.py``) names the pages still allowed wider code blocks.
"""

from __future__ import annotations

import importlib.util
import json
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


def test_no_page_overflows(tmp_path: Path) -> None:
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("no Chromium at /usr/bin/chromium")
    pytest.importorskip("playwright.sync_api")
    wide_for_now = _load(Path(__file__).with_name("test_pages.py"), "pages").WIDE_FOR_NOW

    site = tmp_path / "html"
    build = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q",
                            "-b", "html", "docs", str(site)], cwd=ROOT, capture_output=True,
                           text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    out = tmp_path / "counts.json"
    subprocess.run([sys.executable, "docs/overflow.py", str(site), "--json", str(out)],
                   cwd=ROOT, capture_output=True, text=True, timeout=600)
    rows = json.loads(out.read_text())
    broken = _overflow_module().broken
    bad = [r for r in rows if broken(r) and f"{r['page']}.md" not in wide_for_now]
    assert not bad, f"pages that overflow: {bad}"
    assert {r["width"] for r in rows} == {1280, 390} and len(rows) > 40
