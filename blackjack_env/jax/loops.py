"""A ``lax.while_loop`` for guarded bodies that needs no whole-carry select under
``jax.vmap`` (:func:`guarded_while`), used by the dealer's draws and the search for the
next hand.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import custom_batching


def guarded_while(cond: Any, body: Any, carry: Any, *args: Any) -> Any:
    """``lax.while_loop(cond, body, carry)`` for a ``body`` that changes nothing where
    ``cond`` is false (a guarded body), with ``args`` passed to both unchanged.

    Under ``jax.vmap`` a ``while_loop`` whose condition differs between tables runs until
    every table is done and ``select``s the whole carry after each turn, keeping the old
    values where a table's condition was false: the whole shoe (``S`` bytes a table) is
    rewritten on every turn. A guarded body needs no such select, so the batched loop here
    is ``while any(cond): carry = vmap(body)(carry)`` (a ``custom_vmap`` rule): the same
    values, without the rewrite. Measured (2026-12-01, ``scripts/bench_jax.py``'s loop,
    vegas-strip, 4,096 tables, random legal actions, CPU at load 5-9, hands per CPU
    second, base and branch alternated): 1.31-1.33M with ``lax.while_loop`` for the
    dealer and ``fori_loop`` for :func:`advance`, 1.40M with this loop for the dealer,
    1.62-1.71M for both; the compiled step lost its whole-shoe selects (two loops, each
    ``select`` reading two shoes and writing one per turn) and two of its three shoe
    copies."""

    @custom_batching.custom_vmap
    def loop(carry: Any, args: Any) -> Any:
        return jax.lax.while_loop(lambda c: cond(c, *args), lambda c: body(c, *args), carry)

    @loop.def_vmap
    def _batched(n: int, in_batched: Any, carry: Any, args: Any) -> Any:
        c_batched, a_batched = in_batched
        carry = jax.tree.map(
            lambda x, b: x if b else jnp.broadcast_to(x, (n, *jnp.shape(x))), carry, c_batched
        )
        axes = (0, jax.tree.map(lambda b: 0 if b else None, a_batched))
        v_cond = jax.vmap(lambda c, a: cond(c, *a), in_axes=axes)
        v_body = jax.vmap(lambda c, a: body(c, *a), in_axes=axes)
        out = jax.lax.while_loop(
            lambda c: jnp.any(v_cond(c, args)), lambda c: v_body(c, args), carry
        )
        return out, jax.tree.map(lambda _: True, carry)

    return loop(carry, args)
