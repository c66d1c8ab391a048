"""Figures of /gmm keep each column's own units (issue 30 item 3): no shared scale across a
file's columns, and noise far beyond the rows does not set the axes."""

from __future__ import annotations

import numpy as np

from dpviz import viz
from dpviz.core.entry import StoryInputs
from dpviz.lab.scenario import Scenario, run_scenario
from dpviz.viz.grid_means import grid_means_story
from dpviz.viz.mixtures import FAR, axis_ranges

rng = np.random.default_rng(3)
ROWS = np.column_stack([rng.normal(13, 0.5, 200), rng.normal(5, 2, 200)])
MEANS = np.array([[12.5, 3.0], [13.5, 7.0]])


def test_private_means_far_off_keep_the_rows_span_and_are_marked_at_the_edge():
    private = np.array([[478.0, -869.0], [13.0, 6.0]])
    fig = viz.mixture_figure(ROWS, MEANS, private, reference="non-private EM on your data")
    layout = fig.to_plotly_json()["layout"]
    for axis, column in (("xaxis", 0), ("yaxis", 1)):
        low, high = layout[axis]["range"]
        assert low <= ROWS[:, column].min() and high >= ROWS[:, column].max()
        assert high - low < 2 * np.ptp(ROWS[:, column])
    assert "scaleanchor" not in layout["yaxis"]
    edge = next(t for t in fig.data if t.name.startswith("private means beyond the view"))
    assert list(edge.text) == ["1"] and np.allclose(edge.customdata, [[478.0, -869.0]])
    assert edge.x[0] == layout["xaxis"]["range"][1] and edge.y[0] == layout["yaxis"]["range"][0]


def test_means_near_the_rows_leave_the_axes_to_plotly_and_generated_data_one_scale():
    fig = viz.mixture_figure(ROWS, MEANS, MEANS + 0.3)
    layout = fig.to_plotly_json()["layout"]
    assert "range" not in layout["xaxis"] and "range" not in layout["yaxis"]
    assert layout["yaxis"]["scaleanchor"] == "x"
    assert not any(t.name.startswith("private means beyond") for t in fig.data)


def test_an_axis_is_kept_only_past_far_times_the_rows_span():
    span = np.ptp(ROWS[:, 0])
    near = ROWS[:, 0].min() + (FAR - 0.5) * span
    far = ROWS[:, 0].min() + (FAR + 0.5) * span
    assert axis_ranges(ROWS, np.array([[near, 5.0]]))[0] is None
    assert axis_ranges(ROWS, np.array([[far, 5.0]]))[0] is not None


def test_grid_means_story_draws_a_files_columns_each_to_its_own_scale(tmp_path):
    path = tmp_path / "mixed.csv"
    rows = np.column_stack([rng.normal(13, 0.5, 600), rng.normal(900, 200, 600)])
    np.savetxt(path, rows, delimiter=",", header="alcohol,proline", comments="")
    result = run_scenario(Scenario.from_dict({
        "task": "gmm", "estimator": "grid_means",
        "data": {"csv": str(path), "bounds": {"ranges": [[8, 16], [0, 2000]]}},
        "params": {"k": 2, "epsilon": 8.0, "delta": 1e-5}, "seed": 0}))
    for reference, locked in ((None, True), ("non-private EM on your data", False)):
        figures = grid_means_story(result, StoryInputs(rows=rows, k=2, reference=reference))
        for row in figures:
            layout = row[0].figure.to_plotly_json()["layout"]
            assert ("scaleanchor" in layout["yaxis"]) == locked
