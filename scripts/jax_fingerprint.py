"""The JAX table's trajectory fingerprint: hashes of eleven configurations' rollouts, to
show that a refactor of :mod:`blackjack_env.jax` changed no trajectory, bit for bit.

Each configuration is a :class:`blackjack_env.jax.BlackjackJax` built through the public
API only (constructor keywords, ``reset``, ``step``, ``action_mask``, ``default_params``,
``jax.vmap`` and ``jax.jit``), so the same script runs on the tree before and after a
change. ``--tables`` tables (default 512) are reset from one fixed key and play ``--steps``
steps (default 300) inside one jitted ``lax.scan``; each step's action is a uniformly
random legal one (the argmax of uniform noise over the mask ``info["action_mask"]`` of
the previous step, ``env.action_mask`` after the reset), drawn from the same fixed key
sequence. With several seats every seat gets a random legal action (the table plays the
one it waits for). The configurations:

    sutton-barto (tuple obs), vegas-strip (vector), vegas-strip with 3 and with 5 seats
    (multidiscrete, vector), bets (bet_sizes, vector), bets with a bankroll and 4-round
    episodes (dict), illegal_action="penalize" (vector), european-no-hole-card
    (multidiscrete), vegas-strip on an infinite deck (vector), vegas-strip with the dict
    and the multidiscrete observations

For each configuration it hashes (SHA-256 over the arrays' bytes, in a fixed order):
the reset observation, and per step the actions played, observations, rewards, ``done``,
and every ``info`` entry (sorted by key; ``final_observation`` and dict/tuple
observations leaf by leaf, dict keys sorted), with each array's dtype and shape; it also
reports the number of rounds ended and the return's sum. ``--out FILE`` writes the hashes
as JSON; ``--compare FILE`` compares with such a file and exits 1 naming the
configurations that differ (``--only NAME`` runs a subset).

    BLACKJACK_ENV_PURE=1 python scripts/jax_fingerprint.py --out jax_before.json
    BLACKJACK_ENV_PURE=1 python scripts/jax_fingerprint.py --compare jax_before.json
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np

from blackjack_env.cli import check_at_least, check_writable, option, run_command, write_json

#: name -> BlackjackJax keywords
CONFIGS: dict[str, dict[str, Any]] = {
    "sutton-barto": {"rules": "sutton-barto", "obs_mode": "tuple"},
    "vegas-strip": {"rules": "vegas-strip", "obs_mode": "vector"},
    "seats-3": {"rules": "vegas-strip", "seats_per_table": 3, "obs_mode": "multidiscrete"},
    "seats-5": {"rules": "vegas-strip", "seats_per_table": 5, "obs_mode": "vector"},
    "bets": {"rules": "vegas-strip", "bet_sizes": (1, 2, 4, 8), "obs_mode": "vector"},
    "bets-bankroll": {
        "rules": "vegas-strip",
        "bet_sizes": (1, 2, 5),
        "bankroll": 20,
        "rounds_per_episode": 4,
        "obs_mode": "dict",
    },
    "penalize": {
        "rules": "vegas-strip",
        "illegal_action": "penalize",
        "illegal_penalty": 0.5,
        "obs_mode": "vector",
    },
    "european": {"rules": "european-no-hole-card", "obs_mode": "multidiscrete"},
    "infinite-deck": {"rules": "vegas-strip", "decks": None, "obs_mode": "vector"},
    "dict": {"rules": "vegas-strip", "obs_mode": "dict", "insurance_decisions": True},
    "multidiscrete": {"rules": "downtown-h17", "obs_mode": "multidiscrete"},
}


def leaves(tree: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """``(path, array)`` of a dict/tuple/list tree in a fixed order (dict keys sorted)."""
    if isinstance(tree, dict):
        return [kv for k in sorted(tree) for kv in leaves(tree[k], f"{prefix}/{k}")]
    if isinstance(tree, (tuple, list)):
        return [kv for i, v in enumerate(tree) for kv in leaves(v, f"{prefix}/{i}")]
    return [(prefix, tree)]


def digest(tree: Any) -> str:
    """SHA-256 (first 16 hex digits) over every leaf's path, dtype, shape and bytes."""
    h = hashlib.sha256()
    for path, value in leaves(tree):
        a = np.ascontiguousarray(np.asarray(value))
        h.update(f"{path}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def fingerprint(name: str, n: int, steps: int, seed: int) -> dict[str, Any]:
    """The hashes of one configuration's rollout."""
    import jax
    import jax.numpy as jnp

    from blackjack_env.jax import BlackjackJax

    env = BlackjackJax(**CONFIGS[name])
    params = env.default_params
    step_v = jax.vmap(env.step, in_axes=(0, 0, 0, None))

    def body(carry: Any, key: Any) -> Any:
        state, mask = carry
        k_a, k_s = jax.random.split(key)
        u = jax.random.uniform(k_a, mask.shape)
        action = jnp.argmax(jnp.where(mask, u, -1.0), axis=-1)
        obs, state, reward, done, info = step_v(jax.random.split(k_s, n), state, action, params)
        return (state, info["action_mask"]), (action, obs, reward, done, info)

    def run(key: Any) -> Any:
        k0, k1 = jax.random.split(key)
        obs0, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k0, n), params)
        carry = (state, env.action_mask(state, params))
        _, out = jax.lax.scan(body, carry, jax.random.split(k1, steps))
        return obs0, out

    t0 = time.perf_counter()
    obs0, (action, obs, reward, done, info) = jax.tree.map(
        np.asarray, jax.jit(run)(jax.random.PRNGKey(seed))
    )
    seconds = time.perf_counter() - t0
    over = np.asarray(info["round_over"])
    return {
        "reset_obs": digest(obs0),
        "actions": digest(action),
        "observations": digest(obs),
        "rewards": digest(reward),
        "done": digest(done),
        "info": {k: digest(info[k]) for k in sorted(info)},
        "rounds": int(over.sum()),
        "return_sum": f"{float(np.asarray(reward, np.float64).sum()):.6f}",
        "seconds": round(seconds, 2),
    }


