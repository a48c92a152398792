"""The one generalized-eigenproblem solver: optimality, constraints, conventions."""

import re
import warnings

import numpy as np
import pytest
import scipy.linalg
from scipy import sparse
from scipy.sparse.linalg import aslinearoperator
from sklearn.decomposition import PCA
from threadpoolctl import threadpool_limits

from locproj.core.class_graphs import class_block_graph
from locproj.core.neighbor_graphs import (
    heat_weights,
    kneighbors,
    laplacian,
    laplacian_factor,
    symmetrize,
)
from locproj.core.reconstruction_weights import lle_weights, reconstruction_error
from locproj.core.solvers import GramFactor, fix_signs, pca_basis, solve_embedding


def _problem(n=40, d=8, seed=0, classes=4):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * np.linspace(3, 0.5, d)
    y = np.arange(n) % classes
    nbhd = kneighbors(X, 3, y)
    L, D = laplacian(symmetrize(heat_weights(nbhd)))
    return X, y, L, D


def _random_feasible(Xc, B, p, rng, constraint):
    """Random P satisfying the constraint exactly (B-orthonormalised or orthonormalised).
    With P^T P = I the problem lives in the row space of Xc (000 §4.1: LLP is solved after
    PCA), otherwise directions orthogonal to every sample would have zero cost."""
    if constraint == "orthonormal":
        rows = _row_space(Xc)
        return np.linalg.qr(rows.T @ rng.standard_normal((len(rows), p)))[0]
    P = rng.standard_normal((Xc.shape[1], p))
    C = P.T @ Xc.T @ (B @ (Xc @ P))
    return P @ np.linalg.inv(scipy.linalg.sqrtm(C).real)


def _row_space(Xc):
    return np.linalg.svd(Xc, full_matrices=False)[2][: np.linalg.matrix_rank(Xc)]


def _objective(Xc, L, P):
    return np.trace(P.T @ Xc.T @ (L @ (Xc @ P)))


@pytest.mark.parametrize("shape", [(40, 8), (20, 60)])
@pytest.mark.parametrize("constraint", ["B", "orthonormal"])
@pytest.mark.parametrize("maximize", [False, True])
def test_solution_attains_the_optimum_and_satisfies_the_constraint(shape, constraint, maximize):
    rng = np.random.default_rng(1)
    X, _, L, D = _problem(*shape, classes=2)
    Xc = X - X.mean(axis=0)
    p = 3
    emb = solve_embedding(X, L, D, constraint=constraint, n_components=p, maximize=maximize,
                          resolve_degenerate=False)
    P = emb.components
    gram = P.T @ P if constraint == "orthonormal" else P.T @ Xc.T @ (D @ (Xc @ P))
    np.testing.assert_allclose(gram, np.eye(p), atol=1e-8)
    best = _objective(Xc, L, P)
    assert best == pytest.approx(emb.eigenvalues.sum(), rel=1e-8, abs=1e-10)
    others = [_objective(Xc, L, _random_feasible(Xc, D, p, rng, constraint)) for _ in range(200)]
    if maximize:
        assert best >= max(others) - 1e-9
    else:
        assert best <= min(others) + 1e-9
    # small feasible perturbations of the optimum are not better either
    for _ in range(50):
        rows = _row_space(Xc)
        Q = P + 1e-3 * rows.T @ (rows @ rng.standard_normal(P.shape))
        Q = _renormalise(Xc, D, Q, constraint)
        assert (_objective(Xc, L, Q) <= best + 1e-9) if maximize else (_objective(Xc, L, Q) >= best - 1e-9)


def _renormalise(Xc, B, P, constraint):
    if constraint == "orthonormal":
        return np.linalg.qr(P)[0]
    C = P.T @ Xc.T @ (B @ (Xc @ P))
    return P @ np.linalg.inv(scipy.linalg.sqrtm(C).real)


def test_pca_step_keeps_every_nonzero_component():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((15, 50))
    assert pca_basis(X - X.mean(0), whiten=False).Y.shape[1] == 14  # n - 1 after centring
    low_rank = rng.standard_normal((30, 4)) @ rng.standard_normal((4, 12))
    basis = pca_basis(low_rank - low_rank.mean(0), whiten=True)
    assert basis.Y.shape[1] == 4
    np.testing.assert_allclose(basis.Y.T @ basis.Y, np.eye(4), atol=1e-10)


def test_pca_through_the_solver_matches_sklearn():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((30, 6)) @ rng.standard_normal((6, 6))
    n = len(X)
    emb = solve_embedding(X, sparse.eye_array(n, format="csr"), constraint="orthonormal",
                          n_components=3, maximize=True)
    ref = PCA(n_components=3).fit(X)
    np.testing.assert_allclose(np.abs(emb.components.T @ ref.components_.T), np.eye(3), atol=1e-10)
    np.testing.assert_allclose(emb.eigenvalues, ref.explained_variance_ * (n - 1), rtol=1e-10)


def test_singular_constraint_gets_the_ridge_and_null_directions_come_first():
    # LDA-like: maximise total scatter subject to the within-class scatter, d >> n:
    # the within-class Laplacian is singular on the c - 1 class-indicator directions.
    rng = np.random.default_rng(4)
    n, c = 24, 3
    X = rng.standard_normal((n, 100))
    y = np.arange(n) % c
    W = class_block_graph(y)
    L_w, _ = laplacian(W)
    emb = solve_embedding(X, sparse.eye_array(n, format="csr"), L_w, maximize=True)
    assert emb.regularized
    F = (X - emb.mean) @ emb.components[:, : c - 1]
    for k in range(c):  # every class collapses to one point in the first c - 1 directions
        np.testing.assert_allclose(F[y == k], F[y == k][[0]].repeat((y == k).sum(), 0), atol=1e-6)
    assert np.all(emb.eigenvalues[: c - 1] > 1e6 * emb.eigenvalues[c - 1])


def test_sign_convention():
    P = np.array([[1.0, -3.0, 2.0], [-2.0, 1.0, -2.0]])
    np.testing.assert_array_equal(fix_signs(P), [[-1.0, 3.0, 2.0], [2.0, -1.0, -2.0]])
    X, _, L, D = _problem()
    emb = solve_embedding(X, L, D)
    P = emb.components
    assert np.all(P[np.argmax(np.abs(P), axis=0), np.arange(P.shape[1])] > 0)


