"""The Gymnasium adapters of the JAX table: ``make_vec`` / ``make`` of its id, numpy
arrays out, ``check_env`` on the single-table form, and the same games as the numpy
batched env in distribution (the parity tests compare them card by card)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

jax = pytest.importorskip("jax")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from blackjack_env.engine import Rules  # noqa: E402
from blackjack_env.envs import view  # noqa: E402
from blackjack_env.envs.vector import BlackjackVectorEnv  # noqa: E402
from blackjack_env.jax.gym import BlackjackJaxVectorEnv  # noqa: E402
from tests.jax.jax_helpers import SEATS, run_parity  # noqa: E402

ID = "blackjack_env.jax:blackjack_env/BlackjackJax-v0"


def test_make_vec_gives_numpy_arrays_and_the_numpy_spaces() -> None:
    env = gym.make_vec(ID, num_envs=16, rules="vegas-strip")
    with pytest.raises(gym.error.ResetNeeded, match="reset"):
        env.unwrapped.action_masks()
    # the adapter's default obs_mode is BlackjackJax's ("features", issue 33 item 20)
    ref = BlackjackVectorEnv(16, rules="vegas-strip", obs_mode="features")
    assert env.single_observation_space == ref.single_observation_space
    assert env.single_action_space == ref.single_action_space
    obs, info = env.reset(seed=3)
    assert isinstance(obs, np.ndarray) and obs.dtype == np.float32
    assert obs.shape == (16, view.FEATURES_SIZE)
    assert info["action_mask"].dtype == np.int8
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(30):
        mask = info["action_mask"].astype(bool)
        a = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, r, te, _tr, info = env.step(a)
        # sb3-contrib's action_masks(): the mask of the step's info (the state's now),
        # whatever the caller writes into that info
        legal = info["action_mask"].astype(bool)
        info["action_mask"][:] = 0
        assert np.array_equal(env.unwrapped.action_masks(), legal)
        info["action_mask"][:] = legal
        assert isinstance(r, np.ndarray) and r.dtype == np.float64
        assert obs in env.observation_space
        ended += int(te.sum())
        assert np.array_equal(r[~te], np.zeros((~te).sum()))
        assert ("final_obs" in info) == te.any()  # (as the numpy env: on an ending step)
        if te.any():
            assert info["final_obs"][te].shape == (int(te.sum()), view.FEATURES_SIZE)
    assert ended > 16
    # the same seed, the same games
    o1, _ = env.reset(seed=5)
    s1 = env.step(np.ones(16, np.int64))
    o2, _ = env.reset(seed=5)
    s2 = env.step(np.ones(16, np.int64))
    np.testing.assert_array_equal(o1, o2)
    for x, y in zip(s1[:4], s2[:4], strict=True):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match="sub-env 0: action 9 is outside the action space"):
        env.step(np.full(16, 9))


@pytest.mark.parametrize(
    "obs_mode", ["features", pytest.param("multidiscrete", marks=pytest.mark.slow)]
)
def test_single_table_passes_check_env(obs_mode: str) -> None:
    """The default observation (``"features"``: the shared default table's program)."""
    env = gym.make(ID, rules="vegas-strip", obs_mode=obs_mode, disable_env_checker=True)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=1)
    assert obs in env.observation_space
    total = 0
    for _ in range(50):
        obs, _r, te, _tr, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        total += te
        if te:
            obs, info = env.reset()
    assert total > 0
    # bad actions: the numpy single env's words; a 0-d int array is an action (as there)
    ref = gym.make("blackjack_env/Blackjack-v0", rules="vegas-strip", obs_mode=obs_mode)
    ref.reset(seed=1)
    with pytest.raises(ValueError, match=r"action array\(1.5\) must be an int in 0..4"):
        env.step(np.array(1.5))
    for bad in (7, -1, 1.0, True, "1", np.array([1])):
        with pytest.raises(ValueError) as jx_err:
            env.step(bad)
        with pytest.raises(ValueError) as np_err:
            ref.step(bad)
        assert str(jx_err.value) == str(np_err.value)
    env.reset(seed=2)
    assert env.step(np.array(0))[2] in (True, False)  # STAND, as a 0-d array


# ----------------------------------------------------------------- several seats
#: 3 learner seats per table: every action, a finite shoe, splits, the pre-peek question
#: seat by seat (the shared seats table, test_jax_seats')
SEATS3 = SEATS
#: tables of the seats adapters here (one compilation of the adapter's functions)
N_SEATS = 16


