"""Several learner seats per JAX table (``seats_per_table``), against the numpy vector
env's seats (sub-env ``t * S + s`` is seat ``s`` of table ``t``; that env is tied to the
multi-agent table by ``tests/envs/test_vector_seats.py``): the same stacked cards and
actions give identical observations, masks, active seats, rewards, played actions and
episode ends, sub-env by sub-env; and chips and cards are conserved over random play."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.engine import Rules, preset  # noqa: E402
from blackjack_env.jax.round import start_round, step  # noqa: E402
from blackjack_env.jax.seats import masks  # noqa: E402
from blackjack_env.jax.state import State, new_state  # noqa: E402
from tests.jax.jax_helpers import (  # noqa: E402
    FEATURES,
    PARITY_TABLES,
    SEATS,
    invariants,
    run_parity,
    scan_tables,
    table,
    violations,
)

#: every action, a finite shoe, splits to 4 hands, the pre-peek question seat by seat
#: (the shared seats table), under two rule sets in one run
FAST: list[dict[str, Any]] = [
    SEATS,
    {**SEATS, "rules": Rules(decks=2, surrender="early", resplit_aces=True,
                             dealer_hits_soft_17=True, blackjack_payout="6:5")},
]  # fmt: skip
SLOW: dict[str, dict[str, Any]] = {
    "vegas-strip-2": {"rules": "vegas-strip", "obs_mode": "vector", "seats_per_table": 2},
    "infinite-7-multidiscrete": {
        "rules": preset("vegas-strip", decks=None), "obs_mode": "multidiscrete",
        "seats_per_table": 7,
    },
    "european-no-hole-3": {
        "rules": "european-no-hole-card", "obs_mode": "vector", "seats_per_table": 3,
    },
    "sutton-barto-4": {
        "rules": preset("sutton-barto").replace(max_seats=4), "obs_mode": "vector",
        "seats_per_table": 4,
    },
    "paid-at-deal-late-surrender-3": {
        "rules": Rules(decks=1, penetration=0.9, hole_card="no-peek", surrender="late",
                       natural_paid_at_deal=True, insurance=False),
        "obs_mode": "vector", "seats_per_table": 3,
    },
    "highest-hand-ood-book-3": {
        "rules": preset("ood-book", seats=3), "obs_mode": "vector", "seats_per_table": 3,
    },
    "terminal-21-5": {
        "rules": preset("terminal-21", seats=5, bet_raising=False), "obs_mode": "vector",
        "seats_per_table": 5,
    },
    "insurance-multidiscrete-2": {
        "rules": Rules(decks=1, penetration=0.9, max_split_hands=3), "obs_mode": "multidiscrete",
        "insurance_decisions": True, "seats_per_table": 2,
    },
}  # fmt: skip


def _check(name: str, kwargs: dict[str, Any], n: int, seed: int) -> dict[str, int]:
    env = table(**kwargs)
    seats = kwargs["seats_per_table"]
    seen = run_parity(env, kwargs, n=n, seed=seed)
    assert seen["ended"] == n * seats
    return seen


def test_seats_parity_fast() -> None:
    n = PARITY_TABLES // len(FAST)
    seen = run_parity(table(**SEATS), FAST, n=n, seed=5)
    assert seen["ended"] == PARITY_TABLES * 3
    assert seen["split"] > 0 and seen["illegal"] > 0 and seen["nonzero"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SLOW))
def test_seats_parity_presets(name: str) -> None:
    _check(name, SLOW[name], n=192, seed=13)


# ----------------------------------------------------------------- conservation
def play_random(env: Any, n: int, steps: int, seed: int) -> dict[str, int]:
    """``n`` tables, ``steps`` random legal steps through ``step``: invariant
    violations after each (:func:`invariants`), the rounds played, and the chips: the
    rewards of every seat equal its hands' and insurance nets of the ended rounds."""
    cfg = env.config

    def start(key: Any, p: Any) -> Any:
        st = start_round(key, new_state(cfg, p), p, cfg)
        return st, masks(st, p, cfg)

    def table_step(key: Any, st: State, mask: Any, p: Any) -> Any:
        k_a, k_s, k_r = jax.random.split(key, 3)
        a = jnp.argmax(jnp.where(mask, jax.random.uniform(k_a, mask.shape), -1.0), axis=-1)
        st, reward, over, _, _ = step(k_s, st, a, p, cfg)
        bad = invariants(env, st, p)
        live = jnp.arange(cfg.hands) < jnp.expand_dims(st.nhands, -1)
        net = (jnp.sum(jnp.where(live, st.net, 0.0), axis=-1) + st.insurance_net) / p.bet
        bad["reward"] = over & jnp.any(jnp.abs(net - reward) > 1e-5)
        st = start_round(k_r, st, p, cfg, over)
        after = invariants(env, st, p)
        counts = {k: v + after.get(k, 0) for k, v in bad.items()}
        counts["_rounds"] = over
        return st, masks(st, p, cfg), counts

    return scan_tables(start, table_step, env.stack_params([env.rules] * n), steps, seed)


def test_seats_conserve_cards_and_chips() -> None:
    env = table(**SEATS)
    seen = play_random(env, n=64, steps=200, seed=2)
    assert seen["_rounds"] > 1000, seen
    assert not any(violations(seen).values()), seen


def test_one_seat_state_has_no_seat_axis_and_seats_do() -> None:
    one = table(**FEATURES)
    three = table(**SEATS)
    assert one.new_state().hard.shape == (4,) and one.new_state().phase.shape == ()
    st = three.new_state()
    assert st.hard.shape == (3, 4) and st.phase.shape == (3,) and st.shoe.shape == (312,)
    obs, st = three.reset(jax.random.PRNGKey(0), three.default_params)
    assert obs.shape == (3, 17) and three.observation_space().shape == (3, 17)
    assert int(np.asarray(three.active(st)).sum()) == 1
    with pytest.raises(ValueError, match="seats_per_table=9 must be an int from 1 to 7"):
        table(seats_per_table=9)
