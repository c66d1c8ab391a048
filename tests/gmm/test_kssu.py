"""Private PCA + clustering (seed 000 Algorithm 1, ALGORITHMS.md §3)."""

from __future__ import annotations

import json
import math
import re
import warnings

import numpy as np
import pytest

import dpviz
from dpviz import cli
from dpviz.data import gaussian_mixture
from dpviz.estimators.gmm import ESTIMATORS, kssu
from dpviz.estimators.gmm.kssu import (
    DEFAULT_BETA,
    cluster_statistics,
    pair_terms,
    pca_sensitivity,
    private_pca_clustering,
)
from dpviz.estimators.gmm.one_cluster import REFUSED, PreconditionWarning
from dpviz.estimators.metrics import matched_mean_error
from dpviz.privacy import METHODS, Budget, BudgetError, audit, repeat

pytestmark = pytest.mark.filterwarnings(
    "ignore::dpviz.estimators.gmm.one_cluster.PreconditionWarning")

MIX = gaussian_mixture(2, 4, 3000, separation=14, seed=3)
SIGMAS = {"sigma_min": MIX.sigma / 2, "sigma_max": 1.5 * MIX.sigma}


def fit(budget, data=MIX.data, seed=0, **kw):
    kw = {"k": 2, "radius": MIX.radius, **SIGMAS, **kw}
    return private_pca_clustering(data, budget, rng=np.random.default_rng(seed), **kw)


# --- sensitivities on neighbouring datasets ---

def test_pca_sensitivity_is_attained_by_orthogonal_rows_at_the_clip_radius():
    lam = 2.5
    x, y = np.array([lam, 0.0, 0.0]), np.array([0.0, lam, 0.0])
    change = np.linalg.norm(np.outer(x, x) - np.outer(y, y))
    assert change == pytest.approx(pca_sensitivity(lam))
    rng = np.random.default_rng(0)
    for _ in range(300):
        a, b = rng.normal(size=(2, 3))
        a *= lam * rng.uniform(0.0, 1.0) / np.linalg.norm(a)  # inside the clip ball
        b *= lam / np.linalg.norm(b)                          # on its sphere
        assert np.linalg.norm(np.outer(a, a) - np.outer(b, b)) <= pca_sensitivity(lam) + 1e-12


def test_cluster_statistics_move_by_2_in_l2_and_2_in_l1():
    rng = np.random.default_rng(1)
    centres, radii = rng.normal(size=(3, 2)), np.array([0.5, 1.0, 2.0])
    worst_sum = worst_count = 0.0
    for _ in range(300):
        pts = rng.normal(size=(20, 2)) * 2
        labels = rng.integers(-1, 3, size=20)
        other, other_labels = pts.copy(), labels.copy()
        other[0], other_labels[0] = rng.normal(size=2) * 5, rng.integers(-1, 3)
        s1, c1 = cluster_statistics(pts, labels, centres, radii)
        s2, c2 = cluster_statistics(other, other_labels, centres, radii)
        worst_sum = max(worst_sum, float(np.linalg.norm(s1 - s2)))
        worst_count = max(worst_count, float(np.abs(c1 - c2).sum()))
    assert worst_sum <= 2 + 1e-12 and worst_count <= 2
    # opposite points on one cluster's sphere: the L2 bound 2 is attained
    s1, _ = cluster_statistics(np.array([[3.0, 0.0]]), np.array([0]), np.zeros((1, 2)),
                               np.array([1.0]))
    s2, _ = cluster_statistics(np.array([[-3.0, 0.0]]), np.array([0]), np.zeros((1, 2)),
                               np.array([1.0]))
    assert np.linalg.norm(s1 - s2) == pytest.approx(2.0)


def test_pair_terms_move_by_sigma_max_squared_and_one_pair():
    rng = np.random.default_rng(2)
    lo, hi = 0.1, 0.4
    worst = [0.0, 0.0]
    for _ in range(500):
        pts = rng.normal(size=(12, 3)) * 0.3
        labels = rng.integers(-1, 2, size=12)
        other, other_labels = pts.copy(), labels.copy()
        i = int(rng.integers(12))
        other[i], other_labels[i] = rng.normal(size=3) * 3, rng.integers(-1, 2)
        (s1, c1), (s2, c2) = (pair_terms(pts, labels, 2, lo, hi),
                              pair_terms(other, other_labels, 2, lo, hi))
        worst = [max(worst[0], float(np.abs(s1 - s2).sum())),
                 max(worst[1], float(np.abs(c1 - c2).sum()))]
    assert worst[0] <= hi**2 + 1e-12 and worst[1] <= 1
    assert worst[0] == pytest.approx(hi**2)  # a whole clipped term can vanish


