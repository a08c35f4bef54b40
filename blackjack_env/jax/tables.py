"""The rule tables of the JAX table, built on the host: nothing here decides a rule.

A table's traced code reads two things:

* :class:`Config`: Python constants that fix the arrays' shapes (seats, hand slots per
  seat, the shoe's places, the action and bet counts, rounds per episode, whether the
  shoe is infinite, whether cards are tracked by rank, whether the learner holds a
  finite bankroll). It is the static part: one compiled program per ``Config`` (and
  observation mode and illegal-action policy, :mod:`blackjack_env.jax.program`).
* :class:`Params`: every rule as a traced value, read off the rule-table layer
  (:class:`~blackjack_env.envs.tables.RuleTables`, built from
  :mod:`blackjack_env.engine.play`'s functions, which the numpy batched tables read too):
  lookup tables and flags, the payouts, the decks, the cut card, the bet. Two rule sets of
  one ``Config`` give ``Params`` of the same shapes and dtypes, so they share every
  compilation, and ``Params`` stacked along a leading axis (:func:`stack`) play a batch
  of tables each under its own rules in one ``jax.vmap``.

``Params`` is derived from ``RuleTables`` in one place (:func:`params_of`): each field of
``RuleTables`` becomes the entry of the same name, as a ``jax`` array (int32, float32 or
bool), except the fields listed in :data:`NOT_READ` (what the JAX round does not read,
each with its reason) and :data:`CONVERTED` (stored in another form). A new rule-table
entry is therefore one edit, in ``RuleTables``: the JAX round reads it as ``p.<name>``.
A rule set that does not fit a ``Config`` (more hands per seat than it holds, a larger
shoe, another action count) is refused in one line (:func:`fit`).
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any, NamedTuple, TypeAlias

import jax
import jax.numpy as jnp
import jaxtyping
import numpy as np
from jax.typing import DTypeLike
from jaxtyping import (
    AbstractArray,
    Array,
    ArrayLike,
    Bool,
    Float32,
    Int8,
    Int32,
    PRNGKeyArray,
    Shaped,
)

from blackjack_env.envs import step as env_step
from blackjack_env.envs.codes import BatchPhase
from blackjack_env.envs.settings import EnvSettings
from blackjack_env.envs.step import Decision
from blackjack_env.envs.tables import RuleTables
from blackjack_env.envs.view.layout import ObsMode

__all__ = [
    "CONVERTED",
    "NOT_READ",
    "Banked",
    "Config",
    "Converted",
    "Params",
    "Row",
    "RuleBank",
    "batched",
    "build",
    "config_of",
    "entries_of",
    "entry_types",
    "fit",
    "join",
    "params_of",
    "rule_table_types",
    "stack",
    "stack_tables",
]

#: Stacked-card buffer of an infinite deck (cards dealt first, in order), per table of
#: one seat; each further seat adds :data:`INFINITE_STACK_SEAT`.
INFINITE_STACK = 64
INFINITE_STACK_SEAT = 32
#: The largest bet-size count (the illegal bet's mapping is tabulated over ``2 ** K``).
MAX_BET_SIZES = 12
#: Distinct rows of an action mask a rule set can have (``Params.mask_sets``): the legal
#: sets of a hand in play (stand, stand-hit, stand-split, stand-hit with any of double,
#: split, surrender: 11), a settled round (every action), the pre-peek question's (4).
MASK_SETS = 16


@dataclass(frozen=True)
class Config:
    """What fixes the arrays' shapes of one table, or of a batch of tables (hashable: a
    static argument; every rule is in :class:`Params`).

    ``seats``: learner seats at the table; ``hands``: hand slots per seat (the largest
    ``rules.max_split_hands`` of the rule sets it plays: a rule set of fewer hands leaves
    the rest unused); ``shoe_size``: places in a finite shoe (52 times the most decks;
    a shoe of fewer decks uses the first ``Params.shoe_cards``), or the stacked-card
    buffer of an infinite deck; ``infinite``: the deck is infinite (cards drawn with
    replacement; no ring of cards, so a table is finite or infinite by its shapes);
    ``n_play`` / ``n_actions``: the playing actions and the action space
    (``Layout.n_play`` / ``n_actions``: 2, 5 or 6, plus one per bet size); ``n_bets``:
    bet sizes offered at a BET step (0: a fixed bet); ``rounds``: rounds per episode
    (``None``: no end); ``track``: cards are kept by rank (the ``"dict"`` observation);
    ``bankroll``: the learner holds a finite bankroll (its legal table has the rows of a
    seat that cannot afford a double or insurance; the amount is ``Params.bankroll``).
    """

    seats: int
    hands: int
    shoe_size: int
    infinite: bool
    n_play: int
    n_actions: int
    n_bets: int = 0
    rounds: int | None = 1
    track: bool = False
    bankroll: bool = False

    @property
    def bets(self) -> bool:
        """Every round opens with a BET step."""
        return self.n_bets > 0

    @property
    def stake_check(self) -> bool:
        """Stakes vary (bet steps) or a bankroll limits them: a split asks
        ``play.split_stake_ok`` per hand (``RuleTables.split_stake_check``)."""
        return self.bets or self.bankroll


#: RuleTables fields the JAX round does not read, with the reason.
NOT_READ: dict[str, str] = {
    "rules": "the Rules object itself (host); what the round reads of it is in the other fields",
    "bet_sizes": "their count is Config.n_bets, their chips bet_chips",
    "ask_insurance": "the learner is asked when Config.n_play is 6",
    "n_play": "a shape: Config.n_play",
    "n_actions": "a shape: Config.n_actions",
    "split_stake_check": "fixed by the shapes: Config.stake_check",
    "legal_table": "the round reads the env's mask rows (mask_index, mask_sets)",
    "legal_table_phase": "the phase is the state's (State.phase)",
    "by_hands": "outcomes are looked up by the hands' categories in outcome_table "
    "(settlement.outcomes): the keyed table is 128 KB a rule set",
    "hand_key_width": "the width of by_hands' keys",
    "dealer_next": "the numpy round's infinite-deck dealer sampling",
}


def _mask_sets(mask_rows: np.ndarray, _: RuleTables) -> dict[str, np.ndarray]:
    """``mask_rows`` (``(K, n_actions)``, 13 KB a rule set as int8 rows, 66 KB as bools) as
    the index of each row's set (int8 ``(K,)``) and the sets (bool ``(MASK_SETS,
    n_actions)``, padded with empty rows): a batch of tables each under its own rules
    holds 13 KB a table."""
    rows = mask_rows.astype(bool)
    width = rows.shape[1]
    codes = rows.astype(np.int64) @ (np.int64(1) << np.arange(width, dtype=np.int64))
    found, first, index = np.unique(codes, return_index=True, return_inverse=True)
    if found.size > MASK_SETS:
        raise ValueError(f"mask_rows holds {found.size} distinct rows, more than {MASK_SETS}")
    padded = np.zeros((MASK_SETS, width), dtype=bool)
    padded[: found.size] = rows[first]
    return {"mask_index": index.reshape(-1).astype(np.int8), "mask_sets": padded}


#: The stakes ``Params.stake_ok`` tells apart: 0, 1, and 2 or more chips.
STAKE_CLASSES = 3


def _stake_ok(stake_ok: np.ndarray, _: RuleTables) -> dict[str, np.ndarray]:
    """``stake_ok`` (``(2, M + 1)`` by bankroll cover and stake, ``M`` the largest bet) for
    stakes 0, 1 and 2 or more (its width would differ between bets). Checked: every
    column from 2 on equals column 2 (``play.split_stake_ok`` asks ``stake >= 2`` or the
    cover only)."""
    width = stake_ok.shape[1]
    edge = stake_ok[:, min(2, width - 1)]
    if width > 3 and not (stake_ok[:, 2:] == edge[:, None]).all():
        raise ValueError("stake_ok differs between stakes of 2 chips and more")
    cols = [stake_ok[:, min(c, width - 1)] for c in range(STAKE_CLASSES)]
    return {"stake_ok": np.stack(cols, axis=1)}


class Converted(NamedTuple):
    """A RuleTables field stored in another form: ``convert(value, tables)`` gives the
    entries (the value is the field's, of its own type), ``types`` their jaxtyping types
    (one rule set's)."""

    convert: Callable[[Any, RuleTables], Mapping[str, np.ndarray | int]]
    types: Mapping[str, Any]


#: RuleTables fields stored in another form, by field
CONVERTED: dict[str, Converted] = {
    "mask_rows": Converted(
        _mask_sets,
        {"mask_index": Int8[Array, " rows"], "mask_sets": Bool[Array, f"{MASK_SETS} actions"]},
    ),
    "stake_ok": Converted(_stake_ok, {"stake_ok": Bool[Array, f"2 {STAKE_CLASSES}"]}),
    "bankroll": Converted(
        lambda v, _: {"bankroll": 0 if v is None else v}, {"bankroll": Int32[Array, ""]}
    ),
}


def _entry_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype an entry holds of a RuleTables array of ``dtype``: float64 as float32,
    a wider integer as int32, else the same."""
    if dtype == np.float64:
        return np.dtype(np.float32)
    if dtype.kind in "iu" and dtype.itemsize > 4:
        return np.dtype(np.int32)
    return dtype


def _entry(name: str, value: object) -> np.ndarray:
    """A RuleTables value as the entry's array (numpy, in the dtype the JAX round reads:
    :func:`_entry_dtype`; bools as bool, an enum or an int as its int32 code)."""
    if isinstance(value, np.ndarray):
        return value.astype(_entry_dtype(value.dtype), copy=False)
    if isinstance(value, (bool, np.bool_)):
        return np.asarray(bool(value))
    if isinstance(value, Enum):
        return np.asarray(int(value.value), np.int32)
    if isinstance(value, (int, np.integer)):
        return np.asarray(int(value), np.int32)
    raise TypeError(f"RuleTables.{name} ({type(value).__name__}): list it in NOT_READ or CONVERTED")


#: jaxtyping's dtype classes of the dtypes an entry holds
_DTYPE_CLASS: dict[str, Any] = {"bool": Bool, "int8": Int8, "int32": Int32, "float32": Float32}


def _entry_type(name: str, field_type: Any) -> Any:
    """The jaxtyping type of the entry of a RuleTables field of type ``field_type`` (as
    :func:`_entry` converts its value): an array's converted dtype with the same axes, a
    bool, an int or an enum a scalar."""
    if isinstance(field_type, type) and issubclass(field_type, AbstractArray):
        dtype = np.dtype(field_type.dtypes[0])  # (a class of one dtype: Bool's names vary)
        dims = field_type.dim_str
        cls = _DTYPE_CLASS[_entry_dtype(dtype).name]
        return cls[Array, dims]
    if field_type is bool:
        return Bool[Array, ""]
    if field_type is int or (isinstance(field_type, type) and issubclass(field_type, Enum)):
        return Int32[Array, ""]
    raise TypeError(f"RuleTables.{name} ({field_type!r}): list it in NOT_READ or CONVERTED")


def rule_table_types() -> dict[str, Any]:
    """:class:`RuleTables`' fields' types, evaluated: each array's a jaxtyping type
    (``Int64[np.ndarray, " 13"]``), the one list of the arrays' dtypes and axes. (Its
    module imports jaxtyping's dtype classes for type checkers only: every one of them is
    given here.)"""
    dtypes = {k: v for k, v in vars(jaxtyping).items()
              if isinstance(v, type) and issubclass(v, jaxtyping.AbstractDtype)}  # fmt: skip
    return typing.get_type_hints(RuleTables, localns=dtypes)


@cache
def entry_types() -> dict[str, Any]:
    """Every entry's jaxtyping type (one rule set's; stacked params add a leading axis),
    derived from :func:`rule_table_types` as :func:`entries_of` derives the values: the
    fields of :data:`NOT_READ` left out, those of :data:`CONVERTED` as its ``types`` say.
    ``Params``' annotations."""
    hints = rule_table_types()
    types: dict[str, Any] = {}
    for f in dataclasses.fields(RuleTables):
        if f.name in NOT_READ:
            continue
        conversion = CONVERTED.get(f.name)
        if conversion is None:
            types[f.name] = _entry_type(f.name, hints[f.name])
        else:
            types.update(conversion.types)
    return dict(sorted(types.items()))


