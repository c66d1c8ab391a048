"""The stability learner's degree-2 surrogate (seed 003 §6): sensitivity, budget, audit, ⊥."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import dpviz
from dpviz.estimators.gmm import stability
from dpviz.estimators.gmm.one_cluster import REFUSED
from dpviz.estimators.gmm.sdp import solve_clustering_program
from dpviz.estimators.gmm.stability import (
    ESTIMATORS,
    centroids,
    mass_sensitivity,
    matrix_sensitivity,
    soft_threshold,
    solver_tolerance,
    stability_mixture,
)
from dpviz.privacy import METHODS, Budget, BudgetError, PrivacyLeakWarning, audit
from dpviz.privacy.mechanisms import truncated_laplace_bound

_rng = np.random.default_rng(7)
CENTRES = np.array([[0.0, 0.0], [6.0, 0.0], [3.0, 5.2]])
X = CENTRES[_rng.integers(3, size=900)] + _rng.normal(0, 1, size=(900, 2))
RADIUS = 10.0


def run(budget, **kw):
    kw.setdefault("k", 3)
    kw.setdefault("subsample", 120)
    kw.setdefault("rows", 120)
    kw.setdefault("radius", RADIUS)
    kw.setdefault("rng", np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return stability_mixture(X, budget, **kw)


# --- the surrogate's sensitivity on neighbouring subsamples ---

TOL = 1e-2


def solved(points, link=0.4):
    return solve_clustering_program(points, link, tolerance=TOL).matrix


def neighbours(seed, m=24):
    """A clustered subsample and adversarial replacements of one row: far away, into another
    cluster, a bridge between clusters, a duplicate of another row."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [0.6, 0.0], [0.3, 0.52]])
    x = centres[rng.integers(3, size=m)] + rng.normal(0, 0.1, size=(m, 2))
    r = int(rng.integers(m))
    bridge = (centres[0] + centres[1]) / 2
    for new in (np.array([5.0, 5.0]), centres[int(rng.integers(3))], bridge, x[(r + 1) % m]):
        y = x.copy()
        y[r] = new
        yield x, y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_w_and_the_mass_move_within_the_derived_bounds(seed):
    for x, y in neighbours(seed):
        m = len(x)
        w, w2 = solved(x), solved(y)
        assert np.linalg.norm(w - w2) <= matrix_sensitivity(m, TOL) + 1e-9
        phi, phi2 = soft_threshold(w), soft_threshold(w2)
        assert np.linalg.norm(phi - phi2) <= 10 * matrix_sensitivity(m, TOL) + 1e-9
        assert abs(phi.sum() - phi2.sum()) <= mass_sensitivity(m, TOL) + 1e-9
        # the centroids of every row stay in the unit ball: the trivial 2 per row holds
        c, c2 = (centroids(p, pts, np.arange(m)) for p, pts in ((phi, x), (phi2, y)))
        assert np.all(np.linalg.norm(c - c2, axis=1) <= 2 * max(1.0, np.abs(x).max() * 8))


