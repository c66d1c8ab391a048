"""The stochastic block model page's curves: error against ε, n and the signal, live or saved.

Saved curves come from runs ``make figures`` wrote (:mod:`dpviz.lab.experiments.sbm_curves`);
live ones are computed on the page for a small graph like the reader's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dpviz.estimators.registry import TASKS
from dpviz.estimators.sbm import kesten_stigum
from dpviz.lab.scenario import Scenario
from dpviz.ui.pages.sbm import DEFAULT_DELTA
from dpviz.ui.widgets import (
    escape_markdown,
    show_chart,
)
from dpviz.viz import sbm as figures


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
