"""The private 1-cluster routine of seed 000 (KSSU19) as simplified in ALGORITHMS.md §3 step 3.

Kamath, Sheffet, Singhal & Ullman (2019), Algorithm 1 finds one cluster at a time with the
1-cluster algorithm of Nissim & Stemmer (NS18, "PGLoc"). dpviz runs a simplified version:

1. **Simplified GoodRadius (AboveThreshold over a radius grid).** Radii ``r_j = r₀·2^{j/2}``;
   the score of a radius is ``L(r) = (1/t)·Σ over the t points with the largest counts of
   min(t, |B(xᵢ, r)|)``; AboveThreshold stops at the first radius whose noisy score reaches
   the noisy threshold ``t − Γ``, ``Γ = 8Δ(ln m + ln(2/β))/ε`` (the accuracy of AboveThreshold
   with m queries, ALGORITHMS.md §1.1).
2. **Grid GoodCenter** — a *low-dimensional heuristic replacing NS18's LSH + random boxes; its
   theorem does not apply*: a randomly shifted grid of side ``w = r``, the heaviest cell by a
   stable histogram, then the average of the points within ``r_c = 2r + (w/2)√p`` of that
   cell's centre c, released as ``c + (Σ(x − c) + N(0, σ²I))/ñ`` (noisy centred sum, noisy
   count).

Counting people. The routine counts **owners**: for seed 000 §4 (private PCA + clustering)
every point is its own owner (one row, one person); for sample-and-aggregate (§6) the points
are candidate means and the owner is the chunk that produced them — one changed row changes
one chunk, i.e. up to ``g`` points (``g = group_size``, k candidates per chunk). Every count
is a count of *distinct owners*, so each owner votes at most once per region.

Sensitivities under replace-one neighbours (one owner's ``g`` points replaced):

* ``L(r)``: every count of a kept point moves by at most 1 (the changed owner is in the ball
  or not, before and after), which moves the top-t sum by at most t; each of the ``g``
  replaced points can move it by at most t more (its term lies in [0, t], and removing one
  term then adding one changes a top-t sum by at most t). Divided by t: **Δ = 1 + g**
  (2 for rows, as §3 states).
* Cell histogram: each owner adds 1 to at most ``g`` cells; replacing it removes up to g
  votes and adds up to g: **L1 sensitivity 2g** (2 for rows, the core's stable histogram).
  With groups the threshold is ``1 + b·ln(g/(2δ))``, ``b = 2g/ε`` (ALGORITHMS.md §4): at most
  g bins can appear from nothing, each passing the cut with probability ``½e^{−ln(g/(2δ))}``.
* Centred sum: each owner contributes one point (its nearest within ``r_c``), so
  ``‖x − c‖ ≤ r_c``: removing one and adding another moves the sum by at most **2r_c** (L2).
* Count of owners in ``B(c, r_c)``: **1** (one owner leaves or joins).

The round's releases go through :mod:`dpviz.privacy`; the caller plans them with
:func:`one_cluster_plan` and the budget solver.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from dpviz.estimators.result import Result
from dpviz.privacy import (
    Allocation,
    Budget,
    BudgetError,
    Ledger,
    PlannedRelease,
    above_threshold,
    release,
    sampler_of,
    stable_histogram,
)
from dpviz.privacy.ledger import Release
from dpviz.privacy.mechanisms import grid_relaxation

GOOD_RADIUS = "good radius"
HISTOGRAM = "cell histogram"
CENTRE_SUM = "centre sum"
CENTRE_COUNT = "centre count"

GOOD_RADIUS_LABEL = "simplified GoodRadius (AboveThreshold over a radius grid)"
GOOD_CENTER_LABEL = ("grid GoodCenter: low-dimensional heuristic replacing NS18's LSH + random "
                     "boxes; its theorem does not apply")
class PreconditionWarning(UserWarning):
    """A condition of a paper's accuracy guarantee fails; the run goes on without it."""


#: Rows of the owner-distance table computed at once (memory: this × points distances).
BATCH = 2048


