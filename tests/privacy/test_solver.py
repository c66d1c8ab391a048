"""The budget solver (ALGORITHMS.md §1.2): round trips for every method, the regression
targets of the DP-EM and DPLloyd papers, and the refusals."""

import math

import numpy as np
import pytest

from dpviz.privacy import (
    METHODS,
    Budget,
    BudgetError,
    Ledger,
    PlannedRelease,
    compare_methods,
    compose_parts,
    exponential,
    release,
    solve,
    stable_histogram,
    total_rho,
)
from dpviz.privacy import calibration as cal

P = PlannedRelease
PLANS = {
    "gaussians": [P("a", "gaussian", 2.0, 5, 1.0), P("b", "gaussian", 0.5, 3, 2.0)],
    "laplaces": [P("a", "laplace", 1.0, 4, 1.0), P("b", "laplace", 3.0, 2, 0.5)],
    # DP-EM's LLG: weights and means Laplace, covariances Gaussian, unequal weights
    "LLG": [P("weights", "laplace", 0.02, 10, 1.0), P("means", "laplace", 0.02, 30, 1.5),
            P("covariances", "gaussian", 0.014, 30, 0.7)],
    # parallel composition: a shared release, then disjoint parts
    "parts": [P("shared", "gaussian", 1.0, 2, 1.0), P("pca", "gaussian", 1.0, 5, 1.0, "A"),
              P("cluster", "laplace", 1.0, 3, 2.0, "B"), P("svt", "pure", 1.0, 2, 0.5, "B")],
    "pure+gaussian": [P("select", "pure", 1.0, 3, 1.0), P("g", "gaussian", 1.0, 4, 1.0)],
}
TARGETS = [(1.0, 1e-5), (0.3, 1e-6)]
# paper mode changes linear/advanced (classic Gaussian), zcdp (Bun–Steinke), ma (λ ≤ 100)
PAPER_METHODS = ("linear", "advanced", "zcdp", "ma")
CASES = [(plan, method, paper, eps, delta)
         for plan in PLANS for method in METHODS
         for paper in ((False, True) if method in PAPER_METHODS else (False,))
         for eps, delta in TARGETS]


def composed_events(allocations, budget):
    parts = {}
    for a in allocations.values():
        parts.setdefault(a.release.part, []).append(a.event())
    return compose_parts(parts, budget.delta, budget.method, paper_mode=budget.paper_mode)


def record_plan(allocations, budget, rng):
    """Release every planned item with its solved scale, recording in a fresh ledger."""
    ledger = Ledger(budget)
    for a in allocations.values():
        r = a.release
        for i in range(r.count):
            name = f"{r.name}[{i}]"
            if r.mechanism == "pure":
                exponential([0.0, 1.0], sensitivity=r.sensitivity, epsilon=a.epsilon, rng=rng,
                            ledger=ledger, name=name, part=r.part)
            else:
                release(np.zeros(2), a, rng=rng, ledger=ledger, name=name)
    return ledger


@pytest.mark.parametrize("plan, method, paper_mode, epsilon, delta", CASES)
def test_round_trip(plan, method, paper_mode, epsilon, delta, rng):
    budget = Budget(epsilon=epsilon, delta=delta, method=method, paper_mode=paper_mode)
    allocations = solve(PLANS[plan], budget)
    assert list(allocations) == [r.name for r in PLANS[plan]]
    assert composed_events(allocations, budget) == pytest.approx(epsilon, rel=1e-6)
    total = record_plan(allocations, budget, rng).total()
    assert total.method == method and total.delta == delta
    assert total.epsilon == pytest.approx(epsilon, rel=1e-6)


@pytest.mark.parametrize("plan", list(PLANS))
@pytest.mark.parametrize("rho", [1e-4, 0.05, 2.0])
def test_round_trip_rho_target(plan, rho, rng):
    budget = Budget(rho=rho, delta=1e-6)
    assert budget.method == "zcdp"
    allocations = solve(PLANS[plan], budget)
    parts = {}
    for a in allocations.values():
        parts.setdefault(a.release.part, []).append(a.event())
    shared = parts.pop(None, [])
    got = max((total_rho(shared + events) for events in parts.values()),
              default=total_rho(shared))
    assert got == pytest.approx(rho, rel=1e-9)
    total = record_plan(allocations, budget, rng).total()
    assert total.rho == pytest.approx(rho, rel=1e-9)
    assert total.epsilon == pytest.approx(cal.zcdp_epsilon(rho, 1e-6), rel=1e-6)


