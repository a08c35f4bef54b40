"""The composition-dependent pieces of grading: the ``composition`` fixed agent and the
reference figure of a finite-shoe grade (``grading.composition_reference``)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import blackjack_env  # noqa: F401
from blackjack_env.agents.fixed import FIXED_AGENTS, fixed_agent
from blackjack_env.agents.grading import composition_reference, exact_grade
from blackjack_env.analysis import solve
from blackjack_env.analysis.composition import action_values
from blackjack_env.engine import Action, preset


def _pool(decks: int, seen: list[int]) -> list[int]:
    """A full shoe less the ranks seen, counted here (not read from the table)."""
    counts = [4 * decks] * 13
    for rank in seen:
        counts[rank - 1] -= 1
    return counts


def test_composition_agent_plays_the_best_action_given_the_cards_that_remain():
    # one deck, no other seat: T 2 against a 4 (hole 9), then the 4 drawn makes
    # T 2 4 = 16. Each decision is the best of action_values off a pool counted by hand.
    rules = preset("vegas-strip", decks=1, seats=1, seats_per_deck=None)
    env = gym.make("blackjack_env/Blackjack-v0", rules=rules)
    agent = fixed_agent("composition", env)
    assert "composition" in FIXED_AGENTS and agent.name == "composition"
    obs, info = env.reset(seed=0, options={"cards": "TS 4H 2D 9C 4S"})
    values = action_values(rules, _pool(1, [10, 4, 2]), "TS 2D", "4")
    best = max(values, key=values.get)
    assert agent.act(obs, info["action_mask"]) == int(best)
    obs, _, _, _, info = env.step(int(Action.HIT))
    values = action_values(rules, _pool(1, [10, 4, 2, 4]), "TS 2D 4S", "4")
    assert agent.act(obs, info["action_mask"]) == int(max(values, key=values.get))


def test_composition_agent_is_graded_exactly_on_an_infinite_deck():
    # there the composition carries no information: it plays basic strategy, the optimum
    rules = preset("vegas-strip", decks=None)
    env = gym.make("blackjack_env/Blackjack-v0", rules=rules)
    grade = exact_grade(fixed_agent("composition", env), rules)
    assert grade is not None and grade["regret"] == pytest.approx(0.0, abs=1e-12)
    assert grade["exact_return"] == pytest.approx(solve(rules).expected_return, abs=1e-12)


def test_the_reference_of_a_finite_shoe_is_the_composition_dependent_optimum():
    """Six decks, S17, DAS, split to 4, no surrender, 3:2, peek: Eric Farmer's
    combinatorial composition-dependent return is -0.4029% (bjstrat.net); the issue
    asks the analysis to agree within 0.005 points."""
    ref = composition_reference(preset("vegas-strip", surrender="none"))
    assert ref is not None and ref["unavailable"] is None
    assert ref["name"] == "composition-dependent optimum of a freshly shuffled shoe (6 decks)"
    assert 100 * ref["expected_return"] == pytest.approx(-0.4029, abs=0.005)
    assert composition_reference(preset("vegas-strip", decks=None)) is None
    # rules the analysis cannot serve: no figure, the analysis' reason
    none = composition_reference(preset("terminal-21"))
    assert none["expected_return"] is None and "settlement" in none["unavailable"]
