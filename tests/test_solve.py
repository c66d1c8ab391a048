"""Solve for ε (and n): the bisection, the closed form of the mean, fresh-seed checks."""

from __future__ import annotations

import math
from dataclasses import replace
from types import MappingProxyType

import numpy as np
import pytest

from dpviz.estimators.metrics import METRICS
from dpviz.lab.scenario import Scenario
from dpviz.lab.solve import (
    DIRECTIONS,
    bisect_smallest,
    grid_steps,
    make_target,
    mean_error_share,
    parse_target,
    simulated_share,
    simulation_seeds,
    solve_epsilon,
    solve_n,
    steps_needed,
    two_digit_grid,
)


def mean_scenario(estimator: str = "laplace", *, d: int = 2, n: int = 500,
                  seed: int = 0, data_seed: int = 0, **budget: float) -> Scenario:
    params = budget or ({"epsilon": 1.0, "delta": 1e-5} if estimator == "gaussian"
                        else {"epsilon": 1.0})
    return Scenario.from_dict({"task": "mean", "estimator": estimator,
                               "data": {"generator": "gmm", "n": n, "d": d, "k": 1,
                                        "seed": data_seed},
                               "params": params, "seed": seed})


def at_epsilon(s: Scenario, epsilon: float, *, seed: int, data_seed: int) -> Scenario:
    """The same scenario at ε with other seeds (fresh data and noise)."""
    return replace(s, seed=seed, params=MappingProxyType({**s.params, "epsilon": epsilon}),
                   data=MappingProxyType({**s.data, "seed": data_seed}))


def binomial_margin(p: float, runs: int) -> float:
    return 3 * math.sqrt(p * (1 - p) / runs)


# --- the pure bisection ---

@pytest.mark.parametrize("edge", [0.013, 0.7, 3.3, 19.5])
def test_bisection_finds_a_step_within_tolerance(edge):
    search = bisect_smallest(lambda x: float(x >= edge), 0.01, 20.0, 0.9)
    assert search.answer is not None
    assert edge <= search.answer <= edge * 1.05 ** 2
    assert len(search.searched) <= steps_needed(0.01, 20.0)
    xs = [x for x, _ in search.searched]
    assert xs == sorted(xs)


def test_bisection_reports_unreachable_and_already_met():
    assert bisect_smallest(lambda x: 0.89, 0.1, 10.0, 0.9).answer is None
    assert bisect_smallest(lambda x: 0.89, 0.1, 10.0, 0.9).searched == ((10.0, 0.89),)
    met = bisect_smallest(lambda x: 1.0, 0.1, 10.0, 0.9)
    assert met.answer == 0.1 and len(met.searched) == 2


def test_bisection_on_integers_is_exact():
    search = bisect_smallest(lambda n: float(n >= 777), 10, 5000, 0.5, rtol=0, integer=True)
    assert search.answer == 777
    assert all(float(x).is_integer() for x, _ in search.searched)


@pytest.mark.parametrize("low, high", [(1.0, 1.0), (2.0, 1.0), (0.0, 1.0)])
def test_bisection_refuses_a_bad_range(low, high):
    with pytest.raises(ValueError, match="0 < low < high"):
        bisect_smallest(lambda x: 1.0, low, high, 0.9)


# --- targets ---

def test_every_metric_has_a_direction():
    for task, metrics in METRICS.items():
        for name in metrics:
            assert name in DIRECTIONS, (task, name)


def test_targets_know_their_direction():
    assert make_target("sbm", "error_rate", 0.05).met([0.04, 0.06]).tolist() == [True, False]
    assert make_target("sbm", "overlap", 0.9).met([0.95, 0.85]).tolist() == [True, False]
    assert parse_target("gmm", " mean_error = 0.1 ").value == 0.1


@pytest.mark.parametrize("task, text, message", [
    ("gmm", "mean_error", "METRIC=VALUE"),
    ("gmm", "=0.1", "METRIC=VALUE"),
    ("gmm", "overlap=0.9", "unknown metric 'overlap' for the gmm task"),
    ("gmm", "mean_error=abc", "must be a number, got 'abc'"),
    ("gmm", "mean_error=nan", "finite number"),
    ("factor_analysis", "mean_error=0.1", "has no metrics"),
])
def test_bad_targets_say_what_is_wrong(task, text, message):
    with pytest.raises(ValueError, match=message):
        parse_target(task, text)


