"""The rules of play: every rule decision of a round, made here and only here.

Each decision is a plain function of a :class:`~blackjack_env.engine.rules.Rules`
and a few small values (a total, a flag, a category), so the table, the batched
core, the exact analysis, the strategies and the agents all ask the same
function and cannot disagree:

* a hand's total: :func:`score` (scalar) and :func:`array_total` /
  :func:`array_soft` (numpy arrays, the same arithmetic element-wise);
* whether the dealer peeks: :func:`dealer_peeks`; the dealer's drawing rule:
  :func:`dealer_draws`;
* legal actions: :func:`play_actions` for a hand in play (built on
  :func:`hit_allowed`, :func:`double_allowed`, :func:`split_allowed` and
  :func:`surrender_allowed`), :func:`pre_peek_actions` for the question asked
  before the peek, :func:`split_hand_done` for a split hand that just got its
  second card;
* what a dealt natural does: :func:`dealt_natural_effect` (a :class:`NaturalEffect`:
  paid at the deal, ends the hand, or plays on);
* a split hand's stake: :func:`split_stake` (whole chips; :func:`array_split_stake`),
  :func:`split_stake_share` (per unit bet, for the analysis);
* the result of a hand: :func:`category` of each hand, :func:`outcome` of a
  (player, dealer) pair of categories, :func:`surrender_outcome` (and
  :func:`array_surrender_outcome`), :func:`surrender_settles_at_once`,
  :func:`natural_paid_at_peek`, highest-hand settlement (:func:`settles_by_highest_hand`,
  :func:`highest_hand_outcomes`, :func:`highest_hand_judged` and
  :func:`array_highest_hand_judged`), and :func:`payout` (net chips per chip staked for
  each :class:`Outcome`; :func:`outcome_code` is an outcome's code in batched code);
* playing out an unfinished round (an episode that ends mid-round): every decision
  still owed by a learner is :func:`play_out_action` (:func:`play_out_codes` for
  arrays);
* chips: :func:`can_cover` (whether a bankroll covers a stake: bets, doubles, matched
  splits, insurance; :func:`array_can_cover` for arrays), :func:`insurance_stake`,
  :func:`chip_denominator`;
* card counting: :data:`HI_LO_TAGS`, :func:`hi_lo_tag`, :func:`unseen_by_rank`
  (the cards a player has not seen, with :func:`hidden_hole_rank`),
  :func:`hi_lo_running_count` and :func:`hi_lo_true_count` (:func:`array_hi_lo_true_count`),
  and the true count rounded and clipped, exactly (:func:`true_count_bucket`).

Batched code does not re-derive these: it reads lookup tables *built from these
functions* when it starts (:func:`play_action_table`, :func:`pre_peek_action_table`,
:func:`split_allowed_table`, :func:`split_done_table`, :func:`outcome_table`,
:func:`payout_factors`, :func:`dealer_draw_table`, :func:`peek_by_rank`; each
docstring says how the table is indexed), and the table's shortcut for rules with
nothing but stand and hit is :func:`stand_hit_only`, read off :func:`play_actions`.

Nothing here draws a card, holds state or imports from above the engine.
"""

from __future__ import annotations

import math
from enum import Enum, IntEnum
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final

import numpy as np

from blackjack_env.engine.cards import Card
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
    "AUTO_STAND_TOTAL",
    "BUST_CATEGORY",
    "HI_LO_TAGS",
    "INSURANCE_PAYS",
    "KEY_CAN_SPLIT",
    "KEY_FROM_SPLIT",
    "KEY_SPLIT_ACES",
    "KEY_TWO_CARDS",
    "KEY_UPCARD",
    "LEGALITY_FIELDS",
    "NATURAL_CATEGORY",
    "NUM_CATEGORIES",
    "PLAY_TABLES_KEPT",
    "SMALL_TABLES_KEPT",
    "Action",
    "NaturalEffect",
    "Outcome",
    "OutcomeCode",
    "array_can_cover",
    "array_category",
    "array_hi_lo_true_count",
    "array_highest_hand_judged",
    "array_natural",
    "array_soft",
    "array_split_stake",
    "array_surrender_outcome",
    "array_total",
    "auto_stands",
    "can_cover",
    "category",
    "chip_denominator",
    "covers_insurance",
    "dealer_draw_table",
    "dealer_draws",
    "dealer_peeks",
    "dealt_natural_effect",
    "double_allowed",
    "hi_lo_running_count",
    "hi_lo_tag",
    "hi_lo_true_count",
    "hidden_hole_rank",
    "highest_hand_judged",
    "highest_hand_outcomes",
    "hit_allowed",
    "insurance_stake",
    "is_natural",
    "is_pair",
    "legality_key",
    "natural_counts",
    "natural_paid_at_peek",
    "natural_stands",
    "outcome",
    "outcome_code",
    "outcome_table",
    "pair_class",
    "pair_key",
    "pair_table",
    "payout",
    "payout_factors",
    "peek_by_rank",
    "play_action_table",
    "play_actions",
    "play_out_action",
    "play_out_codes",
    "pre_peek_action_table",
    "pre_peek_actions",
    "score",
    "settles_by_highest_hand",
    "split_allowed",
    "split_allowed_table",
    "split_done_table",
    "split_hand_done",
    "split_stake",
    "split_stake_ok",
    "split_stake_share",
    "stand_hit_only",
    "surrender_allowed",
    "surrender_outcome",
    "surrender_settles_at_once",
    "true_count_bucket",
    "unseen_by_rank",
]


class Action(IntEnum):
    """Decisions. 0-4 are the playing actions (the env's ``Discrete(5)``);
    ``INSURE`` (insurance, or even money on a natural) and ``DECLINE`` are
    answers in the ``INSURANCE`` phase, where early ``SURRENDER`` is also made.
    """

    STAND = 0
    HIT = 1
    DOUBLE = 2
    SPLIT = 3
    SURRENDER = 4
    INSURE = 5
    DECLINE = 6


