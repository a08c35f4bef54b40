"""The class :class:`TableBatch`: the batched tables' state and how it is built.

:class:`TableBatch` combines the methods of the other modules of
:mod:`blackjack_env.envs.batch` (mixins, one per concept; see the package docstring
for the spec and the map) with the state they work on, all set in ``__init__`` here:
the rule constants (lookup tables from :mod:`blackjack_env.engine.play`), the shoes
(:meth:`~.shoe.ShoeMixin._init_shoe`), the hands, the dealer, and bet steps and
bankrolls (:meth:`~.chips.ChipsMixin._init_chips`); plus the flat views of the hand
arrays and pickling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from blackjack_env.engine.rules import Rules

# the module, not its names: envs.tables imports this package's codes (either may load first)
from blackjack_env.envs import tables as rule_tables
from blackjack_env.envs.batch.chips import ChipsMixin
from blackjack_env.envs.batch.dealer import DealerMixin
from blackjack_env.envs.batch.hands import HandsMixin
from blackjack_env.envs.batch.round import RoundMixin
from blackjack_env.envs.batch.rules import RulesMixin
from blackjack_env.envs.batch.seats import SeatsMixin
from blackjack_env.envs.batch.settlement import SettlementMixin
from blackjack_env.envs.batch.shoe import ShoeMixin
from blackjack_env.envs.codes import (
    NUM_CORE_ACTIONS,
    PHASE_OVER,
)
from blackjack_env.envs.settings import EnvSettings

if TYPE_CHECKING:
    from blackjack_env.envs.tables import RuleBank, RuleTables

__all__ = ["TableBatch"]


class TableBatch(
    RoundMixin, HandsMixin, DealerMixin, SettlementMixin, SeatsMixin, ChipsMixin, ShoeMixin,
    RulesMixin,
):
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
            ``num_tables`` counts rows (seats), a multiple of ``seats``: see the package
            docstring (:mod:`blackjack_env.envs.batch`).
        tables: the rule tables of these arguments, already built from validated settings
            (:class:`~blackjack_env.envs.tables.RuleTables`; :meth:`from_tables`): read
            as they are, the arguments not checked again; ``ValueError`` if they were
            built for other arguments. None: built here, after the arguments' checks.
        bank: a :class:`~blackjack_env.envs.tables.RuleBank` (:meth:`from_bank`; its
            first rule set's tables are ``tables``): each table then plays under its own
            rule set of the bank, set by :meth:`set_rules` (see
            :mod:`~blackjack_env.envs.batch.rules`); hand arrays hold the bank's space's
            largest ``max_split_hands``.

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

    Rule constants (read-only arrays, fields of ``tables``): ``card_values`` (point value
    by rank index 0..12, 0 = ace), ``rank_of_card`` (rank index of each card id 0..51),
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
        *,
        tables: RuleTables | None = None,
        bank: RuleBank | None = None,
    ) -> None:
        if tables is None:
            self._check_args(rules, num_tables, bet, bet_sizes, bankroll, seats)
            tables = rule_tables.build_tables(
                rules, bet=int(bet), bet_sizes=tuple(int(k) for k in bet_sizes),
                bankroll=None if bankroll is None else int(bankroll),
                insurance_decisions=bool(ask_insurance),
            )  # fmt: skip
        elif (rules, bet, bool(ask_insurance) and rules.insurance, tuple(bet_sizes), bankroll,
              seats) != (tables.rules, tables.bet, tables.ask_insurance, tables.bet_sizes,
                         tables.bankroll, tables.rules.seats):  # fmt: skip
            raise ValueError(
                "tables: the rule tables were built for another configuration than the "
                "arguments (give both from the same settings, or use TableBatch.from_tables)"
            )
        if bank is not None:
            if bank.first is not tables:
                raise ValueError("bank: the tables must be the bank's first (TableBatch.from_bank)")
            low, high = bank.space.shoe_decks
            if low != high:
                raise ValueError(
                    f"the batched tables play one shoe size per batch; the rule space "
                    f"{bank.space.name!r} has shoes of {low} to {high} decks: use one deck "
                    f"count (penetration may vary), or the single env"
                )
        self._build(tables, int(num_tables), rng, track_cards, bank)

    @classmethod
    def from_bank(
        cls, bank: RuleBank, num_tables: int, rng: np.random.Generator,
        track_cards: bool = False,
    ) -> TableBatch:
        """Tables that each play under their own rule set of ``bank`` (a
        :class:`~blackjack_env.envs.tables.RuleBank` of validated settings): every table
        starts under the bank's first rule set; :meth:`set_rules` gives tables others."""
        t = bank.first
        return cls(
            t.rules, num_tables, rng, t.bet, t.ask_insurance, track_cards, t.bet_sizes,
            t.bankroll, t.rules.seats, tables=t, bank=bank,
        )  # fmt: skip

    @classmethod
    def from_settings(
        cls, settings: EnvSettings, num_tables: int, rng: np.random.Generator,
        track_cards: bool = False,
    ) -> TableBatch:
        """The tables of the batched env, from its validated
        :class:`~blackjack_env.envs.settings.EnvSettings` (``rules``, ``bet``,
        ``insurance_decisions``, ``bet_sizes``, ``bankroll``; ``rules.seats`` seats), whole:
        what the settings checked is not checked again (``num_tables`` is the env's
        ``num_envs``, checked there)."""
        tables = rule_tables.RuleTables.from_settings(settings)
        return cls.from_tables(tables, num_tables, rng, track_cards)

    @classmethod
    def from_tables(
        cls, tables: RuleTables, num_tables: int, rng: np.random.Generator,
        track_cards: bool = False,
    ) -> TableBatch:
        """The tables of a validated configuration's :class:`~blackjack_env.envs.tables.
        RuleTables` (``tables.rules.seats`` seats; ``num_tables`` rows, a multiple of
        them), read as they are (the env builds its tables once)."""
        return cls(
            tables.rules, num_tables, rng, tables.bet, tables.ask_insurance, track_cards,
            tables.bet_sizes, tables.bankroll, tables.rules.seats, tables=tables,
        )  # fmt: skip

    @staticmethod
    def _check_args(
        rules: Any, num_tables: Any, bet: Any, bet_sizes: Any, bankroll: Any, seats: Any
    ) -> None:
        """The constructor's arguments checked (``ValueError`` naming the argument), for
        direct use; :meth:`from_settings` skips them (the env's settings checked them)."""
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

    def _build(
        self, tables: RuleTables, num_tables: int, rng: np.random.Generator, track_cards: bool,
        bank: RuleBank | None = None,
    ) -> None:
        """Set every attribute (:class:`~.state.BatchState`) from checked arguments."""
        rules = tables.rules
        mixed = self._mixed = bank is not None
        #: the rule tables this batch reads (:class:`~blackjack_env.envs.tables.RuleTables`)
        self.tables = tables
        self.rules = rules
        self.rng = rng
        self.bet = tables.bet
        self.ask_insurance = tables.ask_insurance
        n = self.num_tables = int(num_tables)
        h = self.max_hands = bank.space.max_hands if bank is not None else rules.max_split_hands
        self._arange = np.arange(n)
        #: seats per table: row ``r`` is seat ``r % seats`` of table ``r // seats``
        self.seats = int(rules.seats)
        #: per row, the row of seat 0 of its table (it holds the table's shoe and dealer)
        self.lead_row = self._arange - self._arange % self.seats

        # ----- rule constants: the rule tables (envs/tables.py, built from engine/play),
        # under the names the mixins read
        self._values = tables.card_values
        self._rank_of_id = tables.rank_of_card
        self._value_of_id = tables.value_of_card
        #: point value by rank index 0..12 (``rules.card_values``; read-only)
        self.card_values = tables.card_values
        #: rank index 0..12 (0 = ace) of each card id 0..51 (read-only)
        self.rank_of_card = tables.rank_of_card
        self._factor = tables.payouts  # net per chip, by outcome code
        # a hand's net can be -0.0 (a factor is -0.0)
        self._negative_zero = bool(np.count_nonzero(np.signbit(self._factor) & (self._factor == 0)))
        # aces by rank (custom values may make another card worth 1)
        self._ace_of_id = self._rank_of_id == 0
        self._outcome_table = tables.outcome_table  # (player, dealer) categories
        self._by_hands = tables.by_hands  # the same, keyed by the hands (_compare)
        self._dealer_hits = tables.dealer_hits  # entry 2 * hard + ace
        self._dealer_next = tables.dealer_next  # entry 52 * (2 * hard + ace) + card id
        self._peek_by_rank = tables.peek_by_rank  # by upcard rank index
        #: ``(K, 7)`` bool, read-only: the legal decisions of each row key (:meth:`legal_keys`)
        self.legal_table = tables.legal_table
        # each row packed into one uint64 (8 bools)
        packed = np.zeros((tables.legal_table.shape[0], 8), dtype=bool)
        packed[:, :NUM_CORE_ACTIONS] = tables.legal_table
        self._legal_rows = packed.view(np.uint64).reshape(-1)
        self._over_key = tables.over_key
        #: ``(K,)`` the ``BatchPhase`` of a table whose key is the row's (read-only)
        self.legal_table_phase = tables.legal_table_phase
        # rules where every hand in play may stand or hit and nothing else: the row of
        # a hand of more than two cards (key 0: hard 0, no ace, upcard ace) is every row
        self._stand_hit_only = tables.stand_hit_only
        self._stand_hit_key = 0
        # stand/hit-only rules: the key by phase code (DECIDE, INSURE (set apart), OVER)
        self._stand_hit_keys = np.array([0, 0] + [self._over_key] * 3, dtype=np.int64)
        self._pre_peek_key = tables.pre_peek_key  # + 2 * upcard rank index + natural
        self._asks_pre_peek = tables.asks_pre_peek  # more than DECLINE
        self._pair = tables.pair  # is_pair at 13 * rank index + rank index
        self._split_ok = tables.split_ok  # split_allowed at 18 * pair + 2 * hands + split aces
        self._splits = tables.splits
        self._split_done = tables.split_done
        self._surrender_at_once = tables.surrender_at_once
        self._surrenders = tables.surrenders
        # one hand that is never doubled: its stake is always the bet (set once, below)
        self._stake_fixed = h == 1 and not rules.can_double
        self._bet_factor = self.bet * self._factor  # net of a hand staking the bet
        self._peek = tables.peek
        self._no_hole = tables.no_hole
        self._auto21 = tables.auto21
        self._natural_stands = tables.natural_stands
        self._split_naturals = tables.split_naturals
        self._two_hard = tables.two_hard
        self._two_ace = tables.two_ace
        self._second_key = tables.second_key
        self._naturals_paid_at_peek = tables.naturals_paid_at_peek
        self._natural_effect = tables.natural_effect
        self._highest = tables.highest
        self._split_stake_check = tables.split_stake_check
        self._poor_play_offset = tables.poor_play_offset
        self._poor_pre_peek_offset = tables.poor_pre_peek_offset
        self._asks_pre_peek_poor = tables.asks_pre_peek_poor

        # ----- shoe (shoe.py), and what reads it
        self._init_shoe(n)
        self._cdf: np.ndarray | None = None  # infinite deck: dealer final-hand CDFs
        self._to_dealer: list[np.ndarray] = []  # tables whose hands are all done (in a call)
        self._can_double_rule = rules.can_double
        self._pre_peek = tables.pre_peek  # a pre-peek decision (the INSURE phase) can occur
        # one hand per round and no pre-peek decision, infinite deck: a step's hit cards
        # are one whole-width block of the card stream (table t takes entry t)
        self._hit_block = h == 1 and not self._pre_peek and self.infinite

        # ----- seat / hands
        self.phase = np.full(n, PHASE_OVER, dtype=np.int64)
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
        self.net[1:] = -0.0  # a hand past nhands: RoundMixin.step sums every hand
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
        self._init_chips(tables.bet_sizes, tables.bankroll)
        #: the env's action mask by legal key (``tables.mask_rows``; a mixed batch: the bank's)
        self.mask_rows = tables.mask_rows
        #: ``(1, RULES_SIZE)``: the rule features by slot (a mixed batch: by bank row)
        self.rule_features = tables.rule_features[None, :]
        if mixed:
            # every gate a single-rule batch sets from its rules is open: the per-table
            # tables and flags decide (batch/rules.py)
            self._stake_fixed = False
            self._negative_zero = True
            self._pre_peek = True
            self._can_double_rule = True
            self._surrenders = True
            self._splits = True
            self._peek = True
            self._auto21 = True
            self._naturals_paid_at_peek = True
            self._hit_block = False
            # read per table (``_flag_t``), never as the first rule set's
            self._no_hole = self._highest = self._natural_stands = False
            self._split_naturals = self._surrender_at_once = False
            self.stake[0] = 0
            if bank is not None and tables.bankroll is not None:
                self.chip_den = bank.chip_denominator()
                self.bankroll = np.full(self.num_tables, tables.bankroll * self.chip_den, np.int64)
        self._init_rules(bank)

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
        if self._mixed:  # the per-table rule arrays are views too
            self._bind_rule_rows()
