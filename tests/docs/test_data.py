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
