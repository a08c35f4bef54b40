"""The learner's observation of a JAX table, in every mode (the numpy vector env's
``_observe``, from :mod:`blackjack_env.envs.vector.observe`): the facts of the learner's
situation read from the state (:func:`facts`: the focus hand, what is legal, the true
count and its bucket, the unseen cards), and :func:`observe` (every seat, one mode).

Each mode is encoded once for both backends: the observer hands the facts by name to
:func:`blackjack_env.envs.view.fields.encode` with ``xp=jax.numpy``, the function the
numpy envs call with numpy; the fields, their positions, scales and bounds are defined
there only. A field added there that reads the facts given here is in the JAX table's
observation with no edit here.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Bool, Float32, Int32, Shaped

from blackjack_env.envs import view
from blackjack_env.envs.codes import (
    ACTION_DOUBLE,
    ACTION_INSURE,
    ACTION_SPLIT,
    ACTION_SURRENDER,
)
from blackjack_env.envs.step import Decision
from blackjack_env.jax.arrays import Observation
from blackjack_env.jax.chips import bankroll
from blackjack_env.jax.hands import decision_of
from blackjack_env.jax.seats import acting, masks
from blackjack_env.jax.state import (
    F32,
    I32,
    State,
    count_rank,
    hand_soft,
    hand_total,
    live_hands,
    seat_axes,
)
from blackjack_env.jax.tables import Config, Params

_PLAY, _INSURANCE, _SETTLED = int(Decision.PLAY), int(Decision.INSURANCE), int(Decision.SETTLED)
_BET = int(Decision.BET)


def hole_hidden(st: State, cfg: Config) -> Bool[Array, ""]:
    """The dealer's hole card is dealt and not shown (a table awaiting its bet has none:
    the last round's cards are in the discards)."""
    hidden = (st.hole_card >= 0) & ~st.hole_revealed
    return hidden & ~st.opened if cfg.bets else hidden


def true_count(st: State, p: Params, cfg: Config) -> Float32[Array, ""]:
    """Hi-Lo true count of the cards the learner has seen (0 for an infinite deck)."""
    if cfg.infinite:
        return jnp.zeros((), F32)
    hidden = hole_hidden(st, cfg)
    unseen_hilo = st.undealt_hilo + p.hilo_of_card[jnp.maximum(st.hole_card, 0)] * hidden
    remaining = st.left + hidden
    tc = -unseen_hilo.astype(F32) * 52.0 / jnp.maximum(remaining, 1).astype(F32)
    return jnp.where(remaining > 0, tc, 0.0)


def focus_fields(
    st: State, p: Params, cfg: Config, mask: Bool[Array, " actions"], settled: Bool[ArrayLike, ""]
) -> dict[str, Shaped[Array, ""]]:
    """The learner's view of the table, field by field (as the numpy vector env's
    ``_observe``): the focus hand (the hand to act, else the last one acted on)."""
    phase = jnp.where(settled, _SETTLED, decision_of(st.phase))
    play_ = phase == _PLAY
    if cfg.hands > 1:
        h = jnp.where(play_, jnp.clip(st.acting_hand, 0, cfg.hands - 1), st.last_hand)
    else:
        h = jnp.zeros((), I32)
    hard, ace, nc = st.hard[h], st.ace[h], st.ncards[h]
    if cfg.n_play > 2:
        ins_phase = (phase == _INSURANCE) & p.pre_peek_decisions
        can_double = play_ & mask[ACTION_DOUBLE]
        can_split = play_ & mask[ACTION_SPLIT]
        can_surr = (play_ | ins_phase) & mask[ACTION_SURRENDER]
        can_insure = ins_phase & mask[ACTION_INSURE] if cfg.n_play == 6 else jnp.zeros((), bool)
    else:
        can_double = can_split = can_surr = can_insure = jnp.zeros((), bool)
    out = {
        "phase": phase, "h": h, "hard": hard, "ace": ace, "ncards": nc,
        "soft": hand_soft(hard, ace), "total": hand_total(hard, ace),
        "upcard": p.value_of_card[st.upcard], "can_double": can_double, "can_split": can_split,
        "can_surrender": can_surr, "can_insure": can_insure,
        "pair": (nc == 2) & (st.first_rank[h] == st.second_rank[h]), "nhands": st.nhands,
    }  # fmt: skip
    if cfg.bets:  # the BET step (numpy _observe_bets): no cards on the table
        bet = st.opened & ~jnp.asarray(settled)
        out = {k: jnp.where(bet, jnp.zeros_like(v), v) for k, v in out.items()}
        out["phase"] = jnp.where(bet, _BET, phase)
    return out


