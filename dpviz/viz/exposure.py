"""The privacy exposure figure (DP-EM paper, Fig. 1): non-private EM beside DP-EM.

The factory only draws: the page runs both estimators on the same rows and passes the rows,
the lone person's row and the two sets of means in.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike
from plotly.subplots import make_subplots

from dpviz.viz.mixtures import DATA_COLOR
from dpviz.viz.style import COLORS, TEMPLATE

LONE_COLOR = "#c2255c"


def exposure_figure(data: ArrayLike, lone: ArrayLike, nonprivate_means: ArrayLike,
                    private_means: ArrayLike, *, private_label: str = "DP-EM",
                    title: str = "Where the means land: non-private EM and DP-EM",
                    limit: float = 1.0) -> go.Figure:
    """Two panels on the same rows: non-private EM's means (left), DP-EM's (right).

    Parameters
    ----------
    data : array-like
        The rows (n × 2).
    lone : array-like
        The row of the person alone in a component (2,), marked in both panels.
    nonprivate_means, private_means : array-like
        k × 2 each: the non-private EM means ("true" colour) and the private ones.
    private_label : str
        The right panel's title (e.g. ``"DP-EM, ε = 1"``).
    title : str
        The figure's title.
    limit : float
        Both axes span ``[-limit, limit]`` (the public ball of radius 1 by default).

    Returns
    -------
    plotly.graph_objects.Figure
        ``Scatter`` traces in order: per panel the rows, the lone person, the means
        (left panel: ``"non-private EM means"``, right: ``"private means"``).
    """
    rows = np.asarray(data, dtype=float)
    person = np.asarray(lone, dtype=float).ravel()
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.06,
                        subplot_titles=("Non-private EM", private_label))
    panels = (("non-private EM means", "true", nonprivate_means, "x"),
              ("private means", "private", private_means, "circle"))
    for col, (name, who, means, symbol) in enumerate(panels, start=1):
        first = col == 1
        fig.add_trace(go.Scatter(
            x=rows[:, 0], y=rows[:, 1], mode="markers", name="people (rows)",
            marker={"color": DATA_COLOR, "size": 5, "opacity": 0.5}, legendgroup="rows",
            showlegend=first, hovertemplate="(%{x:.3g}, %{y:.3g})<extra>a person</extra>"),
            row=1, col=col)
        fig.add_trace(go.Scatter(
            x=[person[0]], y=[person[1]], mode="markers", name="the person alone",
            marker={"color": "rgba(0,0,0,0)", "size": 22, "symbol": "circle",
                    "line": {"color": LONE_COLOR, "width": 2.5}},
            legendgroup="lone", showlegend=first,
            hovertemplate="the person alone: (%{x:.3g}, %{y:.3g})<extra></extra>"),
            row=1, col=col)
        centres = np.asarray(means, dtype=float)
        fig.add_trace(go.Scatter(
            x=centres[:, 0], y=centres[:, 1], mode="markers", name=name,
            cliponaxis=False,  # a mean clipped to the data bound sits on the frame: draw it whole
            marker={"color": COLORS[who], "size": 13, "symbol": symbol,
                    "line": {"color": "white", "width": 1.5}},
            hovertemplate=f"{name}: (%{{x:.3g}}, %{{y:.3g}})<extra></extra>"),
            row=1, col=col)
    fig.update_layout(template=TEMPLATE, title=title, height=520)
    fig.update_xaxes(range=[-limit, limit], title_text="x1")
    fig.update_yaxes(range=[-limit, limit])
    fig.update_yaxes(title_text="x2", scaleanchor="x", scaleratio=1, row=1, col=1)
    fig.update_yaxes(scaleanchor="x2", scaleratio=1, row=1, col=2)
    return fig
