"""The ``embedding`` protocol: one fit per panel, drawn as scatter plots or images (Figs. 1-3 of paper 001,
Figs. 1-4 of paper 004).

An experiment with ``protocol: embedding`` has two keys:

``panels``: name -> panel
    ``kind``
        ``embedding`` (training and novel points mapped to 2-D or 3-D), ``basis`` (the first
        ``n_show`` rows of ``components_`` drawn as images: Eigenfaces, LEAfaces), ``samples``
        (``n_show`` evenly spaced samples drawn as images) or ``attribute`` (a per-sample
        attribute of the fitted estimator, e.g. ``noise_variances_``, against an input
        coordinate: 004 Fig. 2(b)).
    ``dataset``
        Dataset or view name.
    ``method``, ``params``
        :func:`locproj.registry.make_estimator` name and parameters (kinds embedding, basis and
        attribute); ``n_components`` defaults to ``dims`` (embedding, attribute) or ``n_show``
        (basis), except for ``raw`` (the input coordinates themselves: 004 Fig. 1(a)). A float
        ``n_components`` (004's retained variance v) leaves the dimension to the fit, which must
        give at least ``dims`` columns. An estimator with a ``random_state`` parameter that
        ``params`` leave unset gets one derived from the config's seed and the dataset (so every
        fit on a dataset draws, e.g., the same SLLE subset).
    ``pca`` (optional)
        Number of principal components the method is fitted in (PCA of the training samples
        first, as for the LEAfaces of 001 Fig. 2(a)); the basis is mapped back to pixels.
    ``dims`` (2 or 3, default 2)
        Coordinates drawn: the first columns of the fit.
    ``classes`` (optional)
        Class names (``Dataset.class_names``) to keep.
    ``novel`` (optional): ``{every, offset}``
        Samples ``offset, offset + every, ...`` (positions after the class selection) are held out
        of the fit and mapped by ``transform`` as novel points.
    ``split`` (optional): ``{per_class: n}``
        ``n`` training samples of each class drawn at random (:func:`per_class_split`, seeded by
        the config's seed, the dataset and ``n``: every panel with the same split has the same
        training set), the others are test points mapped by ``transform`` (stored as novel).
        Not with ``novel``.
    ``draw`` (``all`` | ``train`` | ``novel``, default ``all``)
        Which points a scatter panel draws: e.g. the training and the test panels of 004 Fig. 4.
    ``novel_marker`` (optional): ``{marker, size, edgecolor}``
        How the held-out points are drawn, instead of the default (a few ``novel`` points as large
        stars, a ``split`` test set as small squares): a matplotlib marker, its area in points^2
        and its edge colour (``none``: no edge); the fill keeps the point's colour.
    ``select`` (optional)
        A fitted attribute holding training positions (``subset_`` of
        :class:`~locproj.methods.SupervisedLLE`): only those training points are drawn.
    ``space`` (``embedding`` | ``input``, default ``embedding``)
        Draw the fit's coordinates, or the first ``dims`` input coordinates of the same samples
        (004 Fig. 2(c): the selected subset in input space).
    ``classifier`` (optional, ``nearest_mean``)
        Train :class:`~sklearn.neighbors.NearestCentroid` on the drawn coordinates of the
        training points (2-D: its decision regions and boundaries are drawn); its training and
        test (novel) errors are stored, printed in the panel and listed in the checks table.
    ``images`` (optional, 2-D panels of image data)
        Number of samples on the border of the drawn points shown as images at their places
        (:func:`border_samples`; 004 Fig. 3).
    ``report`` (optional)
        Names of scalar fitted attributes (e.g. ``n_components_``, the m found by 004's v)
        stored and listed in the checks table.
    ``attribute``, ``feature`` (kind ``attribute``)
        The per-sample fitted attribute (one value per training sample) and the input
        coordinate (column index, default 0) it is drawn against, with the median in 20 bins
        of that coordinate as a trend line (:func:`binned_medians`).
    ``axis_labels`` (optional)
        Axis labels, one per drawn axis; default ``y_1, y_2, ...`` (embedding), ``x_1, ...``
        (``space: input``), input coordinate and attribute name (kind ``attribute``).
    ``colour`` (``order`` | ``label`` | ``{feature: j}``, default ``order``)
        Colour by sample index (a cyclic colormap when ``cyclic``), by class, or by input
        coordinate ``j`` (004 Figs. 1-2: by position along the sine).
    ``cyclic`` (default false)
        The sample order is one closed turn (the teapot): training points are joined in order and
        the order checks below are stored.
    ``n_show`` (default 3 for basis, 10 for samples)
    ``standardize`` (default false)
        Each feature to zero mean and unit variance (training points) before ``pca`` and the method.
    ``split: {holdout: f, n_samples: n}`` (optional)
        A stratified random fraction ``f`` as test (:func:`holdout_panel_split`; ``f = 1/3``: the
        test third of the holdout protocol), after a stratified subset of about ``n`` samples.
    ``overlays`` (2-D embedding panels with ``space: input``; list)
        The fitted estimator on a grid over the input plane (:func:`overlay_arrays`): ``gating``
        (the line ``eta_1 = 0.5`` of ``gating_function``, dashed: paper 002 Fig. 1(a)),
        ``gating_field`` (``eta_1`` as a colour field: Fig. 2), ``decision``
        (``decision_function = 0``) and ``projections`` (the columns of ``projections_`` as arrows).
    ``basis`` (kind basis; default ``components``), ``captions``
        Fitted attributes holding input-space vectors drawn instead (:func:`attribute_basis`:
        ``projections_`` and ``gating_coef_``, the ``W_m`` and ``v_m`` of 002 Fig. 7(b)); one
        caption per image.
    kind ``history``: ``series``, ``stops``
        One fit on the training points; per iteration, the keys of the estimator's ``history_``,
        ``support_fraction`` and (held-out points) ``test_accuracy`` from
        ``staged_decision_function``, drawn as one axes per group of ``series`` across a row,
        with the iteration where the rule ``J_t >= (1 - tau) J_{t-1}`` would stop marked for each
        tau of ``stops`` (:func:`tau_stop`; 002 Figs. 12-13).  Its checks row lists the last
        values, where each curve settles (:func:`settled_iteration`) and the stops.
    ``mark_misclassified`` (2-D embedding panels of a classifier method, e.g. lpk; default false)
        Training points the fitted classifier itself gets wrong ringed by a large open star, their
        count in the legend and in the checks row (``train_misclassified``): 002 Fig. 7(b)'s star.
    ``title``, ``note`` (optional)
        The panel's title, and text printed under it (e.g. how the data differ from the paper's).

``figures``: name -> ``{title, panels: [panel names], columns}``
    One multi-panel figure each; ``columns`` (default 3) embedding panels share a row, basis and
    samples panels take a row each.

The checks table (``checks.csv``) has a row for every panel with order checks, a classifier, marked
misclassified points or reported attributes; its columns beyond :data:`CHECK_COLUMNS` (``classifier, train_error,
test_error``, ``train_misclassified`` and the reported names) appear only when a panel has them.

Order checks (paper 001 §5.2: LEA keeps "the point sequence" and "the 10 new data are projected
precisely onto the manifold curve"), on the drawn coordinates of cyclic embedding panels:

* :func:`turn_neighbour_fraction` -- training points whose two nearest embedded neighbours are
  their two neighbours in the turn of the training samples.  Held-out samples leave gaps: a
  training point next to a gap is one step from one turn neighbour and two from the other, as far
  as its second neighbour on the same side, so even an exact circle scores below 1 (ties).
* :func:`novel_placement_fraction` -- novel points whose nearest embedded training point is one of
  the two training samples around them in the turn.

With fewer training samples than features (the teapot: 90 frames of 23028 values) a linear map
can give the training points any centred coordinates, so LEA's training embedding is LLE's (same
``k`` and trace-relative ``r``, up to the scale of each column); the two differ on novel points.
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import h5py
import numpy as np

from .._io import reading_h5, writing_h5
from ..config import data_file
from .base import JobRule, Output, Protocol, figures_and_metadata

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "PANEL_KINDS", "COLOURS", "aggregate_embedding", "binned_medians", "border_samples", "check_spec", "checks_table",
    "input_space_basis", "novel_placement_fraction", "novel_split", "per_class_split", "plot_figure",
    "read_panel", "run_panel", "select_samples", "turn_neighbour_fraction", "write_checks",
]

PANEL_KINDS = ("embedding", "basis", "samples", "attribute", "history")
SCATTER_KINDS = ("embedding", "attribute")   # drawn on axes, several to a row
IMAGE_KINDS = ("basis", "samples")           # a row of images
OVERLAYS = ("gating", "gating_field", "decision", "projections")
#: per-iteration series a history panel derives (besides the keys of the estimator's ``history_``)
DERIVED_SERIES = ("test_accuracy", "support_fraction")
DEFAULT_SERIES = [["objective"], ["train_accuracy", "test_accuracy"], ["support_fraction"]]
COLOURS = ("order", "label")                 # or {feature: j}
SPACES = ("embedding", "input")
DRAWS = ("all", "train", "novel")
CLASSIFIERS = ("nearest_mean",)
FORMATS = ("png", "pdf")
DPI = 150
CHECK_COLUMNS = ["panel", "dataset", "method", "params", "dims", "turn_neighbour_fraction",
                 "novel_placement_fraction", "n_train", "n_novel"]


# --------------------------------------------------------------------------- configuration


def check_spec(spec: dict) -> None:
    """Fail, naming the panel or figure, on an unknown kind, colour, dims, method or panel name."""
    from ..registry import make_estimator

    panels = spec.get("panels") or {}
    for name, panel in panels.items():
        _check_panel(name, panel)
        if panel["kind"] != "samples":
            try:
                make_estimator(panel["method"], **_fit_params(panel))
            except (ValueError, NotImplementedError) as error:
                raise ValueError(f"panel {name!r}: {error}") from error
    for name, figure in (spec.get("figures") or {}).items():
        unknown = [p for p in figure.get("panels", []) if p not in panels]
        if unknown:
            raise ValueError(f"figure {name!r}: unknown panels {unknown}; known: {sorted(panels)}")


def _check_panel(name: str, panel: dict) -> None:
    def fail(message):
        raise ValueError(f"panel {name!r}: {message}")

    if panel.get("kind") not in PANEL_KINDS:
        fail(f"kind must be one of {PANEL_KINDS}, got {panel.get('kind')!r}")
    if "dataset" not in panel:
        fail("no dataset")
    if panel["kind"] != "samples" and "method" not in panel:
        fail(f"kind {panel['kind']!r} needs a method")
    if panel.get("dims", 2) not in (2, 3):
        fail(f"dims must be 2 or 3, got {panel.get('dims')!r}")
    params, dims = panel.get("params") or {}, panel.get("dims", 2)
    n_components = params.get("n_components")
    columns = n_components * params.get("n_regions", 1) if isinstance(n_components, int) else None
    if panel["kind"] == "embedding" and columns is not None and columns < dims:
        fail(f"n_components {n_components} is fewer than the {dims} dims drawn" if columns == n_components
             else f"n_regions x n_components = {columns} columns are fewer than the {dims} dims drawn")
    colour = panel.get("colour", "order")
    if not (colour in COLOURS if isinstance(colour, str) else _is_feature_choice(colour)):
        fail(f"colour must be one of {COLOURS} or {{feature: j}} with a column index j >= 0, got {colour!r}")
    if panel.get("pca") is not None and not (isinstance(panel["pca"], int) and panel["pca"] >= 1):
        fail(f"pca must be a positive number of components, got {panel['pca']!r}")
    if not isinstance(panel.get("standardize", False), bool):
        fail(f"standardize must be true or false, got {panel['standardize']!r}")
    novel = panel.get("novel")
    if novel and not (int(novel.get("every", 0)) >= 2 and 0 <= int(novel.get("offset", 0)) < int(novel["every"])):
        fail(f"novel needs every >= 2 and 0 <= offset < every, got {novel}")
    _check_split(panel, fail)
    _check_drawing(panel, fail)
    _check_overlays(panel, fail)
    _check_basis(panel, fail)
    _check_history(panel, fail)


def _check_overlays(panel: dict, fail) -> None:
    """``overlays``: what a 2-D input-space panel draws of the fitted estimator on a grid."""
    overlays = panel.get("overlays")
    if overlays is None or overlays == []:   # [] undoes a merged panel's overlays
        return
    if not (isinstance(overlays, list) and all(o in OVERLAYS for o in overlays)):
        fail(f"overlays must be a list of {OVERLAYS}, got {overlays!r}")
    if not (panel["kind"] == "embedding" and panel.get("space") == "input" and panel.get("dims", 2) == 2):
        fail("overlays are drawn on 2-D embedding panels with space: input (the grid is in the input space)")
    if panel.get("pca") or panel.get("standardize"):
        fail("overlays evaluate the estimator on the input plane: not with pca or standardize")


def _check_basis(panel: dict, fail) -> None:
    """``basis``: ``components`` (rows of ``components_``) or fitted attributes holding input-space vectors."""
    sources, captions = panel.get("basis"), panel.get("captions")
    if sources is not None:
        names = sources if isinstance(sources, list) else [sources]
        if panel["kind"] != "basis" or not names or not all(
                isinstance(n, str) and (n == "components" or n.endswith("_")) for n in names):
            fail(f"basis must be 'components' or fitted attributes (ending in '_', e.g. projections_) on a "
                 f"basis panel, got {sources!r}")
    if captions is not None and not (panel["kind"] in IMAGE_KINDS and isinstance(captions, list)
                                     and all(isinstance(c, str) for c in captions)):
        fail(f"captions must be a list of strings (one per image) on a basis or samples panel, got {captions!r}")


def _check_history(panel: dict, fail) -> None:
    """Kind ``history``: the series drawn (groups of names, one axes each) and the stopping marks."""
    for key in ("series", "stops"):
        if key in panel and panel["kind"] != "history":
            fail(f"{key} is an option of kind 'history'")
    if panel["kind"] != "history":
        return
    series = panel.get("series", DEFAULT_SERIES)
    if not (isinstance(series, list) and series and all(
            isinstance(group, list) and group and all(isinstance(name, str) for name in group) for group in series)):
        fail(f"series must be a list of groups (lists of history_ names) drawn on one axes each, got {series!r}")
    stops = panel.get("stops", [])
    if not (isinstance(stops, list) and all(isinstance(t, (int, float)) and not isinstance(t, bool) and 0 < t < 1
                                            for t in stops)):
        fail(f"stops must be a list of tau values in (0, 1), got {stops!r}")
    if any("test_accuracy" in group for group in series) and not panel.get("split"):
        fail("series test_accuracy needs a split (the held-out points)")


def _is_feature_choice(value) -> bool:
    return isinstance(value, dict) and set(value) == {"feature"} and _is_index(value["feature"])


def _is_index(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_split(panel: dict, fail) -> None:
    split = panel.get("split")
    if split is None:
        return
    per_class = (isinstance(split, dict) and set(split) == {"per_class"} and _is_index(split["per_class"])
                 and split["per_class"] >= 1)
    holdout = (isinstance(split, dict) and "holdout" in split and set(split) <= {"holdout", "n_samples"}
               and isinstance(split["holdout"], (int, float)) and not isinstance(split["holdout"], bool)
               and 0 < split["holdout"] < 1 and (split.get("n_samples") is None
                                                 or (_is_index(split["n_samples"]) and split["n_samples"] >= 2)))
    if not (per_class or holdout):
        fail(f"split must be {{per_class: n}} with n >= 1 training samples per class, or {{holdout: f}} "
             f"(0 < f < 1, optionally n_samples: n >= 2), got {split!r}")
    if panel.get("novel"):
        fail("split and novel both choose the points held out of the fit; give one of them")


def _check_drawing(panel: dict, fail) -> None:
    """The options of scatter panels: what is drawn, where, and what is computed on it."""
    for key, allowed in (("space", SPACES), ("draw", DRAWS), ("classifier", CLASSIFIERS + (None,))):
        default = None if key == "classifier" else allowed[0]
        if panel.get(key, default) not in allowed:
            fail(f"{key} must be one of {tuple(a for a in allowed if a is not None)}, got {panel.get(key)!r}")
    for key in ("select", "attribute"):
        if key in panel and not (isinstance(panel[key], str) and panel[key].endswith("_")):
            fail(f"{key} must name a fitted attribute (ending in '_', e.g. subset_), got {panel[key]!r}")
    if panel["kind"] == "attribute" and "attribute" not in panel:
        fail("kind 'attribute' needs attribute: a per-sample fitted attribute such as noise_variances_")
    if not _is_index(panel.get("feature", 0)):
        fail(f"feature must be a column index >= 0, got {panel.get('feature')!r}")
    report = panel.get("report", [])
    if not (isinstance(report, list) and all(isinstance(r, str) and r.endswith("_") for r in report)):
        fail(f"report must be a list of fitted attribute names (ending in '_'), got {report!r}")
    if panel.get("mark_misclassified") not in (None, False, True):
        fail(f"mark_misclassified must be true or false, got {panel['mark_misclassified']!r}")
    if panel.get("mark_misclassified") and panel["kind"] != "embedding":
        fail("mark_misclassified marks points of an embedding panel")
    _check_novel_marker(panel.get("novel_marker"), fail)
    images = panel.get("images")
    if images is not None and not (_is_index(images) and images >= 1 and panel.get("dims", 2) == 2
                                   and panel["kind"] == "embedding"):
        fail(f"images must be a number >= 1 of border samples on a 2-D embedding panel, got {images!r}")
    labels, axes = panel.get("axis_labels"), 2 if panel["kind"] == "attribute" else panel.get("dims", 2)
    if labels is not None and not (isinstance(labels, list) and len(labels) == axes):
        fail(f"axis_labels must list {axes} labels, got {labels!r}")


def _check_novel_marker(style, fail) -> None:
    """``novel_marker``: a matplotlib marker, a positive size and an edge colour (or none)."""
    if style is None:
        return
    from matplotlib.colors import is_color_like
    from matplotlib.markers import MarkerStyle

    def bad(why):
        fail(f"novel_marker must be {{marker, size, edgecolor}} ({why}), got {style!r}")

    if not (isinstance(style, dict) and style and set(style) <= {"marker", "size", "edgecolor"}):
        bad("one or more of these keys")
    if "marker" in style:
        try:
            MarkerStyle(style["marker"])
        except (ValueError, TypeError):
            bad(f"{style['marker']!r} is not a matplotlib marker")
    size = style.get("size", 1)
    if isinstance(size, bool) or not isinstance(size, (int, float)) or size <= 0:
        bad("size is an area in points^2 > 0")
    edge = style.get("edgecolor", "none")
    if not (isinstance(edge, str) and (edge == "none" or is_color_like(edge))):
        bad(f"edgecolor {edge!r} is not a matplotlib colour or none")


def _fit_params(panel: dict) -> dict:
    params = dict(panel.get("params") or {})
    if panel["method"] == "raw":   # the input coordinates: no n_components (registry.make_estimator)
        return params
    if panel["kind"] == "history" or _basis_sources(panel) != ["components"]:
        return params               # the estimator's own default
    default = panel.get("n_show", 3) if panel["kind"] == "basis" else panel.get("dims", 2)
    params.setdefault("n_components", default)
    return params


# --------------------------------------------------------------------------- samples


def _basis_sources(panel: dict) -> list[str]:
    sources = panel.get("basis", "components")
    return list(sources) if isinstance(sources, list) else [sources]


def select_samples(data, classes=None) -> np.ndarray:
    """Indices of the samples of ``data`` whose class name is in ``classes`` (all for None)."""
    if classes is None:
        return np.arange(len(data.X))
    if data.y is None:
        raise ValueError(f"classes {list(classes)} asked for, but the data have no labels")
    unknown = sorted(set(map(str, classes)) - set(data.class_names))
    if unknown:
        raise ValueError(f"unknown classes {unknown}; the data have {data.class_names}")
    wanted = [data.class_names.index(str(c)) for c in classes]
    return np.flatnonzero(np.isin(data.y, wanted))


def novel_split(n: int, novel: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``(train, novel)`` in ``range(n)``: novel are ``offset, offset + every, ...``."""
    positions = np.arange(n)
    if not novel:
        return positions, positions[:0]
    held_out = np.zeros(n, dtype=bool)
    held_out[int(novel.get("offset", 0))::int(novel["every"])] = True
    return positions[~held_out], positions[held_out]


