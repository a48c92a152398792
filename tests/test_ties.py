"""The tie rule of locproj.core.ties: exact scores, the band, the nearest and the greedy order."""

import numpy as np
import pytest

from locproj.core.ties import (
    CANDIDATE_RTOL,
    TIE_RTOL,
    band_order,
    blas_candidates,
    candidates_near_kth,
    exact_sq_distances,
    lowest_in_band,
    near_kth,
    tie_scales,
)


def _left_to_right(a, b):
    total = 0.0
    for x, y in zip(a.tolist(), b.tolist()):
        total += (x - y) * (x - y)
    return total


def _greedy(exact, key, tol, k):
    """The band rule pick by pick, in plain Python: the smallest key among the remaining items
    within ``tol`` of the smallest remaining score."""
    remaining, picked = list(range(len(exact))), []
    for _ in range(k):
        low = min(exact[i] for i in remaining)
        pick = min((i for i in remaining if exact[i] <= low + tol), key=lambda i: key[i])
        picked.append(pick)
        remaining.remove(pick)
    return picked


@pytest.mark.parametrize("n_pairs", [200, 3000])                      # a running sum per pair, a column at a time
def test_exact_distances_are_left_to_right_sums_of_the_differences(n_pairs):
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((30, 17)) * 10, rng.standard_normal((20, 17)) * 10
    rows, cols = rng.integers(0, 30, n_pairs), rng.integers(0, 20, n_pairs)
    lengths = rng.integers(1, 18, n_pairs)
    full = exact_sq_distances(A, B, rows, cols)
    prefix = exact_sq_distances(A, B, rows, cols, lengths=lengths)
    for t in range(n_pairs):
        assert full[t] == _left_to_right(A[rows[t]], B[cols[t]])
        assert prefix[t] == _left_to_right(A[rows[t], :lengths[t]], B[cols[t], :lengths[t]])


def test_exact_distances_are_exact_on_integer_data():
    rng = np.random.default_rng(1)
    A, B = rng.integers(-1000, 1000, (50, 64)), rng.integers(-1000, 1000, (40, 64))
    rows, cols = np.repeat(np.arange(50), 40), np.tile(np.arange(40), 50)
    expected = ((A[rows] - B[cols]) ** 2).sum(axis=1)                 # int64: exact
    np.testing.assert_array_equal(exact_sq_distances(A.astype(float), B.astype(float), rows, cols), expected)


def test_tie_scales_follow_the_definition():
    rng = np.random.default_rng(2)
    T, R = rng.standard_normal((5, 3)) + 4, rng.standard_normal((9, 3)) - 1
    mu = R.mean(axis=0)
    expected = ((T - mu) ** 2).sum(axis=1) + ((R - mu) ** 2).sum(axis=1).max()
    np.testing.assert_allclose(tie_scales(T, R), expected, rtol=1e-14)


def test_a_perturbation_of_1e_15_stays_inside_the_band_and_integer_gaps_outside():
    """On integer data every exact tie, perturbed by 1e-15 relative, is within the band, and every
    distinct pair of distances is outside it."""
    rng = np.random.default_rng(3)
    R, T = rng.integers(0, 16, (300, 16)).astype(float), rng.integers(0, 16, (50, 16)).astype(float)
    rows, cols = np.repeat(np.arange(50), 300), np.tile(np.arange(300), 50)
    exact = exact_sq_distances(T, R, rows, cols).reshape(50, 300)
    noisy = [x * (1 + 1e-15 * rng.uniform(-1, 1, x.shape)) for x in (T, R)]
    perturbed = exact_sq_distances(*noisy, rows, cols).reshape(50, 300)
    band = TIE_RTOL * tie_scales(T, R)[:, None]
    assert np.abs(perturbed - exact).max() < 1e-4 * band.min()
    gaps = np.abs(exact[:, :, None] - exact[:, None, :])
    assert gaps[gaps > 0].min() > 1e3 * band.max()


