"""Widgets and panels of the stochastic block model page (seed 003, §5).

The controls return one :class:`~dpviz.lab.scenario.Scenario` (the graph's data block, the
estimator, its budget and parameters, the seed), run through :func:`dpviz.ui.runs.run`. The
certified projection depends on the graph, d and ε_s but not on the privacy budget, so the
runner caches the graph prepared with it: an ε move adds noise to the cached matrix and
takes one eigenvector, never a new projection.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from numpy.typing import NDArray

from dpviz.core import limits
from dpviz.core.entry import Param
from dpviz.data.graphs import Graph
from dpviz.estimators.metrics import community_error
from dpviz.estimators.registry import TASKS
from dpviz.estimators.result import Result
from dpviz.estimators.sbm import kesten_stigum
from dpviz.estimators.sbm.projection import TOLERANCE_FRACTION
from dpviz.estimators.work import INTERACTIVE, check_scenario
from dpviz.lab.intervals import NO_INTERVAL
from dpviz.lab.recovery import SPLIT, Outlook, recovery_outlook
from dpviz.lab.scenario import LoadedData, Scenario, load_data
from dpviz.ui import widgets
from dpviz.ui.panels import predict
from dpviz.ui.panels.risk import budget_title, risk_panel
from dpviz.ui.panels.upload import UPLOAD_NOTE
from dpviz.ui.runs import canonical
from dpviz.ui.shell import PageContext
from dpviz.ui.widgets import (
    LINK_RUNS,
    accept_option_names,
    advanced,
    attempt,
    choices_table,
    delta_input,
    epsilon_slider,
    escape_markdown,
    lazy_expander,
    method_select,
    show_chart,
    upload_block,
    upload_content,
)
from dpviz.viz import ledger_bar
from dpviz.viz import sbm as figures

SYNTHETIC, KARATE, UPLOAD = "synthetic", "karate", "upload"
SOURCES = {SYNTHETIC: "Synthetic SBM", KARATE: "Zachary's karate club",
           "les_miserables": "Les Misérables", "florentine_families": "Florentine families",
           "davis_southern_women": "Davis' Southern Women", UPLOAD: "Upload an edge list (CSV)"}
#: Parameters the page sets for every estimator (the graph's), not estimator widgets.
GRAPH_PARAMS = frozenset({"n", "degree", "signal"})
#: Above this many vertices the graph drawn is a seeded sample of them (its induced edges).
DRAWN_VERTICES = 400
#: At most this many edges are drawn (a seeded sample; the caption says how many); the layout
#: uses all of them. More lines in a 560-pixel drawing show no more and cost every redraw.
DRAWN_EDGES = 2000
DEFAULT_ESTIMATOR = "weak_recovery"
DEFAULT_DELTA = 1e-6


def model_caption(n: int, degree: float, signal: float) -> str:
    """The model in both views: (d, ε_s) and (p_in, p_out), and the Kesten–Stigum ratio.

    Examples
    --------
    >>> model_caption(1000, 100.0, 0.5)[:57]
    'p_in = (1 + ε_s)·d/n = 0.15, p_out = (1 − ε_s)·d/n = 0.05'
    """
    ratio = kesten_stigum(degree, signal)
    side = "above" if ratio > 1 else "at or below"
    return (f"p_in = (1 + ε_s)·d/n = {(1 + signal) * degree / n:.3g}, p_out = (1 − ε_s)·d/n "
            f"= {(1 - signal) * degree / n:.3g} (a = {(1 + signal) * degree:.3g}, b = "
            f"{(1 - signal) * degree:.3g}). ε_s² d = {ratio:.3g}: {side} the Kesten–Stigum "
            "threshold 1, below which no algorithm, private or not, beats a coin flip. The "
            "signal ε_s is a property of the graph, not the privacy ε.")


@dataclass(frozen=True)
class GraphChoice:
    """The graph the controls chose: its data block, an upload's bytes, the model given.

    ``block`` is ``None`` while the upload source waits for its file or for a value
    (``missing`` then says which); ``model`` holds an upload's public d and ε_s (a generated
    graph's and the karate club's come with the data); ``vertices`` is n when d and ε_s are
    public, for the recovery outlook (:func:`outlook_note`).
    """

    block: dict[str, Any] | None
    content: bytes | None = None
    model: Mapping[str, float] = field(default_factory=dict)
    missing: str | None = None
    vertices: int | None = None


def graph_controls(data_seed: int) -> GraphChoice:
    """The graph: a synthetic SBM (n, d, ε_s), the karate club, or an uploaded edge list."""
    read_old_upload_link()
    accept_option_names("sbm_source", tuple(SOURCES), SOURCES.__getitem__)
    source = st.radio("Graph", tuple(SOURCES), format_func=SOURCES.__getitem__,
                      key="sbm_source", bind="query-params", horizontal=True,
                      help="A generated two-community graph (its communities are known), "
                           "Zachary's karate club (two factions, 34 members), three graphs "
                           "that ship with networkx (no known communities: nothing scored) "
                           "or your own edge list.")
    if source not in (SYNTHETIC, UPLOAD):  # a bundled graph: its public parameters with it
        return GraphChoice({"dataset": str(source)})
    if source == UPLOAD:
        return upload_controls()
    a, b = st.columns(2)
    n = int(a.number_input("Vertices n", min_value=int(limits.SBM_VERTICES.low),
                           max_value=int(limits.SBM_VERTICES.high), value=1000, step=100,
                           format="%d", key="sbm_n", bind="query-params",
                           help="Half the vertices in each community. The projection-based "
                                f"estimators take at most {limits.SBM_PROJECTION_VERTICES:,}."))
    degree = float(b.number_input("Average degree d", min_value=float(limits.SBM_DEGREE.low),
                                  max_value=float(limits.SBM_DEGREE.high), value=100.0,
                                  step=10.0, format="%g", key="sbm_degree",
                                  bind="query-params",
                                  help="A public model parameter, never read off the graph."))
    signal = signal_slider("How much likelier an edge is inside a community than across: "
                           "p_in = (1 + ε_s)d/n, p_out = (1 − ε_s)d/n. Public, like d.")
    st.caption(model_caption(n, degree, signal))
    return GraphChoice({"generator": "sbm", "n": n, "degree": degree, "signal": signal,
                        "seed": data_seed}, vertices=n)


def signal_slider(help: str) -> float:
    """The signal ε_s slider (key ``sbm_signal``, which links bind), explained by ``help``."""
    return float(st.slider("Signal ε_s (of the graph, not the privacy ε)", min_value=0.01,
                           max_value=1.0, value=0.5, step=0.01, key="sbm_signal",
                           bind="query-params", help=help))


#: How an upload's n and d are set: given by the user (public), or read from the graph.
GIVEN, READ = "given", "read"
N_WAYS = {READ: "count the edge list's ids (not private)", GIVEN: "I give n (public)"}
D_WAYS = {READ: "its mean degree, read from the graph (not private)",
          GIVEN: "I give d (public)"}
#: The upload's own n and d: a generated graph's are ``sbm_n`` and ``sbm_degree``, so its
#: values never carry over (links made when the two shared them: :func:`read_old_upload_link`).
UPLOAD_N, UPLOAD_DEGREE = "sbm_upload_n", "sbm_upload_degree"
#: Runs left in which an old link's n and d are set again (:func:`read_old_upload_link`).
_OLD_LINK = "sbm_old_link_runs"
N_HELP = ("Edge privacy hides who is linked to whom; the vertices themselves are public: type "
          "how many the network has, from what you know of it. The file's ids are shown as a "
          "hint only — they come from its edges (a vertex with no edge is missing, and one "
          "edge can move the largest id), so taking them unchecked would make n depend on "
          "the edges. Counting the ids instead marks the run not private.")
D_HELP = ("The number of neighbours you expect a vertex to have in this kind of network, from "
          "what you know of it (a survey, a published figure, how it was built) — never from "
          "this file: the privacy proof needs d public, and the noise is scaled to it.")
D_MISSING = ("Type d, the neighbours you expect a vertex to have, from what you know of the "
             "network (not from this file), to run.")
N_MISSING = "Type n, the number of vertices (ids 0 … n−1), to run."


def read_old_upload_link() -> None:
    """Open a link made when an upload's n and d had the generated graph's keys.

    Such a link (``sbm_source=upload`` with ``sbm_n`` or ``sbm_degree``) gives the upload's n
    and d: they are put into the upload's own controls (the one way to set a bound control),
    only when the page opens — later in a session ``sbm_n`` and ``sbm_degree`` are the
    generated graph's, which must not carry over. As for a named option
    (:func:`~dpviz.ui.widgets.accept_option_names`), Streamlit writes a value so set to the
    link only after the browser has sent the control back: it is set again on the next
    :data:`~dpviz.ui.widgets.LINK_RUNS` runs.
    """
    runs = st.session_state.get(_OLD_LINK)
    if runs is None:
        params, moved = st.query_params, False
        if params.get("sbm_source") in (UPLOAD, SOURCES[UPLOAD]):
            for old, new, kind in (("sbm_n", UPLOAD_N, int), ("sbm_degree", UPLOAD_DEGREE,
                                                               float)):
                if old in params and new not in params:
                    try:
                        st.session_state[new] = kind(float(params[old]))
                    except ValueError:  # not a number: the control starts empty
                        continue
                    moved = True
        st.session_state[_OLD_LINK] = LINK_RUNS if moved else 0
    elif runs > 0:
        st.session_state[_OLD_LINK] = runs - 1
        for key in (UPLOAD_N, UPLOAD_DEGREE):
            if key in st.session_state:
                st.session_state[key] = st.session_state[key]


def vertex_count(block: Mapping[str, Any], content: bytes) -> int:
    """The vertices an edge list's ids give (``n`` left out of ``block``): where n starts."""
    return int(load_data({**block, "n": None}, content=content).data.n)