def test_degenerate_eigenspace_is_resolved_deterministically_by_variance():
    # supervised graph, d >> n: a (c - 1)-dimensional zero-eigenvalue space
    rng = np.random.default_rng(5)
    n, c = 30, 4
    X = rng.standard_normal((n, 80))
    y = np.arange(n) % c
    L, D = laplacian(symmetrize(heat_weights(kneighbors(X, 3, y))))
    runs = [solve_embedding(X, L, D) for _ in range(2)]
    assert np.array_equal(runs[0].components, runs[1].components)
    emb = runs[0]
    assert np.all(np.abs(emb.eigenvalues[: c - 1]) < 1e-10) and emb.eigenvalues[c - 1] > 1e-3
    F = (X - emb.mean) @ emb.components[:, : c - 1]
    S = F.T @ F
    np.testing.assert_allclose(S - np.diag(np.diag(S)), 0, atol=1e-8 * S.max())
    assert np.all(np.diff(np.diag(S)) < 0)
    # a permutation of the samples gives the same canonical basis
    perm = rng.permutation(n)
    emb_p = solve_embedding(X[perm], L[perm][:, perm], D[perm][:, perm])
    cosines = np.einsum("ij,ij->j", emb_p.components, emb.components) / (
        np.linalg.norm(emb_p.components, axis=0) * np.linalg.norm(emb.components, axis=0))
    np.testing.assert_allclose(np.abs(cosines[: c + 2]), 1.0, atol=1e-8)


