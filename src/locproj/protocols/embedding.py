"""The ``embedding`` protocol: one fit per panel, drawn as scatter plots or images (Figs. 1-3 of paper 001).

An experiment with ``protocol: embedding`` has two keys:

``panels``: name -> panel
    ``kind``
        ``embedding`` (training and novel points mapped to 2-D or 3-D), ``basis`` (the first
        ``n_show`` rows of ``components_`` drawn as images: Eigenfaces, LEAfaces) or ``samples``
        (``n_show`` evenly spaced samples drawn as images).
    ``dataset``
        Dataset or view name.
    ``method``, ``params``
        :func:`locproj.registry.make_estimator` name and parameters (kinds embedding and basis);
        ``n_components`` defaults to ``dims`` (embedding) or ``n_show`` (basis).
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
    ``colour`` (``order`` | ``label``, default ``order``)
        Colour by sample index (a cyclic colormap when ``cyclic``) or by class.
    ``cyclic`` (default false)
        The sample order is one closed turn (the teapot): training points are joined in order and
        the order checks below are stored.
    ``n_show`` (default 3 for basis, 10 for samples)
    ``title``, ``note`` (optional)
        The panel's title, and text printed under it (e.g. how the data differ from the paper's).

``figures``: name -> ``{title, panels: [panel names], columns}``
    One multi-panel figure each; ``columns`` (default 3) embedding panels share a row, basis and
    samples panels take a row each.

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

import json
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import h5py
import numpy as np

from .._io import atomic_path, reading_h5

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "KINDS", "COLOURS", "aggregate_embedding", "check_spec", "checks_table", "input_space_basis",
    "novel_placement_fraction", "novel_split", "plot_figure", "read_panel", "run_panel", "select_samples",
    "turn_neighbour_fraction", "write_checks",
]

KINDS = ("embedding", "basis", "samples")
COLOURS = ("order", "label")
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

    if panel.get("kind") not in KINDS:
        fail(f"kind must be one of {KINDS}, got {panel.get('kind')!r}")
    if "dataset" not in panel:
        fail("no dataset")
    if panel["kind"] != "samples" and "method" not in panel:
        fail(f"kind {panel['kind']!r} needs a method")
    if panel.get("dims", 2) not in (2, 3):
        fail(f"dims must be 2 or 3, got {panel.get('dims')!r}")
    n_components, dims = (panel.get("params") or {}).get("n_components"), panel.get("dims", 2)
    if panel["kind"] == "embedding" and n_components is not None and n_components < dims:
        fail(f"n_components {n_components} is fewer than the {dims} dims drawn")
    if panel.get("colour", "order") not in COLOURS:
        fail(f"colour must be one of {COLOURS}, got {panel.get('colour')!r}")
    if panel.get("pca") is not None and not (isinstance(panel["pca"], int) and panel["pca"] >= 1):
        fail(f"pca must be a positive number of components, got {panel['pca']!r}")
    novel = panel.get("novel")
    if novel and not (int(novel.get("every", 0)) >= 2 and 0 <= int(novel.get("offset", 0)) < int(novel["every"])):
        fail(f"novel needs every >= 2 and 0 <= offset < every, got {novel}")


def _fit_params(panel: dict) -> dict:
    params = dict(panel.get("params") or {})
    default = panel.get("n_show", 3) if panel["kind"] == "basis" else panel.get("dims", 2)
    params.setdefault("n_components", default)
    return params


# --------------------------------------------------------------------------- samples


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


def run_panel(panel: dict, data_path, output_path, provenance: dict | None = None) -> None:
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
    """
    from ..data import read_dataset_file

    _check_panel(panel.get("title", "(untitled)"), panel)
    data = read_dataset_file(data_path)
    kept = select_samples(data, panel.get("classes"))
    if panel["kind"] != "embedding" and data.image_shape is None:
        raise ValueError(f"kind {panel['kind']!r} draws images, but {data_path} holds no image shape")
    if panel.get("colour") == "label" and data.y is None:
        raise ValueError(f"colour 'label' asked for, but {data_path} has no labels")
    if panel["kind"] == "samples":
        arrays, checks = _sample_arrays(panel, data, kept), {}
    else:
        arrays, checks = _fit_arrays(panel, data, kept)
    _write_panel(output_path, arrays, {**(provenance or {}), **_panel_attrs(panel, data), **checks})


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


