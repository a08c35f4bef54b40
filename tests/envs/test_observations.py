"""Every field of every observation mode, on one scripted table worked out by hand.

Table: vegas-strip (6 decks), two seats, learner in seat 1, seat 0 always stands.
Deal: seat 0 2S, learner 8S, dealer 9H up, seat 0 3D, learner 8D, hole 8C.
Seen by the learner: 2S 8S 9H 3D 8D (the hole card is face down).
Hi-Lo running count +2 (the 2 and the 3); unseen cards 312 - 5 = 307;
true count 2 * 52 / 307.
"""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.envs import BlackjackEnv

CARDS = "2S 8S 9H 3D 8D 8C"
TRUE_COUNT = 2 * 52 / 307


def _env(mode: str) -> BlackjackEnv:
    env = BlackjackEnv(num_seats=2, seat=1, others="stand", obs_mode=mode)
    return env


def test_tuple() -> None:
    obs, _ = _env("tuple").reset(seed=0, options={"cards": CARDS})
    assert obs == (16, 9, 0)


def test_multidiscrete() -> None:
    env = _env("multidiscrete")
    obs, _ = env.reset(seed=0, options={"cards": CARDS})
    # phase, total, upcard, soft, can double, can split, can surrender, hand index, count + 5
    assert obs.tolist() == [0, 16, 9, 0, 1, 1, 1, 0, 5]
    assert env.observation_space.nvec.tolist() == [4, 32, 11, 2, 2, 2, 2, 4, 11]


def test_vector() -> None:
    obs, _ = _env("vector").reset(seed=0, options={"cards": CARDS})
    expected = [
        1, 0, 0, 0,  # phase PLAY
        16 / 31, 0, 9 / 10,  # total, soft, upcard
        1, 1, 1, 0,  # can double, split, surrender, insure
        0 / 3, 1 / 4, 2 / 12, 1,  # hand index, hands, cards, pair
        TRUE_COUNT / 10, 306 / 312,  # true count, undealt fraction (hole card is dealt)
    ]
    np.testing.assert_allclose(obs, np.array(expected, dtype=np.float32), rtol=1e-6)


def test_dict() -> None:
    env = _env("dict")
    obs, _ = env.reset(seed=0, options={"cards": CARDS})
    assert (obs["phase"], obs["player_total"], obs["soft"], obs["dealer_upcard"]) == (0, 16, 0, 9)
    assert (obs["hand_index"], obs["num_hands"]) == (0, 1)
    hand = np.zeros(13, dtype=np.int64)
    hand[7] = 2
    assert obs["hand_cards"].tolist() == hand.tolist()
    dealer = np.zeros(13, dtype=np.int64)
    dealer[8] = 1
    assert obs["dealer_cards"].tolist() == dealer.tolist()
    seats = np.zeros((2, 13), dtype=np.int64)
    seats[0, 1] = seats[0, 2] = 1
    seats[1, 7] = 2
    assert obs["seat_cards"].tolist() == seats.reshape(-1).tolist()
    unseen = np.full(13, 24)
    unseen[1] = unseen[2] = unseen[8] = 23
    unseen[7] = 22  # 8S and 8D seen; the hole 8C is still unseen
    assert obs["unseen_cards"].tolist() == unseen.tolist()
    assert obs["true_count"][0] == pytest.approx(TRUE_COUNT, rel=1e-6)
    assert obs["bet"][0] == 1.0 and obs["bankroll"][0] == 0.0
    assert obs["action_mask"].tolist() == [1, 1, 1, 1, 1]


def test_split_hand_index_and_revealed_dealer() -> None:
    env = _env("dict")
    env.reset(seed=0, options={"cards": CARDS + " 3C 9D"})
    obs, *_ = env.step(3)  # split: hand 1 gets 3C -> 11
    assert (obs["hand_index"], obs["num_hands"], obs["player_total"]) == (0, 2, 11)
    obs, *_ = env.step(0)  # stand; hand 2 gets 9D -> 17
    assert (obs["hand_index"], obs["num_hands"], obs["player_total"]) == (1, 2, 17)
    obs, _, terminated, _, _ = env.step(0)  # dealer 9+8 = 17 stands
    assert terminated and obs["phase"] == 3
    dealer = np.zeros(13, dtype=np.int64)
    dealer[8] = dealer[7] = 1  # the hole card is now seen
    assert obs["dealer_cards"].tolist() == dealer.tolist()
    # running count: +2 (2, 3) + 1 (3C) = +3; seen 2S 8S 9H 3D 8D 8C 3C 9D, unseen 312 - 8 = 304
    assert obs["true_count"][0] == pytest.approx(3 * 52 / 304, rel=1e-6)
