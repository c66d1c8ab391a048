"""Private estimators of Gaussian mixtures (the ``gmm`` task) and their registry."""

from collections.abc import Mapping
from types import MappingProxyType

from dpviz.core.entry import Estimator
from dpviz.estimators.gmm.dp_em import ESTIMATORS as _DP_EM
from dpviz.estimators.gmm.dplloyd import ESTIMATORS as _DPLLOYD
from dpviz.estimators.gmm.friendly_core import ESTIMATORS as _FRIENDLY_CORE
from dpviz.estimators.gmm.grid_means import ESTIMATORS as _GRID_MEANS
from dpviz.estimators.gmm.kssu import ESTIMATORS as _KSSU
from dpviz.estimators.gmm.ppe import ESTIMATORS as _PPE
from dpviz.estimators.gmm.sample_aggregate import ESTIMATORS as _SAMPLE_AGGREGATE
from dpviz.estimators.gmm.stability import ESTIMATORS as _STABILITY

ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({**_DP_EM, **_DPLLOYD, **_KSSU, **_PPE,
                                                     **_SAMPLE_AGGREGATE, **_STABILITY,
                                                     **_FRIENDLY_CORE, **_GRID_MEANS})

__all__ = ["ESTIMATORS"]
