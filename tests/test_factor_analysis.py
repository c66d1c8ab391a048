"""Private factor analysis (ALGORITHMS.md §2, "Factor analysis"; seed 002 §6)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_digits
from sklearn.decomposition import FactorAnalysis

from dpviz.core.linalg import project_psd
from dpviz.estimators.factor_analysis import (
    EIGENVALUE_FLOOR,
    ESTIMATORS,
    canonical_rotation,
    digits_factor_images,
    fa_em_step,
    fa_log_likelihood,
    fit_factor_analysis,
    private_factor_analysis,
    second_moment_sensitivity,
)
from dpviz.privacy import Budget, BudgetError
from dpviz.privacy.calibration import analytic_gaussian_mu

INF = Budget(epsilon=math.inf)


def low_rank_data(n=4000, d=8, factors=2, seed=3, norm=0.5):
    """Rows from a true factor model, scaled so the largest has the given norm."""
    rng = np.random.default_rng(seed)
    loadings = rng.normal(size=(d, factors)) * 0.2
    noise = rng.uniform(0.01, 0.03, size=d)
    x = rng.normal(size=(n, factors)) @ loadings.T + rng.normal(size=(n, d)) * np.sqrt(noise)
    return x * norm / np.max(np.linalg.norm(x, axis=1))


def second_moment(x):
    return x.T @ x / len(x)


def fa(data, budget=INF, **kw):
    kw.setdefault("factors", 2)
    kw.setdefault("rng", np.random.default_rng(0))
    return private_factor_analysis(data, budget, **kw)


# --- sensitivity ---

@pytest.mark.parametrize("n", [2, 10, 500])
def test_orthogonal_unit_rows_attain_sqrt2_over_n(n):
    d = 5
    others = np.random.default_rng(n).normal(size=(n - 1, d)) * 0.1
    data = np.vstack([np.eye(d)[0], others])
    neighbour = np.vstack([np.eye(d)[1], others])
    change = np.linalg.norm(second_moment(data) - second_moment(neighbour))
    assert change == pytest.approx(math.sqrt(2) / n, rel=1e-12)
    assert change == pytest.approx(second_moment_sensitivity(n), rel=1e-12)
    assert change < 2 / n  # the naive triangle-inequality bound is loose


@pytest.mark.parametrize("d", [1, 3, 10])
def test_random_neighbours_in_the_unit_ball_never_exceed_sqrt2_over_n(d):
    rng = np.random.default_rng(d)
    worst = 0.0
    for _ in range(300):
        n = int(rng.integers(2, 40))
        data = rng.normal(size=(n, d))
        data /= np.maximum(1.0, np.linalg.norm(data, axis=1, keepdims=True))
        neighbour = data.copy()
        new = rng.normal(size=d)
        neighbour[rng.integers(n)] = new / np.linalg.norm(new) * rng.uniform(0.5, 1.0)
        worst = max(worst, n * np.linalg.norm(second_moment(data) - second_moment(neighbour)))
    assert worst <= math.sqrt(2) + 1e-12


def test_rows_are_clipped_and_scaled_before_the_second_moment():
    """Data units, radius 3: the released matrix at ε = ∞ is R² × the unit rows' Λ."""
    data = np.vstack([low_rank_data(n=300, norm=3.0), [[30.0] + [0.0] * 7]])
    unit = data / 3.0
    unit[-1] = [1.0] + [0.0] * 7  # the outlier is clipped onto the sphere
    result = fa(data, radius=3.0)
    assert result.diagnostics["eigenvalues_raised"] == 0
    np.testing.assert_allclose(result.diagnostics["second_moment"], 9.0 * second_moment(unit),
                               rtol=1e-10, atol=1e-14)


def test_the_ledger_has_one_frobenius_release_of_sqrt2_over_n():
    data = low_rank_data(n=700)
    result = fa(data, Budget(epsilon=1.0, delta=1e-5), iterations=50)
    (release,) = result.ledger.releases
    assert release.mechanism == "symmetric_gaussian"
    assert release.norm == "Frobenius"
    assert release.sensitivity == pytest.approx(math.sqrt(2) / 700, rel=1e-12)
    assert result.diagnostics["noise_scale"] == release.scale


# --- noise ---

