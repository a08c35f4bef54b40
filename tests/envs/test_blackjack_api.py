"""API tests of BlackjackEnv: checkers, the generic checks of Gymnasium's own env
test suite for every registered id, masks, illegal actions, arguments, copies."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence

import blackjack_env
from blackjack_env.engine import Action, preset
from blackjack_env.envs import BlackjackEnv, Decision

ALL_IDS = list(blackjack_env.ENV_IDS)
MODES = ["tuple", "multidiscrete", "vector", "dict"]
STAND, HIT, DOUBLE, SPLIT, SURRENDER = range(5)


@pytest.fixture(autouse=True)
def _unpaced_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Gymnasium's checker renders in every mode of ``metadata``, ``human`` too, whose
    window keeps each frame on screen for 1 / ``render_fps`` s (0.5 s at 2 fps: about 1 s
    a check); no one watches these windows, so they run unpaced."""
    monkeypatch.setitem(BlackjackEnv.metadata, "render_fps", 10_000)


def _made(**kwargs) -> BlackjackEnv:
    """The unwrapped env made through the registry (so it has a spec, as check_env wants)."""
    return gym.make("blackjack_env/Blackjack-v0", disable_env_checker=True, **kwargs).unwrapped


def _messages(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught]


# ----------------------------------------------------------------- checkers
@pytest.mark.parametrize("mode", MODES)
def test_gymnasium_check_env_every_mode(mode: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(_made(obs_mode=mode))
    assert _messages(caught) == []


@pytest.mark.parametrize("mode", MODES)
def test_sb3_check_env_every_mode(mode: str) -> None:
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_check_env(_made(obs_mode=mode))
    messages = _messages(caught)
    if mode == "tuple":  # SB3's own note that it has no Tuple policy (as for Blackjack-v1)
        messages = [m for m in messages if "Tuple, this is currently not supported" not in m]
    assert messages == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_seats": 3, "seat": 1, "others": "never-bust", "obs_mode": "dict"},
        {"insurance_decisions": True, "bet_sizes": (1, 2, 4), "bankroll": 50, "obs_mode": "dict",
         "rounds_per_episode": 5},
        {"rules": preset("vegas-strip", surrender="early"), "obs_mode": "vector"},
        {"rules": "terminal-21", "obs_mode": "multidiscrete"},
        {"rules": "european-no-hole-card", "num_seats": 2, "others": "random"},
        {"illegal_action": "penalize"},
    ],
)
def test_check_env_other_configurations(kwargs: dict) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(_made(**kwargs))
    assert _messages(caught) == []


