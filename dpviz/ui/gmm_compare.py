"""The Gaussian mixtures page's estimator stories and its compare view (issue 7).

Each estimator of seeds 000, 003 and 004 draws its own story from its result's diagnostics
(the factories live in :mod:`dpviz.viz.kssu`, :mod:`dpviz.viz.ppe` and
:mod:`dpviz.viz.stability`); the compare view runs every estimator on the page's data and
budget as a sweep with no grid (:func:`dpviz.experiments.compare_spec`), so it is cached on
disk and parallel like any sweep.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from .. import experiments
from ..registry import TASKS
from ..result import Result
from ..scenario import Scenario
from ..viz import kssu, ppe, stability
from ..viz.compare import compare_figure
from .engine import MixtureData
from .widgets import escape_markdown, show_chart

#: Estimators with a story of their own, and the sentence that introduces it.
STORIES = {
    "private_pca_clustering": "Private PCA finds a k-dimensional subspace from one half of the "
                              "rows; the other half is projected on it and clustered round by "
                              "round by a private 1-cluster routine (a ball found by "
                              "GoodRadius, its centre by GoodCenter).",
    "sample_aggregate": "The rows are split into t chunks; a non-private EM runs on each, and "
                        "the t·k candidate means are aggregated privately: a ball supported by "
                        "many chunks per component, its centre released with noise.",
    "ppe": "The Private Populous Estimator fits a mixture on each of t chunks, scores how many "
           "chunks agree with each, tests the average agreement privately and, if the test "
           "passes, releases one agreeing chunk's mixture through a masking mechanism.",
    "stability": "The stability learner solves a convex clustering program on a public-size "
                 "subsample, tests privately whether its solution is stable, and only then "
                 "releases noisy centroids.",
}
#: Repeats the compare view runs by default (noise only: the data are the page's).
COMPARE_REPEATS = 5
COMPARE_JOBS = 2


def _label(name: str) -> str:
    return TASKS["gmm"][name].label


def story(result: Result, data: MixtureData) -> None:
    """The estimator's own figures (nothing for DP-EM, DPLloyd and the references)."""
    name = result.estimator
    if name not in STORIES:
        return
    st.subheader("How this estimator got its answer")
    st.caption(STORIES[name])
    truth = data.truth
    if name == "private_pca_clustering":
        rows = result.diagnostics.get("z_rows")
        labels = data.labels[rows] if rows is not None else None
        show_chart(kssu.pca_projection_figure(result, truth_labels=labels),
                   key="gmm_story_pca", filename="dpviz-kssu-pca")
        show_chart(kssu.clustering_rounds_figure(result), key="gmm_story_rounds",
                   filename="dpviz-kssu-rounds")
    elif name == "sample_aggregate":
        show_chart(kssu.candidate_cloud_figure(result, true_means=truth.means),
                   key="gmm_story_candidates", filename="dpviz-sample-aggregate")
    elif name == "ppe":
        if "agreement" in result.diagnostics:
            show_chart(ppe.chunks_figure(result), key="gmm_story_chunks",
                       filename="dpviz-ppe-chunks")
            left, right = st.columns(2)
            with left:
                show_chart(ppe.agreement_figure(result), key="gmm_story_agreement",
                           filename="dpviz-ppe-agreement")
            with right:
                show_chart(ppe.noisy_test_figure(result), key="gmm_story_test",
                           filename="dpviz-ppe-test")
            if not result.failed:
                show_chart(ppe.mask_figure(result), key="gmm_story_mask",
                           filename="dpviz-ppe-mask")
        from .ppe import sample_size_calculator

        with st.expander("What sample the guarantee needs", icon=":material/calculate:"):
            sample_size_calculator(len(data.data), d=data.data.shape[1], k=data.k)
    elif name == "stability":
        if "W" in result.diagnostics:
            left, right = st.columns(2)
            with left:
                show_chart(stability.clustering_matrix_heatmap(result),
                           key="gmm_story_matrix", filename="dpviz-stability-matrix")
            with right:
                show_chart(stability.stability_test_chart(result), key="gmm_story_stability",
                           filename="dpviz-stability-test")
        if not result.failed:
            show_chart(stability.stability_centres_figure(result, data.data,
                                                          true_means=truth.means),
                       key="gmm_story_centres", filename="dpviz-stability-centres")


