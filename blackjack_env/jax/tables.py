"""The rule tables of the JAX table, built on the host: nothing here decides a rule.

:func:`build` turns a validated configuration (an env's
:class:`~blackjack_env.envs.settings.EnvSettings`) into a :class:`Config` (Python
constants that fix shapes and which code is traced: the hands per seat, the shoe's size,
whether the dealer peeks, ...) and a :class:`Params` pytree of arrays (the lookup
tables). Both are read off the public fields of the rule-table layer
(:class:`~blackjack_env.envs.tables.RuleTables`, built from
:mod:`blackjack_env.engine.play`'s functions), which the numpy batched tables read too:
the JAX round reads exactly the tables the numpy round reads, and no numpy env is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np

from blackjack_env.engine.play import NaturalEffect
from blackjack_env.engine.rules import Rules
from blackjack_env.envs import step as env_step
from blackjack_env.envs.batch import BatchPhase
from blackjack_env.envs.settings import EnvSettings
from blackjack_env.envs.step import Decision
from blackjack_env.envs.tables import RuleTables
from blackjack_env.envs.view.layout import ObsMode

__all__ = ["Config", "Params", "build"]

#: Stacked-card buffer of an infinite deck (cards dealt first, in order), per table of
#: one seat; each further seat adds :data:`INFINITE_STACK_SEAT`.
INFINITE_STACK = 64
INFINITE_STACK_SEAT = 32


@dataclass(frozen=True)
class Config:
    """Constants of one rule set and env configuration (hashable: a static argument).

    ``hands``: hands a seat may hold (``rules.max_split_hands``); ``seats``: learner
    seats at the table (the numpy env's ``seats_per_table``); ``shoe_size``: cards in
    a finite shoe, or the stacked-card buffer of an infinite deck; ``cut``: a finite shoe
    is reshuffled between rounds once this many cards were dealt (``None``: after every
    round that dealt a card); ``bet``: chips per base bet; ``n_actions``: the action
    space (the numpy env's ``Layout.n_actions``). The flags say which parts of the round
    the rules use, each read from :mod:`blackjack_env.engine.play` (as the numpy batched
    tables read them).

    Two configs are equal (and hash alike) when their traced code is the same: ``rules``
    is carried for reference and left out of the comparison, since everything traced
    reads of it is in the other fields or in :class:`Params` (so rule sets that differ
    only in table values share one compilation; :mod:`blackjack_env.jax.program`).
    """

    rules: Rules = field(compare=False)
    hands: int
    seats: int
    shoe_size: int
    infinite: bool
    cut: float | None
    bet: int
    n_actions: int
    n_play: int
    peek: bool
    no_hole: bool
    pre_peek: bool
    pre_peek_decisions: bool
    natural_effect: NaturalEffect
    natural_stands: bool
    naturals_paid_at_peek: bool
    auto21: bool
    split_naturals: bool
    surrender_at_once: bool
    surrenders: bool
    can_double: bool
    splits: bool
    highest: bool
    key_width: int
    over_key: int
    pre_peek_key: int
    bets: bool = False
    track: bool = False
    n_bets: int = 0
    rounds: int | None = 1
    chip_den: int = 1
    bankroll: int | None = None
    min_cost: int = 1
    stake_check: bool = False
    poor_play_offset: int = 0
    poor_pre_peek_offset: int = 0


class Params(NamedTuple):
    """The rule tables (``jax`` arrays; a pytree). Indexing as in the rule-table layer
    (:class:`~blackjack_env.envs.tables.RuleTables`), whose field each mirrors (named in
    the comment where the name differs)."""

    value_of_id: Any  # (52,) point value of each card id (value_of_card)
    rank_of_id: Any  # (52,) rank index 0..12 (0 = ace) (rank_of_card)
    hilo_of_id: Any  # (52,) Hi-Lo tag (hilo_of_card)
    values: Any  # (13,) point value by rank index (card_values)
    factor: Any  # (7,) net chips per chip staked, by outcome code (payouts)
    by_hands: Any  # (2W * 2W,) outcome code by (player key, dealer key)
    dealer_hits: Any  # (64,) play.dealer_draw_table
    peek_by_rank: Any  # (13,) play.peek_by_rank
    asks_pre_peek: Any  # (26,) the pre-peek question asks more than DECLINE
    legal_keys_phase: Any  # (K,) BatchPhase of each legal-table row (legal_table_phase)
    mask_rows: Any  # (K, n_actions) the env's action mask by legal-table row
    pair: Any  # (169,) play.pair_table
    split_ok: Any  # (36,) play.split_allowed_table, flat
    split_done: Any  # (16,) play.split_done_table
    second_key: Any  # (169,) split hand's split_done key bits from its two ranks
    two_hard: Any  # (169,) hard total of two ranks
    two_ace: Any  # (169,) two ranks hold an ace
    decision_of_phase: Any  # (5,) BatchPhase -> observation phase (Decision)
    surrender_outcome: Any  # (2,) outcome code of a surrendered hand by dealer natural
    mapped_action: Any  # (4, 2, n) an illegal action's replacement by (Decision, HIT legal, a)
    table_action: Any  # (2, n) the table's Action code of action a by (pre-peek, a)
    bet_chips: Any  # (K,) chips of bet size k (bet steps)
    bet_within: Any  # (K,) bet size k is within the table limits
    bet_mapped: Any  # (2**K, n) a BET step's illegal action replaced, by allowed-size bits
    asks_pre_peek_poor: Any  # (26,) the pre-peek question without insurance asks more
    stake_ok: Any  # (2, M + 1) play.split_stake_ok by (bankroll covers, stake in chips)


def build(settings: EnvSettings, tables: RuleTables | None = None) -> tuple[Config, Params]:
    """``(config, params)`` of validated settings (:meth:`EnvSettings.batched`, or
    :meth:`EnvSettings.from_args` with ``rules.seats`` learner seats per table), read off
    their :class:`~blackjack_env.envs.tables.RuleTables` (``tables``, built here when not
    given)."""
    t = RuleTables.from_settings(settings) if tables is None else tables
    rules: Rules = settings.rules
    seats = rules.seats
    decks = rules.shoe_decks
    infinite = decks is None
    stack = INFINITE_STACK + INFINITE_STACK_SEAT * (seats - 1)
    size = stack if decks is None else 52 * decks
    cut = None if infinite or rules.penetration is None else rules.penetration * size
    cfg = Config(
        rules=rules,
        hands=rules.max_split_hands,
        seats=seats,
        shoe_size=size,
        infinite=infinite,
        cut=cut,
        bet=t.bet,
        n_actions=t.n_actions,
        n_play=t.n_play,
        peek=t.peek,
        no_hole=t.no_hole,
        pre_peek=t.pre_peek,
        pre_peek_decisions=t.pre_peek_decisions,
        natural_effect=t.natural_effect,
        natural_stands=t.natural_stands,
        naturals_paid_at_peek=t.naturals_paid_at_peek,
        auto21=t.auto21,
        split_naturals=t.split_naturals,
        surrender_at_once=t.surrender_at_once,
        surrenders=t.surrenders,
        can_double=t.can_double,
        splits=t.splits,
        highest=t.highest,
        key_width=t.hand_key_width,
        over_key=t.over_key,
        pre_peek_key=t.pre_peek_key,
        bets=bool(t.bet_sizes),
        track=settings.obs_mode is ObsMode.DICT,
        n_bets=len(t.bet_sizes),
        rounds=settings.rounds_per_episode,
        chip_den=t.chip_den,
        bankroll=t.bankroll,
        min_cost=t.min_cost,
        stake_check=t.split_stake_check,
        poor_play_offset=t.poor_play_offset,
        poor_pre_peek_offset=t.poor_pre_peek_offset,
    )
    i32 = jnp.int32
    decision = np.asarray(env_step.DECISION_BY_BATCH_PHASE, dtype=np.int32)
    assert [int(p) for p in BatchPhase] == list(range(5))
    # the env's illegal-action mapping and pre-peek reading, tabulated over every input
    na = cfg.n_actions
    a = np.arange(na)
    mapped = np.stack([
        np.stack([
            env_step.array_map_illegal(a, np.ones(na, bool), np.full(na, d), np.full(na, hit))
            for hit in (False, True)
        ])
        for d in range(len(Decision))
    ])  # fmt: skip
    table_action = np.stack(
        [env_step.array_table_actions(a, np.full(na, pre)) for pre in (False, True)]
    )
    # the BET step: sizes, limits and the mapping of an illegal bet action, by every
    # pattern of allowed sizes (envs.step.array_map_illegal_bet)
    k = cfg.n_bets
    if k > 12:
        raise ValueError(f"bet_sizes: the JAX table takes at most 12 bet sizes, got {k}")
    bits = np.arange(max(1, 2**k))
    allowed = ((bits[:, None] >> np.arange(k)) & 1).astype(bool)
    bet_mapped = np.zeros((bits.size, na), dtype=np.int32)
    if k:
        for j in range(na):
            want = np.full(bits.size, j - cfg.n_play)
            bet_mapped[:, j] = cfg.n_play + env_step.array_map_illegal_bet(want, allowed)
    params = Params(
        value_of_id=jnp.asarray(t.value_of_card, i32),
        rank_of_id=jnp.asarray(t.rank_of_card, i32),
        hilo_of_id=jnp.asarray(t.hilo_of_card, i32),
        values=jnp.asarray(t.card_values, i32),
        factor=jnp.asarray(t.payouts, jnp.float32),
        by_hands=jnp.asarray(t.by_hands.reshape(-1), i32),
        dealer_hits=jnp.asarray(t.dealer_hits),
        peek_by_rank=jnp.asarray(t.peek_by_rank),
        asks_pre_peek=jnp.asarray(t.asks_pre_peek),
        legal_keys_phase=jnp.asarray(t.legal_table_phase, i32),
        mask_rows=jnp.asarray(t.mask_rows.astype(bool)),
        pair=jnp.asarray(t.pair),
        split_ok=jnp.asarray(t.split_ok),
        split_done=jnp.asarray(t.split_done),
        second_key=jnp.asarray(t.second_key, i32),
        two_hard=jnp.asarray(t.two_hard, i32),
        two_ace=jnp.asarray(t.two_ace),
        decision_of_phase=jnp.asarray(decision),
        surrender_outcome=jnp.asarray(t.surrender_outcome, i32),
        mapped_action=jnp.asarray(mapped, i32),
        table_action=jnp.asarray(table_action, i32),
        bet_chips=jnp.asarray(t.bet_chips.reshape(-1), i32),
        bet_within=jnp.asarray(t.bet_within.reshape(-1)),
        bet_mapped=jnp.asarray(bet_mapped),
        asks_pre_peek_poor=jnp.asarray(t.asks_pre_peek_poor, bool),
        stake_ok=jnp.asarray(t.stake_ok),
    )
    return cfg, params
