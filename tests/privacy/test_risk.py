"""What ε means: attack advantage, trade-off curves and posterior bounds against closed forms."""

import math

import numpy as np
import pytest
from scipy.stats import norm

from dpviz.privacy import Budget, Ledger, gaussian, laplace
from dpviz.privacy.accounting import PrivacyEvent
from dpviz.privacy.risk import (
    advantage_bound,
    posterior_bound,
    risk_of_epsilon,
    risk_of_events,
    risk_of_gaussian,
    risk_of_ledger,
    risk_of_plan,
    tradeoff_epsilon_delta,
    tradeoff_gaussian,
)

FPR = np.concatenate([np.linspace(0.0, 1.0, 4001), np.geomspace(1e-10, 1e-2, 400)])


def laplace_tradeoff_tpr(alpha: np.ndarray, eps: float) -> np.ndarray:
    """TPR of T(Lap(0, 1), Lap(ε, 1)) (Dong, Roth & Su 2019, Appendix: the Laplace curve)."""
    a = np.asarray(alpha, dtype=float)
    beta = np.where(a < math.exp(-eps) / 2, 1 - math.exp(eps) * a,
                    np.where(a <= 0.5, math.exp(-eps) / (4 * np.maximum(a, 1e-300)),
                             math.exp(-eps) * (1 - a)))
    return 1 - beta


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0, 4.0])
def test_pure_epsilon_advantage_is_tanh(eps):
    risk = risk_of_epsilon(eps, 0.0)
    assert risk.advantage == pytest.approx((math.exp(eps) - 1) / (math.exp(eps) + 1), rel=1e-12)
    fpr, tpr = risk.curve(2001)
    assert np.max(tpr - fpr) == pytest.approx(risk.advantage, abs=1e-12)
    assert risk.posterior_max == pytest.approx(math.exp(eps) / (1 + math.exp(eps)))


@pytest.mark.parametrize(("eps", "delta"), [(0.5, 1e-5), (1.0, 0.01), (3.0, 0.2)])
def test_approximate_advantage_closed_form(eps, delta):
    expected = (math.exp(eps) - 1 + 2 * delta) / (math.exp(eps) + 1)
    assert advantage_bound(eps, delta) == pytest.approx(expected, rel=1e-12)
    risk = risk_of_epsilon(eps, delta)
    assert risk.advantage == pytest.approx(expected, rel=1e-12)
    fpr, tpr = risk.best
    assert tpr - fpr == pytest.approx(expected)
    assert float(risk.tpr(fpr)) == pytest.approx(tpr)


@pytest.mark.parametrize("mu", [0.25, 1.0, 3.0])
def test_gaussian_plan_is_gdp(mu):
    # count releases of Δ/σ each compose to μ = √count·Δ/σ
    risk = risk_of_gaussian(1.0, 2.0 / mu, count=4)
    assert risk.mu == pytest.approx(mu)
    assert risk.advantage == pytest.approx(2 * norm.cdf(mu / 2) - 1, rel=1e-12)
    expected = 1 - norm.cdf(norm.ppf(1 - FPR) - mu)
    np.testing.assert_allclose(risk.tpr(FPR), expected, atol=1e-9)
    fpr, tpr = risk.curve(4001)
    assert np.max(tpr - fpr) == pytest.approx(risk.advantage, abs=1e-6)


