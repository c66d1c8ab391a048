"""The shared set-up every page makes first: page config, sidebar, navigation and style.

dpviz runs in Streamlit's pages-directory mode (the design notes on Streamlit): ``app.py`` is the
Home page, every file in ``pages/`` is a page, and each starts with :func:`page`, which plays
the part a router would.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dpviz.core import limits
from dpviz.ui import seat
from dpviz.ui.pages_list import PAGES, sections
from dpviz.ui.warm import warm_up
from dpviz.ui.widgets import SHOWN_FIGURES, escape_markdown, show_failure

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"

SEED_HELP = ("Seeds every random draw on every page, so a link reopens the same numbers. "
             "Seeded noise is for teaching and research: a real release needs secure "
             "randomness.")
TEACHING_NOTE = "Teaching randomness — reproducible, not for real releases."
#: The sidebar's secure-randomness switch (its session-state key and its link parameter).
SECURE = "secure"
SECURE_NOTE = ("Secure randomness: not reproducible. Every rerun draws new noise from the "
               "operating system's entropy; no seed is shown or kept.")
SECURE_HELP = ("Draw the noise from OpenSSL's cryptographic generator instead of the seed, "
               "exact discrete Laplace and Gaussian noise on a fine grid: what a real release "
               "needs. Numbers change on every rerun and an experiment card cannot replay them.")
#: Where the seed waits while secure mode hides its widget (Streamlit drops undrawn widgets).
KEPT_SEED = "_kept_seed"
PRESENTER_HELP = ("For a projector: sidebar closed, larger text, the main chart first with ε "
                  "beside it, the introduction and advanced settings hidden.")
#: Session key of the page's title (the stakeholder report's heading).
PAGE_TITLE = "_page_title"
#: Session key and URL parameter of presenter mode.
PRESENTER = "presenter"
#: Session key: per page (script hash), the URL parameters the page was opened with.
OPENING = "_opening_params"
#: Session key: the page (script hash) of the session's last run, to tell a page's opening run
#: from its reruns.
LAST_PAGE = "_last_page"
#: URL parameter the reset link adds: the run it opens reseeds the widgets, then drops it.
RESET_MARK = "reset"
#: URL parameters "Reset to scenario" leaves as they are (the lecturer's own mode).
KEPT_ON_RESET = frozenset({PRESENTER})
#: Key of the first load's note (:func:`loading_note`; ``app.css`` styles it by this key).
LOADING = "page-loading"
RESET_HELP = ("Back to the values this page was opened with (the scenario link's), or to the "
              "defaults when it was opened without any.")


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
        for section, pages in sections():
            st.caption(section)
            for entry in pages:
                st.page_link(entry.script, label=entry.title, icon=entry.icon)


def _randomness() -> tuple[int, int, bool]:
    """The sidebar's randomness: the seed, or the secure switch that hides it.

    Returns the noise seed, the data seed and whether secure mode is on. Streamlit drops a
    widget's state when it is not drawn, so the seed is kept under :data:`KEPT_SEED` while
    secure mode hides it and restored when the switch goes off.
    """
    secure = bool(st.toggle("Secure randomness", value=False, key=SECURE,
                            bind="query-params", help=SECURE_HELP))
    if secure:
        st.caption(SECURE_NOTE)
        kept = int(st.session_state.get("seed", st.session_state.get(KEPT_SEED, _link_seed())))
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


def _link_seed() -> int:
    """The data seed a link gives while secure mode hides the seed's widget (else 0).

    A hidden widget does not read its link parameter, so ``?secure=true&seed=7`` would give
    every student seed 0's data; the seed only draws the generated (public) data here, the
    noise stays secure. A value out of range or not a whole number falls back to 0.
    """
    try:
        return limits.check_integer(limits.SEED, st.query_params.get("seed", "0"))
    except ValueError:
        return 0


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


def intro(text: str) -> None:
    """The page's introduction under its title; presenter mode hides it (the lecturer says it)."""
    st.container(key="page-intro").markdown(text)


