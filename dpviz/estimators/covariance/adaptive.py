"""AdaptiveCov / AdaptiveLapCov: a private clip radius, then the cheaper of two estimators.

Dong, Liang & Yi 2022 (seed 001), Algorithm 3 and §6; ALGORITHMS.md §6. Budget
``ρ/8`` (trace) ``+ ρ/8`` (SVT) ``+ 3ρ/4`` (final), β = 0.1 — labelled choices:

1. a private **upper** bound on the trace, ``tr̃ = tr + σ_tr Z + σ_tr √(2 ln(8/β))``,
   ``σ_tr = (r²/n)/√(2ρ/8)`` (pure DP: ``tr + b·Lap(1) + b ln(4/β)``, ``b = 8r²/(nε)``),
   clamped to ``[1e-16, r²]``;
2. error proxies ``E_S(τ) = τ s₁ + τ² s₂``, ``E_G(τ) = τ² g₁`` at ρ₁ = 3ρ/4, β₁ = 3β/4
   (:func:`~dpviz.estimators.covariance.bounds.error_proxies`; ``c_S = 6``, 14 under pure DP — the
   released code's empirical constants, 1 in the theory);
3. radii ``τ_l = r 2^{−l}``, l = 0…79; the norm histogram (bin l: ``‖x‖ ∈ (τ_l, 2τ_l]``,
   zero-norm rows in no bin) and the clipping-bias bound
   ``B(τ_l) = (1/n) Σ_{m ≤ l} c_m((2τ_m)² − τ_l²)`` by cumulative sums;
4. AboveThreshold (ε = √(2·ρ/8) = √ρ/2; pure DP ε/8), threshold 0, queries
   ``q_l = (n/r²)(B(τ_l) − min(E_G(τ_l), E_S(τ_l)))`` (sensitivity 1) → j (80 if none);
5. ``τ̃ = min(2τ_j, r)``;
6. compare ``E_S(τ̃)`` with ``E_G(τ̃)`` and run the cheaper of SeparateCov / GaussCov on the
   rows clipped to τ̃, at ρ₁ with radius τ̃.

Fixes of the released code (hkustDB/PrivateCovariance): it decides at ``τ̃/2`` (the grid point
``τ_j`` that fired) instead of τ̃, and uses ``τ·g₁`` for ``E_G`` inside the SVT — both tilt
towards GaussCov and cost up to 2.6×; ``compat_released_code=True`` reproduces that rule.
Its pure-DP proxy ``g₁`` lacks a ``1/ε₁`` (fixed in :func:`error_proxies`), it clamps the
trace to r rather than r² (same at r = 1) and crashes on zero-norm rows (they fall in no bin
here). The paper's optional private-radius step (DY21) is not in the released code: r is
public here too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.core.entry import DescribedRows
from dpviz.estimators.covariance.bounds import error_proxies
from dpviz.estimators.covariance.common import (
    CovarianceData,
    Privacy,
    covariance_result,
    described_by,
    gauss_cov,
    noisy_scalar,
    prepare,
    prepared_scale,
    privacy_of,
    released_matrix,
)
from dpviz.estimators.covariance.gauss import BETA, gauss_error_bound
from dpviz.estimators.covariance.separate import separate_cov, separate_error_bound
from dpviz.estimators.result import Result
from dpviz.privacy import Budget, Ledger, above_threshold

GRID = 80  # radii τ_l = r·2^{−l}, l = 0 … 79
TRACE_SHARE = 1 / 8
SVT_SHARE = 1 / 8
C_S = 6.0
C_S_PURE = 14.0
TRACE_FLOOR = 1e-16


def norm_histogram(norms: NDArray[np.float64], radius: float,
                   bins: int = GRID) -> NDArray[np.int64]:
    """Counts ``c_l`` of rows with ``‖x‖ ∈ (r 2^{−l}, r 2^{1−l}]``, l = 0 … bins − 1.

    Norms are those of rows already clipped to ``B(0, r)``, so bin 0 is empty and a row of
    norm r is in bin 1. Exact at powers of two (``frexp``); zero-norm rows are in no bin.

    Examples
    --------
    >>> norm_histogram(np.array([1.0, 0.7, 0.5, 0.3, 0.0]), 1.0, bins=4).tolist()
    [0, 2, 2, 0]
    """
    u = np.minimum(norms[norms > 0] / radius, 1.0)
    mantissa, exponent = np.frexp(u)
    index = 1 - exponent + (mantissa == 0.5)
    return np.bincount(index[index < bins], minlength=bins)[:bins].astype(np.int64)


def bias_bound(counts: NDArray[np.int64], radius: float, n: int) -> NDArray[np.float64]:
    """``B(τ_l) = (1/n) Σ_{m ≤ l} c_m ((2τ_m)² − τ_l²)`` for every l (the paper's Lemma 9).

    Examples
    --------
    >>> bias_bound(np.array([0, 2, 2, 0]), 1.0, 4).tolist()
    [0.0, 0.375, 0.5625, 0.609375]
    """
    taus2 = (radius * 2.0 ** -np.arange(counts.size)) ** 2
    weighted = np.cumsum(counts * 4 * taus2)
    return (weighted - taus2 * np.cumsum(counts)) / n


def clipped_moment(prepared: CovarianceData, tau: float) -> NDArray[np.float64]:
    """The second moment of the rows clipped to ``B(0, τ)``, from the one at radius r.

    Only rows of norm > τ change: ``Σ_τ = Σ − (1/n) Σ_{‖x‖>τ} (1 − τ²/‖x‖²) x xᵀ`` (an exactly
    symmetric rank update).
    """
    if tau >= prepared.radius:
        return prepared.moment
    over = prepared.norms > tau
    shrink = np.sqrt(1 - (tau / prepared.norms[over]) ** 2)
    scaled = prepared.clipped(over) * shrink[:, None]
    return prepared.moment - scaled.T @ scaled / prepared.n


@dataclass(frozen=True)
class ClipDecision:
    """What AdaptiveCov released before its final step, and its proxies over the grid."""

    trace_estimate: float
    svt_index: int
    clip_radius: float
    branch: str
    tau: NDArray[np.float64]
    bias: NDArray[np.float64]
    e_s: NDArray[np.float64]
    e_g: NDArray[np.float64]


def choose_clip(prepared: CovarianceData, privacy: Privacy, *, rng: np.random.Generator,
                ledger: Ledger, beta: float, c_s: float, compat_released_code: bool,
                trace_share: float = TRACE_SHARE, svt_share: float = SVT_SHARE) -> ClipDecision:
    """Steps 1–6: the private trace bound, the SVT over radii, τ̃ and the branch."""
    n, d, r = prepared.n, prepared.d, prepared.radius
    raw, scale = _noisy_trace(prepared, privacy.share(trace_share), rng=rng, ledger=ledger)
    shift = (scale * math.sqrt(2 * math.log(8 / beta)) if privacy.notion == "zcdp"
             else scale * math.log(4 / beta))
    trace = min(max(raw + shift, TRACE_FLOOR), r * r)
    final = privacy.share(1 - trace_share - svt_share)
    proxies = error_proxies(trace, n, d, final, 0.75 * beta, c_s)
    tau: NDArray[np.float64] = r * np.exp2(-np.arange(GRID, dtype=float))
    bias = bias_bound(norm_histogram(prepared.norms, r), r, n)
    e_s, e_g = proxies.separate(tau), proxies.gauss(tau)
    e_g_svt = tau * proxies.g1 if compat_released_code else e_g
    queries = n / (r * r) * (bias - np.minimum(e_g_svt, e_s))
    hit = above_threshold(queries, threshold=0.0, sensitivity=1.0,
                          epsilon=privacy.share(svt_share).epsilon, rng=rng, ledger=ledger,
                          name="clip radius (AboveThreshold over the norm histogram)")
    j = GRID if hit is None else hit
    clip_radius = min(2 * r * 2.0**-j, r)
    at = r * 2.0**-j if compat_released_code else clip_radius
    branch = "separate" if proxies.separate(at) < proxies.gauss(at) else "gauss"
    return ClipDecision(trace, j, clip_radius, branch, tau, bias, e_s, e_g)


def _noisy_trace(prepared: CovarianceData, privacy: Privacy, *, rng: np.random.Generator,
                 ledger: Ledger) -> tuple[float, float]:
    return noisy_scalar(float(np.trace(prepared.moment)), privacy,
                        sensitivity=prepared.radius**2 / prepared.n, rng=rng, ledger=ledger,
                        name="trace")


def adaptive_covariance(data: ArrayLike | CovarianceData, budget: Budget, *,
                        rng: np.random.Generator, radius: float | str | None = None,
                        compat_released_code: bool = False,
                        beta: float = BETA, c_S: float = C_S,  # noqa: N803 (the paper's name)
                        c_S_pure: float = C_S_PURE,  # noqa: N803
                        trace_share: float = TRACE_SHARE,
                        svt_share: float = SVT_SHARE) -> Result:
    """AdaptiveCov (ρ-zCDP) or AdaptiveLapCov (ε-DP when δ = 0): Algorithm 3.

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
    compat_released_code : bool
        Decide as the authors' code does (at τ̃/2, with ``τ·g₁`` inside the SVT).
    beta : float
        Failure probability of the trace bound and the proxies.
    c_S, c_S_pure : float
        The empirical divisor of SeparateCov's proxy under zCDP and under pure DP.
    trace_share, svt_share : float
        Budget shares of the trace bound and the SVT (the rest goes to the final step).

    Returns
    -------
    Result
        The covariance contract, with ``trace_estimate``, ``clip_radius``, ``svt_index``,
        ``branch`` and ``proxies`` (``tau``, ``bias``, ``E_S``, ``E_G``) in the diagnostics.

    Examples
    --------
    >>> from dpviz.privacy import Budget
    >>> r = adaptive_covariance([[0.6, 0.0], [0.0, 0.8]], Budget(epsilon=float("inf")),
    ...                         rng=np.random.default_rng(0))
    >>> np.abs(r.estimate["covariance"]).round(2).tolist(), r.diagnostics["clip_radius"]
    ([[0.18, 0.0], [0.0, 0.32]], 1.0)
    """
    if trace_share + svt_share >= 1:
        raise ValueError("trace_share + svt_share must leave budget for the final step "
                         f"(their sum is {trace_share + svt_share:g}, it must be < 1)")
    prepared = prepare(data, radius)
    privacy, conversion = privacy_of(budget)
    ledger = Ledger(budget)
    n, d = prepared.n, prepared.d
    c_s = c_S if privacy.notion == "zcdp" else c_S_pure
    decision = choose_clip(prepared, privacy, rng=rng, ledger=ledger, beta=beta, c_s=c_s,
                           compat_released_code=compat_released_code,
                           trace_share=trace_share, svt_share=svt_share)
    final = privacy.share(1 - trace_share - svt_share)
    tau = decision.clip_radius
    moment = clipped_moment(prepared, tau)
    run = separate_cov if decision.branch == "separate" else gauss_cov
    covariance, values = run(moment, final, n=n, radius=tau, rng=rng, ledger=ledger)
    clipped_trace = float(np.trace(moment))
    noise_bound = (separate_error_bound(n, d, clipped_trace, final, tau, 0.75 * beta)
                   if decision.branch == "separate"
                   else gauss_error_bound(n, d, final, tau, 0.75 * beta))
    clipping_bias = float(np.sum(np.maximum(prepared.norms**2 - tau * tau, 0.0))) / n
    name = "AdaptiveCov (zCDP)" if privacy.notion == "zcdp" else "AdaptiveLapCov (pure DP)"
    return covariance_result(
        prepared, budget, ledger, covariance=covariance, eigenvalues=values,
        error_bound=noise_bound + clipping_bias,
        choices={"variant": name, "budget conversion": conversion,
                 "budget split": f"trace {trace_share:g}, SVT {svt_share:g}, final "
                                 f"{1 - trace_share - svt_share:g}",
                 "trace_share": trace_share, "svt_share": svt_share, "beta": beta,
                 "c_S": c_s, "radius grid": f"r * 2^-l, l = 0..{GRID - 1}",
                 "eigenvalue clamp": "[0, tau^2]",
                 "compat_released_code": compat_released_code,
                 "decision rule": ("released code's: at tau/2, tau*g1 in the SVT"
                                   if compat_released_code else "the paper's: at tau")},
        extra={"trace_estimate": decision.trace_estimate, "clip_radius": tau,
               "svt_index": decision.svt_index, "branch": decision.branch,
               "proxies": {"tau": decision.tau, "bias": decision.bias, "E_S": decision.e_s,
                           "E_G": decision.e_g},
               "error_bound_note": "conditional on the released clip radius and branch: the "
                                   "branch's theorem bound at (3/4 of the budget, 3/4 beta) "
                                   "plus the clipping bias at tau"})


def described_rows(result: Result) -> DescribedRows | None:
    """AdaptiveCov's release as rows: its matrix, grown to its released trace bound.

    Post-processing only. When the sparse vector stops early the clip radius halves and the
    released matrix shrinks with the rows it clipped (on the issue's petals inside typed
    ranges, 31 of 300 draws stopped at a radius of 1.68 instead of 3.35 and came out about
    2 off against a typical 0.4), so rows drawn from that matrix alone state small exactly
    when the error is large. Its released trace bound (``trace_estimate``: the noisy trace of
    the rows clipped to the bound, plus the margin that makes it an upper bound) is not
    shrunk: the matrix is scaled up to it (in the estimator's prepared units,
    :func:`~dpviz.estimators.covariance.common.prepared_scale`), never down, as one Gaussian
    about the bound's centre; at one norm (``equal_norms``) when the bound reaches r², the
    most a clipped row's squared norm can be: then nearly every row sits on the bound, as
    when a ball clips them all (without it the petals at radius 1 were over-stated about
    1.8 times). On iris' and wine's columns and the issue's two tables at radius 1, inside
    typed ranges and inside private ranges (26 %), 4 fresh 20-draw runs each: at most 1 of
    20 over 3× in all 72 (before: 2–4 of 20 in 10 of 20 runs on two tables inside typed
    ranges).
    """
    matrix = released_matrix(result)
    if matrix is None:
        return None
    scale = prepared_scale(result.choices, len(matrix))
    inner = float(np.trace(matrix / np.outer(scale, scale)))
    bound = float(result.diagnostics["trace_estimate"])
    grown = max(bound / inner, 1.0) if inner > 0 else 1.0
    full = bound >= float(result.choices["radius"]) ** 2 * (1 - 1e-9)
    return described_by(result, matrix * grown, equal_norms=full,
                        said="the matrix this run released, grown to its released trace "
                             "bound")
