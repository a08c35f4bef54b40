"""play, analyze, demo, the benchmarks, rllib_example and simulate as a user meets them.

In process (no subprocess): every script with each bad input ends with exit status
2, exactly one stderr line ``error: ...`` that names the value, no traceback, and
no file written or changed; a script run without the package installed (or
interrupted while it imports) says so in one line. Then the hot-seat game is
driven through its prompts with stacked shoes, and chips and cards are counted.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import runpy
import sys
from pathlib import Path
from statistics import NormalDist

import pytest

from blackjack_env.commands import play

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
MISSING = "{tmp}/old.json/out.json"  # a folder that cannot be created: old.json is a file

# (script, arguments, text the error line must contain)
BAD_INPUTS: list[tuple[str, list[str], str]] = [
    ("play.py", ["--rounds", "-1"], "--rounds -1"),
    ("play.py", ["--seats", "2", "--seat", "4"], "--seat 4"),
    ("play.py", ["--seats", "9"], "--seats 9"),
    ("play.py", ["--rules", "how-to-play", "--people", "6"], "6 people from --seat 0"),
    ("play.py", ["--seats", "2", "--others", "nobody"], "'nobody'"),
    ("play.py", ["--others", "nobody"], "'nobody'"),
    ("play.py", ["--seats", "2", "--others", "basic,dealer,stand"], "3 players for 1 other"),
    ("play.py", ["--seats", "2", "--others", "{tmp}/old.json/model.npz"], "model.npz"),
    ("play.py", ["--rules", "vegas-strp"], "'vegas-strp'"),
    ("play.py", ["--bankroll", "0"], "--bankroll 0"),
    ("play.py", ["--people", "8"], "--people 8"),
    ("play.py", ["--names", "Ann,,Bob"], "Ann,,Bob"),
    ("play.py", ["--names", "Ann,Ann"], "different name"),
    ("play.py", ["--people", "3", "--names", "Ann,Bob"], "--people 3"),
    ("play.py", ["--seat", "-1"], "--seat -1"),
    ("play.py", ["--cards", "AS ZZ"], "ZZ"),
    ("play.py", ["--set", "surrender=sometimes"], "--set surrender=sometimes"),
    ("play.py", ["--set", "sureender=early"], "'sureender'"),
    ("analyze.py", ["--set", "card_values=1"], "card_values"),
    ("analyze.py", ["--set", "card_valus=1"], "'card_valus'"),
    ("analyze.py", ["--set", "decks"], "FIELD=VALUE"),
    ("analyze.py", ["--set", "card_values={J: 1}"], "JSON"),
    ("analyze.py", ["--decks", "0"], "--decks 0"),
    ("analyze.py", ["--payout", "lots"], "lots"),
    ("analyze.py", ["--h17", "--s17"], "--h17"),
    ("analyze.py", ["--rules", "nope"], "'nope'"),
    ("analyze.py", ["--decks", "inf", "--json", MISSING], MISSING),
    ("analyze.py", ["--decks", "inf", "--chart", "{tmp}"], "is a folder"),
    ("analyze.py", ["--decks", "inf", "--json", "{tmp}/old.json/x.json"], "is not a folder"),
    ("demo.py", ["--rules", "nope"], "'nope'"),
    ("demo.py", ["--strategy", "psychic"], "'psychic'"),
    ("demo.py", ["--rounds", "-1"], "--rounds -1"),
    ("demo.py", ["--rounds", "0"], "--rounds 0"),
    ("demo.py", ["--seats", "0"], "--seats 0"),
    ("demo.py", ["--seats", "8"], "--seats 8"),
    ("demo.py", ["--cards", "AS 1X"], "1X"),
    ("demo.py", ["--bankroll", "-5"], "--bankroll -5"),
    ("bench_engine.py", ["--hands", "0"], "--hands 0"),
    ("bench_engine.py", ["--hands", "-100"], "--hands -100"),
    ("bench_engine.py", ["--repeats", "0"], "--repeats 0"),
    ("bench_engine.py", ["--json", MISSING], MISSING),
    ("bench_env.py", ["--steps", "-1"], "--steps -1"),
    ("bench_env.py", ["--repeats", "0"], "--repeats 0"),
    ("bench_env.py", ["--json", "{tmp}"], "is a folder"),
    ("bench_vector.py", ["--baseline-envs", "0"], "--baseline-envs 0"),
    ("bench_vector.py", ["--tables", "0"], "--tables 0"),
    ("bench_vector.py", ["--seconds", "-1"], "--seconds -1"),
    ("bench_train.py", ["--timesteps", "0"], "--timesteps 0"),
    ("bench_train.py", ["--busy", "-1"], "--busy -1"),
    ("bench_train.py", ["--limit", "0"], "--limit 0"),
    ("bench_train.py", ["--json", "{tmp}"], "is a folder"),
    ("bench_rule_sets.py", ["--rule-sets", "0"], "--rule-sets 0"),
    ("bench_rule_sets.py", ["--rule-sets", "300"], "--rule-sets 300"),
    ("bench_rule_sets.py", ["--workers", "0"], "--workers 0"),
    ("bench_rule_sets.py", ["--hidden", "0"], "--hidden 0"),
    ("bench_rule_sets.py", ["--json", "{tmp}"], "is a folder"),
    ("bench_composition.py", ["--repeats", "0"], "--repeats 0"),
    ("bench_composition.py", ["--decks", "0"], "--decks 0"),
    ("bench_composition.py", ["--before", MISSING], MISSING),
    ("bench_composition.py", ["--json", "{tmp}"], "is a folder"),
    ("bench_vector.py", ["--seconds", "0"], "--seconds 0"),
    ("bench_vector.py", ["--profile", "-3"], "--profile -3"),
    ("bench_vector.py", ["--seats", "1"], "--seats 1"),
    ("bench_vector.py", ["--seats", "8"], "--seats 8"),
    ("bench_vector.py", ["--json", MISSING], MISSING),
    ("bench_vector.py", ["--id", "bogus/Nope-v0"], "--id bogus/Nope-v0"),
    ("bench_vector.py", ["--rule-space", "v9"], "'v9'"),
    ("rllib_example.py", ["--iterations", "0"], "--iterations 0"),
    ("rllib_example.py", ["--minibatch", "1024"], "--minibatch 1024"),
    ("rllib_example.py", ["--obs-mode", "pixels"], "'pixels'"),
    ("rllib_example.py", ["--rules", "nope"], "'nope'"),
    ("rllib_example.py", ["--json", MISSING], MISSING),
    ("bench_array_api.py", ["--tables", "0"], "--tables 0"),
    ("bench_array_api.py", ["--seconds", "0"], "--seconds 0"),
    ("bench_jax.py", ["--numpy", "--no-numpy"], "--numpy and --no-numpy"),
    ("bench_jax.py", ["--policy", "smart"], "'smart'"),
    ("bench_jax.py", ["--steps", "-1"], "--steps -1"),
    ("gpu_train_check.py", ["--rules", "nope"], "'nope'"),
    ("gpu_train_check.py", ["--out", "{tmp}"], "is a folder"),
    ("gpu_train_check.py", ["--seeds", "x"], "--seeds"),
    ("jax_determinism.py", ["--tables", "0"], "--tables 0"),
    ("jax_determinism.py", ["--out", MISSING], MISSING),
    ("fingerprint_envs.py", ["--seeds", "0"], "--seeds 0"),
    ("fingerprint_envs.py", ["--out", MISSING], MISSING),
    ("jax_ppo_counting.py", ["--hands", "0"], "--hands 0"),
    ("jax_ppo_counting.py", ["--out", MISSING], MISSING),
    ("-m blackjack_env.simulate", ["--policy", "psychic"], "'psychic'"),
    ("-m blackjack_env.simulate", ["--rules", "nope"], "'nope'"),
    ("-m blackjack_env.simulate", ["--hands", "0"], "--hands 0"),
    ("-m blackjack_env.simulate", ["--workers", "0"], "--workers 0"),
    ("-m blackjack_env.simulate", ["--tables", "-2"], "--tables -2"),
    ("-m blackjack_env.simulate", ["--rounds-per-table", "0"], "--rounds-per-table 0"),
    ("-m blackjack_env.simulate", ["--hands", "10", "--json", MISSING], MISSING),
]


def _run(script: str, args: list[str], monkeypatch, stdin: str = "") -> int:
    """Run a script (or ``-m module``) in this process as ``__main__``; its exit status."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    if script.startswith("-m "):
        module = script[3:]
        monkeypatch.setattr(sys, "argv", [module, *args])
        monkeypatch.delitem(sys.modules, module, raising=False)  # run it fresh, as python -m
        runner = lambda: runpy.run_module(module, run_name="__main__", alter_sys=True)  # noqa: E731
    else:
        path = str(SCRIPTS / script)
        monkeypatch.setattr(sys, "argv", [path, *args])
        monkeypatch.syspath_prepend(str(SCRIPTS))  # as `python scripts/NAME.py` puts it first
        runner = lambda: runpy.run_path(path, run_name="__main__")  # noqa: E731
    with pytest.raises(SystemExit) as exit_:
        runner()
    return int(exit_.value.code or 0)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _has_ray() -> bool:
    import importlib.util

    return importlib.util.find_spec("ray") is not None


