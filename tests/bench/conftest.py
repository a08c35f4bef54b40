"""Fixtures of the benchmark's tests: tasks with a tiny budget, so a run is seconds."""

from __future__ import annotations

import dataclasses

import pytest

from blackjack_env.bench.tasks import TASKS

#: The budget of the tiny tasks (env steps): a few rounds of learning.
TINY = 2048


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> int:
    """Every task with the one budget :data:`TINY` (its fingerprint changes with it, so
    results of the tiny tasks are refused by the real ones and the other way round)."""
    for name, found in list(TASKS.items()):
        monkeypatch.setitem(TASKS, name, dataclasses.replace(found, budgets=(TINY,)))
    return TINY
