"""Audit neighbours: the worst-case neighbouring datasets of each sensitivity proof.

Each registry entry's ``neighbours`` hook (:class:`dpviz.core.entry.Estimator`) names one of the
builders below; :mod:`dpviz.lab.audit` runs the estimator on both datasets and reads the
statistic (see its module docstring for why each pair and statistic is the one chosen).
The pairs are small public instances, built on demand.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.estimators.result import Result

Statistic = Callable[[Result], float]
#: Why a slow estimator has no pair yet (its entry's ``no_pair``).
TOO_SLOW_TO_AUDIT = ("each run takes a fraction of a second to seconds, so the audit's 2 000 "
                     "runs would keep a page busy for many minutes")


@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring inputs and the statistic that tells them apart.

    Attributes
    ----------
    data, neighbour : object
        D and D′ (n × d arrays, or edge arrays for ``sbm``).
    description : str
        How they differ, for the page.
    statistic : callable
        ``statistic(result) → float``: a fixed function of the release.
    statistic_label : str
        What the statistic is, in words.
    params : mapping
        Further keyword arguments of the run (the public radius, ``k``, ``n`` …).
    candidates : tuple of (D, D′, description)
        Other neighbouring pairs on the same instance; the white-box audit records the code on
        each and audits the one whose releases change most (where the worst case depends on
        the code's own state, e.g. which component a row falls in).
    """

    data: Any
    neighbour: Any
    description: str
    statistic: Statistic = field(repr=False)
    statistic_label: str
    params: Mapping[str, Any] = field(default_factory=dict)
    candidates: tuple[tuple[Any, Any, str], ...] = ()


def project(key: str, direction: NDArray[np.float64]) -> Statistic:
    """The statistic ``estimate[key] · direction`` (the release flattened).

    Examples
    --------
    >>> from dpviz.privacy import Ledger
    >>> stat = project("mean", np.array([1.0, 0.0]))
    >>> stat(Result(estimate={"mean": np.array([0.3, 0.9])}, ledger=Ledger()))
    0.3
    """
    def statistic(result: Result) -> float:
        return float(np.ravel(result.estimate[key]) @ direction)

    return statistic


def norm_of(key: str) -> Statistic:
    """The statistic ``‖estimate[key]‖₂``."""
    def statistic(result: Result) -> float:
        return float(np.linalg.norm(np.ravel(result.estimate[key])))

    return statistic


def _mixture_mean(direction: NDArray[np.float64]) -> Statistic:
    def statistic(result: Result) -> float:
        weights = np.asarray(result.estimate["weights"], dtype=float)
        means = np.asarray(result.estimate["means"], dtype=float)
        return float(weights @ means @ direction)

    return statistic


def _diagonal_contrast(matrix: Callable[[Result], NDArray[np.float64]]) -> Statistic:
    def statistic(result: Result) -> float:
        m = matrix(result)
        return float(m[0, 0] - m[1, 1])

    return statistic


def _factor_model(result: Result) -> NDArray[np.float64]:
    loadings = np.asarray(result.estimate["loadings"], dtype=float)
    return np.asarray(loadings @ loadings.T + np.diag(result.estimate["noise_variances"]))


def _score_product(u: int, v: int) -> Statistic:
    def statistic(result: Result) -> float:
        scores = np.asarray(result.diagnostics["scores"], dtype=float)
        return float(scores[u] * scores[v])

    return statistic


CORNER = np.array([1.0, 1.0]) / math.sqrt(2.0)


def replace_row_pair(base: NDArray[np.float64], row: ArrayLike, row_prime: ArrayLike, *,
                     description: str, statistic: Statistic, statistic_label: str,
                     **params: Any) -> NeighbourPair:
    """D = ``base`` with row 0 set to ``row``; D′ the same with ``row_prime`` (replace-one).

    Examples
    --------
    >>> pair = replace_row_pair(np.zeros((3, 1)), [1.0], [-1.0], description="±1",
    ...                         statistic=project("mean", np.ones(1)), statistic_label="mean")
    >>> pair.data.ravel().tolist(), pair.neighbour.ravel().tolist()
    ([1.0, 0.0, 0.0], [-1.0, 0.0, 0.0])
    """
    d, d_prime = np.array(base, dtype=float), np.array(base, dtype=float)
    d[0], d_prime[0] = row, row_prime
    return NeighbourPair(d, d_prime, description, statistic, statistic_label, params)


def _corner_pair(base: NDArray[np.float64], statistic: Statistic, label: str,
                 **params: Any) -> NeighbourPair:
    """Row 0 at the corner u of the unit ball in D and at −u in D′; the other rows shared."""
    return replace_row_pair(
        base, CORNER, -CORNER, description=f"n = {len(base)} rows in 2-D; row 0 is at the "
        "corner u = (1, 1)/√2 of the unit ball in D and at the opposite corner −u in D′ (the "
        "worst case of the sensitivity proof)", statistic=statistic, statistic_label=label,
        radius=1.0, **params)


