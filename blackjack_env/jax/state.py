"""The JAX table's state, declared once: :class:`State` (every field with its dtype, shape
and unit), :func:`new_state`, and the small readers of it the other modules share (the
numpy batched tables' :mod:`blackjack_env.envs.batch.state`).

One table of one or several learner seats: :class:`State` is a ``NamedTuple`` of arrays
whose shapes depend only on the :class:`~blackjack_env.jax.tables.Config` (seats, hands
per seat, shoe size); with several seats the per-seat fields, ``SEAT_FIELDS``, gain a
leading seat axis, and a seat's decisions are played on a one-seat view of it
(:func:`blackjack_env.jax.seats.seat_view`). Chips are exact integers in units of
``1 / Params.chip_den`` where they accumulate (``session``, ``bank``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TypeAlias, cast

import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Bool, Float32, Int8, Int32, Shaped

from blackjack_env.engine import play
from blackjack_env.envs.codes import PHASE_OVER
from blackjack_env.jax.tables import Config, Params

#: the integer and float dtypes of the state and the round's arithmetic
I32 = jnp.int32
F32 = jnp.float32

#: ``engine.play``'s array rules (a hand's total, a usable ace, a natural) are written with
#: array operators only: they serve jax arrays as numpy's (typed here for ``jax.Array``:
#: ``(hard, ace) -> total``, ``(hard, ace) -> soft``, ``(cards, hard, ace) -> natural``)
hand_total = cast(
    "Callable[[Int32[Array, '*n'], Bool[Array, '*n']], Int32[Array, '*n']]", play.array_total
)
hand_soft = cast(
    "Callable[[Int32[Array, '*n'], Bool[Array, '*n']], Bool[Array, '*n']]", play.array_soft
)
is_natural = cast(
    "Callable[[Int32[ArrayLike, '*n'], Int32[Array, '*n'], Bool[Array, '*n']], Bool[Array, '*n']]",
    play.array_natural,
)


class State(NamedTuple):
    """One table's state: every field a ``jax.Array`` whose shape depends only on the
    :class:`~blackjack_env.jax.tables.Config`, its dtype and axes in its annotation (the
    axes are :mod:`blackjack_env.jax.arrays`'s: ``places`` the shoe's, ``hands`` a seat's
    hand slots, hand ``h`` at ``[h]`` and hands ``0 .. nhands - 1`` held, ``ranks`` 13 or
    0).

    With several seats (``Config.seats`` > 1) the fields of ``SEAT_FIELDS`` have a leading
    seat axis (``*seats``; seat ``s`` at ``[s]``); the shoe, the dealer and the episode
    counters are the table's. Units: cards are ids ``0..51`` (``Params.rank_of_card``,
    ``value_of_card``); ranks are indices ``0..12`` (ace .. king); totals are points with
    every ace counted 1 (``hard``; ``engine.play.array_total`` adds 10 for a usable ace);
    chips on a hand are whole chips (``Params.bet`` a base bet), results are float32
    chips, and the episode's and the bankroll's chips are exact integers in units of ``1 /
    Params.chip_den``. The finite shoe's layout (a ring) is ``blackjack_env.jax.shoe``'s;
    the phase codes are the numpy batched tables' (``BatchPhase``).
    """

    # ---------------------------------------------------------------- the shoe (table)
    #: card ids by place, a ring (infinite deck: the stacked-card buffer)
    shoe: Int8[Array, " places"]
    #: the first undealt place
    pos: Int32[Array, ""]
    #: undealt cards (finite shoe; 0 for an infinite deck)
    left: Int32[Array, ""]
    #: cards dealt since the last shuffle (finite)
    dealt: Int32[Array, ""]
    #: the place of the current round's first card (finite)
    round_start: Int32[Array, ""]
    #: stacked cards still to deal (dealt in order from ``pos``)
    stacked: Int32[Array, ""]
    #: Hi-Lo sum of the undealt cards
    undealt_hilo: Int32[Array, ""]
    #: Hi-Lo sum of the current round's cards
    round_hilo: Int32[Array, ""]
    #: the shoe was reshuffled before this round
    reshuffled: Bool[Array, ""]
    #: rounds dealt at this table
    rounds: Int32[Array, ""]
    # ---------------------------------------------------------------- each seat's round
    #: the seat's ``BatchPhase`` code (DECIDE, INSURE, PEEK_WAIT, DONE, OVER)
    phase: Int32[Array, "*seats"]
    #: hands the seat holds (1 + its splits)
    nhands: Int32[Array, "*seats"]
    #: the hand to act (-1 before play starts; ``nhands`` past the last)
    acting_hand: Int32[Array, "*seats"]
    #: the hand of the last playing decision (the observation's focus after it)
    last_hand: Int32[Array, "*seats"]
    #: each hand's total, aces counted 1
    hard: Int32[Array, "*seats hands"]
    #: the hand holds an ace
    ace: Bool[Array, "*seats hands"]
    #: cards in the hand
    ncards: Int32[Array, "*seats hands"]
    #: rank index of the hand's first card
    first_rank: Int32[Array, "*seats hands"]
    #: rank index of the hand's second card (0 before it is dealt)
    second_rank: Int32[Array, "*seats hands"]
    #: chips staked on the hand (doubled: twice the bet)
    stake: Int32[Array, "*seats hands"]
    #: the hand was doubled
    doubled: Bool[Array, "*seats hands"]
    #: the hand was surrendered
    surrendered: Bool[Array, "*seats hands"]
    #: the hand takes no more decisions
    done: Bool[Array, "*seats hands"]
    #: the hand is paid
    settled: Bool[Array, "*seats hands"]
    #: the hand's outcome code (``envs.codes``), -1 unsettled
    outcome: Int32[Array, "*seats hands"]
    #: chips the hand won (+) or lost (-)
    net: Float32[Array, "*seats hands"]
    #: chips staked on insurance
    insurance: Float32[Array, "*seats"]
    #: chips insurance won (+) or lost (-)
    insurance_net: Float32[Array, "*seats"]
    # ---------------------------------------------------------------- the dealer (table)
    #: the dealer's total, aces counted 1
    dealer_hard: Int32[Array, ""]
    #: the dealer holds an ace
    dealer_ace: Bool[Array, ""]
    #: cards in the dealer's hand
    dealer_ncards: Int32[Array, ""]
    #: the upcard's card id
    upcard: Int32[Array, ""]
    #: the hole card's id, -1 none (no hole card dealt yet)
    hole_card: Int32[Array, ""]
    #: the hole card is shown
    hole_revealed: Bool[Array, ""]
    #: the upcard lets the dealer peek (this round)
    peek_possible: Bool[Array, ""]
    # ---------------------------------------------------------------- the episode
    #: the next round is opened and awaits its bet (bet steps)
    opened: Bool[Array, ""]
    #: rounds started in the episode
    episode_rounds: Int32[Array, ""]
    #: the episode's net chips, units of ``1 / chip_den``
    session: Int32[Array, "*seats"]
    #: finite bankroll: chips before this round's bet, units of ``1 / chip_den``
    bank: Int32[Array, "*seats"]
    # ---------------------------------------------------------------- cards by rank
    #: each hand's cards by rank (``ranks`` 0 where not tracked, ``Config.track``)
    hand_ranks: Int32[Array, "*seats hands ranks"]
    #: the dealer's cards by rank, the hole card's included (``ranks`` 0 where not tracked)
    dealer_ranks: Int32[Array, " ranks"]


#: One decision's returns at a table (:func:`blackjack_env.jax.round.step`, and its forms
#: under the penalty and with several seats): ``(state, reward, round_over, played,
#: illegal)``, the reward, the action played and whether it was illegal per seat
Stepped: TypeAlias = tuple[
    State, Float32[Array, "*seats"], Bool[Array, ""], Int32[Array, "*seats"],
    Bool[Array, "*seats"],
]  # fmt: skip


def new_state(cfg: Config, p: Params) -> State:
    """A table before its first round: a full, freshly gathered shoe of ``p.shoe_cards``
    cards in the first places of its ``cfg.shoe_size`` (the shuffle is lazy: each draw
    picks a random undealt card)."""
    h, s = cfg.hands, cfg.shoe_size
    z, f = jnp.zeros((), I32), jnp.zeros((), bool)
    shoe = jnp.zeros(s, jnp.int8) if cfg.infinite else (jnp.arange(s) % 52).astype(jnp.int8)
    zh = jnp.zeros(h, I32)
    fh = jnp.zeros(h, bool)
    left = jnp.zeros((), I32) if cfg.infinite else jnp.asarray(p.shoe_cards, I32)
    one = State(
        shoe=shoe, pos=z, left=left, dealt=z,
        round_start=z, stacked=z, undealt_hilo=z, round_hilo=z, reshuffled=f, rounds=z,
        phase=jnp.asarray(PHASE_OVER, I32), nhands=jnp.ones((), I32), acting_hand=z, last_hand=z,
        hard=zh, ace=fh, ncards=zh, first_rank=zh, second_rank=zh, stake=zh, doubled=fh,
        surrendered=fh, done=fh, settled=fh, outcome=jnp.full(h, -1, I32),
        net=jnp.zeros(h, F32), insurance=jnp.zeros((), F32), insurance_net=jnp.zeros((), F32),
        dealer_hard=z, dealer_ace=f, dealer_ncards=z, upcard=z, hole_card=jnp.asarray(-1, I32),
        hole_revealed=f, peek_possible=f, opened=f, episode_rounds=z, session=z, bank=z,
        hand_ranks=jnp.zeros((h, rank_width(cfg)), I32),
        dealer_ranks=jnp.zeros(rank_width(cfg), I32),
    )  # fmt: skip
    if cfg.seats == 1:
        return one
    seat = {k: jnp.broadcast_to(getattr(one, k), (cfg.seats, *getattr(one, k).shape))
            for k in SEAT_FIELDS}  # fmt: skip
    return one._replace(**seat)


#: The fields each seat holds (a leading seat axis with several seats).
SEAT_FIELDS = (
    "phase", "nhands", "acting_hand", "last_hand", "hard", "ace", "ncards", "first_rank",
    "second_rank", "stake", "doubled", "surrendered", "done", "settled", "outcome", "net",
    "insurance", "insurance_net", "session", "bank", "hand_ranks",
)  # fmt: skip


def rank_width(cfg: Config) -> int:
    """Width of the by-rank card counts: 13 where tracked (``Config.track``), else 0."""
    return 13 if cfg.track else 0


def count_rank(
    counts: Int32[Array, "*n 13"], r: Int32[ArrayLike, "*n"], on: Bool[ArrayLike, "*n"]
) -> Int32[Array, "*n 13"]:
    """``counts`` with one more card of rank ``r`` where ``on`` (``r`` and ``on``
    broadcast against ``counts``' leading axes)."""
    return counts + (jnp.arange(13) == hands_axis(r)) * hands_axis(on).astype(I32)


def seat_axes(cfg: Config) -> State:
    """``jax.vmap``'s ``in_axes`` over the seats of one table's state: 0 for the seats'
    fields, None for the table's (shoe, dealer)."""
    # (vmap's axes, not arrays: a State of ints and Nones, which its field types do not hold)
    axes: list[Any] = [0 if f in SEAT_FIELDS else None for f in State._fields]
    return State(*axes)


def select(on: Bool[ArrayLike, ""], new: State, old: State) -> State:
    """``new`` where ``on``, else ``old``, field by field (the shoe excepted: it is only
    changed by draws, which are no-ops where they are off)."""
    out = [
        n if name == "shoe" else jnp.where(on, n, o)
        for name, n, o in zip(State._fields, new, old, strict=True)
    ]
    return State(*out)


def hand_onehot(h: Int32[ArrayLike, ""], cfg: Config) -> Bool[Array, " hands"]:
    """Hand ``h``, one-hot."""
    return jnp.arange(cfg.hands) == h


def hands_axis(x: Shaped[ArrayLike, "*seats"]) -> Shaped[Array, "*seats 1"]:
    """A seat's value against the hand arrays (``*seats hands``): a trailing axis of
    1."""
    return jnp.expand_dims(jnp.asarray(x), -1)


def live_hands(st: State, cfg: Config) -> Bool[Array, "*seats hands"]:
    """The hands each seat holds."""
    return jnp.arange(cfg.hands) < hands_axis(st.nhands)


def naturals(st: State, p: Params, cfg: Config) -> Bool[Array, "*seats hands"]:
    """Natural on each hand (split hands only under ``blackjack_after_split``)."""
    bj = is_natural(st.ncards, st.hard, st.ace)
    if cfg.hands > 1:
        bj = bj & (p.split_naturals | (hands_axis(st.nhands) == 1))
    return bj


def dealer_natural(st: State) -> Bool[Array, ""]:
    """The dealer holds a natural (two cards, 21)."""
    return is_natural(st.dealer_ncards, st.dealer_hard, st.dealer_ace)


def natural_effects(p: Params) -> tuple[Bool[Array, ""], Bool[Array, ""]]:
    """What a dealt natural does under the rules (``p.natural_effect``,
    ``play.dealt_natural_effect``): ``(paid at the deal, ends the hand)``."""
    return (
        p.natural_effect == int(play.NaturalEffect.PAY),
        p.natural_effect == int(play.NaturalEffect.END),
    )
