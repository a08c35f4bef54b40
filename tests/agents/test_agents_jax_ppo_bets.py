"""The JAX PPO with bet steps (``JaxPPOConfig.bet_sizes``, agents/jax_ppo.py).

Fast tests drive the PPO with :class:`CountBetJax`, a two-step round with the JAX table's
surface and its bet layout: a BET step that shows a count, then one playing decision
whose expected result per unit bet is ``0.1 * count + 0.1`` (hit) or ``0.1 * count - 0.1``
(stand), paid times the bet. The best bet is therefore known for every count: the smallest
for a count of -2 and below, the largest for 0 and above. A policy that ignores the count
bets one size everywhere and fails the learning test, whichever size it is. The slow test
trains on the real JAX table (infinite deck) with rigged rules whose best bet is known: a
natural paid 15:1 makes the game favourable (bet the most), plain vegas-strip unfavourable
(bet the least), and checks the exact grade with bets.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.agents.jax_ppo import (  # noqa: E402
    JaxPPOConfig,
    actor_agent,
    bet_observations,
    bets_by_count,
    make_train,
    play_agent,
)
from blackjack_env.envs import view as V  # noqa: E402

SIZES = (1, 2, 4, 8)
N_PLAY = 2


class _Space(NamedTuple):
    shape: tuple[int, ...]


class CountBetState(NamedTuple):
    bet_phase: jax.Array  # True: the BET step is next
    count: jax.Array
    bet: jax.Array
    out_of_phase: jax.Array  # actions the mask forbade, taken so far


class CountBetJax:
    """A BET step (count -5..+5 shown as the vector's true count), then hit or stand."""

    num_actions = N_PLAY + len(SIZES)
    default_params = None

    def observation_space(self, params: Any) -> _Space:
        return _Space((V.VECTOR_SIZE,))

    def _obs(self, s: CountBetState) -> jax.Array:
        o = jnp.zeros(V.VECTOR_SIZE, jnp.float32)
        o = o.at[V.VEC_PHASE + jnp.where(s.bet_phase, 2, 0)].set(1.0)
        o = o.at[V.VEC_TRUE_COUNT].set(s.count / V.VEC_COUNT_SCALE)
        return o.at[V.VEC_SHOE].set(0.5)

    def action_mask(self, s: CountBetState, params: Any) -> jax.Array:
        is_bet = jnp.arange(self.num_actions) >= N_PLAY
        return jnp.where(s.bet_phase, is_bet, ~is_bet)

    def reset(self, key: jax.Array, params: Any) -> tuple[jax.Array, CountBetState]:
        count = jax.random.randint(key, (), -5, 6).astype(jnp.float32)
        s = CountBetState(jnp.bool_(True), count, jnp.float32(1.0), jnp.int32(0))
        return self._obs(s), s

    def step(self, key: jax.Array, s: CountBetState, action: jax.Array, params: Any) -> Any:
        k_win, k_reset = jax.random.split(key)
        legal = self.action_mask(s, params)[action]
        sizes = jnp.asarray(SIZES, jnp.float32)
        bet = jnp.where(s.bet_phase, sizes[jnp.clip(action - N_PLAY, 0, len(SIZES) - 1)], s.bet)
        hit = action == 1
        edge = 0.1 * s.count + jnp.where(hit, 0.1, -0.1)
        win = jax.random.uniform(k_win) < 0.5 + edge / 2.0
        done = ~s.bet_phase
        reward = jnp.where(done, bet * jnp.where(win, 1.0, -1.0), 0.0)
        played = CountBetState(jnp.bool_(False), s.count, bet,
                               s.out_of_phase + (~legal).astype(jnp.int32))
        _, fresh = self.reset(k_reset, params)
        fresh = fresh._replace(out_of_phase=played.out_of_phase)
        state = jax.tree_util.tree_map(lambda a, b: jnp.where(done, a, b), fresh, played)
        return (self._obs(state), state, reward, done,
                {"action_mask": self.action_mask(state, params)})


CONFIG = JaxPPOConfig(rules="sutton-barto", seeds=2, seed=11, total_timesteps=64 * 16 * 120,
                      num_envs=64, num_steps=16, num_minibatches=4, hidden=(32,),
                      curve_points=2, lr=3e-3, ent_coef=0.01, one_hot=False,
                      ignore_hand_index=False, bet_sizes=SIZES)


@pytest.fixture(scope="module")
def bet_program():
    """The double's train function, jitted and vmapped once, and its output for key 3."""
    program = jax.jit(jax.vmap(make_train(CONFIG, CountBetJax(), None)))
    keys = jax.random.split(jax.random.PRNGKey(3), CONFIG.seeds)
    return program, jax.block_until_ready(program(keys))


def _final_agent(out: dict[str, Any], k: int):
    actor = jax.tree_util.tree_map(lambda x: np.asarray(x)[k, -1], out["actor"])
    return actor_agent(actor, len(CONFIG.hidden), {"bet_sizes": list(SIZES)})


def test_bets_only_at_the_bet_step(bet_program):
    _, out = bet_program
    m = jax.device_get(out["metrics"])  # (read on the host: no program per operation)
    assert int(m["illegal_actions"].sum()) == 0
    assert int(m["bet_out_of_phase"].sum()) == 0
    assert int(np.asarray(out["env_state"].out_of_phase).sum()) == 0  # the env's own books
    # every round opens with one bet: half the steps are bets
    assert int(m["bets"].sum()) == CONFIG.seeds * CONFIG.timesteps // 2
    assert np.all((m["bet_mean"] >= 1.0) & (m["bet_mean"] <= 8.0))


def test_greedy_bet_follows_the_count(bet_program):
    _, out = bet_program
    counts = list(range(-5, 6))
    for k in range(CONFIG.seeds):
        table = bets_by_count(_final_agent(out, k), SIZES, counts)
        greedy = dict(zip(counts, table["greedy_bet"], strict=True))
        mean = dict(zip(counts, table["mean_bet"], strict=True))
        # the best bet is known: the least at -2 and below, the most at 0 and above
        assert all(greedy[c] == 1 for c in (-5, -4, -3, -2)), table
        assert all(greedy[c] == 8 for c in (0, 1, 2, 3, 4, 5)), table
        assert mean[5] > mean[-5] + 3.0, table
    # the untrained policy bets evenly (near-uniform logits): the learning made the difference
    actor0 = jax.tree_util.tree_map(lambda x: np.asarray(x)[0, 0], out["actor"])
    first = bets_by_count(actor_agent(actor0, len(CONFIG.hidden)), SIZES, counts)
    assert max(first["mean_bet"]) - min(first["mean_bet"]) < 0.1, first


def test_play_agent_plays_as_the_whole_policy(bet_program):
    _, out = bet_program
    agent = _final_agent(out, 0)
    play = play_agent(agent, N_PLAY)
    assert play.n_actions == N_PLAY and agent.n_actions == N_PLAY + len(SIZES)
    rng = np.random.default_rng(0)
    obs = rng.random((200, V.VECTOR_SIZE), dtype=np.float32)
    full_mask = np.zeros((200, agent.n_actions), np.int8)
    full_mask[:, :N_PLAY] = 1
    np.testing.assert_array_equal(play.greedy_batch(obs, full_mask[:, :N_PLAY]),
                                  agent.greedy_batch(obs, full_mask))
    # it hits (the better play at every count), as the whole policy does
    hit = bet_observations(range(-5, 6))
    hit[:, V.VEC_PHASE:V.VEC_PHASE + 4] = 0.0
    hit[:, V.VEC_PHASE] = 1.0
    assert (play.greedy_batch(hit, np.ones((11, N_PLAY), np.int8)) == 1).mean() >= 0.8


def test_same_key_same_result(bet_program):
    program, first = bet_program
    again = program(jax.random.split(jax.random.PRNGKey(3), CONFIG.seeds))
    for a, b in zip(jax.tree_util.tree_leaves(first), jax.tree_util.tree_leaves(again),
                    strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_bet_observations_are_the_numpy_envs_bet_steps():
    """The probe of a BET step at a count is what the numpy env shows at one."""
    from blackjack_env.envs.vector import BlackjackVectorEnv

    env = BlackjackVectorEnv(64, rules="vegas-strip", obs_mode="vector", bet_sizes=SIZES,
                             autoreset_mode="SameStep")
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    seen = 0
    for _ in range(150):
        mask = info["action_mask"].astype(bool)
        at_bet = mask[:, 5:].any(axis=1)
        if at_bet.any():
            rows = obs[at_bet]
            tc = rows[:, V.VEC_TRUE_COUNT] * V.VEC_COUNT_SCALE
            for row, t in zip(rows, tc, strict=True):
                probe = bet_observations([t], float(row[V.VEC_SHOE]))[0]
                np.testing.assert_allclose(probe, row, atol=1e-6)
            seen += int(at_bet.sum())
        obs, _, _, _, info = env.step((rng.random(mask.shape) * mask).argmax(axis=1))
    assert seen > 500
    assert np.abs(obs[:, V.VEC_TRUE_COUNT]).max() > 0  # counts away from 0 were probed


def test_config_refuses_bad_bet_sizes():
    for bad in ((), (2, 1), (1, 1, 2), (0, 1), "1,2", (1.5, 2)):
        with pytest.raises(ValueError, match=r"JaxPPOConfig\.bet_sizes"):
            JaxPPOConfig(bet_sizes=bad)
    assert JaxPPOConfig(bet_sizes=[1, 2]).bet_sizes == (1, 2)
    assert JaxPPOConfig(bet_sizes=(1, 4)).to_dict()["bet_sizes"] == [1, 4]


# ---------------------------------------------------------------- the real JAX table
@pytest.mark.slow  # two PPO programs over the JAX table: about a minute on 2 loaded cores
@pytest.mark.parametrize(("payout", "best"), [(Fraction(15), 8), (Fraction(3, 2), 1)],
                         ids=["natural-15-to-1-bet-most", "vegas-strip-bet-least"])
def test_on_the_jax_table_the_policy_learns_the_known_best_bet(payout, best):
    """A natural paid 15:1 makes every policy win, the untrained one too (about -0.49 a
    hand otherwise, +0.64 from the naturals' extra pay), so the most is the best bet from
    the first update on. (With 4:1 the game is favourable only once the play is good: one
    seed of two locked its bet at the least while its play was still poor and never left
    it, a local optimum of the PPO, not a wiring fault.)"""
    pytest.importorskip("blackjack_env.jax")
    from blackjack_env.agents.jax_ppo import train_seeds
    from blackjack_env.engine import preset

    rules = preset("vegas-strip", decks=None).replace(blackjack_payout=payout)
    config = JaxPPOConfig(rules=rules, seeds=2, seed=2, total_timesteps=400_000,
                          num_envs=64, num_steps=16, hidden=(32, 32), curve_points=2,
                          lr=3e-3, bet_sizes=(1, 8))
    result = train_seeds(config)
    assert result.metrics["illegal_actions"].sum() == 0
    assert result.metrics["bet_out_of_phase"].sum() == 0
    summary = result.summary()
    bets = summary["bets"]
    assert bets["greedy_bet"] == [best, best], bets
    for row in result.grades:
        g = row[-1]
        assert g["exact_return_per_round"] == pytest.approx(g["bet"] * g["exact_return"])
        assert g["optimal_return_per_round"] == pytest.approx(best * g["optimal_return"])
        assert g["regret_per_round"] == pytest.approx(
            g["optimal_return_per_round"] - g["exact_return_per_round"])
    # the play is graded on its own: the play model has the playing actions only
    plays = result.play_agents()
    assert all(p.n_actions == 5 for p in plays)


# ---------------------------------------------------------------- blackjack-train --bet-sizes
@pytest.mark.slow  # compiles the JAX table inside the PPO program: 15-30 s
def test_train_command_with_bets_writes_both_models(tmp_path, capsys):
    pytest.importorskip("blackjack_env.jax")
    import json

    from blackjack_env.agents.mlp import MLPAgent
    from blackjack_env.commands import evaluate, train
    from blackjack_env.envs.vector import BlackjackVectorEnv

    out = tmp_path / "run"
    status = train.main(["--algo", "jax-ppo", "--rules", "vegas-strip", "--seeds", "2",
                         "--timesteps", str(32 * 8 * 4), "--n-envs", "32", "--n-steps", "8",
                         "--curve-points", "2", "--bet-sizes", "1,2,4,8", "--out", str(out),
                         "--no-progress"])
    assert status == 0
    text = capsys.readouterr().out
    assert "blackjack-evaluate plays it with the same --bet-sizes" in text
    summary = json.loads((out / "summary.json").read_text())
    assert summary["bets"]["bet_sizes"] == [1, 2, 4, 8]
    assert summary["bets"]["bet_out_of_phase"] == 0 and summary["illegal_actions"] == 0
    assert "finite shoe" in summary["bets"]["grade"] and summary["exact"] is None
    assert len(summary["bets"]["by_count_half_shoe"]) == 2
    settings = json.loads((out / "settings.json").read_text())
    assert settings["bet_sizes"] == "1,2,4,8"
    assert settings["hyperparameters"]["bet_sizes"] == [1, 2, 4, 8]
    play, whole = MLPAgent.load(out / "model.npz"), MLPAgent.load(out / "model-bets.npz")
    assert (play.n_actions, whole.n_actions) == (5, 9)
    assert whole.info["bet_sizes"] == [1, 2, 4, 8]
    assert {p.name for p in (out / "seeds").iterdir()} == {
        "seed-0.npz", "seed-1.npz", "seed-0-bets.npz", "seed-1-bets.npz"}
    # the numpy env with the same bet sizes plays the whole policy: bets at BET steps only
    env = BlackjackVectorEnv(16, rules="vegas-strip", obs_mode="vector", bet_sizes=(1, 2, 4, 8),
                             autoreset_mode="SameStep")
    obs, info = env.reset(seed=0)
    bets = 0
    for _ in range(40):
        mask = info["action_mask"]
        a = whole.greedy_batch(obs, mask)
        assert np.all((a >= 5) == mask[:, 5:].any(axis=1))
        bets += int((a >= 5).sum())
        obs, _, _, _, info = env.step(a)
        assert not info["illegal_action"].any()
    assert bets >= 16
    # blackjack-evaluate plays the run's model.npz (the play); the whole policy with the
    # bet sizes it decides among, and without them it says which to give
    assert evaluate.main([str(out), "--hands", "200"]) == 0
    capsys.readouterr()
    assert evaluate.main([str(out / "model-bets.npz"), "--hands", "200"]) == 2
    err = capsys.readouterr().err
    assert "decides its bets too (bet sizes 1, 2, 4, 8)" in err and "--bet-sizes 1,2,4,8" in err
    assert evaluate.main([str(out / "model-bets.npz"), "--hands", "200", "--bet-sizes",
                          "1,2,4,8", "--session", "20", "--json"]) == 0
    played = json.loads(capsys.readouterr().out)
    assert played["simulation"]["rounds"] == 200


# ---------------------------------------------------------------- per-seat streams (seat_gae)
def _seat_gae_reference(r, done, valid, value, last_value, last_valid, gamma, lam):
    """Each seat's decisions one by one, in plain Python: a decision's reward is the sum of
    the rewards from its step to the seat's next decision, cut after the first episode
    end; it bootstraps from the seat's next decision (or the value after the rollout
    when the seat acts there)."""
    T, N, S = r.shape
    adv = np.zeros((T, N, S))
    usable = np.zeros((T, N, S))
    for n in range(N):
        for s in range(S):
            ts = [t for t in range(T) if valid[t, n, s]]
            nxt_adv, nxt_usable = 0.0, bool(last_valid[n, s])
            for i in range(len(ts) - 1, -1, -1):
                t = ts[i]
                nxt = ts[i + 1] if i + 1 < len(ts) else T
                total, term = 0.0, False
                for u in range(t, nxt):
                    total += r[u, n, s]
                    if done[u, n, s]:
                        term = True
                        break
                if term:
                    boot, chain, ok = 0.0, 0.0, True
                else:
                    boot = value[nxt, n, s] if nxt < T else last_value[n, s]
                    chain, ok = (nxt_adv if nxt < T else 0.0), nxt_usable
                a = total + gamma * boot - value[t, n, s] + gamma * lam * chain
                adv[t, n, s], usable[t, n, s] = a, float(ok)
                nxt_adv, nxt_usable = a, ok
    return adv, usable


def test_seat_gae_credits_each_seat_with_its_own_stream():
    from blackjack_env.agents.jax_ppo import Transition, seat_gae

    rng = np.random.default_rng(5)
    T, N, S = 14, 4, 3
    acting = rng.integers(0, S, (T, N))
    valid = (np.arange(S) == acting[..., None]).astype(np.float32)
    done = np.repeat((rng.random((T, N)) < 0.25)[..., None], S, axis=2).astype(np.float32)
    r = (rng.normal(size=(T, N, S)) * (rng.random((T, N, 1)) < 0.4)).astype(np.float32)
    value = rng.normal(size=(T, N, S)).astype(np.float32)
    last_value = rng.normal(size=(N, S)).astype(np.float32)
    last_valid = np.arange(S) == rng.integers(0, S, N)[:, None]
    traj = Transition(*(np.zeros((T, N, S), np.float32) for _ in range(5)), r, done, valid)
    traj = traj._replace(value=value)
    # (one program: op by op, each operation compiles)
    adv, targets, usable = jax.jit(seat_gae, static_argnums=(3, 4))(
        traj, last_value, last_valid, 1.0, 0.9)
    ref_adv, ref_usable = _seat_gae_reference(r, done, valid, value, last_value, last_valid,
                                              1.0, 0.9)
    played = valid > 0
    np.testing.assert_allclose(np.asarray(adv)[played], ref_adv[played], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(np.asarray(usable), ref_usable * valid)
    np.testing.assert_allclose(np.asarray(targets)[played], (ref_adv + value)[played],
                               rtol=1e-5, atol=1e-5)
    assert 0 < ref_usable[played].sum() < played.sum()  # both cases were met


def test_seat_gae_is_plain_gae_for_one_stream():
    from blackjack_env.agents.jax_ppo import Transition, seat_gae

    rng = np.random.default_rng(6)
    T, N = 10, 5
    r = rng.normal(size=(T, N)).astype(np.float32)
    done = (rng.random((T, N)) < 0.3).astype(np.float32)
    value = rng.normal(size=(T, N)).astype(np.float32)
    last = rng.normal(size=N).astype(np.float32)
    traj = Transition(*(np.zeros((T, N), np.float32) for _ in range(4)), value, r, done,
                      np.ones((T, N), np.float32))
    adv, _, usable = jax.jit(seat_gae, static_argnums=(3, 4))(traj, last, np.ones(N, bool),
                                                              0.99, 0.95)
    expect = np.zeros((T, N))
    nxt_adv, nxt_v = np.zeros(N), last
    for t in range(T - 1, -1, -1):
        live = 1.0 - done[t]
        delta = r[t] + 0.99 * nxt_v * live - value[t]
        nxt_adv = delta + 0.99 * 0.95 * live * nxt_adv
        expect[t], nxt_v = nxt_adv, value[t]
    np.testing.assert_allclose(np.asarray(adv), expect, rtol=1e-5, atol=1e-5)
    assert np.all(np.asarray(usable) == 1.0)
