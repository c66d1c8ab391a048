"""Sample-and-aggregate for Gaussian mixtures: seed 000 (KSSU19) §6, as ALGORITHMS.md §4 states it.

Split the rows into t disjoint chunks (a data-independent shuffle), fit scikit-learn's
``GaussianMixture`` (fixed ``random_state``) on each, clip each chunk's k means to the public
ball ``B(0, R)``, and aggregate the t·k candidate means privately: k rounds of the private
1-cluster routine of :mod:`dpviz.estimators.gmm.one_cluster`, each finding a ball supported by about
t/2 chunks and removing the candidates within its averaging radius; mean i is the ball's private
centre; weight i the heaviest bin of a stable histogram (bin width α) of the weights of the
candidates in ball i.

Sensitivity: one changed row changes one chunk, hence its k candidates. Every count is a count
of **distinct chunks** (a chunk votes at most once per region), so a single count has
sensitivity 1, GoodRadius's score ``1 + k``, a histogram over regions L1 sensitivity 2k
(``Lap(2k/ε)``, cut ``1 + b·ln(k/(2δ))``), and the centred sum — one candidate per chunk, its
nearest — ``2r_c``. The derivations are in :mod:`dpviz.estimators.gmm.one_cluster`.

**Defaults chosen by simulation** (``bench/gmm_defaults.py``, generated mixtures only): 40 rows
per chunk (t = n/40) and ``min_radius`` ∈ {0.05, 0.1, 0.15} R, and the old 50 chunks with
0.001 R, at n = 30 000, d = 2, k = 3, ε = 4, δ = 1e-5, separations 4σ, 6σ, 8σ, 10 seeds each.
0.15 succeeded in 30 of 30 runs (median matched mean error 0.009), 0.1 in 27 of 30 (0.006),
0.05 in 4 of 30; the old defaults were refused in all 30 (50 chunks cannot pass the cell
histogram's cut). A probe (one seed) showed why: GoodRadius's threshold t/2 − Γ is below 1
at these sizes, so it stops at the grid's first radius, which alone sets the cells; above
about 0.2 R the removal radius swallows a neighbouring component at 4σ.

UI label: "sample-and-aggregate with a simplified 1-cluster aggregator; sample cost ≈ √k/ε ×
the non-private learner (KSSU19 §6)". The learner never affects privacy; the aggregator's
thresholds need many chunks (t in the hundreds at ε = 1): with few chunks the run still
happens and ``choices["preconditions"]`` with a warning say which condition fails.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture

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
    grouped_stable_histogram,
    histogram_budget,
    nearest_per_owner,
    one_cluster,
    one_cluster_plan,
    radius_grid,
    refused_before_spending,
    score_sensitivity,
)
from dpviz.estimators.neighbours import TOO_SLOW_TO_AUDIT
from dpviz.estimators.result import Result
from dpviz.privacy import Allocation, Ledger, PlannedRelease, clip_to_ball, solve
from dpviz.privacy.bounds import resolve_ball
from dpviz.privacy.budget import Budget

K_RANGE = limits.COMPONENTS_PER_CHUNK
CHUNKS_RANGE = limits.Limit("chunks", 2, 100_000)
BETA_RANGE = limits.Limit("beta", 0.0, 1.0, low_open=True, high_open=True)
BIN_RANGE = limits.Limit("weight_bin", 0.001, 0.5)
SHARE_RANGE = limits.Limit("weight_share", 0.0, 1.0, low_open=True, high_open=True)
MIN_RADIUS_RANGE = limits.Limit("min_radius", 1e-6, 1.0)
#: Rows per chunk when ``chunks`` is left automatic (t = ⌊n/CHUNK_ROWS⌋): chosen with
#: ``min_radius`` by ``bench/gmm_defaults.py`` on generated mixtures only (see DEFAULTS_STUDY).
CHUNK_ROWS = 40
#: The smallest radius of GoodRadius's grid, in units of R (the same simulation).
MIN_RADIUS = 0.15
#: What the page says of that simulation (the parameters' help and the story).
DEFAULTS_STUDY = ("40 rows per chunk and a smallest radius of 0.15 R were chosen by simulation "
                  "on generated mixtures only (n = 30 000, d = 2, k = 3, epsilon = 4, "
                  "delta = 1e-5, separations 4, 6 and 8 sigma, 10 seeds each): 30 of 30 runs "
                  "succeeded, median matched mean error 0.009 (0.1 R: 27 of 30; 0.05 R: 4 of "
                  "30; the old 50 chunks and 0.001 R were refused in all 30)")
WEIGHT_HISTOGRAM = "weight histogram"
LABEL = ("sample-and-aggregate with a simplified 1-cluster aggregator; sample cost ≈ √k/ε × "
         "the non-private learner (KSSU19, Section 6)")


def chunk_estimates(points: NDArray[np.float64], chunks: int, k: int
                    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.intp]]:
    """Fit ``GaussianMixture(k, random_state=0)`` on each of ``chunks`` consecutive blocks.

    Returns the t·k means (clipped to the unit ball), their weights and their chunk (owner).

    Examples
    --------
    >>> x = np.random.default_rng(0).normal(size=(40, 1)) * 0.01 + 0.5
    >>> means, weights, owners = chunk_estimates(x, 2, 1)
    >>> means.round(1).ravel().tolist(), weights.tolist(), owners.tolist()
    ([0.5, 0.5], [1.0, 1.0], [0, 1])
    """
    d = points.shape[1]
    means, weights = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a chunk's fit is never released
        for block in np.array_split(clip_to_ball(points, np.zeros(d), 1.0), chunks):
            try:  # a chunk the learner cannot fit votes for a fixed, public placeholder
                fit = GaussianMixture(n_components=k, random_state=0).fit(block)
                means.append(fit.means_)
                weights.append(fit.weights_)
            except (ValueError, np.linalg.LinAlgError):
                means.append(np.zeros((k, d)))
                weights.append(np.full(k, 1 / k))
    stacked = clip_to_ball(np.concatenate(means), np.zeros(d), 1.0)
    return stacked, np.concatenate(weights), np.repeat(np.arange(chunks), k)


def weight_histogram_counts(voters: list[NDArray[np.intp]], weights: NDArray[np.float64],
                            width: float) -> dict[Hashable, int]:
    """Distinct-chunk counts of the bins ``(ball i, ⌊w/α⌋)`` of the candidates' weights.

    ``voters[i]`` holds one candidate per chunk, so a chunk adds 1 to at most k bins (one per
    ball) and replacing it moves the histogram by at most 2k in L1.

    Examples
    --------
    >>> weight_histogram_counts([np.array([0, 2]), np.array([1])],
    ...                         np.array([0.52, 0.48, 0.51]), 0.05)
    {(0, 10): 2, (1, 9): 1}
    """
    counts: dict[Hashable, int] = {}
    for i, members in enumerate(voters):
        for b in np.floor(weights[members] / width).astype(int):
            counts[(i, int(b))] = counts.get((i, int(b)), 0) + 1
    return counts


def automatic_chunks(n: int, k: int, *, rows: int = CHUNK_ROWS,
                     span: limits.Limit = CHUNKS_RANGE) -> int:
    """T = ⌊n/rows⌋ chunks, at least ``span.low``, at most ⌊n/(2k)⌋ and ``span.high``.

    FriendlyCore passes its own rows per chunk and range.

    Examples
    --------
    >>> automatic_chunks(30_000, 3), automatic_chunks(100, 3)
    (750, 2)
    """
    return int(max(span.low, min(n // rows, n // (2 * k), span.high)))


def check_chunks(chunks: int, k: int, n: int) -> None:
    """Raise ``ValueError`` unless ``n`` rows fill ``chunks`` chunks of at least 2k rows.

    Examples
    --------
    >>> check_chunks(10, 3, 50)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: chunks = 10 chunks of at least 2k = 6 rows need 60 rows, got 50; lower ...
    """
    if chunks * 2 * k > n:
        raise ValueError(f"chunks = {chunks} chunks of at least 2k = {2 * k} rows need "
                         f"{chunks * 2 * k} rows, got {n}; lower chunks to at most "
                         f"{max(n // (2 * k), 1)}")


@dataclass(frozen=True)
class AggregationPlan:
    """The aggregator's budget and constants, from public inputs only.

    ``target`` is t/2, the distinct chunks a ball must hold; ``gamma`` GoodRadius's slack;
    ``cut`` the cell histogram's cut and ``noise`` its Laplace scale b = 2k/ε_h.
    """

    solved: Mapping[str, Allocation]
    allocations: RoundAllocations
    target: int
    radii: NDArray[np.float64]
    gamma: float
    cut: float
    noise: float


def aggregation_plan(accounting: HistogramBudget, *, k: int, chunks: int, beta: float,
                     weight_share: float, min_radius: float) -> AggregationPlan:
    """Plan the k rounds and the weight histogram (the module docstring's sensitivities)."""
    plan = [*one_cluster_plan(k, group_size=k, weight=(1 - weight_share) / k),
            PlannedRelease(WEIGHT_HISTOGRAM, "pure", 2.0 * k, weight=weight_share)]
    solved = solve(plan, accounting.solve)
    allocations = RoundAllocations.from_solved(solved, accounting.histogram_delta)
    radii = radius_grid(min_radius, 2.0)
    eps_h = float(allocations.histogram.epsilon or 0.0)
    noise = 0.0 if math.isinf(eps_h) else 2 * k / eps_h
    return AggregationPlan(
        solved=solved, allocations=allocations, target=math.ceil(chunks / 2), radii=radii,
        gamma=good_radius_slack(len(radii), beta, float(allocations.good_radius.epsilon or 0.0),
                                score_sensitivity(k)),
        cut=1 + noise * math.log(k / (2 * accounting.histogram_delta)), noise=noise)


def can_run(*, n: int, d: int, k: int, epsilon: float | None, delta: float,
            accounting: str = "zcdp", chunks: int | None = None, beta: float = 0.05,
            weight_share: float = 0.25, min_radius: float = MIN_RADIUS, **_: Any) -> str | None:
    """Why sample-and-aggregate cannot succeed at these public sizes, or ``None``.

    A round needs a grid cell whose count of distinct chunks passes the stable histogram's
    cut; a cell holds at most all t chunks, and a count c passes with probability
    ``½·exp(−(cut − c)/b)``. When even c = t passes with probability at most β, every round
    fails with probability at least 1 − β, whatever the data: the run is refused. The cut
    does not depend on t; with ``chunks`` automatic t = n/CHUNK_ROWS, and a refused run adds
    the n that lifts t above the bar (:func:`~dpviz.core.search.rows_needed`; runs there may
    still fail, which it does not say).

    Examples
    --------
    >>> can_run(n=100_000, d=2, k=3, epsilon=4.0, delta=1e-5) is None
    True
    >>> can_run(n=10_000, d=2, k=3, epsilon=1.0, delta=1e-5)[:45]
    'sample-and-aggregate cannot succeed at n = 10'
    """
    if n < 4 * k:
        return (f"sample-and-aggregate needs at least 2 chunks of 2k = {2 * k} rows for "
                f"k = {k}, got n = {n}")
    if epsilon is None or math.isinf(epsilon):
        return None
    t = automatic_chunks(n, k) if chunks is None else chunks

    budget = histogram_budget(Budget(epsilon=epsilon, delta=delta, method=accounting), k + 1,
                              estimator="sample_aggregate")
    plan = aggregation_plan(budget, k=k, chunks=t, beta=beta, weight_share=weight_share,
                            min_radius=min_radius)
    needed_count = plan.cut - plan.noise * math.log(1 / (2 * beta))  # the cut has no t in it
    if t > needed_count:
        return None
    why = (f"its t = {t:,} chunks are too few for the cell histogram: even a cell holding all "
           f"of them passes its cut with probability at most beta = {beta:g} (t must exceed "
           f"{needed_count:,.0f} at epsilon = {epsilon:g})")
    remedy = "; raise chunks" if chunks is not None else ""
    return f"sample-and-aggregate cannot succeed at n = {n:,} for k = {k}: {why}{remedy}"


def sample_aggregate(data: ArrayLike, budget: Budget, *, rng: np.random.Generator, k: int,
                     radius: float | str | None = None, chunks: int | None = None,
                     beta: float = 0.05, weight_bin: float = 0.05, weight_share: float = 0.25,
                     min_radius: float = MIN_RADIUS) -> Result:
    """Private GMM means and weights by sample-and-aggregate (KSSU19 §6; ALGORITHMS.md §4).

    Parameters
    ----------
    data : array-like
        n × d rows.
    budget : Budget
        (ε, δ) with δ > 0 (zCDP, MA and RDP budgets are composed under PLD, see ``choices``).
    rng : numpy.random.Generator
        The chunk shuffle, the grid shifts and the noise.
    k : int
        Number of components, 1 … 20.
    radius : float, "data" or None
        Public R: candidate means are clipped to ``B(0, R)`` (``None``: the unit ball).
    chunks : int, optional
        t, the number of disjoint chunks (2 … n/(2k)); default :func:`automatic_chunks`.
    beta : float
        Failure probability in GoodRadius's slack.
    weight_bin : float
        α, the width of the weight histogram's bins.
    weight_share : float
        Share of the budget for the weight histogram (1/4: one round's share at k = 3).
    min_radius : float
        The smallest radius of GoodRadius's grid, in units of R.

    The defaults (``CHUNK_ROWS`` rows per chunk, ``MIN_RADIUS``) were chosen on generated
    mixtures only, never on a user's data: :data:`DEFAULTS_STUDY`.

    Returns
    -------
    Result
        ``weights`` and ``means`` (``covariances`` is ``None``), or ⊥ naming the round that
        failed — or refused before reading the rows (empty ledger) when :func:`can_run`
        says the public inputs make ⊥ certain. ``diagnostics``: ``candidates`` (t·k × d,
        data units), ``candidate_weights``,
        ``owners`` (chunk of each), ``taken_by`` (the round that removed each, −1 none),
        ``rounds`` and ``preconditions``.

    Raises
    ------
    ValueError
        Bad data or parameters; ``BudgetError`` for δ = 0 or a ρ budget.
    """
    k = limits.check_integer(K_RANGE, k)
    if chunks is not None:
        chunks = limits.check_integer(CHUNKS_RANGE, chunks)
    beta = limits.check_number(BETA_RANGE, beta)
    alpha = limits.check_number(BIN_RANGE, weight_bin)
    share = limits.check_number(SHARE_RANGE, weight_share)
    smallest = limits.check_number(MIN_RADIUS_RANGE, min_radius)
    x = as_matrix(data, min_rows=2)
    n, d = x.shape
    given = chunks
    chunks = automatic_chunks(n, k) if chunks is None else chunks
    check_chunks(chunks, k, n)
    accounting = histogram_budget(budget, k + 1, estimator="sample_aggregate")
    sizes: dict[str, Any] = {"d": d, "k": k, "epsilon": budget.epsilon, "delta": budget.delta,
                             "accounting": budget.method, "chunks": given, "beta": beta,
                             "weight_share": share, "min_radius": smallest}
    why = can_run(n=n, **sizes)
    if why is not None:
        if given is None:  # issue 21: the refusal says the n from which this bar is met
            why += "; " + rows_needed(lambda m: can_run(n=m, **sizes) is None, n)
        return refused_before_spending(why, ledger=Ledger(accounting.record))
    ball = resolve_ball(x, radius)
    unit = (x - ball.center) / ball.radius
    shuffled = unit[rng.permutation(n)]
    candidates, candidate_weights, owners = chunk_estimates(shuffled, chunks, k)

    planned = aggregation_plan(accounting, k=k, chunks=chunks, beta=beta, weight_share=share,
                               min_radius=smallest)
    solved, allocations, target, radii, gamma, cut = (
        planned.solved, planned.allocations, planned.target, planned.radii, planned.gamma,
        planned.cut)
    conditions = {
        "GoodRadius slack": f"{'holds' if target > gamma else 'fails'}: t/2 = {target} chunks "
                            f"per ball against the slack Gamma = {gamma:.3g}",
        "GoodCenter histogram": f"{'holds' if target / 3**d > cut else 'fails'}: t/(2·3^d) = "
                                f"{target / 3**d:.3g} chunks against the cut {cut:.3g}",
        "learner": "assumed: most chunks' GaussianMixture fits are close to the truth",
    }
    failing = [f"{name} ({text})" for name, text in conditions.items()
               if text.startswith("fails")]
    if failing:
        warnings.warn("sample_aggregate: the aggregator's guarantee does not apply: "
                      + "; ".join(failing), PreconditionWarning, stacklevel=2)

    ledger = Ledger(accounting.record)
    taken_by = np.full(len(candidates), -1, dtype=np.int64)
    voters: list[NDArray[np.intp]] = []
    rounds: list[OneCluster] = []
    for j in range(k):
        left = np.flatnonzero(taken_by < 0)
        found = one_cluster(candidates[left], owners=owners[left], group_size=k, target=target,
                            radii=radii, allocations=allocations, beta=beta, rng=rng,
                            ledger=ledger, label=f"round {j + 1}")
        rounds.append(found)
        if found.centre is None or found.average_radius is None:
            voters.append(np.array([], dtype=np.intp))
            continue
        near = np.linalg.norm(candidates[left] - found.centre, axis=1) <= found.average_radius
        taken_by[left[near]] = j
        inside = left[near]
        voters.append(inside[nearest_per_owner(candidates[inside], owners[inside],
                                               found.centre, found.average_radius)])

    diagnostics: dict[str, Any] = {
        "candidates": ball.from_unit(candidates), "candidate_weights": candidate_weights,
        "owners": owners, "taken_by": taken_by, "preconditions": conditions,
        "target": target, "gamma": gamma, "histogram_cut": cut,
        "rounds": [{"radius": None if r.radius is None else r.radius * ball.radius,
                    "centre": None if r.centre is None else ball.from_unit(r.centre),
                    "cell_centre": (None if r.cell_centre is None
                                    else ball.from_unit(r.cell_centre)),
                    "average_radius": (None if r.average_radius is None
                                       else r.average_radius * ball.radius),
                    "noisy_count": r.noisy_count, "scores": r.scores,
                    "threshold": r.threshold, "grid": radii * ball.radius,
                    "failed": r.failed} for r in rounds],
    }
    choices: dict[str, Any] = {
        "bound": ball.describe(), "radius": ball.radius, "label": LABEL,
        "learner": "scikit-learn GaussianMixture(n_components=k, random_state=0) per chunk",
        "chunks": chunks if given is not None else f"{chunks} (n/{CHUNK_ROWS}, automatic)",
        "accounting": accounting.note,
        "good radius": GOOD_RADIUS_LABEL, "good center": GOOD_CENTER_LABEL,
        "ball support": f"t/2 = {target} distinct chunks",
        "radius grid": f"r_j = {smallest:g} R 2^(j/2) up to 2R, {len(radii)} radii",
        "removal": "candidates within the averaging radius r_c of the private centre",
        "round budget split": "GoodRadius 1/3, histogram 1/3, centred sum 1/6, count 1/6",
        "weight share": share, "weight bin": alpha,
        "weights": "heaviest kept bin of each ball's distinct-chunk weight histogram "
                   "(1/k when none is kept), normalised",
        "preconditions": conditions,
    }
    bottom = bottom_if_a_round_failed(rounds, ledger=ledger, choices=choices,
                                      not_private=ball.not_private, diagnostics=diagnostics)
    if bottom is not None:
        return bottom
    counts = weight_histogram_counts(voters, candidate_weights, alpha)
    kept = grouped_stable_histogram(counts, epsilon=float(solved[WEIGHT_HISTOGRAM].epsilon or 0),
                                    delta=accounting.histogram_delta, group_size=k, rng=rng,
                                    ledger=ledger, name=WEIGHT_HISTOGRAM)
    raw = np.full(k, 1.0 / k)
    for i in range(k):
        bins = {key: v for key, v in kept.items() if isinstance(key, tuple) and key[0] == i}
        if bins:
            raw[i] = (max(bins, key=lambda key: bins[key])[1] + 0.5) * alpha
    means = np.stack([r.centre for r in rounds if r.centre is not None])
    return Result(estimate={"weights": raw / raw.sum(), "means": ball.from_unit(means),
                            "covariances": None},
                  ledger=ledger, choices=choices, not_private=ball.not_private,
                  diagnostics=diagnostics)


ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({
    "sample_aggregate": Estimator(
        task="gmm", name="sample_aggregate", function=sample_aggregate, can_run=can_run,
        relation=REPLACE_ONE, no_pair=TOO_SLOW_TO_AUDIT,
        fails_when_small=("on 400 rows at ε = 1 no grid cell passes the stable histogram's "
                          "threshold: it needs the rows can_run asks for"),
        example={"k": 1, "chunks": 2},
        story=Story("The rows are split into t chunks; a non-private EM runs on each, and the t·k "
                    "candidate means are aggregated privately: a ball supported by many chunks "
                    "per component, its centre released with noise. Its " + DEFAULTS_STUDY
                    + ".",
                    "dpviz.viz.kssu:sample_aggregate_story"),
        cost=CostModel(3e-08, base_seconds=0.015, bytes_per_unit=110.0, chunk_rows=CHUNK_ROWS,
                       seconds_per_chunk=0.0013, seconds_per_pair=7.1e-08),
        label="Sample-and-aggregate (KSSU19, Section 6)",
        paper="Kamath, Sheffet, Singhal & Ullman 2019, Section 6; simplified 1-cluster "
              "aggregator",
        notion="approximate", outputs=("weights", "means"),
        params=(
            shared_k(limits.COMPONENTS_PER_CHUNK),
            Param("chunks", "int", None, min=2, max=100_000,
                  help=f"t, the number of disjoint chunks the learner runs on; empty: n/"
                       f"{CHUNK_ROWS}: " + DEFAULTS_STUDY),
            Param("beta", "float", 0.05, min=1e-6, max=0.5, choice=True,
                  help="failure probability in GoodRadius's slack"),
            Param("weight_bin", "float", 0.05, min=0.001, max=0.5, choice=True,
                  help="bin width alpha of the weight histogram"),
            Param("weight_share", "float", 0.25, min=0.01, max=0.99, choice=True,
                  help="share of the budget for the weight histogram; the k rounds share "
                       "the rest equally"),
            Param("min_radius", "float", MIN_RADIUS, min=1e-6, max=1.0, choice=True,
                  help="smallest radius of GoodRadius's grid, in units of R; "
                       + DEFAULTS_STUDY))),
})
