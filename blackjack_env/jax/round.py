"""A round and an episode at a JAX table (the numpy batched tables'
:mod:`blackjack_env.envs.batch.round`, and the episode of
:class:`~blackjack_env.envs.vector.BlackjackVectorEnv`).

The flow is the numpy batched round's (:mod:`blackjack_env.envs.batch`, whose package
docstring is the specification: deal order, the pre-peek question, the peek, naturals,
double, split and the split hand's second card when play reaches it, surrender, the
dealer's turn, settlement), written again with masks in place of index sets; every rule
it asks is a lookup in :class:`~blackjack_env.jax.tables.Params`, built from
:mod:`blackjack_env.engine.play`. Parity tests replay stacked cards through both.

:func:`start_round` deals, :func:`open_round` opens a round for its bet (bet steps),
:func:`step` plays one decision (an illegal action mapped), :func:`play_out` plays the
rest of a round out (the one round play-out: the ``"penalize"`` policy and the
Gymnasium adapters' resets use it), :func:`end_round`, :func:`next_round` and
:func:`first_round` run the episode (bet steps, several rounds, a bankroll). Every
function is pure: state in, state out, randomness only from the key it is given, every
branch a ``where`` or a bounded ``lax`` loop.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Bool, Float32, Int32, PRNGKeyArray

from blackjack_env.engine import play
from blackjack_env.envs.codes import (
    ACTION_INSURE,
    ACTION_SURRENDER,
    OUTCOME_BLACKJACK,
    OUTCOME_EVEN_MONEY,
    OUTCOME_SURRENDER,
    PHASE_DECIDE,
    PHASE_INSURE,
    PHASE_OVER,
)
from blackjack_env.jax import tables
from blackjack_env.jax.chips import chip_units, covers_chips, covers_insurance, to_units
from blackjack_env.jax.dealer import deal_cards, dealer_turn, peek, peek_at_deal
from blackjack_env.jax.hands import (
    decision_of,
    hands_done,
    legal_mask,
    map_illegal,
    next_hand,
    play_hand,
    table_decision,
)
from blackjack_env.jax.loops import share, when
from blackjack_env.jax.seats import (
    acting,
    deal_seats,
    decide_seats,
    play_seat,
)
from blackjack_env.jax.settlement import pay, round_net
from blackjack_env.jax.shoe import Rng, open_shoe, rng
from blackjack_env.jax.state import (
    F32,
    I32,
    State,
    Stepped,
    count_rank,
    dealer_natural,
    hand_onehot,
    is_natural,
    natural_effects,
    naturals,
    select,
)
from blackjack_env.jax.tables import Config, Params

_INSURANCE_PAYS = float(play.INSURANCE_PAYS)


def act_insurance(
    st: State, p: Params, cfg: Config, action: Int32[Array, ""], on: Bool[Array, ""]
) -> tuple[State, Bool[Array, ""]]:
    """The pre-peek answer where ``on`` (``INSURE``, ``DECLINE`` or ``SURRENDER``), then
    the peek (numpy ``_act_insurance``): ``(state, cont)``, ``cont`` where play starts
    (the caller then moves to the first hand needing a decision,
    :func:`~blackjack_env.jax.hands.advance`)."""
    h0 = hand_onehot(0, cfg)
    bj0 = naturals(st, p, cfg)[0]
    insure = on & (action == ACTION_INSURE)
    st = pay(st, p, h0 & insure & bj0, jnp.full(cfg.hands, OUTCOME_EVEN_MONEY, I32))
    st = st._replace(
        insurance=jnp.where(insure & ~bj0, st.stake[0].astype(F32) / 2.0, st.insurance)
    )
    surr = on & (action == ACTION_SURRENDER)
    st = st._replace(surrendered=st.surrendered | (h0 & surr))
    st = pay(st, p, h0 & surr, jnp.full(cfg.hands, OUTCOME_SURRENDER, I32))
    dealer_bj = st.peek_possible & dealer_natural(st)
    ins = st.insurance
    st = st._replace(
        insurance_net=jnp.where(
            on & (ins > 0), jnp.where(dealer_bj, _INSURANCE_PAYS * ins, -ins), st.insurance_net
        )
    )
    natural = st.done[0] & ~st.settled[0] & naturals(st, p, cfg)[0]
    st = peek(st, p, cfg, on, dealer_bj, natural)
    cont = on & (st.phase != PHASE_OVER)
    st = st._replace(
        phase=jnp.where(cont, PHASE_DECIDE, st.phase),
        acting_hand=jnp.where(cont, -1, st.acting_hand),
    )
    return st, cont


def answer_pre_peek(
    st: State, cont: Bool[Array, ""], p: Params, action: Int32[Array, ""], on: Bool[Array, ""],
    *, cfg: Config,
) -> tuple[State, Bool[Array, ""]]:  # fmt: skip
    """:func:`act_insurance` as a guarded branch (``on``: nothing changes elsewhere)."""
    return act_insurance(st, p, cfg, action, on)


def open_round(st: State, p: Params, cfg: Config, on: Bool[Array, ""] | bool = True) -> State:
    """Bet steps: open the next round where ``on`` (numpy ``open_rounds``): the cards go
    to the discards, the shoe is reshuffled if the cut card is out, and the table awaits
    the bet (``opened``); :func:`start_round` then deals without a second check."""
    on = jnp.asarray(on, bool)
    st = open_shoe(st, p, cfg, on & ~st.opened)
    return st._replace(opened=st.opened | on)


def start_round(
    key: PRNGKeyArray | Rng, st: State, p: Params, cfg: Config, on: Bool[Array, ""] | bool = True,
    stake: Int32[ArrayLike, ""] | None = None,
) -> State:  # fmt: skip
    """Where ``on``: the last round's cards go to the discards, the shoe is reshuffled if
    the cut card is out (unless :func:`open_round` did), and a round is dealt (naturals,
    the pre-peek question or the peek; a round with no decision left is played out and
    ``OVER``). ``stake``: the chips bet (default ``Params.bet``)."""
    st, rk, dealer = deal_round(key, st, p, cfg, on, stake)
    st, _ = dealer_turn(st, p, cfg, rk, dealer)
    return st


def deal_round(
    key: PRNGKeyArray | Rng, st: State, p: Params, cfg: Config, on: Bool[Array, ""] | bool = True,
    stake: Int32[ArrayLike, ""] | None = None,
) -> tuple[State, Rng, Bool[Array, ""]]:  # fmt: skip
    """:func:`start_round` without its end: ``(state, rng, dealer)``, the dealer's turn
    left to the caller where ``dealer`` (a round with no decision left), with ``rng``
    (:func:`~blackjack_env.jax.dealer.dealer_turn`)."""
    on = jnp.asarray(on, bool)
    rk = rng(key)
    h = cfg.hands
    bet = p.bet if stake is None else stake
    if cfg.bankroll:  # the last round's result joins the bankroll
        st = st._replace(bank=jnp.where(on, chip_units(st, p, cfg), st.bank))
    if cfg.bets:
        st = open_shoe(st, p, cfg, on & ~st.opened)
        st = st._replace(opened=jnp.where(on, False, st.opened))
    else:
        st = open_shoe(st, p, cfg, on)
    if cfg.seats > 1:
        return deal_seats(st, p, cfg, rk, on)
    zh = jnp.zeros(h, I32)
    fh = jnp.zeros(h, bool)
    # the player's card, the upcard, the player's second card, the hole card (none under
    # no-hole rules: the dealer's second card comes later)
    st, cards, hole_dealt, rk = deal_cards(st, p, cfg, rk, 3, on)
    rank = p.rank_of_card
    val = p.value_of_card
    r1, ru, r2 = rank[cards[0]], rank[cards[1]], rank[cards[2]]
    hard0 = val[cards[0]] + val[cards[2]]
    ace0 = (r1 == 0) | (r2 == 0)
    h0 = hand_onehot(0, cfg)
    up_value = val[cards[1]]
    up_ace = ru == 0
    hole = jnp.where(p.no_hole, -1, hole_dealt)
    d_hard = up_value + jnp.where(p.no_hole, 0, val[hole_dealt])
    d_ace = up_ace | (~p.no_hole & (rank[hole_dealt] == 0))
    d_n = jnp.where(p.no_hole, 1, 2)
    new = st._replace(
        rounds=st.rounds + 1, phase=jnp.asarray(PHASE_DECIDE, I32), nhands=jnp.ones((), I32),
        acting_hand=jnp.zeros((), I32), last_hand=jnp.zeros((), I32),
        hard=jnp.where(h0, hard0, zh), ace=h0 & ace0, ncards=jnp.where(h0, 2, zh),
        first_rank=jnp.where(h0, r1, zh), second_rank=jnp.where(h0, r2, zh),
        stake=jnp.where(h0, bet, zh), doubled=fh, surrendered=fh, done=fh, settled=fh,
        outcome=jnp.full(h, -1, I32), net=jnp.zeros(h, F32),
        insurance=jnp.zeros((), F32), insurance_net=jnp.zeros((), F32),
        dealer_hard=jnp.asarray(d_hard, I32), dealer_ace=jnp.asarray(d_ace),
        dealer_ncards=jnp.asarray(d_n, I32),
        upcard=cards[1], hole_card=jnp.asarray(hole, I32), hole_revealed=jnp.zeros((), bool),
        peek_possible=jnp.zeros((), bool),
    )  # fmt: skip
    if cfg.track:
        one = jnp.zeros((h, 13), I32)
        one = count_rank(count_rank(one, r1, h0), r2, h0)
        dealer = count_rank(jnp.zeros(13, I32), ru, True)
        dealer = count_rank(dealer, rank[hole_dealt], ~p.no_hole)
        new = new._replace(hand_ranks=one, dealer_ranks=dealer)
    st = select(on, new, st)
    bj = on & is_natural(2, hard0, ace0)
    pays, ends = natural_effects(p)
    st = pay(st, p, h0 & bj & pays, jnp.full(h, OUTCOME_BLACKJACK, I32))
    st = st._replace(done=st.done | (h0 & bj & ends))
    # the peek (peek_by_rank: never without a hole card to peek at)
    pp = p.peek_by_rank[ru]
    st = st._replace(peek_possible=jnp.where(on, pp, st.peek_possible))
    ask = on & pp & ~st.settled[0] & p.asks_pre_peek[2 * ru + bj.astype(I32)]
    if cfg.bankroll:  # insurance only when affordable
        poor = p.asks_pre_peek_poor[2 * ru + bj.astype(I32)]
        ask = ask & (poor | covers_insurance(st, p, cfg))
    st = st._replace(phase=jnp.where(ask, PHASE_INSURE, st.phase))
    looks = on & p.peek & ~ask
    (st,) = when(looks, peek_at_deal, (st,), (p, looks, pp, bj & ends), cfg=cfg)
    fin = bj & (pays | p.natural_stands) & (st.phase == PHASE_DECIDE)
    st = st._replace(done=st.done | (h0 & fin))
    return st, rk, fin


def step(
    key: PRNGKeyArray | Rng, st: State, action: Int32[ArrayLike, "*seats"], p: Params,
    cfg: Config,
) -> Stepped:  # fmt: skip
    """One decision at the table: ``(state, reward, round_over, played, illegal)``.

    An illegal action is mapped as the numpy env maps it (``illegal_action="map"``:
    DOUBLE / SPLIT / SURRENDER play HIT where it is legal, else STAND; anything else
    STAND; a pre-peek STAND declines). A round that ends is reported here (``reward``:
    its net in base bets) and is not restarted: :func:`start_round` does that."""
    st, rk, dealer, played, illegal = decide(key, st, action, p, cfg)
    st, _ = dealer_turn(st, p, cfg, rk, dealer)
    over = round_over(st, cfg)
    reward = jnp.where(over, round_net(st, p, cfg), 0.0)
    return st, reward, over, played, illegal


def round_over(st: State, cfg: Config) -> Bool[Array, ""]:
    """The table's round is over (every seat's phase is ``OVER`` then)."""
    return (st.phase[0] if cfg.seats > 1 else st.phase) == PHASE_OVER


def decide(
    key: PRNGKeyArray | Rng, st: State, action: Int32[ArrayLike, "*seats"], p: Params,
    cfg: Config,
) -> tuple[State, Rng, Bool[Array, ""], Int32[Array, "*seats"], Bool[Array, "*seats"]]:  # fmt: skip
    """:func:`step` without its end: ``(state, rng, dealer, played, illegal)``, the
    dealer's turn left to the caller where ``dealer``, with ``rng`` (the one dealer's turn
    of a step: after the decision, or after the deal of a bet step, which exclude each
    other; several seats: :func:`~blackjack_env.jax.seats.decide_seats`). ``key``: a key,
    or the stream drawn from it (:func:`~blackjack_env.jax.shoe.rngs`; not with bet steps,
    which split it)."""
    if cfg.seats > 1:
        return decide_seats(key, st, action, p, cfg)
    action = jnp.asarray(action, I32)
    mask = legal_mask(st, p, cfg)
    legal = mask[jnp.clip(action, 0, cfg.n_actions - 1)] & (action >= 0) & (action < cfg.n_actions)
    obs_phase = decision_of(st.phase)
    a = jnp.clip(action, 0, cfg.n_actions - 1)
    mapped = map_illegal(obs_phase, mask, a, cfg)
    if cfg.bets:  # envs.step.array_map_illegal_bet, tabulated by the allowed sizes' bits
        bits = jnp.sum(mask[cfg.n_play :].astype(I32) << jnp.arange(cfg.n_bets, dtype=I32))
        bet_table = jnp.asarray(tables.bet_mapped(cfg.n_play, cfg.n_bets, cfg.n_actions))
        mapped = jnp.where(st.opened, bet_table[bits, a], mapped)
        # (with bet steps the key is a key: its stream is not drawn ahead, rngs)
        key, k_bet = jax.random.split(key)  # type: ignore[arg-type]
    played = jnp.where(legal, action, mapped)
    opened = st.opened
    decision = table_decision(st.phase, played, cfg)
    played, decision, legal = share((played, decision, legal), st.pos)
    st, rk, dealer = play_to_dealer(st, p, cfg, rng(key), decision, decision, True)
    if cfg.bets:  # the bet step (no decision played): the round is dealt
        k = jnp.clip(played - cfg.n_play, 0, cfg.n_bets - 1)
        st, rk_deal, dealt_over = deal_round(k_bet, st, p, cfg, opened, p.bet_chips[k])
        rk = Rng(jnp.where(opened, rk_deal.seed, rk.seed), jnp.where(opened, rk_deal.i, rk.i))
        dealer = jnp.where(opened, dealt_over, dealer)
    return st, rk, dealer, played, ~legal


def play_decision(
    st: State, p: Params, cfg: Config, rk: Rng, insurance: Int32[Array, ""],
    decision: Int32[Array, ""], on: Bool[Array, ""],
) -> tuple[State, Rng]:  # fmt: skip
    """One seat's table plays where ``on``: ``insurance`` (a table action: ``INSURE``,
    ``DECLINE`` or ``SURRENDER``) at the pre-peek question, ``decision`` (a legal playing
    action) on the hand to act; the round then goes on to the next hand or the dealer
    (the one place a decision is played: :func:`step`, :func:`play_out`; several seats:
    :func:`blackjack_env.jax.seats.play_seat`)."""
    st, rk, dealer = play_to_dealer(st, p, cfg, rk, insurance, decision, on)
    return hands_done(st, p, cfg, rk, dealer)


def play_to_dealer(
    st: State, p: Params, cfg: Config, rk: Rng, insurance: Int32[Array, ""],
    decision: Int32[Array, ""], on: Bool[Array, ""] | bool,
) -> tuple[State, Rng, Bool[Array, ""]]:  # fmt: skip
    """:func:`play_decision` without its end: ``(state, rng, dealer)``, ``dealer`` where
    the seat's hands are all done (the caller plays
    :func:`~blackjack_env.jax.hands.hands_done`)."""
    phase = st.phase
    asked = on & (phase == PHASE_INSURE)  # (only under rules that ask: p.pre_peek)
    st, cont = when(asked, answer_pre_peek, (st, asked & False), (p, insurance, asked), cfg=cfg)
    # One move to the next hand serves both answers. The random stream is the one of a
    # round that answers the pre-peek question first and then plays: the answer's move
    # takes the step's first hands + 1 draws, the play's draws come after them (rules
    # that never ask the question: the stream does not move for it, as if it were not
    # there; a rule set's stream is the same in a batch of any rules).
    first = rk.i
    skip = jnp.where(p.pre_peek, jnp.uint32(cfg.hands + 1), jnp.uint32(0))
    st, rk, finished = play_hand(
        st, p, cfg, Rng(rk.seed, first + skip), decision, on & (phase == PHASE_DECIDE)
    )
    rk = Rng(rk.seed, jnp.where(cont, first, rk.i))
    return next_hand(st, p, cfg, rk, finished | cont)


#: engine.play.play_out_action as table actions at [pre_peek]: STAND, DECLINE
_PLAY_OUT = tuple(int(a) for a in play.play_out_codes())


def play_out(key: PRNGKeyArray, st: State, p: Params, cfg: Config, on: Bool[Array, ""]) -> State:
    """Play out the round where ``on`` (one or several seats): every seat takes
    :func:`~blackjack_env.engine.play.play_out_action` at each decision left (it declines
    the pre-peek question and stands on every hand left), then the dealer plays and the
    round settles (numpy ``TableBatch.finish_rounds``; ``last_hand``, the hand the
    observation shows, stays the last one the learner acted on). The one round play-out:
    the ``"penalize"`` policy (:mod:`blackjack_env.jax.illegal`) and the Gymnasium
    adapters' resets mid-round use it. At most one pre-peek answer and one stand per hand
    of each seat: a bounded loop, one random stream (:func:`~.shoe.rng` of ``key``)."""
    stand, decline = jnp.int32(_PLAY_OUT[0]), jnp.int32(_PLAY_OUT[1])

    def body(_: int, carry: tuple[State, Rng]) -> tuple[State, Rng]:
        s, r = carry
        if cfg.seats == 1:
            return play_decision(s, p, cfg, r, decline, stand, on & (s.phase != PHASE_OVER))
        return play_seat(s, p, cfg, r, acting(s, cfg), decline, stand, on)

    last = st.last_hand
    st, _ = jax.lax.fori_loop(0, cfg.seats * (cfg.hands + 1), body, (st, rng(key)))
    return st._replace(last_hand=last)


def end_round(
    st: State, reward: Float32[Array, "*seats"], over: Bool[Array, ""], p: Params, cfg: Config
) -> tuple[State, Bool[Array, ""], Bool[Array, ""]]:
    """The episode after a step (numpy ``BlackjackVectorEnv.step``): the ended round's
    chips join the session; ``(state, terminated, truncated)``: with
    ``rounds_per_episode`` 1 a round is an episode; otherwise the episode is truncated
    after that many rounds (never with ``None``)."""
    st = st._replace(session=st.session + jnp.where(over, to_units(reward * p.bet, p), 0))
    if cfg.rounds == 1:
        return st, over, jnp.zeros((), bool)
    more = over if cfg.rounds is None else over & (st.episode_rounds < cfg.rounds)
    truncated = over & ~more
    if not cfg.bankroll:
        return st, jnp.zeros((), bool), truncated
    # the learner cannot cover the smallest bet: the session terminates
    broke = more & ~covers_chips(st, p, cfg, jnp.asarray(p.min_cost, F32))
    return st, broke, truncated


def next_round(
    key: PRNGKeyArray | Rng, st: State, p: Params, cfg: Config, over: Bool[Array, ""],
    done: Bool[Array, ""],
) -> State:  # fmt: skip
    """Where ``over``: the next round begins (dealt, or opened for its bet with bet
    steps); where ``done`` too, as the first of a new episode."""
    st, rk, dealer = next_deal(key, st, p, cfg, over, done)
    st, _ = dealer_turn(st, p, cfg, rk, dealer)
    return st


def next_deal(
    key: PRNGKeyArray | Rng, st: State, p: Params, cfg: Config, over: Bool[Array, ""],
    done: Bool[Array, ""],
) -> tuple[State, Rng, Bool[Array, ""]]:  # fmt: skip
    """:func:`next_round` without its end: ``(state, rng, dealer)``, the dealer's turn
    of a round dealt with no decision left to the caller (:func:`deal_round`; none with
    bet steps, whose rounds are opened here and dealt by the bet). ``key``: a key, or the
    stream drawn from it (:func:`~blackjack_env.jax.shoe.rngs`)."""
    st = st._replace(
        session=jnp.where(done, 0, st.session), episode_rounds=jnp.where(done, 0, st.episode_rounds)
    )
    if cfg.bankroll:  # a new session starts with `bankroll` chips
        units = p.bankroll * p.chip_den
        st = st._replace(bank=jnp.where(done, units - (chip_units(st, p, cfg) - st.bank), st.bank))
    if cfg.bets:
        st = open_round(st, p, cfg, over)
        zero = jnp.zeros((), jnp.uint32)
        rk, dealer = Rng(zero, zero), jnp.zeros((), bool)
    else:
        st, rk, dealer = deal_round(key, st, p, cfg, over)
    return st._replace(episode_rounds=st.episode_rounds + over), rk, dealer


def first_round(key: PRNGKeyArray, st: State, p: Params, cfg: Config) -> State:
    """The first round of an episode at a table between rounds (a new one: a full
    shoe)."""
    on = jnp.ones((), bool)
    return next_round(key, st, p, cfg, on, on)
