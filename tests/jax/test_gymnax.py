"""The pure JAX table as gymnax users meet it: gymnax's wrappers around ``gymnax_v1()``
(issue 33 item 21), the lean step ``info`` (22; ``gymnax_v1()``'s too, issue 38), the
mask under a wrapper (23), the spaces whatever the import order (24), pickled whatever
the import order and converted by gymnax in every mode (issue 38), and the step's input
checks (14).

gymnax is required where it is installed: the module skips only when gymnax itself is
missing. (gymnax imports ``six`` without declaring it; with ``importorskip`` this whole
file was skipped on a fresh install, the test extra now names ``six``.)"""

from __future__ import annotations

import copy
import importlib.util
import pickle
import subprocess
import sys
import textwrap
from functools import cache
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
if importlib.util.find_spec("gymnax") is None:
    pytest.skip("gymnax is not installed (the test extra)", allow_module_level=True)
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
from blackjack_env.jax.gymnax import FULL_INFO, LEAN_INFO  # noqa: E402
from tests.jax.jax_helpers import (  # noqa: E402
    BANKROLL,
    BETS,
    FEATURES,
    INFINITE,
    PENALIZE,
    TUPLE,
    table,
)

#: the entries gymnax's LogWrapper adds to the info
LOG_KEYS = ("returned_episode_returns", "returned_episode_lengths", "timestep",
            "returned_episode", "returned_episode_valid")  # fmt: skip
#: the shared bets table: three rounds an episode (episodes end truncated, never
#: terminated), a BET step opening each round, the "features" observation
KW = BETS


@pytest.fixture(scope="module", name="table")
def three_rounds() -> BlackjackJax:
    return table(**KW)


def test_gymnax_v1_slots_truncation_apart(table: BlackjackJax) -> None:
    """``GymnaxV1.step``: ``terminated`` and ``truncated`` each in its own slot (with
    three rounds an episode every end is a truncation; ``done`` had been put in the
    ``terminated`` slot); the info is the lean one (``final_observation`` empty unless
    asked)."""
    env = table.gymnax_v1()
    p = env.default_params
    step = env.step  # (eager: the table's own compiled step)
    _, st = env.reset(jax.random.PRNGKey(0), p)
    key = jax.random.PRNGKey(1)
    ends = 0
    for _ in range(60):  # (STAND: at a BET step the mapped bet)
        key, k = jax.random.split(key)
        _, st, _, term, trunc, info = step(k, st, jnp.int32(0), p)
        assert not bool(term)
        ends += int(trunc)
        assert set(info) == {*LEAN_INFO, "final_observation"}
        assert info["final_observation"].shape == (0,)
    assert ends >= 5
    stand = jnp.int32(0)
    asked = table.gymnax_v1(final_observation=True).step(jax.random.PRNGKey(2), st, stand, p)[-1]
    assert set(asked) == {*LEAN_INFO, "final_observation"}
    assert asked["final_observation"].shape == (FEATURES_SIZE,)
    full = table.gymnax_v1(full_info=True).step(jax.random.PRNGKey(2), st, jnp.int32(0), p)[-1]
    assert set(full) == {*LEAN_INFO, *FULL_INFO}


