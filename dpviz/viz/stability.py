"""Figures of the stability learner (seed 003 §6, degree-2 surrogate): W, the test, the centres.

The factories take a :class:`~dpviz.estimators.result.Result` of
:func:`dpviz.estimators.gmm.stability.stability_mixture` (and the data or labels to draw) and return
``plotly.graph_objects.Figure``; they compute nothing but an ordering of rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from dpviz.core.entry import StoryFigure, StoryInputs, StoryRows
from dpviz.viz.kssu import mechanics
from dpviz.viz.mixtures import legend_name
from dpviz.viz.style import COLORS, TEMPLATE


def clustering_matrix_heatmap(result: Any, labels: ArrayLike | None = None, *,
                              soft: bool = False,
                              title: str = "The clustering matrix W") -> go.Figure:
    """W (or φ(W) with ``soft=True``) as a heatmap, rows ordered by ``labels`` when given.

    ``labels`` are per-subsample-row cluster labels (true or found); the order is a stable
    sort by label, so each cluster is a block on the diagonal.
    """
    matrix = np.asarray(result.diagnostics["phi" if soft else "W"])
    order = (np.argsort(np.asarray(labels), kind="stable") if labels is not None
             else np.arange(matrix.shape[0]))
    fig = go.Figure(go.Heatmap(z=matrix[np.ix_(order, order)], zmin=0.0, zmax=1.0,
                               colorscale="Viridis", colorbar={"title": "φ(W)" if soft else "W"},
                               name="φ(W)" if soft else "W"))
    fig.update_layout(template=TEMPLATE, title=title,
                      xaxis={"title": "subsample row (ordered)"},
                      yaxis={"title": "subsample row (ordered)", "autorange": "reversed"})
    return fig


def stability_test_chart(result: Any, title: str = "The stability test") -> go.Figure:
    """Bars: the exact mass ‖φ(W)‖₁ (not released), the released value, and the threshold."""
    d = result.diagnostics
    names = ["mass ‖φ(W)‖₁ (exact, not released)", "released (mass + one-sided noise)"]
    values = [d["mass"], d["test_value"]]
    colors = [COLORS["true"], COLORS["private"]]
    if mechanics(result):  # no noise: the mass itself
        names, values, colors = ["mass ‖φ(W)‖₁"], [d["mass"]], colors[:1]
        title = "The stability test (no noise)"
    fig = go.Figure(go.Bar(x=names, y=values, marker_color=colors, name="test"))
    fig.add_hline(y=d["test_threshold"], line_dash="dash",
                  annotation_text=f"threshold {d['test_threshold']:.4g}")
    verdict = "rejected (⊥)" if result.failed and "test" in result.failed else "passed"
    fig.update_layout(template=TEMPLATE, title=f"{title}: {verdict}",
                      yaxis={"title": "mass"}, showlegend=False)
    return fig


def stability_centres_figure(result: Any, data: ArrayLike, *, true_means: ArrayLike | None = None,
                             axes: tuple[int, int] = (0, 1), reference: str | None = None,
                             title: str | None = None) -> go.Figure:
    """Scatter of the data, the released noisy centroids, and the centres (plus true means).

    ``reference`` names ``true_means`` when the data have no truth (a user's file).
    """
    x = np.asarray(data, dtype=float)
    a, b = axes
    fig = go.Figure(go.Scattergl(x=x[:, a], y=x[:, b], mode="markers", name="data",
                                 marker={"size": 3, "color": "#adb5bd"}))
    cents = result.diagnostics.get("centroids")
    if cents is not None:
        c = np.asarray(cents)
        fig.add_trace(go.Scatter(x=c[:, a], y=c[:, b], mode="markers",
                                 name="centroids" if mechanics(result) else "noisy centroids",
                                 marker={"size": 6, "color": COLORS["private"], "opacity": 0.4}))
    if true_means is not None:
        t = np.asarray(true_means, dtype=float)
        fig.add_trace(go.Scatter(x=t[:, a], y=t[:, b], mode="markers",
                                 name=legend_name("means", "true", reference),
                                 marker={"size": 12, "symbol": "x", "color": COLORS["true"]}))
    means = result.estimate.get("means")
    if means is not None:
        m = np.asarray(means)
        fig.add_trace(go.Scatter(x=m[:, a], y=m[:, b], mode="markers",
                                 name="centres" if mechanics(result) else "private centres",
                                 marker={"size": 14, "symbol": "star",
                                         "color": COLORS["private"]}))
    title = title or ("Centroids and the chosen centres (no noise)" if mechanics(result)
                      else "Noisy centroids and the chosen centres")
    fig.update_layout(template=TEMPLATE, title=title, xaxis={"title": f"x{a + 1}"},
                      yaxis={"title": f"x{b + 1}"})
    return fig


def stability_story(result: Any, inputs: StoryInputs) -> StoryRows:
    """The stability learner's story: its matrix beside its test, then the centres."""
    rows: list[list[StoryFigure]] = []
    if "W" in result.diagnostics:
        rows.append([StoryFigure(clustering_matrix_heatmap(result), "gmm_story_matrix",
                                 "dpviz-stability-matrix"),
                     StoryFigure(stability_test_chart(result), "gmm_story_stability",
                                 "dpviz-stability-test")])
    if not result.failed and inputs.rows is not None:
        rows.append([StoryFigure(stability_centres_figure(result, inputs.rows,
                                                          true_means=inputs.true_means,
                                                          reference=inputs.reference),
                                 "gmm_story_centres", "dpviz-stability-centres")])
    return rows
