"""The JAX table against the numpy batched env (and through it ``engine.Table``, which
``tests/envs/test_vector_parity.py`` ties to the numpy tables): the same stacked cards
and the same actions (illegal ones too) give identical observations, masks, rewards,
played actions and episode ends, table by table, for every rule set below (the rule sets
of a shape in one run of its shared table: tests/jax/jax_helpers.py)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("jax")

from blackjack_env.engine import Rules, preset
from tests.jax.jax_helpers import FEATURES, INFINITE, PARITY_TABLES, run_parity, table

#: finite shoes on the shared default table ("features"), in one parity run (one program, each table
#: under its own rule set): 6 and 1 decks, early surrender with resplit aces to 3 hands,
#: no hole card with 3 hands, 6:5
FINITE: list[Any] = [
    "vegas-strip",
    Rules(decks=2, surrender="early", resplit_aces=True, max_split_hands=3),
    "single-deck-6to5",
    "european-no-hole-card",
]
#: infinite decks on the shared infinite table ("multidiscrete", the insurance question)
INFINITE_RULES: list[Any] = [
    preset("vegas-strip", decks=None),
    preset("atlantic-city", decks=None, surrender="early", dealer_hits_soft_17=True),
]
SLOW: dict[str, dict[str, Any]] = {
    name: {"rules": name, "obs_mode": "vector"}
    for name in (
        "atlantic-city", "downtown-h17", "single-deck-6to5", "european-no-hole-card",
        "sutton-barto", "gymnasium", "gymnasium-natural", "browser-game",
        "how-to-play",
    )
}  # fmt: skip
# the seed games seat several players; one learner seat here (the numpy batched env's)
SLOW["terminal-21-one-seat"] = {
    "rules": preset("terminal-21", seats=1, bet_raising=False),
    "obs_mode": "vector",
}
SLOW["ood-book-one-seat"] = {"rules": preset("ood-book", seats=1), "obs_mode": "vector"}
SLOW["hit-split-aces-halve-value"] = {
    "rules": Rules(
        decks=4, hit_split_aces=True, resplit_aces=True, split_by="value",
        blackjack_after_split=True, double="9-11", double_after_split=False,
        dealer_hits_soft_17=True, ties="dealer-wins",
    ),
    "obs_mode": "vector", "bet": 2,
}  # fmt: skip
SLOW["vegas-strip-multidiscrete-insurance"] = {
    "rules": Rules(decks=1, penetration=0.9),
    "obs_mode": "multidiscrete", "insurance_decisions": True,
}  # fmt: skip
SLOW["halved-split-bets"] = {
    "rules": Rules(decks=1, split_bet="halve", max_split_hands=2, surrender="late"),
    "obs_mode": "vector", "bet": 4,
}  # fmt: skip
SLOW["no-peek-late-surrender-paid-at-deal"] = {
    "rules": Rules(decks=None, hole_card="no-peek", surrender="late", natural_paid_at_deal=True,
                   insurance=False),
    "obs_mode": "vector",
}  # fmt: skip


def _check(name: str, kwargs: dict[str, Any], n: int, seed: int) -> dict[str, int]:
    seen = run_parity(table(**kwargs), kwargs, n=n, seed=seed)
    assert seen["ended"] == n
    return seen


@pytest.mark.parametrize(
    ("shared", "rules"),
    [(FEATURES, FINITE), (INFINITE, INFINITE_RULES)],
    ids=["finite", "infinite"],
)
def test_parity_fast(shared: dict[str, Any], rules: list[Any]) -> None:
    """Every rule set of the list against its own numpy env, in one run of the shared
    table (:data:`~tests.jax.jax_helpers.PARITY_TABLES` tables)."""
    kwargs = [{**shared, "rules": r} for r in rules]
    n = PARITY_TABLES // len(rules)
    seen = run_parity(table(**kwargs[0]), kwargs, n=n, seed=7)
    assert seen["ended"] == PARITY_TABLES
    assert seen["split"] > 0 and seen["illegal"] > 0 and seen["nonzero"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SLOW))
def test_parity_presets(name: str) -> None:
    _check(name, SLOW[name], n=512, seed=11)
