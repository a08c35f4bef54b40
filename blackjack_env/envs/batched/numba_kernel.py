"""numba kernels: the batched tables' round, table by table, in compiled code.

Each function is the per-table form of a method of
:class:`~blackjack_env.envs.vector_core.TableBatch` (same name without the
leading underscore where possible) and reads and writes the same arrays, so a
``TableBatch`` can run its hot paths (:meth:`step`, :meth:`start_rounds`)
here and every other method in numpy. The kernel draws its random numbers from
its own SplitMix64 stream, seeded once from the batch's injected generator, so
trajectories are deterministic for a seed (but differ from the numpy path's).

Arrays are passed as tuples (see :func:`pack`):

* ``ti``: per-table int64 rows, indices ``POS .. ROUNDS`` below;
* ``tb``: per-table bool rows ``RESHUFFLED .. PEEK_POSSIBLE``;
* ``tf``: per-table float rows ``INSURANCE, INSURANCE_NET``;
* ``hi``: per-hand int64 ``(H, N)`` arrays ``HARD .. OUTCOME``;
* ``hb``: per-hand bool ``(H, N)`` arrays ``ACE .. SETTLED``;
* ``hf``: per-hand float ``(H, N)`` ``NET``;
* ``cfg``: int64 rule constants ``C_* ``; ``cfgf``: floats (cut, payout...).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

# per-table int rows
(POS, STACKED_END, ROUND_START, DEALT, UNDEALT_HILO, SHUFFLES, MID_RESHUFFLES, PHASE, NHANDS,
 CUR, LAST_HAND, D_HARD, D_N, UP, HOLE, ROUNDS) = range(16)  # fmt: skip
# per-table bool rows
RESHUFFLED, D_ACE, HOLE_REVEALED, PEEK_POSSIBLE = range(4)
# per-table float rows
INSURANCE, INSURANCE_NET = range(2)
# per-hand int arrays
HARD, NCARDS, R0, R1, STAKE, OUTCOME = range(6)
# per-hand bool arrays
ACE, DOUBLED, SURRENDERED, DONE, SETTLED = range(5)
# config ints
(C_INFINITE, C_SIZE, C_PEEK, C_NO_HOLE, C_H17, C_AUTO21, C_NAT_ENDS, C_NAT_AT_DEAL,
 C_NAT_BEATS_21, C_DNAT_BEATS_21, C_BAS, C_TIES, C_HIGHEST, C_DOUBLE, C_DAS, C_MAX_SPLIT,
 C_RSA, C_HSA, C_BY_VALUE, C_HALVE, C_SURRENDER, C_ASK_INS, C_BET,
 C_HAS_CUT) = range(24)  # fmt: skip
N_CFG = 24
# config floats
F_CUT = 0

# phases (BatchPhase)
DECIDE, INSURE_PHASE, OVER = 0, 1, 2
# outcomes (vector_core.OUTCOMES order)
WIN, BJ, PUSH, LOSS, BUST, SURR, EVEN = 0, 1, 2, 3, 4, 5, 6
# actions
STAND, HIT, DOUBLE, SPLIT, SURRENDER, INSURE, DECLINE = 0, 1, 2, 3, 4, 5, 6
# rule codes
TIES_PUSH, TIES_DEALER, TIES_PLAYER_LOSES = 0, 1, 2
DBL_ANY, DBL_9_11, DBL_10_11, DBL_NEVER = 0, 1, 2, 3
SUR_NONE, SUR_LATE, SUR_EARLY = 0, 1, 2

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0


@njit(cache=True, inline="always")
def _uniform(rng: Any) -> float:
    """SplitMix64: the next uniform number in [0, 1) of the stream in ``rng[0]``."""
    z = rng[0] + _GOLDEN
    rng[0] = z
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    z = z ^ (z >> _S31)
    return float(z >> _S11) * _INV53


@njit(cache=True)
def _refill(shoe, ti, lk, t):
    """The shoe ran dry mid-round: the discards become the undealt cards."""
    start = ti[ROUND_START][t]
    if start == 0:
        raise RuntimeError("the shoe and the discard tray are empty: every card is on the table")
    size = shoe.shape[1]
    row = shoe[t]
    on_table = row[start:].copy()
    discards = row[:start].copy()
    k = on_table.size
    row[:k] = on_table
    row[k:] = discards
    hilo = 0
    for c in discards:
        hilo += lk[2][c]
    ti[UNDEALT_HILO][t] = hilo
    ti[ROUND_START][t] = 0
    ti[POS][t] = k
    ti[MID_RESHUFFLES][t] += 1
    _ = size


@njit(cache=True)
def _draw(shoe, ti, cfg, lk, rng, t):
    """One card id for table ``t`` (stacked cards first; finite: a random undealt card)."""
    p = ti[POS][t]
    if cfg[C_INFINITE]:
        if p < ti[STACKED_END][t]:
            ti[POS][t] = p + 1
            return np.int64(shoe[t, p])
        return np.int64(_uniform(rng) * 52.0)
    size = cfg[C_SIZE]
    if p >= size:
        _refill(shoe, ti, lk, t)
        p = ti[POS][t]
    j = p if p < ti[STACKED_END][t] else p + np.int64(_uniform(rng) * (size - p))
    c = shoe[t, j]
    shoe[t, j] = shoe[t, p]
    shoe[t, p] = c
    ti[POS][t] = p + 1
    ti[DEALT][t] += 1
    ti[UNDEALT_HILO][t] -= lk[2][c]
    return np.int64(c)


@njit(cache=True, inline="always")
def _total(hard: int, ace: bool) -> int:
    return hard + 10 if (ace and hard <= 11) else hard


@njit(cache=True)
def _is_bj(ti, hi, hb, cfg, h, t):
    if hi[NCARDS][h, t] != 2 or not hb[ACE][h, t] or hi[HARD][h, t] != 11:
        return False
    return bool(cfg[C_BAS]) or ti[NHANDS][t] == 1


@njit(cache=True)
def _dealer_bj(ti, tb, t):
    return ti[D_N][t] == 2 and tb[D_ACE][t] and ti[D_HARD][t] == 11


@njit(cache=True)
def _pay(hi, hb, hf, lk, h, t, code):
    hi[OUTCOME][h, t] = code
    hf[h, t] = hi[STAKE][h, t] * lk[3][code]
    hb[SETTLED][h, t] = True
    hb[DONE][h, t] = True


@njit(cache=True)
def _add_card(hi, hb, lk, h, t, c):
    r = lk[1][c]
    hi[HARD][h, t] += lk[0][r]
    if r == 0:
        hb[ACE][h, t] = True
    if hi[NCARDS][h, t] == 1:
        hi[R1][h, t] = r
    hi[NCARDS][h, t] += 1


@njit(cache=True)
def _can_split(ti, hi, hb, cfg, lk, h, t):
    max_split = cfg[C_MAX_SPLIT]
    nh = ti[NHANDS][t]
    if max_split <= 1 or nh >= max_split or hi[NCARDS][h, t] != 2:
        return False
    r0, r1 = hi[R0][h, t], hi[R1][h, t]
    if cfg[C_BY_VALUE]:
        if lk[0][r0] != lk[0][r1]:
            return False
    elif r0 != r1:
        return False
    if not cfg[C_RSA] and nh > 1 and r0 == 0:
        return False
    return not (cfg[C_HALVE] and hi[STAKE][h, t] < 2)


@njit(cache=True)
def _check_two_card(ti, hi, hb, cfg, lk, h, t):
    split_aces = ti[NHANDS][t] > 1 and hi[R0][h, t] == 0
    if split_aces and not cfg[C_HSA]:
        if not _can_split(ti, hi, hb, cfg, lk, h, t):
            hb[DONE][h, t] = True
        return
    total21 = _total(hi[HARD][h, t], hb[ACE][h, t]) == 21
    if (_is_bj(ti, hi, hb, cfg, h, t) and cfg[C_NAT_ENDS]) or (total21 and cfg[C_AUTO21]):
        hb[DONE][h, t] = True


@njit(cache=True)
def _compare(ti, tb, hi, hb, cfg, h, t):
    """Outcome of a standing hand against the dealer's final hand (Table._compare)."""
    dbj = _dealer_bj(ti, tb, t)
    if hb[SURRENDERED][h, t]:
        return LOSS if dbj else SURR
    hard = hi[HARD][h, t]
    if hard > 21:
        return BUST
    ties = cfg[C_TIES]
    pbj = _is_bj(ti, hi, hb, cfg, h, t)
    d_hard = ti[D_HARD][t]
    d_total = _total(d_hard, tb[D_ACE][t])
    d_bust = d_hard > 21
    if pbj and dbj:
        return LOSS if ties == TIES_DEALER else PUSH
    if pbj and (cfg[C_NAT_BEATS_21] or d_total != 21 or d_bust):
        return BJ
    if dbj and cfg[C_DNAT_BEATS_21]:
        return LOSS
    if d_bust:
        return WIN
    total = _total(hard, hb[ACE][h, t])
    if total > d_total:
        return BJ if pbj else WIN
    if total < d_total:
        return LOSS
    return PUSH if ties == TIES_PUSH else LOSS


