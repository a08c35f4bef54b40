"""The round of one blackjack table as pure functions of a fixed-shape state (JAX).

One table of one or several learner seats: :class:`State` is a ``NamedTuple`` of arrays
whose shapes depend only on the :class:`~blackjack_env.jax.tables.Config` (seats, hands
per seat, shoe size; with several seats the per-seat fields, :data:`SEAT_FIELDS`, gain a
leading seat axis, and a seat's decisions are played on a one-seat view of it);
:func:`new_state`, :func:`start_round`, :func:`open_round`, :func:`step`,
:func:`end_round`, :func:`next_round`, :func:`masks` and :func:`observe` are pure: state
in, state out, randomness only from the key they are given, every branch a ``where`` or
a bounded ``lax`` loop, so ``jax.vmap`` makes N tables and ``jax.jit`` compiles them
unchanged. The episode (bet steps, several rounds, a bankroll) is kept in the state too
(``opened``, ``ep_rounds``, ``session``, ``bank``); chips are exact integers in units of
``1 / Config.chip_den`` where they accumulate.

The flow is the numpy batched round's (:mod:`blackjack_env.envs.batch`, whose package
docstring is the specification: deal order, the pre-peek question, the peek, naturals,
double, split and the split hand's second card when play reaches it, surrender, the
dealer's turn, settlement), written again with masks in place of index sets; every rule
it asks is a lookup in :class:`~blackjack_env.jax.tables.Params`, built from
:mod:`blackjack_env.engine.play`. Parity tests replay stacked cards through both.

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
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax import custom_batching

from blackjack_env.engine import play
from blackjack_env.engine.play import NaturalEffect, array_natural, array_soft, array_total
from blackjack_env.envs import view
from blackjack_env.envs.batch.codes import ACTION_DOUBLE as _DOUBLE
from blackjack_env.envs.batch.codes import ACTION_HIT as _HIT
from blackjack_env.envs.batch.codes import ACTION_INSURE as _INSURE
from blackjack_env.envs.batch.codes import ACTION_SPLIT as _SPLIT
from blackjack_env.envs.batch.codes import ACTION_STAND as _STAND
from blackjack_env.envs.batch.codes import ACTION_SURRENDER as _SURRENDER
from blackjack_env.envs.batch.codes import OUTCOME_BLACKJACK as _BJ
from blackjack_env.envs.batch.codes import OUTCOME_BUST as _BUST
from blackjack_env.envs.batch.codes import OUTCOME_EVEN_MONEY as _EVEN
from blackjack_env.envs.batch.codes import OUTCOME_LOSS as _LOSS
from blackjack_env.envs.batch.codes import OUTCOME_SURRENDER as _SURR
from blackjack_env.envs.batch.codes import PHASE_DECIDE as _DECIDE
from blackjack_env.envs.batch.codes import PHASE_DONE as _SEAT_DONE
from blackjack_env.envs.batch.codes import PHASE_INSURE as _INSURE_PHASE
from blackjack_env.envs.batch.codes import PHASE_OVER as _OVER
from blackjack_env.envs.batch.codes import PHASE_PEEK_WAIT as _PEEK_WAIT
from blackjack_env.envs.step import Decision
from blackjack_env.jax.tables import Config, Params

__all__ = [
    "State",
    "legal_mask",
    "new_state",
    "observe_multidiscrete",
    "observe_vector",
    "round_net",
    "start_round",
    "step",
]

I32 = jnp.int32
F32 = jnp.float32
_PLAY, _INSURANCE, _SETTLED = int(Decision.PLAY), int(Decision.INSURANCE), int(Decision.SETTLED)
_BET = int(Decision.BET)
_INSURANCE_PAYS = float(play.INSURANCE_PAYS)
_INSURANCE_SHARE = float(play.insurance_stake(1))  # insurance stakes this share of the bet


class State(NamedTuple):
    """One table (``H`` = ``Config.hands``, ``S`` = ``Config.shoe_size``). Hand arrays are
    ``(H,)``: hand ``h`` at ``[h]``; fields as the numpy batched tables' of the same name.
    With several seats (``Config.seats`` > 1) the fields of :data:`SEAT_FIELDS` gain a
    leading seat axis (seat ``s`` at ``[s]``); the shoe and the dealer are the table's."""

    shoe: Any  # int8 (S,) card ids (ring; infinite deck: stacked-card buffer)
    pos: Any  # first undealt place
    left: Any  # undealt cards (finite)
    dealt: Any  # cards dealt since the last shuffle (finite)
    round_start: Any  # place of the current round's first card (finite)
    stacked: Any  # stacked cards still to deal (dealt in order from pos)
    undealt_hilo: Any  # Hi-Lo sum of the undealt cards
    round_hilo: Any  # Hi-Lo sum of the current round's cards
    reshuffled: Any  # the shoe was reshuffled before this round
    rounds: Any  # rounds dealt
    phase: Any  # BatchPhase code
    nhands: Any
    cur: Any  # hand to act
    last_hand: Any  # hand of the last playing decision
    hard: Any  # (H,) total with aces as 1
    ace: Any  # (H,) holds an ace
    ncards: Any  # (H,)
    r0: Any  # (H,) rank index of the first card
    r1: Any  # (H,) rank index of the second card
    stake: Any  # (H,) chips on the hand
    doubled: Any  # (H,)
    surrendered: Any  # (H,)
    done: Any  # (H,)
    settled: Any  # (H,)
    outcome: Any  # (H,) outcome code, -1 unsettled
    net: Any  # (H,) chips won (+) or lost (-), float32
    insurance: Any  # chips staked on insurance
    insurance_net: Any
    d_hard: Any
    d_ace: Any
    d_n: Any
    up: Any  # upcard id
    hole: Any  # hole card id, -1 none
    hole_revealed: Any
    peek_possible: Any
    opened: Any  # the next round is opened and awaits its bet (bet steps)
    ep_rounds: Any  # rounds started in the episode
    session: Any  # the episode's net chips, in units of 1 / Config.chip_den
    bank: Any  # finite bankroll: chips before this round's bet, units of 1 / chip_den
    hand_ranks: Any  # (H, 13) each hand's cards by rank ("dict" mode; else (H, 0))
    dealer_ranks: Any  # (13,) the dealer's cards by rank, the hole card's included


def new_state(cfg: Config) -> State:
    """A table before its first round: a full, freshly gathered shoe (the shuffle is
    lazy: each draw picks a random undealt card)."""
    h, s = cfg.hands, cfg.shoe_size
    z, f = jnp.zeros((), I32), jnp.zeros((), bool)
    shoe = jnp.zeros(s, jnp.int8) if cfg.infinite else (jnp.arange(s) % 52).astype(jnp.int8)
    zh = jnp.zeros(h, I32)
    fh = jnp.zeros(h, bool)
    one = State(
        shoe=shoe, pos=z, left=jnp.asarray(0 if cfg.infinite else s, I32), dealt=z,
        round_start=z, stacked=z, undealt_hilo=z, round_hilo=z, reshuffled=f, rounds=z,
        phase=jnp.asarray(_OVER, I32), nhands=jnp.ones((), I32), cur=z, last_hand=z,
        hard=zh, ace=fh, ncards=zh, r0=zh, r1=zh, stake=zh, doubled=fh, surrendered=fh,
        done=fh, settled=fh, outcome=jnp.full(h, -1, I32), net=jnp.zeros(h, F32),
        insurance=jnp.zeros((), F32), insurance_net=jnp.zeros((), F32), d_hard=z, d_ace=f,
        d_n=z, up=z, hole=jnp.asarray(-1, I32), hole_revealed=f, peek_possible=f,
        opened=f, ep_rounds=z, session=z, bank=z,
        hand_ranks=jnp.zeros((h, _ranks(cfg)), I32), dealer_ranks=jnp.zeros(_ranks(cfg), I32),
    )  # fmt: skip
    if cfg.seats == 1:
        return one
    seat = {k: jnp.broadcast_to(getattr(one, k), (cfg.seats, *getattr(one, k).shape))
            for k in SEAT_FIELDS}  # fmt: skip
    return one._replace(**seat)


#: The fields each seat holds (a leading seat axis with several seats).
SEAT_FIELDS = (
    "phase", "nhands", "cur", "last_hand", "hard", "ace", "ncards", "r0", "r1", "stake",
    "doubled", "surrendered", "done", "settled", "outcome", "net", "insurance",
    "insurance_net", "session", "bank", "hand_ranks",
)  # fmt: skip


