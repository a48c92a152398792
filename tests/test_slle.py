"""SupervisedLLE (paper 004): LLE semantics, SLLE, intrinsic dimension, subset selection."""

import numpy as np
import pytest
import scipy.linalg
import scipy.spatial.distance
from scipy import sparse
from sklearn.datasets import make_s_curve
from sklearn.manifold import LocallyLinearEmbedding
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import InvalidParameterError

from locproj.methods import SupervisedLLE
from locproj.methods.slle import select_subset
from locproj.core.neighbor_graphs import kneighbors
from locproj.core.reconstruction_weights import (
    class_penalized_coordinates,
    lle_weights,
    lle_weights_out_of_sample,
    local_pca,
    max_sq_distance,
    reconstruction_cost,
)
from locproj.core.sparse_eigen import CLUSTER_RTOL, bottom_eigenvectors


def _cosines(A, B):
    """Cosines of the principal angles between the column spaces of A and B."""
    return scipy.linalg.svdvals(scipy.linalg.orth(A).T @ scipy.linalg.orth(B))


def _s_curve_10d(n, seed):
    """An S-curve (2-D manifold) rotated into 10-D, noise in every direction."""
    rot = np.linalg.qr(np.random.default_rng(0).standard_normal((10, 10)))[0][:3]
    X = make_s_curve(n, random_state=seed)[0] @ rot
    return X + 0.05 * np.random.default_rng(seed).standard_normal((n, 10))


@pytest.fixture(scope="module")
def three_classes():
    """Three fully overlapping classes (random labels on one Gaussian cloud) in 5-D."""
    rng = np.random.default_rng(7)
    return rng.standard_normal((300, 5)), rng.integers(0, 3, 300)


def _cost_matrix(X, y, k, alpha, reg, v=0.9, m=None):
    """M = (I - W)^T (I - W) of stage I on D' (eq. 8), built from locproj's graph modules directly; the
    automatic ridge is sigma_i^2 beyond the embedding's dimension ``m`` in ``d`` input dimensions."""
    Z = X if alpha == 0 else class_penalized_coordinates(X, y, alpha * max_sq_distance(X))
    reg_mode = "auto" if reg == "auto" else "fixed"
    W = lle_weights(Z, kneighbors(Z, k), reg=0.0 if reg == "auto" else reg,
                    reg_mode=reg_mode, retained_variance=v, subspace=None if m is None else (m, X.shape[1]))
    return reconstruction_cost(W)


# --------------------------------------------------------------------------- LLE = scikit-learn's


def test_alpha_zero_is_sklearn_lle_up_to_column_scaling_and_sign():
    # Matching regularisation: scikit-learn adds R tr(Q_i) I, we add a fixed r I.  With k = 8 < d = 10
    # and noise in every direction each Q_i is non-singular, and at R = 1e-6, r = R * median tr(Q_i),
    # both ridges are negligible against Q_i's smallest eigenvalue: both solve the same eq. 4 (to
    # ~1e-4), so the embeddings must agree up to the column scaling (ours (1/n) Y^T Y = I, theirs
    # unit columns: a factor sqrt(n)) and the signs.
    X, X_new = _s_curve_10d(400, 1), _s_curve_10d(100, 2)
    k, R = 8, 1e-6
    nbhd = kneighbors(X, k)
    r = R * np.median(np.bincount(nbhd.rows(), weights=nbhd.sq_distances))  # tr Q_i = sum_j D_ij
    ours = SupervisedLLE(2, n_neighbors=k, reg=r).fit(X)
    sk = LocallyLinearEmbedding(n_neighbors=k, n_components=2, reg=R, eigen_solver="dense").fit(X)

    assert _cosines(ours.embedding_, sk.embedding_).min() >= 0.99
    A = np.linalg.lstsq(sk.embedding_, ours.embedding_, rcond=None)[0]
    np.testing.assert_allclose(np.abs(A), np.sqrt(len(X)) * np.eye(2), atol=1e-2 * np.sqrt(len(X)))

    T, T_sk = ours.transform(X_new), sk.transform(X_new)
    assert _cosines(T, T_sk).min() >= 0.99
    assert np.linalg.norm(T - T_sk @ A) <= 1e-2 * np.linalg.norm(T)


