"""The semimetric on Gaussian components and mixtures that the Private Populous Estimator uses.

Arbas 2023 (seed 004, with Ashtiani & Liaw), §5 and §6.2, as restated in ALGORITHMS.md §5:

* ``dist_COV(Σ₁, Σ₂) = max(‖Σ₂^{-1/2}Σ₁Σ₂^{-1/2} − I‖_F, ‖Σ₁^{-1/2}Σ₂Σ₁^{-1/2} − I‖_F)``,
  computed without square roots from the generalised eigenvalues λ of ``(Σ₁, Σ₂)``
  (the eigenvalues of ``Σ₂⁻¹Σ₁``): ``max(‖λ − 1‖₂, ‖1/λ − 1‖₂)``;
* ``dist_COMP`` of two components ``(w, μ, Σ)``: the largest of the weight gap, the mean gap in
  both Mahalanobis norms ``‖v‖_Σ = √(vᵀΣ⁻¹v)``, and ``dist_COV``;
* ``dist_PARAM`` of two k-mixtures: ``min over permutations π of max_i dist_COMP(Fᵢ, F'_π(i))``.

The Private Populous Estimator only asks whether ``dist_PARAM ≤ threshold``: threshold the
k × k matrix of ``dist_COMP`` and ask for a perfect matching of the bipartite graph it defines
(:func:`within_distance`), with no permutations and no search. The exact ``dist_PARAM``
(:func:`dist_param`) — a bottleneck assignment, found by bisection over the k² candidate
values with the same matching test — is for diagnostics and tests.

Every distance here is invariant under one affine map applied to both arguments
(``x ↦ Ax + b``), so the data's units never matter.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

#: The approximation constant of the triangle inequality: dist_COMP and dist_PARAM satisfy a
#: 1-restricted (3/2)-approximate triangle inequality (thesis Lemmas 5.0.1 and 6.2.2; the
#: thesis's proof has a gap, the claim holds numerically — ALGORITHMS.md §5).
Z = 1.5


def _matrix(value: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {arr.shape}")
    return arr


def generalized_eigenvalues(sigma1: ArrayLike, sigma2: ArrayLike) -> NDArray[np.float64]:
    """The eigenvalues λ of ``Σ₂⁻¹Σ₁`` (``Σ₁v = λΣ₂v``), both matrices positive definite.

    Raises
    ------
    ValueError
        When a matrix is not square, the shapes differ, or ``Σ₂`` is not positive definite.

    Examples
    --------
    >>> generalized_eigenvalues([[4.0, 0.0], [0.0, 1.0]], np.eye(2)).tolist()
    [1.0, 4.0]
    """
    a = _matrix(sigma1, "sigma1")
    b = _matrix(sigma2, "sigma2")
    if a.shape != b.shape:
        raise ValueError(f"the covariances must have the same shape, got {a.shape} and {b.shape}")
    try:
        values = scipy.linalg.eigh(a, b, eigvals_only=True)
    except np.linalg.LinAlgError:
        raise ValueError("a covariance matrix is not positive definite") from None
    return np.asarray(values, dtype=np.float64)


def dist_cov_from_eigenvalues(values: ArrayLike) -> NDArray[np.float64] | float:
    """``max(‖λ − 1‖₂, ‖1/λ − 1‖₂)`` over the last axis of ``values`` (``inf`` if some λ ≤ 0).

    Examples
    --------
    >>> dist_cov_from_eigenvalues([1.0, 2.0])
    1.0
    """
    lam = np.asarray(values, dtype=float)
    with np.errstate(divide="ignore"):
        out = np.maximum(np.linalg.norm(lam - 1.0, axis=-1),
                         np.linalg.norm(1.0 / lam - 1.0, axis=-1))
    out = np.where(np.any(lam <= 0, axis=-1), np.inf, out)
    return float(out) if out.ndim == 0 else out


def dist_cov(sigma1: ArrayLike, sigma2: ArrayLike) -> float:
    """``dist_COV``: :func:`dist_cov_from_eigenvalues` of the generalised eigenvalues of (Σ₁, Σ₂).

    Equal to ``max(‖Σ₂^{-1/2}Σ₁Σ₂^{-1/2} − I‖_F, ‖Σ₁^{-1/2}Σ₂Σ₁^{-1/2} − I‖_F)``.

    Examples
    --------
    >>> dist_cov(2 * np.eye(2), np.eye(2))
    1.4142135623730951
    >>> dist_cov(np.eye(3), np.eye(3))
    0.0
    """
    return float(dist_cov_from_eigenvalues(generalized_eigenvalues(sigma1, sigma2)))


@dataclass(frozen=True)
class Components:
    """m Gaussian components ``(w, μ, Σ)`` with the inverse Cholesky factors of their Σ.

    Build with :meth:`of`; ``whiteners[i]`` is ``Lᵢ⁻¹`` for ``Σᵢ = LᵢLᵢᵀ``, so
    ``‖v‖_Σᵢ = ‖Lᵢ⁻¹v‖`` and ``Lᵢ⁻¹ΣⱼLᵢ⁻ᵀ`` has the generalised eigenvalues of (Σⱼ, Σᵢ).
    """

    weights: NDArray[np.float64]
    means: NDArray[np.float64]
    covariances: NDArray[np.float64]
    whiteners: NDArray[np.float64]

    @classmethod
    def of(cls, weights: ArrayLike, means: ArrayLike, covariances: ArrayLike,
           name: str = "the mixture") -> Components:
        """Validate the shapes (m weights, m × d means, m × d × d covariances) and factor Σ.

        Raises
        ------
        ValueError
            For inconsistent shapes or a covariance that is not positive definite.
        """
        w = np.asarray(weights, dtype=float).ravel()
        mu = np.asarray(means, dtype=float)
        cov = np.asarray(covariances, dtype=float)
        m = w.size
        if mu.ndim != 2 or mu.shape[0] != m or cov.shape != (m, mu.shape[1], mu.shape[1]):
            raise ValueError(f"{name} needs m weights, m × d means and m × d × d covariances, "
                             f"got shapes {w.shape}, {mu.shape}, {cov.shape}")
        try:
            factors = np.linalg.cholesky(cov)
        except np.linalg.LinAlgError:
            raise ValueError(f"a covariance matrix of {name} is not positive definite") from None
        return cls(w, mu, cov, np.linalg.inv(factors))

    def __len__(self) -> int:
        return int(self.weights.size)


def pair_distances(a: Components, b: Components, ia: ArrayLike,
                   ib: ArrayLike) -> NDArray[np.float64]:
    """``dist_COMP(a[ia[p]], b[ib[p]])`` for every p, vectorised.

    The covariance term uses the Frobenius form: ``Lᵦ⁻¹ΣₐLᵦ⁻ᵀ`` is symmetric with the
    generalised eigenvalues λ of (Σₐ, Σᵦ), so ``‖Lᵦ⁻¹ΣₐLᵦ⁻ᵀ − I‖_F = ‖λ − 1‖₂``, and the other
    direction gives ``‖1/λ − 1‖₂`` — no eigendecomposition.
    """
    ia = np.asarray(ia, dtype=np.intp)
    ib = np.asarray(ib, dtype=np.intp)
    if a.means.shape[1] != b.means.shape[1]:
        raise ValueError(f"the mixtures must have the same dimension, got {a.means.shape[1]} "
                         f"and {b.means.shape[1]}")
    eye = np.eye(a.means.shape[1])
    gap = a.means[ia] - b.means[ib]
    mean_gap = np.maximum(np.linalg.norm(np.einsum("pij,pj->pi", a.whiteners[ia], gap), axis=1),
                          np.linalg.norm(np.einsum("pij,pj->pi", b.whiteners[ib], gap), axis=1))
    a_in_b = np.einsum("pij,pjk,plk->pil", b.whiteners[ib], a.covariances[ia], b.whiteners[ib])
    b_in_a = np.einsum("pij,pjk,plk->pil", a.whiteners[ia], b.covariances[ib], a.whiteners[ia])
    cov_gap = np.maximum(np.linalg.norm(a_in_b - eye, axis=(1, 2)),
                         np.linalg.norm(b_in_a - eye, axis=(1, 2)))
    return np.asarray(np.maximum(np.abs(a.weights[ia] - b.weights[ib]),
                                 np.maximum(mean_gap, cov_gap)), dtype=np.float64)


def mahalanobis(vector: ArrayLike, sigma: ArrayLike) -> float:
    """``‖v‖_Σ = √(vᵀΣ⁻¹v)``.

    Examples
    --------
    >>> mahalanobis([2.0, 0.0], [[4.0, 0.0], [0.0, 1.0]])
    1.0
    """
    v = np.asarray(vector, dtype=float).ravel()
    one = Components.of([1.0], [v], [_matrix(sigma, "sigma")], name="sigma")
    return float(np.linalg.norm(one.whiteners[0] @ v))


def dist_comp(w1: float, mu1: ArrayLike, sigma1: ArrayLike, w2: float, mu2: ArrayLike,
              sigma2: ArrayLike) -> float:
    """``dist_COMP``: the largest of ``|w₁ − w₂|``, ``‖μ₁ − μ₂‖`` in both Σ's, and ``dist_COV``.

    Examples
    --------
    >>> dist_comp(0.5, [0.0, 0.0], np.eye(2), 0.4, [0.3, 0.0], np.eye(2))
    0.3
    """
    a = Components.of([w1], [np.asarray(mu1, dtype=float).ravel()], [_matrix(sigma1, "sigma1")],
                      name="the first component")
    b = Components.of([w2], [np.asarray(mu2, dtype=float).ravel()], [_matrix(sigma2, "sigma2")],
                      name="the second component")
    return float(pair_distances(a, b, [0], [0])[0])


def component_distances(first: tuple[ArrayLike, ArrayLike, ArrayLike],
                        second: tuple[ArrayLike, ArrayLike, ArrayLike]) -> NDArray[np.float64]:
    """The k × k′ matrix of ``dist_COMP`` between the components of two mixtures.

    Each mixture is ``(weights, means, covariances)``.

    Examples
    --------
    >>> a = ([0.5, 0.5], [[0.0], [5.0]], [[[1.0]], [[1.0]]])
    >>> b = ([0.5, 0.5], [[5.0], [0.0]], [[[1.0]], [[1.0]]])
    >>> component_distances(a, b).tolist()
    [[5.0, 0.0], [0.0, 5.0]]
    """
    a = Components.of(*first, name="the first mixture")
    b = Components.of(*second, name="the second mixture")
    ia, ib = np.meshgrid(np.arange(len(a)), np.arange(len(b)), indexing="ij")
    return pair_distances(a, b, ia.ravel(), ib.ravel()).reshape(len(a), len(b))


def perfect_matching(allowed: ArrayLike) -> NDArray[np.intp] | None:
    """A perfect matching of a square boolean matrix's bipartite graph, or ``None``.

    ``matching[i]`` is the column matched to row ``i``
    (``scipy.sparse.csgraph.maximum_bipartite_matching``, Hopcroft–Karp).

    Examples
    --------
    >>> perfect_matching([[True, True], [True, False]]).tolist()
    [1, 0]
    >>> perfect_matching([[True, False], [True, False]]) is None
    True
    """
    mask = np.asarray(allowed, dtype=bool)
    if mask.ndim != 2 or mask.shape[0] != mask.shape[1]:
        raise ValueError(f"a perfect matching needs a square matrix, got shape {mask.shape}")
    if not mask.any(axis=1).all():
        return None
    matching = maximum_bipartite_matching(csr_matrix(mask.astype(np.int8)), perm_type="column")
    return None if np.any(matching < 0) else np.asarray(matching, dtype=np.intp)


def within_distance(distances: ArrayLike, threshold: float) -> bool:
    """Whether ``dist_PARAM ≤ threshold``, from the k × k matrix of ``dist_COMP``.

    True exactly when some permutation pairs every component with one within ``threshold``:
    a perfect matching of the thresholded matrix.

    Examples
    --------
    >>> within_distance([[0.1, 0.9], [0.2, 0.8]], 0.5)
    False
    >>> within_distance([[0.1, 0.3], [0.2, 0.8]], 0.5)
    True
    """
    return perfect_matching(np.asarray(distances, dtype=float) <= threshold) is not None


def bottleneck(distances: ArrayLike) -> tuple[float, NDArray[np.intp]]:
    """``min over permutations π of max_i D[i, π(i)]`` and a permutation attaining it.

    Bisection over the sorted distinct entries with the perfect-matching test.

    Examples
    --------
    >>> value, pi = bottleneck([[0.1, 0.9], [0.2, 0.8]])
    >>> value, pi.tolist()
    (0.8, [0, 1])
    """
    dist = np.asarray(distances, dtype=float)
    values = np.unique(dist[np.isfinite(dist)])
    if values.size == 0:
        return float("inf"), np.arange(dist.shape[0], dtype=np.intp)
    lo, hi = 0, values.size - 1
    best = perfect_matching(dist <= values[hi])
    if best is None:
        return float("inf"), np.arange(dist.shape[0], dtype=np.intp)
    while lo < hi:
        mid = (lo + hi) // 2
        found = perfect_matching(dist <= values[mid])
        if found is None:
            lo = mid + 1
        else:
            hi, best = mid, found
    return float(values[lo]), best


def dist_param(first: tuple[ArrayLike, ArrayLike, ArrayLike],
               second: tuple[ArrayLike, ArrayLike, ArrayLike]) -> float:
    """``dist_PARAM`` of two k-mixtures, each ``(weights, means, covariances)``.

    Examples
    --------
    >>> a = ([0.5, 0.5], [[0.0], [5.0]], [[[1.0]], [[1.0]]])
    >>> b = ([0.6, 0.4], [[5.0], [0.0]], [[[1.0]], [[1.0]]])
    >>> round(dist_param(a, b), 6)
    0.1
    """
    distances = component_distances(first, second)
    if distances.shape[0] != distances.shape[1]:
        raise ValueError(f"dist_PARAM compares mixtures with the same number of components, "
                         f"got {distances.shape[0]} and {distances.shape[1]}")
    return bottleneck(distances)[0]


#: Component pairs whose dist_COMP is computed at once (bounds the memory of the einsums).
PAIR_BATCH = 100_000


def _close_pairs(mixtures: Components, chunk_of: NDArray[np.intp],
                 threshold: float) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Component pairs (a < b, different mixtures) with ``dist_COMP ≤ threshold``.

    Candidates come from the sorted weights (``|wₐ − wᵦ| ≤ threshold`` is necessary), a block
    of rows at a time, so memory grows with the candidates of one block, never with m².
    """
    order = np.argsort(mixtures.weights, kind="stable")
    sorted_w = mixtures.weights[order]
    upper = np.searchsorted(sorted_w, sorted_w + threshold, side="right")
    found_a: list[NDArray[np.intp]] = []
    found_b: list[NDArray[np.intp]] = []
    position = 0
    while position < order.size:
        stop = position + 1
        total = upper[position] - position - 1
        while stop < order.size and total + upper[stop] - stop - 1 <= PAIR_BATCH:
            total += upper[stop] - stop - 1
            stop += 1
        lengths = np.maximum(upper[position:stop] - np.arange(position, stop) - 1, 0)
        first = np.repeat(np.arange(position, stop), lengths)
        offsets = np.arange(first.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        ia, ib = order[first], order[first + 1 + offsets]
        keep = chunk_of[ia] != chunk_of[ib]
        ia, ib = ia[keep], ib[keep]
        for start in range(0, ia.size, PAIR_BATCH):
            sa, sb = ia[start:start + PAIR_BATCH], ib[start:start + PAIR_BATCH]
            near = pair_distances(mixtures, mixtures, sa, sb) <= threshold
            found_a.append(sa[near])
            found_b.append(sb[near])
        position = stop
    if not found_a:
        return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp)
    a, b = np.concatenate(found_a), np.concatenate(found_b)
    return np.minimum(a, b), np.maximum(a, b)


