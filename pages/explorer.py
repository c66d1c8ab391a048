"""Trade-off explorer: sweep a parameter, compare estimators with 95% bands, export."""

import streamlit as st

from dpviz import ui
from dpviz.ui import explorer

ctx = ui.page("Trade-off explorer")
st.markdown("Sweep one parameter — ε, ρ, the number of rows, the dimension, the separation, "
            "the signal — and compare estimators run for run on the same data. Each point is "
            "the mean over the repeats with a 95% band (mean ± 1.96 standard errors).")

controls, output = st.columns([1, 2], gap="large")
with controls:
    raw = explorer.controls(ctx.data_seed)
    spec = ui.attempt(explorer.build_spec, raw)
with output:
    table = explorer.run_panel(spec)
    if table is not None:
        explorer.results_panel(spec, table)
