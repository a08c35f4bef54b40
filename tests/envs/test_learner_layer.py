"""The learner layer's seams (issue 21): the settings dataclasses as the envs' signatures,
the old import paths and deprecated names, the batched env's job modules."""

from __future__ import annotations

import dataclasses
import inspect
import warnings

import numpy as np
import pytest

from blackjack_env.envs import BlackjackEnv, EnvArgs, EnvSettings, TableArgs
from blackjack_env.envs.multiagent import BlackjackAECEnv
from blackjack_env.envs.vector import BlackjackVectorEnv


def test_env_signature_is_the_args_dataclass() -> None:
    """BlackjackEnv's and BlackjackAECEnv's signatures are EnvArgs' / TableArgs' fields,
    with their defaults, and every field has a help line (its docstring in the source)."""
    for env_cls, args_cls in ((BlackjackEnv, EnvArgs), (BlackjackAECEnv, TableArgs)):
        params = list(inspect.signature(env_cls.__init__).parameters.values())[1:]
        fields = dataclasses.fields(args_cls)
        assert [p.name for p in params] == [f.name for f in fields]
        assert [p.default for p in params] == [f.default for f in fields]
        source = inspect.getsource(args_cls)
        for f in fields:
            after = source.split(f"\n    {f.name}: ", 1)[1].split("\n", 2)[1].strip()
            assert after.startswith('"""'), f"{args_cls.__name__}.{f.name} has no help line"


def test_args_passed_whole_equal_keywords() -> None:
    whole = BlackjackEnv(EnvArgs(num_seats=3, seat=1, obs_mode="vector"))
    keywords = BlackjackEnv(num_seats=3, seat=1, obs_mode="vector")
    assert whole.settings == keywords.settings
    o1, _ = whole.reset(seed=4)
    o2, _ = keywords.reset(seed=4)
    assert np.array_equal(o1, o2)
    table = BlackjackAECEnv(TableArgs(num_seats=2))
    assert table.settings == BlackjackAECEnv(num_seats=2).settings


def test_unknown_and_duplicate_arguments_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown argument\(s\) sets; BlackjackEnv takes rules"):
        BlackjackEnv(sets=2)
    with pytest.raises(TypeError, match="multiple values for argument 'rules'"):
        BlackjackEnv("vegas-strip", rules="vegas-strip")
    with pytest.raises(TypeError, match="unexpected keyword argument 'seat'"):
        BlackjackAECEnv(seat=1)


def test_several_seats_settings_checked_once() -> None:
    """seats_per_table sets rules.seats (the one name of the seat count); the tables are
    built from the settings whole."""
    settings = EnvSettings.batched(seats_per_table=3)
    assert settings.rules.seats == 3 and settings.others == () and settings.seat == 0
    with pytest.warns(DeprecationWarning, match="seats_per_table is deprecated"):
        assert settings.seats_per_table == 3
    with pytest.warns(DeprecationWarning):
        assert EnvSettings.single(num_seats=3).seats_per_table == 1
    env = BlackjackVectorEnv(6, seats_per_table=3)
    env.reset(seed=0)
    assert env.seats == 3 and env.batch is not None and env.batch.seats == 3
    with pytest.raises(ValueError, match=r"seats_per_table=6 is not allowed; .* seat 1 to 5"):
        EnvSettings.batched(seats_per_table=6, rules="how-to-play")


def test_old_import_paths_and_deprecated_names() -> None:
    from blackjack_env.envs import observations, view
    from blackjack_env.envs.view import layout

    for name in observations.__all__:
        assert hasattr(observations, name)
    assert observations.Layout is layout.Layout
    assert view.encode_vector is view.fields.encode_vector
    assert view.VECTOR_SIZE == view.fields.VECTOR_SIZE
    env = BlackjackEnv()
    with pytest.warns(DeprecationWarning, match="Layout.view is deprecated"):
        assert env.layout.view is env.layout.per_step
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.layout.per_step  # noqa: B018  (the new name warns nothing)


def test_random_legal_actions_old_path() -> None:
    from blackjack_env.envs import random_legal, vector

    assert vector.random_legal_actions is random_legal.random_legal_actions
