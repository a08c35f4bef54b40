"""The JAX table's construction: read off the rule-table layer (no numpy env built), the
same argument names as the numpy envs, each wrong value's error naming its argument."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

from blackjack_env.engine.rules import preset
from blackjack_env.envs import EnvArgs
from blackjack_env.envs.vector import BlackjackVectorEnv
from blackjack_env.jax import BlackjackJax


def test_params_are_the_rule_tables_without_a_numpy_env(monkeypatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the JAX table built a numpy env")

    monkeypatch.setattr(BlackjackVectorEnv, "__init__", refuse)
    env = BlackjackJax(rules="vegas-strip", bet_sizes=(1, 2), bankroll=30, obs_mode="dict")
    t, p = env.tables, env.default_params
    assert np.array_equal(np.asarray(p.mask_sets)[np.asarray(p.mask_index)], t.mask_rows == 1)
    assert int(p.poor_play_offset) == t.poor_play_offset > 0
    assert np.array_equal(np.asarray(p.outcome_table), t.outcome_table)
    assert np.asarray(p.payouts).dtype == np.float32
    np.testing.assert_array_equal(np.asarray(p.payouts), t.payouts.astype(np.float32))
    assert env.action_names == ["STAND", "HIT", "DOUBLE", "SPLIT", "SURRENDER", "BET_1", "BET_2"]


def test_spaces_and_names_are_the_numpy_envs() -> None:
    for kwargs in ({"rules": "sutton-barto", "obs_mode": "tuple"},
                   {"rules": "vegas-strip", "obs_mode": "dict", "insurance_decisions": True}):
        jax_env = BlackjackJax(**kwargs)
        ref = BlackjackVectorEnv(1, **kwargs)
        assert jax_env.gymnasium_observation_space == ref.single_observation_space
        assert jax_env.gymnasium_action_space == ref.single_action_space
        assert jax_env.action_names == ref.action_names


def test_same_names_as_the_numpy_envs() -> None:
    assert BlackjackJax(decks=2).rules.decks == 2
    assert BlackjackJax(decks=None).config.infinite
    assert BlackjackJax(rules=preset("vegas-strip", decks=4)).rules.decks == 4
    whole = BlackjackJax.from_args(EnvArgs(rules="vegas-strip", obs_mode="vector", decks=1))
    keywords = BlackjackJax(rules="vegas-strip", obs_mode="vector", decks=1)
    assert whole.settings == keywords.settings and whole.config == keywords.config
    three = BlackjackJax.from_args(EnvArgs(rules="vegas-strip"), seats_per_table=3)
    assert three.seats == 3 and three.obs_mode == "multidiscrete"
    # the numpy envs' default obs_mode is "multidiscrete"; the JAX table's "features"
    assert BlackjackJax().obs_mode == "features"


@pytest.mark.parametrize(
    ("name", "value"),
    [("seats_per_table", 0), ("seats_per_table", 8), ("num_seats", 9), ("decks", 0),
     ("bet", -1), ("bet_sizes", "big"), ("bankroll", -1), ("rounds_per_episode", 0),
     ("illegal_action", "raise"), ("illegal_penalty", float("nan")), ("render_mode", "human"),
     ("obs_mode", "pixels"), ("insurance_decisions", 1)],
    ids=lambda v: str(v),
)
def test_each_wrong_argument_is_named(name: str, value: object) -> None:
    with pytest.raises(ValueError) as err:
        BlackjackJax(**{name: value})
    assert name in str(err.value), str(err.value)
