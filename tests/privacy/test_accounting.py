"""Every accounting method against Google's dp-accounting and the closed forms of
ALGORITHMS.md §1.2, for single and composed Gaussian and Laplace releases; then the
orderings and invariants the page relies on (hypothesis, bounded and derandomised)."""

import math

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import accountant as pld_accountant
from dp_accounting.pld import common
from dp_accounting.pld import privacy_loss_distribution as pld
from dp_accounting.rdp import rdp_privacy_accountant as rdp_module
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz.privacy import METHODS, BudgetError, PrivacyEvent, compose, compose_parts, total_rho
from dpviz.privacy import calibration as cal
from dpviz.privacy.accounting import MA_MAX_ORDER, MA_MAX_ORDER_PAPER, _ma_log_moments


def gauss(z, count=1):
    """``count`` Gaussian releases with noise multiplier ``z = σ/Δ``."""
    return PrivacyEvent("gaussian", mu=1 / z, count=count)


def lap(epsilon, count=1):
    return PrivacyEvent("laplace", epsilon=epsilon, count=count)


def dp_events(events):
    """The same releases as dp-accounting events (sensitivity normalised to 1)."""
    out = []
    for e in events:
        if e.kind == "gaussian":
            out.append((dp_accounting.GaussianDpEvent(1 / e.mu), e.count))
        elif e.kind == "laplace":
            out.append((dp_accounting.LaplaceDpEvent(1 / e.epsilon), e.count))
        else:
            raise AssertionError(e.kind)
    return out


def reference_pld(events, delta, *, pessimistic=True, interval=1e-4):
    composed = None
    for e in events:
        if e.kind == "gaussian":
            one = pld.from_gaussian_mechanism(1 / e.mu, value_discretization_interval=interval,
                                              pessimistic_estimate=pessimistic,
                                              use_connect_dots=pessimistic)
        else:
            one = pld.from_laplace_mechanism(1 / e.epsilon,
                                             value_discretization_interval=interval,
                                             pessimistic_estimate=pessimistic,
                                             use_connect_dots=pessimistic)
        one = one.self_compose(e.count) if e.count > 1 else one
        composed = one if composed is None else composed.compose(one)
    return composed.get_epsilon_for_delta(delta)


def reference_rdp(events, delta, orders=None):
    accountant = rdp_module.RdpAccountant(orders=orders)
    for event, count in dp_events(events):
        accountant.compose(event, count)
    return accountant


def classic_rdp_conversion(accountant, delta):
    """Mironov's conversion ``min_α RDP(α) + ln(1/δ)/(α − 1)`` — the moments accountant's."""
    orders = accountant.orders
    return float(np.min(accountant.rdp + math.log(1 / delta) / (orders - 1)))


INTEGER_ORDERS = [float(a) for a in range(2, MA_MAX_ORDER + 2)]

SINGLE_AND_COMPOSED = [
    [gauss(1.0)],
    [gauss(5.0, 50)],
    [gauss(20.0, 70)],
    [lap(1.0)],
    [lap(0.1, 20)],
    [lap(0.3, 7)],
    [gauss(4.0, 10), lap(0.1, 10)],
]
IDS = ["G", "50G", "70G", "L", "20L", "7L", "10G+10L"]


# ------------------------------------------------------------------------------------- PLD


@pytest.mark.parametrize("z, count, delta", [(1.0, 1, 1e-5), (2.0, 1, 1e-8), (5.0, 50, 1e-6),
                                             (20.0, 70, 1e-4)])
def test_pld_gaussian_is_exact_and_inside_dp_accounting_bracket(z, count, delta):
    ours = compose([gauss(z, count)], delta, "pld")
    # exact: the composition is one Gaussian with noise multiplier z/√count
    assert ours == pytest.approx(dp_accounting.get_epsilon_gaussian(z / math.sqrt(count), delta),
                                 rel=1e-8)
    # dp-accounting's PLD brackets it within its discretisation
    upper = reference_pld([gauss(z, count)], delta)
    lower = reference_pld([gauss(z, count)], delta, pessimistic=False)
    assert lower - 1e-9 <= ours <= upper + 1e-9
    assert upper - lower < 5e-3


