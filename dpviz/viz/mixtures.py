"""Figures of the Gaussian mixtures page: data, true and private means, covariance ellipses.

With a user's own file there is no truth: the black components are a reference fit, named as
such in the legend and the hover (``reference=``). Factories only draw: the page matches the
private components to the true ones
(:func:`dpviz.estimators.metrics.match_components`), picks the rows to draw and the two coordinates
shown, and passes plain arrays in.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

from dpviz.viz.style import COLORS, TEMPLATE, Skeleton, plotly_text, refill, skeleton

DATA_COLOR = "#9aa5b1"
#: The legend name of the rows drawn under a figure (a sample of them on large tables).
ROWS_NAME = "data (rows drawn)"
#: At most this many rows are drawn under a figure (the estimators use all of them). Redrawing
#: the points is most of a browser's work on an ε move: 1 500 rows take 0.45–0.55 s of a
#: headless Chromium's main thread per move against 0.62–0.70 s for 3 000 (bench/load_test.py).
DRAW_ROWS = 1500
#: The multiples of the standard deviation drawn as ellipses, with their dash styles.
SIGMAS: tuple[tuple[int, str], ...] = ((1, "solid"), (2, "dot"))
ELLIPSE_POINTS = 73
#: When the private means would stretch an axis to more than this many times the rows' own
#: span (noise far larger than the data's spread), the axis keeps the rows' span in their own
#: units and the means beyond it are drawn at its edge, their coordinates in the hover.
FAR = 3.0
#: The margin about the rows' span (a share of it).
MARGIN = 0.08


def ellipse(mean: ArrayLike, covariance: ArrayLike, n_sigma: float = 1.0,
            points: int = ELLIPSE_POINTS) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Points on the ``n_sigma`` contour of a 2-D Gaussian (a closed path).

    The semi-axes point along the eigenvectors of ``covariance`` and are
    ``n_sigma × √λ`` long (negative eigenvalues, from noise, are drawn as 0).

    Examples
    --------
    >>> x, y = ellipse([0.0, 0.0], [[4.0, 0.0], [0.0, 1.0]], 2.0)
    >>> radius = np.hypot(x, y)
    >>> round(float(radius.max()), 6), round(float(radius.min()), 6)
    (4.0, 2.0)
    """
    centre = np.asarray(mean, dtype=float).ravel()
    cov = np.asarray(covariance, dtype=float)
    cov = (cov + cov.T) / 2
    values, vectors = np.linalg.eigh(cov)
    axes = vectors * (n_sigma * np.sqrt(np.maximum(values, 0.0)))
    t = np.linspace(0.0, 2 * np.pi, points)
    path = centre[:, None] + axes @ np.vstack([np.cos(t), np.sin(t)])
    return path[0], path[1]


