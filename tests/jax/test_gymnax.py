"""The pure JAX table as gymnax users meet it: gymnax's wrappers around ``gymnax_v1()``
(issue 33 item 21), the lean step ``info`` (22), the mask under a wrapper (23), the
spaces whatever the import order (24) and the step's input checks (14)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

jax = pytest.importorskip("jax")
gymnax = pytest.importorskip("gymnax")
import jax.numpy as jnp  # noqa: E402
from gymnax.environments import spaces as gspaces  # noqa: E402
from gymnax.wrappers import (  # noqa: E402
    FlattenObservationWrapper,
    GymnaxToGymWrapper,
    GymnaxToVectorGymWrapper,
    LogWrapper,
)

from blackjack_env.envs.view.fields import FEATURES_SIZE  # noqa: E402
from blackjack_env.jax import BlackjackJax  # noqa: E402
from blackjack_env.jax.env import FULL_INFO, LEAN_INFO  # noqa: E402
from tests.jax.jax_helpers import jax_env  # noqa: E402

#: three rounds an episode: episodes end truncated, never terminated
KW = {"rules": "vegas-strip", "decks": None, "rounds_per_episode": 3}


@pytest.fixture(scope="module")
def table() -> BlackjackJax:
    return jax_env("gymnax-3-rounds", **KW)


def test_gymnax_v1_slots_truncation_apart(table: BlackjackJax) -> None:
    """``GymnaxV1.step``: ``terminated`` and ``truncated`` each in its own slot (with
    three rounds an episode every end is a truncation; ``done`` had been put in the
    ``terminated`` slot); the info is the lean one plus ``final_observation``."""
    env = table.gymnax_v1()
    p = env.default_params
    step = jax.jit(env.step)
    _, st = env.reset(jax.random.PRNGKey(0), p)
    key = jax.random.PRNGKey(1)
    ends = 0
    for _ in range(40):
        key, k = jax.random.split(key)
        _, st, _, term, trunc, info = step(k, st, jnp.int32(0), p)
        assert not bool(term)
        ends += int(trunc)
        assert set(info) == {*LEAN_INFO, "final_observation"}
    assert ends >= 5
    full = table.gymnax_v1(full_info=True).step(jax.random.PRNGKey(2), st, jnp.int32(0), p)[-1]
    assert set(full) == {*LEAN_INFO, *FULL_INFO}


def test_gymnax_wrappers_around_gymnax_v1(table: BlackjackJax) -> None:
    """gymnax's four wrappers that apply to a discrete-action env take ``gymnax_v1()``:
    ``LogWrapper`` over ``FlattenObservationWrapper`` (PureJaxRL's pair) under ``jit``,
    and ``GymnaxToGymWrapper`` / ``GymnaxToVectorGymWrapper`` (whose ``deepcopy`` of the
    env recursed in ``__getattr__``), each stepped to episode ends."""
    base = table.gymnax_v1()
    env = LogWrapper(FlattenObservationWrapper(base))
    p = env.default_params
    obs, st = env.reset(jax.random.PRNGKey(0), p)
    assert obs.shape == (FEATURES_SIZE,)
    step = jax.jit(env.step)
    key = jax.random.PRNGKey(3)
    for _ in range(30):
        key, k = jax.random.split(key)
        obs, st, _, term, _, info = step(k, st, jnp.int32(1), p)
        assert not bool(term)
    assert bool(info["returned_episode_valid"])
    assert info["final_observation"].shape == (FEATURES_SIZE,)

    single = GymnaxToGymWrapper(base, seed=0)
    assert single.action_space.n == 5 and single.observation_space.shape == (FEATURES_SIZE,)
    single.reset(seed=1)
    truncs = 0
    for _ in range(30):
        _, _, term, trunc, _ = single.step(jnp.int32(0))
        assert not bool(term)
        truncs += int(trunc)
    assert truncs > 0

    vec = GymnaxToVectorGymWrapper(base, num_envs=8, seed=0)
    assert vec.single_action_space.n == 5
    obs, _ = vec.reset(seed=2)
    assert obs.shape == (8, FEATURES_SIZE)
    truncs = 0
    for _ in range(10):
        _, _, term, trunc, _ = vec.step(jnp.zeros(8, jnp.int32))
        assert not np.asarray(term).any()
        truncs += int(np.asarray(trunc).sum())
    assert truncs > 0


def test_mask_under_a_wrapper(table: BlackjackJax) -> None:
    """A wrapped user's mask: ``action_mask`` takes the wrapper's state (``LogEnvState``
    holding the table's as ``env_state``), the mask of the state ``reset`` returns; each
    step's ``info["action_mask"]`` is the next state's."""
    env = LogWrapper(FlattenObservationWrapper(table.gymnax_v1()))
    p = env.default_params
    _, st = env.reset(jax.random.PRNGKey(4), p)
    mask = env.action_mask(st)  # (through the wrappers' attribute lookup)
    np.testing.assert_array_equal(mask, table.action_mask(st.env_state))
    assert mask.dtype == jnp.bool_ and bool(mask[0]) and bool(mask[1])
    _, st, _, _, _, info = env.step(jax.random.PRNGKey(5), st, jnp.int32(0), p)
    np.testing.assert_array_equal(info["action_mask"], table.action_mask(st))
    with pytest.raises(ValueError, match=r"core\.State or a wrapper.s state"):
        table.action_mask({"x": 1})


def test_lean_info_bytes() -> None:
    """The pure step's ``info`` holds a few scalars and the mask: 13 bytes a table step
    in vector mode with 5 actions (89 before: the 68-byte ``final_observation``,
    ``round_net`` and ``action_played`` on every step; ``step_full`` gives them, 93
    bytes with ``round_chips``)."""
    table = BlackjackJax(rules="vegas-strip", obs_mode="vector")
    p = table.default_params
    _, st = table.reset(jax.random.PRNGKey(0), p)
    lean = table.step(jax.random.PRNGKey(1), st, 0, p)[-1]
    full = table.step_full(jax.random.PRNGKey(1), st, 0, p)[-1]
    size = {k: sum(x.nbytes for x in jax.tree.leaves(v)) for k, v in (("l", lean), ("f", full))}
    assert set(lean) == set(LEAN_INFO) and set(full) == {*LEAN_INFO, *FULL_INFO}
    assert size["l"] == 13 and size["f"] == 93


def test_spaces_are_gymnax_whatever_the_import_order() -> None:
    """Spaces made before ``import gymnax`` pass its ``isinstance`` checks (they were
    gymnax's classes only when gymnax was imported first)."""
    code = textwrap.dedent("""
        import sys
        from blackjack_env.jax import BlackjackJax
        env = BlackjackJax(rules="sutton-barto", decks=None, obs_mode="vector")
        a, o = env.action_space(), env.observation_space()
        assert "gymnax" not in sys.modules
        from gymnax.environments import spaces
        assert isinstance(a, spaces.Discrete) and isinstance(o, spaces.Box)
        assert not isinstance(a, spaces.Box)
        assert spaces.gymnax_space_to_gym_space(o).shape == (17,)
        print("ok", a.n)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["ok", "2"]
    assert isinstance(jax_env("gymnax-3-rounds", **KW).action_space(), gspaces.Discrete)


@pytest.mark.parametrize(
    ("action", "words"),
    [
        (1.5, "action 1.5 must be an integer"),
        (True, "action True must be an integer"),
        ("1", "action '1' must be an integer"),
        (jnp.float32(1.0), "action dtype float32 must be an integer dtype"),
        (jnp.array(True), "action dtype bool must be an integer dtype"),
        (jnp.zeros(2, jnp.int32), r"action shape \(2,\) must be \(\) \(one table\)"),
        (jnp.zeros(1, jnp.int32), r"action shape \(1,\) must be \(\)"),
    ],
)
def test_step_refuses_bad_actions(table: BlackjackJax, action: object, words: str) -> None:
    """The pure step's input checks (at trace time, under ``jit`` too): one
    ``ValueError`` line, where JAX gave deep tracebacks or silently played HIT."""
    p = table.default_params
    _, st = table.reset(jax.random.PRNGKey(0), p)
    with pytest.raises(ValueError, match=words):
        table.step(jax.random.PRNGKey(1), st, action, p)
    if not isinstance(action, (str, float, bool)):
        with pytest.raises(ValueError, match=words):
            jax.jit(table.step)(jax.random.PRNGKey(1), st, action, p)


def test_step_refuses_params_of_another_rule_set(table: BlackjackJax) -> None:
    """``sutton-barto``'s 2-action params on a vegas-strip state are named, not played."""
    other = jax_env("gymnax-sutton", rules="sutton-barto", decks=None)
    _, st = table.reset(jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match=r"params.mask_sets has shape .* another configuration"):
        table.step(jax.random.PRNGKey(1), st, 0, other.default_params)
    with pytest.raises(ValueError, match=r"params\.mask_sets"):
        table.reset(jax.random.PRNGKey(1), other.default_params)
    batch = jax.tree.map(lambda x: jnp.stack([x, x]), st)
    with pytest.raises(ValueError, match=r"state.shoe has shape \(2, 64\).*jax.vmap"):
        table.step(jax.random.PRNGKey(1), batch, 0)


@pytest.mark.parametrize("policy", ["map", "penalize"])
def test_out_of_range_actions_are_illegal(policy: str) -> None:
    """Inside ``jit`` an integer outside the action space cannot raise: it is flagged
    illegal, played under ``"map"`` as the nearest action in range is mapped (-1 as
    STAND, 9 as SURRENDER's mapping: HIT where legal), and penalised under
    ``"penalize"`` (the penalty taken, the round played out)."""
    env = jax_env(f"gymnax-range-{policy}", rules="vegas-strip", illegal_action=policy)
    p = env.default_params
    st = env.stack(env.new_state(), "TS 9H 5C 7D 8S")  # 15 against a 9
    _, st = env.start_round(jax.random.PRNGKey(0), st, p)
    for a, played in ((-1, 0), (9, 1), (2**31 - 1, 1)):
        _, _, r, _, info = env.step_full(jax.random.PRNGKey(1), st, jnp.int32(a), p)
        assert bool(info["illegal_action"])
        if policy == "map":
            assert int(info["action_played"]) == played
        else:
            assert bool(info["round_over"]) and float(r) == float(info["round_net"]) - 1.0