def test_pld_heterogeneous_gaussians_compose_as_one():
    events = [gauss(2.0, 3), gauss(7.0, 40), gauss(0.9)]
    mu = math.sqrt(3 / 4 + 40 / 49 + 1 / 0.81)
    ours = compose(events, 1e-6, "pld")
    assert ours == pytest.approx(cal.analytic_gaussian_epsilon(mu, 1e-6), rel=1e-12)
    upper = reference_pld(events, 1e-6)
    assert ours <= upper + 1e-9 and ours == pytest.approx(upper, rel=1e-3)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("delta", [1e-6, 1e-2])
def test_pld_single_laplace_closed_form(epsilon, delta):
    # one Laplace release: δ(ε') = 1 − exp((ε' − ε)/2) for 0 ≤ ε' ≤ ε
    exact = max(0.0, epsilon + 2 * math.log1p(-delta))
    assert compose([lap(epsilon)], delta, "pld") == pytest.approx(exact, abs=2e-3 * epsilon)
    assert compose([lap(epsilon)], delta, "pld") >= exact - 1e-9


@pytest.mark.parametrize("events", SINGLE_AND_COMPOSED[3:], ids=IDS[3:])
@pytest.mark.parametrize("delta", [1e-6, 1e-3])
def test_pld_laplace_and_mixed_against_dp_accounting(events, delta):
    ours = compose(events, delta, "pld")
    upper = reference_pld(events, delta)  # finer (1e-4) pessimistic PLD
    assert upper - 1e-9 <= ours <= upper * (1 + 2e-3) + 1e-9


@pytest.mark.parametrize("kind, eps0, delta0, k", [("pure", 0.1, 0.0, 20), ("pure", 0.5, 0.0, 6),
                                                    ("approximate", 0.3, 1e-7, 10)])
def test_pld_of_pure_and_approximate_events_is_the_optimal_composition(kind, eps0, delta0, k):
    # (ε₀, δ₀) events compose, under PLD, to the optimal composition theorem
    # (Kairouz–Oh–Viswanath), whose answer lies on the grid ε₀(k − 2i): the exact ε is at
    # most that grid value and above the next one down
    delta = 1e-4
    ours = compose([PrivacyEvent(kind, epsilon=eps0, delta=delta0, count=k)], delta, "pld")
    optimal = pld_accountant.advanced_composition(
        common.DifferentialPrivacyParameters(eps0, delta0), k, delta)
    assert optimal - 2 * eps0 - 1e-9 <= ours <= optimal + 1e-2


# ------------------------------------------------------------------------------------- RDP


@pytest.mark.parametrize("events", SINGLE_AND_COMPOSED, ids=IDS)
@pytest.mark.parametrize("delta", [1e-8, 1e-5, 1e-2])
def test_rdp_matches_rdp_accountant(events, delta):
    ours = compose(events, delta, "rdp")
    assert ours == pytest.approx(reference_rdp(events, delta).get_epsilon(delta), rel=1e-12)


@pytest.mark.parametrize("z, count", [(1.0, 1), (5.0, 50), (29.36, 70), (2.0, 5)])
@pytest.mark.parametrize("delta", [1e-8, 1e-4])
def test_rdp_of_gaussians_matches_the_cks_closed_form(z, count, delta):
    # Gaussian RDP(α) = α·count/(2z²) is ρ-zCDP: dp-accounting's conversion on its grid of
    # orders is the CKS bound at the best grid order, so never below and within 1%.
    rho = count / (2 * z * z)
    ours = compose([gauss(z, count)], delta, "rdp")
    cks = cal.zcdp_epsilon(rho, delta)
    assert cks * (1 - 1e-9) <= ours <= cks * 1.01


# ---------------------------------------------------------------------- moments accountant


@pytest.mark.parametrize("epsilon", [0.01, 0.3, 1.0, 5.0])
def test_ma_laplace_moment_is_lambda_times_rdp(epsilon):
    # α_MA(λ) = λ·RDP(λ + 1), against dp-accounting's Laplace RDP, to 6 decimals
    lam = np.arange(1, MA_MAX_ORDER + 1, dtype=float)
    ours = _ma_log_moments([lap(epsilon)], lam)
    accountant = reference_rdp([lap(epsilon)], 1e-5, orders=list(lam + 1))
    np.testing.assert_allclose(ours, lam * accountant.rdp, rtol=1e-6, atol=1e-9)
    # and the seed's formula, eq. 20, in plain (overflow-safe) form for small λ
    small = lam[:50]
    plain = np.log((small + 1) / (2 * small + 1) * np.exp(small * epsilon)
                   + small / (2 * small + 1) * np.exp(-epsilon * (small + 1)))
    np.testing.assert_allclose(ours[:50], plain, rtol=1e-9)


