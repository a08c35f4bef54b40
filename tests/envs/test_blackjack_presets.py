"""Every preset, every observation mode: random play (masked and unmasked) keeps every
observation in its space, the mask consistent, rewards equal to the chips won, and
every card in the shoe, on the table or in the discard tray."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from blackjack_env.engine import PRESETS
from blackjack_env.envs import BlackjackEnv, Decision

MODES = ["tuple", "multidiscrete", "vector", "dict"]


def _cards_conserved(env: BlackjackEnv) -> bool:
    table = env.table
    shoe = table.shoe
    if shoe.decks is None:
        return True
    on_table = sum(len(h.cards) for s in table.seats for h in s.hands) + len(table.dealer.cards)
    return on_table + shoe.remaining + len(shoe.discards) == 52 * shoe.decks


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(PRESETS))
def test_random_play_keeps_invariants(name: str, mode: str) -> None:
    rules = PRESETS[name].rules
    seats = min(3, rules.max_seats)
    kwargs: dict = {"rules": name, "obs_mode": mode, "num_seats": seats, "seat": seats - 1,
                    "others": "random", "rounds_per_episode": 10, "bankroll": 400, "bet": 2}
    if mode != "tuple":
        kwargs["bet_sizes"] = (1, 3)
        kwargs["insurance_decisions"] = rules.insurance
    env = BlackjackEnv(**kwargs)
    rng = np.random.default_rng(zlib.crc32(f"{name}/{mode}".encode()))  # stable per case
    obs, info = env.reset(seed=int(rng.integers(1 << 30)))
    won = 0.0
    for step in range(400):
        assert env.observation_space.contains(obs), (step, obs)
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool)) and mask.any()
        masked = bool(step % 2)
        action = int(rng.choice(np.flatnonzero(mask))) if masked else int(rng.integers(mask.size))
        obs, reward, terminated, truncated, info = env.step(action)
        if masked:
            assert not info["illegal_action"]
        won += reward * 2
        assert reward == 0.0 or "settlement" in info
        assert _cards_conserved(env)
        if terminated or truncated:
            assert info["bankroll"] - 400 == pytest.approx(won)  # bankroll off the table
            assert terminated or info["phase"] is Decision.SETTLED
            obs, info = env.reset()
            won = 0.0
