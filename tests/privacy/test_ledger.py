"""The ledger: totals under each method, parallel parts, JSON, and ε = ∞."""

import json
import math

import numpy as np
import pytest

from dpviz.privacy import (
    METHODS,
    Budget,
    BudgetError,
    Ledger,
    PlannedRelease,
    PrivacyEvent,
    Release,
    compose,
    exponential,
    gaussian,
    laplace,
    release,
    solve,
    stable_histogram,
    symmetric_gaussian,
    truncated_laplace,
)


def mixed_ledger(rng, budget=None):
    ledger = Ledger(budget)
    for i in range(3):
        gaussian(np.zeros(2), sensitivity=1.0, sigma=8.0, rng=rng, ledger=ledger,
                 name=f"g{i}")
    laplace(0.0, sensitivity=2.0, scale=20.0, rng=rng, ledger=ledger, name="count")
    symmetric_gaussian(np.eye(2), sensitivity=math.sqrt(2), sigma=10.0, rng=rng,
                       ledger=ledger, name="cov")
    exponential([0.0, 1.0], sensitivity=1.0, epsilon=0.05, rng=rng, ledger=ledger, name="pick")
    return ledger


EVENTS = [PrivacyEvent("gaussian", mu=1 / 8, count=3), PrivacyEvent("laplace", epsilon=0.1),
          PrivacyEvent("gaussian", mu=math.sqrt(2) / 10), PrivacyEvent("pure", epsilon=0.05)]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("paper_mode", [False, True])
def test_total_composes_every_release(rng, method, paper_mode):
    budget = Budget(epsilon=1.0, delta=1e-5, method=method, paper_mode=paper_mode)
    ledger = mixed_ledger(rng, budget)
    assert len(ledger.releases) == 6
    total = ledger.total()
    assert total.method == method and total.delta == 1e-5
    # (dp-accounting's discretised PLD depends on the order of composition: 1e-6 there)
    assert total.epsilon == pytest.approx(compose(EVENTS, 1e-5, method, paper_mode=paper_mode),
                                          rel=1e-6 if method == "pld" else 1e-12)
    rho = 3 / 128 + 0.1**2 / 2 + 2 / 200 + 0.05**2 / 2
    assert total.rho == pytest.approx(rho, rel=1e-12)


def test_total_overrides_method_and_delta(rng):
    ledger = mixed_ledger(rng, Budget(epsilon=1.0, delta=1e-5, method="zcdp"))
    total = ledger.total("pld", delta=1e-8)
    assert (total.method, total.delta) == ("pld", 1e-8)
    assert total.epsilon == pytest.approx(compose(EVENTS, 1e-8, "pld"), rel=1e-6)
    assert ledger.total("pld", delta=1e-8).epsilon > ledger.total("pld").epsilon


def test_ledger_without_budget_is_linear_pure(rng):
    ledger = Ledger()
    laplace(0.0, sensitivity=1.0, scale=4.0, rng=rng, ledger=ledger, name="a")
    exponential([1.0], sensitivity=1.0, epsilon=0.5, rng=rng, ledger=ledger, name="b")
    total = ledger.total()
    assert (total.method, total.delta, total.epsilon) == ("linear", 0.0, 0.75)


def test_releases_are_an_immutable_view(rng):
    ledger = mixed_ledger(rng)
    releases = ledger.releases
    assert isinstance(releases, tuple)
    laplace(0.0, sensitivity=1.0, scale=1.0, rng=rng, ledger=ledger, name="later")
    assert len(releases) == 6 and len(ledger.releases) == 7


def test_count_field_stands_for_identical_releases():
    many = Ledger(Budget(epsilon=1.0, delta=1e-6, method="zcdp"))
    many.record(Release("m", "gaussian", 1.0, "L2", 5.0, count=40))
    one_by_one = Ledger(Budget(epsilon=1.0, delta=1e-6, method="zcdp"))
    for _ in range(40):
        one_by_one.record(Release("m", "gaussian", 1.0, "L2", 5.0))
    for method in METHODS:
        assert many.total(method).epsilon == pytest.approx(one_by_one.total(method).epsilon,
                                                           rel=1e-9)


# --------------------------------------------------------------------- parallel composition


def test_parts_take_the_maximum_and_count_shared_releases_in_each(rng):
    ledger = Ledger(Budget(epsilon=5.0, method="linear"))
    laplace(0.0, sensitivity=1.0, scale=2.0, rng=rng, ledger=ledger, name="shared")  # 0.5
    for i in range(2):
        laplace(0.0, sensitivity=1.0, scale=1.0, rng=rng, ledger=ledger, name=f"a{i}",
                part="A")  # 2 × 1
    laplace(0.0, sensitivity=1.0, scale=1 / 0.3, rng=rng, ledger=ledger, name="b", part="B")
    assert ledger.total().epsilon == pytest.approx(0.5 + 2.0)
    parts = ledger.events_by_part()
    assert set(parts) == {None, "A", "B"}
    # identical releases merge into one event counted twice, as the solver composes them
    assert [(e.epsilon, e.count) for e in parts["A"]] == [(1.0, 2)]


