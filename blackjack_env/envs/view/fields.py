"""The learner's view, defined once: every observation mode's fields and its encoders.

Each mode's fields (their positions, ranges and dtypes) are named here and nowhere
else; the single env (:mod:`~blackjack_env.envs.view.layout` and the compiled
:mod:`~blackjack_env.envs.single.core`), the batched env (:mod:`~blackjack_env.envs.vector`),
the multi-agent env (through the single env's layout), ``blackjack_env.agents.obs``
(decoding, and encoding the analysis's states for exact grading) and the simulator
(:mod:`~blackjack_env.simulate`) read them from here. The encoders below take the
field values, as scalars for one table or as arrays of shape ``(N,)`` for ``N``
tables, and lay them out: the same function writes an observation of the single env
and a batch of the batched env, so both give bit-identical values.

The meaning of each field is specified in the docstring of
:class:`~blackjack_env.envs.single.BlackjackEnv` ("Observation Space"); adding
a field is one edit here plus its line there.

``"tuple"`` (``Blackjack-v1``'s): (player total, dealer upcard, usable ace).

``"multidiscrete"``: ``MD_*`` positions, sizes :func:`multidiscrete_nvec`; the
true count is bucketed by :func:`count_bucket`.

``"vector"``: ``VEC_*`` positions in a float32 array of ``VECTOR_SIZE``; every entry
in [0, 1] except ``VEC_TRUE_COUNT`` in [-1, 1].

``"features"``: the ``"vector"`` observation (its ``VECTOR_SIZE`` entries, unchanged)
followed by one-hot columns of the hand total (``FEAT_TOTAL``, ``MAX_TOTAL + 1``
entries), the upcard (``FEAT_UPCARD``, ``UPCARD_HIGH + 1``) and the cards in the hand,
at most ``VEC_CARDS_SCALE`` (``FEAT_CARDS``, 13); float32 ``FEATURES_SIZE`` entries in
[0, 1] except ``VEC_TRUE_COUNT``. For a network that reads the raw numbers (a plain MLP
in JAX): the vector shows the total and the upcard as single scaled numbers, and a tanh
MLP must carve every threshold of the chart out of each; the one-hot columns give it
each value as its own input (the columns are those ``agents/mlp.py``'s
``VECTOR_FEATURES`` appends for the project's PPO). Tools that one-hot-encode a
``MultiDiscrete`` observation themselves (stable-baselines3) do the same from
``"multidiscrete"``.

``"dict"``: the keys of :func:`dict_space`; count fields in ``0..COUNT_HIGH``.

Rule features (``observe_rules=True``): the ``"vector"`` and ``"features"`` observations
end with :func:`rule_features` of the table's rules (:func:`append_rules`), and the
``"dict"`` observation has the key ``"rules"`` (:data:`DICT_RULES_KEY`) holding them:
``RULES_SIZE`` float32 entries, every one in [0, 1], the same length whatever the rules.
Each enum field is a one-hot group ``field=value`` (one entry per member, in the enum's
order), each flag 0 / 1, each number scaled; :data:`RULE_FEATURE_TABLE` gives every
entry's name and meaning (the docs render it), :data:`RULE_FEATURES` the names in order.
Not encoded: ``max_seats``, ``min_bet`` and ``max_bet`` (table limits, not rules of
play: the bet sizes they allow show in the action mask); two rule sets that differ in
any other field differ in their features.

The single env's ``"multidiscrete"`` observation is made in the compiled
``LearnerView.observe``, which caches :func:`encode_multidiscrete`'s arrays keyed by
every field but the count (a new field must join that key); a test checks it against
:func:`encode_multidiscrete` over played rounds.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Final

import numpy as np
from gymnasium import spaces

from blackjack_env.engine.rules import (
    DoubleRule,
    HoleCard,
    Rules,
    Settlement,
    SplitBet,
    SplitBy,
    Surrender,
    TieRule,
)

__all__ = [
    "BUCKET_CLIP",
    "CHIP_BOUND",
    "COUNT_CLIP",
    "COUNT_HIGH",
    "DICT_KEYS",
    "DICT_RULES_KEY",
    "FEATURES_SIZE",
    "FEAT_CARDS",
    "FEAT_CARDS_SIZE",
    "FEAT_TOTAL",
    "FEAT_UPCARD",
    "MAX_TOTAL",
    "MD_CAN_DOUBLE",
    "MD_CAN_SPLIT",
    "MD_CAN_SURRENDER",
    "MD_COUNT",
    "MD_HAND_INDEX",
    "MD_PHASE",
    "MD_SIZE",
    "MD_SOFT",
    "MD_TOTAL",
    "MD_UPCARD",
    "N_PHASES",
    "RULES_SIZE",
    "RULE_FEATURES",
    "TUPLE_SOFT",
    "TUPLE_TOTAL",
    "TUPLE_UPCARD",
    "UPCARD_HIGH",
    "VECTOR_SIZE",
    "VEC_CAN_DOUBLE",
    "VEC_CAN_INSURE",
    "VEC_CAN_SPLIT",
    "VEC_CAN_SURRENDER",
    "VEC_CARDS",
    "VEC_CARDS_SCALE",
    "VEC_COUNT_SCALE",
    "VEC_HAND_INDEX",
    "VEC_NUM_HANDS",
    "VEC_PAIR",
    "VEC_PHASE",
    "VEC_SHOE",
    "VEC_SOFT",
    "VEC_TOTAL",
    "VEC_TRUE_COUNT",
    "VEC_UPCARD",
    "append_rules",
    "count_bucket",
    "dict_space",
    "encode_dict",
    "encode_features",
    "encode_multidiscrete",
    "encode_tuple",
    "encode_vector",
    "features_space",
    "multidiscrete_nvec",
    "observation_space",
    "rule_features",
    "rules_space",
    "tuple_space",
    "vector_space",
]


# ------------------------------------------------------------------ shared bounds
#: Largest hand total an observation can show (hard 21 hit with a 10 gives 31).
MAX_TOTAL: Final = 31
#: The dealer upcard's point value lies in 0 (before the deal) .. 10.
UPCARD_HIGH: Final = 10
#: Observation phases (``core.Decision``): PLAY, INSURANCE, BET, SETTLED.
N_PHASES: Final = 4
#: Count-like ``Box`` fields of the dict mode lie in ``0..COUNT_HIGH``.
COUNT_HIGH: Final = 255
#: The dict mode's true count is clipped to ``[-COUNT_CLIP, COUNT_CLIP]``.
COUNT_CLIP: Final = 20.0
#: Bound of the dict mode's chip fields (bet, bankroll) in base bets.
CHIP_BOUND: Final = 1e9
#: The multidiscrete true count: rounded, clipped to ``-BUCKET_CLIP..BUCKET_CLIP``,
#: plus ``BUCKET_CLIP`` (so it lies in ``0..2 * BUCKET_CLIP``).
BUCKET_CLIP: Final = 5

# ------------------------------------------------------------------ "tuple"
TUPLE_TOTAL: Final = 0
TUPLE_UPCARD: Final = 1
TUPLE_SOFT: Final = 2

# ------------------------------------------------------------------ "multidiscrete"
MD_PHASE: Final = 0
MD_TOTAL: Final = 1
MD_UPCARD: Final = 2
MD_SOFT: Final = 3
MD_CAN_DOUBLE: Final = 4
MD_CAN_SPLIT: Final = 5
MD_CAN_SURRENDER: Final = 6
MD_HAND_INDEX: Final = 7
MD_COUNT: Final = 8
MD_SIZE: Final = 9

# ------------------------------------------------------------------ "vector"
VEC_PHASE: Final = 0  # one-hot over N_PHASES entries, 0..3
VEC_TOTAL: Final = 4  # total / MAX_TOTAL
VEC_SOFT: Final = 5
VEC_UPCARD: Final = 6  # upcard / UPCARD_HIGH
VEC_CAN_DOUBLE: Final = 7
VEC_CAN_SPLIT: Final = 8
VEC_CAN_SURRENDER: Final = 9
VEC_CAN_INSURE: Final = 10
VEC_HAND_INDEX: Final = 11  # index / max(1, H - 1)
VEC_NUM_HANDS: Final = 12  # hands / H
VEC_CARDS: Final = 13  # cards in the hand / VEC_CARDS_SCALE, at most 1
VEC_PAIR: Final = 14
VEC_TRUE_COUNT: Final = 15  # true count / VEC_COUNT_SCALE, clipped to [-1, 1]
VEC_SHOE: Final = 16  # fraction of the shoe not yet dealt
VECTOR_SIZE: Final = 17
VEC_CARDS_SCALE: Final = 12.0
VEC_COUNT_SCALE: Final = 10.0
# the encoders take each mode's fields in position order (the positions are consecutive:
# a new field is a new position, a line in its encoder's tuple, and the size moved on)
assert (VEC_PHASE, VEC_TOTAL, VEC_SHOE + 1) == (0, N_PHASES, VECTOR_SIZE)
assert (MD_PHASE, MD_COUNT + 1) == (0, MD_SIZE)

# ------------------------------------------------------------------ "features"
FEAT_TOTAL: Final = VECTOR_SIZE  # one-hot of the total, MAX_TOTAL + 1 entries
FEAT_UPCARD: Final = FEAT_TOTAL + MAX_TOTAL + 1  # one-hot of the upcard, UPCARD_HIGH + 1
FEAT_CARDS: Final = FEAT_UPCARD + UPCARD_HIGH + 1  # one-hot of min(cards, 12)
FEAT_CARDS_SIZE: Final = int(VEC_CARDS_SCALE) + 1
FEATURES_SIZE: Final = FEAT_CARDS + FEAT_CARDS_SIZE

# ------------------------------------------------------------------ "dict"
#: The dict mode's keys, in order.
DICT_KEYS: Final = (
    "phase",
    "player_total",
    "soft",
    "dealer_upcard",
    "hand_index",
    "num_hands",
    "hand_cards",
    "dealer_cards",
    "seat_cards",
    "unseen_cards",
    "true_count",
    "bet",
    "bankroll",
    "action_mask",
)



# ------------------------------------------------------------------ rule features
#: The dict mode's key holding the rule features (with ``observe_rules=True``).
DICT_RULES_KEY: Final = "rules"
#: Scales of the numeric rule features (each field divided by it lies in [0, 1]).
RULES_DECKS_SCALE: Final = 8.0
RULES_SEATS_SCALE: Final = 7.0
RULES_SPLIT_SCALE: Final = 7.0  # max_split_hands - 1: 0 (no split) .. 7 (eight hands)
RULES_VALUE_SCALE: Final = 10.0

_RULE_FLAGS: Final = (
    ("natural_beats_21", "1: a player's natural beats a dealer 21 of three or more cards"),
    ("dealer_natural_beats_21", "1: a dealer natural beats a player's multi-card 21"),
    ("natural_ends_hand", "1: a natural takes no further cards"),
    ("natural_paid_at_deal", "1: a natural is paid at once, before the dealer's hand is known"),
    ("blackjack_after_split", "1: a two-card 21 on a split hand counts as a natural"),
)


def _one_hot_rows(field: str, enum: type[Enum], what: str) -> list[tuple[str, str]]:
    return [(f"{field}={m.value}", f"1 when {what} is {m.value!r}") for m in enum]


#: ``(name, meaning)`` of every rule feature, in order (:func:`rule_features`); every
#: entry lies in [0, 1].
RULE_FEATURE_TABLE: Final[tuple[tuple[str, str], ...]] = tuple([
    ("infinite_deck", "1 for an infinite deck (decks=None)"),
    ("decks", "decks / 8 (decks per group of seats when seats_per_deck is set); 0 for an "
              "infinite deck"),
    ("seats_per_deck", "seats_per_deck / 7; 0 when None"),
    ("penetration", "the fraction of the shoe dealt before a reshuffle; 0 when None "
                    "(reshuffled before every round) or for an infinite deck"),
    ("dealer_hits_soft_17", "1 under H17, 0 under S17"),
    *_one_hot_rows("hole_card", HoleCard, "the hole-card rule"),
    ("blackjack_payout", "r / (1 + r) of the payout ratio r: 1:1 is 0.5, 6:5 0.545, 3:2 "
                         "0.6, 2:1 0.667 (one to one with the ratio)"),
    *_RULE_FLAGS,
    *_one_hot_rows("ties", TieRule, "the tie rule"),
    *_one_hot_rows("settlement", Settlement, "the settlement"),
    *_one_hot_rows("double", DoubleRule, "the double rule"),
    ("double_after_split", "1: doubling after a split is allowed (DAS)"),
    ("max_split_hands", "(max_split_hands - 1) / 7: 0 no splitting .. 1 eight hands"),
    ("resplit_aces", "1: split aces may be split again"),
    ("hit_split_aces", "1: split aces may be hit"),
    *_one_hot_rows("split_by", SplitBy, "what makes a pair"),
    *_one_hot_rows("split_bet", SplitBet, "the bet on split hands"),
    *_one_hot_rows("surrender", Surrender, "the surrender rule"),
    ("insurance", "1: insurance and even money are offered"),
    ("auto_stand_21", "1: a hand reaching 21 stands by itself"),
    ("bet_raising", "1: the bet may be raised after each card"),
    ("seats", "seats at the table / 7"),
    *[(f"value_{letter}", f"the point value of a {letter} / 10 (card_values; the ace is "
                          f"always 1 or 11 and has no entry)")
      for letter in ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")],
])
#: The rule features' names, in order (the entries of :func:`rule_features`).
RULE_FEATURES: Final[tuple[str, ...]] = tuple(name for name, _ in RULE_FEATURE_TABLE)
#: The number of rule features.
RULES_SIZE: Final = len(RULE_FEATURES)


def rule_features(rules: Rules) -> np.ndarray:
    """The rule features of ``rules``: float32 ``(RULES_SIZE,)``, every entry in [0, 1],
    laid out as :data:`RULE_FEATURE_TABLE` says (a new array)."""
    if not isinstance(rules, Rules):
        raise ValueError(f"rule_features needs a Rules, got {type(rules).__name__}")
    infinite = rules.decks is None
    ratio = rules.blackjack_payout
    values: list[float] = [
        float(infinite),
        0.0 if rules.decks is None else rules.decks / RULES_DECKS_SCALE,
        0.0 if rules.seats_per_deck is None else rules.seats_per_deck / RULES_SEATS_SCALE,
        0.0 if infinite or rules.penetration is None else float(rules.penetration),
        float(rules.dealer_hits_soft_17),
        *(float(rules.hole_card is m) for m in HoleCard),
        float(ratio / (1 + ratio)),
        *(float(getattr(rules, name)) for name, _ in _RULE_FLAGS),
        *(float(rules.ties is m) for m in TieRule),
        *(float(rules.settlement is m) for m in Settlement),
        *(float(rules.double is m) for m in DoubleRule),
        float(rules.double_after_split),
        (rules.max_split_hands - 1) / RULES_SPLIT_SCALE,
        float(rules.resplit_aces),
        float(rules.hit_split_aces),
        *(float(rules.split_by is m) for m in SplitBy),
        *(float(rules.split_bet is m) for m in SplitBet),
        *(float(rules.surrender is m) for m in Surrender),
        float(rules.insurance),
        float(rules.auto_stand_21),
        float(rules.bet_raising),
        rules.seats / RULES_SEATS_SCALE,
        *(v / RULES_VALUE_SCALE for v in rules.card_values[1:]),
    ]
    return np.array(values, dtype=np.float32)


# ======================================================================== spaces
def tuple_space() -> spaces.Tuple:
    return spaces.Tuple(
        (spaces.Discrete(MAX_TOTAL + 1), spaces.Discrete(UPCARD_HIGH + 1), spaces.Discrete(2))
    )


def multidiscrete_nvec(max_hands: int) -> np.ndarray:
    """The multidiscrete space's sizes, field by field (``max_hands``: ``H``)."""
    nvec = np.empty(MD_SIZE, dtype=np.int64)
    nvec[MD_PHASE] = N_PHASES
    nvec[MD_TOTAL] = MAX_TOTAL + 1
    nvec[MD_UPCARD] = UPCARD_HIGH + 1
    nvec[MD_SOFT] = 2
    nvec[MD_CAN_DOUBLE] = 2
    nvec[MD_CAN_SPLIT] = 2
    nvec[MD_CAN_SURRENDER] = 2
    nvec[MD_HAND_INDEX] = max_hands
    nvec[MD_COUNT] = 2 * BUCKET_CLIP + 1
    return nvec


