"""The ``holdout_curve`` protocol (paper 002 §6.3, Figs. 8-10): test accuracy and the percentage of
support vectors against the projection dimension r, with C chosen by 5×2 cross-validation.

The split is the LPK paper's (:func:`locproj.data.splits.holdout_split`, written by the rule
``split_holdout``): a stratified random third is the test set, the rest is resampled by 5×2
stratified cross-validation into ten (fit, validation) folds. For each method entry and each r in
its ``values``, every C of ``C_values`` (default 0.01, 0.1, 1, 10, 100) is fitted on each fold's fit
part and scored on its validation part **and** on the test set; C is then chosen by the mean
validation accuracy over the ten folds (ties: the smaller C), and the paper's numbers are the mean
± std (``ddof=1``) over the ten fold models at that C of the test accuracy and of the percentage of
the fit part kept as support vectors. The test set chooses nothing; recording every C's test score
in the job lets the choice be a pure function of the result files (:func:`choose_C`).

A method entry (``methods``: name -> ``{method, fixed, values}``) is one of

* a **projection** (``pca``, ``lfda``, ...; any :mod:`locproj.engine.registry` transformer): fitted on the
  fold's fit part with ``n_components = r``, then ``SVC(kernel='linear', C)`` on the projected data;
* a **classifier that projects** (``gpk``, ``lpk``): fitted with ``n_components = r`` and ``C``, scored
  by its own ``score``, its support vectors read from ``n_support_``; it gets a ``random_state``
  derived from the master seed, the data and the fold (the same for every r, C and entry);
* ``raw``: the linear SVC on the unreduced data, computed once and repeated at every r (a flat line).

**By group** (``by_group: {test_per_group, n_folds}``, paper 002's Olivetti protocol): the split is
:func:`locproj.data.splits.grouped_holdout_split` over the view's groups (subjects): that many
samples of each group as test, and ``n_folds`` folds with one sample of each group per validation
fold; the statistics are then over those folds. An entry's ``pca_first: n`` fits a PCA to ``n``
dimensions on each fold's fit part before the method (§6.3's LFDA on Olivetti).

An entry's ``values`` (default: the experiment's) lets cheap projections run at more r than the
costly LPK fits. r beyond what a method can return (:func:`locproj.engine.registry.max_components`) is left
NaN. A job is one (dataset, method entry, block of ``values_per_job`` consecutive r values), one
file; blocks do not change any result.

Outputs: ``curves.csv`` (per dataset, method and r: the chosen C, mean validation accuracy, mean ±
std test accuracy and % SV, folds), ``<table_name>.csv/.md/.tex`` (a column per method: ``accuracy ±
std [% SV]``), ``comparison.csv/.md`` (each published statement beside ours, with ``holds`` and the
configured ``reason`` where it does not) and ``figures/curves_{dataset}`` (accuracy and % SV
against r, a band of ± one std, the SVM without reduction as a flat line, the published statements
drawn). Accuracies and SV shares are in percent.

Published statements (``config/published/lpk_002.csv``) are rows ``experiment, dataset, method,
measure`` (``accuracy`` or ``sv_percent``), ``kind`` (``value``: the paper's number; ``about``: "around
x per cent"; ``lower_bound``: "more than x per cent"; ``upper_bound``: "not more than x per cent"),
``published``, ``x_min, x_max`` (the r the
statement covers, empty: every r we ran), ``statistic`` (which of our per-r means it is compared
with: ``at`` a single r, or the ``mean``, ``min`` or ``max`` over the range) and ``source``. A
``value`` holds when it is within our std over the folds, an ``about`` within our std plus 0.5 points
(the paper rounds to whole per cent), a ``lower_bound`` when our statistic is above it, an
``upper_bound`` when it is not.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..report import error_tables, writers
from ..report.comparison import most_specific_reason
from ..report.fidelity import FidelityPoint, Points, number, stand_in, statement_holds
from ..engine.method_failures import check_output, configured_on_error
from ..engine.config import data_file, method_folders, registry_method, split_path, split_source
from ..engine.planning import planned, recall
from ..engine.results import read_swept, write_swept
from .base import (JobRule, Output, Protocol, estimator_source, failure_recorded, job_method,
                   table_outputs)
from .curves import CurveAggregation

C_VALUES = (0.01, 0.1, 1.0, 10.0, 100.0)
#: The arrays of :func:`run_holdout`, of shape (n_values, n_C, n_folds), in a job's file.
ARRAYS = ("val_accuracy", "test_accuracy", "sv_percent", "fit_seconds", "n_svm_solves")
MEASURES = ("accuracy", "sv_percent")
STATISTICS = ("at", "mean", "min", "max")
PUBLISHED_KINDS = ("value", "about", "lower_bound", "upper_bound")
#: The kinds of statement that are a number (drawn in the fidelity figure); the others are bounds.
NUMERIC_KINDS = ("about", "value")
#: The axes of a statement's ``measure`` in the fidelity figure.
MEASURE_UNITS = {"accuracy": "accuracy (%)", "sv_percent": "support vectors (%)"}
_ABOUT_SLACK = 0.5


# --------------------------------------------------------------------------- configuration


def entry_values(spec: dict, method: str) -> list[int]:
    """The r values of a method entry: its own ``values``, else the experiment's."""
    return list((spec["methods"][method] or {}).get("values") or spec["values"])


