"""``docs/screenshot_web.py`` still draws the web table (marker ``browser``).

The committed ``docs/web-table.png`` is that script's output; this runs the script into
a temporary file and checks it wrote a picture of the committed one's size, so a change
to the page that breaks the script (a renamed control, a round that no longer plays out
as scripted) fails here, and rerunning the script refreshes the picture.
"""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def test_the_screenshot_script_draws_the_table(tmp_path: Path) -> None:
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("no Chromium at /usr/bin/chromium (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")
    out = tmp_path / "web-table.png"
    done = subprocess.run([sys.executable, str(ROOT / "docs" / "screenshot_web.py"), str(out)],
                          capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _png_size(out) == _png_size(ROOT / "docs" / "web-table.png")
