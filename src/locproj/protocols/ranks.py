"""Many methods over many datasets (Demšar 2006): average ranks, the Friedman test, the Nemenyi
critical difference and its diagram; and the fit and CV time per method.

An option of the ``cv_table`` protocol (``ranks: true`` in an experiment, e.g. the cross-paper
``matrix``); :func:`write_ranks` adds its outputs beside the table.

Documented rules
----------------
* One row per **dataset** (Demšar's N): its error for a method is the mean over its training sizes
  of the mean test error over splits (%), so a dataset with two sizes counts once. Datasets where a
  method has no result are left out of the ranks and the tests, and named.
* Ranks per row by :func:`scipy.stats.rankdata` (1 = lowest error; ties share the average rank).
  Errors are rounded to 1e-9 percentage points first, so that equal means that differ in the last
  bits of their sums tie.
* Friedman's test is :func:`scipy.stats.friedmanchisquare` on the ``N x k`` error matrix (its
  tie-corrected chi-square); Iman and Davenport's F (Demšar eq. 2) is given beside it.
* Nemenyi's critical difference ``CD = q_alpha sqrt(k (k + 1) / (6 N))`` with ``q_alpha`` the
  studentized range quantile ``studentized_range.ppf(1 - alpha, k, inf) / sqrt(2)`` (Demšar
  Table 5(a): 2.569 for k = 4, alpha = 0.05). Two methods differ significantly when their average
  ranks differ by at least CD.
* Timings are the ``cv_seconds`` and ``fit_seconds`` of each result file (wall-clock seconds inside
  the job, one process per core). They vary between reruns, so ``timing.*`` is the one output of
  an experiment that is not byte-identical when regenerated.

References
----------
J. Demšar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7:1-30, 2006.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..report import writers
from ..engine.results import read_result

DEFAULT_ALPHA = 0.05
#: What the ranks say of the datasets they leave out.
LEFT_OUT = "Left out (a method failed there, see the table's notes, or has no result)"


# --------------------------------------------------------------------------- ranks and tests


def error_matrix(summary: pd.DataFrame, methods_order: Sequence | None = None,
                 dataset_order: Sequence | None = None) -> pd.DataFrame:
    """Datasets x methods: the mean over each dataset's training sizes of ``mean_error`` (%).

    Parameters
    ----------
    summary : DataFrame
        :func:`locproj.report.error_tables.summarise` (``dataset, m, method, mean_error``).
    methods_order, dataset_order : sequence of str, optional
        Column and row order (default: sorted); names absent from ``summary`` are left out.

    Returns
    -------
    DataFrame
        Index ``dataset``; NaN where a method has no result on a dataset or failed on one of its sizes
        (a failed cell has no ``mean_error``).
    """
    matrix = summary.pivot_table(index="dataset", columns="method", values="mean_error", aggfunc="mean")
    failed = summary.assign(failed=summary["mean_error"].isna()).pivot_table(
        index="dataset", columns="method", values="failed", aggfunc="any")
    matrix = matrix.mask(failed.reindex_like(matrix).fillna(False).astype(bool))
    methods = writers.ordered(summary["method"], methods_order)
    datasets = writers.ordered(summary["dataset"], dataset_order)
    matrix = matrix.reindex(index=datasets, columns=methods)
    matrix.columns.name = None
    return matrix


def rank_rows(errors: pd.DataFrame) -> pd.DataFrame:
    """Rank the methods (columns) within each dataset (row): 1 = lowest error, ties averaged.

    Rows with a missing value are dropped (see :func:`complete_rows`)."""
    from scipy.stats import rankdata   # here, as all of scipy.stats: a second to import, which planning a run skips

    errors = complete_rows(errors)
    values = np.round(errors.to_numpy(dtype=float), 9)
    ranks = rankdata(values, method="average", axis=1) if values.size else values
    return pd.DataFrame(ranks, index=errors.index, columns=errors.columns)


def complete_rows(errors: pd.DataFrame) -> pd.DataFrame:
    """The rows (datasets) where every method has an error."""
    return errors[errors.notna().all(axis=1)]


def friedman(errors: pd.DataFrame) -> dict:
    """Friedman's test that all methods (columns) perform alike over the datasets (rows).

    Returns
    -------
    dict
        ``statistic`` and ``pvalue`` of :func:`scipy.stats.friedmanchisquare`, Iman and Davenport's
        ``iman_davenport_F`` (``(N - 1) chi2 / (N (k - 1) - chi2)``) and its ``iman_davenport_pvalue``
        (F with ``k - 1`` and ``(k - 1)(N - 1)`` degrees of freedom), ``n_datasets``, ``n_methods``.
        NaN statistics when there are fewer than 3 methods or 2 datasets.
    """
    errors = complete_rows(errors)
    n, k = errors.shape
    out = {"n_datasets": int(n), "n_methods": int(k), "statistic": np.nan, "pvalue": np.nan,
           "iman_davenport_F": np.nan, "iman_davenport_pvalue": np.nan}
    if k < 3 or n < 2:
        return out
    from scipy.stats import f as f_distribution
    from scipy.stats import friedmanchisquare

    test = friedmanchisquare(*(np.round(errors[c].to_numpy(dtype=float), 9) for c in errors.columns))
    chi2 = float(test.statistic)
    out.update(statistic=chi2, pvalue=float(test.pvalue))
    if n * (k - 1) - chi2 > 0:
        F = (n - 1) * chi2 / (n * (k - 1) - chi2)
        out.update(iman_davenport_F=F,
                   iman_davenport_pvalue=float(f_distribution.sf(F, k - 1, (k - 1) * (n - 1))))
    return out


def q_alpha(n_methods: int, alpha: float = DEFAULT_ALPHA) -> float:
    """Nemenyi's critical value: the studentized range quantile over ``sqrt(2)`` (Demšar Table 5(a))."""
    if n_methods < 2:
        raise ValueError(f"the Nemenyi test compares at least 2 methods, got {n_methods}")
    from scipy.stats import studentized_range

    return float(studentized_range.ppf(1 - alpha, n_methods, np.inf) / math.sqrt(2))


