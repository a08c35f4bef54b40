"""The state of the batched tables, declared: every attribute a :class:`TableBatch` holds.

:class:`~blackjack_env.envs.batch.TableBatch` sets these in its ``__init__`` (and its
mixins' ``_init_*`` methods); its seven mixins (one per job: round, hands, dealer,
settlement, seats, chips, shoe) read and write them. Each mixin derives from
:class:`BatchState`, so a reader and a type checker see every field, its type and its
meaning in one place instead of discovering them in a 200-line ``__init__``.

Per-table arrays have one entry per table (``num_tables``); per-hand arrays are
``(max_hands, num_tables)`` with their flat views (the ``_``-prefixed twins, hand ``h``
of table ``t`` at ``h * num_tables + t``). The array layouts and codes are those of
the package docstring (:mod:`blackjack_env.envs.batch`).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from blackjack_env.engine.play import NaturalEffect
from blackjack_env.engine.rules import Rules

if TYPE_CHECKING:
    from collections.abc import Iterator

    from blackjack_env.engine.cards import Card
    from blackjack_env.envs.tables import RuleBank, RuleTables

__all__ = ["BatchState"]


class BatchState:
    """The attributes of :class:`~blackjack_env.envs.batch.TableBatch` (annotations only:
    nothing is stored on the class), in the order ``__init__`` sets them."""

    tables: RuleTables
    rules: Rules
    rng: np.random.Generator
    bet: int
    ask_insurance: bool
    num_tables: int
    max_hands: int
    _arange: np.ndarray
    seats: int
    lead_row: np.ndarray
    _values: np.ndarray
    _rank_of_id: np.ndarray
    _value_of_id: np.ndarray
    card_values: np.ndarray
    rank_of_card: np.ndarray
    _factor: np.ndarray
    _negative_zero: bool
    _ace_of_id: np.ndarray
    _outcome_table: np.ndarray
    _by_hands: np.ndarray
    _dealer_hits: np.ndarray
    _dealer_next: np.ndarray
    _peek_by_rank: np.ndarray
    legal_table: np.ndarray
    _legal_rows: np.ndarray
    _over_key: int
    legal_table_phase: np.ndarray
    _stand_hit_only: bool
    _stand_hit_key: int
    _stand_hit_keys: np.ndarray
    _pre_peek_key: int
    _asks_pre_peek: np.ndarray
    _pair: np.ndarray
    _split_ok: np.ndarray
    _splits: bool
    _split_done: np.ndarray
    _surrender_at_once: bool
    _surrenders: bool
    _stake_fixed: bool
    _bet_factor: np.ndarray
    _peek: bool
    _no_hole: bool
    _auto21: bool
    _natural_stands: bool
    _split_naturals: bool
    _two_hard: np.ndarray
    _two_ace: np.ndarray
    _second_key: np.ndarray
    _naturals_paid_at_peek: bool
    _natural_effect: NaturalEffect
    _highest: bool
    decks: int | None
    infinite: bool
    _stacked_any: bool
    _ever_stacked: bool
    _pool: np.ndarray
    _pool_pos: int
    shoe_size: int
    _cut: float | None
    _full_counts: np.ndarray
    shoe: np.ndarray
    pos: np.ndarray
    stacked_end: np.ndarray
    round_start: np.ndarray
    _dealt_minus_pos: np.ndarray
    undealt_hilo: np.ndarray
    _hilo_of_id: np.ndarray
    _draw_tag: np.ndarray
    shuffles: np.ndarray
    mid_round_reshuffles: np.ndarray
    reshuffled: np.ndarray
    _cdf: np.ndarray | None
    _to_dealer: list[np.ndarray]
    _can_double_rule: bool
    _pre_peek: bool
    _hit_block: bool
    phase: np.ndarray
    nhands: np.ndarray
    cur: np.ndarray
    last_hand: np.ndarray
    hard: np.ndarray
    ace: np.ndarray
    ncards: np.ndarray
    r0: np.ndarray
    r1: np.ndarray
    stake: np.ndarray
    doubled: np.ndarray
    surrendered: np.ndarray
    done: np.ndarray
    settled: np.ndarray
    outcome: np.ndarray
    net: np.ndarray
    insurance: np.ndarray
    insurance_net: np.ndarray
    _hand_fields: tuple[np.ndarray, ...]
    d_hard: np.ndarray
    d_ace: np.ndarray
    d_n: np.ndarray
    up: np.ndarray
    _up_key: np.ndarray
    hole: np.ndarray
    hole_revealed: np.ndarray
    peek_possible: np.ndarray
    rounds: np.ndarray
    track_cards: bool
    hand_ranks: np.ndarray
    dealer_ranks: np.ndarray
    counts: np.ndarray
    _shoe_flat: np.ndarray
    _flat_fields: tuple[np.ndarray, ...]
    _hard: np.ndarray
    _ace: np.ndarray
    _ncards: np.ndarray
    _r0: np.ndarray
    _r1: np.ndarray
    _stake: np.ndarray
    _doubled: np.ndarray
    _surrendered: np.ndarray
    _done: np.ndarray
    _settled: np.ndarray
    _outcome: np.ndarray
    _net: np.ndarray
    _hand_ranks_f: np.ndarray
    bet_sizes: tuple[int, ...]
    opened: np.ndarray
    _opened_any: bool
    _open_reshuffled: np.ndarray
    chip_den: int
    bankroll: np.ndarray | None
    _split_stake_check: bool
    _poor_play_offset: int
    _poor_pre_peek_offset: int
    _asks_pre_peek_poor: np.ndarray
    mask_rows: np.ndarray
    rule_features: np.ndarray
    # ---- each table under its own rules (rules.py; a batch built from a RuleBank)
    bank: RuleBank | None
    _mixed: bool
    rule_slot: np.ndarray
    feature_row: np.ndarray
    _off: dict[str, np.ndarray]
    _flag_t: dict[str, np.ndarray]
    _effect_t: np.ndarray
    _cut_t: np.ndarray
    _legal_off: np.ndarray
    _cdf_off: np.ndarray
    _bank_version: int
    _legal_rows_count: int
    _cdf_stack: np.ndarray
    _cdf_row: dict[tuple[int, int], int]
    _cdf_of_slot: dict[int, int]
    _cdf_blocks: np.ndarray
    _int_t: np.ndarray
    _bool_t: np.ndarray
    _slot_int: np.ndarray
    _slot_bool: np.ndarray

    if TYPE_CHECKING:
        # Methods one mixin calls on another (each defined once, in its mixin): declared
        # here for the type checker only.
        @property
        def _kernels(self) -> SimpleNamespace | None: ...
        def _act_play(self, idx: np.ndarray, actions: np.ndarray, track: bool = True) -> None: ...
        def _advance(self, idx: np.ndarray) -> None: ...
        def _at(self, name: str, key: np.ndarray, t: np.ndarray) -> np.ndarray: ...
        def _ask_seats(self, idx: np.ndarray, ask: np.ndarray) -> np.ndarray: ...
        def _close_openings(self, idx: np.ndarray) -> None: ...
        def _compare(self, f: np.ndarray, t: np.ndarray) -> np.ndarray: ...
        def _covers_insurance(self, idx: np.ndarray) -> np.ndarray: ...
        def _deal_seats(self, idx: np.ndarray, k: int) -> np.ndarray: ...
        def _dealer_bj(self, idx: np.ndarray) -> np.ndarray: ...
        def _dealer_draws(self, open_: np.ndarray, drawing: np.ndarray) -> None: ...
        def _do_peek(
            self,
            idx: np.ndarray,
            dealer_bj: np.ndarray | None = None,
            natural: np.ndarray | None = None,
            at_deal: bool = False,
        ) -> np.ndarray: ...
        def _draw(self, idx: np.ndarray) -> np.ndarray: ...
        def _draw_many(self, idx: np.ndarray, k: int) -> np.ndarray: ...
        def _flush_dealer(self) -> None: ...
        def _hand_grid(
            self,
            idx: np.ndarray,
            nh: np.ndarray | None = None,
            any_open: np.ndarray | None = None,
            plays: np.ndarray | None = None,
        ) -> tuple[np.ndarray, np.ndarray]: ...
        def _is_bj(self, f: np.ndarray, t: np.ndarray) -> np.ndarray: ...
        def _later_hands(
            self, idx: np.ndarray, nh: np.ndarray | None = None
        ) -> Iterator[tuple[np.ndarray, np.ndarray]]: ...
        def _new_shoes(self, idx: np.ndarray) -> None: ...
        def _on_table_units(self, idx: np.ndarray) -> np.ndarray: ...
        def _pay(self, f: np.ndarray, code: int) -> None: ...
        def _pay_outcomes(self, f: np.ndarray, codes: np.ndarray) -> None: ...
        def _peek_seats(self, idx: np.ndarray) -> None: ...
        def _random_cards(self, m: int) -> np.ndarray: ...
        @property
        def _round_flags(self) -> tuple[np.ndarray, ...]: ...
        def _round_over(self, idx: np.ndarray) -> np.ndarray | None: ...
        def _seats_done(self, idx: np.ndarray) -> None: ...
        def _settle_by_compare(self, idx: np.ndarray) -> None: ...
        def _settle_hands(self, f: np.ndarray, t: np.ndarray) -> None: ...
        def _settle_highest(self, f: np.ndarray, t: np.ndarray) -> None: ...
        def _short_of_double(self, decide: np.ndarray) -> np.ndarray: ...
        def _split_stakes_ok(self, f: np.ndarray) -> np.ndarray: ...
        def _sync_shoes(self) -> None: ...
        def _uniforms(self, m: int) -> np.ndarray: ...
        def _new_uniforms(self, m: int) -> None: ...
        def acting(self) -> np.ndarray: ...
        def needs_shuffle(self, idx: np.ndarray) -> np.ndarray: ...
        def round_net(self, idx: np.ndarray) -> np.ndarray: ...
        def stack(self, t: int, cards: str | list[Card]) -> None: ...
