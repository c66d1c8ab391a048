"""Graphs for the ``sbm`` task: an SBM sampler, the karate club, edge-list validation.

ALGORITHMS.md §7; seed 003, Section 5.

A graph is an undirected simple graph on vertices ``0 … n−1``, held as its edge list
(``m × 2`` integers, ``i < j``, sorted). Neighbouring graphs differ in one edge (edge DP).
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from dpviz.core import limits
from dpviz.core.entry import Param
from dpviz.data.files import read_file
from dpviz.data.tables import read_csv

IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class Graph:
    """A validated undirected simple graph.

    Attributes
    ----------
    edges : ndarray
        ``m × 2`` vertex ids, ``i < j`` in each row, rows sorted, no repeats.
    n : int
        Number of vertices (ids are ``0 … n−1``; isolated vertices are allowed).
    """

    edges: IntArray
    n: int

    def adjacency(self) -> sp.csr_matrix:
        """The symmetric 0/1 adjacency matrix, sparse (CSR, float64)."""
        return adjacency_matrix(self.edges, self.n)

    def degrees(self) -> IntArray:
        """Every vertex's degree."""
        return np.bincount(self.edges.ravel(), minlength=self.n).astype(np.int64)


@dataclass(frozen=True)
class LabelledGraph(Graph):
    """A graph with its true communities and the public model parameters.

    Attributes
    ----------
    labels : ndarray or None
        The true community of every vertex, ``±1``; ``None`` when none is known.
    degree : float
        ``d``, the model's average degree (public).
    signal : float
        ``ε_s``, the model's signal: ``p_in = (1 + ε_s)d/n``, ``p_out = (1 − ε_s)d/n``.
    not_private : str or None
        Why ``degree`` and ``signal`` are not public inputs (read off this very graph), or
        ``None`` when they are (a generator's parameters).
    description : str
        One sentence for pages and cards (a bundled graph's).
    """

    labels: IntArray | None
    degree: float
    signal: float
    not_private: str | None = None
    description: str = ""