def test_rho_target_without_delta_reports_no_epsilon(rng):
    budget = Budget(rho=0.1)
    allocations = solve(PLANS["gaussians"], budget)
    total = record_plan(allocations, budget, rng).total()
    assert total.epsilon is None and total.rho == pytest.approx(0.1, rel=1e-9)


def test_weights_set_the_split():
    plan = [P("a", "laplace", 2.0, 1, 1.0), P("b", "laplace", 1.0, 1, 3.0),
            P("g", "gaussian", 1.0, 1, 1.0), P("h", "gaussian", 4.0, 1, 0.5)]
    alloc = solve(plan, Budget(epsilon=1.0, delta=1e-5, method="zcdp"))
    assert alloc["b"].epsilon / alloc["a"].epsilon == pytest.approx(3.0)
    assert alloc["a"].scale == pytest.approx(2.0 / alloc["a"].epsilon)
    # Gaussian noise multiplier 1/level: half the weight, twice the multiplier
    assert alloc["h"].multiplier / alloc["g"].multiplier == pytest.approx(2.0)
    assert alloc["g"].multiplier * alloc["a"].epsilon == pytest.approx(1.0)
    # linear composition with unit weights: every release the same ε
    lin = solve([P("x", "laplace", 1.0, 4), P("y", "laplace", 5.0, 6)],
                Budget(epsilon=1.0, method="linear"))
    assert lin["x"].epsilon == pytest.approx(0.1) and lin["y"].scale == pytest.approx(50.0)


@pytest.mark.parametrize("method", ["linear", "advanced"])
@pytest.mark.parametrize("paper_mode", [False, True])
def test_gaussian_labels_are_consistent_under_linear_and_advanced(method, paper_mode):
    # each Gaussian's (εᵢ, δᵢ) is a real guarantee of its σ: δᵢ = δ/m (linear) or δ/(2m)
    # (advanced, δ′ = δ/2), and εᵢ is the ε of σ at δᵢ (analytic, or classic in paper mode)
    plan, delta = PLANS["LLG"], 1e-5
    gaussians = sum(r.count for r in plan if r.mechanism == "gaussian")
    alloc = solve(plan, Budget(epsilon=1.0, delta=delta, method=method, paper_mode=paper_mode))
    share = delta / gaussians / (2 if method == "advanced" else 1)
    one = cal.classic_gaussian_epsilon if paper_mode else cal.analytic_gaussian_epsilon
    g = alloc["covariances"]
    assert g.delta == pytest.approx(share, rel=1e-12)
    assert one(g.release.sensitivity / g.scale, share) == pytest.approx(g.epsilon, rel=1e-9)
    assert g.rho == pytest.approx((g.release.sensitivity / g.scale) ** 2 / 2, rel=1e-12)
    if method == "linear":
        assert sum(a.epsilon * a.release.count for a in alloc.values()) == pytest.approx(1.0)


def test_parallel_parts_share_the_budget_by_maximum():
    plan = [P("shared", "laplace", 1.0, 2), P("a", "laplace", 1.0, 3, 1.0, "A"),
            P("b", "laplace", 1.0, 8, 1.0, "B")]
    alloc = solve(plan, Budget(epsilon=1.0, method="linear"))
    # the busiest part (shared 2 + B's 8) gets the whole ε: each release 0.1
    assert alloc["a"].epsilon == pytest.approx(0.1)
    # with one part only, each part gets the full budget (PCA half vs clustering half)
    halves = solve([P("pca", "gaussian", 1.0, 1, 1.0, "Y"), P("em", "gaussian", 1.0, 1, 1.0, "Z")],
                   Budget(epsilon=1.0, delta=1e-5, method="pld"))
    alone = solve([P("pca", "gaussian", 1.0)], Budget(epsilon=1.0, delta=1e-5, method="pld"))
    assert halves["pca"].scale == pytest.approx(alone["pca"].scale, rel=1e-12)


