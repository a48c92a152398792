"""Split result files -> Table 2 style tables of mean ± std error, with significance bolding.

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
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from locproj.engine.method_failures import failure_text
from locproj.report.writers import ordered, write_table_files
from locproj.engine.results import read_result
from locproj.engine.selection import skipped_text

ID_COLUMNS = ["experiment", "dataset", "m", "method", "split"]
ROW_KEYS = ["dataset", "m"]


# --------------------------------------------------------------------------- reading


def collect(paths: Iterable) -> pd.DataFrame:
    """One row per result file.

    Returns
    -------
    DataFrame
        Columns ``experiment, dataset, m, method, split, classifier, test_error``
        (fraction), ``p``, ``projected``, ``params`` (JSON), one ``param_<name>``
        column per hyper-parameter, ``skipped`` (the ``n_components`` not fitted, with why) and
        ``failed``; a failed split (its file records the failure,
        :func:`locproj.engine.results.write_failure`) has no numbers, its ``failure`` (the error) and its
        ``log``. Sorted by the identification columns.
    """
    rows = []
    for path in paths:
        result = read_result(path)
        row = {key: result.get(key) for key in ID_COLUMNS}
        row.update(
            classifier=result["classifier"], test_error=result["test_error"], p=result["p"],
            projected=bool(result["projected"]),
            params=json.dumps(result["params"], sort_keys=True), failed=bool(result.get("failed", False)),
            skipped=result.get("skipped") or [],
        )
        if row["failed"]:
            row.update(failure=failure_text(result), log=result.get("log", ""))
        row.update({f"param_{name}": value for name, value in result["params"].items()})
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    return frame.sort_values(ID_COLUMNS, kind="mergesort", ignore_index=True)


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
        from scipy.stats import ranksums   # here: a second to import, which planning a run skips

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
        ``mean_dim`` (NaN when not projected), ``n_splits, best``; when a split failed, also
        ``failed_splits`` and ``failure`` (the first failure and its log). A cell with a failed split
        has no numbers, and the bold of its row compares the other methods.
    """
    methods = ordered(df["method"], methods_order)
    df = df[df["method"].isin(methods)]
    failing = "failed" in df and bool(df["failed"].any())
    rows = []
    for (dataset, m), group in df.groupby(ROW_KEYS, sort=True):
        by_method = {name: part.sort_values("split") for name, part in group.groupby("method")}
        complete = {name: part for name, part in by_method.items() if not (failing and part["failed"].any())}
        best = significantly_best(
            {name: part["test_error"] for name, part in complete.items()}, alpha=alpha, alternative=alternative
        )
        for name in ordered(by_method, methods):
            part = by_method[name]
            errors = 100 * part["test_error"].to_numpy(dtype=float)
            row = {"dataset": dataset, "m": int(m) if float(m).is_integer() else float(m), "method": name,
                   "mean_error": errors.mean(), "std_error": errors.std(ddof=1) if errors.size > 1 else np.nan,
                   "mean_dim": part["p"].mean() if part["projected"].all() else np.nan,
                   "n_splits": int(errors.size), "best": bool(best.get(name, False))}
            if failing:
                row.update(_failure_columns(part))
            rows.append(row)
    columns = ["dataset", "m", "method", "mean_error", "std_error", "mean_dim", "n_splits", "best"]
    return pd.DataFrame(rows, columns=columns + (["failed_splits", "failure"] if failing else []))


def _failure_columns(part: pd.DataFrame) -> dict:
    """A cell's failed splits and its first failure with its log; a failed cell has no numbers."""
    failed = part[part["failed"]]
    if failed.empty:
        return {"failed_splits": 0, "failure": ""}
    first = failed.iloc[0]
    return {"mean_error": np.nan, "std_error": np.nan, "mean_dim": np.nan, "failed_splits": len(failed),
            "failure": f"{first['failure']}; log: {first['log']}" if first["log"] else first["failure"]}


def failed_splits(results: pd.DataFrame) -> list[dict]:
    """The failed splits of :func:`collect`'s rows, for the run's summary of failed cells."""
    if "failed" not in results:
        return []
    return [{key: (row[key].item() if hasattr(row[key], "item") else row[key])
             for key in (*ID_COLUMNS, "failure", "log")} for _, row in results[results["failed"]].iterrows()]


