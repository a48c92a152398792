"""MFA: its graphs by brute force, an independent dense solution, a singular penalty, errors, scikit-learn checks."""

import itertools

import numpy as np
import pytest
import scipy.linalg
from sklearn.utils._param_validation import InvalidParameterError

from locproj.core import class_graphs
from locproj.core.class_graphs import marginal_pairs_graph, mfa_graphs
from locproj.methods.mfa import MarginalFisherAnalysis

MFA = MarginalFisherAnalysis


def _data(n_per_class=20, n_classes=3, d=5, seed=0):
    """Overlapping Gaussian classes in shuffled order (60 x 5 by default: full rank, d < n)."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.repeat(np.arange(n_classes), n_per_class))
    X = rng.standard_normal((n_classes, d))[y] * 1.5 + rng.standard_normal((len(y), d))
    return X, y


def _sq(X):
    return ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)


def _brute_force_penalty(X, y, k2):
    """Edges ``{i, j}``: for every class, all its between-class pairs sorted by (distance, i, j), first k2."""
    sq = _sq(X)
    edges = set()
    for c in np.unique(y):
        pairs = [(sq[i, j], i, j) for i, j in itertools.product(np.flatnonzero(y == c), np.flatnonzero(y != c))]
        edges |= {frozenset((int(i), int(j))) for _, i, j in sorted(pairs)[:k2]}
    return edges


def _edges(W):
    W = W.tocoo()
    assert np.all(W.data == 1.0)
    return {frozenset((int(i), int(j))) for i, j in zip(W.row, W.col)}


def _dense_intrinsic(X, y, k1):
    sq = _sq(X)
    W = np.zeros((len(y), len(y)))
    for i in range(len(y)):
        same = [j for j in np.argsort(sq[i]) if j != i and y[j] == y[i]]
        W[i, same[:k1]] = 1.0
    return np.maximum(W, W.T)


def _dense_matrices(X, y, k1, k2):
    """``Xc^T L Xc`` and ``Xc^T L^p Xc`` from the graphs built here from their definitions."""
    W = _dense_intrinsic(X, y, k1)
    W_p = np.zeros_like(W)
    for edge in _brute_force_penalty(X, y, k2):
        i, j = tuple(edge)
        W_p[i, j] = W_p[j, i] = 1.0
    Xc = X - X.mean(axis=0)
    return [Xc.T @ (np.diag(G.sum(axis=1)) - G) @ Xc for G in (W, W_p)]


def _max_angle(P, Q):
    return float(np.max(scipy.linalg.subspace_angles(P, Q)))


@pytest.mark.parametrize("k2", [1, 2, 5, 9, 16, 40])
def test_penalty_graph_is_the_k2_shortest_between_class_pairs_of_each_class(k2):
    rng = np.random.default_rng(k2)
    y = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2])[rng.permutation(10)]
    X = rng.standard_normal((10, 2))
    assert _edges(marginal_pairs_graph(X, y, k2)) == _brute_force_penalty(X, y, k2)
    # integer points: many equal distances, ties go to the smaller i, then the smaller j
    X = rng.integers(0, 3, size=(10, 2)).astype(float)
    assert _edges(marginal_pairs_graph(X, y, k2)) == _brute_force_penalty(X, y, k2)


def test_penalty_graph_counts_and_symmetry():
    """Each class contributes exactly k2 of its own between-class pairs (so the graph has at most
    c k2 edges), every edge crosses classes, and a class with fewer pairs links them all."""
    X, y = _data(n_per_class=6)
    W_p = marginal_pairs_graph(X, y, 4)
    assert (W_p != W_p.T).nnz == 0
    edges = _edges(W_p)
    assert all(len({int(y[i]) for i in e}) == 2 for e in edges)
    assert 4 <= len(edges) <= 12
    y2 = np.array([0, 0, 1, 1, 1])
    assert len(_edges(marginal_pairs_graph(np.arange(10.0).reshape(5, 2), y2, 100))) == 6


def test_penalty_graph_in_blocks(monkeypatch):
    """Distances computed a few rows at a time give the same pairs as all at once."""
    X, y = _data(n_per_class=15, seed=4)
    whole = marginal_pairs_graph(X, y, 7)
    monkeypatch.setattr(class_graphs, "_PAIR_BLOCK", 31)
    blocks = marginal_pairs_graph(X, y, 7)
    assert _edges(blocks) == _edges(whole) == _brute_force_penalty(X, y, 7)


def test_intrinsic_graph_follows_the_definition():
    X, y = _data()
    W, _ = mfa_graphs(X, y, 4, 20)
    np.testing.assert_array_equal(W.toarray(), _dense_intrinsic(X, y, 4))


@pytest.mark.parametrize("k1, k2", [(5, 20), (3, 6), (1, 40)])
def test_matches_a_dense_solution_of_the_criterion(k1, k2):
    """On full-rank data (60 x 5) with a regular ``X L^p X^T``: the eigenvalues and every nested
    subspace of ``X L X^T a = lambda X L^p X^T a`` (smallest first) agree with ``eigh``."""
    X, y = _data()
    est = MFA(n_neighbors=k1, n_penalty_pairs=k2).fit(X, y)
    A, B = _dense_matrices(X, y, k1, k2)
    lam, P = scipy.linalg.eigh(A, B)
    np.testing.assert_allclose(est.eigenvalues_, lam, rtol=1e-8)
    assert np.all(np.diff(lam) > 1e-6 * lam.max())
    for p in range(1, len(lam)):
        assert _max_angle(est.components_[:p].T, P[:, :p]) < 1e-6, p
    # the criterion's value: the ratio of intrinsic to penalty spread of each column
    ratios = [c @ A @ c / (c @ B @ c) for c in est.components_]
    np.testing.assert_allclose(ratios, lam, rtol=1e-8)


def test_a_tiny_case_computed_by_hand():
    """Six points in the plane, k1 = 1, k2 = 2, everything written out by hand (Yan et al. 2007, §3.1).

    Class A: 0 (0, 0), 1 (1, 0), 2 (3, 0); class B: 3 (0, 3), 4 (3, 2), 5 (5, 3).
    Intrinsic graph (each point to its nearest of its class): 0-1, 1-2 (2 is 2 from 1, 3 from 0),
    3-4 (sqrt 10 against 5), 4-5 (sqrt 5).  Penalty graph: the squared between-class distances are
    0-3 9, 0-4 13, 0-5 34, 1-3 10, 1-4 8, 1-5 25, 2-3 18, 2-4 4, 2-5 13, so each class's two
    shortest pairs are 2-4 and 1-4.  Scatters, sums of (x_i - x_j)(x_i - x_j)^T over the edges:
    the intrinsic differences (1, 0), (2, 0), (3, -1), (2, 1) give S_c = [[1 + 4 + 9 + 4, -3 + 2],
    [-3 + 2, 1 + 1]] = [[18, -1], [-1, 2]]; the penalty ones (0, 2), (2, 2) give S_p = [[4, 4], [4, 8]]; so
    det(S_c - lambda S_p) = 16 lambda^2 - 160 lambda + 35 = 0: lambda = (160 -+ sqrt(23360)) / 32,
    and the first direction solves (18 - 4 lambda) w_1 = (1 + 4 lambda) w_2."""
    X = np.array([[0, 0], [1, 0], [3, 0], [0, 3], [3, 2], [5, 3]], dtype=float)
    y = np.array([0, 0, 0, 1, 1, 1])
    W, W_p = mfa_graphs(X, y, n_neighbors=1, n_pairs=2)
    assert _edges(W) == {frozenset(e) for e in [(0, 1), (1, 2), (3, 4), (4, 5)]}
    assert _edges(W_p) == {frozenset(e) for e in [(2, 4), (1, 4)]}
    laplacian = lambda G: np.diag(G.sum(axis=1)) - G   # noqa: E731
    np.testing.assert_array_equal(X.T @ laplacian(W.toarray()) @ X, [[18, -1], [-1, 2]])
    np.testing.assert_array_equal(X.T @ laplacian(W_p.toarray()) @ X, [[4, 4], [4, 8]])
    est = MFA(n_neighbors=1, n_penalty_pairs=2).fit(X, y)
    lam = (160 + np.array([-1.0, 1.0]) * np.sqrt(23360.0)) / 32
    np.testing.assert_allclose(est.eigenvalues_, lam, rtol=1e-12)
    w = np.array([1 + 4 * lam[0], 18 - 4 * lam[0]])
    assert abs(est.components_[0] @ w) / np.linalg.norm(w) == pytest.approx(1.0, abs=1e-12)


def test_a_singular_penalty_puts_its_null_directions_last():
    """One pair per class: ``X L^p X^T`` (5 x 5) has rank r <= 3.  The first r columns are the
    finite eigenpairs (the largest ``mu`` of ``X L^p X^T a = mu X L X^T a``, ``lambda = 1 / mu``),
    the remaining ones carry the ridge's huge eigenvalues."""
    X, y = _data(seed=2)
    est = MFA(n_penalty_pairs=1).fit(X, y)
    A, B = _dense_matrices(X, y, 5, 1)
    mu, V = scipy.linalg.eigh(B, A)
    r = int(np.sum(mu > 1e-10 * mu.max()))
    assert 1 <= r <= 3 and r == np.linalg.matrix_rank(B)
    np.testing.assert_allclose(est.eigenvalues_[:r], 1.0 / mu[::-1][:r], rtol=1e-6)
    assert est.eigenvalues_[r] > 1e6 * est.eigenvalues_[r - 1]
    for p in range(1, r + 1):
        assert _max_angle(est.components_[:p].T, V[:, ::-1][:, :p]) < 1e-6, p


