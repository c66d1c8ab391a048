"""Exact discrete Laplace and Gaussian noise on a power-of-two grid, from cryptographic bits.

Secure mode's sampler (:func:`add_discrete_noise`). A value ``x`` (a vector of n finite
floats) is released as ``(rint(x/g) + Z)·g``: ``x`` rounded to a grid ``g = 2^k`` set by the
noise scale, plus integer noise ``Z`` drawn exactly — discrete Laplace or discrete Gaussian by
Algorithms 1–3 of Canonne, Kamath & Steinke (2020), in integer arithmetic, with rejection
sampling — from the standard library's OpenSSL DRBG (``ssl.RAND_bytes``, bought in buffers).
The samplers are compiled by numba (cached on disk, so a new process loads them instead of
compiling) and run over a whole vector at once without the GIL.

Privacy argument.

1. *What is exact.* Every draw is a function of uniform 64-bit words: a uniform integer below
   ``m`` by Lemire's multiply-and-reject on a word, or on a 32-bit half of one (the discrete
   Gaussian's proposals below ``t ≤ 2^29``; each half read once, a draw's leftover half
   dropped), ``Bernoulli(p/q)`` as ``uniform(q) < p``,
   ``Bernoulli(exp(−γ))`` for rational ``γ`` by Algorithm 1, the discrete Laplace
   ``P(z) ∝ exp(−|z|/b)`` for rational ``b`` by Algorithm 2, and the discrete Gaussian
   ``P(z) ∝ exp(−z²/(2σ²))`` for rational ``σ`` by Algorithm 3 with any proposal scale ``t``
   (``t = σ`` when σ is an integer, else ``⌊σ⌋ + 1``: ``exp(−|y|/t)·exp(−(|y| − σ²/t)²/(2σ²))
   = exp(−y²/(2σ²))·exp(−σ²/(2t²))`` for every ``t > 0``). Its acceptance exponent
   ``(A/S)²/2``, ``A = q·S + r``, is split into ``exp(−q/2)^q · exp(−r/S)^q · exp(−r²/(2S²))``
   so no product leaves 62 bits. When a buffer runs out inside a draw, that draw restarts
   from its first word on the buffer extended with fresh words: the outputs are a fixed
   function of one unbounded stream of words (a draw is never discarded for being long,
   which would bias it). The one departure: a draw beyond ``2^62`` would overflow and raises
   ``OverflowError`` instead (probability below ``exp(−2^20)``, independent of the data).
2. *Why rounding then adding integer noise is DP with a relaxed sensitivity.* Rounding is
   within ``1/2`` grid step, so for neighbours ``x, x'`` each coordinate of
   ``rint(x/g) − rint(x'/g)`` differs from ``(x − x')/g`` by less than 1: the integer vector
   has sensitivity ``Δ/g + n`` in L1 and ``Δ/g + √n`` in L2, i.e. ``Δ + n·g`` and
   ``Δ + √n·g`` in the value's units (clipping ``x/g`` to ``±2^1000`` first is 1-Lipschitz, so
   it changes nothing). Discrete Laplace noise at ``b`` makes an integer vector of L1
   sensitivity ``Δ'`` ``Δ'/b``-DP; discrete Gaussian noise at ``σ`` makes one of L2
   sensitivity ``Δ'`` ``Δ'²/(2σ²)``-zCDP (CKS 2020: every Rényi divergence is at most the
   continuous Gaussian's), the charges of the continuous mechanisms at ``Δ'``; the noise is
   drawn at ``⌈scale/g⌉`` grid steps, at least the scale asked for.
   :func:`~dpviz.privacy.noise_grid.relaxation` is
   that ``n·g`` or ``√n·g``, what OpenDP's own maps add for the same grid, and the ledger
   charges ``Δ +`` it (``Release.relaxation``).
3. *No floating-point leak.* ``g`` is a power of two, so ``x/g`` and the final ``·g`` are exact
   (barring overflow), ``rint`` is exact, and ``rint(x/g) + Z`` is the correctly rounded sum
   of two exact integers (``|Z| ≥ 2^53`` is summed in Python integers): the output is a
   function of the integer ``N = rint(x/g) + Z`` alone, post-processing of a DP release —
   unlike ``x + noise`` in floats, whose low bits depend on ``x`` (Mironov, CCS 2012).
4. *The truncated Laplace* (:func:`add_truncated_discrete_laplace`): the same rounding, and
   discrete Laplace noise conditioned on ``|Z| ≤ M`` by rejection (redrawn from fresh words,
   so the kept draw has the truncated pmf exactly). On integers of L1 sensitivity ``D`` with
   ``D/b ≤ ε`` it is (ε, δ)-DP once ``M`` is
   :func:`~dpviz.privacy.noise_grid.truncation`'s (the proof is there) — the discrete form of
   Geng, Ding, Guo & Kumar's truncated Laplace (AISTATS 2020), whose continuous argument
   carries over term by term. The output lies within ``(M + 1/2)·g`` of the value
   (:func:`~dpviz.privacy.noise_grid.truncated_support`), which callers subtract as a public
   margin.
5. *Randomized response's flips* (:func:`bernoulli_positions`): i.i.d. bits that are 1 with
   probability ``1 − e^-γ`` for a rational γ, as the positions of the ones, whose gaps are
   exact geometric draws (Algorithm 2 without its sign).
   :func:`~dpviz.privacy.noise_grid.flip_ratio` picks γ so that the flip probability is at
   least ``1/(1 + e^ε)`` with both likelihood ratios at most e^ε: the flips are ε-DP as
   drawn, not up to a float's rounding.

The grid is ``2^-28`` of the Gaussian's σ (``σ/g ∈ [2^28, 2^29)``, the largest that keeps the
acceptance test's denominators within 60 bits) and ``2^-40`` of the Laplace's b, so the
relaxation adds ``√n·2^-28`` to a Gaussian's ``Δ/σ`` and ``n·2^-40`` to a Laplace's ε. The
accountants' privacy-loss distributions are the continuous mechanisms'; with 2^28 or more
grid steps per σ (2^40 per b) the discrete ones differ from them far below the accountants'
own discretisation — the approximation OpenDP's float samplers, on the grid ``2^-1074``,
made before.

References
----------
C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential Privacy",
NeurIPS 2020 (arXiv:2004.00010), Algorithms 1, 2 and 3.
Q. Geng, W. Ding, R. Guo and S. Kumar, "Tight Analysis of Privacy and Utility Tradeoff in
Approximate Differential Privacy", AISTATS 2020 (the truncated Laplace).
S. L. Warner, "Randomized Response", JASA 60 (1965).
I. Mironov, "On Significance of the Least Significant Bits for Differential Privacy",
CCS 2012.
"""

