"""Grid resolution, cross-validation over (grid, p), the job runner and its result file."""

import logging
import time

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier

from locproj.engine import results, selection
from locproj.engine.method_failures import MethodOutputError
from locproj.engine.neighbor_counts import WITHIN_CLASS, NeighborRule
from locproj.engine.results import read_result, write_result
from locproj.engine.selection import (
    choose,
    cross_validate,
    fit_transform_all_p,
    raw_cv_fold_error,
    resolve_grid,
    run_split,
    sigma0_squared,
    skipped_text,
)


class RolledColumns(TransformerMixin, BaseEstimator):
    """Stand-in projection: the columns rolled right by ``shift``; optional neighbour count check."""

    def __init__(self, n_components=None, shift=0, n_neighbors=None):
        self.n_components = n_components
        self.shift = shift
        self.n_neighbors = n_neighbors

    def fit(self, X, y):
        if self.n_neighbors is not None:
            assert self.n_neighbors < np.unique(y, return_counts=True)[1].min()
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        return np.roll(np.asarray(X, dtype=float), self.shift, axis=1)


def make_rolled(params):
    return RolledColumns(**params)


WITHIN = NeighborRule({"n_neighbors": WITHIN_CLASS})   # n_neighbors counts same-class neighbours


def cube_problem(n_per_class, seed):
    """8 classes at the corners of a cube in the first 3 coordinates; 7 pure-noise coordinates."""
    rng = np.random.default_rng(seed)
    corners = np.array([[(c >> b) & 1 for b in range(3)] for c in range(8)], dtype=float) * 4.0
    y = np.repeat(np.arange(8), n_per_class)
    X = np.hstack([corners[y] + 0.3 * rng.standard_normal((y.size, 3)), 5.0 * rng.standard_normal((y.size, 7))])
    return X, y


# --------------------------------------------------------------------------- grid


def test_neighbor_grid_filters_below_m_and_resolves_m_minus_1():
    X, y = np.ones((20, 2)), np.repeat(np.arange(2), 10)
    spec = {"n_neighbors": [5, 10, 20, "m-1"]}
    assert resolve_grid(spec, X, y, m=30, neighbors=WITHIN) == [{"n_neighbors": v} for v in (5, 10, 20, 29)]
    assert resolve_grid(spec, X, y, m=20, neighbors=WITHIN) == [{"n_neighbors": v} for v in (5, 10, 19)]
    assert resolve_grid(spec, X, y, m=6, neighbors=WITHIN) == [{"n_neighbors": 5}]  # 5 and m-1=5 de-duplicated
    assert resolve_grid(spec, X, y, m=5, neighbors=WITHIN) == [{"n_neighbors": 4}]
    assert resolve_grid(spec, X, y, neighbors=WITHIN) == [{"n_neighbors": v} for v in (5, 9)]  # m from y
    k_within = NeighborRule({"k": WITHIN_CLASS})
    assert resolve_grid({"k": [5, "m-1"]}, X, y, m=5, neighbors=k_within) == [{"k": 4}]
    # undeclared: "m-1" resolves, nothing is filtered
    assert resolve_grid({"k": [5, "m-1"]}, X, y, m=5) == [{"k": 5}, {"k": 4}]
    with pytest.raises(ValueError, match=r"grid for 'k' has no value < m=5: \[5, 8\] \(k counts neighbours within"):
        resolve_grid({"k": [5, 8]}, X, y, m=5, neighbors=k_within)


def test_heat_width_is_multiple_of_sigma0_squared_and_product_order():
    X = np.array([[3.0, 4.0], [0.0, 1.0]])  # norms 5 and 1 -> sigma0 = 3
    assert sigma0_squared(X) == 9.0
    grid = resolve_grid({"n_neighbors": [5, "m-1"], "t": {"sigma0_sq_times": [0.0625, 1, 16]}}, X, [0, 1], m=7,
                        neighbors=WITHIN)
    assert grid == [{"n_neighbors": k, "t": t} for k in (5, 6) for t in (0.5625, 9.0, 144.0)]


def test_plain_lists_and_empty_spec_pass_through():
    X, y = np.ones((4, 2)), np.array([0, 0, 1, 1])
    assert resolve_grid({"reg": [0.1, 1, 10]}, X, y, m=2) == [{"reg": 0.1}, {"reg": 1}, {"reg": 10}]
    assert resolve_grid(None, X, y, m=2) == [{}]
    assert resolve_grid({"reg": 3.0}, X, y, m=2) == [{"reg": 3.0}]
    with pytest.raises(ValueError, match="cannot resolve"):
        resolve_grid({"reg": ["n-1"]}, X, y, m=2)


# --------------------------------------------------------------------------- choice and CV


def test_choose_prefers_smaller_p_then_earlier_grid_point():
    cv_error = np.array([[0.3, 0.1, 0.1], [0.2, 0.1, np.nan], [0.5, 0.1 + 1e-15, 0.05]])
    assert choose(cv_error) == (2, 3)
    cv_error[2, 2] = 0.2
    assert choose(cv_error) == (0, 2)  # p=2 ties across all grid points -> first grid point
    with pytest.raises(ValueError):
        choose(np.full((2, 2), np.nan))


def test_choose_breaks_a_tie_by_p_before_grid_point():
    # grid point 0 reaches the minimum only at p = 3, grid point 1 already at p = 2: the smaller p wins
    cv_error = np.array([[0.4, 0.3, 0.1], [0.4, 0.1, 0.2]])
    assert choose(cv_error) == (1, 2)


def test_cv_picks_informative_columns_and_p3():
    X, y = cube_problem(10, seed=1)
    grid = [{"shift": 2}, {"shift": 0}, {"shift": 5}]
    cv = cross_validate(make_rolled, grid, X, y, n_folds=5, p_max=10, seed=0)
    assert cv.error.shape == (3, 10) and cv.fold_error.shape == (5, 3, 10)
    assert choose(cv.error) == (1, 3)