class Outcome(Enum):
    """How a hand ended; :func:`payout` gives its net result per chip staked.

    The members' order is the outcome code used by batched code (``WIN`` = 0 ...
    ``EVEN_MONEY`` = 6, see :func:`outcome_table`).
    """

    WIN = "win"  # +1
    BLACKJACK = "blackjack"  # + rules.blackjack_payout
    PUSH = "push"  # 0
    LOSS = "loss"  # -1
    BUST = "bust"  # -1
    SURRENDER = "surrender"  # -1/2
    EVEN_MONEY = "even_money"  # +1, a natural paid 1:1 against an ace


class OutcomeCode(IntEnum):
    """The code of each :class:`Outcome` in array code (the numpy batched tables' and the
    JAX table's ``outcome`` arrays, :func:`outcome_table`, :func:`payout_factors`): its
    position in :class:`Outcome` (:func:`outcome_code`); -1 marks a hand not settled."""

    WIN = 0
    BLACKJACK = 1
    PUSH = 2
    LOSS = 3
    BUST = 4
    SURRENDER = 5
    EVEN_MONEY = 6


# Members read on the hot paths, as module constants named _<ENUM>_<MEMBER> (compiled
# code keeps them in C globals; reading them through the enum class costs several
# times more). Measured (compiled, 2026-11-30, CPU time, builds alternated): without
# them the vegas-strip env and engine run about 3% slower (sutton-barto: no change,
# its rules skip this module's legality work). Kept, at the edge of what pays.
_ACTION_STAND: Final = Action.STAND
_ACTION_HIT: Final = Action.HIT
_ACTION_DOUBLE: Final = Action.DOUBLE
_ACTION_SPLIT: Final = Action.SPLIT
_ACTION_SURRENDER: Final = Action.SURRENDER
_ACTION_INSURE: Final = Action.INSURE
_ACTION_DECLINE: Final = Action.DECLINE
_OUTCOME_WIN: Final = Outcome.WIN
_OUTCOME_BLACKJACK: Final = Outcome.BLACKJACK
_OUTCOME_PUSH: Final = Outcome.PUSH
_OUTCOME_LOSS: Final = Outcome.LOSS
_OUTCOME_BUST: Final = Outcome.BUST
_OUTCOME_SURRENDER: Final = Outcome.SURRENDER
_OUTCOME_EVEN_MONEY: Final = Outcome.EVEN_MONEY
_DOUBLE_RULE_NEVER: Final = DoubleRule.NEVER
_DOUBLE_RULE_ANY_TWO: Final = DoubleRule.ANY_TWO
_DOUBLE_RULE_NINE_TO_ELEVEN: Final = DoubleRule.NINE_TO_ELEVEN
_SURRENDER_NONE: Final = Surrender.NONE
_SURRENDER_EARLY: Final = Surrender.EARLY
_HOLE_CARD_PEEK: Final = HoleCard.PEEK
_SPLIT_BET_HALVE: Final = SplitBet.HALVE
_SETTLEMENT_HIGHEST_HAND: Final = Settlement.HIGHEST_HAND
_SPLIT_BY_VALUE: Final = SplitBy.VALUE
_TIE_RULE_PUSH: Final = TieRule.PUSH
_TIE_RULE_DEALER_WINS: Final = TieRule.DEALER_WINS
_MINUS_HALF: Final = Fraction(-1, 2)
_HALF: Final = Fraction(1, 2)
_ONE: Final = Fraction(1)
_OUTCOME_CODE: Final[dict[Outcome, int]] = {o: i for i, o in enumerate(Outcome)}


# ==================================================================== totals
def score(hard: int, has_ace: bool) -> tuple[int, bool]:
    """``(total, soft)`` of a hand whose cards add to ``hard`` with aces as 1.

    One ace counts 11 when that keeps the hand at 21 or below; the hand is then
    *soft*. Two aces can never both count 11.
    """
    if has_ace and hard <= 11:
        return hard + 10, True
    return hard, False


def array_soft(hard: np.ndarray, ace: np.ndarray) -> np.ndarray:
    """:func:`score`'s ``soft`` for arrays of hard totals and ace flags (bool array)."""
    return ace & (hard <= 11)


def array_total(hard: np.ndarray, ace: np.ndarray) -> np.ndarray:
    """:func:`score`'s ``total`` for arrays of hard totals and ace flags."""
    return hard + 10 * (ace & (hard <= 11))


# ==================================================================== dealer
def dealer_peeks(rules: Rules, up_value: int, up_ace: bool) -> bool:
    """The dealer checks the hole card for blackjack before anyone plays: under
    ``HoleCard.PEEK``, with an ace (by rank: custom values may make another card
    worth 1) or a ten-value card up."""
    return rules.hole_card is _HOLE_CARD_PEEK and (up_ace or up_value == 10)


def dealer_draws(rules: Rules, total: int, soft: bool) -> bool:
    """The dealer's fixed rule: draw below 17, and on a soft 17 under H17."""
    return total < 17 or (total == 17 and soft and rules.dealer_hits_soft_17)


# ==================================================== naturals, 21 and pairs
def is_natural(n_cards: int, hard: int, has_ace: bool, counts: bool = True) -> bool:
    """A natural (blackjack): two cards, an ace and a ten-value card (a hard total of 11
    with an ace), on a hand where a natural counts (``counts``, see
    :func:`natural_counts`; always for the dealer)."""
    return n_cards == 2 and has_ace and hard == 11 and counts


def array_natural(n_cards: np.ndarray | int, hard: np.ndarray, ace: np.ndarray) -> np.ndarray:
    """:func:`is_natural` (where a natural counts) for arrays of card counts, hard totals
    and ace flags (bool array)."""
    return (n_cards == 2) & ace & (hard == 11)


