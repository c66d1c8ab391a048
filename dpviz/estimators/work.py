"""How much work a run is, estimated from public sizes before any of it starts.

A link, an upload or a command-line flag sets n, d, k or a graph's degree; this module says,
before the data are made or read, whether the run fits a budget of time and memory, and
refuses with a sentence that names the limit and how to run bigger jobs (issue 23, item 7).
The pages check against :data:`INTERACTIVE` (every page answers within a few seconds of
server time), the command line and the API against :data:`BATCH` (memory only: what would
end in ``MemoryError`` is refused, however long it takes).

The cost model is ``seconds = base_seconds + seconds_per_unit · time units`` (plus, for
estimators that fit a learner on t chunks, ``seconds_per_chunk · t + seconds_per_pair ·
(t·k)²``, :func:`chunk_count`) and ``bytes = bytes_per_unit · memory units``, with the units
of :func:`units` (the leading term of the estimator's work, e.g. ``n·k·d·(d+1)`` for one
mixture fit) and the coefficients on each registry entry
(:class:`dpviz.core.entry.CostModel`, the task's generators' in :data:`DATA_COSTS`), fitted
on the development machine (2 cores, 24 GB) with one BLAS and OpenMP thread by ``python
bench/work_costs.py``: it measures the CPU time of every registered estimator at several
sizes per task, fits the model's terms and fails when an estimate is off by more than 2× at
a measured size; it reads the peak traced memory (``tracemalloc``, which numpy reports to)
at the largest size, rounded up. The estimate is the leading terms only, so it is meant for
the sizes where work matters; both budgets keep a margin for what it leaves out. The
engine runs every estimator on one thread (:func:`dpviz.run`), as measured.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from dpviz.core.entry import CostModel
from dpviz.core.limits import (
    BATCH_MEMORY_SHARE,
    INTERACTIVE_BYTES,
    INTERACTIVE_DATA_BYTES,
    INTERACTIVE_ROWS,
    INTERACTIVE_SECONDS,
    MAX_COLUMNS,
    MAX_UPLOAD_BYTES,
    SWEEP_SECONDS,
)

#: The pages' generators' coefficients (``estimator="<data>"``), per task; same measurement.
DATA_COSTS = MappingProxyType({
    "gmm": CostModel(1.7e-11, bytes_per_unit=19.0),
    "covariance": CostModel(4.2e-10, bytes_per_unit=33.0),
    "mean": CostModel(1.7e-08, bytes_per_unit=33.0),
    "sbm": CostModel(4.9e-08, bytes_per_unit=32.0),
})
#: What the generator of a task without a measured one costs.
DATA_DEFAULT = CostModel(1e-8, bytes_per_unit=32.0)
#: The estimator name that stands for a task's generator.
DATA = "<data>"
#: Seconds per time unit of an estimator not measured yet: one pass over the data, each unit
#: a cell. ``python bench/work_costs.py mean/laplace`` (a clipped mean: one pass) took
#: 1.3e-08 to 2.5e-08 s a cell at n·d = 2·10⁶ and 2.5·10⁶; rounded up. Not its task's
#: dearest estimator: that charged a toy O(nd) mixture estimator 5 s at n = 20 000.
UNMEASURED_SECONDS = 3e-8

#: Seconds per noise entry drawn by the exact discrete sampler (secure randomness,
#: :mod:`dpviz.privacy.discrete_noise`), rounded up from ``make bench``'s
#: ``secure_raw_gaussian_1e5`` and ``secure_sbm_page_engine``: 0.1 µs an entry on the idle
#: development machine, 0.12–0.26 µs with the other core busy (numpy's floating-point draw
#: takes about 10 ns; OpenDP's sampler, used before, 50–70 µs).
SECURE_SECONDS_PER_DRAW = 3e-7
#: DP-EM's default number of iterations, each releasing k weights, means and covariances.
DP_EM_ITERATIONS = 20
#: Seconds a page spends on its run besides the run (the figures, the error and interval
#: tables, the ledger and risk panels), by task; a page's run adds them (``page=True``).
#: /gmm: its CPU time less its runs' (``dpviz.ui.runs.compute``), with the page's modules
#: imported, was 0.04-0.2 s for sample_aggregate at n = 5 000-40 000 and 0.04-0.6 s for
#: DP-EM at n = 20 000-200 000 (d = 2, k = 2; ``python bench/work_repro.py gmm_link``):
#: flat in n, as the page draws at most 1 500 rows (:data:`dpviz.viz.mixtures.DRAW_ROWS`);
#: rounded up. Other pages: not measured, nothing added.
PAGE_SECONDS = MappingProxyType({"gmm": 0.6})

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

    Seconds (``inf``: any time), peak bytes, the bytes of the data a cache keeps and the rows
    of a file read (a page's public data domain, the same for every dataset).
    """

    name: str
    seconds: float
    bytes: float
    data_bytes: float = math.inf
    advice: str = BIGGER_JOBS
    rows: float = math.inf