def value_blocks(spec: dict, method: str) -> list[list[int]]:
    """A method entry's r values in blocks of ``values_per_job`` (default all): one job each; one
    block for a method that projects nothing (``raw``), which computes its flat line once."""
    from ..engine.registry import entry_projects

    values = entry_values(spec, method)
    projects = entry_projects(method, spec["methods"][method])
    size = (spec.get("values_per_job") or len(values)) if projects else len(values)
    return [values[start:start + size] for start in range(0, len(values), size)]


@planned
def job_priority(config: dict, spec: dict, method: str) -> int:
    """The Snakemake priority of a method entry's jobs: 1 for the costly GPK/LPK fits (a classifier
    that projects), else 0."""
    from ..engine.registry import method_spec

    return int(method_kind(method_spec(method, spec["methods"][method], method_folders(config))) == "classifier")


def block_name(block) -> str:
    """``'r01-05'`` for the block 1..5: the stem of its result file."""
    return f"r{block[0]:02d}-{block[-1]:02d}"


#: A job's result file: ``block`` is the stem :func:`block_name` gives its r values.
RESULT_PATTERN = "results/{experiment}/{dataset}/holdout/{method}/{block}.h5"


def result_path(experiment: str, dataset: str, method: str, block) -> str:
    return RESULT_PATTERN.format(experiment=experiment, dataset=dataset, method=method, block=block_name(block))


def method_blocks(spec: dict) -> dict[str, list[list[int]]]:
    """Method entry -> its blocks of r values (:func:`value_blocks`), one job each (planned:
    :mod:`locproj.engine.planning`)."""
    return recall(("holdout blocks", repr(spec)), lambda: {method: value_blocks(spec, method)
                                                           for method in spec["methods"]})


def jobs(config: dict, experiment: str):
    """Every (dataset, method entry, block of r) of a holdout experiment, in a stable order."""
    spec = config["experiments"][experiment]
    blocks = method_blocks(spec)
    for dataset in spec["datasets"]:
        for method in spec["methods"]:
            for block in blocks[method]:
                yield dataset, method, block


def check_spec(spec: dict) -> None:
    """Fail, naming the key, on a dataset not marked ``[holdout]``, unsorted values or a bad C."""
    for dataset, sizes in spec["datasets"].items():
        if list(sizes) != ["holdout"]:
            raise ValueError(f"dataset {dataset!r}: the holdout_curve protocol takes [holdout], got {sizes}")
    for name in [None, *spec["methods"]]:
        values = spec["values"] if name is None else entry_values(spec, name)
        if any(b <= a for a, b in zip(values, values[1:])):
            where = "values" if name is None else f"method {name!r}: values"
            raise ValueError(f"{where} must be strictly increasing, got {values}")
    grid = spec.get("C_values") or C_VALUES
    if any(c <= 0 for c in grid) or list(grid) != sorted(set(grid)):
        raise ValueError(f"C_values must be positive and strictly increasing, got {list(grid)}")
    for name, entry in spec["methods"].items():
        if "n_components" in (entry or {}).get("fixed", {}) or "C" in (entry or {}).get("fixed", {}):
            raise ValueError(f"method {name!r}: n_components and C are swept by the protocol, not fixed")
        pca_first = (entry or {}).get("pca_first")
        if pca_first is not None and (not isinstance(pca_first, int) or pca_first < max(entry_values(spec, name))):
            raise ValueError(f"method {name!r}: pca_first must be an int >= its largest r "
                             f"({max(entry_values(spec, name))}), got {pca_first!r}")