def natural_counts(rules: Rules, from_split: bool) -> bool:
    """A two-card 21 on this hand counts as a natural: always on a dealt hand, on a split
    hand only under ``blackjack_after_split``."""
    return not from_split or rules.blackjack_after_split


#: The total at which a hand stands by itself under ``auto_stand_21`` (:func:`auto_stands`).
AUTO_STAND_TOTAL: Final = 21


def auto_stands(rules: Rules, total: int) -> bool:
    """A hand in play that reaches this total (after a hit, or as a split hand's second
    card) stands by itself: :data:`AUTO_STAND_TOTAL` under ``auto_stand_21``. (Batched
    code: ``auto_stands(rules, AUTO_STAND_TOTAL)`` says whether any total does, then
    compares totals with :data:`AUTO_STAND_TOTAL`.)"""
    return rules.auto_stand_21 and total == AUTO_STAND_TOTAL


def natural_stands(rules: Rules) -> bool:
    """A dealt natural that is not paid at the deal needs no decision: it ends the hand
    (``natural_ends_hand``), or its 21 stands by itself (:func:`auto_stands`); otherwise
    the player may hit it (Gymnasium's rules)."""
    return rules.natural_ends_hand or auto_stands(rules, AUTO_STAND_TOTAL)


class NaturalEffect(IntEnum):
    """What a natural dealt to a seat does (:func:`dealt_natural_effect`); the code is
    the member's value, for batched and JAX code."""

    #: paid at the deal (``natural_paid_at_deal``), before any peek; the hand is settled
    PAY = 0
    #: the hand is done (``natural_ends_hand``), settled at the peek or with the dealer
    END = 1
    #: the hand plays on, and the player may hit it (Gymnasium's rules), unless its 21
    #: stands by itself (:func:`auto_stands`; :func:`natural_stands` covers both)
    PLAY = 2


_NATURAL_PAY: Final = NaturalEffect.PAY
_NATURAL_END: Final = NaturalEffect.END
_NATURAL_PLAY: Final = NaturalEffect.PLAY


def dealt_natural_effect(rules: Rules) -> NaturalEffect:
    """What a natural in a seat's dealt hand does under ``rules``: the one place the
    deal reads ``natural_paid_at_deal`` and ``natural_ends_hand``."""
    if rules.natural_paid_at_deal:
        return _NATURAL_PAY
    if rules.natural_ends_hand:
        return _NATURAL_END
    return _NATURAL_PLAY


def pair_key(values: tuple[int, ...], rank: int, by_value: bool) -> int:
    """The key under which two cards make a pair for a split: the rank (1 = ace ..
    13 = king), or with ``by_value`` (``SplitBy.VALUE``) its point value in ``values``
    (the rules' 13 card values, ace to king)."""
    return values[rank - 1] if by_value else rank


def pair_class(rules: Rules, rank: int) -> int:
    """:func:`pair_key` of a rank under the rules' ``split_by``."""
    return pair_key(rules.card_values, rank, rules.split_by is _SPLIT_BY_VALUE)


def is_pair(values: tuple[int, ...], rank_a: int, rank_b: int, by_value: bool) -> bool:
    """Two cards (ranks 1..13) make a pair: the same :func:`pair_key`."""
    return pair_key(values, rank_a, by_value) == pair_key(values, rank_b, by_value)


# ============================================================ legal actions
def hit_allowed(rules: Rules, split_aces: bool) -> bool:
    """A hand may take a card (split aces only under ``hit_split_aces``)."""
    return not split_aces or rules.hit_split_aces


def double_allowed(rules: Rules, total: int, soft: bool, from_split: bool) -> bool:
    """Whether the rules let a two-card hand of this total double (bankroll aside)."""
    rule = rules.double
    if rule is _DOUBLE_RULE_NEVER:
        return False
    if from_split and not rules.double_after_split:
        return False
    if rule is not _DOUBLE_RULE_ANY_TWO:
        if soft:
            return False
        low = 9 if rule is _DOUBLE_RULE_NINE_TO_ELEVEN else 10
        if not low <= total <= 11:
            return False
    return True


def split_allowed(rules: Rules, *, pair: bool, hands: int, split_aces: bool) -> bool:
    """Whether the rules let a pair be split when the seat holds ``hands`` hands
    (bankroll and :func:`split_stake_ok` aside)."""
    return (
        pair and hands < rules.max_split_hands and not (split_aces and not rules.resplit_aces)
    )


def split_stake_share(rules: Rules) -> Fraction:
    """The share of a hand's bet that each of the two hands of a split stakes, per unit
    bet (the analysis's figure): 1 when the bet is matched, 1/2 when it is halved
    (``SplitBet.HALVE``; exact for an even bet, :func:`split_stake` rounds down)."""
    return _HALF if rules.split_bet is _SPLIT_BET_HALVE else _ONE


def split_stake(rules: Rules, bet: int | Fraction) -> int | Fraction:
    """The stake, in whole chips, of each of the two hands a hand betting ``bet`` splits
    into: the bet again (``SplitBet.MATCH``: the seat puts up ``bet`` more chips) or half
    of it rounded down (``SplitBet.HALVE``: an odd chip goes back to the seat). The seat
    pays ``2 * split_stake(rules, bet) - bet`` (negative: it gets chips back)."""
    if rules.split_bet is _SPLIT_BET_HALVE:
        return bet // 2
    return bet


def array_split_stake(rules: Rules, bet: np.ndarray) -> np.ndarray:
    """:func:`split_stake` for an int array of bets (a new array)."""
    if rules.split_bet is _SPLIT_BET_HALVE:
        return bet // 2
    return bet.copy()


def split_stake_ok(rules: Rules, bet: int | Fraction, bankroll_covers: bool) -> bool:
    """The stake allows a split: a halved bet needs at least one chip per hand
    (``SplitBet.HALVE``), a matched bet needs the bankroll to cover it."""
    if rules.split_bet is _SPLIT_BET_HALVE:
        return bet >= 2
    return bankroll_covers


