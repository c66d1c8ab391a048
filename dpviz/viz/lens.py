"""Figures of the Privacy lens: output densities, privacy loss and the empirical audit.

Factories only draw what :func:`dpviz.lab.lens.look` and :func:`dpviz.lab.lens.audit_view` computed.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import plotly.graph_objects as go

from dpviz.lab.lens import LensView
from dpviz.privacy import AuditResult
from dpviz.viz.style import (
    BAND_COLOR,
    COLORS,
    DATASET_COLORS,
    SHADE_COLOR,
    TEMPLATE,
    Skeleton,
    legend_on_top,
    refill,
    skeleton,
)


def _fill(color: str) -> str:
    red, green, blue = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red}, {green}, {blue}, 0.12)"


def output_densities(view: LensView, *, show_release: bool = True,
                     title: str = "What an observer sees: the output on D and on D′"
                     ) -> go.Figure:
    """The mechanism's output densities on both datasets, true answers and one release marked.

    Parameters
    ----------
    view : LensView
        The lens (``grid``, ``density_d``, ``density_d_prime``, the answers, ``released``).
    show_release : bool
        Mark the one private release drawn on D.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        Two filled ``Scatter`` lines (D, D′), a dotted line and a marker per true answer,
        and the release marker.
    """
    top = float(max(np.max(view.density_d), np.max(view.density_d_prime), 1e-12))
    traces: list[dict[str, Any]] = [{"x": view.grid, "y": density}
                                    for density in (view.density_d, view.density_d_prime)]
    traces += [{"x": [value, value], "y": [0.0, top * 1.05]}
               for value in (view.answer_d, view.answer_d_prime)]
    if show_release:
        traces.append({"x": [view.released], "y": [0.0]})
    return refill(_densities_shape(show_release, title, view.query), traces)


@functools.lru_cache(maxsize=32)
def _densities_shape(show_release: bool, title: str, query: str) -> Skeleton:
    """:func:`output_densities` without its curves, validated once per query."""
    fig = go.Figure()
    for name in ("D", "D′"):
        color = DATASET_COLORS[name]
        fig.add_trace(go.Scatter(
            mode="lines", name=f"output density on {name}",
            line={"color": color, "width": 2.5}, fill="tozeroy", fillcolor=_fill(color),
            hovertemplate=f"{name}: p(%{{x:.4g}}) = %{{y:.4g}}<extra></extra>"))
    for name, symbol in (("D", "triangle-up"), ("D′", "triangle-down")):
        fig.add_trace(go.Scatter(
            mode="lines+markers", name=f"true answer on {name}",
            line={"color": COLORS["true"], "dash": "dot" if name == "D" else "dash", "width": 1.5},
            marker={"symbol": symbol, "size": [0, 10], "color": COLORS["true"]},
            hovertemplate=f"true answer on {name}: %{{x:.4g}}<extra></extra>"))
    if show_release:
        fig.add_trace(go.Scatter(
            mode="markers", name="one private release on D",
            marker={"color": COLORS["private"], "size": 14, "symbol": "circle",
                    "line": {"color": "white", "width": 1.5}},
            cliponaxis=False,
            hovertemplate="released: %{x:.4g}<extra></extra>"))
    fig.update_layout(template=TEMPLATE, title=title)
    fig.update_xaxes(title_text=f"released {query}")
    fig.update_yaxes(title_text="density", rangemode="tozero")
    return skeleton(fig)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Index ranges ``[start, stop]`` of the True runs of a boolean array."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(int), [0]])))
    return [(int(a), int(b) - 1) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def privacy_loss(view: LensView, epsilon: float, *,
                 title: str = "Privacy loss ln p_D(o) / p_D′(o) against ±ε") -> go.Figure:
    """The privacy loss over the outputs, the ±ε band, and where the loss leaves it shaded.

    Parameters
    ----------
    view : LensView
        The lens (``grid`` and ``privacy_loss``).
    epsilon : float
        The claimed ε (the band).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        The loss line, the +ε and −ε lines, and one shaded rectangle per range of outputs
        where ``|loss| > ε``.
    """
    x, loss = np.asarray(view.grid), np.asarray(view.privacy_loss)
    traces: list[dict[str, Any]] = [{"x": x, "y": loss}]
    traces += [{"x": [x.min(), x.max()], "y": [sign * epsilon, sign * epsilon],
                "hovertemplate": f"{'+' if sign > 0 else '−'}ε = {epsilon:g}<extra></extra>"}
               for sign in (1, -1)]
    finite = np.isfinite(loss)
    # Laplace's loss sits exactly at ±ε in the tails: only a real excess is shaded.
    outside = finite & (np.abs(np.where(finite, loss, 0.0)) > epsilon * (1 + 1e-6))
    shape = _loss_shape(bool(outside.any()), title, view.query)
    layout: dict[str, Any] = {}
    if outside.any():
        traces.append({})
        shade = shape["layout"]["shapes"][0]
        layout["shapes"] = [{**shade, "x0": float(x[start]), "x1": float(x[stop])}
                            for start, stop in _runs(outside)]
    if finite.any():
        span = float(np.max(np.abs(loss[finite])))
        limit = max(1.6 * epsilon, min(span, 4 * epsilon)) * 1.05
        layout["yaxis.range"] = [-limit, limit]
    return refill(shape, traces, layout)


@functools.lru_cache(maxsize=16)
def _loss_shape(outside: bool, title: str, query: str) -> Skeleton:
    """:func:`privacy_loss` without its curve, validated once per query.

    When the loss leaves the band, one shaded range is the pattern of every range shaded.
    """
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        mode="lines", name="privacy loss", line={"color": COLORS["private"], "width": 2.5},
        hovertemplate="output %{x:.4g}: loss %{y:.4g}<extra></extra>"))
    for sign in (1, -1):
        fig.add_trace(go.Scatter(
            mode="lines", name="±ε", showlegend=sign > 0,
            line={"color": BAND_COLOR, "dash": "dash", "width": 1.5}, legendgroup="eps"))
    if outside:
        fig.add_vrect(x0=0.0, x1=1.0, fillcolor=SHADE_COLOR, line_width=0, layer="below")
        fig.add_trace(go.Scatter(
            x=[None], y=[None], mode="markers", name="|loss| > ε",
            marker={"symbol": "square", "size": 12, "color": SHADE_COLOR}, hoverinfo="skip"))
    fig.update_layout(template=TEMPLATE, title=title)
    fig.update_xaxes(title_text=f"released {query}")
    fig.update_yaxes(title_text="privacy loss (nats)")
    return skeleton(fig)


def audit_chart(result: AuditResult, *,
                title: str = "Empirical audit: measured ε against the claim") -> go.Figure:
    """The audit's ε estimate with its 95% interval, beside the claimed ε.

    Parameters
    ----------
    result : AuditResult
        From :func:`dpviz.lab.lens.audit_view` (or any :func:`dpviz.privacy.audit`).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        A ``Scatter`` dot at the estimate with asymmetric error bars to the interval's ends
        (an infinite upper end is drawn to the axis edge and labelled), and the claimed ε
        as a dashed vertical ``Scatter`` line.
    """
    lower, estimate, upper = result.epsilon_lower, result.epsilon_estimate, result.epsilon_upper
    claimed = result.claimed_epsilon
    finite_top = max(claimed, lower, estimate, upper if math.isfinite(upper) else 0.0)
    edge = 1.25 * finite_top if finite_top > 0 else 1.0
    shown_upper = upper if math.isfinite(upper) else edge
    color = COLORS["true"] if result.passed else COLORS["private"]
    shape = _audit_shape(color, math.isfinite(upper), title)
    traces: list[dict[str, Any]] = [
        {"x": [claimed, claimed], "name": f"claimed ε = {claimed:g}",
         "hovertemplate": f"claimed ε = {claimed:g}<extra></extra>"},
        {"x": [estimate], "customdata": [[lower, upper]],
         "error_x": {**shape["data"][1]["error_x"], "array": [shown_upper - estimate],
                     "arrayminus": [estimate - lower]}}]
    layout: dict[str, Any] = {"xaxis.range": [0, edge * 1.05]}
    if not math.isfinite(upper):
        layout["annotations"] = [{**shape["layout"]["annotations"][0], "x": edge}]
    return refill(shape, traces, layout)


@functools.lru_cache(maxsize=16)
def _audit_shape(color: str, finite: bool, title: str) -> Skeleton:
    """:func:`audit_chart` without its numbers, validated once per colour and upper end."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        y=[-1.0, 1.0], mode="lines", line={"color": BAND_COLOR, "dash": "dash", "width": 2}))
    fig.add_trace(go.Scatter(
        y=[0.0], mode="markers", name="measured ε, 95% interval",
        marker={"color": color, "size": 15},
        error_x={"type": "data", "symmetric": False, "color": color, "thickness": 3,
                 "width": 12},
        hovertemplate=("measured ε %{x:.3f}<br>95% interval [%{customdata[0]:.3f}, "
                       "%{customdata[1]:.3f}]<extra></extra>")))
    if not finite:
        fig.add_annotation(x=0.0, y=0.0, text="upper end ∞", showarrow=False,
                           xanchor="right", yshift=22)
    fig.update_layout(template=TEMPLATE, title=title, height=250, **legend_on_top())
    fig.update_xaxes(title_text="ε")
    fig.update_yaxes(visible=False, range=[-1, 1], showgrid=False)
    return skeleton(fig)
