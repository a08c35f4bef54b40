"""Sit at a blackjack table in the terminal; the other seats are played by agents.

Usage::

    python scripts/play.py                                   # vegas-strip, you alone
    python scripts/play.py --seats 3 --seat 1 --others basic,counter --hint
    python scripts/play.py --others runs/q/model.npz         # a trained agent beside you

Each round: type a bet, then answer each decision with a letter or a word
(``h``/``hit``, ``s``/``stand``, ``d``/``double``, ``p``/``split``,
``r``/``surrender``; before the dealer peeks: ``i``/``insure``, ``n``/``no``);
``q`` leaves the table. The table is drawn after every action and each hand's
outcome is explained. Bad input re-prompts; end of input (Ctrl-D) or Ctrl-C
leaves cleanly, showing your bankroll.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from blackjack_env.agents.cli import add_settings_arguments
from blackjack_env.engine import Action, EventKind, Outcome, Phase, Table, preset

__all__ = ["Session", "Settings", "main"]


@dataclass
class Settings:
    rules: str = "vegas-strip"
    """preset name of the table rules (see blackjack_env.list_presets())"""
    seats: int = 1
    """seats at the table (1..7)"""
    seat: int = 0
    """your seat index (0 = first to act)"""
    others: str = "basic"
    """comma-separated players of the other seats, in seat order: a strategy name (basic, dealer,
    never-bust, random, stand), 'counter', or a saved agent's path; the last one repeats"""
    bankroll: int = 100
    """chips every seat starts with"""
    rounds: int = 0
    """stop after this many rounds (0: until you leave or run out of chips)"""
    hint: bool = False
    """show basic strategy's advice at each of your decisions"""
    cards: str = ""
    """cards dealt first, in deal order (e.g. 'AS KH 9D 7C'), to set up a round"""
    seed: int = 0
    """seed of the table's shuffles"""


class LeaveTable(Exception):
    """The player left (q, end of input or Ctrl-C)."""


# words and letters a player may type, per action
_WORDS: dict[str, Action] = {
    "s": Action.STAND, "stand": Action.STAND, "stay": Action.STAND, "stick": Action.STAND,
    "h": Action.HIT, "hit": Action.HIT,
    "d": Action.DOUBLE, "double": Action.DOUBLE,
    "p": Action.SPLIT, "split": Action.SPLIT,
    "r": Action.SURRENDER, "surrender": Action.SURRENDER,
    "i": Action.INSURE, "insure": Action.INSURE, "insurance": Action.INSURE,
    "y": Action.INSURE, "yes": Action.INSURE, "even": Action.INSURE,
    "n": Action.DECLINE, "no": Action.DECLINE, "decline": Action.DECLINE,
}
_KEY: dict[Action, str] = {
    Action.STAND: "[s]tand", Action.HIT: "[h]it", Action.DOUBLE: "[d]ouble",
    Action.SPLIT: "s[p]lit", Action.SURRENDER: "su[r]render",
    Action.INSURE: "[i]nsure", Action.DECLINE: "[n]o insurance",
}
_QUIT = {"q", "quit", "exit", "leave"}


def _chips(value: Any) -> str:
    if isinstance(value, Fraction):
        return f"{float(value):g}"
    return str(value)


def _signed(value: Any) -> str:
    """``+5``, ``-2.5``, ``0``."""
    text = _chips(value)
    return f"+{text}" if value > 0 else ("±0" if value == 0 else text)


def _hand_text(hand: Any) -> str:
    cards = " ".join(card.pretty for card in hand.cards)
    if hand.bust:
        total = f"{hand.total} BUST"
    elif hand.is_blackjack:
        total = "BLACKJACK"
    else:
        total = f"{'soft ' if hand.soft else ''}{hand.total}"
    return f"{cards} = {total}"