def surrender_allowed(
    rules: Rules, *, hands: int, up_value: int, up_ace: bool, pre_peek: bool
) -> bool:
    """Surrender of a hand holding its first two cards (natural aside): offered by the
    rules, the seat has not split, and it is the right moment. ``pre_peek``: the
    question asked before the dealer's peek, where only an early surrender is made;
    otherwise the hand is in play, where a late surrender is made, and an early one
    too when the dealer did not peek (it was asked before the peek otherwise)."""
    surrender = rules.surrender
    if surrender is _SURRENDER_NONE or hands != 1:
        return False
    if pre_peek:
        return surrender is _SURRENDER_EARLY
    return surrender is not _SURRENDER_EARLY or not dealer_peeks(rules, up_value, up_ace)


def play_actions(
    rules: Rules,
    *,
    two_cards: bool,
    total: int,
    soft: bool,
    can_split: bool,
    split_aces: bool,
    from_split: bool,
    hands: int,
    up_value: int,
    up_ace: bool,
    afford_double: bool = True,
) -> tuple[Action, ...]:
    """The legal playing actions of a hand: the one definition of these rules.

    :class:`~blackjack_env.engine.table.Table` calls it for the hand to act, the
    exact analysis for every state it enumerates, and the batched core reads
    :func:`play_action_table`, built from it. ``two_cards``: the hand holds its
    first two cards (and has not doubled); ``can_split``: a split is allowed
    (see :func:`split_allowed`, plus the stake); ``hands``: hands the seat holds;
    ``up_value`` / ``up_ace``: the dealer's upcard (its point value, and whether it
    is an ace); ``afford_double``: the bankroll covers a double.
    """
    if not hit_allowed(rules, split_aces):
        return _STAND_SPLIT if can_split else _STAND_ONLY
    if not two_cards:
        return _STAND_HIT
    # STAND and HIT, plus whichever of DOUBLE (1), SPLIT (2), SURRENDER (4) apply
    extra = 0
    if afford_double and double_allowed(rules, total, soft, from_split):
        extra = 1
    if can_split:
        extra += 2
    if surrender_allowed(rules, hands=hands, up_value=up_value, up_ace=up_ace, pre_peek=False):
        extra += 4
    return _TWO_CARD_ACTIONS[extra]


def pre_peek_actions(
    rules: Rules, *, up_value: int, up_ace: bool, natural: bool, insurance: bool
) -> tuple[Action, ...]:
    """The answers to the question asked before the dealer's peek (see
    :func:`dealer_peeks`): ``DECLINE``; ``INSURE`` (insurance, or even money on a
    natural) with an ace up when the rules offer insurance and ``insurance`` (the
    player is asked and can stake half the bet); early ``SURRENDER``, not on a
    natural. In ``Action`` order; ``(DECLINE,)`` alone means nothing is asked."""
    offer_insurance = insurance and rules.insurance and up_ace
    surrender = not natural and surrender_allowed(
        rules, hands=1, up_value=up_value, up_ace=up_ace, pre_peek=True
    )
    return _PRE_PEEK_ACTIONS[offer_insurance + 2 * surrender]


def split_hand_done(
    rules: Rules, *, split_aces: bool, can_split: bool, natural: bool, total: int
) -> bool:
    """A split hand that just received its second card needs no decision: split aces
    that may not be hit (unless they can be split again), a natural that ends the
    hand, or a 21 under ``auto_stand_21``."""
    if not hit_allowed(rules, split_aces):
        return not can_split
    return (natural and rules.natural_ends_hand) or auto_stands(rules, total)


_STAND_ONLY: Final = (Action.STAND,)
_STAND_SPLIT: Final = (Action.STAND, Action.SPLIT)
_STAND_HIT: Final = (Action.STAND, Action.HIT)
#: play_actions' results for a two-card hand, shared tuples indexed by
#: DOUBLE (1) + SPLIT (2) + SURRENDER (4) allowed.
_EXTRA_ACTIONS = ((1, Action.DOUBLE), (2, Action.SPLIT), (4, Action.SURRENDER))
_TWO_CARD_ACTIONS: tuple[tuple[Action, ...], ...] = tuple(
    _STAND_HIT + tuple(a for bit, a in _EXTRA_ACTIONS if extra & bit) for extra in range(8)
)
#: pre_peek_actions' results indexed by INSURE (1) + SURRENDER (2) offered.
_PRE_PEEK_ACTIONS: tuple[tuple[Action, ...], ...] = tuple(
    tuple(sorted([Action.DECLINE] + [Action.INSURE] * (k & 1) + [Action.SURRENDER] * (k >> 1)))
    for k in range(4)
)


# ================================================================ settlement
# Hand categories for :func:`outcome`: a total 0..21, a bust, or a natural.
#: The category of a bust hand (:func:`category`; totals 0..21 are their own).
BUST_CATEGORY: Final = 22
#: The category of a natural (:func:`category`).
NATURAL_CATEGORY: Final = 23
NUM_CATEGORIES: Final = 24


def category(total: int, natural: bool) -> int:
    """A hand's category for :func:`outcome`: :data:`NATURAL_CATEGORY` for a natural
    (a two-card 21 that counts as blackjack), :data:`BUST_CATEGORY` above 21, else
    the total."""
    if natural:
        return NATURAL_CATEGORY
    return total if total <= 21 else BUST_CATEGORY


def array_category(total: np.ndarray, natural: np.ndarray) -> np.ndarray:
    """:func:`category` for arrays of totals and natural flags (a natural's total is 21).
    Written with array operators only: it serves jax arrays as numpy's."""
    over = total > BUST_CATEGORY
    return total + (BUST_CATEGORY - total) * over + (NATURAL_CATEGORY - 21) * natural


