"""The stochastic block model page's run: its description, the drawn graph and the result panels.

The controls that build the run's scenario are :mod:`dpviz.ui.pages.sbm`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np
import streamlit as st
from numpy.typing import NDArray

from dpviz.core import limits
from dpviz.data.graphs import Graph
from dpviz.estimators.metrics import community_error
from dpviz.estimators.result import Result
from dpviz.lab import intervals
from dpviz.lab.scenario import LoadedData, Scenario
from dpviz.ui.pages.sbm import DRAWN_EDGES, DRAWN_VERTICES
from dpviz.ui.panels.risk import budget_title, risk_panel
from dpviz.ui.runs import canonical
from dpviz.ui.widgets import (
    as_sentence,
    choices_table,
    escape_markdown,
    lazy_expander,
    show_chart,
)
from dpviz.viz import ledger_bar
from dpviz.viz import sbm as figures


def description(data: LoadedData) -> str:
    """The graph in one sentence (an upload's communities are unknown)."""
    if data.truth is None:
        return f"{data.description} Its communities are unknown, so no error is shown."
    return data.description


def true_labels(data: LoadedData) -> NDArray[np.int64] | None:
    """The true communities, when the data come with them (not for an upload)."""
    return None if data.truth is None else data.truth.labels


@dataclass(frozen=True)
class Layout:
    """A fixed drawing of the graph: the vertices drawn, their positions, the edges drawn."""

    vertices: NDArray[np.int64]
    positions: NDArray[np.float64]
    edges: NDArray[np.int64]
    edges_in_sample: int
    sampled: bool


@st.cache_data(max_entries=limits.DATA_CACHE_ENTRIES,  # 0.04 MiB each: a class's graphs
               show_spinner="Laying the graph out (once per graph)…")
def _layout(block: str, seed: int, _graph: Graph) -> Layout:
    """:func:`layout` of the graph of the data block ``block`` (its JSON keys the cache)."""
    graph = _graph
    rng = np.random.default_rng(seed)
    sampled = graph.n > DRAWN_VERTICES
    vertices = (np.sort(rng.choice(graph.n, DRAWN_VERTICES, replace=False)) if sampled
                else np.arange(graph.n))
    local = np.full(graph.n, -1, dtype=np.int64)
    local[vertices] = np.arange(vertices.size)
    edges = local[graph.edges]
    edges = edges[(edges >= 0).all(axis=1)]
    xy = _spring_with_ring(vertices.size, edges, seed)
    shown = (edges if len(edges) <= DRAWN_EDGES else
             edges[np.sort(rng.choice(len(edges), DRAWN_EDGES, replace=False))])
    return Layout(vertices.astype(np.int64), xy, shown, len(edges), sampled)


def _spring_with_ring(n: int, edges: NDArray[np.int64], seed: int) -> NDArray[np.float64]:
    """A seeded spring layout of the vertices with an edge; isolated ones on a circle around it.

    A spring layout pushes isolated vertices far out, which shrinks the graph to a corner of
    the drawing; here they sit evenly on a circle just outside the rest.

    Examples
    --------
    >>> xy = _spring_with_ring(5, np.array([[0, 1], [1, 2]]), seed=0)
    >>> bool(np.linalg.norm(xy[3:], axis=1).min() > np.linalg.norm(xy[:3], axis=1).max())
    True
    """
    linked = np.zeros(n, dtype=bool)
    linked[edges.ravel()] = True
    xy = np.zeros((n, 2))
    if linked.any():
        drawing = nx.Graph()
        drawing.add_nodes_from(np.flatnonzero(linked).tolist())
        drawing.add_edges_from(edges.tolist())
        positions = nx.spring_layout(drawing, seed=seed)
        xy[linked] = [positions[v] for v in np.flatnonzero(linked)]
    alone = np.flatnonzero(~linked)
    if alone.size:
        radius = 1.15 * max(float(np.linalg.norm(xy[linked], axis=1).max(initial=0.0)), 1.0)
        angle = 2 * np.pi * np.arange(alone.size) / alone.size
        xy[alone] = radius * np.column_stack([np.cos(angle), np.sin(angle)])
    return xy


def layout(scenario: Scenario, data: LoadedData) -> Layout:
    """A seeded spring layout of the scenario's graph, or of a seeded sample of its vertices.

    Seeded by the data seed (0 for a bundled graph or an upload), so it does not move with
    the noise. Above :data:`DRAWN_VERTICES` vertices a uniform sample of that many is drawn
    with the edges among them; at most :data:`DRAWN_EDGES` of those edges are drawn.
    Vertices with no edge among those drawn sit on a circle around the rest.
    """
    return _layout(canonical(dict(scenario.data)), int(scenario.data.get("seed", 0)),
                   data.data)


def layout_caption(drawn: Layout, n: int) -> str:
    """What the graph drawing shows (all of it, or a sample), in one sentence."""
    what = (f"A uniform sample of {drawn.vertices.size} of the {n:,} vertices (seeded) and "
            f"the {drawn.edges_in_sample:,} edges among them" if drawn.sampled else
            f"All {n:,} vertices")
    edges = (f"; {len(drawn.edges):,} of those edges are drawn"
             if len(drawn.edges) < drawn.edges_in_sample else "")
    return (f"{what}{edges}, in a seeded spring layout computed once per graph (it does not "
            "move with ε); vertices with no edge sit on an outer circle. Colours are the "
            "recovered communities, up to a global sign; a red ring marks a vertex put in the "
            "wrong one. In the CSV download the edges are one walk through each component "
            "(each edge there and back): consecutive points of a walk are an edge.")


def result_metrics(scenario: Scenario, result: Result,
                   labels: NDArray[np.int64] | None) -> None:
    """Error rate and overlap (when the truth is known), the certificate and the work done.

    Under the error rate, why it has no interval (:func:`dpviz.lab.intervals.intervals`).
    """
    found = np.asarray(result.estimate["labels"])
    diagnostics = result.diagnostics
    columns = st.columns(4)
    if labels is not None:
        error = community_error(labels, found)
        columns[0].metric("Error rate", f"{error:.3f}", help="min(#wrong, n − #wrong)/n: "
                          "0 is perfect, 0.5 is a coin flip.")
        columns[1].metric("Overlap", f"{1 - 2 * error:.3f}", help="1 − 2 · error rate.")
        st.caption(escape_markdown(as_sentence(
            intervals.intervals(scenario, result, len(found)).sentence())))
    if "certificate" in diagnostics:
        columns[2].metric("Certificate", f"{diagnostics['certificate']:.2e}",
                          help=r"The projection's certificate: its certified distance to "
                               r"the exact projection, per vertex "
                               r"($\tau_C/n$, [in the glossary](/glossary#certificate)); the "
                               f"public tolerance is τ* = {diagnostics['tolerance']:.2e}. A "
                               "diagnostic computed from the private graph, shown for the "
                               "lesson: not part of the release (the noise never depends on "
                               "it).")
    if "eigendecompositions" in diagnostics:
        columns[3].metric("Spectra", f"{diagnostics['eigendecompositions']}",
                          help="Eigendecompositions: the n × n spectra the solver computed (a "
                               "cached projection is not recomputed when ε moves). A "
                               "diagnostic of the private graph, not part of the release.")


def result_panels(scenario: Scenario, data: LoadedData, result: Result, *,
                  revealed: bool = True) -> None:
    """The adjacency heatmaps, the graph, the ledger and the choices of one run.

    ``revealed`` False (predict mode, before Reveal; the truth is known) leaves out what draws
    the recovered communities: their ordering of the matrix and the coloured graph.
    """
    found = np.asarray(result.estimate["labels"], dtype=np.int64)
    graph, labels = data.data, true_labels(data)
    panels = ([("ordered by the true communities", labels)] if labels is not None
              else []) + ([("ordered by the recovered ones", found)] if revealed else [])
    show_chart(figures.adjacency_figure(graph.edges, graph.n, panels), key="sbm_adjacency",
               filename="dpviz-sbm-adjacency")
    if graph.n > figures.MAX_PIXELS:
        size = figures.block_size(graph.n)
        st.caption(f"n = {graph.n:,} is too many pixels: each pixel is the share of the "
                   f"{size} × {size} pairs it covers that are joined by an edge.")
    if revealed:
        drawn = layout(scenario, data)
        truth = labels if labels is not None else found
        show_chart(figures.graph_figure(drawn.positions, drawn.edges, found[drawn.vertices],
                                        truth[drawn.vertices], vertices=drawn.vertices),
                   key="sbm_graph", filename="dpviz-sbm-graph")
        st.caption(layout_caption(drawn, graph.n) if labels is not None else
                   layout_caption(drawn, graph.n).split(" Colours")[0] +
                   " Colours are the recovered communities (the true ones are unknown).")
    else:
        st.caption("The recovered communities (their ordering of the matrix, the coloured "
                   "graph) and the error: hidden until you reveal your guess.")
    if result.ledger.releases:
        show_chart(ledger_bar(result.ledger, title=budget_title(
            "Where the budget went", result.not_private)), key="sbm_ledger",
            filename="dpviz-sbm-ledger")
        risk_panel(result.ledger, scenario, key="sbm", not_private=result.not_private)
    else:
        st.caption("Non-private: nothing was released with noise, no budget spent.")

    def choices() -> None:
        st.dataframe(choices_table(result.choices), hide_index=True, key="sbm_choices")
        if "guarantee" in result.diagnostics:
            st.caption(f"Guarantee: {result.diagnostics['guarantee']}.")

    lazy_expander("Choices the paper leaves open, as used", choices, key="sbm_choices_open",
                  icon=":material/rule:")
