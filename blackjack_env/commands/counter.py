"""``blackjack-counter``: the perfect counter's table, off the exact edge of every round.

Deals ``--rounds`` rounds of shoes cut at ``--penetration`` (shoe ``s`` shuffled by
``default_rng([seed, s])``), prices each round's pool exactly
(:func:`blackjack_env.analysis.counter.price_rounds`: the composition-dependent
return, tens of ms a round with numba installed) and prints
:func:`~blackjack_env.analysis.counter.counter_report`'s table: the ceiling of a
bet spread (``--spread``, largest bet where the edge is positive, smallest
otherwise, CD play), flat CD play, flat basic strategy (simulated), and the Hi-Lo
ramp of :class:`blackjack_env.agents.counting.BetSpread` (1-2-4-8 units from true
counts +2, +3, +4) graded both by the exact edge and by simulation on the same
rounds, with 95% intervals (shoes as clusters).

``--workers`` processes price at once (default: one per CPU core; 100,000 rounds of
6-deck vegas-strip take about 30 minutes on two cores). Every priced round is
appended to ``--store`` as it is priced: Ctrl-C prints the table of what was priced,
and the same command run again resumes where it stopped.
A store made with other rules, penetration or seed is refused, not overwritten.

Usage::

    blackjack-counter --rules vegas-strip --rounds 100000 --penetration 0.75
    blackjack-counter --rounds 200 --store /tmp/c.jsonl --json out.json
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from blackjack_env.agents.ceiling import pricing_bar
from blackjack_env.agents.counting import BetSpread
from blackjack_env.analysis.counter import (
    CounterRound,
    PricingInterrupted,
    check_store,
    counter_report,
    default_workers,
    price_rounds,
    speed_notice,
    store_name,
    stored_rounds,
)
from blackjack_env.cli import check_at_least, check_writable, option, preset_option, write_json
from blackjack_env.commands import UsageError, run_command

__all__ = ["Settings", "main", "run"]


@dataclass
class Settings:
    """The perfect counter: exact edge of every round of dealt shoes, bettors graded by it."""

    rules: Annotated[str, option("PRESET")] = "vegas-strip"
    """rule preset (see blackjack_env.list_presets())"""
    decks: Annotated[int | None, option("N", "the preset's")] = None
    """number of decks 1..8"""
    rounds: int = 100_000
    """rounds to deal and price"""
    penetration: float = 0.75
    """fraction of each shoe dealt before the cut card"""
    spread: Annotated[str, option("LO-HI")] = "1-8"
    """smallest and largest bet of the ceiling, in units"""
    seed: int = 0
    """seed of the shoes"""
    store: Annotated[str, option("FILE", "counter-RULES-DECKSd-PEN-SEED.jsonl")] = ""
    """JSON-lines file of the priced rounds (a rerun resumes from it)"""
    json: Annotated[str | None, option("FILE", "not written")] = None
    """write the table as JSON to this path"""
    workers: Annotated[int, option("N", "every core")] = 0
    """processes pricing at once (0: one per CPU core)"""
    progress: bool = True
    """show a progress bar on stderr"""


def _spread(text: str) -> tuple[int, int]:
    try:
        lo_s, hi_s = text.split("-")
        lo, hi = int(lo_s), int(hi_s)
    except ValueError:
        raise UsageError(f"--spread {text!r}: give LO-HI, two whole numbers such as 1-8") from None
    if not 0 < lo <= hi:
        raise UsageError(f"--spread {text!r}: needs 0 < LO <= HI")
    return lo, hi


def run(s: Settings) -> dict[str, Any]:
    """Check the options, price the rounds, print the table, write the JSON asked for."""
    rules = preset_option(s.rules)
    if s.decks is not None:
        check_at_least("decks", s.decks, 1, "decks in the shoe")
        if s.decks > 8:
            raise UsageError(f"--decks {s.decks}: 1 to 8 decks")
        rules = rules.replace(decks=s.decks)
    if rules.decks is None:
        raise UsageError(f"--rules {s.rules}: an infinite deck has nothing to count; give --decks")
    check_at_least("rounds", s.rounds, 1, "rounds to price")
    if not 0 < s.penetration < 1:
        raise UsageError(f"--penetration {s.penetration}: a fraction between 0 and 1")
    spread = _spread(s.spread)
    check_at_least("workers", s.workers, 0, "processes (0: one per core)")
    workers = s.workers or default_workers()
    check_writable("json", s.json)
    store = s.store or store_name(s.rules, rules.decks, s.penetration, s.seed)
    check_writable("store", store)
    check_store(rules, store, penetration=s.penetration, seed=s.seed)
    ramp = BetSpread()

    def hilo(r: CounterRound) -> float:
        return ramp.units_for(r.true_count)

    if (notice := speed_notice()) is not None:
        print(notice, file=sys.stderr, flush=True)
    priced: list[CounterRound] = []
    interrupted = False
    try:
        with pricing_bar(s.rounds, s.progress) as progress:
            priced = price_rounds(
                rules, s.rounds, penetration=s.penetration, seed=s.seed, store=store,
                progress=progress, workers=workers,
            )
    except KeyboardInterrupt as stop:
        interrupted = True
        # what was priced (a Ctrl-C while the rounds were dealt: what the store holds)
        priced = stop.priced if isinstance(stop, PricingInterrupted) else stored_rounds(
            rules, s.rounds, penetration=s.penetration, seed=s.seed, store=store)
    report = counter_report(priced, spread=spread, bettors={"Hi-Lo 1-2-4-8": hilo}) \
        if priced else None
    print(f"perfect counter: {rules.summary()}, penetration {s.penetration:g}, seed {s.seed}")
    if report is None:
        print("no round priced yet")
        raise KeyboardInterrupt
    print(f"{report.rounds:,} rounds of {report.shoes:,} shoes (store: {store})")
    print(report.table())
    print("\n".join(report.narrowing_lines()))
    out = {"rules": rules.to_dict(), "penetration": s.penetration, "seed": s.seed,
           "store": store, "complete": not interrupted, **report.to_dict()}
    if s.json:
        write_json(s.json, out)
    if interrupted:
        print(f"interrupted: {report.rounds:,} of {s.rounds:,} rounds priced; run the same "
              f"command again to resume")
        raise KeyboardInterrupt
    return out


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="blackjack-counter")


if __name__ == "__main__":
    sys.exit(main())
