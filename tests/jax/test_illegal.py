"""The JAX table's illegal-action policies: ``"penalize"`` step by step against the numpy
batched env (same stacked cards, same actions, illegal ones included), ``"raise"`` refused
by the pure object and served on the host by the Gymnasium adapters with the numpy envs'
message and the state unchanged."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from blackjack_env.engine import Rules  # noqa: E402
from blackjack_env.envs.step import illegal_message  # noqa: E402
from blackjack_env.envs.vector import BlackjackVectorEnv  # noqa: E402
from blackjack_env.jax import BlackjackJax  # noqa: E402
from blackjack_env.jax.gym import BlackjackJaxEnv, BlackjackJaxVectorEnv  # noqa: E402
from tests.jax.jax_helpers import jax_env, run_parity  # noqa: E402

PENALIZE: dict[str, dict[str, Any]] = {
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


@pytest.mark.parametrize("name", list(PENALIZE))
def test_penalize_parity(name: str) -> None:
    kwargs = PENALIZE[name]
    env = jax_env("penalize-" + name, **kwargs)
    seen = run_parity(env, kwargs, n=384, seed=5)
    assert seen["ended"] == 384
    assert seen["illegal"] > 20 and seen["split"] > 0 and seen["nonzero"] > 0


def test_penalize_reward_is_round_net_minus_penalty() -> None:
    """An illegal first action ends the round: reward = the round's net - penalty."""
    env = jax_env(
        "penalize-" + "early-surrender-insurance", **PENALIZE["early-surrender-insurance"]
    )
    p = env.default_params
    # 10 + 6 against a dealer 9 (hole 7): SPLIT is illegal; stand on 16, dealer 16 draws 5
    st = env.stack(env.new_state(), "TS 9H 6D 7C 5S")
    _, st = env.start_round(jax.random.PRNGKey(0), st, p)
    assert not bool(env.action_mask(st)[3])
    _, _, reward, done, info = env.step(jax.random.PRNGKey(1), st, 3, p)
    assert bool(done) and bool(info["illegal_action"]) and int(info["action_played"]) == 0
    assert float(info["round_net"]) == -1.0  # 16 stands, dealer 9 7 5 = 21
    assert float(reward) == pytest.approx(-1.5)


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


def _illegal_pick(mask: np.ndarray) -> tuple[int, int]:
    t = int((~mask).any(axis=1).nonzero()[0][0])
    return t, int((~mask[t]).nonzero()[0][0])


def test_vector_adapter_raises_on_host_state_unchanged() -> None:
    kw = {"rules": "vegas-strip", "illegal_action": "raise"}
    env = BlackjackJaxVectorEnv(8, **kw)
    twin = BlackjackJaxVectorEnv(8, **kw)
    _, info = env.reset(seed=3)
    twin.reset(seed=3)
    mask = info["action_mask"].astype(bool)
    t, bad = _illegal_pick(mask)
    actions = np.zeros(8, np.int64)
    actions[t] = bad
    ref_names = BlackjackVectorEnv(1, rules="vegas-strip").action_names
    want = illegal_message(bad, ref_names, "PLAY", mask[t].nonzero()[0].tolist(), f"sub-env {t}: ")
    with pytest.raises(ValueError) as err:
        env.step(actions)
    assert str(err.value) == want
    # nothing changed: the same legal step gives what the twin (never refused) gives
    a = np.zeros(8, np.int64)
    out, twin_out = env.step(a), twin.step(a)
    np.testing.assert_array_equal(out[0], twin_out[0])
    np.testing.assert_array_equal(out[1], twin_out[1])


def test_numpy_vector_env_message_is_the_same() -> None:
    """The numpy vector env raises the same words for the same decision (hard 16 v 9)."""
    ref = BlackjackVectorEnv(1, rules="vegas-strip", illegal_action="raise")
    ref.reset(seed=0, options={"cards": ["TS 9H 6D 7C 5S"]})
    with pytest.raises(ValueError) as np_err:
        ref.step(np.array([3]))
    env = BlackjackJaxVectorEnv(1, rules="vegas-strip", illegal_action="raise")
    env.reset(seed=0)
    env._state = env.table.stack(env.table.new_state(1), ["TS 9H 6D 7C 5S"])
    _, env._state = env.table.start_round(jax.random.PRNGKey(0), env._state)
    with pytest.raises(ValueError) as jx_err:
        env.step(np.array([3]))
    assert str(jx_err.value) == str(np_err.value)


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
