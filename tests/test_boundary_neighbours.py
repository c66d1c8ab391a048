"""No refusal that depends on the private data (issue 23, privacy item 3).

A refusal is an output: if an estimator answers on a dataset and refuses on its neighbour,
seeing which happened tells the two apart with certainty, whatever ε the ledger says. So for
every registered private estimator, neighbouring inputs at the edges of validity — under the
neighbouring relation *that estimator* protects — must both answer, or both be refused with
the same sentence.

The relations (each estimator's module docstring and ALGORITHMS.md's notation):

* replace one row (bounded DP): every table estimator. ``n`` is public, so a pair has the
  same number of rows and refusals on ``n`` (``as_matrix(min_rows=2)``, "k ≤ n", "2k rows
  per half", chunk sizes) are refusals on public inputs. The pairs replace one row: at the
  clipping bound in one, outside it (just outside, far outside, at the float limit) in the
  other — at n = 1, n = 2 and a small n where the estimator can run — and make a column
  constant or not, all rows zero or not.
* one edge (edge DP): every graph estimator. ``n``, ``degree`` and ``signal`` are public;
  the pairs are the empty graph and a one-edge graph, and the complete graph and the
  complete graph less one edge. The edge count is private, so its cap
  (``limits.SBM_EDGES``) is dpviz's public data domain: a graph of that many edges and one of
  one more are not neighbours *in* the domain, and the second is refused whatever its edges
  (tests/data/test_graphs.py checks ``as_graph`` and ``read_edges`` draw that line at the same
  place, with the same sentence).

There is no add/remove-one estimator in the registry (``n`` would then be private, and the
pairs one row / two rows); :func:`test_every_private_estimator_states_its_relation` fails
when one is registered without a relation here.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import networkx as nx
import numpy as np
import pytest

import dpviz
from dpviz.estimators.registry import TASKS

REPLACE_ONE = "replace one row (n public)"
ONE_EDGE = "one edge (n public)"

#: The neighbouring relation each private estimator protects (its module docstring).
RELATION: dict[tuple[str, str], str] = {
    ("mean", "laplace"): REPLACE_ONE,  # dpviz/estimators/mean.py: replace-one, n public
    ("mean", "gaussian"): REPLACE_ONE,
    ("gmm", "dp_em"): REPLACE_ONE,  # ALGORITHMS.md §2, dp_em.py: replace-one neighbours
    ("gmm", "dplloyd"): REPLACE_ONE,  # dplloyd.py: 2(d + 1) is the replace-one sensitivity
    ("gmm", "private_pca_clustering"): REPLACE_ONE,  # kssu.py: "a replaced row leaves …"
    ("gmm", "ppe"): REPLACE_ONE,  # ppe.py: replace-one sensitivity 2(t − 1)/t²
    ("gmm", "sample_aggregate"): REPLACE_ONE,  # one_cluster.py: replace-one neighbours
    ("gmm", "stability"): REPLACE_ONE,  # stability.py: "replace row r of the subsample"
    ("gmm", "friendly_core"): REPLACE_ONE,  # friendly_core.py: one row changes one chunk
    ("gmm", "grid_means"): REPLACE_ONE,  # grid_means.py: one count −1, another +1
    ("factor_analysis", "dp_fa"): REPLACE_ONE,  # factor_analysis.py: replace-one, √2/n
    **{("covariance", name): REPLACE_ONE  # covariance/common.py: replace one row, n public
       for name in ("gauss", "separate", "adaptive", "emcov", "zero")},
    **{("sbm", name): ONE_EDGE  # sbm/__init__.py: graphs differing in one edge (edge DP)
       for name in ("weak_recovery", "exact_recovery", "exponential", "randomized_response",
                    "gauss_adjacency")},
}

PRIVATE = [(task, name) for task, ests in TASKS.items() for name, est in ests.items()
           if est.notion != "none"]

#: Small, fast settings under which each estimator can answer at the table's small n.
PARAMS: dict[tuple[str, str], dict[str, Any]] = {
    ("gmm", "dp_em"): {"k": 1, "iterations": 2},
    ("gmm", "dplloyd"): {"k": 1, "iterations": 2},
    ("gmm", "private_pca_clustering"): {"k": 1},
    ("gmm", "ppe"): {"k": 1, "chunks": 5, "max_iter": 5},
    ("gmm", "sample_aggregate"): {"k": 1, "chunks": 2},
    ("gmm", "stability"): {"k": 1, "subsample": 10, "rows": 5},
    ("gmm", "friendly_core"): {"k": 1},
    ("gmm", "grid_means"): {"k": 1},
    ("factor_analysis", "dp_fa"): {"factors": 1, "iterations": 2},
}
SMALL_N = 12
SBM_MODEL = {"degree": 1.0, "signal": 0.5}


def outcome(task: str, name: str, data: Any, **params: Any) -> str:
    """``"answered"``, or the refusal's sentence (any other exception fails the test)."""
    notion = TASKS[task][name].notion
    budget = {"epsilon": 1.0, "delta": 0.0 if notion == "pure" else 1e-6}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            dpviz.run(task, name, data, seed=3, **budget, **PARAMS.get((task, name), {}),
                      **params)
        except ValueError as err:
            return f"refused: {err}"
    return "answered"


