"""The covariance paper's Figures 2 and 3 on its synthetic data (Dong, Liang & Yi 2022, §7).

Defaults d = 200, n = 50 000, ρ = 0.1, N = 4 buckets (s = 3), β = 0.1; each figure varies
one of them (ALGORITHMS.md §6 "Synthetic data"). Error ``‖Σ̃ − Σ‖_F`` against ``XᵀX/n``,
averaged over repeats. Each figure is a sweep spec, ``assets/sweeps/dong_<figure>.json``, run
by the one runner (:func:`~dpviz.lab.experiments.runner.run_sweep`, every run through
:func:`dpviz.run`) one grid point at a time, so a point can take fewer repeats and EMCov is
left out above d = :data:`EMCOV_MAX_D`; every run's seeds are the whole spec's (they depend
on the point, the repeat and the estimator's name only). Every repeat draws fresh data
and every estimator of a repeat sees the same draw. Figures 2 and 3(b) go to d = 800, as the
paper's (:func:`dpviz.run` takes covariance data of up to
``limits.max_columns("covariance")`` columns). ``bench/covariance.py`` runs the figures
and saves them to ``assets/results/covariance_<figure>.csv``; the page reads them with
:func:`load_saved`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from dpviz.data.zipf import zipf_trace
from dpviz.lab.experiments.runner import run_sweep
from dpviz.lab.experiments.sweep import SweepSpec

ROOT = Path(__file__).resolve().parents[3]
RESULTS = ROOT / "assets" / "results"
SWEEPS = ROOT / "assets" / "sweeps"
COLUMNS = ("figure", "estimator", "x_name", "x", "n", "d", "rho", "trace", "mean_error",
           "std_error", "repeats")
PAPER_ESTIMATORS = ("gauss", "separate", "adaptive", "emcov", "zero")
EMCOV_MAX_D = 200  # EMCov needs d eigendecompositions: skipped above (the UI's cap too)
#: "Tracks the better one at a small cost", read as: within this factor at every point.
TRACKING = 1.5
#: "Not trace-sensitive" vs "trace-sensitive" over Figure 3(a)'s range (traces 5e-5 … 1): the
#: error changes by less than FLAT×, or by more than SENSITIVE×. GaussCov's clamping at 0
#: makes its error fall a little with the trace (1.3× over the range), far from the others.
FLAT, SENSITIVE = 1.5, 5.0


@dataclass(frozen=True)
class FigureSpec:
    """One figure: the parameter on its x axis and the one naming its series (if any)."""

    x_name: str
    series: str | None = None


SPECS: Mapping[str, FigureSpec] = MappingProxyType({
    "fig2": FigureSpec("d", series="n"), "fig3a": FigureSpec("trace"),
    "fig3b": FigureSpec("d"), "fig3c": FigureSpec("n"), "fig3d": FigureSpec("rho")})


def sweep_path(name: str) -> Path:
    """A figure's sweep spec, ``assets/sweeps/dong_<name>.json``."""
    if name not in SPECS:
        raise ValueError(f"unknown figure {name!r}; choose one of: {', '.join(SPECS)}")
    return SWEEPS / f"dong_{name}.json"


def figure_sweep(name: str) -> SweepSpec:
    """The sweep spec of a figure (its grid, the paper's 50 repeats, the seed).

    Examples
    --------
    >>> spec = figure_sweep("fig3d")
    >>> spec.grid[0][0], spec.repeats, len(spec.points())
    ('rho', 50, 6)
    """
    path = sweep_path(name)
    return SweepSpec.from_dict(json.loads(path.read_text(encoding="utf-8")), base=SWEEPS)


FIGURES: Mapping[str, str] = MappingProxyType(
    {name: json.loads(sweep_path(name).read_text(encoding="utf-8"))["description"]
     for name in SPECS})


def point_parameters(spec: SweepSpec, point: Mapping[str, Any]) -> dict[str, float]:
    """``n``, ``d``, ``rho``, ``buckets`` and ``skew`` of one grid point of a figure's sweep."""
    data = {**spec.data, **{k[5:]: v for k, v in point.items() if k.startswith("data.")}}
    return {"n": int(data["n"]), "d": int(data["d"]), "buckets": int(data.get("buckets", 4)),
            "skew": float(data.get("skew", 3.0)),
            "rho": float(point.get("rho", spec.fixed.get("rho", 0.1)))}


