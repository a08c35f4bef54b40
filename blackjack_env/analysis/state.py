"""What a policy sees: :class:`DecisionState`, and how policies are given.

A *policy* for :func:`.evaluate_policy` is either

* a callable ``policy(state: DecisionState) -> Action`` (an ``int`` 0..6 is
  accepted and read as :class:`.Action`); or
* a mapping from Gymnasium-style observations ``(total, dealer, usable_ace)``
  (``usable_ace`` 0/1 or a bool) to an action. The mapping is read with
  :attr:`DecisionState.observation`; in the pre-peek (early surrender)
  question it answers ``SURRENDER`` when its entry says so, else ``DECLINE``.

It must be deterministic: the evaluator asks it once per distinct state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from blackjack_env.engine.table import Action

__all__ = ["DecisionState", "Policy", "as_policy"]


@dataclass(frozen=True, slots=True)
class DecisionState:
    """Everything visible at one decision of one hand (infinite deck).

    Attributes:
        total: the hand's best total (one ace counted 11 when that does not bust).
        soft: an ace is counted 11 (Gymnasium's "usable ace").
        cards: number of cards in the hand.
        pair: the point value of each card (ace = 1) when the hand is two cards
            making a pair under the rules' ``split_by`` (whether or not a split
            is still allowed); ``None`` otherwise. A pair of aces is ``pair=1,
            soft=True``.
        dealer: the dealer's upcard value, ace = 1 (1..10), as in Gymnasium.
        dealer_ace: the upcard is an ace (differs from ``dealer == 1`` only
            with custom card values that make another rank worth 1).
        natural: the hand is a natural (two-card 21 that counts as blackjack).
        split: the hand came from a split.
        split_aces: the hand came from splitting aces.
        hands: how many hands the seat holds now (1 = no split yet).
        pre_peek: the question asked before the dealer's peek (only with an
            ace or ten up under ``hole_card='peek'`` and early surrender):
            the legal answers are ``DECLINE`` and ``SURRENDER``.
        legal: the legal actions, exactly as ``Table.legal_actions()`` would
            list them for this hand (``INSURE`` is never offered here: the
            evaluated policies never take insurance or even money).

    :attr:`DecisionState.observation` gives Gymnasium ``Blackjack-v1``'s observation
    ``(player_sum, dealer_card, usable_ace)``.
    """

    total: int
    soft: bool
    cards: int
    pair: int | None
    dealer: int
    dealer_ace: bool
    natural: bool
    split: bool
    split_aces: bool
    hands: int
    pre_peek: bool
    legal: tuple[Action, ...]

    @property
    def observation(self) -> tuple[int, int, int]:
        """``(total, dealer, usable_ace)`` as in Gymnasium's Blackjack-v1."""
        return (self.total, self.dealer, int(self.soft))

    def describe(self) -> str:
        """Short text for error messages, e.g. ``soft 18 (3 cards) v 10``."""
        kind = "soft" if self.soft else "hard"
        text = f"{kind} {self.total} ({self.cards} cards"
        if self.pair is not None:
            text += f", pair of {'A' if self.pair == 1 and self.soft else self.pair}s"
        if self.split:
            text += f", split hand of {self.hands}"
        if self.pre_peek:
            text += ", before the peek"
        return text + f") v {'A' if self.dealer_ace else self.dealer}"


Policy = Callable[[DecisionState], Any] | Mapping[Any, Any]


def as_policy(policy: Policy) -> Callable[[DecisionState], Action]:
    """Normalise a callable or an observation table into ``state -> Action``, checking
    that every answer is legal (``ValueError`` naming the state and the legal actions)."""
    raw: Callable[[DecisionState], Any]
    if isinstance(policy, Mapping):
        table = policy

        def raw(state: DecisionState) -> Any:
            total, dealer, soft = state.observation
            for key in ((total, dealer, soft), (total, dealer, bool(soft))):
                if key in table:
                    answer = table[key]
                    break
            else:
                raise ValueError(
                    f"policy table has no entry for observation {(total, dealer, soft)} "
                    f"({state.describe()}); legal actions: {_names(state.legal)}"
                )
            if state.pre_peek:
                surrender = _to_action(answer) is Action.SURRENDER
                return Action.SURRENDER if surrender else Action.DECLINE
            return answer

    elif callable(policy):
        raw = policy
    else:
        raise ValueError(
            f"policy must be a callable(DecisionState) -> Action or a mapping "
            f"(total, dealer, usable_ace) -> Action, got {type(policy).__name__}"
        )

    def checked(state: DecisionState) -> Action:
        answer = raw(state)
        action = _to_action(answer)
        if action is None or action not in state.legal:
            raise ValueError(
                f"policy returned {answer!r} for {state.describe()}, which is not legal; "
                f"legal actions: {_names(state.legal)}"
            )
        return action

    return checked


def _to_action(answer: Any) -> Action | None:
    try:
        return Action(answer)
    except (ValueError, TypeError):
        return None


def _names(actions: tuple[Action, ...]) -> str:
    return ", ".join(a.name for a in actions)
