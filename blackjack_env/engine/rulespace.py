"""Rule spaces: named axes of casino rules, a seeded sampler, and a fixed held-out test set.

A :class:`RuleSpace` is a base :class:`~blackjack_env.engine.rules.Rules` and a few
*axes*: rule fields with the values each may take. Its rule sets are the product of the
axes (every other field as in the base), in a fixed order (the first axis varies
slowest): ``len(space)`` of them, each one
:class:`~blackjack_env.engine.rules.Rules`. It draws rule sets from a
``numpy.random.Generator`` (:meth:`RuleSpace.sample`, :meth:`RuleSpace.sample_many`),
tells whether a rule set belongs to it (:meth:`RuleSpace.contains`,
:meth:`RuleSpace.check`, one line naming the field and what the space allows), lists its
rule sets (``for rules in space``, :meth:`RuleSpace.rules_at`) and round-trips through a
JSON-ready dict (:meth:`RuleSpace.to_dict`, :meth:`RuleSpace.from_dict`).

Axes
    Each axis is a field of :class:`~blackjack_env.engine.rules.Rules` (not ``seats``:
    the seats at a table fix
    the envs' arrays) with a tuple of values, read as ``Rules`` reads them (enums from
    their strings, ``"3:2"`` payouts, numpy numbers). A numeric field may take a
    :class:`Grid` instead: ``Grid(0.5, 0.9, 0.1)`` is the values 0.5, 0.6, 0.7, 0.8, 0.9
    (exact decimal steps, both ends included). Spaces are finite on purpose: a grid
    keeps every rule set nameable, countable and hashable, which the held-out set needs.
Validity
    Every rule set of a space is a valid ``Rules``. The rules' own constraints each tie
    at most two fields (e.g. ``insurance=True`` needs ``hole_card='peek'``), so the space
    checks each value against the base and each pair of values of two axes when it is
    built; a refused pair raises one line naming both axes and values.
Shapes
    The envs fix their arrays per space, so every rule set of a space shares what fixes
    them: an infinite deck or finite shoes (``rules.decks is None``), and the playing
    actions (:attr:`RuleSpace.n_play`: 2 when no hand may ever double, split or
    surrender, :func:`~blackjack_env.engine.play.stand_hit_only`; 5 otherwise). A
    space that mixes them is refused when built, in one line. ``stand_hit_only`` is
    checked over the product of the axes that can change it (:data:`SHAPE_FIELDS`: the
    double rule with the card values that make its totals, the split limit and the
    surrender rule; every other field only changes *where* those are offered, a claim
    ``tests/engine/test_rulespace.py`` checks on random rule sets). Hands per seat may
    differ: batched tables pad to :attr:`RuleSpace.max_hands`.
Held out
    With ``hold_out=k`` (k >= 2) one rule set in about k is held out for testing: those
    whose *key* (the SHA-256 of the JSON of the rule set's values on the space's axes,
    in :meth:`~blackjack_env.engine.rules.Rules.to_dict` form, keys sorted, no spaces)
    read as a big-endian integer
    from its first 8 bytes is divisible by k (:meth:`RuleSpace.is_held_out`). The
    sampler never draws them (it rejects and draws again, so training draws are uniform
    over the other rule sets), which makes the two sets disjoint by construction, not by
    luck; :meth:`RuleSpace.held_out_rules` lists them in the order of their keys. The
    key reads only the axes' values, so it does not change when ``Rules`` gains a field.

:func:`default_space` is the versioned space of the project's experiments (``"v1"``,
:data:`DEFAULT_AXES_V1`: 5,184 infinite-deck rule sets, 685 held out) and
:func:`held_out` its fixed test set of 256 rule sets, shipped as the package's
``held_out_v1.json`` (a test regenerates it and checks it is unchanged).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, cached_property
from importlib import resources
from typing import Any

import numpy as np

from blackjack_env.engine import play
from blackjack_env.engine.rules import FIELD_NAMES, Rules

__all__ = [
    "DEFAULT_AXES_V1",
    "DEFAULT_VERSIONS",
    "HELD_OUT_SIZE",
    "SHAPE_FIELDS",
    "Grid",
    "RuleSpace",
    "default_space",
    "held_out",
]

#: Fields that cannot be axes: the seats at a table fix the envs' arrays.
FIXED_FIELDS: tuple[str, ...] = ("seats",)

#: The fields whose values can change whether a rule set offers only stand and hit
#: (:func:`~blackjack_env.engine.play.stand_hit_only`, hence the action count): the double
#: rule (with the card values, which decide the two-card totals it allows), the split
#: limit and surrender.
SHAPE_FIELDS: tuple[str, ...] = ("double", "max_split_hands", "surrender", "card_values")

#: Rule sets in each version of the held-out test set (:func:`held_out`).
HELD_OUT_SIZE = 256

#: Spaces up to this size keep their held-out flags as one array (built on first use).
_FLAG_TABLE_MAX = 1 << 16


@dataclass(frozen=True)
class Grid:
    """The values ``low, low + step, ..., high`` of a numeric rule field (both ends
    included; exact decimal steps: ``Grid(0.5, 0.9, 0.1)`` gives 0.5, 0.6, 0.7, 0.8, 0.9).
    Ints give ints (``Grid(1, 8, 1)``: decks 1 to 8)."""

    low: float
    high: float
    step: float

    def __post_init__(self) -> None:
        for name in ("low", "high", "step"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer,
                                                                   np.floating)):
                raise ValueError(f"Grid {name}={value!r} must be a number")
            if not math.isfinite(value):
                raise ValueError(f"Grid {name}={value!r} must be finite")
        if not self.step > 0:
            raise ValueError(f"Grid step={self.step!r} must be > 0")
        if self.high < self.low:
            raise ValueError(f"Grid high={self.high!r} must be >= low={self.low!r}")
        if len(self.values()) > 10_000:
            raise ValueError(
                f"Grid({self.low}, {self.high}, {self.step}) has more than 10000 values; "
                f"use a coarser step"
            )

    def values(self) -> tuple[Any, ...]:
        """The grid's values, in increasing order."""
        ints = all(isinstance(v, (int, np.integer)) for v in (self.low, self.high, self.step))
        low, high, step = (Fraction(str(v)) for v in (self.low, self.high, self.step))
        count = math.floor((high - low) / step) + 1
        points = [low + k * step for k in range(count)]
        if ints:
            return tuple(int(p) for p in points)
        return tuple(float(p) for p in points)

    def to_list(self) -> list[Any]:
        return [self.low, self.high, self.step]


