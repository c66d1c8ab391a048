"""Grid means: private cluster centres for small tables (dpviz's own estimator).

None of the five papers has an estimator that succeeds on a few hundred rows: DP-EM's noisy
M-steps scale with the whole public bound, and the others refuse below 10⁴–10¹⁴ rows. This one
is built from two textbook releases. First a noisy histogram on a public grid finds where the
clusters are (the histogram mechanism, Dwork, McSherry, Nissim & Smith 2006), then a few
clipped-mean steps refine them. Each step is a DPLloyd iteration (Blum, Dwork, McSherry &
Nissim 2005) whose rows are clipped to a small radius about the current centres, not to the
whole bound, so its noise is the radius's, not the bound's. It is not only for small tables:
on the saved accuracy table (mixtures 6σ apart, n = 10 000–100 000, ε = 0.5–4) its means had
the lowest median error in 3 of 9 cells and were second in 4 (6 of 9 lowest with 10 column
cells: the closer box that wide bounds on small tables need, :data:`ZOOM_CELLS`, starts the
steps at a smaller radius, whose clipping costs large tables a little — n = 30 000, ε = 0.5,
6 seeds: median 0.0037 to 0.0056; a third step brought it back to 0.0045); it releases no
covariances.

1. **Where the rows are.** Every column's counts in :data:`ZOOM_CELLS` cells of
   ``[−R, R]`` are released with Gaussian noise (L2 sensitivity ``√(2d)``: each column's
   histogram moves one count down and one up). The grid below is laid over the span of the
   windows that clearly hold rows (post-processing), so a public bound several times wider
   than the data does not waste the grid on empty space.
2. **Grid.** That box is cut into ``m`` cells per axis and every cell's count is released
   with Gaussian noise (L2 sensitivity ``√2``).
3. **Peaks** (post-processing). The ``k`` heaviest windows of ``2ᵈ`` cells that do not
   overlap are picked. Each peak's centre is the mean of its cells' centres, weighted by their
   noisy counts (negative counts count as 0).
4. **Local steps.** Every row goes to its nearest centre, and its offset from that centre is
   clipped to the radius ``rⱼ``. The per-cluster counts (L2 sensitivity ``√2``) and offset sums
   (``2rⱼ``: when the old and the new row fall in one cluster its sum moves by their difference)
   are released, and each centre moves by its noisy sum over its noisy count. The first
   radius is the grid's cell width, and each later one is half the previous.

The budget is planned once through :func:`dpviz.privacy.solve`: the column counts get
:data:`ZOOM_SHARE`, the grid ``grid_share``, the final clusters' sizes (the weights)
:data:`SIZES_SHARE`, and the steps share the rest equally, with :data:`COUNT_SHARE` of each
step's part spent on its counts. The shares are of ρ, zCDP's currency: under linear or
advanced composition the ε each release gets is split differently (the solver's levels are
the shares' square roots), and the total is still the budget.

The constants were chosen by simulation on generated mixtures, never on a user's table
(k = 2…5 clusters of standard deviation s, centres at least 10 s
apart, n = 500…3 000, d = 1…3, ε = 1, δ = 1e-5, the public radius as wide as the rows or 2.5
times wider, 40 seeds each). The measure was the share of runs whose every matched mean lies
within 0.4 s of its cluster's own mean. With the defaults, 12 of the 14 settings reached at
least 0.90; the hardest (n = 500, d = 2, k = 3) reached 0.93, and 0.72 with the bound 2.5
times too wide (n = 1 000, d = 2, k = 4 with that bound: 0.88). Without the column step that
bound gave 0.30–0.60 for k ≥ 3 in two columns; 10 cells per cluster instead of 8 traded
0.97 for 0.78 on the first and 0.78 for 0.85 on the second (measured before the weights'
release took its 5 %). The column counts' cells were chosen later the same way, with
private ranges as a third bound (:data:`ZOOM_CELLS` gives the figures and the trade-off).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.core import limits
from dpviz.core.entry import CostModel, DescribedRows, Estimator, Param, Story, shared_k
from dpviz.core.relations import REPLACE_ONE
from dpviz.data import as_matrix
from dpviz.estimators.gmm.dplloyd import nearest_centre
from dpviz.estimators.gmm.one_cluster import refused_before_spending
from dpviz.estimators.neighbours import NeighbourPair, mixture_pair
from dpviz.estimators.result import Result
from dpviz.privacy import Budget, Ledger, PlannedRelease, release, solve
from dpviz.privacy.bounds import resolve_ball

#: The most columns a grid is laid over: ``m`` cells per axis make ``mᵈ`` cells.
MAX_COLUMNS = 3
#: The most cells a grid may have (memory and time stay bounded for any public input).
MAX_CELLS = 2**16
CELLS_RANGE = limits.Limit("cells", 2, 256)
STEPS_RANGE = limits.Limit("steps", 1, 6)
#: At most 0.8: the column counts take :data:`ZOOM_SHARE` and the steps need some of the rest.
SHARE_RANGE = limits.Limit("grid_share", 0.05, 0.8)
#: The share of each local step's budget spent on its counts (the rest on its sums). Small on
#: purpose: with :data:`COUNT_FLOOR` a small table's steps are then damped (divided by the
#: floor rather than a noisy count), which on the generated mixtures below beat a count
#: share of 5 % or 10 % (n = 500, d = 2, k = 3, bound 2.5 times too wide: 0.78 against
#: 0.55 and 0.42).
COUNT_SHARE = 0.012
#: A noisy count below this many of its noise's standard deviations divides the sums as if
#: it were that large: a count the noise dominates would throw its centre far away.
COUNT_FLOOR = 3.0
#: How much a peak's window must outweigh the grid's noise for :func:`can_run` to expect it
#: to be found (a window's noise has standard deviation ``2^{d/2}·σ``). On the generated
#: mixtures above (ε = 1, 30 seeds), runs at the rows this asks for succeeded 23 %–30 % of
#: the time, at 1.2 times them 50 %–63 %, at 1.5 times 90 %–97 %.
PEAK_MARGIN = 6.0
#: Share of the budget (of ρ) spent on the final clusters' sizes, the weights: the steps'
#: counts are too noisy for them. On the issue's 500-row table (typed ranges, ε = 1, 80
#: seeds) the largest weight error had median 0.05 (0.08 at a share of 0.02, about 0.2 from
#: the steps' counts); the means were within 2 units on 90 % of seeds (91 % at 0.02).
SIZES_SHARE = 0.05
#: Cells of each column's histogram over ``[−R, R]`` (the first release, which finds where
#: the rows are, so that the grid is laid over them rather than over the whole bound).
#: Chosen by ``bench/grid_means_defaults.py`` (generated mixtures, 8 settings n = 500…3 000,
#: d = 1…3, k = 2…5, ε = 1, 40 seeds each; success: every mean within 0.4 standard deviations
#: of its cluster's): 10, 16, 20 and 24 cells succeeded in 317, 308, 317 and 308 of 320 runs
#: with ranges as wide as the rows, 288, 310, 313 and 310 with ranges 2.5 times wider, and
#: 221, 269, 271 and 265 with private ranges (20 % of ε), whose box is several times wider
#: than the rows at small n. On the issue's 500-row, 3-cluster table (ε = 1, 80 seeds) 20
#: cells traded typed ranges [0, 100]² (as wide as the rows) from 72 to 56 runs within 2
#: units of non-private EM, for private ranges from 35 to 52; the bench's typed ranges, in
#: eight settings, lost nothing.
ZOOM_CELLS = 20
#: Share of the budget (of ρ) spent on those column histograms.
ZOOM_SHARE = 0.1
#: A window of two column cells counts as holding rows when its noisy count reaches this
#: many of its noise's standard deviations (``√2·σ``; one row at ε = ∞). Low on purpose: an
#: empty window that passes (2.3 %) only widens the grid's box, a cluster's window that fails
#: can cut it off.
ZOOM_Z = 2.0
#: Cells per axis per ``k^{1/d}`` when ``cells`` is automatic (:func:`auto_cells`).
CELLS_PER_CLUSTER = 8.0


def grid_sensitivity() -> float:
    """Replace-one L2 sensitivity of a histogram: one count −1, another +1, so ``√2``.

    Examples
    --------
    >>> round(grid_sensitivity(), 4)
    1.4142
    """
    return math.sqrt(2.0)


def marginal_sensitivity(d: int) -> float:
    """Replace-one L2 sensitivity of the d columns' counts together: ``√(2d)``.

    Every column's histogram moves one count down and one up (``√2`` each).

    Examples
    --------
    >>> marginal_sensitivity(2)
    2.0
    """
    return math.sqrt(2.0 * d)


def sums_sensitivity(radius: float) -> float:
    """Replace-one L2 sensitivity of the k clipped offset sums: ``2r``.

    If the old and the new row fall in one cluster, its sum moves by the difference of two
    offsets of norm at most ``r`` (up to ``2r`` when they point opposite ways); if in two,
    each of two sums moves by at most ``r`` (``√2·r`` together).

    Examples
    --------
    >>> sums_sensitivity(2.0)
    4.0
    """
    return 2.0 * radius


def auto_cells(k: int, d: int) -> int:
    """Cells per axis when the caller gives none: ``CELLS_PER_CLUSTER·k^{1/d}``, capped.

    Examples
    --------
    >>> auto_cells(3, 2), auto_cells(1, 1), auto_cells(50, 3)
    (14, 8, 29)
    """
    wanted = round(CELLS_PER_CLUSTER * k ** (1.0 / d))
    cap = int(MAX_CELLS ** (1.0 / d) + 1e-9)
    return int(min(max(wanted, CELLS_RANGE.low), cap, CELLS_RANGE.high))


def histogram(points: NDArray[np.float64], low: NDArray[np.float64],
              high: NDArray[np.float64], cells: int) -> NDArray[np.float64]:
    """Counts of ``points`` in the ``cells``ᵈ cells of the box ``[low, high]``.

    A row outside the box counts in the nearest cell (it is clipped into the box).

    Examples
    --------
    >>> histogram(np.array([[-0.9], [0.1], [0.2], [5.0]]), np.array([-1.0]), np.array([1.0]),
    ...           2).tolist()
    [1.0, 3.0]
    """
    d = points.shape[1]
    index = np.clip(((points - low) / (high - low) * cells).astype(np.int64), 0, cells - 1)
    flat = np.ravel_multi_index(tuple(index.T), (cells,) * d)
    return np.bincount(flat, minlength=cells**d).astype(float).reshape((cells,) * d)


def marginals(points: NDArray[np.float64], radius: float) -> NDArray[np.float64]:
    """Every column's counts in :data:`ZOOM_CELLS` cells of ``[−radius, radius]``, d × cells.

    Examples
    --------
    >>> marginals(np.array([[-0.95, 0.9], [0.5, 0.95]]), 1.0)[:, [0, -1]].tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    low, high = np.array([-radius]), np.array([radius])
    return np.stack([histogram(points[:, [j]], low, high, ZOOM_CELLS)
                     for j in range(points.shape[1])])