def upload_controls() -> GraphChoice:
    """An uploaded edge list: n given (from the file's count) or counted, d given or read, ε_s.

    The edge list's report (n, isolated vertices, self-loops, renumbering) is the data's
    description, shown with the result. Values read from the graph are marked not private;
    d given has no default (``missing`` asks for it).
    """
    upload = st.file_uploader("Edge list: two integer columns (vertex ids)",
                              type=["csv", "txt"], key="sbm_upload",
                              help="One edge per row, each once; an optional header row. "
                                   "Self-loops are dropped and counted.")
    st.caption(UPLOAD_NOTE)
    # full width: in half the controls column its label is cut off
    renumber = st.checkbox("Renumber the ids 0 … m−1", value=False, key="sbm_renumber",
                           bind="query-params",
                           help="For ids with gaps (e.g. 3, 17, 1 002): the distinct ids in "
                                "increasing order become 0 … m−1. Otherwise an id missing "
                                "below the largest is a vertex with no edge (isolated).")
    block: dict[str, Any] | None = None
    content = None
    if upload is not None:
        content = attempt(upload_content, upload)
        block = {**upload_block(upload, content), **({"renumber": True} if renumber else {})}
    a, b = st.columns(2)
    accept_option_names("sbm_upload_n_way", tuple(N_WAYS), N_WAYS.__getitem__)
    accept_option_names("sbm_upload_d_way", tuple(D_WAYS), D_WAYS.__getitem__)
    # a link that gives n or d opens with them given
    n_way = a.radio("Vertices n", tuple(N_WAYS), format_func=N_WAYS.__getitem__,
                    index=int(UPLOAD_N in st.query_params or UPLOAD_N in st.session_state),
                    key="sbm_upload_n_way",
                    bind="query-params", help=N_HELP)
    n: int | None = None
    if n_way == GIVEN:
        # the file's count is a hint, never the value: it is read from the edges
        hint = ("the vertices you know of" if block is None or content is None else
                f"its ids suggest {attempt(vertex_count, block, content):,}")
        given_n = a.number_input("n (ids are 0 … n−1)", min_value=int(limits.SBM_VERTICES.low),
                                 max_value=int(limits.SBM_VERTICES.high), value=None, step=1,
                                 format="%d", key=UPLOAD_N, bind="query-params",
                                 placeholder=hint, help=N_HELP)
        n = None if given_n is None else int(given_n)
    d_way = b.radio("Average degree d", tuple(D_WAYS), format_func=D_WAYS.__getitem__,
                    index=int(UPLOAD_DEGREE in st.query_params
                              or UPLOAD_DEGREE in st.session_state),
                    key="sbm_upload_d_way",
                    bind="query-params", help=D_HELP)
    degree: float | None = None
    if d_way == GIVEN:
        given_d = b.number_input("d: neighbours you expect per vertex",
                                 min_value=float(limits.SBM_DEGREE.low),
                                 max_value=float(limits.SBM_DEGREE.high), value=None, step=1.0,
                                 format="%g", key=UPLOAD_DEGREE, bind="query-params",
                                 placeholder="from what you know", help=D_HELP)
        degree = None if given_d is None else float(given_d)
    signal = signal_slider("How much likelier a link is inside a community than across "
                           "(0: no communities, 1: links only inside). Public, like d: a guess "
                           "from what you know of the network.")
    if block is None:
        return GraphChoice(None)
    missing = (N_MISSING if n_way == GIVEN and n is None else
               D_MISSING if d_way == GIVEN and degree is None else None)
    if missing is not None:
        return GraphChoice(None, missing=missing)
    block["n"] = n
    if degree is not None:  # the outlook needs a public n: none when n is read off the ids
        return GraphChoice(block, content, {"degree": degree, "signal": signal}, vertices=n)
    # d left out: the run reads it from the graph and is marked not private
    read = attempt(load_data, block, content=content).public["degree"]
    st.warning(f"Not private: d = {read:.3g} is read from the graph (its mean degree). "
               "Give d from what you know of the network to keep the guarantee, and to see "
               "whether its communities can be recovered privately.",
               icon=":material/warning:")
    return GraphChoice(block, content, {"signal": signal})


