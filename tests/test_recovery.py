"""The SBM recovery outlook (issue 30 item 5): public inputs only, the paper's conditions."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from dpviz.data.graphs import stochastic_block_model
from dpviz.estimators.sbm.weak import private_weak_recovery
from dpviz.lab import recovery
from dpviz.lab.recovery import (
    NEAR_EXACT,
    RECOVERS,
    recovery_outlook,
    simulated_projection,
)
from dpviz.privacy import Budget

ISSUE = {"n": 77, "degree": 6.0, "signal": 0.5, "delta": 1e-6}


def test_the_issues_graph_is_near_random_at_epsilon_2_and_says_why():
    out = recovery_outlook("weak_recovery", epsilon=2.0, **ISSUE)
    assert out.regime == "near-random" and out.kesten_stigum == pytest.approx(1.5)
    assert out.sentence.startswith("At n = 77, d = 6, ε_s = 0.5: ε_s²·d = 1.5 is above 1")
    assert "expect a near-random split" in out.sentence
    assert "needs ε_s·d of about 96; here it is 3." in out.sentence
    assert out.epsilon_recovers is not None and out.epsilon_recovers > 20
    assert "beyond this page's largest ε (20)" in out.sentence


def test_its_inputs_are_public_only():
    """No graph, no edges: n, d, ε_s, the budget and the estimator's public choices."""
    assert set(inspect.signature(recovery_outlook).parameters) == {
        "estimator", "n", "degree", "signal", "epsilon", "delta", "split_probability",
        "tolerance_fraction"}


def test_the_noise_is_the_release_of_a_run_at_the_same_public_inputs():
    n, degree, signal = 120, 30.0, 0.6
    out = recovery_outlook("weak_recovery", n=n, degree=degree, signal=signal, epsilon=3.0,
                           delta=1e-6)
    run = private_weak_recovery(stochastic_block_model(n, degree, signal, seed=7),
                                Budget(epsilon=3.0, delta=1e-6), rng=np.random.default_rng(0),
                                degree=degree, signal=signal)
    assert out.noise == pytest.approx(run.diagnostics["noise_scale"] * math.sqrt(n), rel=1e-6)


def test_the_epsilons_it_names_put_the_noise_at_the_thresholds():
    out = recovery_outlook("weak_recovery", epsilon=2.0, **ISSUE)
    assert out.epsilon_recovers is not None and out.epsilon_near_exact is not None
    for level, epsilon in ((RECOVERS, out.epsilon_recovers), (NEAR_EXACT,
                                                               out.epsilon_near_exact)):
        there = recovery_outlook("weak_recovery", epsilon=epsilon, **ISSUE)
        assert there.ratio == pytest.approx(level, rel=1e-3)


def test_more_epsilon_never_makes_the_outlook_worse():
    order = [name for name, *_ in recovery.REGIMES]
    seen = [recovery_outlook("weak_recovery", n=300, degree=60.0, signal=0.5, epsilon=e,
                             delta=1e-6).regime for e in (0.5, 1.0, 2.0, 4.0, 8.0)]
    assert [order.index(r) for r in seen] == sorted((order.index(r) for r in seen),
                                                    reverse=True)
    assert seen[0] == "near-random" and seen[-1] == "near-exact"


def test_a_weak_graph_stays_partial_however_small_the_noise():
    out = recovery_outlook("weak_recovery", epsilon=200.0, **ISSUE)
    assert out.ratio is not None and out.ratio < NEAR_EXACT
    assert out.regime == "partial" and out.floor is not None and out.floor > 0.05
    assert "even without noise the projection puts about" in out.sentence
    assert "rule of thumb" not in out.sentence


@pytest.mark.parametrize("estimator", ["weak_recovery", "spectral", "randomized_response"])
def test_below_kesten_stigum_nothing_recovers(estimator):
    out = recovery_outlook(estimator, n=200, degree=12.0, signal=0.25, epsilon=8.0,
                           delta=1e-6)
    assert out.regime == "undetectable" and out.kesten_stigum == pytest.approx(0.75)
    assert "no method, private or not, does better than a coin flip" in out.sentence


def test_exact_recovery_is_judged_by_its_first_step_on_its_share_of_the_edges():
    weak = recovery_outlook("weak_recovery", n=200, degree=50.0, signal=0.6, epsilon=4.0,
                            delta=1e-6)
    exact = recovery_outlook("exact_recovery", n=200, degree=100.0, signal=0.6, epsilon=4.0,
                             delta=1e-6)
    assert exact.ratio == pytest.approx(weak.ratio)
    assert "Exact recovery's first step, private weak recovery on 50% of the edges (d = 50)" \
        in exact.sentence and "majority vote" in exact.sentence


@pytest.mark.parametrize(("estimator", "words"), [
    ("spectral", "it is not private, so that is the only condition"),
    ("projection", "it is not private, so that is the only condition"),
    ("randomized_response", "Randomized response + spectral is a baseline with its own"),
    ("gauss_adjacency", "is a baseline with its own"),
])
def test_the_other_estimators_get_kesten_stigum_and_say_which_condition(estimator, words):
    out = recovery_outlook(estimator, n=200, degree=40.0, signal=0.5, epsilon=2.0, delta=1e-6)
    assert out.regime is None and out.ratio is None
    assert "is above 1, the Kesten–Stigum threshold" in out.sentence and words in out.sentence


def test_pure_dp_has_no_gaussian_condition():
    out = recovery_outlook("weak_recovery", n=200, degree=40.0, signal=0.5, epsilon=2.0,
                           delta=0.0)
    assert out.regime is None and "needs δ > 0" in out.sentence


def test_an_unknown_estimator_is_a_sentence():
    with pytest.raises(ValueError, match="unknown sbm estimator 'nope'"):
        recovery_outlook("nope", epsilon=1.0, **ISSUE)


@pytest.mark.slow  # graph simulations: 3-8 s (make test, not make check)
def test_large_graphs_are_measured_on_smaller_generated_ones():
    small = simulated_projection(2000, 20.0, 0.5)
    assert small == simulated_projection(recovery.SIMULATED_VERTICES, 20.0, 0.5)
    dense = simulated_projection(2000, 400.0, 0.5)  # (1 + ε_s)·d needs 600 vertices
    assert 0 < dense.eigenvalue <= 1


@pytest.mark.slow
@pytest.mark.parametrize("check", [recovery.claim_sbm_recovery_regimes,
                                   recovery.claim_sbm_strong_signal_products])
def test_the_claims_hold_on_fixed_seeds(check):
    measured = check(False)
    assert measured.ok, measured.text
