"""dpviz: an interactive lab for differentially private estimation.

The engine: pure Python over numpy, scipy, scikit-learn and networkx. It never imports
Streamlit (only ``dpviz.ui`` does). The root only re-exports: :func:`run` is
:func:`dpviz.estimators.run.run`, which the lab and the command line import from there.

Examples
--------
>>> import dpviz, numpy as np
>>> x = np.random.default_rng(0).uniform(0, 1, size=(1000, 2))
>>> result = dpviz.run("mean", "gaussian", x, epsilon=1.0, delta=1e-6)
>>> round(result.ledger.total().epsilon, 6), result.seed  # noise from OS entropy, not shown
(1.0, None)
>>> dpviz.run("mean", "gaussian", x, epsilon=1.0, delta=1e-6, seed=3).choices["randomness"]
'teaching randomness: the noise can be recomputed from the seed — not a private release'
"""

from dpviz.core.version import VERSION
from dpviz.estimators.result import Result
from dpviz.estimators.run import run
from dpviz.privacy import Budget

__version__ = VERSION

__all__ = ["Budget", "Result", "__version__", "run"]
