"""One rule for near-equal distances, so that rounding never decides a nearest neighbour.

Fast squared distances (a matrix product, the expansion ``||t||^2 + ||r||^2 - 2 t.r``) carry a
rounding error that depends on the BLAS kernel, and inputs computed upstream (a PCA) carry one of
their own.  Where two distances are equal, or nearly so, that error would pick the winner.  Every
neighbour decision of :mod:`locproj.core` (the 1-NN and nearest-mean evaluation, the kNN graphs,
MFA's between-class pairs) follows instead the rule below.

The rule
--------
* **Band.**  Two squared distances from a query ``q`` are tied when they differ by at most
  ``TIE_RTOL * s(q)``, with the scale ``s(q) = ||q - mu||^2 + max_j ||r_j - mu||^2`` over the
  coordinates in use, ``mu`` the mean of the reference rows ``r_j`` (:func:`tie_scales`).
* **Exact scores.**  Candidates are rescored from the inputs as given (not shifted):
  ``sum_k (t_k - r_k)^2`` accumulated column by column from the first, with elementwise operations
  only, no matrix product and no reduction whose order numpy chooses (:func:`exact_sq_distances`).
  On integer-valued features (sums below ``2^53``) this is exact; on any data it is one fixed
  sequence of roundings, the same whichever BLAS kernel runs.
* **Nearest.**  The lowest index among the references whose exact score is within the band of the
  smallest exact score (:func:`lowest_in_band`).
* **Neighbours.**  ``k`` neighbours are picked one at a time, each the lowest index among the
  remaining references whose exact score is within the band of the smallest remaining one
  (:func:`band_order`); the first pick is the nearest of the rule above.
* **Candidates.**  Only the references whose fast score (a matrix product) is within
  ``CANDIDATE_RTOL * s(q) = 2 TIE_RTOL s(q)`` of the best (of the ``k``-th best for ``k``
  neighbours) are rescored; a query with a single candidate (``k`` candidates more than that
  apart) is decided by the fast scores.  These are off by far less than ``TIE_RTOL s(q) / 2``
  (below), so every reference within the band of the smallest exact score (of the ``k``-th
  smallest) is a candidate and the decision is the one the exact scores of all references give:
  the same whichever way, or in whichever order, the fast scores were computed.

Tolerance
---------
``TIE_RTOL = 1e-9``, for three reasons.

* Perturbed inputs stay tied.  A perturbation of relative size ``eta`` of the deviations from
  ``mu`` moves a squared distance by at most ``2 ||q - r|| ||dq - dr|| <= 4 eta s(q)``:
  ``4e-15 s(q)`` for ``eta = 1e-15`` (kernels differ by that much in a PCA's output), five orders
  of magnitude inside the band; inputs far from their mean (``|mu|`` large against the spread)
  scale this by ``|mu| / spread``, which may reach ``1e5`` before it matters.
* Rounding stays inside.  A fast score ``||r||^2 - 2 t.r`` over ``d`` columns is off by at most
  about ``d eps s(q)`` (``2e-13 s(q)`` for ``d = 1000``; the exact scores by less), thousands of
  times inside the margin ``(CANDIDATE_RTOL - TIE_RTOL) s(q)`` that makes every tied reference a
  candidate.
* Distinct distances stay apart.  On integer features two distances differ by at least 1, while
  ``s(q) <= 2 d range^2`` (7200 for Letter's 16 features of 0..15: a gap of ``1.4e-4 s(q)``;
  8-bit images need ``d > 7700`` pixels before ``1e-9 s(q)`` reaches 1).  On continuous data two
  distinct distances fall within ``1e-9 s(q)`` with a probability of that order per pair of close
  candidates, and then the lower index wins; this is most frequent at ``p = 1``, where hundreds of
  references crowd one axis (Letter after a PCA, m = 20: 9 of 5000 test rows at ``p = 1``, none at
  ``p = 2``, 3 or 5).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "TIE_RTOL",
    "CANDIDATE_RTOL",
    "sq_norm_prefixes",
    "sq_norms",
    "tie_scales",
    "exact_sq_distances",
    "candidates_near_kth",
    "near_kth",
    "blas_candidates",
    "lowest_in_band",
    "band_order",
    "neighbors_in_band",
]

#: Two squared distances from ``q`` are tied when they differ by at most ``TIE_RTOL * s(q)``.
TIE_RTOL = 1e-9
#: Fast scores within ``CANDIDATE_RTOL * s(q)`` of the best are rescored exactly.
CANDIDATE_RTOL = 2 * TIE_RTOL

_BLOCK = 1 << 20  # float64 entries formed at once (8 MiB)
_MANY_PAIRS = 512  # from this many pairs on, exact distances are summed one column at a time


def sq_norm_prefixes(A) -> np.ndarray:
    """Compute the running sums ``sum_{k <= p} a_k^2`` along each row.

    ``numpy.cumsum`` adds left to right (every partial sum is an output), so column ``p - 1`` is
    bitwise the same whatever the number of columns after it.

    Parameters
    ----------
    A : array-like of shape (n, d)
        The rows.

    Returns
    -------
    ndarray of shape (n, d)
        Column ``p - 1`` holds ``sum_{k <= p} a_k^2`` of each row.
    """
    A = np.asarray(A, dtype=float)
    return np.cumsum(A * A, axis=1)


def sq_norms(A) -> np.ndarray:
    """Compute ``||a||^2`` of each row.

    A scale, not a decision: its rounding moves a band's edge by a relative ``1e-16`` of the band,
    so numpy may sum in any order.

    Parameters
    ----------
    A : array-like of shape (n, d)
        The rows.

    Returns
    -------
    ndarray of shape (n,)
        Their squared norms.
    """
    A = np.asarray(A, dtype=float)
    return np.einsum("ij,ij->i", A, A)


def tie_scales(T, R) -> np.ndarray:
    """Compute the scale ``s(t) = ||t - mu||^2 + max_j ||r_j - mu||^2`` of each query row ``t``.

    Parameters
    ----------
    T : array-like of shape (n_queries, d)
        The query rows.
    R : array-like of shape (n_references, d)
        The reference rows, whose mean is ``mu``.

    Returns
    -------
    ndarray of shape (n_queries,)
        ``s(t)`` of each row of ``T``.
    """
    T, R = np.asarray(T, dtype=float), np.asarray(R, dtype=float)
    mu = R.mean(axis=0)
    ref_sq = sq_norms(R - mu)
    return (ref_sq if T is R else sq_norms(T - mu)) + ref_sq.max(initial=0.0)


def exact_sq_distances(A, B, rows, cols, *, lengths=None) -> np.ndarray:
    """Compute ``||A[rows[t]] - B[cols[t]]||^2`` for each pair ``t`` from the differences of the inputs.

    The squares of the differences of the inputs as given are accumulated column by column from
    the first (exact on integer-valued data). With ``lengths``, pair ``t`` uses the first
    ``lengths[t]`` columns only (bitwise the sum computed on those columns alone), from
    :func:`sq_norm_prefixes` of the differences by blocks of pairs.  Without, many pairs are
    summed one column at a time across all of them: the same additions in the same order, so the
    same bits, and faster.

    Parameters
    ----------
    A : array-like of shape (n_a, d)
        The first rows.
    B : array-like of shape (n_b, d)
        The second rows.
    rows : array-like of int of shape (n_pairs,)
        The row of ``A`` of each pair.
    cols : array-like of int of shape (n_pairs,)
        The row of ``B`` of each pair.
    lengths : array-like of int of shape (n_pairs,), optional
        The number of leading columns each pair uses; all of them by default.

    Returns
    -------
    ndarray of shape (n_pairs,)
        The squared distances.
    """
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    rows, cols = np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)
    if lengths is None and len(rows) >= _MANY_PAIRS:
        return _column_sums(A, B, rows, cols)
    lengths = np.full(len(rows), A.shape[1]) if lengths is None else np.asarray(lengths, dtype=np.intp)
    out = np.zeros(len(rows))
    width = int(lengths.max(initial=0))
    if width == 0:
        return out
    step = max(1, _BLOCK // width)
    for start in range(0, len(rows), step):
        block = slice(start, start + step)
        prefixes = sq_norm_prefixes(A[rows[block], :width] - B[cols[block], :width])
        out[block] = np.where(lengths[block] > 0, prefixes[np.arange(len(prefixes)), lengths[block] - 1], 0.0)
    return out


def _column_sums(A, B, rows, cols) -> np.ndarray:
    """The squared distances of all pairs, summed one column at a time across them."""
    used_rows, rows = np.unique(rows, return_inverse=True)
    used_cols, cols = np.unique(cols, return_inverse=True)
    total = np.zeros(len(rows))
    for a_k, b_k in zip(np.ascontiguousarray(A[used_rows].T), np.ascontiguousarray(B[used_cols].T)):
        difference = a_k.take(rows)
        difference -= b_k.take(cols)
        difference *= difference
        total += difference
    return total


def candidates_near_kth(approx, k: int, slack) -> tuple[np.ndarray, np.ndarray]:
    """Find the entries of each row of ``approx`` within ``slack[i]`` of row ``i``'s ``k``-th smallest.

    Parameters
    ----------
    approx : ndarray of shape (n_rows, n_columns)
        Fast distances.
    k : int
        The rank of the entry that each row's band starts from, at most ``n_columns``.
    slack : ndarray of shape (n_rows,)
        The width of each row's band.

    Returns
    -------
    rows : ndarray of int
        The row of each entry found, at least ``k`` per row.
    cols : ndarray of int
        Its column; the entries are in row-major order, so columns ascend within a row.
    """
    kth = np.partition(approx, k - 1, axis=1)[:, k - 1]
    return np.divmod(np.flatnonzero(approx <= (kth + slack)[:, None]), approx.shape[1])


def near_kth(values, k: int, slack: float) -> np.ndarray:
    """Find the entries of the 1-D ``values`` within ``slack`` of their ``k``-th smallest.

    Parameters
    ----------
    values : array-like of shape (n,)
        The values.
    k : int
        The rank of the entry that the band starts from.
    slack : float
        The width of the band.

    Returns
    -------
    ndarray of int
        The indices of those entries, ascending; every index when there are at most ``k`` values.
    """
    values = np.asarray(values)
    if len(values) <= k:
        return np.arange(len(values))
    return np.flatnonzero(values <= np.partition(values, k - 1)[k - 1] + slack)


def blas_candidates(R, T, k: int, slack, *, same: bool = False, max_bytes: int = 8 * _BLOCK):
    """Find the candidates for the ``k`` nearest rows of ``R`` to each row of ``T`` from fast distances.

    The distances ``||r||^2 - 2 t.r`` (``||t||^2`` dropped, a constant per row) of the rows shifted
    by the mean of ``R`` are formed by one matrix product per chunk of ``T`` (at most
    ``max_bytes``), and :func:`candidates_near_kth` keeps those within ``slack`` of each row's
    ``k``-th smallest.

    Parameters
    ----------
    R : array-like of shape (n_references, d)
        The reference rows.
    T : array-like of shape (n_queries, d)
        The query rows.
    k : int
        The number of neighbours wanted.
    slack : ndarray of shape (n_queries,)
        The width of each query's band (``CANDIDATE_RTOL * s(t)``).
    same : bool, default=False
        ``T`` is ``R``, and a row is never its own candidate.
    max_bytes : int, default=8 * 2**20
        The most bytes of fast distances formed at once.

    Returns
    -------
    rows, cols : ndarray of intp
        Pairs ``(row of T, row of R)``, sorted by row, then column.
    approx : ndarray
        Their fast distances, ``||t||^2`` dropped.
    """
    R, T = np.asarray(R, dtype=float), np.asarray(T, dtype=float)
    mu = R.mean(axis=0)
    R_c, T_c = R - mu, T - mu
    r_sq = np.einsum("ij,ij->i", R_c, R_c)
    step = max(1, int(max_bytes) // (8 * max(len(R), 1)))
    rows, cols, values = [np.empty(0, dtype=np.intp)], [np.empty(0, dtype=np.intp)], [np.empty(0)]
    for start in range(0, len(T), step):
        approx = T_c[start:start + step] @ R_c.T
        approx *= -2.0
        approx += r_sq
        if same:
            own = np.arange(start, start + len(approx))
            approx[own - start, own] = np.inf
        r, c = candidates_near_kth(approx, k, slack[start:start + step])
        rows.append(r + start)
        cols.append(c)
        values.append(approx[r, c])
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(values)


def _groups(owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start of each run of equal ``owner`` values and the run number of every item."""
    first = np.empty(len(owner), dtype=bool)
    first[:1] = True
    np.not_equal(owner[1:], owner[:-1], out=first[1:])
    return np.flatnonzero(first), np.cumsum(first) - 1