def test_bad_inputs_say_what_is_wrong():
    s = mean_scenario()
    with pytest.raises(ValueError, match="probability must be > 0 and <= 1, got 1.5"):
        solve_epsilon(s, metric="mean_error", target=0.1, probability=1.5)
    with pytest.raises(ValueError, match="runs must be"):
        solve_epsilon(s, metric="mean_error", target=0.1, runs=0)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        solve_epsilon(s, metric="mean_error", target=0.1, low=-1)
    with pytest.raises(ValueError, match="0 < low < high"):
        solve_epsilon(s, metric="mean_error", target=0.1, low=5.0, high=1.0)
    csv = Scenario.from_dict({"task": "mean", "estimator": "laplace",
                              "data": {"csv": "private.csv"}, "params": {"epsilon": 1.0}})
    with pytest.raises(ValueError, match="solve needs a synthetic twin"):
        solve_epsilon(csv, metric="mean_error", target=0.1)
    with pytest.raises(ValueError, match="solve needs a synthetic twin"):
        solve_n(csv, metric="mean_error", target=0.1)
    em = Scenario.from_dict({"task": "gmm", "estimator": "em",
                             "data": {"generator": "gmm", "n": 200, "k": 2},
                             "params": {"epsilon": "inf"}})
    with pytest.raises(ValueError, match="em is not private"):
        solve_epsilon(em, metric="mean_error", target=0.1)
    digits = Scenario.from_dict({"task": "gmm", "estimator": "dp_em",
                                 "data": {"dataset": "iris"},
                                 "params": {"epsilon": 1.0, "delta": 1e-5}})
    with pytest.raises(ValueError, match="solving for n needs generated data"):
        solve_n(digits, metric="mean_error", target=0.1)


# --- seeds ---

def test_seeds_are_fixed_per_scenario_and_fresh_for_other_seeds():
    s = mean_scenario()
    seeds = simulation_seeds(s, 5)
    assert seeds == simulation_seeds(s, 5)
    assert len({a for a, _ in seeds}) == 5
    assert set(seeds).isdisjoint(simulation_seeds(replace(s, seed=1), 5))
    other_data = replace(s, data=MappingProxyType({**s.data, "seed": 1}))
    assert set(seeds).isdisjoint(simulation_seeds(other_data, 5))


# --- the closed form of the private mean ---

def test_closed_form_quantiles():
    assert mean_error_share(0.5, 1, "laplace", 0.5 * math.log(20)) == pytest.approx(0.95)
    # χ² with 2 degrees of freedom is Exp(1/2): P(‖N(0, σ²I₂)‖ ≤ t) = 1 − exp(−t²/(2σ²))
    assert mean_error_share(2.0, 2, "gaussian", 3.0) == pytest.approx(1 - math.exp(-9 / 8))
    assert mean_error_share(1.0, 2, "laplace", 1.0) is None
    assert mean_error_share(1.0, 2, "gaussian", 0.0) == 0.0


@pytest.mark.parametrize("estimator, d", [("gaussian", 3), ("laplace", 1)])
def test_closed_form_matches_simulation(estimator, d):
    s = mean_scenario(estimator, d=d, n=400)
    solution = solve_epsilon(s, metric="mean_error", target=0.02, probability=0.9)
    assert solution.method == "closed form" and solution.runs == 0
    answer = solution.value
    assert answer is not None
    # the answer has two significant digits: the share there just reaches 0.9
    assert 0.9 <= solution.share_at(answer) < 0.95
    assert float(f"{answer:.2g}") == answer
    runs = 400
    fresh = at_epsilon(s, answer, seed=11, data_seed=12)
    share = simulated_share(fresh, metric="mean_error", target=0.02, runs=runs)
    assert abs(share - 0.9) <= binomial_margin(0.9, runs)
    below = simulated_share(at_epsilon(s, 0.8 * answer, seed=11, data_seed=12),
                            metric="mean_error", target=0.02, runs=runs)
    assert below < 0.9 - binomial_margin(0.9, runs) / 2
    shares = [share for _, share in solution.searched]
    assert shares == sorted(shares)


def test_closed_form_answer_moves_with_the_accounting():
    loose = mean_scenario("gaussian", d=2, n=400, epsilon=1.0, delta=1e-3)
    tight = mean_scenario("gaussian", d=2, n=400, epsilon=1.0, delta=1e-8)
    a = solve_epsilon(loose, metric="mean_error", target=0.02).value
    b = solve_epsilon(tight, metric="mean_error", target=0.02).value
    assert a is not None and b is not None and a < b


# --- simulated searches, checked on fresh seeds ---

def test_simulated_answer_meets_the_target_on_fresh_seeds():
    s = mean_scenario("laplace", d=2, n=500)  # no closed form in 2-D: simulated
    solution = solve_epsilon(s, metric="mean_error", target=0.02, probability=0.8, runs=60)
    assert solution.method == "simulation" and solution.runs == 60
    assert solution.reachable and solution.value is not None
    shares = [share for _, share in solution.searched]
    assert shares == sorted(shares)  # common random numbers: monotone in ε
    assert solution.share_at(solution.value) >= 0.8
    runs = 300
    fresh = simulated_share(at_epsilon(s, solution.value, seed=7, data_seed=8),
                            metric="mean_error", target=0.02, runs=runs)
    assert fresh >= 0.8 - binomial_margin(0.8, 60) - binomial_margin(0.8, runs)
    below = simulated_share(at_epsilon(s, 0.7 * solution.value, seed=7, data_seed=8),
                            metric="mean_error", target=0.02, runs=runs)
    assert below < 0.8


