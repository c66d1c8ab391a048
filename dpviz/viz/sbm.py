"""Figures of the stochastic block model page (seed 003, Section 5): matrix, graph, curves.

Factories only draw: the page runs the estimators, lays the graph out, summarises the
repeated runs (medians and quartiles) and passes plain arrays and tables in. Two things are
drawing decisions and stay here: the adjacency matrix is averaged into blocks of pixels when
n is large, and the recovered labels are drawn up to a global sign (the model cannot tell
the two communities apart, so a recovered labeling and its negation are the same answer).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray
from plotly.subplots import make_subplots

from dpviz.viz.papers import _band_color
from dpviz.viz.style import (
    COLORS,
    TEMPLATE,
    Skeleton,
    refill,
    series_color,
    skeleton,
    wrapped,
)

#: The two communities (label +1, label −1) and the ring around a misplaced node.
COMMUNITY_COLORS = ("#1f6feb", "#0ca678")
MISTAKE_COLOR = "#c92a2a"
EDGE_COLOR = "rgba(134, 142, 150, 0.25)"
#: At most this many pixels a side in an adjacency heatmap; beyond, blocks are averaged. About
#: what a heatmap shows on the page (two side by side in the figures column, ~300 px each):
#: more cells cost the browser a redraw on every ε move and add nothing visible.
MAX_PIXELS = 250
#: Sequential: no edge white, dense blocks dark.
ADJACENCY_COLORSCALE = "Greys"
PHASE_COLORSCALE = "Viridis"
#: Line styles of the non-private answers and the randomized-response baseline.
REFERENCE_DASH = "dot"
BASELINE_DASH = "dash"


def _labels(values: ArrayLike, n: int, what: str) -> NDArray[np.int64]:
    labels = np.asarray(values).ravel()
    if labels.shape != (n,) or not np.isin(labels, (-1, 1)).all():
        raise ValueError(f"{what} must be {n} values in {{-1, +1}}")
    return labels.astype(np.int64)


def _edges(edges: ArrayLike, n: int) -> NDArray[np.int64]:
    pairs = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if pairs.size and (pairs.min() < 0 or pairs.max() >= n):
        raise ValueError(f"edges must join vertices 0 … {n - 1}")
    return pairs


def community_order(labels: ArrayLike) -> NDArray[np.intp]:
    """The vertices with label +1 first, then −1; by vertex number within a community.

    Examples
    --------
    >>> community_order([-1, 1, -1, 1]).tolist()
    [1, 3, 0, 2]
    """
    return np.argsort(-np.asarray(labels), kind="stable")


def block_size(n: int, pixels: int = MAX_PIXELS) -> int:
    """How many vertices a pixel of the adjacency heatmap spans (1 up to ``pixels``).

    Examples
    --------
    >>> block_size(34), block_size(1000), block_size(1200)
    (1, 4, 5)
    """
    return max(1, math.ceil(n / pixels))


def ordered_adjacency(edges: ArrayLike, n: int, order: ArrayLike,
                      size: int = 1) -> NDArray[np.float64]:
    """The adjacency matrix with rows and columns in ``order``, averaged over blocks.

    Pixel (a, b) is the mean of the entries ``A[order[i], order[j]]`` over the ``size``
    consecutive positions i of block a and j of block b (the last block may be smaller);
    with ``size = 1`` it is the reordered matrix itself.

    Examples
    --------
    >>> ordered_adjacency([[0, 2]], 3, [0, 2, 1]).tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    >>> ordered_adjacency([[0, 1]], 4, [0, 1, 2, 3], size=2).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    pairs = _edges(edges, n)
    rank = np.empty(n, dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(n)
    blocks = math.ceil(n / size)
    u, v = rank[pairs[:, 0]] // size, rank[pairs[:, 1]] // size
    cells = np.concatenate([u * blocks + v, v * blocks + u])
    counts = np.bincount(cells, minlength=blocks * blocks).reshape(blocks, blocks)
    widths = np.minimum(size, n - np.arange(blocks) * size).astype(float)
    return counts / np.outer(widths, widths)


def adjacency_figure(edges: ArrayLike, n: int, panels: Sequence[tuple[str, ArrayLike]], *,
                     pixels: int = MAX_PIXELS,
                     title: str = "Adjacency matrix by community") -> go.Figure:
    """Heatmaps of the adjacency matrix side by side, each ordered by one labeling.

    Under the true labels the matrix shows two dense diagonal blocks when the signal is
    strong; under recovered labels it shows them only as far as the recovery is right.

    Parameters
    ----------
    edges : array-like
        m × 2 vertex pairs (0 … n − 1), each edge once.
    n : int
        The number of vertices.
    panels : sequence of (title, labels)
        One heatmap per labeling (n values in {−1, +1}); vertices are ordered by
        :func:`community_order`.
    pixels : int
        Above this many vertices, pixels average :func:`block_size` × :func:`block_size`
        blocks of pairs (:func:`ordered_adjacency`), and the title says so.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Heatmap`` per panel, named by its title; x and y are the positions (in the
        order) of each pixel's first vertex; a dashed line marks where community +1 ends.
    """
    if not panels:
        raise ValueError("adjacency_figure needs at least one labeling")
    size = block_size(n, pixels)
    matrices = []
    for name, values in panels:
        labels = _labels(values, n, f"the labels of {name!r}")
        matrices.append((name, ordered_adjacency(edges, n, community_order(labels), size),
                         int((labels == 1).sum())))
    top = max(float(m.max()) for _, m, _ in matrices) or 1.0
    positions = np.arange(0, n, size)
    shape = _adjacency_shape(tuple(name for name, _ in panels), n, size, title)
    # float32: half the bytes every ε move sends and the browser decodes (the hover shows 3
    # digits)
    traces = [{"z": matrix.astype(np.float32), "x": positions, "y": positions, "zmax": top}
              for _, matrix, _ in matrices]
    # pixel a is centred on position a·size, so vertex boundary v sits at v − size/2: the
    # dashed lines where community +1 ends, two a panel
    cuts = [split - size / 2 for _, _, split in matrices for _ in range(2)]
    lines = [{**line, **({"x0": cut, "x1": cut} if i % 2 == 0 else {"y0": cut, "y1": cut})}
             for i, (line, cut) in enumerate(zip(shape["layout"]["shapes"], cuts, strict=True))]
    return refill(shape, traces, {"shapes": lines})


@functools.lru_cache(maxsize=32)
def _adjacency_shape(names: tuple[str, ...], n: int, size: int, title: str) -> Skeleton:
    """:func:`adjacency_figure` without its matrices, validated once per panels and size."""
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=[wrapped(p, 24) for p in names],
                        horizontal_spacing=0.06)
    what = "edge" if size == 1 else f"share of the {size} × {size} pairs joined"
    start, end = -size / 2, n - size / 2
    for col, name in enumerate(names, start=1):
        fig.add_trace(go.Heatmap(
            zmin=0.0, colorscale=ADJACENCY_COLORSCALE, showscale=col == len(names), name=name,
            colorbar={"title": {"text": "edge" if size == 1 else "density"}, "len": 0.8},
            hovertemplate=f"{name}<br>row %{{y}}, column %{{x}}: {what} %{{z:.3g}}"
                          "<extra></extra>"), row=1, col=col)
        for line in ({"x0": start, "x1": start, "y0": start, "y1": end},
                     {"x0": start, "x1": end, "y0": start, "y1": start}):
            fig.add_shape(type="line", line={"color": MISTAKE_COLOR, "width": 1, "dash": "dash"},
                          row=1, col=col, **line)
    # short and small: two side by side on a phone leave each about 100 pixels
    fig.update_xaxes(showgrid=False, ticks="", title_text="vertex, in order",
                     title_font_size=12, constrain="domain")
    fig.update_yaxes(showgrid=False, ticks="", autorange="reversed", constrain="domain")
    for col in range(1, len(names) + 1):
        suffix = "" if col == 1 else str(col)
        fig.update_layout({f"yaxis{suffix}": {"scaleanchor": f"x{suffix}", "scaleratio": 1}})
    if size > 1:
        # a line of its own: on one line the note runs off a 360-pixel-wide figure
        title = f"{title}<br><sup>({size} × {size} blocks of pairs per pixel)</sup>"
    fig.update_layout(template=TEMPLATE, title=title, height=380 + 20 * (size > 1),
                      margin={"l": 50, "r": 20, "t": 100 + 20 * (size > 1), "b": 40})
    return skeleton(fig)


