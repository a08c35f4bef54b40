"""The spaces of the JAX table: gymnax's own classes when gymnax has been imported (so
its wrappers, which check ``isinstance`` against them, accept the env), else minimal
stand-ins with the same attributes and methods. gymnax is never imported here (it is
not a dependency, and importing it pulls in plotting libraries)."""

from __future__ import annotations

import sys
from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["box", "discrete"]


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
