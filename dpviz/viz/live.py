"""Figures of a live class: the distribution of the students' predictions against the truth.

The figures are made to be projected, so they carry no student's name: a point, a guess or a
yes is nobody's in particular (the names are on the lecturer's own table only). The question
is what a student's page stored and an axis name may be typed: both are escaped here
(:func:`dpviz.viz.style.plotly_text`) before Plotly, whose hover text and titles render tags.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from dpviz.viz.style import COLORS, TEMPLATE, plotly_text

PREDICTION_COLOR = "#1f6feb"


def class_points(points: Sequence[tuple[float, float]], truth: Sequence[tuple[float, float]],
                 *, title: str, axis_names: tuple[str, str] = ("x", "y")) -> go.Figure:
    """The students' predicted points, anonymous, and the true points (where means landed).

    Parameters
    ----------
    points : sequence of (float, float)
        Each student's predicted point (in no particular order: nothing says whose).
    truth : sequence of (float, float)
        The points the predictions are judged against (duplicates drawn once).
    title : str
        The figure's title.
    axis_names : (str, str)
        The axes' titles.

    Examples
    --------
    >>> fig = class_points([(1.0, 2.0), (3.0, 4.0)], [(0.5, 1.5)], title="Where?")
    >>> [t.name for t in fig.data], fig.data[0].text
    (['predictions', 'truth'], None)
    """
    fig = go.Figure(layout={"template": TEMPLATE})
    xy = np.asarray(points, dtype=float).reshape(-1, 2)
    fig.add_scatter(x=xy[:, 0], y=xy[:, 1], mode="markers", name="predictions",
                    marker={"color": PREDICTION_COLOR, "size": 11, "opacity": 0.6},
                    hovertemplate="a prediction: (%{x:.3g}, %{y:.3g})<extra></extra>")
    unique = sorted({(float(a), float(b)) for a, b in truth})
    if unique:
        tx, ty = zip(*unique, strict=True)
        fig.add_scatter(x=tx, y=ty, mode="markers", name="truth",
                        marker={"color": COLORS["private"], "size": 16, "symbol": "x"},
                        hovertemplate="truth: (%{x:.3g}, %{y:.3g})<extra></extra>")
    fig.update_layout(title=plotly_text(title), height=460,
                      xaxis={"title": plotly_text(axis_names[0])},
                      yaxis={"title": plotly_text(axis_names[1])})
    return fig


def class_numbers(values: Sequence[float], truth: Sequence[float], *, title: str,
                  label: str) -> go.Figure:
    """A histogram of the students' predicted numbers, with a line at each true value.

    Two traces however many students and truths (students who moved a slider were asked
    with other numbers, so a class may have a truth each): the histogram, and the truths as
    one trace of vertical segments on a hidden 0-to-1 axis. A shape or annotation per truth
    made a lecturer's refresh cost seconds of server CPU at 100 students (issue 36).

    Examples
    --------
    >>> fig = class_numbers([0.2, 0.9, 2.0], [1.0, 1.0], title="ε?", label="ε")
    >>> [t.type for t in fig.data], fig.data[0].x.tolist(), fig.data[1].x
    (['histogram', 'scatter'], [0.2, 0.9, 2.0], (1.0, 1.0, None))
    """
    fig = go.Figure(layout={"template": TEMPLATE})
    x = np.asarray(values, dtype=float)
    fig.add_histogram(x=x, name="predictions", marker={"color": PREDICTION_COLOR},
                      opacity=0.8, nbinsx=max(5, min(30, x.size)),
                      hovertemplate="%{x}: %{y} predictions<extra></extra>")
    unique = sorted({float(t) for t in truth})
    if unique:
        fig.add_scatter(x=[v for t in unique for v in (t, t, None)],
                        y=[v for _ in unique for v in (0.0, 1.0, None)], yaxis="y2",
                        mode="lines", name="truth",
                        line={"color": COLORS["private"], "width": 3},
                        hovertemplate="truth: %{x:.3g}<extra></extra>")
        said = (f"truth {unique[0]:.3g}" if len(unique) == 1 else
                f"truth {unique[0]:.3g} to {unique[-1]:.3g} ({len(unique)} values)")
        fig.add_annotation(text=said, x=unique[-1], y=1.0, xref="x", yref="paper",
                           yanchor="bottom", showarrow=False,
                           font={"color": COLORS["private"]})
    fig.update_layout(title=plotly_text(title), height=360, bargap=0.05, showlegend=False,
                      xaxis={"title": plotly_text(label)},
                      yaxis={"title": "predictions", "rangemode": "tozero"},
                      yaxis2={"range": [0, 1], "overlaying": "y", "visible": False})
    return fig


def class_yes_no(values: Sequence[bool], truth: Sequence[bool], *, title: str) -> go.Figure:
    """How many students said yes and no; the true answer's bar is drawn in the truth colour."""
    said = [bool(v) for v in values]
    true = {bool(t) for t in truth}
    answers = ["yes", "no"]
    counts = [sum(said), len(said) - sum(said)]
    colors = [COLORS["private"] if a in true else PREDICTION_COLOR for a in (True, False)]
    fig = go.Figure(layout={"template": TEMPLATE})
    fig.add_bar(x=answers, y=counts, marker={"color": colors}, text=counts,
                textposition="auto", name="students",
                hovertemplate="%{x}: %{y} students<extra></extra>")
    note = " / ".join("yes" if t else "no" for t in sorted(true, reverse=True)) or "unknown"
    fig.update_layout(title=plotly_text(f"{title} (truth: {note})"), height=340,
                      yaxis={"title": "students"})
    return fig
