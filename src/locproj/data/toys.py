"""Toy classification data, seeded: the four-cluster problem of paper 002 (Gönen & Alpaydın), Fig. 1,
and the two moons and concentric circles of the kernel LPP figure (paper 003).

Paper 002 shows its data only as a figure ("four clusters (two for each class)", §4), where no
single projection separates the classes but two regions, each with one cluster of either class,
do.  Our reading (:func:`generate_four_clusters`, the same as ``tests/test_lpk.py``'s): isotropic
Gaussian clusters of standard deviation 0.5 centred at the corners ``(+-2, +-2)`` of a square,
opposite corners in one class (an XOR):

    class 1: (-2, 2) and (2, -2);     class 0: (-2, -2) and (2, 2).

A line through the origin (the gating boundary) then splits the plane into two halves with one
cluster of each class, where one direction (``W_m``, r = 1) separates them.

Paper 003 (Levada's lecture notes on LPP and kernel LPP) has no experiment.  Its figure here (experiment
``lpp_kernel_toy``) uses scikit-learn's two classic nonlinear toys, :func:`generate_two_moons` and
:func:`generate_circles`, whose classes no linear map of the plane separates but a graph that links
near points keeps apart; their ``random_state`` is derived from the seed (:func:`sklearn_random_state`).
"""

from __future__ import annotations

import numpy as np

N_FEATURES = 2
#: cluster centres in units of ``centre``, and the class of each cluster
CORNERS = np.array([[-1.0, 1.0], [1.0, -1.0], [-1.0, -1.0], [1.0, 1.0]])
CLUSTER_CLASSES = np.array([1, 1, 0, 0])


def generate_four_clusters(n_samples: int = 200, *, sd: float = 0.5, center: float = 2.0,
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
    center : float
        Clusters at ``(+-center, +-center)`` (our reading 2; the config key is ``centre``).
    seed : int or None

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
        0 or 1 (:data:`CLUSTER_CLASSES`): opposite corners share a class.
    """
    if n_samples < 4 or n_samples % 4 or sd < 0 or center <= 0:
        raise ValueError(f"need n_samples a positive multiple of 4, sd >= 0 and centre > 0, "
                         f"got {n_samples}, {sd} and {center}")
    rng = np.random.Generator(np.random.PCG64(seed))
    cluster = np.repeat(np.arange(4), n_samples // 4)
    X = center * CORNERS[cluster] + sd * rng.standard_normal((n_samples, N_FEATURES))
    return X, CLUSTER_CLASSES[cluster].astype(np.int64)


# --------------------------------------------------------------------------- paper 003's toys

def sklearn_random_state(seed: int | None, name: str) -> int | None:
    """The ``random_state`` handed to a scikit-learn generator: derived from ``seed`` and the
    generator's ``name`` (:func:`locproj.data.derived_seed`), reduced to the 32 bits that
    :class:`numpy.random.RandomState` takes; None stays None (a fresh draw)."""
    from .splits import derived_seed

    return None if seed is None else derived_seed(seed, name) % 2**32


def generate_two_moons(n_samples: int = 300, *, noise: float = 0.05, seed: int | None = 0
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaving half circles, :func:`sklearn.datasets.make_moons` (shuffled), the
    nonlinear toy of the kernel LPP figure (paper 003 gives none).

    Parameters
    ----------
    n_samples : int
        ``n_samples // 2`` points on the upper moon (class 0: the unit half circle above the
        x-axis), the rest on the lower one (class 1: centred at (1, 0.5), opening upwards).
    noise : float
        Standard deviation of the Gaussian noise added to both coordinates.
    seed : int or None
        ``random_state = sklearn_random_state(seed, "two_moons")``.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
        0 (upper moon) or 1 (lower moon).
    """
    from sklearn.datasets import make_moons

    if n_samples < 2 or noise < 0:
        raise ValueError(f"need n_samples >= 2 and noise >= 0, got {n_samples} and {noise}")
    X, y = make_moons(n_samples, noise=noise, random_state=sklearn_random_state(seed, "two_moons"))
    return np.ascontiguousarray(X, dtype=np.float64), y.astype(np.int64)


def generate_circles(n_samples: int = 300, *, noise: float = 0.05, factor: float = 0.3,
                     seed: int | None = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two concentric circles, :func:`sklearn.datasets.make_circles` (shuffled).

    Parameters
    ----------
    n_samples : int
        ``n_samples // 2`` points on the outer circle (class 0, radius 1), the rest on the inner
        one (class 1, radius ``factor``), evenly spaced in angle before the noise.
    noise : float
        Standard deviation of the Gaussian noise added to both coordinates.
    factor : float
        Radius of the inner circle, in (0, 1).
    seed : int or None
        ``random_state = sklearn_random_state(seed, "circles")``.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
        0 (outer circle) or 1 (inner circle).
    """
    from sklearn.datasets import make_circles

    if n_samples < 2 or noise < 0 or not 0 < factor < 1:
        raise ValueError(f"need n_samples >= 2, noise >= 0 and 0 < factor < 1, got {n_samples}, {noise} "
                         f"and {factor}")
    X, y = make_circles(n_samples, noise=noise, factor=factor, random_state=sklearn_random_state(seed, "circles"))
    return np.ascontiguousarray(X, dtype=np.float64), y.astype(np.int64)
