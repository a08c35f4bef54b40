"""The learner's view, defined once: every observation mode's fields and its encoder.

Each mode is a list of named fields (:class:`Field`: the facts it reads, its formula,
its width and bounds), here and nowhere else: :data:`TUPLE_FIELDS`,
:data:`MULTIDISCRETE_FIELDS`, :data:`VECTOR_FIELDS`, :data:`FEATURES_FIELDS` and
:data:`DICT_FIELDS`. From those lists come the positions (``MD_*``, ``VEC_*``,
``FEAT_*``, :func:`positions`), the sizes, the spaces (:func:`observation_space`) and the
observations (:func:`encode`). Every backend hands the encoder the same *facts* by name
(:data:`FACTS`: the phase, the focus hand's total, the upcard, what is legal, the count,
...), each computed from its own state: the single env and the multi-agent table from an
engine table (:mod:`~blackjack_env.envs.view.layout` and the compiled
:mod:`~blackjack_env.envs.view.per_step`), the batched env from its arrays
(:mod:`~blackjack_env.envs.vector.observe`), the JAX table from its ``State``
(:mod:`blackjack_env.jax.observe`, with ``xp=jax.numpy``), and the analysis's decision
states (``blackjack_env.agents.obs``). The same function writes an observation of the
single env and a batch of the batched env, so both give bit-identical values.

Adding an observation field is one edit here: a :class:`Field` in its mode's list,
computed from the facts. Every env, the JAX table and the spaces then show it; the
single env's cached ``"multidiscrete"`` observations are keyed by the facts the mode's
fields read (:data:`MD_KEY_FACTS`), the count's fields written per step
(:data:`MD_PER_STEP`). A field that needs a fact no backend computes yet needs that
fact in each backend too. The meaning of each field is specified in the docstring of
:class:`~blackjack_env.envs.single.BlackjackEnv` ("Observation Space").

``"tuple"`` (``Blackjack-v1``'s): (player total, dealer upcard, usable ace).
``"multidiscrete"``: ints, sizes :func:`multidiscrete_nvec`; the true count is bucketed
by :func:`count_bucket` (the one computation of it, exact in integers). ``"vector"``:
float32, every entry in [0, 1] except ``VEC_TRUE_COUNT`` in [-1, 1]. ``"features"``:
the ``"vector"`` observation followed by one-hot columns of the hand total, the upcard
and the cards in the hand (for a network that reads the raw numbers, a plain MLP in
JAX: the vector shows the total and the upcard as single scaled numbers, and a tanh MLP
must carve every threshold of the chart out of each; the one-hot columns give it each
value as its own input). ``"dict"``: the keys of :data:`DICT_KEYS`; count fields in
``0..COUNT_HIGH``.

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
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any, Final, NamedTuple

import numpy as np
from gymnasium import spaces

from blackjack_env.engine.play import true_count_bucket
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
    "COUNT_FACTS",
    "COUNT_HIGH",
    "DICT_FIELDS",
    "DICT_KEYS",
    "DICT_RULES_KEY",
    "FACTS",
    "FEATURES_FIELDS",
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
    "MD_KEY_FACTS",
    "MD_PER_STEP",
    "MD_PHASE",
    "MD_SIZE",
    "MD_SOFT",
    "MD_TOTAL",
    "MD_UPCARD",
    "MODE_FIELDS",
    "MULTIDISCRETE_FIELDS",
    "N_PHASES",
    "RULES_SIZE",
    "RULE_FEATURES",
    "RULE_FEATURE_TABLE",
    "TUPLE_FIELDS",
    "TUPLE_PLAIN",
    "TUPLE_SOFT",
    "TUPLE_TOTAL",
    "TUPLE_UPCARD",
    "UPCARD_HIGH",
    "VECTOR_FIELDS",
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
    "DictField",
    "Facts",
    "Field",
    "append_rules",
    "count_bucket",
    "dict_space",
    "encode",
    "features_space",
    "multidiscrete_nvec",
    "observation_space",
    "positions",
    "reads",
    "rule_features",
    "rules_space",
    "tuple_space",
    "vector_space",
    "width",
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
#: The vector's scales: cards in the hand over ``VEC_CARDS_SCALE`` (at most 1), the true
#: count over ``VEC_COUNT_SCALE`` (clipped to [-1, 1]).
VEC_CARDS_SCALE: Final = 12.0
VEC_COUNT_SCALE: Final = 10.0

# ------------------------------------------------------------------ the facts
#: What every backend tells the encoders about the learner's situation, by name. Each
#: field below is a formula over these (scalars for one table, ``(N,)`` arrays for a
#: batch). A backend (the engine table of the single and multi-agent envs, the numpy
#: batch, the JAX ``State``, the analysis's decision states) computes each fact from its
#: own state, under this name; a field that reads only these facts is then in every
#: backend's observation with no edit there.
FACTS: Final[dict[str, str]] = {
    "phase": "the learner's decision (Decision: 0 PLAY, 1 INSURANCE, 2 BET, 3 SETTLED)",
    "total": "the focus hand's total (0 before the deal)",
    "soft": "1 when the total counts an ace as 11",
    "upcard": "the dealer upcard's point value (1 the ace; 0 before the deal)",
    "can_double": "1 when doubling is legal now",
    "can_split": "1 when splitting is legal now",
    "can_surrender": "1 when surrendering is legal now (also at the pre-peek step)",
    "can_insure": "1 when insuring is legal now (the pre-peek step, insurance_decisions)",
    "hand_index": "the focus hand's index among the seat's hands",
    "num_hands": "the hands the seat holds (after splits)",
    "cards": "the cards in the focus hand",
    "pair": "1 when the focus hand is a pair of equal ranks",
    "true_count": "the Hi-Lo true count of the cards seen since the shuffle (0 for an "
                  "infinite deck)",
    "count_bucket": "count_bucket(running count, cards not seen): the true count rounded "
                    "half to even, clipped to -5..5, plus 5 (5 for an infinite deck)",
    "shoe_left": "the fraction of the shoe not yet dealt (1 for an infinite deck)",
    "hand_cards": "the focus hand's cards by rank, ace..king",
    "dealer_cards": "the dealer's cards shown, by rank",
    "seat_cards": "every seat's cards by rank, seat after seat",
    "unseen_cards": "the cards not seen, by rank",
    "stake": "the focus hand's bet in base bets",
    "bankroll": "the learner's bankroll in base bets",
    "action_mask": "the legal actions (int8, one per action)",
}  # fmt: skip


class Field(NamedTuple):
    """One field of an observation mode: its name, the facts it reads, its value, its
    width and bounds.

    ``value(f, xp, max_hands)``: the field's value from the facts ``f`` (a mapping by
    name), in the array namespace ``xp`` (numpy, or ``jax.numpy``) and with ``max_hands``
    (the seat's most hands: the hand fields' scale); for a one-hot field (``size`` >
    1), the integer index whose entry is 1 (clipped into ``0..size - 1``). ``low`` /
    ``high``: a ``Box`` field's bounds; a ``MultiDiscrete`` / ``Discrete`` field's number
    of values is ``high`` (an int, or ``"hands"``: ``max_hands``)."""

    name: str
    reads: tuple[str, ...]
    value: Callable[[Any, Any, int], Any]
    size: int = 1
    low: float = 0.0
    high: float | str = 1.0
    meaning: str = ""


def _fact(name: str) -> Callable[[Any, Any, int], Any]:
    """The value of a field that is the fact ``name`` itself (``fact`` names it)."""

    def value(f: Any, xp: Any, h: int) -> Any:
        return f[name]

    value.fact = name  # type: ignore[attr-defined]
    return value


def _as_is(name: str, high: float | str, meaning: str = "") -> Field:
    """A field that is the fact ``name`` itself."""
    return Field(name, (name,), _fact(name), high=high, meaning=meaning or FACTS[name])


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


def count_bucket(running: Any, unseen: Any) -> Any:
    """The multidiscrete count field (the fact ``count_bucket``), one computation for every
    backend (each calls it on its running count and unseen cards; ints, numpy or
    ``jax.numpy`` arrays): the true count rounded half to even, clipped to
    ``-BUCKET_CLIP..BUCKET_CLIP``, plus ``BUCKET_CLIP``, in integers
    (:func:`~blackjack_env.engine.play.true_count_bucket`); ``BUCKET_CLIP`` when no card
    is unseen (an infinite deck)."""
    return true_count_bucket(running, unseen, BUCKET_CLIP)


# ------------------------------------------------------------------ the modes' fields
#: ``"tuple"`` (``Blackjack-v1``'s): ``Discrete`` fields.
TUPLE_FIELDS: Final[tuple[Field, ...]] = (
    _as_is("total", MAX_TOTAL + 1),
    _as_is("upcard", UPCARD_HIGH + 1),
    _as_is("soft", 2),
)
#: ``"multidiscrete"``: int fields, ``high`` values each.
MULTIDISCRETE_FIELDS: Final[tuple[Field, ...]] = (
    _as_is("phase", N_PHASES),
    _as_is("total", MAX_TOTAL + 1),
    _as_is("upcard", UPCARD_HIGH + 1),
    _as_is("soft", 2),
    _as_is("can_double", 2),
    _as_is("can_split", 2),
    _as_is("can_surrender", 2),
    _as_is("hand_index", "hands"),
    Field("count", ("count_bucket",), _fact("count_bucket"), high=2 * BUCKET_CLIP + 1,
          meaning=FACTS["count_bucket"]),
)
#: ``"vector"``: float32 fields in [0, 1] (the true count in [-1, 1]).
VECTOR_FIELDS: Final[tuple[Field, ...]] = (
    Field("phase", ("phase",), _fact("phase"), size=N_PHASES,
          meaning="one-hot of the decision (PLAY, INSURANCE, BET, SETTLED)"),
    Field("total", ("total",), lambda f, xp, h: f["total"] / MAX_TOTAL,
          meaning="the total / 31"),
    _as_is("soft", 1.0),
    Field("upcard", ("upcard",), lambda f, xp, h: f["upcard"] / float(UPCARD_HIGH),
          meaning="the upcard's value / 10"),
    _as_is("can_double", 1.0),
    _as_is("can_split", 1.0),
    _as_is("can_surrender", 1.0),
    _as_is("can_insure", 1.0),
    Field("hand_index", ("hand_index",),
          lambda f, xp, h: f["hand_index"] / (h - 1 if h > 1 else 1),
          meaning="the hand's index / (H - 1)"),
    Field("num_hands", ("num_hands",), lambda f, xp, h: f["num_hands"] / h,
          meaning="the hands held / H"),
    Field("cards", ("cards",),
          lambda f, xp, h: _at_most(f["cards"] / VEC_CARDS_SCALE, 1.0, xp),
          meaning="the cards in the hand / 12, at most 1"),
    _as_is("pair", 1.0),
    Field("true_count", ("true_count",),
          lambda f, xp, h: _clip(f["true_count"] / VEC_COUNT_SCALE, -1.0, 1.0, xp),
          low=-1.0, meaning="the true count / 10, clipped to [-1, 1]"),
    _as_is("shoe_left", 1.0),
)
#: ``"features"``: the vector's fields, then one-hot columns of the total, the upcard
#: and the cards in the hand (at most ``VEC_CARDS_SCALE``).
FEATURES_FIELDS: Final[tuple[Field, ...]] = (
    *VECTOR_FIELDS,
    Field("total_onehot", ("total",), _fact("total"), size=MAX_TOTAL + 1,
          meaning="one-hot of the total"),
    Field("upcard_onehot", ("upcard",), _fact("upcard"), size=UPCARD_HIGH + 1,
          meaning="one-hot of the upcard's value"),
    Field("cards_onehot", ("cards",), _fact("cards"), size=int(VEC_CARDS_SCALE) + 1,
          meaning="one-hot of the cards in the hand, at most 12"),
)
#: The tuple mode's fields are the facts ``total``, ``upcard`` and ``soft`` as they are
#: (``Blackjack-v1``'s): the single env's compiled step returns them without the encoder.
TUPLE_PLAIN: Final = [(f.name, getattr(f.value, "fact", None)) for f in TUPLE_FIELDS] == [
    ("total", "total"), ("upcard", "upcard"), ("soft", "soft")]
#: Each flat mode's fields (``"dict"``'s are :data:`DICT_FIELDS`).
MODE_FIELDS: Final[dict[str, tuple[Field, ...]]] = {
    "tuple": TUPLE_FIELDS,
    "multidiscrete": MULTIDISCRETE_FIELDS,
    "vector": VECTOR_FIELDS,
    "features": FEATURES_FIELDS,
}


def positions(fields: tuple[Field, ...]) -> dict[str, int]:
    """The position of each field's first entry in a flat observation of ``fields``."""
    out, at = {}, 0
    for field in fields:
        out[field.name] = at
        at += field.size
    return out


