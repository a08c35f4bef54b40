"""The JAX table's input checks, run on the host or where ``jit`` traces a call (shapes
and dtypes only: nothing per step): :func:`check_params`, :func:`check_step_args`, and
:func:`unwrap_state` for a wrapper's state."""

from __future__ import annotations

from functools import cache, partial

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import ArrayLike, Int32

from blackjack_env.jax.state import State, new_state
from blackjack_env.jax.tables import Config, Params, Row

__all__ = ["check_params", "check_step_args", "state_shapes", "unwrap_state"]


@cache
def state_shapes(cfg: Config) -> State:
    """One table's state as shapes (``jax.eval_shape``), to check a state against."""
    # (the shapes depend on the config alone: new_state reads only the shoe's card count)
    return jax.eval_shape(partial(new_state, cfg), Params({"shoe_cards": jnp.int32(0)}))


def check_params(params: Params | None, mine: Params) -> Params:
    """``params`` (None: ``mine``, the env's default params), refused (``ValueError``) unless it
    has this env's fields, shapes and dtypes: params built for another configuration
    (another action count, hand count, bet sizes ...) are named here, once, where the
    call is traced. Params of the same shapes are not told apart (their values may be
    traced): build them with the same configuration."""
    if params is None:
        return mine
    if not isinstance(params, Params):
        raise ValueError(
            f"params must be this env's Params (env.default_params), got "
            f"{type(params).__name__}"
        )
    if params.names != mine.names:
        missing = sorted(set(mine.names) - set(params.names))
        extra = sorted(set(params.names) - set(mine.names))
        raise ValueError(
            f"params has other entries than this env's (missing {missing}, extra {extra}): "
            f"use env.default_params or env.params_of(rules)"
        )
    for (name, want), (_, got) in zip(mine.items(), params.items(), strict=True):
        kind = got.dtype if isinstance(got, Row) else jnp.result_type(got)
        if tuple(jnp.shape(got)) != tuple(jnp.shape(want)) or kind != want.dtype:
            raise ValueError(
                f"params.{name} has shape {tuple(jnp.shape(got))} "
                f"{kind}, this env's {tuple(want.shape)} {want.dtype}: "
                f"params of another configuration (or a batch: jax.vmap the call); use "
                f"env.default_params or env.params_of(rules)"
            )
    return params


def check_step_args(
    state: State, action: Int32[ArrayLike, "*seats"], cfg: Config, num_actions: int
) -> None:
    """Refuse (``ValueError``, one line) an ``action`` that is not an integer array of
    one table's shape (``()``, or ``(seats,)`` with several seats: ``jax.vmap`` makes
    many tables), and a ``state`` that is not one of this env's tables. Checked on
    the host, or where ``jit`` traces the call (shapes and dtypes only, nothing per
    step). An integer outside ``0..num_actions - 1`` cannot be refused inside ``jit``:
    it is an illegal action (``info["illegal_action"]``), played under ``"map"`` as
    the nearest action in range (a negative one as STAND's mapping, a larger one as
    the last action's) is mapped, and under ``"penalize"`` as any illegal action
    (``PENALTY_ACTION``, the round played out, ``illegal_penalty`` taken)."""
    want = (cfg.seats,) if cfg.seats > 1 else ()
    kind = getattr(action, "dtype", None)
    if kind is None:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise ValueError(
                f"action {action!r} must be an integer (a jax or numpy int array of "
                f"shape {want}); actions are 0..{num_actions - 1}"
            )
    elif np.dtype(kind).kind not in "iu":
        raise ValueError(
            f"action dtype {np.dtype(kind)} must be an integer dtype (int32); actions "
            f"are 0..{num_actions - 1}"
        )
    if tuple(jnp.shape(action)) != want:
        raise ValueError(
            f"action shape {tuple(jnp.shape(action))} must be {want} (one table"
            f"{f' of {cfg.seats} seats' if cfg.seats > 1 else ''}); jax.vmap the step "
            f"for many tables"
        )
    if not isinstance(state, State):
        raise ValueError(
            f"state must be this env's State (from reset or step), got "
            f"{type(state).__name__}"
        )
    for name, got, ref in zip(
        State._fields, state, state_shapes(cfg), strict=True
    ):
        if tuple(jnp.shape(got)) != ref.shape:
            raise ValueError(
                f"state.{name} has shape {tuple(jnp.shape(got))}, one table's is "
                f"{ref.shape}: a state of another configuration, or a batch of tables "
                f"(jax.vmap the step)"
            )


def unwrap_state(state: object) -> State:
    """The table's :class:`~blackjack_env.jax.State` inside ``state``: ``state``
    itself, or a wrapper's state that holds it as ``env_state`` (gymnax's
    ``LogEnvState``), at any depth."""
    while not isinstance(state, State) and hasattr(state, "env_state"):
        state = state.env_state
    if not isinstance(state, State):
        raise ValueError(
            f"state must be the table's State or a wrapper's state holding it as "
            f"env_state, got {type(state).__name__}"
        )
    return state
