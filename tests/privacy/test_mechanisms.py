"""Noise scales of every mechanism (ALGORITHMS.md §1.1), and what each records in the ledger.

Each statistical test runs its statistic twice: against the distribution the spec asks for
(it must pass) and against the same family with a deliberately wrong scale — a factor √2 or
2 — which it must reject with an overwhelming margin. Seeds are fixed: a correct mechanism
cannot fail by chance on a later run, and the rejections hold with p-values far below 1e-12.

The Laplace and Gaussian tests run on both paths (``noise_rng``): a seeded generator (numpy's
draws) and a secure one (exact discrete noise on a fine grid, dpviz.privacy.discrete_noise).
The secure sampler draws from OpenSSL's DRBG, so that path cannot be seeded: it passes at
p > 1e-6 instead of 1e-3, still rejecting every wrong scale below 1e-12.
"""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpviz.privacy import (
    Budget,
    Ledger,
    PlannedRelease,
    Release,
    above_threshold,
    draw_noise,
    exponential,
    gaussian,
    laplace,
    release,
    simulate,
    solve,
    stable_histogram,
    symmetric_gaussian,
    truncated_laplace,
)
from dpviz.privacy.calibration import analytic_gaussian_mu
from dpviz.privacy.randomness import is_secure, secure_generator

N = 200_000
PASS = 1e-3  # a correct sampler's p-value stays above this (fixed seed)
REJECT = 1e-12  # a wrong scale's p-value falls below this
SQRT2 = math.sqrt(2)
WRONG_FACTORS = (SQRT2, 1 / SQRT2, 2.0, 0.5)


N_SECURE = N  # the discrete sampler costs about 0.1 µs a draw
PASS_SECURE = 1e-6  # unseeded: a correct sampler fails once in a million runs


@pytest.fixture(params=["seeded", "secure"])
def noise_rng(request, rng) -> np.random.Generator:
    """Both paths: numpy's draws from the seeded generator, the discrete sampler's from a
    secure one."""
    return rng if request.param == "seeded" else secure_generator()


def draws(rng, seeded: int = N, secure: int = N_SECURE) -> int:
    """How many draws a statistic takes on this path."""
    return secure if is_secure(rng) else seeded


def passing(rng) -> float:
    """The p-value a correct sampler stays above on this path."""
    return PASS_SECURE if is_secure(rng) else PASS


def ks_p(samples, cdf) -> float:
    return float(stats.kstest(samples, cdf).pvalue)


def assert_scale(samples, family, scale, wrong_factors=WRONG_FACTORS, pass_level=PASS):
    """``samples`` fit ``family(scale)`` and not ``family(scale·f)`` for any wrong factor."""
    assert ks_p(samples, family(scale).cdf) > pass_level
    for factor in wrong_factors:
        assert ks_p(samples, family(scale * factor).cdf) < REJECT, factor


def chi2_p(observed, probabilities) -> float:
    p = np.asarray(probabilities, dtype=float)
    p = p / p.sum()
    return float(stats.chisquare(observed, p * np.sum(observed)).pvalue)


def laplace_family(scale):
    return stats.laplace(scale=scale)


def normal_family(scale):
    return stats.norm(scale=scale)


# ---------------------------------------------------------------------------------- Laplace


def test_laplace_noise_has_scale_b(noise_rng):
    n = draws(noise_rng)
    value = np.full(n, 3.0)
    ledger = Ledger()
    noisy = laplace(value, sensitivity=0.5, scale=1.7, rng=noise_rng, ledger=ledger, name="v")
    noise = noisy - 3.0
    assert_scale(noise, laplace_family, 1.7, pass_level=passing(noise_rng))
    # the sample variance of Laplace noise has relative standard error √(5/n)
    assert np.var(noise) / (2 * 1.7**2) == pytest.approx(1.0, abs=6 * math.sqrt(5 / n))
    assert np.var(noise) / (2 * (1.7 * SQRT2) ** 2) < 0.6  # the statistic separates √2
    assert ledger.releases[0].sampler == ("discrete" if is_secure(noise_rng) else "numpy")


def test_laplace_scalar_in_scalar_out(noise_rng):
    out = laplace(2.0, sensitivity=1.0, scale=1.0, rng=noise_rng, ledger=Ledger(), name="c")
    assert isinstance(out, float)