def occupied_box(noisy: NDArray[np.float64], radius: float,
                 threshold: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per column, the span of the marginal windows (2 cells) above ``threshold``, padded.

    Post-processing of the released marginals: the span runs from the first to the last
    window whose noisy count reaches ``threshold``, one cell wider on each side, inside
    ``[−radius, radius]``; a column with no such window keeps the whole interval.

    Examples
    --------
    >>> counts = np.zeros((1, 10)); counts[0, 4:6] = 50.0
    >>> [v.round(3).tolist() for v in occupied_box(counts, 1.0, 60.0)]
    [[-0.4], [0.4]]
    """
    width = 2 * radius / noisy.shape[1]
    low, high = np.full(len(noisy), -radius), np.full(len(noisy), radius)
    for j, column in enumerate(noisy):
        heavy = np.flatnonzero(column[:-1] + column[1:] >= threshold)
        if heavy.size:
            low[j] = max(-radius, -radius + width * (heavy[0] - 1))
            high[j] = min(radius, -radius + width * (heavy[-1] + 3))
    return low, high


def window_sums(grid: NDArray[np.float64]) -> NDArray[np.float64]:
    """Sums over every window of ``2ᵈ`` neighbouring cells (one fewer position per axis).

    Examples
    --------
    >>> window_sums(np.array([1.0, 2.0, 4.0])).tolist()
    [3.0, 6.0]
    """
    out = grid
    for axis in range(grid.ndim):
        size = out.shape[axis]
        out = np.take(out, range(size - 1), axis=axis) + np.take(out, range(1, size), axis=axis)
    return out


def peak_centres(noisy: NDArray[np.float64], low: NDArray[np.float64],
                 high: NDArray[np.float64], k: int) -> NDArray[np.float64]:
    """The centres of the ``k`` heaviest non-overlapping ``2ᵈ`` windows (post-processing).

    ``noisy`` is the grid of the box ``[low, high]``. Each centre is the mean of its
    window's cell centres weighted by their noisy counts (negative ones as 0; the window's
    middle if all are).

    Examples
    --------
    >>> grid = np.zeros((4, 4)); grid[0, 0] = 5.0; grid[3, 2] = grid[3, 3] = 4.0
    >>> peak_centres(grid, np.full(2, -2.0), np.full(2, 2.0), 2).tolist()
    [[1.5, 1.0], [-1.5, -1.5]]
    """
    d, cells = noisy.ndim, noisy.shape[0]
    width = (high - low) / cells
    windows = window_sums(noisy) if cells > 1 else noisy.copy()
    centres = np.empty((k, d))
    for j in range(k):
        corner = np.unravel_index(int(np.argmax(windows)), windows.shape)
        block = np.clip(noisy[tuple(slice(c, c + 2) for c in corner)], 0.0, None)
        for axis in range(d):
            mids = low[axis] + width[axis] * (corner[axis] + np.arange(block.shape[axis]) + 0.5)
            mass = block.sum(axis=tuple(a for a in range(d) if a != axis))
            centres[j, axis] = mass @ mids / mass.sum() if mass.sum() > 0 else mids.mean()
        windows[tuple(slice(max(c - 1, 0), c + 2) for c in corner)] = -np.inf
    return centres


def local_statistics(points: NDArray[np.float64], centres: NDArray[np.float64],
                     radius: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per-cluster counts and sums of the offsets to the nearest centre, clipped to ``radius``.

    Examples
    --------
    >>> counts, sums = local_statistics(np.array([[0.0], [3.0], [10.0]]),
    ...                                 np.array([[1.0], [9.0]]), 1.5)
    >>> counts.tolist(), sums.tolist()
    ([2.0, 1.0], [[0.5], [1.0]])
    """
    k, d = centres.shape
    labels = nearest_centre(points, centres)
    offsets = points - centres[labels]
    norms = np.linalg.norm(offsets, axis=1, keepdims=True)
    offsets *= np.minimum(1.0, radius / np.maximum(norms, np.finfo(float).tiny))
    counts = np.bincount(labels, minlength=k).astype(np.float64)
    sums = np.stack([np.bincount(labels, weights=offsets[:, j], minlength=k) for j in range(d)],
                    axis=1).astype(np.float64)
    return counts, sums


