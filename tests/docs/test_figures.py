"""Every figure on a page comes from a source a command or a test holds (issue 39, item 14).

A figure is a measured or computed number: a decimal with two or more places
(``-0.04311``, ``0.156``), a decimal percentage (``0.2%``), or a number with a unit of
time, speed or size (``30 ms``, ``1.7x``, ``267 MB``). The pages written by hand hold
none: they quote figures through ``{{ name }}`` (``docs/_ext/bj_figures.py``: the exact
analysis computed at build time, or a run file a command wrote), or include a table the
build makes of a run file, a record under ``docs/data/`` (each with the command that
reproduces it), or an example's output that ``test_examples.py`` runs. Counts and
settings (``100,000 rounds``, ``95%`` intervals, a ``75%`` cut) are not figures.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"

#: Pages that are records, not the current product's figures, and why.
RECORDS = {
    "changelog.md": "what changed when, with the figures of the day",
    "design-notes.md": "dated measurements behind past design choices (lab notes)",
    "references.md": "publications, with their years and editions",
}

UNIT = (r"(?:x\b|×|s\b|ms\b|us\b|µs|min\b|minutes?\b|seconds?\b|hours?\b|CPU-s\b|MB\b|"
        r"GB\b|KB\b|bytes\b)")
FIGURE = re.compile(r"(?<![\w.\-/=:#])[-+±]?(?:\d+\.\d{2,}%?|\d+\.\d+%|\d[\d,]*(?:\.\d+)?\s?"
                    + UNIT + ")")


def prose(text: str) -> list[str]:
    """The lines a reader reads as text: no code blocks or spans, no directives, no
    substitutions, no link targets, no HTML comments, no dates or versions, no
    headings."""
    out, fence = [], None
    for line in text.splitlines():
        if fence is None and line.lstrip().startswith("```"):
            fence = line
            continue
        if fence is not None:
            if line.lstrip().startswith("```"):
                fence = None
            continue
        if line.startswith(("#", "(")):
            continue
        line = re.sub(r"`[^`]*`", "", line)
        line = re.sub(r"\{\{[^}]*\}\}", "", line)
        line = re.sub(r"\]\([^)]*\)", "]", line)
        line = re.sub(r"<!--.*?-->", "", line)
        line = re.sub(r"\b\d{4}-\d{2}-\d{2}\b", "", line)
        line = re.sub(r"\b(?:Python|version) \d+(?:\.\d+)+", "", line)  # versions
        out.append(line)
    return out


def figures(text: str) -> list[str]:
    return [m.group(0) for line in prose(text) for m in FIGURE.finditer(line)]


def _pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md")
                  if "_build" not in p.parts and "_generated" not in p.parts
                  and "data" not in p.relative_to(DOCS).parts and p.name not in RECORDS)


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_a_page_types_no_figure(page: Path) -> None:
    found = figures(page.read_text())
    assert not found, (
        f"{page.relative_to(DOCS)} types figures by hand: {found}; quote them with "
        "{{ name }} (docs/_ext/bj_figures.py) or include the data file that holds them")


def test_the_check_finds_figures_and_leaves_counts() -> None:
    assert figures("regret 0.0057, about 30 ms, 1.7x faster, 13 bytes, costs 0.2%, "
                   "optimum -0.04311") == ["0.0057", "30 ms", "1.7x", "13 bytes", "0.2%",
                                           "-0.04311"]
    assert figures("100,000 rounds, 95% intervals, cut at 75%, 7 seats, a 3:2 payout, "
                   "`0.156` in code, {{ optimum }}, Python 3.10, 2026-12-01") == []


def test_every_record_is_real() -> None:
    assert all((DOCS / name).is_file() for name in RECORDS)


def test_every_substitution_a_page_uses_is_defined() -> None:
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import bj_figures
    finally:
        sys.path.pop(0)
    known = set(bj_figures.figures())
    used = {name for page in DOCS.rglob("*.md") if "_build" not in page.parts
            for name in re.findall(r"\{\{\s*(\w+)\s*\}\}", page.read_text())}
    assert used and used <= known, used - known
