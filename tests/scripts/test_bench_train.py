"""scripts/bench_train.py: its competitor processes end, and (slow) one tiny run prints the
figures of both thread settings, quiet and beside busy processes."""

from __future__ import annotations

import json
import runpy
import sys
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_train.py"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(SCRIPT.parent))  # as `python scripts/NAME.py` does (for _launch)
    try:
        return runpy.run_path(str(SCRIPT), run_name="bench_train")
    finally:
        sys.path.remove(str(SCRIPT.parent))


def test_busy_competitors_are_stopped_and_end_by_themselves(bench):
    procs = bench["start_busy"](2, 600.0)
    try:
        time.sleep(0.2)
        assert all(p.poll() is None for p in procs)  # spinning
    finally:
        bench["stop_busy"](procs)
    assert all(p.poll() is not None for p in procs)
    (alone,) = bench["start_busy"](1, 0.3)  # the bound, should the benchmark be killed
    try:
        alone.wait(timeout=30)
    finally:
        bench["stop_busy"]([alone])


@pytest.mark.slow
def test_a_tiny_benchmark_reports_both_thread_settings(bench, tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "bench.json"
    assert bench["main"](["--timesteps", "256", "--busy", "1", "--limit", "120",
                          "--json", str(out)]) == 0
    said = capsys.readouterr().out
    assert "torch's own / 1 thread: quiet" in said and "beside 1 busy" in said
    data = json.loads(out.read_text())
    one, own = data["cases"]
    assert one["torch_threads_used"] == 1 and own["torch_threads_option"] == 0
    assert all(c["quiet_seconds"] > 0 and c["busy_seconds"] > 0 for c in data["cases"])
    assert data["machine"]["load_average"] is not None or sys.platform == "win32"