def width(fields: tuple[Field, ...]) -> int:
    """The entries of a flat observation of ``fields``."""
    return sum(field.size for field in fields)


def reads(fields: tuple[Field, ...]) -> tuple[str, ...]:
    """The facts ``fields`` read, each once, in the order first read."""
    return tuple(dict.fromkeys(name for field in fields for name in field.reads))


_TUPLE, _MD, _VEC, _FEAT = (positions(MODE_FIELDS[m]) for m in MODE_FIELDS)
# the positions under their names (for readers of an observation, e.g. agents.obs)
TUPLE_TOTAL: Final = _TUPLE["total"]
TUPLE_UPCARD: Final = _TUPLE["upcard"]
TUPLE_SOFT: Final = _TUPLE["soft"]
MD_PHASE: Final = _MD["phase"]
MD_TOTAL: Final = _MD["total"]
MD_UPCARD: Final = _MD["upcard"]
MD_SOFT: Final = _MD["soft"]
MD_CAN_DOUBLE: Final = _MD["can_double"]
MD_CAN_SPLIT: Final = _MD["can_split"]
MD_CAN_SURRENDER: Final = _MD["can_surrender"]
MD_HAND_INDEX: Final = _MD["hand_index"]
MD_COUNT: Final = _MD["count"]
MD_SIZE: Final = width(MULTIDISCRETE_FIELDS)
VEC_PHASE: Final = _VEC["phase"]
VEC_TOTAL: Final = _VEC["total"]
VEC_SOFT: Final = _VEC["soft"]
VEC_UPCARD: Final = _VEC["upcard"]
VEC_CAN_DOUBLE: Final = _VEC["can_double"]
VEC_CAN_SPLIT: Final = _VEC["can_split"]
VEC_CAN_SURRENDER: Final = _VEC["can_surrender"]
VEC_CAN_INSURE: Final = _VEC["can_insure"]
VEC_HAND_INDEX: Final = _VEC["hand_index"]
VEC_NUM_HANDS: Final = _VEC["num_hands"]
VEC_CARDS: Final = _VEC["cards"]
VEC_PAIR: Final = _VEC["pair"]
VEC_TRUE_COUNT: Final = _VEC["true_count"]
VEC_SHOE: Final = _VEC["shoe_left"]
VECTOR_SIZE: Final = width(VECTOR_FIELDS)
FEAT_TOTAL: Final = _FEAT["total_onehot"]
FEAT_UPCARD: Final = _FEAT["upcard_onehot"]
FEAT_CARDS: Final = _FEAT["cards_onehot"]
FEAT_CARDS_SIZE: Final = int(VEC_CARDS_SCALE) + 1
FEATURES_SIZE: Final = width(FEATURES_FIELDS)
#: The multidiscrete fields that read the count (written per step into a cached array
#: of the others by the single env: :class:`~blackjack_env.envs.view.per_step.LearnerView`).
COUNT_FACTS: Final = ("true_count", "count_bucket", "shoe_left")
MD_PER_STEP: Final[tuple[tuple[int, Field], ...]] = tuple(
    (_MD[field.name], field) for field in MULTIDISCRETE_FIELDS
    if set(field.reads) & set(COUNT_FACTS)
)
#: The facts the other multidiscrete fields read: the single env's cache key.
MD_KEY_FACTS: Final = reads(tuple(f for f in MULTIDISCRETE_FIELDS
                                 if not set(f.reads) & set(COUNT_FACTS)))


