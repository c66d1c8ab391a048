"""Closed forms behind the accountants (ALGORITHMS.md §1.1–1.2) against dp-accounting and
brute force."""

import math

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld

from dpviz.privacy import BudgetError
from dpviz.privacy import calibration as cal


def test_analytic_gaussian_unit_value():
    # ALGORITHMS.md §1.1: z = σ/Δ = 1, ε = 1 ⇒ δ = 0.1269367375
    assert cal.analytic_gaussian_delta(1.0, 1.0) == pytest.approx(0.1269367375, abs=5e-11)
    assert cal.analytic_gaussian_epsilon(1.0, 0.1269367375) == pytest.approx(1.0, abs=1e-9)
    assert cal.analytic_gaussian_mu(1.0, 0.1269367375) == pytest.approx(1.0, abs=1e-9)
    # equals dp-accounting's exact Gaussian and (within its discretisation) its PLD
    assert dp_accounting.get_epsilon_gaussian(1.0, 0.1269367375) == pytest.approx(1.0, abs=1e-9)
    pessimistic = pld.from_gaussian_mechanism(1.0).get_delta_for_epsilon(1.0)
    assert 0.1269367375 <= pessimistic <= 0.1269367375 + 1e-4


@pytest.mark.parametrize("mu", [0.01, 0.1, 0.5, 1.0, 3.0, 10.0, 50.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 1e-2])
def test_analytic_gaussian_matches_dp_accounting(mu, delta):
    ours = cal.analytic_gaussian_epsilon(mu, delta)
    theirs = dp_accounting.get_epsilon_gaussian(1 / mu, delta)
    assert ours == pytest.approx(theirs, rel=1e-8, abs=1e-10)
    if ours > 0:
        assert cal.analytic_gaussian_delta(ours, mu) == pytest.approx(delta, rel=1e-7)


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 4.0, 20.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 1e-2])
def test_analytic_gaussian_sigma_matches_dp_accounting(epsilon, delta):
    sigma = 1 / cal.analytic_gaussian_mu(epsilon, delta)
    assert sigma == pytest.approx(dp_accounting.get_sigma_gaussian(epsilon, delta), rel=1e-8)


def test_analytic_gaussian_edges():
    assert cal.analytic_gaussian_delta(1.0, 0.0) == 0.0
    assert cal.analytic_gaussian_delta(1.0, math.inf) == 1.0
    assert cal.analytic_gaussian_epsilon(0.0, 1e-5) == 0.0
    assert cal.analytic_gaussian_epsilon(math.inf, 1e-5) == math.inf
    assert cal.analytic_gaussian_epsilon(1e-3, 0.4) == 0.0  # (0, δ)-DP already
    assert cal.analytic_gaussian_mu(math.inf, 1e-5) == math.inf
    for bad in (0.0, 1.0, -1e-3):
        with pytest.raises(BudgetError, match="delta"):
            cal.analytic_gaussian_epsilon(1.0, bad)
        with pytest.raises(BudgetError, match="delta"):
            cal.analytic_gaussian_mu(1.0, bad)


@pytest.mark.parametrize("epsilon", [0.01, 0.3, 0.99])
@pytest.mark.parametrize("delta", [1e-8, 1e-5])
def test_classic_gaussian(epsilon, delta):
    mu = cal.classic_gaussian_mu(epsilon, delta)
    # σ = Δ·√(2 ln(1.25/δ))/ε
    sigma_over_delta = 1 / mu
    assert sigma_over_delta == pytest.approx(math.sqrt(2 * math.log(1.25 / delta)) / epsilon,
                                             rel=1e-12)
    assert cal.classic_gaussian_epsilon(mu, delta) == pytest.approx(epsilon, rel=1e-12)
    # the classic σ is valid (ε < 1) and never below the analytic one
    assert mu <= cal.analytic_gaussian_mu(epsilon, delta)
    assert cal.analytic_gaussian_delta(epsilon, mu) <= delta


@pytest.mark.parametrize("epsilon", [1.0, 1.5, 10.0])
def test_classic_gaussian_refuses_epsilon_at_least_one(epsilon):
    with pytest.raises(BudgetError, match="epsilon < 1"):
        cal.classic_gaussian_mu(epsilon, 1e-5)


def cks_brute_force(rho, delta):
    """The CKS conversion minimised on a dense grid of log(α − 1)."""
    am1 = np.exp(np.linspace(-15, 25, 400_001))
    alpha = 1 + am1
    values = alpha * rho + (math.log(1 / delta) + am1 * np.log1p(-1 / alpha)
                            - np.log(alpha)) / am1
    return max(0.0, min(float(values.min()), rho + 2 * math.sqrt(rho * math.log(1 / delta))))


@pytest.mark.parametrize("rho", [1e-8, 1e-5, 1e-3, 0.1, 1.0, 10.0, 1e4])
@pytest.mark.parametrize("delta", [1e-12, 1e-5, 1e-2, 0.3])
def test_zcdp_conversions(rho, delta):
    bun_steinke = cal.zcdp_epsilon_bun_steinke(rho, delta)
    assert bun_steinke == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1 / delta)),
                                        rel=1e-14)
    cks = cal.zcdp_epsilon(rho, delta)
    assert cks <= bun_steinke
    assert cks == pytest.approx(cks_brute_force(rho, delta), rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("rho", [1e-4, 0.05, 1.0, 20.0])
@pytest.mark.parametrize("delta", [1e-8, 1e-4])
def test_zcdp_conversion_against_dp_accounting(rho, delta):
    # dp-accounting's ZCDpEvent gives RDP(α) = αρ and converts with the same (CKS) bound on
    # its grid of orders: on a dense grid it agrees; on its default grid it is never below.
    dense = dp_accounting.rdp.RdpAccountant(orders=list(1 + np.geomspace(0.011, 1e6, 20_000)))
    dense.compose(dp_accounting.ZCDpEvent(rho))
    default = dp_accounting.rdp.RdpAccountant()
    default.compose(dp_accounting.ZCDpEvent(rho))
    ours = cal.zcdp_epsilon(rho, delta)
    assert ours == pytest.approx(dense.get_epsilon(delta), rel=1e-4)
    assert ours <= default.get_epsilon(delta) * (1 + 1e-9)


@pytest.mark.parametrize("epsilon", [0.01, 0.5, 1.0, 8.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-4])
def test_zcdp_rho_for_inverts_both_conversions(epsilon, delta):
    simple = cal.zcdp_rho_for(epsilon, delta, conversion="bun-steinke")
    log_inv = math.log(1 / delta)
    assert simple == pytest.approx((math.sqrt(log_inv + epsilon) - math.sqrt(log_inv)) ** 2,
                                   rel=1e-14)
    assert cal.zcdp_epsilon_bun_steinke(simple, delta) == pytest.approx(epsilon, rel=1e-9)
    rho = cal.zcdp_rho_for(epsilon, delta)
    assert rho >= simple
    assert cal.zcdp_epsilon(rho, delta) == pytest.approx(epsilon, rel=1e-9)
    assert cal.zcdp_rho_for(math.inf, delta) == math.inf


def test_zcdp_conversion_edges():
    assert cal.zcdp_epsilon(0.0, 1e-5) == 0.0
    assert cal.zcdp_epsilon(math.inf, 1e-5) == math.inf
    for bad in (0.0, 1.0):
        with pytest.raises(BudgetError, match="delta"):
            cal.zcdp_epsilon(0.5, bad)
        with pytest.raises(BudgetError, match="delta"):
            cal.zcdp_epsilon_bun_steinke(0.5, bad)
