"""What the two curve protocols share (``train_test_curve``, ``holdout_curve``): their aggregation.

Each job of theirs writes one :func:`locproj.engine.results.write_swept` file of arrays over its swept
values. :class:`CurveAggregation` turns an experiment's files into every output, in the same steps
for both: the long rows of every file, one summary row per curve point, ``curves.csv``, the table,
the comparison with the published statements (:func:`locproj.report.comparison.write_comparison`) and one
figure per dataset. A protocol supplies each step's contents (the abstract methods below); a
method entry's ``pca_first`` is :class:`locproj.methods.linear.LeadingPCA` in both.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path

import pandas as pd

from ..report import writers
from ..report.comparison import write_comparison
from ..engine.method_failures import failure_text
from ..engine.results import failures


class CurveAggregation(ABC):
    """The aggregation of a curve protocol (module docstring); mixed in before its protocol base."""

    #: The columns of an empty published frame (an experiment without published statements).
    published_columns: tuple[str, ...] = ()
    #: The comparison's columns rounded in its Markdown table, and to how many decimals.
    rounded_columns: tuple[str, ...] = ()
    rounded_decimals: int = 1

    @abstractmethod
    def read_results(self, spec: dict, paths) -> pd.DataFrame:
        """Every result file as long rows (one per file, swept value, ...), in a stable order."""

    @abstractmethod
    def summarise(self, long: pd.DataFrame) -> pd.DataFrame:
        """One row per curve point (dataset, method, ..., x): the numbers the outputs show."""

    def curves_table(self, summary: pd.DataFrame) -> pd.DataFrame:
        """What ``curves.csv`` and the table hold of the summary (default: all of it)."""
        return summary

    @abstractmethod
    def write_tables(self, summary: pd.DataFrame, spec: dict, out_dir, notes=None, footer: str = "",
                     latex_footer: str = "") -> None:
        """``<table_name>.csv``, ``.md`` and ``.tex``, with the footers (the failures) after the last two."""

    @abstractmethod
    def read_published(self, path, experiment: str | None = None) -> pd.DataFrame:
        """The published statements of ``experiment`` in the file ``path``."""

    @abstractmethod
    def comparison(self, summary: pd.DataFrame, spec: dict, published: pd.DataFrame) -> pd.DataFrame:
        """Each published statement beside ours."""

    @abstractmethod
    def curve_figure(self, dataset: str, rows: pd.DataFrame, spec: dict, published: pd.DataFrame, notes=None):
        """The figure of one dataset."""

    def aggregate_more(self, summary: pd.DataFrame, spec: dict, out_dir: Path, experiment: str, notes=None) -> None:
        """Outputs beyond the shared ones (default: none)."""

    def aggregate(self, spec: dict, inputs, out_dir, seed=None, notes=None) -> list[dict]:
        out_dir, paths = Path(out_dir), list(inputs)
        failed = [failure_of(attrs) for attrs in failures(paths)]
        long = self.read_results(spec, paths)
        summary = self.summarise(long)
        writers.write_text(out_dir / "curves.csv",
                             writers.frame_to_csv(writers.with_notes(self.curves_table(summary), notes)))
        self.write_tables(self.curves_table(summary), spec, out_dir, notes, footer=failure_lines(failed, spec),
                          latex_footer=failure_lines(failed, spec, style="tex"))
        experiment = long["experiment"].iloc[0]
        published = (self.read_published(spec["published"], experiment) if spec.get("published")
                     else pd.DataFrame(columns=list(self.published_columns)))
        if spec.get("published"):
            write_comparison(self.comparison(summary, spec, published), out_dir, notes,
                             columns=self.rounded_columns, decimals=self.rounded_decimals)
        plot_curves(summary, spec, published, out_dir / "figures", self.curve_figure, notes)
        self.aggregate_more(summary, spec, out_dir, experiment, notes)
        return failed


def failure_of(attrs: dict) -> dict:
    """A failed job's file (:func:`locproj.engine.results.write_failure`) as the run's summary lists it."""
    return {"experiment": attrs.get("experiment", ""), "dataset": attrs.get("dataset", ""),
            "m": attrs.get("m", "holdout"), "method": attrs.get("method", ""),
            "split": attrs.get("split", attrs.get("block", "")), "failure": failure_text(attrs),
            "log": attrs.get("log", "")}


def failure_lines(failed: list[dict], spec: dict, style: str = "plain") -> str:
    """The failures under a curve table: each failed repetition or job, why, and its log."""
    labels = spec.get("labels") or {}
    lines = [f"Failed, no curve point: {labels.get(item['method'], item['method'])} on {item['dataset']} (m = "
             f"{item['m']}, {item['split']}): {item['failure']}" + (f"; log: {item['log']}" if item["log"] else "")
             for item in failed]
    if style == "tex":
        return "".join(f"\\par\\footnotesize {writers.tex_escape(line)}\n" for line in lines)
    return "".join(f"\n{line}\n" for line in lines)


def plot_curves(summary: pd.DataFrame, spec: dict, published: pd.DataFrame, out_dir, curve_figure,
                notes=None) -> None:
    """``curves_<dataset>`` in ``out_dir`` for each dataset of ``summary``, in its order:
    ``curve_figure(dataset, rows, spec, published, notes)``, saved with its outside legend."""
    for dataset, rows in summary.groupby("dataset", sort=False):
        figure = curve_figure(dataset, rows, spec, published, notes)
        writers.save_figure(figure, Path(out_dir) / f"curves_{dataset}", tight=True)