def test_laplace_zero_scale_adds_nothing(noise_rng):
    ledger = Ledger()
    out = laplace([1.0, 2.0], sensitivity=1.0, scale=0.0, rng=noise_rng, ledger=ledger,
                  name="v")
    np.testing.assert_array_equal(out, [1.0, 2.0])
    assert math.isinf(ledger.releases[0].epsilon)
    assert ledger.releases[0].sampler is None  # nothing drawn


# --------------------------------------------------------------------------------- Gaussian


def test_gaussian_noise_has_sd_sigma(noise_rng):
    n = draws(noise_rng)
    noisy = gaussian(np.full(n, -1.0), sensitivity=2.0, sigma=2.3, rng=noise_rng,
                     ledger=Ledger(), name="v")
    noise = noisy + 1.0
    assert_scale(noise, normal_family, 2.3, pass_level=passing(noise_rng))
    # the sample variance of Gaussian noise has relative standard error √(2/n)
    assert np.var(noise) / 2.3**2 == pytest.approx(1.0, abs=6 * math.sqrt(2 / n))


@pytest.mark.slow  # large matrices: 3 s (make test, not make check)
def test_symmetric_gaussian_is_symmetric_with_iid_entries_of_variance_sigma2(noise_rng):
    rng = noise_rng
    # the secure path takes many small matrices: enough diagonal entries for the same power
    d, sigma = draws(rng, 400, 10), 0.7
    repeats = draws(rng, 40, 400)
    base = np.arange(d * d, dtype=float).reshape(d, d)
    base = base + base.T  # a symmetric input, to check the noise is added to it
    ledger = Ledger()
    diagonal, off, left, right = [], [], [], []
    rows, cols = np.triu_indices(d - 1, 1)
    for _ in range(repeats):
        out = symmetric_gaussian(base, sensitivity=math.sqrt(2), sigma=sigma, rng=rng,
                                 ledger=ledger, name="cov")
        noise = out - base
        np.testing.assert_array_equal(out, out.T)
        diagonal.append(np.diag(noise).copy())
        off.append(noise[np.triu_indices(d, 1)])
        left.append(noise[rows, cols])
        right.append(noise[rows, cols + 1])
    off, pairs = np.concatenate(off), (np.concatenate(left), np.concatenate(right))
    assert len(ledger.releases) == repeats
    # off-diagonal: σ², not σ²/2 ((W + Wᵀ)/2) nor 2σ² (W + Wᵀ)
    assert off.size == repeats * d * (d - 1) // 2
    assert_scale(off, normal_family, sigma, pass_level=passing(rng))
    assert np.var(off) / sigma**2 == pytest.approx(1.0, abs=6 * math.sqrt(2 / off.size))
    # the diagonal has the same variance (W + Wᵀ would give 4σ²)
    assert_scale(np.concatenate(diagonal), normal_family, sigma, pass_level=passing(rng))
    # distinct upper entries are independent (no correlation between neighbours)
    assert abs(np.corrcoef(*pairs)[0, 1]) < 6 / math.sqrt(pairs[0].size)


def test_symmetric_gaussian_refuses_non_square(rng):
    with pytest.raises(ValueError, match="square"):
        symmetric_gaussian(np.zeros((2, 3)), sensitivity=1.0, sigma=1.0, rng=rng,
                           ledger=Ledger(), name="m")


# ------------------------------------------------------------------------ truncated Laplace


def spec_truncation(sensitivity, epsilon, delta):
    """A = (Δ/ε)·ln(1 + (e^ε − 1)/(2δ)), written out from ALGORITHMS.md §1.1."""
    return sensitivity / epsilon * math.log(1 + (math.exp(epsilon) - 1) / (2 * delta))


def truncated_magnitude(scale, bound):
    return stats.truncexpon(b=bound / scale, scale=scale)


