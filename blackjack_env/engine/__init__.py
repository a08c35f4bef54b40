"""The pure game engine: cards, shoe, hands, rules and the table state machine.

Modules: ``cards``, ``shoe``, ``hand``, ``rules``; ``rulespace`` (sets of rule sets: a
seeded sampler and the held-out test set); ``play`` (the rules of play);
``table`` (the round's state machine) with ``seat`` (a player's place),
``events`` (phases, event records, hand results) and ``errors``.

Every rule decision of a round (legal actions, the dealer's drawing rule,
outcomes and payouts, totals, count tags) is made in :mod:`blackjack_env.engine.play`.

Nothing here imports gymnasium, does I/O, or touches a global random state.
"""

from blackjack_env.engine.cards import ALL_CARDS, Card, Rank, Suit, parse_card, parse_cards
from blackjack_env.engine.errors import IllegalActionError, PhaseError, TableError
from blackjack_env.engine.events import Chips, Event, EventKind, HandResult, Phase
from blackjack_env.engine.hand import Hand, score
from blackjack_env.engine.play import Action, Outcome
from blackjack_env.engine.rules import (
    PRESETS,
    STANDARD_VALUES,
    DoubleRule,
    HoleCard,
    Preset,
    Rules,
    Settlement,
    SplitBet,
    SplitBy,
    Surrender,
    TieRule,
    list_presets,
    preset,
)
from blackjack_env.engine.rulespace import Grid, RuleSpace, default_space, held_out
from blackjack_env.engine.seat import Seat
from blackjack_env.engine.shoe import Shoe, ShoeExhaustedError
from blackjack_env.engine.table import Table

__all__ = [
    "ALL_CARDS",
    "PRESETS",
    "STANDARD_VALUES",
    "Action",
    "Card",
    "Chips",
    "DoubleRule",
    "Event",
    "EventKind",
    "Grid",
    "Hand",
    "HandResult",
    "HoleCard",
    "IllegalActionError",
    "Outcome",
    "Phase",
    "PhaseError",
    "Preset",
    "Rank",
    "RuleSpace",
    "Rules",
    "Seat",
    "Settlement",
    "Shoe",
    "ShoeExhaustedError",
    "SplitBet",
    "SplitBy",
    "Suit",
    "Surrender",
    "Table",
    "TableError",
    "TieRule",
    "default_space",
    "held_out",
    "list_presets",
    "parse_card",
    "parse_cards",
    "preset",
    "score",
]
