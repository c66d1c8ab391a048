"""Intervals on private estimates (dpviz.lab.intervals): widths, the coverage rule, no charge;
DP-EM's closed form and its bootstrap fallback, covariance entries, the plain reasons."""

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
          grid=((1000, 1.0),), parts=("mean", "ellipse", "eigenvalues", "means", "weights",
                                      "entries", "entries, pure"), method=None):
    return [{"task": task, "estimator": estimator, "family": family, "n": n, "epsilon": e,
             "coverage": dict.fromkeys(parts, coverage),
             **({"method": method} if method else {})} for n, e in grid]


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
    label = TASKS["gmm"]["dplloyd"].label.split(" (")[0]  # its name, never the registry key
    assert found.sentence() == (f"no interval: coverage not established ({label}: "
                                f"{iv.NO_MIXTURE_INTERVAL['dplloyd']})")
    assert "dplloyd" not in found.sentence()


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
    found = iv.mixture_intervals(s, result, 1000, table("gmm", "dp_em", family=FAMILY,
                                                        method="bootstrap"), draws=6)
    assert found.method == "bootstrap" and len(found.rows) == 3 + 3 * 2
    assert (result.ledger.total(), len(result.ledger.releases)) == before
    mean = run("mean", "gaussian", rows(), epsilon=1.0, delta=1e-5, seed=0)
    total = mean.ledger.total()
    iv.mean_intervals(mean, table("mean", "gaussian"))
    assert mean.ledger.total() == total


def test_bootstrap_is_the_same_for_the_same_release():
    s, result = mixture()
    measured = table("gmm", "dp_em", family=FAMILY, method="bootstrap")
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


# --- DP-EM's closed form and its fallback; covariance entries; plain reasons (issues 33, 36) --

def both(closed: float, bootstrap: float) -> list[dict]:
    """A table with DP-EM's closed form and bootstrap measured at (1 000, ε = 1)."""
    return (table("gmm", "dp_em", closed, family=FAMILY, method="closed form")
            + table("gmm", "dp_em", bootstrap, family=FAMILY, method="bootstrap"))


def test_mixture_closed_form_is_used_where_measured_and_runs_nothing(monkeypatch):
    s, result = mixture()

    def no_reruns(*args, **kwargs):
        raise AssertionError("the closed form must not re-run the estimator")

    monkeypatch.setattr(iv, "bootstrap_replicates", no_reruns)
    before = (result.ledger.total(), len(result.ledger.releases))
    found = iv.mixture_intervals(s, result, 1000, both(0.9, 0.9))
    assert found.method == "noise and sampling" and len(found.rows) == 3 + 3 * 2
    assert (result.ledger.total(), len(result.ledger.releases)) == before
    assert found.ellipses["shapes"].shape == (3, 2, 2)
    assert "true component means and weights" in found.sentence()


def test_mixture_falls_back_to_the_bootstrap_only_where_the_closed_form_fell_short():
    s, result = mixture()
    assert iv.mixture_intervals(s, result, 1000, both(0.85, 0.9), draws=4).method == "bootstrap"
    low = iv.mixture_intervals(s, result, 1000, both(0.85, 0.86), draws=4)
    assert not low.shown and "measured 86 % of simulated releases covered here" in low.reason
    unmeasured = iv.mixture_intervals(s, result, 1000, [])
    assert "DP-EM was not measured at this shape, n and ε" in unmeasured.reason


def test_mixture_spread_adds_the_last_noise_to_the_sampling_spread():
    s, result = mixture()
    sd, shapes = iv.mixture_spread(result, 1000)
    weights = np.asarray(result.estimate["weights"])
    named = {r.name: r for r in result.ledger.releases}
    last = result.choices["iterations"]
    noise = named[f"weights, iteration {last}"].scale
    k = len(weights)
    expected = np.sqrt(weights * (1 - weights) / 1000
                       + noise**2 * (1 - 2 * weights + k * weights**2))
    assert sd == pytest.approx(expected, rel=1e-12)
    radius = result.choices["radius"]
    for j in range(k):
        mean_noise = radius * named[f"mean {j + 1}, iteration {last}"].scale
        # the noise alone is a floor: sampling and the noisy count only widen it
        assert (np.diag(shapes[j]) >= mean_noise**2).all()
        assert np.linalg.eigvalsh(shapes[j]).min() > 0


def test_mixture_spread_shrinks_with_n():
    small, large = (iv.mixture_spread(mixture(n)[1], n)[1] for n in (1000, 10_000))
    assert np.trace(large, axis1=1, axis2=2).max() < np.trace(small, axis1=1, axis2=2).min()


def test_other_mixture_estimators_say_why_in_their_own_words():
    for name in ("private_pca_clustering", "sample_aggregate"):
        s = Scenario.from_dict({"task": "gmm", "estimator": name,
                                "data": {"generator": "gmm", "n": 2000, "seed": 1},
                                "params": {"epsilon": 2.0, "delta": 1e-5}, "seed": 0})
        found = iv.intervals(s, run_scenario(s), 2000, rows=[])
        if found.reason == iv.none("the run gave no answer (⊥)").reason:
            continue
        label = TASKS["gmm"][name].label
        assert found.reason == f"{iv.NO_INTERVAL} ({label}: {iv.NO_MIXTURE_INTERVAL[name]})"
        assert name not in found.reason