def outcome(rules: Rules, player: int, dealer: int) -> Outcome:
    """The outcome of a standing (not surrendered) hand of category ``player``
    against the dealer's final hand of category ``dealer`` (see :func:`category`):
    the one place a hand is judged against the dealer."""
    if player == BUST_CATEGORY:
        return _OUTCOME_BUST
    ties = rules.ties
    player_bj = player == NATURAL_CATEGORY
    dealer_bj = dealer == NATURAL_CATEGORY
    dealer_bust = dealer == BUST_CATEGORY
    if player_bj and dealer_bj:
        return _OUTCOME_LOSS if ties is _TIE_RULE_DEALER_WINS else _OUTCOME_PUSH
    if player_bj and (rules.natural_beats_21 or dealer != 21):
        return _OUTCOME_BLACKJACK
    if dealer_bj and rules.dealer_natural_beats_21:
        return _OUTCOME_LOSS
    if dealer_bust:
        return _OUTCOME_WIN
    total = 21 if player_bj else player
    dealer_total = 21 if dealer_bj else dealer
    if total > dealer_total:
        return _OUTCOME_BLACKJACK if player_bj else _OUTCOME_WIN
    if total < dealer_total:
        return _OUTCOME_LOSS
    return _OUTCOME_PUSH if ties is _TIE_RULE_PUSH else _OUTCOME_LOSS


def surrender_outcome(dealer_natural: bool) -> Outcome:
    """A surrendered hand settled against the dealer's hand (a late surrender without
    a peek): a dealer natural takes the whole bet, otherwise half comes back."""
    return _OUTCOME_LOSS if dealer_natural else _OUTCOME_SURRENDER


def array_surrender_outcome(dealer_natural: np.ndarray) -> np.ndarray:
    """:func:`surrender_outcome` as outcome codes (:func:`outcome_code`) for a bool array
    of dealer naturals."""
    return _SURRENDER_CODES.take(dealer_natural.astype(np.intp))


def settles_by_highest_hand(rules: Rules) -> bool:
    """The table's hands are compared with each other at the end
    (``Settlement.HIGHEST_HAND``: :func:`highest_hand_outcomes`) rather than each with
    the dealer alone."""
    return rules.settlement is _SETTLEMENT_HIGHEST_HAND


def natural_paid_at_peek(rules: Rules) -> bool:
    """A player's natural that ended its hand is paid as soon as the dealer is known to
    have no natural (after the peek): it can no longer lose or tie, unless a dealer 21
    of three or more cards ties it (``natural_beats_21=False``) or the table's hands are
    compared at the end (:func:`settles_by_highest_hand`); then it waits for the
    dealer's hand."""
    return rules.natural_beats_21 and not settles_by_highest_hand(rules)


def highest_hand_judged(total: int, top: int, dealer_bust: bool) -> bool:
    """Under ``Settlement.HIGHEST_HAND``, whether a live hand (neither bust nor
    surrendered) of ``total`` is judged against the dealer exactly as in the dealer game
    (:func:`outcome`: ties, naturals and their payout included): it holds the table's
    highest live total ``top`` (a natural counts 21), or the dealer busted. Every other
    live hand loses (``Outcome.LOSS``). See :func:`highest_hand_outcomes`."""
    return dealer_bust or total == top


def array_highest_hand_judged(
    total: np.ndarray, top: np.ndarray, dealer_bust: np.ndarray
) -> np.ndarray:
    """:func:`highest_hand_judged` element-wise (bool arrays)."""
    return dealer_bust | (total == top)


def highest_hand_outcomes(
    rules: Rules, players: list[int], surrendered: list[bool], dealer: int
) -> list[Outcome | None]:
    """``Settlement.HIGHEST_HAND``: the outcomes of a table's unsettled hands, of
    categories ``players`` (:func:`category`), against the dealer's final hand of
    category ``dealer``: only the best hands at the table can win.

    A surrendered hand gets :func:`surrender_outcome`; a live hand (not bust) is
    judged by :func:`outcome` when :func:`highest_hand_judged`, else it loses; a bust
    hand gets None (it was settled when it busted)."""
    dealer_natural = dealer == NATURAL_CATEGORY
    dealer_bust = dealer == BUST_CATEGORY
    top = -1
    for cat, surr in zip(players, surrendered, strict=True):
        if not surr and cat != BUST_CATEGORY:
            top = max(top, 21 if cat == NATURAL_CATEGORY else cat)
    out: list[Outcome | None] = []
    for cat, surr in zip(players, surrendered, strict=True):
        if surr:
            out.append(surrender_outcome(dealer_natural))
        elif cat == BUST_CATEGORY:
            out.append(None)
        elif highest_hand_judged(21 if cat == NATURAL_CATEGORY else cat, top, dealer_bust):
            out.append(outcome(rules, cat, dealer))
        else:
            out.append(_OUTCOME_LOSS)
    return out


def play_out_action(pre_peek: bool) -> Action:
    """The action a seat is given when its unfinished round is played out for it (the
    episode ends mid-round, a reset, a truncation): it declines the pre-peek question
    (``pre_peek``: insurance / even money / early surrender) and stands in play."""
    return _ACTION_DECLINE if pre_peek else _ACTION_STAND


def play_out_codes() -> np.ndarray:
    """:func:`play_out_action` as ``Action`` codes at ``[pre_peek]`` (int64, 2 entries)."""
    return np.array([int(play_out_action(False)), int(play_out_action(True))], dtype=np.int64)


def surrender_settles_at_once(rules: Rules) -> bool:
    """A surrender is paid when made (early surrender, or after a peek) rather than
    judged with the dealer's hand (late surrender without a peek)."""
    return rules.surrender is _SURRENDER_EARLY or rules.hole_card is _HOLE_CARD_PEEK


_SURRENDER_CODES: Final = np.array(
    [_OUTCOME_CODE[surrender_outcome(False)], _OUTCOME_CODE[surrender_outcome(True)]],
    dtype=np.int64,
)

#: The net chips won per chip staked on insurance when the dealer has a natural (it
#: pays 2 to 1; the stake is lost otherwise).
INSURANCE_PAYS: Final = 2


