"""JAX PPO on a 6-deck shoe with the count in its observation and a bet to choose: what it learns.

Trains ``--seeds`` agents (masked PPO, :mod:`blackjack_env.agents.jax_ppo`) on the JAX table
with a 6-deck shoe (vegas-strip rules; the ``"vector"`` observation carries the Hi-Lo true
count and the fraction of the shoe left) and a bet decision: every round opens with a BET
step offering ``--bet-sizes`` base bets (default 1,2,4,8: a 1-8 spread, the usual advice
for a 6-deck shoe and the spread of the project's Hi-Lo counter,
:class:`~blackjack_env.agents.counting.BetSpread`, so the learned bets meet a textbook ramp
of the same spread). Rewards are in base bets, so each agent maximises its net per round,
the bet's scale included. Then:

* **the bets** (a): each seed's greedy bet and its sampling policy's mean bet at every true
  count -6 .. +8 (the BET observation with half the shoe left), and the mean bet the
  greedy policy actually placed at each true count in the simulation below, beside the
  textbook Hi-Lo ramp (1 unit below +2, 2 from +2, 4 from +3, 8 from +4) and the flat
  basic-strategy player's simulated return per hand at each count (where the edge is).
* **the score** (b): each seed's greedy policy (bets and play), basic strategy at a flat
  bet of 1, and basic strategy with the textbook Hi-Lo ramp (the same sizes) play the
  numpy batched env (``BlackjackVectorEnv(bet_sizes=...)``: 1,024 tables, the same shoe
  rules, the same seed) for ``--hands`` rounds each: the mean return per round (in base
  bets) and per unit wagered (the net over the initial bets, doubles and splits not
  counted as wagered), each with a 95% interval (normal approximation; the per-unit one by
  the delta method). Basic strategy is the 6-deck chart. The exact analysis does not grade
  a finite shoe, so simulation is the grade here.
* **the play** (c): the greedy action of every seed at the classic Hi-Lo index plays (the
  "Illustrious 18" and "Fab 4" decisions: a hand total against an upcard), with the true
  count set to -6 .. +8 in the observation and every other field that of the hand (mid
  shoe). Each line gives the count from which each seed's action changes, beside the
  published index (Schlesinger's, 6 decks S17 DAS; hard hands of 3 cards where only stand
  / hit are asked).

An experiment, not library code: it lives beside the scripts it is run as (the ``[jax]``
extra)::

    python scripts/jax_ppo_counting.py --seeds 4 --timesteps 8000000 --out runs/count.json
    python scripts/jax_ppo_counting.py --help        # every option

Every option is checked before the training (minutes) starts; the JSON is written whole
at the end. Its pieces: ``probe`` (a hand's vector observation at a given true count),
``Tally`` (returns per hand and per unit wagered, with intervals, by count),
``simulate_bets`` (a chooser on the numpy env with a bet step), ``switch_points``,
``textbook_ramp``; ``--bet-sizes`` is read as every command reads it
(:func:`blackjack_env.commands.bet_sizes_option`).
"""

from __future__ import annotations

import sys

from _launch import importing

with importing():  # a missing package or Ctrl-C here: one line, status 2 / 130
    import json
    import os
    import time
    from collections.abc import Callable, Sequence
    from dataclasses import dataclass
    from typing import Annotated, Any

    import numpy as np

    from blackjack_env.agents.counting import BetSpread
    from blackjack_env.cli import (
        atomic_path,
        check_at_least,
        check_output_file,
        note_new_folder,
        option,
        run_command,
    )
    from blackjack_env.commands import bet_sizes_option
    from blackjack_env.envs import view
    from blackjack_env.envs.vector import BlackjackVectorEnv
    from blackjack_env.simulate import chart_policy

#: The index plays probed: (name, total, upcard value, cards, legal actions besides
#: STAND/HIT, basic action, deviation action, published index: deviate at true count >=
#: index; "<" for at or below).
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
#: The true counts probed and tallied (the ends stand for everything beyond them).
COUNTS = list(range(-6, 9))
#: The playing actions' names, by action number.
NAMES = ["STAND", "HIT", "DOUBLE", "SPLIT", "SURRENDER"]
#: vegas-strip's playing actions (the bet actions follow them).
N_PLAY = 5
#: The rules of the study (with a 6-deck shoe).
RULES = "vegas-strip"


