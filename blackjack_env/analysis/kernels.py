"""Compiled kernels of the composition-dependent analysis (numba, optional).

:mod:`blackjack_env.analysis.composition` values a round off a pool of cards from
*rows*: every composition of player cards the round can reach (the hands, and the
split hands with the pair cards out beside them), each with the dealer's final-hand
probabilities off the pool less that row, and the best play of every hand. These
functions compute a round's tables in plain scalar loops compiled by numba:
:func:`round_rows` and :func:`round_structure` the rows and their links, once for the
ten upcards; per upcard :func:`dealer_stands` the stand values,
:func:`shared_two_card_tables` the hit and double values of the two-card hands (the
longer hands in a scratch vector), :func:`two_card_values` and :func:`split_values`
the best play of each two-card hand and the value of each split. They decide no rule:
every rule enters as a table built by the caller from the engine's functions (where
the dealer stops, which hole card makes a dealer natural, what a standing hand is
paid, how a hand is scored, which actions a hand has, when a split hand is done).

Installed with the ``fast`` extra (``pip install blackjack_env[fast]``); without
numba, :data:`AVAILABLE` is False and the composition analysis keeps its
pure-Python path, which gives the same figures (to 1e-12 in the tests) about 100
times slower.

Why numba: of the two tools measured (``scripts/bench_composition.py``, CPU of one
core), numpy vectorisation of the dealer recursion over every row of a context
(the pure path: one array operation per dealer node and card class, over all rows
at once) takes 1 to 4 s for a round, most of it in Python around the arrays (row
generation, per-node temporaries, the hit/stand recursion through dicts); the same
work as scalar loops compiled by numba takes 11 to 42 ms. Where the time goes (six
decks, a full shoe, 16,500 rows per upcard; ``cProfile``, two cores shared): the
dealer pass about 60%, the two-card tables 25%, the rows 8%, Python around them 10%.

The dealer pass is in product form: every path to a node of the dealer's graph draws
the same cards, so it has the same chance, and a node's chance follows from one
parent's by one factor; the stopped hands that end on the same cards in the same slot
are one term; busts are what the other slots leave. That is one multiply per node and
per stopped hand for each row (against one per edge, ten per node), over a block of
256 rows innermost, which LLVM vectorises (33 -> 14 ms for the ten upcards of six
decks under the earlier split rows, 7,300 per upcard).
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

__all__ = [
    "AVAILABLE",
    "DOUBLE_BIT",
    "HIT_BIT",
    "STAND_BIT",
    "SURRENDER_BIT",
    "dealer_stands",
    "round_rows",
    "round_structure",
    "shared_two_card_tables",
    "split_values",
    "two_card_values",
]

#: the most cards of one class a dealer's hand can draw (17 aces, with room to spare)
_DEALER_MOST = 30


def _digits(count: int, most: int) -> int:
    """The base of a class's digit in a composition code: the counts 0..``count`` it
    may take, at most 0..``most`` (so that the codes of a pool of thousands of decks
    still fit in 64 bits)."""
    return min(count, most) + 1


#: dealer outcome slots (``analysis.model.OUTCOMES``): 17..21, bust, blackjack
_SLOTS = 7
_BUST = 5


def _jit(fn: Any) -> Any:
    if numba is None:
        return fn
    return numba.njit(cache=True, nogil=True)(fn)


def _rows(pool: np.ndarray, vals: np.ndarray, bases: np.ndarray, max_hards: np.ndarray) -> Any:
    """Every composition ``y`` with ``bases[b] <= y <= pool`` and hard total at most
    ``max_hards[b]``, for some ``b``; each once, in the order of their mixed-radix codes.

    One depth-first walk over the class counts, the last class (the code's most
    significant digit) first and each count ascending, so the rows come out sorted and
    unique; a branch is cut where no family can still hold a row (2 ms for the ten
    upcards of six decks, against 10 ms for the families one by one and a sort)."""
    K = pool.shape[0]
    F = bases.shape[0]
    top = 0
    for b in range(F):
        top = max(top, max_hards[b])
    radix = np.ones(K, np.int64)
    for i in range(1, K):
        radix[i] = radix[i - 1] * (_digits(pool[i - 1], top // vals[i - 1]))
    # need[b, i]: the hard total family b's base asks of the classes below i
    need = np.zeros((F, K), np.int64)
    for b in range(F):
        for i in range(1, K):
            need[b, i] = need[b, i - 1] + bases[b, i - 1] * vals[i - 1]
    alive = np.zeros((K + 1, F), np.bool_)
    alive[K, :] = True
    hard_at = np.zeros(K + 1, np.int64)
    code_at = np.zeros(K + 1, np.int64)
    cur = np.zeros(K, np.int64)
    cap = 1024
    out = np.zeros((cap, K), np.int64)
    codes = np.zeros(cap, np.int64)
    m = 0
    i = K - 1
    while True:
        h = hard_at[i + 1] + cur[i] * vals[i]
        grow = False
        held = False
        for b in range(F):
            alive[i, b] = False
            if cur[i] > pool[i] or not alive[i + 1, b]:
                continue
            if h + need[b, i] <= max_hards[b]:
                grow = True
                if cur[i] >= bases[b, i]:
                    alive[i, b] = True
                    held = True
        if not grow:  # a larger count only raises the total: back up a class
            i += 1
            if i == K:
                break
            cur[i] += 1
            continue
        if not held:
            cur[i] += 1
            continue
        hard_at[i] = h
        code_at[i] = code_at[i + 1] + cur[i] * radix[i]
        if i > 0:
            i -= 1
            cur[i] = 0
            continue
        if m == cap:
            cap *= 2
            grown = np.zeros((cap, K), np.int64)
            grown[:m] = out[:m]
            out = grown
            grown_c = np.zeros(cap, np.int64)
            grown_c[:m] = codes[:m]
            codes = grown_c
        out[m] = cur
        codes[m] = code_at[0]
        m += 1
        cur[0] += 1
    return codes[:m].copy(), out[:m].copy(), radix


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
        radix[i] = radix[i - 1] * _digits(pool[i - 1], _DEALER_MOST)
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


def _dealer_paths(
    drawn: np.ndarray, count: np.ndarray, target: np.ndarray, pool: np.ndarray
) -> Any:
    """The dealer graph in product form.

    Every path to a node draws the same multiset of cards, so each has the same
    probability (a product of falling factorials over the cards left, whatever the
    order), and a node's chance is ``paths[node]`` times that of one path. So a node's
    chance follows from one parent's by one factor (``via[node]``: parent, class drawn,
    cards of it already drawn, ``paths[node] / paths[parent]``), and the stopped hands
    that end with the same cards in the same slot merge into one term (``ends``:
    node, class, cards of it drawn, slot, ``sum of paths[u] over the stopping edges
    (u, j) / paths[node]``)."""
    nodes, K = target.shape
    radix = np.ones(K, np.int64)
    for i in range(1, K):
        radix[i] = radix[i - 1] * (_digits(pool[i - 1], _DEALER_MOST) + 1)
    code = np.zeros(nodes, np.int64)
    for v in range(nodes):
        for i in range(K):
            code[v] += drawn[v, i] * radix[i]
    paths = np.zeros(nodes)
    paths[0] = 1.0
    via_parent = np.full(nodes, -1, np.int64)
    via_j = np.zeros(nodes, np.int64)
    for v in range(nodes):  # parents come first (breadth-first order)
        for j in range(K):
            t = target[v, j]
            if 0 <= t < (1 << 30):
                paths[t] += paths[v]
                if via_parent[t] < 0:
                    via_parent[t] = v
                    via_j[t] = j
    via = np.zeros((nodes, 3), np.int64)
    ratio = np.zeros(nodes)
    for v in range(1, nodes):
        p = via_parent[v]
        via[v, 0] = p
        via[v, 1] = via_j[v]
        via[v, 2] = drawn[p, via_j[v]]
        ratio[v] = paths[v] / paths[p]
    # stopped hands, merged by (final cards, slot)
    slot_of = dict()
    slot_of[-1] = -1  # (types the dict; no key is negative)
    end_node = np.zeros(nodes * K, np.int64)
    end_j = np.zeros(nodes * K, np.int64)
    end_slot = np.zeros(nodes * K, np.int64)
    end_w = np.zeros(nodes * K)
    m = 0
    for v in range(nodes):
        for j in range(K):
            t = target[v, j]
            if t >= 0:
                continue
            slot = -1 - t
            if slot == _BUST:  # by complement in the caller
                continue
            key = (code[v] + radix[j]) * 8 + slot
            if key in slot_of:
                e = slot_of[key]
            else:
                e = m
                slot_of[key] = e
                end_node[e] = v
                end_j[e] = j
                end_slot[e] = slot
                m += 1
            end_w[e] += paths[v]
    ends = np.zeros((m, 4), np.int64)
    weight = np.zeros(m)
    for e in range(m):
        v = end_node[e]
        ends[e, 0] = v
        ends[e, 1] = end_j[e]
        ends[e, 2] = drawn[v, end_j[e]]
        ends[e, 3] = end_slot[e]
        weight[e] = end_w[e] / paths[v]
    return via, ratio, ends, weight


def _dealer_stands(
    rows: np.ndarray,
    pool: np.ndarray,
    vals: np.ndarray,
    aces: np.ndarray,
    up: int,
    stop: np.ndarray,
    natural: np.ndarray,
    pay: np.ndarray,
) -> Any:
    """``dealer_probabilities(row) @ pay`` for each row (a row holding more cards of a
    class than ``pool`` gets a meaningless value: no hand within the pool reaches it)."""
    K = pool.shape[0]
    drawn, count, target = _dealer_tree(pool, vals, aces, up, stop, natural)
    via, ratio, ends, weight = _dealer_paths(drawn, count, target, pool)
    m = rows.shape[0]
    nodes = drawn.shape[0]
    n_ends = ends.shape[0]
    max_count = 0
    for v in range(nodes):
        max_count = max(max_count, count[v])
    total = 0
    for i in range(K):
        total += pool[i]
    C = pay.shape[1]
    stand = np.zeros((m, C))
    # rows in blocks, the block innermost: each node and each stopped hand is one vector
    # loop over the block's rows (numba/LLVM vectorise it). Per row this is one multiply
    # per node and per distinct stopped hand, against one per edge of the graph (about
    # ten per node) in the edge-by-edge pass it replaced: 33 -> 14 ms for the ten
    # upcards of six decks.
    B = 256
    scaled = np.zeros((nodes, B))
    out = np.zeros((_SLOTS, B))
    acc = np.zeros((C, B))
    avail = np.zeros((K, B))
    inv = np.zeros((max_count + 1, B))
    lefts = np.zeros(B)
    dropped = np.zeros(B)
    for r0 in range(0, m, B):
        nb = min(B, m - r0)
        for i in range(K):
            for b in range(B):
                avail[i, b] = 0.0
        for n in range(max_count + 1):
            for b in range(B):
                inv[n, b] = 0.0
        min_left = total
        for b in range(nb):
            left = total
            for i in range(K):
                a_i = pool[i] - rows[r0 + b, i]
                avail[i, b] = a_i if a_i > 0 else 0
                left -= rows[r0 + b, i]
            min_left = min(min_left, left)
            lefts[b] = left
        for n in range(max_count + 1):  # (a vector loop: the block innermost)
            inv_n = inv[n]
            for b in range(nb):
                gap = lefts[b] - n
                inv_n[b] = 1.0 / gap if gap > 0.0 else 0.0
        out[:, :] = 0.0
        dropped[:] = 0.0
        # scaled[v] = chance of node v times 1 / (cards left at v); the stopped hands of
        # a node right after it, while its row is in cache (ends are in node order)
        e = 0
        for v in range(nodes):
            inv_v = inv[count[v]]
            sv = scaled[v]
            if v == 0:
                for b in range(B):
                    sv[b] = (1.0 if b < nb else 0.0) * inv_v[b]
            else:
                sp = scaled[via[v, 0]]
                aj = avail[via[v, 1]]
                d = via[v, 2]
                f = ratio[v]
                for b in range(B):
                    cnt = aj[b] - d
                    sv[b] = sp[b] * (cnt if cnt > 0.0 else 0.0) * f * inv_v[b]
            if count[v] >= min_left:
                # a path that would need a card from an empty pool is dropped (module
                # docstring of ``composition``): its mass is neither a bust nor a stand
                for b in range(nb):
                    if inv_v[b] == 0.0:
                        if v == 0:
                            dropped[b] += 1.0
                        else:
                            cnt = avail[via[v, 1], b] - via[v, 2]
                            dropped[b] += (
                                scaled[via[v, 0], b] * (cnt if cnt > 0.0 else 0.0) * ratio[v]
                            )
            while e < n_ends and ends[e, 0] == v:
                aj = avail[ends[e, 1]]
                d = ends[e, 2]
                dst = out[ends[e, 3]]
                f = weight[e]
                for b in range(B):
                    cnt = aj[b] - d
                    dst[b] += sv[b] * (cnt if cnt > 0.0 else 0.0) * f
                e += 1
        # busts by complement, then the payoffs: vector loops over the block
        bust = out[_BUST]
        for b in range(B):
            bust[b] = 1.0 - dropped[b]
        for s in range(_SLOTS):
            if s != _BUST:
                row = out[s]
                for b in range(B):
                    bust[b] -= row[b]
        for c in range(C):
            acc_c = acc[c]
            for b in range(B):
                acc_c[b] = 0.0
            for s in range(_SLOTS):
                w = pay[s, c]
                row = out[s]
                for b in range(B):
                    acc_c[b] += row[b] * w
        for b in range(nb):
            for c in range(C):
                stand[r0 + b, c] = acc[c, b]
    return stand


#: action bits of the ``legal`` tables (:func:`two_card_values`, :func:`split_values`)
STAND_BIT, HIT_BIT, DOUBLE_BIT, SURRENDER_BIT = 1, 2, 4, 8


def _category(total: int, natural: int) -> int:
    """The column of a stand table: 0 for 16 or less, 1..5 for 17..21, 6 a natural."""
    if natural:
        return 6
    return 0 if total <= 16 else total - 16


def _round_structure(
    rows: np.ndarray, radix: np.ndarray, pool: np.ndarray, vals: np.ndarray, extras: np.ndarray
) -> Any:
    """What the contexts of a round share about its rows (those of :func:`round_rows`,
    sorted by code): ``child[r, j]`` the row with one more card of class ``j`` (-1:
    none), each row's hard total and card count, and per extra ``e`` (as in
    :func:`shared_two_card_tables`) the rows holding a hand of it (total 21 or less), longest
    first: ``members[start[e]:start[e + 1]]``."""
    m, K = rows.shape
    E = extras.shape[0]
    codes = np.zeros(m, np.int64)
    for r in range(m):
        for i in range(K):
            codes[r] += rows[r, i] * radix[i]
    child = np.full((m, K), -1, np.int64)
    for j in range(K):
        k = 0
        for r in range(m):
            c = codes[r] + radix[j]
            while k < m and codes[k] < c:
                k += 1
            if k == m:
                break
            # (a count at the top of its digit would carry into the next class)
            fits = j == K - 1 or rows[r, j] + 1 < radix[j + 1] // radix[j]
            if codes[k] == c and rows[r, j] < pool[j] and fits:
                child[r, j] = k
    row_hard = np.zeros(m, np.int64)
    row_n = np.zeros(m, np.int64)
    for r in range(m):
        for i in range(K):
            row_hard[r] += rows[r, i] * vals[i]
            row_n[r] += rows[r, i]
    start = np.zeros(E + 1, np.int64)
    members = np.empty(E * m, np.int64)
    t = 0
    for e_i in range(E):
        e = extras[e_i, 0]
        n_e = extras[e_i, 1] if e >= 0 else 0
        start[e_i] = t
        for r in range(m - 1, -1, -1):
            if e >= 0 and rows[r, e] < 1 + n_e:
                continue
            if row_hard[r] - (n_e * vals[e] if e >= 0 else 0) > 21:
                continue
            members[t] = r
            t += 1
    start[E] = t
    return codes, child, row_hard, row_n, start, members[:t].copy()


def _shared_two_card_tables(
    rows: np.ndarray,
    child: np.ndarray,
    row_hard: np.ndarray,
    row_n: np.ndarray,
    start: np.ndarray,
    members: np.ndarray,
    stand: np.ndarray,
    pool: np.ndarray,
    vals: np.ndarray,
    aces: np.ndarray,
    ace_class: int,
    completer: int,
    auto_total: int,
    totals: np.ndarray,
    extras: np.ndarray,
    which: np.ndarray,
) -> Any:
    """The hit and double values of the two-card hands of one context, over a round's
    shared rows (:func:`_round_structure`): ``(row, hit, dbl)``, each ``E x K x K``:
    for extra ``e`` and hand ``{i, j}``, the row (-1: none), the value of one hit then
    the best play, and of one card then standing. An extra ``(class, n)`` (class -1:
    none) is ``n`` pair cards of a split hand's class also out of the pool, the hand
    being the row less those cards; ``which[e]`` is the index in the round's extras of
    the context's extra ``e``. ``totals[hard, ace]`` is the engine's score;
    ``completer`` the class of a hole card making a dealer natural under a peek (-1:
    none); ``auto_total``: a hand reaching this total stands (-1: none). The best of
    standing and hitting of the longer hands lives in one scratch vector per extra, so
    the memory is ``m`` values, not ``E x m``. A draw the context's ``pool`` does not
    hold is skipped, so a row holding more cards than ``pool`` (its value meaningless)
    is never read from a hand within it."""
    m, K = rows.shape
    E = which.shape[0]
    nan = np.nan
    n_pool = 0
    for i in range(K):
        n_pool += pool[i]
    two_row = np.full((E, K, K), -1, np.int64)
    two_hit = np.full((E, K, K), nan)
    two_dbl = np.full((E, K, K), nan)
    # written for each row of an extra before a longer hand of that extra reads it (a
    # child of a row of the extra is one: it holds the same cards and one more)
    hs = np.empty(m)
    for e_i in range(E):
        w = which[e_i]
        e = extras[w, 0]
        n_e = extras[w, 1] if e >= 0 else 0
        for t in range(start[w], start[w + 1]):
            r = members[t]
            hard = row_hard[r]
            n_row = row_n[r] - n_e
            n_ace = rows[r, ace_class]
            if e >= 0:
                hard -= n_e * vals[e]
                if e == ace_class:
                    n_ace -= n_e
            a = -1
            b = -1
            if n_row == 2:
                for i in range(K):
                    cnt = rows[r, i] - (n_e if i == e else 0)
                    for _ in range(cnt):
                        if a < 0:
                            a = i
                        else:
                            b = i
                two_row[e_i, a, b] = r
                two_row[e_i, b, a] = r
            ace = n_ace > 0
            left = n_pool - row_n[r]
            own = totals[hard, 1 if ace else 0]
            cat = 0 if own <= 16 else own - 16
            if left <= 0:
                v = stand[r, cat]
                hs[r] = v
                if a >= 0:
                    two_hit[e_i, a, b] = two_hit[e_i, b, a] = v
                    two_dbl[e_i, a, b] = two_dbl[e_i, b, a] = v
                continue
            ev_hit = 0.0
            ev_dbl = 0.0
            missing = False
            inv_left = 1.0 / left
            for j in range(K):
                cnt = pool[j] - rows[r, j]
                if cnt <= 0:
                    continue
                p = cnt * inv_left
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
                    ev_hit += p * hs[k]
            if missing:
                hs[r] = nan
                continue
            st_own = stand[r, cat]
            hs[r] = st_own if st_own >= ev_hit else ev_hit
            if a >= 0:
                two_hit[e_i, a, b] = two_hit[e_i, b, a] = ev_hit
                two_dbl[e_i, a, b] = two_dbl[e_i, b, a] = ev_dbl
    return two_row, two_hit, two_dbl


def _best_two(
    e_i: int,
    i: int,
    j: int,
    fs: int,
    sa: int,
    h: int,
    pair: int,
    natural: int,
    two_row: np.ndarray,
    two_hit: np.ndarray,
    two_dbl: np.ndarray,
    stand: np.ndarray,
    rows: np.ndarray,
    pool: np.ndarray,
    vals: np.ndarray,
    aces: np.ndarray,
    totals: np.ndarray,
    legal: np.ndarray,
    completer: int,
    surrender_mode: int,
) -> float:
    """The best joint value of a two-card hand ``{i, j}`` (extra ``e_i``) over its legal
    actions other than a split (``_Context.best``)."""
    r = two_row[e_i, i, j]
    if r < 0:
        return np.nan
    hard = vals[i] + vals[j]
    ace = 1 if (aces[i] or aces[j]) else 0
    mask = legal[hard, ace, fs, sa, h, pair]
    best = -np.inf
    if mask & STAND_BIT:
        best = max(best, stand[r, _category(totals[hard, ace], natural)])
    if mask & HIT_BIT:
        best = max(best, two_hit[e_i, i, j])
    if mask & DOUBLE_BIT:
        best = max(best, 2.0 * two_dbl[e_i, i, j])
    if mask & SURRENDER_BIT:
        K = rows.shape[1]
        left = 0
        for k in range(K):
            left += pool[k] - rows[r, k]
        p = 0.0
        if completer >= 0 and left > 0:
            p = (pool[completer] - rows[r, completer]) / left
        if surrender_mode == 2:
            v = -p - 0.5 * (1.0 - p)
        elif surrender_mode == 1:
            v = -0.5 * (1.0 - p)
        else:
            v = -0.5
        best = max(best, v)
    return best


def _two_card_values(
    hands: np.ndarray,
    two_row: np.ndarray,
    two_hit: np.ndarray,
    two_dbl: np.ndarray,
    stand: np.ndarray,
    rows: np.ndarray,
    pool: np.ndarray,
    vals: np.ndarray,
    aces: np.ndarray,
    totals: np.ndarray,
    legal: np.ndarray,
    completer: int,
    surrender_mode: int,
) -> Any:
    out = np.empty(hands.shape[0])
    for q in range(hands.shape[0]):
        out[q] = _best_two(
            0, hands[q, 0], hands[q, 1], 0, 0, 1, hands[q, 2], hands[q, 3], two_row, two_hit,
            two_dbl, stand, rows, pool, vals, aces, totals, legal, completer, surrender_mode,
        )
    return out


def _split_values(
    splits: np.ndarray,
    max_hands: int,
    ext_index: np.ndarray,
    two_row: np.ndarray,
    two_hit: np.ndarray,
    two_dbl: np.ndarray,
    stand: np.ndarray,
    rows: np.ndarray,
    pool: np.ndarray,
    vals: np.ndarray,
    aces: np.ndarray,
    totals: np.ndarray,
    legal: np.ndarray,
    settled: np.ndarray,
    natural_split: np.ndarray,
    split_ok: np.ndarray,
    completer: int,
    surrender_mode: int,
) -> Any:
    H = max_hands
    K = pool.shape[0]
    n_pool = 0
    for i in range(K):
        n_pool += pool[i]
    out = np.zeros(splits.shape[0])
    V = np.zeros((H + 2, H + 2))
    p_t = np.zeros(K + 1)
    val_t = np.zeros(K + 1)
    rs_t = np.zeros(K + 1, np.bool_)
    for q in range(splits.shape[0]):
        c = splits[q, 0]
        same = splits[q, 1]
        sa = 1 if aces[c] else 0
        V[:, :] = 0.0
        for h in range(H, 1, -1):
            gone = h  # the pair and one card per resplit
            total = n_pool - gone
            same_g = same - (gone - 2)
            nt = 0
            e_i = ext_index[c, gone - 1] if gone - 1 < ext_index.shape[1] else -1
            if total > 0 and e_i >= 0:
                for j in range(K):
                    av = pool[j] - (gone if j == c else 0)
                    if av <= 0:
                        continue
                    for step in range(2):  # a pairing card first (as _Context.second_cards)
                        if j != c:
                            if step == 0:
                                continue
                            pair = 0
                            n_j = av
                        elif step == 0:
                            pair = 1
                            n_j = same_g
                        else:
                            pair = 0
                            n_j = av - same_g
                        if n_j <= 0:
                            continue
                        hard = vals[c] + vals[j]
                        ace = 1 if (aces[c] or aces[j]) else 0
                        natural = 1 if natural_split[hard, ace] else 0
                        tot = totals[hard, ace]
                        p_t[nt] = n_j / total
                        if settled[tot, sa, h, pair, natural]:
                            r = two_row[e_i, c, j]
                            cat = _category(tot, natural)
                            val_t[nt] = stand[r, cat] if r >= 0 else np.nan
                            rs_t[nt] = False
                        else:
                            val_t[nt] = _best_two(
                                e_i, c, j, 1, sa, h, pair, natural, two_row, two_hit, two_dbl,
                                stand, rows, pool, vals, aces, totals, legal, completer,
                                surrender_mode,
                            )
                            rs_t[nt] = split_ok[pair, h, sa]
                        nt += 1
            for k in range(1, H + 1):
                rest = V[h, k - 1]
                ev = 0.0
                for t in range(nt):
                    no_split = val_t[t] + rest
                    if rs_t[t]:
                        again = V[h + 1, k + 1]
                        ev += p_t[t] * (no_split if no_split >= again else again)
                    else:
                        ev += p_t[t] * no_split
                V[h, k] = ev
        out[q] = V[2, 2]
    return out


_digits = _jit(_digits)
_rows = _jit(_rows)
_dealer_tree = _jit(_dealer_tree)
_dealer_paths = _jit(_dealer_paths)
_dealer_stands = _jit(_dealer_stands)
dealer_stands = _dealer_stands
round_structure = _jit(_round_structure)
shared_two_card_tables = _jit(_shared_two_card_tables)
round_rows = _rows  # (its own docstring: the rows a round's contexts share)
_category = _jit(_category)
_best_two = _jit(_best_two)
two_card_values = _jit(_two_card_values)
split_values = _jit(_split_values)

