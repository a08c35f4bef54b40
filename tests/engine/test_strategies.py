"""Fixed seat strategies: dealer-style, never-bust, stand, random legal, the registry."""

from __future__ import annotations

import subprocess
import sys

import pytest

from blackjack_env.engine import Action, Phase, Rules, Table
from blackjack_env.strategies import (
    RandomLegal,
    dealer_style,
    make_strategy,
    never_bust,
    play_until,
    register_strategy,
    stand_always,
    strategy_names,
)

from .helpers import scripted

S, H, D, P = Action.STAND, Action.HIT, Action.DOUBLE, Action.SPLIT


@pytest.mark.parametrize(
    ("cards", "action"),
    [
        ("TS 6D 6C TD", H),  # 16 < 17: hit
        ("TS 6D 7C TD", S),  # hard 17: stand
        ("AS 6D 5C TD", H),  # soft 16: hit
        ("AS 6D 6C TD", S),  # soft 17: stand
    ],
)
def test_dealer_style(cards: str, action: Action) -> None:
    assert dealer_style(scripted(Rules(), cards, 10)) is action


@pytest.mark.parametrize(
    ("cards", "action"),
    [
        ("5S 6D 6C TD", H),  # hard 11: no card can bust it
        ("5S 6D 7C TD", S),  # hard 12: a ten would bust it
        ("AS 6D 7C TD", H),  # soft 18: one card cannot bust a soft hand
        ("AS 6D 8C TD", S),  # soft 19: stops
    ],
)
def test_never_bust(cards: str, action: Action) -> None:
    assert never_bust(scripted(Rules(), cards, 10)) is action


def test_never_bust_never_busts() -> None:
    table = Table(Rules(seats=3), seed=5)
    for _ in range(200):
        for seat in range(3):
            table.bet(seat, 1)
        table.deal()
        play_until(table, dict.fromkeys(range(3), never_bust))
        for seat in table.seats:
            assert all(not h.bust for h in seat.hands)
        table.new_round()


def test_fixed_strategies_decline_insurance() -> None:
    table = scripted(Rules(), "TS AD 6C 7H", 10)
    assert table.phase is Phase.INSURANCE
    for strategy in (dealer_style, never_bust, stand_always):
        assert strategy(table) is Action.DECLINE


def test_stand_always() -> None:
    assert stand_always(scripted(Rules(), "5S 6D 6C TD", 10)) is S


def test_random_legal_is_legal_and_seeded() -> None:
    table = scripted(Rules(), "8S 6D 8C TD", 10)
    legal = table.legal_actions()
    a = RandomLegal(seed=3)
    b = RandomLegal(seed=3)
    picks_a = [a(table) for _ in range(50)]
    picks_b = [b(table) for _ in range(50)]
    assert picks_a == picks_b
    assert set(picks_a) == set(legal)  # 50 uniform picks over 4 actions cover them all
    # it never draws from the table's own generator
    state = str(table.rng.bit_generator.state)
    a(table)
    assert str(table.rng.bit_generator.state) == state


def test_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    import blackjack_env.strategies as strategies

    # registrations made here are undone after the test
    monkeypatch.setattr(strategies, "_REGISTRY", dict(strategies._REGISTRY))
    assert {"dealer", "never-bust", "random", "stand"} <= set(strategy_names())
    assert make_strategy("dealer") is dealer_style
    assert isinstance(make_strategy("random", seed=1), RandomLegal)

    def custom(table: Table) -> Action:
        return Action.STAND

    assert make_strategy(custom) is custom
    register_strategy("custom-test", lambda rules=None, seed=None: custom)
    assert make_strategy("custom-test") is custom
    with pytest.raises(ValueError, match=r"unknown strategy 'nope'.*dealer"):
        make_strategy("nope")


def test_play_until_stops_at_a_seat() -> None:
    # seat 0: TS 9S (19), seat 1: 5C 6C (11); dealer 7D + TD
    table = scripted(Rules(seats=2), "TS 5C 7D 9S 6C TD", {0: 10, 1: 10})
    play_until(table, {0: dealer_style}, stop_seat=1)
    assert table.to_act == (1, 0)
    with pytest.raises(KeyError):
        play_until(table, {0: dealer_style})


def test_basic_and_composition_registered_without_importing_the_analysis() -> None:
    # the registry names them explicitly; the analysis loads only when one is made
    code = (
        "import sys; from blackjack_env.strategies import strategy_names, make_strategy;"
        "names = strategy_names();"
        "assert 'basic' in names and 'composition' in names, names;"
        "assert 'blackjack_env.analysis' not in sys.modules;"
        "from blackjack_env.engine import Rules;"
        "s = make_strategy('basic', Rules(decks=None));"
        "assert type(s).__name__ == 'BasicStrategy', type(s)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
