"""Messages that tell the truth: why a hand lost (both settlements), who sits where at
``blackjack-play``, the spelling each command accepts, one error style, Ctrl-C."""

from __future__ import annotations

import pytest

from blackjack_env.commands import play


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
    from blackjack_env.commands.demo import Settings, run

    result = run(Settings(rounds=2, seats=2))
    out = capsys.readouterr().out
    assert "  seat 0 hand 1: A♣ Q♣ = blackjack, BLACKJACK +1.5" in out
    assert result["bankrolls"][0] == 100.5
    second = out.split("=== round 2 ===\n")[1].splitlines()
    assert second.index("  dealer: 2♥ 9♦ J♣ = 21") == second.index("  dealer draws J♣") + 1
    assert "  bankrolls: seat 0 100.5, seat 1 98" in second


def test_demo_strategy_help_lists_every_strategy(capsys) -> None:
    from blackjack_env.commands import demo
    from blackjack_env.strategies import strategy_names

    with pytest.raises(SystemExit) as stop:
        demo.main(["--help"])
    assert stop.value.code in (0, None)
    text = " ".join(capsys.readouterr().out.split())
    for name in strategy_names():
        assert name in text.split("--strategy", 1)[1].split("--bankroll")[0], name


# ------------------------------------------------------------------ one error style
ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]

#: (command module, arguments, the error line exactly, or its start)
WRONG: list[tuple[str, list[str], str]] = [
    ("train", ["--decks", "9"], "error: --decks 9: use a whole number from 1 to 8, or inf "
     "for an infinite deck"),
    ("train", ["--decks", "0"], "error: --decks 0: use a whole number from 1 to 8, or inf"),
    ("train", ["--rules", "how-to-pley"], "error: --rules: unknown preset 'how-to-pley'"),
    ("evaluate", ["basic", "--decks", "banana"], "error: --decks banana: use a whole number "
     "from 1 to 8, or inf"),
    ("evaluate", ["basic", "--rules", "how-to-pley"], "error: --rules: unknown preset"),
    ("chart", ["basic", "--decks", "9"], "error: --decks 9: use a whole number from 1 to 8"),
    ("chart", ["basic", "--rules", "nope"], "error: --rules: unknown preset 'nope'"),
    ("main", ["--decks", "9"], "error: --decks 9: use a whole number from 1 to 8, or inf"),
    ("analyze", ["--decks", "9"], "error: --decks 9: decks=9 is not allowed; use an int from "
     "1 to 8, or inf for an infinite deck"),
    ("analyze", ["--set", "decks=banana"], "error: --set decks=banana: decks='banana' is not "
     "allowed; use an int from 1 to 8, or inf for an infinite deck"),
    ("play", ["--set", "decks=0"], "error: --set decks=0: decks=0 is not allowed; use an int "
     "from 1 to 8, or inf for an infinite deck"),
]


@pytest.mark.parametrize(("command", "args", "line"), WRONG,
                         ids=[f"{c} {' '.join(a)}" for c, a, _ in WRONG])
