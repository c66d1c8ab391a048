"""Sweeps (grid × repeats, seeded, cached, in parallel) and summaries of saved tables.

:class:`SweepSpec` is the JSON spec of DESIGN.md (the explorer page builds it, ``python -m
dpviz sweep`` reads it); :func:`run_sweep` turns it into a table with one row per run;
:func:`replay` reruns one row alone. The summaries at the top (:func:`paper_reproduction`,
:func:`mean_error_medians`) read the saved tables that reproduce the papers' figures.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import os
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from . import limits
from .data.files import read_file, resolve
from .metrics import METRICS
from .result import to_json_value
from .scenario import (
    BUDGET_PARAMS,
    FILE_KINDS,
    Scenario,
    check_metrics,
    load_data,
    normalise_data,
    run_scenario,
    score,
)

#: The paper's accounting methods (in the order drawn) and the tight ones.
PAPER_METHODS = ("linear", "advanced", "zcdp", "ma", "pld")
TIGHT = ("zcdp", "ma", "pld")


@dataclass(frozen=True)
class PaperReproduction:
    """The DP-EM paper's experiment (one variant) summarised from the saved runs.

    ``curves`` has one row per (scenario, accounting, ε): the median test log-likelihood
    per point and its quartiles over the repeats; ``ceiling`` is non-private EM's median.
    ``ordering`` counts the (scenario, ε) cells where min(zCDP, MA) > advanced > linear;
    ``ggg_wins`` the (accounting, ε) cells where GGG's median beats LLG's.
    """

    curves: pd.DataFrame
    ceiling: float
    repeats: int
    ordering: tuple[int, int]
    ggg_wins: tuple[int, int]


def paper_reproduction(table: pd.DataFrame, variant: str) -> PaperReproduction:
    """Medians and quartiles of ``dp_em_paper.csv``'s runs for ``variant``, and the verdict.

    Examples
    --------
    >>> rows = [("dpviz", s, a, e, r, -1.0 * (5 - i) - (s == "LLG") + r)
    ...         for i, a in enumerate(PAPER_METHODS) for s in ("GGG", "LLG")
    ...         for e in (0.5, 1.0) for r in (0, 1)]
    >>> t = pd.DataFrame(rows, columns=["variant", "scenario", "accounting", "epsilon",
    ...                                 "repeat", "test_loglik"])
    >>> out = paper_reproduction(t, "dpviz")
    >>> out.ordering, out.ggg_wins, out.repeats
    ((4, 4), (10, 10), 2)
    """
    runs = table[table["variant"] == variant]
    if runs.empty:
        raise ValueError(f"the saved benchmark has no runs of the variant {variant!r}")
    grouped = runs.groupby(["scenario", "accounting", "epsilon"])["test_loglik"]
    curves = pd.DataFrame({"median": grouped.median(), "low": grouped.quantile(0.25),
                           "high": grouped.quantile(0.75)}).reset_index()
    em = table.loc[table["variant"] == "nonprivate_em", "test_loglik"]
    ceiling = float(em.median()) if len(em) else math.nan
    medians = curves.set_index(["scenario", "accounting", "epsilon"])["median"]
    holds = total = 0
    for _, cell in medians.groupby(level=["scenario", "epsilon"]):
        m = cell.droplevel(["scenario", "epsilon"])
        if all(a in m for a in ("zcdp", "ma", "advanced", "linear")):
            total += 1
            holds += bool(min(m["zcdp"], m["ma"]) > m["advanced"] > m["linear"])
    wide = medians.unstack("scenario")
    wins = (0, 0)
    if {"GGG", "LLG"} <= set(wide.columns):
        both = wide[["GGG", "LLG"]].dropna()
        wins = (int((both["GGG"] > both["LLG"]).sum()), len(both))
    return PaperReproduction(curves, ceiling, int(runs["repeat"].nunique()), (holds, total),
                             wins)


def mean_error_medians(table: pd.DataFrame) -> dict[str, float]:
    """The median matched mean error of each estimator in ``gmm_mean_errors.csv``.

    Examples
    --------
    >>> mean_error_medians(pd.DataFrame({"estimator": ["a", "a", "a", "b"],
    ...                                  "error": [1.0, 3.0, 2.0, 0.5]}))
    {'a': 2.0, 'b': 0.5}
    """
    grouped = table.groupby("estimator", sort=False)["error"].median()
    return {str(k): float(v) for k, v in grouped.items()}


# --- sweeps: grid × repeats, seeded per run, cached per finished run, in parallel ---------

#: Top-level fields of a sweep spec (DESIGN.md, the sweep spec).
SPEC_FIELDS = ("task", "estimators", "data", "fixed", "grid", "repeats", "seed", "metrics",
               "description")
#: The most runs one sweep may hold (grid points × repeats × estimators).
MAX_RUNS = 100_000
REPEATS = limits.Limit("repeats", 1, 10_000)
JOBS = limits.Limit("jobs", 1, 256)
#: Columns every row has besides the grid's and the metrics'.
RUN_COLUMNS = ("repeat", "seed", "data_seed")
TAIL_COLUMNS = ("seconds", "failed")
CACHE_ENV = "DPVIZ_CACHE_DIR"
DEFAULT_CACHE = Path("~/.cache/dpviz/sweeps")
#: Seconds to wait for a Dask scheduler before saying it cannot be reached.
SCHEDULER_TIMEOUT = 10

Progress = Callable[[int, int, float], None]


@dataclass(frozen=True)
class SweepSpec:
    """A sweep: estimators × grid points × repeats on one data block, scored by metrics.

    Attributes
    ----------
    task : str
        A registry task.
    estimators : tuple of str
        Its estimators, in the order rows list them.
    data : mapping
        The data block (:mod:`dpviz.scenario`). A generator's ``seed`` left out is derived
        per run (every repeat a fresh draw); given, every run uses that one draw.
    fixed : mapping
        Budget and estimator parameters shared by every run. A parameter an estimator does
        not have is not passed to it (e.g. ``iterations`` to a covariance estimator).
    grid : tuple of (key, values)
        Swept parameters, in order: ``data.X`` for a data parameter, plain names for the
        budget and the estimators' parameters.
    repeats : int
        Runs per grid point and estimator.
    seed : int
        The spec's seed, from which every run's data and noise seeds are derived.
    metrics : tuple of str
        The task's metrics (``python -m dpviz list``).
    description : str
        Free text (a title for pages and cards).
    base : str or None
        The folder a ``csv`` or ``edges`` path is read from, and then only inside it (the spec
        file's folder); ``None``: the working folder.
    """

    task: str
    estimators: tuple[str, ...]
    data: Mapping[str, Any]
    fixed: Mapping[str, Any]
    grid: tuple[tuple[str, tuple[Any, ...]], ...]
    repeats: int
    seed: int
    metrics: tuple[str, ...]
    description: str = ""
    base: str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *,
                  base: str | os.PathLike[str] | None = None) -> SweepSpec:
        """Validate a spec's JSON form: every run's scenario is checked before any runs.

        Parameters
        ----------
        d : mapping
            The spec's JSON.
        base : path, optional
            The spec file's folder: a data path is read from there, and only inside it;
            ``None``: the working folder.

        Raises
        ------
        ValueError
            A sentence naming the bad field: unknown task, estimator, metric or grid key, a
            value out of range, an empty grid list, too many runs; a data file that cannot be
            read (:func:`dpviz.data.files.read_file`: outside ``base``, not a regular file,
            over 50 MB), never quoting it.

        Examples
        --------
        >>> spec = SweepSpec.from_dict({"task": "covariance", "estimators": ["gauss"],
        ...     "data": {"generator": "zipf", "n": 1000, "d": 5}, "fixed": {},
        ...     "grid": {"rho": [0.1, 1]}, "repeats": 2, "seed": 0,
        ...     "metrics": ["frobenius_error"]})
        >>> spec.runs
        4
        >>> SweepSpec.from_dict({**spec.to_dict(), "grid": {"data.q": [1]}})
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: unknown grid key 'data.q': unknown parameter 'q' for the generator 'zipf'; ...
        """
        from .registry import estimator as lookup

        if not isinstance(d, Mapping):
            raise ValueError(f"a sweep spec is a JSON object, got {type(d).__name__}")
        unknown = sorted(set(map(str, d)) - set(SPEC_FIELDS))
        if unknown:
            raise ValueError(f"unknown sweep spec field(s) {', '.join(unknown)}; a spec has "
                             f"{', '.join(SPEC_FIELDS)}")
        for name in ("task", "estimators", "data"):
            if name not in d:
                raise ValueError(f"the sweep spec needs a {name!r} field")
        task = str(d["task"])
        names = d["estimators"]
        if isinstance(names, str) or not isinstance(names, Sequence) or not names:
            raise ValueError("estimators must be a non-empty list of registry names, got "
                             f"{names!r}")
        estimators = tuple(dict.fromkeys(str(n) for n in names))
        entries = [lookup(task, name) for name in estimators]
        data = normalise_data(task, d["data"])
        if "seed" not in d["data"]:
            data.pop("seed", None)  # derived per run
        folder = None if base is None else os.path.abspath(base)
        if "upload" in data:
            raise ValueError("a sweep reads its data itself: give a generator, a dataset or a "
                             "file path (csv, edges), not an upload")
        path = data.get("csv") or data.get("edges")
        if path is not None:  # refused now, not run by run
            read_file(path, base=folder, inside=folder is not None)
        fixed = d.get("fixed") or {}
        if not isinstance(fixed, Mapping):
            raise ValueError(f"fixed must be a JSON object of parameter values, got {fixed!r}")
        for key in fixed:
            _check_param_key(str(key), entries, "fixed")
        grid_in = d.get("grid") or {}
        if not isinstance(grid_in, Mapping):
            raise ValueError("grid must be a JSON object of lists, e.g. {\"epsilon\": [0.1, 1]}")
        grid = []
        for raw_key, values in grid_in.items():
            key = str(raw_key)
            if isinstance(values, str) or not isinstance(values, Sequence) or not values:
                raise ValueError(f"grid {key!r} must be a non-empty list of values, got "
                                 f"{values!r}")
            if key.startswith("data."):
                for value in values:
                    try:
                        normalise_data(task, {**d["data"], key[5:]: value})
                    except ValueError as err:
                        raise ValueError(f"unknown grid key {key!r}: {err}" if "unknown" in
                                         str(err) else f"grid {key!r}: {err}") from None
                    if key[5:] in FILE_KINDS:
                        read_file(value, base=folder, inside=folder is not None)
            else:
                _check_param_key(key, entries, "grid")
            grid.append((key, tuple(values)))
        repeats = limits.check_integer(REPEATS, d.get("repeats", 1))
        seed = limits.check_integer(limits.SEED, d.get("seed", 0))
        metrics = tuple(str(m) for m in (d.get("metrics") or METRICS.get(task, {})))
        if not metrics:
            raise ValueError(f"the {task} task has no metrics to sweep")
        check_metrics(task, metrics)
        spec = cls(task, estimators, MappingProxyType(data),
                   MappingProxyType({str(k): v for k, v in fixed.items()}), tuple(grid),
                   repeats, seed, metrics, str(d.get("description") or ""), folder)
        if spec.runs > MAX_RUNS:
            raise ValueError(f"the sweep has {spec.runs:,} runs; dpviz runs at most "
                             f"{MAX_RUNS:,} in one sweep: shorten the grid or the repeats")
        for point in spec.points():  # every value checked now, not half-way through
            for name in estimators:
                scenario_dict(spec, point, name, data_seed=0, noise_seed=0)
        return spec

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, which :meth:`from_dict` reads back."""
        out: dict[str, Any] = {
            "task": self.task, "estimators": list(self.estimators), "data": dict(self.data),
            "fixed": dict(self.fixed), "grid": {k: list(v) for k, v in self.grid},
            "repeats": self.repeats, "seed": self.seed, "metrics": list(self.metrics)}
        if self.description:
            out["description"] = self.description
        return to_json_value(out)

    @property
    def runs(self) -> int:
        """How many runs the sweep holds."""
        return math.prod(len(v) for _, v in self.grid) * self.repeats * len(self.estimators)

    @property
    def columns(self) -> list[str]:
        """The result table's columns, in order."""
        return ["task", "estimator", *(k for k, _ in self.grid), *RUN_COLUMNS, *self.metrics,
                *TAIL_COLUMNS]

    def points(self) -> list[dict[str, Any]]:
        """Every grid point, the last key varying fastest."""
        keys = [k for k, _ in self.grid]
        return [dict(zip(keys, values, strict=True))
                for values in itertools.product(*(v for _, v in self.grid))]

    def digest(self) -> str:
        """A hash of the spec, the file it reads and the dpviz version: its cache file's name."""
        from . import __version__

        path = self.data.get("csv") or self.data.get("edges")
        where = None if path is None else str(resolve(path, base=self.base))
        text = json.dumps({"spec": self.to_dict(), "dpviz": __version__, "file": where},
                          sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:24]


def _check_param_key(key: str, entries: Sequence[Any], where: str) -> None:
    if key == "seed":
        raise ValueError(f"{where} cannot set the seed: every run's noise seed is derived from "
                         "the spec's seed; set the spec's \"seed\" field")
    if key.startswith("data."):
        raise ValueError(f"{where} cannot hold the data key {key!r}: give fixed data "
                         "parameters in the data block")
    if key in BUDGET_PARAMS or any(p.name == key for e in entries for p in e.params):
        return
    known = sorted({p.name for e in entries for p in e.params} | set(BUDGET_PARAMS))
    raise ValueError(f"unknown {where} key {key!r}: no estimator of the sweep has it; the "
                     f"keys are data.<generator parameter> and {', '.join(known)}")


def _digest_int(value: Any) -> int:
    text = json.dumps(to_json_value(value), sort_keys=True)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def run_seeds(spec: SweepSpec, point: Mapping[str, Any], repeat: int,
              estimator: str) -> tuple[int, int]:
    """The (data seed, noise seed) of one run, from ``numpy.random.SeedSequence``.

    The data seed comes from (spec seed, the point's ``data.*`` coordinates, repeat): every
    estimator and every budget of a repeat sees the same data (a paired comparison). The noise
    seed comes from (spec seed, the whole point, repeat, estimator).

    Examples
    --------
    >>> spec = SweepSpec("mean", ("laplace", "gaussian"), {"generator": "gmm"}, {},
    ...                  (("epsilon", (1.0, 2.0)),), 1, 0, ("mean_error",))
    >>> a = run_seeds(spec, {"epsilon": 1.0}, 0, "laplace")
    >>> b = run_seeds(spec, {"epsilon": 2.0}, 0, "gaussian")
    >>> a[0] == b[0], a[1] == b[1]
    (True, False)
    """
    data_point = {k: v for k, v in point.items() if k.startswith("data.")}
    data_seed = np.random.SeedSequence([spec.seed, _digest_int(data_point), repeat])
    noise_seed = np.random.SeedSequence([spec.seed, _digest_int(dict(point)), repeat,
                                         _digest_int(estimator)])
    return (int(data_seed.generate_state(1)[0]), int(noise_seed.generate_state(1)[0]))


def scenario_dict(spec: SweepSpec, point: Mapping[str, Any], estimator: str, *,
                  data_seed: int, noise_seed: int) -> dict[str, Any]:
    """The validated :class:`~dpviz.scenario.Scenario` JSON of one run of the sweep."""
    from .registry import estimator as lookup

    own = {p.name for p in lookup(spec.task, estimator).params} | set(BUDGET_PARAMS)
    data = dict(spec.data)
    params = {k: v for k, v in spec.fixed.items() if k in own}
    for key, value in point.items():
        if key.startswith("data."):
            data[key[5:]] = value
        elif key in own:
            params[key] = value
    if "generator" in data and "seed" not in data:
        data["seed"] = data_seed
    return Scenario.from_dict({"task": spec.task, "estimator": estimator, "data": data,
                               "params": params, "seed": noise_seed}).to_dict()


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
        loaded = load_data(scenario.data, base=run.base)
        radius = scenario.params.get("radius") or loaded.radius
        if scenario.task == "covariance" and isinstance(radius, float):
            block = json.dumps(to_json_value(dict(scenario.data)), sort_keys=True)
            loaded = replace(loaded, data=_prepared_rows(block, radius, run.base))
        with warnings.catch_warnings():  # the result says not_private; a sweep row cannot
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            result = run_scenario(scenario, loaded)
            seconds = time.perf_counter() - start
        values = score(scenario, result, loaded.truth, run.metrics)
        failed = result.failed or ""
    except ValueError as err:  # a bad combination (e.g. k > n): the row says why (no message
        values = dict.fromkeys(run.metrics, math.nan)  # quotes a data file's content)
        failed = str(err)
    row.update(values)
    row["seconds"] = seconds
    row["failed"] = failed
    return run.index, run.key, row


@functools.lru_cache(maxsize=2)
def _prepared_rows(block: str, radius: float, base: str | None) -> Any:
    """A covariance data block clipped to ``B(0, radius)``, ``XᵀX`` formed once per process.

    Every estimator and budget of a sweep on those rows reuses it.
    """
    from .covariance import prepare

    return prepare(load_data(json.loads(block), base=base).data, radius)


def cache_directory(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where finished runs are kept.

    The argument, else the environment variable ``DPVIZ_CACHE_DIR``, else
    ``~/.cache/dpviz/sweeps``.
    """
    chosen = cache_dir if cache_dir is not None else os.environ.get(CACHE_ENV) or DEFAULT_CACHE
    return Path(chosen).expanduser()


def _make_cache(directory: Path) -> None:
    """Create the cache folder; a sentence when it is a file or cannot be made."""
    if directory.exists() and not directory.is_dir():
        raise ValueError(f"the cache folder {directory} is a file, not a folder; give a folder "
                         "for the finished runs (--cache-dir)")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"cannot make the cache folder {directory}: {err.strerror}") from None


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


def _read_cache(path: Path) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return found
    for line in path.read_text().splitlines():
        try:
            entry = json.loads(line)
            found[entry["key"]] = entry["row"]
        except (ValueError, KeyError, TypeError):  # a line cut short by a kill: run it again
            continue
    return found


def _from_json(value: Any) -> Any:
    return math.inf if value == "inf" else -math.inf if value == "-inf" else (
        math.nan if value is None else value)


def run_sweep(spec: SweepSpec, *, jobs: int = 1, scheduler: str | None = None,
              cache_dir: str | os.PathLike[str] | None = None,
              progress: Progress | None = None,
              should_stop: Callable[[], bool] | None = None) -> pd.DataFrame:
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

    Returns
    -------
    pandas.DataFrame
        ``task, estimator, <grid keys>, repeat, seed, data_seed, <metrics>, seconds, failed``
        in grid order (``failed`` is ``""`` or the reason; a run whose inputs are refused is
        a failed row, not an error). ``attrs["cached"]`` counts the rows read from disk.
    """
    jobs = limits.check_integer(JOBS, jobs)
    started = time.perf_counter()
    plan = _plan(spec)
    if scheduler is not None:
        check_scheduler(scheduler)
    directory = cache_directory(cache_dir)
    _make_cache(directory)
    path = directory / f"{spec.digest()}.jsonl"
    cached = _read_cache(path)
    rows: dict[int, dict[str, Any]] = {}
    for run in plan:
        if run.key in cached:
            rows[run.index] = {k: _from_json(v) if k not in ("failed", "task", "estimator")
                               else v for k, v in cached[run.key].items()}
    from_disk = len(rows)
    # data-major order: the runs on one data set follow each other, so a process loads it once
    todo = sorted((run for run in plan if run.index not in rows),
                  key=lambda run: json.dumps(run.scenario["data"], sort_keys=True))
    total = len(plan)
    if progress is not None:
        progress(len(rows), total, time.perf_counter() - started)
    if scheduler is None and todo:
        jobs = worker_count(jobs, len(todo))
    try:
        out = path.open("a")
    except OSError as err:
        raise ValueError(f"cannot write in the cache folder {directory}: {err.strerror}") from None
    with out:
        for index, key, row in _results(todo, jobs, scheduler):
            rows[index] = row
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


def _results(todo: list[_Run], jobs: int,
             scheduler: str | None) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """The runs' rows as they finish: here, on local processes, or on a Dask cluster."""
    if not todo:
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
            with joblib.parallel_config(backend="dask", scheduler_host=client.scheduler.address):
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


def write_table(table: pd.DataFrame, path: str | os.PathLike[str] | None) -> str:
    """A sweep table as CSV (``.csv``) or JSON lines (anything else; ``None``: returned)."""
    if path is not None and str(path).lower().endswith(".csv"):
        table.to_csv(path, index=False)
        return ""
    text = "".join(json.dumps(to_json_value(row), allow_nan=False) + "\n"
                   for row in table.to_dict(orient="records"))
    if path is not None:
        Path(path).write_text(text)
    return text


def read_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A table :func:`write_table` wrote, read back with the same values and ``failed`` text."""
    if str(path).lower().endswith(".csv"):
        table = pd.read_csv(path, keep_default_na=False, na_values=[""])
    else:
        records = [json.loads(line) for line in Path(path).read_text().splitlines() if line]
        table = pd.DataFrame([{k: _from_json(v) if k != "failed" else v
                               for k, v in r.items()} for r in records])
    table["failed"] = ["" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)
                       for v in table["failed"]]
    return table


def time_left(done: int, total: int, elapsed: float) -> float | None:
    """Seconds left at the pace so far (``None`` before the first run finishes).

    Examples
    --------
    >>> time_left(10, 40, 5.0), time_left(0, 40, 1.0)
    (15.0, None)
    """
    if done <= 0:
        return None
    return elapsed / done * (total - done)


def progress_line(done: int, total: int, elapsed: float) -> str:
    """One line of progress for a terminal or a progress bar.

    Examples
    --------
    >>> progress_line(10, 40, 5.0)
    'sweep: 10/40 runs, 5 s elapsed, about 15 s left'
    """
    left = time_left(done, total, elapsed)
    tail = "" if left is None or done == total else f", about {left:.0f} s left"
    return f"sweep: {done}/{total} runs, {elapsed:.0f} s elapsed{tail}"


#: z of a two-sided 95% normal interval.
Z95 = 1.959963984540054


def summarise(table: pd.DataFrame, x: str, metric: str) -> pd.DataFrame:
    """Mean of ``metric`` per (estimator, ``x``) with a 95% band: mean ± 1.96 standard errors.

    The band is the normal-approximation confidence interval of the mean over the repeats
    (standard error = sample standard deviation / √count); with one finished run it is the
    mean alone. Failed runs and NaN values are left out and counted in ``failed``.

    Returns
    -------
    pandas.DataFrame
        ``estimator, <x>, mean, low, high, count, failed``, estimators in table order.

    Examples
    --------
    >>> t = pd.DataFrame({"estimator": ["a"] * 4, "epsilon": [1, 1, 2, 2],
    ...                   "err": [1.0, 3.0, 1.0, float("nan")], "failed": ["", "", "", "x"]})
    >>> s = summarise(t, "epsilon", "err")
    >>> s["mean"].tolist(), s["count"].tolist(), s["failed"].tolist()
    ([2.0, 1.0], [2, 1], [0, 1])
    """
    for column in ("estimator", x, metric):
        if column not in table.columns:
            raise ValueError(f"the table has no column {column!r}; its columns are: "
                             f"{', '.join(map(str, table.columns))}")
    ok = table[metric].notna() & (table["failed"] == "")
    rows = []
    for (name, value), group in table.groupby(["estimator", x], sort=False):
        values = group.loc[ok[group.index], metric].astype(float)
        count = int(values.size)
        mean = float(values.mean()) if count else math.nan
        half = Z95 * float(values.std(ddof=1)) / math.sqrt(count) if count > 1 else 0.0
        rows.append({"estimator": name, x: value, "mean": mean, "low": mean - half,
                     "high": mean + half, "count": count, "failed": int(len(group) - count)})
    out = pd.DataFrame(rows, columns=["estimator", x, "mean", "low", "high", "count", "failed"])
    order = {name: i for i, name in enumerate(dict.fromkeys(table["estimator"]))}
    return out.sort_values(["estimator", x], key=lambda c: c.map(order) if c.name ==
                           "estimator" else c, kind="stable").reset_index(drop=True)


# --- compare: every estimator on the same data and budget -----------------------------------

#: The metrics of the Gaussian mixtures page's compare view, in the order drawn.
COMPARE_METRICS = ("mean_error", "weight_error", "covariance_error", "nicv")


def compare_spec(scenario: Scenario, estimators: Sequence[str], *, repeats: int,
                 metrics: Sequence[str] = COMPARE_METRICS) -> SweepSpec:
    """A sweep with no grid: ``estimators`` on the scenario's one data draw and budget.

    The data block keeps its seed, so every estimator and every repeat sees the same rows;
    the repeats differ in their noise only (seeds derived from the scenario's noise seed).
    A budget or parameter an estimator does not take is not passed to it.

    Examples
    --------
    >>> s = Scenario.from_dict({"task": "gmm", "estimator": "dp_em",
    ...     "data": {"generator": "gmm", "n": 500, "seed": 3},
    ...     "params": {"epsilon": 1.0, "delta": 1e-5}, "seed": 7})
    >>> spec = compare_spec(s, ["dp_em", "dplloyd"], repeats=2)
    >>> spec.runs, spec.data["seed"], spec.seed
    (4, 3, 7)
    """
    fixed = {k: v for k, v in scenario.params.items() if v is not None}
    return SweepSpec.from_dict({
        "task": scenario.task, "estimators": list(estimators), "data": dict(scenario.data),
        "fixed": fixed, "grid": {}, "repeats": repeats,
        "seed": 0 if scenario.seed is None else scenario.seed, "metrics": list(metrics),
        "description": "every estimator on the same data and budget"})


def compare_summary(table: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """Per estimator: each metric's mean with its 95% band, the success rate, the run time.

    Failed runs (an honest ⊥, or a refused input) count against the success rate and are
    left out of the metrics. Columns: ``estimator, runs, succeeded, success_rate, seconds``
    (median) and ``<metric>, <metric>_low, <metric>_high`` for each metric.

    Examples
    --------
    >>> t = pd.DataFrame({"estimator": ["a", "a", "b"], "err": [1.0, 3.0, float("nan")],
    ...                   "failed": ["", "", "⊥"], "seconds": [0.1, 0.3, 0.2]})
    >>> s = compare_summary(t, ["err"])
    >>> s[["estimator", "success_rate", "err"]].values.tolist()
    [['a', 1.0, 2.0], ['b', 0.0, nan]]
    """
    point = table.assign(_point=0)
    out = pd.DataFrame({"estimator": list(dict.fromkeys(table["estimator"]))})
    grouped = point.groupby("estimator", sort=False)
    runs = grouped.size()
    succeeded = grouped["failed"].apply(lambda f: int((f == "").sum()))
    out["runs"] = out["estimator"].map(runs).astype(int)
    out["succeeded"] = out["estimator"].map(succeeded).astype(int)
    out["success_rate"] = out["succeeded"] / out["runs"]
    out["seconds"] = out["estimator"].map(grouped["seconds"].median())
    for metric in metrics:
        bands = summarise(point, "_point", metric).set_index("estimator")
        out[metric] = out["estimator"].map(bands["mean"])
        out[f"{metric}_low"] = out["estimator"].map(bands["low"])
        out[f"{metric}_high"] = out["estimator"].map(bands["high"])
    return out
