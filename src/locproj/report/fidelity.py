"""Published numbers against ours: one point per published cell or statement, and a paper's figure.

Every experiment with published numbers writes ``comparison.csv``; its protocol turns the rows into
points (:meth:`locproj.protocols.base.Protocol.fidelity_points`: :class:`FidelityPoint` rows, and
the statements it leaves out counted in :class:`Points`), with the helpers here; the default is
:func:`cell_points`, for the cell rows of :func:`locproj.report.comparison.compare`. The engine gathers the
points of a paper's experiments (:func:`locproj.experiments.paper_fidelity`) and
:func:`draw_fidelity` draws them: published (x) against ours (y), one axes per unit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..engine.config import partition_key
from .writers import REFERENCE_COLOUR, legend_outside, new_figure, note_below, save_figure, style_axes

#: The columns of the cell rows :func:`cell_points` reads.
CELL_COLUMNS = ("dataset", "m", "method", "published_mean", "published_std", "ours_mean", "ours_std")


STAND_IN_MARKER, PAPER_DATA_MARKER = "D", "o"
WITHIN_COLOUR, BEYOND_COLOUR = "C0", "C3"


@dataclass(frozen=True)
class FidelityPoint:
    """One published number beside ours, for :func:`draw_fidelity`.

    ``published_std`` (the paper's) and ``ours_std`` (over our splits) are None where not known;
    ``unit`` is the axes the point is drawn on ("test error (%)", "accuracy (%)", ...); ``stand_in``:
    the public data differ from the paper's (a data note: JPEG PIE, USPS for NIST, another crop);
    ``holds``: for a point without any std, whether the paper's statement holds (None: not known).
    """

    published: float
    ours: float
    label: str
    published_std: float | None = None
    ours_std: float | None = None
    stand_in: bool = False
    unit: str = "test error (%)"
    holds: bool | None = None
    dataset: str = ""

    @property
    def std(self) -> float | None:
        """The std a difference is held to: the paper's where it gives one, else ours."""
        return self.published_std if self.published_std is not None else self.ours_std

    @property
    def beyond_one_std(self) -> bool:
        """``|ours − published|`` exceeds :attr:`std`; without any std, the statement does not hold."""
        if self.std is not None:
            return abs(self.ours - self.published) > self.std
        return self.holds is False


@dataclass
class Points:
    """The points read from comparisons, and what was left out (kind of statement -> count)."""

    points: list[FidelityPoint] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=dict)

    def leave_out(self, kind: str) -> None:
        """Count one statement of ``kind`` that is not drawn."""
        self.left_out[kind] = self.left_out.get(kind, 0) + 1

    def add(self, other: Points) -> None:
        self.points += other.points
        for kind, count in other.left_out.items():
            self.left_out[kind] = self.left_out.get(kind, 0) + count


def number(value) -> float | None:
    """A float, or None for a missing value (NaN, None)."""
    return None if value is None or pd.isna(value) else float(value)


def stand_in(row, notes) -> bool:
    """Whether a comparison row's dataset has a data note: in the comparison (``data_note``) or in
    ``notes`` (dataset -> how its public data differ from the paper's)."""
    note = getattr(row, "data_note", "")
    return bool((isinstance(note, str) and note.strip()) or (notes or {}).get(getattr(row, "dataset", None)))


def statement_holds(value) -> bool | None:
    """A comparison's ``holds`` column as a bool, None where not known."""
    if value is None or pd.isna(value):
        return None
    return str(value).strip().lower() == "true"


def cell_points(frame: pd.DataFrame, notes=None) -> Points:
    """The cell rows of :func:`locproj.report.comparison.compare` (a test error (%) per dataset, m and
    method, published and ours, each with a std where known) as points; rows we did not reproduce
    are left out."""
    found = Points()
    missing = [column for column in CELL_COLUMNS if column not in frame]
    if missing:
        raise ValueError(f"a comparison with columns {list(frame.columns)} has no {missing}: it is not of cell rows; "
                         "its protocol turns its rows into points with its own fidelity_points")
    for r in frame.itertuples(index=False):
        if pd.isna(r.ours_mean):
            continue
        found.points.append(FidelityPoint(
            float(r.published_mean), float(r.ours_mean), f"{r.dataset} {partition_key(r.m)} {r.method}",
            number(r.published_std), number(r.ours_std), stand_in(r, notes), "test error (%)",
            dataset=str(r.dataset)))
    return found