# ------------------------------------------------------------------ "dict"
class DictField(NamedTuple):
    """One key of the ``"dict"`` observation: ``value(f, xp)`` from the facts ``f`` (the
    bounds applied), and its space ``space(max_hands, seats, n_actions)``."""

    key: str
    value: Callable[[Any, Any], Any]
    space: Callable[[int, int, int], spaces.Space[Any]]


def _counts(n: int = 13) -> spaces.Box:
    return spaces.Box(0, COUNT_HIGH, shape=(n,), dtype=np.int64)


def _column(x: Any, low: float, high: float, xp: Any = np) -> Any:
    """``x`` clipped to ``[low, high]`` as a float32 field of shape ``(1,)`` (one table)
    or ``(N, 1)`` (a batch)."""
    if xp is not np or isinstance(x, np.ndarray):
        return xp.clip(x, low, high).astype(xp.float32)[..., None]
    return np.array([max(low, min(high, x))], dtype=np.float32)


#: ``"dict"``: its keys in order, each a fact with its bound (count fields at most
#: ``COUNT_HIGH``; chips in base bets).
DICT_FIELDS: Final[tuple[DictField, ...]] = (
    DictField("phase", lambda f, xp: f["phase"], lambda h, s, n: spaces.Discrete(N_PHASES)),
    DictField("player_total", lambda f, xp: f["total"],
              lambda h, s, n: spaces.Discrete(MAX_TOTAL + 1)),
    DictField("soft", lambda f, xp: f["soft"], lambda h, s, n: spaces.Discrete(2)),
    DictField("dealer_upcard", lambda f, xp: f["upcard"],
              lambda h, s, n: spaces.Discrete(UPCARD_HIGH + 1)),
    DictField("hand_index", lambda f, xp: f["hand_index"], lambda h, s, n: spaces.Discrete(h)),
    DictField("num_hands", lambda f, xp: f["num_hands"],
              lambda h, s, n: spaces.Discrete(h + 1)),
    DictField("hand_cards", lambda f, xp: xp.minimum(f["hand_cards"], COUNT_HIGH),
              lambda h, s, n: _counts()),
    DictField("dealer_cards", lambda f, xp: f["dealer_cards"], lambda h, s, n: _counts()),
    DictField("seat_cards", lambda f, xp: xp.minimum(f["seat_cards"], COUNT_HIGH),
              lambda h, s, n: _counts(s * 13)),
    DictField("unseen_cards", lambda f, xp: xp.minimum(f["unseen_cards"], COUNT_HIGH),
              lambda h, s, n: _counts()),
    DictField("true_count", lambda f, xp: _column(f["true_count"], -COUNT_CLIP, COUNT_CLIP, xp),
              lambda h, s, n: spaces.Box(-COUNT_CLIP, COUNT_CLIP, shape=(1,), dtype=np.float32)),
    DictField("bet", lambda f, xp: _column(f["stake"], -np.inf, CHIP_BOUND, xp),
              lambda h, s, n: spaces.Box(0.0, CHIP_BOUND, shape=(1,), dtype=np.float32)),
    DictField("bankroll", lambda f, xp: _column(f["bankroll"], -CHIP_BOUND, CHIP_BOUND, xp),
              lambda h, s, n: spaces.Box(-CHIP_BOUND, CHIP_BOUND, shape=(1,), dtype=np.float32)),
    DictField("action_mask", lambda f, xp: f["action_mask"],
              lambda h, s, n: spaces.MultiBinary(n)),
)
#: The dict mode's keys, in order.
DICT_KEYS: Final = tuple(d.key for d in DICT_FIELDS)


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
def _n(field: Field, max_hands: int) -> int:
    """The number of values of a discrete field."""
    return max_hands if field.high == "hands" else int(field.high)