@njit(cache=True)
def _settle(ti, tb, hi, hb, hf, cfg, lk, t):
    nh = ti[NHANDS][t]
    if not cfg[C_HIGHEST]:
        for h in range(nh):
            if not hb[SETTLED][h, t]:
                _pay(hi, hb, hf, lk, h, t, _compare(ti, tb, hi, hb, cfg, h, t))
        return
    top = -1
    for h in range(nh):
        if hb[SETTLED][h, t]:
            continue
        if hb[SURRENDERED][h, t]:
            _pay(hi, hb, hf, lk, h, t, _compare(ti, tb, hi, hb, cfg, h, t))
        elif hi[HARD][h, t] <= 21:
            top = max(top, _total(hi[HARD][h, t], hb[ACE][h, t]))
    if top < 0:
        return
    d_bust = ti[D_HARD][t] > 21
    for h in range(nh):
        if hb[SETTLED][h, t] or hi[HARD][h, t] > 21:
            continue
        if d_bust or _total(hi[HARD][h, t], hb[ACE][h, t]) == top:
            code = _compare(ti, tb, hi, hb, cfg, h, t)
        else:
            code = LOSS
        _pay(hi, hb, hf, lk, h, t, code)


@njit(cache=True)
def _dealer_turn(shoe, ti, tb, hi, hb, hf, cfg, lk, rng, t):
    ti[PHASE][t] = OVER
    nh = ti[NHANDS][t]
    ti[CUR][t] = nh - 1
    any_open = False
    plays = False
    for h in range(nh):
        if not hb[SETTLED][h, t]:
            any_open = True
            if not hb[SURRENDERED][h, t]:
                plays = True
    if not any_open:
        tb[HOLE_REVEALED][t] = not cfg[C_NO_HOLE]
        return
    if cfg[C_NO_HOLE]:
        c = _draw(shoe, ti, cfg, lk, rng, t)
        _dealer_add(ti, tb, lk, t, c)
        ti[HOLE][t] = c
    tb[HOLE_REVEALED][t] = True
    if plays:
        h17 = cfg[C_H17]
        while True:
            hard = ti[D_HARD][t]
            soft = tb[D_ACE][t] and hard <= 11
            total = hard + 10 if soft else hard
            if total > 17 or (total == 17 and not (soft and h17)):
                break
            _dealer_add(ti, tb, lk, t, _draw(shoe, ti, cfg, lk, rng, t))
    _settle(ti, tb, hi, hb, hf, cfg, lk, t)


