"""Exact grading across rule sets (``blackjack_env.agents.rule_sets``).

The per-rule-set figures are checked against :func:`exact_grade` called one rule set at a
time (which asks the agent state by state as the analysis meets them, where
``grade_rule_sets`` answers the enumerated states in one batch and evaluates from the
table); the summary against numpy on those figures; the optimum as an agent at regret 0.
"""

from __future__ import annotations

import itertools
import json
import zlib
from typing import Any

import numpy as np
import pytest

from blackjack_env.agents.grading import exact_grade
from blackjack_env.agents.mlp import MLPAgent
from blackjack_env.agents.obs import encode_state, encode_states, state_mask, state_masks
from blackjack_env.agents.rule_sets import (
    BOOTSTRAP_RESAMPLES,
    OptimalPlay,
    RuleSetGrades,
    bootstrap_interval,
    grade_rule_sets,
    rule_axes,
)
from blackjack_env.analysis import decision_states, solve
from blackjack_env.engine import Rules, preset
from blackjack_env.engine.play import stand_hit_only
from blackjack_env.envs import view as V
from tests.analysis.helpers import random_gradable_rules

VEGAS = preset("vegas-strip", decks=None)


def rule_list(n: int, seed: int = 0) -> list[Rules]:
    rng = np.random.default_rng(seed)
    return [random_gradable_rules(rng) for _ in range(n)]


def vegas_variants(n: int, seed: int = 0) -> list[Rules]:
    """Vegas-strip with the common rules drawn (as a rule space's axes vary them)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        hole = str(rng.choice(["peek", "no-peek"]))
        out.append(VEGAS.replace(
            dealer_hits_soft_17=bool(rng.random() < 0.5),
            blackjack_payout=str(rng.choice(["3:2", "6:5", "1:1"])),
            hole_card=hole, insurance=hole == "peek",
            surrender=str(rng.choice(["none", "late", "early"])),
            double=str(rng.choice(["any", "9-11", "10-11"])),
            double_after_split=bool(rng.random() < 0.5),
            max_split_hands=int(rng.integers(1, 5))))
    return out


def random_mlp(obs_mode: str = "vector", seed: int = 0, **kw: Any) -> MLPAgent:
    """A randomly initialised policy network (large weights: its choices vary by state)."""
    rng = np.random.default_rng(seed)
    size = V.FEATURES_SIZE if obs_mode == "features" else V.VECTOR_SIZE
    if kw.get("observe_rules"):
        size += V.RULES_SIZE
    dims = (size, 32, 5)
    layers = [(rng.normal(0, 1.5, (a, b)), rng.normal(0, 0.5, b))
              for a, b in itertools.pairwise(dims)]
    layers[0][0][V.VEC_HAND_INDEX] *= 10  # its split hands depend on their index
    layers[1][1][3] += 8.0  # and it splits wherever it may
    return MLPAgent(layers, obs_mode=obs_mode, **kw)


class HashAgent:
    """An agent with only ``act``: a legal action picked by a hash of the observation (so
    its answer on a split hand depends on the hand index it is shown)."""

    name = "hash"

    def __init__(self, obs_mode: str) -> None:
        self.obs_mode = obs_mode

    def act(self, obs: Any, mask: Any = None) -> int:
        legal = np.flatnonzero(mask)
        key = np.asarray(obs, dtype=np.float64).tobytes()
        return int(legal[zlib.crc32(key) % legal.size])


class FixedChart:
    """Basic strategy of vegas-strip played on every rule set (a fixed agent's
    ``state_policy``, as ``fixed_agent('basic', env)`` carries)."""

    name = "basic-vegas"
    obs_mode = "multidiscrete"

    def __init__(self) -> None:
        self.state_policy = solve(VEGAS).chart.action

    def act(self, obs: Any, mask: Any = None) -> int:  # pragma: no cover - not played here
        raise NotImplementedError


# ----------------------------------------------------------------------- the encoding
@pytest.mark.parametrize(("mode", "carry"), [("multidiscrete", False), ("vector", False),
                                             ("features", False), ("vector", True),
                                             ("features", True)])
def test_encode_states_rows_equal_encode_state(mode: str, carry: bool) -> None:
    """Batched and one by one give the same bits, at every hand index, and the masks; with
    the rules carried, each row ends with the rule set's features."""
    for rules in [VEGAS, *rule_list(3, seed=5)]:
        states = decision_states(rules)[::7]
        for index in (0, 1, 3):
            batch = encode_states(states, rules, mode, index, observe_rules=carry)
            rows = np.stack([np.asarray(encode_state(s, rules, mode, index, carry))
                             for s in states])
            if carry:
                np.testing.assert_array_equal(batch[:, -V.RULES_SIZE:],
                                              np.broadcast_to(V.rule_features(rules),
                                                              (len(states), V.RULES_SIZE)))
                np.testing.assert_array_equal(
                    batch[:, :-V.RULES_SIZE], encode_states(states, rules, mode, index))
            assert batch.dtype == rows.dtype
            np.testing.assert_array_equal(batch, rows)
        masks = state_masks(states, rules, 7)
        np.testing.assert_array_equal(
            masks[:, :5], np.stack([np.pad(state_mask(s, rules), (0, 5 - state_mask(
                s, rules).size)) for s in states]))
        assert not masks[:, 5:].any()


