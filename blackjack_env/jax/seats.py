"""Several learner seats at one JAX table (the numpy batched tables'
:mod:`blackjack_env.envs.batch.seats`): casino deal order, the pre-peek questions seat by
seat before one peek, seat 0 plays all its hands, then seat 1, ..., the dealer once.
A seat's decisions are played on a one-seat view of the table (:func:`seat_view`,
:func:`merge_seat`); :func:`acting` is the seat the table waits for, :func:`masks` the
action mask of every seat.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Bool, Int32, PRNGKeyArray, UInt32

from blackjack_env.engine import play
from blackjack_env.envs.codes import (
    ACTION_INSURE,
    ACTION_SURRENDER,
    OUTCOME_BLACKJACK,
    OUTCOME_EVEN_MONEY,
    OUTCOME_SURRENDER,
    PHASE_DECIDE,
    PHASE_DONE,
    PHASE_INSURE,
    PHASE_OVER,
    PHASE_PEEK_WAIT,
)
from blackjack_env.jax.dealer import deal_cards, dealer_turn, peek, peek_at_deal
from blackjack_env.jax.hands import (
    act_play,
    decision_of,
    legal_mask,
    map_illegal,
    seat_done,
    table_decision,
)
from blackjack_env.jax.loops import share, when
from blackjack_env.jax.settlement import pay, round_net
from blackjack_env.jax.shoe import Rng, rng
from blackjack_env.jax.state import (
    F32,
    I32,
    SEAT_FIELDS,
    State,
    Stepped,
    count_rank,
    dealer_natural,
    hand_onehot,
    hand_total,
    hands_axis,
    is_natural,
    natural_effects,
    naturals,
    seat_axes,
    select,
)
from blackjack_env.jax.tables import Config, Params

_INSURANCE_PAYS = float(play.INSURANCE_PAYS)


def seat_view(st: State, s: Int32[ArrayLike, ""]) -> State:
    """Seat ``s`` of a several-seat table as a one-seat state (the table's shoe and
    dealer)."""
    return st._replace(**{f: getattr(st, f)[s] for f in SEAT_FIELDS})


def merge_seat(st: State, v: State, s: Int32[ArrayLike, ""]) -> State:
    """``st`` with seat ``s`` (and the shoe and dealer) taken from the view ``v``."""
    return v._replace(**{f: getattr(st, f).at[s].set(getattr(v, f)) for f in SEAT_FIELDS})


def acting(st: State, cfg: Config) -> Int32[Array, ""]:
    """The seat the table waits for (numpy ``TableBatch.acting``): the first seat still to
    answer the pre-peek question, else the first with a hand to play, else seat 0."""
    if cfg.seats == 1:
        return jnp.zeros((), I32)
    ins = st.phase == PHASE_INSURE
    dec = st.phase == PHASE_DECIDE
    return jnp.where(jnp.any(ins), jnp.argmax(ins), jnp.argmax(dec)).astype(I32)


def deal_seats(
    st: State, p: Params, cfg: Config, rk: Rng, on: Bool[Array, ""]
) -> tuple[State, Rng, Bool[Array, ""]]:
    """:func:`~blackjack_env.jax.round.deal_round`'s deal at a table of several seats
    (numpy ``_deal_seats``, then ``start_rounds``): a card to each seat, the upcard, a
    second card to each seat, the hole card; naturals; the pre-peek questions (the seats
    not asked wait, ``PEEK_WAIT``) or the peek; a seat whose hand is done waits
    (``DONE``). ``(state, rng, dealer)``: all done, the dealer's turn (left to the
    caller) where ``dealer``."""
    n_s, h = cfg.seats, cfg.hands
    # a card to each seat, the upcard, a second card to each seat, the hole card (none
    # under no-hole rules: the dealer's second card comes later)
    st, cards, hole_dealt, rk = deal_cards(st, p, cfg, rk, 2 * n_s + 1, on)
    rank, val = p.rank_of_card, p.value_of_card
    first, second = cards[:n_s], cards[n_s + 1 : 2 * n_s + 1]
    r1, ru, r2 = rank[first], rank[cards[n_s]], rank[second]
    hard0 = val[first] + val[second]
    ace0 = (r1 == 0) | (r2 == 0)
    up_value, up_ace = val[cards[n_s]], ru == 0
    hole = jnp.where(p.no_hole, -1, hole_dealt)
    d_hard = up_value + jnp.where(p.no_hole, 0, val[hole_dealt])
    d_ace = up_ace | (~p.no_hole & (rank[hole_dealt] == 0))
    d_n = jnp.where(p.no_hole, 1, 2)
    ax = hands_axis
    h0 = jnp.broadcast_to(hand_onehot(0, cfg), (n_s, h))
    zs, zsh, fsh = jnp.zeros(n_s, I32), jnp.zeros((n_s, h), I32), jnp.zeros((n_s, h), bool)
    new = st._replace(
        rounds=st.rounds + 1, phase=jnp.full(n_s, PHASE_DECIDE, I32), nhands=jnp.ones(n_s, I32),
        acting_hand=zs, last_hand=zs, hard=jnp.where(h0, ax(hard0), zsh), ace=h0 & ax(ace0),
        ncards=jnp.where(h0, 2, zsh), first_rank=jnp.where(h0, ax(r1), zsh),
        second_rank=jnp.where(h0, ax(r2), zsh), stake=jnp.where(h0, p.bet, zsh), doubled=fsh,
        surrendered=fsh, done=fsh, settled=fsh, outcome=jnp.full((n_s, h), -1, I32),
        net=jnp.zeros((n_s, h), F32), insurance=jnp.zeros(n_s, F32),
        insurance_net=jnp.zeros(n_s, F32), dealer_hard=jnp.asarray(d_hard, I32),
        dealer_ace=jnp.asarray(d_ace), dealer_ncards=jnp.asarray(d_n, I32), upcard=cards[n_s],
        hole_card=jnp.asarray(hole, I32), hole_revealed=jnp.zeros((), bool),
        peek_possible=jnp.zeros((), bool),
    )  # fmt: skip
    if cfg.track:
        one = jnp.zeros((n_s, h, 13), I32)
        one = count_rank(count_rank(one, ax(r1), h0), ax(r2), h0)
        dealer = count_rank(jnp.zeros(13, I32), ru, True)
        dealer = count_rank(dealer, rank[hole_dealt], ~p.no_hole)
        new = new._replace(hand_ranks=one, dealer_ranks=dealer)
    st = select(on, new, st)
    bj = on & is_natural(2, hard0, ace0)
    pays, ends = natural_effects(p)
    st = pay(st, p, h0 & ax(bj & pays), jnp.full((n_s, h), OUTCOME_BLACKJACK, I32))
    st = st._replace(done=st.done | (h0 & ax(bj & ends)))
    pp = p.peek_by_rank[ru]  # (never without a hole card to peek at)
    st = st._replace(peek_possible=jnp.where(on, pp, st.peek_possible))
    ask = on & pp & ~st.settled[:, 0] & p.asks_pre_peek[2 * ru + bj.astype(I32)]
    table_ask = jnp.any(ask)
    phase = jnp.where(table_ask, PHASE_PEEK_WAIT, st.phase)
    st = st._replace(phase=jnp.where(ask, PHASE_INSURE, phase))
    looks = on & p.peek & ~table_ask
    (st,) = when(looks, peek_at_deal, (st,), (p, looks, pp, bj & ends), cfg=cfg)
    fin = bj & (pays | p.natural_stands) & (st.phase == PHASE_DECIDE)
    st = seat_done(st._replace(done=st.done | (h0 & ax(fin))), fin)
    return st, rk, on & jnp.all(st.phase == PHASE_DONE)


def act_insurance_seats(
    st: State, p: Params, cfg: Config, s: Int32[Array, ""], action: Int32[Array, ""],
    on: Bool[Array, ""],
) -> tuple[State, Bool[Array, ""]]:  # fmt: skip
    """Seat ``s`` answers the pre-peek question where ``on`` and waits; once every seat
    has answered, the dealer peeks and play starts at seat 0 (numpy ``_act_insurance``,
    ``_peek_seats``). ``(state, dealer)``: where ``dealer`` every seat is then done, and
    the dealer's turn (left to the caller) comes next."""
    v = seat_view(st, s)
    h0 = hand_onehot(0, cfg)
    bj0 = naturals(v, p, cfg)[0]
    insure = on & (action == ACTION_INSURE)
    v = pay(v, p, h0 & insure & bj0, jnp.full(cfg.hands, OUTCOME_EVEN_MONEY, I32))
    v = v._replace(insurance=jnp.where(insure & ~bj0, v.stake[0].astype(F32) / 2.0, v.insurance))
    surr = on & (action == ACTION_SURRENDER)
    v = v._replace(surrendered=v.surrendered | (h0 & surr))
    v = pay(v, p, h0 & surr, jnp.full(cfg.hands, OUTCOME_SURRENDER, I32))
    v = v._replace(phase=jnp.where(on, PHASE_PEEK_WAIT, v.phase))
    st = merge_seat(st, v, s)
    ready = on & ~jnp.any(st.phase == PHASE_INSURE)
    dealer_bj = st.peek_possible & dealer_natural(st)
    ins = st.insurance
    st = st._replace(
        insurance_net=jnp.where(
            ready & (ins > 0), jnp.where(dealer_bj, _INSURANCE_PAYS * ins, -ins),
            st.insurance_net,
        )
    )  # fmt: skip
    natural = st.done[:, 0] & ~st.settled[:, 0] & naturals(st, p, cfg)[:, 0]
    st = peek(st, p, cfg, ready, dealer_bj, natural)
    cont = ready & (st.phase[0] != PHASE_OVER)
    # play starts: every seat's hand 0 (none is split yet; numpy advance from cur -1)
    st = st._replace(
        phase=jnp.where(cont, PHASE_DECIDE, st.phase),
        acting_hand=jnp.where(cont, 0, st.acting_hand),
    )
    t0 = p.auto21 & (hand_total(st.hard[:, 0], st.ace[:, 0]) == play.AUTO_STAND_TOTAL)
    st = st._replace(done=st.done.at[:, 0].set(st.done[:, 0] | (cont & t0)))
    st = seat_done(st, cont & st.done[:, 0])
    return st, cont & jnp.all(st.phase == PHASE_DONE)


