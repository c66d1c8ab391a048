"""Winner maps: which private estimator has the lowest error where, over two axes.

A winner map is a sweep whose grid has two keys (:class:`~dpviz.lab.experiments.sweep.SweepSpec`,
run by the one runner, :func:`~dpviz.lab.experiments.runner.run_sweep`). Per grid cell and
estimator the score is the median of the metric over the repeats, a failed run (⊥) counting as
an infinitely bad one. A cell names one winner only when its lead is established
(:func:`contenders`: a paired bootstrap interval of the median difference from every other
estimator excludes 0); otherwise it is a tie of every estimator not established worse. Runs
whose result is not private (``not_private``, e.g. the exponential mechanism's Metropolis chain
beyond n = 20) never win: the estimator is left out of the cell's ranking and listed as not
private there. The margin over the runner-up is ``|w − r| / max(|w|, |r|)`` (for an error,
``1 − w/r``: 0.4 means 40% less error). Runs that an entry's public preconditions
(:meth:`dpviz.core.entry.Estimator.cannot_run`) rule out are not run (:func:`cannot_succeed`,
the runner's ``skip`` hook): their rows say so and count as ⊥.

Drawn with each map: the papers' thresholds (:data:`THRESHOLDS`: Kesten–Stigum for the SBM,
Chen, Cohen-Addad, d'Orsi et al. 2023; GaussCov/SeparateCov's crossover d ≈ n^(2/3) at trace 1,
Dong, Liang & Yi 2022) and each estimator's sample-size bound, searched from its entry's
preconditions (:func:`bound_lines`). Saved full-resolution maps (:func:`save_map`,
:func:`load_map`, each with the command and registry version that made it) are made by
``python bench/winner.py --save``, ε across and n up, at the pages' default settings
(:func:`map_settings`), seeds derived from 0; their grids, repeats and times are in
``bench/winner.py``.

The live map (:data:`LIVE_POINTS` × :data:`LIVE_POINTS` on :data:`LIVE_JOBS` processes,
:data:`LIVE_REPEATS`) is timed by ``make bench``.
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from dpviz.estimators.metrics import metric_label
from dpviz.estimators.registry import TASKS, common_param
from dpviz.estimators.registry import estimator as lookup
from dpviz.estimators.result import to_json_value
from dpviz.estimators.work import WorkBudget, check_work
from dpviz.lab.experiments.cache import from_json_value
from dpviz.lab.experiments.runner import Progress, run_sweep
from dpviz.lab.experiments.sweep import SweepSpec, digest_int, scenario_dict
from dpviz.lab.experiments.tables import read_table, write_table
from dpviz.lab.feasibility import sizes_of
from dpviz.lab.provenance import record, stale, stamp

ROOT = Path(__file__).resolve().parents[3]
#: Where the saved maps live: ``<sweeps>/winner_<task>.json`` (the spec),
#: ``<results>/winner_<task>.csv`` (its table) and ``<results>/winner_<task>_lines.json``.
SWEEPS, RESULTS = ROOT / "assets" / "sweeps", ROOT / "assets" / "results"
#: A skipped run's ``failed`` text starts with this.
NOT_RUN = "not run: cannot succeed at these public sizes: "


@dataclass(frozen=True)
class Axis:
    """One axis a winner map can sweep: a grid key, its words and its range.

    Attributes
    ----------
    key : str
        The sweep's grid key (``epsilon`` or ``data.<generator parameter>``).
    label : str
        The axis title shown on pages.
    low, high : float
        The range a map spans (the live map's widest).
    log : bool
        Log-spaced values.
    integer : bool
        Integer values (rounded, duplicates dropped).
    """

    key: str
    label: str
    low: float
    high: float
    log: bool = True
    integer: bool = False

    def values(self, count: int, low: float | None = None,
               high: float | None = None) -> tuple[float | int, ...]:
        """``count`` values from ``low`` to ``high`` (the axis's range by default), rounded.

        Two significant digits (integers for an integer axis), duplicates dropped.

        Examples
        --------
        >>> AXES["gmm"]["epsilon"].values(5)
        (0.1, 0.32, 1.0, 3.2, 10.0)
        >>> AXES["sbm"]["data.n"].values(3, 200, 800)
        (200, 400, 800)
        """
        lo = self.low if low is None else float(low)
        hi = self.high if high is None else float(high)
        if not (lo > 0 if self.log else True) or not hi >= lo:
            raise ValueError(f"the range of {self.label} must be {'0 < ' if self.log else ''}"
                             f"from <= to, got {lo:g} to {hi:g}")
        raw = np.geomspace(lo, hi, count) if self.log else np.linspace(lo, hi, count)
        out: list[float | int] = []
        for value in raw:
            rounded = float(f"{value:.2g}")
            shown: float | int = int(round(rounded)) if self.integer else rounded
            if shown not in out:
                out.append(shown)
        return tuple(out)


def _axes(*axes: Axis) -> Mapping[str, Axis]:
    return MappingProxyType({axis.key: axis for axis in axes})


EPSILON = Axis("epsilon", "ε (privacy budget)", 0.1, 10.0)
#: The axes each task's map can sweep (its generator's parameters and ε).
AXES: Mapping[str, Mapping[str, Axis]] = MappingProxyType({
    "gmm": _axes(EPSILON, Axis("data.n", "n (rows)", 500, 20_000, integer=True),
                 Axis("data.d", "d (dimension)", 1, 20, integer=True),
                 Axis("data.separation", "separation (in standard deviations)", 1.0, 10.0,
                      log=False)),
    "covariance": _axes(EPSILON, Axis("data.n", "n (rows)", 1_000, 50_000, integer=True),
                        Axis("data.d", "d (dimension)", 10, 400, integer=True),
                        Axis("data.buckets", "norm buckets N (trace shrinks as N grows)", 1,
                             16, integer=True)),
    "sbm": _axes(Axis("epsilon", "ε (privacy budget)", 0.25, 8.0),
                 Axis("data.n", "n (vertices)", 200, 1_000, integer=True),
                 Axis("data.degree", "average degree d", 5.0, 200.0),
                 Axis("data.signal", "signal ε_s", 0.05, 1.0)),
})
#: The default axes: ε across, n up.
DEFAULT_AXES = ("epsilon", "data.n")
#: The generator each task's maps draw their data from.
GENERATOR: Mapping[str, str] = MappingProxyType({"gmm": "gmm", "covariance": "zipf",
                                                 "sbm": "sbm"})
#: Each page's default scenario as a map holds it fixed (its widgets' defaults): the data
#: parameters that differ from the generator's defaults, and the budget. The saved maps are
#: made at these (:func:`map_settings` without a scenario).
PAGE_DATA: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "gmm": MappingProxyType({}),
    "covariance": MappingProxyType({"n": 10_000, "d": 50}),
    "sbm": MappingProxyType({}),
})
FIXED: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "gmm": MappingProxyType({"epsilon": 1.0, "delta": 1e-5}),
    "covariance": MappingProxyType({"rho": 0.1, "delta": 0.0}),
    "sbm": MappingProxyType({"epsilon": 2.0, "delta": 1e-6, "accounting": "pld"}),
})
#: The metrics a map can rank by (the first is the default).
METRICS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "gmm": ("mean_error", "weight_error", "covariance_error"),
    "covariance": ("frobenius_error",),
    "sbm": ("error_rate",),
})
#: The live map the pages compute: its size, processes and repeats per cell and estimator
#: (``make bench`` times it at these: ``bench/winner.py``). :data:`MIN_REPEATS` or more name
#: winners (measured under load ≈ 4 on 2 cores: mixtures 94 s at 5, covariance 9 s at 10);
#: the SBM's one repeat (42 s; 5 would take minutes) names none: its cells with two or more
#: answers are ties.
LIVE_POINTS = 5
LIVE_JOBS = 2
LIVE_REPEATS: Mapping[str, int] = MappingProxyType({"gmm": 5, "covariance": 10, "sbm": 1})
#: Budget keys a page's scenario may fix for a map.
BUDGET_KEYS = ("epsilon", "rho", "delta", "accounting")


def private_estimators(task: str) -> tuple[str, ...]:
    """The task's private estimators, in registry order (new registrations included)."""
    return tuple(name for name, entry in TASKS[task].items() if entry.notion != "none")


def map_settings(task: str, data: Mapping[str, Any] | None = None,
                 params: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The data block and budget a map holds fixed, from a page's scenario (its data, params).

    Without a scenario, or with data of another kind than the task's generator (a file, a
    bundled set), the page's default data (:data:`PAGE_DATA`); the budget is the scenario's
    (ε or ρ, δ, accounting) over the page's default (:data:`FIXED`).

    Examples
    --------
    >>> map_settings("covariance", {"generator": "zipf", "n": 2000, "seed": 4},
    ...              {"epsilon": 0.5, "eigenvector_share": 0.5})
    ({'n': 2000}, {'delta': 0.0, 'epsilon': 0.5})
    >>> map_settings("covariance", {"dataset": "digits"})
    ({'n': 10000, 'd': 50}, {'rho': 0.1, 'delta': 0.0})
    """
    block = dict(data or {})
    own = ({k: v for k, v in block.items() if k not in ("generator", "seed")}
           if block.get("generator") == GENERATOR[task] else dict(PAGE_DATA[task]))
    budget = {k: v for k, v in (params or {}).items() if k in BUDGET_KEYS and v is not None}
    fixed = dict(FIXED[task])
    if {"epsilon", "rho"} & set(budget):
        fixed.pop("epsilon", None)
        fixed.pop("rho", None)
    return own, {**fixed, **budget}


def same_settings(a: SweepSpec, b: SweepSpec) -> bool:
    """Whether two maps hold the same data parameters and budget fixed (grids aside).

    The generator's and the accounting's defaults count as given.
    """
    return _settings(a) == _settings(b)


def _settings(spec: SweepSpec) -> dict[str, Any]:
    swept = {key for key, _ in spec.grid}
    data = {k: v for k, v in resolved_data(spec).items()
            if f"data.{k}" not in swept and k != "seed"}
    budget = {"accounting": common_param("accounting").default, **spec.fixed}
    return {"data": data, "budget": {k: v for k, v in budget.items() if k not in swept}}


def map_spec(task: str, x: str, y: str, xs: Sequence[Any], ys: Sequence[Any], *,
             data: Mapping[str, Any] | None = None, fixed: Mapping[str, Any] | None = None,
             repeats: int, seed: int = 0, metric: str | None = None,
             estimators: Sequence[str] | None = None) -> SweepSpec:
    """The sweep of a winner map: ``x`` × ``y`` on the task's generator, every estimator.

    ``data`` and ``fixed`` (the page's defaults, :data:`PAGE_DATA` and :data:`FIXED`, when
    left out) give everything the axes do not; a data seed is dropped (every repeat a fresh
    draw). An ε axis drops a fixed ρ.

    Examples
    --------
    >>> spec = map_spec("covariance", "epsilon", "data.n", [0.5, 2], [1000, 4000], repeats=2)
    >>> spec.runs == 2 * 2 * 2 * len(private_estimators("covariance")), spec.metrics
    (True, ('frobenius_error',))
    """
    axes = AXES[task]
    for key in (x, y):
        if key not in axes:
            raise ValueError(f"unknown axis {key!r} for the {task} map; the axes are "
                             f"{', '.join(axes)}")
    if x == y:
        raise ValueError(f"a winner map needs two different axes, got {x!r} twice")
    block = {k: v for k, v in (PAGE_DATA[task] if data is None else data).items()
             if k != "seed"}
    block["generator"] = GENERATOR[task]
    budget = {k: v for k, v in (fixed if fixed is not None else FIXED[task]).items()
              if k not in (x, y) and v is not None}
    if "epsilon" in (x, y):
        budget.pop("rho", None)
    elif "epsilon" not in budget and "rho" not in budget:
        budget.update({k: v for k, v in FIXED[task].items() if k in ("epsilon", "rho")})
    for key in (x, y):
        if key.startswith("data."):
            block.pop(key[5:], None)
    return SweepSpec.from_dict({
        "task": task, "estimators": list(estimators or private_estimators(task)),
        "data": block, "fixed": budget, "grid": {x: list(xs), y: list(ys)},
        "repeats": repeats, "seed": seed, "metrics": [metric or METRICS[task][0]],
        "description": f"winner map of the {task} estimators"})


def public_sizes(scenario: Mapping[str, Any]) -> dict[str, Any] | None:
    """The public sizes and budget a precondition reads, from a run's scenario JSON.

    ``None`` when the data block states no n (a file or a bundled set).

    Examples
    --------
    >>> public_sizes({"task": "gmm", "estimator": "ppe", "data": {"generator": "gmm",
    ...     "n": 1000, "d": 2, "k": 3}, "params": {"epsilon": 1.0, "delta": 1e-5}})
    {'n': 1000, 'd': 2, 'k': 3, 'epsilon': 1.0, 'delta': 1e-05, 'accounting': 'zcdp'}
    """
    data, params = scenario["data"], scenario.get("params") or {}
    if "n" not in data:
        return None
    if "epsilon" in params:  # JSON's "inf"
        params = {**params, "epsilon": from_json_value(params["epsilon"])}
    return sizes_of(lookup(scenario["task"], scenario["estimator"]), n=data["n"],
                    d=data.get("d", 1), k=data.get("k"), params=params)


@functools.lru_cache(maxsize=4096)
def _cannot_run(task: str, name: str, sizes: str) -> str | None:
    """The entry's precondition at these sizes (JSON), once per process and sizes."""
    return lookup(task, name).cannot_run(**json.loads(sizes))


def cannot_succeed(scenario: Mapping[str, Any]) -> str | None:
    """Why a run cannot succeed at its public sizes (the row's ``failed`` text), or ``None``.

    The runner's ``skip`` hook: public inputs only (sizes, budget, parameters), so skipping
    says nothing about anyone's row. Answers are cached per sizes (some entries solve their
    accounting afresh for every ε, about a second each).

    Examples
    --------
    >>> cannot_succeed({"task": "gmm", "estimator": "ppe", "data": {"generator": "gmm",
    ...     "n": 1000, "d": 2, "k": 3}, "params": {"epsilon": 1.0, "delta": 1e-5}})[:45]
    'not run: cannot succeed at these public sizes'
    """
    sizes = public_sizes(scenario)
    if sizes is None or _trivial(scenario["task"], scenario["estimator"]):
        return None
    why = _cannot_run(scenario["task"], scenario["estimator"], json.dumps(sizes, sort_keys=True))
    return None if why is None else NOT_RUN + why


def run_map(spec: SweepSpec, *, jobs: int = 1, scheduler: str | None = None,
            cache_dir: str | os.PathLike[str] | None = None,
            progress: Progress | None = None,
            should_stop: Callable[[], bool] | None = None,
            budget: WorkBudget | None = None) -> pd.DataFrame:
    """:func:`~dpviz.lab.experiments.runner.run_sweep` with runs that cannot succeed skipped.

    On an ε × n map the preconditions are asked along their boundary only
    (:func:`staircase`); elsewhere run by run (:func:`cannot_succeed`). With ``budget`` (a
    page's :data:`~dpviz.estimators.work.SWEEP`), a map whose runs exceed it is refused before any
    of them starts (:func:`check_map`).
    """
    skip = map_skips(spec, jobs if scheduler is None else 1)
    if budget is not None:
        check_map(spec, skip, budget)
    return run_sweep(spec, jobs=jobs, scheduler=scheduler, cache_dir=cache_dir,
                     progress=progress, should_stop=should_stop, skip=skip)


def check_map(spec: SweepSpec, skip: Callable[[Mapping[str, Any]], str | None],
              budget: WorkBudget) -> float:
    """Refuse a map whose runs that ``skip`` keeps exceed ``budget``; else their seconds.

    Every kept run is charged its estimate (:func:`dpviz.estimators.work.check_work`, one run's
    memory against the budget too).

    Raises
    ------
    ValueError
        Naming the runs, the estimate, the limit and how many repeats would fit.
    """
    seconds, runs = 0.0, 0
    for point in spec.points():
        for name in spec.estimators:
            scenario = scenario_dict(spec, point, name, data_seed=0, noise_seed=0)
            if skip(scenario) is not None:
                continue
            data, params = scenario["data"], scenario["params"]
            seconds += check_work(
                spec.task, name, n=int(data.get("n", 1)), d=int(data.get("d", 1)),
                k=int(params.get("k") or data.get("k") or 1),
                degree=float(data.get("degree", 0.0)), repeats=spec.repeats, params=params,
                budget=WorkBudget(budget.name, math.inf, budget.bytes, budget.data_bytes,
                                  budget.advice)).seconds
            runs += spec.repeats
    if seconds > budget.seconds:
        fits = int(spec.repeats * budget.seconds / seconds)
        fewer = (f"{fits} repeat{'s' if fits != 1 else ''} per cell would fit" if fits else
                 "narrow the ranges or lower the fixed sizes")
        raise ValueError(
            f"this map ({runs:,} runs that can succeed) is too much work {budget.name}: about "
            f"{seconds:,.0f} s of server time, and the limit is {budget.seconds:g} s; "
            f"{fewer}. {budget.advice}.")
    return seconds


#: Axes along which a precondition is monotone: more rows or a larger ε never hurt.
MONOTONE = ("epsilon", "data.n")


def staircase(ask: Callable[[int, int], str | None], across: int,
              up: int) -> dict[tuple[int, int], tuple[str | None, tuple[int, int] | None]]:
    """Every cell's answer on a grid where passing is monotone in both indices.

    ``ask(i, j)`` is a reason (fails) or ``None`` (passes) at column ``i``, row ``j``; a cell
    passes whenever one below-left of it does. The walk asks at most ``across + up`` cells
    (along the boundary) and answers each cell with ``(reason, where)``: ``where`` is the
    asked cell the answer is read from (itself when asked).

    Examples
    --------
    >>> asked = []
    >>> def ask(i, j):
    ...     asked.append((i, j))
    ...     return None if i + j >= 3 else "too small"
    >>> cells = staircase(ask, 3, 3)
    >>> [[cells[i, j][0] is None for i in range(3)] for j in range(3)]
    [[False, False, False], [False, False, True], [False, True, True]]
    >>> len(asked) <= 6, cells[0, 0]
    (True, ('too small', (0, 2)))
    """
    out: dict[tuple[int, int], tuple[str | None, tuple[int, int] | None]] = {}
    j = up - 1
    for i in range(across):
        for row in range(j + 1, up):  # above the last failure: passes (it passed left of here)
            out[i, row] = (None, None)
        while j >= 0:
            reason = ask(i, j)
            out[i, j] = (reason, (i, j))
            if reason is not None:
                for row in range(j):  # fewer rows never help
                    out[i, row] = (reason, (i, j))
                break
            j -= 1
        else:
            continue
    return out


def map_skips(spec: SweepSpec, jobs: int = 1) -> Callable[[Mapping[str, Any]], str | None]:
    """The runner's skip hook for a map: :func:`cannot_succeed`, asked as little as it can.

    On an ε × n grid every estimator's preconditions are walked by :func:`staircase` (the
    estimators side by side on ``jobs`` local processes); a cell answered from another says
    so. Other grids ask run by run.
    """
    (x, _), (y, _) = spec.grid
    if {x, y} != set(MONOTONE):
        return cannot_succeed
    names = [name for name in spec.estimators if not _trivial(spec.task, name)]
    if jobs > 1 and len(names) > 1:
        import joblib

        with joblib.parallel_config(backend="loky", inner_max_num_threads=1):
            found = joblib.Parallel(n_jobs=min(jobs, len(names)))(
                joblib.delayed(_walk)(spec.to_dict(), name) for name in names)
    else:
        found = [_walk(spec.to_dict(), name) for name in names]
    answers = {key: reason for part in found for key, reason in part.items()}

    def skip(scenario: Mapping[str, Any]) -> str | None:
        key = (str(scenario["estimator"]), float(from_json_value(scenario["params"]["epsilon"])),
               int(scenario["data"]["n"]))
        return answers[key] if key in answers else cannot_succeed(scenario)

    return skip


def _walk(spec_json: Mapping[str, Any], name: str) -> dict[tuple[str, float, int], str | None]:
    """One estimator's answers on an ε × n map (:func:`staircase`), by (name, ε, n)."""
    spec = SweepSpec.from_dict(spec_json)
    grid = dict(spec.grid)
    eps_order = sorted(grid["epsilon"], key=float)
    n_order = sorted(grid["data.n"], key=float)

    def ask(i: int, j: int) -> str | None:
        point = {"epsilon": eps_order[i], "data.n": n_order[j]}
        return cannot_succeed(scenario_dict(spec, point, name, data_seed=0, noise_seed=0))

    answers: dict[tuple[str, float, int], str | None] = {}
    for (i, j), (reason, where) in staircase(ask, len(eps_order), len(n_order)).items():
        if reason is not None and where is not None and where != (i, j):
            reason = (f"{NOT_RUN}{short_name(lookup(spec.task, name).label)}'s preconditions "
                      f"already fail at ε = {float(eps_order[where[0]]):g}, n = "
                      f"{int(n_order[where[1]]):,}; fewer rows or less ε never help: "
                      f"{reason[len(NOT_RUN):]}")
        answers[name, float(eps_order[i]), int(n_order[j])] = reason
    return answers


def short_name(label: str) -> str:
    """An estimator's label without its parenthesis or dash tail.

    Examples
    --------
    >>> short_name("Stability learner — heuristic (degree-2 SDP surrogate)")
    'Stability learner'
    """
    return label.split(" (")[0].split(" — ")[0].strip()


# --- who wins where ---------------------------------------------------------------------------

#: The tie rule (:func:`contenders`): the bootstrap interval's level and its resamples.
LEVEL, RESAMPLES = 0.95, 2_000
#: Runs on each side before a lead can be established: with fewer the percentile interval is
#: too narrow (two estimators drawn from one distribution, 300 trials: a "winner" in 23% at 3
#: runs, 12% at 4, 7% at 5, 4% at 7).
MIN_REPEATS = 5


def cell_runs(group: pd.DataFrame, metric: str, *,
              higher: bool = False) -> dict[str, np.ndarray]:
    """Each estimator's values of ``metric`` in one cell, in repeat order, a ⊥ run the worst.

    ``higher``: the metric is a score (higher is better), not an error, and ⊥ is −inf. An
    estimator with no scored run (the metric does not apply to it) is left out.

    Examples
    --------
    >>> t = pd.DataFrame({"estimator": ["a", "a", "a", "b", "b"],
    ...                   "err": [1.0, 2.0, float("nan"), 0.5, float("nan")],
    ...                   "failed": ["", "", "⊥", "", "⊥"]})
    >>> {name: v.tolist() for name, v in cell_runs(t, "err").items()}
    {'a': [1.0, 2.0, inf], 'b': [0.5, inf]}
    """
    worst = -math.inf if higher else math.inf
    if "repeat" in group:
        group = group.sort_values("repeat", kind="stable")
    out = {}
    for name, runs in group.groupby("estimator", sort=False):
        values = np.where(runs["failed"] != "", worst, runs[metric].astype(float))
        values = values[~np.isnan(values)]
        if values.size:
            out[str(name)] = values
    return out


def not_private_here(group: pd.DataFrame) -> list[str]:
    """The estimators with an answer in this cell that is not private (left out of the ranking).

    Read from the table's ``not_private`` column (the result's reason, empty when private);
    a table without that column is taken as private.
    """
    if "not_private" not in group:
        return []
    flagged = group["not_private"].map(lambda v: isinstance(v, str) and v != "")
    return list(dict.fromkeys(str(n) for n in
                              group.loc[flagged & (group["failed"] == ""), "estimator"]))


def contenders(runs: Mapping[str, Sequence[float] | np.ndarray], *, higher: bool = False,
               level: float = LEVEL, resamples: int = RESAMPLES) -> list[str]:
    """The estimators not established worse than the one with the best median, best first.

    ``runs``: each estimator's values in one cell, in repeat order (a ⊥ run as ±inf, the
    worst). Another estimator is established worse when the percentile bootstrap interval
    (``level``, ``resamples`` resamples) of its median minus the best's lies above 0 (below
    for a score). Estimators with as many runs are resampled by the same repeats (paired: every
    estimator of a repeat sees the same data); with fewer than :data:`MIN_REPEATS` runs on
    either side nothing is established. The resamples are seeded from the values, so a table
    gives the same answer every time it is read. An estimator whose median is ⊥ is no
    contender. One name: the best is established; more: a tie.

    Examples
    --------
    >>> contenders({"a": [1.0, 1.1, 0.9, 1.0, 1.2], "b": [2.0, 2.1, 1.9, 2.2, 2.0]})
    ['a']
    >>> contenders({"a": [1.0, 1.1, 0.9, 1.0], "b": [2.0, 2.1, 1.9, 2.2]})  # too few runs
    ['a', 'b']
    >>> contenders({"a": [1.0, 1.5, 0.9, 1.2, 1.1], "b": [1.2, 1.0, 1.4, 1.3, 1.0],
    ...             "c": [math.inf] * 5})
    ['a', 'b']
    >>> contenders({"a": [0.0] * 5, "b": [0.0] * 5})
    ['a', 'b']
    """
    sign = -1.0 if higher else 1.0
    values = {str(name): sign * np.asarray(v, dtype=float) for name, v in runs.items() if len(v)}
    ranked = sorted((float(np.median(v)), name) for name, v in values.items())
    ranked = [(m, name) for m, name in ranked if math.isfinite(m)]
    if not ranked:
        return []
    rng = np.random.default_rng(digest_int(sorted(
        [name, [f"{value:.10g}" for value in v]] for name, v in values.items())))
    picks: dict[int, np.ndarray] = {}  # one resampling of the repeats per count: paired

    def medians(v: np.ndarray) -> np.ndarray:
        if v.size not in picks:
            picks[v.size] = rng.integers(0, v.size, size=(resamples, v.size))
        return np.median(v[picks[v.size]], axis=1)

    best = values[ranked[0][1]]
    base = medians(best)
    out = [ranked[0][1]]
    for _, name in ranked[1:]:
        v = values[name]
        if min(v.size, best.size) >= MIN_REPEATS:
            difference = np.nan_to_num(medians(v) - base, nan=0.0)  # ⊥ against ⊥: none
            if np.quantile(difference, (1 - level) / 2, method="lower") > 0:
                continue
        out.append(name)
    return out


def margin(best: float, second: float) -> float:
    """How much better ``best`` is than ``second``: ``|b − s| / max(|b|, |s|)``, 1 if ⊥.

    Examples
    --------
    >>> margin(0.6, 1.0), margin(0.5, math.inf), margin(0.0, 0.0)
    (0.4, 1.0, 0.0)
    """
    if not math.isfinite(second):
        return 1.0
    scale = max(abs(best), abs(second))
    return 0.0 if scale == 0 else abs(second - best) / scale


def winners(table: pd.DataFrame, x: str, y: str, metric: str, *,
            higher: bool = False) -> pd.DataFrame:
    """Per cell of an ``x`` × ``y`` sweep table: the winner or a tie, the margin, who failed.

    ``higher``: the metric is a score (the highest median wins), not an error.

    Returns
    -------
    pandas.DataFrame
        One row per (``x``, ``y``) in table order: ``winner`` (the best median among the
        private answers, the cell's winner when ``tied`` is empty; ``None`` when none
        answers), ``score`` (its median), ``runner_up``, ``runner_up_score``, ``margin``
        (:func:`margin`; 1 when it alone answers), ``tied`` (:func:`contenders` when no lead
        is established: the best first; else empty), ``failed`` (names whose median is ⊥
        from runs that ran), ``not_run`` (names whose runs were skipped as unable to
        succeed), ``not_private`` (names with an answer that is not private here: left out of
        the ranking) and ``scores`` (every estimator's median).

    Examples
    --------
    >>> t = pd.DataFrame({"estimator": ["a", "b", "c"] * 2, "epsilon": [1] * 3 + [2] * 3,
    ...     "n": [10] * 6, "err": [1.0, 0.5, float("nan"), 1.0, 2.0, float("nan")],
    ...     "failed": ["", "", "⊥", "", "", NOT_RUN + "too small"]})
    >>> w = winners(t, "epsilon", "n", "err")
    >>> w[["winner", "runner_up", "margin", "tied"]].values.tolist()  # one run: no lead known
    [['b', 'a', 0.5, ['b', 'a']], ['a', 'b', 0.5, ['a', 'b']]]
    >>> w["failed"].tolist(), w["not_run"].tolist()
    ([['c'], []], [[], ['c']])
    """
    rows = []
    for (xv, yv), group in table.groupby([x, y], sort=False):
        runs = cell_runs(group, metric, higher=higher)
        scores = {name: float(np.median(v)) for name, v in runs.items()}
        bottom = [name for name, s in scores.items() if not math.isfinite(s)]
        unsafe = [name for name in not_private_here(group) if name not in bottom]
        ranked = contenders({n: v for n, v in runs.items() if n not in unsafe}, higher=higher)
        ok = sorted((s, name) for name, s in scores.items()
                    if math.isfinite(s) and name not in unsafe)
        if higher:
            ok.reverse()
        skipped = {str(n) for n, f in zip(group["estimator"], group["failed"], strict=True)
                   if str(f).startswith(NOT_RUN)}
        best = (scores[ranked[0]], ranked[0]) if ranked else (math.nan, None)
        second = next(((s, n) for s, n in ok if n != best[1]), (math.nan, None))
        rows.append({
            x: xv, y: yv, "winner": best[1], "score": best[0], "runner_up": second[1],
            "runner_up_score": second[0],
            "margin": (math.nan if best[1] is None else
                       margin(best[0], second[0] if second[1] is not None else math.inf)),
            "tied": ranked if len(ranked) > 1 else [],
            "failed": [n for n in bottom if n not in skipped],
            "not_run": [n for n in bottom if n in skipped], "not_private": unsafe,
            "scores": scores})
    out = pd.DataFrame(rows, columns=[x, y, "winner", "score", "runner_up", "runner_up_score",
                                      "margin", "tied", "failed", "not_run", "not_private",
                                      "scores"])
    for column in ("winner", "runner_up"):  # None, not NaN, where there is none
        out[column] = pd.Series([r[column] for r in rows], index=out.index, dtype=object)
    return out


#: How :func:`winners` decides, in words (a summary's ``rule``).
RULE = (f"per cell, the median of the metric over the repeats (a failed run counts as the "
        f"worst); a winner is named only when, for every other estimator, the {LEVEL:.0%} "
        f"paired bootstrap interval ({RESAMPLES:,} resamples, seeded from the values) of the "
        f"difference of medians excludes 0, with at least {MIN_REPEATS} repeats; otherwise "
        "'tied' lists every estimator not established worse than the best. Answers that are "
        "not private (not_private) are left out of the ranking. margin = |best - runner-up| / "
        "max(|best|, |runner-up|), 1 when only the best answers")


def winner_summary(spec: SweepSpec, table: pd.DataFrame) -> dict[str, Any] | None:
    """The ``winner`` summary of a sweep whose grid has two keys (``None`` otherwise).

    JSON-ready: the rule (:data:`RULE`), the metric and per cell its grid values, ``winner``
    (the best median: the cell's winner only when ``tied`` is empty, else the first of the
    tied), ``tied``, ``margin``, ``runner_up``, their medians, ``failed``, ``not_run`` and
    ``not_private`` (registry names).
    """
    if len(spec.grid) != 2:
        return None
    (x, _), (y, _) = spec.grid
    metric = spec.metrics[0]
    higher = metric_label(spec.task, metric).higher_is_better
    cells = []
    for row in winners(table, x, y, metric, higher=higher).to_dict(orient="records"):
        cells.append({x: row[x], y: row[y], "winner": row["winner"], "tied": row["tied"],
                      "margin": _finite(row["margin"]), "median": _finite(row["score"]),
                      "runner_up": row["runner_up"],
                      "runner_up_median": _finite(row["runner_up_score"]),
                      "failed": row["failed"], "not_run": row["not_run"],
                      "not_private": row["not_private"]})
    return to_json_value({"metric": metric, "better": "higher" if higher else "lower",
                          "rule": RULE, "axes": [x, y], "cells": cells})


def _finite(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


# --- lines drawn on a map -----------------------------------------------------------------------

@dataclass(frozen=True)
class Threshold:
    """A paper's threshold: the zero set of ``field`` over the generator's parameters."""

    label: str
    field: Callable[[Mapping[str, float]], float]
    reads: tuple[str, ...]


#: Each task's thresholds, by the data parameters they read.
THRESHOLDS: Mapping[str, tuple[Threshold, ...]] = MappingProxyType({
    "sbm": (Threshold("Kesten–Stigum: ε_s² d = 1 (below it no method recovers the "
                      "communities, private or not)",
                      lambda p: p["signal"] ** 2 * p["degree"] - 1.0, ("degree", "signal")),),
    "covariance": (Threshold("GaussCov/SeparateCov crossover d ≈ n^(2/3) at trace 1 "
                             "(SeparateCov wins where d > n^(2/3): fewer rows, more "
                             "dimensions)",
                             lambda p: math.log(p["d"]) - 2.0 / 3.0 * math.log(p["n"]),
                             ("n", "d")),),
    "gmm": (),
})


@dataclass(frozen=True)
class Line:
    """A line to draw on a map, in the axes' own values.

    ``points`` are (x, y) pairs (a broken line where a pair is ``None``); ``estimator`` names
    the entry a sample-size bound belongs to (``None`` for a paper's threshold). ``note``
    says where the line lies when it misses the map.
    """

    label: str
    points: tuple[tuple[float | None, float | None], ...]
    estimator: str | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, which :meth:`from_dict` reads back."""
        return {"label": self.label, "points": [list(p) for p in self.points],
                "estimator": self.estimator, "note": self.note}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Line:
        """A line from its JSON form."""
        return cls(str(d["label"]), tuple((p[0], p[1]) for p in d["points"]),
                   d.get("estimator"), str(d.get("note") or ""))


def resolved_data(spec: SweepSpec) -> dict[str, Any]:
    """The spec's data block with the generator's defaults filled in."""
    from dpviz.data import GENERATORS

    generator = GENERATORS[str(spec.data["generator"])]
    return generator.resolve({k: v for k, v in spec.data.items() if k != "generator"})


def _span(spec: SweepSpec, key: str, points: int) -> np.ndarray:
    values = [float(v) for v in dict(spec.grid)[key]]
    low, high = min(values), max(values)
    axis = AXES[spec.task].get(key)
    if axis is not None and not axis.log:
        return np.linspace(low, high, points)
    return np.geomspace(low, high, points)


def _first_crossing(f: np.ndarray, grid: np.ndarray) -> float | None:
    """Where ``f`` (sampled on ``grid``) first changes sign, linearly interpolated; else ``None``.

    Examples
    --------
    >>> _first_crossing(np.array([-1.0, 1.0, 3.0]), np.array([0.0, 2.0, 4.0]))
    1.0
    >>> _first_crossing(np.array([1.0, 2.0]), np.array([0.0, 1.0])) is None
    True
    """
    cross = np.nonzero(np.diff(np.sign(f)) != 0)[0]
    if not cross.size:
        return None
    i = int(cross[0])
    t = f[i] / (f[i] - f[i + 1])
    return float(grid[i] + t * (grid[i + 1] - grid[i]))


def threshold_lines(spec: SweepSpec, points: int = 60) -> list[Line]:
    """The task's thresholds on a map: where each one's field changes sign, axis by axis.

    Along each value of the x axis the crossing in y is the first sign change of the field
    on a fine grid of ``points`` values (log-spaced on a log axis), placed by linear
    interpolation between its two grid values (:func:`_first_crossing`); when that gives
    fewer than two points the line is vertical and is found along x at each y. A threshold
    that reads neither axis, or that the map's range does not cross, is a ``note`` saying on
    which side the whole map lies.
    """
    (x, _), (y, _) = spec.grid
    fixed = {k: float(v) for k, v in resolved_data(spec).items()
             if isinstance(v, int | float) and not isinstance(v, bool)}
    out = []
    xs, ys = _span(spec, x, points), _span(spec, y, points)
    for threshold in THRESHOLDS.get(spec.task, ()):
        def field(xv: float, yv: float, threshold: Threshold = threshold) -> float:
            values = dict(fixed)
            for key, value in ((x, xv), (y, yv)):
                if key.startswith("data."):
                    values[key[5:]] = value
            return threshold.field(values)

        line: list[tuple[float | None, float | None]] = []
        signs = {bool(field(a, b) > 0) for a in (xs[0], xs[-1]) for b in (ys[0], ys[-1])}
        for xv in xs:
            at = _first_crossing(np.array([field(xv, yv) for yv in ys]), ys)
            if at is not None:
                line.append((float(xv), at))
        if len(line) < 2:  # a vertical line: crossings along x at fixed y
            line = []
            for yv in ys:
                at = _first_crossing(np.array([field(xv, yv) for xv in xs]), xs)
                if at is not None:
                    line.append((at, float(yv)))
        note = ""
        if len(line) < 2:
            line = []
            side = "above" if signs == {True} else "below"
            note = f"the whole map lies {side} this threshold"
        out.append(Line(threshold.label, tuple(line), None, note))
    return out


def _edges(values: Sequence[float], log: bool) -> list[float]:
    """The cell edges around sorted grid ``values`` (midpoints, in log space on a log axis)."""
    v = np.log(values) if log else np.asarray(values, dtype=float)
    if v.size == 1:
        inner: list[float] = []
        ends = [v[0] - 0.5, v[0] + 0.5] if not log else [v[0] - 0.25, v[0] + 0.25]
    else:
        inner = list((v[1:] + v[:-1]) / 2)
        ends = [v[0] - (v[1] - v[0]) / 2, v[-1] + (v[-1] - v[-2]) / 2]
    out = [ends[0], *inner, ends[1]]
    return [float(np.exp(e)) if log else float(e) for e in out]


def bound_lines(spec: SweepSpec, table: pd.DataFrame) -> list[Line]:
    """Each estimator's sample-size (or budget) bound on a map, read from its skipped runs.

    Needs n or ε on an axis. For each value of the other axis, the edge between the cells
    where the entry's preconditions (:meth:`~dpviz.core.entry.Estimator.cannot_run`) rule its
    runs out and those where they hold: a staircase along the cells, so no precondition is
    asked again. An estimator never skipped has no line; one skipped everywhere has a note.
    """
    (x, xs), (y, ys) = spec.grid
    keys = [key for key in ("data.n", "epsilon") if key in (x, y)]
    if not keys:
        return []
    searched = keys[0]
    other = y if searched == x else x
    grid = dict(spec.grid)
    axes = AXES[spec.task]
    s_values = sorted(float(v) for v in grid[searched])
    s_edges = _edges(s_values, axes[searched].log if searched in axes else True)
    o_values = sorted(float(v) for v in grid[other])
    o_edges = _edges(o_values, axes[other].log if other in axes else True)
    skipped_rows = table["failed"].astype(str).str.startswith(NOT_RUN)
    out = []
    for name in spec.estimators:
        mine = table[table["estimator"] == name]
        if not skipped_rows[mine.index].any():
            continue
        line: list[tuple[float | None, float | None]] = []
        nowhere = True
        for k, value in enumerate(o_values):
            here = mine[mine[other].astype(float) == value]
            runs = {float(v) for v, f in zip(here[searched], skipped_rows[here.index],
                                             strict=True) if not f}
            if not runs:
                line.append((None, None))
                continue
            nowhere = False
            edge = s_edges[s_values.index(min(runs))]
            for at in (o_edges[k], o_edges[k + 1]):
                line.append((at, edge) if searched == y else (edge, at))
        label = lookup(spec.task, name).label
        what = "rows" if searched == "data.n" else "ε"
        out.append(Line(f"{label}: its preconditions hold from here on (more {what})",
                        () if nowhere else tuple(line), name,
                        "cannot succeed anywhere on this map" if nowhere else ""))
    return out


def _trivial(task: str, name: str) -> bool:
    """Whether an entry states no precondition (the registry's default)."""
    from dpviz.core.entry import always_runs

    return TASKS[task][name].can_run is always_runs


# --- saved maps ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class SavedMap:
    """A map saved by ``bench/winner.py --save``: its spec, table, lines and provenance.

    ``provenance``: what made it (:func:`dpviz.lab.provenance.stamp`'s fields, the lines
    file's ``made_by``; empty for a map saved before maps recorded them).
    """

    spec: SweepSpec
    table: pd.DataFrame
    lines: tuple[Line, ...]
    seconds: float
    provenance: Mapping[str, Any] = field(default_factory=dict)

    def stale(self) -> str | None:
        """Why the map may be out of date, in words (:func:`dpviz.lab.provenance.stale`)."""
        return stale(self.provenance, self.spec.task)


def map_paths(task: str, folder: Path | None = None) -> tuple[Path, Path, Path]:
    """The spec, table and lines files of ``task``'s saved map."""
    sweeps, results = (SWEEPS, RESULTS) if folder is None else (folder, folder)
    return (sweeps / f"winner_{task}.json", results / f"winner_{task}.csv",
            results / f"winner_{task}_lines.json")


def save_map(spec: SweepSpec, table: pd.DataFrame, lines: Sequence[Line], seconds: float, *,
             command: str, folder: Path | None = None) -> None:
    """Write a map's spec, table (CSV) and lines, with its wall seconds and what made it.

    What made it: ``command`` and the registry version (:func:`dpviz.lab.provenance.stamp`),
    in the lines file's ``made_by`` (the map's record, read back by :func:`load_map`) and, for
    the table, in the results' manifest (:func:`dpviz.lab.provenance.record`).
    """
    spec_path, table_path, lines_path = map_paths(spec.task, folder)
    spec_path.write_text(json.dumps(spec.to_dict(), indent=1) + "\n")
    write_table(table, table_path)
    if folder is None:
        record(table_path, command, spec.task)
    lines_path.write_text(json.dumps({"made_by": stamp(command, spec.task),
                                      "seconds": round(seconds, 1),
                                      "lines": [line.to_dict() for line in lines]},
                                     indent=1, ensure_ascii=False) + "\n")


def load_map(task: str, folder: Path | None = None) -> SavedMap | None:
    """``task``'s saved map, or ``None`` when it has not been made."""
    spec_path, table_path, lines_path = map_paths(task, folder)
    if not (spec_path.is_file() and table_path.is_file() and lines_path.is_file()):
        return None
    spec = SweepSpec.from_dict(json.loads(spec_path.read_text()))
    extra = json.loads(lines_path.read_text())
    return SavedMap(spec, read_table(table_path),
                    tuple(Line.from_dict(d) for d in extra["lines"]), float(extra["seconds"]),
                    MappingProxyType(dict(extra.get("made_by") or {})))