def plan(steps: int, grid_share: float) -> list[PlannedRelease]:
    """The releases: the column counts, the grid, then each step's counts and sums (Gaussian).

    All are planned at unit sensitivity (each release passes its own). The shares are of ρ,
    zCDP's currency (the solver's weights are levels, whose squares ρ follows): the column
    counts :data:`ZOOM_SHARE`, the grid ``grid_share``, the final cluster sizes (the
    weights) :data:`SIZES_SHARE`, each step the rest over ``steps``, :data:`COUNT_SHARE` of
    it on its counts.

    Examples
    --------
    >>> from dpviz.privacy import Budget
    >>> spent = solve(plan(2, 0.3), Budget(rho=1.0))
    >>> round(spent["grid"].rho, 6), round(spent["marginals"].rho, 6)
    (0.3, 0.1)
    """
    each = (1.0 - ZOOM_SHARE - SIZES_SHARE - grid_share) / steps
    return [PlannedRelease("marginals", "gaussian", 1.0, weight=math.sqrt(ZOOM_SHARE)),
            PlannedRelease("grid", "gaussian", 1.0, weight=math.sqrt(grid_share)),
            PlannedRelease("sizes", "gaussian", 1.0, weight=math.sqrt(SIZES_SHARE)),
            PlannedRelease("counts", "gaussian", 1.0, count=steps,
                           weight=math.sqrt(each * COUNT_SHARE)),
            PlannedRelease("sums", "gaussian", 1.0, count=steps,
                           weight=math.sqrt(each * (1.0 - COUNT_SHARE)))]


