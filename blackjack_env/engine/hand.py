"""Hands: the cards held by a player box or the dealer.

:class:`Hand` keeps its cards, the running hard total (every ace counted as 1)
and ace flag, and answers total, soft, blackjack, bust and pair through
:func:`~blackjack_env.engine.play.score` (re-exported here), the one place a
hand's total is computed, and :mod:`~blackjack_env.engine.play`'s ``is_natural``
and ``is_pair``; the analysis and the batched core use the same rules.

A ``Hand`` also carries the state of a bet on it at the table (stake, doubled,
surrendered, split origin, finished); a dealer's hand simply leaves those unset.
"""

from __future__ import annotations

from fractions import Fraction

from mypy_extensions import mypyc_attr

from blackjack_env.engine.cards import Card
from blackjack_env.engine.play import is_natural, is_pair, score

__all__ = ["Hand", "score"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Hand:
    """Cards held by a player box or the dealer.

    ``values`` is the rules' 13-tuple of point values (ace to king). Fields set
    by the table: ``bet`` (chips staked on this hand, after doubling),
    ``doubled``, ``surrendered``, ``from_split`` (the hand came from a split),
    ``split_aces`` (it came from splitting aces), ``done`` (no more decisions),
    ``settled`` (paid or taken), and ``blackjack_counts`` (whether a two-card 21
    here is a natural: False on split hands unless the rules say otherwise).
    """

    __slots__ = (
        "_aces",
        "_hard",
        "_values",
        "bet",
        "blackjack_counts",
        "cards",
        "done",
        "doubled",
        "from_split",
        "settled",
        "split_aces",
        "surrendered",
    )

    def __init__(self, values: tuple[int, ...], cards: list[Card] | None = None) -> None:
        self._values = values
        self.cards: list[Card] = []
        self._hard = 0
        self._aces = 0
        self.bet: int | Fraction = 0
        self.doubled = False
        self.surrendered = False
        self.from_split = False
        self.split_aces = False
        self.done = False
        self.settled = False
        self.blackjack_counts = True
        if cards:
            for card in cards:
                self.add(card)

    # ------------------------------------------------------------ card changes
    def add(self, card: Card) -> None:
        """Add a card to the hand."""
        self.cards.append(card)
        rank = card.rank
        self._hard += self._values[rank - 1]
        if rank == 1:
            self._aces += 1

    def pop(self) -> Card:
        """Remove and return the last card (used when splitting)."""
        card = self.cards.pop()
        self._hard -= self._values[card.rank - 1]
        if card.rank == 1:
            self._aces -= 1
        return card

    # ----------------------------------------------------------------- scoring
    @property
    def hard_total(self) -> int:
        """Sum of the card values with every ace counted as 1."""
        return self._hard

    @property
    def total(self) -> int:
        """The best total, where one ace counts 11 when that does not bust the hand."""
        return score(self._hard, self._aces > 0)[0]

    @property
    def soft(self) -> bool:
        """True when an ace is counted as 11 in :attr:`total`."""
        return score(self._hard, self._aces > 0)[1]

    @property
    def has_ace(self) -> bool:
        return self._aces > 0

    @property
    def bust(self) -> bool:
        return self._hard > 21

    @property
    def is_blackjack(self) -> bool:
        """Whether this is a natural (two cards totalling 21; on a split hand only if
        the rules allow)."""
        return is_natural(len(self.cards), self._hard, self._aces > 0, self.blackjack_counts)

    def is_pair(self, by_value: bool = False) -> bool:
        """Two cards of equal rank (or, with ``by_value``, equal point value):
        :func:`~blackjack_env.engine.play.is_pair`."""
        if len(self.cards) != 2:
            return False
        a, b = self.cards
        return is_pair(self._values, a.rank, b.rank, by_value)

    def __len__(self) -> int:
        return len(self.cards)

    def __str__(self) -> str:
        cards = " ".join(str(c) for c in self.cards)
        return f"[{cards}] {'soft ' if self.soft else ''}{self.total}"

    def __repr__(self) -> str:
        return f"Hand({self})"