def answer_seat(
    st: State, dealer: Bool[Array, ""], p: Params, s: Int32[Array, ""],
    action: Int32[Array, ""], on: Bool[Array, ""], *, cfg: Config,
) -> tuple[State, Bool[Array, ""]]:  # fmt: skip
    """:func:`act_insurance_seats` as a guarded branch (``on``: nothing changes
    elsewhere)."""
    return act_insurance_seats(st, p, cfg, s, action, on)


def play_seat(
    st: State, p: Params, cfg: Config, rk: Rng, s: Int32[Array, ""], insurance: Int32[Array, ""],
    decision: Int32[Array, ""], on: Bool[Array, ""],
) -> tuple[State, Rng]:  # fmt: skip
    """Seat ``s`` plays where ``on``: ``insurance`` (a table action) if it is asked the
    pre-peek question, ``decision`` (a legal playing action) if it has a hand to play;
    the dealer plays once every seat is done. The one place a seat's decision is played
    (:func:`step_seats`, :func:`blackjack_env.jax.round.play_out`)."""
    st, rk_dealer, dealer, after = seat_to_dealer(st, p, cfg, rk, s, insurance, decision, on)
    st, rk = dealer_turn(st, p, cfg, rk_dealer, dealer)
    return st, Rng(rk.seed, rk.i + after)


