"""The pure game engine: cards, shoe, hands, rules and the table state machine.

Every rule decision of a round (legal actions, the dealer's drawing rule,
outcomes and payouts, totals, count tags) is made in :mod:`blackjack_env.engine.play`.

Nothing here imports gymnasium, does I/O, or touches a global random state.
"""

from blackjack_env.engine.cards import ALL_CARDS, Card, Rank, Suit, parse_card, parse_cards
from blackjack_env.engine.hand import Hand, score
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
from blackjack_env.engine.shoe import Shoe, ShoeExhaustedError
from blackjack_env.engine.table import (
    Action,
    Chips,
    Event,
    EventKind,
    HandResult,
    IllegalActionError,
    Outcome,
    Phase,
    PhaseError,
    Seat,
    Table,
    TableError,
)

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
    "Hand",
    "HandResult",
    "HoleCard",
    "IllegalActionError",
    "Outcome",
    "Phase",
    "PhaseError",
    "Preset",
    "Rank",
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
    "list_presets",
    "parse_card",
    "parse_cards",
    "preset",
    "score",
]
