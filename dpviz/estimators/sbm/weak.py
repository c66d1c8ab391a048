"""Private weak recovery (seed 003, Algorithm 5.4) and the non-private projection baseline.

Release the certified projection ``X̄`` (:mod:`dpviz.estimators.sbm.projection`) with Gaussian noise
on its strict upper triangle, then take the sign of the top eigenvector of the noisy matrix. The
diagonal of every matrix in K is ``1/n``, so two neighbouring projections differ only off the
diagonal and ``‖X̄ − X̄′‖_F = √2·‖upper(X̄ − X̄′)‖``: the upper triangle has L2 sensitivity
``(Δ + 2τ*)/√2`` (plus a relative float margin). The Gaussian's σ comes from the budget solver
(analytic Gaussian under ``linear`` or ``pld`` accounting, ALGORITHMS.md §1.1); the eigenvector is
post-processing.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from scipy.sparse.linalg import ArpackNoConvergence

from dpviz.estimators.result import Result
from dpviz.estimators.sbm.common import (
    TIE_BREAKING,
    FloatArray,
    PreparedGraph,
    accounting,
    graph_input,
    guarantee,
    labels_from_scores,
    model,
    top_eigenvector,
    top_eigenvector_dense,
)
from dpviz.estimators.sbm.projection import (
    PARTIAL_VERTICES,
    TOLERANCE_FRACTION,
    UNCERTIFIED,
    NotCertifiedError,
    Projection,
    certified_projection,
    fingerprint,
    projection_sensitivity,
)
from dpviz.privacy import Allocation, Budget, Ledger, PlannedRelease, release, solve

#: Relative margin on the released sensitivity for floating-point error in X̄.
FLOAT_MARGIN = 1e-6
#: From this many vertices the top eigenvector comes from Lanczos: below it LAPACK's
#: ``evr`` takes under a millisecond, and above it Lanczos is faster (5× at n = 500).
LANCZOS_VERTICES = 200


def released_sensitivity(projection: Projection) -> float:
    """L2 sensitivity of the strict upper triangle of ``X̄``: ``(Δ + 2τ*)/√2`` plus margin.

    Examples
    --------
    >>> from dpviz.data.graphs import stochastic_block_model
    >>> p = certified_projection(stochastic_block_model(60, 20.0, 0.8), None, 20.0, 0.8)
    >>> bool(np.isclose(released_sensitivity(p), 1.04 * p.sensitivity / np.sqrt(2), rtol=1e-5))
    True
    """
    return (projection.sensitivity + 2 * projection.tolerance) / math.sqrt(2) * (1 + FLOAT_MARGIN)


def _projection_for(data: Any, n: int | None, radius: Any, degree: float, signal: float,
                    tolerance_fraction: float) -> tuple[Projection, bool]:
    """The certified projection: a :class:`PreparedGraph`'s if it matches, else computed."""
    graph = graph_input(data, n, radius, dense=True)
    degree, signal = model(degree, signal)
    if isinstance(data, PreparedGraph):
        projection = data.projection
        same = (projection.fingerprint == fingerprint(graph) and projection.degree == degree
                and projection.signal == signal
                and math.isclose(projection.tolerance,
                                 tolerance_fraction * projection.sensitivity))
        if not same:
            raise ValueError("the cached projection was computed for another graph, degree, "
                             "signal or tolerance; recompute it for this one")
        return projection, True
    tolerance = tolerance_fraction * projection_sensitivity(graph.n, degree, signal)
    return certified_projection(graph, None, degree, signal, tolerance=tolerance), False