def param_widget(estimator: str, param: Param) -> Any:
    """A widget for one of a sbm estimator's registry parameters (key ``sbm_<e>_<p>``)."""
    return widgets.param_widget(f"sbm_{estimator}_{param.name}", param)


def _estimator_label(name: str) -> str:
    return TASKS["sbm"][name].label


def estimator_controls() -> tuple[str, dict[str, Any]]:
    """Algorithm (from the registry), its parameters, the budget; the choices in the expander.

    Returns the estimator's name and its scenario parameters: a non-private reference gets
    ε = ∞ and δ = 0.
    """
    names = tuple(TASKS["sbm"])
    accept_option_names("sbm_estimator", names, _estimator_label)
    estimator = str(st.selectbox("Algorithm", names, index=names.index(DEFAULT_ESTIMATOR),
                                 format_func=_estimator_label, key="sbm_estimator",
                                 bind="query-params"))
    entry = TASKS["sbm"][estimator]
    st.caption(entry.paper)
    own = [p for p in entry.params if p.name not in GRAPH_PARAMS]
    params = {p.name: param_widget(estimator, p) for p in own if not p.choice}
    epsilon = epsilon_slider("sbm_epsilon", value=2.0, label="Privacy ε")
    delta = delta_input("sbm_delta", value=DEFAULT_DELTA, label="δ")
    if entry.notion == "none":
        st.caption(f"{entry.label} is a non-private reference: ε and δ are not used.")
        epsilon, delta = math.inf, 0.0
    with advanced("Accounting and the choices the paper leaves open", "sbm"):
        accounting = method_select("sbm_accounting", value="pld")
        for p in own:
            if p.choice:
                params[p.name] = param_widget(estimator, p)
    return estimator, {**params, "epsilon": epsilon, "delta": delta, "accounting": accounting}


