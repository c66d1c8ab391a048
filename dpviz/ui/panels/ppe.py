"""The Private Populous Estimator's sample-size calculator panel (Arbas 2023; ALGORITHMS.md §5).

Self-contained: the lead places :func:`sample_size_calculator` on the Gaussian mixtures page.
Every widget key starts with ``gmm_ppecalc_``; the engine does the arithmetic
(:mod:`dpviz.estimators.gmm.sample_size`) and the figure comes from :mod:`dpviz.viz.ppe`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpviz.core import limits
from dpviz.estimators.gmm.sample_size import (
    SampleAtHand,
    SampleSizePlan,
    sample_at_hand,
    sample_size_plan,
)
from dpviz.ui.widgets import attempt, show_chart
from dpviz.viz.ppe import plan_table, sample_size_figure

#: α values of the figure's sweep (log-spaced; the target α is added).
ALPHA_SWEEP = tuple(float(a) for a in np.geomspace(0.01, 3.0, 8))


@st.cache_data(max_entries=32, show_spinner="Solving for the masking radius…")
def _plans(epsilon: float, delta: float, k: int, d: int, alpha: float, beta: float,
           w_min: float) -> tuple[SampleSizePlan, list[SampleSizePlan]]:
    plan = sample_size_plan(epsilon, delta, k, d, alpha, beta, w_min)
    sweep = [sample_size_plan(epsilon, delta, k, d, a, beta, w_min)
             for a in sorted({*ALPHA_SWEEP, alpha})]
    return plan, sweep


@st.cache_data(max_entries=32, show_spinner=False)
def _at_hand(n: int, epsilon: float, delta: float, k: int, d: int, beta: float,
             w_min: float) -> SampleAtHand:
    return sample_at_hand(n, epsilon, delta, k, d, beta, w_min)


@st.fragment
def sample_size_calculator(n: int | None = None, *, d: int = 2, k: int = 3) -> None:
    """The calculator: inputs, the plan table and figure, and what ``n`` rows allow.

    Parameters
    ----------
    n : int, optional
        Rows of the data at hand (public); without it the panel asks for one.
    d, k : int
        Starting values of the dimension and component inputs.
    """
    st.markdown("**What the PPE guarantee needs.** Given the budget and the target accuracy, "
                "the chunks t, the masking radius r, the rows per chunk s and the total n. "
                "These numbers are huge: showing them honestly is the lesson.")
    left, middle, right = st.columns(3)
    epsilon = left.number_input("ε (total)", min_value=0.01, max_value=50.0, value=1.0,
                                step=0.1, key="gmm_ppecalc_epsilon", bind="query-params")
    delta = left.number_input("δ (total)", min_value=1e-15, max_value=0.5, value=1e-6,
                              format="%.1e", key="gmm_ppecalc_delta", bind="query-params")
    dim = middle.number_input("d", min_value=1, max_value=50, value=d, step=1,
                              key="gmm_ppecalc_d", bind="query-params")
    comps = middle.number_input("k", min_value=1, max_value=int(limits.COMPONENTS.high),
                                value=k, step=1, key="gmm_ppecalc_k", bind="query-params")
    alpha = right.number_input("α (accuracy)", min_value=0.001, max_value=3.0, value=0.1,
                               step=0.01, format="%.3f", key="gmm_ppecalc_alpha",
                               bind="query-params")
    beta = right.number_input("β (failure probability)", min_value=1e-6, max_value=0.5,
                              value=0.05, format="%.2g", key="gmm_ppecalc_beta",
                              bind="query-params")
    w_min = left.number_input("w_min (smallest weight)", min_value=1e-4, max_value=1.0,
                              value=round(1.0 / int(comps), 4), format="%.4f",
                              key="gmm_ppecalc_w_min", bind="query-params")
    rows = n if n is not None else int(middle.number_input(
        "n at hand", min_value=1, value=10_000, step=1000, key="gmm_ppecalc_n",
        bind="query-params"))
    plan, sweep = attempt(_plans, float(epsilon), float(delta), int(comps), int(dim),
                          float(alpha), float(beta), float(w_min))
    at_hand = attempt(_at_hand, int(rows), float(epsilon), float(delta), int(comps), int(dim),
                      float(beta), float(w_min))
    a, b, c = st.columns(3)
    a.metric("t (chunks)", f"{plan.t:,}")
    b.metric("r (masking radius)", f"{plan.radius:.2g}")
    c.metric("n needed", f"{float(plan.n):.2g}")
    st.dataframe(pd.DataFrame(plan_table(plan)), hide_index=True, key="gmm_ppecalc_plan")
    show_chart(sample_size_figure(sweep, sample_at_hand=float(rows)), key="gmm_ppecalc_figure",
               filename="ppe_sample_size")
    (st.success if at_hand.alpha is not None else st.warning)(at_hand.sentence())
    st.caption("Orders of magnitude from the paper's sample-size bounds, computed from the "
               "public inputs only — never from the data's rows.")