def job_config(config: dict, experiment: str, dataset: str, method: str, block) -> dict:
    """Everything one holdout job depends on (its params and provenance)."""
    spec = config["experiments"][experiment]
    entry = spec["methods"][method] or {}
    source = split_source(config, dataset)
    return {
        "seed": config["seed"], "experiment": experiment, "dataset": dataset, "method": method,
        **({"split_source": source} if source != dataset else {}),
        "protocol": "holdout_curve", "registry_method": registry_method(method, entry),
        "fixed": entry.get("fixed") or {}, "values": [int(v) for v in block],
        "C_values": [float(c) for c in (spec.get("C_values") or C_VALUES)],
        # only when set: the job configuration (and its config_hash) of the plain protocol holds no such key
        **({"by_group": dict(spec["by_group"])} if spec.get("by_group") else {}),
        **({"pca_first": int(entry["pca_first"])} if entry.get("pca_first") else {}),
        # an entry by import path: the whole entry and where its code comes from
        **({"method_spec": entry} if "estimator" in entry else {}), **estimator_source(config, method, entry),
        **configured_on_error(spec, entry),
    }


# --------------------------------------------------------------------------- one job


def method_kind(spec) -> str:
    """``raw`` (it projects nothing: the SVM on the input), ``classifier`` (it fits its own SVM: gpk,
    lpk, or an entry's ``classifier``) or ``projection``, for a
    :class:`locproj.engine.registry.MethodSpec` or a built-in method's name."""
    from ..engine.registry import method_spec

    spec = method_spec(spec, {}) if isinstance(spec, str) else spec
    if not spec.projects:
        return "raw"
    return "classifier" if spec.classifier else "projection"


def _linear_svm(Z_fit, y_fit, Z_val, y_val, Z_test, y_test, C):
    """A linear SVM fitted on ``Z_fit``: its validation and test accuracy, its support vectors as a percentage
    of the fitted samples, and its SVM solves (one), as the classifier kind reports them."""
    from sklearn.svm import SVC

    svm = SVC(kernel="linear", C=C).fit(Z_fit, y_fit)
    return svm.score(Z_val, y_val), svm.score(Z_test, y_test), 100.0 * svm.n_support_.sum() / len(y_fit), 1


