"""The ``cv_table`` protocol's CV-curve figures: the mean CV error of every method against p, one
figure per dataset, raw's CV error on the same folds as a dashed level."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ..report.error_tables import ID_COLUMNS
from ..report.writers import (
    draw_curve,
    draw_reference,
    legend_outside,
    method_style,
    new_figure,
    note_below,
    ordered,
    save_figure,
    stopped_label,
    style_axes,
)
from ..engine.results import read_result


def collect_cv_curves(paths: Iterable) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The CV curves and their baselines, as two long tables.

    Returns
    -------
    curves : DataFrame
        CV error (%) against p, minimised over the grid points that give p (NaN where none does),
        one row per (file, p), with the file's ``p_max``.
    baselines : DataFrame
        One row per file of a method that projects nothing (``raw``) that recorded it: its
        classifier's CV error (%) on the raw features, on the same folds (``raw_cv_fold_error``,
        mean over the folds).
    """
    frames, baselines = [], []
    for path in paths:
        result = read_result(path)
        if result.get("raw_cv_fold_error") is not None:
            baselines.append({**{key: result.get(key) for key in ID_COLUMNS},
                              "cv_error": float(np.mean(result["raw_cv_fold_error"])) * 100})
        if result["cv_error"] is None or result["cv_error"].size == 0:
            continue
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # a p that no grid point gives stays NaN
            curve = np.nanmin(result["cv_error"], axis=0) * 100
        frame = pd.DataFrame({"p": np.arange(1, curve.size + 1), "cv_error": curve, "p_max": result["p_max"]})
        for key in ID_COLUMNS:
            frame.insert(0, key, result.get(key))
        frames.append(frame)
    baselines = pd.DataFrame(baselines, columns=ID_COLUMNS + ["cv_error"])
    if not frames:
        return pd.DataFrame(columns=ID_COLUMNS + ["p", "cv_error", "p_max"]), baselines
    curves = pd.concat(frames, ignore_index=True).sort_values(ID_COLUMNS + ["p"], kind="mergesort", ignore_index=True)
    return curves, baselines.sort_values(ID_COLUMNS, kind="mergesort", ignore_index=True)


def plot_cv_curves(curves: pd.DataFrame, out_dir, *, baselines: pd.DataFrame | None = None, methods_order=None,
                   method_labels=None, method_entries=None, formats=("png", "pdf"), dpi=150,
                   data_notes=None, skipped=None) -> list[Path]:
    """One figure per dataset (one panel per m): mean CV error over splits against p, one line per
    method with a band of ± one std, raw's CV error on the same folds as a dashed level.

    Parameters
    ----------
    curves, baselines : DataFrame
        Output of :func:`collect_cv_curves`.
    out_dir : path
        Files are ``cv_curves_<dataset>.<format>``, written atomically without
        timestamps (Agg canvas, fixed SVG hash salt) so reruns give the same bytes.
    method_entries : mapping, optional
        Method name -> its config entry (its registry ``method``, its ``fixed`` parameters), for why
        a curve ends early (LDA at c − 1, a fixed ``n_components``, the data).
    data_notes : mapping, optional
        Dataset -> how its public data differ from the paper's; written under its figure.
    skipped : mapping, optional
        ``(dataset, method) ->`` the grid values its CV did not fit, with why
        (:func:`locproj.report.error_tables.skipped_values`): said under the figure and in the legend.

    Returns
    -------
    list of Path
    """
    per_p = curves.groupby(["dataset", "m", "method", "p"], sort=True)
    mean = per_p["cv_error"].agg(["mean", "std", "size"]).reset_index()
    mean["p_max"] = per_p["p_max"].max().to_numpy()
    written = []
    for dataset, per_dataset in mean.groupby("dataset", sort=True):
        figure = cv_curves_figure(per_dataset, baselines, methods_order=methods_order, method_labels=method_labels,
                                  method_entries=method_entries, data_note=(data_notes or {}).get(dataset),
                                  skipped=skipped)
        written += save_figure(figure, Path(out_dir) / f"cv_curves_{dataset}", formats=formats, dpi=dpi, tight=True)
    return written


def cv_curves_figure(per_dataset: pd.DataFrame, baselines=None, *, methods_order=None, method_labels=None,
                     method_entries=None, data_note=None, skipped=None):
    """The figure of one dataset for :func:`plot_cv_curves`, from its rows of per-p ``mean``,
    ``std`` and ``size`` (splits) and ``p_max``."""
    labels, entries = dict(method_labels or {}), dict(method_entries or {})
    dataset = per_dataset["dataset"].iloc[0]
    ms = sorted(per_dataset["m"].unique())
    figure = new_figure((4 * len(ms), 3.2))
    axes = figure.subplots(1, len(ms), squeeze=False)[0]
    drawn = per_dataset[per_dataset["mean"].notna()]
    methods = ordered(drawn["method"], methods_order)
    skipped = {method: text for (name, method), text in (skipped or {}).items() if name == dataset}
    ends = {method: _curve_ends(drawn[drawn["method"] == method], entries.get(method) or {}, method,
                                skipped.get(method)) for method in methods}
    for ax, m in zip(axes, ms):
        panel = drawn[drawn["m"] == m]
        for index, method in enumerate(methods):
            line = panel[panel["method"] == method]
            gaps = len(line) > 0 and line["p"].max() - line["p"].min() + 1 > len(line)   # p of its grid only
            draw_curve(ax, line["p"], line["mean"], line["std"], label=ends[method](labels.get(method, method)),
                       marker="o" if gaps else None, markersize=2.5, **method_style(index))
        _draw_baseline(ax, baselines, dataset, m, labels)
        style_axes(ax, xlabel="number of projections p", ylabel="CV error (%)", title=f"{dataset}, m = {m}")
    legend_outside(figure, axes)
    figure.tight_layout()
    note = (f"CV error at each p, minimised over the method's grid, mean ± one std over "
            f"{int(per_dataset['size'].max())} splits (cross-validation on each split's training part); the table "
            "reports the test error at the p CV chose.")
    if data_note:
        note += f" {dataset}: {data_note}"
    note += "".join(f" {labels.get(method, method)}: {text}." for method, text in skipped.items())
    note_below(figure, note, width=48 * len(ms))
    return figure


def _curve_ends(rows: pd.DataFrame, entry: Mapping, name: str, skipped: str | None = None):
    """A method's legend entry maker: why its curves end before ``p_max``, at which p (per panel)."""
    last = rows.groupby("m")["p"].max()
    early = sorted({int(p) for p in last[last < rows.groupby("m")["p_max"].max()]})
    if not early:
        return lambda label: label
    from locproj.engine.registry import end_reason

    reason = end_reason(name, entry, early, skipped)
    return lambda label: stopped_label(label, ", ".join(map(str, early)), reason)


def _draw_baseline(ax, baselines, dataset, m, labels) -> None:
    """The CV error on the same folds of each method that projects nothing (raw; mean ± one std over
    the splits), when its files hold it."""
    if baselines is None or baselines.empty:
        return
    rows = baselines[(baselines["dataset"] == dataset) & (baselines["m"] == m)]
    for method, line in rows.groupby("method", sort=False):
        std = float(line["cv_error"].std()) if len(line) > 1 else None
        draw_reference(ax, float(line["cv_error"].mean()), std=std, label=f"{labels.get(method, method)}, all features")
