"""Stories of seed 000's estimators (issue 7): private PCA + clustering, sample-and-aggregate.

How to call them (the GMM page wires them in)::

    r = dpviz.run("gmm", "private_pca_clustering", X, k=3, epsilon=1, delta=1e-5, radius=R)
    pca_projection_figure(r, truth_labels=mix.labels[r.diagnostics["z_rows"]])
    clustering_rounds_figure(r)            # or upto=j to replay rounds 1 … j
    s = dpviz.run("gmm", "sample_aggregate", X, k=3, epsilon=1, delta=1e-5, radius=R)
    candidate_cloud_figure(s, true_means=mix.means)

They only draw what the result's ``diagnostics`` and ``estimate`` hold; a ⊥ run draws what
was found before the failure and says so in the title; a run refused before reading the data
has nothing to draw. A run at ε = ∞ is the algorithm's **mechanics** (no noise, no guarantee):
its figures then say neither "private" nor "released" (:func:`mechanics`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray
from plotly.subplots import make_subplots

from dpviz.core.entry import StoryFigure, StoryInputs, StoryRows
from dpviz.estimators.result import Result
from dpviz.viz.mixtures import DATA_COLOR, legend_name
from dpviz.viz.style import COLORS, TEMPLATE, series_color

CIRCLE_POINTS = 73
UNASSIGNED = "unassigned"


def _two(points: ArrayLike) -> NDArray[np.float64]:
    """The first two coordinates (a zero second one for 1-D points)."""
    arr = np.atleast_2d(np.asarray(points, dtype=float))
    if arr.shape[1] >= 2:
        return arr[:, :2]
    return np.hstack([arr, np.zeros((len(arr), 1))])


def circle(centre: ArrayLike, radius: float) -> tuple[list[float], list[float]]:
    """A closed path around ``centre`` (first two coordinates) of the given radius.

    Examples
    --------
    >>> x, y = circle([1.0, 0.0], 2.0)
    >>> round(max(x), 6), round(min(x), 6)
    (3.0, -1.0)
    """
    c = _two(centre)[0]
    t = np.linspace(0.0, 2 * np.pi, CIRCLE_POINTS)
    return (c[0] + radius * np.cos(t)).tolist(), (c[1] + radius * np.sin(t)).tolist()


def mechanics(result: Result) -> bool:
    """Whether ``result`` is a run without noise (ε = ∞): its mechanics, not a release."""
    budget = result.ledger.budget
    return budget is not None and budget.non_private


def _private(result: Result, private: str, plain: str) -> str:
    """``private`` for a run with noise, ``plain`` for the mechanics (no ε, no "private")."""
    return plain if mechanics(result) else private


def _title(result: Result, text: str) -> str:
    return text + (" — failed: " + result.failed if result.failed else "")


def good_radius_figure(result: Result, title: str = "GoodRadius, round by round") -> go.Figure:
    """Each round's score L(r) on the radius grid against the threshold it must reach.

    The scores are exact (never released); a private round stops at the first radius whose
    noisy score reaches the noisy threshold t − Γ (drawn dashed), the mechanics at the first
    whose score reaches t. When Γ ≥ t the threshold is at or below 0 and the first radius of
    the grid passes, whatever the data: why such runs are refused before reading them.
    """
    diag = result.diagnostics
    fig = go.Figure()
    target = float(diag["target"])
    for j, found in enumerate(diag["rounds"]):
        fig.add_trace(go.Scatter(x=np.asarray(found["grid"]), y=np.asarray(found["scores"]),
                                 mode="lines+markers", name=f"round {j + 1}: L(r)",
                                 line={"color": series_color(j)}))
        if found["radius"] is not None:
            fig.add_trace(go.Scatter(x=[found["radius"]], y=[target], mode="markers",
                                     name=f"round {j + 1}: radius chosen", showlegend=False,
                                     marker={"color": series_color(j), "size": 12,
                                             "symbol": "star"}))
    fig.add_hline(y=target, line_color=COLORS["true"],
                  annotation_text=f"t = {target:g} (the points a ball should hold)")
    if not mechanics(result):
        threshold = target - float(diag["gamma"])
        fig.add_hline(y=threshold, line_dash="dash", line_color=COLORS["private"],
                      annotation_text=f"t − Γ = {threshold:.4g} (Γ: AboveThreshold's slack)",
                      annotation_position="bottom right")
    fig.update_layout(template=TEMPLATE, title=_title(result, title), height=420)
    fig.update_xaxes(title_text="radius r (data units)", type="log")
    fig.update_yaxes(title_text="score L(r) (exact, not released)")
    return fig


def _groups(labels: NDArray[np.int64]) -> list[tuple[str, NDArray[np.bool_], str]]:
    out = [(f"cluster {j + 1}", labels == j, series_color(j))
           for j in range(int(labels.max()) + 1 if labels.size else 0)]
    return [*out, (UNASSIGNED, labels < 0, DATA_COLOR)]


def pca_projection_figure(result: Result, *, truth_labels: ArrayLike | None = None,
                          title: str = "The clustering half projected on the top-k subspace"
                          ) -> go.Figure:
    """Side by side: Z on the private subspace V (left) and on the exact one (right).

    Parameters
    ----------
    result : Result
        A ``private_pca_clustering`` result.
    truth_labels : array-like, optional
        The true component of each Z row (``labels[diagnostics["z_rows"]]``): points are
        coloured by it, so a good private subspace keeps the components apart.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        Two panels of ``Scatter`` traces (one per true component, or one grey trace), the
        first two coordinates along each subspace, in data units about the ball's centre.
    """
    diag = result.diagnostics
    panels = ((_private(result, "private subspace (released)", "subspace of the noiseless PCA"),
               _two(diag["projected"])),
              (_private(result, "exact subspace (not private: for comparison)",
                        "exact subspace (the same, for comparison)"),
               _two(diag["true_projected"])))
    labels = (np.zeros(len(panels[0][1]), dtype=np.int64) if truth_labels is None
              else np.asarray(truth_labels, dtype=np.int64))
    fig = make_subplots(rows=1, cols=2, subplot_titles=[name for name, _ in panels],
                        horizontal_spacing=0.08)
    for col, (_, points) in enumerate(panels, start=1):
        for j in np.unique(labels):
            rows = labels == j
            name = "rows" if truth_labels is None else f"true component {j + 1}"
            fig.add_trace(go.Scatter(
                x=points[rows, 0], y=points[rows, 1], mode="markers", name=name,
                legendgroup=name, showlegend=col == 1,
                marker={"size": 4, "opacity": 0.5,
                        "color": DATA_COLOR if truth_labels is None else series_color(int(j))},
                hovertemplate="(%{x:.3g}, %{y:.3g})<extra></extra>"), row=1, col=col)
        fig.update_xaxes(title_text="coordinate 1", row=1, col=col)
        fig.update_yaxes(title_text="coordinate 2", row=1, col=col)
    fig.update_layout(template=TEMPLATE, title=title, height=520)
    return fig


def _round_traces(fig: go.Figure, j: int, found: Mapping[str, Any]) -> None:
    colour = series_color(j)
    name = f"round {j + 1}"
    if found["centre"] is None:
        return
    for radius, dash, what in ((found["radius"], "dot", "GoodRadius r"),
                               (found["average_radius"], "dash", "averaging radius r_c"),
                               (found["assign_radius"], "solid", "assignment radius c·r")):
        x, y = circle(found["centre"] if what != "averaging radius r_c"
                      else found["cell_centre"], float(radius))
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=f"{name}: {what}",
                                 legendgroup=name, line={"color": colour, "dash": dash},
                                 hoverinfo="skip"))
    cell, centre = _two(found["cell_centre"])[0], _two(found["centre"])[0]
    fig.add_trace(go.Scatter(
        x=[cell[0], centre[0]], y=[cell[1], centre[1]], mode="markers", legendgroup=name,
        name=f"{name}: cell centre → centre",
        marker={"color": [colour, COLORS["private"]], "size": [9, 13],
                "symbol": ["square-open", "circle"]},
        hovertemplate="(%{x:.3g}, %{y:.3g})<extra></extra>"))


def clustering_rounds_figure(result: Result, *, upto: int | None = None,
                             title: str | None = None) -> go.Figure:
    """The projected clustering half, coloured by assigned round, with each round's balls.

    Parameters
    ----------
    result : Result
        A ``private_pca_clustering`` result.
    upto : int, optional
        Draw rounds 1 … ``upto`` only (points assigned later count as unassigned): the replay.
    title : str, optional
        The figure's title (default: the private balls, or the balls of the mechanics).

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Scatter`` of points per cluster (and the unassigned), then per round three
        circles (GoodRadius r about the private centre, dotted; the averaging radius r_c
        about the cell centre, dashed; the assignment radius c·r, solid) and the cell centre
        and private centre markers. Data units about the ball's centre.
    """
    diag = result.diagnostics
    rounds: Sequence[Mapping[str, Any]] = diag["rounds"]
    last = len(rounds) if upto is None else max(0, min(int(upto), len(rounds)))
    labels = np.where(diag["labels"] < last, diag["labels"], -1)
    points = _two(diag["projected"])
    fig = go.Figure()
    for name, rows, colour in _groups(labels):
        fig.add_trace(go.Scatter(x=points[rows, 0], y=points[rows, 1], mode="markers",
                                 name=name, marker={"color": colour, "size": 4, "opacity": 0.45},
                                 hovertemplate="(%{x:.3g}, %{y:.3g})<extra></extra>"))
    for j in range(last):
        _round_traces(fig, j, rounds[j])
    title = title or _private(result, "The private balls, round by round",
                              "The balls, round by round (no noise)")
    fig.update_layout(template=TEMPLATE, title=_title(result, title), height=620)
    fig.update_xaxes(title_text=_private(result, "private subspace, coordinate 1",
                                         "subspace, coordinate 1"))
    fig.update_yaxes(title_text="coordinate 2", scaleanchor="x", scaleratio=1)
    return fig


def candidate_cloud_figure(result: Result, *, true_means: ArrayLike | None = None,
                           reference: str | None = None, title: str | None = None) -> go.Figure:
    """The t·k candidate means coloured by the ball that took them; the private means on top.

    Parameters
    ----------
    result : Result
        A ``sample_aggregate`` result.
    true_means : array-like, optional
        k × d, drawn as crosses (ground truth).
    reference : str, optional
        What ``true_means`` are when the data have no truth (a user's file); the legend then
        names it instead of "true means".
    title : str, optional
        The figure's title (default: the private aggregate, or the mechanics' aggregate).

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Scatter`` of candidates per ball (and those no ball took), each ball's
        averaging circle, the true means (if given) and the private means. Data units, first
        two coordinates.
    """
    diag = result.diagnostics
    points = _two(diag["candidates"])
    fig = go.Figure()
    for name, rows, colour in _groups(np.asarray(diag["taken_by"])):
        label = name.replace("cluster", "candidates taken by ball")
        fig.add_trace(go.Scatter(
            x=points[rows, 0], y=points[rows, 1], mode="markers",
            name=label if name != UNASSIGNED else "candidates no ball took",
            marker={"color": colour, "size": 6, "opacity": 0.6},
            hovertemplate="a chunk's mean (%{x:.3g}, %{y:.3g})<extra></extra>"))
    for j, found in enumerate(diag["rounds"]):
        if found["centre"] is None:
            continue
        x, y = circle(found["centre"], float(found["average_radius"]))
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=f"ball {j + 1} (r_c)",
                                 line={"color": series_color(j), "dash": "dash"},
                                 hoverinfo="skip"))
    if true_means is not None:
        mu = _two(true_means)
        name = legend_name("means", "true", reference)
        fig.add_trace(go.Scatter(x=mu[:, 0], y=mu[:, 1], mode="markers", name=name,
                                 marker={"color": COLORS["true"], "size": 13, "symbol": "x"},
                                 hovertemplate=name + " (%{x:.3g}, %{y:.3g})<extra></extra>"))
    if result.estimate.get("means") is not None:
        est = _two(result.estimate["means"])
        fig.add_trace(go.Scatter(
            x=est[:, 0], y=est[:, 1], mode="markers",
            name=_private(result, "private aggregate", "aggregate (no noise)"),
            marker={"color": COLORS["private"], "size": 15, "symbol": "circle",
                    "line": {"color": "white", "width": 1.5}},
            hovertemplate="mean (%{x:.3g}, %{y:.3g})<extra></extra>"))
    title = title or _private(result, "Chunk estimates and the private aggregate",
                              "Chunk estimates and their aggregate (no noise)")
    fig.update_layout(template=TEMPLATE, title=_title(result, title), height=620)
    fig.update_xaxes(title_text="x1")
    fig.update_yaxes(title_text="x2", scaleanchor="x", scaleratio=1)
    return fig


def pca_story(result: Result, inputs: StoryInputs) -> StoryRows:
    """Private PCA + clustering's story: the projected half, GoodRadius, the rounds."""
    if "rounds" not in result.diagnostics:  # refused before reading the data
        return []
    rows = result.diagnostics.get("z_rows")
    labels = (np.asarray(inputs.labels)[rows]
              if rows is not None and inputs.labels is not None else None)
    return [[StoryFigure(pca_projection_figure(result, truth_labels=labels),
                         "gmm_story_pca", "dpviz-kssu-pca")],
            [StoryFigure(good_radius_figure(result), "gmm_story_good_radius",
                         "dpviz-kssu-good-radius")],
            [StoryFigure(clustering_rounds_figure(result), "gmm_story_rounds",
                         "dpviz-kssu-rounds")]]


def sample_aggregate_story(result: Result, inputs: StoryInputs) -> StoryRows:
    """Sample-and-aggregate's story: GoodRadius on the chunks, their candidates, the aggregate."""
    if "rounds" not in result.diagnostics:  # refused before reading the data
        return []
    return [[StoryFigure(good_radius_figure(result, "GoodRadius over the chunks' candidates"),
                         "gmm_story_good_radius", "dpviz-sample-aggregate-good-radius")],
            [StoryFigure(candidate_cloud_figure(result, true_means=inputs.true_means,
                                                reference=inputs.reference),
                         "gmm_story_candidates", "dpviz-sample-aggregate")]]
