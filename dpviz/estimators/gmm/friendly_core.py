"""FriendlyCore for Gaussian mixtures: Tsfadia, Cohen, Kaplan, Mansour & Stemmer (ICML 2022).

The paper's k-means / k-GMM use: split the rows into t disjoint chunks (a data-independent
shuffle), fit a non-private mixture on each (scikit-learn's ``GaussianMixture``, the learner of
sample-and-aggregate, :func:`~dpviz.estimators.gmm.sample_aggregate.chunk_estimates`), so each
chunk gives one **k-tuple** of means (clipped to the public ball ``B(0, R)``, here in units of
R) and of mixing weights; then

1. **Friends.** Two k-tuples X, Y are friends (``f(X, Y) = 1``) when both are *separated* (the
   k means of each are pairwise more than ``4r`` apart) and every mean of X has a mean of Y
   within ``r`` whose mixing weight is within ``r_w = WEIGHT_RADIUS`` of its own (the
   matching is a bijection: two means of X near one of Y would be within 2r). ``r`` is public
   (``friend_radius``, in units of R), and so is ``r_w``.
2. **Filter** (FriendlyCore's smooth filter, with each tuple's *probability* of joining the
   core used as its weight instead of a coin flip): ``deg(X)`` = the number of other tuples
   that are X's friends, ``w(X) = clip((deg(X) − (2t+1)/3)/Δ, 0, 1)`` with
   ``Δ = (t − 4)/3``: 0 up to two thirds of the tuples, 1 when every other tuple is a friend.
3. **Private core weight.** ``Ŵ = W + TLap`` for ``W = Σ w(X)`` (truncated Laplace, support
   ``[−A, A]``), and the certified lower bound ``W_low = Ŵ − A ≤ W``. ⊥ when
   ``W_low < t/4`` (the core is too light to average). ``A`` is
   :func:`~dpviz.privacy.mechanisms.truncated_laplace_bound`, which holds for both samplers:
   under secure randomness the discrete truncated Laplace on a grid, exact and from
   cryptographic bits, moves W by at most its ``(M + 1/2)·g``, a relative 2^-40 or so past
   Geng et al.'s A (the ledger row says ``sampler: discrete``).
4. **Aggregation.** Each tuple of positive weight is matched to a reference tuple of the core
   (mean i ↔ the reference mean within 2r); the weighted average of each group of matched means
   and of the matched mixing weights is released with Gaussian noise; the k components are
   then sorted (lexicographically by mean) — post-processing.

When the public sizes alone make step 3 fail even if every chunk agrees (``t − A < t/4``) the
run is refused before the rows are read, its ledger empty, with the n from which its
preconditions hold (:func:`~dpviz.core.search.rows_needed`; whether runs there succeed is
not simulated here: :mod:`dpviz.lab.success` measures that on generated data).

Privacy (replace-one neighbours on rows; one row changes one chunk, hence one tuple).

* *Friendliness of the core.* ``w(X) > 0`` needs ``deg(X) > (2t+1)/3``, so X has more than
  2(t−1)/3 friends among the t − 1 tuples D and D′ share: any three tuples of positive
  weight, in D or in D′, have a common friend Z among them (each misses fewer than a third).
  So any two are matched within 2r (a bijection: their means are more than 4r apart), every
  group of matched means has diameter ≤ 2r, and the matchings agree (X's mean i, Y's and
  W's matched means all sit within r of one mean of Z): the k groups are the same whichever
  reference is used, so the released *set* of components does not depend on the reference
  (the noise is i.i.d. across components).
* *Weights.* A shared tuple's degree moves by at most 1, its weight by at most ``1/Δ``: over
  the t − 1 shared tuples ``L = Σ|w − w′| ≤ (t − 1)/Δ``, and the changed tuple's weight
  lies in [0, 1]. **Sensitivity of W: ``1 + (t − 1)/Δ``** (≈ 4).
* *Group means.* With μ′ the neighbour's weighted mean (within 2r of every core mean),
  ``Σ w(x − μ′) = Σ_shared (w − w′)(x − μ′) + w_*(x_* − μ′) − w′_*(x′_* − μ′)``, so
  ``‖μ − μ′‖ ≤ 2r(L + 2)/max(W, W′)`` per group and **L2 sensitivity
  ``2r√k((t − 1)/Δ + 2)/W_low``** over the k·d released coordinates; the **mixing weights**
  likewise (matched weights within 2r_w, and vectors of the simplex, diameter √2):
  ``min(2r_w√k, √2)((t − 1)/Δ + 2)/W_low``.
* *The lower bound.* Every Ŵ either dataset can output satisfies ``Ŵ − A ≤ max(W, W′)``
  (the noise is truncated at A), so for every released Ŵ the two Gaussian releases, drawn
  at the sensitivities above, have the planned noise multiplier on both datasets.
* *Composition.* The truncated Laplace is (ε_W, δ_W)-DP (Geng et al.); the two Gaussians are
  zCDP (ρ = Δ²/2σ²) given Ŵ; they compose adaptively. ``δ_W`` is half of δ (the
  stable-histogram reserve of :func:`~dpviz.estimators.gmm.one_cluster.histogram_budget`), the
  solver spreads the rest (plan levels: core weight ``CORE_LEVEL`` = 3, means 1, mixing
  weights 1/2) and the ledger composes under PLD (zCDP, MA and RDP budgets are recorded under
  PLD at the same target, as sample-and-aggregate does). Degrees, weights, the reference and
  the chunk fits are never released.

**A variant, labelled so.** This is not the paper's exact filter: FriendlyCore draws each tuple
into the core with the probability above and proves the composition with a friendly-DP
aggregator; dpviz uses the probabilities as weights (the expected core), asks for more than
(2t + 1)/3 friends (so any three tuples of positive weight share a friend, which the matching
argument needs) and proves the sensitivities above directly.

Public constants, chosen by simulation on generated mixtures only, never on a user's data
(``bench/friendly_core.py --constants``: ``gaussian_mixture`` with k = 3, d = 2, separations 4σ,
6σ and 8σ, n = 10 000 and 100 000, two data seeds, ε ∈ {1, 4}, δ = 10⁻⁵; rows per chunk ∈ {50,
100, 200}, r ∈ {0.05, 0.08, 0.1, 0.12, 0.15} R, core-weight plan level ∈ {3, 6}): ``CHUNK_ROWS =
100`` rows per chunk when ``chunks`` is automatic, ``friend_radius = 0.1`` R and ``CORE_LEVEL =
3``. At n = 100 000 it succeeded in every run at every separation and both ε (mean matched error
0.026 at ε = 1, 0.0065 at ε = 4; by separation 0.020, 0.014, 0.014 averaged over both ε); the
other settings with no failure there (200 rows a chunk with r = 0.08 or 0.1, or level 6) were
less accurate, r ≥ 0.12 broke the 4r separation at 4σ, r ≤ 0.05 left too few friends, and 50-row
chunks fit too loosely. ``WEIGHT_RADIUS = 0.15``: on 500 chunks of a 100 000-row mixture
(separation 8σ, unequal weights) the core weighed 0.86 t with it, 0.87 t with the means alone
and 0.73 t with r_w = 0.1, and it cuts the mixing weights' noise 2.7-fold against the simplex's
√2. An earlier version (core threshold t/2 with a 6r separation, 200-row chunks, r = 0.05) was
as accurate at 6σ and 8σ but not at 4σ. At n = 10 000 nothing is reliable: t = 100 chunks cannot
carry the core weight's noise bound at ε = 1 (the run is refused before reading the data, with
the n it needs), and at ε = 4 the error is about 0.1. Components closer than 4r = 0.4 R are out
of reach at the default r.

Against sample-and-aggregate (``bench/friendly_core.py``, three data seeds per cell, k = 3, d =
2): on the same 1 000 chunks at n = 100 000 FriendlyCore answers at ε = 1 (mean matched error
0.036, 0.026, 0.025 at 4σ, 6σ, 8σ) where sample-and-aggregate is refused, and at ε = 4 the two
are alike (0.0086, 0.0065, 0.0063 against 0.0073, 0.0063, 0.0061); sample-and-aggregate on its
own 2 500 chunks is better still (0.010, 0.007, 0.009 at ε = 1, two runs of three at 8σ; 0.004,
0.002, 0.002 at ε = 4).
At n = 10 000 only FriendlyCore answers, at ε = 4 and about 0.075 (6σ, 8σ).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.spatial.distance import cdist

from dpviz.core import limits
from dpviz.core.entry import CostModel, Estimator, Param, shared_k
from dpviz.core.relations import REPLACE_ONE
from dpviz.core.search import rows_needed
from dpviz.data import as_matrix
from dpviz.estimators.gmm import sample_aggregate
from dpviz.estimators.gmm.one_cluster import (
    HistogramBudget,
    histogram_budget,
    refused_before_spending,
)
from dpviz.estimators.neighbours import NeighbourPair, mixture_pair
from dpviz.estimators.result import Result
from dpviz.privacy import Allocation, Ledger, PlannedRelease, release, solve, truncated_laplace
from dpviz.privacy.bounds import resolve_ball
from dpviz.privacy.budget import Budget
from dpviz.privacy.mechanisms import truncated_laplace_bound

K_RANGE = limits.COMPONENTS_PER_CHUNK
#: Up to 2 000 chunks: the friend matrix compares every pair of k-tuples (t² k² d work).
CHUNKS_RANGE = limits.Limit("chunks", 5, 2_000)
FRIEND_RADIUS_RANGE = limits.Limit("friend_radius", 1e-4, 1.0)
#: Rows per chunk when ``chunks`` is automatic (a choice, by simulation: module docstring).
CHUNK_ROWS = 100
#: r, in units of R (a choice, by simulation: module docstring).
FRIEND_RADIUS = 0.1
#: A tuple's means must be pairwise more than this many friend radii apart (unique matchings).
SEPARATION = 4.0
#: r_w: friends' matched mixing weights differ by at most this (by simulation: module doc).
WEIGHT_RADIUS = 0.15
#: ⊥ when the certified core weight W_low is below this share of the chunks.
CORE_FLOOR = 0.25
#: The core weight's level in the budget plan (means 1, mixing weights 1/2): by simulation.
CORE_LEVEL = 3.0
CORE_WEIGHT = "core weight"
CORE_MEANS = "core means"
CORE_MIXING = "core mixing weights"
LABEL = ("FriendlyCore variant (after Tsfadia, Cohen, Kaplan, Mansour & Stemmer, ICML 2022): "
         "the chunks' k-means weighted by their friends (not the paper's random filter) and "
         "averaged privately")


def automatic_chunks(n: int, k: int) -> int:
    """``t = n // CHUNK_ROWS``, at least 5, at most ``n // (2k)`` and 2 000.

    Sample-and-aggregate's rule (:func:`~dpviz.estimators.gmm.sample_aggregate.automatic_chunks`)
    with FriendlyCore's rows per chunk and range.

    Examples
    --------
    >>> automatic_chunks(10_000, 3), automatic_chunks(100_000, 3), automatic_chunks(40, 3)
    (100, 1000, 5)
    """
    return sample_aggregate.automatic_chunks(n, k, rows=CHUNK_ROWS, span=CHUNKS_RANGE)


def core_threshold(chunks: int) -> float:
    """``(2t + 1)/3``: a tuple needs more friends than this to weigh anything."""
    return (2 * chunks + 1) / 3


def ramp_width(chunks: int) -> float:
    """``Δ = (t − 4)/3``: a tuple's weight climbs from 0 to 1 over this many friends."""
    return (chunks - 4) / 3