def test_cv_caps_neighbor_count_per_fold_and_records_it():
    X, y = cube_problem(5, seed=2)
    grid = resolve_grid({"n_neighbors": [5, 10, 20, "m-1"]}, X, y, m=5, neighbors=WITHIN)
    assert grid == [{"n_neighbors": 4}]
    # the fake asserts k < class count
    cv = cross_validate(make_rolled, grid, X, y, n_folds=5, p_max=10, seed=0, neighbors=WITHIN)
    assert [(r["fold"], r["requested"], r["used"]) for r in cv.capped] == [(f, 4, 3) for f in range(5)]
    assert WITHIN.cap({"n_neighbors": 2, "t": 1.0}, y) == ({"n_neighbors": 2, "t": 1.0}, [])


def test_unavailable_p_is_nan():
    X, y = cube_problem(6, seed=3)
    cv = cross_validate(make_rolled, [{}], X, y, n_folds=3, p_max=12, p_limit=lambda X, y: 4)
    assert np.isfinite(cv.error[:, :4]).all() and np.isnan(cv.error[:, 4:]).all()


def test_a_p_missing_from_one_fold_has_no_cv_error():
    # the method gives 3 columns in the fold that holds out sample 0, 8 in the others: p = 4..8 lack
    # that fold and cannot be chosen
    X, y = cube_problem(6, seed=3)

    def p_limit(X_fit, y_fit):
        return 8 if np.any(np.all(X_fit == X[0], axis=1)) else 3

    cv = cross_validate(make_rolled, [{}], X, y, n_folds=5, p_max=8, p_limit=p_limit)
    short = np.isnan(cv.fold_error[:, 0, -1])
    assert short.sum() == 1 and np.isfinite(cv.fold_error[~short]).all()
    assert np.isfinite(cv.error[0, :3]).all() and np.isnan(cv.error[0, 3:]).all()
    assert choose(cv.error)[1] <= 3


class ClusteredColumns(RolledColumns):
    """Stand-in for a method whose columns come in clusters of equal eigenvalues: it offers the p in
    ``ends`` (``refit_ends`` when fitted on ``refit_size`` samples, the whole training part)."""

    def __init__(self, n_components=None, shift=0, ends=(1, 2, 3), refit_ends=None, refit_size=None):
        super().__init__(n_components, shift)
        self.ends = ends
        self.refit_ends = refit_ends
        self.refit_size = refit_size

    def fit(self, X, y):
        super().fit(X, y)
        refit = self.refit_ends is not None and len(X) == self.refit_size
        self.cluster_ends_ = np.array(self.refit_ends if refit else self.ends, dtype=np.int64)
        return self

    def __sklearn_tags__(self):
        from locproj.methods.tags import declare

        return declare(super().__sklearn_tags__(), cluster_ends=True)


def _clustered(params):
    return ClusteredColumns(**params)


def test_only_the_p_that_end_a_cluster_are_offered():
    from locproj.methods.tags import projection_tags

    X, y = cube_problem(10, seed=1)
    tags = projection_tags(ClusteredColumns())
    grid = [{"ends": (2, 4, 6)}, {"ends": ()}]
    cv = cross_validate(_clustered, grid, X, y, n_folds=5, p_max=8, seed=0, tags=tags)
    offered = np.isfinite(cv.error[0])
    assert offered.tolist() == [False, True, False, True, False, True, False, False]
    # the same errors as a method whose every p is offered, where these are offered
    plain = cross_validate(make_rolled, [{}], X, y, n_folds=5, p_max=8, seed=0)
    np.testing.assert_array_equal(cv.error[0, offered], plain.error[0, offered])
    # a grid point that offers no p has no CV error and says why
    assert np.isnan(cv.error[1]).all()
    assert cv.skipped == [{"params": {"ends": []}, "columns": 8, "reason": selection.CLUSTER_REASON}]
    assert selection.skipped_text(cv.skipped, "cube") == (
        "grid points with ends [] offer no p on cube (8 columns): their columns end inside a cluster of equal "
        "eigenvalues, which the data do not order")
    # several points: each parameter's values ascending, the column counts merged, the reason said once
    points = [{"params": {"alpha": a, "k": k}, "columns": c, "reason": selection.CLUSTER_REASON}
              for a, k, c in [(1.0, 15, 3), (0.2, 7, 16), (1.0, 7, 3)]]
    assert selection.skipped_text(points, "letter") == (
        "grid points with alpha 0.2, 1; k 7, 15 offer no p on letter (3 or 16 columns): their columns end inside "
        "a cluster of equal eigenvalues, which the data do not order")
    assert "on iris (1 column):" in selection.skipped_text([dict(points[0], columns=1)], "iris")
    assert choose(cv.error) == (0, 4)    # the cube's 3 informative columns are not offered: 4 is


@pytest.mark.parametrize("refit_ends, test_p", [((2, 4, 6, 8), 4), ((2, 5, 8), 5), ((2, 3), 3), ((2,), 2)])
def test_the_refit_tests_at_the_end_of_the_cluster_that_cuts_the_chosen_p(split, refit_ends, test_p):
    # CV chooses p = 4 (offered in every fold); the refit's clusters may end elsewhere: it is tested at the
    # end of the cluster that p = 4 cuts, or, where that runs past its 8 columns, at the end of the one before
    X_train, y_train, X_test, y_test, _ = split
    grid_spec = {"ends": [(2, 4, 6, 8)], "refit_ends": [refit_ends], "refit_size": [len(X_train)]}
    job = run_split(X_train, y_train, X_test, y_test, method="clustered", new_estimator=_clustered,
                    grid_spec=grid_spec, p_max=8, seed=0, tags=selection_tags())
    assert job.p == 4
    assert job.test_p == (None if test_p == 4 else test_p)
    expected = KNeighborsClassifier(1).fit(X_train[:, :test_p], y_train).predict(X_test[:, :test_p])
    np.testing.assert_array_equal(job.test_predictions, expected)