def test_transform_of_training_points_is_their_embedding():
    X = _s_curve_10d(250, 3)
    est = SupervisedLLE(2, n_neighbors=8).fit(X)  # reg='auto': the ridge is large, yet coincidence wins
    np.testing.assert_array_equal(est.transform(X), est.embedding_)
    np.testing.assert_array_equal(est.fit_transform(X), est.embedding_)


def test_out_of_sample_weights_are_the_training_weights_of_a_held_out_point():
    X = _s_curve_10d(120, 4)
    for reg_mode, reg in [("fixed", 1e-3), ("auto", 0.0)]:
        W = lle_weights(X, kneighbors(X, 6), reg=reg, reg_mode=reg_mode)
        nb = np.argsort(((X[1:] - X[0]) ** 2).sum(axis=1))[:6]  # x_0's neighbours among the others
        W_new = lle_weights_out_of_sample(X[:1], X[1:], nb[None, :], reg=reg, reg_mode=reg_mode)
        np.testing.assert_allclose(W_new.toarray()[0], W.toarray()[0, 1:], rtol=1e-10, atol=1e-14)


# --------------------------------------------------------------------------- stage II


@pytest.mark.parametrize("alpha", [0.0, 0.05, 0.3])  # 0.3: the classes disconnect
def test_objective_is_minimal_over_feasible_embeddings(three_classes, alpha):
    X, y = three_classes
    m, k = 3, 8
    est = SupervisedLLE(m, n_neighbors=k, alpha=alpha).fit(X, y)  # 300 samples: ARPACK
    Y, n = est.embedding_, len(X)
    np.testing.assert_allclose(Y.T @ Y / n, np.eye(m), atol=1e-10)  # (1/n) Y Y^T = I
    np.testing.assert_allclose(Y.mean(axis=0), 0.0, atol=1e-12)  # constant eigenvector dropped
    M = _cost_matrix(X, y, k, alpha, "auto", m=m)
    objective = np.trace(Y.T @ (M @ Y))

    # the optimum: n times the eigenvalues 2..m+1 of M (the first is the constant vector's 0)
    lam = scipy.linalg.eigh(M.toarray(), eigvals_only=True, subset_by_index=[0, m])
    assert objective == pytest.approx(n * lam[1:].sum(), rel=1e-8)
    np.testing.assert_allclose(est.eigenvalues_, lam[1:], rtol=1e-8, atol=1e-12)

    rng = np.random.default_rng(0)
    for _ in range(200):  # random feasible Y: centred, (1/n) Y^T Y = I
        R = rng.standard_normal((n, m))
        R = np.sqrt(n) * np.linalg.qr(R - R.mean(axis=0))[0]
        assert objective < np.trace(R.T @ (M @ R))


def test_arpack_and_dense_agree_and_fits_are_deterministic(three_classes):
    X, _ = three_classes
    a = SupervisedLLE(3, n_neighbors=8, eigen_solver="arpack").fit(X)
    d = SupervisedLLE(3, n_neighbors=8, eigen_solver="dense").fit(X)
    np.testing.assert_allclose(a.embedding_, d.embedding_, atol=1e-7)  # same signs too
    np.testing.assert_array_equal(a.embedding_, SupervisedLLE(3, n_neighbors=8).fit(X).embedding_)


def test_multiple_zero_eigenvalue_is_handled():
    # Four disconnected components: a 4-dimensional null space containing 1.  Any two
    # embedding columns orthogonal to 1 inside it are optimal (objective 0).
    blocks = [lle_weights(Xb, kneighbors(Xb, 4), reg=1e-2, reg_mode="trace")
              for Xb in np.random.default_rng(1).standard_normal((4, 60, 3))]
    M = reconstruction_cost(sparse.block_diag(blocks, format="csr"))
    Y, lam, ends = bottom_eigenvectors(M, 2, "arpack", random_state=0)
    np.testing.assert_allclose(lam, 0.0, atol=1e-10)
    np.testing.assert_allclose(Y.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Y.T @ Y / len(Y), np.eye(2), atol=1e-10)
    spread = max(Y[60 * b:60 * (b + 1)].std(axis=0).max() for b in range(4))
    assert spread < 1e-6  # constant on each component
    # the three null directions are one cluster: p = 1 and 2 cut inside it, p = 3 ends it
    assert ends.tolist() == []
    assert bottom_eigenvectors(M, 4, "arpack", random_state=0).cluster_ends.tolist() == [3, 4]


