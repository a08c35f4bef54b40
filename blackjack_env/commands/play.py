"""``blackjack-play``: sit at a blackjack table in the terminal, alone or with friends.

One person, or several taking turns at one keyboard (hot seat: ``--people`` or
``--names``), sit at consecutive seats from ``--seat``; the other seats are played
by fixed strategies or saved agents (``--others``). Each round every person types a
bet, asked by name, then the cards are dealt and each person is asked, by name and
in seat order, for each decision of each of their hands. The table is drawn after
every action (:func:`blackjack_env.render.render_ansi`) and each person's hands are
explained when the round is settled.

``--hint`` shows, at each decision, the expected value of every legal action and the
best one, and says which analysis gave them: on a finite shoe the values *given the
cards not yet seen* (the shoe's undealt cards and the dealer's hole card), with
composition-dependent play afterwards (:mod:`blackjack_env.analysis.composition`); on
an infinite deck the exact infinite-deck values (:func:`blackjack_env.analysis.solve`).
The choice is :func:`blackjack_env.web.values.action_values`' (the same values the web
table shows). Rules the analysis cannot serve (highest-hand settlement, bet raising)
say why once, and play goes on without hints.

``--others`` takes a strategy name per seat, or ``counter`` (a Hi-Lo bettor), or the
PATH of a saved agent (``model.npz`` / ``model.zip`` of a training run).

Answers: ``h``/``hit``, ``s``/``stand``, ``d``/``double``, ``p``/``split``,
``r``/``surrender``; before the dealer peeks: ``i``/``insure`` (insurance, or even
money on a natural), ``n``/``no``, and ``r`` for early surrender where the rules
offer it; under rules with bet raising (``terminal-21``): ``+5`` or ``raise 5`` adds
5 chips to the hand's bet. ``q`` at a bet leaves the table; ``q`` at a decision
stands that person's hands and leaves after the round. End of input (Ctrl-D) or
Ctrl-C at a prompt closes the table cleanly: bets not yet dealt are returned, hands
in play stand (the table finishes the round as for a player who leaves, and says so),
and everyone's final bankroll is shown; after Ctrl-C the command then exits with
status 130 (``error: interrupted``), as every command does.

The first lines say who sits where, the computer's seats included (under
highest-hand settlement their hands compete for the table's highest hand), and the
option that seats only the people (``--seats N`` for N people from seat 0).

Every rule (legal actions, limits, payouts) is the engine's; this module only asks
and draws.

Usage::

    blackjack-play                                        # vegas-strip, you alone
    blackjack-play --seats 3 --seat 1 --others basic,counter --hint
    blackjack-play --rules how-to-play --names Ann,Bob,Cy  # three people, hot seat
    blackjack-play --rules terminal-21 --people 2          # raise bets, split once
    blackjack-play --others runs/q/model.npz              # a trained agent beside you
    blackjack-play --names Ann,Bob --set surrender=early  # any rule changed with --set
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any

import tyro

from blackjack_env.agents.seats import CountingSeat, seat_strategy
from blackjack_env.analysis.model import check_supported
from blackjack_env.cli import apply_rule_changes, option, preset_option, set_options
from blackjack_env.commands import UsageError, run_command
from blackjack_env.engine import Action, EventKind, Outcome, Phase, Table
from blackjack_env.engine.rules import Settlement, TieRule
from blackjack_env.engine.table import TableError
from blackjack_env.render import hand_text, render_ansi
from blackjack_env.strategies import make_strategy, strategy_names
from blackjack_env.web.values import action_values

__all__ = ["Person", "Session", "Settings", "main", "run"]


@dataclass
class Settings:
    """Sit at a blackjack table in the terminal; several people may take turns (hot seat)."""

    rules: Annotated[str, option("PRESET")] = "vegas-strip"
    """preset name of the table rules (see blackjack_env.list_presets())"""
    seats: Annotated[int, option("N", "the preset's, or as many as the people need")] = 0
    """seats at the table, 1..7 (as many as the people: only people sit)"""
    seat: Annotated[int, option("INDEX")] = 0
    """seat of the first person (0 acts first); several people sit at consecutive seats"""
    people: Annotated[int, option("N", "one per name in --names, or 1")] = 0
    """people taking turns at this keyboard (hot seat), 1..7"""
    names: Annotated[str, option("NAMES", "You, or Player 1, Player 2, ...")] = ""
    """the people's names, comma-separated in seat order, e.g. Ann,Bob"""
    others: Annotated[str, option("NAMES")] = "basic"
    """the other seats' players, comma-separated, the last repeats: basic, composition, dealer, never-bust, random, stand, counter, or the PATH of a saved agent"""  # noqa: E501
    bankroll: int = 100
    """chips every seat starts with"""
    rounds: Annotated[int, option("N", "until everyone leaves or runs out of chips")] = 0
    """stop after this many rounds"""
    set: Annotated[list[str], tyro.conf.UseAppendAction, option("FIELD=VALUE", "")] = field(
        default_factory=list)
    """change a rule of the preset, repeatable, e.g. surrender=early or decks=inf"""
    hint: bool = False
    """show every legal action's expected value and the best (finite shoe: given the cards left)"""
    cards: Annotated[str, option("CARDS", "a shuffled shoe")] = ""
    """cards dealt first, in deal order (e.g. 'AS KH 9D 7C'), to set up a round"""
    seed: int = 0
    """seed of the table's shuffles"""