@njit(cache=True)
def _dealer_add(ti, tb, lk, t, c):
    r = lk[1][c]
    ti[D_HARD][t] += lk[0][r]
    if r == 0:
        tb[D_ACE][t] = True
    ti[D_N][t] += 1


@njit(cache=True)
def _advance(shoe, ti, tb, hi, hb, hf, cfg, lk, rng, t):
    while True:
        cur = ti[CUR][t] + 1
        ti[CUR][t] = cur
        if cur >= ti[NHANDS][t]:
            _dealer_turn(shoe, ti, tb, hi, hb, hf, cfg, lk, rng, t)
            return
        if not hb[DONE][cur, t]:
            if hi[NCARDS][cur, t] == 1:
                _add_card(hi, hb, lk, cur, t, _draw(shoe, ti, cfg, lk, rng, t))
                _check_two_card(ti, hi, hb, cfg, lk, cur, t)
            elif cfg[C_AUTO21] and _total(hi[HARD][cur, t], hb[ACE][cur, t]) == 21:
                hb[DONE][cur, t] = True
            if not hb[DONE][cur, t]:
                return


@njit(cache=True)
def _do_peek(ti, tb, tf, hi, hb, hf, cfg, lk, t):
    ins = tf[INSURANCE][t]
    dbj = tb[PEEK_POSSIBLE][t] and _dealer_bj(ti, tb, t)
    if ins > 0:
        tf[INSURANCE_NET][t] = 2.0 * ins if dbj else -ins
    if dbj:
        tb[HOLE_REVEALED][t] = True
        _settle_compare_all(ti, tb, hi, hb, hf, cfg, lk, t)
        ti[PHASE][t] = OVER
    elif (
        cfg[C_NAT_BEATS_21]
        and not cfg[C_HIGHEST]
        and hb[DONE][0, t]
        and not hb[SETTLED][0, t]
        and _is_bj(ti, hi, hb, cfg, 0, t)
    ):
        _pay(hi, hb, hf, lk, 0, t, BJ)


