"""The one generalized-eigenproblem solver: optimality, constraints, conventions."""

import numpy as np
import pytest
import scipy.linalg
from scipy import sparse
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


def test_equal_variances_in_a_degenerate_cluster_are_ordered_shortest_column_first():
    # with the total scatter as constraint (B = I) every direction of the zero cluster has variance 1:
    # the Euclidean Gram of the cluster's columns decides, diagonal and ascending
    rng = np.random.default_rng(5)
    n, c = 30, 4
    X = rng.standard_normal((n, 80)) * np.linspace(3, 0.2, 80)
    y = np.arange(n) % c
    L, _ = laplacian(symmetrize(heat_weights(kneighbors(X, 3, y))))
    emb = solve_embedding(X, L)
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
