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
* Both sets are first shifted by the mean ``mu`` of the reference rows (distances are
  translation invariant; the shift keeps the cancellation in ``S`` small).  For several ``p``,
  ``S`` is accumulated column by column in float64; a single ``p`` (:func:`predict_at_p`, the
  final test at the chosen p) takes ``S_p`` from one matrix product per chunk of test rows instead
  (on the PIE test set, 9514 rows, 2040 references, 1024 columns for raw 1-NN, 2.3 s instead of
  13 s).  Neither decides alone: ``S`` only finds the candidates.
* Ties (:mod:`locproj.core.ties`).  Two squared distances from a test row ``t`` are tied when they
  differ by at most ``TIE_RTOL * s(t)`` (``TIE_RTOL = 1e-9``), with the scale ``s(t) = ||t -
  mu||^2 + max_j ||r_j - mu||^2`` over the first ``p`` columns.  The references whose score
  ``S_p`` is within ``2 TIE_RTOL s(t)`` of the row's best are its candidates (the rounding of
  ``S``, about ``p eps s(t)``, is far smaller than the margin); a row with one candidate is decided
  by it, the others by exact scores: ``sum_{k <= p} (t_k - r_k)^2`` from the inputs as given,
  accumulated column by column (exact on integer-valued data), and the decision is the lowest
  index among the candidates whose exact score is within the band of the smallest.  For
  nearest-mean the references are the class centroids in sorted class order, so a tie goes to the
  smallest class label (as in :class:`sklearn.neighbors.NearestCentroid`).  So the decisions do
  not depend on the BLAS kernel, nor on a perturbation of the inputs far below the band, and one
  ``p`` alone decides as the all-p pass (tested).  Integer-valued data with ``P max|z|^2 <= 1e8``
  (raw UCI features, 8-bit pixels) are not shifted: their ``S`` is then exact whatever the order
  of the sums and the band holds exact ties only, so the first minimum of ``S`` is the decision.
* Every 48 columns, references that can no longer matter to any row of the chunk are dropped
  (:func:`_still_possible`): ``D_p = S_p + ||t||^2`` never decreases with ``p``, so at any later
  ``p'`` the nearest reference and every reference in its band lie within ``D_P(t, c) + TIE_RTOL
  s_P(t)`` of ``t``, ``c`` the present nearest reference, ``D_P`` the distance and ``s_P(t)`` the
  scale over all columns (at least ``s(t)`` at ``p'``).  A reference is dropped only above ``D_P(t,
  c) + 2 TIE_RTOL s_P(t)``, the band plus as much again for the rounding of ``S`` and ``D_P``, so
  the decisions are those of the unpruned pass (tested); on face data it saves a third of the work.
* Test rows are processed in chunks whose score array (``chunk x n_train``
  float64) is at most ``max_bytes``; the default keeps it in L2 cache.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.linalg import blas

from .ties import CANDIDATE_RTOL, TIE_RTOL, exact_sq_distances, lowest_in_band, sq_norm_prefixes


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
_PRUNE_MARGIN = 2 * TIE_RTOL  # relative slack of the pruning test: the band, and as much again for rounding
_EXACT_LIMIT = 1e8  # integer data with P max|z|^2 up to this give exact scores (3 P max|z|^2 < 2^53)


