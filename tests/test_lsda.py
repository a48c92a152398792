"""LSDA: its graphs, an independent dense solution, beta = 0 as LPP, all pairs, errors, scikit-learn checks."""

import numpy as np
import pytest
import scipy.linalg
from sklearn.utils._param_validation import InvalidParameterError

from locproj.core.class_graphs import lsda_all_pairs_problem, lsda_graphs
from locproj.methods.lsda import LocalitySensitiveDiscriminantAnalysis
from locproj.core.solvers import solve_embedding

LSDA = LocalitySensitiveDiscriminantAnalysis


def _data(n_per_class=20, n_classes=3, d=5, seed=0):
    """Overlapping Gaussian classes in shuffled order (60 x 5 by default: full rank, d < n)."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.repeat(np.arange(n_classes), n_per_class))
    X = rng.standard_normal((n_classes, d))[y] * 1.5 + rng.standard_normal((len(y), d))
    return X, y


def _dense_graphs(X, y, k, diagonal=True):
    """``W_w``, ``W_b`` from the definition: an edge where either point is among the other's k
    nearest (k = 0: all pairs), each point its own neighbour; split by the labels."""
    n = len(X)
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    G = np.ones((n, n)) if k == 0 else np.zeros((n, n))
    for i in range(n if k else 0):
        others = [j for j in np.argsort(sq[i]) if j != i]
        G[i, others[:k]] = 1.0
    G = np.maximum(G, G.T)
    np.fill_diagonal(G, 1.0 if diagonal else 0.0)
    same = y[:, None] == y[None, :]
    return G * same, G * ~same


def _dense_problem(X, y, k, beta, diagonal=True):
    W_w, W_b = _dense_graphs(X, y, k, diagonal)
    L_b = np.diag(W_b.sum(axis=1)) - W_b
    return beta * L_b + (1 - beta) * W_w, np.diag(W_w.sum(axis=1))


def _reference(X, M, B):
    """Eigenvalues (descending) and columns of ``Xc^T M Xc a = lambda Xc^T B Xc a`` in an SVD basis
    of the centred data's row space (the identity's worth when X has full column rank)."""
    Xc = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    T = Vt[s > 1e-10 * s[0]].T
    Y = Xc @ T
    lam, A = scipy.linalg.eigh(Y.T @ M @ Y, Y.T @ B @ Y)
    return lam[::-1], T @ A[:, ::-1]


def _max_angle(P, Q):
    return float(np.max(scipy.linalg.subspace_angles(P, Q)))


def _cuts(lam):
    """Prefix lengths ``p`` that do not split a cluster of equal eigenvalues (only there is the
    span of the first ``p`` columns unique)."""
    gaps = np.abs(np.diff(lam)) > 1e-6 * np.abs(lam).max()
    return np.flatnonzero(gaps) + 1


def test_graphs_follow_the_definition():
    X, y = _data()
    for k in (3, 0):
        W_w, W_b = lsda_graphs(X, y, k)
        ref_w, ref_b = _dense_graphs(X, y, k)
        np.testing.assert_array_equal(W_w.toarray(), ref_w)
        np.testing.assert_array_equal(W_b.toarray(), ref_b)
        np.testing.assert_array_equal(W_w.diagonal(), np.ones(len(y)))  # each point is its own neighbour
        np.testing.assert_array_equal(W_b.diagonal(), np.zeros(len(y)))
    W_w, W_b = lsda_graphs(X, y, 0)
    np.testing.assert_array_equal(W_w.toarray(), (y[:, None] == y[None, :]).astype(float))
    np.testing.assert_array_equal(W_b.toarray(), (y[:, None] != y[None, :]).astype(float))


@pytest.mark.parametrize("k, beta, shape", [(5, 0.1, (20, 5)), (3, 1.0, (20, 5)), (0, 0.3, (20, 5)),
                                            (2, 0.5, (20, 5)), (5, 0.1, (8, 40)), (0, 0.1, (8, 40))])
def test_matches_a_dense_solution_of_the_equations(k, beta, shape):
    """Eigenvalues and every nested subspace agree with ``eigh`` on the dense matrices (60 x 5, full
    rank; and 24 x 40, where the problem lives in the centred data's 23-dimensional row space)."""
    X, y = _data(n_per_class=shape[0], d=shape[1])
    est = LSDA(n_neighbors=k, beta=beta).fit(X, y)
    lam, P = _reference(X, *_dense_problem(X, y, k, beta))
    assert len(lam) == min(len(y) - 1, X.shape[1])
    kept = est.n_components_                  # LSDA.m's cut: eigenvalues below 1e-10 (1 - beta) dropped
    assert np.all(lam[:kept] > 1e-10 * (1 - beta)) and np.all(lam[kept:] < 1e-9)
    np.testing.assert_allclose(est.eigenvalues_, lam[:kept], rtol=1e-8, atol=1e-10 * np.abs(lam).max())
    assert len(_cuts(lam)) >= (1 if k == 0 else 4)  # all pairs: see the next test
    for p in _cuts(lam[:kept]):
        assert _max_angle(est.components_[:p].T, P[:, :p]) < 1e-6, p
    np.testing.assert_allclose(np.linalg.norm(est.components_, axis=1), 1.0)


def test_drops_the_directions_whose_eigenvalue_is_not_positive():
    """As LSDA.m: with k = 2 on overlapping classes X W_w X^T is indefinite, and exactly the
    directions with an eigenvalue below 1e-10 (1 - beta) go; the others are the same columns."""
    X, y = _data(n_per_class=10, d=12, seed=7)
    est = LSDA(n_neighbors=2, beta=0.2).fit(X, y)
    lam, _ = _reference(X, *_dense_problem(X, y, 2, 0.2))
    assert np.sum(lam < 0) >= 1 and est.n_components_ == np.sum(lam >= 1e-10 * 0.8) < len(lam)
    full = solve_embedding(X, *_dense_problem(X, y, 2, 0.2), maximize=True)
    unit = full.components[:, : est.n_components_] / np.linalg.norm(full.components[:, : est.n_components_], axis=0)
    np.testing.assert_allclose(est.components_.T, unit, atol=1e-10)


def test_all_pairs_and_equal_classes_is_lda_plus_a_constant():
    """All pairs, classes of ``m`` points: ``D_w = m I``, ``D_b = (n - m) I`` and
    ``X~^T W_w X~ = m S_B``, so the ratio is ``beta (n - m) / m + a^T S_B a / a^T S_T a``: the first
    c - 1 directions are LDA's (total-scatter form), every other eigenvalue is ``beta (n - m) / m``."""
    X, y = _data(n_per_class=15, n_classes=4, d=6, seed=5)
    n, m, beta = len(y), 15, 0.3
    est = LSDA(n_neighbors=0, beta=beta).fit(X, y)
    Xc = X - X.mean(axis=0)
    means = np.array([Xc[y == c].mean(axis=0) for c in range(4)])
    mu, A = scipy.linalg.eigh(m * means.T @ means, Xc.T @ Xc)
    np.testing.assert_allclose(est.eigenvalues_[:3], beta * (n - m) / m + mu[::-1][:3], rtol=1e-10)
    np.testing.assert_allclose(est.eigenvalues_[3:], beta * (n - m) / m, rtol=1e-10)
    for p in (1, 2, 3):
        assert _max_angle(est.components_[:p].T, A[:, ::-1][:, :p]) < 1e-6, p


def test_the_diagonal_of_the_within_class_graph_counts():
    """The reference without ``W_w``'s diagonal is a different problem, so the dense comparison
    above tells the two conventions apart."""
    X, y = _data()
    est = LSDA().fit(X, y)
    lam_without, _ = _reference(X, *_dense_problem(X, y, 5, 0.1, diagonal=False))
    assert np.abs(est.eigenvalues_ - lam_without).max() > 1e-3


@pytest.mark.parametrize("shape", [(20, 5), (8, 40)])
def test_beta_zero_is_binary_lpp_on_the_within_class_graph(shape):
    """``a^T X W_w X^T a / a^T X D_w X^T a = 1 - a^T X L_w X^T a / a^T X D_w X^T a``: LSDA with
    beta = 0 maximises what LPP on ``(L_w, D_w)`` minimises, and ``lambda_LSDA = 1 - lambda_LPP``."""
    X, y = _data(n_per_class=shape[0], d=shape[1], seed=3)
    est = LSDA(beta=0.0).fit(X, y)
    W_w, _ = lsda_graphs(X, y, 5)
    D_w = np.diag(W_w.sum(axis=1))
    lpp = solve_embedding(X, D_w - W_w.toarray(), D_w)
    kept = est.n_components_                  # the cut drops LPP's eigenvalues at 1 (and above)
    assert np.all(1.0 - lpp.eigenvalues[kept:] < 1e-10)
    np.testing.assert_allclose(est.eigenvalues_, 1.0 - lpp.eigenvalues[:kept], rtol=1e-9, atol=1e-9)
    assert len(_cuts(lpp.eigenvalues)) >= 4
    for p in _cuts(lpp.eigenvalues):
        assert _max_angle(est.components_[:p].T, lpp.components[:, :p]) < 1e-6, p
    assert est.eigenvalues_[0] > 0.5 > est.eigenvalues_[-1]  # not a trivial spectrum


def test_all_pairs_operator_is_the_dense_problem():
    X, y = _data(n_per_class=7)
    beta = 0.3
    M, D_w = lsda_all_pairs_problem(y, beta)
    W_w, W_b = lsda_graphs(X, y, 0)
    L_b = np.diag(W_b.toarray().sum(axis=1)) - W_b.toarray()
    dense = beta * L_b + (1 - beta) * W_w.toarray()
    V = np.random.default_rng(1).standard_normal((len(y), 4))
    np.testing.assert_allclose(M @ V, dense @ V, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(M @ V[:, 0], dense @ V[:, 0], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(D_w.toarray(), np.diag(W_w.toarray().sum(axis=1)))


def test_every_neighbor_is_all_pairs():
    """With n - 1 neighbours every pair is linked: the same fit as n_neighbors=0."""
    X, y = _data(n_per_class=6)
    a = LSDA(n_neighbors=0, beta=0.4).fit(X, y)
    b = LSDA(n_neighbors=len(y) - 1, beta=0.4).fit(X, y)
    np.testing.assert_allclose(a.eigenvalues_, b.eigenvalues_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.abs(np.einsum("ij,ij->i", a.components_, b.components_)), 1.0, atol=1e-8)


def test_constraint_scaling():
    """'constraint': ``P^T X D_w X^T P = I`` on the centred data."""
    X, y = _data()
    est = LSDA(column_scaling="constraint").fit(X, y)
    W_w, _ = lsda_graphs(X, y, 5)
    Z = (X - est.mean_) @ est.components_.T
    np.testing.assert_allclose(Z.T @ (W_w.sum(axis=1)[:, None] * Z), np.eye(est.n_components_), atol=1e-9)


_LSDA_PARAM = r"The '{}' parameter of LocalitySensitiveDiscriminantAnalysis must be .*Got {} instead"


@pytest.mark.parametrize("params, error, message", [
    # pure parameter checks: scikit-learn's _parameter_constraints, naming the parameter and the value
    ({"n_neighbors": -1}, InvalidParameterError, _LSDA_PARAM.format("n_neighbors", "-1")),
    ({"n_neighbors": 2.5}, InvalidParameterError, _LSDA_PARAM.format("n_neighbors", r"2\.5")),
    ({"n_neighbors": True}, InvalidParameterError, _LSDA_PARAM.format("n_neighbors", "True")),
    # depends on the data (the number of samples): LSDA's own message
    ({"n_neighbors": 30}, ValueError, r"n_neighbors <= 29 \(n_samples - 1\) or n_neighbors=0"),
    ({"beta": -0.1}, InvalidParameterError, _LSDA_PARAM.format("beta", r"-0\.1")),
    ({"beta": 1.5}, InvalidParameterError, _LSDA_PARAM.format("beta", r"1\.5")),
    ({"beta": float("nan")}, InvalidParameterError, _LSDA_PARAM.format("beta", "nan")),
    ({"beta": "0.1"}, InvalidParameterError, _LSDA_PARAM.format("beta", r"'0\.1'")),
])
def test_bad_parameters_are_clear_errors(params, error, message):
    X, y = _data(n_per_class=10)
    with pytest.raises(error, match=message):
        LSDA(**params).fit(X, y)


def test_labels_are_required():
    X, _ = _data()
    with pytest.raises(ValueError, match="requires y"):
        LSDA().fit(X)
