"""A uniformly random legal action per row of a batched action mask, in numpy
(:func:`random_legal_actions`: the batched env's ``action_space.sample()`` with a mask).
"""

from __future__ import annotations

import numpy as np

__all__ = ["random_legal_actions"]

# The legal actions of a mask row of at most 8 actions, as the bits of one byte: the
# number of legal actions by byte, and the j-th legal action (in increasing order) at
# entry 8 * byte + j for j below that number (a stable sort puts the set bits first; for
# byte 0 entry 0 is action 0).
_BIT_OF = (np.arange(256)[:, None] >> np.arange(8)) & 1
_LEGAL_COUNT = _BIT_OF.sum(axis=1).astype(np.float64)
_NTH_LEGAL = np.argsort(1 - _BIT_OF, axis=1, kind="stable").astype(np.intp).reshape(-1)
# as float32: numpy multiplies small integer matrices in a plain loop, float32 ones with
# BLAS (3x faster here); every byte (at most 255) is exact in float32
_BYTE_WEIGHTS = (1 << np.arange(8)).astype(np.float32)


def random_legal_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of an action mask, in numpy.

    ``mask``: ``(N, A)`` 0 / 1 (``info["action_mask"]`` of the batched env, int8, or
    bool); returns ``(N,)`` int action indices. With ``u`` the row's uniform number
    (one ``rng.random(N)`` call) and ``k`` its count of legal actions, the row gets
    its ``floor(u * k)``-th legal action in increasing order (a row with none: 0).
    Masks of up to 8 actions are read as one byte per row and looked up; wider ones
    by a running count (the same actions).
    """
    mask = np.asarray(mask)
    if mask.ndim != 2:
        raise ValueError(f"mask must be 2-D (rows, actions), got shape {mask.shape}")
    u = rng.random(mask.shape[0])
    if mask.shape[1] > 8:
        counts = np.cumsum(mask != 0, axis=1, dtype=np.int64)
        pick = (u * counts[:, -1]).astype(np.int64)
        return (counts > pick[:, None]).argmax(axis=1)
    bits = mask.view(np.uint8) if mask.dtype.itemsize == 1 else (mask != 0).view(np.uint8)
    byte = (bits @ _BYTE_WEIGHTS[: mask.shape[1]]).astype(np.intp)
    pick = (u * _LEGAL_COUNT.take(byte)).astype(np.intp)
    byte <<= 3
    byte += pick
    return _NTH_LEGAL.take(byte)
