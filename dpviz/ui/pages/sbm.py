"""The stochastic block model page's controls (seed 003, §5).

The controls return one :class:`~dpviz.lab.scenario.Scenario` (the graph's data block, the
estimator, its budget and parameters, the seed), run through :func:`dpviz.ui.runs.run`. The
certified projection depends on the graph, d and ε_s but not on the privacy budget, so the
runner caches the graph prepared with it: an ε move adds noise to the cached matrix and
takes one eigenvector, never a new projection. The run's panels are
:mod:`dpviz.ui.pages.sbm_results`'s, the curves :mod:`dpviz.ui.pages.sbm_curves`'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from dpviz.core import limits
from dpviz.core.entry import Param
from dpviz.estimators.registry import TASKS
from dpviz.estimators.sbm import kesten_stigum
from dpviz.estimators.sbm.projection import TOLERANCE_FRACTION
from dpviz.estimators.work import INTERACTIVE, check_scenario
from dpviz.lab.recovery import SPLIT, Outlook, recovery_outlook
from dpviz.lab.scenario import Scenario, load_data
from dpviz.ui import widgets
from dpviz.ui.panels import predict
from dpviz.ui.panels.upload import UPLOAD_NOTE
from dpviz.ui.shell import PageContext
from dpviz.ui.widgets import (
    LINK_RUNS,
    accept_option_names,
    advanced,
    attempt,
    delta_input,
    epsilon_slider,
    method_select,
    upload_block,
    upload_content,
)

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
