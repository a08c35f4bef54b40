"""Fixed agents: the engine's seat strategies (basic strategy, its composition-dependent
variant ``composition``, dealer-style, random legal, ...) and the Hi-Lo counter, behind
the project's policy interface.

A fixed strategy decides from the table itself (the hand's cards, the upcard,
the rules' options), which is more than some observation modes show; so
:class:`StrategyAgent` is bound to an env and reads its table
(``env.unwrapped.table``) when asked to act. Its answer is translated to the
env's action numbers (insurance declined = action 0, as the env documents).
At a ``BET`` step (env made with ``bet_sizes``) it bets the smallest size,
unless it is a counter (:func:`counting_agent`), which bets by its Hi-Lo
true count with a :class:`~blackjack_env.agents.counting.BetSpread`.

For exact grading (:func:`blackjack_env.agents.obs.decision_policy`), an agent may carry a
``state_policy(DecisionState) -> Action``: basic strategy's comes from the
analysis, dealer-style's is written out below; a random agent has none (it is
not deterministic).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from blackjack_env.agents.base import Agent, legal_actions
from blackjack_env.agents.counting import BetSpread, HiLoCounter
from blackjack_env.agents.obs import table_state
from blackjack_env.analysis import solve
from blackjack_env.engine import Action, Phase, Rules
from blackjack_env.strategies import make_strategy

__all__ = ["FIXED_AGENTS", "StrategyAgent", "counting_agent", "fixed_agent"]

#: Names :func:`fixed_agent` understands.
FIXED_AGENTS: tuple[str, ...] = (
    "basic", "composition", "dealer", "never-bust", "random", "stand", "counter",
)


def _dealer_state_policy(state: Any) -> Action:
    if state.pre_peek:
        return Action.DECLINE
    return Action.HIT if state.total < 17 and Action.HIT in state.legal else Action.STAND


def _stand_state_policy(state: Any) -> Action:
    return Action.DECLINE if state.pre_peek else Action.STAND


class StrategyAgent(Agent):
    """An engine seat strategy playing the learner's seat of ``env``.

    Args:
        strategy: ``strategy(table) -> Action``.
        env: the env whose table it reads (any wrapper around ``BlackjackEnv``).
        name: label for reports.
        state_policy: the same strategy over the analysis's ``DecisionState``
            (for exact grading), if it has one.
        counter / spread: make it a Hi-Lo bettor at ``BET`` steps.
    """

    def __init__(
        self,
        strategy: Callable[[Any], Action],
        env: Any,
        name: str,
        state_policy: Callable[[Any], Action] | None = None,
        counter: HiLoCounter | None = None,
        spread: BetSpread | None = None,
    ) -> None:
        self.strategy = strategy
        self.env = env
        self.name = name
        self.state_policy = state_policy
        self.counter = counter
        self.spread = spread or BetSpread()
        self.obs_mode = getattr(env.unwrapped, "obs_mode", None) or "multidiscrete"
        self.obs_mode = str(getattr(self.obs_mode, "value", self.obs_mode))

    def act(self, obs: Any, mask: np.ndarray | None = None) -> int:
        base = self.env.unwrapped
        table = base.table
        n = base.action_space.n
        legal = legal_actions(mask, n)
        if self.counter is not None:
            self.counter.sync_with_table(table)
        layout = base.layout
        if table.phase is Phase.BETTING:  # a bet step: choose a size
            bets = [int(a) for a in legal if a >= layout.n_play]
            if not bets:
                return int(legal[0])
            if self.counter is None:
                return bets[0]
            offered = [layout.bet_sizes[a - layout.n_play] for a in bets]
            size = self.spread.size_for(self.counter.true_count, offered)
            return bets[offered.index(size)]
        who = table.to_act
        if who is None or who[0] != base.seat:  # a settled round: any action continues
            return int(legal[0])
        action = self.strategy(table)
        if action is Action.DECLINE:
            return int(Action.STAND)
        index = int(action)
        return index if index in legal else int(legal[0])


def counting_agent(env: Any, spread: BetSpread | None = None) -> StrategyAgent:
    """Hi-Lo counter: bets by true count (``bet_sizes`` envs), plays basic strategy."""
    rules: Rules = env.unwrapped.rules
    if rules.shoe_decks is None:
        raise ValueError("a counter needs a finite shoe; these rules use an infinite deck")
    return StrategyAgent(basic_seat_strategy(rules), env, "counter",
                         state_policy=_basic_state_policy(rules),
                         counter=HiLoCounter(rules.shoe_decks), spread=spread)


def _basic_state_policy(rules: Rules) -> Callable[[Any], Action] | None:
    """Basic strategy's chart as a policy over ``DecisionState`` (infinite-deck rules only:
    that is where it can be graded exactly)."""
    if rules.decks is not None:
        return None

    try:
        return solve(rules).chart.action
    except ValueError:  # rules the analysis does not cover
        return None


def basic_seat_strategy(rules: Rules) -> Callable[[Any], Action]:
    """Basic strategy as a seat strategy ``strategy(table) -> Action``: the registered
    ``"basic"`` (:class:`~blackjack_env.analysis.strategy.BasicStrategy`), or where it
    refuses the rules (``ValueError``) the infinite-deck chart of these rules applied to
    the table. (Formerly ``basic_strategy``, the name of the analysis's class as well.)"""
    try:
        return make_strategy("basic", rules)
    except ValueError:
        pass

    chart = solve(rules.replace(decks=None)).chart

    def play(table: Any) -> Action:
        if table.phase is Phase.INSURANCE and Action.SURRENDER not in table.legal_actions():
            return Action.DECLINE
        return chart.action(table_state(table))

    return play


def fixed_agent(name: str, env: Any, seed: int | None = None) -> StrategyAgent:
    """A fixed agent by name (see :data:`FIXED_AGENTS`) playing ``env``'s learner seat."""
    rules: Rules = env.unwrapped.rules
    if name == "counter":
        return counting_agent(env)
    if name not in FIXED_AGENTS:
        raise ValueError(f"unknown fixed agent {name!r}; choose one of {', '.join(FIXED_AGENTS)}")
    if name == "basic":
        strategy = basic_seat_strategy(rules)
    else:
        strategy = make_strategy(name, rules, seed=seed)
    # composition plays basic strategy on an infinite deck (the composition tells nothing
    # there), so it is graded exactly by basic's policy; on a finite shoe it has none
    state_policy = {
        "basic": _basic_state_policy(rules) if name == "basic" else None,
        "composition": _basic_state_policy(rules) if name == "composition" else None,
        "dealer": _dealer_state_policy,
        "stand": _stand_state_policy,
    }.get(name)
    return StrategyAgent(strategy, env, name, state_policy=state_policy)
