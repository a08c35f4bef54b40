"""The spaces of the JAX table: gymnax's own classes when gymnax has been imported (so
its wrappers, which check ``isinstance`` against them, accept the env), else minimal
stand-ins with the same attributes and methods. gymnax is never imported here (it is
not a dependency, and importing it pulls in plotting libraries)."""

from __future__ import annotations

import sys
from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["box", "dict_space", "discrete", "tuple_space"]


class Discrete:
    """``n`` actions ``0..n-1`` (gymnax's ``Discrete`` interface)."""

    def __init__(self, num_categories: int) -> None:
        self.n = num_categories
        self.shape: tuple[int, ...] = ()
        self.dtype = jnp.int32

    def sample(self, rng: Any) -> Any:
        return jax.random.randint(rng, self.shape, 0, self.n).astype(self.dtype)

    def contains(self, x: Any) -> Any:
        return jnp.logical_and(x >= 0, x < self.n)


class Box:
    """A box ``low <= x <= high`` (gymnax's ``Box`` interface)."""

    def __init__(
        self, low: Any, high: Any, shape: tuple[int, ...], dtype: Any = jnp.float32
    ) -> None:
        self.low = low
        self.high = high
        self.shape = shape
        self.dtype = dtype

    def sample(self, rng: Any) -> Any:
        return jax.random.uniform(rng, shape=self.shape, minval=self.low, maxval=self.high).astype(
            self.dtype
        )

    def contains(self, x: Any) -> Any:
        return jnp.logical_and(jnp.all(x >= self.low), jnp.all(x <= self.high))


class Dict:
    """A dict of spaces (gymnax's ``Dict`` interface)."""

    def __init__(self, spaces: dict[str, Any]) -> None:
        self.spaces = spaces
        self.num_spaces = len(spaces)

    def sample(self, rng: Any) -> dict[str, Any]:
        keys = jax.random.split(rng, self.num_spaces)
        return {k: s.sample(r) for (k, s), r in zip(self.spaces.items(), keys, strict=True)}

    def contains(self, x: Any) -> Any:
        return jnp.all(jnp.stack([jnp.all(s.contains(x[k])) for k, s in self.spaces.items()]))


class Tuple:
    """A tuple of spaces (gymnax's ``Tuple`` interface)."""

    def __init__(self, spaces: Any) -> None:
        self.spaces = tuple(spaces)
        self.num_spaces = len(self.spaces)

    def sample(self, rng: Any) -> tuple[Any, ...]:
        keys = jax.random.split(rng, self.num_spaces)
        return tuple(s.sample(r) for s, r in zip(self.spaces, keys, strict=True))

    def contains(self, x: Any) -> Any:
        return jnp.all(
            jnp.stack([jnp.all(s.contains(v)) for s, v in zip(self.spaces, x, strict=True)])
        )


def _gymnax_spaces() -> Any:
    if "gymnax" not in sys.modules:
        return None
    from gymnax.environments import spaces

    return spaces


def discrete(n: int) -> Any:
    """``Discrete(n)``: gymnax's class if gymnax is loaded, else :class:`Discrete`."""
    spaces = _gymnax_spaces()
    return Discrete(n) if spaces is None else spaces.Discrete(n)


def box(low: Any, high: Any, shape: tuple[int, ...], dtype: Any = jnp.float32) -> Any:
    """A ``Box``: gymnax's class if gymnax is loaded, else :class:`Box`."""
    spaces = _gymnax_spaces()
    return Box(low, high, shape, dtype) if spaces is None else spaces.Box(low, high, shape, dtype)


def dict_space(spaces: dict[str, Any]) -> Any:
    """A :class:`Dict` of spaces (always this one: gymnax's ``Dict.contains`` reads the
    fields as attributes, and the observation is a ``dict``)."""
    return Dict(spaces)


def tuple_space(spaces: Any) -> Any:
    """A :class:`Tuple` of spaces (as :func:`dict_space`, for the tuple mode)."""
    return Tuple(spaces)
