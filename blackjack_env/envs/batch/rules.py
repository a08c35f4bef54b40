"""Each batched table under its own rules: the bank of rule tables and a rule slot per table.

Methods of :class:`~blackjack_env.envs.batch.TableBatch` (a mixin). A batch built with
:meth:`TableBatch.from_bank <blackjack_env.envs.batch.TableBatch.from_bank>` reads a
:class:`~blackjack_env.envs.tables.RuleBank`: the rule tables of many rule sets, each
array field stacked by distinct value. Every table holds a rule slot
(:attr:`~.state.BatchState.rule_slot`, set by :meth:`RulesMixin.set_rules` before a
table's round is dealt); each lookup adds the table's offset into its field's stack
(``_off[field]``: the row of its rule set times the row's size) to the key it reads, and
each flag a single-rule batch branches on once is read per table (``_flag_t[name]``).
A single-rule batch (``bank`` None) keeps its own code paths, offsets and all: the
per-table reads happen only where ``self._mixed``.

What every table of a bank shares is fixed per batch: the deck kind and shoe size, the
hands per seat (the space's largest), the action count, the bets
(:data:`RuleBank.SHARED <blackjack_env.envs.tables.RuleBank.SHARED>`). The gates a
single-rule batch sets from its rules (a pre-peek question can occur, a double, a split,
a surrender can happen) are all open in a mixed batch, and the per-table tables decide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from blackjack_env.engine.play import NaturalEffect
from blackjack_env.engine.rules import Rules
from blackjack_env.envs.batch.dealer import dealer_cdf
from blackjack_env.envs.batch.state import BatchState

if TYPE_CHECKING:
    from blackjack_env.envs.tables import RuleBank

#: The lookup tables a mixed batch reads per table, with their bank field.
OFFSET_FIELDS = (
    "card_values", "value_of_card", "payouts", "by_hands", "dealer_hits", "dealer_next",
    "peek_by_rank", "asks_pre_peek", "asks_pre_peek_poor", "pair", "split_ok",
    "split_done", "second_key", "two_hard",
)  # fmt: skip
#: The flags a mixed batch reads per table.
TABLE_FLAGS = (
    "peek", "no_hole", "auto21", "natural_stands", "naturals_paid_at_peek",
    "split_naturals", "surrender_at_once", "highest",
)  # fmt: skip

_EFFECT_PAY, _EFFECT_END = int(NaturalEffect.PAY), int(NaturalEffect.END)


class RulesMixin(BatchState):
    """The per-table rules of :class:`~blackjack_env.envs.batch.TableBatch`."""

    def _init_rules(self, bank: RuleBank | None) -> None:
        """The rule state of the batch (called by ``_build`` once the shoe exists)."""
        n = self.num_tables
        self.bank = bank
        self._mixed = bank is not None
        #: per table (row), its rule set's slot in :attr:`bank` (0: a single-rule batch)
        self.rule_slot = np.zeros(n, dtype=np.int64)
        self._off: dict[str, np.ndarray] = {}
        self._flag_t: dict[str, np.ndarray] = {}
        self._effect_t = np.zeros(n, dtype=np.int64)
        self._cut_t = np.zeros(n, dtype=np.float64)
        self._legal_off = np.zeros(n, dtype=np.int64)
        self._cdf_off = np.zeros(n, dtype=np.int64)
        self._bank_version = -1
        self._legal_rows_count = -1
        self._cdf_stack: np.ndarray = np.zeros((0, 8))
        self._cdf_row: dict[tuple[int, int], int] = {}
        self._cdf_of_slot: dict[int, int] = {}
        self._cdf_blocks = np.zeros(0, dtype=np.int64)  # by slot: its CDF block (-1: none yet)
        #: per table, its row of :attr:`rule_features` (0 in a single-rule batch)
        self.feature_row = np.zeros(n, dtype=np.int64)
        # per table, every int the rules give (offsets, the legal rows, the features' row,
        # the natural effect) as rows of one array, and every flag: set_rules writes each
        # with one assignment from the same arrays by slot (built in _bind_bank)
        self._int_t = np.zeros((len(OFFSET_FIELDS) + 3, n if bank is not None else 0),
                               dtype=np.int64)
        self._bool_t = np.zeros((len(TABLE_FLAGS), self._int_t.shape[1]), dtype=bool)
        self._slot_int = np.zeros((self._int_t.shape[0], 0), dtype=np.int64)
        self._slot_bool = np.zeros((self._bool_t.shape[0], 0), dtype=bool)
        if bank is None:
            return
        self._bind_rule_rows()
        self._bind_bank()
        self.set_rules(self._arange, np.zeros(n, dtype=np.int64), new_shoes=False)

    def _bind_rule_rows(self) -> None:
        """The per-table arrays as rows of :attr:`_int_t` and :attr:`_bool_t` (views:
        rebuilt after unpickling, which does not keep them)."""
        rows = self._int_t
        f = len(OFFSET_FIELDS)
        self._off = {name: rows[k] for k, name in enumerate(OFFSET_FIELDS)}
        self._legal_off, self.feature_row, self._effect_t = rows[f], rows[f + 1], rows[f + 2]
        self._flag_t = {name: self._bool_t[k] for k, name in enumerate(TABLE_FLAGS)}

    def _at(self, name: str, key: np.ndarray, t: np.ndarray) -> np.ndarray:
        """``key`` into the lookup table ``name``, read for tables ``t``: in a mixed batch,
        moved to each table's rows of the bank's stack (``key`` itself otherwise)."""
        if not self._mixed:
            return key
        return key + self._off[name].take(t)

    # ------------------------------------------------------------- the bank's arrays
    def _bind_bank(self) -> None:
        """Read the bank's stacked arrays into the names the other mixins read."""
        bank = self.bank
        assert bank is not None
        st = bank.stacked
        self._values = st["card_values"].flat
        self._value_of_id = st["value_of_card"].flat
        self._factor = st["payouts"].flat
        self._bet_factor = self.bet * self._factor
        self._by_hands = st["by_hands"].flat
        self._dealer_hits = st["dealer_hits"].flat
        self._dealer_next = st["dealer_next"].flat
        self._peek_by_rank = st["peek_by_rank"].flat
        self._asks_pre_peek = st["asks_pre_peek"].flat
        self._asks_pre_peek_poor = st["asks_pre_peek_poor"].flat
        self._pair = st["pair"].flat
        self._split_ok = st["split_ok"].flat
        self._split_done = st["split_done"].flat
        self._second_key = st["second_key"].flat
        self._two_hard = st["two_hard"].flat
        #: ``(slots, RULES_SIZE)`` float32: every rule set's features, by bank row
        self.rule_features = st["rule_features"].data
        legal = st["legal_table"]
        if legal.count != self._legal_rows_count:  # the legal rows gained a table
            self._legal_rows_count = legal.count
            k = legal.shape[0]
            table = legal.data[: legal.count].reshape(-1, legal.shape[1])
            table.flags.writeable = False
            self.legal_table = table
            packed = np.zeros((table.shape[0], 8), dtype=bool)
            packed[:, : table.shape[1]] = table
            self._legal_rows = packed.view(np.uint64).reshape(-1)
            phase = np.tile(bank.first.legal_table_phase, legal.count)
            phase.flags.writeable = False
            self.legal_table_phase = phase
            masks = st["mask_rows"].data[: legal.count].reshape(k * legal.count, -1)
            masks.flags.writeable = False
            #: ``(rows, n_actions)`` int8: the env's action mask by legal key (the bank's)
            self.mask_rows = masks
        size = bank.size
        k = legal.shape[0]
        self._slot_int = np.stack(
            [bank.rows[name][:size] * st[name].row_size for name in OFFSET_FIELDS]
            + [bank.rows["legal_table"][:size] * k, bank.rows["rule_features"][:size],
               bank.flags["natural_effect"][:size]]
        )
        self._slot_bool = np.stack([bank.flags[name][:size] != 0 for name in TABLE_FLAGS])
        self._bank_version = bank.version

    def set_rules(self, idx: np.ndarray, slots: np.ndarray, new_shoes: bool = True) -> None:
        """Tables ``idx`` (rows; with several seats, whole tables) play under the bank's
        rule sets ``slots`` (one per row of ``idx``) from their next round on; a finite
        shoe is replaced by a fresh one (a new table under new rules; ``new_shoes=False``
        keeps it). Between rounds only."""
        bank = self.bank
        if bank is None:
            raise ValueError("set_rules needs a batch built from a RuleBank (TableBatch.from_bank)")
        idx = np.asarray(idx, dtype=np.int64)
        slots = np.asarray(slots, dtype=np.int64)
        if self._bank_version != bank.version:
            self._bind_bank()
        self.rule_slot[idx] = slots
        self._int_t[:, idx] = self._slot_int[:, slots]
        self._bool_t[:, idx] = self._slot_bool[:, slots]
        if self.infinite:
            if not self.track_cards:  # each slot's block found once, then read by slot
                blocks = self._cdf_blocks
                if blocks.size < bank.size:
                    grown = np.full(2 * bank.size, -1, dtype=np.int64)
                    grown[: blocks.size] = blocks
                    blocks = self._cdf_blocks = grown
                block = blocks.take(slots)
                new = np.unique(slots[block < 0])
                if new.size:
                    for slot in new.tolist():
                        blocks[slot] = self._cdf_slot(slot)
                    block = blocks.take(slots)
                self._cdf_off[idx] = block * 64
            return
        cuts = [self._cut_of(bank.rules[s]) for s in slots.tolist()]
        self._cut_t[idx] = cuts
        if new_shoes:
            self._new_shoes(idx)

    def _cut_of(self, rules: Rules) -> float:
        """The cut card's place: a shoe is reshuffled between rounds once this many cards
        are dealt (0.5 for a reshuffle before every round: any card dealt)."""
        if rules.penetration is None:
            return 0.5
        return float(rules.penetration * self.shoe_size)

    def _cdf_slot(self, slot: int) -> int:
        """The row block of the infinite deck's dealer CDF table of bank slot ``slot``
        (the dealer's final hand is fixed by its drawing table and the card values, so
        rule sets that share both share the block)."""
        found = self._cdf_of_slot.get(slot)
        if found is not None:
            return found
        bank = self.bank
        assert bank is not None
        key = (int(bank.rows["dealer_hits"][slot]), int(bank.rows["value_of_card"][slot]))
        block = self._cdf_row.get(key)
        if block is None:
            block = self._cdf_row[key] = self._cdf_stack.shape[0] // 64
            self._cdf_stack = np.concatenate([self._cdf_stack, dealer_cdf(bank.rules[slot])])
        self._cdf_of_slot[slot] = block
        return block

