"""Covariance: the true and the private second-moment matrices, and what each estimator costs."""

import streamlit as st

from dpviz import ui
from dpviz.ui import runs
from dpviz.ui.pages import covariance as cov
from dpviz.ui.pages import covariance_paper
from dpviz.ui.pages import covariance_results as results
from dpviz.ui.panels import audit, predict, upload, winner
from dpviz.ui.panels.card import card_panel
from dpviz.ui.panels.solve import solve_expander

ctx = ui.page("Covariance")
ui.intro("The second-moment matrix Σ = XᵀX/n of rows in the unit ball, released under "
         "differential privacy by the estimators of Dong, Liang & Yi (2022) and their "
         "peers. Move ε and compare the true matrix (black) with the private one.")

live, paper = st.tabs(["Your data", "The paper's Figures 2–3"])
try:
    with live:
        controls, figures = ui.main_columns("covariance")
        with controls:
            chosen = ui.attempt(cov.controls, ctx.data_seed,
                                None if ctx.secure else cov.noise_seed(ctx.seed))
        scenarios = chosen.scenarios
        with figures:
            data = ui.attempt(runs.loaded, scenarios[0], chosen.content)
            names = cov.column_names(scenarios[0], data)
            st.caption(f"{ui.escape_markdown(cov.description(scenarios[0], data))} "
                       f"Budget: {chosen.budget_text()}.")
            drawn, seconds = ui.attempt(cov.run_all, chosen, ctx.seed if ctx.secure else None)
            expected: list[str] = []
            if "upload" in scenarios[0].data:  # before the figures: most rows clipped, too wide
                upload.warn_bound(drawn[0].result, scenarios[0], data)
                expected = results.expected_panel(drawn, scenarios, data.data.shape)
            for run in drawn:
                if run.result.not_private:
                    st.warning(f"{run.label} is not private: "
                               f"{ui.escape_markdown(run.result.not_private)}",
                               icon=":material/warning:")
            clipped = max(int(r.result.diagnostics.get("rows_clipped", 0)) for r in drawn)
            if clipped:
                st.info(results.clipped_note(clipped, chosen.radius), icon=":material/content_cut:")
            revealed = predict.number_gate(predict.covariance_question(drawn, scenarios),
                                           scenario=predict.scenario_token(*scenarios),
                                           key="cov")
            if revealed:  # every matrix, spectrum and error below draws the private answer
                results.spectra_panel(drawn, scenarios, len(data.data))
                results.ellipses_panel(drawn, names)
            else:
                st.caption(f"The private matrices, their spectra and errors: {predict.HIDDEN}")

        if revealed:
            results.heatmaps_panel(drawn, names)
            results.entries_panel(drawn, scenarios, names, len(data.data))
            st.subheader("Errors and their bounds")
            results.errors_panel(drawn, chosen.stated_delta)
            adaptive = [r for r in drawn if r.name == "adaptive"]
            if adaptive:
                st.subheader("How AdaptiveCov chose its clip radius")
                results.adaptive_panel(adaptive[0])
        accuracy = ({"Errors of the private matrices": results.error_table(drawn,
                                                                           chosen.stated_delta)}
                    if revealed else {})
        results.ledger_panel(drawn, chosen, accuracy=accuracy,
                             notes=([results.ERRORS_NOTE] if revealed else []) + expected)
        ui.lazy_expander("Choices the paper leaves open, as used",
                         lambda: results.choices_panel(drawn), key="cov_choices_open",
                         icon=":material/rule:")
        if revealed:  # the card holds the figures and their numbers
            card_panel(scenarios[0], key="cov_card", content=chosen.content)
        ui.lazy_expander("Audit this estimator",
                         lambda: audit.audit_picker(scenarios, key="cov_audit",
                                                      stated_delta=chosen.stated_delta),
                         key="cov_audit_open", icon=":material/policy:")
        solve_expander(scenarios[0], key="cov_solve")
        ui.lazy_expander("Which estimator wins where", lambda: winner.winner_section(
            "covariance", scenarios[0]), key="cov_winner_open", icon=":material/map:")
        if not ctx.presenter:
            st.caption(f"Engine time of this rerun: {1000 * seconds:.0f} ms (cached runs cost "
                       "nothing); " + ("secure randomness: not reproducible." if ctx.secure else
                                       f"noise seed {cov.noise_seed(ctx.seed)}, derived from the "
                                       "global seed, so a link reopens the same noise."))
finally:  # after the live tab (the report's picture is its first figure); a stopped live
    with paper:  # tab (bad input) must not hide the saved figures
        covariance_paper.paper_panel()
