"""The batched vector env against the single env it vectorises.

1. Stacked shoes: every sub-env of a ``BlackjackVectorEnv`` and its own
   ``BlackjackEnv`` are reset with the same cards on top of the shoe, then fed the
   same actions (unmasked ones too, so the illegal-action mapping is exercised);
   observations, rewards, terminations, truncations, masks and the array-valued
   info entries must be identical at every step of the episode.
2. Random play: with the same policy (a uniformly random legal action), the
   per-episode returns of both envs have means that agree within the 99%
   confidence interval of their difference, and so does the frequency of every
   return value (Bonferroni-corrected over the values).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from blackjack_env.engine import Rules, preset
from blackjack_env.envs.single.env import BlackjackEnv
from blackjack_env.envs.vector import BlackjackVectorEnv
from tests.envs.vector_helpers import (
    Z99,
    assert_means_agree,
    assert_step_matches,
    obs_row,
    random_legal_returns_single,
    random_legal_returns_vector,
    same_obs,
    stacked_cards,
)

CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "vector-insurance": {"obs_mode": "vector", "insurance_decisions": True},
    "sutton-barto": {"rules": "sutton-barto", "obs_mode": "tuple"},
    "gymnasium-natural": {"rules": "gymnasium-natural", "obs_mode": "tuple"},
    "european-3-rounds": {"rules": "european-no-hole-card", "rounds_per_episode": 3},
    "early-surrender-vector": {
        "rules": Rules(decks=2, surrender="early", resplit_aces=True, max_split_hands=3),
        "obs_mode": "vector",
    },
    "penalize": {"illegal_action": "penalize", "illegal_penalty": 0.5},
    "infinite-h17-vector": {
        "rules": preset("downtown-h17", decks=None),
        "obs_mode": "vector",
        "rounds_per_episode": 2,
    },
    "single-deck": {"rules": "single-deck-6to5", "bet": 5},
    "dict": {"obs_mode": "dict", "insurance_decisions": True},
    "dict-infinite-no-hole": {
        "rules": preset("european-no-hole-card", decks=None), "obs_mode": "dict",
        "rounds_per_episode": 2,
    },
}


def _kwargs(name: str) -> dict[str, Any]:
    return dict(CONFIGS[name])


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_stacked_episodes_match_single_env(name: str) -> None:
    n = 150
    kwargs = _kwargs(name)
    rng = np.random.default_rng(11)
    venv = BlackjackVectorEnv(n, autoreset_mode="Disabled", **kwargs)
    singles = [BlackjackEnv(**kwargs) for _ in range(n)]
    rules = singles[0].rules
    length = 52 if rules.shoe_decks == 1 else 100
    stacks = [stacked_cards(rules, rng, length) for _ in range(n)]
    obs, info = venv.reset(seed=5, options={"cards": stacks})
    expected = [env.reset(seed=t, options={"cards": stacks[t]}) for t, env in enumerate(singles)]
    for t, (o, i) in enumerate(expected):
        assert same_obs(obs_row(obs, t), o), (name, t)
        assert np.array_equal(info["action_mask"][t], i["action_mask"])
        remaining = i["shoe_remaining"]
        assert info["shoe_remaining"][t] == (-1 if remaining is None else remaining)
    alive = np.ones(n, dtype=bool)
    unmasked = name in ("default", "penalize", "sutton-barto", "infinite-h17-vector")
    steps = 0
    while alive.any():
        actions = np.zeros(n, dtype=np.int64)
        for t in np.flatnonzero(alive):
            mask = info["action_mask"][t]
            if unmasked and rng.random() < 0.5:
                actions[t] = rng.integers(venv.single_action_space.n)
            else:
                actions[t] = rng.choice(np.flatnonzero(mask))
        active = alive.copy()
        if not active.all():
            venv.reset(options={"reset_mask": ~active})  # restart ended ones (not compared)
        obs, reward, term, trunc, info = venv.step(actions)
        steps += 1
        for t in np.flatnonzero(active):
            single = singles[t].step(int(actions[t]))
            assert_step_matches((name, t), (obs, reward, term, trunc, info), t, single)
            _, _, te, tr, _ = single
            if te or tr:
                alive[t] = False
        assert steps < 200
    assert steps > 2


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"rules": "sutton-barto", "obs_mode": "tuple"},
        {"rules": "european-no-hole-card", "rounds_per_episode": 3},
    ],
    ids=["vegas-strip", "sutton-barto", "european-3-rounds"],
)
def test_random_play_returns_agree(kwargs: dict[str, Any]) -> None:
    single = random_legal_returns_single(kwargs, 6000, seed=3)
    batched = random_legal_returns_vector(kwargs, 60000, seed=4)
    assert_means_agree(single, batched)
    # every return value that is not rare: proportions agree (99%, Bonferroni)
    values = np.union1d(np.unique(single), np.unique(batched))
    common = [v for v in values if (single == v).sum() >= 30]
    z = Z99 if len(common) <= 1 else _z_bonferroni(len(common))
    for v in common:
        p1, p2 = (single == v).mean(), (batched == v).mean()
        pooled = ((single == v).sum() + (batched == v).sum()) / (single.size + batched.size)
        se_v = math.sqrt(pooled * (1 - pooled) * (1 / single.size + 1 / batched.size))
        assert abs(p1 - p2) <= z * se_v, (v, p1, p2, se_v)


def _z_bonferroni(k: int) -> float:
    """Two-sided normal quantile for a family-wise 1% level over ``k`` tests."""
    alpha = 0.01 / k
    lo, hi = 0.0, 10.0
    for _ in range(100):  # bisection on the normal tail
        mid = (lo + hi) / 2
        if math.erfc(mid / math.sqrt(2)) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


SLOW_PRESETS = [
    "atlantic-city",
    "downtown-h17",
    "single-deck-6to5",
    "gymnasium",
    "gymnasium-natural",
    "browser-game",
    "how-to-play",
]


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW_PRESETS)
def test_random_play_returns_agree_every_preset(name: str) -> None:
    """Every other single-seat preset: mean returns within a 99% CI, Bonferroni-corrected
    over the presets (so the family of tests errs with probability at most 1%)."""
    kwargs = {"rules": name}
    single = random_legal_returns_single(kwargs, 20000, seed=5)
    batched = random_legal_returns_vector(kwargs, 200000, seed=6)
    assert_means_agree(single, batched, _z_bonferroni(len(SLOW_PRESETS)), name)
