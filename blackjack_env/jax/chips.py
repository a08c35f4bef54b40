"""The learner's chips at a JAX table (the numpy batched tables'
:mod:`blackjack_env.envs.batch.chips`): the chips off the table in exact units of
``1 / Params.chip_den``, whether they cover a stake, insurance or a split, the BET
step's mask, and the chips an ``info`` reports.
"""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Bool, Float32, Int32, Real

from blackjack_env.engine import play
from blackjack_env.jax.state import F32, I32, State, live_hands, naturals
from blackjack_env.jax.tables import Config, Params

#: insurance stakes this share of the bet
_INSURANCE_SHARE = float(play.insurance_stake(1))


def to_units(x: Float32[ArrayLike, "*n"], p: Params) -> Int32[Array, "*n"]:
    """Chips (float) as whole units of ``1 / Params.chip_den`` (exact amounts, rounded)."""
    return jnp.round(x * p.chip_den).astype(I32)


def chip_units(st: State, p: Params, cfg: Config) -> Int32[Array, "*seats"]:
    """Finite bankroll: the learner's chips off the table now, in units of ``1 /
    Params.chip_den`` (numpy ``TableBatch.chips``): the chips before the round's bet, plus
    the round's result so far, less the stakes of its unsettled hands."""
    live = live_hands(st, cfg)
    open_ = jnp.sum(jnp.where(live & ~st.settled, st.stake, 0), axis=-1).astype(F32)
    net = jnp.sum(jnp.where(live, st.net, 0.0), axis=-1) + st.insurance_net
    return st.bank + to_units(net - open_, p)


def covers_chips(
    st: State, p: Params, cfg: Config, amount: Real[ArrayLike, "*n"]
) -> Bool[Array, "*n"]:
    """``play.can_cover`` of ``amount`` chips by the learner's chips off the table (exact,
    in units of ``1 / chip_den``); unlimited credit: True."""
    if not cfg.bankroll:
        return jnp.ones(jnp.shape(amount), bool)
    return chip_units(st, p, cfg) >= to_units(jnp.asarray(amount, F32), p)


def covers_insurance(st: State, p: Params, cfg: Config) -> Bool[Array, ""]:
    """Insurance (or even money, on a natural) is affordable (numpy ``_covers_insurance``)."""
    stake = st.stake[0].astype(F32) * _INSURANCE_SHARE
    return naturals(st, p, cfg)[0] | covers_chips(st, p, cfg, stake)


def split_stake_ok(
    st: State, p: Params, cfg: Config, h: Int32[Array, ""]
) -> Bool[Array, ""]:
    """``play.split_stake_ok`` of hand ``h`` (tabulated by cover and by a stake of 0, 1,
    2 or more chips), where stakes vary (bet steps) or a bankroll limits them (numpy
    ``_split_stakes_ok``); else True."""
    if not cfg.stake_check:
        return jnp.ones((), bool)
    stake = st.stake[h]
    covers = covers_chips(st, p, cfg, stake)
    return p.stake_ok[covers.astype(I32), jnp.clip(stake, 0, p.stake_ok.shape[-1] - 1)]


def bet_mask(st: State, p: Params, cfg: Config) -> Bool[Array, " actions"]:
    """The BET step's mask (numpy ``_refresh_bets``): the bet actions ``n_play + k`` of
    the sizes the table limits allow."""
    allowed = jnp.asarray(p.bet_within) & covers_chips(st, p, cfg, jnp.asarray(p.bet_chips))
    return jnp.concatenate([jnp.zeros(cfg.n_play, bool), allowed])


def bankroll(st: State, p: Params, cfg: Config) -> Float32[Array, "*seats"]:
    """The learner's chips (float32, the numpy env's ``info["bankroll"]``): those off the
    table with a finite bankroll, the session's net chips with unlimited credit."""
    units = chip_units(st, p, cfg) if cfg.bankroll else st.session
    return units.astype(F32) / p.chip_den
