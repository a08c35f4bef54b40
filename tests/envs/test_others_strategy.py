"""A seat strategy (``others``) that chooses an illegal action is named in the error.

The table's own ``IllegalActionError`` ("SPLIT is not allowed for seat 1 ...") raised
from inside the learner's legal ``step()`` or from ``reset()`` blamed the learner and
named no strategy; the envs now raise :class:`~blackjack_env.strategies.StrategyError`
naming the strategy, the seat, its choice and what it may choose, and refuse to go on
until ``reset()``. Scripted deals (a stacked shoe) fix the hands the messages show.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded

import blackjack_env  # noqa: F401  (registers the ids)
from blackjack_env.engine import Action, Rules, Table
from blackjack_env.engine.errors import IllegalActionError
from blackjack_env.strategies import (
    StrategyError,
    play_until,
    register_strategy,
    stand_always,
)

ENV_ID = "blackjack_env/Blackjack-v0"
#: seat 0: T 7 (17); seat 1: 9 5 (14, no pair); dealer: 8 up, 6 in the hole
CARDS = "TS 9H 8D 7C 5S 6H"


def always_split(table: Table) -> Action:
    """A broken strategy: splits whatever it holds."""
    return Action.SPLIT


def test_a_strategy_after_the_learner_is_named_not_the_learners_step() -> None:
    env = gym.make(ENV_ID, num_seats=2, seat=0, others=always_split)
    _obs, info = env.reset(seed=0, options={"cards": CARDS})
    mask = info["action_mask"].copy()
    with pytest.raises(StrategyError) as caught:
        env.step(int(Action.STAND))  # legal for the learner
    message = str(caught.value)
    assert not isinstance(caught.value, IllegalActionError)
    assert isinstance(caught.value, ValueError)
    assert message.startswith("the others strategy always_split chose SPLIT for seat 1 hand 0")
    assert "[9H 5S]" in message
    assert "it may choose STAND, HIT, DOUBLE, SURRENDER" in message
    assert "The learner's call was legal" in message and "reset()" in message
    # what the learner was last told stands; the env asks for a reset to go on
    np.testing.assert_array_equal(env.unwrapped.action_masks(), mask.astype(bool))
    with pytest.raises(ResetNeeded):
        env.step(int(Action.STAND))


def test_a_strategy_before_the_learner_fails_in_reset_by_name() -> None:
    env = gym.make(ENV_ID, num_seats=2, seat=1, others=always_split)
    with pytest.raises(StrategyError, match=r"^the others strategy always_split chose SPLIT "
                                            r"for seat 0 hand 0 \(\[TS 7C\] 17\)"):
        env.reset(seed=0, options={"cards": CARDS})


def test_a_registered_strategy_is_named_by_its_name() -> None:
    register_strategy("test-always-split", lambda rules=None, seed=None: always_split)
    env = gym.make(ENV_ID, num_seats=2, seat=0, others="test-always-split")
    env.reset(seed=0, options={"cards": CARDS})
    with pytest.raises(StrategyError, match=r"the others strategy 'test-always-split' chose"):
        env.step(int(Action.STAND))


def test_an_answer_that_is_no_action_is_named_too() -> None:
    env = gym.make(ENV_ID, num_seats=2, seat=0, others=lambda table: "hit")
    env.reset(seed=0, options={"cards": CARDS})
    with pytest.raises(StrategyError, match=r"<lambda> chose 'hit' for seat 1"):
        env.step(int(Action.STAND))


def test_a_good_strategy_still_plays() -> None:
    env = gym.make(ENV_ID, num_seats=2, seat=0, others=stand_always)
    env.reset(seed=0, options={"cards": CARDS})
    _obs, _reward, terminated, _truncated, info = env.step(int(Action.STAND))
    assert terminated and info["settlement"] is not None


def test_the_multiagent_table_names_its_fixed_seats_strategy() -> None:
    pytest.importorskip("pettingzoo")
    from blackjack_env.envs.multiagent import env as aec_env

    aec = aec_env(num_seats=2, others={1: always_split})
    aec.reset(seed=0, options={"cards": CARDS})
    with pytest.raises(StrategyError, match=r"the others strategy always_split chose SPLIT "
                                            r"for seat 1 hand 0"):
        aec.step(int(Action.STAND))


def test_play_until_names_the_strategy() -> None:
    rules = Rules(decks=1, seats=2)
    table = Table(rules, np.random.default_rng(0))
    table.shoe.stack("TS 9H 8D 7C 5S 6H")
    table.bet(0, 1)
    table.bet(1, 1)
    table.deal()
    with pytest.raises(StrategyError, match=r"strategy always_split chose SPLIT for seat 0"):
        play_until(table, {0: always_split, 1: stand_always})
