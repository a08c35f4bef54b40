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

from blackjack_env.engine.rules import preset
from blackjack_env.envs.multiagent import BlackjackParallelEnv
from blackjack_env.envs.step import Decision
from blackjack_env.envs.vector import BlackjackVectorEnv
from tests.envs.vector_helpers import obs_row, record_random_legal, same_obs, stacked_cards

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
    "ood-book-no-peek": {"rules": "ood-book", "obs_mode": "dict"},
    "how-to-play": {"rules": "how-to-play", "obs_mode": "vector"},
    # (reshuffled after every round: the stacked cards outlive a reshuffle)
    "how-to-play-2-rounds": {"rules": "how-to-play", "obs_mode": "vector", "rounds": 2},
    "highest-hand": {"rules": preset("terminal-21", bet_raising=False), "obs_mode": "vector"},
}


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
    stacks = [stacked_cards(rules, rng, length, seats) for _ in range(tables)]
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
            assert same_obs(obs_row(obs, r), o[agent]["observation"]), (name, r)
            assert np.array_equal(info["action_mask"][r], o[agent]["action_mask"]), (name, r)
            assert info["active"][r] == i[agent]["active"]
    assert np.array_equal(info["table"], np.arange(tables * seats) // seats)
    assert np.array_equal(info["seat"], np.arange(tables * seats) % seats)
    steps = mapped = 0
    while live.any():
        # legal actions, and any action at random now and then (mapped as the table maps)
        actions = np.array(
            [rng.integers(len(m)) if rng.random() < 0.2 else rng.choice(np.flatnonzero(m))
             for m in info["action_mask"]], dtype=np.int64,
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
                assert same_obs(obs_row(obs, r), o[agent]["observation"]), (
                    name, steps, r, obs_row(obs, r), o[agent]["observation"])
                assert reward[r] == rw[agent], (name, steps, r, reward[r], rw[agent])
                if "rounds" in kwargs:  # the batched env truncates after rounds_per_episode
                    # rounds (the single env's convention); the multi-agent table terminates
                    assert (term[r] or trunc[r]) == (te[agent] or tr[agent]), (name, steps, r)
                    assert not term[r]
                else:
                    assert (term[r], trunc[r]) == (te[agent], tr[agent]), (name, steps, r)
                assert np.array_equal(info["action_mask"][r], o[agent]["action_mask"])
                assert info["active"][r] == i[agent]["active"], (name, steps, r)
                illegal = bool(i[agent].get("illegal_action", False))
                assert bool(info["illegal_action"][r]) == illegal, (name, steps, r)
                if illegal:  # (only the seat the table waited for)
                    mapped += 1
                    assert info["action_played"][r] == i[agent]["action_played"]
            if not refs[t].agents:
                live[t] = False
        assert steps < 200
    assert steps > 2
    assert mapped > 0 or venv.single_action_space.n == 2  # (stand / hit only: all legal)


# ------------------------------------------------------------ the deal, by the cards
def test_deal_is_in_casino_order_from_one_shoe_per_table() -> None:
    """Three seats: a card to each seat, the upcard, a second card to each seat, the hole
    card; then seat 0 acts first and its hit takes the next card of the same shoe."""
    env = BlackjackVectorEnv(6, seats_per_table=3, obs_mode="vector")
    cards = ["2S 3S 4S 5S 9H 9D 8H TD TC", None, None, None, None, None]
    env.reset(seed=0, options={"cards": cards})
    b = env.batch
    assert b is not None
    rank = b.rank_of_card
    assert [(int(rank[b.r0[0, r]]), int(rank[b.r1[0, r]])) for r in range(3)] == [
        (1, 8), (2, 8), (3, 7)]  # 2+9, 3+9, 4+8 (rank index 0 = ace)
    assert [int(rank[b.up[r]]) for r in range(3)] == [4] * 3  # the 5 up, seen by every seat
    assert [int(rank[b.hole[r]]) for r in range(3)] == [9] * 3  # the ten in the hole
    assert info_active(env)[:3] == [True, False, False]
    # seat 0 hits (the other seats' actions are ignored): 2 + 9 + TC = 21 stands by itself,
    # so the table waits for seat 1 next
    _, _, _, _, info = env.step(np.array([1, 1, 1, 0, 0, 0]))
    assert info["active"][:3].tolist() == [False, True, False]
    assert b.hard[0, :3].tolist() == [21, 12, 12]
    assert b.ncards[0, :3].tolist() == [3, 2, 2]
    assert b.pos[:3].tolist() == [9, 9, 9]  # the 8 cards of the deal and the hit, one shoe


def test_waiting_seats_show_settled_and_every_action() -> None:
    env = BlackjackVectorEnv(9, seats_per_table=3, obs_mode="vector")
    _, info = env.reset(seed=4)
    ended = np.zeros(3, dtype=bool)  # (NextStep: an ended table's next step is its reset)
    for _ in range(20):
        act = info["active"]
        assert (act.reshape(-1, 3).sum(axis=1) == ~ended).all()
        assert (info["phase"][~act] == int(Decision.SETTLED)).all()
        assert (info["action_mask"][~act] == 1).all()
        _, reward, term, _, info = env.step(np.zeros(9, dtype=np.int64))
        assert (term.reshape(-1, 3) == term.reshape(-1, 3)[:, :1]).all()  # whole tables
        assert (reward[~info["round_over"]] == 0).all()
        ended = term.reshape(-1, 3)[:, 0]


def info_active(env: BlackjackVectorEnv) -> list[bool]:
    """The seats the env waits for now (``info["active"]`` of the last reset or step)."""
    return env._info()["active"].tolist()


# ------------------------------------------------------------------ invariants
def _rank_counts(ranks: np.ndarray) -> np.ndarray:
    return np.bincount(ranks, minlength=13)


@pytest.mark.parametrize("rules", ["vegas-strip", preset("european-no-hole-card", decks=2)])
def test_cards_and_chips_are_conserved(rules: Any) -> None:
    """Every card is in one place: the cards a table dealt this round (from its one shoe)
    are exactly the cards in its seats' hands and the dealer's, and the undealt counts are
    the cards left in the shoe; each seat's session chips are the sum of its rewards."""
    seats, tables = 3, 30
    env = BlackjackVectorEnv(seats * tables, seats_per_table=seats, rules=rules,
                             obs_mode="dict", rounds_per_episode=4, bet=10)
    _, info = env.reset(seed=7)
    b = env.batch
    assert b is not None
    rng = np.random.default_rng(7)
    chips = np.zeros(seats * tables)
    ended = np.zeros(seats * tables, dtype=bool)  # (NextStep: their next step resets them)
    checked = 0
    for _ in range(150):
        for t in range(tables):
            lead = t * seats
            rows = np.arange(lead, lead + seats)
            assert (b.pos[rows] == b.pos[lead]).all()  # every seat reads the table's shoe
            row = b.shoe[lead]
            ranks = b.rank_of_card[row]
            assert np.array_equal(b.counts[lead], _rank_counts(ranks[b.pos[lead]:]))
            if b.mid_round_reshuffles[lead]:
                continue
            exists = np.arange(b.max_hands)[:, None] < b.nhands[None, rows]
            on_table = (b.hand_ranks[:, rows] * exists[:, :, None]).sum(axis=(0, 1))
            on_table += b.dealer_ranks[lead]
            dealt = _rank_counts(ranks[b.round_start[lead]:b.pos[lead]])
            assert np.array_equal(dealt, on_table), t
            checked += 1
        a = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        chips[ended] = 0.0
        _, reward, term, trunc, info = env.step(a)
        chips += reward * 10
        assert np.allclose(info["bankroll"], chips)
        ended = term | trunc
    assert checked > 1000


@pytest.mark.parametrize("autoreset", ["NextStep", "SameStep"])
@pytest.mark.parametrize("obs_mode", ["tuple", "dict"])
def test_same_seed_same_actions_same_trajectory(autoreset: str, obs_mode: str) -> None:
    def whole_tables(term: np.ndarray, trunc: np.ndarray) -> None:
        for flags in (term, trunc):
            assert (flags.reshape(-1, 4) == flags.reshape(-1, 4)[:, :1]).all()

    def run() -> list[Any]:
        env = BlackjackVectorEnv(12, seats_per_table=4, obs_mode=obs_mode,
                                 autoreset_mode=autoreset, rounds_per_episode=2,
                                 max_episode_steps=7)
        out, _ = record_random_legal(env, seed=123, action_seed=5, steps=60,
                                     info_keys=("round_net", "active"), check=whole_tables)
        return out

    first, second = run(), run()
    for x, y in zip(first, second, strict=True):
        assert same_obs(x, y) if not isinstance(x, tuple) else all(
            np.array_equal(p, q) for p, q in zip(x, y, strict=True))


def test_next_step_reset_step_ignores_actions_and_starts_afresh() -> None:
    env = BlackjackVectorEnv(6, seats_per_table=3)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(40):
        a = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        _, _, term, _, info = env.step(a)
        if term.any():
            break
    ended = term.copy()
    assert ended.any() and not info["active"][ended].any()
    _, reward, term, trunc, info = env.step(np.zeros(6, dtype=np.int64))
    assert (reward[ended] == 0).all() and not term[ended].any() and not trunc[ended].any()
    assert (info["round"][ended] == 1).all()
    assert (info["active"].reshape(-1, 3).sum(axis=1) <= 1).all()


def test_one_seat_per_table_is_the_default_env() -> None:
    def run(**extra: Any) -> list[Any]:
        env = BlackjackVectorEnv(16, obs_mode="vector", **extra)
        out, info = record_random_legal(env, seed=9, action_seed=9, steps=50)
        assert "active" not in info and "seat" not in info
        return out

    for x, y in zip(run(), run(seats_per_table=1), strict=True):
        assert np.array_equal(x, y)


# ------------------------------------------------------------- bad arguments
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_envs": 6, "seats_per_table": 0}, "seats_per_table=0 must be an int from 1 to 7"),
        ({"num_envs": 6, "seats_per_table": 8}, "seats_per_table=8 must be"),
        ({"num_envs": 6, "seats_per_table": 2.0}, "seats_per_table=2.0 must be"),
        ({"num_envs": 6, "seats_per_table": True}, "seats_per_table=True must be"),
        ({"num_envs": 7, "seats_per_table": 3}, "num_envs=7 must be a multiple of"),
        ({"num_envs": 6, "seats_per_table": 3, "bet_sizes": (1, 2)}, "bet_sizes=.* not supported"),
        ({"num_envs": 6, "seats_per_table": 3, "bankroll": 100}, "bankroll=100 is not supported"),
        ({"num_envs": 6, "seats_per_table": 3, "num_seats": 3}, "num_seats=3 is not supported"),
        ({"num_envs": 6, "seats_per_table": 3, "illegal_action": "penalize"}, "penalize"),
        ({"num_envs": 6, "seats_per_table": 3, "others": "dealer"}, "every seat is a learner"),
        ({"num_envs": 6, "seats_per_table": 3, "rules": preset("vegas-strip", max_seats=2)},
         "seats_per_table=3 is not allowed"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match) as err:
        BlackjackVectorEnv(**kwargs)
    assert "\n" not in str(err.value)


def test_bad_reset_options_change_nothing() -> None:
    def fresh() -> BlackjackVectorEnv:
        env = BlackjackVectorEnv(6, seats_per_table=3, obs_mode="vector")
        env.reset(seed=2)
        return env

    env, twin = fresh(), fresh()
    half = np.array([True, True, False, False, False, False])
    with pytest.raises(ValueError, match="must reset whole tables") as err:
        env.reset(options={"reset_mask": half})
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="seat-0 sub-env"):
        env.reset(options={"cards": [None, "AS KH", None, None, None, None]})
    a = np.ones(6, dtype=np.int64)
    for x, y in zip(env.step(a)[:4], twin.step(a)[:4], strict=True):
        assert np.array_equal(x, y)


def test_table_batch_refuses_mismatched_seats() -> None:
    from blackjack_env.envs.batch import TableBatch

    rules = preset("vegas-strip").replace(seats=3)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"rules\.seats=3 must equal seats=1"):
        TableBatch(rules, 6, rng)
    with pytest.raises(ValueError, match=r"num_tables=7 .* multiple of seats=3"):
        TableBatch(rules, 7, rng, seats=3)
    with pytest.raises(ValueError, match="bet_sizes and a finite bankroll"):
        TableBatch(rules, 6, rng, seats=3, bankroll=100)
    batch = TableBatch(rules, 6, rng, seats=3)
    with pytest.raises(ValueError, match="whole tables"):
        batch.start_rounds(np.array([0, 1]))
