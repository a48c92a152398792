"""Config method names -> estimators, their hyper-parameters and their maximal dimension.

``METHODS[name]`` is a :class:`MethodSpec`; :func:`make_estimator` builds one estimator and
:func:`max_components` says how many projections a method can return.

``lle`` and ``slle`` are :class:`~locproj.methods.SupervisedLLE` (paper 004; ``lle`` with
``alpha = 0``), nonlinear embeddings with the out-of-sample map of 004 §2; ``sklearn_lle`` is
scikit-learn's :class:`~sklearn.manifold.LocallyLinearEmbedding` (standard, dense eigensolver),
drawn beside LEA in embedding figures.

``lpk`` and ``gpk`` (``lpk`` with one region) are :class:`~locproj.methods.LocalProjectionKernelSVC`
(paper 002): classifiers whose ``transform`` gives the gated projections, ``n_components`` being
the ``r`` of each local projection.

``PLANNED`` names documented placeholders, for which :func:`make_estimator` raises
``NotImplementedError`` naming the source; there are none at present.

A method entry of an experiment is either a built-in name (the entry's ``method`` key, else its
own name) or any scikit-learn-compatible estimator by import path (``estimator: "module:Class"``,
:mod:`locproj.own_methods`); :func:`method_spec` gives a :class:`MethodSpec` for both, so the
protocols have one path for every method.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from sklearn.base import BaseEstimator
from sklearn.decomposition import PCA
from sklearn.manifold import LocallyLinearEmbedding
from sklearn.preprocessing import FunctionTransformer

from .config import registry_method
from .methods import (
    Fisherfaces,
    KernelLPP,
    LocalFisherDiscriminantAnalysis,
    LocalLearningProjection,
    LocallyEmbeddedAnalysis,
    LocalProjectionKernelSVC,
    LocalityPreservingProjection,
    SupervisedLLE,
)
from .methods.linear import LeadingPCA

__all__ = ["MethodSpec", "METHODS", "PLANNED", "bound_reason", "estimator_factory", "make_estimator", "max_components",
           "method_spec"]


def _rank_bound(n_samples: int, n_classes: int, n_features: int) -> int:
    return max(min(n_samples - 1, n_features), 0)


def _lda_bound(n_samples: int, n_classes: int, n_features: int) -> int:
    pca = n_features - (n_classes - 1)   # Fisherfaces' PCA step; min(d, n - c) when d <= c - 1
    pca = pca if pca >= 1 else min(n_features, n_samples - n_classes)
    return max(min(n_classes - 1, n_samples - n_classes, pca), 0)


def _raw_bound(n_samples: int, n_classes: int, n_features: int) -> int:
    return n_features


@dataclass(frozen=True)
class MethodSpec:
    """A method as the experiment configuration sees it.

    Attributes
    ----------
    name : str
        Config name.
    factory : callable
        ``factory(**params)`` returns an unfitted estimator.
    params : tuple of str
        Hyper-parameter names accepted by ``factory`` (besides ``n_components``).
    supervised : bool
        Whether ``fit`` uses the labels (by default).
    bound : callable
        ``bound(n_samples, n_classes, n_features)``: most components available.
    ordered : bool
        Whether the first p columns of one fit are the p-dimensional projection, so that every p
        is read from one fit (every built-in method); otherwise p is the ``n_components`` it is
        fitted with.
    classifier : bool
        Whether it is a classifier with its own ``predict`` (LPK, GPK).
    source : dict, optional
        Where an estimator by import path comes from (:func:`locproj.own_methods.import_estimator`):
        recorded in every job's configuration.
    """

    name: str
    factory: Callable[..., BaseEstimator]
    params: tuple[str, ...]
    supervised: bool
    bound: Callable[[int, int, int], int]
    ordered: bool = True
    classifier: bool = False
    source: dict | None = None

    def make(self, **params) -> BaseEstimator:
        """Unfitted estimator with hyper-parameters ``params``; a ``ValueError`` names any it does not take."""
        if self.source is not None:      # by import path: exactly what its get_params() lists
            from .own_methods import check_params

            check_params(self.params, params, self.source["estimator"])
            return self.factory(**params)
        allowed = set(self.params) | ({"n_components"} if self.name != "raw" else set())
        unknown = set(params) - allowed
        if unknown:
            raise ValueError(f"method {self.name!r} does not take {sorted(unknown)}; it takes {sorted(allowed)}.")
        return self.factory(**params)

    def max_components(self, n_samples: int, n_classes: int, n_features: int) -> int:
        return self.bound(n_samples, n_classes, n_features)


_GRAPH = ("n_neighbors", "supervised", "column_scaling")


def _sklearn_lle(**params) -> LocallyLinearEmbedding:
    """scikit-learn's standard LLE with the dense eigensolver (deterministic), for comparison panels.

    Nonlinear: no ``components_``; ``transform`` maps novel points by their barycentric weights.
    """
    return LocallyLinearEmbedding(method="standard", eigen_solver="dense", **params)


def _pca(**params) -> PCA:
    """PCA by the full SVD: deterministic (scikit-learn's default is a randomised SVD when few
    components of a large matrix are asked for) and what the default already does for all of them."""
    return PCA(svd_solver="full", **params)


_LLE = ("n_neighbors", "reg", "retained_variance", "n_subset", "eigen_solver", "random_state")


_LPK = ("C", "kernel", "degree", "s", "max_iter", "tol", "random_state")


def _gpk(**params) -> LocalProjectionKernelSVC:
    """The global projection kernel: LPK with one region (paper 002 §2)."""
    return LocalProjectionKernelSVC(n_regions=1, **params)


def _lle(**params) -> SupervisedLLE:
    """LLE with out-of-sample mapping (paper 004 §2-3): SLLE without labels (alpha = 0)."""
    return SupervisedLLE(alpha=0.0, **params)


METHODS: dict[str, MethodSpec] = {
    spec.name: spec
    for spec in [
        MethodSpec("raw", lambda **kw: FunctionTransformer(**kw), (), False, _raw_bound),
        MethodSpec("pca", _pca, ("whiten",), False, _rank_bound),
        MethodSpec("lda", Fisherfaces, ("solver", "column_scaling"), True, _lda_bound),
        MethodSpec("lpp", LocalityPreservingProjection, _GRAPH + ("weight", "gamma"), True, _rank_bound),
        MethodSpec("klpp", KernelLPP, _GRAPH + ("kernel", "gamma", "degree", "coef0", "weight", "t"),
                   True, _rank_bound),
        MethodSpec("llp", LocalLearningProjection, _GRAPH + ("reg", "kernel", "gamma", "center"), True,
                   _rank_bound),
        MethodSpec("lea", LocallyEmbeddedAnalysis,
                   _GRAPH + ("reg", "reg_mode", "retained_variance", "mode"), True, _rank_bound),
        MethodSpec("lfda", LocalFisherDiscriminantAnalysis, ("n_neighbors", "column_scaling"), True,
                   _rank_bound),
        MethodSpec("sklearn_lle", _sklearn_lle, ("n_neighbors", "reg"), False, _rank_bound),
        MethodSpec("lle", _lle, _LLE, False, _rank_bound),
        MethodSpec("slle", SupervisedLLE, _LLE + ("alpha",), True, _rank_bound),
        # classifiers that also transform (paper 002): n_components is r, at most d
        MethodSpec("lpk", LocalProjectionKernelSVC, ("n_regions",) + _LPK, True, _raw_bound, classifier=True),
        MethodSpec("gpk", _gpk, _LPK, True, _raw_bound, classifier=True),
    ]
}

PLANNED: dict[str, str] = {}


def _spec(name: str) -> MethodSpec:
    if name in METHODS:
        return METHODS[name]
    if name in PLANNED:
        raise NotImplementedError(f"method {name!r} is planned but not implemented yet: {PLANNED[name]}.")
    raise ValueError(f"unknown method {name!r}; known: {sorted(METHODS)} (planned: {sorted(PLANNED)}).")


def make_estimator(name: str, **params) -> BaseEstimator:
    """Unfitted estimator for config method ``name`` with hyper-parameters ``params``
    (``n_components`` allowed except for ``raw``)."""
    return _spec(name).make(**params)


def method_spec(entry_name: str, entry: dict | None, search=(), source: dict | None = None) -> MethodSpec:
    """The :class:`MethodSpec` of an experiment's method entry: a built-in method (the entry's
    ``method`` key, else its name), or the estimator of its ``estimator`` import path, looked for in
    the folders ``search`` or, inside a job, at ``source["file"]`` (the job's ``estimator_source``).

    Keys of an entry by import path (the defaults in brackets): ``supervised`` [true: ``fit``
    gets the labels], ``ordered`` [false: p is the ``n_components`` of the grid], ``max_components``
    [min(n - 1, d)] and ``classifier`` [scikit-learn's ``is_classifier``]. Errors name the entry:
    a name that is a built-in method, a module or class that does not exist, a class that is no
    transformer."""
    from sklearn.base import is_classifier

    from .own_methods import MethodImportError, check_estimator_class, import_estimator, without_labels

    entry = entry or {}
    if "estimator" not in entry:
        return _spec(registry_method(entry_name, entry))
    if entry_name in METHODS:
        raise MethodImportError(f"{entry_name!r} is the name of a built-in method; give the entry of "
                                f"{entry['estimator']} another name")
    if source is not None and "file" in source:
        search = [str(Path(source["file"]).parent)]
    cls, found = import_estimator(entry["estimator"], search)
    classifier = entry.get("classifier", is_classifier(cls()))
    check_estimator_class(cls, entry["estimator"], needs_predict=classifier)
    cap = entry.get("max_components")

    def bound(n_samples: int, n_classes: int, n_features: int) -> int:
        rank = _rank_bound(n_samples, n_classes, n_features)
        return rank if cap is None else min(cap, rank)

    supervised = entry.get("supervised", True)
    return MethodSpec(entry_name, cls if supervised else without_labels(cls), tuple(cls().get_params()), supervised,
                      bound, ordered=entry.get("ordered", False), classifier=classifier, source=found)


def estimator_factory(spec: MethodSpec | str, fixed: dict, pca_first: int | None = None):
    """``new_estimator(params)``: the method ``spec`` (or a built-in's name) with ``fixed`` and then
    ``params`` (the one factory every protocol hands its jobs: a grid point's or a swept
    dimension's parameters); with ``pca_first``, after a PCA to that many dimensions (fewer where the
    training data have fewer; :class:`~locproj.methods.linear.LeadingPCA`) fitted on the same
    training data (a method entry's ``pca_first``: what makes a costly method finish)."""
    from sklearn.pipeline import Pipeline

    spec = _spec(spec) if isinstance(spec, str) else spec

    def new_estimator(params):
        estimator = spec.make(**{**fixed, **params})
        return estimator if not pca_first else Pipeline([("pca", LeadingPCA(n_components=pca_first)),
                                                          ("method", estimator)])
    return new_estimator


def bound_reason(name: str) -> str:
    """Why the built-in method ``name`` has no more projections, for the legend entry of a curve
    that ends early (:func:`locproj.reporting.stopped_label`): ``c − 1`` for LDA, else the rank."""
    spec = METHODS.get(name)
    return "c − 1" if spec is not None and spec.bound is _lda_bound else "rank of the training data"


def max_components(name: str, n_samples: int, n_classes: int, n_features: int) -> int:
    """Most projections ``name`` can return: ``c - 1`` (and ``n - c``, ``d - c + 1``) for LDA, the rank bound
    ``min(n - 1, d)`` for the others, ``d`` for ``raw``."""
    return _spec(name).max_components(n_samples, n_classes, n_features)