def test_vector_adapter_seats_parity() -> None:
    """``make_vec`` with ``seats_per_table=3`` against the numpy vector env: the same
    stacked cards (``reset(options={"cards": ...})``, at each table's seat-0 sub-env) and
    the same actions give, every step and sub-env, the same observations, rewards,
    terminations, truncations, masks, ``info["active"]``, played actions, illegal flags,
    round nets, tables and seats."""
    n = N_SEATS
    env = gym.make_vec(ID, num_envs=3 * n, **SEATS3)
    assert isinstance(env, BlackjackJaxVectorEnv)
    ref = BlackjackVectorEnv(3 * n, **SEATS3)
    assert env.single_observation_space == ref.single_observation_space
    assert env.observation_space == ref.observation_space
    seen = run_parity(env, SEATS3, n=n, seed=4)
    assert seen["ended"] == 3 * n
    assert seen["split"] > 0 and seen["illegal"] > 0 and seen["nonzero"] > 0
    # the same words as the numpy env for actions outside the space
    ref.reset(seed=0)
    for bad in (np.full(3 * n, 9), np.zeros(3, np.int64), np.zeros(3 * n)):
        with pytest.raises(ValueError) as jx_err:
            env.step(bad)
        with pytest.raises(ValueError) as np_err:
            ref.step(bad)
        assert str(jx_err.value) == str(np_err.value)


@pytest.mark.slow
@pytest.mark.parametrize("obs_mode", ["vector", "dict"])
def test_vector_adapter_parity_bets_bankroll(obs_mode: str) -> None:
    """One seat with BET steps, a bankroll and several rounds through ``make_vec``: every
    step's observation, reward, episode end, mask and ``info`` entry (``phase`` BET
    included, ``bankroll``, ``round``, ``shoe_remaining``, ``final_info``) as the numpy
    env's."""
    kwargs = {
        "rules": Rules(decks=2, surrender="early"), "obs_mode": obs_mode,
        "bet_sizes": (1, 2, 4), "rounds_per_episode": 4, "bankroll": 6,
        "insurance_decisions": True,
    }  # fmt: skip
    env = gym.make_vec(ID, num_envs=64, **kwargs)
    seen = run_parity(env, kwargs, n=64, seed=8)
    assert seen["ended"] == 64 and seen["illegal_bet"] > 0
    assert 0 < seen["truncated"] < seen["ended"]


@pytest.fixture(scope="module")
def strict_seats() -> BlackjackJaxVectorEnv:
    """16 tables of 3 seats, ``illegal_action="raise"`` (the parity test's tables: the
    same compiled functions)."""
    return BlackjackJaxVectorEnv(3 * N_SEATS, **{**SEATS3, "illegal_action": "raise"})


#: table 0: seats 15, 17, 11 against a 7; table 1: seat 0 a natural (done), seat 1 a
#: hard 16 (it acts first; a 5 is its next card: the step that hits is scripted too,
#: where the two envs' shoes would deal different cards), seat 2 17; the other tables
#: random
STRICT_CARDS = ["TS 9H 6D 7C 5S 8D 5C 9S", None, None, "AS TH 9D 7C KS 6D 8C TD 5H", None,
                None, *[None] * (3 * N_SEATS - 6)]  # fmt: skip


def _legal_elsewhere(actions: list[int], mask: np.ndarray) -> np.ndarray:
    """``actions`` for the first two tables (sub-envs 0..5), each other sub-env its first
    legal action."""
    out = mask.argmax(axis=1)
    out[: len(actions)] = actions
    return out


def _leaves(env: BlackjackJaxVectorEnv) -> list[np.ndarray]:
    return [np.asarray(x) for x in jax.tree.leaves((env.state, env._key))]