def read_comparison(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype={"data_note": str})


def left_out_text(points: Points, empty: list[str]) -> str:
    parts = [f"{count} {kind}" for kind, count in points.left_out.items()]
    if empty:
        parts.append(f"{', '.join(empty)} (no published number, only statements)")
    return "; ".join(parts)


def paper_title(target: str) -> str:
    """``'LLP: published against ours'`` for the target ``llp_paper``."""
    return f"{target.split('_')[0].upper()}: published against ours"


def _place_labels(ax, points, renderer, everything) -> None:
    """Label ``points`` away from the diagonal (up-left of a point above it, down-right of one below),
    at the nearest place inside the axes where the label covers no other label and no marker of
    ``everything`` (else where it covers fewest); a label set away from its point gets a leader line."""
    from matplotlib.transforms import Bbox

    half = 4.0 * ax.figure.dpi / 72          # a marker's half width, in pixels
    markers = [Bbox.from_bounds(x - half, y - half, 2 * half, 2 * half)
               for x, y in ax.transData.transform([(p.published, p.ours) for p in everything])]
    labels = []
    frame = ax.get_window_extent(renderer)
    style = {"textcoords": "offset points", "fontsize": 6.5, "color": BEYOND_COLOUR}
    for point in sorted(points, key=lambda p: (-abs(p.ours - p.published), p.label)):
        side = 1 if point.ours >= point.published else -1
        directions = [(-side, side), (-side, 0), (0, side), (-side, 2 * side), (-2 * side, side),
                      (side, side), (-side, -side), (0, -side), (side, 0), (side, -side)]
        best = None
        for reach in range(1, 16):
            for dx, dy in directions:
                offset = (dx * (4 + 6 * (reach - 1)), dy * (3 + 6 * (reach - 1)))
                where = {"ha": "right" if dx < 0 else "left" if dx > 0 else "center",
                         "va": "bottom" if dy > 0 else "top" if dy < 0 else "center"}
                text = ax.annotate(point.label, (point.published, point.ours), xytext=offset, **where, **style)
                box = text.get_window_extent(renderer).padded(1.5)
                text.remove()
                if not (frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1)):
                    continue
                cost = (sum(box.overlaps(o) for o in labels), sum(box.overlaps(o) for o in markers), reach)
                if best is None or cost < best[0]:
                    best = (cost, offset, where, box)
            if best is not None and best[0][:2] == (0, 0):
                break
        if best is None:
            best = ((0, 0, 1), (-4 * side, 3 * side), {"ha": "right" if side > 0 else "left",
                                                       "va": "bottom" if side > 0 else "top"}, None)
        (_, _, reach), offset, where, box = best
        leader = {"arrowprops": {"arrowstyle": "-", "color": "0.55", "linewidth": 0.5, "shrinkA": 0,
                                 "shrinkB": 3}} if reach > 1 else {}
        text = ax.annotate(point.label, (point.published, point.ours), xytext=offset, **where, **style, **leader)
        labels.append(box if box is not None else text.get_window_extent(renderer))


def draw_fidelity(points, stem, *, title: str, left_out: str = "", formats=("png", "pdf")) -> list[Path]:
    """:func:`fidelity_figure` saved as ``<stem>.<format>`` by :func:`save_figure` (atomic, the same
    bytes on a rerun, the canvas grown to hold the legend)."""
    return save_figure(fidelity_figure(points, title=title, left_out=left_out), stem, formats=formats, tight=True)


