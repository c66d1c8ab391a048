"""The Gaussian mixtures factory: traces, plotted means, ellipse radii."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz import viz
from dpviz.data import gaussian_mixture
from dpviz.viz.style import COLORS


@pytest.fixture(scope="module")
def mixture():
    return gaussian_mixture(3, 3, 500, covariance="full", seed=1)


def test_traces_and_means(mixture):
    private = mixture.means + 0.01
    fig = viz.mixture_figure(mixture.data, mixture.means, private,
                             true_covariances=mixture.covariances,
                             private_covariances=mixture.covariances * 1.5,
                             cloud=np.vstack([private, private]), axes=(0, 2))
    names = [t.name for t in fig.data]
    assert names == ["data (rows drawn)", "true 1σ ellipses", "true 2σ ellipses",
                     "private 1σ ellipses", "private 2σ ellipses",
                     "private means, repeated runs", "true means", "private means"]
    assert all(t.type == "scatter" for t in fig.data)  # SVG: WebGL costs every replot
    data, *_, cloud, true, est = fig.data
    np.testing.assert_array_equal(data.x, mixture.data[:, 0])
    np.testing.assert_array_equal(data.y, mixture.data[:, 2])
    np.testing.assert_array_equal(true.x, mixture.means[:, 0])
    np.testing.assert_array_equal(true.y, mixture.means[:, 2])
    np.testing.assert_array_equal(est.x, private[:, 0])
    np.testing.assert_array_equal(est.y, private[:, 2])
    assert list(true.text) == list(est.text) == ["1", "2", "3"]
    assert true.marker.color == COLORS["true"] and est.marker.color == COLORS["private"]
    assert fig.data[1].line.color == COLORS["true"]
    assert fig.data[3].line.color == COLORS["private"]
    assert len(cloud.x) == 6
    assert fig.layout.xaxis.title.text == "x1" and fig.layout.yaxis.title.text == "x3"


def test_without_covariances_no_ellipses(mixture):
    fig = viz.mixture_figure(mixture.data, mixture.means, mixture.means)
    assert [t.name for t in fig.data] == ["data (rows drawn)", "true means", "private means"]


@pytest.mark.parametrize("n_sigma", [1.0, 2.0])
def test_ellipse_radii_are_the_square_roots_of_the_eigenvalues(n_sigma):
    cov = np.array([[0.05, 0.02], [0.02, 0.01]])
    centre = np.array([0.3, -0.2])
    x, y = viz.ellipse(centre, cov, n_sigma, points=721)
    radius = np.hypot(x - centre[0], y - centre[1])
    eigenvalues = np.linalg.eigvalsh(cov)
    assert radius.max() == pytest.approx(n_sigma * np.sqrt(eigenvalues[1]), rel=1e-4)
    assert radius.min() == pytest.approx(n_sigma * np.sqrt(eigenvalues[0]), rel=1e-4)
    # every point is on the contour (x - μ)ᵀ Σ⁻¹ (x - μ) = n_sigma²
    offsets = np.vstack([x - centre[0], y - centre[1]])
    distance = np.einsum("ij,ij->j", offsets, np.linalg.solve(cov, offsets))
    np.testing.assert_allclose(distance, n_sigma**2, rtol=1e-9)


def test_figure_ellipses_follow_the_projected_covariances(mixture):
    fig = viz.mixture_figure(mixture.data, mixture.means, mixture.means,
                             true_covariances=mixture.covariances, axes=(1, 2))
    one_sigma = fig.data[1]
    x = np.array([v for v in one_sigma.x], dtype=float)
    first = x[:np.flatnonzero(np.isnan(x))[0]]
    expected, _ = viz.ellipse(mixture.means[0, [1, 2]],
                              mixture.covariances[0][np.ix_([1, 2], [1, 2])])
    np.testing.assert_allclose(first, expected)


def test_a_reference_fit_is_named_as_such_never_true():
    """A user's file has no truth: the black components are named by the reference (issue 17)."""
    data, means, cov = np.zeros((4, 2)), np.eye(2), np.stack([np.eye(2)] * 2)
    fig = viz.mixture_figure(data, means, means, true_covariances=cov, private_covariances=cov,
                             reference="non-private EM on your data")
    names = [t.name for t in fig.data]
    assert not any(name.startswith("true") for name in names)
    assert {"means of non-private EM on your data", "1σ ellipses of non-private EM on your data",
            "2σ ellipses of non-private EM on your data"} <= set(names)
    hover = fig.data[-2].hovertemplate
    assert hover.startswith("mean %{text} of non-private EM on your data")
    plain = viz.mixture_figure(data, means, means)
    assert [t.name for t in plain.data][-2:] == ["true means", "private means"]
