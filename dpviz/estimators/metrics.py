"""Accuracy metrics of a result against the truth, by task.

Two layers. Array functions (:func:`match_components`, :func:`matched_mean_error`,
:func:`weight_error`, :func:`covariance_error`, :func:`log_likelihood_per_point`,
:func:`nicv`, :func:`adjusted_rand`, …) compute from plain parameters. The registry
:data:`METRICS` maps each task's metric names to functions ``fn(result, truth) -> float``
taking a :class:`~dpviz.estimators.result.Result` and a :class:`Truth`; pages, ``solve`` and sweeps
call those by name (``python -m dpviz list`` lists them). A metric that does not apply to a result
(a ⊥ run, an estimator that does not estimate covariances, no held-out data) is NaN, never an error,
so one inapplicable column does not stop a sweep.

Mixture components come in no particular order: every mixture error first matches the
estimated components to the true ones by the Hungarian algorithm on the distances between
means (Kuhn, 1955), then compares matched pairs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.estimators.result import Result

if TYPE_CHECKING:
    from dpviz.data.mixtures import Mixture

# A covariance whose smallest eigenvalue is below -PSD_TOLERANCE × (its largest, or 1) is
# not positive semi-definite; smaller negative values are rounding and are floored.
PSD_TOLERANCE = 1e-8
# Eigenvalues are floored at EIGEN_FLOOR × the largest: a singular component is scored as a
# very thin Gaussian (a finite, very low log-likelihood off its support) instead of failing.
EIGEN_FLOOR = 1e-10


@dataclass(frozen=True)
class Truth:
    """What a result is scored against; every field may be missing (its metrics are NaN).

    Attributes
    ----------
    weights : ndarray or None
        True mixing weights (k,).
    means : ndarray or None
        True means (k × d); the matching uses them.
    covariances : ndarray or None
        True covariances (k × d × d).
    labels : ndarray or None
        The true component of each row of ``data``.
    data : ndarray or None
        The rows the estimator saw (n × d), in data units: NICV and the adjusted Rand index
        are computed on them.
    test_data : ndarray or None
        Held-out rows for the test log-likelihood (never shown to the estimator).
    matrix : ndarray or None
        The matrix a covariance estimator targets (d × d: ``XᵀX/n`` of the unclipped rows,
        ALGORITHMS.md §6).
    """

    weights: NDArray[np.float64] | None = None
    means: NDArray[np.float64] | None = None
    covariances: NDArray[np.float64] | None = None
    labels: NDArray[np.int64] | None = None
    data: NDArray[np.float64] | None = None
    test_data: NDArray[np.float64] | None = None
    matrix: NDArray[np.float64] | None = None

    @classmethod
    def from_mixture(cls, mixture: Mixture, test_data: ArrayLike | None = None) -> Truth:
        """The truth of a generated mixture (its parameters, rows and labels).

        Examples
        --------
        >>> from dpviz.data import gaussian_mixture
        >>> train, test = gaussian_mixture(3, 2, 1000, seed=0).split(0.1)
        >>> truth = Truth.from_mixture(train, test.data)
        >>> truth.means.shape, truth.test_data.shape
        ((3, 2), (100, 2))
        """
        return cls(weights=mixture.weights, means=mixture.means,
                   covariances=mixture.covariances, labels=mixture.labels, data=mixture.data,
                   test_data=None if test_data is None else np.asarray(test_data, dtype=float))

    @classmethod
    def from_labels(cls, data: ArrayLike, labels: ArrayLike,
                    test_data: ArrayLike | None = None) -> Truth:
        """The truth of labelled data (e.g. a bundled set): each class is a component.

        Weights are the class shares, means the class means, covariances the classes'
        maximum-likelihood covariances (divided by the class size).

        Examples
        --------
        >>> truth = Truth.from_labels([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1])
        >>> truth.weights.tolist(), truth.means.tolist(), truth.covariances.ravel().tolist()
        ([0.5, 0.5], [[1.0], [11.0]], [1.0, 1.0])
        """
        x = np.atleast_2d(np.asarray(data, dtype=float))
        y = np.asarray(labels).ravel()
        if len(y) != len(x):
            raise ValueError(f"labels must give one label per row: {len(x)} rows, "
                             f"{len(y)} labels")
        classes, codes = np.unique(y, return_inverse=True)
        weights = np.bincount(codes, minlength=len(classes)) / len(y)
        means = np.stack([x[codes == j].mean(axis=0) for j in range(len(classes))])
        covariances = np.stack([
            (x[codes == j] - means[j]).T @ (x[codes == j] - means[j]) / np.sum(codes == j)
            for j in range(len(classes))])
        return cls(weights=weights, means=means, covariances=covariances,
                   labels=codes.astype(np.int64), data=x,
                   test_data=None if test_data is None else np.asarray(test_data, dtype=float))


# --- matching and errors on parameters ---

def match_components(true_means: ArrayLike, estimated_means: ArrayLike) -> NDArray[np.intp]:
    """Match estimated components to true ones: minimum total Euclidean distance of means.

    The Hungarian algorithm (``scipy.optimize.linear_sum_assignment``) on the k × k′ matrix
    of distances ``‖μⱼ − μ̃ₗ‖``.

    Parameters
    ----------
    true_means : array-like
        k × d.
    estimated_means : array-like
        k′ × d.

    Returns
    -------
    ndarray of int
        ``matching[j]`` is the estimated component matched to true component ``j``. When
        k′ < k the k′ estimated components are all matched and the ``k − k′`` true
        components left over get −1; when k′ > k every true component is matched and the
        extra estimated components are left out.

    Examples
    --------
    >>> match_components([[0.0, 0.0], [10.0, 0.0]], [[9.0, 1.0], [1.0, 0.0]]).tolist()
    [1, 0]
    >>> match_components([[0.0], [5.0], [10.0]], [[9.0], [1.0]]).tolist()
    [1, -1, 0]
    """
    mu = _means(true_means, "true_means")
    est = _means(estimated_means, "estimated_means")
    if mu.shape[1] != est.shape[1]:
        raise ValueError(f"the means must have the same dimension: the true ones have "
                         f"{mu.shape[1]}, the estimated ones {est.shape[1]}")
    distance = np.linalg.norm(mu[:, None, :] - est[None, :, :], axis=2)
    from scipy.optimize import linear_sum_assignment  # here: it costs a page's first run

    rows, cols = linear_sum_assignment(distance)
    matching = np.full(len(mu), -1, dtype=np.intp)
    matching[rows] = cols
    return matching


def _means(value: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a k × d table of means, got shape {arr.shape}")
    return arr


def matched_mean_error(true_means: ArrayLike, estimated_means: ArrayLike,
                       matching: ArrayLike | None = None) -> float:
    """Mean over components of ``‖μₖ − μ̃_π(k)‖`` after matching, in data units.

    With unequal numbers of components the mean is over the matched pairs (see
    :func:`match_components`).

    Examples
    --------
    >>> matched_mean_error([[0.0, 0.0], [10.0, 0.0]], [[10.0, 1.0], [0.0, 3.0]])
    2.0
    """
    mu = _means(true_means, "true_means")
    est = _means(estimated_means, "estimated_means")
    pi = match_components(mu, est) if matching is None else np.asarray(matching)
    matched = pi >= 0
    return float(np.mean(np.linalg.norm(mu[matched] - est[pi[matched]], axis=1)))


def weight_error(true_weights: ArrayLike, estimated_weights: ArrayLike,
                 matching: ArrayLike) -> float:
    """L1 distance of the weights after matching: ``Σₖ |πₖ − π̃_π(k)|``.

    Components left unmatched (unequal counts) count in full on either side, as if matched
    to a component of weight 0.

    Examples
    --------
    >>> weight_error([0.5, 0.25, 0.25], [0.25, 0.625, 0.125], [1, 0, 2])
    0.25
    """
    w = np.asarray(true_weights, dtype=float).ravel()
    v = np.asarray(estimated_weights, dtype=float).ravel()
    pi = np.asarray(matching)
    matched = pi >= 0
    unmatched_estimates = np.ones(len(v), dtype=bool)
    unmatched_estimates[pi[matched]] = False
    return float(np.abs(w[matched] - v[pi[matched]]).sum() + w[~matched].sum()
                 + v[unmatched_estimates].sum())


def covariance_error(true_covariances: ArrayLike, estimated_covariances: ArrayLike,
                     matching: ArrayLike) -> float:
    """Mean Frobenius distance ``‖Σₖ − Σ̃_π(k)‖_F`` over matched components.

    Examples
    --------
    >>> covariance_error([[[1.0]], [[4.0]]], [[[4.0]], [[3.0]]], [1, 0])  # |1 - 3|, |4 - 4|
    1.0
    """
    sigma = np.asarray(true_covariances, dtype=float)
    est = np.asarray(estimated_covariances, dtype=float)
    pi = np.asarray(matching)
    matched = pi >= 0
    diff = sigma[matched] - est[pi[matched]]
    return float(np.mean(np.linalg.norm(diff, axis=(1, 2))))


# --- errors on the data ---

def _log_joint(x: NDArray[np.float64], weights: ArrayLike, means: ArrayLike,
               covariances: ArrayLike) -> NDArray[np.float64]:
    """``log πₖ + log N(xᵢ; μₖ, Σₖ)``, n × k, from eigendecompositions (stable)."""
    mu = _means(means, "means")
    k, d = mu.shape
    if x.shape[1] != d:
        raise ValueError(f"the data have {x.shape[1]} columns but the means have {d}")
    w = np.asarray(weights, dtype=float).ravel()
    if w.shape != (k,) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"weights must be {k} non-negative numbers, got {w.tolist()}")
    cov = np.asarray(covariances, dtype=float)
    if cov.shape != (k, d, d) or not np.all(np.isfinite(cov)):
        raise ValueError(f"covariances must be {k} finite {d} × {d} matrices, got shape "
                         f"{cov.shape}")
    cov = (cov + cov.transpose(0, 2, 1)) / 2
    eigenvalues, eigenvectors = np.linalg.eigh(cov)
    largest = eigenvalues[:, -1]
    for j in range(k):
        if eigenvalues[j, 0] < -PSD_TOLERANCE * max(abs(largest[j]), 1.0):
            raise ValueError(f"the covariance of component {j + 1} is not positive "
                             f"semi-definite (smallest eigenvalue {eigenvalues[j, 0]:.3g})")
    floor = EIGEN_FLOOR * np.maximum(largest, 1e-12)
    eigenvalues = np.maximum(eigenvalues, floor[:, None])
    out = np.empty((x.shape[0], k))
    with np.errstate(divide="ignore"):  # a zero weight is log 0 = -inf, which logsumexp takes
        log_w = np.log(w)
    for j in range(k):
        projected = (x - mu[j]) @ eigenvectors[j] / np.sqrt(eigenvalues[j])
        out[:, j] = (log_w[j] - 0.5 * (d * math.log(2 * math.pi)
                                       + np.log(eigenvalues[j]).sum())
                     - 0.5 * np.einsum("ij,ij->i", projected, projected))
    return out


def _rows(x: ArrayLike) -> NDArray[np.float64]:
    arr = np.asarray(x, dtype=float)
    return arr[:, None] if arr.ndim == 1 else arr


def log_likelihood_per_point(x: ArrayLike, weights: ArrayLike, means: ArrayLike,
                             covariances: ArrayLike) -> float:
    """Mean log-likelihood of the rows under the mixture: ``(1/n) Σᵢ log Σₖ πₖ N(xᵢ; μₖ, Σₖ)``.

    Computed in log space (``scipy.special.logsumexp``). A covariance with a negative
    eigenvalue beyond rounding raises ``ValueError``; a singular or near-singular one is
    accepted, its eigenvalues floored at ``1e-10`` × its largest (a very thin Gaussian
    rather than a failure). Weights are used as given (not renormalised).

    Examples
    --------
    >>> from scipy.stats import norm
    >>> x = np.array([[0.0], [1.0]])
    >>> value = log_likelihood_per_point(x, [1.0], [[0.0]], [[[1.0]]])
    >>> bool(np.isclose(value, norm.logpdf(x).mean()))
    True
    """
    from scipy.special import logsumexp  # here: scipy.special costs Home's first run

    rows = _rows(x)
    return float(np.mean(logsumexp(_log_joint(rows, weights, means, covariances), axis=1)))


def nicv(x: ArrayLike, means: ArrayLike) -> float:
    """Normalised intra-cluster variance ``(1/n) Σᵢ minₖ ‖xᵢ − μₖ‖²`` (the DPLloyd metric).

    Examples
    --------
    >>> nicv([[0.0, 0.0], [2.0, 0.0], [10.0, 1.0]], [[1.0, 0.0], [10.0, 0.0]])
    1.0
    """
    rows = _rows(x)
    mu = _means(means, "means")
    squared = ((rows[:, None, :] - mu[None, :, :]) ** 2).sum(axis=2)
    return float(squared.min(axis=1).mean())


def nearest_centre(x: ArrayLike, means: ArrayLike) -> NDArray[np.intp]:
    """Each row's nearest mean (the assignment of centres-only estimators such as DPLloyd).

    Examples
    --------
    >>> nearest_centre([[0.0], [4.0], [9.0]], [[10.0], [1.0]]).tolist()
    [1, 1, 0]
    """
    rows = _rows(x)
    mu = _means(means, "means")
    return np.asarray(
        ((rows[:, None, :] - mu[None, :, :]) ** 2).sum(axis=2).argmin(axis=1), dtype=np.intp)


def map_assignment(x: ArrayLike, weights: ArrayLike | None, means: ArrayLike,
                   covariances: ArrayLike | None = None) -> NDArray[np.intp]:
    """Each row's most probable component ``argmaxₖ πₖ N(xᵢ; μₖ, Σₖ)``.

    Without covariances (a centres-only estimate) it is :func:`nearest_centre`.
    """
    if covariances is None or weights is None:
        return nearest_centre(x, means)
    return np.asarray(_log_joint(_rows(x), weights, means, covariances).argmax(axis=1),
                      dtype=np.intp)


def adjusted_rand(labels_true: ArrayLike, x: ArrayLike, weights: ArrayLike | None,
                  means: ArrayLike, covariances: ArrayLike | None = None) -> float:
    """Adjusted Rand index of the true labels and the assignment the estimate induces.

    The assignment is :func:`map_assignment` (nearest centre when there are no
    covariances); scored by ``sklearn.metrics.adjusted_rand_score``: 1 for the same
    partition up to renaming, about 0 for a random one. No matching is needed.

    Examples
    --------
    >>> x = [[0.0], [0.1], [5.0], [5.1]]
    >>> adjusted_rand([1, 1, 0, 0], x, [0.5, 0.5], [[5.0], [0.0]], [[[1.0]], [[1.0]]])
    1.0
    """
    from sklearn.metrics import adjusted_rand_score  # slow to import; only this needs it

    labels = np.asarray(labels_true).ravel()
    rows = _rows(x)
    if len(labels) != len(rows):
        raise ValueError(f"labels_true must give one label per row: {len(rows)} rows, "
                         f"{len(labels)} labels")
    return float(adjusted_rand_score(labels, map_assignment(rows, weights, means, covariances)))


# --- registry metrics: fn(result, truth) -> float ---

MetricFunction = Callable[[Result, Truth | None], float]


def mean_error(result: Result, truth: Truth | None = None) -> float:
    """L2 distance between the released mean and the clipped data's true mean (task ``mean``).

    The true mean comes from the result's diagnostics (the clipped data's mean), so
    ``truth`` is not needed; it is accepted so every registry metric has one signature.

    Examples
    --------
    >>> from dpviz.privacy import Ledger
    >>> r = Result({"mean": np.array([3.0, 4.0])}, Ledger(),
    ...            diagnostics={"true_mean": np.zeros(2)})
    >>> mean_error(r)
    5.0
    """
    return float(np.linalg.norm(np.asarray(result.estimate["mean"])
                                - np.asarray(result.diagnostics["true_mean"])))


def _estimate(result: Result, name: str) -> NDArray[np.float64] | None:
    value = result.estimate.get(name)
    if result.failed is not None or value is None:
        return None
    return np.asarray(value, dtype=float)


def _need(truth: Truth | None, metric: str) -> Truth:
    if truth is None:
        raise ValueError(f"the gmm metric {metric!r} needs the truth "
                         "(a dpviz.estimators.metrics.Truth)")
    return truth


def _matching(result: Result, truth: Truth) -> tuple[Any, NDArray[np.intp]] | None:
    means = _estimate(result, "means")
    if means is None or truth.means is None:
        return None
    return means, match_components(truth.means, means)


def gmm_mean_error(result: Result, truth: Truth | None) -> float:
    """:func:`matched_mean_error` of the estimated means (data units).

    NaN for a ⊥ result, or when the truth has no means (e.g. an uploaded CSV).
    """
    found = _matching(result, _need(truth, "mean_error"))
    if found is None or truth is None or truth.means is None:
        return math.nan
    means, pi = found
    return matched_mean_error(truth.means, means, pi)


def gmm_weight_error(result: Result, truth: Truth | None) -> float:
    """:func:`weight_error` after matching on means.

    NaN for a ⊥ result, an estimate without weights, or a truth without weights or means.
    """
    found = _matching(result, _need(truth, "weight_error"))
    weights = _estimate(result, "weights")
    if found is None or weights is None or truth is None or truth.weights is None:
        return math.nan
    return weight_error(truth.weights, weights, found[1])


def gmm_covariance_error(result: Result, truth: Truth | None) -> float:
    """:func:`covariance_error` after matching on means.

    NaN when the estimator does not estimate covariances (DPLloyd: ``covariances`` is
    ``None``), for a ⊥ result, or when the truth has no covariances.
    """
    found = _matching(result, _need(truth, "covariance_error"))
    covariances = _estimate(result, "covariances")
    if found is None or covariances is None or truth is None or truth.covariances is None:
        return math.nan
    return covariance_error(truth.covariances, covariances, found[1])


def gmm_test_log_likelihood(result: Result, truth: Truth | None) -> float:
    """:func:`log_likelihood_per_point` of the held-out rows under the estimate.

    NaN without held-out rows (``truth.test_data``), without estimated weights or
    covariances (a centres-only estimator has no likelihood), or for a ⊥ result.
    """
    truth = _need(truth, "test_log_likelihood")
    weights, means = _estimate(result, "weights"), _estimate(result, "means")
    covariances = _estimate(result, "covariances")
    if truth.test_data is None or weights is None or means is None or covariances is None:
        return math.nan
    return log_likelihood_per_point(truth.test_data, weights, means, covariances)


def gmm_nicv(result: Result, truth: Truth | None) -> float:
    """:func:`nicv` of the rows the estimator saw, with the estimated means.

    NaN without ``truth.data`` or for a ⊥ result.
    """
    truth = _need(truth, "nicv")
    means = _estimate(result, "means")
    if truth.data is None or means is None:
        return math.nan
    return nicv(truth.data, means)


def gmm_adjusted_rand(result: Result, truth: Truth | None) -> float:
    """:func:`adjusted_rand` of the true labels and the estimate's assignment of the rows.

    MAP assignment when the estimate has weights and covariances, nearest centre otherwise.
    NaN without ``truth.labels`` and ``truth.data``, or for a ⊥ result.
    """
    truth = _need(truth, "adjusted_rand")
    means = _estimate(result, "means")
    if truth.labels is None or truth.data is None or means is None:
        return math.nan
    return adjusted_rand(truth.labels, truth.data, _estimate(result, "weights"), means,
                         _estimate(result, "covariances"))


# --- covariance and community metrics ---

def frobenius_error(true_matrix: ArrayLike, estimated_matrix: ArrayLike) -> float:
    """``‖Σ̃ − Σ‖_F``, the error of seed 001 (Dong, Liang, Yi), in the data's squared units.

    Examples
    --------
    >>> frobenius_error(np.eye(2), [[1.0, 0.0], [0.0, 4.0]])
    3.0
    """
    a = np.atleast_2d(np.asarray(true_matrix, dtype=float))
    b = np.atleast_2d(np.asarray(estimated_matrix, dtype=float))
    if a.shape != b.shape:
        raise ValueError(f"the matrices must have one shape, got {a.shape} and {b.shape}")
    return float(np.linalg.norm(b - a))


def community_error(true_labels: ArrayLike, labels: ArrayLike) -> float:
    """Share of vertices on the wrong side, up to the global sign: ``min(w, n − w)/n``.

    Labels are ±1 (seed 003 §5); a labelling and its negation are the same partition.

    Examples
    --------
    >>> community_error([1, 1, -1, -1], [-1, -1, 1, -1])
    0.25
    """
    truth = np.asarray(true_labels).ravel()
    guess = np.asarray(labels).ravel()
    if truth.shape != guess.shape:
        raise ValueError(f"labels must give one label per vertex: {truth.size} true, "
                         f"{guess.size} estimated")
    if not (np.isin(truth, (-1, 1)).all() and np.isin(guess, (-1, 1)).all()):
        raise ValueError("community labels must be -1 or +1")
    wrong = int(np.count_nonzero(truth != guess))
    return min(wrong, truth.size - wrong) / truth.size


def covariance_frobenius_error(result: Result, truth: Truth | None) -> float:
    """:func:`frobenius_error` of the released matrix (task ``covariance``).

    The target is ``truth.matrix``, or else the result's ``true_covariance`` diagnostic (the
    unclipped data's matrix); NaN for a ⊥ result.
    """
    estimate = _estimate(result, "covariance")
    target: Any = result.diagnostics.get("true_covariance")
    if truth is not None and truth.matrix is not None:
        target = truth.matrix
    if estimate is None or target is None:
        return math.nan
    return frobenius_error(target, estimate)


def _community_error(result: Result, truth: Truth | None) -> float:
    labels = _estimate(result, "labels")
    if labels is None or truth is None or truth.labels is None:
        return math.nan
    return community_error(truth.labels, labels)


def sbm_error_rate(result: Result, truth: Truth | None) -> float:
    """:func:`community_error` of the released labels against ``truth.labels`` (±1)."""
    return _community_error(result, truth)


def sbm_overlap(result: Result, truth: Truth | None) -> float:
    """The overlap ``1 − 2·error`` (1 exact, 0 no better than a coin) of seed 003 §5."""
    return 1.0 - 2.0 * _community_error(result, truth)


METRICS: Mapping[str, Mapping[str, MetricFunction]] = MappingProxyType({
    "mean": MappingProxyType({"mean_error": mean_error}),
    "gmm": MappingProxyType({
        "mean_error": gmm_mean_error,
        "weight_error": gmm_weight_error,
        "covariance_error": gmm_covariance_error,
        "test_log_likelihood": gmm_test_log_likelihood,
        "nicv": gmm_nicv,
        "adjusted_rand": gmm_adjusted_rand,
    }),
    "covariance": MappingProxyType({"frobenius_error": covariance_frobenius_error}),
    "sbm": MappingProxyType({"overlap": sbm_overlap, "error_rate": sbm_error_rate}),
})
"""Each task's metrics by name: ``METRICS[task][name](result, truth) -> float``."""


