"""The ``dimension_curve`` protocol (paper 001, Fig. 4): test error against the dimension.

The jobs are those of :mod:`.split_jobs` on per-class partitions (a count or a fraction of
each class), with ``test_curve`` set: each method is cross-validated and refitted once per
partition (:func:`locproj.engine.selection.run_split`), and the refitted projection's 1-NN test error is
recorded at every dimension ``1..D`` (``D`` the method's bound, ``c - 1`` for LDA). From them:

* **lowest over dimensions** (the paper's number): per partition the lowest test error over the
  dimensions and its arg-min (the smallest dimension on a tie), then their means over partitions.
  Test data choose the dimension, so it is optimistic;
* **dimension by CV** (the honest number the paper lacks): the test error at the dimension (and
  hyper-parameters) chosen by the inner cross-validation on the training part alone.

Outputs: ``<table_name>.csv/.md/.tex`` (both numbers per dataset, partition and method),
``comparison.csv/.md`` (the lowest errors and their dimensions beside the published ones, plus our
CV-chosen numbers), ``curves.csv`` (mean and std error per dimension) and one figure per dataset.
Errors are in percent; stds over partitions (``ddof=1``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..report import error_tables, writers
from ..report.comparison import compare, read_published, write_comparison
from ..engine.results import read_result
from .split_jobs import SplitProtocol

_KEYS = ["dataset", "m", "method"]


def collect(paths) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per result file: the :func:`locproj.report.error_tables.collect` row plus the lowest test error over
    dimensions (``lowest_error``, fraction) and its dimension (``lowest_dim``); and the long table
    of test error per dimension (``dataset, m, method, split, dim, test_error``).

    A method without a projection (``raw``) has no curve: its lowest error is its test error."""
    paths = list(paths)
    results = error_tables.collect(paths)
    lowest, curves = {}, []
    for path in paths:
        result = read_result(path)
        key = tuple(result[k] for k in error_tables.ID_COLUMNS)
        curve = result.get("test_error_curve")
        if curve is None or curve.size == 0:
            lowest[key] = (result["test_error"], np.nan)
            continue
        # the first minimum: the smallest dimension on a tie (an unordered method's curve is NaN between
        # the n_components it was fitted with)
        best = int(np.nanargmin(curve) if np.isnan(curve).any() else np.argmin(curve))
        lowest[key] = (float(curve[best]), best + 1)
        at = ~np.isnan(curve)
        curves.append(pd.DataFrame({
            "dataset": result["dataset"], "m": result["m"], "method": result["method"], "split": result["split"],
            "dim": np.arange(1, curve.size + 1)[at], "test_error": curve[at],
        }))
    keys = list(results[error_tables.ID_COLUMNS].itertuples(index=False, name=None))
    results["lowest_error"] = [lowest[k][0] for k in keys]
    results["lowest_dim"] = [lowest[k][1] for k in keys]
    columns = ["dataset", "m", "method", "split", "dim", "test_error"]
    long = pd.concat(curves, ignore_index=True) if curves else pd.DataFrame(columns=columns)
    return results, long


