"""Image resizing by area averaging (anti-aliased when shrinking), as a pair of linear maps, and a
JPEG round trip for measuring what lossy storage costs."""

from __future__ import annotations

import io

import numpy as np

from .errors import DataError


def area_resampling_matrix(n_in: int, n_out: int) -> np.ndarray:
    """(n_out, n_in) matrix whose row k averages the input cells that output cell k covers.

    Output cell k spans [k·n_in/n_out, (k+1)·n_in/n_out) in input coordinates; each input cell
    contributes in proportion to its overlap, so rows sum to 1 and a constant image stays constant.
    """
    edges = np.arange(n_out + 1) * (n_in / n_out)
    lo, hi = edges[:-1, None], edges[1:, None]
    cells = np.arange(n_in)[None, :]
    overlap = np.clip(np.minimum(hi, cells + 1) - np.maximum(lo, cells), 0, None)
    return overlap / overlap.sum(axis=1, keepdims=True)


def resize_images(X: np.ndarray, shape: tuple[int, int], new_shape: tuple[int, int]) -> np.ndarray:
    """Resize row-major flattened images (rows of ``X``) from ``shape`` to ``new_shape``."""
    (h, w), (nh, nw) = shape, new_shape
    rows, cols = area_resampling_matrix(h, nh), area_resampling_matrix(w, nw)
    images = X.reshape(len(X), h, w)
    resized = np.einsum("ij,njk,lk->nil", rows, images, cols, optimize=True)
    return np.ascontiguousarray(resized.reshape(len(X), nh * nw))


def jpeg_round_trip(X: np.ndarray, shape: tuple[int, int], quality: int, what: str = "images") -> np.ndarray:
    """Encode each row-major grey image (values 0..255 integers) as a JPEG at ``quality`` (Pillow,
    libjpeg) and decode it again."""
    from PIL import Image

    if not (np.array_equal(X, np.round(X)) and X.min() >= 0 and X.max() <= 255):
        raise DataError(f"{what}: JPEG needs 8-bit grey values (integers 0..255); these are not")
    out = np.empty_like(X, dtype=np.float64)
    for i, row in enumerate(X.astype(np.uint8).reshape(len(X), *shape)):
        buffer = io.BytesIO()
        Image.fromarray(row).save(buffer, format="JPEG", quality=quality)
        buffer.seek(0)
        with Image.open(buffer) as decoded:
            out[i] = np.asarray(decoded, dtype=np.float64).ravel()
    return out
