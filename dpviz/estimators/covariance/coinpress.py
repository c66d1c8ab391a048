"""CoinPress covariance: a private second moment from a prior ``floor²I ≼ Σ ≼ r²I`` (zCDP).

Biswas, Dong, Kamath & Ullman, "CoinPress", NeurIPS 2020 (arXiv 2006.06618), Algorithms 3
(one step) and 4 (t steps); ALGORITHMS.md §9. The target is the covariance task's
``Σ = XᵀX/n`` (for centred data, the covariance). ``A₀ = I/r``; step i with share ``wᵢ`` of ρ:

1. whiten: ``yⱼ = A xⱼ``, then project every ``yⱼ`` onto ``B(0, γ)``, ``γ = γ(d, β)`` at
   β = 0.1 (the authors' code);
2. release ``Zᵢ = Σⱼ yⱼyⱼᵀ/n`` plus symmetric Gaussian noise of per-entry ``σᵢ = Δ/√(2ρwᵢ)``,
   ``Δ = √2γ²/n`` (the Frobenius sensitivity), then project it onto the PSD cone;
3. ``U = Zᵢ + ηI``, ``η = ½(2√(d/n) + d/n)``, ``A ← U^{-1/2}A``.

The estimate is ``A⁻¹ Z_t A⁻ᵀ`` with the A that whitened step t. (The released code writes
``A⁻¹ Z_t A⁻¹``, which assumes A symmetric; after two steps ``U^{-1/2}A`` is not.)

Without ``steps`` the number of steps is chosen from public inputs: the condition number
``κ`` of ``AΣAᵀ`` the prior allows (``κ₀ = (r/floor)²``) becomes ``(1 + κ(e + η))/(1 + η − e)``
after a step whose noise has spectral size ``e = 2√d·σᵢ`` (the bounds ``AΣAᵀ ≼ I`` and
``≽ I/κ`` carried through ``U = Z + ηI``, with ``Z`` off by at most e), and the run takes the t
whose predicted Mahalanobis error ``κ_{t−1}·σ_t`` is smallest.

Privacy (replace one row; n is public). ``A`` at step i is a function of the earlier
releases only, so with them fixed every whitened, projected row has ``‖y‖ ≤ γ`` and replacing
one row moves ``Σ yyᵀ/n`` by ``‖yyᵀ − y′y′ᵀ‖_F/n = √(‖y‖⁴ + ‖y′‖⁴ − 2(yᵀy′)²)/n ≤ √2γ²/n``
(ALGORITHMS.md §1.1) — also bounding the upper triangle that receives the noise. Step i is
the Gaussian mechanism at that sensitivity, ``ρwᵢ``-zCDP; the steps compose to ``ρΣwᵢ = ρ``;
the PSD projections, the whitening and the estimate are post-processing; t and every σᵢ come
from public inputs (n, d, β, r, floor, ρ). The prior, the floor and β affect accuracy only
(a Σ larger than ``r²I`` clips rows, privately); ``rows_clipped`` is a diagnostic, not a
release.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.core.entry import Param
from dpviz.data import as_matrix
from dpviz.estimators.coinpress_mean import MAX_STEPS, PAIR_PRIOR, shares, tail_radius
from dpviz.estimators.covariance.bounds import wigner_frobenius_bound
from dpviz.estimators.covariance.common import (
    CovarianceData,
    CovarianceDiagnostics,
    Privacy,
    descending_eigh,
    noisy_matrix,
    privacy_of,
    second_moment,
    squared_norms,
)
from dpviz.estimators.neighbours import NeighbourPair, covariance_pair
from dpviz.estimators.result import Result
from dpviz.privacy import Budget, BudgetError, Ledger, resolve_ball

#: β of the whitened rows' radius γ(d, β) (the authors' code: 0.1).
BETA = 0.1
#: The prior's default floor: the smallest spread, as a share of the radius (κ₀ = 10⁴).
FLOOR_SHARE = 0.01


def regulariser(n: int, d: int) -> float:
    """``η = ½(2√(d/n) + d/n)``, the sampling error a step adds to U (the authors' code).

    Examples
    --------
    >>> round(regulariser(8000, 10), 4)
    0.036
    """
    return (2 * math.sqrt(d / n) + d / n) / 2


def step_sigma(n: int, d: int, rho: float, beta: float = BETA) -> float:
    """Per-entry noise ``σ = Δ/√(2ρ) = γ²/(n√ρ)`` of a step spending ``rho``.

    Examples
    --------
    >>> round(step_sigma(8000, 10, 0.375), 5)
    0.00494
    """
    return 0.0 if math.isinf(rho) else tail_radius(d, beta) ** 2 / (n * math.sqrt(rho))


def best_steps(n: int, d: int, rho: float, kappa: float, beta: float = BETA) -> int:
    """The t with the smallest predicted error ``κ_{t−1}·σ_t`` (the first of equals); public.

    Examples
    --------
    >>> best_steps(8000, 10, 0.5, 10 * math.sqrt(10)), best_steps(8000, 10, 0.5, 1e4)
    (5, 9)
    """
    eta = regulariser(n, d)

    def predicted(t: int) -> float:
        k = kappa
        sigmas = [step_sigma(n, d, w * rho, beta) for w in shares(t)]
        for sigma in sigmas[:-1]:
            e = 2 * math.sqrt(d) * sigma
            k = (1 + k * (e + eta)) / (1 + eta - e) if e < 1 + eta else math.inf
        return k * sigmas[-1]

    return min(range(1, MAX_STEPS + 1), key=lambda t: (predicted(t), t))


@dataclass(frozen=True)
class _Whitened:
    """A step's released second moment, PSD-projected, in its whitened coordinates."""

    values: NDArray[np.float64]
    vectors: NDArray[np.float64]
    clipped: int


def _step(x: NDArray[np.float64], a: NDArray[np.float64], gamma: float, privacy: Privacy,
          *, rng: np.random.Generator, ledger: Ledger, name: str) -> _Whitened:
    y = x @ a.T
    norms = np.sqrt(squared_norms(y))
    over = norms > gamma
    y[over] *= (gamma / norms[over])[:, None]
    n = x.shape[0]
    noisy = noisy_matrix(second_moment(y), privacy, n=n, radius=gamma, rng=rng, ledger=ledger,
                         name=name)
    values, vectors = descending_eigh(noisy)
    return _Whitened(np.maximum(values, 0.0), vectors, int(np.count_nonzero(over)))


def coinpress_covariance(data: ArrayLike | CovarianceData, budget: Budget, *,
                         rng: np.random.Generator, radius: float | str | None = None,
                         floor: float | None = None, steps: int | None = None,
                         beta: float = BETA) -> Result:
    """CoinPress's private covariance (Biswas et al. 2020, Algorithm 4): ρ-zCDP.

    Parameters
    ----------
    data : array-like or CovarianceData
        n × d rows (prepared data: its rows as clipped for the other estimators).
    budget : Budget
        ρ, or (ε, δ > 0) under zCDP accounting.
    rng : numpy.random.Generator
        The noise source.
    radius : float, "data" or None
        r, the prior's top: ``Σ ≼ r²I`` (``None``: 1; ``"data"``: the largest row norm, not
        private).
    floor : float or None
        The prior's bottom: ``Σ ≽ floor²I`` (``None``: ``r/100``); only chooses t.
    steps : int or None
        t; ``None`` picks it (:func:`best_steps`).
    beta : float
        The tail probability of γ(d, β) (accuracy only).

    Returns
    -------
    Result
        The covariance contract of :mod:`dpviz.estimators.covariance`; ``rows_clipped`` counts
        the whitened rows the last step projected, and ``error_bound`` bounds the last noise's
        Frobenius norm in data units w.p. ≥ 1 − β, ``‖A⁻¹‖²·ω(d, β)·σ_t`` (clipping and
        sampling error not included), from released values only.

    Raises
    ------
    BudgetError
        A pure-DP budget (δ = 0), or (ε, δ) under an accounting other than zCDP.

    Examples
    --------
    >>> r = coinpress_covariance([[0.6, 0.0], [0.0, 0.8]], Budget(epsilon=float("inf")),
    ...                          rng=np.random.default_rng(0))
    >>> r.estimate["covariance"].round(2).tolist()
    [[0.18, 0.0], [0.0, 0.32]]
    """
    privacy, conversion = privacy_of(budget)
    if privacy.notion != "zcdp":
        raise BudgetError("CoinPress covariance adds Gaussian noise: give rho, or (epsilon, "
                          "delta > 0) with accounting 'zcdp'")
    x = data.clipped(np.arange(data.n)) if isinstance(data, CovarianceData) else as_matrix(data)
    n, d = x.shape
    ball = resolve_ball(x, radius)
    r = ball.radius
    low = r * FLOOR_SHARE if floor is None else float(floor)
    t = steps if steps is not None else best_steps(n, d, privacy.amount, (r / low) ** 2, beta)
    gamma, eta = tail_radius(d, beta), regulariser(n, d)
    a, a_inverse = np.eye(d) / r, np.eye(d) * r
    ledger = Ledger(budget)
    for i, w in enumerate(shares(t)):
        step = _step(x, a, gamma, privacy.share(w), rng=rng, ledger=ledger,
                     name=f"CoinPress step {i + 1} of {t}")
        if i < t - 1:
            root = np.sqrt(step.values + eta)
            a = (step.vectors / root) @ step.vectors.T @ a
            a_inverse = a_inverse @ (step.vectors * root) @ step.vectors.T
    scaled = a_inverse @ step.vectors * np.sqrt(step.values)
    covariance = scaled @ scaled.T
    last_sigma = step_sigma(n, d, privacy.amount * shares(t)[-1], beta)
    diagnostics = {"true_covariance": second_moment(x),
                   "eigenvalues": np.linalg.eigvalsh(covariance)[::-1],
                   "rows_clipped": step.clipped,
                   "error_bound": np.linalg.norm(a_inverse, 2) ** 2
                   * wigner_frobenius_bound(d, beta) * last_sigma}
    source = "read from the data — not private" if ball.not_private else "public"
    return Result(
        estimate={"covariance": covariance}, ledger=ledger, not_private=ball.not_private,
        diagnostics=CovarianceDiagnostics(diagnostics),
        choices={"bound": f"prior: floor^2 I <= X^T X / n <= r^2 I with r = {r:g} ({source}) "
                          f"and floor = {low:g}; rows are clipped after whitening, at gamma = "
                          f"{gamma:.4g}",
                 "radius": r, "floor": low, "steps": t, "beta": beta,
                 "budget split": "3/4 of rho on the last step, the rest equally",
                 "budget conversion": conversion,
                 "target": "X^T X / n of the unclipped rows (not centred)"})


def coinpress_covariance_pair() -> NeighbourPair:
    """CoinPress covariance's pair: the task's (row 0 e₁ in D, e₂ in D′) under a prior r = 0.01.

    ``A₀ = I/r`` puts row 0 a hundred times beyond γ, so each step projects it onto the sphere
    of radius γ in (nearly) orthogonal directions: ``‖yyᵀ − y′y′ᵀ‖_F`` near its bound ``√2γ²``.
    """
    pair = covariance_pair()
    return replace(pair, params={**pair.params, "radius": PAIR_PRIOR},
                   description=f"n = 10 rows in 2-D, all at the origin but row 0, which is e₁ in "
                   f"D and the orthogonal e₂ in D′; prior r = {PAIR_PRIOR:g}, so the whitened "
                   "row lies far beyond γ and every step projects it onto the sphere of radius "
                   "γ (near the worst case of the sensitivity proof, √2γ²/n)")


#: The parameters of the registry entry (the prior's top is the common ``radius``).
PARAMS = (
    Param("floor", "float", None, min=1e-12, max=1e12,
          help="public lower bound on the spread in every direction (X^T X / n >= floor^2 I); "
               "default radius/100; only chooses the number of steps"),
    Param("steps", "int", None, min=1, max=MAX_STEPS,
          help="number of whitening steps (default: chosen from public inputs)"),
    Param("beta", "float", BETA, min=1e-9, max=0.5, choice=True,
          help="tail probability of the whitened rows' radius gamma(d, beta) (the authors' "
               "code: 0.1)"),
)
