"""The PettingZoo AEC table: API conformance, determinism, scripted rounds, coupling."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

from blackjack_env.engine import preset
from blackjack_env.envs.multiagent import BlackjackAECEnv, env, raw_env

CONFIGS: list[dict[str, Any]] = [
    {},
    {"num_seats": 7, "rounds": 4},
    {"obs_mode": "vector", "insurance_decisions": True, "num_seats": 2, "rounds": 3},
    {"rules": "sutton-barto", "num_seats": 1, "obs_mode": "vector", "rounds": 3},
    {"obs_mode": "dict", "num_seats": 4, "others": {1: "dealer", 2: "random"}, "rounds": 3},
    {"rules": "european-no-hole-card", "num_seats": 5, "rounds": 2},
]


def _id(kwargs: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in kwargs.items()) or "default"


@pytest.mark.parametrize("kwargs", CONFIGS, ids=_id)
def test_pettingzoo_api_and_seed_tests(kwargs: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test warns that a dict observation is not an array
        api_test(env(**kwargs), num_cycles=100, verbose_progress=False)
        seed_test(functools.partial(env, **kwargs), num_cycles=100)


def _play(e: BlackjackAECEnv, actions: list[tuple[str, int]]) -> None:
    for agent, action in actions:
        assert e.agent_selection == agent
        e.step(action)


def test_shared_shoe_couples_the_seats() -> None:
    cards = "TS 9H 7C 6D 7S TH 5C 4D 8S"  # seat 0: T 6, seat 1: 9 7, dealer: 7 up, T hole
    # seat 0 hits: it takes the 5 (21, stands by itself); seat 1 then draws the 4
    e = raw_env(rules="vegas-strip", num_seats=2)
    e.reset(seed=1, options={"cards": cards})
    assert e.agents == ["seat_0", "seat_1"]
    _play(e, [("seat_0", 1), ("seat_1", 1), ("seat_1", 0)])
    assert [str(c) for c in e.table.seats[1].hands[0].cards] == ["9H", "7S", "4D"]
    assert e.rewards == {"seat_0": 1.0, "seat_1": 1.0}  # 21 and 20 against 17
    assert all(e.terminations.values())
    # seat 0 stands: the same 5 now goes to seat 1
    e = raw_env(rules="vegas-strip", num_seats=2)
    e.reset(seed=1, options={"cards": cards})
    _play(e, [("seat_0", 0), ("seat_1", 1)])
    assert [str(c) for c in e.table.seats[1].hands[0].cards] == ["9H", "7S", "5C"]
    assert e.rewards == {"seat_0": -1.0, "seat_1": 1.0}  # 16 and 21 against 17


def test_round_settled_at_the_deal_takes_one_acknowledging_step() -> None:
    e = raw_env(rules="vegas-strip", num_seats=2)
    e.reset(seed=2, options={"cards": "TS AH AC 6D KS KH"})  # seat 1 natural; dealer A-K
    assert e.agent_selection == "seat_0"
    obs = e.observe("seat_0")
    assert obs["observation"][0] == 3  # phase SETTLED
    assert obs["action_mask"].tolist() == [1, 1, 1, 1, 1]
    e.step(1)  # ignored
    expected = {"seat_0": -1.0, "seat_1": 0.0}  # a loss; a natural pushes a natural
    assert e.rewards == expected
    assert all(e.terminations.values())
    for agent in list(e.agents):  # dead agents are stepped out with None
        assert e.agent_selection == agent
        _, reward, term, _, _ = e.last()
        assert term and reward == expected[agent]
        e.step(None)
    assert e.agents == []


def test_reset_after_a_round_settled_at_the_deal_plays_the_new_round() -> None:
    e = raw_env(rules="vegas-strip", num_seats=1)
    e.reset(seed=2, options={"cards": "TS AH 6D KS"})  # 16 v A-K: settled at the peek
    assert e.observe("seat_0")["observation"][0] == 3  # SETTLED, awaiting the acknowledgement
    # reset before acknowledging; the new round (16 v 6) needs a decision
    e.reset(options={"cards": "TS 6H 6D 9S"})
    assert e.observe("seat_0")["observation"][0] == 0  # PLAY
    e.step(0)  # stand: 16 v 6-9 = 15, the dealer draws; the round is played, not skipped
    assert all(e.terminations.values())
    assert e.rewards["seat_0"] in (-1.0, 1.0)


@pytest.mark.parametrize(
    "cards, match",
    [("TS ZZ", "'ZZ'"), (["TS", 6], "cannot read card 6"), ("AS AS", "cannot stack AS")],
)
def test_refused_reset_changes_nothing_and_the_episode_goes_on(cards, match) -> None:
    e = raw_env(rules=preset("vegas-strip", decks=1), num_seats=2)
    e.reset(seed=1)
    remaining, agents, selected = e.table.shoe.remaining, list(e.agents), e.agent_selection
    events = list(e.table.events)
    with pytest.raises(ValueError, match=match):
        e.reset(options={"cards": cards})
    # checked before anything changed: the episode is neither played out nor abandoned
    assert (e.table.shoe.remaining, e.agents, e.agent_selection) == (remaining, agents, selected)
    assert e.table.events == events
    e.step(0)  # the running episode goes on
    e.reset(options={"cards": "TS 6H 6D 9S 7C"})
    assert e.agents == ["seat_0", "seat_1"]
    assert [str(c) for c in e.table.seats[0].hands[0].cards] == ["TS", "9S"]


def test_split_and_double_rewards_and_illegal_mapping() -> None:
    e = raw_env(rules="vegas-strip", num_seats=1)
    # seat 0: 8 8 against a 6 up (T hole). Split: 8 3, doubled with the T (21);
    # 8 K = 18, then an illegal SURRENDER plays as HIT: 9, bust. Dealer 6 T draws 6: bust.
    e.reset(seed=3, options={"cards": "8S 6C 8D TH 3C TD KS 9D 6H"})
    e.step(3)  # split
    e.step(2)  # double on 8 3
    e.step(4)  # surrender is not allowed after a split: plays as HIT
    assert e.infos["seat_0"]["illegal_action"] is True
    assert e.infos["seat_0"]["action_played"] == 1
    hands = [[str(c) for c in h.cards] for h in e.table.seats[0].hands]
    assert hands == [["8S", "3C", "TD"], ["8D", "KS", "9D"]]
    assert [str(c) for c in e.table.dealer.cards] == ["6C", "TH", "6H"]
    assert e.rewards["seat_0"] == 2.0 - 1.0  # the double wins 2, the bust loses 1
    assert e.terminations["seat_0"]


def test_fixed_seats_are_not_agents_and_chips_are_conserved() -> None:
    e = raw_env(num_seats=4, others={0: "dealer", 3: "never-bust"}, rounds=30)
    e.reset(seed=5)
    assert e.agents == ["seat_1", "seat_2"]
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(e.agents, 0.0)
    steps = 0
    while e.agents:
        agent = e.agent_selection
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    session = e.session_nets
    assert totals["seat_1"] == session[1] and totals["seat_2"] == session[2]
    assert sum(session) == -float(e.table.house)
    assert steps >= 30


def test_bad_arguments_raise() -> None:
    with pytest.raises(ValueError, match="seats"):
        raw_env(num_seats=8)
    with pytest.raises(ValueError, match="every seat"):
        raw_env(num_seats=1, others={0: "dealer"})
    with pytest.raises(ValueError, match="tuple"):
        raw_env(obs_mode="tuple")
    e = raw_env()
    e.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        e.step(7)


def test_render_test_and_the_one_text_renderer(capsys: pytest.CaptureFixture[str]) -> None:
    """PettingZoo's render_test (it asks for "human"); "ansi" returns the text drawn by
    blackjack_env.render.render_ansi, with each seat named by its agent."""
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: env(num_seats=3, others={1: "dealer"},
                                             render_mode=render_mode))
    e = raw_env(num_seats=3, others={1: "dealer"}, render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    assert "seat_0" in text and "seat_1 (fixed)" in text and "seat_2" in text
    assert "Blackjack - round 1" in text and "[??]" in text  # the hole card is face down
    capsys.readouterr()
    e = raw_env(num_seats=2, render_mode="human")
    e.reset(seed=3)
    assert "Blackjack - round 1" in capsys.readouterr().out
