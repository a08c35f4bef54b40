"""Rules as data (issue 38): every rule a traced value of ``Params``, one compiled program
per shape, a batch of tables each under its own rules, a bank of rule sets sampled inside
``jit``, and the rule features in the observation."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.engine import Rules, preset  # noqa: E402
from blackjack_env.engine.rules import PRESETS  # noqa: E402
from blackjack_env.engine.rulespace import RuleSpace, default_space  # noqa: E402
from blackjack_env.envs import view  # noqa: E402
from blackjack_env.envs.tables import RuleTables  # noqa: E402
from blackjack_env.jax import BlackjackJax, program, tables  # noqa: E402
from blackjack_env.jax.tables import CONVERTED, NOT_READ, Params, RuleBank  # noqa: E402
from tests.jax.jax_helpers import PARITY_TABLES  # noqa: E402

#: a vegas-strip-shaped space: one learner seat, finite shoes of 1 to 6 decks, five
#: actions, every rule that does not change a shape varied (its tables are the shared
#: default table's shape: one program with every test of that table)
MIXED = RuleSpace(
    preset("vegas-strip", insurance=False),
    (
        ("decks", (1, 2, 4, 6)),
        ("penetration", (0.5, 0.75, 0.9)),
        ("dealer_hits_soft_17", (False, True)),
        ("blackjack_payout", ("3:2", "6:5", "1:1", "7:5")),
        ("hole_card", ("peek", "no-peek", "none")),
        ("double", ("any", "9-11", "10-11")),
        ("double_after_split", (True, False)),
        ("surrender", ("none", "late", "early")),
        ("ties", ("push", "dealer-wins")),
        ("settlement", ("dealer", "highest-hand")),
        ("natural_paid_at_deal", (False, True)),
        ("auto_stand_21", (True, False)),
    ),
    name="mixed-test",
)


def test_params_are_every_rule_table_field() -> None:
    """``Params`` holds every ``RuleTables`` field under its own name (converted where
    listed), so a new rule-table entry reaches the JAX round with no other edit."""
    env = BlackjackJax(rules="vegas-strip")
    fields = {f.name for f in dataclasses.fields(RuleTables)}
    assert set(NOT_READ) <= fields and set(CONVERTED) <= fields
    assert not set(NOT_READ) & set(CONVERTED)
    plain = fields - set(NOT_READ) - set(CONVERTED)
    converted = {k for name, c in CONVERTED.items()
                 for k in c.convert(getattr(env.tables, name), env.tables)}  # fmt: skip
    assert set(env.default_params.names) == plain | converted
    # (each conversion types what it gives)
    assert converted == {k for c in CONVERTED.values() for k in c.types}
    for name in plain:  # the values themselves, in the round's dtypes
        value = getattr(env.tables, name)
        np.testing.assert_array_equal(np.asarray(getattr(env.default_params, name)),
                                      np.asarray(value.value if hasattr(value, "value") else value))


def test_params_are_a_pytree_that_pickles() -> None:
    import pickle

    p = BlackjackJax(rules="vegas-strip").default_params
    leaves, tree = jax.tree.flatten(p)
    back = jax.tree.unflatten(tree, leaves)
    assert isinstance(back, Params) and back.names == p.names
    again = pickle.loads(pickle.dumps(p))
    assert again.names == p.names and int(again.bet) == int(p.bet)
    with pytest.raises(AttributeError, match="no entry 'no_such_rule'"):
        _ = p.no_such_rule
    with pytest.raises(AttributeError, match="immutable"):
        p.bet = 3  # type: ignore[misc]


def test_one_program_for_every_rule_set_of_a_shape() -> None:
    """Every preset of the vegas-strip shape (one seat, five actions, a finite shoe, up to
    four hands) and 100 rule sets drawn from a space play through one compilation of each
    jitted function (``reset``, ``step``, ``batch_step``): at most one new entry in each
    function's cache for the 100-odd rule sets."""
    widest = BlackjackJax(rules=MIXED).config
    presets = [preset(n) for n in PRESETS if _fits(widest, preset(n))]
    assert len(presets) >= 5, [r.summary() for r in presets]
    draws = MIXED.sample_many(np.random.default_rng(0), 100)
    env = BlackjackJax(rules=presets + draws)
    fns = (program.reset, program.step, program.batch_step)
    before = [f._cache_size() for f in fns]
    key = jax.random.PRNGKey(0)
    for rules in presets + draws:
        p = env.params_of(rules)
        _, st = env.reset(key, p)
        env.step(key, st, jnp.int32(1), p)
    # a batch of tables each under its own rule set (the parity runs' batch size)
    listed = [(presets + draws)[i % (len(presets) + len(draws))] for i in range(PARITY_TABLES)]
    batch = env.stack_params(listed)
    _, st = env.start_round(key, env.new_state(PARITY_TABLES, batch), batch)
    keys = jax.random.split(key, PARITY_TABLES)
    program.batch_step(env.program, keys, st, np.ones(PARITY_TABLES, np.int32), batch, True)
    after = [f._cache_size() for f in fns]
    # one compilation each at most (none where an earlier test of the same program, the
    # shared default table's, compiled it already in this process), and each is cached
    assert all(0 <= a - b <= 1 for a, b in zip(after, before, strict=True)), (before, after)
    assert all(a >= 1 for a in after)


