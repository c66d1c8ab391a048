r"""The stability-based mixture learner: a degree-2 SDP **heuristic** surrogate of seed 003 §6.

Chen, Cohen-Addad, d'Orsi, Epasto, Imola, Steurer & Tiegel (NeurIPS 2023), Algorithm 6.5,
as restated at the end of ALGORITHMS.md §7. The paper's program is a degree-O(t)
sum-of-squares relaxation; dpviz solves its degree-2 (SDP) surrogate
(:mod:`dpviz.estimators.gmm.sdp`), for which the paper's guarantee (Lemma 6.10: most rows' centroids
are stable, via explicitly bounded distributions) is **not** available. The pipeline:

1. a public-size random subsample of m rows (data-independent randomness), clipped into the
   public ball and mapped to the unit ball;
2. ``W`` = the certified projection of ``J`` onto ``K(X) = {W ⪰ 0, Wᵢᵢ = 1, 0 ≤ Wᵢⱼ ≤ 1,
   Wᵢⱼ = 0 if ‖xᵢ − xⱼ‖ > ρ}`` (certificate ≤ a public ``τ*``);
3. ``φ(w) = clip(10(w − a), 0, 1)`` entrywise (10-Lipschitz, kink ``a``; the paper's
   Definition 6.4 uses a = 0.8);
4. the stability test: ``‖φ(W)‖₁ + τ ≥ T``, ``τ ≤ 0`` a one-sided truncated Laplace
   (the symmetric one of :func:`~dpviz.privacy.truncated_laplace` shifted down by its support
   A, so a pass certifies ``‖φ(W)‖₁ ≥ T``); reject ⇒ ⊥;
5. for a random subset S of s rows, the centroid ``cᵢ = Σⱼ φ(Wᵢⱼ)xⱼ / Σⱼ φ(Wᵢⱼ)``
   (``φ(Wᵢᵢ) = 1``, so the sum is ≥ 1) plus Gaussian noise;
6. a JL projection to p dimensions, a randomly shifted grid of width w, a stable histogram
   of the projected noisy centroids; the k heaviest bins (fewer than k kept ⇒ ⊥);
7. per bin the average of its noisy centroids → k centres; weights from the noisy counts.

**Sensitivity of the surrogate (replace row r of the subsample).** Let ``f(V) = ‖J − V‖²``,
``W = argmin_K(X) f``, ``W′ = argmin_K(X′) f``; ``Q`` zeroes the off-diagonal entries of row
and column r (an orthogonal projection of entries). ``Q(W)`` lies in ``K(X) ∩ K(X′)``: it is
a PSD principal block ⊕ 1, in the box, and the pairs whose constraint changed all involve r.
Projection optimality gives ``f(V) − f(W) ≥ ‖V − W‖²`` for every ``V ∈ K(X)``, hence
``‖Q(W′) − W‖² ≤ f(Q(W′)) − f(W)`` and ``‖Q(W) − W′‖² ≤ f(Q(W)) − f(W′)``; adding, and
using ``f(Q(W)) − f(W) = 2Σⱼ(2Wᵣⱼ − Wᵣⱼ²) =: 2a``, ``f(W) ≤ f(Q(W′))``, ``f(W′) ≤ f(Q(W))``:
the sum is ≤ ``2a + 2a′``. As Q is non-expansive, ``‖Q(W) − Q(W′)‖² ≤ min(…) ≤ a + a′``, and

    ‖W − W′‖²_F = ‖Q(W − W′)‖² + 2Σⱼ(Wᵣⱼ − W′ᵣⱼ)² ≤ Σⱼ [2w − w² + 2w′ − w′² + 2(w − w′)²] ≤ 3(m − 1)

(the bracket is ≤ 3 on [0, 1]², attained at (1, 0)). With the solver's certificate τ*,
``Δ_W = √(3(m − 1)) + 2τ*``. Then ``‖φ(W) − φ(W′)‖_F ≤ 10Δ_W``. The **mass**: row and column
r move it by at most ``2(m − 1)``; the block by at most ``(m − 1)·10(√(2(m − 1)) + 2τ*)``
(L1 ≤ √(entries)·Frobenius), so ``Δ_M = 2(m − 1) + 10(m − 1)(√(2(m − 1)) + 2τ*)``.
**Centroids**: a centroid is a φ-weighted mean of unit-ball rows; for rows i ≠ r whose
weights change only at j = r it moves by at most ``4/sᵢ`` (``sᵢ = Σⱼ φ(Wᵢⱼ)``), but the block
term can move every row's weights by ``10√m·‖Wᵢ − W′ᵢ‖`` and the surrogate has no analogue of
Lemma 6.10 bounding how many rows do so. The only bound dpviz can defend for the s released
centroids is the trivial one, ``2√s`` (Frobenius: each lies in the unit ball).

**Privacy.** The test uses ``Δ_M``, the centroids ``2√s``; the histogram is a stable
histogram and the bin averages are post-processing of the released noisy centroids: (ε, δ)-DP
by linear composition. With the default certificate τ* = 0.1·√(3(m − 1)),
``Δ_M ≈ 10√2·m^{1.5} + 2√3·m^{1.5} ≈ 17.6·m^{1.5}`` while ``‖φ(W)‖₁ ≤ m²``, so the test
**cannot pass** unless m is near a million at ε = 1, δ = 1e-5 (:func:`can_run` says the m
a budget needs; dpviz's solver takes m ≤ 2 000): the run is refused before the subsample is
read, with nothing spent. The paper's guarantee is asymptotic in the same way (its n is
polynomial in d^t and k^t). What the algorithm does is shown by its mechanics at ε = ∞ (no
noise, no guarantee, no ε), never by a weaker calibration beside an ε.

Budget: ``(ε/4, δ/4)`` to the test, ``(ε/4, δ/4)`` to the histogram, ``(ε/2, δ/2)`` to the
Gaussian releases (solved under linear composition), composed linearly — truncated Laplace
and the stable histogram are approximate-DP releases with no zCDP or Rényi curve, so the
ledger uses linear composition whatever method was asked for, and ``choices`` says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.core import limits
from dpviz.core.entry import CostModel, Estimator, Param, Story, shared_k
from dpviz.core.relations import REPLACE_ONE
from dpviz.data import as_matrix
from dpviz.estimators.gmm.one_cluster import refused_before_spending
from dpviz.estimators.gmm.sdp import NotConvergedError, solve_clustering_program
from dpviz.estimators.neighbours import TOO_SLOW_TO_AUDIT
from dpviz.estimators.result import Result
from dpviz.privacy import (
    Budget,
    BudgetError,
    Ledger,
    PlannedRelease,
    release,
    solve,
    stable_histogram,
    truncated_laplace,
)
from dpviz.privacy.bounds import resolve_ball
from dpviz.privacy.mechanisms import truncated_laplace_bound

FloatArray = NDArray[np.float64]

K_RANGE = limits.COMPONENTS_PER_CHUNK
SUBSAMPLE_RANGE = limits.Limit("subsample", 10, 2000)
ROWS_RANGE = limits.Limit("rows", 1, 2000)
LINK_RANGE = limits.Limit("link", 0.0, 2.0, low_open=True)
KINK_RANGE = limits.Limit("kink", 0.0, 0.9)
THRESHOLD_RANGE = limits.Limit("threshold", 0.0, 1.0, low_open=True)
BIN_RANGE = limits.Limit("bin_width", 0.0, 2.0, low_open=True)
JL_RANGE = limits.Limit("jl_dimension", 1, 50)
#: At or above 0.05 the solver certified every shape tried within its iteration cap: a tighter
#: tolerance would make "certified or not" depend on the private subsample.
TOLERANCE_RANGE = limits.Limit("tolerance", 0.05, 1.0)
LIPSCHITZ = 10.0
LABEL = ("Stability learner — heuristic (degree-2 SDP surrogate of the paper's "
         "sum-of-squares program)")


def soft_threshold(w: ArrayLike, kink: float = 0.8) -> FloatArray:
    """``φ(w) = clip(10(w − kink), 0, 1)``: 10-Lipschitz, 0 below the kink, 1 from kink + 0.1.

    Examples
    --------
    >>> soft_threshold([0.0, 0.85, 0.95]).round(6).tolist()
    [0.0, 0.5, 1.0]
    """
    out: FloatArray = np.clip(LIPSCHITZ * (np.asarray(w, dtype=float) - kink), 0.0, 1.0)
    return out


def matrix_sensitivity(m: int, tolerance: float = 0.0) -> float:
    """``Δ_W = √(3(m − 1)) + 2τ*``: Frobenius sensitivity of the certified W (module docstring).

    Examples
    --------
    >>> matrix_sensitivity(4)
    3.0
    """
    return math.sqrt(3.0 * (m - 1)) + 2.0 * tolerance


def mass_sensitivity(m: int, tolerance: float = 0.0) -> float:
    """``Δ_M = 2(m − 1) + 10(m − 1)(√(2(m − 1)) + 2τ*)``: L1 sensitivity of ``‖φ(W)‖₁``.

    Examples
    --------
    >>> round(mass_sensitivity(3), 6)
    44.0
    >>> m = 10_000; round(mass_sensitivity(m, solver_tolerance(m, 0.1)) / m**1.5, 1)
    17.6
    """
    row = 2.0 * (m - 1)
    return row + LIPSCHITZ * (m - 1) * (math.sqrt(2.0 * (m - 1)) + 2.0 * tolerance)


def centroids(phi: FloatArray, points: FloatArray, rows: NDArray[np.intp]) -> FloatArray:
    """``cᵢ = Σⱼ φᵢⱼ xⱼ / Σⱼ φᵢⱼ`` for the given rows (``φᵢᵢ = 1``, so sums are ≥ 1).

    Examples
    --------
    >>> centroids(np.array([[1.0, 1.0], [0.0, 1.0]]), np.array([[0.0], [1.0]]),
    ...           np.array([0, 1])).tolist()
    [[0.5], [1.0]]
    """
    weights = phi[rows]
    out: FloatArray = (weights @ points) / weights.sum(axis=1, keepdims=True)
    return out


def _one_sided_test(mass: float, sensitivity: float, budget: Budget,
                    rng: np.random.Generator, ledger: Ledger) -> tuple[float, float]:
    """The released ``mass + τ`` with ``τ ∈ [−2A, 0]``, and the shift A."""
    eps, delta = budget.epsilon or math.inf, budget.delta
    shift = 0.0 if math.isinf(eps) else truncated_laplace_bound(sensitivity, eps, delta)
    noisy = float(truncated_laplace(mass, sensitivity=sensitivity, epsilon=eps, delta=delta,
                                    rng=rng, ledger=ledger, name="stability test (mass)"))
    return noisy - shift, shift


def solver_tolerance(m: int, fraction: float) -> float:
    """τ, the solver's public tolerance: ``fraction`` of the largest ‖J − V‖ change, √(3(m−1))."""
    return fraction * math.sqrt(3.0 * (m - 1))


