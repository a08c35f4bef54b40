"""Scripted rounds through ``reset(options={"cards": ...})`` with exact rewards.

Casino deal order with one seat: player, dealer upcard, player, dealer hole card,
then every card in the order drawn. Each expected reward is worked out by hand in
the comment beside it (rewards are net chips divided by the base bet).
"""

from __future__ import annotations

import pytest

from blackjack_env.engine import Action, Outcome, Rules, preset
from blackjack_env.envs import BlackjackEnv, Decision

STAND, HIT, DOUBLE, SPLIT, SURRENDER, INSURE = (int(a) for a in Action if a <= Action.INSURE)


def run(env: BlackjackEnv, cards: str, actions: list[int], seed: int = 0):
    """Reset with stacked cards, play the actions; return (rewards, last info, first obs info)."""
    _, info0 = env.reset(seed=seed, options={"cards": cards})
    rewards = []
    info = info0
    for i, action in enumerate(actions):
        _, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        assert not info["illegal_action"], f"action {i} ({action}) was illegal"
        if terminated or truncated:
            assert i == len(actions) - 1, "episode ended before the scripted actions ran out"
            return rewards, info, info0
    raise AssertionError("episode did not end")


@pytest.fixture
def strip() -> BlackjackEnv:
    return BlackjackEnv(rules="vegas-strip", bet=10)


def test_double_win(strip: BlackjackEnv) -> None:
    # 5+6 = 11 v dealer 6+T = 16; double draws T -> 21; dealer draws 9 -> 25 bust: +2
    rewards, info, info0 = run(strip, "5S 6H 6D TC TD 9S", [DOUBLE])
    assert info0["action_mask"][DOUBLE] == 1
    assert rewards == [2.0]
    assert info["settlement"]["outcomes"] == (Outcome.WIN,)
    assert info["bankroll"] == 20.0  # unlimited credit: session net in chips


def test_double_loss(strip: BlackjackEnv) -> None:
    # 11 v T+9 = 19 (peeked, no blackjack); double draws 2 -> 13 loses double: -2
    rewards, info, _ = run(strip, "5S TH 6D 9C 2D", [DOUBLE])
    assert rewards == [-2.0]
    assert info["settlement"]["payouts"] == (-2.0,)


def test_split_hands_get_second_card_in_turn(strip: BlackjackEnv) -> None:
    # 8-8 v 6+T = 16. Split: hand 1 gets 3 (11), double gets T -> 21;
    # hand 2 then gets K (18), stand; dealer draws 4 -> 20: +2 and -1 = +1
    rewards, info, _ = run(strip, "8S 6H 8H TC 3C TD KD 4C", [SPLIT, DOUBLE, STAND])
    assert rewards == [0.0, 0.0, 1.0]
    s = info["settlement"]
    assert [[str(c) for c in h] for h in s["hands"]] == [["8S", "3C", "TD"], ["8H", "KD"]]
    assert s["outcomes"] == (Outcome.WIN, Outcome.LOSS)
    assert s["payouts"] == (2.0, -1.0)
    assert [str(c) for c in s["dealer"]] == ["6H", "TC", "4C"]


def test_surrender(strip: BlackjackEnv) -> None:
    # 16 v T+7 (late surrender after the peek): -0.5
    rewards, info, _ = run(strip, "TS TH 6D 7C", [SURRENDER])
    assert rewards == [-0.5]
    assert info["settlement"]["outcomes"] == (Outcome.SURRENDER,)


def test_push(strip: BlackjackEnv) -> None:
    # 18 v 9+9 = 18: push
    rewards, info, _ = run(strip, "TS 9H 8D 9C", [STAND])
    assert rewards == [0.0]
    assert info["settlement"]["outcomes"] == (Outcome.PUSH,)


def test_bust(strip: BlackjackEnv) -> None:
    # 16 v 9; hit K -> 26: -1, the dealer's hand does not matter
    rewards, info, _ = run(strip, "TS 9H 6D 8C KD", [HIT])
    assert rewards == [-1.0]
    assert info["settlement"]["outcomes"] == (Outcome.BUST,)


