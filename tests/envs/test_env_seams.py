"""The seams of the three envs: no shared arrays, refused calls change nothing, one
action check, time limits as Gymnasium's wrappers give them, JSON specs."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import blackjack_env
from blackjack_env.engine.rules import Rules, preset

gym.register_envs(blackjack_env)

ENV_ID = "blackjack_env/Blackjack-v0"


# ------------------------------------------------------------- time limits (issue 14)
@pytest.mark.parametrize("autoreset", ["NextStep", "SameStep"])
@pytest.mark.parametrize(("rounds", "limit"), [(None, 3), (2, 3), (5, 3), (1, 3), (None, 1)])
def test_max_episode_steps_matches_sync_vector_env(autoreset, rounds, limit) -> None:
    """Always standing, every round takes exactly one step whatever the cards, so the
    native batched env and a SyncVectorEnv of the single env (TimeLimit-wrapped by
    make) must give the same flags on every step, and a round's reward on the same
    steps (no round lost to a spurious reset)."""
    n, steps = 4, 40
    kwargs = {"rules": "vegas-strip", "rounds_per_episode": rounds}
    native = gym.make_vec(
        ENV_ID, num_envs=n, autoreset_mode=autoreset,
        max_episode_steps=limit, **kwargs,
    )
    sync = gym.make_vec(
        ENV_ID, num_envs=n, vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode(autoreset)},
        max_episode_steps=limit, **kwargs,
    )
    assert not isinstance(sync, type(native))
    native.reset(seed=0)
    sync.reset(seed=0)
    stand = np.zeros(n, dtype=np.int64)
    for t in range(steps):
        _, r_n, te_n, tr_n, info_n = native.step(stand)
        _, r_s, te_s, tr_s, info_s = sync.step(stand)
        assert np.array_equal(te_n, te_s), (t, te_n, te_s)
        assert np.array_equal(tr_n, tr_s), (t, tr_n, tr_s)
        settled_s = info_s.get("_settlement", np.zeros(n, dtype=bool)).copy()
        if "final_info" in info_s:  # SameStep: the ended episodes' last info
            settled_s |= info_s["final_info"].get("_settlement", np.zeros(n, dtype=bool))
        assert np.array_equal(info_n["round_over"], settled_s), t
        # the round's reward is given where it is settled, and nowhere else
        assert np.array_equal(r_n, np.where(info_n["round_over"], info_n["round_net"], 0.0))
        assert not np.any(r_s[~settled_s])
