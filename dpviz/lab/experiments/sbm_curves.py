"""Error curves and phase diagrams of SBM estimators on generated graphs (page and bench).

Each curve is a sweep (:class:`~dpviz.lab.experiments.sweep.SweepSpec`) run by the one runner
(:func:`~dpviz.lab.experiments.runner.run_sweep`), every run through :func:`dpviz.run`: a repeat's
graph is drawn once (its seed from the spec's seed, the graph's parameters and the repeat)
and every estimator and ε of that repeat sees it; the noise seed comes from those and the
estimator's name. The certified projection depends on the graph only, so the runner computes
it once per graph and reuses it across every ε.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from dpviz.core import limits
from dpviz.estimators.work import DATA, INTERACTIVE, WorkBudget, estimate
from dpviz.lab.experiments.cache import bound_cache, cache_directory
from dpviz.lab.experiments.runner import run_sweep
from dpviz.lab.experiments.sweep import SweepSpec

Progress = Callable[[int, int], None]
#: ``seed`` is the graph's (the run's data seed), ``noise_seed`` the run's noise seed.
COLUMNS = ("estimator", "n", "degree", "signal", "epsilon", "delta", "seed", "noise_seed",
           "error", "overlap", "seconds")
PHASE_COLUMNS = ("estimator", "signal", "epsilon", "success_rate", "median_error", "seeds")
RESULTS = Path(__file__).resolve().parents[3] / "assets" / "results"
#: The default cache's subfolder of the curves' runs (bounded: :func:`_curve`).
CURVES = "sbm_curves"
#: CPU seconds the runner adds to each run (its scenario, cache key, scores, the JSON line it
#: writes): 1–2 ms a run in ``python bench/work_repro.py``'s curves at n = 200 and 400.
RUN_SECONDS = 2e-3


def curve_spec(estimators: Sequence[str], *, n: int, degree: float, signal: float,
               delta: float, grid: Mapping[str, Sequence[Any]], seeds: int, seed: int = 0,
               epsilon: float | None = None) -> SweepSpec:
    """The sweep behind a curve: ``estimators`` on generated SBM graphs over ``grid``.

    ``grid`` keys are ``epsilon``, ``data.n`` or ``data.signal``; ``epsilon`` is the fixed ε
    when the grid does not sweep it.

    Examples
    --------
    >>> spec = curve_spec(["spectral"], n=100, degree=20.0, signal=0.8, delta=0.0,
    ...                   grid={"epsilon": [1.0, 2.0]}, seeds=3)
    >>> spec.runs, spec.metrics
    (6, ('error_rate', 'overlap'))
    """
    fixed: dict[str, Any] = {"delta": delta}
    if epsilon is not None:
        fixed["epsilon"] = epsilon
    return SweepSpec.from_dict({
        "task": "sbm", "estimators": list(estimators),
        "data": {"generator": "sbm", "n": n, "degree": degree, "signal": signal},
        "fixed": fixed, "grid": {k: list(v) for k, v in grid.items()}, "repeats": seeds,
        "seed": seed, "metrics": ["error_rate", "overlap"],
        "description": "SBM estimators' error on generated graphs"})


def _curve(spec: SweepSpec, progress: Progress | None,
           cache_dir: str | None) -> pd.DataFrame:
    """Run ``spec`` and read its table as :data:`COLUMNS` (one row per run).

    Without ``cache_dir`` the runs are cached in the :data:`CURVES` folder of the default
    cache, which is then bounded (the page's live curves add files for every graph drawn).
    """
    report = None if progress is None else (lambda done, total, _: progress(done, total))
    folder = cache_directory(cache_dir) if cache_dir is not None else cache_directory() / CURVES
    table = run_sweep(spec, cache_dir=folder, progress=report)
    if cache_dir is None:
        bound_cache(folder, files=limits.CURVE_CACHE_FILES, size=limits.CURVE_CACHE_BYTES,
                    keep=folder / f"{spec.digest()}.jsonl")
    data, fixed = spec.data, spec.fixed

    def column(key: str, default: Any) -> Any:
        return table[key] if key in table else default

    return pd.DataFrame({
        "estimator": table["estimator"], "n": column("data.n", data["n"]),
        "degree": float(data["degree"]), "signal": column("data.signal", data["signal"]),
        "epsilon": column("epsilon", fixed.get("epsilon")), "delta": fixed["delta"],
        "seed": table["data_seed"], "noise_seed": table["seed"],
        "error": table["error_rate"], "overlap": table["overlap"],
        "seconds": table["seconds"]}, columns=list(COLUMNS))


def error_curve(estimators: Sequence[str], *, n: int, degree: float, signal: float,
                epsilons: Sequence[float], delta: float, seeds: int, seed: int = 0,
                progress: Progress | None = None, cache_dir: str | None = None) -> pd.DataFrame:
    """Error of each estimator at each ε, one row per (estimator, ε, graph).

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
    seeds : int
        Graphs (the sweep's repeats).
    seed : int
        The sweep's seed, from which every graph's and every run's noise seed derive.
    progress : callable, optional
        ``progress(done, total)`` after each run.
    cache_dir : path, optional
        The runner's cache folder (:func:`~dpviz.lab.experiments.cache.cache_directory`).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`; ``error = min(#wrong, n − #wrong)/n``,
        ``overlap = 1 − 2·error``.

    Examples
    --------
    >>> import tempfile
    >>> df = error_curve(["spectral", "randomized_response"], n=200, degree=20.0,
    ...                  signal=0.8, epsilons=[1.0, 4.0], delta=0.0, seeds=2,
    ...                  cache_dir=tempfile.mkdtemp())
    >>> df.shape, list(df.columns) == list(COLUMNS)
    ((8, 11), True)
    """
    spec = curve_spec(estimators, n=n, degree=degree, signal=signal, delta=delta,
                      grid={"epsilon": [float(e) for e in epsilons]}, seeds=seeds, seed=seed)
    return _curve(spec, progress, cache_dir)


def error_vs_n(estimators: Sequence[str], *, ns: Sequence[int], degree: float, signal: float,
               epsilon: float, delta: float, seeds: int, seed: int = 0,
               progress: Progress | None = None, cache_dir: str | None = None) -> pd.DataFrame:
    """:func:`error_curve` at one ε over graph sizes n (randomized response's crossover)."""
    spec = curve_spec(estimators, n=int(max(ns)), degree=degree, signal=signal, delta=delta,
                      grid={"data.n": [int(v) for v in ns]}, seeds=seeds, seed=seed,
                      epsilon=float(epsilon))
    return _curve(spec, progress, cache_dir)


def phase_diagram(estimators: Sequence[str], *, n: int, degree: float,
                  signals: Sequence[float], epsilons: Sequence[float], delta: float,
                  seeds: int, seed: int = 0, threshold: float = 0.1,
                  progress: Progress | None = None, cache_dir: str | None = None) -> pd.DataFrame:
    """Share of runs with error ≤ ``threshold`` over the (signal × ε) grid.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`PHASE_COLUMNS`.

    Examples
    --------
    >>> import tempfile
    >>> df = phase_diagram(["spectral"], n=100, degree=20.0, signals=[0.1, 0.9],
    ...                    epsilons=[1.0], delta=0.0, seeds=2, cache_dir=tempfile.mkdtemp())
    >>> df["success_rate"].tolist()
    [0.0, 1.0]
    """
    spec = curve_spec(estimators, n=n, degree=degree, signal=float(max(signals)), delta=delta,
                      grid={"data.signal": [float(s) for s in signals],
                            "epsilon": [float(e) for e in epsilons]}, seeds=seeds, seed=seed)
    runs = _curve(spec, progress, cache_dir)
    runs["success"] = runs["error"] <= threshold
    grouped = runs.groupby(["estimator", "signal", "epsilon"], sort=False)
    out = grouped.agg(success_rate=("success", "mean"), median_error=("error", "median"),
                      seeds=("seed", "nunique")).reset_index()
    return out[list(PHASE_COLUMNS)]


def n_sizes(n: int, degree: float, signal: float) -> list[int]:
    """The graph sizes of :func:`error_vs_n` on a page: n/4, n/2 and n, each fit for ``degree``.

    Examples
    --------
    >>> n_sizes(400, 200.0, 0.5)
    [300, 400]
    """
    return sorted({max(int(math.ceil((1 + signal) * degree)), n // k) for k in (4, 2, 1)})


def phase_signals(signals: Sequence[float], n: int, degree: float) -> list[float]:
    """The signals of ``signals`` a graph of n vertices and average ``degree`` can have.

    Examples
    --------
    >>> phase_signals([0.1, 0.5, 0.9], 150, 100.0)
    [0.1, 0.5]
    """
    return [s for s in signals if (1 + s) * degree <= n]


def sweep_seconds(estimators: Sequence[str], *, graphs: Sequence[int], degree: float,
                  runs_per_graph: int) -> float:
    """Estimated CPU seconds of a curve's sweep, before any of it runs.

    Every graph (of ``graphs``' sizes) is made once (:data:`dpviz.estimators.work.DATA`'s cost), a
    preparation shared by estimators (the certified projection) is charged once per graph
    (the runner computes it once and reuses it across ε), every other run its estimate
    (:func:`dpviz.estimators.work.estimate`), and each run :data:`RUN_SECONDS`.

    Examples
    --------
    >>> round(sweep_seconds(["spectral"], graphs=[400] * 3, degree=200.0, runs_per_graph=5), 2)
    0.14
    """
    from dpviz.estimators.registry import TASKS

    seconds = 0.0
    for n in graphs:
        seconds += estimate("sbm", DATA, n=n, degree=degree, generate=False).seconds
        prepared: dict[Any, float] = {}
        for name in estimators:
            one = estimate("sbm", name, n=n, degree=degree, generate=False).seconds
            hook = TASKS["sbm"][name].prepare
            if hook is None:
                seconds += runs_per_graph * one
            else:
                prepared[hook] = max(prepared.get(hook, 0.0), one)
        seconds += sum(prepared.values()) + len(estimators) * runs_per_graph * RUN_SECONDS
    return seconds


def curves_seconds(curve: Sequence[str], phase: Sequence[str], *, n: int, degree: float,
                   signal: float, epsilons: Sequence[float], signals: Sequence[float],
                   seeds: int) -> float:
    """Estimated CPU seconds of a page's three live curves (:func:`sweep_seconds` of each).

    ``curve`` runs over ``epsilons`` at n (:func:`error_curve`), ``phase`` at one ε over
    :func:`n_sizes` (:func:`error_vs_n`) and over :func:`phase_signals` × ``epsilons``
    (:func:`phase_diagram`), each on ``seeds`` graphs.
    """
    kept = phase_signals(signals, n, degree)
    return (sweep_seconds(curve, graphs=[n] * seeds, degree=degree,
                          runs_per_graph=len(epsilons))
            + sweep_seconds(phase, graphs=n_sizes(n, degree, signal) * seeds, degree=degree,
                            runs_per_graph=1)
            + sweep_seconds(phase, graphs=[n] * (seeds * len(kept)), degree=degree,
                            runs_per_graph=len(epsilons)))


def check_curves(curve: Sequence[str], phase: Sequence[str], *, n: int, degree: float,
                 signal: float, epsilons: Sequence[float], signals: Sequence[float],
                 seeds: int, budget: WorkBudget = INTERACTIVE) -> float:
    """Refuse, before any run, a page's live curves whose estimate exceeds ``budget``.

    Arguments as :func:`curves_seconds`; returns its estimate when it fits.

    Raises
    ------
    ValueError
        Naming the estimate, the limit and the largest n that fits.

    Examples
    --------
    >>> check_curves(["exact_recovery"], ["weak_recovery"], n=400, degree=200.0, signal=0.5,
    ...              epsilons=[1.0, 2.0, 4.0], signals=[0.1, 0.5], seeds=5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: these curves at n = 400 vertices of average degree 200 are too much work on ...
    """
    def seconds(vertices: int) -> float:  # a smaller graph keeps (1 + signal)·degree ≤ n
        return curves_seconds(curve, phase, n=vertices, degree=min(degree, vertices / (1 + signal)),
                              signal=signal, epsilons=epsilons, signals=signals, seeds=seeds)

    needed = seconds(n)
    if needed <= budget.seconds:
        return needed
    low, high = int(limits.SBM_VERTICES.low), n
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if seconds(middle) <= budget.seconds else (low, middle)
    degree_words = ("at this degree" if (1 + signal) * degree <= low else
                    f"with an average degree of at most {low / (1 + signal):.0f}")
    raise ValueError(
        f"these curves at n = {n:,} vertices of average degree {degree:g} are too much work "
        f"{budget.name}: about {needed:,.0f} s of server time ({seeds} graphs per point), "
        f"and the limit is {budget.seconds:g} s; n = {low:,} vertices would fit "
        f"{degree_words}. {budget.advice}.")


def load_saved(name: str) -> pd.DataFrame:
    """A saved table ``assets/results/sbm_<name>.csv`` (written by ``make figures``)."""
    path = RESULTS / f"sbm_{name}.csv"
    if not path.is_file():
        saved = sorted(p.stem.removeprefix("sbm_") for p in RESULTS.glob("sbm_*.csv"))
        raise ValueError(f"no saved SBM result {name!r}; saved: {', '.join(saved) or 'none'}")
    return pd.read_csv(path)
