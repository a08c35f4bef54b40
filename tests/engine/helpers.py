"""Shared helpers for the engine tests: building scripted tables and state snapshots."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from blackjack_env.engine import Action, EventKind, Outcome, Phase, Rules, Table, preset

__all__ = [
    "card_total",
    "events_of",
    "finish",
    "outcomes",
    "play",
    "scripted",
    "snapshot",
]


def scripted(
    rules: Rules | str,
    cards: str,
    bets: dict[int, int] | int = 10,
    *,
    bankroll: Any = None,
    seed: int = 0,
    **overrides: Any,
) -> Table:
    """A table for ``rules`` (a Rules or a preset name, with overrides), the shoe
    stacked with ``cards``, bets placed (``{seat: amount}`` or one amount for
    seat 0) and the round dealt."""
    if isinstance(rules, str):
        rules = preset(rules, **overrides)
    elif overrides:
        rules = rules.replace(**overrides)
    table = Table(rules, seed=seed, bankroll=bankroll)
    table.shoe.stack(cards)
    if isinstance(bets, int):
        bets = {0: bets}
    for seat, amount in bets.items():
        table.bet(seat, amount)
    table.deal()
    return table


def play(table: Table, *actions: Action) -> None:
    """Apply the actions in order to whichever hand is to act."""
    for action in actions:
        table.act(action)


def outcomes(table: Table, seat: int = 0) -> list[tuple[Outcome, Fraction | int]]:
    """``(outcome, net)`` per hand of a seat, in hand order."""
    return [(r.outcome, r.net) for r in sorted(table.seats[seat].results, key=lambda r: r.hand)]


def events_of(table: Table, kind: EventKind) -> list:
    return [e for e in table.events if e.kind is kind]


def card_total(table: Table) -> int:
    """Cards the table and shoe account for: undealt + discard tray + on the table."""
    shoe = table.shoe
    assert shoe.remaining is not None
    return shoe.remaining + len(shoe.discards) + len(table.cards_on_table())


def _hand_state(hand) -> tuple:
    return (
        tuple(hand.cards),
        hand.bet,
        hand.doubled,
        hand.surrendered,
        hand.from_split,
        hand.split_aces,
        hand.done,
        hand.settled,
        hand.blackjack_counts,
    )


def snapshot(table: Table) -> tuple:
    """Everything observable about a table and its shoe, for before/after comparisons."""
    shoe = table.shoe
    seats = tuple(
        (
            s.bankroll,
            s.bet,
            s.insurance,
            s.net,
            tuple(s.results),
            tuple(_hand_state(h) for h in s.hands),
        )
        for s in table.seats
    )
    return (
        table.phase,
        table.round,
        table.house,
        tuple(table.events),
        table.to_act,
        table.legal_actions(),
        table.hole_revealed,
        _hand_state(table.dealer),
        seats,
        shoe.remaining,
        tuple(shoe.discards),
        tuple(shoe.remaining_by_rank()),
        shoe.dealt_since_shuffle,
        shoe.shuffles,
        str(shoe.rng.bit_generator.state),
        # the undealt order (an unchanged shoe must deal the same cards)
        shoe.undealt(),
        shoe.stacked,
    )


def finish(table: Table, action: Action = Action.STAND) -> None:
    """Answer every remaining decision with ``action`` (DECLINE in the insurance phase)."""
    while table.phase in (Phase.INSURANCE, Phase.PLAYER_TURNS):
        table.act(Action.DECLINE if table.phase is Phase.INSURANCE else action)