def test_a_refit_that_offers_no_p_fails_with_a_reason(split):
    X_train, y_train, X_test, y_test, _ = split
    grid_spec = {"ends": [(2, 4)], "refit_ends": [()], "refit_size": [len(X_train)]}
    with pytest.raises(RuntimeError, match="end inside a cluster of equal eigenvalues"):
        run_split(X_train, y_train, X_test, y_test, method="clustered", new_estimator=_clustered,
                  grid_spec=grid_spec, p_max=8, seed=0, tags=selection_tags())


def test_the_test_p_is_recorded_only_where_it_moved(split, tmp_path):
    X_train, y_train, X_test, y_test, _ = split
    grid_spec = {"ends": [(2, 4, 6, 8)], "refit_ends": [(2, 5, 8)], "refit_size": [len(X_train)]}
    job = run_split(X_train, y_train, X_test, y_test, method="clustered", new_estimator=_clustered,
                    grid_spec=grid_spec, p_max=8, seed=0, tags=selection_tags())
    write_result(tmp_path / "moved.h5", job)
    assert (read_result(tmp_path / "moved.h5")["p"], read_result(tmp_path / "moved.h5")["test_p"]) == (4, 5)


def selection_tags():
    from locproj.methods.tags import projection_tags

    return projection_tags(ClusteredColumns())


def test_graph_methods_are_fitted_for_p_max_columns_only_and_agree_with_all():
    from locproj.methods import LocalityPreservingProjection

    X, y = cube_problem(10, seed=5)
    make = lambda params: LocalityPreservingProjection(n_neighbors=3, **params)  # noqa: E731
    Z_fit, Z_other, *_ = selection.fit_transform_all_p(make, {}, X, y, X[:7], p_max=4, p_limit=9)
    full = make({}).fit(X, y)
    assert Z_fit.shape == (80, 4) and Z_other.shape == (7, 4)
    np.testing.assert_array_equal(Z_fit, full.transform(X)[:, :4])
    # rank 3 < p_max = 4 < p_limit: the request for 4 columns fails and all 3 are fitted instead
    low_rank = np.hstack([X[:, :3], X[:, :3] @ np.ones((3, 7))])
    Z_fit, *_ = selection.fit_transform_all_p(make, {}, low_rank, y, low_rank[:7], p_max=4, p_limit=9)
    assert Z_fit.shape == (80, 3)


def test_cross_validation_is_deterministic_given_seed():
    X, y = cube_problem(6, seed=4)
    make = lambda params: PCA(**params)  # noqa: E731
    first = cross_validate(make, [{"whiten": False}, {"whiten": True}], X, y, n_folds=3, p_max=10, seed=7)
    second = cross_validate(make, [{"whiten": False}, {"whiten": True}], X, y, n_folds=3, p_max=10, seed=7)
    np.testing.assert_array_equal(first.fold_error, second.fold_error)


# --------------------------------------------------------------------------- job and file


@pytest.fixture(scope="module")
def split():
    X, y = cube_problem(20, seed=5)
    train = np.concatenate([np.flatnonzero(y == c)[:10] for c in range(8)])
    test = np.setdiff1d(np.arange(y.size), train)
    return X[train], y[train], X[test], y[test], test


@pytest.fixture(scope="module")
def job(split):
    X_train, y_train, X_test, y_test, test = split
    return run_split(
        X_train, y_train, X_test, y_test, method="rolled", new_estimator=make_rolled,
        grid_spec={"shift": [2, 0]}, m=10, p_max=10, seed=0, test_indices=test,
        meta={"experiment": "unit", "dataset": "cube", "m": 10, "split": 0},
    )


def test_run_job_refits_with_chosen_parameters(job, split):
    X_train, y_train, X_test, y_test, _ = split
    assert (job.params, job.p, job.grid_index) == ({"shift": 0}, 3, 1)
    expected = KNeighborsClassifier(1).fit(X_train[:, :3], y_train).predict(X_test[:, :3])
    np.testing.assert_array_equal(job.test_predictions, expected)
    assert job.test_error == np.mean(expected != y_test)
    assert job.fit_seconds >= 0 and job.cv_seconds > 0


def test_raw_method_is_1nn_on_raw_data(split):
    X_train, y_train, X_test, y_test, _ = split
    job = run_split(X_train, y_train, X_test, y_test, method="raw")
    expected = KNeighborsClassifier(1).fit(X_train, y_train).predict(X_test)
    np.testing.assert_array_equal(job.test_predictions, expected)
    assert (job.p, job.projected, job.cv_error.size) == (10, False, 0)


def test_raw_records_its_cv_error_on_the_folds_of_the_methods(split, tmp_path):
    """The baseline of the CV curves: 1-NN on the raw features in each fold that cross_validate uses."""
    from sklearn.model_selection import StratifiedKFold

    X_train, y_train, X_test, y_test, _ = split
    job = run_split(X_train, y_train, X_test, y_test, method="raw", n_folds=4, seed=7)
    folds = StratifiedKFold(n_splits=4, shuffle=True, random_state=7).split(X_train, y_train)
    expected = [np.mean(KNeighborsClassifier(1).fit(X_train[a], y_train[a]).predict(X_train[b]) != y_train[b])
                for a, b in folds]
    np.testing.assert_allclose(job.raw_cv_fold_error, expected)
    identity = run_split(X_train, y_train, X_test, y_test, method="identity", new_estimator=make_rolled,
                         grid_spec={"shift": [0]}, p_max=10, n_folds=4, seed=7)
    np.testing.assert_allclose(job.raw_cv_fold_error, identity.cv_fold_error[:, 0, -1])   # the same folds
    write_result(tmp_path / "raw.h5", job)
    np.testing.assert_array_equal(read_result(tmp_path / "raw.h5")["raw_cv_fold_error"], job.raw_cv_fold_error)
    singleton = np.r_[0:9, 10]                                     # class 1 has one sample: no folds
    assert run_split(X_train[singleton], y_train[singleton], X_test, y_test, method="raw").raw_cv_fold_error is None