def test_non_private_budget_means_no_noise(rng):
    budget = Budget(epsilon=math.inf)
    alloc = solve(PLANS["laplaces"] + [P("svt", "pure")], budget)
    assert all(a.scale == 0.0 for a in alloc.values())
    ledger = Ledger(budget)
    assert release(3.5, alloc["a"], rng=rng, ledger=ledger) == 3.5
    assert release(-1.0, alloc["b"], rng=rng, ledger=ledger) == -1.0
    assert ledger.total().epsilon == math.inf


def test_non_private_budget_gaussians_get_no_noise(rng):
    budget = Budget(epsilon=math.inf)
    alloc = solve(PLANS["parts"], budget)
    assert all(a.scale == 0.0 for a in alloc.values())
    ledger = Ledger(budget)
    assert release(3.5, alloc["shared"], rng=rng, ledger=ledger) == 3.5
    assert ledger.total().epsilon == math.inf


# ------------------------------------------------------------------- regression targets

GGG_70 = [P("all", "gaussian", count=70)]  # J = 10 iterations × (2K + 1), K = 3


@pytest.mark.parametrize("method, paper_mode, z, decimals", [
    ("linear", True, 366.2, 1),
    ("advanced", True, 209.4, 1),
    ("zcdp", True, 36.86, 2),  # Bun–Steinke
    ("zcdp", False, 29.35, 2),  # CKS
    ("ma", False, 36.86, 2),  # integer λ ≤ 10⁴
    ("ma", True, 36.86, 2),  # λ ≤ 100 is enough at ε = 1
    ("rdp", False, 29.36, 2),
])
def test_dp_em_regression_targets(method, paper_mode, z, decimals):
    budget = Budget(epsilon=1.0, delta=1e-4, method=method, paper_mode=paper_mode)
    got = solve(GGG_70, budget)["all"].multiplier
    assert round(got, decimals) == z


def test_dp_em_regression_orderings():
    def z(method, paper_mode=False, epsilon=1.0):
        budget = Budget(epsilon=epsilon, delta=1e-4, method=method, paper_mode=paper_mode)
        return solve(GGG_70, budget)["all"].multiplier

    # the exact accountant needs the least noise, linear composition by far the most
    assert z("pld") < z("zcdp") < z("rdp") < z("ma") < z("advanced", True) < z("linear", True)
    # analytic Gaussian (default) beats the classic formula under linear and advanced
    assert z("linear") < z("linear", True) and z("advanced") < z("advanced", True)
    # the λ ≤ 100 cap nearly doubles the noise at ε = 0.1 (669 vs 360)
    assert round(z("ma", True, 0.1)) == 669
    assert round(z("ma", False, 0.1)) == 360


DPLLOYD = [P("iteration", "laplace", sensitivity=6.0, count=10)]  # J = 10, Δ₁ = 2(d + 1) = 6


def test_dplloyd_numbers():
    # The numbers of ALGORITHMS.md §1.2 are J = 10 Laplace releases (one per iteration, the
    # whole vector of counts and sums) of L1 sensitivity 6 — not J(d + 1) = 30 releases,
    # which would give a linear scale of 18 000.
    linear = solve(DPLLOYD, Budget(epsilon=0.01, delta=1e-4, method="linear"))["iteration"]
    assert linear.scale == pytest.approx(6000.0)
    bun_steinke = solve(DPLLOYD, Budget(epsilon=0.01, delta=1e-4, method="zcdp",
                                        paper_mode=True))["iteration"]
    assert round(bun_steinke.scale) == 8146
    # the default (CKS) conversion is tighter than linear already at J = 10
    cks = solve(DPLLOYD, Budget(epsilon=0.01, delta=1e-4, method="zcdp"))["iteration"]
    assert cks.scale < linear.scale < bun_steinke.scale
    thirty = [P("release", "laplace", sensitivity=6.0, count=30)]
    assert solve(thirty, Budget(epsilon=0.01, method="linear"))["release"].scale == \
        pytest.approx(18_000.0)


def test_bun_steinke_beats_linear_only_past_the_threshold():
    # m pure releases: Bun–Steinke zCDP wins iff m > 2 ln(1/δ)/(1 − ε₀/2)² ≈ 18.4 at δ = 1e-4
    def scales(m):
        plan = [P("x", "laplace", count=m)]
        lin = solve(plan, Budget(epsilon=0.01, delta=1e-4, method="linear"))["x"].scale
        bs = solve(plan, Budget(epsilon=0.01, delta=1e-4, method="zcdp",
                                paper_mode=True))["x"].scale
        return lin, bs

    lin, bs = scales(18)
    assert bs > lin
    lin, bs = scales(19)
    assert bs < lin


