"""The shoe: every card the table deals comes from here.

:class:`Shoe` holds ``decks`` x 52 cards (or, with ``decks=None``, an infinite
deck drawn with replacement), shuffled with the one injected
``numpy.random.Generator``. Cards dealt go to the table and, at the end of a
round, into the shoe's discard tray. The shoe is reshuffled *between* rounds
once the cut card is reached (``penetration``), and only mid-round if it runs
dry, in which case the discard tray is shuffled back in, as casinos do. When
every card is on the table (:attr:`Shoe.can_draw` is False) there is nothing to
draw; the table then deals no more cards in that round (see
:class:`.Table`).

Stacking: :meth:`Shoe.stack` puts named cards on top, to be dealt first in the
given order; in a finite shoe they are taken out of the undealt cards, so the
shoe still holds exactly ``decks`` x 52 cards. This is how tests and
``reset(options={"cards": ...})`` script a round card by card.
"""

from __future__ import annotations

from collections import Counter
from typing import Final, cast

import numpy as np
from mypy_extensions import mypyc_attr

from blackjack_env.engine.cards import ALL_CARDS, Card, parse_card, parse_cards

__all__ = ["Shoe", "ShoeExhaustedError", "read_stack"]

_BUFFER: Final = 2048


def read_stack(cards: object, decks: object = None, name: str = "cards") -> list[Card]:
    """Cards to stack, read and checked: text such as ``"AS KH 9D"``, or a list or tuple
    of :class:`.Card` objects and card texts (``"AS"``). With ``decks`` (a finite shoe of
    that many decks) no card may be named more often than the shoe holds it.
    ``ValueError`` names a bad item; nothing is changed anywhere.
    """
    if isinstance(cards, str):
        wanted = parse_cards(cards)
    elif isinstance(cards, (list, tuple)):
        wanted = []
        for item in cards:
            if isinstance(item, Card):
                wanted.append(item)
            elif isinstance(item, str):
                wanted.append(parse_card(item))
            else:
                raise ValueError(
                    f"cannot read card {item!r}: {name} items are Card objects or text "
                    f"such as 'AS', 'TD', '10H'"
                )
    else:
        raise ValueError(
            f"{name} must be text like 'AS KH 9D' or a list of cards (Card objects or text "
            f"such as 'AS'), got {type(cards).__name__}"
        )
    if isinstance(decks, int):
        seen: dict[Card, int] = {}
        for card in wanted:
            k = seen.get(card, 0) + 1
            seen[card] = k
            if k > decks:
                raise ValueError(
                    f"cannot stack {card} {k} times: a {decks}-deck shoe holds {decks} "
                    f"cop{'y' if decks == 1 else 'ies'} of it"
                )
    return wanted


