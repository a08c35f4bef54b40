"""The rules-generalize task: its env draws the rule space's training rule sets and shows
their features, and its grade is the exact regret on the held-out rule sets, checked
against the analysis called rule set by rule set.

Most tests grade :data:`FEW` held-out rule sets (the ``few`` fixture: the first two
under S17 and the first two under H17): they check the plumbing, and the whole set (256
rule sets, 15-40 s a policy) is graded by the shipped results' command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from blackjack_env.agents.grading import optimal_return
from blackjack_env.analysis import evaluate_policy, solve
from blackjack_env.bench import grade, grading, run, task
from blackjack_env.bench.results import read_results
from blackjack_env.commands import bench as command
from blackjack_env.engine import Action, Rules, preset
from blackjack_env.engine.rulespace import default_space, held_out
from blackjack_env.envs import view as V
from blackjack_env.envs.view.fields import RULE_FEATURES, RULES_SIZE, rule_features

#: Held-out rule sets the plumbing tests grade.
FEW = 4
#: The place of the H17 flag among the rule features at the end of the observation.
H17 = RULE_FEATURES.index("dealer_hits_soft_17")


@pytest.fixture
def few(monkeypatch: pytest.MonkeyPatch) -> list[Rules]:
    """The task graded on :data:`FEW` held-out rule sets, the first two of S17 and of H17
    (in the held-out order)."""
    every = held_out("v1")
    rules = [r for r in every if not r.dealer_hits_soft_17][:2] + \
        [r for r in every if r.dealer_hits_soft_17][:2]
    monkeypatch.setattr(grading, "held_out_rules", lambda _task: list(rules))
    return rules


def test_the_task_is_the_default_space_and_its_held_out_set() -> None:
    found = task("rules-generalize")
    assert found.space is default_space("v1") and found.held_out() == held_out("v1")
    assert found.observe_rules and found.obs_modes == ("vector", "features")
    assert found.env_kwargs()["rules"] is default_space("v1")
    with pytest.raises(ValueError, match="vegas-play plays one rule set"):
        task("vegas-play").held_out()


@pytest.mark.parametrize("mode", ["vector", "features"])
def test_the_env_draws_training_rule_sets_and_shows_their_features(mode: str) -> None:
    found = task("rules-generalize")
    space = found.space
    assert space is not None
    env = found.make_env(mode)
    assert env.observation_space == found.layout(mode).observation_space()
    drawn = set()
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        rules = Rules.from_dict(info["rules"])
        assert rules == space.rules_at(info["rules_index"])
        assert space.contains(rules) and not space.is_held_out(rules)
        assert np.array_equal(obs[-RULES_SIZE:], rule_features(rules))
        drawn.add(info["rules_index"])
    assert len(drawn) > 30  # a rule set drawn at each reset, not one fixed
    env.close()


def _toy(rules_aware: bool):
    """Hit on 11 or less and, when the rule features say H17 (if ``rules_aware``), on a
    hard 12; decline before the peek. As a callable of the vector observation, and as
    the same policy over the analysis's states for one rule set."""

    def callable_policy(obs: np.ndarray) -> int:
        if obs[V.VEC_PHASE + 1] == 1.0:  # the question before the peek: decline
            return 0
        total = round(float(obs[V.VEC_TOTAL]) * V.MAX_TOTAL)
        soft = bool(obs[V.VEC_SOFT])
        h17 = rules_aware and bool(obs[-RULES_SIZE + H17] == 1.0)
        return int(total <= 11 or (total == 12 and not soft and h17))

    def state_policy(rules: Rules):
        def policy(s) -> Action:
            if s.pre_peek:
                return Action.DECLINE
            hit = s.total <= 11 or (s.total == 12 and not s.soft and rules.dealer_hits_soft_17
                                    and rules_aware)
            return Action.HIT if hit else Action.STAND
        return policy

    return callable_policy, state_policy


def test_a_callable_that_reads_the_rules_is_graded_as_the_analysis_grades_it(
        few: list[Rules]) -> None:
    """The grade of a user's callable, each rule set's regret recomputed by the analysis
    for the same policy over its states. The policy that ignored the H17 feature would
    grade otherwise on the H17 rule sets (so the agreement shows the features reach it)."""
    policy, by_state = _toy(True)
    got = grade("rules-generalize", policy)
    want = [optimal_return(r) - float(evaluate_policy(r, by_state(r))) for r in few]
    assert got["task"] == "rules-generalize-v1" and got["rule_sets"] == FEW
    assert got["regrets"] == pytest.approx(want, abs=1e-12)
    assert got["score"] == pytest.approx(np.mean(want), abs=1e-12)
    assert got["median_regret"] == pytest.approx(np.median(want), abs=1e-12)
    assert got["worst"]["regret"] == pytest.approx(max(want), abs=1e-12)
    lo, hi = got["score_ci95"]
    assert lo <= got["score"] <= hi and got["measured"] == "exact"
    blind = _toy(False)[1]
    other = [optimal_return(r) - float(evaluate_policy(r, blind(r))) for r in few]
    differs = [abs(a - b) > 1e-6 for a, b in zip(want, other, strict=True)]
    assert differs == [r.dealer_hits_soft_17 for r in few] == [False, False, True, True]


