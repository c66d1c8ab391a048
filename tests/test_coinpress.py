"""CoinPress mean and covariance (Biswas et al. 2020): sensitivities on neighbouring data, noise
scales, the budget split, and accuracy from a prior far too wide."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpviz
from dpviz.estimators.coinpress_mean import coinpress_mean, schedule, tail_radius
from dpviz.estimators.covariance.coinpress import coinpress_covariance, step_sigma
from dpviz.estimators.registry import estimator
from dpviz.privacy import Budget, BudgetError
from dpviz.privacy.audit import recording


def replayed(run, data, neighbour):
    """The releases of ``run`` on D, and on D′ with every release handed D's output back."""
    with recording() as first:
        run(data)
    with recording(replay=first.releases) as second:
        run(neighbour)
    assert second.replayed
    return first.releases, second.releases


def far_neighbours(rows, rng, count=20, reach=50.0):
    for _ in range(count):
        other = rows.copy()
        other[rng.integers(len(rows))] = rng.normal(size=rows.shape[1]) * reach
        yield other


# --- the mean ---

def mean_run(**params):
    def run(x):
        return coinpress_mean(x, Budget(rho=0.5), rng=np.random.default_rng(3), **params)
    return run


@pytest.mark.parametrize("params", [{"radius": 100.0}, {"radius": 1e4, "scale": 3.0},
                                    {"radius": 5.0, "steps": 4, "center": 2.0}])
def test_each_mean_step_moves_by_at_most_its_sensitivity_on_neighbours(params):
    """Earlier releases fixed (replayed), a replaced row moves each step's clipped mean by at
    most the declared 2τᵢ/n, in L2."""
    rng = np.random.default_rng(1)
    rows = rng.normal(2.0, 1.0, size=(60, 3))
    for neighbour in far_neighbours(rows, rng):
        first, second = replayed(mean_run(**params), rows, neighbour)
        assert len(first) == len(second) >= 1
        for a, b in zip(first, second, strict=True):
            assert a.sensitivity == b.sensitivity and a.scale == b.scale
            assert a.change(b) <= a.sensitivity * (1 + 1e-12)


def test_the_audit_pair_attains_the_full_mean_sensitivity_at_every_step():
    pair = estimator("mean", "coinpress").neighbours()
    first, second = replayed(mean_run(**pair.params), pair.data, pair.neighbour)
    assert len(first) >= 1
    for a, b in zip(first, second, strict=True):
        assert a.change(b) == pytest.approx(a.sensitivity, rel=1e-9)


def test_mean_sensitivities_and_noise_are_the_public_schedule_whatever_the_data():
    n, d, prior = 200, 4, 1e3
    rows = np.random.default_rng(0).normal(size=(n, d))
    results = [coinpress_mean(x, Budget(rho=0.5), rng=np.random.default_rng(0), radius=prior,
                              steps=5) for x in (rows, rows * 1e6)]
    multipliers = [r.scale / r.sensitivity for r in results[0].ledger.releases]
    public = schedule(n, d, prior, multipliers)
    for result in results:
        releases = result.ledger.releases
        assert [r.sensitivity for r in releases] == pytest.approx(
            [2 * tau / n for tau in public.clips], rel=1e-12)
        assert [r.scale for r in releases] == pytest.approx(public.sigmas, rel=1e-9)
        np.testing.assert_allclose(result.diagnostics["radii"], public.radii[1:])


def test_the_mean_budget_goes_three_quarters_to_the_last_step():
    result = dpviz.run("mean", "coinpress", np.zeros((100, 2)), rho=0.5, steps=10, seed=0)
    rhos = [r.rho for r in result.ledger.releases]
    assert rhos == pytest.approx([0.5 / 36] * 9 + [0.375])
    assert result.ledger.total().rho == pytest.approx(0.5)


@pytest.mark.parametrize("method", ["pld", "rdp", "linear"])
def test_the_mean_composes_under_every_method_within_the_budget(method):
    result = dpviz.run("mean", "coinpress", np.zeros((100, 2)), epsilon=1.0, delta=1e-5,
                       accounting=method, radius=1e3, seed=0)
    assert len(result.ledger.releases) == result.choices["steps"] > 1
    assert result.ledger.total().epsilon <= 1.0 + 1e-9


def test_the_mean_noise_has_the_ledger_scale():
    """One step, rows inside its ball: the release is the rows' mean plus N(0, σ²), σ the
    ledger's (a √2 error fails)."""
    rows = np.random.default_rng(1).uniform(-0.5, 0.5, size=(50, 1))
    rng = np.random.default_rng(7)
    runs = [coinpress_mean(rows, Budget(rho=0.05), rng=rng, steps=1) for _ in range(3000)]
    sigma = runs[0].ledger.releases[0].scale
    noise = np.array([r.estimate["mean"][0] for r in runs]) - rows.mean()
    assert stats.kstest(noise, stats.norm(0, sigma).cdf).pvalue > 1e-3
    for wrong in (sigma * math.sqrt(2), sigma / math.sqrt(2)):
        assert stats.kstest(noise, stats.norm(0, wrong).cdf).pvalue < 1e-6