@dataclass(frozen=True)
class MetricLabel:
    """How a metric is named to people: its title, its unit and which way is better.

    Pages, the compare view, ``solve`` and the explorer show :attr:`text`; the metric's
    name (``METRICS`` key) appears only in exported files and specs.

    Examples
    --------
    >>> MetricLabel("weight error", "L1 distance").text
    'weight error (L1 distance)'
    """

    title: str
    unit: str = ""
    higher_is_better: bool = False

    @property
    def text(self) -> str:
        """The title with its unit in brackets (an axis title, a table column)."""
        return f"{self.title} ({self.unit})" if self.unit else self.title


LABELS: Mapping[str, Mapping[str, MetricLabel]] = MappingProxyType({
    "mean": MappingProxyType({"mean_error": MetricLabel("error of the mean", "L2, data units")}),
    "gmm": MappingProxyType({
        "mean_error": MetricLabel("error of the means", "matched, L2, data units"),
        "weight_error": MetricLabel("weight error", "matched, L1"),
        "covariance_error": MetricLabel("covariance error", "matched, Frobenius"),
        "test_log_likelihood": MetricLabel("held-out log-likelihood", "per row",
                                           higher_is_better=True),
        "nicv": MetricLabel("within-cluster spread", "normalised intra-cluster variance"),
        "adjusted_rand": MetricLabel("agreement with the true clusters", "adjusted Rand index",
                                     higher_is_better=True),
    }),
    "covariance": MappingProxyType({
        "frobenius_error": MetricLabel("error of the matrix", "Frobenius norm")}),
    "sbm": MappingProxyType({
        "overlap": MetricLabel("overlap with the true communities", "1 exact, 0 a coin flip",
                               higher_is_better=True),
        "error_rate": MetricLabel("share of vertices misplaced", "0 to 0.5"),
    }),
})
"""Each metric's :class:`MetricLabel`, keyed as :data:`METRICS` (a test checks both agree)."""


def metric_label(task: str, name: str) -> MetricLabel:
    """The label of ``METRICS[task][name]``; a ``ValueError`` lists the task's metrics.

    Examples
    --------
    >>> metric_label("sbm", "overlap").higher_is_better
    True
    """
    found = LABELS.get(task, {}).get(name)
    if found is None:
        raise ValueError(f"unknown metric {name!r} for the task {task!r}; its metrics are: "
                         f"{', '.join(METRICS.get(task, {})) or 'none'}")
    return found
