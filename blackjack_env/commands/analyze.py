"""``blackjack-analyze``: the house edge and the basic-strategy chart of a rule set, exactly.

For an infinite deck (``--decks inf``) the optimum is exact and the chart is the
optimal strategy. For a finite shoe the command prints the exact combinatorial
return of the derived total-dependent basic strategy, and the infinite-deck optimum
of the same rules for reference; and, unless ``--no-composition``, two figures of
:mod:`blackjack_env.analysis.composition`:

* the composition-dependent (CDZ-) return of a full shoe: every decision made on the
  hand's exact cards, the best a player without a count can do
  (:func:`~blackjack_env.analysis.composition.composition_return`);
* the effects of removal: the change in that optimal return when one card of each of
  the 13 ranks is taken out of the full shoe, the figures card counting rests on
  (:func:`~blackjack_env.analysis.composition.effects_of_removal`).

They cost, in CPU of one core, about 0.7 s and 7 s with one deck, 1.3 s and 11 s with
six (the effects of removal solve the shoe once per card value), which
``--no-composition`` skips. The JSON (``--json``) holds them under ``composition``.

Usage::

    blackjack-analyze --rules vegas-strip
    blackjack-analyze --rules vegas-strip --decks 2 --h17 --surrender none
    blackjack-analyze --rules gymnasium --json out.json --chart chart.png
    blackjack-analyze --rules atlantic-city --set max_split_hands=3 --set resplit_aces=true
    blackjack-analyze --rules vegas-strip --no-composition       # skip the ~10 s figures
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

import tyro

from blackjack_env.agents.plots import draw_chart
from blackjack_env.analysis import basic_strategy_chart, finite_shoe_return, solve
from blackjack_env.analysis.composition import composition_return, effects_of_removal
from blackjack_env.cli import (
    apply_rule_changes,
    check_writable,
    note_new_folder,
    option,
    preset_option,
    rule_value,
    set_options,
    write_json,
)
from blackjack_env.commands import UsageError, run_command
from blackjack_env.engine.rules import Rules

__all__ = ["Settings", "analyze", "build_rules", "composition_figures", "main", "run"]

_Flag = tyro.conf.FlagCreatePairsOff


@dataclass
class Settings:
    """House edge and basic-strategy chart of a blackjack rule set (exact analysis)."""

    rules: Annotated[str, option("PRESET")] = "vegas-strip"
    """rule preset (see blackjack_env.list_presets())"""
    decks: Annotated[str, option("N|inf", "the preset's")] = ""
    """number of decks 1..8, or inf for an infinite deck"""
    h17: Annotated[bool, _Flag, option(default="the preset's")] = False
    """the dealer hits soft 17"""
    s17: Annotated[bool, _Flag, option(default="the preset's")] = False
    """the dealer stands on soft 17"""
    surrender: Annotated[str | None, option("none|late|early", "the preset's")] = None
    """surrender rule"""
    payout: Annotated[str | None, option("RATIO", "the preset's")] = None
    """blackjack payout, e.g. 3:2, 6:5, 1:1"""
    hole_card: Annotated[str | None, option("peek|no-peek|none", "the preset's")] = None
    """hole-card rule"""
    double: Annotated[str | None, option("any|9-11|10-11|never", "the preset's")] = None
    """which two-card hands may double"""
    das: Annotated[bool, _Flag, option(default="the preset's")] = False
    """double after split allowed"""
    no_das: Annotated[bool, _Flag, option(default="the preset's")] = False
    """no double after split"""
    split_hands: Annotated[int | None, option("N", "the preset's")] = None
    """maximum hands by splitting (1 = no split)"""
    rsa: Annotated[bool, _Flag, option(default="the preset's")] = False
    """resplit aces allowed"""
    hsa: Annotated[bool, _Flag, option(default="the preset's")] = False
    """hit split aces allowed"""
    ties: Annotated[str | None, option("push|dealer-wins|player-loses", "the preset's")] = None
    """tie rule"""
    set: Annotated[list[str], tyro.conf.UseAppendAction, option("FIELD=VALUE", "")] = field(
        default_factory=list)
    """any Rules field, repeatable, e.g. ties=push or 'card_values={"J": 1}'"""
    json: Annotated[str | None, option("FILE", "not written")] = None
    """write the results as JSON to this file"""
    chart: Annotated[str | None, option("FILE", "not drawn")] = None
    """draw the colour-coded chart as a PNG picture to this file, whose name ends in .png
    (needs matplotlib)"""
    quiet: Annotated[bool, _Flag] = False
    """print only the house edge lines and the effects of removal, not the chart"""
    composition: Annotated[bool, tyro.conf.FlagCreatePairsOff, option(default="")] = True
    """skip the finite shoe's composition-dependent return and effects of removal (~8-12 s)"""


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
    if s.decks:
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


