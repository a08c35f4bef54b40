"""Cards: ranks, suits and the 52 immutable card objects.

A card is identified by its rank and suit. Its *point value* is not a property
of the card: it depends on the rules (one seed game counts J, Q, K as 1, 2, 3),
so values live in :class:`blackjack_env.engine.rules.Rules` and hands read them
from there. The ace's value is always 1, with the hand adding 10 when that does
not bust it (see :mod:`blackjack_env.engine.hand`).

Text form: two characters, rank then suit, e.g. ``"AS"`` (ace of spades),
``"TD"`` or ``"10D"`` (ten of diamonds), ``"KH"``. Rank letters are
``A 2 3 4 5 6 7 8 9 T J Q K`` (``10`` is accepted for ``T``); suit letters are
``C D H S``. Parsing is case-insensitive.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum

__all__ = [
    "ALL_CARDS",
    "RANK_LETTERS",
    "Card",
    "Rank",
    "Suit",
    "parse_card",
    "parse_cards",
]


class Rank(IntEnum):
    """The 13 ranks; the integer is the usual rank number (ace low)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def letter(self) -> str:
        """One-character name: ``A 2 … 9 T J Q K``."""
        return RANK_LETTERS[self - 1]


class Suit(Enum):
    """The four suits; the value is the letter used in card text."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def symbol(self) -> str:
        """The suit's printed symbol (for display only)."""
        return _SUIT_SYMBOLS[self]

    @property
    def red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)


RANK_LETTERS = "A23456789TJQK"
_SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}


@dataclass(frozen=True, slots=True)
class Card:
    """An immutable playing card.

    Use the shared instances in :data:`ALL_CARDS` (or :func:`parse_card`) rather
    than building new ones: equality is by value, so either works, but the
    shared objects cost nothing to hand around.
    """

    rank: Rank
    suit: Suit

    @property
    def index(self) -> int:
        """Position 0..51 of this card in :data:`ALL_CARDS` (suit-major)."""
        return _SUIT_ORDER[self.suit] * 13 + self.rank - 1

    def __str__(self) -> str:
        return self.rank.letter + self.suit.value

    def __reduce__(self) -> tuple[object, tuple[int]]:
        # pickle and copy give back the shared instance of ALL_CARDS
        return _shared_card, (self.index,)

    def __repr__(self) -> str:
        return f"Card({self})"

    @property
    def pretty(self) -> str:
        """Display form with a suit symbol, e.g. ``"10♥"``, ``"A♠"``."""
        rank = "10" if self.rank == Rank.TEN else self.rank.letter
        return rank + self.suit.symbol


_SUIT_ORDER = {suit: i for i, suit in enumerate(Suit)}

#: The 52 distinct cards in suit-major order (clubs A..K, diamonds A..K, hearts, spades).
ALL_CARDS: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in Rank)

_BY_TEXT = {str(card): card for card in ALL_CARDS}


def _shared_card(index: int) -> Card:
    return ALL_CARDS[index]


def parse_card(text: str) -> Card:
    """Parse one card such as ``"AS"``, ``"td"`` or ``"10H"``.

    Raises ``ValueError`` naming the token and the accepted form.
    """
    token = text.strip().upper()
    if token.startswith("10"):
        token = "T" + token[2:]
    card = _BY_TEXT.get(token)
    if card is None:
        raise ValueError(
            f"cannot read card {text!r}: a card is a rank (A 2 3 4 5 6 7 8 9 T J Q K, "
            f"or 10) followed by a suit (C D H S), e.g. 'AS', 'TD', '10H', '7c'"
        )
    return card


def parse_cards(text: str | list[str] | tuple[str, ...]) -> list[Card]:
    """Parse whitespace- or comma-separated cards, e.g. ``"AS KH 9D"``."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(token) for token in tokens]
