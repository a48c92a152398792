"""Result files -> Table 2 style tables, significance bolding, comparison with the paper, figures.

Documented rules
----------------
* Errors are reported in percent; ``std_error`` is the sample standard deviation
  over splits (``ddof=1``); ``mean_dim`` is the mean chosen p (NaN for ``raw``).
* A method is ``best`` in its (dataset, m) row when, for **every** other method of
  the row, the one-sided Wilcoxon rank-sum test (:func:`scipy.stats.ranksums`,
  ``alternative='less'``: its split errors are stochastically smaller) gives
  ``p < alpha`` with ``alpha = 0.01`` (the paper: "significantly better than the
  others ... significance level of 0.01"). With ``alternative='two-sided'`` the
  method must also have the lower rank sum. At most one method per row can be best;
  a row with fewer than two methods has none.
* Tables depend only on (dataset, m, method, split, test_error, p); timings and
  provenance are never read into them, so reruns give byte-identical CSV/MD/TeX.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import ranksums

from locproj.reporting import (
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
    write_table_files,
)
from locproj.results import read_result

ID_COLUMNS = ["experiment", "dataset", "m", "method", "split"]
ROW_KEYS = ["dataset", "m"]


# --------------------------------------------------------------------------- reading


def collect(paths: Iterable) -> pd.DataFrame:
    """One row per result file.

    Returns
    -------
    DataFrame
        Columns ``experiment, dataset, m, method, split, classifier, test_error``
        (fraction), ``p``, ``projected``, ``params`` (JSON) and one ``param_<name>``
        column per hyper-parameter; sorted by the identification columns.
    """
    rows = []
    for path in paths:
        result = read_result(path)
        row = {key: result.get(key) for key in ID_COLUMNS}
        row.update(
            classifier=result["classifier"], test_error=result["test_error"], p=result["p"],
            projected=bool(result["projected"]),
            params=json.dumps(result["params"], sort_keys=True),
        )
        row.update({f"param_{name}": value for name, value in result["params"].items()})
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    return frame.sort_values(ID_COLUMNS, kind="mergesort", ignore_index=True)


def collect_cv_curves(paths: Iterable) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The CV curves and their baselines, as two long tables.

    Returns
    -------
    curves : DataFrame
        CV error (%) against p, minimised over the grid points that give p (NaN where none does),
        one row per (file, p), with the file's ``p_max``.
    baselines : DataFrame
        One row per ``raw`` file that recorded it: its classifier's CV error (%) on the raw features,
        on the same folds (``raw_cv_fold_error``, mean over the folds).
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


# --------------------------------------------------------------------------- summary and significance


def significantly_best(errors_by_method: Mapping, alpha=0.01, alternative="less") -> dict:
    """Which methods are significantly better than every other one (Wilcoxon rank-sum).

    Parameters
    ----------
    errors_by_method : mapping of str to array-like
        Split errors of each method in one (dataset, m) row.
    alpha : float
        Significance level.
    alternative : {'less', 'two-sided'}
        Sidedness of :func:`scipy.stats.ranksums`; see the module docstring.

    Returns
    -------
    dict of str to bool
    """
    if alternative not in ("less", "two-sided"):
        raise ValueError("alternative must be 'less' or 'two-sided'")

    def better(a, b):
        test = ranksums(a, b, alternative=alternative)
        return test.pvalue < alpha and (alternative == "less" or test.statistic < 0)

    errors = {name: np.asarray(values, dtype=float) for name, values in errors_by_method.items()}
    return {
        name: len(errors) > 1 and all(better(errors[name], other) for o, other in errors.items() if o != name)
        for name in errors
    }


def summarise(df: pd.DataFrame, methods_order: Sequence | None = None, *, alpha=0.01, alternative="less"):
    """One row per (dataset, m, method): errors in %, mean chosen p and significance.

    Parameters
    ----------
    df : DataFrame
        Output of :func:`collect` (one experiment).
    methods_order : sequence of str, optional
        Methods to keep, in column order; default all, sorted.
    alpha, alternative
        See :func:`significantly_best`.

    Returns
    -------
    DataFrame
        Columns ``dataset, m, method, mean_error, std_error`` (%, ddof=1),
        ``mean_dim`` (NaN when not projected), ``n_splits, best``.
    """
    methods = ordered(df["method"], methods_order)
    df = df[df["method"].isin(methods)]
    rows = []
    for (dataset, m), group in df.groupby(ROW_KEYS, sort=True):
        by_method = {name: part.sort_values("split") for name, part in group.groupby("method")}
        best = significantly_best(
            {name: part["test_error"] for name, part in by_method.items()}, alpha=alpha, alternative=alternative
        )
        for name in ordered(by_method, methods):
            part = by_method[name]
            errors = 100 * part["test_error"].to_numpy(dtype=float)
            rows.append({
                "dataset": dataset, "m": int(m) if float(m).is_integer() else float(m), "method": name,
                "mean_error": errors.mean(), "std_error": errors.std(ddof=1) if errors.size > 1 else np.nan,
                "mean_dim": part["p"].mean() if part["projected"].all() else np.nan,
                "n_splits": int(errors.size), "best": bool(best[name]),
            })
    columns = ["dataset", "m", "method", "mean_error", "std_error", "mean_dim", "n_splits", "best"]
    return pd.DataFrame(rows, columns=columns)


# --------------------------------------------------------------------------- text writers


_STYLES = {
    "plain": {"pm": " ± ", "bold": "**{}**"},
    "tex": {"pm": " $\\pm$ ", "bold": "\\textbf{{{}}}"},
}


def format_cell(mean, std, dim=np.nan, best=False, style="plain") -> str:
    """``'mean ± std (dim)'`` with one decimal, the ``mean ± std`` part bold when ``best``."""
    pm, bold = _STYLES[style]["pm"], _STYLES[style]["bold"]
    text = f"{mean:.1f}{pm}{std:.1f}"
    text = bold.format(text) if best else text
    return text if np.isnan(dim) else f"{text} ({dim:.1f})"


def wide_table(summary: pd.DataFrame, methods_order=None, method_labels=None, dataset_order=None, style="plain"):
    """Rows dataset x m, one formatted column per method, like the paper's Table 2."""
    labels = dict(method_labels or {})
    methods = ordered(summary["method"], methods_order)
    datasets = ordered(summary["dataset"], dataset_order)
    cells = summary.assign(
        cell=[format_cell(r.mean_error, r.std_error, r.mean_dim, r.best, style) for r in summary.itertuples()]
    )
    table = cells.pivot(index=ROW_KEYS, columns="method", values="cell").reindex(columns=methods).fillna("")
    table = table.reset_index()
    table["dataset"] = pd.Categorical(table["dataset"], categories=datasets, ordered=True)
    table = table.dropna(subset=["dataset"]).sort_values(ROW_KEYS, kind="mergesort", ignore_index=True)
    table["dataset"] = table["dataset"].astype(str)
    table.columns.name = None
    return table.rename(columns={name: labels.get(name, name) for name in methods})


