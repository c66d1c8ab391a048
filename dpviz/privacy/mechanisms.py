"""The noise mechanisms of ALGORITHMS.md §1.1.

Each takes a ``numpy.random.Generator``, draws its noise, and records the release in the
caller's :class:`~dpviz.privacy.ledger.Ledger`. Nothing private leaves dpviz any other way.

Floating-point note: these samplers are for teaching and research. A floating-point Laplace
or Gaussian leaks through the low bits of its output (Mironov, CCS 2012); a production
release would use a discrete (snapping or discrete Gaussian / Laplace) sampler.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import limits
from .ledger import Ledger, Release
from .solver import Allocation


def _check_scale(scale: float) -> float:
    scale = float(scale)
    if not scale >= 0 or math.isinf(scale):
        raise ValueError(f"noise scale must be >= 0 and finite, got {scale}")
    return scale


def draw_noise(mechanism: str, scale: float, rng: np.random.Generator,
               shape: int | tuple[int, ...]) -> NDArray[np.float64]:
    """Independent Laplace (``b = scale``) or Gaussian (``σ = scale``) noise of a shape.

    The one place Laplace and Gaussian noise is drawn: releases add it, and audits use it to
    simulate many independent runs of an allocated release.
    """
    if scale == 0:
        return np.zeros(shape)
    if mechanism == "laplace":
        return rng.laplace(0.0, scale, size=shape)
    if mechanism == "gaussian":
        return rng.normal(0.0, scale, size=shape)
    raise ValueError(f"draw_noise takes laplace or gaussian, got {mechanism!r}")


def simulate(value: float, allocation: Allocation, rng: np.random.Generator,
             size: int) -> NDArray[np.float64]:
    """``size`` independent outputs of the allocated release of a scalar (for audits only).

    Nothing is released and nothing is recorded: this is what an auditor observes when the
    mechanism is run many times on the same data.
    """
    return value + draw_noise(allocation.release.mechanism, allocation.scale, rng, size)


def laplace(value: ArrayLike, *, sensitivity: float, scale: float, rng: np.random.Generator,
            ledger: Ledger, name: str, part: str | None = None) -> NDArray[np.float64] | float:
    """Add ``Lap(scale)`` to every coordinate; ε = ``sensitivity / scale`` (L1 sensitivity).

    Examples
    --------
    >>> from dpviz.privacy import Ledger
    >>> led = Ledger()
    >>> x = laplace([0.0, 0.0], sensitivity=1.0, scale=1.0, rng=np.random.default_rng(0),
    ...             ledger=led, name="v")
    >>> led.releases[0].epsilon
    1.0
    """
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    scale = _check_scale(scale)
    arr = np.asarray(value, dtype=float)
    noisy = arr + draw_noise("laplace", scale, rng, arr.shape)
    eps = math.inf if scale == 0 else sensitivity / scale
    ledger.record(Release(name, "laplace", sensitivity, "L1", scale, epsilon=eps, delta=0.0,
                          rho=eps * eps / 2, part=part))
    return noisy if arr.ndim else float(noisy)


def gaussian(value: ArrayLike, *, sensitivity: float, sigma: float, rng: np.random.Generator,
             ledger: Ledger, name: str, part: str | None = None, epsilon: float | None = None,
             delta: float | None = None) -> NDArray[np.float64] | float:
    """Add ``N(0, σ²)`` to every coordinate; ρ = ``Δ₂²/(2σ²)`` (L2 sensitivity).

    ``epsilon`` and ``delta`` only label the release when the budget solver gave it an
    (εᵢ, δᵢ); the accountants work from σ.
    """
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    sigma = _check_scale(sigma)
    arr = np.asarray(value, dtype=float)
    noisy = arr + draw_noise("gaussian", sigma, rng, arr.shape)
    rho = math.inf if sigma == 0 else sensitivity**2 / (2 * sigma**2)
    ledger.record(Release(name, "gaussian", sensitivity, "L2", sigma, epsilon=epsilon,
                          delta=delta, rho=rho, part=part))
    return noisy if arr.ndim else float(noisy)


def symmetric_gaussian(matrix: ArrayLike, *, sensitivity: float, sigma: float,
                       rng: np.random.Generator, ledger: Ledger, name: str,
                       part: str | None = None) -> NDArray[np.float64]:
    """Add symmetric Gaussian noise: i.i.d. ``N(0, σ²)`` on entries ``i ≤ j``, mirrored.

    ``sensitivity`` is the Frobenius sensitivity of the whole matrix, which bounds that of
    its upper triangle (ALGORITHMS.md §1.1).
    """
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    sigma = _check_scale(sigma)
    arr = np.asarray(matrix, dtype=float)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"symmetric noise needs a square matrix, got shape {arr.shape}")
    noise = np.zeros_like(arr)
    if sigma > 0:  # d(d + 1)/2 draws on i <= j, mirrored (half the draws of a full matrix)
        upper = np.triu_indices(arr.shape[0])
        draws = rng.normal(0.0, sigma, size=upper[0].size)
        noise[upper] = draws
        noise.T[upper] = draws
    rho = math.inf if sigma == 0 else sensitivity**2 / (2 * sigma**2)
    ledger.record(Release(name, "symmetric_gaussian", sensitivity, "Frobenius", sigma,
                          rho=rho, part=part))
    return arr + noise


def release(value: ArrayLike, allocation: Allocation, *, rng: np.random.Generator,
            ledger: Ledger, name: str | None = None,
            sensitivity: float | None = None) -> NDArray[np.float64] | float:
    """Release ``value`` with the noise the budget solver allocated to it.

    The allocation says which mechanism (Laplace or Gaussian), its sensitivity and scale.
    A release whose own sensitivity differs from the planned one — DP-EM's ``2/Ñₖ`` depends
    on earlier releases, so its plan is at unit sensitivity — passes ``sensitivity`` (L1 for
    Laplace, L2 for Gaussian): the noise is drawn at the plan's multiplier times it
    (:meth:`~dpviz.privacy.solver.Allocation.scale_for`), so the accounting is the plan's.
    """
    planned = allocation.release
    label = name or planned.name
    own = planned.sensitivity if sensitivity is None else sensitivity
    scale = allocation.scale if own == planned.sensitivity else allocation.scale_for(own)
    if planned.mechanism == "laplace":
        return laplace(value, sensitivity=own, scale=scale, rng=rng, ledger=ledger, name=label,
                       part=planned.part)
    if planned.mechanism == "gaussian":
        return gaussian(value, sensitivity=own, sigma=scale, rng=rng, ledger=ledger, name=label,
                        part=planned.part, epsilon=allocation.epsilon, delta=allocation.delta)
    raise ValueError(f"release() adds Laplace or Gaussian noise; {label!r} is "
                     f"{planned.mechanism}: call its own mechanism with epsilon "
                     f"{allocation.epsilon}")


def truncated_laplace_bound(sensitivity: float, epsilon: float, delta: float) -> float:
    """The support ``A = (Δ/ε)·ln(1 + (e^ε − 1)/(2δ))`` of the truncated Laplace."""
    return sensitivity / epsilon * math.log1p(math.expm1(epsilon) / (2 * delta))


def truncated_laplace(value: ArrayLike, *, sensitivity: float, epsilon: float, delta: float,
                      rng: np.random.Generator, ledger: Ledger, name: str,
                      part: str | None = None) -> NDArray[np.float64] | float:
    """Add noise with density ∝ ``exp(−ε|z|/Δ)`` on ``[−A, A]`` (Geng et al.); (ε, δ)-DP."""
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    epsilon = limits.check_epsilon(epsilon)
    delta = limits.DELTA_POSITIVE.check(delta)
    arr = np.asarray(value, dtype=float)
    if math.isinf(epsilon):
        ledger.record(Release(name, "truncated_laplace", sensitivity, "L1", 0.0,
                              epsilon=epsilon, delta=delta, part=part))
        return arr.copy() if arr.ndim else float(arr)
    b = sensitivity / epsilon
    bound = truncated_laplace_bound(sensitivity, epsilon, delta)
    u = rng.random(size=arr.shape)
    magnitude = -b * np.log1p(-u * (-math.expm1(-bound / b)))
    sign = np.where(rng.random(size=arr.shape) < 0.5, -1.0, 1.0)
    noisy = arr + sign * magnitude
    ledger.record(Release(name, "truncated_laplace", sensitivity, "L1", b, epsilon=epsilon,
                          delta=delta, part=part))
    return noisy if arr.ndim else float(noisy)


def exponential(utilities: ArrayLike, *, sensitivity: float, epsilon: float,
                rng: np.random.Generator, ledger: Ledger, name: str,
                part: str | None = None) -> int:
    """Pick index ``i`` with probability ∝ ``exp(ε·uᵢ/(2Δᵤ))`` by the Gumbel-max trick; ε-DP.

    Examples
    --------
    >>> from dpviz.privacy import Ledger
    >>> exponential([0.0, 100.0, 0.0], sensitivity=1.0, epsilon=1.0,
    ...             rng=np.random.default_rng(0), ledger=Ledger(), name="best")
    1
    """
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    epsilon = limits.check_epsilon(epsilon)
    u = np.asarray(utilities, dtype=float)
    if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
        raise ValueError("the exponential mechanism needs a non-empty list of finite utilities")
    scale = 2 * sensitivity / epsilon
    ledger.record(Release(name, "exponential", sensitivity, "utility", scale, epsilon=epsilon,
                          delta=0.0, rho=epsilon**2 / 2, part=part))
    if math.isinf(epsilon):
        return int(np.argmax(u))
    return int(np.argmax(u / scale + rng.gumbel(size=u.shape)))


def above_threshold(queries: Sequence[float] | NDArray[np.float64], *, threshold: float,
                    sensitivity: float, epsilon: float, rng: np.random.Generator,
                    ledger: Ledger, name: str, part: str | None = None) -> int | None:
    """AboveThreshold (sparse vector): the first ``i`` with ``qᵢ + Lap(4Δ/ε) ≥ T + Lap(2Δ/ε)``.

    Returns ``None`` (⊥) when no query passes. ε-DP however many queries are asked.
    """
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    epsilon = limits.check_epsilon(epsilon)
    q = np.asarray(queries, dtype=float)
    ledger.record(Release(name, "above_threshold", sensitivity, "utility",
                          2 * sensitivity / epsilon, epsilon=epsilon, delta=0.0,
                          rho=epsilon**2 / 2, part=part))
    noisy_threshold = threshold + rng.laplace(0.0, 2 * sensitivity / epsilon)
    noisy = q + rng.laplace(0.0, 4 * sensitivity / epsilon, size=q.shape)
    hits = np.flatnonzero(noisy >= noisy_threshold)
    return int(hits[0]) if hits.size else None


def stable_histogram(counts: Mapping[Hashable, int], *, epsilon: float, delta: float,
                     rng: np.random.Generator, ledger: Ledger, name: str,
                     part: str | None = None) -> dict[Hashable, float]:
    """Noisy counts of the non-empty bins, kept when ``≥ 1 + 2 ln(2/δ)/ε``; (ε, δ)-DP.

    The bins need not be known in advance (only non-empty ones are ever touched).
    """
    epsilon = limits.check_epsilon(epsilon)
    delta = limits.DELTA_POSITIVE.check(delta)
    keys = [k for k, c in counts.items() if c > 0]
    values = np.array([counts[k] for k in keys], dtype=float)
    noisy = values + rng.laplace(0.0, 2 / epsilon, size=values.shape)
    cut = 1 + 2 * math.log(2 / delta) / epsilon
    ledger.record(Release(name, "stable_histogram", 2.0, "L1", 2 / epsilon, epsilon=epsilon,
                          delta=delta, part=part))
    return {k: float(v) for k, v in zip(keys, noisy, strict=True) if v >= cut}
