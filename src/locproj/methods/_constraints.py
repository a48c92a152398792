"""Parameter constraints shared by the estimators (scikit-learn's ``_parameter_constraints``)."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions


class StrictInterval(Interval):
    """scikit-learn's ``Interval`` that refuses booleans (``True`` is an ``int`` to Python, and
    ``n_neighbors=True`` or ``alpha=False`` is a mistake rather than 1 or 0)."""

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


POSITIVE_INT = StrictInterval(Integral, 1, None, closed="left")
N_COMPONENTS = [POSITIVE_INT, None]
N_NEIGHBORS = [POSITIVE_INT, StrOptions({"all"})]   # a kNN graph; 'all' links every pair (of a class)
COLUMN_SCALING = [StrOptions({"unit", "constraint"})]