def _classes_in_80_dimensions(c):
    """30 points of ``c`` classes in 80 dimensions of falling scale, and their supervised heat-graph LPP with
    ``B = I``: a null cluster of ``c - 1`` directions, all of variance 1."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((30, 80)) * np.linspace(3, 0.2, 80)
    L, _ = laplacian(symmetrize(heat_weights(kneighbors(X, 3, np.arange(30) % c))))
    return X, solve_embedding(X, L)


def test_equal_variances_in_a_degenerate_cluster_are_ordered_shortest_column_first():
    # with the total scatter as constraint (B = I) every direction of the zero cluster has variance 1:
    # the Euclidean Gram of the cluster's columns decides, diagonal and ascending
    c = 4
    X, emb = _classes_in_80_dimensions(c)
    assert np.all(np.abs(emb.eigenvalues[: c - 1]) < 1e-10) and emb.eigenvalues[c - 1] > 1e-3
    P = emb.components[:, : c - 1]
    F = (X - emb.mean) @ P
    np.testing.assert_allclose(F.T @ F, np.eye(c - 1), atol=1e-9)   # the variances tie
    G = P.T @ P
    np.testing.assert_allclose(G - np.diag(np.diag(G)), 0, atol=1e-10 * G.max())
    assert np.all(np.diff(np.diag(G)) > 0)


@pytest.mark.parametrize("n", [1, 2, 5, 127, 128, 129, 300])
@pytest.mark.parametrize("generalized", [True, False])
def test_selected_eigenpairs_match_scipy(n, generalized):
    from locproj.core._eigh import eigh_selected

    rng = np.random.default_rng(n)
    M = rng.standard_normal((n, n))
    M = M + M.T
    G = rng.standard_normal((n + 3, n))
    N = G.T @ G + np.eye(n) if generalized else None
    expected_values, expected_vectors = scipy.linalg.eigh(M, N)
    wanted = slice(n // 3, n - n // 4)
    values, vectors = eigh_selected(np.triu(M).T.copy().T, None if N is None else np.asfortranarray(np.triu(N)),
                                    lambda ev: wanted)
    scale = np.abs(expected_values).max()
    np.testing.assert_allclose(values, expected_values, atol=1e-12 * scale)
    signs = np.sign(np.einsum("ij,ij->j", vectors, expected_vectors[:, wanted]))
    np.testing.assert_allclose(vectors * signs, expected_vectors[:, wanted], atol=1e-9)


def test_divide_and_conquer_that_does_not_converge_falls_back_to_ql(monkeypatch):
    """LAPACK's dstevd can fail to converge on large clusters of eigenvalues (seen once, on one fold
    of LFDA's ridge-regularised pencil under one BLAS thread): the tridiagonal problem is then solved
    by dstev (implicit QL/QR), with the same eigenpairs."""
    from scipy.linalg import lapack

    from locproj.core._eigh import eigh_selected

    def no_convergence(d, e, compute_v=1):
        return d.copy(), np.zeros((len(d), len(d))), 37
    rng = np.random.default_rng(9)
    M = rng.standard_normal((40, 40))
    M = M + M.T
    expected_values, expected_vectors = scipy.linalg.eigh(M)
    monkeypatch.setattr(lapack, "dstevd", no_convergence)
    values, vectors = eigh_selected(M.copy(), None, lambda ev: slice(0, 5))
    np.testing.assert_allclose(values, expected_values, atol=1e-12 * np.abs(expected_values).max())
    signs = np.sign(np.einsum("ij,ij->j", vectors, expected_vectors[:, :5]))
    np.testing.assert_allclose(vectors * signs, expected_vectors[:, :5], atol=1e-10)


@pytest.mark.parametrize("factored", [False, True])
def test_fewer_samples_than_features_solves_the_pencil_in_householder_coordinates(factored):
    import locproj.core.solvers as solvers

    X, y, L, D = _problem(24, 40)                 # rank n - 1: the centred data span 1^perp
    W = D - L
    graph = GramFactor(laplacian_factor(W)) if factored else L
    emb = solve_embedding(X, graph, D, n_components=6)
    remembered = solvers._DATA_MEMO.values_for(X, np.asarray(True)).values()
    assert any(isinstance(value, solvers._ComplementBasis) for value in remembered)
    Xc = X - X.mean(axis=0)
    F = Xc @ emb.components
    np.testing.assert_allclose(F.T @ (D @ F), np.eye(6), atol=1e-9)
    Lx, Dx = Xc.T @ (L @ Xc), Xc.T @ (D @ Xc)
    residual = Lx @ emb.components - Dx @ emb.components * emb.eigenvalues
    assert np.abs(residual).max() < 1e-9 * np.abs(Lx).max()
    reference = scipy.linalg.eigh(*(scipy.linalg.null_space(np.ones((1, 24))).T @ A
                                    @ scipy.linalg.null_space(np.ones((1, 24)))
                                    for A in (L.toarray(), D.toarray())), eigvals_only=True)
    np.testing.assert_allclose(emb.eigenvalues, reference[:6], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("maximize", [False, True])
@pytest.mark.parametrize("shape", [(60, 10), (400, 300)])  # one block of reflectors, and three
def test_fewer_components_are_the_prefix_to_the_last_bit(maximize, shape):
    X, _, L, D = _problem(*shape)
    # single-threaded BLAS, as in the pipeline: threaded kernels may split the work differently
    # for different numbers of columns
    with threadpool_limits(1):
        full = solve_embedding(X, L, D, maximize=maximize)
        for k in (k for k in (1, 3, 9, 17, 40) if k < shape[1]):
            part = solve_embedding(X, L, D, n_components=k, maximize=maximize)
            assert np.array_equal(part.eigenvalues, full.eigenvalues[:k])
            # the same bits with most BLAS builds; with OpenBLAS 0.3.23 (numpy 1.25's wheel) on an AMD EPYC
            # the three blocks of reflectors of (400, 300) move the last bit (3e-16 of the largest entry)
            np.testing.assert_allclose(part.components, full.components[:, :k], rtol=0,
                                       atol=1e-15 * np.abs(full.components).max())


def test_a_degenerate_cluster_cut_by_n_components_is_resolved_whole():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((20, 30))     # n <= d: the class indicators lie in the data's span
    y = np.repeat(np.arange(4), 5)
    W = sparse.csr_array((y[:, None] == y[None]).astype(float) - np.eye(20))
    L, D = laplacian(W)                   # complete class graphs: a 3-fold zero eigenvalue
    full = solve_embedding(X, L, D)
    assert np.allclose(full.eigenvalues[:3], 0.0, atol=1e-10) and full.eigenvalues[3] > 1e-6
    for k in (1, 2):
        part = solve_embedding(X, L, D, n_components=k).components   # to rounding: see test_nested_columns
        np.testing.assert_allclose(part, full.components[:, :k], rtol=0, atol=1e-12 * np.abs(full.components).max())


@pytest.mark.parametrize("symmetric", [False, True])
def test_kernel_matrix_as_data_solves_KLK(symmetric):
    X, _, L, D = _problem(25, 5)
    K = (X @ X.T / 5 + 1.0) ** 2
    emb = solve_embedding(K, L, D, center=False, n_components=3, resolve_degenerate=False,
                          symmetric=symmetric)
    alpha = emb.components
    np.testing.assert_allclose(alpha.T @ K @ (D @ (K @ alpha)), np.eye(3), atol=1e-8)
    lhs = K @ (L @ (K @ alpha))
    rhs = K @ (D @ (K @ alpha)) * emb.eigenvalues
    np.testing.assert_allclose(lhs, rhs, atol=1e-6 * np.abs(lhs).max())


def test_errors():
    X, _, L, D = _problem()
    with pytest.raises(ValueError, match="n_components=9 but only 8 components are available"):
        solve_embedding(X, L, D, n_components=9)
    with pytest.raises(ValueError, match="shape"):
        solve_embedding(X[:-1], L, D)
    with pytest.raises(ValueError, match="constraint"):
        solve_embedding(X, L, D, constraint="unit")
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        solve_embedding(X, L, D)


def test_centered_kernel_fast_basis_agrees_with_the_eigen_basis():
    from sklearn.metrics.pairwise import rbf_kernel
    from sklearn.preprocessing import KernelCenterer

    from locproj.core.solvers import _CenteredKernelBasis

    X, _, L, D = _problem(30, 6)
    K = KernelCenterer().fit_transform(rbf_kernel(X, gamma=0.2))
    assert isinstance(pca_basis(K, whiten=True, symmetric=True), _CenteredKernelBasis)
    fast = solve_embedding(K, L, D, center=False, symmetric=True)
    slow = solve_embedding(K, L, D, center=False)  # generic PCA path (eigh of K^T K)
    assert fast.rank == slow.rank == 29
    np.testing.assert_allclose(fast.eigenvalues, slow.eigenvalues, rtol=1e-6, atol=1e-9)
    P = fast.components
    np.testing.assert_allclose(P.T @ K @ (D @ (K @ P)), np.eye(29), atol=1e-8)
    cos = np.einsum("ij,ij->j", P, slow.components) / (
        np.linalg.norm(P, axis=0) * np.linalg.norm(slow.components, axis=0))
    np.testing.assert_allclose(np.abs(cos[:10]), 1.0, atol=1e-6)


def test_rank_deficient_data_with_d_below_n():
    rng = np.random.default_rng(8)
    X = rng.standard_normal((40, 3)) @ rng.standard_normal((3, 10))  # rank 3 < d = 10 < n
    _, _, L, D = _problem(40, 10)
    emb = solve_embedding(X, L, D)
    assert emb.rank == 3
    Xc = X - X.mean(0)
    np.testing.assert_allclose(emb.components.T @ Xc.T @ (D @ (Xc @ emb.components)), np.eye(3), atol=1e-8)


@pytest.mark.parametrize("shape", [(40, 8), (20, 60)])
def test_gram_factor_equals_the_explicit_matrix(shape):
    from locproj.core.solvers import GramFactor

    X, y, _, _ = _problem(*shape, classes=2)
    E = reconstruction_error(lle_weights(X, kneighbors(X, 3, y)))
    explicit = solve_embedding(X, sparse.csr_array(E.T @ E), n_components=4)
    factored = solve_embedding(X, GramFactor(E), n_components=4)
    np.testing.assert_allclose(factored.eigenvalues, explicit.eigenvalues, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(factored.components, explicit.components, rtol=1e-6, atol=1e-9)


def test_the_remembered_pca_basis_gives_identical_bits():
    import locproj.core.solvers as solvers

    rng = np.random.default_rng(5)
    X = rng.standard_normal((30, 50))               # d > n: the PCA basis is needed
    L = np.diag(rng.uniform(1, 2, 30))
    solvers._DATA_MEMO.clear()
    cold = solve_embedding(X, L)
    remembered = dict(solvers._DATA_MEMO.values_for(X, np.asarray(True)))
    assert any(key[0] == "pca_basis" for key in remembered)
    warm = solve_embedding(X, L)                     # reuses the basis
    assert all(solvers._DATA_MEMO.values_for(X, np.asarray(True))[key] is value
               for key, value in remembered.items())
    assert np.array_equal(cold.components, warm.components)
    warm.mean[:] = 0.0                               # callers own what they get back
    assert np.array_equal(solve_embedding(X, L).mean, cold.mean)
    other = solve_embedding(X + 1e-3, L)             # other data: recomputed, not reused
    solvers._DATA_MEMO.clear()
    assert np.array_equal(other.components, solve_embedding(X + 1e-3, L).components)
    assert not np.array_equal(other.components, cold.components)


def test_error_messages_name_the_argument_and_the_fix():
    X, _, L, D = _problem()
    with pytest.raises(ValueError, match=r"^L must have shape \(40, 40\), got \(39, 39\)\.$"):
        solve_embedding(X, L[:-1][:, :-1], D)
    with pytest.raises(ValueError, match=r"^B must have shape \(40, 40\), got \(39, 39\)\.$"):
        solve_embedding(X, L, D[:-1][:, :-1])
    with pytest.raises(ValueError, match=r"^L must have shape \(40, 40\), got None\.$"):
        solve_embedding(X, L.toarray().tolist(), D)   # no shape at all
    with pytest.raises(ValueError, match=r"^X must be a finite 2-D array\.$"):
        solve_embedding(X[0], L, D)
    with pytest.raises(ValueError, match="^" + re.escape(
            "n_components=9 but only 8 components are available (the rank of the centred training data); "
            "use n_components=None or a smaller value.") + "$"):
        solve_embedding(X, L, D, n_components=9)
    K = X @ X.T
    symmetric_message = r"^symmetric=True expects a square kernel matrix and center=False\.$"
    with pytest.raises(ValueError, match=symmetric_message):
        solve_embedding(K, L, D, symmetric=True)                  # a kernel must not be centred
    with pytest.raises(ValueError, match=symmetric_message):
        solve_embedding(X, L, D, center=False, symmetric=True)    # not square


def test_n_components_may_equal_the_rank():
    X, _, L, D = _problem()
    emb = solve_embedding(X, L, D, n_components=8)
    assert emb.components.shape == (8, 8) and emb.rank == emb.n_available == 8


@pytest.mark.parametrize("overflowing", ["L", "B"])
def test_overflow_in_one_matrix_is_an_error_that_says_to_rescale(overflowing):
    X, _, L, D = _problem()
    with np.errstate(over="ignore"):                  # weights above 1.8 overflow to inf
        L, D = (L * 1e308, D) if overflowing == "L" else (L, D * 1e308)
    message = ("the reduced eigenproblem has non-finite entries: the graph or constraint matrix overflowed "
               "(X or the graph weights too large); rescale X, e.g. by sklearn.preprocessing.StandardScaler.")
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        solve_embedding(X, L, D)


def test_an_eigensolver_failure_is_an_error_that_says_what_to_do(monkeypatch):
    import locproj.core.solvers as solvers

    def failing(*args, **kwargs):
        raise np.linalg.LinAlgError("no convergence")
    monkeypatch.setattr(solvers, "eigh_selected", failing)
    X, _, L, D = _problem()
    message = ("the reduced 8 x 8 eigenproblem could not be solved (no convergence): the graph or constraint "
               "matrix is numerically degenerate, as with many exact duplicate rows; remove duplicate rows "
               "(np.unique(X, axis=0)), reduce n_neighbors or raise the regularisation.")
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        solve_embedding(X, L, D)


@pytest.mark.parametrize("whiten", [False, True])
def test_pca_step_finds_the_rank_of_rank_one_and_unequal_rank_two_data(whiten):
    rng = np.random.default_rng(6)
    for n, d in [(30, 6), (12, 40)]:
        single = np.zeros((n, d))                      # exact zeros beside the one component
        if d <= n:
            single[:, 0] = rng.standard_normal(n)
        else:
            single[0] = rng.standard_normal(d)
        dense = np.outer(rng.standard_normal(n), rng.standard_normal(d))
        two = rng.standard_normal((n, 2)) * [1.0, 1e-5] @ np.linalg.qr(rng.standard_normal((d, 2)))[0].T
        for data, rank in [(single, 1), (dense, 1), (two, 2)]:
            for factor in (1e-3, 1.0, 1e3):           # the threshold is relative: the scale does not matter
                assert pca_basis(factor * data, whiten=whiten).rank == rank


def test_pca_tol_sets_the_relative_threshold_on_squared_singular_values():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((30, 6)) * np.logspace(0, -5, 6)   # squared singular values ~ 1 ... 1e-10
    L = sparse.eye_array(30, format="csr")
    Xc = X - X.mean(axis=0)
    lam = np.linalg.svd(Xc, compute_uv=False) ** 2
    for pca_tol in (1e-5, 1e-7):
        expected = int(np.sum(lam > pca_tol * lam[0]))
        assert 1 < expected < 6
        assert solve_embedding(X, L, pca_tol=pca_tol).rank == expected


@pytest.mark.parametrize("whiten", [False, True])
def test_kernel_basis_finds_the_rank_at_any_scale(whiten):
    rng = np.random.default_rng(8)
    x = rng.standard_normal(10)
    single = np.zeros((10, 10))
    single[0, 0] = 2.0                                # one non-zero sample: exact zero eigenvalues
    Z = rng.standard_normal((10, 3))
    for K, rank in [(np.outer(x, x), 1), (single, 1), (Z @ Z.T, 3)]:
        for factor in (1e-6, 1.0, 1e6):
            assert pca_basis(factor * K, whiten=whiten, symmetric=True).rank == rank


@pytest.mark.parametrize("shape", [(10, 4), (4, 10)])
@pytest.mark.parametrize("constraint", ["B", "orthonormal"])
def test_constant_data_have_no_components_and_no_warning(shape, constraint):
    n, d = shape
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        emb = solve_embedding(np.ones(shape), sparse.eye_array(n, format="csr"), constraint=constraint)
        kernel = solve_embedding(np.zeros((n, n)), sparse.eye_array(n, format="csr"), constraint=constraint,
                                 center=False, symmetric=True)
    assert emb.components.shape == (d, 0) and emb.eigenvalues.shape == (0,)
    assert emb.rank == emb.n_available == 0 and emb.regularized is False
    assert kernel.components.shape == (n, 0) and kernel.eigenvalues.shape == (0,) and kernel.rank == 0


def test_rank_one_data_give_the_one_rayleigh_quotient():
    _, _, L, D = _problem(12, 5, classes=2)
    x = np.random.default_rng(9).standard_normal(12)
    data = np.zeros((12, 5))
    data[:, 2] = x                                    # one direction, e_3, uncentred
    emb = solve_embedding(data, L, D, center=False)
    assert emb.rank == 1 and emb.components.shape == (5, 1)
    np.testing.assert_allclose(emb.eigenvalues, [(x @ (L @ x)) / (x @ (D @ x))], rtol=1e-12)
    np.testing.assert_allclose(emb.components[:, 0], np.eye(5)[2] / np.sqrt(x @ (D @ x)), rtol=1e-12)


def test_ordinary_solves_emit_no_warning():
    from sklearn.metrics.pairwise import rbf_kernel
    from sklearn.preprocessing import KernelCenterer

    X, _, L, D = _problem(20, 30)                     # whitened coordinates of rank n - 1
    K = KernelCenterer().fit_transform(rbf_kernel(X, gamma=0.05))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        solve_embedding(X, L, D)
        solve_embedding(X, L, D, constraint="orthonormal")
        solve_embedding(K, L, D, center=False, symmetric=True)


def test_gram_factor_densifies_to_its_gram_matrix():
    rng = np.random.default_rng(10)
    E = rng.standard_normal((7, 5))
    for factor in (E, sparse.csr_array(E)):
        np.testing.assert_allclose(GramFactor(factor).toarray(), E.T @ E, rtol=1e-12)
    W = class_block_graph(np.arange(12) % 3)
    np.testing.assert_allclose(GramFactor(laplacian_factor(W)).toarray(), laplacian(W)[0].toarray(), atol=1e-12)


def test_sign_convention_for_a_single_entry_and_a_zero_column():
    np.testing.assert_array_equal(fix_signs(np.array([[-2.0]])), [[2.0]])
    np.testing.assert_array_equal(fix_signs(np.array([[0.0, -1.0], [0.0, 0.5]])), [[0.0, 1.0], [0.0, -0.5]])


def test_the_orthonormal_constraint_ignores_B():
    X, _, L, _ = _problem()
    rng = np.random.default_rng(11)
    G = rng.standard_normal((40, 40))
    B = sparse.csr_array(G @ G.T)                      # not diagonal
    plain = solve_embedding(X, L, constraint="orthonormal")
    with_b = solve_embedding(X, L, B, constraint="orthonormal")
    assert plain.regularized is False and with_b.regularized is False
    np.testing.assert_allclose(with_b.components.T @ with_b.components, np.eye(8), atol=1e-10)
    np.testing.assert_allclose(with_b.eigenvalues, plain.eigenvalues, rtol=1e-10)
    np.testing.assert_allclose(with_b.components, plain.components, atol=1e-10)


def test_matrix_types_give_the_same_solution():
    X, _, L, D = _problem()
    reference = solve_embedding(X, L, D)
    assert reference.regularized is False
    for graph, constraint in [(L.toarray(), D.toarray()), (aslinearoperator(L), aslinearoperator(D)),
                              (L, D.toarray()), (aslinearoperator(L), D)]:
        emb = solve_embedding(X, graph, constraint)
        assert emb.regularized is False
        np.testing.assert_allclose(emb.eigenvalues, reference.eigenvalues, rtol=1e-10)
        np.testing.assert_allclose(emb.components, reference.components, rtol=1e-8, atol=1e-12)


def test_singular_diagonal_or_low_rank_constraint_gets_the_ridge():
    """A positive diagonal B with nearly all its weight on three samples leaves X~^T B X~ numerically
    singular (d = 8), however well-conditioned X is; so does a constraint of rank two."""
    X, _, L, _ = _problem()
    w = np.full(40, 1e-30)
    w[:3] = 1.0
    sparse_b = solve_embedding(X, L, sparse.diags_array(w, format="csr"))
    dense_b = solve_embedding(X, L, np.diag(w))
    assert sparse_b.regularized is True and dense_b.regularized is True
    np.testing.assert_allclose(sparse_b.eigenvalues, dense_b.eigenvalues, rtol=1e-8)
    np.testing.assert_allclose(sparse_b.components, dense_b.components, rtol=1e-6, atol=1e-9)
    G = np.random.default_rng(12).standard_normal((40, 2))
    assert solve_embedding(X, L, sparse.csr_array(G @ G.T)).regularized is True


def test_a_diagonal_constraint_too_spread_to_vouch_for_is_tested_for_singularity():
    """``cond(N) <= max(b) / min(b)`` only vouches for N when that spread is below 1e-3 / singular_rcond;
    above it N is tested (here its reciprocal condition is just under 1e-12: the ridge)."""
    X, _, L, _ = _problem()
    heavy = np.argsort(-np.linalg.norm(X - X.mean(0), axis=1))[:5]
    w = np.full(40, 1.0005e-12)
    w[heavy] = 1.0
    assert solve_embedding(X, L, sparse.diags_array(w, format="csr")).regularized is True


def test_integer_and_float32_data_are_solved_in_double_precision():
    X, _, L, D = _problem()
    for data in (np.round(4 * X).astype(np.int64), X.astype(np.float32)):
        emb = solve_embedding(data, L, D)
        reference = solve_embedding(data.astype(np.float64), L, D)
        assert np.array_equal(emb.components, reference.components)
        assert np.array_equal(emb.eigenvalues, reference.eigenvalues)


def _supervised_problem(n=30, d=80, c=4, seed=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.arange(n) % c
    L, D = laplacian(symmetrize(heat_weights(kneighbors(X, 3, y))))
    return X, L, D


@pytest.mark.parametrize("shape", [(30, 80), (60, 8)])   # a null cluster in whitened coordinates; the shortcut
def test_scaling_the_data_or_the_graphs_changes_only_what_it_must(shape):
    X, L, D = _supervised_problem(*shape)
    reference = solve_embedding(X, L, D)
    for factor in (1e-8, 1e-4, 1e4, 1e8):
        scaled_x = solve_embedding(factor * X, L, D)          # P -> P / factor
        np.testing.assert_allclose(scaled_x.eigenvalues, reference.eigenvalues, rtol=1e-6, atol=1e-12)
        np.testing.assert_allclose(factor * scaled_x.components, reference.components, rtol=1e-5, atol=1e-8)
        both = solve_embedding(X, factor * L, factor * D)     # the same pencil
        np.testing.assert_allclose(both.eigenvalues, reference.eigenvalues, rtol=1e-6, atol=1e-12)
        np.testing.assert_allclose(np.sqrt(factor) * both.components, reference.components, rtol=1e-5,
                                   atol=1e-8)
        objective = solve_embedding(X, factor * L, D)         # eigenvalues -> factor * eigenvalues
        np.testing.assert_allclose(objective.eigenvalues, factor * reference.eigenvalues, rtol=1e-6,
                                   atol=1e-12 * factor)
        np.testing.assert_allclose(objective.components, reference.components, rtol=1e-5, atol=1e-8)


def _kernel_residuals(K, L, B, emb, constraint):
    """Constraint and objective in the kernel coordinates, minus what they should be (I and diag(lambda))."""
    A = emb.components
    gram = A.T @ A if constraint == "orthonormal" else A.T @ K @ (B @ (K @ A))
    objective = A.T @ K @ (L @ (K @ A))
    return gram - np.eye(A.shape[1]), (objective - np.diag(emb.eigenvalues)) / np.abs(emb.eigenvalues).max()


def test_kernel_with_the_orthonormal_constraint():
    from sklearn.metrics.pairwise import rbf_kernel
    from sklearn.preprocessing import KernelCenterer

    X, _, L, D = _problem(25, 5)
    for K in ((X @ X.T / 5 + 1.0) ** 2, KernelCenterer().fit_transform(rbf_kernel(X, gamma=0.2))):
        generic = solve_embedding(K, L, center=False, constraint="orthonormal")
        emb = solve_embedding(K, L, center=False, constraint="orthonormal", symmetric=True)
        assert emb.rank == generic.rank and emb.regularized is False
        for residual in _kernel_residuals(K, L, None, emb, "orthonormal"):
            np.testing.assert_allclose(residual, 0, atol=1e-9)
        np.testing.assert_allclose(emb.eigenvalues, generic.eigenvalues, rtol=1e-6,
                                   atol=1e-10 * generic.eigenvalues.max())


def test_a_kernel_that_is_not_centred_is_solved_as_such():
    """The Householder basis of 1^perp is for centred kernels only (K 1 = 0): an uncentred RBF
    kernel, the same at a tiny scale, and a kernel whose rows sum to 1e-9 though all its entries sum
    to 1e-14, are solved in their own eigenbasis and meet the constraint to rounding."""
    from sklearn.metrics.pairwise import rbf_kernel
    from sklearn.preprocessing import KernelCenterer

    X, _, L, D = _problem(30, 6)
    K = rbf_kernel(X, gamma=0.2)
    a = np.random.default_rng(13).standard_normal(30)
    a = 0.3 * (a - a.mean()) + 1e-7 / 30                # 1^T a = 1e-7
    nearly = KernelCenterer().fit_transform(K) + np.outer(a, a)
    for kernel in (K, 1e-14 * K, nearly):
        emb = solve_embedding(kernel, L, D, center=False, symmetric=True)
        gram, objective = _kernel_residuals(kernel, L, D, emb, "B")
        np.testing.assert_allclose(gram, 0, atol=1e-11)
        np.testing.assert_allclose(objective, 0, atol=1e-9)


def test_uncentred_data_of_rank_n_minus_one_are_not_taken_for_centred():
    """Rows of X that are dependent (rank n - 1) but do not sum to zero column by column, though
    all entries do, here at two scales: whitened coordinates then span a subspace other than 1^perp."""
    rng = np.random.default_rng(14)
    n, d = 20, 50
    X0 = rng.standard_normal((n, d))
    X0 -= X0.mean(axis=0)
    z = rng.standard_normal(n)
    z -= (z @ X0.sum(axis=1)) / (X0.sum(axis=1) @ X0.sum(axis=1)) * X0.sum(axis=1)   # z^T X0 1 = 0
    X = X0 + np.outer(np.ones(n), z @ X0) / n          # column sums z^T X0 != 0, total sum 0
    _, _, L, D = _problem(n, d, classes=2)
    for factor in (1.0, 1e-15):
        emb = solve_embedding(factor * X, L, D, center=False)
        assert emb.rank == n - 1
        F = factor * X @ emb.components
        np.testing.assert_allclose(F.T @ (D @ F), np.eye(n - 1), atol=1e-9)
        np.testing.assert_allclose(F.T @ (L @ F), np.diag(emb.eigenvalues), atol=1e-9 * emb.eigenvalues.max())


@pytest.mark.parametrize("factor", [1e-3, 1.0, 1e3])
def test_the_ridge_is_relative_to_the_mean_diagonal_and_its_null_cluster_is_resolved(factor):
    """LDA-like, d >> n: in whitened coordinates the objective is I and the constraint N's null
    directions get the eigenvalue 1 / (ridge mean(diag N)), mean(diag N) = tr(L_w) / (n - 1).
    They tie in variance too, so their Euclidean Gram is diagonal, shortest column first."""
    rng = np.random.default_rng(4)
    n, c = 24, 3
    X = rng.standard_normal((n, 100))
    L_w, _ = laplacian(class_block_graph(np.arange(n) % c))
    emb = solve_embedding(X, sparse.eye_array(n, format="csr"), factor * L_w, maximize=True)
    assert emb.regularized is True
    expected = (n - 1) / (1e-9 * factor * L_w.diagonal().sum())
    np.testing.assert_allclose(emb.eigenvalues[: c - 1], expected, rtol=1e-5)
    P = emb.components[:, : c - 1]
    G = P.T @ P
    np.testing.assert_allclose(G - np.diag(np.diag(G)), 0, atol=1e-10 * G.max())
    assert G[0, 0] < G[1, 1]


def test_with_the_ridge_the_other_columns_still_diagonalise_the_objective():
    X, L, _ = _supervised_problem(24, 100, c=3)
    L_u, _ = laplacian(symmetrize(heat_weights(kneighbors(X, 3))))
    L_w, _ = laplacian(class_block_graph(np.arange(24) % 3))
    emb = solve_embedding(X, L_u, L_w, maximize=True)
    assert emb.regularized is True
    F = (X - emb.mean) @ emb.components[:, 2:]          # after the two null directions of L_w
    objective = F.T @ (L_u @ F)
    scale = np.abs(emb.eigenvalues[2:]).max()
    np.testing.assert_allclose(objective, np.diag(emb.eigenvalues[2:]), atol=1e-6 * scale)
    assert np.all(np.diff(emb.eigenvalues) <= 0)


def test_eigenvalues_1e_7_apart_are_distinct():
    """Q^T L Q = diag(1, 1 + 1e-7) for the centred orthonormal Q below, so the eigenvectors of the
    pencil for X = Q R are the columns of R^-1: a gap of 1e-7 is far above degenerate_rtol."""
    Q = np.array([[1.0, -1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0]]).T / np.sqrt(2)
    R = np.array([[2.0, 1.0], [0.5, 1.5]])
    L = sparse.diags_array([1.0, 1.0, 1.0 + 1e-7, 1.0 + 1e-7], format="csr")
    emb = solve_embedding(Q @ R, L)
    np.testing.assert_allclose(emb.eigenvalues, [1.0, 1.0 + 1e-7], rtol=1e-13)
    np.testing.assert_allclose(np.abs(emb.components), np.abs(np.linalg.inv(R)), rtol=1e-6)


@pytest.mark.parametrize("c, maximize", [(3, False), (3, True), (4, True)])
def test_a_null_cluster_anywhere_in_the_order_is_resolved_by_variance(c, maximize):
    X, L, D = _supervised_problem(c=c)
    emb = solve_embedding(X, L, D, maximize=maximize)
    r = emb.rank
    null = slice(r - (c - 1), r) if maximize else slice(0, c - 1)
    assert np.all(np.abs(emb.eigenvalues[null]) < 1e-10)
    assert np.abs(emb.eigenvalues[r - c if maximize else c - 1]) > 1e-3
    F = (X - emb.mean) @ emb.components[:, null]
    S = F.T @ F
    np.testing.assert_allclose(S - np.diag(np.diag(S)), 0, atol=1e-8 * S.max())
    assert np.all(np.diff(np.diag(S)) < 0)


def test_two_equal_variances_are_ordered_shortest_column_first():
    c = 3
    X, emb = _classes_in_80_dimensions(c)
    P = emb.components[:, : c - 1]
    F = (X - emb.mean) @ P
    np.testing.assert_allclose(F.T @ F, np.eye(c - 1), atol=1e-9)
    G = P.T @ P
    np.testing.assert_allclose(G - np.diag(np.diag(G)), 0, atol=1e-10 * G.max())
    assert G[0, 0] < G[1, 1]


@pytest.mark.parametrize("maximize", [False, True])
def test_variances_that_tie_after_a_larger_one_are_ordered_shortest_column_first(maximize):
    """Complete class graphs on classes of 9, 9, 9 and 5 samples (degrees 8, 8, 8, 4) with B = D:
    in the three-fold zero cluster the two directions that contrast the first three classes have
    variance 1/8 each, the one that involves the last class a larger one. So the cluster is
    diagonalised by variance, larger first, and the tied pair by its Euclidean Gram."""
    rng = np.random.default_rng(15)
    y = np.repeat(np.arange(4), [9, 9, 9, 5])
    X = rng.standard_normal((len(y), 40))
    L, D = laplacian(sparse.csr_array((y[:, None] == y[None]).astype(float) - np.eye(len(y))))
    emb = solve_embedding(X, L, D, maximize=maximize)
    null = slice(emb.rank - 3, emb.rank) if maximize else slice(0, 3)
    np.testing.assert_allclose(emb.eigenvalues[null], 0, atol=1e-10)
    P = emb.components[:, null]
    F = (X - emb.mean) @ P
    S = F.T @ F
    np.testing.assert_allclose(S - np.diag(np.diag(S)), 0, atol=1e-9)
    np.testing.assert_allclose(np.diag(S)[1:], 1 / 8, rtol=1e-9)
    assert S[0, 0] > 1 / 8 + 1e-3
    G = P[:, 1:].T @ P[:, 1:]
    np.testing.assert_allclose(G[0, 1], 0, atol=1e-10 * G.max())
    assert G[0, 0] < G[1, 1]


def test_a_cluster_cut_by_n_components_is_resolved_whole_at_either_end():
    X, L, D = _supervised_problem(c=3)           # minimising: a null cluster of 2 first, the rest distinct
    between = class_block_graph(np.arange(len(X)) % 3) + 0.01 * L   # maximising: the 2 class contrasts first
    for graph, B, maximize in [(L, D, False), (between, None, True)]:
        full = solve_embedding(X, graph, B, maximize=maximize)
        lam = full.eigenvalues
        assert abs(lam[0] - lam[1]) < 1e-9 * np.abs(lam).max() and abs(lam[1] - lam[2]) > 1e-3 * np.abs(lam).max()
        part = solve_embedding(X, graph, B, n_components=1, maximize=maximize).components
        np.testing.assert_allclose(part, full.components[:, :1], rtol=0, atol=1e-9 * np.abs(part).max())



def test_pca_keeps_only_components_strictly_above_the_threshold():
    """Orthogonal columns: the Gram matrix is diagonal and its eigenvalues are exact, so the rule
    "squared singular value > tol * max" (on eigenvalues, > sqrt(tol) * max, for a kernel) can be
    checked at the threshold itself and at the default tol = 10 max(n, d) eps."""
    for n, d in [(6, 4), (4, 6)]:
        default = 10 * max(n, d) * np.finfo(float).eps
        for singular_values, tol, rank in [([1.0, 0.5, 0.25, 0.125], 0.25, 1),     # 0.5^2 == tol: dropped
                                           ([1.0, np.sqrt(1.05 * default), np.sqrt(0.95 * default), 0.0], None, 2)]:
            X = np.zeros((n, d))
            X[np.arange(4), np.arange(4)] = singular_values
            for whiten in (False, True):
                assert pca_basis(X, whiten=whiten, tol=tol).rank == rank
        kernel_default = 10 * n * np.finfo(float).eps   # K is n x n
        for eigenvalues, tol, rank in [([1.0, 0.5, 0.25, 0.125], 0.25, 1),           # 0.5 == sqrt(tol): dropped
                                       ([1.0, np.sqrt(1.05 * kernel_default), np.sqrt(0.95 * kernel_default), 0.0],
                                        None, 2)]:
            K = np.diag(eigenvalues + [0.0] * (n - 4))
            for whiten in (False, True):
                assert pca_basis(K, whiten=whiten, tol=tol, symmetric=True).rank == rank


def test_orthonormal_columns_to_machine_precision_with_fewer_samples_than_features():
    """P^T P = I holds to rounding even when the data's singular values span six decades."""
    rng = np.random.default_rng(16)
    n, d = 20, 60
    U = np.linalg.qr(rng.standard_normal((n, n)))[0]
    V = np.linalg.qr(rng.standard_normal((d, n)))[0]
    X = U @ np.diag(np.logspace(0, -6, n)) @ V.T
    _, _, L, _ = _problem(n, d, classes=2)
    emb = solve_embedding(X, L, constraint="orthonormal")
    assert emb.rank == n - 1
    np.testing.assert_allclose(emb.components.T @ emb.components, np.eye(n - 1), atol=1e-12)