def _ellipse_paths(means: NDArray[np.float64], covariances: NDArray[np.float64],
                   n_sigma: int) -> dict[str, list[float | None]]:
    """The ``n_sigma`` ellipses of every component as one path, broken by ``None``."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    for mean, cov in zip(means, covariances, strict=True):
        x, y = ellipse(mean, cov, n_sigma)
        xs.extend([*x.tolist(), None])
        ys.extend([*y.tolist(), None])
    return {"x": xs, "y": ys}


def legend_name(what: str, who: str, reference: str | None) -> str:
    """A legend entry: ``"true means"``, ``"private means"``, or ``"means of <reference>"``.

    Examples
    --------
    >>> legend_name("means", "true", None), legend_name("1σ ellipses", "true", "EM on your data")
    ('true means', '1σ ellipses of EM on your data')
    """
    return f"{what} of {reference}" if who == "true" and reference else f"{who} {what}"


def _project(values: ArrayLike | None, axes: tuple[int, int]) -> NDArray[np.float64] | None:
    if values is None:
        return None
    arr = np.asarray(values, dtype=float)
    return arr[..., list(axes)]


def _project_cov(values: ArrayLike | None, axes: tuple[int, int]) -> NDArray[np.float64] | None:
    if values is None:
        return None
    arr = np.asarray(values, dtype=float)
    index = list(axes)
    return arr[:, index][:, :, index]


def mixture_figure(data: ArrayLike, true_means: ArrayLike, private_means: ArrayLike, *,
                   true_covariances: ArrayLike | None = None,
                   private_covariances: ArrayLike | None = None,
                   cloud: ArrayLike | None = None, axes: tuple[int, int] = (0, 1),
                   axis_names: Sequence[str] | None = None, reference: str | None = None,
                   title: str = "The data, the true means and the private means") -> go.Figure:
    """Scatter of the rows with true and private means and their 1σ / 2σ ellipses.

    Parameters
    ----------
    data : array-like
        The rows to draw (n × d; the page subsamples them).
    true_means, private_means : array-like
        k × d each, **already matched**: ``private_means[j]`` is the estimate of true
        component ``j`` (both are labelled ``j + 1``).
    true_covariances, private_covariances : array-like, optional
        k × d × d; without them no ellipses of that kind are drawn.
    cloud : array-like, optional
        Private means of repeated runs (m × d), drawn as a faint cloud.
    axes : (int, int)
        The two coordinates shown (a public projection).
    axis_names : sequence of str, optional
        Names of all d coordinates (default ``x1 … xd``); a CSV's header, shown literally
        (:func:`~dpviz.viz.style.plotly_text`).
    reference : str, optional
        What the black components are when there is no truth (a user's file: ``"non-private
        EM on your data"``); the legend and hover then say "means of <reference>" instead of
        "true means".
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        ``Scatter`` traces in order: the rows; the true 1σ and 2σ ellipses (with
        covariances); the private ones (with covariances); the cloud (if given); the true
        means; the private means; those beyond a kept axis at its edge (if any). Coordinates
        are the data's own units: an axis the private means would stretch past :data:`FAR`
        times the rows' span keeps the rows' span; with a ``reference`` (a user's file, whose
        columns may have different units) the axes are not drawn to one scale.
    """
    rows = _project(data, axes)
    mu = _project(true_means, axes)
    est = _project(private_means, axes)
    assert rows is not None and mu is not None and est is not None
    d = np.asarray(data).shape[1]
    names = list(axis_names) if axis_names is not None else [f"x{i + 1}" for i in range(d)]
    traces: list[dict[str, Any]] = [{"x": rows[:, 0], "y": rows[:, 1]}]
    ellipses = []
    for means, covariances in ((mu, _project_cov(true_covariances, axes)),
                               (est, _project_cov(private_covariances, axes))):
        ellipses.append(covariances is not None)
        if covariances is not None:
            traces += [_ellipse_paths(means, covariances, n_sigma) for n_sigma, _ in SIGMAS]
    if cloud is not None:
        points = _project(cloud, axes)
        assert points is not None
        traces.append({"x": points[:, 0], "y": points[:, 1]})
    labels = [str(j + 1) for j in range(len(mu))]
    kept = axis_ranges(np.vstack([rows, mu]), est)
    traces += [{"x": means[:, 0], "y": means[:, 1], "text": labels} for means in (mu, est)]
    beyond = _beyond(est, kept)
    if beyond.any():
        edge = np.column_stack([np.clip(est[:, i], *(kept[i] or (-np.inf, np.inf)))
                                for i in (0, 1)])
        traces.append({"x": edge[beyond, 0], "y": edge[beyond, 1],
                       "text": [labels[j] for j in np.flatnonzero(beyond)],
                       "customdata": est[beyond]})
    shape = _mixture_shape(ellipses[0], ellipses[1], cloud is not None, bool(beyond.any()),
                           reference, title, plotly_text(names[axes[0]]),
                           plotly_text(names[axes[1]]))
    return refill(shape, traces, {f"{axis}.range": span for axis, span
                                  in zip(("xaxis", "yaxis"), kept, strict=True)
                                  if span is not None})


@functools.lru_cache(maxsize=64)
def _mixture_shape(true_ellipses: bool, private_ellipses: bool, cloud: bool, beyond: bool,
                   reference: str | None, title: str, x_title: str, y_title: str) -> Skeleton:
    """:func:`mixture_figure` without its points, validated once per set of traces."""
    fig = go.Figure()
    # SVG, not WebGL: each ε move replots, and a Scattergl then makes new WebGL contexts (two
    # a move, software-rendered in a GPU-less browser: 0.1 s more of the page's main thread)
    fig.add_trace(go.Scatter(
        mode="markers", name=ROWS_NAME,
        marker={"color": DATA_COLOR, "size": 4, "opacity": 0.45},
        hovertemplate="(%{x:.3g}, %{y:.3g})<extra>row</extra>"))
    for who, drawn in (("true", true_ellipses), ("private", private_ellipses)):
        for n_sigma, dash in SIGMAS if drawn else ():
            fig.add_trace(go.Scatter(
                mode="lines", name=legend_name(f"{n_sigma}σ ellipses", who, reference),
                line={"color": COLORS[who], "width": 2 if n_sigma == 1 else 1.3, "dash": dash},
                legendgroup=who, hoverinfo="skip", connectgaps=False))
    if cloud:
        fig.add_trace(go.Scatter(
            mode="markers", name="private means, repeated runs",
            marker={"color": COLORS["private"], "size": 6, "opacity": 0.35,
                    "symbol": "circle"},
            hovertemplate="a run's private mean (%{x:.3g}, %{y:.3g})<extra></extra>"))
    # the numbers on opposite sides: a private mean near its true one keeps both readable
    for who, symbol, side in (("true", "x", "top left"), ("private", "circle", "top right")):
        hover = (f"mean %{{text}} of {reference}" if who == "true" and reference else
                 f"{who} mean %{{text}}")
        fig.add_trace(go.Scatter(
            mode="markers+text", name=legend_name("means", who, reference),
            textposition=side, textfont={"color": COLORS[who], "size": 14},
            marker={"color": COLORS[who], "size": 13, "symbol": symbol,
                    "line": {"color": "white", "width": 1.5}},
            legendgroup=who,
            hovertemplate=f"{hover}: (%{{x:.3g}}, %{{y:.3g}})<extra></extra>"))
    if beyond:
        fig.add_trace(go.Scatter(
            mode="markers+text", name="private means beyond the view (at its edge)",
            textposition="top right", textfont={"color": COLORS["private"], "size": 14},
            legendgroup="private",
            marker={"color": COLORS["private"], "size": 13, "symbol": "diamond-open",
                    "line": {"width": 2}},
            hovertemplate="private mean %{text}, beyond the view: (%{customdata[0]:.4g}, "
                          "%{customdata[1]:.4g})<extra></extra>"))
    fig.update_layout(template=TEMPLATE, title=title, height=620)
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=y_title)
    if reference is None:  # generated data: one unit, drawn to one scale
        fig.update_yaxes(scaleanchor="x", scaleratio=1)
    return skeleton(fig)


def axis_ranges(shown: ArrayLike, private: ArrayLike
                ) -> tuple[list[float] | None, list[float] | None]:
    """Each axis's range: ``None`` (Plotly's own) unless the private points stretch it.

    An axis whose span with the ``private`` points would exceed :data:`FAR` times that of
    the ``shown`` points (the rows, the true or reference means) keeps the latter's, with a
    :data:`MARGIN`.

    Examples
    --------
    >>> rows = np.array([[10.0, 0.0], [12.0, 1.0]])
    >>> axis_ranges(rows, np.array([[11.0, 900.0]]))
    (None, [-0.08, 1.08])
    """
    base = np.asarray(shown, dtype=float)
    extra = np.asarray(private, dtype=float).reshape(-1, 2)
    out: list[list[float] | None] = []
    for i in (0, 1):
        low, high = float(base[:, i].min()), float(base[:, i].max())
        span = high - low or max(abs(high), 1.0)
        every = np.concatenate([base[:, i], extra[:, i]])
        if float(every.max() - every.min()) > FAR * span:
            out.append([low - MARGIN * span, high + MARGIN * span])
        else:
            out.append(None)
    return out[0], out[1]


def _beyond(points: NDArray[np.float64],
            kept: tuple[list[float] | None, list[float] | None]) -> NDArray[np.bool_]:
    """Which points lie outside a kept axis range."""
    outside = np.zeros(len(points), dtype=bool)
    for i, span in enumerate(kept):
        if span is not None:
            outside |= (points[:, i] < span[0]) | (points[:, i] > span[1])
    return outside
