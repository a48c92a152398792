"""Published numbers against ours, one figure per paper (issue 24, item 2).

Every experiment with published numbers writes ``comparison.csv``; its columns depend on the
protocol. :func:`comparison_points` turns any of them into :class:`locproj.reporting.FidelityPoint`
rows (and counts the statements it leaves out), :func:`paper_fidelity` draws a paper's figure from
the comparisons of its experiments (:func:`locproj.reporting.draw_fidelity`).

The shapes of ``comparison.csv`` (their distinguishing columns):

* ``published_mean`` (``cv_table``, ``dimension_curve``): a cell per dataset, m and method, the
  test error (%) published and ours, each with a std where known;
* ``classifier`` (``train_test_curve``): a point of a curve (dataset, method, classifier, n), the
  test error (%), ours with a std over repetitions;
* ``measure`` (``holdout_curve``): a statement of the text, ``about`` or ``value`` a number (drawn),
  ``lower_bound`` / ``upper_bound`` ("more than 70 per cent") a bound (left out), ours with a std;
* ``check`` (an embedding's checks): a number the text states (iterations, ...), ``value`` or
  ``about`` within ``slack``; ours without a std, so labelled where it does not hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .config import partition_key
from .reporting import FidelityPoint, draw_fidelity

#: The ``kind`` of a holdout statement or check that is a number; other kinds are bounds.
NUMERIC_KINDS = ("about", "value")
#: The axes of a holdout statement's ``measure``.
MEASURE_UNITS = {"accuracy": "accuracy (%)", "sv_percent": "support vectors (%)"}


@dataclass
class Points:
    """The points read from comparisons, and what was left out (kind of statement -> count)."""

    points: list[FidelityPoint] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=dict)

    def add(self, other: Points) -> None:
        self.points += other.points
        for kind, count in other.left_out.items():
            self.left_out[kind] = self.left_out.get(kind, 0) + count


def _number(value) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _stand_in(row, notes) -> bool:
    """A data note on the row's dataset: in the comparison (``data_note``) or in ``notes``."""
    note = getattr(row, "data_note", "")
    return bool((isinstance(note, str) and note.strip()) or (notes or {}).get(getattr(row, "dataset", None)))


def _holds(value) -> bool | None:
    if value is None or pd.isna(value):
        return None
    return str(value).strip().lower() == "true"


def comparison_points(frame: pd.DataFrame, notes=None) -> Points:
    """The numeric rows of one ``comparison.csv`` (any protocol's shape, see the module) as points;
    bounds are counted in ``left_out``. ``notes``: dataset -> how its data differ from the paper's,
    marking stand-in data besides the frame's ``data_note`` column."""
    found = Points()
    if frame.empty:
        return found
    rows = list(frame.itertuples(index=False))
    if "published_mean" in frame:
        for r in rows:
            if pd.isna(r.ours_mean):
                continue
            found.points.append(FidelityPoint(
                float(r.published_mean), float(r.ours_mean), f"{r.dataset} {partition_key(r.m)} {r.method}",
                _number(r.published_std), _number(r.ours_std), _stand_in(r, notes), "test error (%)",
                dataset=str(r.dataset)))
    elif "classifier" in frame:
        for r in rows:
            found.points.append(FidelityPoint(
                float(r.published), float(r.ours_mean), f"{r.dataset} n{r.x} {r.method}+{r.classifier}",
                None, _number(r.ours_std), _stand_in(r, notes), "test error (%)", dataset=str(r.dataset)))
    elif "measure" in frame:
        for r in rows:
            if r.kind not in NUMERIC_KINDS:
                found.left_out["bounds ('more than 70 per cent')"] = found.left_out.get(
                    "bounds ('more than 70 per cent')", 0) + 1
                continue
            found.points.append(FidelityPoint(
                float(r.published), float(r.ours), f"{r.dataset} {r.method}", None, _number(r.ours_std),
                _stand_in(r, notes), MEASURE_UNITS.get(r.measure, r.measure), holds=_holds(r.holds),
                dataset=str(r.dataset)))
    elif "check" in frame:
        for r in rows:
            if r.kind not in NUMERIC_KINDS or pd.isna(r.ours):
                found.left_out["checks without a number"] = found.left_out.get("checks without a number", 0) + 1
                continue
            found.points.append(FidelityPoint(
                float(r.published), float(r.ours), f"{r.panel} {r.check}", unit="a number stated in the text",
                holds=_holds(r.holds)))
    else:
        raise ValueError(f"a comparison with columns {list(frame.columns)} is of no known protocol")
    return found


def read_comparison(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype={"data_note": str})


def paper_points(comparisons: dict, notes: dict | None = None) -> tuple[Points, list[str]]:
    """The points of every experiment's comparison (experiment -> ``comparison.csv`` path) and the
    experiments that have none to draw (their published statements are not numbers)."""
    found, empty = Points(), []
    for experiment, path in comparisons.items():
        points = comparison_points(read_comparison(path), (notes or {}).get(experiment))
        if not points.points:
            empty.append(experiment)
        found.add(points)
    return found, empty


def left_out_text(points: Points, empty: list[str]) -> str:
    parts = [f"{count} {kind}" for kind, count in points.left_out.items()]
    if empty:
        parts.append(f"{', '.join(empty)} (no published number, only statements)")
    return "; ".join(parts)


def paper_fidelity(comparisons: dict, stem, *, title: str, notes: dict | None = None,
                   formats=("png", "pdf")) -> list[Path]:
    """Draw a paper's fidelity figure (``<stem>.png`` and ``.pdf``) from its experiments'
    comparisons (experiment -> ``comparison.csv``); ``notes``: experiment -> dataset -> data note."""
    found, empty = paper_points(comparisons, notes)
    return draw_fidelity(found.points, stem, title=title, left_out=left_out_text(found, empty), formats=formats)


def paper_title(target: str) -> str:
    """``'LLP: published against ours'`` for the target ``llp_paper``."""
    return f"{target.split('_')[0].upper()}: published against ours"
