"""scripts/fingerprint_envs.py: the refactoring fingerprint is deterministic and sees a change."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

_PATH = Path(__file__).resolve().parents[2] / "scripts" / "fingerprint_envs.py"
_spec = importlib.util.spec_from_file_location("fingerprint_envs", _PATH)
assert _spec is not None and _spec.loader is not None
fp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fp)


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
