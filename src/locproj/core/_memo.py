"""Results derived from one input alone, remembered until a different input arrives.

Cross-validation fits one fold's training data under every grid point, so what depends on the
data alone (its mean, PCA basis and conditioning, the neighbour lists) need only be computed once
per fold.  The inputs are compared bit for bit with a private copy -- never hashed, never
identified by ``id`` -- so a caller modifying its array in place can never get stale results, and
reused values are the very arrays a recomputation would return (callers must not modify them).
Each thread has its own memory.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

_ALL: weakref.WeakSet = weakref.WeakSet()


class LastInput:
    """A memo for the last inputs seen: ``values_for(*arrays)`` returns a dict of derived
    results, emptied whenever the arrays differ from the previous call's."""

    def __init__(self):
        self._local = threading.local()
        _ALL.add(self)

    def values_for(self, *arrays) -> dict:
        arrays = tuple(np.asarray(a) for a in arrays)
        state = self._local
        previous = getattr(state, "arrays", None)
        if previous is None or len(previous) != len(arrays) or not all(map(_identical, previous, arrays)):
            state.arrays = tuple(np.array(a, copy=True) for a in arrays)
            state.values = {}
        return state.values

    def clear(self) -> None:
        self._local.__dict__.clear()

    def __len__(self) -> int:
        """Number of remembered results."""
        return len(getattr(self._local, "values", {}))


def forget() -> None:
    """Empty every memo of this thread (e.g. to time cold fits, or to release the memory)."""
    for memo in list(_ALL):
        memo.clear()


def remembered(memo: dict, what, compute):
    """``memo[what]``, computed by ``compute()`` the first time."""
    if what not in memo:
        memo[what] = compute()
    return memo[what]


def _identical(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype == np.float64:  # bits, so -0.0 and 0.0 differ too
        return bool(np.array_equal(np.ascontiguousarray(a).view(np.uint64), np.ascontiguousarray(b).view(np.uint64)))
    return bool(np.array_equal(a, b))
