"""Private estimators of Gaussian mixtures (the ``gmm`` task) and their registry."""

from collections.abc import Mapping
from types import MappingProxyType

from ..spec import Estimator
from .dp_em import ESTIMATORS as _DP_EM
from .dplloyd import ESTIMATORS as _DPLLOYD
from .kssu import ESTIMATORS as _KSSU
from .ppe import ESTIMATORS as _PPE
from .sample_aggregate import ESTIMATORS as _SAMPLE_AGGREGATE
from .stability import ESTIMATORS as _STABILITY

ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({**_DP_EM, **_DPLLOYD, **_KSSU, **_PPE,
                                                     **_SAMPLE_AGGREGATE, **_STABILITY})

__all__ = ["ESTIMATORS"]