def vector_space() -> spaces.Box:
    low = np.zeros(VECTOR_SIZE, dtype=np.float32)
    low[VEC_TRUE_COUNT] = -1.0
    return spaces.Box(low, np.ones(VECTOR_SIZE, dtype=np.float32), dtype=np.float32)


def features_space() -> spaces.Box:
    """The ``"features"`` space: the vector's bounds, then ``[0, 1]`` one-hot columns."""
    low = np.zeros(FEATURES_SIZE, dtype=np.float32)
    low[:VECTOR_SIZE] = vector_space().low
    return spaces.Box(low, np.ones(FEATURES_SIZE, dtype=np.float32), dtype=np.float32)


def dict_space(max_hands: int, seats: int, n_actions: int) -> spaces.Dict:
    count = spaces.Box(0, COUNT_HIGH, shape=(13,), dtype=np.int64)
    fields: dict[str, spaces.Space[Any]] = {
        "phase": spaces.Discrete(N_PHASES),
        "player_total": spaces.Discrete(MAX_TOTAL + 1),
        "soft": spaces.Discrete(2),
        "dealer_upcard": spaces.Discrete(UPCARD_HIGH + 1),
        "hand_index": spaces.Discrete(max_hands),
        "num_hands": spaces.Discrete(max_hands + 1),
        "hand_cards": count,
        "dealer_cards": count,
        "seat_cards": spaces.Box(0, COUNT_HIGH, shape=(seats * 13,), dtype=np.int64),
        "unseen_cards": count,
        "true_count": spaces.Box(-COUNT_CLIP, COUNT_CLIP, shape=(1,), dtype=np.float32),
        "bet": spaces.Box(0.0, CHIP_BOUND, shape=(1,), dtype=np.float32),
        "bankroll": spaces.Box(-CHIP_BOUND, CHIP_BOUND, shape=(1,), dtype=np.float32),
        "action_mask": spaces.MultiBinary(n_actions),
    }
    assert tuple(fields) == DICT_KEYS
    return spaces.Dict(fields)