def probe(total: int, up: int, cards: int, extra: tuple[int, ...], tc: float, hands: int) -> Any:
    """The vector observation (and mask) of a hand of ``cards`` cards, hard ``total``,
    against ``up``, at true count ``tc``, mid shoe (the fields of envs.view)."""
    facts = {name: 0 for name in view.reads(view.VECTOR_FIELDS)}
    facts.update(phase=0, total=total, upcard=up, can_double=int(2 in extra),  # PLAY
                 can_surrender=int(4 in extra), num_hands=1, cards=cards, true_count=tc,
                 shoe_left=0.5)
    obs = view.encode("vector", facts, hands)
    mask = np.zeros(N_PLAY, np.int8)
    mask[[0, 1, *extra]] = 1
    return obs, mask


def count_bin(tc: np.ndarray) -> np.ndarray:
    """The true-count bin of each round: ``c`` holds counts in ``[c, c + 1)``, the ends
    ``COUNTS[0]`` and ``COUNTS[-1]`` everything below and above."""
    return np.clip(np.floor(tc + 1e-6), COUNTS[0], COUNTS[-1]).astype(np.int64)


class Tally:
    """Sums over finished rounds: return ``r`` and initial bet ``b`` (base bets), in all
    and by true-count bin (at the round's BET step)."""

    def __init__(self) -> None:
        self.n = 0
        self.sums = np.zeros(5)  # r, r^2, b, b^2, r*b
        k = len(COUNTS)
        self.bin_n = np.zeros(k, np.int64)
        self.bin_r = np.zeros(k)
        self.bin_r2 = np.zeros(k)
        self.bin_b = np.zeros(k)

    def add(self, r: np.ndarray, b: np.ndarray, tc: np.ndarray) -> None:
        self.n += r.size
        self.sums += [r.sum(), (r * r).sum(), b.sum(), (b * b).sum(), (r * b).sum()]
        i = count_bin(tc) - COUNTS[0]
        np.add.at(self.bin_n, i, 1)
        np.add.at(self.bin_r, i, r)
        np.add.at(self.bin_r2, i, r * r)
        np.add.at(self.bin_b, i, b)

    def figures(self) -> dict[str, Any]:
        n = self.n
        er, er2, eb, eb2, erb = self.sums / n
        se = float(np.sqrt(max(er2 - er * er, 0.0) / (n - 1)))
        unit = er / eb  # net per unit initially wagered; delta method for its interval
        var_unit = max(er2 - 2 * unit * erb + unit * unit * eb2, 0.0) / (eb * eb)
        se_unit = float(np.sqrt(var_unit / (n - 1)))
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_r = self.bin_r / self.bin_n
            var = self.bin_r2 / self.bin_n - mean_r**2
            ci = 1.96 * np.sqrt(var / np.maximum(self.bin_n - 1, 1))
            mean_b = self.bin_b / self.bin_n
        return {
            "rounds": n, "per_hand": float(er), "per_hand_ci95": 1.96 * se,
            "per_unit_wagered": float(unit), "per_unit_wagered_ci95": 1.96 * se_unit,
            "mean_bet": float(eb),
            "by_count": {
                "counts": COUNTS, "rounds": self.bin_n.tolist(),
                "mean_bet": [None if not c else round(float(m), 3)
                             for c, m in zip(self.bin_n, mean_b, strict=True)],
                "per_hand": [None if not c else round(float(m), 5)
                             for c, m in zip(self.bin_n, mean_r, strict=True)],
                "per_hand_ci95": [None if c < 2 else round(float(h), 5)
                                  for c, h in zip(self.bin_n, ci, strict=True)],
            },
        }  # fmt: skip


def simulate_bets(choose: Callable[[Any, np.ndarray, np.ndarray], Any], sizes: tuple[int, ...],
                  hands: int, seed: int, tables: int = 1024) -> dict[str, Any]:
    """``hands`` rounds of ``choose(env, obs, mask) -> actions`` in the numpy batched env
    (vegas-strip, 6 decks, BET steps of ``sizes``): :meth:`Tally.figures`."""
    env = BlackjackVectorEnv(tables, rules=RULES, obs_mode="vector", bet_sizes=sizes,
                             autoreset_mode="SameStep")  # fmt: skip
    obs, info = env.reset(seed=seed)
    size = np.asarray(sizes, np.float64)
    bet = np.zeros(tables)
    tc = np.zeros(tables)
    tally = Tally()
    while tally.n < hands:
        mask = info["action_mask"]
        a = np.asarray(choose(env, obs, mask))
        at_bet = mask[:, N_PLAY:].any(axis=1)
        bet[at_bet] = size[a[at_bet] - N_PLAY]
        tc[at_bet] = obs[at_bet, view.VEC_TRUE_COUNT] * view.VEC_COUNT_SCALE
        obs, r, te, tr, info = env.step(a)
        done = te | tr
        tally.add(r[done].astype(np.float64), bet[done], tc[done])
    return tally.figures()


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


