"""Agents at an engine table: turn any agent into a seat strategy, and seat specs by name.

The engine asks a seat for a decision with ``strategy(table) -> Action`` (see
:mod:`blackjack_env.strategies`); an agent answers ``act(obs, mask) -> int``
from an env observation. :class:`AgentStrategy` bridges the two by encoding
the table exactly as the env does, with the env's own pure encoding
functions (:mod:`blackjack_env.envs.view`), so an agent trained in the
env plays a seat at a table unchanged.

:func:`seat_strategy` resolves a seat spec: a built-in strategy name
(``basic``, ``dealer``, ``never-bust``, ``random``, ``stand``), ``counter``
(Hi-Lo bet spread, basic strategy play), or the path of a saved agent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from blackjack_env.agents.base import Agent
from blackjack_env.agents.counting import BetSpread, HiLoCounter
from blackjack_env.agents.fixed import basic_seat_strategy
from blackjack_env.agents.registry import load_agent
from blackjack_env.engine import Action, Phase, Rules, Table
from blackjack_env.envs.step import learner_decision
from blackjack_env.envs.view.layout import Layout, ObsMode
from blackjack_env.strategies import make_strategy, strategy_names

__all__ = ["AgentStrategy", "CountingSeat", "seat_strategy"]


def _layout(rules: Rules, obs_mode: str):
    return Layout(rules, ObsMode(obs_mode))


def table_observation(
    table: Table, seat: int, obs_mode: str, last_hand: int = 0
) -> tuple[Any, np.ndarray]:
    """The env's observation and int8 action mask for ``seat`` in the table's current state."""
    layout = _layout(table.rules, obs_mode)
    phase = learner_decision(table, seat)
    legal = layout.legal(table, seat, phase)
    bankroll = table.seats[seat].bankroll
    obs = layout.observe(table, seat, phase, last_hand, legal,
                         float("inf") if bankroll is None else float(bankroll))
    return obs, layout.mask(legal)


class AgentStrategy:
    """Plays a seat with an agent: ``strategy(table) -> Action``.

    In the pre-peek decision the env's action 0 (``STAND``) means decline, as
    the env documents; insurance is declined unless the agent answers ``INSURE``.
    """

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def __call__(self, table: Table) -> Action:
        who = table.to_act
        if who is None:
            raise ValueError("no decision is awaited at this table")
        seat, hand = who
        obs, mask = table_observation(table, seat, self.agent.obs_mode, hand)
        n = getattr(self.agent, "n_actions", None)
        if n is None and hasattr(self.agent, "model"):
            n = int(self.agent.model.action_space.n)
        if n is not None and mask.size > n:
            # an agent trained with fewer actions (stand/hit) picks among those it knows
            mask = mask[:n]
            if not mask.any():
                return table.legal_actions()[0]
        action = Action(int(self.agent.act(obs, mask)))
        if table.phase is Phase.INSURANCE:
            if action is Action.STAND:
                return Action.DECLINE
            if action not in table.legal_actions():
                return Action.DECLINE
        return action


class CountingSeat:
    """A card-counting seat: Hi-Lo bet spread, basic strategy play.

    ``bet(table, seat)`` gives the chips to bet from the true count of what it
    has seen; calling it as a strategy plays basic strategy (declining insurance).
    """

    def __init__(self, rules: Rules, base_bet: int | None = None, spread: Any = None) -> None:
        if rules.shoe_decks is None:
            raise ValueError("a counter needs a finite shoe; these rules use an infinite deck")
        self.counter = HiLoCounter(rules.shoe_decks)
        self.spread = spread if spread is not None else BetSpread()
        self.base_bet = base_bet if base_bet is not None else rules.min_bet
        self.play = basic_seat_strategy(rules)

    def observe(self, table: Table) -> None:
        self.counter.sync_with_table(table)

    def bet(self, table: Table, seat: int) -> int:
        self.observe(table)
        bankroll = table.seats[seat].bankroll
        true_count = self.counter.true_count
        return self.spread.bet(true_count, self.base_bet, bankroll, table.rules.max_bet)

    def __call__(self, table: Table) -> Action:
        self.observe(table)
        if table.phase is Phase.INSURANCE:
            return Action.DECLINE
        return self.play(table)


def seat_strategy(spec: str, rules: Rules, seed: int | None = None) -> Any:
    """A seat strategy from a spec: a strategy name, ``counter``, or a saved agent's path."""
    if spec == "counter":
        return CountingSeat(rules)
    if spec == "basic":
        return basic_seat_strategy(rules)
    path = Path(spec)
    if path.suffix in (".npz", ".zip") or path.exists():
        return AgentStrategy(load_agent(path))
    if spec in strategy_names():  # a known name that cannot serve these rules says why
        return make_strategy(spec, rules, seed=seed)
    try:
        return make_strategy(spec, rules, seed=seed)
    except ValueError:
        raise ValueError(
            f"unknown seat {spec!r}: use a strategy name ({', '.join(strategy_names())}), "
            f"'counter', or the path of a saved agent (.npz / .zip)"
        ) from None