def test_truncated_laplace_support_and_shape(rng):
    sens, eps, delta = 2.0, 0.7, 0.1
    b, bound = sens / eps, spec_truncation(sens, eps, delta)
    noisy = truncated_laplace(np.full(N, 5.0), sensitivity=sens, epsilon=eps, delta=delta,
                              rng=rng, ledger=Ledger(), name="q")
    z = noisy - 5.0
    # support exactly within ±A, and it reaches both ends
    assert np.max(np.abs(z)) <= bound * (1 + 1e-12)
    assert z.max() > bound * (1 - 1e-3) and z.min() < -bound * (1 - 1e-3)
    # symmetric
    assert stats.binomtest(int(np.sum(z > 0)), N).pvalue > PASS
    # |z| has density ∝ exp(−ε|z|/Δ) on [0, A]
    magnitude = np.abs(z)
    assert ks_p(magnitude, truncated_magnitude(b, bound).cdf) > PASS
    for wrong in (b * SQRT2, b / SQRT2):
        assert ks_p(magnitude, truncated_magnitude(wrong, bound).cdf) < REJECT
    # the wrong truncation (δ instead of 2δ) and no truncation at all are rejected
    wrong_bound = sens / eps * math.log(1 + (math.exp(eps) - 1) / delta)
    assert ks_p(magnitude, truncated_magnitude(b, wrong_bound).cdf) < REJECT
    assert ks_p(magnitude, stats.expon(scale=b).cdf) < REJECT


def test_truncated_laplace_small_delta_bound(rng):
    sens, eps, delta = 1.0, 1.0, 1e-6
    bound = spec_truncation(sens, eps, delta)
    z = truncated_laplace(np.zeros(N), sensitivity=sens, epsilon=eps, delta=delta, rng=rng,
                          ledger=Ledger(), name="q")
    assert np.max(np.abs(z)) <= bound
    # barely truncated at this δ: the magnitude is nearly Exp(Δ/ε)
    assert ks_p(np.abs(z), truncated_magnitude(sens / eps, bound).cdf) > PASS
    assert ks_p(np.abs(z), truncated_magnitude(SQRT2 * sens / eps, bound).cdf) < REJECT


# ------------------------------------------------------------------------------ exponential


def test_exponential_selection_frequencies(noise_rng):
    rng = noise_rng
    utilities = np.array([0.0, 1.0, 2.0, 3.0, 0.5])
    sens, eps, runs = 1.5, 2.0, draws(rng, 30_000, 8_000)
    ledger = Ledger()
    picks = [exponential(utilities, sensitivity=sens, epsilon=eps, rng=rng, ledger=ledger,
                         name="pick") for _ in range(runs)]
    observed = np.bincount(picks, minlength=utilities.size)

    def weights(denominator):
        return np.exp(eps * utilities / denominator)

    assert chi2_p(observed, weights(2 * sens)) > passing(rng)
    for wrong in (sens, SQRT2 * sens, 2 * SQRT2 * sens, 4 * sens):
        assert chi2_p(observed, weights(wrong)) < REJECT, wrong
    assert len(ledger.releases) == runs
    assert {r.sampler for r in ledger.releases} == {"opendp" if is_secure(rng) else "numpy"}


def test_exponential_infinite_epsilon_is_argmax(rng):
    pick = exponential([0.3, 2.0, 1.9], sensitivity=1.0, epsilon=math.inf, rng=rng,
                       ledger=Ledger(), name="best")
    assert pick == 1


def test_exponential_validates_utilities(rng):
    for bad in ([], [1.0, math.nan], [[1.0, 2.0]]):
        with pytest.raises(ValueError, match="utilities"):
            exponential(bad, sensitivity=1.0, epsilon=1.0, rng=rng, ledger=Ledger(), name="x")


# --------------------------------------------------------------------------- AboveThreshold


def above_threshold_probabilities(queries, threshold, threshold_scale, query_scale):
    """Exact P[output = i] (last entry: ⊥) for T̂ = T + Lap(b_T), qᵢ + Lap(b_q) ≥ T̂.

    ``P[i] = ∫ p_T̂(t) Πⱼ₍ⱼ<ᵢ₎ P[qⱼ + Lⱼ < t] · P[qᵢ + Lᵢ ≥ t] dt``, integrated on a fine grid.
    """
    width = 60 * max(threshold_scale, query_scale) + max(abs(q) for q in queries)
    t = np.linspace(threshold - width, threshold + width, 400_001)
    density = stats.laplace.pdf(t - threshold, scale=threshold_scale)
    below = [stats.laplace.cdf(t - q, scale=query_scale) for q in queries]
    out, none_yet = [], np.ones_like(t)
    for b in below:
        out.append(integrate.trapezoid(density * none_yet * (1 - b), t))
        none_yet = none_yet * b
    out.append(integrate.trapezoid(density * none_yet, t))
    probabilities = np.array(out)
    assert probabilities.sum() == pytest.approx(1.0, abs=1e-6)
    return probabilities


