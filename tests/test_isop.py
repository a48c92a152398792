"""Isometric Projection: geodesic distances, tau, the eigenproblem against dense references, the
supervised per-component treatment, the disconnected-graph error and scikit-learn's checks."""

import numpy as np
import pytest
import scipy.linalg
from scipy.sparse.csgraph import connected_components, shortest_path
from scipy.spatial.distance import cdist
from sklearn.decomposition import PCA

from locproj.methods.isop import IsometricProjection, isop_tau
from locproj.neighbour_graphs import double_centred_squares, geodesic_distances, geodesic_graph, kneighbors


def _curve(n=80, d=5, seed=0):
    """A noisy spiral in the first two coordinates: geodesic distances differ from the chords."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(1.0, 3.5 * np.pi, n) + rng.uniform(-0.1, 0.1, n)
    X = 0.1 * rng.standard_normal((n, d))
    X[:, 0] += theta * np.cos(theta) * 30.0 / n
    X[:, 1] += theta * np.sin(theta) * 30.0 / n
    return X


def _dense_knn_adjacency(X, k, y=None):
    """Boolean adjacency: i - j when either is among the other's k nearest (within its class if y)."""
    D = cdist(X, X)
    if y is not None:
        D = np.where(y[:, None] == y[None, :], D, np.inf)
    np.fill_diagonal(D, np.inf)
    A = np.zeros(D.shape, dtype=bool)
    A[np.arange(len(X))[:, None], np.argsort(D, axis=1)[:, :k]] = True
    return A | A.T


def _dense_geodesics(X, k, y=None):
    A = _dense_knn_adjacency(X, k, y)
    return shortest_path(np.where(A, cdist(X, X), 0.0), method="FW", directed=False), A


def _dense_tau(G):
    n = len(G)
    H = np.eye(n) - np.ones((n, n)) / n
    return -H @ (G**2) @ H / 2


def _top_subspace_reference(X, tau, p):
    Xc = X - X.mean(axis=0)
    w, V = scipy.linalg.eigh(Xc.T @ tau @ Xc, Xc.T @ Xc)
    return w[::-1][:p], V[:, ::-1][:, :p]


def test_geodesic_distances_are_shortest_paths_on_the_symmetric_knn_graph():
    X = _curve()
    G_ref, _ = _dense_geodesics(X, 4)
    G = geodesic_distances(geodesic_graph(kneighbors(X, 4)))
    assert np.all(np.isfinite(G_ref))
    np.testing.assert_allclose(G, G_ref, rtol=1e-12, atol=0)
    chords = cdist(X, X)
    assert np.all(G >= chords - 1e-12) and np.any(G > 1.5 * chords)  # the spiral: geodesics are longer


def test_coincident_points_are_joined_at_distance_zero():
    """With n_neighbors=1 each of two coincident points is the other's only neighbour: the edge has
    length 0 and must still be an edge."""
    X = _curve(n=12)
    X = np.vstack([X, X[3]])
    graph = geodesic_graph(kneighbors(X, 1))
    G = geodesic_distances(graph)
    assert G[3, 12] == 0.0 and G[12, 3] == 0.0
    assert connected_components(graph, directed=False)[1][3] == connected_components(graph, directed=False)[1][12]


def test_tau_is_the_double_centred_squared_geodesics():
    X = _curve(n=40)
    G_ref, _ = _dense_geodesics(X, 5)
    tau = double_centred_squares(G_ref)
    np.testing.assert_allclose(tau, _dense_tau(G_ref), rtol=0, atol=1e-10 * np.abs(tau).max())
    np.testing.assert_allclose(tau.sum(axis=0), 0.0, atol=1e-10 * np.abs(tau).max())
    np.testing.assert_allclose(isop_tau(X, None, 5, False), tau, rtol=1e-12, atol=1e-12 * np.abs(tau).max())