def test_the_data_decide_the_basis_inside_a_cluster():
    # Four classes pulled apart (alpha = 1): a 3-dimensional null space beside the constant.  Two
    # columns cut inside it, so M alone leaves them to rounding; the data decide them: the null
    # directions y by decreasing ||X~^T y||^2.  The same fit on the samples in another order (another
    # path through the eigensolver) gives the same columns, permuted.
    rng = np.random.default_rng(4)
    X = rng.standard_normal((120, 6)) + np.repeat(rng.standard_normal((4, 6)) * 3, 30, axis=0)
    y = np.repeat(np.arange(4), 30)
    fit = SupervisedLLE(2, n_neighbors=6, alpha=1.0, eigen_solver="dense").fit(X, y)
    assert fit.cluster_ends_.tolist() == [] and np.all(fit.eigenvalues_ < 1e-12)
    order = rng.permutation(len(X))
    again = SupervisedLLE(2, n_neighbors=6, alpha=1.0, eigen_solver="dense").fit(X[order], y[order])
    np.testing.assert_allclose(again.embedding_, fit.embedding_[order], atol=1e-8)
    Xc = X - X.mean(axis=0)
    criterion = np.sum((Xc.T @ fit.embedding_) ** 2, axis=0)
    assert criterion[0] > criterion[1]
    # ... and they are the leading ones of the whole null space (three columns, which end its cluster)
    full = SupervisedLLE(3, n_neighbors=6, alpha=1.0, eigen_solver="dense").fit(X, y)
    assert full.cluster_ends_.tolist() == [3]
    np.testing.assert_allclose(full.embedding_[:, :2], fit.embedding_, atol=1e-8)


def test_k_above_d_gets_saul_and_roweis_ridge_and_no_null_cluster():
    # k = 7 neighbours in d = 3 dimensions: every Q_i is singular and sigma_i^2 beyond m = 3 is 0.
    # The ridge is then 1e-3 tr(Q_i), not a rounding-level floor: the weights are those of
    # scikit-learn's barycentre weights with reg = 1e-3, and M has no cluster of null eigenvalues
    # (a near-exact reconstruction would put every affine function of x in its null space).
    from sklearn.manifold._locally_linear import barycenter_weights

    X = np.random.default_rng(5).standard_normal((60, 3))
    nbhd = kneighbors(X, 7)
    W = lle_weights(X, nbhd, reg_mode="auto", subspace=(3, 3)).toarray()
    idx = nbhd.indices.reshape(60, 7)
    expected = barycenter_weights(X, X, idx, reg=1e-3)
    np.testing.assert_allclose(W[np.arange(60)[:, None], idx], expected, rtol=1e-9, atol=1e-12)
    fit = SupervisedLLE(3, n_neighbors=7, eigen_solver="dense").fit(X)
    assert fit.cluster_ends_.tolist() == [1, 2, 3]
    assert fit.eigenvalues_[0] > 100 * CLUSTER_RTOL * np.abs(reconstruction_cost(W)).max()


def test_arpack_without_convergence_falls_back_to_the_dense_solver_with_a_warning(monkeypatch):
    # the cross-paper matrix hit this on Letter (SLLE, 26 classes pulled apart, m = 16)
    from scipy.sparse.linalg import ArpackNoConvergence
    from sklearn.exceptions import ConvergenceWarning

    from locproj.core import sparse_eigen

    X = np.random.default_rng(2).standard_normal((80, 5))
    M = reconstruction_cost(lle_weights(X, kneighbors(X, 8), reg=1e-3))
    dense = bottom_eigenvectors(M, 3, "dense")

    def no_convergence(*args, **kwargs):
        raise ArpackNoConvergence("ARPACK error -1: No convergence", None, None)

    monkeypatch.setattr(sparse_eigen, "eigsh", no_convergence)
    with pytest.warns(ConvergenceWarning, match="computed by the dense solver"):
        fallback = bottom_eigenvectors(M, 3, "arpack", random_state=0)
    np.testing.assert_allclose(fallback[1], dense[1], atol=1e-12)
    np.testing.assert_allclose(np.abs(fallback[0].T @ dense[0]) / len(X), np.eye(3), atol=1e-8)
    monkeypatch.setattr(sparse_eigen, "_DENSE_FALLBACK_MAX", 50)
    with pytest.raises(ValueError, match="Lower alpha, raise n_components above the number of classes"):
        bottom_eigenvectors(M, 3, "arpack", random_state=0)


