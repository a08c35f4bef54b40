"""Smoke tests of scripts/analyze.py with a tiny budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "analyze.py"


@pytest.fixture(scope="module")
def analyze():
    """The command scripts/analyze.py starts (through scripts/_launch.py, whose start-up is
    tested with every script in tests/scripts)."""
    from blackjack_env.commands import analyze as command

    assert 'launch("analyze")' in SCRIPT.read_text()
    return command


def test_prints_edge_and_chart_and_writes_json_and_png(analyze, tmp_path, capsys) -> None:
    out_json, out_png = tmp_path / "r.json", tmp_path / "c.png"
    rc = analyze.main(["--rules", "vegas-strip", "--decks", "inf", "--h17",
                       "--json", str(out_json), "--chart", str(out_png)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "House edge:" in text and "Pairs:" in text and "Rh" in text
    data = json.loads(out_json.read_text())
    assert data["rules"]["dealer_hits_soft_17"] is True and data["rules"]["decks"] is None
    assert data["chart"]["hard"]["11"][-1] == "D"  # 11 v A doubles under H17
    assert abs(data["expected_return"] - data["infinite_deck_optimal_return"]) < 1e-15
    assert out_png.stat().st_size > 10_000


def test_finite_shoe_and_overrides(analyze, capsys) -> None:
    rc = analyze.main(["--rules", "gymnasium", "--quiet"])
    assert rc == 0
    rc = analyze.main(["--rules", "downtown-h17", "--decks", "1", "--surrender", "late",
                       "--set", "max_split_hands=2", "--quiet",
                       "--no-composition"])  # composition figures: tests/scripts
    assert rc == 0
    text = capsys.readouterr().out
    assert "1 deck, H17" in text and "split to 2" in text and "late surrender" in text


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--decks", "9"], "decks=9"),
        (["--set", "nonsense=1"], "unknown rule field"),
        (["--set", "max_split_hands"], "FIELD=VALUE"),
        (["--rules", "terminal-21"], "settlement"),
    ],
)
def test_bad_input_is_reported(analyze, capsys, argv, message) -> None:
    assert analyze.main(argv) == 2
    assert message in capsys.readouterr().err