def lowest_in_band(owner, candidates, exact, tol) -> tuple[np.ndarray, np.ndarray]:
    """Find the nearest of each query by the rule of this module.

    Parameters
    ----------
    owner : ndarray of int, shape (n_items,)
        The query of each item; the items of a query are consecutive.
    candidates : ndarray of shape (n_items,)
        Reference indices, ascending within each query.
    exact : ndarray of shape (n_items,)
        Exact squared distances (:func:`exact_sq_distances`).
    tol : ndarray of shape (n_items,)
        The band of each item's query, ``TIE_RTOL * s(q)``.

    Returns
    -------
    queries : ndarray
        The queries present in ``owner``, in their order there.
    nearest : ndarray
        For each, the first candidate whose exact score is at most the query's smallest plus its
        band.
    """
    owner = np.asarray(owner)
    starts, run = _groups(owner)
    inside = exact <= np.minimum.reduceat(exact, starts)[run] + tol
    position = np.where(inside, np.arange(len(exact)), len(exact))
    return owner[starts], candidates[np.minimum.reduceat(position, starts)]


def band_order(owner, key, exact, tol, k: int) -> np.ndarray:
    """Pick the first ``k`` items of each group greedily by the band rule.

    Each pick is the item of smallest ``key`` among the remaining items of the group whose exact
    score is within ``tol[g]`` of the smallest remaining one.

    Parameters
    ----------
    owner : ndarray of int, shape (n_items,)
        The group of each item, ``0..n_groups - 1``; every group holds at least ``k`` items.
    key : ndarray of int, shape (n_items,)
        The tie-break: among tied items, the smallest key first.  Distinct within a group.
    exact : ndarray of shape (n_items,)
        Exact squared distances.
    tol : ndarray of shape (n_groups,)
        The band of each group.
    k : int
        The number of items picked per group.

    Returns
    -------
    ndarray of shape (n_groups, k)
        Indices into the items, in the order picked.

    Notes
    -----
    Sorted by (score, key), a group whose consecutive distinct scores are all more than its band
    apart is picked in that order; the other groups (scores within the band but not equal: a
    near-tie) are picked step by step.  Only the items within the band of the ``k``-th smallest
    score can ever be picked.
    """
    owner, key, exact = np.asarray(owner), np.asarray(key), np.asarray(exact)
    order = np.lexsort((key, exact, owner))
    counts = np.bincount(owner, minlength=len(tol))
    starts = np.cumsum(counts) - counts
    positions = order[starts[:, None] + np.arange(k)]
    owner_s, exact_s = owner[order], exact[order]
    near = ((owner_s[1:] == owner_s[:-1]) & (exact_s[1:] > exact_s[:-1])
            & (exact_s[1:] <= exact_s[:-1] + tol[owner_s[:-1]]))
    irregular = np.unique(owner_s[1:][near])
    if irregular.size:
        kth = exact_s[starts[irregular] + k - 1]
        items = np.flatnonzero(np.isin(owner, irregular))
        items = items[exact[items] <= kth[np.searchsorted(irregular, owner[items])] + tol[owner[items]]]
        positions[irregular] = _greedy(owner[items], key[items], exact[items], tol, k, items)
    return positions


