"""The ``embedding`` protocol: one fit per panel, drawn as scatter plots or images (Figs. 1-3 of paper 001,
Figs. 1-4 of paper 004).

The options of a panel and of a figure are described (and checked) in :mod:`.options`. The package:

:mod:`.options`
    The option reference, the option constants and :func:`check_spec`.
:mod:`.samples`
    Which samples a panel keeps, holds out of the fit and draws.
:mod:`.checks`
    The order checks, the nearest-mean errors and the convergence checks.
:mod:`.panels`
    One panel's fit (:func:`run_panel`, one job) and its file (:func:`read_panel`).
:mod:`.tables`
    The checks table and the paper's statements beside it.
:mod:`.drawing`
    The figures (:func:`plot_figure`): the only module that uses matplotlib.

This module holds the aggregation (:func:`aggregate_embedding`) and the protocol object
(:class:`Embedding`, :data:`PROTOCOL`); :data:`__all__` names what it offers of the modules above.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from ...engine.config import NAME_PATTERN, data_file
from ..base import JobRule, Output, Protocol, comparison_files, estimator_source, figures_and_metadata
from .checks import novel_placement_fraction, turn_neighbor_fraction
from .drawing import binned_medians, plot_figure
from .options import COLOURS, PANEL_KINDS, by_import_path, check_spec, fit_params, method_entry
from .panels import border_samples, input_space_basis, read_panel, run_panel
from .samples import novel_split, per_class_split, select_samples
from .tables import checks_table, compare_checks, write_check_comparison, write_checks

__all__ = [
    "PANEL_KINDS", "COLOURS", "aggregate_embedding", "binned_medians", "border_samples", "check_spec", "checks_table",
    "input_space_basis", "novel_placement_fraction", "novel_split", "per_class_split", "plot_figure",
    "read_panel", "run_panel", "select_samples", "turn_neighbor_fraction", "write_checks",
]


# --------------------------------------------------------------------------- aggregation


def aggregate_embedding(spec: dict, panel_paths: dict, out_dir, notes: dict | None = None) -> None:
    """Figures and order checks of an embedding experiment.

    Parameters
    ----------
    spec : dict
        The experiment's config entry (``panels``, ``figures``).
    panel_paths : dict
        Panel name -> the file :func:`run_panel` wrote.
    out_dir : path
        Receives ``figures/{figure}.png`` and ``.pdf`` (one per entry of ``figures``),
        ``checks.csv``, ``checks.md`` and, with ``published``, the paper's
        statements beside the checks (:func:`compare_checks`: ``comparison.csv/.md``, the
        experiment being the name of ``out_dir``); all written atomically, and the
        figures and tables are the same bytes on every rerun.
    notes : dict, optional
        Dataset -> how its data differ from the paper's (:func:`locproj.engine.config.data_notes`),
        printed on every figure showing that dataset and under the checks table.
    """
    out_dir = Path(out_dir)
    unknown = sorted(set(panel_paths) - set(spec.get("panels") or {}))
    if unknown:
        raise ValueError(f"panel files for unknown panels {unknown}")
    for name, figure in (spec.get("figures") or {}).items():
        missing = [p for p in figure["panels"] if p not in panel_paths]
        if missing:
            raise ValueError(f"figure {name!r}: no panel file for {missing}")
    panels = {name: read_panel(path) for name, path in panel_paths.items()}
    for name, figure in (spec.get("figures") or {}).items():
        plot_figure(figure, {p: (spec["panels"][p], panels[p]) for p in figure["panels"]},
                    out_dir / "figures" / name, notes)
    table = checks_table(spec, panels)
    write_checks(table, out_dir, notes)
    if spec.get("published"):
        write_check_comparison(compare_checks(table, spec, experiment=out_dir.name), out_dir)


def with_source(config: dict, panel: dict) -> dict:
    """A panel's job parameters: the panel, and for a method by import path where its code comes
    from (recorded in the panel's provenance; an edit of a local file reruns the panel)."""
    if not by_import_path(panel):
        return panel
    return {**panel, **estimator_source(config, panel["method"], method_entry(panel))}


class Embedding(Protocol):
    """One job per panel (``embed_panel.py``: :func:`run_panel`), then one aggregation."""

    name = "embedding"

    def check(self, spec: dict) -> None:
        check_spec(spec)

    def datasets(self, spec: dict) -> list[str]:
        return list(dict.fromkeys(panel["dataset"] for panel in spec["panels"].values()))

    def method_entries(self, spec: dict) -> dict:
        """The panels' methods by import path (check_spec checks the built-in ones)."""
        return {name: (method_entry(panel), fit_params(panel)) for name, panel in spec["panels"].items()
                if panel["kind"] != "samples" and by_import_path(panel)}

    def jobs(self, config: dict, experiment: str):
        return [(panel,) for panel in config["experiments"][experiment]["panels"]]

    def result_path(self, experiment: str, panel: str) -> str:
        return f"results/{experiment}/panels/{panel}.h5"

    def aggregation_inputs(self, config: dict, experiment: str) -> dict[str, str]:
        """Named by panel: the aggregation draws each figure from its panels' files."""
        return {job[0]: self.result_path(experiment, *job) for job in self.jobs(config, experiment)}

    def job_rules(self, config: dict, experiment: str) -> list[JobRule]:
        spec = config["experiments"][experiment]
        return [JobRule(
            name="embed_panel",
            output=["results/{experiment}/panels/{panel}.h5"],
            log="logs/embed/{experiment}/{panel}.log",
            input=dict(data=lambda wc: data_file(config, spec["panels"][wc.panel]["dataset"])),
            params=dict(panel=lambda wc: with_source(config, spec["panels"][wc.panel]), seed=config["seed"]),
            script="embed_panel.py",
            runtime=10,
            mem_mb=2000,
            wildcard_constraints=dict(experiment=re.escape(experiment), panel=NAME_PATTERN),
        )]

    def job_method(self, params: dict):
        """The method of a panel's job (its ``panel`` param); None for a panel that fits none (``samples``)."""
        from ...engine.registry import method_spec

        panel = params["panel"]
        if "method" not in panel:
            return None
        return method_spec(panel["method"], method_entry(panel), source=panel.get("estimator_source"))

    def job_estimator(self, params: dict):
        """The pipeline a panel's job fits (its standardisation and PCA steps, then its method); None
        for a panel that fits none."""
        from .panels import panel_estimator

        panel = params["panel"]
        return panel_estimator(panel, None)[0] if "method" in panel else None

    def aggregate(self, spec: dict, inputs, out_dir, seed=None, notes=None) -> None:
        aggregate_embedding(spec, dict(inputs.items()), out_dir, notes=notes)

    def fidelity_points(self, comparison, notes=None):
        """Each number the text states (iterations, ...) beside ours, within its ``slack``: ours has no
        std, so a point is labelled where the statement does not hold; checks without a number are
        left out."""
        from ...report.fidelity import FidelityPoint, Points, number, statement_holds

        found = Points()
        for r in comparison.itertuples(index=False):
            if r.kind not in ("about", "value") or number(r.ours) is None:
                found.leave_out("checks without a number")
                continue
            found.points.append(FidelityPoint(float(r.published), float(r.ours), f"{r.panel} {r.check}",
                                              unit="a number stated in the text", holds=statement_holds(r.holds)))
        return found

    def outputs(self, experiment: str, spec: dict) -> list[Output]:
        out = f"results/{experiment}"
        published = comparison_files(out, spec)
        figures, metadata = figures_and_metadata(out, "../report/figures_embedding.rst")
        return [Output("checks_csv", f"{out}/checks.csv", "../report/checks.rst"),
                Output("checks_md", f"{out}/checks.md", target=True),
                *published, figures, dataclasses.replace(metadata, target=True)]


PROTOCOL = Embedding()
