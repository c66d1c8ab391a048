"""dpviz: an interactive lab for differentially private estimation.

The engine: pure Python over numpy, scipy, scikit-learn and networkx. It never imports
Streamlit (only ``dpviz.ui`` does).

Examples
--------
>>> import dpviz, numpy as np
>>> x = np.random.default_rng(0).uniform(0, 1, size=(1000, 2))
>>> result = dpviz.run("mean", "gaussian", x, epsilon=1.0, delta=1e-6, seed=0)
>>> round(result.ledger.total().epsilon, 6)
1.0
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from .privacy import Budget
from .result import Result

__version__ = "0.1.0"


def run(task: str, estimator: str, data: Any, *, epsilon: float | None = None,
        delta: float = 0.0, rho: float | None = None, accounting: str = "zcdp",
        seed: int | None = 0, radius: float | str | None = None, paper_mode: bool = False,
        rng: np.random.Generator | None = None, **params: Any) -> Result:
    """Run one registered estimator: the entry point of the CLI, the pages and the sweeps.

    Parameters
    ----------
    task, estimator : str
        Registry keys (``python -m dpviz list``).
    data : array-like
        The data (n × d for ``mean``, ``gmm`` and ``covariance``).
    epsilon, delta, rho, accounting, paper_mode
        The budget (see :class:`dpviz.privacy.Budget`).
    seed : int or None
        Seeds the noise; ``None`` draws from OS entropy (not reproducible).
    radius : float, "data" or None
        The public bound (ALGORITHMS.md §1.3).
    rng : numpy.random.Generator, optional
        A generator to draw from instead of one seeded with ``seed`` (the result's ``seed``
        is then ``None``: nothing replays it).
    **params
        The estimator's own parameters, named as ``list`` names them.

    Returns
    -------
    Result
        With ``task``, ``estimator`` and ``seed`` filled in.

    Raises
    ------
    ValueError
        Any bad input, with a sentence naming it.
    """
    from . import limits
    from .registry import common_param
    from .registry import estimator as lookup

    spec = lookup(task, estimator)
    budget = Budget(epsilon=epsilon, delta=delta, rho=rho, method=accounting,
                    paper_mode=common_param("paper_mode").parse(paper_mode))
    kwargs = spec.resolve(params)
    if rng is not None:
        seed = None  # the caller's generator: no seed replays this run
    else:
        if seed is not None:
            seed = limits.check_integer(limits.NOISE_SEED, seed)
        rng = np.random.default_rng(seed)
    result: Result = spec.function(data, budget, rng=rng, radius=radius, **kwargs)
    return replace(result, task=task, estimator=estimator, seed=seed)


__all__ = ["Budget", "Result", "__version__", "run"]
