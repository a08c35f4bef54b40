"""Agents for the blackjack table: one policy interface, learned and fixed agents.

Every agent implements ``act(obs, mask=None) -> int`` (see :mod:`agents.base`),
so evaluation, charts and the ``play`` script treat them alike:

* tabular learners: :class:`QLearningAgent`, :class:`MonteCarloAgent`
  (:mod:`agents.tabular`, saved as plain ``.npz``);
* stable-baselines3 PPO, DQN, A2C and sb3-contrib MaskablePPO:
  :func:`train_sb3`, :class:`SB3Agent` (:mod:`agents.sb3`);
* fixed agents: basic strategy, dealer-style, random legal
  (:mod:`agents.fixed`), and the Hi-Lo card counter (:mod:`agents.counting`);
* :func:`decision_policy` turns any agent into a policy over the analysis's
  ``DecisionState`` for exact grading (:mod:`agents.obs`).
"""

from __future__ import annotations

from agents.base import Agent, Policy, legal_actions, legal_argmax, obs_key
from agents.counting import BetSpread, HiLoCounter, hilo_tag, running_count_from_remaining
from agents.obs import ObsView, decision_policy, decode, encode_state, state_mask
from agents.seats import AgentStrategy, CountingSeat, seat_strategy
from agents.tabular import MonteCarloAgent, QLearningAgent, TabularAgent, run_episode

__all__ = [
    "Agent",
    "AgentStrategy",
    "BetSpread",
    "CountingSeat",
    "HiLoCounter",
    "MonteCarloAgent",
    "ObsView",
    "Policy",
    "QLearningAgent",
    "TabularAgent",
    "decision_policy",
    "decode",
    "encode_state",
    "hilo_tag",
    "legal_actions",
    "legal_argmax",
    "obs_key",
    "run_episode",
    "running_count_from_remaining",
    "seat_strategy",
    "state_mask",
]
