"""What a round reports: its phases, the events it records, and each hand's result.

:class:`Phase` names the steps of the round (see :mod:`blackjack_env.engine.table`
for what happens in each). :attr:`Table.events <blackjack_env.engine.table.Table.events>`
lists the current round as :class:`Event` records (cards dealt to whom, actions,
insurance, the peek, settlements), for renderers and tests; which fields an event
fills depends on its :class:`EventKind` (noted beside each kind). A settled hand
leaves a :class:`HandResult` in :attr:`Seat.results <blackjack_env.engine.seat.Seat.results>`.

Money is :data:`Chips`: an ``int``, or an exact ``Fraction`` when a result is not
whole (3:2 on an odd bet, 6:5, half a bet back on a surrender).

This module is plain Python (not compiled): it defines no code that runs per
card; the compiled table reads these classes as they are.
"""

from __future__ import annotations

from enum import Enum
from fractions import Fraction
from typing import NamedTuple

from blackjack_env.engine.cards import Card
from blackjack_env.engine.play import Action, Outcome

__all__ = ["Chips", "Event", "EventKind", "HandResult", "Phase"]

Chips = int | Fraction


class Phase(Enum):
    BETTING = "betting"
    DEALING = "dealing"
    INSURANCE = "insurance"
    PLAYER_TURNS = "player_turns"
    DEALER_TURN = "dealer_turn"
    SETTLED = "settled"


class EventKind(Enum):
    SHUFFLE = "shuffle"  # the shoe was reshuffled before this round
    BET = "bet"  # seat, amount
    DEAL = "deal"  # seat, hand, card (a player's card)
    UPCARD = "upcard"  # card
    HOLE_CARD = "hole_card"  # the dealer's face-down card (card hidden in renderers)
    ACTION = "action"  # seat, hand, action
    RAISE = "raise"  # seat, hand, amount added to the bet
    INSURANCE = "insurance"  # seat, amount staked
    PEEK = "peek"  # dealer checked for blackjack; outcome None
    REVEAL = "reveal"  # hole card turned over
    DEALER_DRAW = "dealer_draw"  # card
    INSURANCE_SETTLED = "insurance_settled"  # seat, amount returned (0 when lost)
    SETTLE = "settle"  # seat, hand, outcome, amount (net chips)


class Event(NamedTuple):
    kind: EventKind
    seat: int | None = None
    hand: int | None = None
    card: Card | None = None
    action: Action | None = None
    amount: Chips | None = None
    outcome: Outcome | None = None


class HandResult(NamedTuple):
    """The settlement of one hand: chips staked, outcome, net chips won (+) or lost (-)."""

    hand: int
    outcome: Outcome
    bet: Chips
    net: Chips
