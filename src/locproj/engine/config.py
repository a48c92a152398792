"""Helpers that read an experiment's config and nothing else: partitions, splits and their files,
targets, report pages and the notes on the data.

This module sits below the engine (:mod:`locproj.experiments`) and the protocols
(:mod:`locproj.protocols`): it imports neither, so both (and the Snakemake rules) can use it.
"""

from __future__ import annotations

import re

import numpy as np

from ..errors import ConfigError

#: The names of datasets, views, methods and panels in paths and wildcards.
NAME_PATTERN = "[A-Za-z0-9_]+"

#: The registry name of ``raw``, the classifier on the input; code asks ``MethodSpec.projects`` instead,
#: but a raw split job knows itself by this name so that it never imports the registry (split_jobs).
RAW_METHOD = "raw"


def one_of(paths: list[str]) -> str:
    """A regular expression (a wildcard's constraint) that matches exactly the ``/``-separated
    ``paths``, as the tree of their parts (so that it matches in the time of a path's depth, not of
    the number of paths)."""
    tree: dict = {}
    for path in paths:
        node = tree
        for part in path.split("/"):
            node = node.setdefault(part, {})

    def alternatives(node: dict) -> str:
        parts = [re.escape(part) + (f"/{alternatives(rest)}" if rest else "") for part, rest in node.items()]
        return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"

    return alternatives(tree)


def partition_key(size) -> str:
    """``'m5'`` for 5 training samples per class, ``'f0.25'`` for a fraction of each class."""
    if isinstance(size, bool) or not isinstance(size, (int, float, np.integer, np.floating)):
        raise ConfigError(f"a training size is a count per class or a fraction in (0, 1), got {size!r}")
    if float(size).is_integer() and size >= 1:
        return f"m{int(size)}"
    if 0 < size < 1:
        return f"f{float(size):g}"
    raise ConfigError(f"a training size is a count per class (>= 1) or a fraction in (0, 1), got {size!r}")


def partition_size(key: str) -> int | float:
    """Inverse of :func:`partition_key`: an int count per class or a float fraction."""
    return int(key[1:]) if key.startswith("m") else float(key[1:])


def n_splits(config: dict, experiment: str) -> int:
    return config["experiments"][experiment].get("n_splits", config.get("n_splits", 20))


def consecutive_blocks(n: int, size: int) -> list[list[int]]:
    """0 … n − 1 in consecutive blocks of ``size`` (the last may be shorter)."""
    return [list(range(start, min(start + size, n))) for start in range(0, n, size)]


#: The sizes of a block of splits within a cell: each divides 10, so that every block lies within one
#: decade of split numbers (splits 10-14, never 8-12) and one Snakemake rule, with the decade as its
#: wildcard, computes every block of the same shape (``workflow/rules/experiments.smk``).
BLOCK_SIZES = (10, 5, 1)


def aligned_blocks(n: int, most: int) -> list[list[int]]:
    """0 … n − 1 in blocks of at most ``most`` splits: all in one when they are at most 10 and fit,
    else in consecutive blocks of the largest size of :data:`BLOCK_SIZES` that divides ``n``."""
    if n <= min(most, 10):
        return [list(range(n))]
    return consecutive_blocks(n, next(size for size in BLOCK_SIZES if size <= most and n % size == 0))


def split_blocks(config: dict, experiment: str) -> list[list[int]]:
    """The splits of an experiment in blocks of at most an integer ``splits_per_job``
    (:func:`aligned_blocks`; one job each; ``auto`` sizes the blocks of each cell by cost:
    :mod:`locproj.engine.job_costs`)."""
    spec = config["experiments"][experiment]
    return aligned_blocks(n_splits(config, experiment), spec.get("splits_per_job", 1))


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


#: The part of a split file's name after its dataset's (:func:`split_path`): ``m5``, ``m5_n100``,
#: ``f0.25_n20``, ``holdout`` or ``holdout_t2f8``.
SPLIT_LAYOUT_PATTERN = r"m\d+|(?:m\d+|f0\.\d+)_n\d+|holdout(?:_t\d+f\d+)?"


