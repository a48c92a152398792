# Config validation and the small input functions the other rule files use.
from pathlib import Path

from snakemake.utils import validate

from locproj.experiments import (
    check_experiments,
    data_notes,
    experiment_jobs,
    job_config,
    result_path,
    split_blocks,
    split_source,
)

validate(config, schema="../schemas/config.schema.yaml")
check_experiments(config)

DATASETS = config["datasets"]
VIEWS = config.get("views", {})
MIRROR = config.get("data_mirror")
NAME_PATTERN = "[A-Za-z0-9_]+"


wildcard_constraints:
    dataset=NAME_PATTERN,
    view=NAME_PATTERN,
    m=r"\d+",


def dataset_files(name):
    return [f["name"] for f in DATASETS[name].get("files", [])]


def file_spec(dataset, name):
    return next(f for f in DATASETS[dataset]["files"] if f["name"] == name)


def raw_paths(wildcards):
    return [
        f"data/raw/{wildcards.dataset}/{name}"
        for name in dataset_files(wildcards.dataset)
    ]


def available_offline(name):
    """True when no download is needed: no files, or all of them in the data mirror."""
    files = dataset_files(name)
    return not files or (
        MIRROR is not None and all((Path(MIRROR) / f).is_file() for f in files)
    )


def buildable_datasets():
    """With a mirror: every dataset it can build. Without: every non-optional dataset."""
    if MIRROR is not None:
        return [name for name in DATASETS if available_offline(name)]
    return [name for name, spec in DATASETS.items() if not spec.get("optional", False)]


def data_file(name):
    """The HDF5 file holding a dataset or a view."""
    if name in DATASETS:
        return f"data/processed/{name}.h5"
    if name in VIEWS:
        return f"data/views/{name}.h5"
    raise ValueError(f"{name!r} is neither a dataset nor a view in the config")


def split_file(name, m):
    """A view that keeps its dataset's samples uses the dataset's splits (split_source)."""
    name = split_source(config, name)
    suffix = "holdout" if m == "holdout" else f"m{m}"
    return f"results/splits/{name}_{suffix}.h5"


def split_targets():
    return [
        split_file(name, m)
        for name, ms in config.get("split_targets", {}).items()
        for m in ms
    ]


def all_targets():
    return [data_file(name) for name in buildable_datasets()] + split_targets()


def experiment_results(experiment):
    return [
        result_path(experiment, *job) for job in experiment_jobs(config, experiment)
    ]


def table_name(experiment):
    return config["experiments"][experiment].get("table_name", "table")


def experiment_outputs(experiment):
    return [
        f"results/{experiment}/{table_name(experiment)}.md",
        f"results/{experiment}/comparison.md",
    ]