@pytest.mark.parametrize("mu", [0.3, 1.0, 3.5])
def test_ledger_of_one_gaussian_matches_the_exact_curve(mu):
    ledger = Ledger(Budget(epsilon=5.0, delta=1e-5, method="pld"))
    gaussian(0.0, sensitivity=1.0, sigma=1 / mu, rng=np.random.default_rng(0), ledger=ledger,
             name="mean")
    exact = risk_of_gaussian(1.0, 1 / mu, delta=1e-5)
    risk = risk_of_ledger(ledger)
    assert risk.source == "profile"
    gap = risk.tpr(FPR) - exact.tpr(FPR)
    assert gap.min() >= -1e-9  # the envelope never draws a weaker attacker
    assert gap.max() < 3e-3
    assert risk.advantage == pytest.approx(exact.advantage, abs=2e-4)
    assert risk.advantage >= exact.advantage - 1e-9
    assert risk.epsilon == pytest.approx(exact.epsilon, rel=1e-6)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_ledger_of_one_laplace_is_the_laplace_curve(eps):
    ledger = Ledger(Budget(epsilon=eps))
    laplace(0.0, sensitivity=1.0, scale=1 / eps, rng=np.random.default_rng(0), ledger=ledger,
            name="count")
    risk = risk_of_ledger(ledger)
    assert risk.delta == 0.0
    assert risk.epsilon == pytest.approx(eps)
    # the exact Laplace advantage (TV) is below the pure-ε bound tanh(ε/2)
    assert risk.advantage == pytest.approx(1 - math.exp(-eps / 2), abs=1e-3)
    assert risk.advantage < risk_of_epsilon(eps, 0.0).advantage
    gap = risk.tpr(FPR) - laplace_tradeoff_tpr(FPR, eps)
    assert gap.min() >= -1e-9
    assert gap.max() < 5e-3
    assert risk.posterior_max == pytest.approx(math.exp(eps) / (1 + math.exp(eps)))


def make_risks():
    return [risk_of_epsilon(1.0, 1e-5), risk_of_epsilon(0.2, 0.05), risk_of_gaussian(1.0, 1.5),
            risk_of_events({None: [PrivacyEvent("laplace", epsilon=0.3, count=5),
                                   PrivacyEvent("gaussian", mu=0.2, count=3)]}, 1e-5)]


@pytest.mark.parametrize("risk", make_risks(), ids=["eps-delta", "loose", "gaussian", "mixed"])
def test_curve_is_monotone_concave_and_symmetric(risk):
    fpr = np.linspace(0.0, 1.0, 2001)
    tpr = risk.tpr(fpr)
    assert np.all(np.diff(tpr) >= -1e-12)  # TPR grows with FPR
    assert np.all(tpr >= fpr - 1e-12)  # never below random guessing
    slopes = np.diff(tpr) / np.diff(fpr)
    assert np.all(np.diff(slopes) <= 1e-7)  # concave TPR ⇔ convex trade-off β
    # symmetric: β = f(α) ⇒ f(β) = α, i.e. the reflected point lies on the curve
    beta = 1 - tpr
    inside = (beta > 1e-6) & (fpr < beta)
    np.testing.assert_allclose(1 - risk.tpr(beta[inside]), fpr[inside], atol=2e-6)
    assert tpr[0] <= risk.delta + 1e-9 or risk.source != "epsilon-delta"
    assert tpr[-1] == pytest.approx(1.0)


def test_stronger_guarantee_means_weaker_attack():
    advantages = [risk_of_epsilon(e, 1e-5).advantage for e in (0.1, 0.5, 1, 2, 4)]
    assert advantages == sorted(advantages)
    curves = [risk_of_gaussian(1.0, s).tpr(FPR) for s in (4.0, 2.0, 1.0)]
    assert np.all(curves[0] <= curves[1] + 1e-12) and np.all(curves[1] <= curves[2] + 1e-12)


def test_posterior_bound():
    assert float(posterior_bound(0.5, math.log(3))) == pytest.approx(0.75)
    p = np.array([0.0, 0.01, 0.5, 0.99, 1.0])
    eps = 1.3
    expected = p * math.exp(eps) / (p * math.exp(eps) + 1 - p)
    np.testing.assert_allclose(posterior_bound(p, eps), expected, atol=1e-12)
    np.testing.assert_allclose(posterior_bound(p, 0.0), p, atol=1e-12)
    assert posterior_bound(p, math.inf).tolist() == [0.0, 1.0, 1.0, 1.0, 1.0]
    assert np.all(posterior_bound(p, eps) >= p)


