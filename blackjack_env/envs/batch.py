"""Many blackjack tables stepped at once with numpy: the batched tables of the vector env.

:class:`TableBatch` plays ``num_tables`` independent tables, each with one
player seat and a dealer, under one :class:`~blackjack_env.engine.rules.Rules`.
It is the engine's round (:class:`~blackjack_env.engine.table.Table`) rewritten
as structure-of-arrays code: every field of every hand of every table is an
element of a numpy array, and one call advances all tables. Nothing here
imports gymnasium; :mod:`blackjack_env.envs.vector` wraps it as a
``gymnasium.vector.VectorEnv``.

Semantics are those of :class:`~blackjack_env.engine.table.Table` for a single
seat (the parity tests replay stacked rounds through both and compare every
reward): a fixed bet, or a stake per table given to :meth:`TableBatch.start_rounds`
(bet steps: :meth:`TableBatch.open_rounds` first opens the round as
``Table.new_round`` does); unlimited credit, or a bankroll per table (exact, in
integer units of ``1 / chip_den`` chips) that doubles, matched splits and
insurance must be covered by (``engine.play.can_cover``). No rule is decided here: legal
actions, the pre-peek question, the peek, splits, the dealer's drawing rule,
outcomes and payouts are read from lookup tables that :mod:`blackjack_env.engine.play`
builds from its functions, and totals use its array forms. The round:

* deal order: player, dealer upcard, player, dealer hole card (none under
  ``HoleCard.NONE``); a split hand receives its second card when play reaches it;
* the insurance / early-surrender decision before the peek (``Phase.INSURANCE``),
  the peek, naturals, double, split (up to ``max_split_hands``, resplit aces,
  hit split aces, by rank or value, matched or halved bets), late / early
  surrender, S17 / H17, no-peek and no-hole-card dealers, every tie rule, both
  settlements, custom card values;
* each table has its own shoe: ``decks`` x 52 card ids (0..51, suit-major as in
  :data:`~blackjack_env.engine.cards.ALL_CARDS`) in a row whose cards from
  ``pos`` on are undealt. The shuffle is lazy: each draw takes a uniformly
  random undealt card (an incremental Fisher-Yates shuffle, so the deal order
  is a uniformly random permutation, as a shuffled shoe), and a reshuffle
  (between rounds, once the cut card at ``penetration`` is out) just gathers
  every card back; if a shoe runs dry mid-round, the table's discards become
  its undealt cards, as a casino reshuffles the discard tray. Or an infinite
  deck (``decks=None``): cards drawn with replacement; the dealer's drawing is
  then sampled in one step from the exact distribution of its final hand given
  its cards (unless stacked cards are pending), which is the same law as
  drawing card by card;
* stacked cards (:meth:`TableBatch.stack`) are dealt first, in order;
* every random number comes from the one injected ``numpy.random.Generator``
  (through pre-drawn blocks): same generator state and actions, same game.

Several seats (``seats=S``): row ``r`` is seat ``r % S`` of table ``r // S``. Hand arrays
and per-seat state (``phase``, ``nhands``, ``cur``, ``last_hand``, stakes, insurance) are
per row; the table's shoe is kept at the row of seat 0 (:attr:`TableBatch.lead_row`; the
other rows hold copies of its counters after every call) and the dealer is drawn there
and copied to every seat once played. The deal takes ``2S + 2`` cards (``2S + 1``
without a hole card) from the shoe in casino order; pre-peek questions go seat by seat
(phase ``PEEK_WAIT`` for a seat waiting for the peek); then seat 0 plays all its hands,
seat 1, ... (phase ``DONE`` for a seat whose hands are done); :meth:`TableBatch.acting`
names the one seat each table waits for, and only it acts in :meth:`TableBatch.step`, so
one seat per table draws at a time. After the last seat the dealer plays once and
every seat is settled; the step reports the round for every seat of the table. Fixed
bet and unlimited credit only.

Not supported here (the constructor raises ``ValueError``): ``bet_raising`` (a per-card
bet decision); bet sizes and bankrolls with several seats.

Round life cycle of a table (``phase``):

``DECIDE``
    the player's current hand awaits a playing action (``Action`` 0..4);
``INSURE``
    the pre-peek decision (``Action.INSURE`` / ``DECLINE`` / ``SURRENDER``);
``OVER``
    the round was settled at the deal (a natural paid at once, a dealer
    blackjack found by the peek, or a natural with nothing to decide) and the
    result has not been reported yet: the next :meth:`TableBatch.step` reports
    it whatever the action.

:meth:`TableBatch.step` returns, per table, whether the round ended on that
step and the net result in units of the bet; a round that ends mid-step is
reported on that step (no extra step), a round settled at the deal on the
step after the deal.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import IntEnum

import numpy as np

from blackjack_env.analysis.dealer import final_distribution
from blackjack_env.engine import play
from blackjack_env.engine.cards import ALL_CARDS, Card, parse_cards
from blackjack_env.engine.play import Action, Outcome, array_soft, array_total
from blackjack_env.engine.rules import (
    HoleCard,
    Rules,
    Settlement,
    SplitBet,
    Surrender,
)

__all__ = ["OUTCOME_CODES", "BatchPhase", "TableBatch"]


class BatchPhase(IntEnum):
    """Where a table's round stands (see the module docstring)."""

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
_HI_LO = np.array(play.HI_LO_TAGS, dtype=np.int64)
_INSURANCE_PAYS = float(play.INSURANCE_PAYS)  # net per chip staked on insurance, 2:1

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

#: The dealer's final total (22: bust) by the category 0..5 of :meth:`TableBatch._dealer_cdf`
#: (17, 18, 19, 20, 21, bust), for any count 0..16 of thresholds passed.
_DEALER_FINAL = np.minimum(17 + np.arange(17), 22)

#: 0.0, 1.0, ...: the j-th of consecutive draws from one shoe has j cards fewer to pick from.
_STEPS = np.arange(16, dtype=np.float64)
_STEPS_INT = np.arange(16, dtype=np.int64)

#: Infinite-deck cards drawn per generator call.
_POOL = 1 << 20

#: Number of decision codes the batched tables understand (``Action`` 0..6).
NUM_CORE_ACTIONS = 7


