"""Graph construction: neighbour search, weights, LLE and local-KRR matrices, LFDA graphs, geodesics."""

import re

import numpy as np
import pytest
from scipy import sparse
from scipy.spatial.distance import cdist
from sklearn.kernel_ridge import KernelRidge

from locproj.core import neighbor_graphs
from locproj.core.class_graphs import class_block_graph, local_scaling_affinity, marginal_pairs_graph
from locproj.core.neighbor_graphs import (
    PRECOMPUTED_GROUP_MAX,
    binary_weights,
    double_centered_squares,
    geodesic_graph,
    heat_weights,
    isometric_distances,
    isometric_tau,
    kneighbors,
    kneighbors_query,
    laplacian,
    laplacian_factor,
    symmetrize,
)
from locproj.core.reconstruction_weights import _KERNEL_BLOCKS_MEMO, _ComponentKernels, lle_weights, local_krr_weights


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((45, 6))
    y = np.repeat(["a", "b", "c"], 15)
    return X, y


def _linked_pairs(W):
    W = sparse.coo_array(W)
    return W.row, W.col


def test_supervised_graph_never_links_two_classes(data):
    X, y = data
    nbhd = kneighbors(X, 4, y)
    for W in [symmetrize(heat_weights(nbhd)), lle_weights(X, nbhd),
              local_krr_weights(X, nbhd), class_block_graph(y),
              local_scaling_affinity(X, y)]:
        rows, cols = _linked_pairs(W)
        assert np.all(y[rows] == y[cols])


def test_kneighbors_are_the_nearest_others(data):
    X, _ = data
    nbhd = kneighbors(X, 3)
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    expected = np.sort(np.argsort(D, axis=1)[:, :3], axis=1)
    got = np.sort(nbhd.indices.reshape(-1, 3), axis=1)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_allclose(nbhd.sq_distances, D[nbhd.rows(), nbhd.indices])


def test_neighbor_lists_are_remembered_per_data_labels_and_k(data):
    X, y = data
    first = kneighbors(X, 3, y)
    assert kneighbors(X.copy(), 3, y.copy()) is first                 # same fold: no new search
    assert kneighbors(X, 4, y) is not first
    assert kneighbors(X, 3) is not kneighbors(X, 3, y)                # unsupervised differs
    with pytest.raises(ValueError):
        first.indices[0] = 1                                          # shared, so read-only
    W = heat_weights(first, 1.0)
    W.indices[:] = 0                                                  # the matrix owns its indices
    assert kneighbors(X, 3, y).indices.max() > 0
    moved = X.copy()
    moved[0, 0] += 1.0
    assert kneighbors(moved, 3, y) is not first
    with pytest.raises(ValueError, match="positive int"):
        kneighbors(X, True, y)                                        # not the entry of 1


def test_laplacian_factor_reproduces_the_laplacian():
    rng = np.random.default_rng(3)
    n = 40
    labels = rng.integers(0, 6, n)
    labels[:2] = [6, 7]                                   # two isolated points
    W = rng.uniform(0, 1, (n, n)) * (labels[:, None] == labels[None]) * (rng.uniform(size=(n, n)) < 0.6)
    W = np.triu(W, 1)
    W = sparse.csr_array(W + W.T)
    E = laplacian_factor(W)
    L, _ = laplacian(W)
    np.testing.assert_allclose(E.toarray().T @ E.toarray(), L.toarray(), atol=1e-12)
    Y = rng.standard_normal((n, 3))
    np.testing.assert_allclose(E @ Y, E.toarray() @ Y, atol=1e-12)
    np.testing.assert_allclose(E.gram(), E.toarray().T @ E.toarray(), atol=1e-12)
    ring = sparse.csr_array(np.roll(np.eye(300), 1, axis=1) + np.roll(np.eye(300), -1, axis=1))
    assert laplacian_factor(ring) is None                 # one component of 300 points


def test_component_kernels_read_every_pair_inside_a_component():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((30, 4))
    y = np.repeat([0, 1, 2], [12, 10, 8])                  # components of three sizes
    nbhd = kneighbors(X, "all", y)
    within = _ComponentKernels.if_cheaper(X, nbhd, "rbf", {"gamma": 0.5})
    assert within is not None
    rows, cols = nbhd.rows(), nbhd.indices
    expected = np.exp(-0.5 * np.sum((X[rows] - X[cols]) ** 2, axis=1))
    np.testing.assert_allclose(within.pairs(rows, cols), expected, rtol=1e-12)
    np.testing.assert_allclose(within.pairs(rows, rows), 1.0)


def test_local_kernel_blocks_are_reused_across_ridges(data):
    X, y = data
    nbhd = kneighbors(X, 4, y)
    first = local_krr_weights(X, nbhd, reg=0.1)
    blocks = _KERNEL_BLOCKS_MEMO.values_for(X, nbhd.indptr, nbhd.indices)
    assert len(blocks) == 1
    second = local_krr_weights(X, nbhd, reg=10.0)
    assert len(_KERNEL_BLOCKS_MEMO.values_for(X, nbhd.indptr, nbhd.indices)) == 1
    _KERNEL_BLOCKS_MEMO.clear()
    assert np.array_equal(local_krr_weights(X, nbhd, reg=10.0).toarray(), second.toarray())
    assert not np.allclose(first.toarray(), second.toarray())


