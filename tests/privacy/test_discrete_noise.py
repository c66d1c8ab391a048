"""The exact discrete samplers of secure mode (issue 33): distribution, grid, charge.

The samplers draw from OpenSSL's DRBG, so nothing here is seeded: each goodness-of-fit test
passes at p > 1e-6 (a correct sampler fails once in a million runs) and rejects a scale off by
10 % below 1e-12. OpenDP's own privacy maps, on the same grid, check the ledger's charge.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import opendp.prelude as dp
import pytest
from scipy import stats

from dpviz.privacy import Ledger, discrete_noise, gaussian, laplace, noise_grid, symmetric_laplace
from dpviz.privacy.discrete_noise import add_discrete_noise, discrete_gaussian, discrete_laplace
from dpviz.privacy.noise_grid import GRID_BITS, grid, relaxation
from dpviz.privacy.randomness import is_secure, secure_generator

DRAWS = 200_000
PASS = 1e-6
REJECT = 1e-12
SCALES = [Fraction(1, 2), Fraction(3), Fraction(20)]


def laplace_pmf(z: np.ndarray, b: Fraction) -> np.ndarray:
    """``P(z) = (1 − q)/(1 + q)·q^|z|``, ``q = exp(−1/b)``: the discrete Laplace."""
    q = math.exp(-1 / float(b))
    return (1 - q) / (1 + q) * q ** np.abs(z)


def gaussian_pmf(z: np.ndarray, sigma: Fraction) -> np.ndarray:
    """``exp(−z²/(2σ²))`` normalised over the integers (the sum converges within ±40σ)."""
    two_variance = 2 * float(sigma) ** 2
    support = np.arange(-40 * math.ceil(sigma) - 40, 40 * math.ceil(sigma) + 41)
    return np.exp(-z.astype(float) ** 2 / two_variance) / np.exp(
        -support.astype(float) ** 2 / two_variance).sum()


def chi2_p(draws: np.ndarray, pmf) -> float:
    """Chi-square p-value of ``draws`` against ``pmf``: a cell per value expected ≥ 5 times,
    the rest (tails, beyond the draws too) pooled into one cell."""
    half = int(np.abs(draws).max())
    expected = pmf(np.arange(-half, half + 1)) * draws.size
    counts = np.bincount(draws + half, minlength=expected.size)
    big = expected >= 5
    observed = np.append(counts[big], counts[~big].sum())
    expect = np.append(expected[big], draws.size - expected[big].sum())
    return float(stats.chisquare(observed, expect).pvalue)


@pytest.mark.parametrize("b", SCALES, ids=str)
def test_discrete_laplace_matches_its_exact_pmf(b):
    draws = discrete_laplace(b, DRAWS)
    assert chi2_p(draws, lambda z: laplace_pmf(z, b)) > PASS
    assert chi2_p(draws, lambda z: laplace_pmf(z, b * Fraction(11, 10))) < REJECT
    assert chi2_p(draws, lambda z: laplace_pmf(z, b * Fraction(9, 10))) < REJECT


@pytest.mark.parametrize("sigma", SCALES, ids=str)
def test_discrete_gaussian_matches_its_exact_pmf(sigma):
    draws = discrete_gaussian(sigma, DRAWS)
    assert chi2_p(draws, lambda z: gaussian_pmf(z, sigma)) > PASS
    assert chi2_p(draws, lambda z: gaussian_pmf(z, sigma * Fraction(11, 10))) < REJECT
    assert chi2_p(draws, lambda z: gaussian_pmf(z, sigma * Fraction(9, 10))) < REJECT


def test_a_half_sigma_gaussian_puts_the_exact_mass_on_zero():
    """At σ = 1/2 the discrete Gaussian is far from the continuous one: P(0) = 0.7865…"""
    sigma = Fraction(1, 2)
    draws = discrete_gaussian(sigma, DRAWS)
    p0 = float(gaussian_pmf(np.array([0]), sigma)[0])
    assert p0 == pytest.approx(0.78657, abs=1e-5)
    se = math.sqrt(p0 * (1 - p0) / DRAWS)
    assert abs(np.mean(draws == 0) - p0) < 6 * se


def test_samplers_refuse_what_they_cannot_draw_exactly():
    with pytest.raises(ValueError, match="must be > 0"):
        discrete_laplace(0, 3)
    with pytest.raises(ValueError, match="2\\^60"):
        discrete_laplace(2**61, 3)
    with pytest.raises(ValueError, match="2\\^29"):
        discrete_gaussian(Fraction(2**40 + 1, 3), 3)
    with pytest.raises(ValueError, match="too small"):
        grid("gaussian", 1e-300)


#: Compiles every sampler afresh (an empty cache: a cached caller never compiles its callees)
#: and prints each compiled function's name and signatures.
SIGNATURES = """
import numba
from fractions import Fraction
from dpviz.privacy import discrete_noise as d
d.discrete_laplace(3, 100), d.discrete_gaussian(Fraction(7, 2), 100)
d.bernoulli_positions(1000, Fraction(1, 3))
for name, f in vars(d).items():
    if isinstance(f, numba.core.registry.CPUDispatcher):
        print(name, '|', ' '.join(map(str, f.nopython_signatures)) or 'uncompiled')
