"""Figures that reproduce a paper's result from a saved benchmark (the page draws, never runs).

Factories take plain tables already summarised by the engine (:mod:`dpviz.ui.cached`) and
only draw them; their colours come from :mod:`dpviz.viz.style`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpviz.viz.style import COLORS, METHOD_SHORT, TEMPLATE, log_ticks, method_color, series_color


def _band_color(hex_color: str, alpha: float = 0.15) -> str:
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"


def dp_em_paper_figure(curves: pd.DataFrame, *, ceiling: float | None,
                       methods: Sequence[str],
                       scenarios: Sequence[str] = ("GGG", "LLG"),
                       floor: float | None = None,
                       title: str = "Test log-likelihood per point against ε") -> go.Figure:
    """The DP-EM paper's figure: median test log-likelihood vs ε per accounting method.

    Parameters
    ----------
    curves : pandas.DataFrame
        Columns ``scenario, accounting, epsilon, median, low, high`` (one row per point;
        ``low``–``high`` is drawn as a band).
    ceiling : float or None
        Non-private EM's value, a dashed line in every panel.
    methods : sequence of str
        The accounting methods drawn, in legend order (colours from ``METHOD_COLORS``).
    scenarios : sequence of str
        One panel per scenario, side by side, sharing the y axis.
    floor : float, optional
        The lowest value shown on the y axis (points below it are clipped, their hover
        still gives the number); default: autoscale.

    Returns
    -------
    plotly.graph_objects.Figure
        Per panel and method a band trace (``"GGG zCDP quartiles"``) and a line
        (``"GGG zCDP"``), then the panel's ceiling (``"GGG non-private EM"``) if given;
        last, data-less legend entries named by method (and ``"non-private EM"``).
    """
    fig = make_subplots(rows=1, cols=len(scenarios), shared_yaxes=True,
                        subplot_titles=list(scenarios), horizontal_spacing=0.04)
    for col, scenario in enumerate(scenarios, start=1):
        panel = curves[curves["scenario"] == scenario]
        for method in methods:
            rows = panel[panel["accounting"] == method].sort_values("epsilon")
            if rows.empty:
                continue
            color, name = method_color(method), METHOD_SHORT.get(method, method)
            x = rows["epsilon"].to_numpy(float)
            fig.add_trace(go.Scatter(
                x=np.concatenate([x, x[::-1]]),
                y=np.concatenate([rows["high"].to_numpy(float),
                                  rows["low"].to_numpy(float)[::-1]]),
                mode="lines", fill="toself", fillcolor=_band_color(color), line={"width": 0},
                name=f"{scenario} {name} quartiles", legendgroup=method, showlegend=False,
                hoverinfo="skip"), row=1, col=col)
            fig.add_trace(go.Scatter(
                x=x, y=rows["median"].to_numpy(float), mode="lines+markers",
                name=f"{scenario} {name}", line={"color": color, "width": 2.2},
                marker={"color": color, "size": 7}, legendgroup=method, showlegend=False,
                customdata=np.stack([rows["low"], rows["high"]], axis=-1),
                hovertemplate=(f"{scenario}, {name}, ε = %{{x:g}}: median %{{y:.3f}} "
                               "(quartiles %{customdata[0]:.3f} … %{customdata[1]:.3f})"
                               "<extra></extra>")), row=1, col=col)
        if ceiling is not None and np.isfinite(ceiling):
            fig.add_trace(go.Scatter(
                x=[float(curves["epsilon"].min()), float(curves["epsilon"].max())],
                y=[ceiling, ceiling], mode="lines", name=f"{scenario} non-private EM",
                line={"color": COLORS["true"], "dash": "dash", "width": 1.6},
                legendgroup="ceiling", showlegend=False,
                hovertemplate=f"non-private EM: {ceiling:.3f}<extra></extra>"),
                row=1, col=col)
    legend = [(m, METHOD_SHORT.get(m, m), method_color(m), "solid") for m in methods
              if (curves["accounting"] == m).any()]
    if ceiling is not None and np.isfinite(ceiling):
        legend.append(("ceiling", "non-private EM", COLORS["true"], "dash"))
    for group, name, color, dash in legend:  # one legend entry per method, no data
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=name,
                                 legendgroup=group, line={"color": color, "dash": dash}))
    low, high = float(curves["epsilon"].min()), float(curves["epsilon"].max())
    fig.update_xaxes(type="log", title_text="ε (log scale)", **log_ticks(low, high))
    fig.update_yaxes(title_text="test log-likelihood per point", row=1, col=1)
    if floor is not None:
        top = max(float(curves["high"].max()), ceiling if ceiling is not None else -np.inf)
        fig.update_yaxes(range=[floor, top + 0.05 * (top - floor)])
    fig.update_layout(template=TEMPLATE, title=title, height=480)
    return fig


def mean_error_boxes(errors: pd.DataFrame, labels: Mapping[str, str], *,
                     colors: Mapping[str, str] | None = None,
                     title: str = "Matched mean error per estimator") -> go.Figure:
    """Box plots of per-seed errors, one per estimator, with every seed drawn as a point.

    Parameters
    ----------
    errors : pandas.DataFrame
        Columns ``estimator, seed, error``.
    labels : mapping
        Estimator key → the label shown, in the order drawn (keys not in it are skipped).
    colors : mapping, optional
        Estimator key → colour (default: the series colours in order).

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Box`` trace per estimator, named by its label; log y axis.
    """
    fig = go.Figure()
    for i, (key, label) in enumerate(labels.items()):
        rows = errors[errors["estimator"] == key]
        if rows.empty:
            continue
        color = (colors or {}).get(key, series_color(i))
        fig.add_trace(go.Box(
            x=[label] * len(rows), y=rows["error"].to_numpy(float), name=label,
            boxpoints="all", jitter=0.4, pointpos=0,
            marker={"color": color, "size": 5, "opacity": 0.7},
            line={"color": color}, fillcolor=_band_color(color, 0.12),
            customdata=rows["seed"].to_numpy(int),
            hovertemplate=f"{label}, seed %{{customdata}}: %{{y:.4g}}<extra></extra>"))
    fig.update_layout(template=TEMPLATE, title=title, height=440, showlegend=False)
    fig.update_yaxes(type="log", title_text="mean ‖μ − μ̃‖ after matching (data units)")
    return fig
