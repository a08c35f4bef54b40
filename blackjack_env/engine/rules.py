"""Table rules: one frozen, validated dataclass, and named presets.

Every casino rule the engine knows is a field of :class:`Rules`. A ``Rules`` is
validated when built: a wrong value or a contradictory combination raises
``ValueError`` naming the field, the value and what is allowed. Enum-valued
fields also accept their string values (``hole_card="no-peek"``), and
``blackjack_payout`` accepts ``"3:2"``-style text; they are normalised to the
enum / ``Fraction`` on construction.

Presets are named rule sets: :func:`preset` builds one (with optional field
overrides), :func:`list_presets` gives the names with a one-line summary, and
each :class:`Preset` carries a docstring-like ``details`` text that records how
an ambiguous source was interpreted.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from typing import Any

import numpy as np

from blackjack_env.engine.cards import RANK_LETTERS, Rank

__all__ = [
    "PRESETS",
    "STANDARD_VALUES",
    "DoubleRule",
    "HoleCard",
    "Preset",
    "Rules",
    "Settlement",
    "SplitBet",
    "SplitBy",
    "Surrender",
    "TieRule",
    "list_presets",
    "preset",
]


class HoleCard(Enum):
    """How the dealer's second card is handled.

    * ``PEEK`` (US): the dealer takes a hole card and, with an ace or ten-value
      card up, checks it for blackjack before anyone acts; a dealer blackjack
      ends the round at once, so players lose only their original bets.
    * ``NO_PEEK``: the dealer takes a hole card but does not check it; it is
      turned over after the players act (Gymnasium's ``Blackjack-v1``). A dealer
      blackjack then beats doubled and split hands in full.
    * ``NONE`` (European): the dealer takes no hole card; the second card is
      drawn after the players act. Same money as ``NO_PEEK``, different card order.
    """

    PEEK = "peek"
    NO_PEEK = "no-peek"
    NONE = "none"


class TieRule(Enum):
    """What happens when a player's hand and the dealer's have the same total.

    * ``PUSH``: the bet is returned (standard); blackjack against blackjack pushes.
    * ``DEALER_WINS``: the house wins every tie, blackjack against blackjack included.
    * ``PLAYER_LOSES``: equal totals lose, but blackjack against blackjack pushes.
    """

    PUSH = "push"
    DEALER_WINS = "dealer-wins"
    PLAYER_LOSES = "player-loses"


class DoubleRule(Enum):
    """Which two-card hands may double down.

    ``NINE_TO_ELEVEN`` and ``TEN_TO_ELEVEN`` allow only *hard* totals in the range
    (a soft hand such as A-8 may not double under them).
    """

    ANY_TWO = "any"
    NINE_TO_ELEVEN = "9-11"
    TEN_TO_ELEVEN = "10-11"
    NEVER = "never"


class SplitBy(Enum):
    """What makes a pair: equal ranks (K-K, not K-Q) or equal point values (K-Q)."""

    RANK = "rank"
    VALUE = "value"


class SplitBet(Enum):
    """The bet on split hands.

    * ``MATCH``: each new hand carries a bet equal to the original (standard).
    * ``HALVE``: the original bet is divided between the two hands, each getting
      ``bet // 2``; an odd chip goes back to the bankroll (seed game 004).
    """

    MATCH = "match"
    HALVE = "halve"


class Surrender(Enum):
    """Giving up half the bet on the first two cards.

    * ``NONE``: not offered.
    * ``LATE``: offered after the dealer has checked for blackjack; under rules
      without a peek a surrendered hand still loses its whole bet to a dealer
      blackjack.
    * ``EARLY``: offered before the dealer checks for blackjack (in the
      pre-peek decision phase when the upcard is an ace or ten); half the bet
      comes back whatever the dealer holds.
    """

    NONE = "none"
    LATE = "late"
    EARLY = "early"


class Settlement(Enum):
    """How hands are paid.

    * ``DEALER``: each hand is compared with the dealer's (standard).
    * ``HIGHEST_HAND``: seed game 004: if the dealer busts, every hand that did
      not bust wins; otherwise only the hands holding the highest total at the
      table win, and only if that total beats the dealer's (ties follow
      ``ties``); every other hand loses. The winning hands are judged against
      the dealer exactly as in the dealer game (naturals, their payout and the
      natural flags included), and a natural is not paid at the peek: it is
      one of the table's hands until the end (unless ``natural_paid_at_deal``).
    """

    DEALER = "dealer"
    HIGHEST_HAND = "highest-hand"


#: Point value of each rank, ace to king (the ace counts 1, or 11 when that does not bust).
STANDARD_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)

_ENUM_FIELDS: dict[str, type[Enum]] = {
    "hole_card": HoleCard,
    "ties": TieRule,
    "double": DoubleRule,
    "split_by": SplitBy,
    "split_bet": SplitBet,
    "surrender": Surrender,
    "settlement": Settlement,
}

_BOOL_FIELDS = (
    "dealer_hits_soft_17",
    "natural_beats_21",
    "dealer_natural_beats_21",
    "natural_ends_hand",
    "natural_paid_at_deal",
    "double_after_split",
    "resplit_aces",
    "hit_split_aces",
    "blackjack_after_split",
    "insurance",
    "auto_stand_21",
    "bet_raising",
)


_INT_FIELDS = (
    "decks",
    "seats_per_deck",
    "max_split_hands",
    "seats",
    "max_seats",
    "min_bet",
    "max_bet",
)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _plain(value: Any) -> Any:
    """A numpy integer or float as the Python number (anything else unchanged)."""
    if isinstance(value, (np.integer, np.floating)) and not isinstance(value, np.bool_):
        return value.item()
    return value


#: The largest blackjack payout ratio accepted (a larger one is a typo, and its rewards
#: would not fit a float).
MAX_PAYOUT = 100


def _payout(value: Any) -> Fraction:
    """Read a payout ratio: Fraction, int, a float with an exact short form, or "3:2"."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"blackjack_payout={value!r} is not a ratio")
    value = _plain(value)
    if isinstance(value, Fraction):
        ratio = value
    elif isinstance(value, int):
        ratio = Fraction(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(
                f"blackjack_payout={value!r} is not a ratio; use e.g. '3:2', '6:5', 1.5"
            )
        ratio = Fraction(repr(value))
    elif isinstance(value, str):
        text = value.strip()
        try:
            if ":" in text:
                num, den = text.split(":")
                ratio = Fraction(int(num), int(den))
            else:
                ratio = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise ValueError(
                f"blackjack_payout={value!r} is not a ratio; use e.g. '3:2', '6:5', '1:1', "
                f"1.5 or Fraction(3, 2)"
            ) from None
    else:
        raise ValueError(f"blackjack_payout={value!r} is not a ratio; use e.g. '3:2' or 1.5")
    if not 0 < ratio <= MAX_PAYOUT:
        raise ValueError(
            f"blackjack_payout={value!r} must be positive and at most {MAX_PAYOUT}:1, e.g. "
            f"'3:2', '6:5', '1:1'"
        )
    return ratio


def _card_values(value: Any) -> tuple[int, ...]:
    """Read card values: a 13-tuple (ace..king) or a mapping of rank letters to values."""
    if isinstance(value, Mapping):
        values = list(STANDARD_VALUES)
        for key, points in value.items():
            letter = key.letter if isinstance(key, Rank) else str(key).upper()
            if letter == "10":
                letter = "T"
            if len(letter) != 1 or letter not in RANK_LETTERS:
                raise ValueError(
                    f"card_values: unknown rank {key!r}; ranks are {' '.join(RANK_LETTERS)}"
                )
            values[RANK_LETTERS.index(letter)] = _plain(points)
    elif isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise ValueError(
            f"card_values={value!r} must be 13 ints (ace to king) or a mapping of rank "
            f"letters to values such as {{'J': 1, 'Q': 2, 'K': 3}}"
        )
    else:
        values = [_plain(v) for v in value]
    if len(values) != 13:
        raise ValueError(f"card_values must give 13 values (ace to king), got {len(values)}")
    for letter, points in zip(RANK_LETTERS, values, strict=True):
        if not _is_int(points):
            raise ValueError(f"card_values[{letter!r}]={points!r} must be an int")
    if values[0] != 1:
        raise ValueError(
            f"card_values['A']={values[0]} is not allowed: the ace always counts 1 or 11"
        )
    for letter, points in zip(RANK_LETTERS[1:], values[1:], strict=True):
        if not 1 <= points <= 10:
            raise ValueError(f"card_values[{letter!r}]={points} must be between 1 and 10")
    return tuple(values)


@dataclass(frozen=True, slots=True)
class Rules:
    """A complete, validated rule set for one table.

    Fields (defaults are a common 6-deck US game):

    Shoe
        ``decks``: 1..8 decks, or ``None`` for an infinite deck (cards drawn with
        replacement). With ``seats_per_deck`` set, ``decks`` is the number of decks
        per group of that many seats (seed 004: one deck for every 3 players).
        ``penetration``: fraction of a finite shoe dealt before the cut card; the
        shoe is reshuffled between rounds once it is reached (never mid-round,
        unless it runs dry). ``None`` reshuffles before every round. It has no
        effect on an infinite deck.
    Dealer
        ``dealer_hits_soft_17`` (H17) or stands (S17). ``hole_card``: see
        :class:`.HoleCard`.
    Naturals (a two-card 21 of an ace and a ten-value card)
        ``blackjack_payout``: what a winning natural pays per unit bet (3:2, 6:5,
        1:1 or any positive ratio). ``natural_beats_21``: a player's natural beats
        a dealer's 21 of three or more cards (if False, such hands tie).
        ``dealer_natural_beats_21``: a dealer natural beats a player's multi-card
        21 (if False they tie; only matters without a peek). ``natural_ends_hand``:
        a natural takes no further cards (False: the player may hit it, as in
        Gymnasium). ``natural_paid_at_deal``: a natural is paid at once, before
        the dealer's hand is known, even against a dealer natural (seed 002).
        ``blackjack_after_split``: a two-card 21 on a split hand counts as a natural.
    Ties
        ``ties``: see :class:`.TieRule`. ``settlement``: see :class:`.Settlement`.
    Player options
        ``double``: see :class:`.DoubleRule`; ``double_after_split`` (DAS).
        ``max_split_hands``: 1 (no splitting) to 8 hands per seat;
        ``resplit_aces``; ``hit_split_aces`` (otherwise split aces get one card
        each); ``split_by``: see :class:`.SplitBy`; ``split_bet``: see
        :class:`.SplitBet`. ``surrender``: see :class:`.Surrender`.
        ``insurance``: insurance (and even money on a natural) offered against
        an ace, paying 2:1; needs ``hole_card=PEEK``. ``auto_stand_21``: a hand
        reaching 21 stands by itself (False: the player may still hit, as in
        Gymnasium). ``bet_raising``: the player may add to a hand's bet after
        each card (seed 004).
    Table
        ``seats`` at the table (1..``max_seats``, ``max_seats`` <= 7);
        ``min_bet`` / ``max_bet`` in chips. ``card_values``: 13 point values,
        ace to king (the ace must be 1); a mapping such as ``{"J": 1, "Q": 2,
        "K": 3}`` is merged over the standard values.
    """

    decks: int | None = 6
    seats_per_deck: int | None = None
    penetration: float | None = 0.75
    dealer_hits_soft_17: bool = False
    hole_card: HoleCard = HoleCard.PEEK
    blackjack_payout: Fraction = Fraction(3, 2)
    natural_beats_21: bool = True
    dealer_natural_beats_21: bool = True
    natural_ends_hand: bool = True
    natural_paid_at_deal: bool = False
    blackjack_after_split: bool = False
    ties: TieRule = TieRule.PUSH
    settlement: Settlement = Settlement.DEALER
    double: DoubleRule = DoubleRule.ANY_TWO
    double_after_split: bool = True
    max_split_hands: int = 4
    resplit_aces: bool = False
    hit_split_aces: bool = False
    split_by: SplitBy = SplitBy.RANK
    split_bet: SplitBet = SplitBet.MATCH
    surrender: Surrender = Surrender.NONE
    insurance: bool = True
    auto_stand_21: bool = True
    bet_raising: bool = False
    seats: int = 1
    max_seats: int = 7
    min_bet: int = 1
    max_bet: int = 1000
    card_values: tuple[int, ...] = field(default=STANDARD_VALUES)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name, enum in _ENUM_FIELDS.items():
            value = getattr(self, name)
            if not isinstance(value, enum):
                try:
                    set_(self, name, enum(value))
                except ValueError:
                    allowed = ", ".join(repr(member.value) for member in enum)
                    raise ValueError(
                        f"{name}={value!r} is not allowed; choose one of {allowed} "
                        f"(or {enum.__name__}.<member>)"
                    ) from None
        for name in _BOOL_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ValueError(f"{name}={value!r} must be True or False")
        for name in _INT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, np.integer):  # numpy ints read as plain ints
                set_(self, name, int(value))
        if isinstance(self.penetration, (np.integer, np.floating)):  # and numpy floats
            set_(self, "penetration", _plain(self.penetration))
        set_(self, "blackjack_payout", _payout(self.blackjack_payout))
        set_(self, "card_values", _card_values(self.card_values))

        if self.decks is not None and not (_is_int(self.decks) and 1 <= self.decks <= 8):
            raise ValueError(
                f"decks={self.decks!r} is not allowed; use an int from 1 to 8, "
                f"or None for an infinite deck"
            )
        if self.seats_per_deck is not None:
            if not (_is_int(self.seats_per_deck) and 1 <= self.seats_per_deck <= 7):
                raise ValueError(
                    f"seats_per_deck={self.seats_per_deck!r} must be None or an int from 1 to 7"
                )
            if self.decks is None:
                raise ValueError(
                    "seats_per_deck needs a finite shoe: with decks=None (infinite deck) "
                    "set seats_per_deck=None"
                )
        if self.penetration is not None:
            p = self.penetration
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p <= 1:
                raise ValueError(
                    f"penetration={p!r} must be a fraction in (0, 1], or None to reshuffle "
                    f"before every round"
                )
        if not (_is_int(self.max_seats) and 1 <= self.max_seats <= 7):
            raise ValueError(f"max_seats={self.max_seats!r} must be an int from 1 to 7")
        if not (_is_int(self.seats) and 1 <= self.seats <= self.max_seats):
            raise ValueError(
                f"seats={self.seats!r} is not allowed; these rules seat 1 to "
                f"{self.max_seats} players"
            )
        if not (_is_int(self.max_split_hands) and 1 <= self.max_split_hands <= 8):
            raise ValueError(
                f"max_split_hands={self.max_split_hands!r} must be an int from 1 (no "
                f"splitting) to 8"
            )
        if not (_is_int(self.min_bet) and self.min_bet >= 1):
            raise ValueError(f"min_bet={self.min_bet!r} must be an int >= 1")
        if not (_is_int(self.max_bet) and self.max_bet >= self.min_bet):
            raise ValueError(
                f"max_bet={self.max_bet!r} must be an int >= min_bet ({self.min_bet})"
            )
        if self.natural_paid_at_deal and not self.natural_ends_hand:
            raise ValueError(
                "natural_paid_at_deal=True needs natural_ends_hand=True: a natural that is "
                "paid at the deal cannot also be played on"
            )
        if self.insurance and self.hole_card is not HoleCard.PEEK:
            raise ValueError(
                f"insurance=True needs hole_card='peek' (got {self.hole_card.value!r}): "
                f"insurance is settled by the dealer's peek; set insurance=False"
            )
        if self.split_bet is SplitBet.HALVE and self.max_split_hands > 2:
            raise ValueError(
                f"split_bet='halve' allows one split only; set max_split_hands=2 "
                f"(got {self.max_split_hands})"
            )

    # ----------------------------------------------------------------- derived
    @property
    def infinite(self) -> bool:
        """True when cards are drawn with replacement from an infinite deck."""
        return self.decks is None

    @property
    def shoe_decks(self) -> int | None:
        """Decks in the shoe for this many seats (``None`` for an infinite deck)."""
        if self.decks is None:
            return None
        if self.seats_per_deck is None:
            return self.decks
        return self.decks * math.ceil(self.seats / self.seats_per_deck)

    @property
    def can_split(self) -> bool:
        return self.max_split_hands > 1

    @property
    def can_double(self) -> bool:
        return self.double is not DoubleRule.NEVER

    def value(self, rank: Rank | int) -> int:
        """Point value of a rank (the ace gives 1; hands add 10 when it helps)."""
        return self.card_values[rank - 1]

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed; unknown names raise ``ValueError``.

        ``replace(decks=None)`` (an infinite deck) also clears ``seats_per_deck``, a
        deck count per group of seats that only a finite shoe has, unless the same call
        sets ``seats_per_deck`` (then a value other than None is refused as usual).
        """
        unknown = sorted(set(changes) - set(FIELD_NAMES))
        if unknown:
            raise ValueError(
                f"unknown rule field(s) {', '.join(unknown)}; fields are {', '.join(FIELD_NAMES)}"
            )
        if "decks" in changes and changes["decks"] is None and "seats_per_deck" not in changes:
            changes = {**changes, "seats_per_deck": None}
        return dataclasses.replace(self, **changes)

    @classmethod
    def build(cls, **fields: Any) -> Rules:
        """Like ``Rules(**fields)`` but an unknown field name raises ``ValueError``."""
        return cls().replace(**fields)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (enums as their strings, the payout as ``"p:q"``)."""
        out: dict[str, Any] = {}
        for name in FIELD_NAMES:
            value = getattr(self, name)
            if isinstance(value, Enum):
                value = value.value
            elif isinstance(value, Fraction):
                value = f"{value.numerator}:{value.denominator}"
            elif isinstance(value, tuple):
                value = list(value)
            out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Inverse of :meth:`to_dict`; unknown keys raise ``ValueError``."""
        if not isinstance(data, Mapping):
            raise ValueError(
                f"Rules.from_dict needs a mapping of rule fields to values (as Rules.to_dict() "
                f"gives), got {type(data).__name__} {data!r:.60}"
            )
        return cls.build(**dict(data))

    def summary(self) -> str:
        """One line, e.g. ``6 decks, S17, 3:2, peek, DAS, split to 4, late surrender``."""
        decks = self.shoe_decks
        parts = [
            "infinite deck" if decks is None else f"{decks} deck{'s' if decks > 1 else ''}",
            "H17" if self.dealer_hits_soft_17 else "S17",
        ]
        ratio = self.blackjack_payout
        parts.append(f"BJ {ratio.numerator}:{ratio.denominator}")
        parts.append(f"hole card: {self.hole_card.value}")
        if self.double is not DoubleRule.NEVER:
            kind = "any two" if self.double is DoubleRule.ANY_TWO else self.double.value
            parts.append(f"double {kind}" + (", DAS" if self.double_after_split else ""))
        if self.max_split_hands > 1:
            rsa = ", RSA" if self.resplit_aces else ""
            parts.append(f"split to {self.max_split_hands}{rsa}")
        if self.surrender is not Surrender.NONE:
            parts.append(f"{self.surrender.value} surrender")
        if self.ties is not TieRule.PUSH:
            parts.append(f"ties: {self.ties.value}")
        if self.settlement is not Settlement.DEALER:
            parts.append(f"settlement: {self.settlement.value}")
        if self.card_values != STANDARD_VALUES:
            parts.append("custom card values")
        return ", ".join(parts)


FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules))


# --------------------------------------------------------------------- presets
@dataclass(frozen=True)
class Preset:
    """A named rule set with a one-line summary and the reasoning behind it."""

    name: str
    summary: str
    details: str
    rules: Rules


_GYM_COMMON: dict[str, Any] = dict(
    decks=None,
    penetration=None,
    dealer_hits_soft_17=False,
    hole_card=HoleCard.NO_PEEK,
    dealer_natural_beats_21=False,
    natural_ends_hand=False,
    double=DoubleRule.NEVER,
    double_after_split=False,
    max_split_hands=1,
    surrender=Surrender.NONE,
    insurance=False,
    auto_stand_21=False,
    seats=1,
    max_seats=1,
)

_PRESET_LIST: list[Preset] = [
    Preset(
        "vegas-strip",
        "6 decks, S17, 3:2, peek, double any two, DAS, split to 4, late surrender",
        "A common Las Vegas Strip shoe game: six decks dealt to 75%, dealer stands on "
        "soft 17 and peeks, blackjack pays 3:2, double on any two cards and after "
        "splits, split to four hands (aces once, one card each), late surrender, "
        "insurance offered.",
        Rules(decks=6, surrender=Surrender.LATE),
    ),
    Preset(
        "atlantic-city",
        "8 decks, S17, 3:2, peek, double any two, DAS, split to 4, late surrender",
        "The standard Atlantic City game: eight decks, S17, DAS, split to four hands, "
        "no resplitting aces, late surrender, 3:2.",
        Rules(decks=8, surrender=Surrender.LATE),
    ),
    Preset(
        "downtown-h17",
        "2 decks, H17, 3:2, peek, double any two, DAS, split to 4, no surrender",
        "A downtown Las Vegas double-deck game: dealer hits soft 17, no surrender.",
        Rules(decks=2, dealer_hits_soft_17=True),
    ),
    Preset(
        "single-deck-6to5",
        "1 deck, H17, 6:5, peek, double any two, no DAS, split to 4",
        "The single-deck game that pays 6:5 on blackjack; dealer hits soft 17, "
        "no doubling after splits.",
        Rules(
            decks=1,
            penetration=0.5,
            dealer_hits_soft_17=True,
            blackjack_payout=Fraction(6, 5),
            double_after_split=False,
        ),
    ),
    Preset(
        "european-no-hole-card",
        "6 decks, S17, 3:2, no hole card, double 9-11, DAS, split to 3, no insurance",
        "European no-hole-card game: the dealer's second card is drawn after the "
        "players act, so a dealer blackjack takes doubled and split bets in full; "
        "double on hard 9, 10, 11 only; split to three hands; no insurance.",
        Rules(
            decks=6,
            hole_card=HoleCard.NONE,
            double=DoubleRule.NINE_TO_ELEVEN,
            max_split_hands=3,
            insurance=False,
        ),
    ),
    Preset(
        "sutton-barto",
        "Gymnasium Blackjack-v1 as registered (sab=True): hit/stick, infinite deck",
        "Reproduces gymnasium.make('Blackjack-v1') (sab=True, Sutton & Barto example "
        "5.1): infinite deck, dealer stands on 17 with a hole card but no peek, only "
        "hit and stick, a natural may be hit; a natural that is stood on beats any "
        "non-natural dealer hand (+1), a dealer natural only ties a player's 21.",
        Rules(**_GYM_COMMON, blackjack_payout=Fraction(1), natural_beats_21=True),
    ),
    Preset(
        "gymnasium",
        "Gymnasium Blackjack-v1(natural=False, sab=False): naturals not special",
        "Reproduces gymnasium.make('Blackjack-v1', natural=False, sab=False): as "
        "sutton-barto, but a natural is an ordinary 21 (ties any dealer 21, pays 1:1).",
        Rules(**_GYM_COMMON, blackjack_payout=Fraction(1), natural_beats_21=False),
    ),
    Preset(
        "gymnasium-natural",
        "Gymnasium Blackjack-v1(natural=True, sab=False): winning natural pays 3:2",
        "Reproduces gymnasium.make('Blackjack-v1', natural=True): a natural that wins "
        "pays 1.5; it only ties a dealer 21 of any kind.",
        Rules(**_GYM_COMMON, blackjack_payout=Fraction(3, 2), natural_beats_21=False),
    ),
    Preset(
        "ood-book",
        "Seed 001 (object design): 1 deck fresh each round, S17, every win 1:1, ties push",
        "Seed 001, an object-oriented design of the game: several players, a single "
        "52-card deck reset and shuffled at the start of every round, two cards each "
        "dealt in turn, dealer hits until 17 (stands on soft 17), only hit and stand, "
        "wins pay 1:1 with no special payout for a natural (a natural is an ordinary 21 "
        "that may still be hit), ties return the bet. Interpretation: the dealer's "
        "second card is dealt face down and never peeked at; three seats by default.",
        Rules(
            decks=1,
            penetration=None,
            hole_card=HoleCard.NO_PEEK,
            blackjack_payout=Fraction(1),
            natural_beats_21=False,
            dealer_natural_beats_21=False,
            natural_ends_hand=False,
            double=DoubleRule.NEVER,
            double_after_split=False,
            max_split_hands=1,
            insurance=False,
            auto_stand_21=False,
            seats=3,
        ),
    ),
    Preset(
        "browser-game",
        "Seed 000 (browser game): 4 decks, S17, 3:2, double, DAS, split to 4, late surrender",
        "Seed 000 describes the hand object of a browser game with blackjack, split, "
        "double and surrender flags and standard ace scoring. The page does not state "
        "the table rules; interpretation: a standard US game with four decks, dealer "
        "stands on soft 17 and peeks, 3:2, double on any two cards and after splits, "
        "split to four hands, late surrender, no insurance.",
        Rules(decks=4, surrender=Surrender.LATE, insurance=False),
    ),
    Preset(
        "how-to-play",
        "Seed 002 (how to play): 1-5 players, blackjack paid 3:2 at once, ties lose",
        "Seed 002, a 'how to play' page: 1 to 5 players, hit or stand only; a natural "
        "leaves the round at once and wins 1.5 times the bet (read as a 3:2 payout, "
        "paid even if the dealer also holds blackjack); the dealer shows one card, "
        "turns the other after the players and stands on 17 counting an ace as 11 "
        "(S17); a bust loses even if the dealer busts; a hand must beat the dealer, "
        "so ties lose. Interpretation: one deck shuffled before each round, no peek, "
        "no doubling, splitting, surrender or insurance.",
        Rules(
            decks=1,
            penetration=None,
            hole_card=HoleCard.NO_PEEK,
            blackjack_payout=Fraction(3, 2),
            natural_paid_at_deal=True,
            ties=TieRule.PLAYER_LOSES,
            double=DoubleRule.NEVER,
            double_after_split=False,
            max_split_hands=1,
            insurance=False,
            auto_stand_21=False,
            seats=1,
            max_seats=5,
        ),
    ),
    Preset(
        "terminal-21",
        "Seed 004 (terminal 21): a deck per 3 players, J/Q/K = 1/2/3, highest hand wins",
        "Seed 004, a terminal game: one deck for every three players, shuffled before "
        "the game (here: before every round); J, Q, K count 1, 2, 3 (configurable); "
        "a player may raise (never lower) the bet after each card; a first-two-card "
        "pair may be split once, the bet divided between the hands (bet // 2 each, an "
        "odd chip back to the bankroll); the dealer hits 16 or less and stands on 17 "
        "(S17); the dealer wins ties; only the highest hand at the table wins unless "
        "the dealer busts, when every standing hand wins; wins pay 1:1 and a natural "
        "is an ordinary 21. Interpretation: bets are placed before the deal (the seed "
        "bets after the first card; raising covers the same decision), no peek.",
        Rules(
            decks=1,
            seats_per_deck=3,
            penetration=None,
            hole_card=HoleCard.NO_PEEK,
            blackjack_payout=Fraction(1),
            natural_beats_21=False,
            dealer_natural_beats_21=False,
            ties=TieRule.DEALER_WINS,
            settlement=Settlement.HIGHEST_HAND,
            double=DoubleRule.NEVER,
            double_after_split=False,
            max_split_hands=2,
            split_bet=SplitBet.HALVE,
            insurance=False,
            bet_raising=True,
            seats=3,
            card_values=_card_values({"J": 1, "Q": 2, "K": 3}),
        ),
    ),
]

#: All presets by name.
PRESETS: dict[str, Preset] = {p.name: p for p in _PRESET_LIST}


def preset(name: str, **overrides: Any) -> Rules:
    """The rules of a named preset, with optional field overrides.

    ``preset("vegas-strip", decks=None)`` is the infinite-deck form of the Strip game.
    """
    try:
        rules = PRESETS[name].rules
    except KeyError:
        raise ValueError(
            f"unknown preset {name!r}; presets are {', '.join(PRESETS)}"
        ) from None
    return rules.replace(**overrides) if overrides else rules


def list_presets() -> list[tuple[str, str]]:
    """``(name, one-line summary)`` for every preset."""
    return [(p.name, p.summary) for p in _PRESET_LIST]
