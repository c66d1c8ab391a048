"""What every SBM estimator shares: input checks, the spectral step, labels from scores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.linalg
import scipy.sparse.linalg as spla
from numpy.typing import NDArray

from dpviz.core import limits
from dpviz.core.entry import Param
from dpviz.data.graphs import Graph, as_graph
from dpviz.privacy import Budget

if TYPE_CHECKING:
    from dpviz.estimators.sbm.projection import Projection

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

DEGREE = Param("degree", "float", None, min=limits.SBM_DEGREE.low, max=limits.SBM_DEGREE.high,
               required=True, help="d, the model's average degree: a public input, never read "
                                   "off the private graph")
SIGNAL = Param("signal", "float", None, min=limits.SBM_SIGNAL.low, max=limits.SBM_SIGNAL.high,
               required=True, help="epsilon_s, the model's signal (public): p_in = "
                                   "(1 + epsilon_s)d/n, p_out = (1 - epsilon_s)d/n")
VERTICES = Param("n", "int", 0, min=0, max=limits.SBM_VERTICES.high,
                 help="number of vertices when the data is an edge list (ids 0 ... n-1); "
                      "0 takes it from the graph (networkx or Graph input)")
TIE_BREAKING = "a score of exactly 0 gets +1"


@dataclass(frozen=True)
class PreparedGraph:
    """A graph with its certified projection, computed once (by ``sbm.prepare_graph``).

    Every sbm estimator takes it as its data: the projection-based ones use the projection
    (it depends on the graph, d, ε_s and τ*, never on the privacy budget, so an ε move reuses
    it), the others the graph.

    Attributes
    ----------
    graph : Graph
        The validated graph.
    projection : Projection
        Its certified projection.
    """

    graph: Graph
    projection: Projection


def graph_input(data: Any, n: int | None, radius: Any, *, dense: bool) -> Graph:
    """Validate the graph and refuse what the sbm task cannot take.

    ``n`` is required for an edge array; ``None`` or 0 takes it from a graph object (or a
    :class:`PreparedGraph`).

    ``dense`` estimators (the projection) stop at ``limits.SBM_PROJECTION_VERTICES``.
    """
    if radius is not None:
        raise ValueError("the sbm task has no clipping radius: a graph's sensitivity comes "
                         "from one edge, not from a bound; leave radius out")
    if isinstance(data, PreparedGraph):
        data = data.graph
    graph = as_graph(data, n or None)  # n = 0: the registry's "from the graph"
    cap = limits.SBM_PROJECTION_VERTICES
    if dense and graph.n > cap:
        raise ValueError(f"the projection-based estimators take at most n = {cap} vertices "
                         f"(they hold dense {graph.n} × {graph.n} matrices); use spectral "
                         "or randomized_response for larger graphs")
    return graph


def model(degree: Any, signal: Any) -> tuple[float, float]:
    """The public model parameters ``(d, ε_s)``, validated."""
    return limits.SBM_DEGREE.check(degree), limits.SBM_SIGNAL.check(signal)


def kesten_stigum(degree: float, signal: float) -> float:
    """``ε_s² d``: weak recovery is possible (non-privately) iff it exceeds 1.

    Examples
    --------
    >>> kesten_stigum(100.0, 0.5)
    25.0
    """
    return signal * signal * degree


def guarantee(budget: Budget) -> str:
    """The one-line guarantee of a private run under ``budget``."""
    if budget.non_private:
        return "none: epsilon = inf (no noise)"
    if budget.rho is not None:
        return f"{budget.rho:g}-zCDP (edge)"
    if budget.delta == 0:
        return f"{budget.epsilon:g}-edge-DP"
    return f"({budget.epsilon:g}, {budget.delta:g})-edge-DP"


def labels_from_scores(scores: FloatArray) -> IntArray:
    """``sign(scores)`` as ±1 (:data:`TIE_BREAKING`)."""
    return np.where(scores >= 0, 1, -1).astype(np.int64)


def balanced_from_scores(scores: FloatArray) -> IntArray:
    """+1 on the ``⌊n/2⌋`` largest scores, −1 elsewhere (ties by vertex id: a stable sort)."""
    labels = np.full(scores.size, -1, dtype=np.int64)
    labels[np.argsort(-scores, kind="stable")[: scores.size // 2]] = 1
    return labels


def oriented(vector: FloatArray) -> FloatArray:
    """An eigenvector with its sign fixed: its largest-magnitude coordinate is positive."""
    return vector if vector[int(np.argmax(np.abs(vector)))] >= 0 else -vector


def top_eigenvector_dense(matrix: FloatArray) -> FloatArray:
    """The eigenvector of the largest eigenvalue of a symmetric matrix (LAPACK ``evr``)."""
    n = matrix.shape[0]
    _, vectors = scipy.linalg.eigh(matrix, subset_by_index=[n - 1, n - 1])
    return oriented(vectors[:, 0])


def top_eigenvector(matvec: Any, n: int) -> FloatArray:
    """The top eigenvector of a symmetric operator given by ``matvec`` (Lanczos, ARPACK).

    The start vector is fixed (a seeded draw independent of the data), so the answer is
    deterministic; it is not all-ones, which is orthogonal to balanced community vectors.
    """
    if n <= 3:
        dense = np.column_stack([matvec(e) for e in np.eye(n)])
        return top_eigenvector_dense((dense + dense.T) / 2)
    start = np.random.default_rng(20230111).normal(size=n)
    operator = spla.LinearOperator((n, n), matvec=matvec, dtype=float)
    _, vectors = spla.eigsh(operator, k=1, which="LA", v0=start, tol=1e-10,
                            maxiter=max(1000, 20 * n))
    return oriented(vectors[:, 0])


def centred_matvec(adjacency: Any, shift: float, scale: float = 1.0) -> Any:
    """``v ↦ scale·(A − shift·(J − I))v`` for a sparse symmetric ``A`` (no dense n × n)."""

    def matvec(v: FloatArray) -> FloatArray:
        v = np.ravel(v)
        return scale * (adjacency @ v - shift * (v.sum() - v))

    return matvec



EXACT_ACCOUNTING = Param(
    "exact_accounting", "bool", True, choice=True,
    help="compose with the privacy loss distribution (pld), exact for these plans of one "
         "release per part, instead of the accounting chosen (which can only add noise)")


def accounting(budget: Budget, exact: bool) -> Budget:
    """The budget to solve and record under: ``pld`` when ``exact`` and δ > 0, else as given.

    Each SBM estimator makes one release per data part; composing one release is exact under
    ``pld`` (the analytic Gaussian for a Gaussian, ε itself for a pure release), while zCDP
    or the moments accountant would only add noise.
    """
    if exact and budget.rho is None and budget.delta > 0 and not budget.non_private:
        return budget.with_method("pld")
    return budget


def pure_budget(budget: Budget) -> Budget:
    """The budget for a plan of pure releases only: composed linearly, so δ goes unused.

    Under ``pld`` with δ > 0 the solver would spend δ to raise each pure release's ε a
    little (still (ε, δ)-DP, but no longer the pure ε-DP these algorithms promise).
    """
    if budget.rho is None and not budget.non_private:
        return budget.with_method("linear")
    return budget

