"""The JAX table's invariants and statistics: cards and chips conserved over random legal
play (finite shoes through cut-card reshuffles and mid-round refills), a uniform shuffle
(chi-square per position), determinism, the mean return of random legal play against the
numpy batched env's (99% interval), the gymnax wrappers, and clear errors."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.engine import Rules  # noqa: E402
from blackjack_env.envs.codes import BatchPhase  # noqa: E402
from blackjack_env.jax import BlackjackJax  # noqa: E402
from blackjack_env.jax import round as table_round  # noqa: E402
from blackjack_env.jax.hands import legal_mask  # noqa: E402
from blackjack_env.jax.round import play_out, start_round  # noqa: E402
from blackjack_env.jax.settlement import round_net  # noqa: E402
from blackjack_env.jax.shoe import draw, rng  # noqa: E402
from blackjack_env.jax.state import State, new_state  # noqa: E402
from tests.envs.vector_helpers import assert_means_agree, random_legal_returns_vector  # noqa: E402
from tests.jax.jax_helpers import invariants, jax_env, scan_tables, violations  # noqa: E402


# ----------------------------------------------------------------- conservation
def _play(env: BlackjackJax, n: int, steps: int, seed: int) -> dict[str, int]:
    """``n`` tables, ``steps`` random legal steps through ``table_round.step`` and
    ``start_round``: invariant violations after each (:func:`invariants`), the
    reward against the round's net from the hands and the insurance, and the rounds,
    reshuffles and mid-round refills seen."""
    cfg, p = env.config, env.default_params

    def start(key: Any) -> Any:
        st = start_round(key, new_state(cfg, p), p, cfg)
        return st, legal_mask(st, p, cfg)

    def table_step(key: Any, st: State, mask: Any) -> Any:
        k_a, k_s, k_r = jax.random.split(key, 3)
        a = jnp.argmax(jnp.where(mask, jax.random.uniform(k_a, mask.shape), -1.0))
        left = st.left
        st, reward, over, _, _ = table_round.step(k_s, st, a, p, cfg)
        refill = st.left > left  # the shoe ran dry mid-round: the discards came back
        bad = invariants(env, st, p)
        live = jnp.arange(cfg.hands) < st.nhands
        net = (jnp.sum(jnp.where(live, st.net, 0.0)) + st.insurance_net) / p.bet
        bad["reward"] = over & (jnp.abs(net - reward) > 1e-5)
        st = start_round(k_r, st, p, cfg, over)
        after = invariants(env, st, p)
        counts = {k: v + after.get(k, 0) for k, v in bad.items()}
        counts.update(_rounds=over, _shuffles=st.reshuffled & over, _refills=refill)
        return st, legal_mask(st, p, cfg), counts

    return scan_tables(start, table_step, n, steps, seed)


CONSERVE = {
    "vegas-strip": {"rules": "vegas-strip", "obs_mode": "vector"},
    # one deck dealt to the end: rounds run the shoe dry and take the discards back
    "one-deck-dry": {
        "rules": Rules(
            decks=1, penetration=None, max_split_hands=4, resplit_aces=True, surrender="early"
        ),
        "obs_mode": "vector",
        "insurance_decisions": True,
    },
}


@pytest.mark.parametrize("name", list(CONSERVE))
def test_cards_and_chips_conserved(name: str) -> None:
    kwargs = dict(CONSERVE[name])
    if name == "one-deck-dry":  # the cut card never comes out: a reshuffle only when dry
        kwargs["rules"] = kwargs["rules"].replace(penetration=0.98)
    env = jax_env("conserve-" + name, **kwargs)
    seen = _play(env, n=128, steps=300, seed=3)
    assert seen["_rounds"] > 8_000
    assert seen["_shuffles"] > 0
    if name == "one-deck-dry":
        assert seen["_refills"] > 0
    assert not any(violations(seen).values()), seen


@pytest.mark.slow
def test_conserved_over_a_million_steps() -> None:
    env = jax_env("vegas-strip", rules="vegas-strip", obs_mode="vector")
    seen = _play(env, n=4096, steps=300, seed=5)  # 1.2M table-steps
    assert not any(violations(seen).values()), seen


@pytest.mark.slow
def test_mid_round_refill_keeps_every_card() -> None:
    """A one-deck shoe whose cut card never comes out runs dry mid-round: the discards
    come back (no card duplicated or lost, by the invariants above), and play goes on."""
    rules = Rules(decks=1, penetration=0.98)
    env = BlackjackJax(rules=rules, obs_mode="vector")
    cfg, p = env.config, env.default_params
    st = start_round(jax.random.PRNGKey(0), new_state(cfg, p), p, cfg)
    refills = 0
    step = jax.jit(lambda k, s: table_round.step(k, s, 1, p, cfg))  # always hit
    start = jax.jit(lambda k, s, on: start_round(k, s, p, cfg, on))
    key = jax.random.PRNGKey(1)
    for _ in range(120):
        key, k1, k2 = jax.random.split(key, 3)
        before = int(st.left)
        st, _, over, _, _ = step(k1, st)
        refills += int(st.left) > before
        bad = invariants(env, st, p)
        assert all(int(v) == 0 for v in bad.values()), bad
        st = start(k2, st, over)
    assert refills > 0


# ----------------------------------------------------------------- the shuffle
def test_shuffle_is_uniform_chi_square() -> None:
    """The first 8 cards dealt from fresh one-deck shoes: each position's rank counts
    against 4/52 per rank (chi-square, 12 degrees of freedom, each position at the
    0.9999 quantile, so the 8 tests together fail a fair shoe with probability < 0.1%)."""
    env = BlackjackJax(rules=Rules(decks=1), obs_mode="vector")
    cfg, p = env.config, env.default_params
    n, k = 20_000, 8

    @jax.jit
    def deal(keys: Any) -> Any:
        def one(key: Any) -> Any:
            st = new_state(cfg, p)
            rk = rng(key)
            cards = []
            for _ in range(k):
                st, c, rk = draw(st, p, cfg, rk, True)
                cards.append(c)
            return jnp.stack(cards)

        return jax.vmap(one)(keys)

    cards = np.asarray(deal(jax.random.split(jax.random.PRNGKey(42), n)))
    ranks = np.asarray(p.rank_of_card)[cards]
    # the 8 cards of a shoe are distinct cards (no card dealt twice)
    assert all(len(set(row)) == k for row in cards[:1000].tolist())
    critical = 42.58  # chi-square(12) 0.9999 quantile
    expected = n / 13
    for j in range(k):
        counts = np.bincount(ranks[:, j], minlength=13)
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        assert chi2 < critical, (j, chi2, counts)


# ----------------------------------------------------------------- determinism
def test_same_key_same_trajectory() -> None:
    env = jax_env("vegas-strip", rules="vegas-strip", obs_mode="vector")
    params = env.default_params
    n, steps = 64, 40

    @jax.jit
    def rollout(key: Any) -> Any:
        k0, k1 = jax.random.split(key)
        _obs, st = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k0, n), params)
        mask = env.action_mask(st, params)

        def body(carry: Any, k: Any) -> Any:
            st, mask = carry
            ka, ks = jax.random.split(k)
            a = jnp.argmax(jnp.where(mask, jax.random.uniform(ka, mask.shape), -1.0), axis=1)
            obs, st, r, d, info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(ks, n), st, a, params
            )
            return (st, info["action_mask"]), (obs, r, d)

        _, out = jax.lax.scan(body, (st, mask), jax.random.split(k1, steps))
        return out

    a = rollout(jax.random.PRNGKey(9))
    b = rollout(jax.random.PRNGKey(9))
    c = rollout(jax.random.PRNGKey(10))
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    assert not np.array_equal(np.asarray(a[0]), np.asarray(c[0]))
    # the same trajectory on the CPU when the default backend is an accelerator (the
    # draws are integer hashes and float32 products: no backend-dependent arithmetic)
    if jax.default_backend() != "cpu":
        with jax.default_device(jax.devices("cpu")[0]):
            d = jax.jit(rollout.__wrapped__)(jax.random.PRNGKey(9))
        for x, y in zip(a, d, strict=True):
            np.testing.assert_allclose(np.asarray(x), np.asarray(y), atol=1e-6)


# ----------------------------------------------------------------- statistics
def _jax_random_returns(env: BlackjackJax, episodes: int, seed: int) -> np.ndarray:
    """Returns of ended episodes under uniformly random legal play (argmax of uniform
    noise times the mask, as the numpy helper), from 1024 JAX tables."""
    params = env.default_params
    n = 1024
    steps = max(8, 3 * episodes // n)

    @partial(jax.jit, static_argnums=1)
    def rollout(key: Any, steps: int) -> Any:
        k0, k1 = jax.random.split(key)
        _, st = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k0, n), params)
        mask = env.action_mask(st, params)

        def body(carry: Any, k: Any) -> Any:
            st, mask = carry
            ka, ks = jax.random.split(k)
            a = jnp.argmax(jax.random.uniform(ka, mask.shape) * mask, axis=1)
            _, st, r, d, info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(ks, n), st, a, params
            )
            return (st, info["action_mask"]), (r, d)

        _, (r, d) = jax.lax.scan(body, (st, mask), jax.random.split(k1, steps))
        return r, d

    r, d = (np.asarray(x) for x in rollout(jax.random.PRNGKey(seed), steps))
    # an episode's return is its last step's reward (every other step gives 0)
    returns = r[d]
    assert returns.size >= episodes
    return returns[:episodes]


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("vegas-strip", {"rules": "vegas-strip", "obs_mode": "vector"}),
        pytest.param(
            "sutton-barto",
            {"rules": "sutton-barto", "obs_mode": "vector"},
            marks=pytest.mark.slow,
        ),
    ],
)
def test_random_play_mean_return_matches_numpy(name: str, kwargs: dict[str, Any]) -> None:
    """Random legal play: the JAX table's mean return and the numpy batched env's agree
    within the 99% interval of their difference (40,000 episodes each)."""
    env = jax_env(name, **kwargs)
    jx = _jax_random_returns(env, 40_000, seed=1)
    ref = random_legal_returns_vector(kwargs, 40_000, seed=2)
    assert_means_agree(jx, ref, what=name)
    assert math.isfinite(float(jx.mean()))


# ----------------------------------------------------------------- gymnax
def test_gymnax_wrappers_drive_the_env() -> None:
    """gymnax's own LogWrapper over FlattenObservationWrapper (gymnax 1.0's six-value
    step, through ``env.gymnax_v1()``), vmapped and jitted: episode returns are logged."""
    wrappers = pytest.importorskip("gymnax.wrappers")
    env = jax_env("vegas-strip", rules="vegas-strip", obs_mode="vector")
    wrapped = wrappers.LogWrapper(wrappers.FlattenObservationWrapper(env.gymnax_v1()))
    params = env.default_params
    assert wrapped.observation_space(params).shape == (17,)
    assert wrapped.action_space(params).n == env.num_actions == 5
    n = 32
    obs, st = jax.vmap(wrapped.reset, in_axes=(0, None))(
        jax.random.split(jax.random.PRNGKey(0), n), params
    )
    assert obs.shape == (n, 17)
    step = jax.jit(jax.vmap(wrapped.step, in_axes=(0, 0, 0, None)))
    ended = 0
    key = jax.random.PRNGKey(1)
    for _ in range(20):
        key, k = jax.random.split(key)
        obs, st, r, te, _tr, info = step(jax.random.split(k, n), st, jnp.ones(n, jnp.int32), params)
        done = np.asarray(te)
        ended += int(done.sum())
        np.testing.assert_allclose(
            np.asarray(info["returned_episode_returns"])[done], np.asarray(r)[done]
        )
    assert ended > n


def test_bad_arguments_raise_one_clear_error() -> None:
    with pytest.raises(ValueError, match="obs_mode='bogus' is not allowed"):
        BlackjackJax(obs_mode="bogus")
    with pytest.raises(ValueError, match=r"unknown argument\(s\) seats; BlackjackJax takes rules"):
        BlackjackJax(seats=3)
    with pytest.raises(ValueError, match="preset"):
        BlackjackJax(rules="no-such-rules")


# ----------------------------------------------------------------- state and play-out
def test_state_fields_by_their_names() -> None:
    env = jax_env("vegas-strip", rules="vegas-strip", obs_mode="vector")
    st = env.stack(env.new_state(), "TS 9H 6D 7C")  # learner T 6, dealer 9 up, 7 hole
    _, st = env.start_round(jax.random.PRNGKey(0), st)
    assert int(st.first_rank[0]) == 9 and int(st.second_rank[0]) == 5  # ten, six
    assert int(st.dealer_hard) == 16 and int(st.dealer_ncards) == 2
    rank = np.asarray(env.default_params.rank_of_card)
    assert rank[int(st.upcard)] == 8 and rank[int(st.hole_card)] == 6  # nine, seven
    for old in ("r0", "r1", "cur", "d_hard", "d_ace", "d_n", "up", "hole", "ep_rounds"):
        assert not hasattr(st, old), old  # the names before 0.1: gone, no alias


def test_play_out_stands_every_seat_and_settles_the_round() -> None:
    """Two seats, stacked: seat 0 T+6, seat 1 5+7, dealer 9 up and 8 in the hole (17,
    stands). The play-out stands both seats' hands: each loses one base bet; where
    ``on`` is false nothing changes."""
    env = jax_env("seats-2", rules="vegas-strip", seats_per_table=2, obs_mode="vector")
    cfg, p = env.config, env.default_params
    st = env.stack(env.new_state(), "TS 5H 9D 6C 7H 8D")
    _, st = env.start_round(jax.random.PRNGKey(0), st)
    # vegas-strip, a nine up: no insurance question; both seats have a hand to play
    assert np.asarray(st.phase).tolist() == [int(BatchPhase.DECIDE)] * 2
    out = jax.jit(lambda s, on: play_out(jax.random.PRNGKey(1), s, p, cfg, on))
    done = out(st, jnp.asarray(True))
    assert np.asarray(done.phase).tolist() == [int(BatchPhase.OVER)] * 2
    assert np.asarray(done.done[:, 0]).all() and np.asarray(done.settled[:, 0]).all()
    np.testing.assert_array_equal(np.asarray(round_net(done, p, cfg)), [-1.0, -1.0])
    assert int(done.dealer_hard) == 17 and int(done.dealer_ncards) == 2
    kept = out(st, jnp.asarray(False))
    for a, b in zip(kept, st, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