#: why the table closed when Ctrl-C was pressed at a prompt
CTRL_C = "Ctrl-C"


class EndOfInput(Exception):
    """No more input (end of file or Ctrl-C at a prompt)."""


class Leave(Exception):
    """A person typed q."""


@dataclass
class Person:
    """One person at the table: a seat and a name."""

    seat: int
    name: str
    left: bool = False
    rounds: int = 0


# words and letters a person may type, per action
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
    Action.INSURE: "[i]nsure", Action.DECLINE: "[n]o",
}
_QUIT = {"q", "quit", "exit", "leave"}


def _chips(value: Any) -> str:
    if isinstance(value, Fraction):
        return f"{float(value):g}"
    return str(value)


def _signed(value: Any) -> str:
    """``+5``, ``-2.5``, ``±0``."""
    text = _chips(value)
    return f"+{text}" if value > 0 else ("±0" if value == 0 else text)


def _raise_amount(text: str) -> int | None:
    """The chips of a raise typed as ``+5`` or ``raise 5`` (None: not a raise)."""
    for prefix in ("+", "raise "):
        if text.startswith(prefix):
            rest = text[len(prefix):].strip()
            return int(rest) if rest.isdigit() else -1
    return None


def _people_names(settings: Settings) -> list[str]:
    names = [n.strip() for n in settings.names.split(",")] if settings.names.strip() else []
    if any(not n for n in names):
        raise UsageError(f"--names {settings.names!r}: a name is empty; use e.g. Ann,Bob,Cy")
    if len(set(names)) != len(names):
        raise UsageError(f"--names {settings.names!r}: every person needs a different name")
    people = settings.people
    if people < 0 or people > 7:
        raise UsageError(f"--people {people}: must be 1..7 (0: one per name in --names, or 1)")
    if people == 0:
        people = len(names) or 1
    if names and len(names) != people:
        raise UsageError(
            f"--people {people} but --names gives {len(names)} name(s): give one name per person"
        )
    if names:
        return names
    return ["You"] if people == 1 else [f"Player {k + 1}" for k in range(people)]


def _check_specs(specs: list[str]) -> None:
    """Every ``--others`` entry names a strategy, ``counter`` or a model file (checked even
    for seats that no one will take, so a typo never passes unseen)."""
    known = [*strategy_names(), "counter"]
    for spec in specs:
        if spec in known or Path(spec).suffix in (".npz", ".zip") or Path(spec).exists():
            continue
        raise UsageError(
            f"--others {spec!r}: unknown seat player; use {', '.join(known)}, or the path of "
            f"a saved agent (.npz / .zip)"
        )


