"""Engine throughput: full rounds per second against Gymnasium's Blackjack-v1.

Plays complete rounds on :class:`blackjack_env.engine.Table` with a fixed
strategy (hit below 17, stand otherwise: the dealer's rule) and, in the same
run, plays hands of ``gymnasium.make("Blackjack-v1")`` with the same strategy,
then prints hands per second and the ratio. Each measurement is the best of
``--repeats`` timed blocks (the least disturbed by other load on the machine).
It says whether the engine runs compiled (the default install, see README) or
from source (``BLACKJACK_ENV_PURE=1``).

Usage::

    python scripts/bench_engine.py                # default figures
    python scripts/bench_engine.py --hands 50000 --json bench_engine.json
"""

from __future__ import annotations

import sys

from _launch import importing

with importing():  # a missing package or Ctrl-C here: one line, status 2 / 130
    import time
    from collections.abc import Sequence
    from dataclasses import dataclass
    from typing import Annotated

    import gymnasium as gym

    import blackjack_env
    from blackjack_env.cli import (
        check_at_least,
        check_writable,
        finish_benchmark,
        option,
        run_command,
    )
    from blackjack_env.engine import Action, Phase, Table, preset


@dataclass
class Settings:
    """Engine throughput: full rounds per second against Gymnasium's Blackjack-v1."""

    hands: int = 50_000
    """hands per timed block"""
    repeats: int = 3
    """timed blocks per measurement; the best is reported"""
    seed: int = 0
    """seed for every generator"""
    json: Annotated[str | None, option("FILE", "not written")] = None
    """write the figures as JSON to this path"""


def gym_hands_per_second(hands: int, seed: int) -> float:
    env = gym.make("Blackjack-v1")
    obs, _ = env.reset(seed=seed)
    done_hands = 0
    start = time.perf_counter()
    while done_hands < hands:
        obs, _, terminated, truncated, _ = env.step(1 if obs[0] < 17 else 0)
        if terminated or truncated:
            done_hands += 1
            obs, _ = env.reset()
    return hands / (time.perf_counter() - start)


def engine_hands_per_second(rules_name: str, seats: int, hands: int, seed: int) -> float:
    """Rounds per second x seats (hands dealt per second) on the engine table."""
    rules = preset(rules_name)
    if seats != rules.seats:
        rules = rules.replace(seats=seats)
    table = Table(rules, seed=seed)
    rounds = max(1, hands // seats)
    hit, stand, decline = Action.HIT, Action.STAND, Action.DECLINE
    insurance = Phase.INSURANCE
    start = time.perf_counter()
    for _ in range(rounds):
        for i in range(seats):
            table.bet(i, 1)
        table.deal()
        while table.to_act is not None:
            if table.phase is insurance:
                table.act(decline)
            else:
                table.act(hit if table.current_hand.total < 17 else stand)
        table.new_round()
    return rounds * seats / (time.perf_counter() - start)


def best(fn, repeats: int, *args) -> float:
    return max(fn(*args) for _ in range(repeats))


def run(settings: Settings) -> dict:
    """Check the options, measure, print, write the JSON asked for."""
    check_at_least("hands", settings.hands, 1, "hands per timed block")
    check_at_least("repeats", settings.repeats, 1, "timed blocks per measurement")
    check_writable("json", settings.json)
    cases = [("sutton-barto", 1), ("vegas-strip", 1), ("vegas-strip", 7)]
    compiled = all(blackjack_env.compiled_modules().values())
    print(f"engine: {'compiled (mypyc)' if compiled else 'pure Python source'}")
    gym_rate = best(gym_hands_per_second, settings.repeats, settings.hands, settings.seed)
    print(f"Gymnasium Blackjack-v1 (gym.make, wrappers on): {gym_rate:12,.0f} hands/s")
    results = {"gymnasium_hands_per_s": gym_rate, "engine_compiled": compiled, "cases": []}
    for name, seats in cases:
        rate = best(
            engine_hands_per_second, settings.repeats, name, seats, settings.hands, settings.seed
        )
        ratio = rate / gym_rate
        print(f"engine {name:<14} seats={seats}:          {rate:12,.0f} hands/s  = {ratio:5.2f}x")
        results["cases"].append(
            {"rules": name, "seats": seats, "hands_per_s": rate, "ratio_vs_gymnasium": ratio}
        )
    finish_benchmark(results, settings, settings.json)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="bench_engine.py")


if __name__ == "__main__":
    sys.exit(main())