def write_tables(summary, out_dir, *, stem="table", methods_order=None, method_labels=None,
                 dataset_order=None, data_notes=None) -> list[Path]:
    """Write ``<stem>.csv`` (long: one row per dataset, m, method with ``mean_error, std_error,
    mean_dim, n_splits, best, data_note``) and ``<stem>.md``, ``<stem>.tex`` laid out like the
    paper's Table 2.

    Datasets missing from ``dataset_order`` (when given) are left out of the wide tables. A dataset
    with an entry in ``data_notes`` (how its public data differ from the paper's) is marked † in the
    wide tables, with the note below them.

    Bold is ``**...**`` in Markdown and ``\\textbf{...}`` in LaTeX.

    Returns
    -------
    list of Path
    """
    options = dict(methods_order=methods_order, method_labels=method_labels, dataset_order=dataset_order)
    return write_table_files(out_dir, stem, summary, wide_table(summary, **options),
                             latex=wide_table(summary, style="tex", **options), notes=data_notes)


# --------------------------------------------------------------------------- comparison with the paper


def _reason_key(key):
    """``(dataset, m, method)`` from a tuple or a ``'dataset/m/method'`` string (shorter = wildcards)."""
    parts = key.split("/") if isinstance(key, str) else list(key)
    return tuple(None if k in (None, "*") else k for k in (parts + [None] * 3)[:3])