def test_vector_adapter_raise_names_the_seat_state_unchanged(
    strict_seats: BlackjackJaxVectorEnv,
) -> None:
    """``illegal_action="raise"`` with several seats: the acting seat's illegal action
    raises the numpy env's words naming its sub-env (here table 1's seat 1, sub-env 4);
    the waiting seats' actions are ignored, never refused; nothing changes."""
    env = strict_seats
    ref = BlackjackVectorEnv(3 * N_SEATS, **{**SEATS3, "illegal_action": "raise"})
    opts = {"cards": STRICT_CARDS}
    _, info_np = ref.reset(seed=0, options=opts)
    _, info = env.reset(seed=0, options=opts)
    np.testing.assert_array_equal(info["active"][:6], [1, 0, 0, 0, 1, 0])
    np.testing.assert_array_equal(info["active"][:6], info_np["active"][:6])
    # only sub-env 4's SPLIT (hard 16) is played at the first two tables (the other
    # tables play a legal action: their shoes differ from the numpy env's)
    actions = _legal_elsewhere([0, 3, 4, 3, 3, 3], info["action_mask"])
    with pytest.raises(ValueError) as np_err:
        ref.step(actions)
    before = _leaves(env)
    with pytest.raises(ValueError) as jx_err:
        env.step(actions)
    assert str(jx_err.value) == str(np_err.value)
    assert str(jx_err.value).startswith("sub-env 4: action 3 (SPLIT) is not legal now")
    for x, y in zip(before, _leaves(env), strict=True):
        np.testing.assert_array_equal(x, y)
    # the waiting seats' actions, illegal for them if they acted, are ignored
    actions[4] = 1
    obs, r, te, _, info = env.step(actions)
    obs_np, r_np, te_np, _, info_np = ref.step(_legal_elsewhere(list(actions[:6]),
                                                                info_np["action_mask"]))
    six = slice(0, 6)  # (the scripted tables)
    np.testing.assert_allclose(obs[six], obs_np[six], atol=1e-6)
    np.testing.assert_array_equal(r[six], r_np[six])
    np.testing.assert_array_equal(te[six], te_np[six])
    np.testing.assert_array_equal(info["active"][six], info_np["active"][six])
    assert not info["illegal_action"].any()
    np.testing.assert_array_equal(info["action_played"], actions)


def test_vector_adapter_reset_mask_whole_tables(strict_seats: BlackjackJaxVectorEnv) -> None:
    """``reset_mask`` as the numpy env's: whole tables only (its words; nothing changes
    when refused); the masked table starts a new episode from the same shoe (the round
    in play is played out first), the other keeps its state."""
    env = strict_seats
    ref = BlackjackVectorEnv(3 * N_SEATS, **SEATS3)
    env.reset(seed=1, options={"cards": STRICT_CARDS})
    ref.reset(seed=1)
    half = np.zeros(3 * N_SEATS, bool)
    half[[0, 2]] = True
    with pytest.raises(ValueError) as np_err:
        ref.reset(options={"reset_mask": half})
    before = _leaves(env)
    with pytest.raises(ValueError) as jx_err:
        env.reset(options={"reset_mask": half})
    assert str(jx_err.value) == str(np_err.value)
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"bogus": 1})
    for x, y in zip(before, _leaves(env), strict=True):
        np.testing.assert_array_equal(x, y)
    st0 = jax.tree.map(np.asarray, env.state)
    # table 1 (a round in play: seat 1 to act) is reset without a seed, with new cards
    mask = np.zeros(3 * N_SEATS, bool)
    mask[3:6] = True
    cards: list[str | None] = [None] * (3 * N_SEATS)
    cards[3] = "TC 8H 9S 5D 5H 2C 7H QD"
    obs, info = env.reset(options={"reset_mask": mask, "cards": cards})
    st1 = jax.tree.map(np.asarray, env.state)
    others = np.arange(N_SEATS) != 1
    for name, a in st0._asdict().items():  # the other tables untouched
        np.testing.assert_array_equal(getattr(st1, name)[others], a[others], err_msg=name)
    assert st1.rounds[1] == st0.rounds[1] + 1  # the same shoe: its next round
    assert int(st1.dealt[1]) > int(st0.dealt[1])  # (no reshuffle: the cards went on)
    np.testing.assert_array_equal(info["active"][:6], [1, 0, 0, 1, 0, 0])
    np.testing.assert_array_equal(info["table"], np.arange(3 * N_SEATS) // 3)
    np.testing.assert_array_equal(info["seat"], np.arange(3 * N_SEATS) % 3)
    # table 1 was dealt the stacked cards, as the numpy env deals them (the shoes differ:
    # the count fields are not compared)
    ref_obs, _ = ref.reset(options={"reset_mask": mask, "cards": cards})
    cols = np.setdiff1d(np.arange(view.VECTOR_SIZE), [view.VEC_TRUE_COUNT, view.VEC_SHOE])
    np.testing.assert_allclose(obs[3:6, cols], ref_obs[3:6, cols], atol=1e-6)
    assert obs[3, view.VEC_TOTAL] == pytest.approx(15 / view.MAX_TOTAL)  # T 5 against a 5