def per_class_split(y, n_per_class: int, name: str, seed) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``(train, test)`` in ``y``: ``n_per_class`` training samples of every class drawn at
    random, the rest as test; the draw is :func:`locproj.data.per_class_splits`'s first split with
    the seed it would get for ``name`` and that count (:func:`locproj.data.make_splits`)."""
    from ..data import derived_seed, per_class_splits

    if seed is None:
        raise ValueError("split: {per_class: ...} draws at random and needs the config's seed")
    if y is None:
        raise ValueError(f"split per class asked for, but {name!r} has no labels")
    train, test = per_class_splits(y, int(n_per_class), 1, derived_seed(seed, name, int(n_per_class)))
    return train[0], test[0]


def holdout_panel_split(y, fraction: float, name: str, seed, n_samples: int | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``(train, test)`` in ``y``: a stratified random ``fraction`` as test.

    Without ``n_samples`` the draw is :func:`locproj.data.holdout_split`'s with the seed
    :func:`locproj.data.make_splits` gives ``name`` (for ``fraction = 1/3`` the test third of the
    holdout protocol, paper 002 §6.3).  With ``n_samples`` a stratified random subset of about that
    many samples (rounded per class) is drawn first and split the same way (both seeded by
    ``name`` and ``n_samples``).
    """
    from ..data import derived_seed, holdout_split

    if seed is None:
        raise ValueError("split: {holdout: ...} draws at random and needs the config's seed")
    if y is None:
        raise ValueError(f"a stratified holdout asked for, but {name!r} has no labels")
    y = np.asarray(y)
    positions = np.arange(len(y))
    parts = ("holdout",)
    if n_samples is not None and n_samples < len(y):
        _, positions, _ = holdout_split(y, derived_seed(seed, name, "subsample", int(n_samples)),
                                        test_fraction=n_samples / len(y), n_repeats=0)
        parts = ("holdout", int(n_samples))
    train, test, _ = holdout_split(y[positions], derived_seed(seed, name, *parts), test_fraction=fraction,
                                   n_repeats=0)
    return positions[train], positions[test]


