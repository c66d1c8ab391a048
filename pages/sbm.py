"""Stochastic block model: recover two communities of a graph under edge differential privacy."""

import streamlit as st

from dpviz import ui
from dpviz.ui import runs
from dpviz.ui.pages import sbm, sbm_curves, sbm_results
from dpviz.ui.panels import audit, predict, winner
from dpviz.ui.panels.card import card_panel
from dpviz.ui.panels.solve import solve_expander

ctx = ui.page("Stochastic block model")
ui.intro("A graph with two hidden communities: edges are likelier inside a community "
         "than across. Recover the communities while hiding any single edge (edge DP). "
         "Raise the signal ε_s and the adjacency matrix turns from noise into two blocks; "
         "lower the privacy ε and the recovered blocks dissolve again.")

controls, figures = ui.main_columns("sbm")
with controls:
    chosen = ui.attempt(sbm.controls, ctx)

with figures:
    if chosen is None:
        st.info("Upload an edge list to recover its two communities.",
                icon=":material/upload_file:")
        st.stop()
    scenario, content = chosen
    result = ui.attempt(runs.run, scenario, fresh=ctx.seed, content=content)
    data = runs.loaded(scenario, content)  # loaded (and checked) by the run
    st.caption(ui.escape_markdown(sbm_results.description(data)))
    if result.not_private:
        st.warning(f"Not private: {ui.escape_markdown(result.not_private)}. The picture shows "
                   "what the algorithm does, but this run gives no privacy guarantee.",
                   icon=":material/warning:")
    if result.failed:
        st.error(f"The algorithm gave no answer (⊥): {ui.escape_markdown(result.failed)}",
                 icon=":material/error:")
        st.stop()
    revealed = predict.number_gate(
        predict.sbm_question(sbm_results.true_labels(data), result.estimate["labels"]),
        scenario=predict.scenario_token(scenario), key="sbm")
    sbm_results.result_metrics(scenario, result,
                               sbm_results.true_labels(data) if revealed else None)
    sbm_results.result_panels(scenario, data, result, revealed=revealed)
    if revealed:  # the card holds the recovered communities
        card_panel(scenario, key="sbm_card", content=content)
    ui.lazy_expander("Audit this estimator",
                     lambda: audit.audit_button(scenario, key="sbm_audit"),
                     key="sbm_audit_open", icon=":material/policy:")
    solve_expander(scenario, key="sbm_solve")

st.divider()
st.subheader("Error against ε and n, and where recovery succeeds")
if revealed:  # the curves read the error at this ε
    sbm_curves.curves_section(scenario)
else:
    st.caption(predict.HIDDEN)
ui.lazy_expander("Which estimator wins where", lambda: winner.winner_section("sbm", scenario),
                 key="sbm_winner_open", icon=":material/map:")
