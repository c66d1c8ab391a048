"""The Gaussian-mixture generator and the exposure demo (dpviz.data.mixtures)."""

from __future__ import annotations

import inspect
import json
from itertools import combinations

import numpy as np
import pytest

from dpviz.core import limits
from dpviz.data import GENERATORS, exposure_demo, gaussian_mixture, mixture_radius


def min_distance(means):
    return min(np.linalg.norm(a - b) for a, b in combinations(means, 2))


def largest_std(covariances):
    return float(np.sqrt(np.linalg.eigvalsh(covariances)[:, -1].max()))


# --- shapes and determinism ---

@pytest.mark.parametrize(("k", "d", "n", "covariance"), [
    (3, 2, 1000, "spherical"), (1, 1, 2, "diagonal"), (5, 10, 500, "full"),
    (2, 200, 100, "full"), (10, 1, 40, "spherical"),
])
def test_shapes_and_types(k, d, n, covariance):
    mix = gaussian_mixture(k, d, n, covariance=covariance, seed=1)
    assert mix.data.shape == (n, d) and mix.data.dtype == np.float64
    assert mix.labels.shape == (n,) and mix.labels.dtype == np.int64
    assert mix.labels.min() >= 0 and mix.labels.max() < k
    assert mix.weights.shape == (k,)
    assert mix.means.shape == (k, d)
    assert mix.covariances.shape == (k, d, d)
    assert (mix.n, mix.d, mix.k) == (n, d, k)
    assert np.all(np.isfinite(mix.data))


def test_same_seed_same_mixture_other_seed_other_mixture():
    a = gaussian_mixture(4, 3, 800, weights="random", covariance="full", seed=7)
    b = gaussian_mixture(4, 3, 800, weights="random", covariance="full", seed=7)
    c = gaussian_mixture(4, 3, 800, weights="random", covariance="full", seed=8)
    for field in ("data", "labels", "weights", "means", "covariances"):
        assert np.array_equal(getattr(a, field), getattr(b, field))
    assert not np.allclose(a.means, c.means)
    assert not np.allclose(a.data, c.data)


def test_no_global_random_state_is_used():
    np.random.seed(1)  # noqa: NPY002 - checking the generator ignores the global state
    a = gaussian_mixture(3, 2, 100, seed=0).data
    np.random.seed(2)  # noqa: NPY002
    assert np.array_equal(a, gaussian_mixture(3, 2, 100, seed=0).data)


def test_parameters_do_not_depend_on_n():
    small = gaussian_mixture(3, 4, 20, weights="random", covariance="full", seed=3)
    large = gaussian_mixture(3, 4, 5000, weights="random", covariance="full", seed=3)
    assert np.array_equal(small.means, large.means)
    assert np.array_equal(small.covariances, large.covariances)
    assert np.array_equal(small.weights, large.weights)
    assert small.radius == large.radius


# --- separation, exactly as defined ---

@pytest.mark.parametrize("separation", [0.0, 0.5, 2.0, 6.0, 20.0, 100.0])
@pytest.mark.parametrize(("k", "d", "covariance"), [
    (2, 2, "spherical"), (3, 2, "diagonal"), (5, 10, "full"), (6, 1, "spherical"),
])
def test_separation_is_the_smallest_distance_in_largest_standard_deviations(
        separation, k, d, covariance):
    mix = gaussian_mixture(k, d, 4 * k, separation=separation, covariance=covariance, seed=2)
    sigma = largest_std(mix.covariances)
    assert mix.sigma == pytest.approx(sigma, rel=1e-12)
    assert min_distance(mix.means) == pytest.approx(separation * sigma, rel=1e-9, abs=1e-15)
    assert mix.separation == separation


def test_one_component_sits_at_the_origin():
    mix = gaussian_mixture(1, 3, 100, separation=6, seed=0)
    assert np.array_equal(mix.means, np.zeros((1, 3)))
    assert mix.weights.tolist() == [1.0]