def _ranks(cfg: Config) -> int:
    """Width of the by-rank card counts: 13 where tracked (``Config.track``), else 0."""
    return 13 if cfg.track else 0


def _count_rank(counts: Any, r: Any, on: Any) -> Any:
    """``counts`` (``(..., 13)``) with one more card of rank ``r`` where ``on`` (bool of
    ``counts``' leading shape)."""
    return counts + (jnp.arange(13) == _hands_axis(r)) * _hands_axis(on).astype(I32)


def seat_axes(cfg: Config) -> State:
    """``jax.vmap``'s ``in_axes`` over the seats of one table's state: 0 for the seats'
    fields, None for the table's (shoe, dealer)."""
    return State(*[0 if f in SEAT_FIELDS else None for f in State._fields])


# ====================================================================== helpers
def _sel(on: Any, new: State, old: State) -> State:
    """``new`` where ``on``, else ``old``, field by field (the shoe excepted: it is only
    changed by draws, which are no-ops where they are off)."""
    out = [
        n if name == "shoe" else jnp.where(on, n, o)
        for name, n, o in zip(State._fields, new, old, strict=True)
    ]
    return State(*out)


def _guarded_while(cond: Any, body: Any, carry: Any, *args: Any) -> Any:
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
    dealer and ``fori_loop`` for :func:`_advance`, 1.40M with this loop for the dealer,
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


class _Rng(NamedTuple):
    """The random numbers of one call: a 32-bit seed drawn from the call's key (one
    threefry evaluation) and a counter; draw ``i`` is a hash of ``seed + i * golden``."""

    seed: Any
    i: Any


def _rng(key: Any) -> _Rng:
    return _Rng(jax.random.bits(key, (), jnp.uint32), jnp.zeros((), jnp.uint32))


_GOLDEN = 0x9E3779B9


def _uniform(rk: _Rng) -> tuple[Any, _Rng]:
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
    return u, _Rng(rk.seed, rk.i + jnp.uint32(1))


def _draw(st: State, p: Params, cfg: Config, rk: _Rng, do: Any) -> tuple[State, Any, _Rng]:
    """Deal one card where ``do`` (a no-op elsewhere): ``(state, card id, rng)``."""
    u, rk = _uniform(rk)
    do = jnp.asarray(do, bool)
    stacked = st.stacked > 0
    if cfg.infinite:
        rand = jnp.minimum((u * 52).astype(I32), 51)
        card = jnp.where(stacked, st.shoe[st.pos % cfg.shoe_size].astype(I32), rand)
        take = do & stacked
        st = st._replace(pos=st.pos + take, stacked=st.stacked - take)
        return st, card, rk
    n = cfg.shoe_size
    dry = do & (st.left == 0)  # the discards become the undealt cards
    left = jnp.where(dry, (st.round_start - st.pos) % n, st.left)
    undealt_hilo = jnp.where(dry, -st.round_hilo, st.undealt_hilo)
    off = jnp.minimum((u * left).astype(I32), jnp.maximum(left - 1, 0))
    off = jnp.where(stacked, 0, off)
    i = st.pos
    j = (i + off) % n
    ci = st.shoe[i]
    cj = st.shoe[j]
    shoe = st.shoe.at[i].set(jnp.where(do, cj, ci)).at[j].set(jnp.where(do, ci, cj))
    card = cj.astype(I32)
    tag = p.hilo_of_id[card] * do
    d = do.astype(I32)
    st = st._replace(
        shoe=shoe, pos=jnp.where(do, (i + 1) % n, i), left=left - d, dealt=st.dealt + d,
        stacked=st.stacked - (d * stacked), undealt_hilo=undealt_hilo - tag,
        round_hilo=st.round_hilo + tag,
    )  # fmt: skip
    return st, card, rk


def _onehot(h: Any, cfg: Config) -> Any:
    return jnp.arange(cfg.hands) == h


def _hands_axis(x: Any) -> Any:
    """A per-seat value (a scalar, or ``(S,)``) against the hand arrays (``(H,)`` or
    ``(S, H)``): a trailing axis of 1."""
    return jnp.expand_dims(jnp.asarray(x), -1)


def _is_bj(st: State, cfg: Config) -> Any:
    """Natural on each hand (split hands only under ``blackjack_after_split``)."""
    bj = array_natural(st.ncards, st.hard, st.ace)
    if cfg.hands > 1 and not cfg.split_naturals:
        bj = bj & (_hands_axis(st.nhands) == 1)
    return bj


def _pay(st: State, p: Params, which: Any, code: Any) -> State:
    """Settle hands ``which`` (bool (H,)) with outcome codes ``code``."""
    net = st.stake.astype(F32) * p.factor[code]
    return st._replace(
        outcome=jnp.where(which, code, st.outcome),
        net=jnp.where(which, net, st.net),
        settled=st.settled | which,
        done=st.done | which,
    )


def _dealer_bj(st: State) -> Any:
    return array_natural(st.d_n, st.d_hard, st.d_ace)


def _compare(st: State, p: Params, cfg: Config) -> Any:
    """Outcome code of every hand against the dealer's final hand (numpy ``_compare``)."""
    w = cfg.key_width
    two = st.ncards == 2
    if cfg.hands > 1 and not cfg.split_naturals:
        two = two & (_hands_axis(st.nhands) == 1)
    key = (2 * st.hard + st.ace + w * two) * (2 * w)
    key = key + 2 * st.d_hard + st.d_ace + w * (st.d_n == 2)
    out = p.by_hands[key]
    if cfg.surrenders:
        out = jnp.where(st.surrendered, p.surrender_outcome[_dealer_bj(st).astype(I32)], out)
    return out


def _live(st: State, cfg: Config) -> Any:
    return jnp.arange(cfg.hands) < _hands_axis(st.nhands)


def _settle_by_compare(st: State, p: Params, cfg: Config, on: Any) -> State:
    which = on & _live(st, cfg) & ~st.settled
    return _pay(st, p, which, _compare(st, p, cfg))


def _settle_highest(st: State, p: Params, cfg: Config, on: Any) -> State:
    """``Settlement.HIGHEST_HAND`` (numpy ``_settle_highest``): only the best can win."""
    open_ = on & _live(st, cfg) & ~st.settled
    out = _compare(st, p, cfg)
    surr = open_ & st.surrendered
    st = _pay(st, p, surr, out)
    rest = open_ & ~st.surrendered & (st.hard <= 21)
    total = array_total(st.hard, st.ace)
    top = jnp.max(jnp.where(rest, total, -1), axis=-1, keepdims=True)  # per seat
    # the rule is written with array operators only: it serves jax arrays as numpy's
    judged = play.array_highest_hand_judged(total, top, st.d_hard > 21)  # type: ignore[arg-type]
    return _pay(st, p, rest, jnp.where(judged, out, _LOSS))


# ====================================================================== the dealer
def _dealer_turn(st: State, p: Params, cfg: Config, rk: _Rng, on: Any) -> tuple[State, _Rng]:
    """The dealer's turn where ``on`` (every hand done): the round ends (``OVER``), the
    dealer draws to the rules if some hand is still open and not surrendered, and the
    open hands are settled."""
    live = _live(st, cfg)
    new = st._replace(phase=jnp.asarray(_OVER, I32), cur=st.nhands - 1)
    if not cfg.no_hole:
        new = new._replace(hole_revealed=jnp.asarray(True))
    st = _sel(on, new, st)
    any_open = jnp.any(live & ~st.settled)
    plays = jnp.any(live & ~st.settled & ~st.surrendered) if cfg.surrenders else any_open
    open_ = on & any_open
    if cfg.no_hole:
        st = st._replace(hole_revealed=jnp.where(on & ~any_open, False, st.hole_revealed))
        st, card, rk = _draw(st, p, cfg, rk, open_)
        st = _dealer_add(st, p, card, open_)
        st = st._replace(
            hole=jnp.where(open_, card, st.hole),
            hole_revealed=jnp.where(open_, True, st.hole_revealed),
        )
    drawing = open_ & plays

    def need(carry: tuple[State, _Rng, Any], p: Params, drawing: Any) -> Any:
        s, _, k = carry
        return drawing & p.dealer_hits[2 * s.d_hard + s.d_ace] & (k < 32)

    def body(carry: tuple[State, _Rng, Any], p: Params, drawing: Any) -> tuple[State, _Rng, Any]:
        s, r, k = carry
        go = need(carry, p, drawing)
        s, card, _ = _draw(s, p, cfg, r, go)
        # guarded: a table that stopped keeps its counter (a while_loop's value)
        r = _Rng(r.seed, r.i + go.astype(jnp.uint32))
        return _dealer_add(s, p, card, go), r, k + go

    st, rk, _ = _guarded_while(need, body, (st, rk, jnp.zeros((), I32)), p, drawing)
    if cfg.highest:
        st = _settle_highest(st, p, cfg, open_)
    else:
        st = _settle_by_compare(st, p, cfg, open_)
    return st, rk


