"""Figures of a live class: every student's prediction against the truth, after the reveal.

Student names are what students typed, and the question is what a student's page stored: both
are escaped here (:func:`dpviz.viz.style.plotly_text`) before Plotly, whose hover text and
titles render tags.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from dpviz.viz.style import COLORS, TEMPLATE, plotly_text

PREDICTION_COLOR = "#1f6feb"


def _names(names: Sequence[str]) -> list[str]:
    return [plotly_text(n) for n in names]


def class_points(names: Sequence[str], points: Sequence[tuple[float, float]],
                 truth: Sequence[tuple[float, float]], *, title: str,
                 axis_names: tuple[str, str] = ("x", "y")) -> go.Figure:
    """The students' predicted points and the true points (e.g. where private means landed).

    Parameters
    ----------
    names : sequence of str
        Each student's name, in the order of ``points``.
    points : sequence of (float, float)
        Each student's predicted point.
    truth : sequence of (float, float)
        The points the predictions are judged against (duplicates drawn once).
    title : str
        The figure's title.
    axis_names : (str, str)
        The axes' titles.
    """
    fig = go.Figure(layout={"template": TEMPLATE})
    xy = np.asarray(points, dtype=float).reshape(-1, 2)
    fig.add_scatter(x=xy[:, 0], y=xy[:, 1], mode="markers", name="the class's predictions",
                    text=_names(names), marker={"color": PREDICTION_COLOR, "size": 11,
                                                "opacity": 0.75},
                    hovertemplate="%{text}: (%{x:.3g}, %{y:.3g})<extra></extra>")
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


def class_numbers(names: Sequence[str], values: Sequence[float], truth: Sequence[float], *,
                  title: str, label: str) -> go.Figure:
    """A strip of the students' predicted numbers, with a line at each true value.

    Students are spread vertically by their order of answering (the height means nothing).
    """
    fig = go.Figure(layout={"template": TEMPLATE})
    x = np.asarray(values, dtype=float)
    rows = np.arange(x.size, dtype=float)
    fig.add_scatter(x=x, y=rows, mode="markers", name="the class's predictions",
                    text=_names(names), marker={"color": PREDICTION_COLOR, "size": 11,
                                                "opacity": 0.75},
                    hovertemplate="%{text}: %{x:.3g}<extra></extra>")
    for value in sorted({float(t) for t in truth}):
        fig.add_vline(x=value, line={"color": COLORS["private"], "width": 3},
                      annotation_text=f"truth {value:.3g}", annotation_position="top")
    fig.update_layout(title=plotly_text(title), height=360, xaxis={"title": plotly_text(label)},
                      yaxis={"title": "students", "showticklabels": False, "zeroline": False})
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
