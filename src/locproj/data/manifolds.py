"""Synthetic manifolds, seeded: the sine-shaped sheet of paper 004 (de Ridder & Duin), Fig. 1(a).

The caption says only "data sampled from a sine-shaped manifold, corrupted by additive Gaussian
noise (sigma = 0.01)", with d = 3 and n = 1000.  Our reading (see :func:`generate_sine_manifold`):
a unit square sheet bent along its first axis into ``periods`` periods of a sine,

    x ~ U(0, 1),   y ~ U(0, 1),   z = amplitude * sin(2 pi periods x),

plus N(0, noise^2) on each of the three coordinates.  One period with amplitude 0.5 (the
defaults) gives the two bends of opposite sign whose high curvature shows as the peaks of
sigma_i^2 against x in Fig. 2(b), and keeps the sheet in the unit cube, the scale at which the
caption's absolute r = 3e-3 (Fig. 1(b)) is a small fraction of the neighbourhoods' trace(Q)
(k = 15).
"""

from __future__ import annotations

import numpy as np

N_FEATURES = 3


def generate_sine_manifold(n_samples: int = 1000, *, noise: float = 0.01, amplitude: float = 0.5,
                           periods: float = 1.0, seed: int | None = 0) -> np.ndarray:
    """Draw ``n_samples`` points of the noisy sine-shaped sheet with ``Generator(PCG64(seed))``.

    Parameters
    ----------
    n_samples : int
    noise : float
        Standard deviation of the isotropic Gaussian noise added to every coordinate
        (paper 004, Fig. 1: 0.01).
    amplitude, periods : float
        ``z = amplitude * sin(2 pi periods x)`` on ``x`` in [0, 1].
    seed : int or None

    Returns
    -------
    X : ndarray of shape (n_samples, 3)
        Columns ``x, y, z``: ``x`` (the axis along which the sheet is bent, the x-axis of Fig. 2(b))
        and ``y`` uniform on [0, 1], then the noise added to all three.
    """
    if n_samples < 1 or noise < 0:
        raise ValueError(f"need n_samples >= 1 and noise >= 0, got {n_samples} and {noise}")
    rng = np.random.Generator(np.random.PCG64(seed))
    x, y = rng.uniform(size=(2, n_samples))
    sheet = np.c_[x, y, amplitude * np.sin(2 * np.pi * periods * x)]
    return sheet + noise * rng.standard_normal((n_samples, N_FEATURES))
