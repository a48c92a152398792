"""Orthogonal LPP: the sequential problem against a brute-force reference, the paper's eigenproblems,
orthonormality, order, degenerate steps and scikit-learn's checks."""

import numpy as np
import pytest
import scipy.linalg
from sklearn.base import clone

from locproj.core.orthogonal import solve_orthogonal_sequence
from locproj.methods.lpp import LocalityPreservingProjection, lpp_graph
from locproj.methods.olpp import OrthogonalLPP


def _data(n=60, d=6, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * np.linspace(3.0, 0.5, d) + 2.0
    return X, np.arange(n) % classes


def _pencil(X, y, **graph):
    """``(X~^T L X~, X~^T D X~)`` of LPP's graph, densely, and the centred data."""
    L, D = lpp_graph(X, y, graph.get("n_neighbors", 5), graph.get("weight", "heat"), None,
                     graph.get("supervised", True))
    Xc = X - X.mean(axis=0)
    return Xc.T @ (L.toarray() @ Xc), Xc.T @ (D.toarray() @ Xc), Xc


def _reference(S, C, Xc, p):
    """For k = 1..p: the minimiser of ``a^T S a / a^T C a`` over the unit vectors of the row space of
    ``Xc`` orthogonal to the k - 1 found before, densely on an explicit basis of that set."""
    outside = scipy.linalg.null_space(Xc).T  # directions no sample varies along
    found, values = [], []
    for _ in range(p):
        Q = scipy.linalg.null_space(np.vstack(found + [outside])) if found or len(outside) else np.eye(len(S))
        w, V = scipy.linalg.eigh(Q.T @ S @ Q, Q.T @ C @ Q)
        a = Q @ V[:, 0]
        found.append(a / np.linalg.norm(a))
        values.append(w[0])
    return np.array(found).T, np.array(values)


def _same_up_to_sign(a, b, atol):
    assert min(np.abs(a - b).max(), np.abs(a + b).max()) < atol, (a, b)


@pytest.mark.parametrize("graph", [dict(n_neighbors=4), dict(n_neighbors=6, supervised=False, weight="binary")],
                         ids=["supervised-heat", "unsupervised-binary"])
def test_every_vector_is_the_minimiser_on_the_orthogonal_complement(graph):
    X, y = _data()
    S, C, Xc = _pencil(X, y, **graph)
    ref, values = _reference(S, C, Xc, 6)
    est = OrthogonalLPP(**graph).fit(X, y)
    for k in range(6):
        _same_up_to_sign(est.components_[k], ref[:, k], atol=1e-9)
    np.testing.assert_allclose(est.eigenvalues_, values, rtol=1e-10)


def test_more_features_than_samples_stays_in_the_row_space():
    """d > n: the PCA step keeps rank(X~) = n - 1 directions; the sequence is the reference's on the
    row space (unsupervised connected graph: no degenerate eigenvalue)."""
    X, y = _data(n=20, d=45, seed=3)
    S, C, Xc = _pencil(X, y, n_neighbors=5, supervised=False)
    ref, values = _reference(S, C, Xc, 5)
    est = OrthogonalLPP(5, n_neighbors=5, supervised=False).fit(X, y)
    for k in range(5):
        _same_up_to_sign(est.components_[k], ref[:, k], atol=1e-8)
    np.testing.assert_allclose(est.eigenvalues_, values, rtol=1e-8)
    full = OrthogonalLPP(n_neighbors=5, supervised=False).fit(X, y)
    assert full.n_components_ == 19
    outside = scipy.linalg.null_space(Xc)
    assert np.abs(full.components_ @ outside).max() < 1e-10


def test_the_first_vector_is_lpps_first():
    X, y = _data(seed=1)
    for graph in (dict(n_neighbors=4), dict(n_neighbors=7, supervised=False, weight="binary", gamma=None)):
        olpp = OrthogonalLPP(**graph).fit(X, y)
        lpp = LocalityPreservingProjection(**graph).fit(X, y)
        _same_up_to_sign(olpp.components_[0], lpp.components_[0], atol=1e-10)
        np.testing.assert_allclose(olpp.eigenvalues_[0], lpp.eigenvalues_[0], rtol=1e-10)


@pytest.mark.parametrize("shape", [(60, 6), (25, 40)])
def test_columns_are_orthonormal_and_the_quotients_non_decreasing(shape):
    X, y = _data(*shape, seed=2)
    est = OrthogonalLPP(n_neighbors=3).fit(X, y)
    P = est.components_.T
    np.testing.assert_allclose(P.T @ P, np.eye(P.shape[1]), rtol=0, atol=1e-12)
    S, C, _ = _pencil(X, y, n_neighbors=3)
    quotients = np.einsum("ij,ij->j", P, S @ P) / np.einsum("ij,ij->j", P, C @ P)
    scale = np.abs(quotients).max()
    np.testing.assert_allclose(est.eigenvalues_, quotients, rtol=0, atol=1e-9 * scale)
    assert np.all(np.diff(est.eigenvalues_) >= -1e-9 * scale)
    assert est.eigenvalues_[-1] > est.eigenvalues_[0]  # strictly more than LPP's optimum by the end


def test_each_vector_solves_the_papers_eigenproblem():
    """Cai et al.'s step k: ``a_k`` is an eigenvector of the non-symmetric
    ``M^(k) = {I - C^-1 A (A^T C^-1 A)^-1 A^T} C^-1 S`` with its eigenvalue the quotient, and the
    other eigenvalues of ``M^(k)`` are the k - 1 zeros of the oblique projector and the eigenvalues
    of the pencil on the complement of ``A = [a_1 ... a_{k-1}]``."""
    X, y = _data(seed=4)
    S, C, _ = _pencil(X, y, n_neighbors=4)
    est = OrthogonalLPP(n_neighbors=4).fit(X, y)
    Cinv = np.linalg.inv(C)
    for k in range(1, 5):
        A, a = est.components_[: k - 1].T, est.components_[k - 1]
        M = Cinv @ S if k == 1 else (np.eye(6) - Cinv @ A @ np.linalg.solve(A.T @ Cinv @ A, A.T)) @ Cinv @ S
        np.testing.assert_allclose(M @ a, est.eigenvalues_[k - 1] * a, rtol=0, atol=1e-10 * np.abs(M).max())
        Q = scipy.linalg.null_space(A.T) if k > 1 else np.eye(6)
        feasible = scipy.linalg.eigh(Q.T @ S @ Q, Q.T @ C @ Q, eigvals_only=True)
        expected = np.sort(np.concatenate([np.zeros(k - 1), feasible]))
        np.testing.assert_allclose(np.sort(np.linalg.eigvals(M).real), expected, rtol=0, atol=1e-9 * feasible.max())


def test_nested_columns():
    X, y = _data(n=40, d=30, seed=5)
    full = OrthogonalLPP(n_neighbors=3).fit(X, y)
    part = OrthogonalLPP(4, n_neighbors=3).fit(X.copy(), y)
    # bitwise on most BLAS kernels, to rounding on others (as tests/test_methods.py::test_nested_columns)
    np.testing.assert_allclose(part.components_, full.components_[:4], rtol=0, atol=1e-12)
    np.testing.assert_allclose(part.eigenvalues_, full.eigenvalues_[:4], rtol=1e-12)


def test_degenerate_first_step_is_resolved_by_variance_and_canonical():
    """Supervised with fewer samples than features: the c - 1 class-indicator directions of the row
    space all have quotient 0.  They come first, ordered by decreasing projected variance, and the
    result does not depend on the order of the samples."""
    rng = np.random.default_rng(6)
    n_classes = 4
    y = np.repeat(np.arange(n_classes), 6)
    X = rng.standard_normal((len(y), 50)) + 3.0 * rng.standard_normal((n_classes, 50))[y]
    est = OrthogonalLPP(n_neighbors=3).fit(X, y)
    head = est.eigenvalues_[: n_classes - 1]
    assert np.all(np.abs(head) < 1e-10 * est.eigenvalues_.max())
    assert est.eigenvalues_[n_classes - 1] > 1e-3 * est.eigenvalues_.max()
    variances = np.sum(((X - est.mean_) @ est.components_[: n_classes - 1].T) ** 2, axis=0)
    assert np.all(np.diff(variances) < 0)
    perm = rng.permutation(len(y))
    other = clone(est).fit(X[perm], y[perm])
    for k in range(8):
        _same_up_to_sign(other.components_[k], est.components_[k], atol=1e-7)


@pytest.mark.parametrize("scale", [1e-130, 3.0, 1e140])
def test_scale_free_far_from_unit_scale(scale):
    X, y = _data(n=40, d=8)
    a = OrthogonalLPP(n_neighbors=3).fit(X, y)
    b = OrthogonalLPP(n_neighbors=3).fit(X * scale, y)
    np.testing.assert_allclose(b.components_, a.components_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.eigenvalues_, a.eigenvalues_, rtol=1e-10)


def test_solver_matches_the_estimator_and_refuses_too_many_components():
    X, y = _data()
    L, D = lpp_graph(X, y, 4, "heat", None, True)
    emb = solve_orthogonal_sequence(X, L, D, n_components=3)
    est = OrthogonalLPP(3, n_neighbors=4).fit(X, y)
    np.testing.assert_allclose(emb.components.T, est.components_, rtol=0, atol=1e-12)
    assert emb.rank == 6 and not emb.regularized
    np.testing.assert_allclose(emb.mean, X.mean(axis=0))
    with pytest.raises(ValueError, match="n_components=7 but only 6 components are available"):
        OrthogonalLPP(7, n_neighbors=4).fit(X, y)
