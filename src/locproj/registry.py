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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from sklearn.base import BaseEstimator
from sklearn.decomposition import PCA
from sklearn.manifold import LocallyLinearEmbedding
from sklearn.preprocessing import FunctionTransformer

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

__all__ = ["MethodSpec", "METHODS", "PLANNED", "estimator_factory", "make_estimator", "max_components"]


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
    """

    name: str
    factory: Callable[..., BaseEstimator]
    params: tuple[str, ...]
    supervised: bool
    bound: Callable[[int, int, int], int]


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
        MethodSpec("lpk", LocalProjectionKernelSVC, ("n_regions",) + _LPK, True, _raw_bound),
        MethodSpec("gpk", _gpk, _LPK, True, _raw_bound),
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
    spec = _spec(name)
    allowed = set(spec.params) | ({"n_components"} if name != "raw" else set())
    unknown = set(params) - allowed
    if unknown:
        raise ValueError(f"method {name!r} does not take {sorted(unknown)}; it takes {sorted(allowed)}.")
    return spec.factory(**params)


def estimator_factory(name: str, fixed: dict):
    """``new_estimator(params)``: :func:`make_estimator` of ``name`` with ``fixed`` and then ``params``
    (the one factory every protocol hands its jobs: a grid point's or a swept dimension's parameters)."""
    def new_estimator(params):
        return make_estimator(name, **{**fixed, **params})
    return new_estimator


def max_components(name: str, n_samples: int, n_classes: int, n_features: int) -> int:
    """Most projections ``name`` can return: ``c - 1`` (and ``n - c``, ``d - c + 1``) for LDA, the rank bound
    ``min(n - 1, d)`` for the others, ``d`` for ``raw``."""
    return _spec(name).bound(n_samples, n_classes, n_features)
