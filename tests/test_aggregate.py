"""Result files -> tables: significance bolding, determinism, comparison, figures."""

import numpy as np
import pandas as pd
import pytest

from locproj.report.comparison import compare, read_published, write_comparison
from locproj.report.error_tables import collect, format_cell, significantly_best, summarise, write_tables
from locproj.protocols.cv_curves import collect_cv_curves, cv_curves_figure, plot_cv_curves
from locproj.engine.results import write_result
from locproj.engine.selection import SplitResult

METHODS = ["raw", "pca", "llp"]


def fake_result(dataset, m, method, split, error, p, seconds=0.0):
    projected = method != "raw"
    n_grid = 2 if projected else 0
    cv_error = np.linspace(0.5, 0.1, 2 * 5).reshape(n_grid, 5) + error if projected else np.empty((0, 0))
    if method == "pca":
        cv_error[:, 3:] = np.nan            # a curve that ends before p_max (the rank of the fold's data)
    return SplitResult(
        method=method, classifier="1nn", classifier_params={}, grid=[{"k": 3}, {"k": 4}] if projected else [{}],
        cv_error=cv_error, cv_fold_error=np.empty((0, 0, 0)), capped=[], grid_index=0,
        params={"k": 3} if projected else {}, p=p, projected=projected, test_error=error,
        test_predictions=np.zeros(4, dtype=int), test_indices=None, fit_seconds=seconds, cv_seconds=seconds,
        n_folds=5, cv_seed=split, p_max=5, meta={"experiment": "t2", "dataset": dataset, "m": m, "split": split},
        raw_cv_fold_error=None if projected else np.full(5, error + 0.02),
    )


@pytest.fixture(scope="module")
def result_paths(tmp_path_factory):
    """Yale m=5 and ORL m=5, 20 splits; llp clearly best on Yale, llp ~ pca on ORL."""
    root = tmp_path_factory.mktemp("results")
    rng = np.random.default_rng(0)
    paths = []
    for dataset, offsets in {"Yale": (0.40, 0.40, 0.20), "ORL": (0.10, 0.05, 0.05)}.items():
        for split in range(20):
            noise = 0.01 * rng.standard_normal(3)
            for (method, offset), eps, p in zip(zip(METHODS, offsets), noise, (1024, 30 + split, 20)):
                path = root / f"{dataset}_{method}_{split}.h5"
                write_result(path, fake_result(dataset, 5, method, split, offset + eps, p, seconds=rng.random()))
                paths.append(path)
    return paths


def test_wilcoxon_bolds_only_the_clearly_better_method():
    rng = np.random.default_rng(1)
    base = rng.normal(0.30, 0.02, 20)
    clear = significantly_best({"a": base, "b": base + 0.001, "c": rng.normal(0.20, 0.02, 20)})
    assert clear == {"a": False, "b": False, "c": True}
    close = significantly_best({"a": base, "b": rng.normal(0.30, 0.02, 20)})
    assert close == {"a": False, "b": False}
    assert significantly_best({"a": base}) == {"a": False}
    assert significantly_best({"a": base, "c": base - 0.1}, alternative="two-sided") == {"a": False, "c": True}


def test_collect_and_summarise(result_paths):
    df = collect(result_paths)
    assert len(df) == 120 and list(df.columns[:5]) == ["experiment", "dataset", "m", "method", "split"]
    summary = summarise(df, METHODS)
    assert summary[["dataset", "method"]].values.tolist() == [[d, m] for d in ("ORL", "Yale") for m in METHODS]
    yale = summary[summary["dataset"] == "Yale"].set_index("method")
    assert yale["best"].tolist() == [False, False, True]
    assert not summary[summary["dataset"] == "ORL"]["best"].any()
    errors = 100 * df[(df["dataset"] == "Yale") & (df["method"] == "pca")]["test_error"]
    assert yale.loc["pca", "std_error"] == pytest.approx(errors.std(ddof=1))
    assert yale.loc["pca", "mean_dim"] == pytest.approx(39.5) and np.isnan(yale.loc["raw", "mean_dim"])
    assert (summary["n_splits"] == 20).all()


