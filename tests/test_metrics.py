"""Accuracy metrics (dpviz.estimators.metrics): matching, parameter errors, likelihood, NICV,
ARI."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

from dpviz.data import gaussian_mixture
from dpviz.estimators import metrics
from dpviz.estimators.metrics import (
    METRICS,
    Truth,
    adjusted_rand,
    covariance_error,
    log_likelihood_per_point,
    map_assignment,
    match_components,
    matched_mean_error,
    mean_error,
    nearest_centre,
    nicv,
    weight_error,
)
from dpviz.estimators.result import Result
from dpviz.privacy import Ledger


def random_covariances(k, d, rng):
    a = rng.normal(size=(k, d, d))
    return a @ a.transpose(0, 2, 1) + 0.1 * np.eye(d)


# --- matching ---

def test_permuted_components_are_matched_back_exactly():
    rng = np.random.default_rng(0)
    means = rng.normal(size=(6, 3)) * 10
    weights = rng.dirichlet(np.ones(6))
    covariances = random_covariances(6, 3, rng)
    order = rng.permutation(6)
    matching = match_components(means, means[order])
    assert np.array_equal(order[matching], np.arange(6))
    assert matched_mean_error(means, means[order]) == 0.0
    assert weight_error(weights, weights[order], matching) == 0.0
    assert covariance_error(covariances, covariances[order], matching) == 0.0


def test_matched_mean_error_hand_case():
    true = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    # estimated in another order, each off by a known distance: 3-4-5, 1, 0
    estimated = np.array([[0.0, 10.0], [3.0, 4.0], [10.0, 1.0]])
    assert match_components(true, estimated).tolist() == [1, 2, 0]
    assert matched_mean_error(true, estimated) == pytest.approx((5 + 1 + 0) / 3)


def test_matching_minimises_the_total_not_each_greedy_choice():
    # Greedy would give true 0 its nearest (estimate 0, distance 1) and leave true 1 with a
    # distance of 9; the Hungarian total 2 + 2 = 4 beats 1 + 9 = 10.
    true = np.array([[0.0], [3.0]])
    estimated = np.array([[1.0], [-2.0]])
    assert match_components(true, estimated).tolist() == [1, 0]
    assert matched_mean_error(true, estimated) == pytest.approx(2.0)


def test_unequal_numbers_of_components():
    true = np.array([[0.0], [5.0], [10.0]])
    assert match_components(true, [[9.0], [1.0]]).tolist() == [1, -1, 0]
    assert matched_mean_error(true, [[9.0], [1.0]]) == pytest.approx(1.0)
    matching = match_components(true, [[9.0], [1.0]])
    # unmatched true weight 0.2 counts in full
    assert weight_error([0.4, 0.2, 0.4], [0.5, 0.5], matching) == pytest.approx(0.1 + 0.1 + 0.2)
    # more estimates than truths: the extra estimate is left out, its weight counts in full
    matching = match_components([[0.0], [10.0]], [[10.0], [50.0], [0.0]])
    assert matching.tolist() == [2, 0]
    assert weight_error([0.5, 0.5], [0.4, 0.2, 0.4], matching) == pytest.approx(0.1 + 0.1 + 0.2)


def test_matching_refuses_mismatched_dimensions():
    with pytest.raises(ValueError, match="the means must have the same dimension: the true "
                                         "ones have 2, the estimated ones 3"):
        match_components(np.zeros((2, 2)), np.zeros((2, 3)))


def test_weight_and_covariance_errors_hand_cases():
    assert weight_error([0.5, 0.25, 0.25], [0.25, 0.625, 0.125], [1, 0, 2]) == 0.25
    true = np.array([np.eye(2), 2 * np.eye(2)])
    estimated = np.array([2 * np.eye(2) + [[0.0, 3.0], [4.0, 0.0]], np.eye(2)])
    # component 0 <-> estimate 1: exact; component 1 <-> estimate 0: Frobenius 5
    assert covariance_error(true, estimated, [1, 0]) == pytest.approx(2.5)


# --- log-likelihood ---

def test_log_likelihood_equals_scipy_mixture_of_multivariate_normals():
    rng = np.random.default_rng(1)
    k, d = 3, 4
    weights = rng.dirichlet(np.ones(k))
    means = rng.normal(size=(k, d))
    covariances = random_covariances(k, d, rng)
    x = rng.normal(size=(200, d)) * 2
    per_component = np.stack([np.log(weights[j])
                              + multivariate_normal(means[j], covariances[j]).logpdf(x)
                              for j in range(k)], axis=1)
    expected = logsumexp(per_component, axis=1).mean()
    assert log_likelihood_per_point(x, weights, means, covariances) == \
        pytest.approx(expected, rel=1e-10)


def test_log_likelihood_is_stable_far_from_every_component():
    # each density underflows to 0 in plain arithmetic; log space keeps the exact value
    x = np.array([[60.0]])
    value = log_likelihood_per_point(x, [0.5, 0.5], [[0.0], [1.0]], [[[1.0]], [[1.0]]])
    assert np.exp(-0.5 * 59**2) == 0.0
    expected = np.log(0.5) - 0.5 * np.log(2 * np.pi) + logsumexp([-0.5 * 60**2, -0.5 * 59**2])
    assert np.isfinite(value)
    assert value == pytest.approx(expected, rel=1e-12)


def test_log_likelihood_accepts_a_singular_covariance_and_a_zero_weight():
    x = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    singular = np.array([[[1.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = log_likelihood_per_point(x, [0.5, 0.5], np.zeros((2, 2)), singular)
        assert np.isfinite(value)
        zero = log_likelihood_per_point(x, [1.0, 0.0], np.zeros((2, 2)),
                                        [np.eye(2), np.eye(2)])
    assert zero == pytest.approx(multivariate_normal(np.zeros(2)).logpdf(x).mean())


def test_log_likelihood_refuses_a_covariance_that_is_not_psd():
    bad = np.array([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])  # eigenvalues 3, -1
    with pytest.raises(ValueError, match=r"^the covariance of component 2 is not positive "
                                         r"semi-definite \(smallest eigenvalue -1\)$"):
        log_likelihood_per_point(np.zeros((3, 2)), [0.5, 0.5], np.zeros((2, 2)), bad)


@pytest.mark.parametrize(("weights", "covariances", "message"), [
    ([0.5], np.stack([np.eye(2)] * 2), "weights must be 2 non-negative numbers"),
    ([0.5, -0.5], np.stack([np.eye(2)] * 2), "weights must be 2 non-negative numbers"),
    ([0.5, 0.5], np.stack([np.eye(3)] * 2), "covariances must be 2 finite 2 × 2 matrices"),
])
def test_log_likelihood_refuses_inconsistent_parameters(weights, covariances, message):
    with pytest.raises(ValueError, match=message):
        log_likelihood_per_point(np.zeros((3, 2)), weights, np.zeros((2, 2)), covariances)


# --- NICV, assignments, ARI ---

def test_nicv_hand_case():
    x = [[0.0, 0.0], [2.0, 0.0], [10.0, 1.0], [10.0, -3.0]]
    means = [[1.0, 0.0], [10.0, 0.0]]
    assert nicv(x, means) == pytest.approx((1 + 1 + 1 + 9) / 4)


def test_nearest_centre_and_map_assignment():
    x = np.array([[0.0], [2.4], [3.0], [9.0]])
    means = [[0.0], [5.0]]
    assert nearest_centre(x, means).tolist() == [0, 0, 1, 1]
    # a wide, heavy component 1 takes 2.4 under MAP though its centre is farther
    assignment = map_assignment(x, [0.2, 0.8], means, [[[0.25]], [[9.0]]])
    assert assignment.tolist() == [0, 1, 1, 1]
    assert map_assignment(x, None, means).tolist() == [0, 0, 1, 1]


def test_adjusted_rand_is_one_for_a_perfect_assignment_whatever_the_names():
    mix = gaussian_mixture(3, 2, 600, separation=12, seed=0)
    order = np.array([2, 0, 1])
    value = adjusted_rand(mix.labels, mix.data, mix.weights[order], mix.means[order],
                          mix.covariances[order])
    assert value == 1.0
    assert adjusted_rand(mix.labels, mix.data, None, mix.means[order]) == 1.0


def test_adjusted_rand_is_near_zero_for_an_uninformative_estimate():
    mix = gaussian_mixture(3, 2, 3000, separation=12, seed=0)
    # three centres far off along a line orthogonal to nothing in particular: one gets all
    value = adjusted_rand(mix.labels, mix.data, None, [[100.0, 0.0], [200.0, 0.0],
                                                       [300.0, 0.0]])
    assert value == pytest.approx(0.0, abs=1e-12)


def test_adjusted_rand_refuses_mismatched_labels():
    with pytest.raises(ValueError, match="labels_true must give one label per row: 2 rows, "
                                         "3 labels"):
        adjusted_rand([0, 1, 1], [[0.0], [1.0]], None, [[0.0], [1.0]])


# --- the truth ---

def test_truth_from_labels_hand_case():
    truth = Truth.from_labels([[0.0, 0.0], [2.0, 0.0], [10.0, 1.0], [10.0, 3.0]],
                              ["b", "b", "a", "a"])
    # classes sorted: "a" -> 0, "b" -> 1
    assert truth.labels.tolist() == [1, 1, 0, 0]
    assert truth.weights.tolist() == [0.5, 0.5]
    assert truth.means.tolist() == [[10.0, 2.0], [1.0, 0.0]]
    assert truth.covariances.tolist() == [[[0.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 0.0]]]
    with pytest.raises(ValueError, match="one label per row: 4 rows, 3 labels"):
        Truth.from_labels(np.zeros((4, 2)), [0, 1, 1])


def test_truth_from_mixture():
    train, test = gaussian_mixture(3, 2, 500, seed=1).split(0.2)
    truth = Truth.from_mixture(train, test.data)
    assert truth.data is train.data and truth.labels is train.labels
    assert truth.test_data.shape == (100, 2)
    assert Truth.from_mixture(train).test_data is None


# --- the registry: fn(result, truth) ---

def gmm_result(weights, means, covariances, failed=None):
    estimate = {"weights": weights, "means": means, "covariances": covariances}
    return Result(estimate, Ledger(), failed=failed, task="gmm", estimator="test")


@pytest.fixture(scope="module")
def scenario():
    train, test = gaussian_mixture(3, 2, 3000, separation=8, covariance="full",
                                   seed=2).split(0.1, seed=0)
    return train, Truth.from_mixture(train, test.data)


def test_gmm_metrics_are_registered_read_only():
    assert list(METRICS["gmm"]) == ["mean_error", "weight_error", "covariance_error",
                                    "test_log_likelihood", "nicv", "adjusted_rand"]
    with pytest.raises(TypeError):
        METRICS["gmm"]["x"] = len  # type: ignore[index]


def test_gmm_metrics_on_the_true_parameters_in_another_order(scenario):
    train, truth = scenario
    order = [1, 2, 0]
    result = gmm_result(train.weights[order].tolist(), train.means[order].tolist(),
                        train.covariances[order].tolist())
    scores = {name: fn(result, truth) for name, fn in METRICS["gmm"].items()}
    assert scores["mean_error"] == 0.0
    assert scores["weight_error"] == 0.0
    assert scores["covariance_error"] == 0.0
    assert scores["test_log_likelihood"] == pytest.approx(
        log_likelihood_per_point(truth.test_data, train.weights, train.means,
                                 train.covariances), rel=1e-12)
    assert scores["nicv"] == pytest.approx(nicv(train.data, train.means))
    assert scores["adjusted_rand"] > 0.99


def test_gmm_metrics_see_a_shifted_estimate(scenario):
    train, truth = scenario
    shifted = train.means + np.array([0.03, -0.04])  # each mean off by 0.05
    result = gmm_result(train.weights, shifted, train.covariances)
    assert METRICS["gmm"]["mean_error"](result, truth) == pytest.approx(0.05)
    assert METRICS["gmm"]["test_log_likelihood"](result, truth) < \
        METRICS["gmm"]["test_log_likelihood"](gmm_result(train.weights, train.means,
                                                         train.covariances), truth)


def test_centres_only_estimates_get_nan_where_covariances_are_needed(scenario):
    train, truth = scenario
    result = gmm_result(None, train.means, None)  # e.g. DPLloyd
    scores = {name: fn(result, truth) for name, fn in METRICS["gmm"].items()}
    assert math.isnan(scores["covariance_error"])
    assert math.isnan(scores["test_log_likelihood"])
    assert math.isnan(scores["weight_error"])
    assert scores["mean_error"] == 0.0
    assert scores["adjusted_rand"] == pytest.approx(
        adjusted_rand(train.labels, train.data, None, train.means))


def test_failed_results_and_missing_truth_fields_give_nan(scenario):
    train, truth = scenario
    failed = gmm_result(None, None, None, failed="the test rejected")
    assert all(math.isnan(fn(failed, truth)) for fn in METRICS["gmm"].values())
    # a failed run that left numbers behind is still NaN: its estimate is not released
    stale = gmm_result(train.weights, train.means, train.covariances, failed="rejected")
    assert all(math.isnan(fn(stale, truth)) for fn in METRICS["gmm"].values())
    good = gmm_result(train.weights, train.means, train.covariances)
    assert all(math.isnan(fn(good, Truth())) for fn in METRICS["gmm"].values())


def test_gmm_metrics_need_a_truth(scenario):
    train, _ = scenario
    result = gmm_result(train.weights, train.means, train.covariances)
    for name, fn in METRICS["gmm"].items():
        with pytest.raises(ValueError, match=f"the gmm metric '{name}' needs the truth"):
            fn(result, None)


def test_mean_task_metric_keeps_working_with_and_without_a_truth():
    result = Result({"mean": np.array([3.0, 4.0])}, Ledger(),
                    diagnostics={"true_mean": np.zeros(2)})
    assert mean_error(result) == 5.0
    assert METRICS["mean"]["mean_error"](result, None) == 5.0
    assert metrics.METRICS["mean"]["mean_error"] is mean_error