def _settle(scores, keep, p, chunk):
    """The decision of each row of a chunk at prefix length ``p``, and its near-ties to rescore.

    ``scores`` (rows x kept references, C-contiguous; modified, then restored) ranks the kept
    references ``keep`` (ascending original indices) up to a constant per row; ``chunk``
    (:class:`_Chunk`) holds the preliminary bands.  A row whose runner-up is outside its
    preliminary band is decided by its best score; for the others the best score is provisional
    and every reference in the preliminary band is returned as a candidate (:func:`_break_ties`
    decides).  Where most references share their first ``p`` columns with an earlier one, only the
    first of each takes part: the others have its exact score and come after it.

    Returns
    -------
    winners : ndarray of shape (n_rows,)
    rows, candidates : ndarray
        The candidates of the tied rows, by row, ascending.
    """
    if chunk.refs.exact:
        empty = np.empty(0, dtype=np.intp)
        return keep[scores.argmin(axis=1)], empty, empty
    if p <= len(chunk.refs.leaders):  # (small p, integer data) the scores of the first of each only
        leaders = np.flatnonzero(chunk.refs.leaders[p - 1][keep])
        scores, keep = np.take(scores, leaders, axis=1), keep[leaders]
    flat = scores.view()
    flat.shape = (-1,)  # raises rather than copy: ``scores`` must be C-contiguous
    best = scores.argmin(axis=1)
    row_starts = chunk.rows * scores.shape[1]
    at_best = row_starts + best
    low = flat.take(at_best)
    threshold = low + chunk.preliminary[:, p - 1]
    flat.put(at_best, np.inf)  # the runner-up of each row, then the scores as they were
    runner_up = flat.take(row_starts + scores.argmin(axis=1))
    flat.put(at_best, low)
    tied = np.flatnonzero(runner_up <= threshold)
    if tied.size == 0:
        return keep[best], tied, tied
    near = scores[tied] <= threshold[tied, None]
    owner, candidates = np.divmod(np.flatnonzero(near), near.shape[1])  # row-major: ascending
    return keep[best], tied[owner], keep[candidates]


def _exact_in_float(ref, test) -> bool:
    """Whether the references and test rows are integers small enough (``P max|z|^2 <= 1e8``) that
    the scores ``S`` of the unshifted data are exact in float64, whatever the order of the sums, and
    that the band ``TIE_RTOL s(t) < 8e8 TIE_RTOL`` holds exact ties only (distinct distances differ
    by 1 or more).  Then the first minimum of ``S`` is the lowest index of the rule."""
    if ref.size == 0 or test.size == 0 or not (np.all(ref[0] == np.round(ref[0]))):
        return False
    largest = max(np.abs(ref).max(), np.abs(test).max())
    return (ref.shape[1] * largest**2 <= _EXACT_LIMIT and np.array_equal(ref, np.round(ref))
            and np.array_equal(test, np.round(test)))


