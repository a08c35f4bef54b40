"""Compiled kernels for the batched tables (optional).

:mod:`blackjack_env.envs.batched.numba_kernel` plays the rounds of
:class:`~blackjack_env.envs.vector_core.TableBatch` table by table in code
compiled by numba (an optional dependency: ``pip install numba``). The numpy
core stays the reference; the kernel writes the same state arrays with the same
semantics and is checked against the engine by the same stacked-round tests.
"""

from __future__ import annotations

__all__ = ["numba_available"]


def numba_available() -> bool:
    """True when numba can be imported."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True
