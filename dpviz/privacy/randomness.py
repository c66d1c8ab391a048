"""Secure randomness: a generator from OS entropy, marked so mechanisms use float-safe samplers.

A fixed seed is *teaching randomness*: anyone who knows it redraws the noise. A
:class:`SecureGenerator` is seeded from :mod:`secrets` (OS entropy) and is never shown; the
mechanisms of :mod:`dpviz.privacy.mechanisms` draw its Laplace, Gaussian and truncated
Laplace noise and randomized response's flips with the exact discrete samplers of
:mod:`dpviz.privacy.discrete_noise` on a grid, and its exponential-mechanism choices with
OpenDP's noisy max, instead of numpy's floating-point draws (Mironov, CCS 2012).

Its other draws come from numpy's Philox, a counter-based generator keyed with the 128
secret bits: data-independent choices (a random start, subsamples, a grid's random shift, an
edge split, a permutation) and the Bingham sampler of the exponential mechanism on the sphere.
Unlike PCG64, whose state can be recovered from its outputs (Bouillaguet et al., 2020), no
attack recovers Philox's key from what a page shows — but it is not a proven cryptographic
generator. The discrete samplers draw their bits from OpenSSL's DRBG (``ssl.RAND_bytes``)
and OpenDP from the operating system's CSPRNG, neither from the generator.

Two releases are not float-safe, and their ledger rows say so: that Bingham sampler's
(``sampler`` names it), and the masking mechanism's means and covariances, whose discrete
noise is transformed and added in floating point (``"discrete+float"``).
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

#: Bits of OS entropy drawn for a secure generator.
ENTROPY_BITS = 128


class SecureGenerator(np.random.Generator):
    """A ``numpy.random.Generator`` seeded from OS entropy: its noise is a private release.

    Spawned children stay secure, and so do copies and pickles (a sweep's worker gets a
    secure generator back).
    """

    def __reduce__(self) -> tuple[Any, ...]:
        return (SecureGenerator, (self.bit_generator,))


def secure_generator(entropy: int | None = None) -> SecureGenerator:
    """A secure generator: ``Philox`` keyed from ``entropy``, fresh OS entropy by default.

    ``entropy`` exists so a test can build two identical secure generators; a caller that
    passes it must keep it secret, as it recomputes every draw made from the generator.

    Examples
    --------
    >>> is_secure(secure_generator())
    True
    """
    if entropy is None:
        entropy = secrets.randbits(ENTROPY_BITS)
    elif isinstance(entropy, bool) or not isinstance(entropy, int) or entropy < 0:
        raise ValueError(f"entropy must be a non-negative integer, got {entropy!r}")
    return SecureGenerator(np.random.Philox(entropy))


def is_secure(rng: object) -> bool:
    """Whether ``rng`` is a :class:`SecureGenerator` (its noise comes from cryptographic bits).

    Examples
    --------
    >>> is_secure(np.random.default_rng(0))
    False
    """
    return isinstance(rng, SecureGenerator)
