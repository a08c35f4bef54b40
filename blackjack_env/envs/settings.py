"""The env settings: one frozen, validated object that every env is built from.

:class:`EnvSettings` holds what a table of learners is configured with (rules and
seats, the learner's seat or the agents' seats, the other seats' strategies, the
observation mode, bets, bankroll, episode length, what an illegal action does,
rendering). It is built and checked here, once: :meth:`EnvSettings.single` for
:class:`~blackjack_env.envs.single.BlackjackEnv` (and, with the batched env's
own limits, :meth:`EnvSettings.batched` for
:class:`~blackjack_env.envs.vector.BlackjackVectorEnv`), :meth:`EnvSettings.table`
for the multi-agent :class:`~blackjack_env.envs.multiagent.BlackjackAECEnv`. A bad
value raises one ``ValueError`` naming the argument, the value and what is allowed.

Whole numbers may be Python or numpy integers (``np.int64(3)``) everywhere; ``bool``
is never read as a number. ``rules`` is a :class:`~blackjack_env.engine.rules.Rules`,
a preset name, or the dict of :meth:`Rules.to_dict` (which is how an env's
``spec`` records a ``Rules``, see :func:`json_ready_spec`); or a
:class:`~blackjack_env.engine.rulespace.RuleSpace` (or its :meth:`RuleSpace.to_dict`),
from which the env draws a rule set at each reset (:attr:`EnvSettings.rule_space`;
:func:`read_rules_or_space`).

The helpers :func:`check_action` and :func:`check_stack` give every env the same
checks of an action and of ``reset(options={"cards": ...})``.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import numpy as np

from blackjack_env.engine.cards import Card
from blackjack_env.engine.rules import PRESETS, Rules, Surrender, preset
from blackjack_env.engine.rulespace import RuleSpace
from blackjack_env.engine.shoe import read_stack
from blackjack_env.envs.step import IllegalAction
from blackjack_env.envs.view.layout import ObsMode
from blackjack_env.strategies import make_strategy

__all__ = [
    "EnvArgs",
    "EnvSettings",
    "TableArgs",
    "action_error",
    "check_action",
    "check_bet_sizes",
    "check_one_shoe",
    "check_reset_options",
    "check_stack",
    "json_ready_spec",
    "read_rules",
    "read_rules_or_space",
]

#: ``decks`` keeps the rules' decks (the default of :attr:`EnvArgs.decks`)
KEEP_DECKS = "rules"

#: render modes of the single env (the batched env does not render; the table: text, printed or not)
SINGLE_RENDER_MODES = ("ansi", "rgb_array", "human")
TABLE_RENDER_MODES = ("ansi", "human")


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _int_or_none(name: str, value: Any, low: int, high: int | None, allowed: str) -> int | None:
    """``value`` as an int in ``low..high`` (numpy ints accepted), None kept; else ValueError."""
    if value is None:
        return None
    if not _is_int(value) or value < low or (high is not None and value > high):
        raise ValueError(f"{name}={value!r} must be {allowed}")
    return int(value)


def _flag(name: str, value: Any) -> bool:
    """``value`` as a bool: only ``True`` / ``False`` (numpy's too); a string such as
    ``'no'``, a number or None would otherwise be read by its truth value."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}={value!r} must be True or False")
    return bool(value)


def _num_seats(value: Any, rules: Rules) -> int:
    """The ``num_seats`` argument checked against ``rules.max_seats``, naming ``num_seats``
    (not the rules' own ``seats`` field it replaces)."""
    top = rules.max_seats
    if not _is_int(value):
        raise ValueError(f"num_seats={value!r} must be an int from 1 to {top}")
    if not 1 <= value <= top:
        more = (
            f" (for more, give rules with max_seats raised, e.g. "
            f"preset(name, max_seats={int(value)}))"
            if top < value <= 7
            else ""
        )
        raise ValueError(
            f"num_seats={value!r} is not allowed; these rules seat 1 to {top} players{more}"
        )
    return int(value)


def _render_mode(value: Any, allowed: tuple[str, ...]) -> str | None:
    if value is not None and (not isinstance(value, str) or value not in allowed):
        raise ValueError(
            f"render_mode={value!r} is not allowed; choose None or one of "
            f"{', '.join(repr(m) for m in allowed)}"
        )
    return value


def read_rules(rules: Any) -> Rules:
    """A :class:`Rules` from a ``Rules``, a preset name or a :meth:`Rules.to_dict` dict."""
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return preset(rules)  # ValueError lists the presets
    if isinstance(rules, Mapping):
        return Rules.from_dict(rules)  # ValueError names a bad field
    raise ValueError(
        f"rules={rules!r} must be a Rules or a preset name ({', '.join(PRESETS)}), or a dict "
        f"of rule fields (Rules.to_dict())"
    )


