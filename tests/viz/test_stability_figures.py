"""Figures of the stability learner: W heatmap, the test, the centres."""

from __future__ import annotations

import math

import numpy as np

from dpviz.core.entry import StoryInputs
from dpviz.estimators.gmm.stability import stability_mixture
from dpviz.privacy import Budget
from dpviz.viz.stability import (
    clustering_matrix_heatmap,
    stability_centres_figure,
    stability_story,
    stability_test_chart,
)

_rng = np.random.default_rng(1)
CENTRES = np.array([[0.0, 0.0], [6.0, 0.0], [3.0, 5.2]])
LABELS = _rng.integers(3, size=400)
X = CENTRES[LABELS] + _rng.normal(0, 1, size=(400, 2))
RESULT = stability_mixture(X, Budget(epsilon=math.inf), k=3, subsample=60, rows=60,
                           radius=10.0, rng=np.random.default_rng(0))


def test_heatmap_orders_rows_by_label():
    labels = LABELS[RESULT.diagnostics["subsample"]]
    fig = clustering_matrix_heatmap(RESULT, labels)
    z = np.asarray(fig.data[0].z)
    order = np.argsort(labels, kind="stable")
    assert np.array_equal(z, RESULT.diagnostics["W"][np.ix_(order, order)])
    assert fig.data[0].type == "heatmap"
    soft = clustering_matrix_heatmap(RESULT, soft=True)
    assert np.array_equal(np.asarray(soft.data[0].z), RESULT.diagnostics["phi"])


def test_test_chart_shows_the_mass_and_threshold():
    fig = stability_test_chart(RESULT).to_plotly_json()  # epsilon = inf: the mechanics
    assert list(fig["data"][0]["y"]) == [RESULT.diagnostics["mass"]]
    assert fig["layout"]["shapes"][0]["y0"] == RESULT.diagnostics["test_threshold"]
    assert fig["layout"]["title"]["text"] == "The stability test (no noise): passed"


def test_centres_figure_plots_the_centres():
    fig = stability_centres_figure(RESULT, X, true_means=CENTRES)
    assert [t.name for t in fig.data] == ["data", "centroids", "true means", "centres"]
    assert list(fig.data[-1].x) == RESULT.estimate["means"][:, 0].tolist()


def test_centres_figure_names_a_reference_when_the_data_have_no_truth():
    fig = stability_centres_figure(RESULT, X, true_means=CENTRES,
                                   reference="non-private EM on your data")
    assert [t.name for t in fig.data] == ["data", "centroids",
                                          "means of non-private EM on your data", "centres"]


def test_a_rejected_run_draws_without_centres():
    uniform = np.random.default_rng(3).uniform(-10, 10, size=(400, 2))
    failed = stability_mixture(uniform, Budget(epsilon=math.inf), k=3, subsample=60, rows=60,
                               radius=10.0, rng=np.random.default_rng(0))
    assert failed.failed
    assert "rejected" in stability_test_chart(failed).to_plotly_json()["layout"]["title"]["text"]
    names = [t["name"] for t in stability_centres_figure(failed, X).to_plotly_json()["data"]]
    assert names == ["data"]
    refused = stability_mixture(X, Budget(epsilon=1.0, delta=1e-5), k=3, subsample=60, rows=60,
                                radius=10.0, rng=np.random.default_rng(0))
    assert stability_story(refused, StoryInputs(rows=X)) == []
