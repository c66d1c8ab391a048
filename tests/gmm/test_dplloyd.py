"""DPLloyd (ALGORITHMS.md §2, "DPLloyd baseline"): sensitivity, noise, budget, audit."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from dpviz.estimators.gmm import dplloyd
from dpviz.estimators.gmm.dplloyd import (
    ESTIMATORS,
    lloyd_sensitivity,
    lloyd_statistics,
    private_lloyd,
    update_centres,
)
from dpviz.privacy import Budget, PlannedRelease, audit, repeat, solve

RADIUS = 4.0
_rng = np.random.default_rng(20240612)
X = np.concatenate([_rng.normal(centre, 0.4, size=(200, 2))
                    for centre in ([-2.0, 0.0], [2.0, 0.0], [0.0, 2.0])])


def lloyd(data=X, budget=None, **kw):
    kw.setdefault("k", 3)
    kw.setdefault("rng", np.random.default_rng(0))
    kw.setdefault("radius", RADIUS)
    return private_lloyd(data, budget or Budget(epsilon=1.0), **kw)


def statistics_vector(result, iteration=0):
    return np.concatenate([result.diagnostics["noisy_counts"][iteration],
                           result.diagnostics["noisy_sums"][iteration].ravel()])


# --- sensitivity on neighbouring datasets ---

def _unit(v):
    return v / np.linalg.norm(v)


@pytest.mark.parametrize("d", [1, 2, 3, 5, 8])
def test_replace_one_change_of_counts_and_sums_never_exceeds_2_d_plus_1(d):
    """Random neighbours in the box [−1, 1]ᵈ, replacements at its corners and on the sphere."""
    rng = np.random.default_rng(d)
    worst = 0.0
    for _ in range(200):
        k = int(rng.integers(1, 6))
        data = rng.uniform(-1, 1, size=(int(rng.integers(k, 30)), d))
        centres = rng.uniform(-1, 1, size=(k, d))
        i = int(rng.integers(len(data)))
        for new in (rng.choice([-1.0, 1.0], size=d), -data[i] / max(1.0, np.abs(data[i]).max()),
                    _unit(rng.normal(size=d))):
            neighbour = data.copy()
            neighbour[i] = new
            change = np.abs(lloyd_statistics(data, centres)
                            - lloyd_statistics(neighbour, centres)).sum()
            worst = max(worst, change)
    assert worst <= lloyd_sensitivity(d) + 1e-12


@pytest.mark.parametrize("d", [1, 2, 3, 6])
def test_opposite_corners_in_opposite_clusters_attain_2_d_plus_1(d):
    """A point at one corner moves to the opposite corner and so to the other cluster."""
    centres = np.array([-0.5 * np.ones(d), 0.5 * np.ones(d)])
    others = np.array([-0.5 * np.ones(d), 0.5 * np.ones(d)])
    data = np.vstack([-np.ones(d), others])
    neighbour = np.vstack([np.ones(d), others])
    change = np.abs(lloyd_statistics(data, centres) - lloyd_statistics(neighbour, centres)).sum()
    assert change == pytest.approx(2 * (d + 1))
    assert change > d + 1  # the add/remove value is not enough under replacement


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])
def test_unit_ball_rows_through_the_estimator_exceed_d_plus_1(d):
    """Rows given in data units (radius 3), clipped and scaled by the estimator, at ε = ∞:
    the released vector moves by 2 + 2√d — within 2(d + 1), beyond d + 1 for d ≤ 5."""
    pole = 3.0 * np.ones(d) / math.sqrt(d)
    others = np.array([-0.5 * pole, 0.5 * pole, 0.2 * pole])
    data = np.vstack([-5 * pole, others])        # clipped onto the sphere of radius 3
    neighbour = np.vstack([pole, others])
    initial = np.array([-pole / 2, pole / 2])
    released = [statistics_vector(private_lloyd(
        rows, Budget(epsilon=math.inf), k=2, iterations=1, rng=np.random.default_rng(0),
        radius=3.0, initial=initial)) for rows in (data, neighbour)]
    change = np.abs(released[0] - released[1]).sum()
    assert change == pytest.approx(2 + 2 * math.sqrt(d))
    assert d + 1 < change <= 2 * (d + 1) + 1e-12


def test_the_ledger_records_the_replace_one_sensitivity_per_iteration():
    result = lloyd(iterations=4, budget=Budget(epsilon=2.0))
    assert len(result.ledger.releases) == 4
    for release in result.ledger.releases:
        assert release.mechanism == "laplace"
        assert release.norm == "L1"
        assert release.sensitivity == 2 * (2 + 1)
        assert release.epsilon == pytest.approx(0.5, rel=1e-12)
    assert result.choices["sensitivity"] == 6.0
    assert "replace-one" in result.choices["sensitivity reason"]


# --- noise ---

def test_linear_scale_is_2_d_plus_1_times_j_over_epsilon():
    result = lloyd(iterations=5, budget=Budget(epsilon=0.5))
    assert result.diagnostics["noise_scale"] == pytest.approx(2 * 3 * 5 / 0.5, rel=1e-12)
    assert {r.scale for r in result.ledger.releases} == {result.diagnostics["noise_scale"]}


def test_scales_of_algorithms_md_regression():
    """§1.2: ε = 0.01, δ = 1e-4, J = 10, d = 2: linear 6 000, zCDP (Bun–Steinke) 8 146."""
    def scale(method, paper_mode=False):
        x = np.random.default_rng(0).uniform(-0.5, 0.5, size=(50, 2))
        return private_lloyd(x, Budget(epsilon=0.01, delta=1e-4, method=method,
                                       paper_mode=paper_mode), k=2, iterations=10,
                             rng=np.random.default_rng(0)).diagnostics["noise_scale"]

    assert scale("linear") == pytest.approx(6000.0, rel=1e-9)
    assert scale("zcdp", paper_mode=True) == pytest.approx(8146.0, abs=1.0)
    plan = [PlannedRelease("counts and sums", "laplace", sensitivity=6.0, count=10)]
    cks = solve(plan, Budget(epsilon=0.01, delta=1e-4, method="zcdp"))["counts and sums"]
    assert scale("zcdp") == pytest.approx(cks.scale, rel=1e-12)


def test_noise_is_laplace_with_the_ledger_scale():
    """The released vector minus the exact one is Laplace(b); b·√2 and b/√2 are rejected."""
    initial = np.array([[-2.0, 0.0], [2.0, 0.0]])
    exact = lloyd_statistics(X / RADIUS, initial / RADIUS)
    rng = np.random.default_rng(5)
    noise, scale = [], None
    for _ in range(600):
        result = lloyd(k=2, iterations=1, budget=Budget(epsilon=3.0), rng=rng, initial=initial)
        noise.append(statistics_vector(result) - exact)
        scale = result.ledger.releases[0].scale
    noise = np.concatenate(noise)
    assert scale == pytest.approx(2.0)
    assert stats.kstest(noise, stats.laplace(0, scale).cdf).pvalue > 1e-3
    assert stats.kstest(noise, stats.laplace(0, scale * math.sqrt(2)).cdf).pvalue < 1e-6
    assert stats.kstest(noise, stats.laplace(0, scale / math.sqrt(2)).cdf).pvalue < 1e-6


# --- the budget ---

@pytest.mark.parametrize("method", ["linear", "zcdp"])
@pytest.mark.parametrize("epsilon", [0.05, 1.0, 4.0])
@pytest.mark.parametrize("iterations", [1, 10, 30])
def test_ledger_total_equals_the_budget(method, epsilon, iterations):
    budget = Budget(epsilon=epsilon, delta=1e-5, method=method)
    total = lloyd(budget=budget, iterations=iterations).ledger.total()
    assert total.method == method
    assert total.epsilon <= epsilon
    assert total.epsilon == pytest.approx(epsilon, rel=1e-6)


@pytest.mark.parametrize("method", ["advanced", "ma", "rdp", "pld"])
def test_ledger_total_meets_the_budget_under_the_other_methods(method):
    budget = Budget(epsilon=0.7, delta=1e-6, method=method)
    total = lloyd(budget=budget, iterations=40).ledger.total()
    assert total.epsilon <= 0.7
    assert total.epsilon == pytest.approx(0.7, rel=1e-6)


def test_a_rho_budget_is_met_in_rho():
    total = lloyd(budget=Budget(rho=0.05), iterations=30).ledger.total()
    assert total.rho <= 0.05
    assert total.rho == pytest.approx(0.05, rel=1e-9)


def test_pure_dp_budget_is_linear_composition():
    result = lloyd(budget=Budget(epsilon=1.0), iterations=10)
    assert result.ledger.total().method == "linear"
    assert result.ledger.total().delta == 0.0
    assert sum(r.epsilon for r in result.ledger.releases) == pytest.approx(1.0)


def test_zcdp_beats_linear_only_for_many_iterations():
    """§1.2: zCDP (Bun–Steinke) wins only when J > 2 ln(1/δ)/(1 − ε₀/2)², ≈ 18 at δ = 1e-4."""
    def scale(method, iterations):
        return lloyd(budget=Budget(epsilon=0.5, delta=1e-4, method=method, paper_mode=True),
                     iterations=iterations).diagnostics["noise_scale"]

    assert scale("zcdp", 5) > scale("linear", 5)
    assert scale("zcdp", 60) < scale("linear", 60)


# --- what is computed ---

def exact_lloyd(points, centres, iterations):
    trajectory = [centres]
    for _ in range(iterations):
        labels = ((points[:, None, :] - centres[None]) ** 2).sum(axis=2).argmin(axis=1)
        centres = np.array([points[labels == j].mean(axis=0) if np.any(labels == j)
                            else centres[j] for j in range(len(centres))])
        trajectory.append(centres)
    return np.array(trajectory)


@pytest.mark.parametrize("k", [1, 3, 5])
def test_epsilon_inf_is_exact_lloyd_from_the_same_start(k):
    result = lloyd(budget=Budget(epsilon=math.inf), k=k, iterations=12)
    start = result.diagnostics["centres"][0] / RADIUS
    expected = exact_lloyd(X / RADIUS, start, 12) * RADIUS
    np.testing.assert_allclose(result.diagnostics["centres"], expected, atol=1e-12)
    np.testing.assert_allclose(result.estimate["means"], expected[-1], atol=1e-12)
    # the weights are the last release's counts: rows assigned to the centres before it
    labels = ((X[:, None] - expected[-2][None]) ** 2).sum(axis=2).argmin(axis=1)
    np.testing.assert_allclose(result.estimate["weights"],
                               np.bincount(labels, minlength=k) / len(X))
    assert all(r.scale == 0 for r in result.ledger.releases)


def test_initial_centres_are_data_independent():
    """The start depends on the seed only: two different datasets get the same one."""
    other = np.random.default_rng(9).uniform(-3, 3, size=(80, 2))
    first = lloyd(rng=np.random.default_rng(4)).diagnostics["centres"][0]
    second = lloyd(other, rng=np.random.default_rng(4)).diagnostics["centres"][0]
    np.testing.assert_array_equal(first, second)
    unit = first / RADIUS
    assert np.all(np.abs(unit) <= 0.5 / math.sqrt(2))


def test_the_estimate_shape_and_json():
    result = lloyd(iterations=7)
    assert result.estimate["means"].shape == (3, 2)
    assert result.estimate["covariances"] is None
    assert result.estimate["weights"].sum() == pytest.approx(1.0)
    assert np.all(result.estimate["weights"] >= 0)
    assert result.diagnostics["centres"].shape == (8, 3, 2)
    assert result.diagnostics["noisy_counts"].shape == (7, 3)
    assert result.diagnostics["noisy_sums"].shape == (7, 3, 2)
    out = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert out["covariances"] is None
    assert len(out["ledger"]["releases"]) == 7
    for key in ("initialisation", "split", "empty-cluster rule", "sensitivity",
                "sensitivity reason", "centre clipping"):
        assert key in out["choices"]


def test_recovers_well_separated_clusters_at_a_generous_budget():
    result = lloyd(budget=Budget(epsilon=50.0), iterations=8, rng=np.random.default_rng(1))
    truth = np.array([[-2.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
    errors = np.linalg.norm(result.estimate["means"][:, None] - truth[None], axis=2).min(axis=0)
    assert errors.max() < 0.3


def test_same_seed_same_output_and_another_seed_differs():
    first = lloyd(rng=np.random.default_rng(11))
    again = lloyd(rng=np.random.default_rng(11))
    other = lloyd(rng=np.random.default_rng(12))
    np.testing.assert_array_equal(first.estimate["means"], again.estimate["means"])
    np.testing.assert_array_equal(first.diagnostics["centres"], again.diagnostics["centres"])
    assert not np.array_equal(first.estimate["means"], other.estimate["means"])


@pytest.mark.parametrize("epsilon", [0.01, 0.3, 5.0])
def test_centres_stay_inside_the_ball(epsilon):
    for seed in range(5):
        result = lloyd(budget=Budget(epsilon=epsilon), iterations=10,
                       rng=np.random.default_rng(seed))
        norms = np.linalg.norm(result.diagnostics["centres"], axis=2)
        assert norms.max() <= RADIUS * (1 + 1e-12)
        assert np.all(np.abs(result.diagnostics["centres"]) <= RADIUS * (1 + 1e-12))


def test_non_positive_noisy_count_keeps_the_previous_centre():
    """At tiny ε noisy counts go negative; those clusters keep their centre, in the replay."""
    result = lloyd(budget=Budget(epsilon=0.01), iterations=10, rng=np.random.default_rng(3))
    counts = result.diagnostics["noisy_counts"]
    centres = result.diagnostics["centres"]
    kept = np.argwhere(counts <= 0)
    assert len(kept) > 0
    for it, j in kept:
        np.testing.assert_array_equal(centres[it + 1, j], centres[it, j])
    previous = np.array([[0.1, 0.2], [0.3, -0.4]])
    np.testing.assert_array_equal(update_centres(np.array([0.0, -2.0, 9, 9, 9, 9]), previous),
                                  previous)


def test_weights_are_uniform_when_every_noisy_count_is_non_positive():
    result = None
    for seed in range(200):
        candidate = lloyd(budget=Budget(epsilon=0.005), k=2, iterations=1,
                          rng=np.random.default_rng(seed))
        if np.all(candidate.diagnostics["noisy_counts"][-1] <= 0):
            result = candidate
            break
    assert result is not None
    np.testing.assert_array_equal(result.estimate["weights"], [0.5, 0.5])


# --- empirical audit of one iteration (1-D, worst-case neighbours) ---

AUDIT_DATA = np.array([[-1.0], [-0.5], [-0.5], [-0.5], [0.5], [0.5], [0.5]])
AUDIT_NEIGHBOUR = np.vstack([[1.0], AUDIT_DATA[1:]])
AUDIT_START = np.array([[-0.5], [0.5]])
EXACT = lloyd_statistics(AUDIT_DATA, AUDIT_START)
EXACT_NEIGHBOUR = lloyd_statistics(AUDIT_NEIGHBOUR, AUDIT_START)


def one_iteration_loss(data, rng):
    """Run the estimator once and return the Laplace privacy-loss statistic of its release.

    ``Σᵢ |vᵢ − aᵢ| − |vᵢ − a′ᵢ|`` (a, a′ the exact vectors on D, D′) is the likelihood-ratio
    test between the two datasets: at its maximum (every coordinate past a′) the ratio of the
    probabilities is exactly e^ε, the worst case of the proof.
    """
    result = private_lloyd(data, Budget(epsilon=1.0), k=2, iterations=1, rng=rng,
                           initial=AUDIT_START)
    v = statistics_vector(result)
    return float(np.sum(np.abs(v - EXACT) - np.abs(v - EXACT_NEIGHBOUR)))


def test_the_audit_instance_is_the_worst_case():
    np.testing.assert_array_equal(EXACT_NEIGHBOUR - EXACT, [-1.0, 1.0, 1.0, 1.0])
    assert np.abs(EXACT_NEIGHBOUR - EXACT).sum() == lloyd_sensitivity(1)


@pytest.mark.slow  # an audit: 8-15 s (make test, not make check)
def test_audit_of_one_iteration_stays_below_the_claim():
    """Measured (seed 0, 20 000 trials): ε̂ = 0.94, ε ≥ 0.74 at 95% confidence; claim 1."""
    result = audit(repeat(one_iteration_loss), AUDIT_DATA, AUDIT_NEIGHBOUR,
                   claimed_epsilon=1.0, trials=20_000, seed=0)
    assert result.passed, result.verdict()
    assert result.epsilon_lower > 0.6  # the instance is tight: the audit sees most of ε


@pytest.mark.slow  # an audit: 6-11 s (make test, not make check)
def test_audit_catches_the_add_remove_sensitivity(monkeypatch):
    """Sensitivity d + 1 (half the noise) really spends ε = 2: measured ε̂ = 2.05, ε ≥ 1.80."""
    monkeypatch.setattr(dplloyd, "lloyd_sensitivity", lambda d: float(d + 1))
    result = audit(repeat(one_iteration_loss), AUDIT_DATA, AUDIT_NEIGHBOUR,
                   claimed_epsilon=1.0, trials=20_000, seed=0)
    assert not result.passed, result.verdict()
    assert result.epsilon_lower > 1.5


# --- bad inputs and the registry entry ---

@pytest.mark.parametrize(("kwargs", "message"), [
    ({"k": 0}, "k must be >= 1 and <= 100, got 0"),
    ({"k": 101}, "k must be >= 1 and <= 100, got 101"),
    ({"k": 2.5}, "k must be a whole number, got 2.5"),
    ({"iterations": 0}, "iterations must be >= 1 and <= 200, got 0"),
    ({"iterations": 201}, "iterations must be >= 1 and <= 200, got 201"),
    ({"split": "front-loaded"}, "split must be one of equal, got 'front-loaded'"),
    ({"initial": [[0.0, 0.0]]}, "initial centres must be a finite 3 × 2 table, got shape (1, 2)"),
])
def test_bad_parameters_are_sentences(kwargs, message):
    with pytest.raises(ValueError) as err:
        lloyd(**kwargs)
    assert str(err.value) == message


def test_more_clusters_than_rows_is_a_sentence():
    with pytest.raises(ValueError) as err:
        lloyd(X[:3], k=5)
    assert str(err.value) == "k = 5 clusters need at least 5 rows, got 3"


def test_bad_data_is_a_sentence():
    with pytest.raises(ValueError, match="missing or infinite value in row 2, column 1"):
        lloyd(np.array([[0.0, 0.0], [np.nan, 1.0], [1.0, 1.0]]), k=2)


def test_registry_entry_runs_as_dpviz_run_calls_it():
    entry = ESTIMATORS["dplloyd"]
    assert (entry.task, entry.name, entry.notion) == ("gmm", "dplloyd", "pure")
    assert entry.resolve({"k": "3"}) == {"k": 3, "iterations": 10}
    with pytest.raises(ValueError, match="needs the parameter 'k'"):
        entry.resolve({})
    with pytest.raises(TypeError):
        ESTIMATORS["other"] = entry  # type: ignore[index]
    kwargs = entry.resolve({"k": 3, "iterations": "4"})
    result = entry.function(X, Budget(epsilon=1.0, delta=1e-5), rng=np.random.default_rng(0),
                            radius=None, **kwargs)
    assert result.estimate["means"].shape == (3, 2)
    assert np.linalg.norm(result.estimate["means"], axis=1).max() <= 1 + 1e-12
    assert "default unit ball" in result.choices["bound"]