def test_noise_is_symmetric_gaussian_with_the_ledger_scale():
    """Rows on a sphere keep every eigenvalue far above the PSD floor, so the released
    matrix minus Λ is the noise: N(0, σ²) on i ≤ j, mirrored; σ√2 and σ/√2 are rejected."""
    rng = np.random.default_rng(8)
    d, n, radius = 6, 3000, 2.0
    rows = rng.normal(size=(n, d))
    data = radius * rows / np.linalg.norm(rows, axis=1, keepdims=True)
    lam = second_moment(data / radius)
    noise, sigma = [], None
    for _ in range(150):
        result = fa(data, Budget(epsilon=1.0, delta=1e-5, method="pld"), rng=rng,
                    radius=radius, iterations=1)
        assert result.diagnostics["eigenvalues_raised"] == 0
        released = result.diagnostics["second_moment"] / radius**2
        np.testing.assert_array_equal(released, released.T)
        noise.append((released - lam)[np.triu_indices(d)])
        sigma = result.ledger.releases[0].scale
    noise = np.concatenate(noise)
    # one Gaussian under PLD is exactly the analytic Gaussian (Balle & Wang)
    assert sigma == pytest.approx(math.sqrt(2) / n / analytic_gaussian_mu(1.0, 1e-5), rel=1e-9)
    assert stats.kstest(noise, stats.norm(0, sigma).cdf).pvalue > 1e-3
    assert stats.kstest(noise, stats.norm(0, sigma * math.sqrt(2)).cdf).pvalue < 1e-6
    assert stats.kstest(noise, stats.norm(0, sigma / math.sqrt(2)).cdf).pvalue < 1e-6


# --- the budget ---

@pytest.mark.parametrize("method", ["linear", "advanced", "zcdp", "ma", "rdp", "pld"])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 8.0])
def test_ledger_total_equals_the_budget(method, epsilon):
    result = fa(low_rank_data(n=500), Budget(epsilon=epsilon, delta=1e-5, method=method),
                iterations=5)
    total = result.ledger.total()
    assert total.method == method
    assert total.epsilon <= epsilon
    assert total.epsilon == pytest.approx(epsilon, rel=1e-6)


def test_a_rho_budget_is_met_in_rho():
    total = fa(low_rank_data(n=500), Budget(rho=0.2), iterations=5).ledger.total()
    assert total.rho <= 0.2
    assert total.rho == pytest.approx(0.2, rel=1e-12)


def test_pure_dp_is_refused_with_a_sentence():
    with pytest.raises(BudgetError) as err:
        fa(low_rank_data(n=100), Budget(epsilon=1.0))
    assert isinstance(err.value, ValueError)
    assert "needs delta > 0" in str(err.value)
    assert "pure epsilon-DP" in str(err.value)


# --- ε = ∞ is the non-private FA of Λ ---

def test_epsilon_inf_fits_a_true_low_rank_plus_diagonal_second_moment():
    data = low_rank_data()
    lam = second_moment(data)
    result = fa(data, iterations=1000)
    assert result.diagnostics["eigenvalues_raised"] == 0
    loadings, psi = result.estimate["loadings"], result.estimate["noise_variances"]
    fitted = loadings @ loadings.T + np.diag(psi)
    assert np.abs(fitted - lam).max() < 0.005 * np.abs(lam).max()  # measured 8.9e-4
    assert all(r.scale == 0 for r in result.ledger.releases)


def test_epsilon_inf_matches_scikit_learn_on_the_symmetrised_rows():
    """sklearn centres its data; on the rows and their negatives the mean is exactly 0 and
    the covariance exactly Λ, so its fit is the maximum-likelihood FA of Λ."""
    data = low_rank_data(n=1000)
    lam = second_moment(data)
    result = fa(data, iterations=1000)
    loadings, psi = result.estimate["loadings"], result.estimate["noise_variances"]
    ref = FactorAnalysis(n_components=2, tol=1e-10, max_iter=10_000, svd_method="lapack").fit(
        np.vstack([data, -data]))  # measured: 453 iterations, agreement to 3e-9
    ref_w = ref.components_.T
    np.testing.assert_allclose(loadings @ loadings.T, ref_w @ ref_w.T, atol=1e-7)
    np.testing.assert_allclose(psi, ref.noise_variance_, atol=1e-7)
    assert fa_log_likelihood(lam, loadings, psi) >= fa_log_likelihood(
        lam, ref_w, ref.noise_variance_) - 1e-9