def radius_grid(smallest: float, largest: float) -> NDArray[np.float64]:
    """The radii ``r_j = r₀·2^{j/2}``, ``j = 0, 1, …``, up to the first one ≥ ``largest``.

    Examples
    --------
    >>> radius_grid(1.0, 4.0).round(3).tolist()
    [1.0, 1.414, 2.0, 2.828, 4.0]
    """
    if not 0 < smallest <= largest:
        raise ValueError(f"the radius grid needs 0 < r0 <= r_max, got {smallest}, {largest}")
    steps = math.ceil(2 * math.log2(largest / smallest) - 1e-12)
    return np.asarray(smallest * 2.0 ** (np.arange(steps + 1) / 2), dtype=np.float64)


def score_sensitivity(group_size: int) -> float:
    """Replace-one sensitivity of ``L(r)`` when one owner holds ``group_size`` points: ``1 + g``.

    Examples
    --------
    >>> score_sensitivity(1), score_sensitivity(3)
    (2.0, 4.0)
    """
    return 1.0 + group_size


def good_radius_slack(queries: int, beta: float, epsilon: float, sensitivity: float) -> float:
    """``Γ = 8Δ(ln m + ln(2/β))/ε``: AboveThreshold's accuracy with m queries (§1.1).

    With Δ = 2 this is §3's ``16(ln m + ln(2/β))/ε_GR``; 0 at ε = ∞.

    Examples
    --------
    >>> round(good_radius_slack(10, 0.05, 1.0, 2.0), 2)
    95.86
    """
    if math.isinf(epsilon):
        return 0.0
    return 8 * sensitivity * (math.log(queries) + math.log(2 / beta)) / epsilon


def owner_counts(points: NDArray[np.float64], owners: NDArray[np.intp] | None,
                 radii: NDArray[np.float64], cap: int,
                 enough: int | None = None) -> NDArray[np.int64]:
    """``min(cap, |owners with a point in B(xᵢ, r)|)`` for every point and radius (n × m).

    Without owners every point is its own owner (itself included in its ball), counted with a
    k-d tree; with owners from the distance of each point to the nearest point of every owner.
    ``enough``: without owners, stop counting at the first radius where that many points
    reach the cap; the larger radii's columns then keep those at the cap and the others'
    last count (a lower bound), which leaves :func:`good_radius_scores` with a target of at
    most ``enough`` exact (its top counts are all at the cap) and skips the costliest radii.

    Examples
    --------
    >>> pts = np.array([[0.0], [0.5], [3.0]])
    >>> owner_counts(pts, None, np.array([0.1, 1.0, 5.0]), cap=2).tolist()
    [[1, 2, 2], [1, 2, 2], [1, 1, 2]]
    >>> owner_counts(pts, np.array([0, 0, 1]), np.array([1.0, 5.0]), cap=5).tolist()
    [[1, 2], [1, 2], [1, 2]]
    """
    n = len(points)
    out = np.zeros((n, len(radii)), dtype=np.int64)
    if n == 0:
        return out
    if owners is None:
        # radii in increasing order: a point whose count reached the cap keeps it, so only
        # the others are counted again (each count costs about the number of points found)
        tree = cKDTree(points)
        active = np.arange(n)
        for j, r in enumerate(radii):
            if active.size == 0:
                break
            found = np.asarray(tree.query_ball_point(points[active], r, return_length=True))
            out[active, j] = found
            full = found >= cap
            out[active[full], j + 1:] = cap
            if enough is not None and np.count_nonzero(out[:, j] >= cap) >= enough:
                out[active[~full], j + 1:] = found[~full, None]
                break
            active = active[~full]
        return np.minimum(out, cap)
    order = np.argsort(owners, kind="stable")
    sorted_owners = owners[order]
    starts = np.flatnonzero(np.r_[True, sorted_owners[1:] != sorted_owners[:-1]])
    for start in range(0, n, BATCH):
        dist = cdist(points[start:start + BATCH], points[order])
        nearest = np.minimum.reduceat(dist, starts, axis=1)  # per owner
        for j, r in enumerate(radii):
            out[start:start + BATCH, j] = np.count_nonzero(nearest <= r, axis=1)
    return np.minimum(out, cap)


