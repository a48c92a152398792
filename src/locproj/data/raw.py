"""What every reader of :mod:`locproj.data.readers` returns, :class:`RawData`, and the pixel-order
rewrite the readers of flattened images share (:func:`to_row_major`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from .errors import DataError


@dataclasses.dataclass
class RawData:
    X: np.ndarray                      # (n_samples, n_features) float64
    labels: np.ndarray | None          # raw labels (any type) or None when unlabelled
    image_shape: tuple[int, int] | None = None
    extra: dict = dataclasses.field(default_factory=dict)   # attributes to keep (e.g. partitions)
    #: where each sample comes from (file and line, or image), for messages; not stored
    locations: list[str] | None = dataclasses.field(default=None, repr=False)

    def where(self, rows, limit: int = 5) -> str:
        """The first ``limit`` of ``rows`` (sample positions) as their file lines or images."""
        rows = [int(r) for r in rows]
        shown = [self.locations[r] if self.locations else f"sample {r}" for r in rows[:limit]]
        more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
        return "; ".join(shown) + more


def to_row_major(X: np.ndarray, image_shape: tuple[int, ...], order: str) -> np.ndarray:
    """Rewrite each row of ``X`` (an image flattened in ``order``) as a row-major flattened image.

    ``image_shape`` is any shape, e.g. ``(h, w)`` or ``(h, w, 3)`` for RGB: with ``order='F'``,
    ``X[i].reshape(image_shape, order='F')`` is the image, and the output row ``out[i]`` satisfies
    ``out[i].reshape(image_shape)`` equal to it.
    """
    shape = tuple(int(s) for s in image_shape)
    if X.shape[1] != np.prod(shape, dtype=np.int64):
        raise DataError(f"rows have {X.shape[1]} values, which is not an image of shape "
                        f"{'x'.join(map(str, shape))}")
    if order == "C":
        return np.ascontiguousarray(X)
    if order != "F":
        raise DataError(f"pixel_order must be 'C' or 'F', got {order!r}")
    # column-major: the first image index varies fastest, so a C-order reshape has the axes reversed
    reversed_axes = X.reshape(-1, *shape[::-1])
    upright = reversed_axes.transpose(0, *range(len(shape), 0, -1))
    return np.ascontiguousarray(upright.reshape(len(X), X.shape[1]))
