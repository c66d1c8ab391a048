"""Privacy exposure (DP-EM paper, Fig. 1): a non-private mean lands on a person; DP-EM's not."""

import streamlit as st

from dpviz import ui, viz
from dpviz.ui import runs
from dpviz.ui.pages import exposure
from dpviz.ui.panels.risk import risk_panel

ctx = ui.page("Privacy exposure: one person alone")
ui.intro(exposure.INTRO)

scenario = exposure.controls(ctx)
scale = int(scenario.data["scale"])
shown = ui.attempt(exposure.compare, scenario, fresh=ctx.seed)
other_scale = exposure.SCALES[0] if scale != exposure.SCALES[0] else exposure.SCALES[1]
other = ui.attempt(exposure.compare, exposure.at_scale(scenario, other_scale), fresh=ctx.seed)
if shown.private.failed:
    st.error(f"DP-EM gave no answer (⊥): {ui.escape_markdown(shown.private.failed)}",
             icon=":material/error:")
    st.stop()

rows = runs.loaded(scenario).data
epsilon, delta = scenario.params["epsilon"], scenario.params["delta"]
size = f"{len(rows):,} people"
fig = viz.exposure_figure(rows, shown.lone, exposure.means_of(shown.reference),
                          exposure.means_of(shown.private),
                          private_label=f"DP-EM, ε = {epsilon:g}, δ = {delta:g}",
                          title=f"Where the four means land ({size})")
ui.show_chart(fig, key="exposure_figure", filename="dpviz-privacy-exposure")
st.markdown(exposure.explanation(shown, other))
st.dataframe(exposure.summary_table(sorted([shown, other], key=lambda c: c.scale)),
             hide_index=True, key="exposure_table")
st.caption(exposure.fit_caption())
if shown.private.ledger.releases:
    ui.show_chart(viz.ledger_bar(shown.private.ledger), key="exposure_ledger",
                  filename="dpviz-exposure-ledger")
    risk_panel(shown.private.ledger, scenario, key="exposure")
