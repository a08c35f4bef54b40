"""Grading agents: exact return against the optimum, and simulation with confidence intervals.

* :func:`exact_grade`: for infinite-deck rules the analysis computes the exact
  expected return of the agent's greedy policy (through
  :func:`blackjack_env.agents.obs.decision_policy`, or the agent's own ``state_policy``),
  the optimal return, and the regret = optimal - agent. ``None`` when the
  analysis does not apply (a finite shoe, rules it does not cover, an agent
  with no deterministic policy). ``split_states_depending_on_hand_index``
  counts the split-hand states where the agent's choice depends on which
  split hand it plays (information the analysis's state does not hold): when
  it is 0 the grade is exact; otherwise it is the grade of the agent playing
  every split hand as it plays the second one, and the grades for every other
  choice of hand index are given beside it.
* :func:`simulate`: plays the agent greedily for N rounds in an env and reports
  the mean return per round with a 95% confidence interval (normal
  approximation, ``z * sd / sqrt(n)``, z from :func:`blackjack_env.cli.z_value`),
  and the per-hand rates of each
  outcome (split hands count as hands).
* :func:`composition_reference`: on a finite shoe, where the simulation is the grade,
  the reference figure to read it against: the composition-dependent (CDZ-) optimum
  of a freshly shuffled shoe of the rules,
  :func:`blackjack_env.analysis.composition.composition_return`, the best return per
  unit bet of a player who decides on the exact cards of each hand (as an agent with
  the ``dict`` observation can) but does not count the shoe. It is a reference, not
  the agent's exact return: the simulated table plays on through the shoe to the cut
  card, where a player who reads the cards that remain (the ``composition`` agent, a
  counter) can do slightly better and bet spreads change the unit; so the simulated
  return minus the reference (with the simulation's interval) says how far the agent
  is from that optimum, within the simulation's noise.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from functools import lru_cache
from typing import Any

import numpy as np

from blackjack_env.agents.fixed import StrategyAgent
from blackjack_env.agents.obs import decision_policy
from blackjack_env.analysis import evaluate_policy, solve
from blackjack_env.analysis.composition import composition_return
from blackjack_env.analysis.model import check_supported
from blackjack_env.cli import z_value
from blackjack_env.engine import Rules

__all__ = [
    "analysis_reason",
    "composition_reference",
    "exact_grade",
    "optimal_return",
    "simulate",
    "table_free",
]

#: the name of the reference figure of a finite-shoe grade, as reports show it
REFERENCE_NAME = "composition-dependent optimum of a freshly shuffled shoe"

def analysis_reason(rules: Rules) -> str | None:
    """Why the exact analysis cannot grade under ``rules`` (None when it can): rules it does
    not serve with any shoe (e.g. highest-hand settlement), or a finite shoe (then
    ``--decks inf`` grades the same rules on an infinite deck)."""
    try:
        check_supported(rules)
    except ValueError as err:
        return f"the exact analysis does not serve these rules with any shoe ({err})"
    if rules.decks is not None:
        return (f"the exact grade needs an infinite deck (these rules use {rules.shoe_decks} "
                f"deck(s)); use --decks inf for the same rules with an infinite deck")
    return None


def table_free(agent: Any) -> bool:
    """Whether the agent decides from its observation alone, so the analysis can ask it
    about any state. A fixed agent without a ``state_policy`` reads the live table of its
    env instead (never-bust, random): asked about another state it would answer for the
    table, so it cannot be graded exactly."""
    return not (isinstance(agent, StrategyAgent) and agent.state_policy is None)


@lru_cache(maxsize=4096)
def optimal_return(rules: Rules) -> float:
    """The optimal expected return per unit bet (infinite deck); cached per rule set (a
    float each: the 256 held-out rule sets of a rule space are solved once per process,
    not again for each seed or policy graded on them, about 0.1 s of CPU each)."""
    return float(solve(rules).expected_return)


@lru_cache(maxsize=16)
def composition_reference(rules: Rules) -> dict[str, Any] | None:
    """The reference figure of a finite-shoe grade (see the module docstring), or None on
    an infinite deck (where :func:`exact_grade` applies).

    Returns ``{"name", "expected_return", "unavailable", "seconds"}``: the expected
    return per unit bet of composition-dependent play off a full shoe of
    ``rules.shoe_decks`` decks, or ``expected_return=None`` and the analysis' reason in
    ``unavailable`` for rules it cannot serve. About 1-1.5 s of CPU the first time per
    rule set (cached)."""
    if rules.decks is None:
        return None

    name = f"{REFERENCE_NAME} ({rules.shoe_decks} deck{'s' if rules.shoe_decks != 1 else ''})"
    t0 = time.perf_counter()
    try:
        value: float | None = float(composition_return(rules).expected_return)
        why = None
    except ValueError as err:
        value, why = None, str(err)
    return {"name": name, "expected_return": value, "unavailable": why,
            "seconds": round(time.perf_counter() - t0, 3)}


def _as_float(result: Any) -> float:
    if isinstance(result, (int, float, np.floating)):
        return float(result)
    for name in ("expected_return", "value", "ev"):
        if hasattr(result, name):
            return float(getattr(result, name))
    return float(result)


def exact_grade(agent: Any, rules: Rules, obs_mode: str | None = None) -> dict[str, Any] | None:
    """``{"exact_return", "optimal_return", "regret", ...}`` of the greedy policy, or None.

    When the agent's split-hand choices depend on the hand index, also
    ``regret_if_split_hands_play_as_index``: the regret if every split hand were
    played as hand k, for each k (the true regret mixes these).
    """
    if analysis_reason(rules) is not None:
        return None

    policy = getattr(agent, "state_policy", None)
    ambiguous: list[Any] = []
    if policy is None:
        if getattr(agent, "name", "") == "random" or not table_free(agent):
            return None
        if (obs_mode or getattr(agent, "obs_mode", "")) == "dict":
            return None  # the dict mode shows card compositions the analysis does not track
        policy = decision_policy(agent, rules, obs_mode, ambiguous)
    value = _as_float(evaluate_policy(rules, policy))
    best = optimal_return(rules)
    out: dict[str, Any] = {"exact_return": value, "optimal_return": best, "regret": best - value,
                           "split_states_depending_on_hand_index": len(ambiguous)}
    if ambiguous:
        # bound the effect: grade the agent playing every split hand as hand k, for each k
        out["regret_if_split_hands_play_as_index"] = {
            str(k): best - _as_float(evaluate_policy(
                rules, decision_policy(agent, rules, obs_mode, split_hand_index=k)))
            for k in range(rules.max_split_hands)
        }
    return out


def simulate(
    agent: Any,
    env: Any,
    hands: int,
    *,
    seed: int | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Play ``hands`` rounds greedily; mean return per round with its 95% CI and outcome rates."""
    if not isinstance(hands, int) or hands < 1:
        raise ValueError(f"hands={hands!r} must be a positive int")
    returns = np.empty(hands)
    outcomes: Counter[str] = Counter()
    bar = None
    if progress:
        # deferred: loads tqdm (the optional [main] extra)
        from tqdm.auto import tqdm

        bar = tqdm(total=hands, unit="hand", desc="evaluate", mininterval=0.5)
    obs, info = env.reset(seed=seed)
    i = 0
    total = 0.0
    try:  # the bar is closed however the loop ends (Ctrl-C): never redrawn after the output
        while i < hands:
            mask = info.get("action_mask")
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, mask))
            total += float(reward)
            settlement = info.get("settlement")
            if settlement is not None:
                for outcome in settlement.get("outcomes", ()):
                    outcomes[getattr(outcome, "value", str(outcome))] += 1
                returns[i] = total
                total = 0.0
                i += 1
                if bar is not None and i % 1000 == 0:
                    bar.update(1000)
            if terminated or truncated:
                obs, info = env.reset()
    finally:
        if bar is not None:
            bar.close()
    n_hands = sum(outcomes.values())
    mean = float(returns.mean())
    sd = float(returns.std(ddof=1)) if hands > 1 else 0.0

    half = z_value() * sd / math.sqrt(hands)
    names = ("win", "blackjack", "push", "loss", "bust", "surrender", "even_money")
    rates = {name: (outcomes.get(name, 0) / n_hands if n_hands else 0.0) for name in names}
    return {
        "rounds": hands,
        "hands": n_hands,
        "mean_return": mean,
        "sd": sd,
        "ci95": [mean - half, mean + half],
        "ci95_half_width": half,
        "rates": rates,
    }
