"""``blackjack-evaluate``: an agent's simulated return (95% CI), outcome rates, exact grade.

AGENT is a saved model (``.npz`` / ``.zip``), a training run's folder, or a fixed
agent (basic, dealer, never-bust, random, stand, counter). The rules default to the
run's (or ``sutton-barto`` for a fixed agent). Reported: the mean return per round
with its 95% confidence interval (normal approximation), the per-hand rates of
win / blackjack / push / loss / bust / surrender, and, for infinite-deck rules, the
exact return of the agent's greedy policy, the optimal return and the regret. On a
finite shoe, where the simulation is the grade, the reference figure beside it is the
composition-dependent optimum of a freshly shuffled shoe
(:func:`blackjack_env.agents.grading.composition_reference`), with the simulated
return minus it and that difference's 95% interval.

Basic strategy on a finite shoe (the agents ``basic`` and ``counter``, and ``--others
basic`` seats) plays the total-dependent chart of that shoe, derived by the exact
combinatorial analysis before the first round (once per rule set and process): about
1-2 s with the standard card values, 10-60 s with custom ones (terminal-21). A line on
stderr says so before the work starts, and the seconds it took are reported apart from
the simulation's.

``composition`` is the fixed agent that plays the best action for the hand's cards and
the cards that remain in the shoe (the ``composition`` seat strategy); it costs a few
ms per round (about 150-250 rounds/s), so give it ``--hands`` in the ten thousands.

An agent that decides its bets (``counter``, or a ``jax-ppo`` policy trained with
``--bet-sizes``, its ``model-bets.npz``, given the same ``--bet-sizes``) bets in the
simulation; with ``--ceiling ROUNDS`` its bets are also graded against the perfect
counter (:mod:`blackjack_env.agents.ceiling`): ``ROUNDS`` rounds of shoes cut at the
rules' penetration are priced exactly (one process per core; the store is
``blackjack-counter``'s file of these rules unless ``--ceiling-store`` names another,
so rounds priced once are not priced again), and the agent's bets and the Hi-Lo ramp
are graded by the exact edge of each round beside the ceiling of the spread, flat
CD play and flat basic strategy.

With ``--rule-sets SET|FILE`` the agent is graded exactly on every rule set of a list
instead (no simulation): ``held-out`` (the default rule space's fixed held-out test set,
versioned: ``held-out:v1``), or a JSON file holding a list of rule sets
(``Rules.to_dict()`` objects, or an object whose ``"rules"`` is such a list) or a rule
space (``RuleSpace.to_dict()``: its held-out rule sets). Per rule set: the optimal return,
the agent's exact return and the regret (infinite deck); printed: the mean regret with its
95% interval over rule sets (bootstrap), the median, the worst rule set and the rule axes
that cost most (:func:`blackjack_env.agents.rule_sets.grade_rule_sets`). The agent is a
saved model that observes the rules (trained with ``observe_rules``: its observation ends
with the rule features of each table), or a fixed agent with a policy over the analysis's
states (``basic``, ``dealer``, ``stand``, ``composition``), which plays by ``--rules``
(infinite deck) on every rule set. The JSON goes to ``--out``, or by default beside the
model (``rule-sets-<set>.json`` in its folder; ``runs/rule-sets/`` for a fixed agent).
``--workers N``: processes (0: one per 32 rule sets, at most every core); the figures do
not depend on it.

Every option is checked before the simulation starts; ``--out`` is written only at
the end, whole.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import gymnasium as gym
import tyro

from blackjack_env.agents.ceiling import (
    ceiling_report,
    decides_bets,
    pricing_bar,
    round_bettor,
)
from blackjack_env.agents.fixed import FIXED_AGENTS
from blackjack_env.agents.grading import (
    analysis_reason,
    composition_reference,
    exact_grade,
    simulate,
)
from blackjack_env.agents.registry import check_fits, find_model, make_agent, table_for
from blackjack_env.agents.rule_sets import (
    RULE_SETS_PER_WORKER,
    NamedRuleSets,
    check_agent,
    check_gradable,
    grade_rule_sets,
    load_rule_sets,
    planned_workers,
)
from blackjack_env.analysis import basic_strategy_chart
from blackjack_env.analysis.counter import (
    check_store,
    default_workers,
    speed_notice,
    store_name,
)
from blackjack_env.analysis.strategy import nearest_supported_rules
from blackjack_env.cli import (
    CI_NAME,
    check_output_file,
    check_writable,
    load_average,
    missing_package,
    option,
    write_json,
    z_value,
)
from blackjack_env.commands import UsageError, bet_sizes_option, run_command
from blackjack_env.engine.rules import STANDARD_VALUES
from blackjack_env.simulate import POLICIES
from blackjack_env.simulate import simulate as batched

__all__ = ["Settings", "main", "run"]


@dataclass
class Settings:
    """Evaluate an agent: simulated return with a 95% CI, outcome rates, and the exact grade."""

    agent: Annotated[tyro.conf.Positional[str], tyro.conf.arg(metavar="AGENT")] = "basic"
    """a saved model (.npz / .zip), a run folder, or a fixed agent: basic, composition, dealer, never-bust, random, stand, counter"""  # noqa: E501
    rules: Annotated[str, option("PRESET", "the run's rules, or sutton-barto")] = ""
    """preset name of the table rules (see blackjack_env.list_presets())"""
    decks: Annotated[str, option("N|inf", "the run's, or the preset's")] = ""
    """decks in the shoe: 1..8, or inf for an infinite deck"""
    seats: Annotated[int, option("N", "the run's, or the preset's")] = 0
    """seats at the table"""
    seat: Annotated[int, option("INDEX", "the run's, or 0")] = -1
    """the agent's seat (0 acts first)"""
    others: Annotated[str, option("NAME", "the run's, or dealer")] = ""
    """strategy of the other seats"""
    hands: int = 100_000
    """rounds to simulate"""
    bet_sizes: Annotated[str, option("SIZES", "a fixed bet")] = ""
    """bet sizes offered before each round, e.g. 1,2,4,8 (the counter bets by its count)"""
    session: int = 1
    """rounds per episode (e.g. 100 with --bet-sizes; the shoe carries over, cut card and all)"""
    seed: int = 12345
    """seed of the evaluation env (different from training seeds)"""
    workers: Annotated[int, option("N", "0, the agent on one env in this process")] = 0
    """N >= 1: a fixed policy on the batched tables in N processes (same figures for any N); with --rule-sets, the processes that grade (0: one per 32 rule sets, at most every core)"""  # noqa: E501
    ceiling: Annotated[int, option("ROUNDS", "0, none")] = 0
    """grade the agent's bets on this many rounds of the perfect counter (exact edges), beside the ceiling of its spread, the Hi-Lo ramp and flat basic strategy"""  # noqa: E501
    ceiling_store: Annotated[str, option("FILE", "blackjack-counter's file of these rules")] = ""
    """the store of priced rounds (shared with blackjack-counter: a rerun prices nothing)"""
    rule_sets: Annotated[str, option("SET|FILE", "none: one table")] = ""
    """grade exactly on every rule set of a list instead of simulating: held-out (the default rule space's held-out set; held-out:v1), or a JSON file: a list of Rules.to_dict() objects, or a RuleSpace.to_dict() (its held-out rule sets)"""  # noqa: E501
    json: bool = False
    """print the results as JSON instead of the table"""
    out: Annotated[str, option("FILE", "not written")] = ""
    """also write the JSON results to this file"""
    progress: bool = False
    """show a progress bar"""


