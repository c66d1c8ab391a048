"""Figures of the Covariance page: matrices, spectra, ellipses, errors and the paper's curves.

Factories only draw: the page runs the estimators (``dpviz.estimators.covariance``), picks the block
of the matrices shown and the two coordinates of the ellipses, and passes plain arrays, results'
numbers and saved tables in. Colours: the truth is ``COLORS["true"]`` everywhere; each estimator
keeps one colour on every figure (:func:`estimator_color`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray
from plotly.subplots import make_subplots

from dpviz.viz.mixtures import ellipse
from dpviz.viz.style import (
    COLORS,
    TEMPLATE,
    Skeleton,
    log_ticks,
    plotly_text,
    refill,
    series_color,
    skeleton,
)

#: Diverging: negative entries blue, positive red, zero white.
MATRIX_COLORSCALE = "RdBu_r"
#: At most this many heatmaps side by side; more wrap to the next row.
HEATMAPS_PER_ROW = 3
#: Height of a row of heatmaps: square panels at the page's full width.
HEATMAP_ROW_HEIGHT = 360
#: One colour per covariance estimator (registry key), the same on every figure. AdaptiveCov,
#: the seed's own method, gets the "private" colour.
ESTIMATOR_COLORS: Mapping[str, str] = {
    "gauss": "#1f6feb",
    "separate": "#0ca678",
    "adaptive": COLORS["private"],
    "emcov": "#7048e8",
    "zero": "#868e96",
}
ERROR_AXIS = "Frobenius error ‖Σ̃ − Σ‖<sub>F</sub> (log scale)"
#: The bias bound counts as saturated (every row clipped) from this share of its maximum.
SATURATED = 0.99
#: Octaves shown below the smaller of τ̃ and the radius where the bias saturates.
PROXY_MARGIN = 2


def estimator_color(name: str, index: int = 0) -> str:
    """The colour of a covariance estimator; an unknown one gets the ``index``-th series colour.

    Examples
    --------
    >>> estimator_color("adaptive") == COLORS["private"]
    True
    """
    return ESTIMATOR_COLORS.get(name, series_color(index))


def _matrix(values: ArrayLike) -> NDArray[np.float64]:
    matrix = np.asarray(values, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"a heatmap needs a square matrix, got shape {matrix.shape}")
    return matrix


def matrix_heatmaps(panels: Sequence[tuple[str, ArrayLike]], *,
                    tick_labels: Sequence[str] | None = None,
                    title: str = "The true and the private matrices") -> go.Figure:
    """Heatmaps of square matrices side by side, on one shared colour scale.

    Parameters
    ----------
    panels : sequence of (label, matrix)
        The first is usually the truth; every matrix m × m with the same m.
    tick_labels : sequence of str, optional
        Names of the m rows/columns (default ``1 … m``), shown literally (in the hover).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Heatmap`` per panel, named by its label, at most :data:`HEATMAPS_PER_ROW` per
        row. Every heatmap has the same ``zmin = −zmax`` (the largest absolute entry of all
        panels, 1 if all are 0), so a colour means the same number in every panel; row 1 is
        at the top. Only the last heatmap draws the colour bar.
    """
    if not panels:
        raise ValueError("matrix_heatmaps needs at least one matrix")
    matrices = [_matrix(m) for _, m in panels]
    size = matrices[0].shape[0]
    if any(m.shape[0] != size for m in matrices):
        raise ValueError("every matrix of the heatmaps must have the same size")
    top = max(float(np.max(np.abs(m))) for m in matrices) or 1.0
    names = ([plotly_text(name) for name in tick_labels] if tick_labels is not None else
             [str(i + 1) for i in range(size)])
    return refill(_heatmaps_shape(tuple(label for label, _ in panels), title),
                  [{"z": m, "x": names, "y": names, "zmin": -top, "zmax": top}
                   for m in matrices])


@functools.lru_cache(maxsize=32)
def _heatmaps_shape(labels: tuple[str, ...], title: str) -> Skeleton:
    """:func:`matrix_heatmaps` without its matrices, validated once per set of panels."""
    cols = min(len(labels), HEATMAPS_PER_ROW)
    rows = math.ceil(len(labels) / cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=labels,
                        horizontal_spacing=0.05, vertical_spacing=0.12 / rows)
    for index, label in enumerate(labels):
        fig.add_trace(go.Heatmap(
            zmid=0.0, colorscale=MATRIX_COLORSCALE, showscale=index == len(labels) - 1,
            colorbar={"title": {"text": "entry"}, "exponentformat": "e"}, name=label,
            hovertemplate=f"{label}<br>row %{{y}}, column %{{x}}: %{{z:.3g}}<extra></extra>"),
            row=index // cols + 1, col=index % cols + 1)
    fig.update_xaxes(showgrid=False, ticks="", constrain="domain", showticklabels=False)
    fig.update_yaxes(showgrid=False, ticks="", autorange="reversed", constrain="domain",
                     showticklabels=False)
    for index in range(1, len(labels) + 1):
        suffix = "" if index == 1 else str(index)
        fig.update_layout({f"yaxis{suffix}": {"scaleanchor": f"x{suffix}", "scaleratio": 1}})
    fig.update_layout(template=TEMPLATE, title=title, height=HEATMAP_ROW_HEIGHT * rows + 90,
                      margin={"l": 20, "r": 20, "t": 90, "b": 20})
    return skeleton(fig)


def spectra_figure(true_eigenvalues: ArrayLike,
                   private: Sequence[tuple[str, str, ArrayLike]], *,
                   title: str = "Eigenvalues, largest first") -> go.Figure:
    """The true eigenvalue spectrum with each estimate's overlaid.

    Parameters
    ----------
    true_eigenvalues : array-like
        λ₁ ≥ … ≥ λ_d of the true matrix.
    private : sequence of (name, label, eigenvalues)
        Each estimator's registry key (for its colour), label and eigenvalues, descending.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        ``Scatter`` lines: ``"true"`` first, then one per estimator named by its label; x is
        the index 1 … d, y the eigenvalue (data units squared).
    """
    truth = np.asarray(true_eigenvalues, dtype=float)
    curves = [truth, *(np.asarray(values, dtype=float) for _, _, values in private)]
    return refill(_spectra_shape(tuple((name, label) for name, label, _ in private), title),
                  [{"x": np.arange(1, y.size + 1), "y": y} for y in curves])


@functools.lru_cache(maxsize=32)
def _spectra_shape(private: tuple[tuple[str, str], ...], title: str) -> Skeleton:
    """:func:`spectra_figure` without its eigenvalues, validated once per set of estimators."""
    fig = go.Figure(go.Scatter(
        mode="lines+markers", name="true", line={"color": COLORS["true"], "width": 3},
        marker={"size": 5}, hovertemplate="true λ%{x}: %{y:.4g}<extra></extra>"))
    for index, (name, label) in enumerate(private):
        fig.add_trace(go.Scatter(
            mode="lines", name=label, line={"color": estimator_color(name, index), "width": 2},
            hovertemplate=f"{label} λ%{{x}}: %{{y:.4g}}<extra></extra>"))
    fig.update_layout(template=TEMPLATE, title=title, height=420)
    fig.update_xaxes(title_text="index i (eigenvalues sorted, largest first)")
    fig.update_yaxes(title_text="eigenvalue λᵢ")
    return skeleton(fig)


def ellipses_figure(true_covariance: ArrayLike,
                    private: Sequence[tuple[str, str, ArrayLike]], *,
                    axes: tuple[int, int], axis_names: Sequence[str],
                    title: str = "The matrices on two coordinates") -> go.Figure:
    """The ellipse {v : vᵀ S⁻¹ v = 1} of the 2 × 2 block S of each matrix on two coordinates.

    Parameters
    ----------
    true_covariance : array-like
        The true d × d matrix.
    private : sequence of (name, label, matrix)
        Each estimator's registry key (for its colour), label and d × d estimate.
    axes : (int, int)
        The two coordinates (rows/columns of the block).
    axis_names : sequence of str
        Names of all d coordinates (a CSV's header: shown literally).
    title : str
        The figure's title, plain text (it may quote the names; shown literally).

    Returns
    -------
    plotly.graph_objects.Figure
        Closed ``Scatter`` paths centred at 0 (the matrices are second moments): ``"true"``
        first, then one per estimator named by its label. Semi-axes are √λ of the block's
        eigenvalues (negative ones drawn as 0); equal scales on both axes.
    """
    index = list(axes)
    shapes = [("true", "true", true_covariance), *private]
    traces = []
    for _, _, matrix in shapes:
        x, y = ellipse([0.0, 0.0], np.asarray(matrix, dtype=float)[np.ix_(index, index)])
        traces.append({"x": x, "y": y})
    return refill(_ellipses_shape(tuple((name, label) for name, label, _ in shapes), title,
                                  axis_names[axes[0]], axis_names[axes[1]]), traces)


@functools.lru_cache(maxsize=32)
def _ellipses_shape(shapes: tuple[tuple[str, str], ...], title: str, x_name: str,
                    y_name: str) -> Skeleton:
    """:func:`ellipses_figure` without its paths, validated once per matrices and axes."""
    fig = go.Figure()
    for number, (name, label) in enumerate(shapes):
        is_true = name == "true"
        fig.add_trace(go.Scatter(
            mode="lines", name=label,
            line={"color": COLORS["true"] if is_true else estimator_color(name, number - 1),
                  "width": 3 if is_true else 2},
            hovertemplate=f"{label}: (%{{x:.3g}}, %{{y:.3g}})<extra></extra>"))
    fig.update_layout(template=TEMPLATE, title=plotly_text(title), height=460)
    fig.update_xaxes(title_text=plotly_text(x_name), zeroline=True, zerolinecolor="#dee2e6")
    fig.update_yaxes(title_text=plotly_text(y_name), scaleanchor="x", scaleratio=1,
                     zeroline=True, zerolinecolor="#dee2e6")
    return skeleton(fig)


def error_chart(rows: Sequence[tuple[str, str, float, float]], *,
                title: str = "Frobenius error of each estimator, and its bound") -> go.Figure:
    """Each estimator's error as a dot, with its theoretical bound as an open diamond.

    Dots rather than bars: errors span decades (a log axis), where a bar's length would
    only measure the distance from an arbitrary axis start.

    Parameters
    ----------
    rows : sequence of (name, label, error, bound)
        Registry key (for the colour), label, ‖Σ̃ − Σ‖_F and the bound (NaN: none stated).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        A ``Scatter`` trace ``"error"`` (y the labels, x the errors, a dot coloured per
        estimator, labelled with its value) and a ``Scatter`` trace ``"theoretical bound"``
        of the finite bounds; log x axis.
    """
    labels = [label for _, label, _, _ in rows]
    errors = [float(error) for _, _, error, _ in rows]
    bounded = [(label, float(bound)) for _, label, _, bound in rows if math.isfinite(bound)]
    traces = [{"y": labels, "x": errors, "text": [f"{e:.3g}" for e in errors]}]
    if bounded:
        traces.append({"y": [label for label, _ in bounded], "x": [b for _, b in bounded]})
    positive = [v for v in [*errors, *(b for _, b in bounded)] if v > 0]
    low, high = (min(positive), max(positive)) if positive else (1e-4, 1.0)
    ticks = log_ticks(low / 2, high * 2)
    return refill(_error_shape(tuple(name for name, *_ in rows), bool(bounded), title), traces,
                  {"xaxis.range": [math.log10(low) - 0.25, math.log10(high) + 0.25],
                   "xaxis.tickvals": ticks["tickvals"], "xaxis.ticktext": ticks["ticktext"]})


@functools.lru_cache(maxsize=32)
def _error_shape(names: tuple[str, ...], bounded: bool, title: str) -> Skeleton:
    """:func:`error_chart` without its numbers, validated once per estimators shown."""
    fig = go.Figure(go.Scatter(
        mode="markers+text", name="error", textposition="top center", textfont={"size": 12},
        marker={"size": 15, "color": [estimator_color(name, i) for i, name in enumerate(names)]},
        hovertemplate="%{y}: ‖Σ̃ − Σ‖<sub>F</sub> = %{x:.4g}<extra></extra>"))
    if bounded:
        fig.add_trace(go.Scatter(
            mode="markers", name="theoretical bound",
            marker={"symbol": "diamond-open", "size": 14, "color": COLORS["true"],
                    "line": {"width": 2.5}},
            hovertemplate="%{y}: bound %{x:.4g}<extra></extra>"))
    fig.update_layout(template=TEMPLATE, title=title, height=140 + 52 * len(names))
    fig.update_xaxes(title_text=ERROR_AXIS, type="log")
    # the first row on top, with room above it for its value's label
    fig.update_yaxes(range=[len(names) - 0.5, -0.9], showgrid=True)
    return skeleton(fig)


def _proxy_window(tau: NDArray[np.float64], bias: NDArray[np.float64],
                  clip_radius: float) -> tuple[float, float]:
    """The radii worth showing: a little below τ̃ and the bias's saturation, up to r.

    Below the radius where every row is clipped the curves are straight lines over dozens
    of octaves, and say nothing new.
    """
    full = tau[bias >= SATURATED * bias.max()] if bias.max() > 0 else tau[-1:]
    low = min(float(full.max()), clip_radius) / 2**PROXY_MARGIN
    return max(low, float(tau.min())), float(tau.max())


def adaptive_proxies_figure(proxies: Mapping[str, ArrayLike], *, clip_radius: float,
                            branch: str,
                            title: str = "AdaptiveCov: where to clip") -> go.Figure:
    """AdaptiveCov's story over its radius grid: the bias bound, the two error proxies, τ̃.

    Parameters
    ----------
    proxies : mapping
        Arrays over the radius grid: ``tau`` (τ_l), ``bias`` (B(τ_l)), ``E_S`` and
        ``E_G`` (the error proxies of SeparateCov and GaussCov at radius τ_l).
    clip_radius : float
        The chosen clip radius τ̃ (a vertical line).
    branch : str
        The estimator run at τ̃ (named in the line's legend entry).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        ``Scatter`` lines ``"bias bound B(τ)"``, ``"E_S(τ): SeparateCov's proxy"``,
        ``"E_G(τ): GaussCov's proxy"`` over the whole grid, then ``"chosen τ̃"`` (two
        points at x = τ̃); log-log axes whose x range starts :data:`PROXY_MARGIN` octaves
        below the smaller of τ̃ and the radius where the bias saturates (the grid goes on to
        r·2⁻⁷⁹; the CSV download has all of it). Zeros are not drawn on the log axis.
    """
    tau = np.asarray(proxies["tau"], dtype=float)
    bias = np.asarray(proxies["bias"], dtype=float)
    low, high = _proxy_window(tau, bias, clip_radius)
    shown = (tau >= low) & (tau <= high)
    traces: list[dict[str, Any]] = []
    visible = []
    for key, *_ in PROXY_CURVES:
        y = np.asarray(proxies[key], dtype=float)
        visible.append(y[shown & (y > 0)])
        traces.append({"x": tau, "y": np.where(y > 0, y, np.nan)})
    values = np.concatenate(visible)
    bottom, top = (float(values.min()), float(values.max())) if values.size else (1e-6, 1.0)
    traces.append({"x": [clip_radius, clip_radius], "y": [bottom, top],
                   "name": f"chosen τ̃ = {clip_radius:.3g} → {branch}",
                   "hovertemplate": f"τ̃ = {clip_radius:.4g}, then {branch}<extra></extra>"})
    ticks = log_ticks(low, high)
    return refill(_proxies_shape(title), traces, {
        "xaxis.range": [math.log10(low) - 0.05, math.log10(high) + 0.05],
        "xaxis.tickvals": ticks["tickvals"], "xaxis.ticktext": ticks["ticktext"],
        "yaxis.range": [math.log10(bottom) - 0.1, math.log10(top) + 0.1]})


#: AdaptiveCov's curves: the proxy's key, its name, colour and dash.
PROXY_CURVES = (("bias", "bias bound B(τ)", COLORS["true"], "dot"),
                ("E_S", "E_S(τ): SeparateCov's proxy", ESTIMATOR_COLORS["separate"], "solid"),
                ("E_G", "E_G(τ): GaussCov's proxy", ESTIMATOR_COLORS["gauss"], "solid"))


@functools.lru_cache(maxsize=8)
def _proxies_shape(title: str) -> Skeleton:
    """:func:`adaptive_proxies_figure` without its curves, validated once."""
    fig = go.Figure()
    for _, name, color, dash in PROXY_CURVES:
        fig.add_trace(go.Scatter(
            mode="lines+markers", name=name,
            line={"color": color, "dash": dash, "width": 2.5}, marker={"size": 5},
            hovertemplate=f"{name}<br>τ = %{{x:.3g}}: %{{y:.3g}}<extra></extra>"))
    fig.add_trace(go.Scatter(mode="lines",
                             line={"color": COLORS["private"], "width": 2, "dash": "dash"}))
    fig.update_layout(template=TEMPLATE, title=title, height=440)
    fig.update_xaxes(title_text="clip radius τ (log scale)", type="log")
    fig.update_yaxes(title_text="error (Frobenius, log scale)", type="log",
                     exponentformat="power", dtick=1)
    return skeleton(fig)


def paper_curves(table: pd.DataFrame, *, labels: Mapping[str, str], x_title: str,
                 title: str) -> go.Figure:
    """One of the paper's error curves from a saved table: mean error against a parameter.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns ``estimator, x, mean_error, std_error`` (one row per point), and optionally
        ``series`` (one panel per value, side by side, sharing the y axis).
    labels : mapping
        Estimator key → label, in legend order (keys not in it are skipped).
    x_title : str
        The x axis's title (the parameter swept).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        Per panel and estimator a ``Scatter`` line ``"<label>"`` (or ``"<label>, <series>"``
        with panels) with error bars ``std_error``; log-log axes.
    """
    has_series = "series" in table.columns
    series = list(dict.fromkeys(table["series"])) if has_series else [None]
    fig = make_subplots(rows=1, cols=len(series), shared_yaxes=True,
                        subplot_titles=[str(s) for s in series] if has_series else None,
                        horizontal_spacing=0.04)
    for col, value in enumerate(series, start=1):
        panel = table[table["series"] == value] if has_series else table
        for index, (key, label) in enumerate(labels.items()):
            rows = panel[panel["estimator"] == key].sort_values("x")
            if rows.empty:
                continue
            name = label if value is None else f"{label}, {value}"
            color = estimator_color(key, index)
            fig.add_trace(go.Scatter(
                x=rows["x"].to_numpy(float), y=rows["mean_error"].to_numpy(float),
                error_y={"type": "data", "array": rows["std_error"].to_numpy(float),
                         "thickness": 1.2, "width": 3},
                mode="lines+markers", name=name, legendgroup=key, showlegend=col == 1,
                line={"color": color, "width": 2.2}, marker={"color": color, "size": 7},
                hovertemplate=f"{name}<br>{x_title} = %{{x:g}}: %{{y:.3g}}<extra></extra>"),
                row=1, col=col)
    fig.update_xaxes(type="log", title_text=x_title, exponentformat="power", dtick=1)
    fig.update_yaxes(type="log", exponentformat="power", dtick=1)
    fig.update_yaxes(title_text=ERROR_AXIS, row=1, col=1)
    fig.update_layout(template=TEMPLATE, title=title, height=460)
    return fig
