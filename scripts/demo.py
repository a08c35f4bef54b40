"""Play a few rounds at an engine table with fixed strategies and print what happens.

Usage::

    python scripts/demo.py                       # 3 seats, vegas-strip, 5 rounds
    python scripts/demo.py --rules terminal-21 --seats 4 --rounds 3
    python scripts/demo.py --cards "8S 5H TD 8C 6D 9S"   # stack the first cards
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from blackjack_env.engine import EventKind, Table, preset
from blackjack_env.strategies import make_strategy, play_until


@dataclass
class Settings:
    rules: str = "vegas-strip"
    """preset name (see blackjack_env.list_presets())"""
    seats: int = 3
    """seats at the table"""
    rounds: int = 5
    """rounds to play"""
    strategy: str = "never-bust"
    """strategy of every seat (dealer, never-bust, random, stand, basic, ...)"""
    bankroll: int = 100
    """chips each seat starts with"""
    cards: str | None = None
    """cards dealt first, in deal order, e.g. 'AS KH 9D'"""
    seed: int = 0
    """seed of the table's generator"""


def describe(event) -> str | None:
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
    if kind is EventKind.SETTLE:
        return f"  seat {event.seat} hand {event.hand}: {event.outcome.value} {event.amount:+}"
    if kind is EventKind.SHUFFLE:
        return "  (shoe reshuffled)"
    if kind is EventKind.PEEK:
        return "  dealer peeks for blackjack"
    return None


def main(settings: Settings) -> None:
    rules = preset(settings.rules)
    if settings.seats != rules.seats:
        rules = rules.replace(seats=settings.seats)
    table = Table(rules, seed=settings.seed, bankroll=settings.bankroll)
    strategy = make_strategy(settings.strategy, rules, seed=settings.seed)
    strategies = dict.fromkeys(range(rules.seats), strategy)
    print(f"{settings.rules}: {rules.summary()}")
    if settings.cards:
        table.shoe.stack(settings.cards)
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
        table.new_round()


def parse_args() -> Settings:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    defaults = Settings()
    for name, value in vars(defaults).items():
        kind = type(value) if value is not None else str
        parser.add_argument(f"--{name}", type=kind, default=value)
    return Settings(**vars(parser.parse_args()))


if __name__ == "__main__":
    main(parse_args())
