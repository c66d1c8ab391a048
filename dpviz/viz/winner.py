"""Winner maps: who has the lowest error where, shaded by the margin, with ⊥ and thresholds.

The cells sit on evenly spaced positions labelled with the grid's values (log-spaced values
so read on a log axis); lines given in the axes' own values are placed by interpolating
between the grid's values (in log space on a log axis).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpviz.estimators.metrics import metric_label
from dpviz.lab.experiments.winner import Axis, Line, short_name
from dpviz.viz.style import (
    BAND_COLOR,
    COLORS,
    LINE_COLOR,
    METHOD_COLORS,
    PALE_COLOR,
    SERIES_COLORS,
    TEMPLATE,
    TIE_COLOR,
    series_color,
    tint,
    wrapped,
)

#: Cell colours of the "where each estimator answers" panels.
COLOR_ANSWERED, COLOR_FAILED = PALE_COLOR, SERIES_COLORS[4]
COLOR_NOT_RUN = METHOD_COLORS["advanced"]
#: Cells no estimator answers, and ties.
NO_WINNER, TIE = BAND_COLOR, TIE_COLOR


def format_value(value: Any) -> str:
    """A grid value as a tick label: ``1,600``, ``0.32``.

    Examples
    --------
    >>> format_value(16000), format_value(0.32), format_value(2.0)
    ('16,000', '0.32', '2')
    """
    v = float(value)
    return f"{v:,.0f}" if v.is_integer() and abs(v) >= 1000 else f"{v:g}"


def positions(values: Sequence[float], grid: Sequence[float], log: bool) -> np.ndarray:
    """Where ``values`` fall on a map whose cells hold the ``grid`` values at 0, 1, 2 ….

    Interpolated between the grid's values (in log space when ``log``), extended linearly
    past the ends and clamped to the map's edges (−0.5 and len − 0.5).

    Examples
    --------
    >>> positions([1.0, 10.0, 1000.0], [1.0, 100.0], log=True).round(6).tolist()
    [0.0, 0.5, 1.5]
    """
    f = np.log if log else np.asarray
    g = np.asarray(f(np.asarray(grid, dtype=float)), dtype=float)
    v = np.asarray(f(np.asarray(values, dtype=float)), dtype=float)
    if g.size == 1:
        return np.zeros_like(v)
    index = np.arange(g.size, dtype=float)
    out = np.interp(v, g, index)
    low = v < g[0]
    high = v > g[-1]
    out[low] = (v[low] - g[0]) / (g[1] - g[0])
    out[high] = g.size - 1 + (v[high] - g[-1]) / (g[-1] - g[-2])
    return np.clip(out, -0.5, g.size - 0.5)


def winner_map_figure(cells: pd.DataFrame, x: Axis, y: Axis, xs: Sequence[Any],
                      ys: Sequence[Any], *, task: str, metric: str, labels: Mapping[str, str],
                      lines: Sequence[Line] = (), title: str | None = None) -> go.Figure:
    """The map: each cell coloured by its winner, darker the wider its margin.

    Parameters
    ----------
    cells : pandas.DataFrame
        From :func:`dpviz.lab.experiments.winner.winners`.
    x, y : Axis
        The swept axes (their labels are the axis titles).
    xs, ys : sequence
        The grid's values, in order.
    task, metric : str
        The metric ranked by (its readable name in the title and the hover).
    labels : mapping
        Estimator name → label (every estimator of the sweep, in colour order).
    lines : sequence of Line
        Thresholds (black, dotted) and sample-size bounds (the estimator's colour, dashed).
    title : str, optional
    """
    names = list(labels)
    colors = {name: series_color(i) for i, name in enumerate(names)}
    label = metric_label(task, metric)
    what = label.title
    ix = {float(v): i for i, v in enumerate(xs)}
    iy = {float(v): i for i, v in enumerate(ys)}
    shape = (len(ys), len(xs))
    hover = np.full(shape, "", dtype=object)
    owner = np.full(shape, None, dtype=object)
    shade = np.full(shape, np.nan)
    for row in cells.to_dict(orient="records"):
        i, j = iy[float(row[y.key])], ix[float(row[x.key])]
        owner[i, j] = "tie" if row["tied"] else row["winner"]
        shade[i, j] = row["margin"]
        hover[i, j] = _hover(row, x, y, what, labels)
    fig = go.Figure(layout={"template": TEMPLATE})
    for name in names:
        mask = owner == name
        if not mask.any():
            continue
        z = np.where(mask, 0.15 + 0.85 * np.nan_to_num(shade, nan=0.0), np.nan)
        fig.add_trace(go.Heatmap(
            z=z, x=list(range(len(xs))), y=list(range(len(ys))), zmin=0, zmax=1,
            colorscale=[[0, tint(colors[name], 0.85)], [1, colors[name]]], showscale=False,
            text=hover, hovertemplate="%{text}<extra></extra>", xgap=1, ygap=1,
            name=short_name(labels[name])))
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=short_name(
            labels[name]), marker={"symbol": "square", "size": 14, "color": colors[name]}))
    tie = owner == "tie"
    if tie.any():
        _flat_layer(fig, tie, hover, TIE, "tie",
                    "a tie: no lead established over the repeats (hover lists the tied)")
    nobody = np.array([[o is None for o in row] for row in owner])
    if nobody.any():
        _flat_layer(fig, nobody, hover, NO_WINNER, "no answer", None)
        jj, ii = np.nonzero(nobody.T)
        fig.add_trace(go.Scatter(x=jj, y=ii, mode="text", text=["⊥"] * len(jj),
                                 textfont={"color": "white", "size": 16}, hoverinfo="skip",
                                 name="⊥: every estimator fails"))
    for line in lines:
        _add_line(fig, line, x, y, xs, ys, colors)
    fig.update_layout(
        title=wrapped(title or f"{'Highest' if label.higher_is_better else 'Lowest'} {what}: "
                               "who wins where (darker: a wider margin over the runner-up)", 70),
        height=520, xaxis={"title": x.label, "tickvals": list(range(len(xs))),
                           "ticktext": [format_value(v) for v in xs], "showgrid": False,
                           "range": [-0.5, len(xs) - 0.5]},
        yaxis={"title": y.label, "tickvals": list(range(len(ys))),
               "ticktext": [format_value(v) for v in ys], "showgrid": False,
               "range": [-0.5, len(ys) - 0.5]},
        margin={"b": 140})
    return fig


def _flat_layer(fig: go.Figure, mask: np.ndarray, hover: np.ndarray, color: str, name: str,
                legend: str | None) -> None:
    """The cells of ``mask`` in one flat ``color``, with a legend entry when ``legend`` is given."""
    rows, columns = mask.shape
    fig.add_trace(go.Heatmap(
        z=np.where(mask, 1.0, np.nan), x=list(range(columns)), y=list(range(rows)),
        colorscale=[[0, color], [1, color]], showscale=False, text=hover,
        hovertemplate="%{text}<extra></extra>", xgap=1, ygap=1, name=name))
    if legend is not None:
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=legend,
                                 marker={"symbol": "square", "size": 14, "color": color}))


def _hover(row: Mapping[str, Any], x: Axis, y: Axis, what: str,
           labels: Mapping[str, str]) -> str:
    head = f"{x.label} = {format_value(row[x.key])}<br>{y.label} = {format_value(row[y.key])}"
    if row["winner"] is None:
        text = f"{head}<br><b>no estimator gives an answer here (⊥)</b>"
    elif row["tied"]:
        text = (f"{head}<br><b>a tie</b> at median {what} {row['score']:.3g}: "
                + ", ".join(short_name(labels[n]) for n in row["tied"]))
    else:
        text = (f"{head}<br><b>{short_name(labels[row['winner']])}</b>: median {what} "
                f"{row['score']:.3g}")
        if row["runner_up"] is not None:
            text += (f"<br>runner-up {short_name(labels[row['runner_up']])}: "
                     f"{row['runner_up_score']:.3g} (margin {100 * row['margin']:.0f}%)")
        else:
            text += "<br>the only estimator with an answer here"
    if row["failed"]:
        text += "<br>⊥ (its runs failed): " + ", ".join(short_name(labels[n])
                                                       for n in row["failed"])
    if row["not_run"]:
        text += "<br>⊥ (cannot succeed here, not run): " + ", ".join(
            short_name(labels[n]) for n in row["not_run"])
    return text


def _add_line(fig: go.Figure, line: Line, x: Axis, y: Axis, xs: Sequence[Any],
              ys: Sequence[Any], colors: Mapping[str, str]) -> None:
    if not line.points:
        return
    px = [math.nan if p[0] is None else float(p[0]) for p in line.points]
    py = [math.nan if p[1] is None else float(p[1]) for p in line.points]
    broken = [math.isnan(a) or math.isnan(b) for a, b in zip(px, py, strict=True)]
    at_x = positions([1.0 if b else v for v, b in zip(px, broken, strict=True)],
                     [float(v) for v in xs], x.log)
    at_y = positions([1.0 if b else v for v, b in zip(py, broken, strict=True)],
                     [float(v) for v in ys], y.log)
    gx = [None if b else float(v) for v, b in zip(at_x, broken, strict=True)]
    gy = [None if b else float(v) for v, b in zip(at_y, broken, strict=True)]
    own = line.estimator
    style = ({"color": colors.get(own, COLORS["true"]), "dash": "dash", "width": 2.5}
             if own is not None else {"color": COLORS["true"], "dash": "dot", "width": 3})
    label = line.label if own is None else line.label.replace(
        line.label.split(":")[0], short_name(line.label.split(":")[0]), 1)
    fig.add_trace(go.Scatter(x=gx, y=gy, mode="lines", line=style, name=wrapped(label, 60),
                             hoverinfo="name"))


def answers_figure(cells: pd.DataFrame, x: Axis, y: Axis, xs: Sequence[Any],
                   ys: Sequence[Any], *, labels: Mapping[str, str],
                   columns: int = 4) -> go.Figure:
    """One small panel per estimator: where it answers, where its runs fail, where it is not run.

    ``cells`` from :func:`dpviz.lab.experiments.winner.winners`: an estimator is ⊥ in a cell
    when its median is (at least half of its runs failed).
    """
    names = list(labels)
    rows = max(math.ceil(len(names) / columns), 1)
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=[
        wrapped(short_name(labels[n]), 24) for n in names], horizontal_spacing=0.04,
        vertical_spacing=0.16 if rows > 1 else 0.1)
    ix = {float(v): i for i, v in enumerate(xs)}
    iy = {float(v): i for i, v in enumerate(ys)}
    scale = [[0, COLOR_ANSWERED], [0.33, COLOR_ANSWERED], [0.34, COLOR_FAILED],
             [0.66, COLOR_FAILED], [0.67, COLOR_NOT_RUN], [1, COLOR_NOT_RUN]]
    for k, name in enumerate(names):
        z = np.full((len(ys), len(xs)), np.nan)
        for row in cells.to_dict(orient="records"):
            status = (2 if name in row["not_run"] else 1 if name in row["failed"] else
                      0 if name in row["scores"] else math.nan)
            z[iy[float(row[y.key])], ix[float(row[x.key])]] = status
        fig.add_trace(go.Heatmap(
            z=z, x=list(range(len(xs))), y=list(range(len(ys))), zmin=0, zmax=2,
            colorscale=scale, showscale=False, xgap=1, ygap=1, hoverinfo="skip"),
            row=k // columns + 1, col=k % columns + 1)
    for label, color in (("gives an answer", COLOR_ANSWERED), ("⊥: its runs fail", COLOR_FAILED),
                         ("⊥: cannot succeed here (not run)", COLOR_NOT_RUN)):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=label,
                                 marker={"symbol": "square", "size": 14, "color": color,
                                         "line": {"color": LINE_COLOR, "width": 1}}))
    fig.update_xaxes(showticklabels=False, showgrid=False, ticks="")
    fig.update_yaxes(showticklabels=False, showgrid=False, ticks="")
    fig.update_layout(template=TEMPLATE, height=150 + 170 * rows, margin={"t": 70, "b": 50},
                      title=wrapped(f"Where each estimator answers ({x.label} across, "
                                    f"{y.label} up)", 80))
    return fig
