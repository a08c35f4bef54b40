"""The single env's per-step work, compiled: the step machine of one learner seat.

``setup.py`` compiles this module with mypyc (see :mod:`blackjack_env._native`);
it also runs as plain Python, with the same behaviour. :class:`EnvCore` is the
single-learner env's state and step / reset logic, to which
:class:`~blackjack_env.envs.single.BlackjackEnv` (a thin ``gymnasium.Env``)
delegates; its step policy (the learner's :class:`~blackjack_env.envs.step.Decision`,
what an illegal action does) is :mod:`blackjack_env.envs.step`'s, as every env's, and
the learner's view of the table per step is the compiled
:class:`~blackjack_env.envs.view.per_step.LearnerView`.

The spaces, the observation fields and the env's behaviour are specified in the
docstring of :class:`~blackjack_env.envs.single.BlackjackEnv`. Rules are not
here: legality comes from the engine's :class:`~blackjack_env.engine.table.Table`.

Compiled code checks annotated argument types at run time, so arguments that come
from users (an action, cards) are typed ``Any`` and validated here with the
env's own ``ValueError``. Enum members read on every step are ``Final`` module
constants, which compiled code reads as C statics.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Final

import numpy as np
from gymnasium.error import ResetNeeded
from mypy_extensions import mypyc_attr

from blackjack_env.engine.cards import Card
from blackjack_env.engine.play import play_out_action
from blackjack_env.engine.shoe import read_stack
from blackjack_env.engine.table import Action, HandResult, Phase, Table
from blackjack_env.envs.step import (
    Decision,
    IllegalAction,
    decision_of_phase,
    illegal_message,
    map_illegal,
    table_action,
)
from blackjack_env.envs.view.per_step import MULTIDISCRETE, TUPLE, LearnerView
from blackjack_env.strategies import refused, strategy_name

__all__ = ["EnvCore", "read_cards"]


# Enum members read on every step, named _<ENUM>_<MEMBER> (C globals in the compiled
# module). Measured (compiled, 2026-11-30, CPU time, builds alternated): reading them
# through their enums instead makes the env 12% / 9% slower (sutton-barto tuple /
# vegas-strip multidiscrete). Kept.
#: What a learner whose ``others`` strategy failed is told to do (:func:`.strategies.refused`).
_STRATEGY_THEN: Final = (
    ". The learner's call was legal and its observation, reward and bankroll stand as "
    "last returned, but the round cannot go on: fix the strategy, then reset()"
)
_DECISION_PLAY: Final = Decision.PLAY
_DECISION_INSURANCE: Final = Decision.INSURANCE
_DECISION_BET: Final = Decision.BET
_DECISION_SETTLED: Final = Decision.SETTLED
_PHASE_INSURANCE: Final = Phase.INSURANCE
_PHASE_BETTING: Final = Phase.BETTING
_PHASE_SETTLED: Final = Phase.SETTLED
_ACTION_DECLINE: Final = Action.DECLINE
_ACTIONS: Final = tuple(Action)  # index -> Action, without the enum call
_INT64: Final = np.int64
# action indices and decision codes as plain ints (compiled code compares them natively)
_STAND: Final = int(Action.STAND)


# ===================================================================== the step machine
@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class EnvCore:
    """State and per-step logic of one learner seat at a table (``BlackjackEnv``'s engine room).

    ``BlackjackEnv`` validates its arguments, builds the table when it is seeded
    (:meth:`use_table`) and delegates :meth:`reset` and :meth:`step`; the behaviour
    is specified in its docstring.

    Args:
        layout: the env's ``Layout`` (observes the ``"vector"`` and ``"dict"`` modes;
            its :class:`LearnerView` and action names are read from it).
        settings: the env's validated
            :class:`~blackjack_env.envs.settings.EnvSettings`, read whole (``seat``,
            ``bet``, ``bankroll``, ``rounds_per_episode``, ``illegal_action``,
            ``illegal_penalty``, ``min_cost``; ``info_cards``: the info carries the cards
            (``hands``, ``dealer``, ``settlement``), else numeric, fixed-shape entries
            only, see :meth:`info`). Typed ``Any``: settings.py imports this module.
    """

    def __init__(self, layout: Any, settings: Any) -> None:
        per_step: LearnerView = layout.per_step
        illegal_action = settings.illegal_action
        self.layout = layout
        self.info_cards: bool = bool(settings.info_cards)
        self.per_step = per_step
        self.action_names: list[str] = layout.action_names()
        self.seat: int = settings.seat
        self.bet: int = settings.bet
        self.bankroll: int | None = settings.bankroll
        self.rounds_per_episode: int | None = settings.rounds_per_episode
        self.raise_illegal = illegal_action is IllegalAction.RAISE
        self.penalize_illegal = illegal_action is IllegalAction.PENALIZE
        self.illegal_penalty: float = settings.illegal_penalty
        self.min_cost: int = settings.min_cost
        self.obs_mode = per_step.obs_mode
        self.fast_obs = self.obs_mode == TUPLE or self.obs_mode == MULTIDISCRETE
        self.table: Table | None = None
        self.strategies: dict[int, Any] = {}
        self.strategy_names: dict[int, str] = {}  # seat -> how a message names its strategy
        self.phase = _DECISION_SETTLED
        self.legal: tuple[int, ...] = ()
        self.last_hand = 0
        self.rounds = 0  # rounds started in this episode
        self.session_net: int | Fraction = 0  # chips won in this episode (unlimited credit)
        self.done = True
        self.last_settlement: dict[str, Any] | None = None

    def use_table(
        self, table: Table, strategies: dict[int, Any], names: dict[int, str] | None = None
    ) -> None:
        """Play at ``table`` from now on, the other seats with ``strategies`` (seat ->
        strategy), named in messages by ``names`` (seat -> name; default: their own)."""
        self.table = table
        self.strategies = strategies
        self.strategy_names = names if names is not None else {
            i: strategy_name(s) for i, s in strategies.items()
        }

    # ================================================================ API
    def reset(self, cards: Any) -> tuple[Any, dict[str, Any]]:
        """Start an episode (the table must be set); ``cards``: None, text or a list of cards
        (``Card`` or text) dealt first."""
        table = self.table
        assert table is not None
        # Until this reset succeeds, step() asks for one (a card may be unavailable).
        self.done = True
        # Cards are read before anything changes: a bad token leaves the table as it was.
        parsed: list[Card] | None = None
        if cards is not None:
            parsed = read_cards(cards)
        if table.phase is not _PHASE_SETTLED:
            self.finish_round()  # reset in the middle of a round: play it out standing
        table.shoe.clear_stack()
        if parsed is not None:
            if table.phase is _PHASE_SETTLED:
                table.new_round()
            table.shoe.stack(parsed)  # ValueError names a bad token or an unavailable card
        seat = self.seat
        learner = table.seats[seat]
        if table.phase is _PHASE_BETTING and learner.bet:
            table.bet(seat, 0)
        if self.bankroll is not None:
            learner.bankroll = self.bankroll
        self.rounds = 0
        self.session_net = 0
        self.last_hand = 0
        self.done = False
        self.last_settlement = None
        self.start_round()
        self.update()
        return self.observe(), self.info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """One env step (see ``BlackjackEnv.step``)."""
        table = self.table
        if table is None or self.done:
            raise ResetNeeded("the episode is over (or never started): call reset()")
        a = self.check_action(action)
        phase = self.phase
        legal = self.legal
        illegal = a not in legal
        penalty = 0.0
        if illegal:
            if self.raise_illegal:
                raise ValueError(illegal_message(a, self.action_names, phase.name, legal))
            a = self.map_illegal(a, phase, legal)
            if self.penalize_illegal:
                penalty = self.illegal_penalty
                if phase is not _DECISION_BET:
                    a = _STAND  # the round ends: stand / decline from here on
        if phase is _DECISION_PLAY:
            who = table.to_act
            assert who is not None  # a PLAY step waits for the learner's hand
            self.last_hand = who[1]
            table.act(_ACTIONS[a])
        elif phase is _DECISION_INSURANCE:
            table.act(table_action(phase, a))
        elif phase is _DECISION_BET:
            per_step = self.per_step
            self.deal(per_step.bet_sizes[a - per_step.n_play] * self.bet)
        self.advance()
        if illegal and self.penalize_illegal:
            self.finish_round()  # the round ends, even when the penalty is 0
        reward = 0.0
        terminated = truncated = False
        settlement: dict[str, Any] | None = None
        if table.phase is _PHASE_SETTLED:
            settlement = self.settle()
            reward = settlement["net"] - penalty
            limit = self.rounds_per_episode
            if limit == 1:
                terminated = True
            elif limit is not None and self.rounds >= limit:
                truncated = True
            elif not self.can_afford_next():
                terminated = True
            else:
                self.start_round()
        self.done = terminated or truncated
        self.update()
        return self.observe(), reward, terminated, truncated, self.info(illegal, a, settlement)

    def observe(self) -> Any:
        """The observation of the current state."""
        table = self.table
        assert table is not None
        if self.fast_obs:
            return self.per_step.observe(table, self.seat, self.phase, self.last_hand, self.legal)
        return self.layout.observe(
            table,
            self.seat,
            self.phase,
            self.last_hand,
            self.legal,
            self.bankroll_chips() / self.bet if self.obs_mode == "dict" else 0.0,
        )

    def info(
        self,
        illegal: bool | None = None,
        played: int = 0,
        settlement: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The info dict of the current state; after a step (``illegal`` not None) also
        ``illegal_action``, ``action_played`` and, when a round was settled, ``settlement``.

        The keys come in the same order as ever. With ``info_cards`` False the info holds
        numbers only, the same keys at every step (what batching tools such as
        Tianshou's need): no ``hands`` / ``dealer``, and after a step ``round_net`` (the
        settled round's net in base bets, 0.0 when no round was settled) and ``settled``
        instead of the ``settlement`` dict.
        """
        table = self.table
        assert table is not None
        info: dict[str, Any] = {
            "action_mask": self.per_step.mask(self.legal),
            "phase": self.phase,
            "round": self.rounds,
            "bankroll": self.bankroll_chips(),
            "shoe_remaining": table.shoe.remaining,
            "reshuffled": table.reshuffled,
        }
        if self.info_cards:
            dealer = table.dealer.cards
            hands = table.seats[self.seat].hands
            info["hands"] = (
                (tuple(hands[0].cards),)
                if len(hands) == 1
                else tuple([tuple(h.cards) for h in hands])
            )
            info["dealer"] = (
                tuple(dealer) if table.hole_revealed else (dealer[0],) if dealer else ()
            )
        if illegal is not None:
            info["illegal_action"] = illegal
            info["action_played"] = played
            if not self.info_cards:
                info["round_net"] = 0.0 if settlement is None else float(settlement["net"])
                info["settled"] = settlement is not None
            elif settlement is not None:
                info["settlement"] = settlement
        return info

    def bankroll_chips(self) -> float:
        """The learner's chips off the table (with unlimited credit: the session's net)."""
        assert self.table is not None
        chips = self.table.seats[self.seat].bankroll
        return float(self.session_net if chips is None else chips)

    # ============================================================ internals
    def check_action(self, action: Any) -> int:
        """``action`` as an index of the action space, or ``ValueError``."""
        n = self.per_step.n_actions
        kind = type(action)
        if kind is int or kind is _INT64:
            a: int = int(action)
            if 0 <= a < n:
                return a  # the common case, checked cheaply
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise ValueError(
                f"action {action!r} must be an int in 0..{n - 1} "
                f"({', '.join(self.action_names)})"
            )
        a = int(action)
        if not 0 <= a < n:
            names = self.action_names
            raise ValueError(
                f"action {a} is outside the action space Discrete({n}); "
                f"actions are {', '.join([f'{i} {name}' for i, name in enumerate(names)])}"
            )
        return a

    def map_illegal(self, a: int, phase: Decision, legal: tuple[int, ...]) -> int:
        """The legal action an illegal ``a`` plays as (:func:`.step.map_illegal`)."""
        return map_illegal(a, phase, legal, self.per_step.n_play)

    def advance(self) -> None:
        """Let the other seats act (and decline insurance the learner is not asked
        about) until the learner must decide or the round is settled."""
        table = self.table
        assert table is not None
        strategies = self.strategies
        seat = self.seat
        while True:
            who = table.to_act
            while who is not None and who[0] != seat:
                i = who[0]
                action = strategies[i](table)
                try:
                    table.act(action)
                except ValueError as err:  # the table refused it and changed nothing
                    self.done = True  # the round cannot go on: reset() is needed
                    raise refused(
                        table, action, self.strategy_names[i], "others strategy",
                        _STRATEGY_THEN,
                    ) from err
                who = table.to_act
            if (
                who is not None
                and table.phase is _PHASE_INSURANCE
                and not self.per_step.asks_pre_peek(table.legal_actions())
            ):
                table.act(_ACTION_DECLINE)
                continue
            return

    def finish_round(self) -> None:
        """Play out the current round, the learner taking
        :func:`~blackjack_env.engine.play.play_out_action` at each decision."""
        table = self.table
        assert table is not None
        if table.phase is _PHASE_BETTING:
            return  # nothing dealt yet
        seat = self.seat
        while True:
            self.advance()
            who = table.to_act
            if who is None:
                return
            if who[0] == seat:
                table.act(play_out_action(table.phase is _PHASE_INSURANCE))

    def start_round(self) -> None:
        """Open the next round: bets (or a BET step), deal, other seats up to the learner."""
        table = self.table
        assert table is not None
        if table.phase is _PHASE_SETTLED:
            table.new_round()
        self.rounds += 1
        if self.per_step.bet_sizes:
            for i in self.strategies:
                table.bet(i, self.bet)
            return  # the learner's BET step comes first
        self.deal(self.bet)

    def deal(self, chips: int) -> None:
        """The learner bets ``chips`` (the others their bet, without a BET step); deal."""
        table = self.table
        assert table is not None
        if not self.per_step.bet_sizes:
            for i in self.strategies:
                table.bet(i, self.bet)
        table.bet(self.seat, chips)
        table.deal()
        self.last_hand = 0
        self.advance()

    def can_afford_next(self) -> bool:
        assert self.table is not None
        bankroll = self.table.seats[self.seat].bankroll
        return bankroll is None or bankroll >= self.min_cost

    def settle(self) -> dict[str, Any]:
        """The settled round's ``info["settlement"]`` (and the session's net)."""
        table = self.table
        assert table is not None
        learner = table.seats[self.seat]
        unit = self.bet
        results: list[HandResult] = learner.results
        if len(results) > 1:
            results = sorted(results)  # by hand index
        net = learner.net
        insurance = 0.0
        if learner.insurance:  # else the round's net is exactly the hands' (no Fraction sums)
            hand_net: int | Fraction = 0
            for r in results:
                hand_net += r.net
            insurance = float(net - hand_net) / unit
        if type(self.session_net) is int and self.session_net == 0:
            self.session_net = net  # (an episode's first round: no Fraction sum)
        else:
            self.session_net += net
        settlement: dict[str, Any] = {
            "round": self.rounds,
            "hands": tuple([tuple(h.cards) for h in learner.hands]),
            "dealer": tuple(table.dealer.cards),
            "outcomes": tuple([r.outcome for r in results]),
            "payouts": tuple([float(r.net) / unit for r in results]),
            "insurance": insurance,
            "net": float(net) / unit,
        }
        self.last_settlement = settlement
        return settlement

    def update(self) -> None:
        """The learner's decision and legal actions (after ``advance`` the table waits for
        the learner or for no one)."""
        table = self.table
        assert table is not None
        # (the table waits for the learner or for no one: the phase alone decides)
        phase = decision_of_phase(table.phase)
        self.phase = phase
        self.legal = self.per_step.legal(table, self.seat, phase)


def read_cards(cards: Any) -> list[Card]:
    """``reset(options={"cards": ...})``'s cards: text such as ``"AS KH 9D"``, or a list
    or tuple of :class:`Card` objects and card texts (read by the shoe's own
    :func:`~blackjack_env.engine.shoe.read_stack`). ``ValueError`` names a bad item."""
    return read_stack(cards, None, "options['cards']")
