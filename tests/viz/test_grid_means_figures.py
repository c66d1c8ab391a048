"""Grid means' story: the released grid with its peaks, the centres' path with its radii."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_bounds_upload import three_clusters

from dpviz.core.entry import StoryInputs
from dpviz.data.files import sha256
from dpviz.estimators.gmm import grid_means as module
from dpviz.estimators.registry import TASKS
from dpviz.lab.scenario import Scenario, load_data, run_scenario
from dpviz.privacy import Budget
from dpviz.privacy.bounds import Box
from dpviz.viz.grid_means import grid_figure

STORY = TASKS["gmm"]["grid_means"].story
HEADER = ("height (cm)", "weight (kg)")


def budget(epsilon: float) -> dict:
    return {"epsilon": epsilon, "delta": 1e-5 if math.isfinite(epsilon) else 0.0}


@pytest.fixture
def released(monkeypatch) -> dict:
    """What grid means' release function returned, by release name (the values drawn)."""
    seen: dict = {}
    original = module.release

    def recording(*args, name, **kwargs):
        seen[name] = np.asarray(original(*args, name=name, **kwargs))
        return seen[name]

    monkeypatch.setattr(module, "release", recording)
    return seen


def drawn(result, inputs):
    assert STORY is not None
    rows = STORY.rows(result, inputs)
    assert [[f.key for f in row] for row in rows] == [["gmm_story_grid"], ["gmm_story_steps"]]
    return rows[0][0].figure, rows[1][0].figure


def trace(figure, name):
    return next(t for t in figure.data if t.name == name)


@pytest.mark.parametrize("epsilon", [math.inf, 1.0])
def test_the_story_draws_the_released_grid_and_the_path_on_generated_data(epsilon, released):
    s = Scenario.from_dict({"task": "gmm", "estimator": "grid_means",
                            "data": {"generator": "gmm", "n": 1_500, "d": 2, "k": 3,
                                     "separation": 8.0, "seed": 0},
                            "params": {"k": 3, **budget(epsilon)}, "seed": 0})
    loaded = load_data(s.data)
    result = run_scenario(s, loaded)
    grid, path = drawn(result, StoryInputs(rows=loaded.data, true_means=loaded.truth.means,
                                           k=3))
    counts = released["grid counts"].reshape(result.diagnostics["grid_counts"].shape)
    assert np.array_equal(grid.data[0].z, counts.T)  # the heatmap is the released grid
    label = "noisy counts (released)" if math.isfinite(epsilon) else "counts (no noise)"
    assert grid.data[0].name == label
    low, high = result.diagnostics["grid_low"], result.diagnostics["grid_high"]
    assert list(grid.layout.xaxis.range) == [low[0], high[0]]
    assert grid.layout.xaxis.title.text == "x1" and path.layout.yaxis.title.text == "x2"
    centres = result.diagnostics["centres"]
    assert np.allclose(np.c_[trace(grid, "the 3 peaks").x, trace(grid, "the 3 peaks").y],
                       centres[0])
    final = trace(path, "private means" if math.isfinite(epsilon) else "means (no noise)")
    assert np.allclose(np.c_[final.x, final.y], result.estimate["means"])
    first = next(t for t in path.data if t.name.startswith("step 1's radius"))
    x = np.array([v for v in first.x if v is not None])
    assert np.ptp(x[:73]) == pytest.approx(2 * result.diagnostics["radii"][0], rel=1e-3)


