"""The empirical privacy audit: passes correct mechanisms, catches broken ones, and its
Clopper–Pearson interval agrees with scipy's."""

import math

import numpy as np
import pytest
from scipy import stats

from dpviz.privacy import AuditResult, audit, clopper_pearson, repeat
from dpviz.privacy.calibration import analytic_gaussian_mu


def laplace_count(scale):
    return lambda data, rng, size: data + rng.laplace(0.0, scale, size)


def gaussian_count(sigma):
    return lambda data, rng, size: data + rng.normal(0.0, sigma, size)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_correct_laplace_passes_and_the_bound_is_tight(epsilon):
    result = audit(laplace_count(1 / epsilon), 0.0, 1.0, claimed_epsilon=epsilon, seed=3)
    assert isinstance(result, AuditResult)
    assert result.passed and "consistent" in result.verdict()
    assert result.epsilon_lower <= epsilon
    # the audit has power: at 200k trials its lower bound comes close to the truth
    assert result.epsilon_lower >= 0.8 * epsilon
    assert result.epsilon_lower <= result.epsilon_estimate <= result.epsilon_upper


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_halved_laplace_noise_is_caught(epsilon):
    result = audit(laplace_count(0.5 / epsilon), 0.0, 1.0, claimed_epsilon=epsilon, seed=3)
    assert not result.passed
    assert result.epsilon_lower > epsilon
    assert "violation" in result.verdict()


@pytest.mark.parametrize("epsilon, delta", [(1.0, 1e-5), (0.5, 1e-3)])
def test_gaussian_with_delta(epsilon, delta):
    sigma = 1 / analytic_gaussian_mu(epsilon, delta)
    good = audit(gaussian_count(sigma), 0.0, 1.0, claimed_epsilon=epsilon, delta=delta, seed=5)
    assert good.passed and good.delta == delta
    assert good.epsilon_lower > 0.3 * epsilon  # it sees most of the loss
    broken = audit(gaussian_count(sigma / 2), 0.0, 1.0, claimed_epsilon=epsilon, delta=delta,
                   seed=5)
    assert not broken.passed


def leaky_laplace(epsilon, delta):
    """Laplace(1/ε), except that with probability δ it shows the data outright: (ε, δ)-DP."""
    def sampler(data, rng, size):
        out = data + rng.laplace(0.0, 1 / epsilon, size)
        leak = rng.random(size) < delta
        out[leak] = 1_000.0 * (1 + data)
        return out

    return sampler


def test_delta_is_subtracted_before_the_ratio():
    # ε̂ = ln((TPR_lo − δ)/FPR_hi): a mechanism that leaks with probability δ passes its
    # (ε, δ) claim and fails the pure ε claim
    epsilon, delta = 1.0, 0.02
    claimed = audit(leaky_laplace(epsilon, delta), 0.0, 1.0, claimed_epsilon=epsilon,
                    delta=delta, seed=4)
    assert claimed.passed
    p_lo, p, _ = claimed.rate_d
    _, q, q_hi = claimed.rate_d_prime
    assert claimed.epsilon_lower == pytest.approx(max(0.0, math.log((p_lo - delta) / q_hi)))
    assert claimed.epsilon_estimate == pytest.approx(max(0.0, math.log((p - delta) / q)))
    pure = audit(leaky_laplace(epsilon, delta), 0.0, 1.0, claimed_epsilon=epsilon, seed=4)
    assert not pure.passed and pure.epsilon_lower > 2 * epsilon


def test_audit_is_deterministic_and_symmetric():
    a = audit(laplace_count(1.0), 0.0, 1.0, claimed_epsilon=1.0, seed=11)
    b = audit(laplace_count(1.0), 0.0, 1.0, claimed_epsilon=1.0, seed=11)
    assert a == b
    # the neighbour on the other side: the audit finds the set either way
    c = audit(laplace_count(1.0), 1.0, 0.0, claimed_epsilon=1.0, seed=11)
    assert c.epsilon_lower == pytest.approx(a.epsilon_lower, abs=0.1)


def test_identical_datasets_show_no_loss():
    result = audit(laplace_count(1.0), 0.0, 0.0, claimed_epsilon=0.1, seed=2)
    assert result.passed and result.epsilon_lower < 0.05


def test_repeat_adapts_a_one_run_mechanism():
    sampler = repeat(lambda data, rng: data + rng.laplace(0.0, 0.25))
    out = sampler(3.0, np.random.default_rng(0), 1_000)
    assert out.shape == (1_000,) and abs(np.median(out) - 3.0) < 0.05
    assert not audit(sampler, 0.0, 1.0, claimed_epsilon=1.0, trials=20_000, seed=0).passed


def test_audit_validates_inputs():
    with pytest.raises(ValueError, match="trials"):
        audit(laplace_count(1.0), 0.0, 1.0, claimed_epsilon=1.0, trials=10)
    with pytest.raises(ValueError, match="delta"):
        audit(laplace_count(1.0), 0.0, 1.0, claimed_epsilon=1.0, delta=1.5)
    with pytest.raises(ValueError, match="one scalar output per run"):
        audit(lambda data, rng, size: np.zeros(size + 1), 0.0, 1.0, claimed_epsilon=1.0,
              trials=1_000)


@pytest.mark.parametrize("k, n", [(0, 100), (1, 100), (50, 100), (99, 100), (100, 100),
                                  (3, 200_000), (123_456, 200_000), (7, 13)])
@pytest.mark.parametrize("confidence", [0.95, 0.99])
def test_clopper_pearson_matches_scipy(k, n, confidence):
    lo, hi = clopper_pearson(k, n, confidence)
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="exact")
    assert lo == pytest.approx(ref.low, rel=1e-6, abs=1e-12)
    assert hi == pytest.approx(ref.high, rel=1e-6, abs=1e-12)


def test_clopper_pearson_covers_at_the_stated_rate(rng):
    # 2 000 binomial draws at p = 0.03: the 95% interval misses at most ≈ 5% of the time
    p, n = 0.03, 400
    draws = rng.binomial(n, p, size=2_000)
    misses = sum(1 for k in draws
                 if not (lambda lo_hi: lo_hi[0] <= p <= lo_hi[1])(clopper_pearson(int(k), n)))
    assert misses / draws.size <= 0.05
    assert math.isclose(clopper_pearson(0, 10)[0], 0.0)
