"""Breiman's waveform generator (Breiman et al., CART, 1984, §2.6.2), seeded.

Three triangular base waves on 21 points, h1(i) = max(6 − |i − 11|, 0), h2(i) = h1(i − 4),
h3(i) = h1(i + 4) for i = 1..21. Each class mixes two of them with u ~ U(0, 1) and adds
standard normal noise: class 0 = u·h1 + (1−u)·h2, class 1 = u·h1 + (1−u)·h3,
class 2 = u·h2 + (1−u)·h3; classes are equiprobable.
"""

from __future__ import annotations

import numpy as np

N_FEATURES = 21
_CLASS_WAVES = ((0, 1), (0, 2), (1, 2))


def base_waves() -> np.ndarray:
    """The three base waves h1, h2, h3 as rows of a (3, 21) array."""
    i = np.arange(1, N_FEATURES + 1)
    h1 = np.maximum(6 - np.abs(i - 11), 0)
    return np.stack([h1, np.maximum(6 - np.abs(i - 15), 0), np.maximum(6 - np.abs(i - 7), 0)]).astype(float)


def generate_waveform(n_samples: int, seed: int | None = 0) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n_samples`` waveform vectors and their classes with ``Generator(PCG64(seed))``."""
    rng = np.random.Generator(np.random.PCG64(seed))
    waves = base_waves()
    y = rng.integers(0, 3, size=n_samples)
    u = rng.uniform(size=(n_samples, 1))
    first, second = np.array(_CLASS_WAVES).T
    X = u * waves[first[y]] + (1 - u) * waves[second[y]] + rng.standard_normal((n_samples, N_FEATURES))
    return X, y.astype(np.int64)
