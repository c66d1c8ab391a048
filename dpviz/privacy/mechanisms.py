"""The noise mechanisms of ALGORITHMS.md §1.1.

Each takes a ``numpy.random.Generator``, draws its noise, and records the release in the
caller's :class:`~dpviz.privacy.ledger.Ledger`. Nothing private leaves dpviz any other way.

Floating-point note. ``value + numpy_noise`` leaks through the low bits of its output: the
set of floats it can produce depends on ``value`` (Mironov, CCS 2012). With a secure generator
(:func:`~dpviz.privacy.randomness.is_secure`) every Laplace and Gaussian release — scalars,
vectors, the symmetric matrix mechanisms, AboveThreshold, the stable histogram, the truncated
Laplace — rounds the value to a power-of-two grid and adds exact discrete Laplace or discrete
Gaussian noise drawn from cryptographic bits (Canonne, Kamath & Steinke 2020;
:mod:`dpviz.privacy.discrete_noise`), so the output is a function of an integer; rounding
costs a sensitivity relaxation (``n·g`` in L1, ``√n·g`` in L2), recorded on the ledger row
(``relaxation``) and paid for by widening the noise, so each release costs what its plan
said. Randomized response's flips are exact Bernoulli draws from the same bits, and the
exponential mechanism's selection is OpenDP's float-safe noisy max. With a seeded generator
the noise is numpy's, reproducible: teaching randomness. Each ledger row says which
(``sampler``). The exceptions, named on their rows: the Bingham sampler of the exponential
mechanism on the sphere draws numpy floats in both modes (:data:`NUMPY_BINGHAM`: no
float-safe sampler exists), and the masking mechanism's means' and covariances' noise is the
discrete sampler's (:func:`draw_noise`) but multiplied by a covariance root (and, for the
covariances, squared) and added in floating point (``"discrete+float"``); its weights are
released on the grid.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from contextvars import ContextVar
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.core import limits
from dpviz.privacy.ledger import Ledger, Release
from dpviz.privacy.noise_grid import flip_ratio, relaxation, truncated_support
from dpviz.privacy.randomness import is_secure
from dpviz.privacy.solver import Allocation

if TYPE_CHECKING:
    from opendp.mod import Domain, Metric

#: The ledger's ``sampler`` of a release: the exact discrete sampler on a grid (secure), its
#: noise transformed and added in floating point (not float-safe), OpenDP's noisy max (the
#: secure exponential mechanism), or numpy's floats (seeded, and the Bingham sampler's named
#: exception when secure).
DISCRETE = "discrete"
DISCRETE_FLOAT = "discrete+float"
OPENDP = "opendp"
NUMPY = "numpy"
#: The secure exponential mechanism on the sphere: no float-safe sampler exists.
NUMPY_BINGHAM = "numpy (Bingham sampler: no float-safe sampler exists)"
NOISES = ("laplace", "gaussian")


#: One thread at a time imports the compiled sampler: numba imported by two threads at once
#: (sessions running side by side) handed one of them a half-initialised module ("module
#: 'numba' has no attribute 'core'").
_SAMPLER_IMPORT = threading.Lock()


def _discrete_noise() -> ModuleType:
    """:mod:`dpviz.privacy.discrete_noise`, imported by one thread at a time.

    Imported on a secure run's first draw only: numba costs a secure run only.
    """
    with _SAMPLER_IMPORT:
        from dpviz.privacy import discrete_noise
    return discrete_noise


@functools.cache
def _opendp_space() -> tuple[Domain, Metric]:
    """OpenDP's input space for the noisy max: vectors of non-NaN floats, in L∞ distance.

    Built once per process, as building them costs more than a small selection, and
    read-only (shared by every session). OpenDP's contrib measurements are enabled with it.
    """
    from opendp import domains, metrics  # here: OpenDP costs Home's first run (seeded: numpy)
    from opendp.mod import enable_features

    enable_features("contrib")
    return (domains.vector_domain(domains.atom_domain(T=float, nan=False)),
            metrics.linf_distance(T=float))


#: ``observer(row, value, noised, output) → output``: a white-box audit's view of a release.
Observer = Callable[[Release, NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
                    NDArray[np.float64]]
#: The running white-box audit's observer (:func:`dpviz.privacy.audit.recording`), else
#: ``None``. A context variable, so one user's audit never sees another's releases; outside an
#: audit :func:`_observed` only reads it.
OBSERVER: ContextVar[Observer | None] = ContextVar("dpviz_release_observer", default=None)


def _observed(row: Release, value: ArrayLike, output: NDArray[np.float64], *,
              triangle: bool = False) -> NDArray[np.float64]:
    """``output``, or what the running audit's observer returns for it.

    The observer sees the ledger ``row``, the pre-noise ``value`` and the entries that
    received noise (a symmetric matrix's upper triangle with ``triangle``).
    """
    observer = OBSERVER.get()
    if observer is None:
        return output
    exact = np.asarray(value, dtype=float)
    noised = exact[np.triu_indices(len(exact))] if triangle else np.ravel(exact)
    return observer(row, exact, noised, output)


def _check_scale(scale: float) -> float:
    scale = float(scale)
    if not scale >= 0 or math.isinf(scale):
        raise ValueError(f"noise scale must be >= 0 and finite, got {scale}")
    return scale


def sampler_of(rng: np.random.Generator, scale: float, *,
               transformed: bool = False) -> str | None:
    """The ledger's ``sampler`` of a Laplace, Gaussian or exponential release at ``scale``.

    ``None`` when nothing is drawn (scale 0 or ∞: ε = ∞, the exact answer). ``transformed``:
    the noise (:func:`draw_noise`) is transformed and added in floating point, so a secure
    generator's row says ``"discrete+float"``.
    """
    if scale == 0 or math.isinf(scale):
        return None
    if not is_secure(rng):
        return NUMPY
    return DISCRETE_FLOAT if transformed else DISCRETE


def grid_relaxation(mechanism: str, scale: float, rng: np.random.Generator, entries: int, *,
                    integers: bool = False) -> float:
    """What a secure release of ``entries`` values adds to its sensitivity; 0 otherwise.

    A secure generator's noise is drawn on a grid (:func:`add_noise`); rounding ``entries``
    values to it adds ``entries·g`` to an L1 sensitivity (Laplace) and ``√entries·g`` to an L2
    one (Gaussian) — nothing for ``integers`` on a grid finer than 1
    (:func:`dpviz.privacy.noise_grid.relaxation`). Seeded noise is not rounded.
    """
    if scale == 0 or math.isinf(scale) or not is_secure(rng):
        return 0.0
    return relaxation(mechanism, scale, entries, integers=integers)


def widened(mechanism: str, sensitivity: float, scale: float, rng: np.random.Generator,
            entries: int) -> tuple[float, float]:
    """The scale a release of ``entries`` values draws at, and the grid's relaxation ``r``.

    Seeded: ``(scale, 0)``. Secure: :func:`secure_scale`.
    """
    if not is_secure(rng):
        return scale, 0.0
    return secure_scale(mechanism, sensitivity, scale, entries)


def secure_scale(mechanism: str, sensitivity: float, scale: float,
                 entries: int) -> tuple[float, float]:
    """The scale a secure release of ``entries`` values draws at, and the grid's relaxation.

    Rounding to the sampler's grid adds ``r`` (:func:`grid_relaxation`) to the sensitivity
    ``Δ``, so the noise is widened by ``(Δ + r)/Δ`` — a relative ``√n·2^-28`` or ``n·2^-40``
    of ``scale/Δ`` — and the release costs what its plan said: ``(Δ + r)/widened = Δ/scale``
    (the smallest float for which the ledger's quotient is at most the plan's). ``r`` is
    that of the widened scale's grid (recomputed until the grid stops growing). At ``Δ = 0``
    nothing can be widened and ``r`` is charged on top. Where ``r`` grows as fast as the
    scale (``Δ/scale`` below about ``√n·2^-28`` or ``n·2^-40``) no widening fits:
    ``ValueError``. A function of public numbers only.
    """
    if scale == 0 or math.isinf(scale):
        return scale, 0.0
    relaxed = relaxation(mechanism, scale, entries)
    if not relaxed or sensitivity == 0:
        return scale, relaxed
    plan = sensitivity / scale
    while True:
        wider = scale * (sensitivity + relaxed) / sensitivity
        if math.isinf(wider):  # each grid step costs more than the noise allows: no scale fits
            raise ValueError(
                f"{mechanism} noise at sensitivity {sensitivity:g} and scale {scale:g} is too "
                f"wide for secure randomness: rounding {entries} values to its grid would "
                "cost more than the release's whole budget; use a larger epsilon")
        while (sensitivity + relaxed) / wider > plan:
            wider = math.nextafter(wider, math.inf)
        again = relaxation(mechanism, wider, entries)
        if again <= relaxed:
            return wider, relaxed
        relaxed = again


def _numpy_noise(mechanism: str, scale: float, rng: np.random.Generator,
                 shape: int | tuple[int, ...]) -> NDArray[np.float64]:
    """The Laplace or Gaussian draw of numpy (seeded generators: teaching randomness)."""
    if mechanism == "laplace":
        return rng.laplace(0.0, scale, size=shape)
    return rng.normal(0.0, scale, size=shape)


def add_noise(mechanism: str, value: ArrayLike, scale: float,
              rng: np.random.Generator) -> NDArray[np.float64]:
    """``value`` plus independent Laplace (``b = scale``) or Gaussian (``σ = scale``) noise.

    The one place Laplace and Gaussian noise is added. From a secure generator the value is
    rounded to a grid and given exact discrete noise from cryptographic bits
    (:func:`dpviz.privacy.discrete_noise.add_discrete_noise`, not drawn from ``rng``;
    non-finite entries stay as they are, as ``inf + noise`` would), and the caller charges
    :func:`grid_relaxation`; from a seeded one numpy's draw is added.
    """
    if mechanism not in NOISES:
        raise ValueError(f"noise is laplace or gaussian, got {mechanism!r}")
    arr = np.array(value, dtype=float)
    if scale == 0:
        return arr
    if not is_secure(rng):
        return arr + _numpy_noise(mechanism, scale, rng, arr.shape)
    discrete_noise = _discrete_noise()
    finite = np.isfinite(arr)
    if finite.any():
        arr[finite] = discrete_noise.add_discrete_noise(mechanism, arr[finite], scale)
    return arr


def draw_noise(mechanism: str, scale: float, rng: np.random.Generator,
               shape: int | tuple[int, ...]) -> NDArray[np.float64]:
    """Independent Laplace (``b = scale``) or Gaussian (``σ = scale``) noise of a shape.

    Noise on its own, for a mechanism that transforms it before adding (the masking
    mechanism) and for audits that simulate many runs; from a secure generator it is the
    discrete sampler's release of zeros. A release of a value uses :func:`add_noise`.
    """
    return add_noise(mechanism, np.zeros(shape), scale, rng)


def simulate(value: float, allocation: Allocation, rng: np.random.Generator,
             size: int) -> NDArray[np.float64]:
    """``size`` independent outputs of the allocated release of a scalar (for audits only).

    Nothing is released and nothing is recorded: this is what an auditor observes when the
    mechanism is run many times on the same data.
    """
    return add_noise(allocation.release.mechanism, np.full(size, float(value)), allocation.scale,
                     rng)


def laplace(value: ArrayLike, *, sensitivity: float, scale: float, rng: np.random.Generator,
            ledger: Ledger, name: str, part: str | None = None) -> NDArray[np.float64] | float:
    """Add ``Lap(scale)`` to every coordinate; ε = ``sensitivity / scale`` (L1 sensitivity).

    A secure generator draws on a grid at a scale widened by the grid's relaxation
    (:func:`widened`), recorded on the row, so ε is unchanged.

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
    scale, relaxed = widened("laplace", sensitivity, _check_scale(scale), rng, np.size(value))
    noisy = add_noise("laplace", value, scale, rng)
    eps = math.inf if scale == 0 else (sensitivity + relaxed) / scale
    row = Release(name, "laplace", sensitivity, "L1", scale, epsilon=eps, delta=0.0,
                  rho=eps * eps / 2, part=part, sampler=sampler_of(rng, scale),
                  relaxation=relaxed)
    ledger.record(row)
    noisy = _observed(row, value, noisy)
    return noisy if noisy.ndim else float(noisy)


def gaussian(value: ArrayLike, *, sensitivity: float, sigma: float, rng: np.random.Generator,
             ledger: Ledger, name: str, part: str | None = None, epsilon: float | None = None,
             delta: float | None = None) -> NDArray[np.float64] | float:
    """Add ``N(0, σ²)`` to every coordinate; ρ = ``Δ₂²/(2σ²)`` (L2 sensitivity).

    ``epsilon`` and ``delta`` only label the release when the budget solver gave it an
    (εᵢ, δᵢ); the accountants work from σ. A secure generator widens σ by the grid's
    relaxation (:func:`widened`), so ρ is unchanged.
    """
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    sigma, relaxed = widened("gaussian", sensitivity, _check_scale(sigma), rng, np.size(value))
    noisy = add_noise("gaussian", value, sigma, rng)
    rho = math.inf if sigma == 0 else (sensitivity + relaxed)**2 / (2 * sigma**2)
    row = Release(name, "gaussian", sensitivity, "L2", sigma, epsilon=epsilon, delta=delta,
                  rho=rho, part=part, sampler=sampler_of(rng, sigma), relaxation=relaxed)
    ledger.record(row)
    noisy = _observed(row, value, noisy)
    return noisy if noisy.ndim else float(noisy)


def _square(matrix: ArrayLike) -> NDArray[np.float64]:
    arr = np.asarray(matrix, dtype=float)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"symmetric noise needs a square matrix, got shape {arr.shape}")
    return arr


