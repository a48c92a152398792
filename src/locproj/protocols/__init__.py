"""Experiment protocols: what the jobs of an experiment compute, and how they are aggregated.

An experiment names its ``protocol`` in the config (default ``cv_table``):

``cv_table`` (:mod:`.table`)
    Per-class random splits, the inner cross-validation of :mod:`locproj.selection` choosing the
    hyper-parameters and p, then the test error at the chosen p: Table 2 of paper 000.
``dimension_curve`` (:mod:`.curve`)
    The same jobs on per-class partitions (a count or a fraction of each class), also recording
    the test error of the refitted projection at every dimension: Fig. 4 of paper 001.
``train_test_curve`` (:mod:`.train_test`)
    Fixed hyper-parameters, no CV: per partition (a repetition), the test error of each method and
    classifier against a swept dimension or training-set size: Figs. 5-6 of paper 004.
``holdout_curve`` (:mod:`.holdout`)
    The LPK paper's split (a stratified third for test, 5×2 CV on the rest): C chosen by validation
    accuracy per method and projected dimension r, then test accuracy and % support vectors over
    the ten fold models: Figs. 8-10 of paper 002.
``embedding`` (:mod:`.embedding`)
    One fit per panel, training and novel points mapped to 2-D or 3-D and drawn, basis vectors drawn
    as images: Figs. 1-3 of paper 001.

The split protocols share the job engine of :mod:`locproj.experiments` (splits, blocks,
seeds) and the CV and evaluation core (:mod:`locproj.selection`, :mod:`locproj.evaluation`); a
protocol module adds only what differs.
"""

PROTOCOLS = ("cv_table", "dimension_curve", "train_test_curve", "holdout_curve", "embedding")

#: Protocols whose jobs are (dataset, partition, method, block of splits).
SPLIT_PROTOCOLS = ("cv_table", "dimension_curve", "train_test_curve", "holdout_curve")


def protocol_of(spec: dict) -> str:
    """The protocol an experiment's config entry names."""
    name = spec.get("protocol", "cv_table")
    if name not in PROTOCOLS:
        raise ValueError(f"unknown protocol {name!r}; use one of {PROTOCOLS}")
    return name


def aggregate(spec: dict, inputs, out_dir, seed=None, notes=None) -> None:
    """Aggregate an experiment's job outputs into ``out_dir`` by its protocol: ``inputs`` are the
    result files (split protocols) or ``{panel: file}`` (embedding); ``notes`` say where the
    public data differ from the paper's (:func:`locproj.experiments.data_notes`)."""
    name = protocol_of(spec)
    if name == "cv_table":
        from .table import aggregate_table as run
    elif name == "dimension_curve":
        from .curve import aggregate_curves as run
    elif name == "train_test_curve":
        from .train_test import aggregate_train_test as run
    elif name == "holdout_curve":
        from .holdout import aggregate_holdout as run
    else:
        from .embedding import aggregate_embedding as run
    run(spec, inputs, out_dir, seed=seed, notes=notes)
