"""The one entry point of a run: :func:`run`, re-exported as ``dpviz.run``.

Below the lab (:mod:`dpviz.lab.scenario`, the lens, the audit and the command line call it
from here), so the run path goes one way down the layers; the run's work is checked here,
once, before any of it starts (:mod:`dpviz.estimators.work`).
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

import numpy as np

from dpviz.estimators.result import TEACHING_RANDOMNESS, Result
from dpviz.estimators.work import BATCH, WorkBudget, check_run
from dpviz.privacy import Budget


@functools.cache
def _thread_pools(module: str) -> Any:
    """The BLAS and OpenMP pools loaded once ``module`` (an estimator's) is imported.

    Every run is held to one thread of each, as :mod:`dpviz.estimators.work`'s estimates are
    measured: a server whose environment does not pin them (``streamlit run app.py``) let
    scikit-learn's k-means spin OpenMP threads in sample-and-aggregate's chunk fits, 7.4 s of
    CPU for a 2.9 s run (issue 36).
    """
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def run(task: str, estimator: str, data: Any, *, epsilon: float | None = None,
        delta: float = 0.0, rho: float | None = None, accounting: str = "zcdp",
        seed: int | None = None, radius: float | str | None = None, paper_mode: bool = False,
        rng: np.random.Generator | None = None, work: WorkBudget | None = BATCH,
        **params: Any) -> Result:
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
    work : WorkBudget or None
        The budget of time and memory the run is checked against before any work starts
        (:data:`~dpviz.estimators.work.BATCH`: memory only). ``None``: the caller has checked
        it already, once (a page checks its data against its own budget before preparing
        them, :func:`dpviz.ui.runs.compute`).
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
    if work is not None:  # before any work: refuse what the budget cannot hold
        check_run(task, estimator, data, kwargs, work)
    with _thread_pools(spec.function.__module__).limit(limits=1):
        result: Result = spec.function(data, budget, rng=rng, radius=radius, **kwargs)
    choices = dict(result.choices)
    if not is_secure(rng):
        choices["randomness"] = TEACHING_RANDOMNESS
    return replace(result, task=task, estimator=estimator, seed=seed, choices=choices)