def aligned_labels(labels: ArrayLike, true_labels: ArrayLike) -> NDArray[np.int64]:
    """``labels`` or ``−labels``, whichever agrees with ``true_labels`` on more vertices.

    Examples
    --------
    >>> aligned_labels([1, 1, -1, 1], [-1, -1, 1, 1]).tolist()
    [-1, -1, 1, -1]
    """
    truth = np.asarray(true_labels, dtype=np.int64).ravel()
    ours = _labels(labels, truth.size, "the recovered labels")
    return ours if (ours == truth).sum() * 2 >= truth.size else -ours


def edge_walk(pairs: NDArray[np.int64], m: int) -> NDArray[np.int64]:
    """A walk along every edge there and back: one stroke per connected component.

    A depth-first walk of the graph on vertices 0 … m − 1: a tree edge is walked down and
    back up, any other edge there and straight back. Each edge is drawn twice by the same
    stroke (an SVG stroke does not darken where it overlaps itself), and the drawing takes
    one path per component instead of one per edge.

    Returns
    -------
    numpy.ndarray
        Vertex numbers along the walks, −1 between components (1 + 2e of them for a
        component of e edges).

    Examples
    --------
    >>> edge_walk(np.array([[0, 1], [1, 2], [2, 0], [3, 4]]), 5).tolist()
    [0, 1, 2, 0, 2, 1, 0, -1, 3, 4, 3]
    """
    around: list[list[tuple[int, int]]] = [[] for _ in range(m)]
    for i, (u, v) in enumerate(pairs.tolist()):
        around[u].append((v, i))
        around[v].append((u, i))
    walked = [False] * len(pairs)
    seen = [False] * m
    out: list[int] = []
    for root in range(m):
        if seen[root] or not around[root]:
            continue
        if out:
            out.append(-1)
        seen[root] = True
        out.append(root)
        stack = [(root, iter(around[root]))]
        while stack:
            u, rest = stack[-1]
            for v, i in rest:
                if walked[i]:
                    continue
                walked[i] = True
                out.append(v)
                if not seen[v]:  # a tree edge: go on from v
                    seen[v] = True
                    stack.append((v, iter(around[v])))
                    break
                out.append(u)  # any other edge: there and straight back
            else:
                stack.pop()
                if stack:
                    out.append(stack[-1][0])  # back up the tree edge
    return np.asarray(out, dtype=np.int64)


