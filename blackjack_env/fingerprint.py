"""Behaviour fingerprints of the envs and the analysis, for refactors that must change nothing.

Plays the single env (``BlackjackEnv``), the batched env (``BlackjackVectorEnv``) and
the multi-agent table (``BlackjackAECEnv``, the ``[multiagent]`` extra) over many
configurations (every preset, several seats, bet steps, bankrolls, illegal-action
policies, every observation mode, autoreset modes), with a seeded stream of actions that
are mostly legal, sometimes illegal and sometimes outside the action space, and hashes
what comes back: observations, rewards, terminations, truncations, infos, and the type
of every error (its message is hashed apart, since a refactor may merge messages on
purpose). The analysis (solve, exact policy evaluation, finite shoes, hand EVs,
composition) is hashed with every number rounded to 1e-12.

:func:`fingerprints` gives, per group (``single``, ``vector``, ``table``, ``analysis``),
the behaviour hash, the messages hash and the number of errors; the runners
(:func:`run_single`, :func:`run_vector`, :func:`run_table`) hash one configuration into a
:class:`Recorder`. Command line (``scripts/fingerprint_envs.py`` runs it)::

    BLACKJACK_ENV_PURE=1 python -m blackjack_env.fingerprint --out before.json
    BLACKJACK_ENV_PURE=1 python -m blackjack_env.fingerprint --compare before.json

``--compare`` exits 1 and names each group whose behaviour hash differs (a different
messages hash is printed, not failed). A run takes about 10 minutes of one core.
"""

from __future__ import annotations

import hashlib
import json
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import numpy as np

from blackjack_env.analysis import (
    action_values,
    composition_return,
    evaluate_policy,
    finite_shoe_return,
    hand_evs,
    solve,
)
from blackjack_env.cli import (
    check_at_least,
    check_writable,
    option,
    read_json_object,
    run_command,
    write_json,
)
from blackjack_env.engine.play import Action
from blackjack_env.engine.rules import PRESETS, preset
from blackjack_env.envs.single.env import BlackjackEnv
from blackjack_env.envs.vector import BlackjackVectorEnv

__all__ = [
    "GROUPS", "Recorder", "Settings", "canon", "fingerprints", "main", "run", "run_analysis",
    "run_single", "run_table", "run_vector", "single_configs", "table_configs", "variants",
    "vector_configs",
]


def canon(x: Any) -> str:
    """A canonical text of ``x`` (arrays by dtype, shape and values; dicts sorted)."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "f":
            vals = ",".join(f"{v:.12g}" for v in x.ravel().tolist())
        else:
            vals = ",".join(str(v) for v in x.ravel().tolist())
        return f"A[{x.dtype.str}{x.shape}:{vals}]"
    if isinstance(x, dict):
        return "{" + ",".join(f"{canon(k)}:{canon(x[k])}" for k in sorted(x, key=str)) + "}"
    if isinstance(x, (list, tuple)):
        return ("L[" if isinstance(x, list) else "T[") + ",".join(canon(v) for v in x) + "]"
    if isinstance(x, (bool, np.bool_)):
        return f"b{bool(x)}"
    if isinstance(x, (float, np.floating)):
        return f"f{float(x):.12g}"
    if isinstance(x, (int, np.integer)):
        return f"i{int(x)}"
    return f"{type(x).__name__}:{x!r}"


class Recorder:
    """Two running hashes: behaviour (with error types) and error messages."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()
        self.m = hashlib.sha256()
        self.errors = 0

    def add(self, *parts: Any) -> None:
        self.h.update(canon(parts).encode())
        self.h.update(b"\n")

    def error(self, exc: BaseException) -> None:
        self.errors += 1
        self.add("error", type(exc).__name__)
        self.m.update(f"{type(exc).__name__}:{exc}\n".encode())


