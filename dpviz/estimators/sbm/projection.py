r"""The certified projection of weak recovery (seed 003, Algorithm 5.4; ALGORITHMS.md §7).

``Y(G) = (A(G) − (d/n)J)/(ε_s d)`` and ``X̂(G) = argmin_{X ∈ K} ‖Y − X‖_F`` over
``K = {X ⪰ 0, Xᵢᵢ = 1/n}``. Scaling by n, ``X̂ = NCM(nY)/n`` where NCM is the nearest
correlation matrix (the diagonal of Y does not matter: it is fixed on K).

**Sensitivity.** K is closed and convex, so the projection onto it is firmly non-expansive:
``‖X̂ − X̂′‖² ≤ ⟨X̂ − X̂′, Y − Y′⟩``. Graphs differing in the edge {u, v} give ``Y − Y′`` with
exactly two non-zero entries, ``(u, v)`` and ``(v, u)``, both ``±1/(ε_s d)``. Hence
``‖X̂ − X̂′‖² ≤ 2|X̂_uv − X̂′_uv|/(ε_s d)``. On K every ``|X_uv| ≤ √(X_uu X_vv) = 1/n``
(a PSD 2 × 2 minor), so ``|X̂_uv − X̂′_uv| ≤ 2/n`` and ``‖X̂ − X̂′‖ ≤ 2/√(ε_s d n)``; and by
Cauchy–Schwarz ``⟨X̂ − X̂′, Y − Y′⟩ ≤ ‖X̂ − X̂′‖·√2/(ε_s d)``, so ``‖X̂ − X̂′‖ ≤ √2/(ε_s d)``.
Together ``Δ = min(2/√(ε_s d n), √2/(ε_s d))``.

**Solver.** Qi & Sun (2006), a semismooth Newton method on the dual
``θ(y) = ½‖(G + Diag y)₊‖² − 1ᵀy``, ``G = nY``: each iteration one eigendecomposition of
``M = G + Diag y``, a Newton direction from the generalised Jacobian by preconditioned
conjugate gradients, and an Armijo line search (one more eigendecomposition per trial step).

**Certificate.** For any y and any feasible C (PSD, unit diagonal), with ``M = G + Diag y``,
the duality gap ``gap = ½‖C − M₊‖²_F + ⟨C, −M₋⟩`` bounds ``½‖C − C*‖²_F`` (the primal is
1-strongly convex), so ``τ_C = √(2 gap) ≥ ‖C − C*‖_F``. The feasible C is the PSD part
rescaled to unit diagonal, ``S M₊ S`` with ``S = diag(1/√(M₊)ᵢᵢ)``. The solver stops at the
first iterate with ``τ_C/n ≤ τ*`` for a **public** tolerance ``τ* = Δ/50`` (a choice), so the
released ``X̄ = C/n`` is within τ* of ``X̂`` on every graph and
``‖X̄(G) − X̄(G′)‖ ≤ Δ + 2τ*``: the noise is calibrated to that, never to the measured τ.
A solver that cannot certify within its iteration cap raises; it never releases.

**Large graphs** (n ≥ :data:`PARTIAL_VERTICES`). The same Newton iterations take only the top
of each spectrum: ``M`` is applied through the sparse graph and Lanczos (ARPACK) gives its
eigenpairs down to a first non-positive one (about √n of n near the solution), which is all
``M₊`` needs; the Newton direction approximates the Jacobian's negative eigenvalues by their
mean. The certificate needs no negative eigenpair: ``gap = ½‖C‖² − ⟨C, M⟩ + ½‖M₊‖²``, and
``‖M₊‖²`` is replaced by ``‖W‖²`` for ``W = P + μI``, which dominates ``M`` (checked by a
Cholesky factorisation of ``W − M − (μ/2)I``) and hence has ``‖W‖ ≥ ‖M₊‖`` — a missed
eigenvalue fails the check and that iterate is certified densely. So the released ``X̄`` is
again within τ* of the exact ``X̂`` on every graph: it is not the dense solver's ``X̄`` (another
iterate; the two differ by at most 2τ*), but the sensitivity argument above holds for it
unchanged, with the same ``Δ + 2τ*``.

References
----------
Chen, Cohen-Addad, d'Orsi, Epasto, Imola, Steurer & Tiegel, "Private estimation algorithms
for stochastic block models and mixture models", NeurIPS 2023 (arXiv 2301.04822), §5.
Qi & Sun, "A quadratically convergent Newton method for computing the nearest correlation
matrix", SIAM J. Matrix Anal. Appl. 28(2), 2006.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg
import scipy.sparse.linalg as spla
from numpy.typing import NDArray

from dpviz.data.graphs import Graph
from dpviz.estimators.sbm.common import graph_input, model

FloatArray = NDArray[np.float64]

#: τ* = TOLERANCE_FRACTION·Δ, ALGORITHMS.md §7's choice.
TOLERANCE_FRACTION = 0.02
#: Newton iterations before the solver gives up (it then raises; nothing is released).
MAX_ITERATIONS = 200
#: Relative floating-point slack added to the certificate (eigh's backward error is ~1e-15·‖M‖).
FLOAT_SLACK = 1e-12
ARMIJO = 1e-4
#: From this many vertices the solver works from the top of the spectrum
#: (:func:`_partial_correlation`) instead of dense eigendecompositions.
PARTIAL_VERTICES = 3_001
#: ``μ/‖M‖_F`` of the partial certificate's ``W = P + μI`` (:func:`partial_certificate`).
PARTIAL_MARGIN = 1e-12


#: A ⊥ from the solver is itself an output that depends on the private graph.
UNCERTIFIED = ("the solver did not certify the projection on this graph within its "
               "iteration cap; nothing was released, but whether this happens depends on the "
               "graph, so this outcome is not covered by the privacy guarantee")


class NotCertifiedError(ValueError):
    """The solver could not certify the public tolerance within its iteration cap."""


@dataclass(frozen=True)
class Projection:
    """A certified projection of one graph, reusable across privacy budgets.

    Attributes
    ----------
    matrix : ndarray
        ``X̄ = C/n`` (n × n, PSD, diagonal ``1/n``), within ``tolerance`` of ``X̂``.
    certificate : float
        ``τ_C/n``, the certified bound on ``‖X̄ − X̂‖_F`` (≤ ``tolerance``).
    tolerance : float
        The public ``τ*``.
    sensitivity : float
        ``Δ`` of the exact projection.
    eigendecompositions, iterations : int
        Work done by the solver.
    seconds : float
        Its wall-clock time.
    n : int
        Vertices.
    degree, signal : float
        The public model parameters ``Y`` was built with.
    fingerprint : str
        A digest of the edge list: a projection is reused only on its own graph.
    """

    matrix: FloatArray
    certificate: float
    tolerance: float
    sensitivity: float
    eigendecompositions: int
    iterations: int
    seconds: float
    n: int
    degree: float
    signal: float
    fingerprint: str


def projection_sensitivity(n: int, degree: float, signal: float) -> float:
    """``Δ = min(2/√(ε_s d n), √2/(ε_s d))``, the Frobenius sensitivity of ``X̂`` (module doc).

    Examples
    --------
    >>> round(projection_sensitivity(1000, 100.0, 0.5), 6)
    0.008944
    """
    return min(2 / math.sqrt(signal * degree * n), math.sqrt(2) / (signal * degree))


def fingerprint(graph: Graph) -> str:
    """A digest identifying the graph (its n and edge list)."""
    digest = hashlib.sha256(np.ascontiguousarray(graph.edges, dtype=np.int64).tobytes())
    digest.update(str(graph.n).encode())
    return digest.hexdigest()[:20]


def scaled_centred_adjacency(graph: Graph, degree: float, signal: float) -> FloatArray:
    """``G = nY = n(A − (d/n)J)/(ε_s d)`` with its diagonal set to 1 (it is irrelevant)."""
    n = graph.n
    scale = n / (signal * degree)
    g = np.full((n, n), -scale * degree / n)
    i, j = graph.edges[:, 0], graph.edges[:, 1]
    g[i, j] += scale
    g[j, i] += scale
    np.fill_diagonal(g, 1.0)
    return g


@dataclass
class _Spectrum:
    """``M = G + Diag y`` split by the sign of its eigenvalues (descending).

    A partial spectrum (:func:`_top_spectrum`) holds the top eigenpairs only, down to a
    first non-positive one, and ``negative_mean``, the mean of the eigenvalues it leaves out
    (from the trace); a full one has ``negative_mean = None``.
    """

    values: FloatArray
    vectors: FloatArray
    positive: int
    negative_mean: float | None = None

    @classmethod
    def of(cls, m: FloatArray) -> _Spectrum:
        values, vectors = np.linalg.eigh(m)
        values, vectors = values[::-1], vectors[:, ::-1]
        return cls(values, vectors, int(np.sum(values > 0)))

    def plus(self) -> FloatArray:
        r = self.positive
        p1 = self.vectors[:, :r]
        return (p1 * self.values[:r]) @ p1.T

    def plus_diagonal(self) -> FloatArray:
        r = self.positive
        return np.einsum("ij,ij,j->i", self.vectors[:, :r], self.vectors[:, :r],
                         self.values[:r])

    def theta(self, y: FloatArray) -> float:
        return 0.5 * float(np.sum(self.values[: self.positive] ** 2)) - float(y.sum())


def _jacobian(spectrum: _Spectrum) -> tuple[Callable[[FloatArray], FloatArray], FloatArray]:
    """The generalised Jacobian ``V h = diag(P(Ω ∘ PᵀDiag(h)P)Pᵀ)`` and its diagonal.

    Ω is 1 on pairs of positive eigenvalues, 0 on pairs of non-positive ones and
    ``λₖ/(λₖ − λₗ)`` across (Qi & Sun 2006, §3). Costs O(n² min(r, n − r)) per product.
    """
    n, r = spectrum.vectors.shape[0], spectrum.positive
    p, lam = spectrum.vectors, spectrum.values
    regulariser = 1e-10
    if spectrum.negative_mean is not None and 0 < r < n:
        return _partial_jacobian(spectrum, regulariser)
    if r == 0:
        return (lambda h: regulariser * h), np.full(n, regulariser)
    if r == n:
        return (lambda h: h.copy()), np.ones(n)
    p1, p2 = p[:, :r], p[:, r:]
    omega = lam[:r, None] / (lam[:r, None] - lam[None, r:])
    q1, q2 = p1 * p1, p2 * p2
    diagonal = q1.sum(axis=1) ** 2 + 2 * np.sum((q1 @ omega) * q2, axis=1)
    diagonal = np.maximum(diagonal, 1e-8)

    if r <= n - r:
        def apply(h: FloatArray) -> FloatArray:
            h1 = (h[:, None] * p1).T @ p  # P1ᵀ Diag(h) P, r × n
            k = np.concatenate([h1[:, :r], 2 * omega * h1[:, r:]], axis=1)
            return np.sum((p1 @ k) * p, axis=1) + regulariser * h
    else:
        complement = 1 - omega

        def apply(h: FloatArray) -> FloatArray:
            h2 = (h[:, None] * p2).T @ p  # P2ᵀ Diag(h) P, (n − r) × n
            k = np.concatenate([2 * complement.T * h2[:, :r], h2[:, r:]], axis=1)
            return h - np.sum((p2 @ k) * p, axis=1) + regulariser * h

    return apply, diagonal


def _partial_jacobian(spectrum: _Spectrum, regulariser: float
                      ) -> tuple[Callable[[FloatArray], FloatArray], FloatArray]:
    """:func:`_jacobian` from the positive eigenpairs only (an approximation).

    Every negative eigenvalue is taken as their mean λ̄, so ``Ωₖₗ ≈ λₖ/(λₖ − λ̄)`` and
    ``P₂P₂ᵀ = I − P₁P₁ᵀ``: O(n r²) per product. Only the Newton direction uses it (the
    line search and the certificate do not), so it changes how fast the solver gets
    there, not what it certifies.
    """
    r = spectrum.positive
    p1 = spectrum.vectors[:, :r]
    assert spectrum.negative_mean is not None
    weights = spectrum.values[:r] / (spectrum.values[:r] - spectrum.negative_mean)
    mass = np.sum(p1 * p1, axis=1)

    def apply(h: FloatArray) -> FloatArray:
        z = h[:, None] * p1  # Diag(h) P₁
        inner = p1 @ (p1.T @ z)  # P₁ P₁ᵀ Diag(h) P₁
        return (np.sum(inner * p1, axis=1)
                + 2 * np.sum((p1 * weights) * (z - inner), axis=1) + regulariser * h)

    diagonal = mass ** 2 + 2 * np.sum(p1 * p1 * weights, axis=1) * (1 - mass)
    return apply, np.maximum(diagonal, 1e-8)


def _conjugate_gradients(apply: Callable[[FloatArray], FloatArray], b: FloatArray,
                         diagonal: FloatArray, tolerance: float,
                         max_iterations: int) -> FloatArray:
    x = np.zeros_like(b)
    residual = b.copy()
    z = residual / diagonal
    direction = z.copy()
    rz = float(residual @ z)
    for _ in range(max_iterations):
        if float(np.linalg.norm(residual)) <= tolerance:
            break
        w = apply(direction)
        curvature = float(direction @ w)
        if curvature <= 0:
            break
        alpha = rz / curvature
        x += alpha * direction
        residual -= alpha * w
        z = residual / diagonal
        rz_next = float(residual @ z)
        direction = z + (rz_next / rz) * direction
        rz = rz_next
    return x


def duality_certificate(g: FloatArray, y: FloatArray,
                        spectrum: _Spectrum) -> tuple[float, FloatArray | None]:
    """``τ_C = √(2 gap) ≥ ‖C − C*‖_F`` and the feasible ``C = S M₊ S`` (``None``, ∞ if none).

    ``gap = ½‖C − M₊‖² + ⟨C, −M₋⟩`` for ``M = G + Diag y`` (module docstring).
    """
    plus = spectrum.plus()
    diagonal = np.diag(plus).copy()
    if not np.all(diagonal > 0):
        return math.inf, None
    s = 1 / np.sqrt(diagonal)
    c = s[:, None] * plus * s[None, :]
    np.fill_diagonal(c, 1.0)
    r = spectrum.positive
    p2, lam2 = spectrum.vectors[:, r:], spectrum.values[r:]
    negative_part = float(-np.sum(lam2 * np.sum(p2 * (c @ p2), axis=0)))
    gap = 0.5 * float(np.sum((c - plus) ** 2)) + max(negative_part, 0.0)
    slack = FLOAT_SLACK * float(np.linalg.norm(spectrum.values)) * math.sqrt(g.shape[0])
    return math.sqrt(2 * gap) + slack, c


@dataclass(frozen=True)
class CorrelationSolve:
    """The solver's answer on ``G``: ``C`` with ``‖C − NCM(G)‖_F ≤ certificate``."""

    matrix: FloatArray
    certificate: float
    eigendecompositions: int
    iterations: int