def _reason_lookup(reasons):
    """Normalise reasons to ``[((dataset, m, method), text)]``, most specific first; None / '*' match all."""
    if not reasons:
        return []
    items = reasons.items() if isinstance(reasons, Mapping) else (
        ((r.get("dataset"), r.get("m"), r.get("method")), r["reason"]) for r in reasons
    )
    normalised = [(_reason_key(key), text) for key, text in items]
    return sorted(normalised, key=lambda item: sum(k is None for k in item[0]))


def _reason_for(lookup, key) -> str:
    for pattern, text in lookup:
        if all(p is None or str(p) == str(k) for p, k in zip(pattern, key)):
            return text
    return ""


def most_specific_reason(reasons, row, keys) -> str:
    """The configured reason (``[{key: value, ..., reason}]``) that matches ``row`` on the most of
    ``keys``; a key an item leaves out matches anything. '' when none matches."""
    best, best_score = "", -1
    for item in reasons or []:
        fields = [(key, item.get(key)) for key in keys]
        if all(value is None or str(value) == str(getattr(row, key)) for key, value in fields):
            score = sum(value is not None for _, value in fields)
            if score > best_score:
                best, best_score = item["reason"], score
    return best


def compare(ours: pd.DataFrame, published: pd.DataFrame, reasons=None, dataset_names=None) -> pd.DataFrame:
    """Published vs reproduced numbers, one row per published (dataset, m, method).

    Parameters
    ----------
    ours : DataFrame
        Output of :func:`summarise`.
    published : DataFrame
        Columns ``dataset, m, method, mean_error, std_error`` and optionally ``mean_dim`` (%).
        An optional ``best`` column is carried over as ``published_best``.
    reasons : mapping or list of dict, optional
        ``{(dataset, m, method): text}``, ``{"dataset/m/method": text}`` or
        ``[{dataset, m, method, reason}]``, with the paper's dataset names; a missing
        key, None or ``'*'`` matches anything, the most specific entry wins.
    dataset_names : mapping, optional
        Our dataset name -> the paper's row it is compared with (e.g. ``{"pie_pose27": "pie"}``).

    Returns
    -------
    DataFrame
        ``dataset, m, method, published_mean, published_std, published_dim, ours_mean,
        ours_std, ours_dim, difference`` (ours - published, percentage points),
        ``published_best, ours_best, beyond_std`` (``|difference|`` exceeds the published
        standard deviation) and ``reason`` (filled only where ``beyond_std``).
    """
    keys = ["dataset", "m", "method"]
    values = {"mean_error": "mean", "std_error": "std", "mean_dim": "dim", "best": "best"}
    published = published.assign(
        mean_dim=published.get("mean_dim", np.nan), best=published.get("best", "unknown")
    )
    ours = ours.assign(dataset=ours["dataset"].replace(dict(dataset_names or {})))

    def side(frame, prefix):
        return frame[keys + list(values)].rename(columns={c: f"{prefix}_{s}" for c, s in values.items()})

    merged = side(published, "published").merge(side(ours, "ours"), on=keys, how="left")
    merged["difference"] = merged["ours_mean"] - merged["published_mean"]
    # a paper that gives no std (paper 001's Fig. 4) is held to our std over splits
    merged["beyond_std"] = merged["difference"].abs() > merged["published_std"].fillna(merged["ours_std"])
    lookup = _reason_lookup(reasons)
    merged["reason"] = [
        _reason_for(lookup, key) if beyond else ""
        for key, beyond in zip(merged[keys].itertuples(index=False), merged["beyond_std"])
    ]
    order = keys + ["published_mean", "published_std", "published_dim", "ours_mean", "ours_std", "ours_dim",
                    "difference", "published_best", "ours_best", "beyond_std", "reason"]
    return merged[order]


