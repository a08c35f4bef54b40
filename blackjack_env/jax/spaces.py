"""The spaces of the JAX table: gymnax's own classes when gymnax is installed (so its
wrappers accept them), else minimal stand-ins with the same attributes and methods."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["Box", "Discrete"]

try:  # gymnax is optional: its wrappers check isinstance against its own classes
    from gymnax.environments.spaces import Box, Discrete
except ImportError:  # pragma: no cover - exercised where gymnax is absent

    class Discrete:  # type: ignore[no-redef]
        """``n`` actions ``0..n-1`` (gymnax's ``Discrete`` interface)."""

        def __init__(self, num_categories: int) -> None:
            self.n = num_categories
            self.shape = ()
            self.dtype = jnp.int32

        def sample(self, rng: Any) -> Any:
            return jax.random.randint(rng, self.shape, 0, self.n).astype(self.dtype)

        def contains(self, x: Any) -> Any:
            return jnp.logical_and(x >= 0, x < self.n)

    class Box:  # type: ignore[no-redef]
        """A box ``low <= x <= high`` (gymnax's ``Box`` interface)."""

        def __init__(self, low: Any, high: Any, shape: tuple[int, ...], dtype: Any = jnp.float32) -> None:
            self.low = low
            self.high = high
            self.shape = shape
            self.dtype = dtype

        def sample(self, rng: Any) -> Any:
            return jax.random.uniform(
                rng, shape=self.shape, minval=self.low, maxval=self.high
            ).astype(self.dtype)

        def contains(self, x: Any) -> Any:
            return jnp.logical_and(jnp.all(x >= self.low), jnp.all(x <= self.high))