# --------------------------------------------------------------------------- SLLE


def test_penalized_coordinates_give_eq5_on_d_prime(three_classes):
    X, y = three_classes
    X, y = X[:40], y[:40]
    penalty = 0.4 * max_sq_distance(X)
    D = scipy.spatial.distance.cdist(X, X, "sqeuclidean")
    assert penalty == pytest.approx(0.4 * D.max(), rel=1e-12)
    Dp = D + penalty * (y[:, None] != y[None, :])  # eq. 8
    Z = class_penalized_coordinates(X, y, penalty)
    np.testing.assert_allclose(scipy.spatial.distance.cdist(Z, Z, "sqeuclidean"), Dp, atol=1e-10)
    k = 6
    nbhd = kneighbors(Z, k)
    W = lle_weights(Z, nbhd, reg=1e-2, reg_mode="fixed").toarray()
    for i in [0, 13, 27]:
        N = nbhd.indices[nbhd.indptr[i]:nbhd.indptr[i + 1]]
        np.testing.assert_array_equal(np.sort(N), np.sort(np.argsort(np.where(np.arange(40) == i, np.inf, Dp[i]))[:k]))
        Q = 0.5 * (Dp[i, N][:, None] + Dp[i, N][None, :] - Dp[np.ix_(N, N)])  # eq. 5
        w = np.linalg.solve(Q + 1e-2 * np.eye(k), np.ones(k))  # eq. 4
        np.testing.assert_allclose(W[i, N], w / w.sum(), rtol=1e-8)


def test_alpha_one_maps_every_class_onto_one_point(three_classes):
    X, y = three_classes
    X_new = np.random.default_rng(8).standard_normal((50, 5))

    def spread_ratio(Y):
        centroids = np.array([Y[y == c].mean(axis=0) for c in range(3)])
        within = max(np.linalg.norm(Y[y == c] - centroids[c], axis=1).max() for c in range(3))
        between = scipy.spatial.distance.pdist(centroids).min()
        return within / between, centroids

    ratio, centroids = spread_ratio(SupervisedLLE(2, n_neighbors=8, alpha=1.0).fit_transform(X, y))
    assert ratio < 1e-6  # c - 1 = 2 dimensions: the class indicators
    assert spread_ratio(SupervisedLLE(2, n_neighbors=8, alpha=0.0).fit_transform(X))[0] > 1  # control

    # new points are affine combinations of the class points (004 §4.2, fig. 4(g))
    T = SupervisedLLE(2, n_neighbors=8, alpha=1.0).fit(X, y).transform(X_new)
    bary = np.linalg.solve(np.vstack([centroids.T, np.ones(3)]), np.vstack([T.T, np.ones(len(T))]))
    np.testing.assert_allclose(np.vstack([centroids.T, np.ones(3)]) @ bary, np.vstack([T.T, np.ones(len(T))]))


def test_labels_are_required_when_alpha_is_positive(three_classes):
    X, _ = three_classes
    with pytest.raises(ValueError, match="requires y to be passed.*set alpha=0"):
        SupervisedLLE(alpha=0.2).fit(X)
    SupervisedLLE(alpha=0.0).fit(X)  # LLE needs no labels


# --------------------------------------------------------------------------- §3.1-3.2


def test_retained_variance_finds_the_dimension_of_a_plane():
    rng = np.random.default_rng(11)
    basis = np.linalg.qr(rng.standard_normal((10, 2)))[0]
    X = rng.uniform(-1, 1, (400, 2)) @ basis.T + 0.01 * rng.standard_normal((400, 10))
    est = SupervisedLLE(0.9, n_neighbors=10).fit(X)
    assert est.n_components_ == 2
    assert est.retained_variance_ == 0.9
    assert np.mean(est.local_dimensions_ == 2) > 0.5
    assert est.embedding_.shape == (400, 2)
    assert SupervisedLLE(0.999, n_neighbors=10).fit(X).n_components_ > 2  # the noise dimensions