def _field_values(base: Rules, name: str, spec: Any) -> tuple[Any, ...]:
    """An axis's values read as ``Rules`` reads them (one ``ValueError`` line otherwise)."""
    if isinstance(spec, Grid):
        raw: Sequence[Any] = spec.values()
    elif isinstance(spec, Mapping) and set(spec) == {"grid"}:
        grid = spec["grid"]
        if not isinstance(grid, Sequence) or len(grid) != 3:
            raise ValueError(f"RuleSpace axis {name!r}: grid must be [low, high, step]")
        raw = Grid(*grid).values()
    elif isinstance(spec, (str, bytes)) or not isinstance(spec, (Sequence, np.ndarray)):
        raise ValueError(
            f"RuleSpace axis {name!r}={spec!r} must be a tuple of values (e.g. (False, True)) "
            f"or a Grid(low, high, step)"
        )
    else:
        raw = list(spec)
    if not raw:
        raise ValueError(f"RuleSpace axis {name!r} has no values")
    out: list[Any] = []
    for value in raw:
        try:
            rules = base.replace(**{name: value})
        except ValueError as exc:
            raise ValueError(f"RuleSpace axis {name!r}: {exc}") from None
        normal = getattr(rules, name)
        if normal in out:
            raise ValueError(
                f"RuleSpace axis {name!r} lists {_shown(rules, name)} twice; each value once"
            )
        out.append(normal)
    return tuple(out)


def _shown(rules: Rules, name: str) -> str:
    """A field's value as :meth:`~blackjack_env.engine.rules.Rules.to_dict` writes it,
    quoted for a message."""
    return repr(rules.to_dict()[name])


