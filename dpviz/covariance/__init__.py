"""Private covariance estimation (the ``covariance`` task, seed 001) and its registry."""

from collections.abc import Mapping
from types import MappingProxyType

from ..spec import Estimator

ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({})

__all__ = ["ESTIMATORS"]
