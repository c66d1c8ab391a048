"""The compare view: every estimator on the same data and budget, metric by metric."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpviz.viz.style import TEMPLATE, series_color

#: Axis titles of the compare panels (metric column → title).
PANEL_TITLES: Mapping[str, str] = {
    "mean_error": "matched mean error", "weight_error": "weight error (L1)",
    "covariance_error": "covariance error (Frobenius)", "nicv": "NICV",
    "success_rate": "success rate (⊥ counted)", "seconds": "run time (s, median)",
}


def _finite(value: float) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def compare_figure(summary: pd.DataFrame, metrics: Sequence[str], *,
                   labels: Mapping[str, str] | None = None,
                   title: str = "Every estimator on the same data and budget") -> go.Figure:
    """One horizontal bar chart per metric, with 95% error bars, then success rate and time.

    Parameters
    ----------
    summary : pandas.DataFrame
        From :func:`dpviz.lab.experiments.compare_summary`.
    metrics : sequence of str
        The metric columns to draw (a metric no estimator has is still a panel, empty).
    labels : mapping, optional
        Estimator name → label.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        Panels ``metrics + ["success_rate", "seconds"]``; a bar per estimator where the value
        is finite (the error bar spans the 95% band of the mean over the successful repeats).

    Examples
    --------
    >>> s = pd.DataFrame({"estimator": ["a", "b"], "mean_error": [0.1, float("nan")],
    ...                   "mean_error_low": [0.05, float("nan")],
    ...                   "mean_error_high": [0.15, float("nan")],
    ...                   "success_rate": [1.0, 0.0], "seconds": [0.2, 1.5]})
    >>> fig = compare_figure(s, ["mean_error"])
    >>> [t.x[0] for t in fig.data if t.name == "a"]
    [0.1, 1.0, 0.2]
    """
    panels = [*metrics, "success_rate", "seconds"]
    fig = make_subplots(rows=1, cols=len(panels), shared_yaxes=True, horizontal_spacing=0.03,
                        subplot_titles=[PANEL_TITLES.get(p, p) for p in panels])
    names = list(summary["estimator"])
    shown = {n: (labels or {}).get(n, n) for n in names}
    for i, name in enumerate(names):
        row = summary.iloc[i]
        for col, panel in enumerate(panels, start=1):
            value = row.get(panel, math.nan)
            if not _finite(value):
                continue
            low, high = row.get(f"{panel}_low", value), row.get(f"{panel}_high", value)
            error = ({"type": "data", "symmetric": False, "array": [high - value],
                      "arrayminus": [value - low], "thickness": 1.5}
                     if _finite(low) and _finite(high) else None)
            fig.add_trace(go.Bar(x=[value], y=[shown[name]], orientation="h", name=name,
                                 legendgroup=name, showlegend=False, error_x=error,
                                 marker_color=series_color(i),
                                 hovertemplate=f"{shown[name]}: %{{x:.3g}}<extra></extra>"),
                          row=1, col=col)
    fig.update_yaxes(autorange="reversed", categoryorder="array",
                     categoryarray=[shown[n] for n in names])
    fig.update_xaxes(rangemode="tozero")
    fig.update_layout(template=TEMPLATE, title=title, barmode="overlay",
                      height=120 + 38 * max(1, len(names)), margin={"l": 10, "r": 10})
    return fig
