"""Published numbers beside ours: one row per published cell or statement, the difference, and the
configured reason for each one beyond the published (or our) standard deviation.

:func:`compare` and :func:`read_published` handle the cell tables (``dataset, m, method``) of the
cross-validated protocols; :func:`most_specific_reason` picks a configured reason for any
protocol's rows; :func:`write_comparison` writes every protocol's ``comparison.csv`` and ``.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from locproj.report.writers import write_table_files


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


def write_comparison(comparison: pd.DataFrame, out_dir, data_notes=None, *, columns=None,
                     decimals: int = 1) -> list[Path]:
    """Write ``comparison.csv`` (with a ``data_note`` column) and ``comparison.md`` (numbers rounded
    to ``decimals``, noted datasets marked † with their note below): any protocol's comparison.

    ``columns`` are the columns rounded in the Markdown table (those of the frame; default: every
    numeric column but ``m``)."""
    rounded = comparison.copy()
    if columns is None:
        columns = rounded.select_dtypes("number").columns.drop("m", errors="ignore")
    for column in columns:
        if column in rounded:
            rounded[column] = rounded[column].map(lambda v: "" if pd.isna(v) else f"{v:.{decimals}f}")
    return write_table_files(out_dir, "comparison", comparison, rounded, notes=data_notes)
