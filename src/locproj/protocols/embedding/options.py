"""The options of the ``embedding`` protocol (the reference below) and their checks.

The ``embedding`` protocol: one fit per panel, drawn as scatter plots or images (Figs. 1-3 of paper 001,
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
        :func:`locproj.engine.registry.make_estimator` name and parameters (kinds embedding, basis and
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

PANEL_KINDS = ("embedding", "basis", "samples", "attribute", "history")
SCATTER_KINDS = ("embedding", "attribute")   # drawn on axes, several to a row
IMAGE_KINDS = ("basis", "samples")           # a row of images
OVERLAYS = ("gating", "gating_field", "decision", "projections")
DEFAULT_SERIES = [["objective"], ["train_accuracy", "test_accuracy"], ["support_fraction"]]
COLOURS = ("order", "label")                 # or {feature: j}
SPACES = ("embedding", "input")
DRAWS = ("all", "train", "novel")
CLASSIFIERS = ("nearest_mean",)
FIGURE_FORMATS = ("png", "pdf")   # the files each embedding figure is saved as
DPI = 150
CHECK_COLUMNS = ["panel", "dataset", "method", "params", "dims", "turn_neighbour_fraction",
                 "novel_placement_fraction", "n_train", "n_novel"]


# --------------------------------------------------------------------------- configuration


def check_spec(spec: dict) -> None:
    """Fail, naming the panel or figure, on an unknown kind, colour, dims, method or panel name."""
    from ...engine.registry import make_estimator

    panels = spec.get("panels") or {}
    for name, panel in panels.items():
        check_panel(name, panel)
        # a method by import path is checked by the engine, which knows where to look for it
        if panel["kind"] != "samples" and not by_import_path(panel):
            try:
                make_estimator(panel["method"], **fit_params(panel))
            except (ValueError, NotImplementedError) as error:
                raise ValueError(f"panel {name!r}: {error}") from error
    for name, figure in (spec.get("figures") or {}).items():
        unknown = [p for p in figure.get("panels", []) if p not in panels]
        if unknown:
            raise ValueError(f"figure {name!r}: unknown panels {unknown}; known: {sorted(panels)}")


def check_panel(name: str, panel: dict) -> None:
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
    from ...report.writers import is_colour, is_marker   # matplotlib's checks: imported only for a novel_marker

    def bad(why):
        fail(f"novel_marker must be {{marker, size, edgecolor}} ({why}), got {style!r}")

    if not (isinstance(style, dict) and style and set(style) <= {"marker", "size", "edgecolor"}):
        bad("one or more of these keys")
    if "marker" in style and not is_marker(style["marker"]):
        bad(f"{style['marker']!r} is not a matplotlib marker")
    size = style.get("size", 1)
    if isinstance(size, bool) or not isinstance(size, (int, float)) or size <= 0:
        bad("size is an area in points^2 > 0")
    edge = style.get("edgecolor", "none")
    if not (isinstance(edge, str) and (edge == "none" or is_colour(edge))):
        bad(f"edgecolor {edge!r} is not a matplotlib colour or none")


def by_import_path(panel: dict) -> bool:
    """Whether the panel's ``method`` is an estimator's import path (``module:Class``)."""
    return ":" in panel.get("method", "")


def method_entry(panel: dict) -> dict:
    """The panel's method as an experiment's method entry (:func:`locproj.engine.registry.method_spec`)."""
    return {"estimator": panel["method"], "ordered": True} if by_import_path(panel) else {"method": panel["method"]}


def projects(panel: dict) -> bool:
    """Whether the panel's method maps the data to new coordinates: a method by import path does, a
    built-in one as its registry entry declares (``raw``, the input coordinates, does not). A panel
    without a method, or with a name the registry does not know (refused where the panel is
    checked), counts as one that does."""
    from ...engine.registry import METHODS

    spec = None if by_import_path(panel) else METHODS.get(panel.get("method"))
    return spec is None or spec.projects


def fit_params(panel: dict) -> dict:
    params = dict(panel.get("params") or {})
    if not projects(panel):   # the input coordinates: no n_components (registry.make_estimator)
        return params
    if panel["kind"] == "history" or basis_sources(panel) != ["components"]:
        return params               # the estimator's own default
    default = panel.get("n_show", 3) if panel["kind"] == "basis" else panel.get("dims", 2)
    params.setdefault("n_components", default)
    return params


def basis_sources(panel: dict) -> list[str]:
    sources = panel.get("basis", "components")
    return list(sources) if isinstance(sources, list) else [sources]