def run_holdout(job: dict, new_estimator, X, y, folds, test, fold_seeds, limit: int | None = None) -> dict:
    """Every (r, C, fold) of one job (module docstring).

    ``new_estimator(params)`` builds the method with extra parameters; ``job`` has ``kind``,
    ``values`` and ``C_values``; ``folds`` are (fit, validation) index arrays into ``X``, ``test``
    the test indices; ``fold_seeds[k]`` is the ``random_state`` of fold ``k``'s classifier fits;
    ``limit`` the most columns the method can return (larger r stay NaN). Returns arrays of shape
    (n_values, n_C, n_folds): ``val_accuracy``, ``test_accuracy`` (fractions), ``sv_percent``,
    ``fit_seconds``, ``n_svm_solves`` (the method's own SVM solves; 1 for a linear SVC)."""
    values, grid, kind = list(job["values"]), list(job["C_values"]), job["kind"]
    shape = (len(values), len(grid), len(folds))
    out = {name: np.full(shape, np.nan) for name in ARRAYS}
    X_test, y_test = X[test], y[test]
    for k, (fit, validation) in enumerate(folds):
        X_fit, y_fit, X_val, y_val = X[fit], y[fit], X[validation], y[validation]
        if job.get("pca_first"):     # §6.3: LFDA on Olivetti after PCA to 100 dimensions
            from ..methods.linear import LeadingPCA

            pca = LeadingPCA(int(job["pca_first"])).fit(X_fit)
            X_fit, X_val, X_fold_test = (pca.transform(A) for A in (X_fit, X_val, X_test))
        else:
            X_fold_test = X_test
        for t, r in enumerate(values):
            if kind == "raw" and t > 0:   # the unreduced SVM does not depend on r: a flat line
                for name in out:
                    out[name][t, :, k] = out[name][0, :, k]
                continue
            if limit is not None and kind != "raw" and r > limit:
                continue
            start = time.perf_counter()
            if kind == "projection":
                projection = new_estimator({"n_components": int(r)}).fit(X_fit, y_fit)
                width = None if job.get("ordered", True) else int(r)
                Z_fit, Z_val, Z_test = (check_output(projection.transform(A), len(A), width=width)
                                        for A in (X_fit, X_val, X_fold_test))
            elif kind == "raw":
                Z_fit, Z_val, Z_test = X_fit, X_val, X_fold_test
            shared = time.perf_counter() - start
            for j, C in enumerate(grid):
                start = time.perf_counter()
                if kind == "classifier":
                    model = new_estimator({"n_components": int(r), "C": C, "random_state": fold_seeds[k]})
                    model.fit(X_fit, y_fit)
                    scores = (model.score(X_val, y_val), model.score(X_fold_test, y_test),
                              100.0 * model.n_support_.sum() / len(y_fit), model.history_["n_svm_solves"][-1])
                else:
                    scores = _linear_svm(Z_fit, y_fit, Z_val, y_val, Z_test, y_test, C)
                for name, value in zip(("val_accuracy", "test_accuracy", "sv_percent", "n_svm_solves"), scores):
                    out[name][t, j, k] = value
                out["fit_seconds"][t, j, k] = time.perf_counter() - start + shared / len(grid)
    return out


def write_job(path, result: dict, job: dict, meta: dict, provenance: dict) -> None:
    """One job's file (:func:`locproj.engine.results.write_swept`): ``/values``, ``/C_values`` and the arrays
    of :func:`run_holdout`; attributes ``meta`` (experiment, dataset, method, kind) and the
    provenance. Only ``fit_seconds`` varies between reruns."""
    write_swept(path, {"values": np.asarray(job["values"], dtype=np.int64),
                       "C_values": np.asarray(job["C_values"], dtype=np.float64), **result}, {**provenance, **meta})


def read_job(path) -> pd.DataFrame:
    """A file of :func:`write_job` as long rows: experiment, dataset, method, kind, x, C, fold,
    val_accuracy, test_accuracy (fractions), sv_percent, fit_seconds, n_svm_solves."""
    attrs, arrays = read_swept(path, ("values", "C_values", *ARRAYS))
    if attrs.get("failed"):          # a failure (locproj.engine.results.write_failure): no rows
        return pd.DataFrame(columns=["experiment", "dataset", "method", "kind", "x", "C", "fold", *ARRAYS])
    values, grid = arrays.pop("values"), arrays.pop("C_values")
    t, j, k = np.meshgrid(np.arange(len(values)), np.arange(len(grid)),
                          np.arange(arrays["val_accuracy"].shape[2]), indexing="ij")
    frame = pd.DataFrame({"experiment": attrs["experiment"], "dataset": attrs["dataset"], "method": attrs["method"],
                          "kind": attrs["kind"], "x": values[t.ravel()], "C": grid[j.ravel()], "fold": k.ravel()})
    for name, array in arrays.items():
        frame[name] = array.ravel()
    return frame


# --------------------------------------------------------------------------- aggregation