class Session:
    """One player's session; ``read(prompt) -> str`` and ``write(text)`` are the terminal."""

    def __init__(self, settings: Settings, read: Callable[[str], str] = input,
                 write: Callable[[str], None] = print) -> None:
        from blackjack_env.agents.seats import CountingSeat, seat_strategy

        self.settings = settings
        self.read_line = read
        # piped input is not shown by the terminal: echo it so a transcript reads well
        self.echo = read is input and not sys.stdin.isatty()
        self.write = write
        rules = preset(settings.rules)
        if rules.seats != settings.seats:
            if settings.seats > rules.max_seats:
                raise ValueError(
                    f"--seats {settings.seats}: the {settings.rules} rules seat at most "
                    f"{rules.max_seats} players"
                )
            rules = rules.replace(seats=settings.seats)
        if not 0 <= settings.seat < rules.seats:
            raise ValueError(f"--seat {settings.seat} must be 0..{rules.seats - 1}")
        if settings.bankroll < rules.min_bet:
            raise ValueError(
                f"--bankroll {settings.bankroll} is below the minimum bet {rules.min_bet}"
            )
        self.rules = rules
        self.table = Table(rules, seed=settings.seed, bankroll=settings.bankroll)
        if settings.cards:
            self.table.shoe.stack(settings.cards)
        specs = [s.strip() for s in settings.others.split(",") if s.strip()] or ["basic"]
        self.players: dict[int, Any] = {}
        self.names: dict[int, str] = {}
        k = 0
        for i in range(rules.seats):
            if i == settings.seat:
                self.names[i] = "YOU"
                continue
            spec = specs[min(k, len(specs) - 1)]
            k += 1
            self.players[i] = seat_strategy(spec, rules, seed=settings.seed + i)
            self.names[i] = spec if len(spec) <= 14 else "…" + spec[-13:]
        self._counting = {i: p for i, p in self.players.items() if isinstance(p, CountingSeat)}
        self.hinter = None
        if settings.hint:
            try:
                from blackjack_env.agents.fixed import basic_strategy

                self.hinter = basic_strategy(rules)
            except ValueError as err:
                self.write(f"(no hints: {err})")
        self.last_bet = rules.min_bet

    # ------------------------------------------------------------- terminal
    def read(self, prompt: str) -> str:
        try:
            text = self.read_line(prompt)
        except (EOFError, KeyboardInterrupt) as err:
            self.write("")
            raise LeaveTable("end of input" if isinstance(err, EOFError) else "Ctrl-C") from None
        if self.echo:
            self.write(text)
        text = text.strip().lower()
        if text in _QUIT:
            raise LeaveTable("you left")
        return text

    @property
    def me(self):
        return self.table.seats[self.settings.seat]

    def draw(self) -> str:
        """The table as text: dealer, then every seat with bankroll, bet and hands."""
        t = self.table
        lines = [f"─── round {t.round} " + "─" * 40]
        dealer = t.dealer
        if not dealer.cards:
            lines.append("Dealer: (no cards)")
        elif t.hole_revealed or (len(dealer.cards) == 1 and t.phase is Phase.SETTLED):
            lines.append(f"Dealer: {_hand_text(dealer)}")
        elif len(dealer.cards) >= 2:
            up = dealer.cards[0].pretty
            lines.append(f"Dealer: {up} [hidden]   (upcard {up})")
        else:
            lines.append(f"Dealer: {dealer.cards[0].pretty}   (upcard)")
        who = t.to_act
        for seat in t.seats:
            name = self.names[seat.index]
            head = f"Seat {seat.index} {name:<14} bankroll {_chips(seat.bankroll):>6}"
            if not seat.hands:
                lines.append(head + ("  bet " + str(seat.bet) if seat.bet else "  (sitting out)"))
                continue
            for h, hand in enumerate(seat.hands):
                label = f"hand {h + 1}: " if len(seat.hands) > 1 else ""
                extra = []
                if hand.doubled:
                    extra.append("doubled")
                if hand.surrendered:
                    extra.append("surrendered")
                result = next((r for r in seat.results if r.hand == h), None)
                if result is not None:
                    extra.append(f"{result.outcome.value} {_signed(result.net)}")
                acting = who == (seat.index, h) and t.phase is Phase.PLAYER_TURNS
                marker = "  <- to act" if acting else ""
                prefix = head if h == 0 else " " * len(head)
                lines.append(f"{prefix}  bet {_chips(hand.bet):>4}  {label}{_hand_text(hand)}"
                             + (f"  ({', '.join(extra)})" if extra else "") + marker)
            if seat.insurance:
                lines.append(" " * len(head) + f"  insurance {_chips(seat.insurance)}")
        return "\n".join(lines)

    # ---------------------------------------------------------------- round
    def ask_bet(self) -> int:
        rules = self.rules
        bankroll = self.me.bankroll
        top = min(rules.max_bet, int(bankroll))
        while True:
            text = self.read(
                f"Your bet ({rules.min_bet}-{top}, bankroll {_chips(bankroll)}; q leaves) > "
            )
            if not text:
                self.write(f"Please type a bet: a whole number from {rules.min_bet} to {top}.")
                continue
            try:
                amount = int(text)
            except ValueError:
                self.write(f"'{text}' is not a number; type a bet from {rules.min_bet} to {top}.")
                continue
            if amount > bankroll:
                self.write(f"You cannot bet {amount}: your bankroll is {_chips(bankroll)}.")
                continue
            if not rules.min_bet <= amount <= rules.max_bet:
                self.write(f"The table takes bets from {rules.min_bet} to {rules.max_bet}.")
                continue
            return amount

    def ask_action(self) -> Action:
        t = self.table
        legal = t.legal_actions()
        hand = t.current_hand
        up = t.upcard.pretty if t.upcard is not None else "?"
        if t.phase is Phase.INSURANCE:
            what = "even money" if hand.is_blackjack else "insurance (half your bet, pays 2:1)"
            offers = []
            if Action.INSURE in legal:
                offers.append(f"take {what}")
            if Action.SURRENDER in legal:
                offers.append("surrender early (half your bet back)")
            question = (f"The dealer shows {up} and will check for blackjack. You hold "
                        f"{_hand_text(hand)}. Do you {' or '.join(offers)}?")
        else:
            n = len(self.me.hands)
            which = f" hand {t.to_act[1] + 1}" if n > 1 else ""
            question = f"Your{which} {_hand_text(hand)} against the dealer's {up}."
        options = ", ".join(_KEY[a] for a in legal)
        if self.hinter is not None:
            try:
                advice = self.hinter(t)
                question += f"  Basic strategy: {advice.name}."
            except Exception as err:  # the hint must never end the game
                question += f"  (no hint: {err})"
        self.write(question)
        while True:
            text = self.read(f"Legal: {options} > ")
            if not text:
                self.write(f"Please choose one of: {options}.")
                continue
            action = _WORDS.get(text)
            if action is None:
                self.write(f"'{text}' is not an action. Choose one of: {options} (q leaves).")
                continue
            if action not in legal:
                self.write(f"{action.name} is not allowed now. Choose one of: {options}.")
                continue
            return action

    def explain(self) -> None:
        """Say how each of the player's hands ended, and the round's net."""
        t = self.table
        dealer = t.dealer
        d_text = "blackjack" if dealer.is_blackjack else (
            "busted" if dealer.bust else f"{dealer.total}")
        me = self.me
        for res in sorted(me.results, key=lambda r: r.hand):
            hand = me.hands[res.hand]
            label = f"Hand {res.hand + 1}" if len(me.hands) > 1 else "Your hand"
            o = res.outcome
            if o is Outcome.BUST:
                why = f"busted with {hand.total}"
            elif o is Outcome.BLACKJACK:
                why = f"blackjack pays {t.rules.blackjack_payout.numerator}:" \
                      f"{t.rules.blackjack_payout.denominator}"
            elif o is Outcome.EVEN_MONEY:
                why = "even money taken on your blackjack"
            elif o is Outcome.SURRENDER:
                why = "surrendered: half the bet comes back"
            elif o is Outcome.WIN:
                why = ("the dealer busted" if dealer.bust
                       else f"{hand.total} beats the dealer's {d_text}")
            elif o is Outcome.PUSH:
                why = f"{hand.total} ties the dealer's {d_text}: bet returned"
            else:
                if dealer.is_blackjack and not hand.is_blackjack:
                    why = "the dealer has blackjack"
                elif hand.surrendered:
                    why = "surrendered, but the dealer had blackjack"
                else:
                    why = f"{hand.total} loses to the dealer's {d_text}"
            self.write(f"{label}: {o.value.upper()} ({why}), {_signed(res.net)}")
        for event in t.events:
            if event.kind is EventKind.INSURANCE_SETTLED and event.seat == me.index:
                won = event.amount and event.amount > 0
                self.write(f"Insurance: {'won' if won else 'lost'} "
                           f"({'the dealer had' if won else 'no dealer'} blackjack)")
        self.write(f"Round result {_signed(me.net)}; "
                   f"bankroll {_chips(me.bankroll)}")

    def play_round(self) -> None:
        t = self.table
        rules = self.rules
        amount = self.ask_bet()
        t.bet(self.settings.seat, amount)
        for i, player in self.players.items():
            seat = t.seats[i]
            want = player.bet(t, i) if i in self._counting else rules.min_bet
            if seat.bankroll is None or seat.bankroll >= max(want, rules.min_bet):
                t.bet(i, max(want, rules.min_bet))
        t.deal()
        self.write(self.draw())
        while t.to_act is not None:
            seat_i = t.to_act[0]
            if seat_i == self.settings.seat:
                action = self.ask_action()
                t.act(action)
            else:
                action = self.players[seat_i](t)
                t.act(action)
                self.write(f"Seat {seat_i} ({self.names[seat_i]}): {action.name}")
            self.write(self.draw())
        for player in self._counting.values():
            player.observe(t)
        self.explain()

    def run(self) -> int:
        """Play until the player leaves, runs out of chips, or the round limit; return 0."""
        s = self.settings
        self.write(f"{s.rules}: {self.rules.summary()}")
        self.write(f"You sit at seat {s.seat} with {s.bankroll} chips. Type q to leave.")
        played = 0
        try:
            while True:
                if self.me.bankroll < self.rules.min_bet:
                    self.write("You are out of chips.")
                    break
                if s.rounds and played >= s.rounds:
                    break
                self.play_round()
                played += 1
                self.table.new_round()
        except LeaveTable as why:
            self.write(f"Leaving the table ({why}).")
        self.write(f"Final bankroll: {_chips(self.me.bankroll)} "
                   f"({_signed(self.me.bankroll - s.bankroll)}) after {played} round(s).")
        return 0


def parse_args(argv: list[str] | None = None) -> Settings:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_settings_arguments(parser, Settings, _HELP)
    return Settings(**vars(parser.parse_args(argv)))


_HELP = {
    "rules": "preset name of the table rules (see blackjack_env.list_presets())",
    "seats": "seats at the table (1..7)",
    "seat": "your seat index (0 acts first)",
    "others": "players of the other seats, comma-separated in seat order: basic, dealer, "
              "never-bust, random, stand, counter, or a saved agent's path (the last repeats)",
    "bankroll": "chips every seat starts with",
    "rounds": "stop after this many rounds (0: until you leave or run out of chips)",
    "hint": "show basic strategy's advice at each of your decisions",
    "cards": "cards dealt first, in deal order (e.g. 'AS KH 9D 7C')",
    "seed": "seed of the table's shuffles",
}


def main(argv: list[str] | None = None) -> int:
    settings = parse_args(argv)
    try:
        session = Session(settings)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        return session.run()
    except KeyboardInterrupt:  # Ctrl-C outside a prompt (e.g. while agents play)
        print(f"\nLeaving the table (Ctrl-C). Final bankroll: {_chips(session.me.bankroll)}")
        return 0


if __name__ == "__main__":
    sys.exit(main())
