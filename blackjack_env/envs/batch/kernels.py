"""The shoes' draw loops as scalar loops compiled by numba (optional: the ``fast`` extra).

A finite shoe deals by a lazy Fisher-Yates shuffle (:mod:`.shoe`): each card is a
uniformly random undealt card of its table's row, swapped to the row's first undealt
place. In numpy that is three fancy-indexing operations per card position over every
table (:func:`.shoe.deal_swap`), and the dealer's draws are a loop of about twenty array
operations per card while any table still draws. The same swaps are a few machine
instructions per card as a scalar loop; these functions are those loops, compiled by
numba. They take the same uniforms, tables and cards in the same order as the numpy
code (:meth:`.shoe.ShoeMixin._draw_many`, :meth:`.dealer.DealerMixin._dealer_draws_shoe`),
so a batch deals the same game, bit for bit, with or without them (the tests play both
and compare). They decide no rule: the dealer's drawing enters as the rule tables'
``dealer_hits`` and ``dealer_next``.

Measured on this project's machine (``scripts/bench_vector.py``, vegas-strip, 4,096
tables): see ``docs/performance.md``. Without numba (:func:`load` returns None), or with
``BLACKJACK_ENV_PURE=1`` (the reference behaviour: everything from source), the batch
runs its numpy loops.

Compiled functions are cached beside this file (numba's ``cache=True``): a process
compiles them only the first time, about 2 s, on a finite-shoe batch's first deal.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from blackjack_env._native import pure_requested

numba: Any
try:  # numba is optional (the ``fast`` extra)
    import numba
except ImportError:  # pragma: no cover - exercised where numba is not installed
    numba = None

__all__ = ["load"]

#: :func:`dealer_draws`' results: every table stopped (or ran out of room), or the
#: uniform pool holds too few numbers for the next card of every table still drawing
DONE = 0
NEED_UNIFORMS = 1

def deal(flat: Any, size: int, idx: Any, pos: Any, u: Any, out: Any, tag: Any,
         acc: Any) -> None:
    """Deal ``k = out.shape[0]`` cards to each table ``idx[i]`` (shoe row ``size`` long
    in ``flat``, first undealt card at ``pos[i]``, room for ``k`` cards): card ``j`` of
    table ``i`` is the undealt card ``floor(u[j * m + i] * (size - pos[i] - j))`` places
    after the row's ``j``-th undealt place, swapped to it, written to ``out[j, i]``;
    ``acc[i]`` gets the dealt cards' ``tag`` summed."""
    k, m = out.shape
    for i in range(m):
        base = idx[i] * size + pos[i]
        left = size - pos[i]
        total = 0
        for j in range(k):
            slot = base + j
            pick = slot + np.int64(u[j * m + i] * np.float64(left - j))
            card = flat[pick]
            flat[pick] = flat[slot]
            flat[slot] = card
            out[j, i] = card
            total += tag[card]
        acc[i] = total


def dealer_draws(flat: Any, first: Any, left: Any, key: Any, acc: Any, act: Any,
                 state: Any, pool: Any, after: Any, hits: Any, tag: Any, hit_off: Any,
                 next_off: Any) -> int:
    """The dealer's draws at the tables ``act[:state[0]]`` (positions into ``first``,
    ``left``, ``key``, ``acc``), card after card, as
    :meth:`~.dealer.DealerMixin._dealer_draws_shoe`'s loop: round ``j`` (``state[1]``)
    gives each table still drawing, in order, the undealt card ``floor(u * (left - j))``
    places after its place ``first + j`` (one uniform each, read from ``pool`` at
    ``state[2]``), moves its key ``2 * hard + ace`` on by ``after`` and adds the card's
    ``tag`` to ``acc``; a table draws again while ``hits`` says so. Rounds stop at
    ``state[3]`` (the room every table has). ``hit_off`` / ``next_off``: each table's rows
    in ``hits`` / ``after`` (zeros for one rule set). Returns :data:`DONE`, or
    :data:`NEED_UNIFORMS` before a round the pool cannot serve (``state`` says where
    the loop stands; the caller draws a new pool and calls again)."""
    n = state[0]
    j = state[1]
    p = state[2]
    room = state[3]
    while n > 0 and j < room:
        if p + n > pool.size:
            state[0] = n
            state[1] = j
            state[2] = p
            return NEED_UNIFORMS
        kept = 0
        for r in range(n):
            a = act[r]
            slot = first[a] + j
            pick = slot + np.int64((left[a] - j) * pool[p + r])
            card = flat[pick]
            flat[pick] = flat[slot]
            flat[slot] = card
            k = after[key[a] * 52 + card + next_off[a]]
            key[a] = k
            acc[a] += tag[card]
            if hits[k + hit_off[a]]:
                act[kept] = a
                kept += 1
        p += n
        n = kept
        j += 1
    state[0] = n
    state[1] = j
    state[2] = p
    return DONE


def load() -> SimpleNamespace | None:
    """The compiled :func:`deal` and :func:`dealer_draws` (attributes of the namespace),
    or None without numba or under ``BLACKJACK_ENV_PURE=1``."""
    return _COMPILED


_COMPILED: SimpleNamespace | None = None
if numba is not None and not pure_requested():
    _jit = numba.njit(cache=True, nogil=True)
    _COMPILED = SimpleNamespace(deal=_jit(deal), dealer_draws=_jit(dealer_draws))
