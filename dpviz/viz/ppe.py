"""Figures of the Private Populous Estimator's story and of its sample-size calculator.

Arbas 2023 (seed 004) Algorithm 1 + B_GMM (:mod:`dpviz.estimators.gmm.ppe`). The factories only draw
what a :class:`~dpviz.estimators.result.Result` (or a
:class:`~dpviz.estimators.gmm.sample_size.SampleSizePlan`)
holds. The chunks' mixtures, the qᵢ, Q and the chosen chunk are **not released** (only Q̃ and
the masked mixture are); the figures say so in their titles.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from dpviz.core.entry import StoryFigure, StoryInputs, StoryRows
from dpviz.estimators.gmm.sample_size import SampleSizePlan
from dpviz.estimators.result import Result
from dpviz.viz.kssu import mechanics
from dpviz.viz.mixtures import ellipse
from dpviz.viz.style import COLORS, TEMPLATE, series_color

CHUNK_COLOR = "#9aa5b1"
POPULOUS_LINE = 0.6


def chunks_figure(result: Result, *, axes: tuple[int, int] = (0, 1),
                  max_chunks: int = 200) -> go.Figure:
    """The chunks' non-private mixtures: every chunk's means as points, 1σ ellipses faint.

    At most ``max_chunks`` chunks' means and the first 60 chunks' ellipses are drawn.

    The chosen chunk (if any) is drawn in the "true" colour (it is not released), the masked
    released mixture in the "private" colour.
    """
    diag = result.diagnostics
    means = np.asarray(diag["chunk_means"])[:max_chunks]
    covs = np.asarray(diag["chunk_covariances"])[:max_chunks]
    i, j = axes
    fig = go.Figure()
    xs: list[float | None] = []
    ys: list[float | None] = []
    for c_means, c_covs in zip(means[:60], covs[:60], strict=True):
        for mu, sigma in zip(c_means, c_covs, strict=True):
            ex, ey = ellipse(mu[[i, j]], sigma[np.ix_([i, j], [i, j])])
            xs += [*ex.tolist(), None]
            ys += [*ey.tolist(), None]
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name="chunk 1σ ellipses",
                             line={"color": CHUNK_COLOR, "width": 0.6}, opacity=0.5,
                             hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=means[:, :, i].ravel(), y=means[:, :, j].ravel(), mode="markers",
                             name=f"chunk means ({len(means)} chunks, not released)",
                             marker={"color": CHUNK_COLOR, "size": 5}))
    chosen = diag.get("chosen")
    if chosen is not None:
        mu = np.asarray(diag["unmasked"]["means"])
        fig.add_trace(go.Scatter(x=mu[:, i], y=mu[:, j], mode="markers",
                                 name=f"chosen chunk j = {chosen + 1} (unmasked, not released)",
                                 marker={"color": COLORS["true"], "size": 11, "symbol": "x"}))
    if result.estimate.get("means") is not None:
        mu = np.asarray(result.estimate["means"])
        fig.add_trace(go.Scatter(x=mu[:, i], y=mu[:, j], mode="markers",
                                 name="chosen chunk's mixture (no mask)" if mechanics(result)
                                 else "released (masked)",
                                 marker={"color": COLORS["private"], "size": 12,
                                         "symbol": "diamond"}))
    fig.update_layout(template=TEMPLATE, title="The chunks' mixtures (EM, no PAC guarantee)",
                      xaxis_title=f"x{i + 1}", yaxis_title=f"x{j + 1}")
    return fig


def agreement_figure(result: Result) -> go.Figure:
    """The agreement scores qᵢ as bars, with the 0.6 line of line 8 (not released)."""
    q = np.asarray(result.diagnostics["agreement"])
    chosen = result.diagnostics.get("chosen")
    colors = [COLORS["true"] if chosen == i else CHUNK_COLOR for i in range(q.size)]
    fig = go.Figure(go.Bar(x=np.arange(1, q.size + 1), y=q, name="q_i", marker_color=colors))
    fig.add_hline(y=POPULOUS_LINE, line_dash="dash", line_color=COLORS["private"],
                  annotation_text="0.6: populous")
    fig.update_layout(template=TEMPLATE,
                      title="Agreement: share of chunks within r/(2z) of chunk i (not released)",
                      xaxis_title="chunk i", yaxis_title="q_i", yaxis_range=[0, 1.05],
                      showlegend=False)
    return fig


def noisy_test_figure(result: Result) -> go.Figure:
    """Q (not released) and the released Q̃ against the threshold of line 7."""
    diag = result.diagnostics
    values = [diag["Q"], diag["noisy_Q"], diag["threshold"]]
    names = ["Q (exact, not released)", "Q~ = Q + TLap (released)", "threshold"]
    colors = [COLORS["true"], COLORS["private"], series_color(2)]
    title = "The noisy test"
    if mechanics(result):  # no noise: Q itself against the threshold
        values, names, colors = [values[0], values[2]], ["Q", "threshold"], [colors[0], colors[2]]
        title = "The agreement test (no noise)"
    fig = go.Figure(go.Bar(x=names, y=values, marker_color=colors,
                           text=[f"{v:.3f}" for v in values], textposition="outside"))
    verdict = ("⊥" if result.failed else "passed") if mechanics(result) else (
        "refused (⊥)" if result.failed else "passed: the masked mixture is released")
    fig.update_layout(template=TEMPLATE, title=f"{title}: {verdict}",
                      yaxis_title="agreement", yaxis_range=[0, max(1.1, max(values) * 1.1)],
                      showlegend=False)
    return fig


def mask_figure(result: Result, *, axes: tuple[int, int] = (0, 1)) -> go.Figure:
    """The mask applied: the chosen chunk's components (unmasked) and the released ones."""
    unmasked = result.diagnostics.get("unmasked")
    fig = go.Figure()
    i, j = axes
    title = "The mask: nothing released (⊥)"
    if mechanics(result):
        return fig.update_layout(template=TEMPLATE, title="No mask without noise: the chosen "
                                 "chunk's mixture is the answer")
    if unmasked is not None and result.estimate.get("means") is not None:
        for who, mix in (("true", unmasked), ("private", result.estimate)):
            label = "unmasked Y_j (not released)" if who == "true" else "masked B(Y_j) (released)"
            mu = np.asarray(mix["means"])
            covs = np.asarray(mix["covariances"])
            xs: list[float | None] = []
            ys: list[float | None] = []
            for m, s in zip(mu, covs, strict=True):
                ex, ey = ellipse(m[[i, j]], s[np.ix_([i, j], [i, j])])
                xs += [*ex.tolist(), None]
                ys += [*ey.tolist(), None]
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=f"{label}, 1σ",
                                     line={"color": COLORS[who]}))
            fig.add_trace(go.Scatter(x=mu[:, i], y=mu[:, j], mode="markers", name=label,
                                     marker={"color": COLORS[who], "size": 9}))
        title = "The mask applied: unmasked vs masked components"
    fig.update_layout(template=TEMPLATE, title=title, xaxis_title=f"x{i + 1}",
                      yaxis_title=f"x{j + 1}")
    return fig


