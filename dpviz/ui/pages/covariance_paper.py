"""The covariance page's paper panel: the paper's figures, from runs ``make figures`` saved."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dpviz.estimators.registry import TASKS
from dpviz.lab.experiments import covariance_figures as reproduction
from dpviz.ui.pages.covariance import AXIS_TITLES, short_label
from dpviz.ui.widgets import (
    accept_option_names,
    show_chart,
)
from dpviz.viz import covariance as cov_viz


@st.cache_data(max_entries=8, show_spinner=False)
def saved_figure(name: str) -> pd.DataFrame:
    """A saved reproduction table (the engine's sentence if it is missing)."""
    return reproduction.load_saved(name)


@st.cache_resource(max_entries=8, show_spinner=False)
def paper_drawing(name: str, table: pd.DataFrame) -> tuple[go.Figure,
                                                            list[reproduction.Verdict]]:
    """The saved figure ``name``'s chart and the paper's verdicts on ``table``, once a server.

    Neither moves with the budget: built on every rerun they were a third of the page's
    rerun (Plotly's validation, the verdicts' crossovers). Keyed by the table, so a newly
    saved one is drawn anew. Shared between sessions, so never changed in place
    (:func:`dpviz.ui.widgets.show_chart` copies a figure before presenter mode resizes it).
    """
    labels = {n: short_label(n) for n in TASKS["covariance"]
              if (table["estimator"] == n).any()}
    x_name = str(table["x_name"].iloc[0])
    x_title = AXIS_TITLES.get(x_name, x_name)
    fig = cov_viz.paper_curves(table, labels=labels, x_title=x_title,
                               title=f"{figure_title(name)}: mean error against {x_title}")
    return fig, reproduction.verdicts({name: table})


def figure_title(name: str) -> str:
    """A saved figure's short title, e.g. ``"Figure 2"`` (its description up to the colon).

    Examples
    --------
    >>> figure_title("fig3d")
    'Figure 3(d)'
    """
    return reproduction.FIGURES[name].split(":")[0]


@st.fragment
def paper_panel() -> None:
    """The paper's Figures 2–3 from ``assets/results``, with the repeats and the claim."""
    names = tuple(reproduction.FIGURES)
    accept_option_names("cov_paper_figure", names, figure_title)
    plot, words = st.columns([3, 2], gap="large")
    name = words.selectbox("Figure", names, format_func=figure_title, key="cov_paper_figure",
                           bind="query-params")
    try:
        table = saved_figure(name)
    except ValueError as err:  # not saved yet: say how to make it, keep the page running
        words.warning(str(err), icon=":material/hourglass_empty:")
        return
    x_name = str(table["x_name"].iloc[0])
    fig, verdicts = paper_drawing(name, table)
    with plot:
        show_chart(fig, key="cov_paper", filename=f"dpviz-covariance-{name}")
    with words:
        claim = reproduction.FIGURES[name].split(":", 1)[-1].strip()
        st.markdown(f"**The paper's claim:** {claim}.")
        for verdict in verdicts:
            holds = "holds" if verdict.holds else "does not hold"
            st.markdown(f"**Verdict — {holds}:** {verdict.claim}. {verdict.numbers}.")
        repeats = sorted({int(r) for r in table["repeats"]})
        fixed = [f"{c} = {float(table[c].iloc[0]):.3g}" for c in ("n", "d", "rho", "trace")
                 if c != x_name and table[c].nunique() == 1]
        st.caption(f"Mean error over {' or '.join(map(str, repeats))} repeats per point "
                   "(bars: ± one standard deviation over the repeats), fresh data and noise "
                   "each repeat"
                   + (f"; fixed: {', '.join(fixed)}" if fixed else "")
                   + ". Saved in assets/results by `make figures`, not run here.")
