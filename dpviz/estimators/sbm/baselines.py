"""Baselines for SBM community recovery (ALGORITHMS.md §7, Baselines).

- :func:`spectral`: non-private; the top eigenvector of the centred adjacency
  ``A − (d/n)(J − I)`` (not the Bethe Hessian: in sparse graphs this eigenvector can
  localise on hubs, which the page should say).
- :func:`randomized_response`: flip every vertex pair with probability ``p = 1/(1 + e^ε)``
  (ε-edge-DP: each pair is one bit, and neighbouring graphs differ in one bit), debias
  ``(Ã − p)/(1 − 2p)``, then the same spectral step. Post-processing costs nothing. Under
  secure randomness the flips are exact Bernoulli draws from cryptographic bits at a ``p``
  at most 2^-40 above (:func:`dpviz.privacy.randomized_response`), and the debiasing uses it.
- :func:`gauss_adjacency`: Gaussian noise on the strict upper triangle of A, whose L2
  sensitivity is 1, then the spectral step: what the projection buys over plain noise.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from dpviz.core import limits
from dpviz.data.graphs import Graph
from dpviz.estimators.result import Result
from dpviz.estimators.sbm.common import (
    TIE_BREAKING,
    FloatArray,
    IntArray,
    accounting,
    centred_matvec,
    graph_input,
    guarantee,
    labels_from_scores,
    model,
    pure_budget,
    top_eigenvector,
    top_eigenvector_dense,
)
from dpviz.privacy import Budget, Ledger, PlannedRelease, flip_probability, release, solve
from dpviz.privacy import randomized_response as record_randomized_response


def spectral(data: Any, budget: Budget, *, rng: np.random.Generator, degree: float,
             signal: float, n: int | None = None, radius: Any = None) -> Result:
    """Non-private spectral recovery: the sign of the centred adjacency's top eigenvector.

    Examples
    --------
    >>> from dpviz.data.graphs import stochastic_block_model
    >>> g = stochastic_block_model(400, 30.0, 0.6, seed=0)
    >>> r = spectral(g, Budget(epsilon=1.0), rng=np.random.default_rng(0), degree=30.0,
    ...              signal=0.6)
    >>> from dpviz.estimators.metrics import community_error
    >>> community_error(g.labels, r.estimate["labels"]) < 0.1
    True
    """
    graph = graph_input(data, n, radius, dense=False)
    degree, _ = model(degree, signal)
    scores = top_eigenvector(centred_matvec(graph.adjacency(), degree / graph.n), graph.n)
    return Result(estimate={"labels": labels_from_scores(scores)}, ledger=Ledger(budget),
                  choices={"spectral_variant": "centred adjacency A − (d/n)(J − I)",
                           "tie_breaking": TIE_BREAKING},
                  not_private="non-private reference: the graph is used without noise",
                  diagnostics={"scores": scores, "guarantee": "none: no noise"})


def _pair_offsets(n: int) -> IntArray:
    """Row-major index of the first strict-upper-triangle pair ``(i, i + 1)`` of each row."""
    i = np.arange(n, dtype=np.int64)
    return i * n - i * (i + 1) // 2


def randomized_response_graph(graph: Graph, epsilon: float, rng: np.random.Generator,
                              ledger: Ledger | None = None) -> tuple[float, sp.csr_matrix]:
    """The flip probability and the noisy graph's strict upper triangle (CSR).

    Every pair is flipped with probability ``1/(1 + e^ε)`` (secure: at most 2^-40 more).

    Non-edges are never enumerated: the flipped pairs are a Bernoulli subset of all
    ``n(n − 1)/2`` pairs (:func:`~dpviz.privacy.randomized_response`, exact from cryptographic
    bits under secure randomness), XOR-ed with the edges. The release is recorded in
    ``ledger`` (a scratch one if none).
    """
    n = graph.n
    offsets = _pair_offsets(n)
    edge_index = offsets[graph.edges[:, 0]] + graph.edges[:, 1] - graph.edges[:, 0] - 1
    p, flips = record_randomized_response(
        epsilon, bits=n * (n - 1) // 2, rng=rng, ledger=Ledger() if ledger is None else ledger,
        name="randomized response, every pair (flip probability in 'scale')")
    noisy = np.setxor1d(edge_index, flips, assume_unique=True)
    rows = np.searchsorted(offsets, noisy, side="right") - 1
    cols = noisy - offsets[rows] + rows + 1
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
    return p, sp.csr_matrix((np.ones(noisy.size), cols, indptr), shape=(n, n))


def randomized_response(data: Any, budget: Budget, *, rng: np.random.Generator,
                        degree: float, signal: float, n: int | None = None,
                        radius: Any = None) -> Result:
    """Randomized response on every pair, debiased, then spectral; ε-edge-DP (pure).

    Parameters
    ----------
    data : Graph, networkx.Graph or array-like
        The graph (an edge array needs ``n``).
    budget : Budget
        The target; the whole ε goes to the one randomized response (δ is not used).
    rng : numpy.random.Generator
        The flips.
    degree, signal : float
        The public ``d`` (for centring) and ``ε_s`` (unused by the estimate).
    n : int, optional
        Vertices, for an edge array.
    radius : None
        Refused if given.

    Examples
    --------
    >>> from dpviz.data.graphs import stochastic_block_model
    >>> g = stochastic_block_model(300, 40.0, 0.8, seed=0)
    >>> r = randomized_response(g, Budget(epsilon=4.0), rng=np.random.default_rng(0),
    ...                         degree=40.0, signal=0.8)
    >>> r.ledger.total().epsilon
    4.0
    """
    graph = graph_input(data, n, radius, dense=False)
    degree, _ = model(degree, signal)
    budget = pure_budget(budget)
    plan = [PlannedRelease("randomized response, every pair", "pure", sensitivity=1.0)]
    epsilon = float(solve(plan, budget)[plan[0].name].epsilon or 0.0)
    ledger = Ledger(budget)
    pairs = graph.n * (graph.n - 1) // 2
    expected = flip_probability(epsilon) * pairs
    if expected > limits.SBM_RR_PAIRS:
        raise ValueError(
            f"randomized response at n = {graph.n} and epsilon = {epsilon:.3g} would hold "
            f"about {expected / 1e6:.0f} million noisy pairs, over the "
            f"{limits.SBM_RR_PAIRS // 1_000_000} million dpviz keeps in memory; use a "
            "larger epsilon or a smaller graph")
    p, upper = randomized_response_graph(graph, epsilon, rng, ledger)
    symmetric = (upper + upper.T).tocsr()
    shift = (p + (1 - 2 * p) * degree / graph.n)
    scores = top_eigenvector(centred_matvec(symmetric, shift, 1 / (1 - 2 * p)), graph.n)
    return Result(
        estimate={"labels": labels_from_scores(scores)}, ledger=ledger,
        choices={"flip_probability": p, "debiasing": "(Ã − p)/(1 − 2p)",
                 "spectral_variant": "centred adjacency of the debiased graph",
                 "tie_breaking": TIE_BREAKING, "accounting": budget.describe()},
        diagnostics={"scores": scores, "noisy_pairs": int(upper.nnz),
                     "noise_scale": p, "guarantee": guarantee(_pure(budget, epsilon))})


def _pure(budget: Budget, epsilon: float) -> Budget:
    """The guarantee a pure-ε release actually gives (δ = 0)."""
    return budget if budget.non_private else Budget(epsilon=epsilon)


def gauss_adjacency(data: Any, budget: Budget, *, rng: np.random.Generator, degree: float,
                    signal: float, n: int | None = None, exact_accounting: bool = True,
                    radius: Any = None) -> Result:
    """Gaussian noise on the strict upper triangle of A (L2 sensitivity 1), then spectral.

    Examples
    --------
    >>> from dpviz.data.graphs import stochastic_block_model
    >>> g = stochastic_block_model(100, 20.0, 0.5, seed=0)
    >>> r = gauss_adjacency(g, Budget(epsilon=1.0, delta=1e-6, method="pld"),
    ...                     rng=np.random.default_rng(0), degree=20.0, signal=0.5)
    >>> round(r.diagnostics["noise_scale"], 3)
    4.225
    """
    graph = graph_input(data, n, radius, dense=True)
    degree, _ = model(degree, signal)
    budget = accounting(budget, exact_accounting)
    plan = [PlannedRelease("adjacency, strict upper triangle", "gaussian", 1.0)]
    allocation = solve(plan, budget)[plan[0].name]
    ledger = Ledger(budget)
    size = graph.n
    iu = np.triu_indices(size, 1)
    dense = graph.adjacency().toarray()
    noisy_upper = np.asarray(release(dense[iu], allocation, rng=rng, ledger=ledger))
    centred: FloatArray = np.zeros((size, size))
    centred[iu] = noisy_upper - degree / size
    centred += centred.T
    scores = top_eigenvector_dense(centred)
    return Result(
        estimate={"labels": labels_from_scores(scores)}, ledger=ledger,
        choices={"noise": "Gaussian on the strict upper triangle of A, L2 sensitivity 1",
                 "spectral_variant": "centred noisy adjacency", "tie_breaking": TIE_BREAKING,
                 "accounting": budget.describe()},
        diagnostics={"scores": scores, "noise_scale": allocation.scale, "sensitivity": 1.0,
                     "guarantee": guarantee(budget)})
