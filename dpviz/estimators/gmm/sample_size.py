"""How many samples the Private Populous Estimator's guarantee needs, and what n allows.

Arbas 2023 (seed 004) Theorem 4.3.1 with the masking mechanism of Algorithm 2, as restated in
ALGORITHMS.md §5 ("Budget" and "Sample-size calculator"):

* the user's (ε_tot, δ_tot) map to ``ε = ε_tot/2``, ``δ = δ_tot/(4e^ε)`` (the theorem is
  (2ε, 4e^ε δ)-DP); the same (ε, δ) serves the truncated Laplace test and the mask;
* utility needs ``t ≥ max(5, (20/ε) ln(1 + (e^ε − 1)/(2δ)))`` chunks (then the test's noise is
  at most 0.1);
* the masking radius r comes from :func:`dpviz.estimators.gmm.masking.masking_plan`;
* each chunk's estimate must lie within r/9 of the truth (pairs are then within
  ``z·2r/9 = r/3 = r/(2z)``, so every chunk agrees and the test passes). With a component's
  sample ≈ ``w_min·s``: ``dist_COV ≈ √(d(d + 1)/(w_min s))``, ``dist_MEAN ≈ √(d/(w_min s))``,
  ``|ŵ − w| ≈ √(w(1 − w)/s) ≤ 1/(2√s)``; so ``s ≥ 81·max(d(d + 1)/w_min, d/w_min, 1/4)/r²``
  rows per chunk and ``n = t·s`` in all.

These are orders of magnitude, not bounds: they say how far a real sample is from the
guarantee. Nothing here reads data (never bootstrap the user's private rows to estimate
them: that would be a non-private computation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpviz.core import limits
from dpviz.estimators.gmm.masking import (
    ALPHA,
    BETA,
    D_RANGE,
    K_RANGE,
    MaskingPlan,
    alpha_for_radius,
    masking_plan,
)
from dpviz.privacy.mechanisms import truncated_laplace_bound

W_MIN = limits.Limit("w_min", 0.0, 1.0, low_open=True)
N_RANGE = limits.Limit("n", 1, 1e30)
#: Each chunk estimate within r/CHUNK_FRACTION of the truth: 9 = 2z·3 (ALGORITHMS.md §5).
CHUNK_FRACTION = 9


def ppe_budget(epsilon_total: float, delta_total: float) -> tuple[float, float]:
    """The (ε, δ) of Algorithm 1 for a total (ε_tot, δ_tot): ``(ε_tot/2, δ_tot/(4e^{ε_tot/2}))``.

    Examples
    --------
    >>> e, d = ppe_budget(1.0, 1e-6)
    >>> e, round(d * 4 * math.exp(0.5), 12)
    (0.5, 1e-06)
    """
    epsilon_total = limits.check_epsilon(epsilon_total)
    delta_total = limits.DELTA.check(delta_total)
    epsilon = epsilon_total / 2
    return epsilon, (0.0 if math.isinf(epsilon) else delta_total / (4 * math.exp(epsilon)))


def agreement_threshold(epsilon: float, delta: float, t: int) -> float:
    """Line 7's threshold ``0.8 + (2/(tε)) ln(1 + (e^ε − 1)/(2δ))``: 0.8 plus TLap's support.

    Examples
    --------
    >>> round(agreement_threshold(0.5, 1e-6, 584), 4)
    0.8869
    """
    return 0.8 + (0.0 if math.isinf(epsilon) else truncated_laplace_bound(2 / t, epsilon, delta))


def minimum_chunks(epsilon: float, delta: float) -> int:
    """``max(5, ⌈(20/ε) ln(1 + (e^ε − 1)/(2δ))⌉)``: the t utility needs (at Algorithm 1's ε, δ).

    Examples
    --------
    >>> minimum_chunks(*ppe_budget(1.0, 1e-6))
    584
    >>> minimum_chunks(float("inf"), 0.0)
    5
    """
    if math.isinf(epsilon):
        return 5
    need = truncated_laplace_bound(20.0, epsilon, delta)
    if not math.isfinite(need):
        raise ValueError(f"epsilon = {epsilon:g} overflows the truncated Laplace's support; "
                         "use a smaller epsilon or epsilon = inf")
    return max(5, math.ceil(need - 1e-9))


def chunk_size_needed(radius: float, d: int, w_min: float) -> int:
    """Rows per chunk for every chunk estimate to lie within r/9 of the truth (order of magnitude).

    Examples
    --------
    >>> chunk_size_needed(0.01, 2, 0.5)
    9720000
    """
    need = CHUNK_FRACTION**2 * max(d * (d + 1) / w_min, d / w_min, 0.25) / radius**2
    return math.ceil(need * (1 - 1e-12))


def radius_reachable(chunk_size: int, d: int, w_min: float) -> float:
    """The smallest masking radius r whose r/9 chunk accuracy ``chunk_size`` rows give.

    Examples
    --------
    >>> radius_reachable(9_720_000, 2, 0.5)
    0.01
    """
    return CHUNK_FRACTION * math.sqrt(max(d * (d + 1) / w_min, d / w_min, 0.25) / chunk_size)


@dataclass(frozen=True)
class SampleSizePlan:
    """What the PPE guarantee needs for one (ε_tot, δ_tot, k, d, α, β, w_min).

    Attributes
    ----------
    epsilon_total, delta_total : float
        The user's budget.
    epsilon, delta : float
        Algorithm 1's (ε, δ) (the test's and the mask's).
    k, d : int
    alpha, beta, w_min : float
    t : int
        Chunks.
    masking : MaskingPlan
        Per-part budget, η's, γ's, r.
    radius : float
        r.
    chunk_size : int
        s, rows per chunk.
    n : int
        ``t·s``.
    """

    epsilon_total: float
    delta_total: float
    epsilon: float
    delta: float
    k: int
    d: int
    alpha: float
    beta: float
    w_min: float
    t: int
    masking: MaskingPlan
    radius: float
    chunk_size: int
    n: int

    def rows(self) -> list[tuple[str, float, str]]:
        """(quantity, value, meaning) rows for a table."""
        m = self.masking
        return [
            ("t", self.t, "chunks: t >= max(5, (20/eps) ln(1 + (e^eps - 1)/(2 delta)))"),
            ("epsilon", self.epsilon, "Algorithm 1's epsilon = epsilon_total/2"),
            ("delta", self.delta, "Algorithm 1's delta = delta_total/(4 e^epsilon)"),
            ("epsilon_part", m.epsilon_part, f"per masked part ({m.composition} composition)"),
            ("delta_part", m.delta_part, "per masked part"),
            ("eta_weight", m.eta_weight, "weight noise (from alpha)"),
            ("eta_mean", m.eta_mean, "mean noise, in units of Sigma^(1/2) (from alpha)"),
            ("eta_cov", m.eta_cov, f"covariance noise (Monte Carlo, {m.mc_draws} draws)"),
            ("gamma_weight", m.gamma_weight, "radius the weight mask covers (from the budget)"),
            ("gamma_mean", m.gamma_mean, "radius the mean mask covers"),
            ("gamma_cov", m.gamma_cov, "radius the covariance mask covers"),
            ("r", self.radius, f"masking radius = min(gammas, 1/2); set by {m.binding}"),
            ("s", self.chunk_size, "rows per chunk for estimates within r/9 of the truth"),
            ("n", self.n, "total rows = t s"),
        ]


def sample_size_plan(epsilon: float, delta: float, k: int, d: int, alpha: float, beta: float,
                     w_min: float) -> SampleSizePlan:
    """The t, per-part budget, η's, γ's, r, chunk size s and total n the PPE guarantee needs.

    Parameters
    ----------
    epsilon, delta : float
        The total budget (ε_tot finite, δ_tot > 0).
    k, d : int
        Components and dimension.
    alpha, beta : float
        Target accuracy in dist_PARAM (``0 < α ≤ 3``) and failure probability of the mask.
    w_min : float
        The smallest mixing weight (public assumption), ``0 < w_min ≤ 1``.

    Returns
    -------
    SampleSizePlan

    Raises
    ------
    ValueError
        A parameter out of range.

    Examples
    --------
    ALGORITHMS.md §5's measured example:

    >>> plan = sample_size_plan(1.0, 1e-6, k=2, d=2, alpha=0.1, beta=0.05, w_min=0.5)
    >>> plan.t, f"{plan.radius:.2g}", f"{plan.n:.0e}"
    (584, '2.4e-06', '1e+17')
    """
    if math.isinf(limits.check_epsilon(epsilon)):
        raise ValueError("the sample-size plan needs a finite epsilon (at epsilon = inf "
                         "nothing is masked)")
    eps, dlt = ppe_budget(epsilon, limits.DELTA_POSITIVE.check(delta))
    k = limits.check_integer(K_RANGE, k)
    d = limits.check_integer(D_RANGE, d)
    w_min = W_MIN.check(w_min)
    plan = masking_plan(eps, dlt, k=k, d=d, alpha=ALPHA.check(alpha), beta=BETA.check(beta))
    t = minimum_chunks(eps, dlt)
    s = chunk_size_needed(plan.radius, d, w_min)
    return SampleSizePlan(epsilon_total=float(epsilon), delta_total=float(delta), epsilon=eps,
                          delta=dlt, k=k, d=d, alpha=float(alpha), beta=float(beta),
                          w_min=w_min, t=t, masking=plan, radius=plan.radius, chunk_size=s,
                          n=t * s)


@dataclass(frozen=True)
class SampleAtHand:
    """What a sample of n rows allows under the PPE guarantee.

    Attributes
    ----------
    n, t, chunk_size : int
        Rows, chunks (``t`` as given or the utility minimum) and rows per chunk ``⌊n/t⌋``.
    radius_needed : float
        The smallest masking radius whose r/9 chunk accuracy s rows give.
    alpha : float or None
        The smallest α whose masking radius reaches it (``None``: none ≤ 3 does).
    largest_radius : float
        The masking radius at α = 3, the most this budget can mask.
    conditions : dict
        Condition → True when it holds.
    """

    n: int
    t: int
    chunk_size: int
    radius_needed: float
    alpha: float | None
    largest_radius: float
    conditions: dict[str, bool]

    def sentence(self) -> str:
        """One line for the page."""
        if self.chunk_size < 1:
            return (f"n = {self.n} rows cannot fill t = {self.t} chunks: the test needs at "
                    "least one row per chunk")
        if self.alpha is None:
            return (f"n = {self.n}: chunks of s = {self.chunk_size} rows agree only to about "
                    f"r = {self.radius_needed:.3g}, more than the largest masking radius this "
                    f"budget allows ({self.largest_radius:.3g}); no accuracy alpha <= 3 is "
                    "guaranteed")
        return (f"n = {self.n}: chunks of s = {self.chunk_size} rows agree to about "
                f"r = {self.radius_needed:.3g}, which a mask of accuracy alpha = "
                f"{self.alpha:.3g} covers")


def sample_at_hand(n: int, epsilon: float, delta: float, k: int, d: int, beta: float,
                   w_min: float, chunks: int | None = None) -> SampleAtHand:
    """What n rows allow: the radius the chunks reach and the α whose mask covers it.

    Examples
    --------
    >>> got = sample_at_hand(10_000, 1.0, 1e-5, k=3, d=2, beta=0.1, w_min=1 / 3)
    >>> got.t, got.chunk_size, got.alpha is None
    (491, 20, True)
    """
    n = limits.check_integer(N_RANGE, n)
    if math.isinf(limits.check_epsilon(epsilon)):
        raise ValueError("what n allows needs a finite epsilon")
    eps, dlt = ppe_budget(epsilon, limits.DELTA_POSITIVE.check(delta))
    k = limits.check_integer(K_RANGE, k)
    d = limits.check_integer(D_RANGE, d)
    w_min = W_MIN.check(w_min)
    beta = BETA.check(beta)
    need_t = minimum_chunks(eps, dlt)
    t = need_t if chunks is None else limits.check_integer(limits.Limit("chunks", 5, 1e9), chunks)
    s = n // t
    largest = masking_plan(eps, dlt, k=k, d=d, alpha=ALPHA.high, beta=beta).radius
    needed = radius_reachable(s, d, w_min) if s > 0 else math.inf
    alpha = (alpha_for_radius(needed, eps, dlt, k=k, d=d, beta=beta)
             if math.isfinite(needed) else None)
    conditions = {
        f"t >= {need_t} (utility of the test)": t >= need_t,
        f"at least k = {k} rows per chunk (to fit k components)": s >= k,
        "the chunks' agreement radius is within the masking radius": alpha is not None,
    }
    return SampleAtHand(n=n, t=t, chunk_size=s, radius_needed=needed, alpha=alpha,
                        largest_radius=largest, conditions=conditions)