@pytest.mark.parametrize(
    ("script", "args", "names"), BAD_INPUTS, ids=[f"{s} {' '.join(a)}" for s, a, _ in BAD_INPUTS]
)
def test_a_bad_input_is_one_error_line_and_changes_nothing(
    script, args, names, tmp_path, monkeypatch, capsys
) -> None:
    (tmp_path / "old.json").write_text('{"kept": true}\n')
    monkeypatch.chdir(tmp_path)  # a stray relative write would land here
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    names = names.replace("{tmp}", str(tmp_path))
    if script == "rllib_example.py" and not _has_ray() and "--json" not in args:
        args = [*args, "--json", str(tmp_path / "old.json")]  # must stay as it is
    before = _snapshot(tmp_path)
    code = _run(script, args, monkeypatch)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (code, out, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert names in lines[0], lines[0]
    assert "Traceback" not in out + err
    assert _snapshot(tmp_path) == before


def test_rllib_example_without_ray_says_how_to_install_it(tmp_path, monkeypatch, capsys) -> None:
    if _has_ray():
        pytest.skip("Ray is installed here")
    monkeypatch.chdir(tmp_path)
    code = _run("rllib_example.py", ["--json", "out.json"], monkeypatch)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: Ray RLlib")
    # the README's install line, word for word
    assert 'pip install torch==2.13.0 && pip install "ray[rllib]" -e ".[all]"' in err
    assert "virtual environment" in err
    assert not (tmp_path / "out.json").exists()


SCRIPT_NAMES = ["play.py", "analyze.py", "demo.py", "bench_engine.py", "bench_env.py",
                "bench_vector.py", "bench_jax.py", "bench_train.py", "bench_composition.py",
                "bench_array_api.py", "bench_rule_sets.py", "rllib_example.py"]


@pytest.mark.parametrize("script", SCRIPT_NAMES)
@pytest.mark.parametrize("problem", ["not installed", "Ctrl-C"])
def test_start_up_failures_are_one_line(script, problem, monkeypatch, capsys) -> None:
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("blackjack_env"):
            if problem == "Ctrl-C":
                raise KeyboardInterrupt
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    code = _run(script, [], monkeypatch)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    if problem == "Ctrl-C":
        assert code == 130 and err == "error: interrupted\n"
    else:
        assert code == 2 and err.startswith("error: blackjack_env is not installed")
        assert "pip install -e ." in err


def test_help_of_every_command_lists_its_options(monkeypatch, capsys) -> None:
    for script, flag in [("play.py", "--people"), ("play.py", "--names"),
                         ("analyze.py", "--set"), ("demo.py", "--strategy"),
                         ("bench_vector.py", "--baseline-envs"),
                         ("-m blackjack_env.simulate", "--rounds-per-table")]:
        assert _run(script, ["--help"], monkeypatch) == 0
        assert flag in capsys.readouterr().out


SCRIPT_FILES = sorted(p.name for p in SCRIPTS.glob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("script", SCRIPT_FILES)
def test_every_script_takes_its_options_in_the_commands_style(script, monkeypatch,
                                                              capsys) -> None:
    """Issue 30 (6): every script parses its options with the commands' runner (tyro: a
    settings dataclass, a help line per option), none with argparse; ``--help`` lists the
    options and imports no heavy package (JAX starts only when the work does)."""
    text = (SCRIPTS / script).read_text()
    assert "argparse" not in text
    assert "sys.path.insert" not in text  # a script edits no import path
    heavy = {m for m in ("jax", "torch", "ray") if m not in sys.modules}
    assert _run(script, ["--help"], monkeypatch) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: ") and "--help" in out, out
    assert not {m for m in heavy if m in sys.modules}, "--help imported a heavy package"


# ----------------------------------------------------------------- the hot seat
class Terminal:
    """Scripted answers; records every prompt and line written."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []
        self.lines: list[str] = []

    def read(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)

    def write(self, text: str) -> None:
        self.lines.extend(str(text).splitlines() or [""])

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _conserved(session: play.Session, chips_at_start: int) -> None:
    table = session.table
    bankrolls = sum(seat.bankroll for seat in table.seats)
    assert bankrolls + table.house == chips_at_start  # the house's result is the other side
    shoe = table.shoe
    cards = shoe.remaining + len(table.cards_on_table()) + len(shoe.discards)
    assert cards == shoe.total_cards


def test_three_people_take_turns_at_one_table() -> None:
    """Ann, Bob and Cy (seats 0-2) each bet, then act in seat order, each asked by name.

    Deal: Ann 10♠ 7♠ (17), Bob 8♥ 8♦, Cy 5♣ 6♣ (11); dealer 6♦ up, 10♦ in the hole.
    Ann stands. Bob splits: hand 1 8♥ 3♣ doubles on 9♥ (20); hand 2 8♦ 2♠ hits 4♥ (14),
    stands. Cy doubles 11 on K♠ (21). The dealer's 16 draws 7♣: 23, bust, so every
    standing hand wins even money: Ann +10 (bet 10), Bob +10 +5 (5 doubled, 5),
    Cy +40 (20 doubled)."""
    cards = "TS 8H 5C 6D 7S 8D 6C TD 3C 9H 2S 4H KS 7C"
    term = Terminal(["10", "5", "20", "s", "p", "d", "h", "s", "d"])
    settings = play.Settings(names="Ann,Bob,Cy", cards=cards, rounds=1)
    session = play.Session(settings, term.read, term.write)
    result = session.run()
    asked = [p.split(",")[0].split(":")[0] for p in term.prompts]
    assert asked == ["Ann", "Bob", "Cy", "Ann", "Bob", "Bob", "Bob", "Bob", "Cy"]
    assert [p.split(" ", 1)[1].startswith("your bet") for p in term.prompts[:3]] == [True] * 3
    assert "Bob, your hand 2 8♦ 2♠ = 10 (bet 5) against the dealer's 6♦." in term.text
    people = result["people"]
    assert {n: p["bankroll"] for n, p in people.items()} == {"Ann": 110, "Bob": 115, "Cy": 140}
    assert result["rounds"] == 1 and session.table.house == -65
    _conserved(session, 300)
    assert "Seat 0 Ann" in term.text and "Seat 2 Cy" in term.text
    assert term.text.count("<- to act") >= 6  # the table is drawn before each decision


def test_hot_seat_insurance_is_asked_of_each_person_by_name() -> None:
    """Ann and Bob beside a basic-strategy seat; the dealer shows an ace and holds a king.

    Ann (10♠ 9♥ = 19, bet 10) insures for 5; Bob (9♣ 7♦ = 16, bet 4) declines. The peek
    finds blackjack: every hand loses its bet; Ann's insurance pays 2:1 (+10), so Ann
    ends even, Bob -4, the basic seat (8♦ 9♠, bet 1) -1."""
    cards = "TS 9C 8D AH 9H 7D 9S KC"
    term = Terminal(["10", "4", "i", "n"])
    settings = play.Settings(names="Ann,Bob", seats=3, cards=cards, rounds=1)
    session = play.Session(settings, term.read, term.write)
    result = session.run()
    insurance_prompts = [p for p in term.prompts if "[i]nsure" in p]
    assert [p.split(":")[0] for p in insurance_prompts] == ["Ann", "Bob"]
    assert "Ann: the dealer shows A♥ and will check for blackjack" in term.text
    assert "Ann: insurance won (the dealer had blackjack)" in term.text
    assert {n: p["bankroll"] for n, p in result["people"].items()} == {"Ann": 100, "Bob": 96}
    assert session.table.seats[2].bankroll == 99
    _conserved(session, 300)


def test_hot_seat_early_surrender_before_the_peek() -> None:
    """--set surrender=early: against a ten up, each person is asked before the peek.
    Ann (10♠ 6♦, bet 10) surrenders early: half back, -5. Bob (9♣ 9♦, bet 4) declines,
    stands on 18, loses to the dealer's 10♥ 9♥ (19): -4."""
    term = Terminal(["10", "4", "r", "n", "s"])
    settings = play.Settings(names="Ann,Bob", set=["surrender=early"], cards="TS 9C TH 6D 9D 9H",
                             rounds=1)
    session = play.Session(settings, term.read, term.write)
    result = session.run()
    early = [p for p in term.prompts if "su[r]render, [n]o" in p]
    assert [p.split(":")[0] for p in early] == ["Ann", "Bob"]
    assert "surrender early (half your bet back)" in term.text
    assert {n: p["bankroll"] for n, p in result["people"].items()} == {"Ann": 95, "Bob": 96}
    _conserved(session, 200)


def test_hot_seat_even_money_and_insurance_declined() -> None:
    """Ace up, no dealer blackjack (A♥ 7♠, soft 18). Ann (10♠ 9♦, bet 10) declines
    insurance and wins with 19: +10. Bob's natural (A♣ K♦, bet 4) takes even money: +4."""
    term = Terminal(["10", "4", "n", "i", "s"])
    settings = play.Settings(names="Ann,Bob", cards="TS AC AH 9D KD 7S", rounds=1)
    session = play.Session(settings, term.read, term.write)
    result = session.run()
    assert "Bob: the dealer shows A♥" in term.text and "take even money" in term.text
    assert "Bob: EVEN MONEY (even money taken on a blackjack), +4" in term.text
    assert {n: p["bankroll"] for n, p in result["people"].items()} == {"Ann": 110, "Bob": 104}
    _conserved(session, 200)


def test_terminal_21_hot_seat_raises_bets() -> None:
    """terminal-21 (highest hand wins, ties to the dealer, bets may be raised).

    Deal: Ann 10♠ 9♥ (19), Bob 8♣ 7♦ (15), the dealer-style seat 5♠ 6♣ (11); dealer 10♥
    up, 7♠ in the hole. Ann raises by 5 (a raise above the table maximum and a
    malformed one are refused), stands; Bob stands; the third seat hits 4♦ and 2♥ to
    17 and stands; the dealer stands on 17. Ann's 19 is the highest hand: she wins
    her 15 chips; Bob's 15 and the seat's 17 lose to the dealer."""
    cards = "TS 8C 5S TH 9H 7D 6C 7S 4D 2H"
    term = Terminal(["10", "5", "+5", "+5000", "+x", "s", "s"])
    settings = play.Settings(rules="terminal-21", names="Ann,Bob", others="dealer", cards=cards,
                             rounds=1)
    session = play.Session(settings, term.read, term.write)
    assert session.rules.seats == 3  # the preset's three seats: two people and a dealer-style
    result = session.run()
    assert "Ann: raised by 5, the bet is now 15." in term.text
    assert "Cannot raise: raising by 5000" in term.text
    assert "'+x': type + and a whole number of chips" in term.text
    assert {n: p["bankroll"] for n, p in result["people"].items()} == {"Ann": 115, "Bob": 95}
    assert session.table.seats[2].bankroll == 99
    _conserved(session, 300)


def test_terminal_21_is_playable_with_its_defaults_and_notes_a_fallback_once() -> None:
    term = Terminal(["3"])  # one bet, then the input ends mid-round: the hands stand
    session = play.Session(play.Settings(rules="terminal-21", seats=3), term.read, term.write)
    result = session.run()
    assert "Traceback" not in term.text
    notes = [line for line in term.lines if line.startswith("note:")]
    from blackjack_env.agents.fixed import basic_seat_strategy

    try:
        basic_seat_strategy(session.rules)
    except ValueError:  # the library has no fallback: the game falls back and says so
        assert len(notes) == 1 and "basic strategy is not available" in notes[0]
    else:  # the library falls back itself: whatever it says is said once, not per seat
        assert len(notes) <= 1
    assert result["rounds"] == 1 and "end of input" in term.text
    _conserved(session, 300)


def _hint_values(text: str, n: int) -> tuple[str, dict[str, float], str]:
    """The source, the values and the best action of the n-th hint line."""
    lines = [line.strip() for line in text.splitlines() if "Values per unit bet (" in line]
    line = lines[n]
    source = line[line.index("(") + 1:line.index("): ")]
    body, best = line[line.index("): ") + 3:].split("; best ")
    evs = {a: float(v) for a, v in (item.split(" ") for item in body.split(", "))}
    return source, evs, best.split(".")[0]


def _named(evs: dict) -> dict[str, float]:
    return {a.name.lower(): round(v, 4) for a, v in evs.items()}


def test_hint_on_a_finite_shoe_gives_the_values_given_the_cards_that_remain() -> None:
    """Six decks, 8♠ 8♦ against a 6♥ (10♣ in the hole). The hint values every legal
    action off the 309 cards not seen (a full shoe less 8 8 6, counted here by hand)
    and names SPLIT; after the split, 8♠ 3♣ (the other 8 still waiting) off 308 cards,
    DOUBLE best. The split caveat is said once."""
    from blackjack_env.analysis.composition import action_values
    from blackjack_env.engine import preset

    term = Terminal(["10", "p", "d", "s"])
    settings = play.Settings(cards="8S 6H 8D TC 3C KH 2D 5C 9S", rounds=1, hint=True)
    play.Session(settings, term.read, term.write).run()
    rules = preset("vegas-strip")
    pool = [24] * 13
    for rank in (8, 8, 6):
        pool[rank - 1] -= 1
    source, evs, best = _hint_values(term.text, 0)
    assert "given the 309 cards not yet seen" in source and "composition-dependent" in source
    assert evs == _named(action_values(rules, pool, "8S 8D", "6")) and best == "SPLIT"
    pool[3 - 1] -= 1
    source, evs, best = _hint_values(term.text, 1)
    assert "given the 308 cards not yet seen" in source
    exact = action_values(rules, pool, "8S 3C", "6", hands=2, from_split=True, waiting=1)
    assert evs == _named(exact) and best == "DOUBLE"
    assert term.text.count("(Note: split:") == 1


def test_hint_on_an_infinite_deck_gives_the_exact_infinite_deck_values() -> None:
    """Infinite deck: 10♠ 6♦ (16) against a 10♥: the exact solution's values; late
    surrender is best."""
    from blackjack_env.analysis import solve, table_state
    from blackjack_env.engine import Rank, Table, preset

    term = Terminal(["10", "r"])
    settings = play.Settings(cards="TS TH 6D 9C", rounds=1, hint=True,
                             set=["decks=none", "seats_per_deck=none"])
    session = play.Session(settings, term.read, term.write)
    session.run()
    source, evs, best = _hint_values(term.text, 0)
    assert source == "exact, infinite deck"
    rules = session.rules
    table = Table(rules, seed=0)
    table.shoe.stack("TS TH 6D 9C")
    table.bet(0, 10)
    table.deal()
    assert table.current_hand.total == 16 and table.upcard.rank is Rank.TEN
    exact = solve(preset("vegas-strip", decks=None)).action_values(table_state(table))
    assert evs == _named(exact) and best == "SURRENDER"


def test_hint_under_rules_the_analysis_cannot_serve_says_why_and_play_goes_on() -> None:
    term = Terminal(["3", "s"])
    session = play.Session(play.Settings(rules="terminal-21", seats=3, hint=True, rounds=1),
                           term.read, term.write)
    result = session.run()
    notes = [line for line in term.lines if line.startswith("note: no hints:")]
    assert len(notes) == 1 and "highest-hand" in notes[0]
    assert "Values per unit bet" not in term.text and result["rounds"] == 1


def test_leaving_and_the_end_of_input_give_every_chip_back() -> None:
    """Ann leaves at her bet; Bob bets, then the input ends before Cy bets: Bob's bet,
    not yet dealt, goes back to his bankroll."""
    term = Terminal(["q", "7"])
    session = play.Session(play.Settings(people=3), term.read, term.write)
    result = session.run()
    assert [p.split(",")[0] for p in term.prompts] == ["Player 1", "Player 2", "Player 3"]
    assert "Player 1: leaving the table." in term.text
    assert {p["bankroll"] for p in result["people"].values()} == {100}
    assert result["rounds"] == 0
    _conserved(session, 300)


def test_seats_grow_to_seat_the_people_and_the_preset_limits_them() -> None:
    session = play.Session(play.Settings(seat=2, people=2), lambda p: "", lambda t: None)
    assert session.rules.seats == 4 and sorted(session.people) == [2, 3]
    assert sorted(session.players) == [0, 1]
    with pytest.raises(ValueError, match="the how-to-play rules seat at most 5 players"):
        play.Session(play.Settings(rules="how-to-play", people=6), lambda p: "", print)


# ------------------------------------------------------------------- simulate
def test_simulate_prints_a_95_percent_interval(monkeypatch, capsys) -> None:
    from blackjack_env.simulate import Settings, run

    result = run(Settings(policy="stand", rules="sutton-barto", hands=4096, tables=64,
                          rounds_per_table=64))
    out = capsys.readouterr().out
    half = NormalDist().inv_cdf(0.975) * result.std / result.hands ** 0.5
    lo, hi = result.ci95
    assert lo == pytest.approx(result.mean - half) and hi == pytest.approx(result.mean + half)
    assert "95% CI" in out and "99%" not in out
    assert f"[{lo:+.5f}, {hi:+.5f}]" in out


def test_analyze_writes_json_and_reads_a_card_value_mapping(tmp_path, capsys) -> None:
    from blackjack_env.commands.analyze import Settings, build_rules, run

    rules = build_rules(Settings(decks="inf", set=['card_values={"J": 1, "Q": 2, "K": 3}']))
    assert rules.card_values[10:] == (1, 2, 3) and rules.decks is None
    result = run(Settings(rules="sutton-barto", json=str(tmp_path / "edge.json"), quiet=True))
    assert (tmp_path / "edge.json").exists()
    assert result["expected_return"] == pytest.approx(result["infinite_deck_optimal_return"])
    assert "House edge" in capsys.readouterr().out


def test_analyze_skips_the_composition_figures_when_asked_or_on_an_infinite_deck(
        tmp_path, capsys) -> None:
    from blackjack_env.commands.analyze import Settings, run

    result = run(Settings(rules="vegas-strip", decks="1", quiet=True, composition=False,
                          json=str(tmp_path / "a.json")))
    assert result["composition"] is None and "--no-composition" in result[
        "composition_unavailable"]
    assert json.loads((tmp_path / "a.json").read_text())["composition"] is None
    out = capsys.readouterr().out
    assert "Composition-dependent" not in out and "Effects" not in out and "House edge" in out
    result = run(Settings(rules="vegas-strip", decks="inf", quiet=True))
    assert result["composition"] is None and "infinite deck" in result["composition_unavailable"]
    assert "Composition-dependent" not in capsys.readouterr().out


@pytest.mark.slow
def test_analyze_prints_and_writes_the_composition_return_and_effects_of_removal(
        tmp_path, capsys) -> None:
    """Six decks, S17, DAS, double any two, split to 4, no resplit of aces, no surrender,
    3:2, peek: Eric Farmer's combinatorial CDZ- return is -0.4029% (bjstrat.net); the
    issue asks for agreement within 0.005 points. The effects of removal have the known
    signs (small cards help the player, aces and tens hurt, the 5 most of all) and the
    four ten-valued ranks agree."""
    from blackjack_env.commands.analyze import Settings, run

    out_json = tmp_path / "cd.json"
    result = run(Settings(rules="vegas-strip", surrender="none", quiet=True,
                          json=str(out_json)))
    figures = json.loads(out_json.read_text())["composition"]
    assert figures == result["composition"]  # JSON floats round-trip exactly
    assert 100 * figures["expected_return"] == pytest.approx(-0.4029, abs=0.005)
    # composition-dependent play beats the total-dependent chart, by a few thousandths
    gain = figures["expected_return"] - result["expected_return"]
    assert 0 < 100 * gain < 0.02
    effects = figures["effects_of_removal"]
    assert list(effects) == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"]
    assert len({effects[r] for r in "TJQK"}) == 1
    assert all(effects[r] > 0 for r in "234567") and effects["A"] < 0 and effects["T"] < 0
    assert max(effects, key=effects.get) == "5"
    out = capsys.readouterr().out
    assert f"{100 * figures['expected_return']:+.4f}%" in out
    assert f"{100 * effects['5']:+6.3f}" in out and "Effects of removal" in out


def test_evaluate_composition_on_a_finite_shoe_shows_the_reference(capsys) -> None:
    """``evaluate composition --rules vegas-strip``: the composition fixed agent plays
    the 6-deck shoe; no exact grade there, so the reference beside the simulated return
    is the composition-dependent optimum of a fresh shoe, and the difference's interval
    is the simulation's shifted by it."""
    from blackjack_env.agents.grading import composition_reference
    from blackjack_env.commands import evaluate
    from blackjack_env.engine import preset

    settings = evaluate.Settings(agent="composition", rules="vegas-strip", hands=150)
    result = evaluate.run(settings)
    evaluate.print_table(result)
    out = capsys.readouterr().out
    assert result["agent_name"] == "composition" and result["exact"] is None
    ref = result["reference"]
    assert ref["expected_return"] == composition_reference(preset("vegas-strip"))[
        "expected_return"]
    assert ref["name"].startswith("composition-dependent optimum of a freshly shuffled shoe")
    sim = result["simulation"]
    assert ref["simulated_minus_reference"] == pytest.approx(
        sim["mean_return"] - ref["expected_return"])
    lo, hi = ref["simulated_minus_reference_ci95"]
    assert lo == pytest.approx(sim["ci95"][0] - ref["expected_return"])
    assert hi == pytest.approx(sim["ci95"][1] - ref["expected_return"])
    assert f"reference: {ref['name']} {ref['expected_return']:+.5f}" in out
    assert "simulated - reference" in out


def test_evaluate_on_an_infinite_deck_has_the_exact_grade_and_no_reference() -> None:
    from blackjack_env.commands import evaluate

    result = evaluate.run(evaluate.Settings(agent="composition", rules="vegas-strip",
                                            decks="inf", hands=50))
    assert result["reference"] is None
    assert result["exact"]["regret"] == pytest.approx(0.0, abs=1e-12)


def test_demo_plays_the_rounds_asked_for(capsys) -> None:
    from blackjack_env.commands.demo import Settings, run

    result = run(Settings(rounds=2, seats=2, cards="8S 5H TD 8C 6D 9S"))
    out = capsys.readouterr().out
    assert result["rounds"] == 2 and out.count("=== round ") == 2
    assert "seat 0 hand 1 <- 8♠" in out and "dealer shows 10♦" in out
    # never-bust: seat 0 stands on hard 16, seat 1 hits 11
    assert "seat 0 hand 1: STAND" in out and "seat 1 hand 1: HIT" in out
    # the header tells nothing of the round to come; totals come with the results
    first = out.split("=== round 1 ===\n")[1].splitlines()
    assert first[0] == "  seat 0 hand 1 <- 8♠"
    assert "  seat 0 hand 1: 8♠ 8♣ = 16, " in out
    lines = out.splitlines()
    dealer = next(k for k, line in enumerate(lines) if line.startswith("  dealer: "))
    assert lines[dealer - 1].startswith(("  dealer turns over", "  dealer draws"))


def test_console_commands_are_declared() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    for name, module in [("blackjack-play", "play"), ("blackjack-analyze", "analyze"),
                         ("blackjack-demo", "demo")]:
        assert f'{name} = "blackjack_env.commands.{module}:main"' in text
    assert os.path.exists(SCRIPTS / "play.py")


def test_the_one_text_renderer_names_seats_and_hides_the_hole_card() -> None:
    from blackjack_env.engine import Action, Table
    from blackjack_env.engine import preset as rules_of
    from blackjack_env.render import hand_text, render_ansi

    table = Table(rules_of("vegas-strip", seats=2), seed=1, bankroll=50)
    table.shoe.stack("AS 9C 6H 6D 9H KD")  # Ann A♠ 6♦ (soft 17), basic 9♣ 9♥; dealer 6♥ K♦
    table.bet(0, 5)
    table.bet(1, 2)
    table.deal()
    text = render_ansi(table, names={0: "Ann", 1: "basic"})
    assert "Seat 0 Ann: bankroll 45" in text and "Seat 1 basic: bankroll 48" in text
    assert "Dealer:  6♥ [??]   showing 6" in text and "K♦" not in text
    assert "Shoe:    306 of 312 cards left" in text
    assert hand_text(table.seats[0].hands[0]) == "A♠ 6♦ = soft 17"
    assert "<- to act" in text.splitlines()[4]  # Ann's hand, the first to act
    table.act(Action.HIT)  # draws from the shoe
    table.act(Action.STAND)
    table.act(Action.STAND)
    text = render_ansi(table, names={0: "Ann"}, learner=1)
    assert "Seat 1 (you)" in text and "6♥ K♦" in text  # the hole card is turned at the end


def test_a_missing_optional_package_is_one_line_naming_its_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command whose extra is not installed (here the web server's starlette) says which
    extra to install, in one line; an import error of anything else is a real bug and
    keeps its traceback."""
    from dataclasses import dataclass

    from blackjack_env.cli import run_command

    @dataclass
    class Settings:
        name: str = "starlette"

    def job(settings: Settings) -> None:
        raise ModuleNotFoundError(f"No module named {settings.name!r}", name=settings.name)

    assert run_command(Settings, job, []) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        'error: starlette is not installed: run pip install -e ".[web]"'
    ]
    with pytest.raises(ModuleNotFoundError):
        run_command(Settings, job, ["--name", "blackjack_env.nothing"])


@pytest.mark.parametrize(("argv", "says"), [
    (["--rounds", "abc"], "--rounds"),
    (["--nonsense"], "Unrecognized options: --nonsense"),
    (["--rounds"], "--rounds"),
])
def test_options_that_do_not_parse_are_one_error_line(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """tyro's boxed report of an option that does not parse becomes one line too."""
    from dataclasses import dataclass

    from blackjack_env.cli import run_command

    @dataclass
    class Settings:
        rounds: int = 3
        """rounds to play"""

    ran: list[Settings] = []
    assert run_command(Settings, ran.append, argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and says in err[0], err
    assert "Traceback" not in err[0] and "│" not in err[0]
    assert ran == []


def test_an_output_file_in_a_new_folder_is_written_there(tmp_path, monkeypatch, capsys) -> None:
    """Every command treats an output path alike: a missing folder is created (when the
    file is written, and one note line says so), as the training commands create their run
    folders."""
    out = tmp_path / "new" / "deeper" / "analysis.json"
    code = _run("analyze.py", ["--decks", "inf", "--json", str(out)], monkeypatch)
    assert code == 0, capsys.readouterr().err
    assert json.loads(out.read_text())["rules"]["decks"] is None
    err = capsys.readouterr().err
    assert f"note: created the folder {out.parent} for {out}" in err, err


#: A folder that exists and where no file can be made, whoever runs the test (root too:
#: permission bits do not stop root, the kernel's /proc does).
NO_FILES_HERE = "/proc"

# (script, arguments, the option the error line must name, with its path)
UNWRITABLE: list[tuple[str, list[str], str]] = [
    ("analyze.py", ["--decks", "inf", "--json", "/proc/x.json"], "--json /proc/x.json"),
    ("analyze.py", ["--decks", "inf", "--chart", "/proc/x.png"], "--chart /proc/x.png"),
    ("analyze.py", ["--decks", "inf", "--chart", "/proc/new/x.png"], "--chart /proc/new/x.png"),
    ("main.py", ["--hands", "10", "--eval-hands", "10", "--out", "/proc/nope"],
     "--out /proc/nope"),
    ("train.py", ["--hands", "10", "--out", "/proc/run"], "--out /proc/run"),
    ("evaluate.py", ["basic", "--hands", "10", "--out", "/proc/e.json"], "--out /proc/e.json"),
    ("chart.py", ["basic", "--png", "/proc/c.png"], "--png /proc/c.png"),
    ("chart.py", ["basic", "--out", "/proc/charts"], "--out /proc/charts"),
    ("-m blackjack_env.simulate", ["--hands", "10", "--json", "/proc/s.json"],
     "--json /proc/s.json"),
    ("bench_engine.py", ["--hands", "10", "--json", "/proc/b.json"], "--json /proc/b.json"),
]


@pytest.mark.skipif(not os.path.isdir(NO_FILES_HERE), reason="needs Linux's /proc")
@pytest.mark.parametrize(("script", "args", "names"), UNWRITABLE,
                         ids=[f"{s} {' '.join(a)}" for s, a, _ in UNWRITABLE])
def test_an_output_path_no_file_can_be_made_in_is_refused_before_any_work(
        script, args, names, tmp_path, monkeypatch, capsys) -> None:
    """Issue 33 (15): ``--json /proc/x.json`` failed only after the whole analysis (the
    results lost), ``blackjack-main --out /proc/nope`` after training, without naming the
    option. Every output path is tried before the work: one line naming the option, nothing
    printed before it, nothing written."""
    monkeypatch.chdir(tmp_path)
    code = _run(script, args, monkeypatch)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (code, out, err)
    assert len(lines) == 1 and lines[0].startswith(f"error: {names}"), err
    assert "no file can be made" in lines[0] or "no folder can be made" in lines[0], lines[0]
    assert out == "", out  # the work did not start
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("script", "args"), [
    ("analyze.py", ["--decks", "inf", "--chart", "{tmp}/chart.txt"]),
    ("analyze.py", ["--decks", "inf", "--chart", "{tmp}/chart"]),
    ("analyze.py", ["--decks", "inf", "--chart", "{tmp}/chart.svg"]),
    ("chart.py", ["basic", "--png", "{tmp}/chart.jpg"]),
])
def test_a_picture_named_for_another_format_is_refused(script, args, tmp_path, monkeypatch,
                                                       capsys) -> None:
    """Issue 33 (15): ``--chart x.txt`` wrote a PNG named ``.txt`` without a word. Pictures
    are PNG: a name that does not end in .png is refused before any work, naming it."""
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code = _run(script, args, monkeypatch)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, (code, err)
    assert lines[0].startswith(f"error: {args[-2]} {args[-1]}: the file is written as a PNG "
                               f"picture"), lines[0]
    assert "ending in .png" in lines[0] and out == ""
    assert list(tmp_path.iterdir()) == []


def test_a_png_in_a_new_folder_is_written_and_the_folder_announced(tmp_path, monkeypatch,
                                                                    capsys) -> None:
    """``--chart`` into a folder that does not exist: the folder is made when the picture is
    written, and one note line says so (it was made silently)."""
    pytest.importorskip("matplotlib")
    png = tmp_path / "new" / "chart.PNG"
    code = _run("analyze.py", ["--decks", "inf", "--quiet", "--chart", str(png)], monkeypatch)
    _out, err = capsys.readouterr()
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert err.strip().splitlines() == [f"note: created the folder {png.parent} for {png}"]