def test_above_threshold_output_distribution(noise_rng):
    rng = noise_rng
    queries, threshold, sens, eps = [-4.0, -2.0, 0.0, 2.0], 3.0, 0.5, 0.5
    runs = draws(rng, 40_000, 8_000)
    ledger = Ledger()
    outputs = [above_threshold(queries, threshold=threshold, sensitivity=sens, epsilon=eps,
                               rng=rng, ledger=ledger, name="svt") for _ in range(runs)]
    observed = np.bincount([len(queries) if o is None else o for o in outputs],
                           minlength=len(queries) + 1)
    b_t, b_q = 2 * sens / eps, 4 * sens / eps  # 2 and 4
    assert chi2_p(observed, above_threshold_probabilities(queries, threshold, b_t, b_q)) > \
        passing(rng)
    wrong = [(b_t / SQRT2, b_q / SQRT2), (b_t * SQRT2, b_q * SQRT2), (b_t, b_q * SQRT2),
             (b_q, b_q), (b_t, b_t), (b_q, b_t)]
    if not is_secure(rng):  # a threshold √2 too wide alone needs the seeded path's 40 000 runs
        wrong.append((b_t * SQRT2, b_q))
    for w_t, w_q in wrong:
        p = above_threshold_probabilities(queries, threshold, w_t, w_q)
        assert chi2_p(observed, p) < REJECT, (w_t, w_q)


def test_above_threshold_bottom_and_first_hit(noise_rng):
    rng = noise_rng
    ledger = Ledger()
    assert above_threshold([-1e6, -1e6], threshold=0.0, sensitivity=1.0, epsilon=1.0,
                           rng=rng, ledger=ledger, name="none") is None
    assert above_threshold([1e6, 1e6, -1e6], threshold=0.0, sensitivity=1.0, epsilon=1.0,
                           rng=rng, ledger=ledger, name="first") == 0
    assert above_threshold([-1e6, 1e6, 1e6], threshold=0.0, sensitivity=1.0, epsilon=1.0,
                           rng=rng, ledger=ledger, name="second") == 1


# ------------------------------------------------------------------------ stable histogram


def stable_cut(epsilon, delta):
    return 1 + 2 * math.log(2 / delta) / epsilon


def test_stable_histogram_noise_is_laplace_two_over_epsilon(noise_rng):
    rng = noise_rng
    eps, delta, bins = 0.8, 1e-5, draws(rng, 100_000)
    counts = {f"b{i}": 1_000 for i in range(bins)}
    kept = stable_histogram(counts, epsilon=eps, delta=delta, rng=rng, ledger=Ledger(),
                            name="h")
    assert len(kept) == bins  # far above the cut, every bin survives
    noise = np.array(list(kept.values())) - 1_000
    assert_scale(noise, laplace_family, 2 / eps, pass_level=passing(rng))


def test_stable_histogram_threshold(noise_rng):
    rng = noise_rng
    # 20 000 bins a level on both paths: at c = 16 the wrong scale 1/ε keeps 0.409 of the bins
    # against the true 0.452, which 8 000 bins reject at 1e-12 only about 3 times in 4 (20 000:
    # all but once in 10⁷)
    eps, delta, per = 1.0, 1e-3, 20_000
    cut = stable_cut(eps, delta)  # 16.2
    levels = (10, 16, 20)
    counts = {(c, i): c for c in levels for i in range(per)}
    kept = stable_histogram(counts, epsilon=eps, delta=delta, rng=rng, ledger=Ledger(),
                            name="h")
    assert min(kept.values()) >= cut

    def keep_probability(count, threshold, scale):
        return float(stats.laplace.sf(threshold - count, scale=scale))

    wrong_cut = 1 + math.log(2 / delta) / eps
    for c in levels:
        survivors = sum(1 for key in kept if key[0] == c)
        p_kept = keep_probability(c, cut, 2 / eps)
        assert stats.binomtest(survivors, per, p_kept).pvalue > passing(rng)
        if c >= 16:
            for threshold, scale in ((wrong_cut, 2 / eps), (cut, 1 / eps)):
                p = keep_probability(c, threshold, scale)
                assert stats.binomtest(survivors, per, p).pvalue < REJECT


