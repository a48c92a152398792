"""A method of your own, beside the config that names it (docs/own-method.md)."""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.neighbors import NearestNeighbors


class LocalMeanProjection(TransformerMixin, BaseEstimator):
    """Directions along which the mean of a sample's k nearest other-class neighbours differs most
    from the mean of its k nearest same-class neighbours (a local, nonparametric discriminant)."""

    def __init__(self, n_components=None, n_neighbors=3):
        self.n_components = n_components
        self.n_neighbors = n_neighbors

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y)
        self.mean_ = X.mean(axis=0)
        gaps = []
        for label in np.unique(y):
            own, other = X[y == label] - self.mean_, X[y != label] - self.mean_
            k = min(self.n_neighbors, len(own) - 1, len(other))
            near_own = NearestNeighbors(n_neighbors=k + 1).fit(own).kneighbors(own, return_distance=False)[:, 1:]
            near_other = NearestNeighbors(n_neighbors=k).fit(other).kneighbors(own, return_distance=False)
            gaps.append(other[near_other].mean(axis=1) - own[near_own].mean(axis=1))
        _, _, directions = np.linalg.svd(np.vstack(gaps), full_matrices=False)   # largest gap first
        self.components_ = directions[: self.n_components]
        return self

    def transform(self, X):
        return (np.asarray(X, dtype=float) - self.mean_) @ self.components_.T
