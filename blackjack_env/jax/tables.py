"""The rule tables of the JAX table, built on the host: nothing here decides a rule.

:func:`build` turns a validated configuration (the numpy batched env's settings) into a
:class:`Config` (Python constants that fix shapes and which code is traced: the hands per
seat, the shoe's size, whether the dealer peeks, ...) and a :class:`Params` pytree of
arrays (the lookup tables). Both are read off the numpy batched tables
(:class:`~blackjack_env.envs.batch.TableBatch`), which build them from
:mod:`blackjack_env.engine.play`'s functions, and off the numpy vector env's action-mask
rows, so the JAX round reads exactly the tables the numpy round reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from blackjack_env.engine import play
from blackjack_env.engine.play import NaturalEffect
from blackjack_env.engine.rules import HoleCard, Rules, Surrender
from blackjack_env.envs import step as env_step
from blackjack_env.envs.batch import BatchPhase, TableBatch
from blackjack_env.envs.step import Decision

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
    """

    rules: Rules
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
    """The rule tables (``jax`` arrays; a pytree). Indexing as in the numpy batched
    tables (:class:`~blackjack_env.envs.batch.TableBatch`), whose attribute each mirrors."""

    value_of_id: Any  # (52,) point value of each card id
    rank_of_id: Any  # (52,) rank index 0..12 (0 = ace)
    hilo_of_id: Any  # (52,) Hi-Lo tag
    values: Any  # (13,) point value by rank index
    factor: Any  # (7,) net chips per chip staked, by outcome code (play.payout_factors)
    by_hands: Any  # (2W * 2W,) outcome code by (player key, dealer key)
    dealer_hits: Any  # (64,) play.dealer_draw_table
    peek_by_rank: Any  # (13,) play.peek_by_rank
    asks_pre_peek: Any  # (26,) the pre-peek question asks more than DECLINE
    legal_keys_phase: Any  # (K,) BatchPhase of each legal-table row
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


def _mask_rows(env: Any, batch: TableBatch) -> np.ndarray:
    """The numpy vector env's action-mask rows by legal-table key (its ``_mask_table``)."""
    return np.asarray(env._mask_table(batch), dtype=bool)


def build(settings_kwargs: dict[str, Any]) -> tuple[Config, Params, Any]:
    """``(config, params, reference)`` for a batched env's keyword arguments (validated by
    the numpy vector env, whose ``EnvSettings.batched`` is the one check); ``reference``
    is that numpy env (one table, ``seats_per_table`` sub-envs), kept for its spaces and names."""
    import jax.numpy as jnp

    from blackjack_env.envs.vector import BlackjackVectorEnv

    seats = int(settings_kwargs.get("seats_per_table", 1))
    ref = BlackjackVectorEnv(num_envs=seats, autoreset_mode="SameStep", **settings_kwargs)
    ref.reset(seed=0)
    batch = ref.batch
    assert batch is not None
    rules: Rules = ref.rules
    h = rules.max_split_hands
    decks = rules.shoe_decks
    infinite = decks is None
    stack = INFINITE_STACK + INFINITE_STACK_SEAT * (seats - 1)
    size = stack if decks is None else 52 * decks
    cut = None if infinite or rules.penetration is None else rules.penetration * size
    splits = bool(batch._splits)
    width = batch._hand_key_width()
    cfg = Config(
        rules=rules,
        hands=h,
        seats=int(ref.seats),
        shoe_size=size,
        infinite=infinite,
        cut=cut,
        bet=int(ref.bet),
        n_actions=int(ref._n_actions),
        n_play=int(ref._n_play),
        peek=rules.hole_card is HoleCard.PEEK,
        no_hole=rules.hole_card is HoleCard.NONE,
        pre_peek=bool(batch._pre_peek),
        pre_peek_decisions=bool(ref._pre_peek_decisions),
        natural_effect=play.dealt_natural_effect(rules),
        natural_stands=play.natural_stands(rules),
        naturals_paid_at_peek=play.natural_paid_at_peek(rules),
        auto21=play.auto_stands(rules, play.AUTO_STAND_TOTAL),
        split_naturals=play.natural_counts(rules, from_split=True),
        surrender_at_once=play.surrender_settles_at_once(rules),
        surrenders=rules.surrender is not Surrender.NONE,
        can_double=rules.can_double,
        splits=splits,
        highest=play.settles_by_highest_hand(rules),
        key_width=int(width),
        over_key=int(batch._over_key),
        pre_peek_key=int(batch._pre_peek_key),
        bets=bool(ref._bets),
        track=ref.obs_mode.value == "dict",
        n_bets=len(ref.settings.bet_sizes),
        rounds=ref.rounds_per_episode,
        chip_den=int(play.chip_denominator(rules)),
        bankroll=ref.settings.bankroll,
        min_cost=int(ref.settings.min_cost),
        stake_check=bool(batch._split_stake_check),
        poor_play_offset=int(getattr(batch, "_poor_play_offset", 0)),
        poor_pre_peek_offset=int(getattr(batch, "_poor_pre_peek_offset", 0)),
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
    # play.split_stake_ok over every stake a hand can hold (a split halves, never raises)
    top = int(max([cfg.bet, *np.asarray(ref._bet_chips).reshape(-1).tolist()]))
    stake_ok = np.array(
        [[play.split_stake_ok(rules, m, covers) for m in range(top + 1)]
         for covers in (False, True)],
        dtype=np.bool_,
    )  # fmt: skip
    params = Params(
        value_of_id=jnp.asarray(batch._value_of_id, i32),
        rank_of_id=jnp.asarray(batch._rank_of_id, i32),
        hilo_of_id=jnp.asarray(batch._hilo_of_id, i32),
        values=jnp.asarray(batch._values, i32),
        factor=jnp.asarray(batch._factor, jnp.float32),
        by_hands=jnp.asarray(batch._by_hands.reshape(-1), i32),
        dealer_hits=jnp.asarray(batch._dealer_hits),
        peek_by_rank=jnp.asarray(batch._peek_by_rank),
        asks_pre_peek=jnp.asarray(batch._asks_pre_peek),
        legal_keys_phase=jnp.asarray(batch.legal_table_phase, i32),
        mask_rows=jnp.asarray(_mask_rows(ref, batch)),
        pair=jnp.asarray(batch._pair),
        split_ok=jnp.asarray(batch._split_ok),
        split_done=jnp.asarray(batch._split_done),
        second_key=jnp.asarray(batch._second_key, i32),
        two_hard=jnp.asarray(batch._two_hard, i32),
        two_ace=jnp.asarray(batch._two_ace),
        decision_of_phase=jnp.asarray(decision),
        surrender_outcome=jnp.asarray(play.array_surrender_outcome(np.array([False, True])), i32),
        mapped_action=jnp.asarray(mapped, i32),
        table_action=jnp.asarray(table_action, i32),
        bet_chips=jnp.asarray(np.asarray(ref._bet_chips, dtype=np.int64).reshape(-1), i32),
        bet_within=jnp.asarray(np.asarray(ref._bet_within, dtype=bool).reshape(-1)),
        bet_mapped=jnp.asarray(bet_mapped),
        asks_pre_peek_poor=jnp.asarray(
            getattr(batch, "_asks_pre_peek_poor", np.zeros(26, dtype=bool)), bool
        ),
        stake_ok=jnp.asarray(stake_ok),
    )
    return cfg, params, ref