def test_no_release_is_no_risk_and_no_noise_is_total_risk():
    empty = risk_of_ledger(Ledger(Budget(epsilon=1.0)))
    assert empty.advantage == 0.0 and empty.posterior_max == pytest.approx(0.5)
    np.testing.assert_allclose(empty.tpr(FPR), np.clip(FPR, 0, 1), rtol=0, atol=1e-15)
    total = risk_of_events({None: [PrivacyEvent("gaussian", mu=math.inf)]}, 1e-5)
    assert total.advantage == 1.0 and total.posterior_max == 1.0
    assert risk_of_epsilon(math.inf).advantage == 1.0


def test_parallel_parts_take_the_worst_part():
    a = PrivacyEvent("laplace", epsilon=0.5)
    b = PrivacyEvent("laplace", epsilon=1.0)
    parts = risk_of_events({"first": [a], "second": [b]}, 1e-5)
    alone = risk_of_events({None: [b]}, 1e-5)
    assert parts.advantage == pytest.approx(alone.advantage, abs=1e-9)
    assert parts.epsilon == pytest.approx(alone.epsilon) == pytest.approx(1.0, rel=1e-4)


def test_laplace_plan_and_pure_composition():
    risk = risk_of_plan("laplace", 1.0, 10.0, count=20, delta=1e-6)
    assert risk.epsilon <= 2.0 + 1e-9  # never above the linear sum
    assert 0 < risk.advantage < advantage_bound(2.0, 0.0)


def test_gaussian_plan_without_delta_has_no_finite_epsilon():
    risk = risk_of_gaussian(1.0, 2.0, delta=0.0)
    assert math.isinf(risk.epsilon) and risk.posterior_max == 1.0
    assert risk.advantage == pytest.approx(2 * norm.cdf(0.25) - 1)


def test_to_dict_is_the_cli_contract():
    out = risk_of_epsilon(1.0, 1e-5).to_dict(points=11)
    assert set(out) >= {"advantage", "posterior_max", "tradeoff"}
    assert out["tradeoff"][0] == [0.0, pytest.approx(1e-5)]
    assert out["tradeoff"][-1] == [1.0, 1.0]
    assert all(len(pair) == 2 for pair in out["tradeoff"])


def test_tradeoff_helpers_at_the_ends():
    assert tradeoff_epsilon_delta([0.0, 1.0], 2.0, 0.1).tolist() == pytest.approx([0.1, 1.0])
    assert tradeoff_gaussian([0.0, 1.0], 2.0).tolist() == [0.0, 1.0]


@pytest.mark.parametrize(("call", "match"), [
    (lambda: risk_of_epsilon(-1.0, 0.0), "epsilon must be > 0"),
    (lambda: risk_of_epsilon(1.0, 1.0), "delta must be >= 0 and < 1"),
    (lambda: risk_of_epsilon(float("nan")), "epsilon must be a number"),
    (lambda: risk_of_gaussian(0.0, 1.0), "sensitivity must be > 0"),
    (lambda: risk_of_gaussian(1.0, -2.0), "noise scale must be > 0"),
    (lambda: risk_of_gaussian(1.0, 2.0, count=0), "count must be >= 1"),
    (lambda: risk_of_gaussian(1.0, 2.0, count=2.5), "count must be a whole number"),
    (lambda: risk_of_plan("exponential", 1.0, 1.0), "mechanism must be gaussian or laplace"),
    (lambda: posterior_bound(1.5, 1.0), "prior must be >= 0 and <= 1"),
    (lambda: risk_of_epsilon(1.0).curve(1), "points must be >= 2"),
])
def test_bad_input_says_what_is_wrong(call, match):
    with pytest.raises(ValueError, match=match):
        call()
