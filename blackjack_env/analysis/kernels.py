"""Compiled kernels of the composition-dependent analysis (numba, optional).

:mod:`blackjack_env.analysis.composition` values a round off a pool of cards from
*rows*: every composition of player cards the round can reach, each with the
dealer's final-hand probabilities off the pool less that row, and the best
hit-or-stand value of every hand. These functions compute those tables for a
whole context (pool and upcard) at once, in plain scalar loops compiled by numba.
They decide no rule: every rule enters as a table built by the caller from the
engine's functions (where the dealer stops, which hole card makes a dealer
natural, what a standing hand is paid, how a hand is scored).

Installed with the ``fast`` extra (``pip install blackjack_env[fast]``); without
numba, :data:`AVAILABLE` is False and the composition analysis keeps its
pure-Python path, which gives the same figures (to 1e-12 in the tests) 10 to 20
times slower.

Why numba: of the two tools measured (``scripts/bench_composition.py``, CPU of one
core), numpy vectorisation of the dealer recursion over every row of a context
(the pure path: one array operation per dealer node and card class, over all rows
at once) takes 0.9 to 1.5 s for a 6-deck round, most of it in Python around the
arrays (row generation, per-node temporaries, the hit/stand recursion through
dicts); the same loops as scalar code compiled by numba take 25-35 ms for the
dealer rows and 5-8 ms for the hit/stand tables. The dealer pass is written with a
block of 256 rows innermost, which LLVM vectorises: 17x faster than the same pass
one row at a time (0.43 s -> 25 ms for the ten upcards of six decks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

numba: Any
try:  # numba is optional (the ``fast`` extra)
    import numba

    AVAILABLE = True
except ImportError:  # pragma: no cover - exercised by the pure-Python tests
    numba = None
    AVAILABLE = False

__all__ = ["AVAILABLE", "context_tables", "hit_tables"]

#: dealer outcome slots (``analysis._model.OUTCOMES``): 17..21, bust, blackjack
_SLOTS = 7


def _jit(fn: Any) -> Any:
    if numba is None:
        return fn
    return numba.njit(cache=True, nogil=True)(fn)


def _rows(pool: np.ndarray, vals: np.ndarray, bases: np.ndarray, max_hards: np.ndarray) -> Any:
    """Every composition ``y`` with ``bases[b] <= y <= pool`` and hard total at most
    ``max_hards[b]``, for each ``b``; duplicates removed, sorted by mixed-radix code."""
    K = pool.shape[0]
    radix = np.ones(K, np.int64)
    for i in range(1, K):
        radix[i] = radix[i - 1] * (pool[i - 1] + 1)
    cap = 1024
    out = np.zeros((cap, K), np.int64)
    m = 0
    cur = np.zeros(K, np.int64)
    for b in range(bases.shape[0]):
        hard = 0
        ok = True
        for i in range(K):
            cur[i] = bases[b, i]
            hard += cur[i] * vals[i]
            if cur[i] > pool[i]:
                ok = False
        if not ok or hard > max_hards[b]:
            continue
        while True:
            if m == cap:
                cap *= 2
                grown = np.zeros((cap, K), np.int64)
                grown[:m] = out[:m]
                out = grown
            out[m] = cur
            m += 1
            i = 0
            while i < K:
                if cur[i] < pool[i] and hard + vals[i] <= max_hards[b]:
                    cur[i] += 1
                    hard += vals[i]
                    break
                hard -= (cur[i] - bases[b, i]) * vals[i]
                cur[i] = bases[b, i]
                i += 1
            if i == K:
                break
    codes = np.zeros(m, np.int64)
    for t in range(m):
        for i in range(K):
            codes[t] += out[t, i] * radix[i]
    order = np.argsort(codes)
    keep = np.ones(m, np.bool_)
    for t in range(1, m):
        if codes[order[t]] == codes[order[t - 1]]:
            keep[t] = False
    order = order[keep]
    return codes[order], out[order], radix


def _dealer_tree(
    pool: np.ndarray,
    vals: np.ndarray,
    aces: np.ndarray,
    up: int,
    stop: np.ndarray,
    natural: np.ndarray,
) -> Any:
    """The dealer's draws after upcard class ``up`` as a graph of drawn compositions
    (nodes in order of cards drawn). ``target[node, j]``: the node reached by drawing
    class ``j``, or ``-1 - slot`` where the hand stops in outcome ``slot``, or a large
    sentinel where the pool holds no card of class ``j`` for it."""
    K = pool.shape[0]
    radix = np.ones(K, np.int64)
    for i in range(1, K):
        radix[i] = radix[i - 1] * (pool[i - 1] + 1)
    cap = 256
    drawn = np.zeros((cap, K), np.int64)
    hard = np.zeros(cap, np.int64)
    ace = np.zeros(cap, np.bool_)
    count = np.zeros(cap, np.int64)
    target = np.full((cap, K), 1 << 30, np.int64)
    code_of = np.zeros(cap, np.int64)
    lookup = dict()
    lookup[0] = 0
    hard[0] = vals[up]
    ace[0] = aces[up]
    n = 1
    head = 0
    while head < n:  # breadth first: a node's children come after it
        for j in range(K):
            if drawn[head, j] + 1 > pool[j]:
                continue
            if count[head] == 0 and natural[j]:
                target[head, j] = -1 - (_SLOTS - 1)
                continue
            nh = hard[head] + vals[j]
            na = ace[head] or aces[j]
            s = stop[min(nh, stop.shape[0] - 1), 1 if na else 0]
            if s >= 0:
                target[head, j] = -1 - s
                continue
            code = code_of[head] + radix[j]
            got = lookup.get(code, -1)
            if got < 0:
                if n == cap:
                    cap *= 2
                    drawn2 = np.zeros((cap, K), np.int64)
                    drawn2[:n] = drawn[:n]
                    drawn = drawn2
                    hard2 = np.zeros(cap, np.int64)
                    hard2[:n] = hard[:n]
                    hard = hard2
                    ace2 = np.zeros(cap, np.bool_)
                    ace2[:n] = ace[:n]
                    ace = ace2
                    count2 = np.zeros(cap, np.int64)
                    count2[:n] = count[:n]
                    count = count2
                    target2 = np.full((cap, K), 1 << 30, np.int64)
                    target2[:n] = target[:n]
                    target = target2
                    code2 = np.zeros(cap, np.int64)
                    code2[:n] = code_of[:n]
                    code_of = code2
                got = n
                lookup[code] = got
                drawn[got] = drawn[head]
                drawn[got, j] += 1
                hard[got] = nh
                ace[got] = na
                count[got] = count[head] + 1
                code_of[got] = code
                n += 1
            target[head, j] = got
        head += 1
    return drawn[:n], count[:n], target[:n]


def _context_tables(
    pool: np.ndarray,
    vals: np.ndarray,
    aces: np.ndarray,
    up: int,
    stop: np.ndarray,
    natural: np.ndarray,
    pay: np.ndarray,
    bases: np.ndarray,
    max_hards: np.ndarray,
) -> Any:
    codes, rows, radix = _rows(pool, vals, bases, max_hards)
    drawn, count, target = _dealer_tree(pool, vals, aces, up, stop, natural)
    K = pool.shape[0]
    m = rows.shape[0]
    nodes = drawn.shape[0]
    total = 0
    for i in range(K):
        total += pool[i]
    C = pay.shape[1]
    stand = np.zeros((m, C))
    # rows in blocks, the block innermost: every dealer edge is one vector loop over
    # the block's rows (numba/LLVM vectorise it)
    B = 256
    reach = np.zeros((nodes, B))
    out = np.zeros((_SLOTS, B))
    avail = np.zeros((K, B))
    left0 = np.zeros(B)
    scale = np.zeros(B)
    for r0 in range(0, m, B):
        nb = min(B, m - r0)
        for b in range(B):
            left0[b] = 0.0
            for i in range(K):
                avail[i, b] = 0.0
        for b in range(nb):
            left0[b] = total
            for i in range(K):
                avail[i, b] = pool[i] - rows[r0 + b, i]
                left0[b] -= rows[r0 + b, i]
        reach[:, :] = 0.0
        out[:, :] = 0.0
        for b in range(nb):
            reach[0, b] = 1.0
        for v in range(nodes):
            n_v = count[v]
            for b in range(B):
                left = left0[b] - n_v
                scale[b] = reach[v, b] / left if left > 0.0 else 0.0
            for j in range(K):
                t = target[v, j]
                if t >= (1 << 30):
                    continue
                d = drawn[v, j]
                dst = out[-1 - t] if t < 0 else reach[t]
                aj = avail[j]
                for b in range(B):
                    cnt = aj[b] - d
                    dst[b] += (cnt if cnt > 0.0 else 0.0) * scale[b]
        for b in range(nb):
            for c in range(C):
                acc = 0.0
                for s in range(_SLOTS):
                    acc += out[s, b] * pay[s, c]
                stand[r0 + b, c] = acc
    return codes, rows, radix, stand


def _hit_tables(
    codes: np.ndarray,
    rows: np.ndarray,
    radix: np.ndarray,
    stand: np.ndarray,
    pool: np.ndarray,
    vals: np.ndarray,
    aces: np.ndarray,
    ace_class: int,
    completer: int,
    auto_total: int,
    totals: np.ndarray,
    extras: np.ndarray,
) -> Any:
    m, K = rows.shape
    E = extras.shape[0]
    nan = np.nan
    hs = np.full((E, m), nan)
    hit = np.full((E, m), nan)
    dbl = np.full((E, m), nan)
    n_pool = 0
    for i in range(K):
        n_pool += pool[i]
    # child[r, j]: the row holding row r's cards and one more of class j (-1: none);
    # codes are sorted, so the children of class j are found by one merge
    child = np.full((m, K), -1, np.int64)
    for j in range(K):
        k = 0
        for r in range(m):
            c = codes[r] + radix[j]
            while k < m and codes[k] < c:
                k += 1
            if k == m:
                break
            if codes[k] == c and rows[r, j] < pool[j]:
                child[r, j] = k
    row_hard = np.zeros(m, np.int64)
    row_n = np.zeros(m, np.int64)
    for r in range(m):
        for i in range(K):
            row_hard[r] += rows[r, i] * vals[i]
            row_n[r] += rows[r, i]
    for e_i in range(E):
        e = extras[e_i]
        for r in range(m - 1, -1, -1):
            hard = row_hard[r]
            n_row = row_n[r]
            n_ace = rows[r, ace_class]
            if e >= 0:
                if rows[r, e] < 2:
                    continue
                hard -= vals[e]
                if e == ace_class:
                    n_ace -= 1
            if hard > 21:
                continue
            ace = n_ace > 0
            left = n_pool - n_row
            own = totals[hard, 1 if ace else 0]
            cat = 0 if own <= 16 else own - 16
            if left <= 0:
                v = stand[r, cat]
                hit[e_i, r] = v
                dbl[e_i, r] = v
                hs[e_i, r] = v
                continue
            ev_hit = 0.0
            ev_dbl = 0.0
            missing = False
            for j in range(K):
                cnt = pool[j] - rows[r, j]
                if cnt <= 0:
                    continue
                p = cnt / left
                nh = hard + vals[j]
                if nh > 21:
                    if completer < 0 or left <= 1:
                        ev_hit -= p
                        ev_dbl -= p
                    else:
                        hole = pool[completer] - rows[r, completer] - (1 if j == completer else 0)
                        q = p * (1.0 - hole / (left - 1))
                        ev_hit -= q
                        ev_dbl -= q
                    continue
                na = ace or aces[j]
                total = totals[nh, 1 if na else 0]
                k = child[r, j]
                if k < 0:  # a row the caller did not ask for: no value here
                    missing = True
                    break
                ncat = 0 if total <= 16 else total - 16
                st = stand[k, ncat]
                ev_dbl += p * st
                if total == auto_total:
                    ev_hit += p * st
                else:
                    ev_hit += p * hs[e_i, k]
            if missing:
                continue
            hit[e_i, r] = ev_hit
            dbl[e_i, r] = ev_dbl
            st_own = stand[r, cat]
            hs[e_i, r] = st_own if st_own >= ev_hit else ev_hit
    return hs, hit, dbl


_rows = _jit(_rows)
_dealer_tree = _jit(_dealer_tree)
context_tables = _jit(_context_tables)
hit_tables = _jit(_hit_tables)

context_tables.__doc__ = """``(codes, rows, radix, stand)`` of a context.

``pool`` (int64, K class counts, the upcard already out), ``vals``/``aces`` (per
class), ``up`` (the upcard's class), ``stop`` (``[hard, ace] -> outcome slot`` where a
dealer hand of two or more cards stops, else -1), ``natural`` (per class: that hole
card makes a dealer natural), ``pay`` (``7 x C``: a standing hand's payoff per dealer
slot and player category), ``bases``/``max_hards`` (the row families: supersets of
each base up to a hard total). Returns the rows' codes (sorted), the rows (``m x K``),
the mixed radix of the codes and ``stand = dealer_probabilities(row) @ pay``."""

hit_tables.__doc__ = """``(hs, hit, dbl)``: per extra class ``extras[e]`` (-1: none; else a
split partner card also out of the pool, the hand being the row less that card) and
row, the best of standing and hitting, the value of one hit then the best play, and
one card then standing (``NaN`` where the row is no such hand). ``totals[hard, ace]``
is the engine's score; ``completer`` the class of a hole card making a dealer natural
under a peek (-1: none); ``auto_total``: a hand reaching this total stands (-1:
none)."""
