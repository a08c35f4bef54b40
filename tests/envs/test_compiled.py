"""The compiled env (``blackjack_env.envs.single.core`` built by mypyc) behaves as its source.

A trajectory (observations, rewards, flags, every info entry, and the errors of
illegal actions under ``illegal_action="raise"``) is recorded in this process and in
a fresh interpreter with ``BLACKJACK_ENV_PURE=1`` (every module from its ``.py``
file), for the same seeds and actions, and the two must be identical. Skipped when
the extensions are not built (then both runs would be the source).

The per-step caches (action masks, multidiscrete observations) must never hand out
an array twice: arrays users mutate do not leak into later steps.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import blackjack_env
from blackjack_env.envs import BlackjackEnv

CONFIGS: list[dict[str, Any]] = [
    {"rules": "sutton-barto", "obs_mode": "tuple"},
    {"rules": "vegas-strip", "obs_mode": "multidiscrete", "num_seats": 3, "seat": 1,
     "others": "random", "bet_sizes": (1, 2, 4), "bankroll": 40, "rounds_per_episode": 20,
     "insurance_decisions": True},
    {"rules": "atlantic-city", "obs_mode": "vector", "illegal_action": "penalize",
     "rounds_per_episode": 5},
    {"rules": "european-no-hole-card", "obs_mode": "dict", "illegal_action": "raise",
     "num_seats": 2, "others": "never-bust"},
]


def _plain(x: Any) -> Any:
    """Data as plain Python values (arrays with their dtype), to compare across processes."""
    if isinstance(x, np.ndarray):
        return ("array", str(x.dtype), x.tolist())
    if isinstance(x, dict):
        return [(k, _plain(v)) for k, v in x.items()]
    if isinstance(x, (tuple, list)):
        return [type(x).__name__, [_plain(v) for v in x]]
    return (type(x).__name__, repr(x))


def trajectories(steps: int = 300) -> list[Any]:
    """Every config played with seeded random actions (illegal ones included)."""
    out = []
    for i, config in enumerate(CONFIGS):
        env = BlackjackEnv(**config)
        rng = np.random.default_rng(i)
        record = [_plain(env.reset(seed=i))]
        for _ in range(steps):
            try:
                result = env.step(int(rng.integers(env.action_space.n)))
            except ValueError as error:
                record.append(("ValueError", str(error)))
                continue
            record.append(_plain(result))
            if result[2] or result[3]:
                record.append(_plain(env.reset()))
        out.append(record)
    return out


def _compiled() -> bool:
    return all(blackjack_env.compiled_modules().values())


def why_not_compiled() -> str:
    """Why this process runs the source: switched off, stale, or not built."""
    from blackjack_env import _native

    built = all(_native._extension(name) is not None for name in _native.KNOWN)
    if _native.pure_requested():
        state = "built" if built else "not built"
        return (
            f"BLACKJACK_ENV_PURE=1 switches the compiled extensions off in this run (they are "
            f"{state}); run without it to compare"
        )
    if built:
        return (
            "the compiled extensions are built but do not match their source (edited since "
            "the build): rebuild with `pip install -e .`"
        )
    return "the compiled extensions are not built (`pip install -e .` builds them)"


@pytest.mark.skipif(not _compiled(), reason=why_not_compiled())
def test_compiled_env_matches_its_source() -> None:
    code = (
        "import pickle, sys\n"
        "from tests.envs.test_compiled import trajectories\n"
        "sys.stdout.buffer.write(pickle.dumps(trajectories()))\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, BLACKJACK_ENV_PURE="1")
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=root, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()
    pure = pickle.loads(done.stdout)
    compiled = trajectories()
    assert len(compiled) == len(pure) == len(CONFIGS)
    for config, a, b in zip(CONFIGS, compiled, pure, strict=True):
        assert a == b, f"compiled and pure trajectories differ for {config}"


@pytest.mark.parametrize("obs_mode", ["tuple", "multidiscrete", "vector", "dict"])
def test_returned_arrays_are_fresh(obs_mode: str) -> None:
    """Mutating every array the env returns changes nothing that comes later."""

    def run(mutate: bool) -> list[Any]:
        env = BlackjackEnv(obs_mode=obs_mode, rounds_per_episode=None)
        rng = np.random.default_rng(0)
        obs, info = env.reset(seed=0)
        record = []
        for _ in range(400):
            record.append((_plain(obs), _plain(info), env.action_masks().tolist()))
            if mutate:
                for array in (obs, info["action_mask"], env.action_masks()):
                    if isinstance(array, np.ndarray):
                        array[...] = 7
                if isinstance(obs, dict):
                    for value in obs.values():
                        if isinstance(value, np.ndarray):
                            value[...] = 7
            obs, _, terminated, truncated, info = env.step(int(rng.integers(5)))
            assert not (terminated or truncated)
        return record

    assert run(mutate=True) == run(mutate=False)


def test_the_skip_reason_says_why_the_source_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BLACKJACK_ENV_PURE", "1")
    assert why_not_compiled().startswith("BLACKJACK_ENV_PURE=1 switches the compiled")
    monkeypatch.delenv("BLACKJACK_ENV_PURE")
    assert "BLACKJACK_ENV_PURE" not in why_not_compiled()
