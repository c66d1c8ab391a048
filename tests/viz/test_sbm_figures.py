"""The stochastic block model figures: heatmaps equal the inputs, rings mark the mistakes."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dpviz.viz import sbm as viz_sbm
from dpviz.viz.tables import figure_table


def _dense(edges: np.ndarray, n: int) -> np.ndarray:
    a = np.zeros((n, n))
    a[edges[:, 0], edges[:, 1]] = a[edges[:, 1], edges[:, 0]] = 1.0
    return a


@pytest.fixture
def small_graph() -> tuple[np.ndarray, int, np.ndarray]:
    rng = np.random.default_rng(1)
    n = 12
    truth = np.repeat([1, -1], n // 2)
    pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)])
    same = truth[pairs[:, 0]] == truth[pairs[:, 1]]
    keep = rng.random(len(pairs)) < np.where(same, 0.8, 0.2)
    return pairs[keep], n, truth


def test_adjacency_heatmaps_are_the_reordered_matrix(small_graph):
    edges, n, truth = small_graph
    recovered = truth.copy()
    recovered[[0, 7]] *= -1
    fig = viz_sbm.adjacency_figure(edges, n, [("true", truth), ("recovered", recovered)])
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    assert [t.name for t in fig.data] == ["true", "recovered"]
    assert [a.text for a in fig.layout.annotations] == ["true", "recovered"]
    dense = _dense(edges, n)
    for trace, labels in zip(fig.data, (truth, recovered), strict=True):
        order = np.argsort(-labels, kind="stable")
        np.testing.assert_array_equal(trace.z, dense[np.ix_(order, order)])
        assert (trace.zmin, trace.zmax) == (0.0, 1.0)
    # the dashed boundary sits between the last +1 and the first −1 vertex
    cuts = {s.x0 for s in fig.layout.shapes if s.x0 == s.x1}
    assert cuts == {5.5}
    assert "block" not in fig.layout.title.text
    assert fig.layout.yaxis.autorange == "reversed"
    table = figure_table(fig)
    assert table["value"].sum() == pytest.approx(2 * 2 * len(edges))


def test_large_graphs_are_averaged_into_blocks_and_say_so():
    rng = np.random.default_rng(2)
    n = 1000
    edges = np.unique(np.sort(rng.integers(0, n, size=(4000, 2)), axis=1), axis=0)
    edges = edges[edges[:, 0] != edges[:, 1]]
    labels = np.where(rng.random(n) < 0.5, 1, -1)
    fig = viz_sbm.adjacency_figure(edges, n, [("true", labels)], pixels=400)
    z = np.asarray(fig.data[0].z)
    assert z.shape == (334, 334)
    assert "(3 × 3 blocks of pairs per pixel)" in fig.layout.title.text
    # the mean over pixels weighted by their pair counts gives back the edge density
    widths = np.minimum(3, n - np.arange(334) * 3)
    assert (z * np.outer(widths, widths)).sum() == pytest.approx(2 * len(edges))
    np.testing.assert_array_equal(fig.data[0].x, np.arange(0, n, 3))


def test_bad_labels_are_refused(small_graph):
    edges, n, truth = small_graph
    with pytest.raises(ValueError, match="12 values in"):
        viz_sbm.adjacency_figure(edges, n, [("true", truth[:-1])])
    with pytest.raises(ValueError, match="at least one labeling"):
        viz_sbm.adjacency_figure(edges, n, [])
    with pytest.raises(ValueError, match="vertices 0 … 11"):
        viz_sbm.adjacency_figure([[0, 12]], n, [("true", truth)])


@pytest.mark.parametrize("sign", [1, -1])
def test_mistake_rings_mark_exactly_the_wrong_vertices_up_to_sign(small_graph, sign):
    edges, n, truth = small_graph
    rng = np.random.default_rng(3)
    positions = rng.normal(size=(n, 2))
    recovered = truth.copy()
    recovered[[2, 9, 10]] *= -1
    fig = viz_sbm.graph_figure(positions, edges, sign * recovered, truth,
                               vertices=np.arange(100, 100 + n))
    assert [t.name for t in fig.data] == ["edges", "community +1", "community -1",
                                          "mistakes (3 of 12)"]
    assert [t.type for t in fig.data] == ["scatter"] * 4  # SVG: no WebGL context per redraw
    ring = fig.data[3]
    np.testing.assert_array_equal(ring.x, positions[[2, 9, 10], 0])
    np.testing.assert_array_equal(ring.y, positions[[2, 9, 10], 1])
    np.testing.assert_array_equal(ring.customdata, [102, 109, 110])
    # colours follow the aligned recovered labels, whatever the global sign given
    plus = fig.data[1]
    np.testing.assert_array_equal(plus.x, positions[recovered == 1, 0])
    # the edges' strokes: every segment is an edge, every edge drawn (there and back)
    xs, ys = (np.asarray(v, dtype=float) for v in (fig.data[0].x, fig.data[0].y))
    at = {(float(x), float(y)): v for v, (x, y) in enumerate(positions)}
    walk = [at.get((x, y), -1) for x, y in zip(xs, ys, strict=True)]
    segments = [tuple(sorted(s)) for s in zip(walk[:-1], walk[1:], strict=True)
                if min(s) >= 0]
    assert sorted(segments) == sorted([tuple(e) for e in edges.tolist()] * 2)
    assert np.isnan(xs[np.array(walk) < 0]).all()  # gaps only between components


def test_edge_walk_strokes_each_component_once():
    # a triangle, a path and an isolated vertex: two strokes, each edge there and back
    walk = viz_sbm.edge_walk(np.array([[0, 1], [1, 2], [0, 2], [4, 5], [5, 6]]), 7)
    assert (walk == -1).sum() == 1 and len(walk) == 1 + 2 * 3 + 1 + 1 + 2 * 2
    assert 3 not in walk.tolist()
    assert viz_sbm.edge_walk(np.empty((0, 2), dtype=np.int64), 3).tolist() == []


def test_perfect_recovery_has_no_rings(small_graph):
    edges, n, truth = small_graph
    fig = viz_sbm.graph_figure(np.zeros((n, 2)), edges, -truth, truth)
    assert fig.data[3].name == "mistakes (0 of 12)" and len(fig.data[3].x) == 0


def _summary(names, xs, column):
    rows = [{"estimator": name, column: x, "median": 0.1 * i + 0.01 * j, "low": 0.0,
             "high": 1.0, "seeds": 5} for i, name in enumerate(names) for j, x in enumerate(xs)]
    return pd.DataFrame(rows)


def test_epsilon_curves_draw_medians_references_and_both_scales():
    private = _summary(["Weak recovery", "Randomized response"], [0.5, 1.0, 2.0], "epsilon")
    reference = pd.DataFrame([{"estimator": "Spectral", "epsilon": math.inf, "median": 0.9,
                               "low": 0.9, "high": 0.9, "seeds": 5}])
    fig = viz_sbm.epsilon_curves(pd.concat([private, reference]), references=["Spectral"],
                                 baselines=["Randomized response"])
    assert [t.name for t in fig.data] == [
        "Weak recovery quartiles", "Weak recovery", "Randomized response quartiles",
        "Randomized response", "Spectral", "error rate axis"]
    np.testing.assert_allclose(fig.data[1].y, [0.0, 0.01, 0.02])
    np.testing.assert_allclose(fig.data[3].y, [0.1, 0.11, 0.12])
    assert fig.data[1].line.dash == "solid" and fig.data[3].line.dash == "dash"
    assert list(fig.data[4].x) == [0.5, 2.0] and list(fig.data[4].y) == [0.9, 0.9]
    assert fig.layout.xaxis.type == "log" and list(fig.layout.xaxis.tickvals) == [0.5, 1, 2]
    assert fig.data[5].yaxis == "y2" and len(fig.data[5].x) == 0
    assert fig.layout.yaxis.title.text == "overlap = 1 − 2 · error rate"
    # the right axis reads the same lines as error rates: overlap 1 ↔ error 0
    low, high = fig.layout.yaxis.range
    assert tuple(fig.layout.yaxis2.range) == pytest.approx(((1 - low) / 2, (1 - high) / 2))
    with pytest.raises(ValueError, match="at least one private point"):
        viz_sbm.epsilon_curves(reference)


def test_n_curves():
    fig = viz_sbm.n_curves(_summary(["Weak recovery", "Randomized response"],
                                    [200, 1000, 5000], "n"),
                           baselines=["Randomized response"])
    assert [t.name for t in fig.data if t.showlegend is not False] == [
        "Weak recovery", "Randomized response"]
    assert list(fig.data[1].x) == [200, 1000, 5000]
    assert fig.layout.xaxis.type == "log" and list(fig.layout.xaxis.ticktext) == [
        "200", "1,000", "5,000"]
    assert fig.layout.yaxis.title.text.startswith("error rate")


def test_phase_diagram_heatmaps_and_kesten_stigum_line():
    grid = [(s, e) for e in (0.5, 1.0, 2.0) for s in (0.05, 0.2, 0.5)]
    table = pd.DataFrame([{"signal": s, "epsilon": e, "success_rate": s * e / 2,
                           "median_error": 0.5 - s * e / 4, "seeds": 4} for s, e in grid])
    fig = viz_sbm.phase_figure([("weak recovery", table), ("randomized response",
                                                        table.assign(success_rate=0.5))],
                               degree=25.0)
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    assert [t.name for t in fig.data] == ["weak recovery", "randomized response"]
    heat = fig.data[0]
    assert list(heat.x) == [0.05, 0.2, 0.5] and list(heat.y) == ["0.5", "1", "2"]
    np.testing.assert_allclose(heat.z, [[s * e / 2 for s in (0.05, 0.2, 0.5)]
                                        for e in (0.5, 1.0, 2.0)])
    assert (heat.zmin, heat.zmax) == (0.0, 1.0)
    lines = [s for s in fig.layout.shapes if s.type == "line"]
    assert len(lines) == 2 and all(s.x0 == s.x1 == pytest.approx(0.2) for s in lines)
    assert fig.layout.title.text.endswith("Kesten–Stigum, ε_s² d = 1 at ε_s = 0.2")
    assert fig.layout.yaxis.type == "category"
    assert viz_sbm.kesten_stigum_signal(4.0) == 0.5
