"""Private factor analysis: one noisy second-moment matrix, then EM as post-processing.

Seed 002 (Park et al., DP-EM, §6 "DPEM for factor analysis"), as ALGORITHMS.md §2 states it
("Factor analysis" bullet). The factor model ``x = Wz + e``, ``z ~ N(0, I)``,
``e ~ N(0, Ψ)`` (Ψ diagonal) touches the data only through ``Λ = XᵀX/n``. Rows are clipped to
the public ball and mapped onto the unit ball, where, by the rank-one fact of ALGORITHMS.md
§1.1 (``‖xxᵀ − yyᵀ‖_F ≤ √2`` for ``‖x‖, ‖y‖ ≤ 1``), Λ has Frobenius sensitivity ``√2/n`` under
replace-one neighbours. Λ is released **once** with symmetric Gaussian noise (Analyze Gauss),
projected onto the PSD cone, and EM runs on it for as many iterations as wanted at no further
privacy cost.

The data are **not centred** on their mean (the mean is not private and no private mean is
released): the model is fitted to the second moment about the ball's centre c, so what is
estimated is ``E[(x − c)(x − c)ᵀ] ≈ WWᵀ + Ψ``. With the data's mean far from c the first
factor mostly carries that mean. The EM's Ψ update uses the new W (the standard monotone
form; ALGORITHMS.md §2), not the seed's display, which reuses the old one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.core import limits
from dpviz.core.entry import CostModel, Estimator, Param
from dpviz.core.linalg import project_psd
from dpviz.core.relations import REPLACE_ONE
from dpviz.data import as_matrix
from dpviz.estimators.neighbours import factor_pair
from dpviz.estimators.result import Result
from dpviz.privacy import Budget, BudgetError, Ledger, PlannedRelease, solve, symmetric_gaussian
from dpviz.privacy.bounds import resolve_ball

FACTORS_RANGE = limits.Limit("factors", 1, 50)
ITERATIONS_RANGE = limits.Limit("iterations", 1, 5000)
EIGENVALUE_FLOOR = 1e-4
PSI_FLOOR = 1e-6


def second_moment_sensitivity(n: int) -> float:
    """Frobenius sensitivity of ``XᵀX/n`` for rows in the unit ball (replace-one): ``√2/n``.

    Examples
    --------
    >>> round(second_moment_sensitivity(100), 6)
    0.014142
    """
    return math.sqrt(2.0) / n


def fa_log_likelihood(second_moment: ArrayLike, loadings: ArrayLike,
                      noise_variances: ArrayLike) -> float:
    """Mean Gaussian log-likelihood per row of the FA model given the rows' second moment.

    ``−½[d ln 2π + ln det C + tr(C⁻¹Λ)]`` with ``C = WWᵀ + Ψ``: the model's likelihood of
    zero-mean rows whose second moment is Λ, the quantity FA-EM increases.

    Examples
    --------
    >>> round(fa_log_likelihood(np.eye(2), np.zeros((2, 1)), np.ones(2)), 4)
    -2.8379
    """
    lam = np.asarray(second_moment, dtype=float)
    w = np.asarray(loadings, dtype=float)
    c = w @ w.T + np.diag(np.asarray(noise_variances, dtype=float))
    sign, logdet = np.linalg.slogdet(c)
    if sign <= 0:
        return -math.inf
    d = lam.shape[0]
    return float(-0.5 * (d * math.log(2 * math.pi) + logdet + np.trace(np.linalg.solve(c, lam))))


def fa_em_step(second_moment: NDArray[np.float64], loadings: NDArray[np.float64],
               noise_variances: NDArray[np.float64],
               psi_floor: float = PSI_FLOOR) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """One FA-EM step on a second-moment matrix (ALGORITHMS.md §2; seed 002 §6).

    ``G = (I + WᵀΨ⁻¹W)⁻¹``; ``W_new = ΛΨ⁻¹WG[G + GWᵀΨ⁻¹ΛΨ⁻¹WG]⁻¹``;
    ``Ψ_new = diag(Λ − W_new G WᵀΨ⁻¹Λ)``, floored at ``psi_floor``.

    Examples
    --------
    By hand: ``G = 1/2``, ``E[xz] = 3/2``, ``E[z²] = 5/4``, so ``W = 6/5`` and
    ``Ψ₁ = 3 − (6/5)(3/2) = 6/5``.

    >>> w, psi = fa_em_step(np.diag([3.0, 1.0]), np.array([[1.0], [0.0]]), np.ones(2))
    >>> w.round(6).tolist(), psi.round(6).tolist()
    ([[1.2], [0.0]], [1.2, 1.0])
    """
    lam, w, psi = second_moment, loadings, noise_variances
    f = w.shape[1]
    psi_inv_w = w / psi[:, None]
    g = np.linalg.inv(np.eye(f) + w.T @ psi_inv_w)
    g = (g + g.T) / 2
    b = psi_inv_w @ g                      # Ψ⁻¹WG: row i of E[z | x] = Bᵀx
    lam_b = lam @ b                        # ΛΨ⁻¹WG = E[x zᵀ]
    m = g + b.T @ lam_b                    # E[z zᵀ]
    w_new = np.linalg.solve(m, lam_b.T).T.astype(np.float64, copy=False)
    psi_new: NDArray[np.float64] = np.maximum(np.diag(lam) - np.sum(w_new * lam_b, axis=1),
                                              psi_floor)
    return w_new, psi_new


def canonical_rotation(loadings: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rotate W to orthogonal columns sorted by ‖column‖, signs with non-negative sums.

    The FA likelihood depends on W only through WWᵀ, so ``W → WQ`` (Q orthogonal) changes
    nothing but makes the columns comparable across runs: the first column is the factor that
    explains the most.

    Examples
    --------
    >>> canonical_rotation(np.array([[0.0, -1.0], [2.0, 0.0]])).tolist()
    [[0.0, 1.0], [2.0, 0.0]]
    """
    values, vectors = np.linalg.eigh(loadings.T @ loadings)
    rotated = loadings @ vectors[:, np.argsort(values)[::-1]]
    sums = rotated.sum(axis=0)
    peaks = rotated[np.argmax(np.abs(rotated), axis=0), np.arange(rotated.shape[1])]
    signs = np.where(np.abs(sums) > 1e-12 * np.abs(rotated).sum(axis=0),
                     np.sign(sums), np.sign(peaks))
    out: NDArray[np.float64] = rotated * np.where(signs == 0, 1.0, signs) + 0.0
    return out