def _dealer_add(st: State, p: Params, card: Any, on: Any) -> State:
    r = p.rank_of_id[card]
    return st._replace(
        d_hard=jnp.where(on, st.d_hard + p.values[r], st.d_hard),
        d_ace=jnp.where(on, st.d_ace | (r == 0), st.d_ace),
        d_n=jnp.where(on, st.d_n + 1, st.d_n),
        # (tracked: a static shape)
        dealer_ranks=_count_rank(st.dealer_ranks, r, on)
        if st.dealer_ranks.shape[-1]
        else st.dealer_ranks,
    )


# ====================================================================== hands
def _split_allowed(p: Params, pair: Any, nh: Any, aces: Any) -> Any:
    return p.split_ok[18 * pair.astype(I32) + 2 * nh + aces.astype(I32)]


def _split_stake_ok(st: State, p: Params, cfg: Config, h: Any) -> Any:
    """``play.split_stake_ok`` of hand ``h`` (tabulated by stake and cover), where stakes
    vary (bet steps) or a bankroll limits them (numpy ``_split_stakes_ok``); else True."""
    if not cfg.stake_check:
        return jnp.ones((), bool)
    stake = st.stake[h]
    covers = covers_chips(st, cfg, stake) if cfg.bankroll is not None else jnp.ones((), bool)
    return p.stake_ok[covers.astype(I32), jnp.clip(stake, 0, p.stake_ok.shape[1] - 1)]


def chip_units(st: State, cfg: Config) -> Any:
    """Finite bankroll: the learner's chips off the table now, in units of ``1 /
    Config.chip_den`` (numpy ``TableBatch.chips``): the chips before the round's bet, plus
    the round's result so far, less the stakes of its unsettled hands."""
    live = _live(st, cfg)
    open_ = jnp.sum(jnp.where(live & ~st.settled, st.stake, 0), axis=-1).astype(F32)
    net = jnp.sum(jnp.where(live, st.net, 0.0), axis=-1) + st.insurance_net
    return st.bank + _chip_units(net - open_, cfg)


def covers_chips(st: State, cfg: Config, amount: Any) -> Any:
    """``play.can_cover`` of ``amount`` chips by the learner's chips off the table (exact,
    in units of ``1 / chip_den``); unlimited credit: True."""
    if cfg.bankroll is None:
        return jnp.ones(jnp.shape(amount), bool)
    return chip_units(st, cfg) >= _chip_units(jnp.asarray(amount, F32), cfg)


def _covers_insurance(st: State, p: Params, cfg: Config) -> Any:
    """Insurance (or even money, on a natural) is affordable (numpy ``_covers_insurance``)."""
    stake = st.stake[0].astype(F32) * _INSURANCE_SHARE
    return _is_bj(st, cfg)[0] | covers_chips(st, cfg, stake)


def _second_card(
    st: State, p: Params, cfg: Config, rk: _Rng, h: Any, on: Any
) -> tuple[State, _Rng]:
    """Hand ``h`` (one card, from a split) gets its second card where ``on``; a hand with
    no decision left is finished (``play.split_hand_done``)."""
    st, card, rk = _draw(st, p, cfg, rk, on)
    at = _onehot(h, cfg) & on
    r0 = st.r0[h]
    r1 = p.rank_of_id[card]
    ranks = 13 * r0 + r1
    key = p.second_key[ranks]
    if cfg.splits:
        ok = _split_allowed(p, p.pair[ranks], st.nhands, r0 == 0)
        key = key + 4 * (ok & _split_stake_ok(st, p, cfg, h))
    finish = p.split_done[key]
    st = st._replace(
        hard=jnp.where(at, p.two_hard[ranks], st.hard),
        ace=jnp.where(at, p.two_ace[ranks], st.ace),
        ncards=jnp.where(at, 2, st.ncards),
        r1=jnp.where(at, r1, st.r1),
        done=st.done | (at & finish),
    )
    if cfg.track:
        st = st._replace(hand_ranks=_count_rank(st.hand_ranks, r1, at))
    return st, rk


def _advance(st: State, p: Params, cfg: Config, rk: _Rng, on: Any) -> tuple[State, _Rng]:
    """Move on to the next hand needing a decision (its second card dealt if it comes
    from a split), or to the dealer (numpy ``_advance``)."""

    def going(carry: tuple[State, _Rng, Any, Any], p: Params) -> Any:
        return carry[2]

    def body(carry: tuple[State, _Rng, Any, Any], p: Params) -> tuple[State, _Rng, Any, Any]:
        s, r, going, to_dealer = carry
        cur = s.cur + going
        s = s._replace(cur=cur)
        past = going & (cur >= s.nhands)
        to_dealer = to_dealer | past
        going = going & ~past
        f = jnp.clip(cur, 0, cfg.hands - 1)
        live = going & ~s.done[f]
        one = live & (s.ncards[f] == 1)
        s, r = _second_card(s, p, cfg, r, f, one)
        if cfg.auto21:
            hit21 = live & ~one & (array_total(s.hard[f], s.ace[f]) == play.AUTO_STAND_TOTAL)
            s = s._replace(done=s.done | (_onehot(f, cfg) & hit21))
        going = going & s.done[f]
        return s, r, going, to_dealer

    # (guarded: a table stops once it found its hand; the counter then moves on as if
    # every table had turned hands + 1 times, the bound of the search)
    i0 = rk.i
    carry = (st, rk, jnp.asarray(on, bool), jnp.zeros((), bool))
    st, rk, _, to_dealer = _guarded_while(going, body, carry, p)
    rk = _Rng(rk.seed, i0 + jnp.uint32(cfg.hands + 1))
    return _hands_done(st, p, cfg, rk, to_dealer)


def _hands_done(st: State, p: Params, cfg: Config, rk: _Rng, on: Any) -> tuple[State, _Rng]:
    """The seat's hands are all done where ``on``: with one seat the dealer plays; with
    several the seat waits (``DONE``, the cursor on its last hand) for the others (numpy
    ``_flush_dealer`` / ``_seats_done``)."""
    if cfg.seats == 1:
        return _dealer_turn(st, p, cfg, rk, on)
    return _seat_done(st, on), rk


def _seat_done(st: State, on: Any) -> State:
    return st._replace(
        phase=jnp.where(on, _SEAT_DONE, st.phase), cur=jnp.where(on, st.nhands - 1, st.cur)
    )


def _split(st: State, p: Params, cfg: Config, h: Any, on: Any) -> State:
    """Split hand ``h`` where ``on``: the new hand goes right after it (later hands move
    one place right) holding the second card; hand ``h`` keeps its first card."""
    k = jnp.arange(cfg.hands)
    move = (k > h + 1) & (k <= st.nhands)
    prev = jnp.maximum(k - 1, 0)
    new_at = k == h + 1
    r1 = st.r1[h]
    v1 = p.values[r1]
    new_stake = play.array_split_stake(cfg.rules, st.stake[h])  # both hands stake it

    def shifted(a: Any, fresh: Any) -> Any:
        a2 = jnp.where(move, a[prev], a)
        return jnp.where(new_at, fresh, a2)

    z = jnp.zeros((), I32)
    f = jnp.zeros((), bool)
    new = st._replace(
        hard=shifted(st.hard, v1), ace=shifted(st.ace, r1 == 0), ncards=shifted(st.ncards, 1),
        r0=shifted(st.r0, r1), r1=shifted(st.r1, z), stake=shifted(st.stake, new_stake),
        doubled=shifted(st.doubled, f), surrendered=shifted(st.surrendered, f),
        done=shifted(st.done, f), settled=shifted(st.settled, f),
        outcome=shifted(st.outcome, jnp.asarray(-1, I32)),
        net=shifted(st.net, jnp.zeros((), F32)), nhands=st.nhands + 1,
    )  # fmt: skip
    at = _onehot(h, cfg)
    r0h = st.r0[h]
    new = new._replace(
        hard=jnp.where(at, p.values[r0h], new.hard),
        ace=jnp.where(at, r0h == 0, new.ace),
        stake=jnp.where(at, new_stake, new.stake),
    )
    if cfg.track:  # the new hand holds the second card, taken from hand h
        hr = jnp.where(move[:, None], st.hand_ranks[prev], st.hand_ranks)
        one = (jnp.arange(13) == r1).astype(I32)
        hr = jnp.where(new_at[:, None], one, hr)
        new = new._replace(hand_ranks=jnp.where(at[:, None], hr - one, hr))
    return _sel(on, new, st)