def good_radius_scores(counts: NDArray[np.int64], target: int) -> NDArray[np.float64]:
    """``L(r) = (1/t)·Σ`` over the t largest capped counts, one value per radius (column).

    Examples
    --------
    >>> good_radius_scores(np.array([[1, 2], [2, 2], [1, 1]]), target=2).tolist()
    [1.5, 2.0]
    """
    top = np.sort(counts, axis=0)[::-1][:target]
    return np.asarray(top.sum(axis=0) / target, dtype=np.float64)


def grid_cells(points: NDArray[np.float64], side: float,
               shift: NDArray[np.float64]) -> NDArray[np.int64]:
    """Index of the cell of a grid of side ``side`` shifted by ``shift`` holding each point.

    Examples
    --------
    >>> grid_cells(np.array([[0.1, 0.9], [1.2, -0.1]]), 1.0, np.zeros(2)).tolist()
    [[0, 0], [1, -1]]
    """
    return np.floor((points - shift) / side).astype(np.int64)


def cell_owner_counts(cells: NDArray[np.int64],
                      owners: NDArray[np.intp] | None) -> dict[Hashable, int]:
    """How many distinct owners have a point in each non-empty cell.

    Examples
    --------
    >>> cell_owner_counts(np.array([[0], [0], [1]]), np.array([7, 7, 7]))
    {(0,): 1, (1,): 1}
    """
    ids = np.arange(len(cells)) if owners is None else owners
    pairs = {(tuple(int(v) for v in cell), int(o)) for cell, o in zip(cells, ids, strict=True)}
    counts: dict[Hashable, int] = {}
    for cell, _ in pairs:
        counts[cell] = counts.get(cell, 0) + 1
    return dict(sorted(counts.items()))


def grouped_stable_histogram(counts: dict[Hashable, int], *, epsilon: float, delta: float,
                             group_size: int, rng: np.random.Generator, ledger: Ledger,
                             name: str, part: str | None = None) -> dict[Hashable, float]:
    """A stable histogram whose owners each vote in up to ``group_size`` bins; (ε, δ)-DP.

    ``group_size = 1`` is the core's :func:`~dpviz.privacy.stable_histogram` (L1 sensitivity
    2). For g > 1 the L1 sensitivity is 2g: the core mechanism run at ε/g draws ``Lap(2g/ε)``,
    and at δ′ = 4δ/g its cut ``1 + (2g/ε)·ln(2/δ′)`` is ALGORITHMS.md §4's
    ``1 + b·ln(g/(2δ))``; the release is recorded at its true sensitivity 2g and (ε, δ).
    Under secure randomness the 2g bins that differ are each rounded to the noise's grid: the
    counts are integers, so this adds nothing until the grid step passes 1 (ε below about
    g·2^-40), and from there the row charges the core's ``(2g + relaxation)/b``.
    """
    if group_size == 1:
        return stable_histogram(counts, epsilon=epsilon, delta=delta, rng=rng, ledger=ledger,
                                name=name, part=part)
    inner = 4 * delta / group_size
    kept = stable_histogram(counts, epsilon=epsilon / group_size, delta=inner, rng=rng,
                            ledger=Ledger(), name=name, part=part)
    scale = 0.0 if math.isinf(epsilon) else 2 * group_size / epsilon
    relaxed = grid_relaxation("laplace", scale, rng, 2 * group_size, integers=True)
    ledger.record(Release(name, "stable_histogram", 2.0 * group_size, "L1", scale,
                          epsilon=(2.0 * group_size + relaxed) / scale if relaxed else epsilon,
                          delta=delta, part=part, sampler=sampler_of(rng, scale),
                          relaxation=relaxed))
    return kept


