"""Private exact recovery (seed 003, Algorithms 5.12 and 5.13; ALGORITHMS.md §7).

Split the edges at random: each edge goes to G₁ with probability q (1/2 in the paper), the
rest to G₂. G₁ is then an SBM with degree ``q·d``, so weak recovery on G₁ uses ``d₁ = q·d``
in ``Y`` and in Δ. Its labels, balanced (+1 on the ⌊n/2⌋ largest scores), feed **private
majority voting** on G₂: ``x̃ᵥ = sign(Σ_{u ∈ N_{G₂}(v)} x̂ᵤ + Lap(2/ε))``. One edge {u, v}
moves exactly two sums (v's by x̂ᵤ, u's by x̂ᵥ): L1 sensitivity 2.

Privacy: (ε, δ), not (2ε, δ). The split uses fresh randomness independent of the data and
each edge lands in exactly one part; on neighbouring graphs only the part holding the edge
that differs changes, and each part's release is private for its part's budget with the
other part fixed (weak recovery is (ε, δ)-DP in G₁; voting is ε-DP in G₂ for any fixed
labels). The ledger records the releases with ``part`` ``G1`` and ``G2`` and composes them
in parallel (the maximum over parts, ALGORITHMS.md §1.2).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpviz.data.graphs import Graph
from dpviz.estimators.result import Result
from dpviz.estimators.sbm.common import (
    TIE_BREAKING,
    FloatArray,
    IntArray,
    accounting,
    balanced_from_scores,
    graph_input,
    guarantee,
    labels_from_scores,
    model,
)
from dpviz.estimators.sbm.projection import (
    TOLERANCE_FRACTION,
    UNCERTIFIED,
    NotCertifiedError,
    certified_projection,
    projection_sensitivity,
)
from dpviz.estimators.sbm.weak import release_projection
from dpviz.privacy import Allocation, Budget, Ledger, PlannedRelease, release, solve

PARALLEL = ("parallel composition over a fresh random edge split: each edge lies in exactly "
            "one of G1, G2, so the total is (epsilon, delta), not (2 epsilon, delta)")


def split_edges(graph: Graph, probability: float,
                rng: np.random.Generator) -> tuple[Graph, Graph]:
    """Each edge to G₁ with probability ``probability`` (independent coins), else to G₂.

    Examples
    --------
    >>> g = Graph(edges=np.array([[0, 1], [0, 2], [1, 2]]), n=3)
    >>> g1, g2 = split_edges(g, 0.5, np.random.default_rng(0))
    >>> len(g1.edges) + len(g2.edges)
    3
    """
    first = rng.random(len(graph.edges)) < probability
    return (Graph(edges=graph.edges[first], n=graph.n),
            Graph(edges=graph.edges[~first], n=graph.n))


def vote_plan(part: str = "G2") -> PlannedRelease:
    """Majority voting's one release: n neighbour sums, L1 sensitivity 2 (Algorithm 5.13)."""
    return PlannedRelease("majority votes (neighbour sums)", "laplace", 2.0, part=part)


def majority_vote(graph: Graph, labels: IntArray, allocation: Allocation, *,
                  rng: np.random.Generator, ledger: Ledger) -> FloatArray:
    """Private majority voting: ``Σ_{u ∈ N(v)} xᵤ + Lap(2/ε)`` for every v (Algorithm 5.13).

    ``ε`` is the vote's own allocation: under linear accounting the budget's ε; under the
    exact (PLD) accounting with δ > 0 the solver may give it a slightly larger ε that is
    still (ε, δ)-DP for part G₂.

    Returns the noisy sums; their sign is the vote
    (:data:`~dpviz.estimators.sbm.common.TIE_BREAKING`).
    """
    sums = graph.adjacency() @ labels.astype(float)
    return np.asarray(release(sums, allocation, rng=rng, ledger=ledger))


def private_exact_recovery(data: Any, budget: Budget, *, rng: np.random.Generator,
                           degree: float, signal: float, n: int | None = None,
                           tolerance_fraction: float = TOLERANCE_FRACTION,
                           split_probability: float = 0.5, exact_accounting: bool = True,
                           radius: Any = None) -> Result:
    """Exact recovery: weak recovery on G₁, private majority voting on G₂ (Algorithm 5.12).

    Parameters
    ----------
    data : Graph, networkx.Graph or array-like
        The graph (an edge array needs ``n``).
    budget : Budget
        (ε, δ) with δ > 0: each part gets all of it (parallel composition).
    rng : numpy.random.Generator
        The split and the noise.
    degree, signal : float
        The public ``d`` (of the whole graph) and ``ε_s``.
    n : int, optional
        Vertices, for an edge array.
    tolerance_fraction : float
        ``τ*/Δ`` of the projection on G₁.
    split_probability : float
        ``q``, the chance an edge goes to G₁.
    exact_accounting : bool
        Solve and record under ``pld`` (:func:`~dpviz.estimators.sbm.common.accounting`).
    radius : None
        Refused if given.

    Returns
    -------
    Result
        ``labels`` the votes; ``diagnostics["scores"]`` the noisy sums,
        ``diagnostics["weak_labels"]`` G₁'s balanced labels.

    Examples
    --------
    >>> from dpviz.data.graphs import stochastic_block_model
    >>> g = stochastic_block_model(80, 40.0, 0.9, seed=0)
    >>> r = private_exact_recovery(g, Budget(epsilon=8.0, delta=1e-6),
    ...                            rng=np.random.default_rng(0), degree=40.0, signal=0.9)
    >>> sorted({x.part for x in r.ledger.releases}), r.ledger.total().epsilon <= 8.0
    (['G1', 'G2'], True)
    """
    graph = graph_input(data, n, radius, dense=True)
    degree, signal = model(degree, signal)
    budget = accounting(budget, exact_accounting)
    first, second = split_edges(graph, split_probability, rng)
    degree_first = split_probability * degree
    choices = {"split_probability": split_probability, "tolerance_fraction": tolerance_fraction,
               "vote_noise": "Laplace, L1 sensitivity 2", "balancing": "+1 on the n/2 largest "
               "scores of G1", "composition": PARALLEL, "tie_breaking": TIE_BREAKING,
               "accounting": budget.describe()}
    try:
        projection = certified_projection(
            first, None, degree_first, signal,
            tolerance=tolerance_fraction * projection_sensitivity(graph.n, degree_first, signal))
    except NotCertifiedError as err:
        return Result(estimate={"labels": None}, ledger=Ledger(budget), failed=str(err),
                      not_private=UNCERTIFIED, choices=choices)
    ledger = Ledger(budget)
    weak_scores, allocation = release_projection(projection, budget, rng=rng, ledger=ledger,
                                                 part="G1")
    weak_labels = balanced_from_scores(weak_scores)
    vote = solve([vote_plan()], budget)[vote_plan().name]
    scores = majority_vote(second, weak_labels, vote, rng=rng, ledger=ledger)
    return Result(
        estimate={"labels": labels_from_scores(scores)}, ledger=ledger, choices=choices,
        diagnostics={"scores": scores, "weak_labels": weak_labels, "weak_scores": weak_scores,
                     "certificate": projection.certificate, "tolerance": projection.tolerance,
                     "sensitivity": projection.sensitivity, "noise_scale": allocation.scale,
                     "vote_scale": vote.scale,
                     "eigendecompositions": projection.eigendecompositions + 1,
                     "iterations": projection.iterations,
                     "seconds_projection": projection.seconds,
                     "edges_g1": len(first.edges), "edges_g2": len(second.edges),
                     "guarantee": guarantee(budget) + " (parallel composition over the split)"})