from __future__ import annotations

import math
import ssl
from collections.abc import Callable
from fractions import Fraction
from types import MappingProxyType

import numba
import numpy as np
from numba import types
from numba.extending import overload
from numpy.typing import NDArray

from dpviz.privacy.noise_grid import FLIP_DENOMINATOR, grid, truncation

#: Words of the DRBG one draw uses on average at these grids, rounded up (measured over
#: 4·10⁵ draws: 7.02 for the discrete Laplace, 10.39 for the discrete Gaussian, whose
#: proposals draw their uniforms below t from half words, by ``python bench/secure_noise.py``;
#: 6.03 for a geometric gap at ``t = 2^40``): buying what a call needs in one buffer, with a
#: refill for the rare overrun, as unused words cost as much as used ones.
WORDS_PER_DRAW = MappingProxyType({"laplace": 7.1, "gaussian": 10.5, "geometric": 6.1})
#: Words bought beyond the expected need, at every purchase.
MIN_WORDS = 64
#: The largest bound a uniform draw takes (a 62-bit integer: products stay in int64).
MAX_BOUND = 1 << 62
#: The largest grid coordinate ``|x/g|`` kept before rounding (clipping is 1-Lipschitz).
MAX_UNITS = 2.0**1000
#: Integers from here on are not all floats: such noise is summed in Python integers.
FLOAT_INTEGERS = 2**53
#: The largest denominator of :func:`_bernoulli_exp_fraction`: ``den·K < 2^62`` for K ≤ 4.
MAX_FRACTION_DEN = 1 << 60
#: Steps of Algorithm 1 drawn as one ``uniform(den·K)`` (then as two draws).
DIRECT_STEPS = 4
#: Largest Gaussian acceptance denominator ``S``: ``2S²`` is a denominator of Algorithm 1.
MAX_SQUARE_ROOT = 1 << 29