def run_figure(name: str, *, repeats: int, estimators: Sequence[str] = PAPER_ESTIMATORS,
               progress: Callable[[float], None] | None = None,
               repeats_for: Callable[[Mapping[str, float]], int] | None = None,
               jobs: int = 1, cache_dir: str | os.PathLike[str] | None = None,
               only: Callable[[Mapping[str, float]], bool] | None = None) -> pd.DataFrame:
    """Recompute one figure: mean and standard deviation of the error over repeats.

    Parameters
    ----------
    name : str
        A key of :data:`FIGURES`.
    repeats : int
        Repeats per grid point (the paper: 50).
    estimators : sequence of str
        Covariance estimators of the registry.
    progress : callable, optional
        Called with the fraction done after every grid point.
    repeats_for : callable, optional
        Repeats of a grid point given its parameters (:func:`point_parameters`; fewer for
        the expensive ones); the count used is in the ``repeats`` column.
    jobs : int
        Local processes of the runner.
    cache_dir : path, optional
        The runner's cache folder (:func:`~dpviz.lab.experiments.cache.cache_directory`).
    only : callable, optional
        Run only the grid points it accepts (given :func:`point_parameters`); a point's runs
        do not depend on the others' (their seeds come from the point), so rows of the
        points left out can be taken from an earlier run of the same spec.

    Returns
    -------
    pandas.DataFrame
        Columns ``figure, estimator, x_name, x, n, d, rho, trace, mean_error, std_error,
        repeats`` (+ ``series`` for Figure 2, e.g. ``"n=1000"``); a failed run is left out
        of its point's mean and count.
    """
    spec = figure_sweep(name)
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    figure = SPECS[name]
    points = spec.points()
    rows = []
    for i, point in enumerate(points):
        params = point_parameters(spec, point)
        if only is not None and not only(params):
            continue
        count = repeats if repeats_for is None else max(1, min(repeats, repeats_for(params)))
        names = [e for e in estimators if e != "emcov" or params["d"] <= EMCOV_MAX_D]
        one = SweepSpec.from_dict({**spec.to_dict(), "estimators": names, "repeats": count,
                                   "grid": {key: [value] for key, value in point.items()}},
                                  base=spec.base)
        table = run_sweep(one, jobs=jobs, cache_dir=cache_dir)
        table = table[table["failed"] == ""]
        trace = zipf_trace(int(params["n"]), int(params["buckets"]), params["skew"])
        x = {**params, "trace": trace}[figure.x_name]
        for est in names:
            values = table.loc[table["estimator"] == est, "frobenius_error"].to_numpy(float)
            if not len(values):
                continue
            row: dict[str, Any] = {
                "figure": name, "estimator": est, "x_name": figure.x_name, "x": x,
                "n": int(params["n"]), "d": int(params["d"]), "rho": params["rho"],
                "trace": trace, "mean_error": float(np.mean(values)),
                "std_error": float(np.std(values, ddof=1)) if len(values) > 1 else float("nan"),
                "repeats": len(values)}
            if figure.series is not None:
                row["series"] = f"{figure.series}={int(params[figure.series])}"
            rows.append(row)
        if progress is not None:
            progress((i + 1) / len(points))
    return pd.DataFrame(rows)


def saved_path(name: str) -> Path:
    """Where :func:`load_saved` reads a figure (``assets/results/covariance_<name>.csv``)."""
    return RESULTS / f"covariance_{name}.csv"


def load_saved(name: str) -> pd.DataFrame:
    """The saved run of a figure (written by ``bench/covariance.py``).

    Raises
    ------
    ValueError
        An unknown figure, or none saved yet (the sentence says how to make it).
    """
    if name not in SPECS:
        raise ValueError(f"unknown figure {name!r}; choose one of: {', '.join(SPECS)}")
    path = saved_path(name)
    if not path.exists():
        raise ValueError(f"no saved results for {name}: run `make figures` to make "
                         f"{path.name}")
    return pd.read_csv(path)


@dataclass(frozen=True)
class Verdict:
    """One claim of the paper checked against a figure's numbers.

    Attributes
    ----------
    figure : str
        The figure the claim is read from.
    claim : str
        The paper's claim, in its sense.
    holds : bool
        Whether dpviz's numbers show it.
    numbers : str
        The numbers behind the verdict, one sentence.
    """

    figure: str
    claim: str
    holds: bool
    numbers: str


def _table(frame: pd.DataFrame, series: str | None = None) -> pd.DataFrame:
    rows = frame if series is None else frame[frame["series"] == series]
    return rows.pivot_table(index="x", columns="estimator", values="mean_error").sort_index()