def mass_test_shift(m: int, epsilon: float, delta: float, *, tolerance: float) -> float:
    """The one-sided shift A of the mass test at a subsample of m, with a quarter of (ε, δ).

    Public inputs only. The test can pass only when ``m² − threshold·m²/k ≥ A``.
    """
    if math.isinf(epsilon):
        return 0.0
    sensitivity = mass_sensitivity(m, solver_tolerance(m, tolerance))
    quarter = epsilon / 4
    if quarter + math.log(2 / delta) > 700:  # overflow: log1p(expm1(x)/c) = x − ln c, to 1e-290
        return sensitivity / quarter * (quarter + math.log(2 / delta))
    return truncated_laplace_bound(sensitivity, quarter, delta / 4)


def can_run(*, n: int, k: int, epsilon: float, delta: float, subsample: int = 200,
            threshold: float = 0.5, tolerance: float = 0.1, **_: Any) -> str | None:
    """Why the stability learner cannot succeed at these public sizes, or ``None``.

    The subsample must fit in the data, and the test must be passable: its one-sided noise
    shift (:func:`mass_test_shift`) must leave room below the largest mass m². Otherwise
    the sentence says the subsample m (hence the n ≥ m) at which it would be.

    Examples
    --------
    >>> can_run(n=10_000, k=3, epsilon=1e4, delta=1e-5, subsample=1000) is None
    True
    >>> can_run(n=10_000, k=3, epsilon=1.0, delta=1e-5, subsample=200)[:49]
    'the stability test cannot pass at m = 200 and eps'
    """
    if subsample > n:
        return (f"the stability learner draws a subsample of m = {subsample} rows, more than "
                f"the n = {n} at hand: lower the subsample or bring n >= {subsample} rows")
    if delta <= 0 and not math.isinf(epsilon):
        return "the stability learner needs delta > 0 (its test is approximate DP)"

    def short(m: int) -> bool:
        room = m * m * (1 - threshold / k)
        return mass_test_shift(m, epsilon, delta, tolerance=tolerance) > room

    if not short(subsample):
        return None
    low, high = subsample, 2 * subsample  # the shift grows like m^1.5, the room like m²
    while high < 10**15 and short(high):
        low, high = high, 2 * high
    while high - low > max(1, low // 100):
        middle = (low + high) // 2
        low, high = (middle, high) if short(middle) else (low, middle)
    room = subsample * subsample * (1 - threshold / k)
    return (f"the stability test cannot pass at m = {subsample} and epsilon = {epsilon:g}: "
            f"its one-sided noise shift exceeds the room m^2(1 - threshold/k) = {room:.4g} "
            f"below the largest mass; it would need a subsample of about m = {high:.2g} rows "
            f"(so n >= {high:.2g}; dpviz's solver takes m <= {int(SUBSAMPLE_RANGE.high):,})")


def _check_budget(budget: Budget) -> None:
    if budget.rho is not None:
        raise BudgetError("the stability learner's test is a truncated Laplace (approximate "
                          "DP): give the budget as epsilon and delta, not rho")
    if budget.delta <= 0 and not budget.non_private:
        raise BudgetError("the stability learner needs delta > 0 (its test and histogram are "
                          "approximate-DP releases); give --delta, e.g. 1e-5")


def stability_mixture(data: ArrayLike, budget: Budget, *, rng: np.random.Generator,
                      radius: float | str | None = None, k: int, subsample: int = 200,
                      rows: int = 60, link: float = 0.4, kink: float = 0.8,
                      threshold: float = 0.5, jl_dimension: int = 4, bin_width: float = 0.25,
                      tolerance: float = 0.1) -> Result:
    """Centres of a spherical mixture by the stability learner's degree-2 surrogate.

    Seed 003 §6, Algorithm 6.5 (Chen et al. 2023), with the SDP surrogate of its program;
    see the module docstring for the pipeline and the sensitivity derivation.

    Parameters
    ----------
    data : array-like
        n × d rows, one per person.
    budget : Budget
        (ε, δ) with δ > 0; composed linearly (``choices`` records the requested method).
    rng : numpy.random.Generator
        Draws the subsample, the rows S, the JL matrix, the grid shift and all noise.
    radius : float, "data" or None
        Public radius of the clipping ball about the origin (``None``: the unit ball).
    k : int
        Number of centres, 1 … 20.
    subsample : int
        m, the public subsample size, 10 … 2 000 and at most n.
    rows : int
        s, how many rows' centroids are released (at most m).
    link : float
        ρ in unit-ball coordinates (fraction of the radius): pairs farther apart are never
        clustered together.
    kink : float
        Where φ leaves 0 (the paper: 0.8).
    threshold : float
        The test passes when the released mass is ≥ ``threshold·m²/k``.
    jl_dimension : int
        p, the JL target dimension (no projection when d ≤ p).
    bin_width : float
        Width of the histogram's grid cells (unit-ball coordinates, after projection).
    tolerance : float
        Public solver certificate τ* as a fraction of ``√(3(m − 1))``.

    Returns
    -------
    Result
        ``estimate``: ``weights``, ``means`` (k × d, data units), ``covariances`` None — all
        None on ⊥ — refused before the subsample is drawn, with an empty ledger, when
        :func:`can_run` rules the test out at these public sizes. ``diagnostics``: ``W``,
        ``phi``, ``subsample`` (indices), ``mass``,
        ``test_value``, ``test_threshold``, ``test_shift``, ``centroids`` (noisy, data units),
        ``rows``, ``bins`` (chosen cells: key, noisy count), ``centres``, ``certificate``,
        ``iterations``.

    Raises
    ------
    ValueError
        Bad data or parameters, a rho budget or δ = 0, a subsample larger than n.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(c, 0.05, size=(40, 2)) for c in ([-.5, 0], [.5, 0])])
    >>> r = stability_mixture(x, Budget(epsilon=float("inf")), rng=np.random.default_rng(1),
    ...                       k=2, subsample=60, rows=20, bin_width=0.5)
    >>> sorted(np.round(r.estimate["means"][:, 0], 1).tolist())
    [-0.5, 0.5]
    """
    _check_budget(budget)
    k = limits.check_integer(K_RANGE, k)
    m = limits.check_integer(SUBSAMPLE_RANGE, subsample)
    s = limits.check_integer(ROWS_RANGE, rows)
    link = LINK_RANGE.check(link)
    kink = KINK_RANGE.check(kink)
    threshold = THRESHOLD_RANGE.check(threshold)
    p = limits.check_integer(JL_RANGE, jl_dimension)
    width = BIN_RANGE.check(bin_width)
    tol_fraction = TOLERANCE_RANGE.check(tolerance)
    x = as_matrix(data, min_rows=1)
    n, d = x.shape
    if m > n:
        raise ValueError(f"subsample must be at most the number of rows n = {n}, got {m}")
    if s > m:
        raise ValueError(f"rows must be at most the subsample size {m}, got {s}")
    if k > s:
        raise ValueError(f"k = {k} centres need at least {k} released rows, got rows = {s}")
    eps, delta = budget.epsilon or math.inf, budget.delta
    why = can_run(n=n, k=k, epsilon=eps, delta=delta, subsample=m, threshold=threshold,
                  tolerance=tol_fraction)
    if why is not None:
        return refused_before_spending(why, ledger=Ledger(Budget(epsilon=eps, delta=delta,
                                                                 method="linear")))
    ball = resolve_ball(x, radius)
    if budget.non_private and delta == 0:
        delta = 0.5  # only labels the noiseless releases: at epsilon = inf nothing is drawn
    quarter = Budget(epsilon=eps / 4, delta=delta / 4, method="linear")
    ledger = Ledger(Budget(epsilon=eps, delta=delta, method="linear"))
    tau = solver_tolerance(m, tol_fraction)

    subsample_idx = np.sort(rng.choice(n, size=m, replace=False))
    points = ball.to_unit(x[subsample_idx])
    try:
        solved = solve_clustering_program(points, link, tolerance=tau)
    except NotConvergedError as err:
        raise ValueError(str(err)) from None
    w = solved.matrix
    phi = soft_threshold(w, kink)
    mass = float(phi.sum())
    delta_m = mass_sensitivity(m, tau)
    cut = threshold * m * m / k
    test_value, shift = _one_sided_test(mass, delta_m, quarter, rng, ledger)

    choices: dict[str, Any] = {
        "surrogate": ("heuristic: degree-2 SDP surrogate of the paper's sum-of-squares "
                      "program (W >= 0, W_ii = 1, 0 <= W_ij <= 1, W_ij = 0 beyond the link "
                      "distance; no row-sum constraint)"),
        "bound": ball.describe(), "radius": ball.radius,
        "subsample": m, "rows": s, "link": link, "kink": kink, "threshold": threshold,
        "jl_dimension": p, "bin_width": width, "tolerance": tau,
        "matrix sensitivity": matrix_sensitivity(m, tau),
        "test sensitivity": delta_m,
        "test passable": bool(m * m - cut >= shift),
        "accounting": (f"linear (requested {budget.method}): the truncated-Laplace test and "
                       "the stable histogram are approximate-DP releases"),
        "budget split": "test eps/4, delta/4; histogram eps/4, delta/4; Gaussians eps/2, delta/2",
    }
    diagnostics: dict[str, Any] = {
        "W": w, "phi": phi, "subsample": subsample_idx, "mass": mass,
        "test_value": test_value, "test_threshold": cut, "test_shift": shift,
        "certificate": solved.certificate, "iterations": solved.iterations,
    }
    not_private = ball.not_private
    empty = {"weights": None, "means": None, "covariances": None}

    def bottom(reason: str) -> Result:
        return Result(estimate=empty, ledger=ledger, choices=choices, not_private=not_private,
                      failed=reason, diagnostics=diagnostics)

    if test_value < cut:
        why = (f"the stability test rejected: released mass {test_value:.4g} < threshold "
               f"{cut:.4g}")
        if not choices["test passable"]:
            why += (f"; with test sensitivity {delta_m:.4g} the one-sided noise shift "
                    f"{shift:.4g} exceeds the largest possible mass m^2 = {m * m}, so it "
                    "cannot pass at this subsample size and budget")
        return bottom(why)

    chosen = np.sort(rng.choice(m, size=s, replace=False))
    centroid_sensitivity = 2.0 * math.sqrt(chosen.size)
    plan = [PlannedRelease("centroids", "gaussian", sensitivity=centroid_sensitivity)]
    allocation = solve(plan, Budget(epsilon=eps / 2, delta=delta / 2, method="linear"))
    exact = centroids(phi, points, chosen)
    noisy = np.asarray(release(exact, allocation["centroids"], rng=rng, ledger=ledger))
    diagnostics["rows"] = subsample_idx[chosen]
    diagnostics["centroids"] = ball.from_unit(noisy)

    if d > p:
        projection = rng.normal(0.0, 1.0 / math.sqrt(p), size=(d, p))
        projected = noisy @ projection
    else:
        projected = noisy
    offset = rng.uniform(0.0, width, size=projected.shape[1])
    cells = np.floor((projected + offset) / width).astype(np.int64)
    keys = [tuple(int(v) for v in c) for c in cells]
    counts: dict[Any, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    kept = stable_histogram(counts, epsilon=quarter.epsilon or math.inf, delta=quarter.delta,
                            rng=rng, ledger=ledger, name="histogram of noisy centroids")
    heaviest = sorted(kept.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    diagnostics["bins"] = [{"cell": list(key), "count": count}  # type: ignore[call-overload]
                           for key, count in heaviest]
    if len(heaviest) < k:
        return bottom(f"the histogram kept {len(kept)} bins, fewer than k = {k}")

    inside = [np.array([key == cell for key in keys]) for cell, _ in heaviest]
    averages = np.stack([noisy[mask].mean(axis=0) for mask in inside])
    norms = np.linalg.norm(averages, axis=1, keepdims=True)
    averages = averages / np.maximum(norms, 1.0)
    weights = np.array([max(count, 0.0) for _, count in heaviest])
    weights = weights / weights.sum()
    means = ball.from_unit(averages)
    diagnostics["centres"] = means
    return Result(estimate={"weights": weights, "means": means, "covariances": None},
                  ledger=ledger, choices=choices, not_private=not_private,
                  diagnostics=diagnostics)


ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({
    "stability": Estimator(
        task="gmm", name="stability", function=stability_mixture, label=LABEL,
        relation=REPLACE_ONE, no_pair=TOO_SLOW_TO_AUDIT,
        fails_when_small=("on 400 rows its stability test rejects: it needs the rows and ε "
                          "can_run asks for"),
        example={"k": 1, "subsample": 10, "rows": 5},
        can_run=can_run,
        story=Story("The stability learner solves a convex clustering program on a public-size "
                    "subsample, tests privately whether its solution is stable, and only then "
                    "releases noisy centroids.", "dpviz.viz.stability:stability_story"),
        cost=CostModel(2.8e-07, bytes_per_unit=42.0),
        paper="Chen et al. 2023, Section 6 (Algorithm 6.5), degree-2 surrogate",
        notion="approximate", outputs=("weights", "means"),
        params=(
            shared_k(limits.COMPONENTS_PER_CHUNK, help="number of centres"),
            Param("subsample", "int", 200, min=10, max=2000,
                  help="public subsample size m (the program is m x m)"),
            Param("rows", "int", 60, min=1, max=2000, choice=True,
                  help="how many rows' centroids are released (at most m)"),
            Param("link", "float", 0.4, min=0.0, max=2.0, choice=True,
                  help="pairs farther apart than this (fraction of the radius) are never "
                       "clustered together"),
            Param("kink", "float", 0.8, min=0.0, max=0.9, choice=True,
                  help="where the soft threshold phi leaves 0 (the paper: 0.8)"),
            Param("threshold", "float", 0.5, min=0.0, max=1.0, choice=True,
                  help="the test passes when the released mass is >= threshold * m^2 / k"),
            Param("jl_dimension", "int", 4, min=1, max=50, choice=True,
                  help="JL target dimension (no projection when d is at most this)"),
            Param("bin_width", "float", 0.25, min=0.0, max=2.0, choice=True,
                  help="histogram cell width (fraction of the radius)"),
            Param("tolerance", "float", 0.1, min=0.05, max=1.0, choice=True,
                  help="solver certificate as a fraction of the matrix sensitivity sqrt(3(m-1))"),
        )),
})
