"""Writes ``docs/web-table.png``: the web table in headless Chromium, mid-round.

A Strip table with one person: 8-8 against a 6 (hole card a ten), split; the first hand
doubles onto a king (21); the picture shows the second hand to act with the values of
its legal actions. The steps are those of ``tests/web/test_browser.py`` (Debian's
``chromium`` driven by Playwright, the server in a thread of this process, the shoe
stacked through the engine table it serves).

    python docs/screenshot_web.py [PATH]     # default: docs/web-table.png
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "docs" / "web-table.png"
    if not Path(CHROMIUM).exists():
        print(f"error: no Chromium at {CHROMIUM} (apt-get install chromium)")
        return 2
    try:
        import uvicorn
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        print(f"error: {exc.name} is missing: pip install -e '.[all]'")
        return 2
    sys.path.insert(0, str(ROOT))
    from blackjack_env.web.server import WebConfig, create_app
    from tests.web.test_browser import ARGS, _free_port, press, setup_table, the_game

    app = create_app(WebConfig())
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            print("error: the web server did not start in 20 s")
            return 1
        time.sleep(0.05)
    try:
        with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
            context = pw.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=ARGS,
                viewport={"width": 1200, "height": 640})
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector("#preset option[value='terminal-21']", state="attached")
            setup_table(page, preset="vegas-strip")
            the_game(app).table.shoe.stack("8S 6H 8D TC 3C KH 2D 5C 9S")
            page.fill("#bet-0", "10")
            press(page, "#deal")
            press(page, "#play-controls [data-action=split]")
            press(page, "#play-controls [data-action=double]")
            page.screenshot(path=str(out), full_page=False)
            context.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    try:  # a 256-colour palette: a third of the size, the same picture to the eye
        from PIL import Image

        Image.open(out).convert("RGB").quantize(256).save(out, optimize=True)
    except ImportError:
        pass
    print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
