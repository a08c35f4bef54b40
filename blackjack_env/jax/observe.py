"""The learner's observation of a JAX table, in every mode (the numpy vector env's
``_observe``, from :mod:`blackjack_env.envs.vector.observe`): the focus hand's fields
(:func:`focus_fields`), the true count and its bucket, the unseen cards, and
:func:`observe` (every seat, one mode).

Each mode is encoded once for both backends: the observers here read the state's fields
and call :mod:`blackjack_env.envs.view`'s encoders (``encode_vector``, ``encode_features``,
``encode_multidiscrete``, ``encode_dict``, ``encode_tuple``) with ``xp=jax.numpy``, the
functions the numpy envs call with numpy; positions, scales and bounds are defined there
only. A new mode is an encoder in :mod:`blackjack_env.envs.view.fields` (taking ``xp``)
and an observer here (``(state, params, config, mask, settled) -> observation``, from
:func:`focus_fields`) registered in :data:`OBSERVERS`; :func:`observe` then serves it for
one seat and for several.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp

from blackjack_env.envs import view
from blackjack_env.envs.codes import (
    ACTION_DOUBLE,
    ACTION_INSURE,
    ACTION_SPLIT,
    ACTION_SURRENDER,
)
from blackjack_env.envs.step import Decision
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


def hole_hidden(st: State, cfg: Config) -> Any:
    """The dealer's hole card is dealt and not shown (a table awaiting its bet has none:
    the last round's cards are in the discards)."""
    hidden = (st.hole_card >= 0) & ~st.hole_revealed
    return hidden & ~st.opened if cfg.bets else hidden


def true_count(st: State, p: Params, cfg: Config) -> Any:
    """Hi-Lo true count of the cards the learner has seen (0 for an infinite deck)."""
    if cfg.infinite:
        return jnp.zeros((), F32)
    hidden = hole_hidden(st, cfg)
    unseen_hilo = st.undealt_hilo + p.hilo_of_card[jnp.maximum(st.hole_card, 0)] * hidden
    remaining = st.left + hidden
    tc = -unseen_hilo.astype(F32) * 52.0 / jnp.maximum(remaining, 1).astype(F32)
    return jnp.where(remaining > 0, tc, 0.0)


def focus_fields(st: State, p: Params, cfg: Config, mask: Any, settled: Any) -> dict[str, Any]:
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


def observe_vector(st: State, p: Params, cfg: Config, mask: Any, settled: Any = False) -> Any:
    """The ``"vector"`` observation, float32 ``(view.VECTOR_SIZE,)``:
    :func:`blackjack_env.envs.view.encode_vector` of the state's fields (the numpy envs'
    encoder, in ``jax.numpy``). ``settled``: show the round as SETTLED (the last
    observation of an episode)."""
    f = focus_fields(st, p, cfg, mask, settled)
    return view.encode_vector(
        f["phase"], f["total"], f["soft"], f["upcard"], f["can_double"], f["can_split"],
        f["can_surrender"], f["can_insure"], f["h"], cfg.hands, f["nhands"], f["ncards"],
        f["pair"], true_count(st, p, cfg), shoe_left(st, p, cfg), xp=jnp,
    )  # fmt: skip


def shoe_left(st: State, p: Params, cfg: Config) -> Any:
    """The fraction of the shoe not yet dealt (1 for an infinite deck)."""
    if cfg.infinite:
        return 1.0
    return st.left.astype(F32) / p.shoe_cards.astype(F32)


def observe_features(st: State, p: Params, cfg: Config, mask: Any, settled: Any = False) -> Any:
    """The ``"features"`` observation, float32 ``(view.FEATURES_SIZE,)``:
    :func:`blackjack_env.envs.view.encode_features` of the state's fields (the vector's
    fields, then one-hot columns of the total, the upcard and the cards in the hand)."""
    f = focus_fields(st, p, cfg, mask, settled)
    return view.encode_features(
        f["phase"], f["total"], f["soft"], f["upcard"], f["can_double"], f["can_split"],
        f["can_surrender"], f["can_insure"], f["h"], cfg.hands, f["nhands"], f["ncards"],
        f["pair"], true_count(st, p, cfg), shoe_left(st, p, cfg), xp=jnp,
    )  # fmt: skip


def count_bucket(st: State, p: Params, cfg: Config) -> Any:
    """:func:`blackjack_env.envs.view.count_bucket` of the true count, exactly: the Hi-Lo
    running count times 52 over the unseen cards, rounded half to even in integers (the
    numpy env rounds the float64 quotient, which is never within rounding error of a
    half unless it is one), clipped to ``-BUCKET_CLIP..BUCKET_CLIP``, plus ``BUCKET_CLIP``."""
    clip = view.BUCKET_CLIP
    if cfg.infinite:
        return jnp.asarray(clip, I32)
    hidden = hole_hidden(st, cfg)
    running = -(st.undealt_hilo + p.hilo_of_card[jnp.maximum(st.hole_card, 0)] * hidden)
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
    """The ``"multidiscrete"`` observation, int32 ``(view.MD_SIZE,)``:
    :func:`blackjack_env.envs.view.encode_multidiscrete` of the state's fields, the count
    field the exact :func:`count_bucket`."""
    f = focus_fields(st, p, cfg, mask, settled)
    return view.encode_multidiscrete(
        f["phase"], f["total"], f["upcard"], f["soft"], f["can_double"], f["can_split"],
        f["can_surrender"], f["h"], None, count_bucket(st, p, cfg), xp=jnp,
    )  # fmt: skip