def analyze(rules: Rules, composition: bool = True) -> tuple[dict[str, Any], Any]:
    """Run the analysis: a JSON-ready dict of results, and the chart.

    ``composition``: for a finite shoe also :func:`composition_figures` (key
    ``composition``; None when skipped, on an infinite deck, or when the analysis
    cannot serve the rules, with the reason in ``composition_unavailable``)."""
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
    out["composition"] = None
    if rules.decks is None:
        out["composition_unavailable"] = "an infinite deck: the composition carries no information"
    elif not composition:
        out["composition_unavailable"] = "skipped (--no-composition)"
    else:
        try:
            out["composition"] = composition_figures(rules)
        except ValueError as err:
            out["composition_unavailable"] = str(err)
    return out, chart


def composition_figures(rules: Rules) -> dict[str, Any]:
    """The composition-dependent return of a full shoe of ``rules`` (per unit bet, and
    given each upcard) and the effects of removal (rank letter -> change in that return
    when one card of the rank leaves the full shoe), with the seconds each took."""
    t0 = time.perf_counter()
    result = composition_return(rules)
    t1 = time.perf_counter()
    effects = effects_of_removal(rules)
    t2 = time.perf_counter()
    return {
        "expected_return": result.expected_return,
        "upcard_returns": result.upcard_returns,
        "effects_of_removal": effects,
        "method": (
            f"full {rules.shoe_decks}-deck shoe, composition-dependent (CDZ-) play; "
            f"effects of removal: one card of each rank out of the full shoe, play "
            f"re-optimised (split approximation: see blackjack_env.analysis.composition)"
        ),
        "seconds_return": round(t1 - t0, 3),
        "seconds_effects_of_removal": round(t2 - t1, 3),
    }


def composition_text(figures: dict[str, Any], basic_return: float) -> list[str]:
    """The printed lines of :func:`composition_figures`."""
    cd = figures["expected_return"]
    lines = [
        f"Composition-dependent return (each decision on the hand's cards, full shoe): "
        f"{100 * cd:+.4f}% ({100 * (cd - basic_return):+.4f} points above the "
        f"total-dependent basic strategy)",
        "Effects of removal (change in that return, in percentage points, when one card "
        "of the rank leaves the full shoe):",
    ]
    effects = figures["effects_of_removal"]
    lines.append("  " + " ".join(f"{rank:>6}" for rank in effects))
    lines.append("  " + " ".join(f"{100 * v:+6.3f}" for v in effects.values()))
    return lines


def run(s: Settings) -> dict[str, Any]:
    """Check every option, analyse, print, write the files asked for."""
    rules = build_rules(s)
    check_writable("json", s.json)
    check_writable("chart", s.chart, suffixes=(".png",))
    if s.chart:
        try:
            # checks now, before any work, that matplotlib (the [charts] extra) is there
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError(
                "--chart needs matplotlib, which is not installed: pip install -e '.[charts]'"
            ) from None
    if s.composition and rules.decks is not None:
        print("(computing the composition-dependent return and the effects of removal: "
              "about 10 s of CPU; --no-composition skips them)", flush=True)
    result, chart = analyze(rules, composition=s.composition)
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
        if result["composition"] is not None:
            for line in composition_text(result["composition"], result["expected_return"]):
                print(line)
        elif s.composition:
            print(f"Composition-dependent figures: n/a ({result['composition_unavailable']})")
    if not s.quiet:
        print()
        print(chart.to_text())
    if s.json:
        write_json(s.json, result)
        print(f"wrote {s.json}")
    if s.chart:
        note_new_folder(s.chart)
        what = ("optimal strategy" if rules.decks is None else
                f"total-dependent basic strategy ({rules.shoe_decks}-deck shoe)")
        draw_chart(chart, s.chart, title=f"{s.rules}: {what}, house edge "
                   f"{result['house_edge_percent']:+.3f}%; {result['summary']}")
        print(f"wrote {s.chart}")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="blackjack-analyze")