def test_encode_states_refuses_what_it_cannot_encode() -> None:
    states = decision_states(VEGAS)[:3]
    with pytest.raises(ValueError, match="tuple"):
        encode_states(states, VEGAS, "tuple")
    with pytest.raises(ValueError, match="cannot carry the rules"):
        encode_states(states, VEGAS, "multidiscrete", observe_rules=True)


# ----------------------------------------------------------------------- the grades
def test_the_optimum_grades_at_zero_regret_on_every_rule_set() -> None:
    rules = rule_list(10, seed=1)
    result = grade_rule_sets(OptimalPlay(), rules, workers=1)
    assert [g.index for g in result.grades] == list(range(10))
    for g, r in zip(result.grades, rules, strict=True):
        assert g.rules == r
        assert g.optimal_return == solve(r).expected_return
        assert abs(g.regret) < 1e-12
    assert abs(result.mean) < 1e-12


def test_a_fixed_agent_grades_as_exact_grade_one_rule_set_at_a_time() -> None:
    agent = FixedChart()
    rules = vegas_variants(12, seed=2)
    result = grade_rule_sets(agent, rules, workers=1)
    regrets = []
    for g, r in zip(result.grades, rules, strict=True):
        alone = exact_grade(agent, r)
        assert alone is not None
        assert g.exact_return == pytest.approx(alone["exact_return"], abs=1e-12)
        assert g.optimal_return == alone["optimal_return"]
        regrets.append(alone["regret"])
    np.testing.assert_allclose(result.regrets, regrets, rtol=0, atol=1e-12)
    assert (result.regrets > -1e-12).all() and result.regrets.max() > 1e-4
    assert result.grades[0].split_states_depending_on_hand_index is None


@pytest.mark.parametrize(("make", "mode"), [
    (lambda: random_mlp("vector", seed=3), "vector"),
    (lambda: random_mlp("features", seed=4, observe_rules=True), "features"),
    (lambda: HashAgent("multidiscrete"), "multidiscrete"),
    (lambda: HashAgent("vector"), "vector"),
], ids=["mlp-vector", "mlp-features-rules", "act-multidiscrete", "act-vector"])
def test_observation_agents_grade_as_exact_grade(make: Any, mode: str) -> None:
    """Networks asked in one batch per rule set, and agents with only ``act``: the same
    regrets and the same count of split states whose answer depends on the hand index."""
    agent = make()
    # (rules that offer more than stand and hit: exact_grade asks the 5-action network
    # with the env's mask, which has 2 entries under the others)
    rules = [r for r in rule_list(10, seed=4) if not stand_hit_only(r)][:6]
    assert len(rules) == 6
    result = grade_rule_sets(agent, rules, workers=1)
    depends = 0
    for g, r in zip(result.grades, rules, strict=True):
        alone = exact_grade(agent, r, mode)
        assert alone is not None
        assert g.regret == pytest.approx(alone["regret"], abs=1e-12)
        assert g.split_states_depending_on_hand_index == \
            alone["split_states_depending_on_hand_index"]
        depends += alone["split_states_depending_on_hand_index"]
    assert depends > 0  # the count is exercised, not only zero
    assert result.mean > 0.05  # a random policy is far from the optimum


