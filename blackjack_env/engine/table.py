"""The round as a state machine: bets -> deal -> insurance/peek -> seats act -> dealer -> settle.

A :class:`Table` owns a :class:`~blackjack_env.engine.shoe.Shoe`, up to seven
:class:`Seat` objects and the dealer's :class:`~blackjack_env.engine.hand.Hand`.
A round goes through the phases of :class:`Phase`:

``BETTING``
    :meth:`Table.bet` places (or replaces) a seat's bet; seats without a bet sit
    the round out. :meth:`Table.deal` starts the round.
``DEALING`` (transient)
    One card to each betting seat in seat order, the dealer's upcard, a second
    card to each seat, the dealer's hole card (none under ``HoleCard.NONE``).
    Naturals are paid here when ``natural_paid_at_deal``.
``INSURANCE``
    Only under ``HoleCard.PEEK`` with an ace or ten-value upcard, and only when a
    seat has something to decide: insurance / even money (ace up, when offered)
    or early surrender. Each seat in order answers with ``INSURE``,
    ``SURRENDER`` or ``DECLINE``. Then the dealer peeks: a dealer blackjack
    settles the round (original bets only).
``PLAYER_TURNS``
    Each seat's hands in order, split hands left to right. :meth:`Table.act`
    applies ``STAND``, ``HIT``, ``DOUBLE``, ``SPLIT`` or ``SURRENDER`` to the
    hand :attr:`Table.to_act` names; :meth:`Table.legal_actions` lists what the
    rules and the bankroll allow. A split hand receives its second card when
    play reaches it.
``DEALER_TURN`` (transient)
    The hole card is turned (or, with no hole card, the second card drawn) and
    the dealer draws to 17 (hitting soft 17 under H17), unless every hand is
    already settled.
``SETTLED``
    Every hand is paid or taken (:attr:`Seat.results`). :meth:`Table.new_round`
    clears the table into the discard tray, reshuffles if the cut card is out,
    and returns to ``BETTING``.

A shoe that runs dry mid-round has its discard tray shuffled back in. If every
card is on the table (:attr:`Shoe.can_draw` is False; e.g. one deck, seven seats
and cards of low value), no card can be dealt, and the round still ends: HIT,
DOUBLE and SPLIT are not legal (STAND and SURRENDER stay), a split hand waiting
for its second card stands with one card, and the dealer stops drawing (under
``HoleCard.NONE`` it may keep its one card); every hand is then settled against
the dealer's hand as it stands. No state is a dead end, and chips and cards are
conserved as always.

Money: chips are ``int``; a result that is not whole (3:2 on an odd bet, 6:5,
half a bet back on a surrender, odd insurance) is an exact ``Fraction``. A bet
leaves the bankroll when it is placed; settlement returns stake plus winnings.
Every round, the seats' bankroll changes plus the house's result add to zero
(:attr:`Table.house`), and every card is in the shoe, on the table or in the
discard tray.

Errors: a call made in the wrong phase raises :class:`PhaseError`; an action
or bet the rules or bankroll do not allow raises :class:`IllegalActionError`
(both are ``ValueError``). Nothing is changed by a call that raises.

Events: :attr:`Table.events` records the current round (cards dealt to whom,
actions, insurance, the peek, settlements), for renderers and tests.

Where the parts live (all importable from here and from :mod:`blackjack_env.engine`):
:mod:`~blackjack_env.engine.events` (``Phase``, ``EventKind``, ``Event``,
``HandResult``, ``Chips``), :mod:`~blackjack_env.engine.errors` (``TableError``,
``PhaseError``, ``IllegalActionError``), :mod:`~blackjack_env.engine.seat`
(``Seat``), and :mod:`~blackjack_env.engine.play` (``Action``, ``Outcome`` and
every rule decision the table asks about). This module holds the state machine.
"""

from __future__ import annotations

from typing import Any, Final, SupportsIndex, cast

import numpy as np
from mypy_extensions import mypyc_attr