def controls(ctx: PageContext) -> tuple[Scenario, bytes | None] | None:
    """The page's run as a scenario, with an upload's bytes; ``None`` while no file is given.

    Teaching randomness: the scenario's seed is the global seed; under secure randomness it is
    ``None`` and the page passes the rerun's fresh entropy to :func:`dpviz.ui.runs.run`.

    Raises
    ------
    ValueError
        A parameter out of its range (e.g. an edge probability above 1), with the sentence.
    """
    graph = graph_controls(ctx.data_seed)
    estimator, params = estimator_controls()
    if graph.missing is not None:
        st.info(graph.missing, icon=":material/edit:")
        st.stop()
    if graph.block is None:
        return None
    scenario = Scenario.from_dict({"task": "sbm", "estimator": estimator, "data": graph.block,
                                   "params": {**params, **graph.model},
                                   "seed": None if ctx.secure else ctx.seed})
    if graph.vertices is not None and not predict.enabled():  # predict mode: the user guesses
        outlook_note(scenario, graph.vertices)
    return scenario, graph.content


@st.cache_data(max_entries=64, show_spinner="Measuring the signal on generated graphs…")
def _outlook(estimator: str, n: int, degree: float, signal: float, epsilon: float,
             delta: float, split: float, tolerance: float) -> Outlook:
    return recovery_outlook(estimator, n=n, degree=degree, signal=signal, epsilon=epsilon,
                            delta=delta, split_probability=split, tolerance_fraction=tolerance)


