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

A built-in method is one entry of :data:`METHODS`: its estimator class, the parameters its config
name fixes, its bound, whether it uses the labels, projects (``raw`` does not), orders its columns
or classifies, and what each of its neighbour parameters counts (:mod:`locproj.engine.neighbor_counts`),
declared per entry (``lle`` and ``slle`` share a class). The engine and the protocols ask the entry
what a method is, never its name. The hyper-parameters it takes are the class's ``get_params()``
(besides ``n_components``) less the fixed ones, so a new method is its module plus that one entry;
``tools/method_docs.py`` then writes the docs' tables from :data:`METHODS`.

A method entry of an experiment is either a built-in name (the entry's ``method`` key, else its
own name) or any scikit-learn-compatible estimator by import path (``estimator: "module:Class"``,
:mod:`locproj.engine.own_methods`); :func:`method_spec` gives a :class:`MethodSpec` for both, so the
protocols have one path for every method.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable

from sklearn.base import BaseEstimator
from sklearn.decomposition import PCA
from sklearn.manifold import LocallyLinearEmbedding
from sklearn.preprocessing import FunctionTransformer

from .config import RAW_METHOD, registry_method
from ..methods import (
    Fisherfaces,
    IsometricProjection,
    KernelLPP,
    LocalFisherDiscriminantAnalysis,
    LocalLearningProjection,
    LocallyEmbeddedAnalysis,
    LocalProjectionKernelSVC,
    LocalityPreservingProjection,
    LocalitySensitiveDiscriminantAnalysis,
    MarginalFisherAnalysis,
    OrthogonalLPP,
    SpectralRegressionDiscriminantAnalysis,
    SupervisedLLE,
)
from ..methods.tags import DECLARABLE, ProjectionTags, projection_tags, wrapped
from ..methods.linear import LeadingPCA
from .neighbor_counts import (
    ALL_POINTS,
    BETWEEN_CLASS_PAIRS,
    WITHIN_CLASS,
    WITHIN_CLASS_IF_SUPERVISED,
    NeighborRule,
    check_declaration,
)

__all__ = ["MethodSpec", "METHODS", "bound_reason", "end_reason", "entry_projects", "estimator_factory",
           "factory_tags", "make_estimator", "max_components", "method_spec"]

# Each bound's docstring is how the table of the registry (docs/methods.md) states it.


def _rank_bound(n_samples: int, n_classes: int, n_features: int) -> int:
    """min(n − 1, d)"""
    return max(min(n_samples - 1, n_features), 0)


def _lda_bound(n_samples: int, n_classes: int, n_features: int) -> int:
    """min(c − 1, n − c, d − c + 1)"""
    pca = n_features - (n_classes - 1)   # Fisherfaces' PCA step; min(d, n - c) when d <= c - 1
    pca = pca if pca >= 1 else min(n_features, n_samples - n_classes)
    return max(min(n_classes - 1, n_samples - n_classes, pca), 0)


def _class_bound(n_samples: int, n_classes: int, n_features: int) -> int:
    """min(c − 1, n − 1)"""
    return max(min(n_classes - 1, n_samples - 1), 0)


def _raw_bound(n_samples: int, n_classes: int, n_features: int) -> int:
    """d"""
    return n_features