def rules_space() -> spaces.Box:
    """The rule features' space: float32 ``(RULES_SIZE,)`` in [0, 1]."""
    return spaces.Box(0.0, 1.0, shape=(RULES_SIZE,), dtype=np.float32)


def _with_rules(box: spaces.Box) -> spaces.Box:
    """A flat observation's ``Box`` followed by the rule features' bounds."""
    rules = rules_space()
    return spaces.Box(
        np.concatenate([box.low, rules.low]), np.concatenate([box.high, rules.high]),
        dtype=np.float32,
    )


def observation_space(
    obs_mode: str, max_hands: int, seats: int, n_actions: int, observe_rules: bool = False
) -> spaces.Space[Any]:
    """The observation space of ``obs_mode`` (``max_hands``: ``rules.max_split_hands``,
    or the rule space's largest); ``observe_rules``: with the rule features (the flat
    modes' ``Box`` grows by ``RULES_SIZE``, the dict gains :data:`DICT_RULES_KEY`)."""
    if obs_mode == "tuple":
        return tuple_space()
    if obs_mode == "multidiscrete":
        return spaces.MultiDiscrete(multidiscrete_nvec(max_hands))
    if obs_mode == "vector":
        return _with_rules(vector_space()) if observe_rules else vector_space()
    if obs_mode == "features":
        return _with_rules(features_space()) if observe_rules else features_space()
    space = dict_space(max_hands, seats, n_actions)
    if observe_rules:
        space = spaces.Dict({**space.spaces, DICT_RULES_KEY: rules_space()})
    return space