@mypyc_attr(native_class=False)
class ShoeExhaustedError(RuntimeError):
    """No card is left in the shoe or in the discard tray."""


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Shoe:
    """A multi-deck shoe with a cut card, or an infinite deck.

    Args:
        decks: number of 52-card decks (1..), or ``None`` for an infinite deck.
        rng: the generator every shuffle and infinite-deck draw comes from.
        penetration: fraction of the shoe dealt before :attr:`needs_shuffle`
            becomes True; ``None`` asks for a shuffle before every round.
    """

    def __init__(
        self, decks: object, rng: object, penetration: object = 0.75
    ) -> None:
        # (arguments typed object: they are validated here, with errors naming them; a
        # typed argument would be checked first by the compiled code, with its own
        # TypeError. No speed is at stake: once per shoe.)
        if decks is not None and (not isinstance(decks, int) or decks < 1):
            raise ValueError(f"decks={decks!r} must be a positive int or None (infinite)")
        if penetration is not None and (
            isinstance(penetration, bool)
            or not isinstance(penetration, (int, float))
            or not 0 < penetration <= 1
        ):
            raise ValueError(
                f"penetration={penetration!r} must be a fraction in (0, 1], or None to "
                f"reshuffle before every round"
            )
        if not isinstance(rng, np.random.Generator):
            raise ValueError(
                f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), "
                f"got {type(rng).__name__}"
            )
        self.decks: int | None = cast("int | None", decks)
        self.rng: np.random.Generator = rng
        self.penetration: float | None = cast("float | None", penetration)
        self._stacked: list[Card] = []  # drawn first, from the end
        self._cards: list[Card] = []  # undealt, drawn from the end
        self._buffer: list[int] = []  # infinite deck: pre-drawn card indices
        self.discards: list[Card] = []
        self._counts = [0] * 13  # undealt cards by rank (finite shoe)
        self.dealt_since_shuffle = 0
        self.shuffles = 0
        self.reshuffled_mid_round = 0
        if decks is not None:
            self._cards = list(ALL_CARDS) * decks
            self.shuffle()

    # ------------------------------------------------------------- properties
    @property
    def infinite(self) -> bool:
        return self.decks is None

    @property
    def total_cards(self) -> int | None:
        """Cards the shoe owns (``None`` for an infinite deck)."""
        return None if self.decks is None else 52 * self.decks

    @property
    def remaining(self) -> int | None:
        """Undealt cards (``None`` for an infinite deck)."""
        if self.decks is None:
            return None
        return len(self._cards) + len(self._stacked)

    @property
    def needs_shuffle(self) -> bool:
        """True once the cut card has come out (or always, with penetration None)."""
        if self.decks is None:
            return False
        if self.penetration is None:
            return self.dealt_since_shuffle > 0 or bool(self.discards)
        return self.dealt_since_shuffle >= self.penetration * 52 * self.decks

    @property
    def can_draw(self) -> bool:
        """True when :meth:`draw` has a card to give: an infinite deck, or a card in the
        shoe or in the discard tray (shuffled back in when the shoe runs dry). False only
        when every card of a finite shoe is on the table."""
        return self.decks is None or bool(self._stacked or self._cards or self.discards)

    @property
    def stacked(self) -> int:
        """Stacked cards (see :meth:`stack`) still to be dealt, on top of the shoe."""
        return len(self._stacked)

    def undealt(self) -> tuple[Card, ...]:
        """The cards still to be dealt, in the order they will come out (stacked cards
        first; an infinite deck gives only its stacked cards, the rest being drawn
        when dealt). For tests and replays: what a player must not see."""
        return tuple(reversed(self._stacked)) + tuple(reversed(self._cards))

    def remaining_by_rank(self) -> list[int]:
        """Undealt cards per rank, ace to king (an infinite deck gives one deck's worth)."""
        if self.decks is None:
            return [4] * 13
        return list(self._counts)

    # --------------------------------------------------------------- dealing
    def draw(self) -> Card:
        """Deal the next card."""
        if self._stacked:
            card = self._stacked.pop()
        elif self.decks is None:
            if not self._buffer:
                self._buffer = self.rng.integers(0, 52, size=_BUFFER).tolist()
            return ALL_CARDS[self._buffer.pop()]
        else:
            if not self._cards:
                self._reshuffle_discards()
            card = self._cards.pop()
        if self.decks is not None:
            self._counts[card.rank - 1] -= 1
            self.dealt_since_shuffle += 1
        return card

    def discard(self, cards: list[Card]) -> None:
        """Put cards that left the table into the discard tray."""
        if self.decks is not None:
            self.discards.extend(cards)

    def shuffle(self) -> None:
        """Gather the discard tray back and shuffle every undealt card.

        Stacked cards stay on top. Cards still on the table are not touched.
        """
        if self.decks is None:
            return
        pool = self._cards + self.discards
        self.discards = []
        order = self.rng.permutation(len(pool))
        self._cards = [pool[i] for i in order]
        self._recount()
        self.dealt_since_shuffle = 0
        self.shuffles += 1

    def stack(self, cards: object) -> None:
        """Deal these cards next, in the given order: text like ``"AS KH 9D"``, or a list
        of :class:`.Card` objects and card texts (see :func:`read_stack`).

        In a finite shoe each card is taken out of the undealt cards (or, if
        every copy has been dealt, out of the discard tray); a card with no copy
        left raises ``ValueError`` and the shoe is left unchanged. Of several undealt
        copies, a uniformly random one is taken (a draw from the shoe's generator), so
        the undealt cards stay a uniformly shuffled shoe: taking always the first copy
        would leave the other copies nearer the top than chance puts them.
        """
        # (typed object: validated here, with the shoe's own message)
        wanted = read_stack(cards, self.decks)
        if self.decks is not None:
            # first the check, so that a refused stack changes nothing (not even the rng)
            available = Counter(self._cards) + Counter(self.discards)
            for card, n in Counter(wanted).items():
                if available[card] < n:
                    raise ValueError(
                        f"cannot stack {card}: all {self.decks} cop"
                        f"{'y' if self.decks == 1 else 'ies'} of it are on the table or "
                        f"already stacked"
                    )
            undealt = list(self._cards)
            discards = list(self.discards)
            for card in wanted:
                if card in undealt:
                    copies = [i for i, c in enumerate(undealt) if c == card]
                    pick = 0 if len(copies) == 1 else int(self.rng.integers(0, len(copies)))
                    del undealt[copies[pick]]
                else:
                    discards.remove(card)
            self._cards = undealt
            self.discards = discards
        self._stacked = list(reversed(wanted)) + self._stacked
        self._recount()

    def clear_stack(self) -> None:
        """Return stacked cards that were not dealt to the undealt cards.

        Each goes to a uniformly random place among the undealt cards (drawn from
        the shoe's generator), so the cleared cards are no longer dealt next.
        """
        if self.decks is not None:
            cards = self._cards
            for card in reversed(self._stacked):
                cards.insert(int(self.rng.integers(0, len(cards) + 1)), card)
        self._stacked = []

    # ---------------------------------------------------------------- helpers
    def _recount(self) -> None:
        if self.decks is None:
            return
        counts = [0] * 13
        for card in self._cards:
            counts[card.rank - 1] += 1
        for card in self._stacked:
            counts[card.rank - 1] += 1
        self._counts = counts

    def _reshuffle_discards(self) -> None:
        if not self.discards:
            raise ShoeExhaustedError(
                "the shoe and the discard tray are empty: every card is on the table"
            )
        pool = self.discards
        self.discards = []
        order = self.rng.permutation(len(pool))
        self._cards = [pool[i] for i in order]
        self._recount()
        self.reshuffled_mid_round += 1

    def __repr__(self) -> str:
        if self.decks is None:
            return "Shoe(infinite)"
        return (
            f"Shoe(decks={self.decks}, remaining={self.remaining}, "
            f"discards={len(self.discards)})"
        )
