"""``decision_states``: every state ``evaluate_policy`` asks any policy about is listed.

The grading across rule sets answers the listed states in one batch and evaluates from
that table, so a state asked and not listed would fail the grade; here policies that
exercise every branch (a hashed choice among the legal actions, splitting and hitting
wherever allowed, the optimum, standing) are evaluated on random rule sets and every
state they are asked about must be in the list.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from blackjack_env.analysis import DecisionState, decision_states, evaluate_policy, solve
from blackjack_env.engine import Action, Rules, preset
from tests.analysis.helpers import random_gradable_rules, scrambled_policy


def _split_hit(state: DecisionState) -> Action:
    """Split, else hit, wherever allowed (every resplit, every card): the deepest walk."""
    for action in (Action.SPLIT, Action.HIT, Action.SURRENDER):
        if action in state.legal:
            return action
    return state.legal[0]


def _policies(rules: Rules) -> dict[str, Callable[[DecisionState], Action]]:
    return {"scrambled": scrambled_policy, "split-hit": _split_hit,
            "optimum": solve(rules).policy}


def _asked(rules: Rules, policy: Callable[[DecisionState], Action]) -> set[DecisionState]:
    asked: set[DecisionState] = set()

    def recorded(state: DecisionState) -> Action:
        asked.add(state)
        return policy(state)

    evaluate_policy(rules, recorded)
    return asked


@pytest.mark.parametrize("seed", range(10))
def test_every_state_asked_is_listed(seed: int) -> None:
    rules = random_gradable_rules(np.random.default_rng(seed))
    listed = decision_states(rules)
    assert len(set(listed)) == len(listed), "a state is listed twice"
    assert all(s.legal for s in listed)
    for name, policy in _policies(rules).items():
        missing = _asked(rules, policy) - set(listed)
        assert not missing, (f"{name} on {rules.summary()}: asked about {len(missing)} "
                             f"unlisted states, e.g. {next(iter(missing)).describe()}")


def test_the_list_is_what_the_walks_reach() -> None:
    """Every listed state is met by some policy: on vegas-strip with late surrender, the
    union of the states asked of the policies that play one fixed action wherever it is
    legal (else hit, else the first legal action), splitting first while the seat holds
    fewer than ``k`` hands (k = 1: never), is the whole list."""
    rules = preset("vegas-strip").replace(decks=None, surrender="late")
    listed = set(decision_states(rules))
    met: set[DecisionState] = set()
    for k in range(1, rules.max_split_hands + 1):
        for first in (Action.HIT, Action.STAND, Action.DOUBLE, Action.SURRENDER):
            def fixed(state: DecisionState, first: Action = first, k: int = k) -> Action:
                if state.hands < k and Action.SPLIT in state.legal:
                    return Action.SPLIT
                for action in (first, Action.HIT):
                    if action in state.legal:
                        return action
                return state.legal[0]
            met |= _asked(rules, fixed)
    assert met == listed, (len(met), len(listed))


def test_order_is_fixed_and_finite_shoes_are_refused() -> None:
    rules = preset("vegas-strip").replace(decks=None)
    assert decision_states(rules) == decision_states(rules.replace())
    with pytest.raises(ValueError, match="infinite deck"):
        decision_states(preset("vegas-strip"))
