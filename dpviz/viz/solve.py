"""The curve a solve-for-ε search tried: the share of runs meeting the target, and the answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

import plotly.graph_objects as go

from dpviz.viz.style import BAND_COLOR, COLORS, TEMPLATE

if TYPE_CHECKING:
    from dpviz.lab.solve import Solution

#: Axis titles of the parameter searched.
AXIS_TITLES = {"epsilon": "privacy ε (log scale)", "rho": "ρ, zCDP (log scale)",
               "n": "rows n (log scale)"}
SYMBOLS = {"epsilon": "ε", "rho": "ρ", "n": "n"}


def solve_figure(solution: Solution, *, title: str | None = None) -> go.Figure:
    """The share of simulated runs meeting the target against the parameter searched.

    Parameters
    ----------
    solution : Solution
        From :func:`dpviz.lab.solve.solve_epsilon` or :func:`dpviz.lab.solve.solve_n`.
    title : str, optional
        Defaults to the target in symbols and the probability.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces: ``"share meeting the target"`` (the points tried, log x), ``"probability
        needed"`` (a dashed horizontal line), ``"without privacy"`` (a dotted line at the
        share the runs reach at ε = ∞, when known: no budget beats it) and, when the target
        is reachable, ``"answer"`` (one marker at the answer). Not reachable: an annotation
        says so.

    Examples
    --------
    >>> from dataclasses import replace
    >>> from dpviz.lab.solve import Solution, make_target
    >>> sol = Solution("epsilon", 1.0, make_target("sbm", "overlap", 0.8), 0.9, 20,
    ...                ((0.1, 0.0), (1.0, 0.95), (10.0, 1.0)), "simulation", 0.1, 10.0, 1.0)
    >>> fig = solve_figure(sol)
    >>> [t.name for t in fig.data], fig.data[2].x, fig.layout.xaxis.type
    (['share meeting the target', 'probability needed', 'answer'], (1.0,), 'log')
    >>> [t.name for t in solve_figure(replace(sol, ceiling=0.95)).data][2]
    'without privacy (ε = ∞): 95%'
    """
    xs = [x for x, _ in solution.searched]
    shares = [s for _, s in solution.searched]
    symbol = SYMBOLS[solution.parameter]
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=xs, y=shares, mode="lines+markers", name="share meeting the target",
        line={"color": COLORS["private"], "width": 2}, marker={"size": 7},
        hovertemplate=f"{symbol} = %{{x:.2g}}: %{{y:.0%}} of runs meet the target"
                      "<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=[solution.low, solution.high], y=[solution.probability] * 2, mode="lines",
        name="probability needed", line={"color": BAND_COLOR, "width": 1.5, "dash": "dash"},
        hovertemplate=f"needed: {solution.probability:.0%}<extra></extra>"))
    if solution.ceiling is not None:
        fig.add_trace(go.Scatter(
            x=[solution.low, solution.high], y=[solution.ceiling] * 2, mode="lines",
            name=f"without privacy (ε = ∞): {solution.ceiling:.0%}",
            line={"color": COLORS["true"], "width": 1.5, "dash": "dot"},
            hovertemplate=(f"without privacy {solution.ceiling:.0%} of runs meet the target: "
                           "no budget does better<extra></extra>")))
    if solution.value is not None:
        share = solution.share_at(solution.value)
        fig.add_trace(go.Scatter(
            x=[solution.value], y=[share], mode="markers", name="answer",
            marker={"color": COLORS["true"], "size": 15, "symbol": "star"},
            hovertemplate=f"answer: {symbol} = %{{x:.2g}} (%{{y:.0%}} of runs)<extra></extra>"))
        fig.add_vline(x=solution.value, line={"color": COLORS["true"], "width": 1,
                                              "dash": "dot"})
    else:
        fig.add_annotation(text=f"not reachable up to {symbol} = {solution.high:g}",
                           xref="paper", yref="paper", x=0.02, y=0.95, showarrow=False,
                           font={"color": COLORS["private"]})
    fig.update_xaxes(title_text=AXIS_TITLES[solution.parameter], type="log")
    fig.update_yaxes(title_text="share of runs meeting the target", range=[-0.03, 1.05],
                     tickformat=".0%")
    fig.update_layout(
        template=TEMPLATE, height=420,
        title=title or f"{solution.target.describe()} with probability "
                       f"≥ {solution.probability:.0%}")
    return fig