def choose_C(long: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, method, x): the C of the highest mean validation accuracy over the folds (ties:
    the smaller C), as columns ``C`` and ``mean_validation`` (%)."""
    cells = long.dropna(subset=["val_accuracy"])
    mean = cells.groupby(["dataset", "method", "x", "C"], sort=False)["val_accuracy"].mean().reset_index()
    mean = mean.sort_values(["dataset", "method", "x", "C"], kind="mergesort")
    # the first maximum in increasing C: ties go to the smaller C
    best = mean.loc[mean.groupby(["dataset", "method", "x"], sort=False)["val_accuracy"].idxmax()]
    return best.rename(columns={"val_accuracy": "mean_validation"}).assign(
        mean_validation=lambda f: 100 * f["mean_validation"]).reset_index(drop=True)


def curve_summary(long: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, method, x), at the chosen C: mean and std (``ddof=1``) over the folds of the
    test accuracy and % SV, the folds counted, mean seconds per fit and SVM solves per fit."""
    chosen = choose_C(long)
    at = long.merge(chosen[["dataset", "method", "x", "C"]], on=["dataset", "method", "x", "C"])
    at = at.assign(test_accuracy=100 * at["test_accuracy"])
    grouped = at.groupby(["dataset", "method", "x"], sort=False)
    table = grouped.agg(kind=("kind", "first"), mean_accuracy=("test_accuracy", "mean"),
                        std_accuracy=("test_accuracy", lambda a: a.std(ddof=1)),
                        mean_sv=("sv_percent", "mean"), std_sv=("sv_percent", lambda a: a.std(ddof=1)),
                        n_folds=("test_accuracy", "size")).reset_index()
    table = chosen.merge(table, on=["dataset", "method", "x"])
    costs = long.groupby(["dataset", "method", "x"], sort=False).agg(
        seconds_per_fit=("fit_seconds", "mean"), svm_solves_per_fit=("n_svm_solves", "mean")).reset_index()
    table = table.merge(costs, on=["dataset", "method", "x"])
    order = {name: i for i, name in enumerate(dict.fromkeys(long["method"]))}
    return table.sort_values(["dataset", "method", "x"], key=lambda c: c.map(order) if c.name == "method" else c,
                             kind="mergesort", ignore_index=True)


def _label(spec: dict, method: str) -> str:
    return (spec.get("labels") or {}).get(method, method)


def wide_table(summary: pd.DataFrame, spec: dict, style: str = "plain") -> pd.DataFrame:
    """Rows (dataset, r), a ``accuracy ± std [% SV]`` column per method entry in config order."""
    percent = "\\%" if style == "tex" else "%"
    cells = summary.assign(cell=[f"{error_tables.format_cell(a, s, style=style)} [{v:.1f}{percent}]"
                                 for a, s, v in zip(summary["mean_accuracy"], summary["std_accuracy"],
                                                    summary["mean_sv"])])
    table = cells.pivot_table(index=["dataset", "x"], columns="method", values="cell", aggfunc="first", sort=False)
    methods = [m for m in spec["methods"] if m in table.columns]
    table = table[methods]
    table.columns = [_label(spec, m) for m in methods]
    table = table.reset_index().rename(columns={"x": "r"}).fillna("")
    datasets = list(dict.fromkeys(summary["dataset"]))
    return table.sort_values(["dataset", "r"], key=lambda c: c.map(datasets.index) if c.name == "dataset" else c,
                             kind="mergesort", ignore_index=True)


def fold_models(spec: dict) -> str:
    """What the mean and std of a holdout experiment are taken over, in words."""
    by_group = spec.get("by_group")
    if by_group:
        return (f"the {by_group['n_folds']} CV fold models ({by_group['test_per_group']} samples of each group "
                f"held out as test, one of each group in every validation fold)")
    return "the ten 5×2 CV fold models"


def write_tables(summary: pd.DataFrame, spec: dict, out_dir, notes=None, footer: str = "",
                 latex_footer: str = "") -> None:
    """``<table_name>.csv`` (the long summary) and ``.md`` / ``.tex`` (:func:`wide_table`), with a
    ``footer`` (the failures) after each."""
    out_dir, stem = Path(out_dir), spec.get("table_name", "table")
    plain, tex = wide_table(summary, spec), wide_table(summary, spec, style="tex")
    caption = f"Test accuracy (%) mean ± std over {fold_models(spec)} at the C chosen by validation; [% SV].\n\n"
    writers.write_table_files(out_dir, stem, summary, plain, latex=tex, notes=notes, caption=caption,
                                second_column="$r$", footer=footer, latex_footer=latex_footer)

def read_published(path, experiment: str | None = None) -> pd.DataFrame:
    """Published statements (module docstring; ``#`` comments allowed), those of ``experiment`` when given."""
    published = pd.read_csv(path, comment="#", dtype={"x_min": "Int64", "x_max": "Int64"})
    bad = sorted(set(published["kind"]) - set(PUBLISHED_KINDS)) + sorted(set(published["measure"]) - set(MEASURES)) \
        + sorted(set(published["statistic"]) - set(STATISTICS))
    if bad:
        raise ValueError(f"{path}: unknown kind, measure or statistic {bad}")
    return published if experiment is None else published[published["experiment"] == experiment]