def fidelity_figure(points, *, title: str, left_out: str = "", width: float = 5.5):
    """One figure of published numbers (x) against ours (y), one point per cell or statement.

    One axes per ``unit`` among ``points``, each with the diagonal y = x, equal scales on both axes,
    error bars of ± one std where known (horizontal: the paper's, vertical: ours over splits), the
    points beyond one std (:attr:`FidelityPoint.beyond_one_std`) in another colour and labelled,
    stand-in data (``stand_in``) with their own marker, explained in the one legend, right of the
    axes (:func:`legend_outside`); a note below says what is drawn and, with ``left_out``, what is
    not. Returns the figure (:func:`draw_fidelity` saves it).
    """
    import numpy as np

    points = list(points)
    counts = {}
    for p in points:
        counts[p.unit] = counts.get(p.unit, 0) + 1
    units = sorted(counts, key=lambda u: -counts[u]) or ["test error (%)"]      # the most points first
    ratios = [1.0] + [0.6] * (len(units) - 1)          # the main axes larger, the few other points smaller
    figure = new_figure((width * sum(ratios), width + 0.9))
    axes = figure.subplots(1, len(units), squeeze=False, gridspec_kw={"width_ratios": ratios})[0]
    n_beyond = sum(p.beyond_one_std for p in points)
    note = (f"{len(points)} published numbers (x) against ours (y), {n_beyond} beyond one std (labelled: dataset, "
            "m or n, method). Bars: ± one std, horizontal the paper's, vertical ours over splits; a point "
            "without a std is labelled where the paper's statement does not hold. Hollow diamonds: stand-in "
            "data (the public data differ from the paper's, see the data notes).")
    if left_out:
        note += f" Left out: {left_out}."
    note_below(figure, note, width=int(100 * len(units) ** 0.75), bottom=0.2)
    if len(units) > 1:
        figure.suptitle(title)
        figure.subplots_adjust(wspace=0.3)
    renderer = figure.canvas.get_renderer()
    for ax, unit in zip(axes, units):
        ax.set_aspect("equal", adjustable="box")
        here = [p for p in points if p.unit == unit]
        if len(units) == 1:
            style_axes(ax, xlabel=f"published {unit}", ylabel=f"ours {unit}", title=title)
        else:
            style_axes(ax, xlabel="published", ylabel="ours", title=unit)
        values = [v for p in here for v in (p.published - (p.published_std or 0), p.published + (p.published_std or 0),
                                            p.ours - (p.ours_std or 0), p.ours + (p.ours_std or 0))]
        low, high = (min(values), max(values)) if values else (0.0, 1.0)
        pad = 0.06 * (high - low or 1.0)
        low, high = low - pad, high + pad
        ax.plot([low, high], [low, high], color=REFERENCE_COLOUR, linestyle="--", linewidth=0.8,
                label="y = x (ours = published)")
        ax.set_xlim(low, high)
        ax.set_ylim(low, high)
        for stand_in in (False, True):
            for beyond in (False, True):
                group = [p for p in here if p.stand_in == stand_in and p.beyond_one_std == beyond]
                if group:
                    ax.errorbar([p.published for p in group], [p.ours for p in group],
                                xerr=[np.nan if p.published_std is None else p.published_std for p in group],
                                yerr=[np.nan if p.ours_std is None else p.ours_std for p in group],
                                fmt=STAND_IN_MARKER if stand_in else PAPER_DATA_MARKER, markersize=4.5,
                                color=BEYOND_COLOUR if beyond else WITHIN_COLOUR,
                                markerfacecolor="none" if stand_in else None, ecolor="0.75", elinewidth=0.7,
                                capsize=0, linewidth=0)
        _place_labels(ax, [p for p in here if p.beyond_one_std], renderer, here)
    # the legend: colour says within or beyond one std, the marker whose data
    key = axes[0]
    key.plot([], [], "s", color=WITHIN_COLOUR, label="within one std")
    key.plot([], [], "s", color=BEYOND_COLOUR, label="beyond one std (labelled)")
    if any(not p.stand_in for p in points):
        key.plot([], [], PAPER_DATA_MARKER, color="0.4", label="the paper's data")
    stand_ins = sorted({p.dataset or p.label for p in points if p.stand_in})
    if stand_ins:
        which = ("every dataset here" if all(p.stand_in for p in points) else ", ".join(stand_ins)
                 if len(", ".join(stand_ins)) <= 40 else f"{len(stand_ins)} datasets")
        key.plot([], [], STAND_IN_MARKER, color="0.4", markerfacecolor="none",
                 label=f"stand-in data ({which}):\npublic data that differ\nfrom the paper's")
    legend_outside(figure, axes)
    return figure
