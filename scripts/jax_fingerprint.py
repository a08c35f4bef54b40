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

import argparse
import hashlib
import json
import sys
import time
from typing import Any

import numpy as np

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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=512)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--only", nargs="*", choices=sorted(CONFIGS), help="a subset of configs")
    ap.add_argument("--out", help="write the hashes as JSON to this file")
    ap.add_argument("--compare", help="compare with this JSON file (exit 1 on a difference)")
    args = ap.parse_args(argv)
    want = None
    if args.compare:
        try:
            with open(args.compare) as fh:
                want = json.load(fh)
        except (OSError, ValueError) as exc:
            print(f"--compare: cannot read {args.compare}: {exc}", file=sys.stderr)
            return 2
        for k in ("tables", "steps", "seed"):
            if want.get(k) != getattr(args, k):
                print(f"--compare: {args.compare} has {k}={want.get(k)}, this run "
                      f"{getattr(args, k)}", file=sys.stderr)  # fmt: skip
                return 2
    names = args.only or list(CONFIGS)
    result: dict[str, Any] = {
        "tables": args.tables, "steps": args.steps, "seed": args.seed, "configs": {},
    }  # fmt: skip
    for name in names:
        result["configs"][name] = fp = fingerprint(name, args.tables, args.steps, args.seed)
        print(f"{name:14s} obs {fp['observations']} rewards {fp['rewards']} rounds "
              f"{fp['rounds']:7d} return {fp['return_sum']:>12s} ({fp['seconds']} s)",
              flush=True)  # fmt: skip
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(result, fh, indent=1, sort_keys=True)
            fh.write("\n")
    if want is not None:
        if args.only:
            want = {**want, "configs": {k: v for k, v in want["configs"].items() if k in names}}
        bad = differences(result, want)
        if bad:
            print("DIFFERENT from " + args.compare + ":\n  " + "\n  ".join(bad))
            return 1
        print(f"identical to {args.compare} ({len(names)} configurations)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