def outlook_note(scenario: Scenario, n: int) -> None:
    """Whether the paper's recovery condition holds at the public n, d, ε_s and ε, in words.

    From :func:`dpviz.lab.recovery.recovery_outlook` (public inputs only): a warning when the
    communities cannot be expected back, else a note. Nothing for a run the page will refuse
    as too much work (the outlook generates graphs of its size): the refusal says why.
    """
    try:
        check_scenario(scenario.task, scenario.estimator, scenario.data, scenario.params,
                       INTERACTIVE)
    except ValueError:
        return
    params = {**scenario.data, **scenario.params}
    out = attempt(_outlook, scenario.estimator, int(n), float(params["degree"]),
                  float(params["signal"]), float(params["epsilon"]),
                  float(params.get("delta") or 0.0),
                  float(params.get("split_probability") or SPLIT),
                  float(params.get("tolerance_fraction") or TOLERANCE_FRACTION))
    if out.regime in ("undetectable", "near-random", "partial"):
        st.warning(out.sentence, icon=":material/warning:")
    else:
        st.info(out.sentence, icon=":material/insights:")


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


#: The error rate's interval line (issue 32): a bootstrap from the released labels and the
#: public n, degree and ε would be a prediction interval whose coverage no bench has measured.
ERROR_RATE_NO_INTERVAL = (f"Error rate: {NO_INTERVAL} (an interval from the released "
                          "communities and the public n, degree and ε was not measured).")


def result_metrics(result: Result, labels: NDArray[np.int64] | None) -> None:
    """Error rate and overlap (when the truth is known), the certificate and the work done."""
    found = np.asarray(result.estimate["labels"])
    diagnostics = result.diagnostics
    columns = st.columns(4)
    if labels is not None:
        error = community_error(labels, found)
        columns[0].metric("Error rate", f"{error:.3f}", help="min(#wrong, n − #wrong)/n: "
                          "0 is perfect, 0.5 is a coin flip.")
        columns[1].metric("Overlap", f"{1 - 2 * error:.3f}", help="1 − 2 · error rate.")
        st.caption(ERROR_RATE_NO_INTERVAL)
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


def summarise(frame: pd.DataFrame, by: str, metric: str) -> pd.DataFrame:
    """Median and quartiles of ``metric`` per (estimator, ``by``), with the seed count.

    Examples
    --------
    >>> frame = pd.DataFrame({"estimator": ["a"] * 4, "epsilon": [1, 1, 1, 2],
    ...                       "overlap": [0.1, 0.2, 0.3, 0.5]})
    >>> summarise(frame, "epsilon", "overlap").round(3).values.tolist()
    [['a', 1.0, 0.2, 0.15, 0.25, 3.0], ['a', 2.0, 0.5, 0.5, 0.5, 1.0]]
    """
    grouped = frame.groupby(["estimator", by], sort=False)[metric]
    out = pd.DataFrame({"median": grouped.median(), "low": grouped.quantile(0.25),
                        "high": grouped.quantile(0.75), "seeds": grouped.count()})
    return out.reset_index().astype({by: float, "seeds": float})


# --- Curves: error against ε and n, the phase diagram ---------------------------------------

