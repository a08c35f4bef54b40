"""The benchmark's tasks: defined once, versioned (their fingerprints pinned), each with
an env that shows what is graded and a page."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from blackjack_env.agents.obs import encode_state
from blackjack_env.analysis.strategy import table_state
from blackjack_env.bench import PLANNED, TASKS, task
from blackjack_env.bench.observe import hide_shoe
from blackjack_env.bench.tasks import format_budget, parse_budget
from blackjack_env.envs import view as V

DOCS = Path(__file__).resolve().parents[2] / "docs"

#: Each task version's fingerprint: a change to what decides its grades (rules,
#: observation, budgets, metric, the analysis method, the shipped rounds) changes it, and
#: must come with a new version (and this line).
FINGERPRINTS = {
    "v1-play-v1": "4ee69d855d9a0ec3",
    "vegas-play-v1": "3150443b3a445176",
    "shoe-play-v1": "19283de497abc0aa",
    "spread-bet-v1": "4c29021f5702e0f9",
    "rules-generalize-v1": "2553c0e1d5717657",
}


def test_each_version_keeps_its_definition() -> None:
    assert {t.id: t.fingerprint() for t in TASKS.values()} == FINGERPRINTS


def test_a_task_by_name_or_versioned_id() -> None:
    assert task("vegas-play") is task("vegas-play-v1") is TASKS["vegas-play"]
    with pytest.raises(ValueError, match="defines vegas-play-v1, not version 2"):
        task("vegas-play-v2")
    with pytest.raises(ValueError, match="unknown task 'nope'; the tasks are v1-play"):
        task("nope")
    assert task("rules-generalize-v1") is TASKS["rules-generalize"]


def test_v1_play_is_gymnasium_blackjack_v1() -> None:
    found = task("v1-play")
    ours = found.make_env("tuple")
    theirs = gym.make("Blackjack-v1", sab=True)
    assert found.action_names == ["STAND", "HIT"]
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space


def test_budgets_are_read_and_written_as_powers_of_ten() -> None:
    assert [parse_budget(x) for x in ("1e5", "100000", "100,000", "2e6")] == [
        100_000, 100_000, 100_000, 2_000_000]
    assert [format_budget(b) for b in (100_000, 10_000_000, 2_000_000, 12_345)] == [
        "1e5", "1e7", "2e6", "12,345"]
    for bad in ("lots", "1.5", "0"):
        with pytest.raises(ValueError, match="budget"):
            parse_budget(bad)
    with pytest.raises(ValueError, match="defines the budgets 1e5, 1e6, 1e7 env steps, not 5e5"):
        task("vegas-play").check_budget(500_000)


def test_every_task_has_a_page_and_every_page_a_task() -> None:
    pages = {p.stem for p in (DOCS / "bench").glob("*.md")}
    assert pages == set(TASKS) | set(PLANNED)
    index = (DOCS / "index.md").read_text()
    assert all(f"bench/{name}" in index for name in pages)


def _decisions(env: gym.Env, seed: int, rounds: int):
    """(observation, table state) at every decision of ``rounds`` rounds of random play."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    done = 0
    while done < rounds:
        base = env.unwrapped
        if base.table.to_act is not None and base.table.phase.name == "PLAYER_TURNS":
            yield obs, table_state(base.table)
        legal = np.flatnonzero(info["action_mask"])
        obs, _, terminated, truncated, info = env.step(int(rng.choice(legal)))
        if terminated or truncated:
            done += 1
            obs, info = env.reset()


@pytest.mark.parametrize("mode", ["multidiscrete", "vector"])
def test_shoe_play_shows_what_the_grade_asks(mode: str) -> None:
    """On shoe-play the env's observation at a decision is the one the exact grade
    encodes for that state (agents.obs.encode_state): the true count and the shoe as a
    full shoe's. The plain 6-deck env shows other counts (so the check can fail)."""
    found = task("shoe-play")
    env = found.make_env(mode)
    plain = gym.make("blackjack_env/Blackjack-v0", **found.env_kwargs(mode))
    compared = moved = 0
    for obs, state in _decisions(env, 3, 300):
        if state.split:  # the hand index, which the analysis does not carry (own test)
            continue
        assert np.array_equal(obs, encode_state(state, found.rules, mode)), (obs, state)
        compared += 1
    for obs, _ in _decisions(plain, 3, 300):
        field = V.MD_COUNT if mode == "multidiscrete" else V.VEC_TRUE_COUNT
        moved += bool(obs[field] != hide_shoe(obs, mode)[field])
    assert compared > 300 and moved > 10


def test_hiding_the_shoe_changes_nothing_else() -> None:
    obs = np.arange(V.VECTOR_SIZE, dtype=np.float32) / 100
    hidden = hide_shoe(obs, "vector")
    keep = [i for i in range(V.VECTOR_SIZE) if i not in (V.VEC_TRUE_COUNT, V.VEC_SHOE)]
    assert np.array_equal(hidden[keep], obs[keep]) and obs[V.VEC_SHOE] == 0.16
    assert hidden[V.VEC_TRUE_COUNT] == 0.0 and hidden[V.VEC_SHOE] == 1.0
    assert hide_shoe((12, 10, 0), "tuple") == (12, 10, 0)
    with pytest.raises(ValueError, match="tuple, multidiscrete and vector"):
        hide_shoe({}, "dict")