def failure_notes(summary: pd.DataFrame, method_labels=None, style: str = "plain") -> str:
    """The footnotes of a table's failed cells (``failed (1)``, ...): what failed, how often, why and
    the job's log; and how a failed cell is treated. '' when none failed."""
    cells = failed_cells(summary)
    if cells.empty:
        return ""
    labels = dict(method_labels or {})
    lines = [f"({i}) {labels.get(r.method, r.method)} on {r.dataset}, m = {r.m}: {r.failed_splits} of {r.n_splits} "
             f"splits failed: {r.failure}" for i, r in enumerate(cells.itertuples(), start=1)]
    lead = ("Failed cells have no mean: the bold of their row compares the other methods, and the average ranks "
            "leave out their dataset.")
    if style == "tex":
        from locproj.report.writers import tex_escape

        return "".join(f"\\par\\footnotesize {tex_escape(text)}\n" for text in [lead, *lines])
    return "\n" + "\n".join([lead, *lines]) + "\n"


def skipped_values(results: pd.DataFrame) -> dict[tuple, str]:
    """``(dataset, method) -> 'n_components 5, 10, 20 not fitted on iris: the data have 4 features'``:
    the grid values of a method whose columns are not ordered that its CV did not fit, and the grid
    points that offered no p (:func:`locproj.engine.selection.skipped_text`), from :func:`collect`'s rows."""
    found = {}
    if "skipped" not in results:
        return found
    for (dataset, method), rows in results.groupby(["dataset", "method"], sort=False):
        items = [item for skipped in rows["skipped"] for item in skipped]
        if items:
            found[dataset, method] = skipped_text(items, dataset)
    return found


def table_footer(summary: pd.DataFrame, skipped: dict, method_labels=None, style: str = "plain") -> str:
    """What follows a table: the footnotes of its failed cells and the grid values not fitted."""
    labels = dict(method_labels or {})
    lines = [f"{labels.get(method, method)}: {text}" for (_, method), text in skipped.items()]
    if style == "tex":
        from locproj.report.writers import tex_escape

        lines = "".join(f"\\par\\footnotesize {tex_escape(line)}\n" for line in lines)
    else:
        lines = "".join(f"\n{line}\n" for line in lines)
    return failure_notes(summary, method_labels, style) + lines


def failed_cells(summary: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`summarise` whose cell failed, in table order, numbered by position."""
    if "failed_splits" not in summary:
        return summary.iloc[:0]
    return summary[summary["failed_splits"] > 0]


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
    """Rows dataset x m, one formatted column per method, like the paper's Table 2; a failed cell is
    ``failed (i)``, its footnote :func:`failure_notes`' i-th."""
    labels = dict(method_labels or {})
    methods = ordered(summary["method"], methods_order)
    datasets = ordered(summary["dataset"], dataset_order)
    marks = {(r.dataset, r.m, r.method): i for i, r in enumerate(failed_cells(summary).itertuples(), start=1)}
    cells = summary.assign(
        cell=[f"failed ({marks[r.dataset, r.m, r.method]})" if (r.dataset, r.m, r.method) in marks
              else format_cell(r.mean_error, r.std_error, r.mean_dim, r.best, style) for r in summary.itertuples()]
    )
    table = cells.pivot(index=ROW_KEYS, columns="method", values="cell").reindex(columns=methods).fillna("")
    table = table.reset_index()
    table["dataset"] = pd.Categorical(table["dataset"], categories=datasets, ordered=True)
    table = table.dropna(subset=["dataset"]).sort_values(ROW_KEYS, kind="mergesort", ignore_index=True)
    table["dataset"] = table["dataset"].astype(str)
    table.columns.name = None
    return table.rename(columns={name: labels.get(name, name) for name in methods})


def write_tables(summary, out_dir, *, stem="table", methods_order=None, method_labels=None,
                 dataset_order=None, data_notes=None, skipped=None) -> list[Path]:
    """Write ``<stem>.csv`` (long: one row per dataset, m, method with ``mean_error, std_error,
    mean_dim, n_splits, best, data_note``) and ``<stem>.md``, ``<stem>.tex`` laid out like the
    paper's Table 2.

    Datasets missing from ``dataset_order`` (when given) are left out of the wide tables. A dataset
    with an entry in ``data_notes`` (how its public data differ from the paper's) is marked † in the
    wide tables, with the note below them; a failed cell is ``failed (i)``, with its footnote below,
    and the grid values not fitted (``skipped``, :func:`skipped_values`) are said below too.

    Bold is ``**...**`` in Markdown and ``\\textbf{...}`` in LaTeX.

    Returns
    -------
    list of Path
    """
    options = dict(methods_order=methods_order, method_labels=method_labels, dataset_order=dataset_order)
    return write_table_files(out_dir, stem, summary, wide_table(summary, **options),
                             latex=wide_table(summary, style="tex", **options), notes=data_notes,
                             footer=table_footer(summary, skipped or {}, method_labels),
                             latex_footer=table_footer(summary, skipped or {}, method_labels, style="tex"))
