"""Experiments declared in the config: their jobs, one job's run, and the aggregation.

A result is one (experiment, dataset, m, split, method): the method's whole cross-validation
(locproj.selection) and its test error, in one file. A job computes a block of consecutive splits
(``splits_per_job``) in one process, so that the interpreter and library start-up (about 1.8 s, most
of it importing scikit-learn) is paid once per block rather than once per split; the results do not
depend on the blocking. Every random choice is derived from the config's master seed: the splits from
(dataset, m), the CV folds from (experiment, dataset, m, split) — so all methods of a split see the
same folds. A view that keeps the samples of its dataset (no ``relabel``) shares the dataset's
splits and folds, so the two can be compared split by split.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def experiment_jobs(config: dict, experiment: str):
    """Every (dataset, m, method, split) of an experiment, in a stable order."""
    spec = config["experiments"][experiment]
    for dataset, ms in spec["datasets"].items():
        for m in ms:
            for method in spec["methods"]:
                for split in range(n_splits(config, experiment)):
                    yield dataset, int(m), method, split


def n_splits(config: dict, experiment: str) -> int:
    return config["experiments"][experiment].get("n_splits", config.get("n_splits", 20))


def split_blocks(config: dict, experiment: str) -> list[list[int]]:
    """The splits of an experiment in blocks of ``splits_per_job`` consecutive ones (one job each)."""
    size = config["experiments"][experiment].get("splits_per_job", 1)
    splits = list(range(n_splits(config, experiment)))
    return [splits[start:start + size] for start in range(0, len(splits), size)]


def split_source(config: dict, name: str) -> str:
    """The dataset whose splits ``name`` uses: a view that keeps every sample (no ``relabel``) shares
    its dataset's splits and CV folds; anything else has its own."""
    view = config.get("views", {}).get(name)
    if view is None or view.get("relabel"):
        return name
    return split_source(config, view["dataset"])


def check_experiments(config: dict) -> None:
    """Fail at start-up, naming the experiment, on an unknown dataset, method or parameter."""
    from .registry import make_estimator

    known_data = set(config["datasets"]) | set(config.get("views", {}))
    for name, spec in config.get("experiments", {}).items():
        unknown = sorted(set(spec["datasets"]) - known_data)
        if unknown:
            raise ValueError(f"experiment {name!r}: unknown datasets or views {unknown}")
        for method, method_spec in spec["methods"].items():
            params = {**(method_spec or {}).get("fixed", {}), **dict.fromkeys((method_spec or {}).get("grid", {}))}
            try:
                make_estimator(method, **params)
            except (ValueError, NotImplementedError) as error:
                raise ValueError(f"experiment {name!r}, method {method!r}: {error}") from error


def result_path(experiment: str, dataset: str, m: int, method: str, split: int) -> str:
    return f"results/{experiment}/{dataset}/m{m}/{method}/split{split:02d}.h5"


def job_config(config: dict, experiment: str, dataset: str, method: str) -> dict:
    """Everything one job depends on (passed to it as its params, and hashed into its provenance)."""
    spec = config["experiments"][experiment]
    source = split_source(config, dataset)
    shared = {"split_source": source} if source != dataset else {}
    return {
        "seed": config["seed"], "experiment": experiment, "dataset": dataset, "method": method, **shared,
        "method_spec": spec["methods"][method] or {},
        "n_folds": spec.get("n_folds", 5), "classifier": spec.get("classifier", "1nn"),
        "classifier_params": spec.get("classifier_params") or {}, "p_max": spec.get("p_max", 300),
    }


def make_factory(method: str, fixed: dict):
    from .registry import make_estimator

    def make(params):
        return make_estimator(method, **{**fixed, **params})
    return make


def run_configured_job(job: dict, m: int, splits, data_path, splits_path, outputs, n_jobs: int = 1):
    """Run the splits ``splits`` of one job (``job`` from :func:`job_config``), writing the result of
    ``splits[i]`` to ``outputs[i]`` (locproj.selection); each file is complete once it exists."""
    from .data import read_dataset_file, read_splits

    if len(splits) != len(outputs):
        raise ValueError(f"{len(splits)} splits but {len(outputs)} output files")
    data = read_dataset_file(data_path)
    parts = read_splits(splits_path)
    for split, output in zip(splits, outputs):
        _run_split(job, m, split, data, parts["train"][split], parts["test"][split], output, n_jobs)


def _run_split(job: dict, m: int, split: int, data, train, test, output, n_jobs: int):
    from ._io import provenance_attrs
    from .data.splits import derived_seed
    from .selection import RAW_METHOD, run_job, write_result

    method = job["method"]
    samples = job.get("split_source", job["dataset"])
    fold_seed = derived_seed(job["seed"], job["experiment"], samples, m, split) % (2**32)

    def p_limit(X, y):
        # imported here: it needs scikit-learn, which the raw method never loads
        from .registry import max_components

        return max_components(method, n_samples=len(X), n_classes=len(np.unique(y)), n_features=X.shape[1])

    result = run_job(
        data.X[train], data.y[train], data.X[test], data.y[test],
        method=method,
        make=None if method == RAW_METHOD else make_factory(method, job["method_spec"].get("fixed", {})),
        grid_spec=job["method_spec"].get("grid"), m=m, p_max=job["p_max"], p_limit=p_limit,
        classifier=job["classifier"], classifier_params=job["classifier_params"],
        n_folds=job["n_folds"], seed=fold_seed, test_indices=test, n_jobs=n_jobs,
        meta={"experiment": job["experiment"], "dataset": job["dataset"], "m": m, "split": split},
    )
    write_result(Path(output), result, provenance_attrs(job, seed=fold_seed))
    return result


def data_notes(config: dict, names) -> dict[str, str]:
    """How the data of each dataset or view in ``names`` differ from the paper's: the ``note`` of the
    view and of every dataset it derives from, joined; names without one are left out."""
    notes = {}
    for name in names:
        parts, current = [], name
        while current is not None:
            entry = config.get("views", {}).get(current) or config["datasets"].get(current, {})
            parts.append(entry.get("note", ""))
            current = entry.get("dataset") if current in config.get("views", {}) else None
        if any(parts):
            notes[name] = "; ".join(" ".join(p.split()) for p in parts if p)
    return notes


def aggregate_experiment(spec: dict, result_paths, out_dir, seed=None, notes=None) -> None:
    """Tables, comparison with the published numbers, CV-curve figures and run metadata; ``notes``
    (:func:`data_notes`) say in each of them where the public data differ from the paper's."""
    from . import aggregate

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
    write_metadata(Path(out_dir) / "metadata.yaml", spec, seed)


def write_metadata(path: Path, spec: dict, seed) -> None:
    """The experiment's configuration, seed, config hash and package versions, as YAML."""
    import yaml

    from ._io import atomic_path, config_hash, package_versions

    metadata = {"seed": seed, "config_hash": config_hash(spec), "versions": package_versions(), "experiment": spec}
    with atomic_path(path) as tmp:
        tmp.write_text(yaml.safe_dump(metadata, sort_keys=True, allow_unicode=True))