def adjacency_matrix(edges: IntArray, n: int) -> sp.csr_matrix:
    """The symmetric 0/1 adjacency matrix of an edge list, sparse.

    Examples
    --------
    >>> adjacency_matrix(np.array([[0, 1], [1, 2]]), 3).toarray().astype(int).tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    rows = np.concatenate([edges[:, 0], edges[:, 1]])
    cols = np.concatenate([edges[:, 1], edges[:, 0]])
    data = np.ones(rows.size)
    return sp.csr_matrix((data, (rows, cols)), shape=(n, n))


def balanced_labels(n: int, rng: np.random.Generator) -> IntArray:
    """``n`` labels ``±1`` in random order, ``⌊n/2⌋`` of them ``+1``."""
    labels = np.full(n, -1, dtype=np.int64)
    labels[: n // 2] = 1
    return rng.permutation(labels)


def _upper_pairs(index: IntArray, m: int) -> tuple[IntArray, IntArray]:
    """Decode indices of the pairs ``j < i`` of ``m`` items, ordered by i then j."""
    i = np.floor((np.sqrt(8.0 * index + 1.0) + 1.0) / 2.0).astype(np.int64)
    # float rounding near perfect squares: step i until i(i−1)/2 ≤ index < i(i+1)/2
    i -= (i * (i - 1) // 2 > index).astype(np.int64)
    i += (i * (i + 1) // 2 <= index).astype(np.int64)
    return i, index - i * (i - 1) // 2


def _sample(total: int, probability: float, rng: np.random.Generator) -> IntArray:
    """A Bernoulli(``probability``) subset of ``range(total)``: its size is Binomial."""
    count = int(rng.binomial(total, probability)) if total else 0
    return np.sort(rng.choice(total, size=count, replace=False)).astype(np.int64)


def stochastic_block_model(n: int = 1000, degree: float = 100.0, signal: float = 0.5, *,
                           seed: int = 0) -> LabelledGraph:
    """Sample a two-community SBM: edge ``{i, j}`` w.p. ``(1 + ε_s xᵢxⱼ)d/n`` (seed 003, §5).

    Vectorised: inside each community and across them the number of edges is Binomial and
    their positions a uniform sample of the pairs, so the cost is O(n + m), not O(n²).

    Parameters
    ----------
    n : int
        Vertices (``⌊n/2⌋`` get ``+1``).
    degree : float
        ``d``, the average degree; needs ``(1 + ε_s)d ≤ n``.
    signal : float
        ``ε_s`` in ``[0, 1]``.
    seed : int
        Seed of the labels and edges.

    Returns
    -------
    LabelledGraph

    Examples
    --------
    >>> g = stochastic_block_model(200, 10.0, 0.5, seed=1)
    >>> g.n, int(g.labels.sum()), bool(np.all(g.edges[:, 0] < g.edges[:, 1]))
    (200, 0, True)
    """
    n = limits.check_integer(limits.SBM_VERTICES, n)
    degree = limits.SBM_DEGREE.check(degree)
    signal = limits.SBM_SIGNAL.check(signal)
    seed = limits.check_integer(limits.SEED, seed)
    if (1 + signal) * degree > n:
        raise ValueError(f"the edge probability (1 + signal)·degree/n must be at most 1: "
                         f"(1 + {signal:g})·{degree:g}/{n} = {(1 + signal) * degree / n:.3g}; "
                         "lower the degree or raise n")
    if n * degree / 2 > limits.SBM_EDGES:
        raise ValueError(f"n = {n} and degree = {degree:g} give about {n * degree / 2:,.0f} "
                         f"edges; the generator makes at most {limits.SBM_EDGES:,}: lower the "
                         "degree or n")
    rng = np.random.default_rng(seed)
    labels = balanced_labels(n, rng)
    plus, minus = np.flatnonzero(labels == 1), np.flatnonzero(labels == -1)
    p_in, p_out = (1 + signal) * degree / n, (1 - signal) * degree / n
    blocks = []
    for members in (plus, minus):
        m = members.size
        i, j = _upper_pairs(_sample(m * (m - 1) // 2, p_in, rng), m)
        blocks.append(np.column_stack([members[j], members[i]]))
    across = _sample(plus.size * minus.size, p_out, rng)
    blocks.append(np.column_stack([plus[across // minus.size], minus[across % minus.size]]))
    edges = np.sort(np.concatenate(blocks), axis=1)
    edges = edges[np.lexsort((edges[:, 1], edges[:, 0]))]
    return LabelledGraph(edges=edges.astype(np.int64), n=n, labels=labels, degree=degree,
                         signal=signal)


#: Why a run on the karate club with its own d and ε_s has no privacy guarantee.
KARATE_NOT_PRIVATE = ("the model parameters d and ε_s were read off this very graph (its mean "
                      "degree and its edge counts within and across the factions), not given "
                      "as public inputs, so the sensitivity proof's assumption fails")


def karate_club() -> LabelledGraph:
    """Zachary's karate club (networkx), factions from the node attribute ``club`` as ±1.

    ``degree`` and ``signal`` are the values a two-block SBM fitted to this very graph
    would have (mean degree 4.59; ε_s from the within/across edge counts). They are read
    off the graph, so ``not_private`` says so (:data:`KARATE_NOT_PRIVATE`): a run that uses
    them as the public parameters has no guarantee (ALGORITHMS.md §7).

    Examples
    --------
    >>> g = karate_club()
    >>> g.n, len(g.edges), int((g.labels == 1).sum())
    (34, 78, 17)
    """
    import networkx as nx

    graph = nx.karate_club_graph()
    labels = np.array([1 if graph.nodes[v]["club"] == "Mr. Hi" else -1
                       for v in range(graph.number_of_nodes())], dtype=np.int64)
    edges = as_graph(graph).edges
    n = labels.size
    same = labels[edges[:, 0]] == labels[edges[:, 1]]
    plus = int((labels == 1).sum())
    pairs_in = plus * (plus - 1) // 2 + (n - plus) * (n - plus - 1) // 2
    p_in, p_out = same.sum() / pairs_in, (~same).sum() / (plus * (n - plus))
    degree, signal = float(2 * len(edges) / n), float((p_in - p_out) / (p_in + p_out))
    return LabelledGraph(edges=edges, n=n, labels=labels, degree=degree, signal=signal,
                         not_private=KARATE_NOT_PRIVATE,
                         description=f"Zachary's karate club: {n} members, {len(edges)} "
                                     f"friendships, split into two factions ({plus} / "
                                     f"{n - plus}). Its d = {degree:.3g} and ε_s = "
                                     f"{signal:.3g} are read off this very graph, so treat "
                                     "them as public only for the lesson.")


#: The signal a bundled graph without a known split is given: the synthetic SBM's default,
#: assumed (it cannot be read off a graph whose communities are unknown).
ASSUMED_SIGNAL = 0.5


def _networkx_graph(make: str, title: str, what: str) -> LabelledGraph:
    """A graph that ships with networkx, without known communities (no truth to score).

    Its ``degree`` is its mean degree, read off the graph (so ``not_private`` says so); its
    ``signal`` is :data:`ASSUMED_SIGNAL`. Vertex names are sorted and numbered ``0 … n−1``.
    """
    import networkx as nx

    graph = nx.Graph(getattr(nx, make)())  # weighted or not: one unweighted edge per pair
    named = as_graph(graph)
    degree = float(2 * len(named.edges) / named.n)
    reason = ("the model parameter d was read off this very graph (its mean degree), not "
              "given as a public input, so the sensitivity proof's assumption fails")
    return LabelledGraph(
        edges=named.edges, n=named.n, labels=None, degree=degree, signal=ASSUMED_SIGNAL,
        not_private=reason,
        description=f"{title}: {named.n} {what}, {len(named.edges)} edges. No true "
                    f"communities ship with it, so nothing is scored; d = {degree:.3g} is "
                    f"read off this very graph and ε_s = {ASSUMED_SIGNAL:g} is assumed — treat "
                    "them as public only for the lesson.")


def les_miserables() -> LabelledGraph:
    """Characters of Hugo's *Les Misérables* who appear together (Knuth; networkx): 77, 254.

    Examples
    --------
    >>> g = les_miserables()
    >>> g.n, len(g.edges), round(g.degree, 2), g.labels is None
    (77, 254, 6.6, True)
    """
    return _networkx_graph("les_miserables_graph", "Les Misérables (co-appearances)",
                           "characters")


def florentine_families() -> LabelledGraph:
    """Marriages between Renaissance Florentine families (Padgett; networkx): 15, 20.

    Examples
    --------
    >>> g = florentine_families()
    >>> g.n, len(g.edges), round(g.degree, 3)
    (15, 20, 2.667)
    """
    return _networkx_graph("florentine_families_graph", "Florentine families (marriages)",
                           "families")


def davis_southern_women() -> LabelledGraph:
    """Davis' Southern Women: 18 women and the 14 events they attended (networkx): 32, 89.

    Bipartite (every edge joins a woman and an event), which a two-block SBM with ε_s > 0
    does not describe: a lesson in a model that does not fit.

    Examples
    --------
    >>> g = davis_southern_women()
    >>> g.n, len(g.edges)
    (32, 89)
    """
    return _networkx_graph("davis_southern_women_graph",
                           "Davis' Southern Women (women and the events they attended; "
                           "bipartite, which the model does not describe)", "women and events")


#: Bundled graphs for the ``sbm`` task, by the name a scenario's ``{"dataset": name}`` uses.
GRAPH_DATASETS = {"karate": karate_club, "les_miserables": les_miserables,
                  "florentine_families": florentine_families,
                  "davis_southern_women": davis_southern_women}


def read_edges(source: str | os.PathLike[str] | bytes) -> IntArray:
    r"""Read an edge list CSV: two integer columns (vertex ids), an optional header row.

    Raises
    ------
    ValueError
        A file over 50 MB, more edges than :data:`dpviz.core.limits.SBM_EDGES` (the same sentence
        as :func:`as_graph`'s), a cell that is not a number, not two columns, an id that is
        not a whole number (the rest — ids out of range, self-loops, repeats — is
        :func:`as_graph`'s). No message quotes a cell.

    Notes
    -----
    A path is one the user typed, read from the working folder by
    :func:`dpviz.data.files.read_file`; an upload comes as its bytes.

    Examples
    --------
    >>> read_edges(b"source,target\n0,1\n1,2\n").tolist()
    [[0, 1], [1, 2]]
    >>> read_edges(b"0,1.5\n")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the edge list's row 1, column 2 is not a whole number; ids must be ...
    """
    raw = source if isinstance(source, bytes) else read_file(source, what="the edge list")
    width = _first_row_width(raw)
    if width is not None and width != 2:  # before the table's own sentence on its columns
        raise ValueError(_TWO_COLUMNS.format(width))
    table = read_csv(raw, min_rows=0, row_cap=False)  # the edge cap instead, below
    _check_edge_count(table.shape[0])
    if table.shape[0] == 0:  # the empty graph is valid: refusing it would tell neighbours apart
        return np.empty((0, 2), dtype=np.int64)
    if table.shape[1] != 2:
        raise ValueError(_TWO_COLUMNS.format(table.shape[1]))
    return _integer_ids(table)


_TWO_COLUMNS = "an edge list has two columns (the two ends of each edge); this CSV has {}"
#: How far :func:`_first_row_width` reads for the first row (a 10 000-column row is ~20 kB).
FIRST_ROW_BYTES = 2**20


def _first_row_width(raw: bytes) -> int | None:
    r"""The cells of the first non-blank row, read alone.

    So a wide file gets the edge list's sentence, not a table's. ``None`` when there is no
    such row within :data:`FIRST_ROW_BYTES`, or it is not UTF-8 text: the table's reader then
    says what is wrong.

    Examples
    --------
    >>> _first_row_width(b"\n0,1,2\n"), _first_row_width(b"")
    (3, None)
    """
    stream = io.BytesIO(raw)
    for line in iter(lambda: stream.readline(FIRST_ROW_BYTES), b""):
        if not line.endswith(b"\n") and stream.tell() < len(raw):
            return None  # a row longer than that: bounded memory, the table's reader refuses it
        try:
            text = line.decode("utf-8-sig")
        except UnicodeDecodeError:
            return None
        if text.strip(" \t\r\n,"):
            return len(next(csv.reader([text])))
    return None


#: Why a run on an edge list whose n was read from its ids has no guarantee.
N_FROM_IDS = ("n was read from the edge list (its largest vertex id), not given as a public "
              "input: which vertices have an edge is what edge privacy protects")
#: Why a run on an edge list whose average degree d was not given has no guarantee.
DEGREE_FROM_GRAPH = ("d was read from the edge list (its mean degree), not given as a public "
                     "input, so the sensitivity proof's assumption fails")
#: Why a run on a renumbered edge list has no guarantee.
RENUMBERED = ("the ids were renumbered from those present in the edge list: removing one "
              "edge can remove a vertex and shift every id above it, so the renumbered graphs "
              "of two neighbouring edge lists differ in many edges")


#: The fewest vertices an edge list's graph can have: the model's two communities are
#: balanced, so at n = 2 they are one vertex each whatever the edges, and the estimators have
#: nothing to estimate. A check on n (public when given; when read from the ids it is not
#: private anyway, :data:`N_FROM_IDS`).
MIN_EDGE_LIST_VERTICES = 3
TOO_FEW_VERTICES = ("an edge list's graph needs at least 3 vertices, got n = {}: the two "
                    "communities are then one vertex each whatever the edges, so there is "
                    "nothing to estimate")


@dataclass(frozen=True)
class EdgeReport:
    """What reading an edge list found (a non-private teaching diagnostic, never released).

    Attributes
    ----------
    n : int
        The vertices.
    n_given : bool
        ``n`` was given by the user (public); otherwise it is read from the ids.
    isolated : int
        Vertices with no edge (ids absent from the list, below n).
    self_loops : int
        Rows with both ends on one vertex: dropped (the model has none).
    renumbered : bool
        The ids were renumbered ``0 … m−1`` in increasing order (asked for: ids with gaps).
    """

    n: int
    n_given: bool
    isolated: int
    self_loops: int
    renumbered: bool

    @property
    def not_private(self) -> str | None:
        """Why the run has no guarantee (:data:`N_FROM_IDS`, :data:`RENUMBERED`), or ``None``."""
        reasons = [why for why, holds in ((N_FROM_IDS, not self.n_given),
                                          (RENUMBERED, self.renumbered)) if holds]
        return "; ".join(reasons) or None

    def sentence(self) -> str:
        """One sentence for pages and descriptions.

        Examples
        --------
        >>> EdgeReport(100, False, 3, 1, False).sentence()  # doctest: +ELLIPSIS
        "n = 100 vertices, read from the edge list's ids (0 … 99; not private); 3 of them..."
        """
        where = ("given" if self.n_given else
                 f"read from the edge list's ids (0 … {self.n - 1}; not private)")
        parts = [f"n = {self.n:,} vertices, {where}"]
        if self.renumbered:
            parts.append("the ids were renumbered 0 … n−1 in increasing order")
        parts.append(f"{self.isolated:,} of them have no edge (isolated vertices; not private: "
                     "a teaching diagnostic)" if self.isolated else
                     "every vertex has an edge (not private: a teaching diagnostic)")
        if self.self_loops:
            parts.append(f"{self.self_loops:,} self-loop{'s' if self.self_loops > 1 else ''} "
                         "(an edge from a vertex to itself) dropped: the model has none (a "
                         "count, not private)")
        return "; ".join(parts) + "."


def edge_list_graph(source: str | os.PathLike[str] | bytes, n: int | None = None, *,
                    renumber: bool = False) -> tuple[Graph, EdgeReport]:
    r"""Read an edge list into a graph, reporting what an upload needs to know.

    ``n`` defaults to the largest id + 1 (ids are ``0 … n−1``; ids that never appear are
    isolated vertices, reported), and is then not a public input (:data:`N_FROM_IDS`).
    Self-loops are dropped and counted. With ``renumber``, ids with gaps (e.g. 3, 17, 1 002)
    become ``0 … m−1`` in increasing order, m the number of distinct ids.

    Raises
    ------
    ValueError
        :func:`read_edges`' and :func:`as_graph`'s sentences; ids giving more vertices than
        dpviz takes (with the advice to renumber them).

    Examples
    --------
    >>> g, report = edge_list_graph(b"0,1\n1,1\n1,3\n")
    >>> g.n, g.edges.tolist(), report.isolated, report.self_loops
    (4, [[0, 1], [1, 3]], 1, 1)
    >>> edge_list_graph(b"10,30\n30,20\n", renumber=True)[0].edges.tolist()
    [[0, 2], [1, 2]]
    """
    ids = read_edges(source)
    loops = ids[:, 0] == ids[:, 1]
    ids = ids[~loops]
    if ids.size and ids.min() < 0:
        row, col = np.argwhere(ids < 0)[0]
        raise ValueError(f"the edge list's row {row + 1}, column {col + 1} has a vertex id "
                         "below 0; ids must be >= 0")
    if renumber:
        _, inverse = np.unique(ids, return_inverse=True)
        ids = inverse.reshape(-1, 2).astype(np.int64)
    given = n is not None
    if n is None:
        if not ids.size:
            raise ValueError("the edge list has no edges, so its ids cannot give n: give n, "
                             "the number of vertices")
        top = int(ids.max()) + 1
        if top > limits.SBM_VERTICES.high:
            raise ValueError(f"the largest vertex id gives more than "
                             f"{int(limits.SBM_VERTICES.high):,} vertices, the most dpviz takes: "
                             "renumber the ids (if they have gaps) or give a smaller graph")
        n = max(top, int(limits.SBM_VERTICES.low))
    if n < MIN_EDGE_LIST_VERTICES:
        raise ValueError(TOO_FEW_VERTICES.format(n))
    graph = as_graph(ids.reshape(-1, 2), n)
    isolated = graph.n - int(np.unique(graph.edges).size)
    return graph, EdgeReport(graph.n, given, isolated, int(loops.sum()), renumber)


def _check_edge_count(edges: int) -> None:
    """Refuse more than :data:`dpviz.core.limits.SBM_EDGES` edges, naming the cap, not the count.

    The edge count is private under edge DP: the cap is dpviz's public data domain, the same
    for every dataset, so only graphs outside it are refused.
    """
    cap = limits.SBM_EDGES
    if edges > cap:
        raise ValueError(f"the graph has more than {cap:,} edges, outside dpviz's public data "
                         f"domain (graphs of at most {cap:,} edges: a limit the same for every "
                         "dataset, stated in advance)")


def _integer_ids(table: NDArray[Any]) -> IntArray:
    if table.dtype.kind in "iu":
        if table.dtype.kind == "u" and table.max(initial=0) > np.iinfo(np.int64).max:
            raise ValueError("the edge list has a vertex id too large to be exact")  # not -1
        return table.astype(np.int64)
    bad = np.argwhere(table != np.round(table))
    if bad.size:
        row, col = bad[0]
        raise ValueError(f"the edge list's row {row + 1}, column {col + 1} is not a whole "
                         "number; ids must be whole numbers 0 … n−1")  # never the cell
    if np.abs(table).max(initial=0) > 2**53:
        raise ValueError("the edge list has a vertex id too large to be exact")
    return table.astype(np.int64)


def as_graph(data: Any, n: Any = None) -> Graph:
    """Validate a graph: a :class:`Graph`, a ``networkx.Graph``, or an edge array plus ``n``.

    Parameters
    ----------
    data : Graph, networkx.Graph or array-like
        For an array, ``m × 2`` vertex ids (each undirected edge once, either order).
    n : int, optional
        Number of vertices; required for an edge array, checked against a graph's own.

    Returns
    -------
    Graph
        Edges with ``i < j``, sorted.

    Raises
    ------
    ValueError
        A sentence naming the problem: non-integer or text ids, ids below 0 or at least n,
        a self-loop, an edge listed twice (or as both (i, j) and (j, i)), a directed or
        multi-graph, too many vertices, more edges than :data:`dpviz.core.limits.SBM_EDGES`
        (dpviz's public data domain; :func:`read_edges` refuses them with the same sentence).

    Notes
    -----
    The graph with no edges is valid: it is one edge away from a one-edge graph, so refusing
    it would tell those edge-neighbours apart with certainty (no edge-DP estimator may).

    Examples
    --------
    >>> as_graph([[1, 0], [1, 2]], n=3).edges.tolist()
    [[0, 1], [1, 2]]
    >>> as_graph([], n=3).edges.shape
    (0, 2)
    >>> as_graph([[0, 1], [1, 0]], n=2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the edge list's rows 1 and 2 list the same edge twice (once reversed): ...
    """
    if isinstance(data, Graph):
        if n is not None and limits.check_integer(limits.SBM_VERTICES, n) != data.n:
            raise ValueError(f"n = {n} does not match the graph's {data.n} vertices")
        # re-checked: a hand-built Graph with an edge twice would put it in both halves of a
        # split graph (and double its weight in every sum)
        return Graph(edges=_canonical(np.asarray(data.edges), data.n), n=data.n)
    if _is_networkx(data):
        return _from_networkx(data, n)
    if n is None:
        raise ValueError("an edge list needs n, the number of vertices (ids are 0 … n−1)")
    n = limits.check_integer(limits.SBM_VERTICES, n)
    raw = np.asarray(data)
    if raw.dtype.kind not in "iufb":
        try:
            raw = raw.astype(float)
        except (TypeError, ValueError):
            raise ValueError("the edge list has text where a vertex id should be; ids must be "
                             "whole numbers 0 … n−1") from None
    if raw.size == 0 and raw.ndim == 1:  # [] is the empty graph (see the Notes)
        raw = raw.reshape(0, 2)
    if raw.ndim != 2 or raw.shape[1] != 2:
        raise ValueError(f"an edge list is a table with two columns, got shape {raw.shape}")
    if raw.dtype.kind == "f" and not np.all(np.isfinite(raw)):
        row = int(np.argwhere(~np.isfinite(raw))[0, 0])
        raise ValueError(f"the edge list's row {row + 1} has a missing or infinite vertex id")
    ids = _integer_ids(raw)
    return Graph(edges=_canonical(ids, n), n=n)


def _canonical(ids: IntArray, n: int) -> IntArray:
    """Edges ``i < j``, sorted; refusals name the row (and column) and the rule, never an id."""
    _check_edge_count(len(ids))
    low = np.argwhere(ids < 0)
    if low.size:
        row, col = low[0]
        raise ValueError(f"the edge list's row {row + 1}, column {col + 1} has a vertex id "
                         "below 0; ids must be >= 0")
    high = np.argwhere(ids >= n)
    if high.size:
        row, col = high[0]
        raise ValueError(f"the edge list's row {row + 1}, column {col + 1} has a vertex id of "
                         f"n or more, but n = {n} vertices have ids 0 … {n - 1}; raise n or "
                         "fix the id")
    loops = np.flatnonzero(ids[:, 0] == ids[:, 1])
    if loops.size:
        raise ValueError(f"the edge list's row {int(loops[0]) + 1} is a self-loop (both ends "
                         "the same vertex); the model has none: remove it")
    edges = np.sort(ids, axis=1)
    order = np.lexsort((edges[:, 1], edges[:, 0]))
    edges = edges[order]
    repeat = np.flatnonzero(np.all(edges[1:] == edges[:-1], axis=1))
    if repeat.size:
        first, second = sorted((int(order[repeat[0]]), int(order[repeat[0] + 1])))
        rows = f"the edge list's rows {first + 1} and {second + 1} list the same edge twice"
        if ids[first, 0] != ids[second, 0]:
            raise ValueError(f"{rows} (once reversed): an undirected graph lists each edge "
                             "once")
        raise ValueError(f"{rows}; list each edge once")
    return edges


def _is_networkx(data: Any) -> bool:
    return type(data).__module__.startswith("networkx")


def _from_networkx(graph: Any, n: Any) -> Graph:
    if graph.is_directed():
        raise ValueError("the graph is directed; edge DP here is for undirected graphs")
    if graph.is_multigraph():
        raise ValueError("the graph has parallel edges (a multigraph); give a simple graph")
    nodes = list(graph.nodes)
    count = len(nodes)
    if n is not None and limits.check_integer(limits.SBM_VERTICES, n) != count:
        raise ValueError(f"n = {n} does not match the graph's {count} vertices")
    limits.check_integer(limits.SBM_VERTICES, count)
    if set(nodes) == set(range(count)):
        index = {v: v for v in nodes}
    else:
        try:
            ordered = sorted(nodes)
        except TypeError:
            ordered = nodes
        index = {v: i for i, v in enumerate(ordered)}
    ids = np.array([[index[u], index[v]] for u, v in graph.edges()], dtype=np.int64)
    return Graph(edges=_canonical(ids.reshape(-1, 2), count), n=count)


SBM_PARAMS: tuple[Param, ...] = (
    Param("n", "int", 1000, min=limits.SBM_VERTICES.low, max=limits.SBM_VERTICES.high,
          help="number of vertices (half in each community)"),
    Param("degree", "float", 100.0, min=limits.SBM_DEGREE.low, max=limits.SBM_DEGREE.high,
          help="d, the average degree (public)"),
    Param("signal", "float", 0.5, min=limits.SBM_SIGNAL.low,
          max=limits.SBM_SIGNAL.high,
          help="epsilon_s: p_in = (1 + epsilon_s)d/n, p_out = (1 - epsilon_s)d/n"),
    Param("seed", "int", 0, min=0, max=limits.SEED.high,
          help="seed of the graph generator (the same seed gives the same graph)"),
)

__all__ = ["DEGREE_FROM_GRAPH", "GRAPH_DATASETS", "KARATE_NOT_PRIVATE", "N_FROM_IDS",
           "RENUMBERED", "SBM_PARAMS", "EdgeReport",
           "Graph", "LabelledGraph", "edge_list_graph",
           "adjacency_matrix", "as_graph", "balanced_labels", "karate_club", "read_edges",
           "stochastic_block_model"]