def payout(rules: Rules, result: Outcome) -> int | Fraction:
    """Net chips won (+) or lost (-) per chip staked on a hand with this outcome
    (an ``int`` when whole)."""
    if result is _OUTCOME_WIN or result is _OUTCOME_EVEN_MONEY:
        return 1
    if result is _OUTCOME_BLACKJACK:
        return rules.blackjack_payout
    if result is _OUTCOME_PUSH:
        return 0
    if result is _OUTCOME_SURRENDER:
        return _MINUS_HALF
    return -1


# ===================================================================== chips
def can_cover(bankroll: int | Fraction | None, amount: int | Fraction) -> bool:
    """A seat holding ``bankroll`` chips off the table (None: unlimited credit) can put
    ``amount`` more chips on it: the one affordability test (a bet, a double, a matched
    split, insurance)."""
    return bankroll is None or bankroll >= amount


def array_can_cover(bankroll: np.ndarray, amount: np.ndarray | int) -> np.ndarray:
    """:func:`can_cover` element-wise for finite bankrolls (arrays of chips; exact when
    both hold multiples of ``1 / chip_denominator(rules)`` correctly rounded)."""
    return bankroll >= amount


#: Insurance (and even money's alternative) stakes this share of the hand's bet.
_INSURANCE_SHARE: Final = Fraction(1, 2)


def insurance_stake(bet: int | Fraction) -> Fraction:
    """The chips staked on insurance for a hand betting ``bet`` (half the bet)."""
    return Fraction(bet) * _INSURANCE_SHARE


def covers_insurance(bankroll: int | Fraction | None, bet: int | Fraction) -> bool:
    """``can_cover(bankroll, insurance_stake(bet))``, the stake built only for a finite
    bankroll (asked for every seat at every peek: building the ``Fraction`` each time cost
    the engine about a tenth of its speed under vegas-strip rules)."""
    return bankroll is None or can_cover(bankroll, insurance_stake(bet))


def chip_denominator(rules: Rules) -> int:
    """The smallest ``d`` such that every chip amount of a round with whole-chip bets is
    a multiple of ``1 / d``: the denominators of the payouts and of the insurance stake
    (batched code keeps bankrolls as integers in these units, so they stay exact)."""
    den = insurance_stake(1).denominator
    for result in Outcome:
        d = Fraction(payout(rules, result)).denominator
        den = den * d // math.gcd(den, d)
    return den


# ============================================================ card counting
#: The Hi-Lo tag of each rank from ace to king (2-6 count +1, 7-9 count 0, tens, faces
#: and aces -1), by rank, whatever the rules' card values.
HI_LO_TAGS: Final[tuple[int, ...]] = (-1, 1, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, -1)


def hi_lo_tag(rank: int) -> int:
    """The Hi-Lo tag of a rank (ace = 1 ... king = 13)."""
    if not 1 <= rank <= 13:
        raise ValueError(f"rank {rank!r} must be 1 (ace) to 13 (king)")
    return HI_LO_TAGS[rank - 1]


def unseen_by_rank(remaining_by_rank: list[int], hole_rank: int) -> list[int]:
    """The cards a player has not seen, by rank ace..king: the undealt shoe
    (``remaining_by_rank``, a list of 13 counts the caller owns: the hole card is added
    to it, and it is returned) plus the dealer's face-down hole card, whose rank
    (1..13) is ``hole_rank`` (0 when no card is face down)."""
    if hole_rank:
        remaining_by_rank[hole_rank - 1] += 1
    return remaining_by_rank


def hidden_hole_rank(dealer_cards: list[Card], hole_revealed: bool) -> int:
    """Rank (1..13) of the dealer's face-down hole card, 0 when no card is face down
    (not dealt yet, turned over, or no hole card under ``HoleCard.NONE``: the second
    card is then drawn face up)."""
    if len(dealer_cards) > 1 and not hole_revealed:
        return dealer_cards[1].rank
    return 0


def hi_lo_running_count(unseen: list[int]) -> int:
    """The Hi-Lo running count of the cards seen since the shuffle, from the cards not
    seen (13 ints by rank, ace..king): a full shoe's tags add to 0, so it is minus the
    tags of the unseen cards."""
    total = 0
    for i in _TAG_MINUS:
        total += unseen[i]
    for i in _TAG_PLUS:
        total -= unseen[i]
    return total


def hi_lo_true_count(running: int, unseen: int) -> float:
    """The Hi-Lo true count: the running count per deck not yet seen, ``running * 52 /
    unseen`` (``unseen``: cards not seen), 0.0 when no card is unseen (the
    shoe is spent: the count says nothing of a next card)."""
    if unseen == 0:
        return 0.0
    return running * 52.0 / unseen


def array_hi_lo_true_count(running: np.ndarray, unseen: np.ndarray) -> np.ndarray:
    """:func:`hi_lo_true_count` element-wise (float64; the same arithmetic)."""
    if np.count_nonzero(unseen) == unseen.size:  # (the common case: no masked divide)
        return running * 52.0 / unseen
    tc = np.zeros(unseen.shape, dtype=np.float64)
    np.divide(running * 52.0, unseen, out=tc, where=unseen > 0)
    return tc


def true_count_bucket(running: Any, unseen: Any, clip: int) -> Any:
    """The Hi-Lo true count ``running * 52 / unseen`` rounded half to even, clipped to
    ``-clip..clip``, plus ``clip`` (so in ``0..2 * clip``); ``clip`` when no card is
    unseen. In integers, so exact: the same as rounding :func:`hi_lo_true_count`'s float
    quotient (an exact half is a float, and any other quotient is at least
    ``1 / (2 * unseen)`` from one). Written with operators only, so it takes Python ints,
    numpy arrays and ``jax.numpy`` arrays alike (the observation's count field:
    ``envs.view.fields.count_bucket``)."""
    d = unseen + (unseen <= 0)  # max(unseen, 1) for unseen >= 0
    q = running * 52
    k = q // d
    r2 = 2 * (q - k * d)
    k = k + ((r2 > d) | ((r2 == d) & (k % 2 == 1)))  # round half to even
    k = k * (unseen > 0)
    k = k + (k < -clip) * (-clip - k) + (k > clip) * (clip - k)
    return k + clip


