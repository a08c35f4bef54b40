"""Known values: the exact optimal returns of the Gymnasium-compatible presets agree with
Monte Carlo runs of Gymnasium's own ``Blackjack-v1`` under the derived optimal policy."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from blackjack_env.analysis import solve
from blackjack_env.engine import Action, preset
from tests.analysis.helpers import assert_in_ci


def gym_policy(name: str):
    """The derived optimal hit/stick decision for each Gymnasium observation."""
    sol = solve(preset(name))

    def act(obs: tuple[int, int, int]) -> int:
        total, dealer, soft = (int(x) for x in obs)
        label = "A" if dealer == 1 else ("T" if dealer == 10 else str(dealer))
        evs = sol.action_evs[("soft" if soft else "hard", total, label)]
        return int(Action.STAND if evs[Action.STAND] >= evs[Action.HIT] else Action.HIT)

    return act, sol.expected_return


def run_gym(kwargs: dict, act, episodes: int, seed: int) -> tuple[float, float]:
    env = gym.make("Blackjack-v1", **kwargs)
    obs, _ = env.reset(seed=seed)
    returns = np.empty(episodes)
    for i in range(episodes):
        total = 0.0
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(act(obs))
            total += float(reward)
            done = terminated or truncated
        returns[i] = total
        obs, _ = env.reset()
    env.close()
    return float(returns.mean()), float(returns.std(ddof=1) / np.sqrt(episodes))


CASES = [
    ("sutton-barto", {"sab": True}),
    ("gymnasium", {"natural": False, "sab": False}),
    ("gymnasium-natural", {"natural": True, "sab": False}),
]


@pytest.mark.parametrize("name, kwargs", CASES[:2], ids=["sab", "natural-false"])
def test_optimal_return_matches_gymnasium_quick(name: str, kwargs: dict) -> None:
    act, exact = gym_policy(name)
    mean, se = run_gym(kwargs, act, 50_000, seed=2024)
    assert_in_ci(mean, se, exact, f"Blackjack-v1 {kwargs} under the {name} optimum")


@pytest.mark.slow
@pytest.mark.parametrize("name, kwargs", CASES, ids=["sab", "natural-false", "natural-true"])
def test_optimal_return_matches_gymnasium_long(name: str, kwargs: dict) -> None:
    act, exact = gym_policy(name)
    mean, se = run_gym(kwargs, act, 1_000_000, seed=7)
    assert_in_ci(mean, se, exact, f"Blackjack-v1 {kwargs} under the {name} optimum")


def test_gymnasium_presets_differ_as_their_natural_rules_say() -> None:
    sab = solve(preset("sutton-barto")).expected_return
    plain = solve(preset("gymnasium")).expected_return
    natural = solve(preset("gymnasium-natural")).expected_return
    assert plain < sab < natural  # a natural beating a 21 helps; paying 3:2 helps more