@dataclass
class Plan:
    rules: Any
    env: Any
    agent: Any
    obs_mode: str
    where: dict[str, Any]
    bet_sizes: tuple[int, ...]
    ceiling_store: str = ""


def prepare(settings: Settings) -> Plan:
    """Check every option, load the agent and build its table; write nothing."""
    if settings.hands < 2:
        raise UsageError(f"--hands {settings.hands}: must be at least 2 (for a confidence "
                         f"interval)")
    if settings.session < 1:
        raise UsageError(f"--session {settings.session}: must be at least 1 round")
    if settings.workers < 0:
        raise UsageError(f"--workers {settings.workers}: must be 0 (in this process) or more")
    if settings.seed < 0:
        raise UsageError(f"--seed {settings.seed}: must be 0 or more")
    if settings.seats < 0:
        raise UsageError(f"--seats {settings.seats}: must be at least 1 (or 0 for the default)")
    if settings.out:
        check_output_file(settings.out, "--out")
    sizes = bet_sizes_option(settings.bet_sizes)
    fixed = settings.agent in FIXED_AGENTS
    t = table_for(settings.agent, settings.rules, settings.decks, settings.seats,
                  settings.seat, settings.others)
    rules = t["rules"]
    loaded = None if fixed else make_agent(settings.agent)
    obs_mode = getattr(loaded, "obs_mode", None) or t["obs_mode"] or "multidiscrete"
    trained_on = None
    if t["run"]:
        trained_on = f"{t['run'].get('rules')}, {t['run'].get('obs_mode')} observation"
    extra: dict[str, Any] = {"bet_sizes": sizes} if sizes else {}
    if getattr(loaded, "observe_rules", False):  # its observation carries the rules
        extra["observe_rules"] = True
    try:
        env = gym.make("blackjack_env/Blackjack-v0", rules=rules, seat=t["seat"],
                       others=t["others"], obs_mode=obs_mode,
                       rounds_per_episode=settings.session, **extra)
    except ValueError as err:
        if loaded is None:
            raise
        raise UsageError(f"{settings.agent} reads the {obs_mode} observation, which these rules "
                         f"({rules.summary()}) cannot give ({err}); it was trained on other "
                         f"rules{f' ({trained_on})' if trained_on else ''}") from None
    if loaded is not None:
        if sizes and not decides_bets(loaded):
            raise UsageError(f"--bet-sizes: {settings.agent} plays at a fixed bet (it was "
                             f"trained without bets); give --bet-sizes to the counter, a fixed "
                             f"agent or a policy that decides its bets (model-bets.npz)")
        check_fits(loaded, env, settings.agent, trained_on, bet_sizes=sizes)
    agent = loaded if loaded is not None else make_agent(settings.agent, env,
                                                         seed=settings.seed)
    if settings.workers:
        _check_batched(settings, rules)
    where = {"rules": t["name"], "seat": t["seat"], "others": t["others"],
             "decks": "inf" if rules.decks is None else rules.shoe_decks}
    store = ""
    if settings.ceiling:
        store = _check_ceiling(settings, rules, agent, sizes, t["name"])
    return Plan(rules, env, agent, obs_mode, where, sizes, store)


