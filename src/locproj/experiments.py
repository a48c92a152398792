"""Experiments declared in the config: their jobs, one job's run, and the aggregation.

The job engine of the split protocols (``cv_table``, ``dimension_curve``; :mod:`locproj.protocols`).
A result is one (experiment, dataset, partition, split, method): the method's whole
cross-validation (locproj.selection) and its test error, in one file. A partition is ``m5`` (5
training samples per class) or ``f0.25`` (a quarter of each class, rounded half up). A job computes a block of consecutive splits
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


def partition_key(size) -> str:
    """``'m5'`` for 5 training samples per class, ``'f0.25'`` for a fraction of each class."""
    if isinstance(size, bool) or not isinstance(size, (int, float, np.integer, np.floating)):
        raise ValueError(f"a training size is a count per class or a fraction in (0, 1), got {size!r}")
    if float(size).is_integer() and size >= 1:
        return f"m{int(size)}"
    if 0 < size < 1:
        return f"f{float(size):g}"
    raise ValueError(f"a training size is a count per class (>= 1) or a fraction in (0, 1), got {size!r}")


def partition_size(key: str) -> int | float:
    """Inverse of :func:`partition_key`: an int count per class or a float fraction."""
    return int(key[1:]) if key.startswith("m") else float(key[1:])


def experiment_jobs(config: dict, experiment: str):
    """Every (dataset, partition, method, split) of an experiment, in a stable order."""
    spec = config["experiments"][experiment]
    for dataset, sizes in spec["datasets"].items():
        for size in sizes:
            for method in spec["methods"]:
                for split in range(n_splits(config, experiment)):
                    yield dataset, partition_key(size), method, split


def n_splits(config: dict, experiment: str) -> int:
    return config["experiments"][experiment].get("n_splits", config.get("n_splits", 20))


def split_blocks(config: dict, experiment: str) -> list[list[int]]:
    """The splits of an experiment in blocks of ``splits_per_job`` consecutive ones (one job each)."""
    size = config["experiments"][experiment].get("splits_per_job", 1)
    splits = list(range(n_splits(config, experiment)))
    return [splits[start:start + size] for start in range(0, len(splits), size)]


def split_source(config: dict, name: str) -> str:
    """The dataset whose splits ``name`` uses: a view that keeps every sample (no ``relabel`` or ``sample``) shares
    its dataset's splits and CV folds; anything else has its own."""
    view = config.get("views", {}).get(name)
    if view is None or view.get("relabel") or view.get("sample"):
        return name
    return split_source(config, view["dataset"])


def split_path(config: dict, name: str, partition: str, n: int | None = None, by_group: dict | None = None) -> str:
    """The split file that ``name`` (a dataset or view) uses for ``partition`` and ``n`` splits.

    ``{source}_m5.h5`` holds the config's ``n_splits`` splits (Table 2's files); an experiment
    needing more, or a fraction partition, has ``{source}_{partition}_n{n}.h5``. Both draw their
    splits in the same seeded sequence, so the first ``n_splits`` of a longer file equal the
    shorter file's. ``holdout`` is the LPK protocol's file; ``{source}_holdout_t2f8.h5`` its variant
    ``by_group`` (2 test samples per group, 8 folds: :func:`locproj.data.splits.grouped_holdout_split`).
    """
    source = split_source(config, name)
    if partition == "holdout" and by_group:
        return f"results/splits/{source}_holdout_t{by_group['test_per_group']}f{by_group['n_folds']}.h5"
    if partition == "holdout":
        return f"results/splits/{source}_holdout.h5"
    if partition.startswith("m") and (n is None or n <= config.get("n_splits", 20)):
        return f"results/splits/{source}_{partition}.h5"
    return f"results/splits/{source}_{partition}_n{n}.h5"