def test_the_summary_is_numpy_on_the_per_rule_set_figures() -> None:
    rules = vegas_variants(16, seed=6)
    result = grade_rule_sets(FixedChart(), rules, workers=1)
    r = np.array([g.regret for g in result.grades])
    assert result.mean == pytest.approx(float(np.mean(r)), abs=1e-15)
    assert result.median == float(np.median(r))
    assert result.worst.index == int(np.argmax(r)) and result.worst.regret == r.max()
    varying = rule_axes(rules)
    assert set(varying) == {"dealer_hits_soft_17", "blackjack_payout", "hole_card",
                            "insurance", "surrender", "double", "double_after_split",
                            "max_split_hands"}
    assert {a.axis for a in result.axes} == set(varying)
    spreads = [a.spread for a in result.axes]
    assert spreads == sorted(spreads, reverse=True)
    for a in result.axes:
        values = np.array([x.to_dict()[a.axis] for x in rules], dtype=object)
        for value, mean, count in a.values:
            at = np.array([v == value for v in values])
            assert count == at.sum()
            assert mean == pytest.approx(float(r[at].mean()), abs=1e-15)
        means = [m for _, m, _ in a.values]
        assert a.spread == pytest.approx(max(means) - min(means), abs=1e-15)
        assert a.costliest == a.values[int(np.argmax(means))][0]
    d = result.to_dict()
    assert d["n_rule_sets"] == 16 and d["median_regret"] == result.median
    assert [g["regret"] for g in d["grades"]] == list(r)
    assert Rules.from_dict(d["grades"][3]["rules"]) == rules[3]
    text = result.table()
    assert "median regret" in text and result.axes[0].axis in text


def test_given_axes_and_the_costliest_value_of_a_known_axis() -> None:
    """Basic strategy of vegas-strip (S17, no surrender) graded on vegas-strip with and
    without H17 and early surrender: the H17 rule sets, where its chart is not the
    optimum's, carry its regret; on the rule set equal to its own it is 0."""
    rules = [VEGAS.replace(dealer_hits_soft_17=h, surrender=s)
             for h in (False, True) for s in ("none", "early")]
    result = grade_rule_sets(FixedChart(), rules, workers=1, axes=["dealer_hits_soft_17"])
    assert [a.axis for a in result.axes] == ["dealer_hits_soft_17"]
    assert result.grades[0].regret == pytest.approx(0.0, abs=1e-12)
    (axis,) = result.axes
    assert axis.costliest is True
    assert [v for v, _, _ in axis.values] == [False, True]


def test_the_interval_is_the_bootstrap_and_close_to_the_normal_one() -> None:
    """The percentile bootstrap of the mean over 256 values lies within 10% of the normal
    interval's half-width (1.96 sd / sqrt(n)): with 10,000 resamples its percentiles move
    by about 2% between seeds, and the bootstrap's sd is the sample's with ddof=0."""
    rng = np.random.default_rng(9)
    values = rng.gamma(2.0, 0.001, 256)
    lo, hi = bootstrap_interval(values)
    half = 1.959964 * values.std(ddof=1) / np.sqrt(values.size)
    assert lo < values.mean() < hi
    assert (hi - lo) / 2 == pytest.approx(half, rel=0.10)
    assert bootstrap_interval(values) == (lo, hi)  # fixed draws: the same every time
    assert bootstrap_interval(values[:1]) == (values[0], values[0])
    assert BOOTSTRAP_RESAMPLES == 10_000


def test_the_figures_do_not_depend_on_the_worker_count() -> None:
    rules = vegas_variants(6, seed=8)
    agent = random_mlp("features", seed=1)
    one = grade_rule_sets(agent, rules, workers=1)
    two = grade_rule_sets(agent, rules, workers=2)
    assert two.workers == 2

    def figures(r: RuleSetGrades) -> dict[str, Any]:
        d = r.to_dict()
        return {k: v for k, v in d.items() if k not in ("seconds", "workers")}

    assert figures(one) == figures(two)


# ----------------------------------------------------------------------- wrong input
def test_wrong_input_is_refused_before_any_work() -> None:
    agent = FixedChart()
    with pytest.raises(ValueError, match="empty"):
        grade_rule_sets(agent, [])
    with pytest.raises(ValueError, match="rule set 1 is a dict"):
        grade_rule_sets(agent, [VEGAS, VEGAS.to_dict()])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"rule set 1 .*infinite deck"):
        grade_rule_sets(agent, [VEGAS, preset("vegas-strip")])
    with pytest.raises(ValueError, match=r"rule set 0 .*highest-hand"):
        grade_rule_sets(agent, [VEGAS.replace(settlement="highest-hand")])
    with pytest.raises(ValueError, match="unknown rule axis 'colour'"):
        grade_rule_sets(agent, [VEGAS], axes=["colour"])
    with pytest.raises(ValueError, match="workers=0"):
        grade_rule_sets(agent, [VEGAS], workers=0)
    with pytest.raises(ValueError, match="dict"):
        grade_rule_sets(HashAgent("dict"), [VEGAS])