def _act_play(
    st: State, p: Params, cfg: Config, rk: _Rng, action: Any, on: Any
) -> tuple[State, _Rng]:
    """A playing decision (``Action`` 0..4, legal) on the current hand where ``on``: the
    one place a hand's decision is played (numpy ``_act_play``)."""
    h = jnp.clip(st.cur, 0, cfg.hands - 1)
    at = _onehot(h, cfg)
    if cfg.hands > 1:
        st = st._replace(last_hand=jnp.where(on, h, st.last_hand))
    takes = on & ((action == _HIT) | (action == _DOUBLE))
    if cfg.can_double:
        dbl = at & on & (action == _DOUBLE)
        st = st._replace(
            stake=jnp.where(dbl, 2 * st.stake, st.stake),
            doubled=st.doubled | dbl,
            done=st.done | dbl,
        )
    split = on & (action == _SPLIT) if cfg.hands > 1 else jnp.zeros((), bool)
    if cfg.hands > 1:
        st = _split(st, p, cfg, h, split)
        st, rk = _second_card(st, p, cfg, rk, h, split)
    st, card, rk = _draw(st, p, cfg, rk, takes)
    r = p.rank_of_id[card]
    hit = at & takes
    st = st._replace(
        hard=jnp.where(hit, st.hard + p.values[r], st.hard),
        ace=jnp.where(hit, st.ace | (r == 0), st.ace),
        ncards=jnp.where(hit, st.ncards + 1, st.ncards),
    )
    if cfg.track:
        st = st._replace(hand_ranks=_count_rank(st.hand_ranks, r, hit))
    bust = hit & (st.hard > 21)
    st = _pay(st, p, bust, jnp.full(cfg.hands, _BUST, I32))
    if cfg.auto21:
        t21 = hit & ~bust & (array_total(st.hard, st.ace) == play.AUTO_STAND_TOTAL)
        st = st._replace(done=st.done | t21)
    st = st._replace(done=st.done | (at & on & (action == _STAND)))
    if cfg.surrenders:
        surr = at & on & (action == _SURRENDER)
        st = st._replace(surrendered=st.surrendered | surr, done=st.done | surr)
        if cfg.surrender_at_once:
            st = _pay(st, p, surr, jnp.full(cfg.hands, _SURR, I32))
    finished = on & st.done[h]
    return _advance(st, p, cfg, rk, finished)


# ====================================================================== the peek
def _peek(st: State, p: Params, cfg: Config, on: Any, dealer_bj: Any, natural: Any) -> State:
    """The dealer checks the hole card where ``on``: a blackjack settles every hand and
    ends the round; otherwise a natural that ``natural`` marks (done, unsettled) is paid
    where naturals are paid at the peek (numpy ``_do_peek``)."""
    hit = on & dealer_bj
    st = _sel(hit, st._replace(hole_revealed=jnp.asarray(True)), st)
    st = _settle_by_compare(st, p, cfg, hit)
    st = st._replace(phase=jnp.where(hit, _OVER, st.phase))
    if cfg.naturals_paid_at_peek:
        pay0 = _onehot(0, cfg) & _hands_axis(on & ~dealer_bj & natural)
        st = _pay(st, p, pay0, jnp.full(cfg.hands, _BJ, I32))
    return st


def _act_insurance(
    st: State, p: Params, cfg: Config, rk: _Rng, action: Any, on: Any
) -> tuple[State, _Rng]:
    """The pre-peek answer where ``on`` (``INSURE``, ``DECLINE`` or ``SURRENDER``), then
    the peek, then play starts (numpy ``_act_insurance``)."""
    h0 = _onehot(0, cfg)
    bj0 = _is_bj(st, cfg)[0]
    insure = on & (action == _INSURE)
    st = _pay(st, p, h0 & insure & bj0, jnp.full(cfg.hands, _EVEN, I32))
    st = st._replace(
        insurance=jnp.where(insure & ~bj0, st.stake[0].astype(F32) / 2.0, st.insurance)
    )
    surr = on & (action == _SURRENDER)
    st = st._replace(surrendered=st.surrendered | (h0 & surr))
    st = _pay(st, p, h0 & surr, jnp.full(cfg.hands, _SURR, I32))
    dealer_bj = st.peek_possible & _dealer_bj(st)
    ins = st.insurance
    st = st._replace(
        insurance_net=jnp.where(
            on & (ins > 0), jnp.where(dealer_bj, _INSURANCE_PAYS * ins, -ins), st.insurance_net
        )
    )
    natural = st.done[0] & ~st.settled[0] & _is_bj(st, cfg)[0]
    st = _peek(st, p, cfg, on, dealer_bj, natural)
    cont = on & (st.phase != _OVER)
    st = st._replace(phase=jnp.where(cont, _DECIDE, st.phase), cur=jnp.where(cont, -1, st.cur))
    return _advance(st, p, cfg, rk, cont)


# ====================================================================== a round
def _open_shoe(st: State, cfg: Config, on: Any) -> State:
    """Where ``on``: the last round's cards go to the discards and the shoe is reshuffled
    if the cut card is out (numpy ``start_rounds`` / ``open_rounds``)."""
    if cfg.infinite:
        return st
    dealt = st.dealt
    shuffle = dealt > 0 if cfg.cut is None else dealt >= cfg.cut
    new = st._replace(
        round_start=st.pos, round_hilo=jnp.zeros((), I32), reshuffled=shuffle,
        left=jnp.where(shuffle, cfg.shoe_size, st.left),
        dealt=jnp.where(shuffle, 0, st.dealt),
        undealt_hilo=jnp.where(shuffle, 0, st.undealt_hilo),
    )  # fmt: skip
    return _sel(on, new, st)


def open_round(st: State, cfg: Config, on: Any = True) -> State:
    """Bet steps: open the next round where ``on`` (numpy ``open_rounds``): the cards go
    to the discards, the shoe is reshuffled if the cut card is out, and the table awaits
    the bet (``opened``); :func:`start_round` then deals without a second check."""
    on = jnp.asarray(on, bool)
    st = _open_shoe(st, cfg, on & ~st.opened)
    return st._replace(opened=st.opened | on)


