"""What the two curve protocols share (``train_test_curve``, ``holdout_curve``): their aggregation.

Each job of theirs writes one :func:`locproj.results.write_swept` file of arrays over its swept
values. :class:`CurveAggregation` turns an experiment's files into every output, in the same steps
for both: the long rows of every file, one summary row per curve point, ``curves.csv``, the table,
the comparison with the published statements (:func:`locproj.comparison.write_comparison`) and one
figure per dataset. A protocol supplies each step's contents (the abstract methods below); a
method entry's ``pca_first`` is :class:`locproj.methods.linear.LeadingPCA` in both.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path

import pandas as pd

from .. import reporting
from ..comparison import write_comparison


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
    def write_tables(self, summary: pd.DataFrame, spec: dict, out_dir, notes=None) -> None:
        """``<table_name>.csv``, ``.md`` and ``.tex``."""

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

    def aggregate(self, spec: dict, inputs, out_dir, seed=None, notes=None) -> None:
        out_dir = Path(out_dir)
        long = self.read_results(spec, list(inputs))
        summary = self.summarise(long)
        reporting.write_text(out_dir / "curves.csv",
                             reporting.frame_to_csv(reporting.with_notes(self.curves_table(summary), notes)))
        self.write_tables(self.curves_table(summary), spec, out_dir, notes)
        experiment = long["experiment"].iloc[0]
        published = (self.read_published(spec["published"], experiment) if spec.get("published")
                     else pd.DataFrame(columns=list(self.published_columns)))
        write_comparison(self.comparison(summary, spec, published), out_dir, notes, columns=self.rounded_columns,
                         decimals=self.rounded_decimals)
        plot_curves(summary, spec, published, out_dir / "figures", self.curve_figure, notes)
        self.aggregate_more(summary, spec, out_dir, experiment, notes)


def plot_curves(summary: pd.DataFrame, spec: dict, published: pd.DataFrame, out_dir, curve_figure,
                notes=None) -> None:
    """``curves_<dataset>`` in ``out_dir`` for each dataset of ``summary``, in its order:
    ``curve_figure(dataset, rows, spec, published, notes)``, saved with its outside legend."""
    for dataset, rows in summary.groupby("dataset", sort=False):
        figure = curve_figure(dataset, rows, spec, published, notes)
        reporting.save_figure(figure, Path(out_dir) / f"curves_{dataset}", tight=True)
