"""Property-based tests of the core numerics, with ``hypothesis``.

* graph weights (:mod:`locproj.core.neighbor_graphs`, :mod:`locproj.core.reconstruction_weights`):
  symmetric where documented, rows summing to what is documented, no edge between two classes
  when supervised;
* the all-p evaluation (:mod:`locproj.core.evaluation`): one pass over the columns decides as a
  classifier refitted on the first p columns, for every p;
* the solver (:func:`locproj.core.solvers.solve_embedding`): the constraint holds to 1e-8 on random
  well-posed problems, and the columns diagonalise the objective with the eigenvalues returned.

Examples are drawn deterministically (``derandomize=True``, no example database), so CI sees the
same examples on every run; the budget keeps the file to a few seconds.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import sparse
from sklearn.neighbors import KNeighborsClassifier
from threadpoolctl import threadpool_limits

from locproj.core.evaluation import errors_all_p, predict_all_p, predict_at_p
from locproj.core.class_graphs import class_block_graph, local_scaling_affinity
from locproj.core.neighbor_graphs import (
    binary_weights,
    heat_weights,
    kneighbors,
    laplacian,
    laplacian_factor,
    symmetrize,
)
from locproj.core.reconstruction_weights import (
    lle_weights,
    local_krr_weights,
    reconstruction_cost,
    reconstruction_error,
)
from locproj.core.solvers import GramFactor, solve_embedding

CHECKS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# bounded, finite coordinates; hypothesis favours repeated values, so exact duplicates and ties occur
COORDINATE = st.floats(-100, 100, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@st.composite
def labelled_data(draw, min_class=2, max_class=7):
    """``(X, y)``: 1 to 3 classes of ``min_class..max_class`` points in 1 to 4 dimensions, the
    labels in an arbitrary order."""
    sizes = draw(st.lists(st.integers(min_class, max_class), min_size=1, max_size=3))
    y = np.repeat(np.arange(len(sizes)), sizes)
    y = y[draw(st.permutations(range(len(y))))]
    X = draw(arrays(np.float64, (len(y), draw(st.integers(1, 4))), elements=COORDINATE))
    return X, y


@st.composite
def graph_problem(draw):
    """Labelled data, a neighbour count every class allows, and whether the graph is supervised."""
    X, y = draw(labelled_data())
    supervised = draw(st.booleans()) and len(np.unique(y)) >= 2
    smallest = np.bincount(y).min() if supervised else len(y)
    k = draw(st.integers(1, smallest - 1) | st.just("all"))
    return X, y, k, supervised


def _dense(M) -> np.ndarray:
    return M.toarray() if sparse.issparse(M) else np.asarray(M)


def _assert_within_classes(M, y):
    rows, cols = np.nonzero(_dense(M))
    assert np.all(y[rows] == y[cols]), "an edge links two classes"


# --------------------------------------------------------------------------- graph weights


@CHECKS
@given(graph_problem())
def test_neighbor_graphs_symmetric_laplacians_and_class_separation(problem):
    X, y, k, supervised = problem
    nbhd = kneighbors(X, k, y if supervised else None)
    rows = nbhd.rows()
    assert np.all(rows != nbhd.indices), "a point is its own neighbour"
    expected = (np.bincount(y)[y] - 1) if supervised and k == "all" else (len(y) - 1 if k == "all" else k)
    assert np.array_equal(nbhd.counts, np.broadcast_to(expected, len(y)))
    assert np.all(binary_weights(nbhd).data == 1)
    for W in (binary_weights(nbhd), heat_weights(nbhd)):
        assert np.all((W.data >= 0) & (W.data <= 1))
        S = symmetrize(W)
        assert (abs(S - S.T)).max() == 0, "symmetrize is not symmetric"
        L, D = laplacian(S)
        dense_L, dense_S = _dense(L), _dense(S)
        assert np.array_equal(dense_L, dense_L.T)
        np.testing.assert_allclose(_dense(D).diagonal(), dense_S.sum(axis=1), rtol=1e-14)
        np.testing.assert_allclose(dense_L.sum(axis=1), 0.0, atol=1e-12 * max(1.0, dense_S.sum(axis=1).max()))
        assert np.linalg.eigvalsh(dense_L).min() >= -1e-10 * max(1.0, dense_S.sum(axis=1).max())
        E = laplacian_factor(S)
        np.testing.assert_allclose(E.gram(), dense_L, atol=1e-10 * max(1.0, dense_S.sum(axis=1).max()))
        if supervised:
            _assert_within_classes(S, y)
            _assert_within_classes(L, y)


@CHECKS
@given(graph_problem(), st.sampled_from([("trace", 1e-3), ("fixed", 0.1), ("fixed", 10.0), ("auto", 0.0)]))
# found by hypothesis in CI: a squared difference of 8e-317 made Q + r tr(Q) I underflow, and w NaN
@example(problem=(np.array([[0.0], [9.06663349e-159]]), np.array([0, 0]), "all", False),
         regularisation=("trace", 1e-3))
def test_lle_weights_rows_sum_to_one_on_the_neighbors_only(problem, regularisation):
    X, y, k, supervised = problem
    nbhd = kneighbors(X, k, y if supervised else None)
    mode, reg = regularisation
    W = lle_weights(X, nbhd, reg=reg, reg_mode=mode)
    dense = _dense(W)
    assert np.all(np.isfinite(dense))
    np.testing.assert_allclose(dense.sum(axis=1), 1.0, atol=1e-12 * (1 + np.abs(dense).sum(axis=1)).max())
    pattern = np.zeros_like(dense, dtype=bool)
    pattern[nbhd.rows(), nbhd.indices] = True
    assert not np.any(dense[~pattern]), "a weight off the neighbour lists"
    if supervised:
        _assert_within_classes(W, y)
        _assert_within_classes(reconstruction_cost(W), y)


@CHECKS
@given(graph_problem(), st.sampled_from(["linear", "rbf"]), st.sampled_from([0.1, 1.0, 10.0]))
def test_local_krr_weights_stay_on_the_neighbors(problem, kernel, reg):
    X, y, k, supervised = problem
    nbhd = kneighbors(X, k, y if supervised else None)
    A = _dense(local_krr_weights(X, nbhd, reg=reg, kernel=kernel))
    assert np.all(np.isfinite(A))
    pattern = np.zeros_like(A, dtype=bool)
    pattern[nbhd.rows(), nbhd.indices] = True
    assert not np.any(A[~pattern])
    if supervised:
        _assert_within_classes(A, y)


@CHECKS
@given(labelled_data(min_class=1), st.integers(1, 8))
def test_class_graphs_are_symmetric_and_never_cross_classes(data, n_neighbors):
    X, y = data
    if len(np.unique(y)) < 2:
        with pytest.raises(ValueError, match="at least 2 classes"):
            class_block_graph(y)
        return
    W = _dense(class_block_graph(y))
    np.testing.assert_array_equal(W, W.T)
    np.testing.assert_allclose(W.sum(axis=1), 1.0, rtol=1e-12)  # D = I
    _assert_within_classes(W, y)
    A = _dense(local_scaling_affinity(X, y, n_neighbors))
    np.testing.assert_array_equal(A, A.T)
    assert np.all((A >= 0) & (A <= 1)) and np.all(A.diagonal() == 1)
    _assert_within_classes(A, y)


# --------------------------------------------------------------------------- all-p evaluation


@st.composite
def projected_problem(draw):
    """Projected training and test data (up to 60 columns, so the pruning every 48 columns runs),
    labels with at least one sample per class, and a chunk budget that may split the test rows."""
    n_train, n_test = draw(st.integers(1, 12)), draw(st.integers(1, 10))
    P = draw(st.integers(1, 8) | st.integers(49, 60))
    Z_train = draw(arrays(np.float64, (n_train, P), elements=COORDINATE))
    Z_test = draw(arrays(np.float64, (n_test, P), elements=COORDINATE))
    n_classes = draw(st.integers(1, min(3, n_train)))
    y_train = np.concatenate([np.arange(n_classes), draw(arrays(np.int64, n_train - n_classes,
                                                                elements=st.integers(0, n_classes - 1)))])
    y_test = draw(arrays(np.int64, n_test, elements=st.integers(0, n_classes - 1)))
    max_bytes = draw(st.sampled_from([8, 64, 1 << 20]))
    return Z_train, y_train, Z_test, y_test, max_bytes


def _references(Z_train, y_train, classifier):
    if classifier == "1nn":
        return Z_train, y_train
    classes = np.unique(y_train)
    return np.stack([Z_train[y_train == c].mean(axis=0) for c in classes]), classes


def _admissible_labels(R, labels, T, p):
    """Per test row, the labels of every reference nearest in the first p columns, up to rounding
    (exact squared distances would tie there; the documented rule breaks exact ties)."""
    D = ((T[:, None, :p] - R[None, :, :p]) ** 2).sum(axis=2)
    slack = 1e-9 * (1 + (T[:, :p] ** 2).sum(axis=1)[:, None] + (R[:, :p] ** 2).sum(axis=1).max())
    near = D <= D.min(axis=1, keepdims=True) + slack
    return [set(labels[row].tolist()) for row in near]


def _refit(classifier, Z_train, y_train, Z_test, p):
    """scikit-learn's 1-NN fitted on the first p columns of the training data, or of the class
    means (``NearestCentroid``'s rule; it refuses one class and constant data, which are valid here)."""
    R, labels = _references(Z_train, y_train, classifier)
    return KNeighborsClassifier(n_neighbors=1, algorithm="brute").fit(R[:, :p], labels).predict(Z_test[:, :p])


@settings(CHECKS, max_examples=25)
@given(projected_problem(), st.sampled_from(["1nn", "nearest_mean"]))
def test_the_all_p_pass_decides_as_a_classifier_refitted_per_p(problem, classifier):
    Z_train, y_train, Z_test, y_test, max_bytes = problem
    P = Z_train.shape[1]
    predictions = predict_all_p(Z_train, y_train, Z_test, classifier=classifier, max_bytes=max_bytes)
    errors = errors_all_p(Z_train, y_train, Z_test, y_test, classifier=classifier, max_bytes=max_bytes)
    assert predictions.shape == (len(Z_test), P) and errors.shape == (P,)
    event("pruning (P > 48)" if P > 48 else "P <= 48")
    R, labels = _references(Z_train, y_train, classifier)
    refitted = {1, 2, P // 2, min(P, 48), min(P, 49), P}  # scikit-learn is refitted at these p
    for p in range(1, P + 1):
        admissible = _admissible_labels(R, labels, Z_test, p)
        for i, allowed in enumerate(admissible):
            assert predictions[i, p - 1] in allowed, (i, p, allowed)
        if any(len(allowed) > 1 for allowed in admissible):
            event("a near tie between classes")
        assert errors[p - 1] == np.mean(predictions[:, p - 1] != y_test)
        if p not in refitted:
            continue
        refit = _refit(classifier, Z_train, y_train, Z_test, p)
        single = predict_at_p(Z_train, y_train, Z_test, p, classifier=classifier, max_bytes=max_bytes)
        for i, allowed in enumerate(admissible):
            assert single[i] in allowed, (i, p, allowed)
            if len(allowed) == 1:  # no near tie between classes: the refitted classifier's label
                assert predictions[i, p - 1] == refit[i] == single[i]
        if all(len(allowed) == 1 for allowed in admissible):
            assert errors[p - 1] == np.mean(refit != y_test)


@CHECKS
@given(projected_problem(), st.sampled_from(["1nn", "nearest_mean"]), st.data())
def test_a_subset_of_p_gives_the_same_columns_bit_for_bit(problem, classifier, data):
    Z_train, y_train, Z_test, _, max_bytes = problem
    P = Z_train.shape[1]
    if P < 2:
        return
    subset = sorted(data.draw(st.sets(st.integers(1, P), min_size=2, max_size=P)))
    full = predict_all_p(Z_train, y_train, Z_test, classifier=classifier, max_bytes=max_bytes)
    part = predict_all_p(Z_train, y_train, Z_test, classifier=classifier, p_values=subset, max_bytes=1 << 20)
    np.testing.assert_array_equal(part, full[:, np.asarray(subset) - 1])


# --------------------------------------------------------------------------- the solver


@st.composite
def embedding_problem(draw):
    """A well-posed problem: Gaussian data with column scales within a factor 100 (more samples
    than features by at least 3, or fewer), a positive semi-definite graph matrix (a kNN Laplacian,
    LLE's ``(I - W)^T (I - W)`` as a :class:`GramFactor`, or a dense ``G G^T``) and a constraint
    that is the identity, a positive degree matrix or a dense SPD matrix of condition <= 100."""
    n = draw(st.integers(6, 30))
    d = draw(st.integers(1, n - 3) | st.integers(n + 1, n + 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.standard_normal((n, d)) * 10 ** rng.uniform(-1, 1, d) + rng.uniform(-5, 5, d)
    y = np.arange(n) % 2
    nbhd = kneighbors(X, draw(st.integers(1, n // 2 - 1)), y)
    kind = draw(st.sampled_from(["laplacian", "lle", "dense"]))
    if kind == "laplacian":
        L, degree = laplacian(symmetrize(heat_weights(nbhd)))
    else:
        degree = None
        if kind == "lle":
            L = GramFactor(reconstruction_error(lle_weights(X, nbhd)))
        else:
            G = rng.standard_normal((n, draw(st.integers(1, n))))
            L = G @ G.T
    constraint = draw(st.sampled_from(["B", "orthonormal"]))
    B_kind = draw(st.sampled_from(["identity", "degree", "dense"]))
    if B_kind == "degree" and degree is not None and degree.diagonal().min() > 0:
        B = degree
    elif B_kind == "dense":
        Q = np.linalg.qr(rng.standard_normal((n, n)))[0]
        B = (Q * np.geomspace(1, 100, n)) @ Q.T
    else:
        B = None
    return X, L, B, constraint, draw(st.booleans()), draw(st.booleans())


@CHECKS
@given(embedding_problem(), st.data())
def test_the_solver_meets_its_constraint_to_1e_8(problem, data):
    X, L, B, constraint, maximize, resolve = problem
    with threadpool_limits(1):  # as in the pipeline
        emb = solve_embedding(X, L, B, constraint=constraint, maximize=maximize, resolve_degenerate=resolve)
        k = data.draw(st.integers(1, emb.rank), label="n_components")
        fewer = solve_embedding(X, L, B, constraint=constraint, maximize=maximize,
                                resolve_degenerate=resolve, n_components=k)
    assert not emb.regularized  # well posed: no ridge
    event("fewer samples than features" if X.shape[1] > X.shape[0] else "more samples than features")
    event(f"constraint={constraint}, B={'none' if B is None else type(B).__name__}")
    Xc = X - X.mean(axis=0)
    dense_B = np.eye(len(X)) if B is None else _dense(B)
    dense_L = L.toarray() if isinstance(L, GramFactor) else _dense(L)
    scale = max(np.abs(emb.eigenvalues).max(initial=0.0), 1e-300)  # the problem's eigenvalue scale
    for result in (emb, fewer):
        P = result.components
        assert np.all(np.isfinite(P))
        gram = P.T @ P if constraint == "orthonormal" else P.T @ Xc.T @ dense_B @ Xc @ P
        np.testing.assert_allclose(gram, np.eye(P.shape[1]), rtol=0, atol=1e-8)
        # the columns diagonalise the objective, with the eigenvalues returned, in order
        objective = P.T @ Xc.T @ dense_L @ Xc @ P
        np.testing.assert_allclose(objective, np.diag(result.eigenvalues), rtol=0, atol=1e-8 * scale)
        steps = np.diff(result.eigenvalues)
        assert np.all(steps <= 1e-10 * scale) if maximize else np.all(steps >= -1e-10 * scale)
    # fewer columns are the leading columns (bit for bit when d <= n; with fewer samples than
    # features the last map back to the input space can differ in the last bit)
    P = emb.components
    np.testing.assert_allclose(fewer.components, P[:, :k], rtol=0, atol=1e-12 * np.abs(P).max())
    np.testing.assert_array_equal(fewer.eigenvalues, emb.eigenvalues[:k])