def test_means_are_centred_and_larger_separation_spreads_them_relative_to_sigma():
    near = gaussian_mixture(4, 2, 100, separation=2, seed=5)
    far = gaussian_mixture(4, 2, 100, separation=12, seed=5)
    assert np.allclose(near.means.mean(axis=0), 0, atol=1e-12)
    assert np.max(np.linalg.norm(far.means, axis=1)) / far.sigma > \
        3 * np.max(np.linalg.norm(near.means, axis=1)) / near.sigma


# --- covariance shapes ---

def test_spherical_covariances_are_one_multiple_of_the_identity():
    mix = gaussian_mixture(4, 3, 100, covariance="spherical", seed=0)
    for cov in mix.covariances:
        assert np.allclose(cov, mix.sigma**2 * np.eye(3), rtol=1e-12, atol=0)


def test_diagonal_covariances_are_diagonal_with_variances_in_the_stated_range():
    mix = gaussian_mixture(4, 6, 100, covariance="diagonal", seed=0)
    variances = np.diagonal(mix.covariances, axis1=1, axis2=2)
    off = mix.covariances - variances[:, :, None] * np.eye(6)
    assert np.array_equal(off, np.zeros_like(off))
    assert variances.max() == pytest.approx(mix.sigma**2)
    assert variances.min() >= 0.25 * mix.sigma**2
    assert np.ptp(variances) > 0.1 * mix.sigma**2  # really random, not spherical


def test_full_covariances_are_rotated_symmetric_and_positive_definite():
    mix = gaussian_mixture(4, 5, 100, covariance="full", seed=0)
    for cov in mix.covariances:
        assert np.array_equal(cov, cov.T)
        eigenvalues = np.linalg.eigvalsh(cov)
        assert eigenvalues.min() >= 0.25 * mix.sigma**2 * (1 - 1e-9)
        assert eigenvalues.max() <= mix.sigma**2 * (1 + 1e-9)
        off = cov - np.diag(np.diag(cov))
        assert np.abs(off).max() > 0.05 * mix.sigma**2  # not axis-aligned
    # each component has its own rotation
    assert not np.allclose(mix.covariances[0], mix.covariances[1])


@pytest.mark.parametrize("covariance", ["spherical", "diagonal", "full"])
def test_rows_follow_the_stated_parameters(covariance):
    mix = gaussian_mixture(3, 3, 30_000, covariance=covariance, seed=4)
    for j in range(3):
        rows = mix.data[mix.labels == j]
        assert np.linalg.norm(rows.mean(axis=0) - mix.means[j]) < 0.1 * mix.sigma
        empirical = np.cov(rows.T)
        assert np.linalg.norm(empirical - mix.covariances[j]) < \
            0.1 * np.linalg.norm(mix.covariances[j])


# --- weights ---

def test_given_weights_are_honoured():
    mix = gaussian_mixture(3, 2, 20_000, weights=[0.6, 0.3, 0.1], seed=0)
    assert mix.weights.tolist() == pytest.approx([0.6, 0.3, 0.1])
    shares = np.bincount(mix.labels, minlength=3) / mix.n
    assert np.abs(shares - mix.weights).max() < 0.015


def test_equal_weights():
    mix = gaussian_mixture(4, 2, 20_000, seed=0)
    assert mix.weights.tolist() == [0.25] * 4
    assert np.abs(np.bincount(mix.labels) / mix.n - 0.25).max() < 0.015


def test_random_weights_are_positive_at_least_half_equal_and_honoured():
    mix = gaussian_mixture(5, 2, 20_000, weights="random", seed=3)
    assert mix.weights.sum() == pytest.approx(1.0, abs=1e-12)
    assert mix.weights.min() >= 0.5 / 5
    assert np.ptp(mix.weights) > 0.02  # not the equal weights
    assert np.abs(np.bincount(mix.labels) / mix.n - mix.weights).max() < 0.015


def test_weights_as_text_equal_weights_as_numbers():
    text = gaussian_mixture(3, 2, 100, weights="0.5, 0.3, 0.2", seed=1)
    numbers = gaussian_mixture(3, 2, 100, weights=(0.5, 0.3, 0.2), seed=1)
    assert np.array_equal(text.weights, numbers.weights)
    assert np.array_equal(text.data, numbers.data)


