"""Grades of the benchmark's tasks, by the project's exact analysis.

Nothing here decides a value: a play task's grade is
:func:`blackjack_env.agents.grading.exact_grade` (infinite deck) or
:func:`blackjack_env.analysis.finite_shoe_return` read against
``blackjack_env.agents.grading.composition_reference`` (a shoe), each asking the policy
through ``blackjack_env.agents.obs.decision_policy``; a bets task's is
:func:`blackjack_env.analysis.counter.ceiling_fraction` and
:func:`~blackjack_env.analysis.counter.counter_report` on the task's round set; a rule-space
task's is :func:`blackjack_env.agents.rule_sets.grade_rule_sets` on the task's held-out
rule sets (:meth:`Task.held_out <blackjack_env.bench.tasks.Task.held_out>`). This module
picks the one the task names (:func:`grade_policy`) and writes the figures in the results
file's form.

Every grade is a dict with ``score`` (the task's metric: regret per unit bet, lower is
better, or the fraction of the ceiling, higher is better), ``measured`` (``"exact"``, or
``"simulated"`` for the random-play reference, which has no deterministic policy) and
the figures behind the score.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

from blackjack_env.agents.grading import composition_reference, exact_grade, optimal_return
from blackjack_env.agents.mlp import MLPAgent, bet_observations, greedy_bets
from blackjack_env.agents.obs import decision_policy
from blackjack_env.agents.rule_sets import RuleSetGrades, grade_rule_sets
from blackjack_env.analysis import evaluate_policy, finite_chart, finite_shoe_return, solve
from blackjack_env.analysis.counter import CounterRound, ceiling_fraction, counter_report
from blackjack_env.analysis.state import DecisionState
from blackjack_env.bench.rounds import RoundSet, load_round_set
from blackjack_env.bench.tasks import Task
from blackjack_env.engine import Action, Rules
from blackjack_env.simulate import simulate

__all__ = [
    "SIMULATED_ROUNDS",
    "ReadsRules",
    "agent_bets",
    "grade_agent",
    "grade_bets",
    "grade_policy",
    "grade_random_play",
    "grade_rule_space",
    "grade_state_policy",
    "held_out_rules",
    "optimum_policy",
    "reference",
    "round_set",
]

#: Rounds the random-play reference is simulated for, per seed.
SIMULATED_ROUNDS = 1_000_000


def reference(task: Task) -> dict[str, Any]:
    """What a task's score is measured against: ``{"name", "return"}`` (a play task:
    the optimal return, or the composition-dependent one of a shoe, per unit bet; a
    rule-space task: the mean over its held-out rule sets of each one's optimal return)
    or ``{"name", "net_per_round"}`` (a bets task: the ceiling's expected net per round)."""
    if task.grade == "held-out-regret":
        rules = held_out_rules(task)
        return {"name": f"each rule set's optimal return, the mean over {len(rules)} "
                        f"held-out rule sets (infinite deck)",
                "return": float(np.mean([optimal_return(r) for r in rules]))}
    if task.grade == "regret":
        return {"name": "optimal return (infinite deck)", "return": optimal_return(task.rules)}
    if task.grade == "shoe-regret":
        ref = composition_reference(task.rules)
        if ref is None or ref["expected_return"] is None:
            raise ValueError(f"{task.name}: no composition-dependent reference for its rules")
        return {"name": ref["name"], "return": float(ref["expected_return"])}
    rounds = round_set(task)
    spread = (min(task.bet_sizes), max(task.bet_sizes))
    report = counter_report(list(rounds.rounds), spread=spread)
    ceiling = report.rows[0]
    return {"name": ceiling.name, "net_per_round": ceiling.per_round,
            "net_per_round_ci95": ceiling.per_round_ci}


def round_set(task: Task) -> RoundSet:
    """A bets task's priced rounds (read once per process)."""
    if not task.rounds:
        raise ValueError(f"{task.name} is not graded on priced rounds")
    return load_round_set(task.rounds)


# ------------------------------------------------------------------------------ play
@cache
def _td_optimum(task: Task) -> float:
    """The return of the best total-dependent chart the analysis derives (a shoe)."""
    return float(finite_shoe_return(task.rules, finite_chart(task.rules)).expected_return)


def optimum_policy(task: Task) -> Callable[[DecisionState], Action]:
    """The best policy of the analysis for a play task: the optimal chart on an infinite
    deck (regret 0), the best total-dependent chart off a shoe."""
    if task.grade == "regret":
        return solve(task.rules).chart.action
    if task.grade == "shoe-regret":
        return finite_chart(task.rules).action
    raise ValueError(f"{task.name} grades bets, not play")


def grade_state_policy(task: Task, policy: Callable[[DecisionState], Action]) -> dict[str, Any]:
    """The grade of a ``DecisionState -> Action`` policy on a play task."""
    ref = reference(task)["return"]
    if task.grade == "regret":
        value = float(evaluate_policy(task.rules, policy))
    elif task.grade == "shoe-regret":
        value = float(finite_shoe_return(task.rules, policy).expected_return)
    else:
        raise ValueError(f"{task.name} grades bets, not play")
    return _play_figures(task, value, ref, 0)


def grade_agent(task: Task, agent: Any, obs_mode: str) -> dict[str, Any]:
    """The exact grade of an agent's greedy play on a play task, asked in ``obs_mode``
    (the observation it reads; on a shoe task the shoe hidden, as its env shows it).

    An agent that answers differently on a split hand for another hand index (which the
    analysis's state does not carry) is graded playing every split hand as the second;
    ``split_states_depending_on_hand_index`` counts those states and
    ``regret_if_split_hands_play_as_index`` gives the regret for each other index."""
    task.check_obs_mode(obs_mode)
    if task.grade == "held-out-regret":
        raise ValueError(f"{task.name} grades play on many rule sets: grade the agent with "
                         f"grade_rule_space (or grade_policy)")
    if task.grade == "regret":
        got = exact_grade(agent, task.rules, obs_mode)
        if got is None:
            raise ValueError(f"{getattr(agent, 'name', agent)} has no deterministic policy "
                             f"the analysis can ask (a random or table-reading agent)")
        out = _play_figures(task, float(got["exact_return"]), float(got["optimal_return"]),
                            int(got["split_states_depending_on_hand_index"]))
        if "regret_if_split_hands_play_as_index" in got:
            out["regret_if_split_hands_play_as_index"] = got["regret_if_split_hands_play_as_index"]
        return out
    if task.grade != "shoe-regret":
        raise ValueError(f"{task.name} grades bets: grade the agent's bets (grade_bets)")
    ref = reference(task)["return"]
    own = getattr(agent, "state_policy", None)
    ambiguous: list[Any] = []
    answers: dict[Any, Any] = {}  # (the agent's answers, kept across the policies below)
    policy = own or decision_policy(agent, task.rules, obs_mode, ambiguous, answers=answers)
    value = float(finite_shoe_return(task.rules, policy).expected_return)
    out = _play_figures(task, value, ref, len(ambiguous))
    if ambiguous:
        out["regret_if_split_hands_play_as_index"] = {
            str(k): ref - float(finite_shoe_return(task.rules, decision_policy(
                agent, task.rules, obs_mode, split_hand_index=k, answers=answers)
            ).expected_return)
            for k in range(task.rules.max_split_hands)}
    return out


def _play_figures(task: Task, value: float, ref: float, ambiguous: int) -> dict[str, Any]:
    out: dict[str, Any] = {"score": ref - value, "measured": "exact", "return": value,
                           "reference_return": ref,
                           "split_states_depending_on_hand_index": ambiguous}
    if task.grade == "shoe-regret":
        best = _td_optimum(task)
        out["total_dependent_optimum_return"] = best
        out["regret_against_total_dependent_optimum"] = best - value
    return out


def grade_random_play(task: Task, seed: int, rounds: int = SIMULATED_ROUNDS) -> dict[str, Any]:
    """The random legal policy's regret on a play task, *simulated* (it decides nothing
    deterministic, so the analysis cannot grade it): ``rounds`` rounds on the batched
    table (``blackjack_env.simulate.simulate``, seed ``seed``), with the 95%
    interval of the simulated return. On a rule-space task the rounds are split equally
    over its held-out rule sets, each simulated on its own."""
    if task.grade == "held-out-regret":
        return _grade_random_rules(task, seed, rounds)
    if task.grade not in ("regret", "shoe-regret"):
        raise ValueError(f"{task.name} grades bets, not play")
    ref = reference(task)["return"]
    sim = simulate("random", task.rules, hands=rounds, seed=seed)
    low, high = sim.ci95
    return {"score": ref - sim.mean, "measured": "simulated", "return": sim.mean,
            "reference_return": ref, "score_ci95": [ref - high, ref - low],
            "rounds": sim.hands}


# ------------------------------------------------------------------------------ rules
def held_out_rules(task: Task) -> list[Rules]:
    """The rule sets a rule-space task grades on (:meth:`Task.held_out
    <blackjack_env.bench.tasks.Task.held_out>`, in the held-out file's order). Every
    grade of this module reads them here, once."""
    return list(task.held_out())


class ReadsRules:
    """An agent that reads the observation of a rule-space task's env, rule features
    included, but does not say so (an SB3 model, a user's callable): what
    :func:`~blackjack_env.agents.rule_sets.grade_rule_sets` needs to show it the
    features (``observe_rules``), its answers unchanged. The agent's ``greedy_batch``
    (an SB3 model's), when it has one, is kept: every state of a rule set is then asked
    in one call."""

    observe_rules = True

    def __init__(self, agent: Any, obs_mode: str) -> None:
        self.agent = agent
        self.obs_mode = obs_mode
        self.name = str(getattr(agent, "name", "") or type(agent).__name__)
        n_actions = getattr(agent, "n_actions", None)
        if n_actions is not None:
            self.n_actions = int(n_actions)
        batch = getattr(agent, "greedy_batch", None)
        if callable(batch):
            self.greedy_batch = batch

    def act(self, obs: Any, mask: np.ndarray | None = None) -> int:
        return int(self.agent.act(obs, mask))


def _rule_reader(task: Task, agent: Any, obs_mode: str) -> Any:
    """``agent`` as the rule-space grade asks it: an agent that says what it reads
    (``observe_rules``, ``state_policy_for``, or a fixed agent's ``state_policy``, which
    grade_rule_sets refuses when it is None: such an agent reads its live table) as it
    is; one that says it reads no rules is refused (one line); any other is taken to read
    the env's observation whole (:class:`ReadsRules`)."""
    if callable(getattr(agent, "state_policy_for", None)) or hasattr(agent, "state_policy"):
        return agent
    says = getattr(agent, "observe_rules", None)
    if says is None:
        return ReadsRules(agent, obs_mode)
    if not says:
        raise ValueError(f"{getattr(agent, 'name', agent)} reads no rule features; "
                         f"{task.name}'s observation ends with them (observe_rules): train "
                         f"it on the task's env ({task.env_id})")
    return agent


def grade_rule_space(task: Task, agent: Any, obs_mode: str | None = None,
                     workers: int | None = 1) -> dict[str, Any]:
    """The exact grade of ``agent``'s greedy play on a rule-space task: every held-out rule
    set graded by :func:`~blackjack_env.agents.rule_sets.grade_rule_sets`. ``score``: the
    mean regret; ``score_ci95`` its 95% interval over rule sets (bootstrap); the median,
    the worst rule set, the costliest axes and every rule set's regret beside it.

    ``workers``: grade_rule_sets' processes. By default 1, in this process: a results
    file's CPU seconds (``time.process_time``) then count the grade, which they would
    not in worker processes (started by a forkserver, they are not this process's
    children), and any agent grades, a lambda too (workers get the agent pickled)."""
    mode = task.check_obs_mode(obs_mode)
    space = task.space
    if space is None:
        raise ValueError(f"{task.name} plays one rule set: grade it with grade_agent")
    asked = _rule_reader(task, agent, mode)
    result = grade_rule_sets(asked, held_out_rules(task), workers=workers,
                             axes=space.axis_names, name=f"held-out:{task.rule_space}")
    return _rule_figures(result)


def _rule_figures(result: RuleSetGrades) -> dict[str, Any]:
    """A :class:`RuleSetGrades` in the results file's form."""
    full = result.to_dict()
    lo, hi = result.ci95
    return {"score": result.mean, "measured": "exact", "score_ci95": [lo, hi],
            "interval": full["interval_method"],
            "return": full["mean_exact_return"], "reference_return": full["mean_optimal_return"],
            "median_regret": result.median, "worst": full["worst"],
            "rule_sets": len(result.grades), "rule_set_list": full["rule_sets"],
            "split_states_depending_on_hand_index": full["split_states_depending_on_hand_index"]
            or 0,
            "axes": [{"axis": a["axis"], "spread": a["spread"]} for a in full["axes"]],
            "regrets": [g.regret for g in result.grades]}


def _grade_random_rules(task: Task, seed: int, rounds: int) -> dict[str, Any]:
    """The random legal policy on a rule-space task, simulated: ``rounds`` rounds split
    equally over the held-out rule sets (each its own simulation, seeded from ``seed``
    and the rule set's place), each rule set's regret its optimal return minus its
    simulated mean; the interval of the mean regret from the simulations' own (normal,
    the rule sets independent)."""
    rules_list = held_out_rules(task)
    each = max(64, rounds // len(rules_list))
    tables = min(each, 64)
    per_table = -(-each // tables)
    regrets, variances, optima, played = [], [], [], 0
    seeds = np.random.SeedSequence(seed).spawn(len(rules_list))
    for rules, child in zip(rules_list, seeds, strict=True):
        sim = simulate("random", rules, hands=tables * per_table,
                       seed=int(child.generate_state(1)[0]), tables=tables,
                       rounds_per_table=per_table)
        low, high = sim.ci95
        optima.append(optimal_return(rules))
        regrets.append(optima[-1] - sim.mean)
        variances.append(((high - low) / (2 * 1.959963984540054)) ** 2)
        played += sim.hands
    mean = float(np.mean(regrets))
    half = 1.959963984540054 * float(np.sqrt(np.sum(variances))) / len(regrets)
    ref = float(np.mean(optima))  # (reference(task), without solving each again)
    return {"score": mean, "measured": "simulated", "return": ref - mean,
            "reference_return": ref, "score_ci95": [mean - half, mean + half],
            "rounds": played, "rule_sets": len(rules_list),
            "median_regret": float(np.median(regrets)),
            "regrets": [float(r) for r in regrets]}


def grade_policy(task: Task, agent: Any, obs_mode: str | None = None) -> dict[str, Any]:
    """The grade of an agent on any task, the one the task names: its bets
    (:func:`grade_bets`), its play on every held-out rule set (:func:`grade_rule_space`)
    or its play on the task's rules (:func:`grade_agent`), asked in ``obs_mode`` (default:
    the task's first)."""
    mode = task.check_obs_mode(obs_mode)
    if task.grade == "ceiling-fraction":
        return grade_bets(task, agent_bets(task, agent, round_set(task).rounds))
    if task.grade == "held-out-regret":
        return grade_rule_space(task, agent, mode)
    return grade_agent(task, agent, mode)


# ------------------------------------------------------------------------------ bets
def agent_bets(task: Task, agent: Any, rounds: Sequence[CounterRound]) -> np.ndarray:
    """The bet (base bets) ``agent`` places before each round: its greedy action at the
    round's bet-step observation (``"vector"``: the round's true count and the fraction of
    the shoe left, ``blackjack_env.agents.mlp.bet_observations``), only the bets
    legal; action ``n_play + k`` bets ``task.bet_sizes[k]``."""
    sizes = np.asarray(task.bet_sizes)
    layout = task.layout("vector")
    shoe_cards = 52 * int(task.rules.shoe_decks or 0)
    obs = bet_observations([r.true_count for r in rounds],
                           np.array([r.cards_left / shoe_cards for r in rounds]))
    if isinstance(agent, MLPAgent):
        return greedy_bets(agent, sizes, obs).astype(float)
    mask = np.zeros(layout.n_actions, np.int8)
    mask[layout.n_play:] = 1
    out = np.empty(len(rounds))
    for i, row in enumerate(obs):
        action = int(agent.act(row, mask))
        if not layout.n_play <= action < layout.n_actions:
            raise ValueError(f"{getattr(agent, 'name', agent)} answered {action} at a bet "
                             f"step, where the actions are the bets "
                             f"{layout.n_play}..{layout.n_actions - 1} "
                             f"({', '.join(layout.action_names()[layout.n_play:])})")
        out[i] = sizes[action - layout.n_play]
    return out


def grade_bets(task: Task, bets: Sequence[float] | np.ndarray, *,
               sizes_only: bool = True) -> dict[str, Any]:
    """The grade of one bet per round of the task's round set (in dealing order): the
    fraction of the ceiling with its 95% interval, and the bets' expected net per round
    and per unit wagered (exact edges, CD play). ``sizes_only=False`` admits any positive
    bet (an expectation: a bettor drawing its bets at random grades as its mean bet, the
    grade being linear in the bets)."""
    if task.grade != "ceiling-fraction":
        raise ValueError(f"{task.name} grades play, not bets")
    rounds = list(round_set(task).rounds)
    bets = np.asarray(bets, float)
    allowed = set(task.bet_sizes)
    if len(bets) != len(rounds) or (sizes_only and any(b not in allowed for b in bets)):
        raise ValueError(f"give one bet of {sorted(allowed)} for each of the {len(rounds):,} "
                         f"rounds")
    spread = (min(task.bet_sizes), max(task.bet_sizes))
    fraction, half = ceiling_fraction(rounds, [float(b) for b in bets], spread=spread)
    by_round = {(r.shoe, r.index): b for r, b in zip(rounds, bets, strict=True)}
    report = counter_report(rounds, spread=spread,
                            bettors={"policy": lambda r: by_round[r.shoe, r.index]})
    ceiling, row = report.rows[0], report.rows[3]
    return {"score": fraction, "score_ci95": [fraction - half, fraction + half],
            "measured": "exact", "net_per_round": row.per_round,
            "net_per_round_ci95": row.per_round_ci, "per_unit_wagered": row.per_unit,
            "per_unit_wagered_ci95": row.per_unit_ci, "mean_bet": float(bets.mean()),
            "ceiling_net_per_round": ceiling.per_round, "rounds": report.rounds,
            "shoes": report.shoes}
