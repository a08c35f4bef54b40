"""The training-side commands (main, train, evaluate, chart) as a new user meets them.

* a table of bad inputs, run in-process: each ends with exit status 2, one line
  ``error: ...`` on stderr, no traceback, and no file written or changed (the folder's
  files, sizes and modification times compared before and after);
* the scripts before an install and Ctrl-C during start-up: one line;
* resuming never loses work: twice in a row, and after a crash that left a newer
  checkpoint than an old Ctrl-C state: the step count only grows and the curve keeps
  every earlier point;
* a budget is the budget (to within one rollout, said), and the grades follow it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from blackjack_env.agents.mlp import MLPAgent
from blackjack_env.commands import chart, evaluate, train
from blackjack_env.commands import main as main_job
from blackjack_env.envs.view import VECTOR_SIZE

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {"main": main_job, "train": train, "evaluate": evaluate, "chart": chart}


def snapshot(*folders: Path) -> dict[str, tuple[int, int]]:
    """Every file under the folders, with its size and modification time."""
    out = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            st = path.stat()
            out[str(path)] = (st.st_size, st.st_mtime_ns if path.is_file() else 0)
    return out


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A folder with a finished tabular run and broken model and settings files."""
    root = tmp_path_factory.mktemp("lab")
    run = root / "run"
    assert train.main(["--hands", "2000", "--out", str(run), "--no-progress",
                       "--curve-points", "1"]) == 0
    (root / "empty.npz").write_bytes(b"")
    full = (run / "model.npz").read_bytes()
    (root / "truncated.npz").write_bytes(full[: len(full) // 2])
    np.savez(root / "foreign.npz", weights=np.arange(3))
    (root / "random.npz").write_bytes(np.random.default_rng(0).bytes(3000))
    (root / "notes.txt").write_text("not a folder")
    for name, text in (("corrupt", "{not json"), ("listed", "[1, 2, 3]"),
                       ("mistyped", '{"algo": "q-learning", "seed": "one"}')):
        folder = root / name
        shutil.copytree(run, folder)
        (folder / "settings.json").write_text(text)
    (root / "empty-folder").mkdir()
    MLPAgent([(np.zeros((VECTOR_SIZE, 7)), np.zeros(7))],
             info={"bet_sizes": [1, 5]}).save(root / "bets.npz")
    return root


# (command, arguments with {lab} for the fixture folder, words the error line must hold)
BAD = [
    ("train", ["--hands", "0", "--out", "{lab}/new"], ["--hands 0"]),
    ("train", ["--algo", "ppo", "--timesteps", "-5", "--out", "{lab}/new"], ["--timesteps -5"]),
    ("train", ["--algo", "sarsa", "--out", "{lab}/new"], ["sarsa", "q-learning"]),
    ("train", ["--rules", "nope", "--out", "{lab}/new"], ["nope"]),
    ("train", ["--decks", "two", "--out", "{lab}/new"], ["--decks"]),
    ("train", ["--seed", "-1", "--out", "{lab}/new"], ["--seed -1"]),
    ("train", ["--algo", "ppo", "--torch-threads", "-1", "--out", "{lab}/new"],
     ["--torch-threads -1"]),
    ("train", ["--lr", "2", "--out", "{lab}/new"], ["--lr 2"]),
    ("train", ["--obs-mode", "vector", "--out", "{lab}/new"], ["vector"]),
    ("train", ["--algo", "ppo", "--obs-mode", "tuple", "--out", "{lab}/new"], ["tuple"]),
    ("train", ["--seat", "5", "--out", "{lab}/new"], ["seat"]),
    ("train", ["--out", "{lab}/notes.txt/run"], ["--out", "notes.txt"]),
    ("train", ["--out", "{lab}/notes.txt"], ["--out", "not a folder"]),
    ("train", ["--out", "{lab}/run", "--resume", "--rules", "vegas-strip", "--algo", "mc"],
     ["sutton-barto", "vegas-strip"]),
    ("train", ["--out", "{lab}/run", "--resume", "--algo", "mc", "--hands", "5000"],
     ["--algo q-learning"]),
    ("train", ["--out", "{lab}/run", "--resume", "--decks", "6", "--hands", "5000"], ["decks"]),
    ("train", ["--out", "{lab}/run", "--resume", "--obs-mode", "multidiscrete",
               "--hands", "5000"], ["--obs-mode tuple"]),
    ("train", ["--out", "{lab}/run", "--resume"], ["already trained 2,000 hands"]),
    ("train", ["--out", "{lab}/run", "--resume", "--hands", "1000"], ["--hands 1,000"]),
    ("train", ["--out", "{lab}/corrupt", "--resume", "--hands", "5000"],
     ["corrupt/settings.json", "not valid JSON"]),
    ("train", ["--out", "{lab}/listed", "--resume", "--hands", "5000"],
     ["listed/settings.json", "list"]),
    ("train", ["--out", "{lab}/empty-folder", "--resume"], ["no settings.json"]),
    ("train", ["--out", "{lab}/mistyped", "--resume", "--hands", "5000"],
     ["mistyped/settings.json", "seed is 'one'"]),
    ("evaluate", ["{lab}/empty.npz"], ["empty.npz", "not a tabular model"]),
    ("evaluate", ["{lab}/truncated.npz"], ["truncated.npz", "not a tabular model"]),
    ("evaluate", ["{lab}/foreign.npz"], ["foreign.npz", "lacks the arrays"]),
    ("evaluate", ["{lab}/random.npz"], ["random.npz", "not a NumPy .npz archive"]),
    ("evaluate", ["{lab}/missing"], ["does not exist"]),
    ("evaluate", ["{lab}/corrupt"], ["corrupt/settings.json"]),
    ("evaluate", ["{lab}/listed"], ["listed/settings.json"]),
    ("evaluate", ["{lab}/run", "--rules", "vegas-strip"],
     ["trained on other rules", "sutton-barto", "2 actions, here 5"]),
    ("evaluate", ["{lab}/bets.npz", "--rules", "vegas-strip"],
     ["bets.npz", "decides its bets too (bet sizes 1, 5)", "model.npz"]),
    ("chart", ["{lab}/bets.npz", "--rules", "vegas-strip"], ["decides its bets too"]),
    ("evaluate", ["basic", "--hands", "0"], ["--hands 0"]),
    ("evaluate", ["basic", "--hands", "-3"], ["--hands -3"]),
    ("evaluate", ["basic", "--session", "0"], ["--session 0"]),
    ("evaluate", ["basic", "--workers", "-1"], ["--workers -1"]),
    ("evaluate", ["basic", "--rules", "nope"], ["nope"]),
    ("evaluate", ["basic", "--decks", "9"], ["decks"]),
    ("evaluate", ["basic", "--bet-sizes", "1,two"], ["--bet-sizes"]),
    ("evaluate", ["counter", "--rules", "vegas-strip", "--workers", "2"],
     ["fixed policies only"]),
    ("evaluate", ["basic", "--hands", "100", "--out", "{lab}/notes.txt/r.json"],
     ["--out", "notes.txt"]),
    ("evaluate", ["basic", "--hands", "100", "--out", "{lab}/run"], ["--out", "is a folder"]),
    ("chart", ["random"], ["random", "no fixed policy"]),
    ("chart", ["never-bust"], ["never-bust", "basic, dealer, stand"]),
    ("chart", ["counter", "--rules", "vegas-strip"], ["counter", "chart basic"]),
    ("chart", ["{lab}/empty.npz"], ["empty.npz"]),
    ("chart", ["{lab}/truncated.npz"], ["truncated.npz"]),
    ("chart", ["{lab}/foreign.npz"], ["foreign.npz"]),
    ("chart", ["{lab}/random.npz"], ["random.npz"]),
    ("chart", ["{lab}/corrupt"], ["corrupt/settings.json"]),
    ("chart", ["{lab}/run", "--rules", "vegas-strip"], ["trained on other rules"]),
    ("chart", ["basic", "--png", "{lab}/notes.txt/c.png"], ["--png", "notes.txt"]),
    ("chart", ["basic", "--png", "{lab}/run"], ["--png", "is a folder"]),
    ("chart", ["basic", "--rules", "nope"], ["nope"]),
    ("chart", ["basic", "--out", "{lab}/notes.txt"], ["--out", "not a folder"]),
    ("chart", ["basic", "--out", "{lab}/notes.txt/charts"], ["--out", "notes.txt"]),
    ("chart", ["basic", "--out", "{lab}/c", "--png", "{lab}/c.png"], ["--png", "--out"]),
    ("main", ["--rules", "vegas-strip", "--out", "{lab}/run"], ["vegas-strip", "infinite deck"]),
    ("main", ["--rules", "vegas-strip", "--out", "{lab}/new"], ["--decks inf"]),
    ("main", ["--rules", "terminal-21", "--out", "{lab}/new"], ["highest-hand"]),
    ("main", ["--rules", "terminal-21", "--decks", "inf", "--out", "{lab}/new"],
     ["highest-hand"]),
    ("main", ["--hands", "0", "--out", "{lab}/run"], ["--hands 0"]),
    ("main", ["--hands", "-10", "--out", "{lab}/new"], ["--hands -10"]),
    ("main", ["--eval-hands", "1", "--out", "{lab}/new"], ["--eval-hands 1"]),
    ("main", ["--algo", "ppo", "--out", "{lab}/new"], ["ppo"]),
    ("main", ["--seed", "-2", "--out", "{lab}/new"], ["--seed -2"]),
    ("main", ["--out", "{lab}/notes.txt/main"], ["--out", "notes.txt"]),
]


@pytest.mark.parametrize(("command", "args", "words"), BAD,
                         ids=[f"{c}:{' '.join(a)}" for c, a, _ in BAD])
def test_a_bad_input_is_one_line_and_changes_nothing(lab, tmp_path, monkeypatch, capsys,
                                                     command, args, words):
    monkeypatch.chdir(tmp_path)  # default outputs (runs/...) would land here
    argv = [a.replace("{lab}", str(lab)) for a in args]
    before = snapshot(lab, tmp_path)
    status = COMMANDS[command].main(argv)
    err = capsys.readouterr().err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for word in words:
        assert word.replace("{lab}", str(lab)) in lines[0], (word, lines[0])
    assert snapshot(lab, tmp_path) == before, "a refused command changed files"


#: Every command script in scripts/ (each starts through scripts/_launch.py) and its extra.
SCRIPTS = {"analyze": ".", "bench": '".[bench]"', "chart": '".[main]"', "counter": ".", "demo": ".",
           "evaluate": '".[main]"', "main": '".[main]"', "play": ".", "train": '".[main]"',
           "web": '".[web]"'}


def test_every_command_script_is_listed():
    from blackjack_env import commands

    modules = {p.stem for p in Path(commands.__file__).parent.glob("*.py")} - {"__init__"}
    assert set(SCRIPTS) == modules
    assert all((ROOT / "scripts" / f"{name}.py").exists() for name in SCRIPTS)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_a_script_before_the_install_says_what_to_run(name, tmp_path):
    # -S: no site-packages, so blackjack_env cannot be imported (as before any install)
    r = subprocess.run([sys.executable, "-S", str(ROOT / "scripts" / f"{name}.py")],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip() == ('error: blackjack_env is not installed: run pip install -e '
                                f'{SCRIPTS[name]}')
    assert r.stdout == ""


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_ctrl_c_during_start_up_is_one_line(name, tmp_path):
    fake = tmp_path / "blackjack_env"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise KeyboardInterrupt\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / f"{name}.py")],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path, env=env)
    assert r.returncode == 130
    assert r.stderr.strip() == "error: interrupted"