def test_lowest_in_band_is_the_lowest_candidate_near_the_minimum():
    owner = np.array([0, 0, 0, 2, 2, 5])
    candidates = np.array([3, 7, 9, 1, 4, 6])
    exact = np.array([2.0, 1.0, 1.0 + 5e-10, 4.0, 4.0 - 1e-3, 0.5])
    queries, nearest = lowest_in_band(owner, candidates, exact, np.full(6, 1e-9))
    np.testing.assert_array_equal(queries, [0, 2, 5])
    np.testing.assert_array_equal(nearest, [7, 4, 6])               # 9 is tied with 7; 1 is 1e-3 away


@pytest.mark.parametrize("seed", range(4))
def test_band_order_picks_as_the_rule_one_at_a_time(seed):
    """Exact ties, near-ties (within the band, not equal) and clear gaps, in groups of various
    sizes: the vectorised order equals the plain pick-by-pick rule."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(6, 30, 40)
    owner = np.repeat(np.arange(40), sizes)
    exact = rng.integers(0, 6, len(owner)).astype(float)
    near = rng.random(len(owner)) < 0.3
    exact[near] += rng.uniform(0, 2e-9, near.sum())                 # within a band of 1e-9 * 4
    key = np.concatenate([rng.permutation(100)[:n] for n in sizes])
    tol = np.full(40, 4e-9)
    k = 5
    got = band_order(owner, key, exact, tol, k)
    for g in range(40):
        items = np.flatnonzero(owner == g)
        expected = items[_greedy(exact[items], key[items], tol[g], k)]
        np.testing.assert_array_equal(got[g], expected)


def test_band_order_is_neither_a_sort_nor_a_chain_of_ties():
    """1 + 3e-9 is tied with 1 (band 4e-9) and has the smaller key, so it comes first (a sort by
    score would put 1 first); 1 + 6e-9 is not tied with 1, so it comes after 1 (chaining the
    near-ties into one tie would put it first, its key being the smallest)."""
    exact = np.array([1.0, 1.0 + 3e-9, 1.0 + 6e-9, 2.0])
    key = np.array([2, 1, 0, 3])
    order = band_order(np.zeros(4, dtype=int), key, exact, np.array([4e-9]), 4)[0]
    np.testing.assert_array_equal(order, [1, 0, 2, 3])


def test_candidates_are_everything_near_the_kth_smallest():
    approx = np.array([[5.0, 1.0, 3.0, 3.0 + 1e-10, 9.0], [0.0, 0.0, 0.0, 1.0, 2.0]])
    rows, cols = candidates_near_kth(approx, 2, np.array([1e-9, 1e-9]))
    assert list(zip(rows.tolist(), cols.tolist())) == [(0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2)]
    np.testing.assert_array_equal(near_kth(np.array([4.0, 1.0, 2.0, 2.0]), 2, 0.5), [1, 2, 3])
    np.testing.assert_array_equal(near_kth(np.array([4.0, 1.0]), 3, 0.5), [0, 1])


@pytest.mark.parametrize("same", [False, True])
def test_blas_candidates_hold_every_reference_in_the_band_of_the_kth(same):
    rng = np.random.default_rng(5)
    R = rng.integers(0, 4, (300, 5)).astype(float)
    T = R if same else rng.integers(0, 4, (80, 5)).astype(float)
    k = 4
    scales = tie_scales(T, R)
    rows, cols, _ = blas_candidates(R, T, k, CANDIDATE_RTOL * scales, same=same, max_bytes=8 * 300 * 7)
    exact = ((T[:, None, :] - R[None, :, :]) ** 2).sum(-1)
    if same:
        np.fill_diagonal(exact, np.inf)
    kth = np.sort(exact, axis=1)[:, k - 1]
    expected = np.nonzero(exact <= kth[:, None])                      # integer data: the band is exact ties
    np.testing.assert_array_equal(rows, expected[0])
    np.testing.assert_array_equal(cols, expected[1])