def critical_difference(n_methods: int, n_datasets: int, alpha: float = DEFAULT_ALPHA) -> float:
    """Nemenyi's ``CD = q_alpha sqrt(k (k + 1) / (6 N))`` (Demšar eq. 3)."""
    if n_datasets < 1:
        raise ValueError("the critical difference needs at least one dataset")
    return q_alpha(n_methods, alpha) * math.sqrt(n_methods * (n_methods + 1) / (6 * n_datasets))


def cliques(ranks: Mapping, cd: float) -> list[list[str]]:
    """Maximal groups of methods whose average ranks lie within less than ``cd`` of each other (no
    significant difference inside a group), ordered by rank; single methods are not groups."""
    ordered = sorted(ranks.items(), key=lambda item: (item[1], str(item[0])))
    names, values = [name for name, _ in ordered], [value for _, value in ordered]
    groups, last_end = [], -1
    for start in range(len(values)):
        end = start
        while end + 1 < len(values) and values[end + 1] - values[start] < cd:
            end += 1
        if end > start and end > last_end:       # not inside the previous group
            groups.append(names[start:end + 1])
            last_end = end
    return groups


# --------------------------------------------------------------------------- the diagram


def plot_cd_diagram(ranks: Mapping, cd: float, stem, *, labels: Mapping | None = None, title: str = "",
                    formats=("png", "pdf"), dpi=150) -> list[Path]:
    """Demšar's critical-difference diagram: the average ranks on an axis (1, the lowest error, on
    the left), each method's name joined to its rank, the CD as a bar above the axis and a thick
    line under every group of methods not significantly different (:func:`cliques`).

    Written as ``<stem>.<format>`` by :func:`locproj.report.writers.save_figure` (atomic, no timestamps).
    """
    labels = dict(labels or {})
    ordered = sorted(ranks.items(), key=lambda item: (item[1], str(item[0])))
    k = len(ordered)
    groups = cliques(dict(ordered), cd)
    left = ordered[: (k + 1) // 2]
    right = ordered[(k + 1) // 2:]
    rows = max(len(left), len(right))
    step = 0.28                                 # between label rows
    top = 0.0                                   # the axis at y = 0, labels below (negative y)
    first_label = -0.35 - 0.12 * len(groups)
    bottom = first_label - step * (rows - 1) - 0.25
    ceiling = 1.3 if title else 0.9
    figure = writers.new_figure((7.0, 0.6 * (ceiling - bottom)))
    ax = figure.add_axes([0.2, 0.0, 0.6, 1.0])
    low, high = 1, max(k, 2)
    ax.set_xlim(low - 0.05, high + 0.05)
    ax.set_ylim(bottom, ceiling)
    ax.axis("off")
    ax.plot([low, high], [top, top], color="black", linewidth=1)
    for tick in range(low, high + 1):
        ax.plot([tick, tick], [top, top + 0.08], color="black", linewidth=1)
        ax.text(tick, top + 0.12, str(tick), ha="center", va="bottom", fontsize="small")
    for half in np.arange(low + 0.5, high, 1.0):
        ax.plot([half, half], [top, top + 0.04], color="black", linewidth=0.7)
    # the critical difference, from rank 1
    ax.plot([low, low + cd], [0.55, 0.55], color="black", linewidth=1.5)
    for end in (low, low + cd):
        ax.plot([end, end], [0.5, 0.6], color="black", linewidth=1)
    ax.text(low + cd / 2, 0.62, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize="small")
    # groups of methods not significantly different, just under the axis
    for index, group in enumerate(groups):
        y = -0.12 - 0.12 * index
        values = [dict(ordered)[name] for name in group]
        ax.plot([min(values) - 0.03, max(values) + 0.03], [y, y], color="black", linewidth=3,
                solid_capstyle="butt")
    for side, items in (("left", left), ("right", right)):
        for row, (name, value) in enumerate(items if side == "left" else reversed(items)):
            y = first_label - step * row
            x_end = low - 0.1 if side == "left" else high + 0.1
            ax.plot([value, value, x_end], [top, y, y], color="black", linewidth=0.8, clip_on=False)
            text = f"{labels.get(name, name)} ({value:.2f})"
            ax.text(x_end + (-0.05 if side == "left" else 0.05), y, text, ha="right" if side == "left" else "left",
                    va="center", fontsize="small", clip_on=False)
    if title:
        ax.text((low + high) / 2, ceiling - 0.05, title, ha="center", va="top", fontsize="small")
    return writers.save_figure(figure, stem, formats=formats, dpi=dpi)


# --------------------------------------------------------------------------- timings


def collect_timings(paths: Iterable) -> pd.DataFrame:
    """One row per result file: ``dataset, m, method, split, cv_seconds, fit_seconds``."""
    rows = []
    for path in paths:
        result = read_result(path)
        if result.get("failed"):        # a failure records no seconds
            continue
        rows.append({key: result.get(key) for key in ("dataset", "m", "method", "split")}
                    | {"cv_seconds": float(result["cv_seconds"]), "fit_seconds": float(result["fit_seconds"])})
    frame = pd.DataFrame(rows, columns=["dataset", "m", "method", "split", "cv_seconds", "fit_seconds"])
    return frame.sort_values(["dataset", "m", "method", "split"], kind="mergesort", ignore_index=True)


def timing_by_method(timings: pd.DataFrame, methods_order: Sequence | None = None) -> pd.DataFrame:
    """Per method: ``results``, mean ``cv_seconds`` and ``fit_seconds`` per result (one split),
    ``total_seconds`` (their sum over every result) and its ``share`` (%) of all methods'."""
    grouped = timings.assign(total=timings["cv_seconds"] + timings["fit_seconds"]).groupby("method")
    table = pd.DataFrame({
        "results": grouped.size(), "cv_seconds": grouped["cv_seconds"].mean(),
        "fit_seconds": grouped["fit_seconds"].mean(), "total_seconds": grouped["total"].sum(),
    })
    table = table.reindex(writers.ordered(timings["method"], methods_order))
    grand = table["total_seconds"].sum()
    table["share"] = 100 * table["total_seconds"] / grand if grand > 0 else np.nan
    return table.rename_axis("method").reset_index()


def timing_by_dataset(timings: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, m, method): ``results``, mean ``cv_seconds`` and ``fit_seconds`` per split."""
    grouped = timings.groupby(["dataset", "m", "method"], sort=True)
    return pd.DataFrame({"results": grouped.size(), "cv_seconds": grouped["cv_seconds"].mean(),
                         "fit_seconds": grouped["fit_seconds"].mean()}).reset_index()


# --------------------------------------------------------------------------- writing


def _fmt(value, digits=2) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def _pvalue(value) -> str:
    if value is None or math.isnan(value):
        return ""
    return f"{value:.2e}" if value < 1e-3 else f"{value:.4f}"


def write_ranks(summary: pd.DataFrame, result_paths, out_dir, *, methods_order=None, method_labels=None,
                dataset_order=None, alpha: float = DEFAULT_ALPHA, data_notes=None) -> list[Path]:
    """Write ``ranks.csv/.md`` (rank of every method on every dataset and the average ranks),
    ``friedman.md`` (Friedman's test, Iman-Davenport's F, Nemenyi's CD and the groups it leaves),
    ``figures/cd_diagram.png/.pdf`` and ``timing.csv/.md`` (fit and CV seconds per method).

    Returns
    -------
    list of Path
    """
    out_dir = Path(out_dir)
    labels = dict(method_labels or {})
    errors = error_matrix(summary, methods_order, dataset_order)
    complete = complete_rows(errors)
    left_out = [name for name in errors.index if name not in complete.index]
    ranks = rank_rows(errors)
    mean_ranks = ranks.mean(axis=0)
    n, k = complete.shape
    cd = critical_difference(k, n, alpha) if n >= 1 and k >= 2 else float("nan")
    sizes = summary.groupby("dataset")["m"].apply(lambda ms: ", ".join(str(m) for m in sorted(set(ms))))
    written = _write_rank_tables(ranks, mean_ranks, complete, sizes, left_out, out_dir, labels, data_notes)
    written.append(_write_friedman(errors, mean_ranks, alpha, cd, left_out, out_dir, labels))
    if n >= 1 and k >= 2:
        title = f"Average ranks over N = {n} datasets, Nemenyi CD at alpha = {alpha:g}"
        written += plot_cd_diagram(mean_ranks.to_dict(), cd, out_dir / "figures" / "cd_diagram",
                                   labels=labels, title=title)
    return written + _write_timing(result_paths, out_dir, methods_order, labels)


def _write_rank_tables(ranks, mean_ranks, complete, sizes, left_out, out_dir: Path, labels, data_notes) -> list[Path]:
    """``ranks.csv`` (long: one row per dataset and method, then the averages) and ``ranks.md``
    (datasets x methods, "rank (mean error)", and the average row)."""
    long = pd.DataFrame([(d, m, ranks.loc[d, m], complete.loc[d, m]) for d in ranks.index for m in ranks.columns],
                        columns=["dataset", "method", "rank", "mean_error"])
    average = pd.DataFrame({"dataset": "average", "method": mean_ranks.index, "rank": mean_ranks.to_numpy(),
                            "mean_error": complete.mean(axis=0).to_numpy()})
    writers.write_text(out_dir / "ranks.csv", writers.frame_to_csv(pd.concat([long, average], ignore_index=True)))

    shown = writers.mark_noted(pd.DataFrame({"dataset": list(ranks.index)}), data_notes)["dataset"]
    table = pd.DataFrame({"dataset": list(shown), "m": [sizes.get(d, "") for d in ranks.index]})
    for method in ranks.columns:
        table[labels.get(method, method)] = [f"{ranks.loc[d, method]:g} ({complete.loc[d, method]:.1f})"
                                             for d in ranks.index]
    lowest = mean_ranks.min()
    table.loc[len(table)] = ["average rank", ""] + [
        f"**{mean_ranks[m]:.2f}**" if mean_ranks[m] == lowest else f"{mean_ranks[m]:.2f}" for m in ranks.columns]
    order = ", ".join(f"{labels.get(m, m)} {r:.2f}" for m, r in sorted(mean_ranks.items(), key=lambda i: i[1]))
    text = (f"Rank of each method on each dataset (1 = lowest mean test error; ties share the average rank), "
            f"the error (%) in parentheses: the mean over the dataset's training sizes m of the mean over "
            f"splits. Lowest average rank first: {order}.\n\n" + writers.frame_to_markdown(table))
    if left_out:
        text += f"\n{LEFT_OUT}: {', '.join(left_out)}.\n"
    text += writers.notes_text(data_notes, list(ranks.index))
    writers.write_text(out_dir / "ranks.md", text)
    return [out_dir / "ranks.csv", out_dir / "ranks.md"]


def _write_friedman(errors, mean_ranks, alpha: float, cd: float, left_out, out_dir: Path, labels) -> Path:
    """``friedman.md``: Friedman's test, Iman-Davenport's F, Nemenyi's CD and the groups within it."""
    n, k = complete_rows(errors).shape
    test = friedman(errors)
    groups = cliques(mean_ranks.to_dict(), cd) if not math.isnan(cd) else []
    lines = [
        "# Friedman test and Nemenyi critical difference (Demšar 2006)", "",
        "| quantity | value |", "|---|---|",
        f"| datasets N | {n} |", f"| methods k | {k} |",
        f"| Friedman chi-square (scipy.stats.friedmanchisquare) | {_fmt(test['statistic'], 3)} |",
        f"| p-value | {_pvalue(test['pvalue'])} |",
        f"| Iman-Davenport F ({k - 1}, {(k - 1) * (n - 1)} df) | {_fmt(test['iman_davenport_F'], 3)} |",
        f"| p-value (F) | {_pvalue(test['iman_davenport_pvalue'])} |",
        f"| alpha | {alpha:g} |",
        f"| q_alpha (studentized range / sqrt 2) | {_fmt(q_alpha(k, alpha), 3) if k >= 2 else ''} |",
        f"| critical difference CD | {_fmt(cd, 3)} |", "",
    ]
    if groups:
        lines.append("Groups of methods whose average ranks differ by less than CD (no significant "
                     "difference by the Nemenyi test):")
        lines += [f"- {', '.join(f'{labels.get(m, m)} ({mean_ranks[m]:.2f})' for m in group)}" for group in groups]
    else:
        lines.append("No two methods are within CD of each other.")
    if left_out:
        lines += ["", f"{LEFT_OUT}: {', '.join(left_out)}."]
    writers.write_text(out_dir / "friedman.md", "\n".join(lines) + "\n")
    return out_dir / "friedman.md"


def _write_timing(result_paths, out_dir: Path, methods_order, labels) -> list[Path]:
    """``timing.csv`` (per method, then per dataset and m) and ``timing.md`` (per method, and CV +
    final fit seconds per split of each dataset and method)."""
    timings = collect_timings(result_paths)
    per_method = timing_by_method(timings, methods_order)
    per_dataset = timing_by_dataset(timings)
    writers.write_text(out_dir / "timing.csv", writers.frame_to_csv(
        pd.concat([per_method.assign(dataset="all", m=""), per_dataset], ignore_index=True)[
            ["dataset", "m", "method", "results", "cv_seconds", "fit_seconds", "total_seconds", "share"]]))
    shown = per_method.assign(
        method=[labels.get(m, m) for m in per_method["method"]],
        cv_seconds=per_method["cv_seconds"].map(lambda v: f"{v:.2f}"),
        fit_seconds=per_method["fit_seconds"].map(lambda v: f"{v:.3f}"),
        total_seconds=per_method["total_seconds"].map(lambda v: f"{v:.1f}"),
        share=per_method["share"].map(lambda v: _fmt(v, 1)),
    ).rename(columns={"cv_seconds": "CV s per split", "fit_seconds": "final fit s per split",
                      "total_seconds": "total s", "share": "share %"})
    wide = per_dataset.assign(seconds=per_dataset["cv_seconds"] + per_dataset["fit_seconds"]).pivot(
        index=["dataset", "m"], columns="method", values="seconds")
    wide = wide.reindex(columns=[m for m in writers.ordered(timings["method"], methods_order)])
    wide = wide.map(lambda v: _fmt(v, 2)).reset_index().rename(columns=lambda c: labels.get(c, c))
    wide.columns.name = None
    total = timings["cv_seconds"].sum() + timings["fit_seconds"].sum()
    text = (f"Seconds spent per method (wall clock inside the job, one core each): the inner CV (every "
            f"fold and grid point) and the final fit on the training part, per split; total over the "
            f"{len(timings)} results: {total / 60:.1f} min (1-NN without projection has neither). Measured, so "
            f"not the same in a rerun.\n\n"
            + writers.frame_to_markdown(shown)
            + "\nCV + final fit, seconds per split (mean over splits):\n\n" + writers.frame_to_markdown(wide))
    writers.write_text(out_dir / "timing.md", text)
    return [out_dir / "timing.csv", out_dir / "timing.md"]
