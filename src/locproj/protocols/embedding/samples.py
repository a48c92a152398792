"""Sample selection of the ``embedding`` protocol: the samples a panel keeps, the points held out of
the fit (``novel``, ``split``), the samples drawn as images, and the drawn coordinates and points."""

from __future__ import annotations

import numpy as np


def select_samples(data, classes=None) -> np.ndarray:
    """Indices of the samples of ``data`` whose class name is in ``classes`` (all for None)."""
    if classes is None:
        return np.arange(len(data.X))
    if data.y is None:
        raise ValueError(f"classes {list(classes)} asked for, but the data have no labels")
    unknown = sorted(set(map(str, classes)) - set(data.class_names))
    if unknown:
        raise ValueError(f"unknown classes {unknown}; the data have {data.class_names}")
    wanted = [data.class_names.index(str(c)) for c in classes]
    return np.flatnonzero(np.isin(data.y, wanted))


def novel_split(n: int, novel: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``(train, novel)`` in ``range(n)``: novel are ``offset, offset + every, ...``."""
    positions = np.arange(n)
    if not novel:
        return positions, positions[:0]
    held_out = np.zeros(n, dtype=bool)
    held_out[int(novel.get("offset", 0))::int(novel["every"])] = True
    return positions[~held_out], positions[held_out]


def per_class_split(y, n_per_class: int, name: str, seed) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``(train, test)`` in ``y``: ``n_per_class`` training samples of every class drawn at
    random, the rest as test; the draw is :func:`locproj.data.per_class_splits`'s first split with
    the seed it would get for ``name`` and that count (:func:`locproj.data.make_splits`)."""
    from ...data import derived_seed, per_class_splits

    if seed is None:
        raise ValueError("split: {per_class: ...} draws at random and needs the config's seed")
    if y is None:
        raise ValueError(f"split per class asked for, but {name!r} has no labels")
    train, test = per_class_splits(y, int(n_per_class), 1, derived_seed(seed, name, int(n_per_class)))
    return train[0], test[0]


def holdout_panel_split(y, fraction: float, name: str, seed, n_samples: int | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``(train, test)`` in ``y``: a stratified random ``fraction`` as test.

    Without ``n_samples`` the draw is :func:`locproj.data.holdout_split`'s with the seed
    :func:`locproj.data.make_splits` gives ``name`` (for ``fraction = 1/3`` the test third of the
    holdout protocol, paper 002 §6.3).  With ``n_samples`` a stratified random subset of about that
    many samples (rounded per class) is drawn first and split the same way (both seeded by
    ``name`` and ``n_samples``).
    """
    from ...data import derived_seed, holdout_split

    if seed is None:
        raise ValueError("split: {holdout: ...} draws at random and needs the config's seed")
    if y is None:
        raise ValueError(f"a stratified holdout asked for, but {name!r} has no labels")
    y = np.asarray(y)
    positions = np.arange(len(y))
    parts = ("holdout",)
    if n_samples is not None and n_samples < len(y):
        _, positions, _ = holdout_split(y, derived_seed(seed, name, "subsample", int(n_samples)),
                                        test_fraction=n_samples / len(y), n_repeats=0)
        parts = ("holdout", int(n_samples))
    train, test, _ = holdout_split(y[positions], derived_seed(seed, name, *parts), test_fraction=fraction,
                                   n_repeats=0)
    return positions[train], positions[test]


def sample_positions(n: int, n_show: int) -> np.ndarray:
    """``n_show`` evenly spaced positions in ``range(n)``, starting at 0."""
    return np.unique(np.arange(min(n_show, n)) * n // min(n_show, n))


def coordinates(spec: dict, result: dict, stem: str) -> np.ndarray:
    """The drawn coordinates of the ``stem`` (train or novel) points: fit or input space, ``dims`` columns."""
    dims = int(spec.get("dims", 2))
    if spec.get("space") == "input":
        return result[f"{stem}_input"][:, :dims]
    return result[f"{stem}_embedding"][:, :dims]


def visible(spec: dict, result: dict) -> dict[str, np.ndarray]:
    """Masks of the drawn training and novel points (options ``draw`` and ``select``)."""
    draw = spec.get("draw", "all")
    train = np.full(len(result["train_index"]), draw != "novel")
    if "selected_index" in result:
        train &= np.isin(result["train_index"], result["selected_index"])
    return {"train": train, "novel": np.full(len(result["novel_index"]), draw != "train")}