def _check_ceiling(settings: Settings, rules: Any, agent: Any, sizes: tuple[int, ...],
                   name: str) -> str:
    """``--ceiling``'s checks; the store's path."""
    if settings.ceiling < 0:
        raise UsageError(f"--ceiling {settings.ceiling}: rounds to price, 0 (none) or more")
    if rules.decks is None:
        raise UsageError("--ceiling: the perfect counter needs a finite shoe (these rules deal "
                         "an infinite deck); give --decks")
    if rules.penetration is None or rules.penetration >= 1:
        raise UsageError(f"--ceiling: these rules ({name}) "
                         + ("reshuffle before every round, so every round is a full shoe "
                            "and there is nothing to count" if rules.penetration is None else
                            "deal the whole shoe; the perfect counter needs a cut card")
                         + "; use rules with a penetration below 1 (e.g. vegas-strip)")
    if not decides_bets(agent) or not sizes:
        raise UsageError(f"--ceiling grades bets: give --bet-sizes and an agent that decides "
                         f"its bets (counter, or a model-bets.npz); {settings.agent} "
                         + ("bets nothing without --bet-sizes" if decides_bets(agent)
                            else "plays at a fixed bet"))
    try:
        round_bettor(agent, sizes, rules)
    except ValueError as err:
        raise UsageError(f"--ceiling: {err}") from None
    store = settings.ceiling_store or store_name(name, rules.decks, _penetration(rules), 0)
    check_writable("ceiling-store", store)
    check_store(rules, store, penetration=_penetration(rules), seed=0)
    return store


def _penetration(rules: Any) -> float:
    """Where the ceiling's shoes are cut: the rules' own penetration (checked to be a
    fraction below 1 by ``_check_ceiling``)."""
    return float(rules.penetration)


