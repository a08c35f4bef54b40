"""The dealer of a JAX table (the numpy batched tables'
:mod:`blackjack_env.envs.batch.dealer`): the dealer's turn (:func:`dealer_turn`: the
hole card shown or drawn, the draws to the rules, settlement), a card added to the
dealer's hand, and the peek for a dealer blackjack (:func:`peek`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Int32

from blackjack_env.envs.codes import OUTCOME_BLACKJACK, PHASE_OVER
from blackjack_env.jax.loops import guarded_while
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


def dealer_turn(
    st: State, p: Params, cfg: Config, rk: Rng, on: Bool[Array, ""]
) -> tuple[State, Rng]:
    """The dealer's turn where ``on`` (every hand done): the round ends (``OVER``); under
    no-hole rules (``p.no_hole``) the dealer's second card is drawn for an open hand and
    shown at once (no open hand: the dealer keeps one card); the dealer draws to the rules
    if some hand is still open and not surrendered, and the open hands are settled.

    The no-hole second card is the first turn of the drawing loop (one draw in the
    compiled code, not two): its number is the stream's first, as the hits' come after
    it; the stream moves one number for it under no-hole rules even when no open hand
    asks for it."""
    live = live_hands(st, cfg)
    new = st._replace(
        phase=jnp.asarray(PHASE_OVER, I32), acting_hand=st.nhands - 1,
        hole_revealed=st.hole_revealed | ~p.no_hole,
    )  # fmt: skip
    st = select(on, new, st)
    any_open = jnp.any(live & ~st.settled)
    plays = jnp.any(live & ~st.settled & ~st.surrendered)
    open_ = on & any_open
    second = on & p.no_hole  # (the dealer's second card comes now)
    kept = second & ~any_open
    st = st._replace(hole_revealed=jnp.where(kept, False, st.hole_revealed))
    rk = Rng(rk.seed, rk.i + kept.astype(jnp.uint32))
    drawing = open_ & plays

    # (the state, the stream, the dealer's draws, the no-hole second card due)
    Carry = tuple[State, Rng, Int32[Array, ""], Bool[Array, ""]]

    def need(carry: Carry, p: Params, drawing: Bool[Array, ""]) -> Bool[Array, ""]:
        s, _, k, hole = carry
        return hole | (drawing & p.dealer_hits[2 * s.dealer_hard + s.dealer_ace] & (k < 32))

    def body(carry: Carry, p: Params, drawing: Bool[Array, ""]) -> Carry:
        s, r, k, hole = carry
        go = need(carry, p, drawing)
        s, card, _ = draw(s, p, cfg, r, go)
        # guarded: a table that stopped keeps its counter (a while_loop's value)
        r = Rng(r.seed, r.i + go.astype(jnp.uint32))
        s = dealer_add(s, p, card, go)
        s = s._replace(
            hole_card=jnp.where(hole, card, s.hole_card),
            hole_revealed=s.hole_revealed | hole,
        )
        return s, r, k + (go & ~hole), hole & False

    carry = (st, rk, jnp.zeros((), I32), second & any_open)
    st, rk, _, _ = guarded_while(need, body, carry, p, drawing)
    st = settle(st, p, cfg, open_)
    return st, rk


def dealer_add(st: State, p: Params, card: Int32[Array, ""], on: Bool[Array, ""]) -> State:
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


def peek(
    st: State, p: Params, cfg: Config, on: Bool[Array, ""], dealer_bj: Bool[Array, ""],
    natural: Bool[Array, "*seats"],
) -> State:  # fmt: skip
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


def deal_cards(
    st: State, p: Params, cfg: Config, rk: Rng, n: int, on: Bool[Array, ""]
) -> tuple[State, Int32[Array, " n"], Int32[Array, ""], Rng]:
    """The deal where ``on``: ``n`` cards in order (the seats' and the upcard), then the
    dealer's hole card under rules with one (``p.no_hole``: none dealt, the stream does
    not move for it). ``(state, cards (n,), hole card (0 under no-hole rules), rng)``.

    One draw in a ``fori_loop`` of ``n + 1`` turns rather than ``n + 1`` draws written out:
    the same cards and stream, a fifth of the compiled code (each draw is about a dozen
    XLA kernels; measured 2026-12-02, vegas-strip's ``step`` at ``-O0``)."""
    holds = ~p.no_hole

    def body(
        k: Int32[Array, ""], carry: tuple[State, Rng, Int32[Array, " n+1"]]
    ) -> tuple[State, Rng, Int32[Array, " n+1"]]:
        s, r, cards = carry
        deals = (k < n) | holds
        s, card, moved = draw(s, p, cfg, r, on & deals)
        r = Rng(r.seed, jnp.where(deals, moved.i, r.i))
        return s, r, cards.at[k].set(jnp.where(deals, card, 0))

    st, rk, cards = jax.lax.fori_loop(0, n + 1, body, (st, rk, jnp.zeros(n + 1, I32)))
    return st, cards[:n], cards[n], rk


def peek_at_deal(
    st: State, p: Params, on: Bool[Array, ""], peeks: Bool[Array, ""],
    natural: Bool[Array, "*seats"], *, cfg: Config,
) -> tuple[State]:  # fmt: skip
    """The dealer's peek after the deal where ``on`` (``peeks``: the upcard lets the dealer
    peek; ``natural``: a natural that ended the hand, paid at the peek); guarded by ``on``."""
    return (peek(st, p, cfg, on, peeks & dealer_natural(st), natural),)