@st.cache_data(max_entries=8, show_spinner=False)
def _compare(spec_json: str) -> pd.DataFrame:
    spec = experiments.SweepSpec.from_dict(json.loads(spec_json))
    return experiments.run_sweep(spec, jobs=COMPARE_JOBS)


def compare_section(scenario: Scenario, *, key: str = "gmm_compare") -> None:
    """Every estimator on the page's data and budget, side by side, with 95% error bars."""
    names = tuple(TASKS["gmm"])
    chosen: Sequence[str] = st.multiselect(
        "Estimators", names, default=list(names), format_func=_label, key=f"{key}_estimators",
        help="Every estimator runs on the same rows with the same budget; only its noise "
             "differs between repeats.")
    repeats = int(st.number_input("Repeats", 2, 50, COMPARE_REPEATS, key=f"{key}_repeats",
                                  help="Noise draws per estimator (the error bars are the "
                                       "95% band of the mean over the successful ones)."))
    if "upload" in scenario.data:
        st.info("The compare view needs data it can describe in a sweep: a generated mixture "
                "or a bundled data set, not an upload.", icon=":material/info:")
        return
    if not chosen:
        st.info("Pick at least one estimator.", icon=":material/info:")
        return
    spec = experiments.compare_spec(scenario, chosen, repeats=repeats)
    text = json.dumps(spec.to_dict(), sort_keys=True)
    if st.button("Compare", key=f"{key}_run", icon=":material/play_arrow:",
                 help="Runs each estimator `repeats` times on 2 processes; the private PCA, "
                      "PPE and stability learners take seconds per run."):
        with st.spinner(f"Running {spec.runs} runs…"):
            started = time.perf_counter()
            try:
                st.session_state[key] = (text, _compare(text), time.perf_counter() - started)
            except ValueError as err:
                st.error(escape_markdown(err), icon=":material/error:")
                return
    remembered = st.session_state.get(key)
    if remembered is None or remembered[0] != text:
        st.caption(f"{spec.runs} runs: click Compare.")
        return
    _, table, seconds = remembered
    metrics = list(experiments.COMPARE_METRICS)
    summary = experiments.compare_summary(table, metrics)
    labels = {n: _label(n) for n in summary["estimator"]}
    show_chart(compare_figure(summary, metrics, labels=labels), key=f"{key}_figure",
               filename="dpviz-gmm-compare")
    shown = summary.assign(estimator=summary["estimator"].map(labels))
    st.dataframe(shown[["estimator", "success_rate", *metrics, "seconds"]].round(4),
                 hide_index=True, key=f"{key}_table")
    failures = table.loc[table["failed"] != "", ["estimator", "failed"]].drop_duplicates()
    st.caption(f"{len(table)} runs in {seconds:.1f} s. Bars: the mean over the successful "
               "repeats, error bars its 95% band (mean ± 1.96 standard errors). An honest ⊥ "
               "(PPE's and the stability learner's tests reject when the sample is too small "
               "for their guarantee) counts against the success rate and is left out of the "
               "errors.")
    private = int(table["estimator"].map(lambda e: TASKS["gmm"][e].notion != "none").sum())
    if private:
        st.caption(f"Each of the {private} private runs is another release of the same rows, "
                   "each within the page's budget, so together they spend up to "
                   f"{private} times it: a comparison, not a release. That is why it runs "
                   "only on generated or public bundled data; on real data you would publish "
                   "one run.")
    if len(failures):
        with st.expander("Why runs failed", icon=":material/error:"):
            st.dataframe(failures.assign(estimator=failures["estimator"].map(labels)),
                         hide_index=True, key=f"{key}_failures")
