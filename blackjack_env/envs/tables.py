"""The rule tables both batched rounds read: validated settings as plain numpy lookup tables.

:class:`RuleTables` is what the numpy batched tables
(:class:`~blackjack_env.envs.batch.TableBatch`) and the JAX table
(:func:`blackjack_env.jax.tables.build`) know of a rule set and an env configuration:
every rule decision as an array indexed by a small integer key, or a flag that says which
part of the round the rules use. Nothing here decides a rule: each entry is built from
:mod:`blackjack_env.engine.play`'s functions (the scalar engine's), and the action counts,
names and mask layout from :class:`~blackjack_env.envs.view.layout.Layout` (the envs').
Build it with :meth:`RuleTables.from_settings` (an env's validated
:class:`~blackjack_env.envs.settings.EnvSettings`) or :func:`build_tables` (the values
themselves, checked by the caller).

A new rule-table entry is one field here (its line in :class:`RuleTables`, its value in
:func:`build_tables`); both rounds then read it by name. The arrays are read-only.

Keys (the codes are :mod:`blackjack_env.envs.codes`'s):

* a card id 0..51 (suit-major, :data:`~blackjack_env.engine.cards.ALL_CARDS`), a rank
  index 0..12 (0 = ace);
* a hand for the outcome lookup: ``2 * hard + ace``, plus ``RuleTables.hand_key_width``
  when it holds two cards that may make a natural; ``by_hands`` is indexed by
  ``(player key, dealer key)``;
* the dealer: ``2 * hard + ace`` (below 64 while the dealer draws);
* a legal-decision row (``legal_table``): rows ``0 .. over_key - 1`` a hand in play
  (:func:`~blackjack_env.engine.play.play_action_table`'s key), ``over_key`` a round that
  is over (STAND only: the step reports the result), ``pre_peek_key + 2 * upcard rank +
  natural`` the pre-peek question; with a finite bankroll, the rows of a seat that cannot
  afford a double at ``key + poor_play_offset`` and of a pre-peek question it cannot
  insure at ``key + poor_pre_peek_offset``;
* a split hand's two ranks: ``13 * first rank + second rank``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from blackjack_env.engine import play
from blackjack_env.engine.cards import ALL_CARDS
from blackjack_env.engine.play import NaturalEffect
from blackjack_env.engine.rules import HoleCard, Rules, Surrender
from blackjack_env.engine.rulespace import RuleSpace
from blackjack_env.envs.codes import (
    ACTION_DOUBLE,
    ACTION_HIT,
    ACTION_INSURE,
    ACTION_SPLIT,
    ACTION_STAND,
    ACTION_SURRENDER,
    NUM_CORE_ACTIONS,
    PHASE_DECIDE,
    PHASE_INSURE,
    PHASE_OVER,
    STAND_ONLY_ROW,
)
from blackjack_env.envs.settings import EnvSettings
from blackjack_env.envs.step import DECISION_BY_BATCH_PHASE, Decision
from blackjack_env.envs.view import fields as view_fields
from blackjack_env.envs.view.layout import Layout, ObsMode

if TYPE_CHECKING:  # (the arrays' types; jax.tables.rule_table_types evaluates them)
    from jaxtyping import Bool, Float32, Float64, Int8, Int64

__all__ = ["BANK_KEY_WIDTH", "RuleBank", "RuleTables", "build_tables", "mask_rows"]

_INSURANCE, _SETTLED = int(Decision.INSURANCE), int(Decision.SETTLED)


@dataclass(frozen=True, eq=False)
class RuleTables:
    """One rule set and env configuration as lookup tables (read-only numpy arrays).

    Configuration (as validated): ``rules``; ``bet`` (chips per base bet); ``bet_sizes``
    (multiples of ``bet`` offered at a BET step, ``()`` for a fixed bet); ``bankroll``
    (starting chips, None for unlimited credit); ``ask_insurance`` (the learner is asked
    about insurance / even money: ``insurance_decisions`` under rules that offer it).
    Each array's dtype and axes are in its annotation (jaxtyping's form), the one list of
    them: the JAX table's :class:`~blackjack_env.jax.tables.Params` derives its entries'
    types from it. Axes: ``rows`` the legal-table rows (``K``), ``keys`` a hand's outcome
    keys (``2W``, ``W`` = ``hand_key_width``), ``stakes`` every stake a hand can hold
    (``M + 1``, ``M`` the largest bet), ``actions`` the env's (``n_actions``), ``bets``
    one per bet size, ``features`` the rule features' (``RULES_SIZE``).
    """

    rules: Rules
    bet: int
    bet_sizes: tuple[int, ...]
    bankroll: int | None
    ask_insurance: bool

    # ---- cards
    card_values: Int64[np.ndarray, " 13"]
    """point value by rank index (``rules.card_values``)"""
    rank_of_card: Int64[np.ndarray, " 52"]
    """rank index of each card id"""
    value_of_card: Int64[np.ndarray, " 52"]
    """point value of each card id"""
    hilo_of_card: Int64[np.ndarray, " 52"]
    """Hi-Lo tag of each card id (``play.HI_LO_TAGS``)"""

    # ---- the shoe
    shoe_cards: int
    """cards in a full shoe (``52 * rules.shoe_decks``), 0 for an infinite deck"""
    cut_cards: int
    """a finite shoe is reshuffled between rounds once this many of its cards were dealt
    (``ceil(penetration * shoe_cards)``; 1 when ``penetration`` is None: before every round
    that dealt a card); 0 for an infinite deck"""

    # ---- outcomes and payouts
    payouts: Float64[np.ndarray, " 7"]
    """net chips per chip staked, by outcome code (``play.payout_factors``)"""
    outcome_table: Int64[np.ndarray, " 576"]
    """outcome code by (player, dealer) category, 24 x 24 flat (``play.outcome_table``)"""
    hand_key_width: int
    """``W``: the width of a hand's outcome key (``2 * (22 + top card value)``)"""
    by_hands: Int64[np.ndarray, "keys keys"]
    """outcome code of a standing hand by (player key, dealer key)"""
    surrender_outcome: Int64[np.ndarray, " 2"]
    """outcome code of a surrendered hand, by dealer natural"""
    highest: bool
    """hands settle by the highest hand at the table (``play.settles_by_highest_hand``)"""
    chip_den: int
    """chip amounts are exact in units of ``1 / chip_den`` (``play.chip_denominator``)"""

    # ---- the dealer and the peek
    dealer_hits: Bool[np.ndarray, " 64"]
    """the dealer draws, by dealer key (``play.dealer_draw_table``)"""
    dealer_next: Int64[np.ndarray, " 3328"]
    """the dealer key after card id ``c`` at ``52 * key + c`` (a key
    where the dealer stands keeps it)"""
    peek_by_rank: Bool[np.ndarray, " 13"]
    """the dealer peeks, by upcard rank index (``play.peek_by_rank``)"""
    peek: bool
    """the dealer peeks for blackjack (``HoleCard.PEEK``)"""
    no_hole: bool
    """no hole card is dealt (``HoleCard.NONE``)"""

    # ---- legality
    legal_table: Bool[np.ndarray, "rows 7"]
    """the legal decision codes of each row key (see the module docstring)"""
    legal_table_phase: Int64[np.ndarray, " rows"]
    """the ``BatchPhase`` of a table whose key is the row's"""
    over_key: int
    """the row of a round that is over"""
    pre_peek_key: int
    """the first pre-peek row (``+ 2 * upcard rank index + natural``)"""
    asks_pre_peek: Bool[np.ndarray, " 26"]
    """the pre-peek question asks more than DECLINE, by ``2 * rank + natural``"""
    asks_pre_peek_poor: Bool[np.ndarray, " 26"]
    """the same for a seat that cannot afford insurance (all False without a
    finite bankroll)"""
    poor_play_offset: int
    """finite bankroll: a hand's row when the seat cannot afford a double is ``key +`` this
    (0 otherwise)"""
    poor_pre_peek_offset: int
    """finite bankroll: a pre-peek row when the seat cannot afford insurance is ``key +``
    this (0 otherwise)"""
    pre_peek: bool
    """a pre-peek decision (the INSURE phase) can occur"""
    stand_hit_only: bool
    """every hand in play may stand or hit and nothing else (``play.stand_hit_only``)"""
    can_double: bool
    """the rules allow a double somewhere (``rules.can_double``)"""
    surrenders: bool
    """the rules offer a surrender"""
    surrender_at_once: bool
    """a surrender settles the hand at once (``play.surrender_settles_at_once``)"""

    # ---- naturals
    natural_effect: NaturalEffect
    """what a dealt natural does (``play.dealt_natural_effect``)"""
    natural_stands: bool
    """a dealt natural not paid at the deal needs no decision (``play.natural_stands``)"""
    naturals_paid_at_peek: bool
    """naturals are paid at the peek (``play.natural_paid_at_peek``)"""
    auto21: bool
    """a hand reaching 21 stands by itself (``play.auto_stands``)"""
    split_naturals: bool
    """a two-card 21 on a split hand is a natural (``play.natural_counts``)"""

    # ---- splits
    pair: Bool[np.ndarray, " 169"]
    """two ranks make a pair (``play.pair_table``)"""
    split_ok: Bool[np.ndarray, " 36"]
    """a split is allowed at ``18 * pair + 2 * hands + split aces``
    (``play.split_allowed_table``, flat)"""
    split_done: Bool[np.ndarray, " 16"]
    """a split hand is done by its key bits (``play.split_done_table``)"""
    second_key: Int64[np.ndarray, " 169"]
    """a split hand's ``split_done`` key bits from its two ranks (8 split
    aces, 2 a natural that counts, 1 a 21)"""
    two_hard: Int64[np.ndarray, " 169"]
    """hard total of two ranks"""
    two_ace: Bool[np.ndarray, " 169"]
    """two ranks hold an ace"""
    split_divisor: int
    """each of the two hands of a split stakes the hand's chips ``// split_divisor``: 1 when
    the bet is matched, 2 when it is halved (``play.split_stake``, whose value at a stake of
    2 chips gives it)"""
    splits: bool
    """a split can happen at some stake this configuration bets"""
    split_stake_check: bool
    """stakes vary (bet sizes, halved splits) or a bankroll limits them: ``split_stake_ok``
    is asked per hand"""
    stake_ok: Bool[np.ndarray, "2 stakes"]
    """``play.split_stake_ok`` by (bankroll covers, stake in chips) for
    every stake a hand can hold (``M`` the largest bet)"""

    # ---- actions, masks and bets (the env's layout)
    n_play: int
    """playing actions of the env (``Layout.n_play``: 2, 5 or 6)"""
    n_actions: int
    """the env's action space (``Layout.n_actions``: ``n_play`` plus one per bet size)"""
    pre_peek_decisions: bool
    """the learner answers a pre-peek question (a peek, with insurance decisions or early
    surrender); its STAND is then the table's DECLINE"""
    mask_rows: Int8[np.ndarray, "rows actions"]
    """the env's action mask by legal-table row key (:func:`mask_rows`)"""
    bet_chips: Int64[np.ndarray, " bets"]
    """chips of each bet size"""
    bet_within: Bool[np.ndarray, " bets"]
    """each bet size is within the table limits"""
    min_cost: int
    """the smallest bet of a round in chips"""

    # ---- what an observation shows of the rules
    rule_features: Float32[np.ndarray, " features"]
    """the rules' features
    (:func:`~blackjack_env.envs.view.fields.rule_features`; appended to the observation
    with ``observe_rules=True``)"""

    @classmethod
    def from_settings(cls, settings: EnvSettings) -> RuleTables:
        """The tables of an env's validated settings (``rules``, ``bet``, ``bet_sizes``,
        ``bankroll``, ``insurance_decisions``), whole."""
        return build_tables(
            settings.rules,
            bet=settings.bet,
            bet_sizes=settings.bet_sizes,
            bankroll=settings.bankroll,
            insurance_decisions=settings.insurance_decisions,
        )


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr


def mask_rows(
    legal_table: np.ndarray, legal_table_phase: np.ndarray, n_play: int, n_actions: int
) -> np.ndarray:
    """``(K, n_actions)`` int8: the env's action-mask row of a table by its row key.

    A hand in play: its legal playing actions (never INSURE); the pre-peek question:
    STAND (decline), and INSURE / SURRENDER where the table allows them; a settled round:
    every action (any action continues)."""
    cm = legal_table
    phase = DECISION_BY_BATCH_PHASE.take(legal_table_phase)
    mask = np.zeros((cm.shape[0], n_actions), dtype=np.int8)
    mask[:, :n_play] = cm[:, :n_play]
    if n_play == 6:
        mask[:, ACTION_INSURE] = False
    ins = phase == _INSURANCE
    if n_play > ACTION_SURRENDER:  # with fewer actions no pre-peek question is asked
        mask[ins, ACTION_STAND] = 1
        if n_play == 6:
            mask[ins, ACTION_INSURE] = cm[ins, ACTION_INSURE]
        mask[ins, ACTION_SURRENDER] = cm[ins, ACTION_SURRENDER]
        mask[ins, ACTION_HIT] = 0
        mask[ins, ACTION_DOUBLE] = 0
        mask[ins, ACTION_SPLIT] = 0
    mask[phase == _SETTLED] = 1  # a settled round: any action continues
    return _frozen(mask)


