"""Sensitivities checked on neighbouring datasets (replace one row), after the same clipping
the estimators do: the change never exceeds the stated bound, and the worst case attains it
(so a bound that is too generous is caught as well as one that is too small)."""

import math

import numpy as np
import pytest

from dpviz.estimators.mean import mean_sensitivity, private_mean
from dpviz.lab import lens
from dpviz.privacy import Budget

BUDGET = Budget(epsilon=1.0, delta=1e-6, method="zcdp")


def exact_mean(x, radius, center, mechanism):
    """The mean the estimator computes after its own clipping (before noise), and its bound."""
    result = private_mean(x, BUDGET, rng=np.random.default_rng(0), radius=radius,
                          center=center, mechanism=mechanism)
    return result.diagnostics["true_mean"], result.choices["sensitivity"]


def change(a, b, mechanism):
    return float(np.sum(np.abs(a - b)) if mechanism == "laplace" else np.linalg.norm(a - b))


def unit(v):
    return v / np.linalg.norm(v)


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
@pytest.mark.parametrize("d", [1, 2, 5, 17])
@pytest.mark.parametrize("n", [2, 3, 50])
@pytest.mark.parametrize("radius", [0.5, 1.0, 7.0])
def test_mean_sensitivity_on_neighbours(mechanism, d, n, radius):
    rng = np.random.default_rng(d * 1000 + n)
    center = rng.normal(size=d)
    bound = mean_sensitivity(radius, n, d, mechanism)
    assert bound == pytest.approx(2 * radius / n * (math.sqrt(d) if mechanism == "laplace"
                                                    else 1.0))
    # rows inside and far outside the ball: the estimator clips them
    x = center + rng.normal(size=(n, d)) * radius * rng.choice([0.3, 3.0], size=(n, 1))
    base, used = exact_mean(x, radius, center, mechanism)
    assert used == pytest.approx(bound)
    worst_random = 0.0
    for _ in range(30):
        neighbour = x.copy()
        neighbour[rng.integers(n)] = center + rng.normal(size=d) * radius * 5
        moved = change(base, exact_mean(neighbour, radius, center, mechanism)[0], mechanism)
        assert moved <= bound * (1 + 1e-12)
        worst_random = max(worst_random, moved)
    # the worst case: a row at c + R·u replaced by c − R·u (u = 1/√d·(1, …, 1) for L1);
    # given far outside the ball, so the estimator's clipping is what puts them on the sphere
    u = unit(np.ones(d)) if mechanism == "laplace" else unit(rng.normal(size=d))
    worst = x.copy()
    worst[0] = center + 10 * radius * u
    flipped = worst.copy()
    flipped[0] = center - 10 * radius * u
    moved = change(exact_mean(worst, radius, center, mechanism)[0],
                   exact_mean(flipped, radius, center, mechanism)[0], mechanism)
    assert moved == pytest.approx(bound, rel=1e-9)  # tight: a 2× bound would fail here
    assert worst_random <= moved * (1 + 1e-12)


def test_mean_l1_bound_is_loose_for_axis_aligned_flips():
    # the √d in the L1 bound is needed only for diagonal directions: along an axis the L1
    # change is 2R/n, so only the (1, …, 1) direction makes the bound tight
    d, n, radius = 9, 4, 1.0
    x = np.zeros((n, d))
    x[0, 0] = radius
    y = x.copy()
    y[0, 0] = -radius
    a, bound = exact_mean(x, radius, None, "laplace")
    b, _ = exact_mean(y, radius, None, "laplace")
    assert change(a, b, "laplace") == pytest.approx(bound / math.sqrt(d))


# --------------------------------------------------------------------------------- the lens


QUERY_CASES = [("count", 0.0, 1.0, 0.5), ("sum", -2.0, 3.0, 0.0), ("mean", 0.0, 1.0, 0.5),
               ("mean", -5.0, 5.0, 0.0), ("sum", 0.0, 1.0, 0.5)]