def start_round(
    key: Any, st: State, p: Params, cfg: Config, on: Any = True, stake: Any = None
) -> State:
    """Where ``on``: the last round's cards go to the discards, the shoe is reshuffled if
    the cut card is out (unless :func:`open_round` did), and a round is dealt (naturals,
    the pre-peek question or the peek; a round with no decision left is played out and
    ``OVER``). ``stake``: the chips bet (default ``Config.bet``)."""
    on = jnp.asarray(on, bool)
    rk = _rng(key)
    h = cfg.hands
    bet = cfg.bet if stake is None else stake
    if cfg.bankroll is not None:  # the last round's result joins the bankroll
        st = st._replace(bank=jnp.where(on, chip_units(st, cfg), st.bank))
    if cfg.bets:
        st = _open_shoe(st, cfg, on & ~st.opened)
        st = st._replace(opened=jnp.where(on, False, st.opened))
    else:
        st = _open_shoe(st, cfg, on)
    if cfg.seats > 1:
        return _deal_seats(st, p, cfg, rk, on)
    zh = jnp.zeros(h, I32)
    fh = jnp.zeros(h, bool)
    cards = []
    for _ in range(3 if cfg.no_hole else 4):
        st, c, rk = _draw(st, p, cfg, rk, on)
        cards.append(c)
    rank = p.rank_of_id
    val = p.value_of_id
    r1, ru, r2 = rank[cards[0]], rank[cards[1]], rank[cards[2]]
    hard0 = val[cards[0]] + val[cards[2]]
    ace0 = (r1 == 0) | (r2 == 0)
    h0 = _onehot(0, cfg)
    up_value = val[cards[1]]
    up_ace = ru == 0
    if cfg.no_hole:
        d_hard, d_ace, d_n, hole = up_value, up_ace, 1, -1
    else:
        d_hard = up_value + val[cards[3]]
        d_ace = up_ace | (rank[cards[3]] == 0)
        d_n, hole = 2, cards[3]
    new = st._replace(
        rounds=st.rounds + 1, phase=jnp.asarray(_DECIDE, I32), nhands=jnp.ones((), I32),
        cur=jnp.zeros((), I32), last_hand=jnp.zeros((), I32),
        hard=jnp.where(h0, hard0, zh), ace=h0 & ace0, ncards=jnp.where(h0, 2, zh),
        r0=jnp.where(h0, r1, zh), r1=jnp.where(h0, r2, zh),
        stake=jnp.where(h0, bet, zh), doubled=fh, surrendered=fh, done=fh, settled=fh,
        outcome=jnp.full(h, -1, I32), net=jnp.zeros(h, F32),
        insurance=jnp.zeros((), F32), insurance_net=jnp.zeros((), F32),
        d_hard=jnp.asarray(d_hard, I32), d_ace=jnp.asarray(d_ace), d_n=jnp.asarray(d_n, I32),
        up=cards[1], hole=jnp.asarray(hole, I32), hole_revealed=jnp.zeros((), bool),
        peek_possible=jnp.zeros((), bool),
    )  # fmt: skip
    if cfg.track:
        one = jnp.zeros((h, 13), I32)
        one = _count_rank(_count_rank(one, r1, h0), r2, h0)
        dealer = _count_rank(jnp.zeros(13, I32), ru, True)
        if not cfg.no_hole:
            dealer = _count_rank(dealer, rank[cards[3]], True)
        new = new._replace(hand_ranks=one, dealer_ranks=dealer)
    st = _sel(on, new, st)
    bj = on & array_natural(2, hard0, ace0)
    effect = cfg.natural_effect  # play.dealt_natural_effect
    if effect is NaturalEffect.PAY:
        st = _pay(st, p, h0 & bj, jnp.full(h, _BJ, I32))
    elif effect is NaturalEffect.END:
        st = st._replace(done=st.done | (h0 & bj))
    if cfg.peek:
        pp = p.peek_by_rank[ru]
        st = st._replace(peek_possible=jnp.where(on, pp, st.peek_possible))
        ask = jnp.zeros((), bool)
        if cfg.pre_peek:
            ask = on & pp & ~st.settled[0] & p.asks_pre_peek[2 * ru + bj.astype(I32)]
            if cfg.bankroll is not None:  # insurance only when affordable
                poor = p.asks_pre_peek_poor[2 * ru + bj.astype(I32)]
                ask = ask & (poor | _covers_insurance(st, p, cfg))
            st = st._replace(phase=jnp.where(ask, _INSURE_PHASE, st.phase))
        natural = bj if effect is NaturalEffect.END else False
        st = _peek(st, p, cfg, on & ~ask, pp & _dealer_bj(st), natural)
    fin = jnp.zeros((), bool)
    if effect is NaturalEffect.PAY or cfg.natural_stands:
        fin = bj & (st.phase == _DECIDE)
        st = st._replace(done=st.done | (h0 & fin))
    st, rk = _dealer_turn(st, p, cfg, rk, fin)
    return st


def round_net(st: State, cfg: Config) -> Any:
    """The round's net so far in base bets (every hand, plus insurance)."""
    hands = jnp.sum(jnp.where(_live(st, cfg), st.net, 0.0), axis=-1)  # (per seat)
    return (hands + st.insurance_net) / cfg.bet


# ====================================================================== legality
def legal_key(st: State, p: Params, cfg: Config) -> Any:
    """The row of the legal table (and of ``Params.mask_rows``) of the table's state
    (numpy ``legal_keys``)."""
    h = jnp.clip(st.cur, 0, cfg.hands - 1)
    hard, ace, nc = st.hard[h], st.ace[h], st.ncards[h]
    r0, r1 = st.r0[h], st.r1[h]
    two = nc == 2
    key = 2 * hard + ace
    split = st.nhands > 1
    key = key + jnp.where(split, play.KEY_FROM_SPLIT + play.KEY_SPLIT_ACES * (r0 == 0), 0)
    if cfg.splits:
        maybe = p.pair[13 * r0 + r1] & two
        aces = split & (r0 == 0)
        allowed = _split_allowed(p, jnp.ones((), I32), st.nhands, aces)
        key = key + play.KEY_CAN_SPLIT * (maybe & allowed & _split_stake_ok(st, p, cfg, h))
    key = key + play.KEY_TWO_CARDS * two + play.KEY_UPCARD * p.rank_of_id[st.up]
    if cfg.bankroll is not None:  # the rows without DOUBLE where it is not covered
        key = key + cfg.poor_play_offset * ~covers_chips(st, cfg, st.stake[h])
    key = jnp.where(st.phase == _DECIDE, key, cfg.over_key)
    if cfg.pre_peek:
        up = p.rank_of_id[st.up]
        ins_key = cfg.pre_peek_key + 2 * up + _is_bj(st, cfg)[0]
        if cfg.bankroll is not None:  # the rows without INSURE where it is not covered
            ins_key = ins_key + cfg.poor_pre_peek_offset * ~_covers_insurance(st, p, cfg)
        key = jnp.where(st.phase == _INSURE_PHASE, ins_key, key)
    return key


def legal_mask(st: State, p: Params, cfg: Config) -> Any:
    """bool ``(n_actions,)``: the env's action mask (the numpy env's; a settled round:
    every action; a table awaiting its bet: the bet sizes allowed)."""
    mask = p.mask_rows[legal_key(st, p, cfg)]
    if cfg.bets:
        mask = jnp.where(st.opened, bet_mask(st, p, cfg), mask)
    return mask


def bet_mask(st: State, p: Params, cfg: Config) -> Any:
    """The BET step's mask (numpy ``_refresh_bets``): the bet actions ``n_play + k`` of
    the sizes the table limits allow."""
    allowed = p.bet_within & covers_chips(st, cfg, p.bet_chips)
    return jnp.concatenate([jnp.zeros(cfg.n_play, bool), allowed])


# ====================================================================== a step
def step(
    key: Any, st: State, action: Any, p: Params, cfg: Config
) -> tuple[State, Any, Any, Any, Any]:
    """One decision at the table: ``(state, reward, round_over, played, illegal)``.

    An illegal action is mapped as the numpy env maps it (``illegal_action="map"``:
    DOUBLE / SPLIT / SURRENDER play HIT where it is legal, else STAND; anything else
    STAND; a pre-peek STAND declines). A round that ends is reported here (``reward``:
    its net in base bets) and is not restarted: :func:`start_round` does that."""
    if cfg.seats > 1:
        return _step_seats(key, st, action, p, cfg)
    action = jnp.asarray(action, I32)
    mask = legal_mask(st, p, cfg)
    legal = mask[jnp.clip(action, 0, cfg.n_actions - 1)] & (action >= 0) & (action < cfg.n_actions)
    obs_phase = p.decision_of_phase[st.phase]
    a = jnp.clip(action, 0, cfg.n_actions - 1)
    # envs.step.array_map_illegal, tabulated
    mapped = p.mapped_action[obs_phase, mask[_HIT].astype(I32), a]
    if cfg.bets:  # envs.step.array_map_illegal_bet, tabulated by the allowed sizes' bits
        bits = jnp.sum(mask[cfg.n_play :].astype(I32) << jnp.arange(cfg.n_bets, dtype=I32))
        mapped = jnp.where(st.opened, p.bet_mapped[bits, a], mapped)
        key, k_bet = jax.random.split(key)
    played = jnp.where(legal, action, mapped)
    decision = played
    phase = st.phase
    opened = st.opened
    rk = _rng(key)
    if cfg.pre_peek:
        ins = phase == _INSURE_PHASE
        decision = p.table_action[ins.astype(I32), played]  # envs.step.array_table_actions
        st, rk = _act_insurance(st, p, cfg, rk, decision, ins)
    st, rk = _act_play(st, p, cfg, rk, decision, phase == _DECIDE)
    over = st.phase == _OVER
    if cfg.bets:  # the bet step: the round is dealt; one settled at the deal ends here
        k = jnp.clip(played - cfg.n_play, 0, cfg.n_bets - 1)
        st = start_round(k_bet, st, p, cfg, opened, p.bet_chips[k])
        over = jnp.where(opened, st.phase == _OVER, over)
    reward = jnp.where(over, round_net(st, cfg), 0.0)
    return st, reward, over, played, ~legal


