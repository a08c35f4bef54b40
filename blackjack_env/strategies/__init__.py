"""Fixed seat policies (the strategy pattern of seed 001).

A strategy is any callable ``strategy(table) -> Action`` that is asked for a
decision when ``table.to_act`` names its seat; it reads ``table.current_hand``,
``table.upcard``, ``table.legal_actions()`` and ``table.rules``, and must
return one of the legal actions. Strategies never draw from the table's card
stream; a random strategy owns its own generator.

Built in, by name (see :func:`make_strategy`):

* ``"dealer"``: plays like the dealer: hit below 17, stand on 17 or more;
  declines insurance.
* ``"never-bust"``: hits only while no card can bust the hand: a hard total
  of 11 or less, or a soft total below 19 (soft 19 and up stand); stands
  otherwise.
* ``"random"``: a uniformly random legal action (own seeded generator).
* ``"stand"``: always stands (declines insurance).
* ``"basic"``: basic strategy for the table's rules, computed exactly by
  :mod:`blackjack_env.analysis` (:class:`~blackjack_env.analysis.strategy.BasicStrategy`).
* ``"composition"``: the composition-dependent variant of ``"basic"``: the best
  action for the hand's exact cards and the cards left in the shoe
  (:class:`~blackjack_env.analysis.composition_strategy.CompositionStrategy`).

Both are registered here, explicitly; the analysis is imported when one of them is
made (so an error in it surfaces there), never as a side effect of importing it.

:func:`register_strategy` adds a name; :func:`make_strategy` also accepts a
callable, which is used as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from blackjack_env.engine.table import Action, Phase, Table

__all__ = [
    "RandomLegal",
    "Strategy",
    "StrategyError",
    "act_for",
    "dealer_style",
    "make_strategy",
    "never_bust",
    "play_until",
    "refused",
    "register_strategy",
    "stand_always",
    "strategy_name",
    "strategy_names",
]


class Strategy(Protocol):
    def __call__(self, table: Table) -> Action: ...


def dealer_style(table: Table) -> Action:
    """Hit below 17, stand on 17 or more; decline insurance and surrender."""
    if table.phase is Phase.INSURANCE:
        return Action.DECLINE
    hand = table.current_hand
    legal = table.legal_actions()
    if hand is not None and hand.total < 17 and Action.HIT in legal:
        return Action.HIT
    return Action.STAND


def never_bust(table: Table) -> Action:
    """Hit only while the next card cannot bust the hand (hard total <= 11 or soft)."""
    if table.phase is Phase.INSURANCE:
        return Action.DECLINE
    hand = table.current_hand
    legal = table.legal_actions()
    # a soft hand cannot bust on one card; stop on soft 19 or more
    if (
        hand is not None
        and Action.HIT in legal
        and (hand.hard_total <= 11 or hand.soft)
        and not (hand.soft and hand.total >= 19)
    ):
        return Action.HIT
    return Action.STAND


def stand_always(table: Table) -> Action:
    """Stand on everything; decline insurance."""
    if table.phase is Phase.INSURANCE:
        return Action.DECLINE
    return Action.STAND


class RandomLegal:
    """A uniformly random legal action, from its own generator (``"random"``)."""

    def __init__(self, seed: int | None = None, rng: np.random.Generator | None = None) -> None:
        self.rng = rng if rng is not None else np.random.default_rng(seed)

    def __call__(self, table: Table) -> Action:
        legal = table.legal_actions()
        return legal[int(self.rng.integers(len(legal)))]


StrategyFactory = Callable[..., Strategy]


def _basic(rules=None, seed: int | None = None) -> Strategy:
    # deferred: the registry stays free of the analysis until one is made
    # (tests/engine/test_strategies.py holds it)
    from blackjack_env.analysis.strategy import BasicStrategy

    return BasicStrategy(rules=rules, seed=seed)


def _composition(rules=None, seed: int | None = None) -> Strategy:
    # deferred: the registry stays free of the analysis until one is made
    # (tests/engine/test_strategies.py holds it)
    from blackjack_env.analysis.composition_strategy import CompositionStrategy

    return CompositionStrategy(rules=rules, seed=seed)


_REGISTRY: dict[str, StrategyFactory] = {
    "dealer": lambda rules=None, seed=None: dealer_style,
    "never-bust": lambda rules=None, seed=None: never_bust,
    "stand": lambda rules=None, seed=None: stand_always,
    "random": lambda rules=None, seed=None: RandomLegal(seed),
    "basic": _basic,
    "composition": _composition,
}


def register_strategy(name: str, factory: StrategyFactory) -> None:
    """Register ``factory(rules=..., seed=...) -> Strategy`` under ``name``."""
    _REGISTRY[name] = factory


def strategy_names() -> list[str]:
    return sorted(_REGISTRY)


def make_strategy(spec: str | Strategy, rules=None, seed: int | None = None) -> Strategy:
    """A strategy from a registered name or a callable (returned as is)."""
    if callable(spec) and not isinstance(spec, str):
        return spec
    try:
        factory = _REGISTRY[spec]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown strategy {spec!r}; use a callable(table) -> Action or one of "
            f"{', '.join(strategy_names())}"
        ) from None
    return factory(rules=rules, seed=seed)


class StrategyError(ValueError):
    """A seat strategy chose an action the table does not allow (or no action at all).

    Raised by :func:`act_for` in place of the table's ``IllegalActionError``, so that
    the message names the strategy that failed, not the caller whose call let it act
    (a learner's legal ``step``). The table refused the action and is as it was before
    it.
    """


def strategy_name(spec: object) -> str:
    """How a message names a strategy given as ``spec``: a registered name as itself,
    a function by its name, any other callable by its class's name."""
    if isinstance(spec, str):
        return repr(spec)
    name = getattr(spec, "__qualname__", None) or type(spec).__qualname__
    return str(name)


def refused(
    table: Table, action: object, name: str, role: str = "strategy", then: str = ""
) -> StrategyError:
    """The :class:`StrategyError` for ``action``, which the strategy ``name`` chose for
    the hand the table waits on and the table refused: it names the strategy (with
    ``role``, e.g. ``"others strategy"``), the seat and hand, what it chose and what it
    may choose, then ``then`` (what the caller's user should do)."""
    who = table.to_act
    where = f"seat {who[0]} hand {who[1]} ({table.current_hand})" if who else "the table"
    legal = ", ".join(a.name for a in table.legal_actions()) if who else "nothing"
    chose = getattr(action, "name", None) or repr(action)
    return StrategyError(
        f"the {role} {name} chose {chose} for {where}, which the table does not allow "
        f"now; it may choose {legal} (table.legal_actions()){then}"
    )


def act_for(
    table: Table, strategy: Strategy, name: str, role: str = "strategy", then: str = ""
) -> None:
    """Let ``strategy`` decide for the hand the table waits on and play its action; an
    action the table refuses raises :func:`refused`'s :class:`StrategyError` (the table
    is unchanged by the refused action)."""
    action = strategy(table)
    try:
        table.act(action)
    except ValueError as err:  # the engine's IllegalActionError: the call changed nothing
        raise refused(table, action, name, role, then) from err


def play_until(table: Table, strategies: dict[int, Strategy], stop_seat: int | None = None) -> None:
    """Let the strategies act until the table awaits ``stop_seat`` (or no one).

    ``strategies`` maps seat index to strategy. A decision for a seat with no
    strategy, other than ``stop_seat``, raises ``KeyError``; a strategy's illegal
    action raises :class:`StrategyError` (:func:`act_for`).
    """
    while True:
        who = table.to_act
        if who is None or who[0] == stop_seat:
            return
        strategy = strategies[who[0]]
        act_for(table, strategy, strategy_name(strategy))