@dataclass(frozen=True)
class MethodSpec:
    """A method as the experiment configuration sees it.

    Each parameter is also an attribute of the same name.

    Parameters
    ----------
    name : str
        Config name.
    factory : callable
        ``factory(**params)`` returns an unfitted estimator.
    params : tuple of str
        Hyper-parameter names accepted by ``factory`` (besides ``n_components``): for a built-in
        method, its class's ``get_params()`` less the parameters its config name fixes
        (:func:`_builtin`); a method that takes ``random_state`` is handed a seed by the protocols
        that draw one (``train_test_curve``).
    supervised : bool
        Whether ``fit`` uses the labels (by default).
    bound : callable
        ``bound(n_samples, n_classes, n_features)``: most components available.
    ordered : bool, default=True
        Whether the first p columns of one fit are the p-dimensional projection, so that every p
        is read from one fit (every built-in method but SRDA); otherwise p is the ``n_components``
        it is fitted with.
    classifier : bool, default=False
        Whether it is a classifier with its own ``predict`` (LPK, GPK).
    projects : bool
        Whether it maps the data to new features (every method but ``raw``). One that does not is
        the classifier on the input itself: no ``n_components``, no cross-validation, one
        evaluation on every feature (a flat line in the curves).
    source : dict, optional
        Where an estimator by import path comes from (:func:`locproj.engine.own_methods.import_estimator`):
        recorded in every job's configuration.
    neighbors : dict, optional
        What each of its neighbour parameters counts, ``{parameter: kind}``
        (:mod:`locproj.engine.neighbor_counts`); a parameter it does not name is not a neighbour count.
    defaults : dict, optional
        The parameters of the estimator ``factory()`` builds (what a fit uses where neither a grid
        point nor the entry's ``fixed`` sets a parameter).
    tags : ProjectionTags, optional
        What the estimators ``factory`` builds can do (:class:`~locproj.methods.tags.ProjectionTags`):
        their dimension parameter, nested fits, first columns, a training subset, a linear map,
        local regions. A locproj estimator declares them in its scikit-learn tags.
    module : str, default=""
        The module of its estimator class (its code, for a job's code digest:
        :mod:`locproj.engine.code_digests`).
    memory : dict, optional
        An estimator by import path: its entry's ``memory`` (``{"dense_n_by_n": k}``, ``k`` float64
        ``n x n`` arrays at the peak of a fit), for :meth:`check_memory`.
    """

    name: str
    factory: Callable[..., BaseEstimator]
    params: tuple[str, ...]
    supervised: bool
    bound: Callable[[int, int, int], int]
    ordered: bool = True
    classifier: bool = False
    projects: bool = True
    source: dict | None = None
    neighbors: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, object] = field(default_factory=dict)
    tags: ProjectionTags = field(default_factory=ProjectionTags)
    module: str = ""
    memory: Mapping | None = None

    def make(self, **params) -> BaseEstimator:
        """Build an unfitted estimator with hyper-parameters ``params``.

        Parameters
        ----------
        **params
            The hyper-parameters; a ``ValueError`` names any it does not take.

        Returns
        -------
        estimator : BaseEstimator
            The estimator ``factory(**params)`` builds.
        """
        if self.source is not None:      # by import path: exactly what its get_params() lists
            from .own_methods import check_params

            check_params(self.params, params, self.source["estimator"])
            return self.factory(**params)
        allowed = set(self.params) | ({"n_components"} if self.projects else set())
        unknown = set(params) - allowed
        if unknown:
            raise ValueError(f"method {self.name!r} does not take {sorted(unknown)}; it takes {sorted(allowed)}.")
        return self.factory(**params)

    def max_components(self, n_samples: int, n_classes: int, n_features: int) -> int:
        """Return the most components the method gives on such data (``bound``).

        Parameters
        ----------
        n_samples : int
            The number of training samples.
        n_classes : int
            The number of classes.
        n_features : int
            The number of features.

        Returns
        -------
        int
            The most components available.
        """
        return self.bound(n_samples, n_classes, n_features)

    def peak_memory_bytes(self, fixed: Mapping, n_samples: int, n_features: int, y=None) -> float | None:
        """Estimate the peak memory of a fit beyond the data.

        The estimate is the one a locproj estimator makes (:func:`locproj.methods.fit_memory`) or the entry's
        ``memory``.

        Parameters
        ----------
        fixed : mapping
            The parameters of the fit.
        n_samples : int
            The number of training samples.
        n_features : int
            The number of features.
        y : array-like of shape (n_samples,), optional
            The training labels.

        Returns
        -------
        float or None
            The bytes; None for a method that declares no estimate.
        """
        from ..core.memory import dense_square_bytes
        from ..methods import fit_memory

        if self.source is not None:
            return dense_square_bytes(n_samples, self.memory["dense_n_by_n"]) if self.memory else None
        estimate = fit_memory(self.make(**fixed), n_samples, n_features, y)
        return None if estimate is None else estimate[0]

    def check_memory(self, fixed: Mapping, n_samples: int, n_features: int, y=None) -> None:
        """Refuse a fit that would need more memory than is available (:meth:`peak_memory_bytes`).

        The refusal is a :class:`~locproj.core.memory.NotEnoughMemoryError`.

        Parameters
        ----------
        fixed : mapping
            The parameters of the fit.
        n_samples : int
            The number of training samples.
        n_features : int
            The number of features.
        y : array-like of shape (n_samples,), optional
            The training labels.
        """
        from ..core.memory import check_memory
        from ..methods import fit_memory

        if self.source is not None:
            need = self.peak_memory_bytes(fixed, n_samples, n_features, y)
            if need is not None:
                arrays = self.memory["dense_n_by_n"]
                check_memory(need, n=n_samples, what=f"method {self.name!r} ({self.source['estimator']}, its "
                                                     f"config's memory: {arrays} dense n x n arrays)")
            return
        estimator = self.make(**fixed)
        estimate = fit_memory(estimator, n_samples, n_features, y)
        if estimate is not None:
            need, ways_out = estimate
            check_memory(need, n=n_samples, what=f"method {self.name!r} ({type(estimator).__name__})",
                         ways_out=ways_out)

    def neighbor_rule(self, fixed: Mapping | None = None) -> NeighborRule:
        """Return its neighbour declaration with the values a fit uses where a grid point sets none.

        Parameters
        ----------
        fixed : mapping, optional
            The entry's ``fixed`` parameters, which take precedence over the estimator's defaults.

        Returns
        -------
        NeighborRule
            The declaration (``neighbors``) and those values.
        """
        values = {**self.defaults, **(fixed or {})}
        names = [*self.neighbors, "supervised"]
        return NeighborRule(kinds=self.neighbors, defaults={name: values[name] for name in names if name in values})