# ======================================================================== encoders
# Each takes scalars (one table) or arrays of shape (N,) (N tables, a batch), and the
# array namespace ``xp`` of its inputs: ``numpy`` (the default: the single, batched and
# multi-agent envs) or ``jax.numpy`` (the JAX table, inside ``jit``; one table, vmapped).
# Each field's formula is written once and evaluated in the inputs' own arithmetic (numpy
# in float64 / int64, then stored in the observation's dtype; JAX in its dtypes), so both
# backends give what they gave when each had its own copy. Only the assembly differs:
# numpy writes into one preallocated array, jax.numpy (immutable arrays) stacks.


def encode_tuple(total: Any, up: Any, soft: Any) -> tuple[Any, Any, Any]:
    """The ``"tuple"`` observation (``TUPLE_*`` order). The single env's compiled
    ``LearnerView.observe`` returns this tuple inline (its hot path)."""
    return (total, up, soft)


def count_bucket(true_count: Any) -> Any:
    """The multidiscrete true-count field: ``clip(round(tc), -5, 5) + 5``, halves to
    even (``np.rint``, as Python's ``round``); float64 whole numbers."""
    bucket = np.rint(true_count)
    bucket = np.minimum(np.maximum(bucket, -float(BUCKET_CLIP)), float(BUCKET_CLIP))
    return bucket + float(BUCKET_CLIP)


