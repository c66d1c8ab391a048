"""The shared set-up every page makes first: page config, sidebar, navigation and style.

dpviz runs in Streamlit's pages-directory mode (the design notes on Streamlit): ``app.py`` is the
Home page, every file in ``pages/`` is a page, and each starts with :func:`page`, which plays
the part a router would.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dpviz.core import limits
from dpviz.ui import live
from dpviz.ui.widgets import SHOWN_FIGURES, show_failure

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"

#: The grouped navigation: (group, ((script, label, icon), ...)). A page appears once its file
#: exists, so pages still to come are never mentioned.
NAVIGATION: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    ("Start", (("app.py", "Home", ":material/home:"),
               ("pages/live.py", "Live class", ":material/groups:"))),
    ("Privacy", (("pages/budget.py", "Privacy budget", ":material/account_balance_wallet:"),
                 ("pages/lens.py", "Privacy lens", ":material/visibility:"),
                 ("pages/glossary.py", "Glossary", ":material/dictionary:"))),
    ("Estimators", (("pages/gmm.py", "Gaussian mixtures", ":material/bubble_chart:"),
                    ("pages/exposure.py", "Privacy exposure", ":material/person_search:"),
                    ("pages/factors.py", "Factor analysis", ":material/grid_view:"),
                    ("pages/covariance.py", "Covariance", ":material/grid_on:"),
                    ("pages/sbm.py", "Stochastic block model", ":material/hub:"))),
    ("Research", (("pages/explorer.py", "Trade-off explorer", ":material/query_stats:"),
                  ("pages/papers.py", "Papers", ":material/menu_book:"))),
)

SEED_HELP = ("Seeds every random draw on every page, so a link reopens the same numbers. "
             "Seeded noise is for teaching and research: a real release needs secure "
             "randomness.")
TEACHING_NOTE = "Teaching randomness — reproducible, not for real releases."
SECURE_NOTE = ("Secure randomness: not reproducible. Every rerun draws new noise from the "
               "operating system's entropy; no seed is shown or kept.")
SECURE_HELP = ("Draw the noise from OS entropy instead of the seed, Laplace and Gaussian noise "
               "with OpenDP's float-safe samplers: what a real release needs. Numbers change "
               "on every rerun and an experiment card cannot replay them.")
#: Where the seed waits while secure mode hides its widget (Streamlit drops undrawn widgets).
KEPT_SEED = "_kept_seed"
PRESENTER_HELP = "Larger text and fewer controls (advanced settings hidden), for a projector."


@dataclass(frozen=True)
class PageContext:
    """What the sidebar decided for this run of a page.

    Attributes
    ----------
    seed : int
        The noise seed: the global seed, or in secure mode 128 fresh bits of OS entropy on
        every rerun that key the rerun's secure generators
        (:func:`dpviz.ui.cached.noise_rng`): never shown, and a new cache key each rerun, so
        the noise is new (the same key would repeat it). Pass ``secure`` with it.
    presenter : bool
        Whether presenter mode is on.
    secure : bool
        Whether secure randomness is on (nothing is reproducible then).
    data_seed : int
        The seed of generated data: the global seed, kept while secure mode hides it, so
        switching to secure randomness changes the noise and not the data.
    """

    seed: int
    presenter: bool
    secure: bool
    data_seed: int


@st.cache_data(max_entries=4, show_spinner=False)
def _css(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def navigation() -> None:
    """The grouped ``st.page_link`` navigation (the sidebar's, also usable in a page)."""
    with st.container(key="navigation"):
        for group, entries in NAVIGATION:
            present = [e for e in entries if (ROOT / e[0]).is_file()]
            if not present:
                continue
            st.caption(group)
            for script, label, icon in present:
                st.page_link(script, label=label, icon=icon)


def _randomness() -> tuple[int, int, bool]:
    """The sidebar's randomness: the seed, or the secure switch that hides it.

    Returns the noise seed, the data seed and whether secure mode is on. Streamlit drops a
    widget's state when it is not drawn, so the seed is kept under :data:`KEPT_SEED` while
    secure mode hides it and restored when the switch goes off.
    """
    secure = bool(st.toggle("Secure randomness", value=False, key="secure",
                            bind="query-params", help=SECURE_HELP))
    if secure:
        st.caption(SECURE_NOTE)
        kept = int(st.session_state.get("seed", st.session_state.get(KEPT_SEED, 0)))
        st.session_state[KEPT_SEED] = kept
        return secrets.randbits(128), kept, True
    kept = st.session_state.pop(KEPT_SEED, None)
    if kept is not None and "seed" not in st.session_state:  # back from secure mode
        st.session_state["seed"] = kept
    seed = int(st.number_input("Seed", min_value=int(limits.SEED.low),
                               max_value=int(limits.SEED.high), step=1, format="%d",
                               key="seed", bind="query-params", help=SEED_HELP))
    st.caption(TEACHING_NOTE)
    return seed, seed, False


def _page_failed(err: Exception) -> bool:
    """The page's error boundary: a sentence in the page, the trace in the server's log.

    Streamlit calls it (its ``on_script_error`` hook) for an exception the page did not
    catch, after it has logged the trace; returning ``True`` keeps its own exception box,
    with type and trace, out of the browser.
    """
    show_failure(err)
    return True


def error_boundary() -> None:
    """Make every uncaught exception of this run of the page end in one sentence.

    Hooks :func:`_page_failed` into this session's script-run context (per session, set
    again on every run); outside a Streamlit run there is nothing to hook.
    """
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is not None:
        ctx.on_script_error = _page_failed


def page(title: str) -> PageContext:
    """Set up a page: error boundary, config, sidebar (navigation, seed, presenter mode), style.

    Parameters
    ----------
    title : str
        The page's title (also the browser tab's).

    Returns
    -------
    PageContext
        The seed and presenter mode chosen in the sidebar.
    """
    error_boundary()
    st.set_page_config(page_title=f"{title} · dpviz", page_icon=":material/shield_lock:",
                       layout="wide", initial_sidebar_state="expanded")
    st.session_state[SHOWN_FIGURES] = {}  # this run's figures, for the experiment card
    with st.sidebar:
        st.markdown("## dpviz")
        navigation()
        st.divider()
        seed, data_seed, secure = _randomness()
        presenter = st.toggle("Presenter mode", value=False, key="presenter",
                              bind="query-params", help=PRESENTER_HELP)
        st.toggle("Predict, then reveal", value=False, key="predict", bind="query-params",
                  help="Classroom mode: a result stays hidden until you guess it (the "
                       "noise's width on the lens, where a private mean lands, ε after T "
                       "rounds, a covariance's error, the share of vertices misclassified); "
                       "Reveal shows how far off you were. Ground truth is hidden until then.")
    css = _css("app.css") + (_css("presenter.css") if presenter else "")
    st.html(f"<style>{css}</style>")
    st.title(title)
    live.banner()
    if secure:
        st.caption(SECURE_NOTE)
    return PageContext(seed=seed, presenter=bool(presenter), secure=secure,
                       data_seed=data_seed)