def _curve(out: Path) -> dict:
    return json.loads((out / "curve.json").read_text())


def _is_extension(before: list, after: list) -> bool:
    return after[: len(before)] == before


def test_tabular_resume_twice_after_ctrl_c_never_loses_work(tmp_path, monkeypatch, capsys):
    from blackjack_env.agents.tabular import QLearningAgent

    out = tmp_path / "run"
    real = QLearningAgent.train_episode

    def interrupted(self, env, epsilon, seed=None):
        if self.episodes_done == 1500:
            raise KeyboardInterrupt
        return real(self, env, epsilon, seed)

    monkeypatch.setattr(QLearningAgent, "train_episode", interrupted)
    args = ["--out", str(out), "--no-progress", "--curve-points", "4"]
    assert train.main([*args, "--hands", "3000"]) == 130  # Ctrl-C: saved, then status 130
    assert capsys.readouterr().err == "error: interrupted\n"
    monkeypatch.setattr(QLearningAgent, "train_episode", real)
    first = json.loads((out / "summary.json").read_text())
    assert first["hands"] == 1500 and not first["finished"]
    assert (out / "checkpoint.npz").exists() and not (out / "model.npz").exists()
    stale = tmp_path / "stale.npz"
    shutil.copy(out / "checkpoint.npz", stale)
    curve1 = _curve(out)
    settings1 = json.loads((out / "settings.json").read_text())

    assert train.main([*args, "--resume"]) == 0  # the run's own budget: 3000
    assert "resuming" in capsys.readouterr().out
    second = json.loads((out / "summary.json").read_text())
    assert second["hands"] == 3000 and second["finished"]
    assert not (out / "checkpoint.npz").exists() and (out / "model.npz").exists()
    curve2 = _curve(out)

    shutil.copy(stale, out / "checkpoint.npz")  # an old Ctrl-C state left behind
    assert train.main([*args, "--resume", "--hands", "4000"]) == 0
    said = capsys.readouterr().out
    assert f"resuming {out / 'model.npz'} at 3,000 hands" in said
    third = json.loads((out / "summary.json").read_text())
    assert third["hands"] == 4000 and third["finished"]
    assert not (out / "checkpoint.npz").exists()
    curve3 = _curve(out)
    for key in ("blocks", "grades"):
        assert _is_extension(curve1[key], curve2[key]) and _is_extension(curve2[key], curve3[key])
        steps = [p[0] for p in curve3[key]]
        assert steps == sorted(set(steps)) and steps[-1] == 4000
    assert curve3["grades"][0][0] <= 1500 and len(curve3["blocks"]) > len(curve1["blocks"])
    settings3 = json.loads((out / "settings.json").read_text())
    assert {k: v for k, v in settings3.items() if k != "hands"} == \
        {k: v for k, v in settings1.items() if k != "hands"}
    assert settings3["hands"] == 4000