def seat_to_dealer(
    st: State, p: Params, cfg: Config, rk: Rng, s: Int32[Array, ""], insurance: Int32[Array, ""],
    decision: Int32[Array, ""], on: Bool[Array, ""] | bool,
) -> tuple[State, Rng, Bool[Array, ""], UInt32[Array, ""]]:  # fmt: skip
    """:func:`play_seat` without its end: ``(state, rng, dealer, after)``, the dealer's
    turn left to the caller where ``dealer``, drawing from ``rng``; the stream then
    moves on ``after`` more numbers.

    The answer to the pre-peek question and a playing decision exclude each other, and so
    do their dealer's turns: one turn serves both. The stream is the one of the answer,
    its dealer's turn, then the (idle) playing decision; or of the playing decision, then
    its dealer's turn."""
    v = seat_view(st, s)
    phase = v.phase
    asked = on & (phase == PHASE_INSURE)  # (only under rules that ask: p.pre_peek)
    no = jnp.zeros((), bool)
    st, answered = when(asked, answer_seat, (st, no), (p, s, insurance, asked), cfg=cfg)
    v = seat_view(st, s)
    decide = on & (phase == PHASE_DECIDE)
    v, played = act_play(v, p, cfg, rk, decision, decide)
    st = merge_seat(st, v, s)
    dealer = answered | (decide & jnp.all(st.phase == PHASE_DONE))
    after = jnp.where(asked, played.i - rk.i, jnp.uint32(0))
    return st, Rng(rk.seed, jnp.where(asked, rk.i, played.i)), dealer, after


