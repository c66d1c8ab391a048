"""Small linear-algebra post-processing shared by estimators."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray


def project_psd(matrix: ArrayLike, floor: float, cap: float = math.inf) -> NDArray[np.float64]:
    """Symmetrise and clip every eigenvalue into ``[floor, cap]``.

    Applied to a released matrix this is post-processing: it costs no privacy.

    Examples
    --------
    >>> project_psd([[1.0, 0.0], [0.0, -2.0]], 1e-3).round(4).tolist()
    [[1.0, 0.0], [0.0, 0.001]]
    """
    m = np.asarray(matrix, dtype=float)
    values, vectors = np.linalg.eigh((m + m.T) / 2)
    out: NDArray[np.float64] = (vectors * np.clip(values, floor, cap)) @ vectors.T
    return (out + out.T) / 2
