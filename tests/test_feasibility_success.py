"""dpviz.lab.success: the n from which simulated runs succeed, kept per public shape, and said."""

from __future__ import annotations

import json
import math

import pytest

from dpviz.lab import provenance, success
from dpviz.lab.feasibility import Blocked
from dpviz.lab.scenario import Scenario
from dpviz.lab.solve import Solution, make_target
from dpviz.lab.success import Shape, SuccessFrom

SHAPE = Shape("friendly_core", 1.0)


def fake_solver(succeeds_at: int, calls: list[tuple[int, int]]):
    """``solve_n`` for runs that all succeed from ``succeeds_at`` rows: the same bisection's
    answer (the smallest point tried that succeeds), recording each range asked."""

    def solve_n(scenario, *, metric, target, probability, runs, low, high, progress):
        calls.append((low, high))
        for done in range(1, runs + 1):
            progress(done, 2 * runs)
        points = [low, high] + ([succeeds_at] if low < succeeds_at < high else [])
        searched = tuple((float(n), float(n >= succeeds_at)) for n in sorted(set(points)))
        answer = min((n for n, share in searched if share >= probability), default=None)
        return Solution("n", answer, make_target("gmm", metric, target), probability, runs,
                        searched, "simulation", float(low), float(high))

    return solve_n


@pytest.fixture()
def start(monkeypatch) -> int:
    monkeypatch.setattr(success, "precondition_rows", lambda shape: 10_000)
    return 10_000


def test_the_search_doubles_its_range_from_the_preconditions_until_runs_succeed(monkeypatch,
                                                                                start):
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(success, "solve_n", fake_solver(33_000, calls))
    reported: list[tuple[int, int]] = []
    found = success.succeeds_from(SHAPE, runs=4, progress=lambda d, t: reported.append((d, t)))
    assert calls == [(10_000, 20_000), (20_000, 40_000)]
    assert found.n == 33_000 and found.start == start and found.high == 40_000
    assert found.sentence() == ("in simulation, at least 90% of runs succeed from about "
                                "n = 33,000 rows at this ε (4 runs per point)")
    assert reported[-1] == (8, 12)  # the second range's runs count after the first's
    assert math.isclose(found.target, success.threshold(SHAPE.scenario(start, 0), 4))


def test_a_search_past_its_work_limit_stops_and_says_so(monkeypatch, start):
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(success, "solve_n", fake_solver(10**6, calls))
    first = success.range_cost(SHAPE, start, runs=4, budget=success.BATCH)
    budget = success.WorkBudget("here", first * 1.5, math.inf)
    found = success.succeeds_from(SHAPE, runs=4, budget=budget)
    assert calls == [(10_000, 20_000)] and found.n is None
    assert found.sentence() == ("in simulation, fewer than 90% of runs succeed even at "
                                "n = 20,000 rows at this ε (4 runs per point; searched no "
                                f"further: the next range would pass the {first * 1.5:g} s "
                                "work limit)")
    with pytest.raises(ValueError, match="too much work here"):
        success.succeeds_from(SHAPE, runs=4, budget=success.WorkBudget("here", first / 2,
                                                                       math.inf))


def test_no_rule_for_other_tasks_and_no_search_without_a_precondition_n(monkeypatch):
    with pytest.raises(ValueError, match="gmm task only"):
        success.succeeds_from(Shape("gaussian", 1.0, task="mean"))
    monkeypatch.setattr(success, "precondition_rows", lambda shape: None)
    with pytest.raises(ValueError, match="no n to simulate from"):
        success.succeeds_from(SHAPE)


def test_the_threshold_is_a_quarter_of_the_smallest_gap_and_public():
    scenario = SHAPE.scenario(10_000, 0)
    gap = success.threshold(scenario, 20) / success.GAP_FRACTION
    assert 0.55 < gap < 0.65  # 6σ with σ ≈ 0.1 at the default mixture's unit radius
    assert success.threshold(SHAPE.scenario(99, 0), 20) == success.threshold(scenario, 20)
    assert success.threshold(Shape("friendly_core", 1.0, separation=0.0).scenario(
        1_000, 0), 5) > 0  # means together: a standard deviation instead


def test_a_shape_is_the_pages_public_inputs_only():
    page = Scenario.from_dict({
        "task": "gmm", "estimator": "friendly_core",
        "data": {"generator": "gmm", "n": 10_000, "k": 4, "seed": 7},
        "params": {"epsilon": 0.5, "delta": 1e-6, "friend_radius": 0.12}, "seed": 3})
    shape = success.shape_of(page, "friendly_core")
    assert shape == Shape("friendly_core", 0.5, delta=1e-6, k=4, params=(("friend_radius", 0.12),))
    assert success.shape_of(page, "sample_aggregate").params == ()  # not its parameter
    at_default = Scenario.from_dict({**page.to_dict(), "params": {"epsilon": 0.5, "delta": 1e-6,
                                                                 "friend_radius": 0.1}})
    assert success.shape_of(at_default, "friendly_core").params == ()
    other_seed = Scenario.from_dict({**page.to_dict(), "seed": 9,
                                     "data": {**page.to_dict()["data"], "seed": 1, "n": 500}})
    assert success.shape_of(other_seed, "friendly_core") == shape  # n and seeds: not in it
    bundled = Scenario.from_dict({**page.to_dict(), "data": {"dataset": "iris"}})
    assert success.shape_of(bundled, "friendly_core") is None
    assert Shape.from_dict(json.loads(json.dumps(shape.to_dict()))) == shape
    assert len({shape.key(), SHAPE.key(), SHAPE.key(runs=10)}) == 3


