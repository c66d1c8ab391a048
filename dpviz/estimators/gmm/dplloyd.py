"""DPLloyd: private k-means by noisy Lloyd iterations, the baseline of seed 002 (§7, Fig. 4).

Blum, Dwork, McSherry & Nissim (2005, the SuLQ framework) as summarised by Su et al. (2016)
and used by seed 002 as its k-means baseline; this module follows ALGORITHMS.md §2, the
"DPLloyd baseline" bullet.

Rows are clipped to the public ball and mapped onto the unit ball (``Ball.to_unit``), which
lies inside ``[−1, 1]ᵈ``. Each of ``J`` iterations assigns every row to its nearest released
centre and releases the vector (counts, coordinate sums) of all k clusters with Laplace noise.

Sensitivity. Seed 002 states ``d + 1``: the add/remove value (one row adds 1 to one count and
at most ``d`` in L1 to one sum). Under replace-one neighbours (ALGORITHMS.md's convention) the
replaced row can leave one cluster and the new row join another, so both clusters' counts and
sums move: L1 sensitivity ``2(d + 1)`` for coordinates in ``[−1, 1]``. dpviz uses ``2(d + 1)``,
the published baseline's bound for the box; for rows in the unit ball ``2(1 + √d)`` would also
be valid (smaller for d ≥ 2), an option not taken so that DPLloyd stays the paper's baseline.

The J releases share the budget through the budget solver (one planned Laplace release counted
J times, equal weights), so linear composition (the original DPLloyd) and zCDP (seed 002's
variant) — or any method the budget names — meet the target exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.core import limits
from dpviz.core.entry import CostModel, Estimator, Param, shared_k
from dpviz.core.relations import REPLACE_ONE
from dpviz.data import as_matrix
from dpviz.estimators.neighbours import mixture_pair
from dpviz.estimators.result import Result
from dpviz.privacy import Allocation, Budget, Ledger, PlannedRelease, release, solve
from dpviz.privacy.bounds import resolve_ball

K_RANGE = limits.COMPONENTS
ITERATIONS_RANGE = limits.Limit("iterations", 1, 200)
SPLITS = ("equal",)


def lloyd_sensitivity(d: int) -> float:
    """Replace-one L1 sensitivity of the (counts, sums) vector of one iteration: ``2(d + 1)``.

    Examples
    --------
    >>> lloyd_sensitivity(2)
    6.0
    """
    return 2.0 * (d + 1)


def nearest_centre(points: NDArray[np.float64], centres: NDArray[np.float64]) -> NDArray[np.intp]:
    """Index of the nearest centre of every row (ties go to the lower index).

    Examples
    --------
    >>> nearest_centre(np.array([[0.1], [0.9]]), np.array([[0.0], [1.0]])).tolist()
    [0, 1]
    """
    # ‖x − c‖² = ‖x‖² − 2x·c + ‖c‖²; the first term is the same for every centre.
    scores = (centres**2).sum(axis=1)[None, :] - 2.0 * points @ centres.T
    return np.argmin(scores, axis=1)


def lloyd_statistics(points: ArrayLike, centres: ArrayLike) -> NDArray[np.float64]:
    """The vector one DPLloyd iteration releases: k counts, then the k × d sums, flattened.

    Rows are assigned to their nearest centre; this is the function whose replace-one L1
    sensitivity is :func:`lloyd_sensitivity` for rows in ``[−1, 1]ᵈ``.

    Parameters
    ----------
    points : array-like
        n × d rows (in unit-ball coordinates).
    centres : array-like
        k × d current centres.

    Returns
    -------
    ndarray
        Length ``k + k·d``: ``[count₁ … count_k, sum₁ (d values) … sum_k]``.

    Examples
    --------
    >>> lloyd_statistics([[-1.0], [-0.5], [1.0]], [[-0.5], [0.5]]).tolist()
    [2.0, 1.0, -1.5, 1.0]
    """
    x = np.atleast_2d(np.asarray(points, dtype=float))
    c = np.atleast_2d(np.asarray(centres, dtype=float))
    k, d = c.shape
    labels = nearest_centre(x, c)
    counts = np.bincount(labels, minlength=k).astype(float)
    sums = np.stack([np.bincount(labels, weights=x[:, j], minlength=k) for j in range(d)],
                    axis=1)
    return np.concatenate([counts, sums.ravel()])


def _project_to_unit_ball(points: NDArray[np.float64]) -> NDArray[np.float64]:
    norms = np.linalg.norm(points, axis=1, keepdims=True)
    return points * np.minimum(1.0, 1.0 / np.maximum(norms, np.finfo(float).tiny))


def update_centres(noisy: NDArray[np.float64],
                   previous: NDArray[np.float64]) -> NDArray[np.float64]:
    """New centres from one released (counts, sums) vector: post-processing only.

    Centre ``i`` is ``sumᵢ / countᵢ``; a cluster whose noisy count is ``≤ 0`` (empty, or
    pushed below zero by the noise) keeps its previous centre. Centres are then projected
    onto the unit ball, which lies inside ``[−1, 1]ᵈ`` (the box DPLloyd clips to): every
    cluster mean of rows in the ball lies in the ball.

    Examples
    --------
    >>> update_centres(np.array([2.0, -0.3, 1.0, 5.0]), np.array([[0.0], [0.25]])).tolist()
    [[0.5], [0.25]]
    >>> update_centres(np.array([0.5, 1.0, 3.0, 0.0]), np.array([[0.0], [0.0]])).tolist()
    [[1.0], [0.0]]
    """
    k, d = previous.shape
    counts = noisy[:k]
    sums = noisy[k:].reshape(k, d)
    live = counts > 0
    centres = previous.copy()
    centres[live] = sums[live] / counts[live, None]
    return _project_to_unit_ball(centres)


def _initial_centres(k: int, d: int, rng: np.random.Generator) -> NDArray[np.float64]:
    return rng.uniform(-0.5, 0.5, size=(k, d)) / math.sqrt(d)


@dataclass(frozen=True)
class LloydRun:
    """What :func:`lloyd_iterations` released and computed (unit-ball coordinates).

    ``centres``: the start, then the centres after every iteration (J + 1 arrays, k × d);
    ``noisy_counts`` J × k and ``noisy_sums`` J × k × d: the released values.
    """

    centres: list[NDArray[np.float64]]
    noisy_counts: NDArray[np.float64]
    noisy_sums: NDArray[np.float64]


def lloyd_iterations(points: NDArray[np.float64], centres: NDArray[np.float64],
                     allocation: Allocation, *, iterations: int, rng: np.random.Generator,
                     ledger: Ledger, name: str = "counts and sums") -> LloydRun:
    """J private Lloyd iterations on unit-ball rows from public ``centres``.

    Each iteration releases :func:`lloyd_statistics` with Laplace noise at the allocation's
    noise multiplier times the L1 sensitivity :func:`lloyd_sensitivity` (``2(d + 1)``) and
    records it in ``ledger`` as ``"{name}, iteration j"``; the new centres are
    :func:`update_centres` of it (post-processing). The allocation may be planned at that
    sensitivity (DPLloyd) or at unit sensitivity inside a larger plan (DP-EM's private
    start): the drawn scale is the same multiplier either way.
    """
    if allocation.release.mechanism != "laplace":
        raise ValueError(f"Lloyd iterations release with Laplace noise; the allocation "
                         f"{allocation.release.name!r} is {allocation.release.mechanism}")
    k, d = centres.shape
    sensitivity = lloyd_sensitivity(d)
    trajectory = [centres]
    noisy_counts = np.empty((iterations, k))
    noisy_sums = np.empty((iterations, k, d))
    for it in range(iterations):
        exact = lloyd_statistics(points, centres)
        noisy = np.asarray(release(exact, allocation, sensitivity=sensitivity, rng=rng,
                                   ledger=ledger, name=f"{name}, iteration {it + 1}"))
        noisy_counts[it] = noisy[:k]
        noisy_sums[it] = noisy[k:].reshape(k, d)
        centres = update_centres(noisy, centres)
        trajectory.append(centres)
    return LloydRun(trajectory, noisy_counts, noisy_sums)


def private_lloyd(data: ArrayLike, budget: Budget, *, k: int, iterations: int = 10,
                  rng: np.random.Generator, radius: float | str | None = None,
                  split: str = "equal", initial: ArrayLike | None = None) -> Result:
    """Private k-means: J Lloyd iterations, each releasing noisy cluster counts and sums.

    Seed 002 (Park et al., DP-EM, §7: the DPLloyd baseline) after Blum et al. (2005); the
    sensitivity, budget split and rules follow ALGORITHMS.md §2 ("DPLloyd baseline").

    Parameters
    ----------
    data : array-like
        n × d rows, one per person.
    budget : Budget
        The target; the J releases are composed by its method (``linear`` is the original
        DPLloyd, ``zcdp`` seed 002's variant). Pure ε-DP with δ = 0.
    k : int
        Number of clusters, 1 … 50 and at most n.
    iterations : int
        J, the number of noisy Lloyd iterations (1 … 200); there is no convergence test.
    rng : numpy.random.Generator
        Draws the initial centres and the noise.
    radius : float, "data" or None
        Public radius R of the clipping ball about the origin (``None``: the unit ball;
        ``"data"``: read from the data, not private).
    split : {"equal"}
        How the budget is spread over the iterations: every iteration the same Laplace scale.
    initial : array-like, optional
        Public initial centres (k × d, data units). Default: drawn from ``rng`` uniformly in
        ``[−0.5, 0.5]ᵈ/√d`` in unit-ball coordinates (data-independent).

    Returns
    -------
    Result
        ``estimate``: ``weights`` (the last iteration's noisy counts, clipped at 0 and
        normalised; uniform if all are 0), ``means`` (k × d, data units), ``covariances``
        ``None`` (DPLloyd does not estimate them). ``diagnostics``: ``centres`` (J + 1) × k × d
        in data units (the start, then every iteration: the replay), ``noisy_counts`` J × k and
        ``noisy_sums`` J × k × d (released values, unit-ball coordinates), ``noise_scale``.

    Raises
    ------
    ValueError
        Bad data, k outside 1 … min(50, n), iterations outside 1 … 200, an unknown split.

    Examples
    --------
    >>> from dpviz.privacy import Budget
    >>> x = np.array([[-0.6, 0.0], [-0.5, 0.1], [0.5, 0.0], [0.6, -0.1]])
    >>> r = private_lloyd(x, Budget(epsilon=float("inf")), k=2, iterations=3,
    ...                   rng=np.random.default_rng(0), initial=[[-0.1, 0.0], [0.1, 0.0]])
    >>> r.estimate["means"].round(2).tolist()
    [[-0.55, 0.05], [0.55, -0.05]]
    >>> r.estimate["weights"].tolist()
    [0.5, 0.5]
    """
    k = limits.check_integer(K_RANGE, k)
    iterations = limits.check_integer(ITERATIONS_RANGE, iterations)
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    x = as_matrix(data, min_rows=1)
    n, d = x.shape
    if k > n:
        raise ValueError(f"k = {k} clusters need at least {k} rows, got {n}")
    ball = resolve_ball(x, radius)
    points = ball.to_unit(x)

    if initial is None:
        centres = _initial_centres(k, d, rng)
        how = ("centres drawn from the seed uniformly in [-0.5, 0.5]^d / sqrt(d) "
               "(unit-ball coordinates; data-independent)")
    else:
        given = np.asarray(initial, dtype=float)
        if given.shape != (k, d) or not np.all(np.isfinite(given)):
            raise ValueError(f"initial centres must be a finite {k} × {d} table, got shape "
                             f"{given.shape}")
        centres = _project_to_unit_ball((given - ball.center) / ball.radius)
        how = "public centres given by the caller (projected into the ball)"

    sensitivity = lloyd_sensitivity(d)
    plan = [PlannedRelease("counts and sums", "laplace", sensitivity=sensitivity,
                           count=iterations)]
    allocation = solve(plan, budget)["counts and sums"]
    ledger = Ledger(budget)

    run = lloyd_iterations(points, centres, allocation, iterations=iterations, rng=rng,
                           ledger=ledger)
    trajectory, noisy_counts, noisy_sums = run.centres, run.noisy_counts, run.noisy_sums
    centres = trajectory[-1]

    last = np.clip(noisy_counts[-1], 0.0, None)
    weights = last / last.sum() if last.sum() > 0 else np.full(k, 1.0 / k)
    choices: dict[str, Any] = {
        "bound": ball.describe(), "radius": ball.radius,
        "initialisation": how,
        "split": "equal: every iteration gets the same Laplace scale (budget solver)",
        "accounting": budget.method,
        "empty-cluster rule": "a cluster whose noisy count is <= 0 keeps its previous centre",
        "centre clipping": ("noisy centres projected onto the unit ball, which lies inside "
                            "[-1, 1]^d"),
        "sensitivity": sensitivity,
        "sensitivity norm": "L1",
        "sensitivity reason": (
            "2(d + 1) under replace-one neighbours: the replaced row can leave one cluster "
            "(its count and sum change) and the new row join another, each moving a count by "
            "1 and a sum by at most d in L1 for coordinates in [-1, 1]; d + 1 is the "
            "add/remove value"),
        "weights": "the last iteration's noisy counts, clipped at 0 and normalised",
    }
    return Result(
        estimate={"weights": weights, "means": ball.from_unit(centres), "covariances": None},
        ledger=ledger, choices=choices, not_private=ball.not_private,
        diagnostics={"centres": np.stack([ball.from_unit(c) for c in trajectory]),
                     "noisy_counts": noisy_counts, "noisy_sums": noisy_sums,
                     "noise_scale": allocation.scale})


ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({
    "dplloyd": Estimator(
        task="gmm", name="dplloyd", function=private_lloyd,
        relation=REPLACE_ONE,
        example={"k": 2, "iterations": 2},
        cost=CostModel(4.5e-09, base_seconds=0.017, bytes_per_unit=21.0),
        neighbours=mixture_pair,
        label="DPLloyd (noisy k-means)",
        paper="Park et al. 2017 (DP-EM), Section 7 baseline; Blum, Dwork, McSherry & Nissim 2005",
        notion="pure", outputs=("weights", "means"),
        params=(
            shared_k(help="number of clusters"),
            Param("iterations", "int", 10, min=1, max=200,
                  help="noisy Lloyd iterations (each spends a share of the budget)"),
        )),
})
