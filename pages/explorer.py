"""Trade-off explorer: sweep a parameter at your data's sizes, compare estimators, export."""

import streamlit as st

from dpviz import ui
from dpviz.ui.pages import explorer
from dpviz.ui.panels import winner

ctx = ui.page("Trade-off explorer")
st.markdown("Sweep one parameter — ε, δ, the number of rows, the dimension, the separation, "
            "the signal — with the others held at your data's sizes, and compare estimators "
            "run for run on the same data. Each point is the median over the repeats; the "
            "band holds the middle 80% of the runs (10th to 90th percentile).")

controls, output = st.columns([1, 2], gap="large")
with controls:
    raw = explorer.controls(ctx.data_seed)
    spec = ui.attempt(explorer.build_spec, raw)
with output:
    runnable = explorer.feasibility_panel(spec)
    table = explorer.run_panel(runnable) if runnable is not None else None
    if runnable is not None and table is not None:
        explorer.results_panel(runnable, table)
ui.lazy_expander("Which estimator wins where: winner maps", winner.explorer_section,
                 key="explorer_winner_open", icon=":material/map:")
