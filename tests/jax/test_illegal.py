"""The JAX table's illegal-action policies: ``"penalize"`` step by step against the numpy
batched env (same stacked cards, same actions, illegal ones included), ``"raise"`` refused
by the pure object and served on the host by the Gymnasium adapters with the numpy envs'
message and the state unchanged."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from blackjack_env.engine import Rules, preset  # noqa: E402
from blackjack_env.envs.vector import BlackjackVectorEnv  # noqa: E402
from blackjack_env.jax import BlackjackJax  # noqa: E402
from blackjack_env.jax.gym import BlackjackJaxEnv, BlackjackJaxVectorEnv  # noqa: E402
from tests.jax.jax_helpers import (  # noqa: E402
    PARITY_TABLES,
    PENALIZE,
    PureTables,
    batched_step,
    run_parity,
    table,
)

N_PARITY = 384
#: without bet steps (slow: the default run's penalised plays are those of
#: test_penalize_parity_bets_and_bankroll, at its playing steps)
PENALIZE_PLAY: dict[str, dict[str, Any]] = {
    # finite shoe, splits to 3 hands, early surrender at the pre-peek question and
    # insurance decisions: a penalised round is played out from every kind of decision
    "early-surrender-insurance": {
        "rules": Rules(decks=2, surrender="early", max_split_hands=3),
        "obs_mode": "vector",
        "insurance_decisions": True,
        "illegal_action": "penalize",
        "illegal_penalty": 0.5,
    },
}


PENALIZE_SLOW: dict[str, dict[str, Any]] = {
    "vegas-infinite-insurance": {
        "rules": preset("vegas-strip", decks=None), "obs_mode": "vector",
        "insurance_decisions": True, "illegal_action": "penalize",
    },
    "european-no-hole-multidiscrete": {
        "rules": preset("european-no-hole-card", decks=2), "obs_mode": "multidiscrete",
        "illegal_action": "penalize", "illegal_penalty": 2.0,
    },
    "halved-splits-one-deck": {
        "rules": Rules(decks=1, split_bet="halve", max_split_hands=2, surrender="late"),
        "obs_mode": "vector", "bet": 4, "illegal_action": "penalize", "illegal_penalty": 0.25,
    },
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PENALIZE_SLOW))
def test_penalize_parity_more_rules(name: str) -> None:
    kwargs = PENALIZE_SLOW[name]
    seen = run_parity(table(**kwargs), kwargs, n=512, seed=9)
    assert seen["ended"] == 512 and seen["illegal"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PENALIZE_PLAY))
def test_penalize_parity(name: str) -> None:
    kwargs = PENALIZE_PLAY[name]
    env = table(**kwargs)
    seen = run_parity(env, kwargs, n=N_PARITY, seed=5)
    assert seen["ended"] == N_PARITY
    assert seen["illegal"] > 20 and seen["split"] > 0 and seen["nonzero"] > 0


#: bet steps and a bankroll of 8 base bets over 5 rounds: illegal bets and illegal plays,
#: sessions that end broke, doubles / splits / insurance refused when not covered (the
#: shared penalize table, two decks and three hands)
PENALIZE_BETS: dict[str, Any] = {
    **PENALIZE, "rules": Rules(decks=2, max_split_hands=3, surrender="early"),
}  # fmt: skip


def test_penalize_parity_bets_and_bankroll() -> None:
    """``"penalize"`` with BET steps and a bankroll against the numpy vector env, several
    rounds per episode: rewards, chips (``info["bankroll"]``), masks, observations,
    played actions and episode ends agree at every step."""
    env = table(**PENALIZE_BETS)
    seen = run_parity(env, PENALIZE_BETS, n=PARITY_TABLES, seed=0)
    assert seen["ended"] == PARITY_TABLES and seen["split"] > 0 and seen["nonzero"] > 0
    assert seen["illegal_bet"] > 20 and seen["illegal"] - seen["illegal_bet"] > 20
    assert 0 < seen["truncated"] < seen["ended"]  # some sessions ended broke


def test_penalize_illegal_bet_places_the_mapped_bet() -> None:
    """At a BET step an illegal bet places the bet ``"map"`` chooses (the largest allowed
    size below it), then the round is played out standing (the single env's spec). At
    table 0 (the parity test's shapes): bet 4 and lose it with 16 against 19, bet 1 and
    lose it, then with 3 chips bet 4 (illegal): 2 is bet, 19 against a dealer 6 8 who
    draws a ten and busts wins 2, the reward is 2 - 0.5 and the chips 5. (The JAX table
    once played STAND there, which bets the smallest size, and reported STAND.)"""
    n = PARITY_TABLES
    cards = ["TS 9D 6C TH  TC 9S 6H TD  TS 6D 9C 8H TD"] + [None] * (n - 1)
    ref = BlackjackVectorEnv(n, autoreset_mode="SameStep", **PENALIZE_BETS)
    ref.reset(seed=0, options={"cards": cards})
    jx = PureTables(table(**PENALIZE_BETS), n)
    jx.reset(seed=0, options={"cards": cards})
    bet = jx.env.config.n_play  # bet sizes 1, 2, 4: actions bet, bet + 1, bet + 2
    script = [(bet + 2, 0.0, 8.0 - 4), (0, -4.0, 4.0), (bet, 0.0, 4.0 - 1), (0, -1.0, 3.0)]
    for k, (a, reward, chips) in enumerate([*script, (bet + 2, 2.0 - 0.5, 5.0)]):
        for _, r, te, _, info in (ref.step(np.full(n, a)), jx.step(np.full(n, a))):
            assert (float(r[0]), float(info["bankroll"][0]), bool(te[0])) == (reward, chips, False)
            assert bool(info["illegal_action"][0]) == (k == 4)
            assert int(info["action_played"][0]) == (bet + 1 if k == 4 else a)


def test_penalize_with_several_seats_refused_alike() -> None:
    """Both tables and the Gymnasium adapter refuse ``"penalize"`` with several seats, in
    the same one line (the settings' check)."""
    kwargs = {"seats_per_table": 3, "illegal_action": "penalize"}
    messages = set()
    for make in (
        lambda: BlackjackVectorEnv(6, **kwargs),
        lambda: BlackjackJax(**kwargs),
        lambda: BlackjackJaxVectorEnv(6, **kwargs),
    ):
        with pytest.raises(ValueError) as err:
            make()
        messages.add(str(err.value))
    assert messages == {
        "illegal_action='penalize' is not supported with seats_per_table=3; use 'map' or "
        "'raise' (as the multi-agent table)"
    }


def test_penalize_reward_is_round_net_minus_penalty() -> None:
    """An illegal play ends the round: reward = the round's net - penalty (the parity
    test's tables, so nothing compiles again). Table 0 bets one base bet (10 + 6 against
    a dealer 9, hole 7), then SPLITs, which is illegal: the 16 stands, and the dealer's
    16 draws a 5."""
    env = table(**PENALIZE_BETS)
    n = PARITY_TABLES
    p = env.stack_params([env.rules] * n)
    st = env.stack(env.new_state(n, p), "TS 9H 6D 7C 5S", table=0, params=p)
    _, st = env.start_round(jax.random.PRNGKey(0), st, p)
    bet = env.config.n_play  # (the first bet size: one base bet)
    keys = jax.random.split(jax.random.PRNGKey(1), n)
    # (the actions built and the outputs read on the host: indexing a JAX array op by op
    # compiles a slice per shape and dtype)
    _, st, _, _, info = batched_step(env)(keys, st, np.full(n, bet, np.int32), p)
    info = jax.device_get(info)
    assert not info["illegal_action"][0] and not info["round_over"][0]
    assert not np.asarray(env.action_mask(st, p))[0, 3]
    action = np.zeros(n, np.int32)
    action[0] = 3
    keys = jax.random.split(jax.random.PRNGKey(2), n)
    _, _, reward, _, info = jax.device_get(batched_step(env)(keys, st, action, p))
    assert info["round_over"][0] and info["illegal_action"][0]
    assert int(info["action_played"][0]) == 0
    assert float(info["round_net"][0]) == -1.0  # 16 stands, dealer 9 7 5 = 21
    assert float(reward[0]) == pytest.approx(-1.0 - PENALIZE_BETS["illegal_penalty"])


def test_raise_refused_by_pure_object() -> None:
    with pytest.raises(ValueError, match=r"illegal_action='raise' cannot .*'map' or 'penalize'"):
        BlackjackJax(rules="sutton-barto", illegal_action="raise")


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"illegal_penalty": -1.0}, "illegal_penalty"),
    ],
)
def test_bad_policy_arguments(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        BlackjackJax(rules="sutton-barto", **kwargs)


def test_vector_adapter_raises_on_host_state_unchanged() -> None:
    """The numpy vector env's words for the same decision (hard 16 v 9, SPLIT, both
    reset with these cards), and the state and key left as they were. (16 sub-envs in the
    default observation: make_vec's test's compiled functions.)"""
    opts = {"cards": ["TS 9H 6D 7C 5S"] + [None] * 15}
    ref = BlackjackVectorEnv(16, rules="vegas-strip", illegal_action="raise")
    ref.reset(seed=0, options=opts)
    env = BlackjackJaxVectorEnv(16, rules="vegas-strip", illegal_action="raise")
    env.reset(seed=3, options=opts)
    actions = np.zeros(16, np.int64)  # (STAND is legal at every table)
    actions[0] = 3
    with pytest.raises(ValueError) as np_err:
        ref.step(actions)
    before = (jax.tree.map(np.asarray, env.state), np.asarray(env._key))
    with pytest.raises(ValueError) as jx_err:
        env.step(actions)
    assert str(jx_err.value) == str(np_err.value)
    assert str(np_err.value).startswith("sub-env 0: action 3 (SPLIT) is not legal now")
    after = (jax.tree.map(np.asarray, env.state), np.asarray(env._key))
    for x, y in zip(jax.tree.leaves(before), jax.tree.leaves(after), strict=True):
        np.testing.assert_array_equal(x, y)
    # a legal step goes on
    _, _, _, _, info = env.step(np.zeros(16, np.int64))
    assert not info["illegal_action"].any()


def test_single_adapter_raises() -> None:
    env = BlackjackJaxEnv(rules="vegas-strip", illegal_action="raise")
    _, info = env.reset(seed=1)
    for _ in range(50):
        mask = info["action_mask"].astype(bool)
        if not mask.all():
            break
        _, _, done, _, info = env.step(0)
        if done:
            _, info = env.reset()
    bad = int((~mask).nonzero()[0][0])
    with pytest.raises(ValueError, match=rf"^action {bad} \(\w+\) is not legal now"):
        env.step(bad)
