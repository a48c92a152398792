"""The fidelity figure of each paper: published numbers against ours."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from locproj.engine.config import paper_targets, papers_within
from locproj.engine.config_files import load_config
from locproj.experiments import comparison_outputs, experiment_protocols, paper_fidelity, paper_points
from locproj.report.fidelity import STAND_IN_MARKER, FidelityPoint, fidelity_figure
from locproj.protocols import protocol_named


def table_points(frame, notes=None):
    return protocol_named("cv_table").fidelity_points(frame, notes)

ROOT = Path(__file__).resolve().parents[1]

# a cv_table comparison: two cells within the paper's std, one beyond it on stand-in data (PIE),
# one beyond it where the paper gives no std (held to ours)
TABLE = pd.DataFrame({
    "dataset": ["yale", "yale", "pie", "orl"], "m": [5, 5, 10, 3.0], "method": ["pca", "llp", "lpp", "lea"],
    "published_mean": [42.1, 19.8, 28.8, 9.7], "published_std": [4.0, 3.5, 1.0, None],
    "ours_mean": [43.4, 20.5, 47.2, 12.0], "ours_std": [3.6, 3.6, 0.9, 2.0],
    "beyond_std": [False, False, True, True], "data_note": [None, None, "pixels went through JPEG", None]})
# a holdout comparison: a value, an 'about' and a bound (a statement, left out)
HOLDOUT = pd.DataFrame({
    "dataset": ["usps_eo_1500"] * 3, "method": ["svm", "lfda", "gpk"], "measure": ["accuracy"] * 3,
    "kind": ["value", "about", "lower_bound"], "published": [87.58, 79.0, 87.0], "ours": [94.16, 79.5, 93.6],
    "ours_std": [0.7, 2.2, 1.0], "holds": [False, True, True], "data_note": ["USPS copy unknown"] * 3})
CHECKS = pd.DataFrame({
    "panel": ["history", "history"], "check": ["stop_tau_0.01", "stop_tau_0.001"], "kind": ["value", "value"],
    "published": [9, 13], "slack": [None, None], "ours": [9, 20], "holds": [True, False]})


def test_rows_from_a_table_comparison_carry_both_stds_labels_and_stand_in_flags():
    points = table_points(TABLE).points
    assert [p.label for p in points] == ["yale m5 pca", "yale m5 llp", "pie m10 lpp", "orl m3 lea"]
    assert [(p.published, p.ours, p.published_std, p.ours_std) for p in points][:1] == [(42.1, 43.4, 4.0, 3.6)]
    assert [p.stand_in for p in points] == [False, False, True, False]
    # beyond one std: the paper's std where it gives one, else ours, as the comparison's own column
    assert [p.beyond_one_std for p in points] == list(TABLE["beyond_std"])
    assert points[3].std == 2.0 and points[0].std == 4.0


def test_a_dataset_noted_in_the_config_is_stand_in_even_without_a_data_note_column():
    points = table_points(TABLE.drop(columns="data_note"), notes={"yale": "another crop"}).points
    assert [p.stand_in for p in points] == [True, True, False, False]


def test_bounds_are_left_out_and_counted_numbers_kept():
    found = protocol_named("holdout_curve").fidelity_points(HOLDOUT)
    assert [p.label for p in found.points] == ["usps_eo_1500 svm", "usps_eo_1500 lfda"]
    assert sum(found.left_out.values()) == 1
    assert {p.unit for p in found.points} == {"accuracy (%)"} and all(p.stand_in for p in found.points)
    assert [p.beyond_one_std for p in found.points] == [True, False]        # 6.6 > 0.7; 0.5 < 2.2


def test_checks_without_a_std_are_beyond_where_the_statement_does_not_hold():
    points = protocol_named("embedding").fidelity_points(CHECKS).points
    assert [(p.std, p.beyond_one_std) for p in points] == [(None, False), (None, True)]


def test_an_empty_comparison_has_no_points_and_rows_of_another_shape_are_refused():
    assert table_points(TABLE.iloc[:0]).points == []
    with pytest.raises(ValueError, match="is not of cell rows; its protocol turns its rows into points"):
        table_points(HOLDOUT)


def _labels(ax):
    return sorted(text.get_text() for text in ax.texts)


def test_the_figure_labels_exactly_the_points_beyond_one_std_and_has_one_legend():
    points = table_points(TABLE).points + protocol_named("holdout_curve").fidelity_points(HOLDOUT).points
    figure = fidelity_figure(points, title="test", left_out="1 bound")
    axes = figure.axes
    assert [ax.get_title() for ax in axes] == ["test error (%)", "accuracy (%)"]    # one axes per unit
    assert _labels(axes[0]) == ["orl m3 lea", "pie m10 lpp"]
    assert _labels(axes[1]) == ["usps_eo_1500 svm"]
    assert len(figure.legends) == 1 and all(ax.get_legend() is None for ax in axes)
    legend = [text.get_text() for text in figure.legends[0].get_texts()]
    assert any(entry.startswith("stand-in data") for entry in legend) and "y = x (ours = published)" in legend
    assert any("Left out: 1 bound" in text.get_text() for text in figure.texts)
    # the diagonal spans equal limits on both axes
    for ax in axes:
        assert ax.get_xlim() == ax.get_ylim()


def test_stand_in_data_have_their_own_marker():
    points = [FidelityPoint(10, 11, "a", 2, 2), FidelityPoint(20, 30, "b", 1, 1, stand_in=True)]
    ax = fidelity_figure(points, title="t").axes[0]
    markers = {}
    for container in ax.containers:            # one errorbar per group: (data line, caps, bars)
        line = container.lines[0]
        markers[line.get_xdata()[0]] = (line.get_marker(), line.get_markerfacecolor())
    assert markers[20][0] == STAND_IN_MARKER and markers[20][0] != markers[10][0]
    assert markers[20][1] == "none" and markers[10][1] != "none"


def test_labels_of_a_crowded_cluster_do_not_overlap():
    points = [FidelityPoint(10 + 0.1 * i, 14 + 0.1 * i, f"cell {i}", 1.0, 1.0) for i in range(8)]
    figure = fidelity_figure(points, title="t")
    from matplotlib.text import Text

    figure.canvas.draw()                                     # places the annotations
    renderer = figure.canvas.get_renderer()
    boxes = [Text.get_window_extent(text, renderer) for text in figure.axes[0].texts]     # the text, not its leader
    assert len(boxes) == 8
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_the_figure_is_the_same_bytes_when_redrawn(tmp_path):
    (tmp_path / "comparison.csv").write_text(TABLE.to_csv(index=False))
    comparisons = {"t": tmp_path / "comparison.csv"}
    first = paper_fidelity(comparisons, {"t": "cv_table"}, tmp_path / "one", title="t")
    second = paper_fidelity(comparisons, {"t": "cv_table"}, tmp_path / "two", title="t")
    assert [p.suffix for p in first] == [".png", ".pdf"]
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(first, second))


# ----------------------------------------------------------------------------------- the real config


@pytest.fixture(scope="module")
def config():
    return load_config(ROOT)


def test_every_paper_with_published_numbers_has_a_figure_from_its_committed_comparisons(config):
    papers = paper_targets(config["targets"], config["experiments"])
    assert set(papers) == {"llp_paper", "lea_paper", "slle_paper", "lpk_paper", "lpp_notes"}
    assert sorted(papers_within(config["targets"], config["experiments"])["papers"]) == sorted(papers)
    comparisons = {paper: comparison_outputs(config, experiments) for paper, experiments in papers.items()}
    assert comparisons["lpp_notes"] == {}                 # the notes publish no number
    llp = {e: ROOT / "docs" / path for e, path in comparisons["llp_paper"].items()}
    found, empty = paper_points(llp, experiment_protocols(config, llp))
    table = pd.read_csv(llp["llp_table2"])
    assert len(found.points) == len(table) and not empty
    assert sum(p.beyond_one_std for p in found.points) == table["beyond_std"].sum()
    assert {p.dataset for p in found.points if p.stand_in} == {"pie"}      # the JPEG copy


def test_fidelity_sorts_first_among_the_subcategories_of_each_papers_page(config):
    """The report lists a page's subcategories alphabetically: the figure's comes first."""
    for paper, experiments in paper_targets(config["targets"], config["experiments"]).items():
        assert all("fidelity" < name for name in experiments), paper


def test_a_paper_targets_dry_run_draws_its_fidelity_figure_from_its_comparisons(tmp_path):
    for name in ("Snakefile", "workflow", "config"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    done = subprocess.run([sys.executable, "-m", "snakemake", "-n", "slle_paper"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    job = re.search(r"^rule fidelity:\n    input: (.*)\n    output: (.*)\n", done.stdout, re.MULTILINE)
    assert job, done.stdout[-3000:]
    assert job[2] == "results/slle_paper/fidelity.png, results/slle_paper/fidelity.pdf"
    assert set(job[1].split(", ")) == {f"results/{e}/comparison.csv" for e in (
        "slle_features", "slle_classifiers", "slle_alpha", "slle_subsets", "slle_digits123")}
    target = re.search(r"^rule slle_paper:\n    input: (.*)\n", done.stdout, re.MULTILINE)
    assert "results/slle_paper/fidelity.png" in target[1].split(", ")
