"""The covariance paper's synthetic data: Gaussian rows with Zipf-distributed norms.

Dong, Liang & Yi 2022 (seed 001), §7; ALGORITHMS.md §6 "Synthetic data". ``Z`` (n × d) i.i.d.
N(0, 1), ``U`` (d × d) i.i.d. Uniform[0, 1] (not orthogonal), ``X = ZU``, columns centred;
then the rows are split **in order** into N buckets, bucket k = 1 … N holding a fraction
``∝ k^{−s}`` (cumulative boundaries ``⌊n·F_k⌋``, as the authors' code) and every row in it
rescaled to norm ``2^{k−N}``: the common rows are the small ones, N = 1 gives unit norms
(trace 1), the defaults (N = 4, s = 3) trace ≈ 0.041. Rows are in the unit ball.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpviz.core import limits
from dpviz.core.entry import Param

BUCKETS = limits.Limit("buckets", 1, 32)
SKEW = limits.Limit("skew", 0.0, 10.0)
ZIPF_DIMENSIONS = limits.Limit("d", 1, 800)  # the paper's Figure 2 goes to d = 800


@dataclass(frozen=True)
class ZipfData:
    """Rows with Zipf norms and their second moment.

    Attributes
    ----------
    data : ndarray
        n × d rows, every norm a power of two ≤ 1.
    matrix : ndarray
        ``XᵀX/n``, the covariance target (not centred).
    bucket_norms : ndarray
        The norm of each bucket, ``2^{k−N}``, k = 1 … N.
    bucket_sizes : ndarray
        Rows per bucket.
    """

    data: NDArray[np.float64]
    matrix: NDArray[np.float64]
    bucket_norms: NDArray[np.float64]
    bucket_sizes: NDArray[np.int64]

    @property
    def trace(self) -> float:
        """``tr(XᵀX/n)``, the mean squared norm."""
        return float(np.trace(self.matrix))


def zipf_bucket_sizes(n: int, buckets: int, skew: float) -> NDArray[np.int64]:
    """Rows per bucket: cumulative Zipf fractions, boundaries ``⌊n·F_k⌋`` (authors' code).

    Examples
    --------
    >>> zipf_bucket_sizes(1000, 4, 3.0).tolist()
    [849, 106, 31, 14]
    """
    weights = np.arange(1, buckets + 1, dtype=float) ** -skew
    edges = [0] + [int(n * c) for c in np.cumsum(weights / weights.sum())[:-1]] + [n]
    return np.asarray(np.diff(edges), dtype=np.int64)


def bucket_norms(buckets: int) -> NDArray[np.float64]:
    """The norm of each bucket, ``2^{k−N}`` for k = 1 … N.

    Examples
    --------
    >>> bucket_norms(3).tolist()
    [0.25, 0.5, 1.0]
    """
    return np.exp2(np.arange(1, buckets + 1, dtype=float) - buckets)


def zipf_trace(n: int, buckets: int = 4, skew: float = 3.0) -> float:
    """The trace of ``XᵀX/n`` of :func:`zipf_norm_data` (every row has its bucket's norm).

    The same for every seed: the mean squared row norm.

    Examples
    --------
    >>> zipf_trace(1000, 1), round(zipf_trace(50_000, 4), 6)
    (1.0, 0.041042)
    """
    return float(np.sum(zipf_bucket_sizes(n, buckets, skew) * bucket_norms(buckets) ** 2) / n)


def zipf_norm_data(n: int = 50_000, d: int = 200, *, buckets: int = 4, skew: float = 3.0,
                   seed: int = 0) -> ZipfData:
    """Draw the paper's synthetic data set.

    Parameters
    ----------
    n, d : int
        Rows and dimension.
    buckets : int
        N, the number of norm levels ``2^{1−N}, …, 1`` (trace grows with fewer buckets).
    skew : float
        s, the Zipf exponent of the bucket sizes.
    seed : int
        Seeds the data.

    Returns
    -------
    ZipfData

    Raises
    ------
    ValueError
        A size outside its range, with a sentence naming it.

    Examples
    --------
    >>> z = zipf_norm_data(1000, 5, buckets=1)
    >>> round(z.trace, 12), z.data.shape
    (1.0, (1000, 5))
    """
    n = limits.check_integer(limits.SAMPLE_SIZE, n)
    d = limits.check_integer(ZIPF_DIMENSIONS, d)
    buckets = limits.check_integer(BUCKETS, buckets)
    skew = SKEW.check(skew)
    seed = limits.check_integer(limits.SEED, seed)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)) @ rng.random((d, d))
    x -= x.mean(axis=0)
    sizes = zipf_bucket_sizes(n, buckets, skew)
    norms = bucket_norms(buckets)
    target = np.repeat(norms, sizes)
    current = np.sqrt(np.einsum("ij,ij->i", x, x))
    x *= (target / np.maximum(current, np.finfo(float).tiny))[:, None]
    return ZipfData(data=x, matrix=x.T @ x / n, bucket_norms=norms, bucket_sizes=sizes)


ZIPF_PARAMS: tuple[Param, ...] = (
    Param("n", "int", 50_000, min=limits.SAMPLE_SIZE.low, max=limits.SAMPLE_SIZE.high,
          help="number of rows"),
    Param("d", "int", 200, min=ZIPF_DIMENSIONS.low, max=ZIPF_DIMENSIONS.high,
          help="dimension"),
    Param("buckets", "int", 4, min=BUCKETS.low, max=BUCKETS.high,
          help="N: rows get norms 2^(k-N), k = 1..N (N = 1: every norm 1, trace 1)"),
    Param("skew", "float", 3.0, min=SKEW.low, max=SKEW.high,
          help="s: bucket k holds a fraction of the rows proportional to k^-s"),
    Param("seed", "int", 0, min=limits.SEED.low, max=limits.SEED.high,
          help="seed of the data"),
)
