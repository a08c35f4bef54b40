"""The spaces of the JAX table: small classes with gymnax's attributes and methods that
are *also* gymnax's classes for ``isinstance`` whenever gymnax is loaded, whatever the
import order (a space made before ``import gymnax`` passes its wrappers' checks too).

gymnax is never imported here (it is not a dependency, and importing it pulls in
plotting libraries, seconds of start-up). Each class reports gymnax's class of the same
name as its ``__class__`` once ``gymnax`` is in ``sys.modules``; ``isinstance`` consults
``__class__`` when the type itself does not match, so ``isinstance(space,
gymnax.environments.spaces.Discrete)`` holds, while ``type(space)`` stays the class
here (its methods are these). A space pickles (``pickle``, ``cloudpickle``) and copies
as the class here whatever the import order (:meth:`_Space.__reduce__`: pickle's default
refuses an object whose ``__class__`` is not its type).

A ``Box`` of one element (the dict observation's ``bankroll``, ``bet`` and
``true_count``) has 0-d bounds (numpy scalars), as gymnax's own boxes: gymnax's
``gymnax_space_to_gym_space`` passes a one-element bound to ``float()``, which numpy
refuses for a shape-``(1,)`` array."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import ModuleType
from typing import TypeAlias

import gymnasium.spaces as gs
import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import DTypeLike
from jaxtyping import Array, Bool, Int32, PRNGKeyArray, PyTree, Real, Shaped

__all__ = ["box", "dict_space", "discrete", "from_gymnasium", "tuple_space"]


def _gymnax_spaces() -> ModuleType | None:
    """gymnax's spaces module if gymnax is loaded (never imported here), else None."""
    if "gymnax" not in sys.modules:
        return None
    # deferred: loads gymnax (the optional [test] extra)
    from gymnax.environments import spaces

    return spaces


def _rebuild(cls: type[_Space], state: dict[str, object]) -> _Space:
    """A space of class ``cls`` (one of this module's) with the attributes ``state``: what
    :meth:`_Space.__reduce__` pickles."""
    space = object.__new__(cls)
    space.__dict__.update(state)
    return space


