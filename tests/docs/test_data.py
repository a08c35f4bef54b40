"""The committed run files behind the site's slower pictures are current (slow).

``docs/make_data.py`` wrote them; this recomputes them with the code as it is now and
compares (the learning run is deterministic for its seed; the effects of removal are
exact arithmetic, compared to 1e-9).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _make_data():
    spec = importlib.util.spec_from_file_location("make_data", DOCS / "make_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_learning_run_is_current() -> None:
    committed = json.loads((DOCS / "data" / "learning-run.json").read_text())
    fresh = _make_data().learning_run()
    assert fresh["settings"] == committed["settings"]
    assert fresh["blocks"] == committed["blocks"]
    assert [x for x, _ in fresh["grades"]] == [x for x, _ in committed["grades"]]
    assert [y for _, y in fresh["grades"]] == pytest.approx(
        [y for _, y in committed["grades"]], abs=1e-12)
    assert fresh["optimal"] == pytest.approx(committed["optimal"], abs=1e-12)


def test_effects_of_removal_are_current() -> None:
    committed = json.loads((DOCS / "data" / "effects-of-removal.json").read_text())
    fresh = _make_data().removal()
    assert fresh["rules"] == committed["rules"]
    for label, effects in committed["results"].items():
        assert fresh["results"][label] == pytest.approx(effects, abs=1e-9)


def test_published_checks_are_current() -> None:
    committed = json.loads((DOCS / "data" / "published-checks.json").read_text())
    fresh = _make_data().published()
    assert fresh["farmer"]["return_percent"] == pytest.approx(
        committed["farmer"]["return_percent"], abs=1e-9)
    for decks, edge in committed["hoppe"]["edge_percent"].items():
        assert fresh["hoppe"]["edge_percent"][decks] == pytest.approx(edge, abs=1e-9)
    # within what the sources publish: a thousandth of a point (Hoppe), Farmer to 0.005
    for decks, edge in fresh["hoppe"]["edge_percent"].items():
        assert abs(edge - fresh["hoppe"]["published_edge_percent"][decks]) <= 0.001
    assert abs(fresh["farmer"]["return_percent"]
               - fresh["farmer"]["published_return_percent"]) <= 0.005


def test_the_first_tutorials_full_size_output_is_current(monkeypatch) -> None:
    """The first tutorial at its default size (a few seconds) prints what the page
    shows; the counting tutorial's million rounds a spread (about ten minutes) is not run
    again here: its recorded output has the lines of the tutorial's small run."""
    import re

    module = _make_data()
    committed = json.loads((DOCS / "data" / "tutorials-full-size.json").read_text())
    monkeypatch.setattr(module, "TUTORIALS", ("tutorial_first_agent",))
    fresh = module.tutorials()["runs"]["tutorial_first_agent"]["output"]
    assert fresh == committed["runs"]["tutorial_first_agent"]["output"]
    small = (DOCS / "examples" / "output" / "tutorial_counting.txt").read_text()
    big = committed["runs"]["tutorial_counting"]["output"]
    number = re.compile(r"[-+]?\d[\d,]*\.?\d*")
    assert number.sub("#", small) == number.sub("#", big)
    assert big.startswith("1,000,000 rounds each")


def test_the_counter_run_file_is_the_commands() -> None:
    """``counter-1m.json`` (a ``blackjack-evaluate --out`` file, 3 minutes to remake) was
    written by the command ``counting-figures.json`` names: the same settings."""
    import shlex

    figures = json.loads((DOCS / "data" / "counting-figures.json").read_text())
    run = json.loads((DOCS / "data" / "counter-1m.json").read_text())
    argv = shlex.split(figures["command_row"]["command"])
    given = dict(zip(argv[2::2], argv[3::2], strict=False))
    settings = run["settings"]
    assert argv[1] == settings["agent"] == "counter"
    assert given["--rules"] == settings["rules"]
    assert int(given["--hands"]) == settings["hands"] == run["simulation"]["rounds"]
    assert given["--bet-sizes"] == settings["bet_sizes"]
    assert int(given["--session"]) == settings["session"]
