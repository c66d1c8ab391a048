"""High-probability norm bounds of the noise, and the paper's error bounds built from them.

Each bound holds with probability ≥ 1 − b. The Gaussian ones are those of the paper's proofs
(Dong, Liang & Yi 2022: Lemma 6 (Laurent–Massart) for ``‖N(0, I_d)‖``, Lemma 7 for the
spectral norm of ``GWig(d)``) as the authors' released code evaluates them; the Laplace ones
are Lemmas 13–14 (Samorodnitsky; Bandeira–van Handel) with the released code's constants.
ALGORITHMS.md §6 states the Gaussian forms.

Error bounds (Frobenius, rows in ``B(0, r)``, failure probability β):

* GaussCov: ``‖σW‖_F ≤ σ·ω(d, β)``, ``σ = r²/(n√ρ)``; the clamp to ``[0, r²]`` is a projection
  onto a convex set holding Σ, so it does not increase the error. LapCov:
  ``(√2 d r²/(nε))·ω_L(d, β)``.
* SeparateCov (Theorem 1, constant 1): ``2^{5/4} r √tr √ν/(√n ρ^{1/4}) + √2 η r²/(n√ρ)``, with
  η and ν at β/2 each (eigenvalues, eigenvectors). SeparateLapCov (Lemmas 15–18):
  ``√(8√2 d tr r² ν_L/(ε n)) + 4 η_L r²/(ε n)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from dpviz.estimators.covariance.common import Privacy

Radius = TypeVar("Radius", float, NDArray[np.float64])


def gaussian_norm_bound(d: int, b: float) -> float:
    """``‖N(0, I_d)‖ ≤ √(d + 2√(d ln(1/b)) + 2 ln(1/b))`` (Laurent & Massart)."""
    t = math.log(1 / b)
    return math.sqrt(d + 2 * math.sqrt(d * t) + 2 * t)


def wigner_spectral_bound(d: int, b: float) -> float:
    """Spectral-norm bound of ``GWig(d)`` (Bandeira & van Handel, the paper's Lemma 7).

    ``(1 + θ)(2√d + 6√(ln d)/√(ln(1 + θ))) + √(2 ln(2/b))``, ``θ = min((ln d/d)^{0.3}, 0.5)``
    (the released code's ``wigner_gauss_tailbound``; called at ``b = β₁/2`` it gives
    ALGORITHMS.md §6's ``√(2 ln(4/β₁))``).

    At d = 1 (``ln d = 0``) θ = 0 and the middle term is taken as 0 (its limit).
    """
    theta = min((math.log(d) / d) ** 0.3, 0.5) if d > 1 else 0.0
    middle = 6 * math.sqrt(math.log(d)) / math.sqrt(math.log1p(theta)) if d > 1 else 0.0
    return (1 + theta) * (2 * math.sqrt(d) + middle) + math.sqrt(2 * math.log(2 / b))


def wigner_frobenius_bound(d: int, b: float) -> float:
    """``‖GWig(d)‖_F ≤ √(d² + 2√(d ln(2/b))(1 + √(2(d − 1))) + 6 ln(2/b))``."""
    t = math.log(2 / b)
    return math.sqrt(d * d + 2 * math.sqrt(d * t) * (1 + math.sqrt(2 * (d - 1))) + 6 * t)


def _laplace_k(m: float) -> float:
    """The sub-exponential constant of the released code's Laplace bounds, m variables."""
    return 2 * max((math.sqrt(2) + 1) / (math.sqrt(2) - 1), 2 * math.log(m) / math.log(2))


def laplace_norm_bound(d: int, b: float) -> float:
    """``‖Lap(1)^d‖ ≤ 1.5√d + K ln(2/b)`` (the paper's Lemma 13, the released constants)."""
    return 1.5 * math.sqrt(d) + math.log(2 / b) * _laplace_k(d)


def laplace_wigner_spectral_bound(d: int, b: float) -> float:
    """Spectral norm of a Symmetric Laplace Wigner matrix (Lemma 14, released constants)."""
    theta = min((math.log(d) / d) ** 0.3, 0.5) if d > 1 else 0.0
    middle = 6 * math.log(d) / math.sqrt(math.log1p(theta)) if d > 1 else 0.0
    entries = max(d * (d + 1) / 2, 2.0)
    return ((1 + theta) * (2 * math.sqrt(d) + middle)
            + math.sqrt(2) * math.log(2 / b) * _laplace_k(entries))


def laplace_wigner_frobenius_bound(d: int, b: float) -> float:
    """Frobenius norm of a Symmetric Laplace Wigner matrix: ``1.5 d + K ln(2/b)``."""
    return 1.5 * d + math.log(2 / b) * _laplace_k(max(d * (d + 1) / 2, 2.0))


@dataclass(frozen=True)
class ErrorProxies:
    """AdaptiveCov's error proxies at clip radius τ: ``E_S(τ) = τ s₁ + τ² s₂``, ``E_G = τ² g₁``.

    They depend on the data only through the released trace bound, so evaluating them
    spends nothing.
    """

    s1: float
    s2: float
    g1: float

    def separate(self, tau: Radius) -> Radius:
        """``E_S(τ)``, SeparateCov's error bound on rows clipped to radius τ."""
        return tau * self.s1 + tau * tau * self.s2

    def gauss(self, tau: Radius) -> Radius:
        """``E_G(τ)``, GaussCov's error bound on rows clipped to radius τ."""
        return tau * tau * self.g1


def error_proxies(trace: float, n: int, d: int, privacy: Privacy, beta: float,
                  c_s: float) -> ErrorProxies:
    """The proxies of ALGORITHMS.md §6 at budget ``privacy`` and failure probability β.

    zCDP (ρ₁ = ``privacy.amount``): ``s₁ = 2^{5/4}√tr √ν/(√n ρ₁^{1/4})/c_S``,
    ``s₂ = √2 η/(n√ρ₁)``, ``g₁ = ω/(n√ρ₁)`` with η, ν at β/2 and ω at β. Pure DP
    (ε₁): ``s₁ = √(8√2 d tr ν_L/(ε₁ n))/c_S``, ``s₂ = 4η_L/(ε₁ n)``, ``g₁ = √2 d ω_L/(n ε₁)`` —
    the released code omits the ``1/ε₁`` in ``g₁``; fixed here. ``c_S = 1`` gives the
    theorems' bounds.
    """
    amount = privacy.amount
    if privacy.notion == "zcdp":
        eta = gaussian_norm_bound(d, beta / 2)
        nu = wigner_spectral_bound(d, beta / 2)
        omega = wigner_frobenius_bound(d, beta)
        s1 = 2**1.25 * math.sqrt(trace) * math.sqrt(nu) / (math.sqrt(n) * amount**0.25) / c_s
        return ErrorProxies(s1, math.sqrt(2) * eta / (n * math.sqrt(amount)),
                            omega / (n * math.sqrt(amount)))
    eta = laplace_norm_bound(d, beta / 2)
    nu = laplace_wigner_spectral_bound(d, beta / 2)
    omega = laplace_wigner_frobenius_bound(d, beta)
    s1 = math.sqrt(8 * math.sqrt(2) * d * trace * nu / (amount * n)) / c_s
    return ErrorProxies(s1, 4 * eta / (amount * n), math.sqrt(2) * d * omega / (n * amount))