def test_stable_histogram_never_shows_empty_bins(rng):
    # At δ = 0.9 a noised empty bin would pass the cut with probability ≈ 0.14: with 10 000
    # empty bins, about 1 400 would appear if the mechanism touched them.
    eps, delta = 1.0, 0.9
    counts = {f"empty{i}": 0 for i in range(10_000)}
    counts.update({f"full{i}": 50 for i in range(100)})
    kept = stable_histogram(counts, epsilon=eps, delta=delta, rng=rng, ledger=Ledger(),
                            name="h")
    assert not any(str(k).startswith("empty") for k in kept)
    assert len(kept) == 100
    # the statistic could fail: noising the zeros the same way does pass the cut
    fake = rng.laplace(0.0, 2 / eps, size=10_000)
    assert np.sum(fake >= stable_cut(eps, delta)) > 1_000


# ------------------------------------------------------------------ draw_noise / simulate


def test_draw_noise_scales_and_shapes(noise_rng):
    rng, n, level = noise_rng, draws(noise_rng), passing(noise_rng)
    assert_scale(draw_noise("laplace", 0.3, rng, n), laplace_family, 0.3, pass_level=level)
    assert_scale(draw_noise("gaussian", 4.0, rng, n), normal_family, 4.0, pass_level=level)
    assert draw_noise("gaussian", 1.0, rng, (3, 4)).shape == (3, 4)
    np.testing.assert_array_equal(draw_noise("laplace", 0.0, rng, 5), np.zeros(5))
    with pytest.raises(ValueError, match="laplace or gaussian"):
        draw_noise("cauchy", 1.0, rng, 3)


def test_simulate_uses_the_allocated_scale(noise_rng):
    rng, n, level = noise_rng, draws(noise_rng), passing(noise_rng)
    lap = solve([PlannedRelease("c", "laplace", sensitivity=2.0)], Budget(epsilon=0.5))["c"]
    assert lap.scale == pytest.approx(4.0)
    out = simulate(10.0, lap, rng, n)
    assert_scale(out - 10.0, laplace_family, 4.0, pass_level=level)

    budget = Budget(epsilon=1.0, delta=1e-5, method="pld")
    gau = solve([PlannedRelease("m", "gaussian", sensitivity=3.0)], budget)["m"]
    sigma = 3.0 / analytic_gaussian_mu(1.0, 1e-5)
    assert gau.scale == pytest.approx(sigma, rel=1e-9)
    assert_scale(simulate(-2.0, gau, rng, n) + 2.0, normal_family, sigma, pass_level=level)


def test_release_dispatches_to_the_allocated_mechanism(noise_rng):
    rng, n, level = noise_rng, draws(noise_rng), passing(noise_rng)
    plan = [PlannedRelease("lap", "laplace", sensitivity=1.0, part="A"),
            PlannedRelease("gau", "gaussian", sensitivity=1.0),
            PlannedRelease("svt", "pure", sensitivity=1.0)]
    alloc = solve(plan, Budget(epsilon=1.0, delta=1e-6, method="linear"))
    ledger = Ledger()
    noisy = release(np.zeros(n), alloc["lap"], rng=rng, ledger=ledger)
    assert_scale(noisy, laplace_family, alloc["lap"].scale, pass_level=level)
    noisy = release(np.zeros(n), alloc["gau"], rng=rng, ledger=ledger, name="renamed")
    assert_scale(noisy, normal_family, alloc["gau"].scale, pass_level=level)
    first, second = ledger.releases
    assert (first.name, first.mechanism, first.part) == ("lap", "laplace", "A")
    assert (second.name, second.mechanism) == ("renamed", "gaussian")
    assert second.epsilon == pytest.approx(alloc["gau"].epsilon)
    assert second.delta == pytest.approx(alloc["gau"].delta)
    with pytest.raises(ValueError, match="own mechanism"):
        release(0.0, alloc["svt"], rng=rng, ledger=ledger)


@pytest.mark.parametrize("bad", [-1.0, math.inf, math.nan])
def test_noise_scale_validated(rng, bad):
    with pytest.raises(ValueError, match="noise scale"):
        laplace(0.0, sensitivity=1.0, scale=bad, rng=rng, ledger=Ledger(), name="x")
    with pytest.raises(ValueError, match="noise scale"):
        gaussian(0.0, sensitivity=1.0, sigma=bad, rng=rng, ledger=Ledger(), name="x")


