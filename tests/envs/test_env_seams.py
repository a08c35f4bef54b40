"""The seams of the three envs: no shared arrays, refused calls change nothing, one
action check, time limits as Gymnasium's wrappers give them, JSON specs."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence

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


# ------------------------------------------------------------------ no shared arrays
def _arrays(x, path="") -> list[tuple[str, np.ndarray]]:
    """Every numpy array inside an observation or info (nested dicts / tuples)."""
    if isinstance(x, np.ndarray):
        return [(path, x)]
    if isinstance(x, dict):
        return [a for k, v in x.items() for a in _arrays(v, f"{path}/{k}")]
    if isinstance(x, (list, tuple)):
        return [a for i, v in enumerate(x) for a in _arrays(v, f"{path}/{i}")]
    return []


def _scribble(x) -> int:
    """Write over every array in ``x`` (all ones / True); how many were written."""
    arrays = _arrays(x)
    for _, a in arrays:
        if a.flags.writeable:
            a[...] = 1
    return len(arrays)


@pytest.mark.parametrize("obs_mode", ["multidiscrete", "vector", "dict", "tuple"])
def test_writing_to_the_single_envs_arrays_changes_nothing(obs_mode) -> None:
    kwargs = {"rules": "vegas-strip", "obs_mode": obs_mode, "rounds_per_episode": 4,
              "illegal_action": "raise", "num_seats": 2}
    env, twin = gym.make(ENV_ID, **kwargs), gym.make(ENV_ID, **kwargs)
    out, ref = env.reset(seed=3), twin.reset(seed=3)
    written = 0
    rng = np.random.default_rng(0)
    for _ in range(60):
        assert data_equivalence(out, ref)
        written += _scribble(out)
        legal = np.flatnonzero(ref[-1]["action_mask"])
        a = int(rng.choice(legal))
        out, ref = env.step(a), twin.step(a)
        if ref[2] or ref[3]:
            assert data_equivalence(out, ref)
            written += _scribble(out)
            out, ref = env.reset(), twin.reset()
    assert written > 0


@pytest.mark.parametrize("autoreset", ["NextStep", "SameStep"])
@pytest.mark.parametrize("obs_mode", ["multidiscrete", "vector", "dict", "tuple"])
def test_writing_to_the_batched_envs_arrays_changes_nothing(obs_mode, autoreset) -> None:
    """Writing to info["action_mask"] once made a non-pair splittable even under "raise"."""
    kwargs = {"rules": "vegas-strip", "obs_mode": obs_mode, "illegal_action": "raise",
              "autoreset_mode": autoreset}
    env = gym.make_vec(ENV_ID, num_envs=8, **kwargs)
    twin = gym.make_vec(ENV_ID, num_envs=8, **kwargs)
    out, ref = env.reset(seed=3), twin.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        assert data_equivalence(out, ref)
        mask = ref[-1]["action_mask"].copy()
        _scribble(out)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask], dtype=np.int64)
        out, ref = env.step(actions), twin.step(actions)
    # and the mask written to all ones does not make SPLIT of a non-pair legal
    _, info = env.reset(seed=0, options={"cards": "9S 6H 8D TC"})
    info["action_mask"][:] = 1
    info["phase"][:] = 0
    with pytest.raises(ValueError, match="not legal"):
        env.step(np.full(8, 3))


@pytest.mark.parametrize("obs_mode", ["multidiscrete", "vector", "dict"])
def test_writing_to_the_multi_agent_envs_arrays_changes_nothing(obs_mode) -> None:
    from blackjack_env.envs.multiagent import raw_env

    kwargs = {"num_seats": 3, "obs_mode": obs_mode, "rounds": 5}
    env, twin = raw_env(**kwargs), raw_env(**kwargs)
    env.reset(seed=2)
    twin.reset(seed=2)
    rng = np.random.default_rng(1)
    for _ in range(80):
        if not twin.agents:
            break
        out, ref = env.last(), twin.last()
        assert data_equivalence(out, ref)
        assert data_equivalence(env.infos, twin.infos)
        _scribble(out)
        _scribble(env.observe(env.agent_selection))
        _scribble(env.infos)
        if ref[2] or ref[3]:
            env.step(None)
            twin.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(ref[0]["action_mask"])))
        env.step(a)
        twin.step(a)
        assert env.rewards == twin.rewards


# --------------------------------------------------------------- refused calls, actions
def _pending(e) -> tuple:
    """The multi-agent env's pending rewards and infos (copies)."""
    infos = {k: dict(v) for k, v in e.infos.items()}
    return dict(e.rewards), dict(e._cumulative_rewards), infos


