"""blackjack_env.fingerprint (scripts/fingerprint_envs.py): the refactoring fingerprint is
deterministic and sees a change; the script is a thin launcher of the module."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

from blackjack_env import fingerprint as fp

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fingerprint_envs.py"


def _hash(runner, kwargs, seed=3, steps=30) -> tuple[str, int]:
    rec = fp.Recorder()
    runner(rec, kwargs, seed, steps)
    return rec.h.hexdigest(), rec.errors


def test_same_seed_same_fingerprint_and_a_change_is_seen() -> None:
    kw = {"rules": "vegas-strip", "obs_mode": "dict", "illegal_action": "raise",
          "rounds_per_episode": 3}
    first = _hash(fp.run_single, kw)
    assert first == _hash(fp.run_single, kw)
    assert first[1] > 0  # illegal and out-of-space actions were tried: errors recorded
    assert _hash(fp.run_single, kw, seed=4) != first
    assert _hash(fp.run_single, {**kw, "illegal_action": "map"}) != first
    vec = {"seats_per_table": 2, "num_envs": 4, "obs_mode": "vector"}
    assert _hash(fp.run_vector, vec, steps=10) == _hash(fp.run_vector, vec, steps=10)
    table = {"num_seats": 2, "rounds": 2}
    assert _hash(fp.run_table, table, steps=20) == _hash(fp.run_table, table, steps=20)


def test_canonical_text() -> None:
    one = fp.canon({"b": 1, "a": np.array([0.5, 1.0])})
    assert one == fp.canon({"a": np.array([0.5, 1.0]), "b": 1})
    assert fp.canon(np.array([1], dtype=np.int8)) != fp.canon(np.array([1], dtype=np.int64))
    assert fp.canon(True) != fp.canon(1)


def _script(args: list[str], monkeypatch) -> int:
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *args])
    monkeypatch.syspath_prepend(str(SCRIPT.parent))  # as `python scripts/NAME.py` puts it first
    with pytest.raises(SystemExit) as stop:
        runpy.run_path(str(SCRIPT), run_name="__main__")
    return int(stop.value.code or 0)


def test_the_script_writes_compares_and_fails_on_a_difference(tmp_path, monkeypatch,
                                                              capsys) -> None:
    """The launcher runs the module: --out writes the groups asked for, --compare says
    identical (status 0) against them, and a changed behaviour hash gives status 1 naming
    the group."""
    out = tmp_path / "fp.json"
    assert _script(["--only", "analysis", "--out", str(out)], monkeypatch) == 0
    written = json.loads(out.read_text())
    assert list(written) == ["analysis"] and len(written["analysis"]["hash"]) == 64
    assert written == fp.fingerprints(only=["analysis"])  # the same figures in process
    capsys.readouterr()
    assert _script(["--only", "analysis", "--compare", str(out)], monkeypatch) == 0
    assert "behaviour: identical" in capsys.readouterr().out
    written["analysis"]["hash"] = "0" * 64
    out.write_text(json.dumps(written))
    assert _script(["--only", "analysis", "--compare", str(out)], monkeypatch) == 1
    assert "behaviour: DIFFERS in ['analysis']" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "says"), [
    (["--only", "nope"], "'nope'"),
    (["--seeds", "0"], "--seeds 0"),
    (["--compare", "{tmp}/missing.json"], "missing.json"),
    (["--out", "{tmp}"], "is a folder"),
])
def test_bad_input_is_one_line_before_any_work(args, says, tmp_path, monkeypatch,
                                               capsys) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert _script(args, monkeypatch) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], err
    assert out == "" and list(tmp_path.iterdir()) == []