def _pick(rng: np.random.Generator, mask: np.ndarray, n: int) -> Any:
    """Mostly a legal action, sometimes any action of the space, rarely one outside it."""
    u = rng.random()
    legal = np.flatnonzero(mask)
    if u < 0.8 and legal.size:
        return int(rng.choice(legal))
    if u < 0.97:
        return int(rng.integers(n))
    return [n, -1, 1.0, "x"][int(rng.integers(4))]


def variants() -> list[Any]:
    """Rule sets beyond the presets that reach the decisions refactors move around:
    highest-hand settlement, halved split stakes, naturals paid at the deal or played on,
    blackjack after a split, surrender and ties."""
    t21 = preset("terminal-21").replace(bet_raising=False)
    return [
        t21,
        t21.replace(decks=4, split_bet="match"),
        preset("vegas-strip", split_bet="halve", max_split_hands=2, surrender="late",
               blackjack_after_split=True),
        preset("vegas-strip", natural_paid_at_deal=True, decks=2),
        preset("vegas-strip", natural_ends_hand=False, decks=2),
        preset("european-no-hole-card", surrender="late", ties="dealer-wins", decks=2),
        preset("downtown-h17", surrender="early", resplit_aces=True, hit_split_aces=True),
    ]


# ------------------------------------------------------------------ single env
def single_configs() -> Iterator[dict[str, Any]]:
    for name in PRESETS:
        for mode in ("multidiscrete", "vector", "dict", "tuple"):
            yield {"rules": name, "obs_mode": mode}
        yield {"rules": name, "num_seats": 3, "seat": 1, "others": "basic", "obs_mode": "dict"}
    for illegal in ("map", "raise", "penalize"):
        for mode in ("multidiscrete", "vector", "dict"):
            yield {"illegal_action": illegal, "obs_mode": mode, "bet_sizes": (1, 2, 4),
                   "bankroll": 20, "rounds_per_episode": 5, "insurance_decisions": True}
            yield {"rules": preset("vegas-strip", surrender="early"), "illegal_action": illegal,
                   "obs_mode": mode, "num_seats": 2, "seat": 0, "others": "random",
                   "rounds_per_episode": None, "illegal_penalty": 0.5}
            yield {"rules": preset("european-no-hole-card", seats=4), "illegal_action": illegal,
                   "obs_mode": mode, "seat": 3, "bet": 10, "bankroll": 200,
                   "rounds_per_episode": 3, "info_cards": False}
    yield {"rules": preset("vegas-strip", decks=None), "obs_mode": "dict", "bet_sizes": (1, 3)}
    for rules in variants():
        yield {"rules": rules, "num_seats": 3, "seat": 1, "others": "basic", "obs_mode": "dict",
               "rounds_per_episode": 4, "bankroll": 40, "insurance_decisions": rules.insurance}
        yield {"rules": rules, "num_seats": 4, "seat": 3, "others": "random",
               "obs_mode": "vector", "illegal_action": "penalize"}
    # refused configurations: the error types are part of the fingerprint
    yield {"obs_mode": "bad"}
    yield {"num_seats": 9}
    yield {"bet_sizes": (2, 1)}
    yield {"obs_mode": "tuple", "insurance_decisions": True}
    yield {"illegal_action": "nope"}
    yield {"bankroll": 0}
    yield {"whatever": 1}


def run_single(rec: Recorder, kwargs: dict[str, Any], seed: int, steps: int) -> None:
    rec.add("single", repr(sorted(kwargs.items(), key=lambda kv: kv[0])))
    try:
        env = BlackjackEnv(**kwargs)
    except Exception as exc:
        rec.error(exc)
        return
    rng = np.random.default_rng(seed)
    rec.add(str(env.observation_space), str(env.action_space), env.action_names)
    obs, info = env.reset(seed=seed)
    rec.add("reset", obs, info)
    n = int(env.action_space.n)
    for t in range(steps):
        a = _pick(rng, env.action_masks(), n)
        try:
            obs, r, term, trunc, info = env.step(a)
        except Exception as exc:
            rec.error(exc)
            continue
        rec.add(t, a, obs, r, term, trunc, info)
        if term or trunc:
            if t % 7 == 3:  # a scripted deal now and then
                try:
                    obs, info = env.reset(options={"cards": "8S 6H 8D TC"})
                except Exception as exc:
                    rec.error(exc)
                    obs, info = env.reset()
            else:
                obs, info = env.reset()
            rec.add("reset", obs, info)
    if kwargs.get("obs_mode") != "tuple":
        rec.add("render-free", env.table.phase.name if env.table is not None else None)