def test_result_round_trip(job, tmp_path):
    path = tmp_path / "r.h5"
    write_result(path, job, {"config_hash": "abc", "seed": "0"})
    back = read_result(path)
    assert (back["method"], back["p"], back["params"], back["chosen"]) == ("rolled", 3, {"shift": 0}, {"shift": 0})
    assert (back["dataset"], back["m"], back["split"], back["config_hash"]) == ("cube", 10, 0, "abc")
    assert back["grid"] == [{"shift": 2}, {"shift": 0}]
    np.testing.assert_array_equal(back["cv_error"], job.cv_error)
    np.testing.assert_array_equal(back["test_indices"], job.test_indices)
    assert back["test_error"] == job.test_error


def test_the_result_file_names_the_folds_used_and_their_seed(split, tmp_path):
    # 12 folds asked for, 10 samples in the smallest class: 10 folds are used, and the file says so
    X_train, y_train, X_test, y_test, _ = split
    used = run_split(X_train, y_train, X_test, y_test, method="rolled", new_estimator=make_rolled,
                     grid_spec={"shift": [0]}, p_max=10, n_folds=12, seed=3)
    write_result(tmp_path / "r.h5", used)
    back = read_result(tmp_path / "r.h5")
    assert (back["n_folds"], back["cv_seed"], back["cv_fold_error"].shape[0]) == (10, 3, 10)


def test_result_file_is_byte_reproducible(job, tmp_path):
    write_result(tmp_path / "a.h5", job, {"seed": "0"})
    write_result(tmp_path / "b.h5", job, {"seed": "0"})
    assert (tmp_path / "a.h5").read_bytes() == (tmp_path / "b.h5").read_bytes()


