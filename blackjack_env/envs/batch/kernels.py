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
compiles them only the first time, about 0.6 s, on a finite-shoe batch's first deal.
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

__all__ = ["DONE", "NEED_UNIFORMS", "deal", "dealer_draws", "load"]

#: :func:`dealer_draws`' results: every table stopped (or ran out of room), or the
#: uniform pool holds too few numbers for the next card of every table still drawing
DONE = 0
NEED_UNIFORMS = 1


def deal(flat: Any, size: int, idx: Any, pos: Any, u: Any, out: Any, tag: Any,
         hilo: Any) -> None:
    """Deal ``k = out.shape[0]`` cards to each table ``t = idx[i]`` (its shoe row ``size``
    long in ``flat``, first undealt card at ``pos[t]``, room for ``k`` cards): card ``j``
    is the undealt card ``floor(u[j * m + i] * (size - pos[t] - j))`` places after the
    row's ``j``-th undealt place, swapped to it and written to ``out[j, i]``. Then
    ``pos[t]`` moves on ``k`` and ``hilo[t]`` loses the dealt cards' ``tag``."""
    k, m = out.shape
    for i in range(m):
        t = idx[i]
        first = pos[t]
        base = t * size + first
        left = size - first
        total = 0
        for j in range(k):
            slot = base + j
            pick = slot + np.int64(u[j * m + i] * np.float64(left - j))
            card = flat[pick]
            flat[pick] = flat[slot]
            flat[slot] = card
            out[j, i] = card
            total += tag[card]
        pos[t] = first + k
        hilo[t] -= total


def dealer_draws(flat: Any, size: int, t: Any, pos: Any, d_hard: Any, d_ace: Any, d_n: Any,
                 hilo: Any, pool: Any, state: Any, after: Any, hits: Any, tag: Any,
                 hit_off: Any, next_off: Any, scratch: Any, left: Any) -> int:
    """The dealer's draws at tables ``t`` (rows holding the shoes, each once), as
    :meth:`~.dealer.DealerMixin._dealer_draws_shoe` makes them in numpy: the tables whose
    hand (key ``2 * d_hard + d_ace``) ``hits`` say draws; then round ``j`` gives each
    table still drawing, in order, the undealt card ``floor(u * (undealt - j))`` places
    after its ``j``-th undealt place (one uniform each, from ``pool``), moves its key on
    by ``after`` and sums the cards' ``tag`` (64 plus the Hi-Lo tag); a table draws
    again while ``hits`` says so, until a round would pass the room every drawing table
    has. At the end ``pos``, ``hilo`` (the undealt Hi-Lo sum), ``d_hard``, ``d_ace`` and
    ``d_n`` of the tables that drew are written.

    ``hit_off`` / ``next_off``: each table's rows in ``hits`` / ``after`` (zeros for one
    rule set). ``state``: ``[drawing, round, pool place, room, started]``, the loop's
    place between calls (``[0, 0, place, 0, 0]`` to start); ``scratch``
    ``(4, len(t))`` int64 and ``left`` ``(len(t),)`` float64 hold the tables' keys, tag
    sums, first undealt places and the drawing order between calls. Returns
    :data:`DONE` (``state[0]`` tables out of room, their positions in ``t`` first in
    ``scratch[3]``), or :data:`NEED_UNIFORMS` before a round the pool cannot serve (the
    caller draws a new pool, sets the place to 0 and calls again)."""
    key = scratch[0]
    acc = scratch[1]
    first = scratch[2]
    act = scratch[3]
    if state[4] == 0:  # which tables draw, and the room they all have
        state[4] = 1
        drew = 0
        top = 0
        for i in range(t.size):
            row = t[i]
            k = 2 * d_hard[row] + d_ace[row]
            acc[i] = 0
            if hits[k + hit_off[i]]:
                p = pos[row]
                key[i] = k
                first[i] = row * size + p
                left[i] = np.float64(size - p)
                act[drew] = i
                drew += 1
                top = max(top, p)
        state[0] = drew
        state[1] = 0
        state[3] = size - top
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
    for i in range(t.size):  # the counters of the tables that drew (a card's tag >= 63)
        if acc[i] > 0:
            row = t[i]
            drawn = (acc[i] + 32) >> 6
            pos[row] += drawn
            hilo[row] -= acc[i] - (drawn << 6)
            d_hard[row] = key[i] >> 1
            d_ace[row] = (key[i] & 1) == 1
            d_n[row] += drawn
    return DONE


def load() -> SimpleNamespace | None:
    """The compiled :func:`deal` and :func:`dealer_draws` (attributes of the namespace),
    or None without numba or under ``BLACKJACK_ENV_PURE=1``."""
    return _COMPILED


_COMPILED: SimpleNamespace | None = None
if numba is not None and not pure_requested():
    _jit = numba.njit(cache=True, nogil=True)
    _COMPILED = SimpleNamespace(deal=_jit(deal), dealer_draws=_jit(dealer_draws))
