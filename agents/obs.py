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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from blackjack_env.analysis.strategy import table_state as analysis_table_state
from blackjack_env.engine import Action, Rules, Table
from blackjack_env.envs import view as V
from blackjack_env.envs.view.layout import Layout, ObsMode, features_of

__all__ = [
    "HAND_INDEX_MODES",
    "ObsView",
    "decision_policy",
    "decode",
    "encode_state",
    "encode_states",
    "n_play_actions",
    "state_mask",
    "state_masks",
    "table_state",
]

#: The observation modes that show a split hand's index (the one field the analysis's
#: states lack; see the module doc).
HAND_INDEX_MODES: tuple[str, ...] = ("multidiscrete", "vector", "features")

# Phases (``envs.step.Decision``); the fields' positions are in blackjack_env.envs.view.
_PLAY, _INSURANCE, _BET, _SETTLED = 0, 1, 2, 3
#: The count facts of the analysis's states: an infinite deck, a full shoe.
_NO_COUNT = {"true_count": 0.0, "count_bucket": V.BUCKET_CLIP, "shoe_left": 1.0}


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


def n_play_actions(rules: Rules) -> int:
    """The env's play actions under ``rules`` (the width of :func:`state_mask`): 2 when
    the rules allow only stand and hit, else 5 (the env's ``Layout.n_play``)."""
    return Layout(rules, ObsMode.MULTIDISCRETE).n_play


def state_mask(state: Any, rules: Rules) -> np.ndarray:
    """The env's int8 action mask in the situation ``state`` describes.

    Before the peek, the env's action 0 (STAND) is the "decline" answer.
    """
    mask = np.zeros(n_play_actions(rules), dtype=np.int8)
    for action in state.legal:
        index = int(Action.STAND) if action is Action.DECLINE else int(action)
        if index < mask.size:
            mask[index] = 1
    return mask


def _rules_carried(obs: Any, rules: Rules, obs_mode: str, observe_rules: bool) -> Any:
    """``obs`` with the rule features appended when ``observe_rules`` (as the env appends
    them: ``fields.append_rules`` of ``fields.rule_features(rules)``)."""
    if not observe_rules:
        return obs
    if obs_mode not in ("vector", "features"):
        raise ValueError(
            f"observe_rules=True: the {obs_mode!r} observation cannot carry the rules; the "
            f"rule features follow the 'vector' and 'features' observations (and are the "
            f"'rules' key of 'dict')"
        )
    return V.append_rules(obs, features_of(rules), np)  # (computed once per rule set)


def encode_state(state: Any, rules: Rules, obs_mode: str, split_hand_index: int = 1,
                 observe_rules: bool = False) -> Any:
    """The env observation (in ``obs_mode``) of the decision ``state`` describes.

    ``split_hand_index``: the hand index shown for a split hand (clipped to the
    rules' hands; unsplit hands show 0). ``observe_rules``: the observation of an env made
    with ``observe_rules=True`` (the rule features appended; ``"vector"`` and
    ``"features"`` only). :func:`encode_states` encodes many states at once, the same
    values.
    """
    if obs_mode == "tuple":
        if observe_rules:
            _rules_carried(None, rules, obs_mode, observe_rules)  # (raises)
        return V.encode("tuple", {"total": state.total, "upcard": state.dealer,
                                  "soft": int(state.soft)})
    legal = state.legal
    phase = _INSURANCE if state.pre_peek else _PLAY
    if state.pre_peek:
        can = (0, 0, int(Action.SURRENDER in legal))
    else:
        can = (int(Action.DOUBLE in legal), int(Action.SPLIT in legal),
               int(Action.SURRENDER in legal))
    hands_max = rules.max_split_hands
    hand_index = min(split_hand_index, hands_max - 1) if state.split else 0
    # no insurance step, no count and a full shoe: the analysis's infinite deck
    facts = {"phase": phase, "total": state.total, "soft": float(state.soft),
             "upcard": state.dealer, "can_double": can[0], "can_split": can[1],
             "can_surrender": can[2], "can_insure": 0.0, "hand_index": hand_index,
             "num_hands": state.hands, "cards": state.cards,
             "pair": float(state.pair is not None and state.cards == 2),
             **_NO_COUNT}  # fmt: skip
    if obs_mode == "multidiscrete":
        _rules_carried(None, rules, obs_mode, observe_rules)
        facts["soft"] = int(state.soft)
        return V.encode(obs_mode, facts, hands_max)
    if obs_mode in ("vector", "features"):
        return _rules_carried(V.encode(obs_mode, facts, hands_max), rules, obs_mode,
                              observe_rules)
    raise ValueError(
        f"exact grading needs obs_mode 'tuple', 'multidiscrete', 'vector' or 'features', not "
        f"{obs_mode!r} "
        f"(the dict mode shows card compositions the analysis does not track)"
    )