SB3_TINY = ["--algo", "maskable-ppo", "--rules", "vegas-strip", "--decks", "inf",
            "--n-envs", "2", "--n-steps", "64", "--eval-freq", "512", "--eval-episodes", "10",
            "--checkpoint-freq", "512", "--curve-points", "4", "--seed", "3"]


def test_sb3_resume_after_a_crash_takes_the_newest_checkpoint(tmp_path, monkeypatch, capsys):
    """A finished 2,048-step run; an old Ctrl-C state (512 steps) left as interrupted.zip;
    a resume to 4,096 that crashes at 3,072 after a checkpoint there; then --resume picks
    the 3,072 checkpoint (not the older model.zip or interrupted.zip) and finishes, with
    every earlier point of the curve kept."""
    pytest.importorskip("sb3_contrib")
    import blackjack_env.agents.sb3 as sb3

    out = tmp_path / "ppo"
    base = [*SB3_TINY, "--out", str(out), "--no-progress"]
    assert train.main([*base, "--timesteps", "2048"]) == 0
    assert json.loads((out / "summary.json").read_text())["timesteps"] == 2048
    shutil.copy(out / "checkpoints" / "maskable-ppo_512_steps.zip", out / "interrupted.zip")
    curve1 = _curve(out)

    real = sb3.exact_curve_callback

    def crashing(*args, **kwargs):
        callback = real(*args, **kwargs)
        inner = callback._on_rollout_start

        def start():
            inner()
            if callback.num_timesteps >= 3072:
                raise RuntimeError("the machine went down")

        callback._on_rollout_start = start
        return callback

    monkeypatch.setattr(sb3, "exact_curve_callback", crashing)
    monkeypatch.setattr(train, "exact_curve_callback", crashing)  # imported at its top
    with pytest.raises(RuntimeError):
        train.run(train.Settings(out=str(out), resume=True, timesteps=4096, progress=False))
    monkeypatch.setattr(sb3, "exact_curve_callback", real)
    monkeypatch.setattr(train, "exact_curve_callback", real)
    assert (out / "checkpoints" / "maskable-ppo_3072_steps.zip").exists()
    capsys.readouterr()

    assert train.main(["--out", str(out), "--resume", "--timesteps", "4096", "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "maskable-ppo_3072_steps.zip at 3,072 timesteps" in said
    summary = json.loads((out / "summary.json").read_text())
    assert summary["timesteps"] == 4096 and summary["finished"]
    assert not (out / "interrupted.zip").exists()
    curve = _curve(out)
    grades = [g[0] for g in curve["grades"]]
    assert grades == sorted(set(grades)) and grades[-1] == 4096
    assert _is_extension(curve1["grades"], curve["grades"])
    assert any(2048 < g <= 3072 for g in grades)  # graded by the crashed stretch, kept
    evals = [e[0] for e in curve["evaluations"]]
    assert evals == sorted(set(evals)) and _is_extension(curve1["evaluations"],
                                                         curve["evaluations"])
    assert any(2048 < e <= 3072 for e in evals) and evals[-1] == 4096
    blocks = [b[0] for b in curve["blocks"]]
    assert blocks == sorted(blocks) and blocks[0] < 1024 and blocks[-1] > 3072
    assert any(2048 < b <= 3072 for b in blocks)


def test_sb3_default_progress_bar_and_the_budget_is_the_budget(tmp_path, capsys):
    """The default (progress bar on) trains; 2,048 timesteps are 2,048 with the
    default rollout (which would be 8,192), graded a few times, not once per step."""
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("rich")
    out = tmp_path / "ppo"
    assert train.main(["--algo", "maskable-ppo", "--rules", "vegas-strip", "--decks", "inf",
                       "--timesteps", "2048", "--eval-freq", "1024", "--eval-episodes", "10",
                       "--out", str(out)]) == 0
    said = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert summary["timesteps"] == 2048
    # the model used under other rules: one line naming the rules it was trained on
    assert evaluate.main([str(out), "--rules", "sutton-barto", "--hands", "100"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "trained on other rules (vegas-strip" in err
    assert json.loads((out / "settings.json").read_text())["hyperparameters"]["n_steps"] == 512
    assert said.count("exact return") <= 10 + 1

    out2 = tmp_path / "ppo2"
    assert train.main([*SB3_TINY, "--n-steps", "512", "--timesteps", "1500", "--out", str(out2),
                       "--no-progress"]) == 0
    said = capsys.readouterr().out
    steps = json.loads((out2 / "summary.json").read_text())["timesteps"]
    assert steps == 2048  # one rollout of 512 x 2 envs = 1,024: 1,500 rounds up to 2,048
    assert "whole rollouts of 1,024 timesteps" in said and "ends at 2,048" in said
    # one torch thread by default: used, recorded in the settings and the summary, said
    assert json.loads((out2 / "settings.json").read_text())["torch_threads"] == 1
    assert json.loads((out2 / "summary.json").read_text())["torch_threads"] == 1
    assert "(finished, 1 torch thread)" in said and not any(
        line.startswith("{") for line in said.splitlines())


def test_settings_json_records_what_was_used(lab):
    settings = json.loads((lab / "run" / "settings.json").read_text())
    assert settings["decks"] == "inf" and settings["seats"] == 1
    assert settings["obs_mode"] == "tuple" and settings["lr"] is None
    assert settings["lr_power"] == 0.8 and settings["step_size"] == "1/N(s,a)^0.8"
    assert "" not in settings.values() and settings["rules_fields"]["decks"] is None
    assert "timesteps" not in settings and "n_envs" not in settings  # SB3 options, unread


def test_chart_lists_forty_differences_and_counts_the_rest():
    diffs = [{"kind": "hard", "row": 12 + i % 5, "upcard": "T"} for i in range(45)]
    text = chart.differences_text(diffs)
    assert text.startswith("45 cell(s) differ") and text.endswith("and 5 more")
    assert text.count(" v 10") == 40 and " v T" not in text
    pairs = chart.differences_text([{"kind": "pair", "row": "T", "upcard": "A"}])
    assert pairs.endswith("pair 10,10 v A")


def test_z_value_is_the_normal_quantile():
    from blackjack_env.cli import z_value

    # 1.959963984540054: the 97.5% point of the standard normal (tables, scipy.stats.norm.ppf)
    assert z_value(0.95) == pytest.approx(1.959963984540054, abs=1e-12)
    assert z_value(0.99) == pytest.approx(2.5758293035489004, abs=1e-12)


def test_evaluate_workers_simulates_what_was_asked_or_says_so(capsys):
    assert evaluate.main(["basic", "--rules", "vegas-strip", "--workers", "1", "--hands",
                          "5000", "--seed", "2"]) == 0
    said = capsys.readouterr().out
    # 5,000 rounds: one chunk of 79 tables x 64 rounds = 5,056 (was 65,536, silently)
    assert "simulated 5,056 rounds" in said and "asked for 5,000" in said
    assert "95% CI" in said


def test_batched_plan_is_tight():
    for hands in (1, 63, 64, 65, 5000, 65_536, 65_537, 200_000, 1_000_000):
        tables, chunks = evaluate.batched_plan(hands)
        played = tables * chunks * 64
        assert hands <= played < hands + chunks * 64
        assert tables <= 1024


def test_the_main_job_needs_no_torch_and_lists_every_file(tmp_path):
    """torch and stable-baselines3 made unimportable: the main job still runs (the [main]
    extra is enough), and its file list names every file it wrote."""
    out = tmp_path / "main"
    code = (
        "import sys\n"
        "class Block:  # any import of torch or stable-baselines3 fails\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'stable_baselines3', 'sb3_contrib'):\n"
        "            raise ImportError(f'{name} is blocked in this test')\n"
        "sys.meta_path.insert(0, Block())\n"
        "from blackjack_env.commands.main import main\n"
        f"sys.exit(main(['--hands', '3000', '--eval-hands', '500', '--out', {str(out)!r},\n"
        "                 '--no-progress']))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert r.returncode == 0, r.stderr
    files = json.loads((out / "main.json").read_text())["files"]
    for name in ("model", "settings", "summary", "curve", "learning_curve", "chart", "main"):
        assert Path(files[name]).exists() and files[name] in r.stdout, name
    written = {p.name for p in out.iterdir()}
    assert written == {Path(f).name for f in files.values()}


def test_ctrl_c_in_the_main_job_saves_the_training_and_stops(tmp_path, monkeypatch, capsys):
    from blackjack_env.agents.tabular import QLearningAgent

    real = QLearningAgent.train_episode

    def interrupted(self, env, epsilon, seed=None):
        if self.episodes_done == 700:
            raise KeyboardInterrupt
        return real(self, env, epsilon, seed)

    monkeypatch.setattr(QLearningAgent, "train_episode", interrupted)
    out = tmp_path / "main"
    assert main_job.main(["--hands", "2000", "--out", str(out), "--no-progress"]) == 130
    said = capsys.readouterr()
    assert said.err.strip() == "error: interrupted" and "--resume" in said.out
    assert (out / "checkpoint.npz").exists() and not (out / "main.json").exists()
    monkeypatch.setattr(QLearningAgent, "train_episode", real)
    assert train.main(["--out", str(out), "--resume", "--no-progress"]) == 0
    assert json.loads((out / "summary.json").read_text())["hands"] == 2000


def test_a_fixed_agent_that_reads_the_live_table_is_not_graded_with_nonsense(capsys):
    """never-bust has no policy over the analysis's states: its exact grade is n/a (it used
    to be asked about states while reading an unrelated table: 'regret 0.64'), while its
    simulated return is that of a reasonable player."""
    assert evaluate.main(["never-bust", "--rules", "vegas-strip", "--decks", "inf",
                          "--hands", "3000", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["exact"] is None and "live table" in result["exact_unavailable"]
    assert result["simulation"]["mean_return"] > -0.3
    assert evaluate.main(["dealer", "--rules", "vegas-strip", "--decks", "inf", "--hands", "200",
                          "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["exact"]["regret"] > 0


def test_chart_writes_into_its_out_folder_never_the_working_directory(lab, tmp_path,
                                                                      monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert chart.main(["basic"]) == 0
    default = Path("runs") / "charts" / "chart-basic-sutton-barto.png"
    assert default.exists() and f"picture: {default}" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["runs"]
    folder = tmp_path / "pictures"
    assert chart.main(["basic", "--rules", "vegas-strip", "--out", str(folder)]) == 0
    assert [p.name for p in folder.iterdir()] == ["chart-basic-vegas-strip.png"]
    assert chart.main([str(lab / "run"), "--out", str(folder)]) == 0  # a model: chart.png
    assert (folder / "chart.png").exists() and not (lab / "run" / "chart.png").exists()


def test_evaluate_says_what_is_slow_before_doing_it(monkeypatch, capsys):
    """Basic strategy on a finite shoe: one line on stderr before its chart is derived (what,
    why, the fast option), and the seconds it took reported apart from the simulation's."""
    import blackjack_env.analysis as analysis

    real = analysis.basic_strategy_chart
    said_before: list[str] = []

    def derive(rules):
        said_before.append(capsys.readouterr().err)
        return real(rules)

    monkeypatch.setattr(analysis, "basic_strategy_chart", derive)
    monkeypatch.setattr(evaluate, "basic_strategy_chart", derive)  # imported at its top
    assert evaluate.main(["basic", "--rules", "vegas-strip", "--decks", "2", "--hands",
                          "200"]) == 0
    note = said_before[0].strip().splitlines()
    assert len(note) == 1 and note[0].startswith(
        "note: basic strategy for vegas-strip's 2-deck shoe is derived first by exact "
        "combinatorial analysis") and "--decks inf" in note[0]
    said = capsys.readouterr()
    assert "chart of this shoe: derived in" in said.out and "note:" not in said.err
    # an infinite deck derives nothing: no note
    assert evaluate.main(["basic", "--rules", "vegas-strip", "--decks", "inf", "--hands",
                          "200"]) == 0
    assert "note:" not in capsys.readouterr().err


def test_evaluate_notice_and_reason_under_terminal_21(capsys):
    """terminal-21's 1-deck chart is the slow one (custom card values): the note says so;
    its exact grade is n/a for its settlement, on any shoe, so no --decks inf advice."""
    settings = evaluate.Settings(agent="basic", rules="terminal-21", hands=10)
    chart_rules = evaluate.finite_chart_rules(settings, evaluate.prepare(settings))
    assert chart_rules.settlement.value == "dealer"  # the nearest rules the analysis serves
    note = evaluate.chart_notice(chart_rules, "terminal-21")
    assert "terminal-21's 1-deck shoe" in note and "custom card values" in note
    capsys.readouterr()
    assert evaluate.main(["basic", "--rules", "terminal-21", "--decks", "inf", "--hands",
                          "300", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert "highest-hand" in result["exact_unavailable"]
    assert "--decks inf" not in result["exact_unavailable"]
    assert evaluate.main(["basic", "--rules", "terminal-21", "--decks", "inf", "--hands",
                          "300"]) == 0
    said = capsys.readouterr()
    assert "the simulated return is the grade here" in said.out
    # the chart played for the nearest rules served: one note line, not Python's warning
    assert "note: basic strategy: the exact analysis does not serve these rules" in said.err
    assert "UserWarning" not in said.err and "return BasicStrategy" not in said.err


def test_train_on_rules_the_analysis_never_serves_trains_and_says_why_not_graded(tmp_path,
                                                                                capsys):
    out = tmp_path / "t21"
    assert train.main(["--rules", "terminal-21", "--decks", "inf", "--hands", "1000", "--out",
                       str(out), "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "exact grade: n/a (the exact analysis does not serve these rules" in said
    assert json.loads((out / "summary.json").read_text())["exact"] is None


def test_train_decks_none_is_the_infinite_deck_as_in_every_command(tmp_path, capsys):
    """tyro reads a bare ``None`` as the option left out; ``--decks`` keeps it as text, so
    ``--decks None`` means what it means to evaluate and analyze (an infinite deck), not
    the preset's six decks."""
    out = tmp_path / "run"
    assert train.main(["--rules", "vegas-strip", "--decks", "None", "--hands", "500",
                       "--no-progress", "--out", str(out)]) == 0
    settings = json.loads((out / "settings.json").read_text())
    assert settings["decks"] == "inf" and settings["rules_fields"]["decks"] is None


@pytest.mark.parametrize(("regrets", "model", "median", "says"), [
    ([0.0024, 0.00106], 1, 0.00173, "the better of the two middle seeds"),
    ([0.004, 0.001, 0.003, 0.002], 3, 0.0025, "the better of the two middle seeds"),
    ([0.003, 0.001, 0.002], 2, 0.002, "the median seed"),
])
def test_jax_ppo_says_what_its_median_is_and_which_seed_is_saved(regrets, model, median,
                                                                   says) -> None:
    """Issue 33 (16): with 2 seeds jax-ppo printed "median 0.00173" and "the model is seed 1
    (the median)", whose regret was 0.00106. The median stays the statistic (the mean of
    the two middle seeds for an even count); the model is the better middle seed, and its
    own regret is printed beside it."""
    pytest.importorskip("jax")
    from blackjack_env.agents.jax_ppo import JaxPPOConfig, SeedsResult
    from blackjack_env.commands.train import summary_text

    n = len(regrets)
    grades = [[{"regret": r, "exact_return": -0.005 - r, "optimal_return": -0.005,
                "split_states_depending_on_hand_index": 0}] for r in regrets]
    result = SeedsResult(config=JaxPPOConfig(seeds=n), agents=[[] for _ in regrets],
                         grades=grades, timesteps=[1000], train_seconds=1.0,
                         compile_seconds=0.5, grade_seconds=0.1,
                         metrics={"illegal_actions": np.zeros((n, 1))})
    figures = result.summary()
    assert figures["regret_median"] == pytest.approx(median) == pytest.approx(np.median(regrets))
    assert figures["median_seed"] == model
    assert figures["median_seed_regret"] == regrets[model]
    summary = {"algo": "jax-ppo", "rules": "vegas-strip", "rules_summary": "rules",
               "timesteps": 1000, "seconds": 1.0, "finished": True,
               "exact": grades[model][-1], "model": "run/model.npz", "model_seed": model,
               **figures}
    text = "\n".join(summary_text(summary))
    even = "" if n % 2 else " (the mean of the two middle seeds)"
    assert f"median {median:.5f}{even}, worst {max(regrets):.5f}" in text, text
    assert f"the model is seed {model}, regret {regrets[model]:.5f}: {says}" in text, text
    assert "(the median)" not in text
    assert f"regret                            {regrets[model]:.5f}" in text  # its exact grade