def graph_figure(positions: ArrayLike, edges: ArrayLike, labels: ArrayLike,
                 true_labels: ArrayLike, *, vertices: ArrayLike | None = None,
                 title: str = "The graph, coloured by recovered community") -> go.Figure:
    """The graph in a fixed layout, vertices coloured by recovered community, mistakes ringed.

    Parameters
    ----------
    positions : array-like
        m × 2 coordinates of the vertices drawn (the page's seeded layout).
    edges : array-like
        Pairs of indices into ``positions`` (the edges drawn).
    labels, true_labels : array-like
        Recovered and true labels of the vertices drawn (m values in {−1, +1}). The recovered
        ones are first aligned to the truth (:func:`aligned_labels`, over the vertices drawn).
    vertices : array-like, optional
        The vertices' numbers in the whole graph, for the hover (default 0 … m − 1).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        ``Scatter`` traces in order: ``"edges"`` (lines along :func:`edge_walk`, ``NaN``
        between connected components), one per recovered community (``"community +1"``,
        ``"community −1"``), and ``"mistakes (k of m)"``: a ring around exactly the
        vertices whose aligned label differs from the true one.
    """
    xy = np.asarray(positions, dtype=float).reshape(-1, 2)
    m = len(xy)
    truth = _labels(true_labels, m, "the true labels")
    shown = aligned_labels(labels, truth)
    ids = np.arange(m) if vertices is None else np.asarray(vertices).ravel()
    walk = edge_walk(_edges(edges, m), m)
    xs = np.where(walk >= 0, xy[walk, 0], np.nan)
    ys = np.where(walk >= 0, xy[walk, 1], np.nan)
    traces: list[dict[str, Any]] = [{"x": xs, "y": ys}]
    for community in (1, -1):
        mask = shown == community
        traces.append({"x": xy[mask, 0], "y": xy[mask, 1],
                       "customdata": np.stack([ids[mask], truth[mask]], axis=-1)})
    wrong = shown != truth
    traces.append({"x": xy[wrong, 0], "y": xy[wrong, 1], "customdata": ids[wrong],
                   "name": f"mistakes ({int(wrong.sum())} of {m})"})
    return refill(_graph_shape(title), traces)


@functools.lru_cache(maxsize=8)
def _graph_shape(title: str) -> Skeleton:
    """:func:`graph_figure` without its vertices and edges, validated once."""
    # one stroke per component: Plotly makes (and styles) an SVG path per gap-separated piece,
    # and a WebGL trace costs a software-rendered browser a context and a slow frame commit
    fig = go.Figure(go.Scatter(mode="lines", name="edges",
                               line={"color": EDGE_COLOR, "width": 0.7}, hoverinfo="skip",
                               connectgaps=False))
    for community, color in zip((1, -1), COMMUNITY_COLORS, strict=True):
        fig.add_trace(go.Scatter(
            mode="markers", name=f"community {community:+d}",
            marker={"color": color, "size": 8, "line": {"color": "white", "width": 0.8}},
            hovertemplate=f"vertex %{{customdata[0]}}: recovered {community:+d}, "
                          "true %{customdata[1]:+d}<extra></extra>"))
    fig.add_trace(go.Scatter(
        mode="markers", marker={"symbol": "circle-open", "size": 15, "color": MISTAKE_COLOR,
                                "line": {"width": 2.2}},
        hovertemplate="vertex %{customdata}: misplaced<extra></extra>"))
    fig.update_layout(template=TEMPLATE, title=title, height=560)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, scaleanchor="x", scaleratio=1)
    return skeleton(fig)


