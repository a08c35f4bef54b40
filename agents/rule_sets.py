"""Exact grading across rule sets: one policy graded on every rule set of a list.

:func:`grade_rule_sets` grades an agent's greedy policy on each rule set of a list, exactly
(infinite deck): the optimal return (:func:`blackjack_env.analysis.solve`), the agent's
exact return (:func:`blackjack_env.analysis.evaluate_policy`) and the regret, optimum minus
agent, per rule set. Over the list (:class:`RuleSetGrades`): the mean regret with a 95%
interval of the mean over rule sets (a percentile bootstrap: :data:`BOOTSTRAP_RESAMPLES`
resamples of the rule sets, drawn with a fixed seed, so the interval is the same on every
run), the median, the worst rule set, and which rule axes cost most (:class:`AxisCost`):
for each axis, the mean regret of the rule sets at each of its values and the spread
between the highest and lowest of those means, axes ranked by spread. These are marginal
means: where axes vary together over the list, an axis's spread carries some of the
others'.

How the agent is asked. Every state the analysis may ask a policy about under a rule set
(:func:`blackjack_env.analysis.decision_states`, a few thousand) is answered at once, then
the analysis evaluates the policy from that table of answers:

* an agent with ``greedy_batch(obs, mask)`` (the MLP policy,
  :class:`~blackjack_env.agents.mlp.MLPAgent`): every state encoded as the env shows it
  (:func:`~blackjack_env.agents.obs.encode_states`, the rule features appended when the
  agent's ``observe_rules`` is set, as an env made with ``observe_rules=True`` appends
  them) and one forward of the network over all of them per rule set;
* an agent with ``state_policy_for(rules)``: a policy over the analysis's states that
  reads the rules (:class:`OptimalPlay` is one: the optimum of each rule set);
* an agent with a ``state_policy`` (the fixed agents ``basic``, ``dealer``, ``stand``):
  that policy, the same on every rule set (a fixed agent's is its own rules');
* any other agent that decides from its observation (tabular, SB3): ``act(obs, mask)``
  on each state's observation.

Split hands are shown with hand index 1 (as :func:`~blackjack_env.agents.grading.exact_grade`
shows them); ``split_states_depending_on_hand_index`` counts, per rule set, the split-hand
states the analysis asked about where the agent would answer otherwise at another hand
index (0: the grade is exact; see ``blackjack_env.agents.obs``). A network that drops the
hand index from its input (an MLP policy's ``ignored`` fields) is not asked twice: its
count is 0.

Each rule set is graded on its own, so the figures are the same whatever the number of
worker processes (started as ``blackjack_env.simulate.worker_context`` starts them,
each with one BLAS thread); the workers get the agent pickled (a fixed agent: its state
policy only). A worker costs a second or more to start, against 0.1-0.3 s of CPU a rule
set (``scripts/bench_rule_sets.py`` measures it), so by default a short list is graded
in the calling process (:func:`planned_workers`).
"""

from __future__ import annotations

import json
import math
import pickle
import textwrap
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

try:  # optional (the [main] extra): without it the figures are the same, a little later
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover - the extra installs it
    threadpool_limits = None

from blackjack_env.agents.grading import optimal_return, table_free
from blackjack_env.agents.obs import (
    HAND_INDEX_MODES,
    encode_state,
    encode_states,
    n_play_actions,
    state_masks,
)
from blackjack_env.analysis import DecisionState, decision_states, evaluate_policy, solve
from blackjack_env.analysis.counter import default_workers
from blackjack_env.analysis.model import check_supported
from blackjack_env.engine import Action, Rules
from blackjack_env.engine.rules import FIELD_NAMES
from blackjack_env.engine.rulespace import DEFAULT_VERSIONS, RuleSpace, default_space, held_out
from blackjack_env.envs import view as V
from blackjack_env.simulate import worker_context

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "INTERVAL_METHOD",
    "AxisCost",
    "NamedRuleSets",
    "OptimalPlay",
    "RuleSetGrade",
    "RuleSetGrades",
    "axis_costs",
    "bootstrap_interval",
    "check_agent",
    "check_gradable",
    "grade_one",
    "grade_rule_sets",
    "load_rule_sets",
    "planned_workers",
    "rule_axes",
]

