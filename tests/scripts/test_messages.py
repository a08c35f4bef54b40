"""Messages that tell the truth: why a hand lost (both settlements), who sits where at
``blackjack-play``, the spelling each command accepts, one error style, Ctrl-C."""

from __future__ import annotations

import pytest

from blackjack_env.agents.commands import play


class Terminal:
    """Scripted answers (an exception instance is raised when its turn comes)."""

    def __init__(self, answers: list[object]) -> None:
        self.answers = list(answers)
        self.lines: list[str] = []

    def read(self, prompt: str) -> str:
        if not self.answers:
            raise EOFError
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return str(answer)

    def write(self, text: str) -> None:
        self.lines.extend(str(text).splitlines() or [""])

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _session(answers: list[object], **settings: object) -> tuple[play.Session, Terminal]:
    term = Terminal(answers)
    return play.Session(play.Settings(**settings), term.read, term.write), term


def _conserved(session: play.Session, chips_at_start: int) -> None:
    table = session.table
    assert sum(seat.bankroll for seat in table.seats) + table.house == chips_at_start
    shoe = table.shoe
    assert shoe.remaining + len(table.cards_on_table()) + len(shoe.discards) == shoe.total_cards


# ------------------------------------------------------------------ why a hand lost
def test_terminal_21_loss_names_the_tables_highest_hand() -> None:
    """terminal-21, three people. Deal (seat order, dealer up, seat order, hole):
    Ann 10♠ A♠ (21), Bob 9♥ 8♥ (17), Cy 10♣ 10♥ (20); dealer 10♦ 7♠ (17, stands).
    Ann's 21 is the table's highest hand and wins; Cy's 20 beats the dealer's 17 but
    loses because only the highest hand can win: the reason must say so."""
    session, term = _session(["10", "10", "10", "s", "s"], rules="terminal-21",
                             names="Ann,Bob,Cy", cards="TS 9H TC TD AS 8H TH 7S", rounds=1)
    result = session.run()
    assert {n: p["bankroll"] for n, p in result["people"].items()} == {
        "Ann": 110, "Bob": 90, "Cy": 90}
    assert ("Cy: LOSS (20 is not the table's highest hand: Ann holds 21, and only the "
            "highest hand can win unless the dealer busts), -10") in term.lines
    assert "Bob: LOSS (17 is not the table's highest hand: Ann holds 21" in term.text
    assert "does not win against" not in term.text
    _conserved(session, 300)


def test_terminal_21_a_computer_seat_holding_the_highest_hand_is_named() -> None:
    """Ann alone beside a dealer-style seat: Ann 10♠ 9♥ (19) stands; the seat holds
    10♣ A♣ (21) and stands by itself; dealer 10♦ 7♠ (17)."""
    session, term = _session(["10", "s"], rules="terminal-21", names="Ann", seats=2,
                             others="dealer", cards="TS TC TD 9H AC 7S", rounds=1)
    session.run()
    assert ("Ann: LOSS (19 is not the table's highest hand: seat 1 (dealer) holds 21, and "
            "only the highest hand can win unless the dealer busts), -10") in term.lines
    _conserved(session, 200)


@pytest.mark.parametrize(
    ("cards", "ties", "reason"),
    [
        # Ann 10♠ 8♥ (18) stands; dealer 10♦ 9♣ (19)
        ("TS TD 8H 9C", "push", "18 loses to the dealer's 19"),
        # Ann 10♠ 9♥ (19) stands; dealer 10♦ 9♣ (19); the dealer wins ties
        ("TS TD 9H 9C", "dealer-wins", "19 ties the dealer's 19, and the dealer wins ties"),
        ("TS TD 9H 9C", "player-loses", "19 ties the dealer's 19, and equal totals lose"),
    ],
)
def test_dealer_game_loss_reasons_are_the_tables(cards: str, ties: str, reason: str) -> None:
    session, term = _session(["10", "s"], rules="vegas-strip", cards=cards, rounds=1,
                             set=[f"ties={ties}"])
    session.run()
    assert f"You: LOSS ({reason}), -10" in term.lines
    assert "highest hand" not in term.text
    _conserved(session, 100)


# ------------------------------------------------------------------ who sits where
def test_the_table_says_who_sits_where_and_how_to_seat_only_people() -> None:
    session, term = _session([], rules="terminal-21", names="Ann,Bob")
    session.run()
    assert ("At the table: seat 0 Ann, seat 1 Bob, seat 2 basic (computer); 100 chips each. "
            "Type q to leave.") in term.lines
    line = next(x for x in term.lines if x.startswith("The computer plays"))
    assert "seat 2" in line and "highest-hand settlement" in line
    assert line.endswith("To seat only the people: --seats 2.")
    # and the option it names does it
    session, term = _session([], rules="terminal-21", names="Ann,Bob", seats=2)
    session.run()
    assert "At the table: seat 0 Ann, seat 1 Bob; 100 chips each. Type q to leave." in term.lines
    assert not any(x.startswith(("The computer", "To seat only")) for x in term.lines)
    assert len(session.table.seats) == 2


def test_people_after_computer_seats_are_told_the_seat_option_too() -> None:
    session, term = _session([], seat=1, seats=3)
    session.run()
    assert ("At the table: seat 0 basic (computer), seat 1 You, seat 2 basic (computer); "
            "100 chips each. Type q to leave.") in term.lines
    assert "To seat only the people: --seat 0 --seats 1." in term.lines


# ------------------------------------------------------------------ demo
def test_demo_shows_a_natural_paid_3_to_2_and_the_dealers_hand_when_it_is_final(capsys):
    """seed 0, two seats: round 2 deals seat 0 A♣ Q♣, paid 3:2 on a bet of 1 (+1.5, a
    Fraction the demo could not print) before the dealer plays out to 21."""
    from blackjack_env.agents.commands.demo import Settings, run

    result = run(Settings(rounds=2, seats=2))
    out = capsys.readouterr().out
    assert "  seat 0 hand 1: A♣ Q♣ = blackjack, BLACKJACK +1.5" in out
    assert result["bankrolls"][0] == 100.5
    second = out.split("=== round 2 ===\n")[1].splitlines()
    assert second.index("  dealer: 2♥ 9♦ J♣ = 21") == second.index("  dealer draws J♣") + 1
    assert "  bankrolls: seat 0 100.5, seat 1 98" in second


def test_demo_strategy_help_lists_every_strategy(capsys) -> None:
    from blackjack_env.agents.commands import demo
    from blackjack_env.strategies import strategy_names

    with pytest.raises(SystemExit) as stop:
        demo.main(["--help"])
    assert stop.value.code in (0, None)
    text = " ".join(capsys.readouterr().out.split())
    for name in strategy_names():
        assert name in text.split("--strategy", 1)[1].split("--bankroll")[0], name
