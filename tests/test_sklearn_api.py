"""The estimators of locproj.methods speak scikit-learn: parameter validation through
``_parameter_constraints``, ``get_feature_names_out`` and ``set_output``, and docstring examples
that run."""

import doctest
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import check_param_validation

import locproj.methods
from locproj.engine import registry
from locproj.methods import (
    KernelLPP,
    LocalityPreservingProjection,
    LocalitySensitiveDiscriminantAnalysis,
    LocalProjectionKernelSVC,
    MarginalFisherAnalysis,
    SpectralRegressionDiscriminantAnalysis,
    SupervisedLLE,
)
from locproj.methods.linear import LeadingPCA

PUBLIC = [getattr(locproj.methods, name) for name in locproj.methods.__all__] + [LeadingPCA]
BUILT_IN = sorted(name for name in registry.METHODS
                  if type(registry.make_estimator(name)).__module__.startswith("locproj."))


def _ids(classes):
    return [cls.__name__ for cls in classes]


def _iris(estimator):
    """Iris as a DataFrame; versicolor against virginica for the binary LPK."""
    X, y = load_iris(return_X_y=True, as_frame=True)
    if isinstance(estimator, LocalProjectionKernelSVC):
        X, y = X[y > 0], y[y > 0]
    return X, y


# --------------------------------------------------------------------------- docstrings


@pytest.mark.parametrize("cls", PUBLIC, ids=_ids(PUBLIC))
def test_docstring_examples_run(cls):
    doc = cls.__doc__
    assert "\n    Examples\n    --------\n" in doc, f"{cls.__name__} has no Examples section"
    assert "\n    See Also\n    --------\n" in doc, f"{cls.__name__} has no See Also section"
    tests = [test for test in doctest.DocTestFinder().find(cls, cls.__name__, module=False, globs={})
             if test.examples]
    assert any(test.name == cls.__name__ for test in tests), f"{cls.__name__}'s docstring has no example"
    report = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test, out=report.append)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, "".join(report)


# --------------------------------------------------------------------------- parameter validation


@pytest.mark.parametrize("cls", PUBLIC, ids=_ids(PUBLIC))
def test_every_parameter_has_a_constraint(cls):
    params = cls().get_params()
    assert cls._parameter_constraints, f"{cls.__name__} declares no _parameter_constraints"
    assert set(cls._parameter_constraints) == set(params)


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_built_in_method_validates_every_parameter(name):
    estimator = registry.make_estimator(name)
    assert estimator._parameter_constraints
    assert set(estimator.get_params()) <= set(estimator._parameter_constraints)


@pytest.mark.parametrize("cls", PUBLIC, ids=_ids(PUBLIC))
def test_invalid_parameters_raise_invalid_parameter_error_at_fit(cls):
    # every parameter: a value of a wrong type and a value outside each allowed range
    check_param_validation(cls.__name__, cls())


@pytest.mark.parametrize("estimator, param, value", [
    (LocalityPreservingProjection(), "n_neighbors", 0),
    (LocalityPreservingProjection(), "n_neighbors", True),   # a bool is not a neighbour count
    (LocalityPreservingProjection(), "weight", "gauss"),
    (LocalityPreservingProjection(), "gamma", 0.0),
    (LocalityPreservingProjection(), "column_scaling", "norm"),
    (KernelLPP(), "kernel", "precomputed"),
    (LocalitySensitiveDiscriminantAnalysis(), "beta", 1.5),
    (MarginalFisherAnalysis(), "n_penalty_pairs", 2.5),
    (SupervisedLLE(), "n_components", 1.5),
    (SupervisedLLE(), "alpha", True),
    (SupervisedLLE(), "reg", -1.0),
    (SpectralRegressionDiscriminantAnalysis(), "alpha", np.nan),
    (SpectralRegressionDiscriminantAnalysis(), "solver", "cholesky"),
    (LocalProjectionKernelSVC(), "kernel", "sigmoid"),
])
def test_an_invalid_parameter_is_named_with_its_value_and_range(estimator, param, value):
    X, y = _iris(estimator)
    estimator.set_params(**{param: value})
    name = type(estimator).__name__
    pattern = rf"The '{param}' parameter of {name} must be .+\. Got {re.escape(repr(value))} instead"
    with pytest.raises(InvalidParameterError, match=pattern):
        estimator.fit(X, y)


def test_a_range_given_by_the_data_stays_a_data_check():
    X, y = _iris(LocalProjectionKernelSVC())
    with pytest.raises(ValueError, match=r"n_components must be an integer in \[1, 4\] \(n_features\), got 5"):
        LocalProjectionKernelSVC(n_components=5).fit(X, y)


# --------------------------------------------------------------------------- feature names, set_output


def _prepared(estimator):
    if isinstance(estimator, LocalProjectionKernelSVC):
        estimator.set_params(max_iter=3, random_state=0)
    return estimator


@pytest.mark.parametrize("name", [*BUILT_IN, "pca_first"])
def test_set_output_pandas_names_the_columns(name):
    estimator = _prepared(LeadingPCA(n_components=3) if name == "pca_first" else registry.make_estimator(name))
    X, y = _iris(estimator)
    X.index = X.index + 1000
    estimator.set_output(transform="pandas")
    Z = estimator.fit_transform(X, y)
    names = estimator.get_feature_names_out()
    prefix = type(estimator).__name__.lower()
    assert list(names) == [f"{prefix}{i}" for i in range(len(names))]
    assert isinstance(Z, pd.DataFrame) and list(Z.columns) == list(names)
    assert Z.index.equals(X.index)
    Z_new = estimator.transform(X.iloc[:7])
    assert isinstance(Z_new, pd.DataFrame) and list(Z_new.columns) == list(names)
    assert Z_new.index.equals(X.index[:7])
    with pytest.warns(UserWarning, match="X does not have valid feature names"):   # still named columns out
        Z_array = estimator.transform(X.to_numpy()[:7])
    assert isinstance(Z_array, pd.DataFrame) and list(Z_array.columns) == list(names)
    np.testing.assert_allclose(Z_array.to_numpy(), Z_new.to_numpy())
    estimator.set_output(transform="default")
    assert isinstance(estimator.transform(X.iloc[:7]), np.ndarray)


def test_lpp_set_output_pandas():
    X, y = load_iris(return_X_y=True)
    lpp = LocalityPreservingProjection().set_output(transform="pandas")
    Z = lpp.fit_transform(X, y)
    columns = [f"localitypreservingprojection{i}" for i in range(lpp.n_components_)]
    assert isinstance(Z, pd.DataFrame) and list(Z.columns) == columns
    assert list(lpp.transform(X).columns) == columns
    assert lpp.get_feature_names_out(["a", "b", "c", "d"]).tolist() == columns
