"""What a projection can do, declared: the scikit-learn transformer tags that the engine and the
protocols read instead of looking for attributes.

A locproj estimator declares them in ``__sklearn_tags__`` (``tags.transformer_tags`` is a
:class:`ProjectionTags`); the method registry declares them for scikit-learn's estimators, and a
method entry by import path in its config (``docs/own-method.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from sklearn.utils import TransformerTags, get_tags



@dataclass
class ProjectionTags(TransformerTags):
    """Transformer tags of a projection.

    Each tag is also an attribute of the same name.

    Parameters
    ----------
    preserves_dtype : list of str, default=["float64"]
        Scikit-learn's tag (:class:`sklearn.utils.TransformerTags`): the data types that
        ``transform`` preserves.
    dimension : str or None, default="n_components"
        The constructor parameter that sets the number of output columns (``n_components``);
        None for a method without one.
    first_columns : bool, default=False
        ``transform_first(X, p)`` computes only the first ``p`` columns of ``transform(X)``.
    nested_fit : bool, default=False
        Fitted with ``dimension = p``, its columns are the first ``p`` of a fit with all of them, so
        that a fit asked for fewer computes fewer (the graph-embedding family).
    training_subset : bool, default=False
        ``fit`` embeds a subset of the training samples, ``subset_`` (indices), on which the
        classifiers are trained (supervised LLE's subset selection).
    linear_map : bool, default=False
        ``transform(X) = (X - mean_) @ components_.T``: a basis in the input space can be drawn.
    local_regions : bool, default=False
        A gating function over the input space and one projection per region: ``gating_function``
        and ``projections_`` (the local projection kernels).
    cluster_ends : bool, default=False
        Fitted, it has ``cluster_ends_``: the ``p`` at which its first ``p`` columns end a cluster
        of equal eigenvalues.  At any other ``p`` they cut inside one, where rounding or an
        arbitrary rule would choose the columns, so model selection does not offer it (supervised
        LLE).
    """

    dimension: str | None = "n_components"
    first_columns: bool = False
    nested_fit: bool = False
    training_subset: bool = False
    linear_map: bool = False
    local_regions: bool = False
    cluster_ends: bool = False


#: The names a method entry by import path may declare (``docs/own-method.md``).
DECLARABLE = tuple(field.name for field in fields(ProjectionTags) if field.name != "preserves_dtype")


def projection_tags(estimator, **declared) -> ProjectionTags:
    """Return the :class:`ProjectionTags` of ``estimator``, with ``declared`` on top.

    Parameters
    ----------
    estimator : estimator instance
        Any scikit-learn estimator.
    **declared
        Tags that replace the estimator's (the names of :class:`ProjectionTags`).

    Returns
    -------
    ProjectionTags
        The tags the estimator declares, else the defaults (an ``n_components`` parameter if it
        takes one, nothing else), with ``declared`` on top.
    """
    tags = get_tags(estimator).transformer_tags
    if not isinstance(tags, ProjectionTags):
        params = estimator.get_params()
        tags = ProjectionTags(dimension="n_components" if "n_components" in params else None)
    return replace(tags, **declared)


def declare(tags, **declared):
    """Add ``declared`` to the projection tags of ``tags``: what ``__sklearn_tags__`` returns.

    Parameters
    ----------
    tags : sklearn.utils.Tags
        An estimator's scikit-learn tags, as its base classes declared them; changed in place.
    **declared
        Projection tags (the names of :class:`ProjectionTags`), on top of those its base classes
        declared.

    Returns
    -------
    sklearn.utils.Tags
        ``tags``, its ``transformer_tags`` a :class:`ProjectionTags`.
    """
    old = tags.transformer_tags or TransformerTags()
    inherited = {f.name: getattr(old, f.name) for f in fields(old)}
    tags.transformer_tags = ProjectionTags(**{**inherited, **declared})
    return tags


def wrapped(tags: ProjectionTags, step: str) -> ProjectionTags:
    """Return the tags of a wrapper (a pipeline or a meta-estimator) whose step ``step`` is the method.

    Parameters
    ----------
    tags : ProjectionTags
        The method's tags.
    step : str
        The name of the method's step in the wrapper.

    Returns
    -------
    ProjectionTags
        The wrapper's tags: its dimension parameter is the step's, reached as
        ``step__<parameter>``; it declares nothing else.
    """
    dimension = None if tags.dimension is None else f"{step}__{tags.dimension}"
    return ProjectionTags(dimension=dimension)
