"""``basic`` under rules the exact analysis does not serve (the seed preset terminal-21):
it plays the chart of the nearest rules it serves and says so."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

import blackjack_env
from blackjack_env.analysis.strategy import BasicStrategy, nearest_supported_rules
from blackjack_env.engine.rules import Rules, Settlement, SplitBy, preset

gym.register_envs(blackjack_env)


def test_replace_decks_none_clears_seats_per_deck() -> None:
    rules = preset("terminal-21")
    assert rules.seats_per_deck == 3
    infinite = rules.replace(decks=None)
    assert infinite.decks is None and infinite.seats_per_deck is None
    with pytest.raises(ValueError, match="seats_per_deck needs a finite shoe"):
        rules.replace(decks=None, seats_per_deck=3)  # asked for in the same call: refused
    assert preset("terminal-21", decks=None).shoe_decks is None


def test_nearest_supported_rules_changes_only_what_is_needed() -> None:
    vegas = preset("vegas-strip")
    assert nearest_supported_rules(vegas) == (vegas, None)
    near, reason = nearest_supported_rules(preset("terminal-21"))
    assert near == preset("terminal-21").replace(settlement="dealer", bet_raising=False)
    assert reason == "settlement='highest-hand' -> 'dealer', bet_raising=True -> False"
    odd = Rules(split_by="value", card_values={"J": 1})
    near, reason = nearest_supported_rules(odd)
    assert near.split_by is SplitBy.RANK and reason == "split_by='value' -> 'rank'"


def test_basic_strategy_falls_back_and_says_so() -> None:
    with pytest.warns(UserWarning, match="nearest rules it serves \\(settlement="):
        strategy = BasicStrategy(preset("terminal-21"))
    assert strategy.fallback is not None and "highest-hand" in strategy.fallback
    assert strategy.rules.settlement is Settlement.DEALER
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert BasicStrategy(preset("vegas-strip")).fallback is None


def test_seat_basic_under_terminal_21_plays_infinite_deck() -> None:
    """The env with other seats playing ``basic`` under terminal-21's other rules (an
    infinite deck, so the chart is instant): every round is played to the end."""
    rules = preset("terminal-21", decks=None)
    with pytest.warns(UserWarning, match="basic strategy"):
        env = gym.make("blackjack_env/Blackjack-v0", rules=rules, num_seats=3, seat=1,
                       others="basic", rounds_per_episode=30)
        _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(400):
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, term, trunc, info = env.step(a)
        if term or trunc:
            break
    assert trunc and info["round"] == 30


@pytest.mark.slow
def test_seed_preset_terminal_21_is_playable_with_defaults() -> None:
    """The real preset (one deck per three seats): the finite chart takes a while."""
    with pytest.warns(UserWarning, match="basic strategy"):
        env = gym.make("blackjack_env/Blackjack-v0", rules="terminal-21", num_seats=3,
                       others="basic", rounds_per_episode=5)
    env.reset(seed=0)
    for _ in range(100):
        _, _, term, trunc, _ = env.step(0)
        if term or trunc:
            break
    assert trunc
