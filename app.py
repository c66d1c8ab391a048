"""dpviz — Home: a lesson path and a demo path first, then what differential privacy is."""

import streamlit as st

from dpviz import ui, viz
from dpviz.ui.pages import home

ctx = ui.page("dpviz: differential privacy, made visible")

home.paths()

st.subheader("What differential privacy is")
text, picture = st.columns([5, 6], gap="large")
with text:
    for sentence in home.INTRO:
        st.markdown(sentence)
    st.page_link("pages/lens.py", label="Open the privacy lens", icon=":material/arrow_forward:")
with picture:
    fig = viz.output_densities(home.example(ctx.seed, ctx.secure), show_release=False,
                               title="One person changed: the outputs barely move (ε = 1)")
    ui.show_chart(fig, key="home_densities", filename="dpviz-neighbouring-outputs")

st.subheader("Three ways in")
home.uses()
