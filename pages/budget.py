"""Privacy budget: the noise each accounting method needs for a plan of releases."""

import streamlit as st

from dpviz import ui, viz
from dpviz.ui.pages import budget
from dpviz.ui.panels import predict
from dpviz.ui.panels.risk import risk_panel_for

ctx = ui.page("Privacy budget")
ui.intro("Build a plan of private releases and pick a target (ε, δ): the budget solver "
         "finds the noise each release needs under every accounting method. Tighter "
         "accounting means less noise for the same guarantee.")

if ctx.presenter:  # a projector: the noise chart first with ε beside it, the plan below
    target_column, noise = ui.main_columns("budget")
    plan_column = st.container()
else:
    plan_column, target_column = st.columns(2, gap="large")
with plan_column:
    spec = budget.plan_controls()
with target_column:
    target, held = budget.target_controls()

solutions = ui.attempt(ui.cached.budget_solutions, spec, target.epsilon, target.delta,
                       target.paper_mode)
message = budget.headline(solutions)
if message:
    st.info(message, icon=":material/lightbulb:")

if ctx.presenter:
    rounds_panel = st.container()
else:
    noise, rounds_panel = st.columns(2, gap="large")
with noise:
    ui.show_chart(viz.noise_bars(solutions), key="budget_noise", filename="dpviz-noise")
    st.dataframe(budget.noise_table(solutions), hide_index=True, key="budget_table")
    for sentence in budget.failures(solutions):
        st.caption(ui.escape_markdown(sentence))
with rounds_panel:
    rounds, by_rounds, deltas, by_delta = ui.attempt(
        ui.cached.budget_curves, spec, target.epsilon, target.delta, target.paper_mode, held)
    fig = viz.epsilon_by_rounds_chart(rounds, by_rounds, target_epsilon=target.epsilon,
                                      planned_rounds=spec.rounds, held_by=held)
    question = predict.rounds_question(rounds, by_rounds, held, target.delta)
    if predict.number_gate(question, scenario=question, key="budget"):
        ui.show_chart(fig, key="budget_rounds_chart", filename="dpviz-epsilon-by-rounds")
    ui.show_chart(viz.allocation_bar(solutions[held], method=held, delta=target.delta),
                  key="budget_bar",
                  filename="dpviz-budget-bar")
    risk_panel_for(target.epsilon, target.delta, key="budget", plan=solutions[held])

delta_panel, reading = st.columns(2, gap="large")
with delta_panel:
    fig = viz.epsilon_by_delta_chart(deltas, by_delta, target_epsilon=target.epsilon,
                                     target_delta=target.delta, held_by=held)
    ui.show_chart(fig, key="budget_delta_chart", filename="dpviz-epsilon-by-delta")
with reading:
    st.markdown(budget.READING)
