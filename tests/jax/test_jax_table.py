"""The JAX table's invariants: cards and chips conserved over random legal play (finite
shoes through cut-card reshuffles and mid-round refills, each table under its own rules in
one program), a uniform shuffle (chi-square per position), determinism, the state's field
names, the play-out of a round, and clear errors. (The mean return of random legal and of
basic-strategy play against the numpy batched env's is ``test_stats.py``'s; the gymnax
wrappers are ``test_gymnax.py``'s.)"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.engine import Rules, preset  # noqa: E402
from blackjack_env.envs.codes import BatchPhase  # noqa: E402
from blackjack_env.jax import BlackjackJax  # noqa: E402
from blackjack_env.jax import round as table_round  # noqa: E402
from blackjack_env.jax.hands import legal_mask  # noqa: E402
from blackjack_env.jax.round import play_out, start_round  # noqa: E402
from blackjack_env.jax.settlement import round_net  # noqa: E402
from blackjack_env.jax.shoe import draw, rng  # noqa: E402
from blackjack_env.jax.state import State, new_state  # noqa: E402
from tests.jax.jax_helpers import (  # noqa: E402
    FEATURES,
    SEATS,
    invariants,
    rollout,
    scan_tables,
    table,
    violations,
)


# ----------------------------------------------------------------- conservation
def _play(env: BlackjackJax, rules: list[Any], steps: int, seed: int) -> dict[str, int]:
    """One table per entry of ``rules`` (each under its own rule set, stacked params: one
    program), ``steps`` random legal steps through ``table_round.step`` and
    ``start_round``: invariant violations after each (:func:`invariants`), the reward
    against the round's net from the hands and the insurance, and the rounds, reshuffles
    and mid-round refills seen (``_shuffles_1``, ``_refills_1``: those of one-deck shoes)."""
    cfg = env.config

    def start(key: Any, p: Any) -> Any:
        st = start_round(key, new_state(cfg, p), p, cfg)
        return st, legal_mask(st, p, cfg)

    def table_step(key: Any, st: State, mask: Any, p: Any) -> Any:
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
        one_deck = p.shoe_cards == 52
        shuffled = st.reshuffled & over
        counts.update(_rounds=over, _shuffles=shuffled, _refills=refill,
                      _shuffles_1=shuffled & one_deck, _refills_1=refill & one_deck)  # fmt: skip
        return st, legal_mask(st, p, cfg), counts

    return scan_tables(start, table_step, env.stack_params(rules), steps, seed)


#: the conservation scan's table (the insurance chips are conserved in test_jax_seats.py's
#: and test_jax_bets.py's scans, where the question is asked)
CONSERVE = FEATURES
#: one deck dealt almost to the end (the cut card never comes out: a reshuffle only when
#: the shoe runs dry mid-round, and the discards come back), splits to 4 hands, resplit
#: aces, early surrender
ONE_DECK_DRY = Rules(decks=1, penetration=0.98, max_split_hands=4, resplit_aces=True,
                     surrender="early")  # fmt: skip


def test_cards_and_chips_conserved() -> None:
    """128 vegas-strip tables (6 decks, cut-card reshuffles) and 128 one-deck tables run
    dry, in one batch (one program, each table under its own rules)."""
    env = table(**CONSERVE)
    seen = _play(env, [preset("vegas-strip")] * 128 + [ONE_DECK_DRY] * 128, steps=300, seed=3)
    assert seen["_rounds"] > 16_000
    assert seen["_shuffles"] > seen["_shuffles_1"] > 0  # both shoes reshuffle
    assert seen["_refills_1"] > 0 and seen["_refills"] == seen["_refills_1"]
    assert not any(violations(seen).values()), seen


@pytest.mark.slow
def test_conserved_over_a_million_steps() -> None:
    env = table(**CONSERVE)
    seen = _play(env, [preset("vegas-strip")] * 4096, steps=300, seed=5)  # 1.2M table-steps
    assert not any(violations(seen).values()), seen


@pytest.mark.slow
def test_mid_round_refill_keeps_every_card() -> None:
    """A one-deck shoe whose cut card never comes out runs dry mid-round: the discards
    come back (no card duplicated or lost, by the invariants above), and play goes on."""
    env = table(rules=Rules(decks=1, penetration=0.98), obs_mode="vector")
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
    env = table(rules=Rules(decks=1), obs_mode="vector")  # (one deck in the shared shoe)
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
    """The shared rollout (2,048 tables, 64 steps, random legal play; test_stats.py's
    program): the same key gives the same observations, rewards, ends and illegal flags,
    bit for bit; another key other ones."""
    run = rollout(table(**FEATURES), 2048, 64)
    a = run(jax.random.PRNGKey(9), False)
    b = run(jax.random.PRNGKey(9), False)
    c = run(jax.random.PRNGKey(10), False)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    assert not np.array_equal(np.asarray(a[0]), np.asarray(c[0]))
    # the same trajectory on the CPU when the default backend is an accelerator (the
    # draws are integer hashes and float32 products: no backend-dependent arithmetic)
    if jax.default_backend() != "cpu":
        with jax.default_device(jax.devices("cpu")[0]):
            d = jax.jit(run.__wrapped__)(jax.random.PRNGKey(9), False)
        for x, y in zip(a, d, strict=True):
            np.testing.assert_allclose(np.asarray(x), np.asarray(y), atol=1e-6)


def test_bad_arguments_raise_one_clear_error() -> None:
    with pytest.raises(ValueError, match="obs_mode='bogus' is not allowed"):
        BlackjackJax(obs_mode="bogus")
    with pytest.raises(ValueError, match=r"unknown argument\(s\) seats; BlackjackJax takes rules"):
        BlackjackJax(seats=3)
    with pytest.raises(ValueError, match="preset"):
        BlackjackJax(rules="no-such-rules")


# ----------------------------------------------------------------- state and play-out
def test_state_fields_by_their_names() -> None:
    env = table(**FEATURES)
    st = env.stack(env.new_state(), "TS 9H 6D 7C")  # learner T 6, dealer 9 up, 7 hole
    _, st = env.start_round(jax.random.PRNGKey(0), st)
    first, second = np.asarray(st.first_rank), np.asarray(st.second_rank)  # (on the host)
    assert int(first[0]) == 9 and int(second[0]) == 5  # ten, six
    assert int(st.dealer_hard) == 16 and int(st.dealer_ncards) == 2
    rank = np.asarray(env.default_params.rank_of_card)
    assert rank[int(st.upcard)] == 8 and rank[int(st.hole_card)] == 6  # nine, seven
    for old in ("r0", "r1", "cur", "d_hard", "d_ace", "d_n", "up", "hole", "ep_rounds"):
        assert not hasattr(st, old), old  # the names before 0.1: gone, no alias


def test_play_out_stands_every_seat_and_settles_the_round() -> None:
    """Three seats (the shared seats table), stacked: seat 0 T+6, seat 1 5+7, seat 2 4+Q,
    dealer 9 up and 8 in the hole (17, stands). The play-out stands every seat's hand:
    each loses one base bet; where ``on`` is false nothing changes."""
    env = table(**SEATS)
    cfg, p = env.config, env.default_params
    st = env.stack(env.new_state(), "TS 5H 4C 9D 6C 7H QD 8D")
    _, st = env.start_round(jax.random.PRNGKey(0), st)
    # a nine up: no insurance or early-surrender question; every seat has a hand to play
    assert np.asarray(st.phase).tolist() == [int(BatchPhase.DECIDE)] * 3
    out = jax.jit(lambda s, on: play_out(jax.random.PRNGKey(1), s, p, cfg, on))
    done = out(st, jnp.asarray(True))
    assert np.asarray(done.phase).tolist() == [int(BatchPhase.OVER)] * 3
    # (read on the host, the net in one program: op by op, each operation compiles)
    assert np.asarray(done.done)[:, 0].all() and np.asarray(done.settled)[:, 0].all()
    net = jax.jit(lambda s: round_net(s, p, cfg))(done)
    np.testing.assert_array_equal(np.asarray(net), [-1.0, -1.0, -1.0])
    assert int(done.dealer_hard) == 17 and int(done.dealer_ncards) == 2
    kept = out(st, jnp.asarray(False))
    for a, b in zip(kept, st, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