def test_tables_are_byte_identical_across_reruns(result_paths, tmp_path):
    labels = {"raw": "1-NN", "pca": "PCA", "llp": "LLP"}
    for run in ("a", "b"):
        summary = summarise(collect(reversed(result_paths) if run == "b" else result_paths), METHODS)
        write_tables(summary, tmp_path / run, methods_order=METHODS, method_labels=labels,
                     dataset_order=["Yale", "ORL"])
    for name in ("table.csv", "table.md", "table.tex"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    long = pd.read_csv(tmp_path / "a" / "table.csv")
    assert list(long.columns) == ["dataset", "m", "method", "mean_error", "std_error", "mean_dim", "n_splits", "best",
                                  "data_note"]
    markdown = (tmp_path / "a" / "table.md").read_text()
    assert markdown.splitlines()[0] == "| dataset | m | 1-NN | PCA | LLP |"
    assert markdown.splitlines()[2].startswith("| Yale | 5 | 40.")
    assert "**20." in markdown and "\\textbf{20." in (tmp_path / "a" / "table.tex").read_text()


def test_format_cell():
    assert format_cell(19.84, 3.46, 20.44, best=True) == "**19.8 ± 3.5** (20.4)"
    assert format_cell(42.1, 4.0) == "42.1 ± 4.0"
    assert format_cell(5.0, 1.0, 2.0, style="tex") == "5.0 $\\pm$ 1.0 (2.0)"


def test_compare_with_published_and_reasons(result_paths, tmp_path):
    summary = summarise(collect(result_paths), METHODS)
    published = pd.DataFrame({
        "dataset": ["Yale", "Yale", "ORL"], "m": [5, 5, 5], "method": ["raw", "llp", "pca"],
        "mean_error": [42.1, 19.8, 11.9], "std_error": [0.0, 0.0, 1.2], "mean_dim": [np.nan, 20.4, 76.8],
    })
    reasons = [{"dataset": "Yale", "m": 5, "method": "llp", "reason": "specific"}, {"dataset": "Yale", "reason": "any"}]
    table = compare(summary, published, reasons)
    assert table["reason"].tolist() == ["any", "specific", ""]
    within = compare(summary, published.assign(std_error=100.0), reasons)   # reasons only beyond the std
    assert not within["beyond_std"].any() and within["reason"].tolist() == ["", "", ""]
    ours = summary.set_index(["dataset", "method"]).loc[("Yale", "llp"), "mean_error"]
    assert table.loc[1, "difference"] == pytest.approx(ours - 19.8)
    assert table["ours_best"].tolist() == [False, True, False]
    write_comparison(table, tmp_path)
    assert "| Yale | 5 | llp | 19.8 | 0.0 | 20.4 |" in (tmp_path / "comparison.md").read_text()


def test_compare_renames_datasets_and_reads_published(result_paths, tmp_path):
    csv = tmp_path / "published.csv"
    csv.write_text("# comment\ndataset,m,method,mean_error,std_error,mean_dim,best\nyale,5,llp,19.8,3.5,20.4,true\n")
    published = read_published(csv).assign(std_error=0.0)
    summary = summarise(collect(result_paths), METHODS)
    table = compare(summary, published, {"yale/*/llp": "wildcard m", "yale": "dataset only"}, {"Yale": "yale"})
    assert table.loc[0, ["dataset", "published_best", "ours_best", "reason"]].tolist() == [
        "yale", "true", True, "wildcard m"]
    assert np.isfinite(table.loc[0, "ours_mean"])


def test_cv_curve_figures_are_written_and_reproducible(result_paths, tmp_path):
    curves, baselines = collect_cv_curves(result_paths)
    assert set(curves["method"]) == {"pca", "llp"} and curves["p"].max() == 5
    assert set(baselines["method"]) == {"raw"} and len(baselines) == 40          # every raw file, in %
    raw = summarise(collect(result_paths), METHODS).set_index(["dataset", "method"])
    assert baselines.groupby("dataset")["cv_error"].mean()["Yale"] == pytest.approx(raw.loc[("Yale", "raw"),
                                                                                          "mean_error"] + 2)
    first = plot_cv_curves(curves, tmp_path / "a", baselines=baselines, methods_order=METHODS,
                           formats=("png", "pdf", "svg"))
    plot_cv_curves(curves, tmp_path / "b", baselines=baselines, methods_order=METHODS, formats=("png", "pdf", "svg"))
    assert [p.name for p in first][:3] == ["cv_curves_ORL.png", "cv_curves_ORL.pdf", "cv_curves_ORL.svg"]
    for path in first:
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes()


def test_a_cv_curve_figure_explains_itself(result_paths, readable_curves):
    """Words on the axes, a band per curve, raw as a dashed level, why a curve ends, one legend
    beside the axes, and a note on what is drawn."""
    curves, baselines = collect_cv_curves(result_paths)
    per_p = curves.groupby(["dataset", "m", "method", "p"], sort=True)
    rows = per_p["cv_error"].agg(["mean", "std", "size"]).reset_index().assign(p_max=5)
    figure = cv_curves_figure(rows[rows["dataset"] == "Yale"], baselines, methods_order=METHODS,
                              method_labels={"raw": "1-NN", "pca": "PCA"})
    ax = figure.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("number of projections p", "CV error (%)")
    labels = readable_curves(figure)               # one legend, beside the axes; words; the note below
    assert labels == ["PCA (ends at p = 3: rank of the training data)", "llp",
                      "1-NN, all features"]
    assert len(ax.collections) == 2 and len(ax.patches) == 1         # a ± std band per curve and raw's
    raw = ax.get_lines()[-1]
    assert raw.get_linestyle() == "--" and raw.get_ydata()[0] == pytest.approx(
        baselines[baselines["dataset"] == "Yale"]["cv_error"].mean())
    assert any("mean ± one std over 20 splits" in text.get_text() for text in figure.texts)


def test_every_output_says_where_the_public_data_differ(result_paths, tmp_path):
    """A data note marks its dataset † in the tables, with the note below, and goes under its figure."""
    notes = {"ORL": "pixels went through JPEG"}
    summary = summarise(collect(result_paths), METHODS)
    write_tables(summary, tmp_path, methods_order=METHODS, dataset_order=["Yale", "ORL"], data_notes=notes)
    long = pd.read_csv(tmp_path / "table.csv", keep_default_na=False)
    assert set(long[long["dataset"] == "ORL"]["data_note"]) == {"pixels went through JPEG"}
    assert set(long[long["dataset"] == "Yale"]["data_note"]) == {""}
    markdown = (tmp_path / "table.md").read_text()
    assert "| ORL† | 5 |" in markdown and "| Yale | 5 |" in markdown
    assert markdown.endswith("|\n\n† ORL: pixels went through JPEG\n")
    tex = (tmp_path / "table.tex").read_text()
    assert "ORL$^\\dagger$ & 5" in tex
    assert tex.endswith("\\end{tabular}\n\\par\\footnotesize $^\\dagger$ ORL: pixels went through JPEG\n")
    published = pd.DataFrame({"dataset": ["ORL"], "m": [5], "method": ["pca"], "mean_error": [11.9],
                              "std_error": [1.2]})
    write_comparison(compare(summary, published), tmp_path, data_notes=notes)
    assert pd.read_csv(tmp_path / "comparison.csv")["data_note"].tolist() == ["pixels went through JPEG"]
    assert (tmp_path / "comparison.md").read_text().endswith("† ORL: pixels went through JPEG\n")
    curves, _ = collect_cv_curves(result_paths)
    noted = plot_cv_curves(curves, tmp_path / "noted", formats=("svg",), data_notes=notes)
    plain = plot_cv_curves(curves, tmp_path / "plain", formats=("svg",))
    assert "ORL: pixels went through JPEG" in noted[0].read_text() or noted[0].read_bytes() != plain[0].read_bytes()
    assert noted[1].read_bytes() == plain[1].read_bytes()        # Yale has no note
