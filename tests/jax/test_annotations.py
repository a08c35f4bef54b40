"""The JAX table's annotations say what its arrays are (issue 41): the fields of ``State``
and the entries of ``Params`` against their jaxtyping types, each axis bound once per
table (one jaxtyping context, so ``hands`` is ``Config.hands`` in every field and
``*seats`` the same leading axes in every seat's field). The package checks nothing at
run time (``blackjack_env/jax/arrays.py``): this test is where the types are held to the
arrays."""

from __future__ import annotations

import typing

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("jaxtyping")
import jax.numpy as jnp  # noqa: E402
from jaxtyping import Shaped, jaxtyped  # noqa: E402

from blackjack_env.jax import BlackjackJax  # noqa: E402
from blackjack_env.jax.state import State  # noqa: E402
from blackjack_env.jax.tables import Params  # noqa: E402

#: tables of every kind that changes an axis: one seat or several, cards tracked by rank
#: (the "dict" mode), bet sizes and a bankroll (another action count), an infinite deck
TABLES = {
    "vegas-strip": {"rules": "vegas-strip"},
    "seats-3-dict": {"rules": "vegas-strip", "seats_per_table": 3, "obs_mode": "dict"},
    "bets-bankroll": {"rules": "vegas-strip", "bet_sizes": (1, 2, 4), "bankroll": 50,
                      "insurance_decisions": True},
    "infinite-deck": {"rules": "sutton-barto", "decks": None},
}


def annotated(cls: type) -> dict[str, typing.Any]:
    """The public attributes' types of ``cls``, evaluated."""
    return {k: v for k, v in typing.get_type_hints(cls).items() if not k.startswith("_")}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_state_and_params_are_what_their_annotations_say(name: str) -> None:
    env = BlackjackJax(**TABLES[name])
    cfg, params = env.config, env.default_params
    # the state's shapes and dtypes, as the compiled reset returns them (jax.eval_shape
    # traces the same function, compiling nothing), as arrays for jaxtyping's checks
    shapes = jax.eval_shape(env.reset, jax.random.PRNGKey(0))[1]
    state = jax.tree.map(lambda s: jax.device_put(np.zeros(s.shape, s.dtype)), shapes)
    fields, entries = annotated(State), annotated(Params)
    assert set(fields) == set(State._fields)
    # every entry has a type, derived from RuleTables' annotations (no second list)
    assert set(entries) == set(params.names)
    with jaxtyped("context"):  # (the axes bound once, here to the config's sizes)
        axes = {"hands": cfg.hands, "places": cfg.shoe_size, "actions": cfg.n_actions,
                "bets": cfg.n_bets, "ranks": 13 if cfg.track else 0}  # fmt: skip
        for axis, size in axes.items():
            assert isinstance(np.zeros(size), Shaped[np.ndarray, axis])
        seats = (cfg.seats,) if cfg.seats > 1 else ()
        assert isinstance(np.zeros(seats), Shaped[np.ndarray, "*seats"])
        wrong = [f"state.{k}: {jnp.shape(getattr(state, k))} {getattr(state, k).dtype}"
                 for k, kind in fields.items() if not isinstance(getattr(state, k), kind)]
        wrong += [f"params.{k}: {jnp.shape(getattr(params, k))} {getattr(params, k).dtype}"
                  for k, kind in entries.items() if not isinstance(getattr(params, k), kind)]
    assert wrong == []


@pytest.mark.parametrize("name", sorted(TABLES))
def test_rule_tables_are_what_their_annotations_say(name: str) -> None:
    """``RuleTables``' array annotations, from which ``Params``' types are derived, hold
    for the numpy tables themselves (dtype and axes, each axis one size per table)."""
    import dataclasses

    import numpy as np

    from blackjack_env.envs.tables import RuleTables
    from blackjack_env.jax.tables import rule_table_types

    tables = BlackjackJax(**TABLES[name]).tables
    hints = rule_table_types()
    arrays = [f.name for f in dataclasses.fields(RuleTables)
              if isinstance(getattr(tables, f.name), np.ndarray)]  # fmt: skip
    assert len(arrays) >= 20
    with jaxtyped("context"):
        wrong = [f"{k}: {getattr(tables, k).shape} {getattr(tables, k).dtype} is not {hints[k]}"
                 for k in arrays if not isinstance(getattr(tables, k), hints[k])]  # fmt: skip
    assert wrong == []
