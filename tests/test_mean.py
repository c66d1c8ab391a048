"""The ``mean`` task: Laplace and Gaussian means of data clipped to a public ball."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpviz
from dpviz.estimators.mean import mean_sensitivity, private_mean
from dpviz.estimators.metrics import mean_error
from dpviz.privacy import Budget, BudgetError, PrivacyLeakWarning, audit, clip_to_ball, repeat
from dpviz.privacy.calibration import analytic_gaussian_mu

RNG = np.random.default_rng(20240611)
X = RNG.normal(0.2, 0.3, size=(400, 3))


def run(estimator, data=X, **kw):
    kw.setdefault("epsilon", 1.0)
    if estimator == "gaussian":
        kw.setdefault("delta", 1e-5)
    return dpviz.run("mean", estimator, data, **kw)


# --- sensitivity and noise, read from the ledger ---

def test_mean_sensitivity_closed_forms():
    assert mean_sensitivity(2.5, 40, 4, "laplace") == pytest.approx(2 * 2.5 * 2 / 40)
    assert mean_sensitivity(2.5, 40, 4, "gaussian") == pytest.approx(2 * 2.5 / 40)
    assert mean_sensitivity(1.0, 10, 1, "laplace") == mean_sensitivity(1.0, 10, 1, "gaussian")


@pytest.mark.parametrize(("radius", "n", "d"), [(1.0, 400, 3), (2.5, 40, 4), (0.1, 1000, 1)])
def test_laplace_uses_l1_sensitivity_2r_sqrt_d_over_n(radius, n, d):
    data = np.random.default_rng(n).normal(size=(n, d))
    result = dpviz.run("mean", "laplace", data, epsilon=0.7, radius=radius)
    (release,) = result.ledger.releases
    assert release.mechanism == "laplace"
    assert release.norm == "L1"
    assert release.sensitivity == pytest.approx(2 * radius * math.sqrt(d) / n, rel=1e-12)
    # secure noise is charged at the sensitivity plus its grid's relaxation (0 when seeded)
    assert release.scale == pytest.approx(release.charged / 0.7, rel=1e-12)
    assert release.epsilon == pytest.approx(0.7, rel=1e-12)
    assert release.delta == 0.0
    assert result.diagnostics["noise_scale"] == release.scale


@pytest.mark.parametrize(("radius", "n", "d"), [(1.0, 400, 3), (2.5, 40, 4), (0.1, 1000, 1)])
def test_gaussian_uses_l2_sensitivity_2r_over_n(radius, n, d):
    data = np.random.default_rng(n).normal(size=(n, d))
    result = dpviz.run("mean", "gaussian", data, epsilon=0.7, delta=1e-6, radius=radius,
                       accounting="pld")
    (release,) = result.ledger.releases
    assert release.mechanism == "gaussian"
    assert release.norm == "L2"
    assert release.sensitivity == pytest.approx(2 * radius / n, rel=1e-12)
    # one Gaussian under PLD is the analytic Gaussian of Balle & Wang, exactly
    assert release.scale == pytest.approx(
        release.charged / analytic_gaussian_mu(0.7, 1e-6), rel=1e-9)
    assert release.rho == pytest.approx(release.charged**2 / (2 * release.scale**2))


def test_noise_has_the_ledger_scale():
    """The drawn noise is Laplace(b) / N(0, σ²) with the ledger's scale (a √2 error fails)."""
    data = np.random.default_rng(1).uniform(-0.5, 0.5, size=(50, 1))
    for estimator, dist in (("laplace", stats.laplace), ("gaussian", stats.norm)):
        rng = np.random.default_rng(7)
        results = [run(estimator, data, rng=rng, accounting="pld") for _ in range(3000)]
        scale = results[0].ledger.releases[0].scale
        noise = np.array([r.estimate["mean"][0] - r.diagnostics["true_mean"][0]
                          for r in results])
        assert stats.kstest(noise, dist(0, scale).cdf).pvalue > 1e-3
        assert stats.kstest(noise, dist(0, scale * math.sqrt(2)).cdf).pvalue < 1e-6
        assert stats.kstest(noise, dist(0, scale / math.sqrt(2)).cdf).pvalue < 1e-6