def test_blackjack_round_has_one_continue_step(strip: BlackjackEnv) -> None:
    # A+K v 9 up: paid 3:2 at once; the round still takes one step: +1.5
    obs, info = strip.reset(seed=0, options={"cards": "AS 9H KD 7C"})
    assert info["phase"] is Decision.SETTLED
    assert obs[0] == Decision.SETTLED and obs[1] == 21
    assert info["action_mask"].tolist() == [1, 1, 1, 1, 1]
    _, reward, terminated, _, info = strip.step(HIT)  # any action continues
    assert (reward, terminated, info["illegal_action"]) == (1.5, True, False)
    assert info["settlement"]["outcomes"] == (Outcome.BLACKJACK,)


def test_blackjack_six_to_five() -> None:
    env = BlackjackEnv(rules="single-deck-6to5", bet=5)
    rewards, _, _ = run(env, "AS 9H KD 7C", [STAND])
    assert rewards == [1.2]  # 6:5 on a natural


def test_dealer_blackjack_without_insurance_decisions(strip: BlackjackEnv) -> None:
    # T+9 v A up with K in the hole: insurance declined for the learner, the peek
    # finds blackjack, the round is over before the learner acts: -1
    _, info = strip.reset(seed=0, options={"cards": "TS AH 9D KC"})
    assert info["phase"] is Decision.SETTLED
    _, reward, terminated, _, info = strip.step(STAND)
    assert (reward, terminated) == (-1.0, True)
    assert info["settlement"]["insurance"] == 0.0


def test_insurance_against_dealer_blackjack() -> None:
    env = BlackjackEnv(rules="vegas-strip", bet=10, insurance_decisions=True)
    assert env.action_space.n == 6
    _, info = env.reset(seed=0, options={"cards": "TS AH 9D KC"})
    assert info["phase"] is Decision.INSURANCE
    assert info["action_mask"].tolist() == [1, 0, 0, 0, 0, 1]
    # insurance 5 chips pays 2:1 (+10), the hand loses 10: net 0
    _, reward, terminated, _, info = env.step(INSURE)
    assert (reward, terminated) == (0.0, True)
    assert info["settlement"]["insurance"] == 1.0
    assert info["settlement"]["payouts"] == (-1.0,)


def test_insurance_lost_then_hand_wins() -> None:
    env = BlackjackEnv(rules="vegas-strip", bet=10, insurance_decisions=True)
    # 19 v A+7: insurance lost (-0.5), then stand 19 v soft 18: +1 -> +0.5
    rewards, info, _ = run(env, "TS AH 9D 7C", [INSURE, STAND])
    assert rewards == [0.0, 0.5]
    assert info["settlement"]["insurance"] == -0.5


def test_even_money() -> None:
    env = BlackjackEnv(rules="vegas-strip", bet=10, insurance_decisions=True)
    # A+K v A up: even money pays 1:1 at once, whatever the hole card: +1
    rewards, info, info0 = run(env, "AS AH KD KC", [INSURE])
    assert info0["phase"] is Decision.INSURANCE
    assert rewards == [1.0]
    assert info["settlement"]["outcomes"] == (Outcome.EVEN_MONEY,)


def test_early_surrender_beats_dealer_blackjack() -> None:
    env = BlackjackEnv(rules=preset("vegas-strip", surrender="early"), bet=10)
    # 16 v T up, A in the hole: surrendered before the peek, half back: -0.5
    _, info = env.reset(seed=0, options={"cards": "TS TH 6D AC"})
    assert info["phase"] is Decision.INSURANCE
    assert info["action_mask"].tolist() == [1, 0, 0, 0, 1]
    _, reward, terminated, _, _ = env.step(SURRENDER)
    assert (reward, terminated) == (-0.5, True)


def test_no_hole_card_dealer_blackjack_takes_double() -> None:
    env = BlackjackEnv(rules="european-no-hole-card", bet=10)
    # 11 v A up, no hole card; double draws 9 -> 20; dealer's second card K = blackjack: -2
    rewards, info, _ = run(env, "5S AH 6D 9C KC", [DOUBLE])
    assert rewards == [-2.0]
    assert [str(c) for c in info["settlement"]["dealer"]] == ["AH", "KC"]