def test_all_means_every_other_member_of_the_class():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((9, 3))
    y = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2])
    nbhd = kneighbors(X, "all", y)
    np.testing.assert_array_equal(nbhd.counts, [3, 3, 3, 3, 2, 2, 2, 1, 1])
    assert not np.any(nbhd.indices == nbhd.rows())


def test_heat_weights_follow_the_gamma_convention(data):
    X, _ = data
    nbhd = kneighbors(X, 2)
    W = heat_weights(nbhd, gamma=3.0)
    i, j = nbhd.rows()[0], nbhd.indices[0]
    assert W[i, j] == pytest.approx(np.exp(-np.sum((X[i] - X[j]) ** 2) / 3.0))
    W_default = heat_weights(nbhd)
    assert W_default[i, j] == pytest.approx(np.exp(-nbhd.sq_distances[0] / nbhd.sq_distances.mean()))


def test_symmetrize_and_laplacian(data):
    X, _ = data
    W = symmetrize(heat_weights(kneighbors(X, 3)))
    assert abs(W - W.T).max() == 0
    L, D = laplacian(W)
    np.testing.assert_allclose(L @ np.ones(len(X)), 0, atol=1e-12)
    np.testing.assert_allclose(D.diagonal(), np.asarray(W.sum(axis=1)).ravel())


def test_symmetrize_is_the_larger_weight_of_each_pair():
    # the edge 0 -> 1 is given in one direction only; 1 -> 2 and 2 -> 1 carry different weights
    W = sparse.csr_array(np.array([[0.0, 0.7, 0.0], [0.0, 0.0, 0.4], [0.0, 0.2, 0.0]]))
    np.testing.assert_array_equal(symmetrize(W).toarray(),
                                  [[0.0, 0.7, 0.0], [0.7, 0.0, 0.4], [0.0, 0.4, 0.0]])


@pytest.mark.parametrize("n_neighbors, y, match", [
    (15, np.repeat(["a", "b", "c"], 15), r"n_neighbors=15 but class 'a' has only 15 samples.*n_neighbors <= 14"),
    (3, np.array(["a"] * 30 + ["b"] * 12 + ["c"] * 3), r"class 'c' has only 3 samples"),
    (3, np.zeros(45), "at least 2 classes"),
    (0, None, "positive int or 'all'"),
    ("most", None, "positive int or 'all'"),
    (45, None, "the data set has only 45 samples"),
])
def test_clear_errors(data, n_neighbors, y, match):
    X, _ = data
    with pytest.raises(ValueError, match=match):
        kneighbors(X, n_neighbors, y)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nonfinite_input_is_rejected(data, bad):
    X, y = data
    X = X.copy()
    X[3, 2] = bad
    with pytest.raises(ValueError, match="NaN or infinity"):
        kneighbors(X, 3, y)


@pytest.mark.parametrize("reg_mode", ["trace", "fixed", "auto"])
def test_lle_weights_sum_to_one(data, reg_mode):
    X, y = data
    W = lle_weights(X, kneighbors(X, 5, y), reg=1e-2, reg_mode=reg_mode)
    np.testing.assert_allclose(np.asarray(W.sum(axis=1)).ravel(), 1.0, atol=1e-12)


@pytest.mark.parametrize("reg_mode", ["trace", "fixed"])
def test_lle_weights_reproduce_a_point_in_the_affine_hull(reg_mode):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((6, 8))
    X[1:4] *= 0.1  # three points near the origin ...
    X[4:] *= 10  # ... two far away ...
    X[0] = 0.5 * X[1] + 0.3 * X[2] + 0.2 * X[3]  # ... and one in the affine hull of the three
    nbhd = kneighbors(X, 3)
    assert set(nbhd.indices[:3]) == {1, 2, 3}
    W = lle_weights(X, nbhd, reg=0.0 if reg_mode == "fixed" else 1e-14, reg_mode=reg_mode)
    w = W[[0], :].toarray().ravel()
    np.testing.assert_allclose(w @ X, X[0], atol=1e-9 * np.abs(X[0]).max())
    np.testing.assert_allclose(w[1:4], [0.5, 0.3, 0.2], atol=1e-7)


def test_auto_regularisation_matches_de_ridder_duin():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((5, 10))
    nbhd = kneighbors(X, 4)
    Z = X[0] - X[nbhd.indices[:4]]
    Q = Z @ Z.T
    lam = np.sort(np.linalg.eigvalsh(Q))[::-1]
    m = int(np.searchsorted(np.cumsum(lam) / lam.sum(), 0.8) + 1)
    sigma2 = lam[m:].mean()
    w = np.linalg.solve(Q + sigma2 * np.eye(4), np.ones(4))
    W = lle_weights(X, nbhd, reg_mode="auto", retained_variance=0.8)
    np.testing.assert_allclose(W[[0], :].toarray().ravel()[nbhd.indices[:4]], w / w.sum(), rtol=1e-10)


