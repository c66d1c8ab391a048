"""Privacy of the SBM estimators: noise scales, sensitivities, audits, ledgers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpviz
from dpviz.data.graphs import Graph, stochastic_block_model
from dpviz.estimators.sbm import ESTIMATORS, weak
from dpviz.estimators.sbm.baselines import randomized_response_graph
from dpviz.estimators.sbm.exact import majority_vote, vote_plan
from dpviz.estimators.sbm.exponential import agreement, balanced_labellings
from dpviz.privacy import (
    METHODS,
    Budget,
    BudgetError,
    Ledger,
    PlannedRelease,
    audit,
    exponential,
    flip_probability,
    solve,
)
from dpviz.privacy.calibration import analytic_gaussian_mu

GRAPH = stochastic_block_model(60, 20.0, 0.8, seed=0)
MODEL = {"degree": 20.0, "signal": 0.8}


def test_weak_recovery_noise_scale(monkeypatch):
    seen = []
    monkeypatch.setattr(weak, "top_eigenvector_dense",
                        lambda m: (seen.append(m), np.ones(m.shape[0]))[1])
    prepared = dpviz.estimators.sbm.prepare_graph(GRAPH, **MODEL)
    projection = prepared.projection
    budget = Budget(epsilon=1.0, delta=1e-6)
    result = dpviz.estimators.sbm.private_weak_recovery(prepared, budget,
                                                        rng=np.random.default_rng(0),
                                             **MODEL)
    sensitivity = (projection.sensitivity + 2 * projection.tolerance) / math.sqrt(2)
    sigma = sensitivity / analytic_gaussian_mu(1.0, 1e-6)
    assert result.diagnostics["noise_scale"] == pytest.approx(sigma, rel=1e-5)
    noisy = seen[0]
    iu = np.triu_indices(60, 1)
    residual = (noisy - projection.matrix)[iu]
    assert np.allclose(np.diag(noisy), 1 / 60) and np.allclose(noisy, noisy.T)
    # 1 770 draws: the sample standard deviation is within 6% of σ with high probability
    assert abs(residual.std() / sigma - 1) < 0.06
    assert abs(residual.mean()) < 4 * sigma / math.sqrt(residual.size)


def test_gauss_adjacency_noise_scale(monkeypatch):
    from dpviz.estimators.sbm import baselines

    seen = []
    monkeypatch.setattr(baselines, "top_eigenvector_dense",
                        lambda m: (seen.append(m), np.ones(m.shape[0]))[1])
    result = dpviz.run("sbm", "gauss_adjacency", GRAPH, epsilon=1.0, delta=1e-6, seed=0,
                       **MODEL)
    sigma = 1 / analytic_gaussian_mu(1.0, 1e-6)
    assert result.diagnostics["noise_scale"] == pytest.approx(sigma, rel=1e-9)
    centred = Graph(edges=GRAPH.edges, n=60).adjacency().toarray() - 20.0 / 60
    residual = (seen[0] - centred)[np.triu_indices(60, 1)]
    assert abs(residual.std() / sigma - 1) < 0.06
    assert np.allclose(np.diag(seen[0]), 0) and np.allclose(seen[0], seen[0].T)


def test_majority_vote_sensitivity_is_two():
    rng = np.random.default_rng(1)
    for _ in range(30):
        g = stochastic_block_model(30, 6.0, 0.5, seed=int(rng.integers(1000)))
        labels = np.where(rng.random(30) < 0.5, 1, -1)
        i, j = sorted(rng.choice(30, size=2, replace=False).tolist())
        present = np.all(g.edges == [i, j], axis=1)
        other = g.edges[~present] if present.any() else np.vstack([g.edges, [[i, j]]])
        a = Graph(edges=g.edges, n=30).adjacency() @ labels
        b = Graph(edges=other, n=30).adjacency() @ labels
        assert np.abs(a - b).sum() == 2


def test_majority_vote_noise_scale():
    allocation = solve([vote_plan()], Budget(epsilon=2.0))[vote_plan().name]
    assert allocation.scale == pytest.approx(1.0)
    graph = Graph(edges=GRAPH.edges, n=60)
    labels = GRAPH.labels
    draws = np.concatenate([
        majority_vote(graph, labels, allocation, rng=np.random.default_rng(k), ledger=Ledger())
        - graph.adjacency() @ labels for k in range(100)])
    assert stats.kstest(draws, stats.laplace(scale=1.0).cdf).pvalue > 1e-3


def test_randomized_response_flip_rate():
    g = Graph(edges=GRAPH.edges, n=60)
    p = flip_probability(1.0)
    pairs = 60 * 59 // 2
    flipped = []
    for k in range(20):
        _, noisy = randomized_response_graph(g, 1.0, np.random.default_rng(k))
        original = g.adjacency()
        upper = (noisy.toarray() != np.triu(original.toarray()))[np.triu_indices(60, 1)]
        flipped.append(upper.sum())
    lo, hi = stats.binom.ppf([1e-4, 1 - 1e-4], 20 * pairs, p)
    assert lo <= sum(flipped) <= hi


def test_audit_randomized_response():
    def pair_bit(graph, rng):
        return float(randomized_response_graph(graph, 1.0, rng)[1][0, 1])

    def sampler(graph, rng, size):
        return np.array([pair_bit(graph, rng) for _ in range(size)])

    with_edge = Graph(edges=np.array([[0, 1], [1, 2]]), n=3)
    without = Graph(edges=np.array([[1, 2]]), n=3)
    result = audit(sampler, with_edge, without, claimed_epsilon=1.0, trials=10_000, seed=3)
    assert result.passed
    assert result.epsilon_lower > 0.8  # randomized response is tight: the audit sees most of ε


def test_audit_majority_voting():
    allocation = solve([vote_plan()], Budget(epsilon=1.0))[vote_plan().name]
    labels = np.array([1, 1, -1, -1])

    def sampler(graph, rng, size):
        noise = rng.laplace(0.0, allocation.scale, size=size)  # the vote's own draw
        return (graph.adjacency() @ labels)[0] + noise

    def one_run(graph, rng, size):
        return np.array([majority_vote(graph, labels, allocation, rng=rng, ledger=Ledger())[0]
                         for _ in range(size)])

    a = Graph(edges=np.array([[0, 1], [0, 2]]), n=4)
    b = Graph(edges=np.array([[0, 2]]), n=4)
    assert audit(one_run, a, b, claimed_epsilon=1.0, trials=4_000, seed=5).passed
    assert audit(sampler, a, b, claimed_epsilon=1.0, trials=200_000, seed=5).passed


def test_exponential_enumeration_matches_closed_form():
    g = stochastic_block_model(8, 3.0, 0.8, seed=2)
    graph = Graph(edges=g.edges, n=8)
    labellings = balanced_labellings(8)
    assert labellings.shape == (70, 8) and np.all(labellings.sum(axis=1) == 0)
    utilities = agreement(labellings, graph)
    a = graph.adjacency().toarray()
    assert np.array_equal(utilities, [0.5 * x @ a @ x for x in labellings])
    epsilon = 1.5
    closed = np.exp(epsilon * utilities / 2)
    closed /= closed.sum()
    rng = np.random.default_rng(0)
    draws = np.bincount([exponential(utilities.astype(float), sensitivity=1.0, epsilon=epsilon,
                                     rng=rng, ledger=Ledger(), name="x")
                         for _ in range(20_000)], minlength=70)
    expected = closed * 20_000
    keep = expected >= 5
    chi2 = np.sum((draws[keep] - expected[keep]) ** 2 / expected[keep])
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3


PRIVATE = ["weak_recovery", "exact_recovery", "gauss_adjacency", "randomized_response",
           "exponential"]
SWITCH = [(name, exact) for name in PRIVATE for exact in (True, False)
          if exact or "exact_accounting" in {p.name for p in ESTIMATORS[name].params}]


@pytest.mark.parametrize(("name", "exact"), SWITCH)
@pytest.mark.parametrize("method", METHODS)
def test_ledger_never_exceeds_the_budget(name, method, exact):
    params = dict(MODEL)
    if "exact_accounting" in {p.name for p in ESTIMATORS[name].params}:
        params["exact_accounting"] = exact
    graph = stochastic_block_model(16, 6.0, 0.8, seed=1) if name == "exponential" else GRAPH
    result = dpviz.run("sbm", name, graph, epsilon=2.0, delta=1e-6, accounting=method, seed=0,
                       **params)
    total = result.ledger.total()
    assert total.epsilon <= 2.0 * (1 + 1e-9)
    assert total.delta <= 1e-6
    if name in ("exact_recovery", "exponential"):
        assert {r.part for r in result.ledger.releases} == {"G1", "G2"}
        assert "parallel composition" in result.choices["composition"]


def test_split_gives_each_part_the_whole_budget():
    result = dpviz.run("sbm", "exact_recovery", GRAPH, epsilon=2.0, delta=1e-6, **MODEL)
    vote = next(r for r in result.ledger.releases if r.part == "G2")
    assert vote.epsilon == pytest.approx(2.0, rel=1e-5)  # not ε/2: parallel composition
    assert result.ledger.total().epsilon == pytest.approx(2.0, rel=1e-6)


def test_gaussian_estimators_need_delta():
    with pytest.raises(BudgetError, match="delta > 0"):
        dpviz.run("sbm", "weak_recovery", GRAPH, epsilon=1.0, **MODEL)


def test_plan_helpers_match_solver():
    plan = [PlannedRelease("x", "gaussian", 1.0)]
    z = solve(plan, Budget(epsilon=1.0, delta=1e-6, method="pld"))["x"].multiplier
    assert z == pytest.approx(1 / analytic_gaussian_mu(1.0, 1e-6))


# --- review findings ---

@pytest.mark.parametrize("name", ["exponential", "randomized_response"])
def test_pure_algorithms_stay_pure_when_delta_is_given(name):
    graph = stochastic_block_model(16, 6.0, 0.8, seed=1) if name == "exponential" else GRAPH
    result = dpviz.run("sbm", name, graph, epsilon=1.0, delta=1e-3, accounting="pld", seed=0,
                       **MODEL)
    assert all((r.delta or 0.0) == 0.0 for r in result.ledger.releases)
    assert max(r.epsilon for r in result.ledger.releases) == pytest.approx(1.0, abs=1e-9)
    if name == "randomized_response":
        assert result.choices["flip_probability"] == pytest.approx(flip_probability(1.0))


def test_a_hand_built_graph_with_an_edge_twice_is_refused():

    twice = Graph(edges=np.array([[0, 1], [0, 1], [1, 2]]), n=3)
    with pytest.raises(ValueError, match="list the same edge twice"):
        dpviz.run("sbm", "exact_recovery", twice, epsilon=1.0, delta=1e-6, **MODEL)


def test_an_uncertified_projection_releases_nothing_and_says_the_failure_is_not_private(
        monkeypatch):
    from dpviz.estimators.sbm.projection import NotCertifiedError

    def fail(*args, **kwargs):
        raise NotCertifiedError("not certified within 200 iterations")

    monkeypatch.setattr(weak, "certified_projection", fail)
    result = dpviz.run("sbm", "weak_recovery", GRAPH, epsilon=1.0, delta=1e-6, **MODEL)
    assert result.estimate["labels"] is None and not result.ledger.releases
    assert result.failed and "not covered by the privacy guarantee" in result.not_private