def test_sensitivity_validated(rng):
    with pytest.raises(ValueError, match="sensitivity"):
        laplace(0.0, sensitivity=0.0, scale=1.0, rng=rng, ledger=Ledger(), name="x")
    with pytest.raises(ValueError, match="epsilon"):
        exponential([1.0], sensitivity=1.0, epsilon=-1.0, rng=rng, ledger=Ledger(), name="x")
    with pytest.raises(ValueError, match="delta"):
        truncated_laplace(0.0, sensitivity=1.0, epsilon=1.0, delta=0.0, rng=rng,
                          ledger=Ledger(), name="x")


# ------------------------------------------------------------- what each release records


def _record(kind, rng, ledger):
    if kind == "laplace":
        laplace([0.0, 0.0], sensitivity=0.4, scale=0.8, rng=rng, ledger=ledger, name="n",
                part="A")
    elif kind == "gaussian":
        gaussian(0.0, sensitivity=0.4, sigma=2.0, rng=rng, ledger=ledger, name="n", part="A",
                 epsilon=0.3, delta=1e-7)
    elif kind == "symmetric_gaussian":
        symmetric_gaussian(np.eye(3), sensitivity=0.4, sigma=2.0, rng=rng, ledger=ledger,
                           name="n", part="A")
    elif kind == "truncated_laplace":
        truncated_laplace(0.0, sensitivity=0.4, epsilon=0.5, delta=1e-6, rng=rng,
                          ledger=ledger, name="n", part="A")
    elif kind == "exponential":
        exponential([0.0, 1.0], sensitivity=0.4, epsilon=0.5, rng=rng, ledger=ledger,
                    name="n", part="A")
    elif kind == "above_threshold":
        above_threshold([0.0, 1.0], threshold=0.5, sensitivity=0.4, epsilon=0.5, rng=rng,
                        ledger=ledger, name="n", part="A")
    else:
        stable_histogram({"a": 3, "b": 0}, epsilon=0.5, delta=1e-6, rng=rng, ledger=ledger,
                         name="n", part="A")


# mechanism → (sensitivity, norm, scale, epsilon, delta, rho, event kind)
RECORDS = {
    "laplace": (0.4, "L1", 0.8, 0.5, 0.0, 0.125, "laplace"),
    "gaussian": (0.4, "L2", 2.0, 0.3, 1e-7, 0.02, "gaussian"),
    "symmetric_gaussian": (0.4, "Frobenius", 2.0, None, None, 0.02, "gaussian"),
    "truncated_laplace": (0.4, "L1", 0.8, 0.5, 1e-6, None, "approximate"),
    "exponential": (0.4, "utility", 1.6, 0.5, 0.0, 0.125, "pure"),
    "above_threshold": (0.4, "utility", 1.6, 0.5, 0.0, 0.125, "pure"),
    "stable_histogram": (2.0, "L1", 4.0, 0.5, 1e-6, None, "approximate"),
}


@pytest.mark.parametrize("kind", sorted(RECORDS))
def test_every_mechanism_records_its_release(rng, kind):
    ledger = Ledger()
    _record(kind, rng, ledger)
    assert len(ledger.releases) == 1
    r = ledger.releases[0]
    sens, norm, scale, eps, delta, rho, event_kind = RECORDS[kind]
    assert isinstance(r, Release)
    assert (r.name, r.mechanism, r.norm, r.part, r.count) == ("n", kind, norm, "A", 1)
    assert r.sensitivity == pytest.approx(sens)
    assert r.scale == pytest.approx(scale)
    for got, want in ((r.epsilon, eps), (r.delta, delta), (r.rho, rho)):
        if want is None:
            assert got is None
        else:
            assert got == pytest.approx(want)
    event = r.event()
    assert event.kind == event_kind
    if event_kind == "gaussian":
        assert event.mu == pytest.approx(sens / scale)
    elif event_kind == "laplace":
        assert event.epsilon == pytest.approx(sens / scale)
    else:
        assert event.epsilon == pytest.approx(eps)
        assert event.delta == pytest.approx(delta)


# ------------------------------------------------------------- ε = ∞: the exact answer


