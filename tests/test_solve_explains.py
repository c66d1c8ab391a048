"""Solve for ε that explains itself (issue 18 item 4): two significant digits, readable
metric names, the answer stated against the share the runs reach without privacy."""

from __future__ import annotations

import math
from dataclasses import replace
from types import MappingProxyType

import pytest

from dpviz.lab.scenario import Scenario
from dpviz.lab.solve import (
    search_grid,
    simulated_share,
    solve_epsilon,
    two_digit_grid,
)
from dpviz.viz.solve import solve_figure


def hard_mixture() -> Scenario:
    """DP-EM where a few runs miss a tight target even without privacy."""
    return Scenario.from_dict({
        "task": "gmm", "estimator": "dp_em",
        "data": {"generator": "gmm", "k": 3, "d": 2, "n": 1000, "separation": 3.0,
                 "seed": 0},
        "params": {"epsilon": 1.0, "delta": 1e-5}, "seed": 0})


def test_the_grid_holds_every_two_digit_number_in_the_range():
    grid = two_digit_grid(0.01, 20.0)
    assert grid[0] == 0.01 and grid[-1] == 20.0 and list(grid) == sorted(set(grid))
    assert all(float(f"{x:.2g}") == x for x in grid)
    assert {0.045, 0.99, 1.0, 2.6, 19.0} <= set(grid)


def test_the_search_tries_coarse_points_first_and_never_an_end_it_does_not_need():
    s = search_grid(lambda x: float(x >= 0.9), two_digit_grid(0.01, 20.0), 0.5)
    xs = [x for x, _ in s.searched]
    assert s.answer == 0.9 and 0.01 not in xs and 20.0 not in xs
    assert {0.3, 1.0} <= set(xs)  # 1 and 3 times a power of ten bracket it first
    assert search_grid(lambda x: 0.0, (1.0, 2.0), 0.5).answer is None


def test_a_target_at_the_non_private_share_is_set_ten_points_below_and_said_so():
    solution = solve_epsilon(hard_mixture(), metric="mean_error", target=0.02,
                             probability=0.9, runs=10, low=0.5, high=1000.0)
    assert solution.ceiling is not None and solution.ceiling < 0.9
    assert solution.requested == 0.9
    assert solution.probability == pytest.approx(solution.ceiling - 0.1)
    sentence = solution.sentence()
    assert sentence.startswith(f"{solution.ceiling:.0%} of runs is the best this estimator "
                               "reaches even without privacy: the target is set to "
                               f"{solution.probability:.0%}.")
    assert "error of the means ≤ 0.02" in sentence and "mean_error" not in sentence
    assert solution.value is not None and f"ε = {solution.value:,.0f} gives" in sentence
    out = solution.to_dict()
    assert out["ceiling"] == solution.ceiling and out["requested_probability"] == 0.9
    figure = solve_figure(solution)
    floor = next(t for t in figure.data if t.name.startswith("without privacy"))
    assert set(floor.y) == {solution.ceiling}


def test_no_run_meeting_the_target_without_privacy_is_said_before_searching():
    solution = solve_epsilon(hard_mixture(), metric="mean_error", target=1e-4, runs=5)
    assert solution.ceiling == 0.0 and solution.searched == () and solution.value is None
    assert solution.sentence().startswith("Even without privacy only 0% of runs meet")


def test_the_answer_is_two_digits_with_its_share_measured_on_the_same_runs():
    s = replace(hard_mixture(), data=MappingProxyType({**hard_mixture().data,
                                                       "separation": 6.0, "n": 2000}))
    solution = solve_epsilon(s, metric="mean_error", target=0.1, probability=0.8, runs=10)
    assert solution.value is not None and float(f"{solution.value:.2g}") == solution.value
    assert f"ε = {solution.value:.2g} gives" in solution.sentence()
    # the runs read at another budget agree with running them again at the answer
    at_answer = replace(s, params=MappingProxyType({**s.params, "epsilon": solution.value}))
    share = simulated_share(at_answer, metric="mean_error", target=0.1, runs=10)
    assert share == solution.share_at(solution.value)
    assert any("read from the same run" in note for note in solution.notes)
    assert solution.ceiling is not None and math.isfinite(solution.ceiling)