def weight_change(chunks: int) -> float:
    """``(t − 1)/Δ``: how far the shared tuples' weights move in total (L1) when one changes.

    Examples
    --------
    >>> round(weight_change(103), 3)
    3.091
    """
    return (chunks - 1) / ramp_width(chunks)


def core_weight_sensitivity(chunks: int) -> float:
    """Replace-one sensitivity of the core weight ``W = Σ w(X)``: ``1 + (t − 1)/Δ``."""
    return 1.0 + weight_change(chunks)


def means_sensitivity(chunks: int, k: int, friend_radius: float, weight_low: float) -> float:
    """L2 sensitivity of the k group means given ``W ≥ W_low``: ``2r√k((t−1)/Δ + 2)/W_low``."""
    return 2 * friend_radius * math.sqrt(k) * (weight_change(chunks) + 2) / weight_low


def mixing_sensitivity(chunks: int, k: int, weight_low: float) -> float:
    """L2 sensitivity of the group mixing weights given ``W ≥ W_low``.

    ``min(2r_w√k, √2)((t − 1)/Δ + 2)/W_low``: matched weights of the core lie within 2r_w of
    each other, and any two points of the simplex within √2.
    """
    spread = min(2 * WEIGHT_RADIUS * math.sqrt(k), math.sqrt(2))
    return spread * (weight_change(chunks) + 2) / weight_low