def mixtures_within(mixtures: Components, k: int, threshold: float) -> NDArray[np.bool_]:
    """The t × t matrix of ``dist_PARAM(Yᵢ, Yⱼ) ≤ threshold`` for t mixtures of k components.

    ``mixtures`` holds the t·k components in order (mixture i is rows ``ik … ik + k − 1``).
    Component pairs are filtered by their weight gap first (cheap), ``dist_COMP`` is computed
    for the rest, and a pair of mixtures with at least k close component pairs gets the
    perfect-matching test (every permutation at once for small k, else
    :func:`perfect_matching`). The diagonal is True
    (``dist(Y, Y) = 0``).

    Examples
    --------
    >>> comps = Components.of([0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
    ...                       [[0.0], [5.0], [5.0], [0.0], [9.0], [0.0]], np.ones((6, 1, 1)))
    >>> mixtures_within(comps, 2, 0.1).astype(int).tolist()
    [[1, 1, 0], [1, 1, 0], [0, 0, 1]]
    """
    m = len(mixtures)
    if k < 1 or m % k:
        raise ValueError(f"{m} components do not split into mixtures of k = {k}")
    t = m // k
    chunk_of = np.repeat(np.arange(t), k)
    a, b = _close_pairs(mixtures, chunk_of, threshold)
    within = np.eye(t, dtype=bool)
    if a.size == 0:
        return within
    key = chunk_of[a] * t + chunk_of[b]
    keys, slot, counts = np.unique(key, return_inverse=True, return_counts=True)
    blocks = np.zeros((keys.size, k, k), dtype=bool)
    blocks[slot, a % k, b % k] = True
    rows, cols = np.divmod(keys, t)
    matched = _perfect_blocks(blocks) & (counts >= k)
    within[rows[matched], cols[matched]] = True
    within[cols[matched], rows[matched]] = True
    return within


#: Up to this k, perfect matchings of many small blocks are found by trying every permutation
#: at once (k! ≤ 120 vectorised checks); above it, one Hopcroft–Karp call per block.
PERMUTATION_K = 5


def _perfect_blocks(blocks: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Whether each k × k boolean block has a perfect matching."""
    p, k, _ = blocks.shape
    if k > PERMUTATION_K:
        return np.array([perfect_matching(b) is not None for b in blocks], dtype=bool)
    found = np.zeros(p, dtype=bool)
    rows = np.arange(k)
    for perm in itertools.permutations(range(k)):
        found |= blocks[:, rows, list(perm)].all(axis=1)
    return found