def grid_means(data: ArrayLike, budget: Budget, *, k: int, rng: np.random.Generator,
               radius: float | str | None = None, cells: int | None = None,
               grid_share: float = 0.4, steps: int = 2) -> Result:
    """Private cluster centres from a noisy grid and clipped local means (module docstring).

    Parameters
    ----------
    data : array-like
        n × d rows (d ≤ :data:`MAX_COLUMNS`), one per person.
    budget : Budget
        The target, with δ > 0 (Gaussian noise).
    k : int
        Number of clusters, 1 … 100 and at most n.
    rng : numpy.random.Generator
        The noise.
    radius : float, "data" or None
        Public radius R of the ball the rows are clipped to (``None``: 1; ``"data"``: read
        from the data, not private). The column counts cover ``[−R, R]`` about the ball's
        centre in every column; the grid covers the box where they found rows. The
        releases are made in the unit ball's coordinates (``(x − c)/R``), so a radius of any
        size gives the same noise ratios.
    cells : int or None
        Cells per axis (2 … 256, at most :data:`MAX_CELLS` in all); ``None``:
        :func:`auto_cells`.
    grid_share : float
        Share of the budget's ρ spent on the grid (0.05 … 0.8).
    steps : int
        Local steps (1 … 6).

    Returns
    -------
    Result
        ``estimate``: ``weights``, ``means`` (k × d), ``covariances`` ``None``.
        ``diagnostics``: ``centres`` (the peaks, then every step's, data units),
        ``radii`` (every step's clipping radius, data units), ``grid_counts`` (the released
        grid, ``m``ᵈ noisy counts, axis j along column j) and ``grid_low``, ``grid_high``
        (its box, per column, data units), ``grid_noise`` (one cell's noise standard deviation,
        public: :func:`grid_noise`).

    Raises
    ------
    ValueError
        Bad data, d > 3, k outside 1 … min(100, n), bad cells, steps or grid_share.

    Examples
    --------
    >>> from dpviz.privacy import Budget
    >>> x = np.vstack([np.full((5, 2), -0.5), np.full((5, 2), 0.5)])
    >>> r = grid_means(x, Budget(epsilon=float("inf")), k=2, rng=np.random.default_rng(0))
    >>> sorted(r.estimate["means"].round(3).tolist())
    [[-0.5, -0.5], [0.5, 0.5]]
    """
    k = limits.check_integer(limits.COMPONENTS, k)
    steps = limits.check_integer(STEPS_RANGE, steps)
    grid_share = limits.check_number(SHARE_RANGE, grid_share)
    x = as_matrix(data, min_rows=1)
    n, d = x.shape
    if d > MAX_COLUMNS:
        raise ValueError(too_many_columns(d))
    if k > n:
        raise ValueError(f"k = {k} clusters need at least {k} rows, got {n}")
    m = auto_cells(k, d) if cells is None else limits.check_integer(CELLS_RANGE, cells)
    if m**d > MAX_CELLS:
        raise ValueError(f"cells must make at most {MAX_CELLS:,} cells in all: {m} per axis "
                         f"in {d} columns make {m**d:,}")
    ball = resolve_ball(x, radius)
    why = refusal(n, d, k, budget, steps=steps, grid_share=grid_share)
    if why is not None:  # public inputs only: refused before a row is read
        return refused_before_spending(why, ledger=Ledger(budget),
                                       choices={"cells": m, "grid_share": grid_share,
                                                "steps": steps},
                                       not_private=ball.not_private)
    points = ball.to_unit(x)  # clipped to the ball, in its unit-ball coordinates

    allocations = solve(plan(steps, grid_share), budget)
    ledger = Ledger(budget)
    spread = np.asarray(release(marginals(points, 1.0).ravel(),
                                allocations["marginals"], sensitivity=marginal_sensitivity(d),
                                rng=rng, ledger=ledger, name="column counts"))
    marginal_noise = allocations["marginals"].scale_for(marginal_sensitivity(d))
    low, high = occupied_box(spread.reshape(d, ZOOM_CELLS), 1.0,
                             max(ZOOM_Z * math.sqrt(2.0) * marginal_noise, 1.0))
    noisy = np.asarray(release(histogram(points, low, high, m).ravel(), allocations["grid"],
                               sensitivity=grid_sensitivity(), rng=rng, ledger=ledger,
                               name="grid counts")).reshape((m,) * d)
    centres = peak_centres(noisy, low, high, k)
    trajectory, radii = [centres], []
    step_radius = float(np.max(high - low)) / m
    for step in range(steps):
        exact_counts, exact_sums = local_statistics(points, centres, step_radius)
        counts = np.asarray(release(exact_counts, allocations["counts"],
                                    sensitivity=grid_sensitivity(), rng=rng, ledger=ledger,
                                    name=f"cluster sizes, step {step + 1}"))
        sums = np.asarray(release(exact_sums, allocations["sums"],
                                  sensitivity=sums_sensitivity(step_radius), rng=rng,
                                  ledger=ledger, name=f"clipped sums, step {step + 1}"))
        floor = COUNT_FLOOR * allocations["counts"].scale_for(grid_sensitivity())
        centres = centres + sums / np.maximum(counts, max(floor, 1.0))[:, None]
        trajectory.append(centres)
        radii.append(step_radius)
        step_radius /= 2

    sizes = np.asarray(release(local_statistics(points, centres, 0.0)[0], allocations["sizes"],
                               sensitivity=grid_sensitivity(), rng=rng, ledger=ledger,
                               name="final cluster sizes"))
    positive = np.clip(sizes, 0.0, None)
    weights = positive / positive.sum() if positive.sum() > 0 else np.full(k, 1.0 / k)
    choices: dict[str, Any] = {
        "bound": ball.describe(), "radius": ball.radius,
        "cells": m, "cells rule": ("given" if cells is not None else
                                   f"{CELLS_PER_CLUSTER:g}·k^(1/d) per axis, chosen by "
                                   "simulation on generated mixtures"),
        "grid_share": grid_share, "steps": steps, "accounting": budget.method,
        "first radius": "the grid's cell width; each later step halves it",
        "sensitivity": {"column counts": marginal_sensitivity(d), "grid": grid_sensitivity(),
                        "counts": grid_sensitivity(), "final sizes": grid_sensitivity(),
                        "sums": "2 times the step's radius (unit-ball coordinates)"},
        "sensitivity norm": "L2",
        "sensitivity reason": ("replace-one: the old row leaves one cell (or cluster) and the "
                               "new row joins another, so two counts move by 1, in each of the "
                               "d column histograms too; a sum moves by the difference of two "
                               "clipped offsets when both rows fall in its cluster"),
        "weights": "the final clusters' noisy sizes (one more release), clipped at 0 and "
                   "normalised",
    }
    return Result(
        estimate={"weights": weights, "means": ball.from_unit(centres), "covariances": None},
        ledger=ledger, choices=choices, not_private=ball.not_private,
        diagnostics={"centres": np.stack([ball.from_unit(c) for c in trajectory]),
                     "radii": np.array(radii) * ball.radius, "grid_counts": noisy,
                     "grid_low": ball.from_unit(low), "grid_high": ball.from_unit(high),
                     "grid_noise": allocations["grid"].scale_for(grid_sensitivity())})


