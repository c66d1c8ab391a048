"""Intervals of private estimates drawn on figures: 90 % ellipses about means, bars on values."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from dpviz.viz.mixtures import ellipse
from dpviz.viz.style import COLORS


def with_interval_ellipses(fig: go.Figure, centres: ArrayLike, shapes: ArrayLike, *,
                           axes: tuple[int, int] = (0, 1), order: Sequence[int] | None = None,
                           name: str = "90 % intervals of the private means") -> go.Figure:
    """Add one dashed ellipse per private mean: ``{x : (x − c)ᵀ S⁻¹ (x − c) ≤ 1}``.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The scatter to draw on (changed and returned).
    centres : array-like
        k × d released means.
    shapes : array-like
        k × d × d matrices S (:attr:`dpviz.lab.intervals.Intervals.ellipses`); the ellipse on
        ``axes`` is drawn from their 2 × 2 sub-matrices.
    axes : (int, int)
        The two coordinates shown.
    order : sequence of int, optional
        The components in the order the figure draws them (matched to the true ones).
    name : str
        The legend entry.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig`` with one more ``Scatter`` trace (lines; ``None`` between ellipses).

    Examples
    --------
    >>> fig = with_interval_ellipses(go.Figure(), [[0.0, 0.0]], [[[4.0, 0.0], [0.0, 1.0]]])
    >>> xs = [x for x in fig.data[0].x if x is not None]
    >>> round(max(xs), 6)
    2.0
    """
    c = np.asarray(centres, dtype=float)
    s = np.asarray(shapes, dtype=float)
    picked = list(range(len(c))) if order is None else list(order)
    index = np.ix_(list(axes), list(axes))
    xs: list[float | None] = []
    ys: list[float | None] = []
    for j in picked:
        x, y = ellipse(c[j, list(axes)], s[j][index], 1.0)
        xs.extend([*x.tolist(), None])
        ys.extend([*y.tolist(), None])
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=name,
                             line={"color": COLORS["private"], "width": 2.5, "dash": "dash"},
                             legendgroup="private", hoverinfo="skip", connectgaps=False))
    return fig


def with_interval_bars(fig: go.Figure, trace: str, half_widths: ArrayLike) -> go.Figure:
    """Draw ``value ± half width`` as error bars on the trace named ``trace``.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure (changed and returned); its trace ``trace`` holds the released values.
    trace : str
        The trace's name (an estimator's label on /covariance's spectra).
    half_widths : array-like
        One half width per point of the trace (:attr:`dpviz.lab.intervals.Interval.half_width`).

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``, the trace with symmetric ``error_y`` bars of its colour.

    Examples
    --------
    >>> fig = go.Figure(go.Scatter(x=[1, 2], y=[3.0, 1.0], name="GaussCov"))
    >>> with_interval_bars(fig, "GaussCov", [0.5, 0.5]).data[0].error_y.array.tolist()
    [0.5, 0.5]
    """
    fig.update_traces(error_y={"type": "data", "array": np.asarray(half_widths, dtype=float),
                               "symmetric": True, "visible": True, "thickness": 1.5,
                               "width": 4},
                      selector={"name": trace})
    return fig
