"""The ``basic`` seat strategy: plays the derived basic-strategy chart at a Table.

:func:`basic_strategy_chart` gives the chart for a rule set: the exact
infinite-deck optimum for ``decks=None``, and for a finite shoe the
total-dependent chart derived by :func:`~blackjack_env.analysis.finite.finite_chart`
(a few seconds the first time, then cached). :func:`basic_strategy` turns a chart
into ``strategy(table) -> Action``: it reads the hand to act, builds the
:class:`DecisionState` the analysis uses, and answers with a legal action. In
the insurance phase it declines (never insures, never takes even money) unless
the chart says to surrender early.
"""

from __future__ import annotations

from functools import lru_cache

from blackjack_env.analysis._model import check_supported
from blackjack_env.analysis.chart import Chart
from blackjack_env.analysis.state import DecisionState
from blackjack_env.engine.rules import Rules, SplitBy
from blackjack_env.engine.table import Action, Phase, Table
from blackjack_env.strategies import register_strategy

__all__ = ["basic_strategy", "basic_strategy_chart", "table_state"]


@lru_cache(maxsize=64)
def basic_strategy_chart(rules: Rules) -> Chart:
    """The basic-strategy chart for ``rules`` (derived, cached).

    Infinite deck: from :func:`~blackjack_env.analysis.solve` (exact optimum).
    Finite shoe: :func:`~blackjack_env.analysis.finite.finite_chart`.
    """
    if rules.decks is None:
        from blackjack_env.analysis.solve import solve

        return solve(rules).chart
    from blackjack_env.analysis.finite import finite_chart

    return finite_chart(rules)


def table_state(table: Table) -> DecisionState:
    """The :class:`DecisionState` of the hand the table is waiting on."""
    phase = table.phase
    if phase is not Phase.PLAYER_TURNS and phase is not Phase.INSURANCE:
        raise ValueError(f"no decision is awaited in phase {phase.value}")
    rules = table.rules
    seat_i, _hand_i = table.to_act  # type: ignore[misc]
    seat = table.seats[seat_i]
    hand = table.current_hand
    assert hand is not None and table.upcard is not None
    pair = None
    if hand.is_pair(rules.split_by is SplitBy.VALUE):
        pair = rules.value(hand.cards[0].rank)
    up = table.upcard
    legal = tuple(a for a in table.legal_actions() if a is not Action.INSURE)
    return DecisionState(
        total=hand.total,
        soft=hand.soft,
        cards=len(hand.cards),
        pair=pair,
        dealer=rules.value(up.rank),
        dealer_ace=up.rank == 1,
        natural=hand.is_blackjack,
        split=hand.from_split,
        split_aces=hand.split_aces,
        hands=len(seat.hands),
        pre_peek=phase is Phase.INSURANCE,
        legal=legal,
    )


class basic_strategy:
    """Seat strategy playing ``chart`` (default: the basic-strategy chart of ``rules``).

    Args:
        rules: the table's rules (read from the table when omitted).
        chart: an explicit chart to play instead.
        seed: unused (basic strategy is deterministic); accepted for the registry.

    Rules the analysis does not cover raise ``ValueError`` here (when ``rules`` is
    given) or at the first decision. The chart is derived at the first decision
    (cached per rule set): instant for an infinite deck, about 2 s for six decks.
    """

    def __init__(
        self, rules: Rules | None = None, chart: Chart | None = None, seed: int | None = None
    ) -> None:
        if rules is not None and chart is None:
            check_supported(rules)
        self.rules = rules
        self._chart = chart

    def chart_for(self, rules: Rules) -> Chart:
        if self._chart is None:
            self._chart = basic_strategy_chart(rules if self.rules is None else self.rules)
        return self._chart

    def __call__(self, table: Table) -> Action:
        chart = self.chart_for(table.rules)
        state = table_state(table)
        if state.pre_peek:
            if Action.SURRENDER in state.legal and chart.action(state) is Action.SURRENDER:
                return Action.SURRENDER
            return Action.DECLINE
        return chart.action(state)


def _factory(rules: Rules | None = None, seed: int | None = None) -> basic_strategy:
    return basic_strategy(rules=rules, seed=seed)


register_strategy("basic", _factory)