def separated(tuples: NDArray[np.float64], friend_radius: float) -> NDArray[np.bool_]:
    """Whether each k-tuple's means are pairwise more than ``4r`` apart (t × k × d → t).

    Examples
    --------
    >>> separated(np.array([[[0.0], [1.0]], [[0.0], [0.3]]]), 0.1).tolist()
    [True, False]
    """
    k = tuples.shape[1]
    gaps = np.linalg.norm(tuples[:, :, None, :] - tuples[:, None, :, :], axis=-1)
    gaps[:, np.arange(k), np.arange(k)] = np.inf
    return np.asarray(gaps.min(axis=(1, 2)) > SEPARATION * friend_radius)


def friend_matrix(tuples: NDArray[np.float64], mixing: NDArray[np.float64],
                  friend_radius: float) -> NDArray[np.bool_]:
    """``f(X, Y)`` for every pair of k-tuples (t × t, False on the diagonal).

    Friends: both separated (:func:`separated`) and every mean of X within ``r`` of a mean of
    Y whose mixing weight is within ``WEIGHT_RADIUS`` of its own (a bijection then, by the
    separation). One t × t table per pair of positions.

    Examples
    --------
    >>> t = np.array([[[0.0], [1.0]], [[0.05], [0.98]], [[0.3], [1.0]], [[0.0], [1.0]]])
    >>> pi = np.array([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.9, 0.1]])
    >>> friend_matrix(t, pi, 0.1).astype(int).tolist()
    [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    """
    count, k, _ = tuples.shape
    ok = separated(tuples, friend_radius)
    friends = ok[:, None] & ok[None, :]
    for a in range(k):
        matched = np.zeros((count, count), dtype=bool)
        for b in range(k):
            matched |= ((cdist(tuples[:, a], tuples[:, b]) <= friend_radius)
                        & (np.abs(mixing[:, a, None] - mixing[None, :, b]) <= WEIGHT_RADIUS))
        friends &= matched
    np.fill_diagonal(friends, False)
    return friends