def tuple_space() -> spaces.Tuple:
    return spaces.Tuple(tuple(spaces.Discrete(_n(f, 1)) for f in TUPLE_FIELDS))


def multidiscrete_nvec(max_hands: int) -> np.ndarray:
    """The multidiscrete space's sizes, field by field (``max_hands``: ``H``)."""
    return np.array([_n(f, max_hands) for f in MULTIDISCRETE_FIELDS], dtype=np.int64)


def _box(fields: tuple[Field, ...]) -> spaces.Box:
    low = np.concatenate([np.full(f.size, f.low, np.float32) for f in fields])
    high = np.concatenate([np.full(f.size, float(f.high), np.float32) for f in fields])
    return spaces.Box(low, high, dtype=np.float32)


def vector_space() -> spaces.Box:
    return _box(VECTOR_FIELDS)


def features_space() -> spaces.Box:
    """The ``"features"`` space: the vector's bounds, then ``[0, 1]`` one-hot columns."""
    return _box(FEATURES_FIELDS)


def dict_space(max_hands: int, seats: int, n_actions: int) -> spaces.Dict:
    return spaces.Dict({d.key: d.space(max_hands, seats, n_actions) for d in DICT_FIELDS})


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


# ======================================================================== the encoder
# One encoder for every mode and backend. It takes the facts by name (scalars: one table;
# arrays of shape (N,): N tables, a batch) and the array namespace ``xp`` of its inputs:
# ``numpy`` (the default: the single, batched and multi-agent envs, the analysis's states)
# or ``jax.numpy`` (the JAX table, inside ``jit``; one table, vmapped). Each field's
# formula is its ``value``, evaluated in the inputs' own arithmetic (numpy in float64 /
# int64, then stored in the observation's dtype; JAX in its dtypes). Only the assembly
# differs: numpy writes into one preallocated array, jax.numpy (immutable arrays)
# concatenates.


