"""The multi-agent table through PettingZoo's parallel API.

Blackjack is played in turn: the table waits for one seat, one hand at a time, in
casino order (seat 0 first; each seat plays all its hands before the next seat).
:class:`BlackjackParallelEnv` presents the AEC table
(:class:`~blackjack_env.envs.multiagent.BlackjackAECEnv`) as a PettingZoo
``ParallelEnv``, so that the tools written for that API take it (``parallel_api_test``,
SuperSuit's vector conversion and its route to stable-baselines3, RLlib's
``ParallelPettingZooEnv``)::

    from blackjack_env.envs.multiagent import parallel_env

    env = parallel_env(num_seats=3, rounds=10)
    observations, infos = env.reset(seed=0)
    while env.agents:
        actions = {agent: policy(observations[agent]) for agent in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)

## Steps

Every step, every live agent hands in an action, and the table applies the one of
the agent it waits for: ``infos[agent]["active"]`` says, for each agent, whether its
action of the *next* step will be played (exactly one agent is active while a round
runs). The other agents' actions are ignored, and their observations show it: phase
SETTLED and an all-ones action mask (what the AEC env shows an agent whose turn it
is not). This is PettingZoo's own reading of a turn-based game in the parallel API
(``turn_based_aec_to_parallel``), written out here so that the state, the rendering
and the info are the table's. A step's rewards are the AEC rewards of that step: the
net chips of a settled round divided by the bet, for every seated agent at once.

## State

``state()`` is the whole table as one flat ``float32`` vector: every agent's
observation (from its own seat) flattened with ``gymnasium.spaces.flatten`` and
joined in agent order. It shows
what the players see (not the hole card), from every seat at once: the input for a
centralised critic. ``state_space`` is its ``Box``.

## Arguments

Those of :class:`~blackjack_env.envs.multiagent.BlackjackAECEnv`. ``render_mode``
``"ansi"`` returns the table as text; ``"human"`` prints it.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from pettingzoo import ParallelEnv

from blackjack_env.envs.multiagent.aec import BlackjackAECEnv

__all__ = ["BlackjackParallelEnv", "parallel_env"]


class BlackjackParallelEnv(ParallelEnv):
    """A casino table whose seats are PettingZoo agents, through the parallel API.

    See the module docstring for the step, reward and state conventions.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "blackjack_parallel_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": True,
    }

    def __init__(self, render_mode: str | None = None, **kwargs: Any) -> None:
        # the AEC table checks every argument and draws the text
        self.aec_env = BlackjackAECEnv(render_mode=render_mode, **kwargs)
        self.render_mode = render_mode
        self.possible_agents = list(self.aec_env.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = {a: self.aec_env.observation_space(a)
                                   for a in self.possible_agents}
        self.action_spaces = {a: self.aec_env.action_space(a) for a in self.possible_agents}
        self.state_space = self.aec_env.state_space

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def table(self) -> Any:
        """The engine table (read it; act through :meth:`step`)."""
        return self.aec_env.table

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        self.aec_env.reset(seed=seed, options=options)
        self.agents = list(self.aec_env.agents)
        observations = {a: self.aec_env.observe(a) for a in self.agents}
        # the reset's own entries (the episode's rules under a rule space)
        infos = {a: self._info(a, dict(self.aec_env.infos.get(a, {}))) for a in self.agents}
        return observations, infos

    def step(self, actions: dict[str, Any]) -> tuple[
        dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]
    ]:
        if not self.agents:
            raise ResetNeeded("no agent is live (the episode is over or never started): "
                              "call reset()")
        if not isinstance(actions, dict):
            raise ValueError(f"actions must be a dict of agent -> action; got "
                             f"{type(actions).__name__}")
        unknown = sorted(set(actions) - set(self.agents))
        if unknown:
            raise ValueError(f"actions for {unknown}: not live agents; live: {self.agents}")
        agent = self.aec_env.agent_selection
        if agent not in actions:
            raise ValueError(f"actions has no action for {agent!r}, the agent the table waits "
                             f"for (every live agent hands in an action each step)")
        live = list(self.agents)
        self.aec_env.step(actions[agent])  # refused (ValueError) before anything changes
        aec = self.aec_env
        observations = {a: aec.observe(a) for a in live}
        rewards = {a: float(aec.rewards[a]) for a in live}
        terminations = {a: bool(aec.terminations[a]) for a in live}
        truncations = {a: bool(aec.truncations[a]) for a in live}
        infos = {a: self._info(a, aec.infos.get(a, {})) for a in live}
        self.agents = [a for a in live if not (terminations[a] or truncations[a])]
        return observations, rewards, terminations, truncations, infos

    def _info(self, agent: str, info: dict[str, Any]) -> dict[str, Any]:
        aec = self.aec_env
        done = aec.terminations.get(agent, False) or aec.truncations.get(agent, False)
        return {**info, "active": (not done) and agent == aec.agent_selection}

    def state(self) -> np.ndarray:
        """The whole table as one flat vector (see the module docstring)."""
        if not self.aec_env.agents:
            raise ResetNeeded("call reset() first")
        return self.aec_env.state()

    def render(self) -> str | None:
        return self.aec_env.render()

    def close(self) -> None:
        self.aec_env.close()


def parallel_env(**kwargs: Any) -> BlackjackParallelEnv:
    """The multi-agent table through PettingZoo's parallel API (see the module docstring)."""
    return BlackjackParallelEnv(**kwargs)
