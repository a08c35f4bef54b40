"""Several learner seats per table in the batched env (``seats_per_table``).

The contract: sub-env ``t * S + s`` of ``BlackjackVectorEnv(seats_per_table=S)`` is agent
``seat_s`` of a multi-agent table (``BlackjackParallelEnv``) dealt from the same stacked
shoe and given the same actions: same observation, reward, termination and mask at every
step, and the same ``active`` flags.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from blackjack_env.engine.cards import ALL_CARDS
from blackjack_env.engine.rules import Rules, preset
from blackjack_env.envs.parallel import BlackjackParallelEnv
from blackjack_env.envs.vector import BlackjackVectorEnv

CONFIGS: dict[str, dict[str, Any]] = {
    "vegas-strip": {},
    "vegas-strip-vector-2-rounds": {"obs_mode": "vector", "rounds": 2},
    "insurance-dict": {"obs_mode": "dict", "insurance_decisions": True},
    "no-hole-card": {"rules": preset("european-no-hole-card"), "obs_mode": "vector"},
    "early-surrender": {
        "rules": preset("vegas-strip", surrender="early"), "insurance_decisions": True,
    },
    "infinite-h17-dict": {"rules": preset("downtown-h17", decks=None), "obs_mode": "dict"},
    "single-deck-6to5": {"rules": "single-deck-6to5", "bet": 5, "obs_mode": "vector"},
}


def _stack(rules: Rules, rng: np.random.Generator, length: int, seats: int) -> str:
    """Card text with pairs, aces and tens up front, so splits, naturals and the
    pre-peek question are frequent (valid for the shoe)."""
    decks = rules.shoe_decks
    ids = (
        rng.integers(0, 52, size=length)
        if decks is None
        else rng.permutation(np.tile(np.arange(52), decks))[:length]
    ).tolist()

    def put(pos: int, rank: int) -> None:
        if decks is None:
            ids[pos] = int(rng.integers(4)) * 13 + rank
            return
        for j in range(pos + 1, len(ids)):
            if ids[j] % 13 == rank:
                ids[pos], ids[j] = ids[j], ids[pos]
                return

    for s in range(seats):  # seat s: cards s and seats + 1 + s; the upcard: card seats
        if rng.random() < 0.35:
            put(seats + 1 + s, ids[s] % 13)
        if rng.random() < 0.1:
            put(s, 0)
    if rng.random() < 0.35:
        put(seats, 0)
    return " ".join(str(ALL_CARDS[c]) for c in ids)


def _same(a: Any, b: Any) -> bool:
    if isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in b)
    if isinstance(b, tuple):
        return tuple(int(x) for x in a) == tuple(int(x) for x in b)
    return np.array_equal(np.asarray(a), np.asarray(b))


def _row(obs: Any, r: int) -> Any:
    if isinstance(obs, dict):
        return {k: v[r] for k, v in obs.items()}
    if isinstance(obs, tuple):
        return tuple(part[r] for part in obs)
    return obs[r]


def _vector_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    out = dict(kwargs)
    if "rounds" in out:
        out["rounds_per_episode"] = out.pop("rounds")
    return out


@pytest.mark.parametrize("seats", [2, 3])
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_stacked_tables_match_the_multi_agent_table(name: str, seats: int) -> None:
    tables = 40
    kwargs = CONFIGS[name]
    rng = np.random.default_rng(seats)
    venv = BlackjackVectorEnv(
        tables * seats, seats_per_table=seats, autoreset_mode="Disabled",
        **_vector_kwargs(kwargs),
    )
    refs = [BlackjackParallelEnv(num_seats=seats, **kwargs) for _ in range(tables)]
    rules = refs[0].aec_env.rules
    length = 52 if rules.shoe_decks == 1 else 90
    stacks = [_stack(rules, rng, length, seats) for _ in range(tables)]
    cards: list[str | None] = [None] * (tables * seats)
    for t in range(tables):
        cards[t * seats] = stacks[t]
    obs, info = venv.reset(seed=3, options={"cards": cards})
    agents = [f"seat_{s}" for s in range(seats)]
    live = np.ones(tables, dtype=bool)
    for t, ref in enumerate(refs):
        o, i = ref.reset(seed=t, options={"cards": stacks[t]})
        for s, agent in enumerate(agents):
            r = t * seats + s
            assert _same(_row(obs, r), o[agent]["observation"]), (name, r)
            assert np.array_equal(info["action_mask"][r], o[agent]["action_mask"]), (name, r)
            assert info["active"][r] == i[agent]["active"]
    assert np.array_equal(info["table"], np.arange(tables * seats) // seats)
    assert np.array_equal(info["seat"], np.arange(tables * seats) % seats)
    steps = 0
    while live.any():
        actions = np.array(
            [rng.choice(np.flatnonzero(m)) for m in info["action_mask"]], dtype=np.int64
        )
        if not live.all():  # restart the ended tables (not compared any more)
            venv.reset(options={"reset_mask": ~live.repeat(seats)})
        obs, reward, term, trunc, info = venv.step(actions)
        steps += 1
        for t in np.flatnonzero(live):
            acts = {a: int(actions[t * seats + s]) for s, a in enumerate(agents)}
            o, rw, te, tr, i = refs[t].step(acts)
            for s, agent in enumerate(agents):
                r = t * seats + s
                assert _same(_row(obs, r), o[agent]["observation"]), (
                    name, steps, r, _row(obs, r), o[agent]["observation"])
                assert reward[r] == rw[agent], (name, steps, r, reward[r], rw[agent])
                if "rounds" in kwargs:  # the batched env truncates after rounds_per_episode
                    # rounds (the single env's convention); the multi-agent table terminates
                    assert (term[r] or trunc[r]) == (te[agent] or tr[agent]), (name, steps, r)
                    assert not term[r]
                else:
                    assert (term[r], trunc[r]) == (te[agent], tr[agent]), (name, steps, r)
                assert np.array_equal(info["action_mask"][r], o[agent]["action_mask"])
                assert info["active"][r] == i[agent]["active"], (name, steps, r)
            if not refs[t].agents:
                live[t] = False
        assert steps < 200
    assert steps > 2
