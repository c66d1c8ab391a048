"""The budget solver under PLD on the mixture estimators' plans (issue 21: a first refusal solves
one of these): never over the target, close to it, in few compositions; and the canonical
event list that lets the solver and the ledger compose the same thing."""

import random

import pytest

from dpviz.privacy import Budget, PlannedRelease, compose, solve
from dpviz.privacy import solver as solver_module
from dpviz.privacy.accounting import PrivacyEvent, pld_canonical

P = PlannedRelease


def one_cluster_rounds(k, weight, group, part=None):
    """The shape of :func:`dpviz.estimators.gmm.one_cluster.one_cluster_plan`."""
    return [P("radius", "pure", 1.0 * group, k, weight / 3, part),
            P("histogram", "pure", 2.0 * group, k, weight / 3, part),
            P("centre", "gaussian", 1.0, k, weight / 6, part),
            P("count", "laplace", 1.0, k, weight / 6, part)]


PLANS = {
    "private PCA + clustering": lambda k: [
        *one_cluster_rounds(k, 0.9 / k, 1, "Z"), P("sums", "gaussian", 2.0, 1, 0.025, "Z"),
        P("counts", "laplace", 2.0, 1, 0.025, "Z"), P("pair sums", "laplace", 0.04, 1, 0.025, "Z"),
        P("pair counts", "laplace", 1.0, 1, 0.025, "Z")],
    "sample-and-aggregate": lambda k: [*one_cluster_rounds(k, 0.75 / k, k),
                                       P("weights", "pure", 2.0 * k, 1, 0.25)],
    "FriendlyCore": lambda k: [P("core weight", "pure", 1.0, 1, 0.3), P("means", "gaussian"),
                               P("mixing", "gaussian", 1.0, 1, 0.5)],
}
CASES = [(name, k, eps, delta) for name in PLANS for k in (2, 5) for eps in (0.1, 1.0, 4.0)
         for delta in (1e-6, 1e-4) if name != "FriendlyCore" or k == 2]


@pytest.mark.parametrize("name, k, epsilon, delta", CASES)
def test_mixed_plans_solve_under_the_target_in_few_compositions(name, k, epsilon, delta,
                                                                 monkeypatch):
    calls = []
    inner = solver_module._composed
    monkeypatch.setattr(solver_module, "_composed",
                        lambda allocations, budget: calls.append(1) or inner(allocations, budget))
    budget = Budget(epsilon=epsilon, delta=delta, method="pld")
    solver_module._solved.cache_clear()
    allocations = solve(PLANS[name](k), budget)
    spent = inner(list(allocations.values()), budget)
    assert spent <= epsilon
    # as close as the discretisation's staircase allows: at ε = 0.1 a pure release's loss
    # rounded up to the 1e-3 grid moves ε by up to ~1% per release
    assert spent >= epsilon * (0.93 if epsilon < 1 else 0.99)
    assert len(calls) <= 16  # bisecting to each step's edge took 20-30


def test_the_ledger_composes_the_solved_plan_to_the_same_epsilon_in_any_order():
    budget = Budget(epsilon=1.0, delta=1e-5, method="pld")
    allocations = solve(PLANS["sample-and-aggregate"](3), budget)
    planned = [a.event() for a in allocations.values()]
    one_by_one = [PrivacyEvent(e.kind, e.mu, e.epsilon, e.delta)
                  for e in planned for _ in range(e.count)]
    random.Random(0).shuffle(one_by_one)
    assert compose(one_by_one, 1e-5, "pld") == compose(planned, 1e-5, "pld") <= 1.0


def test_canonical_events_merge_gaussians_exactly_and_keep_the_larger_epsilon():
    events = [PrivacyEvent("gaussian", mu=0.3, count=2), PrivacyEvent("laplace", epsilon=0.2),
              PrivacyEvent("laplace", epsilon=0.2 * (1 + 1e-13)), PrivacyEvent("pure", epsilon=0.2),
              PrivacyEvent("gaussian", mu=0.4), PrivacyEvent("laplace", epsilon=0.3)]
    merged = pld_canonical(events)
    assert merged == pld_canonical(events[::-1])
    assert merged[0].kind == "gaussian" and merged[0].mu == pytest.approx(0.5830951894845301)
    laplaces = [e for e in merged if e.kind == "laplace"]
    assert [(e.epsilon, e.count) for e in laplaces] == [(0.2 * (1 + 1e-13), 2), (0.3, 1)]
    assert [e.kind for e in merged].count("pure") == 1


def test_a_plan_whose_first_step_lands_on_the_target_solves():
    """Laplace and pure releases only: their PLD ε can be the linear sum, exactly ∝ t, so the
    first log-linear step lands on the target and the next one did not move (0/0 in the
    chord's slope)."""
    for plan, epsilon, delta in (([P("a", "laplace", 1.0, 7, 2.0), P("b", "pure", 1.0, 2, 1.0)],
                                  1.0, 1e-6),
                                 ([P("a", "laplace", 1.0, 8, 2.0), P("b", "pure", 1.0, 5, 1.0)],
                                  2.0, 1e-8)):
        budget = Budget(epsilon=epsilon, delta=delta, method="pld")
        solver_module._solved.cache_clear()
        allocations = solve(plan, budget)
        spent = solver_module._composed(list(allocations.values()), budget)
        assert epsilon * 0.99 <= spent <= epsilon


@pytest.mark.parametrize("epsilon", [0.1, 0.25, 0.5])
def test_paper_mode_under_pld_is_not_refused_for_a_staircase_step(epsilon):
    """A mixed plan's discretised PLD may end a step below the target: paper mode's ε < 1
    limit is not what stopped it, so it is solved, not refused."""
    budget = Budget(epsilon=epsilon, delta=1e-5, method="pld", paper_mode=True)
    solver_module._solved.cache_clear()
    allocations = solve([P("a", "pure", 1.0, 5, 1.0), P("b", "gaussian", 1.0, 1, 1.0)], budget)
    assert solver_module._composed(list(allocations.values()), budget) <= epsilon
