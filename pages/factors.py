"""Private factor analysis of the digits: the columns of W as 8 × 8 images, ε = ∞ vs ε."""

import streamlit as st

from dpviz import ui, viz
from dpviz.ui import runs
from dpviz.ui.pages import factors
from dpviz.ui.panels import audit, upload
from dpviz.ui.panels.risk import budget_title, risk_panel

ctx = ui.page("Private factor analysis")
st.markdown(factors.INTRO)
st.info(factors.LIMITS, icon=":material/info:")

scenario, content = ui.attempt(factors.controls, None if ctx.secure else ctx.seed)
(reference, reference_images), (private, private_images) = ui.attempt(
    factors.fits, scenario, ctx.seed if ctx.secure else None, content)
label = f"ε = {scenario.params['epsilon']:g}"
uploaded = "upload" in scenario.data
if uploaded:  # before the figure: a bound that clips most rows, or one too wide
    loaded = ui.attempt(runs.loaded, scenario, content)
    upload.warn_bound(private, scenario, loaded)
    st.caption(ui.escape_markdown(f"{loaded.description} Columns of W, left to right: "
                                  f"{', '.join(loaded.names)}. The non-private fit is on "
                                  "your data, clipped the same way."))
shape = "one row of your columns" if uploaded else "8 × 8 images"
fig = viz.factor_images([("non-private (ε = ∞)", reference_images), (label, private_images)],
                        title=f"The first {scenario.params['factors']} columns of W as "
                              f"{shape}: non-private and {label}")
ui.show_chart(fig, key="factors_figure", filename="dpviz-factor-analysis",
              alt="Heatmaps of the factor loadings, non-private and private")
named = [("non-private", reference.estimate["loadings"]), (label, private.estimate["loadings"])]
table = (factors.names_table(named, ui.attempt(runs.loaded, scenario, content).names)
         if uploaded else factors.loadings_table(named))
st.download_button("Download the loadings W (CSV)", data=lambda: table.to_csv(index=False),
                   file_name="dpviz-factor-loadings.csv", mime="text/csv",
                   key="factors_loadings-csv", on_click="ignore",
                   icon=":material/download:", type="tertiary")

cosines = factors.similarity(reference, private)
columns = st.columns(len(cosines))
for j, (column, cosine) in enumerate(zip(columns, cosines, strict=True), start=1):
    column.metric(f"factor {j}: |cos| to non-private", f"{cosine:.2f}",
                  help="1: the private column shows the same pattern (up to sign); near 0: "
                       "unrelated.")
sigma = float(private.diagnostics["noise_scale"])
if not uploaded:
    st.caption(f"One release: the pixels' second-moment matrix (1,797 digits) with symmetric "
               f"Gaussian noise of σ = {sigma:.3g} per entry (Frobenius sensitivity √2/n, rows "
               "in the unit ball), its budget tightly accounted; then the matrix is projected "
               "to positive semi-definite and FA-EM runs on it. Columns are rotated to be "
               "orthogonal and sorted by norm; a factor's sign is arbitrary. Each image has "
               "its own colour range, symmetric about 0. The data are not centred (their mean "
               "is not private).")
if private.ledger.releases:
    ui.show_chart(viz.ledger_bar(private.ledger, title=budget_title(
        "Where the budget went", private.not_private)), key="factors_ledger",
                  filename="dpviz-factor-analysis-ledger")
    risk_panel(private.ledger, scenario, key="factors", not_private=private.not_private)
ui.lazy_expander("Audit this estimator",
                 lambda: audit.audit_button(scenario, key="factors_audit"),
                 key="factors_audit_open", icon=":material/policy:")