def prepare_graph(data: Any, *, degree: float, signal: float, n: int | None = None,
                  tolerance_fraction: float = TOLERANCE_FRACTION) -> PreparedGraph:
    """The graph with its certified projection, for every later run to reuse.

    Pass the result as the data of ``weak_recovery`` or ``projection`` (any sbm estimator
    takes it): a page or a sweep over ε then projects once per graph.

    Examples
    --------
    >>> from dpviz.data.graphs import stochastic_block_model
    >>> g = stochastic_block_model(60, 20.0, 0.8, seed=0)
    >>> prepared = prepare_graph(g, degree=20.0, signal=0.8)
    >>> a, b = (private_weak_recovery(prepared, Budget(epsilon=e, delta=1e-6),
    ...                               rng=np.random.default_rng(0), degree=20.0, signal=0.8)
    ...         for e in (1.0, 4.0))
    >>> a.diagnostics["projection_cached"], b.diagnostics["certificate"] == a.diagnostics[
    ...     "certificate"]
    (True, True)
    """
    projection, _ = _projection_for(data, n, None, degree, signal, tolerance_fraction)
    return PreparedGraph(graph_input(data, n, None, dense=True), projection)


def release_projection(projection: Projection, budget: Budget, *, rng: np.random.Generator,
                       ledger: Ledger, part: str | None = None) -> tuple[FloatArray, Allocation]:
    """Release ``X̄``'s strict upper triangle with Gaussian noise; its top eigenvector.

    Returns the eigenvector of the noisy symmetric matrix (diagonal ``1/n``, public) and the
    allocation the budget solver gave the one release (recorded in ``ledger``).
    """
    plan = [PlannedRelease("projection, strict upper triangle", "gaussian",
                           released_sensitivity(projection), part=part)]
    allocation = solve(plan, budget)[plan[0].name]
    upper = np.triu_indices(projection.n, 1)
    noisy = _symmetric(np.asarray(release(projection.matrix[upper], allocation, rng=rng,
                                          ledger=ledger)), upper, projection.n)
    return _top_eigenvector(noisy), allocation


def _top_eigenvector(matrix: FloatArray) -> FloatArray:
    """The top eigenvector: LAPACK below :data:`LANCZOS_VERTICES` vertices, else Lanczos.

    Lanczos (ARPACK from a fixed start vector, so the same matrix gives the same answer) costs
    O(n²) a product where LAPACK first tridiagonalises (O(n³): 0.06–0.2 s at n = 1 000,
    minutes at n = 10 000); both give the eigenvector to rounding, and either is
    post-processing of the released matrix, so the guarantee does not depend on it. Should
    Lanczos not converge, LAPACK answers below :data:`PARTIAL_VERTICES` vertices, so whether
    a run answers does not depend on the noisy matrix there.
    """
    n = matrix.shape[0]
    if n < LANCZOS_VERTICES:
        return top_eigenvector_dense(matrix)
    try:
        return top_eigenvector(lambda v: matrix @ v, n)
    except ArpackNoConvergence:
        if n >= PARTIAL_VERTICES:
            raise
        return top_eigenvector_dense(matrix)


def _symmetric(values: FloatArray, upper: tuple[Any, Any], n: int) -> FloatArray:
    """``values`` on the strict upper triangle ``upper`` and its mirror, ``1/n`` on the diagonal."""
    matrix = np.zeros((n, n))
    matrix[upper] = values
    matrix += matrix.T
    np.fill_diagonal(matrix, 1.0 / n)
    return matrix