def test_noise_is_independent_across_coordinates():
    data = np.zeros((100, 2))
    rng = np.random.default_rng(3)
    noise = np.array([run("gaussian", data, rng=rng, accounting="pld").estimate["mean"]
                      for _ in range(2000)])
    assert abs(np.corrcoef(noise.T)[0, 1]) < 0.1
    assert np.std(noise[:, 0]) == pytest.approx(np.std(noise[:, 1]), rel=0.1)


# --- clipping and bounds ---

def test_rows_outside_the_ball_are_clipped_and_counted():
    data = np.array([[0.1, 0.0], [3.0, 4.0], [0.0, -2.0], [0.3, 0.4], [-0.6, 0.8]])
    result = run("laplace", data, radius=1.0)
    # rows 2 and 3 lie outside B(0, 1); row 5 is on its boundary (norm 1) and stays
    assert result.diagnostics["rows_clipped"] == 2
    expected = np.array([[0.1, 0.0], [0.6, 0.8], [0.0, -1.0], [0.3, 0.4], [-0.6, 0.8]])
    np.testing.assert_allclose(result.diagnostics["true_mean"], expected.mean(axis=0),
                               rtol=0, atol=1e-15)


def test_clipping_uses_the_public_centre():
    data = np.array([[10.0], [10.5], [11.0], [20.0]])
    result = run("laplace", data, radius=1.0, center=10.0, epsilon=math.inf)
    assert result.diagnostics["rows_clipped"] == 1  # only 20 lies outside [9, 11]
    assert result.estimate["mean"].tolist() == [np.mean([10.0, 10.5, 11.0, 11.0])]
    assert result.choices["center"].tolist() == [10.0]
    assert result.choices["radius"] == 1.0


def test_default_bound_is_the_unit_ball_and_choices_say_so():
    result = run("laplace")
    assert result.choices["radius"] == 1.0
    assert "default unit ball" in result.choices["bound"]
    assert result.not_private is None
    given = run("laplace", radius=2.0)
    assert "public, given" in given.choices["bound"]


def test_epsilon_inf_returns_the_clipped_true_mean_exactly():
    data = np.random.default_rng(5).normal(0.0, 2.0, size=(300, 4))
    expected = clip_to_ball(data, np.zeros(4), 1.5).mean(axis=0)
    for estimator, delta in (("laplace", 0.0), ("laplace", 1e-5), ("gaussian", 1e-5)):
        result = dpviz.run("mean", estimator, data, epsilon=math.inf, delta=delta, radius=1.5,
                           seed=11)
        assert np.array_equal(result.estimate["mean"], expected), (estimator, delta)
        (release,) = result.ledger.releases
        assert release.scale == 0.0
        assert result.diagnostics["noise_scale"] == 0.0
        assert result.ledger.total().epsilon == math.inf


def test_gaussian_epsilon_inf_needs_no_delta():
    result = dpviz.run("mean", "gaussian", X, epsilon=math.inf, delta=0.0)
    assert np.array_equal(result.estimate["mean"], clip_to_ball(X, np.zeros(3), 1.0).mean(0))


def test_radius_data_is_not_private_and_warns():
    data = np.array([[0.0, 3.0], [4.0, 0.0], [1.0, 1.0]])
    with pytest.warns(PrivacyLeakWarning, match="not private: bound read from the data"):
        result = run("laplace", data, radius="data")
    assert result.not_private == "bound read from the data"
    assert result.choices["radius"] == 4.0  # the largest row norm about the centre
    assert result.diagnostics["rows_clipped"] == 0
    assert "not private" in result.choices["bound"]
    assert result.to_dict()["not_private"] == "bound read from the data"


def test_a_public_radius_never_warns():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert run("gaussian", radius=0.5).not_private is None


def test_private_mean_directly_takes_a_centre_vector():
    r = private_mean([[1.0, -1.0], [1.2, -0.8]], Budget(epsilon=math.inf),
                     rng=np.random.default_rng(0), radius=0.5, center=[1.0, -1.0])
    np.testing.assert_allclose(r.estimate["mean"], [1.1, -0.9])
    assert r.diagnostics["rows_clipped"] == 0


# --- accuracy ---

@pytest.mark.parametrize("estimator", ["laplace", "gaussian"])
def test_error_shrinks_as_epsilon_grows(estimator):
    data = np.random.default_rng(9).uniform(-1, 1, size=(200, 2)) / 2
    epsilons = [0.1, 0.5, 2.0, 10.0]
    errors = [np.mean([mean_error(run(estimator, data, epsilon=e, seed=s)) for s in range(60)])
              for e in epsilons]
    assert all(a > b for a, b in zip(errors, errors[1:], strict=False)), errors
    # Laplace: error ∝ 1/ε, so ×100 in ε is ≈ ÷100 in error (Gaussian: a little less)
    assert errors[0] / errors[-1] > 40


