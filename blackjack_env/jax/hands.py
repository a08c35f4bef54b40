"""The learner's hands at a JAX table (the numpy batched tables'
:mod:`blackjack_env.envs.batch.hands`): the legal-action key and mask of the hand to act
(:func:`legal_key`, :func:`legal_mask`), a playing decision (:func:`act_play`: stand,
hit, double, split, surrender, the one place a hand's decision is played), the split
and a split hand's second card, and the move to the next hand or the dealer
(:func:`advance`).
"""

from __future__ import annotations

from typing import TypeAlias

import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Bool, Int32, Shaped

from blackjack_env.engine import play
from blackjack_env.envs.codes import (
    ACTION_DOUBLE,
    ACTION_HIT,
    ACTION_SPLIT,
    ACTION_STAND,
    ACTION_SURRENDER,
    OUTCOME_BUST,
    OUTCOME_SURRENDER,
    PHASE_DECIDE,
    PHASE_DONE,
    PHASE_INSURE,
)
from blackjack_env.jax import tables
from blackjack_env.jax.chips import bet_mask, covers_chips, covers_insurance, split_stake_ok
from blackjack_env.jax.dealer import dealer_turn
from blackjack_env.jax.loops import guarded_while
from blackjack_env.jax.settlement import pay
from blackjack_env.jax.shoe import Rng, draw
from blackjack_env.jax.state import (
    F32,
    I32,
    State,
    count_rank,
    hand_onehot,
    hand_total,
    naturals,
    select,
)
from blackjack_env.jax.tables import Config, Params


def split_allowed(
    p: Params, pair: Bool[Array, ""] | Int32[Array, ""], nh: Int32[Array, ""], aces: Bool[Array, ""]
) -> Bool[Array, ""]:
    """The rules allow splitting a pair (``pair``: it is one under the rules) at
    ``nh`` hands, of aces where ``aces`` (``Params.split_ok``)."""
    return p.split_ok[18 * pair.astype(I32) + 2 * nh + aces.astype(I32)]


def second_card(
    st: State, p: Params, cfg: Config, rk: Rng, h: Int32[Array, ""], on: Bool[Array, ""]
) -> tuple[State, Rng]:
    """Hand ``h`` (one card, from a split) gets its second card where ``on``; a hand with
    no decision left is finished (``play.split_hand_done``)."""
    st, card, rk = draw(st, p, cfg, rk, on)
    return take_second(st, p, cfg, card, h, on), rk


def take_second(
    st: State, p: Params, cfg: Config, card: Int32[Array, ""], h: Int32[Array, ""],
    on: Bool[Array, ""],
) -> State:  # fmt: skip
    """Hand ``h`` (one card, from a split) takes ``card`` as its second card where ``on``
    (:func:`second_card` without the draw)."""
    at = hand_onehot(h, cfg) & on
    r0 = st.first_rank[h]
    r1 = p.rank_of_card[card]
    ranks = 13 * r0 + r1
    ok = p.splits & split_allowed(p, p.pair[ranks], st.nhands, r0 == 0)
    key = p.second_key[ranks] + 4 * (ok & split_stake_ok(st, p, cfg, h))
    finish = p.split_done[key]
    st = st._replace(
        hard=jnp.where(at, p.two_hard[ranks], st.hard),
        ace=jnp.where(at, p.two_ace[ranks], st.ace),
        ncards=jnp.where(at, 2, st.ncards),
        second_rank=jnp.where(at, r1, st.second_rank),
        done=st.done | (at & finish),
    )
    if cfg.track:
        st = st._replace(hand_ranks=count_rank(st.hand_ranks, r1, at))
    return st


def advance(st: State, p: Params, cfg: Config, rk: Rng, on: Bool[Array, ""]) -> tuple[State, Rng]:
    """Move on to the next hand needing a decision (its second card dealt if it comes
    from a split), or to the dealer (numpy ``_advance``): :func:`next_hand`, then
    :func:`hands_done`."""
    st, rk, to_dealer = next_hand(st, p, cfg, rk, on)
    return hands_done(st, p, cfg, rk, to_dealer)


