"""The JAX PPO (:mod:`blackjack_env.agents.jax_ppo`) at a table of several learner seats
(issue 23's 3-seat run): one shared policy plays every seat, learning from one of two
streams (``train_table(streams=...)``, ``--streams``):

* ``"seat"`` (the default): each seat's own stream. The table itself (a
  :class:`~blackjack_env.jax.BlackjackJax` of ``seats_per_table`` seats) goes to
  :func:`~blackjack_env.agents.jax_ppo.make_train`, which asks the policy for every seat,
  keeps in the loss only the decisions the table played (``active``), and credits each
  with its own seat's round net (:func:`~blackjack_env.agents.jax_ppo.seat_gae`).
* ``"table"``: one stream per table, :class:`ActingSeatEnv` below.

Measured (2026-12-01, 2 shared cores at load 9-11, vegas-strip, infinite deck, 3 seats,
4 seeds of 1.97M table steps each, the same seeds): per-seat streams reach a median exact
regret of 0.0028 (worst 0.0040) in 339 s wall (75 s compiling, 122 s training); the
table's stream 0.0052 (worst 0.0061) in 293 s (58 s compiling, 107 s training).

:class:`ActingSeatEnv` shows a :class:`~blackjack_env.jax.BlackjackJax` table of ``S``
learner seats to the PPO loop as one decision stream per table: each step the seat the
table waits for acts (the shared policy chooses for it, from that seat's observation and
mask), and the reward, on the step a round ends, is the table's: the seats' round nets
summed. Every seat's decisions are thus credited with the whole table's result (the other
seats' results add noise, not bias: under an infinite deck a seat's cards are independent
of the others'). The greedy policy is graded exactly as the one-seat run's (infinite
deck: the seats do not change a seat's expected return), so the regret is the same for
every seat.

    python -m blackjack_env.agents.jax_seats --seats 3 --total-timesteps 2000000
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from blackjack_env.agents.jax_ppo import JaxPPOConfig, rules_of, train_seeds
from blackjack_env.cli import atomic_path, check_output_file
from blackjack_env.jax import BlackjackJax
from blackjack_env.jax.seats import acting
from blackjack_env.jax.state import State

__all__ = ["ActingSeatEnv", "train_table"]


class ActingSeatEnv:
    """A table of several learner seats as one gymnax-style decision stream (see the
    module docstring): ``step(key, state, action, params)`` plays ``action`` for the seat
    the table waits for; ``(obs, state, reward, done, info)`` are that stream's: the
    next acting seat's observation and ``info["action_mask"]``, the table's round net
    (summed over seats) and the episode end."""

    def __init__(self, table: BlackjackJax) -> None:
        if table.seats < 2:
            raise ValueError("ActingSeatEnv needs a table of several seats (seats_per_table)")
        self.table = table
        self.num_actions = table.num_actions
        self.seats = table.seats

    @property
    def default_params(self) -> Any:
        return self.table.default_params

    def _acting(self, state: State) -> Any:
        return acting(state, self.table.config)

    def reset(self, key: Any, params: Any = None) -> tuple[Any, State]:
        obs, st = self.table.reset(key, params)
        return obs[self._acting(st)], st

    def step(self, key: Any, state: State, action: Any, params: Any = None) -> Any:
        s = self._acting(state)
        actions = jnp.zeros(self.seats, jnp.int32).at[s].set(jnp.asarray(action, jnp.int32))
        obs, st, reward, done, info = self.table.step(key, state, actions, params)
        nxt = self._acting(st)
        out = {
            "action_mask": info["action_mask"][nxt],
            "illegal_action": info["illegal_action"][s],
            "round_over": info["round_over"][0],
        }
        return obs[nxt], st, reward.sum(), done[0], out

    def action_mask(self, state: State, params: Any = None) -> Any:
        return self.table.action_mask(state, params)[self._acting(state)]


STREAMS = ("seat", "table")


def train_table(config: JaxPPOConfig, seats: int = 3, say: Any = None,
                streams: str = "seat") -> dict[str, Any]:
    """Train ``config.seeds`` shared policies at tables of ``seats`` learner seats, each
    learning from per-seat streams (``streams="seat"``) or the table's (``"table"``, see
    the module docstring); the exact regret of each seed's greedy policy along the curve
    (as ``train_seeds``). Steps are table steps (one decision of one seat) either way."""
    if streams not in STREAMS:
        raise ValueError(f"streams={streams!r}: choose one of {', '.join(STREAMS)}")
    table = BlackjackJax(rules=rules_of(config), obs_mode="vector", seats_per_table=seats)
    env: Any = table if streams == "seat" else ActingSeatEnv(table)
    res = train_seeds(config, env=env, env_params=env.default_params, say=say)
    out: dict[str, Any] = {
        "seats": seats, "streams": streams, "seeds": config.seeds, "timesteps": res.timesteps,
        "compile_seconds": res.compile_seconds, "train_seconds": res.train_seconds,
    }  # fmt: skip
    if res.grades is not None:
        regret = np.array([[g["regret"] for g in row] for row in res.grades])
        out["regret_median"] = np.median(regret, axis=0).tolist()
        out["regret_worst"] = regret.max(axis=0).tolist()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seats", type=int, default=3, help="learner seats per table (2..7)")
    ap.add_argument("--seeds", type=int, default=4, help="independent agents (vmap)")
    ap.add_argument("--total-timesteps", type=int, default=2_000_000, help="steps per seed")
    ap.add_argument("--rules", default="vegas-strip", help="rule preset (infinite deck)")
    ap.add_argument("--streams", default="seat", choices=STREAMS,
                    help="learn from each seat's stream or the table's summed one")
    ap.add_argument("--json", default=None, help="write the results here")
    args = ap.parse_args(argv)
    try:  # every input checked before the compile and the training (minutes)
        if args.json:
            check_output_file(args.json, "--json")
        config = replace(JaxPPOConfig(), rules=args.rules, decks=None, seeds=args.seeds,
                         total_timesteps=args.total_timesteps)  # fmt: skip
        BlackjackJax(rules=rules_of(config), obs_mode="vector", seats_per_table=args.seats)
    except ValueError as err:
        raise SystemExit(f"error: {err}") from None
    t0 = time.perf_counter()
    out = train_table(config, args.seats, say=print, streams=args.streams)
    out["wall_seconds"] = time.perf_counter() - t0
    out["backend"] = jax.default_backend()
    print(json.dumps({k: v for k, v in out.items() if k != "timesteps"}, indent=1))
    if args.json:
        with atomic_path(args.json) as tmp, open(tmp, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