# HI_LO_TAGS as the rank indices tagged +1 and -1 (Hi-Lo tags are -1, 0 or +1): adding
# counts is several times faster in compiled code than multiplying by a tag.
_TAG_PLUS: Final = tuple(i for i, tag in enumerate(HI_LO_TAGS) if tag == 1)
_TAG_MINUS: Final = tuple(i for i, tag in enumerate(HI_LO_TAGS) if tag == -1)
assert len(_TAG_PLUS) + len(_TAG_MINUS) == sum(tag != 0 for tag in HI_LO_TAGS)


# ============================================== lookup tables for batched code
def dealer_draw_table(rules: Rules) -> np.ndarray:
    """:func:`dealer_draws` of a dealer hand at entry ``2 * hard + ace`` (bool, 64
    entries: hard totals 0..31, ``ace`` 1 when the hand holds an ace)."""
    out = np.zeros(64, dtype=bool)
    for hard in range(32):
        for ace in (0, 1):
            total, soft = score(hard, ace == 1)
            out[2 * hard + ace] = dealer_draws(rules, total, soft)
    return out


def peek_by_rank(rules: Rules) -> np.ndarray:
    """:func:`dealer_peeks` for each upcard rank index 0..12 (ace..king), bool."""
    values = rules.card_values
    return np.array([dealer_peeks(rules, values[r], r == 0) for r in range(13)], dtype=bool)


# Bits of a :func:`play_action_table` key above ``2 * hard + ace`` (0..63 holds the
# hand's hard total 0..31 with aces as 1, and whether it holds an ace); the upcard's
# rank index (0..12) times KEY_UPCARD is added to them.
#: Key bit of a :func:`play_action_table` key for a hand of two cards.
KEY_TWO_CARDS: Final = 64
#: Key bit for a hand split from aces.
KEY_SPLIT_ACES: Final = 128
#: Key bit for a pair that may still be split.
KEY_CAN_SPLIT: Final = 256
#: Key bit for a hand that came from a split.
KEY_FROM_SPLIT: Final = 512
#: The upcard's rank index (0..12) times this is added to a key.
KEY_UPCARD: Final = 1024


#: The fields of :class:`~blackjack_env.engine.rules.Rules` that the legal actions read
#: (:func:`play_actions`, :func:`pre_peek_actions`, :func:`split_allowed` and what they
#: call): the legal-action tables below are cached by these alone
#: (:func:`legality_key`), so rule sets that differ only elsewhere (payouts, S17/H17,
#: decks, settlement, ...) share one table, as a rule space's draws do at every reset.
#: A test varies every other field and finds the tables unchanged.
LEGALITY_FIELDS: Final = (
    "hole_card", "double", "double_after_split", "max_split_hands", "resplit_aces",
    "hit_split_aces", "surrender", "insurance", "card_values",
)  # fmt: skip
#: Play tables kept (:func:`play_action_table`: 91 KB each), and the small tables and
#: answers of the other three; each cache is emptied when full.
PLAY_TABLES_KEPT: Final = 64
SMALL_TABLES_KEPT: Final = 4096
_play_tables: dict[tuple[Any, ...], Any] = {}
_small_tables: dict[tuple[Any, ...], Any] = {}


def legality_key(rules: Rules) -> tuple[Any, ...]:
    """The values of :data:`LEGALITY_FIELDS` in ``rules``: two rule sets of the same key
    have the same legal actions in every state."""
    return tuple(getattr(rules, name) for name in LEGALITY_FIELDS)


def _keep(kept: dict[tuple[Any, ...], Any], limit: int, key: tuple[Any, ...], table: Any) -> None:
    """``table`` kept in ``kept`` under ``key`` (``kept`` emptied first when it holds
    ``limit``)."""
    if len(kept) >= limit:
        kept.clear()
    kept[key] = table


def play_action_table(
    rules: Rules, n_actions: int = 7, afford_double: bool = True
) -> np.ndarray:
    """:func:`play_actions` as a ``(13 * KEY_UPCARD, n_actions)`` bool table for one seat
    with unlimited credit (``afford_double=False``: whose bankroll cannot cover a
    double): row ``2 * hard + ace`` (the total is :func:`score`'s), plus
    :data:`KEY_TWO_CARDS`, :data:`KEY_SPLIT_ACES`, :data:`KEY_CAN_SPLIT`,
    :data:`KEY_FROM_SPLIT` (the seat has
    split: its hands all come from a split, and it holds more than one) where they
    hold, plus ``KEY_UPCARD *`` the upcard's rank index (0 = ace .. 12 = king);
    columns are ``Action`` codes. Shared: do not modify it (cached by
    :func:`legality_key`)."""
    cache_key = (legality_key(rules), n_actions, afford_double)
    found = _play_tables.get(cache_key)
    if found is not None:
        table: np.ndarray = found
        return table
    built = _play_action_table(rules, n_actions, afford_double)
    _keep(_play_tables, PLAY_TABLES_KEPT, cache_key, built)
    return built


