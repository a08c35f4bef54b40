"""The batch's compiled draw loops (blackjack_env.envs.batch.kernels, numba) deal the same
game as its numpy loops, bit for bit: the same observations, rewards, infos and shoes,
step after step, with the uniform pool running out in the middle of a deal and of the
dealer's drawing, under one rule set and under a rule space, with one seat and several,
with shoes that run dry mid-round and cut cards that end shoes."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from blackjack_env.engine import Rules, RuleSpace, preset
from blackjack_env.envs.batch import kernels
from blackjack_env.envs.batch import shoe as shoe_module
from blackjack_env.envs.codes import PHASE_OVER
from blackjack_env.envs.vector import BlackjackVectorEnv, random_legal_actions

COMPILED = kernels.load()
needs_numba = pytest.mark.skipif(
    COMPILED is None, reason="numba is not installed, or BLACKJACK_ENV_PURE=1 (numpy loops)"
)

CASES = {
    "vegas-strip": dict(rules="vegas-strip"),
    # the cut card at the last card: shoes run dry mid-round (about 500 times in 300 steps)
    "one-deck-dry": dict(rules=preset("single-deck-6to5", penetration=1.0)),
    "one-deck-fresh": dict(rules=preset("single-deck-6to5", penetration=None)),
    "h17-two-decks": dict(rules=preset("downtown-h17", decks=2, penetration=0.5)),
    "three-seats": dict(rules="vegas-strip", seats_per_table=3),
    "rule-space": dict(rules=RuleSpace(Rules(decks=2, penetration=0.6),
                                       {"dealer_hits_soft_17": (False, True),
                                        "surrender": ("none", "late")})),
    "cards-by-rank": dict(rules="vegas-strip", obs_mode="dict"),
}


def _play(monkeypatch: pytest.MonkeyPatch, compiled: bool, kwargs: dict, steps: int
          ) -> list[bytes]:
    """Every step's observation, reward, end flags, round nets and the shoes, as bytes."""
    monkeypatch.setattr(kernels, "load", lambda: COMPILED if compiled else None)
    env = BlackjackVectorEnv(48, autoreset_mode="NextStep", **kwargs)
    obs, info = env.reset(seed=5)
    assert env.batch.compiled_draws == compiled  # the loops asked for
    rng = np.random.default_rng(9)
    out = []
    for _ in range(steps):
        obs, reward, term, trunc, info = env.step(random_legal_actions(rng, info["action_mask"]))
        flat = obs if isinstance(obs, np.ndarray) else np.concatenate(
            [np.asarray(v, dtype=np.float64).reshape(len(reward), -1) for v in obs.values()], 1)
        batch = env.batch
        out.append(b"".join(np.ascontiguousarray(a).tobytes() for a in (
            flat, reward, term, trunc, info["round_net"], batch.shoe, batch.pos,
            batch.undealt_hilo, batch.counts)))
    return out


@needs_numba
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("pool", [7, 1 << 20])
def test_compiled_draws_deal_the_same_game(monkeypatch: pytest.MonkeyPatch, case: str,
                                           pool: int) -> None:
    """A pool of 7 uniforms runs out inside almost every deal and dealer's turn (a new pool
    is drawn where the numpy loop draws it); the default pool, as users play."""
    monkeypatch.setattr(shoe_module, "_POOL", pool)
    steps = 120 if pool == 7 else 300
    numpy_game = _play(monkeypatch, False, CASES[case], steps)
    compiled_game = _play(monkeypatch, True, CASES[case], steps)
    assert len(compiled_game) == len(numpy_game)
    for step, (a, b) in enumerate(zip(numpy_game, compiled_game, strict=True)):
        assert a == b, f"{case}: step {step} differs"


@needs_numba
def test_a_pickled_batch_deals_by_the_compiled_loops_and_plays_on_alike() -> None:
    env = BlackjackVectorEnv(8, rules="vegas-strip")
    env.reset(seed=1)
    batch = env.batch
    again = pickle.loads(pickle.dumps(batch))
    assert batch.compiled_draws and again.compiled_draws
    for step in range(40):
        actions = np.full(8, step % 2, dtype=np.int64)  # stand, hit, ...
        for b in (batch, again):
            b.start_rounds(np.flatnonzero(b.phase == PHASE_OVER))  # deal again
        a, b = batch.step(actions), again.step(actions)
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert np.array_equal(batch.shoe, again.shoe) and np.array_equal(batch.pos, again.pos)


def test_without_numba_the_numpy_loops_play(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernels, "load", lambda: None)
    env = BlackjackVectorEnv(8, rules="vegas-strip")
    env.reset(seed=1)
    assert not env.batch.compiled_draws
    _, reward, *_ = env.step(np.zeros(8, dtype=np.int64))
    assert reward.shape == (8,)
