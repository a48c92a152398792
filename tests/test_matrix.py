"""The cross-paper matrix: average ranks, Friedman's test, Nemenyi's critical
difference and its diagram (Demšar 2006), the time per method, and the `matrix` experiment in the
config and the workflow."""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import friedmanchisquare

from locproj.engine.config_files import load_config
from locproj.report.error_tables import summarise
from locproj.protocols import ranks
from locproj.engine.results import write_result
from locproj.engine.selection import SplitResult

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
TINY = ROOT / "tests" / "configs" / "tiny_matrix.yaml"
PAPERS_METHODS = ["raw", "pca", "lda", "lpp", "llp", "klpp", "lea", "lfda", "slle"]    # the tiny matrix's
MATRIX_METHODS = PAPERS_METHODS + ["nca", "kpca", "isomap", "lsda", "olpp", "mfa", "isop", "srda"]
MATRIX_DATASETS = ["yale", "orl", "umist", "yaleb", "pie", "olivetti_32", "usps", "waveform", "segmentation",
                   "letter", "thyroid", "iris"]


# --------------------------------------------------------------------------- ranks


def summary_of(errors: dict) -> pd.DataFrame:
    """A :func:`locproj.report.error_tables.summarise`-like frame from ``{(dataset, m): {method: error}}``."""
    return pd.DataFrame([{"dataset": d, "m": m, "method": method, "mean_error": e}
                         for (d, m), row in errors.items() for method, e in row.items()])


def test_ranks_by_hand_with_ties():
    errors = ranks.error_matrix(summary_of({
        ("d1", 5): {"A": 10.0, "B": 20.0, "C": 20.0, "D": 5.0},
        ("d2", 5): {"A": 1.0, "B": 1.0, "C": 1.0, "D": 2.0},
        ("d3", 5): {"A": 3.0, "B": 2.0, "C": 1.0, "D": 4.0},
    }), ["A", "B", "C", "D"])
    by_row = ranks.rank_rows(errors)
    np.testing.assert_array_equal(by_row.loc["d1"], [2, 3.5, 3.5, 1])     # B and C tie for 3rd and 4th
    np.testing.assert_array_equal(by_row.loc["d2"], [2, 2, 2, 4])         # three-way tie for 1st to 3rd
    np.testing.assert_array_equal(by_row.loc["d3"], [3, 2, 1, 4])
    average = by_row.mean(axis=0)                                         # Demšar's R_j, as ranks.md
    np.testing.assert_allclose(average.to_numpy(), [7 / 3, 2.5, 6.5 / 3, 3.0])
    assert average.sum() == pytest.approx(4 * 5 / 2)                      # each row's ranks sum to k(k+1)/2


def test_a_dataset_with_two_sizes_counts_once_by_its_mean_error():
    errors = ranks.error_matrix(summary_of({
        ("d1", 5): {"A": 10.0, "B": 30.0},
        ("d1", 10): {"A": 20.0, "B": 4.0},        # mean A 15, B 17
        ("d2", 5): {"A": 2.0, "B": 1.0},
    }), ["A", "B"], ["d2", "d1"])
    assert list(errors.index) == ["d2", "d1"]
    np.testing.assert_allclose(errors.loc["d1"], [15.0, 17.0])
    np.testing.assert_array_equal(ranks.rank_rows(errors).loc["d1"], [1, 2])


def test_equal_means_tie_despite_rounding_in_their_sums():
    a = np.mean([0.1, 0.2, 0.3]) * 100
    b = np.mean([0.3, 0.2, 0.1]) * 100
    errors = pd.DataFrame({"A": [a, 1.0], "B": [b, 2.0], "C": [50.0, 3.0]}, index=["d1", "d2"])
    np.testing.assert_array_equal(ranks.rank_rows(errors).loc["d1"], [1.5, 1.5, 3])


def test_a_dataset_missing_a_method_is_left_out():
    errors = pd.DataFrame({"A": [1.0, 2.0, 3.0], "B": [2.0, np.nan, 1.0], "C": [3.0, 1.0, 2.0]},
                          index=["d1", "d2", "d3"])
    assert list(ranks.rank_rows(errors).index) == ["d1", "d3"]
    assert ranks.friedman(errors)["n_datasets"] == 2


# --------------------------------------------------------------------------- Friedman and Nemenyi


