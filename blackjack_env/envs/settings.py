"""The env settings: one frozen, validated object that every env is built from.

:class:`EnvSettings` holds what a table of learners is configured with (rules and
seats, the learner's seat or the agents' seats, the other seats' strategies, the
observation mode, bets, bankroll, episode length, what an illegal action does,
rendering). It is built and checked here, once: :meth:`EnvSettings.single` for
:class:`~blackjack_env.envs.blackjack.BlackjackEnv` (and, with the batched env's
own limits, :meth:`EnvSettings.batched` for
:class:`~blackjack_env.envs.vector.BlackjackVectorEnv`), :meth:`EnvSettings.table`
for the multi-agent :class:`~blackjack_env.envs.multiagent.BlackjackAECEnv`. A bad
value raises one ``ValueError`` naming the argument, the value and what is allowed.

Whole numbers may be Python or numpy integers (``np.int64(3)``) everywhere; ``bool``
is never read as a number. ``rules`` is a :class:`~blackjack_env.engine.rules.Rules`,
a preset name, or the dict of :meth:`Rules.to_dict` (which is how an env's
``spec`` records a ``Rules``, see :func:`json_ready_spec`).

The helpers :func:`check_action` and :func:`check_stack` give every env the same
checks of an action and of ``reset(options={"cards": ...})``.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, cast

import numpy as np

from blackjack_env.engine.cards import Card
from blackjack_env.engine.rules import PRESETS, Rules, Surrender, preset
from blackjack_env.engine.shoe import read_stack
from blackjack_env.envs.observations import ObsMode
from blackjack_env.envs.step import IllegalAction
from blackjack_env.strategies import make_strategy

__all__ = [
    "EnvSettings",
    "IllegalAction",
    "action_error",
    "check_action",
    "check_stack",
    "json_ready_spec",
    "read_rules",
]

#: render modes of the single env (the batched env does not render; the table: text, printed or not)
SINGLE_RENDER_MODES = ("ansi", "rgb_array", "human")
TABLE_RENDER_MODES = ("ansi", "human")


def _choices(enum: type[Enum]) -> str:
    return ", ".join(repr(m.value) for m in enum)


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


@dataclass(frozen=True)
class EnvSettings:
    """A validated env configuration (build it with :meth:`single`, :meth:`batched` or
    :meth:`table`; the meaning of each field is in the env's docstring).

    Attributes:
        rules: the rules, with ``seats`` set to the table's seats.
        seat: the learner's seat (single and batched env; 0 for the multi-agent table).
        others: ``(seat, strategy spec)`` for every seat the env plays itself, by seat.
        obs_mode, rounds_per_episode, bankroll, bet, bet_sizes, insurance_decisions,
        illegal_action, illegal_penalty, render_mode, info_cards: as the env arguments
        (``bet`` resolved to chips, ``bet_sizes`` a tuple, ``()`` for a fixed bet).
        seats_per_table: the batched env's learner seats per table (1 elsewhere); with
            more than one, ``rules.seats`` is this number.
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
    seats_per_table: int = 1

    @property
    def min_cost(self) -> int:
        """The smallest bet of a round in chips."""
        return self.bet_sizes[0] * self.bet if self.bet_sizes else self.bet

    @property
    def fixed_seats(self) -> dict[int, Any]:
        """Seat -> strategy spec of the seats the env plays itself."""
        return dict(self.others)

    @property
    def agent_seats(self) -> list[int]:
        """The seats played by learners, in seat order."""
        fixed = self.fixed_seats
        return [s for s in range(self.rules.seats) if s not in fixed]

    # ------------------------------------------------------------- builders
    @classmethod
    def single(
        cls,
        rules: Rules | str | Mapping[str, Any] = "vegas-strip",
        num_seats: int | None = None,
        seat: int = 0,
        others: str | Callable[..., Any] | Sequence[Any] = "dealer",
        obs_mode: str = "multidiscrete",
        rounds_per_episode: int | None = 1,
        bankroll: int | None = None,
        bet: int | None = None,
        bet_sizes: Sequence[int] | None = None,
        insurance_decisions: bool = False,
        illegal_action: str = "map",
        illegal_penalty: float = 1.0,
        render_mode: str | None = None,
        info_cards: bool = True,
        **unknown: Any,
    ) -> EnvSettings:
        """The settings of one learner seat (``BlackjackEnv``'s arguments)."""
        if unknown:
            names = [p for p in inspect.signature(cls.single).parameters if p != "unknown"]
            raise ValueError(
                f"unknown argument(s) {', '.join(sorted(unknown))}; BlackjackEnv takes "
                f"{', '.join(names)} (rule fields go in rules=preset(name, field=...) "
                f"or a Rules)"
            )
        rules = read_rules(rules)
        if num_seats is not None:
            rules = rules.replace(seats=_num_seats(num_seats, rules))
        last = rules.seats - 1
        seat_i = _int_or_none("seat", seat, 0, last, f"an int from 0 to {last}")
        if seat_i is None:
            raise ValueError(f"seat=None must be an int from 0 to {rules.seats - 1}")
        mode = _obs_mode(obs_mode, tuple(ObsMode))
        bet_i = _bet(bet, rules)
        sizes = _bet_sizes(bet_sizes, bet_i, rules)
        min_cost = sizes[0] * bet_i if sizes else bet_i
        bankroll_i = _int_or_none(
            "bankroll", bankroll, min_cost, None,
            f"None (unlimited credit) or an int >= {min_cost} (the smallest bet)",
        )
        insurance_decisions = _flag("insurance_decisions", insurance_decisions)
        early = rules.surrender is Surrender.EARLY
        if mode is ObsMode.TUPLE and (sizes or insurance_decisions or early):
            raise ValueError(
                "obs_mode='tuple' cannot show a bet step or a pre-peek decision: use "
                "'multidiscrete', 'vector' or 'dict' with bet_sizes, insurance_decisions "
                "or early surrender"
            )
        rounds = _int_or_none(
            "rounds_per_episode", rounds_per_episode, 1, None, "an int >= 1 or None (no limit)"
        )
        illegal = _illegal_action(illegal_action, tuple(IllegalAction))
        penalty = _penalty(illegal_penalty)
        info_cards = _flag("info_cards", info_cards)
        render_mode = _render_mode(render_mode, SINGLE_RENDER_MODES)
        # ---- other seats: one spec each, in seat order
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
        other_seats = [s for s in range(rules.seats) if s != seat_i]
        return cls(
            rules=rules,
            seat=seat_i,
            others=tuple(zip(other_seats, specs, strict=True)),
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
        )

    @classmethod
    def batched(cls, seats_per_table: int = 1, **kwargs: Any) -> EnvSettings:
        """The settings of the batched env: those of :meth:`single`, with one seat, no
        bet raising and no rendering; or ``seats_per_table`` learner seats at each table
        (fixed bet, unlimited credit, illegal actions mapped or raised)."""
        if not _is_int(seats_per_table) or not 1 <= seats_per_table <= 7:
            raise ValueError(f"seats_per_table={seats_per_table!r} must be an int from 1 to 7")
        if seats_per_table > 1:
            return cls._batched_seats(int(seats_per_table), kwargs)
        if kwargs.get("render_mode") is not None:
            raise ValueError(
                f"render_mode={kwargs['render_mode']!r}: the batched env does not render; "
                f"use the single env (gymnasium.make) to watch a table"
            )
        settings = cls.single(**kwargs)
        rules = settings.rules
        if rules.seats != 1:
            raise ValueError(
                f"the batched env seats one learner per table; got {rules.seats} seats "
                f"(num_seats / rules.seats): use the single env or the multi-agent env"
            )
        _check_batched_rules(rules)
        return settings

    @classmethod
    def _batched_seats(cls, seats: int, kwargs: dict[str, Any]) -> EnvSettings:
        """:meth:`batched` with ``seats`` learner seats per table."""
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
        # (the rules' own seats are replaced by seats_per_table, as num_seats does): the
        # settings of one seat, checked once, then seated seats_per_table times
        rules_1 = read_rules(kwargs.get("rules", "vegas-strip")).replace(seats=1)
        settings = cls.single(**{**kwargs, "rules": rules_1})
        _check_batched_rules(settings.rules)
        if settings.illegal_action is IllegalAction.PENALIZE:
            raise ValueError(
                f"illegal_action='penalize' is not supported with seats_per_table={seats}; "
                f"use 'map' or 'raise' (as the multi-agent table)"
            )
        rules = settings.rules
        if seats > rules.max_seats:
            raise ValueError(
                f"seats_per_table={seats} is not allowed; these rules seat 1 to "
                f"{rules.max_seats} players (give rules with max_seats raised)"
            )
        return dataclasses.replace(
            settings, rules=rules.replace(seats=seats), seats_per_table=seats
        )

    @classmethod
    def table(
        cls,
        rules: Rules | str | Mapping[str, Any] = "vegas-strip",
        num_seats: int = 3,
        others: Mapping[int, Any] | None = None,
        obs_mode: str = "multidiscrete",
        rounds: int = 1,
        bet: int | None = None,
        insurance_decisions: bool = False,
        illegal_action: str = "map",
        render_mode: str | None = None,
    ) -> EnvSettings:
        """The settings of the multi-agent table (``BlackjackAECEnv``'s arguments):
        ``num_seats`` seats, ``others`` the seats the env plays, every other seat an agent."""
        rules = read_rules(rules)
        rules = rules.replace(seats=_num_seats(num_seats, rules))
        n = rules.seats
        mode = _obs_mode(obs_mode, (ObsMode.MULTIDISCRETE, ObsMode.VECTOR, ObsMode.DICT))
        rounds_i = _int_or_none("rounds", rounds, 1, None, "an int >= 1")
        bet_i = _bet(bet, rules)
        illegal = _illegal_action(illegal_action, (IllegalAction.MAP, IllegalAction.RAISE))
        insurance = _flag("insurance_decisions", insurance_decisions)
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
        )


