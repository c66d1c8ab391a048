"""The privacy lens: one query on two neighbouring datasets, seen through a mechanism.

A small column of values and its neighbour (one row replaced) are queried — a count of
values ≥ a threshold, a sum or a mean of values clipped to a public range ``[lo, hi]`` — and
the answer released with Laplace or Gaussian noise calibrated by the budget solver. The lens
shows both output densities, the privacy loss ``ln p_D(o)/p_D′(o)`` against ±ε, and an
empirical audit of the release (``dpviz.privacy.audit``).

Replace-one sensitivities: count 1; sum ``hi − lo``; mean ``(hi − lo)/n``
(:func:`dpviz.estimators.mean.mean_sensitivity` with ``R = (hi − lo)/2``). In one dimension L1 = L2.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.data import as_matrix
from dpviz.estimators.mean import Mechanism, mean_sensitivity
from dpviz.estimators.result import Result
from dpviz.estimators.run import run as run_estimator
from dpviz.privacy import (
    Allocation,
    AuditResult,
    Budget,
    Ledger,
    PlannedRelease,
    Total,
    audit,
    compose_runs,
    release,
    simulate,
    solve,
)

Query = Literal["count", "sum", "mean"]
QUERIES: tuple[Query, ...] = ("count", "sum", "mean")
#: The lens page's defaults: the dataset D, the row its neighbour D′ replaces and the new
#: value, the public range [lo, hi] and the count's threshold.
DEFAULT_VALUES: tuple[float, ...] = (0.0, 0.35, 0.9, 0.42, 0.71, 0.18, 0.64, 0.83)
DEFAULT_ROW, DEFAULT_NEW_VALUE = 0, 1.0
DEFAULT_RANGE = (0.0, 1.0)
DEFAULT_THRESHOLD = 0.5
QUERY_LABELS: Mapping[str, str] = MappingProxyType({
    "count": "count of values ≥ threshold", "sum": "sum of clipped values",
    "mean": "mean of clipped values"})


def neighbour(values: ArrayLike, row: int, new_value: float) -> NDArray[np.float64]:
    """The dataset with row ``row`` replaced by ``new_value`` (a replace-one neighbour).

    Examples
    --------
    >>> neighbour([1.0, 2.0, 3.0], 1, 9.0).tolist()
    [1.0, 9.0, 3.0]
    """
    out = as_matrix(values, min_rows=1)[:, 0].copy()
    if not 0 <= row < out.size:
        raise ValueError(f"row must be between 0 and {out.size - 1}, got {row}")
    out[row] = float(new_value)
    return out


def answer(values: ArrayLike, query: Query, lo: float, hi: float, threshold: float) -> float:
    """The exact query answer (values clipped to ``[lo, hi]`` first).

    Examples
    --------
    >>> answer([0.2, 0.9, 5.0], "sum", 0.0, 1.0, 0.5), answer([0.2, 0.9], "count", 0, 1, 0.5)
    (2.1, 1.0)
    """
    x = np.clip(as_matrix(values, min_rows=1)[:, 0], lo, hi)
    if query == "count":
        return float(np.sum(x >= threshold))
    if query == "sum":
        return float(np.sum(x))
    return float(np.mean(x))


def sensitivity(query: Query, lo: float, hi: float, n: int) -> float:
    """Replace-one sensitivity of the query."""
    if query == "count":
        return 1.0
    if query == "sum":
        return hi - lo
    return mean_sensitivity((hi - lo) / 2, n, 1, "gaussian")


@dataclass(frozen=True)
class LensView:
    """Everything the lens page draws.

    Attributes
    ----------
    answer_d, answer_d_prime : float
        Exact answers on D and D′ (ground truth, shown as such).
    released : float
        One private release on D, recorded in ``ledger``.
    allocation : Allocation
        The noise the solver chose.
    grid, density_d, density_d_prime, privacy_loss : ndarray
        Output grid, the two output densities, and ``ln p_D/p_D′`` on it.
    epsilon_bound_delta : float
        The probability under D that the privacy loss exceeds ε (0 for Laplace).
    """

    query: Query
    mechanism: str
    answer_d: float
    answer_d_prime: float
    sensitivity: float
    released: float
    allocation: Allocation
    ledger: Ledger
    grid: NDArray[np.float64]
    density_d: NDArray[np.float64]
    density_d_prime: NDArray[np.float64]
    privacy_loss: NDArray[np.float64]
    loss_exceeds_epsilon: float
    result: Result | None


def _check_range(lo: float, hi: float) -> None:
    if not np.isfinite(lo) or not np.isfinite(hi) or hi <= lo:
        raise ValueError(f"the public range needs lo < hi, got lo = {lo:g}, hi = {hi:g}")


def look(values: ArrayLike, neighbour_values: ArrayLike, *, query: Query, mechanism: Mechanism,
         budget: Budget, lo: float, hi: float, threshold: float = 0.5,
         rng: np.random.Generator) -> LensView:
    """Compute the lens for one query, mechanism and budget.

    The mean query runs the registered ``mean`` estimator (``dpviz.run``); count and sum are
    released here through ``dpviz.privacy.release``.
    """
    if query not in QUERIES:
        raise ValueError(f"query must be one of {', '.join(QUERIES)}, got {query!r}")
    _check_range(lo, hi)
    d = as_matrix(values, min_rows=1)[:, 0]
    d_prime = as_matrix(neighbour_values, min_rows=1, name="the neighbour")[:, 0]
    if d.size != d_prime.size:
        raise ValueError("the two datasets must have the same number of rows (replace one row)")
    a, b = answer(d, query, lo, hi, threshold), answer(d_prime, query, lo, hi, threshold)
    sens = sensitivity(query, lo, hi, d.size)
    result: Result | None = None
    if query == "mean":
        result = run_estimator("mean", mechanism, d[:, None], epsilon=budget.epsilon,
                               delta=budget.delta, rho=budget.rho, accounting=budget.method,
                               paper_mode=budget.paper_mode, seed=None, radius=(hi - lo) / 2,
                               center=(lo + hi) / 2, rng=rng)
        ledger = result.ledger
        released = float(result.estimate["mean"][0])
        allocation = result.diagnostics["allocation"]
    else:
        allocation = solve([PlannedRelease(query, mechanism, sens)], budget)[query]
        ledger = Ledger(budget)
        released = float(release(a, allocation, rng=rng, ledger=ledger))
    scale = allocation.scale
    span = abs(a - b) + 8 * max(scale, 1e-12)
    grid = np.linspace(min(a, b) - span / 2, max(a, b) + span / 2, 801)
    if scale > 0:
        log_a, log_b = (_log_density(mechanism, grid, c, scale) for c in (a, b))
        pdf_a, pdf_b = np.exp(log_a), np.exp(log_b)
        loss = log_a - log_b
        eps = budget.epsilon if budget.epsilon is not None else np.inf
        exceed = _loss_tail(mechanism, a, b, scale, float(eps))
    else:
        pdf_a, pdf_b = np.zeros_like(grid), np.zeros_like(grid)
        loss = np.full_like(grid, np.nan)
        exceed = 1.0 if a != b else 0.0
    return LensView(query, mechanism, a, b, sens, released, allocation, ledger, grid, pdf_a,
                    pdf_b, loss, exceed, result)


def _log_density(mechanism: str, x: NDArray[np.float64], centre: float,
                 scale: float) -> NDArray[np.float64]:
    """Log density at ``x`` of ``centre`` plus Laplace (scale b) or Gaussian (σ) noise.

    Closed forms, as ``scipy.stats`` computes them, without importing it (a second of a fresh
    server's first page, issue 22).

    Examples
    --------
    >>> float(np.exp(_log_density("laplace", np.array([0.0]), 0.0, 0.5))[0])
    1.0
    """
    z = (x - centre) / scale
    if mechanism == "laplace":
        return -np.abs(z) - math.log(2 * scale)
    return -0.5 * z * z - math.log(scale * math.sqrt(2 * math.pi))


def _loss_tail(mechanism: str, a: float, b: float, scale: float, epsilon: float) -> float:
    """P_D[ln p_D(o)/p_D′(o) > ε]: 0 for Laplace; a normal tail for Gaussian."""
    if mechanism == "laplace" or a == b or np.isinf(epsilon):
        return 0.0
    from scipy.special import ndtr  # here: scipy.special costs Home's first run

    mu = abs(a - b) / scale
    # the privacy loss under D is N(μ²/2, μ²)
    return float(ndtr(-(epsilon - mu * mu / 2) / mu))


@dataclass(frozen=True)
class TwoReleases:
    """Two private releases of one mean at two ε, and what the two-ε attack makes of them.

    Attributes
    ----------
    epsilons : tuple of float
        ε₁ and ε₂.
    scales : tuple of float
        b₁ and b₂: the noise scale (Laplace b or Gaussian σ) each release's ledger prints.
    released : tuple of float
        o₁ and o₂, the two private means.
    recovered : float
        The attack's answer ``(b₂·o₁ − b₁·o₂)/(b₂ − b₁)``: exact when both noises are one
        standard draw times their scale.
    true_mean : float
        The clipped data's mean: ground truth for the lesson, not a release.
    shared_seed : bool
        Whether both releases were drawn from one seed (teaching randomness).
    spent : Total
        What the two releases cost together (:func:`dpviz.privacy.compose_runs` of their
        ledgers) — a guarantee only when their noise is secure (``shared_seed`` false).
    """

    epsilons: tuple[float, float]
    scales: tuple[float, float]
    released: tuple[float, float]
    recovered: float
    true_mean: float
    shared_seed: bool
    spent: Total

    @property
    def error(self) -> float:
        """How far the attack's answer is from the true mean."""
        return abs(self.recovered - self.true_mean)


def two_release_attack(values: ArrayLike, *, mechanism: Mechanism, epsilons: tuple[float, float],
                       delta: float, lo: float, hi: float, accounting: str = "linear",
                       seed: int | None) -> TwoReleases:
    """Release the mean of ``values`` (clipped to ``[lo, hi]``) at two ε, then attack it.

    Each release is the registered ``mean`` estimator (``dpviz.run``). With ``seed=N`` both
    are drawn from that seed — teaching randomness, as a page's smooth ε slider does — so
    their noise is one standard draw z times each release's scale: ``oᵢ = m + bᵢz``. Two
    equations, two unknowns: ``(b₂·o₁ − b₁·o₂)/(b₂ − b₁) = m`` exactly, from the outputs and
    the printed scales alone, without the seed. With ``seed=None`` each release draws fresh
    OS entropy (secure randomness): the noises are independent and the same arithmetic
    returns ``m + b₁b₂(z₁ − z₂)/(b₂ − b₁)``, no better than either release.

    Raises
    ------
    ValueError
        Equal ε (the attack needs two scales), or what ``dpviz.run`` refuses.

    Examples
    --------
    >>> shared = two_release_attack([0.1, 0.5, 0.9], mechanism="laplace", epsilons=(1.0, 2.0),
    ...                             delta=0.0, lo=0.0, hi=1.0, seed=3)
    >>> shared.error < 1e-12, round(shared.true_mean, 6)
    (True, 0.5)
    """
    first, second = (float(e) for e in epsilons)
    if first == second:
        raise ValueError(f"the two releases need two different epsilons, got {first:g} twice")
    results = [run_estimator("mean", mechanism, as_matrix(values, min_rows=1),
                             epsilon=epsilon, delta=delta, accounting=accounting, seed=seed,
                             radius=(hi - lo) / 2, center=(lo + hi) / 2)
               for epsilon in (first, second)]
    (o1, o2), (b1, b2) = ((float(r.estimate["mean"][0]) for r in results),
                          (r.ledger.releases[0].scale for r in results))
    return TwoReleases((first, second), (b1, b2), (o1, o2), (b2 * o1 - b1 * o2) / (b2 - b1),
                       float(results[0].diagnostics["true_mean"][0]), seed is not None,
                       compose_runs([r.ledger for r in results]).total())


def audit_view(view: LensView, *, epsilon: float, delta: float, trials: int = 200_000,
               seed: int = 0) -> AuditResult:
    """Empirically audit the lens's release on its two datasets."""
    def sampler(centre: float, rng: np.random.Generator, size: int) -> NDArray[np.float64]:
        return simulate(centre, view.allocation, rng, size)

    return audit(sampler, view.answer_d, view.answer_d_prime, claimed_epsilon=epsilon,
                 delta=delta, trials=trials, seed=seed)
