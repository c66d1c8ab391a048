"""Error curves and phase diagrams of SBM estimators on generated graphs (page and bench).

Every graph is drawn once per seed (``stochastic_block_model(n, d, ε_s, seed=seed)``) and
every estimator sees the same graphs. The certified projection depends on the graph only,
so it is computed once per graph and reused across every ε. Non-private estimators do not
depend on ε: they run once per graph and their row is repeated at every ε.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..data.graphs import LabelledGraph, stochastic_block_model
from ..metrics import community_error
from ..privacy import Budget
from .common import PROJECTION_ESTIMATORS, PreparedGraph
from .weak import prepare_graph

Progress = Callable[[int, int], None]
COLUMNS = ("estimator", "n", "degree", "signal", "epsilon", "delta", "seed", "error",
           "overlap", "seconds")
PHASE_COLUMNS = ("estimator", "signal", "epsilon", "success_rate", "median_error", "seeds")
RESULTS = Path(__file__).resolve().parents[2] / "assets" / "results"


def _seeds(seeds: int | Sequence[int]) -> list[int]:
    return list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]


def _budget(epsilon: float, delta: float) -> Budget:
    return Budget(epsilon=epsilon, delta=delta, method="pld" if delta > 0 else "linear")


def _run(name: str, graph: LabelledGraph, epsilon: float, delta: float, seed: int,
         stream: int, prepared: PreparedGraph | None) -> dict[str, Any]:
    from . import ESTIMATORS

    spec = ESTIMATORS[name]
    params = spec.resolve({"degree": graph.degree, "signal": graph.signal})
    data = prepared if name in PROJECTION_ESTIMATORS and prepared is not None else graph
    rng = np.random.default_rng([seed, stream, sorted(ESTIMATORS).index(name)])
    start = time.perf_counter()
    result = spec.function(data, _budget(epsilon, delta), rng=rng, **params)
    seconds = time.perf_counter() - start
    labels = result.estimate.get("labels")
    error = np.nan if labels is None else community_error(graph.labels, labels)
    return {"estimator": name, "n": graph.n, "degree": graph.degree, "signal": graph.signal,
            "epsilon": epsilon, "delta": delta, "seed": seed, "error": error,
            "overlap": 1 - 2 * error, "seconds": seconds}


def error_curve(estimators: Sequence[str], *, n: int, degree: float, signal: float,
                epsilons: Sequence[float], delta: float, seeds: int | Sequence[int],
                progress: Progress | None = None) -> pd.DataFrame:
    """Error of each estimator at each ε, one row per (estimator, ε, seed).

    Parameters
    ----------
    estimators : sequence of str
        Registry keys of the ``sbm`` task.
    n, degree, signal : int, float, float
        The generated SBM (and the public parameters the estimators get).
    epsilons : sequence of float
        Privacy ε values.
    delta : float
        δ of every run (0 for pure DP).
    seeds : int or sequence of int
        Graph seeds (an int k means 0 … k−1).
    progress : callable, optional
        ``progress(done, total)`` after each run.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`; ``error = min(#wrong, n − #wrong)/n``,
        ``overlap = 1 − 2·error``.

    Examples
    --------
    >>> df = error_curve(["spectral", "randomized_response"], n=200, degree=20.0,
    ...                  signal=0.8, epsilons=[1.0, 4.0], delta=0.0, seeds=2)
    >>> df.shape, list(df.columns) == list(COLUMNS)
    ((8, 10), True)
    """
    from . import ESTIMATORS

    unknown = [e for e in estimators if e not in ESTIMATORS]
    if unknown:
        raise ValueError(f"unknown sbm estimator {unknown[0]!r}; choose from "
                         f"{', '.join(ESTIMATORS)}")
    seed_list = _seeds(seeds)
    rows: list[dict[str, Any]] = []
    total, done = len(seed_list) * len(estimators) * len(epsilons), 0
    for seed in seed_list:
        graph = stochastic_block_model(n, degree, signal, seed=seed)
        prepared = (prepare_graph(graph, degree=degree, signal=signal)
                    if any(e in PROJECTION_ESTIMATORS for e in estimators) else None)
        for name in estimators:
            if ESTIMATORS[name].notion == "none":
                row = _run(name, graph, float("inf"), delta, seed, 0, prepared)
                rows.extend({**row, "epsilon": float(e)} for e in epsilons)
            else:
                rows.extend(_run(name, graph, float(e), delta, seed, k + 1, prepared)
                            for k, e in enumerate(epsilons))
            done += len(epsilons)
            if progress is not None:
                progress(done, total)
    return pd.DataFrame(rows, columns=list(COLUMNS))


def error_vs_n(estimators: Sequence[str], *, ns: Sequence[int], degree: float, signal: float,
               epsilon: float, delta: float, seeds: int | Sequence[int],
               progress: Progress | None = None) -> pd.DataFrame:
    """:func:`error_curve` at one ε over graph sizes n (randomized response's crossover)."""
    frames = [error_curve(estimators, n=int(n), degree=degree, signal=signal,
                          epsilons=[epsilon], delta=delta, seeds=seeds) for n in ns]
    if progress is not None:
        progress(len(ns), len(ns))
    return pd.concat(frames, ignore_index=True)


def phase_diagram(estimators: Sequence[str], *, n: int, degree: float,
                  signals: Sequence[float], epsilons: Sequence[float], delta: float,
                  seeds: int | Sequence[int], threshold: float = 0.1,
                  progress: Progress | None = None) -> pd.DataFrame:
    """Share of runs with error ≤ ``threshold`` over the (signal × ε) grid.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`PHASE_COLUMNS`.

    Examples
    --------
    >>> df = phase_diagram(["spectral"], n=100, degree=20.0, signals=[0.1, 0.9],
    ...                    epsilons=[1.0], delta=0.0, seeds=2)
    >>> df["success_rate"].tolist()
    [0.0, 1.0]
    """
    frames = []
    for k, signal in enumerate(signals):
        runs = error_curve(estimators, n=n, degree=degree, signal=float(signal),
                           epsilons=epsilons, delta=delta, seeds=seeds)
        frames.append(runs)
        if progress is not None:
            progress(k + 1, len(signals))
    runs = pd.concat(frames, ignore_index=True)
    runs["success"] = runs["error"] <= threshold
    grouped = runs.groupby(["estimator", "signal", "epsilon"], sort=False)
    out = grouped.agg(success_rate=("success", "mean"), median_error=("error", "median"),
                      seeds=("seed", "nunique")).reset_index()
    return out[list(PHASE_COLUMNS)]


def load_saved(name: str) -> pd.DataFrame:
    """A saved table ``assets/results/sbm_<name>.csv`` (written by ``make figures``)."""
    path = RESULTS / f"sbm_{name}.csv"
    if not path.is_file():
        saved = sorted(p.stem.removeprefix("sbm_") for p in RESULTS.glob("sbm_*.csv"))
        raise ValueError(f"no saved SBM result {name!r}; saved: {', '.join(saved) or 'none'}")
    return pd.read_csv(path)