def test_agents_without_a_deterministic_policy_are_refused() -> None:
    import gymnasium as gym

    from blackjack_env.agents.fixed import fixed_agent

    env = gym.make("blackjack_env/Blackjack-v0", rules=VEGAS)
    for name in ("random", "never-bust"):
        with pytest.raises(ValueError, match="no deterministic policy"):
            grade_rule_sets(fixed_agent(name, env, seed=0), [VEGAS], workers=1)
    # a fixed agent with a state policy goes to the workers without its env
    basic = fixed_agent("basic", env)
    result = grade_rule_sets(basic, [VEGAS, VEGAS.replace(dealer_hits_soft_17=True)],
                             workers=1)
    assert result.grades[0].regret == pytest.approx(0.0, abs=1e-12)


# ----------------------------------------------------------------------- MLPAgent
def test_an_mlp_that_observes_the_rules_saves_and_loads(tmp_path: Any) -> None:
    agent = random_mlp("features", seed=2, observe_rules=True)
    assert agent.obs_size == V.FEATURES_SIZE + V.RULES_SIZE
    back = MLPAgent.load(agent.save(tmp_path / "m.npz"))
    assert back.observe_rules is True and back.obs_size == agent.obs_size
    for w in (agent, back):
        assert grade_rule_sets(w, [VEGAS], workers=1).grades[0].regret == grade_rule_sets(
            agent, [VEGAS], workers=1).grades[0].regret
    # a file written before the flag existed (no observe_rules in its meta) loads as before
    plain = random_mlp("vector", seed=2)
    path = plain.save(tmp_path / "old.npz")
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    del meta["observe_rules"]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(path, **arrays)
    old = MLPAgent.load(path)
    assert old.observe_rules is False and old.obs_size == V.VECTOR_SIZE


def test_an_mlp_that_cannot_carry_the_rules_is_refused(tmp_path: Any) -> None:
    layers = [(np.zeros((V.MD_SIZE, 5)), np.zeros(5))]
    with pytest.raises(ValueError, match="follow the 'vector' and 'features'"):
        MLPAgent(layers, obs_mode="multidiscrete", observe_rules=True)
    with pytest.raises(ValueError, match=f"has {V.VECTOR_SIZE + V.RULES_SIZE} entries"):
        MLPAgent([(np.zeros((V.VECTOR_SIZE, 5)), np.zeros(5))], observe_rules=True)
    with pytest.raises(ValueError, match="True or False"):
        MLPAgent([(np.zeros((V.VECTOR_SIZE, 5)), np.zeros(5))], observe_rules=1)  # type: ignore[arg-type]
    path = random_mlp("vector").save(tmp_path / "m.npz")
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    meta["observe_rules"] = True  # a header that does not fit its arrays
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match=r"m\.npz: a damaged MLP policy"):
        MLPAgent.load(path)


def test_planned_workers() -> None:
    from blackjack_env.agents.rule_sets import RULE_SETS_PER_WORKER, planned_workers
    from blackjack_env.analysis.counter import default_workers

    assert planned_workers(RULE_SETS_PER_WORKER - 1) == 1  # a short list: in this process
    assert planned_workers(256) == max(1, min(default_workers(), 256 // RULE_SETS_PER_WORKER))
    assert planned_workers(3, 8) == 3 and planned_workers(10, 2) == 2


def test_mlp_exact_grades_carries_the_rules_too() -> None:
    """``mlp.exact_grades`` (the training's grader) encodes with the rule features of a
    network that observes them: the same regret as exact_grade and grade_rule_sets."""
    from blackjack_env.agents.mlp import exact_grades

    agent = random_mlp("features", seed=6, observe_rules=True)
    rules = VEGAS.replace(surrender="early", insurance=False)
    (batch,) = exact_grades([agent], rules, "features")
    alone = exact_grade(agent, rules)
    assert alone is not None
    assert batch["regret"] == pytest.approx(alone["regret"], abs=1e-12)
    assert grade_rule_sets(agent, [rules], workers=1).grades[0].regret == pytest.approx(
        alone["regret"], abs=1e-12)
    with pytest.raises(ValueError, match="observe the rules or none"):
        exact_grades([agent, random_mlp("features", seed=6)], rules, "features")