def comparison(summary: pd.DataFrame, spec: dict, published: pd.DataFrame) -> pd.DataFrame:
    """Each published statement beside ours: ``ours`` (the statistic over the r range of our per-r
    means), ``ours_std`` (the largest std among those r), ``ours_range`` (min-max of the means),
    ``difference``, ``holds`` and the configured ``reason`` where it does not hold."""
    names = dict(spec.get("published_names") or {})
    ours = summary.assign(dataset=summary["dataset"].replace(names))
    rows = []
    for row in published.drop(columns=["experiment"], errors="ignore").itertuples(index=False):
        line = ours[(ours["dataset"] == row.dataset) & (ours["method"] == row.method)]
        if not pd.isna(row.x_min):
            line = line[line["x"] >= row.x_min]
        if not pd.isna(row.x_max):
            line = line[line["x"] <= row.x_max]
        column = "mean_accuracy" if row.measure == "accuracy" else "mean_sv"
        means, stds = line[column].to_numpy(), line[column.replace("mean", "std")].to_numpy()
        if row.statistic == "at" and len(means) > 1 and line["kind"].iloc[0] != "raw":
            raise ValueError(f"published {row.dataset}/{row.method}: statistic 'at' needs one r, "
                             f"got {sorted(line['x'])}")
        value = {"at": np.mean, "mean": np.mean, "min": np.min, "max": np.max}[row.statistic](means) \
            if len(means) else np.nan
        spread = float(np.max(stds)) if len(stds) else np.nan
        difference = value - row.published
        if row.kind == "lower_bound":
            holds = bool(value > row.published)
        elif row.kind == "upper_bound":
            holds = bool(value <= row.published)
        elif row.kind == "about":
            holds = bool(abs(difference) <= spread + _ABOUT_SLACK)
        else:
            holds = bool(abs(difference) <= spread)
        rows.append({**row._asdict(), "ours": value, "ours_std": spread,
                     "ours_range": f"{means.min():.1f}-{means.max():.1f}" if len(means) else "",
                     "r_ours": f"{int(line['x'].min())}-{int(line['x'].max())}" if len(means) else "",
                     "difference": difference, "holds": holds})
    compared = pd.DataFrame(rows)
    if compared.empty:
        return pd.DataFrame(columns=["dataset", "method", "measure", "kind", "published", "ours", "holds", "reason"])
    compared["reason"] = [_reason(spec, row) if not row.holds else "" for row in compared.itertuples(index=False)]
    return compared


def _reason(spec: dict, row) -> str:
    """The most specific configured reason matching the row's dataset, method and measure."""
    return most_specific_reason(spec.get("reasons"), row, ("dataset", "method", "measure"))


MEASURE_AXES = {"accuracy": ("mean_accuracy", "std_accuracy", "test accuracy (%)"),
                 "sv_percent": ("mean_sv", "std_sv", "support vectors (% of the fit part)")}
PUBLISHED_STYLES = {"value": "-", "about": ":", "lower_bound": "-.", "upper_bound": "--"}


def curve_figure(dataset: str, rows: pd.DataFrame, spec: dict, published: pd.DataFrame, notes=None):
    """Accuracy and % SV against r: per method the mean ± one std (band) over the fold models, ``raw``
    (the SVM without reduction) as a dashed level, the published statements as thick segments over
    their r; one legend beside the panels and a note below saying what is drawn."""
    from matplotlib.ticker import MaxNLocator

    figure = writers.new_figure((10.5, 4.0))
    axes = figure.subplots(1, 2)
    span = (rows["x"].min() - 0.5, rows["x"].max() + 0.5)
    names = dict(spec.get("published_names") or {})
    statements = published[published["dataset"] == names.get(dataset, dataset)]
    for ax, measure in zip(axes, MEASURE_AXES):
        _draw_measure(ax, rows, spec, statements[statements["measure"] == measure], measure, span)
        writers.style_axes(ax, xlabel=spec.get("x_label", "projected dimension r"), ylabel=MEASURE_AXES[measure][2],
                             title=f"{dataset}: {'accuracy' if measure == 'accuracy' else 'support vectors'}")
        ax.set_xlim(span)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    writers.legend_outside(figure, axes)
    figure.tight_layout()
    raw = (rows["kind"] == "raw").any()
    writers.note_below(figure, _curve_note(dataset, spec, statements, raw, notes), width=180)
    return figure


