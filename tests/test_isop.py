"""Isometric Projection: geodesic distances, tau, the eigenproblem against dense references, and
the authors' IsoP.m (a step-by-step reference on real faces, and its own output under Octave)."""

import json
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
from scipy.sparse.csgraph import connected_components, shortest_path
from scipy.spatial.distance import cdist
from sklearn.decomposition import PCA

from locproj.methods.isop import IsometricProjection, isop_tau, power_of_two_normalised
from locproj.core.neighbor_graphs import (
    double_centered_squares,
    geodesic_distances,
    geodesic_graph,
    isometric_distances,
    kneighbors,
)
from locproj.core.solvers import solve_embedding


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


def test_tau_is_the_double_centered_squared_geodesics():
    X = _curve(n=40)
    G_ref, _ = _dense_geodesics(X, 5)
    tau = double_centered_squares(G_ref)
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


# --------------------------------------------------------------------------- as the authors' IsoP.m


def _eudist2(A):
    """EuDist2.m: distances by the expansion, negatives set to 0, symmetrised by max."""
    aa = np.sum(A * A, axis=1)
    D = aa[:, None] + aa[None, :] - 2 * A @ A.T
    D[D < 0] = 0
    D = np.sqrt(D)
    return np.maximum(D, D.T)


def _isop_knn_geodesics(D, k):
    """IsoP.m: zero all but each row's k + 1 smallest (itself included), max(D, D'), dijkstra."""
    D = D.copy()
    np.put_along_axis(D, np.argsort(D, axis=1, kind="stable")[:, k + 1:], 0.0, axis=1)
    return shortest_path(np.maximum(D, D.T), method="D", directed=False)  # zeros are no edges


def isop_m_reference(X, y, k):
    """IsoP.m with NeighborMode 'Supervised' (k > 0) or k = 0, and its LGE.m call, step by step on
    data with fewer samples than features (LGE's PCA route through mySVD): the eigenvalues >= 1e-3,
    descending, and the unit-length projections as columns."""
    n = len(X)
    classes = [np.flatnonzero(y == label) for label in np.unique(y)]
    G, maxD = np.zeros((n, n)), 0.0
    for idx in classes:
        D = _eudist2(X[idx])
        maxD = max(maxD, D.max())
        G[np.ix_(idx, idx)] = D if k <= 0 or k >= len(idx) else _isop_knn_geodesics(D, k)
    D = np.full((n, n), 1000 * maxD)
    for idx in classes:
        D[np.ix_(idx, idx)] = G[np.ix_(idx, idx)]
    S = D**2
    sumS = S.sum(axis=0)
    H = np.outer(sumS, np.ones(n)) / n
    tau = -0.5 * (S - H - H.T + sumS.sum() / n**2)
    tau = np.maximum(tau, tau.T)
    Xc = X - X.mean(axis=0)
    gram = Xc @ Xc.T                                     # mySVD: eig(X X'), values below 1e-10 of the largest cut
    w, U = np.linalg.eigh(np.maximum(gram, gram.T))
    order = np.argsort(-w)
    w, U = w[order], U[:, order]
    keep = np.abs(w) / np.abs(w).max() >= 1e-10
    w, U = w[keep], U[:, keep]
    V = Xc.T @ (U / np.sqrt(w))
    W = U.T @ tau @ U                                    # LGE: data = U, eig(WPrime), back through V S^-1
    lam, E = np.linalg.eigh(np.maximum(W, W.T))
    order = np.argsort(-lam)
    lam, E = lam[order], E[:, order]
    P = V @ (E / np.sqrt(w)[:, None])
    P /= np.linalg.norm(P, axis=0)
    keep = lam >= 1e-3                                   # IsoP.m's last step
    return lam[keep], P[:, keep]


def _orl_split(config, mirror, tmp_path, per_class=5, seed=0):
    from locproj.data import prepare_dataset

    spec = config["datasets"]["orl"]
    data = prepare_dataset("orl", spec, [mirror / f["name"] for f in spec["files"]], tmp_path / "orl.h5")
    rng = np.random.default_rng(seed)
    train = np.concatenate([rng.choice(np.flatnonzero(data.y == c), per_class, replace=False)
                            for c in np.unique(data.y)])
    return data.X[train], data.y[train]


