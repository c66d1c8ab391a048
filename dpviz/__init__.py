"""dpviz: an interactive lab for differentially private estimation.

The engine: pure Python over numpy, scipy, scikit-learn and networkx. It never imports
Streamlit (only ``dpviz.ui`` does).

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

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

import numpy as np

from dpviz.core.version import VERSION
from dpviz.estimators.result import TEACHING_RANDOMNESS, Result
from dpviz.privacy import Budget

__version__ = VERSION


@functools.cache
def _thread_pools(module: str) -> Any:
    """The BLAS and OpenMP pools loaded once ``module`` (an estimator's) is imported.

    Every run is held to one thread of each, as ``dpviz.lab.work``'s estimates are measured:
    a server whose environment does not pin them (``streamlit run app.py``) let
    scikit-learn's k-means spin OpenMP threads in sample-and-aggregate's chunk fits, 7.4 s of
    CPU for a 2.9 s run (issue 36).
    """
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def run(task: str, estimator: str, data: Any, *, epsilon: float | None = None,
        delta: float = 0.0, rho: float | None = None, accounting: str = "zcdp",
        seed: int | None = None, radius: float | str | None = None, paper_mode: bool = False,
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
        ``None`` (the default): the noise comes from OS entropy through
        :func:`~dpviz.privacy.randomness.secure_generator` and the seed is never shown. A
        fixed seed is teaching randomness: anyone who knows it recomputes the noise, so the
        result's ``choices["randomness"]`` says it is not a private release
        (:data:`~dpviz.estimators.result.TEACHING_RANDOMNESS`).
    radius : float, "data" or None
        The public bound (ALGORITHMS.md §1.3).
    rng : numpy.random.Generator, optional
        A generator to draw from instead of one made from ``seed`` (the result's ``seed`` is
        then ``None``). One that is not a secure generator is teaching randomness too.
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
    from dpviz.core import limits
    from dpviz.estimators.registry import check_data, common_param
    from dpviz.estimators.registry import estimator as lookup
    from dpviz.lab.work import check_run
    from dpviz.privacy.randomness import is_secure, secure_generator

    spec = lookup(task, estimator)
    check_data(task, data)
    budget = Budget(epsilon=epsilon, delta=delta, rho=rho, method=accounting,
                    paper_mode=common_param("paper_mode").parse(paper_mode))
    kwargs = spec.resolve(params)
    if rng is not None:
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        seed = None  # the caller's generator: no seed replays this run
    elif seed is not None:
        seed = limits.check_integer(limits.NOISE_SEED, seed)
        rng = np.random.default_rng(seed)
    else:
        rng = secure_generator()
    check_run(task, estimator, data, kwargs)  # before any work: refuse what memory cannot hold
    with _thread_pools(spec.function.__module__).limit(limits=1):
        result: Result = spec.function(data, budget, rng=rng, radius=radius, **kwargs)
    choices = dict(result.choices)
    if not is_secure(rng):
        choices["randomness"] = TEACHING_RANDOMNESS
    return replace(result, task=task, estimator=estimator, seed=seed, choices=choices)


__all__ = ["Budget", "Result", "__version__", "run"]
