"""The JAX PPO (agents/jax_ppo.py), its numpy policy (agents/mlp.py) and batched grading.

The PPO is driven here by the test doubles of ``jax_doubles.py`` (small programs that
compile in seconds); the tests on the JAX table itself skip until ``blackjack_env.jax``
exists. Each run is made once per module (fixtures) and read by several tests.

Bounds of the learning test, all computed exactly by the analysis: a short run's greedy
policies must beat (every seed) the untrained networks' greedy policies of the same run,
the dealer-style policy (hit below 17; regret 0.0327 under sutton-barto), and the best of
20 random deterministic policies. The uniformly random stochastic policy's exact return
is the mean of the random deterministic ones' (a state never repeats within a round, so
drawing an action per state once per round plays the same game), so beating their best
beats it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")

sys.path.insert(0, str(Path(__file__).parent))

from jax_doubles import HitStandJax, MaskedBanditJax  # noqa: E402

from blackjack_env.agents.grading import exact_grade  # noqa: E402
from blackjack_env.agents.jax_ppo import (  # noqa: E402
    ActorCritic,
    JaxPPOConfig,
    actor_agent,
    make_train,
    train_seeds,
)
from blackjack_env.agents.mlp import (  # noqa: E402
    VECTOR_FEATURES,
    MLPAgent,
    exact_grades,
    expand_features,
    is_mlp_model,
)
from blackjack_env.analysis import evaluate_policy, solve  # noqa: E402
from blackjack_env.engine import Action, preset  # noqa: E402

SUTTON = preset("sutton-barto")

SHORT = JaxPPOConfig(rules="sutton-barto", seeds=2, seed=3, total_timesteps=400_000,
                     num_envs=64, num_steps=16, hidden=(32, 32), curve_points=3, lr=3e-3)
BANDIT = JaxPPOConfig(rules="sutton-barto", seeds=2, seed=5, total_timesteps=16 * 32 * 12,
                      num_envs=16, num_steps=32, num_minibatches=4, hidden=(16,),
                      curve_points=2, lr=1e-2, one_hot=False, ignore_hand_index=False)


@pytest.fixture(scope="module")
def short_run():
    return train_seeds(SHORT, HitStandJax(), None, rules=SUTTON)


@pytest.fixture(scope="module")
def bandit_program():
    """The bandit's train function, jitted and vmapped once, and its output for key 7."""
    program = jax.jit(jax.vmap(make_train(BANDIT, MaskedBanditJax(), None)))
    keys = jax.random.split(jax.random.PRNGKey(7), BANDIT.seeds)
    return program, jax.block_until_ready(program(keys))


# ------------------------------------------------------------------ learning
def _baseline_regrets() -> dict[str, float]:
    best = solve(SUTTON).expected_return
    out = {"dealer-style": best - evaluate_policy(
        SUTTON, lambda s: Action.HIT if s.total < 17 else Action.STAND)}
    rng = np.random.default_rng(0)
    randoms = []
    for _ in range(20):
        table: dict[tuple, Action] = {}

        def policy(s, table=table):
            key = (s.total, s.soft, s.dealer, s.cards, s.pair)
            if key not in table:
                table[key] = s.legal[int(rng.integers(len(s.legal)))]
            return table[key]

        randoms.append(best - evaluate_policy(SUTTON, policy))
    out["best random deterministic"] = min(randoms)
    out["mean random deterministic (= uniformly random)"] = float(np.mean(randoms))
    return out


def test_short_run_learns_beyond_untrained_random_and_dealer_style(short_run):
    baselines = _baseline_regrets()
    untrained = [g[0]["regret"] for g in short_run.grades]
    bound = min(min(untrained), baselines["dealer-style"], baselines["best random deterministic"])
    final = short_run.final_regrets()
    assert final is not None
    assert final.max() < bound, (final, untrained, baselines)
    assert np.median(final) < 0.8 * bound, (final, bound)
    # the figures are what the grade of one agent at a time gives
    assert baselines["dealer-style"] == pytest.approx(0.03274, abs=1e-5)


def test_masks_are_never_violated(short_run, bandit_program):
    assert short_run.metrics["illegal_actions"].sum() == 0
    _, out = bandit_program
    out = jax.device_get(out)  # (read on the host: no program per operation)
    assert int(out["metrics"]["illegal_actions"].sum()) == 0
    # the env's own books: an illegal arm (the best-paying one) was never pulled
    assert int(out["env_state"].illegal.sum()) == 0
    assert out["metrics"]["episodes"].sum() == BANDIT.seeds * BANDIT.timesteps