# ====================================================================== the episode
def _chip_units(x: Any, cfg: Config) -> Any:
    """Chips (float) as whole units of ``1 / Config.chip_den`` (exact amounts, rounded)."""
    return jnp.round(x * cfg.chip_den).astype(I32)


def end_round(st: State, reward: Any, over: Any, cfg: Config) -> tuple[State, Any, Any]:
    """The episode after a step (numpy ``BlackjackVectorEnv.step``): the ended round's
    chips join the session; ``(state, terminated, truncated)``: with
    ``rounds_per_episode`` 1 a round is an episode; otherwise the episode is truncated
    after that many rounds (never with ``None``)."""
    st = st._replace(session=st.session + jnp.where(over, _chip_units(reward * cfg.bet, cfg), 0))
    if cfg.rounds == 1:
        return st, over, jnp.zeros((), bool)
    more = over if cfg.rounds is None else over & (st.ep_rounds < cfg.rounds)
    truncated = over & ~more
    if cfg.bankroll is None:
        return st, jnp.zeros((), bool), truncated
    # the learner cannot cover the smallest bet: the session terminates
    broke = more & ~covers_chips(st, cfg, jnp.asarray(cfg.min_cost, F32))
    return st, broke, truncated


def next_round(key: Any, st: State, p: Params, cfg: Config, over: Any, done: Any) -> State:
    """Where ``over``: the next round begins (dealt, or opened for its bet with bet
    steps); where ``done`` too, as the first of a new episode."""
    st = st._replace(
        session=jnp.where(done, 0, st.session), ep_rounds=jnp.where(done, 0, st.ep_rounds)
    )
    if cfg.bankroll is not None:  # a new session starts with `bankroll` chips
        units = cfg.bankroll * cfg.chip_den
        st = st._replace(bank=jnp.where(done, units - (chip_units(st, cfg) - st.bank), st.bank))
    st = open_round(st, cfg, over) if cfg.bets else start_round(key, st, p, cfg, over)
    return st._replace(ep_rounds=st.ep_rounds + over)


def first_round(key: Any, st: State, p: Params, cfg: Config) -> State:
    """The first round of an episode at a table between rounds (a new one: a full
    shoe)."""
    on = jnp.ones((), bool)
    return next_round(key, st, p, cfg, on, on)


# ====================================================================== several seats
# (the numpy batched tables' seats.py: casino deal order, the pre-peek questions seat by
# seat before one peek, seat 0 plays all its hands, then seat 1, ..., the dealer once)
def _view(st: State, s: Any) -> State:
    """Seat ``s`` of a several-seat table as a one-seat state (the table's shoe and
    dealer)."""
    return st._replace(**{f: getattr(st, f)[s] for f in SEAT_FIELDS})


def _merge(st: State, v: State, s: Any) -> State:
    """``st`` with seat ``s`` (and the shoe and dealer) taken from the view ``v``."""
    return v._replace(**{f: getattr(st, f).at[s].set(getattr(v, f)) for f in SEAT_FIELDS})


def acting(st: State, cfg: Config) -> Any:
    """The seat the table waits for (numpy ``TableBatch.acting``): the first seat still to
    answer the pre-peek question, else the first with a hand to play, else seat 0."""
    if cfg.seats == 1:
        return jnp.zeros((), I32)
    ins = st.phase == _INSURE_PHASE
    dec = st.phase == _DECIDE
    return jnp.where(jnp.any(ins), jnp.argmax(ins), jnp.argmax(dec)).astype(I32)


def _deal_seats(st: State, p: Params, cfg: Config, rk: _Rng, on: Any) -> State:
    """:func:`start_round`'s deal at a table of several seats (numpy ``_deal_seats``, then
    ``start_rounds``): a card to each seat, the upcard, a second card to each seat, the
    hole card; naturals; the pre-peek questions (the seats not asked wait, ``PEEK_WAIT``)
    or the peek; a seat whose hand is done waits (``DONE``); all done: the dealer."""
    n_s, h = cfg.seats, cfg.hands
    cards = []
    for _ in range(2 * n_s + (1 if cfg.no_hole else 2)):
        st, c, rk = _draw(st, p, cfg, rk, on)
        cards.append(c)
    rank, val = p.rank_of_id, p.value_of_id
    first, second = jnp.stack(cards[:n_s]), jnp.stack(cards[n_s + 1 : 2 * n_s + 1])
    r1, ru, r2 = rank[first], rank[cards[n_s]], rank[second]
    hard0 = val[first] + val[second]
    ace0 = (r1 == 0) | (r2 == 0)
    up_value, up_ace = val[cards[n_s]], ru == 0
    if cfg.no_hole:
        d_hard, d_ace, d_n, hole = up_value, up_ace, 1, -1
    else:
        hole = cards[-1]
        d_hard, d_ace, d_n = up_value + val[hole], up_ace | (rank[hole] == 0), 2
    ax = _hands_axis
    h0 = jnp.broadcast_to(_onehot(0, cfg), (n_s, h))
    zs, zsh, fsh = jnp.zeros(n_s, I32), jnp.zeros((n_s, h), I32), jnp.zeros((n_s, h), bool)
    new = st._replace(
        rounds=st.rounds + 1, phase=jnp.full(n_s, _DECIDE, I32), nhands=jnp.ones(n_s, I32),
        cur=zs, last_hand=zs, hard=jnp.where(h0, ax(hard0), zsh), ace=h0 & ax(ace0),
        ncards=jnp.where(h0, 2, zsh), r0=jnp.where(h0, ax(r1), zsh),
        r1=jnp.where(h0, ax(r2), zsh), stake=jnp.where(h0, cfg.bet, zsh), doubled=fsh,
        surrendered=fsh, done=fsh, settled=fsh, outcome=jnp.full((n_s, h), -1, I32),
        net=jnp.zeros((n_s, h), F32), insurance=jnp.zeros(n_s, F32),
        insurance_net=jnp.zeros(n_s, F32), d_hard=jnp.asarray(d_hard, I32),
        d_ace=jnp.asarray(d_ace), d_n=jnp.asarray(d_n, I32), up=cards[n_s],
        hole=jnp.asarray(hole, I32), hole_revealed=jnp.zeros((), bool),
        peek_possible=jnp.zeros((), bool),
    )  # fmt: skip
    if cfg.track:
        one = jnp.zeros((n_s, h, 13), I32)
        one = _count_rank(_count_rank(one, ax(r1), h0), ax(r2), h0)
        dealer = _count_rank(jnp.zeros(13, I32), ru, True)
        if not cfg.no_hole:
            dealer = _count_rank(dealer, rank[hole], True)
        new = new._replace(hand_ranks=one, dealer_ranks=dealer)
    st = _sel(on, new, st)
    bj = on & array_natural(2, hard0, ace0)
    effect = cfg.natural_effect  # play.dealt_natural_effect
    if effect is NaturalEffect.PAY:
        st = _pay(st, p, h0 & ax(bj), jnp.full((n_s, h), _BJ, I32))
    elif effect is NaturalEffect.END:
        st = st._replace(done=st.done | (h0 & ax(bj)))
    if cfg.peek:
        pp = p.peek_by_rank[ru]
        st = st._replace(peek_possible=jnp.where(on, pp, st.peek_possible))
        table_ask = jnp.zeros((), bool)
        if cfg.pre_peek:
            ask = on & pp & ~st.settled[:, 0] & p.asks_pre_peek[2 * ru + bj.astype(I32)]
            table_ask = jnp.any(ask)
            phase = jnp.where(table_ask, _PEEK_WAIT, st.phase)
            st = st._replace(phase=jnp.where(ask, _INSURE_PHASE, phase))
        natural = bj if effect is NaturalEffect.END else jnp.zeros(n_s, bool)
        st = _peek(st, p, cfg, on & ~table_ask, pp & _dealer_bj(st), natural)
    if effect is NaturalEffect.PAY or cfg.natural_stands:
        fin = bj & (st.phase == _DECIDE)
        st = _seat_done(st._replace(done=st.done | (h0 & ax(fin))), fin)
    st, rk = _dealer_turn(st, p, cfg, rk, on & jnp.all(st.phase == _SEAT_DONE))
    return st


