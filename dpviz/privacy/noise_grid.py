"""The secure sampler's grid arithmetic, without numba: what a secure release costs.

Public numbers only — the grid step of a noise scale (:func:`grid`), what rounding to it adds
to a sensitivity (:func:`relaxation`), where the truncated discrete Laplace stops
(:func:`truncation`, :func:`truncated_support`) and randomized response's exact flip ratio
(:func:`flip_ratio`). The samplers themselves are :mod:`dpviz.privacy.discrete_noise`, whose
docstring carries the privacy argument; the accounting (:mod:`dpviz.privacy.mechanisms`) and
public margins need only this module, so a seeded run never loads numba.
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import MappingProxyType

#: Grid steps per noise scale, as a power of two: ``scale/g ∈ [2^bits, 2^(bits + 1))``.
GRID_BITS = MappingProxyType({"laplace": 40, "gaussian": 28})
#: The flips' ratio is ``s/FLIP_DENOMINATOR`` (:func:`flip_ratio`): the geometric sampler's
#: ``t``, at which ``V`` overflows with probability below ``exp(−2^20)``.
FLIP_DENOMINATOR = 1 << 40
#: The smallest ε randomized response's exact flips take (:func:`flip_ratio`).
FLIP_EPSILON_MIN = 2.0**-38


def grid(mechanism: str, scale: float) -> float:
    """The grid step ``g = 2^k`` of ``mechanism``'s noise at ``scale``.

    ``scale/g ∈ [2^b, 2^(b+1))`` with ``b`` from :data:`GRID_BITS` (28 for the Gaussian, 40
    for the Laplace).

    Examples
    --------
    >>> grid("gaussian", 1.0) == 2.0**-28, grid("laplace", 3.0) == 2.0**-39
    (True, True)
    """
    _, exponent = math.frexp(scale)  # scale = m·2^exponent, m ∈ [1/2, 1)
    step = math.ldexp(1.0, exponent - 1 - GRID_BITS[mechanism])
    if step < 2.0**-1022:
        raise ValueError(f"the noise scale {scale:g} is too small for the secure sampler's "
                         f"grid: it must be at least 2^{GRID_BITS[mechanism] - 1021}")
    return step


def relaxation(mechanism: str, scale: float, coordinates: int, *,
               integers: bool = False) -> float:
    """What rounding ``coordinates`` entries to the grid adds to the sensitivity.

    ``n·g`` for the Laplace (L1), ``√n·g`` for the Gaussian (L2), ``g`` = :func:`grid`; 0 for
    ``integers`` (integer values lie on any grid ``g ≤ 1``). OpenDP's ``make_laplace`` and
    ``make_gaussian`` add the same for the same grid (``k = log2 g``).

    Examples
    --------
    >>> relaxation("laplace", 1.0, 4) == 4 * 2.0**-40
    True
    >>> relaxation("laplace", 2.0, 3, integers=True)
    0.0
    """
    step = grid(mechanism, scale)
    if integers and step <= 1:
        return 0.0
    if mechanism == "laplace":
        return coordinates * step
    root = math.sqrt(coordinates)
    return (root if math.isqrt(coordinates) ** 2 == coordinates
            else math.nextafter(root, math.inf)) * step


def truncation(units: int, epsilon: float, delta: float) -> int:
    """``M``: where the truncated discrete Laplace of scale ``units`` stops, in grid steps.

    ``P(z) ∝ q^|z|`` on ``|z| ≤ M``, ``q = exp(−1/units)``, is (ε, δ)-DP for integer shifts
    ``d ≤ ε·units``: where both outputs are possible their ratio is at most ``q^-d ≤ e^ε``
    (the two share one normalising constant), and the outputs only one side can give have
    probability ``q^(M−d+1)(1 − q^d)/((1 − q) + 2q(1 − q^M))``, which is at most δ exactly
    when ``q^M ≤ δ(1 + q)/(q(e^(d/units) − 1 + 2δ))`` (and ``M ≥ d − 1``), i.e.
    ``M ≥ units·(ln(e^ε − 1 + 2δ) − ln δ − ln(1 + q) − 1/units)`` at ``d = ε·units``; as
    ``units → ∞`` this is Geng et al.'s ``A/b = ln(1 + (e^ε − 1)/(2δ))``. The float
    evaluation is rounded up with a margin of ``2^-40`` of its terms (thousands of times its
    rounding error), and M is at least ``ε·units``.

    Examples
    --------
    >>> m = truncation(2**40, 1.0, 1e-6)
    >>> round(m / 2**40, 6) == round(math.log1p(math.expm1(1.0) / 2e-6), 6)
    True
    """
    h = 1 / units
    log_excess = (math.log(math.expm1(epsilon) + 2 * delta) if epsilon < 1
                  else epsilon + math.log1p((2 * delta - 1) * math.exp(-epsilon)))
    log_delta = math.log(delta)
    need = log_excess - log_delta - math.log1p(math.exp(-h)) - h
    margin = 2.0**-40 * (abs(log_excess) + abs(log_delta) + 2)
    return max(math.ceil(units * (need + margin)), math.ceil(epsilon * units))


def truncated_support(scale: float, epsilon: float, delta: float) -> float:
    """How far the secure truncated Laplace moves a value: ``(M + 1/2)·g``.

    ``M`` grid steps of noise (:func:`truncation`) and half a step of rounding
    (:func:`dpviz.privacy.discrete_noise.add_truncated_discrete_laplace`).

    Examples
    --------
    >>> a = math.log1p(math.expm1(1.0) / 2e-6)  # Geng et al.'s A at b = 1
    >>> 0 < truncated_support(1.0, 1.0, 1e-6) - a < 1e-9
    True
    """
    step = grid("laplace", scale)
    return (truncation(math.ceil(scale / step), epsilon, delta) + 0.5) * step


def flip_ratio(epsilon: float) -> Fraction:
    """γ = s/2^40 for randomized response's exact flips at ε: flip probability ``1 − e^-γ``.

    The smallest such γ at least ``ln(1 + e^-ε)`` (its float evaluation raised by a relative
    2^-48, more than its rounding error), so ``p̂ = 1 − e^-γ ≥ 1/(1 + e^ε) = p``: a bit kept
    with probability ``1 − p̂ ≤ 1 − p`` and flipped with ``p̂ ≥ p``, whose ratio ``1/(e^γ − 1)``
    is at most e^ε. The other ratio, ``e^γ − 1``, is at most e^ε too as γ exceeds
    ``ln(1 + e^-ε)`` by at most ``2^-40·1.01``, which is below ``e^ε − e^-ε ≥ 2ε`` for
    ``ε ≥ 2^-38`` — the smallest ε taken. So the flips are ε-DP exactly (Warner 1965;
    Dwork & Roth 2014, §3.2).

    Examples
    --------
    >>> g = flip_ratio(math.log(3))
    >>> 0 <= -math.expm1(-float(g)) - 0.25 < 1e-12
    True
    """
    if not FLIP_EPSILON_MIN <= epsilon < math.inf:
        raise ValueError(f"secure randomized response needs a finite epsilon >= 2^-38, got "
                         f"{epsilon}")
    gamma = math.log1p(math.exp(-epsilon))
    return Fraction(max(1, math.ceil(gamma * (1 + 2.0**-48) * FLIP_DENOMINATOR)),
                    FLIP_DENOMINATOR)
