"""Privacy lens: one query on two neighbouring datasets, seen through a mechanism."""

import streamlit as st

from dpviz import ui, viz
from dpviz.ui.pages import lens, noise_reuse
from dpviz.ui.panels import audit as audit_ui
from dpviz.ui.panels import predict
from dpviz.ui.panels.risk import risk_panel

ctx = ui.page("Privacy lens")
ui.intro("Two datasets that differ in one person's row, one query, one mechanism. "
         "Differential privacy asks that an observer of the output cannot tell them "
         "apart: the two output densities stay within a factor eᵋ of each other.")

# the gallery of variants broken on purpose has its own tab (Home links to it); only the
# open tab runs
lens_tab, gallery_tab = st.tabs(["The lens", audit_ui.GALLERY_TAB], key="lens_tab",
                                bind="query-params")
if gallery_tab.open:
    with gallery_tab:
        audit_ui.gallery_tab(ctx.data_seed)
if lens_tab.open:
    with lens_tab:
        controls, figures = ui.main_columns("lens")
        with controls:
            settings = lens.controls()
            st.caption("The table edits the dataset text above, so the link keeps it.")
        with figures:
            view = ui.attempt(ui.cached.lens_view, **settings.engine_args(), seed=ctx.seed,
                              secure=ctx.secure)
            revealed = predict.number_gate(predict.lens_question(view), scenario=settings,
                                           key="lens")
            lens.metrics(view, None if ctx.secure else ctx.seed, noise_shown=revealed)
            if revealed:  # both charts and the loss's bound draw the noise's width
                ui.show_chart(viz.output_densities(view), key="lens_densities",
                              filename="dpviz-lens-densities")
                ui.show_chart(viz.privacy_loss(view, settings.epsilon), key="lens_loss",
                              filename="dpviz-lens-privacy-loss")
                st.caption(lens.loss_caption(view, settings.epsilon, settings.delta))
            audit = ui.attempt(ui.cached.lens_audit, **settings.engine_args(), seed=ctx.seed,
                               trials=settings.trials, secure=ctx.secure)
            ui.show_chart(viz.audit_chart(audit), key="lens_audit", filename="dpviz-lens-audit")
            lens.verdict(audit)
            if revealed:  # its hover shows the noise scale
                ui.show_chart(viz.ledger_bar(view.ledger), key="lens_ledger",
                              filename="dpviz-lens-ledger")
            risk_panel(view.ledger, key="lens")

        ui.lazy_expander("Noise reuse: two releases on one seed give the exact mean away",
                         lambda: noise_reuse.lesson(settings, ctx.data_seed),
                         key="lens_reuse_open", icon=":material/lock_open:")