#: Resamples of the bootstrap interval of the mean regret over rule sets.
BOOTSTRAP_RESAMPLES = 10_000
#: The seed of the bootstrap's draws (fixed: the interval is a function of the regrets).
BOOTSTRAP_SEED = 0
#: The interval's method, as reports state it.
_DEFAULT_RULES = Rules()
#: The width of :meth:`RuleSetGrades.table`'s lines.
TABLE_WIDTH = 88

INTERVAL_METHOD = (f"percentile bootstrap over rule sets ({BOOTSTRAP_RESAMPLES:,} resamples, "
                   f"seed {BOOTSTRAP_SEED})")


class OptimalPlay:
    """The exact optimum of whatever rules it is graded on: ``state_policy_for(rules)`` is
    ``solve(rules).policy``. Its regret is 0
    on every rule set (to float precision): a reference, and a check of the grading."""

    name = "optimum"

    def state_policy_for(self, rules: Rules) -> Callable[[DecisionState], Action]:
        return solve(rules).policy


@dataclass(frozen=True)
class RuleSetGrade:
    """The exact grade of a policy on one rule set (per unit initial bet, infinite deck).

    Attributes:
        index: the rule set's place in the list graded.
        rules: the rule set.
        optimal_return: the optimum's expected return.
        exact_return: the policy's expected return.
        regret: ``optimal_return - exact_return``.
        split_states_depending_on_hand_index: split-hand states asked about where the
            agent's answer depends on the hand index (0: exact; None: the agent's
            observation shows no hand index).
    """

    index: int
    rules: Rules
    optimal_return: float
    exact_return: float
    regret: float
    split_states_depending_on_hand_index: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "rules": self.rules.to_dict(),
                "summary": self.rules.summary(), "optimal_return": self.optimal_return,
                "exact_return": self.exact_return, "regret": self.regret,
                "split_states_depending_on_hand_index":
                    self.split_states_depending_on_hand_index}


@dataclass(frozen=True)
class AxisCost:
    """What one rule axis costs the policy: the mean regret of the rule sets at each value.

    Attributes:
        axis: the axis (a :class:`~blackjack_env.engine.rules.Rules` field).
        values: ``(value, mean regret, rule sets)`` per value, in the values' order
            (values as :meth:`Rules.to_dict <blackjack_env.engine.rules.Rules.to_dict>` writes
            them).
        spread: the highest mean regret minus the lowest.
    """

    axis: str
    values: tuple[tuple[Any, float, int], ...]
    spread: float

    @property
    def costliest(self) -> Any:
        """The value with the highest mean regret."""
        return max(self.values, key=lambda v: v[1])[0]

    def to_dict(self) -> dict[str, Any]:
        return {"axis": self.axis, "spread": self.spread,
                "values": [{"value": v, "mean_regret": m, "rule_sets": n}
                           for v, m, n in self.values]}


def _value_order(axis: str, value: Any) -> tuple[int, Any]:
    """Sort key of an axis's values: an enum's in its members' order, numbers (payouts
    too) by size, None last."""
    default = getattr(_DEFAULT_RULES, axis)
    if isinstance(default, Enum):
        members = [m.value for m in type(default)]
        return (0, members.index(value) if value in members else len(members))
    if value is None:
        return (2, 0)
    if isinstance(value, (bool, int, float)):
        return (0, float(value))
    if isinstance(value, str) and ":" in value:  # a payout "p:q"
        p, _, q = value.partition(":")
        try:
            return (0, int(p) / int(q))
        except ValueError:
            pass
    return (1, str(value))


