"""The shoe and the random draws of the JAX table (the numpy batched tables'
:mod:`blackjack_env.envs.batch.shoe`).

The shoe (finite): a row of ``shoe_size`` card ids used as a ring. The undealt cards
are the ``left`` places from ``pos`` on; behind them (from ``round_start`` to ``pos``)
the current round's cards; the rest are the discard tray. A draw takes a uniformly
random undealt card and swaps it to ``pos`` (an incremental Fisher-Yates shuffle, as
the numpy shoe), so a reshuffle only sets ``left`` back to the shoe's size, and a shoe
that runs dry mid-round takes the discards as its undealt cards by setting ``left`` to
their number (the places from ``pos`` to ``round_start``): both O(1), no array copy.
Stacked cards (``stacked`` > 0) are the next undealt places, dealt in order. An
infinite deck draws card ids uniformly (with replacement); its row is a buffer of
stacked cards, dealt first.

The random numbers of one call (:class:`Rng`, from :func:`rng` of the call's key): a
32-bit seed and a counter, draw ``i`` a hash of ``seed + i * golden`` (:func:`draw`).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float32, Int32, Key, PRNGKeyArray, UInt32

from blackjack_env.jax.state import F32, I32, State, select
from blackjack_env.jax.tables import Config, Params


class Rng(NamedTuple):
    """The random numbers of one call: a 32-bit seed drawn from the call's key (one
    threefry evaluation) and a counter; draw ``i`` is a hash of ``seed + i * golden``."""

    seed: UInt32[Array, ""]
    i: UInt32[Array, ""]


def rng(key: PRNGKeyArray | Rng) -> Rng:
    """The random stream of one call, from its key (an :class:`Rng` already drawn from
    it, :func:`rngs`, is its own stream)."""
    if isinstance(key, Rng):
        return key
    return Rng(jax.random.bits(key, (), jnp.uint32), jnp.zeros((), jnp.uint32))


def rngs(keys: Key[Array, " n"] | UInt32[Array, "n 2"]) -> list[Rng]:
    """:func:`rng` of each key of ``keys`` (a leading axis), drawn together: one threefry
    evaluation in the compiled code, not one per key (the same numbers)."""
    seeds = jax.vmap(lambda k: jax.random.bits(k, (), jnp.uint32))(keys)
    return [Rng(seeds[i], jnp.zeros((), jnp.uint32)) for i in range(seeds.shape[0])]


_GOLDEN = 0x9E3779B9


def _uniform(rk: Rng) -> tuple[Float32[Array, ""], Rng]:
    """A uniform float32 in [0, 1) (24 bits) and the next state: the 32-bit finaliser of
    MurmurHash3 of a Weyl sequence (as SplitMix). Measured (2026-11-30, bench_jax.py,
    4096 tables, CPU, loaded, ratios in one run): with a threefry key per card the JAX
    table ran at 0.31x (vegas-strip) / 0.69x (sutton-barto) of the numpy batched env,
    with this hash 0.82x / 1.16x."""
    x = rk.seed + rk.i * jnp.uint32(_GOLDEN)
    x = x ^ (x >> 16)
    x = x * jnp.uint32(0x85EBCA6B)
    x = x ^ (x >> 13)
    x = x * jnp.uint32(0xC2B2AE35)
    x = x ^ (x >> 16)
    u = (x >> 8).astype(F32) * F32(1.0 / (1 << 24))
    return u, Rng(rk.seed, rk.i + jnp.uint32(1))


def _ring(x: Int32[Array, "*n"], n: Int32[Array, ""]) -> Int32[Array, "*n"]:
    """``x % n`` for ``0 <= x < 2 * n`` (a place of the ring of ``n`` places: a place and an
    offset within the ring): one subtraction where ``x >= n``. Under a batch of rule sets
    ``n`` differs between tables, and a remainder by a value XLA does not know is a division
    per table, which the CPU does not vectorise."""
    return jnp.where(x >= n, x - n, x)


def draw(
    st: State, p: Params, cfg: Config, rk: Rng, do: Bool[Array, ""]
) -> tuple[State, Int32[Array, ""], Rng]:
    """Deal one card where ``do`` (a no-op elsewhere, whose card id means nothing):
    ``(state, card id, rng)``. A finite shoe is the first ``p.shoe_cards`` places of the
    state's row; a table that does not draw reads only the place at ``pos``, not a random
    one (a batch's draw is one gather from every table's row, most of them idle in the
    dealer's later draws: half the cache lines)."""
    u, rk = _uniform(rk)
    do = jnp.asarray(do, bool)
    stacked = st.stacked > 0
    if cfg.infinite:
        rand = jnp.minimum((u * 52).astype(I32), 51)
        card = jnp.where(stacked, st.shoe[st.pos % cfg.shoe_size].astype(I32), rand)
        take = do & stacked
        st = st._replace(pos=st.pos + take, stacked=st.stacked - take)
        return st, card, rk
    n = p.shoe_cards
    dry = do & (st.left == 0)  # the discards become the undealt cards
    left = jnp.where(dry, _ring(st.round_start - st.pos + n, n), st.left)
    undealt_hilo = jnp.where(dry, -st.round_hilo, st.undealt_hilo)
    off = jnp.minimum((u * left).astype(I32), jnp.maximum(left - 1, 0))
    off = jnp.where(stacked | ~do, 0, off)
    i = st.pos
    j = _ring(i + off, n)
    both = jnp.stack([i, j])
    ci, cj = st.shoe[both]
    # the swap, one scatter (i == j: the same card twice); nothing written where not `do`
    # (the places out of range are dropped)
    at = jnp.where(do, both, cfg.shoe_size)
    shoe = st.shoe.at[at].set(jnp.stack([cj, ci]), mode="drop")
    card = cj.astype(I32)
    tag = p.hilo_of_card[card] * do
    d = do.astype(I32)
    st = st._replace(
        shoe=shoe, pos=jnp.where(do, _ring(i + 1, n), i), left=left - d, dealt=st.dealt + d,
        stacked=st.stacked - (d * stacked), undealt_hilo=undealt_hilo - tag,
        round_hilo=st.round_hilo + tag,
    )  # fmt: skip
    return st, card, rk


def open_shoe(st: State, p: Params, cfg: Config, on: Bool[Array, ""]) -> State:
    """Where ``on``: the last round's cards go to the discards and the shoe is reshuffled
    if the cut card is out (``p.cut_cards`` dealt; numpy ``start_rounds`` /
    ``open_rounds``)."""
    if cfg.infinite:
        return st
    shuffle = st.dealt >= p.cut_cards
    new = st._replace(
        round_start=st.pos, round_hilo=jnp.zeros((), I32), reshuffled=shuffle,
        left=jnp.where(shuffle, p.shoe_cards, st.left),
        dealt=jnp.where(shuffle, 0, st.dealt),
        undealt_hilo=jnp.where(shuffle, 0, st.undealt_hilo),
    )  # fmt: skip
    return select(on, new, st)
