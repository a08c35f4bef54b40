"""Smoke tests of the JAX benchmark and GPU-check scripts with tiny budgets (they run on
CPU here; the GPU run is scripts/gpu_check.sh, whose CPU rehearsal is the slow test)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jax")

ROOT = Path(__file__).resolve().parents[2]


def _main(name: str) -> Any:
    """The script's ``main``, its file imported as a module that stays in ``sys.modules``
    (tyro reads the settings' annotations from there)."""
    spec = importlib.util.spec_from_file_location(name.removesuffix(".py"),
                                                  ROOT / "scripts" / name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    scripts = str(ROOT / "scripts")
    sys.path.insert(0, scripts)  # as `python scripts/NAME.py` puts it first (for _launch)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(scripts)
    return module.main


def test_bench_jax_chart_and_random_with_numpy(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "b.json"
    rc = _main("bench_jax.py")([
        "--tables", "64", "--rules", "sutton-barto", "--steps", "8", "--repeats", "1",
        "--numpy-seconds", "0.05", "--json", str(out),
    ])  # fmt: skip
    assert rc == 0
    rows = json.loads(out.read_text())["rows"]
    assert {(r["impl"], r["policy"]) for r in rows} == {
        ("jax", "random"),
        ("jax", "chart"),
        ("numpy", "random"),
        ("numpy", "chart"),
    }
    text = capsys.readouterr().out
    assert "jax/numpy" in text and "chart" in text
    # basic strategy loses far less than random play (sutton-barto: about -0.04 vs -0.39)
    jx = {r["policy"]: r["mean_return"] for r in rows if r["impl"] == "jax"}
    assert jx["chart"] > jx["random"] + 0.2


@pytest.mark.parametrize(("args", "word"), [
    (["--tables", "0"], "--tables"),
    (["--rules", "nope"], "'nope'"),
    (["--json", "{tmp}/notes.txt/b.json"], "notes.txt"),
])
def test_bench_jax_bad_input(tmp_path: Path, capsys: Any, args: list[str], word: str) -> None:
    """A wrong option is one error line before anything is compiled, and writes nothing."""
    (tmp_path / "notes.txt").write_text("not a folder")
    assert _main("bench_jax.py")([a.replace("{tmp}", str(tmp_path)) for a in args]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and word in lines[0], lines
    assert "backend" not in captured.out  # stopped before jax started
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.slow  # (tests/jax/test_jax_table.py holds same key, same trajectory by default)
def test_determinism_script(tmp_path: Path) -> None:
    out = tmp_path / "d.json"
    assert _main("jax_determinism.py")(["--tables", "32", "--steps", "4", "--out", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert figures["vegas-strip"]["same_device_identical"]
    assert figures["sutton-barto"]["run_1"]["hands"] != "0"


@pytest.mark.slow
def test_gpu_check_rehearsal_degrades_gracefully(tmp_path: Path) -> None:
    """The prepared GPU run, small, on CPU: every part recorded, one forced to time out."""
    env = {
        **os.environ, "GPU_CHECK_SMALL": "1", "OUT": str(tmp_path), "PYTHON": sys.executable,
        "GPU_CHECK_T_CHART": "2",
        "GPU_CHECK_PARTS": "device bench bench_chart mixed determinism",
        # (generous limits for the others: this machine is shared and loaded)
        "GPU_CHECK_T_DEVICE": "300", "GPU_CHECK_T_BENCH": "300", "GPU_CHECK_T_DET": "300",
        "GPU_CHECK_T_MIXED": "400", "GPU_CHECK_MIXED_TABLES": "1024",
    }  # fmt: skip
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "gpu_check.sh")], env=env, capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in (tmp_path / "summary.tsv").read_text().splitlines()]
    status = {r[0]: r[1] for r in rows[1:]}
    assert status == {"device": "ok", "bench": "ok", "bench_chart": "timeout", "mixed": "ok",
                      "determinism": "ok"}
    assert (tmp_path / "bench_random.json").exists() and (tmp_path / "determinism.json").exists()
    mixed = json.loads((tmp_path / "bench_mixed.json").read_text())["rows"]
    assert any(row.get("mixed") and row["rule_sets"] == 1024 for row in mixed)
    assert "== summary" in (tmp_path / "gpu_check.log").read_text()
