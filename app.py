"""dpviz — Home: a lesson path and a demo path first, then what differential privacy is."""

import streamlit as st

from dpviz import ui, viz

ctx = ui.page("dpviz: differential privacy, made visible")

ui.home.paths()

st.subheader("What differential privacy is")
text, picture = st.columns([5, 6], gap="large")
with text:
    for sentence in ui.home.INTRO:
        st.markdown(sentence)
    st.page_link("pages/lens.py", label="Open the privacy lens", icon=":material/arrow_forward:")
with picture:
    fig = viz.output_densities(ui.home.example(ctx.seed, ctx.secure), show_release=False,
                               title="One person changed: the outputs barely move (ε = 1)")
    ui.show_chart(fig, key="home_densities", filename="dpviz-neighbouring-outputs")

st.subheader("Three ways in")
ui.home.uses()