def replace_experiments(config: dict) -> dict:
    """Apply the config's ``replace_experiments`` (experiment name -> a complete definition) in place.

    Snakemake merges ``--configfile`` overlays into ``config/config.yaml`` key by key, so an overlay
    can add datasets, methods or grid values to an experiment but never remove one. An experiment
    named under ``replace_experiments`` is instead replaced wholesale by the definition given there
    (a copy of it): nothing of the merged definition is kept. Applied before the schema validation
    and :func:`check_experiments`, which then check the replacement like any experiment. A name that
    is not an experiment of ``experiments:`` is a ``ValueError`` naming it (a new experiment belongs
    under ``experiments:``). Returns ``config``.
    """
    import copy

    replacements = config.get("replace_experiments") or {}
    if not isinstance(replacements, dict):
        raise ValueError(f"replace_experiments must map experiment names to definitions, got {replacements!r}")
    experiments = config.get("experiments") or {}
    unknown = sorted(set(replacements) - set(experiments))
    if unknown:
        raise ValueError(f"replace_experiments: {', '.join(map(repr, unknown))} "
                         f"{'is not an experiment' if len(unknown) == 1 else 'are not experiments'} of the "
                         f"config (`experiments:`); a new experiment belongs under `experiments:`")
    for name, spec in replacements.items():
        if not isinstance(spec, dict):
            raise ValueError(f"replace_experiments: {name!r} must be a complete experiment definition "
                             f"(a mapping), got {spec!r}")
        experiments[name] = copy.deepcopy(spec)
    return config


def check_experiments(config: dict) -> None:
    """Fail at start-up, naming the experiment, on an unknown dataset, method or parameter."""
    from .registry import make_estimator

    from .protocols import SPLIT_PROTOCOLS, embedding, holdout, protocol_of, train_test

    known_data = set(config["datasets"]) | set(config.get("views", {}))
    for name, spec in config.get("experiments", {}).items():
        split_protocol = protocol_of(spec) in SPLIT_PROTOCOLS
        used = spec["datasets"] if split_protocol else {panel["dataset"] for panel in spec["panels"].values()}
        unknown = sorted(set(used) - known_data)
        if unknown:
            raise ValueError(f"experiment {name!r}: unknown datasets or views {unknown}")
        if not split_protocol:
            try:
                embedding.check_spec(spec)
            except ValueError as error:
                raise ValueError(f"experiment {name!r}, {error}") from error
            continue
        checks = {"train_test_curve": train_test.check_spec, "holdout_curve": holdout.check_spec}
        if protocol_of(spec) in checks:
            try:
                checks[protocol_of(spec)](spec)
            except ValueError as error:
                raise ValueError(f"experiment {name!r}: {error}") from error
        for method, method_spec in spec["methods"].items():
            params = {**(method_spec or {}).get("fixed", {}), **dict.fromkeys((method_spec or {}).get("grid", {}))}
            try:
                make_estimator(train_test.method_name(method, method_spec), **params)
            except (ValueError, NotImplementedError) as error:
                raise ValueError(f"experiment {name!r}, method {method!r}: {error}") from error


def expand_targets(targets: dict, experiments) -> dict[str, list[str]]:
    """The experiments each target of the config's ``targets:`` runs, in order, without repeats.

    A target names experiments or other targets (``papers`` names ``lea_paper``, …); a target is
    expanded recursively. A name that is an experiment is that experiment, so a target named after its
    one experiment (``matrix: [matrix]``) is not a cycle; such a target may name nothing else (it and
    the experiment are one rule). An unknown name or a cycle is a ``ValueError`` naming the targets
    involved, raised before any job runs.
    """
    expanded: dict[str, list[str]] = {}

    def expand(target: str, path: tuple[str, ...]) -> list[str]:
        if target in path:
            raise ValueError(f"targets form a cycle: {' -> '.join((*path[path.index(target):], target))}")
        if target not in expanded:
            names = targets[target]
            if target in experiments and list(names) != [target]:
                raise ValueError(f"target {target!r} has an experiment's name, so it can name only that "
                                 f"experiment, not {list(names)}: rename the target")
            found: list[str] = []
            for name in names:
                if name in experiments:
                    found.append(name)
                elif name in targets:
                    found.extend(expand(name, (*path, target)))
                else:
                    raise ValueError(f"target {target!r}: {name!r} is neither an experiment nor a target "
                                     f"(the config's `experiments:` and `targets:`)")
            expanded[target] = list(dict.fromkeys(found))
        return expanded[target]

    return {target: expand(target, ()) for target in targets}