def shoe_left(st: State, p: Params, cfg: Config) -> Float32[Array, ""] | float:
    """The fraction of the shoe not yet dealt (1 for an infinite deck)."""
    if cfg.infinite:
        return 1.0
    return st.left.astype(F32) / p.shoe_cards.astype(F32)


def count_bucket(st: State, p: Params, cfg: Config) -> Int32[Array, ""]:
    """The fact ``count_bucket``: :func:`blackjack_env.envs.view.fields.count_bucket` (the
    one computation, in integers) of the Hi-Lo running count and the cards not seen."""
    if cfg.infinite:
        return jnp.asarray(view.BUCKET_CLIP, I32)
    hidden = hole_hidden(st, cfg)
    running = -(st.undealt_hilo + p.hilo_of_card[jnp.maximum(st.hole_card, 0)] * hidden)
    return view.count_bucket(running, st.left + hidden)


def unseen_ranks(st: State, p: Params, cfg: Config) -> Int32[Array, " 13"]:
    """The cards the learner has not seen, by rank (the undealt cards and
    a hidden hole card; an infinite deck: 4 of each)."""
    if cfg.infinite:
        return jnp.full(13, 4, I32)
    n = cfg.shoe_size
    undealt = jnp.arange(n) < st.left
    ranks = p.rank_of_card[st.shoe[(st.pos + jnp.arange(n)) % p.shoe_cards].astype(I32)]
    counts = jnp.zeros(13, I32).at[ranks].add(undealt.astype(I32))
    return count_rank(counts, p.rank_of_card[jnp.maximum(st.hole_card, 0)], hole_hidden(st, cfg))


def seat_ranks(st: State, cfg: Config) -> Int32[Array, "*seats ranks"]:
    """The cards of each seat's hands, by rank."""
    live = live_hands(st, cfg)
    return jnp.sum(jnp.where(live[..., None], st.hand_ranks, 0), axis=-2)


def facts(
    st: State, p: Params, cfg: Config, mask: Bool[Array, " actions"],
    settled: Bool[ArrayLike, ""] = False, table_cards: Int32[Array, " cards"] | None = None,
) -> view.Facts:
    """The facts of the learner's situation (:data:`blackjack_env.envs.view.fields.FACTS`),
    read from the state as the numpy vector env reads them (its ``_observe_bets`` at a BET
    step), each computed when a field reads it. ``settled``: show the round as SETTLED
    (the last observation of an episode); ``table_cards``: every seat's cards in seat
    order (several seats), default this seat's."""
    f = focus_fields(st, p, cfg, mask, settled)
    bet = (st.opened & ~jnp.asarray(settled)) if cfg.bets else jnp.zeros((), bool)
    none = jnp.zeros(13, I32)

    def dealer_cards() -> Int32[Array, " 13"]:
        dealer = (jnp.arange(13) == p.rank_of_card[st.upcard]).astype(I32)
        return jnp.where(bet, none, jnp.where(st.hole_revealed, st.dealer_ranks, dealer))

    def seat_cards() -> Int32[Array, " cards"]:
        seats = seat_ranks(st, cfg) if table_cards is None else table_cards
        return jnp.where(bet, jnp.zeros_like(seats), seats)

    return view.Facts(
        {
            "true_count": lambda: true_count(st, p, cfg),
            "count_bucket": lambda: count_bucket(st, p, cfg),
            "shoe_left": lambda: shoe_left(st, p, cfg),
            "hand_cards": lambda: jnp.where(bet, none, st.hand_ranks[f["h"]]),
            "dealer_cards": dealer_cards,
            "seat_cards": seat_cards,
            "unseen_cards": lambda: unseen_ranks(st, p, cfg),
            "stake": lambda: jnp.where(bet, 0.0, st.stake[f["h"]].astype(F32) / p.bet),
            "bankroll": lambda: bankroll(st, p, cfg) / p.bet,
            "action_mask": lambda: mask.astype(jnp.int8),
        },
        phase=f["phase"], total=f["total"], soft=f["soft"], upcard=f["upcard"],
        can_double=f["can_double"], can_split=f["can_split"], can_surrender=f["can_surrender"],
        can_insure=f["can_insure"], hand_index=f["h"], num_hands=f["nhands"],
        cards=f["ncards"], pair=f["pair"],
    )  # fmt: skip


