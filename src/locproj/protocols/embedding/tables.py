"""The checks table of the ``embedding`` protocol (``checks.csv``) and the paper's statements beside
it (option ``published``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np

from .options import CHECK_COLUMNS

if TYPE_CHECKING:
    import pandas as pd


PUBLISHED_CHECK_KINDS = ("value", "about")


def compare_checks(table: pd.DataFrame, spec: dict, experiment: str) -> pd.DataFrame:
    """The paper's statements about a panel's checks beside ours (option ``published``: a CSV of
    rows ``experiment, panel, check, kind, published, slack, source``, those of ``experiment``;
    ``check`` names a column of the checks table). A ``value`` holds when ours equals it, an ``about`` when it is within
    ``slack``; where it does not, the most specific configured reason (keys ``panel``, ``check``). A check
    without a value of ours (a stopping rule that never fired in the iterations run: ``None``) does not
    hold, and says so when no reason is configured."""
    import pandas as pd

    from ...report.comparison import most_specific_reason

    published = pd.read_csv(spec["published"], comment="#")
    published = published[published["experiment"] == experiment]
    bad = sorted(set(published["kind"]) - set(PUBLISHED_CHECK_KINDS))
    missing = sorted({f"{r.panel}/{r.check}" for r in published.itertuples()
                      if r.panel not in set(table["panel"]) or r.check not in table})
    if bad or missing:
        raise ValueError(f"{spec['published']}: unknown kinds {bad} or panels/checks not in the checks table {missing}")
    rows = []
    for row in published.drop(columns=["experiment"]).itertuples(index=False):
        value = table.loc[table["panel"] == row.panel, row.check].iloc[0]
        ours = float("nan") if value is None or pd.isna(value) else float(value)
        slack = 0.0 if row.kind == "value" or pd.isna(row.slack) else float(row.slack)
        holds = bool(abs(ours - row.published) <= slack)
        reason = "" if holds else most_specific_reason(spec.get("reasons"), row, ("panel", "check"))
        if pd.isna(ours) and not reason:
            reason = "no value of ours: the check never happened in the iterations run"
        rows.append({**row._asdict(), "ours": ours, "difference": ours - row.published, "holds": holds,
                     "reason": reason})
    return pd.DataFrame(rows)


def write_check_comparison(compared: pd.DataFrame, out_dir) -> None:
    """``comparison.csv`` and ``comparison.md`` (numbers to 3 significant digits)."""
    from ...report.writers import frame_to_markdown, write_table_files

    shown = compared.copy()
    for column in ("published", "slack", "ours", "difference"):
        shown[column] = shown[column].map(lambda v: "" if v != v else f"{v:.3g}")
    write_table_files(out_dir, "comparison", compared, frame_to_markdown(shown), noted=[], data_note=False)


def checks_table(spec: dict, panels: dict) -> pd.DataFrame:
    """One row per panel with order checks, a classifier or reported attributes, in the order of
    ``spec['panels']``.

    Columns ``panel, dataset, method, params`` (JSON), ``dims, turn_neighbour_fraction,
    novel_placement_fraction`` (NaN without them), ``n_train, n_novel``; then, when some panel
    has them, ``classifier, train_error, test_error``, ``train_misclassified`` and one column per
    reported attribute.
    """
    import pandas as pd

    rows = []
    for name, panel in (spec.get("panels") or {}).items():
        result = panels.get(name)
        if result is None or not any(key in result for key in ("turn_neighbour_fraction", "classifier", "reported",
                                                                "train_misclassified")):
            continue
        rows.append({
            "panel": name, "dataset": panel["dataset"], "method": panel.get("method", ""),
            "params": json.dumps(panel.get("params") or {}, sort_keys=True), "dims": int(panel.get("dims", 2)),
            "turn_neighbour_fraction": float(result.get("turn_neighbour_fraction", np.nan)),
            "novel_placement_fraction": float(result.get("novel_placement_fraction", np.nan)),
            "n_train": len(result["train_index"]), "n_novel": len(result["novel_index"]),
            **{key: result[key] for key in _CLASSIFIER_COLUMNS if key in result},
            **({"train_misclassified": int(result["train_misclassified"])} if "train_misclassified" in result else {}),
            **json.loads(result.get("reported", "{}")),
        })
    extra = [key for row in rows for key in row if key not in CHECK_COLUMNS]
    return pd.DataFrame(rows, columns=CHECK_COLUMNS + list(dict.fromkeys(extra)))


_CLASSIFIER_COLUMNS = ("classifier", "train_error", "test_error")
_FRACTIONS = ("turn_neighbour_fraction", "novel_placement_fraction", "train_error", "test_error")


def write_checks(table, out_dir, notes: dict | None = None) -> None:
    """``checks.csv`` (with a ``data_note`` column) and ``checks.md`` (fractions and errors to 3
    decimals, noted datasets marked † with their note below)."""
    from ...report.writers import write_table_files

    shown = table.copy()
    for column in [c for c in _FRACTIONS if c in shown]:
        shown[column] = shown[column].map(lambda v: "" if np.isnan(v) else f"{v:.3f}")
    write_table_files(out_dir, "checks", table, shown, notes=notes, noted=table["dataset"])