def observe_tuple(
    st: State, p: Params, cfg: Config, mask: Any, settled: Any = False
) -> tuple[Any, Any, Any]:
    """The ``"tuple"`` observation (:func:`blackjack_env.envs.view.encode_tuple`): the
    focus hand's total, the upcard's value, a usable ace; int32 scalars."""
    f = focus_fields(st, p, cfg, mask, settled)
    return view.encode_tuple(*(jnp.asarray(f[k], I32) for k in ("total", "upcard", "soft")))


def unseen_ranks(st: State, p: Params, cfg: Config) -> Any:
    """int32 ``(13,)``: the cards the learner has not seen, by rank (the undealt cards and
    a hidden hole card; an infinite deck: 4 of each)."""
    if cfg.infinite:
        return jnp.full(13, 4, I32)
    n = cfg.shoe_size
    undealt = jnp.arange(n) < st.left
    ranks = p.rank_of_card[st.shoe[(st.pos + jnp.arange(n)) % p.shoe_cards].astype(I32)]
    counts = jnp.zeros(13, I32).at[ranks].add(undealt.astype(I32))
    return count_rank(counts, p.rank_of_card[jnp.maximum(st.hole_card, 0)], hole_hidden(st, cfg))


def seat_ranks(st: State, cfg: Config) -> Any:
    """int32 ``(13,)`` (``(S, 13)``): the cards of each seat's hands, by rank."""
    live = live_hands(st, cfg)
    return jnp.sum(jnp.where(live[..., None], st.hand_ranks, 0), axis=-2)


def observe_dict(
    st: State, p: Params, cfg: Config, mask: Any, settled: Any = False, table_cards: Any = None
) -> dict[str, Any]:
    """The ``"dict"`` observation (keys ``view.DICT_KEYS``, the bounds of
    :mod:`blackjack_env.envs.view`'s ``encode_dict`` and ``dict_space``), read from the
    state as the numpy vector env's ``_observe_dict`` (``_observe_bets`` at a BET step).
    ``table_cards``: every seat's cards in seat order (several seats); default this
    seat's."""
    f = focus_fields(st, p, cfg, mask, settled)
    bet = (st.opened & ~jnp.asarray(settled)) if cfg.bets else jnp.zeros((), bool)
    hand = st.hand_ranks[f["h"]]
    dealer = (jnp.arange(13) == p.rank_of_card[st.upcard]).astype(I32)
    dealer = jnp.where(st.hole_revealed, st.dealer_ranks, dealer)
    seats = seat_ranks(st, cfg) if table_cards is None else table_cards
    stake = st.stake[f["h"]].astype(F32) / p.bet
    none = jnp.zeros(13, I32)
    phase, total, soft, up, h, nh = (
        jnp.asarray(f[k], I32) for k in ("phase", "total", "soft", "upcard", "h", "nhands")
    )
    return view.encode_dict(
        phase,
        total,
        soft,
        up,
        h,
        nh,
        jnp.where(bet, none, hand),
        jnp.where(bet, none, dealer),
        jnp.where(bet, jnp.zeros_like(seats), seats),
        unseen_ranks(st, p, cfg),
        true_count(st, p, cfg),
        jnp.where(bet, 0.0, stake),
        bankroll(st, p, cfg) / p.bet,
        mask.astype(jnp.int8),
        xp=jnp,
    )


#: The observers by ``obs_mode``: ``(state, params, config, mask, settled) -> observation``.
OBSERVERS = {
    "vector": observe_vector,
    "features": observe_features,
    "multidiscrete": observe_multidiscrete,
    "tuple": observe_tuple,
    "dict": observe_dict,
}


def observe(
    st: State,
    p: Params,
    cfg: Config,
    mode: str,
    settled: Any = False,
    mask: Any = None,
    rules: bool = False,
) -> Any:
    """The observation of every seat in mode ``mode`` (one seat: as the observer; several:
    a leading seat axis, a seat the table does not wait for shown ``SETTLED``, as the
    numpy vector env shows it). ``mask``: the masks to show (default: the state's).
    ``rules``: the observation carries the rule features (``p.rule_features``, as
    :func:`blackjack_env.envs.view.append_rules` lays them out; the ``"dict"`` mode's
    ``view.DICT_RULES_KEY``), as the numpy envs' ``observe_rules``."""
    fn = OBSERVERS[mode]
    if mask is None:
        mask = masks(st, p, cfg)
    if cfg.seats == 1:
        return with_rules(fn(st, p, cfg, mask, settled), p, rules)
    shown = jnp.asarray(settled) | (jnp.arange(cfg.seats) != acting(st, cfg))
    if mode == "dict":  # every seat's cards, in seat order, seen from each seat
        cards = seat_ranks(st, cfg).reshape(-1)
        fn = partial(observe_dict, table_cards=cards)
    return jax.vmap(
        lambda v, m, sd: with_rules(fn(v, p, cfg, m, sd), p, rules),
        in_axes=(seat_axes(cfg), 0, 0),
    )(st, mask, shown)


def with_rules(obs: Any, p: Params, rules: bool) -> Any:
    """One seat's observation with the rule features where ``rules``: after a flat
    observation (:func:`blackjack_env.envs.view.append_rules`), or under the dict's
    ``view.DICT_RULES_KEY``."""
    if not rules:
        return obs
    if isinstance(obs, dict):
        return {**obs, view.DICT_RULES_KEY: jnp.asarray(p.rule_features, F32)}
    return view.append_rules(obs, p.rule_features, xp=jnp)
