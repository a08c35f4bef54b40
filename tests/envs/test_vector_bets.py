"""The batched env's bet step (``bet_sizes``) and finite bankrolls against the single env.

1. Stacked shoes: each sub-env of a ``BlackjackVectorEnv`` and its own ``BlackjackEnv``
   get the same cards and the same actions (unmasked ones too, so every illegal-action
   policy is exercised at bet steps); observations, rewards, episode ends, masks and the
   info arrays (bankroll included) must be identical at every step.
2. Scripted rounds: a double, a split and insurance refused for lack of chips; the bet
   mapping of each illegal-action policy; a session ending when the learner cannot cover
   the smallest bet.
3. Invariants: chips are conserved over many random rounds; same seed and actions give
   the same arrays; ``gym.make_vec`` of ``BlackjackCounting-v0`` builds the native env and
   passes the checks a vector env should, in both autoreset modes.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import blackjack_env  # noqa: F401  (registers the ids)
from blackjack_env import ENV_IDS
from blackjack_env.engine import Rules, preset
from blackjack_env.envs.single.env import BlackjackEnv
from blackjack_env.envs.vector import BlackjackVectorEnv
from tests.envs.vector_helpers import (
    assert_means_agree,
    assert_step_matches,
    obs_row,
    random_legal_returns_single,
    random_legal_returns_vector,
    same_obs,
    stacked_cards,
)

COUNTING = "blackjack_env/BlackjackCounting-v0"
STAND, HIT, DOUBLE, SPLIT, SURRENDER, INSURE = range(6)

CONFIGS: dict[str, dict[str, Any]] = {
    # the counting id's settings, shorter sessions
    "counting": {**ENV_IDS[COUNTING], "rounds_per_episode": 6},
    "bets-bankroll": {"bet_sizes": (1, 2, 4), "bankroll": 9, "rounds_per_episode": 10},
    "bankroll-dict-insurance": {
        "obs_mode": "dict", "bet_sizes": (1, 2, 3), "bankroll": 7, "rounds_per_episode": 12,
        "insurance_decisions": True,
    },
    "fixed-bet-bankroll": {"obs_mode": "vector", "bankroll": 4, "rounds_per_episode": 12},
    "penalize-bets": {
        "bet_sizes": (1, 2, 4), "bankroll": 20, "rounds_per_episode": 5,
        "illegal_action": "penalize", "illegal_penalty": 0.5,
    },
    "6to5-fractions": {
        "rules": preset("single-deck-6to5", decks=4), "bet_sizes": (1, 3), "bankroll": 6,
        "rounds_per_episode": 10, "obs_mode": "vector",
    },
    "6to5-unlimited-credit": {  # (4 decks: the stacked cards outlast the session)
        "rules": preset("single-deck-6to5", decks=4), "bet_sizes": (1, 3, 7),
        "rounds_per_episode": 12, "obs_mode": "dict",
    },
    "halve-splits": {
        "rules": Rules(decks=6, split_bet="halve", max_split_hands=2, surrender="early"),
        "bet_sizes": (1, 2, 3), "bankroll": 8, "rounds_per_episode": 8, "bet": 1,
    },
    "infinite-bets": {
        "rules": preset("vegas-strip", decks=None), "bet_sizes": (1, 5), "bankroll": 12,
        "rounds_per_episode": 6, "obs_mode": "dict",
    },
}
#: configurations fed unmasked actions half of the time (the illegal-action mapping)
UNMASKED = {"counting", "bets-bankroll", "penalize-bets", "halve-splits", "6to5-unlimited-credit"}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_stacked_sessions_match_single_env(name: str) -> None:
    n = 120
    kwargs = dict(CONFIGS[name])
    rng = np.random.default_rng(7)
    venv = BlackjackVectorEnv(n, autoreset_mode="Disabled", **kwargs)
    singles = [BlackjackEnv(**kwargs) for _ in range(n)]
    rules = singles[0].rules
    stacks = [stacked_cards(rules, rng, 150) for _ in range(n)]
    obs, info = venv.reset(seed=5, options={"cards": stacks})
    for t, env in enumerate(singles):
        o, i = env.reset(seed=t, options={"cards": stacks[t]})
        assert same_obs(obs_row(obs, t), o), (name, t)
        assert np.array_equal(info["action_mask"][t], i["action_mask"])
        assert info["bankroll"][t] == i["bankroll"]
    alive = np.ones(n, dtype=bool)
    seen = {"illegal": 0, "broke": 0, "bet_settled": 0}
    steps = 0
    while alive.any():
        actions = np.zeros(n, dtype=np.int64)
        for t in np.flatnonzero(alive):
            mask = info["action_mask"][t]
            if name in UNMASKED and rng.random() < 0.4:
                actions[t] = rng.integers(venv.single_action_space.n)
            else:
                actions[t] = rng.choice(np.flatnonzero(mask))
        active = alive.copy()
        if not active.all():
            venv.reset(options={"reset_mask": ~active})  # restart ended ones (not compared)
        phase_before = info["phase"].copy()
        obs, reward, term, trunc, info = venv.step(actions)
        steps += 1
        for t in np.flatnonzero(active):
            single = singles[t].step(int(actions[t]))
            assert_step_matches(
                (name, t, steps), (obs, reward, term, trunc, info), t, single,
                extra_info=("reshuffled",),
            )
            _, _, te, tr, i = single
            if "settlement" in i:
                seen["bet_settled"] += int(phase_before[t]) == 2
            seen["illegal"] += bool(i["illegal_action"])
            limit = kwargs.get("rounds_per_episode")
            seen["broke"] += bool(te) and limit not in (1, None) and i["round"] < limit
            if te or tr:
                alive[t] = False
        assert steps < 400
    if name in UNMASKED:
        assert seen["illegal"] > 0
    if kwargs.get("bankroll") is not None and name not in ("penalize-bets",):
        assert seen["broke"] > 0, seen  # some sessions ran out of chips
    if kwargs.get("bet_sizes"):
        assert seen["bet_settled"] > 0, seen  # rounds settled at the deal, on the bet step


def _bets_env(n: int = 1, **kwargs: Any) -> BlackjackVectorEnv:
    kwargs.setdefault("bet_sizes", (1, 2))
    return BlackjackVectorEnv(n, **kwargs)


def test_double_and_split_refused_without_the_chips() -> None:
    # bankroll 3, bet 2: one chip left, which covers neither a double nor a split of 2
    for bankroll, bet_index, legal in ((3, 1, False), (4, 1, True), (3, 0, True)):
        venv = _bets_env(bankroll=bankroll, rounds_per_episode=3)
        single = BlackjackEnv(bet_sizes=(1, 2), bankroll=bankroll, rounds_per_episode=3)
        cards = "8S 5H 8D 9C"  # a pair of 8s against a 5
        _, info = venv.reset(seed=1, options={"cards": cards})
        single.reset(seed=1, options={"cards": cards})
        a = 5 + bet_index
        _, _, _, _, info = venv.step(np.array([a]))
        _, _, _, _, i = single.step(a)
        assert info["phase"][0] == 0
        assert bool(info["action_mask"][0, DOUBLE]) is legal
        assert bool(info["action_mask"][0, SPLIT]) is legal
        assert np.array_equal(info["action_mask"][0], i["action_mask"])
        assert info["bankroll"][0] == bankroll - (bet_index + 1)
        # a double not covered plays as a hit ("double, else hit"), as in the single env
        *_, info = venv.step(np.array([DOUBLE]))
        *_, i = single.step(DOUBLE)
        assert info["action_played"][0] == (DOUBLE if legal else HIT) == i["action_played"]
        assert bool(info["illegal_action"][0]) is not legal


def test_insurance_refused_without_the_chips() -> None:
    # ace up, bet 2: insurance stakes 1; a bankroll of 2 leaves nothing to stake it
    for bankroll, asked in ((3, True), (2, False)):
        venv = _bets_env(bankroll=bankroll, insurance_decisions=True, rounds_per_episode=2)
        _, info = venv.reset(seed=3, options={"cards": "9S AH 7D 8C"})
        _, _, _, _, info = venv.step(np.array([7]))  # bet 2 (actions 6, 7: the bets)
        assert bool(info["phase"][0] == 1) is asked
        assert bool(info["action_mask"][0, INSURE]) is asked


def test_session_ends_when_the_smallest_bet_is_not_covered() -> None:
    # bankroll 2, bet 2 lost to a dealer 20: nothing left, terminated (not truncated)
    venv = _bets_env(bankroll=2, rounds_per_episode=10, autoreset_mode="NextStep")
    _, info = venv.reset(seed=0, options={"cards": "TS TH 7D QC"})
    assert info["action_mask"][0].tolist() == [0, 0, 0, 0, 0, 1, 1]
    _, r, te, tr, info = venv.step(np.array([6]))
    assert r[0] == 0 and info["phase"][0] == 0
    _, r, te, tr, info = venv.step(np.array([STAND]))
    assert (r[0], bool(te[0]), bool(tr[0])) == (-2.0, True, False)
    assert info["bankroll"][0] == 0
    _, r, te, tr, info = venv.step(np.array([5]))  # the autoreset step
    assert (r[0], info["bankroll"][0], info["phase"][0]) == (0.0, 2.0, 2)


@pytest.mark.parametrize("policy", ["map", "raise", "penalize"])
def test_illegal_bet_actions(policy: str) -> None:
    kwargs = {"bet_sizes": (1, 2, 4), "bankroll": 3, "rounds_per_episode": 4,
              "illegal_action": policy, "illegal_penalty": 0.25}
    venv = BlackjackVectorEnv(3, **kwargs)
    singles = [BlackjackEnv(**kwargs) for _ in range(3)]
    cards = "TS 9H 8D 7C 5S"  # 18 against a 9: the dealer draws to 16 + 5 = 21
    _, info = venv.reset(seed=2, options={"cards": cards})
    for t, env in enumerate(singles):
        env.reset(seed=t, options={"cards": cards})
    # bankroll 3: BET_4 is not covered; HIT is no bet; BET_2 is legal
    assert info["action_mask"][0].tolist() == [0, 0, 0, 0, 0, 1, 1, 0]
    actions = np.array([7, HIT, 6])
    if policy == "raise":
        with pytest.raises(ValueError, match=r"sub-env 0: action 7 \(BET_4\) is not legal"):
            venv.step(actions)
        assert venv.step(np.array([6, 5, 6]))[4]["phase"].tolist() == [0, 0, 0]  # unchanged
        return
    _, reward, _, _, info = venv.step(actions)
    expected = [env.step(int(a)) for env, a in zip(singles, actions, strict=True)]
    assert info["illegal_action"].tolist() == [True, True, False]
    # map: BET_4 -> the largest allowed size below it (BET_2); HIT -> the smallest (BET_1)
    assert info["action_played"].tolist() == [6, 5, 6]
    for t, (_, r, _, _, i) in enumerate(expected):
        assert info["action_played"][t] == i["action_played"]
        assert reward[t] == r
        assert info["bankroll"][t] == i["bankroll"]
        assert info["phase"][t] == int(i["phase"])
    if policy == "penalize":  # the round was played out standing: 18 against the dealer
        assert info["round_over"].tolist() == [True, True, False]
        assert reward.tolist() == [-2.25, -1.25, 0.0]
    else:
        assert info["phase"].tolist() == [0, 0, 0]


def test_chips_are_conserved_over_random_sessions() -> None:
    """bankroll at the start + sum(reward * bet) == bankroll at the end, every session,
    with 3:2 and 6:5 payouts (fractional chips), doubles, splits and insurance."""
    for rules in ("vegas-strip", "single-deck-6to5"):
        bet = 2
        venv = BlackjackVectorEnv(
            256, rules=rules, bet=bet, bet_sizes=(1, 2, 4), bankroll=30, rounds_per_episode=40,
            insurance_decisions=True, autoreset_mode="NextStep",
        )
        rng = np.random.default_rng(1)
        _, info = venv.reset(seed=9)
        # chips in tenths (exact for both payouts: every amount is a multiple of 1/10)
        won = np.zeros(venv.num_envs, dtype=np.int64)
        sessions = broke = 0
        for _ in range(1500):
            mask = info["action_mask"].astype(bool)
            a = (rng.random(mask.shape) * mask).argmax(axis=1)
            resetting = venv._ended.copy()
            _, r, te, tr, info = venv.step(a)
            won[~resetting] += np.rint(r[~resetting] * bet * 10).astype(np.int64)
            # at every step: the chips off the table never go below 0
            assert (info["bankroll"] >= 0).all()
            done = te | tr
            for t in np.flatnonzero(done):
                # the end bankroll is the exact amount (correctly rounded)
                assert (300 + won[t]) / 10 == info["bankroll"][t], (rules, t, won[t])
                sessions += 1
                broke += bool(te[t])
            won[done] = 0
        assert sessions > 200 and broke > 20


def test_same_seed_same_arrays() -> None:
    def run() -> list[Any]:
        venv = BlackjackVectorEnv(16, **{**CONFIGS["bankroll-dict-insurance"]})
        rng = np.random.default_rng(4)
        obs, info = venv.reset(seed=123)
        out = [obs, info]
        for _ in range(60):
            a = rng.integers(venv.single_action_space.n, size=16)
            out.append(venv.step(a))
        return out

    first, second = run(), run()
    assert repr(first) == repr(second)


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_make_vec_counting_is_native_and_checked(mode: str) -> None:
    n = 6
    envs = gym.make_vec(COUNTING, num_envs=n, autoreset_mode=mode)
    assert isinstance(envs.unwrapped, BlackjackVectorEnv)
    single = gym.make(COUNTING)
    assert envs.single_action_space == single.action_space
    assert envs.single_observation_space == single.observation_space
    assert envs.metadata["autoreset_mode"].value == mode
    obs, info = envs.reset(seed=0)
    assert obs in envs.observation_space
    obs2, _ = envs.reset(seed=0)
    assert np.array_equal(obs, obs2)
    assert (info["phase"] == 2).all()  # every session opens with a bet
    rng = np.random.default_rng(0)
    rounds = np.zeros(n, dtype=np.int64)
    episodes = 0
    pending = np.zeros(n, dtype=bool)
    for _ in range(700):
        mask = envs.unwrapped.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        a = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, r, te, tr, info = envs.step(a)
        assert obs in envs.observation_space
        assert r.dtype == np.float64 and te.dtype == bool and tr.dtype == bool
        assert not te.any()  # unlimited credit: sessions end by truncation only
        if mode == "NextStep":
            assert (r[pending] == 0).all() and (info["phase"][pending] == 2).all()
            pending = te | tr
        rounds += info["round_over"]
        for t in np.flatnonzero(tr):
            assert rounds[t] == 100  # a session is 100 rounds
            rounds[t] = 0
            episodes += 1
            if mode == "SameStep":
                assert info["_final_obs"][t] and info["phase"][t] == 2
    assert episodes >= 1
    envs.close()


def test_random_sessions_agree_with_single_env() -> None:
    """Random legal play over short bankroll sessions: the mean session return of the
    native env and of the single env agree within a 99% interval."""
    kwargs = {"bet_sizes": (1, 2, 4, 8), "bankroll": 12, "rounds_per_episode": 4}
    single = random_legal_returns_single(kwargs, 1500, seed=3)
    batched = random_legal_returns_vector(kwargs, 20000, seed=4)
    assert_means_agree(single, batched)
