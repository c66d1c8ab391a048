"""Gaussian mixtures: the data, the true and the private components, and what they cost."""

import streamlit as st

from dpviz import ui, viz
from dpviz.ui import runs
from dpviz.ui.pages import gmm, gmm_compare, gmm_intervals, gmm_paper, gmm_runs
from dpviz.ui.panels import audit, predict, upload, winner
from dpviz.ui.panels.card import card_panel
from dpviz.ui.panels.risk import budget_title, risk_panel
from dpviz.ui.panels.solve import solve_expander

ctx = ui.page("Gaussian mixtures")
ui.intro("A mixture of Gaussians fitted under differential privacy. Move ε and watch the "
         "private means (orange) wander away from the true ones (black; with your own file, "
         "which has none, non-private EM's on it); the ellipses are each component's 1σ "
         "(solid) and 2σ (dotted) contours.")

controls, figures = ui.main_columns("gmm")
st.divider()
with st.container():  # filled before the run, so a bad input's or a ⊥ run's stop cannot hide it
    compare = st.container()
    ui.lazy_expander("Reproduce the DP-EM paper", gmm_paper.paper_section, key="gmm_paper_open",
                     icon=":material/science:")
    ui.lazy_expander("DP-EM against the peers", gmm_paper.peers_section, key="gmm_peers_open",
                     icon=":material/leaderboard:")
with controls:
    scenario, content = gmm.controls(ctx)
with compare:
    ui.lazy_expander("Compare every estimator on this data and budget",
                     lambda: gmm_compare.compare_section(scenario),
                     key="gmm_compare_open", icon=":material/compare_arrows:")
    ui.lazy_expander("Which estimator wins where", lambda: winner.winner_section("gmm", scenario),
                     key="gmm_winner_open", icon=":material/map:")

