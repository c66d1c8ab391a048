"""The one sweep runner: every run of a spec through :func:`dpviz.lab.scenario.run_scenario`.

:func:`run_sweep` turns a :class:`~dpviz.lab.experiments.sweep.SweepSpec` into a table with one
row per run (here, on local processes or on a Dask cluster), each finished run cached on disk
(:mod:`dpviz.lab.experiments.cache`); :func:`replay` reruns one row alone.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from dpviz.core import limits
from dpviz.core.entry import Preparation
from dpviz.estimators.registry import estimator as lookup
from dpviz.estimators.result import to_json_value
from dpviz.lab.experiments.cache import cache_directory, from_json_value, make_cache, read_cache
from dpviz.lab.experiments.sweep import SweepSpec, run_seeds, scenario_dict
from dpviz.lab.scenario import LoadedData, Scenario, load_data, preparation, run_scenario, score

JOBS = limits.Limit("jobs", 1, 256)
#: Seconds to wait for a Dask scheduler before saying it cannot be reached.
SCHEDULER_TIMEOUT = 10

Progress = Callable[[int, int, float], None]
#: Columns read back from the cache as they were written (text, never a number).
TEXT_COLUMNS = ("task", "estimator", "failed", "not_private")


@dataclass(frozen=True)
class _Run:
    """One run to do: where its row goes, its scenario and the metrics to score."""

    index: int
    key: str
    row: dict[str, Any]
    scenario: dict[str, Any]
    metrics: tuple[str, ...]
    base: str | None = None  # the spec's folder (SweepSpec.base)


def _plan(spec: SweepSpec) -> list[_Run]:
    runs = []
    index = 0
    for point in spec.points():
        for repeat in range(spec.repeats):
            for name in spec.estimators:
                data_seed, noise_seed = run_seeds(spec, point, repeat, name)
                scenario = scenario_dict(spec, point, name, data_seed=data_seed,
                                         noise_seed=noise_seed)
                row = {"task": spec.task, "estimator": name, **point, "repeat": repeat,
                       "seed": noise_seed, "data_seed": scenario["data"].get("seed", data_seed)}
                key = hashlib.sha256(json.dumps([scenario, list(spec.metrics)],
                                                sort_keys=True).encode()).hexdigest()
                runs.append(_Run(index, key, row, scenario, spec.metrics, spec.base))
                index += 1
    return runs


def _execute(run: _Run) -> tuple[int, str, dict[str, Any]]:
    """Do one run (in this process or a worker): the row with metrics, seconds, failed."""
    scenario = Scenario.from_dict(run.scenario)
    row = dict(run.row)
    seconds = 0.0
    try:
        loaded = _prepared(scenario, load_data(scenario.data, base=run.base), run.base)
        with warnings.catch_warnings():  # the row says not_private: no warning per run
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            result = run_scenario(scenario, loaded)
            seconds = time.perf_counter() - start
        values = score(scenario, result, loaded.truth, run.metrics)
        failed, unsafe = result.failed or "", result.not_private or ""
    except ValueError as err:  # a bad combination (e.g. k > n): the row says why (no message
        values = dict.fromkeys(run.metrics, math.nan)  # quotes a data file's content)
        failed, unsafe = str(err), ""
    row.update(values)
    row["seconds"] = seconds
    row["failed"] = failed
    row["not_private"] = unsafe
    return run.index, run.key, row


def _prepared(scenario: Scenario, loaded: LoadedData, base: str | None) -> LoadedData:
    """The run's data as its estimator takes them prepared, made once per data set.

    :func:`dpviz.lab.scenario.preparation` (the entry's ``prepare`` hook: a graph's certified
    projection, covariance rows clipped with ``XᵀX`` formed). Every estimator and budget of a
    sweep with the same preparation of those data reuses it (an ε grid projects each graph
    once).
    """
    values = preparation(scenario, loaded)
    if values is None:
        return loaded
    block = json.dumps(to_json_value(dict(scenario.data)), sort_keys=True)
    return replace(loaded, data=_prepared_data(
        lookup(scenario.task, scenario.estimator).prepare, block,
        json.dumps(to_json_value(values), sort_keys=True), base))


@functools.lru_cache(maxsize=2)
def _prepared_data(hook: Preparation, block: str, values: str, base: str | None) -> Any:
    """A data block prepared with ``values``, once per process and preparation.

    Keyed by the hook, not the estimator: entries sharing a preparation share the result.
    """
    return hook.function(load_data(json.loads(block), base=base).data, **json.loads(values))


def worker_count(jobs: int, runs: int) -> int:
    """Local processes for ``runs`` runs: ``jobs``, but at most one per run and per core.

    Warns (``UserWarning``) when it gives fewer than ``jobs``.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     worker_count(256, 1), str(caught[0].message)[:27]
    (1, 'jobs = 256 capped at 1: the')
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = max(cores or 1, 1)
    workers = max(min(jobs, runs, cores), 1)
    if workers < jobs:
        warnings.warn(f"jobs = {jobs} capped at {workers}: the sweep has {runs} run"
                      f"{'s' if runs != 1 else ''} to do and this machine {cores} "
                      f"core{'s' if cores != 1 else ''}", UserWarning, stacklevel=3)
    return workers



