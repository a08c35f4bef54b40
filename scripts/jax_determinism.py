"""Same key, same trajectory: the JAX table's rollout hashed, run twice on the default device
(a GPU where there is one) and once on the CPU backend.

``N`` tables (vegas-strip, 6 decks; and sutton-barto, infinite deck) play ``T`` steps of
random legal actions chosen inside the loop from the same key; every step's actions,
rewards, episode ends and observations are hashed (SHA-256 of the arrays' bytes). Two runs
on one device must agree bit for bit (exit status 1 otherwise); the CPU run is compared
and reported (the cards and actions come from integer hashes, so they agree; a float32
reward or observation could differ in the last bit between backends, which is reported,
not failed). Writes the figures as JSON (``--out``).

    python scripts/jax_determinism.py --tables 4096 --steps 64 --out det.json
"""

from __future__ import annotations

import sys

try:
    import hashlib
    from collections.abc import Sequence
    from dataclasses import dataclass
    from typing import Annotated, Any

    import numpy as np

    from blackjack_env.cli import check_at_least, check_writable, option, run_command, write_json
except ImportError as err:
    print(f"error: blackjack_env is not installed ({err}): run pip install -e . in the "
          f"repository", file=sys.stderr)
    sys.exit(2)
except KeyboardInterrupt:
    print("error: interrupted", file=sys.stderr)
    sys.exit(130)


def make_rollout(rules: str, n: int, steps: int) -> Any:
    """The jitted rollout ``key -> (actions, rewards, ends, observations)`` (compiled once
    per device)."""
    import jax
    import jax.numpy as jnp

    from blackjack_env.jax import BlackjackJax

    env = BlackjackJax(rules=rules, obs_mode="vector")
    params = env.default_params
    step_v = jax.vmap(env.step, in_axes=(0, 0, 0, None))

    def body(carry: Any, key: Any) -> Any:
        state, mask = carry
        k_a, k_s = jax.random.split(key)
        u = jax.random.uniform(k_a, mask.shape)
        action = jnp.argmax(jnp.where(mask, u, -1.0), axis=1)
        obs, state, r, done, info = step_v(jax.random.split(k_s, n), state, action, params)
        return (state, info["action_mask"]), (action, r, done, obs)

    def run(key: Any) -> Any:
        k0, k1 = jax.random.split(key)
        _, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k0, n), params)
        carry = (state, env.action_mask(state, params))
        _, out = jax.lax.scan(body, carry, jax.random.split(k1, steps))
        return out

    return jax.jit(run)


def rollout(run: Any, device: Any) -> dict[str, str]:
    """Hashes of one rollout on ``device``."""
    import jax

    with jax.default_device(device):
        out = jax.tree.map(np.asarray, run(jax.random.PRNGKey(2026)))
    names = ("actions", "rewards", "ends", "observations")
    digests = {k: hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()[:16]
               for k, v in zip(names, out, strict=True)}  # fmt: skip
    digests["hands"] = str(int(out[2].sum()))
    digests["return_sum"] = f"{float(out[1].astype(np.float64).sum()):.6f}"
    return digests


@dataclass
class Settings:
    """Same key, same trajectory: the JAX table's rollout hashed, run twice on the default
    device and once on the CPU backend."""

    tables: int = 4096
    """tables N"""
    steps: int = 64
    """steps T of the rollout"""
    out: Annotated[str, option("FILE")] = "determinism.json"
    """the figures as JSON"""


def run(args: Settings) -> int:
    """Check the options (before jax starts), roll out, compare, print, write ``--out``;
    the exit status (1: two runs on one device differ)."""
    check_at_least("tables", args.tables, 1, "tables")
    check_at_least("steps", args.steps, 1, "steps of the rollout")
    check_writable("out", args.out)
    import jax

    default = jax.devices()[0]
    cpu = jax.devices("cpu")[0]
    figures: dict[str, Any] = {"device": str(default), "tables": args.tables, "steps": args.steps}
    ok = True
    for rules in ("vegas-strip", "sutton-barto"):
        run = make_rollout(rules, args.tables, args.steps)
        a = rollout(run, default)
        b = rollout(run, default)
        c = a if default.platform == "cpu" else rollout(run, cpu)
        same = a == b
        ok &= same
        figures[rules] = {
            "run_1": a, "run_2": b, "same_device_identical": same,
            "cpu": c, "cpu_identical": {k: a[k] == c[k] for k in a},
        }  # fmt: skip
        print(f"{rules}: {args.tables} tables x {args.steps} steps on {default}: two runs "
              f"{'identical' if same else 'DIFFER'}; against the CPU backend: "
              + ", ".join(f"{k} {'same' if a[k] == c[k] else 'differs'}" for k in a),
              flush=True)  # fmt: skip
    write_json(args.out, figures)
    return 0 if ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    status: list[int] = []
    code = run_command(Settings, lambda s: status.append(run(s)), argv,
                       prog="jax_determinism.py")
    return code or (status[0] if status else 0)


if __name__ == "__main__":
    sys.exit(main())
