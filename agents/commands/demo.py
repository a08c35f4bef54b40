"""``blackjack-demo``: a few rounds at an engine table played by fixed strategies, told
event by event (cards dealt, decisions, the dealer's play, settlements, bankrolls).

Usage::

    blackjack-demo                                   # 3 seats, vegas-strip, 5 rounds
    blackjack-demo --rules terminal-21 --seats 4 --rounds 3
    blackjack-demo --cards "8S 5H TD 8C 6D 9S"       # stack the first cards
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from blackjack_env._cli import check_at_least, preset_option
from blackjack_env.agents.commands import UsageError, run_command
from blackjack_env.engine import Event, EventKind, Table

__all__ = ["Settings", "describe", "main", "run"]


@dataclass
class Settings:
    """A few rounds at an engine table played by fixed strategies, told event by event."""

    rules: str = "vegas-strip"
    """preset name (see blackjack_env.list_presets())"""
    seats: int = 3
    """seats at the table (1 to the preset's maximum, at most 7)"""
    rounds: int = 5
    """rounds to play (>= 1)"""
    strategy: str = "never-bust"
    """strategy of every seat: dealer, never-bust, random, stand or basic"""
    bankroll: int = 100
    """chips each seat starts with"""
    cards: str | None = None
    """cards dealt first, in deal order, e.g. 'AS KH 9D'"""
    seed: int = 0
    """seed of the table's generator"""


def describe(event: Event) -> str | None:
    """One line for an event of the round (None for those not worth a line)."""
    kind = event.kind
    if kind is EventKind.DEAL:
        return f"  seat {event.seat} hand {event.hand} <- {event.card.pretty}"
    if kind is EventKind.UPCARD:
        return f"  dealer shows {event.card.pretty}"
    if kind is EventKind.HOLE_CARD:
        return "  dealer takes a hole card"
    if kind is EventKind.REVEAL:
        return f"  dealer turns over {event.card.pretty}"
    if kind is EventKind.DEALER_DRAW:
        return f"  dealer draws {event.card.pretty}"
    if kind is EventKind.ACTION:
        return f"  seat {event.seat} hand {event.hand}: {event.action.name}"
    if kind is EventKind.RAISE:
        return f"  seat {event.seat} hand {event.hand}: raises by {event.amount}"
    if kind is EventKind.SETTLE:
        return f"  seat {event.seat} hand {event.hand}: {event.outcome.value} {event.amount:+}"
    if kind is EventKind.SHUFFLE:
        return "  (shoe reshuffled)"
    if kind is EventKind.PEEK:
        return "  dealer peeks for blackjack"
    return None


def run(settings: Settings) -> dict[str, Any]:
    """Check every option, then play and tell ``settings.rounds`` rounds."""
    from blackjack_env.strategies import make_strategy, play_until, strategy_names

    if settings.strategy not in strategy_names():
        raise UsageError(
            f"--strategy {settings.strategy!r}: unknown; use one of {', '.join(strategy_names())}"
        )
    check_at_least("rounds", settings.rounds, 1, "rounds to play")
    check_at_least("bankroll", settings.bankroll, 0, "chips each seat starts with")
    rules = preset_option(settings.rules)
    if not 1 <= settings.seats <= rules.max_seats:
        raise UsageError(
            f"--seats {settings.seats}: the {settings.rules} rules seat 1 to {rules.max_seats}"
        )
    if settings.seats != rules.seats:
        rules = rules.replace(seats=settings.seats)
    table = Table(rules, seed=settings.seed, bankroll=settings.bankroll)
    strategy = make_strategy(settings.strategy, rules, seed=settings.seed)
    if settings.cards:
        table.shoe.stack(settings.cards)
    strategies = dict.fromkeys(range(rules.seats), strategy)
    print(f"{settings.rules}: {rules.summary()}")
    played = 0
    for _ in range(settings.rounds):
        for seat in table.seats:
            if seat.bankroll is None or seat.bankroll >= rules.min_bet:
                table.bet(seat.index, rules.min_bet)
        if not any(seat.bet for seat in table.seats):
            print("every seat is out of chips")
            break
        table.deal()
        play_until(table, strategies)
        print(f"round {table.round}: dealer {table.dealer}")
        for event in table.events:
            line = describe(event)
            if line:
                print(line)
        print("  bankrolls:", ", ".join(str(seat.bankroll) for seat in table.seats))
        played += 1
        table.new_round()
    return {"rounds": played, "bankrolls": [seat.bankroll for seat in table.seats]}


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="blackjack-demo")
