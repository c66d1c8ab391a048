"""How much work a run is, estimated from public sizes before any of it starts.

A link, an upload or a command-line flag sets n, d, k or a graph's degree; this module says,
before the data are made or read, whether the run fits a budget of time and memory, and
refuses with a sentence that names the limit and how to run bigger jobs (issue 23, item 7).
The pages check against :data:`INTERACTIVE` (every page answers within a few seconds of
server time), the command line and the API against :data:`BATCH` (memory only: what would
end in ``MemoryError`` is refused, however long it takes).

The cost model is ``seconds = BASE_SECONDS[e] + SECONDS_PER_UNIT[e] · time units`` and
``bytes = BYTES_PER_UNIT[e] · memory units``, with the units of :func:`units` (the leading
term of the estimator's work, e.g. ``n·k·d·(d+1)`` for one mixture fit) and the coefficients
measured on the development machine (2 cores, 24 GB) with one BLAS thread by
``python bench/work_costs.py``: it times
every registered estimator at two sizes per task and reads its peak traced memory
(``tracemalloc``, which numpy reports to); the seconds get a line on or above both points,
the bytes the larger bytes-per-unit ratio, rounded up. The estimate is the leading term
only, so it is meant for the sizes where work matters; both budgets keep a margin for what
it leaves out.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .limits import (
    BATCH_MEMORY_SHARE,
    INTERACTIVE_BYTES,
    INTERACTIVE_DATA_BYTES,
    INTERACTIVE_SECONDS,
    SWEEP_SECONDS,
)

#: Seconds per time unit (:func:`units`), per ``task/estimator``; ``task/<data>`` is the
#: page's generator. Measured by ``bench/work_costs.py`` (see the module docstring).
SECONDS_PER_UNIT = MappingProxyType({
    "gmm/dp_em": 9.1e-09, "gmm/em": 7.6e-09, "gmm/sklearn_gmm": 1.8e-08, "gmm/dplloyd": 4.5e-09,
    "gmm/private_pca_clustering": 3.0e-06, "gmm/ppe": 7.9e-06, "gmm/sample_aggregate": 1.7e-06,
    "gmm/stability": 2.8e-07, "gmm/<data>": 1.7e-11,
    "covariance/gauss": 2.1e-11, "covariance/separate": 2.2e-11, "covariance/adaptive": 3.7e-11,
    "covariance/emcov": 2.3e-09, "covariance/zero": 1.2e-12, "covariance/<data>": 4.2e-10,
    "mean/laplace": 2.7e-08, "mean/gaussian": 2.7e-08, "mean/<data>": 1.7e-08,
    "sbm/weak_recovery": 2.1e-09, "sbm/exact_recovery": 2.1e-09, "sbm/exponential": 2.8e-09,
    "sbm/randomized_response": 1.6e-08, "sbm/gauss_adjacency": 7.1e-08, "sbm/spectral": 8.0e-08,
    "sbm/projection": 2.3e-09, "sbm/<data>": 4.9e-08,
})
#: Seconds a run takes whatever its size (set-up, fixed-size searches), same measurement; the
#: private PCA, PPE and subsample-and-aggregate learners spend about 3 s at any size.
BASE_SECONDS = MappingProxyType({
    "gmm/dp_em": 0.046, "gmm/em": 0.017, "gmm/dplloyd": 0.017,
    "gmm/private_pca_clustering": 3.0, "gmm/ppe": 3.0, "gmm/sample_aggregate": 3.0,
    "sbm/weak_recovery": 0.037, "sbm/exact_recovery": 0.044, "sbm/exponential": 0.77,
    "sbm/projection": 0.029, "mean/laplace": 0.018, "mean/gaussian": 0.048,
})
#: Peak bytes per memory unit, per ``task/estimator`` (same measurement).
BYTES_PER_UNIT = MappingProxyType({
    "gmm/dp_em": 33.0, "gmm/em": 33.0, "gmm/sklearn_gmm": 25.0, "gmm/dplloyd": 21.0,
    "gmm/private_pca_clustering": 150.0, "gmm/ppe": 6400.0, "gmm/sample_aggregate": 37.0,
    "gmm/stability": 42.0, "gmm/<data>": 19.0,
    "covariance/gauss": 1.3, "covariance/separate": 1.3, "covariance/adaptive": 1.3,
    "covariance/emcov": 2.3, "covariance/zero": 0.58, "covariance/<data>": 33.0,
    "mean/laplace": 26.0, "mean/gaussian": 26.0, "mean/<data>": 33.0,
    "sbm/weak_recovery": 61.0, "sbm/exact_recovery": 62.0, "sbm/exponential": 5.5,
    "sbm/randomized_response": 6.7, "sbm/gauss_adjacency": 38.0, "sbm/spectral": 52.0,
    "sbm/projection": 61.0, "sbm/<data>": 32.0,
})
#: SBM estimators whose work grows like n³ (the certified projection's eigendecompositions),
#: and like n² (every pair of vertices: randomized response, the noisy adjacency matrix).
CUBIC = frozenset({"weak_recovery", "exact_recovery", "exponential", "projection"})
QUADRATIC = frozenset({"randomized_response", "gauss_adjacency"})

#: Seconds per noise entry drawn by OpenDP's exact, float-safe samplers (secure randomness),
#: rounded up from ``make bench``'s ``secure_raw_gaussian_1e5`` (50–70 µs an entry on the
#: development machine; numpy's floating-point draw takes about 10 ns).
SECURE_SECONDS_PER_DRAW = 7e-5
#: SBM estimators that release a noisy entry for every pair of vertices: n(n − 1)/2 draws.
DENSE_RELEASES = frozenset({"weak_recovery", "exact_recovery", "gauss_adjacency"})
#: DP-EM's default number of iterations, each releasing k weights, means and covariances.
DP_EM_ITERATIONS = 20

BIGGER_JOBS = ("Bigger runs belong on the command line (python -m dpviz run or solve), or in "
               "a sweep spread over a Dask cluster (python -m dpviz sweep --scheduler ADDRESS)")
#: Where a run too big for this machine goes.
BIGGER_MACHINE = ("Run it on a machine with more memory, or as a sweep spread over a Dask "
                  "cluster (python -m dpviz sweep --scheduler ADDRESS)")


@dataclass(frozen=True)
class Cost:
    """The estimated work of one run (or of its repeats).

    Attributes
    ----------
    seconds : float
        Server time, one BLAS thread.
    bytes : float
        Peak memory the run adds.
    data_bytes : float
        The data it makes or reads (what a page's cache keeps).
    """

    seconds: float
    bytes: float
    data_bytes: float


@dataclass(frozen=True)
class WorkBudget:
    """What one request may cost, and where a bigger run goes.

    Seconds (``inf``: any time), peak bytes and the bytes of the data a cache keeps.
    """

    name: str
    seconds: float
    bytes: float
    data_bytes: float = math.inf
    advice: str = BIGGER_JOBS


def physical_memory() -> float:
    """The machine's memory in bytes (``inf`` where the OS does not say)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return math.inf


#: The pages' budget: every page answers within about five seconds of server time.
INTERACTIVE = WorkBudget("on a page", INTERACTIVE_SECONDS, INTERACTIVE_BYTES,
                         INTERACTIVE_DATA_BYTES)
#: The command line's and the API's: any time, but a share of the machine's memory.
BATCH = WorkBudget("in one run", math.inf, BATCH_MEMORY_SHARE * physical_memory(),
                   advice=BIGGER_MACHINE)


def units(task: str, estimator: str, *, n: int, d: int = 1, k: int = 1,
          degree: float = 0.0) -> tuple[float, float]:
    """The leading terms of a run's time and memory, in the cost model's units.

    Parameters
    ----------
    task, estimator : str
        Registry keys; ``estimator="<data>"`` is the task's data generator.
    n, d, k : int
        Rows (vertices for ``sbm``), columns and mixture components.
    degree : float
        The SBM's average degree.

    Returns
    -------
    tuple of float
        Time units and memory units (8-byte numbers).

    Examples
    --------
    >>> units("covariance", "gauss", n=1000, d=10)
    (101000.0, 10100.0)
    """
    rows, cols, parts = float(n), float(max(d, 1)), float(max(k, 1))
    return _units(task, estimator, rows, cols, parts, float(degree))


def _units(task: str, estimator: str, n: float, d: float, k: float,
           degree: float) -> tuple[float, float]:
    if task == "gmm":
        return n * k * d * (d + 1) + n * d, n * (d + k) + k * d * d
    if task == "covariance":
        return n * d * d + d ** 3, n * d + d * d
    if task == "sbm":
        edges = n * max(float(degree), 1.0)
        if estimator in CUBIC:
            return n ** 3, n * n
        if estimator in QUADRATIC:
            return n * n, n * n
        return edges + n, edges + n
    return n * d, n * d


def secure_draws(task: str, estimator: str, *, n: int, d: int = 1, k: int = 1) -> float:
    """The noise entries one run draws: the leading term of what secure randomness costs.

    A symmetric d × d release draws d(d + 1)/2 entries, DP-EM k(1 + d + d(d + 1)/2) per
    iteration, the dense SBM releases n(n − 1)/2; every other release draws O(n + d) entries,
    which the seconds of :data:`SECONDS_PER_UNIT` already cover.

    Examples
    --------
    >>> secure_draws("sbm", "weak_recovery", n=1000)
    499500.0
    """
    if task == "sbm":
        return n * (n - 1) / 2 if estimator in DENSE_RELEASES else 0.0
    symmetric = d * (d + 1) / 2
    if task == "covariance":
        return symmetric
    if task == "gmm" and estimator == "dp_em":
        return DP_EM_ITERATIONS * k * (1 + d + symmetric)
    return 0.0


def estimate(task: str, estimator: str, *, n: int, d: int = 1, k: int = 1,
             degree: float = 0.0, repeats: int = 1, generate: bool = True,
             secure: bool = False) -> Cost:
    """The estimated cost of ``repeats`` runs of ``task/estimator`` at these sizes.

    ``generate`` adds making the data once (the pages' generators); ``secure`` adds drawing
    every noise entry with OpenDP's float-safe samplers (:func:`secure_draws`); an estimator
    the model does not know costs as the task's dearest one.
    """
    time_units, memory_units = units(task, estimator, n=n, d=d, k=k, degree=degree)
    key = f"{task}/{estimator}"
    dearest = [v for name, v in SECONDS_PER_UNIT.items() if name.startswith(f"{task}/")]
    draws = secure_draws(task, estimator, n=n, d=d, k=k) if secure else 0.0
    seconds = repeats * (BASE_SECONDS.get(key, 0.0)
                         + time_units * SECONDS_PER_UNIT.get(key, max(dearest, default=1e-6))
                         + draws * SECURE_SECONDS_PER_DRAW)
    memory = memory_units * BYTES_PER_UNIT.get(key, 64.0)
    data_time, data_memory = units(task, "<data>", n=n, d=d, k=k, degree=degree)
    if generate:
        seconds += data_time * SECONDS_PER_UNIT.get(f"{task}/<data>", 1e-8)
        memory += data_memory * BYTES_PER_UNIT.get(f"{task}/<data>", 32.0)
    return Cost(seconds, memory, 8 * data_memory)


def _size_words(n: int, d: int, k: int, degree: float, task: str) -> str:
    if task == "sbm":
        return f"n = {n:,} vertices of average degree {degree:g}"
    if task == "gmm":
        return f"n = {n:,} rows, d = {d}, k = {k}"
    return f"n = {n:,} rows, d = {d}"


def check_work(task: str, estimator: str, *, n: int, d: int = 1, k: int = 1,
               degree: float = 0.0, repeats: int = 1, generate: bool = True,
               secure: bool = False, budget: WorkBudget = INTERACTIVE) -> Cost:
    """Refuse, before any work, a run whose estimated cost exceeds ``budget``.

    Depends on public sizes only (never on the data), so a refusal tells nothing about
    anyone's row.

    Returns
    -------
    Cost
        The estimate, when it fits.

    Raises
    ------
    ValueError
        Naming the sizes, the estimate, the limit and where bigger runs go.

    Examples
    --------
    >>> check_work("gmm", "dp_em", n=10_000, d=2, k=3).seconds < 1
    True
    >>> check_work("gmm", "dp_em", n=1_000_000, d=50, k=3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: n = 1,000,000 rows, d = 50, k = 3 is too much work on a page: ...
    """
    cost = estimate(task, estimator, n=n, d=d, k=k, degree=degree, repeats=repeats,
                    generate=generate, secure=secure)
    sizes = _size_words(n, d, k, degree, task) + (f", {repeats} runs" if repeats > 1 else "")
    if cost.seconds > budget.seconds:
        draws = repeats * secure_draws(task, estimator, n=n, d=d, k=k) if secure else 0.0
        why = (f" with secure randomness, which draws each of its {draws:,.0f} noise entries "
               f"with a float-safe sampler (about {SECURE_SECONDS_PER_DRAW * 1e6:.0f} µs an "
               "entry)" if draws * SECURE_SECONDS_PER_DRAW > budget.seconds / 2 else "")
        lower = (" Lower the sizes, or turn secure randomness off to watch the picture "
                 "(teaching randomness)." if why else " Lower the sizes.")
        raise ValueError(
            f"{sizes} is too much work {budget.name}{why}: about {cost.seconds:,.0f} s of "
            f"server time, and the limit is {budget.seconds:g} s.{lower} {budget.advice}.")
    for needed, limit in ((cost.bytes, budget.bytes), (cost.data_bytes, budget.data_bytes)):
        if needed > limit:
            raise ValueError(
                f"{sizes} needs about {_memory(needed)} of memory {budget.name}, and the "
                f"limit is {_memory(limit)}. Lower the sizes. {budget.advice}.")
    return cost


def _memory(size: float) -> str:
    return f"{size / 2**30:,.1f} GB" if size >= 2**30 else f"{size / 2**20:,.0f} MB"


#: The task whose cost model covers each registered generator's data.
GENERATOR_TASKS = MappingProxyType({"gmm": "gmm", "zipf": "covariance", "sbm": "sbm"})


def check_generator(name: str, params: Mapping[str, Any],
                    budget: WorkBudget = BATCH) -> None:
    """Refuse, before generating, data of generator ``name`` that exceed ``budget``.

    Called wherever a generator block (a sweep's, a card's, ``solve --set-data``) is made.
    """
    task = GENERATOR_TASKS.get(name)
    if task is None:  # the exposure demo: at most a few thousand rows
        return
    check_work(task, "<data>", n=int(params.get("n", 1)), d=int(params.get("d", 1)),
               k=int(params.get("k", 1)), degree=float(params.get("degree", 0.0)),
               generate=False, budget=budget)


def check_run(task: str, estimator: str, data: Any, params: Mapping[str, Any],
              budget: WorkBudget = BATCH) -> None:
    """Refuse, before running, ``task/estimator`` on ``data`` when it exceeds ``budget``.

    The sizes are read off the data's shape (rows × columns) or a graph's vertex count.
    """
    n = getattr(data, "n", None)
    shape = getattr(data, "shape", None)
    if n is None and shape is not None and len(shape) == 2:
        n, d = int(shape[0]), int(shape[1])
    else:
        d = 1
    if n is None:
        return
    k = params.get("k")
    degree = params.get("degree")
    check_work(task, estimator, n=int(n), d=d, k=int(k) if k else 1,
               degree=float(degree) if degree else 0.0, generate=False, budget=budget)


def check_scenario(task: str, estimator: str, data: Mapping[str, Any],
                   params: Mapping[str, Any], budget: WorkBudget = BATCH) -> None:
    """Refuse, before its data are generated, a run on generated data that exceeds ``budget``.

    ``data`` is a scenario's data block; only a generator's sizes are known before loading
    (a file's are checked by :func:`check_run` once read).
    """
    from .data import GENERATORS

    name = data.get("generator")
    if name not in GENERATORS or GENERATOR_TASKS.get(str(name)) != task:
        return
    block = {key: value for key, value in data.items() if key not in ("generator",
                                                                      "test_fraction")}
    sizes = GENERATORS[str(name)].resolve(block)
    k = params.get("k") or sizes.get("k") or 1
    check_work(task, estimator, n=int(sizes.get("n", 1)), d=int(sizes.get("d", 1)), k=int(k),
               degree=float(sizes.get("degree", 0.0)), budget=budget)


#: A sweep started from a page: its runs together (a progress bar shows them).
SWEEP = WorkBudget("in a sweep started from a page", SWEEP_SECONDS, INTERACTIVE_BYTES,
                   INTERACTIVE_DATA_BYTES)


def check_sweep(task: str, estimators: Sequence[str], data: Mapping[str, Any],
                points: Sequence[Mapping[str, Any]], repeats: int,
                budget: WorkBudget = SWEEP) -> Cost:
    """Refuse a sweep whose runs together exceed ``budget`` (each also on its own memory).

    ``points`` are the grid's points: a ``data.X`` key overrides the data block's ``X``,
    ``k`` the mixture's components. Only generated data have sizes before loading.
    """
    from .data import GENERATORS

    name = str(data.get("generator", ""))
    if name not in GENERATORS or GENERATOR_TASKS.get(name) != task:
        return Cost(0.0, 0.0, 0.0)
    block = {key: value for key, value in data.items() if key not in ("generator",
                                                                      "test_fraction")}
    seconds, peak, held = 0.0, 0.0, 0.0
    for point in points or ({},):
        given = {**block, **{key[5:]: value for key, value in point.items()
                             if key.startswith("data.")}}
        sizes = GENERATORS[name].resolve(given)
        k = int(point.get("k") or sizes.get("k") or 1)
        for estimator in estimators:
            one = check_work(task, estimator, n=int(sizes.get("n", 1)),
                             d=int(sizes.get("d", 1)), k=k,
                             degree=float(sizes.get("degree", 0.0)), repeats=repeats,
                             budget=WorkBudget(budget.name, math.inf, budget.bytes,
                                               budget.data_bytes, budget.advice))
            seconds += one.seconds
            peak, held = max(peak, one.bytes), max(held, one.data_bytes)
    total = Cost(seconds, peak, held)
    if total.seconds > budget.seconds:
        raise ValueError(
            f"this sweep ({len(points or [{}])} points × {len(estimators)} estimators × "
            f"{repeats} repeats) is too much work {budget.name}: about {seconds:,.0f} s of "
            f"server time, and the limit is {budget.seconds:g} s. Fewer points, repeats or "
            f"smaller sizes. {budget.advice}.")
    return total
