"""What a method can do is declared (its ProjectionTags), never looked for: the estimators declare
it in their scikit-learn tags, the registry for scikit-learn's estimators and for its wrappers, a
method by import path in its config entry; the engine and the protocols read only the declaration."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.utils import get_tags

from locproj.engine.registry import METHODS, factory_tags, method_spec
from locproj.engine.selection import fit_transform_all_p
from locproj.methods import LocalityPreservingProjection, LocalProjectionKernelSVC, SupervisedLLE
from locproj.methods.tags import ProjectionTags, projection_tags

SRC = Path(__file__).resolve().parents[1] / "src" / "locproj"


class FixedWidth(TransformerMixin, BaseEstimator):
    """A projection by import path: a parameter ``width`` sets its number of columns."""

    def __init__(self, width=3):
        self.width = width

    def fit(self, X, y=None):
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        return np.asarray(X)[:, : self.width]


def test_the_estimators_declare_what_they_can_do_in_their_scikit_learn_tags():
    lpp = get_tags(LocalityPreservingProjection()).transformer_tags
    assert isinstance(lpp, ProjectionTags)
    assert (lpp.dimension, lpp.first_columns, lpp.nested_fit, lpp.linear_map) == ("n_components", True, True, True)
    assert get_tags(SupervisedLLE()).transformer_tags.training_subset
    assert not get_tags(SupervisedLLE()).transformer_tags.linear_map
    assert get_tags(LocalProjectionKernelSVC()).transformer_tags.local_regions


def test_the_registry_holds_each_methods_declaration():
    assert METHODS["pca"].tags == ProjectionTags(linear_map=True)          # scikit-learn's PCA: declared here
    assert METHODS["raw"].tags.dimension is None
    assert METHODS["srda"].tags.first_columns and not METHODS["srda"].tags.nested_fit
    for name, spec in METHODS.items():
        if type(spec.make()).__module__.startswith("locproj."):
            assert spec.tags == get_tags(spec.make()).transformer_tags, name


def test_a_wrapper_declares_only_where_the_dimension_parameter_is():
    assert factory_tags(METHODS["lpp"], pca_first=50) == ProjectionTags(dimension="method__n_components")
    assert factory_tags(METHODS["lpp"]) is METHODS["lpp"].tags


def test_a_method_by_import_path_has_defaults_and_declares_in_its_entry():
    module = f"{__name__.rpartition('.')[2]}:FixedWidth"
    plain = method_spec("mine", {"estimator": module}, search=[str(Path(__file__).parent)])
    assert plain.tags == ProjectionTags(dimension=None)                      # no n_components: no dimension
    declared = method_spec("mine", {"estimator": module, "dimension": "width", "linear_map": False,
                                    "training_subset": False}, search=[str(Path(__file__).parent)])
    assert declared.tags.dimension == "width"
    unsupervised = method_spec("mine", {"estimator": module, "dimension": "width", "supervised": False},
                               search=[str(Path(__file__).parent)])
    assert unsupervised.tags == ProjectionTags(dimension="estimator__width")
    assert projection_tags(PCA()) == ProjectionTags()                       # undeclared: n_components only


def test_the_declared_dimension_is_capped_at_the_columns_the_data_give():
    X, y = np.random.default_rng(0).normal(size=(12, 8)), np.repeat([0, 1, 2], 4)
    fitted = []

    def new_estimator(params):
        estimator = FixedWidth(**params)
        fitted.append(estimator)
        return estimator

    Z, *_ = fit_transform_all_p(new_estimator, {"width": 20}, X, y, X, p_max=6, p_limit=5,
                                  tags=ProjectionTags(dimension="width"))
    assert fitted[-1].width == 5 and Z.shape[1] == 5
    Z, *_ = fit_transform_all_p(new_estimator, {"width": 20}, X, y, X, p_max=6, p_limit=5,
                                  tags=ProjectionTags(dimension=None))
    assert fitted[-1].width == 20 and Z.shape[1] == 5                      # undeclared: not touched


def test_a_nested_fit_is_asked_for_only_the_columns_read():
    X, y = np.random.default_rng(1).normal(size=(30, 10)), np.repeat([0, 1, 2], 10)
    made = []

    def new_estimator(params):
        made.append(LocalityPreservingProjection(n_neighbors=3, **params))
        return made[-1]

    tags = METHODS["lpp"].tags
    fit_transform_all_p(new_estimator, {}, X, y, X, p_max=4, tags=tags)
    assert made[-1].n_components == 4
    fit_transform_all_p(new_estimator, {}, X, y, X, p_max=4, tags=ProjectionTags())
    assert made[-1].n_components is None


def _sniffs(path: Path, root: Path = SRC) -> list[str]:
    """``hasattr`` calls, and ``getattr`` calls with a default (a look for an optional attribute)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "hasattr" or (node.func.id == "getattr" and len(node.args) == 3):
                found.append(f"{path.relative_to(root)}:{node.lineno} {ast.unparse(node)}")
    return found


# what the remaining lookups are about: matplotlib's 3-D axes, a user's module and class by name
# (own_methods), and the result's own dataclass fields (results); none is an estimator
NOT_AN_ESTIMATOR = {"getattr(ax, 'set_zlabel', None)", "getattr(module, class_name, None)",
                    "getattr(cls, name, None)", "getattr(result, name, None)"}


def test_the_engine_and_the_protocols_sniff_no_estimator():
    found = [line for folder in ("engine", "protocols") for path in sorted((SRC / folder).rglob("*.py"))
             for line in _sniffs(path) if line.split(" ", 1)[1] not in NOT_AN_ESTIMATOR]
    assert found == []


def test_the_sniff_check_catches_a_sniff(tmp_path):
    module = tmp_path / "x.py"
    module.write_text("def f(estimator):\n    return hasattr(estimator, 'transform_first') or "
                      "getattr(estimator, 'subset_', None)\n")
    assert _sniffs(module, tmp_path) == ["x.py:2 hasattr(estimator, 'transform_first')",
                                         "x.py:2 getattr(estimator, 'subset_', None)"]


@pytest.mark.parametrize("name", ["lle", "slle"])
def test_supervised_lle_declares_its_training_subset(name):
    assert METHODS[name].tags.training_subset
