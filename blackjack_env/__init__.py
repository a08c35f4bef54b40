"""blackjack_env: a casino blackjack table as a reinforcement-learning testbed."""

from blackjack_env.engine import (
    Action,
    Card,
    Hand,
    Outcome,
    Phase,
    Rules,
    Shoe,
    Table,
    list_presets,
    preset,
)

__version__ = "0.1.0"

__all__ = [
    "Action",
    "Card",
    "Hand",
    "Outcome",
    "Phase",
    "Rules",
    "Shoe",
    "Table",
    "__version__",
    "list_presets",
    "preset",
]