def _check_batched(settings: Settings, rules: Any) -> None:
    if settings.agent not in POLICIES:
        raise UsageError(
            f"--workers simulates fixed policies only ({', '.join(sorted(POLICIES))}); "
            f"got {settings.agent!r}: use --workers 0 for saved agents and the counter")
    if rules.seats != 1 or settings.bet_sizes or settings.session != 1:
        raise UsageError(
            "--workers plays one seat, a fixed bet and one-round episodes: drop --seats, "
            "--bet-sizes and --session, or use --workers 0")


def finite_chart_rules(settings: Settings, plan: Plan) -> Any:
    """The rules whose finite-shoe basic-strategy chart this evaluation will derive before
    its first round (the nearest rules the analysis serves), or None when it derives none
    (an infinite deck, no basic strategy at the table, or rules only its infinite-deck
    chart can serve)."""
    rules = plan.rules
    basic_seats = plan.where["others"] == "basic" and rules.seats > 1
    if rules.decks is None or not (settings.agent in ("basic", "counter") or basic_seats):
        return None
    try:
        return nearest_supported_rules(rules)[0]
    except ValueError:  # basic then plays the infinite-deck chart (agents.fixed)
        return None


def chart_notice(rules: Any, name: str) -> str:
    """The line said before a finite-shoe chart is derived: what is slow, why, how long."""
    custom = tuple(rules.card_values) != tuple(STANDARD_VALUES)
    decks = rules.shoe_decks
    how_long = ("10-60 s with custom card values such as these" if custom else
                "about 1-2 s")
    return (f"note: basic strategy for {name}'s {decks}-deck shoe is derived first by exact "
            f"combinatorial analysis of that shoe ({how_long}, once); --decks inf plays the "
            f"infinite-deck chart at once, on an infinite deck")