#: :func:`next_hand`'s loop carry: the state, the stream, still searching, the seat's
#: hands all done
Search: TypeAlias = tuple[State, Rng, Bool[Array, ""], Bool[Array, ""]]


def next_hand(
    st: State, p: Params, cfg: Config, rk: Rng, on: Bool[Array, ""]
) -> tuple[State, Rng, Bool[Array, ""]]:
    """:func:`advance` without its end: move on to the next hand needing a decision
    where ``on``; ``(state, rng, to_dealer)``, ``to_dealer`` where the seat's hands are
    all done (the caller then plays :func:`hands_done`)."""

    def going(carry: Search, p: Params) -> Bool[Array, ""]:
        return carry[2]

    def body(carry: Search, p: Params) -> Search:
        s, r, going, to_dealer = carry
        cur = s.acting_hand + going
        s = s._replace(acting_hand=cur)
        past = going & (cur >= s.nhands)
        to_dealer = to_dealer | past
        going = going & ~past
        f = jnp.clip(cur, 0, cfg.hands - 1)
        live = going & ~s.done[f]
        if cfg.hands > 1:  # (a hand of one card comes from a split)
            one = live & (s.ncards[f] == 1)
            s, r = second_card(s, p, cfg, r, f, one)
        else:
            one = jnp.zeros((), bool)
        total = hand_total(s.hard[f], s.ace[f])
        hit21 = p.auto21 & live & ~one & (total == play.AUTO_STAND_TOTAL)
        s = s._replace(done=s.done | (hand_onehot(f, cfg) & hit21))
        going = going & s.done[f]
        return s, r, going, to_dealer

    # (guarded: a table stops once it found its hand; the counter then moves on as if
    # every table had turned hands + 1 times, the bound of the search)
    i0 = rk.i
    carry = (st, rk, jnp.asarray(on, bool), jnp.zeros((), bool))
    st, rk, _, to_dealer = guarded_while(going, body, carry, p)
    return st, Rng(rk.seed, i0 + jnp.uint32(cfg.hands + 1)), to_dealer


def hands_done(
    st: State, p: Params, cfg: Config, rk: Rng, on: Bool[Array, ""]
) -> tuple[State, Rng]:
    """The seat's hands are all done where ``on``: with one seat the dealer plays; with
    several the seat waits (``DONE``, the cursor on its last hand) for the others (numpy
    ``_flush_dealer`` / ``_seats_done``)."""
    if cfg.seats == 1:
        return dealer_turn(st, p, cfg, rk, on)
    return seat_done(st, on), rk


def seat_done(st: State, on: Bool[Array, "*seats"]) -> State:
    """Where ``on``: the seat's hands are all done; it waits (``DONE``, the cursor on
    its last hand)."""
    return st._replace(
        phase=jnp.where(on, PHASE_DONE, st.phase),
        acting_hand=jnp.where(on, st.nhands - 1, st.acting_hand),
    )