def report_categories(targets: dict, experiments) -> dict[str, str]:
    """The report page (Snakemake's ``category``) of every experiment: its paper, i.e. the first target
    of ``targets:`` that names it, leaving out targets that name other targets (``papers``); an
    experiment in no such target has a page of its own name."""
    category = {}
    for target, names in targets.items():
        if any(name in targets and name not in experiments for name in names):
            continue     # a collection of papers, not a paper
        for name in names:
            if name in experiments:
                category.setdefault(name, target)
    return {experiment: category.get(experiment, experiment) for experiment in experiments}


def result_path(experiment: str, dataset: str, partition: str, method: str, split: int) -> str:
    return f"results/{experiment}/{dataset}/{partition}/{method}/split{split:02d}.h5"


def job_config(config: dict, experiment: str, dataset: str, method: str, block=None) -> dict:
    """Everything one job depends on (passed to it as its params, and hashed into its provenance);
    ``block``: the r values of a ``holdout_curve`` job."""
    from .protocols import holdout, protocol_of

    spec = config["experiments"][experiment]
    if protocol_of(spec) == "holdout_curve":
        return holdout.job_config(config, experiment, dataset, method, block)
    source = split_source(config, dataset)
    shared = {"split_source": source} if source != dataset else {}
    # cv_table jobs carry no protocol key, so that Table 2's job parameters and provenance stay as they were
    curve = {"test_curve": True} if protocol_of(spec) == "dimension_curve" else {}
    if protocol_of(spec) == "train_test_curve":
        curve = train_test_job(spec, method)
    return {
        "seed": config["seed"], "experiment": experiment, "dataset": dataset, "method": method, **shared,
        "method_spec": spec["methods"][method] or {},
        "n_folds": spec.get("n_folds", 5), "classifier": spec.get("classifier", "1nn"),
        "classifier_params": spec.get("classifier_params") or {}, "p_max": spec.get("p_max", 300), **curve,
    }


def train_test_job(spec: dict, method: str) -> dict:
    """The ``train_test_curve`` keys of a job: protocol, registry method, sweep and classifiers."""
    from .protocols import train_test

    entry = spec["methods"][method] or {}
    return {"protocol": "train_test_curve", "registry_method": train_test.method_name(method, entry),
            "x": spec["x"], "values": list(spec["values"]), "subset": entry.get("subset", "random"),
            "nested": entry.get("nested", True),
            "classifiers": train_test.curve_classifiers(spec, entry)}


def make_factory(method: str, fixed: dict):
    from .registry import make_estimator

    def make(params):
        return make_estimator(method, **{**fixed, **params})
    return make


def run_configured_job(job: dict, partition: str, splits, data_path, splits_path, outputs, n_jobs: int = 1):
    """Run the splits ``splits`` of one job (``job`` from :func:`job_config``) on ``partition``
    (:func:`partition_key`), writing the result of ``splits[i]`` to ``outputs[i]``
    (locproj.selection); each file is complete once it exists."""
    from .data import read_dataset_file, read_splits

    if len(splits) != len(outputs):
        raise ValueError(f"{len(splits)} splits but {len(outputs)} output files")
    data = read_dataset_file(data_path)
    parts = read_splits(splits_path)
    if job.get("protocol") == "holdout_curve":
        _run_holdout(job, data, parts, outputs[0])
        return
    run = _run_repetition if job.get("protocol") == "train_test_curve" else _run_split
    for split, output in zip(splits, outputs):
        run(job, partition, split, data, parts["train"][split], parts["test"][split], output, n_jobs)