@pytest.mark.parametrize("k", [2, 4])
def test_supervised_projection_is_isop_m_on_real_faces(k, config, mirror, tmp_path):
    """ORL, 5 images per person: every column equals the step-by-step reference of IsoP.m (k = 4 is
    the complete class graph of IsoP.m's k >= n_c path; k = 2 drops the directions whose eigenvalue
    is negative: 48 of 199)."""
    X, y = _orl_split(config, mirror, tmp_path)
    lam, P = isop_m_reference(X, y, k)
    est = IsometricProjection(n_neighbors=k, supervised=True).fit(X, y)
    Q = est.components_.T
    assert Q.shape == P.shape and P.shape[1] == (151 if k == 2 else 199)
    c = len(np.unique(y))
    agreement = np.cos(scipy.linalg.subspace_angles(Q[:, : c - 1], P[:, : c - 1])).min()
    assert agreement >= 0.9999 and agreement > 1 - 1e-12
    np.testing.assert_allclose(np.abs(np.sum(P * Q, axis=0)), 1.0, atol=1e-9)
    np.testing.assert_allclose(est.eigenvalues_, lam, rtol=0, atol=1e-12 * lam[0])


def test_agrees_with_the_authors_output_under_octave():
    """tests/fixtures/isop_octave.json holds IsoP.m's own eigenvectors and eigenvalues, computed once
    under GNU Octave (tools/octave/make_isop_fixture.py): supervised with complete and kNN class
    graphs, more features than samples, and two clusters that the unsupervised kNN graph leaves
    apart."""
    fixture = json.loads((Path(__file__).parent / "fixtures" / "isop_octave.json").read_text())
    for name, case in fixture["cases"].items():
        data = fixture["datasets"][case["data"]]
        X, y = np.array(data["X"]), np.array(data["y"])
        supervised = case["mode"] == "Supervised"
        est = IsometricProjection(n_neighbors=case["k"] or "all", supervised=supervised)
        est.fit(X, y if supervised else None)
        V, lam = np.array(case["eigvector"]), np.array(case["eigvalue"])
        assert est.components_.shape == V.T.shape, name
        np.testing.assert_allclose(np.abs(np.sum(est.components_.T * V, axis=0)), 1.0, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(est.eigenvalues_, lam, rtol=0, atol=1e-13 * lam[0], err_msg=name)


def test_distances_between_classes_are_far_and_within_them_geodesic():
    """Supervised: geodesics on each class's kNN graph (complete when the class has at most
    n_neighbors + 1 points), 1000 times the largest within-class Euclidean distance between classes,
    and the same far value inside a class whose kNN graph falls apart (IsoP.m leaves it infinite)."""
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1, 2], [4, 12, 10])
    X = rng.standard_normal((len(y), 3)) + 5.0 * y[:, None]
    X[y == 2] += np.where(np.arange(10) < 5, 0.0, 30.0)[:, None]   # class 2: two groups far apart
    D = isometric_distances(X, 3, y)
    largest = max(cdist(X[y == c], X[y == c]).max() for c in range(3))
    assert np.all(D[y[:, None] != y[None, :]] == 1000 * largest)
    small = np.flatnonzero(y == 0)                                   # 4 points, k = 3: complete
    np.testing.assert_allclose(D[np.ix_(small, small)], cdist(X[small], X[small]), rtol=1e-15)
    middle = np.flatnonzero(y == 1)
    G, _ = _dense_geodesics(X[middle], 3)
    np.testing.assert_allclose(D[np.ix_(middle, middle)], G, rtol=1e-12)
    split = np.flatnonzero(y == 2)
    apart = (np.arange(10) < 5)[:, None] != (np.arange(10) < 5)[None, :]
    assert np.all(D[np.ix_(split, split)][apart] == 1000 * largest)
    assert np.all(np.isfinite(isop_tau(X, y, 3, True)))


