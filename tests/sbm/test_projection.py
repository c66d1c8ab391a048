"""The certified projection: sensitivity on neighbouring graphs, and the certificate."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpviz.data.graphs import Graph, stochastic_block_model
from dpviz.estimators.sbm.projection import (
    NotCertifiedError,
    certified_projection,
    nearest_correlation,
    projection_sensitivity,
    scaled_centred_adjacency,
)

TIGHT = 1e-6  # of Δ: the ratios below are exact to this


def tight(graph, degree, signal):
    delta = projection_sensitivity(graph.n, degree, signal)
    return certified_projection(graph, None, degree, signal, tolerance=TIGHT * delta)


def neighbour(graph, pair):
    """The graph with the edge ``pair`` toggled (added if absent, removed if present)."""
    i, j = sorted(pair)
    present = np.all(graph.edges == [i, j], axis=1)
    edges = graph.edges[~present] if present.any() else np.vstack([graph.edges, [[i, j]]])
    return Graph(edges=edges[np.lexsort((edges[:, 1], edges[:, 0]))], n=graph.n)


def ratio(graph, pair, degree, signal):
    a, b = tight(graph, degree, signal), tight(neighbour(graph, pair), degree, signal)
    return np.linalg.norm(a.matrix - b.matrix) / projection_sensitivity(graph.n, degree, signal)


def test_sensitivity_random_graphs_and_adversarial_edges():
    worst = 0.0
    for seed in range(3):
        g = stochastic_block_model(40, 8.0, 0.6, seed=seed)
        graph = Graph(edges=g.edges, n=g.n)
        rng = np.random.default_rng(seed)
        hubs = np.argsort(-graph.degrees())[:4]
        pairs = [tuple(p) for p in itertools.combinations(hubs.tolist(), 2)]
        pairs += [tuple(rng.choice(40, size=2, replace=False).tolist()) for _ in range(6)]
        pairs += [tuple(graph.edges[k].tolist()) for k in range(3)]  # removals
        worst = max(worst, *(ratio(graph, p, 8.0, 0.6) for p in pairs))
    assert 0.05 < worst < 1.0


def test_sensitivity_small_graphs_all_neighbours():
    rng = np.random.default_rng(0)
    pairs = list(itertools.combinations(range(6), 2))
    worst = 0.0
    for _ in range(25):  # n = 6, d = 1, ε_s = 1: Δ = 2/√6
        mask = rng.random(15) < 0.5
        mask[0] = True
        graph = Graph(edges=np.array([p for p, m in zip(pairs, mask, strict=True) if m]), n=6)
        for p in pairs:
            if len(graph.edges) == 1 and tuple(graph.edges[0]) == p:
                continue
            worst = max(worst, ratio(graph, p, 1.0, 1.0))
    assert 0.3 < worst < 1.0


def test_certificate_bounds_the_true_distance():
    g = stochastic_block_model(150, 20.0, 0.5, seed=2)
    truth = tight(g, 20.0, 0.5)
    for fraction in (0.5, 0.05, 0.005):
        tau = fraction * projection_sensitivity(150, 20.0, 0.5)
        p = certified_projection(g, None, 20.0, 0.5, tolerance=tau)
        distance = np.linalg.norm(p.matrix - truth.matrix)
        assert p.certificate <= tau
        assert distance <= p.certificate + truth.certificate
    assert truth.iterations >= p.iterations


def test_projection_is_in_the_set_and_counts_work():
    g = stochastic_block_model(100, 20.0, 0.5, seed=4)
    p = certified_projection(g, None, 20.0, 0.5)
    assert np.allclose(np.diag(p.matrix), 1 / 100)
    assert np.linalg.eigvalsh(p.matrix).min() > -1e-12
    assert p.eigendecompositions >= p.iterations + 1
    assert p.tolerance == pytest.approx(0.02 * p.sensitivity)


def test_solver_refuses_to_release_uncertified():
    g = stochastic_block_model(60, 20.0, 0.5, seed=0)
    with pytest.raises(NotCertifiedError, match="could not certify"):
        nearest_correlation(scaled_centred_adjacency(g, 20.0, 0.5), 1e-3, max_iterations=0)


def test_sensitivity_formula_branches():
    assert projection_sensitivity(1000, 100.0, 0.5) == pytest.approx(2 / np.sqrt(50_000))
    assert projection_sensitivity(10, 8.0, 1.0) == pytest.approx(np.sqrt(2) / 8)