def test_ma_gaussian_moment_closed_form():
    lam = np.arange(1, 101, dtype=float)
    np.testing.assert_allclose(_ma_log_moments([gauss(3.0, 4)], lam),
                               4 * (lam**2 + lam) / (2 * 9.0), rtol=1e-12)


@pytest.mark.parametrize("events", SINGLE_AND_COMPOSED, ids=IDS)
@pytest.mark.parametrize("delta", [1e-8, 1e-5, 1e-2])
@pytest.mark.parametrize("paper_mode", [False, True])
def test_ma_equals_rdp_on_integer_orders(events, delta, paper_mode):
    accountant = reference_rdp(events, delta, orders=INTEGER_ORDERS)
    if paper_mode:  # λ ≤ 100 ⇔ α ≤ 101
        top = MA_MAX_ORDER_PAPER
        accountant = rdp_module.RdpAccountant(orders=INTEGER_ORDERS[:top])
        for event, count in dp_events(events):
            accountant.compose(event, count)
    expected = classic_rdp_conversion(accountant, delta)
    assert compose(events, delta, "ma", paper_mode=paper_mode) == pytest.approx(expected,
                                                                                  rel=1e-6)


@pytest.mark.parametrize("z, count, delta", [(36.86, 70, 1e-4), (5.0, 10, 1e-6), (1.0, 1, 1e-3)])
def test_ma_gaussian_closed_form_of_the_seed(z, count, delta):
    # δ = min_λ exp(m(λ² + λ)/(2z²) − λε) over integer λ ⇒ ε = min_λ (m(λ²+λ)/(2z²) + ln(1/δ))/λ
    lam = np.arange(1, MA_MAX_ORDER + 1, dtype=float)
    eps = np.min((count * (lam**2 + lam) / (2 * z * z) + math.log(1 / delta)) / lam)
    assert compose([gauss(z, count)], delta, "ma") == pytest.approx(eps, rel=1e-12)


@pytest.mark.parametrize("eps0, count", [(0.2, 3), (0.01, 50), (2.0, 2)])
def test_ma_pure_events_use_the_pure_rdp_bound(eps0, count):
    # ε-DP ⇒ RDP(α) ≤ min(ε, αε²/2), and α_MA(λ) = λ·RDP(λ + 1)
    delta = 1e-5
    lam = np.arange(1, MA_MAX_ORDER + 1, dtype=float)
    moments = count * lam * np.minimum(eps0, (lam + 1) * eps0**2 / 2)
    expected = np.min((moments + math.log(1 / delta)) / lam)
    got = compose([PrivacyEvent("pure", epsilon=eps0, count=count)], delta, "ma")
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("eps0, count", [(0.3, 4), (0.01, 50)])
def test_rdp_pure_events_are_zcdp(eps0, count):
    # a pure ε-DP release (exponential mechanism, AboveThreshold) enters RDP as ε²/2-zCDP
    delta = 1e-6
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(dp_accounting.ZCDpEvent(eps0**2 / 2), count)
    got = compose([PrivacyEvent("pure", epsilon=eps0, count=count)], delta, "rdp")
    assert got == pytest.approx(accountant.get_epsilon(delta), rel=1e-12)
    cks = cal.zcdp_epsilon(count * eps0**2 / 2, delta)
    assert cks * (1 - 1e-9) <= got <= cks * 1.01


def test_ma_lambda_cap_binds_at_small_epsilon():
    # λ ≤ 100 needs λ_max ≥ ln(1/δ)/ε just to be feasible: at very little noise the cap costs
    events = [gauss(360.0, 70)]
    assert compose(events, 1e-4, "ma", paper_mode=True) > 1.1 * compose(events, 1e-4, "ma")


# ------------------------------------------------------------------------------------ zCDP


@pytest.mark.parametrize("events", SINGLE_AND_COMPOSED, ids=IDS)
@pytest.mark.parametrize("delta", [1e-8, 1e-4])
def test_zcdp_closed_form_and_dp_accounting(events, delta):
    rho = sum(e.count * (e.mu**2 / 2 if e.kind == "gaussian" else e.epsilon**2 / 2)
              for e in events)
    assert total_rho(events) == pytest.approx(rho, rel=1e-14)
    assert compose(events, delta, "zcdp", paper_mode=True) == pytest.approx(
        rho + 2 * math.sqrt(rho * math.log(1 / delta)), rel=1e-12)
    ours = compose(events, delta, "zcdp")
    assert ours == pytest.approx(cal.zcdp_epsilon(rho, delta), rel=1e-12)
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(dp_accounting.ZCDpEvent(rho))
    assert ours <= accountant.get_epsilon(delta) * (1 + 1e-9)
    assert ours == pytest.approx(accountant.get_epsilon(delta), rel=2e-2)