def nearest_correlation(g: FloatArray, target: float, *,
                        max_iterations: int = MAX_ITERATIONS) -> CorrelationSolve:
    """Qi–Sun semismooth Newton for the nearest correlation matrix, certified to ``target``.

    Stops at the first iterate whose certificate ``τ_C ≤ target`` (a public number), or
    raises :class:`NotCertifiedError` after ``max_iterations`` Newton steps.

    Examples
    --------
    >>> g = np.array([[1.0, 2.0], [2.0, 1.0]])
    >>> out = nearest_correlation(g, 1e-8)
    >>> out.matrix.round(6).tolist(), out.certificate <= 1e-8
    ([[1.0, 1.0], [1.0, 1.0]], True)
    """
    return _newton(lambda y: _Spectrum.of(g + np.diag(y)),
                   lambda y, spectrum: duality_certificate(g, y, spectrum),
                   1.0 - np.diag(g), target, max_iterations)


def _newton(spectrum_of: Callable[[FloatArray], _Spectrum],
            certify: Callable[[FloatArray, _Spectrum], tuple[float, FloatArray | None]],
            y: FloatArray, target: float, max_iterations: int) -> CorrelationSolve:
    """Semismooth Newton from the dual point ``y`` (:func:`nearest_correlation`).

    On the spectra ``spectrum_of`` gives; stopped by the first certificate ``certify``
    gives within ``target``.
    """
    n = y.size
    spectrum = spectrum_of(y)
    eigendecompositions = 1
    for iteration in range(max_iterations + 1):
        certificate, c = certify(y, spectrum)
        if c is not None and certificate <= target:
            return CorrelationSolve(c, certificate, eigendecompositions, iteration)
        if iteration == max_iterations:
            break
        gradient = spectrum.plus_diagonal() - 1.0
        norm = float(np.linalg.norm(gradient))
        apply, diagonal = _jacobian(spectrum)
        direction = _conjugate_gradients(apply, -gradient, diagonal,
                                         tolerance=min(0.1, norm) * norm,
                                         max_iterations=max(200, n))
        slope = float(gradient @ direction)
        if slope >= 0:  # not a descent direction (CG broke down): steepest descent
            direction, slope = -gradient, -norm * norm
        theta = spectrum.theta(y)
        step = 1.0
        for _ in range(60):
            trial_y = y + step * direction
            trial = spectrum_of(trial_y)
            eigendecompositions += 1
            if trial.theta(trial_y) <= theta + ARMIJO * step * slope:
                break
            step /= 2
        y, spectrum = trial_y, trial
    raise NotCertifiedError(
        f"the projection solver could not certify its public tolerance {target / n:.3g} "
        f"within {max_iterations} Newton iterations; nothing was released — try a larger "
        "tolerance fraction")