def test_multi_agent_refused_step_keeps_rewards_and_infos() -> None:
    from blackjack_env.envs.multiagent import raw_env

    e = raw_env(rules="vegas-strip", num_seats=2, illegal_action="raise", rounds=3)
    e.reset(seed=0, options={"cards": "TS 9H 6D TD 7C 2C"})  # seat 0 T7 = 17, seat 1 9 2 v 6
    e.step(0)  # seat 0 stands
    while e.agent_selection == "seat_1":  # a pending reward / info for someone
        before = _pending(e)
        for bad in (9, 1.0, True, "0", float("inf")):
            with pytest.raises(ValueError, match="seat_1: action"):
                e.step(bad)
        with pytest.raises(ValueError, match="not legal"):
            e.step(3)  # SPLIT of 9 2
        assert _pending(e) == before
        e.step(0)


@pytest.mark.parametrize(
    "bad", [1.0, True, np.float64(2.0), float("inf"), "1", None, np.bool_(True), 7, -1]
)
def test_one_action_check_for_all_three_envs(bad) -> None:
    """The same values are refused by the three envs, each quoting the value as given."""
    from blackjack_env.envs.multiagent import raw_env

    single = gym.make(ENV_ID).unwrapped
    single.reset(seed=0)
    batched = gym.make_vec(ENV_ID, num_envs=2)
    batched.reset(seed=0)
    table = raw_env(num_seats=1)
    table.reset(seed=0)
    kind = object if bad is None or isinstance(bad, str) else None
    quoted = repr(bad) if not isinstance(bad, int) or isinstance(bad, bool) else str(bad)
    for call in (
        lambda: single.step(bad),
        lambda: batched.step(np.array([bad, bad], dtype=kind)),
        lambda: table.step(bad),
    ):
        with pytest.raises(ValueError) as err:
            call()
        message = str(err.value)
        assert "action" in message
        if not isinstance(bad, (np.floating, np.bool_)):
            assert quoted in message, message
    assert "-9223372036854775808" not in message


def test_step_before_reset_is_reset_needed_everywhere() -> None:
    from blackjack_env.envs.multiagent import raw_env

    with pytest.raises(gym.error.ResetNeeded):
        gym.make(ENV_ID, disable_env_checker=True).unwrapped.step(0)
    with pytest.raises(gym.error.ResetNeeded):
        gym.make_vec(ENV_ID, num_envs=2).step(np.zeros(2, dtype=np.int64))
    table = raw_env()
    with pytest.raises(gym.error.ResetNeeded):
        table.step(0)
    with pytest.raises(gym.error.ResetNeeded):
        _ = table.table


def test_batched_refused_reset_changes_nothing() -> None:
    env = gym.make_vec(ENV_ID, num_envs=3, rules=preset("vegas-strip", decks=1))
    env.reset(seed=4)
    twin = gym.make_vec(ENV_ID, num_envs=3, rules=preset("vegas-strip", decks=1))
    twin.reset(seed=4)
    for cards in ("AS ZZ", "AS AS", ["AS", 7], ["AS", None, "ZZ"]):
        with pytest.raises(ValueError):
            env.reset(seed=9, options={"cards": cards})
    for _ in range(10):
        a = np.zeros(3, dtype=np.int64)
        assert data_equivalence(env.step(a), twin.step(a))