def test_noise_variance_is_the_mean_of_the_discarded_eigenvalues_of_q():
    X = _s_curve_10d(60, 5)
    nbhd = kneighbors(X, 7)
    m, sigma2 = local_pca(X, nbhd, 0.8)
    for i in [0, 31]:
        N = nbhd.indices[nbhd.indptr[i]:nbhd.indptr[i + 1]]
        lam = np.sort(np.linalg.eigvalsh((X[i] - X[N]) @ (X[i] - X[N]).T))[::-1]
        m_i = int(np.searchsorted(np.cumsum(lam) / lam.sum(), 0.8) + 1)
        assert m[i] == m_i
        assert sigma2[i] == pytest.approx(lam[m_i:].mean(), rel=1e-10)
    # ... and it is the ridge of reg='auto'
    W = lle_weights(X, nbhd, reg_mode="auto", retained_variance=0.8).toarray()
    N = nbhd.indices[:7]
    Q = (X[0] - X[N]) @ (X[0] - X[N]).T
    w = np.linalg.solve(Q + sigma2[0] * np.eye(7), np.ones(7))
    np.testing.assert_allclose(W[0, N], w / w.sum(), rtol=1e-10)


# --------------------------------------------------------------------------- §3.3 subset selection


def test_subset_selection_is_seeded_and_maps_the_rest_out_of_sample():
    X = _s_curve_10d(400, 6)
    fit = lambda seed: SupervisedLLE(2, n_neighbors=8, n_subset=150, random_state=seed).fit(X)  # noqa: E731
    a, b, c = fit(1), fit(1), fit(2)
    np.testing.assert_array_equal(a.subset_, b.subset_)
    np.testing.assert_array_equal(a.embedding_, b.embedding_)
    assert not np.array_equal(a.subset_, c.subset_)
    assert len(a.subset_) == 150 and np.all(np.diff(a.subset_) > 0)
    # the draw is select_subset on the first stage I's sigma_i^2, with the same seed
    np.testing.assert_array_equal(a.subset_, np.sort(select_subset(a.noise_variances_, 150, 1)))
    # stage II on the subset: (1/p) Y^T Y = I there; the other samples are new points
    Y = a.embedding_[a.subset_]
    np.testing.assert_allclose(Y.T @ Y / 150, np.eye(2), atol=1e-10)
    np.testing.assert_array_equal(a.X_fit_, X[a.subset_])
    rest = np.setdiff1d(np.arange(400), a.subset_)
    np.testing.assert_array_equal(a.embedding_[rest], a.transform(X[rest]))
    # it favours large sigma_i^2 (curved or noisy neighbourhoods), yet samples everywhere
    assert a.noise_variances_[a.subset_].mean() > a.noise_variances_.mean()
    assert SupervisedLLE(2, n_neighbors=8, n_subset=0.5).fit(X).subset_.size == 200


def test_select_subset_draws_from_the_ecdf_of_the_noise_variances():
    s = np.array([0.0, 1.0, 3.0, 0.0, 6.0, 2.0])
    cdf = np.cumsum(s)
    for seed in range(20):  # one draw is the inverse transform of one uniform
        u = check_random_state(seed).random_sample(1)[0]
        assert select_subset(s, 1, seed)[0] == np.searchsorted(cdf, u * cdf[-1], side="right")
    counts = np.bincount([select_subset(s, 1, seed)[0] for seed in range(3000)], minlength=6)
    expected = 3000 * s / s.sum()
    assert np.all(np.abs(counts - expected) <= 4 * np.sqrt(expected + 1))  # binomial, 4 sigma
    for seed in range(50):  # distinct, never a zero-variance sample
        drawn = select_subset(s, 4, seed)
        assert sorted(drawn) == [1, 2, 4, 5]
    with pytest.raises(ValueError, match="n_subset=5 but only 4 samples have sigma_i"):
        select_subset(s, 5, 0)


# --------------------------------------------------------------------------- validation


