"""Figures of "what ε means": the attack's trade-off curve and the posterior bound.

Factories only draw what :mod:`dpviz.privacy.risk` computed (the curve's points, the best
attack, the posterior at each prior) and return a ``plotly.graph_objects.Figure``.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from dpviz.viz.style import BAND_COLOR, COLORS, SHADE_COLOR, TEMPLATE

GUESSING = "random guessing (no information)"


def tradeoff_figure(fpr: ArrayLike, tpr: ArrayLike, *, best: tuple[float, float],
                    advantage: float,
                    title: str = "The best membership-inference attack") -> go.Figure:
    """The attack's TPR against its FPR, with the diagonal and the best attack marked.

    Parameters
    ----------
    fpr, tpr : array-like
        The trade-off curve (Dong, Roth & Su 2019): the highest true-positive rate any
        attack reaches at each false-positive rate.
    best : (float, float)
        The (FPR, TPR) of the attack with the largest advantage.
    advantage : float
        That attack's ``TPR − FPR``.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        Three ``Scatter`` traces: the curve (filled down to the diagonal), the diagonal, the
        best attack.
    """
    x = np.asarray(fpr, dtype=float)
    y = np.asarray(tpr, dtype=float)
    fig = go.Figure(layout={"template": TEMPLATE})
    fig.add_scatter(x=[0.0, 1.0], y=[0.0, 1.0], mode="lines", name=GUESSING,
                    line={"color": BAND_COLOR, "dash": "dash"}, hoverinfo="skip")
    fig.add_scatter(x=x, y=y, mode="lines", name="best attack at each false-positive rate",
                    line={"color": COLORS["private"], "width": 3}, fill="tonexty",
                    fillcolor=SHADE_COLOR,
                    hovertemplate="FPR %{x:.3g}<br>TPR at most %{y:.3g}<extra></extra>")
    fig.add_scatter(x=[best[0]], y=[best[1]], mode="markers+text",
                    name=f"largest advantage: TPR − FPR = {advantage:.1%}",
                    marker={"color": COLORS["true"], "size": 11, "symbol": "x"},
                    text=[f"  {advantage:.1%}"], textposition="middle right",
                    hovertemplate="FPR %{x:.3g}<br>TPR %{y:.3g}<extra></extra>")
    fig.update_layout(title=title, height=420,
                      xaxis={"title": "false-positive rate (calls an absent person present)",
                             "range": [0, 1], "constrain": "domain"},
                      yaxis={"title": "true-positive rate (finds a present person)",
                             "range": [0, 1.02], "scaleanchor": "x", "scaleratio": 1})
    return fig


def posterior_figure(prior: ArrayLike, posterior: ArrayLike, *, epsilon: float, delta: float,
                     title: str = "How sure an attacker can become") -> go.Figure:
    """The largest posterior belief against the prior, beside the line "learned nothing".

    Parameters
    ----------
    prior, posterior : array-like
        Beliefs before the release and the bound after it.
    epsilon, delta : float
        The pair the bound uses (it holds except with probability δ).
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
                    name=f"at most, after the release (ε = {epsilon:.3g}, except with "
                         f"probability δ = {delta:.2g})",
                    line={"color": COLORS["private"], "width": 3},
                    hovertemplate="prior %{x:.0%}<br>at most %{y:.1%}<extra></extra>")
    fig.update_layout(title=title, height=420,
                      xaxis={"title": "belief before (prior)", "range": [0, 1],
                             "tickformat": ".0%"},
                      yaxis={"title": "belief after, at most (posterior)", "range": [0, 1.02],
                             "tickformat": ".0%"})
    return fig
