"""Sweep tables: written and read back, progress lines, means with 95% bands, compare view."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
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
    """A table :func:`write_table` wrote, read back with the same values and ``failed`` text."""
    if str(path).lower().endswith(".csv"):
        table = pd.read_csv(path, keep_default_na=False, na_values=[""])
    else:
        records = [json.loads(line) for line in Path(path).read_text().splitlines() if line]
        table = pd.DataFrame([{k: from_json_value(v) if k != "failed" else v
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
