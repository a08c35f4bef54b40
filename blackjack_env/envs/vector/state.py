"""The state of the batched vector env, declared: every attribute a
:class:`~blackjack_env.envs.vector.BlackjackVectorEnv` holds.

``BlackjackVectorEnv.__init__`` sets these; the modules that each do one of its jobs
(:mod:`~blackjack_env.envs.vector.observe` the observations, phases and masks,
:mod:`~blackjack_env.envs.vector.bets` the bet steps and bankrolls,
:mod:`~blackjack_env.envs.vector.info` the info dict) are mixins that derive from
:class:`VectorState`, so a reader and a type checker see every field in one place.
Per-sub-env arrays have one entry per sub-env (``num_envs``).
"""

from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode

from blackjack_env.engine.rules import Rules
from blackjack_env.engine.rulespace import RuleSpace
from blackjack_env.envs.batch import TableBatch
from blackjack_env.envs.settings import EnvSettings
from blackjack_env.envs.step import IllegalAction
from blackjack_env.envs.tables import RuleBank, RuleTables
from blackjack_env.envs.view.layout import Layout, ObsMode

__all__ = ["VectorState"]


class VectorState:
    """The attributes of :class:`~blackjack_env.envs.vector.BlackjackVectorEnv`
    (annotations only: nothing is stored on the class)."""

    # ---- configuration (frozen after __init__)
    #: the validated settings, as the single env's
    settings: EnvSettings
    #: the rule tables of the settings (the batched round's and the mask rows' source;
    #: under a rule space, its first rule set's)
    tables: RuleTables
    #: the rule space sub-envs draw their rules from at each reset (None: fixed rules)
    rule_space: RuleSpace | None
    #: under a rule space, the rule tables of every rule set drawn so far
    bank: RuleBank | None
    #: the observations carry the rule features
    _observe_rules: bool
    #: each sub-env's rule set as its index in the rule space (``info["rules_index"]``)
    _rules_index: np.ndarray
    rules: Rules
    #: the spaces and per-step view of one sub-env (as the single env's)
    layout: Layout
    obs_mode: ObsMode
    #: the base bet in chips
    bet: int
    illegal_action: IllegalAction
    illegal_penalty: float
    rounds_per_episode: int | None
    action_names: list[str]
    max_episode_steps: int | None
    autoreset_mode: AutoresetMode
    num_envs: int
    #: learner seats per table: sub-env ``r`` is seat ``r % seats`` of table ``r // seats``
    seats: int
    #: ``info["seat"]`` / ``info["table"]`` (several seats per table; None otherwise)
    _seat: np.ndarray | None
    _table: np.ndarray | None
    _n_actions: int
    _n_play: int
    _arange: np.ndarray
    #: flat index of each sub-env's row in the ``(num_envs, n)`` mask
    _row_start: np.ndarray
    _all_true: np.ndarray
    #: all False, read-only: the sub-envs reset on a step when none is
    _no_env: np.ndarray
    _infinite: bool
    #: cards of each rank in a full shoe (None: infinite deck)
    _full_ranks: int | None
    #: a pre-peek (insurance / early surrender) decision can occur
    _pre_peek_decisions: bool
    # ---- bet steps and bankrolls (vector_bets)
    #: a BET step opens every round (``bet_sizes``)
    _bets: bool
    _bet_chips: np.ndarray
    #: the bet sizes the table limits allow (the bankroll's cover is checked per step)
    _bet_within: np.ndarray
    _chip_den: int
    #: rewards are taken from the exact chips (varying stakes and a payout such as 6:5)
    _exact_chips: bool

    # ---- the tables and the learner's state
    #: the tables (None before the first reset and after ``close``)
    batch: TableBatch | None
    #: action-mask row by batch key (built on first use by ``_mask_table``)
    _mask_rows: np.ndarray | None
    #: the multidiscrete count field by (running count, unseen cards) (``_count_buckets``)
    _bucket_rows: np.ndarray | None
    _bucket_width: int
    _bucket_top: int
    #: ``(num_envs, n)`` int8: the legal actions of each sub-env
    _mask: np.ndarray
    #: the learner's :class:`~blackjack_env.envs.step.Decision` code per sub-env
    _phase: np.ndarray
    #: rounds started in the episode
    _rounds: np.ndarray
    #: steps taken in the episode (counted only with ``max_episode_steps``)
    _steps: np.ndarray
    #: the session's net chips (``info["bankroll"]`` with unlimited credit)
    _session_net: np.ndarray
    #: episode over, reset pending (``"NextStep"`` / ``"Disabled"``)
    _ended: np.ndarray
    #: several seats: the sub-envs whose action the next step plays
    _acting: np.ndarray
