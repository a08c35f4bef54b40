"""The priced rounds a bets task is graded on, shipped with the package.

A round set is the first ``N`` rounds of the shoes the perfect counter deals
(:func:`blackjack_env.analysis.counter.deal_rounds`: one seat, basic strategy, the cut
card at the penetration, shoe ``s`` shuffled by ``default_rng([seed, s])``), each with its
pool of unseen cards and its exact edge
(:func:`~blackjack_env.analysis.counter.price_rounds`), stored so that no user prices them
again: grading a bettor on the 15,000 rounds of ``spread-bet-rounds-v1.npz`` (344 shoes,
210 kB) takes a fraction of a second; pricing them took about 15 CPU-minutes with numba
(the ``fast`` extra).

File format (``blackjack_env/bench/data/NAME.npz``, no pickle): ``shoe`` and ``index``
(uint16: the shoe and the round's number in it), ``pool`` (uint8 ``[N, 13]``: the
unseen cards by rank, ace to king, before the deal), ``edge`` (float64: the exact CD
return of a round off that pool, per unit bet, as priced), ``net2`` (int16: twice what
the round paid basic strategy for a bet of one) and ``meta`` (a JSON string: the format,
the rules the rounds were dealt by, penetration, seed, the analysis method that priced
them, the number of rounds and shoes). The true count of each round is computed from
its pool when the file is read (``engine.play``'s Hi-Lo, as the dealing does).

The shipped file is made by ``python -m blackjack_env.bench.rounds`` (see :func:`main`),
which prices through a perfect-counter store, so an interrupted run resumes.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated

import numpy as np

from blackjack_env.analysis.composition import METHOD
from blackjack_env.analysis.counter import (
    CounterRound,
    default_workers,
    price_rounds,
    speed_notice,
)
from blackjack_env.cli import atomic_path, check_writable, option, run_command
from blackjack_env.engine.play import hi_lo_running_count, hi_lo_true_count
from blackjack_env.engine.rules import Rules, preset

__all__ = [
    "DATA",
    "FORMAT",
    "RoundSet",
    "load_round_set",
    "main",
    "round_set_digest",
    "round_set_path",
    "write_round_set",
]

#: Where the shipped round sets lie.
DATA = Path(__file__).resolve().parent / "data"
#: The format of a round set's file (its meta's ``format``).
FORMAT = "blackjack_env.bench.rounds/1"


@dataclass(frozen=True)
class RoundSet:
    """A set of priced rounds: the rules they were dealt by (one seat, the penetration
    set), the dealing seed, the analysis method that priced them, and the rounds in
    dealing order, each with its edge."""

    rules: Rules
    penetration: float
    seed: int
    method: int
    rounds: tuple[CounterRound, ...]

    @property
    def shoes(self) -> int:
        return len({r.shoe for r in self.rounds})

    @property
    def shoe_cards(self) -> int:
        """Cards in a full shoe."""
        return 52 * int(self.rules.shoe_decks or 0)


def round_set_path(name: str | Path) -> Path:
    """A shipped set by file name (``spread-bet-rounds-v1.npz``), or any path."""
    path = Path(name)
    return path if path.parent != Path(".") or path.exists() else DATA / path


@cache
def round_set_digest(name: str) -> str:
    """The SHA-256 (first 16 hex digits) of a round set's file: what a task's fingerprint
    holds, so other rounds make another task."""
    path = round_set_path(name)
    if not path.is_file():
        raise ValueError(f"{path}: the round set is missing (reinstall the package)")
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _round(shoe: int, index: int, pool: list[int], edge: float, net: float) -> CounterRound:
    """A stored round, its true count computed from its pool as the dealing computes it."""
    tc = hi_lo_true_count(hi_lo_running_count(pool), sum(pool))
    return CounterRound(shoe, index, tuple(pool), tc, net, edge)


@cache
def _load(path: Path) -> RoundSet:
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            arrays = {k: data[k] for k in ("shoe", "index", "pool", "edge", "net2")}
    except (OSError, KeyError, ValueError) as err:
        raise ValueError(f"{path}: not a round set ({err})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{path}: not a round set (its meta lacks the format {FORMAT!r})")
    rules = Rules.from_dict(meta["rules"])
    rounds = tuple(
        _round(int(s), int(i), [int(c) for c in pool], float(e), float(n) / 2.0)
        for s, i, pool, e, n in zip(arrays["shoe"], arrays["index"], arrays["pool"],
                                    arrays["edge"], arrays["net2"], strict=True))
    if len(rounds) != meta.get("rounds"):
        raise ValueError(f"{path}: a damaged round set ({len(rounds)} rounds, its meta says "
                         f"{meta.get('rounds')})")
    return RoundSet(rules, float(meta["penetration"]), int(meta["seed"]), int(meta["method"]),
                    rounds)


def load_round_set(name: str | Path) -> RoundSet:
    """Read a round set (a shipped one by file name, or a path); read once per process."""
    return _load(round_set_path(name).resolve())


def write_round_set(path: str | Path, rules: Rules, rounds: Sequence[CounterRound], *,
                    penetration: float, seed: int) -> Path:
    """Write priced ``rounds`` (in dealing order, every edge set) as a round set."""
    if any(r.edge is None for r in rounds):
        raise ValueError("every round needs its edge: price them with price_rounds")
    pools = np.array([r.pool for r in rounds], np.int64)
    nets = np.array([2.0 * r.net for r in rounds])
    if pools.max() > 255 or not np.array_equal(nets, np.rint(nets)):
        raise ValueError("a pool count above 255 or a net that is not a multiple of 1/2")
    meta = {"format": FORMAT, "rules": rules.replace(penetration=float(penetration),
                                                     seats=1).to_dict(),
            "penetration": float(penetration), "seed": int(seed), "method": METHOD,
            "rounds": len(rounds), "shoes": len({r.shoe for r in rounds})}
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        np.savez_compressed(
            f, meta=np.array(json.dumps(meta)),
            shoe=np.array([r.shoe for r in rounds], np.uint16),
            index=np.array([r.index for r in rounds], np.uint16),
            pool=pools.astype(np.uint8), edge=np.array([r.edge for r in rounds], np.float64),
            net2=nets.astype(np.int16))
    return Path(path)


@dataclass
class Settings:
    """Price the rounds of a bets task and write them as a round set (the shipped
    spread-bet-rounds-v1.npz: the defaults)."""

    rounds: int = 15_000
    """rounds to deal and price"""
    rules: Annotated[str, option("PRESET")] = "vegas-strip"
    """rule preset"""
    decks: int = 6
    """decks in the shoe"""
    penetration: float = 0.75
    """fraction of each shoe dealt before the cut card"""
    seed: int = 0
    """seed of the shoes"""
    store: Annotated[str, option("FILE")] = "round-set-store.jsonl"
    """the perfect counter's store of priced rounds (a rerun resumes from it)"""
    out: Annotated[str, option("FILE")] = "spread-bet-rounds.npz"
    """the round set to write"""
    workers: Annotated[int, option("N", "every core")] = 0
    """processes pricing at once (0: one per CPU core)"""


def _job(s: Settings) -> None:
    if s.rounds < 1 or not 1 <= s.decks <= 8 or not 0 < s.penetration < 1 or s.workers < 0:
        raise ValueError("--rounds >= 1, --decks 1..8, --penetration in (0, 1), --workers "
                         ">= 0")
    check_writable("out", s.out, suffixes=(".npz",))
    check_writable("store", s.store)
    rules = preset(s.rules).replace(decks=s.decks)
    if (notice := speed_notice()) is not None:
        print(notice, file=sys.stderr, flush=True)
    priced = price_rounds(rules, s.rounds, penetration=s.penetration, seed=s.seed,
                          store=s.store, workers=s.workers or default_workers())
    path = write_round_set(s.out, rules, priced, penetration=s.penetration, seed=s.seed)
    print(f"wrote {path}: {len(priced):,} rounds of {len({r.shoe for r in priced}):,} shoes, "
          f"{path.stat().st_size:,} bytes")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m blackjack_env.bench.rounds``: price rounds and write a round set."""
    return run_command(Settings, _job, argv, prog="python -m blackjack_env.bench.rounds")


if __name__ == "__main__":
    sys.exit(main())