def _builtin(name: str, cls: type, supervised: bool, bound: Callable[[int, int, int], int], fixed: dict | None = None,
             classifier: bool = False, ordered: bool = True, neighbors: dict | None = None,
             tags: ProjectionTags | None = None) -> MethodSpec:
    """The built-in method ``name``: ``cls`` with the parameters ``fixed`` (those its config name
    fixes), taking every other parameter of ``cls().get_params()``; ``neighbors``: what each of its
    neighbour parameters counts; ``tags``: what it can do, for a class that does not declare it."""
    fixed = fixed or {}
    example = cls(**fixed)
    defaults = example.get_params()
    params = tuple(key for key in defaults if key != "n_components" and key not in fixed)
    return MethodSpec(name, partial(cls, **fixed) if fixed else cls, params, supervised, bound, ordered=ordered,
                      classifier=classifier, neighbors=check_declaration(neighbors, params, f"method {name!r}"),
                      defaults=defaults, tags=tags or projection_tags(example), module=cls.__module__)


_CLASS_GRAPH = {"n_neighbors": WITHIN_CLASS_IF_SUPERVISED}   # a kNN graph within classes when supervised


# pca: the full SVD, deterministic (scikit-learn's default is a randomised SVD when few components of
# a large matrix are asked for) and what the default already does for all of them. sklearn_lle:
# scikit-learn's standard LLE with the dense eigensolver (deterministic), for comparison panels;
# nonlinear (no components_; transform maps novel points by their barycentric weights). Neither uses
# a random_state with these solvers: it is fixed to its default, so no protocol hands them a seed.
# lle: LLE with out-of-sample mapping (paper 004 §2-3), SLLE without labels. gpk: the global
# projection kernel, LPK with one region (paper 002 §2). lpk and gpk are classifiers that also
# transform: n_components is r, at most d.
METHODS: dict[str, MethodSpec] = {
    spec.name: spec
    for spec in [
        # the input itself: no parameter at all
        MethodSpec(RAW_METHOD, FunctionTransformer, (), False, _raw_bound, projects=False,
                   tags=ProjectionTags(dimension=None)),
        _builtin("pca", PCA, False, _rank_bound, {"svd_solver": "full", "random_state": None},
                 tags=ProjectionTags(linear_map=True)),
        _builtin("lda", Fisherfaces, True, _lda_bound),
        _builtin("lpp", LocalityPreservingProjection, True, _rank_bound, neighbors=_CLASS_GRAPH),
        _builtin("klpp", KernelLPP, True, _rank_bound, neighbors=_CLASS_GRAPH),
        _builtin("llp", LocalLearningProjection, True, _rank_bound, neighbors=_CLASS_GRAPH),
        _builtin("lea", LocallyEmbeddedAnalysis, True, _rank_bound, neighbors=_CLASS_GRAPH),
        # the k-th neighbour within the class sets each point's local scaling
        _builtin("lfda", LocalFisherDiscriminantAnalysis, True, _rank_bound, neighbors={"n_neighbors": WITHIN_CLASS}),
        _builtin("sklearn_lle", LocallyLinearEmbedding, False, _rank_bound,
                 {"method": "standard", "eigen_solver": "dense", "random_state": None},
                 neighbors={"n_neighbors": ALL_POINTS}),
        _builtin("lle", SupervisedLLE, False, _rank_bound, {"alpha": 0.0}, neighbors={"n_neighbors": ALL_POINTS}),
        # SLLE's neighbours come from the point's class (004 §4; alpha < 1 lets others in at a distance)
        _builtin("slle", SupervisedLLE, True, _rank_bound, neighbors={"n_neighbors": WITHIN_CLASS}),
        _builtin("lpk", LocalProjectionKernelSVC, True, _raw_bound, classifier=True),
        _builtin("gpk", LocalProjectionKernelSVC, True, _raw_bound, {"n_regions": 1}, classifier=True),
        # the rest of the graph-embedding family (Cai's toolbox, Yan et al.'s MFA) and SRDA, whose c - 1
        # columns follow the order of the class labels (Gram-Schmidt), so that no prefix of them is the
        # best p-dimensional projection: its p is its n_components (c - 1 by default)
        # LSDA's k counts among all points (its graph is split by class afterwards; 0 links every pair)
        _builtin("lsda", LocalitySensitiveDiscriminantAnalysis, True, _rank_bound,
                 neighbors={"n_neighbors": ALL_POINTS}),
        _builtin("olpp", OrthogonalLPP, True, _rank_bound, neighbors=_CLASS_GRAPH),
        _builtin("mfa", MarginalFisherAnalysis, True, _rank_bound,
                 neighbors={"n_neighbors": WITHIN_CLASS, "n_penalty_pairs": BETWEEN_CLASS_PAIRS}),
        _builtin("isop", IsometricProjection, False, _rank_bound, neighbors=_CLASS_GRAPH),
        _builtin("srda", SpectralRegressionDiscriminantAnalysis, True, _class_bound, ordered=False),
    ]
}