def test_loadings_scale_with_r_and_noise_variances_with_r_squared():
    unit = low_rank_data(n=500)
    small = fa(unit, iterations=200)
    large = fa(3.0 * unit, radius=3.0, iterations=200)
    np.testing.assert_allclose(large.estimate["loadings"], 3.0 * small.estimate["loadings"],
                               rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(large.estimate["noise_variances"],
                               9.0 * small.estimate["noise_variances"], rtol=1e-8)


# --- the EM on the released matrix ---

@pytest.mark.parametrize("epsilon", [0.1, 1.0, 10.0, math.inf])
def test_em_likelihood_never_decreases_on_the_released_matrix(epsilon):
    data = low_rank_data(n=300)
    for seed in range(3):
        result = fa(data, Budget(epsilon=epsilon, delta=1e-5), factors=3, iterations=300,
                    rng=np.random.default_rng(seed))
        history = result.diagnostics["log_likelihood"]
        assert len(history) == 301
        assert np.all(np.diff(history) >= -1e-10 * np.abs(history[1:]))
        released = result.diagnostics["second_moment"]
        assert fa_log_likelihood(released, result.estimate["loadings"],
                                 result.estimate["noise_variances"]) == pytest.approx(
            history[-1], rel=1e-9)


def test_released_matrix_is_projected_onto_psd_with_the_floor():
    result = fa(low_rank_data(n=50), Budget(epsilon=0.1, delta=1e-5))
    assert result.diagnostics["eigenvalues_raised"] > 0
    assert np.linalg.eigvalsh(result.diagnostics["second_moment"]).min() >= 1e-4 * (1 - 1e-9)
    assert np.all(result.estimate["noise_variances"] > 0)
    assert np.linalg.eigvalsh(project_psd(-np.eye(3), EIGENVALUE_FLOOR)).tolist() == \
        pytest.approx([1e-4] * 3)


def test_em_step_matches_the_formulas_of_algorithms_md():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(5, 5))
    lam = a @ a.T / 5
    w = rng.normal(size=(5, 2))
    psi = rng.uniform(0.5, 1.5, size=5)
    p_inv = np.diag(1 / psi)
    g = np.linalg.inv(np.eye(2) + w.T @ p_inv @ w)
    w_new = lam @ p_inv @ w @ g.T @ np.linalg.inv(g + g @ w.T @ p_inv @ lam @ p_inv @ w @ g.T)
    psi_new = np.diag(lam - w_new @ g @ w.T @ p_inv @ lam)
    got_w, got_psi = fa_em_step(lam, w, psi)
    np.testing.assert_allclose(got_w, w_new, rtol=1e-10)
    np.testing.assert_allclose(got_psi, np.maximum(psi_new, 1e-6), rtol=1e-10)


def test_canonical_rotation_keeps_w_wt_and_orders_the_columns():
    w = np.random.default_rng(2).normal(size=(6, 3))
    rotated = canonical_rotation(w)
    np.testing.assert_allclose(rotated @ rotated.T, w @ w.T, atol=1e-12)
    gram = rotated.T @ rotated
    np.testing.assert_allclose(gram, np.diag(np.diag(gram)), atol=1e-12)
    assert np.all(np.diff(np.diag(gram)) <= 0)
    assert np.all(rotated.sum(axis=0) >= 0)


