"""The JAX PPO at a table of several learner seats (``agents/jax_seats.py``): the
decision stream plays exactly the acting seat's action and shows its mask, the table's
reward is every seat's round net summed, and a short run of one shared policy at 3-seat
tables learns (its exact regret falls below a bound an untrained policy does not meet),
from the table's stream and from per-seat streams (``make_train``'s seat streams; their
credit assignment is checked against a plain-Python reference in
tests/agents/test_agents_jax_ppo_bets.py)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.agents.jax_ppo import JaxPPOConfig  # noqa: E402
from blackjack_env.agents.jax_seats import ActingSeatEnv, train_table  # noqa: E402
from blackjack_env.jax.seats import acting  # noqa: E402
from tests.jax.jax_helpers import table as shared_table  # noqa: E402


@pytest.mark.slow
def test_acting_seat_stream_plays_the_acting_seat() -> None:
    table = shared_table(rules="vegas-strip", decks=None, seats_per_table=3)
    env = ActingSeatEnv(table)
    p = env.default_params
    obs, st = env.reset(jax.random.PRNGKey(0), p)
    step = jax.jit(env.step)
    look = jax.jit(lambda st: (acting(st, table.config), table.action_mask(st, p),
                               env.action_mask(st, p), table.get_obs(st, p)))  # fmt: skip
    total, rounds = 0.0, 0
    for k in range(40):
        s, full, mine, seats_obs = (np.asarray(x) for x in look(st))
        s = int(s)
        np.testing.assert_array_equal(mine, full[s])
        np.testing.assert_array_equal(np.asarray(obs), seats_obs[s])
        a = int(np.flatnonzero(full[s])[-1])
        obs, st2, r, d, info = step(jax.random.PRNGKey(k + 1), st, jnp.int32(a), p)
        # the same as the table stepped with that action at the acting seat
        acts = jnp.zeros(3, jnp.int32).at[s].set(a)
        _, _, r3, d3, _ = table.step(jax.random.PRNGKey(k + 1), st, acts, p)
        assert float(r) == pytest.approx(float(np.asarray(r3).sum()))
        assert bool(d) == bool(np.asarray(d3)[0])
        assert not bool(info["illegal_action"])
        total += float(r)
        rounds += int(d)
        st = st2
    assert rounds > 5


@pytest.mark.slow
@pytest.mark.parametrize("streams", ["table", "seat"])
def test_shared_policy_learns_at_three_seat_tables(streams: str) -> None:
    config = JaxPPOConfig(rules="vegas-strip", decks=None, seeds=2, seed=4,
                          total_timesteps=150_000, num_envs=64, num_steps=16,
                          hidden=(32, 32), curve_points=2, lr=3e-3)  # fmt: skip
    out = train_table(config, seats=3, streams=streams)
    assert out["streams"] == streams
    # an untrained policy's regret is about 0.5 or more a hand; random legal play's more
    assert out["regret_median"][0] > 0.3
    assert out["regret_worst"][-1] < 0.15, out


@pytest.mark.parametrize(("args", "words"), [
    (["--seats", "9"], ["seats_per_table=9", "1 to 7"]),
    (["--seeds", "0"], ["seeds=0"]),
    (["--rules", "nope"], ["'nope'", "vegas-strip"]),
    (["--json", "{tmp}/notes.txt/r.json"], ["--json", "notes.txt"]),
])
def test_command_refuses_bad_input_in_one_line_before_training(tmp_path, capsys, args, words):
    """``python -m blackjack_env.agents.jax_seats`` stops on a wrong option with one
    ``error:`` line before it compiles or trains anything, and writes nothing."""
    from blackjack_env.agents import jax_seats

    (tmp_path / "notes.txt").write_text("not a folder")
    before = sorted(tmp_path.iterdir())
    with pytest.raises(SystemExit) as stop:
        jax_seats.main([a.replace("{tmp}", str(tmp_path)) for a in args])
    line = str(stop.value.code)
    assert line.startswith("error: ") and "\n" not in line, line
    for word in words:
        assert word in line, (word, line)
    assert capsys.readouterr().out == ""  # nothing trained
    assert sorted(tmp_path.iterdir()) == before
