"""Sweep tables: written and read back, progress lines, means with 95% bands, compare view."""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from dpviz.estimators.result import to_json_value
from dpviz.lab.experiments.cache import from_json_value
from dpviz.lab.experiments.sweep import SweepSpec
from dpviz.lab.scenario import Scenario


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
    """A table :func:`write_table` wrote, read back with the same values and text columns."""
    if str(path).lower().endswith(".csv"):
        table = pd.read_csv(path, keep_default_na=False, na_values=[""])
    else:
        records = [json.loads(line) for line in Path(path).read_text().splitlines() if line]
        table = pd.DataFrame([{k: from_json_value(v) if k != "failed" else v
                               for k, v in r.items()} for r in records])
    for column in ("failed", "not_private"):  # text, "" where there is none
        if column in table:
            table[column] = ["" if v is None or (isinstance(v, float) and math.isnan(v))
                             else str(v) for v in table[column]]
    return table


def time_left(done: int, total: int, elapsed: float, *,
              since: tuple[int, float] = (0, 0.0)) -> float | None:
    """Seconds left at the pace since ``since`` (``None`` until a run has finished after it).

    ``since = (done, elapsed)`` when the pace starts counting (:class:`Pace` picks it), so
    the workers' start-up and the runs read from the cache (done at once) do not skew it.

    Examples
    --------
    >>> time_left(10, 40, 5.0), time_left(0, 40, 1.0), time_left(10, 40, 6.0, since=(2, 4.0))
    (15.0, None, 7.5)
    """
    runs, seconds = done - since[0], elapsed - since[1]
    if runs <= 0:
        return None
    return seconds / runs * (total - done)


class Pace:
    """Wall time since a start (a button pressed) and the time left at the measured pace.

    Fed the runner's progress reports (:meth:`report`). The first report's count is what was
    known before any run (read from disk, skipped as unable to succeed): it sets no pace. The
    pace counts from the report where ``warm`` more runs have finished (each process's first
    run: start-up, imports, data) and is known from the next run on; until then the time
    left is ``None``. The runner's own elapsed time is not used: it starts after the checks
    that precede the runs.

    Parameters
    ----------
    warm : int
        Runs to finish after the first report before the pace counts (the processes; 0: count
        from the first report).
    clock : callable
        Seconds, monotonic (a test passes a fake clock).

    Examples
    --------
    >>> now = [0.0]
    >>> pace = Pace(warm=1, clock=lambda: now[0])
    >>> now[0] = 4.0; pace.report(30, 100)  # 30 skipped or on disk, after 4 s of checks
    >>> now[0] = 6.0; pace.report(31, 100)  # the first run: start-up, no pace yet
    >>> now[0] = 8.0; pace.report(33, 100), pace.elapsed()  # 1 s a run since, 67 runs left
    (67.0, 8.0)
    """

    def __init__(self, *, warm: int = 1, clock: Callable[[], float] = time.perf_counter) -> None:
        self.warm, self.clock = warm, clock
        self.started = clock()
        self.base: int | None = None  # done at the first report: known without running
        self.since: tuple[int, float] | None = None  # (done, elapsed) when the pace counts

    def elapsed(self) -> float:
        """Seconds since the start."""
        return self.clock() - self.started

    def report(self, done: int, total: int) -> float | None:
        """Note that ``done`` of ``total`` are finished; the seconds left, or ``None``."""
        now = self.elapsed()
        if self.base is None:
            self.base = done
        if self.since is None:
            if done - self.base >= self.warm:
                self.since = (done, now)
            return None
        return time_left(done, total, now, since=self.since)


def progress_line(done: int, total: int, elapsed: float, *,
                  since: tuple[int, float] = (0, 0.0)) -> str:
    """One line of progress for a terminal or a progress bar (:func:`time_left`'s pace).

    Examples
    --------
    >>> progress_line(10, 40, 5.0)
    'sweep: 10/40 runs, 5 s elapsed, about 15 s left'
    """
    left = time_left(done, total, elapsed, since=since)
    tail = "" if left is None or done == total else f", about {left:.0f} s left"
    return f"sweep: {done}/{total} runs, {elapsed:.0f} s elapsed{tail}"


