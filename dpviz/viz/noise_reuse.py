"""The noise-reuse lesson's figure: two releases of one mean and the two-ε attack on them.

The factory only draws what :func:`dpviz.lab.lens.two_release_attack` computed.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from dpviz.lab.lens import TwoReleases
from dpviz.viz.style import COLORS, TEMPLATE, legend_on_top, series_color

#: The row label of each kind of randomness.
TEACHING_ROW = "teaching randomness (one seed)"
SECURE_ROW = "secure randomness (fresh OS entropy)"


def row_label(attack: TwoReleases) -> str:
    """The figure's row for an attack: teaching (one seed) or secure randomness."""
    return TEACHING_ROW if attack.shared_seed else SECURE_ROW


def two_release_figure(attacks: Sequence[TwoReleases], *,
                       title: str = "Two releases of one mean, and the attacker's answer"
                       ) -> go.Figure:
    """One row per kind of randomness: the two releases, the attack's answer, the true mean.

    Parameters
    ----------
    attacks : sequence of TwoReleases
        At least one, all of one mean at the same two ε: e.g. the attack on teaching
        randomness and on secure randomness.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        A ``Scatter`` per release (ε₁, ε₂), one for the attack's answers, and the true mean
        as a dotted vertical line.
    """
    rows = [row_label(a) for a in attacks]
    fig = go.Figure()
    for i, symbol in enumerate(("circle", "diamond")):
        fig.add_trace(go.Scatter(
            x=[a.released[i] for a in attacks], y=rows, mode="markers",
            name=f"release at ε{'₁₂'[i]} = {attacks[0].epsilons[i]:g}",
            marker={"symbol": symbol, "size": 12, "color": series_color(i),
                    "line": {"color": "white", "width": 1}},
            customdata=[a.scales[i] for a in attacks],
            hovertemplate="released %{x:.6g} (noise scale %{customdata:.4g})<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=[a.recovered for a in attacks], y=rows, mode="markers",
        name="attacker's answer (b₂·o₁ − b₁·o₂)/(b₂ − b₁)",
        marker={"symbol": "x", "size": 14, "color": COLORS["private"]},
        customdata=[a.error for a in attacks],
        hovertemplate="attack: %{x:.12g}<br>off the true mean by %{customdata:.3g}"
                      "<extra></extra>"))
    fig.add_vline(x=attacks[0].true_mean, line={"color": COLORS["true"], "dash": "dot"})
    fig.add_trace(go.Scatter(  # the line's legend entry (a vline has none)
        x=[None], y=[None], mode="lines", name="true mean (not released)",
        line={"color": COLORS["true"], "dash": "dot"}))
    fig.update_layout(template=TEMPLATE, title=title, height=300, **legend_on_top())
    fig.update_xaxes(title_text="value of the mean")
    fig.update_yaxes(autorange="reversed")
    return fig