# ---------------------------------------------------------------------- linear / advanced


@pytest.mark.parametrize("delta", [0.0, 1e-5])
def test_linear_laplace_adds_epsilons(delta):
    events = [lap(0.1, 20), lap(0.5, 2), PrivacyEvent("pure", epsilon=0.25, count=4)]
    assert compose(events, delta, "linear") == pytest.approx(2.0 + 1.0 + 1.0, rel=1e-14)


@pytest.mark.parametrize("paper_mode", [False, True])
def test_linear_gaussians_split_delta_evenly(paper_mode):
    events, delta = [gauss(40.0, 5), gauss(80.0, 3)], 1e-5
    share = delta / 8
    one = cal.classic_gaussian_epsilon if paper_mode else cal.analytic_gaussian_epsilon
    expected = 5 * one(1 / 40, share) + 3 * one(1 / 80, share)
    assert compose(events, delta, "linear", paper_mode=paper_mode) == pytest.approx(expected,
                                                                                  rel=1e-12)


def test_linear_mixed_plan():
    events, delta = [gauss(40.0, 4), lap(0.05, 6)], 1e-6
    expected = 4 * cal.analytic_gaussian_epsilon(1 / 40, delta / 4) + 0.3
    assert compose(events, delta, "linear") == pytest.approx(expected, rel=1e-12)


def advanced_closed_form(pairs, delta_prime):
    """ε of heterogeneous advanced composition: √(2 ln(1/δ′) Σεᵢ²) + Σεᵢ(e^{εᵢ} − 1)."""
    squares = sum(c * e * e for e, c in pairs)
    drift = sum(c * e * math.expm1(e) for e, c in pairs)
    return math.sqrt(2 * math.log(1 / delta_prime) * squares) + drift


@pytest.mark.parametrize("eps0, k", [(0.01, 100), (0.1, 50), (0.5, 3), (1.0, 200)])
@pytest.mark.parametrize("delta", [1e-8, 1e-4])
def test_advanced_laplace_closed_form(eps0, k, delta):
    # pure releases: δ′ = δ, and the reported value is min(linear, advanced)
    homogeneous = eps0 * math.sqrt(2 * k * math.log(1 / delta)) + k * eps0 * math.expm1(eps0)
    ours = compose([lap(eps0, k)], delta, "advanced")
    assert ours == pytest.approx(min(k * eps0, homogeneous), rel=1e-12)
    # never better than the optimal composition theorem (Kairouz–Oh–Viswanath)
    optimal = pld_accountant.advanced_composition(
        common.DifferentialPrivacyParameters(eps0, 0.0), k, delta)
    assert ours >= optimal - 1e-12


@pytest.mark.parametrize("paper_mode", [False, True])
def test_advanced_gaussians_closed_form(paper_mode):
    # δ′ = δ/2 and δ₀ = δ/(2k) for each Gaussian; reported as min(linear, advanced)
    k, z, delta = 70, 209.38988033882063, 1e-4
    one = cal.classic_gaussian_epsilon if paper_mode else cal.analytic_gaussian_epsilon
    advanced = advanced_closed_form([(one(1 / z, delta / (2 * k)), k)], delta / 2)
    linear = k * one(1 / z, delta / k)
    ours = compose([gauss(z, k)], delta, "advanced", paper_mode=paper_mode)
    assert ours == pytest.approx(min(advanced, linear), rel=1e-12)
    if paper_mode:  # the ALGORITHMS.md regression point: σ/Δ = 209.4 gives ε = 1
        assert ours == pytest.approx(1.0, rel=1e-6)


def test_advanced_mixed_heterogeneous_form():
    events, delta = [gauss(30.0, 20), lap(0.02, 30), PrivacyEvent("pure", epsilon=0.05)], 1e-5
    eps_g = cal.analytic_gaussian_epsilon(1 / 30, delta / 40)
    expected = advanced_closed_form([(eps_g, 20), (0.02, 30), (0.05, 1)], delta / 2)
    linear = compose(events, delta, "linear")
    assert compose(events, delta, "advanced") == pytest.approx(min(expected, linear), rel=1e-12)