"""


@pytest.mark.slow  # compiles every sampler from an empty cache in a subprocess: 8 s
def test_every_compiled_sampler_computes_in_integers(tmp_path):
    """No argument or result of a compiled sampler is a float (a float64 rounds past 2^53)."""
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    listing = subprocess.run([sys.executable, "-c", SIGNATURES], env=environment, check=True,
                             capture_output=True, text=True).stdout.splitlines()
    signatures = dict(line.split(" | ") for line in listing)
    assert {"_uniform", "_bernoulli_exp_one", "_discrete_gaussian", "_fill_geometric"} <= set(
        signatures)
    assert [name for name, s in signatures.items() if "float" in s or s == "uncompiled"] == []


def test_the_last_word_below_20_factorial_is_compared_exactly():
    """The word ``2^64 − 1`` gives ``W = 20! − 1``: Algorithm 1 stops at K = 2 and returns 0.

    As a float64, ``20! − 1`` rounds to ``20!`` and the first step would fail, returning 1.
    """
    last = np.frombuffer(np.array([2**64 - 1], dtype=np.uint64).tobytes(), dtype=np.uint64)
    state = np.zeros(discrete_noise.STATE_SIZE, dtype=np.int64)
    assert discrete_noise._uniform(last, state, discrete_noise.FACTORIAL_20) == (
        discrete_noise.FACTORIAL_20 - 1)
    state[0] = 0
    assert discrete_noise._bernoulli_exp_one(last, state) == 0


def test_a_32_bit_bound_reads_each_half_word_once():
    """Below 3 from the word ``0xFFFFFFFF_00000000``: the low half 0 is rejected (under
    ``2^32 mod 3 = 1``), the high half gives ``⌊(2^32 − 1)·3/2^32⌋ = 2``; one word read, no half
    left; the next draw, with no words left, says so; and a word's two halves are two draws."""
    word = np.array([0xFFFFFFFF_00000000], dtype=np.uint64)
    state = np.zeros(discrete_noise.STATE_SIZE, dtype=np.int64)
    assert discrete_noise._uniform_half(word, state, 3) == 2
    assert state.tolist() == [1, 0xFFFFFFFF, 0]
    assert discrete_noise._uniform_half(word, state, 3) == -1
    both = np.array([0x00000007_80000000], dtype=np.uint64)  # low half 2^31, high half 7
    state[:] = 0
    assert [discrete_noise._uniform_half(both, state, 2**32) for _ in range(2)] == [2**31, 7]


def test_a_buffer_that_runs_out_mid_draw_restarts_that_draw(monkeypatch):
    """A one-word-short buffer forces refills inside draws; the draws still fit the pmf."""
    monkeypatch.setattr(discrete_noise, "WORDS_PER_DRAW", {"laplace": 0.0, "gaussian": 0.0})
    monkeypatch.setattr(discrete_noise, "MIN_WORDS", 1)
    draws = discrete_gaussian(3, 20_000)
    assert chi2_p(draws, lambda z: gaussian_pmf(z, Fraction(3))) > PASS


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_the_release_is_a_function_of_an_integer_on_the_grid(mechanism):
    scale = 0.37
    g = grid(mechanism, scale)
    assert math.log2(g).is_integer()
    assert 2.0 ** GRID_BITS[mechanism] <= scale / g < 2.0 ** (
        GRID_BITS[mechanism] + 1)
    values = np.array([0.1, -3.3, 1e12, 5e-300, -0.0])
    out = add_discrete_noise(mechanism, values, scale)
    assert np.array_equal(out / g, np.rint(out / g))  # every output is N·g, N an integer
    noise = add_discrete_noise(mechanism, np.zeros(DRAWS), scale)
    family = stats.laplace(scale=scale) if mechanism == "laplace" else stats.norm(scale=scale)
    assert stats.kstest(noise, family.cdf).pvalue > PASS
    wrong = stats.laplace(scale=1.1 * scale) if mechanism == "laplace" else stats.norm(
        scale=1.1 * scale)
    assert stats.kstest(noise, wrong.cdf).pvalue < REJECT


