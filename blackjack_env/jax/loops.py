"""Control flow for guarded code that needs no whole-carry select under ``jax.vmap``: a
``lax.while_loop`` (:func:`guarded_while`, the dealer's draws and the search for the next
hand) and a branch (:func:`when`, the parts of the round a rule set may not use); and
:func:`share`, values that XLA computes once rather than in every kernel that reads them.

A *guarded* function changes nothing at a table where its guard is off: every update it
makes is masked by the guard. ``jax.vmap`` of ``lax.while_loop`` and ``lax.cond`` with a
condition that differs between tables selects the whole carry or result, table by table,
after the fact (the whole state: the shoe's bytes included); guarded code needs no such
select, so the batched forms here run it for every table while any table needs it, and
skip it when none does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeAlias, TypeVar

import jax
import jax.numpy as jnp
from jax import custom_batching
from jaxtyping import Array, ArrayLike, Bool, Integer, PyTree

#: a loop's carry, or the values of a shared computation (a pytree of arrays)
C = TypeVar("C")
#: a branch's operands and its extra arguments (pytrees of arrays)
Operands: TypeAlias = tuple[PyTree[Array], ...]
#: a branch's operands, returned in the same form
Ops = TypeVar("Ops", bound=Operands)
#: custom_vmap's batched flags: one bool per leaf of the arguments (True: the leaf has the
#: batch axis)
Batched: TypeAlias = PyTree[bool]


def guarded_while(
    cond: Callable[..., Bool[Array, ""]],
    body: Callable[..., C],
    carry: C,
    *args: PyTree[Array],
) -> C:
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
    def loop(carry: C, args: Operands) -> C:
        return jax.lax.while_loop(lambda c: cond(c, *args), lambda c: body(c, *args), carry)

    @loop.def_vmap
    def _batched(
        n: int, in_batched: tuple[Batched, Batched], carry: C, args: Operands
    ) -> tuple[C, Batched]:
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


def when(
    guard: Bool[ArrayLike, ""],
    fn: Callable[..., Iterable[PyTree[Array]]],
    operands: Ops,
    args: Operands = (),
    **static: object,
) -> Ops:
    """``fn(*operands, *args, **static)`` (a tuple like ``operands``; ``args`` arrays,
    ``static`` Python values such as the config) where ``guard`` holds, else
    ``operands`` unchanged, for a *guarded* ``fn``: at a table where ``guard`` is off,
    ``fn`` returns its operands unchanged (its updates masked by the guard, the random
    stream's counter too). One table: a ``lax.cond`` (the other branch costs nothing: a part
    of the round that a rule set does not use is skipped). Under ``jax.vmap``: ``fn`` runs
    for every table (no select) while any table's guard holds, and not at all when none
    does; a guard shared by the batch (rules shared by every table) stays a branch."""

    def keep(ops: Operands, extra: Operands) -> Operands:
        return ops

    def run(ops: Operands, extra: Operands) -> Operands:
        return tuple(fn(*ops, *extra, **static))

    @custom_batching.custom_vmap
    def branch(g: Bool[Array, ""], ops: Operands, extra: Operands) -> Operands:
        return jax.lax.cond(g, run, keep, ops, extra)

    @branch.def_vmap
    def _batched(
        n: int, in_batched: tuple[Batched, Batched, Batched], g: Bool[Array, "*tables"],
        ops: Operands, extra: Operands,
    ) -> tuple[Operands, Batched]:  # fmt: skip
        g_batched, o_batched, e_batched = in_batched
        ops = jax.tree.map(
            lambda x, b: x if b else jnp.broadcast_to(x, (n, *jnp.shape(x))), ops, o_batched
        )
        axes = (0, jax.tree.map(lambda b: 0 if b else None, e_batched))
        every = jax.vmap(run, in_axes=axes)
        go = jnp.any(g) if g_batched else g
        out = jax.lax.cond(go, every, keep, ops, extra)
        return out, jax.tree.map(lambda _: True, out)

    return branch(jnp.asarray(guard, bool), tuple(operands), tuple(args))


def share(values: C, anchor: Integer[ArrayLike, "*shape"]) -> C:
    """``values`` (a pytree of arrays) unchanged, computed once in the compiled program.

    XLA fuses a cheap computation into every kernel that reads it, and computes it again
    in each. The chain of a few hundred scalar operations that decides a step's action
    (the legal mask, the mapping of an illegal action, the table's action) was compiled
    into twenty-odd kernels of a one-table step, one per state field the action changes.
    The outputs of a branch are computed once, in the branch, and read by every kernel:
    ``values`` pass through a ``lax.cond`` on ``(anchor | 1) != 0`` (``anchor``: any
    integer array of the program, whose value XLA does not know when it compiles), which
    always holds. Under ``jax.vmap`` the branch is the batch's. Measured (2026-12-02,
    vegas-strip, XLA ``-O0``): the compiled step's HLO went from 9,097 operations to
    6,610 (sutton-barto 5,352 to 4,287), its kernels alike; a batch of tables, whose
    array operations XLA does not copy into every reader, is unchanged."""

    def keep(v: C) -> C:
        return v

    def zeros(v: C) -> C:
        return jax.tree.map(jnp.zeros_like, v)

    @custom_batching.custom_vmap
    def branch(g: Bool[Array, ""], v: C) -> C:
        return jax.lax.cond(g, keep, zeros, v)

    @branch.def_vmap
    def _batched(
        n: int, in_batched: tuple[Batched, Batched], g: Bool[Array, "*tables"], v: C
    ) -> tuple[C, Batched]:
        g_batched, v_batched = in_batched
        v = jax.tree.map(
            lambda x, b: x if b else jnp.broadcast_to(x, (n, *jnp.shape(x))), v, v_batched
        )
        out = jax.lax.cond(jnp.all(g) if g_batched else g, keep, zeros, v)
        return out, jax.tree.map(lambda _: True, out)

    return branch((jnp.asarray(anchor) | 1) != 0, values)