def _fits(config: tables.Config, rules: Rules) -> bool:
    try:
        tables.fit(config, BlackjackJax(rules=rules).config)
    except ValueError:
        return False
    return True


#: several learner seats asked the pre-peek questions (insurance, early surrender): the
#: shared seats table's shape (three seats, up to 6 decks)
SEATED = RuleSpace(
    preset("vegas-strip", seats=3),
    (
        ("decks", (1, 6)),
        ("dealer_hits_soft_17", (False, True)),
        ("blackjack_payout", ("3:2", "6:5")),
        ("double", ("any", "10-11")),
        ("surrender", ("none", "late", "early")),
        ("ties", ("push", "dealer-wins")),
        ("natural_paid_at_deal", (False, True)),
    ),
    name="seated-test",
)


@pytest.mark.parametrize(
    ("space", "kwargs"),
    [(MIXED, {}),
     (SEATED, {"seats_per_table": 3, "insurance_decisions": True, "obs_mode": "vector"})],
    ids=["one-seat", "three-seats"],
)
def test_a_batch_plays_each_table_as_its_own_rules(space: RuleSpace, kwargs: dict) -> None:
    """Tables under different rule sets in one batch play exactly as each rule set's own
    table (the same keys and actions): rewards, observations, masks (the round's
    optional parts run for every table of a batch while any needs them, so each must
    leave the others unchanged). 16 rule sets, each at 8 of the batch's 128 tables (the
    batch functions of the parity runs: ``start_round``, ``batch_step``), the first
    table of each against the rule set's own table (``reset``, ``step_full``)."""
    env = BlackjackJax(rules=space, **kwargs)
    rules = space.sample_many(np.random.default_rng(1), 16)
    n, per = PARITY_TABLES, PARITY_TABLES // 16
    batch = env.stack_params([r for r in rules for _ in range(per)])
    key = jax.random.PRNGKey(5)
    obs_b, st_b = env.start_round(key, env.new_state(n, batch), batch)
    # (each table's: start_round splits the key so; rows read on the host, where a JAX
    # array's row compiles an indexing program per shape)
    keys = np.asarray(jax.random.split(key, n))
    obs_b = np.asarray(obs_b)
    # each table alone: one compiled program for every rule set (its branches as lax.cond)
    params = [env.params_of(r) for r in rules]
    singles = [env.reset(keys[i * per], params[i]) for i in range(16)]
    for i in range(16):
        np.testing.assert_array_equal(np.asarray(obs_b[i * per]), np.asarray(singles[i][0]))
    rng = np.random.default_rng(2)
    states = [s for _, s in singles]
    for t in range(60):
        mask = np.asarray(env.action_mask(st_b, batch))
        a = (rng.random(mask.shape) * mask).argmax(axis=-1).astype(np.int32)
        k = np.asarray(jax.random.split(jax.random.PRNGKey(100 + t), n))
        obs_b, st_b, r_b, d_b, info_b = program.batch_step(
            env.program, k, st_b, jnp.asarray(a), batch, True
        )
        obs_b, r_b, d_b, info_b = jax.device_get((obs_b, r_b, d_b, info_b))
        for i in range(16):
            j = i * per
            o, states[i], rew, done, info = env.step_full(k[j], states[i], jnp.asarray(a[j]),
                                                          params[i])  # fmt: skip
            np.testing.assert_array_equal(np.asarray(obs_b[j]), np.asarray(o))
            np.testing.assert_array_equal(np.asarray(r_b[j]), np.asarray(rew))
            np.testing.assert_array_equal(np.asarray(d_b[j]), np.asarray(done))
            np.testing.assert_array_equal(np.asarray(info_b["action_mask"][j]),
                                          np.asarray(info["action_mask"]))


