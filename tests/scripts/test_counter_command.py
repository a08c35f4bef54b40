"""``blackjack-counter``: the table, its JSON, refusals, Ctrl-C and resuming, and the
command docs/counting.md gives for its table (run here at a small size)."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blackjack_env import preset
from blackjack_env.analysis import counter
from blackjack_env.commands import counter as command
from tests.scripts import interrupt

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--rules", "vegas-strip", "--decks", "1", "--penetration", "0.5", "--no-progress",
         "--workers", "1"]


def test_table_and_json(tmp_path, capsys) -> None:
    out = tmp_path / "o.json"
    status = command.main([*SMALL, "--rounds", "8", "--store", str(tmp_path / "s.jsonl"),
                           "--json", str(out)])
    text = capsys.readouterr().out
    assert status == 0
    assert "8 rounds of" in text and "| ceiling: spread 1-8" in text
    assert "Hi-Lo 1-2-4-8: bets graded by the exact edge" in text
    data = json.loads(out.read_text())
    assert data["rounds"] == 8 and data["complete"] is True
    names = [r["name"] for r in data["rows"]]
    assert names[:3] == ["ceiling: spread 1-8 on the exact edge, CD play", "flat, CD play",
                         "flat, basic strategy"]
    assert len(names) == 5 and "Hi-Lo 1-2-4-8" in data["interval_narrowing"]
    assert len((tmp_path / "s.jsonl").read_text().splitlines()) == 1 + 8


@pytest.mark.parametrize(("args", "words"), [
    (["--spread", "8-1"], ["--spread", "LO <= HI"]),
    (["--spread", "eight"], ["--spread", "LO-HI"]),
    (["--rounds", "0"], ["--rounds", ">= 1"]),
    (["--penetration", "1.5"], ["--penetration", "between 0 and 1"]),
    (["--rules", "nope"], ["--rules", "unknown preset"]),
    (["--decks", "9"], ["--decks", "1 to 8"]),
    (["--workers", "-1"], ["--workers", ">= 0"]),
    (["--rules", "gymnasium"], ["infinite deck"]),
])
def test_bad_options_are_one_line_and_write_nothing(args, words, tmp_path, capsys) -> None:
    status = command.main([*args, "--store", str(tmp_path / "s.jsonl"), "--json",
                           str(tmp_path / "o.json"), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_keeps_what_was_priced_and_a_rerun_resumes(tmp_path, capsys, monkeypatch):
    store = tmp_path / "s.jsonl"
    real = counter.composition_return
    calls: list[int] = []

    def interrupting(rules, pool, **kw):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(rules, pool, **kw)

    monkeypatch.setattr(counter, "composition_return", interrupting)
    status = command.main([*SMALL, "--rounds", "8", "--store", str(store)])
    captured = capsys.readouterr()
    assert status == 130 and captured.err == "error: interrupted\n"
    # three pools priced (in dealing order of their first round; equal pools once)
    dealt = list(counter.deal_rounds(preset("vegas-strip").replace(decks=1), 8,
                                     penetration=0.5, seed=0))
    first_pools = list(dict.fromkeys(r.pool for r in dealt))[:3]
    held = sum(r.pool in first_pools for r in dealt)
    assert 3 <= held < 8
    assert f"interrupted: {held} of 8 rounds priced" in captured.out
    assert f"{held} rounds of" in captured.out  # the table of what was priced
    assert len(store.read_text().splitlines()) == 1 + held
    calls.clear()
    monkeypatch.setattr(counter, "composition_return", lambda r, p, **kw: (calls.append(1),
                                                                         real(r, p, **kw))[1])
    assert command.main([*SMALL, "--rounds", "8", "--store", str(store)]) == 0
    # only the pools not yet priced
    assert len(calls) == len({r.pool for r in dealt} - set(first_pools))
    assert "8 rounds of" in capsys.readouterr().out


def test_the_command_docs_counting_gives_runs_at_a_small_size(tmp_path, capsys) -> None:
    doc = (ROOT / "docs" / "counting.md").read_text().replace("\\\n", " ")  # joined lines
    lines = [line.strip() for line in doc.splitlines()
             if line.strip().startswith("blackjack-counter ")]
    assert lines, "docs/counting.md gives no blackjack-counter command"
    argv = shlex.split(lines[0])[1:]
    # the same command, 20 rounds instead of 100,000, its store and JSON under tmp_path
    i = argv.index("--rounds")
    argv[i + 1] = "20"
    argv += ["--store", str(tmp_path / "s.jsonl"), "--json", str(tmp_path / "o.json"),
             "--no-progress"]
    assert command.main(argv) == 0
    data = json.loads((tmp_path / "o.json").read_text())
    assert data["rounds"] == 20 and data["rules"]["decks"] == 6
    assert data["penetration"] == 0.75 and data["spread"] == [1, 8]


def test_ctrl_c_stops_every_worker_and_keeps_their_rounds(tmp_path) -> None:
    """A real Ctrl-C (SIGINT to the command's process group, as a terminal sends it) while
    two worker processes price: the command prints the table of what was priced, exits
    130, leaves no worker running, and the store resumes."""
    store = tmp_path / "s.jsonl"
    args = [sys.executable, str(ROOT / "scripts" / "counter.py"), "--rules", "vegas-strip",
            "--decks", "1", "--penetration", "0.5", "--rounds", "3000", "--workers", "2",
            "--no-progress", "--store", str(store)]
    proc = interrupt.start(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=dict(os.environ, PYTHONUNBUFFERED="1"), start_new_session=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and (
                not store.exists() or len(store.read_text().splitlines()) < 1 + 20):
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)  # the whole group: the workers get it too
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # never leave a worker past a failure
    assert proc.returncode == 130 and stderr.endswith("error: interrupted\n"), stderr
    held = len(store.read_text().splitlines()) - 1
    assert 20 <= held < 3000
    assert f"interrupted: {held:,} of 3,000 rounds priced" in stdout
    assert f"{held:,} rounds of" in stdout
    # no process of the group is left (the workers were stopped with the command; the
    # spawn resource tracker leaves when it sees the command's end, a moment later)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)
    # the priced rounds are those of the deal, with the edges of a fresh pricing
    rules = preset("vegas-strip").replace(decks=1)
    stored = counter.stored_rounds(rules, 3000, penetration=0.5, seed=0, store=store)
    assert len(stored) == held
    for r in stored[:10]:  # each held edge is its pool's, priced here afresh
        assert r.edge == counter.composition_return(rules, list(r.pool)).expected_return


def test_without_numba_the_command_says_pricing_is_slow(tmp_path, capsys, monkeypatch):
    """Without the fast extra each round takes seconds: the command says so, in one line,
    before it prices (the analysis's notice, its wording checked here)."""
    monkeypatch.setattr(counter.kernels, "AVAILABLE", False)
    notice = counter.speed_notice()
    assert notice is not None and notice.startswith("note: numba is not installed")
    assert 'pip install -e ".[fast]"' in notice
    monkeypatch.setattr(counter.kernels, "AVAILABLE", True)
    assert counter.speed_notice() is None
    # the command prints it first (priced by the kernels: only the notice is faked)
    monkeypatch.setattr(command, "speed_notice", lambda: notice)
    assert command.main([*SMALL, "--rounds", "2", "--store", str(tmp_path / "s.jsonl")]) == 0
    assert capsys.readouterr().err == notice + "\n"