#: A released grid cell counts towards a centre's spread when its noisy count passes this many
#: noise standard deviations (:func:`described_rows`): at 2, 2.3 % of empty cells pass.
DESCRIBED_Z = 2.0
#: The smallest weight :func:`described_rows` gives a released centre (one released at weight
#: 0 still gets a few rows, as the run may have found a real group the final sizes' noise hid).
DESCRIBED_WEIGHT = 0.02


def described_rows(result: Result) -> DescribedRows | None:
    """The Gaussian mixture a release describes: its means, weights and (diagonal) covariances.

    Post-processing of the released values only (no budget): the released centres and
    weights (floored at :data:`DESCRIBED_WEIGHT`), and each centre's spread read from the
    released noisy grid — the cells whose count passes :data:`DESCRIBED_Z` noise standard
    deviations, each given to its nearest centre with that excess as its mass, their
    weighted squared distance to it, plus a cell's own ``width²/12``. Rows drawn from it are
    what :mod:`dpviz.lab.expectation` runs the estimator on to state a run's expected error
    from its own release: real groups overlap in ways generated ones do not (issue 30's
    held-out check). ``None`` for ⊥, and for a run whose bound was read from the data (its
    grid's box would not be private).

    Examples
    --------
    >>> x = np.vstack([np.full((400, 2), -0.5), np.full((400, 2), 0.5)])
    >>> r = grid_means(x, Budget(epsilon=4.0, delta=1e-5), k=2, rng=np.random.default_rng(0))
    >>> described = described_rows(r)
    >>> described.means.shape, round(float(described.weights.sum()), 6)
    ((2, 2), 1.0)
    >>> described.covariances.shape, described.equal_norms
    ((2, 2, 2), False)
    """
    if result.failed or result.not_private:
        return None
    counts = np.asarray(result.diagnostics["grid_counts"], dtype=float)
    low = np.asarray(result.diagnostics["grid_low"], dtype=float)
    high = np.asarray(result.diagnostics["grid_high"], dtype=float)
    d, m = counts.ndim, counts.shape[0]
    width = (high - low) / m
    index = np.stack(np.meshgrid(*[np.arange(m)] * d, indexing="ij"), -1).reshape(-1, d)
    cells = low + width * (index + 0.5)
    mass = np.clip(counts.reshape(-1) - DESCRIBED_Z * float(result.diagnostics["grid_noise"]),
                   0.0, None)
    means = np.asarray(result.estimate["means"], dtype=float)
    # each cell's excess mass on its nearest centre: k × cells
    owned = (nearest_centre(cells, means)[None, :] == np.arange(len(means))[:, None]) * mass
    total = owned.sum(axis=1, keepdims=True)
    # Σ m (c − μ)² = Σ m c² − 2μ Σ m c + μ² Σ m, per centre and column
    second = owned @ cells**2 - 2 * means * (owned @ cells) + means**2 * total
    spread = np.divide(second, total, out=np.tile(width**2, (len(means), 1)),
                       where=total > 0)
    variances = spread + width**2 / 12
    weights = np.clip(np.asarray(result.estimate["weights"], dtype=float), DESCRIBED_WEIGHT,
                      None)
    return DescribedRows(means, weights / weights.sum(),
                         np.stack([np.diag(v) for v in variances]),
                         said="the groups this run released — its centres, weights and "
                              "noisy grid")