def _act_insurance_seats(
    st: State, p: Params, cfg: Config, rk: _Rng, s: Any, action: Any, on: Any
) -> tuple[State, _Rng]:
    """Seat ``s`` answers the pre-peek question where ``on`` and waits; once every seat
    has answered, the dealer peeks and play starts at seat 0 (numpy ``_act_insurance``,
    ``_peek_seats``)."""
    v = _view(st, s)
    h0 = _onehot(0, cfg)
    bj0 = _is_bj(v, cfg)[0]
    insure = on & (action == _INSURE)
    v = _pay(v, p, h0 & insure & bj0, jnp.full(cfg.hands, _EVEN, I32))
    v = v._replace(insurance=jnp.where(insure & ~bj0, v.stake[0].astype(F32) / 2.0, v.insurance))
    surr = on & (action == _SURRENDER)
    v = v._replace(surrendered=v.surrendered | (h0 & surr))
    v = _pay(v, p, h0 & surr, jnp.full(cfg.hands, _SURR, I32))
    v = v._replace(phase=jnp.where(on, _PEEK_WAIT, v.phase))
    st = _merge(st, v, s)
    ready = on & ~jnp.any(st.phase == _INSURE_PHASE)
    dealer_bj = st.peek_possible & _dealer_bj(st)
    ins = st.insurance
    st = st._replace(
        insurance_net=jnp.where(
            ready & (ins > 0), jnp.where(dealer_bj, _INSURANCE_PAYS * ins, -ins),
            st.insurance_net,
        )
    )  # fmt: skip
    natural = st.done[:, 0] & ~st.settled[:, 0] & _is_bj(st, cfg)[:, 0]
    st = _peek(st, p, cfg, ready, dealer_bj, natural)
    cont = ready & (st.phase[0] != _OVER)
    # play starts: every seat's hand 0 (none is split yet; numpy _advance from cur -1)
    st = st._replace(phase=jnp.where(cont, _DECIDE, st.phase), cur=jnp.where(cont, 0, st.cur))
    if cfg.auto21:
        t0 = array_total(st.hard[:, 0], st.ace[:, 0]) == play.AUTO_STAND_TOTAL
        st = st._replace(done=st.done.at[:, 0].set(st.done[:, 0] | (cont & t0)))
    st = _seat_done(st, cont & st.done[:, 0])
    return _dealer_turn(st, p, cfg, rk, cont & jnp.all(st.phase == _SEAT_DONE))


def _step_seats(
    key: Any, st: State, action: Any, p: Params, cfg: Config
) -> tuple[State, Any, Any, Any, Any]:
    """:func:`step` at a table of several seats: ``action`` ``(S,)``, of which only the
    acting seat's is played (the others' masks allow every action; their actions are
    ignored, reported as played and legal). The reward ``(S,)`` is every seat's round
    net on the step that ends the round."""
    action = jnp.asarray(action, I32)
    s = acting(st, cfg)
    v = _view(st, s)
    a_s = action[s]
    mask = legal_mask(v, p, cfg)
    a = jnp.clip(a_s, 0, cfg.n_actions - 1)
    legal = mask[a] & (a_s >= 0) & (a_s < cfg.n_actions)
    mapped = p.mapped_action[p.decision_of_phase[v.phase], mask[_HIT].astype(I32), a]
    played_s = jnp.where(legal, a_s, mapped)
    phase = v.phase
    rk = _rng(key)
    decision = played_s
    if cfg.pre_peek:
        ins = phase == _INSURE_PHASE
        decision = p.table_action[ins.astype(I32), played_s]
        st, rk = _act_insurance_seats(st, p, cfg, rk, s, decision, ins)
        v = _view(st, s)
    decide = phase == _DECIDE
    v, rk = _act_play(v, p, cfg, rk, decision, decide)
    st = _merge(st, v, s)
    st, rk = _dealer_turn(st, p, cfg, rk, decide & jnp.all(st.phase == _SEAT_DONE))
    over = st.phase[0] == _OVER
    reward = jnp.where(over, round_net(st, cfg), 0.0)
    me = jnp.arange(cfg.seats) == s
    return st, reward, over, jnp.where(me, played_s, action), me & ~legal


def masks(st: State, p: Params, cfg: Config) -> Any:
    """The env's action mask of every seat: ``(n_actions,)`` with one seat, ``(S,
    n_actions)`` with several (a seat the table does not wait for: every action)."""
    if cfg.seats == 1:
        return legal_mask(st, p, cfg)
    m = jax.vmap(lambda v: legal_mask(v, p, cfg), in_axes=(seat_axes(cfg),))(st)
    me = jnp.arange(cfg.seats) == acting(st, cfg)
    return jnp.where(me[:, None], m, True)


def active(st: State, cfg: Config) -> Any:
    """bool ``(S,)``: the seat whose action the next step plays (one seat: ``True``)."""
    return jnp.arange(cfg.seats) == acting(st, cfg) if cfg.seats > 1 else jnp.ones((), bool)


# ====================================================================== the view
def _hole_hidden(st: State, cfg: Config) -> Any:
    """The dealer's hole card is dealt and not shown (a table awaiting its bet has none:
    the last round's cards are in the discards)."""
    hidden = (st.hole >= 0) & ~st.hole_revealed
    return hidden & ~st.opened if cfg.bets else hidden


def true_count(st: State, p: Params, cfg: Config) -> Any:
    """Hi-Lo true count of the cards the learner has seen (0 for an infinite deck)."""
    if cfg.infinite:
        return jnp.zeros((), F32)
    hidden = _hole_hidden(st, cfg)
    unseen_hilo = st.undealt_hilo + p.hilo_of_id[jnp.maximum(st.hole, 0)] * hidden
    remaining = st.left + hidden
    tc = -unseen_hilo.astype(F32) * 52.0 / jnp.maximum(remaining, 1).astype(F32)
    return jnp.where(remaining > 0, tc, 0.0)


def _fields(st: State, p: Params, cfg: Config, mask: Any, settled: Any) -> dict[str, Any]:
    """The learner's view of the table, field by field (as the numpy vector env's
    ``_observe``): the focus hand (the hand to act, else the last one acted on)."""
    phase = jnp.where(settled, _SETTLED, p.decision_of_phase[st.phase])
    play_ = phase == _PLAY
    if cfg.hands > 1:
        h = jnp.where(play_, jnp.clip(st.cur, 0, cfg.hands - 1), st.last_hand)
    else:
        h = jnp.zeros((), I32)
    hard, ace, nc = st.hard[h], st.ace[h], st.ncards[h]
    if cfg.n_play > 2:
        ins_phase = (phase == _INSURANCE) if cfg.pre_peek_decisions else jnp.zeros((), bool)
        can_double = play_ & mask[_DOUBLE]
        can_split = play_ & mask[_SPLIT]
        can_surr = (play_ | ins_phase) & mask[_SURRENDER]
        can_insure = ins_phase & mask[_INSURE] if cfg.n_play == 6 else jnp.zeros((), bool)
    else:
        can_double = can_split = can_surr = can_insure = jnp.zeros((), bool)
    out = {
        "phase": phase, "h": h, "hard": hard, "ace": ace, "ncards": nc,
        "soft": array_soft(hard, ace), "total": array_total(hard, ace),
        "up": p.value_of_id[st.up], "can_double": can_double, "can_split": can_split,
        "can_surrender": can_surr, "can_insure": can_insure,
        "pair": (nc == 2) & (st.r0[h] == st.r1[h]), "nhands": st.nhands,
    }  # fmt: skip
    if cfg.bets:  # the BET step (numpy _observe_bets): no cards on the table
        bet = st.opened & ~jnp.asarray(settled)
        out = {k: jnp.where(bet, jnp.zeros_like(v), v) for k, v in out.items()}
        out["phase"] = jnp.where(bet, _BET, phase)
    return out


def observe_vector(st: State, p: Params, cfg: Config, mask: Any, settled: Any = False) -> Any:
    """The ``"vector"`` observation, float32 ``(view.VECTOR_SIZE,)``: the fields and
    scales of :mod:`blackjack_env.envs.view` (``encode_vector``), read from the state.
    ``settled``: show the round as SETTLED (the last observation of an episode)."""
    f = _fields(st, p, cfg, mask, settled)
    tc = true_count(st, p, cfg)
    shoe_left = 1.0 if cfg.infinite else st.left.astype(F32) / cfg.shoe_size
    mh = cfg.hands
    out = jnp.zeros(view.VECTOR_SIZE, F32)
    out = out.at[view.VEC_PHASE + f["phase"]].set(1.0)
    fields = {
        view.VEC_TOTAL: f["total"] / view.MAX_TOTAL,
        view.VEC_SOFT: f["soft"],
        view.VEC_UPCARD: f["up"] / float(view.UPCARD_HIGH),
        view.VEC_CAN_DOUBLE: f["can_double"],
        view.VEC_CAN_SPLIT: f["can_split"],
        view.VEC_CAN_SURRENDER: f["can_surrender"],
        view.VEC_CAN_INSURE: f["can_insure"],
        view.VEC_HAND_INDEX: f["h"] / (mh - 1 if mh > 1 else 1),
        view.VEC_NUM_HANDS: f["nhands"] / mh,
        view.VEC_CARDS: jnp.minimum(f["ncards"] / view.VEC_CARDS_SCALE, 1.0),
        view.VEC_PAIR: f["pair"],
        view.VEC_TRUE_COUNT: jnp.clip(tc / view.VEC_COUNT_SCALE, -1.0, 1.0),
        view.VEC_SHOE: shoe_left,
    }
    for index, value in fields.items():
        out = out.at[index].set(jnp.asarray(value, F32))
    return out


