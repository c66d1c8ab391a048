"""The lens factories, built from real engine results."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpviz import viz
from dpviz.lab import lens
from dpviz.privacy import AuditResult, Budget
from dpviz.viz.style import COLORS, DATASET_COLORS

VALUES = [0.0, 0.35, 0.9, 0.42]


def look(mechanism="laplace", epsilon=1.0, delta=1e-5, query="sum"):
    return lens.look(VALUES, lens.neighbour(VALUES, 0, 1.0), query=query, mechanism=mechanism,
                     budget=Budget(epsilon=epsilon, delta=delta, method="linear"), lo=0.0,
                     hi=1.0, rng=np.random.default_rng(0))


def test_output_densities_plot_the_view():
    view = look()
    fig = viz.output_densities(view)
    d, d_prime, true_d, true_d_prime, released = fig.data
    assert d.type == "scatter" and d.fill == "tozeroy"
    np.testing.assert_array_equal(d.x, view.grid)
    np.testing.assert_array_equal(d.y, view.density_d)
    np.testing.assert_array_equal(d_prime.y, view.density_d_prime)
    assert d.line.color == DATASET_COLORS["D"] and d_prime.line.color == DATASET_COLORS["D′"]
    assert list(true_d.x) == [view.answer_d] * 2 and true_d.line.color == COLORS["true"]
    assert list(true_d_prime.x) == [view.answer_d_prime] * 2
    assert list(released.x) == [view.released] and released.marker.color == COLORS["private"]
    assert fig.layout.xaxis.title.text == "released sum"
    assert fig.layout.yaxis.title.text == "density"
    assert len(viz.output_densities(view, show_release=False).data) == 4


def test_privacy_loss_laplace_stays_inside_the_band():
    view = look()
    fig = viz.privacy_loss(view, 1.0)
    loss, plus, minus = fig.data
    np.testing.assert_array_equal(loss.y, view.privacy_loss)
    assert list(plus.y) == [1.0, 1.0] and list(minus.y) == [-1.0, -1.0]
    assert not fig.layout.shapes
    assert fig.layout.yaxis.title.text == "privacy loss (nats)"


def test_privacy_loss_gaussian_shades_both_tails():
    view = look("gaussian", delta=1e-3)
    fig = viz.privacy_loss(view, 1.0)
    shapes = fig.layout.shapes
    assert len(shapes) == 2
    inside = (view.grid > shapes[0].x1) & (view.grid < shapes[1].x0)
    assert np.all(np.abs(view.privacy_loss[inside]) <= 1.0 + 1e-6)
    assert np.all(np.abs(view.privacy_loss[view.grid < shapes[0].x0]) > 1.0)
    assert fig.data[-1].name == "|loss| > ε"


def result(lower, estimate, upper, claimed=1.0):
    return AuditResult(lower, estimate, upper, claimed, 0.0, 10_000, 0.5, ">=", False,
                       (0.1, 0.2, 0.3), (0.01, 0.02, 0.03))


def test_audit_chart_dot_with_interval():
    fig = viz.audit_chart(result(0.8, 0.95, 1.1))
    claimed, measured = fig.data
    assert list(claimed.x) == [1.0, 1.0]
    assert list(measured.x) == [0.95]
    assert measured.error_x.arrayminus[0] == pytest.approx(0.15)
    assert measured.error_x.array[0] == pytest.approx(0.15)
    assert measured.marker.color == COLORS["true"]
    assert fig.layout.xaxis.title.text == "ε"


def test_audit_chart_violation_and_infinite_upper_end():
    fig = viz.audit_chart(result(1.5, 2.0, math.inf))
    measured = fig.data[1]
    assert measured.marker.color == COLORS["private"]
    assert math.isfinite(measured.error_x.array[0])
    assert fig.layout.annotations[0].text == "upper end ∞"


def test_real_audit_round_trip():
    view = look("gaussian", delta=1e-3, query="count")
    audit = lens.audit_view(view, epsilon=1.0, delta=1e-3, trials=20_000, seed=0)
    fig = viz.audit_chart(audit)
    assert fig.data[1].x[0] == audit.epsilon_estimate