def covariance_rows(n: int = 2000, d: int = 3, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=(n, d)) * np.linspace(0.4, 0.1, d)
    return x / np.maximum(1.0, np.linalg.norm(x, axis=1))[:, None]


def test_gausscov_entries_are_z_sigma_and_lapcov_b_ln_10():
    x = covariance_rows()
    gauss = run("covariance", "gauss", x, epsilon=1.0, delta=1e-5, seed=0)
    found = iv.entry_intervals(gauss, table("covariance", "gauss"))
    sigma = gauss.ledger.releases[-1].scale
    assert found.method == "entries" and len(found.rows) == 6
    assert [r.name for r in found.rows][:3] == ["covariance[1][1]", "covariance[1][2]",
                                                "covariance[1][3]"]
    assert [r.half_width for r in found.rows] == pytest.approx([iv.Z * sigma] * 6, rel=1e-12)
    assert found.by_name()["covariance[2][3]"].value == gauss.estimate["covariance"][1, 2]
    laplace = run("covariance", "gauss", x, epsilon=1.0, seed=0)  # δ = 0: LapCov
    b = laplace.ledger.releases[-1].scale
    pure = iv.entry_intervals(laplace, table("covariance", "gauss"))
    assert [r.half_width for r in pure.rows] == pytest.approx([b * math.log(10)] * 6)
    only_gaussian = table("covariance", "gauss", parts=("entries",))
    assert not iv.entry_intervals(laplace, only_gaussian).shown  # LapCov measured on its own


def test_gausscov_entries_cover_about_90_percent():
    x = covariance_rows(n=1000)
    target = (x.T @ x / len(x))[np.triu_indices(3)]
    hits = []
    for seed in range(300):
        result = run("covariance", "gauss", x, epsilon=1.0, delta=1e-5, seed=seed)
        found = iv.entry_intervals(result, table("covariance", "gauss"))
        hits += [abs(r.value - t) <= r.half_width for r, t in zip(found.rows, target,
                                                                   strict=True)]
    assert 0.86 < np.mean(hits) < 0.94


def test_intervals_dispatches_covariance_entries_and_keeps_eigenvalues_the_default():
    s = Scenario.from_dict({"task": "covariance", "estimator": "gauss",
                            "data": {"dataset": "digits"}, "params": {"rho": 0.5}, "seed": 0})
    result = run("covariance", "gauss", covariance_rows(), rho=0.5, seed=0)
    rows = table("covariance", "gauss")
    assert iv.intervals(s, result, 2000, rows).method == "weyl"
    assert iv.intervals(s, result, 2000, rows, part="entries").method == "entries"
    separate = Scenario.from_dict({**s.to_dict(), "estimator": "separate"})
    got = iv.intervals(separate, run("covariance", "separate", covariance_rows(), rho=0.5,
                                     seed=0), 2000, rows, part="entries")
    label = TASKS["covariance"]["separate"].label.split(" (")[0]  # no bracketed variants
    assert got.reason == f"{iv.NO_INTERVAL} ({label}'s entries: {iv.NO_ENTRY_INTERVAL['separate']})"
    assert "separate" not in got.reason


def test_measured_keeps_one_kind_when_asked():
    rows = both(0.8, 0.95)
    assert iv.measured("gmm", "dp_em", "means", family=FAMILY, n=1000, epsilon=1.0,
                       rows=rows) == 0.8  # every kind
    assert iv.measured("gmm", "dp_em", "means", family=FAMILY, n=1000, epsilon=1.0, rows=rows,
                       method="bootstrap") == 0.95


def test_the_sbm_error_rate_says_why_it_has_no_interval():
    s = Scenario.from_dict({"task": "sbm", "estimator": "randomized_response",
                            "data": {"generator": "sbm", "n": 200, "degree": 20, "seed": 1},
                            "params": {"epsilon": 2.0}, "seed": 0})
    loaded = load_data(s.data)
    found = iv.intervals(s, run_scenario(s, loaded), 200)
    label = TASKS["sbm"]["randomized_response"].label
    assert found.reason == f"{iv.NO_INTERVAL} ({label}'s error rate: {iv.NO_ERROR_RATE_INTERVAL})"
    assert "vertices are not independent draws" in found.sentence()


def test_saved_table_has_the_closed_form_of_every_mixture_setting():
    saved = [r for r in iv.coverage_rows() if r["task"] == "gmm"]
    closed = {(r["n"], r["epsilon"]) for r in saved if r.get("method") == "closed form"}
    assert len(closed) == 9 and all(r["releases"] >= 500 for r in saved)
    for r in saved:  # the bootstrap only where the closed form fell short
        if r.get("method") == "bootstrap":
            twin = next(c for c in saved if c.get("method") == "closed form"
                        and (c["n"], c["epsilon"]) == (r["n"], r["epsilon"]))
            assert min(twin["coverage"]["means"], twin["coverage"]["weights"]) < iv.THRESHOLD
