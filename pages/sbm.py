"""Stochastic block model: recover two communities of a graph under edge differential privacy."""

import streamlit as st

from dpviz import ui
from dpviz.ui import audit, sbm
from dpviz.ui.card import card_panel
from dpviz.ui.scenarios import page_upload, scenario_of_page
from dpviz.ui.solve import solve_expander

ctx = ui.page("Stochastic block model")
st.markdown("A graph with two hidden communities: edges are likelier inside a community "
            "than across. Recover the communities while hiding any single edge (edge DP). "
            "Raise the signal ε_s and the adjacency matrix turns from noise into two blocks; "
            "lower the privacy ε and the recovered blocks dissolve again.")

controls, figures = st.columns([2, 3], gap="large")
with controls:
    spec = sbm.graph_controls(ctx.data_seed)
    settings = sbm.estimator_controls()

with figures:
    if spec is None:
        st.info("Upload an edge list to recover its two communities.",
                icon=":material/upload_file:")
        st.stop()
    data = ui.attempt(sbm.graph_data, spec)
    st.caption(ui.escape_markdown(data.description))
    result = ui.attempt(sbm.run, spec, settings, ctx.seed, ctx.secure)
    if result.not_private:
        st.warning(f"Not private: {ui.escape_markdown(result.not_private)}. The picture shows "
                   "what the algorithm does, but this run gives no privacy guarantee.",
                   icon=":material/warning:")
    if result.failed:
        st.error(f"The algorithm gave no answer (⊥): {ui.escape_markdown(result.failed)}",
                 icon=":material/error:")
        st.stop()
    sbm.result_metrics(result, data.labels)
    sbm.result_panels(spec, data, result, ctx.data_seed)
    try:  # bridge until the controls return the scenario
        scenario = scenario_of_page("sbm")
    except ValueError as err:
        st.info(ui.escape_markdown(err), icon=":material/info:")
    else:
        card_panel(scenario, key="sbm_card", content=page_upload("sbm"))
        ui.lazy_expander("Audit this estimator",
                         lambda: audit.audit_button(scenario, key="sbm_audit"),
                         key="sbm_audit_open", icon=":material/policy:")
        solve_expander(scenario, key="sbm_solve")

st.divider()
st.subheader("Error against ε and n, and where recovery succeeds")
sbm.curves_section(spec, data, settings)
