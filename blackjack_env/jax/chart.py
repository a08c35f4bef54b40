"""A fixed chart (basic strategy) as a lookup inside the jitted loop.

:func:`chart_table` asks :meth:`blackjack_env.analysis.chart.Chart.action` (the one place
a chart is read) once per situation on the host: every two-card-or-more hand total
(hard / soft), every pair, every upcard rank, every set of legal actions and both
decisions (in play, at the pre-peek question); the answers, as the env's action indices,
are one small int8 array. :func:`chart_actions` looks them up from the table's own state
arrays, written against an array namespace (``jax.numpy`` inside ``jit``, ``numpy`` for
the numpy batched tables, whose state has the same fields), so the same chart plays the
same action on both. :func:`chart_policy` is the JAX policy ``(state, params) -> action``
of a :class:`~blackjack_env.jax.BlackjackJax`.

The chart is :func:`~blackjack_env.analysis.basic_strategy_chart` of the env's rules by
default (the exact optimum for an infinite deck, the total-dependent chart of a finite
shoe).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, TypeVar

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Int8, Int32, Integer

from blackjack_env.analysis.chart import Chart
from blackjack_env.analysis.state import DecisionState
from blackjack_env.analysis.strategy import basic_strategy_chart, nearest_supported_rules
from blackjack_env.engine.play import Action, array_soft, array_total
from blackjack_env.engine.rules import Rules
from blackjack_env.envs.step import Decision
from blackjack_env.jax.hands import decision_of, legal_mask
from blackjack_env.jax.state import State
from blackjack_env.jax.tables import Params

if TYPE_CHECKING:
    from blackjack_env.jax.env import BlackjackJax

__all__ = ["N_HAND_STATES", "chart_actions", "chart_policy", "chart_table", "hand_state"]

_LOW = 2  # lowest total (two cards worth 1 under custom values)
_TOTALS = 21 - _LOW + 1
#: hand situations: (total, soft) for totals 2..21, then a pair by the rank of its cards
N_HAND_STATES = 2 * _TOTALS + 13
# legal-action bits of the lookup: HIT, DOUBLE, SPLIT, SURRENDER (STAND is always legal)
_BITS = (Action.HIT, Action.DOUBLE, Action.SPLIT, Action.SURRENDER)
#: the arrays of :func:`chart_actions`: jax's inside ``jit``, numpy's for the numpy tables
A = TypeVar("A", Array, np.ndarray)


def chart_table(
    rules: Rules, chart: Chart | None = None
) -> Int8[np.ndarray, "2 situations 13 16"]:
    """The env action (``situations``: ``N_HAND_STATES``) of ``chart`` at
    ``[pre_peek, hand_state, upcard rank (0 = ace), legal bits]`` (an answer of DECLINE,
    at the pre-peek question, is the env's STAND)."""
    if chart is None:
        chart = basic_strategy_chart(nearest_supported_rules(rules)[0])
    out = np.zeros((2, N_HAND_STATES, 13, 16), np.int8)
    situations: list[tuple[int, int, bool, int | None]] = []
    for total in range(_LOW, 22):
        for soft in (False, True):
            if not soft or total >= 12:
                situations.append((2 * (total - _LOW) + soft, total, soft, None))
    for r in range(13):
        v = rules.value(r + 1)
        soft = r == 0
        situations.append((2 * _TOTALS + r, 12 if soft else 2 * v, soft, v))
    for pre in (False, True):
        for idx, total, soft, pair in situations:
            for up in range(13):
                for bits in range(16):
                    legal = [Action.DECLINE] if pre else [Action.STAND]
                    legal += [a for i, a in enumerate(_BITS) if bits >> i & 1]
                    if pre and Action.HIT in legal:  # (at the pre-peek question only
                        continue  # DECLINE and SURRENDER are asked)
                    state = DecisionState(
                        total=total, soft=soft, cards=2, pair=pair,
                        dealer=rules.value(up + 1), dealer_ace=up == 0, natural=False,
                        split=False, split_aces=False, hands=1, pre_peek=pre,
                        legal=tuple(legal),
                    )  # fmt: skip
                    a = chart.action(state)
                    out[int(pre), idx, up, bits] = 0 if a is Action.DECLINE else int(a)
    return out


def hand_state(
    hard: Integer[A, "*n"], ace: Bool[A, "*n"], pair: Bool[A, "*n"],
    r0: Integer[A, "*n"], xp: ModuleType,
) -> Integer[A, "*n"]:  # fmt: skip
    """The hand-situation index of :func:`chart_table` (``pair``: a pair under the rules,
    two cards; ``r0``: its first card's rank index)."""
    # (play's array rules are written with array operators only: they serve jax arrays too)
    soft = array_soft(hard, ace)  # type: ignore[arg-type]
    total = array_total(hard, ace)  # type: ignore[arg-type]
    by_total = 2 * (xp.clip(total, _LOW, 21) - _LOW) + soft
    return xp.where(pair, 2 * _TOTALS + r0, by_total)


def chart_actions(
    table: Int8[A, "2 situations 13 16"], decision: Integer[A, "*n"],
    hard: Integer[A, "*n"], ace: Bool[A, "*n"], pair: Bool[A, "*n"],
    r0: Integer[A, "*n"], up_rank: Integer[A, "*n"],
    mask: Bool[A, "*n actions"] | Int8[A, "*n actions"], xp: ModuleType,
) -> Int32[A, "*n"]:  # fmt: skip
    """The chart's env action (int) for arrays of decisions: ``decision`` the
    :class:`~blackjack_env.envs.step.Decision` code (SETTLED / BET: 0), the hand to act's
    ``hard`` total, ``ace``, ``pair`` and first-card rank ``r0``, the upcard's rank index,
    and the env's action ``mask`` (``(..., n_actions)``)."""
    n = mask.shape[-1]
    bits: Int32[A, "*n"] | int = 0
    for i, action in enumerate(_BITS):
        if int(action) < n:
            bits = bits + (mask[..., int(action)].astype(np.int32) << i)
    pre = (decision == int(Decision.INSURANCE)).astype(np.int32)
    hs = hand_state(hard, ace, pair, r0, xp)
    a = table[pre, hs, up_rank, bits]
    live = (decision == int(Decision.PLAY)) | (decision == int(Decision.INSURANCE))
    return xp.where(live, a, 0).astype(np.int32)


def chart_policy(
    env: BlackjackJax, chart: Chart | None = None
) -> Callable[[State, Params], Int32[Array, ""]]:
    """The JAX policy ``(state, params) -> action`` of one table of ``env`` (a
    :class:`~blackjack_env.jax.BlackjackJax`) playing ``chart`` (default: basic strategy
    of its rules); ``jax.vmap`` it for many tables."""
    table = jnp.asarray(chart_table(env.rules, chart))
    cfg = env.config

    def policy(st: State, p: Params) -> Int32[Array, ""]:
        h = jnp.clip(st.acting_hand, 0, cfg.hands - 1)
        r0, r1 = st.first_rank[h], st.second_rank[h]
        pair = p.pair[13 * r0 + r1] & (st.ncards[h] == 2)
        mask = legal_mask(st, p, cfg)
        decision = decision_of(st.phase)
        return chart_actions(
            table, decision, st.hard[h], st.ace[h], pair, r0, p.rank_of_card[st.upcard], mask,
            jnp,
        )  # fmt: skip

    return policy