def table_pairs() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Replace-one pairs at the edges of validity (default bound: the unit ball)."""
    pairs = []
    outside = {"just outside": [1.0 + 1e-9, 0.0], "outside": [5.0, 0.0],
               "far outside": [-1e200, 1e200], "at the float limit": [1.7e308, -1.7e308]}
    for n in (1, 2, SMALL_N):
        base = np.random.default_rng(n).uniform(-0.3, 0.3, size=(n, 2))
        at_bound = base.copy()
        at_bound[0] = [0.6, 0.8]
        for where, row in outside.items():
            other = base.copy()
            other[0] = row
            pairs.append((f"{n} row{'s' if n > 1 else ''}: a row at the bound / {where}",
                          at_bound, other))
    constant = np.full((SMALL_N, 2), 0.25)
    varied = constant.copy()
    varied[0] = [0.25, -0.5]
    pairs.append(("every row equal / one row differs (a constant column)", constant, varied))
    zeros = np.zeros((SMALL_N, 2))
    one = zeros.copy()
    one[0] = [1.0, 0.0]
    pairs.append(("every row zero / one row on the bound", zeros, one))
    return pairs


def graph_pairs() -> list[tuple[str, Any, Any, int]]:
    """Edge-neighbour pairs at the edges of validity: ``(label, G, G′, n)``."""
    pairs: list[tuple[str, Any, Any, int]] = []
    for n in (2, 6, 22):  # 22: the exponential mechanism leaves exact enumeration (n ≤ 20)
        empty = np.zeros((0, 2), dtype=np.int64)
        pairs.append((f"{n} vertices: the empty graph / one edge", empty, np.array([[0, 1]]), n))
    complete = np.array(list(itertools.combinations(range(5), 2)))
    pairs.append(("5 vertices: the complete graph / less one edge", complete, complete[1:], 5))
    one_edge = nx.empty_graph(4)
    one_edge.add_edge(0, 1)
    pairs.append(("networkx, 4 vertices: no edges / one edge", nx.empty_graph(4), one_edge, 0))
    return pairs


def test_every_private_estimator_states_its_relation():
    assert set(RELATION) == set(PRIVATE)


@pytest.mark.parametrize(("task", "name"), PRIVATE)
def test_neighbours_at_the_edges_of_validity_are_treated_alike(task, name):
    if RELATION[task, name] == ONE_EDGE:
        cases = [(label, g, h, {"n": n, **SBM_MODEL}) for label, g, h, n in graph_pairs()]
    else:
        cases = [(label, x, y, {}) for label, x, y in table_pairs()]
    for label, data, neighbour, params in cases:
        first = outcome(task, name, data, **params)
        second = outcome(task, name, neighbour, **params)
        assert first == second, f"{task}/{name}, {label}: {first!r} but {second!r}"
        if not label.startswith(("1 row:", "2 rows:")):
            # these pairs exercise the estimator, not only its refusals
            assert first == "answered", f"{task}/{name}, {label}: {first!r}"


@pytest.mark.parametrize("name", [name for task, name in PRIVATE if task == "sbm"])
def test_the_empty_graph_gets_a_private_answer(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = dpviz.run("sbm", name, np.zeros((0, 2)), n=8, epsilon=1.0, delta=1e-6,
                           seed=5, **SBM_MODEL)
    labels = np.asarray(result.estimate["labels"])
    assert labels.shape == (8,) and set(np.unique(labels)) <= {-1, 1}
    assert result.failed is None
    assert result.ledger.total().epsilon == pytest.approx(1.0, rel=1e-6)
