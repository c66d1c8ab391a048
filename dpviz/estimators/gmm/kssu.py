"""Private PCA + private clustering: seed 000 (Kamath, Sheffet, Singhal & Ullman 2019), Algorithm 1.

The "easy case" of KSSU19 §4 as ALGORITHMS.md §3 specifies it:

1. Split the rows at random (data-independent) into halves Y (PCA) and Z (clustering and
   estimation). The halves are disjoint: each gets the whole (ε, δ) — parallel composition,
   recorded as ledger parts ``Y`` and ``Z``.
2. Private PCA on Y: rows clipped to ``Λ = R + σ_max(√d + √(2 ln(2n/β)))``, ``A = YᵀY``
   (uncentred) plus symmetric Gaussian noise at Frobenius sensitivity ``√2·Λ²`` (replacing
   ``y`` by ``y′``: ``‖yyᵀ − y′y′ᵀ‖_F² = ‖y‖⁴ + ‖y′‖⁴ − 2(yᵀy′)² ≤ 2Λ⁴``); V = the top-p
   eigenvectors of the noisy matrix, ``p = min(k, d)``. When ``k ≥ d`` the top-k subspace is
   all of ℝᵈ whatever the noise, so no PCA is released and every row goes to Z (a **choice**
   that only removes a release whose output could not matter).
3. k rounds of the private 1-cluster routine (:mod:`dpviz.estimators.gmm.one_cluster`) on
   ``Z V``, each looking for ``t = ⌊n_Z/(2k)⌋`` points and removing those within ``c·r`` of the
   centre found.
4. Per-cluster estimation in the original space: the centre lifted to ``c̃ = Vc``, the points
   clipped to ``B(c̃, r̃)``, ``r̃² = (c·r)² + (σ_max(√(d − p) + √(2 ln(2n/β))))²`` (the spread
   orthogonal to V, a **choice**); one Gaussian release of the k normalised centred sums
   ``Σ(x − c̃ᵢ)/r̃ᵢ`` (L2 sensitivity 2: a replaced row leaves one cluster and joins one,
   each move of norm ≤ 1, so ≤ 2 in one cluster and √2 across two), one Laplace release of
   the k counts (L1 sensitivity 2). The variance from pairs fixed before clustering (rows
   2j, 2j + 1 of the permuted Z): terms ``‖xₐ − x_b‖²/(2d)`` clipped to ``[σ_min², σ_max²]``
   summed per cluster (L1 sensitivity σ_max²: a replaced row touches only its own pair, whose
   term can only count in its partner's cluster) and their counts (L1 sensitivity 1).
5. Weights ``ñᵢ/Σñ`` from the counts of step 4 (Algorithm 1 assumes 1/k; this is the
   paper's Algorithm 4 — labelled).

Deviations, as ALGORITHMS.md §3 allows and labels: GoodRadius and GoodCenter are the
simplified ones of :mod:`dpviz.estimators.gmm.one_cluster` (the grid GoodCenter is a low-dimensional
heuristic: its theorem does not apply); the assignment radius constant is a choice. The data
are mapped to units of R (``x ↦ (x − c)/R``), so ``sigma_min`` and ``sigma_max`` are in units
of the public radius; estimates are returned in data units.

**Defaults chosen by simulation** (``bench/gmm_defaults.py``, generated mixtures only, never a
user's data): ``clustering_share`` ∈ {0.7, 0.9} × ``beta`` ∈ {0.1, 0.2}, and the old 0.5 and
0.05, at n = 10 000, d = 2, k = 3, ε = 1, δ = 1e-5, separations 4σ, 6σ and 8σ, 10 seeds each.
0.9 and 0.2 succeeded in 30 of 30 runs (median matched mean error 0.012, 0.008, 0.006 at 4σ,
6σ, 8σ); 0.9 and 0.1 in 28 of 30; 0.7 in at most half; 0.5 and 0.05 were refused in all 30
(each round's t = 1 666 points against GoodRadius's slack Γ ≈ 1 900).

Preconditions of Algorithm 1 (uniform weights, σ within a constant factor, separation
∝ √k·σ_max, d large relative to log(n/β)) are checked where the public inputs allow, stated
in ``choices["preconditions"]`` and warned about when they fail: the run still happens.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import chi2

from dpviz.core import limits
from dpviz.core.entry import CostModel, Estimator, Param, Story, shared_k
from dpviz.core.relations import REPLACE_ONE
from dpviz.core.search import rows_needed
from dpviz.data import as_matrix
from dpviz.estimators.gmm.one_cluster import (
    GOOD_CENTER_LABEL,
    GOOD_RADIUS_LABEL,
    HistogramBudget,
    OneCluster,
    PreconditionWarning,
    RoundAllocations,
    bottom_if_a_round_failed,
    good_radius_slack,
    histogram_budget,
    one_cluster,
    one_cluster_plan,
    radius_grid,
    refused_before_spending,
    score_sensitivity,
)
from dpviz.estimators.neighbours import TOO_SLOW_TO_AUDIT
from dpviz.estimators.result import Result
from dpviz.privacy import (
    Budget,
    Ledger,
    PlannedRelease,
    clip_to_ball,
    release,
    solve,
    symmetric_gaussian,
)
from dpviz.privacy.bounds import resolve_ball

K_RANGE = limits.COMPONENTS
SIGMA_RANGE = limits.Limit("sigma", 0.0, 10.0, low_open=True)
BETA_RANGE = limits.Limit("beta", 0.0, 1.0, low_open=True, high_open=True)
SHARE_RANGE = limits.Limit("clustering_share", 0.0, 1.0, low_open=True, high_open=True)
SLACK_RANGE = limits.Limit("assign_slack", 0.1, 10.0)
#: The assignment factor's slack (see :func:`assignment_factor`).
ASSIGN_SLACK = 0.5
#: σ_max/σ_min above this is flagged: Algorithm 1 wants the ratio bounded by a constant.
SIGMA_RATIO = 4.0
#: The budget split and β chosen by ``bench/gmm_defaults.py`` (module docstring).
CLUSTERING_SHARE = 0.9
DEFAULT_BETA = 0.2
#: What the page says of that simulation (the parameters' help and the story).
DEFAULTS_STUDY = ("clustering share 0.9 and beta 0.2 were chosen by simulation on generated "
                  "mixtures only (n = 10 000, d = 2, k = 3, epsilon = 1, delta = 1e-5, "
                  "separations 4, 6 and 8 sigma, 10 seeds each): 30 of 30 runs succeeded, "
                  "median matched mean error 0.006-0.012; the old 0.5 and 0.05 were refused "
                  "in all 30")

PCA = "second moment (PCA)"
SUMS = "cluster sums"
COUNTS = "cluster counts"
PAIR_SUMS = "pair variance sums"
PAIR_COUNTS = "pair counts"


def assignment_factor(p: int, n: int, beta: float, slack: float = 1.0) -> float:
    """``c = (√p + √(2 ln(n/β)))/√(median of χ²_p)`` times ``slack`` (§3, a **choice**).

    With slack 1, c·r is the ``1 − β/n`` tail of a p-dimensional Gaussian's norm when r is
    the cluster's median radius. GoodRadius's r is about **twice** that: each of the t
    densest points, out to the median radius, needs t points within r. dpviz's default slack
    is therefore 1/2 (measured: slack 1 reaches 6–8σ at 6σ separation and swallows a
    neighbouring cluster; 1/2 keeps c·r near the tail).

    Examples
    --------
    >>> round(assignment_factor(3, 10_000, 0.05), 3)
    4.338
    """
    return slack * (math.sqrt(p) + math.sqrt(2 * math.log(n / beta))) / math.sqrt(
        float(chi2.median(p)))


def pca_sensitivity(clip: float) -> float:
    """Frobenius sensitivity ``√2·Λ²`` of ``YᵀY`` for rows in ``B(0, Λ)`` under replacement.

    Examples
    --------
    >>> round(pca_sensitivity(1.0), 6)
    1.414214
    """
    return math.sqrt(2.0) * clip * clip


def cluster_statistics(points: NDArray[np.float64], labels: NDArray[np.int64],
                       centres: NDArray[np.float64], radii: NDArray[np.float64]
                       ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per cluster i: ``Σ (x − c̃ᵢ)/r̃ᵢ`` over its points clipped to ``B(c̃ᵢ, r̃ᵢ)``; the counts.

    Every term has norm ≤ 1, so a replaced row moves the k × d table by at most 2 (L2) and
    the counts by at most 2 (L1).

    Examples
    --------
    >>> s, c = cluster_statistics(np.array([[3.0, 0.0], [0.5, 0.0]]), np.array([0, -1]),
    ...                           np.zeros((1, 2)), np.array([2.0]))
    >>> s.tolist(), c.tolist()
    ([[1.0, 0.0]], [1.0])
    """
    k, d = centres.shape
    sums = np.zeros((k, d))
    for i in range(k):
        members = points[labels == i]
        if len(members):
            sums[i] = (clip_to_ball(members, centres[i], radii[i]) - centres[i]).sum(axis=0)
            sums[i] /= radii[i]
    counts = np.bincount(labels[labels >= 0], minlength=k).astype(float)
    return sums, counts