@njit(cache=True)
def _settle_compare_all(ti, tb, hi, hb, hf, cfg, lk, t):
    for h in range(ti[NHANDS][t]):
        if not hb[SETTLED][h, t]:
            _pay(hi, hb, hf, lk, h, t, _compare(ti, tb, hi, hb, cfg, h, t))


@njit(cache=True)
def _split(shoe, ti, hi, hb, hf, cfg, lk, rng, t, h):
    nh = ti[NHANDS][t]
    for k in range(nh, h + 1, -1):  # hands after h move one place right
        for a in hi:
            a[k, t] = a[k - 1, t]
        for a in hb:
            a[k, t] = a[k - 1, t]
        hf[k, t] = hf[k - 1, t]
    n = h + 1
    r1 = hi[R1][h, t]
    v1 = lk[0][r1]
    for a in hi:
        a[n, t] = 0
    for a in hb:
        a[n, t] = False
    hf[n, t] = 0.0
    hi[OUTCOME][n, t] = -1
    hi[HARD][n, t] = v1
    hb[ACE][n, t] = r1 == 0
    hi[NCARDS][n, t] = 1
    hi[R0][n, t] = r1
    if cfg[C_HALVE]:
        half = hi[STAKE][h, t] // 2
        hi[STAKE][h, t] = half
        hi[STAKE][n, t] = half
    else:
        hi[STAKE][n, t] = hi[STAKE][h, t]
    hi[HARD][h, t] -= v1
    hb[ACE][h, t] = hi[R0][h, t] == 0
    hi[NCARDS][h, t] = 1
    ti[NHANDS][t] = nh + 1
    _add_card(hi, hb, lk, h, t, _draw(shoe, ti, cfg, lk, rng, t))
    _check_two_card(ti, hi, hb, cfg, lk, h, t)


@njit(cache=True)
def _act_play(shoe, ti, tb, hi, hb, hf, cfg, lk, rng, t, a):
    h = ti[CUR][t]
    ti[LAST_HAND][t] = h
    if a == HIT or a == DOUBLE:  # noqa: SIM109 - plain comparisons compile in numba
        if a == DOUBLE:
            hi[STAKE][h, t] *= 2
            hb[DOUBLED][h, t] = True
            hb[DONE][h, t] = True
        _add_card(hi, hb, lk, h, t, _draw(shoe, ti, cfg, lk, rng, t))
        hard = hi[HARD][h, t]
        if hard > 21:
            _pay(hi, hb, hf, lk, h, t, BUST)
        elif cfg[C_AUTO21] and _total(hard, hb[ACE][h, t]) == 21:
            hb[DONE][h, t] = True
    elif a == STAND:
        hb[DONE][h, t] = True
    elif a == SURRENDER:
        hb[SURRENDERED][h, t] = True
        hb[DONE][h, t] = True
        if cfg[C_SURRENDER] == SUR_EARLY or cfg[C_PEEK]:
            _pay(hi, hb, hf, lk, h, t, SURR)
    elif a == SPLIT:
        _split(shoe, ti, hi, hb, hf, cfg, lk, rng, t, h)
    if hb[DONE][h, t]:
        _advance(shoe, ti, tb, hi, hb, hf, cfg, lk, rng, t)


@njit(cache=True)
def _act_insurance(shoe, ti, tb, tf, hi, hb, hf, cfg, lk, rng, t, a):
    if a == INSURE:
        if _is_bj(ti, hi, hb, cfg, 0, t):
            _pay(hi, hb, hf, lk, 0, t, EVEN)
        else:
            tf[INSURANCE][t] = hi[STAKE][0, t] / 2.0
    elif a == SURRENDER:
        hb[SURRENDERED][0, t] = True
        _pay(hi, hb, hf, lk, 0, t, SURR)
    _do_peek(ti, tb, tf, hi, hb, hf, cfg, lk, t)
    if ti[PHASE][t] != OVER:
        ti[PHASE][t] = DECIDE
        ti[CUR][t] = -1
        _advance(shoe, ti, tb, hi, hb, hf, cfg, lk, rng, t)


@njit(cache=True)
def _round_net(ti, tf, hf, cfg, t):
    net = tf[INSURANCE_NET][t]
    for h in range(ti[NHANDS][t]):
        net += hf[h, t]
    return net / cfg[C_BET]


