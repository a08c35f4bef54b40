"""JAX PPO on a finite shoe with the count in its observation: what does it learn about the count?

Trains ``--seeds`` agents (masked PPO, :mod:`blackjack_env.agents.jax_ppo`) on the JAX table
with a 6-deck shoe (vegas-strip rules; the ``"vector"`` observation carries the Hi-Lo true
count and the fraction of the shoe left), then:

* **score**: each seed's greedy policy and basic strategy (the 6-deck chart) play the numpy
  batched env (1,024 tables, the same shoe rules) for ``--hands`` hands each: mean return
  per hand with a 95% interval. The exact analysis does not grade a finite shoe with a
  count-dependent policy (``analysis_reason``), so simulation is the grade here.
* **the count**: the greedy action of every seed at the classic Hi-Lo index plays (the
  "Illustrious 18" and "Fab 4" decisions: a hand total against an upcard), with the true
  count set to -6 .. +8 in the observation and every other field that of the hand (mid
  shoe). Each line gives the count from which each seed's action changes, beside the
  published index (Schlesinger's, 6 decks S17 DAS; hard hands of 3 cards where only stand
  / hit are asked).

The bet is fixed: the JAX table has no bet decision yet (issue 22), so this measures play
deviations only.

    python scripts/jax_ppo_counting.py --seeds 6 --timesteps 2000000 --out runs/count.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np

# (name, total, upcard value, cards, legal actions besides STAND/HIT, basic action,
#  deviation action, published index: deviate at true count >= index; "<" for at or below)
PLAYS: list[tuple[str, int, int, int, tuple[int, ...], int, int, str]] = [
    ("16 v T (3 cards)", 16, 10, 3, (), 1, 0, ">=0"),
    ("15 v T (3 cards)", 15, 10, 3, (), 1, 0, ">=4"),
    ("12 v 3 (3 cards)", 12, 3, 3, (), 1, 0, ">=2"),
    ("12 v 2 (3 cards)", 12, 2, 3, (), 1, 0, ">=3"),
    ("16 v 9 (3 cards)", 16, 9, 3, (), 1, 0, ">=5"),
    ("13 v 2 (3 cards)", 13, 2, 3, (), 0, 1, "<=-1"),
    ("12 v 4 (3 cards)", 12, 4, 3, (), 0, 1, "<0"),
    ("12 v 5 (3 cards)", 12, 5, 3, (), 0, 1, "<=-2"),
    ("12 v 6 (3 cards)", 12, 6, 3, (), 0, 1, "<=-1"),
    ("13 v 3 (3 cards)", 13, 3, 3, (), 0, 1, "<=-2"),
    ("11 v A", 11, 1, 2, (2, 4), 1, 2, ">=1"),
    ("10 v T", 10, 10, 2, (2, 4), 1, 2, ">=4"),
    ("10 v A", 10, 1, 2, (2, 4), 1, 2, ">=4"),
    ("9 v 2", 9, 2, 2, (2, 4), 1, 2, ">=1"),
    ("9 v 7", 9, 7, 2, (2, 4), 1, 2, ">=3"),
    ("14 v T (surrender)", 14, 10, 2, (2, 4), 1, 4, ">=3"),
    ("15 v 9 (surrender)", 15, 9, 2, (2, 4), 1, 4, ">=2"),
    ("15 v A (surrender)", 15, 1, 2, (2, 4), 1, 4, ">=1"),
]
COUNTS = list(range(-6, 9))
NAMES = ["STAND", "HIT", "DOUBLE", "SPLIT", "SURRENDER"]


def probe(total: int, up: int, cards: int, extra: tuple[int, ...], tc: float, hands: int) -> Any:
    """The vector observation (and mask) of a hand of ``cards`` cards, hard ``total``,
    against ``up``, at true count ``tc``, mid shoe (the fields of envs.view)."""
    from blackjack_env.envs import view

    obs = np.zeros(view.VECTOR_SIZE, np.float32)
    obs[view.VEC_PHASE + 0] = 1.0  # PLAY
    obs[view.VEC_TOTAL] = total / view.MAX_TOTAL
    obs[view.VEC_UPCARD] = up / view.UPCARD_HIGH
    obs[view.VEC_CAN_DOUBLE] = 2 in extra
    obs[view.VEC_CAN_SURRENDER] = 4 in extra
    obs[view.VEC_NUM_HANDS] = 1.0 / hands
    obs[view.VEC_CARDS] = min(cards / view.VEC_CARDS_SCALE, 1.0)
    obs[view.VEC_TRUE_COUNT] = np.clip(tc / view.VEC_COUNT_SCALE, -1.0, 1.0)
    obs[view.VEC_SHOE] = 0.5
    mask = np.zeros(5, np.int8)
    mask[[0, 1, *extra]] = 1
    return obs, mask


def simulate(choose: Any, hands: int, seed: int) -> dict[str, float]:
    """Mean return per hand of ``choose(env, obs, mask)`` in the numpy batched env
    (vegas-strip, 6 decks), with its 95% interval."""
    from blackjack_env.envs.vector import BlackjackVectorEnv

    env = BlackjackVectorEnv(1024, rules="vegas-strip", obs_mode="vector",
                             autoreset_mode="SameStep")  # fmt: skip
    obs, info = env.reset(seed=seed)
    n, s, q = 0, 0.0, 0.0
    while n < hands:
        a = choose(env, obs, info["action_mask"])
        obs, r, te, tr, info = env.step(a)
        d = te | tr
        n += int(d.sum())
        s += float(r[d].sum())
        q += float((r[d] ** 2).sum())
    mean = s / n
    se = float(np.sqrt((q / n - mean**2) / (n - 1)))
    return {"mean": mean, "ci95": 1.96 * se, "hands": n}


def switch_points(play: dict[str, Any]) -> list[int | None]:
    """Per seed, the true count from which the deviation is always taken (``">="`` plays:
    the lowest such count with every higher one deviating too; ``"<"`` plays: the highest
    count with every lower one deviating); None: never on the probed counts."""
    counts, dev = play["counts"], play["deviation"]
    up = play["published_index"].startswith(">")
    order = list(range(len(counts)))[::-1] if up else list(range(len(counts)))
    out: list[int | None] = []
    for row in play["actions_by_seed"]:
        point = None
        for i in order:
            if row[i] != dev:
                break
            point = counts[i]
        out.append(point)
    return out


def _letter(action: str) -> str:
    return "R" if action == "SURRENDER" else action[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=6, help="agents trained at once")
    ap.add_argument("--timesteps", type=int, default=2_000_000, help="env steps per seed")
    ap.add_argument("--num-envs", type=int, default=256, help="tables per seed")
    ap.add_argument("--hands", type=int, default=400_000, help="hands simulated per policy")
    ap.add_argument("--seed", type=int, default=1, help="seed of the run")
    ap.add_argument("--out", default="runs/jax_ppo_counting.json", help="JSON figures")
    args = ap.parse_args(argv)
    from blackjack_env.agents.jax_ppo import JaxPPOConfig, train_seeds
    from scripts.bench_jax import numpy_chart

    config = JaxPPOConfig(rules="vegas-strip", decks=6, seeds=args.seeds, seed=args.seed,
                          total_timesteps=args.timesteps, num_envs=args.num_envs,
                          curve_points=2)  # fmt: skip
    print(f"load average {os.getloadavg()}; {config.seeds} seeds x {config.timesteps:,} steps, "
          f"vegas-strip 6 decks", flush=True)  # fmt: skip
    t0 = time.perf_counter()
    result = train_seeds(config, grade=False, say=lambda line: print(line, flush=True))
    wall = time.perf_counter() - t0
    agents = [row[-1] for row in result.agents]
    figures: dict[str, Any] = {
        "config": config.to_dict(), "train_seconds": round(result.train_seconds, 1),
        "compile_seconds": round(result.compile_seconds, 1), "wall_seconds": round(wall, 1),
        "illegal_actions": int(result.metrics["illegal_actions"].sum()),
        "load_after_train": os.getloadavg(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }  # fmt: skip
    print(f"trained in {wall:.0f} s (compile {result.compile_seconds:.0f} s)", flush=True)
    chooser: list[Any] = []

    def basic_choose(env: Any, obs: Any, mask: Any) -> Any:
        if not chooser:
            chooser.append(numpy_chart(env))  # (the 6-deck chart, derived once)
        return chooser[0](mask)

    basic = simulate(basic_choose, args.hands, seed=100)
    figures["basic_strategy"] = basic
    print(f"basic strategy (6-deck chart): {basic['mean']:+.4f} +- {basic['ci95']:.4f}")
    figures["seeds"] = []
    for k, agent in enumerate(agents):
        res = simulate(lambda env, o, m, a=agent: a.greedy_batch(o, m), args.hands, seed=100)
        figures["seeds"].append(res)
        print(f"seed {k}: {res['mean']:+.4f} +- {res['ci95']:.4f}", flush=True)
    # the count
    from blackjack_env.jax import BlackjackJax

    hands = BlackjackJax(rules="vegas-strip").config.hands
    plays = []
    print(f"\n{'decision':22s} {'index':>6s}  " + " ".join(f"{c:+d}".rjust(3) for c in COUNTS)
          + "   (action per seed; letters: S stand H hit D double R surrender)")  # fmt: skip
    for name, total, up, cards, extra, base, dev, index in PLAYS:
        rows = []
        for agent in agents:
            obs, masks = zip(*(probe(total, up, cards, extra, tc, hands) for tc in COUNTS),
                             strict=True)  # fmt: skip
            acts = agent.greedy_batch(np.stack(obs), np.stack(masks))
            rows.append([NAMES[a] for a in acts])
        plays.append({
            "decision": name, "published_index": index, "basic": NAMES[base],
            "deviation": NAMES[dev], "counts": COUNTS, "actions_by_seed": rows,
        })  # fmt: skip
        for k, row in enumerate(rows):
            label = f"{name:22s} {index:>6s}" if k == 0 else " " * 29
            print(f"{label}  " + " ".join(f"{_letter(a):>3s}" for a in row), flush=True)
    print("\nlearned index (median over the seeds that deviate; published; per seed)")
    for play in plays:
        points = switch_points(play)
        play["learned_switch"] = points
        got = [q for q in points if q is not None]
        median = f"{float(np.median(got)):+.1f}" if got else "never"
        print(
            f"  {play['decision']:22s} {play['deviation']:9s} learned {median:>6s} "
            f"({len(got)}/{len(points)} seeds), published {play['published_index']:>5s}: "
            + ", ".join("never" if q is None else f"{q:+d}" for q in points)
        )
    figures["index_plays"] = plays
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(figures, fh, indent=1)
    print(f"-> {args.out}; load average {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.exit(main())