def test_unsupervised_disconnected_graph_gets_the_far_distance():
    """Two clusters the 5-NN graph leaves apart: 1000 times the largest Euclidean distance between
    them, as IsoP.m sets its infinite geodesics; the fit succeeds."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.standard_normal((15, 3)), rng.standard_normal((20, 3)) + 50.0])
    D = isometric_distances(X, 5)
    apart = np.repeat([0, 1], [15, 20])
    apart = apart[:, None] != apart[None, :]
    assert np.all(D[apart] == 1000 * cdist(X, X).max())
    assert IsometricProjection(n_neighbors=5).fit(X).n_components_ == 3


def test_first_class_directions_put_each_class_at_one_point():
    """Supervised, the c - 1 leading directions carry the far between-class distances: with more
    features than samples the within-class share of the projected scatter is rounding (< 1e-8)."""
    rng = np.random.default_rng(5)
    y = np.repeat(np.arange(6), 5)
    X = rng.standard_normal((30, 80)) + 0.5 * rng.standard_normal((6, 80))[y]
    for k in (2, 4, "all"):
        Z = IsometricProjection(n_neighbors=k, supervised=True).fit(X, y).transform(X)[:, :5]
        within = sum(np.sum((Z[y == c] - Z[y == c].mean(axis=0)) ** 2) for c in range(6))
        assert within / np.sum((Z - Z.mean(axis=0)) ** 2) < 1e-8


def test_keeps_exactly_the_directions_with_a_positive_eigenvalue():
    """The cut: the same problem solved without it has the dropped eigenvalues, all <= 0, after
    the kept ones, all positive; the kept columns are the same (a prefix)."""
    rng = np.random.default_rng(6)
    y = np.repeat(np.arange(4), 12)
    X = rng.standard_normal((48, 60)) + rng.standard_normal((4, 60))[y]
    est = IsometricProjection(n_neighbors=2, supervised=True).fit(X, y)
    tau, exponent = power_of_two_normalised(isop_tau(X, y, 2, True))
    emb = solve_embedding(X, tau, None, maximize=True, degenerate_rtol=1e-12)
    lam = np.ldexp(emb.eigenvalues, exponent)
    kept = est.n_components_
    assert 0 < kept < len(lam) and np.all(lam[:kept] > 0) and np.all(lam[kept:] <= 0)
    np.testing.assert_allclose(est.eigenvalues_, lam[:kept], rtol=1e-12)
    unit = emb.components[:, :kept] / np.linalg.norm(emb.components[:, :kept], axis=0)
    np.testing.assert_allclose(est.components_.T, unit, atol=1e-12)


def test_large_neighborhoods_are_complete_class_graphs():
    """n_neighbors at or above a class's size minus one links every pair of the class, as 'all'
    does (IsoP.m: k >= n_c); unsupervised, n_neighbors >= n - 1 is the complete graph (PCA)."""
    rng = np.random.default_rng(7)
    y = np.repeat([0, 1, 2], [3, 5, 4])
    X = rng.standard_normal((12, 6)) + y[:, None]
    np.testing.assert_array_equal(isop_tau(X, y, 4, True), isop_tau(X, y, "all", True))
    np.testing.assert_array_equal(isop_tau(X, None, 11, False), isop_tau(X, None, "all", False))
    np.testing.assert_array_equal(isop_tau(X, None, 40, False), isop_tau(X, None, "all", False))


@pytest.mark.parametrize("scale", [1e-130, 3.0, 1e140])
@pytest.mark.parametrize("supervised", [False, True])
def test_scale_free_far_from_unit_scale(scale, supervised):
    """``X^T tau X`` scales as the fourth power of X: far from unit scale it would over- or
    underflow; the components must not change and the eigenvalues scale by ``scale^2``.
    Supervised, the far between-class distances make the first eigenvalue ~1e6 times the others,
    so rounding moves the later columns and eigenvalues ~1e6 times more than it would otherwise."""
    X = _curve(n=40)
    y = np.arange(40) % 2
    a = IsometricProjection(n_neighbors=4, supervised=supervised).fit(X, y)
    b = IsometricProjection(n_neighbors=4, supervised=supervised).fit(X * scale, y)
    tol = 1e-6 if supervised else 1e-12
    np.testing.assert_allclose(b.components_, a.components_, rtol=0, atol=tol * 1e-2)
    np.testing.assert_allclose(b.eigenvalues_, a.eigenvalues_ * scale**2, rtol=tol)


def test_complete_graph_gives_pca():
    """n_neighbors='all': geodesics are the Euclidean distances, tau = X~ X~^T and IsoP is PCA."""
    X = _curve(n=50)
    est = IsometricProjection(n_neighbors="all").fit(X)
    pca = PCA().fit(X)
    np.testing.assert_allclose(np.abs(np.sum(est.components_ * pca.components_, axis=1)), 1.0, atol=1e-10)