from blackjack_env.engine.cards import Card
from blackjack_env.engine.errors import IllegalActionError, PhaseError, TableError
from blackjack_env.engine.events import Chips, Event, EventKind, HandResult, Phase
from blackjack_env.engine.hand import Hand, score
from blackjack_env.engine.play import (
    INSURANCE_PAYS,
    Action,
    NaturalEffect,
    Outcome,
    auto_stands,
    category,
    covers_insurance,
    dealer_draws,
    dealer_peeks,
    dealt_natural_effect,
    double_allowed,
    highest_hand_outcomes,
    hit_allowed,
    insurance_stake,
    natural_paid_at_peek,
    outcome,
    payout,
    play_actions,
    pre_peek_actions,
    settles_by_highest_hand,
    split_allowed,
    split_hand_done,
    split_stake,
    split_stake_ok,
    stand_hit_only,
    surrender_outcome,
    surrender_settles_at_once,
)
from blackjack_env.engine.rules import (
    HoleCard,
    Rules,
    SplitBy,
)
from blackjack_env.engine.seat import Seat, as_chips, check_bankroll
from blackjack_env.engine.shoe import Shoe

__all__ = [
    "Action",
    "Chips",
    "Event",
    "EventKind",
    "HandResult",
    "IllegalActionError",
    "Outcome",
    "Phase",
    "PhaseError",
    "Seat",
    "Table",
    "TableError",
    "double_allowed",
    "play_actions",
    "split_allowed",
]

# Enum members read on the hot paths, as module constants named _<ENUM>_<MEMBER>: on
# Python 3.11 reading ``Outcome.WIN`` through the enum class costs several times a
# global lookup, and ``Final`` lets the compiled module keep them in C globals.
# Measured (compiled, 2026-11-30, CPU time, builds alternated): reading the members
# through their enums instead makes the env 24% / 17% slower (sutton-barto tuple /
# vegas-strip multidiscrete) and the engine 25-35% slower. Kept.
_PHASE_BETTING: Final = Phase.BETTING
_PHASE_DEALING: Final = Phase.DEALING
_PHASE_INSURANCE: Final = Phase.INSURANCE
_PHASE_PLAYER_TURNS: Final = Phase.PLAYER_TURNS
_PHASE_DEALER_TURN: Final = Phase.DEALER_TURN
_PHASE_SETTLED: Final = Phase.SETTLED
_ACTION_STAND: Final = Action.STAND
_ACTION_HIT: Final = Action.HIT
_ACTION_DOUBLE: Final = Action.DOUBLE
_ACTION_SPLIT: Final = Action.SPLIT
_ACTION_SURRENDER: Final = Action.SURRENDER
_EVENT_DEAL: Final = EventKind.DEAL
_EVENT_UPCARD: Final = EventKind.UPCARD
_EVENT_HOLE_CARD: Final = EventKind.HOLE_CARD
_EVENT_ACTION: Final = EventKind.ACTION
_EVENT_PEEK: Final = EventKind.PEEK
_EVENT_REVEAL: Final = EventKind.REVEAL
_EVENT_DEALER_DRAW: Final = EventKind.DEALER_DRAW
_EVENT_SETTLE: Final = EventKind.SETTLE
_EVENT_BET: Final = EventKind.BET
_OUTCOME_BLACKJACK: Final = Outcome.BLACKJACK
_OUTCOME_BUST: Final = Outcome.BUST
_OUTCOME_SURRENDER: Final = Outcome.SURRENDER
_NATURAL_PAY: Final = NaturalEffect.PAY
_NATURAL_PLAY: Final = NaturalEffect.PLAY
# Hot paths build Event / HandResult records with every field given, through
# tuple.__new__: the same records, without the NamedTuple's Python-level __new__.
# Measured as above: calling Event(...) / HandResult(...) instead makes the env 19% /
# 12% slower and the engine 23-28% slower. Kept.
_record: Final = tuple.__new__


#: What play_actions gives a hand that holds more than two cards (or has doubled)
#: and may be hit; Table's fast paths return it without the work.
_STAND_HIT: Final = (Action.STAND, Action.HIT)


def _take(seat: Seat, amount: Chips) -> None:
    """Move ``amount`` chips from the seat to the table (a bet, a double, a split, insurance);
    an unlimited bankroll (``None``) stays unlimited. With :func:`_give`, the only place a
    seat's bankroll changes, so that chips are conserved."""
    if seat.bankroll is not None:
        seat.bankroll = as_chips(seat.bankroll - amount)


