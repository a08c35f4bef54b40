"""A multi-agent blackjack table: every seat is a PettingZoo agent."""

from __future__ import annotations

import inspect
import warnings
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from blackjack_env.engine.play import play_out_action
from blackjack_env.engine.table import Action, Phase, Table
from blackjack_env.envs.settings import (
    EnvSettings,
    TableArgs,
    check_action,
    check_reset_options,
    check_stack,
)
from blackjack_env.envs.step import (
    Decision,
    IllegalAction,
    illegal_message,
    learner_decision,
    map_illegal,
    table_action,
)
from blackjack_env.envs.view.layout import Layout
from blackjack_env.render import render_ansi
from blackjack_env.strategies import Strategy, act_for, make_strategy, strategy_name

__all__ = ["BlackjackAECEnv", "env", "raw_env"]


class BlackjackAECEnv(AECEnv):
    """A casino table whose seats are PettingZoo agents; the dealer plays by the rules.

    ## Description

    One engine :class:`~blackjack_env.engine.table.Table` with ``num_seats`` seats
    (1 to the rules' ``max_seats``, at most 7) and a dealer. The agents are
    ``"seat_0" .. "seat_{n-1}"`` except the seats listed in ``others``, which the
    env plays itself with fixed strategies (so learned agents can be mixed with
    fixed players; for self-play leave ``others`` empty and let one policy act
    for every agent). Each round every seat bets ``bet`` chips, the cards are
    dealt in casino order, and the agents act when the table waits for them:
    seat by seat, hand by hand (``agent_selection`` follows the table; an agent
    acts several times in a row for several decisions). Then the dealer plays
    by the rules and the round is settled. An episode is ``rounds`` rounds.

    **The shared shoe couples the seats.** All seats and the dealer draw from one
    shoe that persists across rounds (reshuffled between rounds once the cut card
    is out). The cards an earlier seat takes (hitting, doubling, splitting) are
    the cards a later seat and the dealer do not get: a seat's decision changes
    the next seat's and the dealer's cards, and so the other seats' rewards, and
    every card dealt changes the composition (and the true count in the
    observations) for the rest of the shoe. Seats therefore do not play
    independent games: with a finite shoe their results are correlated, and
    their order at the table matters. The dealer's hand is common to all seats,
    which correlates their results even with an infinite deck.

    ## Action Space

    Per agent, the single env's ``Discrete(P)`` (see
    :class:`~blackjack_env.envs.single.BlackjackEnv`): 0 STAND (in the
    pre-peek decision: decline), 1 HIT, 2 DOUBLE, 3 SPLIT, 4 SURRENDER, and 5
    INSURE with ``insurance_decisions=True``; ``Discrete(2)`` for stand/hit-only
    rules. An illegal action is handled as in the single env's ``"map"`` mode
    (double / split / surrender -> hit if allowed, else stand; anything else ->
    stand) and ``infos[agent]["illegal_action"]`` says so; with
    ``illegal_action="raise"`` it raises ``ValueError``.

    ## Observation Space

    PettingZoo's action-mask convention: a ``Dict`` with ``"observation"`` (the
    single env's observation of ``obs_mode``: ``"multidiscrete"``, ``"vector"``,
    ``"features"`` or ``"dict"``, from this agent's seat, for its focus hand) and
    ``"action_mask"`` (``int8``, 1 = legal). Observing an agent whose turn it is
    not gives phase SETTLED and an all-ones mask.

    ## Rewards

    When a round is settled, every seated agent receives its net chip result of
    the round divided by ``bet`` (the single env's reward); all other steps give
    0. A round settled at the deal with no decision for anyone (a dealer
    blackjack found by the peek, every seat a natural) still takes one step: the
    first agent gets the turn with phase SETTLED, its action is ignored, and the
    rewards are given on that step.

    ## Episode End

    After ``rounds`` settled rounds every agent is terminated.

    ## State

    :meth:`state` is the whole table as one flat ``float32`` vector (every agent's
    observation flattened and joined in agent order), ``state_space`` its ``Box``; the
    parallel env's ``state`` is the same vector.

    ## Reset options

    ``reset(options={"cards": "AS KH 9D ..."})`` deals these cards first (as the single
    env). Anything else is refused with ``ValueError``: a non-dict, an unknown key. The
    one exception is ``{"options": 1}``, the probe PettingZoo's API tests pass to check
    reset's signature: ignored, with a warning.

    ## Arguments

    ``rules`` (a :class:`Rules` or preset name, default ``"vegas-strip"``),
    ``num_seats`` (default 3, replacing ``rules.seats``), ``others`` (mapping
    seat index -> strategy name or callable ``(table) -> Action``: seats the env
    plays itself), ``obs_mode`` (default ``"multidiscrete"``), ``rounds``
    (default 1), ``bet`` (default the table minimum), ``insurance_decisions``
    (default False: insurance always declined), ``illegal_action`` (``"map"``
    or ``"raise"``), ``render_mode`` (None, ``"ansi"``: :meth:`render` returns the table as text, or
    ``"human"``: every reset and step prints it), ``decks`` (replacing ``rules.decks``,
    None an infinite deck, as in every env), ``observe_rules`` (default False: the
    ``"vector"``, ``"features"`` and ``"dict"`` observations carry the rule features, as
    in the single env). ``rules`` may also be a
    :class:`~blackjack_env.engine.rulespace.RuleSpace`: each ``reset`` draws the
    episode's rule set from it (with the env's seeded generator) and seats the agents at
    a new table under it, as the single env does; every agent's reset info then has
    ``rules`` (:meth:`Rules.to_dict`). They are validated by
    :meth:`~blackjack_env.envs.settings.EnvSettings.table` (``env.settings``): more
    seats than ``rules.max_seats`` are refused, as by the single env (give rules
    with ``max_seats`` raised); whole numbers may be numpy integers.

    A refused call changes nothing: a bad or (under ``"raise"``) illegal action
    leaves the pending rewards and infos as they were, and a reset with bad cards
    leaves the running episode as it was. ``step`` before ``reset`` (or using
    :attr:`table`) raises ``gymnasium.error.ResetNeeded``.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "blackjack_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        # the signature is TableArgs' (set below the class); every argument is checked
        # there, with one ValueError naming it
        settings = EnvSettings.table(*args, **kwargs)
        #: the validated settings (frozen)
        self.settings = settings
        rules = self.rules = settings.rules
        num_seats = rules.seats
        mode = settings.obs_mode
        assert settings.rounds_per_episode is not None
        self.rounds = settings.rounds_per_episode
        bet = self.bet = settings.bet
        self.illegal_action = settings.illegal_action
        self.render_mode = settings.render_mode
        insurance_decisions = settings.insurance_decisions
        fixed = settings.fixed_seats
        self._fixed_spec = fixed

        #: the rule space a rule set is drawn from at each reset (None: fixed rules)
        self.rule_space = settings.rule_space
        self.layout = Layout(
            rules, mode, bet, (), insurance_decisions, settings.max_hands,
            settings.observe_rules,
        )
        self.possible_agents = [f"seat_{i}" for i in range(num_seats) if i not in fixed]
        self._seat_of = {a: int(a.split("_")[1]) for a in self.possible_agents}
        self._agent_of = {s: a for a, s in self._seat_of.items()}
        inner = self.layout.observation_space()
        n = self.layout.n_actions
        self.observation_spaces = {
            a: spaces.Dict(
                {"observation": inner, "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8)}
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._inner = inner
        flat = spaces.flatten_space(inner)
        k = len(self.possible_agents)
        #: the space of :meth:`state` (every agent's flattened observation, joined)
        self.state_space = spaces.Box(
            np.tile(np.asarray(flat.low, dtype=np.float32), k),
            np.tile(np.asarray(flat.high, dtype=np.float32), k),
            dtype=np.float32,
        )
        self._np_random: np.random.Generator | None = None
        self._table: Table | None = None
        self._fixed: dict[int, Strategy] = {}
        self._last_hand = [0] * num_seats
        self._session = [0.0] * num_seats
        self._round = 0
        self._ack = False  # the selected agent only acknowledges a round settled at the deal
        self.agents: list[str] = []

    # ============================================================= spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def table(self) -> Table:
        """The engine table (read it; act through :meth:`step`)."""
        if self._table is None:
            raise ResetNeeded("call reset() before using the table")
        return self._table

    # ================================================================ API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode (PettingZoo's AEC ``reset``: observations through
        ``observe(agent)`` and ``last()``): ``seed`` starts a fresh table; ``options["cards"]``
        deals these cards first. Checked before anything changes."""
        if options is not None:
            options = _reset_options(options)
        # The cards are read and checked before anything changes: a refused reset leaves
        # the running episode as it was. Until this reset succeeds no agent is live.
        cards = (options or {}).get("cards")
        space = self.rule_space
        if cards is not None:  # under a rule space: cards every shoe of the space holds
            decks = space.shoe_decks[0] if space is not None else self.rules.shoe_decks
            cards = check_stack(cards, decks)
        self.agents = []
        new_table = seed is not None or self._np_random is None
        if new_table:
            self._np_random, _ = seeding.np_random(seed)
        elif space is not None:
            self._finish_round()
        if space is not None:  # a rule set drawn for the episode, at a table of its own
            assert self._np_random is not None
            self.rules = space.rules_at(int(space.sample_indices(self._np_random, 1)[0]))
            new_table = True
        if new_table:
            rng = self._np_random
            assert rng is not None
            n = self.rules.seats
            seeds = rng.integers(0, 2**63, size=n)
            self._table = Table(self.rules, rng)
            self._fixed = {
                s: make_strategy(spec, self.rules, int(seeds[s]))
                for s, spec in self._fixed_spec.items()
            }
        else:
            self._finish_round()
        table = self.table
        table.shoe.clear_stack()
        if cards is not None:
            if table.phase is Phase.SETTLED:
                table.new_round()
            table.shoe.stack(cards)  # ValueError names a card no longer in the shoe
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._session = [0.0] * self.rules.seats
        self._round = 0
        self._ack = False  # a round settled at the deal in the last episode is gone
        self._start_round()
        self._select()
        if space is not None:
            for agent in self.agents:
                self.infos[agent]["rules"] = self.rules.to_dict()
        if self.render_mode == "human":
            self.render()

    def state(self) -> np.ndarray:
        """The whole table as one flat ``float32`` vector in :attr:`state_space`: every
        agent's observation (from its own seat) flattened with ``gymnasium.spaces.flatten``
        and joined in agent order: what the players see (not the hole card), from every
        seat at once, the input for a centralised critic."""
        if self._table is None:
            raise ResetNeeded("call reset() before reading the state")
        return np.concatenate([
            np.asarray(spaces.flatten(self._inner, self.observe(a)["observation"]),
                       dtype=np.float32)
            for a in self.possible_agents
        ])

    @property
    def session_nets(self) -> tuple[float, ...]:
        """Each seat's net result in chips since the last reset (index = seat)."""
        return tuple(self._session)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat_of[agent]
        table = self.table
        phase, legal = self._decision(seat)
        obs = self.layout.observe(
            table, seat, phase, self._last_hand[seat], legal, self._session[seat] / self.bet
        )
        if isinstance(obs, dict):  # Discrete entries as numpy ints, as the space samples them
            obs = {k: np.int64(v) if isinstance(v, int) else v for k, v in obs.items()}
        return {"observation": obs, "action_mask": self.layout.mask(legal)}

    def step(self, action: Any) -> None:
        """Play ``action`` for the agent to act (``agent_selection``); the rewards of a
        settled round go to every seated agent (PettingZoo's AEC ``step``)."""
        if not self.agents:
            raise ResetNeeded(
                "no agent is live (the episode is over or never started): call reset()"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        seat = self._seat_of[agent]
        # the action is checked before anything changes: a refused step changes nothing
        a = check_action(action, self.layout.n_actions, self.layout.action_names(), f"{agent}: ")
        if not self._ack:
            phase, legal = self._decision(seat)
            if a not in legal and self.illegal_action is IllegalAction.RAISE:
                raise ValueError(
                    illegal_message(a, self.layout.action_names(), phase.name, legal, f"{agent}: ")
                )
        self._cumulative_rewards[agent] = 0.0
        for other in self.agents:
            self.rewards[other] = 0.0
            self.infos[other] = {}
        if self._ack:
            self._ack = False
            self.infos[agent] = {"illegal_action": False, "action_played": a}
            self._settle_round()
        else:
            phase, legal = self._decision(seat)
            illegal = a not in legal
            if illegal:  # (refused above under "raise")
                a = map_illegal(a, phase, legal, self.layout.n_play)
            if phase is Decision.PLAY:
                self._last_hand[seat] = table.to_act[1]  # type: ignore[index]
            table.act(table_action(phase, a))
            self.infos[agent] = {"illegal_action": illegal, "action_played": a}
            self._advance()
            if table.phase is Phase.SETTLED:
                self._settle_round()
        self._select()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """``"ansi"``: the table as text (the project's one text renderer,
        ``blackjack_env.render.render_ansi``, with each seat named by its agent);
        ``"human"``: the same text printed."""
        if self.render_mode is None:
            return None

        names = {s: self._agent_of.get(s, f"seat_{s} (fixed)") for s in range(self.rules.seats)}
        text = render_ansi(self.table, unit=self.bet, names=names,
                           caption=f"episode round {self._round} of {self.rounds}")
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ============================================================ internals
    def _decision(self, seat: int) -> tuple[Decision, tuple[int, ...]]:
        table = self.table
        phase = Decision.SETTLED if self._ack else learner_decision(table, seat)
        return phase, self.layout.legal(table, seat, phase)

    def _start_round(self) -> None:
        table = self.table
        if table.phase is Phase.SETTLED:
            table.new_round()
        self._round += 1
        for s in range(self.rules.seats):
            table.bet(s, self.bet)
        table.deal()
        self._last_hand = [0] * self.rules.seats
        self._advance()
        if table.phase is Phase.SETTLED:
            self._ack = True  # nobody had a decision: one step still reports the round

    def _advance(self) -> None:
        """Let fixed seats act and decline insurance nobody is asked about, until an
        agent must decide or the round is settled."""
        table = self.table
        while True:
            who = table.to_act
            if who is None:
                return
            seat = who[0]
            if seat in self._fixed:
                act_for(table, self._fixed[seat], strategy_name(self._fixed_spec[seat]),
                        "others strategy", ": fix the strategy, then reset()")
                continue
            if table.phase is Phase.INSURANCE and not self.layout.asks_pre_peek(
                table.legal_actions()
            ):
                table.act(Action.DECLINE)
                continue
            return

    def _finish_round(self) -> None:
        """Play out the current round, every agent taking
        :func:`~blackjack_env.engine.play.play_out_action` at each decision."""
        table = self.table
        while table.phase is not Phase.SETTLED and table.phase is not Phase.BETTING:
            self._advance()
            who = table.to_act
            if who is None:
                break
            table.act(play_out_action(table.phase is Phase.INSURANCE))

    def _settle_round(self) -> None:
        table = self.table
        for s, seat in enumerate(table.seats):
            net = float(seat.net) / self.bet
            self._session[s] += float(seat.net)
            agent = self._agent_of.get(s)
            if agent is not None:
                self.rewards[agent] = net
                self.infos.setdefault(agent, {})["round_net"] = net
        if self._round >= self.rounds:
            for a in self.agents:
                self.terminations[a] = True
        else:
            self._start_round()

    def _select(self) -> None:
        """Give the turn to the agent the table waits for (or the first, to acknowledge)."""
        if all(self.terminations[a] for a in self.agents):
            self.agent_selection = self.agents[0]
            return
        if self._ack:
            self.agent_selection = self.agents[0]
            return
        who = self.table.to_act
        assert who is not None
        self.agent_selection = self._agent_of[who[0]]


#: the reset options of the multi-agent table
_KNOWN_OPTIONS = ("cards",)


# The arguments are TableArgs' fields (their defaults and help lines): inspect, help() and
# the docs show them as BlackjackAECEnv's signature.
BlackjackAECEnv.__init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
     *TableArgs.signature().parameters.values()],
    return_annotation=None,
)


def _reset_options(options: Any) -> dict[str, Any]:
    """``reset(options=...)`` checked as the single env checks it (``ValueError`` for a
    non-dict or an unknown key), with one exception: PettingZoo's ``api_test`` and
    ``parallel_api_test`` call ``reset(options={"options": 1})`` to check reset's
    signature, so that one key alone is ignored with a warning."""
    if isinstance(options, dict) and set(options) == {"options"}:
        warnings.warn(
            "reset ignores options={'options': ...} (PettingZoo's API test probe); the "
            "only option is 'cards'",
            stacklevel=3,
        )
        return {}
    return check_reset_options(options, _KNOWN_OPTIONS)


def raw_env(**kwargs: Any) -> BlackjackAECEnv:
    """The AEC env without PettingZoo's wrappers."""
    return BlackjackAECEnv(**kwargs)


def env(**kwargs: Any) -> Any:
    """The AEC env wrapped in PettingZoo's order-enforcing wrapper."""
    return wrappers.OrderEnforcingWrapper(BlackjackAECEnv(**kwargs))