def _apply_m(adjacency: Any, scale: float, shift: float, diagonal: FloatArray,
             v: FloatArray) -> FloatArray:
    """``M v`` for ``M = scale·(A − shift·(J − I)) + Diag(diagonal)``, v a vector or a block."""
    return scale * (adjacency @ v - shift * (v.sum(axis=0) - v)) + (diagonal * v.T).T


def _top_spectrum(operator: spla.LinearOperator, k: int, start: FloatArray,
                  trace: float) -> _Spectrum | None:
    """The top eigenpairs of ``operator`` down to a first non-positive one (Lanczos, ARPACK).

    Asks for ``k`` and doubles it while all are positive; ``None`` when that reaches a
    quarter of n (then the dense spectrum is cheaper) or ARPACK does not converge.
    ``start`` fixes ARPACK's start vector, so the answer is deterministic.
    """
    n = operator.shape[0]
    while 4 * k <= n:
        try:
            values, vectors = spla.eigsh(operator, k=k, which="LA", v0=start,
                                         ncv=min(n, max(2 * k + 1, k + 40)))
        except spla.ArpackNoConvergence:
            return None
        values, vectors = values[::-1], vectors[:, ::-1]
        r = int(np.sum(values > 0))
        if r < k:
            return _Spectrum(values, vectors, r, (trace - float(values[:r].sum())) / (n - r))
        k *= 2
    return None