@pytest.mark.parametrize("n", [1, 4, 7, 1000])
@pytest.mark.parametrize("scale", [0.01, 1.0, 37.5])
def test_opendp_charges_what_the_ledger_records_on_the_same_grid(n, scale):
    """OpenDP's make_laplace / make_gaussian at granularity k = log2(g), on vectors of n floats,
    charge exactly what the ledger's secure row does (the relaxation included)."""
    dp.enable_features("contrib")
    sensitivity = 0.8
    floats = dp.vector_domain(dp.atom_domain(T=float, nan=False), size=n)
    rng = secure_generator()
    ledger = Ledger()
    laplace(np.zeros(n), sensitivity=sensitivity, scale=scale, rng=rng, ledger=ledger, name="l")
    gaussian(np.zeros(n), sensitivity=sensitivity, sigma=scale, rng=rng, ledger=ledger,
             name="g")
    lap_row, gau_row = ledger.releases
    k_lap = int(math.log2(grid("laplace", lap_row.scale)))
    k_gau = int(math.log2(grid("gaussian", gau_row.scale)))
    lap = dp.m.make_laplace(floats, dp.l1_distance(T=float), scale=lap_row.scale, k=k_lap)
    gau = dp.m.make_gaussian(floats, dp.l2_distance(T=float), scale=gau_row.scale, k=k_gau)
    assert lap.map(sensitivity) == pytest.approx(lap_row.epsilon, rel=1e-12)
    assert lap.map(sensitivity) == pytest.approx(lap_row.event().epsilon, rel=1e-12)
    assert gau.map(sensitivity) == pytest.approx(gau_row.rho, rel=1e-12)
    assert gau.map(sensitivity) == pytest.approx(gau_row.event().mu ** 2 / 2, rel=1e-12)
    # the scale is widened so that the release costs what was planned at `scale`
    assert lap_row.epsilon == pytest.approx(sensitivity / scale, rel=1e-14)
    assert gau_row.rho == pytest.approx(sensitivity**2 / (2 * scale**2), rel=1e-14)
    assert lap_row.scale > scale and gau_row.scale > scale


def test_the_ledger_records_the_relaxation_and_says_which_sampler():
    rng, ledger = secure_generator(), Ledger()
    laplace(np.zeros(10), sensitivity=1.0, scale=2.0, rng=rng, ledger=ledger, name="l")
    gaussian(np.zeros(9), sensitivity=1.0, sigma=2.0, rng=rng, ledger=ledger, name="g")
    symmetric_laplace(np.zeros((3, 3)), sensitivity=1.0, scale=2.0, rng=rng, ledger=ledger,
                      name="m")
    laplace(np.zeros(4), sensitivity=1.0, scale=2.0, rng=np.random.default_rng(0),
            ledger=ledger, name="seeded")
    lap, gau, sym, seeded = ledger.releases
    assert lap.relaxation == 10 * 2.0**-39 and lap.sampler == "discrete"
    assert gau.relaxation == 3 * 2.0**-27 and gau.sampler == "discrete"  # √9·g
    assert sym.relaxation == 6 * 2.0**-39  # the 6 entries of the upper triangle
    assert lap.scale == pytest.approx(2.0 * (1 + lap.relaxation), rel=1e-15)
    assert lap.epsilon == (1.0 + lap.relaxation) / lap.scale == pytest.approx(0.5, rel=1e-15)
    assert lap.epsilon <= 0.5
    assert lap.to_dict()["relaxation"] == lap.relaxation
    assert seeded.relaxation == 0.0 and "relaxation" not in seeded.to_dict()
    assert seeded.sampler == "numpy" and seeded.epsilon == 0.5


def test_relaxation_is_an_upper_bound_and_zero_for_integers_on_a_fine_grid():
    g = grid("gaussian", 1.0)
    assert relaxation("gaussian", 1.0, 2) >= math.sqrt(2) * g
    assert relaxation("gaussian", 1.0, 2) == pytest.approx(math.sqrt(2) * g, rel=1e-15)
    assert relaxation("laplace", 2.0, 2, integers=True) == 0.0
    assert relaxation("laplace", 2.0**45, 2, integers=True) == 2 * grid("laplace", 2.0**45)