def test_gymnax_wrappers_around_gymnax_v1(table: BlackjackJax) -> None:
    """gymnax's four wrappers that apply to a discrete-action env take ``gymnax_v1()``:
    ``LogWrapper`` over ``FlattenObservationWrapper`` (PureJaxRL's pair) vmapped over 32
    tables under ``jit`` (each ended episode's logged return is the sum of its rewards),
    and ``GymnaxToGymWrapper`` / ``GymnaxToVectorGymWrapper`` (whose ``deepcopy`` of the
    env recursed in ``__getattr__``), each stepped to episode ends."""
    base = table.gymnax_v1(final_observation=True)
    env = LogWrapper(FlattenObservationWrapper(base))
    p = env.default_params
    assert env.observation_space(p).shape == (FEATURES_SIZE,)
    assert env.action_space(p).n == table.num_actions
    n = 32
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))  # (one program; vmap alone
    # broadcasts each unbatched output op by op)
    obs, st = reset(jax.random.split(jax.random.PRNGKey(0), n), p)
    assert obs.shape == (n, FEATURES_SIZE)
    step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
    key = jax.random.PRNGKey(3)
    returns, ended = np.zeros(n), 0
    for _ in range(30):  # (HIT; at a BET step the mapped bet)
        key, k = jax.random.split(key)
        obs, st, r, term, _, info = step(jax.random.split(k, n), st, jnp.ones(n, jnp.int32), p)
        assert not np.asarray(term).any()
        returns += np.asarray(r)
        done = np.asarray(info["returned_episode"])
        np.testing.assert_allclose(np.asarray(info["returned_episode_returns"])[done],
                                   returns[done], atol=1e-5)  # fmt: skip
        returns[done] = 0.0
        ended += int(done.sum())
    assert ended > n and np.asarray(info["returned_episode_valid"]).all()
    assert info["final_observation"].shape == (n, FEATURES_SIZE)

    single = GymnaxToGymWrapper(base, seed=0)
    assert single.action_space.n == table.num_actions
    assert single.observation_space.shape == (FEATURES_SIZE,)
    single.reset(seed=1)
    truncs = 0
    for _ in range(30):
        _, _, term, trunc, _ = single.step(jnp.int32(0))
        assert not bool(term)
        truncs += int(trunc)
    assert truncs > 0

    vec = GymnaxToVectorGymWrapper(base, num_envs=8, seed=0)
    assert vec.single_action_space.n == table.num_actions
    obs, _ = vec.reset(seed=2)
    assert obs.shape == (8, FEATURES_SIZE)
    truncs = 0
    for _ in range(16):
        _, _, term, trunc, _ = vec.step(jnp.zeros(8, jnp.int32))
        assert not np.asarray(term).any()
        truncs += int(np.asarray(trunc).sum())
    assert truncs > 0


def test_a_deep_copy_shares_the_arrays(table: BlackjackJax) -> None:
    """gymnax's Gym wrappers deep-copy the env they wrap: the copy shares the params'
    JAX arrays (immutable; copying each compiled a ``copy`` program per shape and dtype,
    about 20) and copies the rest (a change to the copy leaves the table as it was)."""
    env = table.gymnax_v1()
    back = copy.deepcopy(env)
    assert type(back) is type(env) and back.final_observation == env.final_observation
    ours, theirs = jax.tree.leaves(table.default_params), jax.tree.leaves(back.default_params)
    assert len(ours) > 10 and all(a is b for a, b in zip(ours, theirs, strict=True))
    assert back.program == table.program and back.settings is not table.settings
    alone = copy.deepcopy(table)  # (the table itself: a change to the copy stays there)
    assert type(alone) is type(table) and alone is not table
    alone.illegal_penalty = 5.0
    assert table.illegal_penalty != 5.0
    pair = copy.deepcopy([table, table])  # (one copy, shared in the list)
    assert pair[0] is pair[1] and pair[0] is not table


@cache
def log_features() -> Any:
    """PureJaxRL's pair of gymnax wrappers around the shared default table's lean
    ``gymnax_v1()`` (one instance: its jitted ``reset`` and ``step``, keyed on the
    instance, compile once for the tests that use it)."""
    return LogWrapper(FlattenObservationWrapper(table(**FEATURES).gymnax_v1()))


def test_mask_under_a_wrapper() -> None:
    """A wrapped user's mask: ``action_mask`` takes the wrapper's state (``LogEnvState``
    holding the table's as ``env_state``), the mask of the state ``reset`` returns; each
    step's ``info["action_mask"]`` is the next state's."""
    env, table_ = log_features(), table(**FEATURES)
    p = env.default_params
    _, st = env.reset(jax.random.PRNGKey(4), p)
    mask = env.action_mask(st)  # (through the wrappers' attribute lookup)
    np.testing.assert_array_equal(mask, table_.action_mask(st.env_state))
    assert mask.dtype == jnp.bool_ and np.asarray(mask)[:2].all()  # (read on the host)
    _, st, _, _, _, info = env.step(jax.random.PRNGKey(5), st, jnp.int32(0), p)
    np.testing.assert_array_equal(info["action_mask"], table_.action_mask(st))
    with pytest.raises(ValueError, match=r"the table.s State or a wrapper.s state"):
        table_.action_mask({"x": 1})


