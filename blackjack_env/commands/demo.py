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
from typing import Annotated, Any

from blackjack_env.cli import check_at_least, option, preset_option
from blackjack_env.commands import UsageError, run_command
from blackjack_env.engine import Event, EventKind, Table
from blackjack_env.render import OUTCOME_TEXT, hand_text
from blackjack_env.strategies import make_strategy, play_until, strategy_names

__all__ = ["Settings", "describe", "main", "run"]


@dataclass
class Settings:
    """A few rounds at an engine table played by fixed strategies, told event by event."""

    rules: Annotated[str, option("PRESET")] = "vegas-strip"
    """preset name (see blackjack_env.list_presets())"""
    seats: int = 3
    """seats at the table (1 to the preset's maximum, at most 7)"""
    rounds: int = 5
    """rounds to play (>= 1)"""
    strategy: Annotated[str, option("NAME")] = "never-bust"
    """strategy of every seat: basic, composition, dealer, never-bust, random or stand"""
    bankroll: int = 100
    """chips each seat starts with"""
    cards: Annotated[str, option("CARDS", "a shuffled shoe")] = ""
    """cards dealt first, in deal order, e.g. 'AS KH 9D'"""
    seed: int = 0
    """seed of the table's generator"""


#: the events of the dealer's own cards
_DEALER_EVENTS = (EventKind.UPCARD, EventKind.HOLE_CARD, EventKind.REVEAL, EventKind.DEALER_DRAW,
                  EventKind.PEEK)


def _signed(value: Any) -> str:
    """Chips with a sign: ``+1``, ``+1.5`` (a 3:2 payout), ``-2``, ``±0``."""
    text = f"{float(value):g}"
    return f"+{text}" if value > 0 else ("±0" if value == 0 else text)


def describe(event: Event, table: Table | None = None) -> str | None:
    """One line for an event of the round (None for those not worth a line). Hands are
    numbered from 1, as ``blackjack-play`` numbers them; cards are written as the table
    draws them (``10♠``). With the settled ``table``, a settlement line shows the hand's
    cards and total."""
    kind = event.kind
    hand = f"seat {event.seat} hand {(event.hand or 0) + 1}"
    # (events of the kinds below always carry their card / action / outcome)
    card = "?" if event.card is None else event.card.pretty
    if kind is EventKind.DEAL:
        return f"  {hand} <- {card}"
    if kind is EventKind.UPCARD:
        return f"  dealer shows {card}"
    if kind is EventKind.HOLE_CARD:
        return "  dealer takes a hole card"
    if kind is EventKind.REVEAL:
        return f"  dealer turns over {card}"
    if kind is EventKind.DEALER_DRAW:
        return f"  dealer draws {card}"
    if kind is EventKind.ACTION:
        return f"  {hand}: {'?' if event.action is None else event.action.name}"
    if kind is EventKind.RAISE:
        return f"  {hand}: raises by {event.amount}"
    if kind is EventKind.SETTLE:
        cards = ""
        if table is not None and event.seat is not None and event.hand is not None:
            cards = f" {hand_text(table.seats[event.seat].hands[event.hand])},"
        result = "?" if event.outcome is None else OUTCOME_TEXT[event.outcome]
        return f"  {hand}:{cards} {result} {_signed(event.amount)}"
    if kind is EventKind.SHUFFLE:
        return "  (shoe reshuffled)"
    if kind is EventKind.PEEK:
        return "  dealer peeks for blackjack"
    return None


def run(settings: Settings) -> dict[str, Any]:
    """Check every option, then play and tell ``settings.rounds`` rounds."""
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
    print(f"{rules.seats} seat(s), every one played by {settings.strategy}, "
          f"{settings.bankroll} chips each; a bet of {rules.min_bet} a round.")
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
        print(f"=== round {table.round} ===")
        events = list(table.events)
        # the dealer's final hand is shown once its last card is out, before the
        # settlements that follow (a natural paid at the deal comes before it)
        dealer_done = max((k for k, e in enumerate(events) if e.kind in _DEALER_EVENTS),
                          default=-1)
        dealer_said = False
        for k, event in enumerate(events):
            if event.kind is EventKind.SETTLE and k > dealer_done and not dealer_said:
                print(f"  dealer: {hand_text(table.dealer)}")
                dealer_said = True
            line = describe(event, table)
            if line:
                print(line)
        if not dealer_said:
            print(f"  dealer: {hand_text(table.dealer)}")
        print("  bankrolls:", ", ".join(
            f"seat {seat.index} "
            + ("unlimited" if seat.bankroll is None else f"{float(seat.bankroll):g}")
            for seat in table.seats
        ))
        played += 1
        table.new_round()
    return {"rounds": played, "bankrolls": [seat.bankroll for seat in table.seats]}


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="blackjack-demo")
