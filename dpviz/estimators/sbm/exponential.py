"""The exponential mechanism over balanced labellings, then majority voting.

Seed 003, Algorithm 5.19; ALGORITHMS.md §7.

Split the edges as exact recovery does. On G₁ sample a balanced labelling x with probability
∝ ``exp(ε·u(x)/2)``, ``u(x, G₁) = ½ xᵀA(G₁)x = Σ_{ij ∈ E(G₁)} xᵢxⱼ``: one edge moves u by
``xᵢxⱼ = ±1``, so its sensitivity is 1. Then private majority voting on G₂
(:func:`~dpviz.estimators.sbm.exact.majority_vote`).

**Which ε.** The paper's lemma states 2ε (both steps on one graph compose). With the split,
an edge lies in exactly one part, so the whole is ε-edge-DP by parallel composition; the
ledger records the two releases in parts G1 and G2 and the UI shows that ε (the ledger's
total), with the reason in ``choices["composition"]``.

**Sampling.** For n ≤ 20 the distribution is sampled exactly: every balanced labelling
(C(20, 10) = 184 756) is enumerated and one is drawn by the Gumbel-max trick. For larger n
a Metropolis chain over balanced swaps is run instead; it has no mixing bound, so its
output is not known to follow the mechanism's distribution and the result carries **no
privacy guarantee** (``not_private`` says so; never "approximately ε-DP").
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from dpviz.core import limits
from dpviz.data.graphs import Graph, balanced_labels
from dpviz.estimators.result import Result
from dpviz.estimators.sbm.common import (
    TIE_BREAKING,
    IntArray,
    graph_input,
    guarantee,
    labels_from_scores,
    model,
    pure_budget,
)
from dpviz.estimators.sbm.exact import PARALLEL, majority_vote, split_edges, vote_plan
from dpviz.privacy import Budget, Ledger, PlannedRelease, exponential, solve

NO_GUARANTEE = ("no privacy guarantee: n > 20, so the exponential mechanism is run as a "
                "Metropolis chain, which has no mixing bound; its output is not known to "
                "follow the mechanism's distribution")


def balanced_labellings(n: int) -> IntArray:
    """Every labelling of n vertices with ``⌊n/2⌋`` +1's, one per row (``C(n, ⌊n/2⌋) × n``).

    Examples
    --------
    >>> balanced_labellings(4).tolist()[:2]
    [[1, 1, -1, -1], [1, -1, 1, -1]]
    """
    rows = list(itertools.combinations(range(n), n // 2))
    out = np.full((len(rows), n), -1, dtype=np.int64)
    out[np.repeat(np.arange(len(rows)), n // 2), np.array(rows, dtype=np.int64).ravel()] = 1
    return out


def agreement(labellings: IntArray, graph: Graph) -> IntArray:
    """``u(x) = ½ xᵀAx = Σ_{ij ∈ E} xᵢxⱼ`` of every labelling (the utility, sensitivity 1)."""
    i, j = graph.edges[:, 0], graph.edges[:, 1]
    return np.sum(labellings[:, i] * labellings[:, j], axis=1)


def metropolis_labels(graph: Graph, epsilon: float, steps: int,
                      rng: np.random.Generator) -> IntArray:
    """A Metropolis chain over balanced swaps targeting ∝ ``exp(ε u/2)`` (no mixing bound).

    Swapping i (+1) and j (−1) changes u by ``−2xᵢsᵢ − 2xⱼsⱼ + 4xᵢxⱼAᵢⱼ``, ``s = Ax``.
    """
    adjacency = graph.adjacency()
    x = balanced_labels(graph.n, rng)
    s = adjacency @ x.astype(float)
    for _ in range(steps):
        plus, minus = np.flatnonzero(x == 1), np.flatnonzero(x == -1)
        i, j = int(rng.choice(plus)), int(rng.choice(minus))
        change = (-2 * x[i] * s[i] - 2 * x[j] * s[j]
                  + 4 * x[i] * x[j] * adjacency[i, j])
        if math.log(rng.random() + 1e-300) < epsilon * change / 2:
            column_i = adjacency.getrow(i).toarray().ravel()
            column_j = adjacency.getrow(j).toarray().ravel()
            s -= 2 * x[i] * column_i + 2 * x[j] * column_j
            x[i], x[j] = -x[i], -x[j]
    return x


def private_exponential(data: Any, budget: Budget, *, rng: np.random.Generator,
                        degree: float, signal: float, n: int | None = None,
                        split_probability: float = 0.5, chain_steps: int = 20,
                        radius: Any = None) -> Result:
    """The exponential mechanism on G₁, then private majority voting on G₂ (Algorithm 5.19).

    Parameters
    ----------
    data : Graph, networkx.Graph or array-like
        The graph (an edge array needs ``n``).
    budget : Budget
        ε (δ is not used: both steps are pure).
    rng : numpy.random.Generator
        The split, the sample and the noise.
    degree, signal : float
        The public model parameters (validated; the mechanism itself does not use them).
    n : int, optional
        Vertices, for an edge array.
    split_probability : float
        The chance an edge goes to G₁.
    chain_steps : int
        For n > 20: Metropolis proposals per vertex.
    radius : None
        Refused if given.

    Returns
    -------
    Result
        ``labels`` the votes; ``diagnostics["scores"]`` the noisy sums,
        ``diagnostics["weak_labels"]`` the sampled labelling of G₁.

    Examples
    --------
    >>> from dpviz.data.graphs import stochastic_block_model
    >>> g = stochastic_block_model(12, 6.0, 0.9, seed=0)
    >>> r = private_exponential(g, Budget(epsilon=2.0), rng=np.random.default_rng(0),
    ...                         degree=6.0, signal=0.9)
    >>> r.not_private is None, r.ledger.total().epsilon
    (True, 2.0)
    """
    graph = graph_input(data, n, radius, dense=True)
    model(degree, signal)
    budget = pure_budget(budget)
    first, second = split_edges(graph, split_probability, rng)
    ledger = Ledger(budget)
    exact = graph.n <= limits.SBM_ENUMERATION_VERTICES
    plan = [PlannedRelease("exponential mechanism on G1", "pure", 1.0, part="G1")]
    epsilon = float(solve(plan, budget)[plan[0].name].epsilon or 0.0)
    if exact:
        labellings = balanced_labellings(graph.n)
        index = exponential(agreement(labellings, first).astype(float), sensitivity=1.0,
                            epsilon=epsilon, rng=rng, ledger=ledger, name=plan[0].name,
                            part="G1")
        weak_labels = labellings[index]
    else:
        weak_labels = metropolis_labels(first, epsilon, chain_steps * graph.n, rng)
    vote = solve([vote_plan()], budget)[vote_plan().name]
    scores = majority_vote(second, weak_labels, vote, rng=rng, ledger=ledger)
    sampler = ("exact: every balanced labelling enumerated, Gumbel-max" if exact else
               f"Metropolis chain, {chain_steps} balanced swaps per vertex (no mixing bound)")
    return Result(
        estimate={"labels": labels_from_scores(scores)}, ledger=ledger,
        not_private=None if exact else NO_GUARANTEE,
        choices={"sampler": sampler, "split_probability": split_probability,
                 "vote_noise": "Laplace, L1 sensitivity 2", "composition": PARALLEL,
                 "epsilon_shown": "the ledger's total, epsilon by the split argument (the "
                                  "paper's lemma states 2 epsilon: both steps on one graph)",
                 "tie_breaking": TIE_BREAKING, "accounting": budget.describe()},
        diagnostics={"scores": scores, "weak_labels": weak_labels, "vote_scale": vote.scale,
                     "guarantee": (guarantee(budget) + " (parallel composition over the split)"
                                   if exact else "none: Metropolis chain, no mixing bound")})
