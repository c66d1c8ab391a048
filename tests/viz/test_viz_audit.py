"""The audit figures, built from real audits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpviz.lab.audit import audit_estimator
from dpviz.lab.broken_variants import audit_broken
from dpviz.viz.audit import audit_comparison, audit_histograms
from dpviz.viz.style import COLORS, DATASET_COLORS


@pytest.fixture(scope="module")
def audits():
    return (audit_estimator("mean", "laplace", epsilon=1.0, seed=0),
            audit_broken("noise_reused", epsilon=1.0, seed=0))


def test_comparison_plots_the_claims_and_the_intervals(audits):
    good, broken = audits
    fig = audit_comparison(audits)
    claims, measured, reach = fig.data
    assert list(claims.y) == list(measured.y) == [good.label, broken.label]
    assert list(claims.x) == [1.0, 1.0]
    assert measured.x[0] == good.result.epsilon_estimate
    lower = np.asarray(measured.x) - np.asarray(measured.error_x.arrayminus)
    assert lower == pytest.approx([good.result.epsilon_lower, broken.result.epsilon_lower])
    assert list(measured.marker.color) == [COLORS["true"], COLORS["private"]]
    # the broken variant's upper end is infinite: drawn to the axis edge, said in the hover
    assert math.isinf(broken.result.epsilon_upper)
    edge = fig.layout.xaxis.range[1] / 1.05
    assert measured.x[1] + measured.error_x.array[1] == pytest.approx(edge)
    assert measured.customdata[1][2] == "∞" and measured.customdata[1][3] == "caught"
    assert fig.layout.xaxis.title.text == "ε"
    # what a perfect audit of each ledger typically shows at the same run count
    assert list(reach.y) == [good.label, broken.label]
    assert list(reach.x) == pytest.approx([good.attainable, broken.attainable])
    assert 0 < good.attainable < 1.0


@pytest.mark.slow  # an audit of many runs: 5-17 s (make test, not make check)
def test_the_typical_perfect_bound_follows_the_ledger_and_the_runs():
    """Laplace at a pure ε = 1 reaches 0.80 at 1 000 runs a side (the pure-DP curve's
    closed form, dpviz.privacy.audit's doctest) and more with more runs; a Gaussian
    release at the same claim reaches far less: the ceiling the module docstring states."""
    laplace = audit_estimator("mean", "laplace", epsilon=1.0, seed=0)
    gauss = audit_estimator("mean", "gaussian", epsilon=1.0, delta=1e-5, seed=0)
    more = audit_estimator("mean", "laplace", epsilon=1.0, runs=20_000, seed=0)
    assert 0.3 < laplace.attainable <= 0.81
    assert gauss.attainable < 0.1 < laplace.attainable
    assert laplace.attainable < more.attainable < 1.0
    assert "a perfect audit of this ledger typically shows about" in laplace.sentence()


def test_histograms_show_both_samples_and_the_threshold(audits):
    good = audits[0]
    fig = audit_histograms(good)
    d, d_prime, line = fig.data
    assert d.type == d_prime.type == "histogram"
    np.testing.assert_array_equal(d.x, good.outputs)
    np.testing.assert_array_equal(d_prime.x, good.outputs_neighbour)
    assert d.marker.color == DATASET_COLORS["D"] and d_prime.marker.color == DATASET_COLORS["D′"]
    assert list(line.x) == [good.result.threshold] * 2
    assert fig.layout.xaxis.title.text.replace("<br>", " ") == good.statistic