def test_the_matrix_bound_is_nearly_attained():
    """Two far-apart groups; the replaced row jumps from one group to the other: W changes
    by about √(2·2(m/2 − 1)), the same order as √(3(m − 1)) — the bound is not loose by a
    large factor."""
    m = 20
    x = np.vstack([np.zeros((m // 2, 1)), np.full((m // 2, 1), 10.0)])
    y = x.copy()
    y[0] = 10.0
    change = np.linalg.norm(solved(x) - solved(y))
    assert change <= matrix_sensitivity(m, TOL)
    assert change >= 0.7 * math.sqrt(3 * (m - 1))


def test_mass_sensitivity_formulas():
    assert mass_sensitivity(101) == pytest.approx(200 + 10 * 100 * math.sqrt(200))
    m = 40_000  # with the default certificate, about 17.6 m^1.5 (not 14 m^1.5)
    assert mass_sensitivity(m, solver_tolerance(m, 0.1)) / m**1.5 == pytest.approx(17.6, abs=0.1)
    assert matrix_sensitivity(101, 0.5) == pytest.approx(math.sqrt(300) + 1)


# --- the budget ---

@pytest.fixture
def passable(monkeypatch):
    """A test sensitivity of 2(m − 1), so that every release happens at m = 120 (the proved
    one needs m in the hundreds even at epsilon = inf): only the budget arithmetic is tested."""
    monkeypatch.setattr(stability, "mass_sensitivity", lambda m, tolerance=0.0: 2.0 * (m - 1))


@pytest.mark.parametrize("method", METHODS)
def test_ledger_total_never_exceeds_the_budget(method, passable):
    budget = Budget(epsilon=500.0, delta=1e-5, method=method)
    result = run(budget)
    assert result.failed is None  # every release was made
    total = result.ledger.total()
    assert total.epsilon <= 500.0 * (1 + 1e-9)
    assert total.delta <= 1e-5
    names = [r.name for r in result.ledger.releases]
    assert names == ["stability test (mass)", "centroids", "histogram of noisy centroids"]
    assert method in result.choices["accounting"]


@pytest.mark.parametrize("method", METHODS)
def test_proved_ledger_is_within_budget(method):
    result = run(Budget(epsilon=1.0, delta=1e-5, method=method))
    assert result.ledger.total().epsilon <= 1.0


def test_the_test_release_records_its_sensitivity(passable):
    result = run(Budget(epsilon=500.0, delta=1e-5))
    test = result.ledger.releases[0]
    assert test.mechanism == "truncated_laplace"
    assert test.sensitivity == pytest.approx(result.choices["test sensitivity"]) == 238.0
    assert test.epsilon == pytest.approx(125.0) and test.delta == pytest.approx(2.5e-6)


# --- an empirical audit of the test on adversarial neighbours ---

def test_audit_of_the_one_sided_test():
    x, y = next(iter(neighbours(3)))
    m = len(x)
    masses = [float(soft_threshold(solved(p)).sum()) for p in (x, y)]
    sens = mass_sensitivity(m, TOL)
    assert abs(masses[0] - masses[1]) <= sens
    eps, delta = 0.5, 1e-3
    shift = truncated_laplace_bound(sens, eps, delta)

    def sampler(mass, rng, size):
        b = sens / eps
        u = rng.random(size)
        mag = -b * np.log1p(-u * (-math.expm1(-shift / b)))
        return mass + np.where(rng.random(size) < 0.5, -1.0, 1.0) * mag - shift

    # the worst case for the proof: masses a full sensitivity apart
    result = audit(sampler, masses[0], masses[0] + sens, claimed_epsilon=eps, delta=delta,
                   trials=100_000, seed=1)
    assert result.passed
    broken = audit(lambda v, rng, s: sampler(v, rng, s) / 4 + 3 * v / 4, masses[0],
                   masses[0] + sens, claimed_epsilon=eps, delta=delta, trials=100_000, seed=1)
    assert not broken.passed


# --- what it computes ---

def test_same_seed_same_result(passable):
    a = run(Budget(epsilon=500.0, delta=1e-5))
    b = run(Budget(epsilon=500.0, delta=1e-5))
    assert np.array_equal(a.estimate["means"], b.estimate["means"])
    assert a.to_dict() == b.to_dict()


def matched_error(means):
    return max(np.min(np.linalg.norm(means - c, axis=1)) for c in CENTRES)


def test_no_privacy_finds_the_true_centres():
    result = run(Budget(epsilon=math.inf))
    assert result.failed is None and result.not_private is None
    assert result.estimate["means"].shape == (3, 2)
    assert matched_error(result.estimate["means"]) < 0.5
    assert result.estimate["weights"].sum() == pytest.approx(1.0)


def test_an_impassable_test_is_refused_before_anything_is_spent():
    """At m = 120 the test cannot pass at any epsilon: refused, empty ledger, the m it needs."""
    result = run(Budget(epsilon=1.0, delta=1e-5))
    assert result.failed.startswith(REFUSED) and "cannot pass at m = 120" in result.failed
    assert "it would need a subsample of about m = 8.6e+05 rows" in result.failed
    assert stability.can_run(n=10**6, k=3, epsilon=1.0, delta=1e-5, subsample=870_000) is None
    assert stability.can_run(n=10**6, k=3, epsilon=1.0, delta=1e-5, subsample=840_000)
    assert result.ledger.releases == ()
    assert result.estimate["means"] is None and result.not_private is None
    assert "W" not in result.diagnostics  # the subsample was never drawn


def test_no_calibration_without_a_guarantee_is_offered():
    assert "calibration" not in {p.name for p in ESTIMATORS["stability"].params}


def test_data_with_no_stable_clustering_is_rejected():
    uniform = np.random.default_rng(3).uniform(-10, 10, size=(500, 2))
    result = stability_mixture(uniform, Budget(epsilon=math.inf), k=3, subsample=100, rows=100,
                               radius=RADIUS, rng=np.random.default_rng(0))
    assert result.failed is not None and "rejected" in result.failed
    assert result.diagnostics["mass"] < result.diagnostics["test_threshold"]


def test_diagnostics_for_the_figures():
    d = run(Budget(epsilon=math.inf)).diagnostics
    assert d["W"].shape == (120, 120) and d["phi"].shape == (120, 120)
    assert len(d["bins"]) == 3 and d["centres"].shape == (3, 2)
    assert d["certificate"] <= 0.1 * math.sqrt(3 * 119)


# --- bad inputs ---

@pytest.mark.parametrize("kw,budget,match", [
    ({}, Budget(epsilon=1.0), "delta > 0"),
    ({}, Budget(rho=0.1), "not rho"),
    ({"subsample": 1000}, Budget(epsilon=1.0, delta=1e-5), "at most the number of rows"),
    ({"rows": 500}, Budget(epsilon=1.0, delta=1e-5), "at most the subsample"),
    ({"link": 0.0}, Budget(epsilon=1.0, delta=1e-5), "link must be"),
    ({"k": 0}, Budget(epsilon=1.0, delta=1e-5), "k must be"),
])
def test_bad_inputs_are_sentences(kw, budget, match):
    with pytest.raises(ValueError, match=match):
        run(budget, **kw)


def test_rho_budget_error_is_a_budget_error():
    with pytest.raises(BudgetError):
        run(Budget(rho=0.1))


# --- the entry points ---

def test_registry_and_dpviz_run():
    est = ESTIMATORS["stability"]
    assert "heuristic (degree-2 SDP surrogate" in est.label
    assert est.paper.startswith("Chen et al. 2023, Section 6")
    assert "stability" in dpviz.estimators.gmm.ESTIMATORS
    result = dpviz.run("gmm", "stability", X, k=3, epsilon=1, delta=1e-5, seed=0,
                       radius=RADIUS, subsample=100, rows=100)
    assert result.estimator == "stability"
    json.dumps(result.to_dict())


def test_cli_run(tmp_path):
    path = tmp_path / "x.csv"
    np.savetxt(path, X[:300], delimiter=",")
    out = subprocess.run([sys.executable, "-m", "dpviz", "run", "gmm", "stability", "--data",
                          str(path), "--k", "3", "--epsilon", "inf", "--delta", "1e-5",
                          "--radius", "10", "--set", "subsample=100", "--set", "rows=100",
                          "--seed", "1"],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["estimator"] == "stability" and len(data["means"]) == 3
