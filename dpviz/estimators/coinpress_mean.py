"""CoinPress mean: a private mean from a public prior ball that may be far too wide (zCDP).

Biswas, Dong, Kamath & Ullman, "CoinPress: Practical Private Mean and Covariance Estimation",
NeurIPS 2020 (arXiv 2006.06618), Algorithms 1 (one step) and 2 (t steps); ALGORITHMS.md §9.
The rows are assumed to have covariance ``≼ s²I`` for a public ``scale`` s (the paper: s = 1),
and their mean to lie in the public prior ball ``B(c₀, r₀)``. Step i, in units of s:

1. clip radius ``τᵢ = min(√(rᵢ² + 2rᵢ·√(2 ln(2/β)) + γ²), rᵢ + γ)``, ``γ = γ(d, β)``
   (:func:`tail_radius`); §9 writes ``√(ln(2/β))`` for the Gaussian tail of ``⟨u, z⟩``, which
   needs ``√(2 ln(2/β))`` (3.26 at β = 0.01; the authors' code puts 3);
2. project every row onto ``B(cᵢ, τᵢ)`` (a copy: the caller's data are never edited, §9 (b));
3. ``cᵢ₊₁`` = mean of the projected rows ``+ N(0, σᵢ²I)``, ``σᵢ = zᵢ·Δᵢ``, ``Δᵢ = 2τᵢ/n``;
4. ``rᵢ₊₁ = γ·√(1/n + σᵢ²)``.

The budget goes ``LAST_SHARE`` to the last step and the rest equally to the earlier ones (in
ρ; the paper's split); the noise multipliers ``zᵢ`` come from the budget solver, so every
accounting method composes the t Gaussian releases. Without ``steps`` the number of steps is
the one whose last step has the smallest noise in the public schedule (:func:`best_steps`),
so which releases run never depends on the data.

Privacy (replace one row; n is public, §9 (c)). The radii ``rᵢ`` and ``τᵢ`` and the noise
scales ``σᵢ`` are functions of n, d, β, r₀, s and the budget only, never of the data. The
centre ``cᵢ`` a step clips around is the previous step's release (or the public ``c₀``), so
with it fixed the projected rows lie in ``B(cᵢ, τᵢ)`` and replacing one row moves their mean
by at most ``2τᵢ/n`` in L2: step i is the Gaussian mechanism at multiplier ``zᵢ``
(``1/(2zᵢ²)``-zCDP). The t steps compose adaptively (zCDP adds: ``Σ 1/(2zᵢ²) = ρ``; other
methods as the solver composes them), and the output is the last centre, scaled back by s
(post-processing). The prior and β affect accuracy only: a mean outside ``B(c₀, r₀)``, or a
scale too small, clips rows and biases the answer, privately.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike

from dpviz.core.entry import Param
from dpviz.data import as_matrix
from dpviz.estimators.neighbours import NeighbourPair, mean_pair
from dpviz.estimators.result import Result
from dpviz.privacy import (
    Budget,
    BudgetError,
    Ledger,
    PlannedRelease,
    clip_to_ball,
    release,
    resolve_ball,
    solve,
)
from dpviz.privacy.bounds import count_outside

#: β of the rows' tail bound γ(d, β) in every step (the authors' code: 0.01).
BETA = 0.01
#: The last step's share of ρ (the paper's runs: 3/4); the earlier steps share the rest.
LAST_SHARE = 0.75
#: The most steps a run takes (the paper's largest: 10).
MAX_STEPS = 20
#: The audit pair's prior radius and scale: balls far smaller than its rows' distances.
PAIR_PRIOR = 0.01


def tail_radius(d: int, beta: float) -> float:
    """``γ(d, β) = √(d + 2√(d ln(1/β)) + 2 ln(1/β))``: ``‖N(0, I_d)‖ ≤ γ`` w.p. ≥ 1 − β.

    Laurent & Massart (2000), Lemma 1, as the paper uses it.

    Examples
    --------
    >>> round(tail_radius(50, 0.01), 3), round(tail_radius(10, 0.1), 3)
    (9.464, 4.92)
    """
    log = math.log(1 / beta)
    return math.sqrt(d + 2 * math.sqrt(d * log) + 2 * log)


def clip_radius(r: float, d: int, beta: float) -> float:
    """Step 1's ``τ``: every row of ``N(μ, I)`` with ``‖μ − c‖ ≤ r`` lies in ``B(c, τ)`` (w.h.p.).

    Examples
    --------
    >>> round(clip_radius(0.0, 1, 0.01), 3) == round(tail_radius(1, 0.01), 3)
    True
    """
    gamma = tail_radius(d, beta)
    return min(math.sqrt(r * r + 2 * r * math.sqrt(2 * math.log(2 / beta)) + gamma**2),
               r + gamma)


def shares(steps: int) -> list[float]:
    """Each step's share of ρ: :data:`LAST_SHARE` for the last, the rest split equally.

    Examples
    --------
    >>> shares(1), shares(3)
    ([1.0], [0.125, 0.125, 0.75])
    >>> shares(0)
    Traceback (most recent call last):
    ...
    ValueError: steps must be at least 1, got 0
    """
    if steps < 1:  # the shares must sum to one: a direct call may not skip the registry
        raise ValueError(f"steps must be at least 1, got {steps}")
    if steps == 1:
        return [1.0]
    return [(1 - LAST_SHARE) / (steps - 1)] * (steps - 1) + [LAST_SHARE]


@dataclass(frozen=True)
class Schedule:
    """The public radii of a run (units of the scale s): prior ``r₀``, then each step's.

    Attributes
    ----------
    radii : tuple of float
        ``r₀ … r_t``: the ball the mean is believed in before each step, and after the last.
    clips : tuple of float
        ``τ₁ … τ_t``.
    sigmas : tuple of float
        ``σ₁ … σ_t``, each step's noise (0 at ε = ∞).
    """

    radii: tuple[float, ...]
    clips: tuple[float, ...]
    sigmas: tuple[float, ...]


def schedule(n: int, d: int, prior: float, multipliers: list[float],
             beta: float = BETA) -> Schedule:
    """The radii of steps with noise multipliers ``zᵢ`` (σ/Δ), from public inputs only.

    Examples
    --------
    >>> s = schedule(1000, 50, 1e4 * math.sqrt(50), [6.0] * 9 + [1.1547])
    >>> [round(r) for r in s.radii[:4]], round(s.radii[-1], 2)
    ([70711, 8030, 912, 104], 0.37)
    """
    gamma = tail_radius(d, beta)
    radii, clips, sigmas = [prior], [], []
    for z in multipliers:
        tau = clip_radius(radii[-1], d, beta)
        sigma = z * 2 * tau / n
        clips.append(tau)
        sigmas.append(sigma)
        radii.append(gamma * math.sqrt(1 / n + sigma * sigma))
    return Schedule(tuple(radii), tuple(clips), tuple(sigmas))


def best_steps(n: int, d: int, prior: float, multiplier: float, beta: float = BETA) -> int:
    """The number of steps whose last noise is smallest (the first of equals); public.

    ``multiplier`` is σ/Δ of one Gaussian release spending the whole budget; a step with share
    ``w`` of ρ then has ``multiplier/√w`` (zCDP's split, used here only to choose).

    Examples
    --------
    >>> best_steps(1000, 50, 1e4 * math.sqrt(50), 1.0), best_steps(1000, 50, 1.0, 1.0)
    (7, 1)
    """
    def last_sigma(steps: int) -> float:
        zs = [multiplier / math.sqrt(w) for w in shares(steps)]
        return schedule(n, d, prior, zs, beta).sigmas[-1]

    return min(range(1, MAX_STEPS + 1), key=lambda t: (last_sigma(t), t))


def coinpress_mean(data: ArrayLike, budget: Budget, *, rng: np.random.Generator,
                   radius: float | str | None = None, center: float = 0.0, scale: float = 1.0,
                   steps: int | None = None, beta: float = BETA) -> Result:
    """CoinPress's private mean (Biswas et al. 2020, Algorithm 2): zCDP, Gaussian noise.

    Parameters
    ----------
    data : array-like
        n × d rows (or one column).
    budget : Budget
        ρ, or (ε, δ > 0) under any accounting method.
    rng : numpy.random.Generator
        The noise source.
    radius : float, "data" or None
        The prior radius r₀: the mean lies in ``B(c₀, r₀)`` (public; ``None``: 1; ``"data"``:
        the rows' farthest distance from c₀, not private).
    center : float
        The prior centre c₀, the same value in every column (public).
    scale : float
        s, a public bound on every column's standard deviation (covariance ``≼ s²I``).
    steps : int or None
        t; ``None`` picks it (:func:`best_steps`).
    beta : float
        The tail probability of γ(d, β) (accuracy only).

    Returns
    -------
    Result
        ``estimate["mean"]``; diagnostics ``true_mean`` (the rows' mean: ground truth, not a
        release), ``centres`` (each step's release, t × d), ``radii`` (``r₁ … r_t``, public),
        ``noise_scale`` (the last σ, data units) and ``rows_clipped`` (by the last step).

    Raises
    ------
    BudgetError
        A pure-DP budget (δ = 0): the steps add Gaussian noise.

    Examples
    --------
    >>> r = coinpress_mean([[0.2], [0.4]], Budget(epsilon=float("inf")),
    ...                    rng=np.random.default_rng(0))
    >>> r.estimate["mean"].round(3).tolist()
    [0.3]
    """
    if budget.rho is None and budget.delta == 0 and not budget.non_private:
        raise BudgetError("CoinPress adds Gaussian noise: give rho, or epsilon with delta > 0")
    x = as_matrix(data)
    n, d = x.shape
    s = float(scale)
    c0 = np.full(d, float(center))
    ball = resolve_ball(x, radius, c0)
    y = (x - c0) / s  # units of s, about the prior centre: the prior is B(0, r₀/s)
    prior = ball.radius / s
    single = solve([PlannedRelease("mean", "gaussian", 1.0)], budget)["mean"].multiplier
    t = steps if steps is not None else best_steps(n, d, prior, single, beta)
    plan = [PlannedRelease(f"CoinPress step {i + 1} of {t}", "gaussian", 1.0,
                           weight=math.sqrt(w)) for i, w in enumerate(shares(t))]
    allocations = solve(plan, budget)
    public = schedule(n, d, prior, [allocations[p.name].multiplier for p in plan], beta)
    ledger = Ledger(budget)
    centre = np.zeros(d)
    centres = []
    for p, tau in zip(plan, public.clips, strict=True):
        clipped_rows = count_outside(np.linalg.norm(y - centre, axis=1), tau)
        projected = clip_to_ball(y, centre, tau)
        centre = np.atleast_1d(release(projected.mean(axis=0), allocations[p.name], rng=rng,
                                       ledger=ledger, sensitivity=2 * tau / n))
        centres.append(centre)
    source = "read from the data — not private" if ball.not_private else "public"
    return Result(
        estimate={"mean": c0 + s * centre}, ledger=ledger, not_private=ball.not_private,
        choices={"bound": f"prior: the mean lies within {ball.radius:g} of the centre "
                          f"({source})",
                 "radius": ball.radius, "center": c0, "scale": s, "steps": t,
                 "budget split": f"{LAST_SHARE:g} of rho on the last step, the rest equally",
                 "beta": beta, "neighbours": "replace one row; n is public",
                 "release units": "the ledger's releases are of (x - center)/scale"},
        diagnostics={"true_mean": x.mean(axis=0),
                     "centres": c0 + s * np.array(centres),
                     "radii": s * np.array(public.radii[1:]),
                     "noise_scale": s * public.sigmas[-1], "rows_clipped": clipped_rows})


def coinpress_pair() -> NeighbourPair:
    """CoinPress's pair: the mean's (row 0 at +1 in D, −1 in D′) under a prior 100 times smaller.

    With ``radius`` and ``scale`` 0.01 every step's ball has a radius of a few hundredths, so
    each step projects row 0 onto the ball's sphere on opposite sides: the full ``2τᵢ/n`` of
    the sensitivity proof at every step, with both rows in the unit ball.
    """
    pair = mean_pair()
    return replace(pair, params={**pair.params, "radius": PAIR_PRIOR, "scale": PAIR_PRIOR},
                   description=f"n = 10 rows in 1-D, all at 0 but row 0, which is at +1 in D "
                   f"and −1 in D′; prior radius and scale {PAIR_PRIOR:g}, so every step's ball "
                   "is far smaller than the row's distance and projects it onto its sphere on "
                   "opposite sides (the worst case of the sensitivity proof, 2τᵢ/n at every "
                   "step)")


#: The parameters of the registry entry (the prior radius is the common ``radius``).
PARAMS = (
    Param("scale", "float", 1.0, min=1e-12, max=1e12,
          help="public bound on every column's standard deviation (CoinPress assumes the "
               "covariance is at most scale² × I)"),
    Param("steps", "int", None, min=1, max=MAX_STEPS,
          help="number of shrinking steps (default: the number whose last step has the least "
               "noise, chosen from public inputs)"),
    Param("beta", "float", BETA, min=1e-9, max=0.5, choice=True,
          help="tail probability of the rows' radius gamma(d, beta) (the authors' code: 0.01)"),
)