def _overlap_axes(fig: go.Figure) -> None:
    """Overlap on the left axis and the same lines read as an error rate on the right.

    Plotly draws an axis only when a trace uses it: an empty trace holds the right one.
    """
    low, high = -0.05, 1.05
    fig.add_trace(go.Scatter(x=[], y=[], yaxis="y2", name="error rate axis",
                             showlegend=False, hoverinfo="skip"))
    fig.update_yaxes(title_text="overlap = 1 − 2 · error rate", range=[low, high])
    fig.update_layout(yaxis2={"title": {"text": "error rate"}, "overlaying": "y",
                              "side": "right", "range": [(1 - low) / 2, (1 - high) / 2],
                              "showgrid": False, "ticks": "outside", "zeroline": False,
                              "tickvals": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]},
                      margin={"r": 70})


def _curve(fig: go.Figure, rows: pd.DataFrame, x: str, name: str, color: str, dash: str,
           hover: str) -> None:
    xs = rows[x].to_numpy(float)
    fig.add_trace(go.Scatter(
        x=np.concatenate([xs, xs[::-1]]),
        y=np.concatenate([rows["high"].to_numpy(float), rows["low"].to_numpy(float)[::-1]]),
        mode="lines", fill="toself", fillcolor=_band_color(color), line={"width": 0},
        name=f"{name} quartiles", legendgroup=name, showlegend=False, hoverinfo="skip"))
    fig.add_trace(go.Scatter(
        x=xs, y=rows["median"].to_numpy(float), mode="lines+markers", name=name,
        line={"color": color, "width": 2.2, "dash": dash}, marker={"color": color, "size": 7},
        legendgroup=name,
        customdata=np.stack([rows["low"], rows["high"], rows["seeds"]], axis=-1),
        hovertemplate=f"{name}, {hover}: median %{{y:.3f}} (quartiles %{{customdata[0]:.3f}}"
                      " … %{customdata[1]:.3f}, %{customdata[2]} seeds)<extra></extra>"))


def epsilon_curves(summary: pd.DataFrame, *, references: Sequence[str] = (),
                   baselines: Sequence[str] = (),
                   title: str = "Overlap against the privacy ε") -> go.Figure:
    """Median overlap against ε per estimator, with quartile bands and reference lines.

    Parameters
    ----------
    summary : pandas.DataFrame
        Columns ``estimator, epsilon, median, low, high, seeds`` (overlaps; one row per
        point). A non-private estimator has ``epsilon = inf`` and is drawn as a horizontal
        dotted line across the ε range.
    references : sequence of str
        Non-private estimators (dotted lines).
    baselines : sequence of str
        Estimators drawn dashed (the randomized-response baseline).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        Per private estimator a band (``"<name> quartiles"``) and a line (``"<name>"``); per
        reference a dotted line ``"<name>"``; last an empty trace ``"error rate axis"``; log
        ε axis ticked at the ε values; overlap on the left axis and the error rate
        ``(1 − overlap)/2`` on the right one.
    """
    finite = summary[np.isfinite(summary["epsilon"].to_numpy(float))]
    if finite.empty:
        raise ValueError("epsilon_curves needs at least one private point")
    span = [float(finite["epsilon"].min()), float(finite["epsilon"].max())]
    fig = go.Figure()
    for i, (name, rows) in enumerate(summary.groupby("estimator", sort=False)):
        color = series_color(i)
        if name in references:
            value = float(rows["median"].iloc[0])
            fig.add_trace(go.Scatter(
                x=span, y=[value, value], mode="lines", name=str(name),
                line={"color": COLORS["true"], "width": 1.6, "dash": REFERENCE_DASH},
                hovertemplate=f"{name}, no privacy: median overlap {value:.3f}"
                              "<extra></extra>"))
            continue
        _curve(fig, rows.sort_values("epsilon"), "epsilon", str(name), color,
               BASELINE_DASH if name in baselines else "solid", "ε = %{x:g}")
    _overlap_axes(fig)
    ticks = sorted(set(finite["epsilon"].astype(float)))
    fig.update_xaxes(title_text="privacy ε (log scale)", type="log", tickvals=ticks,
                     ticktext=[f"{e:g}" for e in ticks])
    fig.update_layout(template=TEMPLATE, title=title, height=470)
    return fig