def _spec(name: str) -> MethodSpec:
    if name in METHODS:
        return METHODS[name]
    raise ValueError(f"unknown method {name!r}; known: {sorted(METHODS)}.")


def entry_projects(entry_name: str, entry: dict | None) -> bool:
    """Tell whether a method entry maps the data to new features (:attr:`MethodSpec.projects`).

    An entry by import path does; a built-in method as its registry entry declares, whatever the
    entry's name. Nothing is imported.

    Parameters
    ----------
    entry_name : str
        The entry's name in the experiment's ``methods``.
    entry : dict or None
        The entry (its ``method`` names the built-in method; ``estimator`` an import path).

    Returns
    -------
    bool
        Whether it projects (false for ``raw`` and any entry aliasing it).
    """
    entry = entry or {}
    return "estimator" in entry or _spec(registry_method(entry_name, entry)).projects


def make_estimator(name: str, **params) -> BaseEstimator:
    """Build an unfitted estimator for config method ``name``.

    Parameters
    ----------
    name : str
        A built-in method's config name (a key of :data:`METHODS`).
    **params
        Its hyper-parameters (``n_components`` allowed where it projects: not for ``raw``).

    Returns
    -------
    estimator : BaseEstimator
        The estimator.
    """
    return _spec(name).make(**params)


