"""The story figures of private PCA + clustering and sample-and-aggregate (issue 7)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import plotly.graph_objects as go
import pytest

from dpviz.core.entry import StoryInputs
from dpviz.data import gaussian_mixture
from dpviz.estimators.gmm.kssu import private_pca_clustering
from dpviz.estimators.gmm.one_cluster import REFUSED, PreconditionWarning
from dpviz.estimators.gmm.sample_aggregate import sample_aggregate
from dpviz.privacy import Budget
from dpviz.viz.kssu import (
    candidate_cloud_figure,
    circle,
    clustering_rounds_figure,
    good_radius_figure,
    pca_projection_figure,
    pca_story,
    sample_aggregate_story,
)
from dpviz.viz.style import COLORS

pytestmark = pytest.mark.filterwarnings(
    "ignore::dpviz.estimators.gmm.one_cluster.PreconditionWarning")

MIX = gaussian_mixture(2, 4, 3000, separation=14, seed=3)
FLAT = gaussian_mixture(2, 2, 1600, separation=10, seed=1)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PreconditionWarning)
        return fn(*args, **kwargs)


PCA = _quiet(private_pca_clustering, MIX.data,
             Budget(epsilon=20.0, delta=1e-5, method="linear"), rng=np.random.default_rng(0),
             k=2, radius=MIX.radius, sigma_min=MIX.sigma / 2, sigma_max=1.5 * MIX.sigma)
SA = _quiet(sample_aggregate, FLAT.data, Budget(epsilon=math.inf),
            rng=np.random.default_rng(0), k=2, radius=FLAT.radius, chunks=40)


def test_the_instances_succeed():
    assert PCA.failed is None and SA.failed is None


def test_circle_is_closed_and_round():
    x, y = circle([1.0, 2.0], 0.5)
    assert (x[0], y[0]) == pytest.approx((x[-1], y[-1]))
    np.testing.assert_allclose(np.hypot(np.array(x) - 1, np.array(y) - 2), 0.5)


def test_pca_projection_draws_both_subspaces_coloured_by_truth():
    truth = MIX.labels[PCA.diagnostics["z_rows"]]
    fig = pca_projection_figure(PCA, truth_labels=truth)
    assert isinstance(fig, go.Figure)
    traces = fig.data
    assert len(traces) == 4  # two true components × two panels
    assert {t.xaxis for t in traces} == {"x", "x2"}
    left = [t for t in traces if t.xaxis == "x"]
    assert sum(len(t.x) for t in left) == len(truth)
    np.testing.assert_allclose(left[0].x, PCA.diagnostics["projected"][truth == 0, 0])
    right = [t for t in traces if t.xaxis == "x2"]
    np.testing.assert_allclose(right[0].y, PCA.diagnostics["true_projected"][truth == 0, 1])
    spec = fig.to_plotly_json()
    titles = [a["text"] for a in spec["layout"]["annotations"]]
    assert titles[0].startswith("private subspace") and titles[1].startswith("exact")


def test_rounds_figure_has_each_rounds_balls_and_centres():
    fig = clustering_rounds_figure(PCA)
    names = [t.name for t in fig.data]
    assert names[:3] == ["cluster 1", "cluster 2", "unassigned"]
    for j in (1, 2):
        for what in ("GoodRadius r", "averaging radius r_c", "assignment radius c·r"):
            assert f"round {j}: {what}" in names
    rounds = PCA.diagnostics["rounds"]
    ring = next(t for t in fig.data if t.name == "round 1: assignment radius c·r")
    centre = rounds[0]["centre"][:2]
    np.testing.assert_allclose(np.hypot(np.array(ring.x) - centre[0],
                                        np.array(ring.y) - centre[1]),
                               rounds[0]["assign_radius"])
    marker = next(t for t in fig.data if t.name == "round 1: cell centre → centre")
    assert marker.marker.color[1] == COLORS["private"]
    assert marker.x[1] == pytest.approx(centre[0])
    labels = PCA.diagnostics["labels"]
    assert len(fig.data[0].x) == np.count_nonzero(labels == 0)


def test_rounds_figure_replays_up_to_a_round():
    fig = clustering_rounds_figure(PCA, upto=1)
    names = [t.name for t in fig.data]
    assert not any(name.startswith("round 2") for name in names)
    assert "cluster 2" not in names
    unassigned = next(t for t in fig.data if t.name == "unassigned")
    assert len(unassigned.x) == np.count_nonzero(PCA.diagnostics["labels"] != 0)


def test_candidate_cloud_picks_out_the_aggregate():
    fig = candidate_cloud_figure(SA, true_means=FLAT.means)  # epsilon = inf: the mechanics
    names = [t.name for t in fig.data]
    assert "aggregate (no noise)" in names and "true means" in names
    assert "private" not in fig.layout.title.text
    agg = next(t for t in fig.data if t.name == "aggregate (no noise)")
    np.testing.assert_allclose(np.c_[agg.x, agg.y], SA.estimate["means"])
    assert agg.marker.color == COLORS["private"]
    clouds = [t for t in fig.data if t.mode == "markers" and t.name.startswith("candidates")]
    assert sum(len(t.x) for t in clouds) == len(SA.diagnostics["candidates"])
    assert fig.layout.xaxis.title.text == "x1"


def test_candidate_cloud_names_a_reference_when_the_data_have_no_truth():
    fig = candidate_cloud_figure(SA, true_means=FLAT.means,
                                 reference="non-private EM on your data")
    crosses = next(t for t in fig.data if t.marker.symbol == "x")
    assert crosses.name == "means of non-private EM on your data"
    assert crosses.hovertemplate.startswith("means of non-private EM on your data (")
    assert not any((t.name or "").startswith("true") for t in fig.data)


def test_a_failed_run_says_so_in_the_title():
    failed = sample_aggregate(FLAT.data, Budget(epsilon=4.0, delta=1e-5),
                              rng=np.random.default_rng(0), k=2, radius=FLAT.radius, chunks=400,
                              min_radius=0.001)
    assert failed.failed is not None and not failed.failed.startswith(REFUSED)
    fig = candidate_cloud_figure(failed)
    assert "failed" in fig.layout.title.text
    assert "private aggregate" not in [t.name for t in fig.data]


def test_good_radius_draws_each_rounds_scores_against_t_minus_gamma():
    fig = good_radius_figure(PCA)
    rounds = PCA.diagnostics["rounds"]
    curves = [t for t in fig.data if t.name.endswith("L(r)")]
    assert len(curves) == len(rounds)
    np.testing.assert_allclose(curves[0].y, rounds[0]["scores"])
    np.testing.assert_allclose(curves[0].x, rounds[0]["grid"])
    lines = sorted(shape.y0 for shape in fig.layout.shapes)
    target, gamma = PCA.diagnostics["target"], PCA.diagnostics["gamma"]
    assert lines == pytest.approx([target - gamma, target])
    assert len(good_radius_figure(SA).layout.shapes) == 1  # the mechanics: t only


def test_a_refused_run_has_no_story():
    refused = sample_aggregate(FLAT.data, Budget(epsilon=1.0, delta=1e-5),
                               rng=np.random.default_rng(0), k=2, radius=FLAT.radius, chunks=40)
    assert refused.failed.startswith(REFUSED)
    assert sample_aggregate_story(refused, StoryInputs()) == []
    assert pca_story(refused, StoryInputs()) == []
