"""CPU time of ``composition_return`` before and after its compiled kernels, in one run.

For 1, 2, 6 and 8 decks of a rule set (default ``vegas-strip``) it times
:func:`blackjack_env.analysis.composition_return` on a full shoe and on a depleted
pool (the shoe with its first third dealt, a fixed seed), three ways:

* ``before``: the code of another checkout (``--before``, e.g. the commit before the
  kernels), imported in a subprocess with ``PYTHONPATH`` set to it (a fresh process
  for each call, so no cached context of an earlier call serves it);
* ``pure``: this checkout's pure Python / numpy path (``compiled=False``);
* ``numba``: this checkout's compiled kernels (``compiled=True``; needs the ``fast``
  extra), timed after one warm-up call (the first call compiles, or loads numba's
  cache).

Each time is the process CPU time of one cold call (``time.process_time``, one
core; the contexts cached by earlier calls are cleared first), the best of
``--repeats``; the kernels' figure is checked against the pure path's to 1e-9. The
``before`` code's own return is printed beside (``before return``): code older than
the split policy of hhoppe/blackjack (the pair cards resplits drew are out of the
pool) gives other figures, by up to 0.003 points at one deck.
Only the ``before`` columns need ``--before``; without it they are skipped.

Usage::

    python scripts/bench_composition.py --before /path/to/old/checkout
    python scripts/bench_composition.py --decks 6 --repeats 1 --json bench.json
"""

from __future__ import annotations

import sys

from _launch import importing

with importing():  # a missing package or Ctrl-C here: one line, status 2 / 130
    import json
    import os
    import subprocess
    import time
    from collections.abc import Sequence
    from dataclasses import dataclass, field
    from pathlib import Path
    from typing import Annotated

    import numpy as np

    from blackjack_env.analysis import composition_return, kernels
    from blackjack_env.analysis.composition import clear_cache
    from blackjack_env.cli import (
        check_at_least,
        check_writable,
        finish_benchmark,
        option,
        run_command,
    )
    from blackjack_env.engine import Shoe, preset


@dataclass
class Settings:
    """CPU time of composition_return before and after its compiled kernels."""

    rules: str = "vegas-strip"
    """rule preset (its deck count is replaced by each of --decks)"""
    decks: list[int] = field(default_factory=lambda: [1, 2, 6, 8])
    """deck counts to time"""
    repeats: int = 3
    """calls per measurement; the least CPU time is reported"""
    before: Annotated[str | None, option("DIR", "skipped")] = None
    """a checkout of the code to compare against (its repository root)"""
    json: Annotated[str | None, option("FILE", "not written")] = None
    """write the figures as JSON to this path"""


def pools(rules_name: str, decks: int) -> dict[str, list[int]]:
    """The full shoe and a fixed depleted pool (the first third of a seeded shoe dealt)."""
    full = [4 * decks] * 13
    shoe = Shoe(decks, np.random.default_rng(7))
    for _ in range(52 * decks // 3):
        shoe.draw()
    return {"full": full, "depleted": list(shoe.remaining_by_rank())}


_CHILD = """
import json, sys, time
from blackjack_env.analysis import composition_return
from blackjack_env.engine import preset
rules_name, decks, pool = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
rules = preset(rules_name).replace(decks=decks)
t = time.process_time()
value = composition_return(rules, pool).expected_return
print(json.dumps([time.process_time() - t, value]))
"""


def time_before(before: str, rules_name: str, decks: int, repeats: int, pools_: dict) -> dict:
    """``{pool name: [best CPU seconds, return]}`` of the ``--before`` code, one fresh
    process per call."""
    env = dict(os.environ, PYTHONPATH=before, BLACKJACK_ENV_PURE="1")
    out = {}
    for name, pool in pools_.items():
        best, value = float("inf"), 0.0
        for _ in range(repeats):
            done = subprocess.run(
                [sys.executable, "-c", _CHILD, rules_name, str(decks), json.dumps(pool)],
                env=env, capture_output=True, text=True, check=False, cwd=before,
            )
            if done.returncode != 0:
                last = done.stderr.strip().splitlines()[-1:]
                raise RuntimeError(f"the --before code failed: {last}")
            took, value = json.loads(done.stdout.strip().splitlines()[-1])
            best = min(best, took)
        out[name] = [best, value]
    return out


def time_here(rules, pool: list[int], repeats: int, compiled: bool) -> tuple[float, float]:
    if compiled:
        composition_return(rules, pool, compiled=True)  # compile / load the cache
    best, value = float("inf"), 0.0
    for _ in range(repeats):
        clear_cache()
        t = time.process_time()
        value = composition_return(rules, pool, compiled=compiled).expected_return
        best = min(best, time.process_time() - t)
    return best, value


def run(settings: Settings) -> dict:
    """Check the options, measure, print, write the JSON asked for."""
    check_at_least("repeats", settings.repeats, 1, "calls per measurement")
    for d in settings.decks:
        check_at_least("decks", d, 1, "deck counts")
    check_writable("json", settings.json)
    base = preset(settings.rules)
    if settings.before is not None and not (Path(settings.before) / "blackjack_env").is_dir():
        raise ValueError(f"--before {settings.before!r}: no blackjack_env package there")
    print(f"composition_return CPU time (one core, best of {settings.repeats}), "
          f"{settings.rules}; numba: {'yes' if kernels.AVAILABLE else 'not installed'}")
    print(f"{'decks':>5} {'pool':>9} {'before':>9} {'pure':>9} {'numba':>9} "
          f"{'speed-up':>9}  {'return':>10}  {'before return':>13}")
    results: dict = {"rules": settings.rules, "rows": []}
    for decks in settings.decks:
        rules = base.replace(decks=decks)
        pools_ = pools(settings.rules, decks)
        before = (
            time_before(settings.before, settings.rules, decks, settings.repeats, pools_)
            if settings.before
            else {}
        )
        for name, pool in pools_.items():
            pure_t, pure_v = time_here(rules, pool, settings.repeats, False)
            fast_t, fast_v = (
                time_here(rules, pool, settings.repeats, True)
                if kernels.AVAILABLE
                else (float("nan"), pure_v)
            )
            before_t, before_v = before.get(name, (float("nan"), float("nan")))
            if abs(fast_v - pure_v) > 1e-9:
                raise RuntimeError(f"numba {fast_v!r} differs from pure {pure_v!r}")
            ref = before_t if before else pure_t
            speed = ref / fast_t if fast_t == fast_t else float("nan")
            print(f"{decks:5d} {name:>9} {before_t * 1e3:7.0f}ms {pure_t * 1e3:7.0f}ms "
                  f"{fast_t * 1e3:7.1f}ms {speed:8.1f}x  {fast_v:+.7f}  {before_v:+13.7f}")
            results["rows"].append({
                "decks": decks, "pool": name, "before_s": before_t, "pure_s": pure_t,
                "numba_s": fast_t, "speedup": speed, "expected_return": fast_v,
                "before_return": before_v,
            })
    finish_benchmark(results, settings, settings.json)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="bench_composition.py")


if __name__ == "__main__":
    sys.exit(main())