def method_spec(entry_name: str, entry: dict | None, search=(), source: dict | None = None) -> MethodSpec:
    """Return the :class:`MethodSpec` of an experiment's method entry.

    The entry is a built-in method (the entry's ``method`` key, else its name), or the estimator of
    its ``estimator`` import path, looked for in the folders ``search`` or, inside a job, at
    ``source["file"]`` (the job's ``estimator_source``).

    Keys of an entry by import path (the defaults in brackets): ``supervised`` [true: ``fit``
    gets the labels], ``ordered`` [false: p is the ``n_components`` of the grid], ``max_components``
    [min(n - 1, d)], ``classifier`` [scikit-learn's ``is_classifier``], ``neighbours`` [none:
    what each neighbour parameter counts, :mod:`locproj.engine.neighbor_counts`] and the
    :class:`~locproj.methods.tags.ProjectionTags` ``dimension``, ``first_columns``, ``nested_fit``,
    ``training_subset``, ``linear_map``, ``local_regions`` [those the class declares in its
    scikit-learn tags; else ``n_components`` if it takes it, and nothing else]. Errors name the entry:
    a name that is a built-in method, a module or class that does not exist, a class that is no
    transformer.

    Parameters
    ----------
    entry_name : str
        The entry's name.
    entry : dict or None
        The entry.
    search : sequence of str, default=()
        Folders to look for an estimator's module in.
    source : dict, optional
        Inside a job, where its estimator was found (``file``, ``search``).

    Returns
    -------
    MethodSpec
        The method.
    """
    from sklearn.base import is_classifier

    from .own_methods import MethodImportError, check_estimator_class, import_estimator, without_labels

    entry = entry or {}
    if "estimator" not in entry:
        return _spec(registry_method(entry_name, entry))
    if entry_name in METHODS:
        raise MethodImportError(f"{entry_name!r} is the name of a built-in method; give the entry of "
                                f"{entry['estimator']} another name")
    if source is not None and "file" in source:
        search = source.get("search") or [str(Path(source["file"]).parent)]
    cls, found = import_estimator(entry["estimator"], search)
    classifier = entry.get("classifier", is_classifier(cls()))
    check_estimator_class(cls, entry["estimator"], needs_predict=classifier)
    cap = entry.get("max_components")

    def bound(n_samples: int, n_classes: int, n_features: int) -> int:
        rank = _rank_bound(n_samples, n_classes, n_features)
        return rank if cap is None else min(cap, rank)

    supervised = entry.get("supervised", True)
    defaults = cls().get_params()
    neighbors = check_declaration(entry.get("neighbours"), defaults, f"method {entry_name!r}")
    tags = projection_tags(cls(), **{name: entry[name] for name in DECLARABLE if name in entry})
    return MethodSpec(entry_name, cls if supervised else without_labels(cls), tuple(defaults), supervised,
                      bound, ordered=entry.get("ordered", False), classifier=classifier, source=found,
                      neighbors=neighbors, defaults=defaults, tags=tags if supervised else wrapped(tags, "estimator"),
                      module=cls.__module__, memory=entry.get("memory"))