def too_many_columns(d: int) -> str:
    """The sentence for a table too wide for a grid (public: d)."""
    return (f"grid means lays a grid over the columns and works on at most {MAX_COLUMNS} of "
            f"them; this table has {d}")


def grid_noise(budget: Budget, *, steps: int = 2, grid_share: float = 0.4) -> float:
    """The standard deviation of one cell's noise under ``budget`` (public).

    Examples
    --------
    >>> round(grid_noise(Budget(epsilon=1.0, delta=1e-5)), 2)
    9.05
    """
    return solve(plan(steps, grid_share), budget)["grid"].scale_for(grid_sensitivity())


def rows_needed(k: int, d: int, noise: float) -> int:
    """The fewest rows whose clusters' windows stand :data:`PEAK_MARGIN` noise deviations high.

    A window of ``2ᵈ`` cells has noise of standard deviation ``2^{d/2}·noise``; a cluster of
    ``n/k`` rows inside it must reach :data:`PEAK_MARGIN` of those.

    Examples
    --------
    >>> rows_needed(3, 2, 9.05)
    326
    """
    return math.ceil(k * PEAK_MARGIN * 2 ** (d / 2) * noise)


def refusal(n: int, d: int, k: int, budget: Budget, *, steps: int = 2,
            grid_share: float = 0.4) -> str | None:
    """Why grid means cannot succeed on ``n`` rows under ``budget``, or ``None`` (public).

    Examples
    --------
    >>> refusal(500, 2, 3, Budget(rho=0.02)) is None
    True
    >>> refusal(200, 2, 3, Budget(rho=0.02))[-40:]
    'it needs about n = 403 rows, or more rho'
    """
    if d > MAX_COLUMNS:
        return too_many_columns(d)
    if budget.rho is None and (budget.epsilon is None or math.isinf(budget.epsilon)):
        return None
    if budget.rho is None and not budget.delta:
        return "grid means adds Gaussian noise: it needs delta > 0"
    noise = grid_noise(budget, steps=steps, grid_share=grid_share)
    needed = rows_needed(k, d, noise)
    if n >= needed:
        return None
    at, more = ((f"rho = {budget.rho:g}", "more rho") if budget.rho is not None else
                (f"epsilon = {budget.epsilon:g}", "a larger epsilon"))
    return (f"grid means cannot find k = {k} clusters in n = {n:,} rows at {at}: a cluster "
            f"of about {n // k:,} rows is lost in the grid's noise (standard deviation "
            f"{noise:.3g} per cell); it needs about n = {needed:,} rows, or {more}")