def _sample_positions(n: int, n_show: int) -> np.ndarray:
    """``n_show`` evenly spaced positions in ``range(n)``, starting at 0."""
    return np.unique(np.arange(min(n_show, n)) * n // min(n_show, n))


# --------------------------------------------------------------------------- order checks


def _ranks(order) -> np.ndarray:
    order = np.asarray(order)
    if len(np.unique(order)) != len(order):
        raise ValueError("the order values must be distinct")
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[np.argsort(order, kind="stable")] = np.arange(len(order))
    return ranks


def turn_neighbour_fraction(Z, order) -> float:
    """Fraction of points whose two nearest neighbours in ``Z`` are their two neighbours in the turn.

    Parameters
    ----------
    Z : array of shape (n, k)
        Embedded points (Euclidean distances; a point is not its own neighbour).
    order : array of shape (n,)
        Position of each point along one closed turn (e.g. its sample index): the turn
        neighbours of the point of rank ``r`` are those of ranks ``r - 1`` and ``r + 1`` mod ``n``.

    Returns
    -------
    float
    """
    from sklearn.neighbors import NearestNeighbors

    Z = np.asarray(Z, dtype=float)
    n = len(Z)
    if n < 3:
        raise ValueError(f"a turn needs at least 3 points, got {n}")
    ranks = _ranks(order)
    nearest = NearestNeighbors(n_neighbors=2).fit(Z).kneighbors(return_distance=False)
    steps = np.sort((ranks[nearest] - ranks[:, None]) % n, axis=1)   # turn steps to the 2 nearest
    return float(np.mean((steps[:, 0] == 1) & (steps[:, 1] == n - 1)))


def novel_placement_fraction(Z_train, order_train, Z_novel, order_novel) -> float:
    """Fraction of novel points whose nearest training point in the embedding is one of the two
    training samples around them in the turn.

    Parameters
    ----------
    Z_train : array of shape (n_train, k)
    order_train : array of shape (n_train,)
        Positions of the training samples along the turn.
    Z_novel : array of shape (n_novel, k)
    order_novel : array of shape (n_novel,)
        Positions of the novel samples along the same turn, distinct from the training ones: the
        samples around position ``o`` are the training samples just before and just after it
        (cyclically).

    Returns
    -------
    float
    """
    from sklearn.neighbors import NearestNeighbors

    order_train, order_novel = np.asarray(order_train), np.asarray(order_novel)
    if len(order_novel) == 0:
        raise ValueError("no novel points")
    if np.isin(order_novel, order_train).any():
        raise ValueError("novel and training points share positions in the turn")
    ranks = _ranks(order_train)
    after = np.searchsorted(np.sort(order_train), order_novel) % len(order_train)   # rank just after
    before = (after - 1) % len(order_train)
    nearest = NearestNeighbors(n_neighbors=1).fit(np.asarray(Z_train, float))
    hit = ranks[nearest.kneighbors(np.asarray(Z_novel, float), return_distance=False)[:, 0]]
    return float(np.mean((hit == before) | (hit == after)))


# --------------------------------------------------------------------------- one panel


def run_panel(panel: dict, data_path, output_path, provenance: dict | None = None, seed=None) -> None:
    """Fit one panel's method and write what its drawing needs to one HDF5 file, atomically.

    Parameters
    ----------
    panel : dict
        One entry of the experiment's ``panels`` (see the module docstring).
    data_path : path
        The processed dataset or view (:func:`locproj.data.read_dataset_file`).
    output_path : path
        The panel's HDF5 file (see :func:`read_panel` for its contents). No timestamps are
        stored, so a rerun gives the same bytes.
    provenance : dict, optional
        Root attributes (e.g. :func:`locproj._io.provenance_attrs`).
    seed : int, optional
        The config's master seed: draws ``split`` and seeds estimators with a ``random_state``.
    """
    from ..data import read_dataset_file

    _check_panel(panel.get("title", "(untitled)"), panel)
    data = read_dataset_file(data_path)
    kept = select_samples(data, panel.get("classes"))
    _check_data(panel, data, data_path)
    if panel["kind"] == "samples":
        arrays, checks = _sample_arrays(panel, data, kept), {}
    elif panel["kind"] == "history":
        arrays, checks = _history_arrays(panel, data, kept, seed)
    else:
        arrays, checks = _fit_arrays(panel, data, kept, seed)
    _write_panel(output_path, arrays, {**(provenance or {}), **_panel_attrs(panel, data), **checks})


def _check_data(panel: dict, data, data_path) -> None:
    """Fail when the panel asks for images, labels or input columns the data do not have."""
    if (panel["kind"] in IMAGE_KINDS or panel.get("images")) and data.image_shape is None:
        raise ValueError(f"panel {panel.get('title', '')!r} draws images, but {data_path} holds no image shape")
    for key, wanted in (("colour", "label"), ("classifier", "nearest_mean")):
        if panel.get(key) == wanted and data.y is None:
            raise ValueError(f"{key} {wanted!r} asked for, but {data_path} has no labels")
    columns = [panel.get("feature", 0)]
    if isinstance(panel.get("colour"), dict):
        columns.append(panel["colour"]["feature"])
    if panel.get("space") == "input":
        columns.append(int(panel.get("dims", 2)) - 1)
    if panel.get("overlays") and data.X.shape[1] != 2:
        raise ValueError(f"overlays are drawn on the input plane, but {data_path} has {data.X.shape[1]} features")
    if max(columns) >= data.X.shape[1]:
        raise ValueError(f"input column {max(columns)} asked for, but {data_path} has {data.X.shape[1]} features")


def _panel_attrs(panel: dict, data) -> dict:
    return {
        "panel": json.dumps(panel, sort_keys=True),
        "kind": panel["kind"], "dataset": panel["dataset"], "method": panel.get("method", ""),
        "params": json.dumps(panel.get("params") or {}, sort_keys=True),
        "image_shape": np.array(data.image_shape or (), dtype=np.int64),
        "class_names": np.array(data.class_names, dtype=h5py.string_dtype()),
    }


def _labels(data, index: np.ndarray, stem: str) -> dict:
    return {} if data.y is None else {f"{stem}_labels": data.y[index]}


def _sample_arrays(panel: dict, data, kept: np.ndarray) -> dict:
    index = kept[_sample_positions(len(kept), int(panel.get("n_show", 10)))]
    return {"sample_index": index, "samples": data.X[index], **_labels(data, index, "sample")}


def _held_out(panel: dict, data, kept: np.ndarray, seed) -> tuple[np.ndarray, np.ndarray]:
    """Data indices ``(train, novel)`` of the fit: by ``split`` (per class) or ``novel`` (every j-th)."""
    split = panel.get("split")
    if split and "holdout" in split:
        y = None if data.y is None else data.y[kept]
        train_pos, novel_pos = holdout_panel_split(y, split["holdout"], panel["dataset"], seed, split.get("n_samples"))
    elif split:
        y = None if data.y is None else data.y[kept]
        train_pos, novel_pos = per_class_split(y, split["per_class"], panel["dataset"], seed)
    else:
        train_pos, novel_pos = novel_split(len(kept), panel.get("novel"))
    return kept[train_pos], kept[novel_pos]


def _make_estimator(panel: dict, seed):
    """The panel's estimator (after a PCA step when ``pca``); a ``random_state`` the params leave
    unset is derived from ``seed`` and the dataset."""
    from sklearn.decomposition import PCA
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from ..data import derived_seed
    from ..registry import make_estimator

    estimator = make_estimator(panel["method"], **_fit_params(panel))
    unset = "random_state" in estimator.get_params() and "random_state" not in (panel.get("params") or {})
    if seed is not None and unset:
        estimator.set_params(random_state=derived_seed(seed, "embedding", panel["dataset"]) % 2**32)
    steps = [("standardize", StandardScaler())] if panel.get("standardize") else []
    if panel.get("pca"):
        # the full SVD: scikit-learn's default picks a randomised one for few components
        steps.append(("pca", PCA(n_components=panel["pca"], svd_solver="full")))
    return Pipeline(steps + [("method", estimator)]) if steps else estimator


def _final_step(estimator):
    """The panel's method itself (the last step of a PCA-then-method pipeline)."""
    return estimator.named_steps["method"] if hasattr(estimator, "named_steps") else estimator


def _fit_arrays(panel: dict, data, kept: np.ndarray, seed=None) -> tuple[dict, dict]:
    """The fit's arrays, and its checks: order checks (cyclic embedding panels), classifier
    errors and reported attributes (when asked for); else empty."""
    train, novel = _held_out(panel, data, kept, seed)
    estimator = _make_estimator(panel, seed)
    y_train = None if data.y is None else data.y[train]
    Z_train = estimator.fit_transform(data.X[train], y_train)   # LLE: its embedding_; linear: the projection
    Z_novel = estimator.transform(data.X[novel]) if len(novel) else np.empty((0, Z_train.shape[1]))
    dims = int(panel.get("dims", 2))
    if panel["kind"] != "basis" and panel.get("space") != "input" and Z_train.shape[1] < dims:
        raise ValueError(f"the fit gave {Z_train.shape[1]} coordinates, fewer than the {dims} dims drawn")
    arrays = {
        "train_index": train, "train_embedding": Z_train, "novel_index": novel, "novel_embedding": Z_novel,
        **_labels(data, train, "train"), **_labels(data, novel, "novel"),
    }
    basis = input_space_basis(estimator)
    if basis is not None:
        rows = int(panel.get("n_show", 3)) if panel["kind"] == "basis" else None
        arrays["basis"], arrays["mean"] = basis[0][:rows], basis[1]
    if panel["kind"] == "basis" and _basis_sources(panel) != ["components"]:
        arrays["basis"] = attribute_basis(estimator, _basis_sources(panel))[:panel.get("n_show")]
    arrays.update(_drawing_arrays(panel, data, _final_step(estimator), train, novel))
    if panel.get("overlays"):
        arrays.update(overlay_arrays(panel, _final_step(estimator), arrays))
    checks = {}
    if panel["kind"] == "embedding" and panel.get("cyclic"):
        checks = _order_checks(Z_train, train, Z_novel, novel, dims)
    if panel.get("classifier"):
        class_arrays, errors = nearest_mean_errors(panel, arrays)
        arrays.update(class_arrays)
        checks.update(errors)
    if panel.get("mark_misclassified"):
        wrong = _final_step(estimator).predict(data.X[train]) != y_train
        arrays["misclassified_index"] = train[wrong]
        checks["train_misclassified"] = int(wrong.sum())
    if panel.get("report"):
        checks["reported"] = json.dumps({name: _scalar(_final_step(estimator), name) for name in panel["report"]})
    if panel.get("images"):
        arrays.update(_border_arrays(panel, data, arrays))
    return arrays, checks


def _drawing_arrays(panel: dict, data, fitted, train: np.ndarray, novel: np.ndarray) -> dict:
    """What the drawing options need besides the fit: colour values, input coordinates, the selected
    training samples and the per-sample attribute."""
    arrays = {}
    colour = panel.get("colour")
    if isinstance(colour, dict):
        arrays["train_colour"] = data.X[train, colour["feature"]]
        arrays["novel_colour"] = data.X[novel, colour["feature"]]
    if panel.get("space") == "input":
        dims = int(panel.get("dims", 2))
        arrays["train_input"], arrays["novel_input"] = data.X[train, :dims], data.X[novel, :dims]
    if panel.get("select"):
        arrays["selected_index"] = np.sort(train[_positions(fitted, panel["select"], len(train))])
    if panel["kind"] == "attribute":
        arrays["train_attribute"] = _per_sample(fitted, panel["attribute"], len(train))
        arrays["train_feature"] = data.X[train, panel.get("feature", 0)]
    return arrays


def _fitted(fitted, name: str):
    if not hasattr(fitted, name):
        raise ValueError(f"the fitted {type(fitted).__name__} has no attribute {name!r}")
    return getattr(fitted, name)


def _per_sample(fitted, name: str, n: int) -> np.ndarray:
    values = np.asarray(_fitted(fitted, name), dtype=float)
    if values.shape != (n,):
        raise ValueError(f"attribute {name!r} has shape {values.shape}, not one value per training sample ({n})")
    return values


def _positions(fitted, name: str, n: int) -> np.ndarray:
    """Training positions held by a fitted attribute: indices, or a boolean mask of length ``n``."""
    values = np.asarray(_fitted(fitted, name))
    if values.dtype == bool and values.shape == (n,):
        return np.flatnonzero(values)
    if values.ndim != 1 or values.dtype.kind not in "iu" or (len(values) and not 0 <= values.min() <= values.max() < n):
        raise ValueError(f"attribute {name!r} does not hold positions among the {n} training samples")
    return values


def _scalar(fitted, name: str):
    value = np.asarray(_fitted(fitted, name))
    if value.shape != ():
        raise ValueError(f"report: attribute {name!r} is not a scalar (shape {value.shape})")
    return value.item()


def nearest_mean_errors(panel: dict, arrays: dict) -> tuple[dict, dict]:
    """The nearest-mean classifier (:class:`~sklearn.neighbors.NearestCentroid`) trained on the drawn
    coordinates of the training points: ``(arrays, errors)`` with the class means and their labels,
    and the ``classifier``, ``train_error`` and (with novel points) ``test_error``."""
    from sklearn.neighbors import NearestCentroid

    Z_train, Z_novel = _coordinates(panel, arrays, "train"), _coordinates(panel, arrays, "novel")
    model = NearestCentroid().fit(Z_train, arrays["train_labels"])
    errors = {"classifier": panel["classifier"],
              "train_error": float(np.mean(model.predict(Z_train) != arrays["train_labels"]))}
    if len(Z_novel):
        errors["test_error"] = float(np.mean(model.predict(Z_novel) != arrays["novel_labels"]))
    return {"class_means": model.centroids_, "class_mean_labels": model.classes_}, errors


def _coordinates(spec: dict, result: dict, stem: str) -> np.ndarray:
    """The drawn coordinates of the ``stem`` (train or novel) points: fit or input space, ``dims`` columns."""
    dims = int(spec.get("dims", 2))
    if spec.get("space") == "input":
        return result[f"{stem}_input"][:, :dims]
    return result[f"{stem}_embedding"][:, :dims]


def _visible(spec: dict, result: dict) -> dict[str, np.ndarray]:
    """Masks of the drawn training and novel points (options ``draw`` and ``select``)."""
    draw = spec.get("draw", "all")
    train = np.full(len(result["train_index"]), draw != "novel")
    if "selected_index" in result:
        train &= np.isin(result["train_index"], result["selected_index"])
    return {"train": train, "novel": np.full(len(result["novel_index"]), draw != "train")}


def border_samples(Z, n: int) -> np.ndarray:
    """Positions (distinct, in order of direction) of the points of ``Z`` (2-D) furthest out in ``n``
    evenly spaced directions, after scaling each axis to unit standard deviation."""
    Z = np.asarray(Z, dtype=float)
    scaled = (Z - Z.mean(axis=0)) / np.where(Z.std(axis=0) > 0, Z.std(axis=0), 1.0)
    angles = np.pi / 2 + 2 * np.pi * np.arange(n) / n
    outermost = np.argmax(scaled @ np.stack([np.cos(angles), np.sin(angles)]), axis=0)
    _, first = np.unique(outermost, return_index=True)
    return outermost[np.sort(first)]


def _border_arrays(panel: dict, data, arrays: dict) -> dict:
    visible = _visible(panel, arrays)
    index = np.r_[arrays["train_index"][visible["train"]], arrays["novel_index"][visible["novel"]]]
    Z = np.r_[_coordinates(panel, arrays, "train")[visible["train"]],
              _coordinates(panel, arrays, "novel")[visible["novel"]]]
    chosen = border_samples(Z, int(panel["images"]))
    return {"border_index": index[chosen], "border_coordinates": Z[chosen], "border_images": data.X[index[chosen]]}


def input_space_basis(estimator) -> tuple[np.ndarray, np.ndarray] | None:
    """``(components, mean)`` in the input space, so that ``transform(X) = (X - mean) @ components.T``;
    None for an estimator without ``components_`` (a nonlinear embedding such as LLE).

    For a PCA-then-method pipeline, ``components = C_m C_pca`` and
    ``mean = mean_pca + mean_m C_pca`` (the rows of ``C_pca`` are orthonormal).
    """
    from sklearn.pipeline import Pipeline

    if isinstance(estimator, Pipeline):
        inner = input_space_basis(estimator.named_steps["method"])
        if inner is None:
            return None
        components, mean = inner
        if "pca" in estimator.named_steps:
            pca = estimator.named_steps["pca"]
            components, mean = components @ pca.components_, pca.mean_ + mean @ pca.components_
        if "standardize" in estimator.named_steps:   # z = (x - mu) / s
            scaler = estimator.named_steps["standardize"]
            components, mean = components / scaler.scale_, scaler.mean_ + scaler.scale_ * mean
        return components, mean
    if not hasattr(estimator, "components_"):
        return None
    components = np.asarray(estimator.components_)
    return components, np.asarray(getattr(estimator, "mean_", np.zeros(components.shape[1])))


def attribute_basis(estimator, names) -> np.ndarray:
    """Input-space vectors held by fitted attributes (option ``basis``), stacked as rows.

    An attribute of shape ``(m, d, r)`` gives its ``m * r`` columns (e.g. ``projections_``, the
    ``W_m`` of :class:`~locproj.methods.LocalProjectionKernelSVC`), any other whose last axis is the
    number ``d`` of features fitted gives its rows (``gating_coef_``: the ``v_m``); ``components``
    gives ``components_``.  After a PCA step the vectors are mapped back to the input space.
    """
    from sklearn.pipeline import Pipeline

    fitted = _final_step(estimator)
    d = int(fitted.n_features_in_)
    rows = []
    for name in names:
        values = np.asarray(_fitted(fitted, "components_" if name == "components" else name), dtype=float)
        if values.ndim == 3 and values.shape[1] == d:
            vectors = np.moveaxis(values, 2, 1).reshape(-1, d)
        elif values.ndim >= 1 and values.shape[-1] == d:
            vectors = values.reshape(-1, d)
        else:
            raise ValueError(f"basis: attribute {name!r} of shape {values.shape} holds no vectors of the {d} "
                             "features fitted")
        if isinstance(estimator, Pipeline) and "pca" in estimator.named_steps:
            vectors = vectors @ estimator.named_steps["pca"].components_
        if isinstance(estimator, Pipeline) and "standardize" in estimator.named_steps:
            vectors = vectors / estimator.named_steps["standardize"].scale_   # w . (x - mu) / s
        rows.append(vectors)
    return np.vstack(rows)


_OVERLAY_STEPS = 201
_OVERLAY_MARGIN = np.array([0.08, 0.18])   # of the data range; more above and below for the legend


def overlay_arrays(panel: dict, fitted, arrays: dict) -> dict:
    """The estimator on a grid over the drawn input plane (option ``overlays``).

    ``overlay_x``, ``overlay_y`` (the grid's axes) and, as asked: ``gating_grid`` (``gating``,
    ``gating_field``: ``fitted.gating_function`` at every grid point, shape ``(ny, nx, p)``),
    ``decision_grid`` (``decision``: ``fitted.decision_function``, ``(ny, nx)``) and
    ``projection_origins``, ``projection_vectors`` (``projections``: each column of each ``W_m``
    of ``projections_``, drawn from the ``eta_m``-weighted mean of the training points).
    """
    overlays = panel["overlays"]
    Z = np.r_[_coordinates(panel, arrays, "train"), _coordinates(panel, arrays, "novel")]
    low, high = Z.min(axis=0), Z.max(axis=0)
    margin = _OVERLAY_MARGIN * np.where(high > low, high - low, 1.0)
    gx = np.linspace(low[0] - margin[0], high[0] + margin[0], _OVERLAY_STEPS)
    gy = np.linspace(low[1] - margin[1], high[1] + margin[1], _OVERLAY_STEPS)
    grid = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 2)
    out = {"overlay_x": gx, "overlay_y": gy}
    needs = {"gating": "gating_function", "gating_field": "gating_function", "decision": "decision_function",
             "projections": "projections_"}
    for overlay in overlays:
        if not hasattr(fitted, needs[overlay]):
            raise ValueError(f"overlay {overlay!r} needs {needs[overlay]}, which the fitted "
                             f"{type(fitted).__name__} does not have")
    if {"gating", "gating_field"} & set(overlays):
        out["gating_grid"] = fitted.gating_function(grid).reshape(len(gy), len(gx), -1)
    if "decision" in overlays:
        out["decision_grid"] = fitted.decision_function(grid).reshape(len(gy), len(gx))
    if "projections" in overlays:
        W = np.asarray(fitted.projections_, dtype=float)          # (p, d, r)
        X = arrays["train_input"]
        eta = fitted.gating_function(X) if hasattr(fitted, "gating_function") else np.ones((len(X), 1))
        centres = (eta.T @ X) / eta.sum(axis=0)[:, None]          # (p, 2)
        out["projection_origins"] = np.repeat(centres, W.shape[2], axis=0)
        out["projection_vectors"] = np.moveaxis(W, 2, 1).reshape(-1, W.shape[1])
    return out