def private_weak_recovery(data: Any, budget: Budget, *, rng: np.random.Generator,
                          degree: float, signal: float, n: int | None = None,
                          tolerance_fraction: float = TOLERANCE_FRACTION,
                          exact_accounting: bool = True, radius: Any = None) -> Result:
    """Weak recovery with edge DP: noisy certified projection, then its top eigenvector.

    Parameters
    ----------
    data : Graph, networkx.Graph, array-like or PreparedGraph
        The graph (an edge array needs ``n``); a :func:`prepare_graph` result carries its
        projection, which is then reused (an ε move costs only the noise and one eigenvector).
    budget : Budget
        (ε, δ) with δ > 0, or ρ: one Gaussian release.
    rng : numpy.random.Generator
        The noise.
    degree, signal : float
        The public ``d`` and ``ε_s``.
    n : int, optional
        Vertices, for an edge array.
    tolerance_fraction : float
        ``τ*/Δ`` (ALGORITHMS.md §7's choice: 1/50).
    exact_accounting : bool
        Solve and record under ``pld`` (:func:`~dpviz.estimators.sbm.common.accounting`).
    radius : None
        Not used by the sbm task (refused if given).

    Returns
    -------
    Result
        ``estimate["labels"]`` (±1); ``diagnostics["scores"]`` the top eigenvector.
        A projection that cannot be certified gives ``failed`` and no labels.

    Examples
    --------
    >>> from dpviz.data.graphs import stochastic_block_model
    >>> g = stochastic_block_model(60, 20.0, 0.8, seed=0)
    >>> r = private_weak_recovery(g, Budget(epsilon=4.0, delta=1e-6),
    ...                           rng=np.random.default_rng(0), degree=20.0, signal=0.8)
    >>> sorted(set(r.estimate["labels"].tolist())), r.ledger.total().epsilon <= 4.0
    ([-1, 1], True)
    """
    started = time.perf_counter()
    budget = accounting(budget, exact_accounting)
    try:
        proj, cached = _projection_for(data, n, radius, degree, signal, tolerance_fraction)
    except NotCertifiedError as err:
        return Result(estimate={"labels": None}, ledger=Ledger(budget), failed=str(err),
                      not_private=UNCERTIFIED, choices=_choices(tolerance_fraction))
    ledger = Ledger(budget)
    scores, allocation = release_projection(proj, budget, rng=rng, ledger=ledger)
    return Result(
        estimate={"labels": labels_from_scores(scores)}, ledger=ledger,
        choices=_choices(tolerance_fraction) | {"accounting": budget.describe()},
        diagnostics={"scores": scores, "certificate": proj.certificate,
                     "tolerance": proj.tolerance, "sensitivity": proj.sensitivity,
                     "released_sensitivity": allocation.release.sensitivity,
                     "noise_scale": allocation.scale,
                     "eigendecompositions": proj.eigendecompositions + 1,
                     "iterations": proj.iterations, "seconds_projection": proj.seconds,
                     "projection_cached": cached, "guarantee": guarantee(budget),
                     "seconds": time.perf_counter() - started})


def _choices(tolerance_fraction: float) -> dict[str, Any]:
    return {"tolerance_fraction": tolerance_fraction,
            "noise": "Gaussian on the strict upper triangle, calibrated to (Δ + 2τ*)/√2",
            "solver": "Qi–Sun semismooth Newton, stopped by the duality-gap certificate",
            "rounding": "sign of the top eigenvector", "tie_breaking": TIE_BREAKING}


def nonprivate_projection(data: Any, budget: Budget, *, rng: np.random.Generator,
                          degree: float, signal: float, n: int | None = None,
                          tolerance_fraction: float = TOLERANCE_FRACTION,
                          radius: Any = None) -> Result:
    """The same projection without noise, then its top eigenvector (not private)."""
    proj, cached = _projection_for(data, n, radius, degree, signal, tolerance_fraction)
    scores = _top_eigenvector(proj.matrix)
    return Result(
        estimate={"labels": labels_from_scores(scores)}, ledger=Ledger(budget),
        choices=_choices(tolerance_fraction) | {"noise": "none: non-private reference"},
        not_private="non-private reference: the projection is used without noise",
        diagnostics={"scores": scores, "certificate": proj.certificate,
                     "tolerance": proj.tolerance, "sensitivity": proj.sensitivity,
                     "eigendecompositions": proj.eigendecompositions + 1,
                     "iterations": proj.iterations, "seconds_projection": proj.seconds,
                     "projection_cached": cached, "guarantee": "none: no noise"})
