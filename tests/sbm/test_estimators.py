"""The SBM estimators through the registry: contract, determinism, bad input, accuracy."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import dpviz
from dpviz.core import limits
from dpviz.data.graphs import as_graph, karate_club, stochastic_block_model
from dpviz.estimators.metrics import community_error
from dpviz.estimators.sbm import (
    ESTIMATORS,
    PreparedGraph,
    kesten_stigum,
    prepare_graph,
    private_weak_recovery,
)
from dpviz.privacy import Budget

GRAPH = stochastic_block_model(200, 30.0, 0.8, seed=0)
MODEL = {"degree": 30.0, "signal": 0.8}
SMALL = stochastic_block_model(14, 6.0, 0.9, seed=0)


def run(name, graph=GRAPH, seed=0, **extra):
    params = {**MODEL, **extra}
    if name == "exponential" and graph is GRAPH:
        graph, params = SMALL, {"degree": 6.0, "signal": 0.9, **extra}
    return dpviz.run("sbm", name, graph, epsilon=8.0, delta=1e-6, seed=seed, **params)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_contract_and_determinism(name):
    a, b = run(name), run(name)
    labels = a.estimate["labels"]
    assert labels.dtype.kind == "i" and set(np.unique(labels)) <= {-1, 1}
    assert np.array_equal(labels, b.estimate["labels"])
    assert np.array_equal(a.diagnostics["scores"], b.diagnostics["scores"])
    assert isinstance(a.diagnostics["guarantee"], str)
    assert a.to_dict()["labels"] == labels.tolist()
    if ESTIMATORS[name].notion == "none":
        assert a.not_private and not a.ledger.releases
    if name in ("exact_recovery", "exponential"):
        assert set(np.unique(a.diagnostics["weak_labels"])) == {-1, 1}


@pytest.mark.parametrize("name", ["weak_recovery", "exact_recovery", "randomized_response",
                                  "gauss_adjacency", "exponential"])
def test_another_seed_gives_other_noise(name):
    assert not np.array_equal(run(name).diagnostics["scores"],
                              run(name, seed=1).diagnostics["scores"])


@pytest.mark.parametrize("name", ["spectral", "projection", "weak_recovery", "exact_recovery",
                                  "randomized_response"])
def test_recovers_an_easy_graph(name):
    truth = GRAPH.labels
    assert community_error(truth, run(name).estimate["labels"]) <= 0.05


def test_weak_recovery_diagnostics_and_cached_projection():
    prepared = prepare_graph(GRAPH, **MODEL)
    projection = prepared.projection
    budget = Budget(epsilon=2.0, delta=1e-6)
    cached = private_weak_recovery(prepared, budget, rng=np.random.default_rng(0), **MODEL)
    fresh = private_weak_recovery(GRAPH, budget, rng=np.random.default_rng(0), **MODEL)
    assert np.array_equal(cached.estimate["labels"], fresh.estimate["labels"])
    d = cached.diagnostics
    assert d["projection_cached"] and not fresh.diagnostics["projection_cached"]
    assert d["certificate"] <= d["tolerance"] == pytest.approx(d["sensitivity"] / 50)
    assert d["eigendecompositions"] == projection.eigendecompositions + 1
    assert cached.choices["tolerance_fraction"] == 0.02
    other = stochastic_block_model(200, 30.0, 0.8, seed=1)
    with pytest.raises(ValueError, match="another graph"):
        private_weak_recovery(PreparedGraph(as_graph(other), projection), budget,
                              rng=np.random.default_rng(0), **MODEL)
    with pytest.raises(ValueError, match="another graph"):  # same graph, another signal
        private_weak_recovery(prepared, budget, rng=np.random.default_rng(0), degree=30.0,
                              signal=0.7)
    for name in ("spectral", "randomized_response", "exact_recovery"):  # they use the graph
        via_prepared = dpviz.run("sbm", name, prepared, epsilon=2.0, delta=1e-6, seed=0,
                                 **MODEL)
        direct = dpviz.run("sbm", name, GRAPH, epsilon=2.0, delta=1e-6, seed=0, **MODEL)
        assert np.array_equal(via_prepared.estimate["labels"], direct.estimate["labels"])


def test_exponential_guarantee_depends_on_the_sampler():
    exact = run("exponential")
    assert exact.not_private is None and "chain" not in exact.choices["sampler"]
    chain = dpviz.run("sbm", "exponential", stochastic_block_model(40, 10.0, 0.9, seed=0),
                      epsilon=4.0, degree=10.0, signal=0.9, chain_steps=5)
    assert "no privacy guarantee" in chain.not_private
    assert "approximately" not in chain.not_private
    assert chain.diagnostics["guarantee"].startswith("none")


def test_networkx_and_edge_array_inputs_agree():
    karate = karate_club()
    params = {"degree": karate.degree, "signal": karate.signal}
    from_nx = dpviz.run("sbm", "spectral", nx.karate_club_graph(), epsilon=1.0, seed=0,
                        **params)
    from_array = dpviz.run("sbm", "spectral", karate.edges, n=34, epsilon=1.0, seed=0,
                           **params)
    assert np.array_equal(from_nx.estimate["labels"], from_array.estimate["labels"])
    assert community_error(karate.labels, from_nx.estimate["labels"]) <= 2 / 34


@pytest.mark.parametrize(("name", "kwargs", "sentence"), [
    ("weak_recovery", {"degree": 30.0}, "needs the parameter 'signal'"),
    ("spectral", {"signal": 0.5}, "needs the parameter 'degree'"),
    ("weak_recovery", {**MODEL, "signal": 0.0}, "signal must be"),
    ("weak_recovery", {**MODEL, "radius": 1.0}, "no clipping radius"),
    ("weak_recovery", {**MODEL, "tolerance_fraction": 0.0}, "tolerance_fraction must be"),
])
def test_bad_parameters(name, kwargs, sentence):
    with pytest.raises(ValueError, match=sentence):
        dpviz.run("sbm", name, GRAPH, epsilon=1.0, delta=1e-6, **kwargs)


def test_size_limits():
    big = limits.SBM_PROJECTION_VERTICES + 1
    for name in ("weak_recovery", "exact_recovery", "projection", "gauss_adjacency"):
        with pytest.raises(ValueError, match=f"at most n = {limits.SBM_PROJECTION_VERTICES}"):
            dpviz.run("sbm", name, [[0, 1]], n=big, epsilon=1.0, delta=1e-6, **MODEL)
    with pytest.raises(ValueError, match="million noisy pairs"):
        dpviz.run("sbm", "randomized_response", [[0, 1]], n=20_000, epsilon=0.1, **MODEL)
    with pytest.raises(ValueError, match="n must be"):
        dpviz.run("sbm", "spectral", [[0, 1]], n=20_001, epsilon=1.0, **MODEL)


def test_kesten_stigum():
    assert kesten_stigum(100.0, 0.5) == 25.0 and kesten_stigum(3.0, 0.5) < 1