class _Space:
    """A space that is gymnax's class of the same name for ``isinstance`` once gymnax is
    loaded (see the module docstring)."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        spaces = _gymnax_spaces()
        real = type(self)
        return real if spaces is None else getattr(spaces, real.__name__, real)

    def __reduce__(self) -> tuple[Callable[..., _Space], tuple[type, dict[str, object]]]:
        # by the class itself: pickle's default reduction (copyreg.__newobj__) reads
        # ``__class__``, gymnax's class once gymnax is loaded, and refuses it ("args[0]
        # from __newobj__ args has the wrong class")
        return _rebuild, (type(self), dict(self.__dict__))


class Discrete(_Space):
    """``n`` actions ``0..n-1`` (gymnax's ``Discrete`` interface)."""

    def __init__(self, num_categories: int) -> None:
        self.n = num_categories
        self.shape: tuple[int, ...] = ()
        self.dtype = jnp.int32

    def sample(self, rng: PRNGKeyArray) -> Int32[Array, ""]:
        return jax.random.randint(rng, self.shape, 0, self.n).astype(self.dtype)

    def contains(self, x: Int32[Array, "*shape"]) -> Bool[Array, "*shape"]:
        return jnp.logical_and(x >= 0, x < self.n)


class Box(_Space):
    """A box ``low <= x <= high`` (gymnax's ``Box`` interface)."""

    def __init__(
        self, low: Real[np.ndarray, "*shape"], high: Real[np.ndarray, "*shape"],
        shape: tuple[int, ...], dtype: DTypeLike = jnp.float32,
    ) -> None:  # fmt: skip
        self.low = low
        self.high = high
        self.shape = shape
        self.dtype = dtype

    def sample(self, rng: PRNGKeyArray) -> Shaped[Array, "*shape"]:
        return jax.random.uniform(rng, shape=self.shape, minval=self.low, maxval=self.high).astype(
            self.dtype
        )

    def contains(self, x: Real[Array, "*shape"]) -> Bool[Array, ""]:
        return jnp.logical_and(jnp.all(x >= self.low), jnp.all(x <= self.high))


class Dict(_Space):
    """A dict of spaces (gymnax's ``Dict`` interface)."""

    def __init__(self, spaces: dict[str, Space]) -> None:
        self.spaces = spaces
        self.num_spaces = len(spaces)

    def sample(self, rng: PRNGKeyArray) -> dict[str, PyTree[Array]]:
        keys = jax.random.split(rng, self.num_spaces)
        return {k: s.sample(r) for (k, s), r in zip(self.spaces.items(), keys, strict=True)}

    def contains(self, x: Mapping[str, PyTree[Array]]) -> Bool[Array, ""]:
        return jnp.all(jnp.stack([jnp.all(s.contains(x[k])) for k, s in self.spaces.items()]))


class Tuple(_Space):
    """A tuple of spaces (gymnax's ``Tuple`` interface)."""

    def __init__(self, spaces: Iterable[Space]) -> None:
        self.spaces = tuple(spaces)
        self.num_spaces = len(self.spaces)

    def sample(self, rng: PRNGKeyArray) -> tuple[PyTree[Array], ...]:
        keys = jax.random.split(rng, self.num_spaces)
        return tuple(s.sample(r) for s, r in zip(self.spaces, keys, strict=True))

    def contains(self, x: Sequence[PyTree[Array]]) -> Bool[Array, ""]:
        return jnp.all(
            jnp.stack([jnp.all(s.contains(v)) for s, v in zip(self.spaces, x, strict=True)])
        )


#: A space of the JAX table (an observation's, field by field, or the action's)
Space: TypeAlias = "Discrete | Box | Dict | Tuple"


def discrete(n: int) -> Discrete:
    """``Discrete(n)`` (gymnax's ``Discrete`` for ``isinstance`` when gymnax is loaded)."""
    return Discrete(n)


def box(
    low: Real[np.ndarray, "*shape"], high: Real[np.ndarray, "*shape"], shape: tuple[int, ...],
    dtype: DTypeLike = jnp.float32,
) -> Box:  # fmt: skip
    """A :class:`Box` (gymnax's ``Box`` for ``isinstance`` when gymnax is loaded)."""
    return Box(low, high, shape, dtype)


def dict_space(spaces: dict[str, Space]) -> Dict:
    """A :class:`Dict` of spaces (its ``contains`` reads the observation's ``dict``
    keys; gymnax's ``Dict`` reads them as attributes)."""
    return Dict(spaces)


def tuple_space(spaces: Iterable[Space]) -> Tuple:
    """A :class:`Tuple` of spaces (as :func:`dict_space`, for the tuple mode)."""
    return Tuple(spaces)


def from_gymnasium(space: gs.Space[object], lead: tuple[int, ...]) -> Space:
    """A Gymnasium space (Dict, Tuple, Discrete, MultiBinary, Box) as the JAX table's,
    with the leading axes ``lead`` (the seats) on every field."""
    if isinstance(space, gs.Dict):
        return dict_space({k: from_gymnasium(v, lead) for k, v in space.spaces.items()})
    if isinstance(space, gs.Tuple):
        return tuple_space([from_gymnasium(v, lead) for v in space.spaces])
    if isinstance(space, gs.Discrete) and not lead:
        return discrete(int(space.n))
    if isinstance(space, gs.Discrete):
        high = np.full(lead, int(space.n) - 1, np.int32)
        return box(np.zeros_like(high), high, high.shape, jnp.int32)
    if isinstance(space, gs.MultiBinary):
        high = np.ones((*lead, *space.shape), np.int8)
        return box(np.zeros_like(high), high, high.shape, jnp.int8)
    low = np.broadcast_to(space.low, (*lead, *space.shape))
    high = np.broadcast_to(space.high, (*lead, *space.shape))
    dtype = jnp.int32 if np.issubdtype(space.dtype, np.integer) else jnp.float32
    if low.size == 1:  # 0-d bounds (gymnax's converter calls float() on them)
        return box(low.reshape(()), high.reshape(()), low.shape, dtype)
    return box(low, high, low.shape, dtype)