def tau_stop(objective, tau: float) -> int | None:
    """The iteration (1-based) after which the rule ``J_t >= (1 - tau) J_{t-1}`` of paper 002 §6
    stops: the first ``t >= 2`` where it holds; None when it never does."""
    J = np.asarray(objective, dtype=float)
    hits = np.flatnonzero(J[1:] >= (1.0 - tau) * J[:-1])
    return int(hits[0]) + 2 if len(hits) else None


def settled_iteration(values, rtol: float = 0.01) -> int:
    """The first iteration (1-based) from which every value is within ``rtol`` of the last one
    (relative to its magnitude): where a convergence curve settles."""
    values = np.asarray(values, dtype=float)
    outside = np.flatnonzero(np.abs(values - values[-1]) > rtol * abs(values[-1]))
    return int(outside[-1]) + 2 if len(outside) else 1


def _history_arrays(panel: dict, data, kept: np.ndarray, seed) -> tuple[dict, dict]:
    """Kind ``history``: fit once on the training points, then one value per iteration of every
    key of the estimator's ``history_`` (``history_{name}``), ``history_support_fraction``
    (``n_support`` over the training size) and, with held-out points,
    ``history_test_accuracy`` (from ``staged_decision_function``: positive -> ``classes_[1]``).
    The checks list the last values, where each curve settles and where each ``stops`` tau would
    have stopped the fit (:func:`tau_stop`)."""
    from sklearn.pipeline import Pipeline

    train, novel = _held_out(panel, data, kept, seed)
    estimator = _make_estimator(panel, seed)
    y_train = None if data.y is None else data.y[train]
    estimator.fit(data.X[train], y_train)
    fitted = _final_step(estimator)
    series = {name: np.asarray(values, dtype=float) for name, values in dict(_fitted(fitted, "history_")).items()}
    if "n_support" in series:
        series["support_fraction"] = series["n_support"] / len(train)
    if len(novel):
        X_novel = data.X[novel]
        if isinstance(estimator, Pipeline):
            X_novel = estimator[:-1].transform(X_novel)
        staged = _fitted(fitted, "staged_decision_function")(X_novel)
        classes = _fitted(fitted, "classes_")
        series["test_accuracy"] = np.array([np.mean(classes[(f > 0).astype(int)] == data.y[novel]) for f in staged])
    wanted = [name for group in panel.get("series", DEFAULT_SERIES) for name in group]
    missing = [name for name in wanted if name not in series]
    if missing:
        raise ValueError(f"series {missing} are not in the history; it has {sorted(series)}")
    arrays = {"train_index": train, "novel_index": novel, **{f"history_{k}": v for k, v in series.items()},
              **_labels(data, train, "train"), **_labels(data, novel, "novel")}
    J = series["objective"]
    checks = {"n_iter": len(J), "objective_first": float(J[0]), "objective_last": float(J[-1])}
    for name in ("train_accuracy", "test_accuracy", "support_fraction"):
        if name in series:
            checks[f"{name}_last"] = float(series[name][-1])
    for name in ("objective", "train_accuracy", "test_accuracy"):
        if name in series:
            checks[f"settled_{name}"] = settled_iteration(series[name])
    for tau in panel.get("stops", []):
        t = tau_stop(J, tau)
        checks[f"stop_tau_{tau:g}"] = t
        if t is not None and "test_accuracy" in series:
            checks[f"test_accuracy_at_tau_{tau:g}"] = float(series["test_accuracy"][t - 1])
    arrays["stops"] = np.array(panel.get("stops", []), dtype=float)
    return arrays, {"reported": json.dumps(checks)}


