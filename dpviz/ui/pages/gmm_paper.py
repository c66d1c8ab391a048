"""The mixtures page's paper sections: the DP-EM paper's claim reproduced, and its peers."""

from __future__ import annotations

import json
import math

import streamlit as st

from dpviz import viz
from dpviz.lab import experiments
from dpviz.ui import cached
from dpviz.ui.pages.gmm_runs import DASH
from dpviz.ui.widgets import (
    attempt,
    escape_markdown,
    show_chart,
)

PAPER_CLAIM = ("“zCDP and the moments accountant give higher test log-likelihood than linear "
               "and advanced composition, and GGG beats LLG.” — Park et al., DP-EM, at equal "
               "(ε, δ)")
PAPER_FLOOR = -60.0
#: Estimators of ``gmm_mean_errors.csv`` in the order drawn, with labels and colours.
PEERS = {"dp_em": "DP-EM (defaults)", "dp_em_paper_J20": "DP-EM as in the paper",
         "dplloyd_J10": "DPLloyd, J = 10", "diffprivlib_kmeans": "diffprivlib KMeans",
         "em": "EM, non-private"}
PEER_COLORS = {"dp_em": "#e8590c", "dp_em_paper_J20": "#f59f00", "dplloyd_J10": "#1f6feb",
               "diffprivlib_kmeans": "#7048e8", "em": "#1a1a1a"}
#: The ε from which the tight accountants' curves meet the ceiling.
SATURATED = 2.0
SHORT = {"zcdp": "zCDP", "ma": "MA", "pld": "PLD", "linear": "linear", "advanced": "advanced"}


def paper_verdict(rep: experiments.PaperReproduction) -> str:
    """One sentence with the numbers: whether the ordering holds and GGG beats LLG."""
    holds, cells = rep.ordering
    wins, pairs = rep.ggg_wins
    ordering = (f"the ordering min(zCDP, MA) > advanced > linear holds in {holds} of {cells} "
                f"(scenario, ε) cells")
    medians = rep.curves.set_index(["scenario", "accounting", "epsilon"])["median"]
    losses = []
    for method in experiments.TIGHT:
        cells_lost = []
        for eps in sorted(e for e in set(rep.curves["epsilon"]) if e < SATURATED):
            ggg, llg = medians.get(("GGG", method, eps)), medians.get(("LLG", method, eps))
            if ggg is not None and llg is not None and llg > ggg:
                cells_lost.append(f"ε = {eps:g} ({llg:.3g} vs {ggg:.3g})")
        if cells_lost:
            losses.append(f"{SHORT[method]} at " + ", ".join(cells_lost))
    ties = pairs - wins - rep.llg_wins
    if wins == pairs:
        ggg = f"GGG beats LLG in all {pairs} (accounting, ε) cells"
    else:
        ggg = (f"GGG > LLG is not established: GGG is better in {wins}, LLG in "
               f"{rep.llg_wins} and {ties} are ties (the difference within the repeats' "
               f"spread) of {pairs} (accounting, ε) cells")
        if losses:
            ggg += ("; under the tight accountants LLG's median is higher — " + "; ".join(losses)
                    + " (LLG vs GGG)")
    top = rep.curves[(rep.curves["epsilon"] >= SATURATED)
                     & rep.curves["accounting"].isin(experiments.TIGHT)]["median"]
    if len(top) and math.isfinite(rep.ceiling):
        ggg += (f"; from ε = {SATURATED:g} both are within {rep.ceiling - top.min():.2g} of "
                "non-private EM under the tight accountants")
    return f"**Verdict:** {ordering}; {ggg}."