#: The facts the ``"tuple"`` and ``"dict"`` observations show as int32 scalars.
_INT_FACTS = ("phase", "total", "soft", "upcard", "hand_index", "num_hands")


def observe_one(
    st: State, p: Params, cfg: Config, obs_mode: str, mask: Bool[Array, " actions"],
    settled: Bool[ArrayLike, ""] = False, table_cards: Int32[Array, " cards"] | None = None,
) -> Observation:
    """One seat's observation in ``obs_mode``: :func:`blackjack_env.envs.view.encode` of
    its :func:`facts` (``jax.numpy``; the tuple's and the dict's scalars int32)."""
    f = facts(st, p, cfg, mask, settled, table_cards)
    if obs_mode in ("tuple", "dict"):
        for name in _INT_FACTS:
            f[name] = jnp.asarray(f[name], I32)
    return view.encode(obs_mode, f, cfg.hands, xp=jnp)


def observe(
    st: State,
    p: Params,
    cfg: Config,
    obs_mode: str,
    settled: Bool[ArrayLike, ""] = False,
    mask: Bool[Array, "*seats actions"] | None = None,
    rules: bool = False,
) -> Observation:
    """The observation of every seat in ``obs_mode`` (one seat: as the observer; several:
    a leading seat axis, a seat the table does not wait for shown ``SETTLED``, as the
    numpy vector env shows it). ``mask``: the masks to show (default: the state's).
    ``rules``: the observation carries the rule features (``p.rule_features``, as
    :func:`blackjack_env.envs.view.append_rules` lays them out; the ``"dict"`` mode's
    ``view.DICT_RULES_KEY``), as the numpy envs' ``observe_rules``."""
    if mask is None:
        mask = masks(st, p, cfg)
    if cfg.seats == 1:
        return with_rules(observe_one(st, p, cfg, obs_mode, mask, settled), p, rules)
    shown = jnp.asarray(settled) | (jnp.arange(cfg.seats) != acting(st, cfg))
    # "dict": every seat's cards, in seat order, seen from each seat
    cards = seat_ranks(st, cfg).reshape(-1) if obs_mode == "dict" else None
    return jax.vmap(
        lambda v, m, sd: with_rules(observe_one(v, p, cfg, obs_mode, m, sd, cards), p, rules),
        in_axes=(seat_axes(cfg), 0, 0),
    )(st, mask, shown)


def with_rules(obs: Observation, p: Params, rules: bool) -> Observation:
    """One seat's observation with the rule features where ``rules``: after a flat
    observation (:func:`blackjack_env.envs.view.append_rules`), or under the dict's
    ``view.DICT_RULES_KEY``."""
    if not rules:
        return obs
    if isinstance(obs, dict):
        return {**obs, view.DICT_RULES_KEY: jnp.asarray(p.rule_features, F32)}
    return view.append_rules(obs, p.rule_features, xp=jnp)
