"""The results page is made from the results files in the repository: every file there
is valid, ``blackjack-bench report`` on them prints the page's tables, and the tables
and figures change with the files."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from blackjack_env.bench import TASKS
from blackjack_env.bench.report import interval_estimates, iqm, leaderboard, plots
from blackjack_env.bench.results import results_in
from blackjack_env.commands import bench as command

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "docs" / "data" / "bench"
PAGE = ROOT / "docs" / "benchmark.md"


def _pages_module():
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        spec = importlib.util.spec_from_file_location("bj_bench", ROOT / "docs/_ext/bj_bench.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    return module


def test_every_shipped_results_file_is_valid() -> None:
    found = results_in(SHIPPED)
    assert found, "no results files in docs/data/bench"
    assert {data["task"]["name"] for _, data in found} >= set(TASKS) - {"spread-bet"}


def test_report_prints_the_pages_tables(capsys: pytest.CaptureFixture[str]) -> None:
    pages = _pages_module().leaderboard_pages(SHIPPED)
    assert command.main(["report", str(SHIPPED)]) == 0
    printed = capsys.readouterr().out
    assert printed == "\n".join(f"## {TASKS[name].id}\n\n{text}"
                                for name, text in pages.items()) + "\n"
    page = PAGE.read_text()
    for name in TASKS:
        assert f"_generated/bench/leaderboard-{name}.md" in page


def test_the_tables_and_figures_change_with_the_files(tmp_path: Path) -> None:
    copy = tmp_path / "bench"
    shutil.copytree(SHIPPED, copy, ignore=shutil.ignore_patterns(".work"))
    drawn = plots(copy, tmp_path / "fig", dpi=30)  # (the size plays no part here)
    names = {p.name for p in drawn}
    page = PAGE.read_text()
    assert names and all(f"_generated/fig/{n}" in page for n in names)
    (victim,) = [p for p in copy.glob("v1-play-v1/q-learning-1e5.json")]
    victim.unlink()
    rows = {(r.algo, r.budget): r for r in leaderboard(copy)["v1-play"]}
    assert rows["q-learning", 100_000].status == "missing"
    assert "blackjack-bench run v1-play --algo q-learning" in rows[
        "q-learning", 100_000].command
    again = plots(copy, tmp_path / "fig2", dpi=30)
    before = (tmp_path / "fig" / "bench-v1-play-steps.png").read_bytes()
    after = (tmp_path / "fig2" / "bench-v1-play-steps.png").read_bytes()
    assert again and before != after


def test_iqm_is_rliables() -> None:
    """report.iqm (numpy) equals rliable's aggregate_iqm on score sets of every size and
    on ties, to float rounding."""
    pytest.importorskip("rliable")
    from rliable import metrics

    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 4, 5, 7, 8, 10, 13, 40):
        for scores in (rng.normal(size=n), rng.integers(0, 3, size=n).astype(float)):
            assert iqm(scores) == pytest.approx(metrics.aggregate_iqm(scores), abs=1e-12)
    grid = rng.normal(size=(5, 3))  # rliable flattens runs x tasks
    assert iqm(grid) == pytest.approx(metrics.aggregate_iqm(grid), abs=1e-12)


def test_interval_estimates_from_rliable() -> None:
    pytest.importorskip("rliable")
    state = np.random.get_state()[1].copy()
    mean, mean_ci, iqm, iqm_ci = interval_estimates([1.0, 2.0, 3.0, 4.0, 5.0])
    assert mean == 3.0 and iqm == 3.0  # the IQM of five: the mean of the middle three
    assert 1.0 <= mean_ci[0] < 3.0 < mean_ci[1] <= 5.0 and iqm_ci[0] < 3.0 < iqm_ci[1]
    assert interval_estimates([1.0, 2.0, 3.0, 4.0, 5.0]) == (mean, mean_ci, iqm, iqm_ci)
    assert np.array_equal(np.random.get_state()[1], state)  # numpy's generator put back
    assert interval_estimates([0.5, 0.5, 0.5])[2] is None  # seeds agree: no IQM
    assert interval_estimates([0.25]) == (0.25, None, None, None)