def can_run(*, n: int, d: int, k: int, epsilon: float | None, delta: float,
            accounting: str = "zcdp", steps: int = 2, grid_share: float = 0.4,
            **_: Any) -> str | None:
    """The registry's hook: :func:`refusal` at ``(epsilon, delta)`` under ``accounting``.

    Examples
    --------
    >>> can_run(n=500, d=2, k=3, epsilon=1.0, delta=1e-5) is None
    True
    >>> can_run(n=200, d=2, k=3, epsilon=1.0, delta=1e-5)[:53]
    'grid means cannot find k = 3 clusters in n = 200 rows'
    >>> can_run(n=500, d=4, k=3, epsilon=1.0, delta=1e-5)[:40]
    'grid means lays a grid over the columns '
    """
    if d > MAX_COLUMNS:
        return too_many_columns(d)
    if epsilon is None:
        return None
    return refusal(n, d, k, Budget(epsilon=epsilon, delta=delta, method=accounting),
                   steps=steps, grid_share=grid_share)


def grid_means_pair() -> NeighbourPair:
    """The audit's pair: the mixtures' corner pair with 150 rows per cluster.

    Enough rows for :func:`can_run` at the audit's budget, so the audit sees releases, not a
    refusal.
    """
    return mixture_pair(rows=150)


ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({
    "grid_means": Estimator(
        task="gmm", name="grid_means", function=grid_means, can_run=can_run,
        relation=REPLACE_ONE,
        fails_when_small=("at 12 rows, or 400 under linear accounting, a cluster is lost in the "
                          "grid's noise: it needs the rows can_run asks for"),
        example={"k": 2},
        # bench/work_costs.py gmm/grid_means (its own sizes, n = 10⁶ at d = 2, k = 3 and
        # n = 5·10⁴ at d = 3, k = 5; ε = 1): 1.5–1.8e-08 s and 15 bytes per unit in three runs
        cost=CostModel(1.8e-08, base_seconds=0.0, bytes_per_unit=15.0),
        neighbours=grid_means_pair, described_rows=described_rows,
        # the page's default for uploads below 10 000 rows: on the 3-cluster table at
        # ε = 1 (20 seeds) DP-EM's means were 57 (typed ranges) to 178 units off at 500 rows
        # and first came within 2 units on 30 % of seeds at 10 000, grid means on 95-100 %
        suits=lambda *, n, d, k: d <= MAX_COLUMNS and n < 10_000,
        label="Grid means",
        story=Story("Noisy counts of each column find the box where the rows are; a grid of "
                    "noisy counts over that box finds the k most crowded places (the peaks); "
                    "then a few local steps move each centre by the mean of its nearest rows' "
                    "offsets, clipped to a radius that halves every step, with noise added "
                    "to their counts and sums.", "dpviz.viz.grid_means:grid_means_story"),
        paper=("dpviz's own: a noisy histogram (Dwork, McSherry, Nissim & Smith 2006) finds "
               "the clusters, clipped local means (Blum, Dwork, McSherry & Nissim 2005) "
               "refine them"),
        notion="approximate", outputs=("weights", "means"),
        params=(
            shared_k(help="number of clusters"),
            Param("cells", "int", None, min=CELLS_RANGE.low, max=CELLS_RANGE.high, choice=True,
                  help="grid cells per axis (automatic: chosen by simulation on generated "
                       "mixtures)"),
            Param("grid_share", "float", 0.4, min=SHARE_RANGE.low, max=SHARE_RANGE.high,
                  choice=True, help="share of the budget (of zCDP's rho) spent on the grid "
                                    "that finds the clusters"),
            Param("steps", "int", 2, min=STEPS_RANGE.low, max=STEPS_RANGE.high, choice=True,
                  help="local steps that refine the centres, each with half the radius"),
        )),
})