#: Curves are computed live (after a click) up to this many vertices, else read from a save.
LIVE_VERTICES = 400
LIVE_SEEDS = 3
EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0)
SIGNALS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
#: Private estimators on the ε curve (the Metropolis chain has no guarantee: left out).
PRIVATE = ("weak_recovery", "exact_recovery", "gauss_adjacency", "randomized_response")
REFERENCES = ("spectral", "projection")
BASELINE = "randomized_response"
PHASE = ("weak_recovery", "randomized_response")
#: The ε of the error-against-n chart (where ALGORITHMS.md §7 puts the crossover).
N_EPSILON = 2.0
#: ``dpviz.lab.experiments.sbm_curves.load_saved`` names of the saved larger runs.
SAVED = {"epsilon": "accuracy_n1000", "n": "error_vs_n", "phase": "phase_n500"}
RR_CAPTION = ("Randomized response flips every pair of vertices, so its noise grows like "
              "$\\sqrt{n}\\,e^{-\\varepsilon/2}$ while the projection's does not grow with "
              "n: it wins on small graphs and loses on large ones. In the saved runs at "
              "d = 100, ε = 2 the crossover lies between n = 5,000 (median error .12 for "
              "randomized response, .18 for private weak recovery) and n = 10,000 (.29 "
              "against .18). Without this chart its success on a small graph would look "
              "like a bug.")


@dataclass(frozen=True)
class Curves:
    """The runs behind the three charts, and where they come from."""

    by_epsilon: pd.DataFrame
    by_n: pd.DataFrame
    phase: pd.DataFrame
    degree: float
    source: str
    phase_source: str


def _progress_callback(bar: Any, start: float, share: float) -> Any:
    def report(done: int, total: int) -> None:
        bar.progress(min(1.0, start + share * done / max(total, 1)))

    return report


def live_curves(n: int, degree: float, signal: float, delta: float, seeds: int,
                bar: Any = None) -> Curves:
    """The three curves on ``seeds`` generated graphs like the page's (sweeps of the runner)."""
    from dpviz.lab.experiments import sbm_curves as curves

    def step(start: float, share: float) -> Any:
        return None if bar is None else _progress_callback(bar, start, share)

    curves.check_curves(PRIVATE + REFERENCES, PHASE, n=n, degree=degree, signal=signal,
                        epsilons=EPSILONS, signals=SIGNALS, seeds=seeds)  # before any run
    by_epsilon = curves.error_curve(PRIVATE + REFERENCES, n=n, degree=degree, signal=signal,
                                    epsilons=EPSILONS, delta=delta, seeds=seeds,
                                    progress=step(0.0, 0.45))
    sizes = curves.n_sizes(n, degree, signal)
    by_n = curves.error_vs_n(PHASE, ns=sizes, degree=degree, signal=signal, epsilon=N_EPSILON,
                             delta=delta, seeds=seeds, progress=step(0.45, 0.15))
    signals = curves.phase_signals(SIGNALS, n, degree)
    phase = curves.phase_diagram(PHASE, n=n, degree=degree, signals=signals,
                                 epsilons=EPSILONS, delta=delta, seeds=seeds,
                                 progress=step(0.6, 0.4))
    source = f"computed live on {seeds} generated graphs"
    return Curves(by_epsilon, by_n, phase, degree, source, source)


@st.cache_data(max_entries=1, show_spinner=False)
def saved_curves() -> Curves:
    """The saved larger runs (``assets/results/sbm_*.csv``)."""
    from dpviz.lab.experiments import sbm_curves as curves

    tables = {key: curves.load_saved(name) for key, name in SAVED.items()}
    first = tables["epsilon"].iloc[0]
    source = (f"saved runs (make figures) on generated graphs, n = {int(first['n']):,}, d = "
              f"{first['degree']:g}, ε_s = {first['signal']:g}, "
              f"{tables['epsilon']['seed'].nunique()} seeds per point")
    phase = (f"saved runs (make figures) at n = 500 (d = {first['degree']:g}), seeds per "
             f"cell: at least {int(tables['phase']['seeds'].min())}")
    return Curves(tables["epsilon"], tables["n"], tables["phase"], float(first["degree"]),
                  source, phase)


def _label(name: str) -> str:
    return TASKS["sbm"][name].label


