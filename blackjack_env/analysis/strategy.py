"""The ``basic`` seat strategy: plays the derived basic-strategy chart at a Table.

:func:`basic_strategy_chart` gives the chart for a rule set: the exact
infinite-deck optimum for ``decks=None``, and for a finite shoe the
total-dependent chart derived by :func:`~blackjack_env.analysis.finite.finite_chart`
(a few seconds the first time, then cached). :class:`BasicStrategy` turns a chart
into ``strategy(table) -> Action``: it reads the hand to act, builds the
:class:`DecisionState` the analysis uses, and answers with a legal action. In
the insurance phase it declines (never insures, never takes even money) unless
the chart says to surrender early.

Rules the exact analysis cannot serve (``settlement='highest-hand'``,
``bet_raising=True``, ``split_by='value'`` with a non-ace card worth 1, as in the
seed preset ``terminal-21``) do not make ``basic`` unusable: it plays the chart of
the nearest rules the analysis serves (:func:`nearest_supported_rules`), warns once
with the reason, and records it in :attr:`BasicStrategy.fallback`.

It is registered as ``"basic"`` by :mod:`blackjack_env.strategies` (this module does
not import the strategies).
"""

from __future__ import annotations

import warnings
from functools import lru_cache

from blackjack_env.analysis.chart import Chart
from blackjack_env.analysis.finite import finite_chart
from blackjack_env.analysis.model import check_supported
from blackjack_env.analysis.solve import solve
from blackjack_env.analysis.state import DecisionState
from blackjack_env.engine.rules import Rules, Settlement, SplitBy
from blackjack_env.engine.table import Action, Phase, Table

__all__ = ["BasicStrategy", "basic_strategy_chart", "nearest_supported_rules", "table_state"]


def nearest_supported_rules(rules: Rules) -> tuple[Rules, str | None]:
    """``(rules, None)`` when the exact analysis serves ``rules``; otherwise the nearest
    rules it serves and the reason, e.g. ``"settlement='highest-hand' -> 'dealer'"``.

    The changes, each made only where needed: every hand is judged against the
    dealer (``settlement='dealer'``: a seat's best play against the dealer is the
    natural chart when results depend on the other seats), no mid-hand raises
    (``bet_raising=False``: the playing decisions are charted without them), and
    pairs by rank (``split_by='rank'``).
    """
    try:
        check_supported(rules)
        return rules, None
    except ValueError:
        pass
    changes: dict[str, object] = {}
    if rules.settlement is not Settlement.DEALER:
        changes["settlement"] = Settlement.DEALER
    if rules.bet_raising:
        changes["bet_raising"] = False
    if rules.split_by is SplitBy.VALUE:
        changes["split_by"] = SplitBy.RANK
    near = rules.replace(**changes)
    check_supported(near)  # (a rule the analysis refuses that is not handled above raises)
    reason = ", ".join(
        f"{name}={_text(getattr(rules, name))} -> {_text(value)}" for name, value in changes.items()
    )
    return near, reason


def _text(value: object) -> str:
    return repr(getattr(value, "value", value))


@lru_cache(maxsize=64)
def basic_strategy_chart(rules: Rules) -> Chart:
    """The basic-strategy chart for ``rules`` (derived, cached).

    Infinite deck: from :func:`~blackjack_env.analysis.solve` (exact optimum).
    Finite shoe: :func:`~blackjack_env.analysis.finite.finite_chart`.
    """
    if rules.decks is None:
        return solve(rules).chart

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


class BasicStrategy:
    """Seat strategy playing ``chart`` (default: the basic-strategy chart of ``rules``).

    Args:
        rules: the table's rules (read from the table when omitted).
        chart: an explicit chart to play instead.
        seed: unused (basic strategy is deterministic); accepted for the registry.

    Rules the analysis does not cover are replaced by the nearest rules it does
    (:func:`nearest_supported_rules`): the strategy then warns (``UserWarning``) and
    :attr:`fallback` says what was changed (None when the chart is the rules' own).
    The chart is derived at the first decision (cached per rule set): instant for an
    infinite deck, about 2 s for six decks (longer for one deck).
    """

    def __init__(
        self, rules: Rules | None = None, chart: Chart | None = None, seed: int | None = None
    ) -> None:
        #: what was changed to chart rules the analysis does not serve (None: nothing)
        self.fallback: str | None = None
        self.rules = rules
        if rules is not None and chart is None:
            self.rules = self._servable(rules)
        self._chart = chart

    def _servable(self, rules: Rules) -> Rules:
        near, reason = nearest_supported_rules(rules)
        if reason is not None:
            self.fallback = reason
            warnings.warn(
                f"basic strategy: the exact analysis does not serve these rules; playing the "
                f"chart of the nearest rules it serves ({reason})",
                UserWarning,
                stacklevel=3,
            )
        return near

    def chart_for(self, rules: Rules) -> Chart:
        if self._chart is None:
            if self.rules is None:
                self.rules = self._servable(rules)
            self._chart = basic_strategy_chart(self.rules)
        return self._chart

    def __call__(self, table: Table) -> Action:
        chart = self.chart_for(table.rules)
        state = table_state(table)
        if state.pre_peek:
            if Action.SURRENDER in state.legal and chart.action(state) is Action.SURRENDER:
                return Action.SURRENDER
            return Action.DECLINE
        return chart.action(state)