#: z of a two-sided 95% normal interval.
Z95 = 1.959963984540054


#: The bands :func:`summarise` makes: its centre column and what the band holds, in words.
BANDS = {"mean": ("mean", "95% band of the mean"),
         "quantile": ("median", "10th–90th percentile of the runs")}


def summarise(table: pd.DataFrame, x: str, metric: str, *, band: str = "mean") -> pd.DataFrame:
    """Per (estimator, ``x``): a centre of ``metric`` and a band (:data:`BANDS`).

    ``band="mean"``: the mean and the normal-approximation 95% interval of the mean over the
    repeats (standard error = sample standard deviation / √count; with one finished run the
    mean alone). ``band="quantile"``: the median and the 10th and 90th percentiles of the runs
    (linear interpolation): the band holds runs, so an error's band never goes below zero.
    Failed runs and NaN values are left out and counted in ``failed``.

    Returns
    -------
    pandas.DataFrame
        ``estimator, <x>, mean, low, high, count, failed`` (``median`` in place of ``mean``
        for quantile bands), estimators in table order; ``attrs["band"]`` says which.

    Examples
    --------
    >>> t = pd.DataFrame({"estimator": ["a"] * 4, "epsilon": [1, 1, 2, 2],
    ...                   "err": [1.0, 3.0, 1.0, float("nan")], "failed": ["", "", "", "x"]})
    >>> s = summarise(t, "epsilon", "err")
    >>> s["mean"].tolist(), s["count"].tolist(), s["failed"].tolist()
    ([2.0, 1.0], [2, 1], [0, 1])
    >>> summarise(t, "epsilon", "err", band="quantile")[["median", "low"]].values.tolist()
    [[2.0, 1.2], [1.0, 1.0]]
    """
    if band not in BANDS:
        raise ValueError(f"band must be one of {', '.join(BANDS)}, got {band!r}")
    for column in ("estimator", x, metric):
        if column not in table.columns:
            raise ValueError(f"the table has no column {column!r}; its columns are: "
                             f"{', '.join(map(str, table.columns))}")
    centre = BANDS[band][0]
    ok = table[metric].notna() & (table["failed"] == "")
    rows = []
    for (name, value), group in table.groupby(["estimator", x], sort=False):
        values = group.loc[ok[group.index], metric].astype(float)
        count = int(values.size)
        if band == "quantile":
            middle, low, high = ((float(values.quantile(q)) for q in (0.5, 0.1, 0.9))
                                 if count else (math.nan,) * 3)
        else:
            middle = float(values.mean()) if count else math.nan
            half = Z95 * float(values.std(ddof=1)) / math.sqrt(count) if count > 1 else 0.0
            low, high = middle - half, middle + half
        rows.append({"estimator": name, x: value, centre: middle, "low": low, "high": high,
                     "count": count, "failed": int(len(group) - count)})
    out = pd.DataFrame(rows, columns=["estimator", x, centre, "low", "high", "count", "failed"])
    order = {name: i for i, name in enumerate(dict.fromkeys(table["estimator"]))}
    out = out.sort_values(["estimator", x], key=lambda c: c.map(order) if c.name ==
                          "estimator" else c, kind="stable").reset_index(drop=True)
    out.attrs["band"] = band
    return out


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


def compare_summary(table: pd.DataFrame, metrics: Sequence[str], *,
                    band: str = "mean") -> pd.DataFrame:
    """Per estimator: each metric's centre and band (:func:`summarise`), success rate, time.

    Failed runs (an honest ⊥, or a refused input) count against the success rate and are
    left out of the metrics. Columns: ``estimator, runs, succeeded, success_rate, seconds``
    (median) and ``<metric>, <metric>_low, <metric>_high`` for each metric (``<metric>`` the
    mean, or the median for ``band="quantile"``).

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
        bands = summarise(point, "_point", metric, band=band).set_index("estimator")
        out[metric] = out["estimator"].map(bands[BANDS[band][0]])
        out[f"{metric}_low"] = out["estimator"].map(bands["low"])
        out[f"{metric}_high"] = out["estimator"].map(bands["high"])
    out.attrs["band"] = band
    return out