def test_lean_info_bytes() -> None:
    """The pure step's ``info`` holds a few scalars and the mask: 13 bytes a table step
    with 5 actions, whatever the observation (89 before in vector mode: the 68-byte
    ``final_observation``, ``round_net`` and ``action_played`` on every step;
    ``step_full`` gives them, with ``round_chips``: 12 bytes and the observation, 93 in
    vector mode, 317 in ``"features"``, the shared default table's)."""
    table_ = table(**FEATURES)
    p = table_.default_params
    # the infos' entries, shapes and dtypes as the compiled steps return them
    # (jax.eval_shape traces the same functions, compiling nothing)
    st = jax.eval_shape(table_.reset, jax.random.PRNGKey(0), p)[1]
    args = (jax.random.PRNGKey(1), st, jnp.int32(0), p)
    lean = jax.eval_shape(table_.step, *args)[-1]
    full = jax.eval_shape(table_.step_full, *args)[-1]

    def nbytes(x: Any) -> int:
        return int(np.prod(x.shape)) * x.dtype.itemsize

    size = {k: sum(nbytes(x) for x in jax.tree.leaves(v)) for k, v in (("l", lean), ("f", full))}
    assert set(lean) == set(LEAN_INFO) and set(full) == {*LEAN_INFO, *FULL_INFO}
    assert size["l"] == 13 and size["f"] == 13 + 12 + 4 * FEATURES_SIZE


def test_gymnax_v1_info_is_lean_unless_asked() -> None:
    """Issue 38: ``gymnax_v1()``'s step put the 292-byte ``final_observation`` (73
    float32, ``"features"``) in every step's ``info``: 305 bytes a step, about 3 GB of
    metrics over 10M steps under gymnax's ``LogWrapper``. It is off by default, as in
    the plain ``step`` (13 bytes, the same entries and values; the key is kept, empty,
    for gymnax's ``FlattenObservationWrapper``, which reads it), and given when asked
    (``final_observation=True``: the full step's final observation), under gymnax's
    PureJaxRL pair of wrappers too."""
    table_ = table(**FEATURES)
    assert table_.obs_mode == "features"
    p = table_.default_params
    _, st = table_.reset(jax.random.PRNGKey(0), p)
    k = jax.random.PRNGKey(1)
    plain = table_.step(k, st, jnp.int32(0), p)[-1]
    size = {}
    for asked in (False, True):
        env = LogWrapper(FlattenObservationWrapper(table_.gymnax_v1(final_observation=True)))
        if not asked:
            env = log_features()  # (the lean one: test_mask_under_a_wrapper's)
        _, wst = env.reset(jax.random.PRNGKey(0), p)
        info = env.step(k, wst, jnp.int32(0), p)[-1]
        assert set(info) - {*LEAN_INFO, "final_observation"} <= set(LOG_KEYS)
        ours = {key: v for key, v in info.items() if key not in LOG_KEYS}
        size[asked] = sum(x.nbytes for x in jax.tree.leaves(ours))
        for key in LEAN_INFO:
            np.testing.assert_array_equal(ours[key], plain[key], err_msg=key)
    assert size == {False: 13, True: 13 + 4 * FEATURES_SIZE}
    direct = table_.gymnax_v1(final_observation=True).step(k, st, jnp.int32(0), p)[-1]
    full = table_.step_full(k, st, jnp.int32(0), p)[-1]
    np.testing.assert_array_equal(direct["final_observation"], full["final_observation"])
    assert table_.gymnax_v1().step(k, st, jnp.int32(0), p)[-1]["final_observation"].size == 0


