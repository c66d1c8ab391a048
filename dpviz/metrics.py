"""Accuracy metrics of a result against the truth, by task."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

import numpy as np

from .result import Result


def mean_error(result: Result) -> float:
    """L2 distance between the released mean and the clipped data's true mean.

    Examples
    --------
    >>> from dpviz.privacy import Ledger
    >>> r = Result({"mean": np.array([3.0, 4.0])}, Ledger(),
    ...            diagnostics={"true_mean": np.zeros(2)})
    >>> mean_error(r)
    5.0
    """
    return float(np.linalg.norm(np.asarray(result.estimate["mean"])
                                - np.asarray(result.diagnostics["true_mean"])))


METRICS: Mapping[str, Mapping[str, Callable[[Result], float]]] = MappingProxyType({
    "mean": MappingProxyType({"mean_error": mean_error}),
})