# ------------------------------------------- Gymnasium's generic env checks
@pytest.mark.parametrize("env_id", ALL_IDS)
def test_registered_checker_on_unwrapped(env_id: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = gym.make(env_id, disable_env_checker=True).unwrapped
        check_env(env)
        env.close()
    assert _messages(caught) == []


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_registered_passive_checker_no_warnings(env_id: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = gym.make(env_id)  # with the passive checker
        env.reset(seed=0)
        env.action_space.seed(0)
        for _ in range(300):
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                env.reset()
        env.close()
    assert _messages(caught) == []


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_registered_determinism_rollout(env_id: str) -> None:
    """Gymnasium's rollout check: 50 unmasked samples, two envs, same seed."""
    env_1 = gym.make(env_id, disable_env_checker=True)
    env_2 = gym.make(env_id, disable_env_checker=True)
    obs_1, info_1 = env_1.reset(seed=0)
    obs_2, info_2 = env_2.reset(seed=0)
    assert data_equivalence(obs_1, obs_2) and data_equivalence(info_1, info_2)
    env_1.action_space.seed(0)
    for step in range(50):
        action = env_1.action_space.sample()
        out_1 = env_1.step(action)
        out_2 = env_2.step(action)
        assert data_equivalence(out_1, out_2), f"step {step}"
        assert env_1.observation_space.contains(out_1[0])
        if out_1[2] or out_1[3]:
            env_1.reset(seed=0)
            env_2.reset(seed=0)


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_registered_pickle_and_render(env_id: str) -> None:
    env = gym.make(env_id, render_mode="rgb_array")
    env.reset(seed=3)
    clone = pickle.loads(pickle.dumps(env))
    action = env.action_space.sample()
    assert data_equivalence(env.step(action), clone.step(action))
    for e in (env, clone):
        frame = e.render()
        assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
        assert frame.ndim == 3 and frame.shape[2] == 3
    assert np.array_equal(env.render(), clone.render())


def test_make_without_prior_import_in_fresh_interpreter() -> None:
    code = (
        "import gymnasium as gym\n"
        "env = gym.make('blackjack_env:blackjack_env/Blackjack-v0')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(type(env.unwrapped).__name__, env.action_space)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "BlackjackEnv Discrete(5)"


def test_registration_is_idempotent() -> None:
    import importlib

    importlib.reload(blackjack_env)
    for env_id in ALL_IDS:
        assert env_id in gym.registry
    assert gym.spec("blackjack_env/Blackjack-v0").vector_entry_point == (
        "blackjack_env.envs.vector:BlackjackVectorEnv"
    )
    gym.register_envs(blackjack_env)


def test_gym_compatible_id_matches_blackjack_v1_spaces() -> None:
    ours = gym.make("blackjack_env/BlackjackSuttonBarto-v0")
    theirs = gym.make("Blackjack-v1", sab=True)
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space


# ------------------------------------------------------------ determinism
@pytest.mark.parametrize("mode", MODES)
def test_same_seed_same_trajectory_with_other_seats(mode: str) -> None:
    def rollout() -> list:
        env = BlackjackEnv(num_seats=4, seat=2, others="random", obs_mode=mode,
                           rounds_per_episode=20)
        env.action_space.seed(7)
        out = [env.reset(seed=11)]
        for _ in range(60):
            mask = env.action_masks().astype(np.int8)
            step = env.step(env.action_space.sample(mask=mask))
            out.append(step)
            if step[2] or step[3]:
                out.append(env.reset())
        return out

    assert data_equivalence(rollout(), rollout())


def test_different_seeds_differ() -> None:
    env = BlackjackEnv()
    firsts = {str(env.reset(seed=s)[1]["hands"]) for s in range(20)}
    assert len(firsts) > 10


# ------------------------------------------------------------------ masks
def test_mask_matches_engine_and_masked_actions_are_never_illegal() -> None:
    env = BlackjackEnv(num_seats=2, others="never-bust", insurance_decisions=True,
                       rounds_per_episode=None, bet_sizes=(1, 2, 5), bankroll=10_000)
    _, info = env.reset(seed=1)
    env.action_space.seed(1)
    seen_phases = set()
    for _ in range(3000):
        mask = env.action_masks()
        table = env.table
        phase = info["phase"]
        seen_phases.add(phase)
        if phase is Decision.PLAY:
            engine = {int(a) for a in table.legal_actions()}
            assert set(np.flatnonzero(mask)) == engine
        elif phase is Decision.INSURANCE:
            engine = table.legal_actions()
            assert mask[Action.INSURE] == (Action.INSURE in engine)
            assert mask[STAND] and not mask[HIT]
        elif phase is Decision.BET:
            assert not mask[:6].any() and mask[6:].any()
        action = env.action_space.sample(mask=mask.astype(np.int8))
        _, _, terminated, truncated, info = env.step(action)
        assert not info["illegal_action"] and info["action_played"] == action
        assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
        assert info["action_mask"].dtype == np.int8
        if terminated or truncated:
            _, info = env.reset()
    assert {Decision.PLAY, Decision.INSURANCE, Decision.BET} <= seen_phases


# ---------------------------------------------------------- illegal actions
def test_map_double_after_hit_plays_hit() -> None:
    env = BlackjackEnv()
    env.reset(seed=0, options={"cards": "2S 9H 3D 8C 4C"})  # 5, hit 4 -> 9
    _, _, _, _, info = env.step(HIT)
    assert not info["illegal_action"]
    _, _, terminated, _, info = env.step(DOUBLE)  # three cards: double not allowed -> hit
    assert info["illegal_action"] and info["action_played"] == HIT
    assert len(info["hands"][0]) == 4 and not terminated


@pytest.mark.parametrize("action", [SPLIT, SURRENDER])
def test_map_split_and_surrender_play_hit(action: int) -> None:
    env = BlackjackEnv(rules="downtown-h17")  # no surrender
    env.reset(seed=0, options={"cards": "2S 9H 3D 8C 4C"})
    _, _, _, _, info = env.step(action)
    assert info["illegal_action"] and info["action_played"] == HIT
    assert [str(c) for c in info["hands"][0]] == ["2S", "3D", "4C"]


def test_map_hit_on_split_aces_plays_stand() -> None:
    env = BlackjackEnv()
    env.reset(seed=0, options={"cards": "AS 9H AD 8C 5C KD 7S"})
    _, _, _, _, info = env.step(SPLIT)  # each ace gets one card: no decision remains
    assert info["phase"] is Decision.SETTLED


def test_map_bet_step() -> None:
    env = BlackjackEnv(bet_sizes=(1, 2, 4, 8), bankroll=5, rounds_per_episode=2)
    env.reset(seed=0)
    _, _, _, _, info = env.step(8)  # BET_8 with 5 chips: the largest allowed below is BET_4
    assert info["illegal_action"] and info["action_played"] == 7
    assert info["bankroll"] == 1.0
    env.reset(seed=0)
    _, _, _, _, info = env.step(HIT)  # a playing action at a bet step: smallest bet
    assert info["illegal_action"] and info["action_played"] == 5


def test_raise_mode_names_action_and_changes_nothing() -> None:
    env = BlackjackEnv(illegal_action="raise")
    env.reset(seed=0, options={"cards": "2S 9H 3D 8C 4C"})
    before = pickle.dumps(env.unwrapped.table)
    with pytest.raises(ValueError, match=r"action 3 \(SPLIT\) is not legal.*0 \(STAND\)"):
        env.step(SPLIT)
    assert pickle.dumps(env.unwrapped.table) == before
    _, _, _, _, info = env.step(HIT)
    assert [str(c) for c in info["hands"][0]] == ["2S", "3D", "4C"]


def test_penalize_mode_ends_round_with_penalty() -> None:
    env = BlackjackEnv(illegal_action="penalize", illegal_penalty=1.0)
    # 12 v 9+8 = 17; SPLIT is illegal: the round ends standing (12 loses, -1) minus 1 = -2
    env.reset(seed=0, options={"cards": "TS 9H 2D 8C"})
    _, reward, terminated, _, info = env.step(SPLIT)
    assert (reward, terminated, info["illegal_action"]) == (-2.0, True, True)
    assert info["settlement"]["net"] == -1.0


def test_penalize_ends_the_round_even_with_zero_penalty() -> None:
    env = BlackjackEnv(illegal_action="penalize", illegal_penalty=0.0)
    # 8-8 v 9: split, then hand 1 (8+3 = 11) gets an illegal SURRENDER (only the first
    # hand of an unsplit box may surrender). The round must end with every hand standing:
    # hand 1 = 11, hand 2 = 8 + 5 = 13; dealer 9 + 8 = 17: both lose, -1 -1 = -2.
    env.reset(seed=0, options={"cards": "8S 9H 8D 8C 3S 5D"})
    env.step(SPLIT)
    _, reward, terminated, _, info = env.step(SURRENDER)
    assert info["illegal_action"] is True
    assert terminated is True
    assert reward == -2.0


def test_out_of_space_actions_raise() -> None:
    env = BlackjackEnv()
    env.reset(seed=0)
    for bad in (5, -1, 2.0, "hit", True):
        with pytest.raises(ValueError, match="action"):
            env.step(bad)


def test_step_before_reset_and_after_end() -> None:
    env = BlackjackEnv()
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)
    env.reset(seed=0, options={"cards": "TS 9H 8D 9C"})
    env.step(STAND)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(STAND)


# -------------------------------------------------------------- arguments
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rules": "vegas"}, "unknown preset 'vegas'; presets are vegas-strip"),
        ({"rules": 3}, "must be a Rules or a preset name"),
        ({"num_seats": 9}, "seats=9 is not allowed"),
        ({"num_seats": 2, "seat": 2}, r"seat=2 must be an int from 0 to 1"),
        ({"obs_mode": "image"}, "obs_mode='image' is not allowed; choose one of 'tuple'"),
        ({"others": "genius", "num_seats": 2}, "unknown strategy 'genius'"),
        ({"others": ["dealer", "dealer"], "num_seats": 2}, "others has 2 entries"),
        ({"rounds_per_episode": 0}, "rounds_per_episode=0"),
        ({"bankroll": 0}, "bankroll=0 must be None"),
        ({"bet": 0}, r"bet=0 must be an int within the table limits 1..1000"),
        ({"bet_sizes": (2, 1)}, "strictly increasing"),
        ({"bet_sizes": (1, 5000)}, r"bet_sizes \[5000\]"),
        ({"illegal_action": "ignore"}, "illegal_action='ignore' is not allowed"),
        ({"illegal_penalty": -1}, "illegal_penalty"),
        ({"render_mode": "video"}, "render_mode='video' is not allowed"),
        ({"insurance_decisions": True, "rules": "european-no-hole-card"}, "offer insurance"),
        ({"obs_mode": "tuple", "bet_sizes": (1, 2)}, "obs_mode='tuple' cannot show"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        BlackjackEnv(**kwargs)


def test_gym_make_unknown_keyword_raises() -> None:
    with pytest.raises(ValueError, match=r"unknown argument\(s\) deck; BlackjackEnv takes rules"):
        gym.make("blackjack_env/Blackjack-v0", deck=4)


def test_bad_reset_options() -> None:
    env = BlackjackEnv()
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(seed=0, options={"card": "AS"})
    with pytest.raises(ValueError, match="'XS'"):
        env.reset(seed=0, options={"cards": "AS XS"})
    env = BlackjackEnv(rules="single-deck-6to5")
    with pytest.raises(ValueError, match="cannot stack AS"):
        env.reset(seed=0, options={"cards": "AS AS"})


def test_stacked_cards_do_not_leak_into_next_episode() -> None:
    env = BlackjackEnv(rules="single-deck-6to5")
    env.reset(seed=0, options={"cards": "TS 9H 8D 9C 2C 2D 2H 2S"})
    env.step(STAND)
    env.reset()
    table = env.unwrapped.table
    cards = sum(len(h.cards) for s in table.seats for h in s.hands) + len(table.dealer.cards)
    assert cards + table.shoe.remaining + len(table.shoe.discards) == 52  # conserved


# ---------------------------------------------------------------- copies
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copy_mid_round_continues_identically(how: str) -> None:
    env = BlackjackEnv(num_seats=3, seat=1, others="random", obs_mode="dict",
                       rounds_per_episode=50, insurance_decisions=True)
    env.reset(seed=5)
    env.action_space.seed(5)
    for _ in range(7):
        env.step(env.action_space.sample(mask=env.action_masks().astype(np.int8)))
    clone = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    rng = np.random.default_rng(0)
    for _ in range(100):
        legal = np.flatnonzero(env.action_masks())
        action = int(rng.choice(legal))
        a, b = env.step(action), clone.step(action)
        assert data_equivalence(a, b)
        if a[2] or a[3]:
            assert data_equivalence(env.reset(), clone.reset())


# ------------------------------------------------------- sessions and chips
def test_session_rewards_add_up_to_bankroll_change_and_cards_are_conserved() -> None:
    env = BlackjackEnv(rules="single-deck-6to5", bet=10, bet_sizes=(1, 2, 4), bankroll=2_000,
                       rounds_per_episode=None, insurance_decisions=True, num_seats=3,
                       others="random", obs_mode="dict")
    _, info = env.reset(seed=4)
    env.action_space.seed(4)
    total_reward = 0.0
    reshuffles = 0
    for _ in range(1500):
        action = env.action_space.sample(mask=env.action_masks().astype(np.int8))
        _, reward, terminated, truncated, info = env.step(action)
        total_reward += reward
        reshuffles += info["reshuffled"] and info["phase"] is Decision.BET
        table = env.table
        on_table = sum(len(h.cards) for s in table.seats for h in s.hands)
        on_table += len(table.dealer.cards)
        assert on_table + table.shoe.remaining + len(table.shoe.discards) == 52
        if terminated or truncated:
            break
    assert info["bankroll"] - 2_000 == pytest.approx(total_reward * 10)
    assert reshuffles > 5  # single deck, cut at half: the shoe was reshuffled between rounds


def test_render_collection_gives_equal_sized_frames() -> None:
    from gymnasium.wrappers import RenderCollection

    env = RenderCollection(gym.make("blackjack_env/Blackjack-v0", num_seats=2,
                                    render_mode="rgb_array", rounds_per_episode=3))
    env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        done = terminated or truncated
    frames = env.render()
    assert len(frames) >= 4
    assert len({f.shape for f in frames}) == 1


def test_human_mode_with_dummy_video_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = BlackjackEnv(render_mode="human")
    env.reset(seed=0)  # draws the first frame in a (dummy) window
    env.step(0)
    env.close()


def test_reset_mid_round_plays_the_round_out_and_starts_fresh() -> None:
    env = BlackjackEnv(rules="single-deck-6to5", bankroll=50, num_seats=2, others="dealer")
    env.reset(seed=0, options={"cards": "8S 2C 9H 8H 3C 7C"})  # learner 8-8 v 9: a decision
    env.step(SPLIT)  # mid-round, two hands
    _, info = env.reset()
    table = env.table
    assert info["round"] == 1 and info["bankroll"] == 49.0  # new session: 50 minus the new bet
    on_table = sum(len(h.cards) for s in table.seats for h in s.hands) + len(table.dealer.cards)
    assert on_table + table.shoe.remaining + len(table.shoe.discards) == 52


@pytest.mark.parametrize(
    "cards, match",
    [
        ("AS ZZ", "ZZ"),  # a bad token
        (["AS", 7], "7"),  # an item that is neither a Card nor text
        ("AS AS", "cannot stack AS"),  # a single deck holds one ace of spades
    ],
)
def test_refused_reset_changes_nothing_and_the_episode_goes_on(cards, match) -> None:
    env = BlackjackEnv(rules=preset("vegas-strip", decks=1), num_seats=2, seat=1)
    env.reset(seed=0)
    env.step(int(Action.STAND))
    env.reset(seed=5)  # a new episode, with its round dealt
    twin = copy.deepcopy(env)
    before = (env.table.shoe.remaining, list(env.table.events), env.table.phase)
    with pytest.raises(ValueError, match=match):
        env.reset(options={"cards": cards})
    # checked before anything changed: not played out, not abandoned
    assert (env.table.shoe.remaining, list(env.table.events), env.table.phase) == before
    for _ in range(6):  # the running episode goes on exactly as an untouched copy
        a = _first_legal(twin)
        out, ref = env.step(a), twin.step(a)
        assert _same(out, ref)
        if out[2] or out[3]:
            break
    _, info = env.reset(options={"cards": "AS 2C KH 9D 3C 7C"})
    assert [[str(c) for c in hand] for hand in info["hands"]] == [["2C", "3C"]]


def _first_legal(env: BlackjackEnv) -> int:
    return int(np.flatnonzero(env.action_masks())[0])


def _same(a, b) -> bool:
    return data_equivalence(a, b)


def test_settings_are_read_only_after_construction() -> None:
    env = BlackjackEnv(rules="vegas-strip", bet=5, bankroll=100, rounds_per_episode=3)
    assert (env.seat, env.bet, env.bankroll, env.rounds_per_episode) == (0, 5, 100, 3)
    for name, value in [("bet", 10), ("seat", 1), ("bankroll", 1), ("illegal_penalty", 2.0)]:
        with pytest.raises(AttributeError, match=name):
            setattr(env, name, value)  # would otherwise be silently ignored by the core
    assert env.bet == 5
