"""The ``cv_table`` protocol (Table 2 of paper 000): per-class splits, inner CV, test error at the
chosen p; aggregated into the paper's table, the comparison with its numbers and the CV curves.

The jobs are those of :mod:`locproj.experiments`; this module adds the aggregation. An experiment
with ``ranks`` (the cross-paper ``matrix``) also gets average ranks over its datasets, Friedman's
test, Nemenyi's critical-difference diagram and the time per method (:mod:`.ranks`).
"""

from __future__ import annotations

from pathlib import Path

from .. import aggregate
from ..experiments import write_metadata


def aggregate_table(spec: dict, result_paths, out_dir, seed=None, notes=None) -> None:
    """Tables, comparison with the published numbers, CV-curve figures and run metadata; ``notes``
    (:func:`locproj.experiments.data_notes`) say in each of them where the public data differ from the paper's."""
    methods, labels = list(spec["methods"]), spec.get("labels", {})
    results = aggregate.collect(result_paths)
    summary = aggregate.summarise(results, methods)
    aggregate.write_tables(summary, out_dir, stem=spec.get("table_name", "table"), methods_order=methods,
                           method_labels=labels, dataset_order=list(spec["datasets"]), data_notes=notes)
    published = aggregate.read_published(spec["published"]) if spec.get("published") else None
    if published is None:
        published = summary.iloc[:0][["dataset", "m", "method", "mean_error", "std_error", "mean_dim"]]
    comparison = aggregate.compare(summary, published, spec.get("reasons"), spec.get("published_names"))
    comparison = comparison[comparison["ours_mean"].notna()]     # rows this run reproduced
    aggregate.write_comparison(comparison, out_dir, data_notes=notes)
    curves = aggregate.collect_cv_curves(result_paths)
    aggregate.plot_cv_curves(curves, Path(out_dir) / "figures", methods_order=methods, method_labels=labels,
                             data_notes=notes)
    if spec.get("ranks"):
        from .ranks import DEFAULT_ALPHA, write_ranks

        options = spec["ranks"] if isinstance(spec["ranks"], dict) else {}
        write_ranks(summary, result_paths, out_dir, methods_order=methods, method_labels=labels,
                    dataset_order=list(spec["datasets"]), alpha=options.get("alpha", DEFAULT_ALPHA), data_notes=notes)
    write_metadata(Path(out_dir) / "metadata.yaml", spec, seed)
