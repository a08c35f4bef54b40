"""Agents' bets graded against the perfect counter: the bettors of a round (the Hi-Lo
counter, a saved policy that decides its bets), the BET observation a round gives, and
``blackjack-evaluate --ceiling``."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

from blackjack_env import preset
from blackjack_env.agents.ceiling import (
    HI_LO,
    ceiling_report,
    decides_bets,
    pricing_bar,
    round_bettor,
)
from blackjack_env.agents.counting import BetSpread
from blackjack_env.agents.fixed import counting_agent
from blackjack_env.agents.mlp import MLPAgent, bet_observations
from blackjack_env.analysis.counter import CounterRound, deal_rounds, price_rounds, stored_rounds
from blackjack_env.commands import evaluate
from blackjack_env.engine.play import hi_lo_running_count, hi_lo_true_count
from blackjack_env.envs import view as V

SIZES = (1, 2, 4, 8)
RULES = preset("vegas-strip")  # 6 decks
N_PLAY = 5


def _bet_policy(threshold: float = 1.0) -> MLPAgent:
    """A saved-model stand-in that decides its bets: greedy bet 8 from a true count of
    ``threshold`` up, 1 below (one linear layer over the vector observation); at play
    steps it stands (its STAND logit is the largest of the play actions)."""
    w = np.zeros((V.VECTOR_SIZE, N_PLAY + len(SIZES)), np.float32)
    b = np.zeros(N_PLAY + len(SIZES), np.float32)
    b[0] = 1.0  # STAND among the play actions
    # bet 8's logit minus bet 1's: (tc - threshold) / VEC_COUNT_SCALE * 100
    w[V.VEC_TRUE_COUNT, N_PLAY + 3] = 100.0
    b[N_PLAY + 3] = -100.0 * threshold / V.VEC_COUNT_SCALE
    b[N_PLAY + 1] = b[N_PLAY + 2] = -50.0  # bets 2 and 4 never
    return MLPAgent([(w, b)], obs_mode="vector", info={"bet_sizes": list(SIZES)})


def test_size_for_fits_the_ramp_to_the_sizes_offered() -> None:
    ramp = BetSpread()  # 1 below +2, 2 from +2, 4 from +3, 8 from +4
    assert [ramp.size_for(tc, SIZES) for tc in (-3, 1.9, 2, 3.5, 4, 9)] == [1, 1, 2, 4, 8, 8]
    assert [ramp.size_for(tc, (1, 3, 5)) for tc in (0, 2, 3, 4)] == [1, 1, 3, 5]
    assert ramp.size_for(0, (2, 5)) == 2  # every size above the ramp's: the smallest


def test_the_counter_bets_its_ramp_on_each_round() -> None:
    env = gym.make("blackjack_env/Blackjack-v0", rules=RULES, bet_sizes=SIZES)
    agent = counting_agent(env)
    assert decides_bets(agent)
    bettor = round_bettor(agent, SIZES, RULES)
    rounds = list(deal_rounds(RULES, 300, seed=3))
    assert {bettor(r) for r in rounds} >= {1.0, 8.0}
    for r in rounds:
        assert bettor(r) == BetSpread().size_for(r.true_count, SIZES)


def _random_rules(seed: int) -> object:
    """A random finite-shoe rule set (decks, soft 17, surrender, doubling, penetration)."""
    rng = np.random.default_rng(seed)
    return RULES.replace(decks=int(rng.choice([1, 2, 4, 6, 8])),
                         dealer_hits_soft_17=bool(rng.integers(2)),
                         surrender=str(rng.choice(["none", "late"])),
                         double=str(rng.choice(["any", "9-11"])),
                         penetration=float(rng.choice([0.5, 0.75, 0.9])))


@pytest.mark.parametrize("rules", [RULES, *(_random_rules(s) for s in range(3))],
                         ids=["vegas-strip", "random-0", "random-1", "random-2"])
def test_a_round_gives_the_bet_observation_the_table_shows(rules) -> None:
    """The round's (true count, shoe left) is what the env shows at the BET step before
    it: the observation a saved policy's bet is asked with (the Strip rules and random
    rule sets)."""
    env = gym.make("blackjack_env/Blackjack-v0", rules=rules, obs_mode="vector",
                   bet_sizes=SIZES, rounds_per_episode=200)
    obs, info = env.reset(seed=5)
    table = env.unwrapped.table
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(2000):
        mask = info["action_mask"]
        if obs[V.VEC_PHASE + 2] == 1:  # a BET step (a settled step allows every action)
            assert mask[N_PLAY:].all() and not mask[:N_PLAY].any()
            pool = table.shoe.remaining_by_rank()
            r = CounterRound(0, 0, tuple(pool),
                             hi_lo_true_count(hi_lo_running_count(pool), sum(pool)), 0.0)
            want = bet_observations([r.true_count],
                                    r.cards_left / (52 * rules.shoe_decks))[0]
            np.testing.assert_array_equal(want, obs)
            seen += 1
            action = N_PLAY + int(rng.integers(len(SIZES)))
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        obs, _, done, cut, info = env.step(action)
        if done or cut:
            obs, info = env.reset()
    assert seen > 150


def test_a_saved_policy_bets_its_greedy_bet_at_the_rounds_observation() -> None:
    agent = _bet_policy(threshold=1.0)
    assert decides_bets(agent)
    bettor = round_bettor(agent, SIZES, RULES)
    rounds = list(deal_rounds(RULES, 400, seed=1))
    bets = [bettor(r) for r in rounds]
    for r, bet in zip(rounds, bets, strict=True):
        if abs(r.true_count - 1.0) > 1e-3:
            assert bet == (8.0 if r.true_count > 1.0 else 1.0)
    assert 1.0 in bets and 8.0 in bets


def test_bettors_are_refused_with_the_reason() -> None:
    play_only = MLPAgent([(np.zeros((V.VECTOR_SIZE, N_PLAY)), np.zeros(N_PLAY))])
    assert not decides_bets(play_only)
    with pytest.raises(ValueError, match="fixed bet decides no bet"):
        round_bettor(play_only, SIZES, RULES)
    with pytest.raises(ValueError, match="bets 1,2,4,8, not 1,2,4"):
        round_bettor(_bet_policy(), (1, 2, 4), RULES)
    with pytest.raises(ValueError, match="no bet sizes"):
        round_bettor(_bet_policy(), (), RULES)
    basic = gym.make("blackjack_env/Blackjack-v0", rules=RULES)
    from blackjack_env.agents.registry import make_agent

    with pytest.raises(ValueError, match="decides no bet"):
        round_bettor(make_agent("basic", basic), SIZES, RULES)


def test_ceiling_report_rows(tmp_path) -> None:
    env = gym.make("blackjack_env/Blackjack-v0", rules=RULES, bet_sizes=SIZES)
    counter = counting_agent(env)
    store = tmp_path / "c.jsonl"  # 60 rounds: two shoes (an interval needs two)
    rep = ceiling_report(counter, "counter", RULES, SIZES, 60, penetration=0.75, store=store)
    assert rep.shoes == 2
    names = [r.name for r in rep.rows]
    # the counter with the ramp's own sizes is the Hi-Lo ramp: one pair of rows
    assert names[3:] == ["counter: bets graded by the exact edge, CD play",
                         "counter: simulated, basic strategy"]
    rep2 = ceiling_report(_bet_policy(), "policy", RULES, SIZES, 60, penetration=0.75,
                          store=store)
    names2 = [r.name for r in rep2.rows]
    assert names2[:3] == names[:3] and len(names2) == 7
    assert f"{HI_LO}: bets graded by the exact edge, CD play" in names2
    # the same rounds: the rows that do not depend on the bettor agree to the bit
    for a, b in zip(rep.rows[:3], rep2.rows[:3], strict=True):
        assert a == b
    # the counter is the Hi-Lo ramp at these sizes: the ramp's rows of one report are the
    # counter's of the other, to the bit
    for how in ("bets graded by the exact edge, CD play", "simulated, basic strategy"):
        a, b = rep.row(f"counter: {how}"), rep2.row(f"{HI_LO}: {how}")
        assert (a.per_round, a.per_round_ci, a.per_unit, a.per_unit_ci) == (
            b.per_round, b.per_round_ci, b.per_unit, b.per_unit_ci)


def test_evaluate_ceiling_for_the_counter_and_a_saved_bet_policy(tmp_path, capsys) -> None:
    store = tmp_path / "c.jsonl"
    out = tmp_path / "o.json"
    args = ["--rules", "vegas-strip", "--bet-sizes", "1,2,4,8", "--session", "50",
            "--hands", "300", "--ceiling", "25", "--ceiling-store", str(store)]
    assert evaluate.main(["counter", *args, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "bets against the perfect counter: 25 rounds" in text
    assert "| counter: bets graded by the exact edge, CD play | exact |" in text
    result = json.loads(out.read_text())
    assert result["ceiling"]["rounds"] == 25 and result["ceiling"]["spread"] == [1, 8]
    assert len(store.read_text().splitlines()) == 1 + 25
    # a saved policy that decides its bets: it plays its bets in the simulation, and its
    # bets are graded on the same rounds (the store prices nothing again)
    model = _bet_policy().save(tmp_path / "model-bets.npz")
    before = store.read_bytes()
    assert evaluate.main([str(model), *args, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"| {HI_LO}: bets graded by the exact edge, CD play | exact |" in text
    assert store.read_bytes() == before
    counter_rows = {r["name"]: r for r in result["ceiling"]["rows"]}
    result = json.loads(out.read_text())
    rows = {r["name"]: r for r in result["ceiling"]["rows"]}
    assert len(rows) == 7 and result["ceiling"]["rounds"] == 25
    # the same rounds: the ramp's rows here are the counter's of the first run
    for how in ("bets graded by the exact edge, CD play", "simulated, basic strategy"):
        a, b = counter_rows[f"counter: {how}"], rows[f"{HI_LO}: {how}"]
        assert {k: v for k, v in a.items() if k != "name"} == {
            k: v for k, v in b.items() if k != "name"}
    # the policy bets 8 above a count of +1, 1 below: its exact grade is those bets
    # times the stored edges of the rounds
    priced = stored_rounds(RULES, 25, penetration=0.75, seed=0, store=store)
    bets = np.array([8.0 if r.true_count > 1.0 else 1.0 for r in priced])
    edges = np.array([r.edge for r in priced])
    graded = rows["model-bets.npz: bets graded by the exact edge, CD play"]
    assert graded["per_unit_wagered"] == pytest.approx((bets * edges).sum() / bets.sum())
    assert graded["per_round"] == pytest.approx((bets * edges).mean())


@pytest.mark.parametrize(("argv", "words"), [
    (["counter", "--rules", "vegas-strip", "--ceiling", "10"], ["--ceiling", "--bet-sizes"]),
    (["basic", "--rules", "vegas-strip", "--bet-sizes", "1,2,4,8", "--ceiling", "10"],
     ["--ceiling", "basic", "fixed bet"]),
    (["counter", "--rules", "vegas-strip", "--bet-sizes", "1,2,4,8", "--ceiling", "-1"],
     ["--ceiling -1"]),
    (["{model}", "--rules", "vegas-strip", "--decks", "inf", "--bet-sizes", "1,2,4,8",
      "--ceiling", "10"], ["--ceiling", "finite shoe"]),
    (["counter", "--rules", "ood-book", "--bet-sizes", "1,2", "--ceiling", "10"],
     ["--ceiling", "ood-book", "reshuffle before every round"]),
    (["{model}", "--rules", "vegas-strip", "--hands", "100"],
     ["decides its bets too (bet sizes 1, 2, 4, 8)", "--bet-sizes 1,2,4,8"]),
    (["{model}", "--rules", "vegas-strip", "--bet-sizes", "1,2,4", "--hands", "100"],
     ["decides its bets too (bet sizes 1, 2, 4, 8)", "--bet-sizes 1,2,4,8"]),
    (["{play}", "--rules", "vegas-strip", "--bet-sizes", "1,2,4,8", "--hands", "100"],
     ["--bet-sizes", "plays at a fixed bet"]),
])
def test_evaluate_refuses_in_one_line_and_writes_nothing(argv, words, tmp_path, capsys):
    model = _bet_policy().save(tmp_path / "m" / "model-bets.npz")
    play = MLPAgent([(np.zeros((V.VECTOR_SIZE, N_PLAY)), np.zeros(N_PLAY))]).save(
        tmp_path / "m" / "model.npz")
    argv = [a.format(model=model, play=play) for a in argv]
    store = tmp_path / "c.jsonl"
    status = evaluate.main([*argv, "--ceiling-store", str(store), "--out",
                            str(tmp_path / "o.json")])
    err = capsys.readouterr().err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert not store.exists() and not (tmp_path / "o.json").exists()


def test_pricing_bar_says_dealing_then_pricing(capsys) -> None:
    pytest.importorskip("tqdm")
    with pricing_bar(10) as progress:
        capsys.readouterr()  # (the bar's first draw: "dealing")
        progress(0, 10)
        progress(10, 10)
    err = capsys.readouterr().err
    assert "pricing" in err and "10/10" in err and "dealing" not in err.split("\r")[-1]
    with pricing_bar(10, enabled=False) as quiet:
        quiet(5, 10)
    assert capsys.readouterr().err == ""


def test_evaluate_refuses_a_store_of_other_settings_before_simulating(tmp_path, capsys):
    store = tmp_path / "c.jsonl"
    price_rounds(RULES.replace(decks=1), 2, penetration=0.75, seed=0, store=store)
    before = store.read_bytes()
    status = evaluate.main(["counter", "--rules", "vegas-strip", "--bet-sizes", "1,2,4,8",
                            "--hands", "100", "--ceiling", "10", "--ceiling-store", str(store),
                            "--out", str(tmp_path / "o.json")])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""  # nothing simulated
    lines = captured.err.strip().splitlines()
    assert lines[-1].startswith("error: ") and "different rules: decks" in lines[-1]
    assert store.read_bytes() == before and not (tmp_path / "o.json").exists()
