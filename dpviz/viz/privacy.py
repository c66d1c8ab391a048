"""Figures of the Privacy budget page and the budget bar every estimator page shows.

Factories only draw: they take the budget solver's allocations, a ledger or curves the
engine computed (``dpviz.privacy.plans``), and return a ``plotly.graph_objects.Figure``.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

from dpviz.privacy import (
    METHOD_LABELS,
    Allocation,
    BudgetError,
    Ledger,
    PrivacyEvent,
    compose_parts,
)
from dpviz.privacy.risk import DEFAULT_DELTA
from dpviz.viz.style import (
    COLORS,
    METHOD_SHORT,
    TEMPLATE,
    Skeleton,
    log_ticks,
    method_color,
    plotly_text,
    refill,
    series_color,
    skeleton,
    wrapped,
)

NOISE_AXIS = "noise multiplier (σ/Δ, or b/Δ for Laplace)"
_MAX_LEGEND_ROWS = 12
#: The budget bar's height without its legend (title, bar, axis), its axis and two-line
#: axis title's, and each legend row's (px).
BAR_HEIGHT, AXIS_HEIGHT, LEGEND_ROW = 230, 80, 22


def _label(method: str) -> str:
    return METHOD_LABELS.get(method, method)


def _same_noise(solved: Mapping[str, Mapping[str, Allocation]]) -> bool:
    """Whether every line of every method has one noise multiplier (one bar suffices)."""
    for allocations in solved.values():
        values = [a.multiplier for a in allocations.values()]
        if values and max(values) - min(values) > 1e-9 * max(values):
            return False
    return True


def noise_bars(solutions: Mapping[str, Mapping[str, Allocation] | str], *,
               title: str = "Noise each accounting method needs") -> go.Figure:
    """Bars of the noise multiplier every accounting method needs for the plan.

    Parameters
    ----------
    solutions : mapping
        ``method → {line name → Allocation}`` as :func:`dpviz.privacy.plans.solve_methods`
        returns it; a method whose value is a sentence (it cannot meet the target) has no
        bar.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        When every release of a method gets the same multiplier (equal weights, the
        paper's split), one ``Bar`` trace named "every release" coloured by method;
        otherwise one ``Bar`` trace per plan line, grouped. x the methods' short names,
        y ``Allocation.multiplier``.
    """
    solved = {m: s for m, s in solutions.items() if not isinstance(s, str)}
    fig = go.Figure()
    if _same_noise(solved):
        methods = list(solved)
        fig.add_trace(go.Bar(
            name="every release", x=[METHOD_SHORT.get(m, m) for m in methods],
            y=[next(iter(solved[m].values())).multiplier for m in methods],
            marker_color=[method_color(m) for m in methods], texttemplate="%{y:.4g}",
            textposition="outside", cliponaxis=False,
            customdata=[_label(m) for m in methods],
            hovertemplate="%{customdata}: σ/Δ = %{y:.4g}<extra></extra>"))
    else:
        lines = list(dict.fromkeys(name for s in solved.values() for name in s))
        for i, line in enumerate(lines):
            methods = [m for m, s in solved.items() if line in s]
            shown = plotly_text(line)  # a plan line's name, shown literally
            fig.add_trace(go.Bar(
                name=shown, x=[METHOD_SHORT.get(m, m) for m in methods],
                y=[solved[m][line].multiplier for m in methods],
                marker_color=series_color(i),
                hovertemplate=f"{shown}<br>%{{x}}: σ/Δ = %{{y:.4g}}<extra></extra>"))
    fig.update_layout(template=TEMPLATE, title=title, barmode="group",
                      showlegend=len(fig.data) > 1, bargap=0.3)
    fig.update_xaxes(title_text="accounting method", title_standoff=14)
    fig.update_yaxes(title_text=NOISE_AXIS, rangemode="tozero")
    return fig


def _method_lines(x: NDArray[np.float64], curves: Mapping[str, ArrayLike],
                  x_hover: str) -> go.Figure:
    """A figure with one line per accounting method, in the methods' own colours."""
    fig = go.Figure()
    for method, values in curves.items():
        fig.add_trace(go.Scatter(
            x=x, y=np.asarray(values, dtype=float), mode="lines", name=_label(method),
            line={"color": method_color(method), "width": 2.5},
            hovertemplate=f"{_label(method)}<br>{x_hover}: ε = %{{y:.4g}}<extra></extra>"))
    return fig


def epsilon_by_rounds_chart(rounds: ArrayLike, curves: Mapping[str, ArrayLike], *,
                            target_epsilon: float, planned_rounds: int,
                            held_by: str) -> go.Figure:
    """ε of the first r rounds at fixed noise, one line per method, with the target marked.

    Parameters
    ----------
    rounds : array-like
        The numbers of rounds on the x axis.
    curves : mapping
        ``method → ε`` for each entry of ``rounds`` (NaN where the method cannot say), as
        :func:`dpviz.privacy.plans.epsilon_by_rounds` returns them.
    target_epsilon : float
        The target ε (a horizontal line).
    planned_rounds : int
        The plan's number of rounds (the target point sits at ``(planned_rounds, ε)``).
    held_by : str
        The method whose solved noise is held fixed (named in the title).

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Scatter`` line per method, then the target line and the target point.
    """
    x = np.asarray(rounds, dtype=float)
    fig = _method_lines(x, curves, "%{x:.0f} rounds")
    fig.add_trace(go.Scatter(
        x=[x.min(), x.max()], y=[target_epsilon, target_epsilon], mode="lines",
        name="target ε", line={"color": COLORS["true"], "dash": "dash", "width": 1.5},
        hoverinfo="skip"))
    fig.add_trace(go.Scatter(
        x=[planned_rounds], y=[target_epsilon], mode="markers", name="the plan",
        marker={"color": COLORS["true"], "size": 11, "symbol": "diamond"},
        hovertemplate="the plan: %{x} rounds at ε = %{y:.4g}<extra></extra>"))
    held = METHOD_SHORT.get(held_by, held_by)
    fig.update_layout(template=TEMPLATE,
                      title=f"ε as rounds compose (noise of the {held} solution)")
    fig.update_xaxes(title_text="rounds composed")
    fig.update_yaxes(title_text="ε (log scale)", type="log", **log_ticks())
    return fig


def epsilon_by_delta_chart(deltas: ArrayLike, curves: Mapping[str, ArrayLike], *,
                           target_epsilon: float, target_delta: float,
                           held_by: str) -> go.Figure:
    """The ε(δ) curve of the whole plan at fixed noise, one line per method.

    Parameters
    ----------
    deltas : array-like
        δ values (log x axis).
    curves : mapping
        ``method → ε(δ)``, as :func:`dpviz.privacy.plans.epsilon_by_delta` returns them.
    target_epsilon, target_delta : float
        The target, drawn as a point.
    held_by : str
        The method whose solved noise is held fixed.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Scatter`` line per method and the target point.
    """
    fig = _method_lines(np.asarray(deltas, dtype=float), curves, "δ = %{x:.2e}")
    if target_delta > 0:
        fig.add_trace(go.Scatter(
            x=[target_delta], y=[target_epsilon], mode="markers", name="target (ε, δ)",
            marker={"color": COLORS["true"], "size": 11, "symbol": "diamond"},
            hovertemplate="target: δ = %{x:.2e}, ε = %{y:.4g}<extra></extra>"))
    held = METHOD_SHORT.get(held_by, held_by)
    fig.update_layout(template=TEMPLATE,
                      title=f"ε(δ) of the whole plan (noise of the {held} solution)")
    fig.update_xaxes(title_text="δ", type="log", exponentformat="power")
    fig.update_yaxes(title_text="ε (log scale)", type="log", **log_ticks())
    return fig


@dataclass(frozen=True)
class _Spend:
    name: str
    mechanism: str
    count: int
    scale: float
    epsilon: float | None
    delta: float | None
    rho: float | None


def _weights(rows: Sequence[_Spend], method: str) -> list[float]:
    """Each row's part of the budget in a currency that adds up.

    ε under linear composition, else ρ when every row has one (zCDP adds ρ's), else ε.
    """
    def known(values: Sequence[float | None]) -> bool:
        return all(v is not None and math.isfinite(v) for v in values)

    rho, epsilon = [r.rho for r in rows], [r.epsilon for r in rows]
    use_rho = (method not in ("linear", "advanced") and known(rho)) or not known(epsilon)
    return [((r.rho if use_rho else r.epsilon) or 0.0) * r.count for r in rows]


def _spend_bar(rows: Sequence[_Spend], title: str, *, total: float | None,
               method: str, delta: float | None = None) -> go.Figure:
    """Stacked ε: each row's share of ``total`` (the run's ε as its accountant composes it).

    Shares follow :func:`_weights`; without a finite total the rows' own ε's are added up.
    """
    weights = _weights(rows, method)
    whole = sum(weights)
    shared = total is not None and math.isfinite(total) and whole > 0
    lengths = ([total * w / whole for w in weights] if shared and total is not None else
               [(r.epsilon or 0.0) * r.count for r in rows])
    traces = []
    for r, length in zip(rows, lengths, strict=True):
        name = plotly_text(r.name)  # a release of private ranges is named by its column
        eps = "—" if r.epsilon is None else f"{r.epsilon:.4g}"
        traces.append({"name": name, "x": [length], "hovertemplate": (
            f"{name} ({r.mechanism}) × {r.count}<br>noise scale "
            f"{'varies' if math.isnan(r.scale) else f'{r.scale:.4g}'}"
            f"<br>ε of each alone: {eps}<br>its share of the ε spent: %{{x:.3g}}<extra></extra>")})
    at = f" at δ = {delta:.2g}" if delta else ""
    axis = (f"ε spent{at}: {total:.3g} in all; each part its share" if shared and
            total is not None else "ε spent (each release's own ε, added up)")
    return refill(_spend_bar_shape(len(rows), title), traces,
                  {"xaxis.title.text": wrapped(axis, 42)})


@functools.lru_cache(maxsize=64)
def _spend_bar_shape(rows: int, title: str) -> Skeleton:
    """:func:`_spend_bar` without its numbers, validated once per number of rows and title."""
    fig = go.Figure()
    for i in range(rows):
        fig.add_trace(go.Bar(y=["budget"], x=[0.0], orientation="h",
                             marker_color=series_color(i),
                             showlegend=rows <= _MAX_LEGEND_ROWS))
    legend = LEGEND_ROW * (rows if rows <= _MAX_LEGEND_ROWS else 0)
    # One entry a row under the axis title, in a margin of its own: as readable on a phone as
    # at 1280 px, and its height is known (a wrapping legend's depends on the screen).
    fig.update_layout(template=TEMPLATE, title=title, barmode="stack",
                      height=BAR_HEIGHT + legend,
                      legend={"orientation": "v", "yref": "container", "yanchor": "bottom",
                              "y": 0, "xanchor": "left", "x": 0, "maxheight": legend + 10},
                      title_yref="container", title_y=1, title_yanchor="top",
                      title_automargin=True, title_pad={"t": 10},
                      margin={"t": 10, "b": AXIS_HEIGHT + legend})
    fig.update_xaxes(title_text="ε spent", rangemode="tozero")
    fig.update_yaxes(showticklabels=False, showgrid=False)
    return skeleton(fig)


def allocation_bar(allocations: Mapping[str, Allocation], *, method: str | None = None,
                   delta: float = 0.0, title: str = "Where the budget goes") -> go.Figure:
    """The budget bar of a solved plan in ε: one stacked segment per plan line.

    The bar is the plan's ε, composed by ``method`` at ``delta``; each line gets its share of
    it (by ρ where the method adds ρ's, else by ε).

    Parameters
    ----------
    allocations : mapping
        ``line name → Allocation`` (one method's entry of ``solve_methods``).
    method : str, optional
        The method that solved them, named in the title (default: linear composition).
    delta : float
        The plan's δ.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        One horizontal ``Bar`` trace per line, stacked.
    """
    rows = [_Spend(name, a.release.mechanism, a.release.count, a.scale, a.epsilon, a.delta,
                   a.rho) for name, a in allocations.items()]
    if method is not None:
        title = f"{title} ({METHOD_SHORT.get(method, method)} solution)"
    how = method or "linear"
    return _spend_bar(rows, title, total=_composed({None: [a.event() for a in
                                                          allocations.values()]}, delta, how),
                      method=how)


def _composed(parts: Mapping[str | None, Sequence[PrivacyEvent]], delta: float,
              method: str) -> float | None:
    """The parts' ε at ``delta`` by ``method``, or ``None`` where it gives none."""
    try:
        return compose_parts({k: list(v) for k, v in parts.items()}, delta, method)
    except (BudgetError, ValueError):
        return None


def release_group(name: str) -> str:
    """What a release is of, without its index or iteration.

    Examples
    --------
    >>> release_group("mean 2, iteration 5"), release_group("counts and sums, iteration 1")
    ('mean', 'counts and sums')
    """
    return re.sub(r"\s+\d+$", "", name.split(",")[0].strip()) or name


def _mean_or_none(values: Sequence[float | None], counts: Sequence[int]) -> float | None:
    known = [v for v in values if v is not None]
    if len(known) < len(values):
        return None
    return sum(v * c for v, c in zip(known, counts, strict=True)) / sum(counts)


def ledger_bar(ledger: Ledger, *, title: str = "Where the budget went",
               delta: float | None = None) -> go.Figure:
    """The budget bar of a ledger in ε: one stacked segment per kind of release.

    The bar is the run's ε as its own accountant composes every release (the ledger budget's
    method); each group gets its share of it (by ρ where the method adds ρ's, else by ε).
    Releases are grouped by what they release (``"mean 2, iteration 5"`` → ``"mean"``), so
    DP-EM's J(2k + 1) releases draw as weights, means and covariances; past a dozen groups
    they are grouped by mechanism so the legend stays readable.

    Parameters
    ----------
    ledger : Ledger
        The releases an estimator made.
    title : str
        The figure's title.
    delta : float, optional
        The δ at which a ρ budget without one is stated as ε (default: the page-wide
        :data:`dpviz.privacy.risk.DEFAULT_DELTA`, then named on the axis).

    Returns
    -------
    plotly.graph_objects.Figure
        One horizontal ``Bar`` trace per group, stacked.
    """
    releases = ledger.releases
    names = list(dict.fromkeys(release_group(r.name) for r in releases))
    by_mechanism = len(names) > _MAX_LEGEND_ROWS
    groups: dict[str, list] = {}
    for r in releases:
        groups.setdefault(r.mechanism if by_mechanism else release_group(r.name), []).append(r)
    rows = []
    for name, members in groups.items():
        counts = [m.count for m in members]
        scales = {m.scale for m in members}
        rows.append(_Spend(
            name, "/".join(dict.fromkeys(m.mechanism for m in members)), sum(counts),
            scales.pop() if len(scales) == 1 else math.nan,
            _mean_or_none([m.epsilon for m in members], counts),
            _mean_or_none([m.delta for m in members], counts),
            _mean_or_none([m.rho for m in members], counts)))
    budget = ledger.budget
    method = budget.method if budget is not None else "linear"
    stated = delta if delta is not None else (
        DEFAULT_DELTA if budget is not None and budget.rho is not None and budget.delta == 0
        else None)
    try:  # the ledger's own accounting (a paper's conversion where the budget asks for it)
        total = ledger.total(delta=stated).epsilon
    except (BudgetError, ValueError):
        total = None
    return _spend_bar(rows, title, total=total, method=method,
                      delta=stated if delta is None else None)
