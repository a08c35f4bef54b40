"""The compiled modules: which run, the pure-Python switch, and the stale-build guard.

``setup.py`` compiles the modules of ``blackjack_env._native.KNOWN`` with mypyc;
``_native`` runs them compiled only when every extension matches its source.
The rest of the suite runs against whatever this process imported (compiled
after ``pip install -e .``, source under ``BLACKJACK_ENV_PURE=1``); CI runs it
both ways.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import blackjack_env
from blackjack_env import _native

REPORT = (
    "import json, sys, warnings\n"
    "warnings.simplefilter('always')\n"
    "with warnings.catch_warnings(record=True) as caught:\n"
    "    import blackjack_env\n"
    "    import blackjack_env.engine.table as table\n"
    "print(json.dumps({'compiled': blackjack_env.compiled_modules(), 'file': table.__file__,\n"
    "                  'warnings': [str(w.message) for w in caught]}))\n"
)


def _report(env: dict[str, str], path: Path | None = None) -> dict:
    """What a fresh interpreter imports, with ``env`` set and ``path`` first on sys.path."""
    environ = {**os.environ, **env}
    if path is not None:
        environ["PYTHONPATH"] = str(path)
    out = subprocess.run(
        [sys.executable, "-c", REPORT],
        env=environ,
        cwd=path,  # `python -c` puts the working directory first on sys.path
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    if path is not None:
        assert report["file"].startswith(str(path)), report["file"]
    return report


def _built() -> bool:
    return all(_native._extension(name) is not None for name in _native.KNOWN)


def test_compiled_modules_lists_every_known_module():
    modules = blackjack_env.compiled_modules()
    assert set(modules) == set(_native.KNOWN)
    on = set(modules.values())
    assert len(on) == 1  # all or nothing
    import blackjack_env.engine.table as table

    assert table.__file__.endswith(".py") != on.pop()


@pytest.mark.skipif(
    os.environ.get("BLACKJACK_ENV_EXPECT_COMPILED") != "1",
    reason="set BLACKJACK_ENV_EXPECT_COMPILED=1 where the build must have compiled (CI does)",
)
def test_the_build_compiled_every_module():
    assert not _native.pure_requested()
    assert all(blackjack_env.compiled_modules().values()), blackjack_env.compiled_modules()


def test_pure_switch_imports_every_module_from_source():
    report = _report({"BLACKJACK_ENV_PURE": "1"})
    assert not any(report["compiled"].values())
    assert report["file"].endswith("table.py")
    assert report["warnings"] == []  # asking for the source is not worth a warning


@pytest.mark.skipif(not _built(), reason="no compiled build in this checkout")
def test_an_edited_source_falls_back_to_source_with_a_warning(tmp_path):
    # A copy of the built package, with the compiled extensions and their manifest.
    shutil.copytree(Path(blackjack_env.__file__).parent, tmp_path / "blackjack_env")
    shared = importlib.util.find_spec("blackjack_env__mypyc")
    assert shared is not None and shared.origin
    shutil.copy(shared.origin, tmp_path)
    fresh = _report({"BLACKJACK_ENV_PURE": ""}, tmp_path)
    assert all(fresh["compiled"].values()), fresh
    assert fresh["file"].endswith(".so") and fresh["warnings"] == []

    hand = tmp_path / "blackjack_env" / "engine" / "hand.py"
    hand.write_text(hand.read_text() + "\n# edited after the build\n")
    stale = _report({"BLACKJACK_ENV_PURE": ""}, tmp_path)
    assert not any(stale["compiled"].values())
    assert stale["file"].endswith("table.py")  # every module, not only the edited one
    (message,) = stale["warnings"]
    assert "blackjack_env.engine.hand" in message and "pip install -e ." in message

    # rules.py is not compiled, but the compiled table reads Rules with its types
    hand.write_text(hand.read_text().replace("\n# edited after the build\n", ""))
    assert all(_report({"BLACKJACK_ENV_PURE": ""}, tmp_path)["compiled"].values())
    rules = tmp_path / "blackjack_env" / "engine" / "rules.py"
    rules.write_text(rules.read_text() + "\n# edited after the build\n")
    (message,) = _report({"BLACKJACK_ENV_PURE": ""}, tmp_path)["warnings"]
    assert "blackjack_env.engine.rules" in message

    # A missing manifest (extensions built by hand) is not trusted either.
    (tmp_path / "blackjack_env" / "_compiled.json").unlink()
    unknown = _report({"BLACKJACK_ENV_PURE": ""}, tmp_path)
    assert not any(unknown["compiled"].values()) and len(unknown["warnings"]) == 1


def test_manifest_names_every_known_module_when_built():
    manifest = _native._MANIFEST
    if not manifest.exists():
        pytest.skip("no compiled build in this checkout")
    recorded = json.loads(manifest.read_text())
    assert set(recorded) == set(_native.KNOWN + _native.TYPES_FROM)


TRAJECTORY = """
import hashlib, numpy as np, gymnasium as gym, blackjack_env
from blackjack_env.engine import Table, preset
from blackjack_env.strategies import make_strategy
digest = hashlib.sha256()
rules = preset("vegas-strip", seats=3)
table = Table(rules, seed=7, bankroll=[500, None, 40])
players = [make_strategy("random", rules, seed) for seed in (1, 2, 3)]
for _ in range(400):
    for seat in range(3):
        if table.seats[seat].can_afford(5):
            table.bet(seat, 5)
    if not any(s.bet for s in table.seats):
        break
    table.deal()
    while table.to_act is not None:
        table.act(players[table.to_act[0]](table))
    digest.update(repr(table.events).encode())
    digest.update(repr([s.bankroll for s in table.seats]).encode())
    table.new_round()
env = gym.make("blackjack_env/Blackjack-v0", num_seats=2, others="random")
obs, info = env.reset(seed=3)
env.action_space.seed(4)
for _ in range(2000):
    action = env.action_space.sample(mask=info["action_mask"])
    obs, reward, terminated, truncated, info = env.step(action)
    digest.update(repr((obs.tolist(), reward, terminated, info["hands"])).encode())
    if terminated or truncated:
        obs, info = env.reset()
print(digest.hexdigest())
"""


@pytest.mark.skipif(not _built(), reason="no compiled build in this checkout")
def test_compiled_and_source_play_identical_trajectories():
    """Same seeds and actions: the compiled build and the source deal the same cards,
    take the same decisions and pay the same chips, bit for bit."""

    def run(pure: str) -> str:
        environ = {**os.environ, "BLACKJACK_ENV_PURE": pure}
        out = subprocess.run(
            [sys.executable, "-c", TRAJECTORY], env=environ, capture_output=True, text=True,
            check=True,
        )
        return out.stdout.strip()

    assert run("1") == run("")
