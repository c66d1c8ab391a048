"""compose_runs: the ledger of several independent runs on the same data charges them all."""

import math

import numpy as np
import pytest

from dpviz.privacy import (
    Budget,
    BudgetError,
    Ledger,
    PrivacyEvent,
    compose,
    compose_runs,
    gaussian,
    laplace,
    truncated_laplace,
)


def gaussian_run(rng, budget, *, part=None):
    ledger = Ledger(budget)
    for i in range(2):
        gaussian(np.zeros(2), sensitivity=1.0, sigma=4.0, rng=rng, ledger=ledger,
                 name=f"mean {i}", part=part)
    laplace(0.0, sensitivity=1.0, scale=5.0, rng=rng, ledger=ledger, name="count", part=part)
    return ledger


@pytest.mark.parametrize("method", ["zcdp", "linear", "pld"])
def test_runs_are_charged_as_many_times_as_they_ran(rng, method):
    budget = Budget(epsilon=1.0, delta=1e-5, method=method)
    runs = [gaussian_run(rng, budget) for _ in range(4)]
    total = compose_runs(runs).total()
    events = [PrivacyEvent("gaussian", mu=0.25, count=8), PrivacyEvent("laplace", epsilon=0.2,
                                                                       count=4)]
    assert total.delta == 1e-5 and total.method == method
    assert total.epsilon == pytest.approx(compose(events, 1e-5, method), rel=1e-9)
    assert total.rho == pytest.approx(4 * runs[0].total().rho, rel=1e-12)
    assert total.epsilon > runs[0].total().epsilon


def test_parts_are_charged_to_everyone(rng):
    # each run splits the data afresh: a person may be in Y in one run and in Z in the next
    budget = Budget(epsilon=1.0, delta=1e-5)
    run = Ledger(budget)
    for part in ("Y", "Z"):
        for r in gaussian_run(rng, budget, part=part).releases:
            run.record(r)
    one = run.total().rho
    both = compose_runs([run, run]).total().rho
    assert both == pytest.approx(4 * one, rel=1e-12)  # 2 runs × both halves


def test_approximate_releases_add_their_delta(rng):
    budget = Budget(epsilon=1.0, delta=1e-3, method="linear")
    run = Ledger(budget)
    truncated_laplace(0.0, sensitivity=1.0, epsilon=0.5, delta=4e-4, rng=rng, ledger=run,
                      name="test")
    composed = compose_runs([run] * 3)
    assert composed.budget.delta == pytest.approx(3e-3)
    assert composed.total().epsilon == pytest.approx(1.5)
    with pytest.raises(BudgetError, match=r"1001 runs at delta = 0.001 spend delta = 1 in "
                                          r"all, at least 1: no guarantee is left"):
        compose_runs([run] * 1001)


def test_nothing_to_compose_is_refused():
    with pytest.raises(BudgetError, match="at least one ledger"):
        compose_runs([])
    empty = compose_runs([Ledger(Budget(epsilon=math.inf))] * 3)
    assert empty.releases == () and empty.total().epsilon == 0.0


@pytest.mark.parametrize("gauss_budget", [Budget(rho=0.1), Budget(epsilon=1.0, delta=1e-6)])
def test_a_pure_dp_run_listed_first_does_not_decide_the_accounting(rng, gauss_budget):
    # EMCov's ledger keeps a linear, pure ε budget: composed first with a Gaussian run it
    # raised "a Gaussian release needs delta > 0" (a link on /covariance chooses the order)
    pure = Ledger(Budget(epsilon=1.0, method="linear"))
    laplace(0.0, sensitivity=1.0, scale=2.0, rng=rng, ledger=pure, name="pure count")
    gauss = gaussian_run(rng, gauss_budget)
    first, second = compose_runs([pure, gauss]).total(), compose_runs([gauss, pure]).total()
    assert first == second
    assert first.rho == pytest.approx(pure.total().rho + gauss.total().rho, rel=1e-12)