def test_sign_ties_include_the_threshold_itself():
    m = 3.0
    t = (1.0 - 1e-9) * m                               # exactly 1e-9 (relative) below the largest: tied
    np.testing.assert_array_equal(fix_signs(np.array([[-t], [m]])), [[t], [-m]])
    np.testing.assert_array_equal(fix_signs(np.array([[-np.nextafter(t, 0.0)], [m]])), [[-np.nextafter(t, 0.0)], [m]])


def test_a_constraint_with_a_zero_weight_gives_no_warning():
    """A sample whose every heat weight underflowed has degree 0: D is diagonal but not positive
    (here with the zero stored, as a matrix built from (weights, (i, i)) has it)."""
    X, _, L, D = _problem()
    d = D.diagonal().copy()
    d[5] = 0.0
    B = sparse.csr_array((d, (np.arange(40), np.arange(40))), shape=(40, 40))
    assert B.nnz == 40
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        emb = solve_embedding(X, L, B)
    F = (X - emb.mean) @ emb.components
    np.testing.assert_allclose(F.T @ (B @ F), np.eye(8), atol=1e-8)


def test_a_constraint_that_vanishes_on_the_data_gets_the_ridge():
    """Every class a single repeated point: X~^T L_w X~ = 0 up to rounding; or B = 0. The ridge
    alone (of size ridge, mean(diag N) being 0) is then the constraint: every eigenvalue is 1 / ridge."""
    rng = np.random.default_rng(17)
    y = np.repeat(np.arange(3), 4)
    X = rng.standard_normal((3, 5))[y]
    L_w, _ = laplacian(class_block_graph(y))
    for B in (L_w, sparse.csr_array((12, 12))):
        emb = solve_embedding(X, sparse.eye_array(12, format="csr"), B, maximize=True)
        assert emb.regularized is True and emb.rank == 2
        np.testing.assert_allclose(emb.eigenvalues, 1e9, rtol=1e-6)