def _draw_measure(ax, rows: pd.DataFrame, spec: dict, statements: pd.DataFrame, measure: str, span) -> None:
    mean, std, _ = MEASURE_AXES[measure]
    curves = [m for m in spec["methods"] if not rows[rows["method"] == m].empty]
    for i, method in enumerate(curves):
        line = rows[rows["method"] == method]
        if line["kind"].iloc[0] == "raw":
            drawn = writers.draw_reference(ax, line[mean].iloc[0], std=line[std].iloc[0], label=_label(spec, method))
        else:
            drawn = writers.draw_curve(ax, line["x"], line[mean], line[std], color=f"C{i}", marker="o",
                                         markersize=3, label=_stopped(spec, method, line["x"], rows["x"].max()))
        for point in statements[statements["method"] == method].itertuples(index=False):
            low = span[0] if pd.isna(point.x_min) else point.x_min - 0.3
            high = span[1] if pd.isna(point.x_max) else point.x_max + 0.3
            ax.plot([low, high], [point.published] * 2, PUBLISHED_STYLES[point.kind], color=drawn.get_color(),
                    linewidth=2.2, alpha=0.7)


def _stopped(spec: dict, method: str, xs: pd.Series, end: int) -> str:
    """The legend entry of a method's curve, saying why it ends before ``end``: the entry runs at
    fewer r (its own ``values``), or the method has no more projections."""
    from ..engine.registry import bound_reason, end_reason

    last, values, entry = int(xs.max()), entry_values(spec, method), spec["methods"][method] or {}
    if last >= end:
        reason = None
    elif last == max(values):
        reason = "fitted at r = " + ", ".join(str(v) for v in values) + " only"
    elif "estimator" in entry:
        reason = end_reason(method, entry, [last])
    else:
        reason = bound_reason(registry_method(method, entry))
    return writers.stopped_label(_label(spec, method), last, reason, symbol="r")


def _curve_note(dataset: str, spec: dict, statements: pd.DataFrame, raw: bool, notes) -> str:
    text = f"Lines: mean ± one std (band) over {fold_models(spec)} at the C chosen by validation accuracy."
    if raw:
        text += " Dashed level: the SVM without reduction (grey band: its std)."
    if not statements.empty:
        text += (" Thick segments: the paper's statements over the r they cover, in the method's colour (solid a "
                 "value, dotted 'about', dash-dot a lower bound, dashed an upper one).")
    return text + (f" {dataset}: {notes[dataset]}" if dataset in (notes or {}) else "")