def test_failed_write_leaves_no_file(job, tmp_path, monkeypatch):
    def broken(handle, result, provenance):
        handle.create_dataset("partial", data=np.zeros(3))
        raise RuntimeError("disk full")

    monkeypatch.setattr(results, "_write_h5", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        write_result(tmp_path / "r.h5", job)
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- more rules of the grid, CV and job


class FirstColumns(RolledColumns):
    """Stand-in projection with a dimension: the first ``n_components`` of the rolled columns (all for None)."""

    def transform(self, X):
        return super().transform(X)[:, : self.n_components]


def _first(params):
    return FirstColumns(**params)


class OneShort(FirstColumns):
    """A broken method: one column short of its ``n_components`` (with ``shift`` 1: on data it was not fitted on)."""

    def fit(self, X, y):
        self.n_fit_ = len(X)
        return super().fit(X, y)

    def transform(self, X):
        Z = super().transform(X)
        return Z if self.shift == 1 and len(X) == self.n_fit_ else Z[:, :-1]


def failing_for(shift, raised):
    """Factory of RolledColumns whose fit raises at ``shift``: ``refused 1``, ``refused 2``... (kept in ``raised``)."""
    def make(params):
        estimator = RolledColumns(**params)
        if params.get("shift") == shift:
            def fit(X, y):
                raised.append(ValueError(f"refused {len(raised) + 1}"))
                raise raised[-1]

            estimator.fit = fit
        return estimator

    return make


def knn_errors(X, y, fit, held_out, p_values, k):
    return [np.mean(KNeighborsClassifier(k).fit(X[fit, :p], y[fit]).predict(X[held_out, :p]) != y[held_out])
            for p in p_values]


def test_m_expressions_add_and_subtract():
    X, y = np.ones((4, 2)), np.array([0, 0, 1, 1])
    assert resolve_grid({"k": ["m", "m+2", " m - 1 "]}, X, y, m=5) == [{"k": 5}, {"k": 7}, {"k": 4}]


def test_a_kernel_gamma_is_a_multiple_of_one_over_sigma0_squared():
    X = np.array([[3.0, 4.0], [0.0, 1.0]])  # sigma0^2 = 9
    assert resolve_grid({"gamma": {"per_sigma0_sq_times": [9, 0.9]}}, X, [0, 1], m=1) == [{"gamma": 1.0},
                                                                                         {"gamma": 0.1}]
    with pytest.raises(ValueError, match=r"grid spec for 'gamma': unknown form \{'sigma_times': \[1\]\}"):
        resolve_grid({"gamma": {"sigma_times": [1]}}, X, [0, 1], m=1)


def test_sigma0_is_computed_in_double_precision_whatever_the_input_dtype():
    X = np.random.default_rng(0).standard_normal((50, 7)).astype(np.float32)
    expected = np.mean(np.linalg.norm(X.astype(np.float64), axis=1)) ** 2
    assert sigma0_squared(X) == pytest.approx(expected, rel=1e-14)


def test_choose_refuses_a_table_without_finite_errors_and_counts_exact_ties_with_atol_0():
    with pytest.raises(ValueError, match="^no finite cross-validation error to choose from$"):
        choose(np.full((2, 2), np.nan))
    assert choose(np.array([[0.2, 0.1], [0.1, 0.3]]), atol=0) == (1, 1)


def test_cv_defaults_are_five_folds_seed_0_and_p_up_to_300_on_the_raw_baseline_s_folds():
    X, y = cube_problem(6, seed=4)
    cv = cross_validate(make_rolled, [{}], X, y)
    assert cv.fold_error.shape == (5, 1, 300)
    np.testing.assert_array_equal(cv.fold_error[:, 0, 9], raw_cv_fold_error(X, y))


def test_raw_cv_error_needs_two_samples_per_class():
    X, y = cube_problem(2, seed=6)
    expected = [knn_errors(X, y, a, b, [10], 1)[0]
                for a, b in StratifiedKFold(n_splits=2, shuffle=True, random_state=0).split(X, y)]
    np.testing.assert_array_equal(raw_cv_fold_error(X, y), expected)


def test_every_capped_count_is_recorded_with_its_grid_point_and_parameter():
    X, y = cube_problem(5, seed=2)
    cv = cross_validate(make_rolled, [{"n_neighbors": 2}, {"n_neighbors": 4}], X, y, n_folds=5, p_max=10,
                        neighbors=WITHIN)
    assert cv.capped == [{"fold": f, "grid_index": 1, "param": "n_neighbors", "requested": 4, "used": 3}
                         for f in range(5)]


def test_grid_points_identical_after_capping_are_fitted_once_whatever_their_key_order():
    X, y = cube_problem(5, seed=2)
    fits = []

    def make(params):
        fits.append(params)
        return RolledColumns(**params)

    cv = cross_validate(make, [{"n_neighbors": 4, "shift": 0}, {"shift": 0, "n_neighbors": 3}], X, y, n_folds=5,
                        p_max=10, neighbors=WITHIN)
    assert len(fits) == 5   # one fit per fold: both points use 3 neighbours
    np.testing.assert_array_equal(cv.fold_error[:, 0], cv.fold_error[:, 1])


def test_an_unordered_method_has_a_cv_error_at_its_own_p_only():
    X, y = cube_problem(10, seed=1)
    grid = [{"n_components": 2, "n_neighbors": 3}, {"n_components": 10}, {"n_components": 12}, {"n_components": None}]
    cv = cross_validate(_first, grid, X, y, n_folds=5, p_max=10, seed=0, ordered=False)
    plain = cross_validate(make_rolled, [{}], X, y, n_folds=5, p_max=10, seed=0)
    for index, p in [(0, 2), (1, 10), (3, 10)]:   # None: all 10 columns
        expected = np.full((5, 10), np.nan)
        expected[:, p - 1] = plain.fold_error[:, 0, p - 1]
        np.testing.assert_array_equal(cv.fold_error[:, index], expected)
    assert np.isnan(cv.fold_error[:, 2]).all()   # 12 columns: not fitted
    assert cv.skipped == [{"n_components": 12, "reason": "the data have 10 features"}]
    assert skipped_text(cv.skipped, "cube") == "n_components 12 not fitted on cube: the data have 10 features"


@pytest.mark.parametrize("p_max, p_limit, reason", [
    (20, lambda X, y: X.shape[1], "the data have 10 features"),
    (20, lambda X, y: len(X) - 1, "the training folds have 16 samples"),
    (8, None, "p_max is 8"),
    (20, 9, "the method gives at most 9 columns"),
])
def test_an_unordered_grid_point_beyond_the_columns_is_skipped_saying_why(p_max, p_limit, reason):
    X, y = cube_problem(3, seed=7)   # 3 folds of 16 training samples
    cv = cross_validate(_first, [{"n_components": 2}, {"n_components": 16}], X, y, n_folds=3, p_max=p_max,
                        p_limit=p_limit, ordered=False)
    assert cv.skipped == [{"n_components": 16, "reason": reason}]
    assert np.isfinite(cv.error[0, 1]) and np.isnan(cv.error[1]).all()


def test_an_unordered_method_must_return_its_n_components_columns():
    X, y = cube_problem(5, seed=2)
    with pytest.raises(MethodOutputError, match=r"transform returned an array of shape \(32, 2\) for 32 samples; "
                                                r"expected 32 rows of 3 columns"):
        cross_validate(lambda params: OneShort(**params), [{"n_components": 3}], X, y, n_folds=5, p_max=10,
                       ordered=False)
    with pytest.raises(MethodOutputError, match=r"shape \(8, 2\) for 8 samples; expected 8 rows of 3 columns"):
        cross_validate(lambda params: OneShort(**params), [{"n_components": 3, "shift": 1}], X, y, n_folds=5,
                       p_max=10, ordered=False)


def test_recorded_failures_cost_only_their_grid_point_in_their_fold():
    X, y = cube_problem(5, seed=2)
    raised = []
    cv = cross_validate(failing_for(3, raised), [{"shift": 0}, {"shift": 3}], X, y, n_folds=5, p_max=10,
                        on_error="record")
    assert [(r["fold"], r["grid_index"], r["error_type"], r["error_message"]) for r in cv.failed] == [
        (f, 1, "ValueError", f"refused {f + 1}") for f in range(5)]
    assert cv.first_failure is raised[0]
    assert np.isfinite(cv.error[0]).all() and np.isnan(cv.error[1]).all()
    with pytest.raises(ValueError, match="refused 6"):   # the default: a failed fit fails the split
        cross_validate(failing_for(3, raised), [{"shift": 3}], X, y, n_folds=5, p_max=10)


def test_failed_fits_are_logged_and_a_split_whose_every_fit_failed_fails(split, caplog):
    X_train, y_train, X_test, y_test, _ = split
    raised = []
    with caplog.at_level(logging.WARNING, logger="locproj.engine.selection"):
        job = run_split(X_train, y_train, X_test, y_test, method="rolled", new_estimator=failing_for(3, raised),
                        grid_spec={"shift": [0, 3]}, p_max=10, on_error="record")
    assert job.params == {"shift": 0} and [r["grid_index"] for r in job.failed_fits] == [1] * 5
    assert ("rolled: 5 of 10 fits failed in cross-validation (no CV error for their grid point in that fold); "
            "the first: ValueError: refused 1") in caplog.text
    raised.clear()
    with pytest.raises(RuntimeError, match=r"every grid point of rolled failed in cross-validation \(5 fits\); "
                                           r"the first: ValueError: refused 1$") as info:
        run_split(X_train, y_train, X_test, y_test, method="rolled", new_estimator=failing_for(3, raised),
                  grid_spec={"shift": [3]}, p_max=10, on_error="record")
    assert info.value.__cause__ is raised[0]


def test_grid_points_without_a_p_are_recorded_and_logged_naming_the_dataset(split, caplog):
    X_train, y_train, X_test, y_test, _ = split
    run = dict(method="clustered", new_estimator=_clustered, grid_spec={"ends": [(2, 4, 6, 8), ()]}, p_max=8,
               tags=selection_tags())
    with caplog.at_level(logging.INFO, logger="locproj.engine.selection"):
        job = run_split(X_train, y_train, X_test, y_test, meta={"dataset": "cube"}, **run)
        anonymous = run_split(X_train, y_train, X_test, y_test, **run)
    assert job.skipped == anonymous.skipped == [{"params": {"ends": []}, "columns": 8,
                                                 "reason": selection.CLUSTER_REASON}]
    for where in ("cube", "the data"):
        assert f"clustered: grid points with ends [] offer no p on {where} (8 columns): " \
               f"{selection.CLUSTER_REASON}" in caplog.messages


def test_every_grid_point_without_a_p_is_recorded():
    X, y = cube_problem(10, seed=1)
    cv = cross_validate(_clustered, [{"ends": (9,)}, {"ends": ()}, {"ends": (2,)}], X, y, n_folds=5, p_max=8,
                        tags=selection_tags())
    assert sorted(item["params"]["ends"] for item in cv.skipped) == [[], [9]]


def test_only_cluster_ends_within_the_columns_are_offered():
    X, y = cube_problem(10, seed=1)
    cv = cross_validate(_clustered, [{"ends": (0, 1, 3, 8, 9)}], X, y, n_folds=5, p_max=8, tags=selection_tags())
    assert (np.flatnonzero(np.isfinite(cv.error[0])) + 1).tolist() == [1, 3, 8]
    # 10 features: a cluster said to end at 12 is beyond the columns
    cv = cross_validate(_clustered, [{"ends": (2, 10, 12)}], X, y, n_folds=5, p_max=12, tags=selection_tags())
    assert (np.flatnonzero(np.isfinite(cv.error[0])) + 1).tolist() == [2, 10]


def test_a_fixed_dimension_is_lowered_to_the_columns_cross_validation_reads():
    X, y = cube_problem(5, seed=2)
    made = []

    def make(params):
        made.append(FirstColumns(**params))
        return made[-1]

    Z_fit, Z_other, *_ = fit_transform_all_p(make, {"n_components": 8}, X, y, X[:5], p_max=4)
    assert made[-1].n_components == 4 and Z_fit.shape == (40, 4) and Z_other.shape == (5, 4)
    fit_transform_all_p(make, {"n_components": 8}, X, y, X[:5], p_max=6, p_limit=5)
    assert made[-1].n_components == 5
    fit_transform_all_p(make, {"n_components": 3}, X, y, X[:5], p_max=4)
    assert made[-1].n_components == 3


def test_a_nested_method_is_asked_for_p_max_columns_and_refitted_whole_below_that_rank():
    from locproj.methods import LocalityPreservingProjection
    from locproj.methods.tags import projection_tags

    X, y = cube_problem(10, seed=5)
    made = []

    def make(params):
        made.append(LocalityPreservingProjection(n_neighbors=3, **params))
        return made[-1]

    tags = projection_tags(LocalityPreservingProjection())
    assert tags.nested_fit and tags.first_columns
    full = LocalityPreservingProjection(n_neighbors=3).fit(X, y)
    Z_fit, Z_other, *_ = fit_transform_all_p(make, {}, X, y, X[:7], p_max=4, p_limit=9, tags=tags)
    assert len(made) == 1 and made[0].n_components == 4
    np.testing.assert_array_equal(Z_fit, full.transform(X)[:, :4])
    np.testing.assert_array_equal(Z_other, full.transform(X[:7])[:, :4])
    # rank 3 < p_max = 4: the request for 4 columns fails and all 3 are fitted instead
    low_rank = np.hstack([X[:, :3], X[:, :3] @ np.ones((3, 7))])
    Z_fit, *_ = fit_transform_all_p(make, {}, low_rank, y, low_rank[:7], p_max=4, p_limit=9, tags=tags)
    assert Z_fit.shape == (80, 3) and len(made) == 3 and made[-1].n_components is None
    # a method not declared nested is fitted with all its columns
    fit_transform_all_p(make, {}, X, y, X[:7], p_max=4, p_limit=9)
    assert made[-1].n_components is None
    # p_limit below p_max: fitted whole, p_limit columns of both
    Z_fit, Z_other, *_ = fit_transform_all_p(make, {}, X, y, X[:7], p_max=4, p_limit=3, tags=tags)
    assert made[-1].n_components is None and Z_fit.shape == (80, 3) and Z_other.shape == (7, 3)


def test_the_classifier_and_its_parameters_reach_every_prediction(split):
    X_train, y_train, X_test, y_test, _ = split
    knn = dict(classifier="knn", classifier_params={"n_neighbors": 3})
    job = run_split(X_train, y_train, X_test, y_test, method="rolled", new_estimator=make_rolled,
                    grid_spec={"shift": [0]}, p_max=10, test_curve=True, **knn)
    assert (job.classifier, job.classifier_params) == ("knn", {"n_neighbors": 3})
    folds = list(StratifiedKFold(n_splits=5, shuffle=True, random_state=0).split(X_train, y_train))
    expected = [knn_errors(X_train, y_train, a, b, range(1, 11), 3) for a, b in folds]
    np.testing.assert_array_equal(job.cv_fold_error[:, 0], expected)
    expected = KNeighborsClassifier(3).fit(X_train[:, :job.p], y_train).predict(X_test[:, :job.p])
    np.testing.assert_array_equal(job.test_predictions, expected)
    X_all, y_all = np.vstack([X_train, X_test]), np.r_[y_train, y_test]
    train, test = np.arange(len(X_train)), np.arange(len(X_train), len(X_all))
    np.testing.assert_array_equal(job.test_error_curve, knn_errors(X_all, y_all, train, test, range(1, 11), 3))
    # where only some p are offered; a method whose columns are not ordered
    cv = cross_validate(_clustered, [{"ends": (2, 4)}], X_train, y_train, p_max=10, tags=selection_tags(), **knn)
    np.testing.assert_array_equal(cv.fold_error[:, 0, [1, 3]], job.cv_fold_error[:, 0, [1, 3]])
    cv = cross_validate(_first, [{"n_components": 2}], X_train, y_train, p_max=10, ordered=False, **knn)
    np.testing.assert_array_equal(cv.fold_error[:, 0, 1], job.cv_fold_error[:, 0, 1])
    # the refit at p = 1 or 2, where 3-NN and 1-NN disagree; an unordered method's curve refits there too
    for ordered, p_max in [(True, 2), (False, 3)]:
        low = run_split(X_train, y_train, X_test, y_test, method="first", new_estimator=_first,
                        grid_spec={} if ordered else {"n_components": [1, 2, 3]}, p_max=p_max, ordered=ordered,
                        test_curve=True, **knn)
        expected = KNeighborsClassifier(3).fit(X_train[:, :low.p], y_train).predict(X_test[:, :low.p])
        np.testing.assert_array_equal(low.test_predictions, expected)
        np.testing.assert_array_equal(low.test_error_curve, job.test_error_curve[:p_max])


def test_raw_is_the_classifier_on_the_raw_features_and_records_no_cv(split):
    X_train, y_train, X_test, y_test, _ = split
    knn = dict(classifier="knn", classifier_params={"n_neighbors": 3})
    job = run_split(X_train, y_train, X_test, y_test, method="raw", **knn)
    expected = KNeighborsClassifier(3).fit(X_train, y_train).predict(X_test)
    np.testing.assert_array_equal(job.test_predictions, expected)
    assert job.test_error == np.mean(expected != y_test)
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0).split(X_train, y_train)
    np.testing.assert_array_equal(job.raw_cv_fold_error,
                                  [knn_errors(X_train, y_train, a, b, [10], 3)[0] for a, b in folds])
    assert (job.projected, job.grid, job.grid_index, job.params, job.capped) == (False, [{}], 0, {}, [])
    assert (job.cv_error.shape, job.cv_fold_error.shape, job.fit_seconds, job.cv_seconds) == ((0, 0), (0, 0, 0),
                                                                                             0.0, 0.0)
    # without an estimator, any method is the classifier on the raw features; the name decides nothing
    assert run_split(X_train, y_train, X_test, y_test, method="baseline").projected is False
    assert run_split(X_train, y_train, X_test, y_test, method="raw", new_estimator=make_rolled, **knn).projected


