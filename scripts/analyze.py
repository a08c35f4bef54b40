"""Print the house edge and the basic-strategy chart of a rule set (exact analysis).

Examples::

    python scripts/analyze.py --rules vegas-strip
    python scripts/analyze.py --rules vegas-strip --decks 2 --h17 --surrender none
    python scripts/analyze.py --rules gymnasium --json out.json --chart chart.png
    python scripts/analyze.py --rules atlantic-city --set max_split_hands=3 --set resplit_aces=true

For an infinite deck (``--decks inf``) the optimum is exact and the chart is the
optimal strategy. For a finite shoe the script prints the exact combinatorial
return of the derived total-dependent basic strategy, and the infinite-deck
optimum of the same rules for reference.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from blackjack_env.analysis import basic_strategy_chart, finite_shoe_return, solve
from blackjack_env.engine.rules import FIELD_NAMES, PRESETS, Rules, preset


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="House edge and basic strategy chart for a blackjack rule set.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--rules", default="vegas-strip", choices=sorted(PRESETS), help="rule preset")
    p.add_argument("--decks", help="number of decks 1..8, or 'inf' for an infinite deck")
    h17 = p.add_mutually_exclusive_group()
    h17.add_argument("--h17", action="store_true", help="dealer hits soft 17")
    h17.add_argument("--s17", action="store_true", help="dealer stands on soft 17")
    p.add_argument("--surrender", choices=["none", "late", "early"], help="surrender rule")
    p.add_argument("--payout", help="blackjack payout, e.g. 3:2, 6:5, 1:1")
    p.add_argument("--hole-card", choices=["peek", "no-peek", "none"], help="hole-card rule")
    p.add_argument("--double", choices=["any", "9-11", "10-11", "never"], help="double rule")
    das = p.add_mutually_exclusive_group()
    das.add_argument("--das", action="store_true", help="double after split allowed")
    das.add_argument("--no-das", action="store_true", help="no double after split")
    p.add_argument("--split-hands", type=int, help="maximum hands by splitting (1 = no split)")
    p.add_argument("--rsa", action="store_true", help="resplit aces allowed")
    p.add_argument("--hsa", action="store_true", help="hit split aces allowed")
    p.add_argument("--ties", choices=["push", "dealer-wins", "player-loses"], help="tie rule")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="any other Rules field (repeatable), e.g. --set natural_beats_21=false",
    )
    p.add_argument("--json", metavar="PATH", help="write the results as JSON here")
    p.add_argument("--chart", metavar="PATH", help="draw the colour-coded chart (PNG) here")
    p.add_argument("--quiet", action="store_true", help="print only the house edge line")
    return p.parse_args(argv)


def _value(text: str) -> Any:
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null", "inf", "infinite"):
        return None
    try:
        return int(low)
    except ValueError:
        pass
    try:
        return float(low)
    except ValueError:
        return text.strip()


def build_rules(args: argparse.Namespace) -> Rules:
    """The preset with the command-line overrides applied (ValueError on bad input)."""
    changes: dict[str, Any] = {}
    if args.decks is not None:
        decks = _value(args.decks)
        changes["decks"] = decks
        if decks is None:
            changes["seats_per_deck"] = None
    if args.h17:
        changes["dealer_hits_soft_17"] = True
    if args.s17:
        changes["dealer_hits_soft_17"] = False
    if args.surrender:
        changes["surrender"] = args.surrender
    if args.payout:
        changes["blackjack_payout"] = args.payout
    if args.hole_card:
        changes["hole_card"] = args.hole_card
        if args.hole_card != "peek":
            changes["insurance"] = False
    if args.double:
        changes["double"] = args.double
    if args.das:
        changes["double_after_split"] = True
    if args.no_das:
        changes["double_after_split"] = False
    if args.split_hands is not None:
        changes["max_split_hands"] = args.split_hands
    if args.rsa:
        changes["resplit_aces"] = True
    if args.hsa:
        changes["hit_split_aces"] = True
    if args.ties:
        changes["ties"] = args.ties
    for item in args.set:
        if "=" not in item:
            raise ValueError(
                f"--set {item!r}: use FIELD=VALUE; fields are {', '.join(FIELD_NAMES)}"
            )
        name, value = item.split("=", 1)
        changes[name.strip()] = _value(value)
    return preset(args.rules, **changes)


def analyze(rules: Rules) -> dict[str, Any]:
    """Run the analysis; returns a JSON-ready dict."""
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
    out["_chart"] = chart
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        rules = build_rules(args)
        result = analyze(rules)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    chart = result.pop("_chart")
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
    if not args.quiet:
        print()
        print(chart.to_text())
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=2)
        print(f"wrote {args.json}")
    if args.chart:
        chart.plot(args.chart)
        print(f"wrote {args.chart}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