def pair_terms(points: NDArray[np.float64], labels: NDArray[np.int64], k: int,
               sigma_min: float, sigma_max: float
               ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per cluster: the sum of clipped pair terms ``‖xₐ − x_b‖²/(2d)`` and the pair count.

    Pairs are rows ``(2j, 2j + 1)``; a pair counts in cluster i when both rows are in it.

    Examples
    --------
    >>> pts = np.array([[0.0, 0.0], [2.0, 0.0], [5.0, 5.0], [5.0, 5.1]])
    >>> pair_terms(pts, np.array([0, 0, 1, 1]), 2, 0.1, 1.0)
    (array([1.  , 0.01]), array([1., 1.]))
    """
    d = points.shape[1]
    first, second = np.arange(0, len(points) - 1, 2), np.arange(1, len(points), 2)
    same = (labels[first] == labels[second]) & (labels[first] >= 0)
    a, b = first[same], second[same]
    terms = np.clip(((points[a] - points[b]) ** 2).sum(axis=1) / (2 * d),
                    sigma_min**2, sigma_max**2)
    cluster = labels[a]
    return (np.bincount(cluster, weights=terms, minlength=k).astype(float),
            np.bincount(cluster, minlength=k).astype(float))


@dataclass(frozen=True)
class RoundsPlan:
    """The clustering rounds' budget and constants, from public inputs only.

    ``solved`` and ``allocations`` split the budget; ``target`` is t = n_Z/(2k) points per
    round, ``radii`` the GoodRadius grid, ``gamma`` its slack Γ and ``histogram_cut`` the
    stable histogram's cut.
    """

    solved: Mapping[str, Any]
    allocations: RoundAllocations
    target: int
    radii: NDArray[np.float64]
    gamma: float
    histogram_cut: float


def plan_rounds(accounting: HistogramBudget, *, n: int, p: int, n_z: int, k: int,
                share: float, sigma_min: float, sigma_max: float, beta: float) -> RoundsPlan:
    """Plan the clustering rounds on Z (§3): the budget split and the constants it implies."""
    plan = [*one_cluster_plan(k, group_size=1, weight=share / k, part="Z"),
            PlannedRelease(SUMS, "gaussian", 2.0, weight=(1 - share) / 4, part="Z"),
            PlannedRelease(COUNTS, "laplace", 2.0, weight=(1 - share) / 4, part="Z"),
            PlannedRelease(PAIR_SUMS, "laplace", sigma_max**2, weight=(1 - share) / 4,
                           part="Z"),
            PlannedRelease(PAIR_COUNTS, "laplace", 1.0, weight=(1 - share) / 4, part="Z")]
    solved = solve(plan, accounting.solve)  # no n in the plan: one (cached) solve for every n
    allocations = RoundAllocations.from_solved(solved, accounting.histogram_delta)
    radii = radius_grid(sigma_min * math.sqrt(p) / 4,
                        2 * (1 + sigma_max * (math.sqrt(p) + math.sqrt(2 * math.log(n / beta)))))
    eps_gr = float(allocations.good_radius.epsilon or 0.0)
    eps_h = float(allocations.histogram.epsilon or 0.0)
    return RoundsPlan(
        solved=solved, allocations=allocations, target=max(1, n_z // (2 * k)), radii=radii,
        gamma=good_radius_slack(len(radii), beta, eps_gr, score_sensitivity(1)),
        histogram_cut=1 + 2 * math.log(2 / accounting.histogram_delta) / eps_h)


def can_run(*, n: int, d: int, k: int, epsilon: float | None, delta: float,
            accounting: str = "zcdp", clustering_share: float = CLUSTERING_SHARE,
            sigma_min: float = 0.05, sigma_max: float = 0.2, beta: float = DEFAULT_BETA,
            **_: Any) -> str | None:
    """Why private PCA + clustering cannot succeed at these public sizes, or ``None``.

    It needs 4k rows, and each round's t = n_Z/(2k) points must exceed GoodRadius's slack
    Γ (otherwise no ball is found: the run answers ⊥ or a poor clustering).

    Examples
    --------
    >>> can_run(n=100_000, d=2, k=2, epsilon=10.0, delta=1e-5) is None
    True
    >>> can_run(n=1_000, d=2, k=3, epsilon=1.0, delta=1e-5)[:40]
    'private PCA + clustering cannot succeed '
    """
    if n < 4 * k:
        return (f"private PCA + clustering needs at least 4k = {4 * k} rows for k = {k}, "
                f"got n = {n}")
    if epsilon is None or math.isinf(epsilon):
        return None
    p = min(k, d)

    budget = histogram_budget(Budget(epsilon=epsilon, delta=delta, method=accounting), k,
                              estimator="private_pca_clustering")

    n_z = n - n // 2 if p < d else n
    at_hand = plan_rounds(budget, n=n, p=p, n_z=n_z, k=k, share=clustering_share,
                          sigma_min=sigma_min, sigma_max=sigma_max, beta=beta)
    if at_hand.target > at_hand.gamma:
        return None
    return (f"private PCA + clustering cannot succeed at epsilon = {epsilon:g} for k = {k}: "
            f"with n = {n:,} each round has t = n_Z/(2k) = {at_hand.target} points, no more "
            f"than GoodRadius's slack Gamma = {at_hand.gamma:.3g}, so no cluster's ball can "
            "be found")


def _preconditions(*, d: int, p: int, n: int, k: int, beta: float, sigma_min: float,
                   sigma_max: float, target: int, slack: float, histogram_cut: float
                   ) -> dict[str, str]:
    """Each condition of Algorithm 1's guarantee: ``"holds: …"``, ``"fails: …"`` or stated."""
    out = {
        "uniform weights": "assumed (Algorithm 1's mixtures have weights 1/k; not checkable "
                           "from public inputs)",
        "separation": "assumed: means at least C·sqrt(k)·sigma_max apart (not checkable from "
                      "public inputs without spending budget)",
    }
    ratio = sigma_max / sigma_min
    out["sigma range"] = (f"{'holds' if ratio <= SIGMA_RATIO else 'fails'}: sigma_max/sigma_min"
                          f" = {ratio:.3g} (a constant factor: dpviz flags above "
                          f"{SIGMA_RATIO:g})")
    log_term = math.log(n / beta)
    out["dimension"] = (f"{'holds' if d >= log_term else 'fails'}: d = {d} against "
                        f"ln(n/beta) = {log_term:.3g}; below it the concentration arguments "
                        "(every cluster in a thin shell) do not transfer")
    out["GoodRadius slack"] = (f"{'holds' if target > slack else 'fails'}: t = {target} "
                               f"points per round against the slack Gamma = {slack:.3g}")
    cell = target / 3**p
    out["GoodCenter histogram"] = (
        f"{'holds' if cell > histogram_cut else 'fails'}: t/3^p = {cell:.3g} against the "
        f"stable histogram's cut {histogram_cut:.3g}")
    return out


def private_pca_clustering(data: ArrayLike, budget: Budget, *, rng: np.random.Generator,
                           k: int, radius: float | str | None = None,
                           sigma_min: float = 0.05, sigma_max: float = 0.2,
                           beta: float = DEFAULT_BETA,
                           clustering_share: float = CLUSTERING_SHARE,
                           assign_slack: float = ASSIGN_SLACK) -> Result:
    """Learn a mixture of spherical Gaussians: private PCA, k private 1-cluster rounds, estimates.

    Kamath, Sheffet, Singhal & Ullman (2019), Algorithm 1, with the simplified GoodRadius and
    grid GoodCenter of ALGORITHMS.md §3 (see the module docstring).

    Parameters
    ----------
    data : array-like
        n × d rows.
    budget : Budget
        (ε, δ) with δ > 0; each half of the data gets all of it. zCDP, MA and RDP budgets are
        composed under PLD instead (``choices["accounting"]``).
    rng : numpy.random.Generator
        The split, the grid shifts and the noise.
    k : int
        Number of components, 1 … 50.
    radius : float, "data" or None
        Public R: the means lie in ``B(0, R)`` (``None``: the unit ball).
    sigma_min, sigma_max : float
        Public range of the components' standard deviations, in units of R.
    beta : float
        Failure probability in the constants (Λ, Γ, the radius grid, c).
    clustering_share : float
        Share of Z's budget for the k clustering rounds; the estimates get the rest.
    assign_slack : float
        Multiplies the assignment factor c.

    Returns
    -------
    Result
        ``weights``, ``means``, ``covariances`` (spherical ``σ̂ᵢ²I``), or a ⊥ with the round
        that failed. ``diagnostics``: ``subspace`` (private V, d × p), ``true_subspace``
        (V of the exact ``YᵀY``, not private), ``projected`` / ``true_projected`` (Z on each,
        data units about the ball's centre), ``rounds`` (per round: radius, cell centre,
        centre, assignment radius, scores, threshold), ``labels`` (cluster of each Z row, −1
        unassigned), ``z_rows`` (their row numbers in ``data``), ``preconditions``.

    Raises
    ------
    ValueError
        Bad data or parameters; ``BudgetError`` for δ = 0 or a ρ budget.

    Examples
    --------
    >>> import warnings
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(c, 0.05, size=(400, 2)) for c in (-0.5, 0.5)])
    >>> with warnings.catch_warnings():  # 2-D: Algorithm 1's preconditions fail, and it says so
    ...     warnings.simplefilter("ignore", PreconditionWarning)
    ...     r = private_pca_clustering(x, Budget(epsilon=float("inf")), k=2,
    ...                                rng=np.random.default_rng(1), sigma_min=0.03,
    ...                                sigma_max=0.1)
    >>> np.sort(r.estimate["means"][:, 0]).round(1).tolist()
    [-0.5, 0.5]
    >>> r.choices["preconditions"]["dimension"][:5]
    'fails'
    """
    k = limits.check_integer(K_RANGE, k)
    sigma_min = limits.check_number(limits.Limit("sigma_min", 0.0, 10.0, low_open=True),
                                    sigma_min)
    sigma_max = limits.check_number(limits.Limit("sigma_max", 0.0, 10.0, low_open=True),
                                    sigma_max)
    if sigma_max < sigma_min:
        raise ValueError(f"sigma_max must be >= sigma_min, got sigma_max = {sigma_max:g} and "
                         f"sigma_min = {sigma_min:g}")
    beta = limits.check_number(BETA_RANGE, beta)
    share = limits.check_number(SHARE_RANGE, clustering_share)
    slack = limits.check_number(SLACK_RANGE, assign_slack)
    x = as_matrix(data, min_rows=2)
    n, d = x.shape
    if n < 4 * k:
        raise ValueError(f"private_pca_clustering needs at least 4k = {4 * k} rows for k = {k} "
                         f"(two halves, each with at least one pair per cluster), got {n}")
    accounting = histogram_budget(budget, k, estimator="private_pca_clustering")
    sizes: dict[str, Any] = {"d": d, "k": k, "epsilon": budget.epsilon, "delta": budget.delta,
                             "accounting": budget.method, "clustering_share": share,
                             "sigma_min": sigma_min, "sigma_max": sigma_max, "beta": beta}
    why = can_run(n=n, **sizes)
    if why is not None:  # issue 21: the refusal says the n from which its preconditions hold
        why += "; " + rows_needed(lambda m: can_run(n=m, **sizes) is None, n)
        return refused_before_spending(why, ledger=Ledger(accounting.record))
    ball = resolve_ball(x, radius)
    unit = (x - ball.center) / ball.radius  # R = 1 from here on; σ's are in units of R
    p = min(k, d)
    clip = 1.0 + sigma_max * (math.sqrt(d) + math.sqrt(2 * math.log(2 * n / beta)))
    rows = clip_to_ball(unit, np.zeros(d), clip)
    order = rng.permutation(n)
    ledger = Ledger(accounting.record)
    use_pca = p < d
    if use_pca:
        y, z_rows = rows[order[: n // 2]], order[n // 2:]
        second = y.T @ y
        plan = [PlannedRelease(PCA, "gaussian", pca_sensitivity(clip), part="Y")]
        pca = solve(plan, accounting.record)[PCA]
        noisy = symmetric_gaussian(second, sensitivity=pca_sensitivity(clip), sigma=pca.scale,
                                   rng=rng, ledger=ledger, name=PCA, part="Y")
        subspace = np.linalg.eigh(noisy)[1][:, ::-1][:, :p]
        true_subspace = np.linalg.eigh(second)[1][:, ::-1][:, :p]
    else:
        z_rows = order
        subspace = true_subspace = np.eye(d)
    z = rows[z_rows]
    n_z = len(z)
    projected = z @ subspace

    rounds_plan = plan_rounds(accounting, n=n, p=p, n_z=n_z, k=k, share=share,
                              sigma_min=sigma_min, sigma_max=sigma_max, beta=beta)
    solved, allocations = rounds_plan.solved, rounds_plan.allocations
    target, radii, gamma, cut = (rounds_plan.target, rounds_plan.radii, rounds_plan.gamma,
                                 rounds_plan.histogram_cut)
    factor = assignment_factor(p, n, beta, slack)
    conditions = _preconditions(d=d, p=p, n=n, k=k, beta=beta, sigma_min=sigma_min,
                                sigma_max=sigma_max, target=target, slack=gamma,
                                histogram_cut=cut)
    failing = [f"{name} ({text})" for name, text in conditions.items()
               if text.startswith("fails")]
    if failing:
        warnings.warn("private_pca_clustering: Algorithm 1's accuracy guarantee does not "
                      "apply: " + "; ".join(failing), PreconditionWarning, stacklevel=2)

    labels = np.full(n_z, -1, dtype=np.int64)
    rounds: list[OneCluster] = []
    assign_radii: list[float] = []
    for j in range(k):
        left = np.flatnonzero(labels < 0)
        found = one_cluster(projected[left], owners=None, group_size=1, target=target,
                            radii=radii, allocations=allocations, beta=beta, rng=rng,
                            ledger=ledger, label=f"round {j + 1}")
        rounds.append(found)
        if found.centre is None or found.radius is None:
            assign_radii.append(math.nan)
            continue
        assign_radii.append(factor * found.radius)
        near = np.linalg.norm(projected[left] - found.centre, axis=1) <= factor * found.radius
        labels[left[near]] = j

    def scaled(v: NDArray[np.float64] | None) -> NDArray[np.float64] | None:
        return None if v is None else v * ball.radius

    diagnostics: dict[str, Any] = {
        "subspace": subspace, "true_subspace": true_subspace,
        "projected": projected * ball.radius,
        "true_projected": (z @ true_subspace) * ball.radius,
        "labels": labels, "z_rows": z_rows, "preconditions": conditions,
        "rounds": [{"radius": None if r.radius is None else r.radius * ball.radius,
                    "cell_centre": scaled(r.cell_centre), "centre": scaled(r.centre),
                    "average_radius": (r.average_radius * ball.radius
                                       if r.average_radius is not None else None),
                    "assign_radius": a * ball.radius, "noisy_count": r.noisy_count,
                    "scores": r.scores, "threshold": r.threshold,
                    "grid": radii * ball.radius, "failed": r.failed}
                   for r, a in zip(rounds, assign_radii, strict=True)],
        "target": target, "gamma": gamma, "histogram_cut": cut,
    }
    choices: dict[str, Any] = {
        "bound": ball.describe(), "radius": ball.radius,
        "clip radius": f"Lambda = R + sigma_max(sqrt(d) + sqrt(2 ln(2n/beta))) = "
                       f"{clip * ball.radius:.4g}",
        "split": ("random halves: Y for PCA, Z for clustering, each with the whole budget "
                  "(parallel composition)" if use_pca else
                  f"no PCA: k = {k} >= d = {d}, so the top-k subspace is all of R^d; every "
                  "row goes to clustering"),
        "accounting": accounting.note,
        "good radius": GOOD_RADIUS_LABEL, "good center": GOOD_CENTER_LABEL,
        "round budget split": "GoodRadius 1/3, histogram 1/3, centred sum 1/6, count 1/6",
        "clustering share": share,
        "points per round": f"t = n_Z/(2k) = {target}",
        "radius grid": f"r_j = r0 2^(j/2), r0 = sigma_min sqrt(p)/4, {len(radii)} radii",
        "assignment factor": f"c = {factor:.4g} (slack {slack:g})",
        "lifted radius": "r~^2 = (c r)^2 + (sigma_max (sqrt(d - p) + sqrt(2 ln(2n/beta))))^2",
        "weights": "noisy cluster counts (the paper's Algorithm 4; Algorithm 1 assumes 1/k)",
        "covariances": "spherical: pair-based variance clipped to [sigma_min^2, sigma_max^2]",
        "sigma_min": sigma_min, "sigma_max": sigma_max, "beta": beta,
        "preconditions": conditions,
    }
    bottom = bottom_if_a_round_failed(rounds, ledger=ledger, choices=choices,
                                      not_private=ball.not_private, diagnostics=diagnostics)
    if bottom is not None:
        return bottom

    centres = np.stack([subspace @ r.centre for r in rounds if r.centre is not None])
    orthogonal = sigma_max * (math.sqrt(d - p) + math.sqrt(2 * math.log(2 * n / beta)))
    lifted = np.sqrt(np.asarray(assign_radii) ** 2 + (orthogonal**2 if d > p else 0.0))
    sums, counts = cluster_statistics(z, labels, centres, lifted)
    noisy_sums = np.asarray(release(sums, solved[SUMS], rng=rng, ledger=ledger))
    noisy_counts = np.asarray(release(counts, solved[COUNTS], rng=rng, ledger=ledger))
    offsets = lifted[:, None] * noisy_sums / np.maximum(noisy_counts, 1.0)[:, None]
    norms = np.linalg.norm(offsets, axis=1)
    offsets *= np.minimum(1.0, lifted / np.maximum(norms, np.finfo(float).tiny))[:, None]
    means = centres + offsets
    pair_sums, pair_counts = pair_terms(z, labels, k, sigma_min, sigma_max)
    noisy_pair_sums = np.asarray(release(pair_sums, solved[PAIR_SUMS], rng=rng, ledger=ledger))
    noisy_pair_counts = np.asarray(release(pair_counts, solved[PAIR_COUNTS], rng=rng,
                                           ledger=ledger))
    variances = np.clip(noisy_pair_sums / np.maximum(noisy_pair_counts, 1.0),
                        sigma_min**2, sigma_max**2)
    positive = np.clip(noisy_counts, 0.0, None)
    weights = positive / positive.sum() if positive.sum() > 0 else np.full(k, 1.0 / k)
    diagnostics.update({"lifted_centres": ball.from_unit(centres),
                        "lifted_radii": lifted * ball.radius, "noisy_counts": noisy_counts,
                        "noisy_pair_counts": noisy_pair_counts})
    return Result(
        estimate={"weights": weights, "means": ball.from_unit(means),
                  "covariances": ball.covariance_from_unit(
                      variances[:, None, None] * np.eye(d)[None])},
        ledger=ledger, choices=choices, not_private=ball.not_private, diagnostics=diagnostics)


K = shared_k()
SIGMA_MIN = Param("sigma_min", "float", 0.05, min=1e-6, max=10.0,
                  help="public lower bound on the components' standard deviation, in units "
                       "of the radius R")
SIGMA_MAX = Param("sigma_max", "float", 0.2, min=1e-6, max=10.0,
                  help="public upper bound on the components' standard deviation, in units "
                       "of the radius R")
BETA = Param("beta", "float", DEFAULT_BETA, min=1e-6, max=0.5, choice=True,
             help="failure probability in the constants (clip radius, slack, radius grid); "
                  + DEFAULTS_STUDY)

ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({
    "private_pca_clustering": Estimator(
        task="gmm", name="private_pca_clustering", function=private_pca_clustering,
        relation=REPLACE_ONE, no_pair=TOO_SLOW_TO_AUDIT,
        fails_when_small=("on 400 rows no grid cell passes its stable histograms' threshold: it "
                          "needs the rows can_run asks for"),
        example={"k": 2},
        can_run=can_run,
        story=Story("Private PCA finds a k-dimensional subspace from one half of the rows; the "
                    "other half is projected on it and clustered round by round by a private "
                    "1-cluster routine (a ball found by GoodRadius, its centre by GoodCenter). "
                    "Its " + DEFAULTS_STUDY + ".",
                    "dpviz.viz.kssu:pca_story"),
        cost=CostModel(3.7e-09, base_seconds=0.039, bytes_per_unit=110.0, growth="quadratic"),
        label="Private PCA + clustering (KSSU19 Alg. 1)",
        paper="Kamath, Sheffet, Singhal & Ullman 2019, Section 4, Algorithm 1; "
              "simplified GoodRadius and grid GoodCenter",
        notion="approximate", outputs=("weights", "means", "covariances"),
        params=(K, SIGMA_MIN, SIGMA_MAX, BETA,
                Param("clustering_share", "float", CLUSTERING_SHARE, min=0.01, max=0.99,
                      choice=True,
                      help="share of the clustering half's budget spent on the k rounds; "
                           "the per-cluster estimates get the rest; " + DEFAULTS_STUDY),
                Param("assign_slack", "float", ASSIGN_SLACK, min=0.1, max=10.0, choice=True,
                      help="multiplies the assignment radius factor c (1/2: GoodRadius's "
                           "radius is about twice a cluster's median radius)"))),
})