def _fit_arrays(panel: dict, data, kept: np.ndarray) -> tuple[dict, dict]:
    """The fit's arrays, and the order checks (cyclic embedding panels; else empty)."""
    from sklearn.decomposition import PCA
    from sklearn.pipeline import Pipeline

    from ..registry import make_estimator

    train_pos, novel_pos = novel_split(len(kept), panel.get("novel"))
    train, novel = kept[train_pos], kept[novel_pos]
    estimator = make_estimator(panel["method"], **_fit_params(panel))
    if panel.get("pca"):
        # the full SVD: scikit-learn's default picks a randomised one for few components
        estimator = Pipeline([("pca", PCA(n_components=panel["pca"], svd_solver="full")), ("method", estimator)])
    y_train = None if data.y is None else data.y[train]
    Z_train = estimator.fit_transform(data.X[train], y_train)   # LLE: its embedding_; linear: the projection
    Z_novel = estimator.transform(data.X[novel]) if len(novel) else np.empty((0, Z_train.shape[1]))
    arrays = {
        "train_index": train, "train_embedding": Z_train, "novel_index": novel, "novel_embedding": Z_novel,
        **_labels(data, train, "train"), **_labels(data, novel, "novel"),
    }
    basis = input_space_basis(estimator)
    if basis is not None:
        rows = int(panel.get("n_show", 3)) if panel["kind"] == "basis" else None
        arrays["basis"], arrays["mean"] = basis[0][:rows], basis[1]
    checks = {}
    if panel["kind"] == "embedding" and panel.get("cyclic"):
        checks = _order_checks(Z_train, train, Z_novel, novel, int(panel.get("dims", 2)))
    return arrays, checks


def input_space_basis(estimator) -> tuple[np.ndarray, np.ndarray] | None:
    """``(components, mean)`` in the input space, so that ``transform(X) = (X - mean) @ components.T``;
    None for an estimator without ``components_`` (a nonlinear embedding such as LLE).

    For a PCA-then-method pipeline, ``components = C_m C_pca`` and
    ``mean = mean_pca + mean_m C_pca`` (the rows of ``C_pca`` are orthonormal).
    """
    from sklearn.pipeline import Pipeline

    if isinstance(estimator, Pipeline):
        pca, method = estimator.named_steps["pca"], estimator.named_steps["method"]
        inner = input_space_basis(method)
        if inner is None:
            return None
        return inner[0] @ pca.components_, pca.mean_ + inner[1] @ pca.components_
    if not hasattr(estimator, "components_"):
        return None
    components = np.asarray(estimator.components_)
    return components, np.asarray(getattr(estimator, "mean_", np.zeros(components.shape[1])))


def _order_checks(Z_train, train, Z_novel, novel, dims: int) -> dict:
    checks = {"turn_neighbour_fraction": turn_neighbour_fraction(Z_train[:, :dims], train)}
    if len(novel):
        checks["novel_placement_fraction"] = novel_placement_fraction(
            Z_train[:, :dims], train, Z_novel[:, :dims], novel)
    return checks


def _write_panel(path, arrays: dict, attrs: dict) -> None:
    with atomic_path(path) as tmp, h5py.File(tmp, "w") as h5:
        for name in sorted(arrays):
            h5.create_dataset(name, data=arrays[name], track_times=False)
        for key in sorted(attrs):
            h5.attrs[key] = attrs[key]


def read_panel(path) -> dict:
    """A panel file as a dict.

    Keys: the attributes (``kind, dataset, method, params`` (JSON), ``panel`` (JSON),
    ``image_shape`` (tuple or None), ``class_names`` (list), the checks
    ``turn_neighbour_fraction`` and ``novel_placement_fraction`` when computed, provenance) and the
    arrays present: ``train_index, train_embedding, novel_index, novel_embedding`` (embedding and
    basis), ``train_labels, novel_labels`` (labelled data), ``basis`` (rows of ``components_``,
    in the input space: ``n_show`` rows for basis panels) and ``mean`` (estimators with
    ``components_``), ``sample_index, samples, sample_labels`` (samples panels).
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
        ``checks.csv``, ``checks.md`` and ``metadata.yaml``; all written atomically, and the
        figures and tables are the same bytes on every rerun.
    notes : dict, optional
        Dataset -> how its data differ from the paper's (:func:`locproj.experiments.data_notes`),
        printed on every figure showing that dataset and under the checks table.
    seed : optional
        Recorded in ``metadata.yaml``.
    """
    from ..experiments import write_metadata

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
    write_checks(checks_table(spec, panels), out_dir, notes)
    write_metadata(out_dir / "metadata.yaml", spec, seed)


def checks_table(spec: dict, panels: dict) -> pd.DataFrame:
    """One row per panel with order checks, in the order of ``spec['panels']``.

    Columns ``panel, dataset, method, params`` (JSON), ``dims, turn_neighbour_fraction,
    novel_placement_fraction`` (NaN without novel points), ``n_train, n_novel``.
    """
    import pandas as pd

    rows = []
    for name, panel in (spec.get("panels") or {}).items():
        result = panels.get(name)
        if result is None or "turn_neighbour_fraction" not in result:
            continue
        rows.append({
            "panel": name, "dataset": panel["dataset"], "method": panel.get("method", ""),
            "params": json.dumps(panel.get("params") or {}, sort_keys=True), "dims": int(panel.get("dims", 2)),
            "turn_neighbour_fraction": float(result["turn_neighbour_fraction"]),
            "novel_placement_fraction": float(result.get("novel_placement_fraction", np.nan)),
            "n_train": len(result["train_index"]), "n_novel": len(result["novel_index"]),
        })
    return pd.DataFrame(rows, columns=CHECK_COLUMNS)


