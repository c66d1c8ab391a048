"""Grid means' story: the released grid with its k peaks, and the centres' path.

How to call them (the GMM page wires them in through the registry entry's ``story``)::

    r = dpviz.run("gmm", "grid_means", X, k=3, epsilon=1, delta=1e-5, radius=R)
    grid_figure(r, rows=X)           # the noisy grid over its box, the k peaks marked
    centres_path_figure(r, rows=X)   # peaks → step 1 → step 2 …, each step's clipping radius

They draw only released values (the result's ``grid_counts``, ``grid_low``, ``grid_high``,
``centres`` and ``radii``) and the page's own rows, which it shows anyway. Two columns are
drawn: the first two (a grid of three columns summed over the third, which is
post-processing of its released counts), or one column as a strip. A run at ε = ∞ is the
algorithm's mechanics: its figures then say neither "private" nor "released"
(:func:`dpviz.viz.kssu.mechanics`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

from dpviz.core.entry import StoryFigure, StoryInputs, StoryRows
from dpviz.estimators.result import Result
from dpviz.viz.kssu import mechanics
from dpviz.viz.mixtures import DATA_COLOR, DRAW_ROWS, ROWS_NAME, ellipse, legend_name
from dpviz.viz.style import COLORS, SERIES_COLORS, TEMPLATE, plotly_text, wrapped

#: One colour per local step's radius (the released means' orange is left out).
STEP_COLORS = tuple(c for c in SERIES_COLORS if c != COLORS["private"])
HEIGHT = 560
#: The rows over the grid: dark, as grey vanishes on its blue cells.
ROWS_ON_GRID = "#343a40"
#: Characters per line of a figure's subtitle (a half-page column holds about 75).
SUBTITLE_WIDTH = 70


def _title(text: str, words: str) -> dict:
    """A title with its subtitle wrapped, pinned to the top; the plot starts below both."""
    return {"text": text, "subtitle": {"text": wrapped(words, SUBTITLE_WIDTH)},
            "yref": "container", "y": 1, "yanchor": "top", "automargin": True,
            "pad": {"t": 10, "b": 10}}


def axis_names(names: Sequence[str] | None, d: int) -> list[str]:
    """The columns' names for axes (``x1 … xd`` without names), shown literally.

    Examples
    --------
    >>> axis_names(None, 2), axis_names(["<b>age</b>"], 1)
    (['x1', 'x2'], ['&lt;b&gt;age&lt;/b&gt;'])
    """
    given = list(names) if names is not None and len(names) >= d else [
        f"x{i + 1}" for i in range(d)]
    return [plotly_text(name) for name in given[:d]]


def plane_counts(counts: ArrayLike) -> NDArray[np.float64]:
    """The grid drawn in two columns, indexed [first column, second column].

    One column: a strip (m × 1). Three: summed over the third (post-processing).

    Examples
    --------
    >>> plane_counts(np.arange(8.0).reshape(2, 2, 2)).tolist()
    [[1.0, 5.0], [9.0, 13.0]]
    >>> plane_counts([1.0, 2.0]).shape
    (2, 1)
    """
    grid = np.asarray(counts, dtype=float)
    if grid.ndim == 1:
        return grid[:, None]
    return grid.reshape(grid.shape[:2] + (-1,)).sum(axis=2)


def cell_centres(low: float, high: float, cells: int) -> NDArray[np.float64]:
    """The middles of ``cells`` equal cells of ``[low, high]``.

    Examples
    --------
    >>> cell_centres(0.0, 4.0, 2).tolist()
    [1.0, 3.0]
    """
    return low + (high - low) / cells * (np.arange(cells, dtype=np.float64) + 0.5)


def _rows(rows: ArrayLike | None) -> NDArray[np.float64] | None:
    """At most :data:`~dpviz.viz.mixtures.DRAW_ROWS` rows, evenly spaced (all when fewer)."""
    if rows is None:
        return None
    x = np.asarray(rows, dtype=float)
    if len(x) > DRAW_ROWS:
        x = x[np.linspace(0, len(x) - 1, DRAW_ROWS).astype(np.intp)]
    return x


def _strip(n: int) -> NDArray[np.float64]:
    """Heights in (−0.4, 0.4) that spread n rows over a strip (deterministic, no noise)."""
    return ((np.arange(n, dtype=np.float64) * 0.6180339887) % 1.0 - 0.5) * 0.8


def _shown(d: int) -> str:
    """What the figures show of d columns, for their subtitles."""
    return {1: "one column, drawn as a strip", 2: "",
            3: "the first two of three columns"}.get(d, "the first two columns")


def grid_figure(result: Result, *, rows: ArrayLike | None = None,
                names: Sequence[str] | None = None, one_scale: bool = True) -> go.Figure:
    """The released grid as a heatmap over its box, the k peaks marked, the rows drawn lightly.

    Parameters
    ----------
    result : Result
        A ``grid_means`` result that read the data (its diagnostics hold the grid).
    rows : array-like, optional
        The rows the run saw (n × d, the table's units), drawn lightly under the peaks.
    names : sequence of str, optional
        The columns' names (a CSV's header), for the axes.
    one_scale : bool
        Draw both axes to one scale (columns in one unit); a user's file's columns may have
        different units, each then keeps its own.

    Returns
    -------
    plotly.graph_objects.Figure
        A ``Heatmap`` whose ``z`` is :func:`plane_counts` of the grid, transposed (rows of
        ``z`` run along the second column), over the cells' middles; then the rows (if given)
        and the peaks, as ``Scatter`` traces. One column: one strip of cells at height 0.
    """
    diag = result.diagnostics
    low, high = np.asarray(diag["grid_low"], float), np.asarray(diag["grid_high"], float)
    d = len(low)
    grid = plane_counts(diag["grid_counts"])
    peaks = np.asarray(diag["centres"], float)[0]
    plain = mechanics(result)
    label = "counts (no noise)" if plain else "noisy counts (released)"
    xs = cell_centres(low[0], high[0], grid.shape[0])
    ys = cell_centres(low[1], high[1], grid.shape[1]) if d > 1 else np.zeros(1)
    axes = axis_names(names, d)
    summed = " summed over the third column" if d == 3 else ""
    shown = _shown(d) + (", counts" + summed if d == 3 else "")
    fig = go.Figure(go.Heatmap(
        x=xs, y=ys, z=grid.T, colorscale="Blues", name=label,
        colorbar={"title": {"text": label.replace(" (", "<br>("), "side": "right"},
                  "thickness": 12},
        hovertemplate=(f"{label}{summed}: %{{z:.3g}}<br>cell at "
                       + ("(%{x:.3g}, %{y:.3g})" if d > 1 else "%{x:.3g}")
                       + "<extra></extra>")))
    drawn = _rows(rows)
    if drawn is not None:
        fig.add_trace(go.Scatter(
            x=drawn[:, 0], y=drawn[:, 1] if d > 1 else _strip(len(drawn)), mode="markers",
            name=ROWS_NAME, marker={"color": ROWS_ON_GRID, "size": 3, "opacity": 0.4},
            hoverinfo="skip"))
    fig.add_trace(go.Scatter(
        x=peaks[:, 0], y=peaks[:, 1] if d > 1 else np.zeros(len(peaks)),
        mode="markers", name=f"the {len(peaks)} peaks",
        marker={"color": COLORS["private"], "size": 13, "symbol": "diamond",
                "line": {"color": "white", "width": 1.5}},
        hovertemplate="a peak: " + ("(%{x:.3g}, %{y:.3g})" if d > 1 else "%{x:.3g}")
                      + "<extra></extra>"))
    cells, window = (" × ".join([str(side)] * d) for side in (grid.shape[0], 2))
    words = (f"{cells} cells over the box where the column counts found rows; each peak is "
             f"the heaviest window of {window} cells not touching another")
    if d != 2:
        words = f"{shown}: {words}"
    title = "The grid's counts and its peaks (no noise)" if plain else \
        "The released grid and its peaks"
    fig.update_layout(template=TEMPLATE, height=HEIGHT, title=_title(title, words),
                      margin={"t": 20})
    fig.update_xaxes(title_text=axes[0], range=[low[0], high[0]])
    if d > 1:
        fig.update_yaxes(title_text=axes[1], range=[low[1], high[1]])
        if one_scale:
            fig.update_yaxes(scaleanchor="x", scaleratio=1)
    else:
        fig.update_yaxes(range=[-0.5, 0.5], showticklabels=False, showgrid=False, ticks="")
        fig.update_layout(height=320)
    return fig


def _step_name(step: int, half_axes: NDArray[np.float64]) -> str:
    """A step's legend entry: its radius, or its half-axes when the columns were scaled."""
    if np.allclose(half_axes, half_axes[0], rtol=1e-9):
        return f"step {step}'s radius {half_axes[0]:.3g}"
    return f"step {step}'s radius ({' × '.join(f'{h:.3g}' for h in half_axes)})"