def read_published(path) -> pd.DataFrame:
    """Published table as CSV (``#`` comment lines allowed): dataset, m, method, mean_error,
    std_error[, mean_dim, best]."""
    return pd.read_csv(path, comment="#", dtype={"best": str})


def write_comparison(comparison: pd.DataFrame, out_dir, data_notes=None) -> list[Path]:
    """Write ``comparison.csv`` (with a ``data_note`` column) and ``comparison.md`` (numbers rounded
    to 0.1, noted datasets marked † with their note below)."""
    rounded = comparison.copy()
    numeric = rounded.select_dtypes("number").columns.drop("m", errors="ignore")
    rounded[numeric] = rounded[numeric].map(lambda v: "" if pd.isna(v) else f"{v:.1f}")
    return write_table_files(out_dir, "comparison", comparison, rounded, notes=data_notes)


# --------------------------------------------------------------------------- figures

def plot_cv_curves(curves: pd.DataFrame, out_dir, *, baselines: pd.DataFrame | None = None, methods_order=None,
                   method_labels=None, method_entries=None, formats=("png", "pdf"), dpi=150,
                   data_notes=None) -> list[Path]:
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
                                  method_entries=method_entries, data_note=(data_notes or {}).get(dataset))
        written += save_figure(figure, Path(out_dir) / f"cv_curves_{dataset}", formats=formats, dpi=dpi, tight=True)
    return written


def cv_curves_figure(per_dataset: pd.DataFrame, baselines=None, *, methods_order=None, method_labels=None,
                     method_entries=None, data_note=None):
    """The figure of one dataset for :func:`plot_cv_curves`, from its rows of per-p ``mean``,
    ``std`` and ``size`` (splits) and ``p_max``."""
    labels, entries = dict(method_labels or {}), dict(method_entries or {})
    dataset = per_dataset["dataset"].iloc[0]
    ms = sorted(per_dataset["m"].unique())
    figure = new_figure((4 * len(ms), 3.2))
    axes = figure.subplots(1, len(ms), squeeze=False)[0]
    drawn = per_dataset[per_dataset["mean"].notna()]
    methods = ordered(drawn["method"], methods_order)
    ends = {method: _curve_ends(drawn[drawn["method"] == method], entries.get(method) or {}, method)
            for method in methods}
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
    note_below(figure, note, width=48 * len(ms))
    return figure


def _curve_ends(rows: pd.DataFrame, entry: Mapping, name: str):
    """A method's legend entry maker: why its curves end before ``p_max``, at which p (per panel)."""
    last = rows.groupby("m")["p"].max()
    early = sorted({int(p) for p in last[last < rows.groupby("m")["p_max"].max()]})
    if not early:
        return lambda label: label
    from locproj.registry import bound_reason

    asked = [(entry.get("fixed") or {}).get("n_components"), *(entry.get("grid") or {}).get("n_components", [])]
    largest = max((n for n in asked if isinstance(n, int) and not isinstance(n, bool)), default=None)
    reason = (f"its largest n_components, {largest}" if early == [largest]
              else bound_reason(entry.get("method", name)))
    return lambda label: stopped_label(label, ", ".join(map(str, early)), reason)


def _draw_baseline(ax, baselines, dataset, m, labels) -> None:
    """Raw's CV error on the same folds (mean ± one std over the splits), when the raw files hold it."""
    if baselines is None or baselines.empty:
        return
    rows = baselines[(baselines["dataset"] == dataset) & (baselines["m"] == m)]
    if len(rows):
        std = float(rows["cv_error"].std()) if len(rows) > 1 else None
        draw_reference(ax, float(rows["cv_error"].mean()), std=std,
                       label=f"{labels.get('raw', 'raw')}, all features")
