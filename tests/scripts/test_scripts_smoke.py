"""Every script with a tiny budget: train, save, reload, evaluate, chart, main, play, resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.scripts import interrupt

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"


def run(script: str, *args: str, stdin: str | None = None, cwd: Path | None = None,
        timeout: float = 240) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, str(SCRIPTS / script), *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)


def is_png(path: Path) -> bool:
    return path.exists() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and \
        path.stat().st_size > 5_000


def test_train_evaluate_chart_tabular(tmp_path):
    out = tmp_path / "run"
    r = run("train.py", "--algo", "q-learning", "--hands", "4000", "--out", str(out),
            "--no-progress", "--curve-points", "2")
    assert r.returncode == 0, r.stderr
    # the summary is printed for a person: labelled lines, no JSON (that is summary.json)
    lines = r.stdout.splitlines()
    assert lines[0] == f"training q-learning on sutton-barto for 4,000 hands, seed 1, into {out}"
    assert not any(line.lstrip().startswith(("{", "[")) for line in lines)
    assert "  trained 4,000 hands in " in r.stdout and "  regret  " in r.stdout
    assert f"model {out / 'model.npz'}; summary.json" in r.stdout
    for name in ("model.npz", "settings.json", "summary.json", "curve.json"):
        assert (out / name).exists(), name
    assert is_png(out / "learning_curve.png")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["hands"] == 4000 and summary["exact"]["regret"] >= -1e-12
    assert json.loads((out / "curve.json").read_text())["grades"]

    r = run("evaluate.py", str(out), "--hands", "3000", "--json")
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    sim = result["simulation"]
    assert sim["rounds"] == 3000 and sim["ci95"][0] < sim["mean_return"] < sim["ci95"][1]
    assert result["rules"] == "sutton-barto"
    # the reloaded agent is graded exactly as training graded it
    assert result["exact"]["exact_return"] == pytest.approx(summary["exact"]["exact_return"])
    r = run("evaluate.py", str(out), "--hands", "500")
    assert r.returncode == 0 and "95% CI" in r.stdout and "regret" in r.stdout

    r = run("chart.py", str(out), "--png", str(tmp_path / "chart.png"))
    assert r.returncode == 0, r.stderr
    assert is_png(tmp_path / "chart.png") and "differ" in r.stdout


def test_play_with_a_trained_agent_at_a_seat(tmp_path):
    out = tmp_path / "run"
    r = run("train.py", "--hands", "2000", "--out", str(out), "--no-progress")
    assert r.returncode == 0, r.stderr
    # the trained agent plays a seat beside a person
    r = run("play.py", "--rules", "vegas-strip", "--seats", "2", "--others", str(out / "model.npz"),
            "--seed", "4", stdin="3\ns\ns\n")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr and "Seat 1" in r.stdout


def test_train_sb3_and_evaluate(tmp_path):
    out = tmp_path / "ppo"
    r = run("train.py", "--algo", "maskable-ppo", "--rules", "vegas-strip", "--decks", "inf",
            "--timesteps", "300", "--n-envs", "2", "--n-steps", "64", "--eval-freq", "128",
            "--eval-episodes", "20", "--checkpoint-freq", "128", "--curve-points", "1",
            "--out", str(out), "--no-progress")
    assert r.returncode == 0, r.stderr
    assert (out / "model.zip").exists() and is_png(out / "learning_curve.png")
    assert (out / "eval" / "evaluations.npz").exists() and list((out / "checkpoints").iterdir())
    summary = json.loads((out / "summary.json").read_text())
    assert summary["exact"] is not None and summary["timesteps"] >= 300
    r = run("evaluate.py", str(out), "--hands", "300", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["exact"]["regret"] == pytest.approx(summary["exact"]["regret"])


def test_ctrl_c_saves_a_checkpoint_and_resume_continues(tmp_path):
    out = tmp_path / "long"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = interrupt.start([sys.executable, str(SCRIPTS / "train.py"), "--hands", "50000000",
                            "--out", str(out), "--no-progress"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.time() + 120
        while not (out / "settings.json").exists() and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(3)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        proc.kill()  # (a no-op once it has ended; never left running past a failure)
    assert proc.returncode == 130 and stderr == "error: interrupted\n", stderr  # as every command
    assert "interrupted" in stdout and (out / "checkpoint.npz").exists()
    done = json.loads((out / "summary.json").read_text())["hands"]
    assert 0 < done < 50_000_000
    r = run("train.py", "--hands", str(done + 1500), "--out", str(out), "--resume",
            "--no-progress")
    assert r.returncode == 0, r.stderr
    assert "resuming" in r.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["hands"] == done + 1500 and summary["finished"]
    assert (out / "model.npz").exists() and not (out / "checkpoint.npz").exists()


def test_main_with_a_tiny_budget(tmp_path):
    out = tmp_path / "main"
    r = run("main.py", "--hands", "5000", "--eval-hands", "1000", "--out", str(out),
            "--no-progress")
    assert r.returncode == 0, r.stderr
    assert "regret" in r.stdout and "basic strategy" in r.stdout
    # the seed is said once, in the job's own first line (train's own line used to repeat
    # it as a bare "seed 1")
    lines = r.stdout.splitlines()
    assert "(seed 1)" in lines[0] and sum("seed" in line for line in lines) == 1
    result = json.loads((out / "main.json").read_text())
    assert result["basic"]["exact"]["regret"] == pytest.approx(0.0, abs=1e-12)
    assert result["agent"]["exact"]["regret"] > 0
    assert is_png(out / "chart.png") and is_png(out / "learning_curve.png")


def test_play_scripted_session_with_bad_input(tmp_path):
    """Stacked cards: you get T-7 (17) against a 6. Bad bets, an unknown word, an illegal
    action and an empty line are refused with a message; end of input leaves cleanly."""
    stdin = "\n".join(["", "lots", "5000", "10",      # bet: empty, not a number, too much, ok
                       "fold", "p", "", "s",          # unknown, illegal split, empty, stand
                       "1000"]) + "\n"                # next bet too big, then end of input
    r = run("play.py", "--cards", "TS 6H 7C 8D", "--bankroll", "100", "--hint",
            "--seed", "3", stdin=stdin)
    out = r.stdout
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in out + r.stderr
    assert "Please type a bet" in out
    assert "'lots' is not a whole number" in out
    assert "cannot bet 5000" in out
    assert "'fold' is not an action" in out
    assert "SPLIT is not allowed now" in out
    assert "Please choose one of" in out
    assert "given the 309 cards not yet seen" in out and "best STAND" in out
    assert "10♠ 7♣ = 17" in out and "showing 6" in out and "dealer's 6♥" in out
    assert "cannot bet 1000" in out
    assert "end of input" in out and "final bankroll" in out
    assert out.count("Blackjack - round 1") >= 2  # drawn before the decision and at the end


def test_play_with_agents_at_other_seats_and_quit(tmp_path):
    stdin = "5\nh\nq\n"
    r = run("play.py", "--seats", "3", "--seat", "1", "--others", "basic,counter", "--seed", "8",
            "--rules", "vegas-strip", stdin=stdin)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert "Seat 0 basic" in r.stdout and "Seat 2 counter" in r.stdout
    assert "You: leaving after this round" in r.stdout and "final bankroll" in r.stdout


def test_evaluate_fixed_agents_and_the_counter_session():
    r = run("evaluate.py", "counter", "--rules", "vegas-strip", "--bet-sizes", "1,2,4,8",
            "--session", "20", "--hands", "400", "--json")
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    assert result["exact"] is None and "infinite deck" in result["exact_unavailable"]
    assert result["simulation"]["rounds"] == 400
    r = run("evaluate.py", "basic", "--rules", "vegas-strip", "--decks", "inf", "--hands", "400",
            "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["exact"]["regret"] == pytest.approx(0.0, abs=1e-12)


def test_evaluate_workers_give_the_same_figures_whatever_their_number():
    results = []
    for workers in ("1", "2"):
        r = run("evaluate.py", "basic", "--rules", "vegas-strip", "--hands", "70000",
                "--seed", "5", "--workers", workers, "--json")
        assert r.returncode == 0, r.stderr
        sim = json.loads(r.stdout)["simulation"]
        assert sim.pop("workers") == int(workers)
        results.append(sim)
    assert results[0] == results[1]
    assert results[0]["rounds"] >= 70000
    r = run("evaluate.py", "counter", "--rules", "vegas-strip", "--workers", "2")
    assert r.returncode == 2 and "fixed policies only" in r.stderr


def test_bad_options_give_clear_errors(tmp_path):
    r = run("train.py", "--algo", "sarsa", "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and "sarsa" in r.stderr and "q-learning" in r.stderr
    r = run("evaluate.py", str(tmp_path / "missing"))
    assert r.returncode == 2 and "does not exist" in r.stderr
    r = run("play.py", "--seats", "2", "--seat", "4", stdin="")
    assert r.returncode == 2 and "--seat 4" in r.stderr
    r = run("play.py", "--others", "nobody", "--seats", "2", stdin="")
    assert r.returncode == 2 and "unknown seat" in r.stderr
    r = run("train.py", "--algo", "ppo", "--obs-mode", "tuple", "--out", str(tmp_path / "y"))
    assert r.returncode == 2 and "tuple" in r.stderr
    r = run("evaluate.py", "basic", "--bet-sizes", "1,two")
    assert r.returncode == 2 and "--bet-sizes" in r.stderr


def test_hot_seat_round_through_piped_input():
    """Three people at one table through a real pipe: each named seat is asked in turn;
    a stacked shoe makes the dealer bust (see tests/scripts/test_other_commands.py)."""
    cards = "TS 8H 5C 6D 7S 8D 6C TD 3C 9H 2S 4H KS 7C"
    r = run("play.py", "--names", "Ann,Bob,Cy", "--cards", cards,
            stdin="10\n5\n20\ns\np\nd\nh\ns\nd\n")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    for line in ("Ann: final bankroll 110 (+10) after 1 round(s).",
                 "Bob: final bankroll 115 (+15) after 1 round(s).",
                 "Cy: final bankroll 140 (+40) after 1 round(s).",
                 "Leaving the table (end of input)."):
        assert line in r.stdout


def test_demo_simulate_and_a_bench_run_from_the_command_line(tmp_path):
    r = run("demo.py", "--rounds", "2")
    assert r.returncode == 0 and r.stdout.count("bankrolls:") == 2, r.stderr
    out = tmp_path / "sim.json"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    r = subprocess.run([sys.executable, "-m", "blackjack_env.simulate", "--policy", "dealer",
                        "--rules", "sutton-barto", "--hands", "1000", "--tables", "64",
                        "--rounds-per-table", "16", "--json", str(out)],
                       capture_output=True, text=True, timeout=240, env=env)
    assert r.returncode == 0, r.stderr
    assert "95% CI" in r.stdout and "rounded up" in r.stdout
    assert json.loads(out.read_text())["hands"] == 1024
    r = run("bench_engine.py", "--hands", "300", "--repeats", "1", "--json",
            str(tmp_path / "b.json"))
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "b.json").read_text())
    assert data["settings"]["hands"] == 300 and len(data["cases"]) == 3


def test_bench_composition_times_both_paths_and_checks_them(tmp_path):
    """One deck, one call each: the pure path and (where numba is installed) the
    kernels, the same return, and the return of composition_return itself."""
    from blackjack_env.analysis import composition_return, kernels
    from blackjack_env.engine import preset

    out = tmp_path / "b.json"
    r = run("bench_composition.py", "--decks", "1", "--repeats", "1", "--json", str(out))
    assert r.returncode == 0, r.stderr
    rows = json.loads(out.read_text())["rows"]
    assert [(row["decks"], row["pool"]) for row in rows] == [(1, "full"), (1, "depleted")]
    want = composition_return(preset("vegas-strip").replace(decks=1)).expected_return
    assert rows[0]["expected_return"] == pytest.approx(want, abs=1e-12)
    assert all(row["pure_s"] > 0 for row in rows)
    if kernels.AVAILABLE:
        assert all(0 < row["numba_s"] < row["pure_s"] for row in rows)


def test_bench_rule_sets_times_both_policies_with_the_same_figures(tmp_path):
    """Four held-out rule sets, in this process and in two workers: every row timed, the
    regrets those of grade_rule_sets (the script checks they agree across workers)."""
    from blackjack_env.agents.rule_sets import grade_rule_sets, load_rule_sets
    from blackjack_env.analysis import solve
    from blackjack_env.engine import preset

    out = tmp_path / "b.json"
    r = run("bench_rule_sets.py", "--rule-sets", "4", "--workers", "1", "2", "--json", str(out))
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    rows = data["rows"]
    assert [(row["policy"], row["workers"]) for row in rows] == [
        ("network", 1), ("network", 2), ("basic", 1), ("basic", 2)]
    assert all(row["seconds"] > 0 for row in rows) and data["rule_sets"] == 4
    basic = type("Basic", (), {"state_policy": solve(preset("vegas-strip", decks=None)
                                                     ).chart.action, "name": "b"})()
    want = grade_rule_sets(basic, load_rule_sets("held-out").rules[:4], workers=1).mean
    assert rows[2]["mean_regret"] == pytest.approx(want, abs=1e-15)
    assert "load average" in r.stdout


def test_bench_vector_times_several_seats_per_table(tmp_path):
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, str(SCRIPTS / "bench_vector.py"), "--seconds", "0.05", "--tables", "30",
         "--baseline-envs", "2", "--autoreset", "SameStep", "--seats", "3",
         "--json", str(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "3 learner seats per table" in proc.stdout
    rows = json.loads(out.read_text())["seats"]
    assert [(r["seats"], r["tables"], r["autoreset"]) for r in rows] == [(3, 10, "SameStep")]
    assert rows[0]["hands_per_s"] > 0 and rows[0]["parallel_hands_per_s"] > 0


@pytest.mark.slow
def test_bench_vector_times_a_rule_space(tmp_path):
    """``--rule-space v1``: every table under its own rule set (the 4,499 rule sets'
    tables are built first: tens of seconds, hence slow)."""
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, str(SCRIPTS / "bench_vector.py"), "--seconds", "0.05", "--tables", "64",
         "--baseline-envs", "2", "--autoreset", "SameStep", "--rule-space", "v1",
         "--json", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "rule space default-v1" in proc.stdout
    rows = json.loads(out.read_text())["rule_space"]
    assert rows[0]["rule_sets"] >= 4499 and rows[0]["hands_per_s"] > 0