def main_columns(key: str) -> list[DeltaGenerator]:
    """A page's controls and figures columns (2 : 3), in a container the style sheets find.

    On a wide screen the controls are left; presenter mode puts the figures left
    (``presenter.css``), and on a phone, where Streamlit stacks the columns, the figures come
    first (``app.css``). Returns ``[controls, figures]``.
    """
    return st.container(key=f"main-{key}").columns([2, 3], gap="large")


def _opening_run() -> bool:
    """Whether this run opens its page: its script hash is not the session's last run's.

    Outside a Streamlit run, ``False``.
    """
    current = _current_page()
    if current is None:
        return False
    opened = st.session_state.get(LAST_PAGE) != current[0]
    st.session_state[LAST_PAGE] = current[0]
    return opened


def _link_sets_presenter(opened: bool) -> None:
    """On the run that opens a page, a URL's ``presenter=true`` or ``false`` sets the toggle.

    A link followed inside the app (``st.page_link``, a markdown link) would leave presenter
    mode as it was: a widget keeps its value by key across pages, and Streamlit drops from
    ``st.query_params`` a parameter bound to a widget last drawn on another page (the
    sidebar's, drawn by every page). So the run that opens a page (``opened``,
    :func:`_opening_run`) reads the address the browser sent, writes its value into the
    toggle's state before the toggle is drawn and puts a dropped ``presenter=true`` back in
    the address. Reruns of the same page leave it alone: flipping the toggle decides there,
    and updates the URL.
    """
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or not opened:
        return
    sent = parse_qs(ctx.query_string).get(PRESENTER, [""])[-1].lower()
    if sent in ("true", "false"):
        st.session_state[PRESENTER] = sent == "true"
        if sent == "true" and PRESENTER not in st.query_params:  # dropped, and unbound
            st.query_params[PRESENTER] = sent  # so the address still reopens this view


def presenter_requested() -> bool:
    """Whether presenter mode is on for this run, read before its sidebar toggle is drawn.

    The session's value once the toggle has run, else the URL's (a link with
    ``presenter=true``): :func:`page` needs it for ``st.set_page_config``, which comes first.
    """
    if PRESENTER in st.session_state:
        return bool(st.session_state[PRESENTER])
    return st.query_params.get(PRESENTER, "").lower() == "true"


