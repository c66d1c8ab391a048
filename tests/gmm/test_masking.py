"""B_GMM and its masking radius (Arbas 2023 Algorithm 2, Lemmas 5.1.1-5.3.2; ALGORITHMS.md §5)."""

import math

import numpy as np
import pytest
from scipy.stats import multivariate_normal, norm

from dpviz.estimators.gmm.masking import (
    alpha_for_radius,
    covariance_eta,
    covariance_mask_quantile,
    mask_gmm,
    masking_plan,
    masking_radius,
)
from dpviz.estimators.gmm.semimetric import dist_comp
from dpviz.privacy import Budget, Ledger, audit

# a budget where each part's (eps, delta) is moderate, so exceedances are measurable
EPS, DELTA, K, D = 2.7, 3e-3, 1, 2


def plan():
    return masking_plan(EPS, DELTA, k=K, d=D, alpha=0.3, beta=0.1)


def test_the_etas_come_from_alpha_and_the_gammas_from_the_budget():
    p = plan()
    ab, bp = 0.1, 0.1 / 3
    assert p.alpha_mask == pytest.approx(ab)
    assert p.eta_weight == pytest.approx(ab / math.sqrt(2 + 2 * math.log(1 / bp)))
    am = ab / math.sqrt(1 + ab)
    assert p.eta_mean == pytest.approx(am / math.sqrt(3 * (D + math.log(1 / bp))))
    ep, dp = EPS / 3, DELTA / 3
    log_d = math.log(2 / dp)
    assert p.gamma_weight == pytest.approx(ab * ep / (2 * math.sqrt(2) * log_d
                                                      * math.sqrt(1 + math.log(1 / bp))))
    assert p.gamma_mean == pytest.approx(ep * am / (24 * log_d * math.sqrt(D + math.log(1 / bp))))
    assert p.radius == min(p.gamma_weight, p.gamma_mean, p.gamma_cov, 0.5)
    # more budget, larger radius; more accuracy (smaller alpha), smaller radius
    assert masking_radius(2 * EPS, DELTA, k=K, d=D, alpha=0.3, beta=0.1) > p.radius
    assert masking_radius(EPS, DELTA, k=K, d=D, alpha=0.1, beta=0.1) < p.radius


def test_covariance_eta_meets_its_quantile():
    for d in (1, 3):
        eta = covariance_eta(0.05, 0.01, d)
        assert covariance_mask_quantile(eta, d, 0.99) <= 0.05
        assert covariance_mask_quantile(eta * 1.01, d, 0.99) > 0.05


def test_advanced_composition_is_taken_when_it_masks_more():
    basic = masking_plan(1.0, 1e-6, k=40, d=1, alpha=0.3, beta=0.1, compositions=("basic",))
    best = masking_plan(1.0, 1e-6, k=40, d=1, alpha=0.3, beta=0.1)
    assert best.radius >= basic.radius
    assert masking_plan(1.0, 1e-6, k=2, d=1, alpha=0.3, beta=0.1).composition == "basic"


def test_alpha_for_radius_inverts_the_radius():
    a = alpha_for_radius(2e-4, EPS, DELTA, k=K, d=D, beta=0.1)
    assert masking_radius(EPS, DELTA, k=K, d=D, alpha=a, beta=0.1) == pytest.approx(2e-4, rel=1e-6)
    assert alpha_for_radius(0.4, EPS, DELTA, k=K, d=D, beta=0.1) is None


def exceedance(loss, eps):
    return float(np.mean(loss > eps))


def test_weight_mask_privacy_loss_is_under_the_claim():
    p = plan()
    rng = np.random.default_rng(0)
    y = 0.3 + rng.normal(size=400_000) * p.eta_weight
    # at the weight lemma's own radius gamma_w (>= r), the loss stays under the claim
    gap = p.gamma_weight
    assert gap >= p.radius
    loss = norm.logpdf(y, 0.3, p.eta_weight) - norm.logpdf(y, 0.3 + gap, p.eta_weight)
    assert exceedance(loss, p.epsilon_part) <= p.delta_part
    # a pair 5 gamma_w apart is not covered: the same mask leaks more than claimed
    far = norm.logpdf(y, 0.3, p.eta_weight) - norm.logpdf(y, 0.3 + 5 * gap, p.eta_weight)
    assert exceedance(far, p.epsilon_part) > p.delta_part