def _mirrored(mechanism: str, matrix: NDArray[np.float64], scale: float,
              rng: np.random.Generator) -> NDArray[np.float64]:
    """Noise added to the entries ``i ≤ j`` (row by row, ``d(d + 1)/2`` draws), then mirrored.

    The upper triangle is released as one vector (:func:`add_noise`), so a secure run's
    entries are rounded to the grid with the matrix values, not noise added afterwards. A
    boolean mask picks it in the order of ``numpy.triu_indices`` (row-major), cheaper than
    the index pairs; every entry of the output is written from the release.
    """
    d = matrix.shape[0]
    upper = ~np.tri(d, k=-1, dtype=bool)
    released = add_noise(mechanism, matrix[upper], scale, rng)
    out = np.empty((d, d))
    out[upper] = released
    out.T[upper] = released
    return out


def symmetric_gaussian(matrix: ArrayLike, *, sensitivity: float, sigma: float,
                       rng: np.random.Generator, ledger: Ledger, name: str,
                       part: str | None = None) -> NDArray[np.float64]:
    """Add symmetric Gaussian noise: i.i.d. ``N(0, σ²)`` on entries ``i ≤ j``, mirrored.

    ``sensitivity`` is the Frobenius sensitivity of the whole matrix, which bounds that of
    its upper triangle (ALGORITHMS.md §1.1).
    """
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    square = _square(matrix)
    d = len(square)
    sigma, relaxed = widened("gaussian", sensitivity, _check_scale(sigma), rng,
                             d * (d + 1) // 2)
    noisy = _mirrored("gaussian", square, sigma, rng)
    rho = math.inf if sigma == 0 else (sensitivity + relaxed)**2 / (2 * sigma**2)
    row = Release(name, "symmetric_gaussian", sensitivity, "Frobenius", sigma, rho=rho,
                  part=part, sampler=sampler_of(rng, sigma), relaxation=relaxed)
    ledger.record(row)
    return _observed(row, square, noisy, triangle=True)


def symmetric_laplace(matrix: ArrayLike, *, sensitivity: float, scale: float,
                      rng: np.random.Generator, ledger: Ledger, name: str,
                      part: str | None = None) -> NDArray[np.float64]:
    """Add symmetric Laplace noise: i.i.d. ``Lap(scale)`` on entries ``i ≤ j``, mirrored.

    ``sensitivity`` is the L1 sensitivity of the upper triangle (diagonal included); the
    release is ε-DP with ``ε = sensitivity/scale`` (seed 001 §6, LapCov).

    Examples
    --------
    >>> from dpviz.privacy import Ledger
    >>> m = symmetric_laplace(np.zeros((3, 3)), sensitivity=1.0, scale=0.5,
    ...                       rng=np.random.default_rng(0), ledger=Ledger(), name="m")
    >>> bool(np.array_equal(m, m.T))
    True
    """
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    square = _square(matrix)
    d = len(square)
    scale, relaxed = widened("laplace", sensitivity, _check_scale(scale), rng,
                             d * (d + 1) // 2)
    noisy = _mirrored("laplace", square, scale, rng)
    eps = math.inf if scale == 0 else (sensitivity + relaxed) / scale
    row = Release(name, "laplace", sensitivity, "L1", scale, epsilon=eps, delta=0.0,
                  rho=eps * eps / 2, part=part, sampler=sampler_of(rng, scale),
                  relaxation=relaxed)
    ledger.record(row)
    return _observed(row, square, noisy, triangle=True)


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


def truncated_laplace_bound(sensitivity: float, epsilon: float, delta: float,
                            entries: int = 1) -> float:
    """How far :func:`truncated_laplace` moves a value, from either generator: public.

    Geng et al.'s support ``A = (Δ/ε)·ln(1 + (e^ε − 1)/(2δ))`` of the continuous noise
    (seeded), or the secure sampler's ``(M + 1/2)·g`` at the widened scale for ``entries``
    values (:func:`dpviz.privacy.noise_grid.truncated_support`), whichever is larger —
    the secure one, by a relative ``2^-40`` or so. Callers subtract it as a one-sided margin,
    so it must hold for the sampler a run uses, which they need not know (the sample-size
    calculator and PPE's threshold take no generator). Where no secure scale fits
    (:func:`secure_scale`'s ``ValueError``, ε below about ``entries·2^-40``) a secure
    :func:`truncated_laplace` refuses by that same call, so only the seeded sampler draws
    and the bound is the continuous one: seeded runs are not refused for a secure reason.

    Examples
    --------
    >>> a = truncated_laplace_bound(1.0, 1.0, 1e-6)
    >>> 0 < a - math.log1p(math.expm1(1.0) / 2e-6) < 1e-9
    True
    """
    continuous = sensitivity / epsilon * math.log1p(math.expm1(epsilon) / (2 * delta))
    try:
        scale, _ = secure_scale("laplace", sensitivity, sensitivity / epsilon, entries)
    except ValueError:  # a secure truncated_laplace refuses here: only numpy's noise is drawn
        return continuous
    return max(continuous, truncated_support(scale, epsilon, delta))


def truncated_laplace(value: ArrayLike, *, sensitivity: float, epsilon: float, delta: float,
                      rng: np.random.Generator, ledger: Ledger, name: str,
                      part: str | None = None) -> NDArray[np.float64] | float:
    """Add noise with density ∝ ``exp(−ε|z|/Δ)`` on ``[−A, A]`` (Geng et al.); (ε, δ)-DP.

    Each entry gets its own noise; ``Δ`` is the L1 sensitivity of all of them (the outputs
    only one side can give are at most those of a single entry shifted by Δ). Every output
    is within :func:`truncated_laplace_bound` of its value.

    A seeded generator draws numpy's continuous noise by inversion. A secure one rounds the
    value to the Laplace grid and adds exact discrete Laplace noise truncated at ``M`` grid
    steps (:func:`dpviz.privacy.discrete_noise.add_truncated_discrete_laplace`): rounding
    ``n`` entries adds ``n·g`` to the L1 sensitivity, so the scale is widened by
    ``(Δ + n·g)/Δ`` (:func:`widened`) and ``M`` is set for (ε, δ) at that scale
    (:func:`dpviz.privacy.noise_grid.truncation`): the release is (ε, δ)-DP as planned,
    the row records the relaxation, and its output is a function of an integer.
    """
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    epsilon = limits.check_epsilon(epsilon)
    delta = limits.DELTA_POSITIVE.check(delta)
    arr = np.asarray(value, dtype=float)
    if math.isinf(epsilon):
        ledger.record(Release(name, "truncated_laplace", sensitivity, "L1", 0.0,
                              epsilon=epsilon, delta=delta, part=part))
        return arr.copy() if arr.ndim else float(arr)
    if is_secure(rng):
        b, relaxed = widened("laplace", sensitivity, sensitivity / epsilon, rng, arr.size)
        discrete_noise = _discrete_noise()
        noisy = discrete_noise.add_truncated_discrete_laplace(arr.ravel(), b, epsilon,
                                                              delta).reshape(arr.shape)
    else:
        b, relaxed = sensitivity / epsilon, 0.0
        bound = sensitivity / epsilon * math.log1p(math.expm1(epsilon) / (2 * delta))
        u = rng.random(size=arr.shape)
        magnitude = -b * np.log1p(-u * (-math.expm1(-bound / b)))
        sign = np.where(rng.random(size=arr.shape) < 0.5, -1.0, 1.0)
        noisy = arr + sign * magnitude
    ledger.record(Release(name, "truncated_laplace", sensitivity, "L1", b, epsilon=epsilon,
                          delta=delta, part=part, sampler=sampler_of(rng, b),
                          relaxation=relaxed))
    return noisy if arr.ndim else float(noisy)


def exponential(utilities: ArrayLike, *, sensitivity: float, epsilon: float,
                rng: np.random.Generator, ledger: Ledger, name: str,
                part: str | None = None) -> int:
    """Pick index ``i`` with probability ∝ ``exp(ε·uᵢ/(2Δᵤ))`` by the Gumbel-max trick; ε-DP.

    From a secure generator OpenDP's noisy max makes the choice (:func:`_opendp_select`),
    from a seeded one numpy's Gumbel draws.

    Examples
    --------
    >>> from dpviz.privacy import Ledger
    >>> exponential([0.0, 100.0, 0.0], sensitivity=1.0, epsilon=1.0,
    ...             rng=np.random.default_rng(0), ledger=Ledger(), name="best")
    1
    """
    u = np.asarray(utilities, dtype=float)
    if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
        raise ValueError("the exponential mechanism needs a non-empty list of finite utilities")
    scale = _record_exponential(sensitivity, epsilon, ledger, name, part,
                                OPENDP if is_secure(rng) else NUMPY)
    if math.isinf(scale):
        return int(np.argmax(u))
    if is_secure(rng):
        return _opendp_select(u, scale)
    return int(np.argmax(u / scale + rng.gumbel(size=u.shape)))


def _opendp_select(utilities: NDArray[np.float64], scale: float) -> int:
    """The arg max of ``utilities`` plus Gumbel noise of ``scale``, by OpenDP's noisy max.

    ``make_noisy_max`` under zCDP is report-noisy-max with Gumbel noise, the exponential
    mechanism itself (McSherry & Talwar 2007), drawn with exact arithmetic instead of
    floating-point Gumbels.
    """
    from opendp import measurements, measures  # here: OpenDP costs Home's first run

    floats, distance = _opendp_space()
    measurement = measurements.make_noisy_max(
        floats, distance, measures.zero_concentrated_divergence(), scale=scale)
    return int(measurement(utilities.tolist()))


def _record_exponential(sensitivity: float, epsilon: float, ledger: Ledger, name: str,
                        part: str | None, sampler: str) -> float:
    """Validate and record an exponential-mechanism release; return its scale ``2Δᵤ/ε``.

    ∞ at ε = ∞: no randomness, the arg max (no sampler).
    """
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    epsilon = limits.check_epsilon(epsilon)
    scale = 2 * sensitivity / epsilon
    ledger.record(Release(name, "exponential", sensitivity, "utility", scale, epsilon=epsilon,
                          delta=0.0, rho=epsilon**2 / 2, part=part,
                          sampler=None if math.isinf(epsilon) else sampler))
    return math.inf if math.isinf(epsilon) else scale


#: Proposals the Bingham sampler may make before it gives up (it accepts far sooner).
MAX_PROPOSALS = 1_000_000


def sample_bingham(values: NDArray[np.float64], rng: np.random.Generator,
                   batch: int = 16) -> NDArray[np.float64]:
    """One draw from the Bingham density ``∝ exp(−vᵀAv)`` on the sphere, A = diag(values) ⪰ 0.

    Kent, Ganeiber & Mardia (2018): solve ``Σⱼ 1/(b + 2aⱼ) = 1`` for b, ``Ω = I + 2A/b``;
    propose ``z ~ N(0, Ω⁻¹)``, ``v = z/‖z‖``; accept with probability
    ``exp(−vᵀAv)(vᵀΩv)^{q/2}/M``, ``M = e^{−(q−b)/2}(q/b)^{q/2}`` (all in logs). Exact.
    """
    a = np.asarray(values, dtype=float)
    q = a.size
    if q == 1:
        return np.array([1.0 if rng.random() < 0.5 else -1.0])
    if not np.any(a > 0):
        v = rng.standard_normal(q)
        return v / np.linalg.norm(v)
    from scipy.optimize import brentq  # here: scipy.optimize costs a page's first run

    b = brentq(lambda t: float(np.sum(1 / (t + 2 * a))) - 1, 1e-12, q)
    omega = 1 + 2 * a / b
    log_m = -(q - b) / 2 + q / 2 * math.log(q / b)
    for _ in range(MAX_PROPOSALS // batch):
        z = rng.standard_normal((batch, q)) / np.sqrt(omega)
        v = z / np.linalg.norm(z, axis=1, keepdims=True)
        log_accept = -(v * v) @ a + q / 2 * np.log((v * v) @ omega) - log_m
        ok = np.flatnonzero(np.log(rng.random(batch)) < log_accept)
        if ok.size:
            return np.asarray(v[ok[0]], dtype=np.float64)
    raise RuntimeError("the Bingham sampler accepted nothing in a million proposals")


def exponential_on_sphere(matrix: ArrayLike, *, sensitivity: float, epsilon: float,
                          rng: np.random.Generator, ledger: Ledger, name: str,
                          part: str | None = None) -> NDArray[np.float64]:
    """The exponential mechanism over unit vectors with utility ``uᵀMu``: ε-DP.

    ``u ∝ exp(ε·uᵀMu/(2Δᵤ))`` for a symmetric ``M`` whose quadratic form has sensitivity
    ``Δᵤ``, drawn exactly by :func:`sample_bingham` in M's eigenbasis (Amin et al. 2019).
    At ε = ∞ the top eigenvector.

    Secure randomness's one exception: the draw is numpy's floats from either generator
    (Philox keyed from OS entropy when secure), and its row says so
    (:data:`NUMPY_BINGHAM`). A float-safe sampler would need the output to be a function of
    an exactly sampled discrete object, but the Bingham density lives on the continuous
    sphere, the proposal is a Gaussian shaped by data-dependent eigenvalues, and the
    acceptance test compares floats; a grid on the sphere fine enough to matter has
    exponentially many points in d (beyond a noisy max), and no exact Bingham sampler is
    known.
    """
    values, vectors = np.linalg.eigh(_square(matrix))
    scale = _record_exponential(sensitivity, epsilon, ledger, name, part,
                                NUMPY_BINGHAM if is_secure(rng) else NUMPY)
    if math.isinf(scale):
        return np.asarray(vectors[:, -1], dtype=np.float64)
    w = sample_bingham((values[-1] - values) / scale, rng)
    return np.asarray(vectors @ w, dtype=np.float64)


def flip_probability(epsilon: float) -> float:
    """``1/(1 + e^ε)``, randomized response's flip probability (0 at ε = ∞).

    Examples
    --------
    >>> round(flip_probability(math.log(3)), 6)
    0.25
    """
    return 0.0 if math.isinf(epsilon) else 1 / (1 + math.exp(epsilon))


def randomized_response(epsilon: float, *, bits: int, rng: np.random.Generator,
                        ledger: Ledger, name: str,
                        part: str | None = None) -> tuple[float, NDArray[np.int64]]:
    """Randomized response on ``bits`` bits (ε-DP): record it, and draw which bits flip.

    Each neighbour change moves one bit. Returns the flip probability and the sorted
    positions in ``range(bits)`` of the bits to flip, so a caller whose bits are mostly zeros
    (a sparse graph's vertex pairs) XORs them in without a coin per bit.

    A seeded generator flips with probability ``1/(1 + e^ε)`` (:func:`flip_probability`),
    drawing the gaps between flips from numpy's geometric sampler. A secure one flips with
    an exact ``p̂ = 1 − e^-γ`` for a rational γ (:func:`dpviz.privacy.noise_grid.flip_ratio`:
    ``p̂`` is at least ``1/(1 + e^ε)``, by at most ``2^-40``, and both likelihood ratios
    ``(1 − p̂)/p̂`` and ``p̂/(1 − p̂)`` are at most e^ε), drawn from cryptographic bits
    (:func:`dpviz.privacy.discrete_noise.bernoulli_positions`): ε-DP exactly (Warner 1965).
    The returned probability is the one drawn with, for debiasing.

    Examples
    --------
    >>> from dpviz.privacy import Ledger
    >>> p, flips = randomized_response(math.log(3), bits=1000, rng=np.random.default_rng(0),
    ...                                ledger=Ledger(), name="bits")
    >>> round(p, 6), 150 < flips.size < 350
    (0.25, True)
    """
    epsilon = limits.check_epsilon(epsilon)
    secure = is_secure(rng) and not math.isinf(epsilon)
    if secure:
        discrete_noise = _discrete_noise()
        ratio = flip_ratio(epsilon)
        p = -math.expm1(-float(ratio))
    else:
        p = flip_probability(epsilon)
    ledger.record(Release(name, "randomized_response", 1.0, "bits", p, epsilon=epsilon,
                          delta=0.0, rho=epsilon * epsilon / 2, part=part,
                          sampler=(DISCRETE if secure else NUMPY) if p > 0 else None))
    if secure:
        return p, discrete_noise.bernoulli_positions(bits, ratio)
    return p, _numpy_flips(bits, p, rng)


def _numpy_flips(total: int, probability: float,
                 rng: np.random.Generator) -> NDArray[np.int64]:
    """A Bernoulli(p) subset of ``range(total)``, sorted, drawn by its Geometric gaps: O(pN)."""
    if probability == 0 or total == 0:
        return np.zeros(0, dtype=np.int64)
    chunks, last = [], -1
    size = int(total * probability + 5 * math.sqrt(total * probability) + 100)
    while last < total:
        positions = last + np.cumsum(rng.geometric(probability, size=size))
        chunks.append(positions)
        last = int(positions[-1])
    drawn = np.concatenate(chunks)
    return drawn[drawn < total]


def above_threshold(queries: Sequence[float] | NDArray[np.float64], *, threshold: float,
                    sensitivity: float, epsilon: float, rng: np.random.Generator,
                    ledger: Ledger, name: str, part: str | None = None) -> int | None:
    """AboveThreshold (sparse vector): the first ``i`` with ``qᵢ + Lap(4Δ/ε) ≥ T + Lap(2Δ/ε)``.

    Returns ``None`` (⊥) when no query passes. ε-DP however many queries are asked. A secure
    run rounds each query to its noise's grid ``g`` (the threshold's is ``g/2``): the
    queries' sensitivity becomes ``Δ + g``, and both noises are widened by ``(Δ + g)/Δ``
    (:func:`widened`), so the release still costs ε.
    """
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    epsilon = limits.check_epsilon(epsilon)
    q = np.asarray(queries, dtype=float)
    query_scale, relaxed = widened("laplace", sensitivity, 4 * sensitivity / epsilon, rng, 1)
    scale = query_scale / 2
    ledger.record(Release(name, "above_threshold", sensitivity, "utility", scale,
                          epsilon=epsilon, delta=0.0, rho=epsilon**2 / 2, part=part,
                          sampler=sampler_of(rng, scale), relaxation=relaxed))
    noisy_threshold = float(add_noise("laplace", threshold, scale, rng))
    noisy = add_noise("laplace", q, query_scale, rng)
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
    scale = 2 / epsilon
    noisy = add_noise("laplace", values, scale, rng)
    cut = 1 + 2 * math.log(2 / delta) / epsilon
    relaxed = grid_relaxation("laplace", scale, rng, 2, integers=True)  # counts: 0 unless g > 1
    ledger.record(Release(name, "stable_histogram", 2.0, "L1", scale,
                          epsilon=(2.0 + relaxed) / scale if relaxed else epsilon,
                          delta=delta, part=part, sampler=sampler_of(rng, scale),
                          relaxation=relaxed))
    return {k: float(v) for k, v in zip(keys, noisy, strict=True) if v >= cut}