def _give(seat: Seat, amount: Chips) -> None:
    """Move ``amount`` chips from the table to the seat (a returned stake, a payout)."""
    if seat.bankroll is not None:
        seat.bankroll = as_chips(seat.bankroll + amount)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Table:
    """A blackjack table for ``rules.seats`` seats and a dealer.

    Args:
        rules (Rules): the rule set.
        rng (numpy.random.Generator | None): the one random generator (every shuffle
            and draw). If omitted, one is made from ``seed``.
        seed (int | None): seed for a new generator when ``rng`` is not given.
        bankroll (int | Fraction | Sequence | None): starting chips for every seat
            (``None``: unlimited credit; an int or Fraction >= 0), or a list / tuple
            with one entry per seat.
        shoe (Shoe | None): an existing shoe to deal from (by default one is built
            from the rules and ``rng``).
    """

    def __init__(
        self,
        rules: object,
        rng: object = None,
        *,
        seed: object = None,
        bankroll: object = None,
        shoe: object = None,
    ) -> None:
        # The arguments are typed object because compiled code checks an annotated
        # argument's type before the body runs, with its own message: typed object, a
        # wrong type gets the table's message below, compiled or not
        # (tests/engine/test_library_errors.py). No speed is at stake (once per table).
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
        if shoe is not None and not isinstance(shoe, Shoe):
            raise TypeError(
                f"shoe must be a Shoe (blackjack_env.engine.Shoe) or None (one built from the "
                f"rules), got {type(shoe).__name__}"
            )
        if rng is not None and not isinstance(rng, np.random.Generator):
            raise TypeError(
                f"rng must be a numpy.random.Generator (np.random.default_rng(seed)) or None, "
                f"got {type(rng).__name__}"
            )
        self.rules: Rules = rules
        if rng is not None and seed is not None:
            raise ValueError(
                "give either rng (a numpy Generator) or seed, not both: the table has one "
                "random stream"
            )
        self.rng: np.random.Generator = (
            cast(np.random.Generator, rng) if rng is not None
            else np.random.default_rng(cast(Any, seed))
        )
        self.shoe: Shoe = (
            cast(Shoe, shoe) if shoe is not None
            else Shoe(rules.shoe_decks, self.rng, rules.penetration)
        )
        bankrolls = (
            list(bankroll) if isinstance(bankroll, (list, tuple)) else [bankroll] * rules.seats
        )
        if len(bankrolls) != rules.seats:
            raise ValueError(
                f"bankroll list has {len(bankrolls)} entries; the table has {rules.seats} seats"
            )
        self.seats = [Seat(i, check_bankroll(b)) for i, b in enumerate(bankrolls)]
        self._values = rules.card_values
        self.dealer = Hand(self._values)
        self.phase = Phase.BETTING
        self.round = 0
        # the house's result (:attr:`house`) in two parts: its whole chips, and what
        # the fractional payouts (3:2, 6:5, half a bet back) left (_house_pays)
        self._house_whole = 0
        self._house_part: Chips = 0
        self.events: list[Event] = []
        self.hole_revealed = False
        self.reshuffled = False
        self._seat_i = -1  # seat to act (INSURANCE / PLAYER_TURNS)
        self._hand_i = -1  # hand to act (PLAYER_TURNS)
        self._peek_possible = False
        # rules with nothing but stand and hit (Gymnasium's game) skip the legality work
        self._stand_hit_only = stand_hit_only(rules)
        # rule facts read on every round (Rules is frozen)
        self._hole = rules.hole_card is not HoleCard.NONE
        self._peek_rule = rules.hole_card is HoleCard.PEEK
        self._auto21 = rules.auto_stand_21  # play.auto_stands can hold (a shortcut)
        self._split_by_value = rules.split_by is SplitBy.VALUE
        self._highest = settles_by_highest_hand(rules)
        self._natural_effect = dealt_natural_effect(rules)
        self._natural_paid_at_peek = natural_paid_at_peek(rules)

    # =============================================================== queries
    @property
    def house(self) -> Chips:
        """The house's result since the table opened, in chips, exact (an ``int``, or a
        ``Fraction`` after fractional payouts): minus the seats' nets, so that the seats'
        bankroll changes plus this add to zero."""
        return as_chips(self._house_whole + self._house_part)

    def _house_pays(self, net: Chips) -> None:
        """The house's side of a seat's ``net``: whole chips in an ``int``, a fractional
        net apart, so that most hands move ints only (the sum was a ``Fraction`` at every
        hand once a natural had paid 3:2: about a tenth of a vegas-strip env step)."""
        if type(net) is int:
            self._house_whole -= net
        else:
            self._house_part = as_chips(self._house_part - net)

    @property
    def upcard(self) -> Card | None:
        """The dealer's face-up card (None before the deal)."""
        return self.dealer.cards[0] if self.dealer.cards else None

    @property
    def to_act(self) -> tuple[int, int] | None:
        """``(seat, hand)`` whose decision is awaited, or None."""
        if self.phase is _PHASE_PLAYER_TURNS:
            return self._seat_i, self._hand_i
        if self.phase is _PHASE_INSURANCE:
            return self._seat_i, 0
        return None

    @property
    def current_hand(self) -> Hand | None:
        """The hand whose decision is awaited, or None."""
        if self.phase is _PHASE_PLAYER_TURNS or self.phase is _PHASE_INSURANCE:
            return self.seats[self._seat_i].hands[max(self._hand_i, 0)]
        return None

    def legal_actions(self) -> tuple[Action, ...]:
        """The actions the rules and bankroll allow for the hand to act (empty if none)."""
        if self.phase is _PHASE_PLAYER_TURNS:
            seat = self.seats[self._seat_i]
            legal = self._play_actions(seat, seat.hands[self._hand_i])
            if not self.shoe.can_draw:  # every card is on the table: no card to take
                legal = tuple([a for a in legal if a is _ACTION_STAND or a is Action.SURRENDER])
            return legal
        if self.phase is _PHASE_INSURANCE:
            return self._insurance_actions(self.seats[self._seat_i])
        return ()

    def cards_on_table(self) -> list[Card]:
        """Every card in a player's or the dealer's hand."""
        cards = list(self.dealer.cards)
        for seat in self.seats:
            for hand in seat.hands:
                cards.extend(hand.cards)
        return cards

    # =============================================================== betting
    def bet(self, seat: SupportsIndex, amount: SupportsIndex) -> None:
        """Place (or replace) ``seat``'s bet for the coming round.

        ``amount`` 0 withdraws the bet (the seat sits out).
        """
        if self.phase is not _PHASE_BETTING:
            self._need(Phase.BETTING, "bet")
        s = self._seat(seat)
        if type(amount) is not int and (
            isinstance(amount, bool) or not isinstance(amount, (int, np.integer))
        ):
            raise IllegalActionError(f"bet amount must be a whole number of chips, got {amount!r}")
        amount = int(amount)
        rules = self.rules
        if amount and not rules.min_bet <= amount <= rules.max_bet:
            raise IllegalActionError(
                f"bet of {amount} is outside the table limits {rules.min_bet}..{rules.max_bet} "
                f"(0 sits the round out)"
            )
        if s.bankroll is not None:
            available = s.bankroll + s.bet
            if amount > available:
                raise IllegalActionError(
                    f"seat {seat} cannot bet {amount}: its bankroll is {available}"
                )
            _give(s, s.bet)
            _take(s, amount)
        s.bet = amount
        if amount:
            self.events.append(_record(Event, (_EVENT_BET, seat, None, None, None, amount, None)))

    def raise_bet(self, amount: SupportsIndex) -> None:
        """Add ``amount`` chips to the bet of the hand to act (``rules.bet_raising``)."""
        self._need(Phase.PLAYER_TURNS, "raise a bet")
        if not self.rules.bet_raising:
            raise IllegalActionError("these rules do not allow raising a bet (bet_raising=False)")
        seat = self.seats[self._seat_i]
        hand = seat.hands[self._hand_i]
        if isinstance(amount, bool) or not isinstance(amount, (int, np.integer)) or amount < 1:
            raise IllegalActionError(
                f"a raise must be a whole number of chips >= 1, got {amount!r}"
            )
        amount = int(amount)
        if hand.bet + amount > self.rules.max_bet:
            raise IllegalActionError(
                f"raising by {amount} would make the bet {hand.bet + amount}, above the table "
                f"maximum {self.rules.max_bet}"
            )
        if not seat.can_afford(amount):
            raise IllegalActionError(
                f"seat {seat.index} cannot raise by {amount}: its bankroll is {seat.bankroll}"
            )
        _take(seat, amount)
        hand.bet = hand.bet + amount
        self.events.append(Event(EventKind.RAISE, seat.index, self._hand_i, amount=amount))

    # ================================================================= round
    def new_round(self) -> bool:
        """Clear the table, reshuffle if the cut card is out, and open betting.

        Returns True when the shoe was reshuffled. Callable once a round is
        settled, or in ``BETTING`` before any card is dealt (bets stay).
        """
        phase = self.phase
        if phase is not _PHASE_SETTLED:
            if phase is _PHASE_BETTING:
                return False
            raise PhaseError(
                f"new_round() is called once the round is settled; the table is in phase "
                f"{phase.value}"
            )
        shoe = self.shoe
        if shoe.decks is not None:  # an infinite deck keeps no discard tray
            shoe.discard(self.cards_on_table())
        for seat in self.seats:
            seat.hands = []
            seat.bet = 0
            seat.insurance = 0
            seat.results = []
            seat.net = 0
        self.dealer = Hand(self._values)
        self.hole_revealed = False
        self.events = []
        self.reshuffled = shoe.needs_shuffle
        if self.reshuffled:
            shoe.shuffle()
            self.events.append(Event(EventKind.SHUFFLE))
        self.phase = _PHASE_BETTING
        return self.reshuffled

    def deal(self) -> None:
        """Deal the round to every seat with a bet."""
        if self.phase is not _PHASE_BETTING:
            self._need(_PHASE_BETTING, "deal")
        values = self._values
        active = []  # (seat, its hand) for every seat with a bet, in seat order
        for seat in self.seats:
            if seat.bet > 0:
                hand = Hand(values)
                hand.bet = seat.bet
                seat.hands = [hand]
                active.append((seat, hand))
        if not active:
            raise PhaseError("no seat has a bet: place at least one bet before dealing")
        self.round += 1
        self.phase = _PHASE_DEALING
        rules = self.rules
        draw = self.shoe.draw
        events = self.events
        dealer = self.dealer
        for seat, hand in active:
            card = draw()
            hand.add(card)
            events.append(_record(Event, (_EVENT_DEAL, seat.index, 0, card, None, None, None)))
        card = draw()
        dealer.add(card)
        events.append(_record(Event, (_EVENT_UPCARD, None, None, card, None, None, None)))
        for seat, hand in active:
            card = draw()
            hand.add(card)
            events.append(_record(Event, (_EVENT_DEAL, seat.index, 0, card, None, None, None)))
        if self._hole:
            card = draw()
            dealer.add(card)
            events.append(
                _record(Event, (_EVENT_HOLE_CARD, None, None, card, None, None, None))
            )

        effect = self._natural_effect
        if effect is not _NATURAL_PLAY:
            for seat, hand in active:
                if hand.is_blackjack:
                    if effect is _NATURAL_PAY:
                        self._pay(seat, 0, _OUTCOME_BLACKJACK)
                    else:
                        hand.done = True

        if self._peek_rule:
            # a blackjack needs an ace and a ten-value card: peek under either (by rank
            # for the ace, since custom values may give a non-ace the value 1)
            up_rank = dealer.cards[0].rank
            self._peek_possible = dealer_peeks(rules, values[up_rank - 1], up_rank == 1)
            self._seat_i = -1
            if self._peek_possible and self._next_insurance_seat():
                self.phase = _PHASE_INSURANCE
                return
            self._peek()
            if self.phase is _PHASE_SETTLED:
                return
        else:
            self._peek_possible = False
        self._start_turns()

    def act(self, action: SupportsIndex) -> None:
        """Apply ``action`` for the hand to act (see :meth:`legal_actions`)."""
        phase = self.phase
        if phase is _PHASE_PLAYER_TURNS and (action is _ACTION_STAND or action is _ACTION_HIT):
            # Fast path: STAND is always legal in a player's turn, HIT when the hand may
            # be hit (play_actions' first test).
            if action is _ACTION_STAND:
                self._act_play(action)
                return
            hand = self.seats[self._seat_i].hands[self._hand_i]
            if hit_allowed(self.rules, hand.split_aces) and self.shoe.can_draw:
                self._act_play(action)
                return
        if phase is not _PHASE_PLAYER_TURNS and phase is not _PHASE_INSURANCE:
            raise PhaseError(
                f"no decision is awaited in phase {phase.value}: "
                + ("place bets and deal()" if phase is _PHASE_BETTING else "call new_round()")
            )
        legal = self.legal_actions()
        try:
            action = Action(cast(Any, action))
        except ValueError:
            raise IllegalActionError(
                f"{action!r} is not an action; legal now: {_names(legal)}"
            ) from None
        if action not in legal:
            seat_i, hand_i = self.to_act  # type: ignore[misc]
            raise IllegalActionError(
                f"{action.name} is not allowed for seat {seat_i} hand {hand_i} "
                f"({self.current_hand}); legal now: {_names(legal)}"
            )
        if phase is _PHASE_INSURANCE:
            self._act_insurance(action)
        else:
            self._act_play(action)

    # ======================================================= insurance phase
    def _insurance_actions(self, seat: Seat) -> tuple[Action, ...]:
        hand = seat.hands[0]
        up_rank = self.dealer.cards[0].rank
        natural = hand.is_blackjack
        return pre_peek_actions(
            self.rules,
            up_value=self._values[up_rank - 1],
            up_ace=up_rank == 1,
            natural=natural,
            insurance=natural or covers_insurance(seat.bankroll, hand.bet),
        )

    def _next_insurance_seat(self) -> bool:
        """Move the cursor to the next seat with a pre-peek decision; False when none."""
        seats = self.seats
        for i in range(self._seat_i + 1, len(seats)):
            seat = seats[i]
            if seat.bet and not seat.hands[0].settled and len(self._insurance_actions(seat)) > 1:
                self._seat_i = i
                self._hand_i = 0
                return True
        return False

    def _act_insurance(self, action: Action) -> None:
        seat = self.seats[self._seat_i]
        hand = seat.hands[0]
        self.events.append(Event(EventKind.ACTION, seat.index, 0, action=action))
        if action is Action.INSURE:
            if hand.is_blackjack:
                self._pay(seat, 0, Outcome.EVEN_MONEY)
            else:
                stake = as_chips(insurance_stake(hand.bet))
                _take(seat, stake)
                seat.insurance = stake
                self.events.append(Event(EventKind.INSURANCE, seat.index, amount=stake))
        elif action is Action.SURRENDER:
            hand.surrendered = True
            self._pay(seat, 0, Outcome.SURRENDER)
        if not self._next_insurance_seat():
            self._peek()
            if self.phase is not Phase.SETTLED:
                self._start_turns()

    def _peek(self) -> None:
        """The dealer checks the hole card (only with an ace or ten up); a blackjack
        settles the round. Then naturals are paid, when they beat any dealer 21."""
        dealer_bj = self._peek_possible and self.dealer.is_blackjack
        if self._peek_possible:
            self.events.append(Event(_EVENT_PEEK))
        for seat in self.seats:
            if seat.insurance:
                returned = seat.insurance * (1 + INSURANCE_PAYS) if dealer_bj else 0
                _give(seat, returned)
                net = as_chips(returned - seat.insurance)
                seat.net = as_chips(seat.net + net)
                self._house_pays(net)
                self.events.append(
                    Event(EventKind.INSURANCE_SETTLED, seat.index, amount=as_chips(returned))
                )
        if dealer_bj:
            self.hole_revealed = True
            self.events.append(Event(EventKind.REVEAL, card=self.dealer.cards[1]))
            for seat in self.seats:
                for i, hand in enumerate(seat.hands):
                    if not hand.settled:
                        self._pay(seat, i, self._compare(hand))
            self.phase = _PHASE_SETTLED
            return
        # No dealer blackjack: a player's natural that ended its hand is paid now
        # (play.natural_paid_at_peek), or it waits for the dealer's hand.
        if not self._natural_paid_at_peek:
            return
        for seat in self.seats:
            for i, hand in enumerate(seat.hands):
                if hand.done and not hand.settled and hand.is_blackjack:
                    self._pay(seat, i, _OUTCOME_BLACKJACK)

    # ========================================================== player turns
    def _play_actions(self, seat: Seat, hand: Hand) -> tuple[Action, ...]:
        rules = self.rules
        two_cards = len(hand.cards) == 2 and not hand.doubled
        if self._stand_hit_only or (not two_cards and hit_allowed(rules, hand.split_aces)):
            return _STAND_HIT  # what play_actions gives here, without the work
        total, soft = score(hand.hard_total, hand.has_ace)
        up_rank = self.dealer.cards[0].rank
        return play_actions(
            rules,
            two_cards=two_cards,
            total=total,
            soft=soft,
            can_split=self._can_split(seat, hand),
            split_aces=hand.split_aces,
            from_split=hand.from_split,
            hands=len(seat.hands),
            up_value=self._values[up_rank - 1],
            up_ace=up_rank == 1,
            afford_double=seat.can_afford(hand.bet),
        )

    def _can_split(self, seat: Seat, hand: Hand) -> bool:
        rules = self.rules
        if not split_allowed(
            rules,
            pair=hand.is_pair(self._split_by_value),
            hands=len(seat.hands),
            split_aces=hand.split_aces,
        ):
            return False
        return split_stake_ok(rules, hand.bet, seat.can_afford(hand.bet))

    def _act_play(self, action: Action) -> None:
        seat = self.seats[self._seat_i]
        hand_i = self._hand_i
        hand = seat.hands[hand_i]
        events = self.events
        events.append(_record(Event, (_EVENT_ACTION, seat.index, hand_i, None, action, None, None)))
        if action is _ACTION_HIT:
            card = self.shoe.draw()
            hand.add(card)
            events.append(_record(Event, (_EVENT_DEAL, seat.index, hand_i, card, None, None, None)))
            if hand.hard_total > 21:
                hand.done = True
                self._pay(seat, hand_i, _OUTCOME_BUST)
            elif self._auto21 and auto_stands(self.rules, hand.total):
                hand.done = True
        elif action is _ACTION_STAND:
            hand.done = True
        elif action is _ACTION_DOUBLE:
            _take(seat, hand.bet)
            hand.bet = hand.bet * 2
            hand.doubled = True
            self._deal_to(seat, hand_i)
            hand.done = True
            if hand.hard_total > 21:
                self._pay(seat, hand_i, _OUTCOME_BUST)
        elif action is _ACTION_SPLIT:
            self._split(seat, hand_i)
        elif action is _ACTION_SURRENDER:
            hand.surrendered = True
            hand.done = True
            if surrender_settles_at_once(self.rules):
                self._pay(seat, hand_i, _OUTCOME_SURRENDER)
        if hand.done:
            self._advance()

    def _split(self, seat: Seat, hand_i: int) -> None:
        rules = self.rules
        hand = seat.hands[hand_i]
        new = Hand(self._values)
        stake = split_stake(rules, hand.bet)
        _take(seat, 2 * stake - hand.bet)  # (halved: an odd chip goes back to the seat)
        hand.bet = stake
        new.bet = stake
        new.add(hand.pop())
        for h in (hand, new):
            h.from_split = True
            # per hand: with split_by=VALUE and custom values an ace can pair a non-ace
            h.split_aces = h.cards[0].rank == 1
            h.blackjack_counts = rules.blackjack_after_split
        seat.hands.insert(hand_i + 1, new)
        self._deal_to(seat, hand_i)
        self._check_two_card_hand(seat, hand)

    def _check_two_card_hand(self, seat: Seat, hand: Hand) -> None:
        """A split hand just got its second card: finish it if it has no decision."""
        if split_hand_done(
            self.rules,
            split_aces=hand.split_aces,
            can_split=self._can_split(seat, hand),
            natural=hand.is_blackjack,
            total=hand.total,
        ):
            hand.done = True

    def _deal_to(self, seat: Seat, hand_i: int) -> None:
        card = self.shoe.draw()
        seat.hands[hand_i].add(card)
        self.events.append(
            _record(Event, (_EVENT_DEAL, seat.index, hand_i, card, None, None, None))
        )

    def _start_turns(self) -> None:
        self.phase = _PHASE_PLAYER_TURNS
        self._seat_i = 0
        self._hand_i = -1
        self._advance()

    def _advance(self) -> None:
        """Move to the next hand that needs a decision, or to the dealer."""
        seats = self.seats
        auto21 = self._auto21
        rules = self.rules
        s, h = self._seat_i, self._hand_i + 1
        while s < len(seats):
            seat = seats[s]
            if seat.bet:
                hands = seat.hands
                while h < len(hands):
                    hand = hands[h]
                    if not hand.done:
                        if len(hand.cards) == 1:
                            self._seat_i = s
                            if self.shoe.can_draw:
                                self._deal_to(seat, h)
                                self._check_two_card_hand(seat, hand)
                            else:  # every card is on the table: it stands with one card
                                hand.done = True
                        elif auto21 and hand.hard_total <= 21 and auto_stands(rules, hand.total):
                            hand.done = True
                        if not hand.done:
                            self._seat_i, self._hand_i = s, h
                            return
                    h += 1
            s += 1
            h = 0
        self._dealer_turn()

    # ================================================================ dealer
    def _dealer_turn(self) -> None:
        self.phase = _PHASE_DEALER_TURN
        self._seat_i = self._hand_i = -1
        dealer = self.dealer
        unsettled = []
        for seat in self.seats:
            for i, hand in enumerate(seat.hands):
                if not hand.settled:
                    unsettled.append((seat, i, hand))
        if unsettled:
            if not self._hole:
                if self.shoe.can_draw:  # (else every card is on the table: it keeps one)
                    card = self.shoe.draw()
                    dealer.add(card)
                    self.events.append(
                        _record(Event, (_EVENT_DEALER_DRAW, None, None, card, None, None, None))
                    )
            else:
                self.events.append(
                    _record(Event, (_EVENT_REVEAL, None, None, dealer.cards[1], None, None, None))
                )
            self.hole_revealed = True
            for _, _, hand in unsettled:
                if not hand.surrendered:
                    self._dealer_draws()
                    break
            if self._highest:
                self._settle_highest(unsettled)
            else:
                for seat, i, hand in unsettled:
                    self._pay(seat, i, self._compare(hand))
        else:
            self.hole_revealed = self._hole
            if self.hole_revealed:
                self.events.append(
                    _record(Event, (_EVENT_REVEAL, None, None, dealer.cards[1], None, None, None))
                )
        self.phase = _PHASE_SETTLED

    def _dealer_draws(self) -> None:
        """The dealer's fixed rule: draw to 17, hitting soft 17 under H17."""
        dealer = self.dealer
        draw = self.shoe.draw
        events = self.events
        rules = self.rules
        while True:
            total, soft = score(dealer.hard_total, dealer.has_ace)
            if not dealer_draws(rules, total, soft):
                return
            if not self.shoe.can_draw:
                return  # every card is on the table: the dealer's hand stands as it is
            card = draw()
            dealer.add(card)
            events.append(_record(Event, (_EVENT_DEALER_DRAW, None, None, card, None, None, None)))

    # ============================================================ settlement
    def _compare(self, hand: Hand) -> Outcome:
        """Outcome of a standing hand against the dealer's final hand (``Settlement.DEALER``),
        as the rules of play judge it (:func:`~blackjack_env.engine.play.outcome`)."""
        dealer = self.dealer
        if hand.surrendered:
            # Late surrender without a peek: settled against the dealer's hand.
            return surrender_outcome(dealer.is_blackjack)
        return outcome(
            self.rules,
            category(hand.total, hand.is_blackjack),
            category(dealer.total, dealer.is_blackjack),
        )

    def _settle_highest(self, unsettled: list[tuple[Seat, int, Hand]]) -> None:
        """``Settlement.HIGHEST_HAND``: only the best hands at the table can win
        (:func:`~blackjack_env.engine.play.highest_hand_outcomes`)."""
        dealer = self.dealer
        results = highest_hand_outcomes(
            self.rules,
            [category(h.total, h.is_blackjack) for _, _, h in unsettled],
            [h.surrendered for _, _, h in unsettled],
            category(dealer.total, dealer.is_blackjack),
        )
        # surrendered hands first, then the live ones, each in table order (as paid before)
        for surr in (True, False):
            for (seat, i, hand), result in zip(unsettled, results, strict=True):
                if result is not None and hand.surrendered is surr:
                    self._pay(seat, i, result)

    def _pay(self, seat: Seat, hand_i: int, result: Outcome) -> None:
        """Settle one hand: the one place chips move at the end of a hand."""
        hand = seat.hands[hand_i]
        bet = hand.bet
        factor = payout(self.rules, result)
        if type(factor) is int and type(bet) is int:
            net: Chips = factor * bet
        else:
            net = as_chips(factor * bet)
        if type(net) is int and type(bet) is int and type(seat.net) is int:
            if seat.bankroll is not None:
                seat.bankroll = as_chips(seat.bankroll + bet + net)
            seat.net += net
        else:  # (a fractional net: unlimited credit gives nothing, a first net is itself)
            if seat.bankroll is not None:
                _give(seat, as_chips(bet + net))
            seat.net = as_chips(seat.net + net) if seat.net else net
        self._house_pays(net)
        hand.settled = True
        hand.done = True
        seat.results.append(_record(HandResult, (hand_i, result, bet, net)))
        self.events.append(
            _record(Event, (_EVENT_SETTLE, seat.index, hand_i, None, None, net, result))
        )

    # =============================================================== helpers
    def _need(self, phase: Phase, what: str) -> None:
        if self.phase is not phase:
            raise PhaseError(
                f"cannot {what} in phase {self.phase.value}; it is allowed in phase {phase.value}"
            )

    def _seat(self, seat: SupportsIndex) -> Seat:
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not (
            0 <= seat < len(self.seats)
        ):
            raise IllegalActionError(
                f"seat {seat!r} does not exist; seats are 0..{len(self.seats) - 1}"
            )
        return self.seats[int(seat)]

    def __repr__(self) -> str:
        return (
            f"Table(round={self.round}, phase={self.phase.value}, dealer={self.dealer}, "
            f"seats={self.seats})"
        )


def _names(actions: tuple[Action, ...]) -> str:
    return ", ".join(a.name for a in actions) or "none"
