"""Runs of the benchmark end to end at a tiny budget (every task), their results files
(schema, versions, resuming after Ctrl-C), the table's plan, and the command's refusals."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from blackjack_env.agents.tabular import QLearningAgent
from blackjack_env.bench import TASKS, run, table_steps
from blackjack_env.bench.results import ResultsError, read_results, validate, write_results
from blackjack_env.bench.runner import table, table_log
from blackjack_env.commands import bench as command


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("name", ["v1-play", "vegas-play", "shoe-play"])
def test_a_play_task_end_to_end(name: str, tiny: int, tmp_path: Path) -> None:
    path, data = run(name, "q-learning", seeds=2, out=tmp_path, say=lambda _: None)
    assert path == tmp_path / f"{name}-v1" / f"q-learning-{tiny}.json"
    assert read_results(path) == data
    assert [r["seed"] for r in data["runs"]] == [0, 1]
    for r in data["runs"]:
        assert r["budget"] == tiny and tiny <= r["env_steps"] < tiny + 20
        assert 0 < r["grade"]["score"] < 0.5 and r["grade"]["measured"] == "exact"
    assert data["algo"]["settings"]["obs_mode"] == ("tuple" if name == "v1-play"
                                                    else "multidiscrete")
    assert data["machine"]["cores"] >= 1 and data["software"]["blackjack_env"]


def test_the_bets_task_end_to_end(tmp_path: Path) -> None:
    _, data = run("spread-bet", "hi-lo", out=tmp_path, say=lambda _: None)
    (only,) = data["runs"]
    assert data["budgets"] == [] and data["seeds"] == [] and only["seed"] is None
    assert 0.2 < only["grade"]["score"] < 0.8


@pytest.mark.slow  # JAX's compilation: 20-60 s a task
@pytest.mark.parametrize("name", ["spread-bet", "shoe-play"])
def test_jax_ppo_end_to_end(name: str, tiny: int, tmp_path: Path) -> None:
    """The JAX learner on the bets task (its bets graded) and on the shoe task (the JAX
    table with the shoe hidden, its play graded off the full shoe)."""
    pytest.importorskip("jax")
    _, data = run(name, "jax-ppo", seeds=2, out=tmp_path, say=lambda _: None,
                  overrides={"num_envs": 16, "num_steps": 8, "num_minibatches": 2})
    assert [r["seed"] for r in data["runs"]] == [0, 1]
    assert all(r["env_steps"] == tiny for r in data["runs"])
    for r in data["runs"]:
        assert -1 < r["grade"]["score"] <= 1 if name == "spread-bet" else \
            0 < r["grade"]["score"] < 0.5


def test_an_sb3_learner_end_to_end(tiny: int, tmp_path: Path) -> None:
    pytest.importorskip("stable_baselines3")
    _, data = run("v1-play", "ppo", seeds=1, out=tmp_path, say=lambda _: None)
    (only,) = data["runs"]
    assert only["env_steps"] == tiny and 0 < only["grade"]["score"] < 0.5


def test_ctrl_c_keeps_the_finished_seeds_and_the_rerun_gives_the_same_file(
        tiny: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole, _ = run("vegas-play", "q-learning", seeds=3, out=tmp_path / "whole",
                   say=lambda _: None)
    real = QLearningAgent.train_episode
    calls = {"n": 0}

    def interrupted(self, env, epsilon, seed=None):
        calls["n"] += 1
        if self.seed == 1 and self.episodes_done == 500:
            raise KeyboardInterrupt
        return real(self, env, epsilon, seed)

    monkeypatch.setattr(QLearningAgent, "train_episode", interrupted)
    out = tmp_path / "cut"
    with pytest.raises(KeyboardInterrupt):
        run("vegas-play", "q-learning", seeds=3, out=out, say=lambda _: None)
    assert not list(out.glob("vegas-play-v1/*.json"))  # no results file for a cut run
    assert (out / f".work/vegas-play-v1/q-learning/{tiny}/seed-0/unit.json").is_file()
    monkeypatch.setattr(QLearningAgent, "train_episode", real)
    said: list[str] = []
    _path, data = run("vegas-play", "q-learning", seeds=3, out=out, say=said.append)
    assert any("1 unit(s) read back" in line for line in said)
    def timeless(runs):
        return [{k: v for k, v in r.items() if "seconds" not in k} for r in runs]

    assert timeless(data["runs"]) == timeless(json.loads(whole.read_text())["runs"])


def test_a_results_file_of_another_version_is_refused(tiny: int, tmp_path: Path) -> None:
    _path, data = run("v1-play", "optimum", out=tmp_path, say=lambda _: None)
    validate(data)
    cases = {
        "results of v1-play-v2; this package defines v1-play-v1": ("task", "version", 2),
        "as it was defined elsewhere (fingerprint 0000000000000000": (
            "task", "fingerprint", "0" * 16),
        "results of an unknown task 'poker'": ("task", "name", "poker"),
        "not a results file of schema": ("algo", "kind", "guessed"),
    }
    for message, (part, key, value) in cases.items():
        bad = copy.deepcopy(data)
        bad[part][key] = value
        with pytest.raises(ResultsError, match=message.replace("(", r"\(")):
            validate(bad)
    other = copy.deepcopy(data)
    other["schema"] = "blackjack_env.bench/results/2"
    with pytest.raises(ResultsError, match=r"written with the results schema .*/2"):
        validate(other)
    late = copy.deepcopy(data)
    late["runs"][0]["budget"] = 5 * tiny
    with pytest.raises(ResultsError, match="a budget v1-play does not define"):
        validate(late)
    with pytest.raises(ResultsError, match="required property"):
        write_results(tmp_path / "x.json", {k: v for k, v in data.items() if k != "runs"})
    assert not (tmp_path / "x.json").exists()


def test_the_table_runs_references_then_budgets_and_skips_what_it_holds(
        tiny: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    steps = table_steps()
    kinds = [s.budget is None for s in steps]
    assert kinds == sorted(kinds, reverse=True)  # every reference first
    assert {(s.task.name, s.algo.name) for s in steps} == {
        (t.name, a) for t in TASKS.values() for a in t.baselines}
    monkeypatch.setitem(TASKS, "v1-play", TASKS["v1-play"].__class__(
        **{**TASKS["v1-play"].__dict__, "baselines": ("optimum", "stand", "q-learning")}))
    done = table(tmp_path, tasks=["v1-play"], seeds=2, say=lambda _: None)
    assert [(s.algo.name, s.budget) for s in done] == [("optimum", None), ("stand", None),
                                                        ("q-learning", tiny)]
    assert table(tmp_path, tasks=["v1-play"], seeds=2, say=lambda _: None) == []
    # the first table logged what it did (the second had nothing to do: no record)
    (record,) = table_log(tmp_path)
    assert record["status"] == "finished" and record["runs"] == record["runs_done"] == 3
    assert record["runs_already_there"] == 0 and record["budgets"] is None
    assert record["command"] == (f"blackjack-bench table --out {tmp_path} --tasks v1-play "
                                 "--seeds 2 --jobs 1")
    assert record["wall_seconds"] > 0 and record["cpu_seconds"] > 0
    assert record["machine"]["cores"] and "git_revision" in record["software"]
    (tmp_path / "v1-play-v1" / "stand.json").unlink()  # a table interrupted at once

    def interrupt(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("blackjack_env.bench.runner.run", interrupt)
    with pytest.raises(KeyboardInterrupt):
        table(tmp_path, tasks=["v1-play"], seeds=2, say=lambda _: None)
    last = table_log(tmp_path)[-1]
    assert last["status"] == "interrupted" and last["runs_already_there"] == 2
    assert last["runs_done"] == 0
    (tmp_path / "table-log.jsonl").write_text("[1]\n")
    with pytest.raises(ValueError, match=r"table-log\.jsonl, line 1: not a JSON object"):
        table_log(tmp_path)


def _main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = command.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("argv", "words"), [
    (["run", "poker", "--algo", "ppo"], "unknown task 'poker'"),
    (["run", "vegas-play", "--algo", "ppo", "--budgets", "5e5"],
     "defines the budgets 1e5, 1e6, 1e7 env steps, not 5e5"),
    (["run", "vegas-play", "--algo", "ppo", "--budgets", "lots"], "give env steps as a number"),
    (["run", "vegas-play", "--algo", "hi-lo"], "hi-lo does not apply to vegas-play"),
    (["run", "vegas-play", "--algo", "optimum", "--budgets", "1e5"], "it has no budget"),
    (["run", "vegas-play", "--algo", "ppo", "--seeds", "0"], "--seeds 0"),
    (["grade", "v1-play", "nowhere.zip"], "nowhere.zip: no such file or folder"),
    (["grade", "v1-play", "math:pi"], "math:pi: math has no callable pi"),
    (["grade", "v1-play", "math:floor", "--obs-mode", "dict"],
     "graded on the observation modes tuple, multidiscrete, vector, not 'dict'"),
    (["grade", "v1-play", "math:floor", "--out", "OUT"], "give --name"),
    (["grade", "v1-play", "math:floor", "--out", "OUT", "--name", "x", "--budget", "3e5"],
     "not 3e5"),
    (["report", "nowhere"], "nowhere: not a folder of results files"),
    (["table", "--budgets", "2e5", "--out", "OUT"], "--budgets 2e5: the tasks define"),
    (["run", "vegas-play", "--algo", "ppo", "--nope"], "Unrecognized options: --nope"),
])
def test_wrong_input_is_one_line_and_writes_nothing(
        argv: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    before = _snapshot(tmp_path)
    code, _out, err = _main(argv, capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    assert words in lines[0], lines[0]
    assert _snapshot(tmp_path) == before and not (tmp_path / "OUT").exists()


def test_a_policy_of_another_table_is_refused_by_the_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agent = QLearningAgent(5, obs_mode="multidiscrete", seed=0)
    agent.save(tmp_path / "q.npz")
    code, _, err = _main(["grade", "v1-play", str(tmp_path / "q.npz"), "--json",
                          str(tmp_path / "g.json")], capsys)
    assert code == 2 and "has 5 actions; v1-play's table has 2 (STAND, HIT)" in err
    assert not (tmp_path / "g.json").exists()


def test_report_refuses_a_folder_with_a_file_of_another_version(
        tiny: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, data = run("v1-play", "optimum", out=tmp_path, say=lambda _: None)
    old = copy.deepcopy(data)
    old["task"]["version"] = 0 + 1 + 1
    (path.parent / "old.json").write_text(json.dumps(old))
    code, out, err = _main(["report", str(tmp_path), "--out", str(tmp_path / "rep")], capsys)
    assert code == 2 and "old.json: results of v1-play-v2" in err and out == ""
    assert not (tmp_path / "rep").exists()


def test_a_submitted_row(tiny: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "mine.py"
    policy.write_text("def hit(obs):\n    return int(obs[0] < 16)\n\n"
                      "def stand(obs):\n    return 0\n")
    code, _out, err = _main(["grade", "v1-play", f"{policy}:hit", f"{policy}:stand",
                            "--out", str(tmp_path / "res"), "--name", "mine",
                            "--budget", str(tiny)], capsys)
    assert code == 0, err
    (path,) = (tmp_path / "res").rglob("mine-*.json")
    data = read_results(path)
    assert data["algo"]["kind"] == "submitted" and [r["seed"] for r in data["runs"]] == [0, 1]
    assert data["runs"][1]["grade"]["score"] == pytest.approx(0.139812, abs=1e-6)


def test_a_unit_another_process_works_on_is_refused(tiny: int, tmp_path: Path) -> None:
    """Two commands on one results folder: a unit locked by a living process is refused
    in one line (nothing written); the lock of a process that is gone is taken over."""
    import os

    unit = tmp_path / ".work" / "v1-play-v1" / "q-learning" / str(tiny) / "seed-0"
    unit.parent.mkdir(parents=True)
    lock = unit.with_name("seed-0.lock")
    lock.write_text(str(os.getppid()))  # a living process: this one's parent
    with pytest.raises(ValueError, match=r"another command .* is running this unit"):
        run("v1-play", "q-learning", seeds=1, out=tmp_path, say=lambda _: None)
    assert not list(tmp_path.glob("v1-play-v1/*.json")) and not unit.exists()
    lock.write_text("999999999")  # no such process
    path, _ = run("v1-play", "q-learning", seeds=1, out=tmp_path, say=lambda _: None)
    assert path.is_file() and not lock.exists()
