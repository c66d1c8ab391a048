"""GaussCov and LapCov: the whole second moment plus symmetric noise (the paper's baseline).

Dong, Liang & Yi 2022 (seed 001), §3 and §6; ALGORITHMS.md §6. ``Σ̃ = Σ + σ·GWig(d)`` with
``σ = Δ₂/√(2ρ) = r²/(n√ρ)`` (ρ-zCDP), or the upper triangle ``+ Lap(√2 d r²/(nε))``, mirrored
(ε-DP); then one ``eigh``, eigenvalues clamped to ``[0, r²]`` and recomposed — the paper's
curves are this clamped version. Error ``≈ r²d/(n√ρ)``, not trace-sensitive.

The released code (hkustDB/PrivateCovariance) adds the same noise; nothing to fix here.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dpviz.estimators.covariance.bounds import (
    laplace_wigner_frobenius_bound,
    wigner_frobenius_bound,
)
from dpviz.estimators.covariance.common import (
    CovarianceData,
    Privacy,
    covariance_result,
    gauss_cov,
    prepare,
    privacy_of,
)
from dpviz.estimators.result import Result
from dpviz.privacy import Budget, Ledger

BETA = 0.1  # failure probability of the reported error bound (the paper's β)


def gauss_error_bound(n: int, d: int, privacy: Privacy, radius: float,
                      beta: float = BETA) -> float:
    """GaussCov's (LapCov's) Frobenius error bound with probability ≥ 1 − β.

    ``r² ω(d, β)/(n√ρ)`` (zCDP) or ``√2 d r² ω_L(d, β)/(nε)`` (pure DP); 0 when ε = ∞.

    Examples
    --------
    >>> round(gauss_error_bound(50_000, 200, Privacy("zcdp", 0.1), 1.0), 5)
    0.01281
    """
    if math.isinf(privacy.amount):
        return 0.0
    if privacy.notion == "zcdp":
        return radius**2 * wigner_frobenius_bound(d, beta) / (n * math.sqrt(privacy.amount))
    return (math.sqrt(2) * d * radius**2 * laplace_wigner_frobenius_bound(d, beta)
            / (n * privacy.amount))


def gauss_covariance(data: ArrayLike | CovarianceData, budget: Budget, *,
                     rng: np.random.Generator, radius: float | str | None = None) -> Result:
    """GaussCov (ρ-zCDP) or LapCov (ε-DP when δ = 0): Algorithm 1 of the paper, clamped.

    Parameters
    ----------
    data : array-like or CovarianceData
        n × d rows, rows of norm > r clipped to ``B(0, r)``; or :func:`prepare`'s output.
    budget : Budget
        ρ, (ε, δ) under zCDP, or ε with δ = 0 (LapCov).
    rng : numpy.random.Generator
        The noise source.
    radius : float, "data" or None
        The public radius r (``None``: the unit ball).

    Returns
    -------
    Result
        The covariance contract of :mod:`dpviz.estimators.covariance`.

    Examples
    --------
    >>> from dpviz.privacy import Budget
    >>> x = [[0.6, 0.0], [0.0, 0.8]]
    >>> r = gauss_covariance(x, Budget(epsilon=float("inf")), rng=np.random.default_rng(0))
    >>> r.estimate["covariance"].round(2).tolist()
    [[0.18, 0.0], [0.0, 0.32]]
    """
    prepared = prepare(data, radius)
    privacy, conversion = privacy_of(budget)
    ledger = Ledger(budget)
    n, d, r = prepared.n, prepared.d, prepared.radius
    covariance, values = gauss_cov(prepared.moment, privacy, n=n, radius=r, rng=rng,
                                   ledger=ledger)
    variant = ("GaussCov (Gaussian, zCDP)" if privacy.notion == "zcdp"
               else "LapCov (Laplace, pure DP)")
    return covariance_result(
        prepared, budget, ledger, covariance=covariance, eigenvalues=values,
        error_bound=gauss_error_bound(n, d, privacy, r),
        choices={"variant": variant, "budget conversion": conversion,
                 "eigenvalue clamp": "[0, r^2]", "beta (error bound)": BETA})


def zero_covariance(data: ArrayLike | CovarianceData, budget: Budget, *,
                    rng: np.random.Generator, radius: float | str | None = None) -> Result:
    """The zero matrix: spends nothing, error ``‖Σ‖_F ≤ tr Σ`` (the paper's trivial baseline).

    ``rng`` is unused (nothing is random); the ledger stays empty.

    Examples
    --------
    >>> from dpviz.privacy import Budget
    >>> r = zero_covariance([[0.6, 0.0], [0.0, 0.8]], Budget(rho=0.1),
    ...                     rng=np.random.default_rng(0))
    >>> r.estimate["covariance"].tolist(), r.diagnostics["error_bound"], r.ledger.releases
    ([[0.0, 0.0], [0.0, 0.0]], 0.5, ())
    """
    privacy_of(budget)  # the same budget validation as every estimator
    prepared = prepare(data, radius)
    d = prepared.d
    return covariance_result(
        prepared, budget, Ledger(budget), covariance=np.zeros((d, d)), eigenvalues=np.zeros(d),
        error_bound=float(np.trace(prepared.true_covariance)),
        choices={"variant": "Zero (releases nothing)"})
