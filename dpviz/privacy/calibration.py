"""Closed forms and one-dimensional inversions behind every accountant.

Everything here is a pure function of numbers: the analytic Gaussian of Balle & Wang (2018),
the classic Gaussian, and the zCDP → (ε, δ) conversions (Bun & Steinke 2016; Canonne, Kamath
& Steinke 2020). See ALGORITHMS.md §1.1–1.2.

References
----------
.. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian mechanism for differential privacy:
   analytical calibration and optimal denoising", ICML 2018, Theorem 8.
.. [2] M. Bun and T. Steinke, "Concentrated differential privacy", TCC 2016, Prop. 1.3.
.. [3] C. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian for differential
   privacy", NeurIPS 2020, Prop. 12 / Cor. 13.
"""

from __future__ import annotations

import math

from dpviz.privacy.errors import BudgetError

_RTOL = 1e-13
# Past this Δ/σ the noise is negligible: ε is effectively infinite, and μ² overflows.
MU_MAX = 1e100


def analytic_gaussian_delta(epsilon: float, mu: float) -> float:
    """δ(ε) of a Gaussian mechanism with sensitivity-to-noise ratio ``mu = Δ/σ``.

    ``δ = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)`` ([1]_, Thm 8); this is also the exact privacy
    profile of any composition of Gaussians with ``μ = √(Σ μᵢ²)``.

    Examples
    --------
    >>> round(analytic_gaussian_delta(1.0, 1.0), 10)
    0.1269367375
    """
    if mu <= 0:
        return 0.0
    if math.isinf(mu):
        return 1.0
    from scipy.special import log_ndtr, ndtr  # here: scipy.special costs Home's first run

    a = mu / 2 - epsilon / mu
    b = -mu / 2 - epsilon / mu
    return max(0.0, float(ndtr(a) - math.exp(epsilon + float(log_ndtr(b)))))


def analytic_gaussian_epsilon(mu: float, delta: float) -> float:
    """Smallest ε ≥ 0 with ``analytic_gaussian_delta(ε, mu) ≤ delta``.

    Examples
    --------
    >>> round(analytic_gaussian_epsilon(1.0, 0.1269367375), 6)
    1.0
    """
    if not 0 < delta < 1:
        raise BudgetError(f"a Gaussian release needs 0 < delta < 1, got {delta}")
    if mu <= 0:
        return 0.0
    if mu > MU_MAX:
        return math.inf
    if analytic_gaussian_delta(0.0, mu) <= delta:
        return 0.0
    from scipy.optimize import brentq  # here: scipy.optimize costs a page's first run

    high = max(1.0, mu * mu)
    while analytic_gaussian_delta(high, mu) > delta:
        high *= 2
    return float(brentq(lambda e: analytic_gaussian_delta(e, mu) - delta, 0.0, high,
                        xtol=1e-15, rtol=_RTOL, maxiter=500))


def analytic_gaussian_mu(epsilon: float, delta: float) -> float:
    """Largest ratio ``μ = Δ/σ`` whose Gaussian is (ε, δ)-DP (so ``σ = Δ/μ`` is the least noise).

    Examples
    --------
    >>> round(analytic_gaussian_mu(1.0, 0.1269367375), 6)
    1.0
    """
    if not 0 < delta < 1:
        raise BudgetError(f"a Gaussian release needs 0 < delta < 1, got {delta}")
    if math.isinf(epsilon):
        return math.inf
    from scipy.optimize import brentq  # here: scipy.optimize costs a page's first run

    low, high = 1e-300, 1.0
    while analytic_gaussian_delta(epsilon, high) < delta:
        low, high = high, high * 2
    return float(brentq(lambda m: analytic_gaussian_delta(epsilon, m) - delta, low, high,
                        xtol=1e-300, rtol=_RTOL, maxiter=500))