def _run_repetition(job: dict, partition: str, split: int, data, train, test, output, n_jobs: int):
    """One repetition of the ``train_test_curve`` protocol (:mod:`locproj.protocols.train_test`).

    Its seed (the nested training subsets, the estimator's ``random_state``) depends on the data and
    the repetition only, so every method and experiment on the same data sees the same subsets."""
    from ._io import provenance_attrs
    from .data.splits import derived_seed
    from .protocols import train_test
    from .registry import METHODS, max_components
    from .selection import RAW_METHOD

    samples = job.get("split_source", job["dataset"])
    seed = derived_seed(job["seed"], "train_test", samples, partition, split)
    fixed, method = job["method_spec"].get("fixed", {}), job["registry_method"]
    limit = max_components(method, n_samples=len(train), n_classes=len(np.unique(data.y[train])),
                           n_features=data.X.shape[1])
    options = {"raw": method == RAW_METHOD, "seeded": "random_state" in METHODS[method].params,
               "max_components": limit}
    result = train_test.run_repetition(
        {**job, **options}, make_factory(method, fixed),
        data.X[train], data.y[train], data.X[test], data.y[test], seed, n_jobs=n_jobs,
    )
    meta = {"experiment": job["experiment"], "dataset": job["dataset"], "m": partition_size(partition),
            "method": job["method"], "split": split}
    train_test.write_repetition(output, result, job, meta, provenance_attrs(job, seed=seed))


def _run_holdout(job: dict, data, parts: dict, output) -> None:
    """One job of the ``holdout_curve`` protocol (:mod:`locproj.protocols.holdout`): the ten 5×2 CV
    folds and the test third of ``parts``, every r of the job's block and every C.

    A classifier's ``random_state`` of fold ``k`` depends on the data and ``k`` only, so every
    method entry, r and C of a fold starts from the same seed."""
    from ._io import provenance_attrs
    from .data.splits import derived_seed
    from .protocols import holdout
    from .registry import max_components

    samples = job.get("split_source", job["dataset"])
    method = job["registry_method"]
    kind = holdout.method_kind(method)
    folds = parts["folds"]
    seeds = [derived_seed(job["seed"], "holdout", samples, k) % 2**32 for k in range(len(folds))]
    limit = min(max_components(method, n_samples=len(fit), n_classes=len(np.unique(data.y[fit])),
                               n_features=data.X.shape[1]) for fit, _ in folds)
    result = holdout.run_holdout({**job, "kind": kind}, make_factory(method, job["fixed"]), data.X, data.y, folds,
                                 parts["test"][0], seeds, limit=limit)
    meta = {"experiment": job["experiment"], "dataset": job["dataset"], "method": job["method"], "kind": kind}
    holdout.write_job(output, result, job, meta, provenance_attrs(job, seed=seeds[0]))


def _run_split(job: dict, partition: str, split: int, data, train, test, output, n_jobs: int):
    from ._io import provenance_attrs
    from .data.splits import derived_seed
    from .selection import RAW_METHOD, run_job, write_result

    method = job["method"]
    samples = job.get("split_source", job["dataset"])
    size = partition_size(partition)
    # a count per class seeds by the int (as Table 2 always has), a fraction by its key
    fold_seed = derived_seed(job["seed"], job["experiment"], samples, size if partition.startswith("m") else partition,
                             split) % (2**32)
    m = size if partition.startswith("m") else None    # None: the smallest class count of the training part

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
        test_curve=job.get("test_curve", False),
        meta={"experiment": job["experiment"], "dataset": job["dataset"], "m": size, "split": split},
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


def experiment_notes(config: dict, experiment: str) -> dict[str, str]:
    """:func:`data_notes` for the datasets an experiment uses, joined with the experiment's own
    ``data_notes`` (how its paper's copy of a dataset differs from ours, e.g. another crop)."""
    from .protocols import SPLIT_PROTOCOLS, protocol_of

    spec = config["experiments"][experiment]
    if protocol_of(spec) in SPLIT_PROTOCOLS:
        names = list(spec["datasets"])
    else:
        names = list(dict.fromkeys(panel["dataset"] for panel in spec["panels"].values()))
    notes = data_notes(config, names)
    for name, text in (spec.get("data_notes") or {}).items():
        notes[name] = "; ".join(part for part in (notes.get(name), " ".join(text.split())) if part)
    return notes


def write_metadata(path: Path, spec: dict, seed) -> None:
    """The experiment's configuration, seed, config hash and package versions, as YAML."""
    import yaml

    from ._io import atomic_path, config_hash, package_versions

    metadata = {"seed": seed, "config_hash": config_hash(spec), "versions": package_versions(), "experiment": spec}
    with atomic_path(path) as tmp:
        tmp.write_text(yaml.safe_dump(metadata, sort_keys=True, allow_unicode=True))
