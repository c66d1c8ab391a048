"""Figures of the one-click audit: measured ε against the claim, and the two output samples."""

from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go

from dpviz.lab.audit import EstimatorAudit
from dpviz.viz.style import BAND_COLOR, COLORS, DATASET_COLORS, TEMPLATE, legend_on_top, wrapped


def audit_comparison(audits: Sequence[EstimatorAudit], *,
                     title: str = "Measured ε (95% interval) against the claimed ε"
                     ) -> go.Figure:
    """One row per audited estimator or variant: the measured ε with its interval, the claim.

    Parameters
    ----------
    audits : sequence of EstimatorAudit
        From :func:`dpviz.lab.audit.audit_estimator` or
        :func:`dpviz.lab.broken_variants.audit_gallery`.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        A ``Scatter`` of diamonds at each claimed ε (trace 0) and a ``Scatter`` of dots at
        each measured point estimate with asymmetric error bars to the interval's ends
        (trace 1; an infinite end is drawn to the axis edge, its hover says ∞). A dot is
        "true"-coloured when the lower end does not exceed the claim, "private"-coloured
        (a violation) otherwise. Then, where known, a ``Scatter`` of ticks at the bound a
        perfect audit of that ledger typically shows at the same run count (trace 2,
        :attr:`dpviz.lab.audit.EstimatorAudit.attainable`): a correct Gaussian estimator's
        bound near 0 sits beside a tick near 0, not far below its claim for nothing.
    """
    names = [a.label for a in audits]
    lows = [a.result.epsilon_lower for a in audits]
    estimates = [a.result.epsilon_estimate for a in audits]
    highs = [a.result.epsilon_upper for a in audits]
    claims = [a.claimed_epsilon for a in audits]
    finite = [v for v in (*lows, *estimates, *highs, *claims, *(a.attainable for a in audits))
              if math.isfinite(v)]
    edge = 1.2 * max(finite, default=1.0) or 1.0
    shown_estimates = [e if math.isfinite(e) else edge for e in estimates]
    shown_highs = [h if math.isfinite(h) else edge for h in highs]
    colors = [COLORS["true"] if a.passed else COLORS["private"] for a in audits]
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=claims, y=names, mode="markers", name="claimed ε (the run's ledger)",
        marker={"symbol": "diamond-open", "size": 16, "color": BAND_COLOR,
                "line": {"width": 3}},
        hovertemplate="claimed ε = %{x:.3g}<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=shown_estimates, y=names, mode="markers", name="measured ε, 95% interval",
        marker={"color": colors, "size": 12},
        error_x={"type": "data", "symmetric": False,
                 "array": [h - e for h, e in zip(shown_highs, shown_estimates, strict=True)],
                 "arrayminus": [e - lo for e, lo in zip(shown_estimates, lows, strict=True)],
                 "color": BAND_COLOR, "thickness": 2, "width": 8},
        customdata=[[lo, _text(e), _text(h), "caught" if not a.passed else "consistent"]
                    for lo, e, h, a in zip(lows, estimates, highs, audits, strict=True)],
        hovertemplate=("measured ε ≥ %{customdata[0]:.3f} (estimate %{customdata[1]}, "
                       "upper end %{customdata[2]}): %{customdata[3]}<extra></extra>")))
    reach = [(a.label, a.attainable, a.runs) for a in audits if math.isfinite(a.attainable)]
    if reach:
        fig.add_trace(go.Scatter(
            x=[x for _, x, _ in reach], y=[name for name, _, _ in reach], mode="markers",
            name="a perfect audit, typically (same runs)",
            marker={"symbol": "line-ns-open", "size": 22, "color": COLORS["true"],
                    "line": {"width": 3}},
            customdata=[runs for _, _, runs in reach],
            hovertemplate=("a perfect test with %{customdata:,} runs or draws typically shows "
                           "ε ≥ %{x:.2f} if the ledger is tight<extra></extra>")))
    fig.update_layout(template=TEMPLATE, title=title, height=180 + 60 * len(audits),
                      **legend_on_top())
    fig.update_xaxes(title_text="ε", range=[0, edge * 1.05])
    fig.update_yaxes(autorange="reversed", automargin=True)
    return fig


def _text(value: float) -> str:
    return "∞" if math.isinf(value) else f"{value:.3f}"


def audit_histograms(audit: EstimatorAudit) -> go.Figure:
    """The audit's statistic on every run on D and on D′, with the rejection set's threshold.

    A white-box audit keeps the first of its draws (``audit.outputs``); the title says how
    many of how many.

    Returns
    -------
    plotly.graph_objects.Figure
        Two overlaid ``Histogram`` traces (D, D′, in the lens's dataset colours) and a
        dashed vertical ``Scatter`` line at the threshold τ of the set the audit used.
    """
    unit = "draws" if audit.method == "white-box" else "runs"
    fig = go.Figure()
    for name, values in (("D", audit.outputs), ("D′", audit.outputs_neighbour)):
        fig.add_trace(go.Histogram(x=values, name=f"{unit} on {name}", opacity=0.6,
                                   marker={"color": DATASET_COLORS[name]}, nbinsx=60))
    r = audit.result
    fig.add_trace(go.Scatter(
        x=[r.threshold, r.threshold], y=[0, 1], yaxis="y2", mode="lines",
        name=f"rejection set: output {r.direction} {r.threshold:.3g}",
        line={"color": BAND_COLOR, "dash": "dash", "width": 2}, hoverinfo="skip"))
    fig.update_layout(template=TEMPLATE, barmode="overlay", height=320,
                      title=(f"The statistic on {r.trials:,} {unit} on each dataset"
                             if len(audit.outputs) == r.trials else
                             f"The statistic on the first {len(audit.outputs):,} of "
                             f"{r.trials:,} {unit} on each dataset"),
                      yaxis2={"overlaying": "y", "range": [0, 1], "visible": False},
                      **legend_on_top())
    fig.update_xaxes(title_text=wrapped(audit.statistic))
    fig.update_yaxes(title_text="runs")
    return fig
