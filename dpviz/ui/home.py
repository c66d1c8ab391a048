"""The Home page's content: the three ways into dpviz, each with one-click scenarios."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from dpviz.lab.lens import LensView
from dpviz.ui.audit import GALLERY_TAB
from dpviz.ui.cached import lens_view


@dataclass(frozen=True)
class Entry:
    """One click into a page with a scenario loaded (its URL parameters)."""

    page: str
    label: str
    icon: str
    params: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Use:
    """A kind of user, what dpviz offers them, and where to start."""

    title: str
    icon: str
    pitch: str
    entries: tuple[Entry, ...]


USES: tuple[Use, ...] = (
    Use("Teaching a class", ":material/school:",
        "Move ε and watch the output distributions of two neighbouring datasets pull apart; "
        "see where the budget goes.",
        (Entry("pages/exposure.py", "One person alone: a mean that gives them away",
               ":material/person_search:"),
         Entry("pages/lens.py", "One person's effect on a mean", ":material/visibility:"),
         Entry("pages/lens.py", "Gaussian noise: where the loss exceeds ε",
               ":material/ssid_chart:",
               (("lens_mechanism", "Gaussian"), ("lens_epsilon", "0.5"),
                ("lens_delta", "0.001"))),
         Entry("pages/budget.py", "Why accounting matters", ":material/account_balance_wallet:"),
         Entry("pages/covariance.py", "Small trace: when releasing nothing wins",
               ":material/grid_on:", (("cov_buckets", "16"), ("cov_rho", "0.001"))),
         Entry("pages/sbm.py", "Karate club, privately", ":material/hub:",
               (("sbm_source", "karate"), ("sbm_estimator", "weak_recovery"))))),
    Use("Showing stakeholders", ":material/co_present:",
        "Presenter mode: large text, fewer controls, and a link that reopens the same view. "
        "Every chart downloads as PNG and CSV.",
        (Entry("pages/budget.py", "Noise for a 20-iteration model, presented",
               ":material/slideshow:", (("presenter", "true"),)),
         Entry("pages/lens.py", "The privacy lens, presented", ":material/slideshow:",
               (("presenter", "true"),)),
         Entry("pages/lens.py", "Broken on purpose: an audit catches each bug",
               ":material/bug_report:", (("lens_tab", GALLERY_TAB), ("presenter", "true"))))),
    Use("Research", ":material/science:",
        "Compare accountants on a plan, reproduce the DP-EM and covariance papers' figures, "
        "recover communities privately, and audit a mechanism empirically.",
        (Entry("pages/budget.py", "The DP-EM paper's setting, in paper mode",
               ":material/description:",
               (("budget_rounds", "10"), ("budget_k", "3"), ("budget_delta", "0.0001"),
                ("budget_paper", "true"))),
         Entry("pages/factors.py", "Private factor analysis of the digits",
               ":material/grid_view:"),
         Entry("pages/covariance.py", "Private covariance: GaussCov vs SeparateCov vs "
               "AdaptiveCov", ":material/grid_on:"),
         Entry("pages/sbm.py", "Community recovery vs randomized response",
               ":material/hub:"),
         Entry("pages/lens.py", "Audit a Gaussian count with 200,000 runs",
               ":material/fact_check:",
               (("lens_query", "count"), ("lens_mechanism", "Gaussian"),
                ("lens_trials", "200000"))))),
)

INTRO = (
    "**Differential privacy** promises that what a release reveals hardly depends on any "
    "one person: replace one row of the data and the output's distribution moves by at "
    "most a factor eᵋ (plus a small slack δ).",
    "The picture shows it for a count released with Laplace noise: the two curves are the "
    "possible outputs on two datasets that differ in one person, and they overlap so much "
    "that no one can tell from the output which dataset was used.",
    "ε is the privacy budget: a smaller ε means more noise and more privacy, every release "
    "spends some of it, and good accounting makes it go further.",
)


def example(seed: int, secure: bool = False) -> LensView:
    """The Home picture's engine call: a Laplace count on two neighbouring datasets."""
    return lens_view((0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0), 0, 1.0, query="count",
                     mechanism="laplace", epsilon=1.0, delta=0.0, method="linear", lo=0.0,
                     hi=1.0, threshold=0.5, seed=seed, secure=secure)


def use_card(use: Use) -> None:
    """One kind of user: a heading, a sentence, and one link per scenario."""
    with st.container(border=True, height="stretch"):
        st.markdown(f"#### {use.title}")
        st.markdown(use.pitch)
        for entry in use.entries:
            st.page_link(entry.page, label=entry.label, icon=entry.icon,
                         query_params=dict(entry.params) or None)
