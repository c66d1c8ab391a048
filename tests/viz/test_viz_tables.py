"""figure_table: the CSV next to every chart holds exactly what the chart plots."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from dpviz import viz
from dpviz.lab import lens
from dpviz.privacy import Budget


def test_table_of_lines_and_bars():
    fig = go.Figure([go.Scatter(x=[1, 2], y=[3, 4], name="a"),
                     go.Bar(x=["u", "v"], y=[5, 6], name="b"),
                     go.Scatter(x=[None], y=[None], name="legend only")])
    table = viz.figure_table(fig)
    assert list(table.columns) == ["series", "x", "y"]
    assert table.values.tolist() == [["a", 1, 3], ["a", 2, 4], ["b", "u", 5], ["b", "v", 6]]


def test_table_keeps_error_bars():
    fig = go.Figure(go.Scatter(x=[1.0], y=[0.0], name="m",
                               error_x={"array": [0.2], "arrayminus": [0.1]}))
    table = viz.figure_table(fig)
    assert table[["error_minus", "error_plus"]].values.tolist() == [[0.1, 0.2]]


def test_table_of_a_lens_figure_matches_the_view():
    values = [0.0, 0.5, 1.0]
    view = lens.look(values, lens.neighbour(values, 0, 1.0), query="mean", mechanism="laplace",
                     budget=Budget(epsilon=1.0), lo=0.0, hi=1.0, rng=np.random.default_rng(0))
    table = viz.figure_table(viz.output_densities(view))
    d = table[table.series == "output density on D"]
    np.testing.assert_allclose(d.y.astype(float), view.density_d)
    assert len(table) == 2 * view.grid.size + 4 + 1


def test_empty_figure():
    assert viz.figure_table(go.Figure()).empty