# ------------------------------------------------------------------------- settings
def test_numpy_integers_are_accepted_everywhere() -> None:
    from blackjack_env.envs.multiagent import raw_env

    i = np.int64
    env = gym.make(ENV_ID, num_seats=i(3), seat=i(1), bet=i(10), bankroll=i(500),
                   rounds_per_episode=i(4), bet_sizes=np.array([1, 2]))
    s = env.unwrapped.settings
    assert (s.rules.seats, s.seat, s.bet, s.bankroll, s.rounds_per_episode, s.bet_sizes) == (
        3, 1, 10, 500, 4, (1, 2))
    assert all(type(v) is int for v in (s.seat, s.bet, s.bankroll, s.rounds_per_episode))
    env.reset(seed=0)
    vec = gym.make_vec(ENV_ID, num_envs=i(2), bet=i(5), rounds_per_episode=i(2))
    assert vec.settings.bet == 5
    table = raw_env(num_seats=i(2), rounds=i(2), bet=i(5), others={i(1): "dealer"})
    assert table.possible_agents == ["seat_0"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"bet_sizes": 5}, "bet_sizes=5 must be None or strictly increasing ints"),
        ({"bet_sizes": "12"}, "bet_sizes='12' must be None"),
        ({"others": "nobody"}, "unknown strategy 'nobody'"),  # a one-seat table
        ({"others": 5}, "others=5 must be a strategy name"),
        ({"rules": {"decks": 2, "nope": 1}}, "unknown rule field"),
        ({"seat": np.int64(4)}, "seat=np.int64\\(4\\) must be an int from 0 to 0"),
        ({"illegal_penalty": np.float64("nan")}, "illegal_penalty"),
        ({"num_seats": 2.0}, "num_seats=2.0 must be an int"),
    ],
)
def test_bad_settings_are_one_clear_line(kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        gym.make(ENV_ID, **kwargs)


def test_settings_are_one_frozen_object_for_all_three_envs() -> None:
    import dataclasses

    from blackjack_env.envs.multiagent import raw_env
    from blackjack_env.envs.settings import EnvSettings
    from blackjack_env.envs.step import IllegalAction

    single = gym.make(ENV_ID, illegal_action="penalize").unwrapped.settings
    vec = gym.make_vec(ENV_ID, num_envs=2, illegal_action="raise").settings
    table = raw_env(illegal_action="raise").settings
    for s in (single, vec, table):
        assert isinstance(s, EnvSettings)
        with pytest.raises(dataclasses.FrozenInstanceError):
            s.bet = 3  # type: ignore[misc]
    assert single.illegal_action is IllegalAction.PENALIZE
    assert vec.illegal_action is table.illegal_action is IllegalAction.RAISE
    # the multi-agent table refuses more seats than the rules allow, as the single env does
    with pytest.raises(ValueError, match="num_seats=3 is not allowed; these rules seat 1 to 1"):
        raw_env(rules="sutton-barto", num_seats=3)
    with pytest.raises(ValueError, match=r"^num_seats=3 is not allowed; these rules seat 1 to 1"):
        gym.make(ENV_ID, rules="sutton-barto", num_seats=3)
    raw_env(rules=preset("how-to-play", max_seats=6), num_seats=6).reset(seed=0)
    with pytest.raises(ValueError, match="illegal_action='penalize' is not allowed"):
        raw_env(illegal_action="penalize")
    # an unknown argument is named with the arguments taken, read from the signature
    with pytest.raises(ValueError, match="unknown argument\\(s\\) seats; BlackjackEnv takes "
                       "rules, num_seats, seat, others"):
        gym.make(ENV_ID, seats=2)


# ----------------------------------------------------------------------- JSON specs
def test_spec_with_rules_object_serialises_and_rebuilds() -> None:
    rules = preset("vegas-strip", decks=2, blackjack_payout="6:5")
    env = gym.make(ENV_ID, rules=rules, bet_sizes=(1, 2), rounds_per_episode=3)
    text = env.spec.to_json()
    data = json.loads(text)
    assert data["kwargs"]["rules"] == rules.to_dict()
    again = gym.make(gym.envs.registration.EnvSpec.from_json(text))
    assert again.unwrapped.rules == rules
    assert again.unwrapped.settings == env.unwrapped.settings
    a, b = env.reset(seed=1), again.reset(seed=1)
    assert data_equivalence(a, b)
    vec = gym.make_vec(ENV_ID, num_envs=2, rules=Rules(decks=None))
    assert json.loads(vec.spec.to_json())["kwargs"]["rules"]["decks"] is None


def test_batched_only_arguments_take_numpy_integers_and_say_what_is_wrong() -> None:
    from blackjack_env.envs.vector import BlackjackVectorEnv

    env = BlackjackVectorEnv(np.int64(2), max_episode_steps=np.int64(3))
    assert env.max_episode_steps == 3 and type(env.max_episode_steps) is int
    pytest.importorskip("stable_baselines3")
    from blackjack_env.envs.vector.sb3 import SB3VecEnv

    with pytest.raises(ValueError, match="autoreset_mode='bogus': stable-baselines3 resets"):
        SB3VecEnv(2, autoreset_mode="bogus")
    SB3VecEnv(2, autoreset_mode="SameStep").reset()
