"""Private estimators of Gaussian mixtures (the ``gmm`` task) and their registry."""

from collections.abc import Mapping
from types import MappingProxyType

from ..spec import Estimator
from .dp_em import ESTIMATORS as _DP_EM

ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({**_DP_EM})

__all__ = ["ESTIMATORS"]
