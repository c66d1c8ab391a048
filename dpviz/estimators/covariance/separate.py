"""SeparateCov / SeparateLapCov: eigenvalues and eigenvectors released separately.

Dong, Liang & Yi 2022 (seed 001), Algorithm 2 and §6; ALGORITHMS.md §6. With the budget
split ``ρ/2 + ρ/2`` (a labelled choice):

1. ``λ`` = eigenvalues of Σ (``eigvalsh``, no vectors needed);
2. eigenvectors ``P̃`` of ``Σ̃_G = Σ + σ_G·GWig(d)``, ``σ_G = √2 r²/(n√ρ)`` (GaussCov at ρ/2,
   not clamped), sorted by **decreasing** eigenvalue;
3. ``λ̃ = λ + σ_λ z``, ``σ_λ = Δ₂(λ)/√(2·ρ/2)``, ``Δ₂(λ) = √2 r²/n`` (Lemma 8), sorted
   descending and clamped to ``[0, r²]``;
4. output ``P̃ diag(λ̃) P̃ᵀ``.

Pure DP: ``Σ̃_G`` from LapCov at ε/2, eigenvalues ``+ Lap(2r²/n/(ε/2))``.

Fix of the released code (hkustDB/PrivateCovariance): it takes ``svd`` of the indefinite
``Σ̃_G`` and pairs its singular vectors with Σ's singular values, which mis-orders negative
directions and outputs a non-PSD matrix (~20% worse); this uses ``eigh`` and sorts.
Two eigendecompositions: ``eigvalsh(Σ)`` and ``eigh(Σ̃_G)``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.estimators.covariance.bounds import error_proxies
from dpviz.estimators.covariance.common import (
    CovarianceData,
    Privacy,
    clamp_eigenvalues,
    covariance_result,
    descending_eigh,
    noisy_matrix,
    noisy_vector,
    prepare,
    privacy_of,
    recompose,
)
from dpviz.estimators.covariance.gauss import BETA
from dpviz.estimators.result import Result
from dpviz.privacy import Budget, Ledger

EIGENVECTOR_SHARE = 0.5  # the paper's split: half for the eigenvectors, half for the eigenvalues


def separate_cov(matrix: NDArray[np.float64], privacy: Privacy, *, n: int, radius: float,
                 rng: np.random.Generator, ledger: Ledger,
                 eigenvector_share: float = EIGENVECTOR_SHARE
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Algorithm 2 on a second moment of rows in ``B(0, radius)``.

    Returns the released matrix and its eigenvalues (descending).
    """
    values = np.asarray(np.linalg.eigvalsh(matrix)[::-1], dtype=np.float64)
    noisy = noisy_matrix(matrix, privacy.share(eigenvector_share), n=n, radius=radius,
                         rng=rng, ledger=ledger, name="eigenvector matrix (Sigma + noise)")
    _, vectors = descending_eigh(noisy)
    released = noisy_vector(values, privacy.share(1 - eigenvector_share),
                            l2=math.sqrt(2) * radius**2 / n, l1=2 * radius**2 / n, rng=rng,
                            ledger=ledger, name="eigenvalues")
    released = clamp_eigenvalues(np.sort(released)[::-1], radius)
    return recompose(vectors, released), released


def separate_error_bound(n: int, d: int, trace: float, privacy: Privacy, radius: float,
                         beta: float = BETA) -> float:
    """Theorem 1's bound (pure DP: Lemmas 15–18) with constant 1, probability ≥ 1 − β.

    The proxies of :func:`~dpviz.estimators.covariance.bounds.error_proxies` with ``c_S = 1`` at the
    radius r, on rows scaled to the unit ball (trace ``tr/r²``), scaled back by r².
    """
    if math.isinf(privacy.amount):
        return 0.0
    proxies = error_proxies(trace / radius**2, n, d, privacy, beta, c_s=1.0)
    return radius**2 * proxies.separate(1.0)


def separate_covariance(data: ArrayLike | CovarianceData, budget: Budget, *,
                        rng: np.random.Generator, radius: float | str | None = None,
                        eigenvector_share: float = EIGENVECTOR_SHARE) -> Result:
    """SeparateCov (ρ-zCDP) or SeparateLapCov (ε-DP when δ = 0).

    Parameters
    ----------
    data : array-like or CovarianceData
        n × d rows, rows of norm > r clipped to ``B(0, r)``; or :func:`prepare`'s output.
    budget : Budget
        ρ, (ε, δ) under zCDP, or ε with δ = 0.
    rng : numpy.random.Generator
        The noise source.
    radius : float, "data" or None
        The public radius r (``None``: the unit ball).
    eigenvector_share : float
        Share of the budget for the eigenvectors (the rest to the eigenvalues).

    Returns
    -------
    Result
        The covariance contract of :mod:`dpviz.estimators.covariance`.

    Examples
    --------
    >>> from dpviz.privacy import Budget
    >>> r = separate_covariance([[0.6, 0.0], [0.0, 0.8]], Budget(epsilon=float("inf")),
    ...                         rng=np.random.default_rng(0))
    >>> np.abs(r.estimate["covariance"]).round(2).tolist()
    [[0.18, 0.0], [0.0, 0.32]]
    """
    prepared = prepare(data, radius)
    privacy, conversion = privacy_of(budget)
    ledger = Ledger(budget)
    n, d, r = prepared.n, prepared.d, prepared.radius
    covariance, values = separate_cov(prepared.moment, privacy, n=n, radius=r, rng=rng,
                                      ledger=ledger, eigenvector_share=eigenvector_share)
    variant = ("SeparateCov (Gaussian, zCDP)" if privacy.notion == "zcdp"
               else "SeparateLapCov (Laplace, pure DP)")
    trace = float(np.trace(prepared.moment))  # of the clipped rows the noise is for
    return covariance_result(
        prepared, budget, ledger, covariance=covariance, eigenvalues=values,
        error_bound=separate_error_bound(n, d, trace, privacy, r),
        choices={"variant": variant, "budget conversion": conversion,
                 "eigenvector_share": eigenvector_share,
                 "eigenvalue clamp": "[0, r^2]", "eigenvectors": "eigh, sorted decreasing "
                 "(the released code's svd fixed)", "beta (error bound)": BETA})