def split_hand(
    st: State, p: Params, cfg: Config, h: Int32[Array, ""], on: Bool[Array, ""]
) -> State:
    """Split hand ``h`` where ``on``: the new hand goes right after it (later hands move
    one place right) holding the second card; hand ``h`` keeps its first card."""
    k = jnp.arange(cfg.hands)
    move = (k > h + 1) & (k <= st.nhands)
    prev = jnp.maximum(k - 1, 0)
    new_at = k == h + 1
    r1 = st.second_rank[h]
    v1 = p.card_values[r1]
    new_stake = st.stake[h] // p.split_divisor  # play.split_stake

    def shifted(
        a: Shaped[Array, " hands"], fresh: Shaped[ArrayLike, ""]
    ) -> Shaped[Array, " hands"]:
        a2 = jnp.where(move, a[prev], a)
        return jnp.where(new_at, fresh, a2)

    z = jnp.zeros((), I32)
    f = jnp.zeros((), bool)
    new = st._replace(
        hard=shifted(st.hard, v1), ace=shifted(st.ace, r1 == 0), ncards=shifted(st.ncards, 1),
        first_rank=shifted(st.first_rank, r1), second_rank=shifted(st.second_rank, z),
        stake=shifted(st.stake, new_stake),
        doubled=shifted(st.doubled, f), surrendered=shifted(st.surrendered, f),
        done=shifted(st.done, f), settled=shifted(st.settled, f),
        outcome=shifted(st.outcome, jnp.asarray(-1, I32)),
        net=shifted(st.net, jnp.zeros((), F32)), nhands=st.nhands + 1,
    )  # fmt: skip
    at = hand_onehot(h, cfg)
    r0h = st.first_rank[h]
    new = new._replace(
        hard=jnp.where(at, p.card_values[r0h], new.hard),
        ace=jnp.where(at, r0h == 0, new.ace),
        stake=jnp.where(at, new_stake, new.stake),
    )
    if cfg.track:  # the new hand holds the second card, taken from hand h
        hr = jnp.where(move[:, None], st.hand_ranks[prev], st.hand_ranks)
        one = (jnp.arange(13) == r1).astype(I32)
        hr = jnp.where(new_at[:, None], one, hr)
        new = new._replace(hand_ranks=jnp.where(at[:, None], hr - one, hr))
    return select(on, new, st)


def act_play(
    st: State, p: Params, cfg: Config, rk: Rng, action: Int32[Array, ""], on: Bool[Array, ""]
) -> tuple[State, Rng]:
    """A playing decision (``Action`` 0..4, legal) on the current hand where ``on``
    (:func:`play_hand`), then the move to the next hand needing one, or to the dealer
    (:func:`advance`; numpy ``_act_play``)."""
    st, rk, finished = play_hand(st, p, cfg, rk, action, on)
    return advance(st, p, cfg, rk, finished)


def play_hand(
    st: State, p: Params, cfg: Config, rk: Rng, action: Int32[Array, ""], on: Bool[Array, ""]
) -> tuple[State, Rng, Bool[Array, ""]]:
    """A playing decision (``Action`` 0..4, legal) on the current hand where ``on``: the
    one place a hand's decision is played. ``(state, rng, finished)``: ``finished`` where
    the hand is done (the caller moves on, :func:`advance`)."""
    h = jnp.clip(st.acting_hand, 0, cfg.hands - 1)
    at = hand_onehot(h, cfg)
    if cfg.hands > 1:
        st = st._replace(last_hand=jnp.where(on, h, st.last_hand))
    takes = on & ((action == ACTION_HIT) | (action == ACTION_DOUBLE))
    dbl = at & on & (action == ACTION_DOUBLE)
    st = st._replace(
        stake=jnp.where(dbl, 2 * st.stake, st.stake),
        doubled=st.doubled | dbl,
        done=st.done | dbl,
    )
    if cfg.hands > 1:
        # one draw serves the split hand's second card (the stream's first number) and the
        # card a HIT or DOUBLE takes (its second): the actions exclude each other
        split = on & (action == ACTION_SPLIT)
        st = split_hand(st, p, cfg, h, split)
        i = rk.i
        st, card, _ = draw(st, p, cfg, Rng(rk.seed, i + (~split).astype(jnp.uint32)), split | takes)
        st = take_second(st, p, cfg, card, h, split)
        rk = Rng(rk.seed, i + jnp.uint32(2))
    else:
        st, card, rk = draw(st, p, cfg, rk, takes)
    r = p.rank_of_card[card]
    hit = at & takes
    st = st._replace(
        hard=jnp.where(hit, st.hard + p.card_values[r], st.hard),
        ace=jnp.where(hit, st.ace | (r == 0), st.ace),
        ncards=jnp.where(hit, st.ncards + 1, st.ncards),
    )
    if cfg.track:
        st = st._replace(hand_ranks=count_rank(st.hand_ranks, r, hit))
    bust = hit & (st.hard > 21)
    st = pay(st, p, bust, jnp.full(cfg.hands, OUTCOME_BUST, I32))
    t21 = p.auto21 & hit & ~bust & (hand_total(st.hard, st.ace) == play.AUTO_STAND_TOTAL)
    st = st._replace(done=st.done | t21)
    st = st._replace(done=st.done | (at & on & (action == ACTION_STAND)))
    surr = at & on & (action == ACTION_SURRENDER)
    st = st._replace(surrendered=st.surrendered | surr, done=st.done | surr)
    st = pay(st, p, surr & p.surrender_at_once, jnp.full(cfg.hands, OUTCOME_SURRENDER, I32))
    return st, rk, on & st.done[h]