def count_bucket(st: State, p: Params, cfg: Config) -> Any:
    """:func:`blackjack_env.envs.view.count_bucket` of the true count, exactly: the Hi-Lo
    running count times 52 over the unseen cards, rounded half to even in integers (the
    numpy env rounds the float64 quotient, which is never within rounding error of a
    half unless it is one), clipped to ``-BUCKET_CLIP..BUCKET_CLIP``, plus ``BUCKET_CLIP``."""
    clip = view.BUCKET_CLIP
    if cfg.infinite:
        return jnp.asarray(clip, I32)
    hidden = _hole_hidden(st, cfg)
    running = -(st.undealt_hilo + p.hilo_of_id[jnp.maximum(st.hole, 0)] * hidden)
    d = jnp.maximum(st.left + hidden, 1)
    q = running * 52
    k = jnp.floor_divide(q, d)
    r2 = 2 * (q - k * d)
    k = k + ((r2 > d) | ((r2 == d) & (k % 2 == 1)))
    k = jnp.where(st.left + hidden > 0, k, 0)
    return jnp.clip(k, -clip, clip) + clip


def observe_multidiscrete(
    st: State, p: Params, cfg: Config, mask: Any, settled: Any = False
) -> Any:
    """The ``"multidiscrete"`` observation, int32 ``(view.MD_SIZE,)``: the positions of
    :mod:`blackjack_env.envs.view` (``encode_multidiscrete``)."""
    f = _fields(st, p, cfg, mask, settled)
    values = {
        view.MD_PHASE: f["phase"],
        view.MD_TOTAL: f["total"],
        view.MD_UPCARD: f["up"],
        view.MD_SOFT: f["soft"],
        view.MD_CAN_DOUBLE: f["can_double"],
        view.MD_CAN_SPLIT: f["can_split"],
        view.MD_CAN_SURRENDER: f["can_surrender"],
        view.MD_HAND_INDEX: f["h"],
        view.MD_COUNT: count_bucket(st, p, cfg),
    }
    return jnp.stack([jnp.asarray(values[i], I32) for i in range(view.MD_SIZE)])


def observe_tuple(
    st: State, p: Params, cfg: Config, mask: Any, settled: Any = False
) -> tuple[Any, Any, Any]:
    """The ``"tuple"`` observation (``view.TUPLE_*`` order, ``encode_tuple``): the focus
    hand's total, the upcard's value, a usable ace; int32 scalars."""
    f = _fields(st, p, cfg, mask, settled)
    return (jnp.asarray(f["total"], I32), jnp.asarray(f["up"], I32), jnp.asarray(f["soft"], I32))


def unseen_ranks(st: State, p: Params, cfg: Config) -> Any:
    """int32 ``(13,)``: the cards the learner has not seen, by rank (the undealt cards and
    a hidden hole card; an infinite deck: 4 of each)."""
    if cfg.infinite:
        return jnp.full(13, 4, I32)
    n = cfg.shoe_size
    undealt = jnp.arange(n) < st.left
    ranks = p.rank_of_id[st.shoe[(st.pos + jnp.arange(n)) % n].astype(I32)]
    counts = jnp.zeros(13, I32).at[ranks].add(undealt.astype(I32))
    return _count_rank(counts, p.rank_of_id[jnp.maximum(st.hole, 0)], _hole_hidden(st, cfg))


def seat_ranks(st: State, cfg: Config) -> Any:
    """int32 ``(13,)`` (``(S, 13)``): the cards of each seat's hands, by rank."""
    live = _live(st, cfg)
    return jnp.sum(jnp.where(live[..., None], st.hand_ranks, 0), axis=-2)


def observe_dict(
    st: State, p: Params, cfg: Config, mask: Any, settled: Any = False, table_cards: Any = None
) -> dict[str, Any]:
    """The ``"dict"`` observation (keys ``view.DICT_KEYS``, the bounds of
    :mod:`blackjack_env.envs.view`'s ``encode_dict`` and ``dict_space``), read from the
    state as the numpy vector env's ``_observe_dict`` (``_observe_bets`` at a BET step).
    ``table_cards``: every seat's cards in seat order (several seats); default this
    seat's."""
    f = _fields(st, p, cfg, mask, settled)
    bet = (st.opened & ~jnp.asarray(settled)) if cfg.bets else jnp.zeros((), bool)
    high = view.COUNT_HIGH
    hand = st.hand_ranks[f["h"]]
    dealer = (jnp.arange(13) == p.rank_of_id[st.up]).astype(I32)
    dealer = jnp.where(st.hole_revealed, st.dealer_ranks, dealer)
    seats = seat_ranks(st, cfg) if table_cards is None else table_cards
    stake = st.stake[f["h"]].astype(F32) / cfg.bet
    none = jnp.zeros(13, I32)
    out = {
        "phase": f["phase"],
        "player_total": f["total"],
        "soft": f["soft"],
        "dealer_upcard": f["up"],
        "hand_index": f["h"],
        "num_hands": f["nhands"],
        "hand_cards": jnp.minimum(jnp.where(bet, none, hand), high),
        "dealer_cards": jnp.where(bet, none, dealer),
        "seat_cards": jnp.minimum(jnp.where(bet, jnp.zeros_like(seats), seats), high),
        "unseen_cards": jnp.minimum(unseen_ranks(st, p, cfg), high),
        "true_count": jnp.clip(true_count(st, p, cfg), -view.COUNT_CLIP, view.COUNT_CLIP)[None],
        "bet": jnp.minimum(jnp.where(bet, 0.0, stake), view.CHIP_BOUND)[None],
        "bankroll": jnp.clip(bankroll(st, cfg) / cfg.bet, -view.CHIP_BOUND, view.CHIP_BOUND)[None],
        "action_mask": mask.astype(jnp.int8),
    }
    assert tuple(out) == view.DICT_KEYS
    return {k: jnp.asarray(v, I32) if k in _DICT_INTS else v for k, v in out.items()}


_DICT_INTS = ("phase", "player_total", "soft", "dealer_upcard", "hand_index", "num_hands")


def bankroll(st: State, cfg: Config) -> Any:
    """The learner's chips (float32, the numpy env's ``info["bankroll"]``): those off the
    table with a finite bankroll, the session's net chips with unlimited credit."""
    units = st.session if cfg.bankroll is None else chip_units(st, cfg)
    return units.astype(F32) / cfg.chip_den


OBSERVERS = {
    "vector": observe_vector,
    "multidiscrete": observe_multidiscrete,
    "tuple": observe_tuple,
    "dict": observe_dict,
}


def observe(
    st: State, p: Params, cfg: Config, mode: str, settled: Any = False, mask: Any = None
) -> Any:
    """The observation of every seat in mode ``mode`` (one seat: as the observer; several:
    a leading seat axis, a seat the table does not wait for shown ``SETTLED``, as the
    numpy vector env shows it). ``mask``: the masks to show (default: the state's)."""
    fn = OBSERVERS[mode]
    if mask is None:
        mask = masks(st, p, cfg)
    if cfg.seats == 1:
        return fn(st, p, cfg, mask, settled)
    shown = jnp.asarray(settled) | (jnp.arange(cfg.seats) != acting(st, cfg))
    if mode == "dict":  # every seat's cards, in seat order, seen from each seat
        cards = seat_ranks(st, cfg).reshape(-1)
        fn = partial(observe_dict, table_cards=cards)
    return jax.vmap(lambda v, m, sd: fn(v, p, cfg, m, sd), in_axes=(seat_axes(cfg), 0, 0))(
        st, mask, shown
    )