def _play_action_table(rules: Rules, n_actions: int, afford_double: bool) -> np.ndarray:
    """:func:`play_action_table`, built."""
    # Each row is one of a few action sets: the rows name their set (index), and each
    # set becomes a bool row once. The upcard enters play_actions only through
    # dealer_peeks (whether a surrender comes after the peek), so ranks of the same
    # answer share their block of rows: two blocks are built, not thirteen.
    sets: dict[tuple[Action, ...], int] = {}
    index = np.zeros(13 * KEY_UPCARD, dtype=np.intp)
    values = rules.card_values
    done: dict[bool, int] = {}  # dealer_peeks' answer -> the rank whose block holds it
    for rank in range(13):
        up = dealer_peeks(rules, values[rank], rank == 0)
        start = rank * KEY_UPCARD
        if up in done:
            first = done[up] * KEY_UPCARD
            index[start : start + KEY_UPCARD] = index[first : first + KEY_UPCARD]
            continue
        done[up] = rank
        for key in range(KEY_UPCARD):
            from_split = bool(key & KEY_FROM_SPLIT)
            total, soft = score((key & 63) >> 1, bool(key & 1))
            legal = play_actions(
                rules,
                two_cards=bool(key & KEY_TWO_CARDS),
                total=total,
                soft=soft,
                can_split=bool(key & KEY_CAN_SPLIT),
                split_aces=bool(key & KEY_SPLIT_ACES),
                from_split=from_split,
                hands=2 if from_split else 1,
                up_value=values[rank],
                up_ace=rank == 0,
                afford_double=afford_double,
            )
            found = sets.get(legal)
            if found is None:
                found = sets[legal] = len(sets)
            index[start + key] = found
    rows = np.zeros((len(sets), n_actions), dtype=bool)
    for legal, i in sets.items():
        rows[i, [int(a) for a in legal]] = True
    out: np.ndarray = rows[index]
    return out


def pre_peek_action_table(rules: Rules, insurance: bool, n_actions: int = 7) -> np.ndarray:
    """:func:`pre_peek_actions` as a ``(26, n_actions)`` bool table, row
    ``2 * upcard rank index + natural``; columns are ``Action`` codes. Shared: do not
    modify it (cached by :func:`legality_key`)."""
    cache_key = ("pre_peek", legality_key(rules), insurance, n_actions)
    found = _small_tables.get(cache_key)
    if found is not None:
        table: np.ndarray = found
        return table
    out = np.zeros((26, n_actions), dtype=bool)
    values = rules.card_values
    for key in range(26):
        rank = key >> 1
        legal = pre_peek_actions(
            rules, up_value=values[rank], up_ace=rank == 0, natural=bool(key & 1),
            insurance=insurance,
        )
        out[key, [int(a) for a in legal]] = True
    _keep(_small_tables, SMALL_TABLES_KEPT, cache_key, out)
    return out


def stand_hit_only(rules: Rules) -> bool:
    """True when no hand is ever offered more than ``STAND`` and ``HIT`` under these
    rules (Gymnasium's game): read off :func:`play_actions` over every state (cached by
    :func:`legality_key`)."""
    cache_key = ("stand_hit", legality_key(rules))
    found = _small_tables.get(cache_key)
    if found is not None:
        return bool(found)
    table = _play_action_table(rules, 7, True)  # built, not kept: the answer is kept
    can_split = (np.arange(table.shape[0]) & KEY_CAN_SPLIT) != 0
    options = [int(_ACTION_DOUBLE), int(_ACTION_SURRENDER)]
    only = not (table[~can_split][:, options].any() or split_allowed_table(rules)[:, 1:].any())
    _keep(_small_tables, SMALL_TABLES_KEPT, cache_key, only)
    return only


def split_allowed_table(rules: Rules) -> np.ndarray:
    """:func:`split_allowed` at ``[pair, hands, split_aces]`` (bool, ``(2, 9, 2)``:
    hands 0..8; cached by :func:`legality_key`: do not modify it)."""
    cache_key = ("split", legality_key(rules))
    found = _small_tables.get(cache_key)
    if found is not None:
        table: np.ndarray = found
        return table
    out = np.zeros((2, 9, 2), dtype=bool)
    for pair in (0, 1):
        for hands in range(9):
            for aces in (0, 1):
                out[pair, hands, aces] = split_allowed(
                    rules, pair=pair == 1, hands=hands, split_aces=aces == 1
                )
    _keep(_small_tables, SMALL_TABLES_KEPT, cache_key, out)
    return out


@lru_cache(maxsize=64)
def pair_table(rules: Rules) -> np.ndarray:
    """:func:`is_pair` under the rules' ``split_by`` at entry ``13 * i + j`` for rank
    indices ``i``, ``j`` (0 = ace .. 12 = king) (bool, 169 entries). Shared: do not
    modify it."""
    classes = [pair_class(rules, rank) for rank in range(1, 14)]
    return np.array([a == b for a in classes for b in classes], dtype=bool)


def split_done_table(rules: Rules) -> np.ndarray:
    """:func:`split_hand_done` at entry ``8 * split_aces + 4 * can_split + 2 * natural
    + (total == 21)`` (bool, 16 entries)."""
    out = np.zeros(16, dtype=bool)
    for key in range(16):
        out[key] = split_hand_done(
            rules,
            split_aces=bool(key & 8),
            can_split=bool(key & 4),
            natural=bool(key & 2),
            total=21 if key & 1 else 20,
        )
    return out


@lru_cache(maxsize=64)
def outcome_table(rules: Rules) -> np.ndarray:
    """:func:`outcome` as codes (an :class:`Outcome`'s position in the enum) at entry
    ``NUM_CATEGORIES * player + dealer`` (int64, flat ``24 * 24``)."""
    return np.array(
        [
            outcome_code(outcome(rules, p, d))
            for p in range(NUM_CATEGORIES)
            for d in range(NUM_CATEGORIES)
        ],
        dtype=np.int64,
    )


def outcome_code(result: Outcome) -> int:
    """An outcome's code in batched code: its position in :class:`Outcome` (``WIN`` = 0
    ... ``EVEN_MONEY`` = 6), as :func:`outcome_table` and :func:`payout_factors` use."""
    return _OUTCOME_CODE[result]


def payout_factors(rules: Rules) -> np.ndarray:
    """:func:`payout` of each outcome code as float64 (index = position in :class:`Outcome`)."""
    return np.array([float(payout(rules, o)) for o in Outcome], dtype=np.float64)