def centres_path_figure(result: Result, *, rows: ArrayLike | None = None,
                        names: Sequence[str] | None = None,
                        true_means: ArrayLike | None = None,
                        reference: str | None = None) -> go.Figure:
    """The centres' path, peaks → step 1 → step 2 …, with each step's clipping radius.

    Each local step clips every row's offset from its nearest centre to the step's radius:
    drawn as a circle about the centre the step started from (an ellipse when the table's
    columns were scaled to a common range). One column: the steps run up the figure, each
    radius an interval about its centre.

    Parameters
    ----------
    result : Result
        A ``grid_means`` result that read the data.
    rows : array-like, optional
        The rows the run saw, drawn lightly.
    names : sequence of str, optional
        The columns' names, for the axes.
    true_means : array-like, optional
        k × d, drawn as crosses.
    reference : str, optional
        What ``true_means`` are when the data have no truth (the legend names it); a user's
        file, whose columns may have different units, so the axes keep their own scales.

    Returns
    -------
    plotly.graph_objects.Figure
        ``Scatter`` traces: the rows (if given), one clipping circle (or interval) trace per
        step, the paths, the true means (if given), the peaks and the final means.
    """
    diag = result.diagnostics
    path = np.asarray(diag["centres"], float)  # (steps + 1) × k × d
    steps, k, d = len(path) - 1, path.shape[1], path.shape[2]
    radii = np.asarray(diag["radii"], float).reshape(steps, -1)
    half = np.broadcast_to(radii, (steps, d)) if radii.shape[1] in (1, d) else radii[:, :d]
    plain = mechanics(result)
    axes = axis_names(names, d)
    fig = go.Figure()
    drawn = _rows(rows)
    if drawn is not None:
        fig.add_trace(go.Scatter(
            x=drawn[:, 0], y=drawn[:, 1] if d > 1 else _strip(len(drawn)) * 0.5 - 0.7,
            mode="markers", name=ROWS_NAME,
            marker={"color": DATA_COLOR, "size": 3, "opacity": 0.45}, hoverinfo="skip"))
    for step in range(steps):
        xs: list[float | None] = []
        ys: list[float | None] = []
        for centre in path[step]:
            if d > 1:
                x, y = ellipse(centre[:2], np.diag(half[step, :2] ** 2))
                xs.extend([*x.tolist(), None])
                ys.extend([*y.tolist(), None])
            else:
                xs.extend([centre[0] - half[step, 0], centre[0] + half[step, 0], None])
                ys.extend([step, step, None])
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="lines", name=_step_name(step + 1, half[step, :min(d, 2)]),
            line={"color": STEP_COLORS[step % len(STEP_COLORS)], "dash": "dash",
                  "width": 1.5 if d > 1 else 4},
            hoverinfo="skip"))
    level = np.arange(steps + 1, dtype=float)
    xs, ys, texts = [], [], []
    for j in range(k):
        xs.extend([*path[:, j, 0].tolist(), None])
        ys.extend([*(path[:, j, 1] if d > 1 else level).tolist(), None])
        texts.extend([*(f"centre {j + 1}, {'peak' if s == 0 else f'after step {s}'}"
                        for s in range(steps + 1)), ""])
    fig.add_trace(go.Scatter(
        x=xs, y=ys, mode="lines+markers", name="the centres' path", text=texts,
        line={"color": COLORS["private"], "width": 1.5},
        marker={"color": COLORS["private"], "size": 5, "opacity": 0.7},
        hovertemplate="%{text}: " + ("(%{x:.3g}, %{y:.3g})" if d > 1 else "%{x:.3g}")
                      + "<extra></extra>"))
    if true_means is not None and d > 1:
        mu = np.asarray(true_means, float)
        name = legend_name("means", "true", reference)
        fig.add_trace(go.Scatter(x=mu[:, 0], y=mu[:, 1], mode="markers", name=name,
                                 marker={"color": COLORS["true"], "size": 12, "symbol": "x"},
                                 hovertemplate=name + " (%{x:.3g}, %{y:.3g})<extra></extra>"))
    for at, name, marker in ((0, f"the {k} peaks", {"symbol": "diamond-open", "size": 15,
                                                    "line": {"width": 2}}),
                             (steps, "means (no noise)" if plain else "private means",
                              {"symbol": "circle", "size": 10,
                               "line": {"color": "white", "width": 1.5}})):
        fig.add_trace(go.Scatter(
            x=path[at, :, 0], y=path[at, :, 1] if d > 1 else np.full(k, float(at)),
            mode="markers", name=name, marker={"color": COLORS["private"], **marker},
            hovertemplate=name + ": " + ("(%{x:.3g}, %{y:.3g})" if d > 1 else "%{x:.3g}")
                          + "<extra></extra>"))
    words = ("each step moves every centre by the mean of its rows' offsets, clipped to the "
             "step's radius (dashed" + (", about the centre it started from)" if d > 1 else
                                         " interval)"))
    if d != 2:
        words = f"{_shown(d)}: {words}"
    title = "The local steps: from the peaks to the means" + (" (no noise)" if plain else "")
    fig.update_layout(template=TEMPLATE, height=HEIGHT, title=_title(title, words),
                      margin={"t": 20})
    fig.update_xaxes(title_text=axes[0])
    if d > 1:
        fig.update_yaxes(title_text=axes[1])
        if reference is None:  # generated data, one unit: one scale (a file's keep their own)
            fig.update_yaxes(scaleanchor="x", scaleratio=1)
    else:
        after = [f"after step {s}" for s in range(1, steps + 1)]
        fig.update_yaxes(tickvals=[-0.7, *level.tolist()], ticktext=["rows", "peaks", *after])
    return fig


def grid_means_story(result: Result, inputs: StoryInputs) -> StoryRows:
    """Grid means' story: the released grid and its peaks, then the local steps."""
    if "grid_counts" not in result.diagnostics:  # refused before reading the data
        return []
    return [[StoryFigure(grid_figure(result, rows=inputs.rows, names=inputs.names,
                                     one_scale=inputs.reference is None),
                         "gmm_story_grid", "dpviz-grid-means-grid")],
            [StoryFigure(centres_path_figure(result, rows=inputs.rows, names=inputs.names,
                                             true_means=inputs.true_means,
                                             reference=inputs.reference),
                         "gmm_story_steps", "dpviz-grid-means-steps")]]
