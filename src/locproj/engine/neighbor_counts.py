"""What a method's neighbour parameters count, and the limits cross-validation draws from it.

Every method declares, for each hyper-parameter that counts neighbours, what it counts (the
registry entry of a built-in method, :data:`locproj.engine.registry.METHODS`; the ``neighbours`` key of
a method entry by import path):

``within_class``
    neighbours of a point among the other samples of its class (LPP's supervised graph, LEA, LLP,
    SLLE, LFDA's local scaling, MFA's ``k1``, OLPP, supervised isometric projection).  A grid keeps
    only its values below ``m``, the training samples per class (paper 000, footnote 7), and every
    fit caps the value at its smallest class's size minus one.
``within_class_if_supervised``
    ``within_class`` when the method's ``supervised`` parameter is true, else ``all_points``.
``all_points``
    neighbours among all training points, labels ignored (LSDA's ``k``, every unsupervised graph,
    scikit-learn's Isomap).  No grid filter; every fit caps the value at its samples minus one.
``between_class_pairs``
    pairs of a point of a class and a point outside it (MFA's ``k2``): every fit caps the value at
    the fewest such pairs of a class, ``min_c n_c (n - n_c)``.

A parameter no declaration names is neither filtered nor capped.  The cap applies to the value a
fit uses, whether a grid point, the entry's ``fixed`` parameters or the estimator's default sets
it (so ``lpp: {}`` with three folds of five images per class fits with ``n_neighbors = 2``); every
cap is recorded (:class:`locproj.engine.selection.CVResult`).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

__all__ = ["ALL_POINTS", "BETWEEN_CLASS_PAIRS", "KINDS", "NeighborRule", "WITHIN_CLASS",
           "WITHIN_CLASS_IF_SUPERVISED", "check_declaration", "fit_limit"]

WITHIN_CLASS = "within_class"
WITHIN_CLASS_IF_SUPERVISED = "within_class_if_supervised"
ALL_POINTS = "all_points"
BETWEEN_CLASS_PAIRS = "between_class_pairs"

#: What each kind counts, in the words of the methods table (docs/methods.md).
KINDS = {
    WITHIN_CLASS: "neighbours within the class (grid values < m; capped at the smallest class - 1)",
    WITHIN_CLASS_IF_SUPERVISED: "neighbours within the class when supervised, else among all points",
    ALL_POINTS: "neighbours among all points (capped at n - 1)",
    BETWEEN_CLASS_PAIRS: "between-class pairs of each class (capped at min_c n_c (n - n_c))",
}


def check_declaration(declared: Mapping | None, parameters, where: str) -> dict[str, str]:
    """``declared`` (parameter -> kind) as a plain dict, or a ``ValueError`` naming ``where`` for an
    unknown kind or a parameter not among ``parameters`` (the estimator's)."""
    declared = dict(declared or {})
    for name, kind in declared.items():
        if kind not in KINDS:
            raise ValueError(f"{where}: neighbours: {name!r} counts {kind!r}, which is not one of {sorted(KINDS)}")
        if name not in parameters:
            raise ValueError(f"{where}: neighbours names {name!r}, which is not a parameter of the estimator "
                             f"(it takes {sorted(parameters)})")
    return declared


def fit_limit(kind: str, y) -> int:
    """The largest value a parameter of ``kind`` can take in a fit on labels ``y``."""
    counts = np.unique(np.asarray(y), return_counts=True)[1]
    if kind == WITHIN_CLASS:
        return int(counts.min()) - 1
    if kind == ALL_POINTS:
        return len(y) - 1
    if kind == BETWEEN_CLASS_PAIRS:
        return int(np.min(counts * (len(y) - counts)))
    raise ValueError(f"no fit limit for neighbour kind {kind!r}")


def _is_count(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


@dataclass(frozen=True)
class NeighborRule:
    """A method's neighbour declaration (``kinds``: parameter -> kind) with the values its fits use
    when a grid point does not set them (``defaults``: the entry's ``fixed`` parameters over the
    estimator's defaults, for the declared parameters and ``supervised``).  The empty rule filters
    and caps nothing."""

    kinds: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, object] = field(default_factory=dict)

    def kind(self, name: str, point: Mapping | None = None) -> str | None:
        """What ``name`` counts at grid point ``point`` (its ``supervised`` decides the conditional kind)."""
        kind = self.kinds.get(name)
        if kind == WITHIN_CLASS_IF_SUPERVISED:
            supervised = (point or {}).get("supervised", self.defaults.get("supervised", True))
            return WITHIN_CLASS if supervised else ALL_POINTS
        return kind

    def grid_values(self, name: str, values: list, m: int) -> list:
        """A grid's values of ``name``: those below ``m`` (de-duplicated, in order) when it counts
        neighbours within the class, else all of them."""
        if self.kind(name) != WITHIN_CLASS:
            return values
        kept = list(dict.fromkeys(v for v in values if v < m))
        if not kept:
            raise ValueError(f"grid for {name!r} has no value < m={m}: {list(values)!r} ({name} counts neighbours "
                             "within the class)")
        return kept

    def cap(self, point: Mapping, y) -> tuple[dict, list[tuple[str, int, int]]]:
        """``point`` with every declared count that a fit on labels ``y`` cannot use lowered to its
        limit (:func:`fit_limit`) -- a value the point does not set included -- and the changes as
        ``(name, requested, used)``."""
        params, changes = dict(point), []
        for name in self.kinds:
            value = point.get(name, self.defaults.get(name))
            if not _is_count(value):
                continue
            limit = fit_limit(self.kind(name, point), y)
            if value > limit:
                changes.append((name, value, limit))
                params[name] = limit
        return params, changes
