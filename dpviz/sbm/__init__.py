"""Private community recovery in stochastic block models (the ``sbm`` task, seed 003 §5)."""

from collections.abc import Mapping
from types import MappingProxyType

from ..spec import Estimator

ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({})

__all__ = ["ESTIMATORS"]
