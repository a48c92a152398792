"""Smallest non-zero squared singular value ratio of the centred training data: is any face split
near either rank threshold (theirs 1e-10, ours 10 max(n, d) eps)?

Backs LPP departure L7 (and OLPP O5, kernel LPP K4, which refer to it): the face splits (ORL and
Yale, 5 images per class) are far from both thresholds.  Runs no Octave.

Prints, per data set, n, d, the ratio s^2/s1^2 of component n-1 and of component n (numerically 0),
and both thresholds.

Usage: python spectra.py
"""

import numpy as np

from common_lpp import face_split

for name in ("orl", "yale"):
    X, y = face_split(name, 5, 0)
    s = np.linalg.svd(X - X.mean(0), compute_uv=False)
    r = s**2 / s[0]**2
    n, d = X.shape
    print(f"{name}: n={n} d={d}; s^2/s1^2 of component n-1: {r[n-2]:.3e}, of component n (should be ~0): {r[n-1]:.3e}; "
          f"our tol {10*max(n, d)*np.finfo(float).eps:.2e}, theirs 1e-10")