def test_every_message_names_the_spelling_its_command_takes(command, args, line, tmp_path,
                                                             monkeypatch, capsys) -> None:
    import importlib

    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(f"blackjack_env.commands.{command}")
    assert module.main([*args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(line), err
    assert "None for an infinite deck" not in err
    assert list(tmp_path.iterdir()) == []


def test_analyze_decks_inf_is_the_infinite_deck(capsys) -> None:
    from blackjack_env.commands import analyze

    assert analyze.main(["--decks", "inf", "--quiet", "--no-composition"]) == 0
    assert "infinite deck" in capsys.readouterr().out


def test_a_write_that_fails_names_the_path_given_not_a_temporary_file(tmp_path,
                                                                      monkeypatch) -> None:
    import os

    from blackjack_env import cli

    target = tmp_path / "out.json"

    def refuse(src, dst):  # as a folder that takes no new file would
        raise PermissionError(13, "Permission denied", str(src))

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError) as err:
        cli.write_json(target, {"a": 1})
    assert err.value.filename == str(target)
    assert cli._one_line(err.value) == f"{target}: cannot write here (Permission denied)"
    assert list(tmp_path.iterdir()) == []  # the temporary file is gone too


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self"), reason="needs /proc")
def test_analyze_json_into_proc_names_the_path(capsys) -> None:
    from blackjack_env.commands import analyze

    assert analyze.main(["--decks", "inf", "--quiet", "--json", "/proc/out.json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --json /proc/out.json: ") and ".tmp" not in err


def test_missing_web_extra_is_one_lowercase_error_line(monkeypatch, capsys) -> None:
    import sys

    from blackjack_env.commands import web

    for name in ("starlette", "uvicorn", "blackjack_env.web.server"):
        monkeypatch.setitem(sys.modules, name, None)
    assert web.main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: the web table needs the web extra")
    assert "pip install -e '.[web]'" in err


def test_web_port_in_use_is_one_error_line(capsys) -> None:
    import socket

    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    from blackjack_env.commands import web

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert web.main(["--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: --port {port}: cannot listen")


# ------------------------------------------------------------------ Ctrl-C
def _interrupt_at(monkeypatch, target: str, name: str, after: int = 0) -> None:
    """``target.name`` raises KeyboardInterrupt on its call number ``after + 1``."""
    import importlib

    owner_path, _, attr = f"{target}.{name}".rpartition(".")
    try:
        owner = importlib.import_module(owner_path)
    except ModuleNotFoundError:
        module, _, cls = owner_path.rpartition(".")
        owner = getattr(importlib.import_module(module), cls)
    real = getattr(owner, attr)
    calls = {"n": 0}

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] > after:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, attr, interrupted)


class _Keyboard:
    """``sys.stdin`` for ``input()``: these lines, then Ctrl-C."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = list(lines)

    def readline(self) -> str:
        if not self.lines:
            raise KeyboardInterrupt
        return self.lines.pop(0) + "\n"

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError("not a real file")


DEAL = ("blackjack_env.engine.table.Table", "deal")
#: The single env's step: never compiled, so patching it interrupts the commands that
#: drive the env (the compiled build's env core calls ``Table.deal`` directly, past a
#: patch on the class).
STEP = ("blackjack_env.envs.single.BlackjackEnv", "step")
#: command, arguments, where the Ctrl-C comes (the work each command does)
CTRL_C: list[tuple[str, list[str], tuple[str, str], int]] = [
    ("play", [], ("stdin", ""), 0),  # at the first bet
    ("play", ["--names", "Ann,Bob"], ("stdin", ""), 2),  # at a decision
    ("train", ["--hands", "5000", "--no-progress", "--out", "{tmp}/run"], STEP, 300),
    ("evaluate", ["basic", "--hands", "5000"], STEP, 100),
    ("demo", ["--rounds", "50"], DEAL, 3),
    ("main", ["--hands", "5000", "--no-progress", "--out", "{tmp}/main"], STEP, 300),
    ("analyze", ["--decks", "inf"], ("blackjack_env.commands.analyze", "analyze"), 0),
    ("chart", ["basic"], ("blackjack_env.commands.chart", "run"), 0),
    ("web", [], ("uvicorn.Server", "run"), 0),  # uvicorn re-raises Ctrl-C after its shutdown
    ("simulate", ["--policy", "dealer", "--hands", "5000", "--tables", "64",
                  "--rounds-per-table", "16"],
     ("blackjack_env.simulate", "_run_chunk"), 1),
]


@pytest.mark.parametrize(("command", "args", "where", "after"), CTRL_C,
                         ids=[f"{c} {' '.join(a[:2])}" for c, a, _, _ in CTRL_C])
def test_ctrl_c_ends_every_command_with_status_130_and_one_line(
    command, args, where, after, tmp_path, monkeypatch, capsys
) -> None:
    import importlib

    if command == "web":
        pytest.importorskip("uvicorn")
        pytest.importorskip("starlette")
        # uvicorn.Config configures logging with dictConfig, which closes every handler
        # already installed, pytest's own among them (the next test then meets a closed
        # file): in process, keep the logging as it is; the real server's Ctrl-C is
        # test_ctrl_c_sent_to_a_running_web_server_exits_130.
        monkeypatch.setattr("uvicorn.Config.configure_logging", lambda self: None)
    monkeypatch.chdir(tmp_path)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if command == "play":  # the people bet 10 each, then Ctrl-C at the next prompt
        monkeypatch.setattr("sys.stdin", _Keyboard(["10"] * after))
    else:
        _interrupt_at(monkeypatch, *where, after=after)
    module = importlib.import_module(
        "blackjack_env.simulate" if command == "simulate"
        else f"blackjack_env.commands.{command}")
    assert module.main(args) == 130
    out, err = capsys.readouterr()
    assert err == "error: interrupted\n", err
    if command == "play" and after:
        assert "Ctrl-C: the round is finished as the table finishes it for a player who " \
               "leaves" in out
        assert "Leaving the table (Ctrl-C)." in out and "Ann: final bankroll" in out


def test_ctrl_c_at_a_decision_finishes_the_round_and_conserves_chips() -> None:
    session, term = _session(["10", KeyboardInterrupt()], cards="TS 9H 6D TH")
    session.run()
    assert session.ended == play.CTRL_C
    assert "Ctrl-C: the round is finished" in term.text
    assert "You: LOSS (16 loses to the dealer's 19), -10" in term.lines  # stood on 16
    _conserved(session, 100)
    with pytest.raises(KeyboardInterrupt):  # then the command exits 130
        play.run(play.Settings(cards="TS 9H 6D TH"), Terminal(["10", KeyboardInterrupt()]).read,
                 lambda text: None)


def test_ctrl_c_sent_to_a_running_web_server_exits_130(tmp_path) -> None:
    """The real signal: uvicorn handles SIGINT itself (a graceful shutdown)."""
    import os
    import signal
    import subprocess
    import sys

    from tests.scripts import interrupt

    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = interrupt.start([sys.executable, str(ROOT / "scripts" / "web.py")], cwd=tmp_path,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        assert "blackjack table at" in proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130 and err == "error: interrupted\n", err


# ------------------------------------------------------------------ --help
HELPS = [("blackjack_env.commands." + c, []) for c in
         ("play", "train", "evaluate", "main", "demo", "web", "analyze")] + [
    ("blackjack_env.simulate", []),
    *[(f"scripts/{s}.py", []) for s in ("bench_engine", "bench_env", "bench_vector",
                                        "rllib_example")],
]


def _help(target: str, monkeypatch, capsys) -> str:
    import importlib
    import runpy
    import sys

    if target.startswith("scripts/"):
        monkeypatch.setattr(sys, "argv", [target, "--help"])
        monkeypatch.syspath_prepend(str(ROOT / "scripts"))  # as `python scripts/X.py` does
        with pytest.raises(SystemExit) as stop:
            runpy.run_path(str(ROOT / target), run_name="__main__")
    else:
        with pytest.raises(SystemExit) as stop:
            importlib.import_module(target).main(["--help"])
    assert stop.value.code in (0, None)
    return capsys.readouterr().out


def _words(text: str) -> str:
    """The help's words in one line: without tyro's box and its line breaks."""
    return " ".join(text.translate({ord(c): " " for c in "│╭╮╰╯─"}).split())


@pytest.mark.parametrize("target", [t for t, _ in HELPS])
def test_help_reads_as_a_person_wrote_it(target, monkeypatch, capsys) -> None:
    text = _help(target, monkeypatch, capsys)
    # Python's spellings of a default that stands for something are not for a person
    for bad in ("{None}", "(default: None)", "(default: '')", "(default: )",
                "(repeatable) (repeatable)"):
        assert bad not in text, (bad, text)


def test_analyze_help_says_what_each_default_is(monkeypatch, capsys) -> None:
    text = _words(_help("blackjack_env.commands.analyze", monkeypatch, capsys))
    assert ("--decks N|inf number of decks 1..8, or inf for an infinite deck (default: the "
            "preset's)") in text
    for flag in ("--h17", "--s17", "--das", "--no-das"):
        after = text.split(flag + " ", 1)[1][:60]
        assert "(default: the preset's)" in after, (flag, after)
    composition = text.split("--no-composition", 1)[1][:200]
    assert "skip" in composition and "default: True" not in composition


# ------------------------------------------------------------------ advice that fits (issue 33, 18)
def test_a_refused_bet_gives_the_range_the_prompt_gave() -> None:
    """The prompt offers 1-100 (the bankroll caps the table's 1-1000): a refusal said "The
    table takes bets from 1 to 1000". Each refusal says what was wrong and the prompt's range."""
    session, term = _session(["0", "-3", "1.5", "abc", "250", "q"], bankroll=100, rounds=1)
    session.run()
    refusals = [line for line in term.lines if line.startswith(("You cannot", "'"))]
    assert refusals == [
        "You cannot bet 0: the table's minimum bet is 1; type a bet from 1 to 100.",
        "You cannot bet -3: the table's minimum bet is 1; type a bet from 1 to 100.",
        "'1.5' is not a whole number; type a bet from 1 to 100.",
        "'abc' is not a whole number; type a bet from 1 to 100.",
        "You cannot bet 250: your bankroll is 100; type a bet from 1 to 100.",
    ]
    assert "1000" not in term.text
    rich, term = _session(["1500", "q"], bankroll=2000, rounds=1)
    rich.run()
    assert ("You cannot bet 1500: the table's maximum bet is 1000; type a bet from 1 to 1000."
            in term.lines)


@pytest.mark.parametrize(("args", "says", "not_says"), [
    (["--algo", "ppo", "--timesteps", "64", "--lr", "5"],
     "--lr 5.0: --algo ppo (stable-baselines3) keeps its own learning rate", "1/N(s,a)"),
    (["--algo", "dqn", "--timesteps", "64", "--lr", "0.5"],
     "--lr 0.5: --algo dqn (stable-baselines3) keeps its own", "1/N(s,a)"),
    (["--algo", "q-learning", "--lr", "5"], "--lr 5.0: the tabular step size must be in (0, 1]; "
     "leave it out for 1/N(s,a)^p", "Adam"),
])
def test_lr_advice_fits_the_algorithm(args, says, not_says, tmp_path, capsys) -> None:
    """``--algo ppo --lr 5`` gave the tabular default's advice (and ``--lr 0.5`` was ignored
    without a word): SB3 keeps its own learning rate."""
    from blackjack_env.commands import train

    assert train.main([*args, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {says}"), err
    assert not_says not in err[0]
    assert list(tmp_path.iterdir()) == []


def _has_jax_ppo() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("jax", "flax", "optax"))


@pytest.mark.skipif(not _has_jax_ppo(), reason="needs the [jax] extra")
def test_jax_ppo_advice_names_the_seats_trainer_and_its_own_lr(tmp_path, capsys) -> None:
    """``--algo jax-ppo --seats 3`` said "use the single env or the multi-agent env", though
    ``python -m blackjack_env.agents.jax_seats --seats 3`` trains exactly that; ``--lr 5``
    said "leave it out for 1/N(s,a)^p", the tabular default."""
    from blackjack_env.commands import train

    out = str(tmp_path / "run")
    assert train.main(["--algo", "jax-ppo", "--rules", "vegas-strip", "--seats", "3",
                       "--out", out]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --seats 3: --algo jax-ppo trains one "
                                               "learner alone at each JAX table"), err
    assert "python -m blackjack_env.agents.jax_seats --seats 3 --rules vegas-strip" in err[0]
    assert "--algo ppo" in err[0] and "single env or the multi-agent env" not in err[0]
    assert train.main(["--algo", "jax-ppo", "--lr", "5", "--out", out]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --lr 5.0: jax-ppo's Adam step size must be in (0, 1]; leave it out "
                   "for its default 0.001"]
    assert list(tmp_path.iterdir()) == []