def test_the_start_is_data_independent_and_the_same_at_every_epsilon():
    """The start comes from the seed alone, drawn before the noise: one EM step from it on
    each released matrix reproduces the estimator, at ε = ∞ and at ε = 1 alike."""
    data = low_rank_data(n=400)
    first = fit_factor_analysis(second_moment(data), 2, iterations=0,
                                rng=np.random.default_rng(5))
    other = fit_factor_analysis(np.eye(8), 2, iterations=0, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(first[0], other[0])
    np.testing.assert_array_equal(first[1], other[1])
    for budget in (INF, Budget(epsilon=1.0, delta=1e-5)):
        result = fa(data, budget, iterations=1, rng=np.random.default_rng(5))
        released = result.diagnostics["second_moment"]
        w, psi, _ = fit_factor_analysis(released, 2, iterations=1, rng=np.random.default_rng(5))
        np.testing.assert_allclose(result.estimate["loadings"], w, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(result.estimate["noise_variances"], psi, rtol=1e-12)


def test_same_seed_same_output_and_another_seed_differs():
    data = low_rank_data(n=400)
    budget = Budget(epsilon=1.0, delta=1e-5)
    first = fa(data, budget, rng=np.random.default_rng(11))
    again = fa(data, budget, rng=np.random.default_rng(11))
    other = fa(data, budget, rng=np.random.default_rng(12))
    np.testing.assert_array_equal(first.estimate["loadings"], again.estimate["loadings"])
    np.testing.assert_array_equal(first.estimate["noise_variances"],
                                  again.estimate["noise_variances"])
    assert not np.array_equal(first.estimate["loadings"], other.estimate["loadings"])


def test_the_estimate_and_json():
    result = fa(low_rank_data(n=400), Budget(epsilon=1.0, delta=1e-5), factors=3)
    assert result.estimate["loadings"].shape == (8, 3)
    assert result.estimate["noise_variances"].shape == (8,)
    out = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert len(out["loadings"]) == 8
    assert len(out["ledger"]["releases"]) == 1
    assert "not private" in out["choices"]["centring"]
    for key in ("sensitivity", "psd projection", "initialisation", "rotation"):
        assert key in out["choices"]


# --- digits: the noise hides the factors at small ε ---

DIGITS = load_digits().data  # pixels 0…16: ‖row‖ ≤ 16·8 = 128, the public radius


def top_factor_match(reference, private):
    """|cos| between the non-private first factor and its best-matching private column."""
    ref = reference[:, 0] / np.linalg.norm(reference[:, 0])
    return float(np.max(np.abs(ref @ (private / np.linalg.norm(private, axis=0)))))


def subspace_overlap(a, b):
    """‖QₐᵀQ_b‖_F²/f: 1 for the same span, ≈ f/d for unrelated ones."""
    qa, _ = np.linalg.qr(a)
    qb, _ = np.linalg.qr(b)
    return float(np.linalg.norm(qa.T @ qb) ** 2 / a.shape[1])


def test_digits_factors_survive_epsilon_10_and_vanish_at_epsilon_0_1():
    """Measured, seeds 0–4 (5 factors, 100 EM steps, δ = 1e-5): top-factor |cos| 1.000 at
    ε = 10 and 0.07–0.57 at ε = 0.1; subspace overlap 0.63–0.79 at ε = 10 and 0.08–0.14 at
    ε = 0.1 (unrelated 5-dimensional spans in 64 dimensions: 5/64 = 0.08)."""
    reference = private_factor_analysis(DIGITS, INF, factors=5, rng=np.random.default_rng(0),
                                        radius=128.0).estimate["loadings"]
    def loadings(epsilon, seed):
        return private_factor_analysis(DIGITS, Budget(epsilon=epsilon, delta=1e-5), factors=5,
                                       rng=np.random.default_rng(seed),
                                       radius=128.0).estimate["loadings"]

    for seed in range(5):
        clear, hidden = loadings(10.0, seed), loadings(0.1, seed)
        assert top_factor_match(reference, clear) > 0.99
        assert subspace_overlap(reference, clear) > 0.5
        assert top_factor_match(reference, hidden) < 0.8
        assert subspace_overlap(reference, hidden) < 0.3


def test_digits_factor_images():
    loadings = np.arange(64 * 3, dtype=float).reshape(64, 3)
    images = digits_factor_images(loadings)
    assert images.shape == (3, 8, 8)
    assert images[1, 2, 5] == loadings[2 * 8 + 5, 1]
    result = private_factor_analysis(DIGITS, INF, factors=2, rng=np.random.default_rng(0),
                                     radius=128.0)
    first = digits_factor_images(result.estimate["loadings"])[0]
    assert first.sum() > 0  # the first factor carries the mean image (uncentred data)
    with pytest.raises(ValueError, match=r"^digits loadings must be 64 × factors, got shape"):
        digits_factor_images(np.zeros((63, 2)))


# --- bad inputs and the registry entry ---

@pytest.mark.parametrize(("kwargs", "message"), [
    ({"factors": 0}, "factors must be >= 1 and <= 50, got 0"),
    ({"factors": 9}, "factors must be at most the number of columns (8), got 9"),
    ({"factors": 1.5}, "factors must be a whole number, got 1.5"),
    ({"iterations": 0}, "iterations must be >= 1 and <= 5000, got 0"),
])
def test_bad_parameters_are_sentences(kwargs, message):
    with pytest.raises(ValueError) as err:
        fa(low_rank_data(n=50), Budget(epsilon=1.0, delta=1e-5), **kwargs)
    assert str(err.value) == message


def test_bad_data_is_a_sentence():
    with pytest.raises(ValueError, match="missing or infinite value in row 1, column 2"):
        fa(np.array([[0.0, np.inf], [1.0, 1.0]]), factors=1)
    with pytest.raises(ValueError, match="needs at least 2 rows"):
        fa(np.array([[0.0, 1.0]]), factors=1)


def test_registry_entry_runs_as_dpviz_run_calls_it():
    entry = ESTIMATORS["dp_fa"]
    assert (entry.task, entry.name, entry.notion) == ("factor_analysis", "dp_fa", "approximate")
    assert entry.resolve({}) == {"factors": 5, "iterations": 100}
    with pytest.raises(TypeError):
        ESTIMATORS["other"] = entry  # type: ignore[index]
    kwargs = entry.resolve({"factors": "2", "iterations": "30"})
    result = entry.function(low_rank_data(n=300), Budget(epsilon=1.0, delta=1e-5),
                            rng=np.random.default_rng(0), radius=None, **kwargs)
    assert result.estimate["loadings"].shape == (8, 2)
    assert "default unit ball" in result.choices["bound"]