class TableBatch:
    """``num_tables`` single-seat blackjack tables stepped together.

    Args:
        rules: the rule set (``rules.seats`` equal to ``seats``; ``bet_raising`` False).
        num_tables: how many tables.
        rng: the one generator every shuffle and infinite-deck draw comes from.
        bet: the fixed bet per round in chips (rewards are in units of it).
        ask_insurance: the player is asked about insurance / even money (an
            ``INSURE`` decision); otherwise they are always declined and the
            pre-peek decision only occurs under early surrender.
        track_cards: also keep the cards by rank: ``hand_ranks`` ``(H, N, 13)``,
            ``dealer_ranks`` ``(N, 13)`` and (finite shoes) ``counts``, the undealt
            cards by rank ``(N, 13)`` (the env's ``"dict"`` observations need them;
            the infinite-deck dealer sampling is then not used).
        bet_sizes: the multiples of ``bet`` a table may stake (``start_rounds(bets=)``),
            ``()`` for a fixed bet (split stakes are then checked per hand).
        bankroll: every table's starting chips (:meth:`chips`, :meth:`set_chips`), or
            None for unlimited credit.
        seats: seats per table (``rules.seats`` must equal it); with more than one,
            ``num_tables`` counts rows (seats), a multiple of ``seats``: see the module
            docstring.

    Public state (numpy arrays; ``H = rules.max_split_hands``, ``N = num_tables``;
    hand arrays are ``(H, N)``, hand ``h`` of table ``t`` at ``[h, t]``):
    ``phase`` (``BatchPhase`` codes), ``nhands``, ``cur`` (hand to act),
    ``hard`` (hand total with aces as 1), ``ace`` (holds an ace), ``ncards``,
    ``r0``/``r1`` (rank index 0..12 of the first two cards), ``stake``
    (chips on the hand), ``doubled``, ``surrendered``, ``settled``, ``outcome``
    (index into :data:`OUTCOME_CODES`, -1 unsettled), ``net`` (chips won, + or -),
    ``insurance`` (chips staked on insurance), ``d_hard``/``d_ace``/``d_n``
    (dealer), ``up`` / ``hole`` (dealer card ids; ``hole`` -1 when there is
    none yet), ``hole_revealed``, ``peek_possible``, ``counts`` (undealt cards
    by rank, finite shoes), ``rounds`` (rounds dealt), ``reshuffled`` (the
    shoe was reshuffled before the current round), ``opened`` (opened by
    :meth:`open_rounds`, awaiting a bet), ``bankroll`` (chips before the current
    round's bet in units of ``1 / chip_den``, or None). Hand ``h`` of table ``t`` is
    element ``h * N + t`` of a hand array's flat view (``hard.reshape(-1)``).

    Rule constants (read-only arrays): ``card_values`` (point value by rank index
    0..12, 0 = ace), ``rank_of_card`` (rank index of each card id 0..51),
    ``legal_table`` / ``legal_table_phase`` (the legal decisions by row key, see
    :meth:`legal_keys`).
    """

    def __init__(
        self,
        rules: Rules,
        num_tables: int,
        rng: np.random.Generator,
        bet: int = 1,
        ask_insurance: bool = False,
        track_cards: bool = False,
        bet_sizes: tuple[int, ...] = (),
        bankroll: int | None = None,
        seats: int = 1,
    ) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
        if isinstance(seats, bool) or not isinstance(seats, (int, np.integer)) or not (
            1 <= seats <= 7
        ):
            raise ValueError(f"seats={seats!r} must be an int from 1 to 7")
        if rules.seats != seats:
            raise ValueError(
                f"rules.seats={rules.seats} must equal seats={seats} (the seats per table)"
            )
        if seats > 1 and (tuple(bet_sizes) or bankroll is not None):
            raise ValueError(
                f"seats={seats}: bet_sizes and a finite bankroll are not supported with "
                f"several seats per table (fixed bet, unlimited credit only)"
            )
        if seats > 1 and (
            isinstance(num_tables, (int, np.integer)) and num_tables % seats != 0
        ):
            raise ValueError(
                f"num_tables={num_tables!r} (rows) must be a multiple of seats={seats}"
            )
        if rules.bet_raising:
            raise ValueError(
                "bet_raising=True (a bet decision after each card) is not supported by the "
                "batched tables; use the single-seat env"
            )
        if isinstance(num_tables, bool) or not isinstance(num_tables, (int, np.integer)) or (
            num_tables < 1
        ):
            raise ValueError(f"num_tables={num_tables!r} must be an int >= 1")
        if isinstance(bet, bool) or not isinstance(bet, (int, np.integer)) or not (
            rules.min_bet <= bet <= rules.max_bet
        ):
            raise ValueError(
                f"bet={bet!r} must be an int within the table limits "
                f"{rules.min_bet}..{rules.max_bet}"
            )
        self.rules = rules
        self.rng = rng
        self.bet = int(bet)
        self.ask_insurance = bool(ask_insurance) and rules.insurance
        n = self.num_tables = int(num_tables)
        h = self.max_hands = rules.max_split_hands
        self._arange = np.arange(n)
        #: seats per table: row ``r`` is seat ``r % seats`` of table ``r // seats``
        self.seats = int(seats)
        #: per row, the row of seat 0 of its table (it holds the table's shoe and dealer)
        self.lead_row = self._arange - self._arange % self.seats

        # ----- rule constants
        self._values = np.array(rules.card_values, dtype=np.int64)  # by rank index
        self._rank_of_id = np.array([c.rank - 1 for c in ALL_CARDS], dtype=np.int64)
        self._value_of_id = self._values.take(self._rank_of_id)
        #: point value by rank index 0..12 (``rules.card_values``; read-only)
        self.card_values = self._values.view()
        #: rank index 0..12 (0 = ace) of each card id 0..51 (read-only)
        self.rank_of_card = self._rank_of_id.view()
        for public in (self.card_values, self.rank_of_card):
            public.flags.writeable = False
        # the rules of play, as lookup tables built from engine/play's functions
        self._factor = play.payout_factors(rules)  # net per chip, by outcome code
        # a hand's net can be -0.0 (a factor is -0.0)
        self._negative_zero = bool((np.signbit(self._factor) & (self._factor == 0)).any())
        # aces by rank (custom values may make another card worth 1)
        self._ace_of_id = self._rank_of_id == 0
        self._outcome_table = play.outcome_table(rules)  # (player, dealer) categories
        self._by_hands = self._outcome_by_hands()  # the same, keyed by the hands (_compare)
        self._dealer_hits = play.dealer_draw_table(rules)  # entry 2 * hard + ace
        # the dealer hand's key after one more card: entry 52 * (2 * hard + ace) + card id
        # (a key where the dealer stands keeps it; drawing keys stay below 64: hard <= 16
        # plus a card of at most 10)
        keys = np.arange(64)
        after = 2 * (keys[:, None] // 2 + self._value_of_id[None, :])
        after |= (keys[:, None] % 2 == 1) | self._ace_of_id[None, :]
        self._dealer_next = np.where(self._dealer_hits[:, None], after, keys[:, None]).reshape(-1)
        self._peek_by_rank = play.peek_by_rank(rules)  # by upcard rank index
        # legal decisions, one row per key (legal_mask): play_action_table's rows, then
        # the row of a round that is over (STAND only: the step reports the result),
        # then pre_peek_action_table's rows; each row packed into one uint64 (8 bools)
        pre_peek = play.pre_peek_action_table(rules, self.ask_insurance, NUM_CORE_ACTIONS)
        rows = np.concatenate(
            [play.play_action_table(rules, NUM_CORE_ACTIONS), _STAND_ONLY[None, :], pre_peek]
        )
        #: ``(K, 7)`` bool, read-only: the legal decisions of each row key (:meth:`legal_keys`)
        self.legal_table = rows
        rows.flags.writeable = False
        packed = np.zeros((rows.shape[0], 8), dtype=bool)
        packed[:, :NUM_CORE_ACTIONS] = rows
        self._legal_rows = packed.view(np.uint64).reshape(-1)
        self._over_key = 13 * play.KEY_UPCARD
        #: ``(K,)`` the ``BatchPhase`` of a table whose key is the row's (read-only)
        self.legal_table_phase = np.full(rows.shape[0], _DECIDE, dtype=np.int64)
        self.legal_table_phase[self._over_key] = _OVER
        self.legal_table_phase[self._over_key + 1 :] = _INSURE_PHASE
        self.legal_table_phase.flags.writeable = False
        # rules where every hand in play may stand or hit and nothing else: the row of
        # a hand of more than two cards (key 0: hard 0, no ace, upcard ace) is every row
        self._stand_hit_only = play.stand_hit_only(rules)
        self._stand_hit_key = 0
        # stand/hit-only rules: the key by phase code (DECIDE, INSURE (set apart), OVER)
        self._stand_hit_keys = np.array([0, 0] + [self._over_key] * 3, dtype=np.int64)
        self._pre_peek_key = self._over_key + 1  # + 2 * upcard rank index + natural
        self._asks_pre_peek = pre_peek.sum(axis=1) > 1  # more than DECLINE
        self._pair = play.pair_table(rules)  # is_pair at 13 * rank index + rank index
        # split_allowed at 18 * pair + 2 * hands + split aces
        self._split_ok = play.split_allowed_table(rules).reshape(-1)
        # (the bet is fixed: a hand's stake at a split decision is the bet)
        self._splits = play.split_stake_ok(rules, self.bet, True) and bool(
            play.split_allowed_table(rules)[:, 1:].any()
        )
        self._split_done = play.split_done_table(rules)
        self._surrender_at_once = play.surrender_settles_at_once(rules)
        self._surrenders = rules.surrender is not Surrender.NONE
        # one hand that is never doubled: its stake is always the bet (set once, below)
        self._stake_fixed = h == 1 and not rules.can_double
        self._bet_factor = self.bet * self._factor  # net of a hand staking the bet
        self._peek = rules.hole_card is HoleCard.PEEK
        self._no_hole = rules.hole_card is HoleCard.NONE
        # a hand reaching play.AUTO_STAND_TOTAL stands by itself (play.auto_stands)
        self._auto21 = play.auto_stands(rules, play.AUTO_STAND_TOTAL)
        # a two-card 21 on a split hand is a natural (play.natural_counts)
        self._split_naturals = play.natural_counts(rules, from_split=True)
        self._naturals_paid_at_peek = (
            rules.natural_beats_21 and rules.settlement is Settlement.DEALER
        )

        # ----- shoe
        self.decks = rules.shoe_decks
        self.infinite = self.decks is None
        self._stacked_any = False  # infinite deck: some table has stacked cards to deal
        self._ever_stacked = False  # stack() was called
        # pre-drawn random numbers: card ids (infinite deck) or uniforms (finite shoes)
        self._pool: np.ndarray = np.zeros(0)
        self._cdf: np.ndarray | None = None  # infinite deck: dealer final-hand CDFs
        self._to_dealer: list[np.ndarray] = []  # tables whose hands are all done (in a call)
        self._can_double_rule = rules.can_double
        # a pre-peek decision (the INSURE phase) can occur
        self._pre_peek = self._peek and bool(
            (self._asks_pre_peek.reshape(13, 2) & self._peek_by_rank[:, None]).any()
        )
        # one hand per round and no pre-peek decision, infinite deck: a step's hit cards
        # are one whole-width block of the card stream (table t takes entry t)
        self._hit_block = h == 1 and not self._pre_peek and self.infinite
        self._pool_pos = 0
        if self.infinite:
            self.shoe_size = 416  # the stacked-card buffer
        else:
            self.shoe_size = 52 * self.decks
            self._cut = (
                None if rules.penetration is None else rules.penetration * self.shoe_size
            )
            self._full_counts = np.bincount(
                np.tile(self._rank_of_id, self.decks), minlength=13
            ).astype(np.int64)
        s = self.shoe_size
        self.shoe = np.zeros((n, s), dtype=np.int8)
        if not self.infinite:
            self.shoe[:] = np.tile(np.arange(52, dtype=np.int8), self.decks)
        self.pos = np.zeros(n, dtype=np.int64)
        self.stacked_end = np.zeros(n, dtype=np.int64)  # stacked cards lie in [pos, stacked_end)
        self.round_start = np.zeros(n, dtype=np.int64)
        # cards dealt since the last shuffle minus pos (``dealt``): changes only when a
        # shoe runs dry mid-round, so a draw advances pos alone
        self._dealt_minus_pos = np.zeros(n, dtype=np.int64)
        self.undealt_hilo = np.zeros(n, dtype=np.int64)  # Hi-Lo sum of the undealt cards
        self._hilo_of_id = _HI_LO[self._rank_of_id]
        # 64 per card plus its Hi-Lo tag: summed over a table's draws, the count of cards
        # (sum + 32) >> 6 and the tags' sum together (at most 20 cards: |tags| < 32)
        self._draw_tag = 64 + self._hilo_of_id
        self.shuffles = np.zeros(n, dtype=np.int64)
        self.mid_round_reshuffles = np.zeros(n, dtype=np.int64)
        self.reshuffled = np.zeros(n, dtype=bool)

        # ----- seat / hands
        self.phase = np.full(n, _OVER, dtype=np.int64)
        self.nhands = np.ones(n, dtype=np.int64)
        self.cur = np.zeros(n, dtype=np.int64)
        self.last_hand = np.zeros(n, dtype=np.int64)  # hand of the last playing decision
        self.hard = np.zeros((h, n), dtype=np.int64)
        self.ace = np.zeros((h, n), dtype=bool)
        self.ncards = np.zeros((h, n), dtype=np.int64)
        self.r0 = np.zeros((h, n), dtype=np.int64)
        self.r1 = np.zeros((h, n), dtype=np.int64)
        self.stake = np.zeros((h, n), dtype=np.int64)
        if self._stake_fixed:
            self.stake[0] = self.bet
        self.doubled = np.zeros((h, n), dtype=bool)
        self.surrendered = np.zeros((h, n), dtype=bool)
        self.done = np.zeros((h, n), dtype=bool)
        self.settled = np.zeros((h, n), dtype=bool)
        self.outcome = np.full((h, n), -1, dtype=np.int64)
        self.net = np.zeros((h, n), dtype=np.float64)
        self.insurance = np.zeros(n, dtype=np.float64)
        self.insurance_net = np.zeros(n, dtype=np.float64)
        self._hand_fields = (
            self.hard, self.ace, self.ncards, self.r0, self.r1, self.stake, self.doubled,
            self.surrendered, self.done, self.settled, self.outcome, self.net,
        )  # fmt: skip
        # ----- dealer
        self.d_hard = np.zeros(n, dtype=np.int64)
        self.d_ace = np.zeros(n, dtype=bool)
        self.d_n = np.zeros(n, dtype=np.int64)
        self.up = np.zeros(n, dtype=np.int64)
        self._up_key = np.zeros(n, dtype=np.int64)  # KEY_UPCARD * upcard rank index
        self.hole = np.full(n, -1, dtype=np.int64)
        self.hole_revealed = np.zeros(n, dtype=bool)
        self.peek_possible = np.zeros(n, dtype=bool)
        self.rounds = np.zeros(n, dtype=np.int64)
        self.track_cards = bool(track_cards)
        self.hand_ranks = np.zeros((h, n, 13) if track_cards else (h, 0, 13), dtype=np.int64)
        self.dealer_ranks = np.zeros((n, 13) if track_cards else (0, 13), dtype=np.int64)
        self.counts = np.zeros((n, 13) if track_cards else (0, 13), dtype=np.int64)
        self._bind_views()
        self._new_shoes(self._arange)
        self._init_chips(bet_sizes, bankroll)

    @property
    def _round_flags(self) -> tuple[np.ndarray, ...]:
        """The flat hand arrays a new round clears on hand 0 (``doubled`` / ``surrendered``
        only where the rules let them become true)."""
        flags = [self._done, self._settled, self._net]
        if self._can_double_rule:
            flags.append(self._doubled)
        if self._surrenders:
            flags.append(self._surrendered)
        return tuple(flags)

    # ============================================================ plumbing
    _VIEWS = (
        "_shoe_flat", "_flat_fields", "_hard", "_ace", "_ncards", "_r0", "_r1", "_stake",
        "_doubled", "_surrendered", "_done", "_settled", "_outcome", "_net", "_hand_ranks_f",
    )  # fmt: skip

    def _bind_views(self) -> None:
        """Flat views of the hand arrays (rebuilt after unpickling: views do not survive it)."""
        self._shoe_flat = self.shoe.reshape(-1)
        self._flat_fields = tuple(arr.reshape(-1) for arr in self._hand_fields)
        (
            self._hard, self._ace, self._ncards, self._r0, self._r1, self._stake, self._doubled,
            self._surrendered, self._done, self._settled, self._outcome, self._net,
        ) = self._flat_fields  # fmt: skip
        self._hand_ranks_f = self.hand_ranks.reshape(-1, 13)

    def __getstate__(self) -> dict[str, object]:
        state = self.__dict__.copy()
        for name in self._VIEWS:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_ever_stacked", True)
        self._bind_views()

    # ================================================================= shoe
    def _new_shoes(self, idx: np.ndarray) -> None:
        """Shuffle: every card of tables ``idx`` back in the shoe (an infinite deck: drop
        stacked cards).

        The shuffle is lazy: a row always holds each card of the shoe once, the
        undealt ones at ``pos:``; each draw takes a uniformly random undealt card
        (an incremental Fisher-Yates shuffle), so gathering the cards back is all
        a reshuffle has to do. Stacked cards not dealt yet stay on top, in their order
        (as the engine's ``Shoe.shuffle``).
        """
        held: list[tuple[int, np.ndarray]] = []
        if self._ever_stacked and not self.infinite:
            for t in idx[self.stacked_end[idx] > self.pos[idx]].tolist():
                held.append((t, self.shoe[t, self.pos[t] : self.stacked_end[t]].copy()))
        self.pos[idx] = 0
        self.stacked_end[idx] = 0
        if self.infinite:
            return
        for t, cards in held:  # every card is undealt now: move the stacked ones to the top
            row = self.shoe[t]
            for j, cid in enumerate(cards.tolist()):
                src = j + int((row[j:] == cid).nonzero()[0][0])
                row[j], row[src] = row[src], row[j]
            self.stacked_end[t] = cards.size
        self.round_start[idx] = 0
        self._dealt_minus_pos[idx] = 0
        self.undealt_hilo[idx] = 0  # a full shoe is balanced
        if self.track_cards:
            self.counts[idx] = self._full_counts
        self.shuffles[idx] += 1

    def needs_shuffle(self, idx: np.ndarray) -> np.ndarray:
        """Per table in ``idx``: the cut card is out (between rounds only)."""
        if self.infinite:
            return np.zeros(idx.size, dtype=bool)
        dealt = self.pos[idx] + self._dealt_minus_pos[idx]
        if self._cut is None:
            return dealt > 0
        return dealt >= self._cut

    @property
    def dealt(self) -> np.ndarray:
        """Cards dealt per table since its last shuffle (0 for an infinite deck); a copy."""
        if self.infinite:
            return np.zeros(self.num_tables, dtype=np.int64)
        return self.pos + self._dealt_minus_pos

    def remaining(self) -> np.ndarray:
        """Undealt cards per table (-1 for an infinite deck)."""
        if self.infinite:
            return np.full(self.num_tables, -1, dtype=np.int64)
        return self.shoe_size - self.pos

    def _draw(self, idx: np.ndarray) -> np.ndarray:
        """Deal one card id to each table in ``idx`` (distinct tables; with several seats,
        rows of distinct tables: the card comes from the table's shoe)."""
        if self.seats > 1:
            idx = self.lead_row[idx]
        if self.infinite:
            cards = self._random_cards(idx.size)
            if self._stacked_any:
                pos = self.pos[idx]
                sel = pos < self.stacked_end[idx]
                if sel.any():
                    ts, ps = idx[sel], pos[sel]
                    cards[sel] = self._shoe_flat[ts * self.shoe_size + ps]
                    self.pos[ts] = ps + 1
                else:
                    self._stacked_any = bool((self.stacked_end > self.pos).any())
            return cards
        size = self.shoe_size
        pos = self.pos[idx]
        if pos.size and pos.max() >= size:
            self._refill_mid_round(idx[pos >= size])
            pos = self.pos[idx]
        fi = idx * size
        fi += pos
        # a uniformly random undealt card (stacked cards are dealt in order first)
        offset = (self._uniforms(idx.size) * (size - pos)).astype(np.int64)
        if self._stacked_any:
            offset[pos < self.stacked_end[idx]] = 0
        fj = fi + offset
        flat = self._shoe_flat
        cards = flat[fj]
        flat[fj] = flat[fi]
        flat[fi] = cards
        self.pos[idx] = pos + 1
        self.undealt_hilo[idx] -= self._hilo_of_id.take(cards)
        if self.track_cards:
            self.counts[idx, self._rank_of_id.take(cards)] -= 1
        return cards

    def _draw_many(self, idx: np.ndarray, k: int) -> np.ndarray:
        """Deal ``k`` consecutive cards to each table in ``idx``: shape ``(k, len(idx))``,
        card-major (row ``j``: every table's ``j``-th card)."""
        if self.infinite:
            if self._stacked_any:
                return np.stack([self._draw(idx) for _ in range(k)])
            return self._random_cards(idx.size * k).reshape(idx.size, k).T
        size = self.shoe_size
        pos = self.pos[idx]
        out = np.empty((k, idx.size), dtype=np.int8)
        if self._stacked_any or (pos.size and pos.max() + k > size):
            for j in range(k):
                out[j] = self._draw(idx)
            return out
        # k steps of the incremental Fisher-Yates shuffle, bookkeeping done once
        flat = self._shoe_flat
        fi = idx * size
        fi += pos
        left = size - pos
        u = self._uniforms(idx.size * k).reshape(k, idx.size)
        # step j takes the card at fi + j + floor(u * (cards left before step j)), swapped
        # to fi + j (cards left as float64: exact, and the product of two floats is the
        # fast loop)
        slots = fi + _STEPS_INT[:k, None]  # (k, m): fi + j
        picks = (u * (left.astype(np.float64) - _STEPS[:k, None])).astype(np.int64)
        picks += slots
        for j in range(k):
            fj, fs = picks[j], slots[j]
            cards = flat.take(fj, out=out[j])
            flat[fj] = flat.take(fs)
            flat[fs] = cards
        if self.track_cards:
            for j in range(k):
                self.counts[idx, self._rank_of_id.take(out[j])] -= 1
        self.pos[idx] = pos + k
        self.undealt_hilo[idx] -= self._hilo_of_id.take(out).sum(axis=0)
        return out

    def _uniforms(self, m: int) -> np.ndarray:
        """``m`` uniform numbers in [0, 1): the next ones of a pre-drawn stream."""
        p = self._pool_pos
        if p + m > self._pool.size:
            self._pool = self.rng.random(max(_POOL, m))
            p = 0
        self._pool_pos = p + m
        return self._pool[p : p + m]

    def _random_cards(self, m: int) -> np.ndarray:
        """``m`` infinite-deck card ids: the next ones of a pre-drawn stream (one
        generator call per million cards)."""
        p = self._pool_pos
        if p + m > self._pool.size:
            self._pool = self.rng.integers(0, 52, size=max(_POOL, m), dtype=np.int16)
            p = 0
        self._pool_pos = p + m
        return self._pool[p : p + m]

    def _refill_mid_round(self, idx: np.ndarray) -> None:
        """A shoe ran dry mid-round: shuffle that table's discards back in (as a casino does)."""
        for t in idx.tolist():
            start = int(self.round_start[t])
            if start == 0:
                raise RuntimeError(
                    f"table {t}: the shoe and the discard tray are empty: every card is on "
                    f"the table"
                )
            row = self.shoe[t]
            on_table = row[start:].copy()
            discards = row[:start].copy()  # drawn at random from here on (lazy shuffle)
            row[: on_table.size] = on_table
            row[on_table.size :] = discards
            self.round_start[t] = 0
            self._dealt_minus_pos[t] += int(self.pos[t]) - on_table.size
            self.pos[t] = on_table.size
            self.undealt_hilo[t] = self._hilo_of_id.take(discards).sum()
            if self.track_cards:
                self.counts[t] = np.bincount(self._rank_of_id.take(discards), minlength=13)
            self.mid_round_reshuffles[t] += 1

    def stack(self, t: int, cards: str | list[Card]) -> None:
        """Deal these cards next at table ``t`` (as :meth:`Shoe.stack`).

        In a finite shoe each card is moved from the undealt cards (or from the
        discards) to the top, so the shoe still holds every card once.
        """
        wanted = parse_cards(cards) if isinstance(cards, str) else list(cards)
        ids = [c.index for c in wanted]
        if self.seats > 1:  # (a row: its table's shoe, held by the row of seat 0)
            t = int(self.lead_row[t])
        pos = int(self.pos[t])
        row = self.shoe[t]
        if self.infinite:
            if len(ids) > self.shoe_size:
                raise ValueError(
                    f"cannot stack {len(ids)} cards: at most {self.shoe_size} at a time"
                )
            # unread stacked cards stay in front of the new ones
            left = row[pos : int(self.stacked_end[t])].copy()
            both = np.concatenate([np.array(ids, dtype=np.int8), left])[: self.shoe_size]
            row[: both.size] = both
            self.pos[t] = 0
            self.stacked_end[t] = both.size
            self._stacked_any = self._ever_stacked = True
            return
        end = int(self.stacked_end[t])
        if end > pos:  # cards stacked earlier and not dealt yet follow the new ones
            ids = ids + [int(c) for c in row[pos:end]]
            self.stacked_end[t] = pos
        if pos + len(ids) > self.shoe_size:
            raise ValueError(
                f"cannot stack {len(ids)} cards: table {t} has {self.shoe_size - pos} left"
            )
        new = row.copy()
        for k, cid in enumerate(ids):
            j = pos + k
            where = (new[j:] == cid).nonzero()[0]
            if where.size:
                src = j + int(where[0])
            else:
                where = (new[: int(self.round_start[t])] == cid).nonzero()[0]
                if not where.size:
                    raise ValueError(
                        f"cannot stack {ALL_CARDS[cid]}: all {self.decks} cop"
                        f"{'y' if self.decks == 1 else 'ies'} of it are on the table or "
                        f"already stacked"
                    )
                src = int(where[0])
            new[j], new[src] = new[src], new[j]
        row[:] = new
        self.stacked_end[t] = pos + len(ids)
        self._stacked_any = self._ever_stacked = True
        self.undealt_hilo[t] = self._hilo_of_id[row[pos:]].sum()
        if self.track_cards:
            self.counts[t] = np.bincount(self._rank_of_id[row[pos:]], minlength=13)

    def clear_stacks(self, idx: np.ndarray) -> None:
        """Stacked cards not dealt yet at tables ``idx`` go back into the shoe at random
        places, as :meth:`Shoe.clear_stack`."""
        if not self._stacked_any:
            return  # nothing stacked is pending anywhere
        idx = np.asarray(idx, dtype=np.int64)
        if self.infinite:
            self.pos[idx] = 0
        # a finite shoe deals its undealt cards at random: forgetting the stack is enough
        self.stacked_end[idx] = 0

    def finish_rounds(self, idx: np.ndarray) -> None:
        """Play out the rounds at tables ``idx`` with the player standing on (and
        declining) every remaining decision (``last_hand`` is left as it is)."""
        idx = np.asarray(idx, dtype=np.int64)
        while True:
            idx = idx[self.phase[idx] != _OVER]
            if not idx.size:
                if self.seats > 1:
                    self._sync_shoes()
                return
            act = idx if self.seats == 1 else idx[self.acting().take(idx)]
            if not act.size:
                raise RuntimeError("finish_rounds: a table waits for no seat (not table-aligned?)")
            ins = self.phase[act] == _INSURE_PHASE
            if ins.any():
                t = act[ins]
                self._act_insurance(t, np.full(t.size, _DECLINE, dtype=np.int64))
            t = act[~ins]
            if t.size:
                self._act_play(t, np.full(t.size, _STAND, dtype=np.int64), track=False)
            self._flush_dealer()

    # ============================================================ the round
    def start_rounds(
        self,
        idx: np.ndarray,
        stacks: dict[int, str | list[Card]] | None = None,
        bets: np.ndarray | None = None,
    ) -> None:
        """Clear tables ``idx``, reshuffle where the cut card is out, and deal a round.

        ``stacks`` maps a table index to cards dealt first at that table. ``bets``: the
        chips staked at each table of ``idx`` (default: ``bet``), already allowed by the
        table limits and the bankroll (:meth:`chips`). A table opened by
        :meth:`open_rounds` is not checked for a reshuffle again.
        """
        idx = np.asarray(idx, dtype=np.int64)
        if idx.size == 0:
            return
        if self.bankroll is not None:  # the last round's result joins the bankroll
            self.bankroll[idx] += self._on_table_units(idx)
        # previous round's cards go to the discard tray
        if not self.infinite:  # (an infinite deck is never reshuffled: reshuffled stays False)
            pos = self.pos[idx]
            self.round_start[idx] = pos
            dealt = pos + self._dealt_minus_pos[idx]  # (as needs_shuffle)
            shuffle = dealt > 0 if self._cut is None else dealt >= self._cut
            self.reshuffled[idx] = shuffle
            if shuffle.any():
                self._new_shoes(idx[shuffle])
        if self._opened_any:
            self._close_openings(idx)
        if stacks:
            for t, cards in stacks.items():
                if self.seats > 1 and int(t) % self.seats:
                    raise ValueError(
                        f"stacks: row {t} is not seat 0 of its table; with several seats "
                        f"a table's cards are stacked at its seat-0 row"
                    )
                self.stack(int(t), cards)
        # (no table can have stacked cards pending if stack() was never called)
        self._stacked_any = self._ever_stacked and bool((self.stacked_end > self.pos).any())
        # hand 0 starts afresh; hands 1.. are written when a split creates them
        # (hand 0 of table t is element t of the flat hand arrays)
        for arr in self._round_flags:
            arr[idx] = 0
        self._outcome[idx] = -1
        if self.max_hands > 1:  # (one hand: these never change from 1, 0, 0)
            self.nhands[idx] = 1
            self.cur[idx] = 0
            self.last_hand[idx] = 0
        if self._pre_peek:  # (otherwise nobody ever insures: both stay 0)
            self.insurance[idx] = 0.0
            self.insurance_net[idx] = 0.0
        self.hole_revealed[idx] = False
        self.rounds[idx] += 1

        k = 3 if self._no_hole else 4
        if self.seats > 1:
            ids = self._deal_seats(idx, k)
        else:
            # card-major rows: player, up, player, hole
            ids = self._draw_many(idx, k)
        rk = self._rank_of_id.take(ids)
        vk = self._value_of_id.take(ids)
        ak = self._ace_of_id.take(ids)
        r1, ru, r2 = rk[0], rk[1], rk[2]
        up_value = vk[1]
        up_ace = ak[1]  # (by rank: custom values may give another card the value 1)
        self._r0[idx] = r1
        self._r1[idx] = r2
        hard = vk[0] + vk[2]
        ace = ak[0] | ak[2]
        self._hard[idx] = hard
        self._ace[idx] = ace
        self._ncards[idx] = 2
        if bets is not None:
            self._stake[idx] = bets
        elif not self._stake_fixed:
            self._stake[idx] = self.bet
        if self.track_cards:
            self._hand_ranks_f[idx] = 0
            self._hand_ranks_f[idx, r1] += 1
            self._hand_ranks_f[idx, r2] += 1
            self.dealer_ranks[idx] = 0
            self.dealer_ranks[idx, ru] += 1
            if not self._no_hole:
                self.dealer_ranks[idx, rk[3]] += 1
        self.up[idx] = ids[1]
        if self._pre_peek or not self._stand_hit_only:  # (read by legal_keys only then)
            self._up_key[idx] = play.KEY_UPCARD * ru
        if self._no_hole:
            self.d_hard[idx] = up_value
            self.d_ace[idx] = up_ace
            self.d_n[idx] = 1
            self.hole[idx] = -1
        else:
            self.hole[idx] = ids[3]
            d_hard = up_value + vk[3]
            d_ace = up_ace | ak[3]
            self.d_hard[idx] = d_hard
            self.d_ace[idx] = d_ace
            self.d_n[idx] = 2

        rules = self.rules
        bj = play.array_natural(2, hard, ace)  # (two cards each)
        dealt_to = idx
        if bj.any():
            if rules.natural_paid_at_deal:
                self._pay(idx[bj], _BJ)
            elif rules.natural_ends_hand:
                self._done[idx[bj]] = True
        # a blackjack needs an ace and a ten-value card: peek under either (the ace by
        # rank, since custom values may give a non-ace the value 1)
        self.phase[idx] = _DECIDE
        if self._peek:  # (no peek: peek_possible stays False)
            peek_possible = self._peek_by_rank.take(ru)
            self.peek_possible[idx] = peek_possible
            decide = peek_possible & ~self._settled[idx]
            ask = decide & self._asks_pre_peek.take(2 * ru + bj)
            if self.bankroll is not None:  # insurance only when affordable
                ask &= self._asks_pre_peek_poor.take(2 * ru + bj) | self._covers_insurance(idx)
            if ask.any():
                if self.seats > 1:
                    idx = self._ask_seats(idx, ask)
                else:
                    self.phase[idx[ask]] = _INSURE_PHASE
                    idx = idx[~ask]
                    self._do_peek(idx)
                    idx = idx[self.phase[idx] != _OVER]
            else:  # the naturals are known from the deal (a peek rule has a hole card)
                natural = bj if rules.natural_ends_hand and not rules.natural_paid_at_deal else None
                idx = self._do_peek(
                    idx, peek_possible & play.array_natural(2, d_hard, d_ace), natural,
                    at_deal=True,
                )
        # (as _advance_fresh: the cursor is on hand 0 since the top) hand 0 has two
        # cards, so it is done exactly when it is a natural that is paid at the deal or
        # ends the hand, or a 21 under auto_stand_21; those still to play (DECIDE: not a
        # dealer blackjack, not asked the pre-peek question) go to the dealer
        if rules.natural_paid_at_deal or rules.natural_ends_hand or self._auto21:
            fin = dealt_to[bj]
            if fin.size:
                fin = fin[self.phase[fin] == _DECIDE]
                self._done[fin] = True
                if fin.size:
                    self._to_dealer.append(fin)
        self._flush_dealer()
        if self.seats > 1:
            self._sync_shoes()

    def _do_peek(
        self,
        idx: np.ndarray,
        dealer_bj: np.ndarray | None = None,
        natural: np.ndarray | None = None,
        at_deal: bool = False,
    ) -> np.ndarray:
        """The dealer checks the hole card at tables ``idx`` (only counts with an ace/ten up).

        ``at_deal``: called right after the deal (nobody insured yet), with the dealer's
        peeked blackjack per table in ``dealer_bj`` and, in ``natural``, the player's
        natural that ended the hand (None: none did). Returns the tables whose round
        goes on (no dealer blackjack)."""
        if idx.size == 0:
            return idx
        if not at_deal:
            ins = self.insurance[idx]
            dealer_bj = self.peek_possible[idx] & self._dealer_bj(idx)
            if (ins > 0).any():
                self.insurance_net[idx] = np.where(dealer_bj, _INSURANCE_PAYS * ins, -ins)
        assert dealer_bj is not None
        if dealer_bj.any():
            hit = idx[dealer_bj]
            self.hole_revealed[hit] = True
            self._settle_by_compare(hit)
            self.phase[hit] = _OVER
            keep = (~dealer_bj).nonzero()[0]
            rest = idx[keep]
            if natural is not None:
                natural = natural[keep]
        else:
            rest = idx
        # a natural now wins for sure, unless it only ties a dealer 21 of three or more
        # cards, or under highest-hand settlement (it is compared at the end)
        if rest.size and self._naturals_paid_at_peek:
            if not at_deal:
                done_bj = self._done[rest] & ~self._settled[rest] & self._is_bj(rest, rest)
            elif natural is None:
                return rest
            else:  # (at the deal: done & unsettled & natural is exactly this)
                done_bj = natural
            if done_bj.any():
                self._pay(rest[done_bj], _BJ)
        return rest

    def _dealer_bj(self, idx: np.ndarray) -> np.ndarray:
        return play.array_natural(self.d_n[idx], self.d_hard[idx], self.d_ace[idx])

    def _is_bj(self, f: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Natural on hands ``f`` (flat index) of tables ``t`` (split hands only if
        blackjack_after_split)."""
        bj = play.array_natural(self._ncards[f], self._hard[f], self._ace[f])
        if self.max_hands > 1 and not self._split_naturals:
            bj &= self.nhands[t] == 1
        return bj

    def _total(self, f: np.ndarray) -> np.ndarray:
        return array_total(self._hard[f], self._ace[f])

    # ---------------------------------------------------------- legality
    def legal_mask(self) -> np.ndarray:
        """``(N, 7)`` bool: the legal decisions at every table (``Action`` codes).

        Rows of :func:`~blackjack_env.engine.play.play_action_table` (a hand in play)
        and :func:`~blackjack_env.engine.play.pre_peek_action_table` (the pre-peek
        question). A table in ``OVER`` has only ``STAND`` legal (its step just
        reports the result). The rows of :attr:`legal_table` at :meth:`legal_keys`.
        """
        rows = self._legal_rows.take(self.legal_keys())
        return rows.view(np.bool_).reshape(-1, 8)[:, :NUM_CORE_ACTIONS]

    def legal_keys(self) -> np.ndarray:
        """``(N,)`` int: the row of :attr:`legal_table` holding each table's legal
        decisions now (:attr:`legal_table_phase` gives the phase the row belongs to).

        A consumer that maps decisions to its own action rows can build its table once
        from :attr:`legal_table` and then look each step up by these keys."""
        phase = self.phase
        decide = phase == _DECIDE
        if self._stand_hit_only:  # every hand in play: STAND and HIT (play.stand_hit_only)
            key = self._stand_hit_keys.take(phase)
        else:
            if self.max_hands == 1:
                hard, ace, nc = self.hard[0], self.ace[0], self.ncards[0]
                key = 2 * hard
                key += ace
            else:
                nh = self.nhands
                # (cur is a hand of the table in every phase between calls: its key is
                # read only where deciding)
                f = self.cur * self.num_tables + self._arange
                hard, ace, nc = self._hard[f], self._ace[f], self._ncards[f]
                r0 = self._r0[f]
                key = 2 * hard
                key += ace
                split = (nh > 1).nonzero()[0]  # (few: the seat's hands all come from a split)
                if split.size:
                    key[split] += play.KEY_FROM_SPLIT + play.KEY_SPLIT_ACES * (r0[split] == 0)
                if self._splits:  # pairs (few) that may be split
                    maybe = self._pair.take(13 * r0 + self._r1[f])
                    maybe &= nc == 2
                    c = maybe.nonzero()[0]
                    if c.size:  # (as _can_split, for these two-card pairs)
                        nhc = nh[c]
                        aces = (nhc > 1) & (r0[c] == 0)
                        ok = self._split_ok.take(18 + 2 * nhc + aces)
                        if self._split_stake_check and ok.any():  # stakes vary: per hand
                            ok &= self._split_stakes_ok(f[c])
                        key[c] += play.KEY_CAN_SPLIT * ok
            # two cards: KEY_TWO_CARDS (a doubled hand never decides: its row is never read)
            key += play.KEY_TWO_CARDS * (nc == 2)
            key += self._up_key
            if self.bankroll is not None:  # the rows without DOUBLE where it is not covered
                key += self._poor_play_offset * self._short_of_double(decide)
            if not decide.all():
                np.putmask(key, ~decide, self._over_key)
        if self._pre_peek and not decide.all():  # (the INSURE phase occurs only then)
            ins = (phase == _INSURE_PHASE).nonzero()[0]
            if ins.size:
                up = self._up_key[ins] // play.KEY_UPCARD
                key[ins] = self._pre_peek_key + 2 * up + self._is_bj(ins, ins)
                if self.bankroll is not None:  # the rows without INSURE where not covered
                    key[ins] += self._poor_pre_peek_offset * ~self._covers_insurance(ins)
        return key

    def _can_split(self, f: np.ndarray, nh: np.ndarray, split_aces: np.ndarray) -> np.ndarray:
        """``engine.play.split_allowed`` (from its table) and ``split_stake_ok`` for hands
        ``f`` (flat) of tables holding ``nh`` hands."""
        if not self._splits:
            return np.zeros(nh.shape, dtype=bool)
        pair = self._pair.take(13 * self._r0[f] + self._r1[f])
        pair &= self._ncards[f] == 2
        key = 18 * pair
        key += 2 * nh
        key += split_aces
        ok = self._split_ok.take(key)
        if self._split_stake_check and ok.any():  # stakes vary: split_stake_ok per hand
            ok &= self._split_stakes_ok(f)
        return ok

    # ================================================================ step
    def step(
        self, actions: np.ndarray, active: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Apply one decision per table (``Action`` codes, already legal).

        ``active`` (bool per table, default all) limits the step to some tables;
        the others are left as they are and report nothing.

        Returns ``(round_over, reward)``: which tables' rounds ended on this
        step and their net result in units of the bet (0 where still running).
        Tables in ``OVER`` just report their result. Legality is not checked
        here: map actions with :meth:`legal_mask` first.
        """
        actions = np.asarray(actions, dtype=np.int64)
        if self.seats > 1:  # only the seat each table waits for acts
            act = self.acting()
            active = act if active is None else act & active
        phase = self.phase
        decide = phase == _DECIDE
        if active is not None:
            decide &= active
        if self._pre_peek:
            ins = phase == _INSURE_PHASE
            if active is not None:
                ins &= active
            ins = ins.nonzero()[0]
            if ins.size:
                self._act_insurance(ins, actions[ins])
        decide = decide.nonzero()[0]
        if decide.size:
            self._act_play(decide, actions[decide])
        self._flush_dealer()
        round_over = phase == _OVER
        if active is not None:
            round_over &= active
        if self.seats > 1:  # a table's round ends for all its seats at once
            round_over = round_over.reshape(-1, self.seats).any(axis=1).repeat(self.seats)
            self._sync_shoes()
        if self.max_hands == 1:  # whole width: hand 0 and insurance
            if self._pre_peek or self._negative_zero:
                net = self.net[0] + self.insurance_net  # (-0.0 + 0.0 is 0.0)
            else:  # (nobody insures, and no hand's net is -0.0)
                net = self.net[0]
            if self.bet != 1:
                net = net / self.bet
            return round_over, np.where(round_over, net, 0.0)
        reward = np.zeros(self.num_tables, dtype=np.float64)
        ro = round_over.nonzero()[0]
        if ro.size:
            reward[ro] = self.round_net(ro)
        return round_over, reward

    def _later_hands(self, idx: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """For each hand ``k >= 1`` that some table of ``idx`` holds (split tables, few):
        ``(sel, f)``, the positions in ``idx`` of those tables and the flat indices of
        their hand ``k`` (hands past ``nhands`` hold stale values: never read them)."""
        nh = self.nhands[idx]
        for k in range(1, self.max_hands):
            sel = (nh > k).nonzero()[0]
            if not sel.size:
                return
            yield sel, k * self.num_tables + idx[sel]

    def round_net(self, idx: np.ndarray) -> np.ndarray:
        """Net result of the round so far at tables ``idx``, in units of the bet."""
        hands = self._net[idx]
        if self.max_hands > 1:  # add the split hands of split tables
            for sel, f in self._later_hands(idx):
                hands[sel] += self._net[f]
        if self._pre_peek or self._negative_zero:  # (as step: -0.0 + 0.0 is 0.0)
            hands = hands + self.insurance_net[idx]
        return hands / self.bet if self.bet != 1 else hands

    def _act_insurance(self, idx: np.ndarray, actions: np.ndarray) -> None:
        insure = actions == _INSURE
        if insure.any():
            t = idx[insure]
            bj = self._is_bj(t, t)
            if bj.any():
                self._pay(t[bj], _EVEN)
            nb = t[~bj]
            self.insurance[nb] = self._stake[nb] / 2.0
        surr = actions == _SURRENDER
        if surr.any():
            t = idx[surr]
            self._surrendered[t] = True
            self._pay(t, _SURR)
        if self.seats > 1:
            self._peek_seats(idx)
            return
        self._do_peek(idx)
        idx = idx[self.phase[idx] != _OVER]
        self.phase[idx] = _DECIDE
        self.cur[idx] = -1
        self._advance(idx)

    def _act_play(self, idx: np.ndarray, actions: np.ndarray, track: bool = True) -> None:
        """Apply playing actions (``Action`` 0..4, legal) to the current hand of tables
        ``idx`` (in the ``DECIDE`` phase, increasing); ``track``: record the hand as the
        last one acted on. The one place a hand's decision is played: hit, stand, double
        (a hit whose stake doubles where the rules double), surrender, split; a finished
        hand moves play on (:meth:`_advance`)."""
        if self.max_hands == 1:  # one hand, never split: hand 0 (last_hand stays 0)
            h = idx  # (never read: no split)
            f = idx
        else:
            h = self.cur[idx]
            if track:
                self.last_hand[idx] = h
            f = h * self.num_tables + idx
        hitting = _TAKES_CARD.take(actions).nonzero()[0]
        if hitting.size:
            dbl = (actions == _DOUBLE).nonzero()[0] if self._can_double_rule else hitting[:0]
            if dbl.size:
                fd = f[dbl]
                self._stake[fd] *= 2
                self._doubled[fd] = True
                self._done[fd] = True
            t = idx[hitting]
            fh = t if self.max_hands == 1 else f[hitting]
            if self._hit_block and not self._stacked_any and not self.track_cards:
                cards = self._random_cards(self.num_tables).take(t)
            else:
                cards = self._draw(t)
            self._add_card(fh, cards, hit=True)
            hard = self._hard[fh]
            bust = hard > 21
            if bust.any():
                self._pay(fh[bust], _BUST)
            if self._auto21:
                twenty_one = ~bust & (array_total(hard, self._ace[fh]) == play.AUTO_STAND_TOTAL)
                self._done[fh[twenty_one]] = True
        stand = (actions == _STAND).nonzero()[0]
        if stand.size:
            self._done[f[stand]] = True
        surr = (actions == _SURRENDER).nonzero()[0] if self._surrenders else hitting[:0]
        if surr.size:
            fs = f[surr]
            self._surrendered[fs] = True
            self._done[fs] = True
            if self._surrender_at_once:
                self._pay(fs, _SURR)
        split = (actions == _SPLIT).nonzero()[0] if self.max_hands > 1 else hitting[:0]
        if split.size:
            self._split(idx[split], h[split])
        finished = self._done[f].nonzero()[0]
        if finished.size:
            if self.max_hands == 1:  # (as _advance: hand 0 is done, the dealer plays)
                self._to_dealer.append(idx[finished])
            else:
                self._advance(idx[finished])

    def _add_card(self, f: np.ndarray, cards: np.ndarray, hit: bool = False) -> None:
        """Cards ``cards`` join hands ``f`` (flat); ``hit``: the hands hold two or more
        cards already (a hand decides only then), so no card is a second one."""
        self._hard[f] += self._value_of_id.take(cards)
        self._ace[f] |= self._ace_of_id.take(cards)
        n = self._ncards[f]
        if not hit:
            second = n == 1
            if second.any():
                self._r1[f[second]] = self._rank_of_id.take(cards[second])
        n += 1
        self._ncards[f] = n
        if self.track_cards:
            self._hand_ranks_f[f, self._rank_of_id.take(cards)] += 1

    def _split(self, t: np.ndarray, h: np.ndarray) -> None:
        """Split hand ``h`` of tables ``t``: the new hand goes right after it."""
        n = self.num_tables
        # shift hands after h one place right (they wait for their second card)
        nh = self.nhands[t]
        for k in range(self.max_hands - 1, 0, -1) if (nh > h + 1).any() else ():
            move = (k > h + 1) & (k <= nh)
            if move.any():
                tt = t[move]
                for arr in self._hand_fields:
                    arr[k, tt] = arr[k - 1, tt]
                if self.track_cards:
                    self.hand_ranks[k, tt] = self.hand_ranks[k - 1, tt]
        f = h * n + t
        fn = f + n
        r1 = self._r1[f]
        v1 = self._values.take(r1)
        # the new hand: every field written (those not set below start at 0)
        for arr in (self._r1, self._doubled, self._surrendered, self._done, self._settled,
                    self._net):
            arr[fn] = 0
        self._outcome[fn] = -1
        self._hard[fn] = v1
        self._ace[fn] = r1 == 0
        self._ncards[fn] = 1
        self._r0[fn] = r1
        if self.track_cards:
            self._hand_ranks_f[fn] = 0
            self._hand_ranks_f[fn, r1] = 1
            self._hand_ranks_f[f, r1] -= 1
        if self.rules.split_bet is SplitBet.HALVE:
            half = self._stake[f] // 2
            self._stake[f] = half
            self._stake[fn] = half
        else:
            self._stake[fn] = self._stake[f]
        self._hard[f] -= v1
        self._ace[f] = self._r0[f] == 0
        self._ncards[f] = 1
        self.nhands[t] += 1
        self._add_card(f, self._draw(t))
        self._check_two_card(f, t)

    def _check_two_card(self, f: np.ndarray, t: np.ndarray) -> None:
        """A split hand just got its second card: finish it if it has no decision."""
        nh = self.nhands[t]
        split_aces = self._r0[f] == 0  # (a split hand: the seat holds two hands or more)
        key = 8 * split_aces
        key += 4 * self._can_split(f, nh, split_aces)
        if self._split_naturals:  # (else a split hand is never a natural: _is_bj)
            key += 2 * self._is_bj(f, t)
        key += self._total(f) == 21
        finish = self._split_done.take(key)  # engine.play.split_hand_done
        if finish.any():
            self._done[f[finish]] = True

    def _advance_fresh(self, idx: np.ndarray) -> None:
        """:meth:`_advance` of tables ``idx`` whose only hand is hand 0 (right after the
        deal, or any time under one-hand rules): a decision on it, or (done) the dealer."""
        if not idx.size:
            return
        self.cur[idx] = 0
        if self._auto21:
            live = idx[~self._done[idx]]
            hit21 = self._total(live) == play.AUTO_STAND_TOTAL
            if hit21.any():
                self._done[live[hit21]] = True
        finished = idx[self._done[idx]]
        if finished.size:
            self._to_dealer.append(finished)

    def _advance(self, idx: np.ndarray) -> None:
        """Move tables ``idx`` on to their next hand needing a decision, or to the dealer."""
        n = self.num_tables
        if self.max_hands == 1 and idx.size:
            self._advance_fresh(idx)
            return
        while idx.size:
            cur = self.cur[idx] + 1
            self.cur[idx] = cur
            past = cur >= self.nhands[idx]
            if past.any():  # every hand done: the dealer plays (once per call, at the end)
                self._to_dealer.append(idx[past])
                idx, cur = idx[~past], cur[~past]
                if not idx.size:
                    return
            f = cur * n + idx
            live = ~self._done[f]
            one = live & (self._ncards[f] == 1)
            if one.any():
                t, fo = idx[one], f[one]
                self._add_card(fo, self._draw(t))
                self._check_two_card(fo, t)
            if self._auto21:
                two = live & ~one
                hit21 = two & (self._total(f) == play.AUTO_STAND_TOTAL)
                if hit21.any():
                    self._done[f[hit21]] = True
            idx = idx[self._done[f]]

    # ============================================================== dealer
    def _flush_dealer(self) -> None:
        """The dealer's turn at every table whose hands were all finished in this call."""
        if self._to_dealer:
            queue, self._to_dealer = self._to_dealer, []
            idx = np.concatenate(queue) if len(queue) > 1 else queue[0]
            if self.seats > 1:
                self._seats_done(idx)
            else:
                self._dealer_turn(idx)

    def _dealer_turn(self, idx: np.ndarray) -> None:
        self.phase[idx] = _OVER
        if self.max_hands > 1:  # (one hand: the cursor is always on hand 0)
            nh = self.nhands[idx]
            self.cur[idx] = nh - 1
        # any_open: some hand is unsettled; plays: some unsettled hand was not surrendered
        any_open = ~self._settled[idx]
        surrender = self._surrenders
        plays = any_open & ~self._surrendered[idx] if surrender else any_open
        if self.max_hands > 1:
            for sel, fk in self._later_hands(idx):
                open_k = ~self._settled[fk]
                any_open[sel] |= open_k
                if surrender:
                    plays[sel] |= open_k & ~self._surrendered[fk]
        rules = self.rules
        if not self._no_hole:  # (every table shows its hole card, played or not)
            self.hole_revealed[idx] = True
        if not any_open.all():
            if self._no_hole:
                self.hole_revealed[idx[~any_open]] = False
            keep = any_open.nonzero()[0]
            if not keep.size:
                return
            idx = idx[keep]
            if surrender:
                plays = plays[keep]
        # (without surrender every open table plays)
        self._dealer_draws(idx, idx[plays] if surrender else idx)
        if rules.settlement is Settlement.HIGHEST_HAND:
            self._settle_highest(idx)
        elif self.max_hands == 1:  # (idx: exactly the tables whose hand 0 is open)
            self._pay_outcomes(idx, self._compare(idx, idx))
        else:
            self._settle_by_compare(idx)

    def _dealer_draws(self, open_: np.ndarray, drawing: np.ndarray) -> None:
        """The dealer's turn at tables ``open_`` (some hand still open): without a hole
        card its second card is dealt now; then it draws to the rules at the tables
        ``drawing`` (a subset of ``open_``: some hand is neither settled nor surrendered).
        An infinite deck with nothing stacked samples the final hand in one step."""
        if self._no_hole:
            card = self._draw(open_)
            self._dealer_add(open_, card)
            self.hole[open_] = card
            self.hole_revealed[open_] = True
        if self.infinite and not self._stacked_any and not self.track_cards and drawing.size:
            self._sample_dealer(drawing)
            return
        if not (self.infinite or self._stacked_any or self.track_cards):
            drawing = self._dealer_draws_shoe(drawing)
        hits = self._dealer_hits
        while drawing.size:
            need = hits.take(self.d_hard[drawing] * 2 + self.d_ace[drawing])
            drawing = drawing[need]
            if drawing.size:
                self._dealer_add(drawing, self._draw(drawing))

    def _dealer_draws_shoe(self, t: np.ndarray) -> np.ndarray:
        """The dealer draws to the rules at tables ``t`` (rows holding the shoe) from
        finite shoes with no stacked card pending and cards not tracked by rank: the
        draws of :meth:`_draw` (the same uniforms, tables and cards, in the same order),
        with the hand kept as its key ``2 * hard + ace`` and moved on by
        :attr:`_dealer_next`, and the shoe's counters written once at the end. Returns
        the tables that must go on card by card because a shoe may run dry (usually
        none)."""
        key = self.d_hard[t] * 2
        key += self.d_ace[t]
        sel = self._dealer_hits.take(key).nonzero()[0]
        if not sel.size:
            return sel
        t, key = t[sel], key[sel]
        size = self.shoe_size
        pos = self.pos[t]
        room = size - int(pos.max())  # draws every table can make from its undealt cards
        first = t * size
        first += pos  # flat index of each table's first undealt card
        left = (size - pos).astype(np.float64)  # its undealt cards (exact as float64)
        acc = np.zeros(t.size, dtype=np.int64)  # sum of _draw_tag over the cards drawn
        act = np.arange(t.size)
        flat, after, hits, tag = self._shoe_flat, self._dealer_next, self._dealer_hits, self._draw_tag
        j = 0
        while act.size and j < room:
            # (every table still drawing has drawn j cards: its next card is at first + j)
            u = self._uniforms(act.size)
            fi = first.take(act)
            fi += j
            off = left.take(act)
            off -= j
            off *= u
            fj = off.astype(np.int64)
            fj += fi
            cards = flat.take(fj)
            flat[fj] = flat.take(fi)
            flat[fi] = cards
            k = key.take(act)
            k *= 52
            k += cards
            k = after.take(k)
            key[act] = k
            acc[act] += tag.take(cards)
            act = act[hits.take(k)]
            j += 1
        n = (acc + 32) >> 6  # cards drawn at each table
        self.pos[t] = pos + n
        self.undealt_hilo[t] -= acc - (n << 6)
        self.d_hard[t] = key >> 1
        self.d_ace[t] = (key & 1).astype(bool)
        self.d_n[t] += n
        return t[act]

    def _dealer_cdf(self) -> np.ndarray:
        """Infinite deck: ``cdf[2 * hard + ace, k]`` = P(the dealer ends on category <= k)
        from a hand of two or more cards (categories: 17, 18, 19, 20, 21, bust), from
        the exact analysis (:func:`~blackjack_env.analysis.dealer.final_distribution`)."""
        cdf = np.ones((32, 2, 6))
        for hard in range(2, 32):
            for ace in (False, True):
                cdf[hard, int(ace)] = np.cumsum(final_distribution(self.rules, hard, ace)[:6])
        cdf[..., -1] = 1.0  # exact top, whatever the rounding
        # rows of 8 (2.0 after the top: never <= u), by key 2 * hard + ace
        out = np.full((64, 8), 2.0)
        out[:, :6] = cdf.reshape(64, 6)
        return out

    def _sample_dealer(self, idx: np.ndarray) -> None:
        """Infinite deck, no stacked cards: the dealer's drawing at tables ``idx`` in one
        step, sampled from the exact distribution of the final hand given the cards
        showing. ``d_hard`` then holds the final total (22: bust), ``d_ace`` False and
        ``d_n`` 3 (three or more cards: the drawn cards themselves are not kept)."""
        if self._cdf is None:
            self._cdf = self._dealer_cdf()
        key = self.d_hard[idx] * 2
        key += self.d_ace[idx]
        sel = self._dealer_hits.take(key).nonzero()[0]
        if not sel.size:
            return
        idx = idx[sel]
        # row (hard, ace) of the CDF table, as one gather of whole rows; the category is
        # the number of thresholds <= u, the number of True bytes in the row of 8
        # comparisons read as one 8-byte word: each byte's weight, 256 ** j, is 1 modulo 17
        rows = self._cdf.take(key[sel], axis=0)
        u = self._random_uniform(idx.size)
        words = (rows <= u[:, None]).view(np.uint64).reshape(-1)
        self.d_hard[idx] = _DEALER_FINAL.take(words % 17)
        self.d_ace[idx] = False
        self.d_n[idx] = 3

    def _random_uniform(self, m: int) -> np.ndarray:
        """``m`` uniforms in [0, 1) for the infinite deck (from the one generator)."""
        return self.rng.random(m)

    def _dealer_add(self, idx: np.ndarray, cards: np.ndarray) -> None:
        r = self._rank_of_id.take(cards)
        if self.track_cards:
            self.dealer_ranks[idx, r] += 1
        self.d_hard[idx] += self._values.take(r)
        self.d_ace[idx] |= r == 0
        self.d_n[idx] += 1

    # ========================================================== settlement
    def _hand_grid(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flat index and table of every unsettled existing hand at tables ``idx``."""
        settled = self._settled
        t = idx[~settled[idx]]
        if self.max_hands == 1:
            return t, t
        # hand 0 of every table, then hand 1, 2, ... of the (few) split tables: the
        # order of a row-major scan of the (hand, table) grid
        nh = self.nhands[idx]
        multi = nh > 1
        if not multi.any():
            return t, t
        fs, ts = [t], [t]
        tm, nm = idx[multi], nh[multi]
        for k in range(1, self.max_hands):
            tm = tm[nm > k]
            if not tm.size:
                break
            nm = self.nhands[tm]
            fk = k * self.num_tables + tm
            open_ = ~settled[fk]
            fs.append(fk[open_])
            ts.append(tm[open_])
        return np.concatenate(fs), np.concatenate(ts)

    def _settle_by_compare(self, idx: np.ndarray) -> None:
        f, t = self._hand_grid(idx)
        if f.size:
            self._pay_outcomes(f, self._compare(f, t))

    def _hand_key_width(self) -> int:
        """Keys of a hand for :meth:`_outcome_by_hands`: ``2 * hard + ace``, plus this
        width when it holds two cards that may make a natural (``hard`` is at most 21
        plus one card)."""
        return 2 * (22 + int(self._values.max()))

    def _outcome_by_hands(self) -> np.ndarray:
        """Outcome codes of a standing hand against the dealer's final hand, at entry
        ``2 * width * player key + dealer key`` (keys: :meth:`_hand_key_width`): the
        categories of :func:`~blackjack_env.engine.play.array_category` looked up in
        :func:`~blackjack_env.engine.play.outcome_table`, once per rule set."""
        width = self._hand_key_width()
        key = np.arange(2 * width)
        hard, ace, two = (key % width) // 2, (key % 2) == 1, key >= width
        natural = play.array_natural(np.where(two, 2, 3), hard, ace)
        cat = play.array_category(array_total(hard, ace), natural)
        return self._outcome_table.take(cat[:, None] * play.NUM_CATEGORIES + cat[None, :])

    def _compare(self, f: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Outcome codes of standing hands against the dealer's final hand (as Table._compare).

        Looked up by the two hands (total, natural) in :meth:`_outcome_by_hands`."""
        by_hands = self._by_hands
        width = by_hands.shape[1] // 2
        two = self._ncards[f] == 2  # (a natural: two cards, an ace and a hard 11)
        if self.max_hands > 1 and not self._split_naturals:
            two &= self.nhands[t] == 1
        key = self._hard[f] * 2
        key += self._ace[f]
        key += width * two
        key *= 2 * width
        key += self.d_hard[t] * 2
        key += self.d_ace[t]
        key += width * (self.d_n[t] == 2)
        out = by_hands.reshape(-1).take(key)
        surr = self._surrendered[f]
        if surr.any():
            dbj = self._dealer_bj(t)
            out = np.where(surr, np.where(dbj, _LOSS, _SURR), out)
        return out

    def _settle_highest(self, idx: np.ndarray) -> None:
        """``Settlement.HIGHEST_HAND`` for one seat's hands: only the best can win."""
        f, t = self._hand_grid(idx)
        if not f.size:
            return
        surr = self._surrendered[f]
        if surr.any():
            self._pay_outcomes(f[surr], self._compare(f[surr], t[surr]))
            f, t = f[~surr], t[~surr]
        hard = self._hard[f]
        live = hard <= 21
        f, t, hard = f[live], t[live], hard[live]
        if not f.size:
            return
        total = array_total(hard, self._ace[f])
        top = np.full(self.num_tables, -1, dtype=np.int64)
        np.maximum.at(top, t, total)
        # a hand holding the table's highest total (every live hand when the dealer
        # busts) is judged as in the dealer game; every other live hand loses
        judged = (self.d_hard[t] > 21) | (total == top[t])
        out = np.full(f.size, _LOSS, dtype=np.int64)
        if judged.any():
            out[judged] = self._compare(f[judged], t[judged])
        self._pay_outcomes(f, out)

    def _pay(self, f: np.ndarray, code: int) -> None:
        """Settle hands ``f`` with one outcome (as :meth:`_pay_outcomes`)."""
        self._outcome[f] = code
        if self._stake_fixed:
            self._net[f] = self._bet_factor[code]
        else:
            self._net[f] = self._stake[f] * self._factor[code]
        self._settled[f] = True
        self._done[f] = True

    def _pay_outcomes(self, f: np.ndarray, codes: np.ndarray) -> None:
        """Settle hands (flat indices): the one place a hand's result is written."""
        self._outcome[f] = codes
        if self._stake_fixed:
            self._net[f] = self._bet_factor.take(codes)
        else:
            self._net[f] = self._stake[f] * self._factor.take(codes)
        self._settled[f] = True
        self._done[f] = True

    # ====================================================== several seats
    def acting(self) -> np.ndarray:
        """``(N,)`` bool: the row (seat) each table waits for, the table's next decision.

        One seat: every row. Several seats, in casino order: the first seat still to
        answer the pre-peek question; once every answer is in (and the peek is done),
        the first seat with a hand to play; a table whose round is over (settled at
        the deal, its result not yet reported): seat 0."""
        if self.seats == 1:
            return np.ones(self.num_tables, dtype=bool)
        phase = self.phase.reshape(-1, self.seats)
        ins = phase == _INSURE_PHASE
        dec = phase == _DECIDE
        first = np.where(ins.any(axis=1), ins.argmax(axis=1), dec.argmax(axis=1))
        out = np.zeros(phase.shape, dtype=bool)
        out[np.arange(phase.shape[0]), first] = True
        return out.reshape(-1)

    def _table_rows(self, rows: np.ndarray) -> np.ndarray:
        """``(T', S)``: every row of the tables of ``rows`` (each table once, ascending)."""
        s = self.seats
        tables = np.zeros(self.num_tables // s, dtype=bool)
        tables[rows // s] = True  # (a mark per table: cheaper than np.unique)
        return tables.nonzero()[0][:, None] * s + np.arange(s)

    def _sync_shoes(self) -> None:
        """Several seats: every row of a table reads its shoe's state (kept at the row
        of seat 0, the only row that draws)."""
        lead = self.lead_row
        for arr in (
            self.pos, self.stacked_end, self.round_start, self._dealt_minus_pos,
            self.undealt_hilo, self.shuffles, self.mid_round_reshuffles, self.reshuffled,
        ):  # fmt: skip
            arr[:] = arr[lead]
        if self.track_cards and not self.infinite:
            self.counts[:] = self.counts[lead]

    def _deal_seats(self, idx: np.ndarray, k: int) -> np.ndarray:
        """Several seats: deal the round at the tables of ``idx`` (whole tables, rows
        ascending) in casino order: a card to each seat, the dealer's upcard, a second
        card to each seat, the hole card (``k`` = 4; 3 without a hole card). Returns the
        card ids per row as :meth:`start_rounds` reads them, ``(k, len(idx))``: first
        card, upcard, second card (, hole card)."""
        s = self.seats
        if idx.size % s or not np.array_equal(
            idx.reshape(-1, s), idx[::s, None] + np.arange(s)
        ):
            raise ValueError(
                f"with {s} seats per table a round starts at whole tables (rows t * {s} .. "
                f"t * {s} + {s - 1})"
            )
        dealt = self._draw_many(idx[::s], 2 * s + k - 2).T  # (tables, cards)
        seat = np.arange(s)
        cols = [seat, np.full(s, s), s + 1 + seat]
        if k == 4:
            cols.append(np.full(s, 2 * s + 1))
        ids = dealt[:, np.stack(cols)]  # (tables, k, seats)
        return ids.transpose(1, 0, 2).reshape(k, -1).astype(np.intp)

    def _ask_seats(self, idx: np.ndarray, ask: np.ndarray) -> np.ndarray:
        """Several seats, at the deal: the seats of ``idx`` in ``ask`` get the pre-peek
        question; the other seats of those tables wait for the peek; tables where nobody
        is asked are peeked now. Returns the rows whose round goes on at those."""
        table_ask = ask.reshape(-1, self.seats).any(axis=1).repeat(self.seats)
        self.phase[idx[ask]] = _INSURE_PHASE
        self.phase[idx[table_ask & ~ask]] = _PEEK_WAIT
        rest = idx[~table_ask]
        self._do_peek(rest)
        return rest[self.phase[rest] != _OVER]

    def _peek_seats(self, idx: np.ndarray) -> None:
        """Several seats: rows ``idx`` answered the pre-peek question; at the tables
        where every seat has answered, the dealer peeks and play starts at seat 0."""
        self.phase[idx] = _PEEK_WAIT
        rows = self._table_rows(idx)
        ready = ~(self.phase[rows] == _INSURE_PHASE).any(axis=1)
        if not ready.any():
            return
        rows = rows[ready].reshape(-1)
        self._do_peek(rows)
        rows = rows[self.phase[rows] != _OVER]
        self.phase[rows] = _DECIDE
        self.cur[rows] = -1
        self._advance(rows)

    def _seats_done(self, idx: np.ndarray) -> None:
        """Several seats: the hands of rows ``idx`` are all done; the dealer plays at the
        tables whose seats are all done."""
        self.phase[idx] = _SEAT_DONE
        if self.max_hands > 1:  # (the cursor stays on a hand the seat holds)
            self.cur[idx] = self.nhands[idx] - 1
        rows = self._table_rows(idx)
        ready = (self.phase[rows] == _SEAT_DONE).all(axis=1)
        if ready.any():
            self._dealer_turn_seats(rows[ready].reshape(-1))

    def _dealer_turn_seats(self, rows: np.ndarray) -> None:
        """Several seats: the dealer's turn at the tables of ``rows`` (whole tables,
        ascending): drawn once per table (at the row of seat 0) if some seat has an
        unsettled hand that was not surrendered, then every seat's hands settled."""
        s = self.seats
        self.phase[rows] = _OVER
        nh = self.nhands[rows]
        if self.max_hands > 1:
            self.cur[rows] = nh - 1
        any_open = ~self._settled[rows]
        surrender = self._surrenders
        plays = any_open & ~self._surrendered[rows] if surrender else any_open.copy()
        for sel, fk in self._later_hands(rows):
            open_k = ~self._settled[fk]
            any_open[sel] |= open_k
            plays[sel] |= open_k & ~self._surrendered[fk] if surrender else open_k
        t_open = any_open.reshape(-1, s).any(axis=1)
        t_plays = plays.reshape(-1, s).any(axis=1)
        lead = rows[::s]
        if not self._no_hole:  # every table shows its hole card, played or not
            self.hole_revealed[rows] = True
        elif not t_open.all():
            self.hole_revealed[rows.reshape(-1, s)[~t_open].reshape(-1)] = False
        lead, t_plays = lead[t_open], t_plays[t_open]
        if not lead.size:
            return
        self._dealer_draws(lead, lead[t_plays])
        # every seat of the table sees the dealer's hand
        open_rows = (lead[:, None] + np.arange(s)).reshape(-1)
        src = self.lead_row[open_rows]
        for arr in (self.d_hard, self.d_ace, self.d_n, self.hole, self.hole_revealed):
            arr[open_rows] = arr[src]
        if self.track_cards:
            self.dealer_ranks[open_rows] = self.dealer_ranks[src]
        if self.rules.settlement is Settlement.HIGHEST_HAND:
            self._settle_highest(open_rows)
        else:
            self._settle_by_compare(open_rows)

    # ============================================== bet steps and bankrolls (chips)
    def _init_chips(self, bet_sizes: tuple[int, ...], bankroll: int | None) -> None:
        """State for bet steps (:meth:`open_rounds`) and finite bankrolls (:meth:`chips`)."""
        rules = self.rules
        n = self.num_tables
        sizes = tuple(bet_sizes)
        if any(isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1 for k in sizes):
            raise ValueError(f"bet_sizes={bet_sizes!r} must be ints >= 1 (multiples of the bet)")
        if bankroll is not None and (
            isinstance(bankroll, bool)
            or not isinstance(bankroll, (int, np.integer))
            or bankroll < 0
        ):
            raise ValueError(
                f"bankroll={bankroll!r} must be None (unlimited credit) or an int >= 0"
            )
        self.bet_sizes = tuple(int(k) for k in sizes)
        if self.bet_sizes:  # each round stakes the size bet on it: the stake is not fixed
            self._stake_fixed = False
        #: tables between rounds, opened by :meth:`open_rounds` (awaiting a bet)
        self.opened = np.zeros(n, dtype=bool)
        self._opened_any = False
        self._open_reshuffled = np.zeros(n, dtype=bool)
        #: chip amounts are kept as integers in units of 1 / chip_den chips (exact)
        self.chip_den = play.chip_denominator(rules)
        #: per table, the player's chips before the current round's bet, in units of
        #: 1 / chip_den (None: unlimited credit); read :meth:`chips`
        self.bankroll: np.ndarray | None = (
            None if bankroll is None else np.full(n, int(bankroll) * self.chip_den, np.int64)
        )
        # a hand's stake varies (bet sizes, halved splits) or the bankroll limits it:
        # play.split_stake_ok is asked per hand (_split_stakes_ok)
        self._split_stake_check = bool(self.bet_sizes) or bankroll is not None
        if self._split_stake_check:
            stakes = [k * self.bet for k in self.bet_sizes] or [self.bet]
            self._splits = any(play.split_stake_ok(rules, k, True) for k in stakes) and bool(
                play.split_allowed_table(rules)[:, 1:].any()
            )
        if self.bankroll is not None:
            # the legal rows of a seat that cannot cover a double (play_actions with
            # afford_double=False) and of a pre-peek question without insurance, after
            # the others: a key moves to them by an offset
            poor_pre_peek = play.pre_peek_action_table(rules, False, NUM_CORE_ACTIONS)
            poor_play = play.play_action_table(rules, NUM_CORE_ACTIONS, afford_double=False)
            rows = np.concatenate([poor_play, poor_pre_peek])
            packed = np.zeros((rows.shape[0], 8), dtype=bool)
            packed[:, :NUM_CORE_ACTIONS] = rows
            base = self._legal_rows.size
            poor_rows = packed.view(np.uint64).reshape(-1)
            self._legal_rows = np.concatenate([self._legal_rows, poor_rows])
            # (the public table and its phases gain the same rows, at the same keys)
            self.legal_table = np.concatenate([self.legal_table, rows])
            self.legal_table.flags.writeable = False
            self.legal_table_phase = np.concatenate([
                self.legal_table_phase,
                np.full(poor_play.shape[0], _DECIDE, dtype=np.int64),
                np.full(poor_pre_peek.shape[0], _INSURE_PHASE, dtype=np.int64),
            ])
            self.legal_table_phase.flags.writeable = False
            self._poor_play_offset = base
            self._poor_pre_peek_offset = base + 13 * play.KEY_UPCARD - self._pre_peek_key
            self._asks_pre_peek_poor = poor_pre_peek.sum(axis=1) > 1

    def open_rounds(self, idx: np.ndarray) -> None:
        """Open the next round at tables ``idx`` before its bet, as ``Table.new_round``: the
        last round's cards go to the discard tray and the shoe is reshuffled where the cut
        card is out (``reshuffled`` tells). :meth:`start_rounds` then deals without a
        second check. Tables already opened are left as they are."""
        idx = np.asarray(idx, dtype=np.int64)
        idx = idx[~self.opened[idx]]
        if not idx.size:
            return
        self.opened[idx] = True
        self._opened_any = True
        if self.infinite:
            self.reshuffled[idx] = False
        else:
            self.round_start[idx] = self.pos[idx]
            shuffle = self.needs_shuffle(idx)
            self.reshuffled[idx] = shuffle
            if shuffle.any():
                self._new_shoes(idx[shuffle])
        self._open_reshuffled[idx] = self.reshuffled[idx]

    def _close_openings(self, idx: np.ndarray) -> None:
        """:meth:`start_rounds` at tables ``idx``: an opened table keeps the reshuffle flag
        of its opening (the deal itself found nothing to reshuffle)."""
        was = idx[self.opened[idx]]
        if was.size:
            self.reshuffled[was] = self._open_reshuffled[was]
            self.opened[was] = False
            self._opened_any = bool(self.opened.any())

    def shoe_count(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per table of ``idx``: Hi-Lo sum and number of the undealt cards (zeros for an
        infinite deck): what the player has not seen between rounds."""
        if self.infinite:
            zero = np.zeros(idx.size, dtype=np.int64)
            return zero, zero
        return self.undealt_hilo[idx], self.shoe_size - self.pos[idx]

    def _on_table_units(self, idx: np.ndarray) -> np.ndarray:
        """The current round at tables ``idx`` in units of ``1 / chip_den``: its net result
        so far minus the chips still staked on unsettled hands (the player's chips off the
        table differ from those before the round's bet by this)."""
        stakes = np.where(self._settled[idx], 0, self._stake[idx])
        if self.max_hands > 1:
            for sel, fk in self._later_hands(idx):
                stakes[sel] += np.where(self._settled[fk], 0, self._stake[fk])
        chips = self.round_net(idx) * self.bet - stakes
        return np.rint(chips * self.chip_den).astype(np.int64)

    def chips(self, idx: np.ndarray) -> np.ndarray:
        """The chips the player at each table of ``idx`` holds off the table now (finite
        bankrolls only): float64, each the exact amount correctly rounded."""
        assert self.bankroll is not None
        return (self.bankroll[idx] + self._on_table_units(idx)) / self.chip_den

    def set_chips(self, idx: np.ndarray, chips: int | np.ndarray) -> None:
        """Give the player at tables ``idx`` ``chips`` off the table now (a new session)."""
        assert self.bankroll is not None
        units = np.rint(np.asarray(chips, dtype=np.float64) * self.chip_den).astype(np.int64)
        self.bankroll[idx] = units - self._on_table_units(idx)

    def _short_of_double(self, decide: np.ndarray) -> np.ndarray:
        """Per table: the chips off the table do not cover the current hand's stake (a
        double); meaningful where ``decide``."""
        if self.max_hands == 1:
            f = self._arange
        else:
            f = np.where(decide, self.cur, 0) * self.num_tables + self._arange
        return ~play.array_can_cover(self.chips(self._arange), self._stake[f])

    def _covers_insurance(self, idx: np.ndarray) -> np.ndarray:
        """Per table of ``idx``: insurance (or even money, on a natural) is affordable."""
        stake = self._stake[idx] * float(play.insurance_stake(1))
        return self._is_bj(idx, idx) | play.array_can_cover(self.chips(idx), stake)

    def _split_stakes_ok(self, f: np.ndarray) -> np.ndarray:
        """:func:`~blackjack_env.engine.play.split_stake_ok` of hands ``f`` (flat), with
        the bankroll's cover of their stake."""
        stake = self._stake[f]
        if self.bankroll is None:
            covers = np.ones(f.size, dtype=bool)
        else:
            covers = play.array_can_cover(self.chips(f % self.num_tables), stake)
        rules = self.rules
        pairs = zip(stake.tolist(), covers.tolist(), strict=True)
        return np.array([play.split_stake_ok(rules, s, c) for s, c in pairs], dtype=bool)

    # ============================================================ queries
    def current_totals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(total, soft, ncards)`` of each table's current hand (last hand once over)."""
        h = np.minimum(self.cur, self.nhands - 1)
        h = np.maximum(h, 0)
        fi = (h, self._arange)
        hard, ace = self.hard[fi], self.ace[fi]
        return array_total(hard, ace), array_soft(hard, ace), self.ncards[fi]

    def dealer_up_value(self) -> np.ndarray:
        """Point value of each dealer upcard (ace = 1)."""
        return self._value_of_id.take(self.up)

    def undealt_counts(self) -> np.ndarray:
        """``(N, 13)`` undealt cards by rank (finite shoes; zeros for an infinite deck)."""
        out = np.zeros((self.num_tables, 13), dtype=np.int64)
        if self.infinite:
            return out
        shoe = self.shoe if self.seats == 1 else self.shoe[self.lead_row]
        ranks = self._rank_of_id.take(shoe)
        live = np.arange(self.shoe_size)[None, :] >= self.pos[:, None]
        np.add.at(out, (np.broadcast_to(self._arange[:, None], ranks.shape)[live], ranks[live]), 1)
        return out

    def unseen_hilo(self) -> tuple[np.ndarray, np.ndarray]:
        """Per table: Hi-Lo sum and number of the cards the player has not seen (the
        undealt shoe plus the dealer's face-down hole card); zeros for an infinite deck."""
        if self.infinite:
            zero = np.zeros(self.num_tables, dtype=np.int64)
            return zero, zero
        hilo = self.undealt_hilo
        left = self.shoe_size - self.pos
        hidden = (self.hole >= 0) & ~self.hole_revealed
        # (hole -1, no hole card: take reads the last entry, times hidden False)
        return hilo + self._hilo_of_id.take(self.hole) * hidden, left + hidden