# ------------------------------------------------------------------ batched env
def vector_configs() -> Iterator[dict[str, Any]]:
    for name in PRESETS:
        if preset(name).bet_raising:
            yield {"rules": name}  # refused
            continue
        yield {"rules": name, "obs_mode": "multidiscrete"}
        yield {"rules": name, "obs_mode": "dict", "autoreset_mode": "SameStep"}
    for mode in ("multidiscrete", "vector", "dict", "tuple"):
        for auto in ("NextStep", "SameStep", "Disabled"):
            yield {"obs_mode": mode, "autoreset_mode": auto, "rounds_per_episode": 2}
    for illegal in ("map", "raise", "penalize"):
        for mode in ("multidiscrete", "vector", "dict"):
            yield {"illegal_action": illegal, "obs_mode": mode, "bet_sizes": (1, 2, 4),
                   "bankroll": 20, "rounds_per_episode": 5, "insurance_decisions": True}
            yield {"rules": preset("vegas-strip", surrender="early", decks=2),
                   "illegal_action": illegal, "obs_mode": mode, "rounds_per_episode": None,
                   "illegal_penalty": 0.5, "max_episode_steps": 7}
    for seats in (2, 3, 5):
        for mode in ("multidiscrete", "vector", "dict"):
            for illegal in ("map", "raise"):
                yield {"seats_per_table": seats, "obs_mode": mode, "illegal_action": illegal,
                       "num_envs": 2 * seats, "insurance_decisions": seats == 3}
    for rules in variants():
        yield {"rules": rules, "obs_mode": "dict", "rounds_per_episode": 3,
               "insurance_decisions": rules.insurance}
        for seats in (2, 4):
            yield {"rules": rules, "seats_per_table": seats, "num_envs": 2 * seats,
                   "obs_mode": "vector", "illegal_action": "map"}
    yield {"seats_per_table": 2, "num_envs": 3}
    yield {"seats_per_table": 2, "illegal_action": "penalize", "num_envs": 4}
    yield {"seats_per_table": 2, "bankroll": 50, "num_envs": 4}
    yield {"num_seats": 2}
    yield {"render_mode": "ansi"}
    yield {"num_envs": 0}
    yield {"autoreset_mode": "nope"}


def run_vector(rec: Recorder, kwargs: dict[str, Any], seed: int, steps: int) -> None:
    rec.add("vector", repr(sorted(kwargs.items(), key=lambda kv: kv[0])))
    kw = dict(kwargs)
    n_envs = kw.pop("num_envs", 6)
    try:
        env = BlackjackVectorEnv(n_envs, **kw)
    except Exception as exc:
        rec.error(exc)
        return
    rng = np.random.default_rng(seed)
    rec.add(str(env.single_observation_space), str(env.single_action_space))
    obs, info = env.reset(seed=seed)
    rec.add("reset", obs, info)
    n = int(env.single_action_space.n)
    for t in range(steps):
        mask = env.action_masks()
        acts = np.array([
            a if isinstance(a := _pick(rng, m, n), int) else int(rng.integers(n)) for m in mask
        ], dtype=np.int64)
        if t % 11 == 5:
            acts[0] = n  # outside the space
        try:
            obs, r, term, trunc, info = env.step(acts)
        except Exception as exc:
            rec.error(exc)
            acts = np.array([int(rng.choice(np.flatnonzero(m))) for m in mask])
            obs, r, term, trunc, info = env.step(acts)
        rec.add(t, acts, obs, r, term, trunc, info)
        if kw.get("autoreset_mode") == "Disabled" and (term | trunc).any():
            opts: dict[str, Any] = {"reset_mask": term | trunc}
            seats = kw.get("seats_per_table", 1)
            if seats > 1:
                tables = (term | trunc).reshape(-1, seats).any(axis=1)
                opts["reset_mask"] = np.repeat(tables, seats)
            obs, info = env.reset(options=opts)
            rec.add("reset", obs, info)
    env.close()