def _order_checks(Z_train, train, Z_novel, novel, dims: int) -> dict:
    checks = {"turn_neighbour_fraction": turn_neighbour_fraction(Z_train[:, :dims], train)}
    if len(novel):
        checks["novel_placement_fraction"] = novel_placement_fraction(
            Z_train[:, :dims], train, Z_novel[:, :dims], novel)
    return checks


def _write_panel(path, arrays: dict, attrs: dict) -> None:
    with writing_h5(path) as h5:
        for name in sorted(arrays):
            h5.create_dataset(name, data=arrays[name], track_times=False)
        for key in sorted(attrs):
            h5.attrs[key] = attrs[key]


def read_panel(path) -> dict:
    """A panel file as a dict.

    Keys: the attributes (``kind, dataset, method, params`` (JSON), ``panel`` (JSON),
    ``image_shape`` (tuple or None), ``class_names`` (list), the checks
    ``turn_neighbour_fraction`` and ``novel_placement_fraction`` when computed, ``classifier``,
    ``train_error`` and ``test_error`` (option ``classifier``), ``reported`` (JSON, option
    ``report``), provenance) and the arrays present: ``train_index, train_embedding, novel_index,
    novel_embedding`` (embedding, basis and attribute), ``train_labels, novel_labels`` (labelled
    data), ``basis`` (rows of ``components_``, in the input space: ``n_show`` rows for basis
    panels) and ``mean`` (estimators with ``components_``), ``sample_index, samples,
    sample_labels`` (samples panels), ``train_colour, novel_colour`` (colour by feature),
    ``train_input, novel_input`` (space input), ``selected_index`` (select), ``train_attribute,
    train_feature`` (kind attribute), ``class_means, class_mean_labels`` (classifier) and
    ``border_index, border_coordinates, border_images`` (images).
    """
    with reading_h5(path) as h5:
        result = {name: h5[name][()] for name in h5}
        for key, value in h5.attrs.items():
            result[key] = value.decode() if isinstance(value, bytes) else value
    result["image_shape"] = tuple(int(v) for v in result.get("image_shape", ())) or None
    result["class_names"] = [v.decode() if isinstance(v, bytes) else str(v) for v in result.get("class_names", [])]
    return result


# --------------------------------------------------------------------------- aggregation


def aggregate_embedding(spec: dict, panel_paths: dict, out_dir, notes: dict | None = None, seed=None) -> None:
    """Figures, order checks and run metadata of an embedding experiment.

    Parameters
    ----------
    spec : dict
        The experiment's config entry (``panels``, ``figures``).
    panel_paths : dict
        Panel name -> the file :func:`run_panel` wrote.
    out_dir : path
        Receives ``figures/{figure}.png`` and ``.pdf`` (one per entry of ``figures``),
        ``checks.csv``, ``checks.md``, ``metadata.yaml`` and, with ``published``, the paper's
        statements beside the checks (:func:`compare_checks`: ``comparison.csv/.md``, the
        experiment being the name of ``out_dir``); all written atomically, and the
        figures and tables are the same bytes on every rerun.
    notes : dict, optional
        Dataset -> how its data differ from the paper's (:func:`locproj.experiments.data_notes`),
        printed on every figure showing that dataset and under the checks table.
    seed : optional
        Recorded in ``metadata.yaml``.
    """
    from ..reporting import write_metadata

    out_dir = Path(out_dir)
    unknown = sorted(set(panel_paths) - set(spec.get("panels") or {}))
    if unknown:
        raise ValueError(f"panel files for unknown panels {unknown}")
    for name, figure in (spec.get("figures") or {}).items():
        missing = [p for p in figure["panels"] if p not in panel_paths]
        if missing:
            raise ValueError(f"figure {name!r}: no panel file for {missing}")
    panels = {name: read_panel(path) for name, path in panel_paths.items()}
    for name, figure in (spec.get("figures") or {}).items():
        plot_figure(figure, {p: (spec["panels"][p], panels[p]) for p in figure["panels"]},
                    out_dir / "figures" / name, notes)
    table = checks_table(spec, panels)
    write_checks(table, out_dir, notes)
    if spec.get("published"):
        write_check_comparison(compare_checks(table, spec, experiment=out_dir.name), out_dir)
    write_metadata(out_dir / "metadata.yaml", spec, seed)