with figures:
    # a failed run stops before the controls below; the next run shows them as they are used
    figures_ran = upload.stop_guard("gmm", "figures", gmm.FIGURE_CONTROLS)
    result = ui.attempt(gmm_runs.run, scenario, fresh=ctx.seed, content=content)
    data = ui.attempt(gmm_runs.mixture_data, scenario, content, result)
    st.caption(ui.escape_markdown(data.description))
    if "upload" in scenario.data:  # before the figure: a bound that clips most rows, or too wide
        upload.warn_bound(result, scenario, ui.attempt(runs.loaded, scenario, content))
    gmm_intervals.expected_box(scenario, result, data.data.shape)
    if result.not_private:
        st.warning(f"Not private: {ui.escape_markdown(result.not_private)}. The picture shows "
                   "what the estimator does, but this run gives no privacy guarantee.",
                   icon=":material/warning:")
    if result.failed:
        st.error(f"The estimator gave no answer (⊥): {ui.escape_markdown(result.failed)}",
                 icon=":material/error:")
        gmm_compare.story(result, data, scenario=scenario, fresh=ctx.seed)
        st.stop()

    axes = gmm.projection_controls(data.data.shape[1], data.names)
    trajectory = result.diagnostics.get("trajectory") or ()
    steps = len(trajectory) - 1
    iteration = gmm.iteration_slider(trajectory) if trajectory else None
    shown = gmm_runs.matched(data.truth, gmm_runs.estimate_of(result, iteration))
    show_cloud = st.toggle("Show the cloud of private means over R repeated runs",
                           value=False, key="gmm_cloud", bind="query-params",
                           help="Runs the estimator R more times with fresh noise (seeds derived "
                                "from the global seed under teaching randomness; R is in the "
                                "advanced settings): how far the "
                                "private means wander at this ε. Each run is another private "
                                "release of the same data, so the budget bar and the risk "
                                "panel then charge all 1 + R runs.")
    cloud = None
    if show_cloud:
        cloud = ui.attempt(gmm_runs.cloud, scenario, fresh=ctx.seed,
                           repeats=int(st.session_state["gmm_repeats"]), content=content)
    uploaded = "upload" in scenario.data  # no truth: the black components are a reference fit
    reference = gmm_runs.YOUR_DATA_REFERENCE if uploaded else None
    title = ("Your data: non-private EM (black), private means"
             if uploaded else "The data, the true means and the private means")
    if iteration is not None and iteration < steps:
        title += f" — after {iteration} of {steps} iterations"
    assert data.truth.means is not None
    fig = viz.mixture_figure(data.data[data.drawn], data.truth.means, shown.means,
                             true_covariances=data.truth.covariances,
                             private_covariances=shown.covariances,
                             cloud=None if cloud is None else cloud.means, axes=axes,
                             axis_names=data.names, reference=reference, title=title)
    # intervals belong to the released (last) step; post-processing, nothing charged
    found = gmm_intervals.intervals_of(scenario, result, len(data.data)) if (
        iteration is None or iteration == steps) else None
    order = gmm_intervals.interval_order(data.truth, result)
    if found is not None and found.ellipses:
        viz.with_interval_ellipses(fig, found.ellipses["centres"], found.ellipses["shapes"],
                                   axes=axes, order=order)
    revealed = predict.mixture_gate(fig, scenario=scenario, rows=data.data[data.drawn],
                                    private_means=shown.means, true_means=data.truth.means,
                                    axes=axes, names=data.names, reference=reference)
    if revealed:
        ui.show_chart(fig, key="gmm_figure", filename="dpviz-gaussian-mixtures")
    n = len(data.data)
    drawn = (f"Drawing a random {len(data.drawn):,} of the {n:,} rows (for speed); "
             "the estimators use all of them." if len(data.drawn) < n else
             f"All {n:,} rows drawn.")
    st.caption(f"{drawn} {gmm_runs.matching_sentence(reference)}")

    if revealed:  # the errors and the story give the private means away
        st.subheader("Errors after matching components")
        em = ui.attempt(gmm_runs.run, gmm_runs.reference_scenario(scenario), fresh=ctx.seed,
                        content=content)
        rows, compared = gmm_runs.error_rows(scenario, result, em)
        table = gmm_runs.error_table(rows, data.truth)
        if rows:
            st.dataframe(table, hide_index=True, key="gmm_errors")
        st.caption("Mean error: the average distance ‖μ − μ̃‖ between matched means; weight "
                   "error: the L1 distance of the weights; covariance error: the average "
                   "Frobenius distance — in the data's units, — where the estimator does "
                   f"not estimate that parameter. {compared}")
        gmm_compare.story(result, data, scenario=scenario, fresh=ctx.seed)
    else:
        st.caption(f"The errors and how the estimator got its answer: {predict.HIDDEN}")
    if revealed and found is not None:  # the intervals give the private means away
        gmm_intervals.interval_section(found, order, data.names)

    charged = result.ledger if cloud is None else cloud.ledger  # what the figure drew
    if charged.releases:
        if cloud is not None and result.not_private is None:
            st.caption(gmm_runs.cloud_charge(cloud, result.ledger))
        ui.show_chart(viz.ledger_bar(charged, title=budget_title(gmm_runs.ledger_title(cloud),
                                                                 result.not_private)),
                      key="gmm_ledger",
                      filename="dpviz-gmm-ledger")
        accuracy = {"Errors after matching components": table} if revealed and rows else {}
        notes = [compared] if revealed else []
        if revealed and found is not None:  # the stakeholder report's accuracy: the intervals
            if found.shown:
                accuracy["The private estimates, with their intervals"] = (
                    gmm_intervals.interval_table(found, order, data.names))
            notes.append(found.sentence())
        risk_panel(charged, scenario, key="gmm", runs=1 if cloud is None else cloud.repeats + 1,
                   not_private=result.not_private, accuracy=accuracy, notes=notes,
                   without_privacy=["Errors after matching components"])
    else:
        st.caption("Non-private: nothing was released with noise, no budget spent.")
    ui.lazy_expander("Choices the paper leaves open",
                     lambda: st.dataframe(ui.choices_table(result.choices), hide_index=True,
                                          key="gmm_choices"),
                     key="gmm_choices_open", icon=":material/rule:")
    if revealed:  # the card holds the errors and the figures
        card_panel(scenario, key="gmm_card", tables={"errors after matching": table},
                   content=content)
    ui.lazy_expander("Audit this estimator",
                     lambda: audit.audit_button(scenario, key="gmm_audit"),
                     key="gmm_audit_open", icon=":material/policy:")
    solve_expander(scenario, key="gmm_solve")
    figures_ran()
