"""Figures of predict-then-reveal: the data to guess on, and a guess drawn on any figure."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from dpviz.viz.mixtures import ROWS_NAME
from dpviz.viz.style import TEMPLATE, plotly_text

GUESS_COLOR = "#0ca678"
GRID_NAME = "click anywhere to guess"
GUESS_NAME = "your guess"


def guess_figure(rows: ArrayLike, grid: ArrayLike, *, guess: tuple[float, float] | None,
                 axes: tuple[int, int] = (0, 1), axis_names: Sequence[str] | None = None,
                 title: str = "Where will a private mean land? Click to guess") -> go.Figure:
    """The rows alone (no true or private means), a clickable grid and the guess so far.

    Parameters
    ----------
    rows : array-like
        The rows drawn (n × d).
    grid : array-like
        m × 2 points in the shown coordinates, drawn almost invisible: a click on one is
        the guess (Plotly's point selection needs a point under the cursor).
    guess : (float, float) or None
        The guess so far, drawn as a marker.
    axes : (int, int)
        The two coordinates shown.
    axis_names : sequence of str, optional
        Names of all d coordinates.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        ``Scatter`` traces: the rows, the grid, and the guess if any.
    """
    data = np.asarray(rows, dtype=float)
    points = np.asarray(grid, dtype=float)
    i, j = axes
    names = list(axis_names) if axis_names is not None else [f"x{k + 1}"
                                                             for k in range(data.shape[1])]
    fig = go.Figure(layout={"template": TEMPLATE})
    fig.add_scatter(x=data[:, i], y=data[:, j], mode="markers", name=ROWS_NAME,
                    marker={"color": "#adb5bd", "size": 4, "opacity": 0.5},
                    hoverinfo="skip")
    fig.add_scatter(x=points[:, 0], y=points[:, 1], mode="markers", name=GRID_NAME,
                    marker={"color": GUESS_COLOR, "size": 9, "opacity": 0.06},
                    hovertemplate="guess here: (%{x:.3g}, %{y:.3g})<extra></extra>",
                    showlegend=False)
    if guess is not None:
        add_guess(fig, guess)
    fig.update_layout(title=title, height=520, clickmode="event+select", dragmode=False,
                      xaxis={"title": plotly_text(names[i])},
                      yaxis={"title": plotly_text(names[j])})
    return fig


def add_guess(fig: go.Figure, guess: tuple[float, float]) -> go.Figure:
    """Draw the guess on ``fig`` (a star) and return it."""
    fig.add_scatter(x=[guess[0]], y=[guess[1]], mode="markers", name=GUESS_NAME,
                    marker={"color": GUESS_COLOR, "size": 16, "symbol": "star",
                            "line": {"color": "white", "width": 1}},
                    hovertemplate="your guess (%{x:.3g}, %{y:.3g})<extra></extra>")
    return fig
