"""The Covariance page's figure factories: trace kinds, axes, plotted values, shared scales."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpviz.viz import covariance as cov_viz
from dpviz.viz import figure_table
from dpviz.viz.style import COLORS


def _symmetric(rng: np.random.Generator, d: int) -> np.ndarray:
    a = rng.normal(size=(d, d))
    return a @ a.T / d


def test_heatmaps_share_one_colour_scale_and_plot_the_matrices():
    rng = np.random.default_rng(0)
    truth, noisy = _symmetric(rng, 5), _symmetric(rng, 5) * 3 - 1
    fig = cov_viz.matrix_heatmaps([("true Σ", truth), ("GaussCov", noisy)],
                                  tick_labels=list("abcde"), title="T")
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    assert [t.name for t in fig.data] == ["true Σ", "GaussCov"]
    np.testing.assert_array_equal(fig.data[0].z, truth)
    np.testing.assert_array_equal(fig.data[1].z, noisy)
    top = max(np.abs(truth).max(), np.abs(noisy).max())
    assert {(t.zmin, t.zmax) for t in fig.data} == {(-top, top)}
    assert [t.showscale for t in fig.data] == [False, True]
    assert list(fig.data[0].x) == list("abcde")
    assert fig.layout.yaxis.autorange == "reversed" and fig.layout.yaxis2.scaleanchor == "x2"
    assert [a.text for a in fig.layout.annotations] == ["true Σ", "GaussCov"]
    assert fig.layout.title.text == "T"


def test_heatmaps_wrap_and_refuse_bad_input():
    panels = [(f"m{i}", np.zeros((3, 3))) for i in range(5)]
    fig = cov_viz.matrix_heatmaps(panels)
    assert fig.data[3].xaxis == "x4" and fig.data[4].yaxis == "y5"
    assert fig.layout.yaxis4.domain[1] < fig.layout.yaxis.domain[0]  # second row below
    assert {(t.zmin, t.zmax) for t in fig.data} == {(-1.0, 1.0)}  # all zero: a unit scale
    with pytest.raises(ValueError, match="at least one"):
        cov_viz.matrix_heatmaps([])
    with pytest.raises(ValueError, match="same size"):
        cov_viz.matrix_heatmaps([("a", np.eye(2)), ("b", np.eye(3))])
    with pytest.raises(ValueError, match="square"):
        cov_viz.matrix_heatmaps([("a", np.ones((2, 3)))])


def test_heatmap_cells_reach_the_csv_download():
    fig = cov_viz.matrix_heatmaps([("true Σ", [[1.0, 2.0], [2.0, 5.0]])])
    table = figure_table(fig)
    assert table["value"].tolist() == [1.0, 2.0, 2.0, 5.0]


def test_spectra_true_first_then_estimators_in_their_colours():
    fig = cov_viz.spectra_figure([3.0, 2.0, 1.0], [("gauss", "GaussCov", [3.5, 1.5, 0.0]),
                                                   ("adaptive", "AdaptiveCov", [3.1, 2.0, 0.8])])
    assert [t.type for t in fig.data] == ["scatter"] * 3
    assert [t.name for t in fig.data] == ["true", "GaussCov", "AdaptiveCov"]
    np.testing.assert_array_equal(fig.data[0].x, [1, 2, 3])
    np.testing.assert_array_equal(fig.data[1].y, [3.5, 1.5, 0.0])
    assert fig.data[0].line.color == COLORS["true"]
    assert fig.data[2].line.color == COLORS["private"]
    assert fig.data[1].line.color == cov_viz.ESTIMATOR_COLORS["gauss"]
    assert fig.layout.xaxis.title.text.startswith("index i")
    assert fig.layout.yaxis.title.text == "eigenvalue λᵢ"


def test_ellipses_follow_the_chosen_block():
    truth = np.diag([4.0, 1.0, 9.0])
    est = np.array([[1.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 1.0]])
    fig = cov_viz.ellipses_figure(truth, [("separate", "SeparateCov", est)], axes=(2, 0),
                                  axis_names=["a", "b", "c"])
    assert [t.name for t in fig.data] == ["true", "SeparateCov"]
    true_x, true_y = np.asarray(fig.data[0].x), np.asarray(fig.data[0].y)
    # block of coordinates (c, a): semi-axes √9 = 3 along x and √4 = 2 along y
    assert np.abs(true_x).max() == pytest.approx(3.0)
    assert np.abs(true_y).max() == pytest.approx(2.0)
    assert np.abs(np.asarray(fig.data[1].x)).max() == pytest.approx(1.0)
    assert (fig.layout.xaxis.title.text, fig.layout.yaxis.title.text) == ("c", "a")
    assert fig.layout.yaxis.scaleanchor == "x"
    assert fig.data[1].line.color == cov_viz.ESTIMATOR_COLORS["separate"]


def test_error_chart_with_bounds_where_stated():
    rows = [("gauss", "GaussCov", 9e-3, 2e-2), ("zero", "Zero", 2.2e-2, float("nan"))]
    fig = cov_viz.error_chart(rows)
    assert [t.type for t in fig.data] == ["scatter", "scatter"]
    assert [t.name for t in fig.data] == ["error", "theoretical bound"]
    assert list(fig.data[0].y) == ["GaussCov", "Zero"]
    assert list(fig.data[0].x) == [9e-3, 2.2e-2]
    assert list(fig.data[0].text) == ["0.009", "0.022"]
    assert list(fig.data[0].marker.color) == [cov_viz.ESTIMATOR_COLORS["gauss"],
                                              cov_viz.ESTIMATOR_COLORS["zero"]]
    assert list(fig.data[1].y) == ["GaussCov"] and list(fig.data[1].x) == [2e-2]
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.xaxis.range[0] < np.log10(9e-3) < np.log10(2.2e-2) < \
        fig.layout.xaxis.range[1]
    assert fig.layout.xaxis.title.text == cov_viz.ERROR_AXIS
    without = cov_viz.error_chart([("zero", "Zero", 1e-2, float("nan"))])
    assert [t.name for t in without.data] == ["error"]


def test_adaptive_story_marks_the_chosen_radius():
    tau = 2.0 ** -np.arange(12)
    bias = np.minimum(0.04, np.r_[0.0, 0.0, 1e-3, 4e-3, 9e-3, [0.04] * 7])
    proxies = {"tau": tau, "bias": bias, "E_S": tau * 1e-2, "E_G": tau ** 2 * 5e-2}
    fig = cov_viz.adaptive_proxies_figure(proxies, clip_radius=0.25, branch="SeparateCov")
    assert [t.name for t in fig.data] == ["bias bound B(τ)", "E_S(τ): SeparateCov's proxy",
                                          "E_G(τ): GaussCov's proxy",
                                          "chosen τ̃ = 0.25 → SeparateCov"]
    np.testing.assert_array_equal(fig.data[0].x, tau)  # the whole grid, for the CSV
    drawn = np.asarray(fig.data[0].y, dtype=float)
    assert np.isnan(drawn[:2]).all()  # zeros are left off the log axis
    np.testing.assert_array_equal(drawn[2:], bias[2:])
    np.testing.assert_allclose(fig.data[2].y, tau ** 2 * 5e-2)
    assert list(fig.data[3].x) == [0.25, 0.25]
    assert (fig.layout.xaxis.type, fig.layout.yaxis.type) == ("log", "log")
    # the bias saturates from τ = 2⁻⁵; shown: two octaves below that, up to r = 1
    low, high = fig.layout.xaxis.range
    assert low == pytest.approx(np.log10(2.0 ** -7) - 0.05)
    assert high == pytest.approx(0.05)


def test_paper_curves_one_line_per_estimator_and_panel():
    table = pd.DataFrame({
        "estimator": ["gauss", "gauss", "separate", "separate"] * 2,
        "x": [10, 100, 10, 100] * 2,
        "mean_error": [1e-3, 1e-2, 2e-3, 5e-3, 1e-4, 1e-3, 3e-4, 6e-4],
        "std_error": [1e-4] * 8,
        "series": ["n = 1000"] * 4 + ["n = 16000"] * 4,
    })
    fig = cov_viz.paper_curves(table, labels={"gauss": "GaussCov", "separate": "SeparateCov",
                                              "zero": "Zero"},
                               x_title="dimension d", title="Figure 2")
    assert [t.name for t in fig.data] == ["GaussCov, n = 1000", "SeparateCov, n = 1000",
                                          "GaussCov, n = 16000", "SeparateCov, n = 16000"]
    np.testing.assert_array_equal(fig.data[1].y, [2e-3, 5e-3])
    np.testing.assert_array_equal(fig.data[0].error_y.array, [1e-4, 1e-4])
    assert [t.showlegend for t in fig.data] == [True, True, False, False]
    assert fig.data[2].xaxis == "x2"
    assert fig.layout.xaxis.title.text == "dimension d" and fig.layout.xaxis.type == "log"
    assert fig.layout.yaxis.title.text == cov_viz.ERROR_AXIS
    single = cov_viz.paper_curves(table.drop(columns="series").iloc[:4],
                                  labels={"gauss": "GaussCov"}, x_title="d", title="t")
    assert [t.name for t in single.data] == ["GaussCov"]