def _orthogonal_pair(n: int, d: int, statistic: Statistic, label: str,
                     **params: Any) -> NeighbourPair:
    """All rows at the origin but row 0: e₁ in D, e₂ in D′ (both on the unit sphere)."""
    x, y = np.zeros((n, d)), np.zeros((n, d))
    x[0, 0], y[0, 1] = 1.0, 1.0
    return NeighbourPair(
        x, y, f"n = {n} rows in {d}-D, all at the origin but row 0, which is e₁ in D and the "
        "orthogonal e₂ in D′ (both on the unit sphere: ‖xxᵀ − yyᵀ‖_F = √2, the worst case "
        "of the sensitivity proof)", statistic, label, {"radius": 1.0, **params})


def mean_pair() -> NeighbourPair:
    """The mean's pair: one row at +1 in D and at −1 in D′ (1-D, the full 2R/n)."""
    return replace_row_pair(
        np.zeros((10, 1)), [1.0], [-1.0], description="n = 10 rows in 1-D, all at 0 but row "
        "0, which is at +1 (the boundary of the unit ball) in D and at the antipode −1 in D′ "
        "(the worst case of the sensitivity proof, 2R/n in both L1 and L2)",
        statistic=project("mean", np.ones(1)), statistic_label="the released mean",
        radius=1.0)


#: Angles of the candidate rows on the unit circle (every 45°).
CIRCLE = tuple(np.pi * i / 4 for i in range(8))


def circle_candidates(base: NDArray[np.float64]) -> tuple[tuple[Any, Any, str], ...]:
    """Row 0 of ``base`` at one point of the unit circle in D and another in D′, every pair.

    Examples
    --------
    >>> len(circle_candidates(np.zeros((3, 2))))
    56
    """
    points = [np.array([np.cos(a), np.sin(a)]) for a in CIRCLE]
    datasets = []
    for x in points:
        d = np.array(base, dtype=float)
        d[0] = x
        datasets.append(d)  # one D per point, shared by its pairs
    return tuple((d, e, f"n = {len(base)} rows in 2-D; row 0 at ({x[0]:.2f}, {x[1]:.2f}) on "
                  f"the unit circle in D and at ({y[0]:.2f}, {y[1]:.2f}) in D′")
                 for d, x in zip(datasets, points, strict=True)
                 for e, y in zip(datasets, points, strict=True) if e is not d)


def mixture_pair(rows: int = 10, **params: Any) -> NeighbourPair:
    """A mixture's pair: the corner pair on a two-cluster instance of ``rows`` rows each, k = 2.

    Candidates (for the white-box audit): row 0 at any two of eight points of the unit circle,
    on the same clusters with ``max(rows, 100)`` rows each — where a row changes the releases
    most depends on which component the released parameters put it in, and with more rows the
    released covariances are tight enough to put it squarely in one.
    """
    pair = _corner_pair(_two_clusters(rows), _mixture_mean(CORNER),
                        "the mixture's mean Σⱼ wⱼμⱼ projected on u (unchanged by relabelling "
                        "the components)", k=2, **params)
    return replace(pair, candidates=circle_candidates(_two_clusters(max(rows, 100))))


def _two_clusters(rows: int) -> NDArray[np.float64]:
    """``rows`` rows at each of ±0.6·(−1, 1)/√2: two clusters across the corner u."""
    other = np.array([-1.0, 1.0]) / math.sqrt(2.0)
    return np.vstack([np.tile(0.6 * other, (rows, 1)), np.tile(-0.6 * other, (rows, 1))])


def covariance_pair() -> NeighbourPair:
    """A covariance's pair: orthogonal unit rows e₁ and e₂ (2-D)."""
    return _orthogonal_pair(10, 2, _diagonal_contrast(lambda r: r.estimate["covariance"]),
                            "the released Σ̂₁₁ − Σ̂₂₂")


def factor_pair() -> NeighbourPair:
    """Factor analysis's pair: orthogonal unit rows e₁ and e₂ (3-D, one factor)."""
    return _orthogonal_pair(10, 3, _diagonal_contrast(_factor_model),
                            "(WWᵀ + Ψ)₁₁ − (WWᵀ + Ψ)₂₂ of the fitted model (unchanged by a "
                            "factor's sign or order)", factors=1, iterations=5)


SBM_VERTICES = 3
SBM_EDGE = (1, 2)


def graph_pair(**params: Any) -> NeighbourPair:
    """An SBM's pair (edge DP): one edge of a 3-vertex path toggled."""
    u, v = SBM_EDGE
    # in both: the toggled edge is one of two, not the graph; it sorts last, so randomness
    # drawn edge by edge (exact recovery's split) lines up on the shared edge in both runs
    kept = np.array([[0, u]])
    return NeighbourPair(
        np.vstack([kept, [SBM_EDGE]]), kept, f"a {SBM_VERTICES}-vertex path; the edge "
        f"({u}, {v}) is present in D and absent in D′ (edge DP: one edge toggled), in a graph "
        "so small that the toggled pair is a third of the released pairs",
        _score_product(u, v),
        f"scores{u} · scores{v}, the product of the two vertices' released spectral scores "
        "(or noisy vote sums), unchanged by the sign of the eigenvector",
        {"n": SBM_VERTICES, "degree": 1.0, "signal": 1.0, **params})