@jax.tree_util.register_pytree_node_class
class Params:
    """The rules of one table, or of a batch of tables (a leading axis on every entry):
    ``jax`` arrays by name, a pytree.

    Each entry is the :class:`~blackjack_env.envs.tables.RuleTables` field of the same
    name (its docstring there gives the indexing), as int32, float32 or bool, except
    those of :data:`NOT_READ` and :data:`CONVERTED`: ``mask_index`` / ``mask_sets`` (the
    env's action-mask rows: row ``k`` is ``mask_sets[mask_index[k]]``), ``stake_ok``
    (``(2, 3)``: by cover and by a stake of 0, 1, 2 or more chips), ``bankroll`` (the
    starting chips, 0 with unlimited credit). Read an entry as an attribute
    (``p.payouts``); ``p.names`` lists them, :meth:`replace` gives a copy with some
    entries replaced (their shapes and dtypes kept: a rule set of the same shapes).

    The entries' types (``Params.__annotations__``, one rule set's: stacked params add a
    leading axis) are derived from ``RuleTables``' annotations (:func:`entry_types`), not
    listed here; a :class:`RuleBank`'s rule set holds each array entry as a :class:`Row`
    of the bank's, read as the array (and typed as one)."""

    __slots__ = ("_entries",)
    _entries: dict[str, Entry]

    # (the entries, or what a jax transformation puts in a pytree's leaves)
    def __init__(self, entries: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_entries", dict(sorted(entries.items())))

    # (an Entry: a Row of a bank is read as the array, and typed as one)
    def __getattr__(self, name: str) -> Array:
        try:  # (an object being unpickled has no entries yet)
            entries = object.__getattribute__(self, "_entries")
        except AttributeError:
            raise AttributeError(name) from None
        try:
            return entries[name]
        except KeyError:
            raise AttributeError(
                f"Params has no entry {name!r} (RuleTables field not read, or a typo)"
            ) from None

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Params is immutable: use replace()")

    def __getstate__(self) -> dict[str, Entry]:
        return dict(self._entries)

    def __setstate__(self, state: dict[str, Entry]) -> None:
        object.__setattr__(self, "_entries", dict(state))

    @property
    def names(self) -> tuple[str, ...]:
        """The entries' names (sorted)."""
        return tuple(self._entries)

    def items(self) -> Iterator[tuple[str, Entry]]:
        """``(name, array)`` pairs, by name."""
        return iter(self._entries.items())

    def replace(self, **entries: Entry) -> Params:
        """A copy with ``entries`` replaced (unknown names are refused)."""
        unknown = sorted(set(entries) - set(self._entries))
        if unknown:
            raise ValueError(f"Params has no entries {unknown}")
        return Params({**self._entries, **entries})

    def tree_flatten(self) -> tuple[tuple[Entry, ...], tuple[str, ...]]:
        return tuple(self._entries.values()), tuple(self._entries)

    @classmethod
    def tree_unflatten(cls, names: tuple[str, ...], values: Iterable[Entry]) -> Params:
        return cls(dict(zip(names, values, strict=True)))

    def __repr__(self) -> str:
        shapes = ", ".join(f"{k}={tuple(jnp.shape(v))}" for k, v in self._entries.items())
        return f"Params({shapes})"


Params.__annotations__.update(entry_types())


#: A :class:`Params` entry: a ``jax.Array``, or a :class:`Row` of a :class:`RuleBank` (read
#: as the array)
Entry: TypeAlias = "Array | Row"


def entries_of(tables: RuleTables) -> dict[str, np.ndarray]:
    """The entries of :func:`params_of` as numpy arrays (every field of ``tables`` but
    :data:`NOT_READ`, converted: :data:`CONVERTED`, else int32 / float32 / bool)."""
    entries: dict[str, np.ndarray] = {}
    for f in dataclasses.fields(RuleTables):
        if f.name in NOT_READ:
            continue
        value = getattr(tables, f.name)
        conversion = CONVERTED.get(f.name)
        if conversion is None:
            entries[f.name] = _entry(f.name, value)
        else:
            for k, v in conversion.convert(value, tables).items():
                entries[k] = _entry(k, v)
    return entries


def params_of(tables: RuleTables) -> Params:
    """The :class:`Params` of a rule set and env configuration (:func:`entries_of`, as
    jax arrays). (Host arrays go to the device with ``jax.device_put``, here and below:
    ``jnp.asarray`` of a numpy array also compiles a small program per shape and dtype in
    this jax, 10-25 ms each.)"""
    return Params({k: jax.device_put(v) for k, v in entries_of(tables).items()})


def stack_tables(tables: Sequence[RuleTables]) -> Params:
    """The params of several rule sets of one config, stacked along a leading axis (row
    ``i`` rule set ``i``), built on the host: one transfer per entry."""
    if not tables:
        raise ValueError("stack: no rule sets given")
    rows = [entries_of(t) for t in tables]
    return Params({k: jax.device_put(np.stack([r[k] for r in rows])) for k in rows[0]})


def config_of(settings: EnvSettings, tables: RuleTables) -> Config:
    """The :class:`Config` of validated settings: one rule set's own hands and shoe, or,
    under a rule space (``settings.rule_space``), the space's most hands per seat and its
    largest shoe."""
    rules = settings.rules
    seats = rules.seats
    infinite = rules.shoe_decks is None
    stack_size = INFINITE_STACK + INFINITE_STACK_SEAT * (seats - 1)
    n_bets = len(tables.bet_sizes)
    if n_bets > MAX_BET_SIZES:
        raise ValueError(
            f"bet_sizes: the JAX table takes at most {MAX_BET_SIZES} bet sizes, got {n_bets}"
        )
    cards = tables.shoe_cards
    space = settings.rule_space
    if space is not None and not infinite:
        cards = 52 * int(space.shoe_decks[1] or 0)
    return Config(
        seats=seats,
        hands=settings.max_hands,
        shoe_size=stack_size if infinite else cards,
        infinite=infinite,
        n_play=tables.n_play,
        n_actions=tables.n_actions,
        n_bets=n_bets,
        rounds=settings.rounds_per_episode,
        track=settings.obs_mode is ObsMode.DICT,
        bankroll=tables.bankroll is not None,
    )


def build(settings: EnvSettings, tables: RuleTables | None = None) -> tuple[Config, Params]:
    """``(config, params)`` of validated settings (:meth:`EnvSettings.batched`, or
    :meth:`EnvSettings.from_args` with ``rules.seats`` learner seats per table), read off
    their :class:`~blackjack_env.envs.tables.RuleTables` (``tables``, built here when not
    given)."""
    t = RuleTables.from_settings(settings) if tables is None else tables
    return config_of(settings, t), params_of(t)


#: Config fields a rule set may fill partly (a batch holds the largest), the others equal.
_UP_TO = ("hands", "shoe_size")


def fit(config: Config, own: Config, what: str = "rules") -> None:
    """Refuse (``ValueError``, one line) a rule set whose own config ``own`` does not fit
    the table's ``config``: more hands per seat or a larger shoe than it holds, or any
    other shape that differs (an action count, a finite shoe at an infinite table...)."""
    for f in dataclasses.fields(Config):
        mine, theirs = getattr(config, f.name), getattr(own, f.name)
        if f.name in _UP_TO:
            if theirs > mine:
                raise ValueError(
                    f"{what} need {f.name}={theirs}, more than this table's {mine}: build "
                    f"the table for every rule set it plays (BlackjackJax(rules=[...]) or a "
                    f"RuleSpace)"
                )
        elif mine != theirs:
            raise ValueError(
                f"{what} have {f.name}={theirs!r}, this table {mine!r}: one batch of tables "
                f"shares its shapes (the action count, bets, seats, an infinite or finite "
                f"deck, rounds per episode, a bankroll)"
            )


def join(configs: Sequence[Config], names: Sequence[str] | None = None) -> Config:
    """The config of a batch of rule sets: the largest ``hands`` and ``shoe_size``, every
    other field shared (else ``ValueError`` naming the first rule set that differs)."""
    first = configs[0]
    up = {k: max(getattr(c, k) for c in configs) for k in _UP_TO}
    out = dataclasses.replace(first, **up)
    for i, c in enumerate(configs):
        fit(out, c, f"rule set {names[i] if names else i}")
    return out


def batched(p: Params) -> bool:
    """Whether ``p`` holds a batch of rule sets (a leading axis: ``p.bet`` is a row)."""
    return bool(jnp.ndim(p.bet))


def stack(params: Sequence[Params]) -> Params:
    """Params of several rule sets of one config, stacked along a new leading axis (one
    row per table: ``jax.vmap(..., in_axes=0)`` plays each table under its own)."""
    if not params:
        raise ValueError("stack: no params given")
    return jax.tree.map(lambda *xs: jnp.stack(xs), *params)


@jax.tree_util.register_pytree_node_class
class Row:
    """One rule set's value of a rule table held by a :class:`RuleBank`: row ``row`` of
    ``rows`` (the bank's distinct values of the table), read as the table itself:
    ``r[i]`` is ``rows[row, i]`` (one gather from the shared rows: tables under many rule
    sets read few distinct rows), ``r.shape`` / ``r.dtype`` are the table's, and
    ``jnp.asarray(r)`` is the row."""

    __slots__ = ("row", "rows")

    def __init__(self, rows: Shaped[Array, "distinct ..."], row: Int32[ArrayLike, ""]) -> None:
        self.rows = rows
        self.row = row

    # (any index an array takes)
    def __getitem__(self, index: Any) -> Array:
        index = index if isinstance(index, tuple) else (index,)
        return self.rows[(self.row, *index)]

    def __jax_array__(self) -> Array:
        return self.rows[self.row]

    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        return np.asarray(self.rows[self.row], dtype=dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(jnp.shape(self.rows)[1:])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.rows.dtype

    def tree_flatten(self) -> tuple[tuple[Array, Int32[ArrayLike, ""]], None]:
        return (self.rows, self.row), None

    @classmethod
    def tree_unflatten(cls, _: None, children: Iterable[Array]) -> Row:
        rows, row = children
        return cls(rows, row)


@jax.tree_util.register_pytree_node_class
class RuleBank:
    """A set of rule sets of one :class:`Config` as one pytree, from which a table's
    rules are read inside ``jit`` by their index (:meth:`at`) or drawn with a key
    (:meth:`sample`, XLand-MiniGrid's ``Benchmark.sample_ruleset``).

    Each array entry of :class:`Params` is kept once per distinct value (``rows[name]``,
    ``(D, ...)``; ``index[name]`` the row of each rule set, ``(R,)``), each scalar entry
    as one value per rule set (``scalars[name]``, ``(R,)``): rule sets that share a
    table share its row (the legal-action masks of the default space's 5,184 rule sets
    are a few hundred rows), so a batch of tables each under its own rule set reads few
    rows (``bank.at(i)`` inside the ``jax.vmap`` over tables: the bank shared, the index
    per table). An entry every rule set of the bank shares (one row, or one scalar value:
    ``shared`` names the scalars) is read unbatched: a batch of tables reads it as one rule
    set's, and a compiled program whose bank is a constant knows its value (a rule no
    table of the batch varies costs what it costs one rule set). Build it with :meth:`of`
    (``BlackjackJax.rule_bank``)."""

    def __init__(
        self,
        rows: dict[str, Shaped[Array, "distinct ..."]],
        index: dict[str, Int32[Array, " rules"]],
        scalars: dict[str, Shaped[Array, " rules"]],
        shared: tuple[str, ...] = (),
    ) -> None:
        self.rows, self.index, self.scalars = rows, index, scalars
        self.shared = shared

    @classmethod
    def of(cls, tables: Sequence[RuleTables]) -> RuleBank:
        """The bank of the rule sets' rule tables (one :class:`Config`: equal shapes),
        built on the host (one transfer per entry)."""
        if not tables:
            raise ValueError("a rule bank needs at least one rule set")
        every = [entries_of(t) for t in tables]
        rows: dict[str, Shaped[Array, "distinct ..."]] = {}
        index: dict[str, Int32[Array, " rules"]] = {}
        scalars: dict[str, Shaped[Array, " rules"]] = {}
        shared: list[str] = []
        for name, first in every[0].items():
            values = [e[name] for e in every]
            if first.ndim == 0:
                column = np.stack(values)
                scalars[name] = jax.device_put(column)
                if (column == column[0]).all():
                    shared.append(name)
                continue
            seen: dict[bytes, int] = {}
            at = np.array([seen.setdefault(v.tobytes(), len(seen)) for v in values], np.int32)
            distinct = [values[i] for i in np.unique(at, return_index=True)[1]]
            rows[name] = jax.device_put(np.stack(distinct))
            index[name] = jax.device_put(at)
        return cls(rows, index, scalars, tuple(shared))

    @property
    def size(self) -> int:
        """Rule sets in the bank."""
        return int(jnp.shape(next(iter(self.scalars.values())))[0])

    def at(self, i: Int32[ArrayLike, ""]) -> Params:
        """The params of rule set ``i`` (an int, or a traced int32: ``jit``-clean): each
        array entry a :class:`Row` of the shared rows, each scalar its value; an entry
        every rule set shares (one row, a ``shared`` scalar) is that row or value, read
        without ``i``."""
        entries: dict[str, Entry] = {}
        for k, v in self.scalars.items():
            entries[k] = v[0] if k in self.shared else v[i]
        for k, rows in self.rows.items():
            entries[k] = rows[0] if jnp.shape(rows)[0] == 1 else Row(rows, self.index[k][i])
        return Params(entries)

    def sample_index(self, key: PRNGKeyArray) -> Int32[Array, ""]:
        """A rule set's index drawn uniformly with ``key`` (int32)."""
        return jax.random.randint(key, (), 0, self.size, jnp.int32)

    def sample(self, key: PRNGKeyArray) -> Params:
        """One table's rules drawn uniformly from the bank with ``key`` (``jax.vmap``
        over keys for a batch of tables, each under its own draw)."""
        return self.at(self.sample_index(key))

    def tree_flatten(self) -> tuple[tuple[Array, ...], tuple[tuple[str, ...], ...]]:
        names = (tuple(self.rows), tuple(self.scalars), self.shared)
        leaves = (*self.rows.values(), *(self.index[k] for k in self.rows),
                  *self.scalars.values())  # fmt: skip
        return leaves, names

    @classmethod
    def tree_unflatten(
        cls, names: tuple[tuple[str, ...], ...], leaves: Iterable[Array]
    ) -> RuleBank:
        arrays, scalar_names, shared = names
        leaves = list(leaves)
        n = len(arrays)
        rows = dict(zip(arrays, leaves[:n], strict=True))
        index = dict(zip(arrays, leaves[n : 2 * n], strict=True))
        scalars = dict(zip(scalar_names, leaves[2 * n :], strict=True))
        return cls(rows, index, scalars, shared)


class Banked(NamedTuple):
    """A batch of tables each under a rule set of a bank: ``bank`` shared, ``index`` the
    rule set of each table (``(N,)``). The batch functions of
    :mod:`blackjack_env.jax.program` take it where they take ``Params``."""

    bank: RuleBank
    # (the field shadows tuple.index, which nothing here calls)
    index: Int32[Array, " tables"]  # type: ignore[assignment]


# ------------------------------------------------------------------ shape constants
# What the traced code reads that is no rule: the env's illegal-action mapping and its
# pre-peek reading (envs.step), tabulated over every input for an action count.


@cache
def decision_of_phase() -> np.ndarray:
    """int32 ``(5,)``: the observation's decision (``Decision``) of each ``BatchPhase``."""
    assert [int(p) for p in BatchPhase] == list(range(5))
    return np.asarray(env_step.DECISION_BY_BATCH_PHASE, dtype=np.int32)


@cache
def mapped_action(n_actions: int) -> np.ndarray:
    """int32 ``(4, 2, n)``: an illegal action's replacement by (Decision, HIT legal,
    action) (``envs.step.array_map_illegal``)."""
    a = np.arange(n_actions)
    return np.stack([
        np.stack([
            env_step.array_map_illegal(
                a, np.ones(n_actions, bool), np.full(n_actions, d), np.full(n_actions, hit)
            )
            for hit in (False, True)
        ])
        for d in range(len(Decision))
    ]).astype(np.int32)  # fmt: skip


@cache
def table_action(n_actions: int) -> np.ndarray:
    """int32 ``(2, n)``: the table's ``Action`` code of env action ``a`` by (pre-peek, a)
    (``envs.step.array_table_actions``)."""
    a = np.arange(n_actions)
    return np.stack(
        [env_step.array_table_actions(a, np.full(n_actions, pre)) for pre in (False, True)]
    ).astype(np.int32)


@cache
def bet_mapped(n_play: int, n_bets: int, n_actions: int) -> np.ndarray:
    """int32 ``(2 ** K, n)``: a BET step's illegal action replaced, by the allowed sizes'
    bits (``envs.step.array_map_illegal_bet``)."""
    bits = np.arange(max(1, 2**n_bets))
    allowed = ((bits[:, None] >> np.arange(n_bets)) & 1).astype(bool)
    out = np.zeros((bits.size, n_actions), dtype=np.int32)
    if n_bets:
        for j in range(n_actions):
            want = np.full(bits.size, j - n_play)
            out[:, j] = n_play + env_step.array_map_illegal_bet(want, allowed)
    return out