def _label(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def rule_axes(rules_list: Sequence[Rules]) -> tuple[str, ...]:
    """The :class:`~blackjack_env.engine.rules.Rules` fields whose value is not the same on every
    rule set of ``rules_list`` (in the fields' order): the axes inferred from a list."""
    dicts = [r.to_dict() for r in rules_list]
    return tuple(name for name in FIELD_NAMES
                 if any(d[name] != dicts[0][name] for d in dicts[1:]))


def axis_costs(grades: Sequence[RuleSetGrade], axes: Iterable[str]) -> tuple[AxisCost, ...]:
    """:class:`AxisCost` of each axis that takes two values or more over ``grades``, the
    costliest (largest spread) first; ties in axis order."""
    out = []
    for axis in axes:
        groups: dict[str, tuple[Any, list[float]]] = {}
        for g in grades:
            value = g.rules.to_dict()[axis]
            key = repr(value)
            groups.setdefault(key, (value, []))[1].append(g.regret)
        if len(groups) < 2:
            continue
        rows = sorted(((v, float(np.mean(r)), len(r)) for v, r in groups.values()),
                      key=lambda row: _value_order(axis, row[0]))
        means = [m for _, m, _ in rows]
        out.append(AxisCost(axis, tuple(rows), max(means) - min(means)))
    order = sorted(range(len(out)), key=lambda i: (-out[i].spread, i))
    return tuple(out[i] for i in order)


def bootstrap_interval(values: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES,
                       seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """The 95% percentile-bootstrap interval of the mean of ``values`` (the same for the
    same values: the draws come from ``seed``)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 1:
        return float(values[0]), float(values[0])
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    step = max(1, 2_000_000 // values.size)  # resamples per block: bounded memory
    for start in range(0, resamples, step):
        stop = min(resamples, start + step)
        means[start:stop] = values[rng.integers(0, values.size, (stop - start, values.size))
                                   ].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(lo), float(hi)


@dataclass(frozen=True)
class RuleSetGrades:
    """The grades of one policy over a list of rule sets (:func:`grade_rule_sets`).

    Attributes:
        agent: the agent's name.
        grades: one :class:`RuleSetGrade` per rule set, in the list's order.
        axes: :class:`AxisCost` per axis that varies, the costliest first.
        ci95: the 95% interval of the mean regret over rule sets (:data:`INTERVAL_METHOD`).
        seconds: wall time of the grading.
        workers: the worker processes used (1: in this process).
    """

    agent: str
    grades: tuple[RuleSetGrade, ...]
    axes: tuple[AxisCost, ...]
    ci95: tuple[float, float]
    seconds: float
    workers: int
    name: str = ""

    @property
    def regrets(self) -> np.ndarray:
        return np.array([g.regret for g in self.grades])

    @property
    def mean(self) -> float:
        return float(np.mean(self.regrets))

    @property
    def median(self) -> float:
        return float(np.median(self.regrets))

    @property
    def worst(self) -> RuleSetGrade:
        """The rule set of the highest regret (the first such, in list order)."""
        return self.grades[int(np.argmax(self.regrets))]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the summary, the axes and every rule set's grade."""
        lo, hi = self.ci95
        return {
            "agent": self.agent, "rule_sets": self.name, "n_rule_sets": len(self.grades),
            "mean_regret": self.mean, "mean_regret_ci95": [lo, hi],
            "interval_method": INTERVAL_METHOD, "median_regret": self.median,
            "worst": {"index": self.worst.index, "regret": self.worst.regret,
                      "summary": self.worst.rules.summary()},
            "mean_optimal_return": float(np.mean([g.optimal_return for g in self.grades])),
            "mean_exact_return": float(np.mean([g.exact_return for g in self.grades])),
            "split_states_depending_on_hand_index": self._ambiguous(),
            "axes": [a.to_dict() for a in self.axes],
            "grades": [g.to_dict() for g in self.grades],
            "seconds": round(self.seconds, 2), "workers": self.workers,
        }

    def _ambiguous(self) -> int | None:
        counts = [g.split_states_depending_on_hand_index for g in self.grades]
        return None if any(c is None for c in counts) else sum(c for c in counts if c)

    def table(self, axes: int | None = None, values: int = 6, width: int = TABLE_WIDTH
              ) -> str:
        """The summary as text, lines of at most ``width`` characters: mean (interval),
        median, worst, and the ``axes`` costliest axes (None: every axis), each with its
        spread and the mean regret at each value (at most ``values`` per axis; the rule
        sets at that value in brackets)."""
        axes = len(self.axes) if axes is None else axes
        lo, hi = self.ci95
        w = self.worst

        def wrapped(text: str, indent: str) -> list[str]:
            return textwrap.wrap(text, width, subsequent_indent=indent,
                                 break_on_hyphens=False) or [text]

        name = f" ({self.name})" if self.name else ""
        lines = [
            *wrapped(f"{self.agent}: {len(self.grades)} rule sets{name}", "  "),
            "  graded exactly on an infinite deck; regret = optimal - agent, per unit bet",
            f"  mean regret    {self.mean:.5f}  (95% CI {lo:.5f} .. {hi:.5f}, bootstrap over "
            f"rule sets)",
            f"  median regret  {self.median:.5f}",
            *wrapped(f"  worst          {w.regret:.5f}  (rule set {w.index}: "
                     f"{w.rules.summary()})", " " * 27),
            f"  mean optimal return {np.mean([g.optimal_return for g in self.grades]):+.5f}, "
            f"the agent's {np.mean([g.exact_return for g in self.grades]):+.5f}",
        ]
        amb = self._ambiguous()
        if amb:
            lines += wrapped(f"  ({amb} split-hand states depend on the hand index, which "
                             f"the analysis does not see: those hands are graded as hand 1)",
                             "   ")
        if self.axes:
            lines.append("  costliest rule axes: the spread (highest - lowest), then the mean")
            lines.append("  regret of the rule sets at each value (how many in brackets)")
            name_width = max(len(a.axis) for a in self.axes[:axes])
            indent = " " * (4 + name_width + 2 + 7 + 2)
            for a in self.axes[:axes]:
                entries = [f"{_label(v)} {m:.5f} ({n})" for v, m, n in a.values[:values]]
                if len(a.values) > values:
                    entries.append(f"... {len(a.values) - values} more")
                line = f"    {a.axis:<{name_width}}  {a.spread:.5f}  "
                for k, entry in enumerate(entries):  # whole entries to a line
                    text = entry + ("," if k < len(entries) - 1 else "")
                    if len(line) + len(text) > width and line.strip() and line != indent:
                        lines.append(line.rstrip())
                        line = indent
                    line += text + " "
                lines.append(line.rstrip())
            if len(self.axes) > axes:
                lines.append(f"    ... {len(self.axes) - axes} more axes")
        return "\n".join(lines)


# ----------------------------------------------------------------------- the grading
def _kind(agent: Any) -> str:
    """How the agent is asked (see the module docstring)."""
    if callable(getattr(agent, "state_policy_for", None)):
        return "rules"
    if getattr(agent, "state_policy", None) is not None:
        return "state"
    if getattr(agent, "name", "") == "random" or not table_free(agent):
        raise ValueError(
            "this agent has no deterministic policy the analysis can ask about any state (a "
            "random agent, or a fixed agent that reads its live table); grade an agent that "
            "decides from its observation")
    mode = str(getattr(agent, "obs_mode", "") or "")
    if mode not in ("tuple", "multidiscrete", "vector", "features"):
        raise ValueError(
            f"the agent reads the {mode or 'unknown'} observation; exact grading needs "
            f"'tuple', 'multidiscrete', 'vector' or 'features' (the dict mode shows card "
            f"compositions the analysis does not track)")
    if getattr(agent, "observe_rules", False) and mode not in ("vector", "features"):
        raise ValueError(f"the agent observes the rules in the {mode} observation, which "
                         f"cannot carry them ('vector' and 'features' can)")
    return "batch" if callable(getattr(agent, "greedy_batch", None)) else "act"


def _env_answer(action: int, state: DecisionState) -> Action:
    """An env action read as the analysis's: STAND before the peek is DECLINE (as
    ``decision_policy`` reads it)."""
    if state.pre_peek:
        return Action.SURRENDER if action == int(Action.SURRENDER) else Action.DECLINE
    return Action(int(action))


def _blind_to_index(agent: Any) -> bool:
    """The agent's input drops the hand-index field (an MLP policy's ``ignored`` fields, as
    ``blackjack_env.agents.mlp.VECTOR_IGNORED``): its answers cannot depend on it, so
    it is not asked at other hand indices."""
    field = V.MD_HAND_INDEX if str(agent.obs_mode) == "multidiscrete" else V.VEC_HAND_INDEX
    return field in tuple(getattr(agent, "ignored", ()) or ())


def _answers(agent: Any, kind: str, rules: Rules, states: Sequence[DecisionState]
             ) -> tuple[list[Action], np.ndarray | None]:
    """The agent's answer at every state, and for agents that see a hand index, whether
    each state's answer depends on it (None otherwise)."""
    if kind in ("rules", "state"):
        policy = agent.state_policy_for(rules) if kind == "rules" else agent.state_policy
        return [policy(s) for s in states], None
    mode = str(agent.obs_mode)
    carry = bool(getattr(agent, "observe_rules", False))
    hands = rules.max_split_hands
    split = [i for i, s in enumerate(states) if s.split]
    track = mode in HAND_INDEX_MODES and hands > 1 and bool(split) and not _blind_to_index(agent)
    n_actions = int(getattr(agent, "n_actions", 0) or 0) or None
    masks = state_masks(states, rules, n_actions)
    if kind == "batch":
        obs = [encode_states(states, rules, mode, 1, carry)]
        rows = [masks]
        if track:  # the split states at every hand index, in the same forward
            sub = [states[i] for i in split]
            obs += [encode_states(sub, rules, mode, h, carry) for h in range(hands)]
            rows += [masks[split]] * hands
        acts = np.asarray(agent.greedy_batch(np.concatenate(obs), np.concatenate(rows)))
        main = acts[:len(states)]
        others = acts[len(states):].reshape(hands, len(split)) if track else None
    else:
        def act(state: DecisionState, mask: np.ndarray, h: int) -> int:
            return int(agent.act(encode_state(state, rules, mode, h, carry), mask))

        main = np.array([act(s, m, 1) for s, m in zip(states, masks, strict=True)])
        others = (np.array([[act(states[i], masks[i], h) for i in split] for h in range(hands)])
                  if track else None)
    answers = [_env_answer(int(a), s) for a, s in zip(main, states, strict=True)]
    if others is None:
        return answers, None
    depends = np.zeros(len(states), dtype=bool)
    depends[split] = (others != others[:1]).any(axis=0)
    return answers, depends


def grade_one(agent: Any, rules: Rules, index: int = 0, kind: str | None = None
              ) -> RuleSetGrade:
    """The exact grade of ``agent`` on one rule set, through the table of its answers at
    every state the analysis may ask about (see the module docstring)."""
    kind = kind or _kind(agent)
    states = decision_states(rules)
    answers, depends = _answers(agent, kind, rules, states)
    table = dict(zip(states, answers, strict=True))
    asked: list[DecisionState] = []

    def policy(state: DecisionState) -> Action:
        asked.append(state)
        return table[state]

    value = float(evaluate_policy(rules, policy))
    ambiguous = None
    if depends is not None:
        row = {s: i for i, s in enumerate(states)}
        ambiguous = int(sum(bool(depends[row[s]]) for s in asked))
    elif kind == "batch" or kind == "act":
        ambiguous = 0 if str(agent.obs_mode) in HAND_INDEX_MODES else None
    best = optimal_return(rules)
    return RuleSetGrade(index, rules, best, value, best - value, ambiguous)


def _one_blas_thread() -> Any:
    if threadpool_limits is None:  # pragma: no cover - the extra installs it
        return nullcontext()
    return threadpool_limits(1, user_api="blas")


def _portable(agent: Any, kind: str) -> Any:
    """What the worker processes get: a fixed agent's state policy alone (not the env it
    plays in), any other agent whole; ``ValueError`` when it cannot be pickled."""
    sent = SimpleNamespace(state_policy=agent.state_policy) if kind == "state" else agent
    try:
        pickle.dumps(sent)
    except Exception as err:  # what pickling raises varies: say it in one line
        raise ValueError(f"the agent cannot be sent to worker processes ({type(err).__name__}: "
                         f"{err}); grade it with workers=1") from None
    return sent


def _grade_chunk(job: tuple[Any, str, list[tuple[int, Rules]]]) -> list[RuleSetGrade]:
    """A worker's share. Its BLAS (a network's forward) runs on one thread: the workers
    already take every core, and BLAS threads that wait for work, spinning, took a third
    of a grade's time from the worker's own thread on this 2-core machine (a network's
    forward over 2,000 states: 0.6 ms on one thread, 23 ms on two beside a busy core)."""
    agent, kind, items = job
    with _one_blas_thread():
        return [grade_one(agent, rules, index, kind) for index, rules in items]


def check_gradable(rules_list: Sequence[Any]) -> list[Rules]:
    """The list as ``Rules``, or ``ValueError`` naming the first entry that is not a rule
    set the exact analysis grades (a finite shoe, highest-hand settlement, ...)."""
    out = list(rules_list)
    if not out:
        raise ValueError("no rule sets to grade: the list is empty")
    for i, rules in enumerate(out):
        if not isinstance(rules, Rules):
            raise ValueError(f"rule set {i} is a {type(rules).__name__}, not a Rules")
        try:
            check_supported(rules)
        except ValueError as err:
            raise ValueError(f"rule set {i} ({rules.summary()}): the exact analysis does not "
                             f"serve these rules ({err})") from None
        if rules.decks is not None:
            raise ValueError(f"rule set {i} ({rules.summary()}): a finite shoe; the exact grade "
                             f"needs an infinite deck (decks=None)")
    return out


def check_agent(agent: Any, rules_list: Sequence[Rules]) -> str:
    """``ValueError`` (one line) when ``agent`` cannot be graded on these rule sets: no
    deterministic policy over any state (a random agent, a fixed agent that reads its live
    table), an observation the analysis cannot encode (``dict``), rule features asked of
    an observation that cannot carry them, or fewer actions than a rule set's play
    actions. Returns how the agent is asked (see the module docstring)."""
    kind = _kind(agent)
    n_actions = getattr(agent, "n_actions", None) if kind in ("batch", "act") else None
    if n_actions is not None:
        for i, rules in enumerate(rules_list):
            if n_play_actions(rules) > int(n_actions):
                raise ValueError(f"rule set {i} ({rules.summary()}) has {n_play_actions(rules)} "
                                 f"play actions; the agent answers with {n_actions}")
    return kind


#: ``workers=None`` starts one worker process per this many rule sets (at most one per
#: core): a worker first imports the package (a second or more), against 0.1-0.3 s of
#: work a rule set, so a short list is graded sooner in the calling process.
RULE_SETS_PER_WORKER = 32


def planned_workers(n_rule_sets: int, workers: int | None = None) -> int:
    """The processes :func:`grade_rule_sets` grades ``n_rule_sets`` in: ``workers`` (at
    most one per rule set), or for ``None`` one per :data:`RULE_SETS_PER_WORKER` rule
    sets, at most every core this process may use (1: in the calling process)."""
    if workers is None:
        workers = min(default_workers(), n_rule_sets // RULE_SETS_PER_WORKER)
    return max(1, min(n_rule_sets, workers))


def grade_rule_sets(agent: Any, rules_list: Sequence[Rules], *, workers: int | None = None,
                    axes: Iterable[str] | None = None, name: str = "",
                    progress: Callable[[int], Any] | None = None) -> RuleSetGrades:
    """Grade ``agent``'s greedy policy exactly on every rule set of ``rules_list``.

    Args:
        agent: an agent that decides from its observation, or one with a
            ``state_policy`` / ``state_policy_for(rules)`` (see the module docstring).
        rules_list: infinite-deck rule sets the analysis serves (``ValueError`` naming
            the first that is not, before any work).
        workers: processes to grade in (1: in this process; ``None``: one per
            :data:`RULE_SETS_PER_WORKER` rule sets, at most every core this process may
            use, :func:`planned_workers`). The figures do not depend on it. Worker
            processes start as ``blackjack_env.simulate.worker_context`` starts them,
            importing the calling script: call this under ``if __name__ ==
            "__main__":`` in a script.
        axes: the rule axes to break the regret down by (``Rules`` field names; default:
            the fields that vary over the list, :func:`rule_axes`).
        name: a name for the list in reports (e.g. ``"held-out:v1"``).
        progress: called with the number of rule sets graded so far, as they finish.

    Returns:
        :class:`RuleSetGrades` (``to_dict()`` for JSON, ``table()`` for text).
    """
    rules_all = check_gradable(rules_list)
    kind = check_agent(agent, rules_all)
    axis_names = tuple(rule_axes(rules_all) if axes is None else axes)
    unknown = [a for a in axis_names if a not in FIELD_NAMES]
    if unknown:
        raise ValueError(f"unknown rule axis {unknown[0]!r}; axes are Rules fields: "
                         f"{', '.join(FIELD_NAMES)}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise ValueError(f"workers={workers!r} must be None or an int >= 1")
    n_workers = planned_workers(len(rules_all), workers)
    t0 = time.perf_counter()
    items = list(enumerate(rules_all))
    grades: list[RuleSetGrade] = []
    if n_workers <= 1:
        for index, rules in items:
            grades.append(grade_one(agent, rules, index, kind))
            if progress is not None:
                progress(len(grades))
    else:
        # small chunks in list order: the cores stay busy to the end; results in order
        size = max(1, math.ceil(len(items) / (n_workers * 8)))
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        sent = _portable(agent, kind)
        with ProcessPoolExecutor(max_workers=n_workers, mp_context=worker_context()) as pool:
            for part in pool.map(_grade_chunk, [(sent, kind, c) for c in chunks]):
                grades.extend(part)
                if progress is not None:
                    progress(len(grades))
    regrets = np.array([g.regret for g in grades])
    label = str(getattr(agent, "name", "") or type(agent).__name__)
    return RuleSetGrades(label, tuple(grades), axis_costs(grades, axis_names),
                         bootstrap_interval(regrets), time.perf_counter() - t0,
                         n_workers, name)


# ----------------------------------------------------------------------- named lists
#: The names :func:`load_rule_sets` reads (``held-out`` is the newest version's).
HELD_OUT_NAME = "held-out"


@dataclass(frozen=True)
class NamedRuleSets:
    """A list of rule sets with its name and, when it comes from a rule space, the
    space's axes (what :func:`grade_rule_sets` breaks the regret down by)."""

    name: str
    rules: tuple[Rules, ...]
    axes: tuple[str, ...] | None = None


def load_rule_sets(spec: str) -> NamedRuleSets:
    """The rule sets ``spec`` names; ``ValueError`` (one line) for anything else.

    * ``held-out`` or ``held-out:<version>`` (``held-out:v1``): the fixed held-out test
      set of the default rule space (:func:`blackjack_env.engine.rulespace.held_out`),
      broken down by that space's axes; ``held-out`` is the newest version.
    * a JSON file holding a list of rule sets, each as
      :meth:`Rules.to_dict <blackjack_env.engine.rules.Rules.to_dict>` writes it (fields left
      out take ``Rules``' defaults), or an object whose ``"rules"`` is such a list (the
      package's held-out file);
    * a JSON file holding a rule space (:meth:`RuleSpace.to_dict
      <blackjack_env.engine.rulespace.RuleSpace.to_dict>`): its held-out rule sets
      (:meth:`~blackjack_env.engine.rulespace.RuleSpace.held_out_rules`), broken down by
      its axes.
    """
    text = str(spec).strip()
    if text == HELD_OUT_NAME or text.startswith(HELD_OUT_NAME + ":"):
        version = text.partition(":")[2] or DEFAULT_VERSIONS[-1]
        if version not in DEFAULT_VERSIONS:
            raise ValueError(f"{text}: no such version of the held-out set; versions are "
                             f"{', '.join(f'{HELD_OUT_NAME}:{v}' for v in DEFAULT_VERSIONS)}")
        return NamedRuleSets(f"{HELD_OUT_NAME}:{version}", held_out(version),
                             default_space(version).axis_names)
    path = Path(text)
    if not path.is_file():
        names = ", ".join([HELD_OUT_NAME, *(f"{HELD_OUT_NAME}:{v}" for v in DEFAULT_VERSIONS)])
        what = "is a folder" if path.is_dir() else "is no file"
        raise ValueError(f"{text}: {what} and no set name; give {names}, or a JSON file of "
                         f"rule sets (a list of Rules.to_dict() objects, or a RuleSpace file)")
    try:
        data = json.loads(path.read_text())
    except UnicodeDecodeError:
        raise ValueError(f"{text}: not a JSON file (not text)") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{text}: not valid JSON ({err.msg} at line {err.lineno})") from None
    axes: tuple[str, ...] | None = None
    name = path.name
    if isinstance(data, dict) and "axes" in data and "base" in data:
        try:
            space = RuleSpace.from_dict(data)
        except (ValueError, TypeError) as err:
            raise ValueError(f"{text}: not a rule space ({err})") from None
        entries: list[Any] = list(space.held_out_rules())
        if not entries:
            raise ValueError(f"{text}: the rule space {space.name!r} holds out no rule set "
                             f"(hold_out={space.hold_out}); give it a hold_out of 2 or more, "
                             f"or a list of rule sets")
        axes = space.axis_names
        name = f"{path.name} (held out of {space.name})"
    elif isinstance(data, dict) and isinstance(data.get("rules"), list):
        entries = data["rules"]
    elif isinstance(data, list):
        entries = data
    else:
        found = {bool: "true or false", int: "a number", float: "a number", str: "a string",
                 dict: "an object without 'rules'"}.get(type(data), "null")
        raise ValueError(f"{text}: not a list of rule sets: expected a JSON list of "
                         f"Rules.to_dict() objects (or a RuleSpace.to_dict() object), found "
                         f"{found}")
    if not entries:
        raise ValueError(f"{text}: the list of rule sets is empty")
    rules: list[Rules] = []
    for i, entry in enumerate(entries):
        if isinstance(entry, Rules):
            rules.append(entry)
            continue
        try:
            rules.append(Rules.from_dict(entry))
        except (ValueError, TypeError) as err:
            raise ValueError(f"{text}: rule set {i} is not a rule set ({err})") from None
    return NamedRuleSets(name, tuple(rules), axes)