# ---------------------------------------------------------------------- refusals and edges


APPROX = PrivacyEvent("approximate", epsilon=0.5, delta=1e-7)


@pytest.mark.parametrize("method", ["zcdp", "ma", "rdp"])
def test_approximate_releases_refused_without_a_curve(method):
    with pytest.raises(BudgetError, match="approximate-DP release.*use linear, advanced or pld"):
        compose([lap(0.1), APPROX], 1e-5, method)


def test_approximate_releases_composed_by_the_others():
    delta = 1e-5
    assert compose([lap(0.1, 3), APPROX], delta, "linear") == pytest.approx(0.8)
    assert compose([lap(0.1, 3), APPROX], delta, "advanced") <= 0.8
    eps = compose([lap(0.1, 3), APPROX], delta, "pld")
    assert 0 < eps <= 0.8 + 1e-3
    with pytest.raises(BudgetError, match="used up"):
        compose([gauss(10.0), APPROX], 1e-7, "linear")


@pytest.mark.parametrize("delta", [0.0, 1e-9])
def test_linear_refuses_when_approximate_releases_exceed_delta(delta):
    # a release that is (0.5, 1e-7)-DP cannot be reported as (0.5, δ) for δ < 1e-7
    with pytest.raises(BudgetError):
        compose([APPROX], delta, "linear")


@pytest.mark.parametrize("method", [m for m in METHODS if m != "linear"])
def test_delta_zero_needs_linear(method):
    with pytest.raises(BudgetError, match="delta > 0"):
        compose([lap(0.1)], 0.0, method)
    with pytest.raises(BudgetError, match="delta > 0"):
        compose([gauss(3.0)], 0.0, method)


def test_gaussian_with_delta_zero_refused_under_linear():
    with pytest.raises(BudgetError, match="delta > 0"):
        compose([gauss(3.0)], 0.0, "linear")


def test_bad_method_and_delta():
    with pytest.raises(BudgetError, match="accounting method must be one of"):
        compose([lap(1.0)], 1e-5, "basic")
    for bad in (1.0, -1e-3):
        with pytest.raises(BudgetError, match="delta"):
            compose([lap(1.0)], bad, "linear")


@pytest.mark.parametrize("method", METHODS)
def test_no_noise_is_infinite_and_nothing_is_zero(method):
    assert compose([PrivacyEvent("gaussian", mu=math.inf)], 1e-5, method) == math.inf
    assert compose([lap(math.inf)], 1e-5, method) == math.inf
    assert compose([], 1e-5, method) == 0.0
    assert compose([lap(1.0, 0)], 1e-5, method) == 0.0


@pytest.mark.parametrize("method", METHODS)
def test_parallel_parts_take_the_maximum(method):
    shared, a, b = [gauss(10.0, 2)], [gauss(5.0, 3)], [lap(0.2, 2), gauss(20.0)]
    delta = 1e-6
    got = compose_parts({None: shared, "A": a, "B": b}, delta, method)
    expected = max(compose(shared + a, delta, method), compose(shared + b, delta, method))
    assert got == pytest.approx(expected, rel=1e-12)
    # no named part: everything is shared
    assert compose_parts({None: shared + a}, delta, method) == pytest.approx(
        compose(shared + a, delta, method), rel=1e-12)
    # a part alone counts only its own releases
    assert compose_parts({"A": a, "B": b}, delta, method) == pytest.approx(
        max(compose(a, delta, method), compose(b, delta, method)), rel=1e-12)


# ------------------------------------------------------------- orderings and invariants

PROPERTY = settings(max_examples=25, deadline=None, derandomize=True)
multipliers = st.floats(min_value=0.5, max_value=60.0)
laplace_eps = st.floats(min_value=0.01, max_value=2.0)
deltas = st.sampled_from([1e-9, 1e-6, 1e-4, 1e-2])
counts = st.integers(min_value=1, max_value=40)


def leq(a, b):
    return a <= b * (1 + 1e-9) + 1e-12


def events_of(kind, level, count):
    return [gauss(level, count)] if kind == "gaussian" else [lap(level, count)]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("paper_mode", [False, True])
