"""Reading the env's observations, and writing them for the exact analysis.

Two directions, both following the env's documented encodings (the field
layout of :class:`blackjack_env.envs.BlackjackEnv`, whose sizes come from
:mod:`blackjack_env.envs.view`):

* :func:`decode` reads any observation mode into an :class:`ObsView` (the
  fields fixed agents need: phase, total, softness, upcard, what is allowed);
* :func:`encode_state` turns the analysis's
  :class:`~blackjack_env.analysis.DecisionState` into the observation the env
  shows in that situation (and :func:`state_mask` into its action mask), so an
  agent's greedy policy can be handed to
  :func:`blackjack_env.analysis.evaluate_policy` and graded exactly
  (:func:`decision_policy`). A test plays rounds in the env and checks that
  this encoding equals the env's own observation at every decision.

The one field the analysis's state does not carry is the *hand index* of a
split hand (the evaluator treats the hands of a split alike): an unsplit hand
is encoded with index 0 and every split hand with index 1, so the exact grade
is exact for agents whose choice on split hands does not depend on which split
hand they play. The true count of an infinite deck is always 0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from blackjack_env.analysis.strategy import table_state as analysis_table_state
from blackjack_env.engine import Action, Rules, Table
from blackjack_env.envs import view as V
from blackjack_env.envs.view.layout import Layout, ObsMode

__all__ = [
    "ObsView",
    "decision_policy",
    "decode",
    "encode_state",
    "state_mask",
    "table_state",
]

# Phases (``envs.core.Decision``); the fields' positions are in blackjack_env.envs.view.
_PLAY, _INSURANCE, _BET, _SETTLED = 0, 1, 2, 3


@dataclass(frozen=True)
class ObsView:
    """What a fixed agent reads from an observation (fields the mode lacks are None)."""

    phase: int
    total: int
    soft: bool
    dealer: int
    can_double: bool | None = None
    can_split: bool | None = None
    can_surrender: bool | None = None
    hand_index: int | None = None
    true_count: float | None = None


def decode(obs: Any, obs_mode: str) -> ObsView:
    """Read an observation of the given mode (see the env's docstring)."""
    if obs_mode == "tuple":
        t = [int(x) for x in obs]
        return ObsView(_PLAY, t[V.TUPLE_TOTAL], bool(t[V.TUPLE_SOFT]), t[V.TUPLE_UPCARD])
    if obs_mode == "multidiscrete":
        o = [int(x) for x in np.asarray(obs).reshape(-1)]
        return ObsView(o[V.MD_PHASE], o[V.MD_TOTAL], bool(o[V.MD_SOFT]), o[V.MD_UPCARD],
                       bool(o[V.MD_CAN_DOUBLE]), bool(o[V.MD_CAN_SPLIT]),
                       bool(o[V.MD_CAN_SURRENDER]), o[V.MD_HAND_INDEX],
                       float(o[V.MD_COUNT] - V.BUCKET_CLIP))
    if obs_mode in ("vector", "features"):  # the features begin with the vector
        v = np.asarray(obs, dtype=np.float64).reshape(-1)
        return ObsView(int(np.argmax(v[V.VEC_PHASE:V.VEC_PHASE + V.N_PHASES])),
                       int(np.rint(v[V.VEC_TOTAL] * V.MAX_TOTAL)), bool(v[V.VEC_SOFT] > 0.5),
                       int(np.rint(v[V.VEC_UPCARD] * V.UPCARD_HIGH)),
                       bool(v[V.VEC_CAN_DOUBLE] > 0.5), bool(v[V.VEC_CAN_SPLIT] > 0.5),
                       bool(v[V.VEC_CAN_SURRENDER] > 0.5), None,
                       float(v[V.VEC_TRUE_COUNT] * V.VEC_COUNT_SCALE))
    if obs_mode == "dict":
        return ObsView(int(obs["phase"]), int(obs["player_total"]), bool(obs["soft"]),
                       int(obs["dealer_upcard"]), None, None, None, int(obs["hand_index"]),
                       float(np.asarray(obs["true_count"]).reshape(-1)[0]))
    raise ValueError(
        f"obs_mode={obs_mode!r}; choose one of 'tuple', 'multidiscrete', 'vector', "
        f"'features', 'dict'"
    )


def _n_play(rules: Rules) -> int:
    return Layout(rules, ObsMode.MULTIDISCRETE).n_play


def state_mask(state: Any, rules: Rules) -> np.ndarray:
    """The env's int8 action mask in the situation ``state`` describes.

    Before the peek, the env's action 0 (STAND) is the "decline" answer.
    """
    mask = np.zeros(_n_play(rules), dtype=np.int8)
    for action in state.legal:
        index = int(Action.STAND) if action is Action.DECLINE else int(action)
        if index < mask.size:
            mask[index] = 1
    return mask


def encode_state(state: Any, rules: Rules, obs_mode: str, split_hand_index: int = 1) -> Any:
    """The env observation (in ``obs_mode``) of the decision ``state`` describes.

    ``split_hand_index``: the hand index shown for a split hand (clipped to the
    rules' hands; unsplit hands show 0).
    """
    if obs_mode == "tuple":
        return V.encode_tuple(state.total, state.dealer, int(state.soft))
    legal = state.legal
    phase = _INSURANCE if state.pre_peek else _PLAY
    if state.pre_peek:
        can = (0, 0, int(Action.SURRENDER in legal))
    else:
        can = (int(Action.DOUBLE in legal), int(Action.SPLIT in legal),
               int(Action.SURRENDER in legal))
    hands_max = rules.max_split_hands
    hand_index = min(split_hand_index, hands_max - 1) if state.split else 0
    if obs_mode == "multidiscrete":
        return V.encode_multidiscrete(phase, state.total, state.dealer, int(state.soft), *can,
                                      hand_index, 0.0)
    if obs_mode in ("vector", "features"):
        # no insurance step, no count and a full shoe: the analysis's infinite deck
        encode = V.encode_features if obs_mode == "features" else V.encode_vector
        return encode(phase, state.total, float(state.soft), state.dealer, *can, 0.0,
                      hand_index, hands_max, state.hands, state.cards,
                      float(state.pair is not None and state.cards == 2), 0.0, 1.0)
    raise ValueError(
        f"exact grading needs obs_mode 'tuple', 'multidiscrete', 'vector' or 'features', not "
        f"{obs_mode!r} "
        f"(the dict mode shows card compositions the analysis does not track)"
    )


def decision_policy(agent: Any, rules: Rules, obs_mode: str | None = None,
                    ambiguous: list[Any] | None = None, split_hand_index: int = 1
                    ) -> Callable[[Any], Action]:
    """The agent's greedy policy as ``policy(DecisionState) -> Action`` for the analysis.

    The env's answer 0 (STAND) before the peek is read as ``DECLINE``. If a list
    is given as ``ambiguous``, every split-hand state at which the agent would
    answer differently for another hand index is appended to it (for those the
    grade is not exact; see the module doc). ``split_hand_index``: see
    :func:`encode_state`.
    """
    mode = obs_mode or agent.obs_mode

    def answer(obs: Any, mask: np.ndarray) -> Action:
        return Action(int(agent.act(obs, mask)))

    def policy(state: Any) -> Action:
        obs = encode_state(state, rules, mode, split_hand_index)
        mask = state_mask(state, rules)
        action = answer(obs, mask)
        if ambiguous is not None and state.split and mode in ("multidiscrete", "vector"):
            hands_max = rules.max_split_hands
            for index in range(hands_max):
                other = np.array(obs, copy=True)
                if mode == "multidiscrete":
                    other[V.MD_HAND_INDEX] = index
                else:
                    other[V.VEC_HAND_INDEX] = index / max(1, hands_max - 1)
                if answer(other, mask) is not action:
                    ambiguous.append(state)
                    break
        if state.pre_peek:
            return Action.SURRENDER if action is Action.SURRENDER else Action.DECLINE
        return action

    return policy


def table_state(table: Table) -> Any:
    """The analysis's ``DecisionState`` of the decision the table awaits (never ``INSURE``):
    :func:`blackjack_env.analysis.strategy.table_state`, the one definition (imported when
    called: the analysis loads only for grading).

    Raises ``ValueError`` when no decision is awaited.
    """
    return analysis_table_state(table)