def initial_parameters(d: int, factors: int, rng: np.random.Generator
                       ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Data-independent start (W₀, diag Ψ₀) in unit-ball units.

    Unit-ball rows have ``tr Λ ≤ 1``: W₀ has i.i.d. ``N(0, 1/(d·factors))`` entries
    (``‖W₀‖_F² ≈ 1``) and ``Ψ₀ = I/d`` (trace 1).
    """
    w = rng.normal(0.0, 1.0 / math.sqrt(d * factors), size=(d, factors))
    return w, np.full(d, 1.0 / d)


def fit_factor_analysis(second_moment: ArrayLike, factors: int, *, iterations: int,
                        rng: np.random.Generator | None = None,
                        start: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None
                        ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """FA-EM on a (released, PSD) second-moment matrix: post-processing, no privacy cost.

    Starts from ``start`` = (W₀, diag Ψ₀), or from a data-independent draw from ``rng``.
    Returns the loadings W (canonically rotated), the noise variances diag(Ψ), and the mean
    log-likelihood per row after 0, 1, …, ``iterations`` steps.

    Examples
    --------
    >>> lam = np.array([[1.0, 0.8], [0.8, 1.0]])
    >>> w, psi, ll = fit_factor_analysis(lam, 1, iterations=500, rng=np.random.default_rng(0))
    >>> (w @ w.T + np.diag(psi)).round(3).tolist()
    [[1.0, 0.8], [0.8, 1.0]]
    """
    lam = np.asarray(second_moment, dtype=float)
    if start is None:
        if rng is None:
            raise ValueError("fit_factor_analysis needs a start or a generator to draw one")
        start = initial_parameters(lam.shape[0], factors, rng)
    w, psi = start
    history = [fa_log_likelihood(lam, w, psi)]
    for _ in range(iterations):
        w, psi = fa_em_step(lam, w, psi)
        history.append(fa_log_likelihood(lam, w, psi))
    return canonical_rotation(w), psi, np.array(history)


def private_factor_analysis(data: ArrayLike, budget: Budget, *, factors: int = 5,
                            iterations: int = 100, rng: np.random.Generator,
                            radius: float | str | None = None) -> Result:
    """Factor analysis of the rows' second moment, released once with Gaussian noise.

    Seed 002 (Park et al., DP-EM) §6; ALGORITHMS.md §2 ("Factor analysis").

    Parameters
    ----------
    data : array-like
        n × d rows, one per person.
    budget : Budget
        The target; the one release is Gaussian, so it needs δ > 0 (or a ρ budget).
    factors : int
        Number of factors, 1 … min(50, d).
    iterations : int
        FA-EM steps on the released matrix (post-processing; 1 … 5000).
    rng : numpy.random.Generator
        Draws the (data-independent) EM start, then the noise.
    radius : float, "data" or None
        Public radius R of the clipping ball about the origin (``None``: the unit ball;
        ``"data"``: read from the data, not private).

    Returns
    -------
    Result
        ``estimate``: ``loadings`` (d × factors, data units: R·W) and ``noise_variances``
        (d, data units: R²·diag Ψ), so that ``loadings loadingsᵀ + diag(noise_variances)``
        models ``E[(x − c)(x − c)ᵀ]`` about the ball's centre c (not the covariance: the data
        are not centred). ``diagnostics``: ``second_moment`` (the released matrix after the
        PSD projection, data units), ``log_likelihood`` per EM step (unit-ball units, on the
        released matrix), ``noise_scale`` (σ, unit-ball units), ``eigenvalues_raised``.

    Raises
    ------
    ValueError
        Bad data, factors outside 1 … min(50, d), iterations outside 1 … 5000; a
        :class:`~dpviz.privacy.BudgetError` for a pure-DP budget (δ = 0).

    Examples
    --------
    >>> from dpviz.privacy import Budget
    >>> x = np.random.default_rng(1).normal(size=(2000, 3)) * 0.3
    >>> r = private_factor_analysis(x, Budget(epsilon=1.0, delta=1e-5), factors=1,
    ...                             rng=np.random.default_rng(0))
    >>> r.estimate["loadings"].shape, r.ledger.releases[0].mechanism
    ((3, 1), 'symmetric_gaussian')
    """
    if budget.rho is None and budget.delta == 0 and not budget.non_private:
        raise BudgetError("private factor analysis releases the second-moment matrix with "
                          "Gaussian noise, which needs delta > 0 (or a rho budget); pure "
                          "epsilon-DP (delta = 0) is not available for it")
    x = as_matrix(data)
    n, d = x.shape
    factors = limits.check_integer(FACTORS_RANGE, factors)
    if factors > d:
        raise ValueError(f"factors must be at most the number of columns ({d}), got {factors}")
    iterations = limits.check_integer(ITERATIONS_RANGE, iterations)
    ball = resolve_ball(x, radius)
    points = ball.to_unit(x)

    # The start is drawn before the noise, so one seed gives the same start at every ε.
    start = initial_parameters(d, factors, rng)
    sensitivity = second_moment_sensitivity(n)
    plan = [PlannedRelease("second moment", "gaussian", sensitivity=sensitivity)]
    allocation = solve(plan, budget)["second moment"]
    ledger = Ledger(budget)
    noisy = symmetric_gaussian(points.T @ points / n, sensitivity=sensitivity,
                               sigma=allocation.scale, rng=rng, ledger=ledger,
                               name="second moment")
    released = project_psd(noisy, EIGENVALUE_FLOOR)
    raised = int(np.sum(np.linalg.eigvalsh((noisy + noisy.T) / 2) < EIGENVALUE_FLOOR))
    w, psi, history = fit_factor_analysis(released, factors, iterations=iterations,
                                          start=start)

    choices: dict[str, Any] = {
        "bound": ball.describe(), "radius": ball.radius,
        "sensitivity": sensitivity, "sensitivity norm": "Frobenius",
        "sensitivity reason": ("sqrt(2)/n: for rows in the unit ball "
                               "‖xxᵀ − yyᵀ‖ ≤ √2 in the Frobenius norm"),
        "gaussian calibration": ("analytic" if budget.method in ("linear", "advanced")
                                 and not budget.paper_mode else
                                 "classic" if budget.method in ("linear", "advanced")
                                 else f"noise multiplier from {budget.method}"),
        "centring": ("none: the data mean is not private, so the model is fitted to the "
                     "second moment about the ball's centre, E[(x - c)(x - c)^T] = WW^T + Psi"),
        "psd projection": f"eigenvalues of the released matrix raised to at least "
                          f"{EIGENVALUE_FLOOR:g} (unit-ball units)",
        "noise variance floor": f"diag(Psi) >= {PSI_FLOOR:g} (unit-ball units)",
        "initialisation": ("W entries N(0, 1/(d * factors)) and Psi = I/d from the seed "
                           "(unit-ball units; data-independent)"),
        "em": (f"{iterations} FA-EM steps on the released matrix (post-processing, no "
               "privacy cost); Psi updated with the new W"),
        "rotation": ("W rotated to orthogonal columns sorted by norm, each column's sum "
                     ">= 0 (the likelihood depends only on WW^T)"),
    }
    return Result(
        estimate={"loadings": ball.radius * w, "noise_variances": ball.radius**2 * psi},
        ledger=ledger, choices=choices, not_private=ball.not_private,
        diagnostics={"second_moment": ball.covariance_from_unit(released),
                     "log_likelihood": history, "noise_scale": ledger.releases[-1].scale,
                     "eigenvalues_raised": raised})


def digits_factor_images(loadings: ArrayLike) -> NDArray[np.float64]:
    """The columns of W for scikit-learn's digits (64 pixels) as 8 × 8 images.

    Parameters
    ----------
    loadings : array-like
        64 × factors.

    Returns
    -------
    ndarray
        factors × 8 × 8, pixel ``(r, c)`` of image j being row ``8r + c`` of column j.

    Examples
    --------
    >>> digits_factor_images(np.arange(128.0).reshape(64, 2)).shape
    (2, 8, 8)
    """
    w = np.asarray(loadings, dtype=float)
    if w.ndim != 2 or w.shape[0] != 64:
        raise ValueError(f"digits loadings must be 64 × factors, got shape {w.shape}")
    return np.ascontiguousarray(w.T.reshape(w.shape[1], 8, 8))


ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({
    "dp_fa": Estimator(
        task="factor_analysis", name="dp_fa", function=private_factor_analysis,
        relation=REPLACE_ONE,
        example={"factors": 1, "iterations": 2},
        neighbours=factor_pair,
        label="Private factor analysis (noisy second moment + EM)",
        paper="Park et al. 2017 (DP-EM), Section 6",
        notion="approximate", outputs=("loadings", "noise_variances"),
        params=(
            Param("factors", "int", 5, min=1, max=50,
                  help="number of factors (at most the number of columns)"),
            Param("iterations", "int", 100, min=1, max=5000,
                  help="EM steps on the released matrix (post-processing, free)"),
        ),
        # bench/work_costs.py factor_analysis/dp_fa, units n·d² + d³ (the d × d moment and its
        # eigendecomposition lead, as in covariance): 0.082 s at n = 20 000, d = 64 and 0.165 s
        # at n = 5 000, d = 128 on a machine busy with a test run (an upper estimate)
        cost=CostModel(4.6e-08, bytes_per_unit=25.0)),
})