def test_bandit_greedy_policy_takes_the_best_legal_arm(bandit_program):
    _, out = bandit_program
    actor = jax.tree_util.tree_map(lambda x: np.asarray(x)[0, -1], out["actor"])
    agent = actor_agent(actor, len(BANDIT.hidden))
    masks = np.array([[(m >> i) & 1 for i in range(5)] for m in range(1, 32)], dtype=np.int8)
    best = np.array([np.flatnonzero(m).max() for m in masks])
    chosen = agent.greedy_batch(masks.astype(np.float32), masks)
    assert all(masks[np.arange(31), chosen] == 1)
    assert (chosen == best).mean() >= 0.9, chosen


def test_same_key_same_result_other_key_other_result(bandit_program):
    program, first = bandit_program
    keys = jax.random.split(jax.random.PRNGKey(7), BANDIT.seeds)
    again = program(keys)
    for a, b in zip(jax.tree_util.tree_leaves(first), jax.tree_util.tree_leaves(again),
                    strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    other = program(jax.random.split(jax.random.PRNGKey(8), BANDIT.seeds))
    kernel = "actor_out"
    assert not np.array_equal(np.asarray(first["actor"][kernel]["kernel"]),
                              np.asarray(other["actor"][kernel]["kernel"]))
    # the seeds of one program differ from each other
    k = np.asarray(first["actor"][kernel]["kernel"])
    assert not np.array_equal(k[0], k[1])


def test_curve_points_and_timesteps(short_run):
    assert short_run.timesteps[0] == 0
    assert short_run.timesteps[-1] == SHORT.timesteps
    assert len(short_run.grades[0]) == SHORT.curve_points + 1
    assert short_run.metrics["episode_return"].shape == (SHORT.seeds, SHORT.num_updates)
    summary = short_run.summary()
    assert summary["regret_worst"] == max(summary["regrets"])
    assert summary["illegal_actions"] == 0
    json.dumps(summary)


# ------------------------------------------------------------------ the numpy policy
def test_numpy_policy_matches_the_flax_network():
    net = ActorCritic(5, (24, 16), VECTOR_FEATURES)
    # (each under jit: one program each, where flax's layers run op by op compile one
    # per operation)
    params = jax.jit(net.init)(jax.random.PRNGKey(0), np.zeros(17, dtype=np.float32))
    # move the output layer off its tiny initial scale so the comparison means something
    params = jax.tree_util.tree_map(lambda x: np.asarray(x) * np.float32(50.0), params)
    obs = np.random.default_rng(1).random((64, 17), dtype=np.float32)
    logits, _ = jax.jit(net.apply)(params, obs)
    agent = actor_agent(params["params"], 2, features=VECTOR_FEATURES)
    assert agent.obs_size == 17
    np.testing.assert_allclose(agent.logits_batch(obs), np.asarray(logits), rtol=1e-4,
                               atol=1e-4)
    masks = (np.random.default_rng(2).random((64, 5)) < 0.5).astype(np.int8)
    masks[:, 0] = 1
    chosen = agent.greedy_batch(obs, masks)
    for row, m, a in zip(obs, masks, chosen, strict=True):
        assert agent.act(row, m) == a and m[a] == 1


def test_one_hot_features_read_the_fields_of_the_vector():
    from blackjack_env.envs import view as V

    obs = V.encode("vector", {"phase": 0, "total": 16, "soft": 0.0, "upcard": 10,
                              "can_double": 1, "can_split": 0, "can_surrender": 1,
                              "can_insure": 0, "hand_index": 0, "num_hands": 1, "cards": 3,
                              "pair": 0.0, "true_count": 0.0, "shoe_left": 1.0}, 4)
    x = expand_features(obs[None], VECTOR_FEATURES)[0]
    assert x.shape == (17 + sum(n for _, _, n in VECTOR_FEATURES),)
    np.testing.assert_array_equal(x[:17], obs)
    total, upcard, cards = np.split(x[17:], np.cumsum([n for _, _, n in VECTOR_FEATURES])[:-1])
    assert total.argmax() == 16 and total.sum() == 1
    assert upcard.argmax() == 10 and upcard.sum() == 1
    assert cards.argmax() == 3 and cards.sum() == 1


def test_save_load_round_trip_and_registry(tmp_path, short_run):
    from blackjack_env.agents.registry import load_agent

    agent = short_run.agents[0][-1]
    path = agent.save(tmp_path / "model.npz")
    assert is_mlp_model(path)
    back = load_agent(tmp_path)
    assert isinstance(back, MLPAgent)
    obs = np.random.default_rng(0).random((10, 17), dtype=np.float32)
    np.testing.assert_array_equal(back.logits_batch(obs), agent.logits_batch(obs))
    assert back.info["timesteps"] == SHORT.timesteps
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    assert not is_mlp_model(tmp_path / "junk.npz")
    with pytest.raises(ValueError, match="not an MLP policy"):
        MLPAgent.load(tmp_path / "junk.npz")


def test_trained_policy_plays_the_numpy_env_and_a_table_seat(short_run):
    import gymnasium as gym

    import blackjack_env  # noqa: F401
    from blackjack_env.agents.grading import simulate
    from blackjack_env.agents.seats import AgentStrategy
    from blackjack_env.engine import Table

    agent = short_run.agents[0][-1]
    env = gym.make("blackjack_env/Blackjack-v0", rules=SUTTON, obs_mode="vector")
    result = simulate(agent, env, 3000, seed=0)
    exact = short_run.grades[0][-1]["exact_return"]
    lo, hi = result["ci95"]
    # the simulated mean agrees with the exact return within 4 standard errors
    half = hi - lo
    assert lo - half < exact < hi + half, (result, exact)
    from blackjack_env.strategies import play_until

    table, seat = Table(SUTTON, seed=0), AgentStrategy(agent)
    for _ in range(50):
        table.bet(0, 1)
        table.deal()
        play_until(table, {0: seat})
        assert table.to_act is None
        table.new_round()


# ------------------------------------------------------------------ batched grading
def test_batched_grades_equal_one_at_a_time_grades(short_run):
    agents = [short_run.agents[0][0], short_run.agents[0][-1], short_run.agents[1][-1]]
    batched = exact_grades(agents, SUTTON)
    for agent, grade in zip(agents, batched, strict=True):
        ref = exact_grade(agent, SUTTON, "vector")
        assert grade["exact_return"] == pytest.approx(ref["exact_return"], abs=1e-12)
        assert grade["regret"] == pytest.approx(ref["regret"], abs=1e-12)


@pytest.mark.parametrize("rules_name", ["vegas-strip", "european-no-hole-card"])
def test_batched_grades_with_splits_doubles_surrender(rules_name):
    """Random networks over the five actions: the batched grade is the reference grade,
    split hands and their hand-index ambiguity included."""
    rules = preset(rules_name, decks=None)
    net = ActorCritic(5, (16,))
    init = jax.jit(net.init)  # (one program, not one per layer operation)
    agents = []
    for k in range(2):
        params = init(jax.random.PRNGKey(k), np.zeros(17, dtype=np.float32))
        params = jax.tree_util.tree_map(lambda x: np.asarray(x) * np.float32(300.0), params)
        agents.append(actor_agent(params["params"], 1))
    batched = exact_grades(agents, rules)
    for agent, grade in zip(agents, batched, strict=True):
        ref = exact_grade(agent, rules, "vector")
        assert grade["exact_return"] == pytest.approx(ref["exact_return"], abs=1e-12)
        assert grade["split_states_depending_on_hand_index"] == \
            ref["split_states_depending_on_hand_index"]


def test_config_refuses_bad_values_naming_the_field():
    with pytest.raises(ValueError, match="num_minibatches"):
        JaxPPOConfig(num_envs=10, num_steps=3, num_minibatches=4)
    with pytest.raises(ValueError, match="seeds"):
        JaxPPOConfig(seeds=0)
    with pytest.raises(ValueError, match="obs_mode"):
        JaxPPOConfig(obs_mode="tuple")
    with pytest.raises(ValueError, match="total_timesteps"):
        JaxPPOConfig(total_timesteps=100)
    with pytest.raises(ValueError, match="lr"):
        JaxPPOConfig(lr=0.0)


# ------------------------------------------------------------ blackjack-train, on the JAX table
@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    """A tiny ``blackjack-train --algo jax-ppo`` run on the JAX table (sutton-barto)."""
    pytest.importorskip("blackjack_env.jax")
    from blackjack_env.commands import train

    out = tmp_path_factory.mktemp("jaxrun") / "run"
    status = train.main(["--algo", "jax-ppo", "--rules", "sutton-barto", "--seeds", "2",
                         "--timesteps", str(32 * 8 * 4), "--n-envs", "32", "--n-steps", "8",
                         "--curve-points", "2", "--out", str(out), "--no-progress"])
    assert status == 0
    return out


@pytest.mark.slow  # compiles the JAX table inside the PPO program: about 15 s unloaded
def test_train_command_writes_a_run_the_other_commands_read(cli_run, capsys):
    from blackjack_env.agents.registry import load_agent, table_for
    from blackjack_env.commands import evaluate

    names = {p.name for p in cli_run.iterdir()}
    assert {"settings.json", "model.npz", "curve.json", "summary.json", "learning_curve.png",
            "seeds"} <= names
    assert sorted(p.name for p in (cli_run / "seeds").iterdir()) == ["seed-0.npz",
                                                                      "seed-1.npz"]
    summary = json.loads((cli_run / "summary.json").read_text())
    assert summary["algo"] == "jax-ppo" and summary["seeds"] == 2
    assert len(summary["regrets"]) == 2
    assert summary["regret_median"] == pytest.approx(np.median(summary["regrets"]))
    assert summary["illegal_actions"] == 0
    assert summary["exact"]["regret"] in summary["regrets"]
    curve = json.loads((cli_run / "curve.json").read_text())
    assert len(curve["grades"]) == 3 and len(curve["regret_by_seed"]) == 2
    settings = json.loads((cli_run / "settings.json").read_text())
    assert settings["obs_mode"] == "vector" and settings["hyperparameters"]["seeds"] == 2
    agent = load_agent(cli_run)
    assert isinstance(agent, MLPAgent)
    # the saved model's exact grade is the one the run reported for it
    rules = table_for(str(cli_run))["rules"]
    assert exact_grade(agent, rules, "vector")["regret"] == pytest.approx(
        summary["exact"]["regret"], abs=1e-12)
    capsys.readouterr()
    assert evaluate.main([str(cli_run), "--hands", "300"]) == 0
    assert "jax-ppo" in capsys.readouterr().out


@pytest.mark.slow
def test_web_table_watch_mode_loads_the_run(cli_run):
    pytest.importorskip("starlette")
    from blackjack_env.commands import web

    _, names = web.build(web.Settings(agent=[str(cli_run)]))
    assert list(names.values()) == [str(cli_run / "model.npz")]


# (the command's arguments, words its one error line must hold)
JAX_BAD = [
    (["--algo", "jax-ppo", "--resume"], ["--resume", "cannot be resumed"]),
    (["--algo", "jax-ppo", "--obs-mode", "tuple"], ["--obs-mode tuple", "vector"]),
    (["--algo", "jax-ppo", "--timesteps", "100"], ["--timesteps", "less than one update"]),
    (["--algo", "jax-ppo", "--seeds", "0"], ["--seeds 0"]),
    (["--algo", "jax-ppo", "--seats", "3", "--rules", "vegas-strip"], ["JAX table", "seat"]),
    (["--algo", "jax-ppo", "--bet-sizes", "2,1", "--rules", "vegas-strip"],
     ["--bet-sizes '2,1'", "increasing"]),
    (["--algo", "jax-ppo", "--bet-sizes", "one", "--rules", "vegas-strip"],
     ["--bet-sizes 'one'", "e.g. 1,2,4,8"]),
    (["--algo", "jax-ppo", "--bet-sizes", "1,5000", "--rules", "vegas-strip"],
     ["--bet-sizes 1,5000", "table limits"]),
    (["--algo", "q-learning", "--bet-sizes", "1,2", "--rules", "vegas-strip"],
     ["--bet-sizes 1,2", "jax-ppo"]),
]


@pytest.mark.parametrize(("args", "words"), JAX_BAD, ids=[" ".join(a) for a, _ in JAX_BAD])
def test_train_command_refuses_bad_jax_options_in_one_line(tmp_path, capsys, args, words):
    pytest.importorskip("blackjack_env.jax")
    from blackjack_env.commands import train

    out = tmp_path / "run"
    status = train.main([*args, "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert not out.exists()


@pytest.mark.slow
def test_vegas_strip_on_the_jax_table_learns_to_a_small_exact_regret():
    """Two seeds, 1M steps each on vegas-strip (infinite deck): measured median 0.004-0.008
    (depending on the load's share of the 2 cores only in time, not in the figure)."""
    pytest.importorskip("blackjack_env.jax")
    config = JaxPPOConfig(rules="vegas-strip", decks=None, seeds=2, total_timesteps=1_000_000,
                          curve_points=2)
    result = train_seeds(config)
    final = result.final_regrets()
    assert result.metrics["illegal_actions"].sum() == 0
    assert np.median(final) < 0.012, final
    assert all(g[-1]["split_states_depending_on_hand_index"] == 0 for g in result.grades)
