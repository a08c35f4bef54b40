"""The codes the batched tables' arrays hold, and the constants their modules share.

:class:`BatchPhase` (``TableBatch.phase``), :data:`OUTCOME_CODES` (``TableBatch.outcome``),
:data:`NUM_CORE_ACTIONS` (the decision codes a step takes), and the plain-int forms of
these codes that the other modules of :mod:`blackjack_env.envs.batch` compare arrays
with, each defined here once.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from blackjack_env.engine.play import Action, Outcome

__all__ = ["NUM_CORE_ACTIONS", "OUTCOME_CODES", "BatchPhase"]


class BatchPhase(IntEnum):
    """Where a table's round stands (see the docstring of :mod:`blackjack_env.envs.batch`)."""

    DECIDE = 0
    INSURE = 1
    OVER = 2
    #: several seats: this seat answered the pre-peek question (or was not asked) and
    #: waits for the other seats' answers and the peek
    PEEK_WAIT = 3
    #: several seats: this seat's hands are all done; the dealer waits for the others
    DONE = 4


#: Outcome codes used in :attr:`TableBatch.outcome` (index -> engine Outcome, the enum's
#: order, as in :func:`~blackjack_env.engine.play.outcome_table`; -1 = unsettled).
OUTCOME_CODES: tuple[Outcome, ...] = tuple(Outcome)
_WIN, _BJ, _PUSH, _LOSS, _BUST, _SURR, _EVEN = (OUTCOME_CODES.index(o) for o in Outcome)
_DECIDE, _INSURE_PHASE, _OVER = int(BatchPhase.DECIDE), int(BatchPhase.INSURE), int(BatchPhase.OVER)
_PEEK_WAIT, _SEAT_DONE = int(BatchPhase.PEEK_WAIT), int(BatchPhase.DONE)

_STAND = int(Action.STAND)
#: The legal-mask row of a table whose round is over (only STAND: it reports the result).
_STAND_ONLY = np.arange(7) == int(Action.STAND)
_HIT = int(Action.HIT)
#: Decision codes that deal the hand a card (HIT, DOUBLE), by code.
_TAKES_CARD = np.isin(np.arange(7), [int(Action.HIT), int(Action.DOUBLE)])
_DOUBLE = int(Action.DOUBLE)
_SPLIT = int(Action.SPLIT)
_SURRENDER = int(Action.SURRENDER)
_INSURE = int(Action.INSURE)
_DECLINE = int(Action.DECLINE)


#: Number of decision codes the batched tables understand (``Action`` 0..6).
NUM_CORE_ACTIONS = 7