def physical_memory() -> float:
    """The machine's memory in bytes (``inf`` where the OS does not say)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return math.inf


#: The pages' budget: every page answers within about five seconds of server time.
INTERACTIVE = WorkBudget("on a page", INTERACTIVE_SECONDS, INTERACTIVE_BYTES,
                         INTERACTIVE_DATA_BYTES, rows=INTERACTIVE_ROWS)
#: The command line's and the API's: any time, but a share of the machine's memory.
BATCH = WorkBudget("in one run", math.inf, BATCH_MEMORY_SHARE * physical_memory(),
                   advice=BIGGER_MACHINE)


def cost_model(task: str, estimator: str) -> CostModel:
    """The coefficients of ``task/estimator`` (its registry entry's), or of the task's data.

    Seconds not measured stay ``None``: :func:`estimate` charges :data:`UNMEASURED_SECONDS`.

    Examples
    --------
    >>> cost_model("sbm", "weak_recovery").growth, cost_model("gmm", DATA).bytes_per_unit
    ('cubic', 19.0)
    """
    from dpviz.estimators.registry import TASKS

    if estimator == DATA:
        return DATA_COSTS.get(task, DATA_DEFAULT)
    entries = TASKS.get(task, {})
    return entries[estimator].cost if estimator in entries else CostModel()


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
    if task == "gmm":  # quadratic: the estimator also compares every pair of rows
        pairs = n * n if cost_model(task, estimator).growth == "quadratic" else 0.0
        return pairs + n * k * d * (d + 1) + n * d, n * (d + k) + k * d * d
    if task in ("covariance", "factor_analysis"):  # the d × d second moment, then its eigh
        return n * d * d + d ** 3, n * d + d * d
    if task == "sbm":
        edges = n * max(float(degree), 1.0)
        growth = cost_model(task, estimator).growth
        if growth == "cubic":
            return n ** 3, n * n
        if growth == "quadratic":
            return n * n, n * n
        return edges + n, edges + n
    return n * d, n * d


def chunk_count(task: str, estimator: str, *, n: int, k: int = 1,
                params: Mapping[str, Any] | None = None) -> float:
    """The chunks t a chunked estimator fits its learner on: ``chunks``, or n / chunk_rows.

    0 for an estimator that does not chunk (its cost model's ``chunk_rows`` is 0).

    Examples
    --------
    >>> chunk_count("gmm", "sample_aggregate", n=20_000, k=2)
    500.0
    >>> chunk_count("gmm", "sample_aggregate", n=20_000, params={"chunks": 50})
    50.0
    """
    rows = cost_model(task, estimator).chunk_rows
    given = (params or {}).get("chunks")
    if not rows:
        return 0.0
    if given:
        return float(given)
    return float(max(2, min(n // rows, n // (2 * max(k, 1)))))


def secure_draws(task: str, estimator: str, *, n: int, d: int = 1, k: int = 1) -> float:
    """The noise entries one run draws: the leading term of what secure randomness costs.

    A symmetric d × d release draws d(d + 1)/2 entries, DP-EM k(1 + d + d(d + 1)/2) per
    iteration, the dense SBM releases n(n − 1)/2; every other release draws O(n + d) entries,
    which the entry's seconds per unit already cover.

    Examples
    --------
    >>> secure_draws("sbm", "weak_recovery", n=1000)
    499500.0
    """
    draws = cost_model(task, estimator).draws
    symmetric = d * (d + 1) / 2
    if draws == "pairs":
        return n * (n - 1) / 2
    if draws == "symmetric":
        return symmetric
    if draws == "mixture_iterations":
        return DP_EM_ITERATIONS * k * (1 + d + symmetric)
    return 0.0


def time_terms(task: str, estimator: str, *, n: int, d: int = 1, k: int = 1,
               degree: float = 0.0, params: Mapping[str, Any] | None = None
               ) -> tuple[float, float, float, float]:
    """What the cost model's seconds multiply: 1, the time units, the chunks t, (t·k)².

    Examples
    --------
    >>> time_terms("gmm", "sample_aggregate", n=400, d=2, k=1)
    (1.0, 3200.0, 10.0, 100.0)
    """
    time_units = units(task, estimator, n=n, d=d, k=k, degree=degree)[0]
    chunks = chunk_count(task, estimator, n=n, k=k, params=params)
    return 1.0, time_units, chunks, (chunks * max(k, 1)) ** 2


def model_seconds(model: CostModel, terms: Sequence[float]) -> float:
    """The seconds ``model`` gives one run of these :func:`time_terms`."""
    base, time_units, chunks, pairs = terms
    return (base * model.base_seconds
            + time_units * float(model.seconds_per_unit or UNMEASURED_SECONDS)
            + chunks * model.seconds_per_chunk + pairs * model.seconds_per_pair)


def estimate(task: str, estimator: str, *, n: int, d: int = 1, k: int = 1,
             degree: float = 0.0, repeats: int = 1, generate: bool = True,
             secure: bool = False, params: Mapping[str, Any] | None = None,
             page: bool = False) -> Cost:
    """The estimated cost of ``repeats`` runs of ``task/estimator`` at these sizes.

    ``generate`` adds making the data once (the pages' generators); ``secure`` adds drawing
    every noise entry with the exact discrete sampler (:func:`secure_draws`); ``params`` are
    the run's own (``chunks``); ``page`` adds what the task's page does with the run
    (:data:`PAGE_SECONDS`); the coefficients are the entry's (:func:`cost_model`).

    Examples
    --------
    >>> ran = estimate("gmm", "dp_em", n=10_000, d=2, k=2)
    >>> round(estimate("gmm", "dp_em", n=10_000, d=2, k=2, page=True).seconds - ran.seconds, 2)
    0.6
    """
    memory_units = units(task, estimator, n=n, d=d, k=k, degree=degree)[1]
    model = cost_model(task, estimator)
    draws = secure_draws(task, estimator, n=n, d=d, k=k) if secure else 0.0
    terms = time_terms(task, estimator, n=n, d=d, k=k, degree=degree, params=params)
    seconds = repeats * (model_seconds(model, terms) + draws * SECURE_SECONDS_PER_DRAW)
    if page:
        seconds += PAGE_SECONDS.get(task, 0.0)
    memory = memory_units * model.bytes_per_unit
    data_memory = units(task, DATA, n=n, d=d, k=k, degree=degree)[1]
    if generate:
        data = cost_model(task, DATA)
        seconds += model_seconds(data, time_terms(task, DATA, n=n, d=d, k=k, degree=degree))
        memory += data_memory * data.bytes_per_unit
    return Cost(seconds, memory, 8 * data_memory)


def _size_words(n: int, d: int, k: int, degree: float, task: str) -> str:
    if task == "sbm":
        return f"n = {n:,} vertices of average degree {degree:g}"
    if task == "gmm":
        return f"n = {n:,} rows, d = {d}, k = {k}"
    return f"n = {n:,} rows, d = {d}"


def check_work(task: str, estimator: str, *, n: int, d: int = 1, k: int = 1,
               degree: float = 0.0, repeats: int = 1, generate: bool = True,
               secure: bool = False, params: Mapping[str, Any] | None = None,
               budget: WorkBudget = INTERACTIVE, page: bool = False) -> Cost:
    """Refuse, before any work, a run whose estimated cost exceeds ``budget``.

    Depends on public sizes only (never on the data), so a refusal tells nothing about
    anyone's row. ``page`` counts the page's own work on the run (:func:`estimate`).

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
                    generate=generate, secure=secure, params=params, page=page)
    sizes = _size_words(n, d, k, degree, task) + (f", {repeats} runs" if repeats > 1 else "")
    if cost.seconds > budget.seconds:
        draws = repeats * secure_draws(task, estimator, n=n, d=d, k=k) if secure else 0.0
        why = (f" with secure randomness, which draws each of its {draws:,.0f} noise entries "
               f"with a float-safe sampler (about {SECURE_SECONDS_PER_DRAW * 1e9:.0f} ns an "
               "entry)" if draws * SECURE_SECONDS_PER_DRAW > budget.seconds / 2 else "")
        fits = _rows_that_fit(task, estimator, n=n, d=d, k=k, degree=degree, repeats=repeats,
                              generate=generate, secure=secure, params=params, budget=budget,
                              page=page)
        smaller = f" ({_size_words(fits, d, k, degree, task)} would fit)" if fits else ""
        lower = (f" Lower the sizes{smaller}, or turn secure randomness off to watch the "
                 "picture (teaching randomness)." if why else f" Lower the sizes{smaller}.")
        guess = (f" ({estimator}'s time is not measured yet: that guesses one pass over the "
                 "data)" if cost_model(task, estimator).seconds_per_unit is None else "")
        raise ValueError(
            f"{sizes} is too much work {budget.name}{why}: about {cost.seconds:,.0f} s of "
            f"server time{guess}, and the limit is {budget.seconds:g} s.{lower} "
            f"{budget.advice}.")
    for needed, limit in ((cost.bytes, budget.bytes), (cost.data_bytes, budget.data_bytes)):
        if needed > limit:
            raise ValueError(
                f"{sizes} needs about {_memory(needed)} of memory {budget.name}, and the "
                f"limit is {_memory(limit)}. Lower the sizes. {budget.advice}.")
    return cost


def _rows_that_fit(task: str, estimator: str, *, n: int, budget: WorkBudget,
                   **sizes: Any) -> int:
    """The largest n (rows or vertices, two significant digits) within ``budget``'s seconds.

    0 when even a handful do not fit.
    """
    low, high = 1, n
    while high - low > max(1, low // 100):
        middle = (low + high) // 2
        seconds = estimate(task, estimator, n=middle, **sizes).seconds
        low, high = (middle, high) if seconds <= budget.seconds else (low, middle)
    if estimate(task, estimator, n=low, **sizes).seconds > budget.seconds or low < 10:
        return 0
    scale = 10 ** (len(str(low)) - 2)
    return low // scale * scale


def table_rows(columns: int, budget: WorkBudget = INTERACTIVE) -> int:
    """The most rows of ``columns`` numbers a file read within ``budget`` may have.

    ``budget``'s rows, and as many 8-byte numbers as its data may take (its peak bytes when
    its data are not capped).

    Examples
    --------
    >>> table_rows(2), table_rows(200)
    (200000, 15728)
    """
    cells = min(budget.data_bytes, budget.bytes) / 8
    return int(min(budget.rows, cells // max(columns, 1)))


def check_table(raw: bytes, budget: WorkBudget = INTERACTIVE, *,
                columns: int | None = None) -> None:
    r"""Refuse, before any parsing, a CSV whose rows × columns of numbers exceed ``budget``.

    The shape is read without parsing (:func:`dpviz.data.tables.table_shape`: the lines
    counted, the first line's cells); the sentence names the cap for that many columns,
    never the file's count (a graph's edge count is what edge privacy hides). ``columns``
    counts the rows as that many columns instead of the first line's (an edge list's 2: its
    own sentence then speaks of a first line of another width).

    Raises
    ------
    ValueError
        Naming the cap and where bigger files go.

    Examples
    --------
    >>> check_table(b"a,b\n1,2\n3,4\n")
    >>> check_table((b"0," * 199 + b"0\n") * 16_000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the file has more than 15,728 rows of 200 columns, outside a page's public ...
    """
    from dpviz.data.files import too_big
    from dpviz.data.tables import table_shape

    if len(raw) > MAX_UPLOAD_BYTES:  # the file's own cap first, before reading a line
        raise ValueError(too_big(len(raw)))
    rows, first = table_shape(raw)
    if columns is None:
        columns = first
    if columns > MAX_COLUMNS:  # d is public
        raise ValueError(f"the CSV has {columns} columns; dpviz takes at most {MAX_COLUMNS}")
    cap = table_rows(columns, budget)
    if rows <= cap:
        return
    wide = f" of {columns} columns" if cap < budget.rows else ""
    if math.isfinite(budget.rows):
        numbers = f" on a page, {_memory(8 * cap * columns)} of numbers" if wide else ""
        raise ValueError(f"the file has more than {cap:,} rows{wide}, outside a page's public "
                         f"data domain (files of at most {cap:,} rows{wide}{numbers}: a limit "
                         f"the same for every dataset, stated in advance). {budget.advice}.")
    raise ValueError(f"the file has more than {cap:,} rows{wide}: {_memory(8 * cap * columns)} "
                     f"of numbers, the most dpviz reads {budget.name}. {budget.advice}.")


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
    check_work(task, DATA, n=int(params.get("n", 1)), d=int(params.get("d", 1)),
               k=int(params.get("k", 1)), degree=float(params.get("degree", 0.0)),
               generate=False, budget=budget)


def check_run(task: str, estimator: str, data: Any, params: Mapping[str, Any],
              budget: WorkBudget = BATCH, *, secure: bool = False, page: bool = False) -> None:
    """Refuse, before running, ``task/estimator`` on ``data`` when it exceeds ``budget``.

    The sizes are read off the data's shape (rows × columns) or a graph's vertex count;
    ``secure`` adds drawing the noise with float-safe samplers, ``page`` the page's own work
    on the run (:data:`PAGE_SECONDS`).
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
               degree=float(degree) if degree else 0.0, generate=False, secure=secure,
               params=params, budget=budget, page=page)


def check_scenario(task: str, estimator: str, data: Mapping[str, Any],
                   params: Mapping[str, Any], budget: WorkBudget = BATCH, *,
                   secure: bool = False, page: bool = False) -> None:
    """Refuse, before its data are generated, a run on generated data that exceeds ``budget``.

    ``data`` is a scenario's data block; only a generator's sizes are known before loading
    (a file's are checked by :func:`check_run` once read); ``secure`` and ``page`` as for
    :func:`check_run`.
    """
    from dpviz.data import GENERATORS

    name = data.get("generator")
    if name not in GENERATORS or GENERATOR_TASKS.get(str(name)) != task:
        return
    block = {key: value for key, value in data.items() if key not in ("generator",
                                                                      "test_fraction")}
    sizes = GENERATORS[str(name)].resolve(block)
    k = params.get("k") or sizes.get("k") or 1
    check_work(task, estimator, n=int(sizes.get("n", 1)), d=int(sizes.get("d", 1)), k=int(k),
               degree=float(sizes.get("degree", 0.0)), secure=secure, params=params,
               budget=budget, page=page)


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
    from dpviz.data import GENERATORS

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
                             params=point, budget=WorkBudget(budget.name, math.inf, budget.bytes,
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
