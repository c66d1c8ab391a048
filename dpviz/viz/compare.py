"""The compare view: every estimator on the same data and budget, one measure at a time."""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

from dpviz.viz.style import TEMPLATE, series_color, wrapped

#: Titles of the compare summary's run columns (the metrics' come from their labels).
RUN_TITLES: Mapping[str, str] = {
    "success_rate": "share of runs with an answer (⊥ counts against it)",
    "seconds": "run time (s, median)",
}
#: Characters per line of an estimator's name on the bars' axis (long names wrap).
WRAP = 28


def _finite(value: float) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def compare_figure(summary: pd.DataFrame, column: str, *,
                   labels: Mapping[str, str] | None = None, x_title: str | None = None,
                   title: str = "Every estimator on the same data and budget") -> go.Figure:
    """One horizontal bar per estimator for one column of the summary, with its band.

    Parameters
    ----------
    summary : pandas.DataFrame
        From :func:`dpviz.lab.experiments.compare_summary`.
    column : str
        The column drawn: a metric (with ``<column>_low`` and ``<column>_high`` bands) or a
        run column such as ``success_rate`` or ``seconds``.
    labels : mapping, optional
        Estimator name → label (long labels wrap over lines).
    x_title : str, optional
        The axis title (default :data:`RUN_TITLES` or ``column``).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        A bar per estimator where the value is finite, named by its label; an estimator with
        no finite value (every run ⊥) is still a row, empty.

    Examples
    --------
    >>> s = pd.DataFrame({"estimator": ["a", "b"], "err": [0.1, float("nan")],
    ...                   "err_low": [0.05, float("nan")], "err_high": [0.15, float("nan")],
    ...                   "success_rate": [1.0, 0.0], "seconds": [0.2, 1.5]})
    >>> fig = compare_figure(s, "err", labels={"a": "A", "b": "B"})
    >>> [(t.name, t.x[0]) for t in fig.data], list(fig.layout.yaxis.categoryarray)
    ([('A', 0.1)], ['A', 'B'])
    """
    names = list(summary["estimator"])
    shown = {n: wrapped((labels or {}).get(n, n), WRAP) for n in names}
    axis = x_title or RUN_TITLES.get(column, column)
    fig = go.Figure()
    for i, name in enumerate(names):
        row = summary.iloc[i]
        value = row.get(column, math.nan)
        if not _finite(value):
            continue
        low, high = row.get(f"{column}_low", value), row.get(f"{column}_high", value)
        error = ({"type": "data", "symmetric": False, "array": [high - value],
                  "arrayminus": [value - low], "thickness": 1.5}
                 if _finite(low) and _finite(high) else None)
        label = (labels or {}).get(name, name)
        fig.add_trace(go.Bar(x=[value], y=[shown[name]], orientation="h", name=label,
                             showlegend=False, error_x=error, marker_color=series_color(i),
                             hovertemplate=f"{label}: %{{x:.3g}}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", categoryorder="array",
                     categoryarray=[shown[n] for n in names], type="category")
    fig.update_xaxes(rangemode="tozero", title=axis)
    lines = sum(label.count("<br>") + 1 for label in shown.values())
    fig.update_layout(template=TEMPLATE, title=title, barmode="overlay",
                      height=140 + 22 * max(1, lines) + 14 * len(names),
                      margin={"l": 10, "r": 10})
    return fig
