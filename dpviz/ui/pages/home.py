"""The Home page's content: two paths to teach or present, and the three ways into dpviz.

Every step and entry is one click into a page with a scenario loaded (its URL parameters).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import streamlit as st

from dpviz.lab import lessons as measured
from dpviz.lab.lens import LensView
from dpviz.ui import pages_list
from dpviz.ui.cached import lens_view
from dpviz.ui.panels.audit import GALLERY_TAB


@dataclass(frozen=True)
class Entry:
    """One click into a page with a scenario loaded (its URL parameters).

    ``page`` is a file of :data:`~dpviz.ui.pages_list.PAGES`: a path into a page that is not
    there fails when Home is imported, not when a lecturer clicks it.
    """

    page: str
    label: str
    icon: str
    params: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        pages_list.page(self.page)  # raises ValueError naming the pages


@dataclass(frozen=True)
class Use:
    """A kind of user, what dpviz offers them, and where to start."""

    title: str
    icon: str
    pitch: str
    entries: tuple[Entry, ...]


@dataclass(frozen=True)
class Step:
    """One step of a path: the link, its minutes, what to show, a question and its lesson."""

    entry: Entry
    minutes: int
    show: str
    ask: str
    teaches: str


@dataclass(frozen=True)
class Path:
    """A numbered sequence of steps for one session (a class, a demo)."""

    title: str
    pitch: str
    steps: tuple[Step, ...]
    audience: str = "the class"

    @property
    def minutes(self) -> int:
        """The path's length, the sum of its steps'."""
        return sum(step.minutes for step in self.steps)


def _eps(value: float) -> str:
    """A link's or a sentence's ε: ``0.5``, ``2``."""
    return f"{value:g}"


_LOW, _HIGH = measured.LENS_ENDS

#: Each step's parameters and claims are measured by :mod:`dpviz.lab.lessons` (the claims
#: register re-runs them): change a step there, not only here.
LESSON = Path(
    "A first class on differential privacy",
    "Five steps from what the promise means to how a broken promise is caught. Each link "
    "opens the page set up for its step; the question is for the class before you move on.",
    (Step(Entry("pages/lens.py", "Two datasets, one person apart", ":material/visibility:",
                (("lens_query", "count"), ("lens_epsilon", _eps(measured.LENS_EPSILON)))),
          10,
          f"The outputs of a noisy count on two datasets that differ in one person. Slide ε "
          f"to {_eps(_LOW)}, then to {_eps(_HIGH)}, and watch the two curves part.",
          f"At ε = {_eps(_HIGH)} you see one output: which dataset would you bet on, and how "
          "sure would you be?",
          f"ε caps how much one output can shift the odds between the two datasets: by a "
          f"factor eᵋ at most, about {math.exp(measured.LENS_EPSILON):.1f} at ε = "
          f"{_eps(measured.LENS_EPSILON)} but about {round(math.exp(_HIGH), -1):.0f} at "
          f"ε = {_eps(_HIGH)}."),
     Step(Entry("pages/exposure.py", "One person alone", ":material/person_search:",
                (("exposure_epsilon", _eps(measured.EXPOSURE_EPSILON)),)),
          8,
          "A model fitted without privacy puts one of its means exactly on the person "
          "alone; the private model's means stay away from them. Then switch on "
          "“× 50 data” and compare the table's two rows at the same ε.",
          "Publishing only averages, not rows: can that give one person away?",
          "Yes, when a person is far from everyone else their average is their row. "
          "Privacy is about one person's influence, and in a larger group that influence "
          "shrinks, so the same ε needs less noise: with 50 times the data the private "
          "means land closer to the non-private ones."),
     Step(Entry("pages/budget.py", "Where the budget goes", ":material/account_balance_wallet:",
                (("budget_epsilon", _eps(measured.BUDGET_EPSILON)),)),
          10,
          f"A model trained in {measured.BUDGET_ROUNDS} rounds, each round a private "
          "release, under one total budget. Compare the noise each accounting method needs.",
          "Same releases, same total ε: why does one method need several times less noise "
          "than another?",
          "Every release spends budget, and the losses add up. Adding the worst cases is "
          "safe but loose; tighter accounting proves the same guarantee with less noise."),
     Step(Entry("pages/gmm.py", "What privacy costs in accuracy", ":material/scatter_plot:",
                (("gmm_epsilon", _eps(measured.GMM_EPSILON)),)),
          12,
          f"A mixture of Gaussians fitted privately: the private means (orange) against "
          f"the true ones (black). Slide ε from {_eps(measured.GMM_EPSILON)} to "
          f"{_eps(measured.GMM_TOP_EPSILON)}; switch on the cloud of repeated runs to see "
          "how far the means wander.",
          "Roughly which ε puts every private mean inside its cluster, and would the "
          "answer change with ten times more data?",
          "Privacy and accuracy trade against each other, and more data buys both: the "
          "error shrinks as the number of people or ε grows. “Solve for ε” on the page "
          "finds the smallest ε that meets an accuracy goal."),
     Step(Entry("pages/lens.py", "Broken on purpose: the audit gallery",
                ":material/bug_report:", (("lens_tab", GALLERY_TAB),
                                          ("gallery_epsilon", _eps(measured.GALLERY_EPSILON)))),
          10,
          "Private means that each make one classic mistake. Before running the gallery, "
          "read the mistakes out; then run it and compare the measured ε with the claim.",
          "Which mistake do you expect the audit to catch most clearly, and why?",
          "An audit measures, from outputs alone, a lower bound on ε: it can prove a "
          "privacy claim false, never prove it true. Correct code passes the same audits.")))

DEMO = Path(
    "A ten-minute demo for stakeholders",
    "Three questions a decision needs answered, in presenter mode: large text, fewer "
    "controls, and it stays on from page to page.",
    (Step(Entry("pages/lens.py", "What the promise means", ":material/slideshow:",
                (("presenter", "true"), ("lens_query", "count"),
                 ("lens_epsilon", _eps(measured.DEMO_LENS_EPSILON)))),
          3,
          "One person added or removed barely moves what a noisy count can output.",
          "Could anyone tell from this output whether your record was in the data?",
          "Hardly: the two curves overlap, and ε says by how much at most."),
     Step(Entry("pages/gmm.py", "What it costs in accuracy", ":material/slideshow:",
                (("presenter", "true"), ("gmm_epsilon", _eps(measured.DEMO_GMM_EPSILON)))),
          4,
          "A model fitted privately next to the true one; move ε and watch the error.",
          "How much accuracy will we trade for privacy, and at which ε?",
          "The budget is a decision with a measurable price; the page finds the smallest "
          "ε that meets an accuracy goal."),
     Step(Entry("pages/lens.py", "How we would know it works", ":material/slideshow:",
                (("presenter", "true"), ("lens_tab", GALLERY_TAB),
                 ("gallery_epsilon", _eps(measured.DEMO_GALLERY_EPSILON)))),
          3,
          "Variants broken on purpose, each caught by an audit that sees only outputs.",
          "How would we check a vendor's privacy claim?",
          "Audit it: a measured ε above the claim is proof of a bug.")),
    audience="the room")

PATHS: tuple[Path, ...] = (LESSON, DEMO)


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
    """One kind of user: a sentence, and one link per scenario."""
    with st.container(border=True):
        st.markdown(use.pitch)
        for entry in use.entries:
            st.page_link(entry.page, label=entry.label, icon=entry.icon,
                         query_params=dict(entry.params) or None)


def path_tab(path: Path) -> None:
    """A path: its sentence, then one full-width row per numbered step (nothing is cut)."""
    st.markdown(path.pitch)
    for number, step in enumerate(path.steps, start=1):
        with st.container(border=True):
            st.page_link(step.entry.page,
                         label=f"{number}. {step.entry.label} · {step.minutes} min",
                         icon=step.entry.icon, query_params=dict(step.entry.params) or None)
            st.markdown(f"**Show:** {step.show}  \n**Ask {path.audience}:** {step.ask}  \n"
                        f"**What the answer teaches:** {step.teaches}")


def paths() -> None:
    """The paths, one tab each, titled with their length."""
    tabs = st.tabs([f"{p.title} ({p.minutes} min)" for p in PATHS], key="home_path")
    for tab, path in zip(tabs, PATHS, strict=True):
        with tab:
            path_tab(path)


def uses() -> None:
    """The three kinds of user, one tab each: full-width rows, so no link is cut."""
    tabs = st.tabs([use.title for use in USES], key="home_use")
    for tab, use in zip(tabs, USES, strict=True):
        with tab:
            use_card(use)