def n_curves(summary: pd.DataFrame, *, baselines: Sequence[str] = (),
             title: str = "Error rate against the number of vertices n") -> go.Figure:
    """Median error rate against n per estimator (log n), with quartile bands.

    Parameters
    ----------
    summary : pandas.DataFrame
        Columns ``estimator, n, median, low, high, seeds`` (error rates).
    baselines : sequence of str
        Estimators drawn dashed (the randomized-response baseline).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        Per estimator a band (``"<name> quartiles"``) and a line (``"<name>"``).
    """
    fig = go.Figure()
    for i, (name, rows) in enumerate(summary.groupby("estimator", sort=False)):
        _curve(fig, rows.sort_values("n"), "n", str(name), series_color(i),
               BASELINE_DASH if name in baselines else "solid", "n = %{x:,}")
    ticks = sorted(set(summary["n"].astype(float)))
    fig.update_xaxes(title_text="vertices n (log scale)", type="log", tickvals=ticks,
                     ticktext=[f"{n:,.0f}" for n in ticks])
    fig.update_yaxes(title_text="error rate (0.5 = a coin flip)", range=[-0.02, 0.52])
    fig.update_layout(template=TEMPLATE, title=title, height=420)
    return fig


def kesten_stigum_signal(degree: float) -> float:
    """The signal ε_s where ε_s² d = 1: the Kesten–Stigum threshold.

    Below it no algorithm, private or not, labels better than chance.

    Examples
    --------
    >>> kesten_stigum_signal(100.0)
    0.1
    """
    return 1.0 / math.sqrt(degree)


def phase_figure(panels: Sequence[tuple[str, pd.DataFrame]], *, degree: float,
                 title: str = "Where recovery succeeds (signal ε_s × privacy ε)") -> go.Figure:
    """Success-rate heatmaps over (signal ε_s × privacy ε), side by side, with the KS line.

    Parameters
    ----------
    panels : sequence of (title, table)
        Each table has columns ``signal, epsilon, success_rate, median_error, seeds``, one
        row per grid cell.
    degree : float
        The average degree d; a dashed vertical line marks the Kesten–Stigum threshold
        ε_s = 1/√d (:func:`kesten_stigum_signal`) in every panel.
    title : str
        The figure's title (the threshold's value is appended).

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Heatmap`` per panel (x the signal, y the ε as a category such as ``"2"``, z
        the success rate in [0, 1]), named by its title.
    """
    if not panels:
        raise ValueError("phase_figure needs at least one panel")
    fig = make_subplots(rows=1, cols=len(panels),
                        subplot_titles=[wrapped(p[0], 40) for p in panels],
                        shared_yaxes=True, horizontal_spacing=0.05)
    threshold = kesten_stigum_signal(degree)
    for col, (name, table) in enumerate(panels, start=1):
        success = table.pivot(index="epsilon", columns="signal", values="success_rate")
        error = table.pivot(index="epsilon", columns="signal", values="median_error")
        seeds = table.pivot(index="epsilon", columns="signal", values="seeds")
        fig.add_trace(go.Heatmap(
            z=success.to_numpy(float), x=success.columns.to_numpy(float),
            y=[f"{e:g}" for e in success.index], zmin=0.0, zmax=1.0,
            colorscale=PHASE_COLORSCALE, showscale=col == len(panels), name=name,
            customdata=np.stack([error.to_numpy(float), seeds.to_numpy(float)], axis=-1),
            colorbar={"title": {"text": "success"}, "len": 0.8},
            hovertemplate=f"{name}<br>signal ε_s = %{{x:g}}, ε = %{{y:g}}<br>success "
                          "%{z:.0%} (median error %{customdata[0]:.3f}, "
                          "%{customdata[1]} seeds)<extra></extra>"), row=1, col=col)
        fig.add_vline(x=threshold, line={"color": COLORS["private"], "width": 2,
                                         "dash": "dash"}, row=1, col=col)
    fig.update_xaxes(title_text="signal ε_s")
    fig.update_yaxes(type="category")
    fig.update_yaxes(title_text="privacy ε", col=1)
    title = f"{title} — dashed: Kesten–Stigum, ε_s² d = 1 at ε_s = {threshold:.3g}"
    fig.update_layout(template=TEMPLATE, title=title, height=440,
                      margin={"l": 60, "r": 20, "t": 100, "b": 40})
    return fig