def textbook_ramp(sizes: tuple[int, ...]) -> Any:
    """The Hi-Lo ramp of the same sizes: ``sizes[k]`` from a true count of ``k + 1``
    (k >= 1), the smallest below +2 (:class:`BetSpread`'s default for 1,2,4,8)."""
    return BetSpread(units=sizes, thresholds=tuple(float(k + 1) for k in range(1, len(sizes))))


def _fmt(res: dict[str, Any]) -> str:
    return (f"{res['per_hand']:+.4f} +- {res['per_hand_ci95']:.4f} per hand, "
            f"{res['per_unit_wagered']:+.4f} +- {res['per_unit_wagered_ci95']:.4f} per unit "
            f"wagered (mean bet {res['mean_bet']:.2f})")


@dataclass
class Settings:
    """JAX PPO on a 6-deck shoe with the count in its observation and a bet to choose: what
    it learns (bets by count, the score against basic strategy, the index plays)."""

    seeds: int = 4
    """agents trained at once"""
    timesteps: int = 8_000_000
    """env steps per seed"""
    num_envs: int = 256
    """tables per seed"""
    bet_sizes: Annotated[str, option("SIZES")] = "1,2,4,8"
    """bet sizes in base bets, strictly increasing, separated by commas"""
    ent_coef: Annotated[float | None, option("FLOAT", "JaxPPOConfig's")] = None
    """entropy bonus"""
    hands: int = 2_000_000
    """rounds simulated per policy"""
    seed: int = 1
    """seed of the run"""
    out: Annotated[str, option("FILE")] = "runs/jax_ppo_counting.json"
    """the JSON figures"""