def one_cluster_plan(rounds: int, *, group_size: int, weight: float,
                     part: str | None = None) -> list[PlannedRelease]:
    """The releases of ``rounds`` rounds, each round's ``weight`` split 1/3, 1/3, 1/6 + 1/6.

    GoodRadius, the histogram and the (centred sum, count) pair get equal thirds of a round
    (ALGORITHMS.md §3, a **choice**). The centred sum is planned at unit sensitivity and drawn
    at ``2r_c`` (its radius is only known once GoodRadius has spoken).
    """
    return [
        PlannedRelease(GOOD_RADIUS, "pure", score_sensitivity(group_size), count=rounds,
                       weight=weight / 3, part=part),
        PlannedRelease(HISTOGRAM, "pure", 2.0 * group_size, count=rounds, weight=weight / 3,
                       part=part),
        PlannedRelease(CENTRE_SUM, "gaussian", 1.0, count=rounds, weight=weight / 6, part=part),
        PlannedRelease(CENTRE_COUNT, "laplace", 1.0, count=rounds, weight=weight / 6,
                       part=part),
    ]


@dataclass(frozen=True)
class OneCluster:
    """One round of the 1-cluster routine: what it released and how it got there.

    Attributes
    ----------
    radius : float or None
        GoodRadius's radius r (released); ``None`` when no radius passed.
    radius_index : int or None
        Its index in the grid.
    shift : ndarray
        The grid's random shift (data-independent).
    cell_centre : ndarray or None
        The centre c of the heaviest kept cell (released).
    centre : ndarray or None
        The private average around c, projected into ``B(c, r_c)`` (released).
    noisy_count : float or None
        ñ, the noisy number of owners within ``r_c`` of c (released).
    average_radius : float or None
        ``r_c = 2r + (w/2)√p``.
    scores : ndarray
        ``L(r)`` on the grid, exact (a diagnostic, never released).
    threshold : float
        ``t − Γ``.
    failed : str or None
        Why the round found nothing.
    """

    radius: float | None
    radius_index: int | None
    shift: NDArray[np.float64]
    cell_centre: NDArray[np.float64] | None
    centre: NDArray[np.float64] | None
    noisy_count: float | None
    average_radius: float | None
    scores: NDArray[np.float64]
    threshold: float
    failed: str | None = None


@dataclass(frozen=True)
class RoundAllocations:
    """The solver's allocations for one round's four releases, and each histogram's δ."""

    good_radius: Allocation
    histogram: Allocation
    centre_sum: Allocation
    centre_count: Allocation
    histogram_delta: float

    @classmethod
    def from_solved(cls, solved: dict[str, Allocation], histogram_delta: float
                    ) -> RoundAllocations:
        """Pick the four allocations of :func:`one_cluster_plan` out of a solved plan."""
        return cls(solved[GOOD_RADIUS], solved[HISTOGRAM], solved[CENTRE_SUM],
                   solved[CENTRE_COUNT], histogram_delta)


def nearest_per_owner(points: NDArray[np.float64], owners: NDArray[np.intp] | None,
                      centre: NDArray[np.float64], radius: float) -> NDArray[np.intp]:
    """Indices of the points within ``radius`` of ``centre``, one per owner (its nearest).

    Examples
    --------
    >>> pts = np.array([[0.0], [0.2], [0.1], [5.0]])
    >>> nearest_per_owner(pts, np.array([0, 0, 1, 1]), np.array([0.0]), 1.0).tolist()
    [0, 2]
    """
    dist = np.linalg.norm(points - centre, axis=1)
    inside = np.flatnonzero(dist <= radius)
    if owners is None or inside.size == 0:
        return inside
    order = inside[np.lexsort((dist[inside], owners[inside]))]
    first = np.r_[True, owners[order][1:] != owners[order][:-1]]
    return np.sort(order[first])