@pytest.mark.parametrize("column_scaling", ["unit", "constraint"])
def test_projection_solves_the_dense_eigenproblem(column_scaling):
    X = _curve()
    G_ref, _ = _dense_geodesics(X, 6)
    w, V = _top_subspace_reference(X, _dense_tau(G_ref), 3)
    est = IsometricProjection(3, n_neighbors=6, column_scaling=column_scaling).fit(X)
    np.testing.assert_allclose(est.eigenvalues_, w, rtol=1e-9)
    assert np.max(scipy.linalg.subspace_angles(est.components_.T, V)) < 1e-8
    for k in range(3):  # distinct eigenvalues: column by column
        cosine = est.components_[k] @ V[:, k] / np.linalg.norm(est.components_[k]) / np.linalg.norm(V[:, k])
        assert abs(abs(cosine) - 1) < 1e-10
    Xc = X - X.mean(axis=0)
    P = est.components_.T
    gram = P.T @ Xc.T @ Xc @ P if column_scaling == "constraint" else P.T @ P
    np.testing.assert_allclose(np.diag(gram), 1.0, rtol=1e-10)


def test_supervised_tau_is_block_diagonal_over_the_components():
    rng = np.random.default_rng(2)
    X = _curve(n=60, seed=2)
    y = rng.integers(0, 3, len(X))
    _, A = _dense_geodesics(X, 3, y)
    n_parts, labels = connected_components(A, directed=False)
    assert n_parts >= 3
    tau = isop_tau(X, y, 3, True).toarray()
    between = labels[:, None] != labels[None, :]
    assert np.all(tau[between] == 0.0)
    expected = np.zeros_like(tau)
    for c in range(n_parts):
        idx = np.flatnonzero(labels == c)
        sub = A[np.ix_(idx, idx)]
        G = shortest_path(np.where(sub, cdist(X[idx], X[idx]), 0.0), method="FW", directed=False)
        assert np.all(np.isfinite(G))
        expected[np.ix_(idx, idx)] = _dense_tau(G)
    np.testing.assert_allclose(tau, expected, rtol=0, atol=1e-10 * np.abs(expected).max())
    w, V = _top_subspace_reference(X, expected, 2)
    est = IsometricProjection(2, n_neighbors=3, supervised=True).fit(X, y)
    np.testing.assert_allclose(est.eigenvalues_, w, rtol=1e-9)
    assert np.max(scipy.linalg.subspace_angles(est.components_.T, V)) < 1e-8


def test_disconnected_unsupervised_graph_is_an_error_that_names_the_fix():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.standard_normal((15, 3)), rng.standard_normal((20, 3)) + 50.0])
    with pytest.raises(ValueError, match=r"graph has 2 connected components \(sizes 20, 15\).*raise n_neighbors"):
        IsometricProjection(n_neighbors=5).fit(X)
    y = np.repeat([0, 1], [15, 20])
    assert IsometricProjection(n_neighbors=5, supervised=True).fit(X, y).n_components_ == 3
    assert IsometricProjection(n_neighbors=15).fit(X).n_components_ == 3  # connected once k >= 15


@pytest.mark.parametrize("scale", [1e-130, 3.0, 1e140])
@pytest.mark.parametrize("supervised", [False, True])
def test_scale_free_far_from_unit_scale(scale, supervised):
    """``X^T tau X`` scales as the fourth power of X: far from unit scale it would over- or
    underflow; the components must not change and the eigenvalues scale by ``scale^2``."""
    X = _curve(n=40)
    y = np.arange(40) % 2
    a = IsometricProjection(n_neighbors=4, supervised=supervised).fit(X, y)
    b = IsometricProjection(n_neighbors=4, supervised=supervised).fit(X * scale, y)
    np.testing.assert_allclose(b.components_, a.components_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.eigenvalues_, a.eigenvalues_ * scale**2, rtol=1e-12)


def test_complete_graph_gives_pca():
    """n_neighbors='all': geodesics are the Euclidean distances, tau = X~ X~^T and IsoP is PCA."""
    X = _curve(n=50)
    est = IsometricProjection(n_neighbors="all").fit(X)
    pca = PCA().fit(X)
    np.testing.assert_allclose(np.abs(np.sum(est.components_ * pca.components_, axis=1)), 1.0, atol=1e-10)