# ------------------------------------- the truncated Laplace and randomized response (issue 36)


def truncated_delta(units: int, shift: int, most: int) -> float:
    """The truncated discrete Laplace's δ at an integer shift: the mass of the outputs only
    one side can give, summed term by term."""
    q = math.exp(-1 / units)
    total = 1 + 2 * sum(q**j for j in range(1, most + 1))
    return sum(q**j for j in range(most - shift + 1, most + 1)) / total


@pytest.mark.parametrize(("units", "epsilon", "delta"),
                         [(3, 1.0, 1e-3), (20, 0.5, 1e-6), (1000, 0.2, 0.05)])
def test_truncation_is_the_smallest_that_keeps_delta(units, epsilon, delta):
    """Summed directly, ``M`` keeps the δ of a shift of ε·units within δ, and ``M − 1``
    does not: the closed form is exact, its margin below a grid step."""
    shift = round(epsilon * units)
    most = noise_grid.truncation(units, epsilon, delta)
    assert truncated_delta(units, shift, most) <= delta < truncated_delta(units, shift, most - 1)


def test_the_truncated_discrete_laplace_matches_its_pmf(monkeypatch):
    """On a coarse grid (8 steps per b, so the pmf can be counted) the noise is the discrete
    Laplace conditioned on ``|z| ≤ M``: it reaches ±M, never beyond, with the exact pmf."""
    monkeypatch.setattr(noise_grid, "GRID_BITS", {**noise_grid.GRID_BITS, "laplace": 3})
    epsilon, delta = 0.5, 0.05
    g = grid("laplace", 1.0)
    units = math.ceil(1.0 / g)
    most = noise_grid.truncation(units, epsilon, delta)
    z = np.rint(discrete_noise.add_truncated_discrete_laplace(np.zeros(DRAWS), 1.0, epsilon,
                                                              delta) / g).astype(np.int64)
    assert np.abs(z).max() == most and z.min() == -most
    q = math.exp(-1 / units)
    norm = 1 + 2 * sum(q**j for j in range(1, most + 1))

    def pmf(values):
        return np.where(np.abs(values) <= most, q ** np.abs(values) / norm, 0.0)

    assert chi2_p(z, pmf) > PASS
    assert chi2_p(z, lambda v: laplace_pmf(v, Fraction(units))) < REJECT  # not untruncated


def test_flips_are_exact_bernoulli_bits():
    """The positions' count is Binomial(N, p̂) and their gaps geometric of ratio 1 − p̂."""
    ratio = noise_grid.flip_ratio(1.0)
    p = -math.expm1(-float(ratio))
    total = 2_000_000
    ones = discrete_noise.bernoulli_positions(total, ratio)
    assert np.all(np.diff(ones) > 0) and ones[0] >= 0 and ones[-1] < total
    assert stats.binomtest(ones.size, total, p).pvalue > PASS
    assert stats.binomtest(ones.size, total, p * 1.01).pvalue < REJECT
    gaps = np.diff(ones) - 1
    assert chi2_p(gaps, lambda y: np.where(y >= 0, p * (1 - p) ** np.abs(y), 0.0)) > PASS


@pytest.mark.parametrize("epsilon", [2.0**-38, 1e-6, 0.1, 1.0, 5.0, 20.0, 40.0, 745.0, 1000.0])
def test_the_flip_ratio_is_epsilon_dp_exactly(epsilon):
    """In 60-digit arithmetic: ``p̂ = 1 − e^-γ ≥ 1/(1 + e^ε)`` (by at most 2^-40) and both
    likelihood ratios of a flipped bit are at most e^ε."""
    from decimal import Decimal, localcontext

    ratio = noise_grid.flip_ratio(epsilon)
    with localcontext() as ctx:
        ctx.prec = 60
        eps = Decimal(epsilon)
        kept = (-Decimal(ratio.numerator) / Decimal(ratio.denominator)).exp()  # 1 − p̂
        p, flip = 1 / (1 + eps.exp()), 1 - kept
        assert p <= flip <= p + Decimal(2) ** -39
        assert (kept / flip).ln() <= eps and (flip / kept).ln() <= eps