def _greedy(owner, key, exact, tol, k, items, max_entries: int = _BLOCK) -> np.ndarray:
    """:func:`band_order` pick by pick, for the groups present in ``owner`` (ascending)."""
    order = np.lexsort((key, owner))  # within a group, the smallest key first
    owner, exact, items = owner[order], exact[order], items[order]
    starts, group = _groups(owner)
    counts = np.diff(np.append(starts, len(owner)))
    out = np.empty((len(starts), k), dtype=np.intp)
    width = int(counts.max())
    step = max(1, max_entries // width)
    for first in range(0, len(starts), step):
        chunk = slice(first, first + step)
        sel = (group >= first) & (group < first + step)
        g, col = group[sel] - first, np.arange(len(owner))[sel] - starts[group[sel]]
        scores = np.full((len(starts[chunk]), width), np.inf)
        scores[g, col] = exact[sel]
        index = np.zeros((len(starts[chunk]), width), dtype=np.intp)
        index[g, col] = items[sel]
        band = tol[owner[starts[chunk]]]
        rows = np.arange(len(scores))
        for t in range(k):
            low = scores.min(axis=1)
            pick = np.argmax(scores <= (low + band)[:, None], axis=1)
            out[chunk, t] = index[rows, pick]
            scores[rows, pick] = np.inf
    return out


def neighbors_in_band(T, R, rows, cols, approx, scales, k: int, *, approx_is_exact: bool = False,
                      distances: bool = True):
    """Pick the ``k`` neighbours in ``R`` of every row of ``T`` by the band rule, from candidate pairs.

    Parameters
    ----------
    T, R : ndarray
        Query and reference rows, as given (the exact scores are computed from them).
    rows, cols : ndarray of int
        Candidate pairs ``(row of T, row of R)``: every row of ``T`` has at least ``k``, and they
        include every reference whose fast distance is within ``CANDIDATE_RTOL * scales`` of the
        row's ``k``-th smallest (:func:`candidates_near_kth`, :func:`blas_candidates`).
    approx : ndarray
        The fast distance of each pair, up to a constant per row.
    scales : ndarray of shape (len(T),)
        The scale ``s(t)`` of each row (:func:`tie_scales`).
    k : int
        The number of neighbours per row.
    approx_is_exact : bool, default=False
        ``approx`` holds direct-difference squared distances (``cdist``), returned as they are
        for the rows decided by them.
    distances : bool, default=True
        Return the squared distances too (else None in their place).

    Returns
    -------
    indices : ndarray of shape (len(T), k)
        Rows of ``R``, in the order picked (:func:`band_order`).
    sq_distances : ndarray of shape (len(T), k) or None
        Their squared distances from direct differences (exact ones where they decided).

    Notes
    -----
    A row with ``k`` candidates whose fast distances are more than ``CANDIDATE_RTOL * s`` apart is
    decided by them: its exact distances are more than the band apart, in the same order.  The
    other rows are decided by the exact distances of all their candidates.
    """
    rows, cols, approx = np.asarray(rows), np.asarray(cols), np.asarray(approx)
    tol, slack = TIE_RTOL * scales, CANDIDATE_RTOL * scales
    order = np.lexsort((approx, rows))
    counts = np.bincount(rows, minlength=len(scales))
    positions = order[(np.cumsum(counts) - counts)[:, None] + np.arange(k)]
    owner, sorted_approx = rows[order], approx[order]
    close = (owner[1:] == owner[:-1]) & (sorted_approx[1:] <= sorted_approx[:-1] + slack[owner[1:]])
    unclear = counts > k
    unclear[owner[1:][close]] = True
    indices = cols[positions]
    if not distances:
        sq = None
    elif approx_is_exact:
        sq = approx[positions]
    else:
        sq = np.empty(positions.shape)
        clear = ~unclear
        pairs = (rows[positions[clear]].ravel(), indices[clear].ravel())
        sq[clear] = exact_sq_distances(T, R, *pairs).reshape(-1, k)
    if unclear.any():
        picked = np.flatnonzero(unclear)
        items = np.flatnonzero(unclear[rows])
        exact = exact_sq_distances(T, R, rows[items], cols[items])
        chosen = band_order(np.searchsorted(picked, rows[items]), cols[items], exact, tol[picked], k)
        indices[picked] = cols[items[chosen]]
        if sq is not None:
            sq[picked] = exact[chosen]
    return indices, sq
