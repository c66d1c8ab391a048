"""The exposure factory: two panels, the person alone marked in both, the means plotted."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz import viz
from dpviz.data import exposure_demo
from dpviz.viz.style import COLORS


def test_two_panels_with_rows_person_and_means():
    demo = exposure_demo()
    lone = demo.data[demo.lone_index]
    em = np.array([[0.5, -0.5], [0.0, -0.4], [0.4, 0.0], lone])
    private = em + 0.2
    fig = viz.exposure_figure(demo.data, lone, em, private, private_label="DP-EM, ε = 1")
    names = [t.name for t in fig.data]
    assert names == ["people (rows)", "the person alone", "non-private EM means",
                     "people (rows)", "the person alone", "private means"]
    assert [t.xaxis for t in fig.data] == ["x", "x", "x", "x2", "x2", "x2"]
    rows_left, person, em_trace, rows_right, _, private_trace = fig.data
    np.testing.assert_array_equal(rows_left.x, demo.data[:, 0])
    np.testing.assert_array_equal(rows_right.y, demo.data[:, 1])
    assert (person.x[0], person.y[0]) == pytest.approx(tuple(lone))
    np.testing.assert_array_equal(em_trace.x, em[:, 0])
    np.testing.assert_array_equal(private_trace.y, private[:, 1])
    assert em_trace.marker.color == COLORS["true"]
    assert private_trace.marker.color == COLORS["private"]
    assert [a.text for a in fig.layout.annotations] == ["Non-private EM", "DP-EM, ε = 1"]
    assert list(fig.layout.xaxis.range) == [-1.0, 1.0]
    # the legend lists each kind once
    assert [t.showlegend for t in fig.data] == [True, True, None, False, False, None]


def test_csv_of_the_figure_has_every_point():
    data = np.array([[0.1, 0.2], [0.3, 0.4]])
    fig = viz.exposure_figure(data, data[1], data, data)
    table = viz.figure_table(fig)
    assert len(table) == 2 * (2 + 1 + 2)