# ------------------------------------------------------------------ multi-agent table
def table_configs() -> Iterator[dict[str, Any]]:
    for name in PRESETS:
        if preset(name).max_seats < 3:
            yield {"rules": name, "num_seats": preset(name).max_seats}
        else:
            yield {"rules": name}
    for mode in ("multidiscrete", "vector", "dict"):
        for illegal in ("map", "raise"):
            yield {"obs_mode": mode, "illegal_action": illegal, "num_seats": 4,
                   "others": {1: "basic", 3: "random"}, "rounds": 3,
                   "insurance_decisions": True}
            yield {"rules": preset("vegas-strip", surrender="early"), "obs_mode": mode,
                   "illegal_action": illegal, "num_seats": 2, "rounds": 2, "bet": 5}
    for rules in variants():
        yield {"rules": rules, "num_seats": 4, "others": {2: "basic"}, "rounds": 3,
               "obs_mode": "dict", "insurance_decisions": rules.insurance}
    yield {"obs_mode": "tuple"}
    yield {"illegal_action": "penalize"}
    yield {"num_seats": 3, "others": {0: "dealer", 1: "dealer", 2: "dealer"}}


def run_table(rec: Recorder, kwargs: dict[str, Any], seed: int, steps: int) -> None:
    # deferred: loads pettingzoo (the optional [multiagent] extra)
    from blackjack_env.envs.multiagent import BlackjackAECEnv

    rec.add("table", repr(sorted(kwargs.items(), key=lambda kv: kv[0])))
    try:
        env = BlackjackAECEnv(**kwargs)
    except Exception as exc:
        rec.error(exc)
        return
    rng = np.random.default_rng(seed)
    for episode in range(3):
        env.reset(seed=seed + episode)
        for t, agent in enumerate(env.agent_iter(max_iter=steps)):
            obs, r, term, trunc, info = env.last()
            rec.add(episode, t, agent, obs, r, term, trunc, info)
            if term or trunc:
                action = None
            else:
                action = _pick(rng, obs["action_mask"], int(env.action_space(agent).n))
            try:
                env.step(action)
            except Exception as exc:
                rec.error(exc)
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[0]) if legal.size else None)
            rec.add(dict(env.rewards), dict(env.terminations), dict(env.truncations))
        rec.add("session", env.session_nets)


# ------------------------------------------------------------------ analysis
def run_analysis(rec: Recorder) -> None:
    def r12(x: Any) -> Any:
        if isinstance(x, dict):
            return {str(k): r12(v) for k, v in x.items()}
        if isinstance(x, float):
            return round(x, 12)
        return x

    for name in PRESETS:
        rules = preset(name)
        for r in (rules.replace(decks=None),):
            try:
                sol = solve(r)
                rec.add("solve", name, r12(sol.expected_return))
                stand = evaluate_policy(r, lambda s: Action.STAND)
                hit16 = evaluate_policy(
                    r, lambda s: Action.HIT if s.total < 17 else Action.STAND
                )
                rec.add("eval", name, r12(stand), r12(hit16))
            except Exception as exc:
                rec.error(exc)
        if rules.decks is not None and rules.decks <= 2:
            try:
                rec.add("finite", name, r12(finite_shoe_return(rules).expected_return))
                rec.add("handevs", name, r12(hand_evs(rules, "8S 8D", "6")))
            except Exception as exc:
                rec.error(exc)
    rules = preset("vegas-strip", decks=1)
    try:
        av = action_values(rules, rules_pool(rules), "TS 6H", "T")
        rec.add("action_values", r12({str(k): v for k, v in av.items()}))
        av = action_values(rules, rules_pool(rules), "8S 8H", "6", hands=1)
        rec.add("action_values_pair", r12({str(k): v for k, v in av.items()}))
    except Exception as exc:
        rec.error(exc)
    small = preset("vegas-strip", decks=1)
    try:
        pool = [0] * 13
        for rank, n in enumerate((2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2)):
            pool[rank] = n
        res = composition_return(small, pool)
        rec.add("composition", r12(res.expected_return))
    except Exception as exc:
        rec.error(exc)


