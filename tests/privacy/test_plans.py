"""Plans for the Privacy budget page and the curves that compare accountants on them."""

import math

import numpy as np
import pytest

from dpviz.privacy import METHODS, Budget, BudgetError, PlannedRelease
from dpviz.privacy.plans import Plan, epsilon_by_delta, epsilon_by_rounds, solve_methods


def counts(plan):
    return {r.name: (r.mechanism, r.count) for r in plan.releases()}


def test_dp_em_ggg_counts():
    plan = Plan.dp_em(iterations=20, k=3)
    assert plan.rounds == 20
    assert counts(plan) == {"weights": ("gaussian", 20), "means": ("gaussian", 60),
                            "covariances": ("gaussian", 60)}
    assert sum(r.count for r in plan.releases()) == 20 * (2 * 3 + 1)
    assert sum(r.count for r in plan.releases(rounds=1)) == 7
    assert "20 iterations" in plan.label


def test_dp_em_llg_counts():
    plan = Plan.dp_em(iterations=10, k=4, scenario="LLG")
    assert counts(plan) == {"weights": ("laplace", 10), "means": ("laplace", 40),
                            "covariances": ("gaussian", 40)}


@pytest.mark.parametrize("kwargs, match", [
    ({"iterations": 10, "k": 3, "scenario": "GLG"}, "GGG or LLG"),
    ({"iterations": 0, "k": 3}, "rounds"),
    ({"iterations": 20_000, "k": 3}, "at most 100000"),
])
def test_bad_plans(kwargs, match):
    with pytest.raises(BudgetError, match=match):
        Plan.dp_em(**kwargs)
    with pytest.raises(BudgetError, match="no releases"):
        Plan(())


BUDGET = Budget(epsilon=1.0, delta=1e-5, method="zcdp")
PAPER_METHODS = ("linear", "advanced", "zcdp", "ma")


@pytest.mark.parametrize("scenario", ["GGG", "LLG"])
@pytest.mark.parametrize("paper_mode", [False, True])
def test_solved_noise_hits_the_target_at_plan_rounds(scenario, paper_mode):
    plan = Plan.dp_em(iterations=10, k=3, scenario=scenario)
    methods = PAPER_METHODS if paper_mode else METHODS
    budget = Budget(epsilon=1.0, delta=1e-4, method="zcdp", paper_mode=paper_mode)
    solved = solve_methods(plan, budget, methods)
    assert set(solved) == set(methods)
    for method in methods:
        allocations = solved[method]
        assert isinstance(allocations, dict), allocations
        curve = epsilon_by_rounds(plan, allocations, [1, 5, 10], 1e-4, [method],
                                  paper_mode=paper_mode)[method]
        assert curve[-1] == pytest.approx(1.0, rel=1e-6), method
        assert np.all(np.diff(curve) > 0), method  # ε grows with the rounds composed


def test_curves_for_every_method_at_one_noise():
    plan = Plan.dp_em(iterations=10, k=3)
    allocations = solve_methods(plan, BUDGET, ["zcdp"])["zcdp"]
    by_rounds = epsilon_by_rounds(plan, allocations, range(1, 11), 1e-5)
    assert set(by_rounds) == set(METHODS)
    for method, curve in by_rounds.items():
        assert curve.shape == (10,)
        assert np.all(np.diff(curve) > 0), method
    assert by_rounds["zcdp"][-1] == pytest.approx(1.0, rel=1e-6)
    assert by_rounds["pld"][-1] < by_rounds["zcdp"][-1] < by_rounds["linear"][-1]


def test_epsilon_by_delta_decreasing():
    plan = Plan.dp_em(iterations=10, k=3, scenario="LLG")
    allocations = solve_methods(plan, BUDGET, ["pld"])["pld"]
    deltas = [1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-2]
    curves = epsilon_by_delta(plan, allocations, deltas)
    for method, curve in curves.items():
        assert curve.shape == (6,)
        assert np.all(np.diff(curve) <= 0) and curve[-1] < curve[0], method
    assert curves["pld"][3] == pytest.approx(1.0, rel=1e-6)  # solved at δ = 1e-5


def test_methods_that_cannot_answer_give_nan_or_a_sentence():
    plan = Plan.dp_em(iterations=10, k=3)
    allocations = solve_methods(plan, BUDGET, ["zcdp"])["zcdp"]
    curves = epsilon_by_delta(plan, allocations, [0.0, 1e-6])
    for method in METHODS:  # δ = 0 cannot be met with Gaussian releases
        assert math.isnan(curves[method][0]) and math.isfinite(curves[method][1])
    pure = Plan((PlannedRelease("count", "laplace"),), 5)
    solved = solve_methods(pure, Budget(epsilon=1.0), ["linear"])
    pure_delta = epsilon_by_delta(pure, solved["linear"], [0.0])
    assert pure_delta["linear"][0] == pytest.approx(1.0)
    assert math.isnan(pure_delta["zcdp"][0])


def test_pure_budget_other_methods_give_their_reason():
    pure = Plan((PlannedRelease("count", "laplace"),), 5)
    solved = solve_methods(pure, Budget(epsilon=1.0))
    assert isinstance(solved["linear"], dict)
    assert all(isinstance(v, str) and "delta" in v for m, v in solved.items() if m != "linear")
