"""Seeded train/test splits, reproducible across machines.

Every random draw uses an explicit ``numpy.random.Generator(PCG64(seed))`` whose seed is derived
from the config's master seed and the split's identity (dataset name, m), never from global state.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np

from ..core.io import reading_h5, writing_h5
from .errors import DataError


def derived_seed(master_seed: int, *parts) -> int:
    """Derive a 63-bit seed from ``master_seed`` and ``parts``, the same on every machine.

    Parameters
    ----------
    master_seed : int
        The config's master seed.
    *parts : str or int
        What the seed is for (a dataset's name, m, ...), each hashed by its text.

    Returns
    -------
    int
        A seed in ``[0, 2**63)``.
    """
    words = [int(master_seed)] + [zlib.crc32(str(p).encode()) for p in parts]
    return int(np.random.SeedSequence(words).generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def _generator(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def per_class_splits(y: np.ndarray, m, n_splits: int, seed: int, class_names=None):
    """Draw ``n_splits`` splits with ``m`` training samples per class and the rest as test.

    A class left with no training or no test sample is an error naming the class.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        The labels.
    m : int or float
        A count per class (int) or a fraction of each class (float in (0, 1)): class ``c`` of
        ``n_c`` samples then gives ``floor(m * n_c + 0.5)`` training samples (rounded half up).
    n_splits : int
        The number of splits.
    seed : int
        The seed of the draws.
    class_names : list of str, optional
        The names of the labels, for messages.

    Returns
    -------
    train : ndarray of shape (n_splits, n_train)
        The training indices of each split, int64, each row sorted.
    test : ndarray of shape (n_splits, n_samples - n_train)
        The test indices of each split, int64, each row sorted.
    """
    classes, counts = np.unique(y, return_counts=True)
    sizes = training_sizes(counts, m)
    small = [(c, n) for c, n, k in zip(classes, counts, sizes) if not 1 <= k < n]
    if small:
        described = ", ".join(f"{_name(c, class_names)} ({n} samples)" for c, n in small)
        raise DataError(
            f"m={m} training samples per class needs a training and a test sample in every class; "
            f"too small: {described}. Choose a smaller m."
        )
    rng = _generator(seed)
    members = [np.flatnonzero(y == c) for c in classes]
    train = np.empty((n_splits, int(sizes.sum())), dtype=np.int64)
    for split in range(n_splits):
        train[split] = np.sort(np.concatenate([rng.permutation(idx)[:k] for idx, k in zip(members, sizes)]))
    test = np.stack([np.setdiff1d(np.arange(len(y)), row) for row in train])
    return train, test


def training_sizes(counts, m) -> np.ndarray:
    """Training samples of each class: ``m`` for a count, ``floor(m * n_c + 0.5)`` for a fraction."""
    counts = np.asarray(counts)
    if isinstance(m, (float, np.floating)) and 0 < m < 1:
        return np.floor(m * counts + 0.5).astype(np.int64)
    return np.full(counts.shape, int(m), dtype=np.int64)


def holdout_split(y: np.ndarray, seed: int, test_fraction: float = 1 / 3, n_repeats: int = 5, n_folds: int = 2):
    """Split by the LPK protocol (paper 002 §6.3): a stratified random third as test.

    The rest is resampled by ``n_repeats`` × ``n_folds`` stratified cross-validation (5×2 by
    default).

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        The labels.
    seed : int
        The seed of the draws.
    test_fraction : float, default=1/3
        The share of each class in the test part (rounded).
    n_repeats : int, default=5
        The repetitions of the cross-validation.
    n_folds : int, default=2
        The folds of each repetition.

    Returns
    -------
    train : ndarray of shape (n_train,)
        The training indices, sorted.
    test : ndarray of shape (n_test,)
        The test indices, sorted.
    folds : list of tuple of ndarray
        ``n_repeats * n_folds`` pairs ``(fit, validation)`` of index arrays into the whole data set.
    """
    rng = _generator(seed)
    test_parts, train_parts = [], []
    for c in np.unique(y):
        idx = rng.permutation(np.flatnonzero(y == c))
        n_test = int(round(len(idx) * test_fraction))
        if n_test == 0 or n_test == len(idx):
            raise DataError(f"class {c} has {len(idx)} samples: too few for a stratified holdout")
        test_parts.append(idx[:n_test])
        train_parts.append(idx[n_test:])
    train, test = np.sort(np.concatenate(train_parts)), np.sort(np.concatenate(test_parts))
    folds = []
    for _ in range(n_repeats):
        assignment = np.empty(len(train), dtype=np.int64)
        for c in np.unique(y[train]):
            where = np.flatnonzero(y[train] == c)
            assignment[rng.permutation(where)] = np.arange(len(where)) % n_folds
        for k in range(n_folds):
            folds.append((train[assignment != k], train[assignment == k]))
    return train, test, folds


def grouped_holdout_split(groups: np.ndarray, seed: int, test_per_group: int, n_folds: int):
    """Paper 002's Olivetti protocol (§6.3): ``test_per_group`` random samples of every group (subject)
    as test; the rest of each group dealt, in random order, one per validation fold in turn, so that
    with ``n_folds`` samples left per group every validation fold holds one sample of every group.

    Returns (train, test, folds) as :func:`holdout_split` does (one repetition of ``n_folds`` folds).
    """
    if groups is None:
        raise DataError("a holdout by group needs the samples' groups: use a view with `relabel` (its "
                        "groups are the labels before the merge)")
    rng = _generator(seed)
    test_parts, train_parts, fold_of = [], [], {}
    for g in np.unique(groups):
        idx = rng.permutation(np.flatnonzero(groups == g))
        if len(idx) < test_per_group + n_folds:
            raise DataError(f"group {g} has {len(idx)} samples: {test_per_group} for test and one for each of "
                            f"{n_folds} folds need {test_per_group + n_folds}; lower test_per_group or n_folds")
        test_parts.append(idx[:test_per_group])
        train_parts.append(idx[test_per_group:])
        fold_of.update({int(i): k % n_folds for k, i in enumerate(idx[test_per_group:])})
    train, test = np.sort(np.concatenate(train_parts)), np.sort(np.concatenate(test_parts))
    assignment = np.array([fold_of[int(i)] for i in train])
    folds = [(train[assignment != k], train[assignment == k]) for k in range(n_folds)]
    return train, test, folds


def write_splits(path: Path, train, test, attrs: dict, folds=None) -> None:
    """Write splits to an HDF5 file (atomically), as :func:`read_splits` reads them.

    Parameters
    ----------
    path : Path
        The file to write.
    train : ndarray
        The training indices (one row per split).
    test : ndarray
        The test indices (one row per split).
    attrs : dict
        The file's attributes (``mode``, ``seed``, ``dataset``, ...).
    folds : list of tuple of ndarray, optional
        ``(fit, validation)`` index arrays of a holdout's cross-validation.
    """
    with writing_h5(path) as h5:
        h5.create_dataset("train", data=train)
        h5.create_dataset("test", data=test)
        for k, (fit, validation) in enumerate(folds or []):
            h5.create_dataset(f"folds/{k}/fit", data=fit)
            h5.create_dataset(f"folds/{k}/validation", data=validation)
        for key, value in attrs.items():
            h5.attrs[key] = value


def read_splits(path: str | Path) -> dict:
    """Read the splits that :func:`write_splits` wrote.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    dict
        ``train`` and ``test`` (arrays), ``attrs`` (dict), and ``folds`` (list of ``(fit,
        validation)`` arrays) when the file holds them.
    """
    with reading_h5(path) as h5:
        out = {"train": h5["train"][()], "test": h5["test"][()], "attrs": dict(h5.attrs)}
        if "folds" in h5:
            out["folds"] = [(h5[f"folds/{k}/fit"][()], h5[f"folds/{k}/validation"][()])
                            for k in sorted(h5["folds"], key=int)]
    return out


def make_splits(y, mode: str, m, n_splits: int, master_seed: int, name: str, class_names=None,
                groups=None, by_group: dict | None = None):
    """Build the splits of one (dataset, m) or holdout request.

    Parameters
    ----------
    y : ndarray of shape (n_samples,) or None
        The labels (a dataset without labels is an error).
    mode : {'per_class', 'holdout'}
        'holdout': :func:`holdout_split`, or with ``by_group`` a holdout by group; any other
        value: :func:`per_class_splits`.
    m : int or float
        A count per class (seeded by the count, as Table 2's splits) or a fraction of each class
        (seeded by ``'f<fraction>'``); see :func:`per_class_splits`. Not used by a holdout.
    n_splits : int
        The number of per-class splits.
    master_seed : int
        The config's master seed, from which each request's seed is derived (:func:`derived_seed`).
    name : str
        The dataset's name.
    class_names : list of str, optional
        The names of the labels, for messages.
    groups : ndarray of shape (n_samples,), optional
        The samples' groups, for a holdout by group.
    by_group : dict, optional
        A holdout by group (``test_per_group``, ``n_folds``): :func:`grouped_holdout_split`
        over ``groups``.

    Returns
    -------
    train : ndarray of shape (n_splits, n_train)
        The training indices, one row per split (one row for a holdout).
    test : ndarray of shape (n_splits, n_test)
        The test indices, one row per split.
    folds : list of tuple of ndarray or None
        A holdout's ``(fit, validation)`` index arrays; None for per-class splits.
    attrs : dict
        What the splits file records of the request (``mode``, ``seed``, ``dataset``, ...).
    """
    if y is None:
        raise DataError(f"dataset {name!r} has no labels: it cannot be split per class")
    if mode == "holdout" and by_group:
        t, k = int(by_group["test_per_group"]), int(by_group["n_folds"])
        seed = derived_seed(master_seed, name, "holdout", f"t{t}f{k}")
        try:
            train, test, folds = grouped_holdout_split(groups, seed, t, k)
        except DataError as error:
            raise DataError(f"dataset {name!r}: {error}") from error
        attrs = {"mode": "holdout_by_group", "test_per_group": t, "n_folds": k, "seed": seed, "dataset": name}
        return train[None], test[None], folds, attrs
    if mode == "holdout":
        seed = derived_seed(master_seed, name, "holdout")
        train, test, folds = holdout_split(y, seed)
        return train[None], test[None], folds, {"mode": "holdout", "seed": seed, "dataset": name}
    seed = derived_seed(master_seed, name, m if float(m).is_integer() else f"f{float(m):g}")
    train, test = per_class_splits(y, m, n_splits, seed, class_names)
    attrs = {"mode": "per_class", "m": m, "n_splits": n_splits, "seed": seed, "dataset": name}
    return train, test, None, attrs


def _name(label, class_names) -> str:
    if class_names is not None and len(class_names) > int(label):
        return f"class {class_names[int(label)]!r} (label {label})"
    return f"class {label}"