def _partial_correlation(graph: Graph, degree: float, signal: float, target: float,
                         max_iterations: int = MAX_ITERATIONS) -> CorrelationSolve:
    """:func:`nearest_correlation` of ``G = nY`` from the top of the spectrum only.

    ``M = G + Diag y`` is applied through the sparse adjacency (O(n·d) a product, no
    dense n × n until the end); each iteration takes the eigenpairs of ``M`` down to a
    first non-positive one (:func:`_top_spectrum`: about √n of them near the solution),
    which is all ``M₊`` needs; the Newton direction uses :func:`_partial_jacobian`. The
    start is ``y₀ = −λ_k(G)·1`` for the k-th largest eigenvalue of G, k = ⌈√n⌉, so that
    ``M₀`` has k − 1 positive eigenvalues (the default start has n/2). An iteration whose
    spectrum this cannot give (ARPACK does not converge, or more than n/4 positive
    eigenvalues) takes the dense one. The certificate is :func:`partial_certificate`.
    """
    n = graph.n
    scale, shift = n / (signal * degree), degree / n
    adjacency = graph.adjacency()
    edges = len(graph.edges)
    # ‖G‖²_F: 2|E| entries s(1 − d/n), the other off-diagonal ones −s·d/n, a unit diagonal
    g_norm2 = (scale ** 2 * (2 * edges * (1 - shift) ** 2 + (n * (n - 1) - 2 * edges)
                             * shift ** 2) + n)
    start = np.random.default_rng(20230111).normal(size=n)  # fixed: deterministic answers
    state: dict[str, Any] = {"k": math.ceil(math.sqrt(n)), "start": start}

    def operator(y: FloatArray) -> spla.LinearOperator:
        diagonal = 1.0 + y
        return spla.LinearOperator(
            (n, n), dtype=float, matvec=lambda v: _apply_m(adjacency, scale, shift,
                                                           diagonal, np.ravel(v)),
            matmat=lambda v: _apply_m(adjacency, scale, shift, diagonal, v))

    def dense_m(y: FloatArray) -> FloatArray:
        """``M`` for ``y``; the last one is kept for the certificate of the same ``y``."""
        last = state.pop("dense", None)
        if last is None or last[0] is not y:
            last = None  # freed before the next one is built
            m = scaled_centred_adjacency(graph, degree, signal)
            m[np.diag_indices(n)] += y
            last = (y, m)
        state["dense"] = last
        return last[1]

    def spectrum_of(y: FloatArray) -> _Spectrum:
        top = _top_spectrum(operator(y), state["k"] + 1, state["start"], n + float(y.sum()))
        if top is None:
            return _Spectrum.of(dense_m(y))
        state.pop("dense", None)  # a partial iteration: no n × n to keep
        state["k"] = top.positive + max(8, top.positive // 4)
        state["start"] = top.vectors[:, :max(top.positive, 1)].sum(axis=1) + 1e-3 * start
        return top

    def certify(y: FloatArray, spectrum: _Spectrum) -> tuple[float, FloatArray | None]:
        if spectrum.negative_mean is None:  # a dense iteration
            return duality_certificate(dense_m(y), y, spectrum)
        norm = math.sqrt(max(g_norm2 + 2 * float(y.sum()) + float(y @ y), 0.0))
        return partial_certificate(spectrum, y, norm, target,
                                   lambda v: _apply_m(adjacency, scale, shift, 1.0 + y, v),
                                   lambda: dense_m(y))

    try:
        edge = spla.eigsh(operator(np.zeros(n)), k=state["k"], which="LA", v0=start,
                          return_eigenvectors=False).min()
    except spla.ArpackNoConvergence:
        edge = 0.0
    return _newton(spectrum_of, certify, np.full(n, -float(edge)), target, max_iterations)


def partial_certificate(spectrum: _Spectrum, y: FloatArray, norm: float, target: float,
                        apply: Callable[[FloatArray], FloatArray],
                        dense: Callable[[], FloatArray]) -> tuple[float, FloatArray | None]:
    """:func:`duality_certificate` from the positive eigenpairs ``(Λ₁, P₁)`` of ``M`` only.

    With ``P = P₁Λ₁P₁ᵀ`` and ``C = S P S`` as there, ``gap = ½‖C‖² − ⟨C, M⟩ + ½‖M₊‖²``
    (the same number as ``½‖C − M₊‖² + ⟨C, −M₋⟩``: no negative eigenpair needed), and any
    ``W ⪰ M``, ``W ⪰ 0`` has ``‖W‖_F ≥ ‖M₊‖_F`` (Weyl: ``λᵢ(W) ≥ max(λᵢ(M), 0)``).
    ``W = P + μI`` with ``μ = PARTIAL_MARGIN·‖M‖_F`` is one when all of ``M``'s positive
    eigenvalues are in ``Λ₁``, which a Cholesky factorisation of ``W − M − (μ/2)I``
    checks; its ``‖W‖² = ‖Λ₁‖² + 2μ·tr Λ₁ + nμ²`` replaces ``‖M₊‖²``. So
    ``gap ≥ ½‖C − C*‖²`` holds whatever eigenpairs the Lanczos iterations found or missed
    (a missed one fails the check, and the dense spectrum decides this iterate).

    First an estimate from low-rank products (``apply`` = ``v ↦ Mv``); only an estimate
    within ``target`` forms the dense ``M`` (``dense()``), ``C`` and the check.
    """
    r = spectrum.positive
    lam, p1 = spectrum.values[:r], spectrum.vectors[:, :r]
    mu = PARTIAL_MARGIN * norm
    slack = FLOAT_SLACK * norm * math.sqrt(y.size)
    widen = mu * float(lam.sum()) + 0.5 * y.size * mu ** 2
    diagonal = (p1 * p1) @ lam
    if r == 0 or not np.all(diagonal > 0):
        return math.inf, None
    v = p1 / np.sqrt(diagonal)[:, None]  # C = V Λ₁ Vᵀ
    root = np.sqrt(lam)
    gram = root[:, None] * (v.T @ v) * root[None, :]
    estimate = (0.5 * float(np.sum(gram ** 2)) - float(np.sum((v * apply(v)) @ lam))
                + 0.5 * float(lam @ lam) + widen)
    if math.sqrt(2 * max(estimate, 0.0)) + slack > target:
        return math.sqrt(2 * max(estimate, 0.0)) + slack, None
    m = dense()
    plus = (p1 * lam) @ p1.T
    s = 1 / np.sqrt(np.diag(plus))
    c = s[:, None] * plus * s[None, :]
    np.fill_diagonal(c, 1.0)
    gap = 0.5 * float(np.sum((c - plus) ** 2)) + float(np.sum(c * (plus - m))) + widen
    plus -= m
    plus[np.diag_indices(y.size)] += mu / 2
    try:
        scipy.linalg.cholesky(plus, lower=True, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError:  # a positive eigenvalue was missed: the dense spectrum
        del plus
        return duality_certificate(m, y, _Spectrum.of(m))
    return math.sqrt(2 * max(gap, 0.0)) + slack, c


def certified_projection(graph_or_edges: Any, n: int | None, degree: float, signal: float, *,
                         tolerance: float | None = None, method: str = "auto") -> Projection:
    """Project ``Y(G)`` onto K, certified to a public tolerance (Algorithm 5.4, first step).

    It depends on the graph, n, d and ε_s only — not on the privacy budget — so a page can
    cache it and let every ε reuse it.

    Parameters
    ----------
    graph_or_edges : Graph, networkx.Graph or array-like
        The graph (an edge array needs ``n``).
    n : int, optional
        Vertices, for an edge array.
    degree, signal : float
        The public ``d`` and ``ε_s``.
    tolerance : float, optional
        The public ``τ*`` (default ``Δ/50``).
    method : {"auto", "dense", "partial"}
        The solver's spectra: full dense eigendecompositions (:func:`nearest_correlation`),
        or the top of the spectrum through the sparse graph (:func:`_partial_correlation`);
        ``"auto"``: partial from :data:`PARTIAL_VERTICES` vertices. Either stops at a
        certified ``τ_C ≤ τ*``, so the privacy argument (module docstring) holds for both;
        their matrices differ by at most ``2τ*``.

    Returns
    -------
    Projection

    Raises
    ------
    ValueError
        Bad input, n above the projection limit, or no certificate within the cap.

    Examples
    --------
    >>> from dpviz.data.graphs import stochastic_block_model
    >>> g = stochastic_block_model(60, 20.0, 0.8, seed=0)
    >>> p = certified_projection(g, None, 20.0, 0.8)
    >>> bool(p.certificate <= p.tolerance), np.allclose(np.diag(p.matrix), 1 / 60)
    (True, True)
    """
    start = time.perf_counter()
    graph = graph_input(graph_or_edges, n, None, dense=True)
    degree, signal = model(degree, signal)
    sensitivity = projection_sensitivity(graph.n, degree, signal)
    tau = TOLERANCE_FRACTION * sensitivity if tolerance is None else float(tolerance)
    if not tau > 0 or math.isinf(tau):
        raise ValueError(f"the projection tolerance must be > 0 and finite, got {tolerance}")
    if method not in ("auto", "dense", "partial"):
        raise ValueError(f"method must be one of auto, dense, partial, got {method!r}")
    if method == "partial" or (method == "auto" and graph.n >= PARTIAL_VERTICES):
        solved = _partial_correlation(graph, degree, signal, tau * graph.n)
    else:
        solved = nearest_correlation(scaled_centred_adjacency(graph, degree, signal),
                                     tau * graph.n)
    return Projection(matrix=solved.matrix / graph.n, certificate=solved.certificate / graph.n,
                      tolerance=tau, sensitivity=sensitivity,
                      eigendecompositions=solved.eigendecompositions,
                      iterations=solved.iterations, seconds=time.perf_counter() - start,
                      n=graph.n, degree=degree, signal=signal, fingerprint=fingerprint(graph))
