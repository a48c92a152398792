"""The ``train_test_curve`` protocol (paper 004, Figs. 5-6): test error against a swept quantity on
fixed training and test sets, repeated over seeded partitions, with fixed hyper-parameters.

The partitions are those of the split protocols (:mod:`.split_jobs`): ``m`` training
samples per class and the rest as the test set (USPS, 1100 per digit at ``m = 500``: 500 training
and 600 test images per class); a *repetition* is one partition. Nothing is cross-validated: each
method entry is fitted with its ``fixed`` parameters, as in the paper. The experiment names

``x``, ``values``
    What the curve sweeps, at the given increasing values:

    * ``n_components``: the method is fitted once at ``max(values)`` and each classifier is trained
      and tested on the first ``m`` columns for every ``m`` in ``values`` (eigenvector and
      principal-axis bases are nested, so this is a fit per ``m``). A method entry with
      ``nested: false`` is fitted at every ``m`` instead: LLE's automatic regularisation depends
      on ``m`` (``sigma_i^2`` beyond it). A method that returns fewer columns has no value
      beyond them; ``raw`` has no columns to choose and gives a flat line.
    * ``n_per_class``: the training set of ``n`` is the first ``n`` samples of each class in a
      seeded permutation of the partition's training samples (so the sets are nested and equal
      for every method and experiment on the same data); the test set stays the same. A method
      entry with ``subset: selected`` is instead fitted on the whole training part with
      ``n_subset = n * c`` (paper 004 §3.3: ``n * c`` samples drawn from the ECDF of
      ``sigma_i^2``), and its classifiers are trained on the selected samples.

``classifiers``: name -> ``{classifier, params}``
    :data:`locproj.core.evaluation.CLASSIFIERS` with their keyword arguments, trained on the mapped
    training set and tested on the mapped test set. A method entry's ``classifiers`` lists the
    ones it is evaluated with (default all); a curve is a (method entry, classifier) pair.
``methods``: name -> ``{method, fixed, classifiers, subset, nested}``
    ``method`` is the :mod:`locproj.engine.registry` name (default: the entry's own name), so one method
    can appear with several parameter sets (SLLE at several alpha). An estimator with a
    ``random_state`` gets one derived from the master seed and the repetition.

Outputs: ``curves.csv`` (mean, std and count over repetitions per dataset, method, classifier and
``x``, with the range of ``n_components_`` a float ``n_components`` found), ``<table_name>.csv/
.md/.tex`` (the curves as a table, a column per curve), ``comparison.csv/.md`` (the published
points beside ours) and one figure per dataset (a panel per classifier with ``panel_by:
classifier``, otherwise one panel, published points marked); with ``published_crossover``,
``crossover.csv/.md`` (where one method stops beating another, :func:`crossovers`). Errors are in
percent; stds over repetitions (``ddof=1``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from ..report import error_tables, writers
from ..report.comparison import most_specific_reason
from ..report.fidelity import FidelityPoint, Points, number, stand_in
from ..engine.method_failures import check_output
from ..engine.config import partition_size, registry_method
from ..engine.results import read_swept, write_swept
from .base import job_method
from .curves import CurveAggregation
from .split_jobs import SplitProtocol

_KEYS = ["dataset", "m", "method", "classifier"]


# --------------------------------------------------------------------------- one repetition


def curve_classifiers(spec: dict, entry: dict | None) -> dict:
    """``{name: {classifier, params}}`` a method entry is evaluated with (default: all)."""
    names = (entry or {}).get("classifiers") or list(spec["classifiers"])
    return {name: spec["classifiers"][name] for name in names}


def check_spec(spec: dict) -> None:
    """Fail, naming the key, on unknown classifiers, bad values or an impossible ``subset``."""
    values = spec["values"]
    if any(b <= a for a, b in zip(values, values[1:])):
        raise ValueError(f"values must be strictly increasing, got {values}")
    for name, entry in spec["methods"].items():
        unknown = sorted(set((entry or {}).get("classifiers") or []) - set(spec["classifiers"]))
        if unknown:
            raise ValueError(f"method {name!r}: classifiers {unknown} are not among {sorted(spec['classifiers'])}")
        if (entry or {}).get("subset") == "selected" and spec["x"] != "n_per_class":
            raise ValueError(f"method {name!r}: subset: selected needs x: n_per_class, got x: {spec['x']}")


def nested_order(y_train: np.ndarray, seed: int) -> list[np.ndarray]:
    """Per class (sorted labels), the positions in ``y_train`` of its samples in a seeded order."""
    rng = np.random.Generator(np.random.PCG64(seed))
    return [rng.permutation(np.flatnonzero(y_train == c)) for c in np.unique(y_train)]


def first_per_class(order: list[np.ndarray], n: int) -> np.ndarray:
    """The first ``n`` positions of every class of :func:`nested_order`, sorted."""
    short = [len(positions) for positions in order if len(positions) < n]
    if short:
        raise ValueError(f"n_per_class = {n} exceeds the {min(short)} training samples of a class; lower the values")
    return np.sort(np.concatenate([positions[:n] for positions in order]))


def _fit_map(new_estimator, X_fit, y_fit, X_test, training_subset: bool = False):
    """Fit a new estimator, map the test data; returns (Z_train, y_train, Z_test, n_components)
    with the classifiers' training set: the fitted subset ``subset_`` when the method embeds one
    (its tags' ``training_subset``)."""
    estimator = new_estimator()
    Z_train = check_output(estimator.fit_transform(X_fit, y_fit), len(X_fit), what="fit_transform")
    if training_subset:
        Z_train, y_fit = Z_train[estimator.subset_], y_fit[estimator.subset_]
    Z_test = check_output(estimator.transform(X_test), len(X_test), width=Z_train.shape[1])
    return Z_train, y_fit, Z_test, Z_train.shape[1]


def _errors(Z_train, y_train, Z_test, y_test, classifiers: dict, columns, n_jobs: int) -> np.ndarray:
    """Test error of each classifier (columns) at each prefix length in ``columns`` (rows); NaN
    where the map has fewer columns."""
    from ..core.evaluation import errors_all_p

    columns = np.asarray(columns)
    reachable = columns <= Z_train.shape[1]
    out = np.full((len(columns), len(classifiers)), np.nan)
    for j, spec in enumerate(classifiers.values()):
        if reachable.any():
            out[reachable, j] = errors_all_p(Z_train, y_train, Z_test, y_test, classifier=spec["classifier"],
                                             classifier_params=spec.get("params") or {},
                                             p_values=columns[reachable], n_jobs=n_jobs)
    return out


def planned_fits(job: dict, y_train: np.ndarray, seed: int) -> list[tuple]:
    """The fits of one repetition: ``(rows, params, positions, columns)`` each, where ``rows`` are
    the ``x`` values it serves, ``params`` the extra estimator parameters, ``positions`` the
    training samples it is fitted on and ``columns`` the prefix lengths its classifiers use (None:
    every column)."""
    values, everything = list(job["values"]), np.arange(len(y_train))
    if job["x"] == "n_components":
        cap = job.get("max_components") or max(values)
        if job.get("raw"):  # one evaluation on every column, the same at each x (a flat line)
            return [(list(range(len(values))), {}, everything, None)]
        if job.get("nested", True):
            return [(list(range(len(values))), {"n_components": min(max(values), cap)}, everything, values)]
        return [([t], {"n_components": m}, everything, None) for t, m in enumerate(values) if m <= cap]
    order = nested_order(y_train, seed)
    if job.get("subset") == "selected":
        return [([t], {"n_subset": int(n) * len(order)}, everything, None) for t, n in enumerate(values)]
    return [([t], {}, first_per_class(order, int(n)), None) for t, n in enumerate(values)]


def run_repetition(job: dict, new_estimator, X_train, y_train, X_test, y_test, seed: int, n_jobs: int = 1) -> dict:
    """The errors of one method entry on one repetition, at every ``x`` value (module docstring).

    ``new_estimator(params)`` builds the unfitted estimator from extra parameters; ``job`` has
    ``x, values, classifiers`` and optionally ``subset``, ``nested``, ``raw``, ``seeded`` (the
    estimator takes ``random_state``: it gets ``seed``), ``training_subset`` (the fit embeds a subset
    of the training samples, :class:`~locproj.methods.tags.ProjectionTags`) and ``max_components`` (the most columns
    the method can return, :func:`locproj.engine.registry.max_components`). Returns ``errors``
    (n_values, n_classifiers; NaN where the method has too few columns), ``n_components`` and
    ``fit_seconds`` (n_values,)."""
    n_values, classifiers = len(job["values"]), job["classifiers"]
    errors, found, seconds = np.full((n_values, len(classifiers)), np.nan), np.zeros(n_values), np.zeros(n_values)
    seeded = {"random_state": seed % 2**32} if job.get("seeded") else {}
    for rows, params, fit, columns in planned_fits(job, y_train, seed):
        start = time.perf_counter()
        Z_train, y_used, Z_test, found[rows] = _fit_map(lambda: new_estimator({**params, **seeded}), X_train[fit],
                                                        y_train[fit], X_test, job.get("training_subset", False))
        seconds[rows] = time.perf_counter() - start
        errors[rows] = _errors(Z_train, y_used, Z_test, y_test, classifiers, columns or [Z_train.shape[1]], n_jobs)
    return {"errors": errors, "n_components": found, "fit_seconds": seconds}


def write_repetition(path, result: dict, job: dict, meta: dict, provenance: dict) -> None:
    """One repetition's file (:func:`locproj.engine.results.write_swept`): ``/values``, ``/errors``
    (fractions, one column per classifier), ``/n_components``, ``/fit_seconds``; attributes
    ``meta`` (experiment, dataset, m, method, split), ``x``, ``classifiers`` (JSON) and the
    provenance. Only ``fit_seconds`` varies between reruns."""
    arrays = {"values": np.asarray(job["values"], dtype=np.int64),
              **{name: result[name] for name in ("errors", "n_components", "fit_seconds")}}
    attrs = {**provenance, **meta, "x": job["x"], "classifiers": json.dumps(list(job["classifiers"]))}
    write_swept(path, arrays, attrs)


def read_repetition(path) -> pd.DataFrame:
    """A file of :func:`write_repetition` as long rows: experiment, dataset, m, method, classifier, split, x,
    test_error (fraction), n_components; none for a failure (:func:`locproj.engine.results.write_failure`)."""
    attrs, arrays = read_swept(path, ("values", "errors", "n_components"))
    if attrs.get("failed"):
        return pd.DataFrame(columns=["experiment", "dataset", "m", "method", "classifier", "split", "x", "test_error",
                                     "n_components"])
    values, errors, found = arrays["values"], arrays["errors"], arrays["n_components"]
    rows = [
        {"experiment": attrs["experiment"], "dataset": attrs["dataset"], "m": int(attrs["m"]),
         "method": attrs["method"], "classifier": name,
         "split": int(attrs["split"]), "x": int(value), "test_error": errors[t, j], "n_components": found[t]}
        for j, name in enumerate(json.loads(attrs["classifiers"])) for t, value in enumerate(values)
    ]
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- aggregation


def curve_summary(long: pd.DataFrame) -> pd.DataFrame:
    """Mean, std (%, ``ddof=1``) and count of the test error per curve and ``x``, and the range of
    dimensions the method found (``n_components_``)."""
    percent = long.dropna(subset=["test_error"]).assign(test_error=lambda f: 100 * f["test_error"])
    grouped = percent.groupby(_KEYS + ["x"], sort=False)
    table = grouped["test_error"].agg(mean_error="mean", std_error=lambda e: e.std(ddof=1), n_splits="size")
    dims = grouped["n_components"].agg(min_components="min", max_components="max")
    return table.join(dims).reset_index()


def _curve_label(spec: dict, method: str, classifier: str) -> str:
    methods, classifiers = spec.get("labels") or {}, spec.get("classifier_labels") or {}
    return f"{methods.get(method, method)} + {classifiers.get(classifier, classifier)}"


def _curves_in_order(spec: dict) -> list[tuple[str, str]]:
    return [(method, name) for method, entry in spec["methods"].items() for name in curve_classifiers(spec, entry)]


def wide_curves(summary: pd.DataFrame, spec: dict, style: str = "plain") -> pd.DataFrame:
    """Rows (dataset, m, x), a ``mean ± std`` column per curve in config order."""
    cells = summary.assign(cell=[error_tables.format_cell(mean, std, style=style)
                                 for mean, std in zip(summary["mean_error"], summary["std_error"])])
    table = cells.pivot_table(index=["dataset", "m", "x"], columns=["method", "classifier"], values="cell",
                              aggfunc="first", sort=False)
    curves = [curve for curve in _curves_in_order(spec) if curve in table.columns]
    table = table[curves]
    table.columns = [_curve_label(spec, *curve) for curve in curves]
    return table.reset_index().rename(columns={"m": "training part per class", "x": spec["x"]}).fillna("")


def write_tables(summary: pd.DataFrame, spec: dict, out_dir, notes=None, footer: str = "",
                 latex_footer: str = "") -> None:
    """``<table_name>.csv`` (the long summary) and ``.md`` / ``.tex`` (:func:`wide_curves`), with a
    ``footer`` (the failures) after each."""
    out_dir, stem = Path(out_dir), spec.get("table_name", "table")
    plain, tex = wide_curves(summary, spec), wide_curves(summary, spec, style="tex")
    writers.write_table_files(out_dir, stem, summary, plain, latex=tex, notes=notes, footer=footer,
                                latex_footer=latex_footer)

def read_published(path, experiment: str | None = None) -> pd.DataFrame:
    """Published points (``#`` comments allowed): experiment, dataset, method, classifier, x,
    error (%), source; the rows of ``experiment`` when given."""
    published = pd.read_csv(path, comment="#")
    return published if experiment is None else published[published["experiment"] == experiment]


def comparison(summary: pd.DataFrame, spec: dict, published: pd.DataFrame) -> pd.DataFrame:
    """Each published point beside our mean ± std at the same (dataset, method, classifier, x):
    ``difference`` (ours - published, points), ``beyond_std`` (beyond our std over repetitions:
    the paper gives its stds only as error bars) and the configured ``reason`` where beyond."""
    names = dict(spec.get("published_names") or {})
    ours = summary.assign(dataset=summary["dataset"].replace(names))
    keys = ["dataset", "method", "classifier", "x"]
    merged = published.drop(columns=["experiment"], errors="ignore").rename(columns={"error": "published"}).merge(
        ours[keys + ["mean_error", "std_error", "n_splits"]].rename(columns={"mean_error": "ours_mean",
                                                                             "std_error": "ours_std"}),
        on=keys, how="left")
    merged["difference"] = merged["ours_mean"] - merged["published"]
    merged["beyond_std"] = merged["difference"].abs() > merged["ours_std"]
    merged["reason"] = [_reason(spec, row) if row.beyond_std else "" for row in merged.itertuples(index=False)]
    return merged


def _reason(spec: dict, row) -> str:
    """The most specific configured reason matching the row's method, classifier and x."""
    return most_specific_reason(spec.get("reasons"), row, ("dataset", "method", "classifier", "x"))


X_LABELS = {"n_components": "dimension m", "n_per_class": "training samples per class n"}


def curve_figure(dataset: str, rows: pd.DataFrame, spec: dict, published: pd.DataFrame, notes=None):
    """A panel per classifier with ``panel_by: classifier``, else one: per curve the mean test error
    ± one std over the repetitions against ``x``; a ``raw`` curve flat in ``x`` (the dimension) as a
    dashed level, other ``raw`` curves dashed; published points as ×; one legend beside the panels
    and a note below saying what is drawn."""
    by_classifier = spec.get("panel_by") == "classifier"
    panels = list(spec["classifiers"]) if by_classifier else [None]
    width = 4.2 * len(panels) + 1.4 * (not by_classifier)
    figure = writers.new_figure((width, 4.0))
    axes = figure.subplots(1, len(panels), squeeze=False)[0]
    for ax, panel in zip(axes, panels):
        _draw_panel(ax, rows, spec, published, panel)
        title = (spec.get("classifier_labels") or {}).get(panel, panel) if panel else dataset
        writers.style_axes(ax, xlabel=spec.get("x_label") or X_LABELS[spec["x"]], ylabel="test error (%)",
                             title=title)
        if spec.get("x_log"):  # ticks at the swept values, written plainly
            ax.set_xscale("log")
            ax.set_xticks(spec["values"], [str(v) for v in spec["values"]])
            ax.minorticks_off()
    writers.legend_outside(figure, axes)
    figure.tight_layout()
    # the note spans the panels and the legend beside them (about 2.8 inches), 17 characters an inch
    writers.note_below(figure, _curve_note(dataset, rows, spec, published, notes), width=int(17 * (width + 2.8)))
    return figure


def _draw_panel(ax, rows: pd.DataFrame, spec: dict, published: pd.DataFrame, panel: str | None) -> None:
    from ..engine.registry import bound_reason, end_reason, entry_projects

    lines = {(i, method, classifier): rows[(rows["method"] == method) & (rows["classifier"] == classifier)]
             for i, (method, classifier) in enumerate(_curves_in_order(spec)) if panel in (None, classifier)}
    end = max(line["x"].max() for line in lines.values() if not line.empty)
    for (i, method, classifier), line in lines.items():
        if line.empty:
            continue
        entry = spec["methods"][method] or {}
        projects = entry_projects(method, entry)
        label = (spec.get("labels") or {}).get(method, method) if panel else _curve_label(spec, method, classifier)
        if not projects and spec["x"] == "n_components":    # the original data have no dimension to sweep
            writers.draw_reference(ax, line["mean_error"].iloc[0], std=line["std_error"].iloc[0], label=label)
            continue
        colour = f"C{list(spec['methods']).index(method) if panel else i}"   # a method's colour in every panel
        last = line["x"].max()
        reason = (None if last >= end else end_reason(method, entry, [last]) if "estimator" in entry
                  else bound_reason(registry_method(method, entry)))
        writers.draw_curve(ax, line["x"], line["mean_error"], line["std_error"], color=colour, marker="o",
                             markersize=2.5, linestyle="-" if projects else "--",
                             label=writers.stopped_label(label, last, reason, symbol="m"))
        points = published[(published["method"] == method) & (published["classifier"] == classifier)]
        ax.plot(points["x"], points["error"], "x", color=colour, markersize=7)
    if published["method"].isin([method for _, method, _ in lines]).any():
        ax.plot([], [], "x", color=writers.REFERENCE_COLOUR, markersize=7, label="published value (paper)")


def _curve_note(dataset: str, rows: pd.DataFrame, spec: dict, published: pd.DataFrame, notes) -> str:
    from ..engine.registry import entry_projects

    n_splits = "/".join(str(int(n)) for n in sorted(rows["n_splits"].unique()))
    spread = "error bar" if rows["x"].nunique() == 1 else "band"
    text = (f"Lines: test error, mean ± one std ({spread}) over {n_splits} repetitions (seeded partitions of the "
            "data into training and test sets), each method fitted with fixed parameters, no cross-validation.")
    if not all(entry_projects(name, entry) for name, entry in spec["methods"].items()):
        text += " Dashed: the classifier on the original data, without projection."
    if not published.empty:
        text += " ×: the paper's value."
    return text + (f" {dataset}: {notes[dataset]}" if dataset in (notes or {}) else "")


def crossovers(summary: pd.DataFrame, published: pd.DataFrame, spec: dict) -> pd.DataFrame:
    """Where one method stops beating another (paper 004: "for m larger than 6 to 9, the
    classifiers perform better on PCA-mapped data"): per published row (``dataset, first, second,
    classifier, x_from, x_to``) our crossover, the smallest ``x`` from which ``second``'s mean error
    is at or below ``first``'s at every larger ``x``; ``holds`` when it lies in the published range."""
    rows = []
    for item in published.itertuples(index=False):
        curve = {method: summary[(summary["dataset"] == item.dataset) & (summary["method"] == method)
                                 & (summary["classifier"] == item.classifier)].set_index("x")["mean_error"]
                 for method in (item.first, item.second)}
        beaten = (curve[item.second] <= curve[item.first]).sort_index()
        losing = beaten.index[~beaten.to_numpy()]
        later = beaten.index[beaten.index > losing.max()] if len(losing) else beaten.index
        ours = int(later.min()) if len(later) else np.nan
        holds = bool(item.x_from <= ours <= item.x_to)
        row = {**item._asdict(), "ours": ours, "holds": holds}
        keyed = SimpleNamespace(dataset=item.dataset, method="crossover", classifier=item.classifier)
        reason = "" if holds else most_specific_reason(spec.get("reasons"), keyed,
                                                                 ("dataset", "method", "classifier"))
        rows.append({**row, "reason": reason})
    return pd.DataFrame(rows)


def write_crossovers(compared: pd.DataFrame, out_dir, notes=None) -> None:
    """``crossover.csv`` and ``crossover.md`` (:func:`crossovers`)."""
    writers.write_table_files(out_dir, "crossover", compared, notes=notes)

class TrainTestCurve(CurveAggregation, SplitProtocol):
    name = "train_test_curve"
    table_caption = "../report/table_train_test.rst"
    figures_caption = "../report/figures_train_test.rst"
    curves_caption = "../report/curves_train_test.rst"

    auto_blocks = False   # its jobs fit once per sweep value, not a cross-validation: no cost model yet

    def check(self, spec: dict) -> None:
        check_spec(spec)

    def job_keys(self, spec: dict, method: str) -> dict:
        """The protocol, registry method, sweep and classifiers of a method entry's jobs."""
        entry = spec["methods"][method] or {}
        return {"protocol": "train_test_curve", "registry_method": registry_method(method, entry),
                "x": spec["x"], "values": list(spec["values"]), "subset": entry.get("subset", "random"),
                "nested": entry.get("nested", True),
                "classifiers": curve_classifiers(spec, entry)}

    def run_split(self, job: dict, partition: str, split: int, data, train, test, output, n_jobs: int):
        """One repetition. Its seed (the nested training subsets, the estimator's ``random_state``)
        depends on the data and the repetition only, so every method and experiment on the same data
        sees the same subsets."""
        from ..core.io import provenance_attrs
        from ..data.splits import derived_seed
        from ..engine.registry import estimator_factory, factory_tags

        samples = job.get("split_source", job["dataset"])
        seed = derived_seed(job["seed"], "train_test", samples, partition, split)
        spec, pca_first = job_method(job), job["method_spec"].get("pca_first")
        limit = spec.max_components(n_samples=len(train), n_classes=len(np.unique(data.y[train])),
                                    n_features=min(data.X.shape[1], pca_first or data.X.shape[1]))
        # a method whose columns are not ordered is fitted at every dimension
        options = {"raw": not spec.projects, "seeded": "random_state" in spec.params,
                   "max_components": limit, "nested": job.get("nested", True) and spec.ordered,
                   "training_subset": factory_tags(spec, pca_first).training_subset}
        result = run_repetition(
            {**job, **options}, estimator_factory(spec, job["method_spec"].get("fixed", {}), pca_first),
            data.X[train], data.y[train], data.X[test], data.y[test], seed, n_jobs=n_jobs,
        )
        meta = {"experiment": job["experiment"], "dataset": job["dataset"], "m": partition_size(partition),
                "method": job["method"], "split": split}
        write_repetition(output, result, job, meta, provenance_attrs(job, seed=seed))

    # the aggregation (CurveAggregation): what each of its steps holds
    published_columns = ("dataset", "method", "classifier", "x", "error", "source")
    rounded_columns, rounded_decimals = ("published", "ours_mean", "ours_std", "difference"), 1

    def read_results(self, spec: dict, paths) -> pd.DataFrame:
        return pd.concat([read_repetition(path) for path in paths], ignore_index=True)

    summarise = staticmethod(curve_summary)
    write_tables = staticmethod(write_tables)
    read_published = staticmethod(read_published)
    comparison = staticmethod(comparison)
    curve_figure = staticmethod(curve_figure)

    def fidelity_points(self, comparison: pd.DataFrame, notes=None):
        """Each published point of a curve (dataset, method, classifier, n): the test error (%), ours
        with its std over the repetitions."""
        found = Points()
        for r in comparison.itertuples(index=False):
            found.points.append(FidelityPoint(
                float(r.published), float(r.ours_mean), f"{r.dataset} n{r.x} {r.method}+{r.classifier}", None,
                number(r.ours_std), stand_in(r, notes), "test error (%)", dataset=str(r.dataset)))
        return found

    def aggregate_more(self, summary: pd.DataFrame, spec: dict, out_dir: Path, experiment: str, notes=None) -> None:
        """``crossover.csv`` and ``.md`` with ``published_crossover`` (:func:`crossovers`)."""
        if spec.get("published_crossover"):
            write_crossovers(crossovers(summary, read_published(spec["published_crossover"], experiment), spec),
                             out_dir, notes)


PROTOCOL = TrainTestCurve()
