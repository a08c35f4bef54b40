"""Settlement at a JAX table (the numpy batched tables'
:mod:`blackjack_env.envs.batch.settlement`): paying hands an outcome code
(:func:`pay`), the outcome of every hand against the dealer's final hand
(:func:`outcomes`, a lookup in ``Params.outcome_table`` by the hands' categories), the
two settlement rules (:func:`settle` picks the rules'), and the round's net in base bets.
"""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, Bool, Float32, Int32

from blackjack_env.engine import play
from blackjack_env.envs.codes import OUTCOME_LOSS
from blackjack_env.jax.loops import when
from blackjack_env.jax.state import (
    F32,
    I32,
    State,
    dealer_natural,
    hand_total,
    hands_axis,
    is_natural,
    live_hands,
)
from blackjack_env.jax.tables import Config, Params


def pay(
    st: State, p: Params, which: Bool[Array, "*seats hands"], code: Int32[Array, "*seats hands"]
) -> State:
    """Settle hands ``which`` with outcome codes ``code``."""
    net = st.stake.astype(F32) * p.payouts[code]
    return st._replace(
        outcome=jnp.where(which, code, st.outcome),
        net=jnp.where(which, net, st.net),
        settled=st.settled | which,
        done=st.done | which,
    )


def category(
    hard: Int32[Array, "*n"], ace: Bool[Array, "*n"], two: Bool[Array, "*n"]
) -> Int32[Array, "*n"]:
    """A hand's outcome category (``play.array_category``): its total, a bust, or a natural
    where it holds two cards that may make one (``two``)."""
    natural = is_natural(jnp.where(two, 2, 3), hard, ace)
    return play.array_category(hand_total(hard, ace), natural)  # type: ignore[arg-type,return-value]


def outcomes(st: State, p: Params, cfg: Config) -> Int32[Array, "*seats hands"]:
    """Outcome code of every hand against the dealer's final hand (numpy ``_compare``):
    ``p.outcome_table`` at the two hands' categories (the numpy round's ``by_hands`` is
    the same table keyed by the hands)."""
    two = st.ncards == 2
    if cfg.hands > 1:
        two = two & (p.split_naturals | (hands_axis(st.nhands) == 1))
    mine = category(st.hard, st.ace, two)
    dealer = category(st.dealer_hard, st.dealer_ace, st.dealer_ncards == 2)
    out = p.outcome_table[mine * play.NUM_CATEGORIES + hands_axis(dealer)]
    surrendered = p.surrender_outcome[dealer_natural(st).astype(I32)]
    return jnp.where(st.surrendered, hands_axis(surrendered), out)


def settle_by_compare(st: State, p: Params, cfg: Config, on: Bool[Array, ""]) -> State:
    """Settle the seat's open hands where ``on`` by :func:`outcomes` (the usual
    settlement; the dealer's peek finding a blackjack)."""
    which = on & live_hands(st, cfg) & ~st.settled
    return pay(st, p, which, outcomes(st, p, cfg))


def settle(st: State, p: Params, cfg: Config, on: Bool[Array, ""]) -> State:
    """Settle the seat's open hands where ``on`` by the rules' settlement (numpy
    ``_settle_by_compare`` / ``_settle_highest``): each hand by :func:`outcomes`; under
    ``Settlement.HIGHEST_HAND`` (``p.highest``) only the best can win: a standing hand
    that does not hold the highest total at the seat loses
    (``play.array_highest_hand_judged``; a surrendered hand keeps its outcome)."""
    open_ = on & live_hands(st, cfg) & ~st.settled
    out = outcomes(st, p, cfg)

    which, code = when(p.highest, highest_hand, (open_, out), (st, p.highest))
    return pay(st, p, which, code)


def highest_hand(
    which: Bool[Array, "*seats hands"], code: Int32[Array, "*seats hands"], st: State,
    highest: Bool[Array, ""],
) -> tuple[Bool[Array, "*seats hands"], Int32[Array, "*seats hands"]]:  # fmt: skip
    """``Settlement.HIGHEST_HAND`` where ``highest`` (guarded: elsewhere ``which`` and
    ``code`` are kept): of the hands ``which`` settling with outcome codes ``code``, the
    standing and the surrendered ones are paid, and a standing hand that does not hold the
    seat's highest total loses (``play.array_highest_hand_judged``)."""
    standing = ~st.surrendered & (st.hard <= 21)
    rest = which & standing
    total = hand_total(st.hard, st.ace)
    top = jnp.max(jnp.where(rest, total, -1), axis=-1, keepdims=True)  # per seat
    # the rule is written with array operators only: it serves jax arrays as numpy's
    judged = play.array_highest_hand_judged(total, top, st.dealer_hard > 21)  # type: ignore[arg-type]
    paid = which & (standing | st.surrendered | ~highest)
    return paid, jnp.where(highest & rest & ~judged, OUTCOME_LOSS, code)


def round_net(st: State, p: Params, cfg: Config) -> Float32[Array, "*seats"]:
    """The round's net so far in base bets (every hand, plus insurance)."""
    hands = jnp.sum(jnp.where(live_hands(st, cfg), st.net, 0.0), axis=-1)  # (per seat)
    return (hands + st.insurance_net) / p.bet