def neighbour_components(r, rng):
    s1 = np.array([[1.0, 0.3], [0.3, 0.5]])
    root = np.linalg.cholesky(s1)
    bump = np.diag([1 + r / 2, 1 - r / 2])
    s2 = root @ bump @ root.T
    m1 = np.zeros(2)
    m2 = m1 + root @ np.array([r * 0.9, 0.0])
    assert dist_comp(0.5, m1, s1, 0.5, m2, s2) <= r * (1 + 1e-9)
    return (m1, s1), (m2, s2)


def test_mean_mask_privacy_loss_is_under_the_claim():
    p = plan()
    rng = np.random.default_rng(1)

    def loss_at(r):
        (m1, s1), (m2, s2) = neighbour_components(r, rng)
        y = multivariate_normal(m1, p.eta_mean**2 * s1).rvs(300_000, random_state=rng)
        return (multivariate_normal(m1, p.eta_mean**2 * s1).logpdf(y)
                - multivariate_normal(m2, p.eta_mean**2 * s2).logpdf(y))

    assert exceedance(loss_at(p.radius), p.epsilon_part) <= p.delta_part
    assert exceedance(loss_at(60 * p.radius), p.epsilon_part) > p.delta_part


def test_covariance_mask_audit_on_a_projection():
    p = plan()
    s1 = np.eye(D)
    s2 = np.diag([1 + p.radius / math.sqrt(2), 1 - p.radius / math.sqrt(2)])

    def sampler(sigma, rng, size):
        g = np.eye(D) + p.eta_cov * rng.normal(size=(size, D, D))
        root = np.sqrt(sigma)
        masked = root @ (g @ np.swapaxes(g, 1, 2)) @ root
        return masked[:, 0, 0] - masked[:, 1, 1]

    result = audit(sampler, s1, s2, claimed_epsilon=p.epsilon_part, delta=p.delta_part,
                   trials=100_000, seed=2)
    assert result.passed
    broken = audit(sampler, s1, s1 * np.diag([1.5, 0.5]), claimed_epsilon=p.epsilon_part,
                   delta=p.delta_part, trials=100_000, seed=2)
    assert not broken.passed


def test_mask_is_concentrated_and_recorded():
    rng = np.random.default_rng(3)
    w, m = np.array([0.3, 0.7]), np.array([[0.0, 0.0], [5.0, 1.0]])
    s = np.stack([np.eye(2), np.array([[2.0, 0.5], [0.5, 1.0]])])
    misses = 0
    for _ in range(300):
        led = Ledger(Budget(epsilon=1.0, delta=1e-6, method="linear"))
        out = mask_gmm(w, m, s, epsilon=1.0, delta=1e-6, alpha=0.3, beta=0.1, rng=rng, ledger=led)
        assert led.total().epsilon == pytest.approx(1.0)
        assert led.total().delta <= 1e-6
        inv = np.argsort(out.permutation)
        gaps = [dist_comp(out.raw_weights[inv[i]], out.means[inv[i]], out.covariances[inv[i]],
                          w[i], m[i], s[i]) for i in range(2)]
        misses += max(gaps) > out.plan.alpha_mask
    assert misses / 300 <= 0.1


def test_mask_without_noise_at_epsilon_inf_only_shuffles():
    w, m = np.array([0.3, 0.7]), np.array([[0.0], [5.0]])
    s = np.ones((2, 1, 1))
    led = Ledger(Budget(epsilon=math.inf, delta=1e-6, method="linear"))
    out = mask_gmm(w, m, s, epsilon=math.inf, delta=1e-6, alpha=0.3, beta=0.1,
                   rng=np.random.default_rng(0), ledger=led)
    assert np.allclose(out.means, m[out.permutation])
    assert np.allclose(out.weights, w[out.permutation])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"alpha": 0.0}, "alpha must be > 0"),
    ({"beta": 1.0}, "beta must be > 0 and < 1"),
    ({"delta": 0.0}, "delta must be > 0"),
    ({"epsilon": -1.0}, "epsilon must be > 0"),
])
def test_bad_inputs(kwargs, message):
    args = {"epsilon": 1.0, "delta": 1e-6, "alpha": 0.1, "beta": 0.1} | kwargs
    with pytest.raises(ValueError, match=message):
        masking_plan(args["epsilon"], args["delta"], k=2, d=2, alpha=args["alpha"],
                     beta=args["beta"])
    with pytest.raises(ValueError, match="k weights"):
        mask_gmm([0.5], [[0.0], [1.0]], np.ones((2, 1, 1)), epsilon=1.0, delta=1e-6, alpha=0.1,
                 beta=0.1, rng=np.random.default_rng(0), ledger=Ledger())