def _assemble(values: tuple[Any, ...], first: int, out: Any, xp: Any) -> Any:
    """The observation with entries ``first, first + 1, ...`` set to ``values`` (in
    position order): numpy writes them into ``out`` (preallocated, ``(..., size)``: one
    table, or a batch), ``jax.numpy`` (immutable arrays; ``out`` gives the dtype and the
    entries before ``first``) stacks them, each converted to the dtype."""
    if xp is np:
        if out.ndim == 1:  # one table: one assignment (numpy converts the tuple)
            out[first : first + len(values)] = values
        else:
            field = out.T  # field[k]: column k of the batch
            for k, v in enumerate(values, first):
                field[k] = v
        return out
    head = [out[..., k] for k in range(first)]
    return xp.stack(head + [xp.asarray(v, out.dtype) for v in values], axis=-1)


def encode_multidiscrete(
    phase: Any,
    total: Any,
    up: Any,
    soft: Any,
    can_double: Any,
    can_split: Any,
    can_surrender: Any,
    hand_index: Any,
    true_count: Any,
    bucket: Any = None,
    xp: Any = np,
) -> Any:
    """The ``"multidiscrete"`` observation, ``(MD_SIZE,)`` or ``(N, MD_SIZE)``: int64
    with numpy, int32 with ``jax.numpy``.

    ``bucket``: the count field when the caller has it already (``count_bucket`` of
    the true count, e.g. looked up in a table of them, or the JAX table's exact integer
    bucket); ``true_count`` is then not read."""
    values = (  # MD_PHASE .. MD_COUNT, in position order
        phase,
        total,
        up,
        soft,
        can_double,
        can_split,
        can_surrender,
        hand_index,
        count_bucket(true_count) if bucket is None else bucket,
    )
    if xp is np:
        return _assemble(values, MD_PHASE, np.empty((*np.shape(total), MD_SIZE), np.int64), xp)
    return _assemble(values, MD_PHASE, xp.zeros((0,), xp.int32), xp)  # (int32, no head)