def run(args: Settings) -> dict[str, Any]:
    """Check every option (before the training: minutes), train, simulate, probe, print,
    write ``--out``; the figures written."""
    # deferred: loads flax, jax, optax (the optional [jax] extra)
    from blackjack_env.agents.jax_ppo import JaxPPOConfig, bets_by_count, play_agent, train_seeds

    sizes = bet_sizes_option(args.bet_sizes)
    check_at_least("hands", args.hands, 1, "rounds simulated per policy")
    extra = {} if args.ent_coef is None else {"ent_coef": args.ent_coef}
    check_output_file(args.out, "--out")
    config = JaxPPOConfig(rules=RULES, decks=6, seeds=args.seeds, seed=args.seed,
                          total_timesteps=args.timesteps, num_envs=args.num_envs,
                          curve_points=4, bet_sizes=sizes, **extra)  # fmt: skip
    print(f"load average {os.getloadavg()}; {config.seeds} seeds x {config.timesteps:,} steps, "
          f"{RULES} 6 decks, bets {sizes}", flush=True)  # fmt: skip
    t0 = time.perf_counter()
    result = train_seeds(config, grade=False, say=lambda line: print(line, flush=True))
    wall = time.perf_counter() - t0
    agents = [row[-1] for row in result.agents]
    bet_mean = result.metrics["bet_mean"]
    figures: dict[str, Any] = {
        "config": config.to_dict(), "train_seconds": round(result.train_seconds, 1),
        "compile_seconds": round(result.compile_seconds, 1), "wall_seconds": round(wall, 1),
        "illegal_actions": int(result.metrics["illegal_actions"].sum()),
        "bet_out_of_phase": int(result.metrics["bet_out_of_phase"].sum()),
        "sampled_bet_mean_by_update": [[round(float(x), 3) for x in row[:: max(1, len(row) // 20)]]
                                       for row in bet_mean],
        "load_after_train": os.getloadavg(),
        "simulator": "numpy batched env BlackjackVectorEnv(1024, rules='vegas-strip', "
                     f"obs_mode='vector', bet_sizes={sizes}, autoreset_mode='SameStep')",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }  # fmt: skip
    print(f"trained in {wall:.0f} s (compile {result.compile_seconds:.0f} s); sampled mean bet "
          f"in the last update by seed: {[round(float(x), 2) for x in bet_mean[:, -1]]}",
          flush=True)  # fmt: skip

    # (b) the score, and the bets actually placed by count
    chooser: list[Any] = []
    ramp = textbook_ramp(sizes)
    unit_index = {s: k for k, s in enumerate(sizes)}

    def basic_choose(env: Any, obs: Any, mask: Any, counting: bool) -> Any:
        if not chooser or chooser[0][0] is not env:
            chooser[:] = [(env, chart_policy(env))]  # (the 6-deck chart, derived once)
        a = chooser[0][1](mask)
        at_bet = mask[:, N_PLAY:].any(axis=1)
        if counting:
            tc = obs[:, view.VEC_TRUE_COUNT] * view.VEC_COUNT_SCALE
            bets = np.array([unit_index[ramp.units_for(float(t))] for t in tc])
        else:
            bets = np.zeros(len(a), np.int64)
        return np.where(at_bet, N_PLAY + bets, a)

    t1 = time.perf_counter()
    flat = simulate_bets(lambda e, o, m: basic_choose(e, o, m, False), sizes, args.hands, seed=100)
    print(f"basic strategy, flat bet {sizes[0]}:     {_fmt(flat)}", flush=True)
    hilo = simulate_bets(lambda e, o, m: basic_choose(e, o, m, True), sizes, args.hands, seed=100)
    print(f"basic strategy, Hi-Lo ramp:    {_fmt(hilo)}", flush=True)
    figures["basic_flat"] = flat
    figures["basic_hilo_ramp"] = hilo
    figures["hilo_ramp"] = {"units": list(ramp.units), "thresholds": list(ramp.thresholds),
                            "bet_by_count": [ramp.units_for(float(c)) for c in COUNTS]}
    figures["seeds"] = []
    for k, agent in enumerate(agents):
        def greedy(env: Any, o: np.ndarray, m: np.ndarray, a: Any = agent) -> Any:
            return a.greedy_batch(o, m)

        res = simulate_bets(greedy, sizes, args.hands, seed=100)
        figures["seeds"].append(res)
        print(f"seed {k}:                        {_fmt(res)}", flush=True)
    figures["simulation_seconds"] = round(time.perf_counter() - t1, 1)

    # (a) the bets by count
    probes = [bets_by_count(agent, sizes, COUNTS, shoe_left=0.5) for agent in agents]
    figures["bets_by_count_half_shoe"] = probes
    print("\nbets by true count (bin c: counts in [c, c+1); ends open): greedy bet at the "
          "count with half the shoe left / the sampling policy's mean bet there / the mean "
          "bet the greedy policy placed in the simulation")
    head = f"{'count':>5s} {'ramp':>4s} {'flat BS per hand':>17s} {'rounds':>8s}  "
    print(head + "  ".join(f"seed {k}: greedy/mean/placed" for k in range(len(agents))))
    fb = flat["by_count"]
    for i, c in enumerate(COUNTS):
        edge = "" if fb["per_hand"][i] is None else f"{fb['per_hand'][i]:+.4f}" + (
            "" if fb["per_hand_ci95"][i] is None else f"+-{fb['per_hand_ci95'][i]:.4f}")
        cells = []
        for k, p in enumerate(probes):
            placed = figures["seeds"][k]["by_count"]["mean_bet"][i]
            cells.append(f"{p['greedy_bet'][i]:>2d} / {p['mean_bet'][i]:4.2f} / "
                         + ("  -  " if placed is None else f"{placed:4.2f}"))
        print(f"{c:+5d} {ramp.units_for(float(c)):>4d} {edge:>17s} {fb['rounds'][i]:>8d}  "
              + "     ".join(f"{x:>22s}" for x in cells), flush=True)

    # (c) the play
    # deferred: loads jax (the optional [jax] extra)
    from blackjack_env.jax import BlackjackJax

    hands = BlackjackJax(rules=RULES).config.hands
    plays_agents = [play_agent(a, N_PLAY) for a in agents]
    plays = []
    print(f"\n{'decision':22s} {'index':>6s}  " + " ".join(f"{c:+d}".rjust(3) for c in COUNTS)
          + "   (action per seed; letters: S stand H hit D double R surrender)")  # fmt: skip
    for name, total, up, cards, extra_actions, base, dev, index in PLAYS:
        rows = []
        for agent in plays_agents:
            obs, masks = zip(*(probe(total, up, cards, extra_actions, tc, hands)
                               for tc in COUNTS), strict=True)  # fmt: skip
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
            f"  {play['deviation']:9s} {play['decision']:22s} learned {median:>6s} "
            f"({len(got)}/{len(points)} seeds), published {play['published_index']:>5s}: "
            + ", ".join("never" if q is None else f"{q:+d}" for q in points)
        )
    figures["index_plays"] = plays
    figures["total_wall_seconds"] = round(time.perf_counter() - t0, 1)
    figures["load_at_end"] = os.getloadavg()
    note_new_folder(args.out)
    with atomic_path(args.out) as tmp, open(tmp, "w") as fh:
        json.dump(figures, fh, indent=1)
    print(f"-> {args.out}; load average {os.getloadavg()}")
    return figures


def main(argv: Sequence[str] | None = None,
         prog: str = "python scripts/jax_ppo_counting.py") -> int:
    """The command line (see the module docstring); its exit status."""
    return run_command(Settings, run, argv, prog=prog)


if __name__ == "__main__":
    sys.exit(main())
