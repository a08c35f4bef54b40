"""The codes the batched tables' arrays hold: one vocabulary for the engine, numpy and JAX.

:class:`BatchPhase` (``TableBatch.phase``, the JAX state's ``phase``), the outcome codes
(:class:`~blackjack_env.engine.play.OutcomeCode`: ``TableBatch.outcome``,
:data:`OUTCOME_CODES`) and the decision codes (:class:`~blackjack_env.engine.play.Action`,
:data:`NUM_CORE_ACTIONS` of them), defined once. The plain-int constants below are those
enums' members as ``int`` (array code compares with ints: reading an enum member on a hot
path costs more), for the numpy batched tables (:mod:`blackjack_env.envs.batch`) and the
JAX table (:mod:`blackjack_env.jax`) alike:

* ``PHASE_DECIDE``, ``PHASE_INSURE``, ``PHASE_OVER``, ``PHASE_PEEK_WAIT``,
  ``PHASE_DONE``: :class:`BatchPhase`;
* ``OUTCOME_WIN``, ``OUTCOME_BLACKJACK``, ``OUTCOME_PUSH``, ``OUTCOME_LOSS``,
  ``OUTCOME_BUST``, ``OUTCOME_SURRENDER``, ``OUTCOME_EVEN_MONEY``: ``OutcomeCode``;
* ``ACTION_STAND``, ``ACTION_HIT``, ``ACTION_DOUBLE``, ``ACTION_SPLIT``,
  ``ACTION_SURRENDER``, ``ACTION_INSURE``, ``ACTION_DECLINE``: ``Action``;
* :data:`STAND_ONLY_ROW`, :data:`TAKES_CARD`: rows over the decision codes.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

import numpy as np

from blackjack_env.engine.play import Action, Outcome, OutcomeCode

__all__ = [
    "ACTION_DECLINE",
    "ACTION_DOUBLE",
    "ACTION_HIT",
    "ACTION_INSURE",
    "ACTION_SPLIT",
    "ACTION_STAND",
    "ACTION_SURRENDER",
    "NUM_CORE_ACTIONS",
    "OUTCOME_BLACKJACK",
    "OUTCOME_BUST",
    "OUTCOME_CODES",
    "OUTCOME_EVEN_MONEY",
    "OUTCOME_LOSS",
    "OUTCOME_PUSH",
    "OUTCOME_SURRENDER",
    "OUTCOME_WIN",
    "PHASE_DECIDE",
    "PHASE_DONE",
    "PHASE_INSURE",
    "PHASE_OVER",
    "PHASE_PEEK_WAIT",
    "STAND_ONLY_ROW",
    "TAKES_CARD",
    "BatchPhase",
    "OutcomeCode",
]


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


#: The engine's outcome of each outcome code (index -> ``Outcome``, the enum's order, as in
#: :func:`~blackjack_env.engine.play.outcome_table`; -1 = unsettled).
OUTCOME_CODES: tuple[Outcome, ...] = tuple(Outcome)
assert [OUTCOME_CODES[c].name for c in OutcomeCode] == [c.name for c in OutcomeCode]

PHASE_DECIDE: Final = int(BatchPhase.DECIDE)
PHASE_INSURE: Final = int(BatchPhase.INSURE)
PHASE_OVER: Final = int(BatchPhase.OVER)
PHASE_PEEK_WAIT: Final = int(BatchPhase.PEEK_WAIT)
PHASE_DONE: Final = int(BatchPhase.DONE)

OUTCOME_WIN: Final = int(OutcomeCode.WIN)
OUTCOME_BLACKJACK: Final = int(OutcomeCode.BLACKJACK)
OUTCOME_PUSH: Final = int(OutcomeCode.PUSH)
OUTCOME_LOSS: Final = int(OutcomeCode.LOSS)
OUTCOME_BUST: Final = int(OutcomeCode.BUST)
OUTCOME_SURRENDER: Final = int(OutcomeCode.SURRENDER)
OUTCOME_EVEN_MONEY: Final = int(OutcomeCode.EVEN_MONEY)

ACTION_STAND: Final = int(Action.STAND)
ACTION_HIT: Final = int(Action.HIT)
ACTION_DOUBLE: Final = int(Action.DOUBLE)
ACTION_SPLIT: Final = int(Action.SPLIT)
ACTION_SURRENDER: Final = int(Action.SURRENDER)
ACTION_INSURE: Final = int(Action.INSURE)
ACTION_DECLINE: Final = int(Action.DECLINE)

#: Number of decision codes the batched tables understand (``Action`` 0..6).
NUM_CORE_ACTIONS: Final = 7
#: The legal-decision row of a table whose round is over (only STAND: it reports the result).
STAND_ONLY_ROW: Final = np.arange(NUM_CORE_ACTIONS) == ACTION_STAND
#: Decision codes that deal the hand a card (HIT, DOUBLE), by code.
TAKES_CARD: Final = np.isin(np.arange(NUM_CORE_ACTIONS), [ACTION_HIT, ACTION_DOUBLE])