def _outcome_by_hands(outcome_table: np.ndarray, width: int) -> np.ndarray:
    """Outcome codes of a standing hand against the dealer's final hand by (player key,
    dealer key): the categories of :func:`~blackjack_env.engine.play.array_category`
    looked up in :func:`~blackjack_env.engine.play.outcome_table`."""
    key = np.arange(2 * width)
    hard, ace, two = (key % width) // 2, (key % 2) == 1, key >= width
    natural = play.array_natural(np.where(two, 2, 3), hard, ace)
    cat = play.array_category(play.array_total(hard, ace), natural)
    return outcome_table.take(cat[:, None] * play.NUM_CATEGORIES + cat[None, :])


def build_tables(
    rules: Rules,
    *,
    bet: int = 1,
    bet_sizes: tuple[int, ...] = (),
    bankroll: int | None = None,
    insurance_decisions: bool = False,
) -> RuleTables:
    """The :class:`RuleTables` of checked values (see :meth:`RuleTables.from_settings`):
    ``insurance_decisions`` asks the learner where the rules offer insurance. Each group
    of fields is built by its own function below (cards, shoe, outcomes, dealer,
    legality, naturals, splits, actions), which returns them by name."""
    bet = int(bet)
    bet_sizes = tuple(int(k) for k in bet_sizes)
    bankroll = None if bankroll is None else int(bankroll)
    ask_insurance = bool(insurance_decisions) and rules.insurance
    cards = _card_fields(rules)
    legal = _legal_fields(rules, ask_insurance, bankroll)
    fields: dict[str, Any] = {
        **cards,
        **_shoe_fields(rules),
        **_outcome_fields(rules, cards["card_values"]),
        **_dealer_fields(rules, cards["value_of_card"], cards["rank_of_card"]),
        **legal,
        **_natural_fields(rules),
        **_split_fields(rules, cards["card_values"], bet, bet_sizes, bankroll),
        **_action_fields(rules, bet, bet_sizes, ask_insurance, legal),
    }
    frozen: dict[str, Any] = {
        k: _frozen(v) if isinstance(v, np.ndarray) else v for k, v in fields.items()
    }
    return RuleTables(rules=rules, bet=bet, bet_sizes=bet_sizes, bankroll=bankroll,
                      ask_insurance=ask_insurance, **frozen,
                      min_cost=bet_sizes[0] * bet if bet_sizes else bet,
                      rule_features=_frozen(view_fields.rule_features(rules)))