def test_clear_errors():
    X = np.random.default_rng(0).standard_normal((20, 3))
    with pytest.raises(ValueError, match=r"n_neighbors=20 but only 20 training samples.*n_neighbors <= 19"):
        SupervisedLLE(n_neighbors=20).fit(X)
    with pytest.raises(ValueError, match=r"n_neighbors=5 but n_subset=5 keeps only 5 samples.*n_neighbors <= 4"):
        SupervisedLLE(n_neighbors=5, n_subset=5).fit(X)
    with pytest.raises(ValueError, match="n_subset=30 but only 20"):
        SupervisedLLE(n_subset=30).fit(X)
    with pytest.raises(InvalidParameterError,
                       match=r"The 'n_components' parameter of SupervisedLLE must be .*Got 1\.5 instead"):
        SupervisedLLE(n_components=1.5).fit(X)
    with pytest.raises(ValueError, match="n_components=20 but only 19 components"):
        SupervisedLLE(n_components=20).fit(X)
    with pytest.raises(InvalidParameterError,
                       match=r"The 'alpha' parameter of SupervisedLLE must be .*Got 2\.0 instead"):
        SupervisedLLE(alpha=2.0).fit(X, np.arange(20) % 2)
    with pytest.raises(InvalidParameterError,
                       match=r"The 'reg' parameter of SupervisedLLE must be .*Got -1\.0 instead"):
        SupervisedLLE(reg=-1.0).fit(X)


def test_noise_variances_peak_where_the_manifold_bends():
    # Fig. 2(b): sigma_i^2 (beyond the embedding's m = 2) is high in the bends of the sine sheet
    # (x = 1/4, 3/4) and low where it is flat (x = 0, 1/2, 1); beyond each m_i it would be 0 there
    from locproj.data.manifolds import generate_sine_manifold

    X = generate_sine_manifold(1000, seed=3)
    sigma2 = SupervisedLLE(2, n_neighbors=15, reg="auto").fit(X).noise_variances_
    x = X[:, 0]
    bends = np.median(sigma2[(np.abs(x - 0.25) < 0.05) | (np.abs(x - 0.75) < 0.05)])
    flat = np.median(sigma2[np.abs(x - 0.5) < 0.05])
    assert bends > 2 * flat


def test_subset_selection_draws_uniformly_when_no_neighborhood_has_noise_beyond_m():
    # m >= d leaves nothing beyond the embedding: every sigma_i^2 is 0 and all samples are alike
    drawn = select_subset(np.zeros(50), 20, random_state=0)
    assert len(set(drawn)) == 20 and drawn.max() < 50
    X = np.random.default_rng(0).standard_normal((60, 2))
    est = SupervisedLLE(2, n_neighbors=5, reg=1e-3, n_subset=30).fit(X)
    assert not est.noise_variances_.any() and len(est.subset_) == 30


def test_cross_validation_offers_no_p_inside_the_null_cluster_of_separated_classes():
    # alpha = 1 on four classes: three null directions beside the constant. CV offers p = 3 and on, never
    # p = 1 or 2; a dimension of 2 (v = 0.90 on a plane, or n_components=2) offers no p and says why.
    from locproj.engine.registry import estimator_factory, factory_tags, method_spec
    from locproj.engine.selection import cross_validate

    rng = np.random.default_rng(6)
    X = rng.standard_normal((160, 5)) + np.repeat(rng.standard_normal((4, 5)) * 0.5, 40, axis=0)
    y = np.repeat(np.arange(4), 40)
    spec = method_spec("slle", None)
    grid = [{"n_components": 5, "alpha": 1.0}, {"n_components": 2, "alpha": 1.0}, {"n_components": 5, "alpha": 0.0}]
    cv = cross_validate(estimator_factory(spec, {"n_neighbors": 8, "eigen_solver": "dense"}), grid, X, y, n_folds=3,
                        p_max=5, tags=factory_tags(spec))
    assert np.isnan(cv.error[0, :2]).all() and np.isfinite(cv.error[0, 2:]).all()
    assert np.isnan(cv.error[1]).all() and np.isfinite(cv.error[2]).all()
    assert [item["params"] for item in cv.skipped] == [{"n_components": 2, "alpha": 1.0}]