# ------------------------------------------------------------------ field checks
def _check_batched_rules(rules: Rules) -> None:
    """What the batched tables cannot play (their one check of the rules)."""
    if rules.bet_raising:
        raise ValueError("rules with bet_raising=True are not supported by the batched env")


def _obs_mode(value: Any, allowed: tuple[ObsMode, ...]) -> ObsMode:
    try:
        mode = ObsMode(value)
    except ValueError:
        mode = None
    if mode is None or mode not in allowed:
        if mode is ObsMode.TUPLE:
            raise ValueError(
                "obs_mode='tuple' cannot show whose turn it is or a settled round; choose "
                "'multidiscrete', 'vector' or 'dict'"
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


def _bet_sizes(bet_sizes: Any, bet: int, rules: Rules) -> tuple[int, ...]:
    if bet_sizes is None:
        return ()
    allowed = (
        f"bet_sizes={bet_sizes!r} must be None or strictly increasing ints >= 1 "
        f"(multiples of bet={bet}), e.g. (1, 2, 4, 8)"
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
    sizes = tuple(int(s) for s in sizes)
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


def check_stack(cards: Any, decks: int | None) -> list[Card]:
    """``reset(options={"cards": ...})``'s cards read and checked before anything changes:
    text or a list of ``Card`` / card text; a finite shoe of ``decks`` decks must hold
    every card named (``ValueError`` otherwise)."""
    return read_stack(cards, decks, name="options['cards']")


def json_ready_spec(spec: Any) -> Any:
    """``spec`` (a Gymnasium ``EnvSpec``) with a ``Rules`` in its kwargs replaced by its
    :meth:`Rules.to_dict`, so ``spec.to_json()`` works and ``gymnasium.make(spec)`` builds
    the same env (the envs read such a dict as rules)."""
    if spec is None:
        return None
    kwargs = getattr(spec, "kwargs", None)
    if isinstance(kwargs, dict) and isinstance(kwargs.get("rules"), Rules):
        spec = dataclasses.replace(spec, kwargs={**kwargs, "rules": kwargs["rules"].to_dict()})
    return spec