def estimator_factory(spec: MethodSpec | str, fixed: dict, pca_first: int | None = None):
    """Return ``new_estimator(params)``, the one factory every protocol hands its jobs.

    Parameters
    ----------
    spec : MethodSpec or str
        The method, or a built-in's name.
    fixed : dict
        The parameters the entry fixes; ``params`` override them.
    pca_first : int, optional
        A method entry's ``pca_first`` (what makes a costly method finish): the method runs after a
        PCA to that many dimensions (fewer where the training data have fewer;
        :class:`~locproj.methods.linear.LeadingPCA`) fitted on the same training data.

    Returns
    -------
    callable
        ``new_estimator(params)``: the method with ``fixed`` and then ``params`` (a grid point's or a
        swept dimension's parameters), after the PCA when ``pca_first`` is given.
    """
    from sklearn.pipeline import Pipeline

    spec = _spec(spec) if isinstance(spec, str) else spec

    def new_estimator(params):
        estimator = spec.make(**{**fixed, **params})
        return estimator if not pca_first else Pipeline([("pca", LeadingPCA(n_components=pca_first)),
                                                          ("method", estimator)])
    return new_estimator


def factory_tags(spec: MethodSpec, pca_first: int | None = None) -> ProjectionTags:
    """Return the tags of the estimators :func:`estimator_factory` builds.

    Parameters
    ----------
    spec : MethodSpec
        The method.
    pca_first : int, optional
        The ``pca_first`` given to :func:`estimator_factory`.

    Returns
    -------
    ProjectionTags
        The method's own tags, or, after a ``pca_first`` step, those of the pipeline whose
        ``method`` step it is.
    """
    return wrapped(spec.tags, "method") if pca_first else spec.tags


def bound_reason(name: str) -> str:
    """Say why the built-in method ``name`` has no more projections.

    For the legend entry of a curve that ends early (:func:`locproj.report.writers.stopped_label`).

    Parameters
    ----------
    name : str
        The method's config name.

    Returns
    -------
    str
        ``c − 1`` for LDA (and SRDA), else the rank of the training data.
    """
    spec = METHODS.get(name)
    return "c − 1" if spec is not None and spec.bound in (_lda_bound, _class_bound) else "rank of the training data"


def end_reason(entry_name: str, entry: dict | None, last: list[int], skipped: str | None = None) -> str:
    """Say why a method entry's curve ends at ``last``.

    Parameters
    ----------
    entry_name : str
        The entry's name.
    entry : dict or None
        The entry.
    last : list of int
        Its last p, one per panel.
    skipped : str, optional
        The grid values its CV could not fit, said as
        :func:`locproj.report.error_tables.skipped_values` says it.

    Returns
    -------
    str
        ``skipped`` when given, its largest ``n_components``, or what bounds a built-in method
        (:func:`bound_reason`).
    """
    entry = entry or {}
    if skipped:
        return skipped
    asked = [(entry.get("fixed") or {}).get("n_components"), *(entry.get("grid") or {}).get("n_components", [])]
    largest = max((n for n in asked if isinstance(n, int) and not isinstance(n, bool)), default=None)
    if list(last) == [largest]:
        return f"its largest n_components, {largest}"
    if "estimator" in entry:
        return "the columns it returned"
    return bound_reason(registry_method(entry_name, entry))


def max_components(name: str, n_samples: int, n_classes: int, n_features: int) -> int:
    """Return the most projections the built-in method ``name`` can return.

    Parameters
    ----------
    name : str
        The method's config name.
    n_samples : int
        The number of training samples ``n``.
    n_classes : int
        The number of classes ``c``.
    n_features : int
        The number of features ``d``.

    Returns
    -------
    int
        ``c - 1`` (and ``n - c``, ``d - c + 1``) for LDA, ``c - 1`` (and ``n - 1``) for SRDA, ``d``
        for ``raw``, LPK and GPK, the rank bound ``min(n - 1, d)`` for the others.
    """
    return _spec(name).max_components(n_samples, n_classes, n_features)
