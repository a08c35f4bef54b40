"""The value of every choice, for the web table: ONE lookup, :func:`action_values`.

The page shows, for the hand to act, the expected value of each legal action and the
best one. Everything comes from :mod:`blackjack_env.analysis`; this module only picks
which analysis answers and says which one did (``source``, and ``note`` for a caveat):

* infinite deck (``decks=None``): the exact optimum, :func:`~blackjack_env.analysis.solve`;
* finite shoe: the values *given the cards the players have not seen* (the shoe's
  undealt cards and the face-down hole card), with composition-dependent play
  afterwards: :func:`~blackjack_env.analysis.composition.table_action_values`, for a
  hand of any number of cards, split hands included. Stand, hit, double and surrender
  are exact; a split is valued by the analysis' documented approximation (the note says
  so when ``split`` is among the values). Before the peek, where early surrender is
  offered, the values are those of surrendering against playing on, unconditioned on
  the peek (:func:`~blackjack_env.analysis.composition.pre_peek_values`).

Values are per unit of the hand's bet, after the dealer's peek (as in
:meth:`~blackjack_env.analysis.Solution.action_values`). Rules the analysis cannot
serve (highest-hand settlement, bet raising, ...) give ``available=False`` and the
analysis' own reason; the game goes on.

Cost per request: the analysis keeps the values of the last few shoe compositions, so
the later decisions of a round are answered from its cache (well under 1 ms); the first
decision of a hand off a new composition costs about 10-70 ms of CPU (measured in
``tests/web/test_api_rounds.py``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any, TypeVar

from blackjack_env.agents.obs import decision_policy
from blackjack_env.agents.plots import agent_chart
from blackjack_env.analysis import solve, table_state
from blackjack_env.analysis.chart_draw import COLOURS
from blackjack_env.analysis.composition import action_values as cd_values
from blackjack_env.analysis.composition import pre_peek_values, table_action_values, table_pool
from blackjack_env.analysis.model import check_supported
from blackjack_env.engine import Action, Phase, Rules, Table

__all__ = ["Values", "action_values", "analysis_rules", "chart_document", "once", "read_run",
           "solution", "summary_rows"]

T = TypeVar("T")
_ONCE_LOCK = threading.Lock()
_ONCE: dict[Any, Future] = {}
#: computations kept by :func:`once` (rule sets x kinds); the oldest is dropped beyond it
_ONCE_KEEP = 64


def once(key: Any, compute: Callable[[], T]) -> T:
    """``compute()`` once per ``key`` for the whole server, shared: the first caller
    computes (on its own worker thread, never the event loop), every concurrent caller
    for the same key waits for that one result instead of computing it again, and later
    callers get it at once. An error is not kept (the next caller tries again)."""
    with _ONCE_LOCK:
        future = _ONCE.get(key)
        mine = future is None
        if mine:
            future = _ONCE[key] = Future()
            while len(_ONCE) > _ONCE_KEEP:
                del _ONCE[next(iter(_ONCE))]
    assert future is not None
    if mine:
        try:
            future.set_result(compute())
        except BaseException as err:
            with _ONCE_LOCK:
                if _ONCE.get(key) is future:
                    del _ONCE[key]
            future.set_exception(err)
    return future.result()


def solution(rules: Rules) -> Any:
    """The infinite-deck solution (:func:`~blackjack_env.analysis.solve`) of the rules as
    the analysis reads them, computed once per rule set and shared (:func:`once`)."""
    key = analysis_rules(rules).replace(decks=None)
    return once(("solve", key), lambda: solve(key))

#: what the page says beside values of a table that settles on the highest hand
DEALER_ALONE_NOTE = (
    "these rules pay the highest hand at the table, not each hand against the dealer: "
    "the values shown are those of the same hand against the dealer alone (ties as the "
    "rules say, the other players' hands ignored), not the table's true values, which "
    "the analysis does not compute"
)

#: what the page says beside a split valued off a finite shoe
SPLIT_NOTE = (
    "split: the analysis' approximation (each split hand is played off the cards that "
    "remain less the pair; the other split hands' cards are not taken out), off by less "
    "than about 0.02 per split in the simulations it was checked against"
)


@dataclass(frozen=True)
class Values:
    """The values of the decision awaited, or why there are none.

    ``evs``: action -> expected value per unit of the hand's bet; ``best``: the action
    with the highest value; ``source``: which analysis answered; ``note``: a caveat to
    show beside the values; ``reason``: why no values are available; ``alone``: the
    values are those against the dealer alone (highest-hand settlement), shown but not
    counted as value given up.
    """

    available: bool
    evs: dict[Action, float] = field(default_factory=dict)
    best: Action | None = None
    source: str = ""
    note: str = ""
    reason: str = ""
    alone: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "available": self.available,
            "evs": {a.name.lower(): v for a, v in self.evs.items()},
            "best": None if self.best is None else self.best.name.lower(),
            "source": self.source,
            "note": self.note,
            "reason": self.reason,
            "alone": self.alone,
        }


def action_values(table: Table) -> Values | None:
    """Values of the legal actions of the hand the table waits on (None: no decision).

    This is the one place the web table asks the analysis for values.
    """
    if table.phase is not Phase.PLAYER_TURNS and table.phase is not Phase.INSURANCE:
        return None

    rules = table.rules
    alone = False
    try:
        check_supported(rules)
    except ValueError as err:
        try:  # highest-hand settlement / bet raising: against the dealer alone, labelled
            dealer_only = rules.replace(settlement="dealer", bet_raising=False)
            check_supported(dealer_only)
        except ValueError:
            return Values(False, reason=f"no values for these rules: {err}")
        rules, alone = dealer_only, True
    legal = table.legal_actions()
    if table.phase is Phase.INSURANCE and Action.SURRENDER not in legal:
        return Values(
            False,
            reason="insurance and even money are not valued (the analysis never takes "
            "them); values are shown for the playing decisions after the peek",
        )
    try:
        if rules.decks is None:
            evs = _infinite_values(rules, table_state(table))
            source, note = "exact, infinite deck", ""
        else:
            evs, source, note = _finite_values(table, rules)
    except ValueError as err:
        return Values(False, reason=f"the analysis cannot value this decision: {err}")
    if alone:
        source = "against the dealer alone: " + source
        note = (DEALER_ALONE_NOTE + ("; " + note if note else ""))
    evs = {a: float(v) for a, v in evs.items() if a in legal}
    if not evs:
        return Values(False, reason="the analysis gave no value for the legal actions")
    best = max(evs, key=lambda a: evs[a])
    return Values(True, evs, best, source, note, alone=alone)


def analysis_rules(rules: Rules) -> Rules:
    """The rules as the analysis reads them: one seat (the other seats do not change a
    hand's value) and the shoe's deck count made explicit, so that one cached chart per
    rule set serves the values and the ``basic`` and ``counter`` seats, whatever the
    number of seats."""
    return rules.replace(decks=rules.shoe_decks, seats_per_deck=None, seats=1)


def _infinite_values(rules: Rules, state: object) -> dict[Action, float]:
    return solution(rules).action_values(state)  # type: ignore[no-any-return]


def _finite_values(table: Table, rules: Rules) -> tuple[dict[Action, float], str, str]:
    """A finite shoe: the values given the cards the players have not seen, with
    composition-dependent play afterwards (the analysis reads them off ``table``;
    ``rules`` differ from the table's only for :data:`DEALER_ALONE_NOTE`)."""
    evs = table_action_values(table) if rules is table.rules else _values_under(table, rules)
    unseen = sum(table_pool(table))
    in_shoe = table.shoe.remaining or 0  # (a finite shoe here)
    hidden = unseen - in_shoe  # the cards face down on the table: the dealer's hole card
    where = (f"all {in_shoe} in the shoe" if hidden == 0 else
             f"the {in_shoe} left in the shoe and the dealer's face-down card" if hidden == 1
             else f"the {in_shoe} left in the shoe and {hidden} face down on the table")
    when = "before the peek, " if table.phase is Phase.INSURANCE else ""
    source = (f"exact, {when}given the {unseen} cards not yet seen ({where}; "
              f"composition-dependent, analysis.composition)")
    return evs, source, SPLIT_NOTE if Action.SPLIT in evs else ""


def _values_under(table: Table, rules: Rules) -> dict[Action, float]:
    """:func:`~blackjack_env.analysis.composition.table_action_values`, read under
    ``rules`` (the table's, settled against the dealer) instead of the table's own."""
    hand = table.current_hand
    assert hand is not None and table.upcard is not None
    legal = table.legal_actions()
    if table.phase is Phase.INSURANCE:
        early = pre_peek_values(rules, table_pool(table), hand.cards, table.upcard)
        return {a: v for a, v in early.items() if a in legal}
    seat_i, _ = table.to_act  # type: ignore[misc]
    hands = table.seats[seat_i].hands
    values = cd_values(rules, table_pool(table), hand.cards, table.upcard, hands=len(hands),
                       from_split=hand.from_split,
                       waiting=sum(1 for other in hands if len(other.cards) == 1))
    return {a: v for a, v in values.items() if a in legal}


# ------------------------------------------------------------------ the chart view
#: a chart code -> the action it takes at the cell's first decision
_CODE_ACTION = {"H": Action.HIT, "S": Action.STAND, "D": Action.DOUBLE, "Ds": Action.DOUBLE,
                "P": Action.SPLIT, "Rh": Action.SURRENDER, "Rs": Action.SURRENDER,
                "Rp": Action.SURRENDER}


def chart_document(rules: Rules, agent: Any = None, agent_name: str | None = None
                   ) -> dict[str, Any]:
    """The strategy chart view's data: the optimal chart of ``rules`` (as the analysis
    reads them; a finite shoe: its infinite-deck optimum), each cell with its code, the
    expected value of every action at the cell's first decision and the gap to the
    second-best action; with ``agent``, the agent's chart over the same cells, each
    differing cell marked with its exact cost (expected return given up at that cell,
    per unit bet). The data of :mod:`blackjack_env.analysis.chart`
    (:meth:`~blackjack_env.analysis.Chart.to_dict`), with the solution's cell values."""
    note = ""
    try:
        check_supported(rules)
    except ValueError:
        rules = rules.replace(settlement="dealer", bet_raising=False)
        check_supported(rules)  # (a rule set that still fails: the caller's 400)
        note = DEALER_ALONE_NOTE
    sol = solution(rules)
    chart = sol.chart
    doc: dict[str, Any] = {
        "title": chart.title, "summary": rules.summary(),
        "finite": rules.shoe_decks is not None, "decks": rules.shoe_decks, "note": note,
        "codes": {p.value: p.name.lower().replace("_", " ") for p in type(
            next(iter(chart.hard.values()))[0])},
        "chart": chart.to_dict(),
        "colours": dict(COLOURS),
    }
    cells: dict[str, list[list[dict[str, Any]]]] = {}
    for kind, table in (("hard", chart.hard), ("soft", chart.soft), ("pair", chart.pairs)):
        cells[kind] = []
        for row in table:
            line = []
            for up in chart.upcards:
                evs = sol.action_evs[(kind, row, up)]
                ranked = sorted(evs.values(), reverse=True)
                line.append({"evs": {a.name.lower(): round(v, 6) for a, v in evs.items()},
                             "gap": round(ranked[0] - ranked[1], 6) if len(ranked) > 1
                             else None})
            cells[kind].append(line)
    doc["cells"] = cells
    doc["optimal_return"] = round(sol.expected_return, 6) if hasattr(
        sol, "expected_return") else None
    if agent is not None:
        inner = getattr(agent, "agent", agent)  # a seat's AgentStrategy holds the agent
        policy = getattr(inner, "state_policy", None) or decision_policy(
            inner, rules, getattr(inner, "obs_mode", None))
        mine = agent_chart(policy, rules, chart, title=str(agent_name))
        differ: list[dict[str, Any]] = []
        for kind, ta, tb in (("hard", chart.hard, mine.hard), ("soft", chart.soft, mine.soft),
                             ("pair", chart.pairs, mine.pairs)):
            for row, plays in ta.items():
                for j, play in enumerate(plays):
                    theirs = tb[row][j]
                    if theirs is play:
                        continue
                    evs = sol.action_evs[(kind, row, chart.upcards[j])]
                    act = _CODE_ACTION[theirs.value]
                    best = max(evs.values())
                    cost = best - evs[act] if act in evs else None
                    differ.append({"kind": kind, "row": str(row), "upcard": chart.upcards[j],
                                   "optimal": play.value, "agent": theirs.value,
                                   "cost": None if cost is None else round(cost, 6)})
        doc["agent"] = {"name": agent_name, "chart": mine.to_dict(), "differ": differ}
    # the legend: only the codes the charts shown hold (sutton-barto: hit and stand)
    used = {code for grids in [doc["chart"], *([doc["agent"]["chart"]] if "agent" in doc
                                                 else [])]
            for kind in ("hard", "soft", "pairs") for row in grids[kind].values()
            for code in row}
    doc["codes"] = {code: name for code, name in doc["codes"].items() if code in used}
    return doc


# ------------------------------------------------------------------ the run view
def read_run(name: str, folder: Any) -> dict[str, Any]:
    """A run folder of ``blackjack-train`` for the run view (read once, at server start;
    a missing or damaged file is said in ``problems``).

    ``rows``: the summary as (label, text) lines a person reads (:func:`summary_rows`);
    ``summary``: ``summary.json`` with every path replaced by the file's name (the page
    names models, never their paths); ``curve``: ``curve.json``; ``optimum``: the exact
    optimal return the learning curve is drawn against, or None."""
    folder = Path(folder)
    doc: dict[str, Any] = {"name": name, "summary": None, "rows": [], "curve": None,
                           "optimum": None, "problems": []}
    for key in ("summary", "curve"):
        path = folder / f"{key}.json"
        try:
            if path.stat().st_size > 4_000_000:
                raise ValueError("larger than 4 MB")
            doc[key] = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            doc["problems"].append(f"no {key}.json")
        except (OSError, ValueError) as err:
            doc["problems"].append(f"{key}.json unreadable: {str(err).replace(str(folder), name)}")
    if isinstance(doc["summary"], dict):
        doc["summary"] = _without_paths(doc["summary"], folder)
        doc["rows"] = summary_rows(doc["summary"])
        doc["optimum"] = _optimum(doc["summary"])
    elif doc["summary"] is not None:
        doc["problems"].append("summary.json is not a JSON object")
        doc["summary"] = None
    return doc


#: keys of summary.json whose text names a file or folder
_PATH_KEYS = ("model", "model_bets", "out", "path", "folder", "file")


def _without_paths(value: Any, folder: Any, key: str = "") -> Any:
    """``value`` with each path in it (an absolute path, or the text of a key that names
    a file) replaced by its place in the run folder, or else its name alone."""
    if isinstance(value, dict):
        return {k: _without_paths(v, folder, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_paths(v, folder, key) for v in value]
    if not isinstance(value, str):
        return value
    pathlike = PurePath(value).is_absolute() or value.startswith("~") or (
        (key in _PATH_KEYS or key.endswith(("_path", "_file", "_dir"))) and "/" in value)
    if not pathlike:
        return value
    try:
        return str(Path(value).resolve().relative_to(Path(folder).resolve()))
    except (ValueError, OSError):
        return PurePath(value).name


def _optimum(summary: dict[str, Any]) -> float | None:
    exact = summary.get("exact")
    for where in (exact if isinstance(exact, dict) else {}, summary):
        value = where.get("optimal_return")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None


#: summary.json's keys, in the order shown, with their labels (others follow, named by
#: their key)
_LABELS = {
    "algo": "algorithm", "rules": "rules", "obs_mode": "observation", "hands": "trained",
    "timesteps": "trained", "seconds": "training time", "finished": "finished",
    "states": "states visited", "seeds": "seeds", "exact": "", "exact_unavailable":
    "exact grade", "eval_mean_return": "mean return of the last evaluation",
    "model": "model", "model_seed": "model from seed",
}
_EXACT = {"exact_return": "exact return of the greedy policy (per unit bet)",
          "optimal_return": "optimal return (per unit bet)", "regret": "regret"}


def _figure(value: Any) -> str:
    """A value as a person reads it: whole numbers with thousands separators, other
    numbers to 5 decimals (1 decimal from 100 up), yes / no, short lists joined."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return str(value)
        return f"{value:,.1f}" if abs(value) >= 100 else f"{value:.5f}"
    if isinstance(value, list):
        if len(value) > 8 or any(isinstance(v, (list, dict)) for v in value):
            return f"{len(value)} values"
        return ", ".join(_figure(v) for v in value)
    text = str(value)
    return text if len(text) <= 120 else text[:117] + "…"


def summary_rows(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """``summary.json`` (paths already replaced) as (label, text) lines: the known keys
    first, in a reading order and with words for labels, then the others by key;
    nested objects flattened as ``outer · inner``; figures rounded (:func:`_figure`)."""
    rows: list[tuple[str, str]] = []
    done: set[str] = set()
    steps = next((k for k in ("hands", "timesteps") if k in summary), None)
    for key, label in _LABELS.items():
        if key not in summary or key in done:
            continue
        value = summary[key]
        done.add(key)
        if key == "rules":
            extra = summary.get("rules_summary")
            done.add("rules_summary")
            rows.append((label, f"{value} ({extra})" if extra else str(value)))
        elif key == steps:
            budget = summary.get(f"budget_{key}")
            done.add(f"budget_{key}")
            text = f"{_figure(value)} {key}"
            if isinstance(budget, int) and budget != value:
                text += f" of {_figure(budget)}"
            rows.append((label, text))
        elif key == "seconds" and isinstance(value, (int, float)):
            rows.append((label, f"{value:,.1f} s"))
        elif key == "exact":
            if isinstance(value, dict):
                for sub, sub_value in value.items():
                    rows += _rows(_EXACT.get(sub, sub.replace("_", " ")), sub_value)
        elif key == "exact_unavailable":
            if value:
                rows.append((label, f"n/a: {value}"))
        else:
            rows.append((label, _figure(value)))
    for key, value in summary.items():
        if key in done or key == "rules_summary":
            continue
        rows += _rows(key.replace("_", " "), value)
    return rows


def _rows(label: str, value: Any, depth: int = 0) -> list[tuple[str, str]]:
    """``value`` under ``label`` as lines: a dict (at any depth, up to a few levels) as a
    line per entry, labelled ``outer · inner``, each figure rounded (:func:`_figure`)."""
    if isinstance(value, dict) and depth < 3:
        out: list[tuple[str, str]] = []
        for sub, sub_value in value.items():
            out += _rows(f"{label} · {str(sub).replace('_', ' ')}", sub_value, depth + 1)
        return out
    if isinstance(value, dict):
        return [(label, f"{len(value)} entries")]
    return [(label, _figure(value))]