PUBLISHED_CHECK_KINDS = ("value", "about")


def compare_checks(table: pd.DataFrame, spec: dict, experiment: str) -> pd.DataFrame:
    """The paper's statements about a panel's checks beside ours (option ``published``: a CSV of
    rows ``experiment, panel, check, kind, published, slack, source``, those of ``experiment``;
    ``check`` names a column of the checks table). A ``value`` holds when ours equals it, an ``about`` when it is within
    ``slack``; where it does not, the most specific configured reason (keys ``panel``, ``check``). A check
    without a value of ours (a stopping rule that never fired in the iterations run: ``None``) does not
    hold, and says so when no reason is configured."""
    import pandas as pd

    from .. import aggregate

    published = pd.read_csv(spec["published"], comment="#")
    published = published[published["experiment"] == experiment]
    bad = sorted(set(published["kind"]) - set(PUBLISHED_CHECK_KINDS))
    missing = sorted({f"{r.panel}/{r.check}" for r in published.itertuples()
                      if r.panel not in set(table["panel"]) or r.check not in table})
    if bad or missing:
        raise ValueError(f"{spec['published']}: unknown kinds {bad} or panels/checks not in the checks table {missing}")
    rows = []
    for row in published.drop(columns=["experiment"]).itertuples(index=False):
        value = table.loc[table["panel"] == row.panel, row.check].iloc[0]
        ours = float("nan") if value is None or pd.isna(value) else float(value)
        slack = 0.0 if row.kind == "value" or pd.isna(row.slack) else float(row.slack)
        holds = bool(abs(ours - row.published) <= slack)
        reason = "" if holds else aggregate.most_specific_reason(spec.get("reasons"), row, ("panel", "check"))
        if pd.isna(ours) and not reason:
            reason = "no value of ours: the check never happened in the iterations run"
        rows.append({**row._asdict(), "ours": ours, "difference": ours - row.published, "holds": holds,
                     "reason": reason})
    return pd.DataFrame(rows)


def write_check_comparison(compared: pd.DataFrame, out_dir) -> None:
    """``comparison.csv`` and ``comparison.md`` (numbers to 3 significant digits)."""
    from ..reporting import frame_to_markdown, write_table_files

    shown = compared.copy()
    for column in ("published", "slack", "ours", "difference"):
        shown[column] = shown[column].map(lambda v: "" if v != v else f"{v:.3g}")
    write_table_files(out_dir, "comparison", compared, frame_to_markdown(shown), noted=[], data_note=False)


def checks_table(spec: dict, panels: dict) -> pd.DataFrame:
    """One row per panel with order checks, a classifier or reported attributes, in the order of
    ``spec['panels']``.

    Columns ``panel, dataset, method, params`` (JSON), ``dims, turn_neighbour_fraction,
    novel_placement_fraction`` (NaN without them), ``n_train, n_novel``; then, when some panel
    has them, ``classifier, train_error, test_error``, ``train_misclassified`` and one column per
    reported attribute.
    """
    import pandas as pd

    rows = []
    for name, panel in (spec.get("panels") or {}).items():
        result = panels.get(name)
        if result is None or not any(key in result for key in ("turn_neighbour_fraction", "classifier", "reported",
                                                                "train_misclassified")):
            continue
        rows.append({
            "panel": name, "dataset": panel["dataset"], "method": panel.get("method", ""),
            "params": json.dumps(panel.get("params") or {}, sort_keys=True), "dims": int(panel.get("dims", 2)),
            "turn_neighbour_fraction": float(result.get("turn_neighbour_fraction", np.nan)),
            "novel_placement_fraction": float(result.get("novel_placement_fraction", np.nan)),
            "n_train": len(result["train_index"]), "n_novel": len(result["novel_index"]),
            **{key: result[key] for key in _CLASSIFIER_COLUMNS if key in result},
            **({"train_misclassified": int(result["train_misclassified"])} if "train_misclassified" in result else {}),
            **json.loads(result.get("reported", "{}")),
        })
    extra = [key for row in rows for key in row if key not in CHECK_COLUMNS]
    return pd.DataFrame(rows, columns=CHECK_COLUMNS + list(dict.fromkeys(extra)))


_CLASSIFIER_COLUMNS = ("classifier", "train_error", "test_error")
_FRACTIONS = ("turn_neighbour_fraction", "novel_placement_fraction", "train_error", "test_error")


def write_checks(table, out_dir, notes: dict | None = None) -> None:
    """``checks.csv`` (with a ``data_note`` column) and ``checks.md`` (fractions and errors to 3
    decimals, noted datasets marked † with their note below)."""
    from ..reporting import write_table_files

    shown = table.copy()
    for column in [c for c in _FRACTIONS if c in shown]:
        shown[column] = shown[column].map(lambda v: "" if np.isnan(v) else f"{v:.3f}")
    write_table_files(out_dir, "checks", table, shown, notes=notes, noted=table["dataset"])


# --------------------------------------------------------------------------- figures

# Layout in inches, placed by hand: a layout engine (constrained layout) moves axes by ~1e-16
# from one run to the next in the same process, which changes the PDF's printed coordinates.
_PANEL_WIDTH = 4.0     # an embedding panel
_PLOT_HEIGHT = 3.4     # its axes
_TITLE = 0.4           # band above a panel for its title
_TICKS = 0.5           # band under 2-D axes for tick labels and the axis label
_CAPTION = 0.2         # band above each image for its caption
_IMAGE_HEIGHT = 2.0    # at most, per image row
_LINE = 0.17           # a line of small text
_CHARS_PER_INCH = 14   # small text, for wrapping notes
_BORDER_IMAGE_POINTS = 30   # the longer side of a border sample's image (option images)
_BORDER_MARGIN = 0.14       # axes margins (fraction of the data range) of a panel with border images


def plot_figure(figure_spec: dict, panels: dict, stem, notes: dict | None = None,
                formats=FORMATS, dpi: int = DPI) -> list[Path]:
    """Draw one figure of ``figure_spec['panels']`` and save ``{stem}.{format}`` for each format.

    Parameters
    ----------
    figure_spec : dict
        ``title``, ``panels`` (names, in drawing order), ``columns`` (embedding panels per row).
    panels : dict
        Panel name -> (panel spec, :func:`read_panel` result).
    stem : path
        Output path without suffix.
    notes : dict, optional
        Dataset notes: the titles of noted datasets get a †, the notes are printed at the bottom.

    Returns
    -------
    list of Path
    """
    from ..reporting import new_figure, save_figure

    columns = int(figure_spec.get("columns", 3))
    rows = _rows(figure_spec["panels"], panels, columns)
    width = _PANEL_WIDTH * columns
    footer = _footer(panels, notes, width)
    heights = [_row_height(row, panels, width) for row in rows]
    top = 0.5 if figure_spec.get("title") else 0.1
    figure = new_figure((width, top + sum(heights) + _LINE * _lines(footer) + 0.15))
    if figure_spec.get("title"):
        _text(figure, width / 2, 0.1, figure_spec["title"], fontsize="large", ha="center")
    for row, height in zip(rows, heights):
        _draw_row(figure, row, panels, columns, notes, top)
        top += height
    if footer:
        _text(figure, 0.1, top + 0.05, footer, fontsize="small", ha="left")
    return save_figure(figure, Path(stem), formats=formats, dpi=dpi)


def _rect(figure, left: float, top: float, width: float, height: float) -> list[float]:
    """Figure fractions ``[left, bottom, width, height]`` of a box given in inches from the top left."""
    fig_width, fig_height = figure.get_size_inches()
    return [left / fig_width, 1 - (top + height) / fig_height, width / fig_width, height / fig_height]


def _text(figure, x: float, y: float, text: str, **kwargs) -> None:
    """Text whose top is ``y`` inches below the top of the figure, ``x`` inches from its left."""
    left, bottom, _, _ = _rect(figure, x, y, 0, 0)
    figure.text(left, bottom, text, va="top", **kwargs)


def _rows(names, panels: dict, columns: int) -> list[list[str]]:
    """Scatter panels (embedding, attribute) in rows of ``columns``; each image panel (basis,
    samples) a row of its own."""
    rows, current = [], []
    for name in names:
        if panels[name][1]["kind"] in SCATTER_KINDS:
            current.append(name)
            if len(current) == columns:
                rows, current = rows + [current], []
        else:
            rows, current = rows + ([current] if current else []) + [[name]], []
    return rows + ([current] if current else [])


def _row_height(row, panels, width) -> float:
    """Inches: title, then the axes (a scatter panel) or the images at full width, then the note."""
    spec, result = panels[row[0]]
    if result["kind"] in SCATTER_KINDS:
        note_lines = max(_lines(_note(panels[name][0], _PANEL_WIDTH)) for name in row)
        return _TITLE + _PLOT_HEIGHT + _TICKS + _LINE * note_lines + 0.1
    if result["kind"] == "history":
        return _TITLE + _PLOT_HEIGHT + _TICKS + _LINE * _lines(_note(spec, width)) + 0.1
    return _TITLE + _CAPTION + _image_height(result, width) + _LINE * _lines(_note(spec, width)) + 0.15


def _image_height(result: dict, width: float) -> float:
    h, w = result["image_shape"][:2]
    n = len(result["basis"] if result["kind"] == "basis" else result["samples"])
    return min((width / n - 0.1) * h / w, _IMAGE_HEIGHT)


def _note(spec: dict, width: float) -> str:
    """The panel's note wrapped to ``width`` inches ('' without one)."""
    return textwrap.fill(" ".join(str(spec.get("note", "")).split()), int(width * _CHARS_PER_INCH))


def _lines(text: str) -> int:
    return text.count("\n") + 1 if text else 0


def _footer(panels: dict, notes: dict | None, width: float) -> str:
    datasets = dict.fromkeys(spec["dataset"] for spec, _ in panels.values())
    lines = [f"† {name}: {notes[name]}" for name in datasets if name in (notes or {})]
    return "\n".join(textwrap.fill(line, int(width * _CHARS_PER_INCH)) for line in lines)


