"""The budget page's factories: trace kinds, axis titles, plotted values equal the inputs."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest

from dpviz import viz
from dpviz.privacy import Budget, Ledger, PlannedRelease, laplace, release, solve
from dpviz.privacy.plans import Plan, epsilon_by_delta, epsilon_by_rounds, solve_methods
from dpviz.viz.style import COLORS, METHOD_COLORS


@pytest.fixture(scope="module")
def ggg():
    plan = Plan.dp_em(iterations=5, k=2)
    return plan, solve_methods(plan, Budget(epsilon=1.0, delta=1e-5))


def test_noise_bars_one_bar_per_method_when_noise_is_shared(ggg):
    _, solutions = ggg
    fig = viz.noise_bars(solutions)
    assert isinstance(fig, go.Figure)
    (bars,) = fig.data
    assert bars.type == "bar" and bars.name == "every release"
    assert list(bars.x) == ["linear", "advanced", "zCDP", "MA", "RDP", "PLD"]
    assert list(bars.y) == [solutions[m]["means"].multiplier for m in solutions]
    assert list(bars.marker.color) == [METHOD_COLORS[m] for m in solutions]
    assert fig.layout.yaxis.title.text.startswith("noise multiplier")
    assert fig.layout.xaxis.title.text == "accounting method"


def test_noise_bars_group_by_line_and_skip_failed_methods():
    plan = Plan((PlannedRelease("a", "laplace", count=3), PlannedRelease("b", "gaussian")), 2)
    solutions = solve_methods(plan, Budget(epsilon=1.0, delta=1e-6))
    solutions["ma"] = "the moments accountant cannot, for this test"
    fig = viz.noise_bars(solutions)
    assert [t.name for t in fig.data] == ["a", "b"]
    assert fig.layout.barmode == "group"
    assert "MA" not in fig.data[0].x
    assert fig.data[1].y[0] == solutions["linear"]["b"].multiplier


def test_epsilon_by_rounds_chart_plots_the_curves(ggg):
    plan, solutions = ggg
    rounds = [1, 2, 5, 10]
    curves = epsilon_by_rounds(plan, solutions["pld"], rounds, 1e-5)
    fig = viz.epsilon_by_rounds_chart(rounds, curves, target_epsilon=1.0, planned_rounds=5,
                                      held_by="pld")
    lines = fig.data[:len(curves)]
    assert [t.name for t in lines] == ["Linear composition", "Advanced composition", "zCDP",
                                       "Moments accountant", "Rényi DP",
                                       "Privacy loss distribution"]
    for trace, method in zip(lines, curves, strict=True):
        assert trace.type == "scatter"
        np.testing.assert_array_equal(trace.y, curves[method])
        np.testing.assert_array_equal(trace.x, rounds)
    target, plan_point = fig.data[-2:]
    assert list(target.y) == [1.0, 1.0] and target.line.color == COLORS["true"]
    assert list(plan_point.x) == [5] and list(plan_point.y) == [1.0]
    assert curves["pld"][2] == pytest.approx(1.0, rel=1e-6)
    assert fig.layout.xaxis.title.text == "rounds composed"
    assert fig.layout.yaxis.type == "log"
    assert "PLD" in fig.layout.title.text


def test_epsilon_by_delta_chart(ggg):
    plan, solutions = ggg
    deltas = [1e-8, 1e-6, 1e-5, 1e-3]
    curves = epsilon_by_delta(plan, solutions["zcdp"], deltas)
    fig = viz.epsilon_by_delta_chart(deltas, curves, target_epsilon=1.0, target_delta=1e-5,
                                     held_by="zcdp")
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.title.text == "δ"
    np.testing.assert_array_equal(fig.data[2].y, curves["zcdp"])
    point = fig.data[-1]
    assert point.mode == "markers" and list(point.x) == [1e-5] and list(point.y) == [1.0]
    no_delta = viz.epsilon_by_delta_chart(deltas, curves, target_epsilon=1.0, target_delta=0.0,
                                          held_by="zcdp")
    assert len(no_delta.data) == len(curves)


def test_allocation_bar_stacks_each_lines_share_of_the_plans_epsilon(ggg):
    """Issue 35: the bar is in ε, the plan's ε as its method composes it (the target); each
    line gets its share by ρ, the currency zCDP adds up. No ρ on the axis."""
    _, solutions = ggg
    allocations = solutions["zcdp"]
    fig = viz.allocation_bar(allocations, method="zcdp", delta=1e-5)
    assert fig.layout.barmode == "stack"
    assert [t.name for t in fig.data] == list(allocations)
    rho = sum(a.rho * a.release.count for a in allocations.values())
    total = sum(t.x[0] for t in fig.data)
    assert total == pytest.approx(1.0, rel=1e-3)  # solved to meet ε = 1
    for trace, a in zip(fig.data, allocations.values(), strict=True):
        assert trace.type == "bar" and trace.orientation == "h"
        assert trace.x[0] == pytest.approx(total * a.rho * a.release.count / rho)
    assert fig.layout.xaxis.title.text.startswith("ε spent") and "ρ" not in str(fig.to_dict())
    assert "zCDP solution" in fig.layout.title.text


def test_ledger_bar_from_releases():
    budget = Budget(epsilon=1.0, delta=1e-5)
    ledger = Ledger(budget)
    rng = np.random.default_rng(0)
    allocation = solve([PlannedRelease("mean", "gaussian", 0.5, count=1)], budget)["mean"]
    for _ in range(3):
        release(0.0, allocation, rng=rng, ledger=ledger)
    laplace(0.0, sensitivity=1.0, scale=4.0, rng=rng, ledger=ledger, name="count")
    fig = viz.ledger_bar(ledger)
    assert [t.name for t in fig.data] == ["mean", "count"]
    total = ledger.total().epsilon  # the run's own accountant (zCDP) on every release
    assert sum(t.x[0] for t in fig.data) == pytest.approx(total)
    rho = 3 * ledger.releases[0].rho
    assert fig.data[0].x[0] / fig.data[1].x[0] == pytest.approx(rho / (0.25**2 / 2))
    assert fig.layout.xaxis.title.text.startswith("ε spent")


def test_ledger_bar_without_rho_uses_epsilon():
    from dpviz.privacy import Release

    ledger = Ledger()
    ledger.record(Release("hist", "stable_histogram", 2.0, "L1", 4.0, epsilon=0.5, delta=1e-6))
    ledger.record(Release("count", "laplace", 1.0, "L1", 2.0, epsilon=0.5, rho=0.125))
    fig = viz.ledger_bar(ledger)
    assert [t.x[0] for t in fig.data] == [0.5, 0.5]
    assert fig.layout.xaxis.title.text.startswith("ε spent")


def test_ledger_bar_groups_releases_by_what_they_release():
    ledger = Ledger()
    rng = np.random.default_rng(1)
    for i in range(20):
        laplace(0.0, sensitivity=1.0, scale=10.0, rng=rng, ledger=ledger, name=f"mean {i}")
        laplace(0.0, sensitivity=1.0, scale=5.0 + i, rng=rng, ledger=ledger,
                name=f"weights, iteration {i + 1}")
    fig = viz.ledger_bar(ledger)  # no budget: linear composition, each part its own ε
    assert [t.name for t in fig.data] == ["mean", "weights"]
    assert fig.data[0].x[0] == pytest.approx(20 * 0.1)
    assert fig.data[1].x[0] == pytest.approx(sum(1 / (5.0 + i) for i in range(20)))


def test_ledger_bar_groups_many_kinds_by_mechanism():
    ledger = Ledger()
    rng = np.random.default_rng(1)
    for i in range(20):
        laplace(0.0, sensitivity=1.0, scale=10.0, rng=rng, ledger=ledger, name=f"query {i}a")
    fig = viz.ledger_bar(ledger)
    (trace,) = fig.data
    assert trace.name == "laplace" and trace.x[0] == pytest.approx(20 * 0.1)


def test_factories_never_draw_nan_as_zero(ggg):
    plan, solutions = ggg
    curves = {"linear": np.array([1.0, math.nan])}
    fig = viz.epsilon_by_rounds_chart([1, 2], curves, target_epsilon=1.0, planned_rounds=1,
                                      held_by="linear")
    assert math.isnan(fig.data[0].y[1])


def test_figure_table_exports_heatmap_cells():
    fig = go.Figure(go.Heatmap(z=[[1.0, 2.0], [3.0, 4.0]], name="w"))
    table = viz.figure_table(fig)
    assert table.to_dict("list") == {"series": ["w"] * 4, "x": [0, 1, 0, 1], "y": [0, 0, 1, 1],
                                     "value": [1.0, 2.0, 3.0, 4.0]}


def test_ledger_bar_legend_of_twelve_kinds_has_room_and_colours():
    """Twelve kinds of release (private ranges of 4 columns and DP-EM's 4): the legend, one
    entry a row below the bar, gets its height, so it is neither clipped nor over the bar on
    a phone or at 1280 px, and no two entries share a colour (issue 17)."""
    from dpviz.privacy import Release
    from dpviz.viz.privacy import AXIS_HEIGHT, BAR_HEIGHT, LEGEND_ROW

    names = [f"bound: {q}% quantile of {c}" for c in ("age", "height", "weight", "waist")
             for q in (5, 95)]
    names += ["initial counts and sums", "weights", "mean", "covariance"]
    ledger = Ledger()
    for name in names:
        ledger.record(Release(name, "gaussian", 1.0, "L2", 3.0, epsilon=0.1, delta=1e-7,
                              rho=0.001))
    fig = viz.ledger_bar(ledger)
    from dpviz.viz.style import plotly_text

    assert [t.name for t in fig.data] == [plotly_text(n) for n in names]  # % as an entity
    assert all(t.showlegend for t in fig.data)
    layout = fig.layout
    assert layout.height == BAR_HEIGHT + 12 * LEGEND_ROW
    assert layout.margin.b == AXIS_HEIGHT + 12 * LEGEND_ROW  # the legend below the axis
    assert layout.legend.orientation == "v" and layout.legend.maxheight >= 12 * LEGEND_ROW
    assert len({t.marker.color for t in fig.data}) == 12