def test_the_ledger_records_every_release_with_its_sensitivity_and_part():
    result = fit(Budget(epsilon=20.0, delta=1e-5, method="linear"))
    assert result.failed is None
    by_name = {r.name: r for r in result.ledger.releases}
    assert by_name["second moment (PCA)"].part == "Y"
    assert by_name["second moment (PCA)"].norm == "Frobenius"
    clip = (1 + SIGMAS["sigma_max"] * (2 + math.sqrt(2 * math.log(2 * 3000 / DEFAULT_BETA))))
    assert by_name["second moment (PCA)"].sensitivity == pytest.approx(pca_sensitivity(clip))
    assert {r.part for r in result.ledger.releases} == {"Y", "Z"}
    assert by_name["good radius, round 1"].sensitivity == 2.0
    assert by_name["cell histogram, round 1"].sensitivity == 2.0
    assert by_name["cluster sums"].sensitivity == 2.0
    assert by_name["cluster counts"].sensitivity == 2.0
    assert by_name["pair variance sums"].sensitivity == pytest.approx(SIGMAS["sigma_max"] ** 2)
    assert by_name["pair counts"].sensitivity == 1.0
    r_c = result.diagnostics["rounds"][0]["average_radius"] / MIX.radius
    assert by_name["centre sum, round 1"].sensitivity == pytest.approx(2 * r_c)


# --- the budget ---

@pytest.mark.parametrize("method", METHODS)
def test_ledger_total_meets_the_budget_under_every_method(method):
    budget = Budget(epsilon=20.0, delta=1e-5, method=method)
    result = fit(budget)
    total = result.ledger.total()
    assert result.failed is None
    assert total.epsilon <= 20.0 and total.delta <= 1e-5
    assert total.method == (method if method in ("linear", "advanced", "pld") else "pld")
    assert total.epsilon == pytest.approx(20.0, rel=1e-3)
    if method in ("zcdp", "ma", "rdp"):
        assert f"pld instead of {method}" in result.choices["accounting"]


@pytest.mark.parametrize("budget", [Budget(epsilon=1.0), Budget(rho=0.5)])
def test_pure_and_rho_budgets_are_refused_with_a_sentence(budget):
    with pytest.raises(BudgetError, match="needs an \\(epsilon, delta\\) budget with delta > 0"):
        fit(budget)


# --- what is computed ---

def test_epsilon_inf_recovers_the_means_on_well_separated_data():
    result = fit(Budget(epsilon=math.inf))
    assert result.failed is None
    assert matched_mean_error(MIX.means, result.estimate["means"]) < 0.1 * MIX.sigma
    np.testing.assert_allclose(np.sort(result.estimate["weights"]), np.sort(MIX.weights),
                               atol=0.05)
    variances = result.estimate["covariances"][:, 0, 0]
    np.testing.assert_allclose(variances, (MIX.sigma * MIX.radius) ** 2, rtol=0.25)
    # the private subspace is the exact one when there is no noise
    np.testing.assert_allclose(np.abs(result.diagnostics["subspace"]),
                               np.abs(result.diagnostics["true_subspace"]), atol=1e-9)


def test_means_at_epsilon_inf_are_the_cluster_averages():
    result = fit(Budget(epsilon=math.inf))
    z = MIX.data[result.diagnostics["z_rows"]]
    labels = result.diagnostics["labels"]
    for i, mean in enumerate(result.estimate["means"]):
        np.testing.assert_allclose(mean, z[labels == i].mean(axis=0), atol=1e-9)


def test_a_generous_budget_recovers_the_means():
    result = fit(Budget(epsilon=20.0, delta=1e-5, method="linear"))
    assert result.failed is None
    assert matched_mean_error(MIX.means, result.estimate["means"]) < 0.5 * MIX.sigma


def test_same_seed_same_output_and_another_seed_differs():
    budget = Budget(epsilon=20.0, delta=1e-5, method="linear")
    first, again, other = fit(budget, seed=5), fit(budget, seed=5), fit(budget, seed=6)
    np.testing.assert_array_equal(first.estimate["means"], again.estimate["means"])
    assert first.to_dict() == again.to_dict()
    assert not np.array_equal(first.estimate["means"], other.estimate["means"])


def test_low_dimension_runs_warns_and_says_which_conditions_fail():
    mix = gaussian_mixture(3, 2, 3000, separation=6, seed=0)
    with pytest.warns(PreconditionWarning, match="accuracy guarantee does not apply"):
        result = private_pca_clustering(mix.data, Budget(epsilon=8.0, delta=1e-5),
                                        rng=np.random.default_rng(0), k=3, radius=mix.radius)
    conditions = result.choices["preconditions"]
    assert conditions["dimension"].startswith("fails")
    assert "no PCA" in result.choices["split"]
    assert result.ledger.total().epsilon <= 8.0
    out = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert out["failed"] is None or out["means"] is None