class Facts(dict):  # type: ignore[type-arg]
    """Facts by name, each computed on its first read from ``compute[name]()`` (a
    backend gives what it knows at once and the rest as functions, so a mode computes
    only the facts its fields read)."""

    def __init__(self, compute: dict[str, Callable[[], Any]], **known: Any) -> None:
        super().__init__(known)
        self.compute = compute

    def __missing__(self, name: str) -> Any:
        fn = self.compute.get(name)
        if fn is None:
            raise KeyError(f"the fact {name!r} is not given here; the facts are "
                           f"{', '.join(FACTS)}")
        value = self[name] = fn()
        return value


def encode(obs_mode: str, facts: Any, max_hands: int = 1, xp: Any = np) -> Any:
    """The observation in ``obs_mode`` (``"tuple"``, ``"multidiscrete"``, ``"vector"``,
    ``"features"``, ``"dict"``) of the facts ``facts`` (a mapping by name: :data:`FACTS`;
    only those the mode's fields read are looked up). ``max_hands``: the seat's most
    hands (the hand fields' scale and bound). Flat modes: ``(size,)`` or ``(N, size)``,
    int64 (``"multidiscrete"``; int32 with ``jax.numpy``) or float32; ``"tuple"``: a
    tuple of the facts' values; ``"dict"``: a dict (:data:`DICT_KEYS`)."""
    if obs_mode == "dict":
        return {d.key: d.value(facts, xp) for d in DICT_FIELDS}
    fields = MODE_FIELDS[obs_mode]
    if obs_mode == "tuple":
        return tuple(field.value(facts, xp, max_hands) for field in fields)
    integer = obs_mode == "multidiscrete"
    if xp is np:
        return _write(fields, facts, max_hands, np.int64 if integer else np.float32)
    dtype = xp.int32 if integer else xp.float32
    parts = []
    for field in fields:
        v = field.value(facts, xp, max_hands)
        if field.size == 1:
            parts.append(xp.asarray(v, dtype)[..., None])
        else:
            index = xp.clip(xp.asarray(v), 0, field.size - 1)
            parts.append((index[..., None] == xp.arange(field.size)).astype(dtype))
    return xp.concatenate(parts, axis=-1)


