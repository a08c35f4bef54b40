"""envs/step: the one step policy of the three envs, scalar and array forms agreeing."""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.engine import Table, preset
from blackjack_env.engine.play import Action as A
from blackjack_env.envs import step
from blackjack_env.envs.codes import BatchPhase
from blackjack_env.envs.step import Decision as D


def test_map_illegal_scalar_and_array_agree() -> None:
    cases = []
    for decision in (D.PLAY, D.INSURANCE):
        for legal in ((0, 1), (0,), (0, 1, 2, 3, 4), (0, 4)):
            for a in range(5):
                if a not in legal:
                    cases.append((a, decision, legal))
    a = np.array([c[0] for c in cases])
    dec = np.array([int(c[1]) for c in cases])
    hit = np.array([int(A.HIT) in c[2] for c in cases])
    got = step.array_map_illegal(a, np.ones(len(cases), dtype=bool), dec, hit)
    want = [step.map_illegal(c[0], c[1], c[2], 5) for c in cases]
    assert got.tolist() == want
    # the documented mapping: DOUBLE -> HIT when HIT is legal, else STAND; pre-peek: STAND
    assert step.map_illegal(int(A.DOUBLE), D.PLAY, (0, 1), 5) == int(A.HIT)
    assert step.map_illegal(int(A.DOUBLE), D.PLAY, (0,), 5) == int(A.STAND)
    assert step.map_illegal(int(A.HIT), D.INSURANCE, (0, 4), 5) == int(A.STAND)
    # legal actions pass through the array form
    none = np.zeros(len(cases), dtype=bool)
    assert step.array_map_illegal(a, none, dec, hit).tolist() == a.tolist()


@pytest.mark.parametrize("want", [5, 6, 7, 8, 0, 2])
def test_map_illegal_bet_scalar_and_array_agree(want: int) -> None:
    n_play = 5
    for allowed in (
        [True, True, False, False], [False, True, True, False], [False, False, False, True]
    ):
        legal = [n_play + i for i, ok in enumerate(allowed) if ok]
        scalar = step.map_illegal_bet(want, legal, n_play)
        array = step.array_map_illegal_bet(np.array([want - n_play]), np.array([allowed]))
        assert n_play + int(array[0]) == scalar


def test_table_action_and_decisions() -> None:
    assert step.table_action(D.INSURANCE, int(A.STAND)) is A.DECLINE
    assert step.table_action(D.PLAY, int(A.STAND)) is A.STAND
    assert step.table_action(D.INSURANCE, int(A.SURRENDER)) is A.SURRENDER
    a = np.array([0, 0, 4, 1])
    pre = np.array([True, False, True, False])
    assert step.array_table_actions(a, pre).tolist() == [
        int(step.table_action(D.INSURANCE if p else D.PLAY, int(x)))
        for x, p in zip(a, pre, strict=True)
    ]
    assert step.DECISION_BY_BATCH_PHASE[int(BatchPhase.DECIDE)] == D.PLAY
    assert step.DECISION_BY_BATCH_PHASE[int(BatchPhase.INSURE)] == D.INSURANCE
    assert step.DECISION_BY_BATCH_PHASE[int(BatchPhase.OVER)] == D.SETTLED
    from blackjack_env.engine.events import Phase

    assert [step.decision_of_phase(p) for p in Phase] == [
        {"BETTING": D.BET, "INSURANCE": D.INSURANCE, "PLAYER_TURNS": D.PLAY}.get(p.name, D.SETTLED)
        for p in Phase
    ]
    table = Table(preset("vegas-strip", seats=2), seed=0)
    assert step.learner_decision(table, 0) is D.BET
    table.bet(0, 1)
    table.bet(1, 1)
    table.deal()
    who = table.to_act
    if who is not None:
        assert step.learner_decision(table, who[0]) in (D.PLAY, D.INSURANCE)
        assert step.learner_decision(table, 1 - who[0]) is D.SETTLED


def test_one_message() -> None:
    names = ["STAND", "HIT", "DOUBLE"]
    msg = step.illegal_message(2, names, "PLAY", [0, 1], "sub-env 3: ")
    assert msg == (
        "sub-env 3: action 2 (DOUBLE) is not legal now (phase PLAY); legal actions: "
        "0 (STAND), 1 (HIT)"
    )