@pytest.mark.parametrize("d", [1, 3])
def test_one_and_three_columns_draw_a_strip_or_the_first_two(d):
    x = np.random.default_rng(0).normal(size=(600, d)) + np.repeat([[-6.0], [6.0]], 300, 0)
    result = module.grid_means(x, Budget(epsilon=float("inf")), k=2,
                               rng=np.random.default_rng(0), radius=12.0)
    grid, path = drawn(result, StoryInputs(rows=x, k=2))
    shown = {1: "one column, drawn as a strip", 3: "the first two of three columns"}[d]
    assert grid.layout.title.subtitle.text.startswith(shown)
    counts = result.diagnostics["grid_counts"]
    assert np.allclose(np.asarray(grid.data[0].z).sum(), counts.sum())
    assert np.asarray(grid.data[0].z).shape == ((1, len(counts)) if d == 1 else
                                                counts.shape[:2][::-1])
    assert len(trace(path, "the centres' path").x) == 2 * (len(result.diagnostics["radii"]) + 2)


def test_a_refused_run_has_no_story():
    refused = module.grid_means(np.zeros((50, 2)), Budget(epsilon=1.0, delta=1e-5), k=3,
                                rng=np.random.default_rng(0))
    assert refused.failed and STORY is not None
    assert STORY.rows(refused, StoryInputs()) == []


def test_the_grid_box_and_radii_come_back_in_the_tables_units():
    box = Box(np.array([0.0, 0.0]), np.array([100.0, 200.0]), "ranges", True)
    mapped = box.map_estimate({"grid_low": [-1.0, -0.5], "grid_high": [1.0, 1.0],
                               "radii": [0.2, 0.1]})
    assert mapped["grid_low"].tolist() == [0.0, 50.0]
    assert mapped["grid_high"].tolist() == [100.0, 200.0]
    assert mapped["radii"].tolist() == [[10.0, 20.0], [5.0, 10.0]]  # steps × columns


@pytest.mark.parametrize("epsilon", [math.inf, 1.0])
def test_on_an_upload_the_axes_are_the_columns_and_the_grid_is_in_the_tables_units(
        epsilon, released):
    content = three_clusters(500)
    bounds = {"ranges": [[0, 100], [-100, 200]], "standardise": True}
    s = Scenario.from_dict({"task": "gmm", "estimator": "grid_means",
                            "data": {"upload": "clusters.csv", "sha256": sha256(content),
                                     "bounds": bounds},
                            "params": {"k": 3, **budget(epsilon)}, "seed": 18})
    loaded = load_data(s.data, content=content)
    result = run_scenario(s, loaded)
    assert result.failed is None
    grid, path = drawn(result, StoryInputs(rows=loaded.data, k=3, names=loaded.names,
                                           reference="non-private EM on your data"))
    for figure in (grid, path):
        assert (figure.layout.xaxis.title.text, figure.layout.yaxis.title.text) == HEADER
    counts = released["grid counts"].reshape(result.diagnostics["grid_counts"].shape)
    assert np.array_equal(grid.data[0].z, counts.T)
    low, high = result.diagnostics["grid_low"], result.diagnostics["grid_high"]
    # the table's units: the box holds the clusters (20 … 80, 20 … 70), not [−1, 1]
    assert np.all(low < 20) and np.all(high > 70) and high[1] - low[1] > 50
    radii = result.diagnostics["radii"]
    assert radii.shape == (2, 2) and radii[0, 1] == pytest.approx(3 * radii[0, 0])
    xs = grid.data[0].x
    assert xs[0] > low[0] and xs[-1] < high[0]  # cell middles inside the box
    final = trace(path, "private means" if math.isfinite(epsilon) else "means (no noise)")
    assert np.allclose(np.c_[final.x, final.y], result.estimate["means"])
    assert 0 < min(final.x) and max(final.x) < 100


def test_names_are_shown_literally():
    x = np.random.default_rng(1).normal(size=(300, 2))
    result = module.grid_means(x, Budget(epsilon=float("inf")), k=1,
                               rng=np.random.default_rng(0), radius=4.0)
    figure = grid_figure(result, rows=x, names=["<b>a</b>", "$b$"])
    assert figure.layout.xaxis.title.text == "&lt;b&gt;a&lt;/b&gt;"
    assert "$" not in figure.layout.yaxis.title.text
