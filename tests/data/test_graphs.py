"""The SBM sampler, the karate club, and edge-list validation (every sentence)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from scipy.stats import binom

from dpviz.core import limits
from dpviz.data.graphs import (
    KARATE_NOT_PRIVATE,
    Graph,
    as_graph,
    karate_club,
    read_edges,
    stochastic_block_model,
)


def test_sampler_edge_counts_match_the_model():
    n, d, s = 2000, 40.0, 0.5
    g = stochastic_block_model(n, d, s, seed=3)
    assert g.labels.sum() == 0 and set(g.labels.tolist()) == {-1, 1}
    assert np.all(g.edges[:, 0] < g.edges[:, 1])
    assert len(np.unique(g.edges, axis=0)) == len(g.edges)
    same = g.labels[g.edges[:, 0]] == g.labels[g.edges[:, 1]]
    half = n // 2
    pairs_in, pairs_out = 2 * half * (half - 1) // 2, half * half
    for count, pairs, p in ((same.sum(), pairs_in, (1 + s) * d / n),
                            ((~same).sum(), pairs_out, (1 - s) * d / n)):
        lo, hi = binom.ppf([1e-4, 1 - 1e-4], pairs, p)
        assert lo <= count <= hi


def test_sampler_pairs_are_uniform_within_a_block():
    # every within-block pair equally likely: per-vertex degrees inside a block match the
    # binomial mean, and both ends of the index decoding are used
    g = stochastic_block_model(400, 100.0, 1.0, seed=1)
    assert np.all(g.labels[g.edges[:, 0]] == g.labels[g.edges[:, 1]])  # signal 1: no across
    degrees = g.degrees()  # each Binomial(199, 1/2) when every pair is equally likely
    assert abs(degrees.mean() - 99.5) < 1.0
    assert 0.8 * 49.75 < degrees.var() < 1.25 * 49.75


def test_sampler_is_deterministic_and_seeded():
    a, b = stochastic_block_model(300, 10.0, 0.4, seed=5), stochastic_block_model(300, 10.0,
                                                                                  0.4, seed=5)
    c = stochastic_block_model(300, 10.0, 0.4, seed=6)
    assert np.array_equal(a.edges, b.edges) and np.array_equal(a.labels, b.labels)
    assert not np.array_equal(a.edges, c.edges)


def test_sampler_refuses_probabilities_above_one_and_huge_graphs():
    with pytest.raises(ValueError, match="edge probability"):
        stochastic_block_model(100, 80.0, 0.5)
    with pytest.raises(ValueError, match="the generator makes at most 10,000,000"):
        stochastic_block_model(20_000, 2_000.0, 0.5)


def test_karate_club_factions():
    g = karate_club()
    assert (g.n, len(g.edges)) == (34, 78)
    assert (g.labels == 1).sum() == 17 and (g.labels == -1).sum() == 17
    assert g.labels[0] == 1 and g.labels[33] == -1  # Mr. Hi and the officer
    assert g.degree == pytest.approx(156 / 34)
    # d and ε_s are read off the graph: not public inputs, and the graph says so
    assert g.not_private == KARATE_NOT_PRIVATE and "read off this very graph" in g.not_private
    assert stochastic_block_model(40, 4.0, 0.5, seed=0).not_private is None


def test_networkx_input_matches_edge_array():
    graph = nx.karate_club_graph()
    from_nx = as_graph(graph)
    from_array = as_graph(np.array(list(graph.edges())), n=34)
    assert np.array_equal(from_nx.edges, from_array.edges)
    relabelled = nx.relabel_nodes(nx.path_graph(3), {0: "a", 1: "b", 2: "c"})
    assert as_graph(relabelled).edges.tolist() == [[0, 1], [1, 2]]


def test_the_empty_graph_is_a_graph():
    # one edge away from a one-edge graph: refusing it would tell edge-neighbours apart
    for data, n in ((np.zeros((0, 2)), 3), ([], 3), (nx.empty_graph(3), None)):
        graph = as_graph(data, n)
        assert graph.n == 3 and graph.edges.shape == (0, 2)
        assert graph.adjacency().nnz == 0 and graph.degrees().tolist() == [0, 0, 0]


@pytest.mark.parametrize(("data", "n", "sentence"), [
    ([[0, 1.5]], 3, "row 1, column 2 is not a whole number; ids must be whole numbers"),
    ([[0, 5]], 3, "row 1, column 2 has a vertex id of n or more, but n = 3 vertices have ids "
                  "0 … 2"),
    ([[-1, 2]], 3, "row 1, column 1 has a vertex id below 0; ids must be >= 0"),
    ([[0, 1], [2, 2]], 3, r"row 2 is a self-loop \(both ends the same vertex\)"),
    ([[0, 1], [1, 2], [0, 1]], 3, "rows 1 and 3 list the same edge twice; list each edge once"),
    ([[0, 1], [1, 0]], 3, r"rows 1 and 2 list the same edge twice \(once reversed\)"),
    ([["a", "b"]], 3, "has text where a vertex id should be"),
    ([[0, 1, 2]], 3, "two columns"),
    ([[0, float("nan")]], 3, "missing or infinite vertex id"),
    ([[0, 1]], None, "an edge list needs n"),
    ([[0, 1]], limits.SBM_VERTICES.high + 1, "n must be"),
])
def test_as_graph_sentences(data, n, sentence):
    with pytest.raises(ValueError, match=sentence):
        as_graph(data, n)


@pytest.mark.parametrize(("data", "n"), [
    ([[0, 1], [4242, 17]], 50),  # too large
    ([[0, 1], [-4242, 17]], 50),  # negative
    ([[0, 1], [4242, 4242]], 5000),  # a self-loop
    ([[4242, 17], [0, 1], [4242, 17]], 5000),  # twice
    ([[4242, 17], [17, 4242]], 5000),  # twice, once reversed
])
def test_as_graph_sentences_quote_no_vertex_id(data, n):
    """The ids are the file's content: a refusal names the row, column and rule only."""
    with pytest.raises(ValueError, match="row") as refused:
        as_graph(data, n)
    assert "4242" not in str(refused.value) and "17" not in str(refused.value)