def one_cluster(points: NDArray[np.float64], *, owners: NDArray[np.intp] | None,
                group_size: int, target: int, radii: NDArray[np.float64],
                allocations: RoundAllocations, beta: float, rng: np.random.Generator,
                ledger: Ledger, label: str) -> OneCluster:
    """One private 1-cluster round: GoodRadius, grid GoodCenter, the private average.

    Parameters
    ----------
    points : ndarray
        The points still unclustered (n × p, low dimension).
    owners : ndarray or None
        The owner of each point (``None``: each point its own).
    group_size : int
        The most points one owner holds (1 for rows, k for chunks).
    target : int
        t, the number of owners a good ball should hold.
    radii : ndarray
        The public radius grid (:func:`radius_grid`).
    allocations : RoundAllocations
        The noise of the round's four releases.
    beta : float
        Failure probability in GoodRadius's slack Γ.
    rng : numpy.random.Generator
        The grid shift and the noise.
    ledger : Ledger
        Records the round's releases, named ``"{release}, {label}"``.
    label : str
        E.g. ``"round 2"``.

    Returns
    -------
    OneCluster
        The released radius, cell centre, count and centre (or the reason it failed).
    """
    p = points.shape[1]
    sensitivity = score_sensitivity(group_size)
    eps_radius = float(allocations.good_radius.epsilon or 0.0)
    threshold = target - good_radius_slack(len(radii), beta, eps_radius, sensitivity)
    scores = good_radius_scores(owner_counts(points, owners, radii, target, enough=target),
                                target)
    # the grid's random shift, in units of its side (known once GoodRadius has spoken)
    shift = np.asarray(rng.uniform(0.0, 1.0, size=p), dtype=np.float64)
    index = above_threshold(scores, threshold=threshold, sensitivity=sensitivity,
                            epsilon=eps_radius, rng=rng, ledger=ledger,
                            name=f"{GOOD_RADIUS}, {label}",
                            part=allocations.good_radius.release.part)
    if index is None:
        return OneCluster(None, None, shift, None, None, None, None, scores, threshold,
                          failed=f"{label}: GoodRadius found no radius whose noisy score "
                                 f"reached the threshold t - Gamma = {threshold:.3g}")
    radius = float(radii[index])
    side = radius
    shift = shift * side
    cells = grid_cells(points, side, shift)
    kept = grouped_stable_histogram(
        cell_owner_counts(cells, owners), epsilon=float(allocations.histogram.epsilon or 0.0),
        delta=allocations.histogram_delta, group_size=group_size, rng=rng, ledger=ledger,
        name=f"{HISTOGRAM}, {label}", part=allocations.histogram.release.part)
    if not kept:
        return OneCluster(radius, index, shift, None, None, None, None, scores, threshold,
                          failed=f"{label}: no grid cell of side {side:.3g} passed the "
                                 "stable histogram's threshold")
    best = max(kept, key=lambda cell: kept[cell])
    cell_centre = shift + (np.asarray(best, dtype=float) + 0.5) * side
    r_c = 2 * radius + side / 2 * math.sqrt(p)
    members = nearest_per_owner(points, owners, cell_centre, r_c)
    centred = (points[members] - cell_centre).sum(axis=0)
    noisy_sum = np.asarray(release(centred, allocations.centre_sum, rng=rng, ledger=ledger,
                                   name=f"{CENTRE_SUM}, {label}", sensitivity=2 * r_c))
    noisy_count = float(release(float(len(members)), allocations.centre_count, rng=rng,
                                ledger=ledger, name=f"{CENTRE_COUNT}, {label}"))
    offset = noisy_sum / max(noisy_count, 1.0)
    # the true average of points in B(c, r_c) lies in that ball: project (post-processing)
    offset *= min(1.0, r_c / max(float(np.linalg.norm(offset)), np.finfo(float).tiny))
    return OneCluster(radius, index, shift, cell_centre, cell_centre + offset, noisy_count,
                      r_c, scores, threshold)


#: Accountants that can compose the stable histogram's (ε, δ) releases.
APPROXIMATE_METHODS = ("linear", "advanced", "pld")


@dataclass(frozen=True)
class HistogramBudget:
    """How a plan with stable histograms meets a budget.

    Attributes
    ----------
    record : Budget
        The budget the ledger composes under (``pld`` when zCDP, the moments accountant or
        RDP was asked for: they cannot compose approximate-DP releases).
    solve : Budget
        What the solver gets for the other releases: δ less the histograms' share.
    histogram_delta : float
        δ of each histogram.
    note : str
        The accounting, in words, for ``choices``.
    """

    record: Budget
    solve: Budget
    histogram_delta: float
    note: str


