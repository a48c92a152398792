"""Toy classification data, seeded: the four-cluster problem of paper 002 (Gönen & Alpaydın), Fig. 1.

The paper shows the data only as a figure ("four clusters (two for each class)", §4), where no
single projection separates the classes but two regions, each with one cluster of either class,
do.  Our reading (:func:`generate_four_clusters`, the same as ``tests/test_lpk.py``'s): isotropic
Gaussian clusters of standard deviation 0.5 centred at the corners ``(+-2, +-2)`` of a square,
opposite corners in one class (an XOR):

    class 1: (-2, 2) and (2, -2);     class 0: (-2, -2) and (2, 2).

A line through the origin (the gating boundary) then splits the plane into two halves with one
cluster of each class, where one direction (``W_m``, r = 1) separates them.
"""

from __future__ import annotations

import numpy as np

N_FEATURES = 2
#: cluster centres in units of ``centre``, and the class of each cluster
CORNERS = np.array([[-1.0, 1.0], [1.0, -1.0], [-1.0, -1.0], [1.0, 1.0]])
CLUSTER_CLASSES = np.array([1, 1, 0, 0])


def generate_four_clusters(n_samples: int = 200, *, sd: float = 0.5, centre: float = 2.0,
                           seed: int | None = 0) -> tuple[np.ndarray, np.ndarray]:
    """Draw the four-cluster toy with ``Generator(PCG64(seed))`` (= ``np.random.default_rng(seed)``).

    Parameters
    ----------
    n_samples : int
        A multiple of 4: ``n_samples / 4`` points per cluster, cluster by cluster in the order of
        :data:`CORNERS`.
    sd : float
        Standard deviation of each coordinate about the cluster centre (paper 002 Fig. 1: our
        reading 0.5).
    centre : float
        Clusters at ``(+-centre, +-centre)`` (our reading 2).
    seed : int or None

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
        0 or 1 (:data:`CLUSTER_CLASSES`): opposite corners share a class.
    """
    if n_samples < 4 or n_samples % 4 or sd < 0 or centre <= 0:
        raise ValueError(f"need n_samples a positive multiple of 4, sd >= 0 and centre > 0, "
                         f"got {n_samples}, {sd} and {centre}")
    rng = np.random.Generator(np.random.PCG64(seed))
    cluster = np.repeat(np.arange(4), n_samples // 4)
    X = centre * CORNERS[cluster] + sd * rng.standard_normal((n_samples, N_FEATURES))
    return X, CLUSTER_CLASSES[cluster].astype(np.int64)
