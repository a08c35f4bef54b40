"""The counting experiment scripts/jax_ppo_counting.py: its tallies (per
hand, per unit wagered, by count), a smoke run with a tiny budget (slow: it compiles the
JAX table inside the PPO), and its refusals before any training."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "jax_ppo_counting.py"


def _module() -> dict[str, Any]:
    """The script's names, loaded as a module (it imports numpy and the package; JAX only
    when it trains)."""
    sys.path.insert(0, str(SCRIPT.parent))  # as `python scripts/NAME.py` does (for _launch)
    try:
        return runpy.run_path(str(SCRIPT), run_name="jax_ppo_counting")
    finally:
        sys.path.remove(str(SCRIPT.parent))


def test_tally_intervals_match_the_spread_of_repeated_samples() -> None:
    """The 95% half-widths (per hand; per unit wagered by the delta method) are 1.96 times
    the standard deviation of the estimate over independent repetitions, within 15%."""
    tally_cls = _module()["Tally"]
    rng = np.random.default_rng(0)
    per_hand, per_unit, widths = [], [], []
    for _ in range(300):
        tc = rng.normal(0.0, 2.5, 4000)
        b = np.where(tc >= 2, 8.0, 1.0)
        r = b * np.where(rng.random(4000) < 0.48 + 0.01 * tc, 1.0, -1.0)
        t = tally_cls()
        t.add(r[:2500], b[:2500], tc[:2500])
        t.add(r[2500:], b[2500:], tc[2500:])  # added in two parts: the sums are the same
        f = t.figures()
        per_hand.append(f["per_hand"])
        per_unit.append(f["per_unit_wagered"])
        widths.append((f["per_hand_ci95"], f["per_unit_wagered_ci95"]))
        assert f["per_unit_wagered"] == pytest.approx(r.sum() / b.sum())
        assert sum(f["by_count"]["rounds"]) == 4000
    w_hand, w_unit = np.mean(widths, axis=0)
    assert w_hand == pytest.approx(1.96 * np.std(per_hand), rel=0.15)
    assert w_unit == pytest.approx(1.96 * np.std(per_unit), rel=0.15)
    # a flat bet: per unit wagered is per hand
    t = tally_cls()
    t.add(np.array([1.0, -1.0, -1.0, 1.5]), np.ones(4), np.zeros(4))
    f = t.figures()
    assert f["per_unit_wagered"] == f["per_hand"] and f["mean_bet"] == 1.0


def test_count_bins_and_the_textbook_ramp() -> None:
    mod = _module()
    bins = mod["count_bin"](np.array([-9.0, -6.0, -0.5, 0.0, 1.99, 2.0, 7.9, 8.0, 12.0]))
    assert bins.tolist() == [-6, -6, -1, 0, 1, 2, 7, 8, 8]
    ramp = mod["textbook_ramp"]((1, 2, 4, 8))
    assert [ramp.units_for(c) for c in (-3.0, 1.9, 2.0, 3.0, 3.5, 4.0, 9.0)] == \
        [1, 1, 2, 4, 4, 8, 8]


@pytest.mark.slow  # compiles the JAX table inside the PPO program (15-30 s)
def test_smoke_run_writes_every_figure(tmp_path: Path, capsys: Any) -> None:
    pytest.importorskip("jax")
    out = tmp_path / "c.json"
    # (40,000 rounds at 1,024 tables: about 40 rounds a table, most of a shoe, so the
    # count moves away from 0 and the ramp raises; bins with 0 or 1 rounds are printed)
    rc = _module()["main"](["--seeds", "1", "--timesteps", str(256 * 32 * 4), "--hands",
                            "40000", "--out", str(out)])
    assert rc == 0
    fig = json.loads(out.read_text())
    assert fig["illegal_actions"] == 0 and fig["bet_out_of_phase"] == 0
    for name in ("basic_flat", "basic_hilo_ramp"):
        assert fig[name]["rounds"] >= 40000
    assert fig["basic_flat"]["mean_bet"] == 1.0
    assert fig["basic_hilo_ramp"]["mean_bet"] > 1.0  # the ramp raises at high counts
    assert len(fig["seeds"]) == 1 and len(fig["bets_by_count_half_shoe"][0]["greedy_bet"]) == 15
    assert len(fig["index_plays"]) == 18
    text = capsys.readouterr().out
    assert "Hi-Lo ramp" in text and "learned index" in text


@pytest.mark.parametrize(("args", "words"), [
    (["--seeds", "0"], ["seeds=0", "at least 1"]),
    (["--timesteps", "-1"], ["total_timesteps=-1"]),
    (["--hands", "0"], ["--hands 0"]),
    (["--bet-sizes", "4,2"], ["--bet-sizes '4,2'", "increasing"]),
    (["--out", "{tmp}/notes.txt/c.json"], ["--out", "notes.txt"]),
    (["--out", "{tmp}"], ["--out", "is a folder"]),
    (["--seeds", "two"], ["--seeds", "two"]),
])
def test_bad_input_is_one_line_before_any_training(tmp_path: Path, capsys: Any, monkeypatch: Any,
                                                   args: list[str], words: list[str]) -> None:
    """A wrong option stops the script (the launcher, as a user runs it) with one ``error:``
    line and status 2 before the training (minutes) starts, and writes nothing."""
    pytest.importorskip("jax")
    (tmp_path / "notes.txt").write_text("not a folder")
    before = sorted(tmp_path.iterdir())
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv])
    monkeypatch.syspath_prepend(str(SCRIPT.parent))  # as `python scripts/NAME.py` puts it first
    with pytest.raises(SystemExit) as stop:
        runpy.run_path(str(SCRIPT), run_name="__main__")
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert "load average" not in out and "training" not in out  # stopped before them
    assert sorted(tmp_path.iterdir()) == before