def bottom_if_a_round_failed(rounds: Sequence[OneCluster], *, ledger: Ledger,
                             choices: Mapping[str, Any], not_private: str | None,
                             diagnostics: Mapping[str, Any]) -> Result | None:
    """The honest ⊥ of a clustering whose private 1-cluster rounds did not all succeed.

    Everything spent so far stays in the ledger; nothing is estimated. ``None`` when every
    round found its ball.
    """
    failed = [r.failed for r in rounds if r.failed]
    if not failed:
        return None
    return Result(estimate={"weights": None, "means": None, "covariances": None},
                  ledger=ledger, choices=choices, not_private=not_private,
                  failed="; ".join(failed), diagnostics=diagnostics)


#: How the ``failed`` sentence of a run refused on public inputs begins (tables sort ⊥ by it).
REFUSED = "refused before reading the data, nothing spent: "


def refused_before_spending(why: str, *, ledger: Ledger, choices: Mapping[str, Any] | None = None,
                            not_private: str | None = None) -> Result:
    """The ⊥ of a run whose public inputs make failure certain: empty ledger, the cause.

    ``why`` is the entry's ``can_run`` sentence (public inputs only: n, d, k, ε, δ and the
    parameters), so a refusal is the same on every pair of neighbouring data sets.

    Examples
    --------
    >>> r = refused_before_spending("t = 5 points per round, no more than Gamma = 9",
    ...                             ledger=Ledger())
    >>> r.failed.startswith(REFUSED), r.ledger.releases
    (True, ())
    """
    return Result(estimate={"weights": None, "means": None, "covariances": None},
                  ledger=ledger, choices={**(choices or {}), "refused": why},
                  not_private=not_private, failed=REFUSED + why)


def histogram_budget(budget: Budget, histograms: int, *, estimator: str,
                     share: float = 0.5) -> HistogramBudget:
    """Reserve ``share`` of δ for ``histograms`` stable histograms (equal shares, a **choice**).

    The histograms are planned as pure ε releases (their Laplace part) and recorded as
    (ε, δ_h) releases. Under linear and advanced composition the ledger then hands the
    Gaussians exactly the δ the solver gave them (δ less the histograms' Σδ_h). Under PLD an
    (ε, δ_h) release is the pure ε release with mass δ_h at infinite loss, so the composed
    δ(ε) is at most Σδ_h plus that of the planned pure releases. zCDP, the moments accountant
    and RDP have no curve for (ε, δ) releases: those budgets are solved and recorded under PLD
    (the target (ε, δ) is the same) and ``note`` says so.

    Raises
    ------
    BudgetError
        A ρ budget or δ = 0: the stable histograms need δ > 0.
    """
    if budget.non_private:
        # no noise anywhere; the histograms keep every non-empty cell whatever their δ
        record = budget.with_method("pld")
        return HistogramBudget(record, record, 1e-9, "none: epsilon = inf (no noise)")
    if budget.rho is not None or budget.delta == 0:
        raise BudgetError(
            f"{estimator} needs an (epsilon, delta) budget with delta > 0: its stable "
            "histograms are approximate DP, which neither pure DP nor a rho (zCDP) budget "
            "can pay for")
    record, note = budget, f"{budget.method}, as asked"
    if budget.method not in APPROXIMATE_METHODS:
        record = budget.with_method("pld")
        note = (f"pld instead of {budget.method}: {budget.method} cannot compose the stable "
                "histograms' approximate-DP releases; PLD composes them at the same target")
    delta_h = share * budget.delta / histograms
    solve = replace(record, delta=budget.delta * (1 - share))
    return HistogramBudget(record, solve, delta_h,
                           f"{note}; each of the {histograms} stable histograms gets delta = "
                           f"{delta_h:.3g} ({share:g} of delta shared equally), the other "
                           "releases the rest")