@pytest.mark.parametrize("kernel, gamma", [("linear", None), ("rbf", 0.3)])
@pytest.mark.parametrize("supervised", [True, False])
def test_local_krr_equals_kernel_ridge_on_the_neighbors(data, kernel, gamma, supervised):
    X, y = data
    lam = 0.7
    nbhd = kneighbors(X, 5, y if supervised else None)
    # three classes of 15 (675 kernel entries) against 45 blocks of 5 x 5 (1125): a supervised
    # graph reads its blocks from the classes' kernel matrices, the connected kNN graph does not
    within = _ComponentKernels.if_cheaper(X, nbhd, kernel, {} if gamma is None else {"gamma": gamma})
    assert (within is not None) == supervised
    A = local_krr_weights(X, nbhd, reg=lam, kernel=kernel, gamma=gamma, center=True)
    f = np.random.default_rng(4).standard_normal(len(X))
    o = A @ f
    Xk = X - X.mean(axis=0) if kernel == "linear" else X
    for i in [0, 17, 44]:
        nb = nbhd.indices[nbhd.indptr[i]:nbhd.indptr[i + 1]]
        krr = KernelRidge(alpha=lam, kernel=kernel, gamma=gamma).fit(Xk[nb], f[nb])
        assert o[i] == pytest.approx(krr.predict(Xk[[i]])[0], rel=1e-10, abs=1e-12)


def test_local_krr_uses_k_i_between_x_i_and_its_neighbors():
    # If k_i were taken among the neighbours only (a known bug), o_i would not depend on x_i.
    rng = np.random.default_rng(5)
    X = rng.standard_normal((8, 3))
    nbhd = kneighbors(X, 3)
    A1 = local_krr_weights(X, nbhd, kernel="linear", center=False)
    X2 = X.copy()
    X2[0] *= 1.01  # same neighbours (checked), different x_0
    nbhd2 = kneighbors(X2, 3)
    assert np.array_equal(nbhd.indices[:3], nbhd2.indices[:3])
    A2 = local_krr_weights(X2, nbhd2, kernel="linear", center=False)
    nb = nbhd.indices[:3]
    np.testing.assert_allclose(A2[[0], :].toarray().ravel()[nb], 1.01 * A1[[0], :].toarray().ravel()[nb])


def test_class_block_graph_gives_between_class_scatter(data):
    X, y = data
    Xc = X - X.mean(axis=0)
    W = class_block_graph(y)
    Sb = sum(np.sum(y == c) * np.outer(Xc[y == c].mean(0), Xc[y == c].mean(0)) for c in np.unique(y))
    np.testing.assert_allclose(Xc.T @ (W @ Xc), Sb, atol=1e-10)


def test_lfda_laplacians_match_the_dense_definition(data):
    from locproj.methods.lfda import lfda_laplacians

    X, y = data
    n = len(X)
    A = local_scaling_affinity(X, y, 7).toarray()
    same = y[:, None] == y[None, :]
    n_c = np.array([np.sum(y == c) for c in y])[:, None]
    W_lw = np.where(same, A / n_c, 0.0)
    W_lb = np.where(same, A * (1 / n - 1 / n_c), 1 / n)
    L_b, L_w = lfda_laplacians(X, y, 7)
    V = np.random.default_rng(6).standard_normal((n, 4))
    np.testing.assert_allclose(L_w @ V, (np.diag(W_lw.sum(1)) - W_lw) @ V, atol=1e-12)
    np.testing.assert_allclose(L_b @ V, (np.diag(W_lb.sum(1)) - W_lb) @ V, atol=1e-12)
    # sigma_i: distance to the 7th nearest neighbour within the class
    Xa = X[y == "a"]
    d = np.sqrt(((Xa[:, None] - Xa[None]) ** 2).sum(-1))
    sigma = np.sort(d, axis=1)[:, 7]
    np.testing.assert_allclose(A[:15, :15], np.exp(-d**2 / np.outer(sigma, sigma)), rtol=1e-10)


def test_duplicate_points_are_neighbors_at_distance_zero():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((12, 4))
    X[5] = X[3]
    y = np.repeat([0, 1], 6)
    nbhd = kneighbors(X, 2, y)
    assert 5 in nbhd.indices[nbhd.indptr[3]:nbhd.indptr[4]]
    assert not np.any(nbhd.indices == nbhd.rows())
    assert nbhd.sq_distances[nbhd.indptr[3]] == 0.0


def test_large_groups_find_the_nearest_with_exact_distances():
    rng = np.random.default_rng(10)
    X = rng.standard_normal((PRECOMPUTED_GROUP_MAX + 20, 3))
    nbhd = kneighbors(X, 4)
    d = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    np.testing.assert_array_equal(nbhd.indices.reshape(-1, 4), np.argsort(d, axis=1)[:, :4])
    np.testing.assert_allclose(nbhd.sq_distances, ((X[nbhd.rows()] - X[nbhd.indices]) ** 2).sum(1), rtol=1e-15)