def _card_fields(rules: Rules) -> dict[str, np.ndarray]:
    """``card_values``, ``rank_of_card``, ``value_of_card``, ``hilo_of_card``."""
    values = np.array(rules.card_values, dtype=np.int64)
    rank_of_card = np.array([c.rank - 1 for c in ALL_CARDS], dtype=np.int64)
    return {
        "card_values": values,
        "rank_of_card": rank_of_card,
        "value_of_card": values.take(rank_of_card),
        "hilo_of_card": np.array(play.HI_LO_TAGS, dtype=np.int64)[rank_of_card],
    }


def _shoe_fields(rules: Rules) -> dict[str, int]:
    """``shoe_cards``, ``cut_cards``."""
    decks = rules.shoe_decks
    shoe_cards = 0 if decks is None else 52 * decks
    if decks is None:
        cut_cards = 0
    elif rules.penetration is None:
        cut_cards = 1
    else:  # (dealt >= penetration * size, for whole cards dealt)
        cut_cards = math.ceil(rules.penetration * shoe_cards)
    return {"shoe_cards": shoe_cards, "cut_cards": cut_cards}


def _outcome_fields(rules: Rules, values: np.ndarray) -> dict[str, Any]:
    """``payouts``, ``outcome_table``, ``hand_key_width``, ``by_hands``,
    ``surrender_outcome``, ``highest``, ``chip_den``."""
    outcome_table = play.outcome_table(rules)
    width = 2 * (22 + int(values.max()))
    return {
        "payouts": play.payout_factors(rules),
        "outcome_table": outcome_table,
        "hand_key_width": width,
        "by_hands": _outcome_by_hands(outcome_table, width),
        "surrender_outcome": play.array_surrender_outcome(np.array([False, True])),
        "highest": play.settles_by_highest_hand(rules),
        "chip_den": int(play.chip_denominator(rules)),
    }