def sample_size_figure(plans: Sequence[SampleSizePlan], *, against: str = "alpha",
                       sample_at_hand: float | None = None) -> go.Figure:
    """t, s, n (rows) and 1/r against α or ε_tot, on log axes: the numbers are huge.

    ``sample_at_hand`` draws the n of the data at hand as a horizontal line.
    """
    if against not in ("alpha", "epsilon"):
        raise ValueError(f"against must be alpha or epsilon, got {against!r}")
    x = [p.alpha if against == "alpha" else p.epsilon_total for p in plans]
    series = (("n (total rows)", [p.n for p in plans]),
              ("s (rows per chunk)", [p.chunk_size for p in plans]),
              ("t (chunks)", [p.t for p in plans]),
              ("1/r (inverse masking radius)", [1 / p.radius for p in plans]))
    fig = go.Figure()
    for index, (name, values) in enumerate(series):
        fig.add_trace(go.Scatter(x=x, y=values, mode="lines+markers", name=name,
                                 line={"color": series_color(index)}))
    if sample_at_hand is not None:
        fig.add_hline(y=sample_at_hand, line_dash="dot", line_color=COLORS["true"],
                      annotation_text=f"the data at hand: n = {sample_at_hand:,.0f}")
    fig.update_layout(template=TEMPLATE,
                      title="What the PPE guarantee needs (orders of magnitude)",
                      xaxis_title="alpha (target accuracy)" if against == "alpha"
                      else "epsilon (total)", yaxis_title="count", xaxis_type="log",
                      yaxis_type="log", yaxis_exponentformat="power")
    return fig


def plan_table(plan: SampleSizePlan) -> dict[str, list[str]]:
    """The plan as columns (quantity, value, meaning) for ``st.dataframe``."""
    rows = plan.rows()
    return {"quantity": [r[0] for r in rows], "value": [f"{r[1]:.4g}" for r in rows],
            "meaning": [r[2] for r in rows]}


def ppe_story(result: Result, inputs: StoryInputs) -> StoryRows:
    """PPE's story: the chunks, their agreement beside the noisy test, then the mask."""
    if "agreement" not in result.diagnostics:
        return []
    rows: list[list[StoryFigure]] = [
        [StoryFigure(chunks_figure(result), "gmm_story_chunks", "dpviz-ppe-chunks")],
        [StoryFigure(agreement_figure(result), "gmm_story_agreement", "dpviz-ppe-agreement"),
         StoryFigure(noisy_test_figure(result), "gmm_story_test", "dpviz-ppe-test")]]
    if not result.failed:
        rows.append([StoryFigure(mask_figure(result), "gmm_story_mask", "dpviz-ppe-mask")])
    return rows