#: ``20!`` and ``20!/K!`` for K = 1..20 (:func:`_bernoulli_exp_one`).
FACTORIAL_20 = math.factorial(20)
FACTORIAL_QUOTIENTS = np.array([FACTORIAL_20 // math.factorial(k) for k in range(1, 21)],
                               dtype=np.int64)
LOW_HALF = np.uint64(0xFFFFFFFF)
HALF = np.uint64(32)
ZERO = np.uint64(0)
TWO_32 = np.uint64(1 << 32)
#: A sampler's state: the next word to read, a stored half word, whether one is stored.
STATE_SIZE = 3
#: Compiled once and cached on disk; without the GIL; and without numba's runtime: nothing
#: here allocates, and without it passing the arrays between these functions costs no atomic
#: reference counts (which took half the time).
_compiled = numba.njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]

_OVERFLOW = "discrete noise beyond 2^62: an event of probability below exp(-2^20)"


@_compiled
def _high_product(x: np.uint64, bound: np.uint64) -> np.uint64:
    """The high 64 bits of the 128-bit product ``x·bound`` (Warren, Hacker's Delight, 8–2)."""
    x_low, x_high = x & LOW_HALF, x >> HALF
    b_low, b_high = bound & LOW_HALF, bound >> HALF
    carry = x_high * b_low + ((x_low * b_low) >> HALF)
    middle = x_low * b_high + (carry & LOW_HALF)
    return x_high * b_high + (carry >> HALF) + (middle >> HALF)


@_compiled
def _uniform(words: NDArray[np.uint64], state: NDArray[np.int64], bound: int) -> np.int64:
    """A uniform integer in ``[0, bound)`` (``1 ≤ bound ≤ 2^62``), or -1 when out of words.

    Lemire's multiply-and-reject (ACM TOMACS 2019): ``⌊x·bound/2^64⌋`` for a uniform 64-bit
    ``x``, rejecting ``x`` when the low half of the product falls below ``2^64 mod bound``;
    exact, one word almost always, with a division only in that rare case. ``state[0]`` is
    the next word to read.
    """
    b = np.uint64(bound)
    while True:
        position = state[0]
        if position >= words.size:
            return np.int64(-1)
        state[0] = position + 1
        x = words[position]
        low = x * b  # the low half of the product (uint64 wraps)
        if low >= b or low >= (ZERO - b) % b:  # the threshold 2^64 mod b is below b
            # np.int64, not int(): numba's int() of a uint64 stays uint64, which merged with
            # the int64 -1 makes a float64 and rounds draws past 2^53
            return np.int64(_high_product(x, b))


@_compiled
def _uniform_half(words: NDArray[np.uint64], state: NDArray[np.int64], bound: int) -> np.int64:
    """A uniform integer in ``[0, bound)`` (``1 ≤ bound ≤ 2^32``), or -1 when out of words.

    Lemire's multiply-and-reject on a 32-bit ``x``: ``⌊x·bound/2^32⌋``, rejecting when the
    product's low 32 bits fall below ``2^32 mod bound`` (the product stays below 2^64). ``x``
    is the stored half word (``state[1]``, when ``state[2]`` is 1), else the low half of the
    next word, whose high half is stored: every bit of a word is read at most once.
    """
    b = np.uint64(bound)
    while True:
        if state[2] == 1:
            x = np.uint64(state[1])
            state[2] = 0
        else:
            position = state[0]
            if position >= words.size:
                return np.int64(-1)
            state[0] = position + 1
            word = words[position]
            x = word & LOW_HALF
            state[1] = np.int64(word >> HALF)
            state[2] = 1
        product = x * b
        low = product & LOW_HALF
        if low >= b or low >= (TWO_32 - b) % b:  # the threshold 2^32 mod b is below b
            return np.int64(product >> HALF)


def _uniform_below(words: NDArray[np.uint64], state: NDArray[np.int64], bound: int) -> int:
    """:func:`_uniform`, or :func:`_uniform_half` for a bound typed as numba's ``uint32``.

    Chosen when numba compiles the caller, by the bound's type, so neither path tests the
    bound at run time (a test in the one shared draw cost the 64-bit samplers a quarter).
    """
    raise NotImplementedError("compiled code only")


@overload(_uniform_below)
def _uniform_below_typed(words, state, bound):  # numba's types, matched by name
    if bound == types.uint32:
        return lambda words, state, bound: _uniform_half(words, state, bound)
    return lambda words, state, bound: _uniform(words, state, bound)