@pytest.mark.parametrize("mode", ["features", "vector", "multidiscrete", "dict", "tuple"])
def test_spaces_pickle_after_gymnax_is_loaded(mode: str) -> None:
    """Issue 38: once gymnax is imported, a space reports gymnax's class as its
    ``__class__`` (for ``isinstance``), and pickle's default reduction refused it ("args
    [0] from __newobj__ args has the wrong class"), ``cloudpickle`` too. Every mode's
    spaces pickle, cloudpickle and deepcopy as the classes here, and what comes back
    is still gymnax's for ``isinstance`` and samples the same values with the same key
    (pickled before gymnax is loaded: test_spaces_are_gymnax_whatever_the_import_order)."""
    cloudpickle = pytest.importorskip("cloudpickle")
    assert "gymnax" in sys.modules
    env = BlackjackJax(rules="vegas-strip", obs_mode=mode)  # (nothing compiled here)
    key = jax.random.PRNGKey(7)
    for space in (env.action_space(), env.observation_space()):
        for back in (
            pickle.loads(pickle.dumps(space)),
            cloudpickle.loads(cloudpickle.dumps(space)),
            copy.deepcopy(space),
        ):
            assert type(back) is type(space) and back.__class__ is space.__class__
            assert back.__class__.__module__ == "gymnax.environments.spaces"
            for a, b in zip(jax.tree.leaves(back.sample(key)), jax.tree.leaves(space.sample(key)),
                            strict=True):  # fmt: skip
                np.testing.assert_array_equal(a, b)
    # whatever the import order (pickled before gymnax is loaded, read back after): every
    # mode in one process, test_spaces_are_gymnax_whatever_the_import_order's


#: the shared table of each observation mode
TABLE_OF_MODE = {
    "dict": lambda: table(**BANKROLL),
    "tuple": lambda: table(**TUPLE),
    "vector": lambda: table(**PENALIZE),
    "features": lambda: table(**FEATURES),
    "multidiscrete": lambda: table(**INFINITE),
}


@pytest.mark.parametrize("mode", ["dict", "tuple", "vector", "features", "multidiscrete"])
def test_gymnax_converts_every_observation_space(mode: str) -> None:
    """Issue 38: ``GymnaxToGymWrapper(BlackjackJax(obs_mode="dict").gymnax_v1())``
    raised a TypeError: the dict's ``bankroll``, ``bet`` and ``true_count`` had
    shape-``(1,)`` bounds, which gymnax's converter passes to ``float()``. They have 0-d
    bounds now; the converted space has the numpy env's shapes and bounds field by field,
    and holds the table's observations (which ``GymnaxToGymWrapper`` hands on as they
    are; test_gymnax_wrappers_around_gymnax_v1 steps the wrapper itself). Each mode on the
    shared table of that mode (the dict's and the vector's have bet steps and a
    bankroll); the space converted as the wrapper's ``observation_space`` converts it
    (building the wrapper would compile a reset of gymnax's typed keys per mode)."""
    table = TABLE_OF_MODE[mode]()
    p = table.default_params
    space = gspaces.gymnax_space_to_gym_space(table.gymnax_v1().observation_space(p))
    numpy_space = table.gymnasium_observation_space

    def boxes(a: Any, b: Any) -> int:
        if hasattr(b, "spaces"):
            pairs = b.spaces.items() if isinstance(b.spaces, dict) else enumerate(b.spaces)
            return sum(boxes(a[k], sub) for k, sub in pairs)
        assert a.shape == b.shape
        if hasattr(b, "nvec"):  # (a MultiDiscrete: the JAX table's Box 0..nvec - 1)
            np.testing.assert_array_equal(a.low, 0)
            np.testing.assert_array_equal(a.high, b.nvec - 1)
            return 1
        if hasattr(b, "low"):
            np.testing.assert_array_equal(np.broadcast_to(a.low, b.shape), b.low)
            np.testing.assert_array_equal(np.broadcast_to(a.high, b.shape), b.high)
            return 1
        return 0

    assert boxes(space, numpy_space) >= (mode != "tuple")
    obs, st = table.reset(jax.random.PRNGKey(3), p)
    for k in range(6):
        as_numpy = jax.tree.map(np.asarray, obs)
        if mode == "tuple":
            as_numpy = tuple(int(v) for v in as_numpy)
        elif mode == "dict":
            as_numpy = {k: (int(v) if v.ndim == 0 else v) for k, v in as_numpy.items()}
        assert space.contains(as_numpy), as_numpy
        obs, st, *_ = table.step_full(jax.random.PRNGKey(k), st, jnp.int32(0), p)
    if mode == "dict":
        shapes = {k: table.observation_space().spaces[k].low.shape
                  for k in ("bankroll", "bet", "true_count")}  # fmt: skip
        assert shapes == dict.fromkeys(("bankroll", "bet", "true_count"), ())


