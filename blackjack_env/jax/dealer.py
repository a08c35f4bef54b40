"""The dealer of a JAX table (the numpy batched tables'
:mod:`blackjack_env.envs.batch.dealer`): the dealer's turn (:func:`dealer_turn`: the
hole card shown or drawn, the draws to the rules, settlement), a card added to the
dealer's hand, and the peek for a dealer blackjack (:func:`peek`).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from blackjack_env.envs.codes import OUTCOME_BLACKJACK, PHASE_OVER
from blackjack_env.jax.loops import guarded_while, when
from blackjack_env.jax.settlement import pay, settle, settle_by_compare
from blackjack_env.jax.shoe import Rng, draw
from blackjack_env.jax.state import (
    I32,
    State,
    count_rank,
    dealer_natural,
    hand_onehot,
    hands_axis,
    live_hands,
    select,
)
from blackjack_env.jax.tables import Config, Params


def dealer_turn(st: State, p: Params, cfg: Config, rk: Rng, on: Any) -> tuple[State, Rng]:
    """The dealer's turn where ``on`` (every hand done): the round ends (``OVER``), the
    dealer draws to the rules if some hand is still open and not surrendered, and the
    open hands are settled."""
    live = live_hands(st, cfg)
    new = st._replace(
        phase=jnp.asarray(PHASE_OVER, I32), acting_hand=st.nhands - 1,
        hole_revealed=st.hole_revealed | ~p.no_hole,
    )  # fmt: skip
    st = select(on, new, st)
    any_open = jnp.any(live & ~st.settled)
    plays = jnp.any(live & ~st.settled & ~st.surrendered)
    open_ = on & any_open

    st, rk = when(on & p.no_hole, second_card, (st, rk), (p, on, any_open), cfg=cfg)
    drawing = open_ & plays

    def need(carry: tuple[State, Rng, Any], p: Params, drawing: Any) -> Any:
        s, _, k = carry
        return drawing & p.dealer_hits[2 * s.dealer_hard + s.dealer_ace] & (k < 32)

    def body(carry: tuple[State, Rng, Any], p: Params, drawing: Any) -> tuple[State, Rng, Any]:
        s, r, k = carry
        go = need(carry, p, drawing)
        s, card, _ = draw(s, p, cfg, r, go)
        # guarded: a table that stopped keeps its counter (a while_loop's value)
        r = Rng(r.seed, r.i + go.astype(jnp.uint32))
        return dealer_add(s, p, card, go), r, k + go

    st, rk, _ = guarded_while(need, body, (st, rk, jnp.zeros((), I32)), p, drawing)
    st = settle(st, p, cfg, open_)
    return st, rk


def second_card(
    st: State, rk: Rng, p: Params, on: Any, any_open: Any, *, cfg: Config
) -> tuple[State, Rng]:
    """No hole card (``p.no_hole``): the dealer's second card is drawn when the dealer
    plays (``on``) for an open hand, and shown at once; no open hand: the dealer keeps one
    card. Guarded by ``on & p.no_hole`` (nothing changes elsewhere, the random stream
    included)."""
    on = on & p.no_hole
    dealt = on & any_open
    st = st._replace(hole_revealed=jnp.where(on & ~any_open, False, st.hole_revealed))
    st, card, moved = draw(st, p, cfg, rk, dealt)
    st = dealer_add(st, p, card, dealt)
    st = st._replace(
        hole_card=jnp.where(dealt, card, st.hole_card),
        hole_revealed=jnp.where(dealt, True, st.hole_revealed),
    )
    return st, Rng(rk.seed, jnp.where(on, moved.i, rk.i))


def dealer_add(st: State, p: Params, card: Any, on: Any) -> State:
    """The dealer's hand takes ``card`` where ``on``."""
    r = p.rank_of_card[card]
    return st._replace(
        dealer_hard=jnp.where(on, st.dealer_hard + p.card_values[r], st.dealer_hard),
        dealer_ace=jnp.where(on, st.dealer_ace | (r == 0), st.dealer_ace),
        dealer_ncards=jnp.where(on, st.dealer_ncards + 1, st.dealer_ncards),
        # (tracked: a static shape)
        dealer_ranks=count_rank(st.dealer_ranks, r, on)
        if st.dealer_ranks.shape[-1]
        else st.dealer_ranks,
    )


def peek(st: State, p: Params, cfg: Config, on: Any, dealer_bj: Any, natural: Any) -> State:
    """The dealer checks the hole card where ``on``: a blackjack settles every hand and
    ends the round; otherwise a natural that ``natural`` marks (done, unsettled) is paid
    where naturals are paid at the peek (numpy ``_do_peek``)."""
    hit = on & dealer_bj
    st = select(hit, st._replace(hole_revealed=jnp.asarray(True)), st)
    st = settle_by_compare(st, p, cfg, hit)
    st = st._replace(phase=jnp.where(hit, PHASE_OVER, st.phase))
    paid = on & ~dealer_bj & natural & p.naturals_paid_at_peek
    pay0 = hand_onehot(0, cfg) & hands_axis(paid)
    return pay(st, p, pay0, jnp.full(cfg.hands, OUTCOME_BLACKJACK, I32))


def deal_hole(
    st: State, card: Any, rk: Rng, p: Params, on: Any, *, cfg: Config
) -> tuple[State, Any, Rng]:
    """The dealer's hole card dealt where ``on``, under rules with a hole card; guarded by
    ``~p.no_hole`` (no-hole rules: nothing dealt, the stream does not move, ``card`` kept)."""
    holds = ~p.no_hole
    st, dealt, moved = draw(st, p, cfg, rk, on & holds)
    return st, jnp.where(holds, dealt, card), Rng(rk.seed, jnp.where(holds, moved.i, rk.i))


def peek_at_deal(
    st: State, p: Params, on: Any, peeks: Any, natural: Any, *, cfg: Config
) -> tuple[State]:
    """The dealer's peek after the deal where ``on`` (``peeks``: the upcard lets the dealer
    peek; ``natural``: a natural that ended the hand, paid at the peek); guarded by ``on``."""
    return (peek(st, p, cfg, on, peeks & dealer_natural(st), natural),)
