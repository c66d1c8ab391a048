"""Calibrate :mod:`dpviz.lab.work`'s cost model on this machine (one BLAS thread).

For every registered estimator of the sized tasks it times one run and records its peak
traced memory (``tracemalloc``, which numpy reports to) at two sizes, in the model's units
(:func:`dpviz.lab.work.units`). Seconds get the line through the two points (slope
``seconds_per_unit``, intercept ``base_seconds``, raised to lie on or above both; where the
slope is not positive, the larger seconds-per-unit ratio and no intercept); bytes get the
larger bytes-per-unit ratio (``bytes_per_unit``), all rounded up. Run it with
``python bench/work_costs.py`` (a few minutes; ``python bench/work_costs.py gmm/grid_means``
for one entry) and copy what it prints onto each registry
entry's :class:`dpviz.core.entry.CostModel` (the data generators' onto
:data:`dpviz.lab.work.DATA_COSTS`).
"""

from __future__ import annotations

import math
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dpviz  # noqa: E402
from dpviz.data import gaussian_mixture, stochastic_block_model  # noqa: E402
from dpviz.data.graphs import Graph  # noqa: E402
from dpviz.estimators.registry import TASKS  # noqa: E402
from dpviz.lab import work  # noqa: E402

#: Two calibration sizes per task: big enough that the leading term dominates, small enough
#: to finish in seconds.
SIZES: dict[str, tuple[dict[str, Any], ...]] = {
    "gmm": ({"n": 5000, "d": 10, "k": 3}, {"n": 2000, "d": 30, "k": 5}),
    "covariance": ({"n": 20000, "d": 50}, {"n": 5000, "d": 150}),
    "mean": ({"n": 200000, "d": 10}, {"n": 50000, "d": 50}),
    "factor_analysis": ({"n": 20000, "d": 64}, {"n": 5000, "d": 128}),
    "sbm": ({"n": 400, "degree": 40.0}, {"n": 700, "degree": 100.0}),
}
#: Sizes for an entry its task's sizes do not fit, by ``task/estimator``: grid means lays a
#: grid over at most 3 columns (its units then differ six-fold, so the slope is measured).
ENTRY_SIZES: dict[str, tuple[dict[str, Any], ...]] = {
    "gmm/grid_means": ({"n": 1_000_000, "d": 2, "k": 3}, {"n": 50_000, "d": 3, "k": 5}),
}


def measure(function: Callable[[], object]) -> tuple[float, int]:
    """Seconds and peak traced bytes of one call."""
    tracemalloc.start()
    start = time.perf_counter()
    function()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak


def runner(task: str, estimator: str, size: dict[str, Any]) -> Callable[[], object]:
    """One run of ``task/estimator`` at ``size``, data made outside the measurement."""
    if task == "gmm":
        mixture = gaussian_mixture(size["k"], size["d"], size["n"], separation=6.0, seed=0)
        return lambda: dpviz.run("gmm", estimator, mixture.data, epsilon=1.0, delta=1e-5,
                                 seed=0, radius=float(mixture.radius), k=size["k"])
    if task in ("covariance", "mean", "factor_analysis"):
        rows = gaussian_mixture(1, size["d"], size["n"], seed=0).data
        rows = rows / max(1.0, float((rows ** 2).sum(axis=1).max()) ** 0.5)
        budget = {"rho": 0.1} if task == "covariance" else {"epsilon": 1.0, "delta": 1e-5}
        return lambda: dpviz.run(task, estimator, rows, seed=0, radius=1.0, **budget)
    sbm = stochastic_block_model(size["n"], size["degree"], 0.5, seed=0)
    graph = Graph(sbm.edges, sbm.n)

    def fit() -> object:
        given: Any = graph
        entry = TASKS["sbm"][estimator]
        values = entry.preparation({"degree": size["degree"], "signal": 0.5,
                                    "tolerance_fraction": 0.02})
        if values is not None:
            given = entry.prepared(graph, values)
        return dpviz.run("sbm", estimator, given, epsilon=2.0, delta=1e-6, seed=0,
                         degree=size["degree"], signal=0.5)
    return fit


def generator(task: str, size: dict[str, Any]) -> Callable[[], object]:
    """The page's data generator at ``size``."""
    if task == "sbm":
        return lambda: stochastic_block_model(size["n"], size["degree"], 0.5, seed=0)
    return lambda: gaussian_mixture(size.get("k", 1), size["d"], size["n"], seed=0)


def _ceil(value: float) -> float:
    """Round up to two significant digits (a coefficient is an upper estimate)."""
    if value <= 0:
        return 0.0
    scale = 10 ** (math.floor(math.log10(value)) - 1)
    return math.ceil(value / scale) * scale


def main(targets: list[str]) -> None:
    """Measure ``targets`` and print the coefficients.

    A target is a task (every entry and its generator) or one entry, ``task/estimator``;
    none: every sized task. A lone entry first runs once untimed at its first size, so its
    timed runs pay no imports, as in a whole task's run, where the entries before it did.
    """
    warnings.simplefilter("ignore")
    seconds: dict[str, float] = {}
    base: dict[str, float] = {}
    memory: dict[str, float] = {}
    with threadpool_limits(1):
        for task, task_sizes in SIZES.items():
            names = [*TASKS[task], "<data>"]
            if targets and task not in targets:
                names = [name for name in names if f"{task}/{name}" in targets]
                for name in names:
                    if name != "<data>":
                        runner(task, name, ENTRY_SIZES.get(f"{task}/{name}", task_sizes)[0])()
            for name in names:
                ratios = []
                for size in ENTRY_SIZES.get(f"{task}/{name}", task_sizes):
                    call = generator(task, size) if name == "<data>" else runner(task, name,
                                                                                  size)
                    try:
                        taken, peak = measure(call)
                    except ValueError as err:
                        print(f"# {task}/{name} at {size}: {err}", file=sys.stderr)
                        continue
                    time_units, byte_units = work.units(task, name, **size)
                    ratios.append((time_units, taken, peak / byte_units))
                    print(f"# {task}/{name} {size}: {taken:.3f} s, {peak / 1e6:.1f} MB",
                          file=sys.stderr, flush=True)
                if ratios:
                    key = f"{task}/{name}"
                    slope, intercept = fit(ratios)
                    seconds[key], base[key] = _ceil(slope), _ceil(intercept)
                    memory[key] = _ceil(max(r[2] for r in ratios))
    for key in seconds:  # onto each entry's CostModel (the generators': work.DATA_COSTS)
        print(f"{key}: CostModel({seconds[key]!r}, base_seconds={base[key]!r}, "
              f"bytes_per_unit={memory[key]!r})")


def fit(points: list[tuple[float, float, float]]) -> tuple[float, float]:
    """Slope and intercept of a line on or above every (units, seconds) point."""
    ordered = sorted(p[:2] for p in points)
    (u0, t0), (u1, t1) = ordered[0], ordered[-1]
    slope = (t1 - t0) / (u1 - u0) if u1 > u0 else 0.0
    if slope <= 0:
        return max(t / u for u, t in ordered), 0.0
    return slope, max(0.0, max(t - slope * u for u, t in ordered))


if __name__ == "__main__":
    main(sys.argv[1:])
