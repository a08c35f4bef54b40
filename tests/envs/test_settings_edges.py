"""The edges of the env settings, in every env: a flag of the wrong type, ``num_seats``
out of range, a bad ``render_mode`` through ``gym.make``, bad reset options of the
multi-agent envs, and the AEC table's ``state_space`` (PettingZoo's ``state_test``)."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import blackjack_env  # noqa: F401  (registers the ids)
from blackjack_env.envs.vector import BlackjackVectorEnv

pytest.importorskip("pettingzoo")

from blackjack_env.envs.multiagent import env as aec_env
from blackjack_env.envs.multiagent import parallel_env, raw_env

ENV_ID = "blackjack_env/Blackjack-v0"

#: every env, built from keyword arguments
MAKERS: dict[str, Callable[..., Any]] = {
    "single": lambda **kw: gym.make(ENV_ID, **kw),
    "batched": lambda **kw: BlackjackVectorEnv(2, **kw),
    "make_vec": lambda **kw: gym.make_vec(ENV_ID, num_envs=2, **kw),
    "aec": lambda **kw: raw_env(**kw),
    "parallel": lambda **kw: parallel_env(**kw),
}

#: the bool flags each env takes
FLAGS = {
    "single": ("insurance_decisions", "info_cards"),
    "batched": ("insurance_decisions", "info_cards"),
    "make_vec": ("insurance_decisions", "info_cards"),
    "aec": ("insurance_decisions",),
    "parallel": ("insurance_decisions",),
}


@pytest.mark.parametrize("value", ["no", "False", 0, 1, None, np.int64(1)], ids=repr)
@pytest.mark.parametrize(("kind", "flag"), [(k, f) for k, fs in FLAGS.items() for f in fs])
def test_a_flag_that_is_not_a_bool_is_refused_naming_it(kind: str, flag: str, value) -> None:
    # 'no' used to switch insurance decisions on (its truth value)
    given = re.escape(f"{flag}={value!r}")
    with pytest.raises(ValueError, match=f"^{given} must be True or False$"):
        MAKERS[kind](**{flag: value})


@pytest.mark.parametrize("kind", list(MAKERS))
def test_flags_take_python_and_numpy_bools(kind: str) -> None:
    on = MAKERS[kind](insurance_decisions=np.bool_(True))
    settings = on.unwrapped.settings if kind == "single" else (
        on.aec_env.settings if kind == "parallel" else on.settings)
    assert settings.insurance_decisions is True
    off = MAKERS[kind](insurance_decisions=False)
    settings = off.unwrapped.settings if kind == "single" else (
        off.aec_env.settings if kind == "parallel" else off.settings)
    assert settings.insurance_decisions is False


@pytest.mark.parametrize("kind", ["single", "aec", "parallel"])
@pytest.mark.parametrize("value", [0, -1, 8])
def test_num_seats_out_of_range_is_named_as_given(kind: str, value: int) -> None:
    with pytest.raises(
        ValueError, match=f"^num_seats={value} is not allowed; these rules seat 1 to 7 players$"
    ):
        MAKERS[kind](num_seats=value)


def test_num_seats_above_a_presets_limit_says_how_to_raise_it() -> None:
    with pytest.raises(ValueError, match=r"^num_seats=3 is not allowed; these rules seat 1 to 1 "
                       r"players \(for more, .*max_seats=3\)\)$"):
        gym.make(ENV_ID, rules="sutton-barto", num_seats=3)


@pytest.mark.parametrize("value", [1, 2.5, ["ansi"], b"ansi"], ids=repr)
def test_gym_make_with_a_render_mode_that_is_not_text_is_a_clear_error(value) -> None:
    # gymnasium.make itself called value.endswith(...) here (an AttributeError)
    with pytest.raises(ValueError, match=r"^render_mode=.* is not allowed; choose None or one "
                       r"of 'ansi', 'rgb_array', 'human'$"):
        gym.make(ENV_ID, render_mode=value)
    with pytest.raises(ValueError, match="render_mode="):
        raw_env(render_mode=value)


def test_gym_make_render_modes_still_work() -> None:
    assert gym.make(ENV_ID, render_mode="ansi").render_mode == "ansi"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gym.make(ENV_ID, render_mode="rgb_array_list")  # gymnasium's RenderCollection
        env.reset(seed=0)
        assert isinstance(env.render(), list)
        with pytest.raises(ValueError, match="render_mode='pixels' is not allowed"):
            gym.make(ENV_ID, render_mode="pixels")


@pytest.mark.parametrize("kind", ["aec", "parallel"])
@pytest.mark.parametrize(
    ("options", "match"),
    [
        ([("cards", "AS")], "^options must be a dict, got list$"),
        (5, "^options must be a dict, got int$"),
        ({"card": "AS KH"}, "^unknown reset option\\(s\\) 'card'; options are 'cards'$"),
        ({"cards": "AS", "seed": 3}, "^unknown reset option\\(s\\) 'seed'; options are 'cards'$"),
    ],
    ids=["list", "int", "typo", "extra"],
)
def test_multiagent_reset_refuses_bad_options_and_changes_nothing(kind, options, match) -> None:
    env = MAKERS[kind](num_seats=2, rounds=3)
    env.reset(seed=0)
    aec = env.aec_env if kind == "parallel" else env
    before = (list(aec.agents), aec.agent_selection, aec.table.shoe.remaining,
              list(aec.table.events))
    with pytest.raises(ValueError, match=match):
        env.reset(seed=1, options=options)
    assert (list(aec.agents), aec.agent_selection, aec.table.shoe.remaining,
            list(aec.table.events)) == before


@pytest.mark.parametrize("kind", ["aec", "parallel"])
def test_pettingzoo_signature_probe_is_ignored_with_a_warning(kind) -> None:
    env = MAKERS[kind](num_seats=2)
    with pytest.warns(UserWarning, match="PettingZoo's API test probe"):
        env.reset(seed=0, options={"options": 1})
    env.reset(seed=0, options={"cards": "TS 9H 7C 6D 7S TH"})  # the real option works
    aec = env.aec_env if kind == "parallel" else env
    assert [str(c) for c in aec.table.seats[0].hands[0].cards] == ["TS", "6D"]


@pytest.mark.parametrize("kwargs", [{}, {"num_seats": 4, "others": {1: "basic"}, "rounds": 3},
                                    {"obs_mode": "dict", "num_seats": 2}])
def test_pettingzoo_state_test_passes_and_both_apis_give_one_state(kwargs) -> None:
    from pettingzoo.test import state_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state_test(aec_env(**kwargs), parallel_env(**kwargs), num_cycles=10)
    aec, par = raw_env(**kwargs), parallel_env(**kwargs)
    assert aec.state_space == par.state_space
    aec.reset(seed=3)
    par.reset(seed=3)
    assert np.array_equal(aec.state(), par.state())
    assert aec.state_space.contains(aec.state())
    with pytest.raises(gym.error.ResetNeeded):
        raw_env(**kwargs).state()


@pytest.mark.parametrize("kind", ["aec", "tuple-with-bets"])
def test_a_refused_tuple_mode_names_every_mode_that_works(kind: str) -> None:
    """``obs_mode="tuple"`` refused (the multi-agent table; the single env with a bet
    step) names every other mode, ``"features"`` included (it once listed three of
    four)."""
    from blackjack_env.envs import ObsMode

    with pytest.raises(ValueError) as caught:
        if kind == "aec":
            aec_env(num_seats=2, obs_mode="tuple")
        else:
            gym.make(ENV_ID, obs_mode="tuple", bet_sizes=(1, 2))
    message = str(caught.value)
    assert message.startswith("obs_mode='tuple' cannot show")
    for mode in ObsMode:
        if mode is not ObsMode.TUPLE:
            assert repr(mode.value) in message, (mode, message)