def _canonical(point: Mapping[str, Any]) -> str:
    """The JSON text a key is the hash of (sorted keys, no spaces)."""
    return json.dumps(point, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class RuleSpace:
    """A set of rule sets, a base :class:`~blackjack_env.engine.rules.Rules` and named
    axes (see the module docstring).

    Args:
        base: every field that is not an axis takes its value here.
        axes: rule field name -> its values (a tuple, read as ``Rules`` reads them) or a
            :class:`Grid`; the first axis varies slowest in the space's order.
        name: a name for the space (e.g. ``"default-v1"``), recorded in :meth:`to_dict`.
        hold_out: hold out about one rule set in ``hold_out`` (0: none), see
            :meth:`is_held_out`; the sampler never draws a held-out rule set.

    Raises ``ValueError`` (one line) for an unknown field, a field that cannot be an axis
    (``seats``), a value the field does not allow, two values that cannot combine, or a
    space whose rule sets would differ in the envs' shapes (finite and infinite decks,
    or 2 and 5 playing actions).
    """

    base: Rules
    axes: tuple[tuple[str, tuple[Any, ...]], ...]
    name: str = "custom"
    hold_out: int = 0
    #: how each axis was given (a Grid stays a grid in :meth:`to_dict`)
    grids: tuple[tuple[str, Grid], ...] = field(default=(), compare=False, repr=False)

    def __init__(
        self,
        base: Rules,
        axes: Mapping[str, Any] | Sequence[tuple[str, Any]] = (),
        name: str = "custom",
        hold_out: int = 0,
    ) -> None:
        if not isinstance(base, Rules):
            raise ValueError(f"RuleSpace base must be a Rules, got {type(base).__name__}")
        items = list(axes.items()) if isinstance(axes, Mapping) else list(axes)
        if not isinstance(name, str) or not name:
            raise ValueError(f"RuleSpace name={name!r} must be a non-empty string")
        if isinstance(hold_out, bool) or not isinstance(hold_out, (int, np.integer)) or (
            hold_out < 0 or hold_out == 1
        ):
            raise ValueError(
                f"RuleSpace hold_out={hold_out!r} must be 0 (nothing held out) or an int >= 2 "
                f"(one rule set in hold_out held out)"
            )
        normal: list[tuple[str, tuple[Any, ...]]] = []
        grids: list[tuple[str, Grid]] = []
        seen: set[str] = set()
        for entry in items:
            if not (isinstance(entry, tuple) and len(entry) == 2):
                raise ValueError(f"RuleSpace axes: {entry!r} is not a (field, values) pair")
            axis, spec = entry
            if axis not in FIELD_NAMES:
                raise ValueError(
                    f"RuleSpace: unknown rule field {axis!r} as an axis; fields are "
                    f"{', '.join(f for f in FIELD_NAMES if f not in FIXED_FIELDS)}"
                )
            if axis in FIXED_FIELDS:
                raise ValueError(
                    f"RuleSpace: {axis!r} cannot be an axis (the seats at a table fix the "
                    f"envs' arrays); set it in the base"
                )
            if axis in seen:
                raise ValueError(f"RuleSpace: axis {axis!r} given twice")
            seen.add(axis)
            normal.append((axis, _field_values(base, axis, spec)))
            if isinstance(spec, Grid):
                grids.append((axis, spec))
            elif isinstance(spec, Mapping):
                grids.append((axis, Grid(*spec["grid"])))
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "axes", tuple(normal))
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "hold_out", int(hold_out))
        object.__setattr__(self, "grids", tuple(grids))
        self._check_pairs()
        self._check_shapes()

    # ------------------------------------------------------------- checks
    def _check_pairs(self) -> None:
        """Every value with the base was checked by ``_field_values``; here every pair."""
        base = self.base
        for (a, va), (b, vb) in itertools.combinations(self.axes, 2):
            for x, y in itertools.product(va, vb):
                try:
                    base.replace(**{a: x, b: y})
                except ValueError as exc:
                    raise ValueError(
                        f"RuleSpace: axes {a}={_shown(base.replace(**{a: x}), a)} and "
                        f"{b}={_shown(base.replace(**{b: y}), b)} cannot combine: {exc}"
                    ) from None

    def _check_shapes(self) -> None:
        decks = dict(self.axes).get("decks", (self.base.decks,))
        kinds = {d is None for d in decks}
        if len(kinds) > 1:
            finite = [d for d in decks if d is not None]
            raise ValueError(
                f"RuleSpace axis 'decks' mixes an infinite deck (None) with finite shoes "
                f"{finite}: the envs' arrays differ between them; make one space of each"
            )
        shape_axes = [(n, v) for n, v in self.axes if n in SHAPE_FIELDS]
        found: dict[bool, Rules] = {}
        for values in itertools.product(*(v for _, v in shape_axes)):
            rules = self.base.replace(**dict(zip((n for n, _ in shape_axes), values,
                                                 strict=True)))
            found.setdefault(play.stand_hit_only(rules), rules)
            if len(found) > 1:
                raise ValueError(
                    f"RuleSpace mixes action counts: {found[True].summary()} offers only "
                    f"stand and hit (2 actions), {found[False].summary()} offers 5; the "
                    f"envs' action space is fixed per space: keep some double, split or "
                    f"surrender in every rule set, or in none"
                )

    # ------------------------------------------------------------- size, order
    @property
    def axis_names(self) -> tuple[str, ...]:
        """The axes' fields, in the space's order."""
        return tuple(n for n, _ in self.axes)

    @property
    def size(self) -> int:
        """The number of distinct rule sets (the product of the axes' sizes)."""
        return math.prod(len(v) for _, v in self.axes)

    def __len__(self) -> int:
        return self.size

    @cached_property
    def _radix(self) -> tuple[int, ...]:
        return tuple(len(v) for _, v in self.axes)

    def rules_at(self, index: int) -> Rules:
        """The rule set at ``index`` (0 .. ``size - 1``) of the space's order (the first
        axis varies slowest, as ``itertools.product``)."""
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not (
            0 <= index < self.size
        ):
            raise ValueError(
                f"index={index!r} must be an int from 0 to {self.size - 1} (the space's size)"
            )
        return self._rules_cached(int(index))

    def _rules_cached(self, index: int) -> Rules:
        cache = self._rules_cache
        rules = cache.get(index)
        if rules is None:
            changes: dict[str, Any] = {}
            rest = index
            for (axis, values), size in zip(reversed(self.axes), reversed(self._radix),
                                            strict=True):
                rest, k = divmod(rest, size)
                changes[axis] = values[k]
            rules = self.base.replace(**changes) if changes else self.base
            if len(cache) < _FLAG_TABLE_MAX:
                cache[index] = rules
        return rules

    @cached_property
    def _rules_cache(self) -> dict[int, Rules]:
        return {}

    def _index_of(self, rules: Rules) -> int:
        index = 0
        for (axis, values), size in zip(self.axes, self._radix, strict=True):
            index = index * size + values.index(getattr(rules, axis))
        return index

    def replace_base(self, **changes: Any) -> RuleSpace:
        """The space with some base fields changed (the envs' ``num_seats`` and ``decks``
        arguments); a field that is an axis raises ``ValueError`` (one line)."""
        axes = [n for n in changes if n in self.axis_names]
        if axes:
            raise ValueError(
                f"{axes[0]} is an axis of the rule space {self.name!r}; it cannot also be "
                f"set for every rule set (change the space's axis instead)"
            )
        grids = dict(self.grids)
        spec = {n: grids.get(n, v) for n, v in self.axes}
        return RuleSpace(self.base.replace(**changes), spec, self.name, self.hold_out)

    def index(self, rules: Rules) -> int:
        """The position of ``rules`` in the space's order (``ValueError`` outside it)."""
        self.check(rules)
        return self._index_of(rules)

    def __iter__(self) -> Iterator[Rules]:
        """Every rule set of the space, in its order."""
        return (self._rules_cached(i) for i in range(self.size))

    @property
    def max_hands(self) -> int:
        """The most hands a seat can hold under any rule set of the space (the batched
        tables' padded hand count)."""
        return max(dict(self.axes).get("max_split_hands", (self.base.max_split_hands,)))

    @property
    def infinite(self) -> bool:
        """The space's rule sets draw from an infinite deck (all of them, or none)."""
        return self.base.replace(**{n: v[0] for n, v in self.axes}).decks is None

    @property
    def shoe_decks(self) -> tuple[int | None, int | None]:
        """The fewest and the most decks in a shoe of the space (``Rules.shoe_decks``;
        ``(None, None)`` for an infinite deck)."""
        if self.infinite:
            return None, None
        axes = dict(self.axes)
        first = self.base.replace(**{n: v[0] for n, v in self.axes})
        counts = [
            first.replace(decks=d, seats_per_deck=k).shoe_decks
            for d, k in itertools.product(
                axes.get("decks", (first.decks,)),
                axes.get("seats_per_deck", (first.seats_per_deck,)),
            )
        ]
        finite = [c for c in counts if c is not None]
        return min(finite), max(finite)

    @property
    def n_play(self) -> int:
        """The playing actions every rule set of the space offers, 2 (stand and hit) or 5
        (double, split and surrender too); an env that asks insurance decisions adds
        ``INSURE`` (6)."""
        first = self.base.replace(**{n: v[0] for n, v in self.axes})
        return 2 if play.stand_hit_only(first) else 5

    # ------------------------------------------------------------- membership
    def contains(self, rules: Any) -> bool:
        """Whether ``rules`` (a :class:`~blackjack_env.engine.rules.Rules`) is one of the
        space's rule sets."""
        return isinstance(rules, Rules) and self._outside(rules) is None

    def check(self, rules: Any) -> None:
        """``ValueError`` (one line: the field, its value, what the space allows) unless
        ``rules`` is one of the space's rule sets."""
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a Rules, got {type(rules).__name__}")
        message = self._outside(rules)
        if message is not None:
            raise ValueError(message)

    def _outside(self, rules: Rules) -> str | None:
        axes = dict(self.axes)
        shown = rules.to_dict()
        for name in FIELD_NAMES:
            value = getattr(rules, name)
            if name in axes:
                if value not in axes[name]:
                    allowed = ", ".join(_shown(self.base.replace(**{name: v}), name)
                                        for v in axes[name])
                    return (
                        f"rules outside the space {self.name!r}: {name}={shown[name]!r} is "
                        f"not one of the axis's values ({allowed})"
                    )
            elif value != getattr(self.base, name):
                return (
                    f"rules outside the space {self.name!r}: {name}={shown[name]!r}, but "
                    f"{name} is not an axis of the space: it must be "
                    f"{self.base.to_dict()[name]!r} (the base's)"
                )
        return None

    # ------------------------------------------------------------- held out
    def key(self, rules: Rules) -> str:
        """The hex SHA-256 of ``rules``'s values on the space's axes (the held-out key;
        see the module docstring)."""
        self.check(rules)
        return self._key(rules)

    def _key(self, rules: Rules) -> str:
        shown = rules.to_dict()
        point = {name: shown[name] for name in self.axis_names}
        return hashlib.sha256(_canonical(point).encode()).hexdigest()

    def _held(self, rules: Rules) -> bool:
        return self.hold_out >= 2 and int(self._key(rules)[:16], 16) % self.hold_out == 0

    def is_held_out(self, rules: Rules) -> bool:
        """Whether ``rules`` (in the space: ``ValueError`` otherwise) is held out for
        testing: the first 8 bytes of :meth:`key` as an integer divisible by
        ``hold_out``. The sampler never draws such a rule set."""
        self.check(rules)
        return self._held(rules)

    @cached_property
    def _held_flags(self) -> np.ndarray:
        """Held out, by index (spaces up to ``_FLAG_TABLE_MAX`` rule sets)."""
        return np.array([self._held(r) for r in self], dtype=bool)

    def _held_at(self, indices: np.ndarray) -> np.ndarray:
        if self.hold_out < 2:
            return np.zeros(indices.shape, dtype=bool)
        if self.size <= _FLAG_TABLE_MAX:
            return self._held_flags.take(indices)
        return np.array([self._held(self._rules_cached(int(i))) for i in indices], dtype=bool)

    def held_out_rules(self) -> tuple[Rules, ...]:
        """Every held-out rule set, in the order of their keys (their hex SHA-256)."""
        if self.hold_out < 2:
            return ()
        held = [(self._key(r), r) for r in self if self._held(r)]
        return tuple(r for _, r in sorted(held, key=lambda kr: kr[0]))

    @property
    def training_size(self) -> int:
        """The number of rule sets the sampler draws from (those not held out)."""
        if self.hold_out < 2:
            return self.size
        if self.size <= _FLAG_TABLE_MAX:
            return self.size - int(np.count_nonzero(self._held_flags))
        return sum(1 for r in self if not self._held(r))

    # ------------------------------------------------------------- sampling
    def sample_indices(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` indices (int64) of rule sets drawn uniformly from the rule sets that are
        not held out, independently (with replacement): each draw takes a uniform index
        of the whole space and draws again while it is held out. Deterministic in
        ``rng``'s state."""
        if not isinstance(rng, np.random.Generator):
            raise ValueError(
                f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), got "
                f"{type(rng).__name__}"
            )
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"n={n!r} must be an int >= 0")
        out = rng.integers(0, self.size, size=int(n), dtype=np.int64)
        redo = self._held_at(out).nonzero()[0]
        while redo.size:
            out[redo] = rng.integers(0, self.size, size=redo.size, dtype=np.int64)
            redo = redo[self._held_at(out[redo])]
        return out

    def sample(self, rng: np.random.Generator) -> Rules:
        """One rule set drawn uniformly from those not held out (``sample_indices(rng,
        1)``)."""
        return self._rules_cached(int(self.sample_indices(rng, 1)[0]))

    def sample_many(self, rng: np.random.Generator, n: int) -> list[Rules]:
        """``n`` rule sets drawn as :meth:`sample_indices` draws them (the same stream as
        ``n`` calls of :meth:`sample` only for ``n = 1``)."""
        return [self._rules_cached(int(i)) for i in self.sample_indices(rng, n)]

    # ------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with ``name``, ``hold_out``, ``base``
        (:meth:`~blackjack_env.engine.rules.Rules.to_dict`) and ``axes`` (field -> list of
        values in ``to_dict`` form, or ``{"grid": [low, high, step]}``); :meth:`from_dict`
        reads it back."""
        grids = dict(self.grids)
        axes: dict[str, Any] = {}
        for name, values in self.axes:
            if name in grids:
                axes[name] = {"grid": grids[name].to_list()}
            else:
                axes[name] = [self.base.replace(**{name: v}).to_dict()[name] for v in values]
        return {
            "name": self.name,
            "hold_out": self.hold_out,
            "base": self.base.to_dict(),
            "axes": axes,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSpace:
        """Inverse of :meth:`to_dict` (``ValueError`` for unknown or missing keys)."""
        if not isinstance(data, Mapping):
            raise ValueError(
                f"RuleSpace.from_dict needs a mapping (as RuleSpace.to_dict() gives), got "
                f"{type(data).__name__}"
            )
        keys = {"name", "hold_out", "base", "axes"}
        unknown = sorted(set(data) - keys)
        if unknown:
            raise ValueError(
                f"RuleSpace.from_dict: unknown key(s) {', '.join(unknown)}; keys are "
                f"{', '.join(sorted(keys))}"
            )
        if "base" not in data or "axes" not in data:
            raise ValueError("RuleSpace.from_dict needs 'base' and 'axes'")
        axes = data["axes"]
        if not isinstance(axes, Mapping):
            raise ValueError(f"RuleSpace.from_dict: axes must be a mapping, got {axes!r:.60}")
        return cls(
            Rules.from_dict(data["base"]),
            dict(axes),
            name=data.get("name", "custom"),
            hold_out=data.get("hold_out", 0),
        )

    def __repr__(self) -> str:
        axes = ", ".join(f"{n}: {len(v)}" for n, v in self.axes)
        return f"RuleSpace({self.name!r}, {self.size} rule sets; axes {axes})"


# ---------------------------------------------------------------- the default space
#: The base of the default space (version 1) is an infinite deck (every rule set is
#: graded exactly by ``blackjack_env.analysis``), one seat, no insurance offered (the
#: hole-card axis includes rules without a peek, where insurance cannot be offered).
DEFAULT_BASE_V1 = Rules(decks=None, penetration=None, insurance=False, seats=1)

#: The axes of the default space (version 1) in order, the rules a blackjack researcher
#: names when comparing games. 2 x 4 x 3 x 3 x 2 x 3 x 2 x 2 x 3 = 5,184 rule sets, every
#: one with double, split and surrender actions (5 playing actions).
DEFAULT_AXES_V1: tuple[tuple[str, tuple[Any, ...]], ...] = (
    ("dealer_hits_soft_17", (False, True)),
    ("blackjack_payout", ("3:2", "6:5", "1:1", "2:1")),
    ("hole_card", ("peek", "no-peek", "none")),
    ("double", ("any", "9-11", "10-11")),
    ("double_after_split", (True, False)),
    ("max_split_hands", (2, 3, 4)),
    ("resplit_aces", (False, True)),
    ("hit_split_aces", (False, True)),
    ("surrender", ("none", "late", "early")),
)

#: The versions of :func:`default_space` (each fixed once published).
DEFAULT_VERSIONS: tuple[str, ...] = ("v1",)


def _check_version(version: Any) -> str:
    if version not in DEFAULT_VERSIONS:
        raise ValueError(
            f"version={version!r} is not a version of the default rule space; versions are "
            f"{', '.join(map(repr, DEFAULT_VERSIONS))}"
        )
    return str(version)


def default_space(version: str = "v1") -> RuleSpace:
    """The project's rule space (``name`` ``"default-<version>"``), fixed per version.

    ``"v1"``: an infinite deck (:data:`DEFAULT_BASE_V1`) and the axes
    :data:`DEFAULT_AXES_V1`: S17 / H17; blackjack paying 3:2, 6:5, 1:1 or 2:1; the dealer
    peeking, not peeking, or taking no hole card; doubling on any two cards, hard 9-11
    or hard 10-11; doubling after splits or not; splitting to 2, 3 or 4 hands;
    resplitting aces or not; hitting split aces or not; no, late or early surrender.
    5,184 rule sets; about one in 8 held out (``hold_out=8``: 685 of them), so the
    sampler draws from the other 4,499. Every rule set is supported by the exact
    analysis (``blackjack_env.analysis.solve``)."""
    return _default_space(_check_version(version))


@cache
def _default_space(version: str) -> RuleSpace:
    return RuleSpace(DEFAULT_BASE_V1, DEFAULT_AXES_V1, name=f"default-{version}", hold_out=8)


def held_out_file(version: str = "v1") -> str:
    """The name of the package file holding :func:`held_out`'s list
    (``blackjack_env/engine/held_out_<version>.json``)."""
    return f"held_out_{_check_version(version)}.json"


def held_out(version: str = "v1") -> tuple[Rules, ...]:
    """The fixed held-out test set of :func:`default_space` (``version``): 256 rule sets.

    They are the first :data:`HELD_OUT_SIZE` of the space's held-out rule sets in the
    order of their keys (:meth:`RuleSpace.held_out_rules`): each is held out, so the
    default sampler never draws it (disjoint by construction). Read from the package
    file :func:`held_out_file` (its ``"rules"``, each
    :meth:`~blackjack_env.engine.rules.Rules.to_dict`), which a test regenerates from the
    space and checks is unchanged."""
    return _held_out(held_out_file(version))


@cache
def _held_out(name: str) -> tuple[Rules, ...]:
    text = resources.files("blackjack_env.engine").joinpath(name).read_text(encoding="utf-8")
    data = json.loads(text)
    return tuple(Rules.from_dict(entry) for entry in data["rules"])


def held_out_document(version: str = "v1") -> dict[str, Any]:
    """The content of :func:`held_out_file`, regenerated: the version, the space
    (:meth:`RuleSpace.to_dict`) and the first :data:`HELD_OUT_SIZE` held-out rule sets
    with their keys."""
    space = default_space(version)
    chosen = space.held_out_rules()[:HELD_OUT_SIZE]
    return {
        "version": version,
        "space": space.to_dict(),
        "keys": [space.key(r) for r in chosen],
        "rules": [r.to_dict() for r in chosen],
    }
