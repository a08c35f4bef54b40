"""The benchmark's grades, each checked against the analysis called independently (or
against figures computed by hand), and its refusals of policies that do not fit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blackjack_env.agents.counting import BetSpread
from blackjack_env.agents.mlp import MLPAgent
from blackjack_env.analysis import (
    composition_return,
    evaluate_policy,
    finite_chart,
    finite_shoe_return,
    solve,
)
from blackjack_env.analysis.counter import (
    CounterRound,
    ceiling_fraction,
    counter_report,
    deal_rounds,
)
from blackjack_env.bench import grade, load_policy, task
from blackjack_env.bench.algos import grade_reference
from blackjack_env.bench.grading import round_set
from blackjack_env.engine import Action
from blackjack_env.envs import view as V


def _hit_below_17(state):
    if state.pre_peek:
        return Action.DECLINE
    return Action.HIT if state.total < 17 else Action.STAND


def test_the_optimum_has_no_regret_on_an_infinite_deck() -> None:
    for name in ("v1-play", "vegas-play"):
        assert grade_reference(task(name), "optimum")["score"] == pytest.approx(0.0, abs=1e-12)


def test_a_callable_is_graded_as_the_analysis_grades_its_play() -> None:
    rules = task("v1-play").rules
    want = solve(rules).expected_return - evaluate_policy(rules, _hit_below_17)
    got = grade("v1-play", lambda obs: int(obs[0] < 17))
    assert got["score"] == pytest.approx(want, abs=1e-12) and got["measured"] == "exact"
    assert want > 0.01  # not the optimum: the check can fail
    # the same play read from the multidiscrete observation
    multi = grade("v1-play", lambda obs: int(obs[V.MD_TOTAL] < 17), obs_mode="multidiscrete")
    assert multi["score"] == pytest.approx(want, abs=1e-12)


def test_shoe_play_is_graded_off_the_full_shoe_against_the_cd_optimum() -> None:
    found = task("shoe-play")
    cd = composition_return(found.rules).expected_return
    stand = grade_reference(found, "stand")
    want = cd - finite_shoe_return(found.rules, lambda s: Action.STAND).expected_return
    assert stand["score"] == pytest.approx(want, abs=1e-12)
    best = grade_reference(found, "optimum")
    td = finite_shoe_return(found.rules, finite_chart(found.rules)).expected_return
    assert best["score"] == pytest.approx(cd - td, abs=1e-12)
    assert 0 < best["score"] < 0.001  # reading the exact cards is worth a little
    assert best["regret_against_total_dependent_optimum"] == 0.0


def test_random_play_is_simulated_with_its_interval() -> None:
    got = grade_reference(task("v1-play"), "random", seed=1)
    lo, hi = got["score_ci95"]
    assert got["measured"] == "simulated" and lo < got["score"] < hi and hi - lo < 0.01


def test_a_policy_that_answers_what_the_task_has_not_is_refused() -> None:
    with pytest.raises(ValueError, match=r"returned action 3; the task's actions are 0..1 "
                                         r"\(STAND, HIT\)"):
        grade("v1-play", lambda obs: 3)
    with pytest.raises(ValueError, match="chose SPLIT where it is not legal"):
        grade("vegas-play", lambda obs: 3)
    with pytest.raises(ValueError, match="returns one action number"):
        grade("v1-play", lambda obs: "hit")


def _mlp(tmp_path: Path, inputs: int, actions: int, info=None) -> Path:
    rng = np.random.default_rng(0)
    agent = MLPAgent([(rng.normal(size=(inputs, 8)), np.zeros(8)),
                      (rng.normal(size=(8, actions)), np.zeros(actions))], info=info)
    return agent.save(tmp_path / "model.npz")


def test_a_saved_model_of_another_table_is_refused(tmp_path: Path) -> None:
    five = _mlp(tmp_path, V.VECTOR_SIZE, 5)
    with pytest.raises(ValueError, match="has 5 actions; v1-play's table has 2 "
                                         r"\(STAND, HIT\)"):
        load_policy(str(five), task("v1-play"))
    narrow = _mlp(tmp_path, 9, 5)
    with pytest.raises(ValueError, match="reads 9 numbers; vegas-play's vector observation "
                                         "has 17"):
        load_policy(str(narrow), task("vegas-play"))
    with pytest.raises(ValueError, match="no such file or folder"):
        load_policy(str(tmp_path / "missing.zip"), task("vegas-play"))
    with pytest.raises(ValueError, match="has no callable nope"):
        load_policy("math:nope", task("vegas-play"))


def test_an_sb3_zip_of_another_table_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3 import PPO

    env = task("vegas-play").make_env("multidiscrete")
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=64, device="cpu", seed=0)
    model.save(tmp_path / "ppo.zip")
    with pytest.raises(ValueError, match="has 5 actions; v1-play's table has 2"):
        load_policy(str(tmp_path / "ppo.zip"), task("v1-play"))
    loaded = load_policy(str(tmp_path / "ppo.zip"), task("shoe-play"))
    assert loaded.kind == "sb3" and loaded.obs_mode == "multidiscrete"


# ------------------------------------------------------------------------------ bets
def test_the_shipped_rounds_are_the_counters_rounds() -> None:
    """The round set holds the first rounds the perfect counter deals for its rules,
    penetration and seed (pools, true counts, what basic strategy won), and the edges
    it prices: one re-priced here."""
    found = task("spread-bet")
    rs = round_set(found)
    assert rs.rules == found.rules.replace(seats=1) and rs.penetration == 0.75
    fresh = list(deal_rounds(rs.rules, 300, penetration=rs.penetration, seed=rs.seed))
    for kept, dealt in zip(rs.rounds[:300], fresh, strict=True):
        assert (kept.shoe, kept.index, kept.pool, kept.net) == (dealt.shoe, dealt.index,
                                                              dealt.pool, dealt.net)
        assert kept.true_count == dealt.true_count
    probe = rs.rounds[137]
    assert probe.edge == composition_return(rs.rules, list(probe.pool)).expected_return


def test_the_ceiling_fraction_by_hand() -> None:
    """Two shoes, edges +0.1, -0.05 | +0.2: the 1-8 ceiling bets 8, 1 | 8 and earns
    0.8 - 0.05 + 1.6 = 2.35; flat 1 earns 0.25; bets 2, 2 | 4 earn 0.2 - 0.1 + 0.8."""
    rounds = [CounterRound(0, 0, (), 0.0, 0.0, 0.1), CounterRound(0, 1, (), 0.0, 0.0, -0.05),
              CounterRound(1, 0, (), 0.0, 0.0, 0.2)]
    assert ceiling_fraction(rounds, [8, 1, 8])[0] == pytest.approx(1.0)
    assert ceiling_fraction(rounds, [1, 1, 1])[0] == pytest.approx(0.25 / 2.35)
    assert ceiling_fraction(rounds, [2, 2, 4])[0] == pytest.approx(0.9 / 2.35)
    with pytest.raises(ValueError, match="every bet must be a positive number"):
        ceiling_fraction(rounds, [1, 0, 1])


def test_the_bet_references_against_the_counters_report() -> None:
    found = task("spread-bet")
    rounds = list(round_set(found).rounds)
    ramp = BetSpread()
    report = counter_report(rounds, spread=(1, 8),
                            bettors={"ramp": lambda r: ramp.size_for(r.true_count, (1, 2, 4, 8))})
    ceiling, flat = report.rows[0].per_round, report.rows[1].per_round
    assert grade_reference(found, "ceiling")["score"] == pytest.approx(1.0, abs=1e-12)
    assert grade_reference(found, "flat")["score"] == pytest.approx(flat / ceiling, rel=1e-9)
    assert grade_reference(found, "hi-lo")["score"] == pytest.approx(
        report.rows[3].per_round / ceiling, rel=1e-9)
    assert grade_reference(found, "random-bets")["score"] == pytest.approx(
        3.75 * flat / ceiling, rel=1e-9)


def test_a_bettor_is_asked_at_each_rounds_bet_step() -> None:
    """A callable bettor sees the vector observation of the bet step: betting 8 from a
    true count of +2 is the Hi-Lo-like bettor whose grade counter_report gives."""
    found = task("spread-bet")
    rounds = list(round_set(found).rounds)

    def bettor(obs):
        assert obs[V.VEC_PHASE + 2] == 1.0  # the BET phase
        return 8 if obs[V.VEC_TRUE_COUNT] * V.VEC_COUNT_SCALE >= 2 - 1e-6 else 5

    got = grade("spread-bet", bettor)
    report = counter_report(rounds, spread=(1, 8), bettors={
        "two": lambda r: 8 if np.float32(np.clip(r.true_count / 10, -1, 1)) * 10 >= 2 - 1e-6
        else 1})
    assert got["score"] == pytest.approx(report.rows[3].per_round / report.rows[0].per_round,
                                         rel=1e-9)
    with pytest.raises(ValueError, match="chose STAND where it is not legal "
                                         r"\(legal: BET_1, BET_2, BET_4, BET_8"):
        grade("spread-bet", lambda obs: 0)


def test_the_round_set_is_remade_by_its_command(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m blackjack_env.bench.rounds`` with the shipped set's settings makes the
    same rounds with the same edges (here the first 12), and refuses a bad option in one
    line, writing nothing."""
    from blackjack_env.bench.rounds import load_round_set, main

    out, store = tmp_path / "r.npz", tmp_path / "s.jsonl"
    assert main(["--rounds", "12", "--store", str(store), "--out", str(out),
                 "--workers", "1"]) == 0
    made = load_round_set(out).rounds
    shipped = round_set(task("spread-bet")).rounds[:12]
    assert [(r.shoe, r.index, r.pool, r.edge, r.net) for r in made] == [
        (r.shoe, r.index, r.pool, r.edge, r.net) for r in shipped]
    capsys.readouterr()
    assert main(["--rounds", "0", "--out", str(tmp_path / "x.npz")]) == 2
    assert capsys.readouterr().err.startswith("error: --rounds >= 1")
    assert not (tmp_path / "x.npz").exists()
