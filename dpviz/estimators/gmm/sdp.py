r"""dpviz's own solver for the clustering program of the stability learner (seed 003 §6).

The degree-2 (SDP) surrogate of the paper's sum-of-squares program (ALGORITHMS.md, end of §7):

    W(X) = argmin ‖J − W‖²_F  over  K(X) = {W = Wᵀ ⪰ 0, Wᵢᵢ = 1, 0 ≤ Wᵢⱼ ≤ 1,
                                             Wᵢⱼ = 0 whenever ‖xᵢ − xⱼ‖ > ρ}

where ``J`` is the all-ones matrix and ``ρ`` a public distance (the bounded-distance constraint
standing in for the paper's moment constraints: two points farther apart than ρ are never
put in one cluster). There is no row-sum or cardinality constraint, so the identity lies in
every ``K(X)``: the program is feasible on every input, which is what makes it stable.

**Dual method.** Write ``B(X)`` for the box-and-pattern set (unit diagonal, ``[0, 1]`` on near
pairs, ``0`` on far pairs) and ``P_B`` for the entrywise projection onto it. With
``f(W) = ½‖W − J‖²`` on ``B`` and the PSD cone as the second set, Fenchel duality gives the
dual ``max_{S ⪰ 0} D(S)``, ``D(S) = min_{W ∈ B} ½‖W − J‖² − ⟨S, W⟩``, attained at
``W_B(S) = P_B(J + S)``; ``−D`` is convex with 1-Lipschitz gradient ``W_B(S)``. The solver runs
FISTA (Beck & Teboulle 2009) with step 1 on it: ``S ← (Y − W_B(Y))₊`` (one eigendecomposition
per iteration), with a monotone restart when the dual value drops.

**Certificate.** ``W_B(S)`` is in ``B`` but not PSD. Mixing it with the identity,
``C = (W_B + tI)/(1 + t)`` with ``t = max(0, −λ_min(W_B))``, keeps the unit diagonal, the box
and the zero pattern and makes it PSD, so ``C ∈ K(X)``. Weak duality (``⟨S, W*⟩ ≥ 0`` for
``S, W* ⪰ 0``) gives ``D(S) ≤ f(W*)``, and ``f`` is 1-strongly convex, so
``½‖C − W*‖²_F ≤ f(C) − f(W*) ≤ f(C) − D(S) = gap`` and ``τ = √(2 gap) ≥ ‖C − W*‖_F``.
The solver stops at the first iterate with ``τ ≤ tol`` — a **public** tolerance given by the
caller — and returns that feasible ``C``; it raises :class:`NotConvergedError` (nothing is
released) if it cannot certify within its iteration cap. A floating-point slack
(``1e-12·m·‖·‖``) is added to τ.

References
----------
Chen, Cohen-Addad, d'Orsi, Epasto, Imola, Steurer & Tiegel, "Private estimation algorithms
for stochastic block models and mixture models", NeurIPS 2023 (arXiv 2301.04822), §6.
Beck & Teboulle, "A fast iterative shrinkage-thresholding algorithm", SIAM J. Imaging Sci.
2(1), 2009.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

#: Dual iterations before the solver gives up (it then raises; nothing is released).
MAX_ITERATIONS = 2000
#: Iterations between certificate checks (each costs one extra eigenvalue computation).
CHECK_EVERY = 5
#: Relative floating-point slack added to the certificate.
FLOAT_SLACK = 1e-12


class NotConvergedError(RuntimeError):
    """The solver could not certify its answer within the iteration cap."""


@dataclass(frozen=True)
class ClusteringSolve:
    """The solver's answer: ``matrix ∈ K(X)`` with ``‖matrix − W*‖_F ≤ certificate``.

    ``iterations`` dual steps and ``eigendecompositions`` were used; ``gap`` is the final
    duality gap and ``dual`` the dual certificate ``S ⪰ 0``.
    """

    matrix: FloatArray
    certificate: float
    gap: float
    iterations: int
    eigendecompositions: int
    dual: FloatArray


def far_pairs(points: ArrayLike, distance: float) -> BoolArray:
    """``Fᵢⱼ = ‖xᵢ − xⱼ‖ > distance``: the pairs the program forces to 0.

    Examples
    --------
    >>> far_pairs([[0.0], [0.5], [2.0]], 1.0).astype(int).tolist()
    [[0, 0, 1], [0, 0, 1], [1, 1, 0]]
    """
    x = np.atleast_2d(np.asarray(points, dtype=float))
    sq = np.einsum("ij,ij->i", x, x)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (x @ x.T)
    far: BoolArray = d2 > distance * distance
    np.fill_diagonal(far, False)
    return far


def project_box(matrix: FloatArray, far: BoolArray) -> FloatArray:
    """``P_B``: entries clipped into ``[0, 1]``, far pairs set to 0, unit diagonal."""
    out = np.clip(matrix, 0.0, 1.0)
    out[far] = 0.0
    np.fill_diagonal(out, 1.0)
    return out


def _psd_part(matrix: FloatArray) -> tuple[FloatArray, float]:
    """``(M₊, λ_min(M))`` from one eigendecomposition of the symmetric ``M``."""
    values, vectors = np.linalg.eigh(matrix)
    keep = values > 0
    v = vectors[:, keep]
    return (v * values[keep]) @ v.T, float(values[0])


def feasible_point(box_point: FloatArray) -> FloatArray:
    """``(W_B + tI)/(1 + t)``, ``t = max(0, −λ_min(W_B))``: a point of ``K(X)`` from one of ``B``.

    Examples
    --------
    >>> c = feasible_point(np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]]))
    >>> bool(np.linalg.eigvalsh(c).min() >= -1e-12), np.diag(c).tolist()
    (True, [1.0, 1.0, 1.0])
    """
    t = max(0.0, -float(np.linalg.eigvalsh(box_point)[0]))
    if t == 0.0:
        return box_point.copy()
    out = (box_point + t * np.eye(box_point.shape[0])) / (1.0 + t)
    np.fill_diagonal(out, 1.0)
    return out


def _dual_value(s: FloatArray, box_point: FloatArray) -> float:
    """``D(S) = ½‖W_B − J‖² − ⟨S, W_B⟩`` at ``W_B = P_B(J + S)``."""
    return 0.5 * float(np.sum((box_point - 1.0) ** 2)) - float(np.sum(s * box_point))


def certificate(candidate: FloatArray, s: FloatArray, far: BoolArray) -> tuple[float, float]:
    """``(τ, gap)``, ``τ = √(2 gap) ≥ ‖candidate − W*‖_F`` for a feasible candidate, PSD ``S``.

    ``gap = ½‖C − J‖² − D(S)`` (module docstring); ``S`` must be PSD and ``C ∈ K(X)``.
    """
    box_point = project_box(1.0 + s, far)
    primal = 0.5 * float(np.sum((candidate - 1.0) ** 2))
    gap = max(primal - _dual_value(s, box_point), 0.0)
    m = candidate.shape[0]
    slack = FLOAT_SLACK * m * (m + float(np.linalg.norm(s)))
    return math.sqrt(2.0 * gap) + slack, gap


def solve_clustering_program(points: ArrayLike, distance: float, *, tolerance: float,
                             max_iterations: int = MAX_ITERATIONS) -> ClusteringSolve:
    """Certified projection of ``J`` onto ``K(X)`` (module docstring).

    Parameters
    ----------
    points : array-like
        m × d rows.
    distance : float
        The public distance ρ > 0: pairs farther apart are forced to 0.
    tolerance : float
        Public certificate target: the answer is within ``tolerance`` of ``W*`` in Frobenius
        norm. Must be > 0.
    max_iterations : int
        Cap on dual iterations.

    Returns
    -------
    ClusteringSolve

    Raises
    ------
    ValueError
        A non-positive distance or tolerance, or non-finite points.
    NotConvergedError
        No certified iterate within ``max_iterations``.

    Examples
    --------
    >>> x = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [3.0, 3.0], [3.1, 3.0]])
    >>> out = solve_clustering_program(x, 1.0, tolerance=1e-6)
    >>> out.matrix.round(3).tolist()[0]
    [1.0, 1.0, 1.0, 0.0, 0.0]
    >>> out.certificate <= 1e-6
    True
    """
    x = np.atleast_2d(np.asarray(points, dtype=float))
    if not np.all(np.isfinite(x)):
        raise ValueError("the clustering program needs finite points")
    if not distance > 0 or not math.isfinite(distance):
        raise ValueError(f"distance must be > 0 and finite, got {distance}")
    if not tolerance > 0:
        raise ValueError(f"tolerance must be > 0, got {tolerance}")
    far = far_pairs(x, distance)
    m = x.shape[0]
    s = np.zeros((m, m))
    y = s
    momentum = 1.0
    previous = -math.inf
    eigs = 0
    for it in range(1, max_iterations + 1):
        box_point = project_box(1.0 + y, far)
        s_next, _ = _psd_part(y - box_point)
        eigs += 1
        value = _dual_value(s_next, project_box(1.0 + s_next, far))
        if value < previous - FLOAT_SLACK * m * m:
            # D dropped: restart the momentum from the last iterate (O'Donoghue & Candès)
            momentum, y = 1.0, s
        else:
            previous = value
            next_momentum = (1.0 + math.sqrt(1.0 + 4.0 * momentum * momentum)) / 2.0
            y = s_next + ((momentum - 1.0) / next_momentum) * (s_next - s)
            s, momentum = s_next, next_momentum
        if it % CHECK_EVERY == 0 or it == max_iterations:
            candidate = feasible_point(project_box(1.0 + s, far))
            eigs += 1
            tau, gap = certificate(candidate, s, far)
            if tau <= tolerance:
                return ClusteringSolve(candidate, tau, gap, it, eigs, s)
    raise NotConvergedError(
        f"the clustering program was not certified to {tolerance:.3g} within "
        f"{max_iterations} iterations; raise the tolerance or lower the subsample size")