def read_rules_or_space(rules: Any) -> Rules | RuleSpace:
    """:func:`read_rules`, or a :class:`RuleSpace` given as one or as its
    :meth:`RuleSpace.to_dict` (a dict with ``"axes"``)."""
    if isinstance(rules, RuleSpace):
        return rules
    if isinstance(rules, Mapping) and "axes" in rules:
        return RuleSpace.from_dict(rules)  # ValueError names what is wrong
    return read_rules(rules)


#: Rule fields a rule space given to an env may not vary: the table limits (the bet
#: checks and the BET step's sizes are fixed per env).
ENV_FIXED_AXES = ("min_bet", "max_bet", "max_seats")

#: Observation modes that can carry the rule features (``observe_rules=True``).
RULE_MODES = (ObsMode.VECTOR, ObsMode.FEATURES, ObsMode.DICT)


@dataclass(frozen=True)
class EnvArgs:
    """The arguments of :class:`~blackjack_env.envs.single.BlackjackEnv` as given: the
    one signature of the single env (its ``__init__`` shows these fields) and, with
    ``seats_per_table``, of the batched env. Each field has its default and its help line
    (CleanRL's ``Args``); :meth:`EnvSettings.from_args` checks them all, once, into
    :class:`EnvSettings`. ``BlackjackEnv(EnvArgs(num_seats=3))`` passes them whole."""

    rules: Rules | RuleSpace | str | Mapping[str, Any] = "vegas-strip"
    """the rules, as a ``Rules``, a preset name or a ``Rules.to_dict()`` dict; or a
    ``RuleSpace`` (or its ``to_dict()``): a rule set drawn from it at each reset"""
    num_seats: int | None = None
    """seats at the table, replacing ``rules.seats`` (None keeps them)"""
    seat: int = 0
    """the learner's seat index"""
    others: str | Callable[..., Any] | Sequence[Any] = "dealer"
    """the other seats' strategy, as a name, a callable ``(table) -> Action``, or one per seat"""
    obs_mode: str = "multidiscrete"
    """``"multidiscrete"``, ``"tuple"``, ``"vector"``, ``"features"`` or ``"dict"``"""
    rounds_per_episode: int | None = 1
    """rounds per episode, or None (no limit)"""
    bankroll: int | None = None
    """the learner's starting chips per episode, or None (unlimited credit)"""
    bet: int | None = None
    """the base bet in chips (None is the table minimum); rewards are in base bets"""
    bet_sizes: Sequence[int] | None = None
    """bet multiples offered at a BET step before each round, or None (a fixed bet)"""
    insurance_decisions: bool = False
    """ask the learner for insurance / even money (else always declined)"""
    illegal_action: str = "map"
    """what an illegal action does, ``"map"``, ``"raise"`` or ``"penalize"``"""
    illegal_penalty: float = 1.0
    """the penalty of ``illegal_action="penalize"``"""
    render_mode: str | None = None
    """None, ``"ansi"``, ``"rgb_array"`` or ``"human"``"""
    info_cards: bool = True
    """the info carries the cards (with False, numeric fixed-shape entries only)"""
    decks: int | str | None = KEEP_DECKS
    """decks in the shoe, replacing ``rules.decks`` (None: an infinite deck; the default
    ``"rules"`` keeps the rules' own): one rule override taken by every env, as
    ``num_seats`` is, since the deck count is the rule most often varied"""
    observe_rules: bool = False
    """the observation carries the rules' features (``"vector"``, ``"features"``: appended;
    ``"dict"``: the key ``"rules"``)"""

    @classmethod
    def bind(cls, args: tuple[Any, ...], kwargs: dict[str, Any], owner: str = "BlackjackEnv",
             more: tuple[str, ...] = ()) -> EnvArgs:
        """``owner(*args, **kwargs)``'s arguments as an :class:`EnvArgs` (or one
        ``EnvArgs`` given whole); an unknown name raises ``ValueError`` naming the
        arguments ``owner`` takes (these fields, then ``more``: its own)."""
        return _bind(cls, owner, args, kwargs, more)

    @classmethod
    def signature(cls, **defaults: Any) -> inspect.Signature:
        """The fields as a call signature (with their defaults and types): the single
        env's ``__init__`` shows it; ``defaults`` replaces some (the JAX table's
        ``obs_mode``)."""
        return _signature(cls, defaults)