def _draw_row(figure, row, panels, columns: int, notes, top: float) -> None:
    """Draw the panels of one row, whose top is ``top`` inches below the figure's."""
    image_row = panels[row[0]][1]["kind"] not in SCATTER_KINDS
    cell_width = _PANEL_WIDTH * columns if image_row else _PANEL_WIDTH
    for column, name in enumerate(row):
        spec, result = panels[name]
        left = column * cell_width
        dagger = "†" if spec["dataset"] in (notes or {}) else ""
        _text(figure, left + cell_width / 2, top + 0.1, f"{spec.get('title', name)}{dagger}", ha="center")
        if result["kind"] == "history":
            bottom = _draw_history(figure, spec, result, left, top + _TITLE, cell_width)
        elif image_row:
            bottom = _draw_images(figure, spec, result, left, top + _TITLE, cell_width)
        elif result["kind"] == "attribute":
            bottom = _draw_attribute(figure, spec, result, left, top + _TITLE)
        else:
            bottom = _draw_embedding(figure, spec, result, left, top + _TITLE)
        if spec.get("note"):
            _text(figure, left + cell_width / 2, bottom, _note(spec, cell_width), fontsize="small", ha="center")


def _scatter_axes(figure, dims: int, left: float, top: float):
    if dims == 3:   # mplot3d draws its tick and axis labels inside its box
        ax = figure.add_axes(_rect(figure, left + 0.1, top, _PANEL_WIDTH - 0.2, _PLOT_HEIGHT + _TICKS),
                             projection="3d")
        ax.set_box_aspect(None, zoom=0.85)
        return ax
    return figure.add_axes(_rect(figure, left + 0.7, top, _PANEL_WIDTH - 0.9, _PLOT_HEIGHT))


def _draw_embedding(figure, spec: dict, result: dict, left: float, top: float) -> float:
    """Scatter plot in the cell at (``left``, ``top``) inches; returns the inches where its note goes."""
    dims = int(spec.get("dims", 2))
    ax = _scatter_axes(figure, dims, left, top)
    Z, Zn = _coordinates(spec, result, "train"), _coordinates(spec, result, "novel")
    visible = _visible(spec, result)
    style = _colours(spec, result)
    if spec.get("classifier") and dims == 2:
        _draw_regions(ax, result, np.r_[Z[visible["train"]], Zn[visible["novel"]]])
    overlay_handles = _draw_overlays(ax, spec, result) if spec.get("overlays") else []
    if spec.get("cyclic") and spec.get("colour", "order") == "order":
        loop = np.argsort(result["train_index"], kind="stable")
        loop = np.r_[loop, loop[:1]]
        ax.plot(*Z[loop].T, color="0.6", linewidth=0.6, zorder=1)
    extra = {"depthshade": False} if dims == 3 else {}
    ax.scatter(*Z[visible["train"]].T, s=10, zorder=2, **_masked(style["train"], visible["train"]), **extra)
    handles = style["handles"] + overlay_handles
    if "misclassified_index" in result:
        handles = handles + [_draw_misclassified(ax, result, Z)]
    if visible["novel"].any():
        marker = _novel_marker(spec, int(visible["novel"].sum()))
        handles = handles + [ax.scatter(*Zn[visible["novel"]].T, zorder=3, **marker,
                                        **_masked(style["novel"], visible["novel"]), **extra)]
    setters = (ax.set_xlabel, ax.set_ylabel, getattr(ax, "set_zlabel", None))
    for label, set_label in zip(_axis_labels(spec, dims), setters):
        set_label(label)
    ax.tick_params(labelsize="x-small")
    if handles:   # in one row above the decision regions' points when a classifier is drawn
        in_row = spec.get("classifier") or spec.get("overlays")
        row = {"ncol": min(len(handles), 4), "columnspacing": 0.8, "handletextpad": 0.2} if in_row else {}
        ax.legend(handles=handles, fontsize="x-small", loc="upper right", **row)
    if spec.get("classifier"):
        _print_error(ax, spec, result)
    if "reported" in result:
        _print_reported(ax, result)
    if "border_index" in result:
        ax.margins(_BORDER_MARGIN)   # room for the images centred on the outermost points
        _draw_border_images(ax, result)
    return top + _PLOT_HEIGHT + _TICKS


def _draw_overlays(ax, spec: dict, result: dict) -> list:
    """The estimator on the input plane (option ``overlays``); returns legend handles."""
    from matplotlib.lines import Line2D

    gx, gy = result["overlay_x"], result["overlay_y"]
    overlays, handles = spec["overlays"], []
    if "gating_field" in overlays:
        field = ax.contourf(gx, gy, result["gating_grid"][:, :, 0], levels=np.linspace(0, 1, 11), cmap="PuOr",
                            alpha=0.45, zorder=0)
        bar = ax.inset_axes([0.03, 0.04, 0.3, 0.035])
        ax.figure.colorbar(field, cax=bar, orientation="horizontal", ticks=[0, 0.5, 1])
        bar.tick_params(labelsize="xx-small", pad=1)
        bar.set_title(r"$\eta_1(x)$", fontsize="x-small", pad=2)
    if "gating" in overlays:
        ax.contour(gx, gy, result["gating_grid"][:, :, 0], levels=[0.5], colors="k", linestyles="--",
                   linewidths=2.0, zorder=1)
        handles.append(Line2D([], [], color="k", linestyle="--", linewidth=2.0, label=r"$\eta_1 = 0.5$"))
    if "decision" in overlays:
        ax.contour(gx, gy, result["decision_grid"], levels=[0.0], colors="0.25", linewidths=1.2, zorder=1)
        handles.append(Line2D([], [], color="0.25", linewidth=1.2, label="$f(x) = 0$"))
    if "projections" in overlays:
        length = 0.22 * min(gx[-1] - gx[0], gy[-1] - gy[0])
        vectors = result["projection_vectors"]
        per_region = len(vectors) // len(np.unique(result["projection_origins"], axis=0))
        for i, (origin, vector) in enumerate(zip(result["projection_origins"], vectors)):
            tip = origin + length * vector / (np.linalg.norm(vector) or 1.0)
            ax.annotate("", xy=tip, xytext=origin, zorder=4,
                        arrowprops={"arrowstyle": "-|>", "color": "k", "linewidth": 1.6, "mutation_scale": 14})
            label = f"$W_{i // per_region + 1}$" + (f"[:, {i % per_region + 1}]" if per_region > 1 else "")
            ax.annotate(label, xy=tip, xytext=(4, 4), textcoords="offset points", fontsize="small", zorder=4,
                        bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.7, "pad": 0.5})
    ax.set_xlim(gx[0], gx[-1])
    ax.set_ylim(gy[0], gy[-1])
    return handles


_SERIES_LABELS = {"objective": "objective $J$", "train_accuracy": "training accuracy",
                  "test_accuracy": "test accuracy", "support_fraction": "support vectors", "n_support": "support vectors"}
_PERCENT_SERIES = ("train_accuracy", "test_accuracy", "support_fraction")
_STOP_MARKERS = ("s", "o", "D", "^")


def _draw_history(figure, spec: dict, result: dict, left: float, top: float, width: float) -> float:
    """One axes per group of ``series`` across the row, values per iteration, with the iteration each
    ``stops`` tau would stop at marked on every curve; returns the inches where the note goes."""
    groups = spec.get("series", DEFAULT_SERIES)
    step = width / len(groups)
    stops = [(tau, tau_stop(result["history_objective"], tau)) for tau in result["stops"]]
    for k, group in enumerate(groups):
        ax = figure.add_axes(_rect(figure, left + k * step + 0.75, top, step - 0.95, _PLOT_HEIGHT))
        percent = all(name in _PERCENT_SERIES for name in group)
        for j, name in enumerate(group):
            values = result[f"history_{name}"] * (100.0 if percent else 1.0)
            t = np.arange(1, len(values) + 1)
            colour = "k" if name == "objective" else f"C{j}"
            ax.plot(t, values, color=colour, marker=".", markersize=4, linewidth=1.2,
                    label=_SERIES_LABELS.get(name, name))
        for (tau, stop), marker in zip(stops, _STOP_MARKERS):
            points = [] if stop is None else [(stop, result[f"history_{name}"][stop - 1] * (100.0 if percent else 1.0))
                                              for name in group]
            label = f"τ = {tau:g}: stops at {stop}" if stop else f"τ = {tau:g}: no stop in {len(t)}"
            ax.plot(*(np.array(points).T if points else ([], [])), linestyle="", marker=marker, markersize=9,
                    markerfacecolor="none", markeredgecolor="k", markeredgewidth=1.4, zorder=4, label=label)
        ax.set_xlabel("iteration")
        ax.set_ylabel("%" if percent else ", ".join(_SERIES_LABELS.get(n, n) for n in group))
        ax.set_xlim(0.5, len(result["history_objective"]) + 0.5)
        ax.tick_params(labelsize="x-small")
        ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 4))
        ax.yaxis.get_offset_text().set_fontsize("x-small")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small", loc="best")
    return top + _PLOT_HEIGHT + _TICKS


def _masked(style: dict, mask: np.ndarray) -> dict:
    """Scatter arguments for the points in ``mask`` (the colours of the others dropped)."""
    if mask.all():
        return style
    return {key: (np.asarray(value)[mask] if key == "c" else value) for key, value in style.items()}


def _draw_misclassified(ax, result: dict, Z: np.ndarray):
    """Open stars around the training points the panel's classifier misclassifies."""
    wrong = np.isin(result["train_index"], result["misclassified_index"])
    return ax.scatter(*Z[wrong, :2].T, s=220, marker="*", facecolors="none", edgecolors="k", linewidths=1.0,
                      zorder=4, label=f"misclassified ({int(wrong.sum())})")


def _novel_marker(spec: dict, n: int) -> dict:
    """Few held-out points (``novel``) as large stars; a test set (``split``) as small squares;
    option ``novel_marker`` overrides the marker, its size and its edge colour."""
    if spec.get("split"):
        style = {"s": 8, "marker": "s", "linewidths": 0, "label": f"test ({n})"}
    else:
        style = {"s": 140, "marker": "*", "edgecolors": "k", "linewidths": 0.6, "label": f"novel ({n})"}
    custom = spec.get("novel_marker") or {}
    if "marker" in custom:
        style["marker"] = custom["marker"]
    if "size" in custom:
        style["s"] = custom["size"]
    if "edgecolor" in custom:
        edge = custom["edgecolor"]
        style.update({"edgecolors": edge, "linewidths": 0 if edge == "none" else 0.6})
    return style


def _axis_labels(spec: dict, dims: int) -> list[str]:
    if spec.get("axis_labels"):
        return list(spec["axis_labels"])
    letter = "x" if spec.get("space") == "input" or spec.get("method") == "raw" else "y"
    return [f"${letter}_{i + 1}$" for i in range(dims)]