def _exact_lists(X, k, y=None):
    """Each point's k nearest others of its group in exact integer arithmetic, nearest first,
    ties to the lowest index."""
    Xi = X.astype(np.int64)
    out = np.empty((len(X), k), dtype=np.int64)
    groups = [np.arange(len(X))] if y is None else [np.flatnonzero(y == c) for c in np.unique(y)]
    for g in groups:
        D = ((Xi[g][:, None, :] - Xi[g][None, :, :]) ** 2).sum(-1)
        np.fill_diagonal(D, np.iinfo(np.int64).max)
        out[g] = g[np.argsort(D, axis=1, kind="stable")[:, :k]]
    return out


def _tied_integers(n=700, seed=11):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, 3)).astype(float)
    X[20:40] = X[0:20]                                                # duplicates: neighbours at distance 0
    return X, rng.permutation(np.repeat([0, 1, 2], [n - 150, 100, 50]))


@pytest.mark.parametrize("supervised", [False, True])
@pytest.mark.parametrize("k", [1, 4, 9])
def test_both_searches_pick_the_lowest_index_among_exact_ties(monkeypatch, supervised, k):
    """Integer points in 3 columns: nearly every list ends among many equally distant points.
    The search of large groups, the search of small ones and exact integer arithmetic agree."""
    X, y = _tied_integers()
    y = y if supervised else None
    expected = _exact_lists(X, k, y)
    lists = {}
    for limit in (0, 10**6):                                          # every group large, every group small
        monkeypatch.setattr(neighbor_graphs, "PRECOMPUTED_GROUP_MAX", limit)
        neighbor_graphs._NEIGHBORS_MEMO.clear()
        nbhd = kneighbors(X, k, y)
        lists[limit] = nbhd.indices.reshape(-1, k)
        np.testing.assert_array_equal(nbhd.sq_distances, ((X[nbhd.rows()] - X[nbhd.indices]) ** 2).sum(1))
    neighbor_graphs._NEIGHBORS_MEMO.clear()
    np.testing.assert_array_equal(lists[0], expected)
    np.testing.assert_array_equal(lists[10**6], expected)


@pytest.mark.parametrize("seed", range(3))
def test_neighbor_lists_ignore_a_perturbation_of_1e_15(seed):
    """The exact ties of integer data, perturbed by up to 1e-15 relative: the same lists, in the
    large-group search (700 points) and the small-group one (classes of 100 and 50)."""
    X, y = _tied_integers(seed=seed)
    rng = np.random.default_rng(50 + seed)
    noisy = X * (1 + 1e-15 * rng.uniform(-1, 1, X.shape))
    assert np.any(noisy != X)
    for labels in (None, y):
        np.testing.assert_array_equal(kneighbors(noisy, 6, labels).indices, kneighbors(X, 6, labels).indices)
        np.testing.assert_array_equal(kneighbors(noisy, 6, labels).indices.reshape(-1, 6), _exact_lists(X, 6, labels))


def test_lists_without_distances_are_the_same_lists():
    """``distances=False`` (the weights that need no distances) skips their rescoring, not the rule."""
    X, y = _tied_integers(seed=0)
    for labels in (None, y):
        bare = kneighbors(X, 6, labels, distances=False)
        assert bare.sq_distances is None
        np.testing.assert_array_equal(bare.indices, kneighbors(X, 6, labels).indices)
        np.testing.assert_array_equal(bare.indptr, kneighbors(X, 6, labels).indptr)


def test_iris_lists_survive_a_pca():
    """Iris has exact ties among neighbours; a PCA to all 4 components keeps every distance up to
    rounding (~1e-15), which must not reorder them."""
    from sklearn.datasets import load_iris
    from sklearn.decomposition import PCA

    X = load_iris().data
    Z = PCA().fit_transform(X)
    for k in (2, 3, 5, 8):
        np.testing.assert_array_equal(kneighbors(Z, k).indices, kneighbors(X, k).indices)
        y = load_iris().target
        np.testing.assert_array_equal(kneighbors(Z, k, y).indices, kneighbors(X, k, y).indices)


def test_query_follows_the_same_rule():
    X, _ = _tied_integers(n=400)
    rng = np.random.default_rng(12)
    new = rng.integers(0, 4, (300, 3)).astype(float)
    got = kneighbors_query(X, new, 7)
    D = ((new[:, None, :].astype(np.int64) - X[None, :, :].astype(np.int64)) ** 2).sum(-1)
    np.testing.assert_array_equal(got, np.argsort(D, axis=1, kind="stable")[:, :7])
    noisy = new * (1 + 1e-15 * rng.uniform(-1, 1, new.shape))
    np.testing.assert_array_equal(kneighbors_query(X, noisy, 7), got)


def test_query_equals_nearest_neighbors_without_ties():
    from sklearn.neighbors import NearestNeighbors

    rng = np.random.default_rng(13)
    X_ref, X_new = rng.standard_normal((600, 5)), rng.standard_normal((90, 5))
    expected = NearestNeighbors(n_neighbors=4).fit(X_ref).kneighbors(X_new, return_distance=False)
    np.testing.assert_array_equal(kneighbors_query(X_ref, X_new, 4), expected)
    assert kneighbors_query(X_ref, X_new[:0], 4).shape == (0, 4)
    with pytest.raises(ValueError, match="n_neighbors"):
        kneighbors_query(X_ref[:3], X_new, 4)


