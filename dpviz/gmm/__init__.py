"""Private estimators of Gaussian mixtures (the ``gmm`` task) and their registry."""

from collections.abc import Mapping
from types import MappingProxyType

from ..spec import Estimator
from .dp_em import ESTIMATORS as _DP_EM
from .dplloyd import ESTIMATORS as _DPLLOYD

ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({**_DP_EM, **_DPLLOYD})

__all__ = ["ESTIMATORS"]