def run_sweep(spec: SweepSpec, *, jobs: int = 1, scheduler: str | None = None,
              cache_dir: str | os.PathLike[str] | None = None,
              progress: Progress | None = None,
              should_stop: Callable[[], bool] | None = None,
              skip: Callable[[Mapping[str, Any]], str | None] | None = None,
              executor: Executor | None = None,
              finished: Callable[[Mapping[str, Any]], None] | None = None) -> pd.DataFrame:
    """Run a sweep; one row per run (``spec.columns``), finished runs cached on disk.

    Every finished run is appended to ``<cache>/<spec.digest()>.jsonl`` as it finishes, so a
    cancelled sweep loses no finished run and a second run of the same spec is answered from
    disk (rows identical, ``seconds`` included: the time the run took when it ran).

    Parameters
    ----------
    spec : SweepSpec
    jobs : int
        Local processes (joblib's loky backend, one BLAS thread each); 1 runs here. At most
        one per run to do and per core (:func:`worker_count` warns when it caps them).
    scheduler : str, optional
        ``"tcp://HOST:PORT"`` of a running Dask distributed scheduler: the runs go to its
        workers (joblib's dask backend) instead of local processes
        (:func:`check_scheduler`).
    cache_dir : path, optional
        See :func:`cache_directory`.
    progress : callable, optional
        Called as ``progress(done, total, seconds_elapsed)`` after every finished run.
    should_stop : callable, optional
        Checked after every finished run; when it returns true the sweep stops and the rows
        finished so far are returned (and kept on disk).
    skip : callable, optional
        ``skip(scenario_json)``: a reason not to run it (its row is a failed row with that
        reason, not run, not cached), or ``None``. Public inputs only (e.g. an entry's
        preconditions, :func:`dpviz.lab.experiments.winner.cannot_succeed`).
    executor : concurrent.futures.Executor, optional
        Runs the runs on it instead of ``jobs`` processes: a server's own bounded pool, whose
        threads share the process's imports and caches (a worker process starts cold).
    finished : callable, optional
        Called with each row run here as it finishes (its ``estimator`` and ``seconds`` say
        what it cost: a caller's time left).

    Returns
    -------
    pandas.DataFrame
        ``task, estimator, <grid keys>, repeat, seed, data_seed, <metrics>, seconds, failed,
        not_private`` in grid order (``failed`` is ``""`` or the reason; a run whose inputs are
        refused is a failed row, not an error; ``not_private`` is ``""`` or the result's reason
        its answer is not private). ``attrs["cached"]`` counts the rows read from disk.
    """
    jobs = limits.check_integer(JOBS, jobs)
    started = time.perf_counter()
    plan = _plan(spec)
    if scheduler is not None:
        check_scheduler(scheduler)
    directory = cache_directory(cache_dir)
    make_cache(directory)
    path = directory / f"{spec.digest()}.jsonl"
    cached = read_cache(path)
    rows: dict[int, dict[str, Any]] = {}
    for run in plan:
        if "not_private" in cached.get(run.key, {}):  # older rows did not say: run again
            rows[run.index] = {k: from_json_value(v) if k not in TEXT_COLUMNS
                               else v for k, v in cached[run.key].items()}
    from_disk = len(rows)
    for run in plan if skip is not None else ():
        why = None if run.index in rows or skip is None else skip(run.scenario)
        if why is not None:
            rows[run.index] = {**run.row, **dict.fromkeys(spec.metrics, math.nan),
                               "seconds": 0.0, "failed": why, "not_private": ""}
    # data-major order: the runs on one data set follow each other, so a process loads it once
    todo = sorted((run for run in plan if run.index not in rows),
                  key=lambda run: json.dumps(run.scenario["data"], sort_keys=True))
    total = len(plan)
    if progress is not None:
        progress(len(rows), total, time.perf_counter() - started)
    if scheduler is None and executor is None and todo:
        jobs = worker_count(jobs, len(todo))
    try:
        out = path.open("a")
    except OSError as err:
        raise ValueError(f"cannot write in the cache folder {directory}: {err.strerror}") from None
    with out:
        for index, key, row in _results(todo, jobs, scheduler, executor):
            rows[index] = row
            if finished is not None:
                finished(row)
            out.write(json.dumps({"key": key, "row": to_json_value(row)}) + "\n")
            out.flush()
            if progress is not None:
                progress(len(rows), total, time.perf_counter() - started)
            if should_stop is not None and should_stop():
                break
    table = pd.DataFrame([rows[i] for i in sorted(rows)], columns=spec.columns)
    table.attrs["cached"] = from_disk
    return table


