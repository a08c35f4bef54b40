"""One browser session's table: an engine :class:`~blackjack_env.engine.Table`, who plays
each seat, the values of the decisions made, and the frames the page draws.

:class:`Game` holds no rule of its own: bets, legality, totals, payouts and the order of
play are the engine's; values are :func:`blackjack_env.web.values.action_values`'. It
only routes a request to the engine (or asks a seat's bot for its decision), records the
value given up by each decision, and turns the table into the JSON document the page
draws (:meth:`Game.state`). A refused request raises :class:`WebError` (with the HTTP
status the server answers) and leaves the table as it was.

Two modes:

* ``play``: some seats are people (hot seat: several people take turns at one
  screen); the others are bots, which bet and act by themselves until a person's
  decision is awaited or the round is settled.
* ``watch``: every seat is a bot; :meth:`Game.step` advances one thing at a time
  (the bets and the deal, one decision, or the next round).

Every change appends a frame (the state after it) to a bounded history, so the page can
go back to any earlier decision of the session (the last :data:`MAX_FRAMES`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from blackjack_env.engine import (
    Action,
    Card,
    EventKind,
    IllegalActionError,
    Phase,
    PhaseError,
    Rank,
    Rules,
    ShoeExhaustedError,
    Table,
    score,
)
from blackjack_env.engine.play import (
    INSURANCE_PAYS,
    Outcome,
    highest_hand_judged,
    insurance_stake,
    settles_by_highest_hand,
)
from blackjack_env.engine.rules import TieRule
from blackjack_env.web.values import Values, action_values

__all__ = ["BOT_NAMES", "MAX_FRAMES", "Conflict", "Game", "Illegal", "Invalid", "WebError"]

#: the fixed players a request may name (trained agents are named at server start)
BOT_NAMES: tuple[str, ...] = (
    "basic", "composition", "dealer", "never-bust", "random", "stand", "counter",
)
PERSON = "person"
#: frames kept per session for going back
MAX_FRAMES = 2000
#: recent decisions listed on the page
_LOG = 12


class WebError(ValueError):
    """A refused request: ``status`` is the HTTP status, the message says why."""

    status = 400


class Invalid(WebError):
    """Malformed or out-of-range input."""

    status = 400


class Conflict(WebError):
    """Not now: out of turn, or the wrong phase."""

    status = 409


class Illegal(WebError):
    """Well formed, but the rules (or the bankroll) do not allow it."""

    status = 422


def _num(value: Any) -> Any:
    """Chips for JSON: ints stay ints, an exact fraction becomes a float."""
    if value is None or isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else round(float(value), 4)
    return round(float(value), 6)


def _card(card: Card) -> dict[str, Any]:
    rank = "10" if card.rank == 10 else card.rank.letter
    return {"rank": rank, "suit": card.suit.symbol, "red": card.suit.red, "text": str(card)}


_STANDARD_VALUES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)


def _card_values(rules: Rules) -> dict[str, int]:
    """The cards whose value differs from the usual (rank letter -> value), for the page
    to say on the table (terminal-21: J, Q, K count 1, 2, 3); empty for standard rules."""
    return {Rank(r).letter: v for r, v in enumerate(rules.card_values, start=1)
            if v != _STANDARD_VALUES[r - 1]}


_TIES = {TieRule.PUSH: "a tie pushes", TieRule.DEALER_WINS: "the dealer wins ties",
         TieRule.PLAYER_LOSES: "a tie loses (blackjack against blackjack pushes)"}


def settlement_note(rules: Rules) -> str | None:
    """How the table pays, said on the page where it is not the usual hand against the
    dealer (``Settlement.HIGHEST_HAND``, :func:`~blackjack_env.engine.play.
    settles_by_highest_hand`); None for the usual settlement."""
    if not settles_by_highest_hand(rules):
        return None
    return ("Highest hand wins: if the dealer busts, every hand not bust wins; otherwise "
            "only the hands holding the highest total at the table (a blackjack counts 21) "
            "can win, each against the dealer's hand as usual (" + _TIES[rules.ties] +
            "), and every other hand loses, even one that beats the dealer.")


class Game:
    """A table for one browser session.

    Args:
        rules: the table's rules.
        rules_name: the preset they came from (shown on the page).
        mode: ``"play"`` or ``"watch"``.
        players: one entry per seat: ``"person"``, or the name of a bot.
        bots: name -> factory ``(rules, seed) -> strategy`` for every bot name allowed.
        bankroll: chips every seat starts with.
        bot_bet: what a bot stakes each round (a counter: its unit, spread by the count).
        seed: seed of the table's shuffles.
    """

    def __init__(
        self,
        *,
        rules: Rules,
        rules_name: str,
        mode: str,
        players: list[str],
        bots: Mapping[str, Callable[[Rules, int | None], Any]],
        bankroll: int,
        bot_bet: int,
        seed: int | None,
    ) -> None:
        if mode not in ("play", "watch"):
            raise Invalid(f"mode {mode!r} is not allowed; use 'play' or 'watch'")
        if len(players) != rules.seats:
            raise Invalid(
                f"players has {len(players)} entries; the table has {rules.seats} seats "
                f"(one entry per seat: 'person' or a bot name)"
            )
        for i, name in enumerate(players):
            if name != PERSON and name not in bots:
                raise Invalid(
                    f"player {name[:60]!r} of seat {i} is unknown; use 'person' or one of "
                    f"{', '.join(bots)}"
                )
        people = [i for i, p in enumerate(players) if p == PERSON]
        if mode == "play" and not people:
            raise Invalid("play mode needs at least one seat played by a person; or use watch")
        if mode == "watch" and people:
            raise Invalid("watch mode has no people: every seat is played by a bot")
        self.rules = rules
        self.rules_name = rules_name
        self.mode = mode
        self.players = list(players)
        self.people = set(people)
        self.bot_bet = bot_bet
        self.strategies: dict[int, Any] = {}
        for i, name in enumerate(players):
            if name == PERSON:
                continue
            try:
                strategy = bots[name](rules, None if seed is None else seed + i)
            except ValueError as err:
                raise Invalid(f"{name} cannot play seat {i} under these rules: {err}") from None
            if hasattr(strategy, "base_bet"):  # a counter's unit bet is the bots' bet
                strategy.base_bet = min(max(bot_bet, rules.min_bet), rules.max_bet)
            self.strategies[i] = strategy
        self.table = Table(rules, seed=seed, bankroll=bankroll)
        self.start_bankroll = bankroll
        self.given_up: list[Fraction | float] = [0.0] * rules.seats
        self.valued = [0] * rules.seats
        self.decisions = [0] * rules.seats
        self.log: deque[dict[str, Any]] = deque(maxlen=_LOG)
        self.last_bets: dict[int, int] = {i: min(max(bot_bet, rules.min_bet), rules.max_bet)
                                          for i in people}
        self.frames: deque[dict[str, Any]] = deque(maxlen=MAX_FRAMES)
        self._values: Values | None = None  # of the decision awaited (set by _snapshot)
        self.frame_count = 0
        self._record()

    @property
    def in_play(self) -> bool:
        """A round is in play: dealt and not yet settled (chips are on the table)."""
        return self.table.phase not in (Phase.BETTING, Phase.SETTLED)

    # ============================================================ requests
    def deal(self, bets: Mapping[int, int]) -> None:
        """Place the people's bets (seats not named sit out), the bots' bets, and deal."""
        table = self.table
        if table.phase is not Phase.BETTING:
            raise Conflict(
                f"bets are taken before the deal; the table is in phase {table.phase.value}"
                + (": start the next round first" if table.phase is Phase.SETTLED else "")
            )
        for seat in bets:
            if seat not in self.people:
                raise Invalid(f"seat {seat} is not played by a person; people sit at "
                              f"{sorted(self.people)}")
        placed: list[int] = []
        try:
            for seat in sorted(self.people):
                self._bet(seat, bets.get(seat, 0))
                placed.append(seat)
            for seat in sorted(self.strategies):
                self._bet(seat, self._bot_bet(seat))
                placed.append(seat)
            if not any(table.seats[seat].bet for seat in placed):
                raise Illegal(self._no_bet())
            table.deal()
        except (IllegalActionError, PhaseError, Illegal) as err:
            for seat in placed:  # the table as it was: no bets
                table.bet(seat, 0)
            if isinstance(err, Illegal):
                raise
            raise (Illegal if isinstance(err, IllegalActionError) else Conflict)(str(err)) from None
        except ShoeExhaustedError as err:  # every card is on the table: set up a new table
            raise Conflict(f"the shoe ran out of cards: {err}") from None
        for seat in self.people:
            if bets.get(seat):
                self.last_bets[seat] = int(bets[seat])
        self._record()
        self._run_bots()

    def _no_bet(self) -> str:
        """What to do when a deal finds no bet at the table."""
        rules = self.rules
        broke = [i + 1 for i in sorted(self.people)
                 if (b := self.table.seats[i].bankroll) is not None and b < rules.min_bet]
        if len(broke) == len(self.people) and not any(
                self._bot_bet(i) for i in self.strategies):
            return (f"no seat can bet: every seat is out of chips (under the table minimum "
                    f"of {rules.min_bet}); set up a new table (Setup) to play on")
        can = [i + 1 for i in sorted(self.people) if i + 1 not in broke]
        return (f"no seat has a bet: bet {rules.min_bet} to {rules.max_bet} at seat"
                f"{'s' if len(can) > 1 else ''} {', '.join(map(str, can))}, then deal")

    def check_frame(self, frame: int | None) -> None:
        """Refuse (409) a request that answers an earlier state than the latest frame:
        a double click, a repeated key, or a second tab must not act on the next hand."""
        latest = self.frame_count - 1
        if frame is not None and frame != latest:
            raise Conflict(
                f"this answers frame {frame}, but the table has moved on to frame {latest} "
                f"(that decision was already made: a double click or a repeated key?); "
                f"nothing was changed"
            )

    def act(self, seat: int, action: Action, frame: int | None = None) -> None:
        """A person's decision for the hand to act, which must be at ``seat``; ``frame``:
        the frame it answers (refused if the table has moved on since)."""
        self.check_frame(frame)
        self._person_turn(seat)
        self._decide(action)
        self._run_bots()

    def raise_bet(self, seat: int, amount: int, frame: int | None = None) -> None:
        """A person adds ``amount`` to the bet of the hand to act (``rules.bet_raising``);
        ``frame`` as in :meth:`act`."""
        self.check_frame(frame)
        self._person_turn(seat)
        hand_i = self.table.to_act[1]  # type: ignore[index]
        try:
            self.table.raise_bet(amount)
        except IllegalActionError as err:
            raise Illegal(str(err)) from None
        except PhaseError as err:
            raise Conflict(str(err)) from None
        self.log.append({"seat": seat, "hand": hand_i, "action": f"raise {amount}",
                         "player": self.players[seat], "best": None, "given_up": None,
                         "given_up_chips": None})
        self._record()

    def next_round(self) -> None:
        """Clear the settled round and open betting (same shoe; reshuffled at the cut card)."""
        if self.table.phase is not Phase.SETTLED:
            raise Conflict(
                f"the next round starts once this one is settled; the table is in phase "
                f"{self.table.phase.value}"
            )
        self.table.new_round()
        self._record()

    def step(self) -> None:
        """Watch mode: the bots' bets and the deal, one decision, or the next round."""
        if self.mode != "watch":
            raise Conflict("step is for watch mode; in play mode the bots act by themselves")
        phase = self.table.phase
        if phase is Phase.SETTLED:
            self.next_round()
        elif phase is Phase.BETTING:
            self.deal({})
        else:
            self._bot_decision()

    # ============================================================== bots
    def _run_bots(self) -> None:
        if self.mode != "play":
            return
        while True:
            who = self.table.to_act
            if who is None or who[0] in self.people:
                return
            self._bot_decision()

    def _bot_decision(self) -> None:
        who = self.table.to_act
        assert who is not None
        strategy = self.strategies[who[0]]
        try:
            action = strategy(self.table)
        except Exception as err:  # a bot that fails: say so; the table is untouched
            raise Illegal(
                f"the player of seat {who[0]} ({self.players[who[0]]}) failed to decide: {err}"
            ) from None
        self._decide(action)

    def _bot_bet(self, seat: int) -> int:
        strategy = self.strategies[seat]
        rules = self.rules
        # a counter sizes its bets from the count; the others stake bot_bet
        amount = int(strategy.bet(self.table, seat)) if hasattr(strategy, "bet") else self.bot_bet
        amount = min(max(amount, rules.min_bet), rules.max_bet)
        bankroll = self.table.seats[seat].bankroll
        if bankroll is not None and bankroll < amount:
            amount = int(bankroll) if bankroll >= rules.min_bet else 0
        return amount

    # ============================================================ helpers
    def _bet(self, seat: int, amount: int) -> None:
        self.table.bet(seat, amount)

    def _person_turn(self, seat: int) -> None:
        who = self.table.to_act
        if who is None:
            raise Conflict(f"no decision is awaited: the table is in phase "
                           f"{self.table.phase.value}")
        if seat not in self.people:
            raise Conflict(f"seat {seat} is not played by a person")
        if who[0] != seat:
            raise Conflict(f"it is seat {who[0]}'s turn, not seat {seat}'s")

    def _decide(self, action: Action) -> None:
        """Apply a decision for the hand to act, recording the value it gave up."""
        table = self.table
        seat_i, hand_i = table.to_act  # type: ignore[misc]
        hand = table.seats[seat_i].hands[hand_i]
        stake = hand.bet
        values = self._values  # of this decision: computed for the frame on show
        try:
            table.act(action)
        except IllegalActionError as err:
            raise Illegal(str(err)) from None
        except PhaseError as err:
            raise Conflict(str(err)) from None
        except ShoeExhaustedError as err:  # every card is on the table: set up a new table
            raise Conflict(f"the shoe ran out of cards: {err}") from None
        entry: dict[str, Any] = {
            "seat": seat_i,
            "hand": hand_i,
            "action": Action(action).name.lower(),
            "player": self.players[seat_i],
        }
        self.decisions[seat_i] += 1
        if (values is not None and values.available and not values.alone
                and Action(action) in values.evs):
            lost = values.evs[values.best] - values.evs[Action(action)]  # type: ignore[index]
            chips = lost * float(stake)
            self.given_up[seat_i] += chips
            self.valued[seat_i] += 1
            entry.update(best=values.best.name.lower(),  # type: ignore[union-attr]
                         given_up=round(lost, 6), given_up_chips=round(chips, 6))
        else:
            entry.update(best=None, given_up=None, given_up_chips=None)
        self.log.append(entry)
        self._record()

    def _record(self) -> None:
        frame = self._snapshot()
        frame["frame"] = self.frame_count
        self.frames.append(frame)
        self.frame_count += 1

    # ============================================================== state
    def state(self, frame: int | None = None) -> dict[str, Any]:
        """The JSON document the page draws: the latest frame, or an earlier one."""
        if frame is None:
            doc = self.frames[-1]
        else:
            first = self.frame_count - len(self.frames)
            if not first <= frame < self.frame_count:
                raise Invalid(
                    f"frame {frame} is not kept; frames are {first}..{self.frame_count - 1}"
                )
            doc = self.frames[frame - first]
        out = dict(doc)
        out["frames"] = {"first": self.frame_count - len(self.frames),
                         "last": self.frame_count - 1}
        return out

    def _snapshot(self) -> dict[str, Any]:
        table = self.table
        rules = self.rules
        who = table.to_act
        phase = table.phase
        values = self._values = action_values(table)
        legal = [a.name.lower() for a in table.legal_actions()]
        person_to_act = who is not None and who[0] in self.people
        seats = [self._seat_json(i, who) for i in range(len(table.seats))]
        shoe = table.shoe
        return {
            "mode": self.mode,
            "round": table.round,
            "phase": phase.value,
            "rules": {"preset": self.rules_name, "summary": rules.summary(),
                      "min_bet": rules.min_bet, "max_bet": rules.max_bet,
                      "bet_raising": rules.bet_raising,
                      "card_values": _card_values(rules),
                      "settlement": settlement_note(rules)},
            "dealer": self._dealer_json(),
            "seats": seats,
            "to_act": None if who is None else {"seat": who[0], "hand": who[1]},
            "awaiting": None if who is None else (PERSON if person_to_act else "bot"),
            "legal": legal if person_to_act else [],
            "bot_legal": [] if person_to_act else legal,
            "can_raise": bool(person_to_act and rules.bet_raising
                              and phase is Phase.PLAYER_TURNS),
            "insurance": self._insurance_offer() if person_to_act else None,
            "values": None if values is None else values.to_json(),
            "log": list(self.log),
            "shoe": {
                "infinite": shoe.decks is None,
                "decks": shoe.decks,
                "remaining": shoe.remaining,
                "total": shoe.total_cards,
                "discards": len(shoe.discards),
                # no cut card (penetration None): reshuffled before every round, said once
                "every_round": shoe.decks is not None and rules.penetration is None,
                "cut_card_out": shoe.needs_shuffle and rules.penetration is not None,
                "reshuffled": table.reshuffled,
                "shuffles": shoe.shuffles,
            },
            "house": _num(table.house),
            # betting, and no seat can bet: what the page says instead of "Deal"
            "cannot_deal": self._cannot_deal() if phase is Phase.BETTING else None,
        }

    def _cannot_deal(self) -> str | None:
        """Why no round can be dealt at this table (every seat out of chips), or None."""
        rules = self.rules
        if any((b := self.table.seats[i].bankroll) is None or b >= rules.min_bet
               for i in self.people):
            return None
        if any(self._bot_bet(i) for i in self.strategies):
            return None
        who = "Every player is" if len(self.people) > 1 else (
            "You are" if self.people else "Every seat is")
        return (f"{who} out of chips (under the table minimum of {rules.min_bet}): no round "
                f"can be dealt. Set up a new table to play on.")

    def _next_bet(self, i: int) -> int | None:
        """The bet to offer a person at seat ``i``: the last one, at most the bankroll;
        0 when the bankroll is under the table minimum (the seat cannot bet)."""
        last = self.last_bets.get(i)
        bankroll = self.table.seats[i].bankroll
        if last is None or bankroll is None:
            return last
        if bankroll < self.rules.min_bet:
            return 0
        return min(last, int(bankroll))

    def _insurance_offer(self) -> dict[str, Any] | None:
        """Before the peek, for the hand to act: what insurance costs (the engine's
        :func:`~blackjack_env.engine.play.insurance_stake`) and pays, or that it is even
        money (a blackjack: paid 1:1 at once); None where insurance is not offered."""
        table = self.table
        if table.phase is not Phase.INSURANCE or Action.INSURE not in table.legal_actions():
            return None
        hand = table.current_hand
        assert hand is not None
        if hand.is_blackjack:
            return {"even_money": True, "cost": None, "pays": _num(hand.bet)}
        cost = insurance_stake(hand.bet)
        return {"even_money": False, "cost": _num(cost), "pays": _num(cost * INSURANCE_PAYS)}

    def _dealer_json(self) -> dict[str, Any]:
        table = self.table
        dealer = table.dealer
        cards: list[dict[str, Any]] = []
        for i, card in enumerate(dealer.cards):
            if i == 1 and not table.hole_revealed:
                cards.append({"down": True})
            else:
                cards.append(_card(card))
        if not dealer.cards:
            total, soft = None, False
        elif table.hole_revealed or len(dealer.cards) == 1:
            total, soft = dealer.total, dealer.soft
        else:  # only the upcard is shown
            up = dealer.cards[0]
            total, soft = score(self.rules.value(up.rank), up.rank == 1)
        showing = None
        if dealer.cards and not table.hole_revealed:
            # the upcard alone (a hole card face down, or none yet under no-hole-card
            # rules): an ace is an ace, not "soft 11"
            up = dealer.cards[0]
            showing = "A" if up.rank == 1 else str(self.rules.value(up.rank))
        return {
            "cards": cards,
            "total": total,
            "soft": soft,
            "showing": showing,
            "blackjack": table.hole_revealed and dealer.is_blackjack,
            "bust": dealer.bust,
            "revealed": table.hole_revealed,
        }

    def _on_table(self, i: int) -> Any:
        """Chips of seat ``i`` staked and not yet settled (they left the bankroll)."""
        table = self.table
        seat = table.seats[i]
        if table.phase is Phase.BETTING:
            return seat.bet
        staked: Any = sum((h.bet for h in seat.hands if not h.settled), 0)
        if table.phase is Phase.INSURANCE:
            staked += seat.insurance
        return staked

    def _beaten_by(self) -> tuple[int, list[int]] | None:
        """Under highest-hand settlement, once the dealer has played: the table's highest
        live total and the seats (numbered from 1) holding it, for the page to say why a
        hand that beat the dealer lost (the outcome itself is the engine's)."""
        table = self.table
        if (not settles_by_highest_hand(self.rules) or table.phase is not Phase.SETTLED
                or not table.hole_revealed):
            return None
        live = [(21 if h.is_blackjack else h.total, i) for i, seat in enumerate(table.seats)
                for h in seat.hands if h.cards and not h.bust and not h.surrendered]
        if not live:
            return None
        top = max(total for total, _ in live)
        return top, sorted({i + 1 for total, i in live if total == top})

    def _why(self, hand: Any, outcome: Outcome, beaten: tuple[int, list[int]] | None
             ) -> str | None:
        """Why a hand lost under highest-hand settlement though it was not bust: the
        engine did not judge it against the dealer (:func:`~blackjack_env.engine.play.
        highest_hand_judged`), as another hand at the table was higher."""
        if beaten is None or outcome is not Outcome.LOSS or hand.bust or hand.surrendered:
            return None
        top, seats = beaten
        total = 21 if hand.is_blackjack else hand.total
        if highest_hand_judged(total, top, self.table.dealer.bust):
            return None
        where = ", ".join(map(str, seats))
        return (f"{top} at seat{'s' if len(seats) > 1 else ''} {where} is the highest hand "
                f"at the table: only it can win")

    def _seat_json(self, i: int, who: tuple[int, int] | None) -> dict[str, Any]:
        table = self.table
        seat = table.seats[i]
        results = {r.hand: r for r in seat.results}
        beaten = self._beaten_by()
        hands = []
        for h, hand in enumerate(seat.hands):
            result = results.get(h)
            shown = None if result is None else {"outcome": result.outcome.value,
                                                 "net": _num(result.net)}
            why = None if result is None else self._why(hand, result.outcome, beaten)
            if shown is not None and why is not None:  # (only where there is one)
                shown["why"] = why
            hands.append({
                "cards": [_card(c) for c in hand.cards],
                "total": hand.total,
                "soft": hand.soft,
                "blackjack": hand.is_blackjack,
                "bust": hand.bust,
                "bet": _num(hand.bet),
                "doubled": hand.doubled,
                "surrendered": hand.surrendered,
                "split": hand.from_split,
                "done": hand.done,
                "to_act": who == (i, h) and table.phase is Phase.PLAYER_TURNS,
                "result": shown,
            })
        insurance_back = None
        for event in table.events:
            if event.kind is EventKind.INSURANCE_SETTLED and event.seat == i:
                insurance_back = _num(event.amount)
        bankroll = seat.bankroll
        return {
            "index": i,
            "player": self.players[i],
            "person": i in self.people,
            "bankroll": _num(bankroll),
            "bet": seat.bet,
            "next_bet": self._next_bet(i),
            "broke": bankroll is not None and bankroll < self.rules.min_bet,
            "insurance": _num(seat.insurance),
            "insurance_returned": insurance_back,
            "net": _num(seat.net) if seat.results else None,
            "hands": hands,
            "to_act": who is not None and who[0] == i,
            "session": {
                "realised": _num(None if bankroll is None else
                                 bankroll + self._on_table(i) - self.start_bankroll),
                "given_up": round(float(self.given_up[i]), 6),
                "decisions": self.decisions[i],
                "valued": self.valued[i],
            },
        }