def curves_section(scenario: Scenario) -> None:
    """Overlap against ε, error against n and the phase diagram: live or saved.

    Live on graphs generated like the scenario's (a generated graph of at most
    :data:`LIVE_VERTICES` vertices), at its δ (the page's default δ when the scenario is a
    non-private reference, which has none); else the saved larger runs.
    """
    block = scenario.data
    if block.get("generator") == "sbm" and int(block["n"]) <= LIVE_VERTICES:
        st.caption(f"For n ≤ {LIVE_VERTICES} the curves are computed on {LIVE_SEEDS} graphs "
                   "like this one (it takes seconds: click when ready).")
        key = (int(block["n"]), float(block["degree"]), float(block["signal"]),
               float(scenario.params.get("delta") or DEFAULT_DELTA))
        if st.button("Compute curves", key="sbm_compute", icon=":material/play_arrow:"):
            bar = st.progress(0.0, text="Running every algorithm on every graph…")
            try:
                st.session_state["sbm_curves"] = (key, live_curves(*key, LIVE_SEEDS, bar=bar))
            except ValueError as err:
                st.error(escape_markdown(err), icon=":material/error:")
                return
            bar.empty()
        remembered = st.session_state.get("sbm_curves")
        if remembered is None or remembered[0] != key:
            return
        shown, drawn = remembered[1], curve_figures(remembered[1])
    else:
        try:
            shown, drawn = saved_curves(), saved_curve_figures()
        except ValueError as err:
            st.info(f"The curves for this graph come from saved runs, and "
                    f"{escape_markdown(err)}.",
                    icon=":material/info:")
            return
    curves_charts(shown, drawn)


CurveFigures = tuple[go.Figure, go.Figure, go.Figure]


@st.cache_resource(max_entries=1, show_spinner=False)
def saved_curve_figures() -> CurveFigures:
    """:func:`curve_figures` of :func:`saved_curves`, built once per server.

    They do not move with ε: built on every rerun they cost 0.1–0.7 s of Plotly validation.
    Shared between sessions, so never changed in place (:func:`dpviz.ui.widgets.show_chart`
    copies a figure before presenter mode resizes it).
    """
    return curve_figures(saved_curves())


def curve_figures(shown: Curves) -> CurveFigures:
    """Overlap against ε, error against n and the phase diagram of :class:`Curves`."""
    drawn = shown.by_epsilon[shown.by_epsilon["estimator"].isin(PRIVATE + REFERENCES)]
    frame = drawn.assign(estimator=drawn["estimator"].map(_label))
    frame.loc[frame["estimator"].isin([_label(r) for r in REFERENCES]), "epsilon"] = math.inf
    ratio = kesten_stigum(float(drawn["degree"].iloc[0]), float(drawn["signal"].iloc[0]))
    side = "above" if ratio > 1 else "below"
    by_epsilon = figures.epsilon_curves(summarise(frame, "epsilon", "overlap"),
                                        references=[_label(r) for r in REFERENCES],
                                        baselines=[_label(BASELINE)],
                                        title=f"Overlap against the privacy ε — ε_s²d = "
                                              f"{ratio:.3g}, {side} the Kesten–Stigum "
                                              "threshold 1")
    by_n = shown.by_n.assign(estimator=shown.by_n["estimator"].map(_label))
    at = float(shown.by_n["epsilon"].iloc[0])
    n_figure = figures.n_curves(summarise(by_n, "n", "error"), baselines=[_label(BASELINE)],
                                title=f"Error rate against the number of vertices n, at ε = "
                                      f"{at:g}")
    panels = [(_label(name), shown.phase[shown.phase["estimator"] == name]) for name in PHASE]
    return by_epsilon, n_figure, figures.phase_figure(panels, degree=shown.degree)


def curves_charts(shown: Curves, drawn: CurveFigures) -> None:
    """Draw the three charts of :class:`Curves` (``drawn``: its figures) with their captions."""
    by_epsilon, by_n, phase = drawn
    show_chart(by_epsilon, key="sbm_by_epsilon", filename="dpviz-sbm-overlap-by-epsilon")
    st.caption(f"Median over seeds, quartile bands; {shown.source}. Dotted: the non-private "
               "answers; dashed: the randomized-response baseline. The exponential mechanism "
               "is left out: beyond n = 20 it runs as a Metropolis chain with no privacy "
               "guarantee.")
    show_chart(by_n, key="sbm_by_n", filename="dpviz-sbm-error-by-n")
    st.caption(RR_CAPTION)
    show_chart(phase, key="sbm_phase", filename="dpviz-sbm-phase")
    st.caption(f"Success: error rate ≤ 0.1; {shown.phase_source}. Left of the dashed "
               "Kesten–Stigum line no algorithm succeeds, with or without privacy.")
