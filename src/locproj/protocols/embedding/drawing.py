"""The figures of the ``embedding`` protocol: :func:`plot_figure` and its layout and drawing helpers.

The only module of the package that uses matplotlib (imported in the functions that draw, so that
a job fitting a panel does not load it).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np

from .checks import tau_stop
from .options import DEFAULT_SERIES, DPI, FIGURE_FORMATS, SCATTER_KINDS, projects
from .samples import coordinates
from .samples import visible as _visible


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
                formats=FIGURE_FORMATS, dpi: int = DPI) -> list[Path]:
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
    from ...report.writers import new_figure, save_figure

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
    Z, Zn = coordinates(spec, result, "train"), coordinates(spec, result, "novel")
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
                  "test_accuracy": "test accuracy", "support_fraction": "support vectors",
                  "n_support": "support vectors"}
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
    letter = "x" if spec.get("space") == "input" or not projects(spec) else "y"
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
    centers, medians = binned_medians(result["train_feature"], result["train_attribute"])
    ax.plot(centers, medians, color="k", linewidth=1.2, zorder=3, label="median in 20 bins of x")
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
    centers = (edges[:-1] + edges[1:]) / 2
    return centers[filled], np.array([np.median(values[which == b]) for b in filled])


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