def test_dp_em_answer_meets_the_target_on_fresh_seeds():
    s = Scenario.from_dict({"task": "gmm", "estimator": "dp_em",
                            "data": {"generator": "gmm", "n": 3000, "k": 2, "d": 2,
                                     "separation": 8, "seed": 0},
                            "params": {"epsilon": 1.0, "delta": 1e-5}, "seed": 0})
    solution = solve_epsilon(s, metric="mean_error", target=0.1, probability=0.8, runs=10,
                             low=0.05, high=20.0)
    assert solution.value is not None
    fresh = at_epsilon(s, solution.value, seed=3, data_seed=4)
    share = simulated_share(fresh, metric="mean_error", target=0.1, runs=20)
    assert share >= 0.8 - binomial_margin(0.8, 10) - binomial_margin(0.8, 20)
    far_below = at_epsilon(s, solution.value / 8, seed=3, data_seed=4)
    assert simulated_share(far_below, metric="mean_error", target=0.1, runs=20) < 0.8


def test_unreachable_targets_say_so():
    s = mean_scenario("laplace", d=2)
    solution = solve_epsilon(s, metric="mean_error", target=1e-6, runs=5, high=2.0)
    assert solution.value is None and not solution.reachable
    assert solution.reason is not None and "not reachable even at ε = 2" in solution.reason
    assert solution.searched[-1] == (2.0, 0.0)
    assert all(share == 0.0 for _, share in solution.searched)
    assert solution.ceiling == 1.0  # without privacy the mean is exact: the budget decides
    assert solution.to_dict()["epsilon"] is None
    exact = solve_epsilon(mean_scenario("gaussian"), metric="mean_error", target=1e-6,
                          high=2.0)
    assert exact.value is None and exact.method == "closed form"


def test_covariance_solves_for_rho_when_the_scenario_states_rho():
    s = Scenario.from_dict({"task": "covariance", "estimator": "gauss",
                            "data": {"generator": "zipf", "n": 2000, "d": 5, "seed": 0},
                            "params": {"rho": 0.1}, "seed": 0})
    solution = solve_epsilon(s, metric="frobenius_error", target=0.05, runs=10)
    assert solution.parameter == "rho" and solution.value is not None
    assert solution.epsilon is None  # no δ to state ρ as (ε, δ)
    out = solution.to_dict()
    assert out["rho"] == solution.value and out["parameter"] == "rho"
    shares = [share for _, share in solution.searched]
    assert shares == sorted(shares)


def test_smallest_n_meets_the_target_on_fresh_seeds():
    s = mean_scenario("laplace", d=2, n=500)
    solution = solve_n(s, 1.0, metric="mean_error", target=0.02, probability=0.8, runs=40)
    assert solution.parameter == "n" and solution.epsilon == 1.0
    assert solution.value is not None and float(solution.value).is_integer()
    n = int(solution.value)
    fresh = replace(s, seed=5, data=MappingProxyType({**s.data, "seed": 6, "n": n}))
    share = simulated_share(fresh, metric="mean_error", target=0.02, runs=200)
    assert share >= 0.8 - binomial_margin(0.8, 40) - binomial_margin(0.8, 200)
    smaller = replace(fresh, data=MappingProxyType({**fresh.data, "n": int(0.7 * n)}))
    assert simulated_share(smaller, metric="mean_error", target=0.02, runs=200) < 0.8


def test_progress_is_reported_in_runs():
    calls: list[tuple[int, int]] = []
    solve_epsilon(mean_scenario("laplace"), metric="mean_error", target=0.02, runs=5,
                  progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[0] == (1, 5 * grid_steps(two_digit_grid(0.01, 20.0)))
    assert [c[0] for c in calls] == list(range(1, len(calls) + 1))
    assert all(done <= total for done, total in calls)


def test_json_form():
    solution = solve_epsilon(mean_scenario("gaussian"), metric="mean_error", target=0.05)
    out = solution.to_dict()
    assert out["epsilon"] == solution.value and out["method"] == "closed form"
    assert out["target"] == {"metric": "mean_error", "value": 0.05, "direction": "at_most"}
    assert all(len(pair) == 2 for pair in out["searched"])
    assert np.all(np.diff([x for x, _ in out["searched"]]) > 0)
