"""The PPE sample-size calculator (ALGORITHMS.md §5, "Sample-size calculator")."""

import math

import pytest

from dpviz.estimators.gmm.sample_size import (
    chunk_size_needed,
    minimum_chunks,
    ppe_budget,
    radius_reachable,
    sample_at_hand,
    sample_size_plan,
)


def test_the_measured_example_of_algorithms_md():
    plan = sample_size_plan(1.0, 1e-6, k=2, d=2, alpha=0.1, beta=0.05, w_min=0.5)
    assert plan.t == 584
    assert plan.radius == pytest.approx(2.4e-6, rel=0.01)
    assert 0.9e17 <= plan.n <= 1.1e17
    assert plan.n == plan.t * plan.chunk_size
    assert plan.epsilon == 0.5 and plan.delta == pytest.approx(1e-6 / (4 * math.exp(0.5)))
    assert plan.masking.epsilon_part == pytest.approx(0.5 / 2 / 3)
    names = [row[0] for row in plan.rows()]
    assert names[0] == "t" and names[-1] == "n"


def test_the_budget_map_and_the_utility_minimum():
    eps, delta = ppe_budget(2.0, 1e-5)
    assert 2 * eps == 2.0 and 4 * math.exp(eps) * delta == pytest.approx(1e-5)
    t = minimum_chunks(eps, delta)
    assert 20 / eps * math.log1p(math.expm1(eps) / (2 * delta)) <= t
    assert 20 / eps * math.log1p(math.expm1(eps) / (2 * delta)) > t - 1
    assert minimum_chunks(math.inf, 0.0) == 5  # privacy alone needs t >= 5


def test_more_budget_needs_fewer_rows():
    small = sample_size_plan(0.5, 1e-6, k=2, d=2, alpha=0.1, beta=0.1, w_min=0.5)
    large = sample_size_plan(4.0, 1e-6, k=2, d=2, alpha=0.1, beta=0.1, w_min=0.5)
    assert large.n < small.n and large.radius > small.radius and large.t < small.t


def test_chunk_size_and_reachable_radius_are_inverse():
    s = chunk_size_needed(1e-3, 3, 0.2)
    assert radius_reachable(s, 3, 0.2) == pytest.approx(1e-3, rel=1e-6)


def test_what_the_sample_at_hand_allows():
    small = sample_at_hand(10_000, 1.0, 1e-5, k=3, d=2, beta=0.1, w_min=1 / 3)
    assert small.alpha is None and small.chunk_size == 10_000 // small.t
    assert not all(small.conditions.values())
    assert "no accuracy" in small.sentence()
    huge = sample_at_hand(10**22, 1.0, 1e-5, k=3, d=2, beta=0.1, w_min=1 / 3)
    assert huge.alpha is not None and huge.alpha < 0.1
    assert all(huge.conditions.values())
    tiny = sample_at_hand(3, 1.0, 1e-5, k=3, d=2, beta=0.1, w_min=1 / 3)
    assert tiny.chunk_size == 0 and "cannot fill" in tiny.sentence()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"epsilon": 0.0}, "epsilon must be > 0"),
    ({"epsilon": math.inf}, "finite epsilon"),
    ({"delta": 0.0}, "delta must be > 0"),
    ({"w_min": 0.0}, "w_min must be > 0"),
    ({"k": 0}, "k must be"),
    ({"alpha": 4.0}, "alpha must be > 0 and <= 3"),
])
def test_bad_inputs(kwargs, message):
    args = {"epsilon": 1.0, "delta": 1e-6, "k": 2, "d": 2, "alpha": 0.1, "beta": 0.1,
            "w_min": 0.5} | kwargs
    with pytest.raises(ValueError, match=message):
        sample_size_plan(**args)
