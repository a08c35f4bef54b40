"""The step policy every env applies: the learner's decision, what an illegal action does,
and how an action reaches the table. Written once, array-first, for the three envs.

The single env (:class:`~blackjack_env.envs.single.core.EnvCore`), the batched env
(:class:`~blackjack_env.envs.vector.BlackjackVectorEnv`) and the multi-agent table
(:class:`~blackjack_env.envs.multiagent.BlackjackAECEnv`) call these and keep only
their API:

* :class:`Decision`, what the learner is asked at a step, and where it comes from:
  :func:`decision_of_phase` and :func:`learner_decision` (a table's phase, for a seat)
  and :data:`DECISION_BY_BATCH_PHASE` (a batched table's phase code, an array lookup);
* the illegal-action policy (:class:`~blackjack_env.envs.step.IllegalAction`):
  :func:`illegal_message` (``RAISE``: the one message), :func:`map_illegal` and its
  array form :func:`array_map_illegal` (``MAP``: the documented legal action),
  :func:`map_illegal_bet` / :func:`array_map_illegal_bet` (an illegal bet step), and
  :data:`PENALTY_ACTION` (``PENALIZE``: the round is played out from there);
* :func:`table_action` / :func:`array_table_actions`: the ``Action`` a learner's
  action index asks of the table (``STAND`` answers the pre-peek question: decline).

The Hi-Lo true count the observations show is the engine's
(:func:`~blackjack_env.engine.play.hi_lo_true_count`,
:func:`~blackjack_env.engine.play.array_hi_lo_true_count`).

A new illegal-action policy is a member of ``IllegalAction`` (with its line in
``EnvSettings``' checks) and its function here, in scalar and array form, plus the
branch that calls it in the single and the multi-agent env's step (the batched env
calls :func:`array_play_illegal`, whose branch it is there).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum, IntEnum
from typing import Any, Final

import numpy as np

from blackjack_env.engine.events import Phase
from blackjack_env.engine.play import Action

__all__ = [
    "DECISION_BY_BATCH_PHASE",
    "PENALTY_ACTION",
    "Decision",
    "IllegalAction",
    "array_map_illegal",
    "array_map_illegal_bet",
    "array_play_illegal",
    "array_table_actions",
    "decision_of_phase",
    "illegal_message",
    "learner_decision",
    "map_illegal",
    "map_illegal_bet",
    "table_action",
]


class IllegalAction(str, Enum):
    """What an env does with an action that is in the action space but not legal now
    (the env's ``illegal_action`` setting; this module's functions carry it out).

    * ``MAP``: play a documented legal action instead (:func:`map_illegal`);
      ``info["illegal_action"]`` says so.
    * ``RAISE``: ``ValueError`` naming the action and the legal ones
      (:func:`illegal_message`); nothing changes.
    * ``PENALIZE``: the round ends with the learner standing (:data:`PENALTY_ACTION`),
      minus ``illegal_penalty`` (single and batched env).
    """

    MAP = "map"
    RAISE = "raise"
    PENALIZE = "penalize"


class Decision(IntEnum):
    """What the learner is asked at a step (the ``phase`` field of the observations).

    * ``PLAY``: stand / hit / double / split / surrender for the hand to act.
    * ``INSURANCE``: the pre-peek decision against an ace (insurance or even money,
      when the env asks for it) or an ace/ten (early surrender): decline, insure,
      surrender.
    * ``BET``: choose the bet for the coming round (``bet_sizes`` only).
    * ``SETTLED``: the round is over (settled at the deal, or the episode's last
      observation): any action continues.
    """

    PLAY = 0
    INSURANCE = 1
    BET = 2
    SETTLED = 3


# One alias scheme (as envs.single.core and envs.codes): an enum member is
# ``_<ENUM>_<MEMBER>``, its int code ``_<MEMBER>``; both derived from the enums.
_STAND: Final = int(Action.STAND)
_HIT: Final = int(Action.HIT)
_DOUBLE: Final = int(Action.DOUBLE)
_SPLIT: Final = int(Action.SPLIT)
_SURRENDER: Final = int(Action.SURRENDER)
_DECLINE: Final = int(Action.DECLINE)
_ACTIONS: Final = tuple(Action)
_DECISION_PLAY: Final = Decision.PLAY
_DECISION_INSURANCE: Final = Decision.INSURANCE
_DECISION_BET: Final = Decision.BET
_DECISION_SETTLED: Final = Decision.SETTLED
_PHASE_PLAYER_TURNS: Final = Phase.PLAYER_TURNS
_PHASE_INSURANCE: Final = Phase.INSURANCE
_PHASE_BETTING: Final = Phase.BETTING
_PLAY: Final = int(Decision.PLAY)
_INSURANCE: Final = int(Decision.INSURANCE)
#: the playing actions an illegal action falls back to HIT from (when HIT is legal)
_TO_HIT: Final = (_DOUBLE, _SPLIT, _SURRENDER)


def decision_of_phase(phase: Phase) -> Decision:
    """The decision a table's phase asks of the seat it waits for: ``PLAYER_TURNS`` ->
    ``PLAY``, ``INSURANCE`` -> ``INSURANCE``, ``BETTING`` -> ``BET`` (an env with a
    fixed bet never leaves the table there at a step), anything else -> ``SETTLED``.
    (The single env's step, whose table waits for the learner or for no one, reads
    this; :func:`learner_decision` adds the seat.)"""
    if phase is _PHASE_PLAYER_TURNS:
        return _DECISION_PLAY
    if phase is _PHASE_INSURANCE:
        return _DECISION_INSURANCE
    if phase is _PHASE_BETTING:
        return _DECISION_BET
    return _DECISION_SETTLED


def learner_decision(table: Any, seat: int) -> Decision:
    """The learner's decision in the table's current state (a
    :class:`~blackjack_env.engine.table.Table`): :func:`decision_of_phase`, where a
    decision awaited from another seat (which cannot occur between env steps) is
    reported as ``SETTLED``.
    """
    decision = decision_of_phase(table.phase)
    if (decision is _DECISION_PLAY or decision is _DECISION_INSURANCE) and table.to_act[0] != seat:
        return _DECISION_SETTLED
    return decision


#: A batched table's phase code (``envs.codes.BatchPhase``: DECIDE, INSURE, OVER,
#: PEEK_WAIT, DONE) -> the learner's :class:`Decision` code (a seat waiting for the
#: others, several seats per table, is SETTLED), as :func:`learner_decision` reads a table.
DECISION_BY_BATCH_PHASE: Final = np.array(
    [Decision.PLAY, Decision.INSURANCE, Decision.SETTLED, Decision.SETTLED, Decision.SETTLED],
    dtype=np.int64,
)
DECISION_BY_BATCH_PHASE.flags.writeable = False


def illegal_message(
    action: int, names: Sequence[str], decision: str, legal: Sequence[int], where: str = ""
) -> str:
    """The one message for an action in the action space that is not legal now
    (``illegal_action="raise"``): the action and its name, the decision (``PLAY``, ...)
    and the legal actions; ``where`` prefixes it (``"sub-env 3: "``, ``"seat_1: "``)."""
    return (
        f"{where}action {action} ({names[action]}) is not legal now (phase {decision}); "
        f"legal actions: {', '.join([f'{i} ({names[i]})' for i in legal])}"
    )


#: The action an illegal action plays in a round under ``illegal_action="penalize"`` (a
#: STAND, which also declines the pre-peek question); the round is then played out
#: (``engine.play.play_out_action``) and the penalty taken from its reward.
PENALTY_ACTION: Final = _STAND


def map_illegal(a: int, decision: Decision, legal: Sequence[int], n_play: int) -> int:
    """``illegal_action="map"``: the legal action an illegal ``a`` plays as.

    In play, DOUBLE / SPLIT / SURRENDER become HIT when HIT is legal, else STAND;
    anything else (HIT, INSURE, a bet size) becomes STAND. At the pre-peek question:
    STAND (decline). At a bet step: :func:`map_illegal_bet`."""
    if decision is Decision.PLAY:
        if a in _TO_HIT:
            return _HIT if _HIT in legal else _STAND
        return _STAND
    if decision is Decision.BET:
        return map_illegal_bet(a, legal, n_play)
    return _STAND


def map_illegal_bet(a: int, legal: Sequence[int], n_play: int) -> int:
    """An illegal action at a bet step (actions ``n_play`` and up are the bet sizes):
    a bet size not allowed bets the largest allowed size below it, else the smallest
    allowed size; a playing action bets the smallest allowed size."""
    if a >= n_play:
        below = [i for i in legal if i <= a]
        if below:
            return max(below)
    return min(legal)


def array_map_illegal(
    a: np.ndarray, illegal: np.ndarray, decision: np.ndarray, hit_legal: np.ndarray
) -> np.ndarray:
    """:func:`map_illegal` for the playing and pre-peek decisions of many envs: ``a``
    where legal, else the mapped action (``decision``: :class:`Decision` codes;
    ``hit_legal``: bool, HIT legal). Bet steps: :func:`array_map_illegal_bet`."""
    to_hit = (decision == _PLAY) & hit_legal & ((a == _DOUBLE) | (a == _SPLIT) | (a == _SURRENDER))
    mapped = np.where(to_hit, _HIT, _STAND)
    return np.where(illegal, mapped, a)


def array_play_illegal(
    policy: IllegalAction,
    a: np.ndarray,
    illegal: np.ndarray,
    decision: np.ndarray,
    mask: np.ndarray,
    names: Sequence[str],
) -> np.ndarray:
    """The actions many envs play for actions ``a`` of which ``illegal`` are not legal, by
    ``policy``: ``RAISE`` raises ``ValueError`` (:func:`illegal_message`, for the first
    illegal sub-env); ``PENALIZE`` plays :data:`PENALTY_ACTION`; ``MAP`` plays
    :func:`array_map_illegal`'s action (``decision``: :class:`Decision` codes; ``mask``:
    ``(N, n)`` the legal actions; bet steps are mapped by :func:`array_map_illegal_bet`)."""
    if policy is IllegalAction.RAISE:
        t = int(illegal.nonzero()[0][0])
        raise ValueError(illegal_message(
            int(a[t]), names, Decision(decision[t]).name, mask[t].nonzero()[0].tolist(),
            f"sub-env {t}: ",
        ))  # fmt: skip
    if policy is IllegalAction.PENALIZE:
        return np.where(illegal, PENALTY_ACTION, a)
    return array_map_illegal(a, illegal, decision, mask[:, _HIT].astype(bool))


def array_map_illegal_bet(want: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """:func:`map_illegal_bet` for many envs, as bet-size indices: ``want`` the size
    index asked for (negative for a playing action), ``allowed`` ``(N, sizes)`` bool."""
    sizes = np.arange(allowed.shape[1])
    below = allowed & (sizes[None, :] <= want[:, None])
    largest = allowed.shape[1] - 1 - below[:, ::-1].argmax(axis=1)
    return np.where(below.any(axis=1), largest, allowed.argmax(axis=1))


def table_action(decision: Decision, a: int) -> Action:
    """The table's ``Action`` for action index ``a`` at a playing or pre-peek decision:
    at the pre-peek question STAND means decline (``Action.DECLINE``)."""
    if decision is Decision.INSURANCE and a == _STAND:
        return Action.DECLINE
    return _ACTIONS[a]


def array_table_actions(a: np.ndarray, pre_peek: np.ndarray) -> np.ndarray:
    """:func:`table_action` as codes for many envs (``pre_peek``: bool, at the pre-peek
    question)."""
    return np.where(pre_peek & (a == _STAND), _DECLINE, a)