def test_run_split_defaults_and_identification(split):
    X_train, y_train, X_test, y_test, test = split
    job = run_split(X_train, y_train, X_test, y_test, method="rolled", new_estimator=make_rolled,
                    grid_spec={"shift": [0]}, test_indices=test)
    assert (job.method, job.classifier, job.classifier_params, job.p_max, job.n_folds, job.cv_seed) == (
        "rolled", "1nn", {}, 300, 5, 0)
    assert job.projected is True and job.cv_error.shape == (1, 300) and job.test_error_curve is None
    np.testing.assert_array_equal(job.test_indices, test)


def test_the_refit_caps_a_neighbour_count_too_and_records_it_as_fold_minus_1(split):
    X_train, y_train, X_test, y_test, _ = split     # 10 training samples per class, 8 in each fold's fit
    job = run_split(X_train, y_train, X_test, y_test, method="rolled", new_estimator=make_rolled,
                    grid_spec={"n_neighbors": ["m-1", 20], "shift": [0]}, m=12, p_max=10, p_limit=10,
                    neighbors=WITHIN)
    assert job.grid == [{"n_neighbors": 11, "shift": 0}] and job.params == {"n_neighbors": 9, "shift": 0}
    assert job.capped == [{"fold": f, "grid_index": 0, "param": "n_neighbors", "requested": 11, "used": u}
                          for f, u in [(0, 7), (1, 7), (2, 7), (3, 7), (4, 7), (-1, 9)]]
    np.testing.assert_array_equal(job.cv_error, cross_validate(make_rolled, [{"n_neighbors": 7, "shift": 0}],
                                                               X_train, y_train, p_max=10).error)


