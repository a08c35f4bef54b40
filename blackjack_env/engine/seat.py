"""A player's place at the table: bankroll, bet, this round's hands and results.

A :class:`Seat` is the table's record of one player; :class:`~blackjack_env.engine.table.Table`
is the only code that changes it (chips move through the table's ``_take`` / ``_give``,
so that chips are conserved). :func:`check_bankroll` reads
a starting bankroll and :func:`as_chips` keeps whole amounts as ``int``.

Compiled with the table (``_native.KNOWN``): the table reads and writes seats on
every action.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from mypy_extensions import mypyc_attr

from blackjack_env.engine.events import Chips, HandResult
from blackjack_env.engine.hand import Hand
from blackjack_env.engine.play import can_cover

__all__ = ["Seat", "as_chips", "check_bankroll"]


def as_chips(value: Fraction | int) -> Chips:
    """``value`` as chips: a whole ``Fraction`` becomes an ``int``."""
    # (the exact type: isinstance against Fraction, an ABC of numbers, costs a check through
    # its metaclass for every int; a settled round passes here several times)
    if type(value) is Fraction and value.denominator == 1:
        return value.numerator
    return value


def check_bankroll(value: object) -> Chips | None:
    """A seat's starting bankroll: None (unlimited credit) or chips >= 0.

    ``value`` is whatever the caller gave (typed ``object``: anything else gets
    this function's message rather than the compiled code's type error)."""
    if value is None:
        return None
    if isinstance(value, np.integer):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)) or value < 0:
        raise ValueError(
            f"bankroll={value!r} is not allowed; use None (unlimited credit), a whole number "
            f"of chips >= 0 or a Fraction >= 0, or a list with one entry per seat"
        )
    return as_chips(value)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Seat:
    """A player's place at the table.

    ``bankroll``: chips not on the table (``None`` for unlimited credit).
    ``bet``: the bet placed for the coming round. ``hands``: this round's hands
    (several after splits). ``insurance``: chips staked on insurance.
    ``results``: one :class:`HandResult` per hand once settled. ``net``: the
    round's net result including insurance.
    """

    __slots__ = ("bankroll", "bet", "hands", "index", "insurance", "net", "results")

    def __init__(self, index: int, bankroll: Chips | None) -> None:
        self.index = index
        self.bankroll = bankroll
        self.bet: int = 0
        self.hands: list[Hand] = []
        self.insurance: Chips = 0
        self.results: list[HandResult] = []
        self.net: Chips = 0

    @property
    def active(self) -> bool:
        """True when the seat plays this round (it has a bet / hands)."""
        return self.bet > 0

    def can_afford(self, amount: Chips) -> bool:
        return can_cover(self.bankroll, amount)

    def __repr__(self) -> str:
        hands = ", ".join(str(h) for h in self.hands)
        return f"Seat({self.index}, bankroll={self.bankroll}, bet={self.bet}, hands=[{hands}])"
