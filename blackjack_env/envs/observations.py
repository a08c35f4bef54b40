"""Deprecated module path, kept working: the learner's view of a table is the module family
:mod:`blackjack_env.envs.view`; :class:`Layout` and :class:`ObsMode` are in
:mod:`blackjack_env.envs.view.layout`, :func:`check_reset_options` in
:mod:`blackjack_env.envs.settings`, :class:`Decision` in :mod:`blackjack_env.envs.step`.
Every name this module had is re-exported here.
"""

from __future__ import annotations

from blackjack_env.envs.settings import check_reset_options
from blackjack_env.envs.view.layout import (
    CHIP_BOUND,
    COUNT_CLIP,
    COUNT_HIGH,
    HI_LO,
    MAX_TOTAL,
    RANK_ORDER,
    Decision,
    Layout,
    ObsMode,
    decision,
    focus_hand,
    focus_index,
    hi_lo_true_count,
    read_cards,
    unseen_by_rank,
)

__all__ = [
    "CHIP_BOUND",
    "COUNT_CLIP",
    "COUNT_HIGH",
    "HI_LO",
    "MAX_TOTAL",
    "RANK_ORDER",
    "Decision",
    "Layout",
    "ObsMode",
    "check_reset_options",
    "decision",
    "focus_hand",
    "focus_index",
    "hi_lo_true_count",
    "read_cards",
    "unseen_by_rank",
]