def paper_section() -> None:
    """The DP-EM paper's figure from the saved runs, its claim and the verdict."""
    paper_mode = st.toggle("Paper mode (the paper's own accounting choices)", value=False,
                           key="gmm_paper_mode", bind="query-params",
                           help="λ ≤ 100 moments accountant, classic Gaussian with δᵢ = 1e-8, "
                                "2/n sensitivities and max-norm scaling read from the data — "
                                "which is NOT private. Off: dpviz's defaults (public radius, "
                                "tight sensitivities, analytic Gaussian).")
    table = attempt(cached.saved_table, str(cached.PAPER_CSV))
    rep = attempt(experiments.paper_reproduction, table,
                  "paper_mode" if paper_mode else "dpviz")
    if paper_mode:
        st.warning("Paper mode reads the scaling from the data (max-norm): these runs are "
                   "not private; they show what the paper's accounting gives.",
                   icon=":material/warning:")
    figure, words = st.columns([3, 2], gap="large")
    with figure:
        variant = "paper mode" if paper_mode else "dpviz defaults"
        fig = viz.dp_em_paper_figure(
            rep.curves, ceiling=rep.ceiling, methods=experiments.PAPER_METHODS, floor=PAPER_FLOOR,
            title=f"Test log-likelihood per point against ε — {variant}")
        show_chart(fig, key="gmm_paper", filename="dpviz-dp-em-paper")
    with words:
        st.markdown(f"**The paper's claim:** {PAPER_CLAIM}.")
        st.markdown(paper_verdict(rep))
        st.caption(f"Lines: the median over {rep.repeats} repeats; bands: their quartiles; "
                   f"dashed: non-private EM ({rep.ceiling:.3g}). The paper's Life Science data "
                   "is not shipped: this is a synthetic mixture of the same shape (d = 10, "
                   "k = 3, n = 26 700, 90/10 train/test split, 10 iterations, δ = 1e-4). The "
                   f"y axis starts at {PAPER_FLOOR:g}: lower medians (linear and advanced "
                   "composition at small ε) are off the chart — the table has them. Saved "
                   "by `make bench` (assets/results/dp_em_paper.csv), not run here.")
    medians = rep.curves.pivot_table(index=["scenario", "accounting"], columns="epsilon",
                                     values="median").round(3)
    medians.columns = [f"ε = {e:g}" for e in medians.columns]
    st.dataframe(medians.reset_index(), hide_index=True, key="gmm_paper_medians")


def peers_section() -> None:
    """DP-EM against DPLloyd, diffprivlib's KMeans and non-private EM (saved benchmark)."""
    table = attempt(cached.saved_table, str(cached.ERRORS_CSV))
    medians = experiments.mean_error_medians(table)
    fig = viz.mean_error_boxes(table, PEERS, colors=PEER_COLORS,
                               title="Matched mean error at ε = 1, δ = 1e-5 (per seed)")
    show_chart(fig, key="gmm_peers", filename="dpviz-gmm-peers")
    seeds = int(table["seed"].nunique())

    def m(key: str) -> str:
        return f"{medians[key]:.3g}" if key in medians else DASH

    reading = experiments.peers_reading(table, "dp_em", ("dplloyd_J10", "diffprivlib_kmeans")
                                        ).sentence(PEERS)
    st.markdown(f"**Reading:** {reading} — median matched mean error DP-EM {m('dp_em')} "
                f"with dpviz's defaults (J = 5 after a charged private Lloyd start, "
                f"noise-aware eigenvalue floor) against DPLloyd {m('dplloyd_J10')} and "
                f"diffprivlib's KMeans {m('diffprivlib_kmeans')}; DP-EM as the paper runs it "
                f"(J = 20 from a data-independent start) {m('dp_em_paper_J20')}; non-private "
                f"EM {m('em')} is the floor.")
    st.caption(f"The default scenario (n = 10 000, d = 2, k = 3, separation 6σ, radius 1), "
               f"ε = 1, δ = 1e-5, {seeds} noise seeds on fixed data; error: mean over "
               "components of ‖μ − μ̃‖ after Hungarian matching, in data units (log scale). "
               "diffprivlib's figures come from the saved benchmark "
               "(assets/results/gmm_mean_errors.csv, written by `make bench`); DPLloyd also "
               "runs live: pick it as the estimator above.")
    accuracy = cached.RESULTS / "gmm_estimators_caption.json"  # the saved accuracy table's
    if accuracy.exists():
        from dpviz.lab.provenance import stale

        saved = json.loads(accuracy.read_text())
        st.markdown("**Every mixture estimator, ⊥ counted:** "
                    + escape_markdown(saved["caption"]))
        why = stale(saved.get("made_by") or {}, "gmm")
        st.caption("From the saved accuracy table: every registered estimator on generated "
                   "mixtures (d = 2, k = 3, δ = 1e-5). A ⊥ is either refused before spending "
                   "(the public sizes rule success out: nothing is read or spent) or failed "
                   "after spending." + ("" if why is None else  # the command is the makers'
                                        f" This table may be out of date: "
                                        f"{why.partition(': re-run')[0]}."))
