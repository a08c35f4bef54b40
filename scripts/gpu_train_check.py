"""The JAX PPO's GPU target, as one timed run: 16 seeds on vegas-strip (infinite deck) in one
``jit(vmap(train))`` program, every seed's greedy policy graded exactly.

Target (issue 23): median exact regret <= 0.002 over 16 seeds in <= 60 s wall on one H200,
compilation included. Prints a line per run and writes the figures as JSON (``--out``).
Called by ``scripts/gpu_check.sh``; runs on CPU too (slowly: give a small --timesteps).

    python scripts/gpu_train_check.py --out gpu_train.json
    python scripts/gpu_train_check.py --timesteps 20000000 --num-envs 2048 --out a.json
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="vegas-strip")
    parser.add_argument("--seeds", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timesteps", type=int, default=30_000_000, help="env steps per seed")
    parser.add_argument("--num-envs", type=int, default=2048, help="tables per seed")
    parser.add_argument("--num-steps", type=int, default=32)
    parser.add_argument("--minibatches", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--curve-points", type=int, default=4)
    parser.add_argument("--out", default="gpu_train_check.json")
    args = parser.parse_args(argv)

    import jax

    from blackjack_env.agents.jax_ppo import JaxPPOConfig, train_seeds

    config = JaxPPOConfig(
        rules=args.rules, decks=None, seeds=args.seeds, seed=args.seed,
        total_timesteps=args.timesteps, num_envs=args.num_envs, num_steps=args.num_steps,
        num_minibatches=args.minibatches, update_epochs=args.epochs, lr=args.lr,
        ent_coef=args.ent_coef, curve_points=args.curve_points)
    t0 = time.perf_counter()
    result = train_seeds(config, say=lambda line: print(line, flush=True))
    wall = time.perf_counter() - t0
    summary = result.summary()
    regrets = result.final_regrets()
    figures = {
        "devices": [str(d) for d in jax.devices()], "jax": jax.__version__,
        "host": platform.node(), "config": config.to_dict(),
        "wall_seconds_train_incl_compile": round(result.train_seconds, 2),
        "wall_seconds_total_incl_grading": round(wall, 2),
        "target": "median regret <= 0.002 over 16 seeds in <= 60 s (train incl. compile)",
        "met": bool(regrets is not None and summary["regret_median"] <= 0.002
                    and result.train_seconds <= 60.0 and config.seeds >= 16),
        "curve_regret_median": [
            float(sorted(g[p]["regret"] for g in result.grades)[(config.seeds - 1) // 2])
            for p in range(config.curve_points + 1)] if result.grades else None,
        "curve_timesteps": result.timesteps,
        **summary,
    }
    Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    print(f"jax-ppo {args.rules}: {config.seeds} seeds x {config.timesteps:,} steps on "
          f"{figures['devices']}: train {result.train_seconds:.1f} s (compile "
          f"{result.compile_seconds:.1f} s), regret median {summary.get('regret_median')}, "
          f"worst {summary.get('regret_worst')}; target met: {figures['met']}; -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