@_compiled
def _bernoulli_exp_fraction(words: NDArray[np.uint64], state: NDArray[np.int64], num: int,
                            den: int) -> int:
    """1 with probability ``exp(−num/den)`` for ``0 ≤ num ≤ den ≤ 2^60``: CKS Algorithm 1, γ ≤ 1.

    Draws ``Bernoulli(γ/K) = [uniform(den·K) < num]`` for K = 1, 2, … until one fails and
    returns whether that K is odd; past K = 4, where ``den·K`` could leave 62 bits, as
    ``Bernoulli(γ)·Bernoulli(1/K)``. -1 when out of words.
    """
    if num == 0:
        return 1
    k = 1
    while True:
        if k <= DIRECT_STEPS:
            u = _uniform(words, state, den * k)
            if u < 0:
                return -1
            if u >= num:
                return k & 1
        else:
            u = _uniform(words, state, den)
            if u < 0:
                return -1
            if u >= num:
                return k & 1
            u = _uniform(words, state, k)
            if u < 0:
                return -1
            if u != 0:
                return k & 1
        k += 1


@_compiled
def _bernoulli_exp_one(words: NDArray[np.uint64], state: NDArray[np.int64]) -> int:
    """1 with probability ``exp(−1)``: CKS Algorithm 1 at γ = 1, its first 20 steps from one word.

    Step K continues with probability ``1/K``, so steps 1..K all continue with ``1/K!``:
    for one ``W`` uniform below ``20!`` the nested events ``W < 20!/K!`` have exactly those
    probabilities, and the first K whose event fails is where Algorithm 1 stops. Past K = 20
    (``W = 0``) it goes on with fresh draws. -1 when out of words.
    """
    w = _uniform(words, state, FACTORIAL_20)
    if w < 0:
        return -1
    k = 1
    for threshold in FACTORIAL_QUOTIENTS:
        k += w < threshold
    if k <= 20:
        return k & 1
    while True:
        u = _uniform(words, state, k)
        if u < 0:
            return -1
        if u != 0:
            return k & 1
        k += 1


@_compiled
def _bernoulli_exp(words: NDArray[np.uint64], state: NDArray[np.int64], num: int,
                   den: int) -> int:
    """1 with probability ``exp(−num/den)`` for any ``num ≥ 0``: CKS Algorithm 1.

    ``⌊γ⌋`` draws of ``Bernoulli(exp(−1))`` (stopping at the first 0), then one of
    ``exp(−(γ − ⌊γ⌋))``. -1 when out of words.
    """
    whole = num // den
    for _ in range(whole):
        b = _bernoulli_exp_one(words, state)
        if b != 1:
            return b
    return _bernoulli_exp_fraction(words, state, num - whole * den, den)