def test_the_test_curve_is_the_refit_s_error_at_every_offered_p(split):
    X_train, y_train, X_test, y_test, _ = split
    X_all, y_all = np.vstack([X_train, X_test]), np.r_[y_train, y_test]
    train, test = np.arange(len(X_train)), np.arange(len(X_train), len(X_all))
    expected = np.array(knn_errors(X_all, y_all, train, test, range(1, 9), 1))
    grid_spec = {"ends": [(2, 4, 6, 8)]}
    job = run_split(X_train, y_train, X_test, y_test, method="clustered", new_estimator=_clustered,
                    grid_spec=grid_spec, p_max=8, tags=selection_tags(), test_curve=True)
    assert job.test_error_curve.shape == (8,) and np.isnan(job.test_error_curve[::2]).all()
    np.testing.assert_array_equal(job.test_error_curve[1::2], expected[1::2])
    assert job.test_error == expected[job.p - 1]


def test_an_unordered_method_s_test_curve_refits_at_each_n_components_of_its_grid(split):
    X_train, y_train, X_test, y_test, _ = split
    X_all, y_all = np.vstack([X_train, X_test]), np.r_[y_train, y_test]
    train, test = np.arange(len(X_train)), np.arange(len(X_train), len(X_all))
    reference = np.array(knn_errors(X_all, y_all, train, test, range(1, 11), 1))
    from locproj.methods.tags import projection_tags

    run = dict(method="first", new_estimator=_first, grid_spec={"n_components": [2, 3, 10, 12], "n_neighbors": [3]},
               p_max=10, ordered=False, tags=projection_tags(FirstColumns()))
    job = run_split(X_train, y_train, X_test, y_test, test_curve=True, **run)
    assert job.p == 3 and job.params == {"n_components": 3, "n_neighbors": 3} and job.test_error == reference[2]
    assert np.isfinite(job.cv_error).sum() == 3    # one p per grid point: 2, 3, 10
    expected = np.full(10, np.nan)
    expected[[1, 2, 9]] = reference[[1, 2, 9]]
    np.testing.assert_array_equal(job.test_error_curve, expected)
    # p_limit 8: the curve stops at the largest n_components within it
    limited = run_split(X_train, y_train, X_test, y_test, test_curve=True,
                        p_limit=lambda X, y: min(X.shape[1], len(np.unique(y))), **run)
    np.testing.assert_array_equal(limited.test_error_curve, expected[:3])
    assert np.isnan(limited.cv_error[2]).all() and [item["n_components"] for item in limited.skipped] == [10, 12]
    assert run_split(X_train, y_train, X_test, y_test, **run).test_error_curve is None


