"""The private covariance engine (ALGORITHMS.md §6): sensitivities, noise, steps, budgets."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import integrate, stats

import dpviz
from dpviz.data.zipf import zipf_norm_data
from dpviz.estimators.covariance import ESTIMATORS, prepare, second_moment
from dpviz.estimators.covariance.adaptive import (
    GRID,
    adaptive_covariance,
    bias_bound,
    choose_clip,
    norm_histogram,
)
from dpviz.estimators.covariance.common import Privacy
from dpviz.estimators.covariance.gauss import gauss_covariance
from dpviz.estimators.covariance.separate import separate_covariance
from dpviz.privacy import Budget, Ledger, audit, repeat
from dpviz.privacy.mechanisms import sample_bingham

PRIVATE = ("gauss", "separate", "adaptive", "emcov")


def unit_rows(n: int, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True) * rng.random((n, 1))


def neighbours(seed: int, n: int = 20, d: int = 4) -> tuple[np.ndarray, np.ndarray]:
    x = unit_rows(n, d, seed)
    y = x.copy()
    y[0] = unit_rows(1, d, seed + 1000)[0]
    return x, y


def test_frobenius_sensitivity_of_the_second_moment_is_sqrt2_r2_over_n() -> None:
    worst = 0.0
    for seed in range(200):
        x, y = neighbours(seed)
        worst = max(worst, np.linalg.norm(second_moment(x) - second_moment(y)) * len(x))
    assert worst <= math.sqrt(2) + 1e-12
    # the worst case: two orthogonal unit rows, exactly √2
    x = np.array([[1.0, 0.0], [0.3, 0.3]])
    y = np.array([[0.0, 1.0], [0.3, 0.3]])
    assert np.linalg.norm(second_moment(x) - second_moment(y)) * 2 == pytest.approx(math.sqrt(2))


def test_eigenvalue_and_trace_sensitivities() -> None:
    for seed in range(200):
        x, y = neighbours(seed)
        lx = np.linalg.eigvalsh(second_moment(x))
        ly = np.linalg.eigvalsh(second_moment(y))
        n = len(x)
        assert np.linalg.norm(lx - ly) * n <= math.sqrt(2) + 1e-12  # Lemma 8
        assert np.abs(lx - ly).sum() * n <= 2 + 1e-12
        assert abs(lx.sum() - ly.sum()) * n <= 1 + 1e-12


def test_svt_queries_have_sensitivity_one_on_neighbouring_norm_histograms() -> None:
    n = 50
    for seed in range(200):
        x, y = neighbours(seed, n=n)
        if seed % 2:  # adversarial: a row moved between the extreme bins
            x[0] = 0.0
            x[0, 0] = 1.0
            y[0] = 0.0
            y[0, 0] = 2.0**-40
        bx = bias_bound(norm_histogram(np.linalg.norm(x, axis=1), 1.0), 1.0, n)
        by = bias_bound(norm_histogram(np.linalg.norm(y, axis=1), 1.0), 1.0, n)
        assert np.max(np.abs(bx - by)) * n <= 1 + 1e-12


def test_norm_histogram_bins_and_zero_rows() -> None:
    counts = norm_histogram(np.array([1.0, 0.75, 0.5, 0.26, 0.25, 0.0]), 1.0)
    assert counts.size == GRID and counts.sum() == 5  # the zero row is in no bin
    assert counts[:4].tolist() == [0, 2, 2, 1]


def test_symmetric_noise_has_the_claimed_variance_on_and_off_the_diagonal() -> None:
    n, d, rho = 100, 30, 0.5
    x = np.zeros((n, d))
    released = np.stack([
        gauss_covariance(x, Budget(rho=rho), rng=np.random.default_rng(s)).ledger.releases[0].scale
        for s in range(2)])
    sigma = 1 / (n * math.sqrt(rho))  # r²/(n√ρ)
    assert released == pytest.approx([sigma, sigma], rel=1e-9)
    from dpviz.estimators.covariance.common import noisy_matrix

    noise = noisy_matrix(np.zeros((d, d)), Privacy("zcdp", rho), n=n, radius=1.0,
                         rng=np.random.default_rng(1), ledger=Ledger(), name="w")
    assert np.array_equal(noise, noise.T)
    for values in (np.diag(noise), noise[np.triu_indices(d, 1)]):
        k = values.size
        stat = np.sum(values**2) / sigma**2
        assert stats.chi2.ppf(0.0005, k) < stat < stats.chi2.ppf(0.9995, k)


def test_laplace_matrix_noise_is_symmetric_with_the_claimed_scale() -> None:
    n, d, eps = 100, 20, 2.0
    r = gauss_covariance(np.zeros((n, d)), Budget(epsilon=eps), rng=np.random.default_rng(0))
    release = r.ledger.releases[0]
    assert release.mechanism == "laplace" and release.norm == "L1"
    assert release.sensitivity == pytest.approx(math.sqrt(2) * d / n)
    assert release.scale == pytest.approx(math.sqrt(2) * d / (n * eps), rel=1e-9)


@pytest.mark.parametrize("name", PRIVATE)
def test_outputs_are_symmetric_psd_clamped_and_sorted(name: str) -> None:
    x = zipf_norm_data(2000, 10, buckets=2, seed=1).data
    r = dpviz.run("covariance", name, x, rho=0.01, seed=3)
    cov = r.estimate["covariance"]
    values = r.diagnostics["eigenvalues"]
    assert np.array_equal(cov, cov.T)
    assert np.all(np.diff(values) <= 0) and values.min() >= 0 and values.max() <= 1
    assert np.linalg.eigvalsh(cov).min() >= -1e-12
    assert np.all(np.diff(r.diagnostics["true_eigenvalues"]) <= 0)


@pytest.mark.parametrize("name", PRIVATE)
def test_epsilon_infinity_gives_the_clipped_data_exactly(name: str) -> None:
    x = unit_rows(300, 5, 0)
    x[0] *= 3 / np.linalg.norm(x[0])  # norm 3: clipped to the unit ball
    r = dpviz.run("covariance", name, x, epsilon=math.inf)
    clipped = prepare(x, None).moment
    assert np.allclose(r.estimate["covariance"], clipped, atol=1e-12)
    assert r.diagnostics["rows_clipped"] == 1
    assert np.allclose(r.diagnostics["true_covariance"], x.T @ x / len(x))


@pytest.mark.parametrize("name", [*PRIVATE, "zero"])
@pytest.mark.parametrize("budget", [{"rho": 0.3}, {"epsilon": 1.5}, {"epsilon": 2.0,
                                                                      "delta": 1e-6}])
def test_ledger_total_equals_the_request_and_never_exceeds_it(name: str, budget: dict) -> None:
    r = dpviz.run("covariance", name, unit_rows(500, 6, 2), **budget)
    total = r.ledger.total()
    if name == "zero":
        assert r.ledger.releases == ()
    elif name == "emcov":  # pure ε-DP; ρ is converted with δ = 1e-10 (the paper's plots)
        expected = budget.get("epsilon") or 0.3 + 2 * math.sqrt(0.3 * math.log(1e10))
        assert total.epsilon <= expected
        assert total.epsilon == pytest.approx(expected, rel=1e-9)
    elif "rho" in budget:
        assert total.rho <= budget["rho"] and total.rho == pytest.approx(budget["rho"], rel=1e-9)
    else:
        assert total.epsilon <= budget["epsilon"]
        assert total.epsilon == pytest.approx(budget["epsilon"], rel=1e-6)


def test_compat_released_code_switch_changes_the_rule_as_documented() -> None:
    x = zipf_norm_data(3000, 60, buckets=6, seed=0).data
    prepared = prepare(x, None)
    privacy = Privacy("zcdp", 0.05)
    rules = {}
    for compat in (False, True):
        rules[compat] = choose_clip(prepared, privacy, rng=np.random.default_rng(4),
                                    ledger=Ledger(), beta=0.1, c_s=6.0,
                                    compat_released_code=compat)
    paper, compat = rules[False], rules[True]
    # the paper's rule: E_S vs E_G at τ̃; the released code's: at τ_j (= τ̃/2), τ·g₁ in the SVT
    at = paper.clip_radius
    i = int(round(-math.log2(at)))
    assert paper.branch == ("separate" if paper.e_s[i] < paper.e_g[i] else "gauss")
    j = compat.svt_index
    assert compat.branch == ("separate" if compat.e_s[j] < compat.e_g[j] else "gauss")
    # with τ·g₁ ≥ τ²g₁ inside the SVT the released rule stops no later
    assert compat.svt_index <= paper.svt_index


def test_bingham_sampler_matches_its_density_on_the_circle() -> None:
    a = 3.0  # density ∝ exp(−a sin²θ) for v = (cos θ, sin θ)
    rng = np.random.default_rng(0)
    angles = np.array([math.atan2(*sample_bingham(np.array([0.0, a]), rng)[::-1])
                       for _ in range(4000)])
    angles = np.mod(angles, math.pi)  # ±v are the same axis
    norm = integrate.quad(lambda t: math.exp(-a * math.sin(t) ** 2), 0, math.pi)[0]

    def cdf(t: float) -> float:
        return integrate.quad(lambda s: math.exp(-a * math.sin(s) ** 2), 0, t)[0] / norm

    assert stats.kstest(angles, np.vectorize(cdf)).pvalue > 0.001


@pytest.mark.slow
def test_gauss_cov_passes_an_empirical_privacy_audit() -> None:
    budget = Budget(epsilon=1.0, delta=1e-5)
    x = np.array([[1.0]] + [[0.0]] * 9)
    y = np.array([[0.0]] * 10)

    def once(data: np.ndarray, rng: np.random.Generator) -> float:
        return float(gauss_covariance(data, budget, rng=rng).estimate["covariance"][0, 0])

    result = audit(repeat(once), x, y, claimed_epsilon=1.0, delta=1e-5, trials=10_000, seed=0)
    assert result.passed and result.epsilon_lower <= 1.0


def test_clip_radius_search_passes_an_empirical_privacy_audit() -> None:
    n = 20
    x = np.zeros((n, 2))
    x[:, 0] = 2.0**-6
    y = x.copy()
    y[0, 0] = 1.0  # one row moved to the top bin
    rho = 0.5
    eps_svt = math.sqrt(2 * rho / 8)

    def once(data: np.ndarray, rng: np.random.Generator) -> float:
        decision = choose_clip(prepare(data, None), Privacy("zcdp", rho), rng=rng,
                               ledger=Ledger(), beta=0.1, c_s=6.0, compat_released_code=False)
        return float(decision.svt_index)

    # the trace release (ρ/8) and the SVT (ε_svt) both see the data: audit their sum
    claimed = eps_svt + math.sqrt(2 * rho / 8) * 6  # SVT + a generous ε for the Gaussian trace
    result = audit(repeat(once), x, y, claimed_epsilon=claimed, trials=4000, seed=0)
    assert result.epsilon_lower <= claimed


def test_bad_inputs_give_sentences() -> None:
    with pytest.raises(ValueError, match="missing or infinite"):
        dpviz.run("covariance", "gauss", [[0.1, math.nan], [0.2, 0.1]], rho=0.1)
    with pytest.raises(ValueError, match="at least 2 rows"):
        dpviz.run("covariance", "separate", [[0.1, 0.2]], rho=0.1)
    with pytest.raises(ValueError, match="rho"):
        dpviz.run("covariance", "adaptive", unit_rows(10, 2, 0), rho=0.0)
    with pytest.raises(ValueError, match="zCDP"):
        dpviz.run("covariance", "gauss", unit_rows(10, 2, 0), epsilon=1.0, delta=1e-5,
                  accounting="pld")
    r = dpviz.run("covariance", "gauss", [[3.0, 4.0], [0.1, 0.0], [0.0, 0.2]], rho=1.0,
                  radius=2.0)
    assert r.diagnostics["rows_clipped"] == 1 and r.choices["radius"] == 2.0


def test_run_round_trip_and_json() -> None:
    x = unit_rows(400, 3, 5)
    for name in ESTIMATORS:
        r = dpviz.run("covariance", name, x, rho=0.2, seed=7)
        again = dpviz.run("covariance", name, x, rho=0.2, seed=7)
        assert np.array_equal(r.estimate["covariance"], again.estimate["covariance"])
        out = json.loads(json.dumps(r.to_dict()))
        assert out["task"] == "covariance" and len(out["covariance"]) == 3
        assert set(r.diagnostics) >= {"true_covariance", "true_eigenvalues", "eigenvalues",
                                      "rows_clipped", "error_bound"}
    a = adaptive_covariance(x, Budget(rho=0.2), rng=np.random.default_rng(0))
    assert a.diagnostics["branch"] in ("separate", "gauss")
    assert set(a.diagnostics["proxies"]) == {"tau", "bias", "E_S", "E_G"}


def test_paper_defaults_reproduce_the_reference_errors() -> None:
    z = zipf_norm_data(50_000, 200, seed=0)
    prepared = prepare(z.data, None)
    errors = {}
    for name, fn in (("gauss", gauss_covariance), ("separate", separate_covariance)):
        r = fn(prepared, Budget(rho=0.1), rng=np.random.default_rng(0))
        errors[name] = np.linalg.norm(r.estimate["covariance"] - z.matrix)
    assert np.linalg.norm(z.matrix) == pytest.approx(2.2e-2, rel=0.05)  # Zero
    assert errors["gauss"] == pytest.approx(9e-3, rel=0.1)
    assert errors["separate"] == pytest.approx(2.8e-3, rel=0.15)


def test_a_huge_row_moves_the_released_moment_no_more_than_a_unit_row():
    """Review finding: clipping by a rank update would leak a rounding error that grows with
    the raw norm; rows far over the radius are clipped explicitly."""
    from dpviz.estimators.covariance.common import clip_rows
    from dpviz.privacy.bounds import Ball

    rng = np.random.default_rng(0)
    base = rng.normal(size=(2000, 5))
    base /= 1.5 * np.linalg.norm(base, axis=1, keepdims=True)
    huge, unit = base.copy(), base.copy()
    huge[0], unit[0] = [1e9, 1, 0, 0, 0], [1, 0, 0, 0, 0]  # both clip to e1, to 1e-9
    ball = Ball(np.zeros(5), 1.0)
    gap = np.linalg.norm(clip_rows(huge, ball).moment - clip_rows(unit, ball).moment)
    assert gap < 1e-6 * math.sqrt(2) / 2000  # was 45x the sensitivity with the rank update
    near = base.copy()
    near[:10] *= 1.5 * (1 + 1e-15)  # just over the radius: the rank update, no copy
    prepared = clip_rows(near, ball)
    direct = prepared.clipped(np.arange(2000))
    assert prepared.rows is near
    assert np.abs(prepared.moment - direct.T @ direct / 2000).max() < 1e-15


@pytest.mark.parametrize("share", [0.0, 1.0, 1.5, -0.2])
def test_emcov_refuses_an_eigenvalue_share_outside_0_1(share):
    """Review finding: a share of 1.5 once released the eigenvalues at 1.5ε while the ledger
    said ε (the registry's range stops it earlier; the engine itself must too)."""
    from dpviz.estimators.covariance.emcov import emcov_covariance
    from dpviz.privacy import Budget

    with pytest.raises(ValueError, match="eigenvalue_share must be > 0 and < 1"):
        emcov_covariance(np.full((50, 3), 0.1), Budget(epsilon=1.0),
                         rng=np.random.default_rng(0), eigenvalue_share=share)


def test_emcov_ledger_total_stays_at_or_below_epsilon():
    x = np.random.default_rng(1).normal(size=(300, 12)) * 0.2
    total = dpviz.run("covariance", "emcov", x, epsilon=1.0).ledger.total()
    assert total.epsilon <= 1.0