# ---------------------------------------------------------------------------- refusals


def assert_sentence(err):
    message = str(err.value)
    assert isinstance(err.value, ValueError)
    assert len(message.split()) >= 4, message


def test_gaussian_with_delta_zero():
    budget = Budget(epsilon=1.0, delta=0.0)
    assert budget.method == "linear"
    with pytest.raises(BudgetError, match="delta > 0") as err:
        solve(PLANS["gaussians"], budget)
    assert_sentence(err)


@pytest.mark.parametrize("method", ["zcdp", "ma", "rdp"])
def test_approximate_releases_refused_under_curves(method, rng):
    ledger = Ledger(Budget(epsilon=1.0, delta=1e-5, method=method))
    stable_histogram({"a": 100}, epsilon=0.5, delta=1e-7, rng=rng, ledger=ledger, name="h")
    with pytest.raises(BudgetError, match="approximate-DP") as err:
        ledger.total()
    assert_sentence(err)


@pytest.mark.parametrize("method", ["linear", "advanced"])
def test_paper_mode_classic_gaussian_needs_epsilon_below_one(method):
    with pytest.raises(BudgetError, match="epsilon < 1") as err:
        solve([P("g", "gaussian")], Budget(epsilon=2.0, delta=1e-5, method=method,
                                           paper_mode=True))
    assert_sentence(err)
    # the analytic Gaussian (default) has no such limit
    assert solve([P("g", "gaussian")], Budget(epsilon=2.0, delta=1e-5, method=method))


def test_paper_mode_limit_applies_only_to_stand_alone_gaussians():
    # under zCDP / MA the Gaussian's (εᵢ, δᵢ) is only a name for σ: no ε < 1 limit
    for method in ("zcdp", "ma"):
        assert solve([P("g", "gaussian")], Budget(epsilon=5.0, delta=1e-5, method=method,
                                                  paper_mode=True))


def test_empty_plan_and_duplicate_names():
    with pytest.raises(BudgetError, match="no releases") as err:
        solve([], Budget(epsilon=1.0))
    assert_sentence(err)
    with pytest.raises(BudgetError, match="own name"):
        solve([P("x", "laplace"), P("x", "gaussian")], Budget(epsilon=1.0, delta=1e-5))


@pytest.mark.parametrize("kwargs, match", [
    ({"mechanism": "cauchy"}, "laplace, gaussian or pure"),
    ({"sensitivity": 0.0}, "sensitivity"),
    ({"count": 0}, "count"),
    ({"count": 2.5}, "whole number"),
    ({"weight": -1.0}, "weight"),
])
def test_planned_release_validation(kwargs, match):
    args = {"name": "x", "mechanism": "laplace"} | kwargs
    with pytest.raises(ValueError, match=match):
        P(**args)


@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": 1.0, "rho": 0.1}, "not both"),
    ({}, "not both or neither"),
    ({"epsilon": 0.0}, "epsilon must be > 0"),
    ({"epsilon": 1.0, "delta": 1.0}, "delta"),
    ({"epsilon": 1.0, "method": "basic"}, "accounting method"),
    ({"rho": -1.0}, "rho"),
])
def test_budget_validation(kwargs, match):
    with pytest.raises(BudgetError, match=match):
        Budget(**kwargs)


def test_compare_methods_gives_reasons():
    out = compare_methods([P("g", "gaussian")], Budget(epsilon=2.0, delta=1e-5, paper_mode=True),
                          METHODS)
    assert set(out) == set(METHODS)
    assert isinstance(out["linear"], str) and "epsilon < 1" in out["linear"]
    assert isinstance(out["pld"], dict)
    assert out["pld"]["g"].scale < out["zcdp"]["g"].scale


def test_a_cached_solve_hands_each_caller_its_own_answer():
    plan = [PlannedRelease("a", "laplace"), PlannedRelease("b", "gaussian", weight=2.0)]
    budget = Budget(epsilon=1.0, delta=1e-5, method="pld")
    first = solve(plan, budget)
    first.pop("a")
    again = solve(tuple(plan), budget)
    assert list(again) == ["a", "b"] and again["b"] == first["b"]