def summarise(results: pd.DataFrame, methods_order=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(lowest, by_cv): :func:`locproj.report.error_tables.summarise` of the lowest errors with their
    dimensions, and of the CV-chosen errors with the CV-chosen dimensions (Wilcoxon bolding in each).
    ``m`` holds ints for counts and floats for fractions (``3``, ``0.25``), as in the config."""
    by_cv = error_tables.summarise(results, methods_order)
    lowest = error_tables.summarise(
        results.assign(test_error=results["lowest_error"], p=results["lowest_dim"]), methods_order
    )
    return _as_config_sizes(lowest), _as_config_sizes(by_cv)


def _as_config_sizes(frame: pd.DataFrame) -> pd.DataFrame:
    """``m`` as the config writes it: an int count or a float fraction (one column holds both)."""
    sizes = [int(m) if float(m).is_integer() else float(m) for m in frame["m"]]
    return frame.assign(m=pd.Series(sizes, index=frame.index, dtype=object))


def curve_summary(long: pd.DataFrame) -> pd.DataFrame:
    """Mean and std (%, over the partitions that reach the dimension) of the test error per dimension."""
    grouped = long.assign(test_error=100 * long["test_error"]).groupby(_KEYS + ["dim"], sort=True)["test_error"]
    table = grouped.agg(mean_error="mean", std_error=lambda e: e.std(ddof=1), n_splits="size").reset_index()
    return table


def both_numbers(lowest: pd.DataFrame, by_cv: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, m, method): ``lowest_*`` and ``cv_*`` mean, std, dimension, bold."""
    names = {"mean_error": "mean", "std_error": "std", "mean_dim": "dim", "best": "best"}

    def side(frame, prefix):
        return frame[_KEYS + list(names)].rename(columns={c: f"{prefix}_{s}" for c, s in names.items()})

    merged = side(lowest, "lowest").merge(side(by_cv, "cv"), on=_KEYS, how="left", sort=False)
    return merged.merge(lowest[_KEYS + ["n_splits"]], on=_KEYS, how="left", sort=False)


def write_tables(lowest, by_cv, out_dir, *, stem, methods_order, method_labels, dataset_order, notes, skipped=None):
    """``<stem>.csv`` (long, :func:`both_numbers`), and ``<stem>.md`` / ``<stem>.tex`` with two wide
    tables: lowest error over dimensions (mean dimension), and error at the CV-chosen dimension; below
    them the failed cells and the grid values not fitted (``skipped``)."""
    out_dir, skipped = Path(out_dir), skipped or {}
    options = dict(methods_order=methods_order, method_labels=method_labels, dataset_order=dataset_order)
    sections = [
        ("Lowest test error over dimensions (the paper's number; test data choose the dimension)", lowest),
        ("Test error at the dimension chosen by inner cross-validation (test data choose nothing)", by_cv),
    ]
    markdown, latex, shown = [], [], []
    for title, summary in sections:
        plain = _as_config_sizes(error_tables.wide_table(summary, **options))
        shown += list(plain["dataset"])
        markdown.append(f"**{title}**\n\n" + writers.frame_to_markdown(writers.mark_noted(plain, notes)))
        tex = _as_config_sizes(error_tables.wide_table(summary, style="tex", **options))
        latex.append(f"% {title}\n" + writers.to_latex(writers.mark_noted(tex, notes)))
    writers.write_table_files(out_dir, stem, both_numbers(lowest, by_cv), "\n".join(markdown),
                                latex="\n".join(latex), notes=notes, noted=shown,
                                footer=error_tables.table_footer(by_cv, skipped, method_labels),
                                latex_footer=error_tables.table_footer(by_cv, skipped, method_labels, style="tex"))

def comparison(lowest, by_cv, spec) -> pd.DataFrame:
    """The lowest errors beside the published ones (:func:`locproj.report.comparison.compare`), with our
    CV-chosen error and dimension appended as ``ours_cv_mean, ours_cv_std, ours_cv_dim``."""
    if spec.get("published"):
        published = read_published(spec["published"])
    else:
        published = lowest.iloc[:0][["dataset", "m", "method", "mean_error", "std_error", "mean_dim"]]
    compared = compare(lowest, _as_config_sizes(published), spec.get("reasons"), spec.get("published_names"))
    compared = compared[compared["ours_mean"].notna()]
    honest = by_cv.assign(dataset=by_cv["dataset"].replace(dict(spec.get("published_names") or {})))
    honest = honest[_KEYS + ["mean_error", "std_error", "mean_dim"]].rename(
        columns={"mean_error": "ours_cv_mean", "std_error": "ours_cv_std", "mean_dim": "ours_cv_dim"}
    )
    merged = compared.merge(honest, on=_KEYS, how="left")
    reason = merged.pop("reason")
    return merged.assign(reason=reason)


CLASSIFIER_NAMES = {"1nn": "1-NN"}


def plot_curves(curves: pd.DataFrame, lowest: pd.DataFrame, out_dir, spec: dict, notes=None,
                skipped=None) -> list[Path]:
    """``curve_<dataset>`` per dataset (:func:`curve_figure`), saved with its outside legend;
    ``skipped``: :func:`locproj.report.error_tables.skipped_values`."""
    written = []
    for dataset in sorted(curves["dataset"].unique()):
        figure = curve_figure(dataset, curves[curves["dataset"] == dataset], lowest[lowest["dataset"] == dataset],
                              spec, notes, skipped)
        written += writers.save_figure(figure, Path(out_dir) / f"curve_{dataset}", tight=True)
    return written


def curve_figure(dataset: str, curves: pd.DataFrame, lowest: pd.DataFrame, spec: dict, notes=None, skipped=None):
    """One panel per partition: each method's mean test error ± one std over the partitions against
    p (a method whose columns are not ordered: at the ``n_components`` it was fitted with), its
    lowest error (the table's) as a dot, a method without projection (``raw``) as a dashed level;
    one legend beside the panels and a note below saying what is drawn."""
    skipped = {method: text for (name, method), text in (skipped or {}).items() if name == dataset}
    ms = sorted(curves["m"].unique())
    figure = writers.new_figure((4.8 * len(ms), 4.2))
    axes = figure.subplots(1, len(ms), squeeze=False)[0]
    classifier = CLASSIFIER_NAMES.get(spec.get("classifier", "1nn"), spec.get("classifier"))
    for ax, m in zip(axes, ms):
        _draw_panel(ax, curves[curves["m"] == m], lowest[lowest["m"] == m], spec, skipped)
        writers.style_axes(ax, xlabel="number of projections p", ylabel=f"{classifier} test error (%)",
                             title=f"{dataset}, {_partition_text(m)}")
    writers.legend_outside(figure, axes)
    figure.tight_layout()
    # the note spans the panels and the legend beside them (about 2.4 inches), 17 characters an inch
    note = _curve_note(dataset, lowest, spec, classifier, notes)
    labels = spec.get("labels") or {}
    note += "".join(f" {labels.get(method, method)}: {text}." for method, text in skipped.items())
    writers.note_below(figure, note, width=int(17 * (4.8 * len(ms) + 2.4)))
    return figure


def _draw_panel(ax, curves: pd.DataFrame, lowest: pd.DataFrame, spec: dict, skipped: dict) -> None:
    from ..engine.registry import end_reason, entry_projects

    labels, end = spec.get("labels") or {}, curves["dim"].max()
    for i, method in enumerate(spec["methods"]):
        line, best = curves[curves["method"] == method], lowest[lowest["method"] == method]
        label = labels.get(method, method)
        if line.empty:         # no projection (raw): one error, the baseline; a failed cell: nothing
            if not entry_projects(method, spec["methods"][method]) and not best.empty:
                writers.draw_reference(ax, best["mean_error"].iloc[0], std=best["std_error"].iloc[0],
                                         label=f"{label} (no projection)")
            continue
        last = line["dim"].max()
        reason = end_reason(method, spec["methods"][method], [last], skipped.get(method)) if last < end else None
        gaps = line["dim"].max() - line["dim"].min() + 1 > len(line)     # an unordered method: its grid's p only
        drawn = writers.draw_curve(ax, line["dim"], line["mean_error"], line["std_error"], color=f"C{i}",
                                     marker="o" if gaps else None, markersize=3,
                                     label=writers.stopped_label(label, last, reason))
        ax.plot(best["mean_dim"], best["mean_error"], "o", color=drawn.get_color(), markersize=4)
    ax.plot([], [], "o", color=writers.REFERENCE_COLOUR, markersize=4, label="lowest error (table), at its mean p")


def _curve_note(dataset: str, lowest: pd.DataFrame, spec: dict, classifier: str, notes) -> str:
    n_splits = "/".join(str(int(n)) for n in sorted(lowest["n_splits"].unique()))
    text = (f"Lines: {classifier} test error after the projection to its first p dimensions (refitted with the "
            f"hyper-parameters chosen by inner cross-validation), mean ± one std over {n_splits} partitions. "
            "Dots: the table's lowest error over p, each partition's minimum averaged, at the mean of those p "
            "(below the line: every partition takes its own best p). A line ends where its method has no more "
            f"projections (p ≤ p_max = {spec.get('p_max', 300)}).")
    return text + (f" {dataset}: {notes[dataset]}" if dataset in (notes or {}) else "")


def _partition_text(m) -> str:
    return f"{m:g} training samples per class" if float(m).is_integer() else f"{100 * m:g} % of each class for training"


def aggregate_curves(spec: dict, result_paths, out_dir, seed=None, notes=None) -> list[dict]:
    """Every output of the protocol (module docstring) into ``out_dir``; ``notes`` (dataset -> how
    its public data differ from the paper's) are written in each output that uses the dataset.
    Returns the failed splits."""
    out_dir = Path(out_dir)
    methods, labels = list(spec["methods"]), spec.get("labels", {})
    results, long = collect(result_paths)
    lowest, by_cv = summarise(results, methods)
    skipped = error_tables.skipped_values(results)
    write_tables(lowest, by_cv, out_dir, stem=spec.get("table_name", "table"), methods_order=methods,
                 method_labels=labels, dataset_order=list(spec["datasets"]), notes=notes, skipped=skipped)
    if spec.get("published"):
        write_comparison(comparison(lowest, by_cv, spec), out_dir, data_notes=notes)
    curves = curve_summary(long)
    writers.write_text(out_dir / "curves.csv", writers.frame_to_csv(writers.with_notes(curves, notes)))
    plot_curves(curves, lowest, out_dir / "figures", spec, notes=notes, skipped=skipped)
    return error_tables.failed_splits(results)


class DimensionCurve(SplitProtocol):
    name = "dimension_curve"
    table_caption = "../report/table_curve.rst"
    figures_caption = "../report/figures_curve.rst"
    curves_caption = "../report/curves.rst"

    def job_keys(self, spec: dict, method: str) -> dict:
        return {"test_curve": True}

    def aggregate(self, spec: dict, inputs, out_dir, seed=None, notes=None) -> list[dict]:
        return aggregate_curves(spec, list(inputs), out_dir, seed=seed, notes=notes)


PROTOCOL = DimensionCurve()
