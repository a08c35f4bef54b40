"""The learner's view of an engine table, per step, compiled: legal actions, masks and the
``"tuple"`` / ``"multidiscrete"`` observations.

``setup.py`` compiles this module with mypyc (see :mod:`blackjack_env._native`); it also
runs as plain Python, with the same behaviour. :class:`LearnerView` is the per-step half
of a :class:`~blackjack_env.envs.view.layout.Layout` (``Layout.per_step``): the two are
split for the compiler, not by concept. ``Layout`` holds what is not per step (spaces,
names, the ``"vector"`` / ``"features"`` / ``"dict"`` observations) and stays plain Python
(a dataclass with cached properties and gymnasium spaces, which mypyc does not compile);
this class holds what every step of the single env calls, so that it runs as C. Measured
(2026-11-30, CPU time): with the view and the env core run from source the single env is
41% / 44% slower (sutton-barto tuple / vegas-strip multidiscrete).

Also here, as functions of a table: :func:`focus_index` (the hand the observation
describes), :func:`unseen_by_rank` and :func:`hi_lo_true_count` (what the learner has
not seen). Compiled code checks annotated argument types at run time; enum members read
on every step are ``Final`` module constants, which compiled code reads as C statics.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from mypy_extensions import mypyc_attr

from blackjack_env.engine import play
from blackjack_env.engine.hand import Hand, score
from blackjack_env.engine.play import true_count_bucket
from blackjack_env.engine.table import Action, Phase, Table
from blackjack_env.envs.step import Decision
from blackjack_env.envs.view.fields import (
    BUCKET_CLIP,
    MD_KEY_FACTS,
    MD_PER_STEP,
    TUPLE_PLAIN,
    encode,
    multidiscrete_nvec,
)

__all__ = [
    "HAND_FACTS",
    "MULTIDISCRETE",
    "OBS_CACHE_SIZE",
    "TUPLE",
    "LearnerView",
    "count_facts",
    "focus_index",
    "hi_lo_true_count",
    "unseen_by_rank",
]

# Enum members read on every step, named _<ENUM>_<MEMBER> (C globals in the compiled
# module; see envs/single/core.py for the measurement)
_PHASE_PLAYER_TURNS: Final = Phase.PLAYER_TURNS
_ACTION_INSURE: Final = Action.INSURE
_ACTION_SURRENDER: Final = Action.SURRENDER
_INT8: Final = np.int8
# action indices and decision codes as plain ints (compiled code compares them natively)
_STAND: Final = int(Action.STAND)
_DOUBLE: Final = int(Action.DOUBLE)
_SPLIT: Final = int(Action.SPLIT)
_SURRENDER: Final = int(Action.SURRENDER)
_INSURE: Final = int(Action.INSURE)
_PLAY: Final = int(Decision.PLAY)
_INSURANCE: Final = int(Decision.INSURANCE)
_BET: Final = int(Decision.BET)
#: Observation modes :class:`LearnerView` encodes itself (the ObsMode values).
TUPLE: Final = "tuple"
MULTIDISCRETE: Final = "multidiscrete"
#: The facts :meth:`LearnerView.facts` reads off the hand and the legal actions, in the
#: order of :meth:`LearnerView.hand_facts` (the first eight computed at every step).
HAND_FACTS: Final = ("phase", "total", "soft", "upcard", "can_double", "can_split",
                     "can_surrender", "hand_index", "can_insure", "num_hands", "cards", "pair")
# The single env's multidiscrete cache key holds the values of fields.MD_KEY_FACTS (the
# facts the multidiscrete fields but the count's read), derived from the field list here:
# hand_facts' first eight values when those facts are among them, else all twelve (a key
# that holds more facts than the fields read is still a key); and where the count field
# writes the bucket as it is (-1: another per-step field, run generically)
_MD_EVERY: Final = max(HAND_FACTS.index(name) for name in MD_KEY_FACTS) >= 8
_MD_COUNT_AT: Final = (
    MD_PER_STEP[0][0]
    if len(MD_PER_STEP) == 1 and getattr(MD_PER_STEP[0][1].value, "fact", "") == "count_bucket"
    else -1
)
#: Multidiscrete observations cached per view, without their count field (each a
#: 9-int array; a copy with the count written in is returned).
OBS_CACHE_SIZE: Final = 4096


def focus_index(table: Table, seat: int, last_hand: int) -> int:
    """Index of the learner's hand the observation describes.

    The hand to act during ``PLAY``; otherwise the hand the learner last acted on
    (``last_hand``, clamped to the hands it holds); 0 before the deal.
    """
    hands = table.seats[seat].hands
    if not hands:
        return 0
    who = table.to_act
    if who is not None and who[0] == seat and table.phase is _PHASE_PLAYER_TURNS:
        return who[1]
    return min(max(last_hand, 0), len(hands) - 1)


def unseen_by_rank(table: Table) -> list[int]:
    """Cards the learner has not seen, by rank ace..king: the undealt shoe plus the
    dealer's hole card while it is face down. For an infinite deck, one deck's
    proportions (4 of each rank)."""
    counts = table.shoe.remaining_by_rank()
    if table.shoe.decks is None:
        return counts
    return play.unseen_by_rank(
        counts, play.hidden_hole_rank(table.dealer.cards, table.hole_revealed)
    )


def count_facts(table: Table) -> tuple[int, int]:
    """The Hi-Lo running count of the cards the learner has seen since the last shuffle
    and the number of cards it has not seen (``engine.play.hi_lo_running_count`` of
    :func:`unseen_by_rank`); ``(0, 0)`` for an infinite deck."""
    if table.shoe.decks is None:
        return 0, 0
    u = unseen_by_rank(table)
    remaining = 0
    for n in u:
        remaining += n
    return play.hi_lo_running_count(u), remaining


def hi_lo_true_count(table: Table) -> float:
    """Hi-Lo true count of the cards the learner has seen since the last shuffle:
    the running count divided by the decks not yet seen (0 for an infinite deck;
    ``engine.play.hi_lo_true_count`` of :func:`count_facts`)."""
    if table.shoe.decks is None:
        return 0.0
    running, remaining = count_facts(table)
    return play.hi_lo_true_count(running, remaining)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class LearnerView:
    """The per-step half of a :class:`~blackjack_env.envs.view.layout.Layout` (see the
    module docstring: split from it for the compiler).

    Legal actions, action masks and the ``"tuple"`` / ``"multidiscrete"``
    observations for one configuration; a ``Layout`` builds one and delegates to it,
    and the single env's step calls it directly.

    Args:
        n_play: play actions (2, 5 or 6).
        bet_sizes: bet multiples offered at a bet step (``()`` for a fixed bet).
        bet_unit: the base bet in chips.
        min_bet, max_bet: the table limits (``rules.min_bet``, ``rules.max_bet``).
        insurance_decisions: the learner decides insurance / even money.
        obs_mode: the observation mode's value (``"tuple"``, ...).
        max_hands: ``rules.max_split_hands``.
    """

    def __init__(
        self,
        n_play: int,
        bet_sizes: tuple[int, ...],
        bet_unit: int,
        min_bet: int,
        max_bet: int,
        insurance_decisions: bool,
        obs_mode: str,
        max_hands: int,
    ) -> None:
        self.n_play = n_play
        self.n_actions = n_play + len(bet_sizes)
        self.bet_sizes = bet_sizes
        self.bet_unit = bet_unit
        self.min_bet = min_bet
        self.max_bet = max_bet
        self.insurance_decisions = insurance_decisions
        self.obs_mode = obs_mode
        self.max_hands = max_hands
        self._all_legal = tuple(range(self.n_actions))
        self._play_legal: dict[tuple[Action, ...], tuple[int, ...]] = {}
        self._masks: dict[tuple[int, ...], np.ndarray] = {}
        self._bool_masks: dict[tuple[int, ...], np.ndarray] = {}
        self._observations: dict[tuple[Any, ...], np.ndarray] = {}
        self._nvec = multidiscrete_nvec(max_hands)

    def __getstate__(self) -> dict[str, Any]:
        """The configuration only: a pickled or copied view starts with empty caches."""
        return {
            "n_play": self.n_play,
            "bet_sizes": self.bet_sizes,
            "bet_unit": self.bet_unit,
            "min_bet": self.min_bet,
            "max_bet": self.max_bet,
            "insurance_decisions": self.insurance_decisions,
            "obs_mode": self.obs_mode,
            "max_hands": self.max_hands,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        LearnerView.__init__(self, **state)

    # ------------------------------------------------------------- actions
    def legal(self, table: Table, seat: int, phase: int) -> tuple[int, ...]:
        """Legal action indices for the learner in ``phase`` (a Decision), ascending."""
        if phase == _PLAY:
            engine = table.legal_actions()
            legal = self._play_legal.get(engine)
            if legal is None:
                n = self.n_play
                legal = tuple([int(a) for a in engine if a < n])
                self._play_legal[engine] = legal
            return legal
        if phase == _INSURANCE:  # STAND declines
            out = [_STAND]
            engine = table.legal_actions()
            if self.insurance_decisions and _ACTION_INSURE in engine:
                out.append(_INSURE)
            if _ACTION_SURRENDER in engine:
                out.append(_SURRENDER)
            return tuple(sorted(out))
        if phase == _BET:
            n_play = self.n_play
            return tuple([n_play + k for k in self.legal_bet_indices(table, seat)])
        return self._all_legal

    def asks_pre_peek(self, engine_legal: tuple[Action, ...]) -> bool:
        """Whether the learner gets a step at the pre-peek decision whose engine legal
        actions are ``engine_legal``: when it may surrender early, or insure and the
        env asks insurance decisions. Otherwise the env declines for it."""
        return _ACTION_SURRENDER in engine_legal or (
            self.insurance_decisions and _ACTION_INSURE in engine_legal
        )

    def legal_bet_indices(self, table: Table, seat: int) -> list[int]:
        """Indices into ``bet_sizes`` the table limits and the seat's bankroll allow."""
        s = table.seats[seat]
        available = None if s.bankroll is None else s.bankroll + s.bet
        out = []
        for k in range(len(self.bet_sizes)):
            if self.bet_allowed(k, available):
                out.append(k)
        return out

    def bet_allowed(self, k: int, available: Any) -> bool:
        """Bet size ``k`` is within the table limits and ``available`` chips (None:
        unlimited credit) cover it (:func:`~blackjack_env.engine.play.can_cover`)."""
        chips = self.bet_sizes[k] * self.bet_unit
        return self.min_bet <= chips <= self.max_bet and play.can_cover(available, chips)

    def mask(self, legal: tuple[int, ...]) -> np.ndarray:
        """``int8`` mask of the action space from legal indices (a new array)."""
        return self._mask_copy(self._masks, legal, _INT8)

    def bool_mask(self, legal: tuple[int, ...]) -> np.ndarray:
        """Boolean mask of the action space from legal indices (a new array)."""
        return self._mask_copy(self._bool_masks, legal, bool)

    def _mask_copy(
        self, cache: dict[tuple[int, ...], np.ndarray], legal: tuple[int, ...], dtype: Any
    ) -> np.ndarray:
        """A copy of ``cache``'s mask of ``dtype`` for ``legal``, made on first use."""
        cached = cache.get(legal)
        if cached is None:
            cached = np.zeros(self.n_actions, dtype=dtype)
            cached[list(legal)] = 1
            cache[legal] = cached
        return cached.copy()

    @staticmethod
    def can(legal: tuple[int, ...], phase: int) -> tuple[int, int, int]:
        """(can double, can split, can surrender); surrender also at the pre-peek step."""
        if phase != _PLAY:
            return 0, 0, 1 if phase == _INSURANCE and _SURRENDER in legal else 0
        return (
            1 if _DOUBLE in legal else 0,
            1 if _SPLIT in legal else 0,
            1 if _SURRENDER in legal else 0,
        )

    # -------------------------------------------------------- observations
    @staticmethod
    def summary(table: Table, seat: int, last_hand: int) -> tuple[int, Hand | None, int, int, int]:
        """(focus index, focus hand or None, total, soft 0/1, dealer upcard value)."""
        hands = table.seats[seat].hands
        index = focus_index(table, seat, last_hand)
        hand: Hand | None = None
        total = soft = 0
        if hands:
            hand = hands[index]
            total, soft_flag = score(hand.hard_total, hand.has_ace)
            soft = 1 if soft_flag else 0
        dealer = table.dealer.cards  # the upcard's point value, 0 before the deal
        up = table.rules.card_values[dealer[0].rank - 1] if dealer else 0
        return index, hand, total, soft, up

    def facts(
        self, table: Table, seat: int, phase: int, last_hand: int, legal: tuple[int, ...]
    ) -> dict[str, Any]:
        """The facts of the learner's situation that are read off the hand and the legal
        actions (:data:`~blackjack_env.envs.view.fields.FACTS`: all but the count's,
        the shoe's and the dict mode's by-rank counts and chips), by name."""
        return dict(zip(HAND_FACTS, self.hand_facts(table, seat, phase, last_hand, legal, True),
                        strict=True))

    def hand_facts(
        self, table: Table, seat: int, phase: int, last_hand: int, legal: tuple[int, ...],
        every: bool,
    ) -> tuple[Any, ...]:
        """The values of :data:`HAND_FACTS` in their order (``every=False``: the first
        eight, the facts every step reads)."""
        index, hand, total, soft, up = self.summary(table, seat, last_hand)
        can_double, can_split, can_surrender = self.can(legal, phase)
        if not every:
            return (phase, total, soft, up, can_double, can_split, can_surrender, index)
        return (
            phase, total, soft, up, can_double, can_split, can_surrender, index,
            1 if phase == _INSURANCE and _INSURE in legal else 0,
            len(table.seats[seat].hands),
            0 if hand is None else len(hand.cards),
            1 if hand is not None and hand.is_pair(False) else 0,
        )  # fmt: skip

    def observe(
        self, table: Table, seat: int, phase: int, last_hand: int, legal: tuple[int, ...]
    ) -> Any:
        """The ``"tuple"`` or ``"multidiscrete"`` observation (see the env's docstring):
        :func:`~blackjack_env.envs.view.fields.encode` of the facts, the multidiscrete
        arrays cached by the facts their fields read but the count's
        (``fields.MD_KEY_FACTS``; a copy with the count's fields written in is returned)."""
        if self.obs_mode == TUPLE and TUPLE_PLAIN:
            _, _, total, soft, up = self.summary(table, seat, last_hand)
            return (total, up, soft)  # the tuple's fields are these facts: the hot path
        values = self.hand_facts(table, seat, phase, last_hand, legal, _MD_EVERY)
        running, unseen = count_facts(table)
        bucket = true_count_bucket(running, unseen, BUCKET_CLIP)
        if self.obs_mode == TUPLE:
            return encode(TUPLE, self._all_facts(table, seat, phase, last_hand, legal, bucket),
                          self.max_hands)
        cached = self._observations.get(values)
        if cached is None:
            facts = self._all_facts(table, seat, phase, last_hand, legal, bucket)
            cached = encode(MULTIDISCRETE, facts, self.max_hands)
            if not bool(((cached >= 0) & (cached < self._nvec)).all()):
                return cached  # outside the space: never cached (the key could collide)
            if len(self._observations) >= OBS_CACHE_SIZE:
                return cached
            self._observations[values] = cached
        out = cached.copy()
        if _MD_COUNT_AT >= 0:  # the count field is the bucket as it is
            out[_MD_COUNT_AT] = bucket
        else:
            facts = self._all_facts(table, seat, phase, last_hand, legal, bucket)
            for at, field in MD_PER_STEP:
                out[at] = field.value(facts, np, self.max_hands)
        return out

    def _all_facts(self, table: Table, seat: int, phase: int, last_hand: int,
                   legal: tuple[int, ...], bucket: int) -> dict[str, Any]:
        """:meth:`facts` and the count's (``count_bucket``; the true count)."""
        facts = self.facts(table, seat, phase, last_hand, legal)
        facts["count_bucket"] = bucket
        facts["true_count"] = hi_lo_true_count(table)
        return facts