def legal_key(st: State, p: Params, cfg: Config) -> Int32[Array, ""]:
    """The row of the legal table (and of ``Params.mask_rows``) of the table's state
    (numpy ``legal_keys``)."""
    h = jnp.clip(st.acting_hand, 0, cfg.hands - 1)
    hard, ace, nc = st.hard[h], st.ace[h], st.ncards[h]
    r0, r1 = st.first_rank[h], st.second_rank[h]
    two = nc == 2
    key = 2 * hard + ace
    split = st.nhands > 1
    key = key + jnp.where(split, play.KEY_FROM_SPLIT + play.KEY_SPLIT_ACES * (r0 == 0), 0)
    if cfg.hands > 1:
        maybe = p.splits & p.pair[13 * r0 + r1] & two
        aces = split & (r0 == 0)
        allowed = split_allowed(p, jnp.ones((), I32), st.nhands, aces)
        key = key + play.KEY_CAN_SPLIT * (maybe & allowed & split_stake_ok(st, p, cfg, h))
    key = key + play.KEY_TWO_CARDS * two + play.KEY_UPCARD * p.rank_of_card[st.upcard]
    if cfg.bankroll:  # the rows without DOUBLE where it is not covered
        key = key + p.poor_play_offset * ~covers_chips(st, p, cfg, st.stake[h])
    key = jnp.where(st.phase == PHASE_DECIDE, key, p.over_key)
    up = p.rank_of_card[st.upcard]
    ins_key = p.pre_peek_key + 2 * up + naturals(st, p, cfg)[0]
    if cfg.bankroll:  # the rows without INSURE where it is not covered
        ins_key = ins_key + p.poor_pre_peek_offset * ~covers_insurance(st, p, cfg)
    return jnp.where(st.phase == PHASE_INSURE, ins_key, key)


def legal_mask(st: State, p: Params, cfg: Config) -> Bool[Array, " actions"]:
    """bool ``(n_actions,)``: the env's action mask (the numpy env's; a settled round:
    every action; a table awaiting its bet: the bet sizes allowed): the row
    ``p.mask_sets[p.mask_index[key]]`` of :func:`legal_key`."""
    mask = p.mask_sets[p.mask_index[legal_key(st, p, cfg)].astype(I32)]
    if cfg.bets:
        mask = jnp.where(st.opened, bet_mask(st, p, cfg), mask)
    return mask


def decision_of(phase: Int32[Array, "*seats"]) -> Int32[Array, "*seats"]:
    """The observation's decision (``Decision``) of a ``BatchPhase`` code
    (``envs.step.DECISION_BY_BATCH_PHASE``)."""
    return jnp.asarray(tables.decision_of_phase())[phase]


def map_illegal(
    decision: Int32[Array, ""], mask: Bool[Array, " actions"], a: Int32[Array, ""], cfg: Config
) -> Int32[Array, ""]:
    """What an illegal action ``a`` plays at a decision (``envs.step.array_map_illegal``,
    tabulated over every input: ``tables.mapped_action``)."""
    table = jnp.asarray(tables.mapped_action(cfg.n_actions))
    return table[decision, mask[ACTION_HIT].astype(I32), a]


def table_decision(
    phase: Int32[Array, ""], played: Int32[Array, ""], cfg: Config
) -> Int32[Array, ""]:
    """The table's ``Action`` of a played env action: at the pre-peek question the env's
    STAND is DECLINE (``envs.step.array_table_actions``, tabulated:
    ``tables.table_action``)."""
    ins = (phase == PHASE_INSURE).astype(I32)
    return jnp.asarray(tables.table_action(cfg.n_actions))[ins, played]
