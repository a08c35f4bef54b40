"""The perfect counter: the exact edge of every round of dealt shoes, and bettors graded by it.

:func:`price_rounds` deals shoes round by round on an engine :class:`.Table` (one seat,
bet 1, basic strategy, the cut card at ``penetration``; shoe ``s`` is shuffled by
``numpy.random.default_rng([seed, s])``), and for each round records the pool of
unseen cards before the deal, its exact composition-dependent return
(:func:`.composition_return`: CDZ- play of that round off that pool, per unit bet),
the Hi-Lo true count (:func:`.hi_lo_true_count`) and what the round actually paid
basic strategy. Rounds are written one JSON line each as they are priced, so an
interrupted run keeps what it priced and a rerun with the same settings resumes
(the shoes are dealt again, only the pricing is skipped).

:func:`counter_report` turns those rounds into the table of ``docs/counting.md``:

* ``ceiling``: the best bettor of a spread ``lo..hi`` with CD play, betting ``hi``
  where the round's exact edge is positive and ``lo`` otherwise (this maximises the
  expected net of each round, so no bettor of that spread does better on these
  rounds);
* ``flat CD``: one unit every round, CD play (the mean exact edge);
* ``flat basic``: one unit every round, basic strategy, *simulated* (what the rounds
  paid);
* each bettor given (a function of the round's :class:`CounterRound`, e.g. the Hi-Lo
  1-8 ramp): its bets graded two ways on the same rounds, by the exact edge
  (``sum(bet * edge) / sum(bet)``: no outcome noise, CD play) and by simulation
  (``sum(bet * net) / sum(bet)``, basic-strategy play), with the ratio of the two
  intervals' widths.

Intervals are 95% normal intervals with the shoe as the unit of sampling (the rounds
of one shoe are correlated): the ratio estimator's standard error from per-shoe
sums. The exact-edge rows vary only with the shoes dealt; the simulated ones also
with every round's outcome.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

import numpy as np

from blackjack_env.analysis import kernels
from blackjack_env.analysis.composition import METHOD, composition_return
from blackjack_env.analysis.strategy import BasicStrategy
from blackjack_env.engine.play import hi_lo_running_count, hi_lo_true_count
from blackjack_env.engine.rules import Rules
from blackjack_env.engine.table import Action, Phase, Table

__all__ = [
    "CounterReport",
    "CounterRound",
    "CounterRow",
    "PricingInterrupted",
    "ceiling_fraction",
    "check_store",
    "counter_report",
    "deal_rounds",
    "default_workers",
    "perfect_counter",
    "price_rounds",
    "speed_notice",
    "store_name",
    "stored_rounds",
]

Z95 = 1.959963984540054  # two-sided 95% normal quantile


@dataclass(frozen=True)
class CounterRound:
    """One round of a dealt shoe, before its deal.

    ``shoe``: the shoe's index; ``index``: the round's number in the shoe (0 first);
    ``pool``: the unseen cards by rank (ace to king); ``true_count``: Hi-Lo's true
    count of the cards seen; ``net``: what the round paid basic strategy for a bet of
    one unit; ``edge``: the exact CD return of a round off ``pool`` (None until priced).
    """

    shoe: int
    index: int
    pool: tuple[int, ...]
    true_count: float
    net: float
    edge: float | None = None

    @property
    def cards_left(self) -> int:
        return sum(self.pool)


def deal_rounds(
    rules: Rules, rounds: int, *, penetration: float = 0.75, seed: int = 0
) -> Iterator[CounterRound]:
    """The first ``rounds`` rounds of shoes ``0, 1, ...`` (see the module docstring),
    unpriced. Deterministic: the same arguments give the same rounds."""
    if rules.decks is None:
        raise ValueError("the perfect counter needs a finite shoe (rules.decks is None)")
    if not (isinstance(rounds, int) and rounds >= 1):
        raise ValueError(f"rounds={rounds!r} must be an int >= 1")
    if not (isinstance(penetration, float | int) and 0 < penetration < 1):
        raise ValueError(f"penetration={penetration!r} must be a fraction in (0, 1)")
    table_rules = rules.replace(penetration=float(penetration), seats=1)
    strategy = BasicStrategy(table_rules)
    done = 0
    shoe = 0
    while done < rounds:
        table = Table(table_rules, np.random.default_rng([seed, shoe]))
        index = 0
        while done < rounds:
            pool = table.shoe.remaining_by_rank()
            tc = hi_lo_true_count(hi_lo_running_count(pool), sum(pool))
            table.bet(0, 1)
            table.deal()
            while table.to_act is not None:
                if table.phase is Phase.INSURANCE:
                    table.act(Action.DECLINE)
                else:
                    table.act(strategy(table))
            yield CounterRound(shoe, index, tuple(pool), tc, float(table.seats[0].net))
            done += 1
            index += 1
            if table.new_round():  # the cut card came out: this shoe is done
                break
        shoe += 1


def _header(rules: Rules, penetration: float, seed: int) -> dict[str, Any]:
    # the rules the rounds are dealt by (one seat, cut at the penetration): any table of
    # these rules deals the same rounds, so every command of them shares one store; the
    # method version: edges priced by another version of the analysis are not mixed in
    return {
        "rules": rules.replace(penetration=float(penetration), seats=1).to_dict(),
        "penetration": float(penetration),
        "seed": seed,
        "method": METHOD,
    }


def _check_header(path: Path, first_line: str, header: dict[str, Any]) -> None:
    """Refuse (ValueError, one line) a store whose first line is not ``header``: not a
    store, priced by another version of the analysis, or of other settings (named)."""
    try:
        first = json.loads(first_line)
    except json.JSONDecodeError:
        first = None
    theirs = first.get("header") if isinstance(first, dict) and len(first) == 1 else None
    if not isinstance(theirs, dict):
        raise ValueError(f"{path}: not a perfect-counter store (first line)")
    if theirs == header:
        return
    differ = sorted(k for k in header.keys() | theirs.keys() if theirs.get(k) != header.get(k))
    if differ == ["method"]:
        raise ValueError(
            f"{path} holds edges priced by another version of the analysis "
            f"(method {theirs.get('method', 1)}, this is {METHOD}: splits changed); "
            f"give another path to price the rounds again"
        )
    rules_then = theirs.get("rules")
    if "rules" in differ and isinstance(rules_then, dict):  # name the rules that differ
        fields = sorted(k for k in header["rules"].keys() | rules_then.keys()
                        if rules_then.get(k) != header["rules"].get(k))
        differ[differ.index("rules")] = f"rules: {', '.join(fields)}"
    raise ValueError(
        f"{path} holds rounds of other settings (different {'; '.join(differ)}); give "
        f"another path or the same rules, penetration and seed"
    )


def check_store(
    rules: Rules, store: str | Path, *, penetration: float = 0.75, seed: int = 0
) -> None:
    """Refuse now (ValueError) a store :func:`price_rounds` would refuse with these
    settings, reading its first line only: a command checks it before any work. A
    missing or empty store passes."""
    path = Path(store)
    if path.is_file() and path.stat().st_size > 0:
        with path.open() as f:
            _check_header(path, f.readline(), _header(rules, penetration, seed))


def _read_store(path: Path, header: dict[str, Any]) -> dict[tuple[int, int], float]:
    """The edges a store holds, by ``(shoe, round)``; a line cut short by an interruption
    (and anything after it) is dropped from the file. Refuses (ValueError, the file
    untouched) a file of other settings or of another version of the analysis."""
    text = path.read_text()
    lines = text.splitlines()
    _check_header(path, lines[0], header)
    known: dict[tuple[int, int], float] = {}
    good = 1
    for line in lines[1:]:
        try:
            rec = json.loads(line)
            known[rec["shoe"], rec["round"]] = float(rec["edge"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            break  # a line cut short by an interruption: priced again
        good += 1
    if good < len(lines) or not text.endswith("\n"):
        # drop the cut line (and anything after it) before appending
        path.write_text("".join(line + "\n" for line in lines[:good]))
    return known


def _open_store(
    store: str | Path | None, header: dict[str, Any]
) -> tuple[dict[tuple[int, int], float], IO[str] | None]:
    """What ``store`` holds, and the file opened to append to (None: no store)."""
    if store is None:
        return {}, None
    path = Path(store)
    if path.exists() and path.stat().st_size > 0:
        known = _read_store(path, header)
        return known, path.open("a")
    path.parent.mkdir(parents=True, exist_ok=True)
    out = path.open("w")
    out.write(json.dumps({"header": header}) + "\n")
    out.flush()
    return {}, out


def store_name(rules_name: str, decks: int, penetration: float, seed: int) -> str:
    """The default file name of a store (the commands' ``--store`` / ``--ceiling-store``):
    ``counter-<rules>-<decks>d-<penetration>-<seed>.jsonl``, one per setting."""
    return f"counter-{rules_name}-{decks}d-{penetration:g}-{seed}.jsonl"


def stored_rounds(
    rules: Rules,
    rounds: int,
    *,
    penetration: float = 0.75,
    seed: int = 0,
    store: str | Path,
) -> list[CounterRound]:
    """The rounds among the first ``rounds`` of :func:`deal_rounds` whose edges
    ``store`` holds (in dealing order, each with its edge): what an interrupted
    :func:`price_rounds` priced. Nothing is priced; a missing store holds nothing."""
    path = Path(store)
    if not path.exists() or path.stat().st_size == 0:
        return []
    known = _read_store(path, _header(rules, penetration, seed))
    return [
        replace(r, edge=known[r.shoe, r.index])
        for r in deal_rounds(rules, rounds, penetration=penetration, seed=seed)
        if (r.shoe, r.index) in known
    ]


def _pricing_worker(rules: Rules, tasks: Any, results: Any) -> None:
    """A pricing process: prices the pools of ``tasks`` until a None, putting ``(pool,
    edge)`` (or ``(None, message)`` when pricing fails) on ``results``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    while (pool := tasks.get()) is not None:
        try:
            edge = composition_return(rules, list(pool)).expected_return
        except Exception as err:  # said in the parent, which stops the others
            results.put((None, f"pricing the pool {pool} failed: {err!r}"))
            return
        results.put((pool, edge))


def _price_in_processes(
    rules: Rules,
    pools: list[tuple[int, ...]],
    workers: int,
    record: Callable[[tuple[int, ...], float], None],
) -> None:
    """Price ``pools`` in ``workers`` spawned processes, calling ``record(pool, edge)`` in
    this process as each is priced. On any exception here (Ctrl-C among them) the
    processes are terminated before it propagates."""
    ctx = multiprocessing.get_context("spawn")
    tasks, results = ctx.Queue(), ctx.Queue()
    for pool in pools:
        tasks.put(pool)
    for _ in range(workers):
        tasks.put(None)
    procs = [ctx.Process(target=_pricing_worker, args=(rules, tasks, results), daemon=True)
             for _ in range(workers)]
    # started with SIGINT ignored (kept through exec), so a Ctrl-C while they import
    # reaches only this process; put back at once
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        for proc in procs:
            proc.start()
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
    try:
        left = len(pools)
        while left:
            try:
                pool, edge = results.get(timeout=1.0)
            except queue.Empty:
                if not any(proc.is_alive() for proc in procs):
                    raise RuntimeError("every pricing process ended early") from None
                continue
            if pool is None:
                raise RuntimeError(str(edge))
            record(pool, edge)
            left -= 1
    except BaseException:
        for proc in procs:
            proc.terminate()
        raise
    finally:
        for proc in procs:
            proc.join()
        for q in (tasks, results):
            q.cancel_join_thread()  # nothing left to flush to processes that are gone
            q.close()


def speed_notice() -> str | None:
    """What a command says before it prices rounds without numba (the ``fast`` extra):
    each round then takes seconds, not tens of ms; None when the kernels are there."""
    if kernels.AVAILABLE:
        return None
    return ('note: numba is not installed, so each round is priced in pure Python '
            '(seconds a round, about 100x slower): pip install -e ".[fast]"')


def default_workers() -> int:
    """The CPU cores this process may run on (the default number of pricing processes)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class PricingInterrupted(KeyboardInterrupt):
    """Ctrl-C while :func:`price_rounds` prices: ``priced`` holds the rounds priced before
    it (in dealing order, each with its edge), so a caller can report them without
    dealing the rounds again. A ``KeyboardInterrupt``, so ``except KeyboardInterrupt``
    still catches it."""

    def __init__(self, priced: list[CounterRound]) -> None:
        super().__init__("interrupted")
        self.priced = priced


def price_rounds(
    rules: Rules,
    rounds: int,
    *,
    penetration: float = 0.75,
    seed: int = 0,
    store: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
) -> list[CounterRound]:
    """:func:`deal_rounds` with each round's exact edge, in dealing order.

    ``store``: a JSON-lines file; each priced round is appended (and flushed) as it is
    priced, and rounds already there (from an interrupted run with the same rules,
    penetration and seed) are read back instead of priced again. A file made with
    other settings, or priced by another version of the analysis
    (:data:`~blackjack_env.analysis.composition.METHOD`), is refused (ValueError), not
    overwritten. Rounds whose pools are equal (the first round of every shoe: a full
    shoe) are priced once.

    ``workers``: processes pricing at once (``1``: this process; more: a pool of
    processes started with ``spawn``, each pricing whole pools, so the edges are the
    same to the last bit; the store's lines then come in the order they finish). A
    script that asks for more than one worker must call this under ``if __name__ ==
    "__main__":``, as every use of spawned processes must.
    ``progress(done, rounds)`` is called as rounds are priced. Ctrl-C while pricing
    stops the workers and raises :class:`PricingInterrupted` (a KeyboardInterrupt) with
    the rounds priced; what was priced stays in ``store`` (:func:`stored_rounds` reads
    it back in another process).
    """
    if not (isinstance(workers, int) and workers >= 1):
        raise ValueError(f"workers={workers!r} must be an int >= 1")
    dealt = list(deal_rounds(rules, rounds, penetration=penetration, seed=seed))
    known, out_file = _open_store(store, _header(rules, penetration, seed))
    try:
        todo: dict[tuple[int, ...], list[tuple[int, int]]] = {}
        for r in dealt:
            if (r.shoe, r.index) not in known:
                todo.setdefault(r.pool, []).append((r.shoe, r.index))
        done = len(dealt) - sum(len(keys) for keys in todo.values())
        if progress is not None:
            progress(done, len(dealt))

        def record(pool: tuple[int, ...], edge: float) -> None:
            nonlocal done
            for shoe, index in todo[pool]:
                known[shoe, index] = edge
                if out_file is not None:
                    out_file.write(json.dumps({"shoe": shoe, "round": index, "edge": edge}) + "\n")
            if out_file is not None:
                out_file.flush()
            done += len(todo[pool])
            if progress is not None:
                progress(done, len(dealt))

        if workers == 1 or len(todo) <= 1:
            for pool in todo:
                record(pool, composition_return(rules, list(pool)).expected_return)
        else:
            _price_in_processes(rules, list(todo), min(workers, len(todo)), record)
    except KeyboardInterrupt as stop:
        held = [replace(r, edge=known[r.shoe, r.index]) for r in dealt
                if (r.shoe, r.index) in known]
        raise PricingInterrupted(held) from stop
    finally:
        if out_file is not None:
            out_file.close()
    return [replace(r, edge=known[r.shoe, r.index]) for r in dealt]


@dataclass(frozen=True)
class CounterRow:
    """One line of the table: mean net per round (base units) and per unit wagered,
    each with its 95% interval half-width, and how it was measured."""

    name: str
    per_round: float
    per_round_ci: float
    per_unit: float
    per_unit_ci: float
    measured: str  # "exact" (exact edges of the rounds' pools) or "simulated"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "per_round": self.per_round,
            "per_round_ci95": self.per_round_ci,
            "per_unit_wagered": self.per_unit,
            "per_unit_wagered_ci95": self.per_unit_ci,
            "measured": self.measured,
        }


@dataclass(frozen=True)
class CounterReport:
    """:func:`counter_report`'s table. ``narrowing[name]``: for each bettor, the
    simulated per-unit interval's width over the exact-edge grade's (same rounds)."""

    rounds: int
    shoes: int
    spread: tuple[int, int]
    rows: tuple[CounterRow, ...]
    narrowing: dict[str, float]

    def row(self, name: str) -> CounterRow:
        return next(r for r in self.rows if r.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "shoes": self.shoes,
            "spread": list(self.spread),
            "rows": [r.to_dict() for r in self.rows],
            "interval_narrowing": self.narrowing,
        }

    def narrowing_lines(self) -> list[str]:
        """For each bettor, how much narrower its exact-edge grade's interval is than its
        simulated result's on the same rounds (the lines the commands print)."""
        return [
            f"{name}: the exact-edge grade's interval is {ratio:.1f}x narrower than "
            f"simulation's on the same rounds (variance {ratio ** 2:.0f}x smaller)"
            for name, ratio in self.narrowing.items()
        ]

    def table(self) -> str:
        """The report as a Markdown table."""
        lines = [
            "| bettor / play | measured | net per round (units) | per unit wagered |",
            "|---|---|---|---|",
        ]
        for r in self.rows:
            lines.append(
                f"| {r.name} | {r.measured} | {r.per_round:+.5f} ± {r.per_round_ci:.5f} "
                f"| {r.per_unit:+.5f} ± {r.per_unit_ci:.5f} |"
            )
        return "\n".join(lines)


def _ratio(num: np.ndarray, den: np.ndarray, shoe: np.ndarray) -> tuple[float, float]:
    """``sum(num) / sum(den)`` and its 95% half-width, shoes as clusters."""
    total = float(den.sum())
    r = float(num.sum()) / total
    ids, inv = np.unique(shoe, return_inverse=True)
    s = len(ids)
    if s < 2:
        return r, float("nan")
    res = np.bincount(inv, weights=num - r * den, minlength=s)
    se = math.sqrt(s / (s - 1) * float((res**2).sum())) / total
    return r, Z95 * se


def ceiling_fraction(
    rounds: Sequence[CounterRound], bets: Sequence[float], *, spread: tuple[int, int] = (1, 8)
) -> tuple[float, float]:
    """How much of the ceiling ``bets`` earn on priced ``rounds``: the expected net per
    round of the bets (``sum(bet * edge)``) over the ceiling's of the spread ``lo..hi`` on
    the same rounds (``hi`` where the edge is positive, ``lo`` otherwise; see
    :func:`counter_report`), and that ratio's 95% half-width with the shoe as the unit of
    sampling (as the report's intervals). 1 is the ceiling itself; flat betting of ``lo``
    loses (a negative fraction) where the mean edge is negative."""
    if not rounds:
        raise ValueError("no rounds to grade bets on")
    if len(bets) != len(rounds):
        raise ValueError(f"{len(bets)} bets for {len(rounds)} rounds")
    if any(r.edge is None for r in rounds):
        raise ValueError("every round needs its edge: price them with price_rounds")
    lo, hi = spread
    edge = np.array([r.edge for r in rounds], float)
    bet = np.asarray(bets, float)
    if (bet <= 0).any() or not np.isfinite(bet).all():
        raise ValueError("every bet must be a positive number")
    ceiling = np.where(edge > 0, float(hi), float(lo)) * edge
    if ceiling.sum() <= 0:
        raise ValueError("the ceiling earns nothing on these rounds: no fraction of it")
    shoe = np.array([r.shoe for r in rounds])
    return _ratio(bet * edge, ceiling, shoe)


def counter_report(
    rounds: list[CounterRound],
    *,
    spread: tuple[int, int] = (1, 8),
    bettors: Mapping[str, Callable[[CounterRound], float]] | None = None,
) -> CounterReport:
    """The table of the module docstring for priced ``rounds`` (every ``edge`` set)."""
    if not rounds:
        raise ValueError("no rounds to report on")
    lo, hi = spread
    if not (0 < lo <= hi):
        raise ValueError(
            f"spread={spread!r} must be (smallest, largest) bets, 0 < smallest <= largest"
        )
    if any(r.edge is None for r in rounds):
        raise ValueError("every round needs its edge: price them with price_rounds")
    edge = np.array([r.edge for r in rounds], float)
    net = np.array([r.net for r in rounds], float)
    shoe = np.array([r.shoe for r in rounds])
    ones = np.ones_like(edge)

    def row(name: str, bets: np.ndarray, value: np.ndarray, measured: str) -> CounterRow:
        per_round, per_round_ci = _ratio(bets * value, ones, shoe)
        per_unit, per_unit_ci = _ratio(bets * value, bets, shoe)
        return CounterRow(name, per_round, per_round_ci, per_unit, per_unit_ci, measured)

    ceiling = np.where(edge > 0, float(hi), float(lo))
    rows = [
        row(f"ceiling: spread {lo}-{hi} on the exact edge, CD play", ceiling, edge, "exact"),
        row("flat, CD play", ones, edge, "exact"),
        row("flat, basic strategy", ones, net, "simulated"),
    ]
    narrowing: dict[str, float] = {}
    for name, bettor in (bettors or {}).items():
        bets = np.array([float(bettor(r)) for r in rounds])
        if (bets <= 0).any() or not np.isfinite(bets).all():
            raise ValueError(f"bettor {name!r} gave a bet that is not a positive number")
        exact = row(f"{name}: bets graded by the exact edge, CD play", bets, edge, "exact")
        sim = row(f"{name}: simulated, basic strategy", bets, net, "simulated")
        rows += [exact, sim]
        narrowing[name] = sim.per_unit_ci / exact.per_unit_ci if exact.per_unit_ci > 0 else math.inf
    return CounterReport(
        rounds=len(rounds),
        shoes=len(np.unique(shoe)),
        spread=(lo, hi),
        rows=tuple(rows),
        narrowing=narrowing,
    )


def perfect_counter(
    rules: Rules,
    rounds: int,
    *,
    penetration: float = 0.75,
    seed: int = 0,
    spread: tuple[int, int] = (1, 8),
    bettors: Mapping[str, Callable[[CounterRound], float]] | None = None,
    store: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
) -> CounterReport:
    """The perfect counter's table for ``rounds`` rounds of shoes dealt at
    ``penetration`` (:func:`price_rounds`, then :func:`counter_report`).

    Example: ``perfect_counter(preset("vegas-strip"), 100, bettors={"Hi-Lo 1-8":
    lambda r: 8 if r.true_count >= 4 else 1})``. Cost: one
    :func:`.composition_return` per round (tens of ms with numba installed), shared
    between ``workers`` processes.
    """
    priced = price_rounds(
        rules, rounds, penetration=penetration, seed=seed, store=store, progress=progress,
        workers=workers,
    )
    return counter_report(priced, spread=spread, bettors=bettors)