class HoldoutCurve(CurveAggregation, Protocol):
    """Jobs are (dataset, method entry, block of r values) on the LPK split, one file each."""

    name = "holdout_curve"

    def check(self, spec: dict) -> None:
        check_spec(spec)

    def jobs(self, config: dict, experiment: str):
        return jobs(config, experiment)

    def result_path(self, experiment: str, *job) -> str:
        return result_path(experiment, *job)

    def job_rules(self, config: dict, experiment: str) -> list[JobRule]:
        """One rule: a job per dataset, method entry and block of r values (its file's stem)."""
        spec = config["experiments"][experiment]
        blocks = {(method, block_name(block)): block for method, values in method_blocks(spec).items()
                  for block in values}
        values = lambda wc: blocks[wc.method, wc.block]  # noqa: E731
        return [JobRule(
            name="fit_holdout",
            output=[RESULT_PATTERN],
            log="logs/fit/{experiment}/{dataset}/holdout/{method}/{block}.log",
            input=dict(data=lambda wc: data_file(config, wc.dataset),
                       splits=lambda wc: split_path(config, wc.dataset, "holdout", by_group=spec.get("by_group"))),
            params=dict(job=lambda wc: job_config(config, experiment, wc.dataset, wc.method, values(wc)),
                        splits=[0]),
            script="run_job.py",
            # an LPK r on USPS (50 fits, C = 100 the slowest): up to a few minutes
            runtime=lambda wc: 10 + 5 * len(values(wc)),
            # GPK/LPK jobs (minutes) first, so that the short projection jobs fill the gaps
            priority=lambda wc: job_priority(config, spec, wc.method),
            wildcard_constraints=dict(experiment=re.escape(experiment), block=r"r\d+-\d+"),
        )]

    def job_config(self, config: dict, experiment: str, dataset: str, method: str, block=None) -> dict:
        return job_config(config, experiment, dataset, method, block)

    def run_job(self, job: dict, partition: str, splits, data, parts: dict, outputs, n_jobs: int = 1) -> None:
        """The ten 5×2 CV folds and the test third of ``parts``, every r of the job's block and every
        C. A classifier's ``random_state`` of fold ``k`` depends on the data and ``k`` only, so every
        method entry, r and C of a fold starts from the same seed."""
        from ..core.io import provenance_attrs
        from ..data.splits import derived_seed
        from ..engine.registry import estimator_factory

        X, y = data.X, data.y
        samples = job.get("split_source", job["dataset"])
        spec = job_method(job)
        kind = method_kind(spec)
        folds = parts["folds"]
        seeds = [derived_seed(job["seed"], "holdout", samples, k) % 2**32 for k in range(len(folds))]
        limit = min(spec.max_components(n_samples=len(fit), n_classes=len(np.unique(y[fit])), n_features=X.shape[1])
                    for fit, _ in folds)
        meta = {"experiment": job["experiment"], "dataset": job["dataset"], "method": job["method"], "kind": kind}
        with failure_recorded(job, "holdout", None, outputs[0], {**meta, "block": block_name(job["values"])}):
            result = run_holdout({**job, "kind": kind, "ordered": spec.ordered}, estimator_factory(spec, job["fixed"]),
                                 X, y, folds, parts["test"][0], seeds, limit=limit)
            write_job(outputs[0], result, job, meta, provenance_attrs(job, seed=seeds[0]))

    # the aggregation (CurveAggregation): what each of its steps holds
    published_columns = ("dataset", "method", "measure", "kind", "published", "x_min", "x_max", "statistic",
                         "source")
    rounded_columns, rounded_decimals = ("published", "ours", "ours_std", "difference"), 2

    def read_results(self, spec: dict, paths) -> pd.DataFrame:
        """Every job's rows, in config order of method, then x, C and fold, then dataset."""
        long = pd.concat([read_job(path) for path in paths], ignore_index=True)
        order = {name: i for i, name in enumerate(spec["methods"])}
        long = long.sort_values(["method", "x", "C", "fold"], key=lambda c: c.map(order) if c.name == "method" else c,
                                kind="mergesort", ignore_index=True)
        datasets = list(spec["datasets"])
        return long.sort_values("dataset", key=lambda c: c.map(datasets.index), kind="mergesort", ignore_index=True)

    summarise = staticmethod(curve_summary)
    write_tables = staticmethod(write_tables)
    read_published = staticmethod(read_published)
    comparison = staticmethod(comparison)
    curve_figure = staticmethod(curve_figure)

    def curves_table(self, summary: pd.DataFrame) -> pd.DataFrame:
        return summary.drop(columns=["seconds_per_fit"])

    def fidelity_points(self, comparison: pd.DataFrame, notes=None):
        """Each statement that is a number (``value``, ``about``) beside ours with its std over the
        fold models, on the axes of its measure; the bounds ("more than 70 per cent") are left out."""
        found = Points()
        for r in comparison.itertuples(index=False):
            if r.kind not in NUMERIC_KINDS:
                found.leave_out("bounds ('more than 70 per cent')")
                continue
            found.points.append(FidelityPoint(
                float(r.published), float(r.ours), f"{r.dataset} {r.method}", None, number(r.ours_std),
                stand_in(r, notes), MEASURE_UNITS.get(r.measure, r.measure), holds=statement_holds(r.holds),
                dataset=str(r.dataset)))
        return found

    def outputs(self, experiment: str, spec: dict) -> list[Output]:
        return table_outputs(experiment, spec, "../report/table_holdout.rst", "../report/figures_holdout.rst",
                             "../report/curves_holdout.rst")


PROTOCOL = HoldoutCurve()