def write_checks(table, out_dir, notes: dict | None = None) -> None:
    """``checks.csv`` (with a ``data_note`` column) and ``checks.md`` (fractions to 3 decimals,
    noted datasets marked † with their note below)."""
    from .. import aggregate

    out_dir = Path(out_dir)
    aggregate.write_text(out_dir / "checks.csv", aggregate._frame_to_csv(aggregate._with_notes(table, notes)))
    shown = table.copy()
    for column in ("turn_neighbour_fraction", "novel_placement_fraction"):
        shown[column] = shown[column].map(lambda v: "" if np.isnan(v) else f"{v:.3f}")
    markdown = aggregate._frame_to_markdown(aggregate._mark_noted(shown, notes))
    aggregate.write_text(out_dir / "checks.md", markdown + aggregate.notes_text(notes, table["dataset"]))


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
    from ..aggregate import new_figure, save_figure

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
    """Embedding panels in rows of ``columns``; each image panel (basis, samples) a row of its own."""
    rows, current = [], []
    for name in names:
        if panels[name][1]["kind"] == "embedding":
            current.append(name)
            if len(current) == columns:
                rows, current = rows + [current], []
        else:
            rows, current = rows + ([current] if current else []) + [[name]], []
    return rows + ([current] if current else [])


def _row_height(row, panels, width) -> float:
    """Inches: title, then the axes (an embedding) or the images at full width, then the note."""
    spec, result = panels[row[0]]
    if result["kind"] == "embedding":
        note_lines = max(_lines(_note(panels[name][0], _PANEL_WIDTH)) for name in row)
        return _TITLE + _PLOT_HEIGHT + _TICKS + _LINE * note_lines + 0.1
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
    image_row = panels[row[0]][1]["kind"] != "embedding"
    cell_width = _PANEL_WIDTH * columns if image_row else _PANEL_WIDTH
    for column, name in enumerate(row):
        spec, result = panels[name]
        left = column * cell_width
        dagger = "†" if spec["dataset"] in (notes or {}) else ""
        _text(figure, left + cell_width / 2, top + 0.1, f"{spec.get('title', name)}{dagger}", ha="center")
        if image_row:
            bottom = _draw_images(figure, spec, result, left, top + _TITLE, cell_width)
        else:
            bottom = _draw_embedding(figure, spec, result, left, top + _TITLE)
        if spec.get("note"):
            _text(figure, left + cell_width / 2, bottom, _note(spec, cell_width), fontsize="small", ha="center")


def _draw_embedding(figure, spec: dict, result: dict, left: float, top: float) -> float:
    """Scatter plot in the cell at (``left``, ``top``) inches; returns the inches where its note goes."""
    dims = int(spec.get("dims", 2))
    if dims == 3:   # mplot3d draws its tick and axis labels inside its box
        ax = figure.add_axes(_rect(figure, left + 0.1, top, _PANEL_WIDTH - 0.2, _PLOT_HEIGHT + _TICKS),
                             projection="3d")
        ax.set_box_aspect(None, zoom=0.85)
    else:
        ax = figure.add_axes(_rect(figure, left + 0.7, top, _PANEL_WIDTH - 0.9, _PLOT_HEIGHT))
    Z, Zn = result["train_embedding"][:, :dims], result["novel_embedding"][:, :dims]
    style = _colours(spec, result)
    if spec.get("cyclic") and spec.get("colour", "order") == "order":
        loop = np.argsort(result["train_index"], kind="stable")
        loop = np.r_[loop, loop[:1]]
        ax.plot(*Z[loop].T, color="0.6", linewidth=0.6, zorder=1)
    extra = {"depthshade": False} if dims == 3 else {}
    ax.scatter(*Z.T, s=10, zorder=2, **style["train"], **extra)
    handles = style["handles"]
    if len(Zn):
        handles = handles + [ax.scatter(*Zn.T, s=140, marker="*", edgecolors="k", linewidths=0.6, zorder=3,
                                        label=f"novel ({len(Zn)})", **style["novel"], **extra)]
    ax.set_xlabel("$y_1$")
    ax.set_ylabel("$y_2$")
    if dims == 3:
        ax.set_zlabel("$y_3$")
    ax.tick_params(labelsize="x-small")
    if handles:
        ax.legend(handles=handles, fontsize="x-small", loc="upper right")
    return top + _PLOT_HEIGHT + _TICKS


def _colours(spec: dict, result: dict) -> dict:
    """Scatter colour arguments for training and novel points, and legend handles for classes."""
    from matplotlib import colormaps
    from matplotlib.colors import Normalize
    from matplotlib.lines import Line2D

    if spec.get("colour", "order") == "label":
        cmap = colormaps["tab10"]

        def colour(labels):
            return [cmap(int(label) % cmap.N) for label in labels]

        present = np.union1d(result["train_labels"], result.get("novel_labels", []))
        handles = [Line2D([], [], linestyle="", marker="o", markersize=4, color=colour([c])[0],
                          label=result["class_names"][int(c)]) for c in present]
        return {"train": {"c": colour(result["train_labels"])},
                "novel": {"c": colour(result.get("novel_labels", []))}, "handles": handles}
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
