"""Count what overflows on every page of the built site, at 1280 px and at 390 px.

Usage (after ``python -m sphinx -W --keep-going -n -b html docs docs/_build/html``)::

    python docs/overflow.py [docs/_build/html] [--shots DIR] [--json FILE]

Each page is opened in headless Chromium (``/usr/bin/chromium``, through Playwright) at
each width, and every code block (``pre``), table and picture is measured:

* ``cut``: its content is wider than its box and the box does not scroll (the content
  is clipped or spills over), or the box itself reaches past the window's right edge,
  or the page as a whole scrolls sideways;
* ``tables scroll`` / ``code scrolls``: its content is wider than its box, which
  scrolls inside the page (what a wide table may do on a phone).

The site's rule: at 1280 px nothing is cut and nothing scrolls; at 390 px nothing is
cut, and only wide tables scroll. The command prints one line per page and width and
exits 1 if a rule is broken. ``--shots DIR`` also saves full-page screenshots of the
landing page, one env page, a tutorial and the reference at both widths.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

WIDTHS = (1280, 390)
SHOTS = ("index", "envs/blackjack", "tutorials/first-agent", "reference")

MEASURE = """
() => {
  const vw = window.innerWidth;
  const out = {page: document.documentElement.scrollWidth > vw + 1, cut: [],
               tables: 0, code: 0};
  const scrolls = (el) => {
    for (let e = el; e && e !== document.body; e = e.parentElement) {
      const s = getComputedStyle(e).overflowX;
      if ((s === 'auto' || s === 'scroll') && e.scrollWidth > e.clientWidth + 1) return true;
    }
    return false;
  };
  const name = (el) => el.tagName.toLowerCase() + ': ' +
      (el.innerText || el.getAttribute('src') || '').trim().slice(0, 40).replace(/\\n/g, ' ');
  for (const el of document.querySelectorAll('article pre, article table, article img')) {
    const wide = el.scrollWidth > el.clientWidth + 1;
    const right = el.getBoundingClientRect().right > vw + 1;
    const wrapper = el.parentElement;
    const boxed = scrolls(el) || (wrapper && scrolls(wrapper));
    if (right || (wide && !boxed)) { out.cut.push(name(el)); continue; }
    if (wide || (wrapper && wrapper.scrollWidth > wrapper.clientWidth + 1 && boxed)) {
      if (el.tagName === 'TABLE') out.tables += 1; else out.code += 1;
    }
  }
  return out;
}
"""


def measure(site: Path, shots: Path | None) -> list[dict[str, object]]:
    from playwright.sync_api import sync_playwright

    skip = {"_static", "_sources", "_modules", "_generated"}
    pages = sorted(p for p in site.rglob("*.html")
                   if not skip & set(p.relative_to(site).parts)
                   and p.name not in ("genindex.html", "search.html", "py-modindex.html"))
    rows = []
    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path="/usr/bin/chromium",
                                       args=["--no-sandbox"])
        for width in WIDTHS:
            view = browser.new_page(viewport={"width": width, "height": 900})
            for page in pages:
                name = str(page.relative_to(site).with_suffix(""))
                view.goto(page.resolve().as_uri())
                got = view.evaluate(MEASURE)
                rows.append({"page": name, "width": width, "page_scrolls": got["page"],
                             "cut": got["cut"], "tables_scroll": got["tables"],
                             "code_scrolls": got["code"]})
                if shots is not None and name in SHOTS:
                    shots.mkdir(parents=True, exist_ok=True)
                    view.screenshot(path=str(shots / f"{name.replace('/', '-')}-{width}.png"),
                                    full_page=True)
            view.close()
        browser.close()
    return rows


def broken(row: dict[str, object]) -> bool:
    if row["page_scrolls"] or row["cut"]:
        return True
    if row["width"] == 1280:
        return bool(row["tables_scroll"] or row["code_scrolls"])
    return bool(row["code_scrolls"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", default="docs/_build/html",
                        help="the built site (default: docs/_build/html)")
    parser.add_argument("--shots", default="", help="save screenshots to this folder")
    parser.add_argument("--json", default="", help="write the counts as JSON here")
    args = parser.parse_args(argv)
    site = Path(args.site)
    if not (site / "index.html").is_file():
        print(f"error: no built site at {site} (build it first: python -m sphinx -b html "
              f"docs docs/_build/html)", file=sys.stderr)
        return 2
    rows = measure(site, Path(args.shots) if args.shots else None)
    print(f"{'page':32} {'width':>5} {'cut':>4} {'tables scroll':>14} {'code scrolls':>13}")
    for row in rows:
        cut = len(row["cut"]) + (1 if row["page_scrolls"] else 0)  # type: ignore[arg-type]
        flag = "  <- " + "; ".join(row["cut"]) if row["cut"] else ""  # type: ignore[arg-type]
        print(f"{row['page']:32} {row['width']:>5} {cut:>4} {row['tables_scroll']:>14} "
              f"{row['code_scrolls']:>13}{flag}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    bad = [r for r in rows if broken(r)]
    print(f"{len(rows)} measurements; {len(bad)} break the rules")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
