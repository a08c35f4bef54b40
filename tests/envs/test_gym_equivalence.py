"""The Gymnasium-compatible presets reproduce ``Blackjack-v1``.

Two tests per preset:

* card for card: both envs are dealt the same card values (Gymnasium's env through
  a scripted generator, ours through ``reset(options={"cards": ...})``) and played
  with the same policy; every observation, reward and termination must agree;
* statistically: the same fixed policy over many independently shuffled hands in
  each env; the difference of the mean returns must lie within the 99% confidence
  interval of a difference of two independent means (2.576 standard errors).
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

import blackjack_env  # noqa: F401  (registers the ids)

CASES = [
    ("sutton-barto", {"sab": True}),
    ("gymnasium", {"natural": False, "sab": False}),
    ("gymnasium-natural", {"natural": True, "sab": False}),
]

_TEN_RANKS = "TJQK"


class _ScriptedGenerator:
    """Stands in for Blackjack-v1's ``np_random``: ``choice`` over the deck returns the
    scripted card values; its cosmetic draws (the upcard's suit and J/Q/K picture,
    made in ``reset`` from the same generator) get the first option."""

    def __init__(self, values: list[int]) -> None:
        self.values = list(values)

    def choice(self, options: list) -> object:
        if isinstance(options[0], str):
            return options[0]
        return self.values.pop(0)


def _card_text(value: int, rng: np.random.Generator) -> str:
    rank = "A" if value == 1 else "T" if value == 10 else str(value)
    if value == 10:
        rank = _TEN_RANKS[int(rng.integers(4))]
    return rank + "CDHS"[int(rng.integers(4))]


@pytest.mark.parametrize(("preset_name", "gym_kwargs"), CASES)
def test_card_for_card_equivalence(preset_name: str, gym_kwargs: dict) -> None:
    ours = gym.make("blackjack_env/Blackjack-v0", rules=preset_name, obs_mode="tuple")
    theirs = gym.make("Blackjack-v1", **gym_kwargs)
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space
    rng = np.random.default_rng(2024)
    deck = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10])
    ours.reset(seed=0)
    theirs.reset(seed=0)
    rewards = []
    for _ in range(3000):
        values = [int(v) for v in rng.choice(deck, size=24)]
        # Blackjack-v1 deals dealer, dealer, player, player; the casino deals
        # player, dealer upcard, player, hole card. Later draws are in the same order.
        casino = [values[2], values[0], values[3], values[1], *values[4:]]
        theirs.unwrapped.np_random = _ScriptedGenerator(values)
        obs_t, _ = theirs.reset()
        obs_o, _ = ours.reset(options={"cards": " ".join(_card_text(v, rng) for v in casino)})
        assert obs_o == obs_t
        threshold = int(rng.integers(12, 23))  # 22: hit even a 21 (and a natural)
        while True:
            action = int(obs_t[0] < threshold)
            obs_t, r_t, term_t, trunc_t, _ = theirs.step(action)
            obs_o, r_o, term_o, trunc_o, _ = ours.step(action)
            assert (obs_o, r_o, term_o, trunc_o) == (obs_t, r_t, term_t, trunc_t)
            if term_t or trunc_t:
                rewards.append(r_t)
                break
    # the scripts covered the interesting outcomes
    assert {-1.0, 0.0, 1.0} <= set(rewards)
    if gym_kwargs.get("natural") and not gym_kwargs.get("sab"):
        assert 1.5 in rewards


def _returns(env: gym.Env, episodes: int, seed: int) -> np.ndarray:
    """Returns of 'hit below 17' over ``episodes`` episodes."""
    out = np.empty(episodes)
    obs, _ = env.reset(seed=seed)
    total = 0.0
    i = 0
    while i < episodes:
        obs, reward, terminated, truncated, _ = env.step(int(obs[0] < 17))
        total += reward
        if terminated or truncated:
            out[i] = total
            i += 1
            total = 0.0
            obs, _ = env.reset()
    return out


@pytest.mark.parametrize(("preset_name", "gym_kwargs"), CASES)
def test_mean_returns_agree_within_99_percent_ci(preset_name: str, gym_kwargs: dict) -> None:
    n = 20_000
    ours = _returns(gym.make("blackjack_env/Blackjack-v0", rules=preset_name, obs_mode="tuple"),
                    n, seed=1)
    theirs = _returns(gym.make("Blackjack-v1", **gym_kwargs), n, seed=2)
    diff = ours.mean() - theirs.mean()
    half_width = 2.576 * math.sqrt(ours.var(ddof=1) / n + theirs.var(ddof=1) / n)
    assert abs(diff) <= half_width, (
        f"{preset_name}: mean return {ours.mean():.4f} vs Blackjack-v1 {theirs.mean():.4f}; "
        f"difference {diff:.4f} outside the 99% CI +-{half_width:.4f}"
    )
