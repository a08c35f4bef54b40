"""The learner layer's seams (issue 21): the settings dataclasses as the envs' signatures,
the envs' folders (issue 41: one folder per concept, no old paths or deprecated names left),
the batched env's job modules."""

from __future__ import annotations

import dataclasses
import importlib
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
    env = BlackjackVectorEnv(6, seats_per_table=3)
    env.reset(seed=0)
    assert env.seats == 3 and env.batch is not None and env.batch.seats == 3
    with pytest.raises(ValueError, match=r"seats_per_table=6 is not allowed; .* seat 1 to 5"):
        EnvSettings.batched(seats_per_table=6, rules="how-to-play")


#: Module paths and names removed in 0.1 (issue 41): the changelog says where each went.
REMOVED_MODULES = (
    "blackjack_env.envs.observations", "blackjack_env.envs.blackjack", "blackjack_env.envs.core",
    "blackjack_env.envs.vector_bets", "blackjack_env.envs.vector_checks",
    "blackjack_env.envs.vector_info", "blackjack_env.envs.vector_state",
    "blackjack_env.envs.view.batched", "blackjack_env.envs.random_legal",
    "blackjack_env.envs.sb3_vec", "blackjack_env.envs.parallel", "blackjack_env.envs.batch.codes",
    "blackjack_env._cli", "blackjack_env._renamed", "blackjack_env.analysis._model",
    "blackjack_env.agents.commands", "blackjack_env.agents.jax_ppo_counting",
)  # fmt: skip


@pytest.mark.parametrize("module", REMOVED_MODULES)
def test_old_module_paths_are_gone(module: str) -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(module)


def test_deprecated_names_are_gone() -> None:
    import blackjack_env.agents as agents
    import blackjack_env.analysis as analysis
    from blackjack_env import strategies

    env = BlackjackEnv()
    vec = BlackjackVectorEnv(2)
    for owner, name in ((env.layout, "view"), (env.settings, "seats_per_table"),
                        (vec, "core"), (strategies, "random_legal"),
                        (analysis, "basic_strategy"), (agents, "basic_strategy")):
        assert not hasattr(owner, name), name
    # the submodule, no longer rebound to the class
    assert not isinstance(analysis.composition_strategy, type)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.layout.per_step  # noqa: B018


def test_the_view_is_one_family_and_each_env_a_folder() -> None:
    from blackjack_env.envs import multiagent, single, vector, view
    from blackjack_env.envs.vector import random_legal

    assert view.encode is view.fields.encode
    assert view.VECTOR_SIZE == view.fields.VECTOR_SIZE
    assert vector.random_legal_actions is random_legal.random_legal_actions
    assert single.BlackjackEnv is BlackjackEnv and vector.BlackjackVectorEnv is BlackjackVectorEnv
    assert multiagent.BlackjackAECEnv is BlackjackAECEnv
    for cls in (BlackjackEnv, BlackjackVectorEnv, BlackjackAECEnv,
                multiagent.BlackjackParallelEnv):
        # each class's documented home is its folder's package
        assert cls.__module__.rsplit(".", 1)[-1] in ("single", "vector", "multiagent")
