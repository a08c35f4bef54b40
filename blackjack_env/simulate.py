"""Simulate fixed policies for many hands on the batched tables, over many processes.

:func:`simulate` plays a fixed policy for ``hands`` rounds on the batched env
(:class:`~blackjack_env.envs.vector.BlackjackVectorEnv`) and returns the mean
return per round with its 99% confidence interval and the frequency of every
round result. The work is cut into **fixed chunks** of ``tables x
rounds_per_table`` rounds; chunk ``i`` is seeded by the ``i``-th child of
``numpy.random.SeedSequence(seed).spawn(n_chunks)`` and builds its own fresh
tables (fresh shoes) from it. Chunks are handed to ``workers`` processes, and
their results are combined in chunk order, so the numbers for a seed are the
same, bit for bit, whatever the number of workers (1 runs in-process). The worker
processes are started by :func:`worker_context` (``forkserver``, or ``spawn``), never
by a plain ``fork`` of the caller: a caller that has loaded JAX (or any library that
runs threads) would be copied mid-thread, which JAX warns "will likely lead to a
deadlock". A callable policy therefore reaches the workers by pickling: a function
defined at the top of a module (a script's under ``if __name__ == "__main__":``).

Each table of a chunk counts its first ``rounds_per_table`` rounds (every
table the same number), so long rounds (splits) are not under-counted as they
would be by stopping at the first N settled rounds of the whole batch.

Policies (``policy=``):

* ``"basic"``: the basic-strategy chart of the rules
  (:func:`blackjack_env.analysis.basic_strategy_chart`), played as charts are
  read ("D" = double else hit, "Rh" = surrender else hit, ...); insurance
  never taken;
* ``"dealer"``: hit below 17, else stand; ``"never-bust"``: hit a hard total of
  11 or less and a soft total below 19; ``"stand"``: always stand;
* ``"random"``: a uniformly random legal action;
* a picklable callable ``policy(env, obs, mask, rng) -> actions``: ``env`` the
  ``BlackjackVectorEnv`` (its ``batch`` arrays hold the cards), ``obs`` the
  multidiscrete observation batch, ``mask`` the int8 legal-action mask,
  ``rng`` a generator for the chunk; it returns one action per table.

Command line (``--help`` lists the options; a bad option ends it with one line
``error: ...`` before any work)::

    python -m blackjack_env.simulate --policy basic --rules vegas-strip --hands 2000000 --workers 2
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Annotated, Any

import numpy as np

from blackjack_env.analysis import basic_strategy_chart
from blackjack_env.cli import (
    check_at_least,
    check_writable,
    option,
    preset_option,
    run_command,
    write_json,
)
from blackjack_env.engine.play import pair_table
from blackjack_env.engine.rules import Rules, preset
from blackjack_env.envs.step import DECISION_BY_BATCH_PHASE
from blackjack_env.envs.vector import BlackjackVectorEnv
from blackjack_env.envs.view import MD_HAND_INDEX, MD_PHASE, MD_SOFT, MD_TOTAL, MD_UPCARD

__all__ = ["POLICIES", "SimulationResult", "basic_policy", "chart_policy", "simulate",
           "worker_context"]

Policy = Callable[[BlackjackVectorEnv, np.ndarray, np.ndarray, np.random.Generator], np.ndarray]
#: two-sided 95% normal quantile (1.95996...)
Z95 = NormalDist().inv_cdf(0.975)
Env = BlackjackVectorEnv
Arr = np.ndarray
_STAND, _HIT, _DOUBLE, _SPLIT, _SURRENDER = range(5)


@dataclass(frozen=True)
class SimulationResult:
    """Totals of a simulation (returns are per round, in base bets)."""

    policy: str
    rules: str
    hands: int
    seed: int
    chunks: int
    mean: float
    std: float
    ci95: tuple[float, float]  # 95% confidence interval of ``mean``
    outcomes: dict[str, float]  # round result (as text) -> frequency

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ------------------------------------------------------------------ policies
def _random(env: Env, obs: Arr, mask: Arr, rng: np.random.Generator) -> Arr:
    counts = np.cumsum(mask, axis=1, dtype=np.int64)
    pick = (rng.random(mask.shape[0]) * counts[:, -1]).astype(np.int64)
    return (counts > pick[:, None]).argmax(axis=1)


def _stand(env: Env, obs: Arr, mask: Arr, rng: np.random.Generator) -> Arr:
    return np.zeros(mask.shape[0], dtype=np.int64)


def _dealer(env: Env, obs: Arr, mask: Arr, rng: np.random.Generator) -> Arr:
    return np.where((obs[:, MD_TOTAL] < 17) & (mask[:, _HIT] > 0), _HIT, _STAND)


def _never_bust(env: Env, obs: Arr, mask: Arr, rng: np.random.Generator) -> Arr:
    total, soft = obs[:, MD_TOTAL], obs[:, MD_SOFT] > 0
    hit = (~soft & (total <= 11)) | (soft & (total < 19))
    return np.where(hit & (mask[:, _HIT] > 0), _HIT, _STAND)


# chart codes
_H, _S, _D, _DS, _P, _RH, _RS, _RP = range(8)
_CODE = {"H": _H, "S": _S, "D": _D, "Ds": _DS, "P": _P, "Rh": _RH, "Rs": _RS, "Rp": _RP}


class basic_policy:
    """The rules' basic-strategy chart as a batched policy (picklable)."""

    def __init__(self, rules: Rules) -> None:
        chart = basic_strategy_chart(rules)
        cols = {}
        for k, label in enumerate(chart.upcards):
            cols[k] = 1 if label == "A" else 10 if label == "T" else int(label)
        default = np.where(np.arange(32) < 12, _H, _S)
        self.hard = np.repeat(default[:, None], 11, axis=1)
        self.soft = self.hard.copy()
        self.pairs = np.full((11, 11), -1, dtype=np.int64)  # [pair value, upcard value]
        for table, rows in ((self.hard, chart.hard), (self.soft, chart.soft)):
            for total, plays in rows.items():
                for k, play in enumerate(plays):
                    table[total, cols[k]] = _CODE[play.value]
        for label, plays in chart.pairs.items():
            value = 1 if label == "A" else 10 if label == "T" else int(label)
            for k, play in enumerate(plays):
                self.pairs[value, cols[k]] = _CODE[play.value]
        self.pair = pair_table(rules)  # the rules' pair test (engine.play.is_pair)

    def __call__(
        self, env: BlackjackVectorEnv, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        batch = env.batch
        assert batch is not None
        phase, total, up = obs[:, MD_PHASE], obs[:, MD_TOTAL], obs[:, MD_UPCARD]
        soft = obs[:, MD_SOFT] > 0
        h = obs[:, MD_HAND_INDEX]
        f = h * env.num_envs + np.arange(env.num_envs)
        values = batch.card_values
        r0, r1 = batch.r0.reshape(-1)[f], batch.r1.reshape(-1)[f]
        two = batch.ncards.reshape(-1)[f] == 2
        pair = two & self.pair[13 * r0 + r1]
        pair_value = values[r0]
        up = np.where(batch.rank_of_card[batch.up] == 0, 1, np.minimum(up, 10))
        legal = mask > 0
        if legal.shape[1] < 5:  # stand/hit-only rules (Discrete(2)): the rest is never legal
            legal = np.pad(legal, ((0, 0), (0, 5 - legal.shape[1])))
        pre_peek = phase == 1
        total_code = np.where(soft, self.soft[total, up], self.hard[total, up])
        pair_code = self.pairs[pair_value, up]
        use_pair = pair & (pair_code >= 0) & (legal[:, _SPLIT] | pre_peek)
        code = np.where(use_pair, pair_code, total_code)
        surrenders = (code == _RH) | (code == _RS) | (code == _RP)
        out = np.full(env.num_envs, _STAND, dtype=np.int64)
        # pre-peek: surrender if the chart says so and it is offered, else decline (STAND)
        # playing: surrender, else the fallback code
        take_surr = surrenders & legal[:, _SURRENDER]
        code = np.where(code == _RH, _H, np.where(code == _RS, _S, np.where(code == _RP, _P, code)))
        # a split the chart wants but cannot be made: play the total's code
        no_split = (code == _P) & ~legal[:, _SPLIT]
        fallback = np.where(
            (total_code == _P) | (total_code == _RP),
            _H,
            np.where(total_code == _RH, _H, np.where(total_code == _RS, _S, total_code)),
        )
        code = np.where(no_split, fallback, code)
        double = ((code == _D) | (code == _DS)) & legal[:, _DOUBLE]
        hit = ((code == _H) | (code == _D)) & legal[:, _HIT]
        out = np.where(hit, _HIT, out)
        out = np.where(double, _DOUBLE, out)
        out = np.where((code == _P) & legal[:, _SPLIT], _SPLIT, out)
        out = np.where(take_surr, _SURRENDER, out)
        return np.where(pre_peek, np.where(take_surr, _SURRENDER, _STAND), out)


def chart_policy(env: BlackjackVectorEnv) -> Callable[[np.ndarray], np.ndarray]:
    """Basic strategy on the batched env ``env`` by the JAX table's own lookup
    (:func:`blackjack_env.jax.chart.chart_actions` run in numpy on the batch's state
    arrays, the chart of :func:`~blackjack_env.jax.chart.chart_table`), so that the numpy
    env and the JAX table play the same decisions in a comparison: ``act(mask) ->
    actions`` for the env's current state and its action mask (any observation mode;
    the bet step, if any, is the caller's). Imports the JAX package (its chart module)."""
    from blackjack_env.jax.chart import chart_actions, chart_table  # (the jax package: heavy)

    table = chart_table(env.rules)
    pair = pair_table(env.rules)  # the rules' pair test at 13 * rank index + rank index
    cols = np.arange(env.num_envs)

    def act(mask: np.ndarray) -> np.ndarray:
        b = env.batch
        assert b is not None  # (after reset)
        h = np.clip(b.cur, 0, b.max_hands - 1)
        r0, r1 = b.r0[h, cols], b.r1[h, cols]
        is_pair = pair[13 * r0 + r1] & (b.ncards[h, cols] == 2)
        return np.asarray(chart_actions(
            table, DECISION_BY_BATCH_PHASE[b.phase], b.hard[h, cols], b.ace[h, cols], is_pair,
            r0, b.rank_of_card[b.up], mask.astype(bool), np,
        ))  # fmt: skip

    return act


POLICIES: dict[str, Callable[[Rules], Policy]] = {
    "basic": basic_policy,
    "dealer": lambda rules: _dealer,
    "never-bust": lambda rules: _never_bust,
    "stand": lambda rules: _stand,
    "random": lambda rules: _random,
}


# ------------------------------------------------------------------ running
def _rules_of(rules: Rules | str) -> Rules:
    if isinstance(rules, Rules):
        return rules
    return preset(rules)


def _policy_of(policy: str | Policy, rules: Rules) -> Policy:
    if callable(policy) and not isinstance(policy, str):
        return policy
    try:
        return POLICIES[policy](rules)
    except KeyError:
        raise ValueError(
            f"unknown policy {policy!r}; use one of {', '.join(POLICIES)} or a callable "
            f"policy(env, obs, mask, rng) -> actions"
        ) from None


def _run_chunk(args: tuple[Any, ...]) -> tuple[float, float, dict[float, int], int]:
    """Play one chunk: ``tables`` tables, each counting its first ``per_table`` rounds."""
    rules, policy, seed_seq, tables, per_table, env_kwargs = args
    rng = np.random.default_rng(seed_seq)
    env_seed = int(rng.integers(2**63))
    env = BlackjackVectorEnv(
        tables, rules=rules, obs_mode="multidiscrete", autoreset_mode="SameStep", **env_kwargs
    )
    obs, info = env.reset(seed=env_seed)
    done = np.zeros(tables, dtype=np.int64)
    results: list[np.ndarray] = []
    while (done < per_table).any():
        actions = policy(env, obs, info["action_mask"], rng)
        obs, _, _, _, info = env.step(actions)
        over = info["round_over"] & (done < per_table)
        if over.any():
            results.append(info["round_net"][over])
            done[info["round_over"]] += 1
    nets = np.concatenate(results) if results else np.zeros(0)
    values, counts = np.unique(nets, return_counts=True)
    hist = {float(v): int(c) for v, c in zip(values, counts, strict=True)}
    return float(nets.sum()), float((nets * nets).sum()), hist, int(nets.size)


def worker_context() -> multiprocessing.context.BaseContext:
    """How :func:`simulate` starts its worker processes: ``forkserver`` where the platform
    has it (Linux, macOS), else ``spawn`` (Windows); never ``fork``, which copies the
    calling process with whatever threads it runs (JAX's, a BLAS pool's) and can deadlock
    the copy. A worker starts from a fresh interpreter (about a second to import numpy and
    the package); the chunks it plays, and so the figures, do not depend on it."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def simulate(
    policy: str | Policy = "basic",
    rules: Rules | str = "vegas-strip",
    hands: int = 1_000_000,
    seed: int = 0,
    workers: int = 1,
    tables: int = 1024,
    rounds_per_table: int = 64,
    **env_kwargs: Any,
) -> SimulationResult:
    """Play ``policy`` for at least ``hands`` rounds; the same result for a seed whatever
    ``workers`` is (see the module docstring).

    ``hands`` is rounded up to whole chunks of ``tables * rounds_per_table``;
    ``env_kwargs`` go to :class:`~blackjack_env.envs.vector.BlackjackVectorEnv`
    (e.g. ``bet``, ``insurance_decisions``).
    """
    for name, value in (("hands", hands), ("workers", workers), ("tables", tables)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name}={value!r} must be an int >= 1")
    if isinstance(rounds_per_table, bool) or not isinstance(rounds_per_table, int) or (
        rounds_per_table < 1
    ):
        raise ValueError(f"rounds_per_table={rounds_per_table!r} must be an int >= 1")
    rules_obj = _rules_of(rules)
    pol = _policy_of(policy, rules_obj)
    chunk = tables * rounds_per_table
    n_chunks = math.ceil(hands / chunk)
    seeds = np.random.SeedSequence(seed).spawn(n_chunks)
    jobs = [(rules_obj, pol, s, tables, rounds_per_table, env_kwargs) for s in seeds]
    if workers == 1:
        parts = [_run_chunk(job) for job in jobs]
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=worker_context()) as pool:
            parts = list(pool.map(_run_chunk, jobs))  # results in chunk order
    total = sq = 0.0
    n = 0
    hist: dict[float, int] = {}
    for s, q, h, c in parts:  # combined in chunk order: independent of the worker count
        total += s
        sq += q
        n += c
        for v, k in h.items():
            hist[v] = hist.get(v, 0) + k
    mean = total / n
    var = max(0.0, (sq - n * mean * mean) / (n - 1)) if n > 1 else 0.0
    half = Z95 * math.sqrt(var / n)
    name = policy if isinstance(policy, str) else getattr(policy, "__name__", type(policy).__name__)
    rules_name = rules if isinstance(rules, str) else rules_obj.summary()
    return SimulationResult(
        policy=name,
        rules=rules_name,
        hands=n,
        seed=seed,
        chunks=n_chunks,
        mean=mean,
        std=math.sqrt(var),
        ci95=(mean - half, mean + half),
        outcomes={f"{v:+g}": k / n for v, k in sorted(hist.items())},
    )


@dataclass
class Settings:
    """Simulate a fixed policy on the batched tables (mean return per round, 95% CI)."""

    policy: str = "basic"
    """policy of the seat: basic, dealer, never-bust, stand or random"""
    rules: str = "vegas-strip"
    """preset name (see blackjack_env.list_presets())"""
    hands: int = 1_000_000
    """rounds to play (rounded up to whole chunks of tables x rounds-per-table)"""
    seed: int = 0
    """seed of the whole simulation"""
    workers: int = 1
    """processes (the figures do not depend on it)"""
    tables: int = 1024
    """tables per chunk"""
    rounds_per_table: int = 64
    """rounds each table counts per chunk"""
    json: Annotated[str | None, option("FILE", "not written")] = None
    """write the result as JSON to this file"""


def run(s: Settings) -> SimulationResult:
    """Check every option, simulate, print one line, write the JSON asked for."""
    if s.policy not in POLICIES:
        raise ValueError(f"--policy {s.policy!r}: unknown; use one of {', '.join(POLICIES)}")
    rules = preset_option(s.rules)
    check_at_least("hands", s.hands, 1, "rounds to play")
    check_at_least("workers", s.workers, 1, "processes")
    check_at_least("tables", s.tables, 1, "tables per chunk")
    check_at_least("rounds_per_table", s.rounds_per_table, 1, "rounds per table per chunk")
    check_writable("json", s.json)
    result = simulate(s.policy, s.rules, s.hands, s.seed, s.workers, s.tables, s.rounds_per_table)
    lo, hi = result.ci95
    print(
        f"{result.policy} on {result.rules}: {result.hands:,} rounds, mean {result.mean:+.5f} "
        f"per round, 95% CI [{lo:+.5f}, {hi:+.5f}] ({result.chunks} chunks, seed {result.seed})"
    )
    if result.hands != s.hands:
        print(f"({s.hands:,} rounds asked, rounded up to whole chunks of {s.tables} tables x "
              f"{s.rounds_per_table} rounds)")
    if s.json:
        write_json(s.json, {**result.to_dict(), "rules_summary": rules.summary()})
        print(f"wrote {s.json}")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m blackjack_env.simulate``: see :class:`Settings` (or ``--help``)."""
    # the command runner lives with the other commands (parsing and one-line errors);
    # only the command line reaches up to it, the library above does not.

    return run_command(Settings, run, argv, prog="python -m blackjack_env.simulate")


if __name__ == "__main__":
    import sys

    sys.exit(main())