def test_secure_masking_hands_the_weights_to_the_sampler_and_labels_the_float_steps(
        monkeypatch):
    """Secure: the discrete sampler releases the weights themselves (not zeros added in numpy,
    the Mironov pattern); the means' and covariances' discrete noise is transformed in floating
    point, and their rows say so. Seeded: numpy's draws, every row ``"numpy"``."""
    from dpviz.privacy import discrete_noise
    from dpviz.privacy.randomness import secure_generator

    handed = []
    release = discrete_noise.add_discrete_noise

    def spied(mechanism, values, scale):
        handed.append(np.array(values))
        return release(mechanism, values, scale)

    monkeypatch.setattr(discrete_noise, "add_discrete_noise", spied)
    weights = [0.2, 0.3, 0.5]
    means, covs = [[0.0], [4.0], [9.0]], [[[1.0]], [[2.0]], [[1.5]]]
    args = {"epsilon": 1.0, "delta": 1e-6, "alpha": 0.3, "beta": 0.1}
    ledger = Ledger()
    out = mask_gmm(weights, means, covs, rng=secure_generator(), ledger=ledger, **args)
    np.testing.assert_array_equal(handed[0], np.array(weights)[out.permutation])
    assert [r.sampler for r in ledger.releases] == ["discrete", "discrete+float",
                                                    "discrete+float"]
    seeded = Ledger()
    mask_gmm(weights, means, covs, rng=np.random.default_rng(0), ledger=seeded, **args)
    assert [r.sampler for r in seeded.releases] == ["numpy"] * 3
    assert len(handed) == 3  # the seeded run never called the secure sampler


def test_secure_masking_charges_the_weights_grid_relaxation():
    """Secure: rounding each weight to the sampler's grid moves neighbours' weights up to
    ``r + g`` apart; the weights row records ``g``, and its (ε′, δ′) covers ``r + g`` as it
    stays within the lemma's ``γ_w`` at the planned η_w. Seeded: no rounding, no relaxation."""
    from dpviz.privacy.noise_grid import grid
    from dpviz.privacy.randomness import secure_generator

    args = {"epsilon": 1.0, "delta": 1e-6, "alpha": 0.3, "beta": 0.1, "compositions": ("basic",)}
    mixture = ([0.4, 0.6], [[0.0], [4.0]], [[[1.0]], [[2.0]]])
    p = masking_plan(1.0, 1e-6, k=2, d=1, alpha=0.3, beta=0.1, compositions=("basic",))
    ledger = Ledger()
    mask_gmm(*mixture, rng=secure_generator(), ledger=ledger, **args)
    weights = ledger.releases[0]
    assert weights.name == "mask: weights" and weights.sampler == "discrete"
    assert weights.scale == p.eta_weight
    assert weights.relaxation == grid("gaussian", p.eta_weight) > 0
    assert weights.charged == p.radius + weights.relaxation <= p.gamma_weight
    assert (weights.epsilon, weights.delta) == (p.epsilon_part, p.delta_part)
    assert [r.relaxation for r in ledger.releases[1:]] == [0.0, 0.0]
    seeded = Ledger()
    mask_gmm(*mixture, rng=np.random.default_rng(0), ledger=seeded, **args)
    assert seeded.releases[0].relaxation == 0


def test_a_secure_mask_too_fine_for_the_grid_is_refused_before_drawing():
    """At ε = 1e-8 one grid step of η_w is past γ_w (and widening η widens the grid): refused,
    nothing recorded."""
    from dpviz.privacy.randomness import secure_generator

    ledger = Ledger()
    with pytest.raises(ValueError, match="too small for secure randomness"):
        mask_gmm([0.4, 0.6], [[0.0], [4.0]], [[[1.0]], [[2.0]]], epsilon=1e-8, delta=1e-6,
                 alpha=0.3, beta=0.1, rng=secure_generator(), ledger=ledger)
    assert not ledger.releases
