"""Intervals on private estimates (dpviz.lab.intervals): widths, the coverage rule, no charge."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import norm

from dpviz import run
from dpviz.cli import main
from dpviz.estimators.registry import TASKS
from dpviz.lab import intervals as iv
from dpviz.lab.scenario import Scenario, load_data, run_scenario
from dpviz.viz.intervals import with_interval_bars, with_interval_ellipses

FAMILY = {"k": 3, "d": 2, "separation": 6.0, "weights": "equal", "covariance": "spherical",
          "accounting": "zcdp", "delta": 1e-5}


def table(task: str, estimator: str, coverage: float = 0.9, family=None,
          grid=((1000, 1.0),), parts=("mean", "ellipse", "eigenvalues", "means", "weights")):
    return [{"task": task, "estimator": estimator, "family": family, "n": n, "epsilon": e,
             "coverage": dict.fromkeys(parts, coverage)} for n, e in grid]


def rows(n: int = 200) -> np.ndarray:
    return np.random.default_rng(3).normal(0.2, 0.3, size=(n, 2))


def test_gaussian_interval_width_is_two_z_sigma():
    result = run("mean", "gaussian", rows(), epsilon=1.0, delta=1e-5, seed=0)
    found = iv.mean_intervals(result, table("mean", "gaussian"))
    sigma = result.ledger.releases[-1].scale
    assert found.method == "closed form" and len(found.rows) == 2
    for row, value in zip(found.rows, result.estimate["mean"], strict=True):
        assert 2 * row.half_width == pytest.approx(2 * norm.ppf(0.95) * sigma, rel=1e-12)
        assert row.value == value
    assert found.ellipses["shapes"][0][0, 0] == pytest.approx(-2 * math.log(0.1) * sigma**2)


def test_laplace_half_width_is_b_ln_10():
    result = run("mean", "laplace", rows(), epsilon=1.0, seed=0)
    found = iv.mean_intervals(result, table("mean", "laplace"))
    b = result.ledger.releases[-1].scale
    assert [r.half_width for r in found.rows] == pytest.approx([b * math.log(10)] * 2)
    assert not found.ellipses  # a Laplace release gets no disc


def test_closed_form_covers_the_clipped_mean_about_90_percent():
    x = rows()
    hits = []
    for seed in range(400):
        result = run("mean", "gaussian", x, epsilon=1.0, delta=1e-5, seed=seed)
        found = iv.mean_intervals(result, table("mean", "gaussian"))
        target = result.diagnostics["true_mean"]
        hits += [abs(r.value - t) <= r.half_width for r, t in zip(found.rows, target,
                                                                   strict=True)]
    assert 0.86 < np.mean(hits) < 0.94


def test_low_or_missing_coverage_gives_the_no_interval_sentence():
    result = run("mean", "gaussian", rows(), epsilon=1.0, delta=1e-5, seed=0)
    low = iv.mean_intervals(result, table("mean", "gaussian", coverage=0.85))
    missing = iv.mean_intervals(result, [])
    for found in (low, missing):
        assert not found.shown and found.rows == ()
        assert found.sentence().startswith("no interval: coverage not established")
        assert "(Gaussian mean: measured coverage" in found.sentence()  # a label, not a key
        assert found.to_dict()["values"] == [] and found.to_dict()["shown"] is False


def test_an_unsupported_estimator_has_no_interval():
    s = Scenario.from_dict({"task": "gmm", "estimator": "dplloyd",
                            "data": {"generator": "gmm", "n": 600, "seed": 1},
                            "params": {"epsilon": 1.0}, "seed": 0})
    found = iv.intervals(s, run_scenario(s), 600, rows=[])
    label = TASKS["gmm"]["dplloyd"].label  # its name on the page, never the registry key
    assert found.sentence() == f"no interval: coverage not established ({label} was not measured)"


def test_the_grid_rule_needs_every_corner_measured_high_enough():
    grid = [(1000, 0.3), (1000, 1.0), (10000, 0.3), (10000, 1.0)]
    measured = table("gmm", "dp_em", family=FAMILY, grid=grid)
    measured[0]["coverage"]["means"] = 0.8  # n = 1 000, ε = 0.3
    def at(n, e):
        return iv.measured("gmm", "dp_em", "means", family=FAMILY, n=n, epsilon=e,
                           rows=measured)

    assert at(10000, 1.0) == 0.9 and at(10000, 0.5) == 0.9
    assert at(5000, 0.5) == 0.8  # a corner below the threshold
    assert at(20000, 1.0) is None and at(10000, 2.0) is None  # outside the grid
    assert iv.measured("gmm", "dp_em", "means", family={**FAMILY, "k": 4}, n=10000,
                       epsilon=1.0, rows=measured) is None


def mixture(n: int = 1000) -> tuple[Scenario, object]:
    s = Scenario.from_dict({"task": "gmm", "estimator": "dp_em",
                            "data": {"generator": "gmm", "k": 3, "d": 2, "n": n, "seed": 2},
                            "params": {"epsilon": 1.0, "delta": 1e-5}, "seed": 4})
    return s, run_scenario(s, load_data(s.data))


def test_intervals_charge_nothing_on_the_ledger():
    s, result = mixture()
    before = (result.ledger.total(), len(result.ledger.releases))
    found = iv.mixture_intervals(s, result, 1000, table("gmm", "dp_em", family=FAMILY),
                                 draws=6)
    assert found.method == "bootstrap" and len(found.rows) == 3 + 3 * 2
    assert (result.ledger.total(), len(result.ledger.releases)) == before
    mean = run("mean", "gaussian", rows(), epsilon=1.0, delta=1e-5, seed=0)
    total = mean.ledger.total()
    iv.mean_intervals(mean, table("mean", "gaussian"))
    assert mean.ledger.total() == total


def test_bootstrap_is_the_same_for_the_same_release():
    s, result = mixture()
    measured = table("gmm", "dp_em", family=FAMILY)
    a = iv.mixture_intervals(s, result, 1000, measured, draws=4)
    b = iv.mixture_intervals(s, result, 1000, measured, draws=4)
    assert a.to_dict() == b.to_dict()


def test_a_moved_estimator_parameter_leaves_the_measured_family():
    s, result = mixture()
    moved = Scenario.from_dict({**s.to_dict(), "params": {**s.to_dict()["params"],
                                                          "iterations": 9}})
    assert iv.family_of(s) == FAMILY and iv.family_of(moved) is None
    found = iv.intervals(moved, result, 1000, table("gmm", "dp_em", family=FAMILY))
    assert found.reason.startswith(iv.NO_INTERVAL)


def test_eigenvalue_half_width_is_sigma_times_the_norm_quantile():
    x = np.random.default_rng(0).normal(size=(2000, 3)) * 0.2
    result = run("covariance", "gauss", x, rho=0.5, seed=0)
    found = iv.eigenvalue_intervals(result, table("covariance", "gauss"))
    sigma = result.ledger.releases[-1].scale
    assert [r.half_width for r in found.rows] == pytest.approx(
        [sigma * iv.spectral_quantile(3)] * 3)
    # ‖E‖₂ of a 3 × 3 symmetric Gaussian lies above one entry's |N(0, 1)| quantile
    assert norm.ppf(0.95) < iv.spectral_quantile(3) < 5.0


def test_the_norm_quantile_at_larger_d_sits_near_two_root_d():
    """Fewer draws above d = 10 (in blocks): ‖E‖₂ concentrates at 2√d (Wigner's semicircle)."""
    ratio = iv.spectral_quantile(20) / (2 * math.sqrt(20))
    assert ratio > 1.0 and ratio < 1.15


def test_eigenvalues_above_the_simulated_d_have_no_interval():
    d = iv.MAX_WEYL_D + 1
    x = np.random.default_rng(1).normal(size=(50, d)) * 0.01
    found = iv.eigenvalue_intervals(run("covariance", "gauss", x, rho=0.5, seed=0),
                                    table("covariance", "gauss"))
    assert not found.shown and f"simulated only up to d = {iv.MAX_WEYL_D}" in found.sentence()


def test_interval_bars_go_on_the_named_trace_only():
    import plotly.graph_objects as go

    fig = go.Figure([go.Scatter(y=[3.0, 1.0], name="true"),
                     go.Scatter(y=[2.9, 1.2], name="GaussCov")])
    drawn = with_interval_bars(fig, "GaussCov", [0.4, 0.4]).data
    assert drawn[0].error_y.array is None
    assert list(drawn[1].error_y.array) == [0.4, 0.4] and drawn[1].error_y.visible


def test_text_reads_like_the_issue():
    assert iv.Interval("m", 5.3128, 0.4172).text() == "5.31 ± 0.42 (90 %)"
    assert iv.Interval("m", 1234.5, 31.0).text() == "1234 ± 31 (90 %)"


def test_failed_and_not_private_runs_have_no_interval():
    from dataclasses import replace

    result = run("mean", "gaussian", rows(), epsilon=1.0, delta=1e-5, seed=0)
    s = Scenario.from_dict({"task": "mean", "estimator": "gaussian",
                            "data": {"dataset": "iris"}, "params": {"epsilon": 1.0}})
    assert "(⊥)" in iv.intervals(s, replace(result, failed="x"), 200).sentence()
    assert "not private" in iv.intervals(s, replace(result, not_private="x"), 200).sentence()


def test_ellipse_trace_follows_the_shape_and_axes():
    shapes = np.array([np.diag([4.0, 1.0, 9.0])])
    fig = with_interval_ellipses(__import__("plotly.graph_objects").graph_objects.Figure(),
                                 [[1.0, 0.0, 0.0]], shapes, axes=(0, 2))
    x = np.array([v for v in fig.data[0].x if v is not None])
    y = np.array([v for v in fig.data[0].y if v is not None])
    assert x.max() == pytest.approx(3.0) and y.max() == pytest.approx(3.0)
    assert fig.data[0].line.dash == "dash"


def test_run_json_carries_intervals_and_keeps_its_keys(tmp_path):
    data = tmp_path / "t.csv"
    data.write_text("a,b\n" + "\n".join(f"{v:.3f},{w:.3f}" for v, w in rows(50) * 0.5))
    out = tmp_path / "out.json"
    assert main(["run", "mean", "gaussian", "--data", str(data), "--epsilon", "1",
                 "--delta", "1e-5", "--seed", "1", "--bounds", "1", "--intervals", "--out",
                 str(out)]) == 0
    payload = json.loads(out.read_text())
    assert {"task", "estimator", "seed", "mean", "ledger", "choices", "not_private",
            "failed"} <= set(payload)
    found = payload["intervals"]
    assert found["level"] == 0.9 and "sentence" in found
    if found["shown"]:  # the saved table has the Gaussian mean measured
        sigma = payload["ledger"]["releases"][-1]["scale"]
        assert found["values"][0]["half_width"] == pytest.approx(norm.ppf(0.95) * sigma)


def test_saved_table_is_stamped_and_in_the_manifest():
    saved = json.loads(iv.COVERAGE_PATH.read_text())
    assert saved["made_by"]["command"] == "python bench/intervals.py --save"
    assert all(r["releases"] >= 500 for r in saved["rows"])
    manifest = json.loads((iv.COVERAGE_PATH.parent / "made_by.json").read_text())
    assert iv.COVERAGE_PATH.name in manifest