def _class_colour(label) -> tuple:
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return cmap(int(label) % cmap.N)


def _draw_regions(ax, result: dict, Z: np.ndarray, steps: int = 300) -> None:
    """The nearest-mean decision regions (light) and boundaries (dark) over the drawn points."""
    from matplotlib.colors import ListedColormap

    means, labels = result["class_means"], result["class_mean_labels"]
    low, high = np.r_[Z, means].min(axis=0), np.r_[Z, means].max(axis=0)
    # wider above and below: a band for the legend (top) and the error (bottom) clear of the points
    margin = np.array([0.06, 0.16]) * np.where(high > low, high - low, 1.0)
    low, high = low - margin, high + margin
    gx, gy = np.meshgrid(np.linspace(low[0], high[0], steps), np.linspace(low[1], high[1], steps))
    grid = np.c_[gx.ravel(), gy.ravel()]
    nearest = np.argmin(((grid[:, None, :] - means[None]) ** 2).sum(axis=2), axis=1).reshape(gx.shape)
    colours = ListedColormap([_class_colour(label) for label in labels])
    levels = np.arange(len(labels) + 1) - 0.5
    ax.contourf(gx, gy, nearest, levels=levels, cmap=colours, alpha=0.12, zorder=0)
    ax.contour(gx, gy, nearest, levels=levels[1:-1], colors="k", linewidths=0.8, zorder=1)
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])


def _print_error(ax, spec: dict, result: dict) -> None:
    """``e`` of the nearest-mean classifier on the points drawn: test points when drawn, else training."""
    test = spec.get("draw", "all") != "train" and "test_error" in result
    error, which = (result["test_error"], "test") if test else (result["train_error"], "training")
    ax.text(0.03, 0.03, f"e = {error:.3f} ({which})", transform=ax.transAxes, ha="left", va="bottom",
            fontsize="small", zorder=5, bbox={"facecolor": "white", "edgecolor": "0.7", "alpha": 0.85})


def _print_reported(ax, result: dict) -> None:
    """The reported attributes (option ``report``), bottom right."""
    text = ", ".join(f"{name} = {value}" for name, value in json.loads(result["reported"]).items())
    ax.text(0.97, 0.03, text, transform=ax.transAxes, ha="right", va="bottom", fontsize="small", zorder=5,
            bbox={"facecolor": "white", "edgecolor": "0.7", "alpha": 0.85})


def _draw_border_images(ax, result: dict) -> None:
    """Each border sample as a small grey image centred on its point."""
    from matplotlib.colors import Normalize
    from matplotlib.offsetbox import AnnotationBbox, OffsetImage

    shape = tuple(result["image_shape"])
    norm = Normalize(result["border_images"].min(), result["border_images"].max())
    zoom = _BORDER_IMAGE_POINTS / max(shape[:2])   # an image pixel is drawn as zoom points
    for image, xy in zip(result["border_images"], result["border_coordinates"]):
        picture = OffsetImage(_grey(image.reshape(shape)), cmap="gray", norm=norm, zoom=zoom)
        ax.add_artist(AnnotationBbox(picture, tuple(xy), frameon=True, pad=0.1, zorder=4))


def _draw_attribute(figure, spec: dict, result: dict, left: float, top: float) -> float:
    """A fitted per-sample attribute against an input coordinate; returns the inches where the note goes."""
    ax = _scatter_axes(figure, 2, left, top)
    style = _colours(spec, result)["train"] if isinstance(spec.get("colour"), dict) else {"c": "C0"}
    ax.scatter(result["train_feature"], result["train_attribute"], s=6, zorder=2, **style)
    centres, medians = binned_medians(result["train_feature"], result["train_attribute"])
    ax.plot(centres, medians, color="k", linewidth=1.2, zorder=3, label="median in 20 bins of x")
    ax.legend(fontsize="x-small", loc="upper right")
    default = [f"$x_{spec.get('feature', 0) + 1}$", spec["attribute"]]
    xlabel, ylabel = spec.get("axis_labels") or default
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-2, 3))
    ax.tick_params(labelsize="x-small")
    ax.yaxis.get_offset_text().set_fontsize("x-small")
    return top + _PLOT_HEIGHT + _TICKS


def binned_medians(x, values, bins: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Centres of ``bins`` equal-width bins of ``x`` and the median of ``values`` in each (empty
    bins left out): the trend line of an attribute panel."""
    x, values = np.asarray(x, dtype=float), np.asarray(values, dtype=float)
    edges = np.linspace(x.min(), x.max(), bins + 1)
    which = np.clip(np.digitize(x, edges) - 1, 0, bins - 1)
    filled = [b for b in range(bins) if np.any(which == b)]
    centres = (edges[:-1] + edges[1:]) / 2
    return centres[filled], np.array([np.median(values[which == b]) for b in filled])


def _colours(spec: dict, result: dict) -> dict:
    """Scatter colour arguments for training and novel points, and legend handles for classes."""
    from matplotlib.colors import Normalize
    from matplotlib.lines import Line2D

    colour = spec.get("colour", "order")
    if colour == "label":
        def colour_of(labels):
            return [_class_colour(label) for label in labels]

        present = np.union1d(result["train_labels"], result.get("novel_labels", []))
        handles = [Line2D([], [], linestyle="", marker="o", markersize=4, color=colour_of([c])[0],
                          label=result["class_names"][int(c)]) for c in present]
        return {"train": {"c": colour_of(result["train_labels"])},
                "novel": {"c": colour_of(result.get("novel_labels", []))}, "handles": handles}
    if isinstance(colour, dict):
        values = np.r_[result["train_colour"], result["novel_colour"]]
        norm = Normalize(values.min(), values.max())
        return {"train": {"c": result["train_colour"], "cmap": "viridis", "norm": norm},
                "novel": {"c": result["novel_colour"], "cmap": "viridis", "norm": norm}, "handles": []}
    everything = np.r_[result["train_index"], result["novel_index"]]
    norm = Normalize(everything.min(), everything.max() + (1 if spec.get("cyclic") else 0))
    cmap = "twilight" if spec.get("cyclic") else "viridis"
    return {"train": {"c": result["train_index"], "cmap": cmap, "norm": norm},
            "novel": {"c": result["novel_index"], "cmap": cmap, "norm": norm}, "handles": []}


def _draw_images(figure, spec: dict, result: dict, left: float, top: float, width: float) -> float:
    """A row of images (basis vectors or samples) under ``top``; returns the inches where its note goes."""
    shape = result["image_shape"]
    if result["kind"] == "basis":
        images = [_grey(vector.reshape(shape)) for vector in result["basis"]]
        captions, limits = [f"{i + 1}" for i in range(len(images))], [(img.min(), img.max()) for img in images]
    else:
        low, high = result["samples"].min(), result["samples"].max()
        images = [(s.reshape(shape) - low) / ((high - low) or 1.0) for s in result["samples"]]
        captions, limits = [f"#{int(i)}" for i in result["sample_index"]], [(0.0, 1.0)] * len(images)
    step, height = width / len(images), _image_height(result, width)
    if spec.get("captions"):
        if len(spec["captions"]) != len(images):
            raise ValueError(f"panel {spec.get('title', '')!r}: {len(spec['captions'])} captions for "
                             f"{len(images)} images")
        captions = list(spec["captions"])
    for i, (image, caption, (vmin, vmax)) in enumerate(zip(images, captions, limits)):
        ax = figure.add_axes(_rect(figure, left + i * step + 0.05, top + _CAPTION, step - 0.1, height))
        if image.ndim == 3 and image.shape[2] == 3:
            ax.imshow(image, interpolation="nearest")
        else:
            ax.imshow(_grey(image), cmap="gray", vmin=vmin, vmax=vmax, interpolation="nearest")
        ax.set_title(caption, fontsize="x-small", pad=2)
        ax.set_axis_off()
    return top + _CAPTION + height + 0.05


def _grey(image: np.ndarray) -> np.ndarray:
    """2-D images as they are; other shapes (e.g. an RGB basis vector) averaged over the last axis."""
    return image if image.ndim == 2 else image.mean(axis=-1)


class Embedding(Protocol):
    """One job per panel (``embed_panel.py``: :func:`run_panel`), then one aggregation."""

    name = "embedding"

    def check(self, spec: dict) -> None:
        check_spec(spec)

    def datasets(self, spec: dict) -> list[str]:
        return list(dict.fromkeys(panel["dataset"] for panel in spec["panels"].values()))

    def method_entries(self, spec: dict) -> dict:
        return {}      # each panel's method is checked by check_spec

    def aggregation_inputs(self, config: dict, experiment: str) -> dict[str, str]:
        return {panel: f"results/{experiment}/panels/{panel}.h5" for panel in config["experiments"][experiment]["panels"]}

    def job_rules(self, config: dict, experiment: str) -> list[JobRule]:
        spec = config["experiments"][experiment]
        return [JobRule(
            name=f"embed_{experiment}",
            output=[f"results/{experiment}/panels/{{panel}}.h5"],
            log=f"logs/embed/{experiment}/{{panel}}.log",
            input=dict(data=lambda wc: data_file(config, spec["panels"][wc.panel]["dataset"])),
            params=dict(panel=lambda wc: spec["panels"][wc.panel], seed=config["seed"]),
            script="embed_panel.py",
            runtime=10,
            mem_mb=2000,
            wildcard_constraints=dict(panel="[A-Za-z0-9_]+"),
        )]

    def aggregate(self, spec: dict, inputs, out_dir, seed=None, notes=None) -> None:
        aggregate_embedding(spec, dict(inputs.items()), out_dir, notes=notes, seed=seed)

    def outputs(self, experiment: str, spec: dict) -> list[Output]:
        out = f"results/{experiment}"
        published = [Output("comparison_csv", f"{out}/comparison.csv", "../report/comparison.rst"),
                     Output("comparison_md", f"{out}/comparison.md", target=True)] if spec.get("published") else []
        figures, metadata = figures_and_metadata(out, "../report/figures_embedding.rst")
        return [Output("checks_csv", f"{out}/checks.csv", "../report/checks.rst"),
                Output("checks_md", f"{out}/checks.md", target=True),
                *published, figures, dataclasses.replace(metadata, target=True)]


PROTOCOL = Embedding()