def test_spaces_are_gymnax_whatever_the_import_order() -> None:
    """Spaces made before ``import gymnax`` pass its ``isinstance`` checks (they were
    gymnax's classes only when gymnax was imported first), and every mode's spaces
    pickled before gymnax is loaded read back after it (issue 38), in one fresh
    process."""
    code = textwrap.dedent("""
        import pickle, sys
        from blackjack_env.jax import BlackjackJax
        env = BlackjackJax(rules="sutton-barto", decks=None, obs_mode="vector")
        a, o = env.action_space(), env.observation_space()
        modes = ("features", "vector", "multidiscrete", "dict", "tuple")
        blobs = {}
        for mode in modes:
            e = BlackjackJax(rules="sutton-barto", decks=None, obs_mode=mode)
            blobs[mode] = pickle.dumps((e.action_space(), e.observation_space()))
        assert "gymnax" not in sys.modules
        from gymnax.environments import spaces
        assert isinstance(a, spaces.Discrete) and isinstance(o, spaces.Box)
        assert not isinstance(a, spaces.Box)
        assert spaces.gymnax_space_to_gym_space(o).shape == (17,)
        for mode in modes:
            back = pickle.loads(blobs[mode])
            again = pickle.loads(pickle.dumps(back))
            assert isinstance(again[0], spaces.Discrete) and again[0].n == 2, mode
        print("ok", a.n)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["ok", "2"]
    assert isinstance(table(**KW).action_space(), gspaces.Discrete)


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
    """``sutton-barto``'s 2-action params (no bet steps) on the bets table's state are
    named, not played."""
    other = BlackjackJax(rules="sutton-barto", decks=None)
    _, st = table.reset(jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match=r"params\.\w+ has shape .* another configuration"):
        table.step(jax.random.PRNGKey(1), st, 0, other.default_params)
    with pytest.raises(ValueError, match=r"params\.\w+ has shape"):
        table.reset(jax.random.PRNGKey(1), other.default_params)
    batch = jax.tree.map(lambda x: np.stack([x, x]), st)  # (numpy: no program per leaf)
    with pytest.raises(ValueError, match=r"state.shoe has shape \(2, 312\).*jax.vmap"):
        table.step(jax.random.PRNGKey(1), batch, 0)


@pytest.mark.parametrize("policy", ["map", "penalize"])
def test_out_of_range_actions_are_illegal(policy: str) -> None:
    """Inside ``jit`` an integer outside the action space cannot raise: it is flagged
    illegal, played under ``"map"`` as the nearest action in range is mapped (-1 as
    STAND, 9 as SURRENDER's mapping: HIT where legal), and penalised under
    ``"penalize"`` (the penalty taken, the round played out). On the shared tables
    (``"penalize"``'s opens each round with a BET step: one base bet is placed first)."""
    env = table(**(FEATURES if policy == "map" else PENALIZE))
    p = env.default_params
    st = env.stack(env.new_state(), "TS 9H 5C 7D 8S")  # 15 against a 9
    _, st = env.start_round(jax.random.PRNGKey(0), st, p)
    if env.config.bets:
        bet = env.config.n_play  # (the first bet size)
        _, st, _, _, info = env.step_full(jax.random.PRNGKey(2), st, jnp.int32(bet), p)
        assert not bool(info["illegal_action"]) and int(info["action_played"]) == bet
        mask = info["action_mask"]  # (a step's mask is its next state's)
    else:
        mask = env.action_mask(st, p)
    assert int(np.asarray(st.hard)[0]) == 15 and np.asarray(mask)[1]  # (read on the host)
    for a, played in ((-1, 0), (9, 1), (2**31 - 1, 1)):
        _, _, r, _, info = env.step_full(jax.random.PRNGKey(1), st, jnp.int32(a), p)
        assert bool(info["illegal_action"])
        if policy == "map":
            assert int(info["action_played"]) == played
        else:
            penalty = env.illegal_penalty
            assert bool(info["round_over"]) and float(r) == float(info["round_net"]) - penalty