@PROPERTY
@given(z=multipliers, count=counts, extra=st.integers(1, 30), delta=deltas)
def test_gaussian_epsilon_monotone_in_count_and_decreasing_in_sigma(method, paper_mode, z,
                                                                    count, extra, delta):
    def eps(zz, cc):
        try:
            return compose([gauss(zz, cc)], delta, method, paper_mode=paper_mode)
        except BudgetError:  # paper mode's classic formula past ε = 1 is not a guarantee
            return math.inf

    base = eps(z, count)
    assert leq(base, eps(z, count + extra))
    assert leq(eps(z * 1.3, count), base)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("paper_mode", [False, True])
@PROPERTY
@given(eps0=laplace_eps, count=counts, extra=st.integers(1, 30), delta=deltas)
def test_laplace_epsilon_monotone_in_count_and_decreasing_in_scale(method, paper_mode, eps0,
                                                                   count, extra, delta):
    def eps(e, c):
        return compose([lap(e, c)], delta, method, paper_mode=paper_mode)

    base = eps(eps0, count)
    assert leq(base, eps(eps0, count + extra))
    assert leq(eps(eps0 / 1.3, count), base)


@PROPERTY
@given(kind=st.sampled_from(["gaussian", "laplace"]), count=counts, delta=deltas,
       z=multipliers, eps0=laplace_eps)
def test_paper_ma_above_rdp_above_pld(kind, count, delta, z, eps0):
    events = events_of(kind, z if kind == "gaussian" else eps0, count)
    paper_ma = compose(events, delta, "ma", paper_mode=True)
    rdp = compose(events, delta, "rdp")
    exact = compose(events, delta, "pld")
    assert leq(rdp, paper_ma)
    if kind == "gaussian":  # exact PLD
        assert leq(exact, rdp)
    else:  # dp-accounting's pessimistic PLD, up to its discretisation (1e-3 per release)
        assert leq(exact, rdp + 1e-3 * count)
    # the full λ range is never worse than the paper's
    assert leq(compose(events, delta, "ma"), paper_ma)


@PROPERTY
@given(kind=st.sampled_from(["gaussian", "laplace"]), count=counts, delta=deltas,
       z=multipliers, eps0=laplace_eps)
def test_bun_steinke_above_cks_and_advanced_below_linear(kind, count, delta, z, eps0):
    events = events_of(kind, z if kind == "gaussian" else eps0, count)
    assert leq(compose(events, delta, "zcdp"), compose(events, delta, "zcdp", paper_mode=True))
    for paper_mode in (False, True):
        try:
            linear = compose(events, delta, "linear", paper_mode=paper_mode)
        except BudgetError:
            continue
        assert leq(compose(events, delta, "advanced", paper_mode=paper_mode), linear)


@pytest.mark.parametrize("method", METHODS)
@PROPERTY
@given(z=multipliers, count=counts, delta=deltas, eps0=laplace_eps)
def test_no_accountant_claims_less_than_the_exact_loss(method, z, count, delta, eps0):
    # soundness: m Gaussians are exactly one Gaussian with multiplier z/√m (analytic
    # Gaussian); one Laplace release has exact ε(δ) = ε₀ + 2 ln(1 − δ)
    exact = cal.analytic_gaussian_epsilon(math.sqrt(count) / z, delta)
    assert compose([gauss(z, count)], delta, method) >= exact * (1 - 1e-9)
    laplace_exact = eps0 + 2 * math.log1p(-delta)
    assert compose([lap(eps0)], delta, method) >= laplace_exact * (1 - 1e-9)


@pytest.mark.parametrize("method", ["linear", "advanced"])
def test_paper_mode_accounting_refuses_classic_gaussian_past_one(method):
    # σ = Δ/2 at δ = 1e-5: the exact ε is 9.997; the classic formula says 9.690
    exact = cal.analytic_gaussian_epsilon(2.0, 1e-5)
    try:
        claimed = compose([gauss(0.5)], 1e-5, method, paper_mode=True)
    except BudgetError:
        return  # refusing, as the solver does, is right
    assert claimed >= exact


def test_orderings_at_the_regression_point():
    events, delta = [gauss(36.86, 70)], 1e-4
    values = {m: compose(events, delta, m) for m in METHODS}
    paper = {m: compose(events, delta, m, paper_mode=True) for m in ("ma", "zcdp")}
    assert paper["ma"] >= values["rdp"] >= values["pld"]
    assert paper["zcdp"] >= values["zcdp"]
    assert values["advanced"] <= values["linear"]
    assert values["pld"] < values["zcdp"] < paper["zcdp"] < values["linear"]