def test_friedman_is_scipys_on_the_error_matrix():
    rng = np.random.default_rng(0)
    values = rng.uniform(0, 50, size=(6, 4))
    values[2, 1] = values[2, 3]                                           # a tie
    errors = pd.DataFrame(values, columns=list("ABCD"), index=[f"d{i}" for i in range(6)])
    expected = friedmanchisquare(*values.T)
    test = ranks.friedman(errors)
    assert test["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    assert test["pvalue"] == pytest.approx(expected.pvalue, rel=1e-12)
    assert (test["n_datasets"], test["n_methods"]) == (6, 4)
    chi2, n, k = expected.statistic, 6, 4
    assert test["iman_davenport_F"] == pytest.approx((n - 1) * chi2 / (n * (k - 1) - chi2))


def test_friedman_needs_three_methods():
    errors = pd.DataFrame({"A": [1.0, 2.0], "B": [2.0, 1.0]})
    assert np.isnan(ranks.friedman(errors)["statistic"])


@pytest.mark.parametrize("k, q05, q10", [(2, 1.960, 1.645), (3, 2.343, 2.052), (4, 2.569, 2.291),
                                         (5, 2.728, 2.459), (6, 2.850, 2.589), (10, 3.164, 2.920)])
def test_q_alpha_is_demsars_table_5a(k, q05, q10):
    assert ranks.q_alpha(k, 0.05) == pytest.approx(q05, abs=1e-3)
    assert ranks.q_alpha(k, 0.10) == pytest.approx(q10, abs=1e-3)


def test_critical_difference_of_demsars_example():
    # Demšar 2006, §3.2.2: four methods on 14 datasets, CD = 2.569 sqrt(4 * 5 / (6 * 14)) = 1.25 at
    # alpha = 0.05, and 1.12 at alpha = 0.10
    assert ranks.critical_difference(4, 14, 0.05) == pytest.approx(1.2536, abs=1e-3)
    assert round(ranks.critical_difference(4, 14, 0.05), 2) == 1.25
    assert ranks.critical_difference(4, 14, 0.10) == pytest.approx(1.1180, abs=1e-3)


def test_groups_within_the_critical_difference():
    # Demšar's example average ranks (C4.5 variants): 3.143, 2.000, 2.893, 1.964, CD = 1.25
    average = {"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964}
    # at alpha = 0.05 no two differ (the largest difference, 3.143 - 1.964 = 1.179, is below 1.25)
    assert ranks.cliques(average, 1.25) == [["C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]]
    # at alpha = 0.10 (CD = 1.12) C4.5 differs from C4.5+m+cf and C4.5+m, C4.5+cf from none
    assert ranks.cliques(average, 1.12) == [["C4.5+m+cf", "C4.5+m", "C4.5+cf"], ["C4.5+cf", "C4.5"]]
    assert ranks.cliques(average, 0.1) == [["C4.5+m+cf", "C4.5+m"]]


def test_the_cd_diagram_is_written_as_png_and_pdf(tmp_path):
    average = {"raw": 7.5, "pca": 8.2, "lda": 4.1, "lpp": 4.9, "llp": 2.3, "klpp": 3.0, "lea": 4.4, "lfda": 3.9,
               "slle": 6.7}
    written = ranks.plot_cd_diagram(average, ranks.critical_difference(9, 12), tmp_path / "figures" / "cd_diagram",
                                    labels={"raw": "1-NN"}, title="test")
    assert written == [tmp_path / "figures" / "cd_diagram.png", tmp_path / "figures" / "cd_diagram.pdf"]
    assert all(path.stat().st_size > 1000 for path in written)
    assert not list((tmp_path / "figures").glob("*.tmp*"))                   # written atomically
    first = (tmp_path / "figures" / "cd_diagram.png").read_bytes()
    ranks.plot_cd_diagram(average, ranks.critical_difference(9, 12), tmp_path / "figures" / "cd_diagram",
                          labels={"raw": "1-NN"}, title="test")
    assert (tmp_path / "figures" / "cd_diagram.png").read_bytes() == first  # no timestamps


# --------------------------------------------------------------------------- outputs from result files


def fake_result(dataset, m, method, split, error, seconds):
    return SplitResult(
        method=method, classifier="1nn", classifier_params={}, grid=[{}], cv_error=np.full((1, 3), error),
        cv_fold_error=np.empty((0, 0, 0)), capped=[], grid_index=0, params={}, p=2, projected=True,
        test_error=error, test_predictions=np.zeros(4, dtype=int), test_indices=None, fit_seconds=seconds / 10,
        cv_seconds=seconds, n_folds=5, cv_seed=split, p_max=3,
        meta={"experiment": "mx", "dataset": dataset, "m": m, "split": split},
    )


def test_write_ranks_gives_ranks_friedman_the_diagram_and_timing(tmp_path):
    rng = np.random.default_rng(1)
    level = {"A": 0.10, "B": 0.20, "C": 0.30}
    seconds = {"A": 1.0, "B": 2.0, "C": 7.0}
    paths = []
    for dataset, sizes in {"d1": [5, 10], "d2": [5], "d3": [5], "d4": [5]}.items():
        for m in sizes:
            for method in level:
                for split in range(3):
                    path = tmp_path / "results" / dataset / f"m{m}" / method / f"split{split:02d}.h5"
                    error = level[method] + rng.uniform(0, 0.02)
                    write_result(path, fake_result(dataset, m, method, split, error, seconds[method]))
                    paths.append(path)
    from locproj.report.error_tables import collect
    summary = summarise(collect(paths), ["A", "B", "C"])
    out = tmp_path / "out"
    written = ranks.write_ranks(summary, paths, out, methods_order=["A", "B", "C"], method_labels={"A": "alpha"},
                                dataset_order=["d1", "d2", "d3", "d4"], data_notes={"d2": "a note"})
    names = {p.relative_to(out).as_posix() for p in written}
    assert names == {"ranks.csv", "ranks.md", "friedman.md", "figures/cd_diagram.png", "figures/cd_diagram.pdf",
                     "timing.csv", "timing.md"}
    table = pd.read_csv(out / "ranks.csv")
    assert table[table["dataset"] == "average"]["rank"].tolist() == [1.0, 2.0, 3.0]
    md = (out / "ranks.md").read_text()
    assert "| d1 | 5, 10 |" in md and "d2†" in md and "a note" in md and "**1.00**" in md
    friedman = (out / "friedman.md").read_text()
    assert "| datasets N | 4 |" in friedman and "| methods k | 3 |" in friedman
    assert f"| critical difference CD | {ranks.critical_difference(3, 4):.3f} |" in friedman
    expected = friedmanchisquare([1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3])
    assert f"| Friedman chi-square (scipy.stats.friedmanchisquare) | {expected.statistic:.3f} |" in friedman
    timing = pd.read_csv(out / "timing.csv")
    overall = timing[timing["dataset"] == "all"].set_index("method")
    assert overall.loc["C", "results"] == 15 and overall.loc["C", "cv_seconds"] == pytest.approx(7.0)
    assert overall["share"].sum() == pytest.approx(100)
    assert "alpha" in (out / "timing.md").read_text()


# --------------------------------------------------------------------------- what the matrix needed of the methods


def test_a_fixed_embedding_dimension_above_what_a_fit_gives_is_lowered():
    # SLLE's n_components = 100 (the matrix's grid) on 30 training samples in 8 dimensions: the fit
    # embeds in min(n - 1, d) = 8 dimensions instead of failing, and p runs up to that
    from locproj.engine.registry import estimator_factory
    from locproj.engine.registry import max_components
    from locproj.engine.selection import fit_transform_all_p

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 8)), np.repeat([0, 1, 2], 10)
    new_estimator = estimator_factory("slle", {"reg": "auto"})
    limit = lambda X, y: max_components("slle", len(X), 3, X.shape[1])    # noqa: E731
    Z_fit, Z_other, *_ = fit_transform_all_p(new_estimator, {"n_components": 100, "n_neighbors": 9, "alpha": 0.1}, X, y,
                                             X[:5], p_max=300, p_limit=limit)
    assert Z_fit.shape == (30, 8) and Z_other.shape == (5, 8)
    Z_fit, *_ = fit_transform_all_p(new_estimator, {"n_components": 100, "n_neighbors": 9, "alpha": 0.1}, X, y, X[:5],
                                    p_max=4, p_limit=limit)
    assert Z_fit.shape == (30, 4)
    Z_fit, *_ = fit_transform_all_p(new_estimator, {"n_components": 3, "n_neighbors": 9, "alpha": 0.1}, X, y, X[:5],
                                    p_max=300, p_limit=limit)
    assert Z_fit.shape == (30, 3)                                          # a smaller value is kept


def test_lda_on_fewer_features_than_classes_is_plain_lda():
    # Letter: 16 features, 26 classes. Fisherfaces' PCA to rank - (c - 1) would keep nothing; it
    # keeps min(rank, n - c) and gives min(c - 1, d) discriminants, as scikit-learn's LDA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    from locproj.methods import Fisherfaces
    from locproj.engine.registry import max_components

    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(8), 20)
    X = rng.normal(size=(160, 5)) + rng.normal(scale=3, size=(8, 5))[y]
    from locproj.methods._base import RankDeficiencyWarning

    with pytest.warns(RankDeficiencyWarning, match=r"kept 5 of c - 1 = 7 .* keeps min\(rank, n - c\) = 5"):
        ours = Fisherfaces().fit(X, y)
    assert (ours.n_pca_, ours.n_components_) == (5, 5)
    assert max_components("lda", 160, 8, 5) == 5
    reference = LinearDiscriminantAnalysis().fit(X, y).scalings_[:, :5]
    P, Q = np.linalg.qr(ours.components_.T)[0], np.linalg.qr(reference)[0]
    np.testing.assert_allclose(np.linalg.svd(P.T @ Q, compute_uv=False), 1, atol=1e-8)   # the same subspace
    assert max_components("lda", 400, 40, 50) == 11                        # d > c - 1: as before


# --------------------------------------------------------------------------- the matrix in the config


@pytest.fixture(scope="module")
def validated():
    """The config as the workflow sees it: validated, the schema's defaults filled in."""
    from locproj.workflow import validate_config

    config = load_config(ROOT)
    validate_config(config, SCHEMA)
    return config


def test_the_matrix_experiment_validates_and_has_every_method_and_dataset(validated):
    from locproj.experiments import check_experiments

    spec = validated["experiments"]["matrix"]
    assert validated["targets"]["matrix"] == ["matrix"]
    assert list(spec["methods"]) == MATRIX_METHODS
    assert list(spec["datasets"]) == MATRIX_DATASETS
    assert spec["protocol"] == "cv_table" and spec["ranks"] is True
    assert spec["n_splits"] == 10 and spec["n_folds"] == 5 and spec["classifier"] == "1nn"
    assert all(1 <= len(sizes) <= 2 for sizes in spec["datasets"].values())
    table2 = validated["experiments"]["llp_table2"]["methods"]
    for name in ("raw", "pca", "lda", "lpp", "llp"):                         # Table 2's grids, by anchor
        assert spec["methods"][name] == table2[name]
    assert "ranks" not in validated["experiments"]["llp_table2"]            # no default: Table 2 unchanged
    assert validated["views"]["olivetti_32"]["resize"] == [32, 32]
    check_experiments(validated)


def test_a_wrong_ranks_option_is_refused_naming_it(validated):
    from locproj.errors import ConfigError
    from locproj.workflow import validate_config

    config = copy.deepcopy(validated)
    config["experiments"]["matrix"]["ranks"] = {"alpha": 2}
    with pytest.raises(ConfigError, match="ranks|alpha"):
        validate_config(config, SCHEMA)


def copy_workflow(target: Path) -> Path:
    for name in ("Snakefile", "workflow", "config"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target / name)
    return target


def test_the_dry_run_lists_a_fit_job_for_every_method_and_dataset(tmp_path, validated):
    # in a copy of the workflow, so that another run's lock on the repository does not matter
    mirror = (ROOT.parent / "shared" / "datasets").resolve()
    work = copy_workflow(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "matrix", "--config", f"data_mirror={mirror}"],
        cwd=work, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    jobs = set(re.findall(r"output: results/matrix/(\w+)/(m\d+)/(\w+)/split\d+\.h5", result.stdout))
    spec = validated["experiments"]["matrix"]
    expected = {(d, f"m{m}", method)
                for d, sizes in spec["datasets"].items() for m in sizes for method in spec["methods"]}
    assert jobs == expected
    assert "aggregate_matrix" in result.stdout


# --------------------------------------------------------------------------- a tiny matrix, end to end


def test_a_tiny_matrix_runs_through_the_workflow(tmp_path):
    work = copy_workflow(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "tiny_matrix", "--cores", "2",
         "--configfile", str(TINY)],
        cwd=work, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = work / "results" / "tiny_matrix"
    for name in ("matrix.md", "matrix.csv", "matrix.tex", "ranks.md", "ranks.csv", "friedman.md", "timing.md",
                 "timing.csv", "figures/cd_diagram.png", "figures/cd_diagram.pdf"):
        assert (out / name).is_file(), name
    assert "| datasets N | 2 |" in (out / "friedman.md").read_text()
    assert "| methods k | 9 |" in (out / "friedman.md").read_text()
    ranks_csv = pd.read_csv(out / "ranks.csv")
    average = ranks_csv[ranks_csv["dataset"] == "average"]
    assert sorted(average["method"]) == sorted(PAPERS_METHODS)
    assert average["rank"].sum() == pytest.approx(9 * 10 / 2)
    timing = pd.read_csv(out / "timing.csv")
    assert set(timing[timing["dataset"] == "all"]["method"]) == set(PAPERS_METHODS)