def _clip(x: Any, low: float, high: float, xp: Any = np) -> Any:
    """``x`` clipped to ``[low, high]``: with ``xp`` for an array, with Python's min / max
    for a scalar (the same value; a scalar observation is cheaper without numpy)."""
    if xp is not np or isinstance(x, np.ndarray):
        return xp.clip(x, low, high)
    return max(low, min(high, x))


def _at_most(x: Any, high: float, xp: Any = np) -> Any:
    if xp is not np or isinstance(x, np.ndarray):
        return xp.minimum(x, high)
    return min(high, x)


def _column(x: Any, low: float, high: float, xp: Any = np) -> Any:
    """``x`` clipped to ``[low, high]`` as a float32 field of shape ``(1,)`` (one table)
    or ``(N, 1)`` (a batch)."""
    if xp is not np or isinstance(x, np.ndarray):
        return xp.clip(x, low, high).astype(xp.float32)[..., None]
    return np.array([max(low, min(high, x))], dtype=np.float32)


def encode_vector(
    phase: Any,
    total: Any,
    soft: Any,
    up: Any,
    can_double: Any,
    can_split: Any,
    can_surrender: Any,
    can_insure: Any,
    hand_index: Any,
    max_hands: int,
    num_hands: Any,
    cards: Any,
    pair: Any,
    true_count: Any,
    shoe_left: Any,
    xp: Any = np,
) -> Any:
    """The ``"vector"`` observation, float32 ``(VECTOR_SIZE,)`` or ``(N, VECTOR_SIZE)``.

    ``cards``: cards in the focus hand; ``pair``: it is a pair of equal ranks;
    ``shoe_left``: the fraction of the shoe not yet dealt (1 for an infinite deck).
    """
    values = (  # VEC_TOTAL .. VEC_SHOE, in position order (after the phase one-hot)
        total / MAX_TOTAL,
        soft,
        up / float(UPCARD_HIGH),
        can_double,
        can_split,
        can_surrender,
        can_insure,
        hand_index / (max_hands - 1 if max_hands > 1 else 1),
        num_hands / max_hands,
        _at_most(cards / VEC_CARDS_SCALE, 1.0, xp),
        pair,
        _clip(true_count / VEC_COUNT_SCALE, -1.0, 1.0, xp),
        shoe_left,
    )
    if xp is not np:  # the phase one-hot, then the fields
        onehot = xp.stack([xp.asarray(phase == k, xp.float32) for k in range(N_PHASES)], -1)
        return _assemble(values, VEC_TOTAL, onehot, xp)
    if isinstance(total, np.ndarray):
        out = np.zeros((total.shape[0], VECTOR_SIZE), dtype=np.float32)
        out[np.arange(total.shape[0]), VEC_PHASE + phase] = 1.0
    else:
        out = np.zeros(VECTOR_SIZE, dtype=np.float32)
        out[VEC_PHASE + phase] = 1.0
    return _assemble(values, VEC_TOTAL, out, xp)