def _dealer_fields(rules: Rules, value_of_card: np.ndarray, rank_of_card: np.ndarray
                   ) -> dict[str, Any]:
    """``dealer_hits``, ``dealer_next``, ``peek_by_rank``, ``peek``, ``no_hole``."""
    dealer_hits = play.dealer_draw_table(rules)
    # the dealer key after one more card; drawing keys stay below 64 (hard <= 16 plus a
    # card of at most 10)
    keys = np.arange(64)
    after = 2 * (keys[:, None] // 2 + value_of_card[None, :])
    after |= (keys[:, None] % 2 == 1) | (rank_of_card == 0)[None, :]
    return {
        "dealer_hits": dealer_hits,
        "dealer_next": np.where(dealer_hits[:, None], after, keys[:, None]).reshape(-1),
        "peek_by_rank": play.peek_by_rank(rules),
        "peek": rules.hole_card is HoleCard.PEEK,
        "no_hole": rules.hole_card is HoleCard.NONE,
    }


def _legal_fields(rules: Rules, ask_insurance: bool, bankroll: int | None) -> dict[str, Any]:
    """The legal decisions by row (``legal_table`` and the fields that lay its rows out),
    the pre-peek question's, and the flags of what the rules allow."""
    # legal decisions by row: play_action_table's rows, the row of a round that is over,
    # pre_peek_action_table's rows; with a finite bankroll, the rows of a seat that cannot
    # afford a double or insurance after those
    pre_peek_rows = play.pre_peek_action_table(rules, ask_insurance, NUM_CORE_ACTIONS)
    # called as play.stand_hit_only calls it (the default n_actions, NUM_CORE_ACTIONS; the
    # concatenation below fails if they ever differ): one entry of its cache for both
    # (measured: a rule set's tables took 2 ms more without)
    play_rows = play.play_action_table(rules)
    over_key = 13 * play.KEY_UPCARD
    pre_peek_key = over_key + 1
    parts = [play_rows, STAND_ONLY_ROW[None, :], pre_peek_rows]
    phases = [
        np.full(play_rows.shape[0], PHASE_DECIDE, dtype=np.int64),
        np.array([PHASE_OVER], dtype=np.int64),
        np.full(pre_peek_rows.shape[0], PHASE_INSURE, dtype=np.int64),
    ]
    asks_pre_peek = pre_peek_rows.sum(axis=1) > 1  # more than DECLINE
    asks_pre_peek_poor = np.zeros(26, dtype=bool)
    poor_play_offset = poor_pre_peek_offset = 0
    if bankroll is not None:
        poor_pre_peek = play.pre_peek_action_table(rules, False, NUM_CORE_ACTIONS)
        poor_play = play.play_action_table(rules, NUM_CORE_ACTIONS, afford_double=False)
        base = sum(p.shape[0] for p in parts)
        parts += [poor_play, poor_pre_peek]
        phases += [
            np.full(poor_play.shape[0], PHASE_DECIDE, dtype=np.int64),
            np.full(poor_pre_peek.shape[0], PHASE_INSURE, dtype=np.int64),
        ]
        poor_play_offset = base
        poor_pre_peek_offset = base + 13 * play.KEY_UPCARD - pre_peek_key
        asks_pre_peek_poor = poor_pre_peek.sum(axis=1) > 1
    peek_by_rank = play.peek_by_rank(rules)
    pre_peek = rules.hole_card is HoleCard.PEEK and bool(
        np.count_nonzero(asks_pre_peek.reshape(13, 2) & peek_by_rank[:, None])
    )
    return {
        "legal_table": np.concatenate(parts),
        "legal_table_phase": np.concatenate(phases),
        "over_key": over_key,
        "pre_peek_key": pre_peek_key,
        "asks_pre_peek": asks_pre_peek,
        "asks_pre_peek_poor": asks_pre_peek_poor,
        "poor_play_offset": poor_play_offset,
        "poor_pre_peek_offset": poor_pre_peek_offset,
        "pre_peek": pre_peek,
        "stand_hit_only": play.stand_hit_only(rules),
        "can_double": rules.can_double,
        "surrenders": rules.surrender is not Surrender.NONE,
        "surrender_at_once": play.surrender_settles_at_once(rules),
    }


def _natural_fields(rules: Rules) -> dict[str, Any]:
    """``natural_effect``, ``natural_stands``, ``naturals_paid_at_peek``, ``auto21``,
    ``split_naturals``."""
    return {
        "natural_effect": play.dealt_natural_effect(rules),
        "natural_stands": play.natural_stands(rules),
        "naturals_paid_at_peek": play.natural_paid_at_peek(rules),
        "auto21": play.auto_stands(rules, play.AUTO_STAND_TOTAL),
        "split_naturals": play.natural_counts(rules, from_split=True),
    }


def _split_fields(rules: Rules, values: np.ndarray, bet: int, bet_sizes: tuple[int, ...],
                  bankroll: int | None) -> dict[str, Any]:
    """The split tables: a split hand's two cards by ``13 * first rank + second rank``,
    and the stakes a split may take."""
    r0, r1 = np.divmod(np.arange(169), 13)
    two_hard = values.take(r0) + values.take(r1)
    two_ace = (r0 == 0) | (r1 == 0)
    second_key = 8 * (r0 == 0) + (play.array_total(two_hard, two_ace) == 21)
    if play.natural_counts(rules, from_split=True):  # else a split hand is never a natural
        second_key += 2 * play.array_natural(2, two_hard, two_ace)
    split_stake_check = bool(bet_sizes) or bankroll is not None
    stakes = [k * bet for k in bet_sizes] if split_stake_check and bet_sizes else [bet]
    splits = any(play.split_stake_ok(rules, k, True) for k in stakes) and bool(
        play.split_allowed_table(rules)[:, 1:].any()
    )
    top = int(max([bet, *(k * bet for k in bet_sizes)]))
    stake_ok = np.array(
        [[play.split_stake_ok(rules, m, covers) for m in range(top + 1)]
         for covers in (False, True)],
        dtype=np.bool_,
    )  # fmt: skip
    return {
        "pair": play.pair_table(rules),
        "split_ok": play.split_allowed_table(rules).reshape(-1),
        "split_done": play.split_done_table(rules),
        "second_key": second_key,
        "two_hard": two_hard,
        "two_ace": two_ace,
        "split_divisor": 2 // int(play.split_stake(rules, 2)),
        "splits": splits,
        "split_stake_check": split_stake_check,
        "stake_ok": stake_ok,
    }


def _action_fields(rules: Rules, bet: int, bet_sizes: tuple[int, ...], ask_insurance: bool,
                   legal: dict[str, Any]) -> dict[str, Any]:
    """The env's actions, masks and bets (its :class:`Layout`)."""
    layout = Layout(rules, ObsMode.MULTIDISCRETE, bet, bet_sizes, ask_insurance)
    per_step = layout.per_step
    n_play, n_actions = layout.n_play, layout.n_actions
    peek = rules.hole_card is HoleCard.PEEK
    return {
        "n_play": n_play,
        "n_actions": n_actions,
        "pre_peek_decisions": peek and (ask_insurance or rules.surrender is Surrender.EARLY),
        "mask_rows": mask_rows(legal["legal_table"], legal["legal_table_phase"], n_play,
                               n_actions),
        "bet_chips": np.array(bet_sizes, dtype=np.int64) * bet,
        "bet_within": np.array([per_step.bet_allowed(k, None) for k in range(len(bet_sizes))],
                               bool),
    }


# ======================================================================== the bank
#: The hand-key width of a bank's ``by_hands`` (``2 * (22 + 10)``: every card is worth at
#: most 10, so every rule set's keys fit).
BANK_KEY_WIDTH = 2 * (22 + 10)

#: Sizes of a rule space above which a bank maps space indices through a dict (below:
#: one array).
_MAP_ARRAY_MAX = 1 << 20


class _Rows:
    """The distinct values of one rule-table field, stacked as rows (capacity doubles)."""

    def __init__(self, first: np.ndarray) -> None:
        self.shape = first.shape
        self.data = np.empty((4, *first.shape), dtype=first.dtype)
        self.count = 0
        self.seen: dict[bytes, int] = {}

    def add(self, value: np.ndarray) -> int:
        """The row holding ``value`` (added if new)."""
        if value.shape != self.shape:
            raise ValueError(f"a bank row of shape {value.shape}, not {self.shape}")
        key = value.tobytes()
        row = self.seen.get(key)
        if row is None:
            if self.count == self.data.shape[0]:
                grown = np.empty((2 * self.count, *self.shape), dtype=self.data.dtype)
                grown[: self.count] = self.data[: self.count]
                self.data = grown
            row = self.seen[key] = self.count
            self.data[row] = value
            self.count += 1
        return row

    def put(self, row: int, value: np.ndarray) -> None:
        """Set row ``row`` (the next row, or an existing one holding the same value)."""
        if row < self.count:
            if not np.array_equal(self.data[row], value):
                raise ValueError("a bank row changed its value")
            return
        if row != self.count:
            raise ValueError(f"bank row {row} put after {self.count} rows")
        self.add(value)
        self.seen.pop(value.tobytes(), None)  # rows by position only

    @property
    def flat(self) -> np.ndarray:
        """The rows as one flat array (row ``r`` at ``r * row_size``; read-only view)."""
        view = self.data.reshape(-1) if len(self.shape) == 1 else self.data.reshape(
            -1, *self.shape[1:])
        view = view.view()
        view.flags.writeable = False
        return view

    @property
    def row_size(self) -> int:
        """Entries per row (a row of a flat lookup table starts at ``row * row_size``)."""
        return int(np.prod(self.shape))


class RuleBank:
    """The rule tables of the rule sets of a rule space under one env configuration,
    stacked for batched tables that play each table under its own rules
    (``TableBatch.from_bank`` and ``TableBatch.set_rules`` of ``blackjack_env.envs.batch``).

    A rule set joins the bank the first time it is asked for (:meth:`slots`): its
    :class:`RuleTables` are built by :func:`build_tables` (the one source; 2 to 5 ms
    each) and each array field is stored once per distinct value: the ``STACKED``
    fields as rows of one array per field (``stacked[field]``, read flat), with
    ``rows[field][slot]`` the row of the rule set in slot ``slot``. The flags a batched
    table branches on are arrays by slot (``flags[name]``, ``FLAGS``); the fields every
    rule set of a bank shares (``SHARED``: the legal table's row layout, the action
    counts, the bets) are checked as each joins, and kept in ``first``. ``by_hands`` is
    rebuilt at the common key width ``BANK_KEY_WIDTH`` (every rule set's keys fit);
    ``split_ok`` is all False for a rule set whose stakes never allow a split
    (``RuleTables.splits``).

    Args:
        space: the rule space (its rule sets' shapes are shared by construction).
        bet, bet_sizes, bankroll, insurance_decisions: the env configuration, as
            :func:`build_tables` takes it.
    """

    #: ``RuleTables`` array fields stacked by distinct value.
    STACKED = (
        "card_values", "value_of_card", "payouts", "dealer_hits", "dealer_next",
        "peek_by_rank", "legal_table", "mask_rows", "asks_pre_peek", "asks_pre_peek_poor",
        "pair", "split_ok", "split_done", "second_key", "two_hard", "rule_features",
        "by_hands",
    )  # fmt: skip
    #: ``RuleTables`` flags kept per rule set (by slot), as arrays.
    FLAGS = (
        "peek", "no_hole", "auto21", "natural_stands", "naturals_paid_at_peek",
        "split_naturals", "surrender_at_once", "highest", "natural_effect", "splits",
        "surrenders", "can_double", "pre_peek", "pre_peek_decisions", "chip_den",
    )  # fmt: skip
    #: ``RuleTables`` fields every rule set of a bank shares.
    SHARED = (
        "legal_table_phase", "over_key", "pre_peek_key", "poor_play_offset",
        "poor_pre_peek_offset", "n_play", "n_actions", "stand_hit_only", "bet",
        "bet_sizes", "bankroll", "ask_insurance", "rank_of_card", "hilo_of_card",
        "two_ace", "surrender_outcome", "split_stake_check", "bet_chips", "bet_within",
        "min_cost",
    )  # fmt: skip

    def __init__(
        self,
        space: RuleSpace,
        *,
        bet: int = 1,
        bet_sizes: tuple[int, ...] = (),
        bankroll: int | None = None,
        insurance_decisions: bool = False,
    ) -> None:
        if not isinstance(space, RuleSpace):
            raise ValueError(f"space must be a RuleSpace, got {type(space).__name__}")
        self.space = space
        self.config: dict[str, Any] = dict(
            bet=bet, bet_sizes=tuple(bet_sizes), bankroll=bankroll,
            insurance_decisions=insurance_decisions,
        )  # fmt: skip
        #: the rule sets in the bank, by slot
        self.rules: list[Rules] = []
        #: the rule space index of each slot
        self.indices: list[int] = []
        self.stacked: dict[str, _Rows] = {}
        self.rows: dict[str, np.ndarray] = {}
        self.flags: dict[str, np.ndarray] = {}
        #: bumped whenever the bank's arrays are reallocated or gain rows
        self.version = 0
        #: the rule sets of the bank grouped by ``play.split_stake_share`` (what a split hand
        #: stakes depends on nothing else): a rule set of each group, and each slot's group
        self.split_rules: list[Rules] = []
        self._split_share: list[Any] = []
        self._slot_of: np.ndarray | dict[int, int] = (
            np.full(space.size, -1, dtype=np.int64) if space.size <= _MAP_ARRAY_MAX else {}
        )
        first = build_tables(space.rules_at(0), **self.config)
        #: the first rule set's tables: what every rule set of the bank shares
        self.first = first
        self._add(0, first)

    @property
    def size(self) -> int:
        """Rule sets in the bank."""
        return len(self.rules)

    def slots(self, indices: np.ndarray) -> np.ndarray:
        """The bank slots (int64) of rule space indices ``indices`` (rule sets not in the
        bank yet are built and added)."""
        indices = np.asarray(indices, dtype=np.int64)
        slot_of = self._slot_of
        if isinstance(slot_of, np.ndarray):
            slots = slot_of.take(indices)
            missing = np.unique(indices[slots < 0])
        else:
            slots = np.array([slot_of.get(int(i), -1) for i in indices], dtype=np.int64)
            missing = np.unique(indices[slots < 0])
        if missing.size:
            for i in missing.tolist():
                rules = self.space.rules_at(i)
                self._add(i, build_tables(rules, **self.config))
            slots = self.slots(indices)
        return slots

    def _add(self, index: int, tables: RuleTables) -> None:
        first = self.first
        for name in self.SHARED:
            a, b = getattr(first, name), getattr(tables, name)
            same = np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
            if not same:
                raise ValueError(
                    f"rule set {index} of the space ({tables.rules.summary()}) differs from "
                    f"the first in {name}: a batch of tables under one space must share it"
                )
        slot = len(self.rules)
        self.rules.append(tables.rules)
        self.indices.append(index)
        for name in self.STACKED:
            value = getattr(tables, name)
            if name == "by_hands":
                value = _outcome_by_hands(tables.outcome_table, BANK_KEY_WIDTH)
            elif name == "split_ok" and not tables.splits:
                value = np.zeros_like(value)
            stack = self.stacked.get(name)
            if stack is None:
                stack = self.stacked[name] = _Rows(value)
            if name == "mask_rows":  # row for row with the legal table it is made from
                row = int(self.rows["legal_table"][slot])
                stack.put(row, value)
            else:
                row = stack.add(value)
            self._set(self.rows, name, slot, row)
        for name in self.FLAGS:
            value = int(getattr(tables, name))
            self._set(self.flags, name, slot, value)
        share = play.split_stake_share(tables.rules)
        if share not in self._split_share:
            self._split_share.append(share)
            self.split_rules.append(tables.rules)
        self._set(self.flags, "split_group", slot, self._split_share.index(share))
        if isinstance(self._slot_of, np.ndarray):
            self._slot_of[index] = slot
        else:
            self._slot_of[index] = slot
        self.version += 1

    @staticmethod
    def _set(arrays: dict[str, np.ndarray], name: str, slot: int, value: int) -> None:
        arr = arrays.get(name)
        if arr is None:
            arr = arrays[name] = np.zeros(4, dtype=np.int64)
        if slot >= arr.size:
            grown = np.zeros(2 * arr.size, dtype=np.int64)
            grown[: arr.size] = arr
            arr = arrays[name] = grown
        arr[slot] = value

    def chip_denominator(self) -> int:
        """The chip unit of every rule set of the space (the least common multiple of
        their :func:`~blackjack_env.engine.play.chip_denominator`): finite bankrolls are
        kept in its units. Reads every rule set of the space once."""
        den = 1
        seen: set[int] = set()
        for rules in self.space:
            d = play.chip_denominator(rules)
            if d not in seen:
                seen.add(d)
                den = den * d // math.gcd(den, d)
        return den
