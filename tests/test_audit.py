"""The one-click audit (issue 9, part 3): correct estimators pass, broken ones are caught."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpviz
from dpviz.estimators.registry import TASKS
from dpviz.estimators.result import Result
from dpviz.estimators.work import WorkBudget
from dpviz.lab import audit
from dpviz.lab.audit import (
    AUDIT_RUNS,
    WHITE_BOX_DRAWS,
    audit_estimator,
    audit_reach,
    audit_unavailable,
    ceiling,
    pairs,
)
from dpviz.lab.broken_variants import (
    BROKEN_LABEL,
    BROKEN_VARIANTS,
    GALLERY_RUNS,
    audit_broken,
    audit_gallery,
    catch_advice,
)
from dpviz.privacy import Budget

PURE = {("mean", "laplace"), ("gmm", "dplloyd"), ("covariance", "emcov"),
        ("covariance", "zero")}
# the slowest audits (several ms a run); the quick loop skips them, the full suite runs them
SLOW = {("gmm", "dp_em"), ("factor_analysis", "dp_fa"), ("sbm", "exact_recovery")}
BRIEF = {("mean", "laplace"), ("mean", "gaussian"), ("gmm", "dp_em"), ("gmm", "dplloyd"),
         ("covariance", "gauss"), ("covariance", "separate"), ("covariance", "adaptive"),
         ("covariance", "emcov"), ("sbm", "weak_recovery"), ("sbm", "exact_recovery"),
         ("sbm", "exponential"), ("sbm", "randomized_response"), ("sbm", "gauss_adjacency"),
         ("factor_analysis", "dp_fa")}


def _cases():
    for pair in pairs():
        marks = [pytest.mark.slow] if pair in SLOW else []
        yield pytest.param(*pair, marks=marks, id="/".join(pair))


@pytest.mark.parametrize("task, name", list(_cases()))
def test_no_correct_estimator_is_flagged(task, name):
    delta = 0.0 if (task, name) in PURE else 1e-5
    result = audit_estimator(task, name, epsilon=1.0, delta=delta, seed=0)
    assert result.runs == AUDIT_RUNS
    assert result.passed, result.sentence()
    assert result.result.epsilon_lower <= result.claimed_epsilon
    # the claim is the run's own ledger, which never exceeds the budget
    assert result.claimed_epsilon <= 1.0 + 1e-9 and result.claimed_delta <= delta
    assert result.outputs.shape == result.outputs_neighbour.shape == (AUDIT_RUNS,)


@pytest.mark.parametrize("task, name", [("mean", "laplace"), ("sbm", "randomized_response")])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_audit_of_a_pure_single_release_shows_most_of_its_epsilon(task, name, seed):
    """One Laplace (or randomized-response) release at ε = 1: 1 000 runs can show ≈ 0.74."""
    result = audit_estimator(task, name, epsilon=1.0, delta=1e-5 if task == "sbm" else 0.0,
                             seed=seed)
    assert 0.5 < result.result.epsilon_lower <= 1.0, result.sentence()
    assert "consistent with the claim" in result.sentence()


def test_the_mean_pair_attains_the_full_sensitivity():
    pair = audit.neighbour_pair("mean", "laplace")
    n, d = pair.data.shape
    shift = np.abs(pair.data.mean(axis=0) - pair.neighbour.mean(axis=0)).sum()
    assert shift == pytest.approx(2 * pair.params["radius"] / n)
    assert d == 1


def test_the_sbm_statistic_is_a_function_of_the_release_only():
    """The scores are the released eigenvector: its sign is arbitrary, the product is not."""
    pair = audit.neighbour_pair("sbm", "randomized_response")
    result = dpviz.run("sbm", "randomized_response", pair.data, epsilon=1.0,
                       rng=np.random.default_rng(0), **pair.params)
    flipped = Result(estimate=result.estimate, ledger=result.ledger,
                           diagnostics={"scores": -np.asarray(result.diagnostics["scores"])})
    assert pair.statistic(flipped) == pytest.approx(pair.statistic(result))


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_every_broken_variant_is_caught_at_the_default_run_count(epsilon):
    audits = audit_gallery(epsilon=epsilon, seed=0)
    assert [a.name for a in audits] == list(BROKEN_VARIANTS)
    for a in audits:
        assert a.runs == AUDIT_RUNS
        assert a.claimed_epsilon == pytest.approx(epsilon)
        assert a.result.epsilon_lower > epsilon, a.sentence()
        assert not a.passed and "privacy violation caught" in a.sentence()
        assert a.broken and BROKEN_LABEL in a.label


def test_a_claim_above_what_the_runs_can_show_is_not_caught_and_says_what_would():
    """1 000 runs show at most about ε ≥ 4.9: a claim of 6 cannot be caught by them."""
    a = audit_broken("noise_reused", epsilon=6.0, seed=0)
    assert a.result.epsilon_lower <= 6.0 and not a.caught and a.passed
    assert "not caught at these settings" in a.sentence()
    advice = catch_advice(a)
    assert f"at most about ε ≥ {ceiling(AUDIT_RUNS):.2f}" in advice
    assert f"{GALLERY_RUNS[1]:,} runs" in advice
    more = audit_broken("noise_reused", epsilon=6.0, seed=0, runs=GALLERY_RUNS[1])
    assert more.caught and "privacy violation caught" in more.sentence()


def test_every_claim_has_an_audit_that_could_catch_it_or_says_none_can():
    assert catch_advice(audit_broken("noise_reused", epsilon=15.0)).endswith(
        "a claim this large promises little")
    assert ceiling(WHITE_BOX_DRAWS) > ceiling(GALLERY_RUNS[-1]) > ceiling(AUDIT_RUNS)


def test_an_audit_too_weak_for_its_claim_says_that_passing_proves_little():
    """DP-EM at ε = 1: 1 000 black-box runs show about 0.02 at best; the white-box 0.65."""
    reach = audit_reach("gmm", "dp_em", epsilon=1.0, delta=1e-5)
    assert reach.proves_little("black-box") and not reach.proves_little("white-box")
    caveat = reach.caveat()
    assert caveat is not None and f"ε ≥ {reach.black_box:.2f} against a claim of 1.00" in caveat
    assert "white-box audit can show about" in caveat
    strong = audit_reach("mean", "laplace", epsilon=1.0)
    assert strong.caveat() is None
    weak = audit_estimator("mean", "gaussian", epsilon=1.0, delta=1e-5, runs=AUDIT_RUNS)
    assert weak.passed and weak.proves_little
    assert weak.sentence().endswith("so passing it proves little.")


def test_the_correct_mean_passes_on_each_broken_variants_pair():
    """The pairs do not catch everything: the registered mean survives each of them."""
    for variant in BROKEN_VARIANTS.values():
        pair = variant.pair()

        def run_once(data, rng, pair=pair):
            return dpviz.run("mean", "laplace", data, epsilon=1.0, rng=rng, **pair.params)

        result = audit.audit_function(run_once, pair, task="mean", name="laplace",
                                         label="Laplace mean", seed=0)
        assert result.passed, (variant.name, result.sentence())


@pytest.mark.parametrize("name", list(BROKEN_VARIANTS))
def test_broken_variants_cannot_be_chosen_for_a_real_run(name):
    assert all(name not in estimators for estimators in TASKS.values())
    x = np.zeros((5, 2))
    for task in ("mean", "gmm", "covariance"):
        with pytest.raises(ValueError, match="unknown estimator"):
            dpviz.run(task, name, x, epsilon=1.0)


def test_every_private_estimator_is_covered_or_says_why_not():
    assert set(pairs()) >= BRIEF
    for task, estimators in TASKS.items():
        for name, spec in estimators.items():
            reason = audit_unavailable(task, name)
            if spec.notion == "none":
                assert reason is not None and "not private" in reason
            elif (task, name) in pairs():
                assert reason is None
            else:
                assert reason is not None and "no audit neighbour defined yet" in reason
                with pytest.raises(ValueError, match="no audit neighbour defined yet"):
                    audit_estimator(task, name, epsilon=1.0, delta=1e-5)


def test_pairs_are_neighbours():
    for (task, _), build in pairs().items():
        pair = build()
        a, b = np.asarray(pair.data), np.asarray(pair.neighbour)
        if task == "sbm":  # edge DP: one edge more
            assert len(a) == len(b) + 1
            assert {tuple(e) for e in b} < {tuple(e) for e in a}
        else:  # replace one row, both inside the unit ball
            assert a.shape == b.shape
            assert np.sum(np.any(a != b, axis=1)) == 1
            assert np.linalg.norm(a, axis=1).max() <= 1 + 1e-12
            assert np.linalg.norm(b, axis=1).max() <= 1 + 1e-12


def test_the_audit_is_deterministic():
    first = audit_estimator("mean", "laplace", epsilon=1.0, seed=3)
    again = audit_estimator("mean", "laplace", epsilon=1.0, seed=3)
    other = audit_estimator("mean", "laplace", epsilon=1.0, seed=4)
    assert first == again
    np.testing.assert_array_equal(first.outputs, again.outputs)
    np.testing.assert_array_equal(first.outputs_neighbour, again.outputs_neighbour)
    assert not np.array_equal(first.outputs, other.outputs)
    assert audit_broken("bound_from_data", seed=1) == audit_broken("bound_from_data", seed=1)


def test_progress_reaches_the_end():
    seen = []
    audit_estimator("mean", "laplace", epsilon=1.0, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) >= 50


def test_a_rho_budget_is_audited_at_the_epsilon_its_ledger_states():
    result = audit_estimator("covariance", "gauss", epsilon=None, rho=0.05, delta=1e-6)
    total = dpviz.run("covariance", "gauss", audit.neighbour_pair("covariance", "gauss").data,
                      rho=0.05, delta=1e-6, radius=1.0).ledger.total()
    assert result.claimed_epsilon == pytest.approx(total.epsilon)
    assert result.passed


@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": 0.0}, "epsilon"),
    ({"epsilon": math.inf}, "finite epsilon"),
    ({"epsilon": None}, "give epsilon"),
    ({"epsilon": 1.0, "runs": 10}, "trials"),
    ({"epsilon": 1.0, "seed": -1}, "seed"),
    ({"epsilon": None, "rho": 0.1}, "delta > 0 with rho"),
])
def test_bad_inputs_give_sentences(kwargs, match):
    with pytest.raises(ValueError, match=match):
        audit_estimator("mean", "gaussian", **kwargs)


def test_unknown_and_non_private_estimators_are_refused():
    with pytest.raises(ValueError, match="unknown estimator"):
        audit_estimator("gmm", "nope", epsilon=1.0)
    with pytest.raises(ValueError, match="not private"):
        audit_estimator("gmm", "em", epsilon=1.0)
    with pytest.raises(ValueError, match="unknown broken variant"):
        audit_broken("nope")
    with pytest.raises(ValueError, match="finite epsilon"):
        audit_broken("noise_reused", epsilon=math.inf)


def test_broken_variants_claim_what_they_spend_and_each_has_its_flaw():
    x = np.zeros((10, 2))
    x[0] = [0.3, -0.4]
    for variant in BROKEN_VARIANTS.values():
        result = variant.function(x, Budget(epsilon=0.7), rng=np.random.default_rng(0))
        assert result.ledger.total().epsilon == pytest.approx(0.7)
        assert result.estimate["mean"].shape == (2,)
    rng = np.random.default_rng(0)
    shared = BROKEN_VARIANTS["noise_reused"].function(x, Budget(epsilon=1.0), rng=rng)
    noise = shared.estimate["mean"] - x.mean(axis=0)
    assert noise[0] == pytest.approx(noise[1])  # one draw on both coordinates


def test_the_audit_work_check_counts_its_own_thread_not_other_sessions(monkeypatch):
    """Other sessions' CPU (the process's clock racing on) never refuses a small audit."""
    clock = iter(range(0, 10**9, 100))  # 100 s of other sessions' work between two reads
    monkeypatch.setattr(audit.time, "process_time", lambda: float(next(clock)))
    found = audit.audit_estimator("mean", "laplace", epsilon=1.0, runs=1_000,
                                  budget=WorkBudget("on a page", 30.0, np.inf))
    assert found.runs == 1_000