@dataclass(frozen=True)
class TableArgs:
    """The arguments of the multi-agent table
    (:class:`~blackjack_env.envs.multiagent.BlackjackAECEnv`, and the parallel env) as
    given, with defaults and help lines; :meth:`EnvSettings.table` checks them."""

    rules: Rules | RuleSpace | str | Mapping[str, Any] = "vegas-strip"
    """the rules, as a ``Rules``, a preset name or a ``Rules.to_dict()`` dict; or a
    ``RuleSpace`` (or its ``to_dict()``): a rule set drawn from it at each reset"""
    num_seats: int = 3
    """seats at the table, replacing ``rules.seats``"""
    others: Mapping[int, Any] | None = None
    """seat index -> strategy (name or callable) of the seats the env plays; the rest are agents"""
    obs_mode: str = "multidiscrete"
    """``"multidiscrete"``, ``"vector"``, ``"features"`` or ``"dict"``"""
    rounds: int = 1
    """rounds per episode"""
    bet: int | None = None
    """the base bet in chips (None is the table minimum)"""
    insurance_decisions: bool = False
    """ask the agents for insurance / even money (else always declined)"""
    illegal_action: str = "map"
    """what an illegal action does, ``"map"`` or ``"raise"``"""
    render_mode: str | None = None
    """None, ``"ansi"`` or ``"human"``"""
    decks: int | str | None = KEEP_DECKS
    """decks in the shoe, replacing ``rules.decks`` (None: an infinite deck; the default
    ``"rules"`` keeps the rules' own), as in every env (:attr:`EnvArgs.decks`)"""
    observe_rules: bool = False
    """the observation carries the rules' features (``"vector"``, ``"features"``,
    ``"dict"``), as in the single env (:attr:`EnvArgs.observe_rules`)"""

    @classmethod
    def bind(cls, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TableArgs:
        """``BlackjackAECEnv(*args, **kwargs)``'s arguments as a :class:`TableArgs` (or
        one given whole); an unknown name raises ``TypeError`` as a Python call does."""
        return _bind(cls, "BlackjackAECEnv", args, kwargs)

    @classmethod
    def signature(cls) -> inspect.Signature:
        """The fields as a call signature: the multi-agent table's ``__init__`` shows it."""
        return _signature(cls)


_ArgsT = TypeVar("_ArgsT", EnvArgs, TableArgs)


def _bind(cls: type[_ArgsT], owner: str, args: tuple[Any, ...], kwargs: dict[str, Any],
          more: tuple[str, ...] = ()) -> _ArgsT:
    """``owner(*args, **kwargs)``'s arguments as ``cls`` (an args dataclass; ``more``: the
    owner's own arguments besides them, named in the message for an unknown one)."""
    if len(args) == 1 and not kwargs and isinstance(args[0], cls):
        return args[0]
    names: list[str] = [f.name for f in dataclasses.fields(cls)]
    if len(args) > len(names):
        raise TypeError(
            f"{owner}.__init__() takes at most {len(names)} positional arguments "
            f"({len(args)} given)"
        )
    given = dict(zip(names, args, strict=False))
    twice = sorted(set(given) & set(kwargs))
    if twice:
        raise TypeError(f"{owner}.__init__() got multiple values for argument {twice[0]!r}")
    unknown = sorted(set(kwargs) - set(names))
    if unknown and cls is EnvArgs:
        takes = ", ".join(names + list(more))
        raise ValueError(
            f"unknown argument(s) {', '.join(unknown)}; {owner} takes {takes} (rule fields "
            f"go in rules=preset(name, field=...) or a Rules)"
        )
    if unknown:
        first = next(k for k in kwargs if k not in names)
        raise TypeError(f"{owner}.__init__() got an unexpected keyword argument {first!r}")
    return cls(**given, **kwargs)


def _signature(cls: type[Any], defaults: dict[str, Any] | None = None) -> inspect.Signature:
    """An args dataclass's fields as a call signature (keyword or positional), with the
    defaults ``defaults`` names replaced."""
    defaults = defaults or {}
    return inspect.Signature([
        inspect.Parameter(
            f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=defaults.get(f.name, f.default), annotation=f.type,
        )
        for f in dataclasses.fields(cls)
    ])  # fmt: skip


@dataclass(frozen=True)
class EnvSettings:
    """A validated env configuration (build it with :meth:`single`, :meth:`batched` or
    :meth:`table`; the meaning of each field is in the env's docstring).

    Attributes:
        rules: the rules, with ``seats`` set to the table's seats; under a rule space,
            its first rule set (which shares with every other what fixes the envs'
            shapes: the deck kind and the action count).
        seat: the learner's seat (single and batched env; 0 for the multi-agent table).
        others: ``(seat, strategy spec)`` for every seat the env plays itself, by seat.
        rule_space: the :class:`~blackjack_env.engine.rulespace.RuleSpace` the env draws a
            rule set from at each reset (with ``seats`` and ``decks`` applied to its
            base), or None for fixed rules.
        observe_rules: the observation carries the rule features.

    The other fields (``obs_mode``, ``rounds_per_episode``, ``bankroll``, ``bet``,
    ``bet_sizes``, ``insurance_decisions``, ``illegal_action``, ``illegal_penalty``,
    ``render_mode``, ``info_cards``) are the env arguments of those names, with ``bet``
    resolved to chips and ``bet_sizes`` a tuple (empty for a fixed bet).

    The number of seats at a table has one name, ``seats``: ``rules.seats`` here (set by
    the ``num_seats`` argument of the single env and the multi-agent table, and by the
    batched env's ``seats_per_table``, whose tables seat only learners), ``seats`` of the
    batched env and of its :class:`~blackjack_env.envs.batch.TableBatch`.
    """

    rules: Rules
    seat: int
    others: tuple[tuple[int, Any], ...]
    obs_mode: ObsMode
    rounds_per_episode: int | None
    bankroll: int | None
    bet: int
    bet_sizes: tuple[int, ...]
    insurance_decisions: bool
    illegal_action: IllegalAction
    illegal_penalty: float
    render_mode: str | None
    info_cards: bool = True
    rule_space: RuleSpace | None = None
    observe_rules: bool = False

    @property
    def max_hands(self) -> int:
        """The most hands a seat can hold: ``rules.max_split_hands``, or the rule space's
        largest (the observation's hand fields are bounded and scaled by it)."""
        if self.rule_space is not None:
            return self.rule_space.max_hands
        return self.rules.max_split_hands

    @property
    def min_cost(self) -> int:
        """The smallest bet of a round in chips."""
        return self.bet_sizes[0] * self.bet if self.bet_sizes else self.bet

    @property
    def fixed_seats(self) -> dict[int, Any]:
        """Seat -> strategy spec of the seats the env plays itself."""
        return dict(self.others)

    # ------------------------------------------------------------- builders
    @classmethod
    def single(cls, *args: Any, **kwargs: Any) -> EnvSettings:
        """The settings of one learner seat: ``BlackjackEnv``'s arguments
        (:class:`EnvArgs`, or one ``EnvArgs`` whole), checked by :meth:`from_args`."""
        return cls.from_args(EnvArgs.bind(args, kwargs))

    @classmethod
    def from_args(cls, args: EnvArgs, seats_per_table: int = 1) -> EnvSettings:
        """:class:`EnvArgs` checked, once, into settings: one learner seat, or (the batched
        env's ``seats_per_table`` > 1, checked by :meth:`batched`) that many learner seats
        at each table, every seat a learner."""
        rules, num_seats, seat, others = args.rules, args.num_seats, args.seat, args.others
        obs_mode, rounds_per_episode, bankroll = (
            args.obs_mode, args.rounds_per_episode, args.bankroll
        )
        bet, bet_sizes, insurance_decisions = args.bet, args.bet_sizes, args.insurance_decisions
        illegal_action, illegal_penalty = args.illegal_action, args.illegal_penalty
        render_mode, info_cards = args.render_mode, args.info_cards
        rules, space = _read_rules_arg(rules, args.decks)
        # with several learner seats (batched), every seat is a learner: no seat, no
        # others (refused by batched), and the seats are set after every other check
        learners = seats_per_table > 1
        if num_seats is not None and not learners:
            rules, space = _with_seats(rules, space, _num_seats(num_seats, rules))
        seat_i = 0
        if not learners:
            last = rules.seats - 1
            checked = _int_or_none("seat", seat, 0, last, f"an int from 0 to {last}")
            if checked is None:
                raise ValueError(f"seat=None must be an int from 0 to {rules.seats - 1}")
            seat_i = checked
        mode = _obs_mode(obs_mode, tuple(ObsMode))
        bet_i = _bet(bet, rules)
        sizes = _bet_sizes(bet_sizes, bet_i, rules)
        min_cost = sizes[0] * bet_i if sizes else bet_i
        bankroll_i = _int_or_none(
            "bankroll", bankroll, min_cost, None,
            f"None (unlimited credit) or an int >= {min_cost} (the smallest bet)",
        )
        insurance_decisions = _flag("insurance_decisions", insurance_decisions)
        observe_rules = _observe_rules(args.observe_rules, mode)
        early = Surrender.EARLY in _values(rules, space, "surrender")
        if insurance_decisions and space is not None:
            _every_rule_set_insures(space)
        if mode is ObsMode.TUPLE and (sizes or insurance_decisions or early):
            others = ", ".join(repr(m.value) for m in ObsMode if m is not ObsMode.TUPLE)
            raise ValueError(
                "obs_mode='tuple' cannot show a bet step or a pre-peek decision: use one "
                f"of {others} with bet_sizes, insurance_decisions or early surrender"
            )
        rounds = _int_or_none(
            "rounds_per_episode", rounds_per_episode, 1, None, "an int >= 1 or None (no limit)"
        )
        illegal = _illegal_action(illegal_action, tuple(IllegalAction))
        penalty = _penalty(illegal_penalty)
        info_cards = _flag("info_cards", info_cards)
        render_mode = _render_mode(render_mode, SINGLE_RENDER_MODES)
        others_by_seat: tuple[tuple[int, Any], ...] = (
            () if learners else _others(others, rules, seat_i)
        )
        if learners:
            _check_batched_rules(rules, space)
            if illegal is IllegalAction.PENALIZE:
                raise ValueError(
                    f"illegal_action='penalize' is not supported with "
                    f"seats_per_table={seats_per_table}; use 'map' or 'raise' (as the "
                    f"multi-agent table)"
                )
            if seats_per_table > rules.max_seats:
                raise ValueError(
                    f"seats_per_table={seats_per_table} is not allowed; these rules seat 1 "
                    f"to {rules.max_seats} players (give rules with max_seats raised)"
                )
            rules, space = _with_seats(rules, space, seats_per_table)
        return cls(
            rules=rules,
            seat=seat_i,
            others=others_by_seat,
            obs_mode=mode,
            rounds_per_episode=rounds,
            bankroll=bankroll_i,
            bet=bet_i,
            bet_sizes=sizes,
            insurance_decisions=bool(insurance_decisions),
            illegal_action=illegal,
            illegal_penalty=penalty,
            render_mode=render_mode,
            info_cards=bool(info_cards),
            rule_space=space,
            observe_rules=observe_rules,
        )

    @classmethod
    def batched(cls, seats_per_table: int = 1, *args: Any, **kwargs: Any) -> EnvSettings:
        """The settings of the batched env: those of :meth:`single` (its arguments, or one
        :class:`EnvArgs` whole), with one seat, no bet raising and no rendering; or
        ``seats_per_table`` learner seats at each table (fixed bet, unlimited credit,
        illegal actions mapped or raised)."""
        if not _is_int(seats_per_table) or not 1 <= seats_per_table <= 7:
            raise ValueError(f"seats_per_table={seats_per_table!r} must be an int from 1 to 7")
        # the arguments given: the keywords, or an EnvArgs's fields off their defaults
        given = dict(kwargs)
        if args:
            whole = EnvArgs.bind(args, kwargs)
            given = {
                f.name: value
                for f in dataclasses.fields(EnvArgs)
                if not _is_default(value := getattr(whole, f.name), f.default)
            }
        if seats_per_table > 1:
            seats = int(seats_per_table)
            cls._refuse_for_seats(seats, given)
            return cls.from_args(EnvArgs.bind(args, kwargs), seats)
        if given.get("render_mode") is not None:
            raise ValueError(
                f"render_mode={given['render_mode']!r}: the batched env does not render; "
                f"use the single env (gymnasium.make) to watch a table"
            )
        settings = cls.from_args(EnvArgs.bind(args, kwargs))
        rules = settings.rules
        if rules.seats != 1:
            raise ValueError(
                f"the batched env seats one learner per table; got {rules.seats} seats "
                f"(num_seats / rules.seats): use the single env or the multi-agent env"
            )
        _check_batched_rules(rules, settings.rule_space)
        return settings

    @staticmethod
    def _refuse_for_seats(seats: int, kwargs: dict[str, Any]) -> None:
        """The arguments that do not apply with ``seats`` learner seats per table."""
        for name, allowed in (("num_seats", None), ("bet_sizes", None), ("bankroll", None),
                              ("render_mode", None)):
            if kwargs.get(name, allowed) is not allowed:
                raise ValueError(
                    f"{name}={kwargs[name]!r} is not supported with seats_per_table={seats} "
                    f"(every seat is a learner, with a fixed bet and unlimited credit)"
                )
        if "others" in kwargs or "seat" in kwargs:
            raise ValueError(
                f"seats_per_table={seats}: every seat is a learner; 'others' and 'seat' do "
                f"not apply"
            )

    @classmethod
    def table(cls, *args: Any, **kwargs: Any) -> EnvSettings:
        """The settings of the multi-agent table (``BlackjackAECEnv``'s arguments):
        ``num_seats`` seats, ``others`` the seats the env plays, every other seat an agent
        (:class:`TableArgs`, or one ``TableArgs`` whole)."""
        a = TableArgs.bind(args, kwargs)
        rules, num_seats, others, obs_mode, rounds, bet = (
            a.rules, a.num_seats, a.others, a.obs_mode, a.rounds, a.bet
        )
        insurance_decisions, illegal_action, render_mode = (
            a.insurance_decisions, a.illegal_action, a.render_mode
        )
        rules, space = _read_rules_arg(rules, a.decks)
        rules, space = _with_seats(rules, space, _num_seats(num_seats, rules))
        n = rules.seats
        mode = _obs_mode(
            obs_mode, (ObsMode.MULTIDISCRETE, ObsMode.VECTOR, ObsMode.FEATURES, ObsMode.DICT)
        )
        observe_rules = _observe_rules(a.observe_rules, mode)
        rounds_i = _int_or_none("rounds", rounds, 1, None, "an int >= 1")
        bet_i = _bet(bet, rules)
        illegal = _illegal_action(illegal_action, (IllegalAction.MAP, IllegalAction.RAISE))
        insurance = _flag("insurance_decisions", insurance_decisions)
        if insurance and space is not None:
            _every_rule_set_insures(space)
        render_mode = _render_mode(render_mode, TABLE_RENDER_MODES)
        if others is not None and not isinstance(others, Mapping):
            raise ValueError(
                f"others={others!r} must be a mapping seat index -> strategy name or "
                f"callable(table) -> Action"
            )
        fixed: dict[int, Any] = {}
        for seat, spec in dict(others or {}).items():
            if not _is_int(seat) or not 0 <= seat < n:
                raise ValueError(f"others: seat {seat!r} must be an int from 0 to {n - 1}")
            make_strategy(spec, rules, 0)  # ValueError names the known strategies
            fixed[int(seat)] = spec
        if len(fixed) == n:
            raise ValueError("others covers every seat: at least one seat must be an agent")
        return cls(
            rules=rules,
            seat=0,
            others=tuple(sorted(fixed.items(), key=lambda kv: kv[0])),
            obs_mode=mode,
            rounds_per_episode=rounds_i,
            bankroll=None,
            bet=bet_i,
            bet_sizes=(),
            insurance_decisions=insurance,
            illegal_action=illegal,
            illegal_penalty=0.0,
            render_mode=render_mode,
            rule_space=space,
            observe_rules=observe_rules,
        )


# ------------------------------------------------------------------ field checks
def _others(others: Any, rules: Rules, seat: int) -> tuple[tuple[int, Any], ...]:
    """The single env's ``others`` checked: ``(seat, strategy spec)`` for every seat but
    the learner's ``seat``, in seat order (one spec for all, or one per other seat)."""
    n_others = rules.seats - 1
    if isinstance(others, (str, bytes)) or callable(others):
        # checked even when no other seat uses it (bytes: refused there, by name)
        make_strategy(cast(Any, others), rules, 0)
        specs: list[Any] = [others] * n_others
    elif isinstance(others, Sequence):
        specs = list(others)
        if len(specs) != n_others:
            raise ValueError(
                f"others has {len(specs)} entries; the table has {n_others} other seat(s)"
            )
    else:
        raise ValueError(
            f"others={others!r} must be a strategy name, a callable(table) -> Action, "
            f"or a sequence of those (one per other seat)"
        )
    for spec in specs:
        make_strategy(spec, rules, 0)  # ValueError names the known strategies
    other_seats = [s for s in range(rules.seats) if s != seat]
    return tuple(zip(other_seats, specs, strict=True))


def _is_default(value: Any, default: Any) -> bool:
    """``value`` is a field's ``default`` (the same object, or an equal one of its type)."""
    return value is default or (type(value) is type(default) and bool(value == default))


def _with_decks(rules: Rules, decks: Any) -> Rules:
    """``rules`` with the ``decks`` argument applied (:data:`KEEP_DECKS` keeps them); a bad
    value raises ``ValueError`` naming ``decks``."""
    if isinstance(decks, str) and decks == KEEP_DECKS:
        return rules
    if decks is not None and (not _is_int(decks) or decks < 1):
        raise ValueError(
            f"decks={decks!r} must be an int >= 1, None (an infinite deck) or "
            f"{KEEP_DECKS!r} (the rules' own)"
        )
    try:
        return rules.replace(decks=None if decks is None else int(decks))
    except ValueError as exc:
        raise ValueError(f"decks={decks!r}: {exc}") from None


def _check_batched_rules(rules: Rules, space: RuleSpace | None = None) -> None:
    """What the batched tables cannot play (their one check of the rules)."""
    if True in _values(rules, space, "bet_raising"):
        raise ValueError("rules with bet_raising=True are not supported by the batched env")


def check_one_shoe(space: RuleSpace | None) -> None:
    """The numpy batched tables hold one shoe size: a rule space whose shoes differ is
    refused there in one line (the JAX table pads its shoe to the largest)."""
    if space is not None and space.shoe_decks[0] != space.shoe_decks[1]:
        low, high = space.shoe_decks
        raise ValueError(
            f"rules: the numpy batched env plays one shoe size per env; the rule space "
            f"{space.name!r} has shoes of {low} to {high} decks: use one deck count "
            f"(penetration may vary), the single env, or the JAX table (BlackjackJax, "
            f"blackjack_env/BlackjackJax-v0), which pads its shoe to the largest"
        )


def _read_rules_arg(value: Any, decks: Any) -> tuple[Rules, RuleSpace | None]:
    """The ``rules`` argument (a rule set or a rule space) with the ``decks`` argument
    applied: the rules (a space's first rule set) and the space (None for fixed rules)."""
    given = read_rules_or_space(value)
    if isinstance(given, Rules):
        return _with_decks(given, decks), None
    varied = [a for a in given.axis_names if a in ENV_FIXED_AXES]
    if varied:
        raise ValueError(
            f"rules: the rule space {given.name!r} varies {varied[0]}, which an env keeps "
            f"fixed (the table limits and seats); set it in the space's base"
        )
    space = given
    if not (isinstance(decks, str) and decks == KEEP_DECKS):
        _with_decks(given.base, decks)  # the value checked as for fixed rules
        try:
            space = given.replace_base(decks=None if decks is None else int(decks))
        except ValueError as exc:
            raise ValueError(f"decks={decks!r}: {exc}") from None
    return space.rules_at(0), space


def _with_seats(
    rules: Rules, space: RuleSpace | None, seats: int
) -> tuple[Rules, RuleSpace | None]:
    """``rules`` and ``space`` with ``seats`` seats at the table (checked by the caller)."""
    if space is None:
        return rules.replace(seats=seats), None
    space = space.replace_base(seats=seats)
    return space.rules_at(0), space


def _values(rules: Rules, space: RuleSpace | None, name: str) -> tuple[Any, ...]:
    """The values the rule field ``name`` takes: the space's axis, or ``rules``' own."""
    if space is not None:
        axes = dict(space.axes)
        if name in axes:
            return axes[name]
    return (getattr(rules, name),)


def _every_rule_set_insures(space: RuleSpace) -> None:
    """``insurance_decisions=True`` under a rule space: every rule set offers insurance."""
    if False in _values(space.base, space, "insurance"):
        raise ValueError(
            f"insurance_decisions=True needs rules that offer insurance, in every rule set "
            f"of the space {space.name!r} (insurance=True in its base, not an axis)"
        )


def _observe_rules(value: Any, mode: ObsMode) -> bool:
    """The ``observe_rules`` argument, checked against the observation mode."""
    flag = _flag("observe_rules", value)
    if flag and mode not in RULE_MODES:
        raise ValueError(
            f"observe_rules=True cannot be carried by obs_mode={mode.value!r}; the modes "
            f"that carry the rule features are "
            f"{', '.join(repr(m.value) for m in RULE_MODES)}"
        )
    return flag


def _obs_mode(value: Any, allowed: tuple[ObsMode, ...]) -> ObsMode:
    try:
        mode = ObsMode(value)
    except ValueError:
        mode = None
    if mode is None or mode not in allowed:
        if mode is ObsMode.TUPLE:
            raise ValueError(
                "obs_mode='tuple' cannot show whose turn it is or a settled round; choose "
                f"one of {', '.join(repr(m.value) for m in allowed)}"
            )
        raise ValueError(
            f"obs_mode={value!r} is not allowed; choose one of "
            f"{', '.join(repr(m.value) for m in allowed)}"
        )
    return mode


def _illegal_action(value: Any, allowed: tuple[IllegalAction, ...]) -> IllegalAction:
    try:
        mode = IllegalAction(value)
    except ValueError:
        mode = None
    if mode is None or mode not in allowed:
        raise ValueError(
            f"illegal_action={value!r} is not allowed; choose one of "
            f"{', '.join(repr(m.value) for m in allowed)}"
        )
    return mode


def _bet(bet: Any, rules: Rules) -> int:
    if bet is None:
        return rules.min_bet
    if not _is_int(bet) or not rules.min_bet <= bet <= rules.max_bet:
        raise ValueError(
            f"bet={bet!r} must be an int within the table limits "
            f"{rules.min_bet}..{rules.max_bet}"
        )
    return int(bet)


def check_bet_sizes(bet_sizes: Any, name: str = "bet_sizes", of: str = "") -> tuple[int, ...]:
    """``bet_sizes`` as a tuple of ints: None (a fixed bet) is ``()``; otherwise strictly
    increasing whole numbers >= 1 (a sequence or a numpy array), else ``ValueError``
    naming ``name`` (the argument, or a command's option such as ``--bet-sizes``; ``of``:
    what they are multiples of, said in the message). The one check of their shape;
    :meth:`~blackjack_env.envs.EnvSettings.from_args` then checks them against the table
    limits, and the commands' ``--bet-sizes``
    (:func:`blackjack_env.commands.bet_sizes_option`) is read through it."""
    if bet_sizes is None:
        return ()
    allowed = (
        f"{name}={bet_sizes!r} must be None or strictly increasing ints >= 1{of}, e.g. "
        f"(1, 2, 4, 8)"
    )
    if isinstance(bet_sizes, (str, bytes)) or not isinstance(bet_sizes, (Sequence, np.ndarray)):
        raise ValueError(allowed)
    sizes = tuple(bet_sizes)
    if (
        not sizes
        or any(not _is_int(s) or s < 1 for s in sizes)
        or list(sizes) != sorted(set(sizes))
    ):
        raise ValueError(allowed)
    return tuple(int(s) for s in sizes)


def _bet_sizes(bet_sizes: Any, bet: int, rules: Rules) -> tuple[int, ...]:
    """:func:`check_bet_sizes`, then each size times ``bet`` within the table limits."""
    sizes = check_bet_sizes(bet_sizes, of=f" (multiples of bet={bet})")
    outside = [s for s in sizes if not rules.min_bet <= s * bet <= rules.max_bet]
    if outside:
        raise ValueError(
            f"bet_sizes {outside} times bet={bet} fall outside the table limits "
            f"{rules.min_bet}..{rules.max_bet}"
        )
    return sizes


def _penalty(value: Any) -> float:
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not (math.isfinite(value) and value >= 0)
    ):
        raise ValueError(f"illegal_penalty={value!r} must be a finite number >= 0")
    return float(value)