def step_seats(
    key: PRNGKeyArray | Rng, st: State, action: Int32[ArrayLike, " seats"], p: Params,
    cfg: Config,
) -> Stepped:  # fmt: skip
    """:func:`blackjack_env.jax.round.step` at a table of several seats: ``action``
    ``(S,)``, of which only the acting seat's is played (the others' masks allow every
    action; their actions are ignored, reported as played and legal). The reward ``(S,)``
    is every seat's round net on the step that ends the round."""
    st, rk, dealer, played, illegal = decide_seats(key, st, action, p, cfg)
    st, _ = dealer_turn(st, p, cfg, rk, dealer)
    over = st.phase[0] == PHASE_OVER
    reward = jnp.where(over, round_net(st, p, cfg), 0.0)
    return st, reward, over, played, illegal


def decide_seats(
    key: PRNGKeyArray | Rng, st: State, action: Int32[ArrayLike, " seats"], p: Params,
    cfg: Config,
) -> tuple[State, Rng, Bool[Array, ""], Int32[Array, " seats"], Bool[Array, " seats"]]:  # fmt: skip
    """:func:`step_seats` without its end: ``(state, rng, dealer, played, illegal)``, the
    dealer's turn left to the caller where ``dealer``, with ``rng``."""
    action = jnp.asarray(action, I32)
    s = acting(st, cfg)
    v = seat_view(st, s)
    a_s = action[s]
    mask = legal_mask(v, p, cfg)
    a = jnp.clip(a_s, 0, cfg.n_actions - 1)
    legal = mask[a] & (a_s >= 0) & (a_s < cfg.n_actions)
    mapped = map_illegal(decision_of(v.phase), mask, a, cfg)
    played_s = jnp.where(legal, a_s, mapped)
    decision = table_decision(v.phase, played_s, cfg)
    played_s, decision, legal = share((played_s, decision, legal), st.pos)
    st, rk, dealer, _ = seat_to_dealer(st, p, cfg, rng(key), s, decision, decision, True)
    me = jnp.arange(cfg.seats) == s
    return st, rk, dealer, jnp.where(me, played_s, action), me & ~legal


def masks(st: State, p: Params, cfg: Config) -> Bool[Array, "*seats actions"]:
    """The env's action mask of every seat: ``(n_actions,)`` with one seat, ``(S,
    n_actions)`` with several (a seat the table does not wait for: every action)."""
    if cfg.seats == 1:
        return legal_mask(st, p, cfg)
    m = jax.vmap(lambda v: legal_mask(v, p, cfg), in_axes=(seat_axes(cfg),))(st)
    me = jnp.arange(cfg.seats) == acting(st, cfg)
    return jnp.where(me[:, None], m, True)


def active(st: State, cfg: Config) -> Bool[Array, "*seats"]:
    """bool ``(S,)``: the seat whose action the next step plays (one seat: ``True``)."""
    return jnp.arange(cfg.seats) == acting(st, cfg) if cfg.seats > 1 else jnp.ones((), bool)