def test_a_refit_with_fewer_columns_than_the_chosen_p_fails_saying_so(split):
    X_train, y_train, X_test, y_test, _ = split
    with pytest.raises(RuntimeError, match=r"refit gives 2 projections, CV chose p=3"):
        run_split(X_train, y_train, X_test, y_test, method="rolled", new_estimator=make_rolled,
                  grid_spec={"shift": [0]}, p_max=10, p_limit=lambda X, y: 4 if len(X) < len(X_train) else 2)


def test_the_recorded_seconds_lie_within_the_call(split):
    X_train, y_train, X_test, y_test, _ = split
    start = time.perf_counter()
    jobs = [run_split(X_train, y_train, X_test, y_test, method="first", new_estimator=_first,
                      grid_spec={"n_components": [3]}, p_max=10, ordered=ordered) for ordered in (True, False)]
    elapsed = time.perf_counter() - start
    for job in jobs:
        assert 0 <= job.fit_seconds <= elapsed and 0 < job.cv_seconds <= elapsed


def test_skipped_text_merges_reasons_and_orders_values():
    items = [{"n_components": 30, "reason": "the data have 4 features"},
             {"n_components": 5, "reason": "p_max is 4"},
             {"n_components": 10, "reason": "the data have 4 features"},
             {"params": {"solver": "b", "ends": [2, 4]}, "columns": 2, "reason": "R"},
             {"params": {"solver": 10, "ends": [2]}, "columns": 3, "reason": "R"},
             {"params": {"solver": "a", "ends": [2]}, "columns": 1, "reason": "R"},
             {"params": {"solver": 2}, "columns": 3, "reason": "R"}]
    assert skipped_text(items, "iris") == (
        "n_components 5, 10, 30 not fitted on iris: the data have 4 features; p_max is 4; "
        "grid points with ends [2, 4], [2]; solver 2, 10, a, b offer no p on iris (1, 2 or 3 columns): R")
    assert skipped_text([{"params": {"k": 1}, "reason": "R"}], "iris") == "grid points with k 1 offer no p on iris: R"


class Widened(RolledColumns):
    """Stand-in projection with a heat-kernel-like width ``t`` (scaling the columns leaves 1-NN unchanged)."""

    def __init__(self, n_components=None, shift=0, t=1.0):
        super().__init__(n_components, shift)
        self.t = t

    def transform(self, X):
        return super().transform(X) * self.t


def test_run_split_resolves_the_grid_on_the_training_part(split):
    X_train, y_train, X_test, y_test, _ = split     # 10 training samples per class
    job = run_split(X_train, y_train, X_test, y_test, method="widened", new_estimator=lambda params: Widened(**params),
                    grid_spec={"shift": ["m-10"], "t": {"sigma0_sq_times": [1, 2]}}, p_max=10)
    assert job.grid == [{"shift": 0, "t": sigma0_squared(X_train)}, {"shift": 0, "t": 2 * sigma0_squared(X_train)}]


def test_p_limit_is_given_the_fit_s_samples_and_labels():
    X, y = cube_problem(6, seed=3)
    cv = cross_validate(make_rolled, [{}], X, y, n_folds=3, p_max=10, p_limit=lambda X, y: len(np.unique(y)) - 4)
    assert np.isfinite(cv.error[0, :4]).all() and np.isnan(cv.error[0, 4:]).all()


def test_run_split_hands_the_method_float64_data_whatever_it_is_given(split):
    """A method computing in its input's precision (scikit-learn's PCA keeps float32) still gets float64:
    the split's numbers do not depend on how the caller stored the data."""
    X_train, y_train, X_test, y_test, _ = split
    seen = []

    class Recording(RolledColumns):
        def fit(self, X, y):
            seen.append(("fit", np.asarray(X).dtype))
            return super().fit(X, y)

        def transform(self, X):
            seen.append(("transform", np.asarray(X).dtype))
            return super().transform(X)

    run_split(X_train.astype(np.float32), y_train, X_test.astype(np.float32), y_test, method="recording",
              new_estimator=lambda params: Recording(**params), grid_spec={"shift": [0]}, p_max=10, n_folds=4)
    assert {kind for kind, _ in seen} == {"fit", "transform"}
    assert {dtype for _, dtype in seen} == {np.dtype(np.float64)}


class ShortWhenRefitAt10(FirstColumns):
    """A broken method: one column short at ``n_components`` 10 when fitted on all 80 training samples."""

    def fit(self, X, y):
        self.n_fit_ = len(X)
        return super().fit(X, y)

    def transform(self, X):
        Z = super().transform(X)
        return Z[:, :-1] if self.n_components == 10 and self.n_fit_ == 80 else Z


def test_an_unordered_method_after_a_pipeline_step_has_its_test_curve_refits_width_checked(split):
    from sklearn.pipeline import Pipeline

    from locproj.methods.tags import projection_tags, wrapped

    X_train, y_train, X_test, y_test, _ = split

    def make(params):      # as estimator_factory with pca_first: the dimension is the step's parameter
        return Pipeline([("method", ShortWhenRefitAt10(**params))])

    tags = wrapped(projection_tags(FirstColumns()), "method")
    run = dict(method="short", new_estimator=make, grid_spec={"n_components": [3, 10]}, p_max=10, ordered=False,
               tags=tags)
    assert run_split(X_train, y_train, X_test, y_test, **run).p == 3     # CV's fits (64 samples) are whole
    with pytest.raises(MethodOutputError, match=r"shape \(80, 9\) for 80 samples; expected 80 rows of 10 columns"):
        run_split(X_train, y_train, X_test, y_test, test_curve=True, **run)