def found_at(n: int | None, shape: Shape = SHAPE, start: int = 14_000) -> SuccessFrom:
    searched = ((start, 0.2), (n or 28_000, 1.0 if n else 0.5))
    return SuccessFrom(shape, n, start, n or 28_000, 20, 0.9, 0.145, searched, 12.0)


def test_kept_results_are_read_back_and_a_stale_saved_table_is_not(tmp_path):
    assert success.known(SHAPE, cache_dir=tmp_path, saved=tmp_path / "none.json") is None
    success.remember(found_at(30_000), tmp_path)
    assert success.known(SHAPE, cache_dir=tmp_path).n == 30_000
    saved = tmp_path / "saved.json"
    row = {"key": SHAPE.key(), "found": found_at(40_000).to_dict(), "held_out": None}
    for stamp, expected in ((provenance.stamp("test", "gmm"), 40_000),
                            ({"registry_version": "older"}, None)):
        saved.write_text(json.dumps({"made_by": stamp, "rows": [row]}))
        got = success.known(SHAPE, cache_dir=tmp_path / "empty", saved=saved)
        assert (got and got.n) == expected


def test_the_remedy_says_the_simulated_n_where_known_and_only_the_preconditions_otherwise():
    blocked = Blocked("too few chunks", 14_000, None)
    assert blocked.remedy() == ("its preconditions hold from about n = 14,000 rows at this ε "
                                "(whether runs then succeed was not simulated)")
    simulated = Blocked("too few chunks", 14_000, 2.0, simulated=found_at(30_000).sentence())
    assert simulated.remedy() == (
        "in simulation, at least 90% of runs succeed from about n = 30,000 rows at this ε "
        "(20 runs per point); its preconditions hold by ε = 2 at this n (whether runs then "
        "succeed was not simulated)")
    for said in (blocked.remedy(), simulated.remedy()):
        assert "would succeed" not in said


def test_the_fast_claim_checks_the_saved_table_against_the_registry(tmp_path, monkeypatch):
    start = success.precondition_rows(SHAPE)
    assert start is not None
    good = found_at(2 * start, start=start)
    saved = tmp_path / "saved.json"

    def write(*found: SuccessFrom) -> None:
        saved.write_text(json.dumps({"made_by": provenance.stamp("test", "gmm"), "rows": [
            {"key": f.shape.key(), "found": f.to_dict(), "held_out": None} for f in found]}))

    write(good)
    measured = success.claim_saved_table_consistent(False, saved)
    assert measured.ok, measured.text
    moved = SuccessFrom(SHAPE, 2 * start, start // 2, 2 * start, 20, 0.9, 0.145,
                        ((start // 2, 0.0), (2 * start, 0.95)), 1.0)
    below = SuccessFrom(SHAPE, 2 * start, start, 2 * start, 20, 0.9, 0.145,
                        ((start, 0.95), (2 * start, 0.95)), 1.0)
    write(moved, below)
    measured = success.claim_saved_table_consistent(False, saved)
    assert not measured.ok
    assert "the search started at" in measured.text and "is not where" in measured.text
    write()
    assert not success.claim_saved_table_consistent(False, saved).ok


def test_the_slow_claim_counts_fresh_successes_at_each_saved_n(tmp_path, monkeypatch):
    asked = []

    def held(shape, n, *, seed, runs=10):
        asked.append((shape, n))
        return success.HeldOut(9 if shape.epsilon == 1.0 else 7, runs, seed, 1.0)

    monkeypatch.setattr(success, "held_out", held)
    saved = tmp_path / "saved.json"
    rows = [found_at(30_000), found_at(None), found_at(60_000, Shape("friendly_core", 0.5))]
    saved.write_text(json.dumps({"rows": [{"key": f.shape.key(), "found": f.to_dict()}
                                          for f in rows]}))
    measured = success.claim_saved_n_hold(True, saved)
    assert not measured.ok and "ε = 0.5, n = 60,000: 7/10" in measured.text
    assert [n for _, n in asked] == [30_000, 60_000]  # no n: nothing to check


@pytest.mark.slow
def test_a_real_search_and_its_held_out_check_agree():
    """Private PCA + clustering at ε = 1: its preconditions hold from about 4 400 rows."""
    shape = Shape("private_pca_clustering", 1.0)
    found = success.succeeds_from(shape, runs=5)
    assert found.n is not None and found.n >= found.start
    assert dict(found.searched)[found.n] >= 0.9
    check = success.held_out(shape, found.n, seed=1, runs=5)
    assert check.successes >= 3
