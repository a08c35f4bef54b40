"""BlackjackVectorEnv: registration, autoreset modes, determinism, shoes, errors, copies."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import blackjack_env
from blackjack_env.engine import Rules
from blackjack_env.envs.codes import BatchPhase
from blackjack_env.envs.single.env import BlackjackEnv
from blackjack_env.envs.vector import BlackjackVectorEnv, random_legal_actions

gym.register_envs(blackjack_env)


def test_make_vec_builds_the_batched_env_with_the_single_env_spaces() -> None:
    env = gym.make_vec("blackjack_env/Blackjack-v0", num_envs=16, obs_mode="vector")
    assert isinstance(env, BlackjackVectorEnv)
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    single = BlackjackEnv(obs_mode="vector")
    assert env.single_observation_space == single.observation_space
    assert env.single_action_space == single.action_space
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].shape == (16, 5) and info["action_mask"].dtype == np.int8


def _rollout(mode: str, seed: int, steps: int = 40, rules: str = "vegas-strip") -> list:
    env = BlackjackVectorEnv(32, rules=rules, autoreset_mode=mode)
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(99)
    out = [obs.copy()]
    for _ in range(steps):
        obs, r, te, tr, info = env.step(random_legal_actions(rng, info["action_mask"]))
        out.extend([obs.copy(), r.copy(), te.copy(), tr.copy(), info["action_mask"].copy()])
    return out


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
@pytest.mark.parametrize("rules", ["vegas-strip", "european-no-hole-card"])
def test_same_seed_same_trajectory(mode: str, rules: str) -> None:
    a, b = _rollout(mode, 3, rules=rules), _rollout(mode, 3, rules=rules)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    c = _rollout(mode, 4, rules=rules)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_next_step_autoreset_ignores_the_action_and_gives_reward_zero() -> None:
    env = BlackjackVectorEnv(64, autoreset_mode="NextStep")
    _, info = env.reset(seed=1)
    # stand everywhere: every round ends on this step (or was settled at the deal)
    _, r1, te1, tr1, info = env.step(np.zeros(64, dtype=np.int64))
    assert te1.all() and not tr1.any()
    assert np.array_equal(r1, info["round_net"])
    assert (info["phase"] == 3).all()  # SETTLED: the episode's last observation
    rounds_before = env.batch.rounds.copy()
    _, r2, te2, tr2, info = env.step(np.full(64, 2))  # ignored: every sub-env resets
    assert (r2 == 0).all() and not te2.any() and not tr2.any()
    assert (env.batch.rounds == rounds_before + 1).all()
    assert not info["illegal_action"].any()


def test_same_step_autoreset_gives_the_final_observation() -> None:
    env = BlackjackVectorEnv(64, autoreset_mode="SameStep")
    env.reset(seed=2)
    obs, _, te, _, info = env.step(np.zeros(64, dtype=np.int64))
    assert te.all() and info["_final_obs"].all()
    assert (info["final_obs"][:, 0] == 3).all()  # SETTLED
    assert np.array_equal(info["final_info"]["round_net"], info["round_net"])
    assert (env.batch.rounds == 2).all()  # the next round is already dealt
    assert ((obs[:, 0] == 0) | (env.batch.phase == BatchPhase.OVER)).all()  # PLAY or settled


def test_disabled_autoreset_requires_a_partial_reset() -> None:
    env = BlackjackVectorEnv(8, autoreset_mode="Disabled")
    env.reset(seed=3)
    _, _, te, _, _ = env.step(np.zeros(8, dtype=np.int64))
    assert te.all()
    with pytest.raises(ValueError, match="reset_mask"):
        env.step(np.zeros(8, dtype=np.int64))
    mask = np.zeros(8, dtype=bool)
    mask[:4] = True
    env.reset(options={"reset_mask": mask})
    with pytest.raises(ValueError, match="4, 5, 6, 7"):
        env.step(np.zeros(8, dtype=np.int64))


def test_finite_shoes_reshuffle_at_the_cut_card_and_conserve_cards() -> None:
    env = BlackjackVectorEnv(16, rules="single-deck-6to5", autoreset_mode="NextStep")
    _, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    cut = 0.5 * 52  # the preset's penetration
    ended = np.zeros(16, dtype=bool)
    dealt_at_end = np.zeros(16, dtype=np.int64)
    reshuffles = 0
    for _ in range(300):
        core = env.batch
        _, _, te, tr, info = env.step(random_legal_actions(rng, info["action_mask"]))
        # every row holds each of the 52 cards exactly once, whatever was dealt
        assert (np.sort(core.shoe, axis=1) == np.arange(52)).all()
        assert (info["shoe_remaining"] == 52 - core.pos).all()
        # a sub-env reset on this step reshuffled exactly when its cut card was out
        for t in np.flatnonzero(ended):
            assert bool(info["reshuffled"][t]) == (dealt_at_end[t] >= cut), t
            reshuffles += int(info["reshuffled"][t])
        ended = te | tr
        dealt_at_end = core.dealt.copy()
    assert reshuffles > 16 and core.mid_round_reshuffles.sum() == 0


def test_a_dry_shoe_refills_from_the_discards_mid_round() -> None:
    rules = blackjack_env.preset("single-deck-6to5", penetration=1.0)
    env = BlackjackVectorEnv(64, rules=rules, autoreset_mode="SameStep")
    _, info = env.reset(seed=5)
    for _ in range(400):  # hitting to the end: rounds run out of cards
        actions = np.where(info["action_mask"][:, 1] > 0, 1, 0)
        _, _, _, _, info = env.step(actions)
        assert (np.sort(env.batch.shoe, axis=1) == np.arange(52)).all()
    assert env.batch.mid_round_reshuffles.sum() > 0


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_dict_observations_stay_in_their_space(mode: str) -> None:
    env = BlackjackVectorEnv(32, obs_mode="dict", autoreset_mode=mode, insurance_decisions=True)
    obs, info = env.reset(seed=9)
    rng = np.random.default_rng(2)
    for _ in range(30):
        assert env.observation_space.contains(obs)
        obs, _, _, _, info = env.step(random_legal_actions(rng, info["action_mask"]))
        if "final_obs" in info:
            assert env.observation_space.contains(info["final_obs"])
        assert np.array_equal(obs["action_mask"], info["action_mask"])


def test_infinite_deck_reports_no_remaining_count() -> None:
    env = BlackjackVectorEnv(4, rules="sutton-barto", obs_mode="tuple")
    obs, info = env.reset(seed=6)
    assert (info["shoe_remaining"] == -1).all()
    assert isinstance(obs, tuple) and len(obs) == 3 and obs[0].shape == (4,)


def test_copies_continue_identically() -> None:
    env = BlackjackVectorEnv(32, autoreset_mode="SameStep")
    _, info = env.reset(seed=7)
    rng = np.random.default_rng(1)
    for _ in range(5):
        _, _, _, _, info = env.step(random_legal_actions(rng, info["action_mask"]))
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for _ in range(20):
        a = random_legal_actions(rng, info["action_mask"])
        ref = env.step(a)
        for twin in twins:
            got = twin.step(a)
            assert np.array_equal(ref[0], got[0]) and np.array_equal(ref[1], got[1])
        info = ref[4]


def test_unsupported_and_bad_arguments_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="one learner"):
        BlackjackVectorEnv(2, num_seats=3)
    with pytest.raises(ValueError, match="bankroll"):  # (bankrolls are supported: 0 is not)
        BlackjackVectorEnv(2, bankroll=0)
    with pytest.raises(ValueError, match="bet_sizes"):
        BlackjackVectorEnv(2, bet_sizes=(2, 1))
    with pytest.raises(ValueError, match="bet_raising"):
        BlackjackVectorEnv(2, rules=Rules(bet_raising=True))
    with pytest.raises(ValueError, match="autoreset_mode"):
        BlackjackVectorEnv(2, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="obs_mode"):
        BlackjackVectorEnv(2, obs_mode="pixels")  # the single env's message
    with pytest.raises(ValueError, match="num_envs"):
        BlackjackVectorEnv(0)
    env = BlackjackVectorEnv(3, illegal_action="raise")
    _, info = env.reset(seed=8)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(np.array([0, 7, 0]))
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(4, dtype=np.int64))
    illegal = np.argmin(info["action_mask"], axis=1)  # an illegal action where there is one
    has_illegal = info["action_mask"].min(axis=1) == 0
    if has_illegal.any():
        t = int(np.flatnonzero(has_illegal)[0])
        with pytest.raises(ValueError, match=f"sub-env {t}: action"):
            env.step(np.where(np.arange(3) == t, illegal, 0))
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"card": "AS"})
    with pytest.raises(ValueError, match="cannot read card"):
        env.reset(options={"cards": "AS ZZ"})


@pytest.mark.parametrize("decks", [1, 8])
def test_multidiscrete_count_field_is_the_bucketed_true_count(decks: int) -> None:
    """The batched multidiscrete count field (looked up by running count and unseen
    cards) is the Hi-Lo true count of the cards the learner has not seen, rounded half to
    even (Python's round of the float quotient) and clipped, plus 5, over whole shoes dealt
    to the last card: counts far from 0 and few cards left, where the bucket clips,
    included."""
    from blackjack_env.envs import view

    env = BlackjackVectorEnv(
        64, rules=Rules(decks=decks, penetration=1.0), obs_mode="multidiscrete"
    )
    obs, info = env.reset(seed=decks)
    rng = np.random.default_rng(decks)
    seen = set()
    for _ in range(300 * decks):
        hilo, unseen = env.batch.unseen_hilo()
        running = -hilo.astype(np.float64)
        tc = np.divide(running * 52.0, unseen, out=np.zeros(64), where=unseen > 0)
        expect = [min(5, max(-5, round(x))) + 5 for x in tc.tolist()]
        assert obs[:, view.MD_COUNT].tolist() == expect
        seen.update(obs[:, view.MD_COUNT].tolist())
        obs, _, _, _, info = env.step(random_legal_actions(rng, info["action_mask"]))
    assert seen == set(range(2 * view.BUCKET_CLIP + 1))  # every bucket, both clips


@pytest.mark.parametrize("obs_mode", ["dict", "vector"])
def test_same_step_final_obs_is_next_steps_last_observation(obs_mode: str) -> None:
    """``final_obs`` (SameStep) is the observation the ending step returns under NextStep
    (Gymnasium's convention), field by field: phase SETTLED and, in the dict's
    ``action_mask``, every action legal, as the single env's last observation (it once
    showed the mask of the decision before)."""
    same = BlackjackVectorEnv(64, autoreset_mode="SameStep", obs_mode=obs_mode)
    nxt = BlackjackVectorEnv(64, autoreset_mode="NextStep", obs_mode=obs_mode)
    same.reset(seed=5)
    nxt.reset(seed=5)
    stand = np.zeros(64, dtype=np.int64)  # every round ends on this step
    _, _, te, _, info = same.step(stand)
    last, _, te_next, _, _ = nxt.step(stand)
    assert te.all() and te_next.all()
    if obs_mode == "dict":
        assert (info["final_obs"]["phase"] == 3).all()
        assert (info["final_obs"]["action_mask"] == 1).all()
        for k, v in last.items():
            np.testing.assert_array_equal(info["final_obs"][k], v, err_msg=k)
    else:
        np.testing.assert_array_equal(info["final_obs"], last)