def _onehot(value: Any, size: int, xp: Any) -> Any:
    """float32 one-hot of the integer ``value`` (a scalar or ``(N,)``) over ``0..size - 1``
    (clipped into that range): ``(size,)`` or ``(N, size)``."""
    value = xp.clip(xp.asarray(value), 0, size - 1)
    return (value[..., None] == xp.arange(size)).astype(xp.float32)


def encode_features(
    phase: Any,
    total: Any,
    soft: Any,
    up: Any,
    can_double: Any,
    can_split: Any,
    can_surrender: Any,
    can_insure: Any,
    hand_index: Any,
    max_hands: int,
    num_hands: Any,
    cards: Any,
    pair: Any,
    true_count: Any,
    shoe_left: Any,
    xp: Any = np,
) -> Any:
    """The ``"features"`` observation, float32 ``(FEATURES_SIZE,)`` or
    ``(N, FEATURES_SIZE)``: :func:`encode_vector` of the same arguments, then the one-hot
    columns of ``total``, ``up`` and ``min(cards, VEC_CARDS_SCALE)`` (integers)."""
    vector = encode_vector(
        phase, total, soft, up, can_double, can_split, can_surrender, can_insure, hand_index,
        max_hands, num_hands, cards, pair, true_count, shoe_left, xp=xp,
    )  # fmt: skip
    return xp.concatenate(
        [
            vector,
            _onehot(total, MAX_TOTAL + 1, xp),
            _onehot(up, UPCARD_HIGH + 1, xp),
            _onehot(cards, FEAT_CARDS_SIZE, xp),
        ],
        axis=-1,
    )


def encode_dict(
    phase: Any,
    total: Any,
    soft: Any,
    up: Any,
    hand_index: Any,
    num_hands: Any,
    hand_cards: Any,
    dealer_cards: Any,
    seat_cards: Any,
    unseen_cards: Any,
    true_count: Any,
    stake: Any,
    bankroll: Any,
    action_mask: Any,
    xp: Any = np,
) -> dict[str, Any]:
    """The ``"dict"`` observation (keys :data:`DICT_KEYS`), for one table or a batch.

    The by-rank counts are given unclipped (``seat_cards`` flattened seat by seat),
    ``stake`` and ``bankroll`` in base bets; the bounds are applied here.
    """
    return {
        "phase": phase,
        "player_total": total,
        "soft": soft,
        "dealer_upcard": up,
        "hand_index": hand_index,
        "num_hands": num_hands,
        "hand_cards": xp.minimum(hand_cards, COUNT_HIGH),
        "dealer_cards": dealer_cards,
        "seat_cards": xp.minimum(seat_cards, COUNT_HIGH),
        "unseen_cards": xp.minimum(unseen_cards, COUNT_HIGH),
        "true_count": _column(true_count, -COUNT_CLIP, COUNT_CLIP, xp),
        "bet": _column(stake, -np.inf, CHIP_BOUND, xp),
        "bankroll": _column(bankroll, -CHIP_BOUND, CHIP_BOUND, xp),
        "action_mask": action_mask,
    }


def append_rules(obs: Any, features: Any, xp: Any = np) -> Any:
    """A flat observation (``"vector"`` or ``"features"``, ``(D,)`` or a batch ``(N, D)``)
    followed by rule features (``(RULES_SIZE,)``, shared by the batch, or ``(N,
    RULES_SIZE)``, one row per table): float32 ``(D + RULES_SIZE,)`` or ``(N, D +
    RULES_SIZE)``, with ``xp`` ``numpy`` or ``jax.numpy``."""
    features = xp.asarray(features, dtype=xp.float32)
    if features.ndim < obs.ndim:
        features = xp.broadcast_to(features, (*obs.shape[:-1], features.shape[-1]))
    return xp.concatenate([obs, features], axis=-1)