class Session:
    """A table in the terminal: ``read(prompt) -> str`` and ``write(text)`` are the terminal.

    Every option is checked here, before the first line is written: a bad one raises
    :class:`~blackjack_env.commands.UsageError` (or the library's ``ValueError``).
    """

    def __init__(self, settings: Settings, read: Callable[[str], str] = input,
                 write: Callable[[str], None] = print) -> None:
        self.settings = settings
        self.read_line = read
        # piped input is not shown by the terminal: echo it so a transcript reads well
        self.echo = read is input and not sys.stdin.isatty()
        self.write = write
        self.notes: list[str] = []  # said once, before the first round
        if settings.rounds < 0:
            raise UsageError(
                f"--rounds {settings.rounds}: must be >= 1, or 0 to play until everyone leaves"
            )
        names = _people_names(settings)
        rules = apply_rule_changes(preset_option(settings.rules), *set_options(settings.set))
        if settings.seat < 0:
            raise UsageError(f"--seat {settings.seat}: must be 0 or more (0 acts first)")
        need = settings.seat + len(names)
        who = f"--seat {settings.seat}"
        if len(names) > 1:
            who = f"{len(names)} people from --seat {settings.seat}"
        if settings.seats and not 1 <= settings.seats <= rules.max_seats:
            raise UsageError(
                f"--seats {settings.seats}: the {settings.rules} rules seat 1 to "
                f"{rules.max_seats} players (0: as many as the people need)"
            )
        if need > rules.max_seats:
            raise UsageError(
                f"{who}: needs seats {settings.seat}..{need - 1}, but the {settings.rules} "
                f"rules seat at most {rules.max_seats} players (seats 0..{rules.max_seats - 1})"
            )
        seats = settings.seats or max(rules.seats, need)
        if need > seats:
            raise UsageError(
                f"{who}: needs seats {settings.seat}..{need - 1}, but --seats {seats} gives "
                f"seats 0..{seats - 1}; raise --seats or lower --seat"
            )
        if rules.seats != seats:
            rules = rules.replace(seats=seats)
        if settings.bankroll < rules.min_bet:
            raise UsageError(
                f"--bankroll {settings.bankroll}: must be at least the table's minimum bet "
                f"{rules.min_bet}"
            )
        self.rules = rules
        self.people = {settings.seat + k: Person(settings.seat + k, n) for k, n in enumerate(names)}
        self.players, self.names = self._seat_others(settings, rules)
        for person in self.people.values():
            self.names[person.seat] = person.name
        self.table = Table(rules, seed=settings.seed, bankroll=settings.bankroll)
        if settings.cards:
            self.table.shoe.stack(settings.cards)
        self._hint_notes: set[str] = set()
        self.hinter = self._hinter() if settings.hint else None
        self.start = {i: seat.bankroll for i, seat in enumerate(self.table.seats)}
        self.played = 0
        self.ended: str | None = None

    # --------------------------------------------------------------- set-up
    def _seat_others(self, settings: Settings, rules: Any) -> tuple[dict[int, Any], dict[int, str]]:
        specs = [s.strip() for s in settings.others.split(",") if s.strip()] or ["basic"]
        free = rules.seats - len(self.people)
        if len(specs) > max(free, 1):
            raise UsageError(
                f"--others {settings.others!r}: {len(specs)} players for {free} other seat(s); "
                f"give at most {max(free, 1)} (the last one repeats)"
            )
        _check_specs(specs)
        players: dict[int, Any] = {}
        names: dict[int, str] = {}
        built: dict[str, Any] = {}
        k = 0
        for i in range(rules.seats):
            if i in self.people:
                continue
            spec = specs[min(k, len(specs) - 1)]
            k += 1
            players[i] = self._strategy(spec, rules, settings.seed + i, built)
            names[i] = spec if len(spec) <= 14 else "…" + spec[-13:]
        self.counting = {i: p for i, p in players.items() if isinstance(p, CountingSeat)}
        return players, names

    def _strategy(self, spec: str, rules: Any, seed: int, built: dict[str, Any]) -> Any:
        """A seat strategy; notes the library gives while building it are kept (once)."""
        if spec == "basic" and "basic" in built:
            return built["basic"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                player = seat_strategy(spec, rules, seed=seed)
            except ValueError as err:
                if spec != "basic":
                    raise UsageError(f"--others {spec!r}: {err}") from None
                # the analysis cannot serve these rules: play like the dealer, and say so
                self._note(
                    f"basic strategy is not available for the {self.settings.rules} rules "
                    f"({err}); the seats set to 'basic' hit below 17 and stand otherwise"
                )
                player = make_strategy("dealer", rules)
        for w in caught:
            self._note(str(w.message))
        if spec == "basic":
            built["basic"] = player
        return player

    def _hinter(self) -> Callable[[Table], str] | None:
        """The hint of a decision (see the module docstring), or None (said in a note)
        when the analysis cannot serve these rules."""
        try:
            check_supported(self.rules)
        except ValueError as err:
            self._note(f"no hints: {err}")
            return None
        return self._hint

    def _hint(self, table: Table) -> str:
        """``Values (source): stand -0.1575, hit -0.4255; best STAND.``, or why there are
        none; the analysis' caveat (``note``) is said the first time it applies."""
        values = action_values(table)
        if values is None:
            return ""
        if not values.available:
            return f"No values: {values.reason}."
        evs = ", ".join(f"{a.name.lower()} {v:+.4f}" for a, v in values.evs.items())
        best = values.best.name  # type: ignore[union-attr]
        text = f"Values per unit bet ({values.source}): {evs}; best {best}."
        if values.note and values.note not in self._hint_notes:
            self._hint_notes.add(values.note)
            text += f" (Note: {values.note}.)"
        return text

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    # ------------------------------------------------------------- terminal
    def read(self, prompt: str) -> str:
        """One answer, lower case; ``q`` raises :class:`Leave`, no input :class:`EndOfInput`."""
        try:
            text = self.read_line(prompt)
        except (EOFError, KeyboardInterrupt) as err:
            self.write("")
            raise EndOfInput("end of input" if isinstance(err, EOFError) else CTRL_C) from None
        if self.echo:
            self.write(text)
        text = text.strip().lower()
        if text in _QUIT:
            raise Leave
        return text

    def draw(self) -> str:
        """The table as text (the project's one text renderer)."""
        return render_ansi(self.table, names=self.names).rstrip("\n")

    @property
    def seated(self) -> list[Person]:
        """People still at the table, in seat order."""
        return [p for p in self.people.values() if not p.left]

    # ---------------------------------------------------------------- bets
    def ask_bet(self, person: Person) -> int:
        rules = self.rules
        bankroll = self.table.seats[person.seat].bankroll
        assert bankroll is not None  # (the terminal game seats every player with chips)
        top = min(rules.max_bet, int(bankroll))
        while True:
            text = self.read(
                f"{person.name}, your bet ({rules.min_bet}-{top}, bankroll {_chips(bankroll)}; "
                f"q leaves) > "
            )
            if not text:
                self.write(f"Please type a bet: a whole number from {rules.min_bet} to {top}.")
                continue
            span = f"type a bet from {rules.min_bet} to {top}"  # the range the prompt shows
            try:
                amount = int(text)
            except ValueError:
                self.write(f"'{text}' is not a whole number; {span}.")
                continue
            if amount > bankroll:
                self.write(f"You cannot bet {amount}: your bankroll is {_chips(bankroll)}; "
                           f"{span}.")
                continue
            if amount > rules.max_bet:
                self.write(f"You cannot bet {amount}: the table's maximum bet is "
                           f"{rules.max_bet}; {span}.")
                continue
            if amount < rules.min_bet:
                self.write(f"You cannot bet {amount}: the table's minimum bet is "
                           f"{rules.min_bet}; {span}.")
                continue
            return amount

    def take_bets(self) -> bool:
        """Every seated person bets, then the other seats. False: nobody bet, or the input
        ended (every bet of the round is then taken back)."""
        t = self.table
        rules = self.rules
        betting = False
        for person in self.seated:
            if t.seats[person.seat].bankroll < rules.min_bet:
                self.write(f"{person.name}: out of chips, leaving the table.")
                person.left = True
                continue
            try:
                amount = self.ask_bet(person)
            except Leave:
                self.write(f"{person.name}: leaving the table.")
                person.left = True
                continue
            except EndOfInput as why:
                for seat in t.seats:  # bets not dealt go back to the bankrolls
                    t.bet(seat.index, 0)
                self.ended = str(why)
                return False
            t.bet(person.seat, amount)
            betting = True
        if not betting:
            return False
        for i, player in self.players.items():
            seat = t.seats[i]
            want = player.bet(t, i) if i in self.counting else rules.min_bet
            want = max(want, rules.min_bet)
            if seat.bankroll is None or seat.bankroll >= want:
                t.bet(i, want)
        return True

    # ------------------------------------------------------------- decisions
    def ask_action(self, person: Person) -> Action:
        """The person's decision for the hand to act (asked by name, legal answers only)."""
        t = self.table
        legal = t.legal_actions()
        if person.left or self.ended:  # leaving: hands stand, insurance declined
            return Action.DECLINE if t.phase is Phase.INSURANCE else Action.STAND
        hand = t.current_hand
        who = t.to_act
        assert hand is not None and who is not None  # (the table waits on this hand)
        up = t.upcard.pretty if t.upcard is not None else "?"
        raising = self.rules.bet_raising and t.phase is Phase.PLAYER_TURNS
        if t.phase is Phase.INSURANCE:
            what = "even money" if hand.is_blackjack else "insurance (half your bet, pays 2:1)"
            offers = []
            if Action.INSURE in legal:
                offers.append(f"take {what}")
            if Action.SURRENDER in legal:
                offers.append("surrender early (half your bet back)")
            question = (f"{person.name}: the dealer shows {up} and will check for blackjack. "
                        f"You hold {hand_text(hand)}. Do you {' or '.join(offers)}?")
        else:
            n = len(t.seats[person.seat].hands)
            which = f" hand {who[1] + 1}" if n > 1 else ""
            question = (f"{person.name}, your{which} {hand_text(hand)} (bet {_chips(hand.bet)}) "
                        f"against the dealer's {up}.")
        options = ", ".join(_KEY[a] for a in legal) + (", +N raises the bet" if raising else "")
        if self.hinter is not None:
            try:
                hint = self.hinter(t)
                if hint:
                    question += f"\n  {hint}"
            except Exception as err:  # a hint must never end the game
                question += f"  (no hint: {err})"
        self.write(question)
        while True:
            try:
                text = self.read(f"{person.name}: {options} > ")
            except Leave:
                self.write(f"{person.name}: leaving after this round; the hands stand.")
                person.left = True
                return Action.DECLINE if t.phase is Phase.INSURANCE else Action.STAND
            except EndOfInput as why:
                self.ended = str(why)
                if self.ended == CTRL_C:
                    self.write("Ctrl-C: the round is finished as the table finishes it for a "
                               "player who leaves: every hand still in play stands, the dealer "
                               "plays, and the bets are settled.")
                else:
                    self.write("No more input: every hand still in play stands.")
                return Action.DECLINE if t.phase is Phase.INSURANCE else Action.STAND
            if not text:
                self.write(f"Please choose one of: {options}.")
                continue
            amount = _raise_amount(text) if raising else None
            if amount is not None:
                if amount < 1:
                    self.write(f"'{text}': type + and a whole number of chips, e.g. +5.")
                    continue
                try:
                    t.raise_bet(amount)
                except TableError as err:
                    self.write(f"Cannot raise: {err}.")
                    continue
                self.write(f"{person.name}: raised by {amount}, the bet is now "
                           f"{_chips(hand.bet)}.")
                continue
            action = _WORDS.get(text)
            if action is None:
                self.write(f"'{text}' is not an action. Choose one of: {options} (q leaves).")
                continue
            if action not in legal:
                self.write(f"{action.name} is not allowed now. Choose one of: {options}.")
                continue
            return action

    def explain(self, person: Person) -> None:
        """Say how each of the person's hands ended, and the round's net."""
        t = self.table
        dealer = t.dealer
        d_text = "blackjack" if dealer.is_blackjack else (
            "busted" if dealer.bust else f"{dealer.total}")
        seat = t.seats[person.seat]
        several = len(seat.hands) > 1
        for res in sorted(seat.results, key=lambda r: r.hand):
            hand = seat.hands[res.hand]
            label = f"{person.name}, hand {res.hand + 1}" if several else person.name
            o = res.outcome
            if o is Outcome.BUST:
                why = f"busted with {hand.total}"
            elif o is Outcome.BLACKJACK:
                payout = t.rules.blackjack_payout
                why = f"blackjack pays {payout.numerator}:{payout.denominator}"
            elif o is Outcome.EVEN_MONEY:
                why = "even money taken on a blackjack"
            elif o is Outcome.SURRENDER:
                why = "surrendered: half the bet comes back"
            elif o is Outcome.WIN:
                why = ("the dealer busted" if dealer.bust
                       else f"{hand.total} beats the dealer's {d_text}")
                if not dealer.bust and self._highest() is not None:
                    why += ", and it is the table's highest hand"
            elif o is Outcome.PUSH:
                why = f"{hand.total} ties the dealer's {d_text}: bet returned"
            else:
                why = self._loss_reason(hand, d_text)
            self.write(f"{label}: {o.value.replace('_', ' ').upper()} ({why}), {_signed(res.net)}")
        for event in t.events:
            if event.kind is EventKind.INSURANCE_SETTLED and event.seat == person.seat:
                won = bool(event.amount and event.amount > 0)
                self.write(f"{person.name}: insurance {'won' if won else 'lost'} "
                           f"({'the dealer had' if won else 'no dealer'} blackjack)")
        self.write(f"{person.name}: round {_signed(seat.net)}, bankroll {_chips(seat.bankroll)}")

    def _highest(self) -> tuple[int, list[str]] | None:
        """Under highest-hand settlement, the table's highest standing total and who holds
        it (the hands the table compares: not busted, not surrendered); None otherwise."""
        t = self.table
        if t.rules.settlement is not Settlement.HIGHEST_HAND:
            return None
        live = [(seat.index, j, hand) for seat in t.seats for j, hand in enumerate(seat.hands)
                if not hand.bust and not hand.surrendered]
        if not live:
            return None
        top = max(hand.total for _, _, hand in live)
        holders = []
        for i, j, hand in live:
            if hand.total == top:
                who = self.names[i] if i in self.people else f"seat {i} ({self.names[i]})"
                holders.append(f"{who}'s hand {j + 1}" if len(t.seats[i].hands) > 1 else who)
        return top, holders

    def _loss_reason(self, hand: Any, d_text: str) -> str:
        """Why a standing hand lost, as the table judged it (``Table._settle_highest`` and
        :func:`~blackjack_env.engine.play.outcome`)."""
        t = self.table
        dealer = t.dealer
        if hand.surrendered:
            return "surrendered, but the dealer had blackjack"
        highest = self._highest()
        if highest is not None and not dealer.bust and hand.total < highest[0]:
            top, holders = highest
            return (f"{hand.total} is not the table's highest hand: {' and '.join(holders)} "
                    f"{'holds' if len(holders) == 1 else 'hold'} {top}, and only the highest "
                    f"hand can win unless the dealer busts")
        h_text = "blackjack" if hand.is_blackjack else f"{hand.total}"
        d_total = 21 if dealer.is_blackjack else dealer.total
        if dealer.is_blackjack and not hand.is_blackjack and (
            t.rules.dealer_natural_beats_21 or hand.total < 21
        ):
            return "the dealer has blackjack"
        if hand.total < d_total:
            return f"{h_text} loses to the dealer's {d_text}"
        # equal totals (a natural that does not beat a 21 included)
        rule = ("the dealer wins ties" if t.rules.ties is TieRule.DEALER_WINS
                else "equal totals lose")
        return f"{h_text} ties the dealer's {d_text}, and {rule}"

    # ---------------------------------------------------------------- round
    def play_round(self) -> bool:
        """Bets, the deal, every decision, the explanation. False when no round was played."""
        t = self.table
        if t.phase is Phase.SETTLED:
            t.new_round()
        self.write(f"=== round {t.round + 1} ===")
        if not self.take_bets():
            return False
        t.deal()
        in_round = [p for p in self.people.values() if t.seats[p.seat].hands]
        drawn = -1  # events on the table when it was last drawn
        while t.to_act is not None:
            seat_i = t.to_act[0]
            if seat_i in self.people:
                person = self.people[seat_i]
                if drawn != len(t.events) and not (person.left or self.ended):
                    self.write(self.draw())  # what changed since this person last looked
                    drawn = len(t.events)
                t.act(self.ask_action(person))
            else:
                action = self.players[seat_i](t)
                t.act(action)
                self.write(f"Seat {seat_i} ({self.names[seat_i]}): {action.name}")
        self.write(self.draw())
        for player in self.counting.values():
            player.observe(t)
        for person in in_round:
            person.rounds += 1
            self.explain(person)
        return True

    def seating(self) -> list[str]:
        """Who sits where, the computer's seats included, and how to seat only people."""
        s = self.settings
        seats = [
            f"seat {i} {self.names[i]}" if i in self.people
            else f"seat {i} {self.names[i]} (computer)"
            for i in range(self.rules.seats)
        ]
        lines = [f"At the table: {', '.join(seats)}; {s.bankroll} chips each. "
                 f"Type q to leave."]
        bots = sorted(self.players)
        if bots:
            only = f"--seats {len(self.people)}"
            if s.seat:
                only = f"--seat 0 {only}"
            which = (f"seat {bots[0]}" if len(bots) == 1
                     else f"seats {', '.join(map(str, bots[:-1]))} and {bots[-1]}")
            if self.rules.settlement is Settlement.HIGHEST_HAND:
                lines.append(
                    f"The computer plays {which} every round, and under highest-hand "
                    f"settlement its hands compete for the table's highest hand too. To "
                    f"seat only the people: {only}."
                )
            else:
                lines.append(f"To seat only the people: {only}.")
        return lines

    def run(self) -> dict[str, Any]:
        """Play until everyone leaves or runs out of chips, the input ends, or the round
        limit; returns each person's bankroll and the rounds played."""
        s = self.settings
        self.write(f"{s.rules}: {self.rules.summary()}")
        for note in self.notes:
            self.write(f"note: {note}")
        for line in self.seating():
            self.write(line)
        while self.seated and not self.ended:
            if s.rounds and self.played >= s.rounds:
                break
            if not self.play_round():
                break
            self.played += 1
        if self.ended:
            self.write(f"Leaving the table ({self.ended}).")
        elif not self.seated:
            self.write("Everyone has left the table.")
        result: dict[str, Any] = {"rounds": self.played, "people": {}}
        for person in self.people.values():
            bankroll = self.table.seats[person.seat].bankroll
            start = self.start[person.seat]
            assert bankroll is not None and start is not None  # (every player has chips)
            change = bankroll - start
            self.write(f"{person.name}: final bankroll {_chips(bankroll)} ({_signed(change)}) "
                       f"after {person.rounds} round(s).")
            result["people"][person.name] = {"seat": person.seat, "bankroll": bankroll,
                                             "rounds": person.rounds}
        return result


def run(settings: Settings, read: Callable[[str], str] = input,
        write: Callable[[str], None] = print) -> dict[str, Any]:
    """Check the options, then play (see the module docstring). After Ctrl-C at a prompt
    the table is closed as the module docstring says, then ``KeyboardInterrupt`` is raised
    again so that the command exits with status 130, as every command does."""
    session = Session(settings, read, write)
    result = session.run()
    if session.ended == CTRL_C:
        raise KeyboardInterrupt
    return result


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="blackjack-play")
