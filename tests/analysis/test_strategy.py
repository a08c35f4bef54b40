"""The ``basic`` seat strategy at the engine's table: registration, insurance phase,
surrender, doubles and splits the rules allow, legality over many rounds."""

from __future__ import annotations

import pytest

from blackjack_env.analysis import BasicStrategy, table_state
from blackjack_env.engine import Action, Phase, Rules, Table, preset
from blackjack_env.strategies import make_strategy, strategy_names

INF = Rules(decks=None)


def dealt(rules: Rules, cards: str) -> Table:
    """One seat, shoe stacked in deal order: player, upcard, player, hole, then draws."""
    table = Table(rules, seed=0)
    table.shoe.stack(cards)
    table.bet(0, 2)
    table.deal()
    return table


def test_registered_under_basic() -> None:
    assert "basic" in strategy_names()
    strategy = make_strategy("basic", INF)
    assert isinstance(strategy, BasicStrategy)


def test_declines_insurance_and_even_money() -> None:
    rules = preset("vegas-strip", decks=None, seats_per_deck=None)
    table = dealt(rules, "TS AH 6D 9C")
    assert table.phase is Phase.INSURANCE
    assert Action.INSURE in table.legal_actions()
    assert make_strategy("basic", rules)(table) is Action.DECLINE
    table = dealt(rules, "AS AH KD 9C")  # a natural against an ace: even money offered
    assert table.phase is Phase.INSURANCE
    assert make_strategy("basic", rules)(table) is Action.DECLINE


def test_early_surrender_before_the_peek() -> None:
    rules = Rules(decks=None, surrender="early")
    strategy = make_strategy("basic", rules)
    table = dealt(rules, "TS AH 6D 9C")  # 16 v A
    assert table.phase is Phase.INSURANCE and Action.SURRENDER in table.legal_actions()
    assert table_state(table).pre_peek
    assert strategy(table) is Action.SURRENDER
    table = dealt(rules, "TS AH 9D 9C")  # 19 v A: keep playing
    assert strategy(table) is Action.DECLINE


def test_late_surrender_in_play() -> None:
    rules = preset("vegas-strip", decks=None, seats_per_deck=None)
    table = dealt(rules, "TS TH 6D 7C")  # 16 v T, dealer has no blackjack
    assert table.phase is Phase.PLAYER_TURNS
    assert make_strategy("basic", rules)(table) is Action.SURRENDER


def test_doubles_and_soft_double_fallback() -> None:
    strategy = make_strategy("basic", INF)
    table = dealt(INF, "6S 6H 5D 9C")  # 11 v 6
    assert strategy(table) is Action.DOUBLE
    table = dealt(INF, "AS 3H 7D 9C 2C")  # soft 18 v 3: double (Ds)
    assert strategy(table) is Action.DOUBLE
    table = dealt(INF, "AS 3H 4D 9C 3C")  # soft 15 v 3: hit, to A,4,3 = soft 18 (3 cards)
    assert strategy(table) is Action.HIT
    table.act(Action.HIT)
    assert table.current_hand.total == 18 and table.current_hand.soft
    assert strategy(table) is Action.STAND  # Ds without the double: stand


@pytest.mark.parametrize("das, want", [(True, Action.DOUBLE), (False, Action.HIT)])
def test_split_then_double_after_split_only_when_allowed(das: bool, want: Action) -> None:
    rules = INF.replace(double_after_split=das)
    strategy = make_strategy("basic", rules)
    table = dealt(rules, "8S 6H 8D 9C 3C")  # 8,8 v 6; first split hand gets a 3
    assert strategy(table) is Action.SPLIT
    table.act(Action.SPLIT)
    hand = table.current_hand
    assert hand.total == 11 and hand.from_split
    assert strategy(table) is want
    assert want in table.legal_actions()


def test_resplit_aces_offered_and_taken() -> None:
    rules = INF.replace(resplit_aces=True)
    strategy = make_strategy("basic", rules)
    table = dealt(rules, "AS 6H AD 9C AC 9D 9H 9S")
    assert strategy(table) is Action.SPLIT
    table.act(Action.SPLIT)
    assert table.legal_actions() == (Action.STAND, Action.SPLIT)
    assert strategy(table) is Action.SPLIT


def test_gymnasium_rules_only_hit_or_stand() -> None:
    rules = preset("gymnasium")
    strategy = make_strategy("basic", rules)
    table = dealt(rules, "AS 6H TD 9C")  # a natural may be hit under these rules: stand
    assert table.legal_actions() == (Action.STAND, Action.HIT)
    assert strategy(table) is Action.STAND


@pytest.mark.parametrize(
    "rules",
    [
        preset("vegas-strip", seats=3, decks=None, seats_per_deck=None),
        preset("european-no-hole-card", seats=3, decks=None),
        Rules(decks=None, seats=3, surrender="early", resplit_aces=True, hit_split_aces=True),
        Rules(decks=None, seats=2, split_by="value", split_bet="halve", max_split_hands=2),
        preset("sutton-barto"),
        preset("how-to-play", decks=None, penetration=None),
        Rules(decks=2, seats=3, surrender="late", dealer_hits_soft_17=True),
    ],
    ids=["strip", "enhc", "early-rsa-hsa", "halve", "sab", "paid-at-deal", "2deck"],
)
def test_plays_only_legal_actions(rules: Rules) -> None:
    table = Table(rules, seed=7, bankroll=None)
    strategy = make_strategy("basic", rules)
    for _ in range(400):
        for seat in range(rules.seats):
            table.bet(seat, 2)
        table.deal()
        while table.to_act is not None:
            action = strategy(table)
            assert action in table.legal_actions()
            table.act(action)
        table.new_round()


def test_explicit_chart_is_used() -> None:
    from blackjack_env.analysis import solve

    chart = solve(INF.replace(dealer_hits_soft_17=True)).chart
    strategy = BasicStrategy(chart=chart)
    table = dealt(INF, "6S AH 5D 9C")  # 11 v A: the H17 chart doubles, the S17 one hits
    assert strategy(table) is Action.DECLINE  # insurance declined first
    table.act(Action.DECLINE)
    assert strategy(table) is Action.DOUBLE
    assert make_strategy("basic", INF)(table) is Action.HIT


def test_unsupported_rules_fall_back_when_the_strategy_is_made() -> None:
    # (the fallback itself is tested in tests/engine/test_basic_fallback.py)
    with pytest.warns(UserWarning, match="settlement='highest-hand' -> 'dealer'"):
        strategy = make_strategy("basic", preset("terminal-21"))
    assert "highest-hand" in strategy.fallback