def encode_states(states: Sequence[Any], rules: Rules, obs_mode: str,
                  split_hand_index: int = 1, observe_rules: bool = False) -> np.ndarray:
    """:func:`encode_state` of every state at once: ``(len(states), size)``, row ``i`` equal
    to ``encode_state(states[i], rules, obs_mode, split_hand_index, observe_rules)`` (the
    same encoders of ``blackjack_env.envs.view``, given arrays; a test checks the rows).
    The ``"multidiscrete"``, ``"vector"`` and ``"features"`` modes (the tuple mode's
    observation is a tuple: :func:`encode_state`)."""
    if obs_mode not in ("multidiscrete", "vector", "features"):
        raise ValueError(
            f"encode_states encodes the 'multidiscrete', 'vector' and 'features' "
            f"observations, not {obs_mode!r} (encode_state gives the tuple one; the dict mode "
            f"shows card compositions the analysis does not track)"
        )
    n = len(states)
    pre = np.fromiter((s.pre_peek for s in states), bool, n)
    total = np.fromiter((s.total for s in states), np.int64, n)
    soft = np.fromiter((s.soft for s in states), np.int64, n)
    dealer = np.fromiter((s.dealer for s in states), np.int64, n)
    split = np.fromiter((s.split for s in states), bool, n)
    legal = [s.legal for s in states]
    can_double = np.fromiter((Action.DOUBLE in lg for lg in legal), np.int64, n) * ~pre
    can_split = np.fromiter((Action.SPLIT in lg for lg in legal), np.int64, n) * ~pre
    can_surrender = np.fromiter((Action.SURRENDER in lg for lg in legal), np.int64, n)
    phase = np.where(pre, _INSURANCE, _PLAY)
    hands_max = rules.max_split_hands
    hand_index = np.where(split, min(split_hand_index, hands_max - 1), 0)
    hands = np.fromiter((s.hands for s in states), np.int64, n)
    cards = np.fromiter((s.cards for s in states), np.int64, n)
    pair = np.fromiter((s.pair is not None and s.cards == 2 for s in states), np.float64, n)
    facts = {"phase": phase, "total": total, "soft": soft, "upcard": dealer,
             "can_double": can_double, "can_split": can_split, "can_surrender": can_surrender,
             "can_insure": 0.0, "hand_index": hand_index, "num_hands": hands, "cards": cards,
             "pair": pair, **_NO_COUNT}  # fmt: skip
    if obs_mode == "multidiscrete":
        _rules_carried(None, rules, obs_mode, observe_rules)
        return np.asarray(V.encode(obs_mode, facts, hands_max))
    facts["soft"] = soft.astype(np.float64)
    obs = V.encode(obs_mode, facts, hands_max)
    return np.asarray(_rules_carried(obs, rules, obs_mode, observe_rules))


def state_masks(states: Sequence[Any], rules: Rules, n_actions: int | None = None
                ) -> np.ndarray:
    """:func:`state_mask` of every state at once, int8 ``(len(states), n_actions)``
    (``n_actions``: at least the rules' play actions, ``None`` for exactly those; the
    extra columns are 0)."""
    n_play = n_play_actions(rules)
    width = n_play if n_actions is None else n_actions
    if width < n_play:
        raise ValueError(f"n_actions={n_actions}: these rules have {n_play} play actions")
    rows: dict[tuple[Action, ...], int] = {}  # one row per set of legal actions
    which = np.fromiter((rows.setdefault(s.legal, len(rows)) for s in states), np.int64,
                        len(states))
    table = np.zeros((max(1, len(rows)), width), dtype=np.int8)
    for legal, i in rows.items():
        for action in legal:
            index = int(Action.STAND) if action is Action.DECLINE else int(action)
            if index < n_play:
                table[i, index] = 1
    return table[which]


def decision_policy(agent: Any, rules: Rules, obs_mode: str | None = None,
                    ambiguous: list[Any] | None = None, split_hand_index: int = 1,
                    observe_rules: bool | None = None,
                    answers: dict[Any, Action] | None = None) -> Callable[[Any], Action]:
    """The agent's greedy policy as ``policy(DecisionState) -> Action`` for the analysis.

    The env's answer 0 (STAND) before the peek is read as ``DECLINE``. If a list
    is given as ``ambiguous``, every split-hand state at which the agent would
    answer differently for another hand index is appended to it (for those the
    grade is not exact; see the module doc). ``split_hand_index``: see
    :func:`encode_state`. ``observe_rules``: whether the agent's observation carries
    the rule features (default: the agent's own ``observe_rules``, False when it has
    none).

    The agent is asked once per distinct observation and mask (a greedy agent answers
    alike each time); ``answers``, a dict, keeps those answers across policies of one agent
    (grading an agent on several hand indices asks mostly the same observations). A state
    is still appended to ``ambiguous`` each time the analysis asks it.
    """
    mode = obs_mode or agent.obs_mode
    carry = bool(getattr(agent, "observe_rules", False)) if observe_rules is None \
        else observe_rules
    # the finite-shoe grade asks a state again under each composition of the shoe that
    # reaches it (an SB3 DQN on shoe-play: 24,080 questions of 5,348 states, whose 37,212
    # observations with the other hand indices were 9 of its 14 s)
    known: dict[Any, tuple[Action, bool]] = {}
    said = {} if answers is None else answers

    def answer(obs: Any, mask: np.ndarray) -> Action:
        key = (obs.tobytes() if isinstance(obs, np.ndarray) else obs, mask.tobytes())
        got = said.get(key)
        if got is None:
            got = said[key] = Action(int(agent.act(obs, mask)))
        return got

    def decide(state: Any) -> tuple[Action, bool]:
        obs = encode_state(state, rules, mode, split_hand_index, carry)
        mask = state_mask(state, rules)
        action = answer(obs, mask)
        if ambiguous is not None and state.split and mode in HAND_INDEX_MODES:
            hands_max = rules.max_split_hands
            for index in range(hands_max):
                other = np.array(obs, copy=True)
                if mode == "multidiscrete":
                    other[V.MD_HAND_INDEX] = index
                else:
                    other[V.VEC_HAND_INDEX] = index / max(1, hands_max - 1)
                if answer(other, mask) is not action:
                    return action, True
        return action, False

    def policy(state: Any) -> Action:
        got = known.get(state)
        if got is None:
            got = known[state] = decide(state)
        action, depends = got
        if depends and ambiguous is not None:
            ambiguous.append(state)
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