def test_a_null_cluster_of_the_ridge_is_kept_whole_when_n_components_cuts_it():
    """With the ridge, the constraint's null directions get eigenvalues ~1/ridge that agree only to about
    1e-7: the solve must treat them as one cluster (``1e3 * ridge``, module docstring) when choosing which
    eigenpairs to form, so the first column does not depend on ``n_components``."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((30, 80))
    L_w = laplacian(symmetrize(heat_weights(kneighbors(X, 3, np.arange(30) % 3))))[0]
    one = solve_embedding(X, sparse.eye_array(30), L_w, maximize=True, n_components=1)
    every = solve_embedding(X, sparse.eye_array(30), L_w, maximize=True)
    assert one.regularized and every.regularized
    assert every.eigenvalues[1] > (1 - 1e-6) * every.eigenvalues[0]           # a cluster of the ridge
    np.testing.assert_allclose(one.components[:, 0], every.components[:, 0],
                               atol=1e-10 * np.abs(every.components[:, 0]).max())


@pytest.mark.parametrize("maximize", [False, True])
def test_without_degenerate_resolution_equal_eigenvalues_keep_the_eigensolver_s_order(monkeypatch, maximize):
    """The order is a stable sort: numpy's default argsort dispatches to CPU-specific SIMD sorts, which
    order equal keys differently on different CPUs."""
    import locproj.core.solvers as solvers

    returned = []

    def recording(*args, **kwargs):
        returned.append(solvers_eigh(*args, **kwargs))
        return returned[-1]
    solvers_eigh = solvers.eigh_selected
    monkeypatch.setattr(solvers, "eigh_selected", recording)
    values = np.repeat([1.0, 2.0], 20)     # two clusters of 20 exactly equal eigenvalues
    emb = solve_embedding(np.eye(40), sparse.diags(values), constraint="orthonormal", center=False,
                          maximize=maximize, resolve_degenerate=False)
    eigenvalues, A = returned[0]
    first, second = np.arange(20), np.arange(20, 40)
    assert len(set(eigenvalues[first])) == len(set(eigenvalues[second])) == 1
    assert eigenvalues[first[0]] < eigenvalues[second[0]]
    order = np.r_[second, first] if maximize else np.r_[first, second]
    np.testing.assert_array_equal(emb.eigenvalues, eigenvalues[order])
    np.testing.assert_array_equal(emb.components, fix_signs(A[:, order]))
