"""The batched vector env's argument checks: each raises one ``ValueError`` that names the
argument, the value and what is allowed, before anything changes.

The settings every env shares are checked in :mod:`blackjack_env.envs.settings`; here are
those only :class:`~blackjack_env.envs.vector.BlackjackVectorEnv` takes: ``num_envs``,
``autoreset_mode``, ``max_episode_steps``, ``reset``'s ``seed`` and options
(``reset_mask``, ``cards`` per sub-env) and ``step``'s batched actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from blackjack_env.engine.cards import Card
from blackjack_env.envs.settings import check_action, check_stack

__all__ = [
    "check_actions",
    "check_autoreset_mode",
    "check_max_episode_steps",
    "check_num_envs",
    "check_reset_mask",
    "check_seed",
    "read_stacks",
]


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def check_num_envs(num_envs: Any) -> int:
    """``num_envs`` as an int >= 1."""
    if not _is_int(num_envs) or num_envs < 1:
        raise ValueError(f"num_envs={num_envs!r} must be an int >= 1")
    return int(num_envs)


def check_autoreset_mode(autoreset_mode: Any) -> AutoresetMode:
    """``autoreset_mode`` as an :class:`AutoresetMode` (its value or the member)."""
    try:
        return AutoresetMode(autoreset_mode)
    except ValueError:
        allowed = ", ".join(repr(m.value) for m in AutoresetMode)
        raise ValueError(
            f"autoreset_mode={autoreset_mode!r} is not allowed; choose one of {allowed}"
        ) from None


def check_max_episode_steps(max_episode_steps: Any) -> int | None:
    """``max_episode_steps`` as an int >= 1, or None."""
    if max_episode_steps is None:
        return None
    if not _is_int(max_episode_steps) or max_episode_steps < 1:
        raise ValueError(f"max_episode_steps={max_episode_steps!r} must be an int >= 1 or None")
    return int(max_episode_steps)


def check_seed(seed: Any) -> int | None:
    """``reset``'s ``seed``: one int (the batched env has one generator) or None."""
    if seed is not None and not _is_int(seed):
        raise ValueError(
            f"seed={seed!r} must be an int or None (the batched env has one generator)"
        )
    return None if seed is None else int(seed)


def check_actions(
    actions: Any, num_envs: int, n_actions: int, names: Sequence[str]
) -> np.ndarray:
    """``step``'s actions as an int64 array of shape ``(num_envs,)`` in ``0..n_actions - 1``
    (any int dtype; a 0-d array with one sub-env). Bools, floats (even whole ones) and
    objects are refused with the single env's message (:func:`.settings.check_action`)."""
    a = np.asarray(actions)
    if (  # the common case, checked fast
        a.dtype == np.int64
        and a.shape == (num_envs,)
        # 0 <= a < n_actions in one pass: a negative int64 read as uint64 is >= 2 ** 63
        and not np.count_nonzero(a.view(np.uint64) >= n_actions)
    ):
        return a
    if a.shape == () and num_envs == 1:
        a = a.reshape(1)
    if a.shape != (num_envs,):
        raise ValueError(
            f"actions must be ints of shape ({num_envs},), got dtype {a.dtype} shape {a.shape}"
        )
    if a.dtype.kind not in "iu":
        for t, value in enumerate(a.tolist()):
            check_action(value, n_actions, names, f"sub-env {t}: ")
    a = a.astype(np.int64, copy=False)
    bad = (a < 0) | (a >= n_actions)
    if np.count_nonzero(bad):
        t = int(bad.nonzero()[0][0])
        raise ValueError(
            f"sub-env {t}: action {a[t]} is outside the action space "
            f"Discrete({n_actions}); actions are "
            f"{', '.join(f'{i} {name}' for i, name in enumerate(names))}"
        )
    return a


def check_reset_mask(value: Any, num_envs: int, seats: int) -> np.ndarray:
    """``options["reset_mask"]``: a bool array of shape ``(num_envs,)`` that takes the
    ``seats`` seats of each table together."""
    mask = np.asarray(value)
    if mask.dtype != bool or mask.shape != (num_envs,):
        raise ValueError(
            f"options['reset_mask'] must be a bool array of shape ({num_envs},), got "
            f"dtype {mask.dtype} shape {mask.shape}"
        )
    if seats > 1:
        by_table = mask.reshape(-1, seats)
        if not bool((by_table == by_table[:, :1]).all()):
            raise ValueError(
                f"options['reset_mask'] must reset whole tables: the {seats} "
                f"seats of a table (sub-envs t * {seats} ..) together"
            )
    return mask


def read_stacks(
    cards: Any, num_envs: int, seats: int, decks: int | None
) -> dict[int, list[Card]] | None:
    """``options["cards"]`` as the cards to stack by table's seat-0 sub-env, read and
    checked: text for every table, or one entry (text, cards, None) per sub-env."""
    if cards is None:
        return None
    if isinstance(cards, str):
        one = check_stack(cards, decks)
        return {t: list(one) for t in range(0, num_envs, seats)}
    if isinstance(cards, Sequence) and len(cards) == num_envs and all(
        c is None or isinstance(c, (str, list, tuple)) for c in cards
    ):
        if seats > 1 and any(c for t, c in enumerate(cards) if t % seats):
            raise ValueError(
                f"options['cards']: with seats_per_table={seats} a table's cards are given "
                f"at its seat-0 sub-env (t * {seats}); the other seats' entries must be None"
            )
        return {t: check_stack(c, decks) for t, c in enumerate(cards) if c}
    raise ValueError(
        f"options['cards'] must be text like 'AS KH 9D' (for every table) or a sequence "
        f"of {num_envs} entries (text, a list of cards, or None), got {cards!r:.80}"
    )
