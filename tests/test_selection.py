"""Grid resolution, cross-validation over (grid, p), the job runner and its result file."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.neighbors import KNeighborsClassifier

from locproj.engine import results, selection
from locproj.engine.neighbor_counts import WITHIN_CLASS, NeighborRule
from locproj.engine.results import read_result, write_result
from locproj.engine.selection import (
    choose,
    cross_validate,
    resolve_grid,
    run_split,
    sigma0_squared,
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