def test_the_mean_shrinks_a_prior_ten_thousand_times_too_wide():
    """d = 5, n = 4 000, ρ = 0.5, prior radius 10⁴·√d: the median L2 error over 20 runs is
    within 1.3 times the non-private mean's (bench/coinpress.py measures the paper's d = 50)."""
    rng = np.random.default_rng(5)
    private, plain = [], []
    for _ in range(20):
        x = rng.normal(3.0, 1.0, size=(4000, 5))
        result = coinpress_mean(x, Budget(rho=0.5), rng=rng, radius=1e4 * math.sqrt(5))
        private.append(np.linalg.norm(result.estimate["mean"] - 3.0))
        plain.append(np.linalg.norm(x.mean(axis=0) - 3.0))
    assert np.median(private) <= 1.3 * np.median(plain)


def test_the_mean_leaves_the_data_intact_and_refuses_pure_dp():
    rows = np.random.default_rng(2).normal(size=(30, 2)) * 100
    kept = rows.copy()
    coinpress_mean(rows, Budget(rho=0.1), rng=np.random.default_rng(0), steps=3)
    assert np.array_equal(rows, kept)
    with pytest.raises(BudgetError, match="CoinPress adds Gaussian noise"):
        dpviz.run("mean", "coinpress", rows, epsilon=1.0)


def test_tail_radius_bounds_gaussian_norms():
    norms = np.linalg.norm(np.random.default_rng(0).normal(size=(20_000, 50)), axis=1)
    assert np.mean(norms > tail_radius(50, 0.01)) < 0.01


# --- the covariance ---

def covariance_run(**params):
    def run(x):
        return coinpress_covariance(x, Budget(rho=0.5), rng=np.random.default_rng(3), **params)
    return run


@pytest.mark.parametrize("params", [{"radius": 10.0}, {"radius": 1e3, "steps": 5}])
def test_each_covariance_step_moves_by_at_most_its_sensitivity_on_neighbours(params):
    """Earlier releases fixed, a replaced row moves each step's whitened second moment by at
    most √2γ²/n in Frobenius norm."""
    rng = np.random.default_rng(4)
    rows = rng.normal(size=(80, 3)) * [1.0, 3.0, 0.2]
    gamma = tail_radius(3, 0.1)
    for neighbour in far_neighbours(rows, rng, reach=20.0):
        first, second = replayed(covariance_run(**params), rows, neighbour)
        for a, b in zip(first, second, strict=True):
            assert a.sensitivity == pytest.approx(math.sqrt(2) * gamma**2 / 80)
            assert a.change(b) <= a.sensitivity * (1 + 1e-12)


def test_the_audit_pair_nearly_attains_the_covariance_sensitivity():
    pair = estimator("covariance", "coinpress").neighbours()
    first, second = replayed(covariance_run(**pair.params), pair.data, pair.neighbour)
    assert all(a.change(b) >= 0.9 * a.sensitivity for a, b in zip(first, second, strict=True))


def test_the_covariance_noise_has_the_ledger_scale():
    """One step: the symmetric noise on each upper entry is N(0, σ²) with σ = γ²/(n√ρ)."""
    rows = np.random.default_rng(1).normal(size=(200, 3)) * 0.1
    draws = []
    for seed in range(400):
        with recording() as seen:
            coinpress_covariance(rows, Budget(rho=0.2), rng=np.random.default_rng(seed),
                                 steps=1, radius=1.0)
        (release,) = seen.releases
        draws.append(np.ravel(release.output)[[0, 1, 2, 4, 5, 8]]
                     - np.ravel(release.value)[[0, 1, 2, 4, 5, 8]])
    sigma = step_sigma(200, 3, 0.2)
    assert release.scale == pytest.approx(sigma)
    noise = np.ravel(draws)
    assert stats.kstest(noise, stats.norm(0, sigma).cdf).pvalue > 1e-3
    assert stats.kstest(noise, stats.norm(0, sigma * math.sqrt(2)).cdf).pvalue < 1e-6


def mahalanobis(estimate, truth):
    root = np.linalg.inv(np.linalg.cholesky(truth))
    return float(np.linalg.norm(root @ estimate @ root.T - np.eye(len(truth))))


def test_the_covariance_whitens_a_prior_ten_thousand_times_too_wide():
    """d = 4, n = 6 000, ρ = 0.5, Σ with eigenvalues 1 … 100 and a prior r² = 10⁴·100:
    Mahalanobis error within 1.3 times the non-private second moment's (median of 10)."""
    rng = np.random.default_rng(6)
    truth = np.diag([1.0, 4.0, 25.0, 100.0])
    private, plain = [], []
    for _ in range(10):
        x = rng.normal(size=(6000, 4)) @ np.sqrt(truth)
        result = coinpress_covariance(x, Budget(rho=0.5), rng=rng, radius=1e3, floor=1.0)
        private.append(mahalanobis(result.estimate["covariance"], truth))
        plain.append(mahalanobis(x.T @ x / len(x), truth))
    assert np.median(private) <= 1.3 * np.median(plain)


def test_the_covariance_budget_and_its_refusals():
    rows = np.random.default_rng(0).normal(size=(100, 2))
    result = dpviz.run("covariance", "coinpress", rows, rho=0.4, steps=3, seed=0)
    assert [r.rho for r in result.ledger.releases] == pytest.approx([0.05, 0.05, 0.3])
    with pytest.raises(BudgetError, match="CoinPress covariance adds Gaussian noise"):
        dpviz.run("covariance", "coinpress", rows, epsilon=1.0)
    with pytest.raises(BudgetError, match="compose in zCDP"):
        dpviz.run("covariance", "coinpress", rows, epsilon=1.0, delta=1e-5, accounting="pld")