def differences(got: dict[str, Any], want: dict[str, Any]) -> list[str]:
    """The configurations whose hashes differ (or that one side lacks), with the field."""
    bad = []
    for name in sorted(set(got["configs"]) | set(want["configs"])):
        a, b = got["configs"].get(name), want["configs"].get(name)
        if a is None or b is None:
            bad.append(f"{name}: only in {'the baseline' if a is None else 'this run'}")
            continue
        keys = [k for k in sorted(set(a) | set(b)) if k != "seconds" and a.get(k) != b.get(k)]
        if keys:
            bad.append(f"{name}: {', '.join(keys)}")
    return bad


@dataclass
class Settings:
    """The JAX table's trajectory hashes over fixed configurations (see the module
    docstring); ``--compare`` exits 1 naming each configuration that differs."""

    tables: int = 512
    """tables played side by side in each configuration"""
    steps: int = 300
    """steps of random legal actions"""
    seed: int = 2026
    """the key's seed"""
    only: Annotated[tuple[str, ...], option("NAME [NAME ...]", "all")] = ()
    """a subset of the configurations"""
    out: Annotated[str, option("FILE", "not written")] = ""
    """write the hashes as JSON to this file"""
    compare: Annotated[str, option("FILE", "no comparison")] = ""
    """compare with this JSON file (exit 1 on a difference)"""


def run(args: Settings) -> int:
    """Check the options (before jax starts), hash each configuration, print, write
    ``--out``, compare with ``--compare``; the exit status (1: a difference)."""
    check_at_least("tables", args.tables, 1, "tables")
    check_at_least("steps", args.steps, 1, "steps")
    unknown = sorted(set(args.only) - set(CONFIGS))
    if unknown:
        raise ValueError(f"--only {' '.join(unknown)}: not a configuration; the "
                         f"configurations are {', '.join(CONFIGS)}")  # fmt: skip
    check_writable("out", args.out)
    want = None
    if args.compare:
        try:
            with open(args.compare) as fh:
                want = json.load(fh)
        except (OSError, ValueError) as exc:
            raise ValueError(f"--compare: cannot read {args.compare}: {exc}") from None
        for k in ("tables", "steps", "seed"):
            if want.get(k) != getattr(args, k):
                raise ValueError(f"--compare: {args.compare} has {k}={want.get(k)}, this "
                                 f"run {getattr(args, k)}")  # fmt: skip
    names = list(args.only) or list(CONFIGS)
    result: dict[str, Any] = {
        "tables": args.tables, "steps": args.steps, "seed": args.seed, "configs": {},
    }  # fmt: skip
    for name in names:
        result["configs"][name] = fp = fingerprint(name, args.tables, args.steps, args.seed)
        print(f"{name:14s} obs {fp['observations']} rewards {fp['rewards']} rounds "
              f"{fp['rounds']:7d} return {fp['return_sum']:>12s} ({fp['seconds']} s)",
              flush=True)  # fmt: skip
    if args.out:
        write_json(args.out, result)
    if want is not None:
        if args.only:
            want = {**want, "configs": {k: v for k, v in want["configs"].items() if k in names}}
        bad = differences(result, want)
        if bad:
            print("DIFFERENT from " + args.compare + ":\n  " + "\n  ".join(bad))
            return 1
        print(f"identical to {args.compare} ({len(names)} configurations)")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    status: list[int] = []
    code = run_command(Settings, lambda s: status.append(run(s)), argv,
                       prog="jax_fingerprint.py")
    return code or (status[0] if status else 0)


if __name__ == "__main__":
    sys.exit(main())