def test_the_flip_ratio_refuses_an_epsilon_it_cannot_bracket():
    with pytest.raises(ValueError, match="2\\^-38"):
        noise_grid.flip_ratio(2.0**-39)


def test_each_secure_release_names_its_sampler():
    """Secure: the truncated Laplace and randomized response are the discrete sampler's; the
    truncated Laplace records its relaxation, is widened to cost its plan, stays within its
    public bound and lands on the grid; the Bingham sampler names itself the exception.
    Seeded: numpy, no relaxation."""
    from dpviz.privacy import exponential_on_sphere, randomized_response, truncated_laplace
    from dpviz.privacy.mechanisms import NUMPY_BINGHAM, truncated_laplace_bound

    sensitivity, epsilon, delta, n = 2.0, 0.7, 0.1, 100_000
    for rng in (secure_generator(), np.random.default_rng(0)):
        secure = is_secure(rng)
        ledger = Ledger()
        z = truncated_laplace(np.zeros(n), sensitivity=sensitivity, epsilon=epsilon,
                              delta=delta, rng=rng, ledger=ledger, name="t")
        randomized_response(1.0, bits=1000, rng=rng, ledger=ledger, name="rr")
        exponential_on_sphere(np.diag([3.0, 1.0]), sensitivity=1.0, epsilon=1.0, rng=rng,
                              ledger=ledger, name="u")
        trunc, rr, sphere = ledger.releases
        assert np.abs(z).max() <= truncated_laplace_bound(sensitivity, epsilon, delta, n)
        a = sensitivity / epsilon * math.log1p(math.expm1(epsilon) / (2 * delta))
        assert stats.kstest(np.abs(z), stats.truncexpon(b=a / trunc.scale,
                                                        scale=trunc.scale).cdf).pvalue > PASS
        if secure:
            assert [r.sampler for r in ledger.releases] == ["discrete", "discrete",
                                                            NUMPY_BINGHAM]
            g = grid("laplace", trunc.scale)
            assert trunc.relaxation == n * g
            assert trunc.charged / trunc.scale <= epsilon < trunc.charged / (trunc.scale * 0.999)
            assert np.array_equal(z / g, np.rint(z / g))
        else:
            assert [r.sampler for r in ledger.releases] == ["numpy"] * 3
            assert trunc.relaxation == 0 and trunc.scale == sensitivity / epsilon


def test_the_truncated_laplace_bound_holds_for_either_sampler():
    from dpviz.privacy.mechanisms import secure_scale, truncated_laplace_bound

    for sensitivity, epsilon, delta in ((1.0, 1.0, 1e-6), (0.3, 0.05, 1e-9), (40.0, 8.0, 0.2)):
        a = sensitivity / epsilon * math.log1p(math.expm1(epsilon) / (2 * delta))
        scale, _ = secure_scale("laplace", sensitivity, sensitivity / epsilon, 1)
        bound = truncated_laplace_bound(sensitivity, epsilon, delta)
        assert bound >= max(a, noise_grid.truncated_support(scale, epsilon, delta))
        assert bound <= a * (1 + 1e-9)


def test_where_no_secure_scale_fits_the_bound_is_the_seeded_one():
    """At ε = 1e-13 a secure truncated Laplace refuses, so the bound serves a seeded run."""
    from dpviz.privacy import truncated_laplace
    from dpviz.privacy.mechanisms import truncated_laplace_bound

    epsilon, delta = 1e-13, 1e-6
    a = 1.0 / epsilon * math.log1p(math.expm1(epsilon) / (2 * delta))
    assert truncated_laplace_bound(1.0, epsilon, delta) == a
    z = truncated_laplace(np.zeros(1000), sensitivity=1.0, epsilon=epsilon, delta=delta,
                          rng=np.random.default_rng(0), ledger=Ledger(), name="t")
    assert np.abs(z).max() <= a
    with pytest.raises(ValueError, match="too wide for secure randomness"):
        truncated_laplace(0.0, sensitivity=1.0, epsilon=epsilon, delta=delta,
                          rng=secure_generator(), ledger=Ledger(), name="t")


def test_a_widening_that_cannot_fit_is_refused():
    """Δ/σ below the grid's relative step: no widened σ pays for its own grid."""
    with pytest.raises(ValueError, match="too wide for secure randomness"):
        gaussian(0.0, sensitivity=1e-12, sigma=1.0, rng=secure_generator(), ledger=Ledger(),
                 name="x")
