"""Numeric checks of the ``embedding`` protocol: the order checks of cyclic panels (paper 001 §5.2),
the nearest-mean classifier's errors, and where a convergence history settles or a stopping rule stops."""

from __future__ import annotations

import numpy as np

from .samples import coordinates


def _ranks(order) -> np.ndarray:
    order = np.asarray(order)
    if len(np.unique(order)) != len(order):
        raise ValueError("the order values must be distinct")
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[np.argsort(order, kind="stable")] = np.arange(len(order))
    return ranks


def turn_neighbor_fraction(Z, order) -> float:
    """Fraction of points whose two nearest neighbours in ``Z`` are their two neighbours in the turn.

    Parameters
    ----------
    Z : array of shape (n, k)
        Embedded points (Euclidean distances; a point is not its own neighbour).
    order : array of shape (n,)
        Position of each point along one closed turn (e.g. its sample index): the turn
        neighbours of the point of rank ``r`` are those of ranks ``r - 1`` and ``r + 1`` mod ``n``.

    Returns
    -------
    float
    """
    from sklearn.neighbors import NearestNeighbors

    Z = np.asarray(Z, dtype=float)
    n = len(Z)
    if n < 3:
        raise ValueError(f"a turn needs at least 3 points, got {n}")
    ranks = _ranks(order)
    nearest = NearestNeighbors(n_neighbors=2).fit(Z).kneighbors(return_distance=False)
    steps = np.sort((ranks[nearest] - ranks[:, None]) % n, axis=1)   # turn steps to the 2 nearest
    return float(np.mean((steps[:, 0] == 1) & (steps[:, 1] == n - 1)))


def novel_placement_fraction(Z_train, order_train, Z_novel, order_novel) -> float:
    """Fraction of novel points whose nearest training point in the embedding is one of the two
    training samples around them in the turn.

    Parameters
    ----------
    Z_train : array of shape (n_train, k)
    order_train : array of shape (n_train,)
        Positions of the training samples along the turn.
    Z_novel : array of shape (n_novel, k)
    order_novel : array of shape (n_novel,)
        Positions of the novel samples along the same turn, distinct from the training ones: the
        samples around position ``o`` are the training samples just before and just after it
        (cyclically).

    Returns
    -------
    float
    """
    from sklearn.neighbors import NearestNeighbors

    order_train, order_novel = np.asarray(order_train), np.asarray(order_novel)
    if len(order_novel) == 0:
        raise ValueError("no novel points")
    if np.isin(order_novel, order_train).any():
        raise ValueError("novel and training points share positions in the turn")
    ranks = _ranks(order_train)
    after = np.searchsorted(np.sort(order_train), order_novel) % len(order_train)   # rank just after
    before = (after - 1) % len(order_train)
    nearest = NearestNeighbors(n_neighbors=1).fit(np.asarray(Z_train, float))
    hit = ranks[nearest.kneighbors(np.asarray(Z_novel, float), return_distance=False)[:, 0]]
    return float(np.mean((hit == before) | (hit == after)))


def nearest_mean_errors(panel: dict, arrays: dict) -> tuple[dict, dict]:
    """The nearest-mean classifier (:class:`~sklearn.neighbors.NearestCentroid`) trained on the drawn
    coordinates of the training points: ``(arrays, errors)`` with the class means and their labels,
    and the ``classifier``, ``train_error`` and (with novel points) ``test_error``."""
    from sklearn.neighbors import NearestCentroid

    Z_train, Z_novel = coordinates(panel, arrays, "train"), coordinates(panel, arrays, "novel")
    model = NearestCentroid().fit(Z_train, arrays["train_labels"])
    errors = {"classifier": panel["classifier"],
              "train_error": float(np.mean(model.predict(Z_train) != arrays["train_labels"]))}
    if len(Z_novel):
        errors["test_error"] = float(np.mean(model.predict(Z_novel) != arrays["novel_labels"]))
    return {"class_means": model.centroids_, "class_mean_labels": model.classes_}, errors


def tau_stop(objective, tau: float) -> int | None:
    """The iteration (1-based) after which the rule ``J_t >= (1 - tau) J_{t-1}`` of paper 002 §6
    stops: the first ``t >= 2`` where it holds; None when it never does."""
    J = np.asarray(objective, dtype=float)
    hits = np.flatnonzero(J[1:] >= (1.0 - tau) * J[:-1])
    return int(hits[0]) + 2 if len(hits) else None


def settled_iteration(values, rtol: float = 0.01) -> int:
    """The first iteration (1-based) from which every value is within ``rtol`` of the last one
    (relative to its magnitude): where a convergence curve settles."""
    values = np.asarray(values, dtype=float)
    outside = np.flatnonzero(np.abs(values - values[-1]) > rtol * abs(values[-1]))
    return int(outside[-1]) + 2 if len(outside) else 1


def order_checks(Z_train, train, Z_novel, novel, dims: int) -> dict:
    checks = {"turn_neighbour_fraction": turn_neighbor_fraction(Z_train[:, :dims], train)}
    if len(novel):
        checks["novel_placement_fraction"] = novel_placement_fraction(
            Z_train[:, :dims], train, Z_novel[:, :dims], novel)
    return checks
