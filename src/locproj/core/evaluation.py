"""Classifiers on projected data, evaluated for every number of projections p from one fit.

A projection estimator returns ``Z`` whose first ``p`` columns are the optimal
``p``-dimensional projection, so the squared Euclidean distance in ``p``
dimensions is a prefix sum over columns.  Dropping ``||t||^2``, which does not
change the nearest reference of a test row ``t``,

.. math:: S_p(i, j) = \\sum_{k \\le p} (r_{jk}^2 - 2 t_{ik} r_{jk}) = S_{p-1}(i, j) + r_{jp}^2 - 2 t_{ip} r_{jp} ,

and the 1-NN (or nearest-mean) decision for every ``p = 1..P`` costs one pass
over the columns instead of ``P`` separate classifiers: each column is one
rank-2 BLAS update of ``S`` plus one ``argmin``.

Rules
-----
* Both sets are first shifted by the mean of the reference rows (distances are
  translation invariant; the shift keeps the cancellation in ``S`` small).  For
  several ``p``, ``S`` is accumulated column by column in float64, in the same
  order whatever the set of ``p`` requested.  A single ``p`` (:func:`predict_at_p`,
  the final test at the chosen p) takes ``S_p`` from one matrix product per chunk
  of test rows instead: a different summation order, so its decision can differ
  from the all-p pass only where two references are equally near to rounding
  (relative ~1e-13); on the PIE test set (9514 rows, 2040 references, 1024
  columns for raw 1-NN) 2.3 s instead of 13 s.
* Every 48 columns, references that can no longer be nearest to any row of the chunk are
  dropped: ``D_p = S_p + ||t||^2`` never decreases with ``p``, and the nearest reference at any
  later ``p`` lies within the full-length distance to the present nearest one.  The test keeps a
  margin far above the rounding of ``S``, so the decisions are those of the unpruned pass
  (tested); on face data it saves a third of the work.
* Ties are broken toward the lowest training index (``numpy.argmin`` returns the
  first minimum); for nearest-mean, toward the smallest class label (the classes
  are sorted, as in :class:`sklearn.neighbors.NearestCentroid`).
* Test rows are processed in chunks whose score array (``chunk x n_train``
  float64) is at most ``max_bytes``; the default keeps it in L2 cache.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.linalg import blas

CLASSIFIERS = ("1nn", "nearest_mean", "svm", "knn", "ldc", "qdc")

#: Classifiers fitted per p with scikit-learn (paper 004's LDC, QDC, k-NN and SVC): the estimator
#: and its default parameters, which ``classifier_params`` update. QDC's covariances are
#: regularised, ``(1 - r) S_c + r I`` with r = 0.01 (``reg_param``): with few samples per class and
#: several dimensions the plain class covariances are singular.
SKLEARN_CLASSIFIERS = {
    "svm": ("sklearn.svm", "SVC", {}),
    "knn": ("sklearn.neighbors", "KNeighborsClassifier", {"n_neighbors": 1}),
    "ldc": ("sklearn.discriminant_analysis", "LinearDiscriminantAnalysis", {}),
    "qdc": ("sklearn.discriminant_analysis", "QuadraticDiscriminantAnalysis", {"reg_param": 0.01}),
}

#: Working-set budget per chunk of test rows; 1 MiB keeps the score array in a core's L2 cache.
DEFAULT_MAX_BYTES = 1 << 20


def _check_classifier(classifier: str) -> None:
    if classifier not in CLASSIFIERS:
        raise ValueError(f"classifier must be one of {CLASSIFIERS}, got {classifier!r}")


def _as_2d_float(Z) -> np.ndarray:
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim != 2:
        raise ValueError(f"expected a 2-D array, got shape {Z.shape}")
    return Z


def _chunk_rows(n_train: int, max_bytes: int) -> int:
    """Test rows per chunk so that the (rows, n_train) float64 score array fits in ``max_bytes``."""
    return max(1, int(max_bytes) // (8 * max(n_train, 1)))


_PRUNE_EVERY = 48  # columns between two prunings of the reference set
_PRUNE_MARGIN = 1e-9  # relative slack of the pruning test (rounding in S is ~p * eps)


def _cumulative_argmin_chunk(R_terms, R_test, record):
    """Nearest reference index of each test row at every recorded prefix length.

    ``R_terms[k]`` is the (2, n_ref) pair ``(r_k, r_k ** 2)`` of reference column ``k``;
    ``record`` is a boolean mask over the columns telling after which ones to take the argmin.
    Every ``_PRUNE_EVERY`` columns, references that can no longer be nearest are dropped
    (:func:`_still_possible`); the decisions are those of the unpruned computation.
    """
    n_cols, n_test = R_terms.shape[0], R_test.shape[0]
    keep = np.arange(R_terms.shape[2])  # references still in play, ascending (argmin ties)
    terms, first = R_terms, 0  # terms[k - first] holds column k of the kept references
    scores_T = np.zeros((len(keep), n_test), order="F")  # S^T, updated in place by dgemm
    test_terms = np.empty((n_cols, n_test, 2))  # (-2 t_k, 1) per column
    test_terms[:, :, 0] = -2.0 * R_test.T
    test_terms[:, :, 1] = 1.0
    nearest = np.empty((n_test, int(record.sum())), dtype=np.intp)
    out, test_sq, scale = 0, None, None
    for k in range(n_cols):
        # S^T += [r_k, r_k^2] [-2 t_k, 1]^T   (a rank-2 update)
        scores_T = blas.dgemm(1.0, terms[k - first].T, test_terms[k], beta=1.0, c=scores_T,
                              trans_b=True, overwrite_c=True)
        checkpoint = (k + 1) % _PRUNE_EVERY == 0 and k + 1 < n_cols
        if record[k] or checkpoint:
            best = scores_T.argmin(axis=0)
        if record[k]:
            nearest[:, out] = keep[best]
            out += 1
        if checkpoint:
            if scale is None:
                test_sq = np.cumsum(R_test**2, axis=1)  # ||t_{<=p}||^2
                scale = test_sq[:, -1] + R_terms[:, 1, :].sum(axis=0).max()
            alive = _still_possible(scores_T, keep[best], test_sq[:, k], scale, R_terms, R_test)
            if alive.sum() < 0.9 * len(keep):
                keep, scores_T = keep[alive], np.asfortranarray(scores_T[alive])
                terms, first = np.ascontiguousarray(R_terms[k + 1 :, :, keep]), k + 1
    return nearest


def _still_possible(scores_T, current, test_sq, scale, R_terms, R_test) -> np.ndarray:
    """Mask of the kept references that may still be nearest to some test row at a later column.

    With ``D_p = S_p + ||t_{<=p}||^2`` the squared distance, non-decreasing in ``p``, and
    ``B(t) = D_P(t, current(t))`` the distance over all ``P`` columns to the row's present nearest
    reference, the nearest reference at any ``p' > p`` is within ``B(t)``, so a reference with
    ``D_p > B(t)`` (plus a margin far above the rounding of ``S``) can no longer win for ``t``.
    """
    difference = R_test - R_terms[:, 0, current].T
    bound = np.einsum("ij,ij->i", difference, difference) + _PRUNE_MARGIN * scale - test_sq
    return np.any(scores_T <= bound, axis=1)


def nearest_indices(Z_ref, Z_test, p_values=None, *, max_bytes=DEFAULT_MAX_BYTES, n_jobs=1):
    """Index of the nearest reference row for each test row and each prefix length p.

    Parameters
    ----------
    Z_ref : array-like of shape (n_ref, P)
        Reference points (training samples or class centroids).
    Z_test : array-like of shape (n_test, P')
        Query points; only the first ``max(p_values)`` columns are used.
    p_values : sequence of int, optional
        Prefix lengths to evaluate (1-based). Default: every ``p = 1..P``.
    max_bytes : int
        Memory budget for the per-chunk score array.
    n_jobs : int
        Threads over test chunks (numpy releases the GIL in these loops).

    Returns
    -------
    ndarray of shape (n_test, len(p_values)), dtype intp
        ``out[i, t]`` is the lowest index ``j`` minimising the squared distance
        between ``Z_test[i, :p]`` and ``Z_ref[j, :p]`` for ``p = p_values[t]``.
    """
    Z_ref, Z_test = _as_2d_float(Z_ref), _as_2d_float(Z_test)
    n_cols = min(Z_ref.shape[1], Z_test.shape[1])
    p_values = np.arange(1, n_cols + 1) if p_values is None else np.asarray(p_values, dtype=int)
    if p_values.size == 0:
        return np.empty((Z_test.shape[0], 0), dtype=np.intp)
    if p_values.min() < 1 or p_values.max() > n_cols:
        raise ValueError(f"p must lie in 1..{n_cols}, got {p_values.min()}..{p_values.max()}")
    if np.any(np.diff(p_values) <= 0):
        raise ValueError("p_values must be strictly increasing")
    last = int(p_values[-1])
    record = np.zeros(last, dtype=bool)
    record[p_values - 1] = True
    shift = Z_ref[:, :last].mean(axis=0)
    ref_T = Z_ref[:, :last].T - shift[:, None]
    test = np.ascontiguousarray(Z_test[:, :last] - shift)
    step = _chunk_rows(Z_ref.shape[0], max_bytes)
    starts = range(0, test.shape[0], step)
    if p_values.size == 1:  # one p: S = ||r||^2 - 2 T R^T in one product per chunk, not column by column
        ref_sq = np.einsum("ij,ij->j", ref_T, ref_T)

        def run(start):
            return blas.dgemm(-2.0, test[start : start + step], ref_T).__iadd__(ref_sq).argmin(axis=1)[:, None]
    else:
        ref_terms = np.ascontiguousarray(np.stack([ref_T, ref_T**2], axis=1))  # (last, 2, n_ref)

        def run(start):
            return _cumulative_argmin_chunk(ref_terms, test[start : start + step], record)

    if n_jobs == 1 or len(starts) == 1:
        blocks = [run(start) for start in starts]
    else:
        with ThreadPoolExecutor(max_workers=n_jobs) as pool:
            blocks = list(pool.map(run, starts))
    if not blocks:
        return np.empty((0, p_values.size), dtype=np.intp)
    return np.concatenate(blocks, axis=0)


def class_centroids(Z_train, y_train):
    """Sorted class labels and the (n_classes, P) matrix of class means."""
    Z_train = _as_2d_float(Z_train)
    classes, codes = np.unique(y_train, return_inverse=True)
    sums = np.zeros((classes.size, Z_train.shape[1]))
    np.add.at(sums, codes, Z_train)
    return classes, sums / np.bincount(codes)[:, None]


def _sklearn_predictions(classifier, Z_train, y_train, Z_test, p_values, params):
    """One scikit-learn classifier (:data:`SKLEARN_CLASSIFIERS`) fitted and applied per p."""
    import importlib

    module, name, defaults = SKLEARN_CLASSIFIERS[classifier]
    classifier_class = getattr(importlib.import_module(module), name)
    columns = [classifier_class(**{**defaults, **params}).fit(Z_train[:, :p], y_train).predict(Z_test[:, :p])
               for p in p_values]
    return np.stack(columns, axis=1)


def _predict(Z_train, y_train, Z_test, p_values, classifier, classifier_params, max_bytes, n_jobs):
    _check_classifier(classifier)
    y_train = np.asarray(y_train)
    if classifier == "1nn":
        return y_train[nearest_indices(Z_train, Z_test, p_values, max_bytes=max_bytes, n_jobs=n_jobs)]
    if classifier == "nearest_mean":
        classes, centroids = class_centroids(Z_train, y_train)
        return classes[nearest_indices(centroids, Z_test, p_values, max_bytes=max_bytes, n_jobs=n_jobs)]
    Z_train, Z_test = _as_2d_float(Z_train), _as_2d_float(Z_test)
    n_cols = min(Z_train.shape[1], Z_test.shape[1])
    p_values = np.arange(1, n_cols + 1) if p_values is None else p_values
    return _sklearn_predictions(classifier, Z_train, y_train, Z_test, p_values, dict(classifier_params or {}))


def predict_all_p(
    Z_train,
    y_train,
    Z_test,
    *,
    classifier="1nn",
    classifier_params=None,
    p_values=None,
    max_bytes=DEFAULT_MAX_BYTES,
    n_jobs=1,
):
    """Test predictions for every number of projections p from one projection.

    Parameters
    ----------
    Z_train : array-like of shape (n_train, P)
        Projected training data; column order is the projection order.
    y_train : array-like of shape (n_train,)
    Z_test : array-like of shape (n_test, P)
    classifier : {'1nn', 'nearest_mean', 'svm', 'knn', 'ldc', 'qdc'}
        ``'svm'``, ``'knn'``, ``'ldc'`` and ``'qdc'`` fit one scikit-learn classifier per p
        (:data:`SKLEARN_CLASSIFIERS`) with ``classifier_params``.
    classifier_params : dict, optional
        Keyword arguments of the classifier (used by ``'svm'``, e.g. kernel, C).
    p_values : sequence of int, optional
        Strictly increasing 1-based prefix lengths; default ``1..P``.
    max_bytes, n_jobs
        See :func:`nearest_indices`.

    Returns
    -------
    ndarray of shape (n_test, len(p_values))
        Column ``t`` holds the predictions using the first ``p_values[t]`` columns.
    """
    return _predict(Z_train, y_train, Z_test, p_values, classifier, classifier_params, max_bytes, n_jobs)


def predict_at_p(Z_train, y_train, Z_test, p, **kwargs):
    """Test predictions using the first ``p`` columns (one matrix product per chunk; module docstring).

    Returns
    -------
    ndarray of shape (n_test,)
    """
    return predict_all_p(Z_train, y_train, Z_test, p_values=[int(p)], **kwargs)[:, 0]


def error_rates(predictions, y_true):
    """Misclassification rate of each column of ``predictions`` (shape (n, T) -> (T,))."""
    return np.mean(predictions != np.asarray(y_true)[:, None], axis=0)


def errors_all_p(Z_train, y_train, Z_test, y_test, **kwargs):
    """Test error rate (fraction in [0, 1]) for every p; keyword arguments as :func:`predict_all_p`.

    Returns
    -------
    ndarray of shape (len(p_values),), ``out[p - 1]`` when ``p_values`` is the default.
    """
    return error_rates(predict_all_p(Z_train, y_train, Z_test, **kwargs), y_test)