def core_weights(friends: NDArray[np.bool_]) -> NDArray[np.float64]:
    """``w(X) = clip((deg(X) − (2t+1)/3)/Δ, 0, 1)``, the filter's weight of each tuple.

    Examples
    --------
    >>> f = np.ones((10, 10), dtype=bool); np.fill_diagonal(f, False)
    >>> f[0, 1:] = f[1:, 0] = False
    >>> core_weights(f).round(2).tolist()
    [0.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
    """
    count = len(friends)
    degree = friends.sum(axis=1)
    return np.asarray(np.clip((degree - core_threshold(count)) / ramp_width(count), 0.0, 1.0),
                      dtype=np.float64)


def align(tuples: NDArray[np.float64], reference: NDArray[np.float64]) -> NDArray[np.intp]:
    """For each tuple, the index of its mean nearest to each reference mean (t × k).

    In the core each reference mean has exactly one mean of every tuple within 2r, and it is
    the nearest one.

    Examples
    --------
    >>> align(np.array([[[1.0], [0.0]]]), np.array([[0.1], [0.9]])).tolist()
    [[1, 0]]
    """
    dist = np.linalg.norm(tuples[:, None, :, :] - reference[None, :, None, :], axis=-1)
    return np.asarray(dist.argmin(axis=2), dtype=np.intp)