def _break_ties(nearest, p_values, pending, chunk):
    """Decide the near-ties of a chunk by the exact scores (:mod:`locproj.core.ties`).

    ``pending`` lists ``(t, rows, candidates)`` from :func:`_settle` for column ``t`` of
    ``nearest`` (prefix length ``p_values[t]``); the decisions of those rows are replaced, in
    place, by the lowest candidate whose exact score is within the band of the smallest.
    """
    pending = [item for item in pending if len(item[1])]
    if not pending:
        return nearest
    columns = np.concatenate([np.full(len(rows), t) for t, rows, _ in pending])
    rows = np.concatenate([rows for _, rows, _ in pending])
    candidates = np.concatenate([candidates for _, _, candidates in pending])
    lengths = p_values[columns]
    exact = exact_sq_distances(chunk.test, chunk.refs.given, rows, candidates, lengths=lengths)
    groups, winners = lowest_in_band(columns * len(nearest) + rows, candidates, exact,
                                     chunk.band[rows, lengths - 1])
    nearest[groups % len(nearest), groups // len(nearest)] = winners
    return nearest


class _References:
    """The reference rows as given (``given``, the first ``P`` columns), ``max_j ||r_j - mu||^2``
    over the first ``p`` columns (``sq_max[p - 1]``, ``mu`` the mean of the references), and
    ``leaders[p - 1]``, the references that come first among those with the same first ``p``
    columns, for the ``p`` where they are at most half of them (:func:`_prefix_leaders`).  With
    ``exact`` (:func:`_exact_in_float`) the scores are exact and their first minimum is the rule's
    decision."""

    def __init__(self, given, mu, exact):
        self.given, self.exact = given, exact
        self.sq_max = sq_norm_prefixes(given - mu).max(axis=0)
        self.leaders = np.empty((0, len(given)), dtype=bool) if exact else _prefix_leaders(given)


class _Chunk:
    """A chunk of test rows as given (``test``), with ``||t - mu||^2`` over the first ``p``
    columns (``test_sq``), the scale ``s(t) = ||t - mu||^2 + max_j ||r_j - mu||^2`` of the rule
    (``scale``), its band ``TIE_RTOL s(t)`` and preliminary band ``CANDIDATE_RTOL s(t)``, per row
    and ``p``; ``refs`` the :class:`_References`."""

    def __init__(self, test, test_shifted, refs):
        self.test, self.refs = test, refs
        self.rows = np.arange(len(test))
        self.test_sq = sq_norm_prefixes(test_shifted)
        self.scale = self.test_sq + refs.sq_max
        self.band = TIE_RTOL * self.scale
        self.preliminary = CANDIDATE_RTOL * self.scale


def _prefix_leaders(ref) -> np.ndarray:
    """``out[p - 1, j]``: no reference before ``j`` has the same first ``p`` columns as ``j``, for
    ``p = 1, 2, ...`` as long as at most half of the references are such leaders (their number only
    grows with ``p``).

    The groups of identical prefixes are refined one column at a time.
    """
    n, n_cols = ref.shape
    leaders = []
    group = np.zeros(n, dtype=np.intp)
    for p in range(n_cols):
        order = np.lexsort((ref[:, p], group))  # stable: by index within a group and value
        new = np.ones(n, dtype=bool)
        new[1:] = (group[order][1:] != group[order][:-1]) | (ref[order, p][1:] != ref[order, p][:-1])
        if 2 * np.count_nonzero(new) > n:
            break
        mask = np.zeros(n, dtype=bool)
        mask[order[new]] = True
        leaders.append(mask)
        group[order] = np.cumsum(new) - 1
    return np.array(leaders, dtype=bool).reshape(len(leaders), n)


def _cumulative_argmin_chunk(R_terms, R_test, record, chunk):
    """Nearest reference index of each test row at every recorded prefix length.

    ``R_terms[k]`` is the (2, n_ref) pair ``(r_k, r_k ** 2)`` of reference column ``k`` and
    ``R_test`` the chunk's rows, both shifted by the mean of the references; ``record`` is a
    boolean mask over the columns telling after which ones to decide (:func:`_settle`).  Every
    ``_PRUNE_EVERY`` columns, references that can no longer matter are dropped
    (:func:`_still_possible`); the decisions are those of the unpruned computation.
    """
    n_cols, n_test = R_terms.shape[0], R_test.shape[0]
    keep = np.arange(R_terms.shape[2])  # references still in play, ascending (ties go to the lowest)
    terms, first = R_terms, 0  # terms[k - first] holds column k of the kept references
    scores_T = np.zeros((len(keep), n_test), order="F")  # S^T, updated in place by dgemm
    test_terms = np.empty((n_cols, n_test, 2))  # (-2 t_k, 1) per column
    test_terms[:, :, 0] = -2.0 * R_test.T
    test_terms[:, :, 1] = 1.0
    nearest = np.empty((n_test, int(record.sum())), dtype=np.intp)
    out, pending = 0, []
    scale = chunk.scale[:, -1]  # s(t) over all columns, at least s(t) at any p
    for k in range(n_cols):
        # S^T += [r_k, r_k^2] [-2 t_k, 1]^T   (a rank-2 update)
        scores_T = blas.dgemm(1.0, terms[k - first].T, test_terms[k], beta=1.0, c=scores_T,
                              trans_b=True, overwrite_c=True)
        if record[k]:
            nearest[:, out], rows, candidates = _settle(scores_T.T, keep, k + 1, chunk)
            pending.append((out, rows, candidates))
            out += 1
        if (k + 1) % _PRUNE_EVERY == 0 and k + 1 < n_cols:
            best = keep[scores_T.argmin(axis=0)]
            alive = _still_possible(scores_T, best, chunk.test_sq[:, k], scale, R_terms, R_test)
            if alive.sum() < 0.9 * len(keep):
                keep, scores_T = keep[alive], np.asfortranarray(scores_T[alive])
                terms, first = np.ascontiguousarray(R_terms[k + 1 :, :, keep]), k + 1
    return _break_ties(nearest, np.flatnonzero(record) + 1, pending, chunk)


def _still_possible(scores_T, current, test_sq, scale, R_terms, R_test) -> np.ndarray:
    """Mask of the kept references that may still matter to some test row at a later column.

    With ``D_p = S_p + ||t_{<=p}||^2`` the squared distance, non-decreasing in ``p``, and
    ``B(t) = D_P(t, current(t))`` the distance over all ``P`` columns to the row's present nearest
    reference, at any ``p' > p`` the smallest distance is at most ``B(t)`` and the band of the
    rule (:mod:`locproj.core.ties`) at most ``TIE_RTOL * scale(t)`` (``scale`` is ``s(t)`` over all
    columns); so a reference with ``D_p > B(t) + TIE_RTOL * scale(t)`` can be neither nearest nor
    tied with the nearest for ``t``.  The test keeps a reference up to ``B(t) + 2 TIE_RTOL
    scale(t)``: the rounding of ``S`` and ``B`` (``~4 P eps scale``) is far inside the extra margin.
    """
    difference = R_test - R_terms[:, 0, current].T
    bound = np.einsum("ij,ij->i", difference, difference) + _PRUNE_MARGIN * scale - test_sq
    return np.any(scores_T <= bound, axis=1)


def nearest_indices(Z_ref, Z_test, p_values=None, *, max_bytes=DEFAULT_MAX_BYTES, n_jobs=1):
    """Find the nearest reference row of each test row for each prefix length p.

    Parameters
    ----------
    Z_ref : array-like of shape (n_ref, P)
        Reference points (training samples or class centroids).
    Z_test : array-like of shape (n_test, P')
        Query points; only the first ``max(p_values)`` columns are used.
    p_values : sequence of int, optional
        Prefix lengths to evaluate (1-based). Default: every ``p = 1..P``.
    max_bytes : int, default=DEFAULT_MAX_BYTES
        Memory budget for the per-chunk score array.
    n_jobs : int, default=1
        Threads over test chunks (numpy releases the GIL in these loops).

    Returns
    -------
    ndarray of shape (n_test, len(p_values)), dtype intp
        ``out[i, t]`` is the lowest index ``j`` whose squared distance between ``Z_test[i, :p]``
        and ``Z_ref[j, :p]``, ``p = p_values[t]``, is within the band of the smallest
        (:mod:`locproj.core.ties`; the module docstring).  The same whatever ``p_values``,
        ``max_bytes`` and ``n_jobs``: one ``p`` alone (one matrix product) decides as the all-p pass.
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
    exact = _exact_in_float(Z_ref[:, :last], Z_test[:, :last])
    # the mean of every column, so that it is the same whatever p_values; none on exact scores
    shift = np.zeros(last) if exact else Z_ref.mean(axis=0)[:last]
    refs = _References(Z_ref[:, :last], shift, exact)
    ref_T = refs.given.T - shift[:, None]
    test_given = Z_test[:, :last]
    test = np.ascontiguousarray(test_given - shift)
    step = _chunk_rows(Z_ref.shape[0], max_bytes)
    starts = range(0, test.shape[0], step)

    def chunk_at(start):
        return _Chunk(test_given[start : start + step], test[start : start + step], refs)

    if p_values.size == 1:  # one p: S = ||r||^2 - 2 T R^T in one product per chunk, not column by column
        ref_sq = np.einsum("ij,ij->j", ref_T, ref_T)
        everyone = np.arange(Z_ref.shape[0])

        def run(start):
            scores = blas.dgemm(-2.0, ref_T, test[start : start + step], trans_a=True, trans_b=True).T
            scores += ref_sq
            chunk = chunk_at(start)
            winners, rows, candidates = _settle(scores, everyone, last, chunk)
            return _break_ties(winners[:, None], p_values, [(0, rows, candidates)], chunk)
    else:
        ref_terms = np.ascontiguousarray(np.stack([ref_T, ref_T**2], axis=1))  # (last, 2, n_ref)

        def run(start):
            return _cumulative_argmin_chunk(ref_terms, test[start : start + step], record, chunk_at(start))

    if n_jobs == 1 or len(starts) == 1:
        blocks = [run(start) for start in starts]
    else:
        with ThreadPoolExecutor(max_workers=n_jobs) as pool:
            blocks = list(pool.map(run, starts))
    if not blocks:
        return np.empty((0, p_values.size), dtype=np.intp)
    return np.concatenate(blocks, axis=0)


def class_centroids(Z_train, y_train):
    """Compute the mean of each class.

    Parameters
    ----------
    Z_train : array-like of shape (n_train, P)
        The samples.
    y_train : array-like of shape (n_train,)
        Their labels.

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        The sorted class labels.
    centroids : ndarray of shape (n_classes, P)
        The class means, in the order of ``classes``.
    """
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
    """Predict the test labels for every number of projections p from one projection.

    Parameters
    ----------
    Z_train : array-like of shape (n_train, P)
        Projected training data; column order is the projection order.
    y_train : array-like of shape (n_train,)
        Training labels.
    Z_test : array-like of shape (n_test, P)
        Projected test data.
    classifier : {'1nn', 'nearest_mean', 'svm', 'knn', 'ldc', 'qdc'}, default='1nn'
        ``'svm'``, ``'knn'``, ``'ldc'`` and ``'qdc'`` fit one scikit-learn classifier per p
        (:data:`SKLEARN_CLASSIFIERS`) with ``classifier_params``.
    classifier_params : dict, optional
        Keyword arguments of the classifier (used by ``'svm'``, e.g. kernel, C).
    p_values : sequence of int, optional
        Strictly increasing 1-based prefix lengths; default ``1..P``.
    max_bytes : int, default=DEFAULT_MAX_BYTES
        Memory budget per chunk of test rows (:func:`nearest_indices`).
    n_jobs : int, default=1
        Threads over chunks of test rows (:func:`nearest_indices`).

    Returns
    -------
    ndarray of shape (n_test, len(p_values))
        Column ``t`` holds the predictions using the first ``p_values[t]`` columns.
    """
    return _predict(Z_train, y_train, Z_test, p_values, classifier, classifier_params, max_bytes, n_jobs)


def predict_at_p(Z_train, y_train, Z_test, p, **kwargs):
    """Predict the test labels from the first ``p`` columns (one matrix product per chunk; module docstring).

    Parameters
    ----------
    Z_train : array-like of shape (n_train, P)
        Projected training data.
    y_train : array-like of shape (n_train,)
        Training labels.
    Z_test : array-like of shape (n_test, P)
        Projected test data.
    p : int
        The number of leading columns used.
    **kwargs
        ``classifier``, ``classifier_params``, ``max_bytes`` and ``n_jobs`` of :func:`predict_all_p`.

    Returns
    -------
    ndarray of shape (n_test,)
        The predictions.
    """
    return predict_all_p(Z_train, y_train, Z_test, p_values=[int(p)], **kwargs)[:, 0]


def error_rates(predictions, y_true):
    """Compute the misclassification rate of each column of ``predictions``.

    Parameters
    ----------
    predictions : ndarray of shape (n, T)
        Predicted labels, one column per p.
    y_true : array-like of shape (n,)
        The true labels.

    Returns
    -------
    ndarray of shape (T,)
        The fraction of wrong predictions in each column.
    """
    return np.mean(predictions != np.asarray(y_true)[:, None], axis=0)


def errors_all_p(Z_train, y_train, Z_test, y_test, **kwargs):
    """Compute the test error rate (fraction in [0, 1]) for every p.

    Parameters
    ----------
    Z_train : array-like of shape (n_train, P)
        Projected training data.
    y_train : array-like of shape (n_train,)
        Training labels.
    Z_test : array-like of shape (n_test, P)
        Projected test data.
    y_test : array-like of shape (n_test,)
        Test labels.
    **kwargs
        The keyword arguments of :func:`predict_all_p`.

    Returns
    -------
    ndarray of shape (len(p_values),)
        The error rate at each p; ``out[p - 1]`` when ``p_values`` is the default.
    """
    return error_rates(predict_all_p(Z_train, y_train, Z_test, **kwargs), y_test)
