"""Grades of the benchmark's tasks, by the project's exact analysis.

Nothing here decides a value: a play task's grade is
:func:`blackjack_env.agents.grading.exact_grade` (infinite deck) or
:func:`blackjack_env.analysis.finite_shoe_return` read against
``blackjack_env.agents.grading.composition_reference`` (a shoe), each asking the policy
through ``blackjack_env.agents.obs.decision_policy``; a bets task's is
:func:`blackjack_env.analysis.counter.ceiling_fraction` and
:func:`~blackjack_env.analysis.counter.counter_report` on the task's round set. This
module picks the one the task names and writes the figures in the results file's form.

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
from blackjack_env.analysis import evaluate_policy, finite_chart, finite_shoe_return, solve
from blackjack_env.analysis.counter import CounterRound, ceiling_fraction, counter_report
from blackjack_env.analysis.state import DecisionState
from blackjack_env.bench.rounds import RoundSet, load_round_set
from blackjack_env.bench.tasks import Task
from blackjack_env.engine import Action
from blackjack_env.simulate import simulate

__all__ = [
    "SIMULATED_ROUNDS",
    "agent_bets",
    "grade_agent",
    "grade_bets",
    "grade_random_play",
    "grade_state_policy",
    "optimum_policy",
    "reference",
    "round_set",
]

#: Rounds the random-play reference is simulated for, per seed.
SIMULATED_ROUNDS = 1_000_000


def reference(task: Task) -> dict[str, Any]:
    """What a task's score is measured against: ``{"name", "return"}`` (a play task:
    the optimal return, or the composition-dependent one of a shoe, per unit bet) or
    ``{"name", "net_per_round"}`` (a bets task: the ceiling's expected net per round)."""
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
    policy = own or decision_policy(agent, task.rules, obs_mode, ambiguous)
    value = float(finite_shoe_return(task.rules, policy).expected_return)
    out = _play_figures(task, value, ref, len(ambiguous))
    if ambiguous:
        out["regret_if_split_hands_play_as_index"] = {
            str(k): ref - float(finite_shoe_return(task.rules, decision_policy(
                agent, task.rules, obs_mode, split_hand_index=k)).expected_return)
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
    interval of the simulated return."""
    if task.grade not in ("regret", "shoe-regret"):
        raise ValueError(f"{task.name} grades bets, not play")
    ref = reference(task)["return"]
    sim = simulate("random", task.rules, hands=rounds, seed=seed)
    low, high = sim.ci95
    return {"score": ref - sim.mean, "measured": "simulated", "return": sim.mean,
            "reference_return": ref, "score_ci95": [ref - high, ref - low],
            "rounds": sim.hands}


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