def test_zero_ratio_directions_come_first_when_d_exceeds_n():
    """d > n: every class is a connected intrinsic component, so the c - 1 directions that are
    constant on each class have no intrinsic spread (ratio 0) and lead; the others are positive."""
    X, y = _data(n_per_class=8, d=40)
    est = MFA(n_neighbors=3, n_penalty_pairs=10).fit(X, y)
    Z = (X - est.mean_) @ est.components_[:2].T
    for c in range(3):
        assert np.ptp(Z[y == c], axis=0).max() < 1e-6 * np.abs(Z).max(), c
    assert np.all(np.abs(est.eigenvalues_[:2]) < 1e-6) and np.all(est.eigenvalues_[2:] > 1e-3)


_MFA_PARAM = r"The '{}' parameter of MarginalFisherAnalysis must be .*Got {} instead"


@pytest.mark.parametrize("params, error, message", [
    # pure parameter checks: scikit-learn's _parameter_constraints, naming the parameter and the value
    ({"n_penalty_pairs": 0}, InvalidParameterError, _MFA_PARAM.format("n_penalty_pairs", "0")),
    ({"n_penalty_pairs": -3}, InvalidParameterError, _MFA_PARAM.format("n_penalty_pairs", "-3")),
    ({"n_penalty_pairs": 2.5}, InvalidParameterError, _MFA_PARAM.format("n_penalty_pairs", r"2\.5")),
    ({"n_penalty_pairs": True}, InvalidParameterError, _MFA_PARAM.format("n_penalty_pairs", "True")),
    ({"n_neighbors": 0}, InvalidParameterError, _MFA_PARAM.format("n_neighbors", "0")),
    # depends on the data (the class sizes): MFA's own message
    ({"n_neighbors": 10}, ValueError, r"class 0 has only 10 samples; use n_neighbors <= 9"),
])
def test_bad_parameters_are_clear_errors(params, error, message):
    X, y = _data(n_per_class=10)
    with pytest.raises(error, match=message):
        MFA(**params).fit(X, y)


def test_labels_are_required():
    X, _ = _data()
    with pytest.raises(ValueError, match="requires y"):
        MFA().fit(X)