def test_weights_are_renormalised_within_tolerance():
    mix = gaussian_mixture(2, 2, 100, weights=[0.5 + 4e-7, 0.5], seed=0)
    assert mix.weights.sum() == pytest.approx(1.0, abs=1e-15)


# --- the public radius ---

def test_radius_covers_at_least_999_per_mille_of_rows_at_defaults():
    mix = gaussian_mixture()
    assert (mix.n, mix.d, mix.k, mix.separation) == (10_000, 2, 3, 6.0)
    inside = np.linalg.norm(mix.data, axis=1) <= mix.radius
    assert inside.mean() >= 0.999
    assert np.linalg.norm(mix.means, axis=1).max() < mix.radius


@pytest.mark.parametrize(("k", "d", "covariance"), [(5, 50, "full"), (10, 200, "diagonal"),
                                                    (2, 1, "spherical")])
def test_radius_covers_rows_in_high_dimension_too(k, d, covariance):
    mix = gaussian_mixture(k, d, 5000, covariance=covariance, seed=9)
    assert (np.linalg.norm(mix.data, axis=1) <= mix.radius).mean() >= 0.999


def test_radius_is_computed_from_parameters_and_is_one():
    mix = gaussian_mixture(4, 3, 500, separation=9, covariance="full", seed=2)
    assert mix.radius == mixture_radius(mix.means, mix.covariances)
    assert mix.radius == pytest.approx(1.0, abs=1e-12)
    # the data fill the ball: not a loose bound
    assert np.linalg.norm(mix.data, axis=1).max() > 0.5 * mix.radius


def test_mixture_radius_formula():
    means = [[3.0, 4.0], [0.0, 0.0]]
    covariances = [np.diag([4.0, 1.0]), np.eye(2)]
    # component 1: 5 + sqrt(5) + 4 * 2; component 2: sqrt(2) + 4
    assert mixture_radius(means, covariances) == pytest.approx(5 + np.sqrt(5) + 8)


# --- refused, with a sentence ---

@pytest.mark.parametrize(("kwargs", "message"), [
    ({"k": 0}, "k must be >= 1 and <= 100, got 0"),
    ({"k": 101, "n": 1000}, "k must be >= 1 and <= 100, got 101"),
    ({"k": 2.5}, "k must be a whole number, got 2.5"),
    ({"d": 0}, "d must be >= 1 and <= 200, got 0"),
    ({"d": 201}, "d must be >= 1 and <= 200, got 201"),
    ({"n": 1}, "n must be >= 2 and <= 1000000, got 1"),
    ({"k": 5, "n": 3}, "k must be at most n: 5 components cannot come from 3 rows"),
    ({"k": 3, "n": 5},
     "n = 5 rows are too few for k = 3 components: at least 6 are needed (2 per component)"),
    ({"separation": -1}, "separation must be >= 0 and <= 100, got -1"),
    ({"separation": float("nan")}, "separation must be a number, got NaN"),
    ({"covariance": "tied"}, "covariance must be one of spherical, diagonal, full, got 'tied'"),
    ({"weights": [0.5, 0.5]}, "weights must have one value per component (k = 3), got 2"),
    ({"weights": [0.5, 0.6, -0.1]}, "weights must all be positive numbers, got [0.5, 0.6, -0.1]"),
    ({"weights": [0.5, 0.5, 0.0]}, "weights must all be positive numbers, got [0.5, 0.5, 0.0]"),
    ({"weights": [0.3, 0.3, 0.3]}, "weights must sum to 1, got a sum of 0.9"),
    ({"weights": "heavy"},
     "weights must be 'equal', 'random' or 3 comma-separated positive numbers summing to 1, "
     "got 'heavy'"),
    ({"weights": [0.5, float("nan"), 0.5]},
     "weights must all be positive numbers, got [0.5, nan, 0.5]"),
    ({"seed": -1}, "seed must be >= 0 and <= 4294967295, got -1"),
])
def test_bad_inputs_are_refused_with_a_sentence(kwargs, message):
    with pytest.raises(ValueError) as err:
        gaussian_mixture(**{"n": 100, **kwargs})
    assert str(err.value) == message


