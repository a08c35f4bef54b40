"""Exact analysis: dealer probabilities, optimal strategy, exact policy evaluation.

Public API:

* :func:`dealer_probabilities` - the dealer's final-hand probabilities for an
  upcard (S17/H17, conditioned on no blackjack under a peek; infinite deck or a
  finite shoe with known cards removed).
* :func:`solve` - infinite deck, exact: EV of every action in every two-card
  state, the optimal expected return per unit bet and the derived chart
  (:class:`Solution`).
* :func:`evaluate_policy` - exact expected return of any policy over
  :class:`DecisionState` (or a Gymnasium-observation table), infinite deck.
  Regret = ``solve(rules).expected_return - evaluate_policy(rules, policy)``.
* :func:`basic_strategy_chart` - the :class:`Chart` for the rules.
* :func:`finite_shoe_return` - exact combinatorial expected return of a
  total-dependent basic strategy for a 1..8-deck shoe.
* :func:`hand_evs` - finite shoe: EV of each action for a two-card hand.
* :class:`BasicStrategy` - a seat strategy ``strategy(table) -> Action`` that
  plays the chart; registered as ``"basic"`` in :mod:`blackjack_env.strategies`.

Off the cards that remain (finite shoes, composition-dependent play; see
:mod:`blackjack_env.analysis.composition`):

* :func:`action_values` - EV of every legal action of a hand of two or more
  cards, given the unseen cards (13 counts by rank, cards, or a Shoe);
  :func:`table_action_values` for the hand a Table waits on.
* :func:`composition_return` - the composition-dependent (CDZ-) return of a
  round off a full shoe (or any pool); :func:`effects_of_removal` - its change
  when one card of each rank is removed.
* :class:`CompositionStrategy` - seat strategy registered as ``"composition"``.
* :func:`perfect_counter` - the exact edge of every round of dealt shoes, the ceiling
  of a bet spread on it, and bettors graded by it (:mod:`.counter`:
  :func:`price_rounds`, :func:`counter_report`).

With numba installed (the ``fast`` extra) :func:`composition_return` runs its compiled
kernels (``analysis.kernels``); without it, the same figures in pure Python.

Insurance and even money are never taken by the analysed policies.

Grading an agent (infinite-deck rules)::

    from blackjack_env.analysis import evaluate_policy, solve
    best = solve(rules).expected_return
    regret = best - evaluate_policy(rules, lambda state: my_action(state.observation))

:class:`DecisionState` carries what the table shows at a decision (total,
soft, cards, pair, dealer upcard 1..10 with ace = 1, split status, legal
actions); ``state.observation`` is Gymnasium's ``(player_sum, dealer_card,
usable_ace)``.
"""

from __future__ import annotations

from blackjack_env.analysis.chart import Chart, Play
from blackjack_env.analysis.composition import (
    CompositionResult,
    action_values,
    composition_return,
    effects_of_removal,
    pool_from,
    pre_peek_values,
    table_action_values,
    table_pool,
)
from blackjack_env.analysis.composition_strategy import CompositionStrategy
from blackjack_env.analysis.counter import (
    CounterReport,
    CounterRound,
    counter_report,
    perfect_counter,
    price_rounds,
)
from blackjack_env.analysis.dealer import dealer_probabilities
from blackjack_env.analysis.finite import FiniteResult, finite_chart, finite_shoe_return, hand_evs
from blackjack_env.analysis.model import OUTCOMES
from blackjack_env.analysis.solve import Solution, decision_states, evaluate_policy, solve
from blackjack_env.analysis.state import DecisionState
from blackjack_env.analysis.strategy import BasicStrategy, basic_strategy_chart, table_state

__all__ = [
    "OUTCOMES",
    "BasicStrategy",
    "Chart",
    "CompositionResult",
    "CompositionStrategy",
    "CounterReport",
    "CounterRound",
    "DecisionState",
    "FiniteResult",
    "Play",
    "Solution",
    "action_values",
    "basic_strategy_chart",
    "composition_return",
    "counter_report",
    "dealer_probabilities",
    "decision_states",
    "effects_of_removal",
    "evaluate_policy",
    "finite_chart",
    "finite_shoe_return",
    "hand_evs",
    "perfect_counter",
    "pool_from",
    "pre_peek_values",
    "price_rounds",
    "solve",
    "table_action_values",
    "table_pool",
    "table_state",
]

