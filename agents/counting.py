"""A Hi-Lo card counter: running count, true count, and a bet spread.

Hi-Lo tags each card by rank: 2-6 count +1, 7-9 count 0, tens, faces and
aces count -1. A full deck sums to zero, so the *running count* (the sum of
the tags of every card seen since the shuffle) measures how rich in tens and
aces the undealt cards are. The *true count* divides it by the decks still
undealt: ``true_count = running_count / (cards_left / 52)``, computed exactly
from the number of cards seen (not rounded to half decks). Card tags follow
the rank even under custom card values.

:class:`HiLoCounter` follows cards one at a time (:meth:`HiLoCounter.observe`)
or reads a whole table round (:meth:`HiLoCounter.observe_table`), and forgets
everything on a reshuffle; :meth:`HiLoCounter.sync_with_table` sets the same
count from the shoe itself (what has left it, minus a face-down hole card).
:class:`BetSpread` turns a true count into a bet.
:func:`running_count_from_remaining` gives the same running count from the
undealt cards by rank (what the env's ``dict`` observation and
``Shoe.remaining_by_rank()`` show).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from blackjack_env.engine import Card, EventKind, Rank, Table, play

__all__ = [
    "HILO_TAGS",
    "BetSpread",
    "HiLoCounter",
    "hilo_tag",
    "running_count_from_remaining",
]

#: Hi-Lo tag of each rank, ace to king (the engine's ``play.HI_LO_TAGS``).
HILO_TAGS: tuple[int, ...] = play.HI_LO_TAGS

_VISIBLE = (EventKind.DEAL, EventKind.UPCARD, EventKind.REVEAL, EventKind.DEALER_DRAW)


def hilo_tag(card: Card | Rank | int) -> int:
    """The Hi-Lo tag of a card or rank (ace = 1 ... king = 13)."""
    return play.hi_lo_tag(card.rank if isinstance(card, Card) else int(card))


def running_count_from_remaining(remaining_by_rank: Sequence[int], decks: int) -> int:
    """Running count of the cards already dealt, from the undealt cards per rank.

    The tags of a full shoe sum to 0, so the dealt cards' count is minus the
    undealt cards' count. ``remaining_by_rank`` lists 13 counts, ace to king.
    """
    if len(remaining_by_rank) != 13:
        raise ValueError(
            f"remaining_by_rank needs 13 counts (ace..king), got {len(remaining_by_rank)}"
        )
    if any(int(n) > 4 * decks or int(n) < 0 for n in remaining_by_rank):
        raise ValueError(
            f"remaining_by_rank {list(remaining_by_rank)} is impossible for {decks} decks"
        )
    return play.hi_lo_running_count([int(n) for n in remaining_by_rank])


class HiLoCounter:
    """Hi-Lo running and true count of one finite shoe.

    Args:
        decks: decks in the shoe (1..8). An infinite deck has no count to keep.
    """

    def __init__(self, decks: int) -> None:
        if not isinstance(decks, int) or isinstance(decks, bool) or not 1 <= decks <= 8:
            raise ValueError(
                f"decks={decks!r}: a counter needs a finite shoe of 1 to 8 decks "
                f"(an infinite deck has no count)"
            )
        self.decks = decks
        self.running_count = 0
        self.cards_seen = 0
        self._events: list | None = None  # the table round being followed
        self._done = 0  # its events already read

    def reset(self) -> None:
        """Forget every card (after a reshuffle)."""
        self.running_count = 0
        self.cards_seen = 0

    def observe(self, card: Card | Rank | int) -> None:
        """Count one card that has been seen."""
        self.running_count += hilo_tag(card)
        self.cards_seen += 1

    def observe_many(self, cards: Iterable[Card | Rank | int]) -> None:
        for card in cards:
            self.observe(card)

    @property
    def cards_left(self) -> int:
        return max(52 * self.decks - self.cards_seen, 0)

    @property
    def decks_left(self) -> float:
        """Decks not yet seen (at least one card's worth, so the true count stays finite)."""
        return max(self.cards_left, 1) / 52

    @property
    def true_count(self) -> float:
        """The running count per undealt deck, as the engine's
        :func:`~blackjack_env.engine.play.hi_lo_true_count` gives it (what the env's
        observations show); 0.0 once no card is left."""
        return play.hi_lo_true_count(self.running_count, self.cards_left)

    def observe_table(self, table: Table) -> None:
        """Count the face-up cards of the table's current round not counted yet.

        Call it as often as you like (after every action, or once the round is
        settled): each card is counted once, the hole card only once turned
        over, and a round whose events start with a ``SHUFFLE`` resets the
        count first.
        """
        events = table.events
        if events is not self._events:
            self._events = events
            self._done = 0
            if events and events[0].kind is EventKind.SHUFFLE:
                self.reset()
        for event in events[self._done:]:
            if event.kind in _VISIBLE and event.card is not None:
                self.observe(event.card)
        self._done = len(events)

    def sync_with_table(self, table: Table) -> None:
        """Set the count from the table's shoe: every card dealt since the shuffle that is
        not face down (the shoe's undealt cards and the dealer's hidden hole card are
        unseen). Equivalent to following every face-up card, and it cannot miss a round."""
        shoe = table.shoe
        if shoe.decks is None or shoe.decks * 52 != 52 * self.decks:
            raise ValueError(
                f"this counter follows a {self.decks}-deck shoe; the table's shoe has "
                f"{shoe.decks} decks"
            )
        unseen = play.unseen_by_rank(
            list(shoe.remaining_by_rank()),
            play.hidden_hole_rank(table.dealer.cards, table.hole_revealed),
        )
        self.running_count = running_count_from_remaining(unseen, self.decks)
        self.cards_seen = 52 * self.decks - sum(unseen)
        self._events = table.events
        self._done = len(table.events)

    def __repr__(self) -> str:
        return (
            f"HiLoCounter(decks={self.decks}, running={self.running_count}, "
            f"seen={self.cards_seen}, true={self.true_count:+.2f})"
        )


@dataclass(frozen=True)
class BetSpread:
    """Bet by true count: ``units[i]`` base bets once the true count reaches ``thresholds[i-1]``.

    The default ``units=(1, 2, 4, 8)``, ``thresholds=(2.0, 3.0, 4.0)`` bets 1
    unit below a true count of +2, 2 units from +2, 4 from +3 and 8 from +4.
    """

    units: tuple[int, ...] = (1, 2, 4, 8)
    thresholds: tuple[float, ...] = (2.0, 3.0, 4.0)

    def __post_init__(self) -> None:
        if not self.units or any(not isinstance(u, int) or u < 1 for u in self.units):
            raise ValueError(f"units={self.units!r} must be positive ints")
        if len(self.thresholds) != len(self.units) - 1:
            raise ValueError(
                f"thresholds={self.thresholds!r} needs {len(self.units) - 1} entries, "
                f"one per step of units={self.units!r}"
            )
        if list(self.thresholds) != sorted(self.thresholds):
            raise ValueError(f"thresholds={self.thresholds!r} must be increasing")

    def index(self, true_count: float) -> int:
        """Position in ``units`` for this true count."""
        return sum(true_count >= t for t in self.thresholds)

    def units_for(self, true_count: float) -> int:
        """Base bets at this true count."""
        return self.units[self.index(true_count)]

    def size_for(self, true_count: float, sizes: Sequence[int]) -> int:
        """The bet to place where only ``sizes`` (base bets, increasing) are offered: the
        largest at most :meth:`units_for`, or the smallest when every size is above it."""
        units = self.units_for(true_count)
        fit = [s for s in sizes if s <= units]
        return fit[-1] if fit else sizes[0]

    def bet(self, true_count: float, base: int, bankroll: float | None = None,
            table_max: int | None = None) -> int:
        """Chips to bet: ``base`` x units, capped by the table maximum and the bankroll."""
        amount = base * self.units_for(true_count)
        if table_max is not None:
            amount = min(amount, table_max)
        if bankroll is not None:
            amount = min(amount, int(bankroll))
        return max(amount, 0)