def test_the_references_against_the_analysis(few: list[Rules]) -> None:
    from blackjack_env.bench.algos import grade_reference

    found = task("rules-generalize")
    best = grade_reference(found, "optimum")
    assert max(abs(r) for r in best["regrets"]) < 1e-12
    chart = solve(preset("vegas-strip", decks=None)).chart.action
    want = [optimal_return(r) - float(evaluate_policy(r, chart)) for r in few]
    assert grade_reference(found, "vegas-chart")["regrets"] == pytest.approx(want, abs=1e-12)
    stand = [optimal_return(r) - float(evaluate_policy(
        r, lambda s: Action.DECLINE if s.pre_peek else Action.STAND)) for r in few]
    assert grade_reference(found, "stand")["regrets"] == pytest.approx(stand, abs=1e-12)


def test_random_play_is_simulated_on_every_rule_set(few: list[Rules]) -> None:
    """The random policy has no deterministic policy to grade exactly: it is simulated on
    each rule set, the same for a seed, its interval the simulations' (half-width about
    0.015 at 40k rounds: 1.96 times a per-round spread near 1.5 over their root); it
    loses more than always standing, whose exact regret lies below the interval."""
    from blackjack_env.bench.algos import grade_reference

    found = task("rules-generalize")
    got = grading.grade_random_play(found, seed=3, rounds=40_000)
    again = grading.grade_random_play(found, seed=3, rounds=40_000)
    assert got == again and got["measured"] == "simulated" and len(got["regrets"]) == FEW
    assert got["rounds"] >= 40_000
    lo, hi = got["score_ci95"]
    assert lo < got["score"] < hi and hi - lo < 0.04
    assert grade_reference(found, "stand")["score"] < lo


@pytest.mark.slow  # torch and SB3 imported, a model trained and graded: ~10 s of CPU
def test_the_task_end_to_end_at_a_tiny_budget(few: list[Rules], tiny: int,
                                              tmp_path: Path) -> None:
    """SB3 PPO trained on the task's env (a rule set drawn at each reset, the features in
    its vector observation), graded on the rule sets; its results file valid."""
    pytest.importorskip("stable_baselines3")
    path, data = run("rules-generalize", "ppo", seeds=1, out=tmp_path, say=lambda _: None)
    assert read_results(path) == data
    (only,) = data["runs"]
    assert only["env_steps"] == tiny and data["algo"]["settings"]["obs_mode"] == "vector"
    assert only["grade"]["rule_sets"] == FEW and 0 < only["grade"]["score"] < 1
    # the grade asks the network every state at once (greedy_batch): as act, one by one
    from blackjack_env.agents.sb3 import SB3Agent

    (saved,) = (tmp_path / ".work").rglob("*.zip")
    agent = SB3Agent.load(saved)
    env = task("rules-generalize").make_env("vector")
    rng = np.random.default_rng(0)
    rows, masks = [], []
    obs, info = env.reset(seed=0)
    while len(rows) < 300:
        rows.append(obs)
        masks.append(info["action_mask"])
        obs, _, done, cut, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if done or cut:
            obs, info = env.reset()
    batch = agent.greedy_batch(np.array(rows), np.array(masks))
    assert list(batch) == [agent.act(o, m) for o, m in zip(rows, masks, strict=True)]