@_compiled
def _geometric(words: NDArray[np.uint64], state: NDArray[np.int64], t: int, s: int,
               most: int) -> tuple[int, bool]:
    """One draw of ``P(y) ∝ exp(−y·s/t)``, ``y ≥ 0``: CKS Algorithm 2 up to its sign.

    ``U`` uniform below ``t`` kept with probability ``exp(−U/t)``, ``V`` geometric from
    ``Bernoulli(exp(−1))``, ``X = U + t·V`` is geometric of ratio ``exp(−1/t)``, and ``⌊X/s⌋``
    of ratio ``exp(−s/t)``. ``most = ⌊(2^62 − t)/t⌋``, the largest V that cannot overflow.
    ``(draw, False)`` out of words.
    """
    while True:
        u = _uniform_below(words, state, t)
        if u < 0:
            return 0, False
        keep = _bernoulli_exp_fraction(words, state, u, t)
        if keep < 0:
            return 0, False
        if keep == 0:
            continue
        v = 0
        while True:
            a = _bernoulli_exp_one(words, state)
            if a < 0:
                return 0, False
            if a == 0:
                break
            v += 1
        if v > most:
            raise OverflowError(_OVERFLOW)
        return (u + t * v if s == 1 else (u + t * v) // s), True


@_compiled
def _discrete_laplace(words: NDArray[np.uint64], state: NDArray[np.int64], t: int, s: int,
                      most: int) -> tuple[int, bool]:
    """One draw of ``P(z) ∝ exp(−|z|·s/t)``: CKS Algorithm 2; ``(draw, False)`` out of words.

    :func:`_geometric` with a random sign, rejecting −0 (and then starting again from U).
    """
    while True:
        y, ok = _geometric(words, state, t, s, most)
        if not ok:
            return 0, False
        negative = _uniform(words, state, 2)
        if negative < 0:
            return 0, False
        if negative == 1 and y == 0:
            continue
        return (1 - 2 * negative) * y, True


@_compiled
def _bernoulli_exp_half_square(words: NDArray[np.uint64], state: NDArray[np.int64], q: int,
                               r: int, root: int) -> int:
    """1 with probability ``exp(−(q + r/S)²/2)``, ``S = root``, ``0 ≤ r < S ≤ 2^29``.

    The exponent ``q²/2 + q·r/S + r²/(2S²)`` is three factors, each with small integers:
    ``exp(−q/2)^q``, ``exp(−r/S)^q`` and ``exp(−r²/(2S²))``. -1 when out of words.
    """
    for _ in range(q):
        b = _bernoulli_exp(words, state, q, 2)
        if b != 1:
            return b
    for _ in range(q):
        b = _bernoulli_exp_fraction(words, state, r, root)
        if b != 1:
            return b
    square = np.int64(r) * np.int64(r)  # below 2^58, exact in int64
    return _bernoulli_exp_fraction(words, state, square, 2 * np.int64(root) * root)


@_compiled
def _discrete_gaussian(words: NDArray[np.uint64], state: NDArray[np.int64], t: int, most: int,
                       cn: int, cd: int, root: int, largest: int) -> tuple[int, bool]:
    """One draw of ``P(z) ∝ exp(−z²/(2σ²))``: CKS Algorithm 3; ``(draw, False)`` out of words.

    Proposes ``Y`` discrete Laplace of scale ``t`` (``most`` as there) and keeps it with
    probability ``exp(−(|Y| − σ²/t)²/(2σ²)) = exp(−(A/S)²/2)`` where ``σ²/t = cn/cd``,
    ``A = ||Y|·cd − cn|`` and ``S = cd·σ = root``; ``largest = ⌊(2^62 − cn)/cd⌋`` bounds
    ``|Y|``. The proposal's scale is passed as a 32-bit unsigned integer, so its uniforms
    below t take half words (:func:`_uniform_below`): 10.4 words a draw instead of 11.2.
    """
    small = np.uint32(t)  # t = ⌈σ⌉ ≤ 2^29 (``root`` ≥ σ is ≤ 2^29): its uniforms take half words
    while True:
        y, ok = _discrete_laplace(words, state, small, 1, most)
        if not ok:
            return 0, False
        size = abs(y)
        if size > largest:
            raise OverflowError(_OVERFLOW)
        a = abs(size * cd - cn)
        if a < root:  # the usual case, without a division
            keep = _bernoulli_exp_half_square(words, state, 0, a, root)
        else:
            keep = _bernoulli_exp_half_square(words, state, a // root, a % root, root)
        if keep < 0:
            return 0, False
        if keep == 1:
            return y, True


@_compiled
def _fill_laplace(out: NDArray[np.int64], start: int, words: NDArray[np.uint64],
                  state: NDArray[np.int64], t: int, s: int, most: int) -> tuple[int, int]:
    """Fill ``out[start:]`` with discrete Laplace draws from ``words``.

    Returns the first index not filled (``out.size`` when done) and the word its draw began
    at: that draw is redone from there once more words follow.
    """
    state[0] = 0
    for i in range(start, out.size):
        began = state[0]
        z, ok = _discrete_laplace(words, state, t, s, most)
        if not ok:
            return i, began
        out[i] = z
    return out.size, state[0]


@_compiled
def _fill_geometric(out: NDArray[np.int64], start: int, words: NDArray[np.uint64],
                    state: NDArray[np.int64], t: int, s: int, most: int) -> tuple[int, int]:
    """Fill ``out[start:]`` with :func:`_geometric` draws; as :func:`_fill_laplace`."""
    state[0] = 0
    for i in range(start, out.size):
        began = state[0]
        y, ok = _geometric(words, state, t, s, most)
        if not ok:
            return i, began
        out[i] = y
    return out.size, state[0]


@_compiled
def _fill_gaussian(out: NDArray[np.int64], start: int, words: NDArray[np.uint64],
                   state: NDArray[np.int64], t: int, most: int, cn: int, cd: int, root: int,
                   largest: int) -> tuple[int, int]:
    """Fill ``out[start:]`` with discrete Gaussian draws; as :func:`_fill_laplace`."""
    state[0] = 0
    for i in range(start, out.size):
        began = state[0]
        state[2] = 0  # a draw starts on a whole word: a redone draw reads the same bits
        z, ok = _discrete_gaussian(words, state, t, most, cn, cd, root, largest)
        if not ok:
            return i, began
        out[i] = z
    return out.size, state[0]


def _random_words(count: int) -> NDArray[np.int64]:
    """``count`` uniform 64-bit words from OpenSSL's DRBG (read-only, one compiled variant)."""
    return np.frombuffer(ssl.RAND_bytes(8 * count), dtype=np.uint64)


def _draw(fill: Callable[..., tuple[int, int]], size: int, words_each: float,
          *parameters: int) -> NDArray[np.int64]:
    """``size`` draws by ``fill`` from one stream of DRBG words, bought in buffers.

    A draw cut off by the end of a buffer is redone from its first word on the rest of the
    buffer followed by fresh words, so every draw reads the stream as if it had no end.
    """
    out = np.empty(size, dtype=np.int64)
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    words = _random_words(MIN_WORDS + math.ceil(words_each * size))
    done = 0
    while True:
        done, began = fill(out, done, words, state, *parameters)
        if done == size:
            return out
        more = _random_words(MIN_WORDS + math.ceil(words_each * (size - done)))
        words = np.concatenate((words[began:], more))
        words.flags.writeable = False


def _rational(value: Fraction | int, name: str) -> Fraction:
    value = Fraction(value)
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    return value


def discrete_laplace(scale: Fraction | int, size: int) -> NDArray[np.int64]:
    """``size`` independent draws of ``P(z) ∝ exp(−|z|/scale)`` on the integers (exact).

    CKS 2020 Algorithm 2 with ``scale = t/s`` in lowest terms (``t ≤ 2^60``).

    Examples
    --------
    >>> z = discrete_laplace(3, 1000)
    >>> z.dtype, z.shape
    (dtype('int64'), (1000,))
    """
    b = _rational(scale, "the discrete Laplace's scale")
    if b.numerator > MAX_FRACTION_DEN:
        raise ValueError(f"the discrete Laplace's scale needs a numerator ≤ 2^60, got {b}")
    t = b.numerator
    return _draw(_fill_laplace, size, WORDS_PER_DRAW["laplace"], t, b.denominator,
                 (MAX_BOUND - t) // t)


def discrete_gaussian(sigma: Fraction | int, size: int) -> NDArray[np.int64]:
    """``size`` independent draws of ``P(z) ∝ exp(−z²/(2σ²))`` on the integers (exact).

    CKS 2020 Algorithm 3 for a rational ``σ``, proposing from the discrete Laplace of scale
    ``t = σ`` (an integer σ) or ``⌊σ⌋ + 1``; ``cd·σ`` must stay ≤ 2^29, where ``cd`` is the
    denominator of ``σ²/t`` (an integer σ ≤ 2^29 always does).

    Examples
    --------
    >>> from fractions import Fraction
    >>> discrete_gaussian(Fraction(1, 2), 5).shape
    (5,)
    """
    s = _rational(sigma, "the discrete Gaussian's σ")
    t = math.ceil(s)
    c = s * s / t
    root = c.denominator * s
    if root.denominator != 1 or root > MAX_SQUARE_ROOT:
        raise ValueError(f"the discrete Gaussian's σ = {s} needs σ·denominator(σ²/t) to be an "
                         "integer ≤ 2^29")
    return _draw(_fill_gaussian, size, WORDS_PER_DRAW["gaussian"], t, (MAX_BOUND - t) // t,
                 c.numerator, c.denominator, int(root),
                 (MAX_BOUND - c.numerator) // c.denominator)


def add_discrete_noise(mechanism: str, values: NDArray[np.float64],
                       scale: float) -> NDArray[np.float64]:
    """``(rint(values/g) + Z)·g``: finite ``values`` with exact discrete noise of ``scale``.

    ``Z`` is discrete Laplace (``b = scale``) or discrete Gaussian (``σ = scale``) in grid
    units, drawn at ``⌈scale/g⌉`` steps; the output is a function of the integer vector
    ``rint(values/g) + Z`` (see the module's privacy argument), and the ledger charges the
    sensitivity plus :func:`~dpviz.privacy.noise_grid.relaxation`.

    Examples
    --------
    >>> out = add_discrete_noise("gaussian", np.array([0.25, 1e6]), 1.0)
    >>> bool(np.all(out / grid("gaussian", 1.0) == np.rint(out / grid("gaussian", 1.0))))
    True
    """
    step = grid(mechanism, scale)
    draw = discrete_laplace if mechanism == "laplace" else discrete_gaussian
    return _released(values, draw(math.ceil(scale / step), values.size), step)


def _released(values: NDArray[np.float64], noise: NDArray[np.int64],
              step: float) -> NDArray[np.float64]:
    """``(rint(values/step) + noise)·step``, computed exactly (the module's point 3)."""
    rounded = np.rint(np.clip(values / step, -MAX_UNITS, MAX_UNITS))
    # exact while |noise| < 2^53: the correctly rounded sum of two integers
    total: NDArray[np.float64] = rounded + noise
    far = np.flatnonzero(np.abs(noise) >= FLOAT_INTEGERS)
    for i in far:
        total[i] = float(int(rounded[i]) + int(noise[i]))
    return np.multiply(total, step, out=total)


def add_truncated_discrete_laplace(values: NDArray[np.float64], scale: float, epsilon: float,
                                   delta: float) -> NDArray[np.float64]:
    """``values`` on the Laplace grid plus discrete Laplace noise truncated at ``M`` steps.

    The noise is drawn at ``⌈scale/g⌉`` grid steps and redrawn wherever it falls beyond
    ``M`` steps (:func:`~dpviz.privacy.noise_grid.truncation`; rejection sampling: the kept
    draws follow the truncated pmf exactly); the output is within
    :func:`~dpviz.privacy.noise_grid.truncated_support` of each value. The caller widens
    ``scale`` so that ``ε·⌈scale/g⌉`` is at least the rounded values' integer L1
    sensitivity, ``Δ/g + n``.

    Examples
    --------
    >>> out = add_truncated_discrete_laplace(np.zeros(1000), 1.0, 1.0, 1e-3)
    >>> from dpviz.privacy.noise_grid import truncated_support
    >>> bool(np.abs(out).max() <= truncated_support(1.0, 1.0, 1e-3))
    True
    """
    step = grid("laplace", scale)
    units = math.ceil(scale / step)
    most = truncation(units, epsilon, delta)
    noise = discrete_laplace(units, values.size)
    outside = np.flatnonzero(np.abs(noise) > most)
    while outside.size:
        noise[outside] = discrete_laplace(units, outside.size)
        outside = outside[np.abs(noise[outside]) > most]
    return _released(values, noise, step)


def bernoulli_positions(total: int, ratio: Fraction) -> NDArray[np.int64]:
    """The sorted positions in ``range(total)`` of i.i.d. ``Bernoulli(1 − e^-ratio)`` bits.

    Exact and O(expected ones): the gaps between ones are i.i.d. geometric,
    ``P(gap = y + 1) = e^(-ratio·y)(1 − e^-ratio)``, drawn by :func:`_geometric` (CKS
    Algorithm 2 without its sign) for ``ratio = s/t``, ``t ≤ 2^40``, and cumulated until
    they pass ``total``.

    Examples
    --------
    >>> from dpviz.privacy.noise_grid import flip_ratio
    >>> bits = bernoulli_positions(10_000, flip_ratio(math.log(3)))
    >>> bool(np.all(np.diff(bits) > 0)), 2_000 < bits.size < 3_000
    (True, True)
    """
    if not (ratio > 0 and ratio.denominator <= FLIP_DENOMINATOR):
        raise ValueError(f"the flips' ratio must be > 0 with a denominator <= 2^40, got {ratio}")
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    t, s = ratio.denominator, ratio.numerator
    p = -math.expm1(-float(ratio))
    size = int(total * p + 5 * math.sqrt(total * p) + 100)
    chunks, last = [], -1
    while last < total:
        gaps = _draw(_fill_geometric, size, WORDS_PER_DRAW["geometric"], t, s,
                     (MAX_BOUND - t) // t)
        positions = last + np.cumsum(gaps + 1)
        chunks.append(positions)
        last = int(positions[-1])
    drawn = np.concatenate(chunks)
    return drawn[drawn < total]
