"""The Hi-Lo counter on scripted shoes, its bet spread, and the counting agent in the env."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import blackjack_env  # noqa: F401
from blackjack_env.agents.counting import (
    BetSpread,
    HiLoCounter,
    hilo_tag,
    running_count_from_remaining,
)
from blackjack_env.agents.fixed import fixed_agent
from blackjack_env.engine import Action, Rank, Shoe, Table, parse_cards, preset


def test_tags():
    assert [hilo_tag(r) for r in Rank] == [-1, 1, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, -1]
    with pytest.raises(ValueError, match="rank"):
        hilo_tag(14)


def test_running_and_true_count_on_a_scripted_shoe():
    """Twelve stacked cards drawn from a 2-deck shoe, counted one by one.

    Hand count: 5 6 2 3 4 (+5), K A T (-3), 7 8 9 (0), Q (-1) -> +1 after 12 cards;
    92 cards left = 92/52 decks, so the true count is 52/92.
    """
    shoe = Shoe(2, np.random.default_rng(0), penetration=0.75)
    shoe.stack("5C 6D 2H 3S 4C KD AH TS 7C 8D 9H QS")
    counter = HiLoCounter(2)
    expected_running = [1, 2, 3, 4, 5, 4, 3, 2, 2, 2, 2, 1]
    for want in expected_running:
        counter.observe(shoe.draw())
        assert counter.running_count == want
    assert counter.cards_seen == 12 and counter.cards_left == 92
    assert counter.true_count == pytest.approx(1 * 52 / 92)
    # the same count from the cards left in the shoe
    assert running_count_from_remaining(shoe.remaining_by_rank(), 2) == 1


def test_counter_follows_a_table_round_and_counts_the_hole_card_once_turned():
    rules = preset("vegas-strip", decks=1, seats=2)
    table = Table(rules, seed=3, bankroll=100)
    # seat0 5, seat1 6, up T, seat0 4, seat1 K, hole 3; seat0 hits 2 then stands; seat1 stands;
    # dealer 13 draws 9 -> 22
    table.shoe.stack("5C 6D TH 4S KC 3D 2H 9S")
    counter = HiLoCounter(1)
    table.bet(0, 1)
    table.bet(1, 1)
    table.deal()
    counter.observe_table(table)
    assert counter.running_count == 1 + 1 - 1 + 1 - 1  # hole card (3) not seen yet
    assert counter.cards_seen == 5
    table.act(Action.HIT)
    counter.observe_table(table)
    counter.observe_table(table)  # reading twice counts nothing twice
    assert counter.running_count == 2 and counter.cards_seen == 6
    table.act(Action.STAND)
    table.act(Action.STAND)
    counter.observe_table(table)
    assert counter.cards_seen == 8  # the turned hole card and the dealer's draw
    assert counter.running_count == 2 + 1 + 0
    assert counter.true_count == pytest.approx(3 * 52 / 44)
    assert running_count_from_remaining(table.shoe.remaining_by_rank(), 1) == 3
    synced = HiLoCounter(1)
    synced.sync_with_table(table)
    assert (synced.running_count, synced.cards_seen) == (3, 8)


def test_sync_with_table_leaves_the_face_down_hole_card_unseen():
    rules = preset("vegas-strip", decks=1)
    table = Table(rules, seed=3, bankroll=100)
    table.shoe.stack("5C TH 4S 2D")  # player 5, up T, player 4, hole 2 (face down)
    table.bet(0, 1)
    table.deal()
    counter = HiLoCounter(1)
    counter.sync_with_table(table)
    assert (counter.running_count, counter.cards_seen) == (1 - 1 + 1, 3)
    with pytest.raises(ValueError, match="1-deck"):
        HiLoCounter(1).sync_with_table(Table(preset("vegas-strip", decks=2), seed=0))


def test_counter_resets_on_reshuffle():
    rules = preset("vegas-strip", decks=1, penetration=0.1)
    table = Table(rules, seed=1, bankroll=None)
    counter = HiLoCounter(1)
    reshuffles = 0
    for _ in range(10):
        table.bet(0, 1)
        table.deal()
        while table.to_act is not None:
            table.act(Action.STAND if table.phase.value == "player_turns" else Action.DECLINE)
        counter.observe_table(table)
        if table.new_round():
            reshuffles += 1
            counter.observe_table(table)
            assert counter.running_count == 0 and counter.cards_seen == 0
    assert reshuffles >= 2


def test_bet_spread():
    spread = BetSpread()
    units = [spread.units_for(tc) for tc in (-3, 0, 1.99, 2, 2.5, 3, 4, 9)]
    assert units == [1, 1, 1, 2, 2, 4, 8, 8]
    assert spread.bet(5.0, base=10, bankroll=35, table_max=500) == 35
    assert spread.bet(5.0, base=10, table_max=50) == 50
    with pytest.raises(ValueError, match="thresholds"):
        BetSpread(units=(1, 2), thresholds=(1.0, 2.0))
    with pytest.raises(ValueError, match="increasing"):
        BetSpread(units=(1, 2, 4), thresholds=(3.0, 2.0))
    with pytest.raises(ValueError, match="finite shoe"):
        HiLoCounter(0)


def test_counting_agent_bets_by_the_true_count_in_the_env():
    """With 10 small cards dealt first the count is high: the counter raises its bet."""
    env = gym.make("blackjack_env/Blackjack-v0", rules=preset("vegas-strip", decks=1),
                   obs_mode="dict", bet_sizes=(1, 2, 4, 8), rounds_per_episode=20)
    agent = fixed_agent("counter", env)
    obs, info = env.reset(seed=5)
    first_bet = agent.act(obs, info["action_mask"])
    assert env.unwrapped.action_names[first_bet] == "BET_1"  # fresh shoe: count 0
    small = "2C 3C 4C 5C 6C 2D 3D 4D 5D 6D 2H 3H"
    obs, info = env.reset(seed=5, options={"cards": small})
    bets = []
    for _ in range(60):
        action = agent.act(obs, info["action_mask"])
        if env.unwrapped.table.phase.value == "betting":
            bets.append((env.unwrapped.action_names[action], agent.counter.true_count))
            # its count is the env's own (the dict observation's, clipped to +-20)
            mine = min(20.0, max(-20.0, agent.counter.true_count))
            assert mine == pytest.approx(float(obs["true_count"][0]), abs=1e-5)
        obs, _, term, trunc, info = env.step(action)
        if term or trunc:
            break
    high = [name for name, tc in bets if tc >= 4]
    assert high and all(name == "BET_8" for name in high)
    low = [name for name, tc in bets if tc < 2]
    assert all(name == "BET_1" for name in low)
    assert parse_cards(small)