def test_rule_bank_samples_inside_jit() -> None:
    """A bank of rule sets is one pytree; a key draws a table's rules inside ``jit``,
    uniformly (each of 4 rule sets within a 99.9% binomial interval of 1/4 in 8,000
    draws), and the drawn table plays under them."""
    env = BlackjackJax(rules=MIXED)
    rules = MIXED.sample_many(np.random.default_rng(3), 4)
    bank = env.rule_bank(rules)
    assert isinstance(bank, RuleBank) and bank.size == 4
    keys = jax.random.split(jax.random.PRNGKey(0), 8000)
    idx = np.asarray(jax.jit(jax.vmap(bank.sample_index))(keys))
    counts = np.bincount(idx, minlength=4)
    half = 3.29 * np.sqrt(8000 * 0.25 * 0.75)
    assert np.all(np.abs(counts - 2000) < half), counts
    drawn = jax.jit(lambda k: jax.tree.map(jnp.asarray, dict(bank.sample(k).items()),
                                           is_leaf=lambda x: isinstance(x, tables.Row)))(
        np.asarray(keys)[0])  # (the key read on the host: no slice compiled)
    want = env.params_of(rules[int(idx[0])])
    for name, value in want.items():
        np.testing.assert_array_equal(np.asarray(drawn[name]), np.asarray(value))
    # a bank keeps each distinct table once: the four rule sets share their card values
    assert bank.rows["rank_of_card"].shape[0] == 1 and bank.rows["mask_index"].shape[0] <= 4
    # tables each under a rule set of the bank play as under that rule set's own params
    n = 8
    index = np.arange(n, dtype=np.int32) % 4
    k = np.asarray(jax.random.split(jax.random.PRNGKey(9), n))  # (rows read on the host)
    obs_b, _ = jax.jit(jax.vmap(lambda kk, i: env.reset(kk, bank.at(i))))(k, index)
    obs_b = np.asarray(obs_b)  # (read on the host: no slice compiled per row)
    for t in range(n):
        obs, _ = env.reset(k[t], env.params_of(rules[t % 4]))
        np.testing.assert_array_equal(np.asarray(obs_b[t]), np.asarray(obs))


def test_rule_features_in_the_observation() -> None:
    """``observe_rules=True``: the JAX table's flat observation ends with the rule
    features of each table's own rules (``view.rule_features``, the numpy envs'), the dict
    carries them under ``"rules"``; the spaces grow to hold them."""
    for mode in ("vector", "features", "dict"):
        env = BlackjackJax(rules=MIXED, obs_mode=mode, observe_rules=True)
        rules = MIXED.sample_many(np.random.default_rng(4), 3)
        batch = env.stack_params(rules)
        obs, _ = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 3), batch)
        obs = jax.device_get(obs)  # (read on the host: no slice compiled per row)
        for i, r in enumerate(rules):
            want = view.rule_features(r)
            got = obs[view.DICT_RULES_KEY][i] if mode == "dict" else obs[i, -view.RULES_SIZE:]
            np.testing.assert_array_equal(np.asarray(got), want)
        space = env.gymnasium_observation_space
        if mode == "dict":
            assert view.DICT_RULES_KEY in space.spaces
        else:
            assert space.shape[0] == obs.shape[1]


def test_wrong_input_is_one_line() -> None:
    """A rule set outside the table's space, a rule set whose shapes do not fit, rule
    features asked of a mode that cannot carry them, a list of spaces: one ``ValueError``
    line each."""
    env = BlackjackJax(rules=MIXED, obs_mode="vector")
    with pytest.raises(ValueError, match="outside") as err:
        env.params_of(preset("vegas-strip", ties="player-loses", insurance=False))
    assert "\n" not in str(err.value)
    small = BlackjackJax(rules="single-deck-6to5", obs_mode="vector")
    with pytest.raises(ValueError, match="shoe_size") as err:
        small.params_of(preset("vegas-strip"))
    with pytest.raises(ValueError, match=r"n_play|n_actions"):
        BlackjackJax(rules="vegas-strip", obs_mode="vector").params_of(
            preset("sutton-barto", decks=6)
        )
    with pytest.raises(ValueError, match="observe_rules"):
        BlackjackJax(rules=MIXED, obs_mode="multidiscrete", observe_rules=True)
    with pytest.raises(ValueError, match=r"n_play|n_actions"):
        BlackjackJax(rules=["vegas-strip", preset("sutton-barto", decks=6)], obs_mode="vector")
    with pytest.raises(ValueError, match="infinite"):
        BlackjackJax(rules=["vegas-strip", preset("vegas-strip", decks=None)], obs_mode="vector")
    with pytest.raises(ValueError, match="RuleSpace"):
        env.params_of(MIXED)
    with pytest.raises(ValueError):
        BlackjackJax(rules=[], obs_mode="vector")
    assert default_space().max_hands == BlackjackJax(rules=default_space()).config.hands
