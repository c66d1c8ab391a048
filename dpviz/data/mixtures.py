"""Synthetic Gaussian mixtures with known parameters, and the privacy-exposure demo.

The generator draws every parameter from its seed before it draws a single row, so the
parameters of a scenario do not change when only ``n`` changes, and it states a **public**
bound on the rows' norms computed from those parameters alone (never from the rows): the
radius of the ball the private estimators clip to (ALGORITHMS.md §1.3).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.core import limits

COVARIANCE_TYPES = ("spherical", "diagonal", "full")
WEIGHT_CHOICES = ("equal", "random")

# Diagonal and full covariances draw their variances from this range before the largest of
# all is scaled to sigma^2: standard deviations then differ by at most a factor of 2.
VARIANCE_RANGE = (0.25, 1.0)
# The public radius adds this many largest standard deviations to sqrt(trace): a row falls
# outside with probability at most exp(-Z^2/2) = exp(-8) < 3.4e-4 (Gaussian concentration).
RADIUS_Z = 4.0


@dataclass(frozen=True)
class Mixture:
    """A sample from a Gaussian mixture, with the parameters that generated it.

    Attributes
    ----------
    data : ndarray
        The rows, n × d.
    labels : ndarray
        Each row's component, n integers in ``0 … k−1``.
    weights : ndarray
        The mixing weights (k,), positive, summing to 1.
    means : ndarray
        The component means, k × d.
    covariances : ndarray
        The component covariances, k × d × d, symmetric positive definite.
    radius : float
        A public bound on the rows' norms: :func:`mixture_radius` of the true parameters.
        It is public because it is a function of the generator's parameters, not of the
        rows; a row lies outside it with probability below 3.4e-4 (far below in low d).
    sigma : float
        The largest standard deviation of any component along any direction,
        ``maxₖ √λ_max(Σₖ)``: the unit of ``separation``.
    separation : float
        The smallest distance between two means, in units of ``sigma``.
    """

    data: NDArray[np.float64]
    labels: NDArray[np.int64]
    weights: NDArray[np.float64]
    means: NDArray[np.float64]
    covariances: NDArray[np.float64]
    radius: float
    sigma: float
    separation: float

    @property
    def n(self) -> int:
        """Number of rows."""
        return int(self.data.shape[0])

    @property
    def d(self) -> int:
        """Number of columns."""
        return int(self.data.shape[1])

    @property
    def k(self) -> int:
        """Number of components."""
        return int(self.weights.shape[0])

    def split(self, test_fraction: float = 0.1, *, seed: int = 0) -> tuple[Mixture, Mixture]:
        """Split the rows at random into a training and a held-out test mixture.

        Both keep the true parameters and the public radius; only ``data`` and ``labels``
        are divided (the paper's 90/10 split is the default).

        Examples
        --------
        >>> train, test = gaussian_mixture(3, 2, 1000, seed=0).split(0.1, seed=1)
        >>> train.n, test.n
        (900, 100)
        """
        fraction = limits.check_number(
            limits.Limit("test_fraction", 0.0, 1.0, low_open=True, high_open=True),
            test_fraction)
        n_test = int(round(fraction * self.n))
        if not 1 <= n_test < self.n:
            raise ValueError(f"a test fraction of {fraction:g} of {self.n} rows leaves "
                             f"{n_test} test rows; both parts need at least one row")
        order = np.random.default_rng(seed).permutation(self.n)
        test, train = order[:n_test], order[n_test:]
        return (replace(self, data=self.data[train], labels=self.labels[train]),
                replace(self, data=self.data[test], labels=self.labels[test]))


def mixture_radius(means: ArrayLike, covariances: ArrayLike) -> float:
    """A public bound on the norm of a mixture's rows, from its parameters only.

    ``R = maxₖ (‖μₖ‖ + √tr Σₖ + 4·√λ_max(Σₖ))``. A row ``x = μₖ + Σₖ^{1/2} g`` has
    ``‖x‖ ≤ ‖μₖ‖ + ‖Σₖ^{1/2} g‖``; the norm ``‖Σₖ^{1/2} g‖`` has mean at most ``√tr Σₖ``
    and is ``√λ_max``-Lipschitz in the standard normal ``g``, so by Gaussian concentration
    it exceeds that mean by ``4√λ_max`` with probability at most ``e^{−8} < 3.4·10⁻⁴``
    (in two dimensions the true rate is below 10⁻⁶).

    Examples
    --------
    >>> round(mixture_radius([[0.0, 0.0]], [np.eye(2)]), 4)  # sqrt(2) + 4
    5.4142
    """
    mu = np.atleast_2d(np.asarray(means, dtype=float))
    cov = np.asarray(covariances, dtype=float).reshape(mu.shape[0], mu.shape[1], mu.shape[1])
    largest = np.linalg.eigvalsh(cov)[:, -1].clip(min=0.0)
    trace = np.trace(cov, axis1=1, axis2=2).clip(min=0.0)
    return float(np.max(np.linalg.norm(mu, axis=1) + np.sqrt(trace)
                        + RADIUS_Z * np.sqrt(largest)))


def _parse_weights(weights: str | Sequence[float] | ArrayLike, k: int,
                   rng: np.random.Generator) -> NDArray[np.float64]:
    if isinstance(weights, str):
        text = weights.strip().lower()
        if text == "equal":
            return np.full(k, 1.0 / k)
        if text == "random":
            # Half equal, half Dirichlet(1, …, 1): random, yet every weight is >= 1/(2k),
            # so no component is so small that it draws (almost) no rows.
            return 0.5 / k + 0.5 * rng.dirichlet(np.ones(k))
        cells = [c for c in text.replace(";", ",").split(",") if c.strip()]
        try:
            values = np.array([float(c) for c in cells])
        except ValueError:
            raise ValueError(f"weights must be 'equal', 'random' or {k} comma-separated "
                             f"positive numbers summing to 1, got {weights!r}") from None
    else:
        try:
            values = np.asarray(weights, dtype=float).ravel()
        except (TypeError, ValueError):
            raise ValueError(f"weights must be 'equal', 'random' or {k} positive numbers "
                             f"summing to 1, got {weights!r}") from None
    if values.size != k:
        raise ValueError(f"weights must have one value per component (k = {k}), "
                         f"got {values.size}")
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError(f"weights must all be positive numbers, got {values.tolist()}")
    if abs(values.sum() - 1.0) > 1e-6:
        raise ValueError(f"weights must sum to 1, got a sum of {values.sum():g}")
    return values / values.sum()


def _covariance_factors(kind: str, k: int, d: int,
                        rng: np.random.Generator) -> NDArray[np.float64]:
    """Square roots ``Lₖ`` (Σₖ = LₖLₖᵀ) with ``maxₖ λ_max(Σₖ) = 1`` exactly."""
    if kind == "spherical":
        return np.broadcast_to(np.eye(d), (k, d, d)).copy()
    variances = rng.uniform(*VARIANCE_RANGE, size=(k, d))
    variances /= variances.max()
    factors = np.sqrt(variances)[:, None, :] * np.eye(d)  # diag(√v), k × d × d
    if kind == "full":
        for j in range(k):
            q, r = np.linalg.qr(rng.standard_normal((d, d)))
            q *= np.where(np.diag(r) < 0, -1.0, 1.0)  # Haar-distributed orthogonal matrix
            factors[j] = q @ factors[j]
    return factors


def _spread_directions(k: int, d: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """``k`` well-spread points, centred on the origin, by farthest-point sampling.

    From a pool of points uniform in the unit ball, each pick is the pool point farthest
    from those already picked, so no two means crowd together by chance.
    """
    pool_size = max(256, 64 * k)
    pool = rng.standard_normal((pool_size, d))
    pool *= (rng.uniform(size=(pool_size, 1)) ** (1.0 / d)
             / np.linalg.norm(pool, axis=1, keepdims=True))
    picked = [int(np.argmax(np.linalg.norm(pool, axis=1)))]
    distance = np.linalg.norm(pool - pool[picked[0]], axis=1)
    for _ in range(k - 1):
        picked.append(int(np.argmax(distance)))
        distance = np.minimum(distance, np.linalg.norm(pool - pool[picked[-1]], axis=1))
    points = pool[picked]
    return points - points.mean(axis=0)


def _min_pairwise_distance(points: NDArray[np.float64]) -> float:
    if len(points) < 2:
        return math.inf
    gaps = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    return float(gaps[np.triu_indices(len(points), 1)].min())


def gaussian_mixture(k: int = 3, d: int = 2, n: int = 10_000, *, separation: float = 6.0,
                     weights: str | Sequence[float] = "equal",
                     covariance: str = "spherical", seed: int = 0) -> Mixture:
    r"""Draw ``n`` rows from a random Gaussian mixture with ``k`` components in ``d`` dimensions.

    Parameters
    ----------
    k : int
        Number of components, 1 to 100.
    d : int
        Dimension, 1 to 200.
    n : int
        Number of rows, at least ``2k`` (two per component) and at most 1 000 000.
    separation : float
        The smallest distance between two means, in standard deviations: exactly
        ``separation × σ`` with ``σ = maxₖ √λ_max(Σₖ)``, the largest standard deviation of
        any component in any direction. 0 puts every mean at the origin; with ``k = 1`` it
        has no effect (the one mean is the origin).
    weights : "equal", "random", or a sequence of k numbers (or a comma-separated string)
        ``equal``: ``1/k`` each. ``random``: half ``1/k`` and half a Dirichlet(1, …, 1)
        draw, so each weight is at least ``1/(2k)``. Given weights must be positive and sum
        to 1 (within 1e-6); they are renormalised to sum to 1 exactly.
    covariance : {"spherical", "diagonal", "full"}
        ``spherical``: every component ``σ²I``. ``diagonal``: each component's variances
        drawn uniformly from ``[σ²/4, σ²]`` (standard deviations within a factor of 2), the
        largest of all equal to ``σ²``. ``full``: such a diagonal turned by a random
        (Haar-distributed) orthogonal matrix, one per component.
    seed : int
        Seed of ``numpy.random.default_rng``; the same arguments give the same mixture.
        The parameters are drawn before the rows, so they do not depend on ``n``.

    Returns
    -------
    Mixture
        Rows, labels, the true weights, means and covariances, and the public ``radius``.

    Raises
    ------
    ValueError
        A sentence naming the parameter, its range and the value received.

    Notes
    -----
    Scale: means are placed by farthest-point sampling (well spread), centred on the origin
    and spaced to the requested separation; then the whole mixture is scaled so that its
    public radius (:func:`mixture_radius`) is 1. The data therefore fill the unit ball —
    the default public bound of every estimator — whatever k, d and the separation; the
    separation changes the shape of the mixture, not its extent. At the default scenario
    (n = 10 000, d = 2, k = 3, separation 6) σ ≈ 0.11 and the rows' largest norm is ≈ 0.8.

    Examples
    --------
    >>> mix = gaussian_mixture(3, 2, 1000, separation=6, seed=0)
    >>> mix.data.shape, mix.means.shape, mix.covariances.shape, round(mix.radius, 9)
    ((1000, 2), (3, 2), (3, 2, 2), 1.0)
    >>> gaussian_mixture(3, 2, 5)
    Traceback (most recent call last):
    ...
    ValueError: n = 5 rows are too few for k = 3 components: at least 6 are needed (2 per component)
    """
    k = limits.check_integer(limits.COMPONENTS, k)
    d = limits.check_integer(limits.DIMENSIONS, d)
    n = limits.check_integer(limits.SAMPLE_SIZE, n)
    if k > n:
        raise ValueError(f"k must be at most n: {k} components cannot come from {n} rows")
    if n < limits.MIN_ROWS_PER_COMPONENT * k:
        raise ValueError(f"n = {n} rows are too few for k = {k} components: at least "
                         f"{limits.MIN_ROWS_PER_COMPONENT * k} are needed "
                         f"({limits.MIN_ROWS_PER_COMPONENT} per component)")
    separation = limits.SEPARATION.check(separation)
    kind = str(covariance).strip().lower()
    if kind not in COVARIANCE_TYPES:
        raise ValueError(f"covariance must be one of {', '.join(COVARIANCE_TYPES)}, "
                         f"got {covariance!r}")
    seed = limits.check_integer(limits.SEED, seed)
    rng = np.random.default_rng(seed)

    # Parameters first, in units of sigma (the largest standard deviation is 1).
    pi = _parse_weights(weights, k, rng)
    factors = _covariance_factors(kind, k, d, rng)
    means = np.zeros((k, d))
    if k > 1:
        directions = _spread_directions(k, d, rng)
        means = directions * (separation / _min_pairwise_distance(directions))
    covariances = factors @ factors.transpose(0, 2, 1)
    scale = 1.0 / mixture_radius(means, covariances)
    means *= scale
    factors *= scale
    covariances = factors @ factors.transpose(0, 2, 1)  # exactly symmetric PSD

    labels = rng.choice(k, size=n, p=pi).astype(np.int64)
    noise = rng.standard_normal((n, d))
    data = np.empty((n, d))
    for j in range(k):
        rows = labels == j
        data[rows] = means[j] + noise[rows] @ factors[j].T
    return Mixture(data=data, labels=labels, weights=pi, means=means, covariances=covariances,
                   radius=mixture_radius(means, covariances), sigma=scale,
                   separation=separation)


@dataclass(frozen=True)
class ExposureDemo:
    """The privacy-exposure data (DP-EM paper, Fig. 1).

    Attributes
    ----------
    data : ndarray
        Rows in 2-D, all inside the unit ball.
    labels : ndarray
        Components: 0, 1, 2 are the groups of people, 3 is the lone person's component.
    lone_index : int
        The row of the person who is alone in component 3 (the last row).
    radius : float
        1.0: a public bound, true by construction (every row is built inside the unit ball).
    scale : int
        The size multiplier: component 3 holds ``scale`` people (one when ``scale = 1``).
    """

    data: NDArray[np.float64]
    labels: NDArray[np.int64]
    lone_index: int
    radius: float
    scale: int

    @property
    def k(self) -> int:
        """Number of components (4)."""
        return int(self.labels.max()) + 1


# Fig. 1 has 104 people: three groups and one person alone in a far corner.
_EXPOSURE_GROUPS = (((0.05, -0.45), 0.08, 36), ((0.45, 0.0), 0.08, 38),
                    ((0.5, -0.5), 0.06, 29))
_LONE_PERSON = (-0.7, 0.55)


def exposure_demo(scale: int = 1, seed: int = 0) -> ExposureDemo:
    """A small 2-D data set in which one person is alone in a component (paper Fig. 1).

    Three groups of people (36, 38 and 29 at ``scale = 1``) sit in the lower right of the
    unit ball and one person sits alone at (−0.7, 0.55): non-private EM puts the fourth
    component's mean exactly on that person, so the released mean *is* their data. With
    ``scale = 50`` every group is 50 times larger and the far component holds 50 people
    (the lone person and 49 neighbours near them), as in the paper's right panel: the
    private estimate approaches the non-private one, and that mean is now an aggregate.

    Parameters
    ----------
    scale : int
        Size multiplier, 1 to 100 (n = 104 × scale).
    seed : int
        Seed of the draws around the fixed group centres.

    Examples
    --------
    >>> demo = exposure_demo()
    >>> demo.data.shape, demo.lone_index, int((demo.labels == 3).sum())
    ((104, 2), 103, 1)
    >>> demo.data[demo.lone_index].tolist()
    [-0.7, 0.55]
    """
    scale = limits.check_integer(limits.EXPOSURE_SCALE, scale)
    seed = limits.check_integer(limits.SEED, seed)
    rng = np.random.default_rng(seed)
    parts, labels = [], []
    for label, (center, spread, size) in enumerate(_EXPOSURE_GROUPS):
        parts.append(np.asarray(center) + spread * rng.standard_normal((size * scale, 2)))
        labels.append(np.full(size * scale, label))
    neighbours = np.asarray(_LONE_PERSON) + 0.05 * rng.standard_normal((scale - 1, 2))
    parts += [neighbours, np.asarray([_LONE_PERSON])]
    labels.append(np.full(scale, len(_EXPOSURE_GROUPS)))
    data = np.concatenate(parts)
    # A synthetic construction, not a bound read from anyone's data: keep every row
    # inside the ball of radius 0.95 so the stated public radius 1 holds exactly.
    norms = np.linalg.norm(data, axis=1, keepdims=True)
    data *= np.minimum(1.0, 0.95 / norms)
    return ExposureDemo(data=data, labels=np.concatenate(labels).astype(np.int64),
                        lone_index=len(data) - 1, radius=1.0, scale=scale)