def classic_gaussian_mu(epsilon: float, delta: float) -> float:
    """``Δ/σ`` of the classic Gaussian, ``σ = Δ√(2 ln(1.25/δ))/ε``; valid only for ε < 1.

    Raises
    ------
    BudgetError
        When ε ≥ 1: the classic formula does not give (ε, δ)-DP there.
    """
    if epsilon >= 1:
        raise BudgetError(
            f"the classic Gaussian formula is only (epsilon, delta)-DP for epsilon < 1, got "
            f"epsilon = {epsilon:g}; use the analytic Gaussian")
    if not 0 < delta < 1:
        raise BudgetError(f"a Gaussian release needs 0 < delta < 1, got {delta}")
    return epsilon / math.sqrt(2 * math.log(1.25 / delta))


def classic_gaussian_epsilon(mu: float, delta: float) -> float:
    """Inverse of :func:`classic_gaussian_mu` in ε (meaningful where the result is < 1)."""
    return mu * math.sqrt(2 * math.log(1.25 / delta))


def zcdp_epsilon_bun_steinke(rho: float, delta: float) -> float:
    """``ε = ρ + 2√(ρ ln(1/δ))`` ([2]_).

    Examples
    --------
    >>> round(zcdp_epsilon_bun_steinke(0.5, 1e-5), 4)
    5.2985
    """
    _check_delta(delta)
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


def zcdp_epsilon(rho: float, delta: float) -> float:
    """The tighter CKS conversion ρ-zCDP → (ε, δ)-DP ([3]_).

    ``ε = inf_{α>1} αρ + (ln(1/δ) + (α−1) ln(1 − 1/α) − ln α)/(α − 1)``, never above the
    Bun–Steinke value.

    Examples
    --------
    >>> zcdp_epsilon(0.5, 1e-5) < zcdp_epsilon_bun_steinke(0.5, 1e-5)
    True
    """
    _check_delta(delta)
    if rho <= 0:
        return 0.0
    if rho > MU_MAX:
        return math.inf
    log_inv_delta = math.log(1 / delta)

    def bound(log_alpha_minus_one: float) -> float:
        am1 = math.exp(log_alpha_minus_one)
        alpha = 1 + am1
        return (alpha * rho + (log_inv_delta + am1 * math.log1p(-1 / alpha)
                               - math.log(alpha)) / am1)

    # The optimal alpha is near 1 + sqrt(ln(1/delta)/rho); search log(alpha - 1) around it.
    centre = 0.5 * math.log(log_inv_delta / rho)
    from scipy.optimize import minimize_scalar  # here: it costs a page's first run

    result = minimize_scalar(bound, bounds=(centre - 12, centre + 12), method="bounded",
                             options={"xatol": 1e-12})
    return max(0.0, min(float(result.fun), zcdp_epsilon_bun_steinke(rho, delta)))


def zcdp_rho_for(epsilon: float, delta: float, *, conversion: str = "cks") -> float:
    """Largest ρ whose conversion at δ is at most ε (the inverse of the two functions above).

    Examples
    --------
    >>> rho = zcdp_rho_for(1.0, 1e-6, conversion="bun-steinke")
    >>> round(zcdp_epsilon_bun_steinke(rho, 1e-6), 9)
    1.0
    """
    _check_delta(delta)
    if math.isinf(epsilon):
        return math.inf
    log_inv = math.log(1 / delta)
    # (√(L + ε) − √L)², written without the cancellation that makes it 0 for tiny ε
    simple = (epsilon / (math.sqrt(log_inv + epsilon) + math.sqrt(log_inv))) ** 2
    if conversion == "bun-steinke" or simple == 0:
        return simple
    from scipy.optimize import brentq  # here: scipy.optimize costs a page's first run

    high = simple
    while zcdp_epsilon(high, delta) < epsilon:
        high *= 2
    return float(brentq(lambda r: zcdp_epsilon(r, delta) - epsilon, simple, high,
                        xtol=1e-300, rtol=_RTOL, maxiter=500)) if high > simple else simple


def _check_delta(delta: float) -> None:
    if not 0 < delta < 1:
        raise BudgetError(f"converting zCDP to (epsilon, delta) needs 0 < delta < 1, got {delta}")