def test_as_graph_and_read_edges_share_the_public_edge_cap(monkeypatch):
    """One cap on edges (the public data domain) in every path, not the CSV's row cap."""
    monkeypatch.setattr(limits, "SBM_EDGES", 3)
    monkeypatch.setattr(limits, "MAX_ROWS", 2)  # a table's cap does not apply to edges

    def csv(edges):
        return "".join(f"{i},{j}\n" for i, j in edges).encode()

    at_cap, over = [[0, 1], [1, 2], [2, 3]], [[0, 1], [1, 2], [2, 3], [3, 4]]
    assert as_graph(at_cap, n=5).edges.shape == (3, 2)
    assert as_graph(read_edges(csv(at_cap)), n=5).edges.shape == (3, 2)
    assert as_graph(nx.Graph(at_cap)).edges.shape == (3, 2)
    sentences = set()
    for refuse in (lambda: as_graph(over, n=5), lambda: read_edges(csv(over)),
                   lambda: as_graph(nx.Graph(over)),
                   lambda: as_graph(Graph(edges=np.array(over), n=5))):
        with pytest.raises(ValueError) as refused:
            refuse()
        sentences.add(str(refused.value))
    assert sentences == {"the graph has more than 3 edges, outside dpviz's public data domain "
                         "(graphs of at most 3 edges: a limit the same for every dataset, "
                         "stated in advance)"}


def test_networkx_refusals():
    with pytest.raises(ValueError, match="directed"):
        as_graph(nx.DiGraph([(0, 1)]))
    with pytest.raises(ValueError, match="multigraph"):
        as_graph(nx.MultiGraph([(0, 1)]))
    with pytest.raises(ValueError, match="self-loop"):
        as_graph(nx.Graph([(0, 1), (1, 1)]))
    with pytest.raises(ValueError, match="does not match"):
        as_graph(nx.path_graph(3), n=4)
    with pytest.raises(ValueError, match="does not match"):
        as_graph(Graph(edges=np.array([[0, 1]]), n=2), n=3)


def test_read_edges_sentences(tmp_path):
    assert read_edges(b"u,v\n0,1\n2,1\n").tolist() == [[0, 1], [2, 1]]
    with pytest.raises(ValueError, match=r"^the CSV's row 2, column 2 is not a number"):
        read_edges(b"0,1\n1,x\n")
    with pytest.raises(ValueError, match="two columns"):
        read_edges(b"0,1,2\n")
    for empty in (b"", b"u,v\n", b"\n \n"):  # the empty graph is valid (edge-neighbours)
        assert read_edges(empty).shape == (0, 2)
    with pytest.raises(ValueError, match="whole numbers"):
        read_edges(b"0,0.5\n")
    big = tmp_path / "big.csv"
    with big.open("wb") as handle:
        handle.truncate(limits.MAX_UPLOAD_BYTES + 1)
    with pytest.raises(ValueError, match="over the 50 MB"):
        read_edges(big)


def test_a_wide_edge_list_gets_the_edge_lists_sentence():
    """10 000 columns: the edge list's sentence (two columns), not a table's (at most 200)."""
    wide = ",".join(["1"] * 10_000).encode() + b"\n"
    for content in (wide, b"u,v,w\n0,1,2\n", b"\n\n" + wide):
        with pytest.raises(ValueError) as refused:
            read_edges(content)
        assert str(refused.value).startswith("an edge list has two columns (the two ends of "
                                             "each edge); this CSV has ")
    assert str(refused.value).endswith("has 10000")


def test_an_edge_list_of_two_vertices_gets_one_sentence():
    """At n = 2 the balanced communities are one vertex each whatever the edge: nothing to
    estimate. A check on n alone (given, or read from the ids), and 3 vertices run."""
    from dpviz.data.graphs import edge_list_graph

    for content, n in ((b"0,1\n", None), (b"0,1\n", 2), (b"1,0\n1,1\n", None)):
        with pytest.raises(ValueError, match=r"^an edge list's graph needs at least 3 "
                                             r"vertices, got n = 2: the two communities"):
            edge_list_graph(content, n)
    assert edge_list_graph(b"0,1\n", 3)[0].n == 3 and edge_list_graph(b"0,2\n")[0].n == 3