# ------------------------------------------------------------------ actions, cards, specs
def action_error(action: Any, n: int, names: Sequence[str], where: str = "") -> str | None:
    """The one message every env gives for an action outside ``Discrete(n)``, quoting the
    value as given; None when ``action`` is a valid index. Ints and numpy ints (also as
    0-d arrays) are actions; bools, floats (even whole ones) and anything else are not."""
    value = action.item() if isinstance(action, np.ndarray) and action.shape == () else action
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind not in "iu":
        value = action  # a 0-d float or bool array is quoted as it is
    if not _is_int(value):
        return (
            f"{where}action {action!r} must be an int in 0..{n - 1} "
            f"({', '.join(names)})"
        )
    if not 0 <= value < n:
        return (
            f"{where}action {int(value)} is outside the action space Discrete({n}); "
            f"actions are {', '.join(f'{i} {name}' for i, name in enumerate(names))}"
        )
    return None


def check_action(action: Any, n: int, names: Sequence[str], where: str = "") -> int:
    """``action`` as an index of ``Discrete(n)``, or ``ValueError`` (see :func:`action_error`)."""
    message = action_error(action, n, names, where)
    if message is not None:
        raise ValueError(message)
    return int(action)


def check_reset_options(options: object, known: tuple[str, ...]) -> dict[str, Any]:
    """``reset(options=...)`` validated: a dict whose keys are all in ``known``.

    Raises ``ValueError`` naming the wrong type or the unknown keys and the allowed ones.
    """
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict, got {type(options).__name__}")
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(
            f"unknown reset option(s) {', '.join(map(repr, unknown))}; options are "
            f"{', '.join(map(repr, known))}"
        )
    return options


def check_stack(cards: Any, decks: int | None) -> list[Card]:
    """``reset(options={"cards": ...})``'s cards read and checked before anything changes:
    text or a list of ``Card`` / card text; a finite shoe of ``decks`` decks must hold
    every card named (``ValueError`` otherwise)."""
    return read_stack(cards, decks, name="options['cards']")


def json_ready_spec(spec: Any) -> Any:
    """``spec`` (a Gymnasium ``EnvSpec``) with a ``Rules`` or a ``RuleSpace`` in its kwargs
    replaced by its ``to_dict()``, so ``spec.to_json()`` works and
    ``gymnasium.make(spec)`` builds the same env (the envs read such a dict as rules, or
    as a rule space when it has ``"axes"``)."""
    if spec is None:
        return None
    kwargs = getattr(spec, "kwargs", None)
    if isinstance(kwargs, dict) and isinstance(kwargs.get("rules"), (Rules, RuleSpace)):
        spec = dataclasses.replace(spec, kwargs={**kwargs, "rules": kwargs["rules"].to_dict()})
    return spec