def rules_pool(rules: Any) -> list[int]:
    """The 13 counts by rank of a full shoe of ``rules``."""
    return [4 * rules.shoe_decks] * 13


# ------------------------------------------------------------------ main
#: The groups: name -> ``run(recorder, seeds)``, which hashes every configuration of the
#: group with ``seeds`` seeds each into the recorder.
GROUPS: dict[str, Callable[[Recorder, int], None]] = {}


def _group(configs: Callable[[], Iterator[dict[str, Any]]], runner: Any, steps: int) -> Any:
    def run(rec: Recorder, seeds: int) -> None:
        for i, kw in enumerate(configs()):
            for s in range(seeds):
                runner(rec, kw, 1000 * i + s, steps)

    return run


GROUPS["single"] = _group(single_configs, run_single, 120)
GROUPS["vector"] = _group(vector_configs, run_vector, 40)
GROUPS["table"] = _group(table_configs, run_table, 60)
GROUPS["analysis"] = lambda rec, seeds: run_analysis(rec)


def fingerprints(seeds: int = 2, only: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """Per group of :data:`GROUPS` (those in ``only``, or all): the behaviour hash, the
    messages hash and the number of errors, over ``seeds`` seeds per configuration."""
    out: dict[str, dict[str, Any]] = {}
    for name, run_group in GROUPS.items():
        if only and name not in only:
            continue
        rec = Recorder()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run_group(rec, seeds)
        out[name] = {"hash": rec.h.hexdigest(), "messages": rec.m.hexdigest(),
                     "errors": rec.errors}
    return out


Group = Literal["single", "vector", "table", "analysis"]


@dataclass
class Settings:
    """Behaviour fingerprints of the envs and the analysis, for refactors that must change
    nothing."""

    out: Annotated[str | None, option("FILE", "not written")] = None
    """write the fingerprints to this JSON file"""
    compare: Annotated[str | None, option("FILE", "no comparison")] = None
    """compare with the fingerprints in this JSON file (exit status 1 if behaviour differs)"""
    seeds: int = 2
    """seeds per configuration"""
    only: Annotated[list[Group], option("GROUP ...", "every group")] = field(
        default_factory=list)
    """the groups to run: single, vector, table, analysis"""


def run(s: Settings) -> int:
    """Check the options, fingerprint, print, write and compare as asked; the exit status
    (1: ``--compare`` found a behaviour hash that differs)."""
    check_at_least("seeds", s.seeds, 1, "seeds per configuration")
    check_writable("out", s.out)
    before = read_json_object(s.compare) if s.compare else None
    fp = fingerprints(s.seeds, s.only)
    print(json.dumps(fp, indent=1))
    if s.out:
        write_json(s.out, fp)
    if before is None:
        return 0
    bad = [g for g in fp if before.get(g, {}).get("hash") != fp[g]["hash"]]
    msgs = [g for g in fp if before.get(g, {}).get("messages") != fp[g]["messages"]]
    print("behaviour:", "identical" if not bad else f"DIFFERS in {bad}")
    print("messages:", "identical" if not msgs else f"differ in {msgs}")
    return 1 if bad else 0


def main(argv: Sequence[str] | None = None, prog: str = "python -m blackjack_env.fingerprint"
         ) -> int:
    """The command line (see the module docstring); its exit status."""
    status: list[int] = []
    code = run_command(Settings, lambda s: status.append(run(s)), argv, prog=prog)
    return code or (status[0] if status else 0)


if __name__ == "__main__":
    sys.exit(main())
