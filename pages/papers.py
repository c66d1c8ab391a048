"""Papers: one figure from each seed paper, reproduced by dpviz, beside the claim and a verdict."""

import streamlit as st

from dpviz import ui
from dpviz.ui.pages import papers

ui.page("Papers")
st.markdown("Each tab reproduces one figure of a paper dpviz implements, from runs saved by "
            "`make figures` (specs in `assets/sweeps/`), next to the claim in the paper's own "
            "words and a one-line verdict with the numbers: does dpviz reproduce it?")
tabs = st.tabs([label for label, _ in papers.PAPERS])
for index, tab in enumerate(tabs):
    with tab:
        papers.section(index)