def _write(fields: tuple[Field, ...], facts: Any, max_hands: int, dtype: Any) -> np.ndarray:
    """numpy: the fields written into one new array (a run of one-entry fields of one
    table in one assignment, numpy converting the values)."""
    shape = np.shape(facts["total"])
    size = width(fields)
    onehot = any(field.size > 1 for field in fields)
    out = (np.zeros if onehot else np.empty)((*shape, size), dtype)
    if not shape:  # one table
        at, run = 0, []
        for field in fields:
            v = field.value(facts, np, max_hands)
            if field.size == 1:
                run.append(v)
                continue
            if run:
                out[at : at + len(run)] = run
                at += len(run)
                run = []
            out[at + max(0, min(field.size - 1, int(v)))] = 1
            at += field.size
        if run:
            out[at : at + len(run)] = run
        return out
    column = out.T  # column[k]: entry k of every table
    rows = np.arange(shape[0])
    at = 0
    for field in fields:
        v = field.value(facts, np, max_hands)
        if field.size == 1:
            column[at] = v
        else:
            out[rows, at + np.clip(v, 0, field.size - 1)] = 1
        at += field.size
    return out


def append_rules(obs: Any, features: Any, xp: Any = np) -> Any:
    """A flat observation (``"vector"`` or ``"features"``, ``(D,)`` or a batch ``(N, D)``)
    followed by rule features (``(RULES_SIZE,)``, shared by the batch, or ``(N,
    RULES_SIZE)``, one row per table): float32 ``(D + RULES_SIZE,)`` or ``(N, D +
    RULES_SIZE)``, with ``xp`` ``numpy`` or ``jax.numpy``."""
    features = xp.asarray(features, dtype=xp.float32)
    if features.ndim < obs.ndim:
        features = xp.broadcast_to(features, (*obs.shape[:-1], features.shape[-1]))
    return xp.concatenate([obs, features], axis=-1)