def core_average(tuples: NDArray[np.float64], mixing: NDArray[np.float64],
                 weights: NDArray[np.float64]
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The core's weighted averages of matched means (k × d) and mixing weights (k).

    Every tuple of positive weight is matched to the heaviest one (:func:`align`); the
    components come in the reference's order. Needs a positive total weight.

    Examples
    --------
    >>> tuples = np.array([[[0.0], [1.0]], [[1.2], [0.2]], [[5.0], [9.0]]])
    >>> means, shares = core_average(tuples, np.full((3, 2), 0.5), np.array([1.0, 1.0, 0.0]))
    >>> means.ravel().round(2).tolist(), shares.tolist()
    ([0.1, 1.1], [0.5, 0.5])
    """
    core = np.flatnonzero(weights > 0)
    if core.size == 0:
        raise ValueError("the core average needs a tuple of positive weight, got none")
    order = align(tuples[core], tuples[core[np.argmax(weights[core])]])
    w = weights[core]
    grouped = np.take_along_axis(tuples[core], order[:, :, None], axis=1)
    total = float(w.sum())
    means = np.einsum("c,ckd->kd", w, grouped) / total
    shares = w @ np.take_along_axis(mixing[core], order, axis=1) / total
    return np.asarray(means, dtype=np.float64), np.asarray(shares, dtype=np.float64)


@dataclass(frozen=True)
class CoreBudget:
    """How one run spends its budget: the solved plan and the core weight's noise bound.

    Attributes
    ----------
    accounting : HistogramBudget
        The ledger's budget and δ_W (half of δ, for the truncated Laplace).
    solved : dict
        The solver's allocations of the plan (core weight, means, mixing weights).
    epsilon : float
        ε_W of the core weight's truncated Laplace.
    margin : float
        Its support bound A (0 at ε = ∞).
    """

    accounting: HistogramBudget
    solved: dict[str, Allocation]
    epsilon: float
    margin: float


def core_budget(budget: Budget, chunks: int, core_level: float = CORE_LEVEL) -> CoreBudget:
    """Solve the plan: core weight at level ``core_level`` (pure), means 1, mixing weights 1/2.

    A function of public inputs only (the solver caches the solve, which takes a few tenths
    of a second under PLD). Raises ``BudgetError`` for δ = 0 or a ρ budget (the truncated
    Laplace needs δ > 0).
    """
    accounting = histogram_budget(budget, 1, estimator="FriendlyCore")
    # the core weight is planned at unit sensitivity: only its ε is used (the truncated
    # Laplace draws at its own sensitivity), and a plan without t in it is one cached solve
    # for every t (the refusal's search for n asks for many)
    plan = [PlannedRelease(CORE_WEIGHT, "pure", 1.0, weight=core_level),
            PlannedRelease(CORE_MEANS, "gaussian", 1.0, weight=1.0),
            PlannedRelease(CORE_MIXING, "gaussian", 1.0, weight=0.5)]
    solved = solve(plan, accounting.solve)
    eps_w = float(solved[CORE_WEIGHT].epsilon or 0.0)
    margin = 0.0 if math.isinf(eps_w) else truncated_laplace_bound(
        core_weight_sensitivity(chunks), eps_w, accounting.histogram_delta)
    return CoreBudget(accounting, solved, eps_w, margin)


def refusal(chunks: int, spend: CoreBudget) -> str | None:
    """Why a run with these public sizes answers ⊥ even if every chunk agrees, or ``None``.

    With W = t and no noise the certified weight is ``t − A``; below the floor ``t/4`` the
    run fails whatever the data.

    Examples
    --------
    >>> refusal(1_000, core_budget(Budget(epsilon=1.0, delta=1e-5), 1_000)) is None
    True
    >>> refusal(50, core_budget(Budget(epsilon=1.0, delta=1e-5), 50))[:40]
    "the core weight's noise bound A = 107 le"
    """
    if chunks - spend.margin >= CORE_FLOOR * chunks:
        return None
    return (f"the core weight's noise bound A = {spend.margin:.3g} leaves less than "
            f"t/4 = {CORE_FLOOR * chunks:g} of the {chunks} chunks certified even if every "
            "chunk agrees")


def too_few_rows(n: int, k: int) -> str:
    """The sentence for data too small for 5 chunks of 2k rows.

    Examples
    --------
    >>> too_few_rows(20, 3)
    'FriendlyCore needs at least 5 chunks of 2k = 6 rows (30 rows for k = 3), got n = 20'
    """
    return (f"FriendlyCore needs at least {CHUNKS_RANGE.low} chunks of 2k = {2 * k} rows "
            f"({CHUNKS_RANGE.low * 2 * k} rows for k = {k}), got n = {n}")


def can_run(*, n: int, d: int, k: int, epsilon: float | None, delta: float,
            accounting: str = "zcdp", chunks: int | None = None, **_: Any) -> str | None:
    """Why FriendlyCore cannot succeed at these public sizes, or ``None`` (:func:`refusal`).

    It says why at this n only; the n from which it holds is the one search's
    (:func:`~dpviz.core.search.rows_needed`, which a refused run adds).

    Examples
    --------
    >>> can_run(n=100_000, d=2, k=3, epsilon=1.0, delta=1e-5) is None
    True
    >>> can_run(n=10_000, d=2, k=3, epsilon=1.0, delta=1e-5)[:53]
    'FriendlyCore cannot succeed with n = 10,000 rows (100'
    """
    if n < CHUNKS_RANGE.low * 2 * k:
        return too_few_rows(n, k)
    if epsilon is None or math.isinf(epsilon) or delta <= 0:
        return None
    t = chunks if chunks is not None else automatic_chunks(n, k)
    reason = refusal(t, core_budget(Budget(epsilon=epsilon, delta=delta, method=accounting), t))
    if reason is None:
        return None
    remedy = "; use more chunks or a larger epsilon" if chunks is not None else ""
    return (f"FriendlyCore cannot succeed with n = {n:,} rows ({t} chunks) at epsilon = "
            f"{epsilon:g} for k = {k}: {reason}{remedy}")


def _bottom(reason: str, ledger: Ledger, diagnostics: Mapping[str, Any]) -> Result:
    return Result(estimate={"weights": None, "means": None, "covariances": None},
                  ledger=ledger, failed=reason, diagnostics=diagnostics)


def aggregate_tuples(tuples: NDArray[np.float64], mixing: NDArray[np.float64],
                     spend: CoreBudget, *, rng: np.random.Generator,
                     friend_radius: float) -> Result:
    """Steps 1–4 of the module docstring on t k-tuples (unit-ball coordinates).

    Parameters
    ----------
    tuples : ndarray
        t × k × d chunk means, each in the unit ball.
    mixing : ndarray
        t × k chunk mixing weights (each row on the simplex).
    spend : CoreBudget
        :func:`core_budget` for these t chunks.
    rng : numpy.random.Generator
        The noise.
    friend_radius : float
        r (unit-ball units).

    Returns
    -------
    Result
        Means in unit-ball coordinates and weights, or ⊥; ``choices`` empty (the caller's).
    """
    t, k, _ = tuples.shape
    ledger = Ledger(spend.accounting.record)
    reason = refusal(t, spend)
    if reason is not None:  # public inputs only: nothing read, nothing spent
        return _bottom(f"{reason}; use more rows (chunks) or a larger epsilon", ledger, {})
    friends = friend_matrix(tuples, mixing, friend_radius)
    weights = core_weights(friends)
    total = float(weights.sum())
    diagnostics: dict[str, Any] = {"degrees": friends.sum(axis=1), "core_weights": weights,
                                   "core_weight": total}
    noisy_total = float(truncated_laplace(
        total, sensitivity=core_weight_sensitivity(t), epsilon=spend.epsilon,
        delta=spend.accounting.histogram_delta, rng=rng, ledger=ledger, name=CORE_WEIGHT))
    weight_low = noisy_total - spend.margin
    diagnostics["certified_core_weight"] = weight_low
    if weight_low < CORE_FLOOR * t:
        return _bottom(f"the certified core weight {weight_low:.3g} is below t/4 = "
                       f"{CORE_FLOOR * t:g}: too few chunks agree within r = "
                       f"{friend_radius:g} R", ledger, diagnostics)
    means, shares = core_average(tuples, mixing, weights)  # W ≥ W_low > 0 here
    noisy_means = np.asarray(release(
        means.ravel(), spend.solved[CORE_MEANS], rng=rng, ledger=ledger, name=CORE_MEANS,
        sensitivity=means_sensitivity(t, k, friend_radius, weight_low))).reshape(means.shape)
    noisy_shares = np.asarray(release(
        shares, spend.solved[CORE_MIXING], rng=rng, ledger=ledger, name=CORE_MIXING,
        sensitivity=mixing_sensitivity(t, k, weight_low)))
    # post-processing: a canonical order of the components, weights on the simplex
    rank = np.lexsort(noisy_means.T[::-1])
    kept = np.clip(noisy_shares[rank], 1e-3, None)
    return Result(estimate={"weights": kept / kept.sum(), "means": noisy_means[rank],
                            "covariances": None}, ledger=ledger, diagnostics=diagnostics)


def friendly_core(data: ArrayLike, budget: Budget, *, rng: np.random.Generator, k: int,
                  radius: float | str | None = None, chunks: int | None = None,
                  friend_radius: float = FRIEND_RADIUS) -> Result:
    """Private GMM means and weights by FriendlyCore over the chunks' k-tuples (module doc).

    Parameters
    ----------
    data : array-like
        n × d rows.
    budget : Budget
        (ε, δ) with δ > 0 (zCDP, MA and RDP budgets are composed under PLD, see ``choices``).
    rng : numpy.random.Generator
        The chunk shuffle and the noise.
    k : int
        Number of components, 1 … 20.
    radius : float, "data" or None
        Public R: the chunks' means are clipped to ``B(0, R)`` (``None``: the unit ball).
    chunks : int or None
        t, the number of disjoint chunks (5 … 2 000, at most n/(2k)); ``None``:
        :func:`automatic_chunks`.
    friend_radius : float
        r, in units of R: two tuples are friends when their means match within r.

    Returns
    -------
    Result
        ``weights`` and ``means`` (``covariances`` is ``None``), or ⊥ with the reason —
        refused before reading the rows (empty ledger) when the public sizes make it certain.
        ``diagnostics``: ``candidates`` (t·k × d, data units), ``candidate_weights``,
        ``owners``, ``degrees`` and ``core_weights`` (per chunk), ``core_weight`` (exact W),
        ``certified_core_weight`` (W_low).

    Raises
    ------
    ValueError
        Bad data or parameters; ``BudgetError`` for δ = 0 or a ρ budget.
    """
    k = limits.check_integer(K_RANGE, k)
    r = limits.check_number(FRIEND_RADIUS_RANGE, friend_radius)
    x = as_matrix(data, min_rows=2)
    n, d = x.shape
    t = automatic_chunks(n, k) if chunks is None else limits.check_integer(CHUNKS_RANGE, chunks)
    if n < CHUNKS_RANGE.low * 2 * k:
        raise ValueError(too_few_rows(n, k))
    sample_aggregate.check_chunks(t, k, n)
    spend = core_budget(budget, t)
    ball = resolve_ball(x, radius)
    choices: dict[str, Any] = {
        "bound": ball.describe(), "radius": ball.radius, "label": LABEL,
        "learner": "scikit-learn GaussianMixture(n_components=k, random_state=0) per chunk",
        "chunks": t, "friend radius": r, "accounting": spend.accounting.note,
        "friends": f"every mean matched within r = {r:g} R and its mixing weight within "
                   f"{WEIGHT_RADIUS:g}, each tuple's means more than {SEPARATION:g}r apart",
        "filter": f"weight clip((friends - (2t+1)/3)/Delta, 0, 1), Delta = (t-4)/3 = "
                  f"{ramp_width(t):.3g}",
        "core weight": f"truncated Laplace, sensitivity {core_weight_sensitivity(t):.3g}, "
                       f"bound A = {spend.margin:.3g}; bottom below t/4 = {CORE_FLOOR * t:g}",
        "budget split": f"plan levels: core weight {CORE_LEVEL:g}, means 1, mixing weights "
                        "1/2",
    }
    reason = refusal(t, spend)
    if reason is not None:  # public inputs only: refused before the rows are read
        sizes: dict[str, Any] = {"d": d, "k": k, "epsilon": budget.epsilon,
                                 "delta": budget.delta, "accounting": budget.method,
                                 "chunks": chunks}
        why = can_run(n=n, **sizes) or reason
        if chunks is None:  # issue 21: say the n from which its preconditions hold
            why += "; " + rows_needed(lambda m: can_run(n=m, **sizes) is None, n)
        return refused_before_spending(why, ledger=Ledger(spend.accounting.record),
                                       choices=choices, not_private=ball.not_private)
    unit = (x - ball.center) / ball.radius
    shuffled = unit[rng.permutation(n)]
    candidates, candidate_weights, owners = sample_aggregate.chunk_estimates(shuffled, t, k)
    found = aggregate_tuples(candidates.reshape(t, k, d), candidate_weights.reshape(t, k),
                             spend, rng=rng, friend_radius=r)
    diagnostics = {"candidates": ball.from_unit(candidates),
                   "candidate_weights": candidate_weights, "owners": owners,
                   **found.diagnostics}
    estimate = dict(found.estimate)
    if estimate["means"] is not None:
        estimate["means"] = ball.from_unit(estimate["means"])
    return replace(found, estimate=estimate, choices=choices, not_private=ball.not_private,
                   diagnostics=diagnostics)


def friendly_core_pair() -> NeighbourPair:
    """The audit's pair: the mixtures' corner pair (20 rows) in 5 chunks of 4 rows.

    The changed row changes its chunk's k-tuple, the one tuple of the sensitivity proof.
    """
    return mixture_pair(chunks=CHUNKS_RANGE.low)


ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({
    "friendly_core": Estimator(
        task="gmm", name="friendly_core", function=friendly_core,
        relation=REPLACE_ONE,
        fails_when_small=("on 400 rows too few chunks agree to certify a core: it needs the rows "
                          "can_run asks for"),
        # 400 rows release the core weight only with t = 100 chunks (5 are refused before
        # spending at any epsilon); 12 rows hold at most 6 chunks of 2k = 2 rows
        example={"k": 1, "chunks": 200, "friend_radius": 0.5}, small_example={"k": 1},
        # python bench/work_costs.py: a chunk's fit, and the friends of every pair of chunks
        cost=CostModel(1.2e-08, base_seconds=0.28, bytes_per_unit=33.0, chunk_rows=CHUNK_ROWS,
                       seconds_per_chunk=0.00023, seconds_per_pair=1.3e-07),
        can_run=can_run, neighbours=friendly_core_pair,
        label="FriendlyCore variant (after Tsfadia et al. 2022)",
        paper="Tsfadia, Cohen, Kaplan, Mansour & Stemmer, FriendlyCore: Practical "
              "Differentially Private Aggregation, ICML 2022. A variant: each chunk's result is "
              "weighted by its probability of joining the core instead of the paper's random "
              "draw, a chunk needs more than two thirds of the others as friends, and the "
              "privacy proof is its own (direct sensitivities, not the paper's friendly-DP "
              "aggregator)",
        notion="approximate", outputs=("weights", "means"),
        params=(
            shared_k(limits.COMPONENTS_PER_CHUNK),
            Param("chunks", "int", None, min=CHUNKS_RANGE.low, max=CHUNKS_RANGE.high,
                  help="t, the number of disjoint chunks the learner runs on (automatic: "
                       f"n/{CHUNK_ROWS})"),
            Param("friend_radius", "float", FRIEND_RADIUS, min=FRIEND_RADIUS_RANGE.low,
                  max=FRIEND_RADIUS_RANGE.high, choice=True,
                  help="r, in units of the public radius: two chunks are friends when each "
                       "of their means has a partner within r"))),
})
