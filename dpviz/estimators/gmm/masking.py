"""The GMM masking mechanism B_GMM and the budget solver for its masking radius r.

Arbas 2023 (seed 004, with Ashtiani & Liaw), Algorithm 2 with Lemmas 5.1.1, 5.2.1, 5.3.2 and
6.1.1, as restated in ALGORITHMS.md §5, which this module follows except where noted below.

A masking mechanism is not DP by itself: ``B`` is ``(r, ε, δ)``-masking when ``B(F)`` and
``B(F′)`` are (ε, δ)-indistinguishable for every pair with ``dist_PARAM(F, F′) ≤ r``. The
Private Populous Estimator (:mod:`dpviz.estimators.gmm.ppe`) turns that into DP.

**The mechanism.** The k components are shuffled by a uniformly random permutation, then each
is masked: weight ``w + η_w g``, mean ``μ + η_μ Σ^{1/2} g``, covariance
``Σ^{1/2}(I + η_Σ G)(I + η_Σ G)ᵀΣ^{1/2}`` (g, G i.i.d. N(0, 1), drawn by
:func:`dpviz.privacy.draw_noise`); the noisy weights are then clipped at 0 and renormalised
(post-processing).

**The budget.** The target (ε, δ) of the whole mask is split over the k components by the
better of basic composition (``ε_c = ε/k``, ``δ_c = δ/k``) and advanced composition
(``δ′ = δ/2``, ``δ_c = δ/(2k)``, ``√(2k ln(1/δ′))ε_c + kε_c(e^{ε_c} − 1) = ε``) — "better"
meaning the larger radius r; each component's three parts get ``(ε_c/3, δ_c/3)`` and the
failure probability ``β/(3k)``; the target accuracy of each part is ``α_B = α/(2z) = α/3``.

**The η's come from α, the γ's from the budget.** Weights (Lemma 5.1.1, classic Gaussian):
``η_w = α_B/√(2 + 2 ln(1/β′))``, ``γ_w = α_B ε′/(2√2 ln(2/δ′) √(1 + ln(1/β′)))``. Means
(Lemma 5.2.1) at accuracy ``α_μ``: ``η_μ = α_μ/√(3(d + ln(1/β′)))``,
``γ_μ = min{1/2, ε′α_μ/(24 ln(2/δ′) √(d + ln(1/β′)))}``. Covariances (Lemma 5.3.2):
``γ_Σ = min{√(ε′/(2d(d + 1/η_Σ²))), ε′/(8d√ln(2/δ′)), ε′/(8 ln(2/δ′)), ε′η_Σ/(12√d √ln(2/δ′))}``
with ``η_Σ`` the largest η whose Monte-Carlo (1 − β′)-quantile of ``dist_COV`` is ≤ α_B (the
masked matrix is pivotal: ``Σ^{-1/2}Σ̃Σ^{-1/2} = (I + ηG)(I + ηG)ᵀ`` whatever Σ is; the
thesis's ``η_Σ = α/(C(√d + …))`` does not give Frobenius accuracy α). Then
``r = min(γ_w, γ_μ, γ_Σ, 1/2)``.

**Deviation (derived here).** ALGORITHMS.md asks for ``α_μ = α_B/√2`` so that the mean's
accuracy, proved in ``‖·‖_Σ``, also covers ``‖·‖_Σ̃`` (dist_COMP measures the mean gap in both
covariances). On the event that the covariance mask is within α_B (already in the union
bound), ``‖1/λ − 1‖₂ ≤ α_B`` for the eigenvalues λ of ``Σ^{-1/2}Σ̃Σ^{-1/2}``, so
``λ ≥ 1/(1 + α_B)`` and ``‖v‖_Σ̃ ≤ √(1 + α_B)·‖v‖_Σ``: ``α_μ = α_B/√(1 + α_B)`` suffices, and is
what dpviz uses (it equals the √2 rule at α_B = 1 and is tighter below). The same α_μ enters
η_μ and γ_μ — the privacy proof of Lemma 5.2.1 bounds γ against η, so the two must share α.
With it, ALGORITHMS.md's measured example is reproduced (r ≈ 2.4e-6 at ε_tot = 1,
δ_tot = 1e-6, k = d = 2, α = 0.1, β = 0.05).

**The ledger.** Each masked part is an (ε′, δ′) guarantee from a lemma, not from a noise
scale and a sensitivity, so it is recorded as a ``composite`` row naming its lemma, with
``count = k`` (one per component), ``sensitivity = r`` (the dist_COMP radius it assumes) and
``scale = η``. Linear composition of the 3k rows is basic composition; the ledger's other
(ε, δ) accountants compose the same rows at least as tightly as Lemma 6.1.1.

**Secure randomness.** The weights are released by the exact discrete sampler: each weight
is rounded to the grid ``g`` of ``η_w`` (:mod:`dpviz.privacy.discrete_noise`), so two weights
``|w − w′| ≤ r`` become grid points at most ``r + g`` apart — the relaxation, one grid step
per component (each component's weight is its own one-coordinate release; the row's
``count = k`` composes them), recorded on the weights row. Lemma 5.1.1's guarantee depends on
the shift only through ``shift/η``, and the discrete Gaussian is as private as the continuous
one at the same ratio (Canonne, Kamath & Steinke 2020: the same zCDP, ``ratio²/2``, which at
``γ_w/η_w = ε′/(2 ln(2/δ′))`` implies (ε′, δ′) by Bun & Steinke 2016, Proposition 1.3). So
the row's (ε′, δ′) covers ``r + g`` whenever ``r + g ≤ γ_w``, and the noise is not widened.
As ``r ≤ γ_μ < γ_w/8``, that fails only where ``g`` (about ``2^-28·η_w``) exceeds ``7r``, i.e.
``γ_w/η_w = ε′/(2 ln(2/δ′)) < 2^-25`` or so; widening η would not help there (the grid grows
with η), so such a secure mask is refused before anything is drawn.
The means' and covariances' noise is the discrete sampler's draw of zeros (on the grid: no
relaxation), but shaped by a covariance root and added in floating point, which no exact
sampler does: those rows say ``"discrete+float"``, the named exception.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq

from dpviz.core import limits
from dpviz.estimators.gmm.semimetric import Z, dist_cov_from_eigenvalues
from dpviz.privacy import Ledger, Release, add_noise, draw_noise, sampler_of
from dpviz.privacy.mechanisms import grid_relaxation

ALPHA = limits.Limit("alpha", 0.0, 2 * Z, low_open=True)
BETA = limits.Limit("beta", 0.0, 1.0, low_open=True, high_open=True)
K_RANGE = limits.COMPONENTS
D_RANGE = limits.Limit("d", 1, 200)
#: The masking radius can never exceed 1/2 (Lemma 5.2.1 needs γ ≤ 1/2).
RADIUS_CAP = 0.5
#: Monte-Carlo draws of G for η_Σ (fewer in high dimension, where each costs an eigvalsh).
MC_DRAWS = 4000
MC_MIN_DRAWS = 400
#: The draws are public (they never see data); a fixed seed makes η_Σ a deterministic function.
MC_SEED = 20230
THEOREMS = {
    "weights": "Arbas 2023 Lemma 5.1.1 (Gaussian weight mask)",
    "means": "Arbas 2023 Lemma 5.2.1 (covariance-shaped mean mask)",
    "covariances": "Arbas 2023 Lemma 5.3.2 / Ashtiani-Liaw 2022 Lemma 5.1 (covariance mask)",
}


def _check(epsilon: float, delta: float, k: int, d: int, alpha: float,
           beta: float) -> tuple[float, float, int, int, float, float]:
    epsilon = limits.check_epsilon(epsilon)
    delta = limits.DELTA_POSITIVE.check(delta)
    return (epsilon, delta, limits.check_integer(K_RANGE, k), limits.check_integer(D_RANGE, d),
            ALPHA.check(alpha), BETA.check(beta))


def monte_carlo_draws(d: int) -> int:
    """How many d × d Gaussian matrices the η_Σ quantile uses: 4000, fewer above d = 10.

    Examples
    --------
    >>> monte_carlo_draws(2), monte_carlo_draws(200)
    (4000, 400)
    """
    return max(MC_MIN_DRAWS, min(MC_DRAWS, MC_DRAWS * 100 // (d * d)))


@functools.lru_cache(maxsize=64)
def _pivots(d: int, draws: int) -> NDArray[np.float64]:
    """The public Monte-Carlo matrices G (draws × d × d), fixed by :data:`MC_SEED` and d."""
    return np.random.default_rng([MC_SEED, d]).standard_normal((draws, d, d))


def covariance_mask_quantile(eta: float, d: int, level: float) -> float:
    """The Monte-Carlo ``level``-quantile of ``dist_COV(Σ̃, Σ)`` for the covariance mask at η.

    Pivotal: ``dist_COV`` of ``(I + ηG)(I + ηG)ᵀ`` against ``I``, whatever Σ is.

    Examples
    --------
    >>> round(covariance_mask_quantile(0.01, 2, 0.5), 4)
    0.0304
    """
    g = _pivots(d, monte_carlo_draws(d))
    m = np.eye(d) + eta * g
    values = np.linalg.eigvalsh(m @ np.swapaxes(m, 1, 2))
    return float(np.quantile(dist_cov_from_eigenvalues(values), level, method="higher"))


@functools.lru_cache(maxsize=512)
def covariance_eta(alpha_mask: float, beta_part: float, d: int) -> float:
    """η_Σ: the largest η whose (1 − β′)-quantile of ``dist_COV`` is ≤ ``alpha_mask``.

    Found by false position on log q against log η (the quantile is close to linear in η,
    convex where η²‖G‖² matters), from a ratio step that lands the first guess on each side
    of the target: the answer's quantile is within 1e-4 below α_B. Cached. In the tail the
    quantile is well above the typical size ``√2·d·η`` of dist_COV: at d = 2 and
    β′ = 0.01, η_Σ ≈ 0.4·α_B/(√2 d). (The ratio iteration alone oscillated at α_B = 1 and
    ended in 1e-4 nudges: 34 quantiles, ~40 ms of a first PPE refusal; now about 6.)

    Examples
    --------
    >>> eta = covariance_eta(0.1, 0.01, 2)
    >>> covariance_mask_quantile(eta, 2, 0.99) <= 0.1
    True
    >>> round(eta * math.sqrt(2) * 2 / 0.1, 1)
    0.4
    """
    level = 1.0 - beta_part
    below: tuple[float, float] | None = None  # (η, q) with q ≤ α_B, the largest seen
    above: tuple[float, float] | None = None  # (η, q) with q > α_B, the smallest seen
    last: list[tuple[float, float]] = []
    eta = alpha_mask / (math.sqrt(2.0) * d)
    for _ in range(200):
        q = covariance_mask_quantile(eta, d, level)
        if q <= alpha_mask:
            if q >= alpha_mask * (1 - 1e-4):
                return eta
            below = (eta, q) if below is None or eta > below[0] else below
        elif above is None or eta < above[0]:
            above = (eta, q)
        last = [*last[-1:], (math.log(eta), math.log(q))]
        if below is None or above is None or len(last) < 2 or last[0][1] == last[1][1]:
            eta *= alpha_mask / q
            continue
        if above[0] - below[0] <= 1e-12 * above[0]:
            return below[0]
        # secant of log q on log η through the last two points, aiming just under α_B;
        # the bracket's geometric middle when it would leave the bracket
        (x0, y0), (x1, y1) = last
        guess = x1 + (math.log(alpha_mask * (1 - 5e-5)) - y1) * (x1 - x0) / (y1 - y0)
        low, high = math.log(below[0]), math.log(above[0])
        eta = math.exp(guess if low < guess < high else (low + high) / 2)
    assert below is not None
    return below[0]


def advanced_component_epsilon(epsilon: float, k: int, delta_prime: float) -> float:
    """ε_c with ``√(2k ln(1/δ′))ε_c + kε_c(e^{ε_c} − 1) = ε`` (advanced composition, inverted).

    Examples
    --------
    >>> e = advanced_component_epsilon(1.0, 10, 1e-6)
    >>> round(math.sqrt(20 * math.log(1e6)) * e + 10 * e * math.expm1(e), 9)
    1.0
    """
    a = math.sqrt(2 * k * math.log(1 / delta_prime))

    def gap(x: float) -> float:
        return a * x + k * x * math.expm1(x) - epsilon

    return float(brentq(gap, 0.0, epsilon / a, xtol=1e-15, rtol=1e-14))


@dataclass(frozen=True)
class MaskingPlan:
    """The masking mechanism's constants for one (ε, δ, k, d, α, β).

    Attributes
    ----------
    epsilon, delta : float
        The mask's target (ε, δ), over all k components.
    k, d : int
    alpha, beta : float
        Target accuracy (in dist_PARAM, before the 1/(2z) of PPE) and failure probability.
    composition : {"basic", "advanced"}
        How the k components compose (the one with the larger radius).
    epsilon_component, delta_component : float
        ε_c, δ_c of each component.
    epsilon_part, delta_part, beta_part : float
        ε_c/3, δ_c/3, β/(3k): each of a component's three masks.
    alpha_mask, alpha_mean : float
        α_B = α/(2z) and the mean part's α_B/√(1 + α_B).
    eta_weight, eta_mean, eta_cov : float
        The noise levels (from α).
    gamma_weight, gamma_mean, gamma_cov : float
        The largest input distance each part masks (from the budget).
    radius : float
        r = min(γ_w, γ_μ, γ_Σ, 1/2).
    failed_conditions : dict
        Condition name → sentence, for each hypothesis of the lemmas that fails here (the
        mechanism still runs; its guarantee then rests on the lemma beyond its hypotheses).
    mc_draws : int
        Monte-Carlo draws behind η_Σ.
    """

    epsilon: float
    delta: float
    k: int
    d: int
    alpha: float
    beta: float
    composition: str
    epsilon_component: float
    delta_component: float
    epsilon_part: float
    delta_part: float
    beta_part: float
    alpha_mask: float
    alpha_mean: float
    eta_weight: float
    eta_mean: float
    eta_cov: float
    gamma_weight: float
    gamma_mean: float
    gamma_cov: float
    radius: float
    failed_conditions: dict[str, str] = field(default_factory=dict)
    mc_draws: int = 0

    @property
    def binding(self) -> str:
        """Which term sets r: ``weights``, ``means``, ``covariances`` or ``cap``."""
        terms = {"weights": self.gamma_weight, "means": self.gamma_mean,
                 "covariances": self.gamma_cov, "cap": RADIUS_CAP}
        return min(terms, key=lambda name: terms[name])

    def to_dict(self) -> dict[str, Any]:
        """Plain values, for ``choices`` and tables."""
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        out["binding"] = self.binding
        return out


#: The largest per-part ε the weight (Lemma 5.1.1) and covariance (Lemma 5.3.2) masks cover.
LEMMA_EPSILON = 1 - 1e-9


def _plan_for_split(epsilon: float, delta: float, k: int, d: int, alpha: float, beta: float,
                    composition: str) -> MaskingPlan:
    if composition == "basic":
        eps_c, delta_c = epsilon / k, delta / k
    else:
        eps_c, delta_c = advanced_component_epsilon(epsilon, k, delta / 2), delta / (2 * k)
    eps_p, delta_p, beta_p = eps_c / 3, delta_c / 3, beta / (3 * k)
    alpha_b = alpha / (2 * Z)
    alpha_mu = alpha_b / math.sqrt(1 + alpha_b)
    log_d = math.log(2 / delta_p)
    log_b = math.log(1 / beta_p)
    eta_w = alpha_b / math.sqrt(2 + 2 * log_b)
    eta_mu = alpha_mu / math.sqrt(3 * (d + log_b))
    eta_cov = covariance_eta(alpha_b, beta_p, d)
    if math.isinf(eps_p):
        gamma_w = gamma_mu = gamma_cov = math.inf
    else:
        # The weight and covariance lemmas hold for epsilon_part < 1 only. Above it, mask at
        # the largest epsilon they cover: (eps', delta)-DP with eps' < eps is (eps, delta)-DP,
        # so the guarantee stays proved at the cost of a smaller radius r.
        eps_l = min(eps_p, LEMMA_EPSILON)
        gamma_w = alpha_b * eps_l / (2 * math.sqrt(2) * log_d * math.sqrt(1 + log_b))
        gamma_mu = eps_l * alpha_mu / (24 * log_d * math.sqrt(d + log_b))
        gamma_cov = min(math.sqrt(eps_l / (2 * d * (d + 1 / eta_cov**2))),
                        eps_l / (8 * d * math.sqrt(log_d)), eps_l / (8 * log_d),
                        eps_l * eta_cov / (12 * math.sqrt(d) * math.sqrt(log_d)))
    gamma_mu = min(RADIUS_CAP, gamma_mu)
    failed: dict[str, str] = {}
    if alpha_b > 1:
        failed["alpha <= 2z"] = (
            f"dist_COMP's triangle inequality is 1-restricted: alpha/(2z) = {alpha_b:.4g} must be "
            "<= 1 for the accuracy argument")
    return MaskingPlan(
        epsilon=epsilon, delta=delta, k=k, d=d, alpha=alpha, beta=beta, composition=composition,
        epsilon_component=eps_c, delta_component=delta_c, epsilon_part=eps_p,
        delta_part=delta_p, beta_part=beta_p, alpha_mask=alpha_b, alpha_mean=alpha_mu,
        eta_weight=eta_w, eta_mean=eta_mu, eta_cov=eta_cov, gamma_weight=gamma_w,
        gamma_mean=gamma_mu, gamma_cov=gamma_cov,
        radius=min(gamma_w, gamma_mu, gamma_cov, RADIUS_CAP), failed_conditions=failed,
        mc_draws=monte_carlo_draws(d))


def masking_plan(epsilon: float, delta: float, *, k: int, d: int, alpha: float, beta: float,
                 compositions: tuple[str, ...] = ("basic", "advanced")) -> MaskingPlan:
    """The budget solver for the masking radius: η's from α, γ's from the budget, r.

    Parameters
    ----------
    epsilon, delta : float
        The mask's target guarantee over all k components (ε may be ``inf``: no noise needed,
        r = 1/2).
    k, d : int
        Components and dimension.
    alpha, beta : float
        Target accuracy in dist_PARAM (``0 < α ≤ 3``) and failure probability.
    compositions : tuple of str
        The splits over components to consider; the one with the larger r is returned
        (``("basic",)`` when the caller composes linearly).

    Returns
    -------
    MaskingPlan

    Raises
    ------
    ValueError
        A parameter out of range (δ must be > 0: the masks are approximate DP).

    Examples
    --------
    >>> plan = masking_plan(0.5, 1e-6 / (4 * math.exp(0.5)), k=2, d=2, alpha=0.1, beta=0.05)
    >>> plan.composition, plan.binding, f"{plan.radius:.2g}"
    ('basic', 'means', '2.4e-06')
    """
    epsilon, delta, k, d, alpha, beta = _check(epsilon, delta, k, d, alpha, beta)
    unknown = set(compositions) - {"basic", "advanced"}
    if not compositions or unknown:
        raise ValueError(f"compositions must be basic and/or advanced, got {compositions!r}")
    plans = [_plan_for_split(epsilon, delta, k, d, alpha, beta, c) for c in compositions
             if c == "basic" or (k > 1 and not math.isinf(epsilon))]
    return max(plans, key=lambda p: p.radius)


def masking_radius(epsilon: float, delta: float, *, k: int, d: int, alpha: float,
                   beta: float) -> float:
    """``r = min(γ_w, γ_μ, γ_Σ, 1/2)`` of :func:`masking_plan`.

    Examples
    --------
    >>> f"{masking_radius(1.0, 1e-6, k=1, d=1, alpha=0.3, beta=0.1):.3g}"
    '4.04e-05'
    """
    return masking_plan(epsilon, delta, k=k, d=d, alpha=alpha, beta=beta).radius


def alpha_for_radius(radius: float, epsilon: float, delta: float, *, k: int, d: int,
                     beta: float, compositions: tuple[str, ...] = ("basic", "advanced"),
                     ) -> float | None:
    """The smallest α whose masking radius is at least ``radius`` (``None``: no α ≤ 3 reaches it).

    r grows with α until the α-free terms of γ_Σ (or the cap 1/2) bind, so a radius above
    those is out of reach at this budget whatever the noise.

    Examples
    --------
    >>> a = alpha_for_radius(1e-5, 1.0, 1e-6, k=1, d=1, beta=0.1)
    >>> round(masking_radius(1.0, 1e-6, k=1, d=1, alpha=a, beta=0.1) / 1e-5, 6)
    1.0
    """
    def reach(alpha: float) -> float:
        return masking_plan(epsilon, delta, k=k, d=d, alpha=alpha, beta=beta,
                            compositions=compositions).radius

    if reach(ALPHA.high) < radius:
        return None
    lo, hi = 0.0, ALPHA.high
    for _ in range(60):
        mid = math.sqrt(max(lo, 1e-12) * hi)
        if reach(mid) >= radius:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-9 * hi:
            break
    return hi


def _sqrt_psd(matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2)
    return np.asarray((vectors * np.sqrt(np.maximum(values, 0.0))) @ vectors.T,
                      dtype=np.float64)


@dataclass(frozen=True)
class MaskedMixture:
    """What :func:`mask_gmm` released, and how.

    ``weights`` (clipped at 0, renormalised), ``means``, ``covariances``: the masked mixture
    in the permuted order; ``permutation[i]`` is the input component now at position i;
    ``raw_weights``: the noisy weights before clipping; ``plan``: the constants used.
    """

    weights: NDArray[np.float64]
    means: NDArray[np.float64]
    covariances: NDArray[np.float64]
    permutation: NDArray[np.intp]
    raw_weights: NDArray[np.float64]
    plan: MaskingPlan


def secure_weight_relaxation(plan: MaskingPlan, rng: np.random.Generator) -> float:
    """What the secure sampler's grid adds to the masked weights' radius; refuses it past γ_w.

    A function of the public plan (ε, δ, k, d, α, β) and of whether ``rng`` is secure, never
    of the data: a caller that releases anything before the mask (PPE's private test) runs it
    first, so the refusal cannot reveal that release's outcome.

    Raises
    ------
    ValueError
        When one grid step of ``η_w`` moves a weight past what Lemma 5.1.1 masks
        (``r + relaxation > γ_w``).
    """
    eta_w = 0.0 if math.isinf(plan.epsilon) else plan.eta_weight
    relaxed = grid_relaxation("gaussian", eta_w, rng, 1)
    if plan.radius + relaxed > plan.gamma_weight:
        raise ValueError(
            f"the mask's epsilon per part, {plan.epsilon_part:.3g}, is too small for secure "
            f"randomness: one step of the sampler's grid ({relaxed:.3g}) moves a weight past "
            f"what Lemma 5.1.1 masks ({plan.gamma_weight:.3g}, with r = {plan.radius:.3g}); "
            "use a larger epsilon")
    return relaxed


def mask_gmm(weights: ArrayLike, means: ArrayLike, covariances: ArrayLike, *, epsilon: float,
             delta: float, alpha: float, beta: float, rng: np.random.Generator, ledger: Ledger,
             part: str | None = None, compositions: tuple[str, ...] | None = None,
             ) -> MaskedMixture:
    """B_GMM (Arbas 2023, Algorithm 2): shuffle the components, mask each one.

    An ``(r, ε, δ)``-masking mechanism for ``(F_GMM, dist_PARAM)`` with r from
    :func:`masking_plan`, (α, β)-concentrated (ALGORITHMS.md §5). Records three ``composite``
    rows in ``ledger`` (weights, means, covariances; count k each, ``(ε_c/3, δ_c/3)`` each);
    from a secure generator the weights row records the grid's relaxation (module
    docstring, *Secure randomness*).

    Parameters
    ----------
    weights, means, covariances : array-like
        The mixture: k weights, k × d means, k × d × d positive-definite covariances.
    epsilon, delta : float
        The mask's target over all k components (``inf``: no noise, only the shuffle).
    alpha, beta : float
        Target accuracy in dist_PARAM and failure probability.
    rng : numpy.random.Generator
        Draws the permutation and the noise.
    ledger : Ledger
        Receives the three rows.
    part : str, optional
        The ledger part.
    compositions : tuple of str, optional
        Splits over components to consider; default: basic only when the ledger composes
        linearly (so its linear total is the target), else the better of basic and advanced.

    Returns
    -------
    MaskedMixture

    Examples
    --------
    >>> from dpviz.privacy import Budget
    >>> led = Ledger(Budget(epsilon=1.0, delta=1e-6, method="linear"))
    >>> out = mask_gmm([0.5, 0.5], [[0.0], [4.0]], [[[1.0]], [[1.0]]], epsilon=1.0,
    ...                delta=1e-6, alpha=0.3, beta=0.1, rng=np.random.default_rng(0),
    ...                ledger=led)
    >>> out.weights.sum().round(12), len(led.releases), led.total().epsilon
    (np.float64(1.0), 3, 1.0)
    """
    w = np.asarray(weights, dtype=float).ravel()
    mu = np.asarray(means, dtype=float)
    cov = np.asarray(covariances, dtype=float)
    k = w.size
    if mu.ndim != 2 or mu.shape[0] != k or cov.shape != (k, mu.shape[1], mu.shape[1]):
        raise ValueError(f"mask_gmm needs k weights, k × d means and k × d × d covariances, "
                         f"got shapes {w.shape}, {mu.shape}, {cov.shape}")
    if not (np.all(np.isfinite(w)) and np.all(np.isfinite(mu)) and np.all(np.isfinite(cov))):
        raise ValueError("mask_gmm needs finite weights, means and covariances")
    d = mu.shape[1]
    if compositions is None:
        method = ledger.budget.method if ledger.budget is not None else "linear"
        compositions = ("basic",) if method == "linear" else ("basic", "advanced")
    plan = masking_plan(epsilon, delta, k=k, d=d, alpha=alpha, beta=beta,
                        compositions=compositions)
    noisy = not math.isinf(plan.epsilon)
    eta_w, eta_mu, eta_cov = ((plan.eta_weight, plan.eta_mean, plan.eta_cov) if noisy
                              else (0.0, 0.0, 0.0))
    relaxed = secure_weight_relaxation(plan, rng)
    order = rng.permutation(k)
    w, mu, cov = w[order], mu[order], cov[order]
    roots = np.stack([_sqrt_psd(c) for c in cov])
    raw = add_noise("gaussian", w, eta_w, rng)  # the weights themselves go to the sampler
    mean_noise = draw_noise("gaussian", eta_mu, rng, (k, d))
    masked_means = mu + np.einsum("kij,kj->ki", roots, mean_noise)
    factor = np.eye(d) + draw_noise("gaussian", eta_cov, rng, (k, d, d))
    inner = factor @ np.swapaxes(factor, 1, 2)
    masked_cov = roots @ inner @ roots
    masked_cov = (masked_cov + np.swapaxes(masked_cov, 1, 2)) / 2
    clipped = np.clip(raw, 0.0, None)
    total = clipped.sum()
    masked_w = clipped / total if total > 0 else np.full(k, 1.0 / k)
    for name, eta in (("weights", eta_w), ("means", eta_mu), ("covariances", eta_cov)):
        ledger.record(Release(
            f"mask: {name}", "composite", plan.radius, "dist_COMP", eta,
            epsilon=plan.epsilon_part, delta=plan.delta_part, count=k, part=part,
            theorem=THEOREMS[name],
            sampler=sampler_of(rng, eta, transformed=name != "weights"),
            relaxation=relaxed if name == "weights" else 0.0))
    return MaskedMixture(masked_w, masked_means, masked_cov, order.astype(np.intp), raw, plan)