def test_multi_seat_casino_deal_order() -> None:
    env = BlackjackEnv(rules="vegas-strip", num_seats=3, seat=1, others="stand")
    # seat 0: 2C 2D; learner (seat 1): TS 7H; seat 2: 3C 3D; dealer 9H up, 8C hole
    _, info = env.reset(seed=0, options={"cards": "2C TS 3C 9H 2D 7H 3D 8C"})
    assert [str(c) for c in info["hands"][0]] == ["TS", "7H"]
    assert [str(c) for c in info["dealer"]] == ["9H"]  # hole card hidden
    table = env.table
    assert [str(c) for c in table.seats[0].hands[0].cards] == ["2C", "2D"]
    assert [str(c) for c in table.seats[2].hands[0].cards] == ["3C", "3D"]
    _, reward, terminated, _, _ = env.step(STAND)  # 17 v 17: push
    assert (reward, terminated) == (0.0, True)


def test_seats_before_learner_act_first() -> None:
    env = BlackjackEnv(rules="vegas-strip", num_seats=2, seat=1, others="dealer")
    # seat 0 holds 12 and hits (draws 5C) before the learner is asked
    _, info = env.reset(seed=0, options={"cards": "TC TS 9H 2D 7H 8C 5C"})
    assert [str(c) for c in env.table.seats[0].hands[0].cards] == ["TC", "2D", "5C"]
    assert info["phase"] is Decision.PLAY


def test_bet_step_then_round() -> None:
    env = BlackjackEnv(rules="vegas-strip", bet=5, bet_sizes=(1, 2, 4), bankroll=100,
                       obs_mode="vector", rounds_per_episode=3)
    assert env.action_names == ["STAND", "HIT", "DOUBLE", "SPLIT", "SURRENDER",
                                "BET_1", "BET_2", "BET_4"]
    _, info = env.reset(seed=0, options={"cards": "TS 9H TD 8C"})
    assert info["phase"] is Decision.BET
    assert info["action_mask"].tolist() == [0, 0, 0, 0, 0, 1, 1, 1]
    _, reward, _, _, info = env.step(7)  # bet 4 x 5 = 20 chips
    assert info["phase"] is Decision.PLAY and reward == 0.0
    assert info["bankroll"] == 80.0
    _, reward, terminated, truncated, info = env.step(STAND)  # 20 v 17: +20 chips = +4 bets
    assert (reward, terminated, truncated) == (4.0, False, False)
    assert info["phase"] is Decision.BET and info["round"] == 2
    assert info["bankroll"] == 120.0


def test_rounds_per_episode_truncates_and_broke_terminates() -> None:
    env = BlackjackEnv(rules="vegas-strip", bankroll=2, rounds_per_episode=5)
    # two busts in a row: the bankroll of 2 is gone, the episode terminates
    _, info = env.reset(seed=0, options={"cards": "TS 9H 6D 8C KD TD 9S 6C 8D KH"})
    _, r1, term, trunc, info = env.step(HIT)
    assert (r1, term, trunc, info["round"]) == (-1.0, False, False, 2)
    _, r2, term, trunc, info = env.step(HIT)
    assert (r2, term, trunc, info["bankroll"]) == (-1.0, True, False, 0.0)

    env = BlackjackEnv(rules="vegas-strip", rounds_per_episode=3)
    env.reset(seed=1)
    ends = []
    while True:
        _, _, term, trunc, info = env.step(STAND)
        if term or trunc:
            ends.append((term, trunc, info["settlement"]["round"]))
            break
    assert ends == [(False, True, 3)]


def test_custom_rules_object() -> None:
    rules = Rules(decks=2, surrender="late", max_split_hands=2)
    env = BlackjackEnv(rules=rules)
    rewards, _, _ = run(env, "TS TH 6D 7C", [SURRENDER])
    assert rewards == [-0.5]
