"""Settlement at a JAX table (the numpy batched tables'
:mod:`blackjack_env.envs.batch.settlement`): paying hands an outcome code
(:func:`pay`), the outcome of every hand against the dealer's final hand
(:func:`outcomes`, a lookup in ``Params.by_hands``), the two settlement rules, and the
round's net in base bets.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from blackjack_env.engine import play
from blackjack_env.envs.batch.codes import OUTCOME_LOSS
from blackjack_env.jax.state import (
    F32,
    I32,
    State,
    dealer_natural,
    hand_total,
    hands_axis,
    live_hands,
)
from blackjack_env.jax.tables import Config, Params


def pay(st: State, p: Params, which: Any, code: Any) -> State:
    """Settle hands ``which`` (bool (H,)) with outcome codes ``code``."""
    net = st.stake.astype(F32) * p.factor[code]
    return st._replace(
        outcome=jnp.where(which, code, st.outcome),
        net=jnp.where(which, net, st.net),
        settled=st.settled | which,
        done=st.done | which,
    )


def outcomes(st: State, p: Params, cfg: Config) -> Any:
    """Outcome code of every hand against the dealer's final hand (numpy ``_compare``)."""
    w = cfg.key_width
    two = st.ncards == 2
    if cfg.hands > 1 and not cfg.split_naturals:
        two = two & (hands_axis(st.nhands) == 1)
    key = (2 * st.hard + st.ace + w * two) * (2 * w)
    key = key + 2 * st.dealer_hard + st.dealer_ace + w * (st.dealer_ncards == 2)
    out = p.by_hands[key]
    if cfg.surrenders:
        out = jnp.where(st.surrendered, p.surrender_outcome[dealer_natural(st).astype(I32)], out)
    return out


def settle_by_compare(st: State, p: Params, cfg: Config, on: Any) -> State:
    """Settle the seat's open hands where ``on`` by :func:`outcomes` (the usual
    settlement)."""
    which = on & live_hands(st, cfg) & ~st.settled
    return pay(st, p, which, outcomes(st, p, cfg))


def settle_highest(st: State, p: Params, cfg: Config, on: Any) -> State:
    """``Settlement.HIGHEST_HAND`` (numpy ``_settle_highest``): only the best can win."""
    open_ = on & live_hands(st, cfg) & ~st.settled
    out = outcomes(st, p, cfg)
    surr = open_ & st.surrendered
    st = pay(st, p, surr, out)
    rest = open_ & ~st.surrendered & (st.hard <= 21)
    total = hand_total(st.hard, st.ace)
    top = jnp.max(jnp.where(rest, total, -1), axis=-1, keepdims=True)  # per seat
    # the rule is written with array operators only: it serves jax arrays as numpy's
    judged = play.array_highest_hand_judged(total, top, st.dealer_hard > 21)  # type: ignore[arg-type]
    return pay(st, p, rest, jnp.where(judged, out, OUTCOME_LOSS))


def round_net(st: State, cfg: Config) -> Any:
    """The round's net so far in base bets (every hand, plus insurance)."""
    hands = jnp.sum(jnp.where(live_hands(st, cfg), st.net, 0.0), axis=-1)  # (per seat)
    return (hands + st.insurance_net) / cfg.bet