def _current_page() -> tuple[str, str] | None:
    """The page of this run: its script hash and path (``None`` outside a Streamlit run)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return None
    info = ctx.pages_manager.get_pages().get(ctx.page_script_hash)
    return None if info is None else (ctx.page_script_hash, str(info["script_path"]))


def _opening_params() -> dict[str, list[str]]:
    """The URL parameters this page was opened with, kept from its first run in the session.

    On the run a reset link opens (its :data:`RESET_MARK`), every URL-bound widget is
    resolved as on the browser's Back button, Streamlit's own rule for it: the link's value,
    or the widget's default when the link has none, shown in the widget. The mark is then
    dropped, which also sends the browser the reset address.
    """
    ctx = get_script_run_ctx(suppress_warning=True)
    current = _current_page()
    if ctx is None or current is None:
        return {}
    here = {k: st.query_params.get_all(k) for k in st.query_params if k != RESET_MARK}
    opened = st.session_state.setdefault(OPENING, {})
    opened.setdefault(current[0], here)
    if RESET_MARK in st.query_params:
        ctx.is_history_navigation = True  # this run only: the URL decides every bound widget
        del st.query_params[RESET_MARK]
    return dict(opened[current[0]])


def reset_button(opening: dict[str, list[str]], *, presenter: bool) -> None:
    """"Reset to scenario": a link reopening this page on ``opening`` (the defaults if empty).

    Shown beside the title in presenter mode (the sidebar is closed there), else in the
    sidebar. The run it opens seeds every URL-bound widget from ``opening`` again (the
    others get their defaults, :func:`_opening_params`); presenter mode stays as it is.
    """
    current = _current_page()
    if current is None:
        return
    params = {k: v for k, v in opening.items() if k not in KEPT_ON_RESET | seat.SEAT_PARAMS}
    params.update({k: st.query_params.get_all(k) for k in KEPT_ON_RESET if k in st.query_params})
    where = st.container() if presenter else st.sidebar
    where.page_link(str(Path(current[1]).relative_to(ROOT)), label="Reset to scenario",
                    icon=":material/restart_alt:", help=RESET_HELP,
                    query_params={**params, RESET_MARK: "1"})


def loading_note(title: str, *, opened: bool) -> None:
    """The run that opens a page says in words that it is loading, while it runs.

    Issue 34: a first load of /sbm showed a blank column for 15 s under Streamlit's small
    running icon. Drawn under the title, before the page's own work: "Loading the Stochastic
    block model page…" (the page's name in :data:`~dpviz.ui.pages_list.PAGES`, else
    ``title``), a spinner and the seconds since it appeared (``app.css``, which hides it once
    the run has ended). Reruns draw an empty placeholder in its place: the elements below
    keep their positions, so the browser updates them instead of drawing them anew.
    """
    if not opened:
        st.empty()
        return
    current = _current_page()
    script = str(Path(current[1]).relative_to(ROOT)) if current else ""
    name = next((entry.title for entry in PAGES if entry.script == script), title)
    # plain markdown in a keyed container: the browser has markdown's code already (the
    # title's); st.html's and HTML in markdown are fetched on first use, after the page
    # below them is drawn
    st.container(key=LOADING).markdown(f"Loading the {escape_markdown(name)} page…")


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
    warm_up()  # once per server: the other pages' imports, in the background
    opening = _opening_params()
    opened = _opening_run()
    _link_sets_presenter(opened)
    # The icon is a file the server sends (a material icon's favicon is fetched from Google's
    # font servers by every browser). The sidebar's toggle is drawn after the config: read its
    # value first. "auto" closes the sidebar on a phone's narrow screen, opens it on a wide one.
    st.set_page_config(page_title=f"{title} · dpviz",
                       page_icon=(ASSETS / "favicon.png").read_bytes(), layout="wide",
                       initial_sidebar_state="collapsed" if presenter_requested() else "auto")
    st.session_state[SHOWN_FIGURES] = {}  # this run's figures, for the experiment card
    seat.restore()  # a reloaded student's class (it sets the predict toggle: before it is drawn)
    st.session_state[PAGE_TITLE] = title  # the stakeholder report's heading
    with st.sidebar:
        st.markdown("## dpviz")
        navigation()
        st.divider()
        seed, data_seed, secure = _randomness()
        presenter = st.toggle("Presenter mode", value=False, key=PRESENTER,
                              bind="query-params", help=PRESENTER_HELP)
        st.toggle("Predict, then reveal", value=False, key="predict", bind="query-params",
                  help="Classroom mode: a result stays hidden until you guess it (the "
                       "noise's width on the lens, where a private mean lands, ε after T "
                       "rounds, a covariance's error, the share of vertices misclassified); "
                       "Reveal shows how far off you were. Ground truth is hidden until then.")
    css = _css("app.css") + (_css("presenter.css") if presenter else "")
    st.html(f"<style>{css}</style>")
    with st.container(key="page-head", horizontal=True, horizontal_alignment="distribute",
                      vertical_alignment="center"):
        st.title(title, width="content")
        reset_button(opening, presenter=bool(presenter))
    loading_note(title, opened=opened)
    seat.banner()
    if secure:
        st.caption(SECURE_NOTE)
    return PageContext(seed=seed, presenter=bool(presenter), secure=secure,
                       data_seed=data_seed)
