"""Basic strategy graded exactly equals the analysis optimum; simulations agree with exact."""

from __future__ import annotations

import math
import zlib

import gymnasium as gym
import numpy as np
import pytest

import blackjack_env  # noqa: F401
from blackjack_env.agents import QLearningAgent, decision_policy
from blackjack_env.agents.fixed import fixed_agent
from blackjack_env.agents.grading import exact_grade, simulate
from blackjack_env.agents.obs import encode_state, state_mask
from blackjack_env.analysis import evaluate_policy, solve
from blackjack_env.engine import Action, preset

INFINITE = {
    "sutton-barto": preset("sutton-barto"),
    "gymnasium-natural": preset("gymnasium-natural"),
    "vegas-strip": preset("vegas-strip", decks=None),
    "european-no-hole-card": preset("european-no-hole-card", decks=None),
    "downtown-h17": preset("downtown-h17", decks=None),
}


@pytest.mark.parametrize("name", sorted(INFINITE))
def test_basic_strategy_exact_return_equals_the_optimum(name):
    rules = INFINITE[name]
    env = gym.make("blackjack_env/Blackjack-v0", rules=rules)
    grade = exact_grade(fixed_agent("basic", env), rules)
    assert grade is not None
    assert grade["exact_return"] == pytest.approx(solve(rules).expected_return, abs=1e-12)
    assert grade["regret"] == pytest.approx(0.0, abs=1e-12)


def test_dealer_style_regret_is_positive_and_matches_direct_evaluation():
    rules = INFINITE["vegas-strip"]
    env = gym.make("blackjack_env/Blackjack-v0", rules=rules)
    grade = exact_grade(fixed_agent("dealer", env), rules)
    direct = evaluate_policy(
        rules, lambda s: Action.DECLINE if s.pre_peek else
        (Action.HIT if s.total < 17 else Action.STAND))
    assert grade["exact_return"] == pytest.approx(float(direct), abs=1e-12)
    assert grade["regret"] > 0.01


def test_an_agent_that_copies_the_optimal_table_has_zero_regret():
    """The observation route: a tabular agent whose table holds the optimal action for
    every sutton-barto observation is graded at the optimum."""
    rules = INFINITE["sutton-barto"]
    best = solve(rules)
    agent = QLearningAgent(2, obs_mode="tuple")
    for total in range(4, 22):
        for dealer in range(1, 11):
            for soft in (0, 1):
                from blackjack_env.agents.plots import cell_state

                if soft and total < 12:
                    continue
                state = cell_state(rules, "soft" if soft else "hard", total, dealer)
                row = np.zeros(2)
                row[int(best.policy(state))] = 1.0
                agent.q[(total, dealer, soft)] = row
    grade = exact_grade(agent, rules, "tuple")
    assert grade["regret"] == pytest.approx(0.0, abs=1e-12)
    # and a deliberately wrong entry (stand on hard 11 v 6) costs exactly what the analysis says
    agent.q[(11, 6, 0)] = np.array([1.0, 0.0])
    worse = exact_grade(agent, rules, "tuple")
    policy = decision_policy(agent, rules, "tuple")
    assert worse["exact_return"] == pytest.approx(float(evaluate_policy(rules, policy)))
    assert worse["regret"] > 0


def test_simulated_return_of_basic_strategy_covers_the_exact_value():
    """30k rounds of sutton-barto: the exact optimum lies in the simulation's 99% CI."""
    rules = INFINITE["sutton-barto"]
    env = gym.make("blackjack_env/Blackjack-v0", rules=rules, obs_mode="tuple")
    sim = simulate(fixed_agent("basic", env), env, 30_000, seed=2024)
    half99 = 2.5758293035489 * sim["sd"] / math.sqrt(sim["rounds"])
    assert abs(sim["mean_return"] - solve(rules).expected_return) <= half99
    rates = sim["rates"]
    assert sum(rates.values()) == pytest.approx(1.0)
    assert rates["surrender"] == 0.0 and rates["bust"] > 0.05


def test_random_agent_has_no_exact_grade_and_finite_shoes_are_refused():
    env = gym.make("blackjack_env/Blackjack-v0", rules=INFINITE["vegas-strip"])
    assert exact_grade(fixed_agent("random", env, seed=1), INFINITE["vegas-strip"]) is None
    six = preset("vegas-strip")
    env6 = gym.make("blackjack_env/Blackjack-v0", rules=six)
    assert exact_grade(fixed_agent("basic", env6), six) is None


def test_simulate_refuses_a_bad_budget():
    env = gym.make("blackjack_env/Blackjack-v0", rules=INFINITE["sutton-barto"], obs_mode="tuple")
    with pytest.raises(ValueError, match="hands"):
        simulate(fixed_agent("stand", env), env, 0)


class _HashAgent:
    """A deterministic agent on "vector" that answers an arbitrary legal action per
    observation (its answers depend on the hand index), and records what it is asked."""

    obs_mode = "vector"

    def __init__(self) -> None:
        self.asked: list[tuple[bytes, bytes]] = []

    def act(self, obs, mask):
        self.asked.append((obs.tobytes(), mask.tobytes()))
        return _hashed(obs, mask)


def _hashed(obs, mask):
    legal = np.flatnonzero(mask)
    return int(legal[zlib.crc32(obs.tobytes()) % len(legal)])


def test_decision_policy_asks_each_question_once_and_shares_answers():
    """The agent is asked once per distinct observation and mask; a state whose answer
    depends on the hand index is still listed each time the analysis asks it; a second
    policy given the same ``answers`` asks only what the first did not."""
    rules = INFINITE["vegas-strip"]
    agent = _HashAgent()
    answers: dict = {}
    ambiguous: list = []
    policy = decision_policy(agent, rules, ambiguous=ambiguous, answers=answers)
    seen: list = []
    value = float(evaluate_policy(rules, lambda s: seen.append(s) or policy(s)))
    assert len(agent.asked) == len(set(agent.asked)) == len(answers)
    assert len(seen) > len(set(seen))  # the analysis asks states again

    def depends(state):  # the agent's answer differs between the hand indices
        if not state.split:
            return False
        mask = state_mask(state, rules)
        got = {_hashed(encode_state(state, rules, "vector", k), mask)
               for k in range(rules.max_split_hands)}
        return len(got) > 1

    assert ambiguous == [s for s in seen if depends(s)] and ambiguous
    # the same policy without the shared dict (a fresh agent): the same value
    assert float(evaluate_policy(rules, decision_policy(_HashAgent(), rules))) == value
    # index 0: asks only the observations the first policy never built
    before = len(agent.asked)
    alone = _HashAgent()
    first = float(evaluate_policy(rules, decision_policy(alone, rules, split_hand_index=0)))
    again = float(evaluate_policy(rules, decision_policy(
        agent, rules, split_hand_index=0, answers=answers)))
    assert again == first
    new = agent.asked[before:]
    assert not set(new) & set(agent.asked[:before])
    assert len(new) < len(set(alone.asked))