def split_layout(config: dict, layout: str) -> dict:
    """What the split file of ``layout`` (:data:`SPLIT_LAYOUT_PATTERN`) holds: its ``partition``,
    ``n_splits`` and, for a holdout by group, ``by_group``; inverse of :func:`split_path`."""
    if match := re.fullmatch(r"holdout(?:_t(\d+)f(\d+))?", layout):
        by_group = {"test_per_group": int(match[1]), "n_folds": int(match[2])} if match[1] else None
        return {"partition": "holdout", "n_splits": 1, "by_group": by_group}
    partition, _, count = layout.partition("_n")
    return {"partition": partition, "n_splits": int(count) if count else config.get("n_splits", 20), "by_group": None}


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
        raise ConfigError(f"replace_experiments must map experiment names to definitions, got {replacements!r}")
    experiments = config.get("experiments") or {}
    unknown = sorted(set(replacements) - set(experiments))
    if unknown:
        raise ConfigError(f"replace_experiments: {', '.join(map(repr, unknown))} "
                         f"{'is not an experiment' if len(unknown) == 1 else 'are not experiments'} of the "
                         f"config (`experiments:`); a new experiment belongs under `experiments:`")
    for name, spec in replacements.items():
        if not isinstance(spec, dict):
            raise ConfigError(f"replace_experiments: {name!r} must be a complete experiment definition "
                             f"(a mapping), got {spec!r}")
        experiments[name] = copy.deepcopy(spec)
    return config


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
            raise ConfigError(f"targets form a cycle: {' -> '.join((*path[path.index(target):], target))}")
        if target not in expanded:
            names = targets[target]
            if target in experiments and list(names) != [target]:
                raise ConfigError(f"target {target!r} has an experiment's name, so it can name only that "
                                 f"experiment, not {list(names)}: rename the target")
            found: list[str] = []
            for name in names:
                if name in experiments:
                    found.append(name)
                elif name in targets:
                    found.extend(expand(name, (*path, target)))
                else:
                    raise ConfigError(f"target {target!r}: {name!r} is neither an experiment nor a target "
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


def data_file(config: dict, name: str) -> str:
    """The HDF5 file holding a dataset or a view."""
    if name in config["datasets"]:
        return f"data/processed/{name}.h5"
    if name in config.get("views", {}):
        return f"data/views/{name}.h5"
    raise ConfigError(f"{name!r} is neither a dataset nor a view in the config")


def method_folders(config: dict) -> list[str]:
    """The folders where a method entry's ``estimator: "module:Class"`` is looked for as
    ``module.py`` (``method_paths``; the rules default it to the config files' folders and the
    working directory)."""
    return list(config.get("method_paths") or ["."])


def registry_method(entry_name: str, entry: dict | None) -> str:
    """The registry name of a method entry: its ``method`` key, else the entry's own name."""
    return (entry or {}).get("method", entry_name)


def rule_targets(targets: dict[str, list[str]], experiments) -> dict[str, list[str]]:
    """The target rules: every target (``targets``: target -> its experiments, expanded), and every
    experiment that none of them names, as a target of itself."""
    named = {experiment for members in targets.values() for experiment in members}
    return {**targets, **{experiment: [experiment] for experiment in experiments if experiment not in named}}


def paper_targets(targets: dict, experiments) -> dict[str, list[str]]:
    """The targets of ``targets:`` that are a paper, with their experiments: each names experiments
    only (not ``papers``, which names targets) and is not an experiment's own target (``matrix:
    [matrix]``). Their names are the report's pages (:func:`report_categories`)."""
    return {target: [name for name in names if name in experiments] for target, names in targets.items()
            if target not in experiments and not any(name in targets and name not in experiments for name in names)}


def papers_within(targets: dict, experiments) -> dict[str, list[str]]:
    """The paper targets (:func:`paper_targets`) each target stands for: a paper itself, a target
    naming targets (``papers``) every paper it names, recursively; in order, without repeats.
    Call after :func:`expand_targets`, which refuses cycles."""
    papers = paper_targets(targets, experiments)

    def within(target: str) -> list[str]:
        if target in papers:
            return [target]
        found = [paper for name in targets.get(target, []) if name in targets and name not in experiments
                 for paper in within(name)]
        return list(dict.fromkeys(found))

    return {target: within(target) for target in targets}