@njit(cache=True)
def step(shoe, ti, tb, tf, hi, hb, hf, cfg, cfgf, lk, rng, actions, active, over, reward):
    """One decision per active table; ``over`` / ``reward`` are written (TableBatch.step)."""
    n = ti[POS].size
    for t in range(n):
        over[t] = False
        reward[t] = 0.0
        if not active[t]:
            continue
        ph = ti[PHASE][t]
        if ph == INSURE_PHASE:
            _act_insurance(shoe, ti, tb, tf, hi, hb, hf, cfg, lk, rng, t, actions[t])
        elif ph == DECIDE:
            _act_play(shoe, ti, tb, hi, hb, hf, cfg, lk, rng, t, actions[t])
        if ti[PHASE][t] == OVER:
            over[t] = True
            reward[t] = _round_net(ti, tf, hf, cfg, t)
    _ = cfgf


@njit(cache=True)
def start_rounds(shoe, ti, tb, tf, hi, hb, hf, cfg, cfgf, lk, rng, idx, check_shuffle):
    """TableBatch.start_rounds for tables ``idx``; ``check_shuffle`` False when the
    caller already gathered the discards, reshuffled and stacked cards."""
    for t in idx:
        _start_round(shoe, ti, tb, tf, hi, hb, hf, cfg, cfgf, lk, rng, t, check_shuffle)


@njit(cache=True)
def _start_round(shoe, ti, tb, tf, hi, hb, hf, cfg, cfgf, lk, rng, t, check_shuffle):
    if not check_shuffle:
        pass
    elif cfg[C_INFINITE]:
        tb[RESHUFFLED][t] = False
    else:
        ti[ROUND_START][t] = ti[POS][t]
        dealt = ti[DEALT][t]
        need = dealt >= cfgf[F_CUT] if cfg[C_HAS_CUT] else dealt > 0
        tb[RESHUFFLED][t] = need
        if need:
            ti[POS][t] = 0
            ti[STACKED_END][t] = 0
            ti[ROUND_START][t] = 0
            ti[DEALT][t] = 0
            ti[UNDEALT_HILO][t] = 0
            ti[SHUFFLES][t] += 1
    hb[DOUBLED][0, t] = False
    hb[SURRENDERED][0, t] = False
    hb[DONE][0, t] = False
    hb[SETTLED][0, t] = False
    hf[0, t] = 0.0
    hi[OUTCOME][0, t] = -1
    ti[NHANDS][t] = 1
    ti[CUR][t] = 0
    ti[LAST_HAND][t] = 0
    tf[INSURANCE][t] = 0.0
    tf[INSURANCE_NET][t] = 0.0
    tb[HOLE_REVEALED][t] = False
    ti[ROUNDS][t] += 1
    c1 = _draw(shoe, ti, cfg, lk, rng, t)
    up = _draw(shoe, ti, cfg, lk, rng, t)
    c2 = _draw(shoe, ti, cfg, lk, rng, t)
    values, rank = lk[0], lk[1]
    r1, r2, ru = rank[c1], rank[c2], rank[up]
    hi[R0][0, t] = r1
    hi[R1][0, t] = r2
    hard = values[r1] + values[r2]
    ace = r1 == 0 or r2 == 0
    hi[HARD][0, t] = hard
    hb[ACE][0, t] = ace
    hi[NCARDS][0, t] = 2
    hi[STAKE][0, t] = cfg[C_BET]
    ti[UP][t] = up
    ti[D_HARD][t] = values[ru]
    tb[D_ACE][t] = ru == 0
    ti[D_N][t] = 1
    ti[HOLE][t] = -1
    if not cfg[C_NO_HOLE]:
        hole = _draw(shoe, ti, cfg, lk, rng, t)
        ti[HOLE][t] = hole
        rh = rank[hole]
        ti[D_HARD][t] += values[rh]
        if rh == 0:
            tb[D_ACE][t] = True
        ti[D_N][t] = 2
    bj = ace and hard == 11
    if bj:
        if cfg[C_NAT_AT_DEAL]:
            _pay(hi, hb, hf, lk, 0, t, BJ)
        elif cfg[C_NAT_ENDS]:
            hb[DONE][0, t] = True
    peek_possible = bool(cfg[C_PEEK]) and (ru == 0 or values[ru] == 10)
    tb[PEEK_POSSIBLE][t] = peek_possible
    ti[PHASE][t] = DECIDE
    if cfg[C_PEEK]:
        if peek_possible and not hb[SETTLED][0, t]:
            early = cfg[C_SURRENDER] == SUR_EARLY
            if (cfg[C_ASK_INS] and ru == 0) or (early and not bj):
                ti[PHASE][t] = INSURE_PHASE
                return
        _do_peek(ti, tb, tf, hi, hb, hf, cfg, lk, t)
        if ti[PHASE][t] == OVER:
            return
    ti[CUR][t] = -1
    _advance(shoe, ti, tb, hi, hb, hf, cfg, lk, rng, t)
