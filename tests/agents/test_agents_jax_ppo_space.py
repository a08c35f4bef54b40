"""One JAX PPO policy for every rule set of a space (issue 38 item 6): the run trains on
the space's training rule sets only, its observation carries the rule features, and it
is graded exactly on the held-out ones; the command's rule-space run and its wrong
inputs. The run here is tiny (it checks the pipeline, not the learning; the learning
figures are a documented command's, docs/rules-as-data.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")

from blackjack_env.agents.grading import exact_grade  # noqa: E402
from blackjack_env.agents.jax_ppo import (  # noqa: E402
    JaxPPOConfig,
    held_out_rule_sets,
    make_env,
    space_of,
    train_seeds,
)
from blackjack_env.agents.mlp import MLPAgent  # noqa: E402
from blackjack_env.engine import preset  # noqa: E402
from blackjack_env.engine.rulespace import RuleSpace  # noqa: E402
from blackjack_env.envs import view  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

#: 12 rule sets, 4 held out (hold_out=3): S17/H17, three surrenders, a peek or none
SMALL = RuleSpace(
    preset("vegas-strip", decks=None, insurance=False),
    (("dealer_hits_soft_17", (False, True)), ("surrender", ("none", "late", "early")),
     ("hole_card", ("peek", "none"))),
    name="small", hold_out=3,
)  # fmt: skip


@pytest.fixture(scope="module")
def space_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("space") / "small.json"
    path.write_text(json.dumps(SMALL.to_dict()))
    return path


def _config(path: Path) -> JaxPPOConfig:
    return JaxPPOConfig(rule_space=str(path), seeds=2, seed=1, total_timesteps=64 * 16 * 4,
                        num_envs=64, num_steps=16, curve_points=2, curve_rule_sets=1)


@pytest.fixture(scope="module")
def run(space_file: Path) -> object:
    return train_seeds(_config(space_file))


def test_the_bank_holds_the_training_rule_sets_only(space_file: Path) -> None:
    """The tables draw from the space's training rule sets: the held-out ones are not in
    the bank (the test set stays unseen), and the graded ones are exactly them."""
    config = _config(space_file)
    env, bank = make_env(config)
    assert env.rule_space == SMALL and env.observe_rules
    held = SMALL.held_out_rules()
    assert len(held) == 4 and bank.size == len(SMALL) - len(held) == SMALL.training_size
    features = {view.rule_features(r).tobytes() for r in SMALL if not SMALL.is_held_out(r)}
    # (every rule set's features read in one program: bank.at run op by op compiles a
    # slice per entry's shape)
    rows = jax.jit(jax.vmap(lambda i: jax.numpy.asarray(bank.at(i).rule_features)))
    in_bank = {row.tobytes() for row in np.asarray(rows(np.arange(bank.size, dtype=np.int32)))}
    assert in_bank == features
    assert all(view.rule_features(r).tobytes() not in in_bank for r in held)
    assert [r.to_dict() for r in held_out_rule_sets(config)] == [r.to_dict() for r in held]


def test_a_rule_space_run_is_graded_on_the_held_out_rule_sets(run: object) -> None:
    """Every seed's last policy is graded on every held-out rule set, earlier points on
    the first ``curve_rule_sets``; the model reads the rule features; the figures are
    the exact analysis's, one rule set at a time (an independent path)."""
    assert run.held_out is not None and len(run.held_out) == 2
    assert int(run.metrics["illegal_actions"].sum()) == 0
    for seed, grades in zip(run.held_out, run.grades, strict=True):
        assert [g["rule_sets"] for g in grades] == [1, 1, 4]
        assert len(seed.grades) == 4 and abs(seed.mean - grades[-1]["regret"]) < 1e-12
    agent = run.agents[0][-1]
    assert isinstance(agent, MLPAgent) and agent.observe_rules
    for g in run.held_out[0].grades:
        ref = exact_grade(agent, g.rules, "vector")
        assert ref is not None and abs(ref["regret"] - g.regret) < 1e-9
    summary = run.summary()
    assert summary["held_out"]["rule_sets"] == 4


def _train(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "train.py"), *args],
                          capture_output=True, text=True, timeout=900, cwd=cwd)


@pytest.mark.slow
def test_the_command_trains_over_a_space(space_file: Path, tmp_path: Path) -> None:
    """``blackjack-train --algo jax-ppo --rule-space FILE``: the model observes the rules,
    held-out.json grades it on every held-out rule set, the summary says so."""
    out = tmp_path / "run"
    r = _train("--algo", "jax-ppo", "--rule-space", str(space_file), "--timesteps", "4096",
               "--seeds", "2", "--n-envs", "64", "--n-steps", "16", "--curve-points", "2",
               "--out", str(out), "--no-progress", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "rule sets of held-out of small (never trained on)" in r.stdout
    held = json.loads((out / "held-out.json").read_text())
    assert held["n_rule_sets"] == 4 and len(held["grades"]) == 4
    assert MLPAgent.load(out / "model.npz").observe_rules
    summary = json.loads((out / "summary.json").read_text())
    assert abs(summary["held_out_model"]["mean_regret"] - held["mean_regret"]) < 1e-12


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--rule-space", "no-such-space"], "neither a version of the default space"),
        (["--rule-space", "v1", "--rules", "vegas-strip"], "--rules vegas-strip: --rule-space"),
        (["--rule-space", "v1", "--bet-sizes", "1,2"], "--bet-sizes 1,2: --rule-space"),
        (["--algo", "q-learning", "--rule-space", "v1"], "only --algo jax-ppo takes it"),
        (["--rule-space", "v1", "--hidden", "64,x"], "--hidden '64,x': give one or more"),
    ],
    ids=["unknown", "rules", "bets", "tabular", "hidden"],
)
def test_wrong_rule_space_options_are_one_line(args: list[str], words: str,
                                               tmp_path: Path) -> None:
    full = ["--algo", "jax-ppo", *args] if "--algo" not in args else args
    r = _train(*full, "--out", str(tmp_path / "never"), cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0], r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "never").exists()


def test_space_of_reads_versions_and_files(space_file: Path) -> None:
    assert space_of(JaxPPOConfig(rule_space="v1")).name == "default-v1"
    assert space_of(JaxPPOConfig(rule_space=str(space_file))) == SMALL
    with pytest.raises(ValueError, match="not a RuleSpace file"):
        bad = space_file.parent / "bad.json"
        bad.write_text("[1, 2]")
        space_of(JaxPPOConfig(rule_space=str(bad)))