def test_error_shrinks_as_n_grows():
    errors = []
    for n in (50, 500, 5000):
        data = np.random.default_rng(n).uniform(-0.5, 0.5, size=(n, 2))
        errors.append(np.mean([mean_error(run("laplace", data, seed=s)) for s in range(40)]))
    assert errors[0] > 5 * errors[1] > 25 * errors[2]


def test_mean_error_is_zero_without_noise():
    assert mean_error(run("gaussian", epsilon=math.inf)) == 0.0


# --- bad inputs ---

def test_gaussian_refuses_pure_dp():
    with pytest.raises(BudgetError, match="the Gaussian mean needs delta > 0; use the Laplace "
                                          "mean for pure DP"):
        run("gaussian", delta=0.0)


def test_gaussian_mean_under_a_rho_budget():
    result = dpviz.run("mean", "gaussian", X, rho=0.5)
    (release,) = result.ledger.releases
    assert release.rho == pytest.approx(0.5)
    # σ = Δ/√(2ρ): no δ is involved (Δ as charged: with the secure grid's relaxation)
    assert release.scale == pytest.approx(release.charged, rel=1e-12)
    assert result.ledger.total().rho == pytest.approx(0.5)


def test_laplace_under_a_rho_budget_spends_rho():
    result = dpviz.run("mean", "laplace", X, rho=0.5)
    assert result.ledger.total().rho == pytest.approx(0.5)
    assert result.ledger.total().epsilon is None


# --- empirical privacy audit through dpviz.run ---
# The worst case of the sensitivity proof, in 1-D: n − 1 rows at the centre and one row at +R
# (D) or −R (D'). The audit's seed is fixed, so a correct estimator cannot fail by chance.

N_AUDIT = 10
D = np.zeros((N_AUDIT, 1))
D[0] = 1.0
D_PRIME = -D
AUDITS = {  # estimator: (epsilon, delta, accounting, trials); Gaussian via exact (PLD) noise
    "laplace": (1.0, 0.0, "linear", 10_000),
    "gaussian": (1.0, 1e-3, "pld", 15_000),
}


def mean_sampler(estimator, duplicate=1):
    """One run of ``dpviz.run('mean', ...)`` per draw; ``duplicate > 1`` breaks it on purpose.

    The broken variant counts every row ``duplicate`` times, so the noise is calibrated for
    ``duplicate·n`` rows — sensitivity divided by ``duplicate`` — while one person still
    moves the mean by 2R/n.
    """
    epsilon, delta, accounting, _ = AUDITS[estimator]

    def once(data, rng):
        result = dpviz.run("mean", estimator, np.repeat(data, duplicate, axis=0),
                           epsilon=epsilon, delta=delta, accounting=accounting, radius=1.0,
                           rng=rng)
        return float(result.estimate["mean"][0])

    return repeat(once)


@pytest.mark.slow  # an audit: 4-8 s (make test, not make check)
@pytest.mark.parametrize("estimator", ["laplace", "gaussian"])
def test_audit_passes_the_mean_estimator(estimator):
    epsilon, delta, _, trials = AUDITS[estimator]
    result = audit(mean_sampler(estimator), D, D_PRIME, claimed_epsilon=epsilon, delta=delta,
                   trials=trials, seed=0)
    assert result.passed, result.verdict()
    assert result.epsilon_lower <= epsilon
    # and the audit is not vacuous: it sees a real, positive leak
    assert result.epsilon_lower > 0.25 * epsilon


@pytest.mark.slow  # an audit: 4-11 s (make test, not make check)
@pytest.mark.parametrize("estimator", ["laplace", "gaussian"])
def test_audit_catches_the_mean_with_half_the_sensitivity(estimator):
    epsilon, delta, _, trials = AUDITS[estimator]
    result = audit(mean_sampler(estimator, duplicate=2), D, D_PRIME, claimed_epsilon=epsilon,
                   delta=delta, trials=trials, seed=0)
    assert not result.passed, result.verdict()
    assert result.epsilon_lower > 1.2 * epsilon