def test_infinite_epsilon_adds_no_noise(rng):
    ledger = Ledger()
    assert stable_histogram({"a": 3, "b": 1, "c": 0}, epsilon=math.inf, delta=1e-6, rng=rng,
                            ledger=ledger, name="h") == {"a": 3.0, "b": 1.0}
    assert above_threshold([0.0, 1.0, 2.0], threshold=0.5, sensitivity=1.0, epsilon=math.inf,
                           rng=rng, ledger=ledger, name="s") == 1
    assert all(r.scale == 0.0 and math.isinf(r.epsilon) for r in ledger.releases)
    assert ledger.total().epsilon == math.inf


def test_truncated_laplace_infinite_epsilon_adds_no_noise(rng):
    ledger = Ledger()
    out = truncated_laplace([1.0, 2.0], sensitivity=1.0, epsilon=math.inf, delta=1e-6, rng=rng,
                            ledger=ledger, name="t")
    np.testing.assert_array_equal(out, [1.0, 2.0])
    assert ledger.releases[0].scale == 0.0


# --- the symmetric Laplace, randomized response and the exponential mechanism on the sphere ---

def test_symmetric_laplace_is_symmetric_with_the_stated_scale():
    from dpviz.privacy import symmetric_laplace

    ledger = Ledger()
    d, scale = 60, 0.5
    noisy = symmetric_laplace(np.zeros((d, d)), sensitivity=2.0, scale=scale,
                              rng=np.random.default_rng(3), ledger=ledger, name="m")
    assert np.array_equal(noisy, noisy.T)
    upper = noisy[np.triu_indices(d)]  # 1 830 independent Laplace draws, variance 2b²
    assert abs(upper.var() / (2 * scale**2) - 1) < 0.15
    (release,) = ledger.releases
    assert (release.mechanism, release.norm, release.epsilon) == ("laplace", "L1", 4.0)


def test_randomized_response_records_its_epsilon_and_returns_the_flip_probability(noise_rng):
    from dpviz.privacy import flip_probability, randomized_response

    ledger = Ledger()
    bits = 200_000
    p, flips = randomized_response(math.log(3), bits=bits, rng=noise_rng, ledger=ledger,
                                   name="bits")
    assert p == pytest.approx(0.25, abs=2**-40) == pytest.approx(flip_probability(math.log(3)))
    assert p >= 0.25 if is_secure(noise_rng) else p == 0.25
    assert np.all(np.diff(flips) > 0) and 0 <= flips[0] and flips[-1] < bits
    assert stats.binomtest(flips.size, bits, 0.25).pvalue > passing(noise_rng)
    (release,) = ledger.releases
    assert release.mechanism == "randomized_response" and release.scale == p
    assert release.sampler == ("discrete" if is_secure(noise_rng) else "numpy")
    assert ledger.total().epsilon == pytest.approx(math.log(3))
    with pytest.raises(ValueError, match="epsilon must be"):
        randomized_response(-1.0, bits=3, rng=noise_rng, ledger=ledger, name="bad")
    p, flips = randomized_response(math.inf, bits=3, rng=noise_rng, ledger=ledger, name="none")
    assert p == 0 and flips.size == 0 and ledger.releases[-1].sampler is None


def test_exponential_on_sphere_concentrates_on_the_top_eigenvector_and_is_recorded():
    from dpviz.privacy import exponential_on_sphere

    matrix = np.diag([10.0, 1.0, 0.0])
    ledger = Ledger()
    rng = np.random.default_rng(4)
    strong = [abs(exponential_on_sphere(matrix, sensitivity=1.0, epsilon=20.0, rng=rng,
                                        ledger=ledger, name="u")[0]) for _ in range(200)]
    weak = [abs(exponential_on_sphere(matrix, sensitivity=1.0, epsilon=0.01, rng=rng,
                                      ledger=ledger, name="v")[0]) for _ in range(200)]
    assert np.mean(strong) > 0.95 > 0.7 > np.mean(weak)  # a uniform direction: E|u₁| = 0.5
    assert {r.mechanism for r in ledger.releases} == {"exponential"}
    top = exponential_on_sphere(matrix, sensitivity=1.0, epsilon=math.inf, rng=rng,
                                ledger=Ledger(), name="top")
    assert abs(top[0]) == pytest.approx(1.0)
