"""Figures of "what ε means": the icon array, the attack's trade-off curve, the posterior.

Factories only draw what :mod:`dpviz.privacy.risk` computed (how many people an attack picks
out, the curve's points, the best attack, the posterior at each prior). The curves are
``plotly.graph_objects.Figure``; the icon array is a small SVG, shown the same way on a page
and in the stakeholder report.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from dpviz.viz.style import BAND_COLOR, COLORS, SHADE_COLOR, TEMPLATE

GUESSING = "random guessing (no information)"
#: The icon array's cell (px) and the grey of the people an attack does not pick out.
ICON_CELL, ICON_GREY = 22, "#ced4da"


def icon_array(picked: int, *, total: int = 100, columns: int = 10) -> str:
    """A 10 × 10 icon array: ``picked`` of ``total`` people in orange, the rest in grey.

    The frequency format of medical risk communication (Franzen et al., CCS 2022): each
    icon is one person in the data; the orange ones are those the best attack picks out.

    Parameters
    ----------
    picked : int
        How many icons are orange, ``0 … total``.
    total : int
        How many icons.
    columns : int
        Icons per row.

    Returns
    -------
    str
        An ``<svg>`` element with a ``<title>`` (its text alternative).

    Raises
    ------
    ValueError
        For ``picked`` outside ``0 … total``.

    Examples
    --------
    >>> svg = icon_array(3)
    >>> svg.count('fill="#e8590c"'), svg.count('fill="#ced4da"')
    (6, 194)
    """
    if not 0 <= picked <= total:
        raise ValueError(f"picked must be in [0, {total}], got {picked}")
    rows = -(-total // columns)
    width, height = columns * ICON_CELL, rows * ICON_CELL
    icons = []
    for i in range(total):
        x, y = (i % columns) * ICON_CELL, (i // columns) * ICON_CELL
        fill = COLORS["private"] if i < picked else ICON_GREY
        icons.append(f'<circle cx="{x + 11}" cy="{y + 6}" r="4" fill="{fill}"/>'
                     f'<rect x="{x + 5}" y="{y + 11}" width="12" height="9" rx="5" '
                     f'fill="{fill}"/>')
    title = f"{picked} of {total} people picked out"
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}"><title>{title}</title>'
            + "".join(icons) + "</svg>")



def tradeoff_figure(fpr: ArrayLike, tpr: ArrayLike, *, best: tuple[float, float],
                    advantage: float, worst: tuple[ArrayLike, ArrayLike] | None = None,
                    worst_label: str = "any mechanism meeting the (ε, δ) alone",
                    title: str = "The f-DP trade-off: the best attack's two errors"
                    ) -> go.Figure:
    """The trade-off curve ``β = f(α)`` (Dong, Roth & Su 2019): type II against type I error.

    Every test of "this person is in the data" errs two ways: it accuses an absent person
    (type I, rate α, the false-positive rate) or misses a present one (type II, rate β,
    one minus the true-positive rate). Privacy keeps every test at or above the curve.

    Parameters
    ----------
    fpr, tpr : array-like
        The curve as FPR α and the highest TPR ``1 − β`` any attack reaches there.
    best : (float, float)
        The (FPR, TPR) of the attack with the largest advantage.
    advantage : float
        That attack's ``TPR − FPR``.
    worst : (array-like, array-like), optional
        FPR and TPR of a looser curve drawn dashed beside it (the (ε, δ) worst case).
    worst_label : str
        Its legend entry.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        ``Scatter`` traces: the diagonal, the curve (filled up to the diagonal), the looser
        curve when given, the best attack.
    """
    x = np.asarray(fpr, dtype=float)
    beta = 1.0 - np.asarray(tpr, dtype=float)
    fig = go.Figure(layout={"template": TEMPLATE})
    fig.add_scatter(x=[0.0, 1.0], y=[1.0, 0.0], mode="lines", name=GUESSING,
                    line={"color": BAND_COLOR, "dash": "dash"}, hoverinfo="skip")
    fig.add_scatter(x=x, y=beta, mode="lines", name="the best attack these releases allow",
                    line={"color": COLORS["private"], "width": 3}, fill="tonexty",
                    fillcolor=SHADE_COLOR,
                    hovertemplate="type I error α %{x:.3g}<br>type II error β at least "
                                  "%{y:.3g}<extra></extra>")
    if worst is not None:
        fig.add_scatter(x=np.asarray(worst[0], dtype=float),
                        y=1.0 - np.asarray(worst[1], dtype=float), mode="lines",
                        name=worst_label, line={"color": COLORS["true"], "dash": "dot"},
                        hovertemplate="type I error α %{x:.3g}<br>type II error β at least "
                                      "%{y:.3g}<extra></extra>")
    fig.add_scatter(x=[best[0]], y=[1.0 - best[1]], mode="markers+text",
                    name=f"largest advantage: TPR − FPR = {advantage:.1%}",
                    marker={"color": COLORS["true"], "size": 11, "symbol": "x"},
                    text=[f"  {advantage:.1%}"], textposition="middle right",
                    hovertemplate="α %{x:.3g}<br>β %{y:.3g}<extra></extra>")
    fig.update_layout(title=title, height=440,
                      xaxis={"title": "type I error α (false-positive rate: accuses an absent "
                                      "person)", "range": [0, 1], "constrain": "domain"},
                      yaxis={"title": "type II error β (1 − true-positive rate: misses a "
                                      "present person)", "range": [0, 1.02],
                             "scaleanchor": "x", "scaleratio": 1})
    return fig


def posterior_figure(prior: ArrayLike, posterior: ArrayLike, *, epsilon: float, delta: float,
                     title: str = "How sure an attacker can become") -> go.Figure:
    """The largest posterior belief against the prior, beside the line "learned nothing".

    Parameters
    ----------
    prior, posterior : array-like
        Beliefs before the release and the bound after it.
    epsilon, delta : float
        The pair the bound uses (it holds except with probability δ; pure for δ = 0).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        Two ``Scatter`` traces: the prior itself (dashed) and the bound.
    """
    p = np.asarray(prior, dtype=float)
    fig = go.Figure(layout={"template": TEMPLATE})
    fig.add_scatter(x=p, y=p, mode="lines", name="learned nothing (posterior = prior)",
                    line={"color": BAND_COLOR, "dash": "dash"}, hoverinfo="skip")
    fig.add_scatter(x=p, y=np.asarray(posterior, dtype=float), mode="lines",
                    name=f"at most, after the release (ε = {epsilon:.3g}"
                         + (f", except with probability δ = {delta:.2g})" if delta else ")"),
                    line={"color": COLORS["private"], "width": 3},
                    hovertemplate="prior %{x:.0%}<br>at most %{y:.1%}<extra></extra>")
    fig.update_layout(title=title, height=420,
                      xaxis={"title": "belief before (prior)", "range": [0, 1],
                             "tickformat": ".0%"},
                      yaxis={"title": "belief after, at most (posterior)", "range": [0, 1.02],
                             "tickformat": ".0%"})
    return fig