def crossover(frame: pd.DataFrame, series: str | None = None) -> float:
    """The smallest x from which SeparateCov's mean error stays below GaussCov's (NaN: never).

    Examples
    --------
    >>> f = pd.DataFrame({"x": [10, 10, 50, 50, 100, 100],
    ...                   "estimator": ["gauss", "separate"] * 3,
    ...                   "mean_error": [1.0, 2.0, 3.0, 2.5, 6.0, 3.0]})
    >>> crossover(f)
    50.0
    """
    table = _table(frame, series)
    below = (table["separate"] < table["gauss"]).to_numpy()
    for i in range(len(below)):
        if below[i:].all():
            return float(table.index[i])
    return float("nan")


def verdicts(frames: Mapping[str, pd.DataFrame]) -> list[Verdict]:
    """The paper's claims (ALGORITHMS.md §6, "What the paper claims") against the figures.

    Parameters
    ----------
    frames : mapping
        Figure name → its table (:func:`run_figure` or :func:`load_saved`); a claim whose
        figure is missing is left out.

    Returns
    -------
    list of Verdict
    """
    out = []
    if "fig2" in frames:
        f = frames["fig2"]
        where = {s: crossover(f, s) for s in sorted(f["series"].unique(),
                                                   key=lambda s: int(s.split("=")[1]))}
        low = _table(f, "n=1000").iloc[0]
        out.append(Verdict(
            "fig2", "At trace 1, GaussCov is slightly better at low d and SeparateCov much "
            "better at high d; the crossover is near d ≈ 30–50 at n = 1000 and ≈ 200 at "
            "n = 16 000",
            holds=(low["gauss"] < low["separate"] and 30 <= where.get("n=1000", 0) <= 70
                   and 100 <= where.get("n=16000", 0) <= 400),
            numbers="SeparateCov stays below GaussCov from d = " + ", ".join(
                f"{x:g} ({s})" for s, x in where.items())
            + f"; at d = {_table(f, 'n=1000').index[0]:g}, n = 1000: GaussCov "
              f"{low['gauss']:.3g} vs SeparateCov {low['separate']:.3g}"))
    if "fig3a" in frames:
        t = _table(frames["fig3a"])  # x = trace, ascending: first row is the smallest trace
        ratio = {e: t[e].iloc[-1] / t[e].iloc[0] for e in ("gauss", "separate", "adaptive")
                 if e in t}
        out.append(Verdict(
            "fig3a", "GaussCov is not trace-sensitive; SeparateCov and AdaptiveCov are "
            f"(dpviz's reading: over the figure's trace range GaussCov's error changes by less "
            f"than {FLAT:g}×, the others' by more than {SENSITIVE:g}×)",
            holds=(ratio["gauss"] < FLAT and ratio["separate"] > SENSITIVE
                   and ratio.get("adaptive", SENSITIVE + 1) > SENSITIVE),
            numbers=f"error at trace {t.index[-1]:.3g} ÷ error at trace {t.index[0]:.3g}: "
                    + ", ".join(f"{e} {r:.3g}×" for e, r in ratio.items())))
    tracked = [f for f in frames.values() if {"adaptive", "gauss", "separate"}
               <= set(f["estimator"])]
    if tracked:
        ratios = []
        for f in tracked:
            keys = ["figure", "x"] + (["series"] if "series" in f else [])
            t = f.pivot_table(index=keys, columns="estimator", values="mean_error")
            ratios.extend((t["adaptive"] / t[["gauss", "separate"]].min(axis=1)).tolist())
        worst, typical = float(np.max(ratios)), float(np.median(ratios))
        out.append(Verdict(
            "all", "AdaptiveCov tracks the better of GaussCov and SeparateCov at a small cost "
            f"(dpviz's reading: within {TRACKING:g}× of the better one at every point)",
            holds=worst <= TRACKING,
            numbers=f"AdaptiveCov ÷ the better of the two: median {typical:.2f}×, at worst "
                    f"{worst:.2f}×, over {len(ratios)} points of {len(tracked)} figure(s)"))
    with_emcov = [f for f in frames.values() if "emcov" in set(f["estimator"])]
    if with_emcov:
        points = beaten = 0
        for f in with_emcov:
            keys = ["figure", "x"] + (["series"] if "series" in f else [])
            t = f.pivot_table(index=keys, columns="estimator", values="mean_error").dropna(
                subset=["emcov"])
            best = t[["gauss", "separate", "adaptive"]].min(axis=1)
            points += len(t)
            beaten += int((t["emcov"] > best).sum())
        out.append(Verdict(
            "all", "EMCov (the prior work) is dominated",
            holds=beaten == points,
            numbers=f"one of the paper's estimators beats EMCov at {beaten} of {points} "
                    f"points (EMCov runs up to d = {EMCOV_MAX_D})"))
    return out