def _main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = command.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_lists_and_grades_the_task(few: list[Rules], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(["list"], capsys)
    assert code == 0 and "rules-generalize-v1:" in out and "not yet available" not in out
    policy = tmp_path / "mine.py"
    policy.write_text(
        "from blackjack_env.envs.view import fields as F\n\n"
        "H17 = F.RULE_FEATURES.index('dealer_hits_soft_17') - F.RULES_SIZE\n\n"
        "def hit_more_under_h17(obs):\n"
        "    if obs[F.VEC_PHASE + 1] == 1.0:\n"
        "        return 0\n"
        "    total = round(float(obs[F.VEC_TOTAL]) * F.MAX_TOTAL)\n"
        "    h17 = obs[H17] == 1.0\n"
        "    return int(total <= 11 or (total == 12 and not obs[F.VEC_SOFT] and h17))\n")
    code, out, err = _main(["grade", "rules-generalize", f"{policy}:hit_more_under_h17",
                            "--json", str(tmp_path / "g.json")], capsys)
    assert code == 0, err
    assert f"over {FEW} held-out rule sets" in out
    graded = json.loads((tmp_path / "g.json").read_text())["grades"][0]
    by_state = _toy(True)[1]
    want = [optimal_return(r) - float(evaluate_policy(r, by_state(r))) for r in few]
    assert graded["regrets"] == pytest.approx(want, abs=1e-12)
    code, out, err = _main(["run", "rules-generalize", "--algo", "optimum", "--out",
                            str(tmp_path / "res")], capsys)
    assert code == 0, err
    data = read_results(tmp_path / "res" / "rules-generalize-v1" / "optimum.json")
    assert abs(data["runs"][0]["grade"]["score"]) < 1e-12


@pytest.mark.parametrize(("argv", "words"), [
    (["run", "rules-generalize", "--algo", "q-learning"],
     "q-learning does not apply to rules-generalize (it grades play over a rule space)"),
    (["run", "rules-generalize", "--algo", "hi-lo"], "hi-lo does not apply"),
    (["grade", "rules-generalize", "math:floor", "--obs-mode", "multidiscrete"],
     "graded on the observation modes vector, features, not 'multidiscrete'"),
    (["run", "vegas-play", "--algo", "vegas-chart"], "vegas-chart does not apply to vegas-play"),
])
def test_wrong_input_is_one_line_and_writes_nothing(
        argv: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _out, err = _main(argv, capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    assert words in lines[0], lines[0]
    assert list(tmp_path.iterdir()) == []


def test_a_network_that_reads_no_rules_is_refused(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """An MLP policy saved for one rule set (its input without the rule features) does not
    fit the task's observation: one line, nothing written."""
    from blackjack_env.agents.mlp import MLPAgent

    rng = np.random.default_rng(0)
    arrays = [(rng.normal(size=(V.VECTOR_SIZE, 4)).astype(np.float32), np.zeros(4, np.float32)),
              (rng.normal(size=(4, 5)).astype(np.float32), np.zeros(5, np.float32))]
    MLPAgent(arrays, obs_mode="vector").save(tmp_path / "one-table.npz")
    code, _, err = _main(["grade", "rules-generalize", str(tmp_path / "one-table.npz"),
                          "--json", str(tmp_path / "g.json")], capsys)
    assert code == 2 and "reads 17 numbers" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "g.json").exists()


@pytest.mark.slow  # the v1 space's rule bank for JAX (~30 s of CPU) and the compilation
def test_jax_ppo_end_to_end(few: list[Rules], tiny: int, tmp_path: Path) -> None:
    """The JAX learner over the rule space: every seed's network reads the rule features
    (observe_rules) and is graded on the rule sets."""
    pytest.importorskip("jax")
    _, data = run("rules-generalize", "jax-ppo", seeds=2, out=tmp_path, say=lambda _: None,
                  overrides={"num_envs": 16, "num_steps": 8, "num_minibatches": 2})
    assert [r["seed"] for r in data["runs"]] == [0, 1]
    assert data["algo"]["settings"]["rule_space"] == "v1"
    for r in data["runs"]:
        assert r["env_steps"] == tiny and r["grade"]["rule_sets"] == FEW
        assert 0 < r["grade"]["score"] < 1


def test_the_leaderboard_shows_the_median_and_worst_beside_the_mean(
        few: list[Rules], tmp_path: Path) -> None:
    from blackjack_env.bench.report import leaderboard, markdown

    _, data = run("rules-generalize", "stand", out=tmp_path, say=lambda _: None)
    got = data["runs"][0]["grade"]
    rows = leaderboard(tmp_path)["rules-generalize"]
    (row,) = [r for r in rows if r.algo == "stand"]
    assert row.mean == got["score"] and row.within == tuple(got["score_ci95"])
    assert row.median == got["median_regret"] and row.worst == max(got["regrets"])
    text = markdown(task("rules-generalize"), rows)
    half = (got["score_ci95"][1] - got["score_ci95"][0]) / 2
    assert f"| always stand | — |  |  | {got['score']:.5f} ± {half:.5f} rule sets |" in text
    assert f"| always stand | — | {np.median(got['regrets']):.5f} | " \
           f"{max(got['regrets']):.5f} |" in text
    assert "| JAX PPO | 1e5 | | | missing: no results in this folder" in text