def run(settings: Settings) -> dict[str, Any]:
    """Run the evaluation; return the results as a JSON-ready dict (``--out`` written)."""
    if settings.rule_sets:
        return run_rule_sets(settings)
    plan = prepare(settings)
    chart_seconds = None
    chart_rules = finite_chart_rules(settings, plan)
    if chart_rules is not None:
        print(chart_notice(chart_rules, plan.where["rules"]), file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        basic_strategy_chart(chart_rules)  # cached: the table's strategies read it from there
        chart_seconds = round(time.perf_counter() - t0, 2)
    t0 = time.perf_counter()
    if settings.workers:
        sim = simulate_batched(settings, plan.rules)
    else:
        sim = simulate(plan.agent, plan.env, settings.hands, seed=settings.seed,
                       progress=settings.progress)
    seconds = time.perf_counter() - t0
    exact = exact_grade(plan.agent, plan.rules, plan.obs_mode)
    reason = analysis_reason(plan.rules)
    if exact is None and reason is None:
        reason = ("the agent reads the dict observation, which the analysis cannot encode"
                  if plan.obs_mode == "dict" else
                  "the agent has no deterministic policy to grade (random)"
                  if settings.agent == "random" else
                  "this fixed agent decides from the live table, not from a state the "
                  "analysis can ask about")
    reference = None if exact is not None else composition_reference(plan.rules)
    if reference is not None and reference["expected_return"] is not None:
        ref = reference["expected_return"]
        lo, hi = sim["ci95"]
        reference = {**reference, "simulated_minus_reference": sim["mean_return"] - ref,
                     "simulated_minus_reference_ci95": [lo - ref, hi - ref]}
    ceiling = _ceiling(settings, plan) if settings.ceiling else None
    result = {
        "agent": settings.agent, "agent_name": getattr(plan.agent, "name", "agent"),
        **plan.where, "rules_summary": plan.rules.summary(), "obs_mode": plan.obs_mode,
        "seed": settings.seed, "simulation": sim, "simulation_seconds": round(seconds, 2),
        "chart_seconds": chart_seconds,
        "exact": exact, "exact_unavailable": reason if exact is None else None,
        "reference": reference, "ceiling": ceiling, "settings": asdict(settings),
    }
    if settings.out:
        write_json(settings.out, result)
    return result


def _ceiling(settings: Settings, plan: Plan) -> dict[str, Any]:
    """``--ceiling``: the agent's bets and the Hi-Lo ramp graded on priced rounds beside the
    ceiling of the spread (:func:`blackjack_env.agents.ceiling.ceiling_report`)."""
    penetration = _penetration(plan.rules)
    print(f"pricing {settings.ceiling:,} rounds of the perfect counter (the exact edge of each "
          f"round's pool; store {plan.ceiling_store})", file=sys.stderr, flush=True)
    if (notice := speed_notice()) is not None:
        print(notice, file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    label = settings.agent if settings.agent in FIXED_AGENTS else Path(settings.agent).name
    with pricing_bar(settings.ceiling, settings.progress) as progress:
        report = ceiling_report(plan.agent, label, plan.rules, plan.bet_sizes,
                                settings.ceiling, penetration=penetration,
                                store=plan.ceiling_store, progress=progress,
                                workers=default_workers())
    return {"penetration": penetration, "shoe_seed": 0, "store": plan.ceiling_store,
            "seconds": round(time.perf_counter() - t0, 1), **report.to_dict(),
            "table": report.table(), "narrowing_lines": report.narrowing_lines()}


# ----------------------------------------------------------------------- --rule-sets
#: The options of one simulated table that --rule-sets does not take (name, default).
SINGLE_TABLE_OPTIONS = (("decks", ""), ("seats", 0), ("seat", -1), ("others", ""),
                        ("hands", 100_000), ("bet_sizes", ""), ("session", 1), ("seed", 12345),
                        ("ceiling", 0), ("ceiling_store", ""))
#: Where a fixed agent's --rule-sets results go when no --out is given.
RULE_SETS_DIR = Path("runs") / "rule-sets"


@dataclass
class RuleSetsPlan:
    agent: Any
    named: NamedRuleSets
    path: Path
    plays_by: str | None


def _slug(name: str) -> str:
    stem = Path(name.split(" (")[0]).stem if name.endswith(")") or "." in name else name
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in stem)


def prepare_rule_sets(settings: Settings) -> RuleSetsPlan:
    """``--rule-sets``' checks: the options, the list, the agent and the output file;
    nothing is written and nothing graded."""
    given = [f"--{name.replace('_', '-')}" for name, default in SINGLE_TABLE_OPTIONS
             if getattr(settings, name) != default]
    if given:
        raise UsageError(f"--rule-sets grades exactly on a list of rule sets (no simulation): "
                         f"{', '.join(given)} {'belongs' if len(given) == 1 else 'belong'} to "
                         f"the evaluation at one table; drop {'it' if len(given) == 1 else 'them'}")
    if settings.workers < 0:
        raise UsageError(f"--workers {settings.workers}: processes to grade in, 0 (one per "
                         f"{RULE_SETS_PER_WORKER} rule sets, at most every core) or more")
    fixed = settings.agent in FIXED_AGENTS
    if settings.rules and not fixed:
        raise UsageError(f"--rules {settings.rules}: a saved model is graded on each rule set "
                         f"of --rule-sets; --rules names the rules a fixed agent plays by")
    try:
        named = load_rule_sets(settings.rule_sets)
    except ValueError as err:
        raise UsageError(f"--rule-sets {err}") from None
    try:
        check_gradable(named.rules)
    except ValueError as err:
        raise UsageError(f"--rule-sets {settings.rule_sets}: {err}") from None
    plays_by = None
    if fixed:
        t = table_for(settings.agent, settings.rules)
        rules = t["rules"].replace(decks=None)
        plays_by = f"{t['name']}, infinite deck"
        env = gym.make("blackjack_env/Blackjack-v0", rules=rules)
        try:
            agent = make_agent(settings.agent, env, seed=0)
        except ValueError as err:  # e.g. the counter, which needs a finite shoe
            raise UsageError(f"{settings.agent}: {err} (--rule-sets grades on infinite "
                             f"decks)") from None
    else:
        agent = make_agent(settings.agent)
        _check_observes_rules(agent, settings.agent)
    if settings.out:
        path = check_output_file(settings.out, "--out")
    else:
        folder = RULE_SETS_DIR if fixed else find_model(settings.agent).parent
        name = (f"{settings.agent}-{settings.rules or 'sutton-barto'}-" if fixed else "") + \
            f"rule-sets-{_slug(named.name)}.json"
        path = check_output_file(folder / name, "--out")
    try:  # the agent's own checks (a random agent, actions, observation), before any work
        check_agent(agent, named.rules)
    except ValueError as err:
        raise UsageError(f"{settings.agent}: {err}") from None
    return RuleSetsPlan(agent, named, path, plays_by)


def _check_observes_rules(agent: Any, spec: str) -> None:
    mode = str(getattr(agent, "obs_mode", "") or "")
    if getattr(agent, "observe_rules", False):
        return
    if mode not in ("vector", "features"):
        raise UsageError(f"{spec} reads the {mode or 'unknown'} observation, which cannot carry "
                         f"the rules: --rule-sets grades a policy that observes the rules of "
                         f"each table ('vector' or 'features' with the rule features, "
                         f"observe_rules), or a fixed agent (basic, dealer, stand)")
    raise UsageError(f"{spec} does not observe the rules (its {mode} observation has no rule "
                     f"features): it would play every rule set alike; --rule-sets grades a "
                     f"policy trained with observe_rules, or a fixed agent (basic, dealer, "
                     f"stand); grade_rule_sets (blackjack_env.agents.rule_sets) grades any "
                     f"policy from Python")


def run_rule_sets(settings: Settings) -> dict[str, Any]:
    """``--rule-sets``: the exact grade on every rule set of the list; the JSON written."""
    plan = prepare_rule_sets(settings)
    named = plan.named
    workers = planned_workers(len(named.rules), settings.workers or None)
    print(f"grading {settings.agent} exactly on {len(named.rules)} rule sets ({named.name}) in "
          f"{workers} process{'es' if workers > 1 else ''}", file=sys.stderr, flush=True)
    bar = None
    if settings.progress:
        # deferred: loads tqdm (the optional [main] extra)
        from tqdm.auto import tqdm

        bar = tqdm(total=len(named.rules), unit="rule set", desc="grade", mininterval=0.5)
    try:
        result = grade_rule_sets(plan.agent, named.rules, workers=workers, axes=named.axes,
                                 name=named.name,
                                 progress=None if bar is None else
                                 lambda done: bar.update(done - bar.n))
    except ValueError as err:
        raise UsageError(f"{settings.agent}: {err}") from None
    finally:
        if bar is not None:
            bar.close()
    label = settings.agent if settings.agent in FIXED_AGENTS else Path(settings.agent).name
    if plan.plays_by:
        label = f"{label} (plays by {plan.plays_by})"
    table = replace(result, agent=label).table()
    out = {"agent": settings.agent, "agent_name": result.agent, "plays_by": plan.plays_by,
           **result.to_dict(), "table": table, "path": str(plan.path),
           "load_average": load_average(), "settings": asdict(settings)}
    write_json(plan.path, out)
    return out


def batched_plan(hands: int, per_table: int = 64, tables: int = 1024) -> tuple[int, int]:
    """``(tables, chunks)`` for the batched simulator that play at least ``hands`` rounds
    and fewer than ``hands + chunks * per_table``: whole chunks of ``tables * per_table``
    rounds at most, with the tables of each chunk cut to what the request needs."""
    chunks = math.ceil(hands / (tables * per_table))
    return math.ceil(hands / (chunks * per_table)), chunks


def simulate_batched(settings: Settings, rules: Any) -> dict[str, Any]:
    """``--workers``: the fixed policy on the batched tables (blackjack_env.simulate),
    in the same shape as the in-process simulation; rates are per round result."""
    per_table = 64
    tables, _ = batched_plan(settings.hands, per_table)
    res = batched(settings.agent, rules, settings.hands, seed=settings.seed,
                  workers=settings.workers, tables=tables, rounds_per_table=per_table)
    half = z_value() * res.std / math.sqrt(res.hands)
    return {
        "rounds": res.hands,
        "rounds_asked": settings.hands,
        "hands": res.hands,
        "mean_return": res.mean,
        "sd": res.std,
        "ci95": [res.mean - half, res.mean + half],
        "ci95_half_width": half,
        "rates": {f"round {k}": v for k, v in res.outcomes.items()},
        "workers": settings.workers,
        "chunks": res.chunks,
        "tables_per_chunk": tables,
        "rounds_per_table": per_table,
    }


def print_table(result: dict[str, Any]) -> None:
    sim = result["simulation"]
    lo, hi = sim["ci95"]
    print(f"agent {result['agent']} ({result['agent_name']}) at seat {result['seat']}, "
          f"others: {result['others']}")
    print(f"rules {result['rules']}: {result['rules_summary']}")
    print(f"simulated {sim['rounds']:,} rounds ({sim['hands']:,} hands), seed {result['seed']}, "
          f"{result['simulation_seconds']} s")
    if result.get("chart_seconds") is not None:
        print(f"  (basic strategy's chart of this shoe: derived in {result['chart_seconds']} s "
              f"before the first round)")
    asked = sim.get("rounds_asked")
    if asked is not None and asked != sim["rounds"]:
        print(f"  (asked for {asked:,}: the batched tables play {sim['chunks']} chunk(s) of "
              f"{sim['tables_per_chunk']:,} tables x {sim['rounds_per_table']} rounds)")
    print(f"  mean return per round  {sim['mean_return']:+.4f}  "
          f"({CI_NAME} {lo:+.4f} .. {hi:+.4f})")
    rates = sim["rates"]
    label = "per round" if "workers" in sim else "per hand"
    print(f"  {label}: " + "  ".join(f"{k} {v:.4f}" for k, v in rates.items()))
    exact = result["exact"]
    if exact:
        print(f"  exact return of the greedy policy {exact['exact_return']:+.5f}")
        print(f"  optimal return                    {exact['optimal_return']:+.5f}")
        print(f"  regret                            {exact['regret']:.5f}")
        spread = exact.get("regret_if_split_hands_play_as_index")
        if spread:
            print(f"  ({exact['split_states_depending_on_hand_index']} split-hand states depend "
                  f"on the hand index, which the analysis does not see: regret if every split "
                  f"hand played as hand k: "
                  + ", ".join(f"k={k} {v:.5f}" for k, v in spread.items()) + ")")
    else:
        print(f"  exact grade: n/a ({result['exact_unavailable']})")
    ref = result.get("reference")
    if ref:
        if ref["expected_return"] is None:
            print(f"  reference ({ref['name']}): n/a ({ref['unavailable']})")
        else:
            lo, hi = ref["simulated_minus_reference_ci95"]
            print(f"  reference: {ref['name']} {ref['expected_return']:+.5f} per unit bet")
            print(f"  simulated - reference  {ref['simulated_minus_reference']:+.4f}  "
                  f"({CI_NAME} {lo:+.4f} .. {hi:+.4f})")
    if not exact and (not ref or ref["expected_return"] is None):
        print("  the simulated return is the grade here: more --hands narrow its interval")
    ceiling = result.get("ceiling")
    if ceiling:
        lo, hi = ceiling["spread"]
        print(f"\nbets against the perfect counter: {ceiling['rounds']:,} rounds of "
              f"{ceiling['shoes']:,} shoes cut at {ceiling['penetration']:g}, spread {lo}-{hi} "
              f"(95% intervals, shoes as clusters; exact: the exact edge of each round's pool, "
              f"simulated: what the round paid)")
        print(ceiling["table"])
        print("\n".join(ceiling["narrowing_lines"]))


def _job(settings: Settings) -> None:
    try:
        result = run(settings)
        if settings.json:
            print(json.dumps(result, indent=2))
        elif settings.rule_sets:
            print(result["table"])
            print(f"  results: {result['path']}")
        else:
            print_table(result)
            if settings.out:
                print(f"  results: {Path(settings.out)}")
    except ImportError as err:
        raise UsageError(missing_package(err, "main")) from None


def main(argv: list[str] | None = None) -> int:
    """The ``blackjack-evaluate`` command."""
    return run_command(Settings, _job, argv, prog="blackjack-evaluate")