def test_split_keeps_parameters_and_divides_rows():
    mix = gaussian_mixture(3, 2, 1000, seed=0)
    train, test = mix.split(0.1, seed=0)
    assert (train.n, test.n) == (900, 100)
    assert np.array_equal(train.means, mix.means) and train.radius == mix.radius
    rows = np.concatenate([train.data, test.data])
    assert np.array_equal(np.sort(rows, axis=0), np.sort(mix.data, axis=0))
    with pytest.raises(ValueError, match="test_fraction must be > 0 and < 1, got 1"):
        mix.split(1)


# --- the exposure demo (paper Fig. 1) ---

def test_exposure_demo_has_one_person_alone_in_a_component():
    demo = exposure_demo()
    assert demo.data.shape == (104, 2)
    assert demo.k == 4
    lone = demo.labels[demo.lone_index]
    assert np.sum(demo.labels == lone) == 1
    others = np.delete(demo.data, demo.lone_index, axis=0)
    assert np.linalg.norm(others - demo.data[demo.lone_index], axis=1).min() > 0.5
    assert np.linalg.norm(demo.data, axis=1).max() <= demo.radius == 1.0


def test_exposure_demo_scaled_fifty_times_puts_fifty_people_in_the_far_component():
    demo = exposure_demo(scale=50)
    assert demo.data.shape == (104 * 50, 2)
    assert np.sum(demo.labels == demo.labels[demo.lone_index]) == 50
    assert np.array_equal(demo.data[demo.lone_index], exposure_demo().data[-1])
    assert np.linalg.norm(demo.data, axis=1).max() <= 1.0


def test_exposure_demo_is_deterministic_and_refuses_bad_scale():
    assert np.array_equal(exposure_demo(seed=3).data, exposure_demo(seed=3).data)
    assert not np.array_equal(exposure_demo(seed=3).data, exposure_demo(seed=4).data)
    with pytest.raises(ValueError, match=r"^scale must be >= 1 and <= 100, got 0$"):
        exposure_demo(scale=0)


# --- the generator registry ---

def test_generators_are_read_only_and_describe_themselves_as_json():
    with pytest.raises(TypeError):
        GENERATORS["x"] = None  # type: ignore[index]
    listing = json.loads(json.dumps({name: spec.to_dict() for name, spec in GENERATORS.items()}))
    assert set(listing) == {"gmm", "exposure_demo", "zipf", "sbm"}
    assert list(listing["gmm"]["params"]) == ["k", "d", "n", "separation", "weights",
                                              "covariance", "seed"]


@pytest.mark.parametrize("name", ["gmm", "exposure_demo", "zipf", "sbm"])
def test_generator_params_match_the_functions_defaults(name):
    spec = GENERATORS[name]
    signature = inspect.signature(spec.function).parameters
    assert [p.name for p in spec.params] == list(signature)
    for p in spec.params:
        assert p.default == signature[p.name].default


def test_generate_parses_text_values_and_refuses_unknown_names():
    mix = GENERATORS["gmm"].generate(k="2", n="300", separation="4", covariance="full")
    assert mix.data.shape == (300, 2) and mix.k == 2
    assert np.array_equal(mix.data, gaussian_mixture(2, 2, 300, separation=4,
                                                     covariance="full").data)
    with pytest.raises(ValueError, match="unknown parameter 'm' for the generator 'gmm'"):
        GENERATORS["gmm"].generate(m=3)
    with pytest.raises(ValueError, match="covariance must be one of"):
        GENERATORS["gmm"].generate(covariance="tied")
    assert GENERATORS["exposure_demo"].generate(scale="2").data.shape == (208, 2)
    assert limits.COMPONENTS.high == GENERATORS["gmm"].params[0].max