def check_scheduler(address: str) -> None:
    """Refuse a scheduler address that is not ``tcp://HOST:PORT`` or ``tls://HOST:PORT``.

    Checked before a Dask client is made: a client built on a malformed address fails, and its
    destructor then waits and prints a traceback.

    Examples
    --------
    >>> check_scheduler("tcp://10.0.0.5:8786")
    >>> check_scheduler("notaurl")
    Traceback (most recent call last):
    ...
    ValueError: --scheduler must be tcp://HOST:PORT (or tls://HOST:PORT), got 'notaurl'
    """
    scheme, _, rest = str(address).partition("://")
    host, _, port = rest.rpartition(":")
    if (scheme not in ("tcp", "tls") or not host.strip("[]") or not port.isdigit()
            or not 0 < int(port) < 65536 or any(c.isspace() or c in "/?#@" for c in rest)):
        raise ValueError(f"--scheduler must be tcp://HOST:PORT (or tls://HOST:PORT), got "
                         f"{address!r}")


def _results(todo: list[_Run], jobs: int, scheduler: str | None,
             executor: Executor | None = None) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """The runs' rows as they finish: here, on an executor, on local processes or on Dask."""
    if not todo:
        return
    if executor is not None:
        futures = [executor.submit(_execute, run) for run in todo]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:  # stopped early: the runs not started are not run
            for future in futures:
                future.cancel()
        return
    if scheduler is None and jobs == 1:
        for run in todo:
            yield _execute(run)
        return
    import joblib

    if scheduler is not None:
        try:
            from distributed import Client
        except ImportError:  # pragma: no cover - pinned in requirements.txt
            raise ValueError("--scheduler needs dask[distributed] installed") from None
        try:
            client = Client(scheduler, timeout=SCHEDULER_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError) as err:
            raise ValueError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
        try:
            # joblib's backend is handed this client: given only the address it opens one of
            # its own that nobody closes, which retries the gone scheduler for 30 s after the
            # sweep and then logs an error into whatever runs next (a test, a page)
            with joblib.parallel_config(backend="dask", client=client):
                yield from joblib.Parallel(n_jobs=-1, return_as="generator_unordered")(
                    joblib.delayed(_execute)(run) for run in todo)
        finally:
            client.close()
        return
    with joblib.parallel_config(backend="loky", inner_max_num_threads=1):
        yield from joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")(
            joblib.delayed(_execute)(run) for run in todo)


def scenario_for_row(spec: SweepSpec, row: Mapping[str, Any]) -> Scenario:
    """The scenario of one row of ``spec``'s table: replay it alone with ``run_scenario``.

    The row's grid values, ``data_seed`` and ``seed`` (noise) are all it needs.
    """
    point = {key: _grid_value(values, row[key]) for key, values in spec.grid}
    return Scenario.from_dict(scenario_dict(spec, point, str(row["estimator"]),
                                            data_seed=int(row["data_seed"]),
                                            noise_seed=int(row["seed"])))


def _grid_value(values: tuple[Any, ...], read: Any) -> Any:
    """The grid's own value for a value read back from a table (CSV turns 1 into 1.0)."""
    for value in values:
        if value == read or str(value) == str(read):
            return value
        try:
            if float(value) == float(read):
                return value
        except (TypeError, ValueError):
            continue
    raise ValueError(f"the row's value {read!r} is not on the sweep's grid {list(values)}")


def replay(spec: SweepSpec, row: Mapping[str, Any]) -> dict[str, Any]:
    """Run one row of ``spec``'s table again alone; the recomputed row (same but ``seconds``)."""
    scenario = scenario_for_row(spec, row)
    point = {key: row[key] for key, _ in spec.grid}
    base = {"task": spec.task, "estimator": scenario.estimator, **point,
            "repeat": int(row["repeat"]), "seed": scenario.seed,
            "data_seed": int(row["data_seed"])}
    return _execute(_Run(0, "", base, scenario.to_dict(), spec.metrics, spec.base))[2]
