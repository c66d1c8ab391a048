"""EMCov (Amin, Dick, Kulesza, Muñoz Medina & Vassilvitskii 2019): the prior work the paper beats.

ALGORITHMS.md §6. Works on ``C = XᵀX`` (unnormalised, rows in the unit ball after dividing by
r) and divides by n at the end:

1. eigenvalues ``λ(C) + Lap(2/ε₀)`` (``Δ₁(λ(C)) = 2``), clamped to ``[0, n]``, sorted descending
   (sorting is post-processing; it pairs the largest with the first vector);
2. eigenvectors one at a time: ``u ∝ exp((εᵢ/4) uᵀCᵢu)`` on the unit sphere of the remaining
   subspace — the exponential mechanism with utility ``uᵀCᵢu`` at Amin et al.'s utility
   sensitivity 2 (the replace-one value is 1, so this is conservative by 2, as in the paper
   and the released code) — sampled exactly by the Bingham sampler of Kent, Ganeiber & Mardia
   (:func:`dpviz.privacy.mechanisms.exponential_on_sphere`); then ``Cᵢ`` is restricted to the
   orthogonal complement;
3. output ``Σ λ̂ᵢ θᵢθᵢᵀ / n``, times r².

Budget split (labelled choices): ε₀ = ε/2 for the eigenvalues, ε/2 for the eigenvectors, shared
equally (``uniform``) or ∝ ``√(λ̂ᵢ + t)``, ``t = (2/ε₀) ln(2d/β)`` (``weighted``, Amin et al.'s
second scheme). **Its guarantee is pure ε-DP.** A ρ-zCDP budget is converted as the paper's
plots do, ``ε = ρ + 2√(ρ ln(1/δ))`` with δ = 1e-10: the result is then (ε, 1e-10)-DP (indeed
ε-DP), comparable with the ρ-zCDP estimators only through that (ε, δ) — not ρ-zCDP, and its
ledger is kept in ε. (The released code splits the eigenvectors' ε by advanced composition with
the same δ; this keeps the pure guarantee.) An (ε, δ) budget is used as ε-DP. O(d) eigen-
decompositions: the UI should cap d near 200.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.estimators.covariance.common import (
    _SAFETY,
    CovarianceData,
    covariance_result,
    paper_epsilon,
    prepare,
    recompose,
)
from dpviz.estimators.result import Result
from dpviz.privacy import Budget, Ledger, exponential_on_sphere, laplace
from dpviz.privacy.budget import STATED_DELTA

DELTA_FOR_RHO = STATED_DELTA  # the paper's conversion of ρ for EMCov's plots
EIGENVALUE_SHARE = 0.5
UTILITY_SENSITIVITY = 2.0
BETA = 0.1


def _complement(u: NDArray[np.float64]) -> NDArray[np.float64]:
    """An orthonormal basis (columns) of ``u⊥`` in ``ℝ^q`` (a Householder reflection)."""
    q = u.size
    e = np.zeros(q)
    e[0] = 1.0
    h = u + e if u[0] >= 0 else u - e  # the reflection maps e₁ to ∓u; its other columns ⟂ u
    reflection = np.eye(q) - 2 * np.outer(h, h) / (h @ h)
    return reflection[:, 1:]


def emcov(prepared: CovarianceData, epsilon: float, *, rng: np.random.Generator, ledger: Ledger,
          eigenvalue_share: float = EIGENVALUE_SHARE,
          eigenvector_budget: str = "uniform") -> tuple[NDArray[np.float64],
                                                          NDArray[np.float64]]:
    """Steps 1–3 at total ε; returns the released matrix and its eigenvalues (descending)."""
    if not 0 < eigenvalue_share < 1:
        raise ValueError(f"eigenvalue_share must be > 0 and < 1, got {eigenvalue_share}")
    n, d, r = prepared.n, prepared.d, prepared.radius
    c = prepared.moment * (n / r**2)  # XᵀX of the rows scaled to the unit ball
    epsilon = epsilon / _SAFETY  # d + 1 shares must not add up past ε by rounding
    eps0 = epsilon * eigenvalue_share
    lam = np.asarray(laplace(np.linalg.eigvalsh(c)[::-1], sensitivity=2.0,
                             scale=0.0 if math.isinf(eps0) else 2.0 / eps0, rng=rng,
                             ledger=ledger, name="eigenvalues of X^T X"))
    lam = np.sort(np.clip(lam, 0.0, n))[::-1]
    eps_vectors = epsilon * (1 - eigenvalue_share)
    if eigenvector_budget == "weighted" and not math.isinf(eps_vectors):
        weights = np.sqrt(lam + 2 / eps0 * math.log(2 * d / BETA))
        shares = eps_vectors * weights / weights.sum()
    else:
        shares = np.full(d, eps_vectors / d)
    basis = np.eye(d)
    current = c
    thetas = np.empty((d, d))
    for i in range(d):
        u = exponential_on_sphere(current, sensitivity=UTILITY_SENSITIVITY,
                                  epsilon=float(shares[i]), rng=rng, ledger=ledger,
                                  name=f"eigenvector {i + 1}")
        thetas[:, i] = basis @ u
        if i < d - 1:
            complement = _complement(u)
            basis = basis @ complement
            current = complement.T @ current @ complement
            current = (current + current.T) / 2
    values = lam / n * r**2
    return recompose(thetas, values), values


def emcov_covariance(data: ArrayLike | CovarianceData, budget: Budget, *,
                     rng: np.random.Generator, radius: float | str | None = None,
                     eigenvalue_share: float = EIGENVALUE_SHARE,
                     eigenvector_budget: str = "uniform") -> Result:
    """EMCov: pure ε-DP (a ρ budget converted with δ = 1e-10, as the paper's plots).

    Examples
    --------
    >>> r = emcov_covariance([[0.6, 0.0], [0.0, 0.8]], Budget(epsilon=float("inf")),
    ...                      rng=np.random.default_rng(0))
    >>> np.abs(r.estimate["covariance"]).round(2).tolist()
    [[0.18, 0.0], [0.0, 0.32]]
    """
    prepared = prepare(data, radius)
    if budget.non_private:
        epsilon, conversion, ledger_budget = math.inf, "epsilon = inf: no noise", budget
    elif budget.rho is not None:
        epsilon = paper_epsilon(budget.rho, DELTA_FOR_RHO)
        conversion = (f"rho = {budget.rho:g} converted as the paper's plots: epsilon = rho + "
                      f"2 sqrt(rho ln(1/delta)) = {epsilon:.6g} at delta = 1e-10; EMCov is "
                      "pure epsilon-DP at that epsilon, not rho-zCDP")
        ledger_budget = Budget(epsilon=epsilon)
    else:
        epsilon = float(budget.epsilon)  # type: ignore[arg-type]
        conversion = (f"pure epsilon-DP at epsilon = {epsilon:g}" + (
            f" (delta = {budget.delta:g} not needed)" if budget.delta else ""))
        ledger_budget = Budget(epsilon=epsilon)
    ledger = Ledger(ledger_budget)
    covariance, values = emcov(prepared, epsilon, rng=rng, ledger=ledger,
                               eigenvalue_share=eigenvalue_share,
                               eigenvector_budget=eigenvector_budget)
    return covariance_result(
        prepared, budget, ledger, covariance=covariance, eigenvalues=values,
        error_bound=math.nan,
        choices={"variant": "EMCov (Amin et al. 2019), pure epsilon-DP",
                 "budget conversion": conversion, "eigenvalue_share": eigenvalue_share,
                 "eigenvector_budget": eigenvector_budget,
                 "utility sensitivity": "2 (Amin et al.; replace-one value 1)",
                 "eigenvalue clamp": "[0, n] on X^T X"})
