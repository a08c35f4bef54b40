"""``blackjack-analyze``: the house edge and the basic-strategy chart of a rule set, exactly.

For an infinite deck (``--decks inf``) the optimum is exact and the chart is the
optimal strategy. For a finite shoe the command prints the exact combinatorial
return of the derived total-dependent basic strategy, and the infinite-deck optimum
of the same rules for reference.

Usage::

    blackjack-analyze --rules vegas-strip
    blackjack-analyze --rules vegas-strip --decks 2 --h17 --surrender none
    blackjack-analyze --rules gymnasium --json out.json --chart chart.png
    blackjack-analyze --rules atlantic-city --set max_split_hands=3 --set resplit_aces=true
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

import tyro
from blackjack_env.agents.commands import UsageError, run_command

from blackjack_env._cli import (
    apply_rule_changes,
    check_writable,
    preset_option,
    rule_value,
    set_options,
    write_json,
)
from blackjack_env.engine.rules import Rules

__all__ = ["Settings", "analyze", "build_rules", "main", "run"]

_Flag = tyro.conf.FlagCreatePairsOff


@dataclass
class Settings:
    """House edge and basic-strategy chart of a blackjack rule set (exact analysis)."""

    rules: str = "vegas-strip"
    """rule preset (see blackjack_env.list_presets())"""
    decks: str | None = None
    """number of decks 1..8, or 'inf' for an infinite deck"""
    h17: Annotated[bool, _Flag] = False
    """dealer hits soft 17"""
    s17: Annotated[bool, _Flag] = False
    """dealer stands on soft 17"""
    surrender: str | None = None
    """surrender rule: none, late or early"""
    payout: str | None = None
    """blackjack payout, e.g. 3:2, 6:5, 1:1"""
    hole_card: str | None = None
    """hole-card rule: peek, no-peek or none"""
    double: str | None = None
    """double rule: any, 9-11, 10-11 or never"""
    das: Annotated[bool, _Flag] = False
    """double after split allowed"""
    no_das: Annotated[bool, _Flag] = False
    """no double after split"""
    split_hands: int | None = None
    """maximum hands by splitting (1 = no split)"""
    rsa: Annotated[bool, _Flag] = False
    """resplit aces allowed"""
    hsa: Annotated[bool, _Flag] = False
    """hit split aces allowed"""
    ties: str | None = None
    """tie rule: push, dealer-wins or player-loses"""
    set: Annotated[list[str], tyro.conf.UseAppendAction] = field(default_factory=list)
    """any Rules field as FIELD=VALUE (repeatable), e.g. ties=push or 'card_values={"J": 1}'"""
    json: str | None = None
    """write the results as JSON to this file"""
    chart: str | None = None
    """draw the colour-coded chart (PNG) to this file (needs matplotlib)"""
    quiet: Annotated[bool, _Flag] = False
    """print only the house edge lines"""


def _overrides(s: Settings) -> tuple[dict[str, Any], dict[str, str]]:
    """The rule changes asked for, and for each changed field the option that asked."""
    changes: dict[str, Any] = {}
    origin: dict[str, str] = {}

    def put(name: str, value: Any, option: str) -> None:
        changes[name] = value
        origin[name] = option

    if s.h17 and s.s17:
        raise UsageError("--h17 and --s17 contradict each other: give one of them")
    if s.das and s.no_das:
        raise UsageError("--das and --no-das contradict each other: give one of them")
    if s.decks is not None:
        decks = rule_value(s.decks)
        put("decks", decks, f"--decks {s.decks}")
        if decks is None:
            put("seats_per_deck", None, f"--decks {s.decks}")
    if s.h17 or s.s17:
        put("dealer_hits_soft_17", s.h17, "--h17" if s.h17 else "--s17")
    if s.surrender is not None:
        put("surrender", s.surrender, f"--surrender {s.surrender}")
    if s.payout is not None:
        put("blackjack_payout", s.payout, f"--payout {s.payout}")
    if s.hole_card is not None:
        put("hole_card", s.hole_card, f"--hole-card {s.hole_card}")
        if s.hole_card != "peek":
            put("insurance", False, f"--hole-card {s.hole_card}")
    if s.double is not None:
        put("double", s.double, f"--double {s.double}")
    if s.das or s.no_das:
        put("double_after_split", s.das, "--das" if s.das else "--no-das")
    if s.split_hands is not None:
        put("max_split_hands", s.split_hands, f"--split-hands {s.split_hands}")
    if s.rsa:
        put("resplit_aces", True, "--rsa")
    if s.hsa:
        put("hit_split_aces", True, "--hsa")
    if s.ties is not None:
        put("ties", s.ties, f"--ties {s.ties}")
    more, more_origin = set_options(s.set)
    changes.update(more)
    origin.update(more_origin)
    return changes, origin


def build_rules(s: Settings) -> Rules:
    """The preset with the command-line overrides applied; a bad value is refused naming
    the option that gave it."""
    changes, origin = _overrides(s)
    return apply_rule_changes(preset_option(s.rules), changes, origin)


def analyze(rules: Rules) -> tuple[dict[str, Any], Any]:
    """Run the analysis: a JSON-ready dict of results, and the chart."""
    from blackjack_env.analysis import basic_strategy_chart, finite_shoe_return, solve

    out: dict[str, Any] = {"rules": rules.to_dict(), "summary": rules.summary()}
    infinite_rules = (
        rules if rules.decks is None else rules.replace(decks=None, seats_per_deck=None)
    )
    t0 = time.perf_counter()
    sol = solve(infinite_rules)
    out["infinite_deck_optimal_return"] = sol.expected_return
    out["infinite_deck_upcard_returns"] = sol.upcard_returns
    out["seconds_infinite"] = time.perf_counter() - t0
    if rules.decks is None:
        out["expected_return"] = sol.expected_return
        out["method"] = "infinite deck, exact optimum"
        chart = sol.chart
    else:
        t0 = time.perf_counter()
        chart = basic_strategy_chart(rules)
        result = finite_shoe_return(rules, chart)
        out["seconds_finite"] = time.perf_counter() - t0
        out["expected_return"] = result.expected_return
        out["upcard_returns"] = result.upcard_returns
        out["method"] = (
            f"{rules.shoe_decks}-deck shoe, exact combinatorial return of the total-dependent "
            f"basic strategy (split approximation: see blackjack_env.analysis.finite)"
        )
    out["house_edge_percent"] = -100.0 * out["expected_return"]
    out["chart"] = chart.to_dict()
    return out, chart


def run(s: Settings) -> dict[str, Any]:
    """Check every option, analyse, print, write the files asked for."""
    rules = build_rules(s)
    check_writable("json", s.json)
    check_writable("chart", s.chart)
    if s.chart:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError(
                "--chart needs matplotlib, which is not installed: pip install -e '.[charts]'"
            ) from None
    result, chart = analyze(rules)
    print(f"Rules: {result['summary']}")
    print(
        f"House edge: {result['house_edge_percent']:+.4f}% "
        f"(expected return {100 * result['expected_return']:+.4f}% per unit bet; "
        f"{result['method']})"
    )
    if rules.decks is not None:
        print(
            f"Infinite-deck optimum of the same rules: "
            f"{100 * result['infinite_deck_optimal_return']:+.4f}%"
        )
    if not s.quiet:
        print()
        print(chart.to_text())
    if s.json:
        write_json(s.json, result)
        print(f"wrote {s.json}")
    if s.chart:
        chart.plot(s.chart)
        print(f"wrote {s.chart}")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="blackjack-analyze")