@pytest.mark.parametrize("method", METHODS)
def test_parts_under_every_method(rng, method):
    budget = Budget(epsilon=1.0, delta=1e-6, method=method)
    ledger = Ledger(budget)
    gaussian(0.0, sensitivity=1.0, sigma=10.0, rng=rng, ledger=ledger, name="s")
    for i in range(4):
        gaussian(0.0, sensitivity=1.0, sigma=5.0, rng=rng, ledger=ledger, name=f"y{i}",
                 part="Y")
    laplace(0.0, sensitivity=1.0, scale=10.0, rng=rng, ledger=ledger, name="z", part="Z")
    shared = [PrivacyEvent("gaussian", mu=0.1)]
    y = [PrivacyEvent("gaussian", mu=0.2)] * 4
    z = [PrivacyEvent("laplace", epsilon=0.1)]
    expected = max(compose(shared + y, 1e-6, method), compose(shared + z, 1e-6, method))
    total = ledger.total()
    assert total.epsilon == pytest.approx(expected, rel=1e-12)
    assert total.rho == pytest.approx(max(0.005 + 4 * 0.02, 0.005 + 0.005), rel=1e-12)
    # the same releases without parts cost more
    flat = Ledger(budget)
    for r in ledger.releases:
        flat.record(Release(r.name, r.mechanism, r.sensitivity, r.norm, r.scale))
    assert flat.total().epsilon > total.epsilon


def test_solver_and_ledger_agree_on_parts(rng):
    plan = [PlannedRelease("pca", "gaussian", math.sqrt(2), 1, 1.0, "Y"),
            PlannedRelease("rounds", "laplace", 2.0, 6, 1.0, "Z"),
            PlannedRelease("estimate", "gaussian", 1.0, 3, 1.0, "Z")]
    budget = Budget(epsilon=1.0, delta=1e-6, method="rdp")
    alloc = solve(plan, budget)
    ledger = Ledger(budget)
    for a in alloc.values():
        for _ in range(a.release.count):
            release(0.0, a, rng=rng, ledger=ledger)
    assert {r.part for r in ledger.releases} == {"Y", "Z"}
    assert ledger.total().epsilon == pytest.approx(1.0, rel=1e-6)


# ----------------------------------------------------------------------------------- JSON


def test_to_dict_is_json_safe(rng):
    budget = Budget(epsilon=1.0, delta=1e-5, method="pld")
    ledger = mixed_ledger(rng, budget)
    truncated_laplace(0.0, sensitivity=1.0, epsilon=0.1, delta=1e-7, rng=rng, ledger=ledger,
                      name="t")
    out = ledger.to_dict()
    text = json.dumps(out, allow_nan=False)
    back = json.loads(text)
    assert len(back["releases"]) == 7
    assert set(back["releases"][0]) == {"name", "mechanism", "sensitivity", "norm", "scale",
                                        "epsilon", "delta", "rho", "count", "part",
                                        "sampler"}
    assert back["releases"][-1]["sampler"] == "numpy"  # a seeded generator's draws
    assert back["releases"][-1]["rho"] is None  # approximate DP has no ρ
    assert back["total"]["method"] == "pld" and back["total"]["rho"] is None
    assert back["total"]["epsilon"] == pytest.approx(ledger.total().epsilon)


def test_infinite_epsilon_budget(rng):
    budget = Budget(epsilon=math.inf)
    assert budget.non_private
    alloc = solve([PlannedRelease("count", "laplace", 1.0)], budget)["count"]
    assert alloc.scale == 0.0
    ledger = Ledger(budget)
    assert release(7.0, alloc, rng=rng, ledger=ledger) == 7.0  # zero noise
    total = ledger.total()
    assert total.epsilon == math.inf and total.rho == math.inf
    out = ledger.to_dict()
    text = json.dumps(out, allow_nan=False)
    assert out["total"]["epsilon"] == "inf" and out["total"]["rho"] == "inf"
    assert out["releases"][0]["epsilon"] == "inf"
    assert '"inf"' in text


def test_composite_release_names_its_theorem():
    parts = (Release("truncated Laplace", "truncated_laplace", 0.4, "L1", 2.0, epsilon=0.5,
                     delta=1e-7),
             Release("masking", "composite", 1.0, "L1", 0.0, epsilon=0.5, delta=1e-7))
    composite = Release("PPE", "composite", 1.0, "L1", 0.0, epsilon=1.0,
                        delta=4 * math.e**0.5 * 1e-7, theorem="PPE Theorem 4.3.1",
                        components=parts)
    ledger = Ledger(Budget(epsilon=1.0, delta=1e-6, method="linear"))
    ledger.record(composite)
    event = composite.event()
    assert (event.kind, event.epsilon, event.delta) == ("approximate", 1.0, composite.delta)
    assert ledger.total().epsilon == pytest.approx(1.0)
    out = json.loads(json.dumps(ledger.to_dict(), allow_nan=False))
    assert out["releases"][0]["theorem"] == "PPE Theorem 4.3.1"
    assert [c["name"] for c in out["releases"][0]["components"]] == ["truncated Laplace",
                                                                     "masking"]
    with pytest.raises(BudgetError, match="approximate-DP"):
        ledger.total("zcdp")


def test_unknown_mechanism_refused():
    with pytest.raises(BudgetError, match="unknown mechanism"):
        Release("x", "magic", 1.0, "L1", 1.0).event()


def test_stable_histogram_in_ledger(rng):
    ledger = Ledger(Budget(epsilon=1.0, delta=1e-5, method="advanced"))
    stable_histogram({"a": 10}, epsilon=0.5, delta=1e-6, rng=rng, ledger=ledger, name="h")
    laplace(0.0, sensitivity=1.0, scale=4.0, rng=rng, ledger=ledger, name="c")
    total = ledger.total()
    assert total.epsilon <= 0.75 and total.rho is None
    assert ledger.total("linear").epsilon == pytest.approx(0.75)


def test_ledger_never_reports_less_delta_than_its_releases_spent(rng):
    ledger = Ledger(Budget(epsilon=1.0))  # pure DP asked for
    stable_histogram({"a": 10}, epsilon=1.0, delta=1e-3, rng=rng, ledger=ledger, name="h")
    try:
        total = ledger.total()
    except BudgetError:
        return  # refusing is right
    assert total.delta >= 1e-3 or math.isinf(total.epsilon)
