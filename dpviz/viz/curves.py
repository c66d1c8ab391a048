"""Error-vs-parameter curves of a sweep: one line per estimator with its band.

The statistics come from :func:`dpviz.lab.experiments.summarise` (the mean with a 95% band of
the mean, or the median with the 10th–90th percentile of the runs); the factory only draws them.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpviz.lab.experiments.tables import BANDS
from dpviz.viz.style import TEMPLATE, series_color


def _rgba(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"


def sweep_curves(summary: pd.DataFrame, *, x: str, metric: str,
                 labels: Mapping[str, str] | None = None, x_title: str | None = None,
                 log_x: bool = False, y_title: str | None = None) -> go.Figure:
    """The centre of ``metric`` against ``x``, a line per estimator and a shaded band.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`dpviz.lab.experiments.summarise` of the sweep's table (its ``mean`` or
        ``median`` column is the line, ``low`` and ``high`` the band).
    x, metric : str
        The swept column and the metric.
    labels : mapping, optional
        Estimator key → label for the legend.
    x_title, y_title : str, optional
        The axis titles (default ``x`` and ``metric``).
    log_x : bool
        A logarithmic x axis (ε and n grids often span decades).

    Returns
    -------
    plotly.graph_objects.Figure
        Per estimator: a band trace (``fill="toself"``, no legend entry) and a line trace
        named by its label; ``customdata`` holds the run count and failures per point.

    Examples
    --------
    >>> s = pd.DataFrame({"estimator": ["a", "a"], "epsilon": [1.0, 2.0], "mean": [2.0, 1.0],
    ...                   "low": [1.5, 0.8], "high": [2.5, 1.2], "count": [3, 3],
    ...                   "failed": [0, 0]})
    >>> fig = sweep_curves(s, x="epsilon", metric="mean_error")
    >>> [t.name for t in fig.data], fig.data[1].y.tolist()
    (['a (95% band of the mean)', 'a'], [2.0, 1.0])
    """
    labels = labels or {}
    centre, band = BANDS[summary.attrs.get("band", "mean")]
    x_name, y_name = x_title or x, y_title or metric
    fig = go.Figure()
    for i, (name, part) in enumerate(summary.groupby("estimator", sort=False)):
        color = series_color(i)
        label = labels.get(str(name), str(name))
        xs = part[x].to_numpy()
        fig.add_trace(go.Scatter(
            x=np.concatenate([xs, xs[::-1]]),
            y=np.concatenate([part["high"].to_numpy(), part["low"].to_numpy()[::-1]]),
            mode="lines", fill="toself", fillcolor=_rgba(color, 0.18), line={"width": 0},
            hoverinfo="skip", showlegend=False, name=f"{label} ({band})",
            legendgroup=label))
        fig.add_trace(go.Scatter(
            x=xs, y=part[centre].to_numpy(), mode="lines+markers", name=label,
            line={"color": color, "width": 2}, marker={"size": 7}, legendgroup=label,
            customdata=np.column_stack([part["count"], part["failed"]]),
            hovertemplate=(f"{label}<br>{x_name} = %{{x}}<br>{y_name} = %{{y:.4g}}"
                           "<br>%{customdata[0]} runs, %{customdata[1]} failed<extra></extra>")))
    fig.update_layout(template=TEMPLATE, title=f"{y_name} against {x_name} ({centre} and "
                                               f"{band})",
                      xaxis_title=x_name, yaxis_title=y_name, height=460)
    if log_x:
        fig.update_xaxes(type="log")
    return fig
