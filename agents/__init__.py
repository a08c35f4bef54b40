"""Agents for the blackjack table: one policy interface, learned and fixed agents.

Every agent implements ``act(obs, mask=None) -> int`` (see :mod:`blackjack_env.agents.base`),
so evaluation, charts and the ``play`` script treat them alike:

* tabular learners: :class:`QLearningAgent`, :class:`MonteCarloAgent`
  (:mod:`blackjack_env.agents.tabular`, saved as plain ``.npz``);
* stable-baselines3 PPO, DQN, A2C and sb3-contrib MaskablePPO:
  :func:`train_sb3`, :class:`SB3Agent` (:mod:`blackjack_env.agents.sb3`);
* fixed agents: basic strategy, dealer-style, random legal
  (:mod:`blackjack_env.agents.fixed`), and the Hi-Lo card counter
  (:mod:`blackjack_env.agents.counting`);
* :func:`decision_policy` turns any agent into a policy over the analysis's
  ``DecisionState`` for exact grading (:mod:`blackjack_env.agents.obs`);
  :func:`grade_rule_sets` grades one agent exactly on every rule set of a list
  (:mod:`blackjack_env.agents.rule_sets`).
"""

from __future__ import annotations

from blackjack_env.agents.base import Agent, Policy, legal_actions, legal_argmax, obs_key
from blackjack_env.agents.counting import (
    BetSpread,
    HiLoCounter,
    hilo_tag,
    running_count_from_remaining,
)
from blackjack_env.agents.fixed import (
    FIXED_AGENTS,
    StrategyAgent,
    basic_seat_strategy,
    counting_agent,
    fixed_agent,
)
from blackjack_env.agents.grading import exact_grade, simulate
from blackjack_env.agents.obs import (
    ObsView,
    decision_policy,
    decode,
    encode_state,
    state_mask,
    table_state,
)
from blackjack_env.agents.registry import load_agent, make_agent
from blackjack_env.agents.rule_sets import RuleSetGrades, grade_rule_sets, load_rule_sets
from blackjack_env.agents.sb3 import SB3_ALGOS, SB3Agent, SB3Config, train_sb3
from blackjack_env.agents.seats import AgentStrategy, CountingSeat, seat_strategy
from blackjack_env.agents.tabular import MonteCarloAgent, QLearningAgent, TabularAgent, run_episode
from blackjack_env.agents.training import TrainLog, train_tabular

__all__ = [
    "FIXED_AGENTS",
    "SB3_ALGOS",
    "Agent",
    "AgentStrategy",
    "BetSpread",
    "CountingSeat",
    "HiLoCounter",
    "MonteCarloAgent",
    "ObsView",
    "Policy",
    "QLearningAgent",
    "RuleSetGrades",
    "SB3Agent",
    "SB3Config",
    "StrategyAgent",
    "TabularAgent",
    "TrainLog",
    "basic_seat_strategy",
    "counting_agent",
    "decision_policy",
    "decode",
    "encode_state",
    "exact_grade",
    "fixed_agent",
    "grade_rule_sets",
    "hilo_tag",
    "legal_actions",
    "legal_argmax",
    "load_agent",
    "load_rule_sets",
    "make_agent",
    "obs_key",
    "run_episode",
    "running_count_from_remaining",
    "seat_strategy",
    "simulate",
    "state_mask",
    "table_state",
    "train_sb3",
    "train_tabular",
]