@pytest.mark.parametrize("query, lo, hi, threshold", QUERY_CASES)
@pytest.mark.parametrize("n", [1, 2, 10, 100])
def test_lens_sensitivity_on_neighbours(query, lo, hi, threshold, n):
    rng = np.random.default_rng(n)
    bound = lens.sensitivity(query, lo, hi, n)
    expected = {"count": 1.0, "sum": hi - lo, "mean": (hi - lo) / n}[query]
    assert bound == pytest.approx(expected)
    span = hi - lo
    values = rng.uniform(lo - span, hi + span, size=n)  # some outside: clipped by answer()
    base = lens.answer(values, query, lo, hi, threshold)
    for _ in range(200):
        row, new = int(rng.integers(n)), rng.uniform(lo - 2 * span, hi + 2 * span)
        moved = abs(lens.answer(lens.neighbour(values, row, new), query, lo, hi, threshold)
                    - base)
        assert moved <= bound * (1 + 1e-12)
    # worst case: one row at (or beyond) one end of the range, replaced by the other end
    low_row = lens.neighbour(values, 0, lo - 3 * span)
    high_row = lens.neighbour(values, 0, hi + 3 * span)
    moved = abs(lens.answer(high_row, query, lo, hi, threshold)
                - lens.answer(low_row, query, lo, hi, threshold))
    assert moved == pytest.approx(bound, rel=1e-12)


def test_lens_mean_matches_the_mean_estimator():
    # the lens's mean query and the registered mean estimator use the same bound
    values = np.array([0.1, 0.7, 0.4, 2.0])
    for mechanism in ("laplace", "gaussian"):
        _, used = exact_mean(values[:, None], 0.5, [0.5], mechanism)
        assert used == pytest.approx(lens.sensitivity("mean", 0.0, 1.0, values.size))


# --------------------------------------------------------- the Frobenius fact of §1.1


def frobenius(x, y):
    return float(np.linalg.norm(np.outer(x, x) - np.outer(y, y)))


@pytest.mark.parametrize("d", [2, 3, 10, 50])
def test_rank_one_frobenius_difference_is_at_most_sqrt2(d):
    rng = np.random.default_rng(d)
    worst = 0.0
    for _ in range(500):
        x, y = rng.normal(size=d), rng.normal(size=d)
        scale_x, scale_y = rng.uniform(0, 1, size=2) ** (1 / d)
        x, y = unit(x) * scale_x, unit(y) * scale_y  # anywhere in the unit ball
        value = frobenius(x, y)
        identity = math.sqrt(max(0.0, x @ x) ** 2 + (y @ y) ** 2 - 2 * (x @ y) ** 2)
        assert value == pytest.approx(identity, rel=1e-9, abs=1e-12)
        assert value <= math.sqrt(2) * (1 + 1e-12)
        worst = max(worst, frobenius(unit(x), unit(y)))
    assert worst <= math.sqrt(2) * (1 + 1e-12)
    # attained by orthogonal unit vectors; opposite ones give 0 (not 2)
    e1, e2 = np.eye(d)[0], np.eye(d)[1]
    assert frobenius(e1, e2) == pytest.approx(math.sqrt(2), rel=1e-15)
    assert frobenius(e1, -e1) == 0.0


@pytest.mark.parametrize("d", [3, 8])
def test_second_moment_sum_has_frobenius_sensitivity_sqrt2(d):
    rng = np.random.default_rng(7)
    x = np.array([unit(v) for v in rng.normal(size=(20, d))])
    total = x.T @ x
    for _ in range(200):
        y = x.copy()
        y[rng.integers(20)] = unit(rng.normal(size=d)) * rng.uniform() ** (1 / d)
        assert np.linalg.norm(y.T @ y - total) <= math.sqrt(2) * (1 + 1e-12)
    # the worst neighbour: a row replaced by a unit vector orthogonal to it
    y = x.copy()
    v = rng.normal(size=d)
    y[0] = unit(v - (v @ x[0]) * x[0])
    assert np.linalg.norm(y.T @ y - total) == pytest.approx(math.sqrt(2), rel=1e-12)