def test_a_certain_bottom_is_refused_before_anything_is_spent():
    """At n = 3 000, epsilon = 1 each round's t = 500 is below GoodRadius's slack: refused."""
    mix = gaussian_mixture(3, 2, 3000, separation=6, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PreconditionWarning)  # nothing was looked at
        result = private_pca_clustering(mix.data, Budget(epsilon=1.0, delta=1e-5),
                                        rng=np.random.default_rng(0), k=3, radius=mix.radius)
    assert result.failed.startswith(REFUSED)
    assert "t = n_Z/(2k) = 500 points, no more than GoodRadius's slack" in result.failed
    needed = int(re.search(r"preconditions hold from about n = ([\d,]+) rows",
                           result.failed).group(1).replace(",", ""))
    assert result.ledger.releases == () and result.estimate["means"] is None

    def runs(n):
        return kssu.can_run(n=n, d=2, k=3, epsilon=1.0, delta=1e-5) is None

    low, high = 3_000, 10_000  # bisect for the smallest n that succeeds (4 614 here)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if runs(middle) else (middle, high)
    assert 4_500 < high < 4_800 and runs(high) and not runs(high - 1)
    assert high <= needed <= high * 1.02 and runs(needed)


def test_a_failed_round_is_an_honest_bottom():
    result = fit(Budget(epsilon=0.05, delta=1e-5, method="linear"))
    assert result.failed is not None and "round" in result.failed
    assert result.estimate["means"] is None
    assert result.ledger.total().epsilon <= 0.05


# --- bad inputs, registry, CLI ---

@pytest.mark.parametrize(("data", "kw", "message"), [
    (np.array([[0.0, 1.0], [np.nan, 0.0], [1.0, 1.0]]), {"k": 1},
     "missing or infinite value in row 2"),
    (MIX.data[:3], {"k": 5}, "k = 5"),
    (MIX.data[:1], {"k": 1}, "row"),
    (MIX.data, {"k": 2, "epsilon": 0.0}, "epsilon must be > 0"),
    (MIX.data, {"k": 2, "delta": 1.0}, "delta must be"),
    (MIX.data, {"k": 2, "sigma_min": 0.3, "sigma_max": 0.1}, "sigma_max must be >= sigma_min"),
    (MIX.data, {"k": 0}, "k must be"),
])
def test_bad_inputs_are_sentences(data, kw, message):
    kw = {"epsilon": 1.0, "delta": 1e-5, **kw}
    with pytest.raises(ValueError, match=message):
        dpviz.run("gmm", "private_pca_clustering", data, seed=0, radius=1.0, **kw)


def test_registered_and_runnable_through_dpviz_run():
    entry = ESTIMATORS["private_pca_clustering"]
    assert entry.notion == "approximate"
    assert {p.name for p in entry.params if p.choice} >= {"beta", "clustering_share",
                                                         "assign_slack"}
    result = dpviz.run("gmm", "private_pca_clustering", MIX.data, k=2, epsilon=1.0,
                       delta=1e-5, seed=0, radius=MIX.radius, **SIGMAS)
    assert result.estimator == "private_pca_clustering"
    assert result.ledger.total().epsilon <= 1.0


def test_cli_runs_it(tmp_path, capsys):
    path = tmp_path / "x.csv"
    np.savetxt(path, MIX.data, delimiter=",")
    code = cli.main(["run", "gmm", "private_pca_clustering", "--data", str(path), "--k", "2",
                     "--epsilon", "1", "--delta", "1e-5", "--radius", str(MIX.radius),
                     "--set", f"sigma_min={SIGMAS['sigma_min']}",
                     "--set", f"sigma_max={SIGMAS['sigma_max']}"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["estimator"] == "private_pca_clustering"
    assert out["ledger"]["total"]["epsilon"] <= 1.0


# --- empirical audit of the whole estimator (1-D, k = 1, worst-case neighbours) ---

FAR = np.concatenate([np.linspace(-1.0, -0.6, 100), np.linspace(0.6, 1.0, 99)])
AUDIT_D = np.concatenate([np.zeros(201), FAR])[:, None]          # the row at 0 …
AUDIT_D_PRIME = np.concatenate([np.zeros(200), FAR, [0.8]])[:, None]  # … moved away
AUDIT_BUDGET = Budget(epsilon=8.0, delta=1e-5, method="linear")


def released_count(data, rng):
    """Run the estimator; return round 1's noisy count of rows near the cell centre."""
    result = private_pca_clustering(data, AUDIT_BUDGET, rng=rng, k=1, radius=1.0,
                                    sigma_min=0.05, sigma_max=0.1)
    return float(result.diagnostics["rounds"][0]["noisy_count"])


@pytest.mark.slow
def test_audit_of_the_estimator_stays_below_its_epsilon():
    """Whole runs on D and D′, which differ in one row of the crowd round 1 finds: the count
    moves by 1 under Laplace noise of ε = 8·(1/2)·(1/6) = 2/3 (the count's share); the
    measured lower bound stays below the claimed total ε = 8 (seed 0, 2 000 trials: ε̂ = 0.63,
    ≥ 0.49 at 95% — the count's own 2/3, seen almost whole)."""
    result = audit(repeat(released_count), AUDIT_D, AUDIT_D_PRIME, claimed_epsilon=8.0,
                   delta=1e-5, trials=2_000, seed=0)
    assert result.passed, result.verdict()
    assert result.epsilon_lower > 0.3
