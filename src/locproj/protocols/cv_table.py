"""The ``cv_table`` protocol (Table 2 of paper 000): per-class splits, inner CV, test error at the
chosen p; aggregated into the paper's table, the comparison with its numbers and the CV curves.

The jobs are those of :mod:`.split_jobs`; this module adds the aggregation. An experiment with
``ranks`` (the cross-paper ``matrix``) also gets average ranks over its datasets, Friedman's test,
Nemenyi's critical-difference diagram and the time per method (:mod:`.ranks`).
"""

from __future__ import annotations

from pathlib import Path

from .base import Output, table_outputs
from .split_jobs import SplitProtocol

# what ``ranks: true`` adds (locproj.protocols.ranks), besides figures/cd_diagram.*
RANKS_OUTPUTS = (("ranks_csv", "ranks.csv", "../report/ranks.rst"), ("ranks_md", "ranks.md", None),
                 ("friedman_md", "friedman.md", None), ("timing_csv", "timing.csv", "../report/timing.rst"),
                 ("timing_md", "timing.md", None))


def aggregate_table(spec: dict, result_paths, out_dir, seed=None, notes=None) -> list[dict]:
    """Tables, comparison with the published numbers and CV-curve figures; ``notes``
    (:func:`locproj.engine.config.data_notes`) say in each of them where the public data differ from the paper's.
    Returns the failed splits."""
    # imported here, so that this protocol's jobs (locproj.protocols.split_jobs) never load pandas
    from ..report import error_tables
    from ..report.comparison import compare, read_published, write_comparison
    from .cv_curves import collect_cv_curves, plot_cv_curves

    methods, labels = list(spec["methods"]), spec.get("labels", {})
    results = error_tables.collect(result_paths)
    summary = error_tables.summarise(results, methods)
    skipped = error_tables.skipped_values(results)
    error_tables.write_tables(summary, out_dir, stem=spec.get("table_name", "table"), methods_order=methods,
                              method_labels=labels, dataset_order=list(spec["datasets"]), data_notes=notes,
                              skipped=skipped)
    if spec.get("published"):
        comparison = compare(summary, read_published(spec["published"]), spec.get("reasons"),
                             spec.get("published_names"))
        comparison = comparison[comparison["ours_mean"].notna()]     # rows this run reproduced
        write_comparison(comparison, out_dir, data_notes=notes)
    curves, baselines = collect_cv_curves(result_paths)
    plot_cv_curves(curves, Path(out_dir) / "figures", baselines=baselines, methods_order=methods,
                   method_labels=labels, method_entries=spec["methods"], data_notes=notes, skipped=skipped)
    if spec.get("ranks"):
        from .ranks import DEFAULT_ALPHA, write_ranks

        options = spec["ranks"] if isinstance(spec["ranks"], dict) else {}
        write_ranks(summary, result_paths, out_dir, methods_order=methods, method_labels=labels,
                    dataset_order=list(spec["datasets"]), alpha=options.get("alpha", DEFAULT_ALPHA), data_notes=notes)
    return error_tables.failed_splits(results)


class CVTable(SplitProtocol):
    name = "cv_table"

    def aggregate(self, spec: dict, inputs, out_dir, seed=None, notes=None) -> list[dict]:
        return aggregate_table(spec, list(inputs), out_dir, seed=seed, notes=notes)

    def outputs(self, experiment: str, spec: dict) -> list[Output]:
        ranks = [Output(name, f"results/{experiment}/{file}", caption, target=True)
                 for name, file, caption in RANKS_OUTPUTS] if spec.get("ranks") else []
        return table_outputs(experiment, spec, self.table_caption, self.figures_caption) + ranks


PROTOCOL = CVTable()