@pytest.mark.parametrize("seed", range(3))
def test_marginal_pairs_ignore_a_perturbation_of_1e_15(seed):
    """Between-class pairs of integer points tie in many ways; perturbed by up to 1e-15 relative,
    the same pairs are chosen."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (90, 4)).astype(float)
    y = rng.integers(0, 3, 90)
    noisy = X * (1 + 1e-15 * rng.uniform(-1, 1, X.shape))
    D = ((X[:, None, :].astype(np.int64) - X[None, :, :].astype(np.int64)) ** 2).sum(-1)
    expected = np.zeros((90, 90))
    for c in range(3):
        pairs = sorted((D[i, j], i, j) for i in np.flatnonzero(y == c) for j in np.flatnonzero(y != c))
        for _, i, j in pairs[:15]:
            expected[i, j] = expected[j, i] = 1.0
    np.testing.assert_array_equal(marginal_pairs_graph(X, y, 15).toarray(), expected)
    np.testing.assert_array_equal(marginal_pairs_graph(noisy, y, 15).toarray(), expected)


def test_local_scaling_needs_a_positive_int(data):
    X, y = data
    with pytest.raises(ValueError, match="positive int"):
        local_scaling_affinity(X, y, 0)


@pytest.mark.parametrize("reg_mode", ["trace", "fixed"])
def test_lle_weights_of_a_point_whose_neighbors_all_coincide_with_it_are_uniform(reg_mode):
    """UMist holds exact duplicates: with k = 1, or k duplicates, G_i = 0 and tr(G_i) = 0."""
    X = np.array([[0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [3.0, 0.0], [4.0, 1.0]])
    W = lle_weights(X, kneighbors(X, 2), reg=0.0 if reg_mode == "fixed" else 1e-3,
                    reg_mode=reg_mode).toarray()
    assert np.all(np.isfinite(W))
    assert np.allclose(W[0], [0, 0.5, 0.5, 0, 0]) and np.allclose(W.sum(axis=1), 1)


# --------------------------------------------------------------------------- messages and argument checks


def test_check_finite_returns_a_float_array():
    X = neighbor_graphs.check_finite([[1, 2], [3, 4]])
    assert X.dtype == np.float64
    np.testing.assert_array_equal(X, [[1.0, 2.0], [3.0, 4.0]])


def test_nonfinite_input_names_the_array(data):
    X, _ = data
    X = X.copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match=r"^X contains NaN or infinity; remove or impute"):
        kneighbors(X, 3)
    with pytest.raises(ValueError, match=r"^X_ref contains NaN or infinity"):
        kneighbors_query(X, X[1:3], 2)
    with pytest.raises(ValueError, match=r"^X_new contains NaN or infinity"):
        kneighbors_query(X[1:], X[:2], 2)


def test_a_single_class_is_refused_with_the_fix():
    X = np.random.default_rng(0).standard_normal((6, 2))
    with pytest.raises(ValueError, match=re.escape("needs at least 2 classes, got 1 (class 'a'); "
                                                   "use supervised=False for unlabelled data.")):
        kneighbors(X, 2, np.array(["a"] * 6))


@pytest.mark.parametrize("dtype", [None, object])
def test_a_class_of_one_sample_is_refused_with_the_fix(dtype):
    """The message of docs/methods.md, also for labels held as Python objects (e.g. a pandas column)."""
    X = np.random.default_rng(0).standard_normal((7, 2))
    y = np.array(["a", "a", "a", "b", "b", "b", "c"], dtype=dtype)
    expected = ("class 'c' has only 1 sample, but every point needs at least one neighbour of its own class; "
                "remove that class's samples, add samples to it, or use supervised=False.")
    with pytest.raises(ValueError, match="^" + re.escape(expected) + "$"):
        kneighbors(X, 1, y)


def test_a_single_sample_is_refused_with_the_fix():
    expected = ("the data set has only 1 sample, but every point needs at least one neighbour; "
                "pass at least 2 samples.")
    with pytest.raises(ValueError, match="^" + re.escape(expected) + "$"):
        kneighbors(np.zeros((1, 3)), 1)


def test_default_is_five_neighbors(data):
    X, _ = data
    np.testing.assert_array_equal(kneighbors(X).counts, 5)
    np.testing.assert_array_equal(kneighbors(X).indices, kneighbors(X, 5).indices)


@pytest.mark.parametrize("alias", [True, 1.0])
def test_a_remembered_list_is_not_returned_for_an_invalid_k(data, alias):
    X, y = data
    kneighbors(X, 1, y)                                              # remembered under k = 1
    with pytest.raises(ValueError, match="positive int or 'all'"):
        kneighbors(X, alias, y)


@pytest.mark.parametrize("X_ref, X_new, match", [
    (np.zeros((5, 3)), np.zeros((2, 4)), r"same number of features, got shapes \(5, 3\) and \(2, 4\)"),
    (np.zeros(5), np.zeros((2, 1)), r"must be 2-D with the same number of features"),
])
def test_query_needs_matching_2d_arrays(X_ref, X_new, match):
    with pytest.raises(ValueError, match=match):
        kneighbors_query(X_ref, X_new, 1)


@pytest.mark.parametrize("bad", [0, 2.5, True, "2"])
def test_query_needs_a_positive_int(bad):
    rng = np.random.default_rng(14)
    with pytest.raises(ValueError, match=r"^n_neighbors must be a positive int, got "):
        kneighbors_query(rng.standard_normal((6, 2)), rng.standard_normal((3, 2)), bad)


def test_query_accepts_one_neighbor_up_to_every_reference():
    rng = np.random.default_rng(15)
    X_ref, X_new = rng.standard_normal((6, 2)), rng.standard_normal((4, 2))
    order = np.argsort(cdist(X_new, X_ref, "sqeuclidean"), axis=1)
    np.testing.assert_array_equal(kneighbors_query(X_ref, X_new, 1), order[:, :1])
    np.testing.assert_array_equal(kneighbors_query(X_ref, X_new, 6), order)
    with pytest.raises(ValueError, match=r"n_neighbors=7 but X_ref has only 6 rows; use n_neighbors <= 6"):
        kneighbors_query(X_ref, X_new, 7)


@pytest.mark.parametrize("scale", [1e-3, 1e3])
def test_lists_follow_the_tie_rule_at_any_scale(scale):
    """The band is relative to the data's scale: integer points scaled far from 1 and perturbed by
    1e-15 relative keep the lists of exact arithmetic, in the small-group, large-group and query searches."""
    X, y = _tied_integers()
    rng = np.random.default_rng(16)
    noisy = scale * X * (1 + 1e-15 * rng.uniform(-1, 1, X.shape))
    for labels in (None, y):
        np.testing.assert_array_equal(kneighbors(noisy, 6, labels).indices.reshape(-1, 6), _exact_lists(X, 6, labels))
    new = rng.integers(0, 4, (50, 3)).astype(float)
    D = ((new[:, None, :].astype(np.int64) - X[None, :, :].astype(np.int64)) ** 2).sum(-1)
    got = kneighbors_query(noisy, scale * new * (1 + 1e-15 * rng.uniform(-1, 1, new.shape)), 7)
    np.testing.assert_array_equal(got, np.argsort(D, axis=1, kind="stable")[:, :7])


def test_all_carries_the_squared_distances():
    rng = np.random.default_rng(17)
    X = rng.standard_normal((9, 3))
    y = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2])
    for labels in (None, y):
        nbhd = kneighbors(X, "all", labels)
        np.testing.assert_allclose(nbhd.sq_distances, cdist(X, X, "sqeuclidean")[nbhd.rows(), nbhd.indices],
                                   rtol=1e-14)
        W = heat_weights(nbhd)
        assert W.nnz == len(nbhd.indices)


# --------------------------------------------------------------------------- weights and Laplacians


def test_binary_weights_are_one_on_every_edge(data):
    X, y = data
    nbhd = kneighbors(X, 3, y)
    W = binary_weights(nbhd)
    expected = np.zeros((len(X), len(X)))
    expected[nbhd.rows(), nbhd.indices] = 1.0
    np.testing.assert_array_equal(W.toarray(), expected)


def test_default_heat_width_is_the_mean_squared_edge_length():
    rng = np.random.default_rng(18)
    X = 0.01 * rng.standard_normal((20, 3))                          # mean squared edge length far below 1
    nbhd = kneighbors(X, 3)
    gamma = nbhd.sq_distances.mean()
    assert neighbor_graphs.default_heat_gamma(nbhd) == pytest.approx(gamma, rel=1e-12)
    np.testing.assert_allclose(heat_weights(nbhd).data, np.exp(-nbhd.sq_distances / gamma), rtol=1e-12)


def test_heat_weights_of_coincident_neighbors_are_one():
    """Every point has a duplicate as its only neighbour: all edges have length 0 and the default width
    must still be a positive number."""
    X = np.repeat(np.random.default_rng(19).standard_normal((5, 3)), 2, axis=0)
    nbhd = kneighbors(X, 1)
    assert np.all(nbhd.sq_distances == 0)
    assert neighbor_graphs.default_heat_gamma(nbhd) > 0
    np.testing.assert_array_equal(heat_weights(nbhd).data, 1.0)


@pytest.mark.parametrize("gamma", [0.0, -1.0, np.nan])
def test_heat_width_must_be_positive(data, gamma):
    X, _ = data
    with pytest.raises(ValueError, match=r"^gamma \(heat-kernel width\) must be positive, got "):
        heat_weights(kneighbors(X, 2), gamma)


def test_laplacian_factor_keeps_self_loops_out_of_the_laplacian(data):
    """A graph with weights on its diagonal (LDA's class blocks): ``E^T E = D - W`` still, and the
    self-loops cancel (``L 1 = 0``)."""
    X, y = data
    W = class_block_graph(y)
    assert np.all(W.diagonal() > 0)
    E = laplacian_factor(W)
    L, _ = laplacian(W)
    np.testing.assert_allclose(E.gram(), L.toarray(), atol=1e-12)
    np.testing.assert_allclose(E.gram() @ np.ones(len(X)), 0, atol=1e-12)


def test_laplacian_factor_takes_components_of_up_to_256_points():
    ring = sparse.csr_array(np.roll(np.eye(256), 1, axis=1) + np.roll(np.eye(256), -1, axis=1))
    E = laplacian_factor(ring)
    assert E is not None
    np.testing.assert_allclose(E.gram(), laplacian(ring)[0].toarray(), atol=1e-11)


def test_laplacian_factor_of_an_empty_graph_is_empty():
    E = laplacian_factor(sparse.csr_array((0, 0)))
    assert E.shape == (0, 0) and E.toarray().shape == (0, 0)


# --------------------------------------------------------------------------- geodesics (isometric projection)


def test_geodesic_graph_is_the_symmetric_knn_graph_with_euclidean_lengths():
    from sklearn.neighbors import kneighbors_graph

    rng = np.random.default_rng(20)
    X = rng.standard_normal((30, 3))
    X[7] = X[2]                                                      # a coincident pair: an edge of length 0
    graph = geodesic_graph(kneighbors(X, 3))
    A = kneighbors_graph(X, 3, mode="distance").toarray()
    np.testing.assert_allclose(graph.toarray(), np.maximum(A, A.T), rtol=1e-14)
    # the stored pattern is the symmetric neighbour relation, with the zero-length edge kept explicitly
    nbhd = kneighbors(X, 3)
    linked = np.zeros((30, 30), dtype=bool)
    linked[nbhd.rows(), nbhd.indices] = True
    pattern = np.zeros((30, 30), dtype=bool)
    pattern[graph.nonzero()] = True
    coo = graph.tocoo()
    pattern[coo.row, coo.col] = True
    np.testing.assert_array_equal(pattern, linked | linked.T)
    assert graph.nnz == np.count_nonzero(linked | linked.T)
    assert graph[2, 7] == 0.0 and graph.has_sorted_indices


def test_geodesic_graph_keeps_the_longer_length_of_a_pair():
    """If the two directions of an edge carry lengths that differ (by rounding), the graph holds one,
    the same both ways: the longer."""
    nbhd = neighbor_graphs.Neighborhoods(indptr=np.array([0, 1, 2, 3]), indices=np.array([1, 0, 1]),
                                         sq_distances=np.array([4.0, 4.0 * (1 + 1e-15), 1.0]))
    graph = geodesic_graph(nbhd).toarray()
    np.testing.assert_array_equal(graph, graph.T)
    assert graph[0, 1] == np.sqrt(4.0 * (1 + 1e-15)) and graph[1, 2] == 1.0


def test_geodesic_distances_read_every_edge_both_ways():
    """The graph is undirected: an edge stored in one direction only is walked both ways."""
    path = sparse.csr_array((np.array([1.0, 2.0, 3.0]), (np.array([0, 1, 2]), np.array([1, 2, 3]))), shape=(5, 5))
    G = neighbor_graphs.geodesic_distances(path)
    np.testing.assert_array_equal(G[:4, :4], [[0, 1, 3, 6], [1, 0, 2, 5], [3, 2, 0, 3], [6, 5, 3, 0]])
    assert np.all(np.isinf(G[4, :4])) and np.all(np.isinf(G[:4, 4]))   # point 4 has no edge


def test_isometric_distances_are_isomaps_geodesics():
    from sklearn.manifold import Isomap

    rng = np.random.default_rng(21)
    t = np.sort(rng.uniform(0, 3 * np.pi, 60))
    X = np.column_stack([t * np.cos(t), t * np.sin(t), 0.1 * rng.standard_normal(60)])
    D = isometric_distances(X, 5)
    iso = Isomap(n_neighbors=5, n_components=2).fit(X)
    np.testing.assert_allclose(D, iso.dist_matrix_, rtol=1e-12)
    assert np.any(D > 1.5 * cdist(X, X))                            # a spiral: geodesics are longer than chords


def test_isometric_distances_between_classes_are_far():
    """Supervised: geodesics within each class, and ``far_ratio`` times the largest within-class Euclidean
    distance between classes (data far below unit scale, so no constant 1 can pass for that distance)."""
    from sklearn.manifold import Isomap

    rng = np.random.default_rng(22)
    X = 1e-3 * rng.standard_normal((30, 3))
    y = np.repeat([0, 1], [18, 12])
    for far_ratio in (1000.0, 7.0):
        D = isometric_distances(X, 4, y, far_ratio=far_ratio)
        largest = max(cdist(X[y == c], X[y == c]).max() for c in (0, 1))
        assert D[0, 29] == far_ratio * largest
        np.testing.assert_array_equal(D[np.ix_(y == 0, y == 1)], far_ratio * largest)
        for c in (0, 1):
            geodesics = Isomap(n_neighbors=4, n_components=1).fit(X[y == c]).dist_matrix_
            np.testing.assert_allclose(D[np.ix_(y == c, y == c)], geodesics, rtol=1e-12)
    np.testing.assert_allclose(D, D.T, rtol=1e-14)


def test_isometric_distances_of_a_disconnected_graph_are_far():
    rng = np.random.default_rng(23)
    X = np.vstack([rng.standard_normal((10, 2)), 100 + rng.standard_normal((10, 2))])
    D = isometric_distances(X, 3)
    far = 1000.0 * cdist(X, X).max()
    np.testing.assert_array_equal(D[:10, 10:], far)
    assert np.all(D[:10, :10] < far) and np.all(D[10:, 10:] < far)


def test_classes_of_at_most_k_plus_one_points_get_euclidean_distances():
    """A class of ``n_neighbors + 1`` (or fewer) points is a complete graph: exactly its Euclidean distances,
    even on a line where a path through a middle point can round below the direct distance.  A class of
    ``n_neighbors + 2`` points on an arc is not complete: its two ends are joined through the others."""
    rng = np.random.default_rng(1)
    line = np.column_stack([rng.standard_normal(6), np.zeros(6)])
    angles = np.linspace(0, np.pi, 7)
    arc = 50 + np.column_stack([np.cos(angles), np.sin(angles)])
    X = np.vstack([line, line[:5] - 20, arc])
    y = np.repeat([0, 1, 2], [6, 5, 7])
    D = isometric_distances(X, 5, y)
    for c in (0, 1):
        np.testing.assert_array_equal(D[np.ix_(y == c, y == c)], cdist(X[y == c], X[y == c]))
    ends = D[np.ix_(y == 2, y == 2)][0, -1]
    assert ends == pytest.approx(2 * np.sin(np.pi / 12) + cdist(arc[1:2], arc[6:7])[0, 0], rel=1e-12)
    np.testing.assert_array_equal(isometric_distances(X, "all", y)[np.ix_(y == 2, y == 2)], cdist(arc, arc))
    # without labels, n_neighbors >= n - 1 is the complete graph
    np.testing.assert_array_equal(isometric_distances(line, 5), cdist(line, line))
    np.testing.assert_array_equal(isometric_distances(line, 10**6), cdist(line, line))


@pytest.mark.parametrize("bad", [0, "most", "ALL", True, 2.5])
def test_isometric_distances_need_a_positive_int_or_all(bad):
    X = np.random.default_rng(24).standard_normal((8, 2))
    with pytest.raises(ValueError, match=r"^n_neighbors must be a positive int or 'all', got "):
        isometric_distances(X, bad)


def test_isometric_distances_refuse_classes_that_each_coincide():
    X = np.repeat([[0.0, 1.0], [2.0, 3.0]], 3, axis=0)
    y = np.repeat([0, 1], 3)
    with pytest.raises(ValueError, match="^" + re.escape(
            "isometric projection: the samples of every class coincide, so the largest within-class distance "
            "is 0 and so is the far distance between classes (1000 times it): every distance is 0 and there "
            "is nothing to project; pass classes with at least two distinct samples, or use supervised=False.")):
        isometric_distances(X, 2, y)


def test_double_centered_squares_are_the_centered_gram_matrix():
    """``tau(G) = -H S H / 2``; for Euclidean ``G`` it is the Gram matrix of the centred points."""
    rng = np.random.default_rng(25)
    X = rng.standard_normal((12, 3)) * [1.0, 3.0, 0.5] + 4.0
    G = cdist(X, X)
    H = np.eye(12) - np.ones((12, 12)) / 12
    Xc = X - X.mean(axis=0)
    tau = double_centered_squares(G)
    np.testing.assert_allclose(tau, -H @ (G**2) @ H / 2, atol=1e-12)
    np.testing.assert_allclose(tau, Xc @ Xc.T, atol=1e-12)
    sym = isometric_tau(G)
    np.testing.assert_array_equal(sym, sym.T)
    np.testing.assert_array_equal(sym, np.maximum(tau, tau.T))
    np.testing.assert_allclose(sym, Xc @ Xc.T, atol=1e-12)


def test_isometric_distances_take_any_count_from_n_minus_1_as_the_complete_graph():
    line = np.column_stack([np.arange(6.0) ** 2, np.zeros(6)])
    for huge in (5, 2**63, np.uint64(2**64 - 1)):
        np.testing.assert_array_equal(isometric_distances(line, huge), cdist(line, line))


def test_isometric_distances_of_constant_data_without_labels_say_so():
    with pytest.raises(ValueError, match=r"^isometric projection: every sample coincides, so every distance is 0 "
                                         r"and there is nothing to project; pass at least two distinct samples\.$"):
        isometric_distances(np.ones((5, 2)), 2)


def test_laplacian_gives_csr_arrays_of_d_minus_w_and_the_degrees(data):
    X, y = data
    W = symmetrize(heat_weights(kneighbors(X, 3, y)))
    L, D = laplacian(W)
    assert (L.format, D.format) == ("csr", "csr")
    np.testing.assert_allclose(D.toarray(), np.diag(W.sum(axis=1)), rtol=1e-15)
    np.testing.assert_allclose(L.toarray(), D.toarray() - W.toarray(), rtol=1e-15)
